//! `kdrift ingest api` and `kdrift record`: connect like kubectl, run the
//! library's snapshot or recorder on a Tokio runtime, report.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use kdrift_ingest::api::{self, ApiReport, RecordObserver, RecordOptions, Severity, SnapshotOptions, WallClock};
use kdrift_rebalance::{Connected, ResourceKind, Scope};
use kdrift_store::writer::{RunCounts, RunStatus};

use crate::args::{Cli, KubeArgs, Output, RecordArgs};
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
    }
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, report)?,
        Output::Table => render::api::summary(&mut out, report, &cli.db)?,
    }
    Ok(if report.errors() > 0 || report.status == RunStatus::Failed { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// `kdrift ingest api`. SIGINT or SIGTERM stops it: the snapshot's run is
/// closed as failed (it commits nothing before its end) and the exit
/// status is 130 or 143 ([`crate::signals`]); during its final commit it
/// is too late: the run completes, a warning says so, and the exit status
/// is that of a completed snapshot, as for `ingest file`.
pub fn snapshot(cli: &Cli, args: &KubeArgs) -> anyhow::Result<ExitCode> {
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
    let store = crate::cmd::open_store(&cli.db)?;
    let result = runtime.block_on(async {
        let taken = async {
            let options = SnapshotOptions {
                cluster: connected.url.clone(),
                scope,
                page_size: args.chunk_size,
                request_timeout: Duration::from_secs(args.request_timeout),
            };
            anyhow::Ok(api::snapshot(&store, &connected.client, &options, &WallClock).await?)
        };
        // Interrupted: the snapshot is dropped, and with it its run writer,
        // which closes the run as failed. A snapshot that completes in the
        // poll the signal came in committed meanwhile (its final commit
        // awaits nothing): too late to stop, as `ingest file`'s.
        tokio::select! {
            taken = taken => taken.map(|r| Some((r, caught.interrupt().is_triggered()))),
            () = caught.interrupt().triggered() => Ok(None),
        }
    })?;
    let Some((result, during_commit)) = result else {
        writeln!(
            std::io::stderr(),
            "kdrift: error: interrupted by {}: the snapshot's run is closed as failed and nothing of it is kept in {}",
            caught.signal_name(),
            cli.db.display()
        )?;
        return Ok(caught.exit_code());
    };
    crate::cmd::keep_after_ingest(&store)?;
    let code = report(cli, &result)?;
    let stage = if during_commit { Stage::FinalCommit } else { Stage::Finished };
    if let Outcome::Completed { warning } = outcome(caught.signal(), stage, &run_kept(result.run_id)) {
        writeln!(std::io::stderr(), "{warning}")?;
    }
    Ok(code)
}

/// Logs what the recorder does (`-v`): syncs, batches, problems.
struct LogObserver;

impl RecordObserver for LogObserver {
    fn synced(&mut self, resource: &ResourceKind, resource_version: &str, relist: bool) {
        let what = if relist { "listed again" } else { "listed" };
        tracing::info!("{} {what} at resourceVersion {resource_version}; watching", resource.name());
    }

    fn committed(&mut self, counts: &RunCounts) {
        tracing::info!("committed: {} versions received, {} new", counts.records, counts.added);
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
    tracing::info!("stopping: committing what was received");
}

/// `kdrift record`.
pub fn record(cli: &Cli, args: &RecordArgs) -> anyhow::Result<ExitCode> {
    let runtime = runtime()?;
    // Connected before the store is opened, as `ingest api`.
    let (connected, scope) = runtime.block_on(connect(&args.kube))?;
    let store = crate::cmd::open_store(&cli.db)?;
    let result = runtime.block_on(async {
        let mut options = RecordOptions::new(connected.url.clone(), scope);
        options.watch.page_size = args.kube.chunk_size;
        options.watch.request_timeout = Duration::from_secs(args.kube.request_timeout);
        options.batch_records = args.batch_records;
        options.batch_interval = Duration::from_secs(args.batch_seconds);
        tracing::info!("recording {} ({}) into {}", connected.url, options.scope, cli.db.display());
        let clock = Arc::new(WallClock);
        anyhow::Ok(api::record(&store, &connected.client, &options, clock, shutdown_signal(), &mut LogObserver).await?)
    })?;
    crate::cmd::keep_after_ingest(&store)?;
    report(cli, &result)
}
