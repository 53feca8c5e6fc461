//! `kdrift rebalance plan`: what descheduler's LowNodeUtilization would evict
//! from the cluster as the store knows it, and (`--simulate`, `--rounds`)
//! where the replacements would land, night after night. Plan only: this
//! command reads the store and never contacts a cluster.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use kdrift_analyze::snapshot::load_snapshot;
use kdrift_ingest::Store;
use kdrift_rebalance::{plan as make_plan, simulate_plan, simulate_rounds, PlanOptions, Policy};

use crate::args::{Cli, Output, RebalancePlanArgs};
use crate::render;
use crate::render::rebalance::PlanReport;

/// `policy_source` when no `--policy` is given.
const CHART_DEFAULT: &str = "helm-chart-default";

/// Exit 0 when a plan was made (even one without evictions); errors (a bad
/// policy file, no store, no nodes in it) are exit 2 through `main`.
pub fn plan(cli: &Cli, args: &RebalancePlanArgs) -> anyhow::Result<ExitCode> {
    let (policy, policy_source) = read_policy(args.policy.as_deref())?;
    let store = Store::open_existing(&cli.db).with_context(|| format!("opening store {}", cli.db.display()))?;
    let loaded = load_snapshot(&store, args.at)?;
    if loaded.snapshot.nodes.is_empty() {
        anyhow::bail!(
            "{} has no Node objects at {}: ingest `kubectl get nodes -o json` and `kubectl get pods -A -o json` first{}",
            store.path().display(),
            loaded.at.to_rfc3339(),
            if args.at.is_some() { " (or choose another --at)" } else { "" }
        );
    }
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

/// The policy from `path`, or the descheduler Helm chart's default (said so
/// on stderr); with the `policy_source` to report.
fn read_policy(path: Option<&Path>) -> anyhow::Result<(Policy, String)> {
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
