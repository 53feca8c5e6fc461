//! When the store has one pod, over its whole history (query `pod_spans`):
//! what `rebalance explain NAMESPACE/POD` says of a pod that is not in the
//! store at the instant asked, with an `--at` at which it is.

use chrono::{DateTime, Utc};
use kdrift_store::{sql, Reader};
use serde::Serialize;

use crate::AnalyzeError;

/// One pod (one uid of a namespace/name) as the store has it over time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PodSpan {
    /// The pod's uid (`""` for versions stored without one).
    pub uid: String,
    /// Its creationTimestamp, else its first observed version's time: the
    /// store lists it at and after this instant.
    pub first_at: DateTime<Utc>,
    /// The observation time of its last version without a
    /// deletionTimestamp (else of its last version that is not a deletion):
    /// an instant at which the store lists it, not yet terminating when a
    /// version shows that.
    pub last_seen_at: DateTime<Utc>,
    /// When the store stops listing it (its deletion observed, or the next
    /// pod of the name taking over); `None` while it lasts.
    pub gone_at: Option<DateTime<Utc>>,
}

impl PodSpan {
    /// Whether the store lists the pod at `at` (from [`PodSpan::first_at`]
    /// up to, not including, [`PodSpan::gone_at`]).
    pub fn holds_at(&self, at: DateTime<Utc>) -> bool {
        self.first_at <= at && self.gone_at.is_none_or(|g| at < g)
    }
}

/// The spans of the pods named `namespace/name`, oldest first (none when no
/// version of it is stored).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn pod_spans(store: &Reader, namespace: &str, name: &str) -> Result<Vec<PodSpan>, AnalyzeError> {
    Ok(store.query_map(&sql::POD_SPANS, [namespace, name], |r| {
        Ok(PodSpan { uid: r.get(0)?, first_at: r.get(1)?, last_seen_at: r.get(2)?, gone_at: r.get(3)? })
    })?)
}
