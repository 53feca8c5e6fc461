//! One LowNodeUtilization or HighNodeUtilization run: the nodes with their
//! class, usage and why, the budget, the evictions in descheduler's order,
//! how each source node's loop ended, what was skipped and why.

use std::collections::BTreeMap;
use std::io::Write;

use kdrift_rebalance::{NodeClass, NodeReport, PluginRun, QosClass};
use tabled::builder::Builder;

use super::{amounts, class, counts_cell, frees, limits_cell, num, ordered, rule_cell, skipped, table};
use kdrift_rebalance::percent_text;

/// `underutilized when every one of MetricResource 20 % or less;
/// overutilized when any is above MetricResource 70 %` (a Prometheus
/// source's `MetricResource` is the query's value × 100, as upstream
/// counts it). A failed deviation run never computed its mean: the spans
/// are given around it.
pub(super) fn thresholds_line(plugin: &str, th: &kdrift_rebalance::ThresholdsApplied) -> String {
    if th.deviation && th.averages.is_none() {
        let fmt = |m: &BTreeMap<String, f64>| m.iter().map(|(r, v)| format!("{r} {} %", num(*v))).collect::<Vec<_>>();
        return format!(
            "deviation thresholds: underutilized when every one of {} below the mean or less; overutilized when \
             any is more than {} above it (the mean was not computed)",
            fmt(&th.low).join(", "),
            fmt(&th.high).join(", ")
        );
    }
    if plugin == kdrift_rebalance::HIGH_NODE_UTILIZATION {
        let low = th.low.iter().map(|(r, v)| format!("{r} {} %", num(*v))).collect::<Vec<_>>();
        return format!("underutilized (drained onto the others) when every one of {} or less", low.join(", "));
    }
    let fmt = |m: &BTreeMap<String, f64>| m.iter().map(|(r, v)| format!("{r} {} %", num(*v))).collect::<Vec<_>>();
    let mut line = format!(
        "underutilized when every one of {} or less; overutilized when any is above {}",
        fmt(&th.low).join(", "),
        fmt(&th.high).join(", ")
    );
    if let Some(avg) = &th.averages {
        line.push_str(&format!(" (deviation thresholds around the mean: {})", fmt(avg).join(", ")));
    }
    line
}

/// `usage: measured (KubernetesMetrics, latest sample (≤ 5m old)); percentages are used, not requested`.
pub(super) fn usage_source_line(u: &kdrift_rebalance::UsageSource) -> String {
    let mut line = format!("usage: measured ({:?}, {})", u.source, u.reading);
    if let Some(q) = &u.query {
        line.push_str(&format!("; query {q:?}"));
    }
    if let Some(s) = &u.stand_in {
        line.push_str(&format!("; kdrift used {s}"));
    }
    if u.source == kdrift_rebalance::MetricsSource::Prometheus {
        // Upstream's count: capacity 100, usage int64(value × 100).
        line.push_str("; MetricResource % = the query's value × 100, truncated (descheduler's count)");
    } else {
        line.push_str("; percentages are used, not requested");
    }
    line
}

/// `97.1 % > 80`, `29.0 % ≤ 50`, `60.0 %`; `≥29.0 % ≤ 50` for a lower bound.
fn usage_cell(n: &NodeReport, resource: &str, lower_bound: bool) -> String {
    let Some(u) = n.resources.iter().find(|u| u.resource == resource) else { return "-".into() };
    if u.allocatable.is_none() {
        return "- (none)".into();
    }
    let pct = format!("{}{} %", if lower_bound { "≥" } else { "" }, percent_text(u.percent));
    match (u.low, u.high) {
        (_, Some(h)) if u.percent > h => format!("{pct} > {}", num(h)),
        (Some(l), _) if u.percent <= l => format!("{pct} ≤ {}", num(l)),
        _ => pct,
    }
}

/// A node's class as the plugin uses it: LowNodeUtilization drains the
/// overutilized nodes onto the underutilized ones; HighNodeUtilization
/// drains the UNDERUTILIZED ones onto every other (a `destination`, whatever
/// its usage: HighNodeUtilization has no upper threshold).
fn node_class(c: NodeClass, high: bool) -> &'static str {
    match (high, c) {
        (true, NodeClass::Underutilized) => "UNDERUTILIZED",
        (true, _) => "destination",
        (false, c) => class(c),
    }
}

/// Renders a LowNodeUtilization or HighNodeUtilization run.
pub(super) fn utilization_run<W: Write>(
    out: &mut W,
    run: &PluginRun,
    lower_bound_nodes: &[String],
) -> anyhow::Result<()> {
    writeln!(out, "Profile {} — {}: {}", run.profile, run.plugin, thresholds_line(&run.plugin, &run.thresholds))?;
    if let Some(u) = &run.usage_source {
        writeln!(out, "  {}", usage_source_line(u))?;
    }
    // The early exit is said once, after the table.
    for n in run.notes.iter().filter(|n| run.early_exit.as_ref().is_none_or(|e| &e.message != *n)) {
        writeln!(out, "  {n}")?;
    }
    if run.error.is_some() && run.nodes.is_empty() {
        // Nothing was classified: no empty table.
        writeln!(out, "  FAILED with the error above: nothing is classified or evicted by this plugin this cycle")?;
        return Ok(());
    }
    let high = run.plugin == kdrift_rebalance::HIGH_NODE_UTILIZATION;
    let resources = ordered(&run.tracked_resources);
    let mut b = Builder::default();
    let mut header = vec!["NODE".to_string(), "CLASS".to_string()];
    header.extend(resources.iter().map(|r| r.to_uppercase()));
    header.push("WHY".to_string());
    b.push_record(header);
    for n in &run.nodes {
        let mut row = vec![
            if n.unschedulable { format!("{} (cordoned)", n.name) } else { n.name.clone() },
            node_class(n.class, high).to_string(),
        ];
        let lower = lower_bound_nodes.contains(&n.name);
        row.extend(resources.iter().map(|r| usage_cell(n, r, lower)));
        row.push(n.why.clone());
        b.push_record(row);
    }
    table(out, b)?;
    if run.nodes.iter().any(|n| lower_bound_nodes.contains(&n.name)) {
        writeln!(out, "  ≥ lower bound: the store lacks pods or their requests (see the notes)")?;
    }
    if let Some(e) = &run.early_exit {
        writeln!(out, "  stops here: {}", e.message)?;
        return Ok(());
    }
    if let Some(budget) = &run.budget {
        writeln!(
            out,
            "  budget (room on the underutilized nodes up to their targets): {}; left after the evictions: {}",
            amounts(&budget.initial, true),
            amounts(&budget.remaining, true)
        )?;
    }
    if !run.evictions.is_empty() {
        writeln!(out)?;
        writeln!(out, "Evictions, in descheduler's order")?;
        let removable: BTreeMap<&str, usize> =
            run.source_nodes.iter().map(|s| (s.node.as_str(), s.removable)).collect();
        let mut b = Builder::default();
        let with_limits = run.evictions.iter().any(|e| limits_cell(&e.counted).is_some());
        let mut header = vec!["#", "POD", "FROM", "RULE", "FREES"];
        if with_limits {
            header.push("COUNTS AGAINST");
        }
        // -o wide: the policy profile the eviction is in and the pod's uid.
        let wide = crate::format::wide();
        if wide {
            header.extend(["PROFILE", "UID"]);
        }
        b.push_record(header);
        for e in &run.evictions {
            let prio = e.priority.map_or("no priority".to_string(), |p| format!("priority {p}"));
            let qos = match e.qos {
                QosClass::BestEffort => "BestEffort",
                QosClass::Burstable => "Burstable",
                QosClass::Guaranteed => "Guaranteed",
            };
            let of = removable.get(e.source_node.as_str()).copied().unwrap_or(0);
            let prefer = if e.prefer_no_eviction { ", prefer-no-eviction" } else { "" };
            let mut row = vec![
                e.order.to_string(),
                e.pod.key(),
                e.source_node.clone(),
                rule_cell(e, format!("#{} of {of}: {prio}, {qos}{prefer}", e.rank_on_node)),
                if e.refused_by_pdb.is_some() { "nothing".to_string() } else { frees(&e.frees) },
            ];
            if with_limits {
                row.push(counts_cell(e));
            }
            if wide {
                row.extend([e.profile.clone(), e.pod.uid.clone().unwrap_or_else(|| "-".into())]);
            }
            b.push_record(row);
        }
        table(out, b)?;
        writeln!(
            out,
            "  order on each node: lowest priority first, then BestEffort before Burstable before Guaranteed, then \
             pods without the prefer-no-eviction annotation; ties by namespace/name"
        )?;
    }
    for s in &run.source_nodes {
        let why = run.nodes.iter().find(|n| n.name == s.node).map(|n| n.why.clone()).unwrap_or_default();
        writeln!(
            out,
            "  {}: {why}; {} of {} removable pod(s) evicted ({} not removable); stopped: {}",
            s.node, s.evicted, s.removable, s.non_removable, s.stop_message
        )?;
    }
    skipped(out, run, &source_nodes_skipped(&run.source_nodes))?;
    Ok(())
}

/// Whose pods the `Not evicted` list of a utilization run holds, with the
/// two kinds the source nodes' lines count apart, so that the numbers add
/// up: `on the source nodes: 4 not removable, 1 removable but not evicted`
/// (a new user read the node's `4 not removable` against `Not evicted: 5`).
fn source_nodes_skipped(sources: &[kdrift_rebalance::SourceNode]) -> String {
    let not_removable: usize = sources.iter().map(|s| s.non_removable).sum();
    let left: usize = sources.iter().map(|s| s.removable.saturating_sub(s.evicted)).sum();
    match (not_removable, left) {
        (_, 0) => format!("on the source nodes: {not_removable} not removable"),
        (0, _) => format!("on the source nodes: {left} removable but not evicted"),
        _ => format!("on the source nodes: {not_removable} not removable, {left} removable but not evicted"),
    }
}

#[cfg(test)]
mod tests {
    use kdrift_rebalance::{SourceNode, StopReason};

    fn source(node: &str, removable: usize, non_removable: usize, evicted: usize) -> SourceNode {
        SourceNode {
            node: node.into(),
            usage_sum: 0,
            removable,
            non_removable,
            evicted,
            stop: StopReason::CandidatesExhausted,
            stop_message: String::new(),
        }
    }

    #[test]
    fn the_not_evicted_count_is_split_as_the_source_nodes_lines_count() {
        // node-1: 4 not removable, 3 removable of which 2 evicted: 5 not evicted.
        let one = [source("node-1", 3, 4, 2)];
        assert_eq!(
            super::source_nodes_skipped(&one),
            "on the source nodes: 4 not removable, 1 removable but not evicted"
        );
        let two = [source("node-1", 2, 4, 2), source("node-2", 1, 0, 1)];
        assert_eq!(super::source_nodes_skipped(&two), "on the source nodes: 4 not removable");
        assert_eq!(
            super::source_nodes_skipped(&[source("node-1", 3, 0, 1)]),
            "on the source nodes: 2 removable but not evicted"
        );
    }
}
