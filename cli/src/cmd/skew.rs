//! `kdrift skew`: requested % per node at an instant, the skew, and each
//! node's LowNodeUtilization class under the thresholds or policy given;
//! with `--usage`, requested % and measured used % side by side.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use kdrift_analyze::{narrow_to_pods, policy_from_thresholds, skew, skew_usage};
use kdrift_rebalance::Reading;

use crate::args::{Cli, Output, SkewArgs};
use crate::cmd::rebalance::{note_default_policy, read_policy};
use crate::render;

/// Exit 0 with nodes, 1 when the store has no Node object at the instant
/// or `-n`/`-l` keep no pod bound then (said on stderr,
/// [`crate::cmd::nothing_found`]; `--usage`: see [`usage`]). With `-n`/`-l`
/// the requested amounts are those of the matching pods
/// ([`narrow_to_pods`]).
pub fn run(cli: &Cli, args: &SkewArgs) -> anyhow::Result<ExitCode> {
    if args.usage {
        return usage(cli, args);
    }
    let (policy, source) = match (&args.thresholds, &args.target_thresholds) {
        (Some(low), Some(high)) => {
            let map = |t: &crate::args::Thresholds| t.0.iter().cloned().collect();
            let policy = policy_from_thresholds(map(low), map(high)).context("--thresholds / --target-thresholds")?;
            (policy, "command line".to_string())
        }
        _ => read_policy(args.policy.as_deref())?,
    };
    let store = crate::cmd::open_existing_store(cli)?;
    // An --at after the history is the report's first note (table and JSON alike).
    let mut report = skew(&store, args.at, &policy)?;
    // With fewer than 2 nodes no policy classifies anything (descheduler
    // skips its cycle): which one is used is noise (new-user trial 43).
    if report.nodes.len() >= 2 {
        note_default_policy(&source)?;
    }
    // -n/-l: requested amounts of the matching pods only (the classes stay every pod's).
    let mut source = source;
    let mut none_matched = None;
    if args.pods.narrows() && !report.nodes.is_empty() {
        let filter =
            crate::selector::PodFilter::new(&store, args.pods.namespace.as_deref(), args.pods.selector.as_ref())?;
        let kept = narrow_to_pods(&store, &mut report, &|ns, name| filter.keeps(ns, name), &filter.describe())?;
        source = format!("{source}; pods: {}", filter.describe());
        if kept == 0 {
            none_matched = Some(format!(
                "no pod bound at {} matches {}: every requested amount is 0",
                render::time(report.at),
                filter.describe()
            ));
        }
    }
    // Buffered: a table of 5,000 nodes was a write per line to the line-buffered stdout.
    let mut out = std::io::BufWriter::new(crate::render::stdout());
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::skew::report(&mut out, &report, &source)?,
    }
    out.flush()?;
    let why = report.not_classified.clone().filter(|_| report.nodes.is_empty()).or(none_matched);
    // Nothing listed: the notes go with the why, on stderr.
    let notes = if report.nodes.is_empty() { &report.notes[..] } else { &[] };
    crate::cmd::nothing_found(why, notes)
}

/// `skew --usage`: exit 0 with nodes measured, 1 when no node has a reading
/// (no usage sample at all, or none within --window of the instant; said on
/// stderr, [`crate::cmd::nothing_found`]).
fn usage(cli: &Cli, args: &SkewArgs) -> anyhow::Result<ExitCode> {
    let store = crate::cmd::open_existing_store(cli)?;
    let max_age_us = args.window.num_microseconds().unwrap_or(i64::MAX);
    let mut report = skew_usage(&store, args.at, Reading::Latest { max_age_us }, args.hot)?;
    if args.pods.narrows() {
        let filter =
            crate::selector::PodFilter::new(&store, args.pods.namespace.as_deref(), args.pods.selector.as_ref())?;
        let (mut listed, mut kept) = (0, 0);
        for spot in report.hot_not_requested.iter_mut().chain(report.requested_not_used.iter_mut()) {
            listed += spot.pods.len();
            spot.pods.retain(|p| filter.keeps(&p.namespace, &p.name));
            kept += spot.pods.len();
        }
        // As why-pending: a selector that keeps no pod is said, not a
        // silently empty list (the node table is every node's still).
        if listed > 0 && kept == 0 {
            writeln!(
                std::io::stderr(),
                "kdrift: no pod matches {} (of the {} measured on the hot nodes); the node table shows every node",
                filter.describe(),
                kdrift_analyze::count(listed, "pod", "pods")
            )?;
        }
    }
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::hot::usage_skew(&mut out, &report)?,
    }
    let why = report.no_samples.clone();
    let notes = if report.nodes.is_empty() { &report.notes[..] } else { &[] };
    crate::cmd::nothing_found(why, notes)
}
