//! Assembles the why-pending report of one pod from the store: history,
//! reason breakdown, the state at the last failure ([`super::chain`]) and the
//! next steps ([`crate::next_steps`]).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

use super::chain::{build_state, Evaluated, Shortfall, StateAtFailure};
use super::rejection::{kubelet_rejection, KubeletRejection};
use super::relief::{relief, Relief};
use super::why_full::{why_full, WhyFull};
use crate::failed_scheduling::{parse, Preemption, ReasonKind};
use crate::next_steps::{next_steps, NextStep};
use crate::AnalyzeError;

/// One distinct FailedScheduling event of the pod, at its highest count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureEvent {
    /// The message as recorded.
    pub message: String,
    /// How many scheduling attempts it stands for (>= 1).
    pub count: u64,
    /// First occurrence (UTC).
    pub first_time: DateTime<Utc>,
    /// Last occurrence (UTC).
    pub last_time: DateTime<Utc>,
    /// The scheduler profile that reported it (`default-scheduler`), when known.
    pub reporting_component: String,
}

/// When and where the pod was finally bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScheduledAt {
    /// The `Scheduled` event's time (UTC).
    pub at: DateTime<Utc>,
    /// The node it was assigned to.
    pub node: String,
}

/// The pod's scheduling history. For a pod the scheduler placed at once
/// that the kubelet refused (no FailedScheduling event): `occurrences` and
/// `failure_events` 0, `first_failure` and `last_failure` the refusal's
/// instant, `pending_seconds` 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct History {
    /// First FailedScheduling (UTC).
    pub first_failure: DateTime<Utc>,
    /// Last FailedScheduling (UTC).
    pub last_failure: DateTime<Utc>,
    /// Failed scheduling attempts: the sum of each distinct event's highest count.
    pub occurrences: u64,
    /// Distinct FailedScheduling events.
    pub failure_events: u64,
    /// The first `Scheduled` after the first failure, if any.
    pub scheduled: Option<ScheduledAt>,
    /// When the pod was deleted, if the store saw it (query `pod_deletions`:
    /// its versions, its owner's SuccessfulDelete, its Job's end, …).
    pub deleted_at: Option<DateTime<Utc>>,
    /// What says it was deleted (`DELETED version`, `ReplicaSet web-5d4
    /// SuccessfulDelete`, `Job backup-1 DeadlineExceeded`, …).
    pub deleted_by: Option<String>,
    /// The kubelet's refusal of the pod at admission, right after the binding.
    pub rejected: Option<KubeletRejection>,
    /// Seconds from the first failure to scheduling, else to deletion (or
    /// the last failure when that is later), else to the last failure: the
    /// same value and name as `why-pending --all`'s `pending_seconds` (query
    /// `pending_pods`); a lower bound when `outcome` is `pending`.
    pub pending_seconds: i64,
    /// `scheduled`, `rejected-by-kubelet` (scheduled, then refused at
    /// admission: it never ran), `deleted-unscheduled` or `pending`.
    pub outcome: &'static str,
}

/// One reason of the breakdown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReasonLine {
    /// The reason in today's scheduler wording (`Insufficient cpu`).
    pub reason: String,
    /// Its kind.
    pub kind: ReasonKind,
    /// Nodes that failed with it in the latest message (`None`: a PreFilter
    /// reason, which has no per-node count).
    pub nodes: Option<u32>,
    /// Scheduling attempts that reported it, summed over all failure events.
    pub occurrences: u64,
    /// Whether preemption could resolve it: kube-scheduler's
    /// UnschedulableAndUnresolvable reasons cannot, and no reason can when
    /// the event's own `preemption:` part says the dry run failed (`No
    /// preemption victims found for incoming pod`, `Preemption is not
    /// helpful for scheduling`, `not eligible due to preemptionPolicy=Never`:
    /// kube-scheduler writes that part only when PostFilter nominated no
    /// node) or when no pod at the failure had a lower priority than the
    /// pending pod's on the nodes left after the other constraints.
    pub preemption_can_help: bool,
}

/// What the evidence says of preemption for one reason: kube-scheduler's
/// own dry run, else the pods on the nodes left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PreemptionVerdict {
    /// Not ruled out, and lower-priority pods on the nodes left could make room.
    Yes,
    /// Ruled out (the reason is unresolvable, the event's `preemption:` part
    /// says the dry run failed, or no pod on the nodes left has a lower priority).
    No,
    /// Not ruled out by the reason, but nothing says it would work: the
    /// message has no `preemption:` part (kube-scheduler before 1.24) and
    /// the pods' priorities on the nodes left are not known.
    Maybe,
}

impl PendingReport {
    /// The verdict on preemption for `line` (one of [`PendingReport::reasons`]).
    pub fn preemption_verdict(&self, line: &ReasonLine) -> PreemptionVerdict {
        if !line.preemption_can_help {
            PreemptionVerdict::No
        } else if self.preemption.is_none() && !self.relief.iter().any(|r| r.lower_priority) {
            PreemptionVerdict::Maybe
        } else {
            PreemptionVerdict::Yes
        }
    }
}

/// Everything `why-pending NAMESPACE/POD` says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingReport {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// Pod uid, when known.
    pub uid: String,
    /// Scheduling history.
    pub history: History,
    /// N of the latest `0/N nodes are available`.
    pub total_nodes: Option<u32>,
    /// The latest failure message.
    pub latest_message: String,
    /// Reasons, in the order of the latest message, then older ones.
    pub reasons: Vec<ReasonLine>,
    /// The preemption verdict of the latest message, in short.
    pub preemption: Option<String>,
    /// The distinct failure events, oldest first.
    pub failures: Vec<FailureEvent>,
    /// The nodes at the last failure, when the store has Node objects.
    pub state: Option<StateAtFailure>,
    /// Why the node(s) left are full and why the anchor pod is there (when a
    /// node is left but short, and the pod's object is known).
    pub why_full: Option<WhyFull>,
    /// Whether room can be made on each short node that is left: its
    /// movable pods, lower-priority pods, and the LowNodeUtilization pair
    /// the rebalance simulation shows freeing it.
    pub relief: Vec<Relief>,
    /// What to do, most direct first.
    pub next_steps: Vec<NextStep>,
    /// Caveats (estimated numbers, missing objects).
    pub notes: Vec<String>,
}

/// Builds the report for one pod: from its FailedScheduling events, else
/// (the scheduler placed it at once) from the kubelet's refusal of it at
/// admission, if any. `Ok(None)` when the store has neither for it.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub fn why_pending(store: &Reader, namespace: &str, name: &str) -> Result<Option<PendingReport>, AnalyzeError> {
    let mut steps = crate::steps::Steps::start();
    let failures = store.query_map(&sql::POD_FAILURES, [namespace, name], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(6)?,
            FailureEvent {
                message: r.get(1)?,
                count: r.get::<_, i64>(2)?.max(1) as u64,
                first_time: r.get(3)?,
                last_time: r.get(4)?,
                reporting_component: r.get(5)?,
            },
        ))
    })?;
    if failures.is_empty() {
        // Placed at once, then refused by the kubelet: the same chain.
        return super::refused::refused_report(store, namespace, name);
    }
    // A name can be reused by a new pod (StatefulSets, re-created Jobs): explain
    // the newest pod (the uid of the latest failure) and never mix in another
    // pod's events. Events without a uid belong to whichever pod is explained.
    let uid = failures
        .iter()
        .filter(|(u, _, _)| !u.is_empty())
        .max_by_key(|(_, key, f)| latest_order(f, key))
        .map(|(u, _, _)| u.clone())
        .unwrap_or_default();
    let other_uids = failures.iter().filter(|(u, _, _)| !u.is_empty() && *u != uid).count();
    let (keys, failures): (Vec<String>, Vec<FailureEvent>) =
        failures.into_iter().filter(|(u, _, _)| u.is_empty() || *u == uid).map(|(_, k, f)| (k, f)).unzip();
    let first_failure = failures.iter().map(|f| f.first_time).min().unwrap_or_else(Utc::now);
    let latest = failures.iter().zip(&keys).max_by_key(|(f, key)| latest_order(f, key)).map(|(f, _)| f.clone());
    let latest = latest.unwrap_or_else(|| failures[0].clone());
    let last_failure = latest.last_time;
    steps.done("failures");

    let parsed_latest = parse(&latest.message);
    let mut reasons = reason_lines(&failures, &parsed_latest);
    let preemption = parsed_latest.preemption.as_ref().map(|p| match p {
        Preemption::Text(t) => t.clone(),
        Preemption::Nodes(n) => n.items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
    });
    let mut notes = Vec::new();
    if other_uids > 0 {
        notes.push(format!(
            "{other_uids} FailedScheduling event(s) belong to an earlier pod with the same name (another uid); \
             this report explains the newest pod, uid {uid}"
        ));
    }
    if parsed_latest.form == crate::failed_scheduling::MessageForm::SkipDeletingPod {
        // Not a failure to place the pod (new-user trial 42: the header
        // counted 13 attempts, the reasons 12, with nothing said).
        let others: u64 = failures
            .iter()
            .filter(|f| parse(&f.message).form != crate::failed_scheduling::MessageForm::SkipDeletingPod)
            .fold(0, |acc, f| acc.saturating_add(f.count));
        notes.push(format!(
            "the latest message ({}) is kube-scheduler's \"skip schedule deleting pod\": the pod was being deleted, \
             not a failure to place it; the reasons above are those of the {} before it",
            kdrift_store::instant_text(last_failure),
            crate::words::count(usize::try_from(others).unwrap_or(usize::MAX), "attempt", "attempts")
        ));
    }
    steps.done("reasons");
    // How the wait ended (the binding, deletion or rejection: ~25 ms of
    // lookups by name at 10M events) on a second connection while this one
    // evaluates the state at the last failure (kdrift issue 6).
    let (evaluated, history) = crate::alongside::alongside(
        store,
        |reader| binding_history(reader, namespace, name, &uid, &failures, first_failure, last_failure),
        || -> Result<_, AnalyzeError> {
            let evaluated = build_state(store, namespace, name, &uid, last_failure, &parsed_latest, &mut notes)?;
            let full = match &evaluated {
                Some(Evaluated { state, cluster, pod: Some(pod), unlisted, event_only }) => {
                    why_full(store, pod, state, cluster, unlisted, event_only, last_failure)?
                }
                _ => None,
            };
            let relief = match &evaluated {
                Some(ev) => relief(store, ev, last_failure)?,
                None => Vec::new(),
            };
            Ok((evaluated, full, relief))
        },
    )?;
    let (evaluated, full, relief) = evaluated?;
    let history = history?;
    steps.done("state, why full; beside: binding history");
    if let Some(why) = preemption_verdict(&parsed_latest, evaluated.as_ref(), &reasons, &relief) {
        if reasons.iter().any(|r| r.preemption_can_help) {
            reasons.iter_mut().for_each(|r| r.preemption_can_help = false);
            notes.push(format!("preemption cannot help: {why}"));
        }
    }
    let mut state = evaluated.map(|e| e.state);
    if let Some(state) = state.as_mut() {
        if let Some(note) = admission_shortfall(state, history.rejected.as_ref(), false) {
            // The kubelet's refusal gives the pod's request for that
            // resource: "its requests are unknown" would contradict it.
            for n in notes.iter_mut() {
                if let Some(head) = n.strip_suffix(UNKNOWN_REQUESTS) {
                    *n = format!("{head}{KUBELET_REQUESTS}");
                }
            }
            notes.push(note);
        }
    }
    let mut report = PendingReport {
        namespace: namespace.to_string(),
        name: name.to_string(),
        uid,
        history,
        total_nodes: parsed_latest.total_nodes,
        latest_message: latest.message.clone(),
        reasons,
        preemption,
        failures,
        state,
        why_full: full,
        relief,
        next_steps: Vec::new(),
        notes,
    };
    report.next_steps = next_steps(&report);
    steps.done("next steps, drop");
    Ok(Some(report))
}

/// The order the latest failure is picked by: the latest last time, then the
/// latest first time (of two events last seen in the same second, the one
/// that began later, e.g. kube-scheduler's "skip schedule deleting pod"
/// after the attempts), then the greatest event key. Query `pending_pods`
/// picks its latest message by the same order, so the list and the chain
/// name one message (new-user trial 43).
fn latest_order<'a>(f: &FailureEvent, event_key: &'a str) -> (DateTime<Utc>, DateTime<Utc>, &'a str) {
    (f.last_time, f.first_time, event_key)
}

/// How the wait of the pod `namespace/name` (its newest `uid`, '' when the
/// events name none) ended, from its `failures` (those of that uid, oldest
/// first; the first began at `first_failure`, the latest ended at
/// `last_failure`): its binding after the first failure (a Scheduled event),
/// its deletion, and a kubelet's rejection of a bound pod.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
fn binding_history(
    store: &Reader,
    namespace: &str,
    name: &str,
    uid: &str,
    failures: &[FailureEvent],
    first_failure: DateTime<Utc>,
    last_failure: DateTime<Utc>,
) -> Result<History, AnalyzeError> {
    // Bindings before the first failure are not this wait's: the query
    // reads only the events since (a few row groups of a large store).
    let since = first_failure.timestamp_micros();
    let scheduled = store
        .query_map(&sql::POD_SCHEDULED, kdrift_store::params![namespace, name, since], |r| {
            Ok((r.get::<_, String>(0)?, ScheduledAt { at: r.get(1)?, node: r.get(2)? }))
        })?
        .into_iter()
        .filter(|(u, _)| u.is_empty() || uid.is_empty() || *u == uid)
        .map(|(_, s)| s)
        // A failure that began after a binding is of a later pod of the name
        // (events without a uid merge them): that binding ended nothing.
        .find(|s| s.at >= first_failure && !failures.iter().any(|f| f.first_time > s.at));
    let deletion = store
        .query_map(
            &sql::POD_DELETIONS,
            kdrift_store::params![namespace, name, uid, first_failure.timestamp_micros()],
            |r| Ok((r.get::<_, DateTime<Utc>>(0)?, r.get::<_, String>(1)?)),
        )?
        .into_iter()
        .next();
    let (deleted_at, deleted_by) = deletion.map_or((None, None), |(at, by)| (Some(at), Some(by)));
    // Only a version of this pod (the query takes its uid) says how its
    // binding ended: a StatefulSet's next pod of the same name has its own
    // deletion and status. Read only for a pod that was bound.
    let rejected = match &scheduled {
        Some(s) => {
            let far_future = DateTime::<Utc>::MAX_UTC.timestamp_micros() / 2;
            let last_object = store
                .query_map(&sql::POD_AT, kdrift_store::params![namespace, name, far_future, uid], |r| {
                    r.get::<_, String>(6)
                })?
                .into_iter()
                .next()
                .and_then(|json| serde_json::from_str::<serde_json::Value>(&json).ok());
            kubelet_rejection(store, namespace, name, uid, s, last_object.as_ref())?
        }
        None => None,
    };
    let (end, outcome) = match (&scheduled, deleted_at) {
        (Some(s), _) if rejected.is_some() => (s.at, "rejected-by-kubelet"),
        (Some(s), _) => (s.at, "scheduled"),
        // As `pending_pods`: a deletion seen before the last failure ends
        // the wait at that failure.
        (None, Some(d)) => (d.max(last_failure), "deleted-unscheduled"),
        (None, None) => (last_failure, "pending"),
    };
    Ok(History {
        first_failure,
        last_failure,
        occurrences: failures.iter().fold(0u64, |acc, f| acc.saturating_add(f.count)),
        failure_events: failures.len() as u64,
        scheduled,
        deleted_at,
        deleted_by,
        rejected,
        pending_seconds: (end - first_failure).num_seconds(),
        outcome,
    })
}

/// The kubelet's admission count ([`KubeletRejection::counted`]: the
/// node's used and capacity at that instant) as the shortfall on its node,
/// in place of the store's lower bound: the pod's request, the free amount
/// and the shortfall are then exact. Only when the store's amounts are a
/// lower bound (else the state at the failure stands), or `always` (a pod
/// the scheduler placed at once: the store's amounts showed room), and the
/// node is among the state's. Returns the note that says so.
/// The end of the note for a pending pod whose object is not stored.
pub(crate) const UNKNOWN_REQUESTS: &str = "its requests are unknown, so shortfalls cannot be computed";
/// That note's end when the kubelet's refusal gives the request.
pub(super) const KUBELET_REQUESTS: &str =
    "its requests are unknown but for the one the kubelet's admission refusal names (its shortfall below)";

pub(super) fn admission_shortfall(
    state: &mut StateAtFailure,
    rejected: Option<&KubeletRejection>,
    always: bool,
) -> Option<String> {
    let r = rejected?;
    let c = r.counted.as_ref()?;
    if !(state.requested_is_lower_bound || always) || !state.nodes.iter().any(|n| n.name == r.node) {
        return None;
    }
    let from = format!("the kubelet's count at admission, {}", kdrift_store::instant_text(r.at));
    let fmt = |v: i64| c.amount(v);
    let exact = Shortfall {
        node: r.node.clone(),
        resource: c.resource.clone(),
        requested: c.requested,
        free: c.free(),
        short: c.short(),
        display: [fmt(c.requested), fmt(c.free()), fmt(c.short())],
        exact_from: Some(from.clone()),
    };
    match state.shortfalls.iter_mut().find(|s| s.node == r.node && s.resource == c.resource) {
        Some(s) => *s = exact,
        None => state.shortfalls.push(exact),
    }
    // The scheduler bound the pod there: the node passed every filter, so
    // it is left (new-user trial 39: with the pod's object not stored, no
    // node was, and a kubelet-refused pod got no next step).
    if !state.left.contains(&r.node) {
        state.left.push(r.node.clone());
    }
    Some(format!(
        "{} {}: {from} says {} used of {} ({} free for the pod's {}, {} short): exact where the store's amounts \
         are a lower bound",
        r.node,
        c.resource,
        fmt(c.used),
        fmt(c.capacity),
        fmt(c.free()),
        fmt(c.requested),
        fmt(c.short())
    ))
}

/// Why preemption cannot help, whatever the reasons' kinds say; `None`
/// when it might. The event's `preemption:` part decides first: kube-scheduler
/// (1.24+) appends it only when its PostFilter nominated no node, so any such
/// part is a failed dry run. Without that part (older schedulers), it cannot
/// help when every pod on the nodes is listed and none has a lower priority
/// than the pending pod (preemption evicts only lower-priority pods: equal
/// priority or higher, as DaemonSet pods of `system-node-critical`, are never
/// victims; kube-scheduler `defaultpreemption.SelectVictimsOnNode`).
fn preemption_verdict(
    latest: &crate::failed_scheduling::FailedScheduling,
    evaluated: Option<&Evaluated>,
    reasons: &[ReasonLine],
    relief: &[Relief],
) -> Option<String> {
    match &latest.preemption {
        Some(Preemption::Nodes(n)) => {
            let items = n.items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
            return Some(format!("the event's own preemption part says \"{items}\""));
        }
        Some(Preemption::Text(t)) => return Some(format!("the event's own preemption part says \"{t}\"")),
        None => {}
    }
    // The nodes that are left are where preemption would make room: their
    // pods are read whole for `relief`.
    let pod = evaluated?.pod.as_ref()?;
    if reasons
        .iter()
        .any(|r| r.preemption_can_help && !matches!(r.kind, ReasonKind::Insufficient | ReasonKind::TooManyPods))
    {
        return None;
    }
    if relief.is_empty() || relief.iter().any(|r| r.lower_priority) {
        return None;
    }
    let mut nodes: Vec<&str> = relief.iter().map(|r| r.node.as_str()).collect();
    nodes.dedup();
    Some(format!(
        "no pod on {} has a lower priority than the pod's ({}): preemption evicts only lower-priority pods \
         (equal or higher priority, as DaemonSet pods, are never victims)",
        nodes.join(", "),
        pod.priority.unwrap_or(0)
    ))
}

fn reason_lines(failures: &[FailureEvent], latest: &crate::failed_scheduling::FailedScheduling) -> Vec<ReasonLine> {
    // Occurrences per reason over every event; order: latest message first.
    let mut occurrences: BTreeMap<String, (u64, ReasonKind, bool)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut note = |reason: &crate::failed_scheduling::Reason, count: u64, order: &mut Vec<String>| {
        let key = reason.message();
        let entry = occurrences.entry(key.clone()).or_insert((0, reason.kind(), reason.preemption_can_help()));
        entry.0 = entry.0.saturating_add(count);
        if !order.contains(&key) {
            order.push(key);
        }
    };
    for r in latest.reasons() {
        note(r, 0, &mut order);
    }
    for f in failures {
        let parsed = parse(&f.message);
        for r in parsed.reasons() {
            note(r, f.count, &mut order);
        }
    }
    order
        .into_iter()
        .filter_map(|key| {
            let (occ, kind, can_help) = occurrences.get(&key).copied()?;
            let nodes = latest
                .items
                .iter()
                .filter(|i| i.reason.message() == key)
                .map(|i| i.count)
                .reduce(|a, b| a.saturating_add(b));
            Some(ReasonLine { reason: key, kind, nodes, occurrences: occ, preemption_can_help: can_help })
        })
        .collect()
}
