//! kdrift's own rebalance runs, as the store recorded them: the newest run
//! of each outcome (`Succeeded`, `Stopped`, `Refused`), for `kdrift check`.

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

use crate::AnalyzeError;

/// One recorded run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunSummary {
    /// `Succeeded`, `Stopped` or `Refused`.
    pub outcome: String,
    /// The run's name (`rebalance-20261128-020000-123456`).
    pub name: String,
    /// When it started (UTC).
    pub started_at: Option<DateTime<Utc>>,
    /// When it ended (UTC).
    pub finished_at: DateTime<Utc>,
    /// Evictions planned.
    pub planned: i64,
    /// Evictions made.
    pub evicted: i64,
    /// Evictions refused by a PodDisruptionBudget.
    pub blocked: i64,
    /// Evictions skipped (gone, moved, in use, …).
    pub skipped: i64,
    /// Evictions that failed for good.
    pub failed: i64,
}

/// The newest run of each outcome, newest first (empty when kdrift never
/// rebalanced into this store).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn latest_runs(store: &Reader) -> Result<Vec<RunSummary>, AnalyzeError> {
    Ok(store.query_map(&sql::REBALANCE_LATEST_RUNS, [], |r| {
        Ok(RunSummary {
            outcome: r.get(0)?,
            name: r.get(1)?,
            started_at: r.get(2)?,
            finished_at: r.get(3)?,
            planned: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
            evicted: r.get::<_, Option<i64>>(5)?.unwrap_or(0),
            blocked: r.get::<_, Option<i64>>(6)?.unwrap_or(0),
            skipped: r.get::<_, Option<i64>>(7)?.unwrap_or(0),
            failed: r.get::<_, Option<i64>>(8)?.unwrap_or(0),
        })
    })?)
}

/// The newest run that succeeded.
pub fn last_success(runs: &[RunSummary]) -> Option<&RunSummary> {
    runs.iter().filter(|r| r.outcome == "Succeeded").max_by_key(|r| r.finished_at)
}
