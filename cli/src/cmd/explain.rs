//! `kdrift rebalance explain NAMESPACE/POD`: for every plugin of the policy,
//! in cycle order, would it evict this pod at `--at` (the store's history),
//! and if not, the first rule that stops it. Plan only: never evicts.

use std::io::Write;
use std::process::ExitCode;

use kdrift_rebalance::{explain_pod, PlanOptions};

use super::rebalance::{load_store, note_default_policy, read_policy};
use crate::args::{Cli, Output, RebalanceExplainArgs};
use crate::render;

/// Exit 0 with the explanation; 1 when the store has no nodes at the
/// instant or no such pod then (said on stderr, with the pods of that name
/// in other namespaces); errors (bad policy, no store, a POD not written
/// NAMESPACE/NAME) are exit 2 through `main`.
pub fn explain(cli: &Cli, args: &RebalanceExplainArgs) -> anyhow::Result<ExitCode> {
    let Some((namespace, name)) = args.pod.split_once('/').filter(|(ns, n)| !ns.is_empty() && !n.is_empty()) else {
        anyhow::bail!("expected the pod as NAMESPACE/NAME, got {:?}", args.pod);
    };
    let (policy, policy_source) = read_policy(args.policy.as_deref())?;
    let Some(loaded) = load_store(cli, args.at)? else { return Ok(ExitCode::from(1)) };
    note_default_policy(&policy_source)?;
    let pods = &loaded.snapshot.pods;
    let Some(index) = pods.iter().position(|p| p.namespace == namespace && p.name == name) else {
        let elsewhere: Vec<String> = pods.iter().filter(|p| p.name == name).map(|p| p.key()).take(5).collect();
        let hint = if elsewhere.is_empty() { String::new() } else { format!(" (that name: {})", elsewhere.join(", ")) };
        writeln!(
            std::io::stderr(),
            "kdrift: no pod {namespace}/{name} in the store at {}{hint}",
            loaded.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )?;
        return Ok(ExitCode::from(1));
    };
    let explanation = explain_pod(&loaded.snapshot, &policy, &PlanOptions::default(), index);
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &explanation)?,
        Output::Table => render::rebalance::explain(&mut out, &explanation, loaded.at, &policy_source)?,
    }
    Ok(ExitCode::SUCCESS)
}
