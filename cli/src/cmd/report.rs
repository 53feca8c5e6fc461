//! `kdrift report --html FILE`: gathers the report from the store and
//! writes it as one self-contained HTML file.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use kdrift_analyze::{report_data, ReportOptions};
use serde::Serialize;

use crate::args::{Cli, Output, ReportArgs};
use crate::render;

/// What was written (`-o json`).
#[derive(Debug, Serialize)]
struct Written {
    file: String,
    from: chrono::DateTime<chrono::Utc>,
    to: chrono::DateTime<chrono::Utc>,
    nodes: usize,
    operations: usize,
    samples: usize,
    pending: usize,
    chains: usize,
}

/// Exit 0 when the report shows something, 1 when the range has no node,
/// drain or Pending pod, or lies outside the store's history (the file is
/// written either way, with a note saying so).
pub fn run(cli: &Cli, args: &ReportArgs) -> anyhow::Result<ExitCode> {
    super::check_range(args.since, args.until)?;
    let store = crate::cmd::open_existing_store(&cli.db)?;
    let data = report_data(&store, args.since, args.until, &ReportOptions::default())?;
    let file = std::fs::File::create(&args.html).with_context(|| format!("creating {}", args.html.display()))?;
    let mut w = BufWriter::new(file);
    render::report::html(&mut w, &data)
        .and_then(|()| w.flush())
        .with_context(|| format!("writing {}", args.html.display()))?;
    let written = Written {
        file: args.html.display().to_string(),
        from: data.from,
        to: data.to,
        nodes: data.nodes.len(),
        operations: data.timeline.operations.len(),
        samples: data.requested.samples.len(),
        pending: data.pending.len(),
        chains: data.chains.len(),
    };
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &written)?,
        Output::Table => writeln!(
            out,
            "wrote {}: {}, {}, {} drain(s) or outage(s), {} requested % samples, {} Pending pod(s), {} chain(s)",
            written.file,
            match data.store_first_at {
                // An empty store has no range (it read 1970-01-01 → 1970-01-01).
                None => "the store holds no history yet".to_string(),
                Some(_) => format!("{} → {}", render::timeline::full(written.from), render::timeline::full(written.to)),
            },
            kdrift_analyze::count(written.nodes, "node charted", "nodes charted"),
            written.operations,
            written.samples,
            written.pending,
            written.chains
        )?,
    }
    if data.outside_history {
        let given =
            |t: Option<chrono::DateTime<chrono::Utc>>, open: &str| t.map_or(open.to_string(), render::timeline::full);
        writeln!(
            std::io::stderr(),
            "kdrift: the range {} → {} is outside the history of {} ({} → {}): nothing in the store falls in it",
            given(args.since, "its start"),
            given(args.until, "its end"),
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
