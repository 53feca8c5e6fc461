//! `kdrift sessions annotate`: connect, run a round of
//! [`kdrift_rebalance::sessions::run::annotate_once`] (or one every
//! `--every`), record the changes in the store, render. Exit 0 when every
//! change was made and recorded, 2 otherwise (or on any error).

use std::io::Write;
use std::process::ExitCode;

use kdrift_rebalance::sessions::run::annotate_once;

use super::cluster::{self, Sink};
use crate::args::{Cli, Output, SessionsAnnotateArgs};
use crate::render;

/// `sessions annotate`.
pub fn annotate(cli: &Cli, args: &SessionsAnnotateArgs) -> anyhow::Result<ExitCode> {
    let store = cluster::open_store(cli, args.no_store)?;
    let (runtime, client, _) = cluster::connect(&args.cluster)?;
    let probes: Vec<String> = args.probes.iter().map(|p| p.spec()).collect();
    let location = format!("sessions annotate --probe {}", probes.join(" --probe "));
    let rounds = match args.every {
        None => 1,
        Some(_) => args.max_iterations.unwrap_or(u64::MAX),
    };
    let mut failed = false;
    for n in 0..rounds {
        if n > 0 {
            if let Some(every) = args.every {
                std::thread::sleep(every);
            }
        }
        let mut sink = match &store {
            Some(s) => Sink::Store(kdrift_ingest::StoreSink::new(s, &location)),
            None => Sink::Memory(Vec::new()),
        };
        let report = runtime.block_on(annotate_once(&client, &args.probes, &mut sink, chrono::Utc::now()));
        drop(sink);
        let report = match (report, args.every) {
            (Ok(r), _) => r,
            (Err(e), None) => return Err(anyhow::Error::new(e).context("listing the pods")),
            (Err(e), Some(_)) => {
                writeln!(std::io::stderr(), "kdrift: error: listing the pods: {e}; trying again next round")?;
                failed = true;
                continue;
            }
        };
        if !report.changes.is_empty() {
            if let Some(s) = &store {
                crate::cmd::keep_after_ingest(s)?;
            }
        }
        let mut out = crate::render::stdout();
        match cli.output {
            Output::Json => render::json(&mut out, &report)?,
            Output::Table => render::sessions::round(&mut out, &report)?,
        }
        out.flush()?;
        let mut err = std::io::stderr().lock();
        for e in &report.record_errors {
            writeln!(err, "kdrift: not recorded in the store: {e}")?;
        }
        failed |= report.failed();
    }
    Ok(if failed { ExitCode::from(2) } else { ExitCode::SUCCESS })
}
