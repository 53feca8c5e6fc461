//! Text for `rebalance apply` / `rebalance run`: the run's outcome and
//! counts, how the cluster differed from the plan file, then one line per
//! planned eviction with the plugin that chose it, its outcome and where
//! the replacement landed against the prediction.

use std::io::Write;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{EvictionOutcome, ExecutionReport, Replacement, RunOutcome};
use tabled::builder::Builder;

fn t(at: DateTime<Utc>) -> String {
    super::time(at)
}

/// One eviction's outcome in words.
fn outcome(o: &EvictionOutcome) -> (String, String) {
    match o {
        EvictionOutcome::Evicted { attempts, replacement } => {
            let retried = if *attempts > 1 { format!(" (after {attempts} attempts)") } else { String::new() };
            let landed = match replacement {
                Replacement::NotWaited => "replacement not waited for".to_string(),
                Replacement::NoController => "no controller: nothing recreates it".to_string(),
                Replacement::Ready { pod, node, waited_seconds, predicted_node, as_predicted } => {
                    let prediction = match (predicted_node, as_predicted) {
                        (Some(_), Some(true)) => ", as predicted".to_string(),
                        (Some(p), _) => format!(", predicted {p}"),
                        (None, _) => String::new(),
                    };
                    format!("{pod} Ready on {node} after {waited_seconds:.0} s{prediction}")
                }
                Replacement::NotReady { pod, node, waited_seconds, predicted_node } => {
                    let seen = match (pod, node) {
                        (Some(p), Some(n)) => format!("{p} on {n} not Ready"),
                        (Some(p), None) => format!("{p} not scheduled"),
                        _ => "no replacement seen".to_string(),
                    };
                    let prediction = predicted_node.as_ref().map(|p| format!(" (predicted {p})")).unwrap_or_default();
                    format!("{seen} after {waited_seconds:.0} s{prediction}")
                }
            };
            (format!("evicted{retried}"), landed)
        }
        EvictionOutcome::Blocked { message } => ("blocked (PodDisruptionBudget)".to_string(), message.clone()),
        EvictionOutcome::Skipped { cause, message } => (format!("skipped ({cause:?})"), message.clone()),
        EvictionOutcome::Failed { attempts, error } => (format!("FAILED after {attempts} attempt(s)"), error.clone()),
        EvictionOutcome::NotAttempted { reason } => ("not attempted".to_string(), format!("the run stopped: {reason}")),
    }
}

/// The whole report as text.
pub fn report<W: Write>(out: &mut W, r: &ExecutionReport) -> anyhow::Result<()> {
    let verdict = match r.outcome {
        RunOutcome::Succeeded => "succeeded",
        RunOutcome::Stopped => "STOPPED",
        RunOutcome::Refused => "REFUSED: the cluster drifted from the plan, nothing was evicted",
    };
    writeln!(
        out,
        "Rebalance {} ({}, policy {}) {} at {}",
        r.run,
        r.command,
        r.policy_source,
        verdict,
        t(r.finished_at)
    )?;
    if !r.differences.is_empty() {
        writeln!(out)?;
        writeln!(out, "The cluster differs from the plan:")?;
        for d in &r.differences {
            writeln!(out, "  - {d}")?;
        }
        if r.replanned {
            writeln!(out, "--replan: planned again on the cluster as it is now; executing the new plan")?;
        } else if r.outcome == RunOutcome::Refused {
            writeln!(
                out,
                "Re-run with --replan to plan again and execute the new plan, or make a new plan with `kdrift rebalance plan`."
            )?;
        }
    }
    if r.outcome != RunOutcome::Refused {
        writeln!(out)?;
        writeln!(
            out,
            "{} planned: {} evicted, {} blocked by a PodDisruptionBudget, {} skipped, {} failed, {} not attempted",
            r.planned,
            r.count("Evicted"),
            r.count("Blocked"),
            r.count("Skipped"),
            r.count("Failed"),
            r.count("NotAttempted")
        )?;
        if !r.results.is_empty() {
            let mut b = Builder::default();
            b.push_record(["#", "pod", "from", "plugin", "outcome", "details"]);
            for x in &r.results {
                let (o, d) = outcome(&x.outcome);
                b.push_record([x.order.to_string(), x.pod.clone(), x.node.clone(), x.plugin.clone(), o, d]);
            }
            let mut table = b.build();
            super::plain(&mut table);
            writeln!(out, "{table}")?;
        }
    }
    if let Some(s) = &r.stop_reason {
        writeln!(out)?;
        writeln!(out, "Stopped: {s}")?;
    }
    if !r.notes.is_empty() {
        writeln!(out)?;
        writeln!(out, "Notes")?;
        for n in &r.notes {
            writeln!(out, "  - {n}")?;
        }
    }
    Ok(())
}
