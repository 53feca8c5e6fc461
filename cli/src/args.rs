//! Command-line arguments (clap). Parsing only: no I/O happens here; value
//! parsers are pure functions with tests.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The default store file, in the working directory.
pub const DEFAULT_DB: &str = "kdrift.duckdb";

/// kdrift: why pods stayed Pending, what drains left behind, and a
/// descheduler-compatible rebalance — from cluster history kept in DuckDB.
#[derive(Debug, Parser)]
#[command(name = "kdrift", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The store file (DuckDB).
    #[arg(long, global = true, env = "KDRIFT_DB", default_value = DEFAULT_DB, value_name = "PATH")]
    pub db: PathBuf,
    /// Output format on stdout.
    #[arg(short = 'o', long, global = true, value_enum, default_value_t = Output::Table)]
    pub output: Output,
    /// More log output on stderr (-v info, -vv debug; or KDRIFT_LOG=…).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Human-readable tables.
    Table,
    /// One JSON document.
    Json,
}

/// Commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load cluster history into the store.
    #[command(subcommand)]
    Ingest(IngestCommand),
    /// Explain why a pod stayed Pending (or list every pod that did).
    WhyPending(WhyPendingArgs),
    /// Generate the built-in demo cluster history and explain it (needs nothing but this binary).
    Demo(DemoArgs),
    /// Run one of kdrift's named read queries (queries/*.sql) against the store.
    Query(QueryArgs),
}

/// `kdrift query`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["name", "list"]))]
pub struct QueryArgs {
    /// The query's name (see --list).
    pub name: Option<String>,
    /// List the queries with their parameters.
    #[arg(long)]
    pub list: bool,
    /// A parameter, as NAME=VALUE (repeatable); times as RFC 3339 (2026-11-28T05:00:00Z).
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, String)>,
}

/// Parses `NAME=VALUE` (pure; used by clap).
pub fn parse_param(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected NAME=VALUE, got {s:?}")),
    }
}

/// Ingest sources.
#[derive(Debug, Subcommand)]
pub enum IngestCommand {
    /// Dump files and directories: `kubectl get … -o json|yaml`, `kubectl cluster-info dump`
    /// directories, NDJSON (VictoriaLogs exports included), gzip-compressed files.
    File(IngestFileArgs),
}

/// `kdrift ingest file`.
#[derive(Debug, Args)]
pub struct IngestFileArgs {
    /// Files or directories (walked recursively).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// `kdrift why-pending`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("target").required(true).args(["pod", "all"]))]
pub struct WhyPendingArgs {
    /// The pod, as NAMESPACE/NAME.
    #[arg(value_name = "NAMESPACE/POD", value_parser = parse_pod_ref)]
    pub pod: Option<PodRef>,
    /// Every pod that had FailedScheduling, longest-pending first.
    #[arg(long)]
    pub all: bool,
}

/// `kdrift demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the demo store at this path (default: a temporary file, removed afterwards).
    #[arg(long, value_name = "PATH")]
    pub save: Option<PathBuf>,
    /// Scenario seed: changes names, uids and sub-second times; the story's nodes, times and numbers stay the same.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// A `NAMESPACE/NAME` pod reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodRef {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
}

/// Parses `NAMESPACE/NAME` (pure; used by clap).
pub fn parse_pod_ref(s: &str) -> Result<PodRef, String> {
    match s.split_once('/') {
        Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => {
            Ok(PodRef { namespace: ns.to_string(), name: name.to_string() })
        }
        _ => Err(format!("expected NAMESPACE/NAME (e.g. media/backup-29390640-x7k2q), got {s:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn pod_ref_parsing() {
        assert_eq!(parse_pod_ref("media/backup-1"), Ok(PodRef { namespace: "media".into(), name: "backup-1".into() }));
        assert!(parse_pod_ref("backup-1").is_err());
        assert!(parse_pod_ref("/x").is_err());
        assert!(parse_pod_ref("a/b/c").is_err());
    }

    #[test]
    fn param_parsing() {
        assert_eq!(parse_param("at_us=2026-01-01T00:00:00Z"), Ok(("at_us".into(), "2026-01-01T00:00:00Z".into())));
        assert_eq!(parse_param("a=b=c"), Ok(("a".into(), "b=c".into())));
        assert!(parse_param("=x").is_err());
        assert!(parse_param("novalue").is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn why_pending_needs_a_pod_or_all() {
        assert!(Cli::try_parse_from(["kdrift", "why-pending"]).is_err());
        assert!(Cli::try_parse_from(["kdrift", "why-pending", "--all"]).is_ok());
        assert!(Cli::try_parse_from(["kdrift", "why-pending", "--bogus"]).is_err());
    }
}
