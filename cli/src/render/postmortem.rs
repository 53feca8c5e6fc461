//! `postmortem job` as text: per run, the failure, limits, controller
//! events, and per pod the chain (never started) or the container ends (ran).

use std::io::Write;

use kdrift_analyze::JobPostmortem;
use kdrift_analyze::{JobRun, RunStatus};

use super::duration;
use super::timeline::full;

fn status(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Failed => "failed",
        RunStatus::Succeeded => "succeeded",
        RunStatus::Running => "running",
        RunStatus::Unknown => "unknown",
    }
}

/// The postmortem as text.
pub fn job<W: Write>(out: &mut W, pm: &JobPostmortem) -> anyhow::Result<()> {
    if pm.cronjob {
        writeln!(out, "CronJob {}/{}: {} failed run(s)", pm.namespace, pm.name, pm.runs.len())?;
        if !pm.other_runs.is_empty() {
            let others: Vec<String> =
                pm.other_runs.iter().map(|r| format!("{} ({})", r.name, status(r.status))).collect();
            writeln!(out, "  other runs: {}", others.join(", "))?;
        }
    }
    // A blank line between runs, and after the CronJob's lines; none first
    // (new-user trial 46: a Job's postmortem opened with an empty line).
    for (i, r) in pm.runs.iter().enumerate() {
        if i > 0 || pm.cronjob {
            writeln!(out)?;
        }
        run(out, r)?;
    }
    for n in &pm.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}

/// The evidence that found a pod, in words.
fn found_by(found: &[String]) -> String {
    let words: Vec<&str> = found
        .iter()
        .map(|f| match f.as_str() {
            "owner" => "its ownerReferences",
            "created-event" => "the Job's `Created pod:` event",
            "deleted-event" => "the Job's `Deleted pod:` event",
            "pod-events" => "its own events",
            other => other,
        })
        .collect();
    if words.is_empty() {
        "nothing".into()
    } else {
        words.join(" and ")
    }
}

fn run<W: Write>(out: &mut W, r: &JobRun) -> anyhow::Result<()> {
    writeln!(
        out,
        "Job {}{}: {}",
        r.name,
        r.owner.as_ref().map(|o| format!(" (created by {o})")).unwrap_or_default(),
        status(r.status)
    )?;
    if let Some(c) = r.created_at {
        writeln!(out, "  created {}", full(c))?;
    }
    if let Some(f) = &r.failure {
        let at = f.at.map(|t| format!(" at {}", full(t))).unwrap_or_default();
        let ran = match (r.created_at, f.at) {
            (Some(c), Some(t)) => format!(", {} after creation", duration((t - c).num_seconds())),
            _ => String::new(),
        };
        writeln!(out, "  failure: {} — {}{at}{ran} (from the Job's {})", f.reason, f.message, f.source)?;
    }
    let mut limits = Vec::new();
    if let Some(d) = r.active_deadline_seconds {
        limits.push(format!("activeDeadlineSeconds {d} ({})", duration(d)));
    }
    if let Some(b) = r.backoff_limit {
        limits.push(format!("backoffLimit {b}"));
    }
    if !limits.is_empty() {
        writeln!(out, "  limits: {}", limits.join(", "))?;
    }
    for e in &r.events {
        writeln!(out, "  {}  {} {} {}: {}", full(e.at), e.kind, e.event_type, e.reason, e.message)?;
    }
    if let Some(none) = &r.no_pods {
        writeln!(out)?;
        writeln!(out, "  {none}")?;
    }
    for p in &r.pods {
        writeln!(out)?;
        match p.outcome.as_str() {
            "ran" => {
                writeln!(
                    out,
                    "  pod {} ran on {} (phase {}){}",
                    p.name,
                    p.node.as_deref().unwrap_or("?"),
                    p.phase.as_deref().unwrap_or("unknown"),
                    if p.deleted { ", since deleted" } else { "" }
                )?;
                for c in &p.containers {
                    let mut parts = vec![c.state.clone()];
                    if let Some(reason) = &c.reason {
                        parts.push(reason.clone());
                    }
                    if let Some(code) = c.exit_code {
                        parts.push(format!("exit code {code}"));
                    }
                    if let Some(t) = c.finished_at {
                        parts.push(format!("at {}", full(t)));
                    }
                    if c.restart_count > 0 {
                        parts.push(format!("{} restart(s)", c.restart_count));
                    }
                    writeln!(
                        out,
                        "    container {}: {}{}",
                        c.name,
                        parts.join(", "),
                        if c.from_last_state { " (last state)" } else { "" }
                    )?;
                }
            }
            _ => {
                writeln!(
                    out,
                    "  pod {} never started{}",
                    p.name,
                    if p.deleted { " (deleted unscheduled)" } else { "" }
                )?;
                if p.reconstructed {
                    writeln!(
                        out,
                        "    reconstructed: its object is not in the store; known from {}",
                        found_by(&p.found_by)
                    )?;
                }
                match &p.chain {
                    Some(chain) => {
                        let mut buf = Vec::new();
                        super::pending::report(&mut buf, chain)?;
                        for line in String::from_utf8_lossy(&buf).lines() {
                            writeln!(out, "    {line}")?;
                        }
                    }
                    None => writeln!(out, "    no FailedScheduling event for it in the store")?,
                }
            }
        }
    }
    Ok(())
}
