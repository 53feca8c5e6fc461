//! `rebalance explain`: one line per plugin run, in cycle order, saying
//! whether it evicts the pod and, if not, why.

use std::io::Write;

use chrono::{DateTime, Utc};
use kdrift_rebalance::{Explanation, ExtensionPoint, PodVerdict};

use super::{list, t};

/// Renders the explanation of one pod.
pub fn explain<W: Write>(out: &mut W, e: &Explanation, at: DateTime<Utc>, policy_source: &str) -> anyhow::Result<()> {
    let node = e.node.as_deref().unwrap_or("no node");
    writeln!(out, "{} on {node} at {} — policy {policy_source} (descheduler v0.36, one cycle)", e.pod, t(at))?;
    if let Some(why) = &e.not_considered {
        writeln!(out, "  no plugin looks at it: {why}")?;
    }
    for (profile, why) in &e.protected {
        writeln!(out, "  protected in profile {profile} (DefaultEvictor): {why}")?;
    }
    let evicted_by = e.plugins.iter().find(|p| matches!(&p.verdict, PodVerdict::Evicts { refused_by_pdb: None, .. }));
    let failed = e.plugins.iter().find(|p| matches!(&p.verdict, PodVerdict::Fails { .. }));
    match (evicted_by, failed) {
        (Some(p), _) => writeln!(out, "  verdict: EVICTED by {} (profile {})", p.plugin, p.profile)?,
        (None, Some(f)) => writeln!(
            out,
            "  verdict: UNKNOWN: {} (profile {}) failed before looking at any pod (see below)",
            f.plugin, f.profile
        )?,
        (None, None) if e.not_considered.is_none() => {
            writeln!(out, "  verdict: not evicted by any plugin of the policy")?
        }
        (None, None) => {}
    }
    // The plugin column as wide as its longest name (RemovePodsViolating…
    // (default) is 53 characters: new-user trial 43 saw it misaligned).
    let width = e.plugins.iter().map(|p| p.plugin.chars().count() + p.profile.chars().count() + 3).max().unwrap_or(0);
    let width = width.max(52);
    let mut point = None;
    for p in &e.plugins {
        if point != Some(p.extension_point) {
            point = Some(p.extension_point);
            writeln!(
                out,
                "{}",
                match p.extension_point {
                    ExtensionPoint::Deschedule => "Deschedule plugins (first)",
                    ExtensionPoint::Balance => "Balance plugins (after every Deschedule plugin)",
                }
            )?;
        }
        let what = match &p.verdict {
            PodVerdict::Evicts { order, rule, refused_by_pdb: None } => {
                format!("EVICTS it (#{order} of the cycle): {rule}")
            }
            PodVerdict::Evicts { order, rule, refused_by_pdb: Some(pdb) } => {
                format!("tries to evict it (#{order}): {rule}; REFUSED: {pdb}")
            }
            PodVerdict::Keeps { reason, upstream, limit } => {
                let words = if *upstream { " (descheduler's words)" } else { "" };
                let limit = limit.as_ref().map(|l| format!(": {l}")).unwrap_or_default();
                format!("keeps it: {reason}{words}{limit}")
            }
            PodVerdict::Unbroken { why } => format!("does not break its rule: {why}"),
            PodVerdict::Ignores { why } => format!("does not look at it: {why}"),
            PodVerdict::Fails { error } => format!("FAILED before looking at any pod (evicts nothing): {error}"),
        };
        writeln!(out, "  {:<width$} {what}", format!("{} ({})", p.plugin, p.profile))?;
        if let Some(f) = &p.failed_run {
            writeln!(out, "  {:<width$} {}", "", super::utilization::thresholds_line(&p.plugin, &f.thresholds))?;
            if let Some(u) = &f.usage_source {
                writeln!(out, "  {:<width$} {}", "", super::utilization::usage_source_line(u))?;
            }
        }
        if let Some(node) = &p.node_class {
            writeln!(out, "  {:<width$} its node: {node}", "")?;
        }
    }
    list(out, "Plan warnings", &e.warnings)?;
    list(out, "Notes", &e.notes)?;
    Ok(())
}
