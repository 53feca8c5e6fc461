//! `kdrift rebalance apply PLAN.json` and `kdrift rebalance run --yes`: the
//! commands that evict. The executor lives in `kdrift_rebalance` (`execute/`);
//! here: reading the plan file, connecting, choosing the sink, rendering
//! (each eviction's progress on stderr as it happens: [`Evictions`]),
//! and the exit code — 0 the run succeeded (evictions made, refused by a
//! PodDisruptionBudget or skipped), 1 refused because the cluster drifted
//! from the plan (nothing evicted), 2 stopped after a failure, or records
//! missing from the store, or any error.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use kdrift_rebalance::PlanDocument;
use kdrift_rebalance::PlanOptions;
use kdrift_rebalance::{apply_plan, run_rebalance};
use kdrift_rebalance::{ExecuteOptions, ExecutionReport, ProgressHandle, RunOutcome};

use super::cluster::{self, Sink};
use super::rebalance::{note_default_policy, read_policy};
use crate::args::{Cli, ExecuteArgs, Output, RebalanceApplyArgs, RebalanceRunArgs};
use crate::progress::evictions::Evictions;
use crate::render;

/// The executor options from the flags.
fn options(args: &ExecuteArgs, replan: bool) -> ExecuteOptions {
    ExecuteOptions {
        concurrency: args.concurrency as usize,
        ready_timeout: args.ready_timeout,
        probes: args.probes.clone(),
        replan,
        poll_interval: Duration::from_secs(2),
        progress: ProgressHandle::new(Evictions::new()),
        ..ExecuteOptions::default()
    }
}

/// `rebalance apply`.
pub fn apply(cli: &Cli, args: &RebalanceApplyArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.plan).with_context(|| format!("reading {}", args.plan.display()))?;
    let doc = PlanDocument::from_json(&text).with_context(|| format!("{}", args.plan.display()))?;
    let mut options = options(&args.execute, args.replan);
    let store = cluster::open_store(cli, args.execute.no_store)?;
    let policy = doc.policy().with_context(|| format!("{}: its policy", args.plan.display()))?;
    let readings = super::rebalance_usage::readings_for_apply(
        store.as_ref(),
        &policy,
        doc.options.usage_window,
        &args.prometheus,
        doc.options.prometheus_url.as_deref(),
        &mut options,
    )?;
    say(&readings.notes)?;
    let (runtime, client, _) = cluster::connect(&args.cluster)?;
    let location = format!("rebalance apply {}", args.plan.display());
    let mut sink = match &store {
        Some(s) => Sink::Store(kdrift_ingest::StoreSink::new(s, &location)),
        None => Sink::Memory(Vec::new()),
    };
    let (report, executed) = runtime.block_on(apply_plan(&client, &doc, &options, &mut sink))?;
    // The bar (on a terminal) is cleared before the report.
    drop(options);
    drop(sink);
    keep_after_ingest(store.as_ref())?;
    finish(cli, &report, &executed, args.out.as_deref())
}

/// `rebalance run`.
pub fn run(cli: &Cli, args: &RebalanceRunArgs) -> anyhow::Result<ExitCode> {
    if !args.yes {
        anyhow::bail!(
            "`kdrift rebalance run` evicts pods: add --yes to confirm. Nothing was contacted. \
             To see what it would do, use `kdrift rebalance plan --live` (plan only)"
        );
    }
    let (policy, policy_source) = read_policy(args.policy.as_deref())?;
    let mut options = options(&args.execute, false);
    let store = cluster::open_store(cli, args.execute.no_store)?;
    let readings = super::rebalance_usage::readings_for_apply(
        store.as_ref(),
        &policy,
        None,
        &args.prometheus,
        None,
        &mut options,
    )?;
    say(&readings.notes)?;
    let (runtime, client, source) = cluster::connect(&args.cluster)?;
    note_default_policy(&policy_source)?;
    let location = format!("rebalance run --policy {policy_source}");
    let mut sink = match &store {
        Some(s) => Sink::Store(kdrift_ingest::StoreSink::new(s, &location)),
        None => Sink::Memory(Vec::new()),
    };
    let plan_options = PlanOptions { skip_zero_request: args.skip_zero_request, ..Default::default() };
    let (report, mut executed) = runtime.block_on(run_rebalance(
        &client,
        &policy,
        &policy_source,
        plan_options,
        &source,
        &options,
        &mut sink,
    ))?;
    // The bar (on a terminal) is cleared before the report.
    drop(options);
    drop(sink);
    keep_after_ingest(store.as_ref())?;
    // A later `apply` of this plan runs the policy's Prometheus query again
    // where this run did (as `plan --out` records it).
    executed.options.prometheus_url = readings.url;
    finish(cli, &report, &executed, args.out.as_deref())
}

/// The readings' notes (the policy's Prometheus query run, or stood in
/// for), on stderr before anything is evicted.
fn say(notes: &[String]) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for n in notes {
        writeln!(err, "kdrift: {n}")?;
    }
    Ok(())
}

/// The run's records are new observations: sorts the name index and keeps the drain moves of the
/// history as it now is, as ingest does ([`crate::cmd::keep_after_ingest`]),
/// so that the next `timeline drains` does not compute them.
fn keep_after_ingest(store: Option<&kdrift_store::Store>) -> anyhow::Result<()> {
    match store {
        Some(s) => crate::cmd::keep_after_ingest(s),
        None => Ok(()),
    }
}

/// Writes the executed plan (`--out`), renders the report, picks the exit code.
fn finish(
    cli: &Cli,
    report: &ExecutionReport,
    executed: &PlanDocument,
    out_path: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    if let Some(path) = out_path {
        let text = serde_json::to_string_pretty(executed)?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing the plan to {}", path.display()))?;
    }
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, report)?,
        Output::Table => render::rebalance_exec::report(&mut out, report)?,
    }
    let mut err = std::io::stderr().lock();
    for e in &report.record_errors {
        writeln!(err, "kdrift: not recorded in the store: {e}")?;
    }
    Ok(match report.outcome {
        RunOutcome::Refused => {
            writeln!(
                err,
                "kdrift: the cluster drifted from the plan: nothing evicted (see above; --replan to plan again)"
            )?;
            ExitCode::from(1)
        }
        RunOutcome::Stopped => {
            writeln!(err, "kdrift: error: the run stopped: {}", report.stop_reason.as_deref().unwrap_or("?"))?;
            ExitCode::from(2)
        }
        RunOutcome::Succeeded if !report.record_errors.is_empty() => ExitCode::from(2),
        RunOutcome::Succeeded => ExitCode::SUCCESS,
    })
}
