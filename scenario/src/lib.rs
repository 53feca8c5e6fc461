//! Generated clusters, one home for the demo, the tests and the benchmarks:
//!
//! - the demo story (this file, with `story.rs` and its parts): two days of a
//!   five-node cluster's history ending in a Pending backup pod, what
//!   `kdrift demo` ingests (`kdrift_ingest::demo`), and its memory/taint
//!   variant ([`memory_taint`]);
//! - the filler namespaces of [`ScenarioConfig::scale`] and the scale
//!   generator ([`ScaleGen`]: a month of a 5,000-node cluster, streamed) the
//!   store benchmarks and the scale tests write their data from;
//! - the planner's bench cluster ([`bench_cluster()`]: descheduler's
//!   LowNodeUtilization benchmark shape as a `kdrift_rebalance` snapshot).
//!
//! Everything is deterministic: the output depends only on the seed and the
//! sizes asked for, never on the clock, the environment or a file. What this
//! crate must not do: read files, touch the network or a store, or write
//! anything but the kubectl dump files of a streamed scale history
//! ([`KubectlDump`]) — the generators return or stream plain values
//! ([`ScenarioRecord`]s of `serde_json::Value` objects, a planner
//! `Snapshot`) and the callers store them; nor depend on `kdrift-ingest` or
//! `kdrift-analyze` (they depend on it, through their tests and the demo). It
//! depends on `kdrift-rebalance` for the model types of the bench cluster
//! only.
//!
//! # The demo story
//!
//! Deterministic demo scenario: two days of a five-node home cluster's
//! history, as a watch on pods, nodes, events and their owners would have
//! recorded it, ending with a backup pod that stays Pending for 90 minutes.
//!
//! The story (every number is asserted by tests and exposed in
//! [`ScenarioFacts`]):
//!
//! 1. 2026-11-27 02:00 — drain #1: a rolling drain node-1 … node-5, one node
//!    at a time (cordon, evictions, reboot, uncordon). Each returning node
//!    collects the pods of the node drained after it.
//! 2. 04:00 — the `media/backup` CronJob's Job runs next to `plex` (a required
//!    pod affinity) and succeeds.
//! 3. 2026-11-28 02:00 — drain #2: node-1 first; as soon as it is back the
//!    operator cordons node-2, node-3 and node-4 together and drains them, so
//!    about 30 evicted pods land on node-1 within three minutes of it
//!    becoming Ready — plex among them (node-1 is the only schedulable node
//!    with a free i915 GPU slot that plex's preferred affinity likes). Then
//!    node-5. At 03:00 image updates roll out and queue-worker scales up.
//! 4. 04:00 — the next backup pod needs 100m CPU on plex's node; node-1 has
//!    1942m of 2000m requested (58m free), the other nodes have room but no
//!    plex: `0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't
//!    match pod affinity rules. …`. It stays Pending until the Job's
//!    `activeDeadlineSeconds` (5400) expires at 05:30.
//! 5. Measured usage ([`Scenario::usage_points`], `usage.rs`): over the
//!    last three hours, metrics-server samples every minute; from 03:30 two
//!    pods on node-4 (about 40 % requested) use several times their
//!    requests and the node runs at 93 % cpu — hot in fact, not on paper.
//!
//! A variant, [`memory_taint`], tells the same two days with a backup pod
//! short of memory (not CPU) behind a tainted node, and a scale-down hours
//! later that makes node-1 look roomy (see `variant.rs`).
//!
//! Output never depends on anything but the seed: the generator has its own
//! PRNG (`rng.rs`), a fixed calendar, and a scheduler model (`sim.rs`) that
//! picks every node. The seed changes identifiers (uids, name suffixes,
//! boot ids, event-name nanoseconds, eventTime microseconds) — never a
//! placement, a time to the millisecond, or a number.

mod backup;
mod bench_cluster;
mod bench_cluster_lists;
mod catalog;
mod controllers;
mod events;
mod filler;
mod kubectl;
mod lifecycle;
mod nodes;
mod pods;
mod recorder;
mod rng;
mod scale;
mod sim;
mod story;
mod usage;
mod variant;
mod whole_policy;
mod world;

#[cfg(test)]
mod bench_cluster_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod variant_tests;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use bench_cluster::{generate as bench_cluster, policy as bench_policy, policy_yaml as bench_policy_yaml};
pub use bench_cluster::{BenchCluster, Temperature, PODS_PER_NODE};
pub use bench_cluster_lists::write_bench_cluster_lists;
pub use kubectl::KUBECTL_FILES;
pub use scale::{KubectlDump, ScaleConfig, ScaleFacts, ScaleGen};
pub use usage::{HotFacts, UsagePoint, HOT_NODE};
pub use variant::{memory_taint, MemoryTaint, MemoryTaintFacts};
pub use whole_policy::{all_plugins_policy, whole_policy_cluster, ALL_PLUGINS_POLICY};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioConfig {
    /// Seed of the identifiers (uids, name suffixes, ...). The story's
    /// times, placements and numbers are the same for every seed.
    pub seed: u64,
    /// 1 = the demo story alone; n > 1 adds n − 1 independent filler
    /// namespaces of short BestEffort batch pods with their events (for
    /// benchmarks). The story's records stay identical, resourceVersions
    /// included.
    pub scale: u32,
}

impl Default for ScenarioConfig {
    fn default() -> Self {
        ScenarioConfig { seed: 1, scale: 1 }
    }
}

/// How a watch reports a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ObjectChange {
    /// The object was created (or listed at the start).
    Added,
    /// A new version of the object.
    Modified,
    /// The object was removed; the record carries its last state.
    Deleted,
}

/// One object version as observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRecord {
    /// When the watch saw it.
    pub observed_at: DateTime<Utc>,
    /// Added, Modified or Deleted.
    pub change: ObjectChange,
    /// The full API object (`apiVersion`, `kind`, `metadata` with name,
    /// namespace, uid, resourceVersion, creationTimestamp, ...).
    pub object: Value,
}

/// A generated scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Every record, sorted by `observed_at`; resourceVersions strictly increase.
    pub records: Vec<ScenarioRecord>,
    /// The expected answers.
    pub facts: ScenarioFacts,
}

/// A pod named by the facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodFact {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Uid.
    pub uid: String,
    /// Node it is bound to (None while unscheduled).
    pub node: Option<String>,
}

/// CPU bookkeeping of one node at one instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeUsage {
    /// Node name.
    pub node: String,
    /// Sum of CPU requests of the non-terminal pods bound to it (DaemonSet pods included), millicores.
    pub requested_cpu_millis: i64,
    /// Allocatable CPU, millicores.
    pub allocatable_cpu_millis: i64,
    /// Allocatable minus requested.
    pub free_cpu_millis: i64,
    /// requested × 100 / allocatable, rounded down.
    pub requested_percent: i64,
    /// Number of those pods.
    pub pods: usize,
}

/// One node's part of a drain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainWindow {
    /// Node name.
    pub node: String,
    /// `spec.unschedulable` set (drain start for this node).
    pub cordoned_at: DateTime<Utc>,
    /// Last evicted pod gone.
    pub evicted_at: DateTime<Utc>,
    /// Ready again after the reboot.
    pub ready_at: DateTime<Utc>,
    /// Uncordoned (drain end for this node).
    pub uncordoned_at: DateTime<Utc>,
    /// Pods evicted from it.
    pub evicted_pods: usize,
}

/// One rolling drain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainFacts {
    /// 1 or 2.
    pub number: u32,
    /// First cordon.
    pub started_at: DateTime<Utc>,
    /// Last uncordon.
    pub ended_at: DateTime<Utc>,
    /// Per node, in the order they were cordoned.
    pub windows: Vec<DrainWindow>,
}

/// The expected answers a test or a demo asserts on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioFacts {
    /// Scenario start (2026-11-27T00:00:00Z).
    pub start: DateTime<Utc>,
    /// Time of the last story record.
    pub end: DateTime<Utc>,
    /// `node-1` … `node-5`.
    pub nodes: Vec<String>,
    /// 2000 on every node.
    pub node_allocatable_cpu_millis: i64,
    /// Drain #1 and drain #2.
    pub drains: Vec<DrainFacts>,
    /// Pods the scheduler bound to node-1 in drain #2 between its Ready and Ready + 3 min (`ns/name`).
    pub burst_pods: Vec<String>,
    /// node-1's Ready time in drain #2 (start of the burst window).
    pub burst_ready_at: DateTime<Utc>,
    /// The plex pod at the failure.
    pub plex: PodFact,
    /// When that plex pod was bound (drain #2).
    pub plex_bound_at: DateTime<Utc>,
    /// `media`.
    pub cronjob_namespace: String,
    /// `backup`.
    pub cronjob_name: String,
    /// The day-1 Job that succeeded (`backup-29929200`).
    pub previous_job_name: String,
    /// Its pod (Succeeded), bound next to plex.
    pub previous_pod: PodFact,
    /// The failing Job (`backup-29930640`).
    pub job_name: String,
    /// Job creation (= status.startTime, 2026-11-28T04:00:00Z).
    pub job_created_at: DateTime<Utc>,
    /// 5400.
    pub active_deadline_seconds: i64,
    /// When the Job controller reported `DeadlineExceeded`.
    pub deadline_exceeded_at: DateTime<Utc>,
    /// The pod that stayed Pending.
    pub pending_pod: PodFact,
    /// Its CPU request: 100.
    pub pending_pod_cpu_request_millis: i64,
    /// Its memory request in MiB.
    pub pending_pod_memory_request_mib: i64,
    /// When it was deleted (after the deadline).
    pub pending_pod_deleted_at: DateTime<Utc>,
    /// First scheduling attempt that failed (the failure instant).
    pub failure_at: DateTime<Utc>,
    /// The FailedScheduling note (and the PodScheduled condition message).
    pub failed_scheduling_note: String,
    /// `metadata.name` of that events.k8s.io Event.
    pub failed_scheduling_event: String,
    /// `series.count` of its last version.
    pub failed_scheduling_count: u32,
    /// Number of versions of that Event emitted.
    pub failed_scheduling_versions: usize,
    /// Every node's CPU at the failure instant, in name order.
    pub usage_at_failure: Vec<NodeUsage>,
}

impl ScenarioFacts {
    /// The usage of one node at the failure.
    pub fn usage(&self, node: &str) -> Option<&NodeUsage> {
        self.usage_at_failure.iter().find(|u| u.node == node)
    }
}

/// An event as core/v1 clients see it (kubectl, event exporters, collectors
/// watching `events` in the core group): an events.k8s.io/v1 event in its
/// core/v1 form (`count` missing, null first/last timestamps, empty
/// source); a core/v1 event unchanged.
pub fn core_v1_view(event: &Value) -> Value {
    if event.get("apiVersion").and_then(Value::as_str) == Some("events.k8s.io/v1") {
        events::new_to_core(event)
    } else {
        event.clone()
    }
}

/// Generates the scenario for `config`. Pure: the same config always gives
/// the same value.
pub fn generate(config: &ScenarioConfig) -> Scenario {
    let (story, facts) = story::run(config.seed);
    let records = if config.scale > 1 {
        let filler = filler::generate(config.seed, config.scale - 1, &facts);
        recorder::merge(story, filler)
    } else {
        story
    };
    Scenario { records, facts }
}

impl Scenario {
    /// The latest version of every pod, node and event still present at the
    /// end, as `kubectl get <kind> -A -o json` prints it (`kind: List`;
    /// events in core/v1 form). See [`KUBECTL_FILES`].
    pub fn to_kubectl_lists(&self) -> Vec<(String, Value)> {
        kubectl::lists(&self.records, None)
    }

    /// The same lists as they would have been dumped at `at` (only records
    /// observed at or before it). Dumping during the Pending window
    /// (`facts.failure_at` … `facts.pending_pod_deleted_at`) shows the pod.
    pub fn to_kubectl_lists_at(&self, at: DateTime<Utc>) -> Vec<(String, Value)> {
        kubectl::lists(&self.records, Some(at))
    }

    /// The measured usage metrics-server would have reported every minute
    /// over the story's last three hours, and what it shows (one node hot
    /// in fact, not on paper): see [`HotFacts`].
    pub fn usage_points(&self) -> (Vec<UsagePoint>, HotFacts) {
        usage::usage_points(&self.records, self.facts.end)
    }
}
