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
    rows: String,
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

/// Writes a VictoriaLogs pull: one row per committed window (a run of
/// windows without a row, error or retry folded into one: a month's pull
/// of two busy days printed 28 rows of zeros, new-user trial 46), the
/// totals, the notes.
pub fn victorialogs<W: Write>(out: &mut W, report: &PullReport, db: &Path) -> anyhow::Result<()> {
    if !report.windows.is_empty() {
        let mut rows: Vec<WindowRow> = Vec::new();
        // How many empty windows the last row stands for (0: not a fold).
        let mut folded = 0usize;
        for w in &report.windows {
            let empty = w.rows == 0 && w.error_count == 0 && w.attempts <= 1;
            if empty && folded > 0 {
                folded += 1;
                if let Some(last) = rows.last_mut() {
                    last.end = time(&w.window.end);
                    last.rows = format!("0 ({folded} windows)");
                }
                continue;
            }
            folded = usize::from(empty);
            rows.push(WindowRow {
                start: time(&w.window.start),
                end: time(&w.window.end),
                rows: w.rows.to_string(),
                events: w.events,
                objects: w.objects,
                added: w.added,
                duplicates: w.duplicates,
                errors: usize::try_from(w.error_count).unwrap_or(usize::MAX),
                attempts: w.attempts,
            });
        }
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

#[cfg(test)]
mod tests {
    use kdrift_ingest::{PullReport, Window, WindowReport};

    /// New-user trial 46: a month's pull printed a row of zeros per empty day.
    #[test]
    fn runs_of_empty_windows_are_one_row() {
        let day = |d: u32, rows: u64| WindowReport {
            window: Window {
                start: format!("2026-11-{d:02}T00:00:00Z").parse().expect("t"),
                end: format!("2026-11-{:02}T00:00:00Z", d + 1).parse().expect("t"),
                expected_rows: rows,
            },
            run_id: 1,
            rows,
            records: rows,
            events: rows,
            objects: 0,
            added: rows,
            duplicates: 0,
            errors: Vec::new(),
            error_count: 0,
            schema_rejected: 0,
            attempts: 1,
        };
        let windows = vec![day(1, 0), day(2, 0), day(3, 0), day(4, 7), day(5, 0), day(6, 3)];
        let report = PullReport { url: "http://127.0.0.1:9428".into(), windows, ..PullReport::default() };
        let mut out = Vec::new();
        super::victorialogs(&mut out, &report, std::path::Path::new("s.duckdb")).expect("render");
        let text = String::from_utf8(out).expect("utf8");
        let rows: Vec<Vec<&str>> = text
            .lines()
            .skip(1)
            .take_while(|l| l.trim_start().starts_with("2026"))
            .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).take(3).collect())
            .collect();
        assert_eq!(rows.len(), 4, "{text}");
        assert_eq!(rows[0], ["2026-11-01T00:00:00Z", "2026-11-04T00:00:00Z", "0 (3 windows)"], "{text}");
        assert_eq!(rows[2], ["2026-11-05T00:00:00Z", "2026-11-06T00:00:00Z", "0"], "{text}");
        assert!(text.contains("10 rows from http://127.0.0.1:9428"), "{text}");
    }
}
