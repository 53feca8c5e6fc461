//! Who moved a pod, beyond drains: the events the components that evict or
//! scale write (query `move_causes`) — the descheduler, kdrift's own
//! rebalance, Karpenter's disruption, cluster-autoscaler's scale-down, the
//! node controller — and an HPA's rescale before its Deployment's scale-up.
//!
//! A pod arrived through one of those evictions when its owner created it at
//! most [`crate::drains::causes::REPLACE_WINDOW`] (2 minutes) after the
//! eviction of a pod of the same owner (a StatefulSet pod: of the same
//! name). The pods that arrived in
//! one cause's evictions (same component and plugin / run / reason, each
//! eviction at most 10 minutes after the previous one) make one run: "9 of
//! its pods arrived in descheduler's LowNodeUtilization run at …".

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::full::{amount, Arrival, Holder};
use crate::drains::causes::{run_words, Cause, MoveCause, RUN_GAP};

/// An HPA's rescale this long before its Deployment's scale-up caused it.
pub const HPA_WINDOW: Duration = Duration::minutes(1);

/// The arrival of a pod that replaced an evicted one.
pub(super) fn evicted_arrival(c: &MoveCause) -> Arrival {
    Arrival::Evicted {
        cause: c.cause,
        by: c.by.clone(),
        replaced: format!("{}/{}", c.namespace, c.name),
        from_node: c.node.clone(),
        evicted_at: c.at,
    }
}

/// The HPA whose rescale to the size a `ScalingReplicaSet` message names
/// ("Scaled up replica set X to N", or "… from M to N") came at most
/// [`HPA_WINDOW`] before it: same namespace, and the HPA named as the
/// Deployment or rescaled to that very size.
pub(super) fn hpa_before<'a>(
    causes: &'a [MoveCause],
    namespace: &str,
    deployment: &str,
    message: &str,
    at: DateTime<Utc>,
) -> Option<&'a MoveCause> {
    let size = message.rsplit_once(" to ").and_then(|(_, n)| n.split_whitespace().next()).map(str::to_string);
    causes
        .iter()
        .filter(|c| c.cause == Cause::Hpa && c.namespace == namespace)
        .filter(|c| c.at <= at + Duration::seconds(1) && at - c.at <= HPA_WINDOW)
        .filter(|c| c.name == deployment || (size.is_some() && c.by == size))
        .max_by_key(|c| c.at)
}

/// Pods that arrived on a node in one run of one cause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveRun {
    /// The component (`rollout` for a Deployment's new ReplicaSet).
    pub cause: String,
    /// Plugin, run, reason or HPA, when known.
    pub by: Option<String>,
    /// The run's first eviction or scale-up (UTC).
    pub started_at: DateTime<Utc>,
    /// Pods of the node's holders that arrived in it.
    pub pods: usize,
    /// The nodes they replaced pods evicted from.
    pub from_nodes: Vec<String>,
    /// What they hold of the short resource (millicores, bytes, units).
    pub holding: i64,
    /// The finding in words ("9 of its pods arrived in descheduler's LowNodeUtilization run at …").
    pub summary: String,
}

/// The run a holder's arrival belongs to.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct RunKey {
    cause: String,
    by: Option<String>,
    words: String,
    at: DateTime<Utc>,
    from: Option<String>,
}

fn run_key(a: &Arrival) -> Option<RunKey> {
    let key = |cause: &str, by: Option<String>, words: String, at: DateTime<Utc>, from: Option<String>| RunKey {
        cause: cause.to_string(),
        by,
        words,
        at,
        from,
    };
    match a {
        Arrival::Evicted { cause, by, from_node, evicted_at, .. } if *cause != Cause::Hpa => {
            let name = serde_json::to_value(cause).ok()?.as_str()?.to_string();
            Some(key(&name, by.clone(), run_words(*cause, by.as_deref()), *evicted_at, from_node.clone()))
        }
        Arrival::ScaleUp { deployment, at, hpa: Some(h), .. } => {
            Some(key("hpa", Some(h.clone()), format!("HPA {h}'s scale-up of {deployment}"), *at, None))
        }
        Arrival::ScaleUp { deployment, at, rollout: true, .. } => {
            Some(key("rollout", Some(deployment.clone()), format!("the rollout of {deployment}"), *at, None))
        }
        _ => None,
    }
}

/// The runs that brought `holders` to their node, most held first.
pub(super) fn runs(resource: &str, requested: i64, holders: &[Holder]) -> Vec<MoveRun> {
    let mut keyed: Vec<(RunKey, i64)> =
        holders.iter().filter_map(|h| run_key(&h.arrival).map(|k| (k, h.request))).collect();
    keyed.sort();
    // Each run with its words and its latest arrival.
    let mut out: Vec<(MoveRun, String, DateTime<Utc>)> = Vec::new();
    for (k, request) in keyed {
        let joins = out
            .last()
            .is_some_and(|(r, w, last)| r.cause == k.cause && r.by == k.by && *w == k.words && k.at <= *last + RUN_GAP);
        if !joins {
            let run = MoveRun {
                cause: k.cause.clone(),
                by: k.by.clone(),
                started_at: k.at,
                pods: 0,
                from_nodes: Vec::new(),
                holding: 0,
                summary: String::new(),
            };
            out.push((run, k.words.clone(), k.at));
        }
        if let Some((run, _, last)) = out.last_mut() {
            run.pods += 1;
            run.holding = run.holding.saturating_add(request);
            *last = k.at;
            if let Some(f) = k.from.filter(|f| !run.from_nodes.contains(f)) {
                run.from_nodes.push(f);
            }
        }
    }
    let mut runs: Vec<MoveRun> = out
        .into_iter()
        .map(|(mut r, words, _)| {
            r.from_nodes.sort();
            let from = if r.from_nodes.is_empty() {
                String::new()
            } else {
                format!(" (evicted from {})", r.from_nodes.join(", "))
            };
            r.summary = format!(
                "{} arrived in {words} at {}{from}; holding {} of its {} {resource} requested",
                if r.pods == 1 { "1 of its pods".to_string() } else { format!("{} of its pods", r.pods) },
                kdrift_store::instant_text(r.started_at),
                amount(resource, r.holding),
                amount(resource, requested),
            );
            r
        })
        .collect();
    runs.sort_by(|a, b| b.holding.cmp(&a.holding).then(b.pods.cmp(&a.pods)).then(a.started_at.cmp(&b.started_at)));
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(hms: &str) -> DateTime<Utc> {
        format!("2026-02-01T{hms}Z").parse().expect("time")
    }

    fn rescale(name: &str, size: &str, at: &str) -> MoveCause {
        MoveCause {
            cause: Cause::Hpa,
            by: Some(size.into()),
            namespace: "web".into(),
            name: name.into(),
            node: None,
            at: t(at),
            owner: None,
            message: format!("New size: {size}; reason: cpu resource utilization (percentage of request) above target"),
        }
    }

    #[test]
    fn an_hpa_named_otherwise_is_matched_by_the_size_it_rescaled_to_and_only_within_a_minute() {
        // The HPA controller's SuccessfulRescale "New size: N; reason: …"
        // (pkg/controller/podautoscaler/horizontal.go, `reconcileAutoscaler`),
        // then the Deployment controller's "Scaled up replica set RS from M to N"
        // (1.29+ wording; "to N" before).
        let causes = [rescale("api-hpa", "6", "01:00:00"), rescale("other", "3", "01:00:10")];
        let found = |message: &str, at: &str| hpa_before(&causes, "web", "api", message, t(at)).map(|c| c.name.clone());
        assert_eq!(found("Scaled up replica set api-7d from 4 to 6", "01:00:02"), Some("api-hpa".into()));
        assert_eq!(found("Scaled up replica set api-7d to 6", "01:00:59"), Some("api-hpa".into()));
        assert_eq!(found("Scaled up replica set api-7d to 6", "01:01:01"), None, "61 s later");
        assert_eq!(found("Scaled up replica set api-7d to 5", "01:00:20"), None, "another size, another name");
    }
}
