//! Per-node requested amounts at an instant, as percent of allocatable, and
//! the skew between nodes (max − min of the percent, per resource).
//!
//! Requests count as descheduler v0.36 §1 and the scheduler cache count them
//! (`ClusterState::usage`: pods bound to the node and not Succeeded/Failed),
//! read from the store's per-node aggregates ([`crate::state::amounts`]) or
//! summed from a loaded [`crate::state::ClusterAt`].
//! Units: cpu in millicores, memory in bytes, pods and extended resources in
//! units; percent of allocatable (0 when allocatable is 0), computed and
//! compared exact, serialized with two decimals
//! ([`kdrift_rebalance::hundredths`]).

use chrono::{DateTime, Utc};
use kdrift_rebalance::{CPU, MEMORY, PODS};
use kdrift_store::Reader;
use serde::Serialize;

use crate::state::amounts::AmountsAt;
use crate::AnalyzeError;

/// One resource on one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requested {
    /// Resource name (`cpu`, `memory`, `pods`, `gpu.intel.com/i915`).
    pub resource: String,
    /// Allocatable (capacity when the node reports no allocatable).
    pub allocatable: i64,
    /// Sum of the requests of the pods counting toward the node (`pods`: their number).
    pub requested: i64,
    /// `requested × 100 / allocatable`; 0 when allocatable is 0.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub percent: f64,
}

/// One node's requested amounts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeRequested {
    /// Node name.
    pub node: String,
    /// Ready condition (`None`: unknown).
    pub ready: Option<bool>,
    /// Cordoned.
    pub unschedulable: bool,
    /// Pods counting toward it.
    pub pods: usize,
    /// cpu, memory, pods, then extended resources the node offers, in name order.
    pub resources: Vec<Requested>,
    /// Some number is estimated: the node's version or a pod counted on it
    /// was observed after the instant, or a pod is known only from events.
    pub estimated: bool,
    /// The requested amounts are a lower bound: a pod counted on the node
    /// has unknown requests (known only from events, owner not stored
    /// either), or the store lacks the pods of a namespace that was not
    /// dumped (`crate::state::lower_bound`).
    pub lower_bound: bool,
}

impl NodeRequested {
    /// The percent of one resource (0 when the node lacks it).
    pub fn percent(&self, resource: &str) -> f64 {
        self.resources.iter().find(|r| r.resource == resource).map_or(0.0, |r| r.percent)
    }

    /// One resource's line.
    pub fn get(&self, resource: &str) -> Option<&Requested> {
        self.resources.iter().find(|r| r.resource == resource)
    }
}

/// The spread of one resource's percent over the nodes that offer it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceSkew {
    /// Resource name.
    pub resource: String,
    /// The node with the highest percent.
    pub max_node: String,
    /// Its percent.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub max_percent: f64,
    /// The node with the lowest percent.
    pub min_node: String,
    /// Its percent.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub min_percent: f64,
    /// `max_percent − min_percent`, percentage points.
    #[serde(serialize_with = "kdrift_rebalance::serialize_hundredths")]
    pub skew: f64,
    /// How many nodes offer the resource (allocatable > 0); under two, the
    /// skew is 0 and measures nothing (`max_node` is `min_node`).
    pub nodes: usize,
}

/// Every node's requested amounts at one instant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestedAt {
    /// The instant (UTC).
    pub at: DateTime<Utc>,
    /// Nodes, in name order.
    pub nodes: Vec<NodeRequested>,
    /// Per resource (cpu, memory, pods, then extended), over nodes with allocatable > 0.
    pub skew: Vec<ResourceSkew>,
}

impl RequestedAt {
    /// No nodes at `at` (what an analysis that skips the amounts carries).
    pub fn empty(at: DateTime<Utc>) -> RequestedAt {
        RequestedAt { at, nodes: Vec::new(), skew: Vec::new() }
    }

    /// The skew of one resource, in percentage points; `None` when fewer
    /// than two nodes offer it (a node against itself measures nothing, and
    /// no node at all is unknown, not balanced).
    pub fn skew_of(&self, resource: &str) -> Option<f64> {
        self.skew.iter().find(|s| s.resource == resource && s.nodes >= 2).map(|s| s.skew)
    }

    /// One node (a binary search: [`RequestedAt::nodes`] is in name order;
    /// the report looks up every node at every sample: 5,000 × 5,000).
    pub fn node(&self, name: &str) -> Option<&NodeRequested> {
        self.nodes.binary_search_by(|n| n.node.as_str().cmp(name)).ok().map(|i| &self.nodes[i])
    }
}

/// Whether a resource is an extended resource (a domain-prefixed name such
/// as `gpu.intel.com/i915`; `hugepages-*` and `ephemeral-storage` are not).
pub fn is_extended(resource: &str) -> bool {
    resource.contains('/') && !resource.starts_with("kubernetes.io/") && !resource.starts_with("requests.")
}

/// The requested amounts of [`AmountsAt`] (from the store's aggregates or a loaded state).
pub fn requested_from(amounts: &AmountsAt, at: DateTime<Utc>) -> RequestedAt {
    let estimated_nodes: std::collections::HashSet<&str> = amounts.estimated_nodes.iter().map(String::as_str).collect();
    let mut nodes = Vec::new();
    for node in &amounts.nodes {
        let used = amounts.usage_of(&node.name);
        let mut names: Vec<&str> = vec![CPU, MEMORY, PODS];
        let mut extended: Vec<&str> =
            node.allocatable.names().filter(|r| is_extended(r) && node.allocatable.get(r) > 0).collect();
        extended.sort_unstable();
        names.extend(extended);
        let resources = names
            .into_iter()
            .map(|r| {
                let allocatable = node.allocatable.get(r);
                let requested = used.requested.get(r);
                let percent = if allocatable > 0 { requested as f64 * 100.0 / allocatable as f64 } else { 0.0 };
                Requested { resource: r.to_string(), allocatable, requested, percent }
            })
            .collect();
        nodes.push(NodeRequested {
            node: node.name.clone(),
            ready: node.ready,
            unschedulable: node.unschedulable,
            pods: used.requested.get(PODS).max(0) as usize,
            resources,
            estimated: estimated_nodes.contains(node.name.as_str()) || used.estimated,
            lower_bound: used.requests_unknown > 0,
        });
    }
    nodes.sort_by(|a, b| a.node.cmp(&b.node));
    let skew = skew_of(&nodes);
    RequestedAt { at, nodes, skew }
}

/// The skew per resource over `nodes` (only nodes with allocatable > 0 for
/// the resource count; ties go to the node first in name order).
pub fn skew_of(nodes: &[NodeRequested]) -> Vec<ResourceSkew> {
    let mut resources: Vec<&str> = Vec::new();
    for n in nodes {
        for r in &n.resources {
            if !resources.contains(&r.resource.as_str()) {
                resources.push(&r.resource);
            }
        }
    }
    let mut out = Vec::new();
    for r in resources {
        let mut max: Option<(&str, f64)> = None;
        let mut min: Option<(&str, f64)> = None;
        let mut offering = 0;
        for n in nodes {
            let Some(line) = n.get(r).filter(|l| l.allocatable > 0) else { continue };
            offering += 1;
            if max.is_none_or(|(_, p)| line.percent > p) {
                max = Some((&n.node, line.percent));
            }
            if min.is_none_or(|(_, p)| line.percent < p) {
                min = Some((&n.node, line.percent));
            }
        }
        if let (Some((max_node, max_percent)), Some((min_node, min_percent))) = (max, min) {
            out.push(ResourceSkew {
                resource: r.to_string(),
                max_node: max_node.to_string(),
                max_percent,
                min_node: min_node.to_string(),
                min_percent,
                skew: max_percent - min_percent,
                nodes: offering,
            });
        }
    }
    out
}

/// The requested amounts at `at`, from the store.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn requested_at(store: &Reader, at: DateTime<Utc>) -> Result<RequestedAt, AnalyzeError> {
    Ok(requested_at_instants(store, &[at])?.remove(0))
}

/// The requested amounts at each of `instants` (in that order), read from
/// the store's per-node aggregates ([`crate::amounts_at`]: the nodes in one
/// query, the pods' amounts from the schema-v8 checkpoints in two small
/// queries per instant, or two for all of them from
/// [`crate::ONE_QUERY_FROM`] instants on; no pod object parsed). The pods
/// known only from events are looked for only at instants with some Node
/// (they count toward Nodes; without one, nothing here shows them).
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn requested_at_instants(store: &Reader, instants: &[DateTime<Utc>]) -> Result<Vec<RequestedAt>, AnalyzeError> {
    let amounts = crate::state::amounts::amounts_for_nodes_at(store, instants)?;
    Ok(amounts.iter().zip(instants).map(|(a, at)| requested_from(a, *at)).collect())
}

/// The requested amounts at every `step` from `from` to `to` (both
/// included), for charts of requested % over time. `step` below one second
/// is taken as one second.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn requested_over_time(
    store: &Reader,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    step: chrono::Duration,
) -> Result<Vec<RequestedAt>, AnalyzeError> {
    let step = step.max(chrono::Duration::seconds(1));
    let mut instants = Vec::new();
    let mut t = from;
    while t <= to {
        instants.push(t);
        t += step;
    }
    requested_at_instants(store, &instants)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, cpu: f64, alloc: i64) -> NodeRequested {
        NodeRequested {
            node: name.into(),
            ready: Some(true),
            unschedulable: false,
            pods: 0,
            resources: vec![Requested { resource: "cpu".into(), allocatable: alloc, requested: 0, percent: cpu }],
            estimated: false,
            lower_bound: false,
        }
    }

    #[test]
    fn skew_is_max_minus_min_over_nodes_with_allocatable() {
        let s = skew_of(&[node("a", 97.1, 2000), node("b", 29.0, 2000), node("c", 0.0, 0)]);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].max_node.as_str(), s[0].min_node.as_str()), ("a", "b"));
        assert!((s[0].skew - 68.1).abs() < 1e-9);
        assert_eq!(s[0].nodes, 2, "c offers no cpu");
    }

    #[test]
    fn extended_resources() {
        assert!(is_extended("gpu.intel.com/i915"));
        assert!(is_extended("nvidia.com/gpu"));
        assert!(!is_extended("hugepages-2Mi"));
        assert!(!is_extended("cpu"));
    }
}
