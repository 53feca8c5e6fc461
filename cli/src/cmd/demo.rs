//! `kdrift demo`: generate the built-in cluster history, load it into a
//! temporary store (or `--save PATH`), and run `why-pending` on it — the
//! whole story with nothing but the binary.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use kdrift_analyze::{pending_pods, skew_usage, why_pending};
use kdrift_ingest::{ingest_scenario, ingest_usage_points};
use kdrift_rebalance::Reading;
use kdrift_scenario::{generate, ScenarioConfig};
use kdrift_store::{Store, StoreError};

use crate::args::{Cli, DemoArgs, Output};
use crate::render;

/// Runs the demo. Progress on stderr, findings on stdout.
pub fn run(cli: &Cli, args: &DemoArgs) -> anyhow::Result<ExitCode> {
    let tmp = tempfile::tempdir().context("creating a temporary directory for the demo store")?;
    let path = args.save.clone().unwrap_or_else(|| tmp.path().join("demo.duckdb"));
    let mut err = std::io::stderr().lock();
    if let Some(db) = args.db.as_deref().filter(|db| *db != std::path::Path::new(crate::args::DEFAULT_DB)) {
        writeln!(
            err,
            "kdrift demo: note: the demo never writes to --db/KDRIFT_DB ({}); keep its store with --save PATH",
            db.display()
        )?;
    }
    let store = match Store::open_with(&path, &crate::cmd::store_options(cli), &kdrift_store::NoMigrationProgress) {
        Ok(store) => store,
        Err(e) if args.save.is_some() => return Err(save_error(e)),
        Err(e) => return Err(e).with_context(|| format!("opening demo store {}", path.display())),
    };
    drop(err);
    crate::cmd::warn_abandoned_runs(&store)?;
    let mut err = std::io::stderr().lock();
    let others: Vec<String> = store
        .source_kinds()?
        .into_iter()
        .filter(|(k, _)| k != "demo")
        .map(|(k, n)| format!("{n} {k} run(s)"))
        .collect();
    if !others.is_empty() {
        anyhow::bail!(
            "{} already holds other data ({}); the demo's generated cluster would mix with it — choose a new --save path",
            path.display(),
            others.join(", ")
        );
    }
    let seed = args.seed.to_string();
    let seeds: Vec<String> = store.demo_seeds()?.into_iter().filter(|s| *s != seed).collect();
    if !seeds.is_empty() {
        anyhow::bail!(
            "{} already holds the demo of seed {}; the cluster of seed {seed} would mix with it (the same node and \
             pod names, other objects) — choose a new --save path, or pass --seed {} to load the same demo again",
            path.display(),
            seeds.join(", "),
            seeds[0]
        );
    }
    // Generated once the store is open: a bad --save path is all that is said.
    writeln!(err, "kdrift demo: generating the scenario (seed {})…", args.seed)?;
    let scenario = generate(&ScenarioConfig { seed: args.seed, scale: 1 });
    let facts = scenario.facts.clone();
    let (points, hot) = scenario.usage_points();
    let report = ingest_scenario(&store, scenario, args.seed)?;
    ingest_usage_points(&store, points, args.seed)?;
    crate::cmd::keep_after_ingest(&store)?;
    writeln!(
        err,
        "kdrift demo: loaded {} object versions ({} new) into {}{}",
        report.counts.records,
        report.counts.added,
        path.display(),
        if args.save.is_some() { "" } else { " (temporary; keep it with --save PATH)" }
    )?;
    drop(err);

    let pods = pending_pods(&store)?;
    // The measured-usage section: requests say one thing, usage another.
    let usage = skew_usage(&store, None, Reading::Latest { max_age_us: 15 * 60_000_000 }, 80.0)?;
    let pod = &facts.pending_pod;
    let chain = why_pending(&store, &pod.namespace, &pod.name)?
        .with_context(|| format!("the demo store has no FailedScheduling for {}/{}", pod.namespace, pod.name))?;
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => {
            // The temporary store is removed when the demo ends: only a kept store (--save) is named.
            let store = args.save.as_deref();
            render::json(
                &mut out,
                &serde_json::json!({ "store": store, "pending": pods, "why_pending": chain, "usage": usage }),
            )?;
        }
        Output::Table => {
            writeln!(out, "== The story ==")?;
            writeln!(
                out,
                "5 nodes with 2 CPU allocatable; two rolling drains ({}); CronJob {}/{} creates Job {} at {}, whose pod stays Pending until the Job's deadline.",
                facts
                    .drains
                    .iter()
                    .map(|d| format!("#{} at {}", d.number, render::time(d.started_at)))
                    .collect::<Vec<_>>()
                    .join(", "),
                facts.cronjob_namespace,
                facts.cronjob_name,
                facts.job_name,
                render::time(facts.job_created_at),
            )?;
            writeln!(out)?;
            writeln!(out, "== kdrift why-pending --all ==")?;
            render::pending::list(&mut out, &pods)?;
            writeln!(out)?;
            writeln!(out, "== kdrift why-pending {}/{} ==", pod.namespace, pod.name)?;
            render::pending::report(&mut out, &chain)?;
            writeln!(out)?;
            writeln!(out, "== kdrift skew --usage ==")?;
            writeln!(
                out,
                "Requests are not usage: from {} two pods on {} use several times what they request (metrics-server samples every minute).",
                render::time_of_day(hot.since),
                hot.node
            )?;
            render::hot::usage_skew(&mut out, &usage)?;
            writeln!(out)?;
            writeln!(
                out,
                "Explore it yourself: kdrift demo --save demo.duckdb && kdrift --db demo.duckdb why-pending --all \
                 (then: timeline drains, skew --at {}, skew --usage, hotspots, postmortem job {}/{})",
                render::time(facts.failure_at),
                facts.cronjob_namespace,
                facts.cronjob_name
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A store error for `--save PATH`, in words about `--save` (the flag the
/// user typed; the store's own messages speak of `--db`).
fn save_error(err: StoreError) -> anyhow::Error {
    match err {
        StoreError::NotDuckDb { path } => anyhow::anyhow!(
            "--save {}: not a DuckDB database (no DuckDB header); --save must name a store kept by an earlier \
             `kdrift demo --save`, or a path that does not exist yet (the demo creates its store there)",
            path.display()
        ),
        // The store's words for an empty file send the user to `ingest`.
        StoreError::BadPath { path, .. } if std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 0) => {
            anyhow::anyhow!(
                "--save {} cannot hold the demo's store: it is an empty file (0 bytes), which DuckDB does not open; \
                 delete it, or choose a --save path that does not exist yet (the demo creates its store there)",
                path.display()
            )
        }
        StoreError::BadPath { path, problem } => {
            anyhow::anyhow!("--save {} cannot hold the demo's store: {problem}", path.display())
        }
        StoreError::NotAStore { path, .. } => anyhow::anyhow!(
            "--save {}: a DuckDB database but not a kdrift store (no kdrift_meta table); refusing to write into it \
             — choose a new --save path",
            path.display()
        ),
        StoreError::Locked { path, holder, holder_command, .. } => anyhow::anyhow!(
            "--save {}: the store is in use by another process{}; wait for it to finish, or choose a new --save path",
            path.display(),
            match (holder, holder_command) {
                (Some(pid), Some(command)) => format!(" (PID {pid}: {command})"),
                (Some(pid), None) => format!(" (PID {pid}), e.g. a running `kdrift record` or `kdrift ingest`"),
                (None, _) => ", e.g. a running `kdrift record` or `kdrift ingest`".to_string(),
            }
        ),
        other => anyhow::Error::new(other).context("opening the demo store (--save)"),
    }
}
