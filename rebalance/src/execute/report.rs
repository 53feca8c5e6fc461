//! What an execution did: per planned eviction its outcome (evicted,
//! blocked by a PodDisruptionBudget, skipped, failed, not attempted), the
//! profile and plugin that chose it, and where the replacement landed
//! against the prediction; per run its outcome
//! (succeeded, stopped, refused). Serialisable: `rebalance apply -o json`
//! prints an [`ExecutionReport`], and the store keeps it as a `RebalanceRun`.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::document::drift::Difference;

/// Why a planned eviction was not made although the run went on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SkipCause {
    /// The pod no longer exists (or 404 when evicting).
    Gone,
    /// A pod of that name exists with another uid.
    Replaced,
    /// The pod runs on another node now.
    Moved,
    /// The pod is already being deleted.
    Terminating,
    /// `noEvictionPolicy: Mandatory` and the pod now carries
    /// `descheduler.alpha.kubernetes.io/prefer-no-eviction`.
    MandatoryNoEviction,
    /// A pre-flight probe says the pod is in use (or cannot tell).
    InUse,
    /// The live pod object cannot be read by the model.
    Unreadable,
    /// The pod's name or namespace held a credential kdrift holds (the API
    /// server echoed it there) and is only known masked (`***`): kdrift
    /// does not act on a pod it cannot name (break-it 31 F2).
    MaskedName,
}

/// Where an evicted pod's replacement went.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum Replacement {
    /// `--ready-timeout 0`: not waited for.
    NotWaited,
    /// The pod has no controller: nothing recreates it.
    NoController,
    /// A new pod of the same controller became Ready.
    Ready {
        /// `namespace/name` of the replacement.
        pod: String,
        /// Its node.
        node: String,
        /// Seconds from the eviction to Ready being seen.
        waited_seconds: f64,
        /// The node the plan's simulation predicted, if simulated.
        predicted_node: Option<String>,
        /// `predicted_node == node`, when there was a prediction.
        as_predicted: Option<bool>,
    },
    /// No replacement became Ready within the timeout.
    NotReady {
        /// The replacement seen, if any (`namespace/name`).
        pod: Option<String>,
        /// Its node, if bound.
        node: Option<String>,
        /// Seconds waited.
        waited_seconds: f64,
        /// The node the plan's simulation predicted, if simulated.
        predicted_node: Option<String>,
    },
}

/// What happened to one planned eviction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind")]
pub enum EvictionOutcome {
    /// The API server accepted the Eviction (201).
    Evicted {
        /// Calls made (1 = no retry).
        attempts: u32,
        /// The replacement.
        replacement: Replacement,
    },
    /// 429 with the PodDisruptionBudget message: skipped, the run goes on.
    Blocked {
        /// The API server's message.
        message: String,
    },
    /// Not evicted, the run goes on.
    Skipped {
        /// Why.
        cause: SkipCause,
        /// Why, in words.
        message: String,
    },
    /// The Eviction failed for good (retries exhausted, or an error not worth
    /// retrying): the run stops here.
    Failed {
        /// Calls made.
        attempts: u32,
        /// The last error.
        error: String,
    },
    /// The run had stopped before this eviction's turn.
    NotAttempted {
        /// Why the run stopped.
        reason: String,
    },
}

impl EvictionOutcome {
    /// `Evicted`, `Blocked`, `Skipped`, `Failed` or `NotAttempted`.
    pub fn kind(&self) -> &'static str {
        match self {
            EvictionOutcome::Evicted { .. } => "Evicted",
            EvictionOutcome::Blocked { .. } => "Blocked",
            EvictionOutcome::Skipped { .. } => "Skipped",
            EvictionOutcome::Failed { .. } => "Failed",
            EvictionOutcome::NotAttempted { .. } => "NotAttempted",
        }
    }
}

/// One planned eviction and its outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvictionResult {
    /// The eviction's position in the plan.
    pub order: usize,
    /// `namespace/name`.
    pub pod: String,
    /// The node it was planned to leave.
    pub node: String,
    /// The profile whose plugin chose it.
    pub profile: String,
    /// The plugin that chose it (`RemovePodsViolatingNodeTaints`, `LowNodeUtilization`, …).
    pub plugin: String,
    /// What happened.
    pub outcome: EvictionOutcome,
    /// When its turn came.
    pub started_at: DateTime<Utc>,
    /// When its outcome (and replacement) was known.
    pub finished_at: DateTime<Utc>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RunOutcome {
    /// Every planned eviction had its turn (evicted, blocked or skipped).
    Succeeded,
    /// An eviction failed for good (or events could not be recorded): no further evictions were made.
    Stopped,
    /// The cluster drifted from the plan and `--replan` was not given: nothing was evicted.
    Refused,
}

impl RunOutcome {
    /// `Succeeded`, `Stopped` or `Refused` (as stored in `status.outcome`).
    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Succeeded => "Succeeded",
            RunOutcome::Stopped => "Stopped",
            RunOutcome::Refused => "Refused",
        }
    }
}

/// The settings a run was made with (recorded with it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunSettings {
    /// Evictions in flight at once.
    pub concurrency: usize,
    /// Seconds to wait for each replacement to be Ready (0: not waited for).
    pub ready_timeout_seconds: u64,
    /// Retries of a transient failure before the run stops.
    pub retries: u32,
    /// The probes, as given (`SELECTOR=URL`).
    pub probes: Vec<String>,
}

/// Everything one `rebalance apply` / `rebalance run` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecutionReport {
    /// The run's name (also the stored `RebalanceRun`'s name).
    pub run: String,
    /// `apply` or `run`.
    pub command: String,
    /// The plan's policy source.
    pub policy_source: String,
    /// When the run started.
    pub started_at: DateTime<Utc>,
    /// When it ended.
    pub finished_at: DateTime<Utc>,
    /// How it ended.
    pub outcome: RunOutcome,
    /// The cluster drifted and the plan was made again (`--replan`).
    pub replanned: bool,
    /// How the cluster differed from the plan file (empty when it still held).
    pub differences: Vec<String>,
    /// The same, as data.
    pub difference_details: Vec<Difference>,
    /// Changes that did not matter, snapshot notes.
    pub notes: Vec<String>,
    /// Evictions in the executed plan.
    pub planned: usize,
    /// One per planned eviction, in plan order.
    pub results: Vec<EvictionResult>,
    /// Why the run stopped, when it did.
    pub stop_reason: Option<String>,
    /// Events that could not be recorded in the store.
    pub record_errors: Vec<String>,
    /// The settings.
    pub settings: RunSettings,
}

impl ExecutionReport {
    /// How many results have the outcome `kind` ([`EvictionOutcome::kind`]).
    pub fn count(&self, kind: &str) -> usize {
        self.results.iter().filter(|r| r.outcome.kind() == kind).count()
    }
}

/// Seconds as f64 with millisecond precision.
pub(crate) fn seconds(d: Duration) -> f64 {
    (d.as_millis() as f64) / 1000.0
}
