//! `kdrift check --max-age 26h [--cronjob NS/NAME]`: the dead-man check of
//! the nightly rebalance. Reads the store's newest successful RebalanceRun
//! (when the store exists, or when no CronJob is given) and the CronJob's
//! `status.lastSuccessfulTime`, prints one status line, exits 0 (OK) or 1
//! (STALE, NEVER); 2 for errors (an unreadable store, an unreachable cluster,
//! no such CronJob).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, SecondsFormat, Utc};
use kdrift_analyze::{last_success, latest_runs};
use kdrift_rebalance::{check_last_success, DeadmanStatus, SourceReading};
use kdrift_rebalance::{kinds, ClusterClient};
use serde_json::Value;

use super::cluster;
use crate::args::{CheckArgs, Cli, Output};
use crate::render;

/// `kdrift check`.
pub fn run(cli: &Cli, args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let mut readings = Vec::new();
    let store_source = format!("store {}", cli.db.display());
    if cli.db.exists() {
        let store = crate::cmd::open_existing_store(&cli.db)?;
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
                        r.finished_at.to_rfc3339_opts(SecondsFormat::Secs, true)
                    ),
                    None => "no rebalance run recorded".to_string(),
                },
            },
        });
    } else if args.cronjob.is_none() {
        readings.push(SourceReading { source: store_source, last_success: None, detail: "no store".to_string() });
    }
    if let Some(cj) = &args.cronjob {
        let (runtime, client, _) = cluster::connect(&args.cluster)?;
        let object = runtime
            .block_on(client.get(kinds::CRON_JOB, Some(&cj.namespace), &cj.name))
            .with_context(|| format!("reading CronJob {}/{}", cj.namespace, cj.name))?
            .with_context(|| format!("CronJob {}/{} not found", cj.namespace, cj.name))?;
        let last = object.pointer("/status/lastSuccessfulTime").and_then(Value::as_str);
        readings.push(SourceReading {
            source: format!("CronJob {}/{}", cj.namespace, cj.name),
            last_success: last.and_then(|t| DateTime::parse_from_rfc3339(t).ok()).map(|t| t.with_timezone(&Utc)),
            detail: match last {
                Some(_) => "status.lastSuccessfulTime".to_string(),
                None => "no status.lastSuccessfulTime".to_string(),
            },
        });
    }
    let (max_age, text) = &args.max_age;
    let result = check_last_success(readings, *max_age, text, Utc::now());
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &result)?,
        Output::Table => writeln!(out, "{}", result.line)?,
    }
    Ok(if result.status == DeadmanStatus::Ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
