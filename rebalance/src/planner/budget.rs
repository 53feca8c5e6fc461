//! The shared budget and the stop condition of the eviction loop.
//!
//! Source: descheduler v0.36 `nodeutilization.go`: `capNodeCapacityToThreshold`
//! (`int64(float64(threshold) * 0.01 * float64(capacity))`, truncated, cpu in
//! millicores), `assessAvailableResourceInNodes` (sum over the underutilized
//! nodes of cap − usage), `continueEvictionCond` (the source node is above its
//! cap on some resource — strict — and every budget resource is > 0) and
//! `subtractPodUsageFromNodeAvailability` (requests from node usage and
//! budget; `pods` by 1). Destination nodes' own usage is never updated.

use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, PODS};

/// A node's allocatable of `resource` capped at `target` percent: 0 when the
/// node lacks the resource, full allocatable without a target, otherwise
/// `int64(target * 0.01 * allocatable)` — truncation, so 29 % of 100 is 28.
pub fn cap(node: &NodeInfo, resource: &str, target: Option<f64>) -> i64 {
    let Some(alloc) = node.allocatable.get_opt(resource) else {
        return 0;
    };
    match target {
        None => alloc,
        Some(t) => truncate(t, alloc),
    }
}

/// `int64(float64(t) * 0.01 * float64(amount))`, evaluated left to right as Go does.
pub fn truncate(t: f64, amount: i64) -> i64 {
    (t * 0.01 * amount as f64) as i64
}

/// The caps of a node for every tracked resource.
pub(crate) fn caps(
    node: &NodeInfo,
    tracked: &[String],
    high: &std::collections::BTreeMap<String, f64>,
) -> ResourceList {
    tracked.iter().map(|r| (r.clone(), cap(node, r, high.get(r).copied()))).collect()
}

/// Resources on which `usage` exceeds `caps` (strict).
pub(crate) fn above_target(usage: &ResourceList, caps: &ResourceList) -> Vec<String> {
    usage.iter().filter(|(r, v)| caps.get(r) < *v).map(|(r, _)| r.to_string()).collect()
}

/// Budget resources at or below zero.
pub(crate) fn exhausted(budget: &ResourceList) -> Vec<String> {
    budget.iter().filter(|(_, v)| *v <= 0).map(|(r, _)| r.to_string()).collect()
}

/// What evicting `pod` frees, per tracked resource: its request, and 1 for `pods`.
pub(crate) fn frees(pod: &PodInfo, tracked: &[String]) -> ResourceList {
    tracked.iter().map(|r| (r.clone(), if r == PODS { 1 } else { pod.requests.get(r) })).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_matches_go_int64_of_float64() {
        assert_eq!(truncate(29.0, 100), 28);
        assert_eq!(truncate(58.0, 100), 57);
        assert_eq!(truncate(29.0, 3000), 869);
        assert_eq!(truncate(50.0, 9), 4);
        assert_eq!(truncate(50.0, 4000), 2000);
        assert_eq!(truncate(35.0, 4000), 1400);
        assert_eq!(truncate(0.0, 4000), 0);
        assert_eq!(truncate(100.0, 4000), 4000);
    }

    #[test]
    fn cap_uses_allocatable_and_defaults() {
        let n = NodeInfo::new("n", ResourceList::from_pairs(&[("cpu", 3000), ("pods", 9)]));
        assert_eq!(cap(&n, "cpu", Some(29.0)), 869);
        assert_eq!(cap(&n, "pods", Some(50.0)), 4);
        assert_eq!(cap(&n, "cpu", None), 3000);
        assert_eq!(cap(&n, "nvidia.com/gpu", Some(50.0)), 0);
    }
}
