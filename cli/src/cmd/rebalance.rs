//! `kdrift rebalance plan`: what descheduler's LowNodeUtilization would evict
//! from the cluster as the store knows it, and (`--simulate`, `--rounds`)
//! where the replacements would land, night after night; `kdrift rebalance
//! recommend`: which LowNodeUtilization thresholds → targets would converge,
//! as a policy to apply. Plan only: these commands read the store and never
//! contact a cluster.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, Utc};
use kdrift_analyze::snapshot::{load_snapshot, LoadedSnapshot};
use kdrift_ingest::Store;
use kdrift_rebalance::{
    plan as make_plan, simulate_plan, simulate_rounds, suggest_thresholds, Candidates, PlanOptions, Policy,
};

use crate::args::{Cli, Output, RebalancePlanArgs, RebalanceRecommendArgs};
use crate::render;
use crate::render::rebalance::{PlanReport, RecommendReport};

/// `policy_source` when no `--policy` is given.
const CHART_DEFAULT: &str = "helm-chart-default";

/// Exit 0 when a plan was made (even one without evictions); errors (a bad
/// policy file, no store, no nodes in it) are exit 2 through `main`.
pub fn plan(cli: &Cli, args: &RebalancePlanArgs) -> anyhow::Result<ExitCode> {
    let (policy, policy_source, loaded) = load(cli, args.policy.as_deref(), args.at)?;
    let options = PlanOptions { skip_zero_request: args.skip_zero_request };
    let planned = make_plan(&loaded.snapshot, &policy, &options);
    let simulation = (args.simulate || args.rounds.is_some()).then(|| simulate_plan(&loaded.snapshot, &planned));
    let rounds = args.rounds.map(|n| simulate_rounds(&loaded.snapshot, &policy, &options, n as usize));
    let report = PlanReport { at: loaded.at, policy_source, plan: planned, simulation, rounds, notes: loaded.notes };
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::rebalance::report(&mut out, &report)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Exit 0 with the best converging candidate's policy on stdout; exit 1 when
/// no candidate converges; errors as for `plan`.
pub fn recommend(cli: &Cli, args: &RebalanceRecommendArgs) -> anyhow::Result<ExitCode> {
    let (policy, policy_source, loaded) = load(cli, args.policy.as_deref(), args.at)?;
    let candidates = Candidates { max_rounds: args.max_rounds as usize, ..Candidates::default() };
    let suggestions = suggest_thresholds(&loaded.snapshot, &policy, &candidates);
    // Ranked: the first converging candidate is the best one.
    let best = suggestions.iter().position(|s| s.converged());
    let recommended_policy_yaml = match best {
        Some(i) => {
            let s = &suggestions[i];
            let p = policy
                .with_uniform_thresholds(s.threshold, s.target)
                .context("the recommended thresholds fail validation")?;
            Some(p.to_yaml()?)
        }
        None => None,
    };
    let report = RecommendReport {
        at: loaded.at,
        policy_source,
        suggestions,
        recommended_policy_yaml,
        recommended: best,
        max_rounds: candidates.max_rounds,
        notes: loaded.notes,
    };
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::rebalance::recommendation(&mut out, &report)?,
    }
    if best.is_none() {
        writeln!(
            std::io::stderr(),
            "kdrift: no candidate converges within {} night(s): no policy to recommend",
            candidates.max_rounds
        )?;
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The policy (see [`read_policy`]) and the snapshot at `at` from the store;
/// an error when the store has no nodes then.
fn load(
    cli: &Cli,
    policy: Option<&Path>,
    at: Option<DateTime<Utc>>,
) -> anyhow::Result<(Policy, String, LoadedSnapshot)> {
    let (policy, policy_source) = read_policy(policy)?;
    let store = Store::open_existing(&cli.db).with_context(|| format!("opening store {}", cli.db.display()))?;
    let loaded = load_snapshot(&store, at)?;
    if loaded.snapshot.nodes.is_empty() {
        anyhow::bail!(
            "{} has no Node objects at {}: ingest `kubectl get nodes -o json` and `kubectl get pods -A -o json` first{}",
            store.path().display(),
            loaded.at.to_rfc3339(),
            if at.is_some() { " (or choose another --at)" } else { "" }
        );
    }
    Ok((policy, policy_source, loaded))
}

/// The policy from `path`, or the descheduler Helm chart's default (said so
/// on stderr); with the `policy_source` to report.
pub fn read_policy(path: Option<&Path>) -> anyhow::Result<(Policy, String)> {
    match path {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading policy {}", path.display()))?;
            let policy = Policy::from_yaml(&text).with_context(|| format!("policy {}", path.display()))?;
            Ok((policy, path.display().to_string()))
        }
        None => {
            writeln!(
                std::io::stderr(),
                "kdrift: no --policy given: planning with the descheduler Helm chart's default policy \
                 (LowNodeUtilization cpu/memory/pods 20 → 50 %)"
            )?;
            // An empty `deschedulerPolicy:` renders the chart's defaults.
            let policy = Policy::from_yaml("deschedulerPolicy: null").context("the Helm chart's default policy")?;
            Ok((policy, CHART_DEFAULT.to_string()))
        }
    }
}
