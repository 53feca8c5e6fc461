//! Why the node that is left is full: the pods holding its requests (most
//! first), when each arrived and what brought it — the replacement of a pod
//! evicted by a drain (and whether it came in the burst right after the
//! node came back), a Deployment scaling up, a DaemonSet, or its owner
//! creating it — and the bursts of placements each drain sent to the node.
//!
//! A pod that replaced one evicted by another component (the descheduler,
//! kdrift, Karpenter, cluster-autoscaler, the node controller) arrived
//! through that eviction ([`super::moved_by`]); a scale-up is a rollout
//! (the Deployment's new ReplicaSet) or an HPA's when the events say so.
//!
//! A burst is every pod bound to the node within [`BURST_WINDOW`] (3
//! minutes) after it came back (Ready after the reboot, else the uncordon)
//! from an operation it was part of; for an operation that did not touch the
//! node, the replacements of evicted pods that landed on it. A pod's
//! arrival is "scale-up" when a `ScalingReplicaSet` "Scaled up replica set
//! X" for its ReplicaSet came at most 2 minutes before its creation.

use chrono::{DateTime, Duration, Utc};
use kdrift_rebalance::format_amount;
use kdrift_rebalance::PodInfo;
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;

use super::moved_by::{evicted_arrival, hpa_before, MoveRun};
use crate::drains::causes::{Cause, MoveCause, Replacements};
use crate::drains::{OperationToNodes, SETTLE};
use crate::history::Placement;
use crate::words::count;

/// Placements on a node this long after it came back are its burst.
pub const BURST_WINDOW: Duration = Duration::minutes(3);

/// What brought a pod to its node.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Arrival {
    /// Bound during a drain (operation `operation` of `timeline drains`).
    Drain {
        /// The operation's number.
        operation: usize,
        /// The operation's start (UTC).
        operation_started_at: DateTime<Utc>,
        /// `namespace/name` of the evicted pod it replaced, when known.
        replaced: Option<String>,
        /// The node that pod was evicted from.
        from_node: Option<String>,
        /// Bound within 3 minutes after this node came back from the operation.
        in_burst: bool,
    },
    /// Created after its Deployment scaled its ReplicaSet up (rollout or scale-up).
    ScaleUp {
        /// `namespace/deployment`.
        deployment: String,
        /// The ScalingReplicaSet message.
        message: String,
        /// Its time (UTC).
        at: DateTime<Utc>,
        /// `namespace/name` of the HorizontalPodAutoscaler whose
        /// `SuccessfulRescale` came right before (at most 1 minute).
        #[serde(skip_serializing_if = "Option::is_none")]
        hpa: Option<String>,
        /// A rollout: the Deployment's new ReplicaSet scaling up (from 0,
        /// or within 30 minutes of its first scale-up while an older
        /// ReplicaSet of the Deployment was scaled up before).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        rollout: bool,
    },
    /// Created by its owner right after another component evicted one of
    /// the owner's pods (a StatefulSet pod: the pod of the same name).
    Evicted {
        /// Who evicted it.
        cause: Cause,
        /// The descheduler plugin, kdrift run or Karpenter reason, when known.
        by: Option<String>,
        /// `namespace/name` of the evicted pod.
        replaced: String,
        /// The node it was evicted from, when known.
        from_node: Option<String>,
        /// The eviction's time (UTC).
        evicted_at: DateTime<Utc>,
    },
    /// A DaemonSet pod (one per node).
    DaemonSet {
        /// The DaemonSet.
        name: String,
    },
    /// Created by its owner (or unknown owner) outside any drain or scale-up.
    Created {
        /// `Kind/name` of the owner, when known.
        owner: Option<String>,
    },
}

/// One pod holding part of a node's requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Holder {
    /// Namespace.
    pub namespace: String,
    /// Pod name.
    pub name: String,
    /// `Kind/name` of its controller, when known.
    pub owner: Option<String>,
    /// Its request of the short resource (cpu millicores, bytes, units).
    pub request: i64,
    /// Every request, `(resource, amount)`.
    pub requests: Vec<(String, i64)>,
    /// When it was bound to the node (UTC), when the store shows it.
    pub bound_at: Option<DateTime<Utc>>,
    /// What brought it.
    pub arrival: Arrival,
}

/// Placements a drain sent to the node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Burst {
    /// The operation's number (`timeline drains`).
    pub operation: usize,
    /// Its start (UTC).
    pub operation_started_at: DateTime<Utc>,
    /// When the node came back from it (`None`: the node was not part of it).
    pub back_at: Option<DateTime<Utc>>,
    /// Pods bound to the node in the burst.
    pub landed: usize,
    /// Of those, still on the node at the failure.
    pub still_there: usize,
    /// What those still hold of the short resource.
    pub holding: i64,
    /// The finding in words (e.g. "19 pods landed on node-1 within 3 minutes after it came back from drain #2 …").
    pub summary: String,
}

/// Why one node is full.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeFill {
    /// The node.
    pub node: String,
    /// The resource it is short of (`cpu`).
    pub resource: String,
    /// Requested by its pods at the failure.
    pub requested: i64,
    /// Its allocatable.
    pub allocatable: i64,
    /// Every pod counting toward it, largest request of `resource` first.
    pub holders: Vec<Holder>,
    /// Drains that sent pods still on it at the failure, most held first.
    pub bursts: Vec<Burst>,
    /// The other evictions (descheduler, kdrift, Karpenter, cluster-autoscaler,
    /// node controller), HPA scale-ups and rollouts that brought its holders,
    /// most held first (omitted from JSON when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<MoveRun>,
}

/// A `ScalingReplicaSet` scale-up.
pub(super) struct ScaleUp {
    namespace: String,
    deployment: String,
    replica_set: String,
    at: DateTime<Utc>,
    message: String,
}

/// Loads the scale-ups up to `until`.
pub(super) fn scale_ups(store: &Reader, until: DateTime<Utc>) -> Result<Vec<ScaleUp>, crate::AnalyzeError> {
    let bounds = [crate::history::beginning().timestamp_micros(), until.timestamp_micros()];
    Ok(store.query_map(&sql::SCALE_UPS, bounds, |r| {
        Ok(ScaleUp {
            namespace: r.get(0)?,
            deployment: r.get(1)?,
            replica_set: r.get(2)?,
            at: r.get(3)?,
            message: r.get(4)?,
        })
    })?)
}

/// Amount for sentences (cpu always in millicores).
pub(super) fn amount(resource: &str, v: i64) -> String {
    if resource == "cpu" {
        format!("{v}m")
    } else {
        format_amount(resource, v)
    }
}

/// The latest binding of `pod` to `node` at or before `at`.
pub(super) fn bound<'a>(
    placements: &'a [Placement],
    pod: &PodInfo,
    node: &str,
    at: DateTime<Utc>,
) -> Option<&'a Placement> {
    placements
        .iter()
        .filter(|p| p.namespace == pod.namespace && p.name == pod.name && p.node == node && p.bound_at <= at)
        .filter(|p| p.uid.is_empty() || pod.uid.as_deref().is_none_or(|u| u == p.uid))
        .max_by_key(|p| p.bound_at)
}

fn in_burst(op: &OperationToNodes, node: &str, at: DateTime<Utc>) -> bool {
    op.back_ats(node).into_iter().any(|back| at >= back && at <= back + BURST_WINDOW)
}

/// What brought `pod` (bound to `node` by `placement`): the move whose
/// replacement is that very binding (same pod name, node and binding time:
/// a StatefulSet pod keeps its name from move to move, so the name alone
/// would pick its first move anywhere), else another component's eviction
/// of its owner's pod right before its creation, else an operation in
/// progress when it was bound, else a scale-up of its ReplicaSet (an HPA's,
/// a rollout's), else its owner.
pub(super) fn arrival(
    pod: &PodInfo,
    node: &str,
    placement: Option<&Placement>,
    operations: &[OperationToNodes],
    scale_ups: &[ScaleUp],
    causes: &[MoveCause],
    paired: &Replacements,
) -> Arrival {
    if pod.is_daemonset_pod() {
        let name = pod.controller().map(|o| o.name.clone()).unwrap_or_default();
        return Arrival::DaemonSet { name };
    }
    let bound_at = placement.map(|p| p.bound_at);
    let this_binding = |r: &&crate::drains::Replacement| {
        r.namespace == pod.namespace && r.name == pod.name && r.node == node && bound_at.is_none_or(|t| r.bound_at == t)
    };
    for op in operations {
        for m in &op.moves {
            if let Some(r) = m.replacement.as_ref().filter(this_binding) {
                return Arrival::Drain {
                    operation: op.number,
                    operation_started_at: op.started_at,
                    replaced: Some(m.key()),
                    from_node: Some(m.from_node.clone()),
                    in_burst: in_burst(op, node, r.bound_at),
                };
            }
        }
    }
    let (owner, created) = owner_created(pod, placement);
    if let Some(c) = created.and_then(|t| paired.of(causes, &pod.namespace, &pod.name, t)) {
        return evicted_arrival(c);
    }
    if let Some(at) = bound_at {
        if let Some(op) = operations.iter().find(|op| at >= op.started_at && at <= op.last_at + SETTLE) {
            return Arrival::Drain {
                operation: op.number,
                operation_started_at: op.started_at,
                replaced: None,
                from_node: None,
                in_burst: in_burst(op, node, at),
            };
        }
    }
    if let (Some((kind, rs)), Some(created)) = (&owner, created) {
        if kind == "ReplicaSet" {
            let s = scale_ups.iter().rev().find(|s| {
                s.namespace == pod.namespace
                    && &s.replica_set == rs
                    && s.at <= created + Duration::seconds(1)
                    && created - s.at <= Duration::minutes(2)
            });
            if let Some(s) = s {
                let hpa = hpa_before(causes, &s.namespace, &s.deployment, &s.message, s.at)
                    .map(|h| format!("{}/{}", h.namespace, h.name));
                return Arrival::ScaleUp {
                    deployment: format!("{}/{}", s.namespace, s.deployment),
                    message: s.message.clone(),
                    at: s.at,
                    rollout: hpa.is_none() && is_rollout(s, scale_ups),
                    hpa,
                };
            }
        }
    }
    Arrival::Created { owner: owner.map(|(k, n)| format!("{k}/{n}")) }
}

/// A pod's controller `(kind, name)` (else its binding's owner) and its
/// creation (else its binding's).
pub(super) fn owner_created(
    pod: &PodInfo,
    placement: Option<&Placement>,
) -> (Option<(String, String)>, Option<DateTime<Utc>>) {
    let owner = pod
        .controller()
        .map(|o| (o.kind.clone(), o.name.clone()))
        .or_else(|| placement.and_then(|p| Some((p.owner_kind.clone()?, p.owner_name.clone()?))));
    (owner, pod.creation_timestamp.or_else(|| placement.and_then(|p| p.created_at)))
}

/// Whether the scale-up `s` is a rollout: its ReplicaSet scaled up from 0,
/// or first scaled up at most 30 minutes before while an older ReplicaSet
/// of the same Deployment had been scaled up earlier.
fn is_rollout(s: &ScaleUp, scale_ups: &[ScaleUp]) -> bool {
    if s.message.contains(" from 0 to ") {
        return true;
    }
    let same_deployment = || scale_ups.iter().filter(|o| o.namespace == s.namespace && o.deployment == s.deployment);
    let Some(first) = same_deployment().filter(|o| o.replica_set == s.replica_set).map(|o| o.at).min() else {
        return false;
    };
    s.at - first <= Duration::minutes(30) && same_deployment().any(|o| o.replica_set != s.replica_set && o.at < first)
}

/// The bursts `operations` sent to `node`, given its holders at the failure.
pub(super) fn bursts(
    node: &str,
    resource: &str,
    requested: i64,
    holders: &[Holder],
    placements: &[Placement],
    operations: &[OperationToNodes],
) -> Vec<Burst> {
    let mut out = Vec::new();
    // Per operation, a burst after each time the node came back (a node
    // cordoned twice in one operation comes back twice), else the
    // replacements the operation sent there.
    let windows = operations.iter().flat_map(|op| {
        let backs = op.back_ats(node);
        let backs: Vec<Option<DateTime<Utc>>> =
            if backs.is_empty() { vec![None] } else { backs.into_iter().map(Some).collect() };
        backs.into_iter().map(move |back| (op, back))
    });
    for (op, back_at) in windows {
        let landed: Vec<&Placement> = match back_at {
            Some(back) => placements
                .iter()
                .filter(|p| p.node == node && p.bound_at >= back && p.bound_at <= back + BURST_WINDOW)
                .collect(),
            // The replacements' own bindings (name and time: an earlier pod
            // of the same name bound to the node is not one of them).
            None => {
                let replacements: Vec<(&str, &str, DateTime<Utc>)> = op
                    .moves
                    .iter()
                    .filter_map(|m| m.replacement.as_ref())
                    .filter(|r| r.node == node)
                    .map(|r| (r.namespace.as_str(), r.name.as_str(), r.bound_at))
                    .collect();
                placements
                    .iter()
                    .filter(|p| {
                        p.node == node && replacements.contains(&(p.namespace.as_str(), p.name.as_str(), p.bound_at))
                    })
                    .collect()
            }
        };
        // A holder is still there from a landing when it is that binding
        // (same name and, when known, the same binding time).
        let still: Vec<&Holder> = holders
            .iter()
            .filter(|h| {
                landed.iter().any(|p| {
                    p.namespace == h.namespace && p.name == h.name && h.bound_at.is_none_or(|t| t == p.bound_at)
                })
            })
            .collect();
        // Only what still holds the node's requests explains why it is full.
        if still.is_empty() {
            continue;
        }
        let holding: i64 = still.iter().map(|h| h.request).sum();
        let when = kdrift_store::instant_text(op.started_at);
        // `1 pod landed …; still there`, `19 pods landed …; 15 of them still there`.
        let still_there =
            if landed.len() == 1 { "still there".to_string() } else { format!("{} of them still there", still.len()) };
        let summary = match back_at {
            Some(back) => format!(
                "{} on {node} within 3 minutes after it came back (at {}) from drain #{} ({when}); \
                 {still_there} at the failure, holding {} of its {} {resource} requested",
                count(landed.len(), "pod landed", "pods landed"),
                kdrift_store::time_of_day_text(back),
                op.number,
                amount(resource, holding),
                amount(resource, requested),
            ),
            None => format!(
                "{} by drain #{} ({when}) landed on {node}; {still_there} at the failure, \
                 holding {} of its {} {resource} requested",
                count(landed.len(), "pod evicted", "pods evicted"),
                op.number,
                amount(resource, holding),
                amount(resource, requested),
            ),
        };
        out.push(Burst {
            operation: op.number,
            operation_started_at: op.started_at,
            back_at,
            landed: landed.len(),
            still_there: still.len(),
            holding,
            summary,
        });
    }
    out.sort_by(|a, b| {
        b.holding.cmp(&a.holding).then(b.still_there.cmp(&a.still_there)).then(a.operation.cmp(&b.operation))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drains::EpisodeOnNode;

    fn t(hms: &str) -> DateTime<Utc> {
        format!("2026-02-01T{hms}Z").parse().expect("time")
    }

    fn up(rs: &str, at: &str, message: &str) -> ScaleUp {
        ScaleUp {
            namespace: "web".into(),
            deployment: "api".into(),
            replica_set: rs.into(),
            at: t(at),
            message: message.into(),
        }
    }

    #[test]
    fn a_new_replica_set_scaling_up_is_a_rollout_and_its_later_scale_ups_are_not() {
        // The Deployment controller's ScalingReplicaSet (pkg/controller/deployment/sync.go,
        // `scaleReplicaSetAndRecordEvent`): "Scaled up replica set RS to N", since 1.29
        // "Scaled up replica set RS from M to N".
        let old = up("api-1", "00:00:00", "Scaled up replica set api-1 to 3");
        let new = up("api-2", "01:00:00", "Scaled up replica set api-2 to 1");
        let next = up("api-2", "01:00:30", "Scaled up replica set api-2 to 2");
        let later = up("api-2", "03:00:00", "Scaled up replica set api-2 to 5");
        let all = [old, new, next, later];
        let rollout: Vec<bool> = all.iter().map(|s| is_rollout(s, &all)).collect();
        assert_eq!(rollout, [false, true, true, false], "the first ReplicaSet is the Deployment's creation");
        let from_zero = up("api-9", "05:00:00", "Scaled up replica set api-9 from 0 to 2");
        assert!(is_rollout(&from_zero, std::slice::from_ref(&from_zero)));
    }

    #[test]
    fn a_node_back_twice_in_one_operation_gets_the_burst_after_its_second_return() {
        // Break-it trial (session 21): n1 cordoned 01:00–01:01 and again
        // 01:05–01:06, then n2 drained and 5 pods landed on n1 at 01:07:30–34.
        // Only the first return (01:01) was looked at: no burst.
        let back = |at: &str| EpisodeOnNode { node: "n1".into(), back_at: Some(t(at)) };
        let op = OperationToNodes {
            number: 1,
            started_at: t("01:00:00"),
            last_at: t("01:08:00"),
            episodes: vec![back("01:01:00"), back("01:06:00")],
            moves: Vec::new(),
        };
        let placed: Vec<Placement> = (0..5)
            .map(|i| Placement {
                namespace: "web".into(),
                name: format!("b{i}"),
                uid: String::new(),
                node: "n1".into(),
                bound_at: t(&format!("01:07:3{i}")),
                owner_kind: None,
                owner_name: None,
                created_at: None,
                known_from: "event".into(),
            })
            .collect();
        let holders: Vec<Holder> = placed
            .iter()
            .map(|p| Holder {
                namespace: p.namespace.clone(),
                name: p.name.clone(),
                owner: None,
                request: 300,
                requests: vec![("cpu".into(), 300)],
                bound_at: Some(p.bound_at),
                arrival: Arrival::Created { owner: None },
            })
            .collect();
        let found = bursts("n1", "cpu", 1500, &holders, &placed, std::slice::from_ref(&op));
        let summary: Vec<(Option<DateTime<Utc>>, usize, usize, i64)> =
            found.iter().map(|b| (b.back_at, b.landed, b.still_there, b.holding)).collect();
        assert_eq!(summary, [(Some(t("01:06:00")), 5, 5, 1500)]);
        assert!(in_burst(&op, "n1", t("01:07:32")), "a landing 92 s after the second return");
        assert!(!in_burst(&op, "n1", t("01:04:30")), "nor 3.5 min after the first");
    }
}
