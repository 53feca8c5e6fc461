//! What put pods on a node, outside a Pending chain: the same attribution
//! as "why is that node full" ([`super::full::arrival`]: a drain's
//! replacement, another component's eviction of its owner's pod — the
//! descheduler, kdrift, Karpenter, cluster-autoscaler, the node controller —
//! a rollout or an HPA's scale-up, a DaemonSet, its owner), for the pods
//! that drove a hotspot (`kdrift hotspots`, `kdrift skew --usage`).

use chrono::{DateTime, Utc};
use kdrift_rebalance::PodInfo;
use kdrift_store::Reader;

use super::full::{arrival, bound, owner_created, scale_ups, Arrival};
use crate::drains::causes::{move_causes, Candidate, Replacements};
use crate::drains::{drain_moves_to_nodes, MovesToNodes};
use crate::AnalyzeError;

/// When a pod was bound to its node (when the store shows it), and what brought it.
pub(crate) type Arrived = (Option<DateTime<Utc>>, Arrival);

/// For each of `pods` (bound to `node` at `at`), in that order: when it was
/// bound there (its latest binding at or before `at`, when the store shows
/// it) and what brought it.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(crate) fn arrivals_on(
    store: &Reader,
    at: DateTime<Utc>,
    node: &str,
    pods: &[&PodInfo],
) -> Result<Vec<Arrived>, AnalyzeError> {
    if pods.is_empty() {
        return Ok(Vec::new());
    }
    let MovesToNodes { operations, placed } = drain_moves_to_nodes(store, at, &[node])?;
    let ups = scale_ups(store, at)?;
    let causes = move_causes(store, crate::history::beginning(), at)?;
    let candidates: Vec<Candidate> = pods
        .iter()
        .filter_map(|p| match owner_created(p, bound(&placed, p, node, at)) {
            (Some(owner), Some(created)) => Some((p.namespace.clone(), p.name.clone(), owner, created)),
            _ => None,
        })
        .collect();
    let paired = Replacements::pair(&causes, candidates);
    Ok(pods
        .iter()
        .map(|p| {
            let placement = bound(&placed, p, node, at);
            (placement.map(|x| x.bound_at), arrival(p, node, placement, &operations, &ups, &causes, &paired))
        })
        .collect())
}
