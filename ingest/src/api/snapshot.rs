//! `kdrift ingest api`: a one-shot snapshot. Lists every resource of
//! [`HISTORY_RESOURCES`] page by page (`limit` / `continue`) and stores each
//! item as a `LISTED` observation (source kind `api`, location the
//! collection URL) in one run. A resource the server refuses (403) or does
//! not serve (404) is a warning naming it; the others are still stored. A
//! continue token that expires (410) restarts that resource's list.
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
        let mut pager = new_pager(resource);
        let mut item = 0u64;
        let (mut items, mut pages) = (0u64, 0u32);
        loop {
            match pager.next_page().await {
                Ok(Some(page)) => {
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
                    item = 0;
                    (items, pages) = (0, 0);
                    pager = ListPager::new(client.clone(), resource, &options.scope, 0)
                        .with_deadlines(deadlines.clone())
                        .with_max_page_bytes(options.max_page_bytes);
                }
                Err(e) => {
                    let nothing = report.received == 0 && matches!(e, kdrift_rebalance::ClusterError::Timeout { .. });
                    silent = if nothing { silent + 1 } else { 0 };
                    report.problem = Some(ResourceProblem::from_error(&e));
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
