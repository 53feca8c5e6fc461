//! Waiting for an evicted pod's replacement: a pod of the same controller
//! (owner uid) that did not exist before the run, not claimed by another
//! eviction of the same controller, until it is Ready (`status.conditions`
//! `Ready=True`) or the timeout passes. The namespace's pods are listed
//! every poll interval; a failing list is tolerated until the deadline.

use std::time::Instant;

use serde_json::Value;

use super::client::{kinds, ClusterClient};
use super::evict::Ctx;
use super::record::EventSink;
use super::report::{seconds, Replacement};
use crate::document::PlannedEviction;
use crate::model::pod::PodInfo;

/// True when the pod's `Ready` condition is `True`.
pub fn is_ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions").and_then(Value::as_array).is_some_and(|cs| {
        cs.iter().any(|c| {
            c.get("type").and_then(Value::as_str) == Some("Ready")
                && c.get("status").and_then(Value::as_str) == Some("True")
        })
    })
}

/// Waits for `evicted`'s replacement. See the module docs.
pub(super) async fn wait_replacement<C: ClusterClient, S: EventSink>(
    ctx: &Ctx<'_, '_, C, S>,
    e: &PlannedEviction,
    evicted: &PodInfo,
    since: Instant,
) -> Replacement {
    let timeout = ctx.options.ready_timeout;
    if timeout.is_zero() {
        return Replacement::NotWaited;
    }
    let Some(owner) = evicted.controller() else {
        return Replacement::NoController;
    };
    let predicted_node = e.predicted_node.clone();
    let deadline = since + timeout;
    let mut mine: Option<String> = None;
    let mut seen: (Option<String>, Option<String>) = (None, None);
    loop {
        let listed =
            tokio::time::timeout(ctx.options.request_timeout, ctx.client.list(kinds::POD, Some(&evicted.namespace)))
                .await;
        match listed {
            Ok(Ok(items)) => {
                let mut candidates: Vec<(PodInfo, &Value)> = items
                    .iter()
                    .filter_map(|v| PodInfo::from_json(v).ok().map(|p| (p, v)))
                    .filter(|(p, _)| {
                        p.controller().is_some_and(|o| o.uid == owner.uid)
                            && p.uid.as_ref().is_some_and(|u| !ctx.shared.known.contains(u))
                            && !p.is_terminating()
                            && !p.is_terminal()
                    })
                    .collect();
                candidates
                    .sort_by(|(a, _), (b, _)| (a.creation_timestamp, &a.name).cmp(&(b.creation_timestamp, &b.name)));
                // Our claimed pod vanished (deleted again): look for another.
                if let Some(uid) = &mine {
                    if !candidates.iter().any(|(p, _)| p.uid.as_ref() == Some(uid)) {
                        mine = None;
                    }
                }
                if mine.is_none() {
                    let mut claimed = ctx.shared.claimed.borrow_mut();
                    if let Some((p, _)) =
                        candidates.iter().find(|(p, _)| p.uid.as_ref().is_some_and(|u| !claimed.contains(u)))
                    {
                        let uid = p.uid.clone().unwrap_or_default();
                        claimed.insert(uid.clone());
                        mine = Some(uid);
                    }
                }
                if let Some((p, v)) = candidates.iter().find(|(p, _)| p.uid.is_some() && p.uid == mine) {
                    if is_ready(v) {
                        if let Some(node) = p.node_name.clone() {
                            let as_predicted = predicted_node.as_ref().map(|n| *n == node);
                            return Replacement::Ready {
                                pod: p.key(),
                                node,
                                waited_seconds: seconds(since.elapsed()),
                                predicted_node,
                                as_predicted,
                            };
                        }
                    }
                    seen = (Some(p.key()), p.node_name.clone());
                }
            }
            Ok(Err(err)) => tracing::debug!("listing pods in {} while waiting: {err}", evicted.namespace),
            Err(_) => tracing::debug!("listing pods in {} while waiting: timed out", evicted.namespace),
        }
        let now = Instant::now();
        if now >= deadline {
            return Replacement::NotReady {
                pod: seen.0,
                node: seen.1,
                waited_seconds: seconds(since.elapsed()),
                predicted_node,
            };
        }
        tokio::time::sleep(ctx.options.poll_interval.min(deadline - now)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn readiness() {
        assert!(is_ready(&json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}})));
        assert!(!is_ready(&json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}})));
        assert!(!is_ready(&json!({"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}})));
        assert!(!is_ready(&json!({})));
    }
}
