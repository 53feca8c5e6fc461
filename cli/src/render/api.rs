//! The per-resource table of `kdrift ingest api` and `kdrift record`.

use std::io::Write;
use std::path::Path;

use kdrift_analyze::count;
use kdrift_ingest::{ApiReport, Severity};
use tabled::{Table, Tabled};

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "RESOURCE")]
    resource: String,
    #[tabled(rename = "RECEIVED")]
    received: u64,
    #[tabled(rename = "NEW VERSIONS")]
    added: u64,
    #[tabled(rename = "ALREADY STORED")]
    duplicates: u64,
    #[tabled(rename = "RESOURCE VERSION")]
    resource_version: String,
    #[tabled(rename = "NOTE")]
    note: String,
}

/// Writes one row per resource, then the run's totals.
pub fn summary<W: Write>(out: &mut W, report: &ApiReport, db: &Path) -> anyhow::Result<()> {
    let rows: Vec<Row> = report
        .resources
        .iter()
        .map(|r| Row {
            resource: r.resource.clone(),
            received: r.received,
            added: r.added,
            duplicates: r.duplicates,
            resource_version: r.resource_version.clone().unwrap_or_else(|| "-".into()),
            note: match &r.problem {
                Some(p) if p.severity == Severity::Warning => "not readable here (see warning)".into(),
                Some(_) => "failed (see error)".into(),
                None if !r.item_errors.is_empty() => {
                    count(usize::try_from(r.item_error_total()).unwrap_or(usize::MAX), "item error", "item errors")
                }
                None => String::new(),
            },
        })
        .collect();
    writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    let c = report.counts;
    writeln!(
        out,
        "run {} ({}): {} {}: {} received, {} new, {} already stored, {}, {} → {}",
        report.run_id,
        report.status.as_str(),
        report.cluster,
        report.scope,
        count(c.records as usize, "object version", "object versions"),
        c.added,
        c.duplicates,
        count(report.warnings(), "warning", "warnings"),
        count(report.errors(), "error", "errors"),
        db.display()
    )?;
    if let Some(u) = report.usage.as_ref().filter(|u| !u.not_served) {
        writeln!(
            out,
            "usage from metrics.k8s.io: {} and {} in {}: {} new, {} already stored, {}",
            count(u.nodes as usize, "node sample", "node samples"),
            count(u.pods as usize, "pod sample", "pod samples"),
            count(u.takes as usize, "take", "takes"),
            u.added,
            u.duplicates,
            count(usize::try_from(u.error_total).unwrap_or(usize::MAX), "error", "errors"),
        )?;
    }
    Ok(())
}
