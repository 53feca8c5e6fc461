//! The chain's last links: for each node that is left but short, why it is
//! full ([`super::full`]) and, when the pod's required pod affinity pins it
//! there, why the anchor pod is on that node ([`super::anchor`]).

use chrono::{DateTime, Utc};
use kdrift_ingest::Store;
use kdrift_rebalance::{ClusterState, PodInfo};
use serde::Serialize;

use super::anchor::{explain, Anchor};
use super::chain::StateAtFailure;
use super::full::{arrival, bound, bursts, scale_ups, Holder, NodeFill};
use crate::drains::drain_timeline;
use crate::history::{beginning, placements};
use crate::state::ClusterAt;
use crate::AnalyzeError;

/// Why the node(s) left are full, and why the anchor pods are there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WhyFull {
    /// One per node that is left and short of a resource.
    pub fills: Vec<NodeFill>,
    /// The pods on those nodes that the pod's required pod affinity selects.
    pub anchors: Vec<Anchor>,
}

/// `Ok(None)` when no node is left short (nothing to explain).
pub(super) fn why_full(
    store: &Store,
    pending: &PodInfo,
    state: &StateAtFailure,
    at: DateTime<Utc>,
) -> Result<Option<WhyFull>, AnalyzeError> {
    let mut targets: Vec<(&str, &str)> = Vec::new();
    for s in state.shortfalls.iter().filter(|s| state.left.contains(&s.node)) {
        if !targets.iter().any(|(n, _)| *n == s.node) {
            targets.push((&s.node, &s.resource));
        }
    }
    if targets.is_empty() {
        return Ok(None);
    }
    let cluster = ClusterAt::load(store, at)?;
    let others: Vec<PodInfo> = cluster
        .pods
        .iter()
        .filter(|p| !(p.namespace == pending.namespace && p.name == pending.name))
        .cloned()
        .collect();
    let cs = ClusterState::new(cluster.nodes.clone(), others);
    let placed = placements(store, beginning(), at)?;
    let operations = drain_timeline(store, None, Some(at))?.operations;
    let ups = scale_ups(store, at)?;

    let mut fills = Vec::new();
    for (node, resource) in &targets {
        let mut holders: Vec<Holder> = cs
            .pods_on(node)
            .map(|p| {
                let placement = bound(&placed, p, node, at);
                Holder {
                    namespace: p.namespace.clone(),
                    name: p.name.clone(),
                    owner: p.controller().map(|o| format!("{}/{}", o.kind, o.name)),
                    request: p.requests.get(resource),
                    requests: p.requests.iter().map(|(r, v)| (r.to_string(), v)).collect(),
                    bound_at: placement.map(|x| x.bound_at),
                    arrival: arrival(p, node, placement, &operations, &ups),
                }
            })
            .collect();
        holders.sort_by(|a, b| {
            b.request
                .cmp(&a.request)
                .then(a.bound_at.cmp(&b.bound_at))
                .then((&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)))
        });
        let used = cs.usage(node);
        let requested = used.get(resource);
        let allocatable = cs.node(node).map_or(0, |n| n.allocatable.get(resource));
        let bursts = bursts(node, resource, requested, &holders, &placed, &operations);
        fills.push(NodeFill {
            node: node.to_string(),
            resource: resource.to_string(),
            requested,
            allocatable,
            holders,
            bursts,
        });
    }

    let mut anchors = Vec::new();
    let terms = &pending.affinity.pod_affinity.required;
    if !terms.is_empty() {
        for (node, _) in &targets {
            for p in cs.pods_on(node).filter(|p| terms.iter().any(|t| t.selects(&pending.namespace, p))) {
                let placement = bound(&placed, p, node, at);
                let bound_at = placement.map(|x| x.bound_at);
                let then = match bound_at {
                    Some(t) => ClusterAt::load(store, t)?.nodes,
                    None => Vec::new(),
                };
                let arrived = arrival(p, node, placement, &operations, &ups);
                anchors.push(explain(p, node, bound_at, arrived, &cs.nodes, &then));
            }
        }
    }
    Ok(Some(WhyFull { fills, anchors }))
}
