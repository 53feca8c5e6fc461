//! Tests of the memory/taint variant: its numbers recomputed from the
//! emitted objects (the Node's allocatable, the pods' memory requests, the
//! taint), never from the generator's bookkeeping.

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use super::*;

const NOTE: &str = "0/5 nodes are available: 1 Insufficient memory, \
    1 node(s) had untolerated taint {dedicated: gpu}, 3 node(s) didn't match pod affinity rules. \
    preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, \
    4 Preemption is not helpful for scheduling.";

fn variant() -> &'static MemoryTaint {
    static V: std::sync::OnceLock<MemoryTaint> = std::sync::OnceLock::new();
    V.get_or_init(|| memory_taint(3))
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// Memory quantity in bytes: `3Gi`, `256Mi`, `8090624Ki`.
fn bytes(q: &str) -> i64 {
    for (suffix, unit) in [("Ki", 1 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30)] {
        if let Some(n) = q.strip_suffix(suffix) {
            return n.parse::<i64>().expect("integer quantity") * unit;
        }
    }
    q.parse().expect("bytes")
}

/// Latest version of every object of `kind` present at `at`, by name.
fn objects_at(sc: &Scenario, kind: &str, at: DateTime<Utc>) -> std::collections::BTreeMap<String, Value> {
    let mut out = std::collections::BTreeMap::new();
    for r in sc.records.iter().take_while(|r| r.observed_at <= at).filter(|r| r.object["kind"] == kind) {
        let name = s(&r.object, "/metadata/name").to_string();
        match r.change {
            ObjectChange::Deleted => out.remove(&name),
            _ => out.insert(name, r.object.clone()),
        };
    }
    out
}

/// Memory requested on `node` at `at` by bound, non-terminal pods, bytes.
fn memory_on(sc: &Scenario, node: &str, at: DateTime<Utc>) -> i64 {
    objects_at(sc, "Pod", at)
        .values()
        .filter(|p| s(p, "/spec/nodeName") == node)
        .filter(|p| !matches!(s(p, "/status/phase"), "Succeeded" | "Failed"))
        .flat_map(|p| p["spec"]["containers"].as_array().cloned().unwrap_or_default())
        .map(|c| c.pointer("/resources/requests/memory").and_then(Value::as_str).map_or(0, bytes))
        .sum()
}

#[test]
fn backup_pod_is_50331648_bytes_short_of_memory_on_node_1_behind_a_taint_on_node_2() {
    let v = variant();
    let (sc, f) = (&v.scenario, &v.facts);
    let common = &sc.facts;
    assert_eq!(common.failed_scheduling_note, NOTE);
    assert_eq!(common.plex.node.as_deref(), Some("node-1"));
    assert_eq!(f.pinned_node, "node-1");

    // The pending pod as created: 3Gi memory, no CPU request, the pod affinity.
    let pods = objects_at(sc, "Pod", common.failure_at + Duration::seconds(1));
    let pod = pods.get(&common.pending_pod.name).expect("the pending pod");
    let requests = &pod["spec"]["containers"][0]["resources"]["requests"];
    assert_eq!(requests, &serde_json::json!({ "memory": "3Gi" }));
    assert_eq!(
        s(
            pod,
            "/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/labelSelector/matchLabels/app"
        ),
        "plex"
    );
    assert_eq!(s(pod, "/status/conditions/0/message"), NOTE);

    // node-1 at the failure: 8284798976 allocatable, 5113905152 requested.
    let nodes = objects_at(sc, "Node", common.failure_at);
    let allocatable = bytes(s(&nodes["node-1"], "/status/allocatable/memory"));
    let used = memory_on(sc, "node-1", common.failure_at);
    assert_eq!((allocatable, used), (8_284_798_976, 5_113_905_152));
    assert_eq!(used + bytes("3Gi") - allocatable, 50_331_648, "48Mi short");
    assert_eq!(f.memory_shortfall_bytes, 50_331_648);
    assert_eq!(f.requested_memory_bytes_at_failure, used);
    for other in ["node-3", "node-4", "node-5"] {
        let room = bytes(s(&nodes[other], "/status/allocatable/memory")) - memory_on(sc, other, common.failure_at);
        assert!(room >= bytes("3Gi"), "{other} has room: only the pod affinity excludes it");
    }

    // node-2's taint, as `kubectl taint` writes it, from 03:40 to the end.
    let taint = serde_json::json!([{ "key": "dedicated", "value": "gpu", "effect": "NoSchedule" }]);
    assert_eq!(nodes["node-2"]["spec"]["taints"], taint);
    assert_eq!(objects_at(sc, "Node", f.tainted_at - Duration::seconds(1))["node-2"]["spec"].get("taints"), None);
    assert_eq!(objects_at(sc, "Node", common.end)["node-2"]["spec"]["taints"], taint);
    assert_eq!((f.tainted_node.as_str(), f.taint_key.as_str(), f.taint_value.as_str()), ("node-2", "dedicated", "gpu"));

    // Pending until the Job's deadline, then deleted by the Job controller.
    let deadline = common.job_created_at + Duration::seconds(common.active_deadline_seconds);
    assert_eq!(deadline, "2026-11-28T05:30:00.037Z".parse::<DateTime<Utc>>().expect("time"));
    let deleted = common.pending_pod_deleted_at;
    assert!(deleted > deadline && deleted < deadline + Duration::seconds(1), "{deleted}");
}

#[test]
fn the_scale_down_hours_later_makes_node_1_look_roomy() {
    let v = variant();
    let (sc, f) = (&v.scenario, &v.facts);
    let end = sc.facts.end;
    assert!(f.scale_down_at - sc.facts.pending_pod_deleted_at >= Duration::hours(1));
    assert_eq!(f.scaled_down_replicas, (14, 4));
    assert_eq!(f.deleted_pods.len(), 10);
    assert_eq!(f.deleted_from_pinned_node.len(), 4, "{:?}", f.deleted_from_pinned_node);
    let at_end = memory_on(sc, "node-1", end);
    assert_eq!(at_end, 4_577_034_240);
    assert_eq!(f.requested_memory_bytes_at_end, at_end);
    assert!(8_284_798_976 - at_end >= bytes("3Gi"), "a dump at the end alone shows room for the 3Gi");
    // Each deletion is told by the ReplicaSet controller, after the Deployment's scale-down.
    let events: Vec<&Value> = sc.records.iter().map(|r| &r.object).filter(|o| o["kind"] == "Event").collect();
    let scaled =
        events.iter().find(|e| e["reason"] == "ScalingReplicaSet" && s(e, "/message").ends_with("to 4 from 14"));
    assert!(scaled.is_some_and(|e| s(e, "/message").starts_with("Scaled down replica set queue-worker-")));
    for pod in &f.deleted_from_pinned_node {
        let msg = format!("Deleted pod: {pod}");
        assert!(events.iter().any(|e| e["reason"] == "SuccessfulDelete" && s(e, "/message") == msg), "{msg}");
        assert!(!objects_at(sc, "Pod", end).contains_key(pod));
    }
    // Four queue-worker pods remain in a dump at the end: samples of their requests.
    let left = objects_at(sc, "Pod", end).keys().filter(|n| n.starts_with("queue-worker-")).count();
    assert_eq!(left, 4);
}

#[test]
fn the_cronjob_edit_gives_the_jobs_template_its_3gi() {
    let v = variant();
    let (sc, f) = (&v.scenario, &v.facts);
    let before = objects_at(sc, "CronJob", f.cronjob_edited_at - Duration::seconds(1));
    let after = objects_at(sc, "CronJob", f.cronjob_edited_at);
    let resources =
        |cj: &Value| cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["resources"].clone();
    assert_eq!(resources(&before["backup"])["requests"], serde_json::json!({ "cpu": "100m", "memory": "256Mi" }));
    assert_eq!(resources(&after["backup"])["requests"], serde_json::json!({ "memory": "3Gi" }));
    assert_eq!(after["backup"]["metadata"]["generation"], 2);
    let jobs = objects_at(sc, "Job", sc.facts.end);
    let job = &jobs[&sc.facts.job_name];
    assert_eq!(
        job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"],
        serde_json::json!({ "memory": "3Gi" })
    );
}

#[test]
fn same_seed_same_variant_and_the_demo_is_not_changed_by_it() {
    assert_eq!(memory_taint(3), *variant());
    let demo = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let v = variant();
    // The shared part (up to the CronJob edit) is the demo's, record for record.
    let shared = |sc: &Scenario| -> Vec<ScenarioRecord> {
        sc.records.iter().take_while(|r| r.observed_at < v.facts.cronjob_edited_at).cloned().collect()
    };
    assert_eq!(shared(&demo), shared(&v.scenario));
    assert!(demo.facts.failed_scheduling_note.contains("1 Insufficient cpu"));
}
