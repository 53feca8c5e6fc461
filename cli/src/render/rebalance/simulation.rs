//! `--simulate` and `--rounds`: where each evicted pod lands and what that
//! does to every node; one line per night and the verdict.

use std::collections::BTreeMap;
use std::io::Write;

use kdrift_rebalance::{LandingOutcome, NodeChange, NodeClass, Round, Rounds, ScoringConfig, Severity, Simulation};
use tabled::builder::Builder;

use kdrift_rebalance::{percent_text, tenths, Verdict};

use super::{ordered, t, table};

/// `97.1 → 72.0 %`; `≥97.1 → ≥72.0 %` when the node's amounts are a lower
/// bound (as the plan's table marks them).
fn change_cell(n: &NodeChange, resource: &str, lower_bound: bool) -> String {
    let ge = if lower_bound { "≥" } else { "" };
    match (n.percent_before(resource), n.percent_after(resource)) {
        (Some(b), Some(a)) if tenths(a) == tenths(b) => format!("{ge}{} %", percent_text(b)),
        (Some(b), Some(a)) => format!("{ge}{} → {ge}{} %", percent_text(b), percent_text(a)),
        _ => "-".into(),
    }
}

/// `NodeResourcesFit MostAllocated (cpu 1, memory 1) from FILE`, or `…, the
/// default profile` when nothing was configured.
pub(super) fn scoring_text(scoring: &ScoringConfig) -> String {
    match &scoring.source {
        Some(source) => format!("{} from {source}", scoring.describe()),
        None => format!("{}, the default profile", scoring.describe()),
    }
}

pub(super) fn simulation<W: Write>(out: &mut W, s: &Simulation, lower_bound_nodes: &[String]) -> anyhow::Result<()> {
    writeln!(
        out,
        "Landing simulation (kube-scheduler filters and scores: {}; a tie goes on with the first node by name)",
        scoring_text(&s.scoring)
    )?;
    if s.landings.is_empty() {
        writeln!(out, "  nothing is evicted, nothing lands")?;
    } else {
        let mut b = Builder::default();
        b.push_record(["#", "POD", "FROM", "LANDS ON", "SCORE", "OWNER"]);
        for l in &s.landings {
            let (node, score) = match &l.outcome {
                LandingOutcome::Scheduled { node, score, tie_with, .. } if tie_with.is_empty() => {
                    (node.clone(), score.to_string())
                }
                LandingOutcome::Scheduled { node, score, tie_with, .. } => {
                    (format!("{node} (TIE with {})", tie_with.join(", ")), score.to_string())
                }
                LandingOutcome::Unschedulable { message } => (format!("UNSCHEDULABLE: {message}"), "-".into()),
                LandingOutcome::NotRecreated => ("NOT RECREATED (no controller)".into(), "-".into()),
            };
            b.push_record([
                l.order.to_string(),
                l.pod.key(),
                l.source_node.clone(),
                node,
                score,
                l.owner.clone().unwrap_or_else(|| "-".into()),
            ]);
        }
        table(out, b)?;
    }
    writeln!(out)?;
    writeln!(out, "Requested before → after")?;
    let mut resources = ordered(&s.tracked_resources);
    // A Prometheus source's MetricResource is the query's value, which no
    // pod's requests move: `-` on every row says nothing (new-user trial 43).
    resources.retain(|r| {
        r != kdrift_rebalance::METRIC_RESOURCE
            || s.nodes.iter().any(|n| change_cell(n, r, lower_bound_nodes.contains(&n.node)) != "-")
    });
    let mut b = Builder::default();
    let mut header = vec!["NODE".to_string()];
    header.extend(resources.iter().map(|r| r.to_uppercase()));
    header.extend(["OUT".to_string(), "IN".to_string()]);
    b.push_record(header);
    for n in &s.nodes {
        let mut row = vec![if n.schedulable { n.node.clone() } else { format!("{} (unschedulable)", n.node) }];
        let lower = lower_bound_nodes.contains(&n.node);
        row.extend(resources.iter().map(|r| change_cell(n, r, lower)));
        row.push(n.pods_out.to_string());
        row.push(n.pods_in.to_string());
        b.push_record(row);
    }
    table(out, b)?;
    if s.nodes.iter().any(|n| lower_bound_nodes.contains(&n.node)) {
        writeln!(out, "  ≥ lower bound: the store lacks pods or their requests (see the notes)")?;
    }
    if let (Some(before), Some(after)) = (s.cpu_skew_before, s.cpu_skew_after) {
        writeln!(
            out,
            "  cpu skew (highest − lowest requested % over the schedulable nodes): {} → {} points",
            percent_text(before),
            percent_text(after)
        )?;
    }
    if let Some(p) = &s.predicted_usage {
        predicted(out, p)?;
    }
    if !s.warnings.is_empty() {
        writeln!(out)?;
        writeln!(out, "Landing warnings")?;
        for w in &s.warnings {
            let sev = match w.severity {
                Severity::Critical => "CRITICAL",
                Severity::Warning => "warning",
                Severity::Info => "info",
            };
            writeln!(out, "  - {sev}: {}", w.message)?;
        }
    }
    Ok(())
}

/// The measured side: used % before and predicted after the moves.
fn predicted<W: Write>(out: &mut W, p: &kdrift_rebalance::PredictedUsage) -> anyhow::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "Used before → predicted after ({}; a moved pod takes its measured usage to its new node; beyond descheduler)",
        p.reading
    )?;
    let mut b = Builder::default();
    b.push_record(["NODE", "CPU USED", "MEMORY USED"]);
    let cell = |c: Option<&kdrift_rebalance::UsedChange>| match c.map(|c| (c.percent_before, c.percent_after)) {
        Some((Some(b), Some(a))) if tenths(a) == tenths(b) => format!("{} %", percent_text(b)),
        Some((Some(b), Some(a))) => format!("{} → {} %", percent_text(b), percent_text(a)),
        _ => "- (no reading)".into(),
    };
    for n in &p.nodes {
        b.push_record([n.node.clone(), cell(n.resource("cpu")), cell(n.resource("memory"))]);
    }
    table(out, b)?;
    if !p.unmeasured_pods.is_empty() {
        writeln!(out, "  moved without a reading (left out): {}", p.unmeasured_pods.join(", "))?;
    }
    for h in &p.hot_landings {
        writeln!(out, "  verdict: {}", h.message)?;
    }
    Ok(())
}

/// `node-5 ×4, node-4 ×1`, `1 UNSCHEDULABLE`.
fn landings_summary(r: &Round) -> String {
    let mut to: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut pending, mut gone) = (0, 0);
    for l in &r.simulation.landings {
        match &l.outcome {
            LandingOutcome::Scheduled { node, .. } => *to.entry(node.as_str()).or_insert(0) += 1,
            LandingOutcome::Unschedulable { .. } => pending += 1,
            LandingOutcome::NotRecreated => gone += 1,
        }
    }
    let mut parts: Vec<String> = to.into_iter().map(|(n, c)| format!("{n} ×{c}")).collect();
    if pending > 0 {
        parts.push(format!("{pending} UNSCHEDULABLE"));
    }
    if gone > 0 {
        parts.push(format!("{gone} NOT RECREATED"));
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(", ")
    }
}

pub(super) fn nights<W: Write>(out: &mut W, rounds: &Rounds) -> anyhow::Result<()> {
    writeln!(out, "Night after night (plan → land → plan again)")?;
    let mut b = Builder::default();
    b.push_record(["NIGHT", "AT", "OVERUTILIZED", "UNDERUTILIZED", "EVICTIONS", "LANDINGS", "NOTE"]);
    for r in &rounds.rounds {
        let of = |c: NodeClass| {
            let names: Vec<&str> = r.classes.iter().filter(|(_, k)| **k == c).map(|(n, _)| n.as_str()).collect();
            if names.is_empty() {
                "-".to_string()
            } else {
                names.join(", ")
            }
        };
        let mut note = Vec::new();
        if let Some(p) = r.pile_up() {
            note.push(format!("pile-up: {} of {} on {}", p.count, p.of, p.node));
        }
        if let Some(e) = &r.early_exit {
            note.push(e.message.clone());
        }
        if let Some(a) = &r.aborted {
            note.push(a.clone());
        }
        b.push_record([
            r.number.to_string(),
            t(r.now),
            of(NodeClass::Overutilized),
            of(NodeClass::Underutilized),
            r.evictions.to_string(),
            landings_summary(r),
            note.join("; "),
        ]);
    }
    table(out, b)?;
    let verdict = match &rounds.verdict {
        Verdict::Converged { rounds: 0 } => "CONVERGED: nothing to do, no node is above its target".to_string(),
        Verdict::Converged { rounds } => {
            format!("CONVERGED after {}: no node is above its target any more", crate::render::nights(*rounds as u64))
        }
        Verdict::Stalled { round, reason } => format!("STALLED at night {round}: {reason}"),
        Verdict::NothingToDo { reason } => format!("NOTHING TO DO: {reason}"),
        Verdict::Limit { rounds } => {
            format!("LIMIT: every one of the {} still evicted something", crate::render::nights(*rounds as u64))
        }
    };
    if let Verdict::NothingToDo { .. } = rounds.verdict {
        writeln!(out, "  {verdict}")?;
        return Ok(());
    }
    writeln!(
        out,
        "  {verdict} ({} eviction(s) in total, {} left Pending, {} with a pile-up)",
        rounds.total_evictions(),
        rounds.total_unschedulable(),
        crate::render::nights(rounds.pile_ups() as u64)
    )?;
    if !rounds.loops.is_empty() {
        let lines = loop_lines(&rounds.loops);
        writeln!(out, "  Loops: {} pod(s) evicted again the night after", lines.len())?;
        for line in lines.iter().take(LOOPS_SHOWN) {
            writeln!(out, "    {line}")?;
        }
        if lines.len() > LOOPS_SHOWN {
            writeln!(out, "    … (+{} more; -o json lists them all)", lines.len() - LOOPS_SHOWN)?;
        }
    }
    Ok(())
}

/// One line per pod of the loops (a pod evicted nights 1, 2 and 3 has two
/// loops, and was listed twice and counted as two pods): its evictions in
/// night order, where it landed after each.
fn loop_lines(loops: &[kdrift_rebalance::EvictionLoop]) -> Vec<String> {
    let mut order: Vec<&str> = Vec::new();
    let mut by_pod: BTreeMap<&str, Vec<&kdrift_rebalance::EvictionLoop>> = BTreeMap::new();
    for l in loops {
        let pods = by_pod.entry(l.pod.as_str()).or_default();
        if pods.is_empty() {
            order.push(l.pod.as_str());
        }
        pods.push(l);
    }
    order
        .into_iter()
        .map(|pod| {
            let mut ls = by_pod.remove(pod).unwrap_or_default();
            ls.sort_by_key(|l| l.round);
            let mut parts: Vec<String> = Vec::new();
            for (i, l) in ls.iter().enumerate() {
                let landed = l.landed_on.as_deref().map_or("stayed Pending".to_string(), |n| format!("landed on {n}"));
                // The night before's "again" is this one's eviction: said once.
                if i == 0 || ls[i - 1].round + 1 != l.round {
                    parts.push(format!("evicted night {} by {}", l.round, l.plugin));
                }
                parts.push(landed);
                parts.push(format!("evicted again night {} by {}", l.round + 1, l.again_by));
            }
            format!("{pod}: {}", parts.join(", "))
        })
        .collect()
}

/// Loops listed by name before `… (+N more)`.
const LOOPS_SHOWN: usize = 10;
