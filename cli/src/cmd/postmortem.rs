//! `kdrift postmortem job NAMESPACE/NAME` (or `NAME` alone, its namespace
//! found in the store): why a Job (or a CronJob's runs) failed.

use std::io::Write;
use std::process::ExitCode;

use kdrift_analyze::job_name_namespaces;
use kdrift_analyze::postmortem_job;

use crate::args::{Cli, Output, PostmortemJobArgs};
use crate::render;

/// Exit 0 with a postmortem, 1 when the store knows no such Job or CronJob
/// (or the CronJob has no failed run).
pub fn job(cli: &Cli, args: &PostmortemJobArgs) -> anyhow::Result<ExitCode> {
    let store = crate::cmd::open_existing_store(cli)?;
    let name = &args.job.name;
    let namespaces: Vec<String> = if args.job.namespace.is_empty() {
        job_name_namespaces(&store, name)?
    } else {
        vec![args.job.namespace.clone()]
    };
    let ns = match namespaces.as_slice() {
        [only] => only,
        [] => {
            writeln!(
                std::io::stderr(),
                "kdrift: no Job or CronJob named {name} in {} (no Job object, no Job or CronJob event)",
                store.path().display()
            )?;
            return Ok(ExitCode::from(1));
        }
        several => {
            let refs: Vec<String> = several.iter().map(|ns| format!("{ns}/{name}")).collect();
            anyhow::bail!("Jobs or CronJobs named {name} exist in several namespaces: give one of {}", refs.join(", "));
        }
    };
    let Some(pm) = postmortem_job(&store, ns, name)? else {
        writeln!(
            std::io::stderr(),
            "kdrift: no Job or CronJob {ns}/{name} in {} (no Job object, no Job or CronJob event)",
            store.path().display()
        )?;
        return Ok(ExitCode::from(1));
    };
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &pm)?,
        Output::Table => render::postmortem::job(&mut out, &pm)?,
    }
    Ok(if pm.runs.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
