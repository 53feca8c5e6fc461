//! The state at an instant of pods that have a stored object and later
//! events that end them (kdrift new-user trial 46, finding 1): a dump of
//! `n1` taken at 02:00, then the descheduler's evictions at 06:00 (and
//! replacements scheduled on `n5`), a plain `Killing` at pod deletion, a
//! `Killing` then `Started` (a restart), a failed descheduler eviction (and
//! the same Killing cases for replacements known only from events). The
//! pods ended stop counting on `n1` from the evidence's time on (pods_at,
//! pod_spans, the per-node amounts skew reads), in either ingest order,
//! and what the batches kept equals a rebuild from the whole history
//! (queries/derive/pod_intervals.sql).

use chrono::{DateTime, Utc};
use kdrift_analyze::{amounts_at, ClusterAt};
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_rebalance::CPU;
use kdrift_store::Store;
use kdrift_tests::temp_store;
use serde_json::{json, Value};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
}

/// The pods stored on `n1` in the dump, each requesting 500m cpu.
const ON_N1: [&str; 6] = ["web-a1", "web-a2", "web-a3", "killed-k1", "restarts-r1", "stays-s1"];

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}"), "creationTimestamp": "2026-01-01T00:00:00Z",
                     "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {"allocatable": {"cpu": "4000m", "memory": "8Gi", "pods": "110"},
                   // The dump's instant is the newest time in its file: this heartbeat.
                   "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
                                   "lastHeartbeatTime": "2026-02-01T02:00:00Z"}]}})
}

fn pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": "apps", "name": name, "uid": format!("uid-{name}"),
                     "resourceVersion": "100", "creationTimestamp": "2026-02-01T01:00:00Z",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                          "uid": "uid-rs-web", "controller": true}]},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x",
                 "resources": {"requests": {"cpu": "500m", "memory": "64Mi"}}}]},
        "status": {"phase": "Running", "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-02-01T01:00:01Z"}]}})
}

/// A core/v1 Event about pod `name` (its uid, as the kubelet and scheduler write it).
fn core(name: &str, reason: &str, message: &str, when: &str, component: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.{reason}.{}", when.replace(':', "")), "namespace": "apps",
                     "uid": format!("ev-{name}-{reason}-{when}"), "creationTimestamp": when},
        "involvedObject": {"kind": "Pod", "namespace": "apps", "name": name, "uid": format!("uid-{name}")},
        "reason": reason, "message": message, "type": "Normal",
        "firstTimestamp": when, "lastTimestamp": when, "count": 1, "source": {"component": component}})
}

/// The descheduler's events.k8s.io/v1 Event (v0.36 `pkg/descheduler/evictions/evictions.go`, `EvictPod`).
fn descheduled(name: &str, reason: &str, kind: &str, note: &str, when: &str) -> Value {
    json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": format!("{name}.d"), "namespace": "apps", "uid": format!("ev-d-{name}"),
                     "creationTimestamp": when},
        "eventTime": when.replace('Z', ".000000Z"),
        "reportingController": "sigs.k8s.io.descheduler", "reportingInstance": "sigs.k8s.io.descheduler-7c9",
        "action": "Descheduled", "reason": reason, "type": kind,
        "regarding": {"kind": "Pod", "namespace": "apps", "name": name, "uid": format!("uid-{name}")},
        "note": note})
}

fn events() -> Vec<Value> {
    let mut events = Vec::new();
    for (i, name) in ["web-a1", "web-a2", "web-a3"].iter().enumerate() {
        let when = format!("2026-02-01T06:00:0{i}Z");
        events.push(descheduled(
            name,
            "LowNodeUtilization",
            "Normal",
            "pod eviction from n1 node by sigs.k8s.io/descheduler",
            &when,
        ));
        // The replacement, known only from events, on n5.
        let new = format!("web-b{}", i + 1);
        let bound = format!("2026-02-01T06:00:1{i}Z");
        events.push(core(
            &new,
            "Scheduled",
            &format!("Successfully assigned apps/{new} to n5"),
            &bound,
            "default-scheduler",
        ));
        let mut created =
            core("web", "SuccessfulCreate", &format!("Created pod: {new}"), &bound, "replicaset-controller");
        created["involvedObject"] =
            json!({"kind": "ReplicaSet", "namespace": "apps", "name": "web", "uid": "uid-rs-web"});
        events.push(created);
    }
    events.push(descheduled(
        "stays-s1",
        "EvictionFailed",
        "Warning",
        "pod eviction from n1 node by sigs.k8s.io/descheduler failed: Cannot evict pod as it would violate the pod's disruption budget.",
        "2026-02-01T06:00:05Z",
    ));
    // kubelet, pod deletion: "Stopping container c" with the pod's uid, no sign of life after it.
    events.push(core("killed-k1", "Killing", "Stopping container c", "2026-02-01T06:30:00Z", "kubelet"));
    // kubelet, the same wording when the pod's sandbox is re-created: the containers start again.
    events.push(core("restarts-r1", "Killing", "Stopping container c", "2026-02-01T06:30:00Z", "kubelet"));
    events.push(core("restarts-r1", "Started", "Started container c", "2026-02-01T06:30:04Z", "kubelet"));
    // The same two cases for replacements known only from events (query `pods_gone`).
    events.push(core("web-b1", "Killing", "Stopping container c", "2026-02-01T06:30:00Z", "kubelet"));
    events.push(core("web-b1", "Started", "Started container c", "2026-02-01T06:30:04Z", "kubelet"));
    events.push(core("web-b2", "Killing", "Stopping container c", "2026-02-01T06:30:00Z", "kubelet"));
    // A probe restart's own wording is never an end.
    events.push(core(
        "stays-s1",
        "Killing",
        "Container c failed liveness probe, will be restarted",
        "2026-02-01T06:40:00Z",
        "kubelet",
    ));
    events
}

/// Ingests the dump (pods at 02:00, nodes) and the events, as files, in the order given.
fn store_with(order: &[&str]) -> (tempfile::TempDir, Store, tempfile::TempDir) {
    let list = |items: Vec<Value>| json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let dir = tempfile::tempdir().expect("dir");
    let (guard, store) = temp_store();
    for name in order {
        let body = match *name {
            "dump" => {
                let mut items: Vec<Value> = ON_N1.iter().map(|n| pod(n)).collect();
                items.extend([node("n1"), node("n5")]);
                list(items)
            }
            _ => list(events()),
        };
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, body).expect("write");
        let report = ingest_files(&store, &[path], &mut NoProgress).expect("ingest");
        assert_eq!(report.error_count(), 0, "{:?}", report.files.iter().flat_map(|f| &f.errors).next());
    }
    (guard, store, dir)
}

/// (pods, cpu millicores) on `node` at `at`: from the state loaded pod by
/// pod, and from the per-node aggregates `skew` reads (both must agree).
fn on_node(store: &Store, node: &str, at: &str) -> (usize, i64) {
    let state = ClusterAt::load(store, t(at)).expect("state");
    let pods: Vec<_> = state.pods.iter().filter(|p| p.node_name.as_deref() == Some(node)).collect();
    let cpu: i64 = pods.iter().map(|p| p.compute_requests(None).get(CPU)).sum();
    let amounts = amounts_at(store, &[t(at)]).expect("amounts");
    let usage = amounts[0].usage_of(node);
    assert_eq!((usage.requested.get("pods"), usage.requested.get(CPU)), (pods.len() as i64, cpu), "{node} at {at}");
    (pods.len(), cpu)
}

fn names_on(store: &Store, node: &str, at: &str) -> Vec<String> {
    let state = ClusterAt::load(store, t(at)).expect("state");
    let mut names: Vec<String> =
        state.pods.iter().filter(|p| p.node_name.as_deref() == Some(node)).map(|p| p.name.clone()).collect();
    names.sort();
    names
}

/// `pod_spans` GONE_AT of `apps/name` (`None`: NULL, the pod lasts).
fn gone_at(store: &Store, name: &str) -> Option<String> {
    let params = [("namespace".to_string(), "apps".to_string()), ("name".to_string(), name.to_string())];
    let rows = kdrift_store::run_query(store, "pod_spans", &params).expect("pod_spans").rows;
    assert_eq!(rows.len(), 1, "{name}: {rows:?}");
    rows[0][3].as_str().map(str::to_string)
}

/// Test-only read of the raw tables schema v8 adds (not product queries): every row as text, sorted.
fn requested_tables(store: &Store) -> Vec<Vec<String>> {
    let rows = |sql: &str| -> Vec<String> {
        let mut stmt = store.conn().prepare(sql).expect("prepare");
        let mut out: Vec<String> =
            stmt.query_map([], |r| r.get(0)).expect("query").collect::<Result<_, _>>().expect("rows");
        out.sort();
        out
    };
    vec![
        rows("SELECT concat_ws(' ', changed_at, node, pods, cpu_millis, memory_bytes) FROM requested_changes"),
        rows("SELECT concat_ws(' ', checkpoint_at, node, pods, cpu_millis, memory_bytes) FROM requested_checkpoints"),
        rows("SELECT checkpoint_at::VARCHAR FROM requested_checkpoint_times"),
    ]
}

#[test]
fn evicted_and_killed_pods_stop_counting_on_their_node_from_the_evidence_on_but_a_restart_does_not() {
    for order in [["dump", "events"], ["events", "dump"]] {
        let (_guard, store, _dir) = store_with(&order);
        let case = order.join(" then ");
        // Before any evidence: the 6 pods of the dump, 3000m; nothing on n5.
        assert_eq!(on_node(&store, "n1", "2026-02-01T05:59:59Z"), (6, 3000), "{case}");
        assert_eq!(on_node(&store, "n5", "2026-02-01T05:59:59Z"), (0, 0), "{case}");
        // Each descheduled pod leaves at its event's time (06:00:00, :01, :02).
        assert_eq!(on_node(&store, "n1", "2026-02-01T06:00:00Z"), (5, 2500), "{case}");
        assert_eq!(on_node(&store, "n1", "2026-02-01T06:00:02Z"), (3, 1500), "{case}");
        // The replacements count on n5 (requests from their sibling), the evicted ones no longer on n1.
        assert_eq!(on_node(&store, "n5", "2026-02-01T06:00:30Z"), (3, 1500), "{case}");
        assert_eq!(names_on(&store, "n1", "2026-02-01T06:00:30Z"), ["killed-k1", "restarts-r1", "stays-s1"], "{case}");
        // The plain Killing ends killed-k1; the Killing then Started (restart) and the probe restart end nothing.
        assert_eq!(on_node(&store, "n1", "2026-02-01T07:00:00Z"), (2, 1000), "{case}");
        assert_eq!(names_on(&store, "n1", "2026-02-01T07:00:00Z"), ["restarts-r1", "stays-s1"], "{case}");
        assert_eq!(names_on(&store, "n5", "2026-02-01T07:00:00Z"), ["web-b1", "web-b3"], "{case}");
        assert_eq!(on_node(&store, "n5", "2026-02-01T07:00:00Z"), (2, 1000), "{case}");
        assert_eq!(gone_at(&store, "web-a1").as_deref(), Some("2026-02-01T06:00:00Z"), "{case}");
        assert_eq!(gone_at(&store, "web-a3").as_deref(), Some("2026-02-01T06:00:02Z"), "{case}");
        assert_eq!(gone_at(&store, "killed-k1").as_deref(), Some("2026-02-01T06:30:00Z"), "{case}");
        assert_eq!(gone_at(&store, "restarts-r1"), None, "{case}: a restart is not the pod's end");
        assert_eq!(gone_at(&store, "stays-s1"), None, "{case}: a failed eviction is not the pod's end");
        // What the batches kept equals a rebuild from the whole history.
        let kept = requested_tables(&store);
        store.rederive_everything().expect("rederive");
        assert_eq!(kept, requested_tables(&store), "requested changes and checkpoints ({case})");
        assert!(kdrift_tests::assert_amounts_agree(&store, 40) > 10);
    }
}

/// A version observed after the evidence shows the pod alive: the
/// evidence is not after its newest version, so it ends nothing; that
/// version's batch takes back the end the pod had (06:00:00) from the
/// requested amounts too.
#[test]
fn a_version_observed_after_the_evidence_keeps_the_pod() {
    let (_guard, store, dir) = store_with(&["dump", "events"]);
    assert_eq!(gone_at(&store, "web-a1").as_deref(), Some("2026-02-01T06:00:00Z"));
    let mut later = pod("web-a1");
    later["metadata"]["resourceVersion"] = json!("200");
    // The file's instant (its newest time).
    let ready = json!({"type": "Ready", "status": "True", "lastTransitionTime": "2026-02-01T08:00:00Z"});
    later["status"]["conditions"].as_array_mut().expect("conditions").push(ready);
    let path = dir.path().join("later.json");
    std::fs::write(&path, json!({"apiVersion": "v1", "kind": "List", "items": [later]}).to_string()).expect("write");
    let report = ingest_files(&store, &[path], &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0);
    assert_eq!(gone_at(&store, "web-a1"), None);
    // Its versions hold from the dump on, through the eviction event.
    for at in ["2026-02-01T07:00:00Z", "2026-02-01T09:00:00Z"] {
        assert!(names_on(&store, "n1", at).contains(&"web-a1".to_string()), "{at}");
    }
    assert_eq!(on_node(&store, "n1", "2026-02-01T07:00:00Z"), (3, 1500));
    let kept = requested_tables(&store);
    store.rederive_everything().expect("rederive");
    assert_eq!(kept, requested_tables(&store), "requested changes and checkpoints");
}
