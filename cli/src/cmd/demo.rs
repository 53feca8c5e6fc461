//! `kdrift demo`: generate the built-in cluster history, load it into a
//! temporary store (or `--save PATH`), and run `why-pending` on it — the
//! whole story with nothing but the binary.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use kdrift_analyze::{pending_pods, why_pending};
use kdrift_ingest::demo::ingest_scenario;
use kdrift_ingest::scenario::{generate, ScenarioConfig};
use kdrift_ingest::Store;

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
    writeln!(err, "kdrift demo: generating the scenario (seed {})…", args.seed)?;
    let scenario = generate(&ScenarioConfig { seed: args.seed, scale: 1 });
    let facts = scenario.facts.clone();
    let store = Store::open(&path).with_context(|| format!("opening demo store {}", path.display()))?;
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
    let report = ingest_scenario(&store, scenario, args.seed)?;
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
    let pod = &facts.pending_pod;
    let chain = why_pending(&store, &pod.namespace, &pod.name)?
        .with_context(|| format!("the demo store has no FailedScheduling for {}/{}", pod.namespace, pod.name))?;
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => {
            // The temporary store is removed when the demo ends: only a kept store (--save) is named.
            let store = args.save.as_deref();
            render::json(&mut out, &serde_json::json!({ "store": store, "pending": pods, "why_pending": chain }))?;
        }
        Output::Table => {
            writeln!(out, "== The story ==")?;
            writeln!(
                out,
                "5 nodes with 2 CPU allocatable; two rolling drains ({}); CronJob {}/{} creates Job {} at {}, whose pod stays Pending until the Job's deadline.",
                facts
                    .drains
                    .iter()
                    .map(|d| format!("#{} at {}", d.number, d.started_at.format("%b %d %H:%M")))
                    .collect::<Vec<_>>()
                    .join(", "),
                facts.cronjob_namespace,
                facts.cronjob_name,
                facts.job_name,
                facts.job_created_at.format("%b %d %H:%M"),
            )?;
            writeln!(out)?;
            writeln!(out, "== kdrift why-pending --all ==")?;
            render::pending::list(&mut out, &pods)?;
            writeln!(out)?;
            writeln!(out, "== kdrift why-pending {}/{} ==", pod.namespace, pod.name)?;
            render::pending::report(&mut out, &chain)?;
            writeln!(out)?;
            writeln!(
                out,
                "Explore it yourself: kdrift demo --save demo.duckdb && kdrift --db demo.duckdb why-pending --all \
                 (then: timeline drains, skew --at {}, postmortem job {}/{})",
                facts.failure_at.format("%Y-%m-%dT%H:%M:%SZ"),
                facts.cronjob_namespace,
                facts.cronjob_name
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
