//! Command-line arguments (clap). Parsing only: no I/O happens here; value
//! parsers are pure functions with tests.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Args, Parser, Subcommand, ValueEnum};
use kdrift_ingest::Layout;

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
    /// Output format on stdout: table, json, yaml (the JSON document in YAML) or wide (tables with every
    /// cell whole, and extra columns on why-pending --all, timeline drains, skew, hotspots and the rebalance
    /// plan's evictions; the other tables have none: wide is the table, uncut).
    #[arg(short = 'o', long = "output", value_name = "OUTPUT", global = true, value_enum,
          default_value_t = crate::format::Format::Table)]
    pub format: crate::format::Format,
    /// Table or document: what `-o` asks the command for ([`crate::format::Format::output`]; set in main).
    #[arg(skip = Output::Table)]
    pub output: Output,
    /// List tables without their header line (kubectl's --no-headers).
    #[arg(long, global = true)]
    pub no_headers: bool,
    /// More log output on stderr (-v info, -vv debug; or KDRIFT_LOG=…).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// The format of log lines and progress on stderr: `text` (a bar on a terminal, plain lines otherwise) or
    /// `json` (one JSON object a line, for in-cluster runs). `NO_COLOR` turns off colour and the bar.
    #[arg(long, global = true, value_enum, env = "KDRIFT_LOG_FORMAT", default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// The widest a table cell is printed, in characters: a longer value is cut and ends with `…`
    /// (`-o json` keeps every value whole). 0: no cut.
    #[arg(long, global = true, value_name = "N", default_value_t = crate::render::MAX_CELL_WIDTH)]
    pub max_cell_width: usize,
    /// The most memory DuckDB may hold for the store (a size as --max-batch-bytes; at least 64MiB): beyond
    /// it, it spills to a temporary directory beside the store file (`<db>.tmp/`, removed when empty).
    /// 128MiB fits kdrift in a 256MiB container for inputs without many large objects (a few hundred
    /// of 1 MiB fail DuckDB's checkpoint under it: the default stays higher, issue 39); raise it when a
    /// command says it ran out of memory, or an ingest leaves out an object too big for it (an input error
    /// naming the object; the records around it are stored).
    #[arg(long, global = true, env = "KDRIFT_MEMORY_LIMIT", value_name = "SIZE", default_value = "1GiB",
          value_parser = parse_memory_limit)]
    pub memory_limit: u64,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Parses `--memory-limit`: a size of at least [`kdrift_store::MIN_MEMORY_LIMIT`] (pure; used by clap).
pub fn parse_memory_limit(s: &str) -> Result<u64, String> {
    let bytes = kdrift_ingest::parse_size(s)?;
    if bytes < kdrift_store::MIN_MEMORY_LIMIT {
        return Err(format!(
            "{s:?} is too small a memory limit for DuckDB: at least {} (under it DuckDB runs out of memory even on \
             small stores: `kdrift demo`'s fails under 48MiB)",
            kdrift_store::size_text(kdrift_store::MIN_MEMORY_LIMIT)
        ));
    }
    Ok(bytes)
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Human-readable tables.
    Table,
    /// One JSON document.
    Json,
}

/// Log formats on stderr (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (and a progress bar on a terminal).
    Text,
    /// One JSON object a line: log events and progress (tracing-subscriber's JSON format, flattened).
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
    /// Plan a descheduler-compatible rebalance (from the store or a live cluster), then apply it.
    #[command(subcommand)]
    Rebalance(RebalanceCommand),
    /// Record the cluster continuously: list, then watch events, pods, nodes and their owners into the
    /// store until SIGTERM / Ctrl-C (events expire after an hour; this keeps them).
    Record(RecordArgs),
    /// Dead-man check of the nightly rebalance: exit 0 when the last successful run is recent enough,
    /// 1 when it is too old (STALE) or there is none (NEVER).
    Check(CheckArgs),
    /// Every node's requested % of allocatable now (or --at), the skew between nodes, and each node's
    /// LowNodeUtilization class.
    Skew(SkewArgs),
    /// Nodes whose measured cpu or memory stayed at or above a used-% threshold for consecutive steps (not
    /// single spikes): each episode's start and end, the pods that drove it and what put them there.
    Hotspots(HotspotsArgs),
    /// Why something failed, from the store's history.
    #[command(subcommand)]
    Postmortem(PostmortemCommand),
    /// What happened over time: drains, reboots and outages.
    #[command(subcommand)]
    Timeline(TimelineCommand),
    /// Keep descheduler's prefer-no-eviction annotation on the pods whose session probes say they are in use.
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// One self-contained HTML file: the drain timeline as a Gantt chart, every node's requested % over time,
    /// and the Pending chains.
    Report(ReportArgs),
    /// Print a shell completion script: bash, zsh or fish (`source <(kdrift completion bash)`); --dynamic
    /// also completes pod and Job names from the store.
    Completion(crate::completion::CompletionArgs),
    /// This build: kdrift's version, the git commit it was built from, the DuckDB library it links and the
    /// store schema version it reads and writes, next to that of the --db store file when there is one.
    Version,
}

/// `kdrift sessions …`.
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Set `descheduler.alpha.kubernetes.io/prefer-no-eviction` (and `kdrift.io/sessions-annotated`) on the
    /// pods whose probe reports active sessions, remove them when the sessions end; descheduler with
    /// `noEvictionPolicy: Mandatory` then skips those pods. A prefer-no-eviction set by anyone else is never
    /// touched. Every change is an Event in the store.
    Annotate(SessionsAnnotateArgs),
}

/// `kdrift sessions annotate`.
#[derive(Debug, Args)]
pub struct SessionsAnnotateArgs {
    /// Session probe, SELECTOR=URL (repeatable, at least one): running pods matching the label selector are
    /// asked about, e.g. `app=plex=http://plex.media:32400/status/sessions#/MediaContainer/size`.
    #[arg(long = "probe", value_name = "SELECTOR=URL", value_parser = parse_probe, required = true)]
    pub probes: Vec<kdrift_rebalance::Probe>,
    /// Keep going: a round every DURATION (e.g. 1m, 30s) until stopped; default: one round.
    #[arg(long, value_name = "DURATION", value_parser = parse_every)]
    pub every: Option<std::time::Duration>,
    /// Stop after N rounds (with --every; for tests).
    #[arg(long, value_name = "N", hide = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_iterations: Option<u64>,
    /// Do not record the changes in the store.
    #[arg(long)]
    pub no_store: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Parses `--every`: a duration of at least one second (pure; used by clap).
pub fn parse_every(s: &str) -> Result<std::time::Duration, String> {
    crate::duration::EVERY.parse(s)
}

/// `kdrift report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The HTML file to write (replaced when it exists).
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
    /// Start of the range (default: the store's first instant); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub since: Option<DateTime<Utc>>,
    /// End of the range (default: the store's last instant); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub until: Option<DateTime<Utc>>,
}

/// Which cluster and namespaces, with kubectl's flags.
#[derive(Debug, Args)]
pub struct KubeArgs {
    /// Which cluster (`--kubeconfig`, `--context`).
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Only this namespace (default: the context's namespace; cluster-scoped objects are always read).
    #[arg(short = 'n', long, value_name = "NAMESPACE", conflicts_with = "all_namespaces")]
    pub namespace: Option<String>,
    /// Every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Objects per list request (kubectl's --chunk-size).
    #[arg(long, value_name = "N", default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_size: u32,
    /// Give up on a server silent this long: waiting for a list's answer or
    /// its next bytes, or a watch's answer (a watch waits its 290 s plus this
    /// for its next event). kubectl's --request-timeout. One whole list
    /// page may take at most 10 times this (a server sending too slowly).
    /// 1s to 1h, e.g. 1m or 90s; a bare number is seconds.
    #[arg(long, value_name = "DURATION", default_value_t = 60, value_parser = crate::duration::kube_seconds)]
    pub request_timeout: u64,
}

/// `kdrift ingest api`.
#[derive(Debug, Args)]
pub struct IngestApiArgs {
    /// Cluster and namespaces.
    #[command(flatten)]
    pub kube: KubeArgs,
    /// Attempts per list page the server fails transiently (a 429 or 5xx, a broken connection
    /// once it has answered), the first included; the page is asked again with its continue token.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub attempts: u32,
    /// Wait before the first retry of a page, doubled each time (e.g. 1s, 500ms).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration)]
    pub retry_delay: std::time::Duration,
}

/// `kdrift record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// Cluster and namespaces.
    #[command(flatten)]
    pub kube: KubeArgs,
    /// Commit after this many object versions.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch_records: u64,
    /// Commit at least this often while versions come in: 1s to 1h, e.g. 5s; a bare number is seconds.
    #[arg(long, value_name = "DURATION", default_value_t = 5, value_parser = crate::duration::kube_seconds)]
    pub batch_seconds: u64,
    /// Commit once the versions staged hold this many bytes of objects (bytes, or with
    /// kB/MB/GB/TB (×1000) or KiB/MiB/GiB/TiB (×1024)), as `ingest file`'s: the memory bound of a batch of big objects.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = kdrift_ingest::parse_size)]
    pub max_batch_bytes: u64,
    /// The longest watch event read (bytes, or with KiB/MiB/GiB; 1KiB to 4GiB): a longer one, or one whose
    /// object would take more than 16× this and 1 MiB parsed (`[0,0,…]` takes 36–72× its text), is an error
    /// of the run, not held. Also the parsed bytes of objects waiting between the watches and the store. The
    /// recorder's peak memory grows with 7× this plus 3× --max-batch-bytes (docs/sources.md "Memory").
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_event_bytes)]
    pub max_event_bytes: u64,
    /// How often to sample the CPU and memory nodes and pods use from metrics.k8s.io (metrics-server's
    /// NodeMetrics and PodMetrics), e.g. 30s, 1m; `0` or `off`: never.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_metrics_interval)]
    pub metrics_interval: MetricsInterval,
    /// Serve the recorder's Prometheus metrics (`/metrics`) and probes (`/readyz`: every resource listed
    /// once; `/healthz`: failing after --unhealthy-after failed commits) on this address, e.g.
    /// 0.0.0.0:9090; port 0 picks a free port (the address is said on stderr). Default: not served.
    #[arg(long, value_name = "ADDR")]
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// With --metrics-addr: /healthz answers 503 once this many batch commits failed in a row (a failed
    /// batch is retried at the next --batch-seconds; the recorder ends after 10, or this many if more).
    #[arg(long, value_name = "N", default_value_t = kdrift_ingest::DEFAULT_UNHEALTHY_AFTER,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub unhealthy_after: u32,
}

/// `kdrift record --metrics-interval`: how often usage is sampled (`None`: never).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsInterval(pub Option<std::time::Duration>);

/// `--metrics-interval`: a duration of at least 1s, or `0` / `off` (never).
pub fn parse_metrics_interval(s: &str) -> Result<MetricsInterval, String> {
    if s.trim() == "0" || s.trim().eq_ignore_ascii_case("off") {
        return Ok(MetricsInterval(None));
    }
    parse_every(s).map(|d| MetricsInterval(Some(d)))
}

/// `kdrift skew`.
#[derive(Debug, Args)]
pub struct SkewArgs {
    /// The instant (default: the store's newest observation); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
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
    /// Measured usage next to requests: per node requested % and used % (cpu, memory), the nodes hot in
    /// fact but not on paper and the reverse, and the pods driving each hotspot (default --at: the store's
    /// latest usage sample).
    #[arg(long, conflicts_with_all = ["thresholds", "target_thresholds", "policy"])]
    pub usage: bool,
    /// With --usage: the oldest sample taken as a node's or pod's reading (e.g. 15m, 1h).
    #[arg(long, value_name = "DURATION", default_value = "15m", value_parser = parse_span, requires = "usage")]
    pub window: chrono::Duration,
    /// With --usage: used % of allocatable at or above which a node is hot (and its requests high).
    #[arg(long, value_name = "PCT", default_value_t = 80.0, value_parser = parse_percent, requires = "usage")]
    pub hot: f64,
    /// -n, -A, -l: requested amounts of the selected pods only (classes stay every pod's); with --usage,
    /// only the pods selected among those driving a node.
    #[command(flatten)]
    pub pods: crate::selector::PodSelectArgs,
}

/// `kdrift hotspots`.
#[derive(Debug, Args)]
pub struct HotspotsArgs {
    /// Start of the range (default: the store's first usage sample); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub since: Option<DateTime<Utc>>,
    /// End of the range, exclusive (default: the store's last usage sample);
    /// RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub until: Option<DateTime<Utc>>,
    /// Used % of allocatable (cpu or memory) a step's mean must reach.
    #[arg(long, value_name = "PCT", default_value_t = 80.0, value_parser = parse_percent)]
    pub threshold: f64,
    /// Steps in a row a node must stay at or above the threshold (shorter runs are spikes).
    #[arg(long = "for", value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub windows: u32,
    /// Step: the length of the windows usage is averaged over (e.g. 5m).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_span)]
    pub step: chrono::Duration,
}

/// Parses a percent above 0 (`80`, `92.5`) (pure; used by clap).
pub fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(p) if p.is_finite() && p > 0.0 => Ok(p),
        _ => Err(format!("expected a percent above 0 such as 80 or 92.5, got {s:?}")),
    }
}

/// Percent per resource, as given on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds(pub Vec<(String, f64)>);

/// The resource names `--thresholds` / `--target-thresholds` take besides
/// extended resources (a name with a domain, such as `nvidia.com/gpu`,
/// which descheduler accepts whatever they are) and `hugepages-<size>`.
pub const THRESHOLD_RESOURCES: &[&str] = &["cpu", "memory", "pods", "ephemeral-storage"];

/// Refuses a resource name no node can have (`cpuu`, `hugepages-`,
/// `cpu/`): descheduler would take it and never count anything for it. A
/// `hugepages-<size>` needs a size that is a Kubernetes quantity above 0;
/// an extended resource is a Kubernetes qualified name `<domain>/<name>`
/// (the domain a DNS subdomain, lowercase; the name up to 63 characters,
/// case-sensitive, `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`).
fn check_threshold_resource(name: &str) -> Result<(), String> {
    if THRESHOLD_RESOURCES.contains(&name) {
        return Ok(());
    }
    if let Some(size) = name.strip_prefix("hugepages-") {
        return match kdrift_rebalance::parse_amount(name, size) {
            Ok(bytes) if bytes > 0 => Ok(()),
            _ => Err(format!(
                "resource {name:?}: expected hugepages-<size> with a size such as 2Mi or 1Gi, got {size:?}"
            )),
        };
    }
    if let Some((domain, short)) = name.split_once('/') {
        let problem = if domain.is_empty() {
            Some("the domain before the / is empty".to_string())
        } else if short.is_empty() {
            Some("the name after the / is empty".to_string())
        } else if !is_dns_subdomain(domain) {
            Some(format!(
                "{domain:?} is not a DNS domain (lowercase letters, digits, '-' and '.', each part starting and \
                 ending with a letter or digit)"
            ))
        } else if !is_qualified_name_part(short) {
            Some(format!(
                "{short:?} is not a resource name (up to 63 letters, digits, '-', '_' and '.', starting and ending \
                 with a letter or digit)"
            ))
        } else {
            None
        };
        return match problem {
            None => Ok(()),
            Some(problem) => Err(format!(
                "resource {name:?}: expected an extended resource as <domain>/<name> (such as nvidia.com/gpu): {problem}"
            )),
        };
    }
    Err(format!(
        "unknown resource {name:?}: expected {}, hugepages-<size> or an extended resource with its domain \
         (such as nvidia.com/gpu)",
        THRESHOLD_RESOURCES.join(", ")
    ))
}

/// A DNS subdomain (RFC 1123) as Kubernetes checks it: at most 253
/// characters, dot-separated labels of lowercase letters, digits and `-`,
/// each starting and ending with a letter or digit.
fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b.len() <= 63
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

/// The name part of a Kubernetes qualified name: at most 63 characters,
/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?` (case-sensitive).
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// Parses `cpu=20,memory=20` (pure; used by clap). Resource names are
/// those of [`THRESHOLD_RESOURCES`], `hugepages-<size>` and extended
/// resources `<domain>/<name>` ([`check_threshold_resource`]).
pub fn parse_thresholds(s: &str) -> Result<Thresholds, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| format!("expected RESOURCE=PERCENT, got {part:?}"))?;
        let v: f64 = v.trim().parse().map_err(|_| format!("{k}: expected a percent such as 20 or 35.5, got {v:?}"))?;
        if k.trim().is_empty() {
            return Err(format!("expected RESOURCE=PERCENT, got {part:?}"));
        }
        check_threshold_resource(k.trim())?;
        if let Some((_, first)) = out.iter().find(|(r, _)| r == k.trim()) {
            return Err(format!("{} is given twice ({first} and {v}); give each resource once", k.trim()));
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
    /// The Job or CronJob, as NAMESPACE/NAME, or NAME alone when the store
    /// knows one namespace with a Job or CronJob of that name.
    #[arg(value_name = "[NAMESPACE/]NAME", value_parser = parse_job_ref)]
    pub job: PodRef,
}

/// Parses a Job or CronJob `NAMESPACE/NAME`, or `NAME` alone (namespace
/// `""`: found in the store) (pure; used by clap).
pub fn parse_job_ref(s: &str) -> Result<PodRef, String> {
    parse_pending_pod_ref(s)
        .map_err(|_| format!("expected [NAMESPACE/]NAME of a Job or CronJob (e.g. media/backup or backup), got {s:?}"))
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
    /// Only operations still going on at or after this instant (RFC 3339, UTC microseconds or a time ago (2h)).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub since: Option<DateTime<Utc>>,
    /// Only operations started at or before this instant (RFC 3339, UTC microseconds or a time ago (2h)).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub until: Option<DateTime<Utc>>,
    /// -n, -A, -l: only the moved pods selected (and the operations that moved one).
    #[command(flatten)]
    pub pods: crate::selector::PodSelectArgs,
}

/// `kdrift rebalance`.
#[derive(Debug, Subcommand)]
pub enum RebalanceCommand {
    /// What descheduler would evict with the whole policy (every v0.36 plugin, one cycle) from the cluster as the store knows it, and why;
    /// with --simulate, where the replacements would land.
    Plan(RebalancePlanArgs),
    /// For every plugin of the policy, would it evict this pod (at --at, from the store's history),
    /// and if not, the first rule that stops it, with its numbers.
    Explain(RebalanceExplainArgs),
    /// Replay the policy at a schedule's instants over the store's history (each night on the
    /// cluster as recorded, earlier simulated moves carried in) and ask every FailedScheduling in
    /// the range again: would it still have happened?
    Backtest(RebalanceBacktestArgs),
    /// Try a grid of LowNodeUtilization thresholds → targets night after night and print the best
    /// converging one as a complete DeschedulerPolicy (exit 1 when none converges).
    Recommend(RebalanceRecommendArgs),
    /// Execute a plan file from `rebalance plan -o json`: re-reads the cluster and refuses a plan it has
    /// drifted from (exit 1) unless --replan; evicts through the Eviction API (exit 2 when it had to stop).
    Apply(RebalanceApplyArgs),
    /// Plan and execute in one go against a live cluster; requires --yes (plan-only is `rebalance plan`).
    Run(RebalanceRunArgs),
}

/// Which cluster to talk to (as kubectl: `--kubeconfig`, `KUBECONFIG`, `~/.kube/config`, in-cluster).
#[derive(Debug, Clone, Args)]
pub struct ClusterArgs {
    /// A kubeconfig file (default: KUBECONFIG, else ~/.kube/config, else the in-cluster service account).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// A context of the kubeconfig (default: its current-context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Most bytes of one list page read from the API server (bytes, or with kB/MB/GB/TB (×1000) or KiB/MiB/GiB/TiB (×1024)): a page
    /// going on past it keeps its complete items and ends that list with an error.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_page_bytes)]
    pub max_page_bytes: u64,
    /// Longest wait for the kubeconfig user's exec credential plugin (kubelogin, aws eks get-token):
    /// past it the plugin is killed and the command fails naming it. 1s to 1h, e.g. 5m; a bare number is seconds.
    #[arg(long, value_name = "DURATION", default_value_t = 120, value_parser = crate::duration::kube_seconds)]
    pub exec_timeout: u64,
}

/// Parses `record --max-event-bytes`: 1 KiB to 4 GiB − 1 (pure; used by clap).
pub fn parse_event_bytes(text: &str) -> Result<u64, String> {
    let bytes = kdrift_ingest::parse_size(text)?;
    if !(1 << 10..1 << 32).contains(&bytes) {
        return Err(format!("{text:?}: a watch event cap is 1KiB to 4GiB"));
    }
    Ok(bytes)
}

/// Parses `--max-page-bytes`: a size of at least 1 KiB (pure; used by clap).
pub fn parse_page_bytes(s: &str) -> Result<u64, String> {
    let bytes = kdrift_ingest::parse_size(s)?;
    if bytes < 1024 {
        return Err(format!("{s:?}: a list page needs at least 1KiB"));
    }
    Ok(bytes)
}

impl ClusterArgs {
    /// `--max-page-bytes` as a length (saturating on 32-bit targets).
    pub fn max_page_bytes(&self) -> usize {
        usize::try_from(self.max_page_bytes).unwrap_or(usize::MAX)
    }

    /// True when either flag is given.
    pub fn given(&self) -> bool {
        self.kubeconfig.is_some() || self.context.is_some()
    }

    /// The connection options these flags name; sets `--exec-timeout` for
    /// the exec plugins this process runs (`kdrift_rebalance::set_exec_timeout`).
    pub fn options(&self) -> kdrift_rebalance::ClusterOptions {
        kdrift_rebalance::set_exec_timeout(std::time::Duration::from_secs(self.exec_timeout));
        kdrift_rebalance::ClusterOptions { kubeconfig: self.kubeconfig.clone(), context: self.context.clone() }
    }
}

/// How to execute evictions (`rebalance apply`, `rebalance run`).
#[derive(Debug, Clone, Args)]
pub struct ExecuteArgs {
    /// Evictions in flight at once.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrency: u32,
    /// How long to wait for each replacement pod to be Ready (0: do not wait), e.g. 5m, 90s.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_timeout)]
    pub ready_timeout: std::time::Duration,
    /// Pre-flight probe, SELECTOR=URL (repeatable): pods matching the label selector are evicted only when
    /// the URL's JSON answer says they are idle, e.g. `app=plex=http://plex.media:32400/sessions`.
    #[arg(long = "probe", value_name = "SELECTOR=URL", value_parser = parse_probe)]
    pub probes: Vec<kdrift_rebalance::Probe>,
    /// Do not record the evictions and the run in the store.
    #[arg(long)]
    pub no_store: bool,
}

/// `kdrift rebalance apply`.
#[derive(Debug, Args)]
pub struct RebalanceApplyArgs {
    /// The plan file (`kdrift rebalance plan … -o json > plan.json`, or `--out plan.json`).
    #[arg(value_name = "PLAN.json")]
    pub plan: PathBuf,
    /// When the cluster drifted from the plan, plan again (same policy and options) and execute the new plan.
    #[arg(long)]
    pub replan: bool,
    /// Write the plan actually executed (the new one after --replan) to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The policy's Prometheus query, run again when apply plans again (default: the server the
    /// plan ran it on, as its document records).
    #[command(flatten)]
    pub prometheus: PrometheusArgs,
    #[command(flatten)]
    pub execute: ExecuteArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// `kdrift rebalance run`.
#[derive(Debug, Args)]
pub struct RebalanceRunArgs {
    /// A descheduler policy (DeschedulerPolicy, Helm values or the chart's ConfigMap);
    /// default: the descheduler Helm chart's default policy.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Confirm: evict pods now. Without it `run` refuses (exit 2); plan-only is `kdrift rebalance plan`.
    #[arg(long)]
    pub yes: bool,
    /// Skip pods that request none of the resources their node is over on, instead of evicting
    /// them (descheduler evicts them, BestEffort pods first; so does kdrift by default).
    #[arg(long)]
    pub skip_zero_request: bool,
    /// Write the plan executed to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub prometheus: PrometheusArgs,
    #[command(flatten)]
    pub execute: ExecuteArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// `kdrift check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The longest acceptable time since the last successful rebalance, e.g. 26h, 90m, 1d.
    #[arg(long, value_name = "DURATION", value_parser = parse_max_age)]
    pub max_age: (chrono::Duration, String),
    /// Also read the CronJob's status.lastSuccessfulTime, as NAMESPACE/NAME (needs cluster access).
    #[arg(long, value_name = "NAMESPACE/NAME", value_parser = parse_pod_ref)]
    pub cronjob: Option<PodRef>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Parses a maximum age (pure; used by clap): the duration and the text as given.
pub fn parse_max_age(s: &str) -> Result<(chrono::Duration, String), String> {
    crate::duration::MAX_AGE.parse_span(s).map(|d| (d, s.trim().to_string()))
}

/// Parses a timeout: `0` or a duration such as `5m`, `90s`, `1h` (pure; used by clap).
pub fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    crate::duration::READY_TIMEOUT.parse(s)
}

/// Parses `SELECTOR=URL` (pure; used by clap).
pub fn parse_probe(s: &str) -> Result<kdrift_rebalance::Probe, String> {
    kdrift_rebalance::Probe::parse(s).map_err(|e| e.to_string())
}

/// `kdrift rebalance recommend`.
#[derive(Debug, Args)]
pub struct RebalanceRecommendArgs {
    /// The policy to start from (DeschedulerPolicy, Helm values or the chart's ConfigMap);
    /// default: the descheduler Helm chart's default policy.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The instant to recommend at (default: the store's newest observation);
    /// RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub at: Option<DateTime<Utc>>,
    /// Nights replayed per candidate before giving up on it.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_rounds: u32,
    #[command(flatten)]
    pub usage: UsageArgs,
    #[command(flatten)]
    pub scoring: SchedulerScoringArgs,
}

/// How the simulated scheduler scores nodes: `--scheduler-config FILE` or
/// the shorthand `--scoring STRATEGY` (default: kube-scheduler's default
/// profile, NodeResourcesFit LeastAllocated).
#[derive(Debug, Args, Default)]
pub struct SchedulerScoringArgs {
    /// The cluster's KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1): its default-scheduler
    /// profile's NodeResourcesFit scoringStrategy (LeastAllocated, MostAllocated, RequestedToCapacityRatio)
    /// and score plugin weights decide where the simulated replacements land.
    #[arg(long, value_name = "FILE", conflicts_with = "scoring")]
    pub scheduler_config: Option<PathBuf>,
    /// Shorthand for the scheduler's NodeResourcesFit scoring strategy over cpu and memory:
    /// least-allocated (default), most-allocated (what HighNodeUtilization is meant to run with),
    /// requested-to-capacity-ratio (shape 0 % → 0, 100 % → 10).
    #[arg(long, value_name = "STRATEGY")]
    pub scoring: Option<String>,
}

/// The schedules `rebalance backtest --schedule` reads (croner's default
/// parser), as its help and its error name them.
pub const SCHEDULE_FORMS: &str =
    "cron with 5 fields, minute hour day-of-month month day-of-week (e.g. \"30 1 * * *\", \
     as a CronJob's schedule), or 6 with seconds first (\"0 30 1 * * *\"), or 7 with a year last; or one of @hourly, \
     @daily, @weekly, @monthly, @yearly (@annually)";

/// `kdrift rebalance backtest`.
#[derive(Debug, Args)]
pub struct RebalanceBacktestArgs {
    /// A descheduler policy (DeschedulerPolicy, Helm values or the chart's ConfigMap);
    /// default: the descheduler Helm chart's default policy.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The descheduler CronJob's schedule, in UTC: [`SCHEDULE_FORMS`].
    #[arg(long, value_name = "CRON", help = format!("The descheduler CronJob's schedule, in UTC: {SCHEDULE_FORMS}"))]
    pub schedule: String,
    /// Start of the range (default: the store's first instant); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub since: Option<DateTime<Utc>>,
    /// End of the range (default: the store's last instant); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub until: Option<DateTime<Utc>>,
    #[command(flatten)]
    pub scoring: SchedulerScoringArgs,
}

/// `kdrift rebalance explain`.
#[derive(Debug, Args)]
pub struct RebalanceExplainArgs {
    /// The pod, as NAMESPACE/NAME, or NAME alone when one namespace has a pod of that name in the
    /// store at the instant.
    #[arg(value_name = "NAMESPACE/POD", value_parser = parse_pending_pod_ref)]
    pub pod: PodRef,
    /// A descheduler policy (DeschedulerPolicy, Helm values or the chart's ConfigMap);
    /// default: the descheduler Helm chart's default policy.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The instant to explain at (default: the store's newest observation);
    /// RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub at: Option<DateTime<Utc>>,
    #[command(flatten)]
    pub usage: UsageArgs,
}

/// `kdrift rebalance plan`.
#[derive(Debug, Args)]
pub struct RebalancePlanArgs {
    /// A descheduler policy (DeschedulerPolicy, Helm values or the chart's ConfigMap);
    /// default: the descheduler Helm chart's default policy.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The instant to plan at (default: the store's newest observation); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub at: Option<DateTime<Utc>>,
    /// Predict where the evicted pods' replacements land (kube-scheduler model).
    #[arg(long)]
    pub simulate: bool,
    /// Replay the following nights (plan, land, plan again) until nothing moves, at most N (implies --simulate).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: Option<u32>,
    /// Skip pods that request none of the resources their node is over on, instead of evicting
    /// them (descheduler evicts them, BestEffort pods first; so does kdrift by default).
    #[arg(long)]
    pub skip_zero_request: bool,
    /// Plan on the live cluster (the same reads `rebalance apply` makes) instead of the store;
    /// implied by --kubeconfig or --context.
    #[arg(long, conflicts_with = "at")]
    pub live: bool,
    /// Also write the plan document (what `-o json` prints, for `rebalance apply`) to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub usage: UsageArgs,
    #[command(flatten)]
    pub scoring: SchedulerScoringArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// How `rebalance plan`, `explain` and `recommend` read measured usage when
/// the policy's LowNodeUtilization has `metricsUtilization` (one loader for
/// the three: `cmd::rebalance_usage`).
#[derive(Debug, Args, Default, Clone)]
pub struct UsageArgs {
    /// With metricsUtilization: classify on a percentile of each node's usage samples over this
    /// window (e.g. 1h) instead of the latest sample, and rank each overutilized node's pods by
    /// their measured usage (beyond descheduler, which reads one sample).
    #[arg(long, value_name = "SPAN", value_parser = parse_span)]
    pub usage_window: Option<chrono::Duration>,
    /// The percentile --usage-window reads (0 < P ≤ 100; default 95).
    #[arg(long, value_name = "P", requires = "usage_window", value_parser = parse_percentile)]
    pub usage_percentile: Option<f64>,
    #[command(flatten)]
    pub prometheus: PrometheusArgs,
}

/// Where `rebalance plan`, `explain`, `recommend`, `apply` and `run` run
/// the policy's own query when its LowNodeUtilization has
/// `metricsUtilization` source Prometheus (`cmd::rebalance_prometheus`).
#[derive(Debug, Args, Default, Clone)]
pub struct PrometheusArgs {
    /// With metricsUtilization source Prometheus: run the policy's query on this server
    /// (Prometheus HTTP API: /api/v1/query, at the plan's instant) instead of kdrift's stand-in
    /// (each node's cpu used / allocatable from the store's samples). Credentials as for
    /// `ingest prometheus`: KDRIFT_PROM_* variables or the files below.
    #[arg(long, value_name = "URL")]
    pub prometheus_url: Option<String>,
    /// Basic auth user for --prometheus-url (else KDRIFT_PROM_USER).
    #[arg(long, value_name = "NAME")]
    pub prometheus_user: Option<String>,
    /// File holding the Basic auth password (else KDRIFT_PROM_PASSWORD).
    #[arg(long, value_name = "FILE")]
    pub prometheus_password_file: Option<PathBuf>,
    /// File holding the Bearer token (else KDRIFT_PROM_BEARER_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub prometheus_bearer_token_file: Option<PathBuf>,
    /// File of extra headers, `Name: value` per line (else KDRIFT_PROM_HEADERS).
    #[arg(long, value_name = "FILE")]
    pub prometheus_headers_file: Option<PathBuf>,
    /// Longest the policy's Prometheus query may take, its answer read whole (e.g. 30s, 5m), as
    /// `ingest prometheus --request-timeout`; past it the command fails naming the URL.
    #[arg(long, value_name = "DURATION", default_value = "1m", value_parser = crate::duration::http_timeout)]
    pub request_timeout: std::time::Duration,
}

/// Parses a percentile, 0 < P ≤ 100 (pure; used by clap).
pub fn parse_percentile(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!("expected a percentile in (0, 100], e.g. 95, got {s:?}")),
    }
}

/// Parses an instant into UTC: RFC 3339, or UTC microseconds since the
/// epoch as `kdrift query`'s `_us` parameters take (pure; used by clap).
pub fn parse_instant(s: &str) -> Result<DateTime<Utc>, String> {
    crate::instant::parse(s)
}

/// `kdrift query`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["name", "list"]))]
pub struct QueryArgs {
    /// The query's name (see --list).
    pub name: Option<String>,
    /// List the queries with their parameters: those answering a question on their own (runs, events,
    /// pods and nodes at an instant, usage samples…); with --all also the analyses' internal building blocks.
    #[arg(long)]
    pub list: bool,
    /// With --list: every read query, internal ones included.
    #[arg(long, requires = "list")]
    pub all: bool,
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
    /// A snapshot of a live cluster through its API: events (both APIs), pods, nodes, namespaces,
    /// PodDisruptionBudgets, PriorityClasses and the owner kinds.
    Api(IngestApiArgs),
    /// Pull Kubernetes events (and, from the OpenTelemetry k8sobjects receiver, pods and nodes)
    /// from a VictoriaLogs server, window by window. Credentials come from the environment or
    /// files only: KDRIFT_VL_USER/--user with KDRIFT_VL_PASSWORD or --password-file,
    /// KDRIFT_VL_BEARER_TOKEN or --bearer-token-file, KDRIFT_VL_HEADERS or --headers-file.
    Victorialogs(IngestVictorialogsArgs),
    /// Pull measured CPU and memory usage of nodes and pods from a Prometheus-compatible API
    /// (Prometheus, VictoriaMetrics, Thanos, Mimir: /api/v1/query_range), window by window, into
    /// the store's usage samples (`kdrift query usage_samples`). Credentials come from the
    /// environment or files only: KDRIFT_PROM_USER/--user with KDRIFT_PROM_PASSWORD or
    /// --password-file, KDRIFT_PROM_BEARER_TOKEN or --bearer-token-file, KDRIFT_PROM_HEADERS or
    /// --headers-file.
    Prometheus(IngestPrometheusArgs),
}

/// `kdrift ingest prometheus`.
#[derive(Debug, Args)]
pub struct IngestPrometheusArgs {
    /// The server: http://host:9090 (Prometheus), http://host:8428 (VictoriaMetrics), or a prefix in
    /// front of /api/v1 (vmselect, Thanos, Mimir). No user:password in it.
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// Range start (default: one day before --end); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub start: Option<DateTime<Utc>>,
    /// Range end, exclusive (default: now); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub end: Option<DateTime<Utc>>,
    /// Resolution: the instants sampled are the multiples of it since the epoch (e.g. 30s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_span)]
    pub step: chrono::Duration,
    /// Longest query window (each also at most 11,000 points per series, Prometheus' limit).
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = parse_span)]
    pub window: chrono::Duration,
    /// Replace a default query: node_info, node_cpu, node_memory, pod_cpu or pod_memory
    /// (`NAME=` with nothing after = leaves it out). Repeatable.
    #[arg(long = "query", value_name = "NAME=PROMQL", value_parser = parse_param)]
    pub queries: Vec<(String, String)>,
    /// Continue after the last window this pull (same URL, step and queries) committed.
    #[arg(long)]
    pub resume: bool,
    /// Basic auth user (or KDRIFT_PROM_USER); the password from KDRIFT_PROM_PASSWORD or --password-file.
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// File holding the Basic auth password.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// File holding a Bearer token.
    #[arg(long, value_name = "FILE")]
    pub bearer_token_file: Option<PathBuf>,
    /// File of extra request headers, one `Name: value` per line (e.g. X-Scope-OrgID for Mimir).
    #[arg(long, value_name = "FILE")]
    pub headers_file: Option<PathBuf>,
    /// Attempts per request before giving up (the first included).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub attempts: u32,
    /// Wait before the first retry of a request, doubled each time (e.g. 1s, 500ms).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration)]
    pub retry_delay: std::time::Duration,
    /// Most bytes of one range query's answer read (bytes, or with kB/MB/GB/TB (×1000) or KiB/MiB/GiB/TiB (×1024)): an answer going
    /// on past it fails its window (the windows committed before stay).
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_page_bytes)]
    pub max_answer_bytes: u64,
    /// Longest one request may take, its answer read whole (e.g. 5m, 90s); past it the request
    /// fails (and is retried, --attempts).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::duration::http_timeout)]
    pub request_timeout: std::time::Duration,
}

/// Parses `30s`, `5m`, `1h`, `1d` into a positive span (pure; used by clap).
pub fn parse_span(s: &str) -> Result<chrono::Duration, String> {
    crate::duration::SPAN.parse_span(s)
}

/// `kdrift ingest victorialogs`.
#[derive(Debug, Args)]
pub struct IngestVictorialogsArgs {
    /// The server: http://host:9428, or a prefix in front of /select/logsql (vmauth). No user:password in it.
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// Range start (default: 7 days before --end, VictoriaLogs' default retention);
    /// RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub start: Option<DateTime<Utc>>,
    /// Range end, exclusive (default: now); RFC 3339, UTC microseconds or a time ago (2h).
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub end: Option<DateTime<Utc>>,
    /// A LogsQL filter ANDed to the layout's (no pipes), on the layout's fields, e.g. for raw
    /// 'reason:in(FailedScheduling, Scheduled)', for msg-json (the Event inside _msg)
    /// '_msg:FailedScheduling or _msg:Scheduled'.
    #[arg(long, value_name = "LOGSQL")]
    pub filter: Option<String>,
    /// The shipper's field layout: raw, msg-json, otel-k8sevents, otel-k8sobjects or kent
    /// (default: detected from /select/logsql/field_names).
    #[arg(long, value_name = "LAYOUT", value_parser = parse_layout)]
    pub layout: Option<Layout>,
    /// Continue after the last window this pull (same URL, tenant, layout and filter) committed.
    #[arg(long)]
    pub resume: bool,
    /// Basic auth user (or KDRIFT_VL_USER); the password from KDRIFT_VL_PASSWORD or --password-file.
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// File holding the Basic auth password.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// File holding a Bearer token.
    #[arg(long, value_name = "FILE")]
    pub bearer_token_file: Option<PathBuf>,
    /// File of extra request headers, one `Name: value` per line.
    #[arg(long, value_name = "FILE")]
    pub headers_file: Option<PathBuf>,
    /// Follow HTTP redirects, to the same origin (scheme, host, port) only: a redirect to another
    /// origin is an error, never followed (the credentials and extra headers would go there).
    /// Without it, any redirect is an error naming where it points.
    #[arg(long)]
    pub follow_redirects: bool,
    /// Tenant: the AccountID header.
    #[arg(long, value_name = "N")]
    pub account_id: Option<u32>,
    /// Tenant: the ProjectID header.
    #[arg(long, value_name = "N")]
    pub project_id: Option<u32>,
    /// Rows one query window should return at most (windows are sized with /select/logsql/hits).
    #[arg(long, value_name = "ROWS", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub window_rows: u64,
    /// Attempts per window before giving up (the first included).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub attempts: u32,
    /// Wait before the first retry of a window, doubled each time (e.g. 1s, 500ms).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration)]
    pub retry_delay: std::time::Duration,
    /// Longest one request (/query, /hits, /field_names) may take, its answer read whole (e.g.
    /// 10m, 90s; the time kdrift spends staging a window's rows is not counted); past it the
    /// request fails (and the window is retried, --attempts).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = crate::duration::http_timeout)]
    pub request_timeout: std::time::Duration,
    /// Bytes of rows a window stages before moving them into the store inside the window's one
    /// transaction (bytes, or with kB/MB/GB/TB (×1000) or KiB/MiB/GiB/TiB (×1024)): the memory bound of a window, whatever its size;
    /// the fetcher holds at most half as much ahead. A window still commits whole (--resume).
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = kdrift_ingest::parse_size)]
    pub max_batch_bytes: u64,
    /// Bytes of rows one window's answer may hold (bytes, or with KiB/MiB/GiB): past it the window
    /// is pulled again as its two halves by time, each committed on its own (--resume goes on after
    /// the last), down to windows under 2 s, committed whole however large. Bounds the store's
    /// memory: a window is one transaction, held until it commits.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = kdrift_ingest::parse_size)]
    pub max_window_bytes: u64,
}

/// Parses a `--layout` name (pure; used by clap).
pub fn parse_layout(s: &str) -> Result<Layout, String> {
    Layout::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Layout::ALL.iter().map(|l| l.as_str()).collect();
        format!("unknown layout {s:?}; expected one of {}", names.join(", "))
    })
}

/// Parses `500ms`, `1s`, `2m` (pure; used by clap).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    crate::duration::RETRY_DELAY.parse(s)
}

/// `kdrift ingest file`.
#[derive(Debug, Args)]
pub struct IngestFileArgs {
    /// Files or directories (walked recursively); `-` reads standard input (any format a file may
    /// have, stored and reported as `<stdin>`).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// How far a gzip file may expand (bytes, or with kB/MB/GB/TB (×1000) or KiB/MiB/GiB/TiB (×1024)): past it the file is an input
    /// error and the other files load. Default: 100 times its compressed size, at least 64 MiB.
    #[arg(long, value_name = "SIZE", value_parser = kdrift_ingest::parse_size)]
    pub max_decompressed: Option<u64>,
    /// The deepest a YAML document may nest, in levels (block and flow collections), checked before
    /// it is parsed: a deeper document is an input error and the others load. At most 128, the YAML
    /// parser's own limit.
    #[arg(long, value_name = "N", default_value_t = kdrift_ingest::MAX_YAML_DEPTH,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=128))]
    pub max_yaml_depth: usize,
    /// Bytes of objects a streamed NDJSON file, JSON List or YAML file (one of at least a quarter of
    /// this size, read item by item) stages between two commits (bytes, or with kB/MB/GB/TB (×1000) or
    /// KiB/MiB/GiB/TiB (×1024)): the memory bound of a streamed ingest, beside 100,000 records a
    /// batch; the reader holds at most half as much ahead.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = kdrift_ingest::parse_size)]
    pub max_batch_bytes: u64,
    /// The most memory one object (an NDJSON line, a JSON List item or document, a YAML document or
    /// List item) may take parsed (a size as --max-batch-bytes), counted as it is built (a YAML
    /// document's nodes counted before it is parsed, 256 bytes each): a larger one is not built, it is
    /// an input error naming its line (and item) and the limit, and the records around it load.
    /// Default: --memory-limit, at most 1025MiB (16 times the 64 MiB line limit plus 1 MiB, as `kdrift
    /// record` bounds a watch event), so that --memory-limit 128MiB bounds one object's parse too.
    #[arg(long, value_name = "SIZE", value_parser = kdrift_ingest::parse_size)]
    pub max_parsed_bytes: Option<u64>,
    /// The instant the samples of saved `kubectl top nodes` / `kubectl top pods -A` tables were
    /// taken (RFC 3339, UTC microseconds or a time ago (2h)); default: each file's modification time.
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub at: Option<DateTime<Utc>>,
}

/// `kdrift why-pending`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("target").required(true).args(["pod", "all"]))]
pub struct WhyPendingArgs {
    /// The pod, as NAMESPACE/NAME, or NAME alone when one namespace has a pod of that name with
    /// FailedScheduling events.
    #[arg(value_name = "NAMESPACE/POD", value_parser = parse_pending_pod_ref)]
    pub pod: Option<PodRef>,
    /// Every pod that had FailedScheduling, longest-pending first.
    #[arg(long)]
    pub all: bool,
    /// The namespace of the pod given as NAME (kubectl's -n); with --all, only the pods of this namespace.
    #[arg(long, short = 'n', value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// With --all: every namespace (the default; kubectl's -A).
    #[arg(short = 'A', long, requires = "all", conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// With --all: only the pods whose labels match (kubectl's -l): `app=web`, `tier!=db`, `env in (a,b)`,
    /// `env notin (a)`, `gpu`, `!gpu`, comma-separated (all must hold).
    #[arg(short = 'l', long, value_name = "SELECTOR", value_parser = crate::selector::parse_selector, requires = "all")]
    pub selector: Option<kdrift_rebalance::StringSelector>,
    /// With --all: only the pods failing to schedule at or after this time (their last failure).
    #[arg(long, value_name = "TIME", value_parser = parse_instant, requires = "all")]
    pub since: Option<DateTime<Utc>>,
    /// With --all: only the pods failing to schedule at or before this time (their first failure).
    #[arg(long, value_name = "TIME", value_parser = parse_instant, requires = "all")]
    pub until: Option<DateTime<Utc>>,
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
    /// The global --db, which the demo never writes (its store is temporary, or --save PATH): this
    /// argument of the same id takes its place in `kdrift demo` so that `kdrift demo --help` does not
    /// list it. Its value is still the global one (clap shares a global's value with an argument of
    /// the same id), so a --db or KDRIFT_DB given anyway is noted on stderr.
    #[arg(long, value_name = "PATH", hide = true)]
    pub db: Option<PathBuf>,
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
        _ => Err(format!("expected NAMESPACE/NAME (e.g. media/backup-29930640-5l8lp), got {s:?}")),
    }
}

/// Parses `NAMESPACE/NAME`, or `NAME` alone (namespace `""`: found in the
/// store by `kdrift why-pending` and `kdrift rebalance explain`) (pure; used by clap).
pub fn parse_pending_pod_ref(s: &str) -> Result<PodRef, String> {
    if !s.is_empty() && !s.contains('/') {
        return Ok(PodRef { namespace: String::new(), name: s.to_string() });
    }
    parse_pod_ref(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn skew_usage_and_hotspots_flags() {
        let skew = |args: &[&str]| match Cli::try_parse_from([&["kdrift", "skew"][..], args].concat()) {
            Ok(Cli { command: Command::Skew(a), .. }) => Ok((a.usage, a.window, a.hot)),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.kind()),
        };
        assert_eq!(skew(&["--usage"]), Ok((true, chrono::Duration::minutes(15), 80.0)));
        assert_eq!(skew(&["--usage", "--window", "1h", "--hot", "92.5"]), Ok((true, chrono::Duration::hours(1), 92.5)));
        assert_eq!(skew(&["--window", "1h"]), Err(clap::error::ErrorKind::MissingRequiredArgument));
        assert_eq!(skew(&["--usage", "--policy", "p.yaml"]), Err(clap::error::ErrorKind::ArgumentConflict));
        assert_eq!(skew(&["--usage", "--hot", "0"]), Err(clap::error::ErrorKind::ValueValidation));
        match Cli::try_parse_from(["kdrift", "hotspots", "--for", "6", "--step", "10m", "--threshold", "90%"]) {
            Ok(Cli { command: Command::Hotspots(a), .. }) => {
                assert_eq!((a.windows, a.step, a.threshold), (6, chrono::Duration::minutes(10), 90.0));
            }
            other => panic!("{other:?}"),
        }
        assert!(Cli::try_parse_from(["kdrift", "hotspots", "--for", "0"]).is_err());
        assert_eq!(parse_percent("x"), Err("expected a percent above 0 such as 80 or 92.5, got \"x\"".to_string()));
    }

    #[test]
    fn pod_ref_parsing() {
        assert_eq!(parse_pod_ref("media/backup-1"), Ok(PodRef { namespace: "media".into(), name: "backup-1".into() }));
        assert!(parse_pod_ref("backup-1").is_err());
        assert!(parse_pod_ref("/x").is_err());
        assert!(parse_pod_ref("a/b/c").is_err());
        assert_eq!(parse_pending_pod_ref("backup-1"), Ok(PodRef { namespace: String::new(), name: "backup-1".into() }));
        assert!(parse_pending_pod_ref("").is_err() && parse_pending_pod_ref("a/").is_err());
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
        assert_eq!(parse_instant("1795838400000000").map(|t| t.to_rfc3339()), Ok("2026-11-28T04:00:00+00:00".into()));
        let err = parse_instant("2026-11-28").expect_err("a date alone");
        assert!(err.starts_with("expected an RFC 3339 time such as 2026-11-13T00:00:00Z"), "{err}");
        assert!(err.contains("got \"2026-11-28\"; a date alone does not say which midnight"), "{err}");
        assert!(!err.contains("premature") && !err.contains("input"), "no chrono wording: {err}");
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
    fn victorialogs_arguments() {
        assert_eq!(parse_layout("otel-k8sevents"), Ok(Layout::OtelK8sevents));
        assert!(parse_layout("otel").is_err_and(|e| e.contains("msg-json")));
        assert_eq!(parse_duration("500ms"), Ok(std::time::Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(std::time::Duration::from_secs(120)));
        assert!(parse_duration("2h").is_err() && parse_duration("s").is_err());
        // No argument takes a password or a token.
        let cli = Cli::try_parse_from(["kdrift", "ingest", "victorialogs", "--url", "http://x", "--password", "p"]);
        assert!(cli.is_err());
    }

    #[test]
    fn prometheus_arguments() {
        assert_eq!(parse_span("30s"), Ok(chrono::Duration::seconds(30)));
        assert_eq!(parse_span("1h"), Ok(chrono::Duration::hours(1)));
        assert!(parse_span("0s").is_err() && parse_span("1w").is_err() && parse_span("h").is_err());
        let cli = Cli::try_parse_from(["kdrift", "ingest", "prometheus", "--url", "http://x", "--token", "t"]);
        assert!(cli.is_err(), "no argument takes a token");
    }

    #[test]
    fn thresholds_parsing() {
        assert_eq!(
            parse_thresholds("cpu=20, memory=35.5"),
            Ok(Thresholds(vec![("cpu".into(), 20.0), ("memory".into(), 35.5)]))
        );
        assert!(parse_thresholds("cpu").is_err());
        assert!(parse_thresholds("cpu=x").is_err());
        // Names: the node resources, hugepages, extended resources; nothing else.
        let names = |s: &str| parse_thresholds(s).map(|t| t.0.into_iter().map(|(r, _)| r).collect::<Vec<_>>());
        assert_eq!(
            names("cpu=1,memory=2,pods=3,ephemeral-storage=4,hugepages-2Mi=5,nvidia.com/gpu=6,gpu.intel.com/i915=7"),
            Ok(["cpu", "memory", "pods", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu", "gpu.intel.com/i915"]
                .map(String::from)
                .to_vec())
        );
        let unknown = |name: &str| {
            format!(
                "unknown resource {name:?}: expected cpu, memory, pods, ephemeral-storage, hugepages-<size> or an \
                 extended resource with its domain (such as nvidia.com/gpu)"
            )
        };
        assert_eq!(parse_thresholds("cpuu=20"), Err(unknown("cpuu")));
        assert_eq!(parse_thresholds("cpu=20, gpu=10"), Err(unknown("gpu")));
        assert_eq!(parse_thresholds("CPU=20"), Err(unknown("CPU")));
        assert!(parse_thresholds("").is_err());
        // hugepages-<size>: a size that is a quantity above 0.
        let hugepages = |size: &str| {
            format!(
                "resource \"hugepages-{size}\": expected hugepages-<size> with a size such as 2Mi or 1Gi, got {size:?}"
            )
        };
        for size in ["", "x", "2Mx", "0", "-2Mi"] {
            assert_eq!(parse_thresholds(&format!("cpu=20,hugepages-{size}=5")), Err(hugepages(size)), "{size:?}");
        }
        assert_eq!(
            names("hugepages-1Gi=5,hugepages-1048576=5"),
            Ok(vec!["hugepages-1Gi".into(), "hugepages-1048576".into()])
        );
        // <domain>/<name>: a DNS subdomain and a qualified name's name, both non-empty.
        let extended = |name: &str, problem: &str| {
            Err(format!(
                "resource {name:?}: expected an extended resource as <domain>/<name> (such as nvidia.com/gpu): {problem}"
            ))
        };
        let no_domain = "the domain before the / is empty";
        let no_name = "the name after the / is empty";
        assert_eq!(parse_thresholds("/=5"), extended("/", no_domain));
        assert_eq!(parse_thresholds("/x=5"), extended("/x", no_domain));
        assert_eq!(parse_thresholds("cpu/=5"), extended("cpu/", no_name));
        assert_eq!(parse_thresholds("nvidia.com/=5"), extended("nvidia.com/", no_name));
        for (name, domain) in [("-a.com/gpu", "-a.com"), ("a..com/gpu", "a..com"), ("NVIDIA.com/gpu", "NVIDIA.com")] {
            let problem = format!(
                "{domain:?} is not a DNS domain (lowercase letters, digits, '-' and '.', each part starting and ending \
                 with a letter or digit)"
            );
            assert_eq!(parse_thresholds(&format!("{name}=5")), extended(name, &problem), "{name}");
        }
        let long = "g".repeat(64);
        for (name, short) in [("a.com/gpu-", "gpu-"), ("a.com/g/x", "g/x"), ("a.com/g pu", "g pu")] {
            let problem = format!(
                "{short:?} is not a resource name (up to 63 letters, digits, '-', '_' and '.', starting and ending \
                 with a letter or digit)"
            );
            assert_eq!(parse_thresholds(&format!("{name}=5")), extended(name, &problem), "{name}");
        }
        assert!(parse_thresholds(&format!("a.com/{long}=5")).is_err(), "64 characters");
        // Resource names are case-sensitive: an upper-case name is a valid one.
        assert_eq!(
            names(&format!("gpu.intel.com/I915=1,example.com/a_b.C-1=2,a.com/{}=3", &long[1..])),
            Ok(vec!["gpu.intel.com/I915".into(), "example.com/a_b.C-1".into(), format!("a.com/{}", &long[1..])])
        );
        assert_eq!(
            parse_thresholds("cpu=20,cpu=30"),
            Err("cpu is given twice (20 and 30); give each resource once".to_string())
        );
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
    fn kube_flags_read_like_kubectl() {
        let kube = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
            Ok(Command::Ingest(IngestCommand::Api(a))) => Ok(a.kube),
            Ok(Command::Record(r)) => Ok(r.kube),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.kind()),
        };
        let k = kube(&["kdrift", "ingest", "api", "--kubeconfig", "/k", "--context", "c", "-n", "media"]).expect("ok");
        assert_eq!(
            (k.cluster.kubeconfig, k.cluster.context.as_deref(), k.namespace.as_deref(), k.all_namespaces),
            (Some(PathBuf::from("/k")), Some("c"), Some("media"), false)
        );
        assert!(kube(&["kdrift", "record", "-A"]).expect("ok").all_namespaces);
        assert!(kube(&["kdrift", "record", "-A", "-n", "x"]).is_err(), "-A and -n conflict");
        // The page byte cap: 256 MiB unless raised; under 1 KiB refused.
        assert_eq!(kube(&["kdrift", "record"]).expect("ok").cluster.max_page_bytes(), 256 << 20);
        let k = kube(&["kdrift", "ingest", "api", "--max-page-bytes", "1GiB"]).expect("ok");
        assert_eq!(k.cluster.max_page_bytes, 1 << 30);
        assert!(kube(&["kdrift", "ingest", "api", "--max-page-bytes", "10"]).is_err());
        assert_eq!(parse_page_bytes("10"), Err("\"10\": a list page needs at least 1KiB".to_string()));
        let rebalance = Cli::try_parse_from(["kdrift", "rebalance", "run", "--yes", "--max-page-bytes", "4MiB"]);
        assert!(rebalance.is_ok(), "{:?}", rebalance.err());
    }

    #[test]
    fn record_caps_a_watch_event_at_64_mib_unless_set_between_1_kib_and_4_gib() {
        let event = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
            Ok(Command::Record(r)) => Ok(r.max_event_bytes),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.kind()),
        };
        assert_eq!(event(&["kdrift", "record"]), Ok(64 << 20));
        assert_eq!(event(&["kdrift", "record", "--max-event-bytes", "16MiB"]), Ok(16 << 20));
        assert!(event(&["kdrift", "record", "--max-event-bytes", "4GiB"]).is_err());
        assert_eq!(parse_event_bytes("100"), Err("\"100\": a watch event cap is 1KiB to 4GiB".to_string()));
    }

    #[test]
    fn durations_and_probes() {
        assert_eq!(parse_timeout("0"), Ok(std::time::Duration::ZERO));
        assert_eq!(parse_timeout("5m"), Ok(std::time::Duration::from_secs(300)));
        assert!(parse_timeout("5").is_err());
        assert_eq!(parse_max_age("26h").map(|(d, t)| (d.num_hours(), t)), Ok((26, "26h".to_string())));
        assert!(parse_max_age("soon").is_err());
        assert!(parse_probe("app=plex=http://plex:32400/sessions").is_ok());
        assert!(parse_probe("app=plex").is_err());
        assert_eq!(parse_every("1m"), Ok(std::time::Duration::from_secs(60)));
        assert_eq!(parse_every("90s"), Ok(std::time::Duration::from_secs(90)));
        assert!(parse_every("0").is_err());
        let every = |s: &str| parse_metrics_interval(s).map(|m| m.0);
        assert_eq!(every("30s"), Ok(Some(std::time::Duration::from_secs(30))));
        assert_eq!((every("0"), every("off"), every("OFF")), (Ok(None), Ok(None), Ok(None)));
        assert!(every("500ms").is_err(), "at least 1s");
    }

    #[test]
    fn evicting_commands_refuse_malformed_arguments() {
        let kind = |args: &[&str]| Cli::try_parse_from(args).map(|_| ()).map_err(|e| e.kind());
        use clap::error::ErrorKind;
        assert_eq!(kind(&["kdrift", "rebalance", "run", "--yes=no"]), Err(ErrorKind::TooManyValues));
        assert_eq!(kind(&["kdrift", "rebalance", "run", "--dry-run=flase"]), Err(ErrorKind::UnknownArgument));
        assert_eq!(kind(&["kdrift", "rebalance", "run", "--dryrun"]), Err(ErrorKind::UnknownArgument));
        assert_eq!(kind(&["kdrift", "rebalance", "apply"]), Err(ErrorKind::MissingRequiredArgument));
        assert!(kind(&["kdrift", "rebalance", "apply", "p.json", "--concurrency", "0"]).is_err());
        assert!(kind(&["kdrift", "rebalance", "plan", "--live", "--at", "2026-11-28T05:00:00Z"]).is_err());
        assert!(kind(&["kdrift", "check"]).is_err(), "--max-age is required");
        match Cli::try_parse_from(["kdrift", "rebalance", "run", "--policy", "p.yaml"]).map(|c| c.command) {
            Ok(Command::Rebalance(RebalanceCommand::Run(a))) => assert!(!a.yes, "plan-only unless --yes"),
            other => panic!("{other:?}"),
        }
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
