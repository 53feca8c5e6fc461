//! TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule
//! taints score.

use crate::model::node::{NodeInfo, TaintEffect};
use crate::model::pod::{tolerations_tolerate, PodInfo, Toleration};

use super::FilterFailure;

/// Every NoSchedule/NoExecute taint of the node that the pod does not
/// tolerate, in the node's order (the scheduler reports the first).
/// Source: kube-scheduler TaintToleration `Filter`
/// (`FindMatchingUntoleratedTaint` with `DoNotScheduleTaintsFilterFunc`).
pub(crate) fn filter(pod: &PodInfo, node: &NodeInfo) -> Vec<FilterFailure> {
    node.taints
        .iter()
        .filter(|t| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute))
        .filter(|t| !tolerations_tolerate(&pod.tolerations, t))
        .map(|t| FilterFailure::UntoleratedTaint { taint: t.clone() })
        .collect()
}

/// The raw score: how many PreferNoSchedule taints of the node the pod's
/// tolerations (those without effect or with PreferNoSchedule) do not tolerate.
/// Normalised later in reverse (fewer is better).
/// Source: kube-scheduler TaintToleration `Score` (`countIntolerableTaintsPreferNoSchedule`).
/// `prefer`: the pod's [`prefer_tolerations`], computed once per pod.
pub(crate) fn raw_score_with(prefer: &[Toleration], node: &NodeInfo) -> i64 {
    node.taints.iter().filter(|t| t.effect == TaintEffect::PreferNoSchedule && !tolerations_tolerate(prefer, t)).count()
        as i64
}

/// The pod's tolerations that count for scoring (no effect, or PreferNoSchedule).
pub(crate) fn prefer_tolerations(pod: &PodInfo) -> Vec<Toleration> {
    pod.tolerations.iter().filter(|t| matches!(t.effect, None | Some(TaintEffect::PreferNoSchedule))).cloned().collect()
}
