//! `kdrift skew`: requested % per node at an instant, the skew, and each
//! node's LowNodeUtilization class under the thresholds or policy given.

use std::process::ExitCode;

use anyhow::Context;
use kdrift_analyze::{policy_from_thresholds, skew};

use crate::args::{Cli, Output, SkewArgs};
use crate::cmd::rebalance::{note_default_policy, read_policy};
use crate::render;

/// Exit 0 with nodes, 1 when the store has no Node object at the instant.
pub fn run(cli: &Cli, args: &SkewArgs) -> anyhow::Result<ExitCode> {
    let (policy, source) = match (&args.thresholds, &args.target_thresholds) {
        (Some(low), Some(high)) => {
            let map = |t: &crate::args::Thresholds| t.0.iter().cloned().collect();
            let policy = policy_from_thresholds(map(low), map(high)).context("--thresholds / --target-thresholds")?;
            (policy, "command line".to_string())
        }
        _ => read_policy(args.policy.as_deref())?,
    };
    let store = crate::cmd::open_existing_store(&cli.db)?;
    // An --at after the history is the report's first note (table and JSON alike).
    let report = skew(&store, args.at, &policy)?;
    note_default_policy(&source)?;
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::skew::report(&mut out, &report, &source)?,
    }
    Ok(if report.nodes.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
