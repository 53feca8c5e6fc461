//! The chain of a pod the scheduler placed at once (no FailedScheduling
//! event) that the node's kubelet then refused at admission (`OutOfcpu`,
//! …): the same report as a pod refused after a wait, its state taken at
//! the refusal, the kubelet's count as the exact shortfall, and the same
//! fixes (new-user trial 46: `why-pending --all` named such pods for
//! `why-pending NAMESPACE/NAME`, which then exited 1 with one line).

use chrono::Utc;
use kdrift_store::sql;
use kdrift_store::Reader;

use super::chain::{build_state, Evaluated};
use super::rejection::{AdmissionCount, KubeletRejection, ADMISSION_WINDOW, SLACK};
use super::relief::relief;
use super::report::{admission_shortfall, History, PendingReport, ScheduledAt, UNKNOWN_REQUESTS};
use super::why_full::why_full;
use crate::failed_scheduling::parse;
use crate::next_steps::next_steps;
use crate::AnalyzeError;

/// The note `build_state` gives when the latest message names no failed
/// filter: here there is no message at all (the scheduler found room).
const NO_FILTER_NOTE: &str = "the latest event names no node filter that failed";

/// The report of `namespace/name` from its latest kubelet admission
/// refusal (query `pod_rejections`; the newest pod of the name: that
/// refusal's uid), with no FailedScheduling event: `history.failure_events`
/// and `occurrences` 0, `first_failure` = `last_failure` = the refusal's
/// instant, `pending_seconds` 0, `outcome` `rejected-by-kubelet`, no
/// reasons. `None` when the kubelet never refused it.
///
/// # Errors
/// [`AnalyzeError::Store`] when a query fails.
pub(super) fn refused_report(
    store: &Reader,
    namespace: &str,
    name: &str,
) -> Result<Option<PendingReport>, AnalyzeError> {
    let rows = store.query_map(&sql::POD_REJECTIONS, [namespace, name], |r| {
        Ok((
            r.get::<_, String>(0)?,
            KubeletRejection { at: r.get(1)?, node: r.get(2)?, reason: r.get(3)?, message: r.get(4)?, counted: None },
        ))
    })?;
    let Some((uid, mut rejected)) = rows.into_iter().max_by_key(|(_, r)| r.at) else { return Ok(None) };
    rejected.counted = AdmissionCount::parse(&rejected.message);
    // Its binding: the Scheduled event just before the refusal (of its uid
    // when both name one), else the refusal's node at its instant.
    let since = (rejected.at - ADMISSION_WINDOW).timestamp_micros();
    let scheduled = store
        .query_map(&sql::POD_SCHEDULED, kdrift_store::params![namespace, name, since], |r| {
            Ok((r.get::<_, String>(0)?, ScheduledAt { at: r.get(1)?, node: r.get(2)? }))
        })?
        .into_iter()
        .filter(|(u, s)| (u.is_empty() || uid.is_empty() || *u == uid) && s.at <= rejected.at + SLACK)
        .map(|(_, s)| s)
        .next_back()
        .unwrap_or_else(|| ScheduledAt { at: rejected.at, node: rejected.node.clone() });
    if rejected.node.is_empty() {
        rejected.node = scheduled.node.clone();
    }
    let deletion = store
        .query_map(
            &sql::POD_DELETIONS,
            kdrift_store::params![namespace, name, uid.as_str(), scheduled.at.timestamp_micros()],
            |r| Ok((r.get::<_, chrono::DateTime<Utc>>(0)?, r.get::<_, String>(1)?)),
        )?
        .into_iter()
        .next();
    let at = rejected.at;
    let mut notes = vec![format!(
        "no FailedScheduling event: the scheduler found room on {} and bound the pod at once; the kubelet's own \
         count at admission did not",
        scheduled.node
    )];
    let evaluated = build_state(store, namespace, name, &uid, at, &parse(""), &mut notes)?;
    notes.retain(|n| !n.starts_with(NO_FILTER_NOTE));
    let (full, relief) = match &evaluated {
        Some(ev) => {
            let full = match ev {
                Evaluated { state, cluster, pod: Some(pod), unlisted, event_only } => {
                    why_full(store, pod, state, cluster, unlisted, event_only, at)?
                }
                _ => None,
            };
            (full, relief(store, ev, at)?)
        }
        None => (None, Vec::new()),
    };
    let mut state = evaluated.map(|e| e.state);
    if let Some(state) = state.as_mut() {
        // The scheduler saw room, as the store's amounts may: the kubelet's
        // count is the shortfall whatever they say.
        if let Some(note) = admission_shortfall(state, Some(&rejected), true) {
            for n in notes.iter_mut() {
                if let Some(head) = n.strip_suffix(UNKNOWN_REQUESTS) {
                    *n = format!("{head}{}", super::report::KUBELET_REQUESTS);
                }
            }
            notes.push(note);
        }
    }
    let history = History {
        first_failure: at,
        last_failure: at,
        occurrences: 0,
        failure_events: 0,
        scheduled: Some(scheduled),
        deleted_at: deletion.as_ref().map(|(d, _)| *d),
        deleted_by: deletion.map(|(_, by)| by),
        rejected: Some(rejected),
        pending_seconds: 0,
        outcome: "rejected-by-kubelet",
    };
    let mut report = PendingReport {
        namespace: namespace.to_string(),
        name: name.to_string(),
        uid,
        history,
        total_nodes: None,
        latest_message: String::new(),
        reasons: Vec::new(),
        preemption: None,
        failures: Vec::new(),
        state,
        why_full: full,
        relief,
        next_steps: Vec::new(),
        notes,
    };
    report.next_steps = next_steps(&report);
    // The scheduler gave no `Insufficient cpu`: the steps for that room
    // address the kubelet's refusal.
    if let Some(r) = &report.history.rejected {
        if let Some(c) = &r.counted {
            let insufficient = format!("Insufficient {}", c.resource);
            for s in report.next_steps.iter_mut().filter(|s| s.addresses == insufficient) {
                s.addresses = r.reason.clone();
            }
        }
    }
    Ok(Some(report))
}
