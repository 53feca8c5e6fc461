//! `kdrift check --max-age 26h [--cronjob NS/NAME]`: the dead-man check of
//! the nightly rebalance. Reads the store's newest successful RebalanceRun
//! (when the store exists, or when no CronJob is given) and the CronJob's
//! `status.lastSuccessfulTime`, prints one status line, exits 0 (OK) or 1
//! (STALE, NEVER); 2 for errors (an unreadable store, an unreachable cluster,
//! no such CronJob, a `status.lastSuccessfulTime` that is not a time).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, Utc};
use kdrift_analyze::{last_success, latest_runs};
use kdrift_rebalance::{check_last_success, DeadmanStatus, SourceReading};
use kdrift_rebalance::{kinds, ClusterClient};
use serde_json::Value;

use super::cluster;
use crate::args::{CheckArgs, Cli, Output};
use crate::render;

/// The store source's detail when there is no store and no `--cronjob`.
const NO_STORE: &str = "no store; the CronJob deploy/rebalance installs runs with --no-store: \
                        add --cronjob kdrift/kdrift-rebalance to read its status.lastSuccessfulTime";

/// The longest part of a bad `status.lastSuccessfulTime` quoted back, in characters.
const QUOTED_CHARS: usize = 64;

/// A CronJob's `status.lastSuccessfulTime` (batch/v1 CronJobStatus, an RFC
/// 3339 time): `None` when absent or null (it never succeeded); an error
/// naming the value when it is not a time, since a STALE or NEVER verdict
/// drawn from it would be wrong (break-it 33 F9).
fn last_successful_time(cron_job: &Value) -> anyhow::Result<Option<DateTime<Utc>>> {
    let value = match cron_job.pointer("/status/lastSuccessfulTime") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => match DateTime::parse_from_rfc3339(s) {
            Ok(t) => return Ok(Some(t.with_timezone(&Utc))),
            Err(_) => {
                let cut: String = s.chars().take(QUOTED_CHARS).collect();
                let more = if cut.len() < s.len() { "…" } else { "" };
                format!("{cut:?}{more}")
            }
        },
        Some(other) => {
            let text = other.to_string();
            let cut: String = text.chars().take(QUOTED_CHARS).collect();
            let more = if cut.len() < text.len() { "…" } else { "" };
            format!("{cut}{more} (not a string)")
        }
    };
    anyhow::bail!(
        "status.lastSuccessfulTime is {value}, which is not an RFC 3339 time (expected e.g. 2026-11-27T03:00:00Z); \
         the check cannot tell when it last succeeded"
    )
}

/// `kdrift check`.
pub fn run(cli: &Cli, args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let mut readings = Vec::new();
    let store_source = format!("store {}", cli.db.display());
    if cli.db.exists() {
        let store = crate::cmd::open_existing_store(cli)?;
        let runs = latest_runs(&store)?;
        readings.push(match last_success(&runs) {
            Some(r) => SourceReading {
                source: store_source,
                last_success: Some(r.finished_at),
                detail: format!("run {}: {} of {} evicted", r.name, r.evicted, r.planned),
            },
            None => SourceReading {
                source: store_source,
                last_success: None,
                detail: match runs.first() {
                    Some(r) => format!(
                        "no successful run recorded; the last one, {}, {} at {}",
                        r.name,
                        r.outcome,
                        crate::render::time(r.finished_at)
                    ),
                    None => "no rebalance run recorded".to_string(),
                },
            },
        });
    } else if args.cronjob.is_none() {
        // The deployed CronJob (deploy/rebalance) runs with --no-store: its
        // runs are in its status, not in a store here (issue 38 item 5).
        readings.push(SourceReading { source: store_source, last_success: None, detail: NO_STORE.to_string() });
    }
    if let Some(cj) = &args.cronjob {
        let (runtime, client, _) = cluster::connect(&args.cluster)?;
        let object = runtime
            .block_on(client.get(kinds::CRON_JOB, Some(&cj.namespace), &cj.name))
            .with_context(|| format!("reading CronJob {}/{}", cj.namespace, cj.name))?
            .with_context(|| format!("CronJob {}/{} not found", cj.namespace, cj.name))?;
        let source = format!("CronJob {}/{}", cj.namespace, cj.name);
        let last = last_successful_time(&object).with_context(|| source.clone())?;
        readings.push(SourceReading {
            source,
            last_success: last,
            detail: match last {
                Some(_) => "status.lastSuccessfulTime".to_string(),
                None => "no status.lastSuccessfulTime".to_string(),
            },
        });
    }
    let (max_age, text) = &args.max_age;
    let result = check_last_success(readings, *max_age, text, Utc::now());
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &result)?,
        Output::Table => writeln!(out, "{}", result.line)?,
    }
    Ok(if result.status == DeadmanStatus::Ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
