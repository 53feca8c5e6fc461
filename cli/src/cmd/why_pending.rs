//! `kdrift why-pending NAMESPACE/POD` and `kdrift why-pending --all`.

use std::io::Write;
use std::process::ExitCode;

use kdrift_analyze::{pending_pods, why_pending};
use kdrift_ingest::Store;

use crate::args::{Cli, Output, WhyPendingArgs};
use crate::render;

/// Exit 0 with findings, 1 when the store has nothing for the pod.
pub fn run(cli: &Cli, args: &WhyPendingArgs) -> anyhow::Result<ExitCode> {
    let store = crate::cmd::open_existing_store(&cli.db)?;
    let mut out = std::io::stdout().lock();
    explain(&mut out, &store, cli.output, args)
}

/// Writes the answer for `args` to `out` (shared with `kdrift demo`).
pub fn explain<W: Write>(
    out: &mut W,
    store: &Store,
    output: Output,
    args: &WhyPendingArgs,
) -> anyhow::Result<ExitCode> {
    if let Some(pod) = &args.pod {
        let Some(report) = why_pending(store, &pod.namespace, &pod.name)? else {
            writeln!(
                std::io::stderr(),
                "kdrift: no FailedScheduling event for {}/{} in {} (try `kdrift why-pending --all`)",
                pod.namespace,
                pod.name,
                store.path().display()
            )?;
            return Ok(ExitCode::from(1));
        };
        match output {
            Output::Json => render::json(out, &report)?,
            Output::Table => render::pending::report(out, &report)?,
        }
        return Ok(ExitCode::SUCCESS);
    }
    let pods = pending_pods(store)?;
    if pods.is_empty() {
        writeln!(std::io::stderr(), "kdrift: no FailedScheduling events in {}", store.path().display())?;
    }
    match output {
        Output::Json => render::json(out, &pods)?,
        Output::Table => render::pending::list(out, &pods)?,
    }
    Ok(if pods.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
