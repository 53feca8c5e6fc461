//! The steps of a pod whose wait ended by itself: the scheduler bound it
//! (and the kubelet admitted it) after a short wait, so the reasons of its
//! failures were transient. Advice to remove a taint by hand after a
//! one-second wait on a booting node (the node controller's
//! `node.kubernetes.io/not-ready`) is bad advice (new-user trial 46).

use super::NextStep;
use crate::failed_scheduling::ReasonKind;
use crate::pending::PendingReport;

/// The longest wait (seconds, first failure to binding) read as resolved
/// by itself: a booting node's `node.kubernetes.io/not-ready` taint goes
/// as soon as its kubelet reports Ready (seconds), and kube-scheduler
/// retries an unschedulable pod on every node or pod change that may help
/// (its scheduling queue's cluster events), so a transient block ends
/// within about a minute.
pub const RESOLVED_BY_ITSELF_SECONDS: i64 = 60;

/// One step per reason when the pod was scheduled (not refused by the
/// kubelet) within [`RESOLVED_BY_ITSELF_SECONDS`] of its first failure:
/// it resolved by itself; for a taint or a node condition, the node was
/// likely not yet Ready. `None` otherwise.
pub(super) fn resolved_by_itself(report: &PendingReport) -> Option<Vec<NextStep>> {
    let h = &report.history;
    let s = h.scheduled.as_ref().filter(|_| h.outcome == "scheduled" && h.rejected.is_none())?;
    if h.pending_seconds > RESOLVED_BY_ITSELF_SECONDS {
        return None;
    }
    let head = format!(
        "resolved by itself after {}s: the scheduler bound the pod to {} at {}",
        h.pending_seconds.max(0),
        s.node,
        kdrift_store::instant_text(s.at)
    );
    let steps = report
        .reasons
        .iter()
        .map(|r| NextStep {
            addresses: r.reason.clone(),
            action: match r.kind {
                ReasonKind::UntoleratedTaint
                | ReasonKind::NotReady
                | ReasonKind::UnknownCondition
                | ReasonKind::NodeCondition
                | ReasonKind::NoNodesAvailable
                    if !custom_taint(&r.reason) =>
                {
                    format!(
                        "{head}; the node was likely not yet Ready (a booting or recovering node carries \
                         node.kubernetes.io/not-ready until its kubelet reports Ready, and the node controller then \
                         removes it): no toleration or taint removal needed unless it recurs"
                    )
                }
                ReasonKind::UntoleratedTaint => format!(
                    "{head}; the taint was gone by then (removed by whoever set it): no toleration or taint removal \
                     needed unless it recurs"
                ),
                _ => format!("{head}: nothing to change unless it recurs"),
            },
        })
        .collect::<Vec<_>>();
    Some(if steps.is_empty() {
        vec![NextStep {
            addresses: "FailedScheduling".into(),
            action: format!("{head}: nothing to change unless it recurs"),
        }]
    } else {
        steps
    })
}

/// Whether a taint reason names a key that no node lifecycle component
/// sets (not `node.kubernetes.io/…` nor the cloud provider's
/// `uninitialized`): then the node's readiness does not explain it.
fn custom_taint(reason: &str) -> bool {
    let Some(inner) = reason.split_once('{').and_then(|(_, r)| r.rsplit_once('}')).map(|(k, _)| k) else {
        return false;
    };
    let key = inner.split_once(':').map_or(inner, |(k, _)| k).trim();
    !(key.starts_with("node.kubernetes.io/") || key == "node.cloudprovider.kubernetes.io/uninitialized")
}
