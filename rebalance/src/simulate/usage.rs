//! Per-node requested amounts and percentages before and after the landings,
//! and the cpu skew.
//!
//! Counting as descheduler v0.36 does (`descheduler-lownodeutilization.md`
//! §1): the sum of the requests of the pods bound to the node and not
//! Succeeded/Failed, `pods` = their number; percent = used / allocatable ×
//! 100 (0 on a zero allocatable), unclamped.

use serde::Serialize;

use crate::fast_hash::{fast_map, FastMap};
use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, CPU, MEMORY, PODS};
use crate::planner::Plan;

/// One resource on one node, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceChange {
    /// The resource (`cpu` in millicores, `memory` in bytes, `pods` a count,
    /// extended resources in their units).
    pub resource: String,
    /// The node's allocatable; `None` when the node lacks the resource.
    pub allocatable: Option<i64>,
    /// Requested before the evictions (same unit as `allocatable`).
    pub before: i64,
    /// Requested after the replacements landed.
    pub after: i64,
    /// `before / allocatable × 100`; `None` when the node lacks the resource.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub percent_before: Option<f64>,
    /// `after / allocatable × 100`; `None` when the node lacks the resource.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub percent_after: Option<f64>,
}

/// One node, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeChange {
    /// The node.
    pub node: String,
    /// Whether new pods can land here (Ready or no Ready condition, and not cordoned).
    pub schedulable: bool,
    /// Every tracked resource, in the simulation's order.
    pub resources: Vec<ResourceChange>,
    /// Evicted pods that leave the node.
    pub pods_out: usize,
    /// Replacement pods predicted to land on the node.
    pub pods_in: usize,
}

impl NodeChange {
    /// The change of `resource`, if tracked.
    pub fn resource(&self, resource: &str) -> Option<&ResourceChange> {
        self.resources.iter().find(|r| r.resource == resource)
    }

    /// Requested percent of `resource` before (`None`: not tracked or the node lacks it).
    pub fn percent_before(&self, resource: &str) -> Option<f64> {
        self.resource(resource).and_then(|r| r.percent_before)
    }

    /// Requested percent of `resource` after (`None`: not tracked or the node lacks it).
    pub fn percent_after(&self, resource: &str) -> Option<f64> {
        self.resource(resource).and_then(|r| r.percent_after)
    }
}

/// `cpu`, `memory`, `pods` and every resource the plan's runs track
/// (their threshold resources), in name order.
pub(crate) fn tracked_resources(plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = [CPU, MEMORY, PODS].iter().map(|s| s.to_string()).collect();
    for r in plan.runs.iter().flat_map(|r| r.tracked_resources.iter()) {
        if !out.contains(r) {
            out.push(r.clone());
        }
    }
    out.sort();
    out
}

/// `used / allocatable × 100`, 0 on a zero allocatable, `None` without one.
pub(crate) fn percent(used: i64, allocatable: Option<i64>) -> Option<f64> {
    let cap = allocatable?;
    Some(if cap > 0 { used as f64 / cap as f64 * 100.0 } else { 0.0 })
}

/// Whether the scheduler can put new pods on `node` at all.
pub(crate) fn schedulable(node: &NodeInfo) -> bool {
    node.ready != Some(false) && !node.unschedulable
}

/// Every node's usage as [`crate::scheduler::ClusterState::usage`] counts
/// it, in one pass over `pods`: node name → requests summed in pod order,
/// `pods` = their number. Nodes without pods are absent (their usage is
/// `pods: 0`, see [`usage_of`]).
pub(crate) fn usage_by_node(pods: &[PodInfo]) -> FastMap<&str, ResourceList> {
    let mut out: FastMap<&str, (ResourceList, i64)> = fast_map(0);
    for p in pods.iter().filter(|p| p.counts_toward_usage()) {
        if let Some(n) = p.node_name.as_deref() {
            let (used, count) = out.entry(n).or_default();
            used.add(&p.requests);
            *count += 1;
        }
    }
    out.into_iter()
        .map(|(n, (mut used, count))| {
            used.set(PODS, count);
            (n, used)
        })
        .collect()
}

/// The usage of `node` in a [`usage_by_node`] map.
pub(crate) fn usage_of(usage: &FastMap<&str, ResourceList>, node: &str) -> ResourceList {
    usage.get(node).cloned().unwrap_or_else(|| ResourceList::from_pairs(&[(PODS, 0)]))
}

/// Per node of `nodes` (first occurrence of each name, in order): usage
/// before (from [`usage_by_node`]) and after (`after(name)`), and the pods
/// moving out of and into it (`moves`: source node, predicted node).
pub(crate) fn node_changes(
    nodes: &[NodeInfo],
    before: &FastMap<&str, ResourceList>,
    after: impl Fn(&str) -> ResourceList,
    tracked: &[String],
    moves: &[(&str, Option<&str>)],
) -> Vec<NodeChange> {
    let mut pods_out: FastMap<&str, usize> = fast_map(0);
    let mut pods_in: FastMap<&str, usize> = fast_map(0);
    for (from, to) in moves {
        *pods_out.entry(from).or_insert(0) += 1;
        if let Some(to) = to {
            *pods_in.entry(to).or_insert(0) += 1;
        }
    }
    let mut seen = std::collections::HashSet::new();
    nodes
        .iter()
        .filter(|n| seen.insert(n.name.as_str()))
        .map(|n| {
            let (ub, ua) = (usage_of(before, &n.name), after(&n.name));
            let resources = tracked
                .iter()
                .map(|r| {
                    let allocatable = n.allocatable.get_opt(r);
                    ResourceChange {
                        resource: r.clone(),
                        allocatable,
                        before: ub.get(r),
                        after: ua.get(r),
                        percent_before: percent(ub.get(r), allocatable),
                        percent_after: percent(ua.get(r), allocatable),
                    }
                })
                .collect();
            NodeChange {
                node: n.name.clone(),
                schedulable: schedulable(n),
                resources,
                pods_out: pods_out.get(n.name.as_str()).copied().unwrap_or(0),
                pods_in: pods_in.get(n.name.as_str()).copied().unwrap_or(0),
            }
        })
        .collect()
}

/// max − min of the cpu percent over the schedulable nodes with a cpu
/// allocatable, in percentage points; `None` without such a node.
pub(crate) fn cpu_skew(nodes: &[NodeChange], after: bool) -> Option<f64> {
    let values: Vec<f64> = nodes
        .iter()
        .filter(|n| n.schedulable)
        .filter_map(|n| if after { n.percent_after(CPU) } else { n.percent_before(CPU) })
        .collect();
    let max = values.iter().copied().reduce(f64::max)?;
    let min = values.iter().copied().reduce(f64::min)?;
    Some(max - min)
}
