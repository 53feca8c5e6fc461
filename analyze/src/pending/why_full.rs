//! The chain's last links: for each node that is left but short, why it is
//! full ([`super::full`]) and, when the pod's required pod affinity pins it
//! there, why the anchor pod is on that node ([`super::anchor`]).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{ClusterState, PodInfo};
use kdrift_store::Reader;
use serde::Serialize;

use super::anchor::{explain, Anchor};
use super::chain::StateAtFailure;
use super::full::{arrival, bound, bursts, owner_created, scale_ups, Holder, NodeFill};
use super::moved_by::runs;
use crate::drains::causes::{move_causes, Candidate, Replacements};
use crate::drains::{drain_moves_to_nodes, MovesToNodes};
use crate::state::unlisted::Unlisted;
use crate::state::ClusterAt;
use crate::AnalyzeError;

/// Why the node(s) left are full, and why the anchor pods are there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WhyFull {
    /// One per node that is left and short of a resource.
    pub fills: Vec<NodeFill>,
    /// The pods on those nodes that the pod's required pod affinity selects.
    pub anchors: Vec<Anchor>,
    /// Nodes left short that are not explained in `fills`: beyond the
    /// [`EXPLAINED_NODES`] closest to fitting (omitted from JSON when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub nodes_not_explained: usize,
}

/// At most this many short nodes are explained, those closest to fitting
/// (smallest shortfall of their first short resource, then name): a pod
/// that fits nowhere in a 5,000-node cluster gets its few best candidates,
/// not 5,000 explanations.
pub const EXPLAINED_NODES: usize = 5;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `Ok(None)` when no node is left short (nothing to explain).
pub(super) fn why_full(
    store: &Reader,
    pending: &PodInfo,
    state: &StateAtFailure,
    cs: &ClusterState,
    unlisted: &Unlisted,
    event_only: &[String],
    at: DateTime<Utc>,
) -> Result<Option<WhyFull>, AnalyzeError> {
    // `cs` holds pods read for the filters only (`ClusterAt::load_for_filters`,
    // `ClusterAt::load_summed`): those on the explained nodes are read whole below.
    let left: HashSet<&str> = state.left.iter().map(String::as_str).collect();
    // Each left node once, with its first short resource and by how much.
    let mut short: Vec<(&str, &str, i64)> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for s in state.shortfalls.iter().filter(|s| left.contains(s.node.as_str())) {
        if seen.insert(&s.node) {
            short.push((&s.node, &s.resource, s.short));
        }
    }
    if short.is_empty() {
        return Ok(None);
    }
    let nodes_not_explained = short.len().saturating_sub(EXPLAINED_NODES);
    if nodes_not_explained > 0 {
        short.sort_by(|a, b| a.2.cmp(&b.2).then(a.0.cmp(b.0)));
        short.truncate(EXPLAINED_NODES);
    }
    let targets: Vec<(&str, &str)> = short.iter().map(|(n, r, _)| (*n, *r)).collect();
    let nodes: Vec<&str> = targets.iter().map(|(n, _)| *n).collect();
    let mut steps = crate::steps::Steps::start();
    // The moves to those nodes and the scale-ups on a second connection
    // while this one reads the nodes' pods: independent reads of ~80 and
    // ~110 ms at 10M events, mostly on one core each (kdrift issue 6).
    let (pods_on, moves_and_ups) = crate::alongside::alongside(
        store,
        |reader| -> Result<_, AnalyzeError> {
            let mut steps = crate::steps::Steps::start();
            let moves = drain_moves_to_nodes(reader, at, &nodes)?;
            steps.done("drain moves to nodes");
            let ups = scale_ups(reader, at)?;
            steps.done("scale-ups");
            let causes = move_causes(reader, crate::history::beginning(), at)?;
            steps.done("move causes");
            Ok((moves, ups, causes))
        },
        // The cluster was loaded for the filters: the pods shown are read whole.
        || unlisted.pods_on(store, at, cs, event_only, &nodes),
    )?;
    let pods_on = pods_on?;
    let (MovesToNodes { operations, placed }, ups, causes) = moves_and_ups?;
    steps.done("holders whole, moves to nodes, scale-ups");
    let on = |node: &str| pods_on.get(node).map_or(&[][..], Vec::as_slice);

    // The bindings to each explained node, so that per-pod lookups scan a
    // node's few hundred bindings, not the whole history's.
    let placed_on = |node: &str| -> Vec<_> { placed.iter().filter(|p| p.node == node).cloned().collect() };
    // The explained nodes' pods paired one to one with the evictions they replaced.
    let candidates: Vec<Candidate> = targets
        .iter()
        .flat_map(|(node, _)| {
            let placed = placed_on(node);
            on(node)
                .iter()
                .filter_map(|p| match owner_created(p, bound(&placed, p, node, at)) {
                    (Some(owner), Some(created)) => Some((p.namespace.clone(), p.name.clone(), owner, created)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let paired = Replacements::pair(&causes, candidates);
    let mut fills = Vec::new();
    let by_node = cs.by_node();
    for (node, resource) in &targets {
        let placed = placed_on(node);
        let mut holders: Vec<Holder> = on(node)
            .iter()
            .map(|p| {
                let placement = bound(&placed, p, node, at);
                Holder {
                    namespace: p.namespace.clone(),
                    name: p.name.clone(),
                    owner: p.controller().map(|o| format!("{}/{}", o.kind, o.name)),
                    request: p.requests.get(resource),
                    requests: p.requests.iter().map(|(r, v)| (r.to_string(), v)).collect(),
                    bound_at: placement.map(|x| x.bound_at),
                    arrival: arrival(p, node, placement, &operations, &ups, &causes, &paired),
                }
            })
            .collect();
        holders.sort_by(|a, b| {
            b.request
                .cmp(&a.request)
                .then(a.bound_at.cmp(&b.bound_at))
                .then((&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)))
        });
        let mut requested = by_node.usage(node).get(resource);
        if let Some(summed) = unlisted.summed_on(node) {
            requested = requested.saturating_add(summed.get(resource));
        }
        let allocatable = cs.node(node).map_or(0, |n| n.allocatable.get(resource));
        let bursts = bursts(node, resource, requested, &holders, &placed, &operations);
        let runs = runs(resource, requested, &holders);
        fills.push(NodeFill {
            node: node.to_string(),
            resource: resource.to_string(),
            requested,
            allocatable,
            holders,
            bursts,
            runs,
        });
    }

    let mut anchors = Vec::new();
    let terms = &pending.affinity.pod_affinity.required;
    if !terms.is_empty() {
        for (node, _) in &targets {
            let placed = placed_on(node);
            for p in on(node).iter().filter(|p| terms.iter().any(|t| t.selects(&pending.namespace, p))) {
                let placement = bound(&placed, p, node, at);
                let bound_at = placement.map(|x| x.bound_at);
                let then = match bound_at {
                    Some(t) => ClusterAt::load_nodes(store, t)?.nodes,
                    None => Vec::new(),
                };
                let arrived = arrival(p, node, placement, &operations, &ups, &causes, &paired);
                anchors.push(explain(p, node, bound_at, arrived, &cs.nodes, &then));
            }
        }
    }
    Ok(Some(WhyFull { fills, anchors, nodes_not_explained }))
}
