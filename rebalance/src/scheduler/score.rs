//! Scoring of feasible nodes with the default profile's weights (or a
//! [`ScoringConfig`]'s), and the landing choice with ties reported.
//!
//! Modelled score plugins (default weights): NodeResourcesFit (1;
//! LeastAllocated by default, MostAllocated or RequestedToCapacityRatio as
//! configured, `scoring.rs`), NodeResourcesBalancedAllocation (1),
//! TaintToleration (3), NodeAffinity (2), InterPodAffinity (2),
//! PodTopologySpread (2, with the system default spreading over hostnames
//! and zones; [`super::pod_topology_spread`]). Not modelled: ImageLocality
//! (1) — a real scheduler can prefer another node among close scores for
//! that reason.

use serde::Serialize;

use super::resources_fit::{balanced_allocation, least_allocated, PodAmounts, MAX_NODE_SCORE};
use super::scoring::{fit_score, ScoringConfig, ScoringStrategy};
use super::{
    evaluate_in, inter_pod_affinity, node_affinity, pod_topology_spread, taint_toleration, ClusterState, NodeSlot,
    Snapshot,
};
use crate::model::pod::PodInfo;

/// Weight of PodTopologySpread in the default profile: the bound of the
/// default-profile fast scan ([`super::pick`]); a [`ScoringConfig`]
/// carries its own weights.
pub(crate) const WEIGHT_SPREAD: i64 = 2;

/// One feasible node's scores: each plugin's normalised score (0–100) and the
/// weighted total the scheduler ranks by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeScore {
    /// The node.
    pub node: String,
    /// `node_resources_fit + balanced_allocation + 3 × taint_toleration +
    /// 2 × node_affinity + 2 × inter_pod_affinity + 2 × pod_topology_spread`
    /// (with the default profile's weights; a [`ScoringConfig`]'s otherwise).
    pub total: i64,
    /// NodeResourcesFit with the configured strategy (LeastAllocated by
    /// default), weight 1.
    pub node_resources_fit: i64,
    /// NodeResourcesBalancedAllocation, weight 1.
    pub balanced_allocation: i64,
    /// TaintToleration (fewer untolerated PreferNoSchedule taints is better), weight 3.
    pub taint_toleration: i64,
    /// NodeAffinity (preferred terms), weight 2.
    pub node_affinity: i64,
    /// InterPodAffinity (preferred terms of both sides, existing pods' required affinity), weight 2.
    pub inter_pod_affinity: i64,
    /// PodTopologySpread (fewer matching pods in the node's domains is
    /// better; 0 when the plugin does not score the pod), weight 2.
    pub pod_topology_spread: i64,
}

/// Where the pod would land.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The chosen node: the best total; among equal totals the first by name
    /// (the scheduler would pick one of them at random — see `tie_with`).
    pub node: String,
    /// The chosen node's weighted total score.
    pub score: i64,
    /// Other feasible nodes with exactly the same total, by name. Non-empty
    /// means the landing is a coin toss among `node` and these.
    pub tie_with: Vec<String>,
    /// Every feasible node's scores, best first (ties by name).
    pub candidates: Vec<NodeScore>,
}

/// Normalises raw scores so the highest becomes 100 (`reverse`: the lowest
/// becomes 100). All zero: 0 (or 100 when reversed).
/// Source: kube-scheduler `helper.DefaultNormalizeScore`.
fn default_normalize(scores: &mut [i64], reverse: bool) {
    let max = scores.iter().copied().fold(0, i64::max);
    if max == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = MAX_NODE_SCORE);
        }
        return;
    }
    for s in scores.iter_mut() {
        let v = MAX_NODE_SCORE * *s / max;
        *s = if reverse { MAX_NODE_SCORE - v } else { v };
    }
}

/// Min-max normalisation to 0–100 (truncated). Source: kube-scheduler
/// InterPodAffinity `NormalizeScore`.
fn min_max_normalize(scores: &mut [i64]) {
    let (Some(min), Some(max)) = (scores.iter().copied().min(), scores.iter().copied().max()) else {
        return;
    };
    let diff = max - min;
    for s in scores.iter_mut() {
        *s = if diff > 0 { (MAX_NODE_SCORE as f64 * ((*s - min) as f64 / diff as f64)) as i64 } else { 0 };
    }
}

/// Scores every node that passes [`evaluate`](super::evaluate), in state order. Empty when no
/// node is feasible.
/// Source: kube-scheduler `prioritizeNodes` with the default plugin weights
/// (`kubernetes-events.md` §6).
pub fn score_nodes(state: &ClusterState, pod: &PodInfo) -> Vec<NodeScore> {
    score_nodes_with(state, pod, &ScoringConfig::default())
}

/// [`score_nodes`] with `scoring`'s NodeResourcesFit strategy and plugin weights.
pub fn score_nodes_with(state: &ClusterState, pod: &PodInfo, scoring: &ScoringConfig) -> Vec<NodeScore> {
    let snap = Snapshot::build(state, pod);
    let evals = evaluate_in(&snap, pod);
    let feasible: Vec<&NodeSlot<'_>> =
        snap.slots.iter().zip(&evals).filter(|(_, e)| e.is_feasible()).map(|(s, _)| s).collect();
    score_slots(&snap, pod, &feasible, scoring)
        .into_iter()
        .zip(&feasible)
        .map(|(s, slot)| NodeScore {
            node: slot.node.name.clone(),
            total: s.total,
            node_resources_fit: s.node_resources_fit,
            balanced_allocation: s.balanced_allocation,
            taint_toleration: s.taint_toleration,
            node_affinity: s.node_affinity,
            inter_pod_affinity: s.inter_pod_affinity,
            pod_topology_spread: s.pod_topology_spread,
        })
        .collect()
}

/// [`NodeScore`] without the node name, for one of the `feasible` slots.
pub(crate) struct SlotScore {
    pub(crate) total: i64,
    node_resources_fit: i64,
    balanced_allocation: i64,
    taint_toleration: i64,
    node_affinity: i64,
    inter_pod_affinity: i64,
    pod_topology_spread: i64,
}

/// The scores of the `feasible` slots of `snap`, in their order (empty when none).
pub(crate) fn score_slots(
    snap: &Snapshot<'_>,
    pod: &PodInfo,
    feasible: &[&NodeSlot<'_>],
    scoring: &ScoringConfig,
) -> Vec<SlotScore> {
    if feasible.is_empty() {
        return Vec::new();
    }
    let prefer = taint_toleration::prefer_tolerations(pod);
    let mut taint: Vec<i64> = feasible.iter().map(|s| taint_toleration::raw_score_with(&prefer, s.node)).collect();
    default_normalize(&mut taint, true);
    let mut node_aff: Vec<i64> = if pod.affinity.node_affinity.preferred.is_empty() {
        vec![0; feasible.len()]
    } else {
        feasible.iter().map(|s| node_affinity::raw_score(pod, s.node)).collect()
    };
    default_normalize(&mut node_aff, false);
    let (mut pod_aff, has_topology_scores) = inter_pod_affinity::raw_scores(snap, pod, feasible);
    if has_topology_scores {
        min_max_normalize(&mut pod_aff);
    }
    let spread = pod_topology_spread::scores(snap, pod, feasible);
    let amounts = PodAmounts::of(pod);
    let default_fit = scoring.strategy == ScoringStrategy::default();
    let w = &scoring.weights;
    feasible
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let a = &s.amounts;
            let capacity = [a.alloc_cpu, a.alloc_memory];
            let fit = if default_fit {
                least_allocated(capacity, [a.non_zero_cpu, a.non_zero_memory], amounts.non_zero)
            } else {
                fit_score(&scoring.strategy, s, pod)
            };
            let balanced = balanced_allocation(
                capacity,
                [a.requested_cpu, a.requested_memory],
                [amounts.requests[0], amounts.requests[1]],
            );
            let spread = spread.as_ref().map_or(0, |v| v[i]);
            SlotScore {
                total: w.node_resources_fit * fit
                    + w.balanced_allocation * balanced
                    + w.taint_toleration * taint[i]
                    + w.node_affinity * node_aff[i]
                    + w.inter_pod_affinity * pod_aff[i]
                    + w.pod_topology_spread * spread,
                node_resources_fit: fit,
                balanced_allocation: balanced,
                taint_toleration: taint[i],
                node_affinity: node_aff[i],
                inter_pod_affinity: pod_aff[i],
                pod_topology_spread: spread,
            }
        })
        .collect()
}

/// The node the pod would land on, or `None` when no node is feasible. Ties
/// between equal best totals are reported in [`Placement::tie_with`], never
/// broken silently.
/// Source: kube-scheduler `selectHost` (random among the best).
pub fn pick_node(state: &ClusterState, pod: &PodInfo) -> Option<Placement> {
    pick_node_with(state, pod, &ScoringConfig::default())
}

/// [`pick_node`] with `scoring`'s NodeResourcesFit strategy and plugin weights.
pub fn pick_node_with(state: &ClusterState, pod: &PodInfo, scoring: &ScoringConfig) -> Option<Placement> {
    let mut candidates = score_nodes_with(state, pod, scoring);
    candidates.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.node.cmp(&b.node)));
    let best = candidates.first()?;
    let score = best.total;
    let node = best.node.clone();
    let tie_with = candidates.iter().skip(1).take_while(|c| c.total == score).map(|c| c.node.clone()).collect();
    Some(Placement { node, score, tie_with, candidates })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation() {
        let mut s = vec![0, 2, 4];
        default_normalize(&mut s, false);
        assert_eq!(s, vec![0, 50, 100]);
        let mut s = vec![0, 1, 3];
        default_normalize(&mut s, true);
        assert_eq!(s, vec![100, 67, 0]);
        let mut s = vec![0, 0];
        default_normalize(&mut s, true);
        assert_eq!(s, vec![100, 100]);
        let mut s = vec![-3, 0, 3];
        min_max_normalize(&mut s);
        assert_eq!(s, vec![0, 50, 100]);
        let mut s = vec![5, 5];
        min_max_normalize(&mut s);
        assert_eq!(s, vec![0, 0]);
    }
}
