//! One function per command: open the store, call the library, render.

mod demo;
mod ingest;
mod postmortem;
mod query;
mod rebalance;
mod report;
mod skew;
mod timeline;
mod why_pending;

use std::process::ExitCode;

use crate::args::{Cli, Command, IngestCommand, PostmortemCommand, RebalanceCommand, TimelineCommand};

/// Runs the parsed command; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Ingest(IngestCommand::File(args)) => ingest::file(&cli, args),
        Command::WhyPending(args) => why_pending::run(&cli, args),
        Command::Demo(args) => demo::run(&cli, args),
        Command::Query(args) => query::run(&cli, args),
        Command::Rebalance(RebalanceCommand::Plan(args)) => rebalance::plan(&cli, args),
        Command::Rebalance(RebalanceCommand::Recommend(args)) => rebalance::recommend(&cli, args),
        Command::Skew(args) => skew::run(&cli, args),
        Command::Postmortem(PostmortemCommand::Job(args)) => postmortem::job(&cli, args),
        Command::Timeline(TimelineCommand::Drains(args)) => timeline::drains(&cli, args),
        Command::Report(args) => report::run(&cli, args),
    }
}
