//! `kdrift ingest api` and `kdrift record`: connect like kubectl, run the
//! library's snapshot or recorder on a Tokio runtime, report.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kdrift_ingest::{record_cluster, sample_metrics, snapshot_cluster_with_progress, ListingProgress, RecorderStats};
use kdrift_ingest::{
    ApiReport, MetricsSource, RecordObserver, RecordOptions, Retry, Severity, SnapshotOptions, WallClock,
};
use kdrift_rebalance::{Connected, ResourceKind, Scope};
use kdrift_store::{RunCounts, RunStatus};

use crate::args::{Cli, IngestApiArgs, KubeArgs, Output, RecordArgs};
use crate::progress::listings::Listings;
use crate::render;
use crate::signals::{outcome, run_kept, Outcome, Stage};

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().context("starting the runtime")
}

async fn connect(args: &KubeArgs) -> anyhow::Result<(Connected, Scope)> {
    let options = args.cluster.options();
    let connected = options.open().await?;
    let scope = match (&args.namespace, args.all_namespaces) {
        (_, true) => Scope::AllNamespaces,
        (Some(ns), false) => Scope::Namespace(ns.clone()),
        (None, false) => Scope::Namespace(connected.default_namespace.clone()),
    };
    Ok((connected, scope))
}

/// Prints each resource problem on stderr, then the report on stdout.
/// Exit 2 when a resource failed for another reason than 403/404, or
/// nothing could be read; else 0.
fn report(cli: &Cli, report: &ApiReport) -> anyhow::Result<ExitCode> {
    {
        let mut err = std::io::stderr().lock();
        for r in &report.resources {
            if let Some(p) = &r.problem {
                let what = if p.severity == Severity::Warning { "warning: " } else { "" };
                writeln!(err, "kdrift: {what}{}", p.message)?;
            }
            for e in &r.item_errors {
                writeln!(err, "kdrift: {e}")?;
            }
        }
        if let Some(usage) = &report.usage {
            if usage.not_served {
                writeln!(err, "kdrift: note: {}", kdrift_ingest::METRICS_NOT_SERVED)?;
            }
            for e in &usage.errors {
                writeln!(err, "kdrift: {e}")?;
            }
        }
    }
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, report)?,
        Output::Table => render::api::summary(&mut out, report, &cli.db)?,
    }
    Ok(if report.errors() > 0 || report.status == RunStatus::Failed { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// `kdrift ingest api`. SIGINT or SIGTERM stops it: the snapshot's run is
/// closed as failed (it commits nothing before its end) and the exit
/// status is 130 or 143 ([`crate::signals`]); its final commit is stopped
/// too, and rolled back whole (issue 34), unless DuckDB already writes its
/// COMMIT: then it is too late, the run completes, a warning says so, and
/// the exit status is that of a completed snapshot, as for `ingest file`.
pub fn snapshot(cli: &Cli, api: &IngestApiArgs) -> anyhow::Result<ExitCode> {
    let args = &api.kube;
    let caught = crate::signals::catch()?;
    let runtime = runtime()?;
    // Connected before the store is opened: without a usable kubeconfig
    // nothing is created and no run is recorded.
    let connection = runtime.block_on(async {
        tokio::select! {
            c = connect(args) => c.map(Some),
            () = caught.interrupt().triggered() => Ok(None),
        }
    })?;
    let Some((connected, scope)) = connection else {
        writeln!(
            std::io::stderr(),
            "kdrift: error: interrupted by {} while connecting: nothing was stored",
            caught.signal_name()
        )?;
        return Ok(caught.exit_code());
    };
    let store = crate::cmd::open_store(cli)?;
    caught.store_opened();
    // The final commit runs on this thread and would hold the signal until
    // its end (issue 34: 11.6 s): the first signal stops the statement it
    // runs, or the next one (`SnapshotOptions::interrupt`), and the
    // commit's transaction is rolled back whole.
    let (stop_commit, interrupt) = (store.interrupt_handle(), caught.interrupt().clone());
    runtime.spawn(async move {
        interrupt.triggered().await;
        stop_commit.interrupt();
    });
    let result = runtime.block_on(async {
        let taken = async {
            let options = SnapshotOptions {
                cluster: connected.url.clone(),
                scope: scope.clone(),
                page_size: args.chunk_size,
                request_timeout: Duration::from_secs(args.request_timeout),
                max_page_bytes: args.cluster.max_page_bytes(),
                interrupt: Some(caught.interrupt().clone()),
                retry: Retry { attempts: api.attempts, first_delay: api.retry_delay, ..Retry::default() },
            };
            let mut progress = Listings::new();
            anyhow::Ok(
                snapshot_cluster_with_progress(&store, &connected.client, &options, &WallClock, &mut progress).await?,
            )
        };
        // Interrupted: the snapshot is dropped, and with it its run writer,
        // which closes the run as failed. A snapshot that completes in the
        // poll the signal came in committed meanwhile (its final commit
        // awaits nothing): too late to stop, as `ingest file`'s.
        tokio::select! {
            taken = taken => match taken {
                // The commit, stopped by the signal: rolled back, the run closed as failed.
                Err(_) if caught.interrupt().is_triggered() => Ok(None),
                taken => taken.map(|r| Some((r, caught.interrupt().is_triggered()))),
            },
            () = caught.interrupt().triggered() => Ok(None),
        }
    })?;
    let Some((mut result, during_commit)) = result else {
        writeln!(
            std::io::stderr(),
            "kdrift: error: interrupted by {}: the snapshot's run is closed as failed and nothing of it is kept in {} \
             (a commit in progress is rolled back whole)",
            caught.signal_name(),
            cli.db.display()
        )?;
        return Ok(caught.exit_code());
    };
    // One usage sample from metrics.k8s.io, a run of its own (not asked of
    // a server nothing could be read from, nor after a signal).
    if result.status != RunStatus::Failed && !caught.interrupt().is_triggered() {
        let source = MetricsSource {
            cluster: connected.url.clone(),
            scope,
            request_timeout: Duration::from_secs(args.request_timeout),
            max_page_bytes: args.cluster.max_page_bytes(),
        };
        result.usage = runtime.block_on(async {
            tokio::select! {
                usage = sample_metrics(&store, &connected.client, &source) => usage.map(Some),
                () = caught.interrupt().triggered() => Ok(None),
            }
        })?;
    }
    crate::cmd::keep_after_ingest(&store)?;
    let code = report(cli, &result)?;
    let stage = if during_commit { Stage::FinalCommit } else { Stage::Finished };
    if let Outcome::Completed { warning } = outcome(caught.signal(), stage, &run_kept(result.run_id)) {
        writeln!(std::io::stderr(), "{warning}")?;
    }
    Ok(code)
}

/// Logs what the recorder does (`-v`): syncs, batches, problems; and
/// the progress of its first lists.
struct LogObserver {
    listings: Listings,
}

impl RecordObserver for LogObserver {
    fn listing(&mut self, resource: &ResourceKind, items: u64, pages: u32, done: bool) {
        self.listings.listing(&resource.name(), items, pages, done);
    }

    fn synced(&mut self, resource: &ResourceKind, resource_version: &str, relist: bool) {
        let what = if relist { "listed again" } else { "listed" };
        tracing::info!("{} {what} at resourceVersion {resource_version}; watching", resource.name());
    }

    fn committed(&mut self, counts: &RunCounts) {
        tracing::info!("committed: {} versions received, {} new", counts.records, counts.added);
    }

    fn usage_note(&mut self, message: &str) {
        eprintln!("kdrift: note: {message}");
    }

    fn problem(&mut self, resource: &ResourceKind, message: &str, fatal: bool) {
        if fatal {
            eprintln!("kdrift: warning: {message}; {} is not recorded", resource.name());
        }
    }
}

/// Completes on SIGTERM or SIGINT.
async fn shutdown_signal() {
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
    match term {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(e) => {
            tracing::warn!("cannot catch SIGTERM ({e}); stop with Ctrl-C");
            let _ = tokio::signal::ctrl_c().await;
        }
    }
    tracing::info!("stopping: committing the batch being staged");
}

/// `kdrift record`. SIGTERM or SIGINT stops it: it commits the batch being
/// staged, with the versions waiting that fit in it (the others are a
/// problem of the run, exit 2: the next record lists again; break-it 36
/// F4), and closes its run. A batch commit in progress when the signal
/// comes is stopped (issue 34: the signal waited for its end): that batch
/// is rolled back whole, the batches before stay, the run is closed as
/// failed, and the next `kdrift record` lists again and stores what the
/// store lacks.
pub fn record(cli: &Cli, args: &RecordArgs) -> anyhow::Result<ExitCode> {
    let runtime = runtime()?;
    // Connected before the store is opened, as `ingest api`.
    let (connected, scope) = runtime.block_on(connect(&args.kube))?;
    let store = crate::cmd::open_store(cli)?;
    let stats = Arc::new(RecorderStats::new(args.unhealthy_after));
    if let Some(addr) = args.metrics_addr {
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(addr))
            .with_context(|| format!("--metrics-addr {addr}: cannot listen"))?;
        let bound = listener.local_addr().context("--metrics-addr: the bound address")?;
        let text = format!(
            "kdrift: serving metrics on http://{bound}/metrics (probes http://{bound}/readyz, http://{bound}/healthz)"
        );
        match crate::progress::mode::mode() {
            crate::progress::mode::Mode::Json => {
                tracing::info!(target: crate::progress::mode::TARGET, event = "serving", addr = %bound, "{text}");
            }
            _ => writeln!(std::io::stderr(), "{text}")?,
        }
        let (stats, db) = (Arc::clone(&stats), cli.db.clone());
        runtime.spawn(async move {
            if let Err(e) = kdrift_ingest::serve_recorder_metrics(listener, stats, Some(db)).await {
                tracing::warn!("the metrics server stopped: {e}");
            }
        });
    }
    // On a task of its own: the recorder's loop is busy while it commits.
    let (stop_commit, (stop_tx, stop_rx)) = (store.interrupt_handle(), tokio::sync::oneshot::channel::<()>());
    let stopping = Arc::clone(&stats);
    let flag = Arc::clone(&stopping);
    runtime.spawn(async move {
        shutdown_signal().await;
        flag.stop_requested();
        stop_commit.interrupt();
        let _ = stop_tx.send(());
    });
    let shutdown = async move {
        let _ = stop_rx.await;
    };
    let result = runtime.block_on(async {
        let mut options = RecordOptions::new(connected.url.clone(), scope);
        options.watch.page_size = args.kube.chunk_size;
        options.watch.request_timeout = Duration::from_secs(args.kube.request_timeout);
        options.watch.max_page_bytes = args.kube.cluster.max_page_bytes();
        options.batch_records = args.batch_records;
        // No batch larger than DuckDB can commit under --memory-limit (issue 39).
        options.batch_bytes = args.max_batch_bytes.min(kdrift_store::batch_bytes_within(cli.memory_limit));
        options.watch.max_event_bytes = usize::try_from(args.max_event_bytes).unwrap_or(usize::MAX);
        options.batch_interval = Duration::from_secs(args.batch_seconds);
        options.metrics_interval = args.metrics_interval.0;
        options.stats = stats;
        tracing::info!("recording {} ({}) into {}", connected.url, options.scope, cli.db.display());
        let clock = Arc::new(WallClock);
        let mut observer = LogObserver { listings: Listings::new() };
        record_cluster(&store, &connected.client, &options, clock, shutdown, &mut observer).await
    });
    let result = match result {
        Ok(r) => r,
        Err(e) if stopping.is_stopping() => {
            tracing::debug!("the store's work stopped by the signal: {e}");
            writeln!(
                std::io::stderr(),
                "kdrift: error: stopped during a batch commit: that batch was rolled back whole (none of it is \
                 stored), the batches committed before stay in {}; the run is closed as failed; the next `kdrift \
                 record` lists again and stores what the store lacks",
                cli.db.display()
            )?;
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e.into()),
    };
    crate::cmd::keep_after_ingest(&store)?;
    report(cli, &result)
}
