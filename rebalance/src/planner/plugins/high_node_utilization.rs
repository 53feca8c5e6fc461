//! `HighNodeUtilization` planned: which pods descheduler v0.36 would evict
//! from underutilized nodes so the scheduler can pack them elsewhere, and why
//! the others stay.
//!
//! Source: descheduler v0.36 `nodeutilization/highnodeutilization.go` and the
//! shared `evictPodsFromSourceNodes` / `evictPods`; descheduler-plugins.md §3.3.
//! Usage and percentages are LowNodeUtilization's (requests; `cpu`, `memory`,
//! `pods` always tracked). A node is underutilized when its usage is at or
//! below every threshold (inclusive) — cordoned nodes too, and they are
//! drained; any other schedulable node is a destination (reported as
//! `Overutilized`, as upstream's "Node has been classified" log labels it); a
//! cordoned node that is not underutilized is neither (`AppropriatelyUtilized`).
//! The budget is Σ over destinations of allocatable − usage (a node lacking
//! the resource gives −usage); sources go by ascending usage sum, ties by
//! name (upstream's sort is unstable). The per-pod loop is LowNodeUtilization's
//! ([`crate::planner::run`]): taint check against the destinations with the
//! `PodToleratesTaints` quirk, excluded namespaces, PreEvictionFilter, the
//! cycle limits; it goes on while every budget resource is > 0.
//! `OnlyThresholdingResources`: a pod is removable only when some container
//! or init container has a `requests` entry (0 counts) for a threshold
//! resource other than `pods`.
//!
//! The fourth early exit ("No node is available to schedule the pods") is
//! reported with kind `NoOverutilizedNode` and upstream's message; every
//! early exit's message is also in `run.notes`.

use crate::model::percent::percent_text;
use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, PODS};
use crate::planner::budget::caps;
use crate::planner::classify::{early_exit, pct_of, report_as, tracked_of, NodeState};
use crate::planner::cycle::Cycle;
use crate::planner::order::rule;
use crate::planner::plan::{Budget, EarlyExitKind, NodeClass, PluginRun, SkipReason, StopReason, ThresholdsApplied};
use crate::planner::run::{budget_gone, Drain};
use crate::policy::{ExtensionPoint, HighNodeUtilizationArgs, Profile, HIGH_NODE_UTILIZATION};

/// descheduler v0.36's fourth HighNodeUtilization early exit.
pub const NO_NODE_TO_SCHEDULE: &str = "No node is available to schedule the pods, nothing to do here";

/// The class of one node under `args`, and why (with the numbers).
fn classify(n: &NodeState<'_>, args: &HighNodeUtilizationArgs) -> (NodeClass, String) {
    let fmt = |r: &str, op: &str, limit: f64| format!("{r} {} % {op} {limit}", percent_text(pct_of(n, r)));
    let above: Vec<String> =
        args.thresholds.iter().filter(|(r, t)| **t < pct_of(n, r)).map(|(r, t)| fmt(r, ">", *t)).collect();
    if above.is_empty() {
        let parts: Vec<String> = args.thresholds.iter().map(|(r, t)| fmt(r, "≤", *t)).collect();
        let cordoned = if n.node.unschedulable { " (cordoned, drained all the same)" } else { "" };
        return (NodeClass::Underutilized, format!("every threshold met: {}{cordoned}", parts.join(", ")));
    }
    if n.node.unschedulable {
        return (
            NodeClass::AppropriatelyUtilized,
            format!("Node is unschedulable: neither drained nor a destination (above {})", above.join(", ")),
        );
    }
    (NodeClass::Overutilized, format!("above a threshold ({}): a destination for the evicted pods", above.join(", ")))
}

/// `OnlyThresholdingResources`: some (init) container requests a threshold
/// resource other than `pods` (an entry of 0 counts).
fn requests_a_threshold_resource(pod: &PodInfo, args: &HighNodeUtilizationArgs) -> bool {
    pod.containers
        .iter()
        .chain(&pod.rare.init_containers)
        .any(|c| args.thresholds.keys().any(|r| r != PODS && c.requests.contains(r)))
}

/// Runs `HighNodeUtilization` for `profile` with `args` in the cycle.
pub(crate) fn run(cycle: &mut Cycle<'_>, profile: &Profile, args: &HighNodeUtilizationArgs) -> PluginRun {
    let tracked = tracked_of(args.thresholds.keys());
    let states = cycle.node_states(&tracked);
    let applied =
        ThresholdsApplied { deviation: false, averages: None, low: args.thresholds.clone(), high: Default::default() };
    let nodes: Vec<_> = states
        .iter()
        .map(|s| {
            let (class, why) = classify(s, args);
            report_as(s, &applied, &tracked, class, why)
        })
        .collect();
    let of_class = |c: NodeClass| -> Vec<usize> { (0..states.len()).filter(|i| nodes[*i].class == c).collect() };
    let mut under = of_class(NodeClass::Underutilized);
    let schedulable = of_class(NodeClass::Overutilized);
    let mut run = PluginRun::new(&profile.name, HIGH_NODE_UTILIZATION, ExtensionPoint::Balance);
    run.thresholds = applied;
    run.tracked_resources = tracked.clone();
    run.nodes = nodes;
    run.early_exit = early_exit(under.len(), schedulable.len(), states.len(), args.number_of_nodes).map(|mut e| {
        if e.kind == EarlyExitKind::NoOverutilizedNode {
            e.message = NO_NODE_TO_SCHEDULE.to_string();
        }
        e
    });
    if let Some(e) = &run.early_exit {
        run.notes.push(e.message.clone());
    }
    if run.early_exit.is_some() || cycle.usage_given.is_some() {
        return run;
    }
    let node_caps: Vec<ResourceList> = states.iter().map(|s| caps(s.node, &tracked, &run.thresholds.high)).collect();
    let mut budget: ResourceList = tracked.iter().map(|r| (r.clone(), 0)).collect();
    for &i in &schedulable {
        budget.add(&node_caps[i].minus(&states[i].usage));
    }
    let initial = budget.clone();
    // Ascending usage sum, ties by name (upstream's sort is unstable).
    under.sort_by(|a, b| {
        (run.nodes[*a].usage_sum, &run.nodes[*a].name).cmp(&(run.nodes[*b].usage_sum, &run.nodes[*b].name))
    });
    let why: Vec<(String, String)> =
        under.iter().map(|&i| (run.nodes[i].name.clone(), run.nodes[i].why.clone())).collect();
    let only = args.only_thresholding_resources();
    let thresholds: Vec<&String> = args.thresholds.keys().collect();
    let removable = |pod: &PodInfo| -> Option<SkipReason> {
        (only && !requests_a_threshold_resource(pod, args)).then(|| SkipReason::Rule {
            rule: "requests-no-threshold-resource".to_string(),
            message: format!(
                "evictionModes OnlyThresholdingResources: no container requests any threshold resource ({})",
                thresholds.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
            upstream: false,
        })
    };
    let stop =
        |_: &ResourceList, _: &ResourceList, budget: &ResourceList| -> Option<StopReason> { budget_gone(budget) };
    let explain = |pod: &PodInfo, rank: usize, total: usize, node: &str| -> String {
        let because = why.iter().find(|(n, _)| n == node).map_or("", |(_, w)| w.as_str());
        format!(
            "{node} is underutilized ({because}), so HighNodeUtilization drains it; {}",
            rule(pod, rank, total, node)
        )
    };
    let evictor = cycle.evictor(profile);
    let drain = Drain {
        plugin: HIGH_NODE_UTILIZATION,
        tracked: &tracked,
        destinations: schedulable.iter().map(|&i| states[i].node.taints.as_slice()).collect(),
        excluded: args.excluded_namespaces(),
        node_limit: None,
        skip_zero_request: false,
        removable: &removable,
        stop: &stop,
        rule: &explain,
        pod_usage: None,
        rank_by_usage: false,
    };
    cycle.drain(&mut run, &evictor, &drain, &under, &states, &node_caps, &mut budget);
    run.budget = Some(Budget { initial, remaining: budget });
    run
}
