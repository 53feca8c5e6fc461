//! One function per command: open the store, call the library, render.

mod demo;
mod ingest;
mod query;
mod why_pending;

use std::process::ExitCode;

use crate::args::{Cli, Command, IngestCommand};

/// Runs the parsed command; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Ingest(IngestCommand::File(args)) => ingest::file(&cli, args),
        Command::WhyPending(args) => why_pending::run(&cli, args),
        Command::Demo(args) => demo::run(&cli, args),
        Command::Query(args) => query::run(&cli, args),
    }
}
