//! A pod the scheduler bound and the node's kubelet then refused at
//! admission: the kubelet's `OutOfcpu` (`Node didn't have enough resource:
//! cpu, requested: 500, used: 1775, capacity: 2000`), `OutOfmemory`,
//! `UnexpectedAdmissionError`, `NodeAffinity`, `NodeShutdown`, … event for
//! the pod at or right after the binding (query `pod_rejections`), or its
//! last stored version `Failed` with such a `status.reason`. Such a pod
//! never ran: "scheduled" alone would hide that the node had no room by the
//! kubelet's count.

use chrono::{DateTime, Duration, Utc};
use kdrift_store::sql;
use kdrift_store::Reader;
use serde::Serialize;
use serde_json::Value;

use super::ScheduledAt;
use crate::AnalyzeError;

/// The kubelet's admission reasons besides `OutOf<resource>` (kubelet
/// `lifecycle` admit handlers; also in queries/why_pending/pod_rejections.sql).
const ADMISSION_REASONS: [&str; 8] = [
    "UnexpectedAdmissionError",
    "UnexpectedPredicateFailureType",
    "InvalidNodeInfo",
    "NodeAffinity",
    "NodeShutdown",
    "PodOSNotSupported",
    "PodOSSelectorNodeLabelDoesNotMatch",
    "SysctlForbidden",
];

/// Slack between the scheduler's and the kubelet's event times (whole
/// seconds from two clocks).
pub(super) const SLACK: Duration = Duration::seconds(1);

/// How long after the binding a refusal is still the kubelet's admission of
/// that binding: the kubelet admits a pod as soon as its watch delivers it
/// (seconds). A later `OutOfcpu` is of a pod that ran, e.g. re-admitted
/// after the node restarted.
pub(super) const ADMISSION_WINDOW: Duration = Duration::minutes(1);

/// Whether `reason` is one of the kubelet's admission rejections.
pub fn is_admission_rejection(reason: &str) -> bool {
    reason.starts_with("OutOf") || ADMISSION_REASONS.contains(&reason)
}

/// The kubelet's refusal of a bound pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KubeletRejection {
    /// When (UTC): the event's time, else the binding's (a stored `Failed` version only).
    pub at: DateTime<Utc>,
    /// The node whose kubelet refused it (the event's host, else the binding's node).
    pub node: String,
    /// The kubelet's reason (`OutOfcpu`).
    pub reason: String,
    /// The kubelet's message (`Node didn't have enough resource: cpu, requested: 500, used: 1775, capacity: 2000`).
    pub message: String,
    /// The numbers of an `OutOf<resource>` message: the node's count at that instant.
    pub counted: Option<AdmissionCount>,
}

/// The kubelet's own count at admission (`Node didn't have enough resource:
/// cpu, requested: 500, used: 1775, capacity: 2000`; kubelet
/// `lifecycle.InsufficientResourceError`): exact, where the store's
/// requested amounts may be a lower bound. Units: cpu millicores, memory
/// and storage bytes, others in their units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AdmissionCount {
    /// The resource (`cpu`).
    pub resource: String,
    /// The pod's request.
    pub requested: i64,
    /// What the node's admitted pods requested.
    pub used: i64,
    /// The node's allocatable as the kubelet counts it.
    pub capacity: i64,
}

impl AdmissionCount {
    /// capacity − used.
    pub fn free(&self) -> i64 {
        self.capacity - self.used
    }

    /// requested − free.
    pub fn short(&self) -> i64 {
        self.requested - self.free()
    }

    /// `v` of this count's resource as the kubelet counts it: cpu in
    /// millicores (`1775m of 2000m`, not `of 2`), others as
    /// [`kdrift_rebalance::format_amount`].
    pub fn amount(&self, v: i64) -> String {
        match self.resource.as_str() {
            "cpu" => format!("{v}m"),
            r => kdrift_rebalance::format_amount(r, v),
        }
    }

    /// The numbers of an `OutOf…` message (with or without the `Pod ` prefix
    /// old kubelets wrote); `None` for any other message.
    pub fn parse(message: &str) -> Option<AdmissionCount> {
        let rest = message.split_once("Node didn't have enough resource: ")?.1;
        let mut parts = rest.split(", ");
        let resource = parts.next()?.trim().to_string();
        let mut number = |key: &str| -> Option<i64> { parts.next()?.trim().strip_prefix(key)?.trim().parse().ok() };
        let requested = number("requested:")?;
        let used = number("used:")?;
        let capacity = number("capacity:")?;
        (!resource.is_empty()).then_some(AdmissionCount { resource, requested, used, capacity })
    }
}

/// The rejection of the pod bound as `scheduled` (of uid `uid` when
/// known), from its events within [`ADMISSION_WINDOW`] of the binding, else
/// from `last_object` (its last stored version, which the caller gives only
/// when it is of the same pod: same uid, or a uid unknown on either side).
/// `None` when the kubelet did not refuse it.
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn kubelet_rejection(
    store: &Reader,
    namespace: &str,
    name: &str,
    uid: &str,
    scheduled: &ScheduledAt,
    last_object: Option<&Value>,
) -> Result<Option<KubeletRejection>, AnalyzeError> {
    let rows = store.query_map(&sql::POD_REJECTIONS, [namespace, name], |r| {
        Ok((
            r.get::<_, String>(0)?,
            KubeletRejection { at: r.get(1)?, node: r.get(2)?, reason: r.get(3)?, message: r.get(4)?, counted: None },
        ))
    })?;
    let from_events = rows
        .into_iter()
        .filter(|(u, _)| u.is_empty() || uid.is_empty() || u == uid)
        .map(|(_, r)| r)
        .find(|r| r.at >= scheduled.at - SLACK && r.at <= scheduled.at + ADMISSION_WINDOW);
    if let Some(mut r) = from_events {
        if r.node.is_empty() {
            r.node = scheduled.node.clone();
        }
        r.counted = AdmissionCount::parse(&r.message);
        return Ok(Some(r));
    }
    Ok(last_object.and_then(|pod| from_status(pod, scheduled)))
}

/// The kubelet's admission rejections of `namespace/name` from its events,
/// latest last, whatever the binding: for a pod the scheduler placed at
/// once (no FailedScheduling event) that the kubelet then refused
/// (new-user trial 42: 11 such pods of a real dump could not be looked up).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn pod_rejections(store: &Reader, namespace: &str, name: &str) -> Result<Vec<KubeletRejection>, AnalyzeError> {
    let rows = store.query_map(&sql::POD_REJECTIONS, [namespace, name], |r| {
        let message: String = r.get(4)?;
        Ok(KubeletRejection {
            at: r.get(1)?,
            node: r.get(2)?,
            reason: r.get(3)?,
            counted: AdmissionCount::parse(&message),
            message,
        })
    })?;
    Ok(rows)
}

/// A pod the kubelet refused at admission that had no FailedScheduling
/// event (the scheduler placed it at once): [`refused_pods`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedPod {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its first refusal.
    pub rejected_at: DateTime<Utc>,
    /// The kubelet's host (`""` when unknown).
    pub node: String,
    /// `OutOfcpu`, `OutOfmemory`, … (the reasons of `pod_rejections.sql`).
    pub reason: String,
}

/// Every pod the kubelet refused at admission without a FailedScheduling
/// event, oldest first: `why-pending --all` lists pods with one, and says
/// these apart (new-user trial 43: 11 OutOfcpu pods of a real dump were in
/// no list; `kdrift why-pending NS/NAME` explains each).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn refused_pods(store: &Reader) -> Result<Vec<RefusedPod>, AnalyzeError> {
    let rows = store.query_map(&sql::REFUSED_PODS, [], |r| {
        Ok(RefusedPod {
            namespace: r.get(0)?,
            name: r.get(1)?,
            rejected_at: r.get(2)?,
            node: r.get(3)?,
            reason: r.get(4)?,
        })
    })?;
    Ok(rows)
}

/// A controller whose pods the kubelet refused at admission again and
/// again on one node: a create/refuse loop ([`refusal_loops`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusalLoop {
    /// `ReplicaSet`, `Job`, … (the kind of the events' involved object).
    pub owner_kind: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub owner_name: String,
    /// The kubelet's host (`""` when unknown).
    pub node: String,
    /// `OutOfcpu`, … (each pod's first refusal).
    pub reason: String,
    /// Pods refused (at least 2).
    pub pods: u64,
    /// The first refusal (UTC).
    pub first_at: DateTime<Utc>,
    /// The last refusal (UTC).
    pub last_at: DateTime<Utc>,
    /// The kubelet's count in the last refusal's message (`OutOf…` only).
    pub counted: Option<AdmissionCount>,
}

/// Every controller with at least 2 pods the kubelet refused on one node
/// for one reason, with or without FailedScheduling, most pods first
/// (query `refusal_loops`): what `why-pending --all` says before its
/// per-pod rows (new-user trial 46: 100 pods of 5 ReplicaSets refused
/// OutOfcpu within 40 s read as 101 unrelated rows).
///
/// # Errors
/// [`AnalyzeError::Store`] when the query fails.
pub fn refusal_loops(store: &Reader) -> Result<Vec<RefusalLoop>, AnalyzeError> {
    Ok(store.query_map(&sql::REFUSAL_LOOPS, [], |r| {
        Ok(RefusalLoop {
            owner_kind: r.get(0)?,
            namespace: r.get(1)?,
            owner_name: r.get(2)?,
            node: r.get(3)?,
            reason: r.get(4)?,
            pods: r.get::<_, i64>(5)?.max(0) as u64,
            first_at: r.get(6)?,
            last_at: r.get(7)?,
            counted: AdmissionCount::parse(&r.get::<_, String>(8)?),
        })
    })?)
}

/// A stored version `Failed` with an admission reason.
fn from_status(pod: &Value, scheduled: &ScheduledAt) -> Option<KubeletRejection> {
    let status = pod.get("status")?;
    let reason = status.get("reason").and_then(Value::as_str)?;
    (status.get("phase").and_then(Value::as_str) == Some("Failed") && is_admission_rejection(reason)).then(|| {
        KubeletRejection {
            at: scheduled.at,
            node: scheduled.node.clone(),
            reason: reason.to_string(),
            message: status.get("message").and_then(Value::as_str).unwrap_or_default().to_string(),
            counted: status.get("message").and_then(Value::as_str).and_then(AdmissionCount::parse),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_kubelets_count_is_read_from_its_message() {
        let c =
            AdmissionCount::parse("Node didn't have enough resource: cpu, requested: 500, used: 1775, capacity: 2000")
                .expect("count");
        assert_eq!(
            (c.resource.as_str(), c.requested, c.used, c.capacity, c.free(), c.short()),
            ("cpu", 500, 1775, 2000, 225, 275)
        );
        assert_eq!(AdmissionCount::parse("Node didn't have enough resource: cpu"), None);
        assert_eq!(AdmissionCount::parse("Predicate NodeAffinity failed"), None);
    }

    #[test]
    fn admission_reasons_and_a_failed_status() {
        assert!(is_admission_rejection("OutOfcpu"));
        assert!(is_admission_rejection("OutOfnvidia.com/gpu"));
        assert!(is_admission_rejection("UnexpectedAdmissionError"));
        assert!(!is_admission_rejection("Evicted"));
        let at = DateTime::parse_from_rfc3339("2019-03-08T08:48:48Z").expect("t").with_timezone(&Utc);
        let scheduled = ScheduledAt { at, node: "minikube".into() };
        let failed = json!({"status": {"phase": "Failed", "reason": "OutOfmemory",
            "message": "Pod Node didn't have enough resource: memory, requested: 1073741824, used: 0, capacity: 0"}});
        let r = from_status(&failed, &scheduled).expect("rejected");
        assert_eq!((r.node.as_str(), r.reason.as_str(), r.at), ("minikube", "OutOfmemory", at));
        assert!(r.message.starts_with("Pod Node didn't have enough resource: memory"));
        let c = r.counted.as_ref().expect("counted");
        assert_eq!((c.resource.as_str(), c.requested, c.used, c.capacity), ("memory", 1073741824, 0, 0));
        let evicted = json!({"status": {"phase": "Failed", "reason": "Evicted"}});
        assert_eq!(from_status(&evicted, &scheduled), None);
        let running = json!({"status": {"phase": "Running", "reason": "OutOfcpu"}});
        assert_eq!(from_status(&running, &scheduled), None);
    }
}
