//! Text for `kdrift sessions annotate`: one summary line per round, then one
//! line per change (the pod, what was done, why, or the PATCH's error).

use std::io::Write;

use kdrift_rebalance::sessions::run::AnnotateReport;
use kdrift_rebalance::sessions::Action;
use tabled::builder::Builder;

/// One round.
pub fn round<W: Write>(out: &mut W, report: &AnnotateReport) -> anyhow::Result<()> {
    let done = report.changes.iter().filter(|c| c.error.is_none()).count();
    writeln!(
        out,
        "{}: {} pod(s), {} probed, {} change(s) made{}",
        report.at,
        report.pods,
        report.probed,
        done,
        match report.changes.len() - done {
            0 => String::new(),
            failed => format!(", {failed} failed"),
        }
    )?;
    for pod in &report.users_own {
        writeln!(out, "  {pod}: prefer-no-eviction set by someone else: left alone")?;
    }
    if report.changes.is_empty() {
        return Ok(());
    }
    let mut b = Builder::default();
    b.push_record(["POD", "CHANGE", "WHY"]);
    for c in &report.changes {
        let what = match (&c.action, &c.error) {
            (Action::Annotate, None) => "annotated".to_string(),
            (Action::Remove, None) => "removed".to_string(),
            (Action::Annotate, Some(e)) => format!("not annotated: {e}"),
            (Action::Remove, Some(e)) => format!("not removed: {e}"),
        };
        b.push_record([c.pod.clone(), what, c.why.clone()]);
    }
    writeln!(out, "{}", super::plain(&mut b.build()))?;
    Ok(())
}
