//! Node usage, percentages, thresholds and classification.
//!
//! Source: descheduler v0.36 `nodeutilization.go` / `lownodeutilization.go`:
//! `ResourceUsageToResourceThreshold` (percent = used / allocatable * 100,
//! cpu in millicores, 0 % on a zero capacity, no clamping),
//! `assessNodesUsagesAndStaticThresholds` / `...RelativeThresholds`,
//! `isNodeBelowThreshold` (inclusive <=, every threshold resource) and
//! `isNodeAboveThreshold` (strict >, any target resource), with unschedulable
//! nodes never underutilized.

use std::collections::BTreeMap;

use super::budget::cap;
use super::plan::{EarlyExit, EarlyExitKind, NodeClass, NodeReport, ResourceUsage, ThresholdsApplied};
use crate::model::node::NodeInfo;
use crate::model::percent::percent_text;
use crate::model::pod::PodInfo;
use crate::model::resources::{ResourceList, CPU, MEMORY, PODS};
use crate::policy::LowNodeUtilizationArgs;

/// A considered node with the pods counting toward it.
pub(crate) struct NodeState<'a> {
    pub(crate) node: &'a NodeInfo,
    /// Indices into `Snapshot::pods`, in snapshot order.
    pub(crate) pods: Vec<usize>,
    /// Usage per tracked resource (every tracked resource has an entry).
    pub(crate) usage: ResourceList,
    /// Percent per tracked resource; `None` when the node lacks the resource
    /// (descheduler then has no entry, which reads as 0).
    pub(crate) percent: BTreeMap<String, Option<f64>>,
    /// With `metricsUtilization`: how the node's usage was measured, e.g.
    /// `latest sample 30s before the plan`; the reasons then say "used".
    pub(crate) measured: Option<String>,
}

/// Threshold keys plus `cpu`, `memory`, `pods`, sorted.
/// Source: descheduler v0.36 `uniquifyResourceNames`.
pub(crate) fn tracked_resources(args: &LowNodeUtilizationArgs) -> Vec<String> {
    tracked_of(args.thresholds.keys())
}

/// `threshold_keys` plus `cpu`, `memory`, `pods`, sorted (LowNodeUtilization
/// and HighNodeUtilization alike). Source: descheduler v0.36 `uniquifyResourceNames`.
pub(crate) fn tracked_of<'k>(threshold_keys: impl Iterator<Item = &'k String>) -> Vec<String> {
    let mut out: Vec<String> = threshold_keys.cloned().collect();
    for r in [CPU, MEMORY, PODS] {
        if !out.iter().any(|x| x == r) {
            out.push(r.to_string());
        }
    }
    out.sort();
    out
}

/// Usage of `pods` on a node for the tracked resources: request sums, and the
/// pod count for `pods`. Source: descheduler `NodeUtilization`.
pub(crate) fn usage_of<'p>(pods: impl Iterator<Item = &'p PodInfo>, tracked: &[String]) -> ResourceList {
    let mut used = ResourceList::new();
    for r in tracked {
        used.set(r, 0);
    }
    let mut count = 0i64;
    for p in pods {
        count += 1;
        for r in tracked {
            if r != PODS {
                used.add(&ResourceList::from_pairs(&[(r.as_str(), p.requests.get(r))]));
            }
        }
    }
    used.set(PODS, count);
    used
}

/// [`usage_of`] from a node's summed requests (`pods`: the pod count) instead
/// of its pods: every tracked resource has an entry, 0 when absent.
pub(crate) fn tracked_usage(given: Option<&ResourceList>, tracked: &[String]) -> ResourceList {
    let mut used = ResourceList::new();
    for r in tracked {
        used.set(r, given.map_or(0, |g| g.get(r)));
    }
    used
}

/// `float64(used) / float64(allocatable) * 100`, 0 when allocatable is 0;
/// `None` when the node lacks the resource.
pub(crate) fn percent(used: i64, allocatable: Option<i64>) -> Option<f64> {
    let cap = allocatable?;
    Some(if cap > 0 { used as f64 / cap as f64 * 100.0 } else { 0.0 })
}

/// The thresholds every node is measured against. Deviation mode: the mean
/// percent over all considered nodes of each threshold resource (nodes
/// lacking it do not count), then `clamp(mean - thresholds, 0, 100)` and
/// `clamp(mean + targetThresholds, 0, 100)`.
pub(crate) fn thresholds(args: &LowNodeUtilizationArgs, nodes: &[NodeState<'_>]) -> ThresholdsApplied {
    if !args.use_deviation_thresholds {
        return ThresholdsApplied {
            deviation: false,
            averages: None,
            low: args.thresholds.clone(),
            high: args.target_thresholds.clone(),
        };
    }
    let mut averages = BTreeMap::new();
    for r in args.thresholds.keys() {
        let values: Vec<f64> = nodes.iter().filter_map(|n| n.percent.get(r).copied().flatten()).collect();
        if !values.is_empty() {
            averages.insert(r.clone(), values.iter().sum::<f64>() / values.len() as f64);
        }
    }
    let shifted = |span: &BTreeMap<String, f64>, sign: f64| -> BTreeMap<String, f64> {
        averages
            .iter()
            .map(|(r, avg)| (r.clone(), (avg + sign * span.get(r).copied().unwrap_or(0.0)).clamp(0.0, 100.0)))
            .collect()
    };
    ThresholdsApplied {
        deviation: true,
        low: shifted(&args.thresholds, -1.0),
        high: shifted(&args.target_thresholds, 1.0),
        averages: Some(averages),
    }
}

/// The node's percent of `r`, 0 when it lacks the resource.
pub(crate) fn pct_of(n: &NodeState<'_>, r: &str) -> f64 {
    n.percent.get(r).copied().flatten().unwrap_or(0.0)
}

/// Classifies one node and says why.
pub(crate) fn classify(n: &NodeState<'_>, t: &ThresholdsApplied) -> (NodeClass, String) {
    let used = if n.measured.is_some() { " used" } else { "" };
    let fmt = |r: &str, op: &str, limit: f64| format!("{r}{used} {} % {op} {limit}", percent_text(pct_of(n, r)));
    let (class, why) = classify_text(n, t, &fmt);
    match &n.measured {
        Some(m) => (class, format!("{why} ({m})")),
        None => (class, why),
    }
}

/// [`classify`] with `fmt` writing each resource's comparison.
fn classify_text(
    n: &NodeState<'_>,
    t: &ThresholdsApplied,
    fmt: &dyn Fn(&str, &str, f64) -> String,
) -> (NodeClass, String) {
    let above: Vec<String> = t.high.iter().filter(|(r, h)| **h < pct_of(n, r)).map(|(r, h)| fmt(r, ">", *h)).collect();
    let below_fails: Vec<String> =
        t.low.iter().filter(|(r, l)| **l < pct_of(n, r)).map(|(r, l)| fmt(r, ">", *l)).collect();
    if n.node.unschedulable && below_fails.is_empty() {
        let why = "Node is unschedulable, thus not considered as underutilized".to_string();
        return if above.is_empty() {
            (NodeClass::AppropriatelyUtilized, why)
        } else {
            (NodeClass::Overutilized, format!("{why}; above target: {}", above.join(", ")))
        };
    }
    if below_fails.is_empty() {
        let parts: Vec<String> = t.low.iter().map(|(r, l)| fmt(r, "≤", *l)).collect();
        return (NodeClass::Underutilized, format!("every threshold met: {}", parts.join(", ")));
    }
    if !above.is_empty() {
        return (NodeClass::Overutilized, format!("above target: {}", above.join(", ")));
    }
    (NodeClass::AppropriatelyUtilized, format!("above a threshold ({}) but no target exceeded", below_fails.join(", ")))
}

/// The raw sum descheduler sorts source nodes by (cpu millicores + memory
/// bytes + pod count + extended units). Source: `sortNodesByUsage`.
pub(crate) fn usage_sum(usage: &ResourceList) -> i64 {
    usage.iter().fold(0i64, |acc, (_, v)| acc.saturating_add(v))
}

/// The per-node report.
pub(crate) fn report(n: &NodeState<'_>, t: &ThresholdsApplied, tracked: &[String]) -> NodeReport {
    let (class, why) = classify(n, t);
    report_as(n, t, tracked, class, why)
}

/// The per-node report with the class (and why) a plugin's own rule gave.
pub(crate) fn report_as(
    n: &NodeState<'_>,
    t: &ThresholdsApplied,
    tracked: &[String],
    class: NodeClass,
    why: String,
) -> NodeReport {
    let resources = tracked
        .iter()
        .map(|r| ResourceUsage {
            resource: r.clone(),
            used: n.usage.get(r),
            allocatable: n.node.allocatable.get_opt(r),
            percent: pct_of(n, r),
            low: t.low.get(r).copied(),
            high: t.high.get(r).copied(),
            cap: cap(n.node, r, t.high.get(r).copied()),
        })
        .collect();
    NodeReport {
        name: n.node.name.clone(),
        class,
        unschedulable: n.node.unschedulable,
        resources,
        usage_sum: usage_sum(&n.usage),
        why,
    }
}

/// The first early exit that applies, in descheduler's order.
pub(crate) fn early_exit(under: usize, over: usize, nodes: usize, number_of_nodes: i64) -> Option<EarlyExit> {
    let kind = if under == 0 {
        EarlyExitKind::NoUnderutilizedNode
    } else if (under as i64) <= number_of_nodes {
        EarlyExitKind::TooFewUnderutilizedNodes
    } else if under == nodes {
        EarlyExitKind::AllNodesUnderutilized
    } else if over == 0 {
        EarlyExitKind::NoOverutilizedNode
    } else {
        return None;
    };
    Some(EarlyExit { kind, message: kind.message().to_string() })
}
