//! Tables for `rebalance plan`: every plugin run of the cycle in order,
//! grouped by extension point (Deschedule, then Balance) with its profile —
//! the utilization plugins' node classes, budget and evictions
//! ([`utilization`]), the rule plugins' evictions with their rule
//! ([`rules`]) — each eviction with the cycle limit it counts against, and
//! every candidate not evicted with its reason; with `--simulate` and
//! `--rounds` ([`simulation`]). `rebalance recommend` in [`recommend`].

mod backtest;
mod explain;
mod recommend;
mod rules;
mod simulation;
mod utilization;

pub use backtest::backtest;
pub use explain::explain;
pub use recommend::recommendation;

use std::collections::BTreeMap;
use std::io::Write;

use chrono::{DateTime, Utc};
use kdrift_rebalance::format_amount;
use kdrift_rebalance::{threshold_text, ResourceList, Rounds, Simulation, Suggestion};
use kdrift_rebalance::{Eviction, ExtensionPoint, LimitCounts, NodeClass, Plan, PluginRun, LOW_NODE_UTILIZATION};
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
    /// With `metricsUtilization` and readings in the store: how they were
    /// taken (`latest sample (≤ 5m old)`, `p95 over 1h`); every candidate
    /// classifies on them. `None`: from requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<String>,
    /// How the policy as written classifies each node (LowNodeUtilization,
    /// per profile): the planner's reports, measured percents and the
    /// reading they came from included.
    pub classified: Vec<(String, kdrift_rebalance::NodeReport)>,
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
    crate::render::time(ts)
}

/// The class as descheduler's log words it, lowercase, as `kdrift skew`
/// writes it (the JSON/YAML documents say `Overutilized`, the enum's name).
fn class(c: NodeClass) -> &'static str {
    match c {
        NodeClass::Underutilized => "underutilized",
        NodeClass::AppropriatelyUtilized => "appropriately utilized",
        NodeClass::Overutilized => "overutilized",
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
    let basis = match p.runs.iter().find_map(|run| run.usage_source.as_ref()) {
        Some(u) => format!("LowNodeUtilization from measured usage, {}", u.reading),
        None => "from requests".to_string(),
    };
    writeln!(
        out,
        "Rebalance plan at {} — policy {} ({}, {basis}; plan only: nothing is evicted)",
        t(r.at),
        r.policy_source,
        p.mode
    )?;
    if !p.nodes_excluded.is_empty() {
        let ex: Vec<String> = p.nodes_excluded.iter().map(|e| format!("{} ({})", e.name, e.reason)).collect();
        writeln!(out, "  nodes left out: {}", ex.join(", "))?;
    }
    match (p.too_few_nodes(), &p.aborted) {
        // As the nights' verdict and README write it.
        (Some(why), _) => writeln!(out, "  NOTHING TO DO: {why}")?,
        (None, Some(a)) => writeln!(out, "  nothing planned: {a}")?,
        (None, None) => {}
    }
    let mut point = None;
    for run in &p.runs {
        writeln!(out)?;
        if point != Some(run.extension_point) && p.runs.iter().any(|r| r.plugin != LOW_NODE_UTILIZATION) {
            point = Some(run.extension_point);
            let title = match run.extension_point {
                ExtensionPoint::Deschedule => "Deschedule plugins (run first: pods breaking a rule)",
                ExtensionPoint::Balance => "Balance plugins (run after every Deschedule plugin)",
            };
            writeln!(out, "== {title}")?;
        }
        if run.plugin == LOW_NODE_UTILIZATION || run.plugin == kdrift_rebalance::HIGH_NODE_UTILIZATION {
            utilization::utilization_run(out, run, &r.lower_bound_nodes)?;
        } else {
            rules::rule_run(out, run)?;
        }
    }
    if p.aborted.is_none() {
        writeln!(out)?;
        writeln!(out, "{} eviction{} planned", p.evictions_total, if p.evictions_total == 1 { "" } else { "s" })?;
    }
    list(out, "Plan warnings", &p.warnings)?;
    if let Some(s) = &r.simulation {
        writeln!(out)?;
        simulation::simulation(out, s, &r.lower_bound_nodes)?;
    }
    if let Some(rounds) = &r.rounds {
        writeln!(out)?;
        simulation::nights(out, rounds)?;
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

/// The RULE cell: the rule, then, for an eviction a PDB refuses, what
/// happens instead ("descheduler will try it and the API will refuse it
/// (429, PDB NS/NAME)").
fn rule_cell(e: &Eviction, rule: String) -> String {
    match e.refusal() {
        Some(r) => format!("{rule} — REFUSED: {r}"),
        None => rule,
    }
}

/// The COUNTS AGAINST cell: a refused eviction counts against no limit in
/// v0.36 (PodEvictor counts only evictions the API admits).
fn counts_cell(e: &Eviction) -> String {
    if e.refused_by_pdb.is_some() {
        return "nothing (refused evictions are not counted)".to_string();
    }
    limits_cell(&e.counted).unwrap_or_default()
}

/// `N eviction(s)`, plus `(M refused by a PDB)` when some are.
fn evictions_count(run: &PluginRun) -> String {
    let n = run.evictions.len();
    let refused = run.evictions.iter().filter(|e| e.refused_by_pdb.is_some()).count();
    let mut s = format!("{n} eviction{}", if n == 1 { "" } else { "s" });
    if refused > 0 {
        s.push_str(&format!(" ({refused} refused by a PodDisruptionBudget)"));
    }
    s
}

/// `total 3/5, node-1 1/2`: the cycle-wide counts after an eviction against
/// the limits the policy sets (`None` when it sets none).
fn limits_cell(c: &LimitCounts) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(m) = c.max_total {
        parts.push(format!("total {}/{m}", c.total));
    }
    if let Some(m) = c.max_per_node {
        parts.push(format!("node {}/{m}", c.node));
    }
    if let Some(m) = c.max_per_namespace {
        parts.push(format!("namespace {}/{m}", c.namespace));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The run's candidates not evicted, grouped by reason (largest group
/// first), `SKIPPED_SHOWN` pods named per reason; `whose` says which pods
/// were candidates ("on the source nodes").
fn skipped<W: Write>(out: &mut W, run: &PluginRun, whose: &str) -> anyhow::Result<()> {
    if run.skipped.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "Not evicted: {} pod(s) {whose}", run.skipped.len())?;
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
    Ok(())
}
