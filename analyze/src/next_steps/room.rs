//! The steps that make room for the pod: uncordon a cordoned node that
//! would take it, the request that fits the most nodes that are left, and
//! moving pods off a short node only when another node could take them.

use kdrift_rebalance::format_amount;

use super::NextStep;
use crate::failed_scheduling::ReasonKind;
use crate::pending::{Relief, Shortfall, StateAtFailure};
use crate::words::count;

/// Whether a reason is the cordon (`spec.unschedulable`, or its taint in
/// the wording of the kube-scheduler versions that name it).
pub(super) fn is_cordon(kind: ReasonKind, reason: &str) -> bool {
    kind == ReasonKind::Unschedulable
        || (kind == ReasonKind::UntoleratedTaint && reason.contains("node.kubernetes.io/unschedulable"))
}

/// The cordoned nodes whose only failure for the pod is the cordon, in
/// name order: uncordoned, they take it (pod known only).
pub(super) fn cordoned_takers(state: &StateAtFailure) -> Vec<String> {
    if !state.pod_known {
        return Vec::new();
    }
    state
        .nodes
        .iter()
        .filter(|n| n.unschedulable && n.ready != Some(false) && !n.fails.is_empty())
        .filter(|n| {
            n.fails.iter().all(|f| f == "node(s) were unschedulable" || f.contains("node.kubernetes.io/unschedulable"))
        })
        .map(|n| n.name.clone())
        .collect()
}

/// One step per short resource: the request that fits the most of the
/// nodes that are left (the smallest free amount among them), and how many
/// nodes each larger value still fits. A node short of another resource too
/// does not count (lowering this request alone does not let the pod in).
pub(super) fn smaller_request_steps(state: &StateAtFailure, shortfalls: &[&Shortfall]) -> Vec<NextStep> {
    let mut resources: Vec<&str> = Vec::new();
    for s in shortfalls {
        if !resources.contains(&s.resource.as_str()) {
            resources.push(&s.resource);
        }
    }
    let short_of = |node: &str| shortfalls.iter().filter(|s| s.node == node).count();
    let mut steps = Vec::new();
    for resource in resources {
        let mut fit: Vec<&Shortfall> = shortfalls
            .iter()
            .filter(|s| s.resource == resource && s.free > 0 && short_of(&s.node) == 1)
            .copied()
            .collect();
        if fit.is_empty() {
            continue;
        }
        // Largest free first: each value fits every node up to it.
        fit.sort_by(|a, b| b.free.cmp(&a.free).then(a.node.cmp(&b.node)));
        let why = no_limit_note(state, resource);
        let best = fit[fit.len() - 1];
        let action = if fit.len() == 1 {
            format!(
                "lower the pod's {resource} request from {} to at most {} (it fits {} then){why}",
                best.display[0], best.display[1], best.node
            )
        } else {
            let names: Vec<&str> = fit.iter().rev().map(|s| s.node.as_str()).collect();
            // Each larger distinct value and how many nodes it still fits.
            let mut others: Vec<String> = Vec::new();
            for (i, s) in fit.iter().enumerate().rev().skip(1) {
                if s.free != fit[i + 1].free {
                    others.push(format!("at most {} fits {}", s.display[1], count(i + 1, "node", "nodes")));
                }
            }
            format!(
                "lower the pod's {resource} request from {} to at most {} (it fits {} then: {}{}){why}",
                best.display[0],
                best.display[1],
                count(fit.len(), "node", "nodes"),
                names.join(", "),
                if others.is_empty() { String::new() } else { format!("; {}", others.join(", ")) }
            )
        };
        steps.push(NextStep { addresses: format!("Insufficient {resource}"), action });
    }
    steps
}

/// `; C1, C2 set no cpu limit, so the request only drives placement`, or ''.
fn no_limit_note(state: &StateAtFailure, resource: &str) -> String {
    let no_limit: Vec<&str> = state
        .requests_without_limit
        .iter()
        .filter(|e| e.ends_with(&format!(": {resource}")))
        .map(|e| e.split(':').next().unwrap_or(""))
        .collect();
    if no_limit.is_empty() {
        String::new()
    } else {
        format!(
            "; {} set{} no {resource} limit, so the request only drives placement",
            no_limit.join(", "),
            if no_limit.len() == 1 { "s" } else { "" }
        )
    }
}

/// The step that makes room on a short node: moving pods elsewhere only
/// when another node could take them (not on a one-node cluster, not when
/// only DaemonSet or static pods hold the resource), naming the threshold
/// pair the rebalance simulation shows freeing the node.
pub(super) fn room_action(
    state: &StateAtFailure,
    s: &Shortfall,
    relief: Option<&Relief>,
    detail: &str,
    burst: &str,
) -> String {
    let need = &s.display[2];
    if state.nodes.len() == 1 {
        return format!(
            "{} is the cluster's only node: no other node can take its pods; add a node with at least {} of {} \
             free, or lower requests{detail}{burst}",
            s.node, s.display[0], s.resource
        );
    }
    if let Some(r) = relief.filter(|r| r.movable_pods == 0) {
        return format!(
            "only DaemonSet or static pods hold {} on {} ({}): none can move elsewhere; lower their requests or give \
             the node more {}{detail}{burst}",
            s.resource,
            s.node,
            count(r.fixed_pods, "pod", "pods"),
            s.resource
        );
    }
    let others: Vec<&str> = state
        .nodes
        .iter()
        .filter(|n| n.name != s.node && !n.unschedulable && n.ready != Some(false))
        .filter(|n| n.resources.iter().any(|r| r.resource == s.resource && r.free > 0))
        .map(|n| n.name.as_str())
        .collect();
    if others.is_empty() {
        return format!(
            "no other schedulable node has {} free to take pods from {}: add a node, or lower requests{detail}{burst}",
            s.resource, s.node
        );
    }
    // The chart default policy, whole, already frees enough in one run:
    // that is the step (`kdrift rebalance plan` plans it as it stands).
    if let Some(d) = relief.and_then(|r| r.default_policy.as_ref()).filter(|d| d.freed >= s.short) {
        return format!(
            "free {need} of {} on {}: descheduler's default policy would, run once — `kdrift rebalance plan \
             --simulate` evicts {} off {} ({}) and frees {} of {} there in one run{detail}{burst}",
            s.resource,
            s.node,
            count(d.evictions, "pod", "pods"),
            s.node,
            d.plugins.join(", "),
            format_amount(&s.resource, d.freed),
            s.resource
        );
    }
    match relief.map(|r| (&r.policy, &r.no_policy)) {
        Some((Some(p), _)) => format!(
            "free {need} of {} on {}: move pods elsewhere with `kdrift rebalance plan --policy FILE --simulate` \
             and LowNodeUtilization thresholds {} % → targetThresholds {} % in FILE (the simulation converges in {} \
             with {}, {} of {} off {}; `kdrift rebalance recommend` writes such a policy){detail}{burst}",
            s.resource,
            s.node,
            p.threshold,
            p.target,
            count(p.nights, "night", "nights"),
            count(p.evictions, "eviction", "evictions"),
            format_amount(&s.resource, p.freed),
            s.resource,
            s.node
        ),
        Some((None, Some(why))) => format!(
            "free {need} of {} on {}: move pods elsewhere by hand (delete or scale down a pod there whose \
             controller recreates it on another node); {why}{detail}{burst}",
            s.resource, s.node
        ),
        _ => format!(
            "free {need} of {} on {}: move pods elsewhere (`kdrift rebalance plan`){detail}{burst}",
            s.resource, s.node
        ),
    }
}
