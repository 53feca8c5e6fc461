//! why-pending's chain for constraints beyond resources: the shared
//! scheduler model re-evaluated on the stored state names the constraint,
//! its numbers and the nodes it excludes (here PodTopologySpread).

use std::io::Write;
use std::path::{Path, PathBuf};

use kdrift_analyze::why_pending;
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_tests::temp_store;
use serde_json::{json, Value};

fn write(dir: &Path, name: &str, body: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).and_then(|mut f| f.write_all(body)).expect("write");
    p
}

fn node(name: &str, zone: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("u-{name}"), "creationTimestamp": "2026-01-01T00:00:00Z",
                     "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
        "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "110"}}})
}

/// A pod of `d` requesting `cpu`, labelled `app`, with web's zone spread
/// (DoNotSchedule, maxSkew 1); Running on `node`, or Pending.
fn pod(name: &str, app: &str, cpu: &str, node: Option<&str>) -> Value {
    let mut spec = json!({"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]});
    if app == "web" {
        spec["topologySpreadConstraints"] = json!([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]);
    }
    let (phase, scheduled, seen) = match node {
        Some(n) => {
            spec["nodeName"] = json!(n);
            ("Running", "True", "2026-01-01T01:00:00Z")
        }
        None => ("Pending", "False", "2026-01-01T05:40:00Z"),
    };
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "d", "uid": format!("u-{name}"), "labels": {"app": app},
                     "creationTimestamp": if node.is_some() { "2026-01-01T01:00:00Z" } else { "2026-01-01T05:00:00Z" }},
        "spec": spec,
        "status": {"phase": phase, "conditions": [{"type": "PodScheduled", "status": scheduled, "lastTransitionTime": seen}]}})
}

#[test]
fn a_pod_pending_on_a_topology_spread_gets_the_domain_and_the_skew_in_its_chain() {
    // zone-a (n1, n2) holds 2 web pods, zone-b (n3) 1 and is full: web-4
    // may go only to zone-b (skew there 1 + 1 − 1 = 1), which lacks cpu.
    let (dir, store) = temp_store();
    let msg = "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match pod topology spread constraints.";
    let event = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web-4.1", "namespace": "d"},
        "involvedObject": {"kind": "Pod", "namespace": "d", "name": "web-4", "uid": "u-web-4"},
        "reason": "FailedScheduling", "message": msg, "count": 3, "type": "Warning",
        "firstTimestamp": "2026-01-01T05:00:00Z", "lastTimestamp": "2026-01-01T05:30:00Z"});
    let nodes = json!({"kind": "List", "items": [node("n1", "zone-a"), node("n2", "zone-a"), node("n3", "zone-b")]});
    let pods = json!({"kind": "List", "items": [
        pod("web-1", "web", "400m", Some("n1")),
        pod("web-2", "web", "400m", Some("n2")),
        pod("web-3", "web", "400m", Some("n3")),
        pod("batch-1", "batch", "500m", Some("n3")),
        pod("web-4", "web", "400m", None),
    ]});
    let files = [
        write(dir.path(), "nodes.json", nodes.to_string().as_bytes()),
        write(dir.path(), "pods.json", pods.to_string().as_bytes()),
        write(dir.path(), "events.ndjson", event.to_string().as_bytes()),
    ];
    let report = ingest_files(&store, &files, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);
    let r = why_pending(&store, "d", "web-4").expect("query").expect("report");
    let state = r.state.as_ref().expect("state");
    assert!(state.pod_known);
    assert_eq!(state.reconstructed_message.as_deref(), Some(msg));
    assert_eq!(state.matches_event, Some(true));
    let spread: Vec<(&str, &str, Vec<&str>)> = state
        .constraints
        .iter()
        .map(|c| (c.plugin.as_str(), c.reason.as_str(), c.nodes.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        spread,
        [(
            "PodTopologySpread",
            "topology spread: zone zone-a has 2 matching pods (+1 for this pod), min 1, maxSkew 1 → skew 2 > 1",
            vec!["n1", "n2"]
        )]
    );
    assert_eq!(state.left, ["n3"], "only zone-b passes the spread");
    let short: Vec<(&str, &str, i64)> =
        state.shortfalls.iter().map(|s| (s.node.as_str(), s.resource.as_str(), s.short)).collect();
    assert_eq!(short, [("n3", "cpu", 300)], "n3 has 100m free for 400m");
    let n1 = state.nodes.iter().find(|n| n.name == "n1").expect("n1");
    assert_eq!(n1.recorded_as.as_deref(), Some("node(s) didn't match pod topology spread constraints"));
}

/// One FailedScheduling event of pod `d/db-0`.
fn failed(name: &str, message: &str, count: u32, first: &str, last: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "d"},
        "involvedObject": {"kind": "Pod", "namespace": "d", "name": "db-0", "uid": "u-db-0"},
        "reason": "FailedScheduling", "message": message, "count": count, "type": "Warning",
        "firstTimestamp": first, "lastTimestamp": last})
}

/// New-user trial 43: two events last seen in the same second (erwee402's
/// redis-5fd75d8cc6-2nvkh: `Insufficient cpu` ×15 and the scheduler's
/// deleting-pod skip ×1). `why-pending --all` picked the first by count, the
/// chain the second, and the list showed the skip's text as a pod's reason.
#[test]
fn the_list_and_the_chain_pick_one_latest_message_and_the_list_shows_the_attempts_reasons() {
    let (dir, store) = temp_store();
    let cpu = "0/1 nodes are available: 1 Insufficient cpu.";
    let skip = "skip schedule deleting pod: d/db-0";
    let events = json!({"kind": "List", "items": [
        failed("db-0.a", cpu, 15, "2026-01-01T05:00:00Z", "2026-01-01T05:30:00Z"),
        failed("db-0.b", skip, 1, "2026-01-01T05:30:00Z", "2026-01-01T05:30:00Z"),
    ]});
    let file = write(dir.path(), "events.json", events.to_string().as_bytes());
    assert_eq!(ingest_files(&store, &[file], &mut NoProgress).expect("ingest").error_count(), 0);
    let report = why_pending(&store, "d", "db-0").expect("query").expect("report");
    let pods = kdrift_analyze::pending_pods(&store).expect("list");
    let row = pods.iter().find(|p| p.name == "db-0").expect("row");
    // The skip began later: it is the latest message of both.
    assert_eq!(report.latest_message, skip);
    assert_eq!(row.latest_message, skip);
    // The list's reasons are the attempts', the skip noted after them.
    assert!(row.latest_is_deleting_skip);
    assert_eq!(row.reasons, "1 Insufficient cpu");
    assert_eq!(
        row.reason_items.iter().map(|r| (r.nodes, r.reason.as_str())).collect::<Vec<_>>(),
        [(Some(1), "Insufficient cpu")]
    );
    assert_eq!(row.reasons_shown(), "1 Insufficient cpu (then skipped: being deleted)");

    // Same last and first times: the greater event key, in both.
    let (dir, store) = temp_store();
    let taint = "0/1 nodes are available: 1 node(s) had untolerated taint {a: b}.";
    let events = json!({"kind": "List", "items": [
        failed("db-0.a", cpu, 9, "2026-01-01T05:00:00Z", "2026-01-01T05:30:00Z"),
        failed("db-0.b", taint, 1, "2026-01-01T05:00:00Z", "2026-01-01T05:30:00Z"),
    ]});
    let file = write(dir.path(), "events.json", events.to_string().as_bytes());
    assert_eq!(ingest_files(&store, &[file], &mut NoProgress).expect("ingest").error_count(), 0);
    let report = why_pending(&store, "d", "db-0").expect("query").expect("report");
    let pods = kdrift_analyze::pending_pods(&store).expect("list");
    assert_eq!((report.latest_message.as_str(), pods[0].latest_message.as_str()), (taint, taint));
    assert_eq!(pods[0].reasons, "1 node(s) had untolerated taint {a: b}");
    assert!(!pods[0].latest_is_deleting_skip);

    // Only the skip: no reason at all, never the skip's text.
    let (dir, store) = temp_store();
    let events =
        json!({"kind": "List", "items": [failed("db-0.b", skip, 1, "2026-01-01T05:30:00Z", "2026-01-01T05:30:00Z")]});
    let file = write(dir.path(), "events.json", events.to_string().as_bytes());
    assert_eq!(ingest_files(&store, &[file], &mut NoProgress).expect("ingest").error_count(), 0);
    let pods = kdrift_analyze::pending_pods(&store).expect("list");
    assert_eq!((pods[0].reasons.as_str(), pods[0].reasons_shown()), ("", "none: skipped, being deleted".to_string()));
}
