//! The `kdrift skew` table: per node, requested % of allocatable per
//! resource and the LowNodeUtilization class; then the skew per resource.

use std::io::Write;

use kdrift_analyze::SkewReport;
use kdrift_rebalance::NodeClass;
use kdrift_rebalance::{percent_text, threshold_text};
use tabled::builder::Builder;

use super::skew_points;
use super::timeline::full;

fn class(c: Option<NodeClass>) -> &'static str {
    match c {
        Some(NodeClass::Underutilized) => "underutilized",
        Some(NodeClass::AppropriatelyUtilized) => "appropriately utilized",
        Some(NodeClass::Overutilized) => "overutilized",
        None => "-",
    }
}

/// The report as text; `source` says where the thresholds came from.
/// Nothing without nodes: the command says why on stderr
/// ([`crate::cmd::nothing_found`]).
pub fn report<W: Write>(out: &mut W, r: &SkewReport, source: &str) -> anyhow::Result<()> {
    if r.nodes.is_empty() {
        return Ok(());
    }
    let headers = super::headers();
    if headers {
        writeln!(out, "Requested % of allocatable at {} (thresholds: {source})", full(r.at))?;
    }
    let mut resources: Vec<&str> = Vec::new();
    for n in &r.nodes {
        for x in &n.requested.resources {
            if !resources.contains(&x.resource.as_str()) {
                resources.push(&x.resource);
            }
        }
    }
    let mut b = Builder::default();
    let mut header = vec!["NODE".to_string()];
    header.extend(resources.iter().map(|r| r.to_uppercase()));
    header.extend(["CLASS".to_string(), "WHY".to_string()]);
    // -o wide: each resource's amounts, requested of allocatable (`1942m of 2000m`).
    let wide = crate::format::wide();
    if wide {
        header.extend(resources.iter().map(|r| format!("{} REQUESTED OF ALLOCATABLE", r.to_uppercase())));
    }
    b.push_record(header);
    for n in &r.nodes {
        let mut name = n.requested.node.clone();
        let mut flags = Vec::new();
        if n.requested.unschedulable {
            flags.push("cordoned");
        }
        if n.requested.ready == Some(false) {
            flags.push("NotReady");
        }
        if !flags.is_empty() {
            name = format!("{name} ({})", flags.join(", "));
        }
        let mut row = vec![name];
        // "≥" marks a lower bound, as in why-pending: `≥0.0 %` is not an estimate of zero.
        let ge = if n.requested.lower_bound { "≥" } else { "" };
        let star = if n.requested.estimated { "*" } else { "" };
        for res in &resources {
            row.push(match n.requested.get(res) {
                Some(l) if l.allocatable > 0 => format!("{ge}{} %{star}", percent_text(l.percent)),
                _ => "-".into(),
            });
        }
        row.push(class(n.class).to_string());
        row.push(n.why.clone());
        for res in resources.iter().filter(|_| wide) {
            row.push(n.requested.get(res).map_or_else(
                || "-".into(),
                |l| {
                    format!(
                        "{ge}{} of {}",
                        super::hot::amount(res, l.requested),
                        super::hot::amount(res, l.allocatable)
                    )
                },
            ));
        }
        b.push_record(row);
    }
    if !r.nodes.is_empty() {
        writeln!(out, "{}", super::plain(&mut b.build()))?;
    }
    for s in r.skew.iter().filter(|_| headers) {
        writeln!(out, "  skew {}: {}", s.resource, skew_points(s))?;
    }
    if let Some(t) = r.thresholds.as_ref().filter(|_| headers) {
        let fmt = |m: &std::collections::BTreeMap<String, f64>| {
            m.iter().map(|(k, v)| format!("{k} {}", threshold_text(*v))).collect::<Vec<_>>().join(", ")
        };
        writeln!(
            out,
            "  LowNodeUtilization{}: underutilized at or below {}; overutilized above {}",
            if t.deviation { " (deviation from the mean)" } else { "" },
            fmt(&t.low),
            fmt(&t.high)
        )?;
    }
    if let Some(why) = &r.not_classified {
        super::note_line(out, &format!("  not classified: {why}"))?;
    }
    if headers && r.nodes.iter().any(|n| n.requested.lower_bound) {
        writeln!(out, "  ≥ lower bound: the store lacks pods or their requests (see the notes)")?;
    }
    if headers && r.nodes.iter().any(|n| n.requested.estimated) {
        writeln!(out, "  * estimated: versions observed after the instant, or pods known only from events")?;
    }
    for n in &r.notes {
        super::note_line(out, &format!("note: {n}"))?;
    }
    Ok(())
}
