//! kdrift's analyses: store → findings. Every analysis reads the store
//! through `kdrift-store` (its named queries, rows mapped through its `Row`,
//! or its typed readers) and returns plain data (serde-serialisable) that the
//! CLI renders as tables or JSON. The analyses only read, and the compiler
//! holds them to it: they are handed a `kdrift_store::Reader` (a `Store`
//! derefs to one), which has no write. The drain moves the CLI keeps after
//! an ingest are computed here ([`moves_to_keep`]) and written by the
//! store. They never touch DuckDB or depend on `kdrift-ingest`, kube or an
//! HTTP client (`rebalance` without its `cluster` feature).
//!
//! Modules are private; the API is the `pub use` block below. Entry points:
//! - `failed_scheduling/`: the FailedScheduling message parser, every era
//!   ([`parse_failed_scheduling`] → [`FailedScheduling`]);
//! - `pending/`: `why-pending` — [`why_pending`] (one pod's chain) and
//!   [`pending_pods`] (every pending pod);
//! - `state/`: the cluster at an instant, from object versions ([`ClusterAt`]);
//! - `next_steps/`: what to do about each reason ([`NextStep`]);
//! - `history/`: node signals, eviction evidence and [`placements`] between two instants;
//! - `usage/`: per-node requested % of allocatable at an instant ([`requested_at`]);
//! - `skew/`: `kdrift skew` ([`skew()`]), requested % per node with LowNodeUtilization classes;
//! - `postmortem/`: `postmortem job` ([`postmortem_job`]), why a Job (or a CronJob's runs) failed;
//! - `drains/`: `timeline drains` ([`drain_timeline`]), drains and outages grouped into
//!   rolling operations, and the moves kept after an ingest ([`moves_to_keep`]);
//! - `hot/`: measured usage against requests: `skew --usage` ([`skew_usage()`]) and
//!   `hotspots` ([`hotspots()`]), the nodes hot in fact but not on paper and the pods driving them;
//! - `series/`: every node's requested % over a time range ([`requested_series`]);
//! - `report/`: what `kdrift report` shows ([`report_data`]);
//! - `plausible/`: the store's "now" and range, from times an analysis may believe
//!   ([`latest_observation`]);
//! - `words/`: counts in words, agreeing in number ([`count`]).

mod alongside;
mod backtest;
mod drains;
mod error;
mod failed_scheduling;
mod history;
mod hot;
mod measured;
mod next_steps;
mod pending;
mod plausible;
mod postmortem;
mod rebalance_runs;
mod report;
mod series;
mod skew;
mod snapshot;
mod state;
mod steps;
mod usage;
mod words;

// The API: what the CLI and the tests use, and the types reachable from it.
pub use backtest::{backtest, backtest_with, Backtest, Carried, FailureReplay, Night, NightEviction, Replay};
pub use drains::causes::EvictionRun;
pub use drains::kept::RULES_VERSION;
pub use drains::{
    drain_moves, drain_moves_and_placements, drain_moves_to_nodes, drain_timeline, moves_are_fresh, moves_to_keep,
    read_kept_moves, Band, BandKind, DrainTimeline, EpisodeEnd, Landing, MovedPod, MovesToNodes, NodeEpisode,
    Operation, OperationKind, Replacement,
};
pub use drains::{CordonedTogether, EpisodeOnNode, OperationToNodes};
pub use error::AnalyzeError;
pub use failed_scheduling::{
    parse as parse_failed_scheduling, FailedScheduling, MessageForm, NodeConditionType, Preemption, PvcProblem, Reason,
    ReasonCount, ReasonKind,
};
pub use history::{beginning, eviction_evidence_in, far_future, placements, Placement};
pub use history::{EvictionEvidence, NodeSignal, SignalKind};
pub use hot::{hotspots, skew_usage, usage_span, Driver, Episode, Hotspots, HotspotsOptions, UsageSpan, NO_SAMPLES};
pub use hot::{used_series, NodeUsed, Spot, UsageSkew, UsedLine, UsedPoint, UsedSeries};
pub use measured::measured_at;
pub use next_steps::{NextStep, RESOLVED_BY_ITSELF_SECONDS};
pub use pending::{
    pending_pods, pod_labels, pod_name_namespaces, pod_names, pod_rejections, why_pending, Arrival, Cause, NodeFill,
    NodeLine, PendingPod, PendingReport, PodLabels, PreemptionVerdict, Shortfall, StateAtFailure, WhyFull,
    EXPLAINED_NODES,
};
pub use pending::{pending_pods_where, refusal_loops, refused_pods, PendingList, RefusalLoop, RefusedPod};
pub use pending::{
    AdmissionCount, Anchor, Burst, ConstraintLine, DefaultPolicyRelief, FailureEvent, History, Holder,
    KubeletRejection, MoveRun, ReasonItem, ReasonLine, Relief, ReliefPolicy, ResourceLine, ScheduledAt, SpecFrom,
};
pub use plausible::latest_observation;
pub use postmortem::{job_name_namespaces, job_names, no_pod_found, postmortem_job, JobPostmortem, JobRun, RunStatus};
pub use postmortem::{ContainerEnd, JobCondition, JobEvent, JobFailure, JobPod, OtherRun};
pub use rebalance_runs::RunSummary;
pub use rebalance_runs::{last_success, latest_runs};
pub use report::{report_data, time_span, ReportData, ReportOptions, MAX_LISTED};
pub use series::{change_instants, requested_series, requested_series_within, RequestedSeries};
pub use skew::SkewNode;
pub use skew::{narrow_to_pods, policy_from_thresholds, skew, SkewReport};
pub use snapshot::{load_snapshot, LoadedSnapshot};
pub use state::amounts::NodeUsage;
pub use state::amounts::{amounts_at, amounts_at_by, AmountsAt, PodAmountsRead, ONE_QUERY_FROM};
pub use state::for_filters::whole;
pub use state::for_filters::FilterVersions;
pub use state::spans::{pod_spans, PodSpan};
pub use state::unlisted::Unlisted;
pub use state::{no_nodes_at, ClusterAt};
pub use steps::rss_mib;
pub use usage::{requested_at, requested_at_instants, requested_over_time, RequestedAt, ResourceSkew};
pub use usage::{NodeRequested, Requested};
pub use words::count;
