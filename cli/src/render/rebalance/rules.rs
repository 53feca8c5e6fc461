//! One run of a rule plugin (every plugin but the utilization ones): its
//! notes, the evictions in the plugin's order with the rule that chose each
//! pod and the cycle limit it counts against, and the candidates not evicted
//! with their reasons.

use std::io::Write;

use kdrift_rebalance::PluginRun;
use tabled::builder::Builder;

use super::{counts_cell, evictions_count, limits_cell, rule_cell, skipped, table};

/// Renders a rule plugin's run.
pub(super) fn rule_run<W: Write>(out: &mut W, run: &PluginRun) -> anyhow::Result<()> {
    writeln!(out, "Profile {} — {}: {}", run.profile, run.plugin, evictions_count(run))?;
    for note in &run.notes {
        writeln!(out, "  {note}")?;
    }
    if !run.evictions.is_empty() {
        let with_limits = run.evictions.iter().any(|e| limits_cell(&e.counted).is_some());
        let mut b = Builder::default();
        let mut header = vec!["#", "POD", "FROM", "RULE"];
        if with_limits {
            header.push("COUNTS AGAINST");
        }
        b.push_record(header);
        for e in &run.evictions {
            let mut row = vec![e.order.to_string(), e.pod.key(), e.source_node.clone(), rule_cell(e, e.rule.clone())];
            if with_limits {
                row.push(counts_cell(e));
            }
            b.push_record(row);
        }
        table(out, b)?;
    }
    skipped(out, run, "among the candidates")
}
