//! The summary of `kdrift ingest prometheus`: one row per committed window,
//! then the totals and notes.

use std::io::Write;
use std::path::Path;

use kdrift_analyze::count;
use kdrift_ingest::PromReport;
use tabled::{Table, Tabled};

#[derive(Tabled)]
struct WindowRow {
    #[tabled(rename = "WINDOW START")]
    start: String,
    #[tabled(rename = "END")]
    end: String,
    #[tabled(rename = "SAMPLES")]
    samples: u64,
    #[tabled(rename = "NEW")]
    added: u64,
    #[tabled(rename = "ALREADY STORED")]
    duplicates: u64,
    #[tabled(rename = "ERRORS")]
    errors: usize,
    #[tabled(rename = "RUN")]
    run_id: i64,
}

/// Writes a Prometheus pull: one row per committed window, the totals, the notes.
pub fn summary<W: Write>(out: &mut W, report: &PromReport, db: &Path) -> anyhow::Result<()> {
    if !report.windows.is_empty() {
        let rows: Vec<WindowRow> = report
            .windows
            .iter()
            .map(|w| WindowRow {
                start: super::ingest::time(&w.window.start),
                end: super::ingest::time(&w.window.end),
                samples: w.samples,
                added: w.added,
                duplicates: w.duplicates,
                errors: usize::try_from(w.error_count).unwrap_or(usize::MAX),
                run_id: w.run_id,
            })
            .collect();
        writeln!(out, "{}", super::plain(&mut Table::new(rows)))?;
    }
    writeln!(
        out,
        "{} from {} in {}: {} new, {} already stored, {} → {}",
        count(report.samples() as usize, "usage sample", "usage samples"),
        report.url,
        count(report.windows_pulled(), "window", "windows"),
        report.added(),
        report.samples() - report.added(),
        count(report.error_count(), "input error", "input errors"),
        db.display()
    )?;
    if let Some(t) = report.resumed_from {
        writeln!(out, "resumed after the last committed window, at {}", super::ingest::time(&t))?;
    }
    for note in &report.notes {
        writeln!(out, "note: {note}")?;
    }
    Ok(())
}
