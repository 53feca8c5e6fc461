//! `kdrift hotspots`: nodes whose measured cpu or memory stayed at or above
//! a used-% threshold for consecutive steps, each episode's pods and what
//! put them there.

use std::process::ExitCode;

use kdrift_analyze::{hotspots, HotspotsOptions};

use crate::args::{Cli, HotspotsArgs, Output};
use crate::render;

/// Exit 0 when the range has node usage samples (episodes or none), 1 when
/// it has none (no usage sample at all, or none in the range).
pub fn run(cli: &Cli, args: &HotspotsArgs) -> anyhow::Result<ExitCode> {
    let store = crate::cmd::open_existing_store(cli)?;
    let options = HotspotsOptions {
        since: args.since,
        until: args.until,
        threshold: args.threshold,
        windows: args.windows as usize,
        step: args.step,
    };
    let report = hotspots(&store, &options)?;
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::hot::hotspots(&mut out, &report)?,
    }
    Ok(if report.no_samples.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
