//! `why-pending`: which pods stayed Pending, and for one pod the chain —
//! its scheduling history, the reasons the scheduler gave (with counts, and
//! which ones preemption cannot fix), the nodes as the store knew them at the
//! last failure (allocatable vs requested, what each constraint excluded,
//! the shortfall per Insufficient resource), why the node that is left is
//! full (the pods holding its requests, what brought them, the drain bursts)
//! and why the anchor pod of a required pod affinity is there, and the next
//! steps. A pod the kubelet refused right after its binding (`OutOfcpu`)
//! is told apart from one that was scheduled and ran.

mod anchor;
mod arrivals;
mod chain;
mod full;
mod moved_by;
mod rejection;
mod relief;
mod report;
mod template;
mod why_full;

pub(crate) use chain::load_pod;

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

pub use crate::drains::causes::Cause;
pub use anchor::Anchor;
pub(crate) use arrivals::arrivals_on;
pub use chain::{ConstraintLine, NodeLine, ResourceLine, Shortfall, StateAtFailure};
pub use full::{Arrival, Burst, Holder, NodeFill};
pub use moved_by::MoveRun;
pub use rejection::{AdmissionCount, KubeletRejection};
pub use relief::{DefaultPolicyRelief, Relief, ReliefPolicy};
pub use report::{why_pending, FailureEvent, History, PendingReport, PreemptionVerdict, ReasonLine, ScheduledAt};
pub use template::SpecFrom;
pub use why_full::{WhyFull, EXPLAINED_NODES};

use crate::failed_scheduling::{parse, ReasonKind};
use crate::AnalyzeError;

/// One pod that had FailedScheduling events (a row of `why-pending --all`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingPod {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// Pod uid when the events carry it (`""` otherwise).
    pub uid: String,
    /// First FailedScheduling (UTC).
    pub first_failure: DateTime<Utc>,
    /// Last FailedScheduling (UTC).
    pub last_failure: DateTime<Utc>,
    /// Scheduling attempts that failed: the sum of each distinct event's
    /// highest count (kubernetes-events.md §4).
    pub occurrences: u64,
    /// Distinct FailedScheduling events.
    pub failure_events: u64,
    /// The most recent failure message, cut at 16384 characters (ending
    /// `… (cut: N characters in all)`; query `pending_pods`: the API server
    /// caps a message near 1 KiB).
    pub latest_message: String,
    /// When it was finally scheduled (first `Scheduled` after the first failure).
    pub scheduled_at: Option<DateTime<Utc>>,
    /// Where it was scheduled.
    pub scheduled_node: Option<String>,
    /// Seconds from the first failure to scheduling, else to the pod's
    /// deletion (or the last failure when that is later), else to the last
    /// failure: the same value and name as the chain's `history.pending_seconds`.
    pub pending_seconds: i64,
    /// Whether `pending_seconds` is a lower bound: the store saw the pod
    /// neither scheduled nor deleted, so it may still be pending (measured
    /// to the last failure).
    pub pending_is_lower_bound: bool,
    /// When the pod was deleted, if the store saw it.
    pub deleted_at: Option<DateTime<Utc>>,
    /// When the kubelet refused the pod at admission right after its binding
    /// (`OutOfcpu`, …: it never ran), if it did.
    pub rejected_at: Option<DateTime<Utc>>,
    /// The kubelet's reason (`OutOfcpu`).
    pub rejected_reason: Option<String>,
    /// The reasons of the latest message in the scheduler's words, with node
    /// counts (`1 Insufficient cpu, 4 node(s) didn't match pod affinity rules`).
    pub reasons: String,
    /// The same reasons as data: nodes that failed with each (no count for a
    /// PreFilter reason).
    pub reason_items: Vec<ReasonItem>,
}

/// One reason of the latest message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasonItem {
    /// Nodes that failed with it (`None` for a PreFilter reason or a message without counts).
    pub nodes: Option<u32>,
    /// The reason in today's scheduler wording.
    pub reason: String,
    /// Its kind.
    pub kind: ReasonKind,
}

/// The namespaces in which a pod named `name` had FailedScheduling events,
/// else those holding a stored Pod object of that name (a pasted
/// `kubectl get pod -o yaml`; query `pod_name_namespaces`): where
/// `why-pending NAME` looks for it.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn pod_name_namespaces(store: &Reader, name: &str) -> Result<Vec<String>, AnalyzeError> {
    Ok(store.query_map(&sql::POD_NAME_NAMESPACES, [name], |r| r.get(0))?)
}

/// Every pod the store knows, as (namespace, name): a stored version or a
/// FailedScheduling event about it (query `pod_names`). What shell
/// completion offers for `why-pending` and `rebalance explain`.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn pod_names(store: &Reader) -> Result<Vec<(String, String)>, AnalyzeError> {
    Ok(store.query_map(&sql::POD_NAMES, [], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// Pods' labels by (namespace, name) ([`pod_labels`]).
pub type PodLabels = std::collections::HashMap<(String, String), std::collections::BTreeMap<String, String>>;

/// Every stored pod's labels, by (namespace, name): its latest version's
/// `metadata.labels` (query `pod_labels`); a pod without labels, or known
/// from events only, is absent. What `-l SELECTOR` matches.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn pod_labels(store: &Reader) -> Result<PodLabels, AnalyzeError> {
    let rows: Vec<(String, String, String)> =
        store.query_map(&sql::POD_LABELS, [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    // Stored as the JSON object of string values the API server gave; anything else reads as no labels.
    Ok(rows
        .into_iter()
        .map(|(namespace, name, labels)| ((namespace, name), serde_json::from_str(&labels).unwrap_or_default()))
        .collect())
}

/// Every pod that had FailedScheduling, longest-pending first.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn pending_pods(store: &Reader) -> Result<Vec<PendingPod>, AnalyzeError> {
    let rows = store.query_map(&sql::PENDING_PODS, [], |r| {
        Ok(PendingPod {
            namespace: r.get(0)?,
            name: r.get(1)?,
            uid: r.get(2)?,
            first_failure: r.get(3)?,
            last_failure: r.get(4)?,
            occurrences: r.get::<_, i64>(5)?.max(0) as u64,
            failure_events: r.get::<_, i64>(6)?.max(0) as u64,
            latest_message: r.get(7)?,
            scheduled_at: r.get(8)?,
            scheduled_node: r.get::<_, Option<String>>(9)?.filter(|n| !n.is_empty()),
            pending_seconds: r.get(10)?,
            pending_is_lower_bound: false,
            deleted_at: r.get(11)?,
            rejected_at: r.get(12)?,
            rejected_reason: r.get(13)?,
            reasons: String::new(),
            reason_items: Vec::new(),
        })
    })?;
    Ok(rows
        .into_iter()
        .map(|mut p| {
            p.reasons = reasons_summary(&p.latest_message);
            p.reason_items = reason_items(&p.latest_message);
            p.pending_is_lower_bound = p.scheduled_at.is_none() && p.deleted_at.is_none();
            p
        })
        .collect())
}

/// The reasons of a message as `count reason` items joined by `, `; the
/// PreFilter reason, or the raw text for messages without counts.
pub fn reasons_summary(message: &str) -> String {
    let parsed = parse(message);
    if let Some(pre) = &parsed.prefilter {
        return pre.message();
    }
    if parsed.items.is_empty() {
        return message.to_string();
    }
    parsed.items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The reasons of a message as data.
pub fn reason_items(message: &str) -> Vec<ReasonItem> {
    let parsed = parse(message);
    let mut out: Vec<ReasonItem> =
        parsed.prefilter.iter().map(|r| ReasonItem { nodes: None, reason: r.message(), kind: r.kind() }).collect();
    out.extend(parsed.items.iter().map(|i| ReasonItem {
        nodes: Some(i.count),
        reason: i.reason.message(),
        kind: i.reason.kind(),
    }));
    out
}
