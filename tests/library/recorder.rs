//! `kdrift record` (the library's recorder) against the fake API server:
//! through a dropped connection and a 410 Gone with deletions in the gap it
//! ends with exactly the server's objects, records the gap's deletions as
//! DELETED with the object's last state (also an object deleted and created
//! again under its name) and re-stores nothing unchanged; a resource that
//! answers 500 is retried while a forbidden one is reported; replaying the
//! demo history through it gives the same why-pending answer as ingesting
//! the history directly. Against a hostile server: a bad list item or watch
//! line is an error of the run while the rest is stored and the watch
//! reads on; a server that never answers is retried and the run ends
//! `partial`, naming the server. Batch commits that fail (a broken store)
//! turn the metrics server's /healthz to 503 after three in a row and end
//! the recorder after ten.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use kdrift_analyze::why_pending;
use kdrift_ingest::ingest_scenario;
use kdrift_ingest::load_known_objects;
use kdrift_ingest::{RecordOptions, ReplayClock, WallClock};
use kdrift_rebalance::{ResourceKind, Scope, HISTORY_RESOURCES};
use kdrift_scenario::{generate, ScenarioConfig};

use kdrift_store::run_query;
use kdrift_store::Change;
use kdrift_store::Store;
use kdrift_tests::fake_kube::FakeKube;
use kdrift_tests::hostile_kube::{list_of, pod as pod_text, Answer, HostileKube};
use kdrift_tests::recorder::RunningRecorder;
use kdrift_tests::temp_store;
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(60);

fn rv_of(o: &Value) -> u64 {
    o.pointer("/metadata/resourceVersion").and_then(Value::as_str).and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn pod(name: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "web", "labels": {"app": "web"}},
           "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx",
                    "resources": {"requests": {"cpu": "100m"}}}]},
           "status": {"phase": "Running"}})
}

/// Every resource's live objects in the store equal the server's: same
/// names, same resourceVersions.
fn assert_store_matches_server(store: &Store, kube: &FakeKube) {
    for r in HISTORY_RESOURCES {
        let stored = load_known_objects(store, r, &Scope::AllNamespaces).expect("known");
        let mut stored: Vec<(String, String, String)> =
            stored.into_iter().map(|((ns, name), (rv, _))| (ns, name, rv)).collect();
        stored.sort();
        let s = |o: &Value, p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
        let mut server: Vec<(String, String, String)> = kube
            .objects(&r.api_version(), r.kind)
            .iter()
            .map(|o| (s(o, "/metadata/namespace"), s(o, "/metadata/name"), s(o, "/metadata/resourceVersion")))
            .collect();
        server.sort();
        assert_eq!(stored, server, "{}", r.name());
    }
}

#[test]
fn a_dropped_watch_and_a_410_gap_end_with_exactly_the_servers_objects() {
    let kube = FakeKube::start();
    kube.set_bookmark_interval(Duration::from_millis(100));
    for n in ["node-1", "node-2"] {
        kube.create(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}})).expect("node");
    }
    for (name, node) in [("a", "node-1"), ("b", "node-1"), ("c", "node-2"), ("steady", "node-2")] {
        kube.create(pod(name, node)).expect("pod");
    }
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |o| {
        o.batch_records = 3;
        o.watch.backoff_initial = Duration::from_millis(20);
    });
    assert!(rec.wait_listed(HISTORY_RESOURCES, 1, WAIT), "{:?}", rec.watched.seen());

    // Live: a new pod, a change, a deletion.
    kube.create(pod("d", "node-2")).expect("pod");
    let mut a = kube.get("v1", "Pod", "web", "a").expect("a");
    a["metadata"]["labels"]["version"] = json!("2");
    kube.update(a).expect("update");
    kube.delete("v1", "Pod", "web", "c").expect("delete");
    let pods = |s: &kdrift_tests::recorder::Seen, change: Change| {
        s.observed.iter().filter(|(r, c, _)| r == "pods" && *c == change).count()
    };
    assert!(rec.watched.wait(WAIT, |s| pods(s, Change::Deleted) == 1 && pods(s, Change::Modified) == 1));

    // A dropped connection: the watch resumes from its resourceVersion and
    // misses nothing written meanwhile.
    kube.drop_watches();
    kube.create(pod("e", "node-1")).expect("pod");
    assert!(rec.watched.wait(WAIT, |s| pods(s, Change::Added) == 2), "{:?}", rec.watched.seen().observed);

    // An outage with compaction: b deleted, d changed, f created while no
    // watch was connected; the watches get 410 and list again.
    let before = rec.watched.seen().observed.len();
    kube.outage_with_compaction(|o| {
        o.delete("v1", "Pod", "web", "b").expect("delete b");
        let mut d = pod("d", "node-1");
        d["metadata"]["labels"]["moved"] = json!("yes");
        o.update(d).expect("update d");
        o.create(pod("f", "node-2")).expect("create f");
        // a deleted and created again under the same name: a new uid.
        o.delete("v1", "Pod", "web", "a").expect("delete a");
        o.create(pod("a", "node-2")).expect("create a again");
    });
    assert!(rec.wait_listed(HISTORY_RESOURCES, 2, WAIT), "{:?}", rec.watched.seen().lists);
    let watched = rec.watched.clone();
    let report = rec.stop();
    assert_eq!(report.status.as_str(), "ok", "{:?}", report.resources);
    // After the gap: only d, f and the new a listed again (e and steady,
    // unchanged, are not re-stored); b and the old a recorded as DELETED.
    let seen = watched.seen();
    let gap: Vec<&(String, Change, String)> = seen.observed[before..].iter().filter(|(r, _, _)| r == "pods").collect();
    let count = |change: Change| gap.iter().filter(|(_, c, _)| *c == change).count();
    assert_eq!((count(Change::Listed), count(Change::Deleted), gap.len()), (3, 2, 5), "{gap:?}");
    let store = Store::open_existing(&db).expect("store");
    assert_store_matches_server(&store, &kube);
    // b's deletion, seen only by the re-list, is recorded with b's last state.
    let params = |name: &str| {
        vec![
            ("namespace".to_string(), "web".to_string()),
            ("name".to_string(), name.to_string()),
            ("at_us".to_string(), "2100-01-01T00:00:00Z".to_string()),
            ("uid".to_string(), String::new()),
        ]
    };
    let b = run_query(&store, "pod_at", &params("b")).expect("pod_at");
    let col = |c: &str| b.columns.iter().position(|x| x == c).expect("column");
    assert_eq!(b.rows[0][col("change")], json!("DELETED"));
    assert_eq!(b.rows[0][col("node_name")], json!("node-1"), "a deleted pod keeps its last node");
    let c = run_query(&store, "pod_at", &params("c")).expect("pod_at");
    assert_eq!(c.rows[0][col("change")], json!("DELETED"));
    assert_eq!(c.rows[0][col("node_name")], json!("node-2"));
    let relisted: Vec<String> = report
        .resources
        .iter()
        .filter(|r| r.resource != "pods" && r.resource != "nodes")
        .map(|r| format!("{}={}", r.resource, r.received))
        .collect();
    assert!(relisted.iter().all(|x| x.ends_with("=0")), "{relisted:?}");
    let pods_report = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    // 4 listed + d added + a modified + c deleted + e added + 5 after the gap.
    assert_eq!(pods_report.received, 4 + 4 + 5, "{pods_report:?}");
    assert_eq!(pods_report.duplicates, 0);
}

#[test]
fn a_failing_resource_is_retried_and_a_forbidden_one_reported() {
    let kube = FakeKube::start();
    kube.create(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).expect("node");
    kube.fail_resource("nodes", 500);
    kube.fail_resource("poddisruptionbudgets.policy", 403);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |o| {
        o.watch.backoff_initial = Duration::from_millis(20);
    });
    let problem = |s: &kdrift_tests::recorder::Seen, resource: &str, fatal: bool| {
        s.problems.iter().any(|(r, _, f)| r == resource && *f == fatal)
    };
    assert!(rec.watched.wait(WAIT, |s| problem(s, "nodes", false) && problem(s, "poddisruptionbudgets.policy", true)));
    kube.clear_faults();
    let nodes = ResourceKind::by_kind("v1", "Node").expect("nodes");
    assert!(rec.wait_listed(std::slice::from_ref(nodes), 1, WAIT), "{:?}", rec.watched.seen().problems);
    let report = rec.stop();
    assert_eq!(report.status.as_str(), "partial");
    let pdb = report.resources.iter().find(|r| r.resource == "poddisruptionbudgets.policy").expect("pdb");
    assert!(pdb.problem.as_ref().is_some_and(|p| p.message.contains("403 Forbidden")), "{pdb:?}");
    let n = report.resources.iter().find(|r| r.resource == "nodes").expect("nodes");
    assert_eq!((n.received, n.problem.is_none()), (1, true), "a 500 is retried, not reported as a failure");
}

#[test]
fn a_resource_never_in_sync_is_reported_with_the_error_it_was_retried_for() {
    // A server that answered nothing but 500s ended as "ok, 0 errors".
    let kube = FakeKube::start();
    kube.fail_resource("nodes", 500);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |o| {
        o.watch.backoff_initial = Duration::from_millis(20);
    });
    assert!(rec.watched.wait(WAIT, |s| s.problems.iter().any(|(r, _, fatal)| r == "nodes" && !*fatal)));
    let report = rec.stop();
    assert_eq!(report.status.as_str(), "partial", "the other resources were read");
    let n = report.resources.iter().find(|r| r.resource == "nodes").expect("nodes");
    let message = n.problem.as_ref().map(|p| p.message.as_str()).unwrap_or_default();
    assert!(
        message.starts_with("never in sync until the recorder stopped; last retried: nodes: the server answered 500"),
        "{n:?}"
    );
    assert!(report.errors() >= 1);
}

#[test]
fn recording_the_replayed_demo_history_answers_why_pending_like_the_demo() {
    let scenario = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let facts = scenario.facts.clone();
    let kube = FakeKube::start();
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    // The recorder observes each replayed version at its record's time.
    let times = scenario.records.iter().map(|r| (rv_of(&r.object).to_string(), r.observed_at));
    let clock = ReplayClock::new(times, facts.start);
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(clock), |o| o.batch_records = 500);
    assert!(rec.wait_listed(HISTORY_RESOURCES, 1, WAIT));
    let started = std::time::Instant::now();
    let mut last: HashMap<String, u64> = HashMap::new();
    for r in &scenario.records {
        kube.apply(r.change, &r.object).expect("apply");
        let kind = r.object["kind"].as_str().unwrap_or("");
        let api_version = r.object["apiVersion"].as_str().unwrap_or("");
        // Both event APIs see every event.
        let names: Vec<String> = if kind == "Event" {
            vec!["events".into(), "events.events.k8s.io".into()]
        } else {
            vec![ResourceKind::by_kind(api_version, kind).expect("history resource").name()]
        };
        for n in names {
            last.insert(n, rv_of(&r.object));
        }
    }
    let caught_up = rec.watched.wait(WAIT, |s| last.iter().all(|(n, rv)| s.max_rv.get(n).copied().unwrap_or(0) >= *rv));
    assert!(caught_up, "the recorder did not catch up: {last:?} vs {:?}", rec.watched.seen().max_rv);
    eprintln!("replayed {} records in {:?}", scenario.records.len(), started.elapsed());
    let report = rec.stop();
    assert_eq!(report.status.as_str(), "ok", "{:?}", report.resources);
    assert_eq!(report.errors(), 0, "{:?}", report.resources);

    let store = Store::open_existing(&db).expect("store");
    assert_store_matches_server(&store, &kube);
    let recorded =
        why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let (_d, demo) = temp_store();
    ingest_scenario(&demo, generate(&ScenarioConfig { seed: 3, scale: 1 }), 3).expect("demo");
    let direct =
        why_pending(&demo, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let (recorded, direct) =
        (serde_json::to_value(&recorded).expect("json"), serde_json::to_value(&direct).expect("json"));
    assert_eq!(recorded["state"]["shortfalls"][0]["short"], 42);
    assert_eq!(recorded, direct);
}

/// Break-it 34 M1 for `record`: a resource's item errors past 100 are
/// counted, not kept, and said once at the end.
#[test]
fn a_resources_item_errors_past_100_are_counted_and_said_once() {
    let kube = FakeKube::start();
    kube.create(pod("web-0", "node-1")).expect("web-0");
    for i in 1..=150 {
        let mut p = pod(&format!("bad-{i}"), "node-1");
        p["metadata"]["labels"]["app"] = json!("dup");
        kube.create(p).expect("bad");
    }
    kube.rewrite_lists("\"app\":\"dup\"", "\"app\":\"web\",\"app\":\"dup\"");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |_| {});
    let pods = ResourceKind::by_kind("v1", "Pod").expect("pods");
    assert!(rec.wait_listed(std::slice::from_ref(pods), 1, WAIT), "{:?}", rec.watched.seen().problems);
    let report = rec.stop();
    let p = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((p.item_errors.len(), p.item_errors_not_kept, p.item_error_total()), (101, 50, 150));
    assert_eq!(
        p.item_errors[100],
        format!(
            "… and 50 more errors like these in {} (only the first 100 are shown and stored; the others are counted)",
            p.location
        )
    );
    let store = Store::open(&db).expect("store");
    let names: Vec<String> = store
        .conn()
        .prepare("SELECT name FROM observations WHERE kind = 'Pod'")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("names");
    assert_eq!(names, ["web-0"]);
}

/// Issue 34 C: a pod holding a key twice, in the first list or in a watch
/// event, is an item error naming the key's path; it is neither stored nor
/// taken for deleted, and the versions around it are recorded.
#[test]
fn an_object_holding_a_key_twice_is_an_item_error_in_lists_and_watches() {
    let kube = FakeKube::start();
    let dup = |name: &str| {
        let mut p = pod(name, "node-1");
        p["metadata"]["labels"]["app"] = json!("dup");
        p
    };
    kube.create(pod("web-0", "node-1")).expect("web-0");
    kube.create(dup("web-1")).expect("web-1");
    // A broken proxy writes the label twice in every answer.
    kube.rewrite_lists("\"app\":\"dup\"", "\"app\":\"web\",\"app\":\"dup\"");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |_| {});
    let pods = ResourceKind::by_kind("v1", "Pod").expect("pods");
    assert!(rec.wait_listed(std::slice::from_ref(pods), 1, WAIT), "{:?}", rec.watched.seen().problems);
    kube.create(dup("web-2")).expect("web-2");
    let web3 = rv_of(&kube.create(pod("web-3", "node-1")).expect("web-3"));
    assert!(rec.watched.wait(WAIT, |s| s.max_rv.get("pods").is_some_and(|rv| *rv >= web3)));
    let report = rec.stop();
    let p = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let tail = "the key \"app\" appears twice in one object (at metadata.labels.app; which value is meant is unknown)";
    assert_eq!(p.item_errors.len(), 2, "{:?}", p.item_errors);
    let listed = format!("items[1] (web/web-1): {tail}; the item is skipped, the page's other items are kept");
    assert!(
        p.item_errors[0].starts_with("pods: page 1 of ") && p.item_errors[0].ends_with(&listed),
        "{:?}",
        p.item_errors
    );
    let watched = format!(", web/web-2: {tail}; this version is not stored");
    assert!(
        p.item_errors[1].starts_with("pods: watch of ") && p.item_errors[1].ends_with(&watched),
        "{:?}",
        p.item_errors
    );
    let store = Store::open(&db).expect("store");
    let rows: Vec<(String, String)> = store
        .conn()
        .prepare("SELECT name, change FROM observations WHERE kind = 'Pod' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("rows");
    assert_eq!(rows, [("web-0".to_string(), "LISTED".to_string()), ("web-3".to_string(), "ADDED".to_string())]);
}

/// The watch event line `{"type": type, "object": object}`.
fn event(kind: &str, object: &str) -> Vec<u8> {
    format!(r#"{{"type":"{kind}","object":{object}}}"#).into_bytes()
}

#[test]
fn bad_list_items_and_watch_lines_are_errors_of_the_run_and_the_watch_reads_on() {
    // A watch line cut off was dropped silently, one with invalid UTF-8
    // restarted the watch silently, and one bad list item lost its page (issue 34).
    let mut bad_item = pod_text(1, 11).into_bytes();
    let at = bad_item.windows(5).position(|w| w == b"img:1").expect("image") + 4;
    bad_item[at] = 0xff;
    let list = list_of("PodList", &[pod_text(0, 10).into_bytes(), bad_item, pod_text(2, 12).into_bytes()]);
    let mut not_utf8 = event("MODIFIED", &pod_text(2, 203));
    let bad_byte = not_utf8.windows(5).position(|w| w == b"img:1").expect("image") + 4;
    not_utf8[bad_byte] = 0xfe;
    let lines = vec![
        event("MODIFIED", &pod_text(0, 201)),
        br#"{"type":"MODIFIED","object":{"metadata":{"name":"p0"#.to_vec(),
        not_utf8,
        event("MODIFIED", &pod_text(2, 204)),
    ];
    let (kube, _dir, db, rec) = record_pods(list, lines, |_| {});
    assert!(rec.watched.wait(WAIT, |s| s.max_rv.get("pods") == Some(&204)), "{:?}", rec.watched.seen());
    let report = rec.stop();
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let url = format!("{}/api/v1/pods", kube.url());
    assert_eq!(r.received, 4, "2 listed, 2 watched");
    assert_eq!(r.item_errors.len(), 3, "{:?}", r.item_errors);
    assert_eq!(
        r.item_errors[0],
        format!(
            "pods: page 1 of {url}, items[1] (default/p1): not valid UTF-8 (byte {at} of the item); expected UTF-8 \
             JSON; the item is skipped, the page's other items are kept"
        )
    );
    let expected = "expected one JSON watch event per line ({\"type\": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, \
                    \"object\": {…}}); the line is skipped";
    assert_eq!(
        r.item_errors[1],
        format!("pods: watch line 2 from {url} is not JSON (EOF while parsing a string at column 51); {expected}")
    );
    assert_eq!(
        r.item_errors[2],
        format!("pods: watch line 3 from {url} is not UTF-8 (byte {bad_byte} of the line); {expected}")
    );
    assert!(r.problem.is_none(), "{r:?}");
    assert_eq!((report.status.as_str(), report.errors()), ("partial", 3));
    let watches = kube.requests().iter().filter(|t| t.starts_with("/api/v1/pods?") && t.contains("watch=")).count();
    assert_eq!(watches, 1, "the watch read on: {:?}", kube.requests());
    let store = Store::open_existing(&db).expect("store");
    assert_eq!(store.counts().expect("counts").observations, 4);
}

#[test]
fn a_watch_line_of_nul_bytes_is_an_error_of_the_run_and_the_watch_reads_on() {
    // Break-it 41 G8: a line of 1000 NULs was skipped silently (run ok, 0
    // errors) where an invalid-JSON line is an error of the run, and an
    // NDJSON file's NUL line an input error.
    let list = list_of("PodList", &[pod_text(0, 10).into_bytes()]);
    let lines = vec![
        event("MODIFIED", &pod_text(0, 201)),
        vec![0u8; 1000],
        b"\x0c".to_vec(),
        event("ADDED", &pod_text(1, 202)),
    ];
    let (kube, _dir, db, rec) = record_pods(list, lines, |_| {});
    assert!(rec.watched.wait(WAIT, |s| s.max_rv.get("pods") == Some(&202)), "{:?}", rec.watched.seen());
    let report = rec.stop();
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let url = format!("{}/api/v1/pods", kube.url());
    assert_eq!(r.received, 3, "1 listed, 2 watched");
    let expected = "expected one JSON watch event per line ({\"type\": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, \
                    \"object\": {…}}); the line is skipped";
    assert_eq!(
        r.item_errors,
        [
            format!(
                "pods: watch line 2 from {url} is not JSON (text between events: \"{}\"); {expected}",
                "\\0".repeat(40)
            ),
            format!("pods: watch line 3 from {url} is not JSON (text between events: \"\\u{{c}}\"); {expected}"),
        ]
    );
    assert_eq!((report.status.as_str(), report.errors()), ("partial", 2));
    let store = Store::open_existing(&db).expect("store");
    assert_eq!(store.counts().expect("counts").observations, 3);
}

/// Pod `p{i}` at resourceVersion `rv` with an annotation of `mib` MiB.
fn big_pod(i: u32, rv: u32, mib: usize) -> String {
    let pod = pod_text(i, rv);
    let annotation = format!(r#""annotations":{{"blob":"{}"}},"#, "x".repeat(mib << 20));
    pod.replacen(r#""metadata":{"#, &format!(r#""metadata":{{{annotation}"#), 1)
}

#[test]
fn a_16_mib_watch_event_is_stored_and_one_over_the_cap_is_an_error_while_the_next_is_stored() {
    // Break-it 35 F22: the watch reader searched the whole unfinished event
    // for a line end again at every chunk (8 MiB: 9 s of CPU; 10 × 60 MiB:
    // nothing stored after 60 s), no event was too long to hold, and a
    // batch was bounded by records and time only (10 × 60 MiB: 7.76 GB).
    let list = list_of("PodList", &[pod_text(0, 10).into_bytes()]);
    let lines = vec![
        event("ADDED", &big_pod(1, 201, 16)),
        event("ADDED", &big_pod(2, 202, 24)),
        event("ADDED", &pod_text(3, 203)),
    ];
    let (kube, _dir, db, rec) = record_pods(list, lines, move |o| {
        o.watch.max_event_bytes = 20 << 20;
        // Committed by bytes alone: p0 and the 16 MiB p1 before p3 comes.
        o.batch_bytes = 1 << 20;
        o.batch_interval = Duration::from_secs(3600);
    });
    assert!(rec.watched.wait(WAIT, |s| s.max_rv.get("pods") == Some(&203)), "{:?}", rec.watched.seen());
    assert!(
        rec.watched.wait(WAIT, |s| s.committed.is_some_and(|c| c.records == 2)),
        "p0 and p1 committed once p1's 16 MiB passed batch_bytes: {:?}",
        rec.watched.seen()
    );
    let report = rec.stop();
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let url = format!("{}/api/v1/pods", kube.url());
    assert_eq!(r.received, 3, "p0 listed, p1 and p3 watched");
    let len = event("ADDED", &big_pod(2, 202, 24)).len();
    assert_eq!(
        r.item_errors,
        [format!(
            "pods: watch line 2 from {url} is an event of {len} bytes, more than the 20 MiB kdrift reads in one watch \
             event (not held; its object is not stored); expected one JSON watch event per line ({{\"type\": \
             ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, \"object\": {{…}}}}); the line is skipped"
        )]
    );
    // Read with a larger limit than the recorder's (the default 128 MiB):
    // this check parses the 16 MiB object in SQL, which the recorder's
    // commit no longer does (issue 39).
    let options = kdrift_store::OpenOptions { memory_limit: 1 << 30 };
    let store = Store::open_existing_with(&db, &options, &kdrift_store::NoMigrationProgress).expect("store");
    let rows: Vec<(String, i64)> = store
        .conn()
        .prepare(
            "SELECT name, length(json_extract_string(object, '$.metadata.annotations.blob')) FROM observations \
             WHERE kind = 'Pod' ORDER BY name",
        )
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get::<_, Option<i64>>(1)?.unwrap_or(0))))?.collect())
        .expect("rows");
    assert_eq!(rows, [("p0".to_string(), 0), ("p1".to_string(), 16 << 20), ("p3".to_string(), 0)]);
}

/// A recorder of Pods alone (into `rec.duckdb` of a new directory) against
/// a server answering their list with `list` and their watch with `lines`;
/// `tune` sets the other options. The server and the directory live as
/// long as what is returned.
fn record_pods(
    list: Vec<u8>,
    lines: Vec<Vec<u8>>,
    tune: impl FnOnce(&mut RecordOptions) + Send + 'static,
) -> (HostileKube, tempfile::TempDir, PathBuf, RunningRecorder) {
    let kube = HostileKube::start(move |t| {
        let pods = t.starts_with("/api/v1/pods?");
        pods.then(|| if t.contains("watch=") { Answer::Watch(lines.clone()) } else { Answer::Body(list.clone()) })
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("rec.duckdb");
    let pods = *ResourceKind::by_kind("v1", "Pod").expect("pods");
    let rec = RunningRecorder::start(&kube.write_kubeconfig(dir.path()), &db, Arc::new(WallClock), move |o| {
        o.resources = vec![pods];
        tune(o);
    });
    (kube, dir, db, rec)
}

/// Pod `p{i}` at resourceVersion `rv` whose `spec.x` holds `n` zeros (`[0,0,…]`).
fn zeros_pod(i: u32, rv: u32, n: usize) -> String {
    let zeros = format!(r#""x":[{}0],"#, "0,".repeat(n - 1));
    pod_text(i, rv).replacen(r#""spec":{"#, &format!(r#""spec":{{{zeros}"#), 1)
}

#[test]
fn a_watch_event_whose_object_takes_more_than_its_parsed_limit_is_refused_by_name_and_the_next_is_stored() {
    // Break-it 37 F9: the byte caps counted JSON text; 6 Pods of 15 MiB of
    // `[0,0,…]` (540 MiB each parsed) peaked 1.95 GB under deploy/'s 16 MiB caps.
    // Here 1 MiB of zeros under a 1 MiB cap: 36 MiB parsed, past 17 MiB.
    let list = list_of("PodList", &[pod_text(0, 10).into_bytes()]);
    let zeros = event("ADDED", &zeros_pod(1, 201, 512 << 10));
    let lines = vec![zeros.clone(), event("ADDED", &big_pod(2, 202, 1)), event("ADDED", &pod_text(3, 203))];
    let (kube, _dir, db, rec) = record_pods(list, lines, move |o| {
        o.watch.max_event_bytes = (1 << 20) + 4096;
    });
    assert!(rec.watched.wait(WAIT, |s| s.max_rv.get("pods") == Some(&203)), "{:?}", rec.watched.seen());
    let report = rec.stop();
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let url = format!("{}/api/v1/pods", kube.url());
    assert_eq!(r.received, 3, "p0 listed, p2 (1 MiB of text in a string) and p3 watched");
    assert_eq!(
        r.item_errors,
        [format!(
            "pods: watch of {url}, default/p1: an event of {} bytes whose object takes more than 17891328 bytes \
             parsed (16 times the 1052672 bytes kdrift reads in one watch event, and 1 MiB; JSON numbers and short \
             strings take many times their text as values); this version is not stored",
            zeros.len()
        )]
    );
    let store = Store::open_existing(&db).expect("store");
    let rows: Vec<String> = store
        .conn()
        .prepare("SELECT name FROM observations WHERE kind = 'Pod' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("rows");
    assert_eq!(rows, ["p0", "p2", "p3"]);
}

#[test]
fn a_watch_line_left_open_does_not_swallow_the_next_event() {
    // Break-it 34 H4: a line holding an unclosed `{` / `[` took the next
    // line's good event in as a member of its value, and lost it.
    for (case, open) in [
        ("unclosed", &br#"{"type":"ADDED","object":{"metadata":"#[..]),
        ("openbracket", b"["),
        ("nested_open", br#"{"type":"ADDED","object":{"a":[{"b":{"c":["#),
    ] {
        let list = list_of("PodList", &[pod_text(0, 10).into_bytes()]);
        let lines = vec![
            event("ADDED", &pod_text(1, 201)),
            open.to_vec(),
            event("ADDED", &pod_text(3, 203)),
            event("ADDED", &pod_text(4, 204)),
        ];
        let (kube, _dir, db, rec) = record_pods(list, lines, |_| {});
        assert!(rec.watched.wait(WAIT, |s| s.max_rv.get("pods") == Some(&204)), "{case}: {:?}", rec.watched.seen());
        let report = rec.stop();
        let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
        assert_eq!(r.received, 4, "{case}: 1 listed, 3 watched (p1, p3, p4)");
        assert_eq!(r.item_errors.len(), 1, "{case}: {:?}", r.item_errors);
        let url = format!("{}/api/v1/pods", kube.url());
        assert!(
            r.item_errors[0].starts_with(&format!("pods: watch line 2 from {url} is not JSON (EOF while parsing")),
            "{case}: {}",
            r.item_errors[0]
        );
        let store = Store::open_existing(&db).expect("store");
        assert_eq!(store.counts().expect("counts").observations, 4, "{case}: p0 listed, p1 p3 p4 watched");
    }
}

#[test]
fn a_server_that_never_answers_is_retried_and_the_run_does_not_end_ok() {
    // A list never answered (nodes) and a watch answering its headers and
    // then nothing (pods) ended as "ok" (issue 34).
    let list = list_of("PodList", &[pod_text(0, 10).into_bytes()]);
    let kube = HostileKube::start(move |t| {
        if t.starts_with("/api/v1/nodes?") {
            Some(Answer::Silent)
        } else if t.starts_with("/api/v1/pods?") {
            Some(if t.contains("watch=") { Answer::HeadersOnly } else { Answer::Body(list.clone()) })
        } else {
            None
        }
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("rec.duckdb");
    let resources: Vec<ResourceKind> =
        ["Node", "Pod"].iter().map(|k| *ResourceKind::by_kind("v1", k).expect("kind")).collect();
    let rec = RunningRecorder::start(&kube.write_kubeconfig(dir.path()), &db, Arc::new(WallClock), move |o| {
        o.resources = resources;
        o.watch.request_timeout = Duration::from_secs(1);
        o.watch.watch_timeout_seconds = 1;
        o.watch.backoff_initial = Duration::from_millis(20);
    });
    let retried = |s: &kdrift_tests::recorder::Seen, name: &str| s.problems.iter().any(|(r, _, f)| r == name && !*f);
    assert!(rec.watched.wait(WAIT, |s| retried(s, "nodes") && retried(s, "pods")), "{:?}", rec.watched.seen());
    let report = rec.stop();
    let message = |name: &str| {
        let r = report.resources.iter().find(|r| r.resource == name).expect("resource");
        (r.received, r.problem.as_ref().map(|p| p.message.clone()).unwrap_or_default())
    };
    let url = kube.url();
    assert_eq!(
        message("nodes"),
        (
            0,
            format!(
                "never in sync until the recorder stopped; last retried: nodes: {url} sent nothing for 1 s while kdrift \
                 waited for the list's answer; given up (/api/v1/nodes)"
            )
        )
    );
    assert_eq!(
        message("pods"),
        (
            1,
            format!(
                "not watched when the recorder stopped; last retried: pods: {url} sent nothing for 2 s while kdrift \
                 waited for the next watch event (timeoutSeconds and the request timeout); given up (/api/v1/pods)"
            )
        )
    );
    assert_eq!((report.status.as_str(), report.errors()), ("partial", 2));
}

#[test]
fn a_stop_during_the_first_paginated_list_ends_partial_naming_the_unfinished_list() {
    // Break-it (issue 34): SIGTERM while the first list of 20000 pods was
    // paging ended `ok` with 6628 pods stored and no word about the rest.
    let items: Vec<Vec<u8>> = (0..3).map(|i| pod_text(i, 10 + i).into_bytes()).collect();
    let first = String::from_utf8(list_of("PodList", &items))
        .expect("utf-8")
        .replace(r#""resourceVersion":"100"}"#, r#""resourceVersion":"100","continue":"page-2"}"#)
        .into_bytes();
    let kube = HostileKube::start(move |t| {
        if t.starts_with("/api/v1/pods?") && t.contains("continue=page-2") {
            Some(Answer::Silent)
        } else if t.starts_with("/api/v1/pods?") && !t.contains("watch=") {
            Some(Answer::Body(first.clone()))
        } else {
            None
        }
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("rec.duckdb");
    let resources = vec![*ResourceKind::by_kind("v1", "Pod").expect("kind")];
    let rec = RunningRecorder::start(&kube.write_kubeconfig(dir.path()), &db, Arc::new(WallClock), move |o| {
        o.resources = resources;
        o.watch.page_size = 3;
    });
    assert!(rec.watched.wait(WAIT, |s| s.observed.len() == 3), "{:?}", rec.watched.seen());
    assert!(rec.watched.wait(WAIT, |_| kube.requests().iter().any(|t| t.contains("continue=page-2"))));
    let report = rec.stop();
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let url = kube.url();
    assert_eq!(
        (pods.received, pods.problem.as_ref().map(|p| p.message.clone()).unwrap_or_default()),
        (
            3,
            format!(
                "pods: never in sync until the recorder stopped; its first list was not finished (3 objects stored; \
                 the next record lists it again) ({url}/api/v1/pods)"
            )
        )
    );
    assert_eq!((report.status.as_str(), report.errors()), ("partial", 1));
    let store = Store::open_existing(&db).expect("store");
    assert_eq!(store.counts().expect("counts").observations, 3);
}

#[test]
fn a_watched_pod_the_model_cannot_read_is_an_item_error_of_the_run_as_in_ingest_api() {
    // Break-it (issue 34): `spec: "bad"` in a watched pod was stored
    // silently (run ok) while `ingest api` reported it (exit 2).
    let list = list_of("PodList", &[pod_text(0, 10).into_bytes()]);
    let bad = pod_text(1, 201)
        .replace(r#""spec":{"nodeName":"node-1","containers":[{"name":"c","image":"img:1"}]}"#, r#""spec":"bad""#);
    assert!(bad.contains(r#""spec":"bad""#), "{bad}");
    let lines = vec![event("ADDED", &bad), event("MODIFIED", &pod_text(0, 202))];
    let (kube, _dir, _db, rec) = record_pods(list, lines, |_| {});
    assert!(rec.watched.wait(WAIT, |s| s.max_rv.get("pods") == Some(&202)), "{:?}", rec.watched.seen());
    let report = rec.stop();
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(r.received, 3, "1 listed, 2 watched");
    assert_eq!(
        r.item_errors,
        [format!(
            "{}/api/v1/pods: pod default/p1: spec: expected an object, got string \"bad\"; the version is stored, \
             but analyses cannot use it",
            kube.url()
        )]
    );
    assert_eq!((report.status.as_str(), report.errors()), ("partial", 1));
}

/// Break-it 31 F10: after a 410 the relist held p2 with a key twice and
/// no `metadata.namespace`; its key read as (``, p2) matched no known pod,
/// so default/p2 was recorded as deleted. An item that could not be read is
/// neither stored nor taken for deleted: without a namespace it may be any
/// known pod of its name.
#[test]
fn a_relisted_item_that_cannot_be_read_and_names_no_namespace_is_not_taken_for_deleted() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let good: Vec<Vec<u8>> = (0..5).map(|i| pod_text(i, 10 + i).into_bytes()).collect();
    let first = list_of("PodList", &good);
    let mut items = good.clone();
    items[2] = br#"{"metadata":{"name":"p2","uid":"uid-p2"},"spec":{"a":1,"a":1}}"#.to_vec();
    let second = list_of("PodList", &items);
    let gone =
        event("ERROR", r#"{"kind":"Status","apiVersion":"v1","code":410,"reason":"Expired","message":"too old"}"#);
    let (lists, watches) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let kube = HostileKube::start(move |t| {
        if !t.starts_with("/api/v1/pods?") {
            return None;
        }
        if t.contains("watch=") {
            let first_watch = watches.fetch_add(1, SeqCst) == 0;
            return Some(Answer::Watch(if first_watch { vec![gone.clone()] } else { Vec::new() }));
        }
        Some(Answer::Body(if lists.fetch_add(1, SeqCst) == 0 { first.clone() } else { second.clone() }))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("rec.duckdb");
    let pods = *ResourceKind::by_kind("v1", "Pod").expect("pods");
    let rec = RunningRecorder::start(&kube.write_kubeconfig(dir.path()), &db, Arc::new(WallClock), move |o| {
        o.resources = vec![pods];
    });
    assert!(rec.wait_listed(&[pods], 2, WAIT), "{:?}", rec.watched.seen());
    let seen = rec.watched.seen();
    let report = rec.stop();
    let deleted: Vec<&(String, Change, String)> = seen.observed.iter().filter(|o| o.1 == Change::Deleted).collect();
    assert!(deleted.is_empty(), "{deleted:?}");
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(r.item_errors.len(), 1, "{:?}", r.item_errors);
    assert!(
        r.item_errors[0].ends_with(
            "items[2] (p2): the key \"a\" appears twice in one object (at spec.a; which value is meant is unknown); \
             the item is skipped, the page's other items are kept"
        ),
        "{:?}",
        r.item_errors
    );
    let store = Store::open_existing(&db).expect("store");
    let known = load_known_objects(&store, &pods, &Scope::AllNamespaces).expect("known");
    let mut names: Vec<String> = known.keys().map(|(ns, name)| format!("{ns}/{name}")).collect();
    names.sort();
    assert_eq!(names, ["default/p0", "default/p1", "default/p2", "default/p3", "default/p4"]);
}

/// Break-it 44 R1: a server answering 410 to every watch made the
/// recorder list and watch again in a tight loop (2,848 lists in 10 s),
/// saying nothing. A 410 before any event now waits the backoff (250 ms,
/// doubled) before the next list.
#[test]
fn watches_answered_410_at_once_are_listed_again_with_backoff() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let good: Vec<Vec<u8>> = (0..3).map(|i| pod_text(i, 10 + i).into_bytes()).collect();
    let list = list_of("PodList", &good);
    let gone =
        event("ERROR", r#"{"kind":"Status","apiVersion":"v1","code":410,"reason":"Expired","message":"too old"}"#);
    let lists = Arc::new(AtomicUsize::new(0));
    let counted = lists.clone();
    let kube = HostileKube::start(move |t| {
        if !t.starts_with("/api/v1/pods?") {
            return None;
        }
        if t.contains("watch=") {
            return Some(Answer::Watch(vec![gone.clone()]));
        }
        counted.fetch_add(1, SeqCst);
        Some(Answer::Body(list.clone()))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("rec.duckdb");
    let pods = *ResourceKind::by_kind("v1", "Pod").expect("pods");
    let rec = RunningRecorder::start(&kube.write_kubeconfig(dir.path()), &db, Arc::new(WallClock), move |o| {
        o.resources = vec![pods];
    });
    assert!(rec.wait_listed(&[pods], 1, WAIT), "{:?}", rec.watched.seen());
    let at_first = lists.load(SeqCst);
    std::thread::sleep(std::time::Duration::from_secs(2));
    let report = rec.stop();
    // Lists after the first within 2 s: 0.25 + 0.5 + 1 s of backoff leave
    // room for at most 4 (a tight loop made hundreds).
    let again = lists.load(SeqCst) - at_first;
    assert!((1..=4).contains(&again), "{again} lists in 2 s");
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(r.received, 3, "the relists hold the same 3 pods: received once");
}

/// Break-it 43 N6: after a 410 the relist held p2 without
/// `metadata.name` (its uid kept): it was stored under no name and
/// default/p2 recorded DELETED, with eviction evidence. An item missing
/// its name, or its namespace (a namespaced kind), is an item error, not
/// stored, and the known object of its uid is not taken for deleted; a pod
/// really gone from the relist (p4) still is.
#[test]
fn a_relisted_item_missing_its_name_or_namespace_is_an_error_and_its_uid_is_not_taken_for_deleted() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let good: Vec<Vec<u8>> = (0..5).map(|i| pod_text(i, 10 + i).into_bytes()).collect();
    let first = list_of("PodList", &good);
    let mut items = good[..4].to_vec();
    items[2] = pod_text(2, 12).replace(r#""name":"p2","#, "").into_bytes();
    items[3] = pod_text(3, 13).replace(r#""namespace":"default","#, "").into_bytes();
    let second = list_of("PodList", &items);
    let gone =
        event("ERROR", r#"{"kind":"Status","apiVersion":"v1","code":410,"reason":"Expired","message":"too old"}"#);
    let (lists, watches) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let kube = HostileKube::start(move |t| {
        if !t.starts_with("/api/v1/pods?") {
            return None;
        }
        if t.contains("watch=") {
            let first_watch = watches.fetch_add(1, SeqCst) == 0;
            return Some(Answer::Watch(if first_watch { vec![gone.clone()] } else { Vec::new() }));
        }
        Some(Answer::Body(if lists.fetch_add(1, SeqCst) == 0 { first.clone() } else { second.clone() }))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("rec.duckdb");
    let pods = *ResourceKind::by_kind("v1", "Pod").expect("pods");
    let rec = RunningRecorder::start(&kube.write_kubeconfig(dir.path()), &db, Arc::new(WallClock), move |o| {
        o.resources = vec![pods];
    });
    assert!(rec.wait_listed(&[pods], 2, WAIT), "{:?}", rec.watched.seen());
    let seen = rec.watched.seen();
    let report = rec.stop();
    let observed: Vec<(Change, &str)> = seen.observed.iter().map(|o| (o.1, o.2.as_str())).collect();
    // The first list's 5, then only p4's deletion (p0 and p1 unchanged).
    assert_eq!(
        observed,
        [
            (Change::Listed, "10"),
            (Change::Listed, "11"),
            (Change::Listed, "12"),
            (Change::Listed, "13"),
            (Change::Listed, "14"),
            (Change::Deleted, "14")
        ]
    );
    let r = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(r.item_errors.len(), 2, "{:?}", r.item_errors);
    let tail = "is missing, so the object it is cannot be told; the item is skipped (not stored), the page's other \
                items are kept, and no object is taken for deleted for want of it";
    assert!(
        r.item_errors[0].ends_with(&format!("the item of uid uid-p2 in namespace default: metadata.name {tail}")),
        "{:?}",
        r.item_errors
    );
    assert!(
        r.item_errors[1].ends_with(&format!("the item named \"p3\": metadata.namespace {tail}")),
        "{:?}",
        r.item_errors
    );
    let store = Store::open_existing(&db).expect("store");
    let known = load_known_objects(&store, &pods, &Scope::AllNamespaces).expect("known");
    let mut names: Vec<String> = known.keys().map(|(ns, name)| format!("{ns}/{name}")).collect();
    names.sort();
    assert_eq!(names, ["default/p0", "default/p1", "default/p2", "default/p3"]);
    let evidence: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM eviction_evidence WHERE name IN ('p2', 'p3')", [], |r| r.get(0))
        .unwrap_or(-1);
    assert_eq!(evidence, 0);
}

#[test]
fn record_samples_metrics_every_interval_and_without_metrics_server_says_so_once() {
    let kube = FakeKube::start();
    kube.create(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).expect("node");
    kube.create(pod("api-1", "node-1")).expect("pod");
    kube.set_node_metrics(&[("node-1", "1500000000n", "2097152Ki")]);
    kube.set_pod_metrics(&[("web", "api-1", &[("c", "250m", "1024Ki")][..])]);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    // Each answer a new reading, stamped with the second it was asked at.
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |o| {
        o.metrics_interval = Some(Duration::from_secs(1));
    });
    assert!(rec.watched.wait(WAIT, |s| s.usage.as_ref().is_some_and(|u| u.takes >= 3)), "three takes");
    let report = rec.stop();
    let usage = report.usage.expect("usage sampled");
    assert!(usage.takes >= 3, "{usage:?}");
    assert_eq!((usage.nodes, usage.pods), (usage.takes, usage.takes), "one node and one pod a take");
    assert_eq!((usage.not_served, usage.errors.len()), (false, 0));
    let store = Store::open(&db).expect("store");
    let params = [
        ("since_us".to_string(), "2000-01-01T00:00:00Z".to_string()),
        ("until_us".to_string(), "2100-01-01T00:00:00Z".to_string()),
        ("node".to_string(), "node-1".to_string()),
    ];
    let rows = run_query(&store, "usage_samples", &params).expect("query").rows;
    let instants: std::collections::BTreeSet<String> = rows.iter().map(|r| r[0].to_string()).collect();
    assert!(instants.len() >= 2, "distinct instants: {instants:?}");
    assert_eq!(instants.len() as u64, usage.added / 2, "each instant one node and one pod sample");
    for r in &rows {
        assert_eq!(
            (r[1].as_str(), r[5].as_i64(), r[6].as_i64(), r[7].as_str()),
            (Some("node"), Some(1500), Some(2 << 30), Some("metrics-api"))
        );
    }
    drop(store);

    // Without metrics-server: said once however many takes, the objects recorded.
    kube.serve_metrics(false);
    let db = dir.path().join("none.duckdb");
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |o| {
        o.metrics_interval = Some(Duration::from_secs(1));
    });
    assert!(rec.watched.wait(WAIT, |s| s.usage.as_ref().is_some_and(|u| u.takes >= 3)), "three takes");
    let notes = rec.watched.seen().usage_notes;
    let report = rec.stop();
    assert_eq!(notes, ["metrics.k8s.io is not served (metrics-server not installed?): no usage samples"]);
    let usage = report.usage.expect("usage asked");
    assert_eq!((usage.not_served, usage.nodes, usage.added, usage.errors.len()), (true, 0, 0, 0));
    assert_eq!(report.status, kdrift_store::RunStatus::Ok, "{:?}", report.resources);
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.received, pods.added), (1, 1));
}

#[test]
fn record_says_a_metrics_item_error_once_not_every_take_and_caps_a_take_at_a_hundred() {
    // break-it 35 F6: 1,000 bad items gave 1,000 stored errors a take, forever.
    let kube = FakeKube::start();
    kube.create(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).expect("node");
    let names: Vec<String> = (0..150).map(|i| format!("bad-{i:03}")).collect();
    let mut items: Vec<(&str, &str, &str)> = vec![("node-1", "1500000000n", "2097152Ki")];
    items.extend(names.iter().map(|n| (n.as_str(), "x", "1Ki")));
    kube.set_node_metrics(&items);
    kube.set_pod_metrics(&[]);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |o| {
        o.metrics_interval = Some(Duration::from_secs(1));
    });
    assert!(rec.watched.wait(WAIT, |s| s.usage.as_ref().is_some_and(|u| u.takes >= 3)), "three takes");
    let report = rec.stop();
    let usage = report.usage.expect("usage sampled");
    assert!(usage.takes >= 3, "{usage:?}");
    assert_eq!((usage.nodes, usage.errors.len(), usage.error_total), (usage.takes, 101, 150 * usage.takes));
    assert!(usage.errors[100].starts_with("… and 50 more errors like these in "), "{}", usage.errors[100]);
    let store = Store::open(&db).expect("store");
    let stored: i64 = store
        .conn()
        .query_row("SELECT count(*) FROM ingest_errors WHERE message LIKE '%metrics.k8s.io%'", [], |r| r.get(0))
        .expect("errors");
    assert_eq!(stored, 101, "each error stored once, not once a take");
}

#[test]
fn failed_batch_commits_turn_healthz_to_503_after_three_and_end_the_recorder_after_ten() {
    use kdrift_ingest::RecorderStats;
    use kdrift_tests::recorder::http_get;
    let kube = FakeKube::start();
    kube.create(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).expect("node");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("rec.duckdb");
    {
        // A store broken under the recorder: every batch's derivation fails.
        let store = Store::open(&db).expect("store");
        store.conn().execute_batch("DROP TABLE pod_bindings").expect("drop");
    }
    let stats = Arc::new(RecorderStats::new(3));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("listen");
    let addr = listener.local_addr().expect("addr").to_string();
    let server = std::thread::spawn({
        let stats = Arc::clone(&stats);
        move || rt.block_on(kdrift_ingest::serve_recorder_metrics(listener, stats, None))
    });
    let shared = Arc::clone(&stats);
    let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), move |o| {
        o.stats = shared;
        o.batch_interval = Duration::from_secs(1);
        o.metrics_interval = None;
    });
    let deadline = std::time::Instant::now() + WAIT;
    while stats.failed_in_a_row() < 1 {
        assert!(std::time::Instant::now() < deadline, "no failed commit");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(http_get(&addr, "/healthz"), (200, "ok\n".to_string()), "1 or 2 failed commits");
    while stats.failed_in_a_row() < 3 {
        assert!(std::time::Instant::now() < deadline, "not 3 failed commits");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, body) = http_get(&addr, "/healthz");
    assert_eq!(code, 503, "{body}");
    let error = "batch commits failed; the last error: query clear_pod_bindings (derive/clear_pod_bindings.sql) failed";
    assert!(body.starts_with("unhealthy: the last ") && body.contains(error), "{body}");
    assert!(body.contains("pod_bindings does not exist"), "the driver's words: {body}");
    let ended = rec.ended();
    let e = ended.expect_err("the recorder ends with the store's error");
    assert!(e.starts_with("query clear_pod_bindings (derive/clear_pod_bindings.sql) failed"), "{e}");
    let s = stats.snapshot();
    assert_eq!((s.failed_commits, s.failed_in_a_row, s.commits), (10, 10, 0));
    assert_eq!(s.resources["nodes"].committed, 0, "nothing committed");
    let (_, text) = http_get(&addr, "/metrics");
    assert!(text.contains("\nkdrift_recorder_failed_commits_total 10\n"), "{text}");
    assert!(text.contains("\nkdrift_recorder_records_committed_total{resource=\"nodes\"} 0\n"), "{text}");
    drop(server);
}
