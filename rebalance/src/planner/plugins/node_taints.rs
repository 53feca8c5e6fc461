//! `RemovePodsViolatingNodeTaints` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatingnodetaints/node_taint.go`;
//! descheduler-plugins.md §2.2. Per node in the cycle's order, per pod on it
//! (`ListPodsOnANode`: bound, not Succeeded/Failed) in input order, after
//! `namespaces` / `labelSelector`: the pod is evicted when some taint of its
//! **current** node that the plugin considers — effect `NoSchedule` (plus
//! `PreferNoSchedule` with `includePreferNoSchedule`; `NoExecute` never),
//! not in `excludedTaints`, in `includedTaints` when that is set — is
//! tolerated by none of its tolerations, and the DefaultEvictor's Filter
//! and PreEvictionFilter pass. Toleration matching is k8s.io/api v0.36.1
//! `ToleratesTaint` with comparison operators on: `Lt` / `Gt` compare the
//! taint's and the toleration's values as int64 (taint < toleration /
//! taint > toleration); a value that does not parse matches nothing.
//!
//! Limits: the node limit ends the node (the rest are "not reached"), the
//! total limit ends the plugin (the rest of the node "not reached", later
//! nodes "not visited"), the namespace limit skips the pod only.
//!
//! A pod that tolerates every considered taint of its node does not break
//! the rule: it is counted ([`PluginRun::not_matching`]), not listed, even
//! when a limit or an earlier eviction would have kept it anyway. A pod that
//! breaks the rule and is kept is reported with the first of: not reached,
//! already evicted in this cycle, the Filter, the PreEvictionFilter
//! (upstream evaluates the filters first; the outcome is the same).

use crate::model::node::{NodeInfo, Taint, TaintEffect};
use crate::model::pod::{Toleration, TolerationOperator};
use crate::planner::cycle::Cycle;
use crate::planner::evictor::FilterOutcome;
use crate::planner::limits::LimitHit;
use crate::planner::plan::{PluginRun, SkipReason, StopReason};
use crate::policy::{ExtensionPoint, Profile, RemovePodsViolatingNodeTaintsArgs};

/// `key=value:effect`, or `key:effect` without a value (kubectl's spelling).
pub(crate) fn taint_text(t: &Taint) -> String {
    if t.value.is_empty() {
        format!("{}:{}", t.key, t.effect.as_str())
    } else {
        format!("{}={}:{}", t.key, t.value, t.effect.as_str())
    }
}

/// Whether `tol` tolerates `taint`, with the comparison operators `Lt` and
/// `Gt` enabled. Source: k8s.io/api v0.36.1 `Toleration.ToleratesTaint(…,
/// enableComparisonOperators=true)`; the other operators as
/// [`Toleration::tolerates`] (shared with the scheduler model, which keeps
/// `Lt`/`Gt` off).
pub(crate) fn tolerates(tol: &Toleration, taint: &Taint) -> bool {
    let op = match &tol.operator {
        TolerationOperator::Other(op) if op == "Lt" || op == "Gt" => op.as_str(),
        _ => return tol.tolerates(taint),
    };
    if tol.effect.as_ref().is_some_and(|e| *e != taint.effect) {
        return false;
    }
    if !tol.key.is_empty() && tol.key != taint.key {
        return false;
    }
    let (Ok(taint_value), Ok(tol_value)) = (taint.value.parse::<i64>(), tol.value.parse::<i64>()) else {
        return false;
    };
    if op == "Lt" {
        taint_value < tol_value
    } else {
        taint_value > tol_value
    }
}

/// The taints of `node` the plugin considers, in the node's order.
fn considered<'n>(node: &'n NodeInfo, args: &RemovePodsViolatingNodeTaintsArgs) -> Vec<&'n Taint> {
    node.taints
        .iter()
        .filter(|t| {
            t.effect == TaintEffect::NoSchedule
                || (args.include_prefer_no_schedule && t.effect == TaintEffect::PreferNoSchedule)
        })
        .filter(|t| args.selects_taint(t))
        .collect()
}

/// Runs `RemovePodsViolatingNodeTaints` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &RemovePodsViolatingNodeTaintsArgs) -> PluginRun {
    let mut run =
        PluginRun::new(&profile.name, crate::policy::REMOVE_PODS_VIOLATING_NODE_TAINTS, ExtensionPoint::Deschedule);
    let evictor = cycle.evictor(profile);
    let snapshot = cycle.snapshot;
    let nodes = cycle.nodes.clone();
    let mut ended = false;
    for node in nodes {
        let taints = considered(node, args);
        let mut stop: Option<StopReason> = ended.then_some(StopReason::NotVisited);
        let mut rank = 0;
        for idx in cycle.pods_by_node.get(node.name.as_str()).cloned().unwrap_or_default() {
            let pod = &snapshot.pods[idx];
            if !args.scope.selects(&pod.namespace, &pod.labels) {
                continue;
            }
            let untolerated = taints.iter().find(|t| !pod.tolerations.iter().any(|tol| tolerates(tol, t)));
            let Some(taint) = untolerated else {
                cycle.not_matching(&mut run, idx, || {
                    if taints.is_empty() {
                        format!("node {} has no taint this plugin considers", node.name)
                    } else {
                        let list: Vec<String> =
                            taints.iter().map(|t| format!("{}={}:{}", t.key, t.value, t.effect.as_str())).collect();
                        format!("it tolerates every taint of {} this plugin considers: {}", node.name, list.join(", "))
                    }
                });
                continue;
            };
            if let Some(stop) = &stop {
                cycle.skip(&mut run, idx, &node.name, SkipReason::NotReached { stop: stop.clone() });
                continue;
            }
            if cycle.evicted.contains(&idx) {
                cycle.skip(&mut run, idx, &node.name, SkipReason::AlreadyEvicted);
                continue;
            }
            if let FilterOutcome::Fails(reason) = evictor.filter(pod) {
                cycle.skip(&mut run, idx, &node.name, reason);
                continue;
            }
            if let Some(reason) = evictor.pre_eviction(pod) {
                cycle.skip(&mut run, idx, &node.name, reason);
                continue;
            }
            rank += 1;
            let rule = format!("node {}'s taint {} is not tolerated", node.name, taint_text(taint));
            match cycle.evict(&mut run, idx, &node.name, rank, rule) {
                Ok(()) | Err(LimitHit::Namespace) => {}
                Err(LimitHit::Node) => stop = Some(StopReason::MaxPerNode),
                Err(LimitHit::Total) => {
                    stop = Some(StopReason::MaxTotal);
                    ended = true;
                }
            }
        }
    }
    run
}
