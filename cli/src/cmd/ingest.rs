//! `kdrift ingest file`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use kdrift_ingest::{ingest_files, Store};

use crate::args::{Cli, IngestFileArgs, Output};
use crate::progress::Bar;
use crate::render;

/// Loads the files, prints the per-file summary on stdout and every input
/// error on stderr. Exit 2 when anything failed to load, else 0.
pub fn file(cli: &Cli, args: &IngestFileArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open(&cli.db).with_context(|| format!("opening store {}", cli.db.display()))?;
    let report = {
        let mut bar = Bar::new();
        ingest_files(&store, &args.paths, &mut bar)?
    };
    {
        let mut err = std::io::stderr().lock();
        for file in &report.files {
            for e in &file.errors {
                writeln!(err, "kdrift: {e}")?;
            }
        }
    }
    let mut out = std::io::stdout().lock();
    match cli.output {
        Output::Json => render::json(&mut out, &report)?,
        Output::Table => render::ingest::summary(&mut out, &report, &cli.db)?,
    }
    Ok(if report.error_count() > 0 { ExitCode::from(2) } else { ExitCode::SUCCESS })
}
