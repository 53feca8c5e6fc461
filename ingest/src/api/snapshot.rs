//! `kdrift ingest api`: a one-shot snapshot. Lists every resource of
//! [`HISTORY_RESOURCES`] page by page (`limit` / `continue`) and stores each
//! item as a `LISTED` observation (source kind `api`, location the
//! collection URL) in one run. A resource the server refuses (403) or does
//! not serve (404) is a warning naming it; the others are still stored. A
//! continue token that expires (410) restarts that resource's list.
//!
//! A page the server fails transiently (an error Status 429 or 5xx; a
//! broken connection once the server has answered a request of this
//! snapshot) is asked again with the same continue token, as the
//! VictoriaLogs and Prometheus pulls retry a window: up to
//! [`SnapshotOptions::retry`]'s attempts, waiting its delay, doubled each
//! time (break-it 41 G12: one 500 on page 2 of 3 kept 10 of 30 events).
//! A server refusing connections from the start is not waited for: each
//! resource fails at once, as before.
//!
//! A bad item of a page (not an object, invalid UTF-8 or JSON inside it) is
//! an item error naming the resource, the page and its `items[i]`; the
//! page's other items are stored (issue 34). A server that does not answer
//! within [`SnapshotOptions::request_timeout`] fails that resource, named
//! in its problem; after [`SILENT_RESOURCES`] resources in a row got
//! nothing at all, the rest are not asked (each would wait as long) and
//! say so.
//!
//! Progress: each page read is said to a [`ListingProgress`]
//! ([`snapshot_with_progress`]; `listing pods… 1,000 items (2 pages)`),
//! and each resource's list that ended.

use std::time::Duration;

use kdrift_rebalance::{Deadlines, ListPager, Scope, HISTORY_RESOURCES};
use kube::Client;

use super::clock::Clock;
use super::report::{ApiReport, ResourceProblem, ResourceReport};
use super::stage::{item_error, stage_observation};
use crate::interrupt::Interrupt;
use crate::retry::Retry;
use crate::store::RunWriter;
use crate::store::{Change, Origin, Record};
use crate::store::{Store, StoreError};

/// Lists restarted at most this many times after a 410 on a continue token.
const GONE_RESTARTS: u32 = 3;

/// Resources in a row whose list got nothing within the request timeout
/// after which the snapshot stops asking: a server that accepts
/// connections and never answers would otherwise cost one timeout per
/// resource (13 minutes at the default 60 s).
pub const SILENT_RESOURCES: usize = 3;

/// What to snapshot.
#[derive(Debug, Clone)]
pub struct SnapshotOptions {
    /// The cluster URL (for locations and the run row).
    pub cluster: String,
    /// Namespaces to read (cluster-scoped resources are always read).
    pub scope: Scope,
    /// Items per list request (kubectl's `--chunk-size`, 500).
    pub page_size: u32,
    /// The longest wait for a list's answer, and between two pieces of it
    /// (kubectl's `--request-timeout`; [`kdrift_rebalance::DEFAULT_REQUEST_TIMEOUT`]).
    pub request_timeout: Duration,
    /// Most bytes of one list page read (`--max-page-bytes`;
    /// [`kdrift_rebalance::MAX_PAGE_BYTES`], 256 MiB).
    pub max_page_bytes: usize,
    /// Triggered (SIGINT, SIGTERM) during the final commit, it stops the
    /// commit at its next statement and rolls it back whole
    /// ([`StoreError::Interrupted`]); `None`: the commit always completes.
    pub interrupt: Option<Interrupt>,
    /// Attempts per page failed transiently, and the waits between them
    /// (`--attempts`, `--retry-delay`; [`Retry::default`]: 4, from 1 s).
    pub retry: Retry,
}

/// Whether asking for the page again may help: an error Status 429 (too
/// many requests) or 5xx, or a connection broken or refused once the
/// server has `answered` a request of this snapshot (a server down from
/// the start fails each resource at once). 4xx, a body that is no list, a
/// timeout (already waited `--request-timeout`) would fail the same way.
fn transient(e: &kdrift_rebalance::ClusterError, answered: bool) -> bool {
    use kdrift_rebalance::ClusterError;
    match e {
        ClusterError::Api { code, .. } => *code == 429 || *code >= 500,
        ClusterError::Transport { .. } => answered,
        _ => false,
    }
}

/// Told of each page of a list as it is read (`kdrift ingest api`, and
/// the recorder's first lists through
/// [`RecordObserver::listing`](super::RecordObserver::listing)).
pub trait ListingProgress {
    /// `resource` (kubectl's `resource.group` name) has `items` listed in
    /// `pages` so far; `done`: its list ended (said once; not said for a
    /// list that failed).
    fn listing(&mut self, resource: &str, items: u64, pages: u32, done: bool);
}

/// A [`ListingProgress`] that says nothing.
#[derive(Debug, Default)]
pub struct NoListingProgress;
impl ListingProgress for NoListingProgress {
    fn listing(&mut self, _resource: &str, _items: u64, _pages: u32, _done: bool) {}
}

/// Takes the snapshot into `store`; observation times come from `clock`.
///
/// # Errors
/// Only [`StoreError`]s abort; a resource that cannot be read is in the
/// report.
pub async fn snapshot(
    store: &Store,
    client: &Client,
    options: &SnapshotOptions,
    clock: &dyn Clock,
) -> Result<ApiReport, StoreError> {
    snapshot_with_progress(store, client, options, clock, &mut NoListingProgress).await
}

/// [`snapshot`], saying each page read to `progress`.
///
/// # Errors
/// As [`snapshot`].
pub async fn snapshot_with_progress(
    store: &Store,
    client: &Client,
    options: &SnapshotOptions,
    clock: &dyn Clock,
    progress: &mut dyn ListingProgress,
) -> Result<ApiReport, StoreError> {
    let location = format!("{} ({})", options.cluster, options.scope);
    let deadlines = Deadlines::new(&options.cluster, options.request_timeout);
    let new_pager = |resource| {
        ListPager::new(client.clone(), resource, &options.scope, options.page_size)
            .with_deadlines(deadlines.clone())
            .with_max_page_bytes(options.max_page_bytes)
    };
    let mut writer = RunWriter::begin(store, "api", &location)?;
    if let Some(interrupt) = options.interrupt.clone() {
        writer.stop_final_commit_when(move || interrupt.is_triggered());
    }
    let mut reports = Vec::new();
    // Resources in a row that timed out having received nothing.
    let mut silent = 0usize;
    // The server answered a request of this snapshot (a broken connection
    // is then worth asking again).
    let mut answered = false;
    for resource in HISTORY_RESOURCES {
        let path = resource.collection_path(&options.scope);
        let mut report = ResourceReport::new(resource.name(), format!("{}{}", options.cluster, path));
        if silent >= SILENT_RESOURCES {
            let message = format!(
                "{}: not asked: the server sent nothing to the {silent} resources before it within {} s each; kdrift \
                 gave up on the rest (raise --request-timeout if the server is only slow)",
                resource.name(),
                options.request_timeout.as_secs()
            );
            report.problem = Some(ResourceProblem { severity: super::report::Severity::Error, message });
            reports.push(report);
            continue;
        }
        let mut restarts = 0;
        // Attempts of the page being asked (1 until one fails transiently).
        let mut attempt = 1u32;
        let mut pager = new_pager(resource);
        let mut item = 0u64;
        let (mut items, mut pages) = (0u64, 0u32);
        loop {
            let next = pager.next_page().await;
            answered |= next.is_ok() || matches!(next, Err(kdrift_rebalance::ClusterError::Api { .. }));
            match next {
                Ok(Some(page)) => {
                    attempt = 1;
                    items += (page.items.len() + page.bad.len()) as u64;
                    pages = page.number;
                    progress.listing(&report.resource, items, pages, false);
                    // The server's text, shown: masked like any (break-it 31 F2).
                    report.resource_version = Some(kdrift_rebalance::mask_shown(&page.resource_version));
                    for bad in page.bad.iter().map(ToString::to_string).chain(page.odd.iter().cloned()) {
                        let message =
                            format!("{}: page {} of {}, {bad}", report.resource, page.number, report.location);
                        item_error(&mut writer, &mut report, message);
                    }
                    for object in page.items {
                        let observed_at = Some(clock.observation_time(&object));
                        let origin = Origin { location: report.location.clone(), line: None, item: Some(item) };
                        item += 1;
                        let record = Record { object, origin, observed_at, change: Change::Listed };
                        stage_observation(&mut writer, record, &mut report)?;
                    }
                }
                Ok(None) => break,
                // As client-go's pager does: the whole list again in one
                // request (no `limit`, so no continue token to expire).
                Err(e) if e.is_gone() && restarts < GONE_RESTARTS => {
                    tracing::info!(resource = %report.resource, "continue token expired; listing again without limit");
                    restarts += 1;
                    attempt = 1;
                    item = 0;
                    (items, pages) = (0, 0);
                    pager = ListPager::new(client.clone(), resource, &options.scope, 0)
                        .with_deadlines(deadlines.clone())
                        .with_max_page_bytes(options.max_page_bytes);
                }
                // The same page again (the pager kept its continue token).
                Err(e)
                    if transient(&e, answered)
                        && attempt < options.retry.attempts
                        && pager.can_retry()
                        && !options.interrupt.as_ref().is_some_and(Interrupt::is_triggered) =>
                {
                    let delay = options.retry.delay(attempt);
                    tracing::warn!(resource = %report.resource, page = pages + 1, attempt, error = %e, ?delay,
                        "list page failed; asking again");
                    attempt += 1;
                    match &options.interrupt {
                        Some(interrupt) => tokio::select! {
                            () = tokio::time::sleep(delay) => {}
                            () = interrupt.triggered() => {}
                        },
                        None => tokio::time::sleep(delay).await,
                    }
                }
                Err(e) => {
                    let nothing = report.received == 0 && matches!(e, kdrift_rebalance::ClusterError::Timeout { .. });
                    silent = if nothing { silent + 1 } else { 0 };
                    let mut problem = ResourceProblem::from_error(&e);
                    if attempt > 1 {
                        problem.message.push_str(&format!("; given up after {attempt} attempts (--attempts)"));
                    }
                    report.problem = Some(problem);
                    break;
                }
            }
        }
        if report.problem.is_none() {
            silent = 0;
            progress.listing(&report.resource, items, pages, true);
        }
        tracing::info!(resource = %report.resource, items = report.received, "listed");
        reports.push(report);
    }
    super::stage::finish(writer, &options.cluster, &options.scope, reports)
}
