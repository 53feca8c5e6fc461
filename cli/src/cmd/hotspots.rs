//! `kdrift hotspots`: nodes whose measured cpu or memory stayed at or above
//! a used-% threshold for consecutive steps, each episode's pods and what
//! put them there.

use std::process::ExitCode;

use kdrift_analyze::{hotspots, HotspotsOptions};

use crate::args::{Cli, HotspotsArgs, Output};
use crate::render;

/// Exit 0 with episodes, 1 with none (no usage sample at all, none in the
/// range, or none hot for long enough: said on stderr, stdout has the
/// empty table or document; [`crate::cmd::nothing_found`]).
pub fn run(cli: &Cli, args: &HotspotsArgs) -> anyhow::Result<ExitCode> {
    crate::cmd::check_range(args.since, args.until)?;
    let store = crate::cmd::open_existing_store(cli)?;
    let options = HotspotsOptions {
        since: args.since,
        until: args.until,
        threshold: args.threshold,
        windows: args.windows as usize,
        step: args.step,
    };
    let report = hotspots(&store, &options)?;
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::hot::hotspots(&mut out, &report)?,
    }
    crate::cmd::nothing_found(render::hot::hotspots_none(&report), &[])
}
