//! Command-line arguments (clap). Parsing only: no I/O happens here; value
//! parsers are pure functions with tests.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
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
    /// Plan a descheduler-compatible rebalance from the store (plan only: never contacts a cluster).
    #[command(subcommand)]
    Rebalance(RebalanceCommand),
    /// Every node's requested % of allocatable now (or --at), the skew between nodes, and each node's
    /// LowNodeUtilization class.
    Skew(SkewArgs),
    /// Why something failed, from the store's history.
    #[command(subcommand)]
    Postmortem(PostmortemCommand),
    /// What happened over time: drains, reboots and outages.
    #[command(subcommand)]
    Timeline(TimelineCommand),
    /// One self-contained HTML file: the drain timeline as a Gantt chart, every node's requested % over time,
    /// and the Pending chains.
    Report(ReportArgs),
}

/// `kdrift report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The HTML file to write (replaced when it exists).
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
    /// Start of the range (default: the store's first instant).
    #[arg(long, value_name = "RFC3339", value_parser = parse_instant)]
    pub since: Option<DateTime<Utc>>,
    /// End of the range (default: the store's last instant).
    #[arg(long, value_name = "RFC3339", value_parser = parse_instant)]
    pub until: Option<DateTime<Utc>>,
}

/// `kdrift skew`.
#[derive(Debug, Args)]
pub struct SkewArgs {
    /// The instant (default: the store's newest observation).
    #[arg(long, value_name = "RFC3339", value_parser = parse_instant)]
    pub at: Option<DateTime<Utc>>,
    /// LowNodeUtilization thresholds (underutilized at or below), percent per resource.
    #[arg(long, value_name = "RES=PCT,…", value_parser = parse_thresholds, requires = "target_thresholds",
          conflicts_with = "policy")]
    pub thresholds: Option<Thresholds>,
    /// LowNodeUtilization targetThresholds (overutilized above), percent per resource.
    #[arg(long, value_name = "RES=PCT,…", value_parser = parse_thresholds, requires = "thresholds",
          conflicts_with = "policy")]
    pub target_thresholds: Option<Thresholds>,
    /// A descheduler policy to take the thresholds from (DeschedulerPolicy, Helm values or ConfigMap);
    /// default: the descheduler Helm chart's default (cpu/memory/pods 20 → 50 %).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
}

/// Percent per resource, as given on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds(pub Vec<(String, f64)>);

/// Parses `cpu=20,memory=20` (pure; used by clap).
pub fn parse_thresholds(s: &str) -> Result<Thresholds, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| format!("expected RESOURCE=PERCENT, got {part:?}"))?;
        let v: f64 = v.trim().parse().map_err(|_| format!("{k}: expected a percent such as 20 or 35.5, got {v:?}"))?;
        if k.trim().is_empty() {
            return Err(format!("expected RESOURCE=PERCENT, got {part:?}"));
        }
        out.push((k.trim().to_string(), v));
    }
    if out.is_empty() {
        return Err("expected RESOURCE=PERCENT[,RESOURCE=PERCENT…], e.g. cpu=20,memory=20".into());
    }
    Ok(Thresholds(out))
}

/// `kdrift postmortem`.
#[derive(Debug, Subcommand)]
pub enum PostmortemCommand {
    /// Why a Job failed (DeadlineExceeded, BackoffLimitExceeded): its pods, the why-pending chain of a pod
    /// that never started, the last container state of one that ran. A CronJob name explains its failed runs.
    Job(PostmortemJobArgs),
}

/// `kdrift postmortem job`.
#[derive(Debug, Args)]
pub struct PostmortemJobArgs {
    /// The Job or CronJob, as NAMESPACE/NAME.
    #[arg(value_name = "NAMESPACE/NAME", value_parser = parse_job_ref)]
    pub job: PodRef,
}

/// Parses a Job or CronJob `NAMESPACE/NAME` (pure; used by clap).
pub fn parse_job_ref(s: &str) -> Result<PodRef, String> {
    parse_pod_ref(s).map_err(|_| format!("expected NAMESPACE/NAME of a Job or CronJob (e.g. media/backup), got {s:?}"))
}

/// `kdrift timeline`.
#[derive(Debug, Subcommand)]
pub enum TimelineCommand {
    /// Drains and rolling drains reconstructed from cordons, evictions, reboots and uncordons:
    /// node order, pods moved and where they landed, requested % before and after, the skew left.
    Drains(TimelineDrainsArgs),
}

/// `kdrift timeline drains`.
#[derive(Debug, Args)]
pub struct TimelineDrainsArgs {
    /// Only operations still going on at or after this instant.
    #[arg(long, value_name = "RFC3339", value_parser = parse_instant)]
    pub since: Option<DateTime<Utc>>,
    /// Only operations started at or before this instant.
    #[arg(long, value_name = "RFC3339", value_parser = parse_instant)]
    pub until: Option<DateTime<Utc>>,
}

/// `kdrift rebalance`.
#[derive(Debug, Subcommand)]
pub enum RebalanceCommand {
    /// What descheduler's LowNodeUtilization would evict from the cluster as the store knows it, and why;
    /// with --simulate, where the replacements would land.
    Plan(RebalancePlanArgs),
    /// Try a grid of LowNodeUtilization thresholds → targets night after night and print the best
    /// converging one as a complete DeschedulerPolicy (exit 1 when none converges).
    Recommend(RebalanceRecommendArgs),
}

/// `kdrift rebalance recommend`.
#[derive(Debug, Args)]
pub struct RebalanceRecommendArgs {
    /// The policy to start from (DeschedulerPolicy, Helm values or the chart's ConfigMap);
    /// default: the descheduler Helm chart's default policy.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The instant to recommend at (default: the store's newest observation).
    #[arg(long, value_name = "RFC3339", value_parser = parse_instant)]
    pub at: Option<DateTime<Utc>>,
    /// Nights replayed per candidate before giving up on it.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_rounds: u32,
}

/// `kdrift rebalance plan`.
#[derive(Debug, Args)]
pub struct RebalancePlanArgs {
    /// A descheduler policy (DeschedulerPolicy, Helm values or the chart's ConfigMap);
    /// default: the descheduler Helm chart's default policy.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The instant to plan at (default: the store's newest observation).
    #[arg(long, value_name = "RFC3339", value_parser = parse_instant)]
    pub at: Option<DateTime<Utc>>,
    /// Predict where the evicted pods' replacements land (kube-scheduler model).
    #[arg(long)]
    pub simulate: bool,
    /// Replay the following nights (plan, land, plan again) until nothing moves, at most N (implies --simulate).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: Option<u32>,
    /// Do not spend evictions on pods that request none of the resources their node is over on
    /// (descheduler does).
    #[arg(long)]
    pub skip_zero_request: bool,
}

/// Parses an RFC 3339 instant into UTC (pure; used by clap).
pub fn parse_instant(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("expected an RFC 3339 time such as 2026-11-28T05:00:00Z, got {s:?} ({e})"))
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
    fn instant_parsing() {
        let t = parse_instant("2026-11-28T07:00:00+02:00").expect("valid");
        assert_eq!(t.to_rfc3339(), "2026-11-28T05:00:00+00:00");
        assert!(parse_instant("2026-11-28").is_err());
    }

    #[test]
    fn rounds_value_is_optional() {
        let rounds = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
            Ok(Command::Rebalance(RebalanceCommand::Plan(a))) => Ok(a.rounds),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.kind()),
        };
        assert_eq!(rounds(&["kdrift", "rebalance", "plan"]), Ok(None));
        assert_eq!(rounds(&["kdrift", "rebalance", "plan", "--rounds"]), Ok(Some(10)));
        assert_eq!(rounds(&["kdrift", "rebalance", "plan", "--rounds", "3"]), Ok(Some(3)));
        assert!(rounds(&["kdrift", "rebalance", "plan", "--rounds", "0"]).is_err());
    }

    #[test]
    fn thresholds_parsing() {
        assert_eq!(
            parse_thresholds("cpu=20, memory=35.5"),
            Ok(Thresholds(vec![("cpu".into(), 20.0), ("memory".into(), 35.5)]))
        );
        assert!(parse_thresholds("cpu").is_err());
        assert!(parse_thresholds("cpu=x").is_err());
        assert!(parse_thresholds("").is_err());
        assert!(Cli::try_parse_from(["kdrift", "skew", "--thresholds", "cpu=20"]).is_err(), "needs targets");
        assert!(
            Cli::try_parse_from(["kdrift", "skew", "--thresholds", "cpu=20", "--target-thresholds", "cpu=50"]).is_ok()
        );
        assert!(Cli::try_parse_from([
            "kdrift",
            "skew",
            "--policy",
            "p.yaml",
            "--thresholds",
            "cpu=1",
            "--target-thresholds",
            "cpu=2"
        ])
        .is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn report_needs_an_html_file() {
        assert!(Cli::try_parse_from(["kdrift", "report"]).is_err());
        let parsed = Cli::try_parse_from(["kdrift", "report", "--html", "r.html", "--since", "2026-11-28T00:00:00Z"]);
        match parsed.map(|c| c.command) {
            Ok(Command::Report(a)) => {
                assert_eq!(a.html, PathBuf::from("r.html"));
                assert_eq!(a.since, parse_instant("2026-11-28T00:00:00Z").ok());
                assert_eq!(a.until, None);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn why_pending_needs_a_pod_or_all() {
        assert!(Cli::try_parse_from(["kdrift", "why-pending"]).is_err());
        assert!(Cli::try_parse_from(["kdrift", "why-pending", "--all"]).is_ok());
        assert!(Cli::try_parse_from(["kdrift", "why-pending", "--bogus"]).is_err());
    }
}
