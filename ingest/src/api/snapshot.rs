//! `kdrift ingest api`: a one-shot snapshot. Lists every resource of
//! [`HISTORY_RESOURCES`] page by page (`limit` / `continue`) and stores each
//! item as a `LISTED` observation (source kind `api`, location the
//! collection URL) in one run. A resource the server refuses (403) or does
//! not serve (404) is a warning naming it; the others are still stored. A
//! continue token that expires (410) restarts that resource's list.

use kdrift_rebalance::{ListPager, Scope, HISTORY_RESOURCES};
use kube::Client;

use super::clock::Clock;
use super::report::{ApiReport, ResourceProblem, ResourceReport};
use super::stage::{stage_observation, stage_refused};
use crate::record::{Change, Origin, Record};
use crate::store::writer::RunWriter;
use crate::store::{Store, StoreError};

/// Lists restarted at most this many times after a 410 on a continue token.
const GONE_RESTARTS: u32 = 3;

/// What to snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// The cluster URL (for locations and the run row).
    pub cluster: String,
    /// Namespaces to read (cluster-scoped resources are always read).
    pub scope: Scope,
    /// Items per list request (kubectl's `--chunk-size`, 500).
    pub page_size: u32,
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
    let location = format!("{} ({})", options.cluster, options.scope);
    let mut writer = RunWriter::begin(store, "api", &location)?;
    let mut reports = Vec::new();
    for resource in HISTORY_RESOURCES {
        let path = resource.collection_path(&options.scope);
        let mut report = ResourceReport::new(resource.name(), format!("{}{}", options.cluster, path));
        let mut restarts = 0;
        let mut pager = ListPager::new(client.clone(), resource, &options.scope, options.page_size);
        let mut item = 0u64;
        loop {
            match pager.next_page().await {
                Ok(Some(page)) => {
                    report.resource_version = Some(page.resource_version);
                    let mut refused = page.refused.iter().peekable();
                    for (i, object) in page.items.into_iter().enumerate() {
                        let origin = Origin { location: report.location.clone(), line: None, item: Some(item) };
                        item += 1;
                        // An item holding a key twice: an input error, not stored (issue 34).
                        if let Some(r) = refused.next_if(|r| r.index == i) {
                            stage_refused(&mut writer, &mut report, format!("{origin}: {}", r.message));
                            continue;
                        }
                        let observed_at = Some(clock.observation_time(&object));
                        let record = Record { object, origin, observed_at, change: Change::Listed };
                        stage_observation(&mut writer, record, &mut report)?;
                    }
                }
                Ok(None) => break,
                Err(e) if e.is_gone() && restarts < GONE_RESTARTS => {
                    tracing::info!(resource = %report.resource, "continue token expired; listing again");
                    restarts += 1;
                    item = 0;
                    pager = ListPager::new(client.clone(), resource, &options.scope, options.page_size);
                }
                Err(e) => {
                    report.problem = Some(ResourceProblem::from_error(&e));
                    break;
                }
            }
        }
        tracing::info!(resource = %report.resource, items = report.received, "listed");
        reports.push(report);
    }
    super::stage::finish(writer, &options.cluster, &options.scope, reports)
}
