//! What descheduler's rule plugins read of a pod beyond scheduling: its
//! status (reason, start time, conditions, container states and restarts),
//! its container images and its topology spread constraints.
//!
//! Source: the fields read by descheduler v0.36's PodLifeTime,
//! RemoveFailedPods, RemovePodsHavingTooManyRestarts, RemoveDuplicates and
//! RemovePodsViolatingTopologySpreadConstraint (descheduler-plugins.md
//! §2.4–§3.2) and DefaultEvictor's `minPodAge` (`status.startTime`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::spec::LabelSelector;

/// The pod status fields beyond `phase`, `nominatedNodeName`, `qosClass` and
/// `startTime` (kept in the pod itself, [`super::PodInfo::start_time`]: the
/// one status field most pods set, so that a pod with only it holds no
/// allocation for its status).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PodStatusInfo {
    /// `status.reason` (e.g. `Evicted`, `NodeLost`, `DeadlineExceeded`).
    pub reason: Option<String>,
    /// `status.conditions`, every type, in order.
    pub conditions: Vec<PodCondition>,
    /// `status.containerStatuses`.
    pub containers: Vec<ContainerStatus>,
    /// `status.initContainerStatuses`.
    pub init_containers: Vec<ContainerStatus>,
    /// `status.ephemeralContainerStatuses`.
    pub ephemeral_containers: Vec<ContainerStatus>,
}

/// One `status.conditions[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PodCondition {
    /// `type`, e.g. `Ready`, `PodScheduled`.
    pub type_: String,
    /// `status`: `True`, `False` or `Unknown`.
    pub status: String,
    /// `reason`.
    pub reason: Option<String>,
    /// `lastTransitionTime`.
    pub last_transition_time: Option<DateTime<Utc>>,
}

/// One container's status: its restarts and current state (`lastState` is
/// not read: no v0.36 plugin reads it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ContainerStatus {
    /// `name`.
    pub name: String,
    /// `restartCount`.
    pub restart_count: i32,
    /// `state.waiting.reason`, e.g. `CrashLoopBackOff`, `ImagePullBackOff`.
    pub waiting_reason: Option<String>,
    /// `state.terminated.reason`, e.g. `OOMKilled`, `Error`, `Completed`.
    pub terminated_reason: Option<String>,
    /// `state.terminated.exitCode`.
    pub terminated_exit_code: Option<i32>,
}

/// One `spec.topologySpreadConstraints[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TopologySpreadConstraint {
    /// `maxSkew` (≥ 1).
    pub max_skew: i32,
    /// `topologyKey`: the node label whose values are the domains.
    pub topology_key: String,
    /// `whenUnsatisfiable`: `DoNotSchedule` or `ScheduleAnyway`.
    pub when_unsatisfiable: String,
    /// `labelSelector`; `None` selects no pod.
    pub label_selector: Option<LabelSelector>,
    /// `minDomains` (only with `DoNotSchedule`).
    pub min_domains: Option<i32>,
    /// `nodeAffinityPolicy`: `Honor` (unset means Honor) or `Ignore`.
    pub node_affinity_policy: Option<String>,
    /// `nodeTaintsPolicy`: `Honor` or `Ignore` (unset means Ignore).
    pub node_taints_policy: Option<String>,
    /// `matchLabelKeys`: label keys whose values in the pod's own labels are
    /// ANDed into the selector.
    pub match_label_keys: Vec<String>,
}

/// The status of a pod whose status kdrift did not read (all unset).
pub(crate) static EMPTY_STATUS: PodStatusInfo = PodStatusInfo {
    reason: None,
    conditions: Vec::new(),
    containers: Vec::new(),
    init_containers: Vec::new(),
    ephemeral_containers: Vec::new(),
};
