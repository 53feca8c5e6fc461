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
mod refused;
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
pub use rejection::{
    pod_rejections, refusal_loops, refused_pods, AdmissionCount, KubeletRejection, RefusalLoop, RefusedPod,
};
pub use relief::{DefaultPolicyRelief, Relief, ReliefPolicy};
pub use report::{why_pending, FailureEvent, History, PendingReport, PreemptionVerdict, ReasonLine, ScheduledAt};
pub use template::SpecFrom;
pub use why_full::{WhyFull, EXPLAINED_NODES};

use crate::failed_scheduling::{parse, MessageForm, ReasonKind};
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
    /// caps a message near 1 KiB). The latest by last time, then first
    /// time, then event key: the same message as the chain's
    /// [`PendingReport::latest_message`].
    pub latest_message: String,
    /// Whether `latest_message` is kube-scheduler's "skip schedule deleting
    /// pod": the pod was being deleted, not a failed attempt, so `reasons`
    /// are those of the latest attempt before it (as the chain's).
    pub latest_is_deleting_skip: bool,
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
    /// The reasons of the latest attempt's message in the scheduler's words,
    /// with node counts (`1 Insufficient cpu, 4 node(s) didn't match pod
    /// affinity rules`): of the latest message that is not kube-scheduler's
    /// "skip schedule deleting pod" (never that skip's text); `""` when
    /// every event of the pod is that skip.
    pub reasons: String,
    /// The same reasons as data: nodes that failed with each (no count for a
    /// PreFilter reason).
    pub reason_items: Vec<ReasonItem>,
}

impl PendingPod {
    /// The reasons as the list shows them (`why-pending --all`, the HTML
    /// report): those of the latest attempt, with a latest "skip schedule
    /// deleting pod" noted after them, never as the reason (new-user trial 43).
    pub fn reasons_shown(&self) -> String {
        match (self.latest_is_deleting_skip, self.reasons.is_empty()) {
            (false, _) => self.reasons.clone(),
            (true, false) => format!("{} (then skipped: being deleted)", self.reasons),
            (true, true) => "none: skipped, being deleted".into(),
        }
    }
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
    Ok(pending_pods_where(store, usize::MAX, |_, _, _| true)?.pods)
}

/// Some of the pods of [`pending_pods`], longest-pending first, and how
/// many there were in all ([`pending_pods_where`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingList {
    /// The first of them, at most the limit given.
    pub pods: Vec<PendingPod>,
    /// How many there were in all (`pods` and the rest).
    pub total: usize,
}

/// The pods of [`pending_pods`] whose wait `keep` accepts (given the
/// first failure, the last failure and `pending_seconds`): the first
/// `limit` of them, longest-pending first, and how many it accepts in all.
/// Read batch by batch as DuckDB streams the rows: the pods past `limit`
/// are counted, never held, and their messages never parsed (kdrift issue
/// 39: 200,000 of them for a report that lists a few hundred).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails or a column is not of the
/// declared type.
pub fn pending_pods_where(
    store: &Reader,
    limit: usize,
    mut keep: impl FnMut(DateTime<Utc>, DateTime<Utc>, i64) -> bool,
) -> Result<PendingList, AnalyzeError> {
    let (mut pods, mut total) = (Vec::new(), 0usize);
    store.for_each_batch(&sql::PENDING_PODS, [], |b| {
        let (namespace, name, uid) = (b.text(0)?, b.text(1)?, b.text(2)?);
        let (first, last) = (b.times(3)?, b.times(4)?);
        let (occurrences, failure_events, message) = (b.int64(5)?, b.int64(6)?, b.text(7)?);
        let (scheduled_at, scheduled_node, seconds) = (b.times(8)?, b.text(9)?, b.int64(10)?);
        let (deleted_at, rejected_at, rejected_reason) = (b.times(11)?, b.times(12)?, b.text(13)?);
        let attempt_message = b.text(14)?;
        for i in 0..b.rows() {
            let first_failure = first.get(i).ok_or_else(|| b.null(3))?;
            let last_failure = last.get(i).ok_or_else(|| b.null(4))?;
            let pending_seconds = b.required_i64(seconds, 10, i)?;
            if !keep(first_failure, last_failure, pending_seconds) {
                continue;
            }
            total += 1;
            if pods.len() >= limit {
                continue;
            }
            let text = |t: kdrift_store::Text<'_>, c: usize| t.get(i).map(str::to_string).ok_or_else(|| b.null(c));
            let latest_message = text(message, 7)?;
            let attempt = attempt_message.get(i).unwrap_or_default();
            let (scheduled_at, deleted_at) = (scheduled_at.get(i), deleted_at.get(i));
            pods.push(PendingPod {
                namespace: text(namespace, 0)?,
                name: text(name, 1)?,
                uid: text(uid, 2)?,
                first_failure,
                last_failure,
                occurrences: b.required_i64(occurrences, 5, i)?.max(0) as u64,
                failure_events: b.required_i64(failure_events, 6, i)?.max(0) as u64,
                reasons: if attempt.is_empty() { String::new() } else { reasons_summary(attempt) },
                reason_items: reason_items(attempt),
                latest_is_deleting_skip: parse(&latest_message).form == MessageForm::SkipDeletingPod,
                latest_message,
                scheduled_at,
                scheduled_node: scheduled_node.get(i).filter(|n| !n.is_empty()).map(str::to_string),
                pending_seconds,
                pending_is_lower_bound: scheduled_at.is_none() && deleted_at.is_none(),
                deleted_at,
                rejected_at: rejected_at.get(i),
                rejected_reason: rejected_reason.get(i).map(str::to_string),
            });
        }
        Ok(())
    })?;
    Ok(PendingList { pods, total })
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
