//! `kdrift record`: the continuous recorder. One [`watcher::Watcher`] task
//! per resource of [`HISTORY_RESOURCES`] lists then watches (bookmarks,
//! re-list and reconcile on 410 Gone, resume with backoff after a dropped
//! connection), and this loop stages what they send into one run, committing
//! a batch every [`RecordOptions::batch_records`] records,
//! [`RecordOptions::batch_bytes`] of objects or
//! [`RecordOptions::batch_interval`], whichever comes first. The channel
//! between them is bounded in messages and, through a [`budget::Budget`]
//! of [`WatchSettings::max_event_bytes`], in bytes of objects: the watchers
//! wait while a batch commits, and at most one event's worth of objects
//! waits to be staged (break-it 36 F3). So the recorder's peak memory is
//! about its base plus a few copies of the largest event (the text read,
//! its parsed object, the staged row and model, DuckDB's copies) plus the
//! batch (docs/sources.md "Memory": measured figures).
//!
//! Deletions: a watch's DELETED carries the object's last state (a deleted
//! pod keeps its node). An object missing from a re-list (deleted during a
//! gap) is recorded as DELETED with the last version the store has, observed
//! at the re-list. A (re)started recorder first loads what the store's API
//! runs last saw alive ([`known`]), so its first list stores only what
//! changed and records what was deleted while it was down.
//!
//! Shutdown (the `shutdown` future: SIGTERM / SIGINT in the CLI), seen
//! between two messages, stops the watchers, stages the versions waiting
//! as far as they fit in the batch being staged, commits it and closes the
//! run (`ok`, or `partial` when a resource could not be read or versions
//! waiting were left: the next record lists again and stores them). A stop
//! so costs at most the message in hand and one batch (break-it 36 F4). A
//! killed recorder loses at most the uncommitted batch; its run stays
//! `running` with the counts of its last batch until the next start, which
//! closes it as `failed` when it opens the store and re-lists.
//!
//! A list item or watch line that is skipped (issue 34) is an error of the
//! run, stored with the next batch; the first of each kind is logged at
//! warn, and the run's end logs each kind's count. A resource whose last
//! list or watch failed and that was not watched again before the end is
//! a problem of the run (`partial`, or `failed` when nothing was read):
//! a server that never answers does not end as `ok`. Nor does a stop
//! during a resource's first (paginated) list: what its pages gave is
//! stored, and the resource is a problem of the run (`partial`), the
//! next record listing it again.
//!
//! Observation times come from a [`Clock`]: the wall clock live, a manual
//! clock in tests replaying a recorded history.
//!
//! Measured usage: every [`RecordOptions::metrics_interval`] a task reads
//! `metrics.k8s.io` NodeMetrics and PodMetrics (`api::metrics`) and
//! this loop stores the samples under the run (at the items' own
//! timestamps, so a reading metrics-server has not renewed is stored once).
//! A server that does not serve the API is said once
//! ([`RecordObserver::usage_note`]) and asked again every interval.
//!
//! Observability (issue 38 item 2): the counts live in a shared
//! [`stats::RecorderStats`] ([`RecordOptions::stats`]) that [`serve`]
//! exposes as Prometheus metrics and probes. A batch commit that fails is
//! retried at the next batch interval (the batch stays staged), counted
//! there, and ends the recorder only after
//! [`stats::RecorderStats::give_up_after`] failures in a row (or at once
//! when a stop was requested: the signal stopped it).
//!
//! Progress: each page of a resource's first list is said to
//! [`RecordObserver::listing`] (`listing pods… 1,000 items (2 pages)`).

pub mod budget;
pub mod known;
pub mod serve;
pub mod stats;
pub mod watcher;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use kdrift_rebalance::{BadEventKind, ResourceKind, Scope, DEFAULT_REQUEST_TIMEOUT, HISTORY_RESOURCES};
use kube::Client;
use tokio::sync::mpsc;

use super::clock::Clock;
use super::metrics::{MetricsReport, MetricsSource, Take, METRICS_NOT_SERVED};
use super::report::{ApiReport, ResourceProblem, ResourceReport};
use super::stage::{finish, item_error, stage_observation};
use crate::store::{Change, Origin, Record};
use crate::store::{RunCounts, RunWriter};
use crate::store::{Store, StoreError};
use budget::{json_size, Budget};
use stats::RecorderStats;
use watcher::{Msg, WatchSettings, Watcher};

// A watch event is held up to the NDJSON line cap, as a line of a recorder's log would be.
const _: () = assert!(kdrift_rebalance::MAX_WATCH_EVENT_BYTES == crate::ndjson_stream::MAX_LINE_BYTES);

/// Recorder settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordOptions {
    /// The cluster URL (for locations and the run row).
    pub cluster: String,
    /// Namespaces to watch (cluster-scoped resources are always watched).
    pub scope: Scope,
    /// The resources (default: [`HISTORY_RESOURCES`]).
    pub resources: Vec<ResourceKind>,
    /// List and watch settings.
    pub watch: WatchSettings,
    /// Commit after this many records.
    pub batch_records: u64,
    /// Commit once the records staged hold this many bytes of objects
    /// (`--max-batch-bytes`; `ndjson_stream::BATCH_BYTES`, 64 MiB,
    /// as `ingest file`'s): ten watched Pods of 60 MiB were staged in one
    /// batch (break-it 35 F22, 7.76 GB).
    pub batch_bytes: u64,
    /// Commit at least this often while records come in.
    pub batch_interval: Duration,
    /// Messages buffered between the watchers and the store.
    pub channel_capacity: usize,
    /// How often `metrics.k8s.io` usage is sampled (`None`: never).
    pub metrics_interval: Option<Duration>,
    /// Where the recorder counts what it does (shared with
    /// [`serve::serve`]; equal options share one).
    pub stats: Arc<RecorderStats>,
}

impl RecordOptions {
    /// Defaults for `cluster` and `scope`: every history resource, pages of
    /// 500, watches of 290 s, requests given up after 60 s of silence,
    /// backoff 250 ms … 30 s, batches of 1000 records or 5 s, usage
    /// sampled every 30 s (metrics-server's default resolution is 60 s,
    /// 15 s at its finest).
    pub fn new(cluster: String, scope: Scope) -> RecordOptions {
        RecordOptions {
            cluster,
            scope,
            resources: HISTORY_RESOURCES.to_vec(),
            watch: WatchSettings {
                page_size: 500,
                watch_timeout_seconds: 290,
                backoff_initial: Duration::from_millis(250),
                backoff_max: Duration::from_secs(30),
                request_timeout: DEFAULT_REQUEST_TIMEOUT,
                max_page_bytes: kdrift_rebalance::MAX_PAGE_BYTES,
                max_event_bytes: kdrift_rebalance::MAX_WATCH_EVENT_BYTES,
            },
            batch_records: 1000,
            batch_bytes: crate::ndjson_stream::BATCH_BYTES,
            batch_interval: Duration::from_secs(5),
            channel_capacity: 1024,
            metrics_interval: Some(Duration::from_secs(30)),
            stats: Arc::new(RecorderStats::default()),
        }
    }
}

/// Callbacks while recording (the CLI logs; tests synchronise on them).
pub trait RecordObserver {
    /// An object version was staged.
    fn observed(&mut self, _resource: &ResourceKind, _change: Change, _resource_version: &str) {}
    /// A resource is listed and watched (again, when `relist`).
    fn synced(&mut self, _resource: &ResourceKind, _resource_version: &str, _relist: bool) {}
    /// A batch was committed; totals so far.
    fn committed(&mut self, _counts: &RunCounts) {}
    /// A resource had a problem; `fatal`: it is no longer watched.
    fn problem(&mut self, _resource: &ResourceKind, _message: &str, _fatal: bool) {}
    /// A list item or watch line was skipped (an error of the run).
    fn item_error(&mut self, _resource: &ResourceKind, _message: &str) {}
    /// Said once per run: [`METRICS_NOT_SERVED`] (the recorder goes on
    /// without usage samples, asking again every interval).
    fn usage_note(&mut self, _message: &str) {}
    /// A sample of the metrics API was stored; totals so far.
    fn usage_sampled(&mut self, _totals: &MetricsReport) {}
    /// A resource's first list read a page: `items` in `pages` so far;
    /// `done` once, when the list ended (the resource is then watched).
    fn listing(&mut self, _resource: &ResourceKind, _items: u64, _pages: u32, _done: bool) {}
}

/// An observer that does nothing.
#[derive(Debug, Default)]
pub struct NoObserver;
impl RecordObserver for NoObserver {}

struct Recorder<'s, 'o> {
    store: &'s Store,
    writer: RunWriter<'s>,
    reports: BTreeMap<String, ResourceReport>,
    clock: Arc<dyn Clock>,
    observer: &'o mut dyn RecordObserver,
    errors: u64,
    /// Per resource, the last problem the watcher retried: reported when
    /// the resource never got in sync (a server that never answered ended
    /// as "ok, 0 errors").
    retried: BTreeMap<String, ResourceProblem>,
    /// The innermost causes of the retried problems warned about since the
    /// last resource got in sync: a server that refuses connections is
    /// said once, not once per resource and retry (the rest go to debug).
    warned: std::collections::HashSet<String>,
    /// Skipped list items and watch lines, per kind (`list items`, `not
    /// JSON`, …): the first is logged at warn, the count at the end.
    skipped: BTreeMap<&'static str, u64>,
    /// The resources whose first list ended (`Msg::Synced`): a resource
    /// whose first list was cut short by a stop has staged items (and a
    /// resourceVersion from them) but was never in sync (break-it, issue
    /// 34: 6628 of 20000 pods ended `ok`).
    synced: std::collections::HashSet<String>,
    /// The usage samples taken so far (`None`: not sampled).
    usage: Option<MetricsReport>,
    /// The metrics API's item errors and failure causes warned about (each said once).
    usage_warned: std::collections::HashSet<String>,
    /// The counts shared with the metrics server.
    stats: Arc<RecorderStats>,
}

/// `e` with its causes, `: `-separated.
fn error_chain(e: &StoreError) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    kdrift_rebalance::mask_shown(&text)
}

impl Recorder<'_, '_> {
    fn report(&mut self, r: &ResourceKind, cluster: &str, scope: &Scope) -> &mut ResourceReport {
        self.reports
            .entry(r.name())
            .or_insert_with(|| ResourceReport::new(r.name(), format!("{cluster}{}", r.collection_path(scope))))
    }

    /// Commits the staged batch. A failure is counted and the batch stays
    /// staged for the next try (the next batch interval); it ends the
    /// recorder once [`RecorderStats::give_up_after`] failed in a row, or
    /// at once when a stop was requested.
    fn commit(&mut self) -> Result<(), StoreError> {
        if self.writer.pending() == 0 {
            return Ok(());
        }
        match self.writer.commit_batch(self.errors) {
            Ok(counts) => {
                let totals = self.reports.values().map(|r| (r.resource.clone(), r.received, r.item_error_total()));
                self.stats.committed(totals.collect::<Vec<_>>());
                self.observer.committed(&counts);
                Ok(())
            }
            Err(e) => {
                let in_a_row = self.stats.commit_failed(&error_chain(&e));
                if self.stats.is_stopping() || in_a_row >= self.stats.give_up_after() {
                    return Err(e);
                }
                tracing::warn!(
                    "a batch commit failed ({in_a_row} in a row; the recorder ends after {}): {}; its {} versions \
                     stay staged and go with the next commit",
                    self.stats.give_up_after(),
                    error_chain(&e),
                    self.writer.pending()
                );
                Ok(())
            }
        }
    }

    fn stage(
        &mut self,
        resource: &ResourceKind,
        change: Change,
        object: serde_json::Value,
        o: &RecordOptions,
    ) -> Result<(), StoreError> {
        let rv = object.pointer("/metadata/resourceVersion").and_then(|v| v.as_str()).unwrap_or("").to_string();
        let observed_at = Some(self.clock.observation_time(&object));
        let report = self.reports.entry(resource.name()).or_insert_with(|| {
            ResourceReport::new(resource.name(), format!("{}{}", o.cluster, resource.collection_path(&o.scope)))
        });
        let origin = Origin { location: report.location.clone(), line: None, item: None };
        let before = report.item_error_total();
        let record = Record { object, origin, observed_at, change };
        stage_observation(&mut self.writer, record, report)?;
        self.errors += report.item_error_total() - before;
        // The server's text, shown: masked like any (break-it 31 F2).
        let rv = kdrift_rebalance::mask_shown(&rv);
        if !rv.is_empty() {
            report.resource_version = Some(rv.clone());
        }
        self.observer.observed(resource, change, &rv);
        Ok(())
    }

    fn usage(&mut self, take: &Take, source: &MetricsSource) -> Result<(), StoreError> {
        let first_note = take.not_served && !self.usage.as_ref().is_some_and(|u| u.not_served);
        let report = self.usage.get_or_insert_with(MetricsReport::default);
        self.errors += super::metrics::store_take(self.store, self.writer.run_id(), source, take, report)?;
        if first_note {
            tracing::info!("{METRICS_NOT_SERVED}");
            self.observer.usage_note(METRICS_NOT_SERVED);
        }
        for e in &take.errors {
            if self.usage_warned.insert(e.clone()) {
                tracing::warn!("{e} (stored in the run's errors; the metrics API is asked again every interval)");
            }
        }
        // A failed list is asked again at the next interval, not an error of
        // the run; said once per cause, and only once a resource got in sync
        // (before, the watchers say what is wrong with the server).
        for (message, cause) in &take.failures {
            if !self.synced.is_empty() && self.usage_warned.insert(cause.clone()) {
                tracing::warn!("{message} (asked again every interval; the same failure is logged with -vv)");
            } else {
                tracing::debug!("{message}");
            }
        }
        let totals = report.clone();
        self.stats.usage(totals.takes, totals.nodes + totals.pods);
        self.observer.usage_sampled(&totals);
        Ok(())
    }

    fn handle(&mut self, msg: Msg, o: &RecordOptions) -> Result<(), StoreError> {
        match msg {
            Msg::Observed { resource, change, object, held } => {
                self.stage(&resource, change, object, o)?;
                // Staged (its row in DuckDB's staging table): its bytes are free.
                drop(held);
            }
            Msg::Vanished { resource, namespace, name, uid } => {
                // The last version may still be in the batch: commit it first.
                self.commit()?;
                let last = known::last_version(self.store, &resource, &namespace, &name, &uid)?;
                tracing::info!(resource = %resource.name(), %namespace, %name, "deleted while not watched");
                self.stage(&resource, Change::Deleted, last, o)?;
            }
            Msg::ItemError { resource, kind, message } => {
                // A bad item's or line's name may hold a credential the
                // server echoed into it (break-it, issue 34).
                let message = kdrift_rebalance::held().redact(&message);
                let what = kind.map_or("list items", BadEventKind::as_str);
                let count = self.skipped.entry(what).or_insert(0);
                *count += 1;
                if *count == 1 {
                    tracing::warn!(
                        resource = %resource.name(),
                        "{message} (stored in the run's errors; further ones of this kind are counted at the end)"
                    );
                }
                self.observer.item_error(&resource, &message);
                let report = self.reports.entry(resource.name()).or_insert_with(|| {
                    ResourceReport::new(resource.name(), format!("{}{}", o.cluster, resource.collection_path(&o.scope)))
                });
                item_error(&mut self.writer, report, message);
                self.errors += 1;
            }
            Msg::Resumed { resource } => {
                if self.retried.remove(&resource.name()).is_some() {
                    tracing::info!(resource = %resource.name(), "watching again after a failure");
                }
            }
            Msg::Listing { resource, items, pages, done } => self.observer.listing(&resource, items, pages, done),
            Msg::Synced { resource, resource_version, relist } => {
                // Shown only (the watcher keeps the server's own to resume).
                let resource_version = kdrift_rebalance::mask_shown(&resource_version);
                tracing::info!(resource = %resource.name(), %resource_version, relist, "in sync");
                self.retried.remove(&resource.name());
                self.synced.insert(resource.name());
                self.stats.resource(&resource, |r| {
                    r.synced = true;
                    r.relists += u64::from(relist);
                });
                self.warned.clear();
                self.report(&resource, &o.cluster, &o.scope).resource_version = Some(resource_version.clone());
                self.observer.synced(&resource, &resource_version, relist);
            }
            Msg::Problem { resource, error, fatal } => {
                let message = kdrift_rebalance::with_causes(&error);
                let cause = kdrift_rebalance::root_cause(&error);
                if fatal {
                    tracing::warn!(resource = %resource.name(), fatal, "{message}");
                } else if self.warned.insert(cause) {
                    tracing::warn!(
                        resource = %resource.name(),
                        fatal,
                        "{message} (retrying; the same failure of other resources and of the retries is logged with -vv)"
                    );
                } else {
                    tracing::debug!(resource = %resource.name(), fatal, "{message}");
                }
                self.observer.problem(&resource, &message, fatal);
                self.stats.resource(&resource, |r| {
                    r.failures += 1;
                    r.unavailable |= fatal;
                });
                if fatal {
                    self.report(&resource, &o.cluster, &o.scope).problem = Some(ResourceProblem::from_error(&error));
                } else {
                    self.retried.insert(resource.name(), ResourceProblem::from_error(&error));
                }
            }
        }
        // After a failed commit, the next try waits for the batch interval.
        let full = self.writer.pending() >= o.batch_records || self.writer.pending_bytes() >= o.batch_bytes;
        if full && self.stats.failed_in_a_row() == 0 {
            self.commit()?;
        }
        Ok(())
    }
}

/// Records until `shutdown` completes (or every resource is unavailable).
///
/// # Errors
/// Only [`StoreError`]s end the recorder early; cluster problems are retried
/// or reported per resource.
pub async fn record(
    store: &Store,
    client: &Client,
    options: &RecordOptions,
    clock: Arc<dyn Clock>,
    shutdown: impl Future<Output = ()>,
    observer: &mut dyn RecordObserver,
) -> Result<ApiReport, StoreError> {
    let location = format!("{} ({}, recorder)", options.cluster, options.scope);
    let writer = RunWriter::begin(store, "api", &location)?;
    let (tx, mut rx) = mpsc::channel(options.channel_capacity.max(1));
    let mut recorder = Recorder {
        store,
        writer,
        reports: BTreeMap::new(),
        clock,
        observer,
        errors: 0,
        retried: BTreeMap::new(),
        warned: Default::default(),
        skipped: BTreeMap::new(),
        synced: Default::default(),
        usage: None,
        usage_warned: Default::default(),
        stats: Arc::clone(&options.stats),
    };
    options.stats.begin(&options.resources);
    let mut tasks = Vec::new();
    let budget = Budget::new(options.watch.max_event_bytes);
    for resource in &options.resources {
        recorder.report(resource, &options.cluster, &options.scope);
        let watcher = Watcher {
            client: client.clone(),
            resource: *resource,
            scope: options.scope.clone(),
            settings: options.watch,
            known: known::load(store, resource, &options.scope)?,
            tx: tx.clone(),
            server: options.cluster.clone(),
            failing: false,
            stats: Arc::clone(&options.stats),
            budget: budget.clone(),
        };
        tasks.push(tokio::spawn(watcher.run()));
    }
    drop(tx);
    let source = MetricsSource {
        cluster: options.cluster.clone(),
        scope: options.scope.clone(),
        request_timeout: options.watch.request_timeout,
        max_page_bytes: options.watch.max_page_bytes,
    };
    let (usage_tx, mut usage_rx) = mpsc::channel::<Take>(1);
    if let Some(every) = options.metrics_interval.filter(|d| !d.is_zero()) {
        let (client, source) = (client.clone(), source.clone());
        tasks.push(tokio::spawn(async move {
            let mut ticker = tokio::time::interval(every);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticker.tick().await;
                let take = super::metrics::take(&client, &source).await;
                if usage_tx.send(take).await.is_err() {
                    break;
                }
            }
        }));
    }
    let mut ticker = tokio::time::interval(options.batch_interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    let outcome = loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break Ok(()),
            msg = rx.recv() => match msg {
                Some(msg) => if let Err(e) = recorder.handle(msg, options) { break Err(e) },
                None => break Ok(()),
            },
            _ = ticker.tick() => if let Err(e) = recorder.commit() { break Err(e) },
            Some(take) = usage_rx.recv() => if let Err(e) = recorder.usage(&take, &source) { break Err(e) },
        }
    };
    for t in &tasks {
        t.abort();
    }
    if let Err(e) = outcome {
        // Stopped in a batch commit: said with the store's error as the run
        // is closed as failed (its writer's `Drop`).
        if options.stats.is_stopping() {
            recorder.writer.note_error(&location, None, None, None, crate::interrupt::INTERRUPTED_RUN_MESSAGE);
        }
        return Err(e);
    }
    // What the watchers sent before they stopped is stored too, as far as
    // it fits in the batch being staged (break-it 36 F4: twelve 60 MiB
    // pods waiting were all staged and committed, the stop took ~60 s,
    // past the deployment's 30 s grace). Versions past it are not stored,
    // a problem of their resource's run; the next record lists again.
    let mut room = (
        options.batch_records.saturating_sub(recorder.writer.pending()),
        options.batch_bytes.saturating_sub(recorder.writer.pending_bytes()),
    );
    let mut unstored: BTreeMap<String, u64> = BTreeMap::new();
    while let Ok(msg) = rx.try_recv() {
        let (resource, bytes) = match &msg {
            Msg::Observed { resource, object, .. } => (resource, json_size(object) as u64),
            Msg::Vanished { resource, .. } => (resource, 0),
            _ => {
                recorder.handle(msg, options)?;
                continue;
            }
        };
        // In order: past the first version that does not fit, none is staged.
        if room.0 == 0 || bytes > room.1 {
            room = (0, 0);
            *unstored.entry(resource.name()).or_default() += 1;
            continue;
        }
        room = (room.0 - 1, room.1 - bytes);
        recorder.handle(msg, options)?;
    }
    let order: Vec<String> = options.resources.iter().map(ResourceKind::name).collect();
    let mut reports = recorder.reports;
    for (name, count) in unstored {
        if let Some(r) = reports.get_mut(&name).filter(|r| r.problem.is_none()) {
            let message = format!(
                "{name}: {count} versions received were not stored: the recorder stopped with more than a batch \
                 waiting (--max-batch-bytes, --batch-records); the next record lists again and stores what the store \
                 lacks ({})",
                r.location
            );
            tracing::warn!("{message}");
            r.problem = Some(ResourceProblem { severity: super::report::Severity::Error, message });
        }
    }
    for (what, count) in &recorder.skipped {
        let what = if *what == "list items" { what.to_string() } else { format!("watch lines {what}") };
        tracing::warn!("{what} skipped: {count}; each is in the run's errors (kdrift query run_errors)");
    }
    // Failed, and not watched again before the end, for the reason last
    // retried: a problem of the run.
    let synced = recorder.synced;
    for (name, mut problem) in recorder.retried {
        if let Some(r) = reports.get_mut(&name).filter(|r| r.problem.is_none()) {
            let state = if synced.contains(&name) {
                "not watched when the recorder stopped"
            } else {
                "never in sync until the recorder stopped"
            };
            problem.message = format!("{state}; last retried: {}", problem.message);
            r.problem = Some(problem);
        }
    }
    // Still in its first list: not recorded either (what it received is
    // stored; the next record lists the resource again).
    for r in reports.values_mut().filter(|r| !synced.contains(&r.resource) && r.problem.is_none()) {
        let message = if r.received == 0 {
            format!(
                "{}: never in sync until the recorder stopped; its first list was not answered yet ({})",
                r.resource, r.location
            )
        } else {
            format!(
                "{}: never in sync until the recorder stopped; its first list was not finished ({} objects stored; \
                 the next record lists it again) ({})",
                r.resource, r.received, r.location
            )
        };
        r.problem = Some(ResourceProblem { severity: super::report::Severity::Error, message });
    }
    let resources = order.iter().filter_map(|n| reports.remove(n)).collect();
    let mut report = finish(recorder.writer, &options.cluster, &options.scope, resources)?;
    report.usage = recorder.usage;
    Ok(report)
}
