//! The per-file ingest summary table.

use std::io::Write;
use std::path::Path;

use kdrift_ingest::IngestReport;
use tabled::settings::Style;
use tabled::{Table, Tabled};

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "FILE")]
    file: String,
    #[tabled(rename = "FORMAT")]
    format: String,
    #[tabled(rename = "EVENTS")]
    events: u64,
    #[tabled(rename = "OBJECTS")]
    objects: u64,
    #[tabled(rename = "NEW VERSIONS")]
    added: u64,
    #[tabled(rename = "ALREADY STORED")]
    duplicates: u64,
    #[tabled(rename = "SKIPPED")]
    skipped: u64,
    #[tabled(rename = "ERRORS")]
    errors: usize,
}

/// Writes the summary: one row per file, then the run's totals.
pub fn summary<W: Write>(out: &mut W, report: &IngestReport, db: &Path) -> anyhow::Result<()> {
    let rows: Vec<Row> = report
        .files
        .iter()
        .map(|f| Row {
            file: f.location.clone(),
            format: f.format.map_or("-", |x| x.as_str()).to_string(),
            events: f.events,
            objects: f.objects,
            added: f.added,
            duplicates: f.duplicates,
            skipped: f.skipped,
            errors: f.errors.len(),
        })
        .collect();
    writeln!(out, "{}", Table::new(rows).with(Style::blank()))?;
    let c = report.counts;
    writeln!(
        out,
        "run {} ({}): {} object versions read, {} new, {} already stored, {} input errors → {}",
        report.run_id,
        report.status.as_str(),
        c.records,
        c.added,
        c.duplicates,
        report.error_count(),
        db.display()
    )?;
    if !report.ignored.is_empty() {
        let n = report.ignored.len();
        writeln!(
            out,
            "ignored {n} file{} that are not dumps (e.g. {})",
            if n == 1 { "" } else { "s" },
            report.ignored[0]
        )?;
    }
    Ok(())
}
