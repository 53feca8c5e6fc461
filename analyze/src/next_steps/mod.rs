//! Next steps for a pending pod, per reason kind, most direct first: a fix
//! with a number when the state is known (the largest request that would fit
//! the node that is left), then rebalancing, then the constraint to relax.
//!
//! `room` makes the steps that need room on a node (a smaller request,
//! moving pods, uncordoning); `reasons` the step for each reason of the
//! event (taints, affinity, volumes, …).

mod reasons;
mod resolved;
mod room;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use kdrift_rebalance::percent_text;
use serde::Serialize;

use crate::pending::{NodeLine, PendingReport, Shortfall, StateAtFailure, EXPLAINED_NODES};
use reasons::reason_action;
pub use resolved::RESOLVED_BY_ITSELF_SECONDS;
use room::{cordoned_takers, is_cordon, room_action, smaller_request_steps};

/// One suggested action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NextStep {
    /// What it addresses (`Insufficient cpu`, `node(s) didn't match pod affinity rules`).
    pub addresses: String,
    /// What to do, with the numbers that justify it; it does not repeat
    /// `addresses` (shown next to it as `[Insufficient cpu] lower …`).
    pub action: String,
}

/// The next steps for a report, ranked: a cordoned node that would take the
/// pod first (uncordoning it is the whole fix), then the numbers (the
/// request that fits the most nodes that are left), then making room, then
/// the constraint to relax.
/// A pod bound within [`RESOLVED_BY_ITSELF_SECONDS`] of its first failure
/// gets one "resolved by itself" step per reason instead.
pub fn next_steps(report: &PendingReport) -> Vec<NextStep> {
    if let Some(steps) = resolved::resolved_by_itself(report) {
        return steps;
    }
    let mut steps = Vec::new();
    let state = report.state.as_ref();
    // 0. A cordoned node that passes every other filter takes the pod once uncordoned.
    let takers = state.map(cordoned_takers).unwrap_or_default();
    if let Some(first) = takers.first() {
        steps.push(NextStep {
            addresses: "node(s) were unschedulable".into(),
            action: format!(
                "uncordon {first} (`kubectl uncordon {first}`): it is cordoned and passes every other filter for \
                 this pod{}",
                match &takers[1..] {
                    [] => String::new(),
                    more => format!(" (so would {})", more.join(", ")),
                }
            ),
        });
    }
    // 1. Numbers first: the largest request that fits a node that is left.
    if let Some(state) = state {
        // Only a node that passes every other constraint can be a fix; when
        // none does, the shortfalls are information, not advice.
        let left: HashSet<&str> = state.left.iter().map(String::as_str).collect();
        let advised = advised_nodes(state, &left);
        // The emptiest node per resource, and the second one for when the
        // emptiest is the short node itself: one pass over the nodes, not
        // one per shortfall (5,000 × 5,000 on a large cluster).
        let mut emptiest_of: HashMap<&str, [Option<(&NodeLine, f64)>; 2]> = HashMap::new();
        for n in &state.nodes {
            for r in &n.resources {
                let best = emptiest_of.entry(r.resource.as_str()).or_insert([None, None]);
                if best[0].is_none_or(|(_, p)| r.percent < p) {
                    best[1] = best[0];
                    best[0] = Some((n, r.percent));
                } else if best[1].is_none_or(|(_, p)| r.percent < p) {
                    best[1] = Some((n, r.percent));
                }
            }
        }
        let node_of: HashMap<&str, &NodeLine> = state.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
        let advised_shortfalls: Vec<&Shortfall> = state
            .shortfalls
            .iter()
            .filter(|s| left.contains(s.node.as_str()) && advised.contains(s.node.as_str()))
            .collect();
        steps.extend(smaller_request_steps(state, &advised_shortfalls));
        for s in advised_shortfalls {
            let emptiest = emptiest_of
                .get(s.resource.as_str())
                .and_then(|best| best.iter().flatten().find(|(n, _)| n.name != s.node).copied());
            let node_pct = node_of
                .get(s.node.as_str())
                .and_then(|n| n.resources.iter().find(|r| r.resource == s.resource))
                .map(|r| r.percent);
            let detail = match (node_pct, emptiest) {
                (Some(p), Some((n, percent))) => {
                    format!(
                        " ({} is at {} % {} requested, {} at {} %)",
                        s.node,
                        percent_text(p),
                        s.resource,
                        n.name,
                        percent_text(percent)
                    )
                }
                _ => String::new(),
            };
            let burst = report
                .why_full
                .as_ref()
                .and_then(|w| w.fills.iter().find(|f| f.node == s.node))
                .and_then(|f| f.bursts.first())
                .map(|b| format!("; it filled up in drain #{}: {}", b.operation, b.summary))
                .unwrap_or_default();
            let relief = report.relief.iter().find(|r| r.node == s.node && r.resource == s.resource);
            steps.push(NextStep {
                addresses: format!("Insufficient {}", s.resource),
                action: room_action(state, s, relief, &detail, &burst),
            });
        }
    }
    // 1b. Refused by the kubelet after the scheduler bound it: the two
    // counted the node differently.
    if let Some(step) = report.history.rejected.as_ref().and_then(admission_step) {
        steps.push(step);
    }
    // 2. Per reason.
    for r in &report.reasons {
        if !takers.is_empty() && is_cordon(r.kind, &r.reason) {
            continue;
        }
        if let Some(action) = reason_action(r, report) {
            steps.push(NextStep { addresses: r.reason.clone(), action });
        }
    }
    steps
}

/// The step for a pod the kubelet refused at admission with its own count
/// (`OutOfcpu`: `requested: 500, used: 1775, capacity: 2000`): the
/// scheduler saw room the kubelet did not: one hypothesis, stated as
/// likely, is pods the scheduler does not count (static pods, pods given
/// `spec.nodeName` directly; kubelet `lifecycle.InsufficientResourceError`).
fn admission_step(r: &crate::pending::KubeletRejection) -> Option<NextStep> {
    let c = r.counted.as_ref()?;
    let amount = |v: i64| c.amount(v);
    Some(NextStep {
        addresses: r.reason.clone(),
        action: format!(
            "the scheduler bound the pod to {node} but the kubelet counted {} of {} {} already requested there \
             ({} short): likely pods the scheduler does not count hold the difference (for example static pods, \
             pods given spec.nodeName directly, or pods it had not yet seen bound); compare `kubectl describe node {node}` (Non-terminated Pods) with the pods \
             the scheduler placed there. The refused pod stays Failed: its controller, if it has one, creates a \
             replacement",
            amount(c.used),
            amount(c.capacity),
            c.resource,
            amount(c.short()),
            node = r.node
        ),
    })
}

/// The short nodes that get advice: all of them, or, when more than
/// [`EXPLAINED_NODES`] nodes that are left are short, the same ones
/// `why_full` explains (smallest shortfall of their first short resource,
/// then name): a pod that fits nowhere on 5,000 nodes gets a few steps, not
/// 10,000.
fn advised_nodes<'a>(state: &'a StateAtFailure, left: &HashSet<&str>) -> HashSet<&'a str> {
    let mut first_short: Vec<(&str, i64)> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for s in state.shortfalls.iter().filter(|s| left.contains(s.node.as_str())) {
        if seen.insert(s.node.as_str()) {
            first_short.push((s.node.as_str(), s.short));
        }
    }
    if first_short.len() > EXPLAINED_NODES {
        first_short.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
        first_short.truncate(EXPLAINED_NODES);
    }
    first_short.into_iter().map(|(n, _)| n).collect()
}
