//! The demo's history as a new user brings it after the fact: a
//! `kubectl get pods,nodes,jobs,cronjobs -A -o json` dump taken at the
//! scenario's end (05:30:01 on day 2) plus `kubectl get events -A -o json`
//! at that instant, which holds only the last hour's events (the API
//! server's default event TTL). The Job's pending pod is gone from the pod
//! dump; its FailedScheduling event and the Job's `Deleted pod:` event remain.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use kdrift_scenario::{ObjectChange, Scenario};
use serde_json::Value;

/// The latest version up to `until` of every object of `kind` still there
/// (what `kubectl get KIND -A -o json` lists then), as a `kind: List`.
pub fn list_of(scenario: &Scenario, until: DateTime<Utc>, kind: &str) -> Value {
    let mut latest: std::collections::BTreeMap<(String, String), Option<Value>> = Default::default();
    for r in scenario.records.iter().filter(|r| r.observed_at <= until) {
        if r.object.get("kind").and_then(Value::as_str) != Some(kind) {
            continue;
        }
        let text = |p: &str| r.object.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
        let key = (text("/metadata/namespace"), text("/metadata/name"));
        latest.insert(key, (r.change != ObjectChange::Deleted).then(|| r.object.clone()));
    }
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": latest.into_values().flatten().collect::<Vec<_>>()})
}

/// The last time a core/v1 event was seen: the latest of `lastTimestamp`,
/// `series.lastObservedTime`, `eventTime` and `firstTimestamp`.
fn event_last_seen(e: &Value) -> Option<DateTime<Utc>> {
    ["/lastTimestamp", "/series/lastObservedTime", "/eventTime", "/firstTimestamp"]
        .iter()
        .filter_map(|p| e.pointer(p).and_then(Value::as_str))
        .filter_map(|s| s.parse::<DateTime<Utc>>().ok())
        .max()
}

/// Writes the after-the-fact files of `scenario` at its end into `dir`:
/// events.json (the last hour's events only), pods.json, nodes.json,
/// jobs.json and cronjobs.json. Returns their paths.
pub fn write_files(scenario: &Scenario, dir: &Path) -> Vec<PathBuf> {
    let at = scenario.facts.end;
    let mut paths = Vec::new();
    let mut write = |name: &str, list: &Value| {
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_vec(list).expect("json")).expect("write");
        paths.push(p);
    };
    for (name, mut list) in scenario.to_kubectl_lists_at(at) {
        if name == "events.json" {
            let items = list["items"].as_array_mut().expect("items");
            items.retain(|e| event_last_seen(e).is_some_and(|t| t >= at - Duration::hours(1)));
        }
        write(&name, &list);
    }
    for (file, kind) in [("jobs.json", "Job"), ("cronjobs.json", "CronJob")] {
        write(file, &list_of(scenario, at, kind));
    }
    paths
}

/// What a user pastes at `at` (after the Job's creation, before its pod's
/// deletion): `kubectl get pod,node -o yaml` of the Job's pending pod and
/// the node its affinity leaves (node-1), as one `kind: List`. The node's
/// Ready condition carries the kubelet's heartbeat at `at` (a real kubelet
/// refreshes it every few minutes; the scenario's nodes do not), the one
/// timestamp of the listing's instant. In `namespace` (the pod's own when
/// `None`).
pub fn pasted_pod_yaml(scenario: &Scenario, at: DateTime<Utc>, namespace: Option<&str>) -> String {
    let name = Value::from(scenario.facts.pending_pod.name.as_str());
    let lists = scenario.to_kubectl_lists_at(at);
    let find = |file: &str, name: &Value| {
        let list = &lists.iter().find(|(n, _)| n == file).expect("list").1;
        list["items"].as_array().expect("items").iter().find(|o| o.pointer("/metadata/name") == Some(name)).cloned()
    };
    let mut pod = find("pods.json", &name).expect("the pending pod at that time");
    if let Some(ns) = namespace {
        pod["metadata"]["namespace"] = ns.into();
        pod["metadata"]["uid"] = format!("{}-{ns}", pod["metadata"]["uid"].as_str().unwrap_or("")).into();
    }
    let mut node = find("nodes.json", &Value::from("node-1")).expect("node-1");
    for c in node.pointer_mut("/status/conditions").and_then(Value::as_array_mut).into_iter().flatten() {
        if c["type"] == "Ready" {
            c["lastHeartbeatTime"] = at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true).into();
        }
    }
    serde_yaml::to_string(&serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [pod, node]})).expect("yaml")
}
