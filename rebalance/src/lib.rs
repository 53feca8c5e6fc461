//! kdrift's cluster model, kube-scheduler model, descheduler planner and the
//! rebalance executor: shared by the CLI and any controller.
//!
//! **Owns** (pure data, no store, no DuckDB):
//! - the cluster model (`model/`): stored Pod and Node objects
//!   (`serde_json::Value` or JSON text) read tolerantly into [`PodInfo`] and
//!   [`NodeInfo`]; Kubernetes quantities parsed exactly ([`Quantity`]) and
//!   kept as integers ([`ResourceList`]: millicores, bytes, counts); percent
//!   of allocatable as every output writes it ([`percent_text`]);
//! - the kube-scheduler model (`scheduler/`): [`evaluate`] replays the Filter
//!   plugins for one pod against a [`ClusterState`] (why it stayed Pending,
//!   the rebuilt `FailedScheduling` text: [`fit_error_message`]) and
//!   [`pick_node`] scores feasible nodes (where a pod would land; with a
//!   KubeSchedulerConfiguration's NodeResourcesFit strategy and weights,
//!   [`ScoringConfig`] and [`pick_node_with`]) — the one
//!   model behind why-pending, the planner's nodeFit and the simulation;
//! - descheduler policies ([`Policy::from_yaml`]: plain, Helm values,
//!   ConfigMap, with descheduler's validation messages) and the planner:
//!   [`plan`] replays LowNodeUtilization on a [`Snapshot`] and returns a
//!   [`Plan`] (what it would evict and why, as data); [`simulate_plan`],
//!   [`simulate_rounds`] and [`suggest_thresholds`] predict landings, the
//!   following nights and alternative thresholds.
//!
//! **The I/O edge**, kept apart from the pure parts: connecting to a cluster
//! like kubectl and listing/watching raw objects ([`ClusterOptions`],
//! [`list_all`], [`watch()`]; shared by `kdrift ingest api`, `kdrift record`
//! and the executor); executing a plan ([`read_snapshot`] of the live
//! cluster, [`apply_plan`] of a [`PlanDocument`], [`run_rebalance`]) through
//! the Eviction API; masking every credential kdrift holds ([`held()`]).
//! The connecting, listing and executing parts are behind the default
//! feature `cluster` (kube, tokio, reqwest); `analyze`, `kdrift-store` and
//! `scenario` build without it, so reading a store never links a client.
//!
//! **Must not**: read or write the store (the CLI hands it snapshots and
//! event sinks), or plan and execute in one step (a plan is data first).
//!
//! Compatibility contracts: descheduler v0.36 for pod requests and node usage
//! (`shared/reference/descheduler-lownodeutilization.md` §1), kube-scheduler
//! (up to about v1.36) for filters, reason strings and scores
//! (`shared/reference/kubernetes-events.md` §1 and §6), descheduler v0.36
//! for LowNodeUtilization and DefaultEvictor (the same descheduler reference).

// The unit tests compile the bench cluster's source from `kdrift-scenario`
// (`simulate/reference_tests.rs`): its `kdrift_rebalance::` paths name this
// crate there, so that the snapshot it builds has this build's types.
#[cfg(test)]
extern crate self as kdrift_rebalance;
#[cfg(feature = "cluster")]
mod cluster;
mod deadman;
mod document;
mod error;
#[cfg(feature = "cluster")]
mod execute;
mod fast_hash;
mod model;
pub mod parsed_size;
mod planner;
mod policy;
mod redact;
mod scheduler;
mod simulate;
mod strict_json;
mod swallowed;
mod visible;

#[cfg(feature = "cluster")]
pub use cluster::capped_file::{read_capped_text, MAX_KUBECONFIG_BYTES, MAX_SECRET_FILE_BYTES};
#[cfg(feature = "cluster")]
pub use cluster::credentials::{env_proxy_values, MIN_BARE_TOKEN, PROXY_VARIABLES};
#[cfg(feature = "cluster")]
pub use cluster::error::{root_cause, with_causes};
#[cfg(feature = "cluster")]
pub use cluster::exec::{
    set_timeout as set_exec_timeout, stop_plugins as stop_exec_plugins, DEFAULT_TIMEOUT as DEFAULT_EXEC_TIMEOUT,
};
#[cfg(feature = "cluster")]
pub use cluster::redirect::Redirected;
#[cfg(feature = "cluster")]
pub use cluster::url_check::env_proxy_problem;
#[cfg(feature = "cluster")]
pub use cluster::{
    list_all, parsed_event_limit, watch, BadEventKind, BadItem, ClusterError, ClusterOptions, Connected, Deadlines,
    ListPager, ObjectList, Page, ResourceKind, Scope, WatchItem, WatchOptions, DEFAULT_PAGE_SIZE,
    DEFAULT_REQUEST_TIMEOUT, ERROR_BODY_LIMIT, HISTORY_RESOURCES, LIST_BOUND_FACTOR, MAX_EMPTY_PAGES, MAX_PAGES,
    MAX_PAGE_BYTES, MAX_WATCH_EVENT_BYTES, NODE_METRICS, PAGE_BOUND_FACTOR, PARSED_BYTES_PER_EVENT_BYTE, POD_METRICS,
};
pub use deadman::{check_last_success, parse_max_age, CheckResult, DeadmanStatus, SourceReading};
pub use document::drift::Difference;
pub use document::{
    DocumentError, DocumentOptions, NodeIdentity, OwnerIdentity, PlannedEviction, PodIdentity, ProfileClass,
    SkippedCandidate, SnapshotIdentity, UsageWindowOption, Verbatim,
};
pub use document::{PlanDocument, PlanInputs, PlanSource};
pub use error::ModelError;
#[cfg(feature = "cluster")]
pub use execute::progress;
#[cfg(feature = "cluster")]
pub use execute::sessions;
#[cfg(feature = "cluster")]
pub use execute::{
    apply_plan, kinds, needs_pvcs, plan_document, read_snapshot, run_rebalance, ClientError, ClusterClient, EventSink,
    EvictionOutcome, EvictionRequest, EvictionResult, ExecuteOptions, ExecutionProgress, ExecutionReport, KubeClient,
    LiveSnapshot, NoProgress, PodPatcher, Probe, ProgressHandle, Replacement, RunOutcome, RunSettings, SkipCause, Step,
};
#[cfg(feature = "cluster")]
pub use execute::{ExecuteError, ProbeError};
pub use model::fields::PodUsageFields;
pub use model::fields::{model_fields, node_model_fields_agree, pod_model_fields_agree, pod_usage_fields};
pub use model::labels::{Interner, LabelLookup, Labels};
pub use model::measured::{Measured, MeasuredUsage, Reading};
pub use model::node::text::node_json_reads_typed;
pub use model::node::{NodeInfo, Taint, TaintEffect};
pub use model::objects::{namespace_from_json, pdb_from_json, priority_class_from_json, pvc_from_json};
pub use model::percent::{
    hundredths, percent_text, points_text, serialize_hundredths, serialize_hundredths_opt, tenths, thousands,
    threshold_text,
};
pub use model::pod::filter_fields::{pod_for_filters, FilterFields};
pub use model::pod::qos::QosClass;
pub use model::pod::text::pod_json_reads_typed;
pub use model::pod::text::ModelTextError;
pub use model::pod::{
    tolerations_tolerate, Affinity, ContainerInfo, ContainerKind, ContainerStatus, HostPort, LabelSelector,
    NodeAffinity, NodeSelectorTerm, OwnerRef, PodAffinityRules, PodAffinityTerm, PodCondition, PodInfo, PodPhase,
    PodStatusInfo, PreferredNodeTerm, Requirement, SelectorOperator, Toleration, TolerationOperator,
    TopologySpreadConstraint, Volume, VolumeSource, WeightedPodAffinityTerm,
};
pub use model::quantity::{format_amount, parse_amount, Quantity};
pub use model::resources::{ResourceList, CPU, MEMORY, PODS};
pub use model::sparse::{EmptyPart, Sparse};
pub use planner::metrics::{reading_text, UsageSource};
pub use planner::{
    classify_nodes, explain_pod, plan, Budget, EarlyExit, EarlyExitKind, Eviction, ExcludedNode, Explanation,
    FailedRun, LimitCounts, NodeClass, NodeReport, Plan, PlanOptions, PluginRun, PluginVerdict, PodRef, PodVerdict,
    ResourceUsage, SkipReason, SkippedPod, Snapshot, SourceNode, StopReason, ThresholdsApplied, EVICT_ANNOTATION,
    MODE_DESCHEDULER_V0_36, PREFER_NO_EVICTION, SKIPPED_FEW_NODES, SYSTEM_CRITICAL_PRIORITY,
};
pub use planner::{IntOrPercent, MetricSample, Namespace, Pdb, Pvc, REQUEST_EVICT_ONLY_ANNOTATION};
pub use policy::PolicyForm;
pub use policy::{
    aggregate, DefaultEvictorArgs, EvictionLimits, GoDuration, LowNodeUtilizationArgs, Namespaces, NoEvictionPolicy,
    PluginArgs, PluginConfig, PluginSet, Plugins, PodProtection, PodProtections, Policy, PolicyError,
    PriorityThreshold, Profile, ResourceThresholds, StringSelector, LOW_NODE_UTILIZATION,
};
pub use policy::{
    extension_point_of, ExtensionPoint, HighNodeUtilizationArgs, PodLifeTimeArgs, PodScope, RemoveDuplicatesArgs,
    RemoveFailedPodsArgs, RemovePodsHavingTooManyRestartsArgs, RemovePodsViolatingInterPodAntiAffinityArgs,
    RemovePodsViolatingNodeAffinityArgs, RemovePodsViolatingNodeTaintsArgs,
    RemovePodsViolatingTopologySpreadConstraintArgs, DEFAULT_EVICTOR, HIGH_NODE_UTILIZATION, KNOWN_PLUGINS,
    POD_LIFE_TIME, REMOVE_DUPLICATES, REMOVE_FAILED_PODS, REMOVE_PODS_HAVING_TOO_MANY_RESTARTS,
    REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY, REMOVE_PODS_VIOLATING_NODE_AFFINITY,
    REMOVE_PODS_VIOLATING_NODE_TAINTS, REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT,
};
pub use policy::{
    MetricsSource, MetricsUtilization, PrometheusQuery, KUBERNETES_METRICS, METRIC_RESOURCE, PROMETHEUS_METRICS,
};
pub use redact::{
    held, held_in_records, hold, mask_dumps, mask_flag_argument, mask_held_in, mask_patterns, mask_shown,
    mask_shown_keeping, ordinary_text, secret_named, warn_if_ordinary, Redactor, MASK,
};
pub use scheduler::InsufficientResource;
pub use scheduler::{
    balanced_allocation_score, evaluate, evaluate_with_sums, fit_error_message, least_allocated_score, pick_node,
    scheduler_message, score_nodes, ClusterState, FailureKind, FilterFailure, NodeEvaluation, NodePods, NodeScore,
    Placement, Plugin, PluginFailure, SummedPods,
};
pub use scheduler::{
    pick_node_with, score_nodes_with, scoring_shorthand, ResourceSpec, ScoreWeights, ScoringConfig, ScoringStrategy,
    ShapePoint, StrategyType, DEFAULT_SCHEDULER, SCHEDULER_API_VERSION,
};
pub use simulate::{
    simulate_plan, simulate_plan_with, simulate_rounds, simulate_rounds_with, suggest_thresholds, Candidates,
    EvictionLoop, LabelDiff, Landing, LandingOutcome, NodeChange, PileUp, ResourceChange, Round, Rounds, Severity,
    SimulateOptions, Simulation, Suggestion, Verdict, Warning, WarningKind, DEFAULT_RISK_LABEL_KEYS,
    DEFAULT_RISK_LABEL_NAMESPACES,
};
pub use simulate::{HotLanding, NodeUsedChange, PredictedUsage, UsedChange, REQUESTS_PLAN_USED_LIMIT};
pub use strict_json::{
    duplicate_message, json_error_text, noted_bounded, parse_noting_duplicates, parse_within, strict_bounded,
    strict_within, Duplicate, NotedValue, ParseError, StrictValue, STOPPED_READING, TOO_LARGE, VALUES_BETWEEN_STOPS,
};
pub use swallowed::{braces_in_strings, next_value_on_line};
pub use visible::{first_control, is_control, visible};
