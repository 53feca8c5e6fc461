//! One run of a rule plugin (every plugin but the utilization ones): its
//! notes, the evictions in the plugin's order with the rule that chose each
//! pod and the cycle limit it counts against, and the candidates not evicted
//! with their reasons.

use std::io::Write;

use kdrift_rebalance::{thousands, PluginRun};
use tabled::builder::Builder;

use super::{counts_cell, evictions_count, limits_cell, rule_cell, skipped, table};

/// Renders a rule plugin's run.
pub(super) fn rule_run<W: Write>(out: &mut W, run: &PluginRun) -> anyhow::Result<()> {
    writeln!(out, "Profile {} — {}: {}", run.profile, run.plugin, evictions_count(run))?;
    for note in &run.notes {
        writeln!(out, "  {note}")?;
    }
    if run.not_matching > 0 {
        // These plugins list pods in every phase (upstream ListAllPodsOnANode),
        // so their count can exceed the other plugins'.
        let every_phase = [
            kdrift_rebalance::POD_LIFE_TIME,
            kdrift_rebalance::REMOVE_FAILED_PODS,
            kdrift_rebalance::REMOVE_PODS_HAVING_TOO_MANY_RESTARTS,
        ]
        .contains(&run.plugin.as_str());
        let phases = if every_phase { " (pods in every phase: Succeeded and Failed ones count here)" } else { "" };
        writeln!(out, "  {} pod(s) do not break the rule{phases}", thousands(run.not_matching as u64))?;
    }
    if !run.evictions.is_empty() {
        let with_limits = run.evictions.iter().any(|e| limits_cell(&e.counted).is_some());
        let mut b = Builder::default();
        let mut header = vec!["#", "POD", "FROM", "RULE"];
        if with_limits {
            header.push("COUNTS AGAINST");
        }
        // -o wide: the policy profile the eviction is in and the pod's uid.
        let wide = crate::format::wide();
        if wide {
            header.extend(["PROFILE", "UID"]);
        }
        b.push_record(header);
        for e in &run.evictions {
            let mut row = vec![e.order.to_string(), e.pod.key(), e.source_node.clone(), rule_cell(e, e.rule.clone())];
            if with_limits {
                row.push(counts_cell(e));
            }
            if wide {
                row.extend([e.profile.clone(), e.pod.uid.clone().unwrap_or_else(|| "-".into())]);
            }
            b.push_record(row);
        }
        table(out, b)?;
    }
    skipped(out, run, "among the candidates")
}

#[cfg(test)]
mod tests {
    use kdrift_rebalance::{ExtensionPoint, PluginRun};

    use super::{rule_run, thousands};

    #[test]
    fn pods_that_break_nothing_are_one_line() {
        assert_eq!(thousands(5940), "5,940");
        assert_eq!(thousands(150_000), "150,000");
        assert_eq!(thousands(7), "7");
        let mut run = PluginRun::new("rules", "PodLifeTime", ExtensionPoint::Deschedule);
        run.not_matching = 5940;
        let mut out = Vec::new();
        rule_run(&mut out, &run).expect("renders");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(
            text.starts_with(
                "Profile rules — PodLifeTime: 0 evictions\n  5,940 pod(s) do not break the rule (pods in every phase: \
                 Succeeded and Failed ones count here)\n"
            ),
            "{text}"
        );
    }
}
