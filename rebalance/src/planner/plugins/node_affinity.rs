//! `RemovePodsViolatingNodeAffinity` planned: which pods descheduler v0.36 would evict, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/removepodsviolatingnodeaffinity/node_affinity.go`;
//! descheduler-plugins.md §2.1. One pass over the cycle's nodes per
//! `nodeAffinityType` entry, in order (an unknown entry is noted and
//! skipped, as upstream logs "Invalid nodeAffinityType"); per node, its pods
//! (`ListPodsOnANode`) in input order after `namespaces` / `labelSelector`.
//!
//! - `requiredDuringSchedulingIgnoredDuringExecution`: the pod has required
//!   node affinity, `PodMatchNodeSelector` (its `nodeSelector` AND the
//!   required terms, [`matches_node_selector`]) no longer holds on its node,
//!   the DefaultEvictor passes, and `PodFitsAnyNode`.
//! - `preferredDuringSchedulingIgnoredDuringExecution`: the pod has a
//!   preferred term, some node of the cycle (unschedulable, tainted and full
//!   ones too) has a strictly greater weight (the sum of the weights of the
//!   matching preferred terms) than its own node, the DefaultEvictor passes,
//!   and `PodFitsAnyNode`.
//!
//! `PodFitsAnyNode` ([`NodeFit::first_fit_any_node`]) runs nodeFit over the
//! cycle's nodes **including the pod's own**, where its requests are not
//! checked: a pod that still fits its node passes (only DefaultEvictor
//! `nodeFit: true` then stops it). Upstream stops at the first fit of 100
//! parallel workers; kdrift names the first fit in node order.
//!
//! Limits: the node limit ends the node ("not reached" for the rest), the
//! total limit ends the plugin (the rest of the pass "not reached" / "not
//! visited", later types noted as not run), the namespace limit skips the pod.
//! A pod that does not break the rule of the pass (no such affinity, or its
//! node still satisfies it) is counted ([`PluginRun::not_matching`]), not
//! listed. A pod that breaks it and is kept is reported with the first of:
//! not reached, already evicted, the Filter, the PreEvictionFilter, fits no
//! node (upstream evaluates the filters first; the outcome is the same).

use std::collections::HashMap;

use crate::model::node::NodeInfo;
use crate::model::pod::{PodInfo, PreferredNodeTerm};
use crate::planner::cycle::Cycle;
use crate::planner::evictor::{Evictor, FilterOutcome};
use crate::planner::limits::LimitHit;
use crate::planner::node_fit::{matches_node_selector, NodeFit};
use crate::planner::plan::{PluginRun, SkipReason, StopReason};
use crate::policy::plugins::node_affinity::{PREFERRED_DURING_SCHEDULING, REQUIRED_DURING_SCHEDULING};
use crate::policy::{ExtensionPoint, Profile, RemovePodsViolatingNodeAffinityArgs};

/// The two node affinity types the plugin knows.
#[derive(Clone, Copy)]
enum Kind {
    Required,
    Preferred,
}

fn keep(rule: &str, message: String) -> SkipReason {
    SkipReason::Rule { rule: rule.to_string(), message, upstream: false }
}

/// The sum of the weights of the pod's preferred node affinity terms that
/// `node` matches (an invalid term matches nothing). Source: descheduler
/// v0.36 `GetNodeWeightGivenPodPreferredAffinity`.
fn preferred_weight(pod: &PodInfo, node: &NodeInfo) -> i64 {
    pod.affinity
        .node_affinity
        .preferred
        .iter()
        .filter(|t| t.preference.matches(node))
        .map(|t| i64::from(t.weight))
        .sum()
}

/// Why the pod violates its required node affinity on `node`; `None` when it
/// does not (no required node affinity, or its nodeSelector and required
/// terms still match `node`).
fn required_violation(pod: &PodInfo, node: &NodeInfo) -> Option<String> {
    let terms = pod.affinity.node_affinity.required.as_ref()?;
    if matches_node_selector(pod, node) {
        return None;
    }
    let selector_ok = pod.node_selector.iter().all(|(k, v)| node.labels.get(k).map(String::as_str) == Some(v));
    let affinity_ok = terms.iter().any(|t| t.matches(node));
    Some(match (affinity_ok, selector_ok) {
        (false, true) => format!("required node affinity no longer matches {}", node.name),
        (false, false) => format!("required node affinity and nodeSelector no longer match {}", node.name),
        _ => format!("nodeSelector no longer matches {} (required node affinity does)", node.name),
    })
}

/// The best preferred weight over the cycle's nodes per distinct preferred
/// term list (the first node in order with it), computed once per list:
/// pods of one owner share theirs.
type BestWeights<'a> = HashMap<&'a [PreferredNodeTerm], (i64, Option<&'a str>)>;

/// Why some node is preferred over the pod's `node`; `None` when it is not
/// (no preferred term, or `node` already has the best weight).
fn preferred_violation<'a>(
    pod: &'a PodInfo,
    node: &NodeInfo,
    nodes: &[&'a NodeInfo],
    best_weight: &mut BestWeights<'a>,
) -> Option<String> {
    let terms = pod.affinity.node_affinity.preferred.as_slice();
    if terms.is_empty() {
        return None;
    }
    let current = preferred_weight(pod, node);
    let best = *best_weight.entry(terms).or_insert_with(|| {
        let mut best: (i64, Option<&str>) = (0, None);
        for n in nodes {
            let w = preferred_weight(pod, n);
            if w > best.0 {
                best = (w, Some(n.name.as_str()));
            }
        }
        best
    });
    match best {
        (w, Some(name)) if w > current => {
            Some(format!("preferred node affinity weight {current} on {} < {w} on {name}", node.name))
        }
        _ => None,
    }
}

/// Runs `RemovePodsViolatingNodeAffinity` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &RemovePodsViolatingNodeAffinityArgs) -> PluginRun {
    let mut run =
        PluginRun::new(&profile.name, crate::policy::REMOVE_PODS_VIOLATING_NODE_AFFINITY, ExtensionPoint::Deschedule);
    let evictor = cycle.evictor(profile);
    let snapshot = cycle.snapshot;
    let fit = NodeFit::new(cycle.nodes.clone(), &snapshot.pods);
    for (i, name) in args.node_affinity_type.iter().enumerate() {
        let kind = match name.as_str() {
            REQUIRED_DURING_SCHEDULING => Kind::Required,
            PREFERRED_DURING_SCHEDULING => Kind::Preferred,
            other => {
                run.notes
                    .push(format!("Invalid nodeAffinityType {other:?}: skipped (descheduler logs this and goes on)"));
                continue;
            }
        };
        if pass(cycle, &mut run, &evictor, &fit, args, kind) {
            let rest = &args.node_affinity_type[i + 1..];
            if !rest.is_empty() {
                run.notes.push(format!(
                    "maximum number of evicted pods per a descheduling cycle reached: nodeAffinityType {} not run",
                    rest.join(", ")
                ));
            }
            break;
        }
    }
    run
}

/// One pass over the nodes for `kind`; true when the total limit ended it.
fn pass<'a>(
    cycle: &mut Cycle<'a>,
    run: &mut PluginRun,
    evictor: &Evictor<'a>,
    fit: &NodeFit<'a>,
    args: &RemovePodsViolatingNodeAffinityArgs,
    kind: Kind,
) -> bool {
    let snapshot = cycle.snapshot;
    let nodes = cycle.nodes.clone();
    let mut best_weight = BestWeights::new();
    let mut ended = false;
    for node in &nodes {
        let mut stop: Option<StopReason> = ended.then_some(StopReason::NotVisited);
        let mut rank = 0;
        for idx in cycle.pods_by_node.get(node.name.as_str()).cloned().unwrap_or_default() {
            let pod = &snapshot.pods[idx];
            if !args.scope.selects(&pod.namespace, &pod.labels) {
                continue;
            }
            let violation = match kind {
                Kind::Required => required_violation(pod, node),
                Kind::Preferred => preferred_violation(pod, node, &nodes, &mut best_weight),
            };
            let Some(why) = violation else {
                cycle.not_matching(run, idx, || match kind {
                    Kind::Required if pod.affinity.node_affinity.required.is_none() && pod.node_selector.is_empty() => {
                        "it has no nodeSelector or required node affinity".to_string()
                    }
                    Kind::Required => format!("its node {} still satisfies its required node affinity", node.name),
                    Kind::Preferred => {
                        format!("no other node satisfies more of its preferred node affinity weight than {}", node.name)
                    }
                });
                continue;
            };
            if let Some(stop) = &stop {
                cycle.skip(run, idx, &node.name, SkipReason::NotReached { stop: stop.clone() });
                continue;
            }
            if cycle.evicted.contains(&idx) {
                cycle.skip(run, idx, &node.name, SkipReason::AlreadyEvicted);
                continue;
            }
            if let FilterOutcome::Fails(reason) = evictor.filter(pod) {
                cycle.skip(run, idx, &node.name, reason);
                continue;
            }
            if let Some(reason) = evictor.pre_eviction(pod) {
                cycle.skip(run, idx, &node.name, reason);
                continue;
            }
            let Some(target) = fit.first_fit_any_node(pod) else {
                let message = format!(
                    "{why}, but the pod fits none of the {} nodes (PodFitsAnyNode: nodeSelector and required affinity, NoSchedule/NoExecute taints, requests, unschedulable, anti-affinity)",
                    nodes.len()
                );
                cycle.skip(run, idx, &node.name, keep("fits-no-node", message));
                continue;
            };
            rank += 1;
            let rule = if target.name == node.name {
                format!("{why}; fits {} (its own node, requests not checked)", target.name)
            } else {
                format!("{why}; fits {}", target.name)
            };
            match cycle.evict(run, idx, &node.name, rank, rule) {
                Ok(()) | Err(LimitHit::Namespace) => {}
                Err(LimitHit::Node) => stop = Some(StopReason::MaxPerNode),
                Err(LimitHit::Total) => {
                    stop = Some(StopReason::MaxTotal);
                    ended = true;
                }
            }
        }
    }
    ended
}
