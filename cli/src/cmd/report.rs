//! `kdrift report --html FILE`: gathers the report from the store and
//! writes it as one self-contained HTML file.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use kdrift_analyze::{report_data, ReportOptions};
use serde::Serialize;

use crate::args::{Cli, Output, ReportArgs};
use crate::render;

/// What was written (`-o json`): the counts of what the file shows.
#[derive(Debug, Serialize)]
struct Written {
    file: String,
    /// The report's range (`null` when neither given nor set by the store).
    from: Option<chrono::DateTime<chrono::Utc>>,
    to: Option<chrono::DateTime<chrono::Utc>>,
    /// Nodes of the drain timeline and the requested % charts.
    nodes: usize,
    operations: usize,
    /// Requested % samples charted (those with a node: none when no node is charted).
    samples: usize,
    /// Pods that were Pending in the range, in all.
    pending: usize,
    /// Those of them listed (the longest-pending, at most `ReportOptions::max_listed`).
    listed: usize,
    chains: usize,
}

impl Written {
    /// The summary line, saying what the file shows and nothing it does
    /// not: `wrote r.html: A → B, 5 nodes charted (40 requested % samples),
    /// 2 drains or outages, 1 Pending pod, 1 chain`. It said `0 nodes
    /// charted, 4 requested % samples` of a store without nodes, and `5
    /// nodes charted` of a range outside the history.
    fn summary(&self, range: &str, outside_history: bool) -> String {
        use kdrift_analyze::count;
        if outside_history {
            return format!("wrote {}: nothing charted or listed: the range is outside the store's history", self.file);
        }
        let charted = match (self.nodes, self.samples) {
            (0, _) => "no node charted (no Node objects in the range)".to_string(),
            (_, 0) => format!("{} (no requested % sample)", count(self.nodes, "node charted", "nodes charted")),
            (n, k) => format!(
                "{} ({})",
                count(n, "node charted", "nodes charted"),
                count(k, "requested % sample", "requested % samples")
            ),
        };
        format!(
            "wrote {}: {range}, {charted}, {}, {}, {}",
            self.file,
            count(self.operations, "drain or outage", "drains or outages"),
            count(self.pending, "Pending pod", "Pending pods"),
            count(self.chains, "chain", "chains")
        )
    }
}

/// Exit 0 when the report shows something, 1 when the range has no node,
/// drain or Pending pod, or lies outside the store's history (the file is
/// written either way, with a note saying so).
pub fn run(cli: &Cli, args: &ReportArgs) -> anyhow::Result<ExitCode> {
    super::check_range(args.since, args.until)?;
    let store = crate::cmd::open_existing_store(cli)?;
    let data = report_data(&store, args.since, args.until, &ReportOptions::default())?;
    let file = std::fs::File::create(&args.html).with_context(|| format!("creating {}", args.html.display()))?;
    let mut w = BufWriter::new(file);
    let rendering = std::time::Instant::now();
    render::report::html(&mut w, &data)
        .and_then(|()| w.flush())
        .with_context(|| format!("writing {}", args.html.display()))?;
    // As the analyses' step timings (`kdrift -vv`).
    tracing::debug!(step = "report: html written", ms = rendering.elapsed().as_secs_f64() * 1e3, "step");
    let written = Written {
        file: args.html.display().to_string(),
        from: data.from,
        to: data.to,
        nodes: data.nodes.len(),
        operations: data.timeline.operations.len(),
        samples: data.requested.charted_samples(),
        pending: data.pending_total,
        listed: data.pending.len(),
        chains: data.chains.len(),
    };
    let mut out = crate::render::stdout();
    match cli.output {
        Output::Json => render::json(&mut out, &written)?,
        Output::Table => {
            let range = match (data.store_first_at, written.from, written.to) {
                (Some(_), Some(from), Some(to)) => {
                    format!("{} → {}", render::timeline::full(from), render::timeline::full(to))
                }
                // An empty store has no range (it read 1970-01-01 → 1970-01-01).
                _ => "the store holds no history yet".to_string(),
            };
            writeln!(out, "{}", written.summary(&range, data.outside_history))?
        }
    }
    if data.outside_history {
        let given =
            |t: Option<chrono::DateTime<chrono::Utc>>, open: &str| t.map_or(open.to_string(), render::timeline::full);
        writeln!(
            std::io::stderr(),
            "kdrift: the range {} → {} is outside the history of {} ({} → {}): nothing in the store falls in it",
            given(args.since, "the store's start"),
            given(args.until, "the store's end"),
            store.path().display(),
            data.store_first_at.map(render::timeline::full).unwrap_or_default(),
            data.store_last_at.map(render::timeline::full).unwrap_or_default(),
        )?;
        return Ok(ExitCode::from(1));
    }
    if written.nodes == 0 && written.operations == 0 && written.pending == 0 {
        let span = match (data.store_first_at, data.store_last_at) {
            (Some(first), Some(last)) => {
                format!(" (its history spans {} → {})", render::timeline::full(first), render::timeline::full(last))
            }
            _ => String::new(),
        };
        writeln!(
            std::io::stderr(),
            "kdrift: the range has no node, drain or Pending pod in {}{span}",
            store.path().display()
        )?;
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
