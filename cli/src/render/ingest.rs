//! The ingest summaries: one row per file, or per VictoriaLogs query window.

use std::io::Write;
use std::path::Path;

use kdrift_analyze::count;
use kdrift_ingest::IngestReport;
use kdrift_ingest::PullReport;
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

/// Writes the summary: one row per file, then the run's totals; the files
/// under one of `dirs` (the directories given, absolute) summed per
/// directory holding them ([`super::ingest_dirs`]: `ingest file DIR`
/// without `-v`).
pub fn summary<W: Write>(out: &mut W, report: &IngestReport, db: &Path, dirs: &[String]) -> anyhow::Result<()> {
    if !report.files.is_empty() || report.usage.is_empty() {
        if dirs.is_empty() {
            objects(out, report, db)?;
        } else {
            let rows = super::ingest_dirs::rows(&report.files, dirs);
            writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
            totals(out, report, db)?;
            writeln!(out, "(one row per directory read: -v lists every file)")?;
        }
    }
    for u in &report.usage {
        let table = match u.table {
            Some(kdrift_ingest::TopTable::Nodes) => " (kubectl top nodes)",
            Some(kdrift_ingest::TopTable::Pods) => " (kubectl top pods)",
            None => "",
        };
        writeln!(
            out,
            "run {}: {}{table} from {} at {}: {} new, {} already stored, {} → {}",
            u.run_id,
            count(u.samples as usize, "usage sample", "usage samples"),
            u.location,
            time(&u.at),
            u.added,
            u.duplicates,
            count(usize::try_from(u.error_total).unwrap_or(usize::MAX), "input error", "input errors"),
            db.display()
        )?;
    }
    if !report.ignored.is_empty() {
        let n = report.ignored.len();
        writeln!(
            out,
            "ignored {} (e.g. {})",
            count(n, "file that is not a dump", "files that are not dumps"),
            report.ignored[0]
        )?;
    }
    Ok(())
}

/// The dump files' rows and their run's totals.
fn objects<W: Write>(out: &mut W, report: &IngestReport, db: &Path) -> anyhow::Result<()> {
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
            errors: usize::try_from(f.error_total()).unwrap_or(usize::MAX),
        })
        .collect();
    writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    totals(out, report, db)
}

/// The run's totals line.
fn totals<W: Write>(out: &mut W, report: &IngestReport, db: &Path) -> anyhow::Result<()> {
    let c = report.counts;
    writeln!(
        out,
        "run {} ({}): {} read, {} new, {} already stored, {} → {}",
        report.run_id,
        report.status.as_str(),
        count(c.records as usize, "object version", "object versions"),
        c.added,
        c.duplicates,
        count(report.error_count() as usize, "input error", "input errors"),
        db.display()
    )?;
    Ok(())
}

#[derive(Tabled)]
struct WindowRow {
    #[tabled(rename = "WINDOW START")]
    start: String,
    #[tabled(rename = "END")]
    end: String,
    #[tabled(rename = "ROWS")]
    rows: u64,
    #[tabled(rename = "EVENTS")]
    events: u64,
    #[tabled(rename = "OBJECTS")]
    objects: u64,
    #[tabled(rename = "NEW VERSIONS")]
    added: u64,
    #[tabled(rename = "ALREADY STORED")]
    duplicates: u64,
    #[tabled(rename = "ERRORS")]
    errors: usize,
    #[tabled(rename = "ATTEMPTS")]
    attempts: u32,
}

/// A window edge as the pull summaries write it (RFC 3339, seconds unless finer).
pub(super) fn time(t: &chrono::DateTime<chrono::Utc>) -> String {
    super::time(*t)
}

/// Writes a VictoriaLogs pull: one row per committed window, the totals, the notes.
pub fn victorialogs<W: Write>(out: &mut W, report: &PullReport, db: &Path) -> anyhow::Result<()> {
    if !report.windows.is_empty() {
        let rows: Vec<WindowRow> = report
            .windows
            .iter()
            .map(|w| WindowRow {
                start: time(&w.window.start),
                end: time(&w.window.end),
                rows: w.rows,
                events: w.events,
                objects: w.objects,
                added: w.added,
                duplicates: w.duplicates,
                errors: usize::try_from(w.error_count).unwrap_or(usize::MAX),
                attempts: w.attempts,
            })
            .collect();
        writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    }
    let layout = report.layout.map_or_else(|| "unknown".to_string(), |l| format!("{l}, {}", report.layout_source));
    writeln!(
        out,
        "{} from {} (layout {layout}) in {}: {} new, {} already stored, {} → {}",
        count(report.rows() as usize, "row", "rows"),
        report.url,
        count(report.windows.len(), "window", "windows"),
        report.added(),
        report.duplicates(),
        count(report.error_count(), "input error", "input errors"),
        db.display()
    )?;
    if let Some(t) = report.resumed_from {
        writeln!(out, "resumed after the last committed window, at {}", time(&t))?;
    }
    for note in &report.notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}
