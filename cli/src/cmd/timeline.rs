//! `kdrift timeline drains`: drains, rolling drains and outages from the store.

use std::io::Write;
use std::process::ExitCode;

use kdrift_analyze::drain_timeline;

use crate::args::{Cli, Output, TimelineDrainsArgs};
use crate::render;

/// Exit 0 with at least one operation or eviction run (the descheduler's,
/// kdrift's, Karpenter's, …), 1 when the window has neither; a `--since`
/// after `--until` is an error (exit 2).
pub fn drains(cli: &Cli, args: &TimelineDrainsArgs) -> anyhow::Result<ExitCode> {
    super::check_range(args.since, args.until)?;
    let store = crate::cmd::open_existing_store(cli)?;
    let mut timeline = drain_timeline(&store, args.since, args.until)?;
    if args.pods.narrows() {
        let filter =
            crate::selector::PodFilter::new(&store, args.pods.namespace.as_deref(), args.pods.selector.as_ref())?;
        crate::selector::drains(&mut timeline, &filter);
        if timeline.operations.is_empty() {
            writeln!(std::io::stderr(), "kdrift: no drain, reboot or outage moved a pod of {}", filter.describe())?;
            render_timeline(cli, &timeline)?;
            return Ok(ExitCode::from(1));
        }
    }
    render_timeline(cli, &timeline)?;
    if timeline.operations.is_empty() && !timeline.evictions.is_empty() {
        let runs = timeline.evictions.len();
        writeln!(
            std::io::stderr(),
            "kdrift: no drain, reboot or outage found in {}; {} of evictions by other components",
            store.path().display(),
            if runs == 1 { "1 run".to_string() } else { format!("{runs} runs") }
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if timeline.operations.is_empty() {
        let why = timeline.why_none.as_deref().map(|w| format!(": {w}")).unwrap_or_default();
        writeln!(std::io::stderr(), "kdrift: no drain, reboot or outage found in {}{why}", store.path().display())?;
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the timeline on stdout as `-o` asks.
fn render_timeline(cli: &Cli, timeline: &kdrift_analyze::DrainTimeline) -> anyhow::Result<()> {
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, timeline)?,
        Output::Table => render::timeline::drains(&mut out, timeline)?,
    }
    Ok(())
}
