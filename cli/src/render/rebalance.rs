//! Tables for `rebalance plan`: node classes, the budget, the evictions in
//! order, what was skipped and why; with `--simulate` where each replacement
//! lands and what that does to every node; with `--rounds` one line per night
//! and the verdict. For `rebalance recommend`: one line per threshold →
//! target candidate, then the recommended policy.

use std::collections::BTreeMap;
use std::io::Write;

use chrono::{DateTime, Utc};
use kdrift_rebalance::format_amount;
use kdrift_rebalance::ResourceThresholds;
use kdrift_rebalance::{percent_text, tenths, threshold_text};
use kdrift_rebalance::{LandingOutcome, NodeChange, Round, Severity};
use kdrift_rebalance::{NodeClass, NodeReport, Plan, PluginRun};
use kdrift_rebalance::{QosClass, ResourceList, Rounds, Simulation, Suggestion, Verdict};
use serde::Serialize;
use tabled::builder::Builder;

/// How many pods each skip reason lists by name before `… (+N more)`.
const SKIPPED_SHOWN: usize = 3;

/// Everything `rebalance plan` prints (`-o json` prints exactly this).
#[derive(Debug, Serialize)]
pub struct PlanReport {
    /// The instant planned at.
    pub at: DateTime<Utc>,
    /// The policy file as given, or `helm-chart-default`.
    pub policy_source: String,
    /// The plan.
    pub plan: Plan,
    /// The landing simulation (`--simulate`, `--rounds`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulation: Option<Simulation>,
    /// The nights (`--rounds`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Rounds>,
    /// What the snapshot lacks or had to estimate.
    pub notes: Vec<String>,
    /// Nodes whose requested amounts are a lower bound (marked `≥`; the notes
    /// say why). In `-o json` as the plan document's `lower_bound_nodes`.
    #[serde(skip)]
    pub lower_bound_nodes: Vec<String>,
}

/// Everything `rebalance recommend` prints (`-o json` prints `at`,
/// `policy_source`, `suggestions`, `recommended_policy_yaml`,
/// `no_recommendation`).
#[derive(Debug, Serialize)]
pub struct RecommendReport {
    /// The instant recommended at.
    pub at: DateTime<Utc>,
    /// The policy file as given, or `helm-chart-default`.
    pub policy_source: String,
    /// Every candidate tried, best first.
    pub suggestions: Vec<Suggestion>,
    /// The policy with the best converging candidate's thresholds (`None`: none converges).
    pub recommended_policy_yaml: Option<String>,
    /// The index of that candidate in `suggestions`.
    #[serde(skip)]
    pub recommended: Option<usize>,
    /// Why no policy is recommended although candidates converge: none
    /// moves pods while a node stays above the lower targets (`None`
    /// otherwise).
    pub no_recommendation: Option<String>,
    /// Nights tried per candidate.
    #[serde(skip)]
    pub max_rounds: usize,
    /// What the snapshot lacks or had to estimate (tables only).
    #[serde(skip)]
    pub notes: Vec<String>,
}

/// CPU always in millicores in tables, like `why-pending`.
fn amount(resource: &str, v: i64) -> String {
    if resource == "cpu" {
        format!("{v}m")
    } else {
        format_amount(resource, v)
    }
}

/// `cpu 250m, memory 256 MiB` (pods left out unless `with_pods`).
fn amounts(list: &ResourceList, with_pods: bool) -> String {
    let parts: Vec<String> =
        list.iter().filter(|(r, _)| with_pods || *r != "pods").map(|(r, v)| format!("{r} {}", amount(r, v))).collect();
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(", ")
    }
}

/// What an eviction frees: `cpu 100m, memory 128 MiB`, or only its pod slot.
fn frees(list: &ResourceList) -> String {
    if list.iter().all(|(r, v)| r == "pods" || v == 0) {
        "a pod slot only (no requests)".into()
    } else {
        amounts(list, false)
    }
}

/// A threshold: `50`, `37.5`.
fn num(v: f64) -> String {
    threshold_text(v)
}

fn t(ts: DateTime<Utc>) -> String {
    ts.format("%Y-%m-%d %H:%M:%SZ").to_string()
}

fn class(c: NodeClass) -> &'static str {
    match c {
        NodeClass::Underutilized => "underutilized",
        NodeClass::AppropriatelyUtilized => "appropriately utilized",
        NodeClass::Overutilized => "OVERUTILIZED",
    }
}

/// `cpu`, `memory`, `pods` first, then the others by name.
fn ordered(resources: &[String]) -> Vec<String> {
    let mut out: Vec<String> =
        ["cpu", "memory", "pods"].iter().filter(|r| resources.iter().any(|x| x == *r)).map(|r| r.to_string()).collect();
    out.extend(resources.iter().filter(|r| !["cpu", "memory", "pods"].contains(&r.as_str())).cloned());
    out
}

fn table<W: Write>(out: &mut W, b: Builder) -> anyhow::Result<()> {
    let mut table = b.build();
    super::plain(&mut table);
    writeln!(out, "{table}")?;
    Ok(())
}

/// The whole report as text.
pub fn report<W: Write>(out: &mut W, r: &PlanReport) -> anyhow::Result<()> {
    let p = &r.plan;
    writeln!(
        out,
        "Rebalance plan at {} — policy {} ({}, from requests; plan only: nothing is evicted)",
        t(r.at),
        r.policy_source,
        p.mode
    )?;
    if !p.nodes_excluded.is_empty() {
        let ex: Vec<String> = p.nodes_excluded.iter().map(|e| format!("{} ({})", e.name, e.reason)).collect();
        writeln!(out, "  nodes left out: {}", ex.join(", "))?;
    }
    match (p.too_few_nodes(), &p.aborted) {
        (Some(why), _) => writeln!(out, "  nothing to do: {why}")?,
        (None, Some(a)) => writeln!(out, "  nothing planned: {a}")?,
        (None, None) => {}
    }
    for run in &p.runs {
        writeln!(out)?;
        plugin_run(out, run, &r.lower_bound_nodes)?;
    }
    if p.aborted.is_none() {
        writeln!(out)?;
        writeln!(out, "{} eviction{} planned", p.evictions_total, if p.evictions_total == 1 { "" } else { "s" })?;
    }
    list(out, "Plan warnings", &p.warnings)?;
    if let Some(s) = &r.simulation {
        writeln!(out)?;
        simulation(out, s, &r.lower_bound_nodes)?;
    }
    if let Some(rounds) = &r.rounds {
        writeln!(out)?;
        nights(out, rounds)?;
    }
    list(out, "Notes", &r.notes)?;
    Ok(())
}

fn list<W: Write>(out: &mut W, title: &str, items: &[String]) -> anyhow::Result<()> {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{title}")?;
    for i in items {
        writeln!(out, "  - {i}")?;
    }
    Ok(())
}

fn thresholds_line(run: &PluginRun) -> String {
    let th = &run.thresholds;
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

fn plugin_run<W: Write>(out: &mut W, run: &PluginRun, lower_bound_nodes: &[String]) -> anyhow::Result<()> {
    writeln!(out, "Profile {} — LowNodeUtilization: {}", run.profile, thresholds_line(run))?;
    let resources = ordered(&run.tracked_resources);
    let mut b = Builder::default();
    let mut header = vec!["NODE".to_string(), "CLASS".to_string()];
    header.extend(resources.iter().map(|r| r.to_uppercase()));
    b.push_record(header);
    for n in &run.nodes {
        let mut row = vec![
            if n.unschedulable { format!("{} (cordoned)", n.name) } else { n.name.clone() },
            class(n.class).to_string(),
        ];
        let lower = lower_bound_nodes.contains(&n.name);
        row.extend(resources.iter().map(|r| usage_cell(n, r, lower)));
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
        b.push_record(["#", "POD", "FROM", "RULE", "FREES"]);
        for e in &run.evictions {
            let prio = e.priority.map_or("no priority".to_string(), |p| format!("priority {p}"));
            let qos = match e.qos {
                QosClass::BestEffort => "BestEffort",
                QosClass::Burstable => "Burstable",
                QosClass::Guaranteed => "Guaranteed",
            };
            let of = removable.get(e.source_node.as_str()).copied().unwrap_or(0);
            let prefer = if e.prefer_no_eviction { ", prefer-no-eviction" } else { "" };
            b.push_record([
                e.order.to_string(),
                e.pod.key(),
                e.source_node.clone(),
                format!("#{} of {of}: {prio}, {qos}{prefer}", e.rank_on_node),
                frees(&e.frees),
            ]);
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
    if !run.skipped.is_empty() {
        writeln!(out)?;
        writeln!(out, "Not evicted: {} pod(s) on the overutilized nodes", run.skipped.len())?;
        let mut by_reason: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for k in &run.skipped {
            by_reason.entry(k.message.as_str()).or_default().push(k.pod.key());
        }
        let mut groups: Vec<(&str, Vec<String>)> = by_reason.into_iter().collect();
        groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
        for (reason, pods) in groups {
            let more = pods.len().saturating_sub(SKIPPED_SHOWN);
            let shown = pods.iter().take(SKIPPED_SHOWN).cloned().collect::<Vec<_>>().join(", ");
            let tail = if more > 0 { format!(", … (+{more} more)") } else { String::new() };
            writeln!(out, "  {:>3} × {reason}: {shown}{tail}", pods.len())?;
        }
    }
    Ok(())
}

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

fn simulation<W: Write>(out: &mut W, s: &Simulation, lower_bound_nodes: &[String]) -> anyhow::Result<()> {
    writeln!(
        out,
        "Landing simulation (kube-scheduler filters and default scores; a tie goes on with the first node by name)"
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
    let resources = ordered(&s.tracked_resources);
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

fn nights<W: Write>(out: &mut W, rounds: &Rounds) -> anyhow::Result<()> {
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
            format!("CONVERGED after {rounds} night(s): no node is above its target any more")
        }
        Verdict::Stalled { round, reason } => format!("STALLED at night {round}: {reason}"),
        Verdict::NothingToDo { reason } => format!("NOTHING TO DO: {reason}"),
        Verdict::Limit { rounds } => format!("LIMIT: every one of the {rounds} night(s) still evicted something"),
    };
    if let Verdict::NothingToDo { .. } = rounds.verdict {
        writeln!(out, "  {verdict}")?;
        return Ok(());
    }
    writeln!(
        out,
        "  {verdict} ({} eviction(s) in total, {} left Pending, {} night(s) with a pile-up)",
        rounds.total_evictions(),
        rounds.total_unschedulable(),
        rounds.pile_ups()
    )?;
    Ok(())
}

/// `cpu/memory 40 %`, or `cpu 40 %, memory 50 %` when they differ.
fn thresholds_cell(t: &ResourceThresholds) -> String {
    let mut values = t.values();
    match values.next() {
        None => "-".into(),
        Some(first) if values.all(|v| v == first) => {
            format!("{} {} %", ordered(&t.keys().cloned().collect::<Vec<_>>()).join("/"), num(*first))
        }
        Some(_) => t.iter().map(|(r, v)| format!("{r} {} %", num(*v))).collect::<Vec<_>>().join(", "),
    }
}

/// `cpu/memory 50 → 90 %` when both sides set every resource alike.
fn pair_cell(low: &ResourceThresholds, high: &ResourceThresholds) -> String {
    let uniform = |t: &ResourceThresholds| t.values().next().filter(|f| t.values().all(|v| v == *f)).copied();
    match (uniform(low), uniform(high)) {
        (Some(l), Some(h)) if low.keys().eq(high.keys()) => {
            format!("{} {} → {} %", ordered(&low.keys().cloned().collect::<Vec<_>>()).join("/"), num(l), num(h))
        }
        _ => format!("{} → {}", thresholds_cell(low), thresholds_cell(high)),
    }
}

fn suggestion_verdict(s: &Suggestion) -> String {
    match &s.verdict {
        Verdict::Converged { .. } if s.evictions == 0 => "converged (nothing moves)".into(),
        Verdict::Converged { .. } => "converged".into(),
        Verdict::Stalled { round, .. } => format!("STALLED at night {round}"),
        Verdict::NothingToDo { .. } => "nothing to do (fewer than 2 nodes)".into(),
        Verdict::Limit { rounds } => format!("LIMIT ({})", kdrift_analyze::count(*rounds, "night", "nights")),
    }
}

/// The candidates table and the recommended policy.
pub fn recommendation<W: Write>(out: &mut W, r: &RecommendReport) -> anyhow::Result<()> {
    writeln!(
        out,
        "Rebalance recommendation at {} — policy {}: {} LowNodeUtilization candidate(s), up to {} night(s) each \
         (from requests; plan only: nothing is evicted)",
        t(r.at),
        r.policy_source,
        r.suggestions.len(),
        r.max_rounds
    )?;
    writeln!(out)?;
    // Fewer than 2 nodes: no thresholds change anything (descheduler skips
    // its cycle); a table of identical rows would blame the thresholds.
    if let Some(reason) = r.suggestions.iter().find_map(|s| match &s.verdict {
        Verdict::NothingToDo { reason } => Some(reason),
        _ => None,
    }) {
        writeln!(out, "No policy to recommend: {reason}; no thresholds change that.")?;
        list(out, "Notes", &r.notes)?;
        return Ok(());
    }
    let mut b = Builder::default();
    b.push_record(["", "THRESHOLDS → TARGETS", "VERDICT", "NIGHTS", "EVICTIONS", "PENDING", "CPU SKEW"]);
    for (i, s) in r.suggestions.iter().enumerate() {
        b.push_record([
            if r.recommended == Some(i) { "*".to_string() } else { String::new() },
            pair_cell(&s.thresholds, &s.target_thresholds),
            suggestion_verdict(s),
            s.rounds_to_converge.map_or("-".to_string(), |n| n.to_string()),
            s.evictions.to_string(),
            s.unschedulable.to_string(),
            s.final_cpu_skew.map_or("-".to_string(), |v| format!("{} pts", percent_text(v))),
        ]);
    }
    table(out, b)?;
    writeln!(
        out,
        "  ranked: converging candidates that move something, by fewest evictions, nights, cpu skew left; \
         then those that move nothing; then those that never converge"
    )?;
    match (r.recommended.and_then(|i| r.suggestions.get(i)), &r.recommended_policy_yaml) {
        (Some(s), Some(yaml)) => {
            writeln!(out)?;
            writeln!(
                out,
                "Recommended: {} ({} eviction(s) over {} night(s), {} left Pending)",
                pair_cell(&s.thresholds, &s.target_thresholds),
                s.evictions,
                s.rounds_to_converge.unwrap_or(0),
                s.unschedulable
            )?;
            if s.evictions == 0 {
                writeln!(
                    out,
                    "  no converging candidate moves anything: with this target no node is above it (the cluster \
                     stays as it is)"
                )?;
            }
            writeln!(out)?;
            writeln!(
                out,
                "# Recommended DeschedulerPolicy ({} with its LowNodeUtilization thresholds/targetThresholds replaced)",
                r.policy_source
            )?;
            write!(out, "{yaml}")?;
        }
        _ => {
            writeln!(out)?;
            match &r.no_recommendation {
                Some(why) => writeln!(out, "No policy to recommend: {why}.")?,
                None => {
                    writeln!(out, "No candidate converges within {} night(s): no policy to recommend.", r.max_rounds)?
                }
            }
        }
    }
    list(out, "Notes", &r.notes)?;
    Ok(())
}
