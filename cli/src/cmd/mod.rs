//! One function per command: open the store, call the library, render.

mod api;
mod check;
mod cluster;
mod demo;
mod ingest;
mod postmortem;
mod query;
mod rebalance;
mod rebalance_exec;
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
        Command::Ingest(IngestCommand::Api(args)) => api::snapshot(&cli, args),
        Command::Record(args) => api::record(&cli, args),
        Command::Ingest(IngestCommand::Victorialogs(args)) => ingest::victorialogs(&cli, args),
        Command::WhyPending(args) => why_pending::run(&cli, args),
        Command::Demo(args) => demo::run(&cli, args),
        Command::Query(args) => query::run(&cli, args),
        Command::Rebalance(RebalanceCommand::Plan(args)) => rebalance::plan(&cli, args),
        Command::Rebalance(RebalanceCommand::Recommend(args)) => rebalance::recommend(&cli, args),
        Command::Rebalance(RebalanceCommand::Apply(args)) => rebalance_exec::apply(&cli, args),
        Command::Rebalance(RebalanceCommand::Run(args)) => rebalance_exec::run(&cli, args),
        Command::Check(args) => check::run(&cli, args),
        Command::Skew(args) => skew::run(&cli, args),
        Command::Postmortem(PostmortemCommand::Job(args)) => postmortem::job(&cli, args),
        Command::Timeline(TimelineCommand::Drains(args)) => timeline::drains(&cli, args),
        Command::Report(args) => report::run(&cli, args),
    }
}
