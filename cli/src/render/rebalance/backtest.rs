//! `rebalance backtest`: one line per simulated night, then every
//! FailedScheduling in the range asked again — simulated versus recorded
//! said on every line.

use std::io::Write;

use kdrift_analyze::{Backtest, Carried, Replay};

use super::t;

/// Renders the backtest.
pub fn backtest<W: Write>(out: &mut W, b: &Backtest, schedule: &str, policy_source: &str) -> anyhow::Result<()> {
    writeln!(
        out,
        "Backtest of policy {policy_source} at \"{schedule}\" (UTC): {} SIMULATED on the cluster as RECORDED",
        crate::render::nights(b.nights.len() as u64)
    )?;
    writeln!(out, "  landings scored by kube-scheduler: {}", super::simulation::scoring_text(&b.scoring))?;
    for n in &b.nights {
        let carried =
            if n.carried_in > 0 { format!(", {} earlier move(s) carried in", n.carried_in) } else { String::new() };
        match &n.aborted {
            Some(why) => writeln!(out, "  night {} at {}: nothing planned: {why}{carried}", n.number, t(n.at))?,
            None => writeln!(out, "  night {} at {}: {} eviction(s){carried}", n.number, t(n.at), n.evictions.len())?,
        }
        for e in &n.evictions {
            let to = match &e.carried {
                Carried::On { node, .. } => format!("lands on {node}"),
                Carried::Pending { .. } => "stays Pending".to_string(),
                Carried::Gone { .. } => "not recreated".to_string(),
            };
            writeln!(out, "    {} from {} by {}: {to}", e.pod, e.from, e.plugin)?;
        }
    }
    writeln!(out)?;
    if b.failures.is_empty() {
        writeln!(out, "No FailedScheduling recorded in the range.")?;
        return Ok(());
    }
    writeln!(out, "FailedScheduling in the range (RECORDED), asked again after the SIMULATED nights")?;
    for f in &b.failures {
        let replay = match &f.replay {
            Replay::WouldFit { node, after_nights } => {
                format!("would have fit on {node} after night {after_nights} (simulated)")
            }
            Replay::StillFails { message, after_nights } => {
                format!("would still fail after night {after_nights} (simulated): {message}")
            }
            Replay::NoNightBefore => "no scheduled run before it: the policy could not have changed it".to_string(),
            Replay::NoSpec => "the store has no spec of the pod at its failure: not replayed".to_string(),
        };
        writeln!(out, "  {} at {}: {replay}", f.pod, t(f.at))?;
        writeln!(out, "    recorded: {}", f.recorded_message)?;
    }
    Ok(())
}
