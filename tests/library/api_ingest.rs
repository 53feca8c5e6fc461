//! `kdrift ingest api` (the library's snapshot) against the fake API server:
//! loaded with the demo scenario as it stood during the Pending window, the
//! store answers `why-pending` for the CronJob pod exactly as the kubectl
//! dumps of the same instant do; a second snapshot adds nothing; a resource
//! the server refuses is a warning naming it while the others are stored;
//! against a hostile server, a page's bad items are skipped with an error
//! naming each `items[i]` while its good ones are stored, and a list the
//! server never answers fails that resource naming the server.

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};
use kdrift_analyze::why_pending;
use kdrift_ingest::{ingest_files, NoProgress};
use kdrift_ingest::{snapshot_cluster, ApiReport, ManualClock, Severity, SnapshotOptions};
use kdrift_rebalance::{ClusterOptions, Scope, DEFAULT_REQUEST_TIMEOUT};
use kdrift_scenario::{generate, Scenario, ScenarioConfig};
use kdrift_store::RunStatus;
use kdrift_store::Store;
use kdrift_tests::fake_kube::FakeKube;
use kdrift_tests::hostile_kube::{list_of, pod, Answer, HostileKube};
use kdrift_tests::temp_store;
use serde_json::Value;

fn take_snapshot(kube: &FakeKube, store: &Store, at: DateTime<Utc>, scope: Scope, page_size: u32) -> ApiReport {
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let c = opts.open().await.expect("connect");
        let options = SnapshotOptions {
            cluster: c.url.clone(),
            scope,
            page_size,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            max_page_bytes: kdrift_rebalance::MAX_PAGE_BYTES,
            interrupt: None,
            retry: kdrift_ingest::Retry { first_delay: Duration::from_millis(10), ..Default::default() },
        };
        snapshot_cluster(store, &c.client, &options, &ManualClock::new(at)).await.expect("snapshot")
    })
}

fn dump_store(scenario: &Scenario, at: DateTime<Utc>) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let paths: Vec<_> = scenario
        .to_kubectl_lists_at(at)
        .into_iter()
        .map(|(name, list)| {
            let p = dir.path().join(name);
            std::fs::write(&p, serde_json::to_vec(&list).expect("json")).expect("write");
            p
        })
        .collect();
    let (d, store) = temp_store();
    let report = ingest_files(&store, &paths, &mut NoProgress).expect("ingest");
    assert_eq!(report.error_count(), 0, "{:?}", report.files);
    drop(dir);
    (d, store)
}

/// The why-pending fields the issue compares: the node left, its free and
/// requested millicores, the excluded nodes, the first next step.
fn key_fields(r: &Value) -> Value {
    let s = &r["state"];
    serde_json::json!({
        "latest_message": r["latest_message"],
        "left": s["left"],
        "shortfalls": s["shortfalls"],
        "constraints": s["constraints"],
        "node_cpu": s["nodes"].as_array().map(|nodes| nodes.iter().map(|n| (n["name"].clone(), n["resources"].clone())).collect::<Vec<_>>()),
        "first_step": r["next_steps"][0],
        "reasons": r["reasons"],
        "total_nodes": r["total_nodes"],
        "matches_event": s["matches_event"],
    })
}

#[test]
fn a_snapshot_during_the_pending_window_gives_the_dump_files_answer() {
    let scenario = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let facts = scenario.facts.clone();
    let at = facts.failure_at + chrono::Duration::minutes(30);
    let kube = FakeKube::start();
    let loaded = kube.load_state_at(&scenario, Some(at));
    assert!(loaded > 100, "{loaded} objects");

    let (_d, store) = temp_store();
    let report = take_snapshot(&kube, &store, at, Scope::AllNamespaces, 100);
    assert_eq!(report.status, RunStatus::Ok, "{:?}", report.resources);
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(pods.received as usize, kube.objects("v1", "Pod").len());
    assert_eq!(pods.added, pods.received);
    let jobs = report.resources.iter().find(|r| r.resource == "jobs.batch").expect("jobs");
    assert!(jobs.received >= 1, "the owner chain kinds are listed too");

    let api =
        why_pending(&store, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let (_d2, dump) = dump_store(&scenario, at);
    let files =
        why_pending(&dump, &facts.pending_pod.namespace, &facts.pending_pod.name).expect("query").expect("report");
    let (api, files) = (serde_json::to_value(&api).expect("json"), serde_json::to_value(&files).expect("json"));
    assert_eq!(key_fields(&api), key_fields(&files));
    let s = &api["state"];
    assert_eq!(s["left"], serde_json::json!(["node-1"]));
    assert_eq!((s["shortfalls"][0]["free"].as_i64(), s["shortfalls"][0]["requested"].as_i64()), (Some(58), Some(100)));
    assert!(api["next_steps"][0]["action"].as_str().unwrap_or("").contains("at most 58m"), "{}", api["next_steps"][0]);
    // Everything else is identical too, but for one honest difference: the
    // snapshot was taken 30 minutes after the failure, so its node versions
    // are marked as observed after it, with a note (a dump carries no
    // observation time; its versions are dated by their newest timestamp).
    assert_eq!(s["nodes"][0]["estimated"], true);
    assert_eq!(files["state"]["nodes"][0]["estimated"], false);
    assert!(
        api["notes"][0].as_str().unwrap_or("").starts_with("node versions observed after the failure"),
        "{}",
        api["notes"]
    );
    assert_eq!(without_observation_marks(api), without_observation_marks(files));
}

/// The report without the marks that depend on when versions were observed.
fn without_observation_marks(mut r: Value) -> Value {
    for n in r["state"]["nodes"].as_array_mut().into_iter().flatten() {
        if let Some(m) = n.as_object_mut() {
            m.remove("estimated");
        }
    }
    r["notes"] = Value::Null;
    r
}

#[test]
fn the_same_snapshot_twice_adds_nothing_and_pages_with_continue_tokens() {
    let scenario = generate(&ScenarioConfig { seed: 4, scale: 1 });
    let kube = FakeKube::start();
    kube.load_final_state(&scenario);
    let (_d, store) = temp_store();
    let at = scenario.facts.end;
    let first = take_snapshot(&kube, &store, at, Scope::AllNamespaces, 7);
    assert!(first.counts.added > 100, "{:?}", first.counts);
    assert!(kube.requests().iter().any(|r| r.path == "/api/v1/pods" && r.query.contains("continue=")));
    let again = take_snapshot(&kube, &store, at, Scope::AllNamespaces, 7);
    assert_eq!(again.counts.added, 0, "{:?}", again.counts);
    assert_eq!(again.counts.records, first.counts.records);
}

#[test]
fn a_refused_resource_is_a_warning_naming_it_and_the_rest_is_stored() {
    let scenario = generate(&ScenarioConfig { seed: 5, scale: 1 });
    let kube = FakeKube::start();
    kube.load_final_state(&scenario);
    kube.fail_resource("poddisruptionbudgets.policy", 403);
    kube.hide_resource("events.events.k8s.io");
    let (_d, store) = temp_store();
    let report = take_snapshot(&kube, &store, scenario.facts.end, Scope::Namespace("media".into()), 500);
    assert_eq!(report.status, RunStatus::Partial);
    assert_eq!(report.warnings(), 2);
    assert_eq!(report.errors(), 0);
    let pdb = report.resources.iter().find(|r| r.resource == "poddisruptionbudgets.policy").expect("pdb");
    let p = pdb.problem.as_ref().expect("problem");
    assert_eq!(p.severity, Severity::Warning);
    assert!(
        p.message.contains("403 Forbidden")
            && p.message.contains("/apis/policy/v1/namespaces/media/poddisruptionbudgets"),
        "{}",
        p.message
    );
    let ev = report.resources.iter().find(|r| r.resource == "events.events.k8s.io").expect("events");
    assert!(ev.problem.as_ref().is_some_and(|p| p.message.contains("404")), "{:?}", ev.problem);
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let media_pods = kube.objects("v1", "Pod").iter().filter(|p| p["metadata"]["namespace"] == "media").count();
    assert_eq!(pods.received as usize, media_pods, "only namespace media");
    let nodes = report.resources.iter().find(|r| r.resource == "nodes").expect("nodes");
    assert_eq!(nodes.received, 5, "cluster-scoped resources are read whatever the namespace");
}

/// Issue 34 C (break-it LOW 13): a key written twice inside an item of a
/// list response (not at a document's top level) was read silently, the
/// last value winning. That item is now an item error naming the key's
/// path; the items around it, on the same page and on the next, are
/// stored.
#[test]
fn a_list_item_holding_a_nested_key_twice_is_an_item_error_and_its_neighbours_are_stored() {
    let kube = FakeKube::start();
    for (name, app) in [("web-0", "web"), ("web-1", "dup"), ("web-2", "web")] {
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "media", "labels": {"app": app}},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "nginx"}]}});
        kube.create(pod).expect("create");
    }
    // A broken proxy writes web-1's label twice.
    kube.rewrite_lists("\"app\":\"dup\"", "\"app\":\"web\",\"app\":\"dup\"");
    let (_d, store) = temp_store();
    let report = take_snapshot(&kube, &store, Utc::now(), Scope::AllNamespaces, 2);
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(pods.received, 2, "{:?}", pods.item_errors);
    assert_eq!(pods.item_errors.len(), 1, "{:?}", pods.item_errors);
    assert!(
        pods.item_errors[0].ends_with(
            "items[1] (media/web-1): the key \"app\" appears twice in one object (at metadata.labels.app; which \
             value is meant is unknown); the item is skipped, the page's other items are kept"
        ),
        "{}",
        pods.item_errors[0]
    );
    let names: Vec<String> = store
        .conn()
        .prepare("SELECT name FROM observations WHERE kind = 'Pod' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("names");
    assert_eq!(names, ["web-0", "web-2"]);
}

#[test]
fn an_interrupt_before_the_final_commits_statements_rolls_the_snapshot_back_and_closes_its_run_as_failed() {
    // DuckDB's interrupt stops only a running statement: a signal between
    // two of the commit's statements was lost and the run kept (CI: 5
    // tries out of 5). The commit asks the interrupt before each one.
    let kube = FakeKube::start();
    for name in ["web-0", "web-1"] {
        kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "media"},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "nginx"}]}}))
            .expect("create");
    }
    let (_d, store) = temp_store();
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let interrupt = kdrift_ingest::Interrupt::new();
    interrupt.trigger();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let taken = rt.block_on(async {
        let c = opts.open().await.expect("connect");
        let options = SnapshotOptions {
            cluster: c.url.clone(),
            scope: Scope::AllNamespaces,
            page_size: 500,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            max_page_bytes: kdrift_rebalance::MAX_PAGE_BYTES,
            interrupt: Some(interrupt),
            retry: kdrift_ingest::Retry { first_delay: Duration::from_millis(10), ..Default::default() },
        };
        snapshot_cluster(&store, &c.client, &options, &ManualClock::new(Utc::now())).await
    });
    assert!(matches!(taken, Err(kdrift_store::StoreError::Interrupted)), "{taken:?}");
    let counts = store.counts().expect("counts");
    assert_eq!(counts.observations, 0, "nothing of the two pods kept");
    let status: String =
        store.conn().query_row("SELECT status FROM ingest_runs", [], |r| r.get(0)).expect("the one run");
    assert_eq!(status, "failed");
}

#[test]
fn a_list_item_with_an_identity_field_of_the_wrong_type_is_an_item_error_naming_field_and_type() {
    // Break-it 34 L2 (r5.sh itembadrv): `metadata.uid: 7` was stored with a null uid.
    let kube = FakeKube::start();
    for (name, namespace, uid) in
        [("web-0", "media", "u0"), ("web-1", "media", "uid-seven"), ("web-2", "nsseven", "u2")]
    {
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": uid},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "nginx"}]}});
        kube.create(pod).expect("create");
    }
    kube.rewrite_lists("\"uid\":\"uid-seven\"", "\"uid\":7");
    kube.rewrite_lists("\"namespace\":\"nsseven\"", "\"namespace\":7");
    let (_d, store) = temp_store();
    let report = take_snapshot(&kube, &store, Utc::now(), Scope::AllNamespaces, 2);
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(pods.received, 1, "{:?}", pods.item_errors);
    let mut tails: Vec<&str> =
        pods.item_errors.iter().map(|e| e.split_once(" (items[").map_or(e.as_str(), |(_, tail)| tail)).collect();
    tails.sort_unstable();
    assert_eq!(
        tails,
        [
            "1]): Pod media/web-1: metadata.uid: expected a string, found the number 7",
            "2]): Pod web-2: metadata.namespace: expected a string, found the number 7",
        ]
    );
    assert!(pods.item_errors.iter().all(|e| e.contains("/api/v1/pods (items[")), "{:?}", pods.item_errors);
    let names: Vec<String> = store
        .conn()
        .prepare("SELECT name FROM observations WHERE kind = 'Pod' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("names");
    assert_eq!(names, ["web-0"]);
}

#[test]
fn a_resources_item_errors_past_100_are_counted_and_said_once() {
    // Break-it 34 M1 for `ingest api`: every bad item's error was kept and printed.
    let items: Vec<Vec<u8>> = (0..252)
        .map(|i| {
            let good = pod(i, 10 + i);
            if i == 0 || i == 251 { good } else { good.replace(&format!("\"uid-p{i}\""), "7") }.into_bytes()
        })
        .collect();
    let page = list_of("PodList", &items);
    let kube = HostileKube::start(move |t| t.starts_with("/api/v1/pods?").then(|| Answer::Body(page.clone())));
    let dir = tempfile::tempdir().expect("tmp");
    let (report, _) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(pods.received, 2);
    assert_eq!((pods.item_errors.len(), pods.item_errors_not_kept, pods.item_error_total()), (101, 150, 250));
    assert!(
        pods.item_errors[99]
            .ends_with("(items[100]): Pod default/p100: metadata.uid: expected a string, found the number 7"),
        "{}",
        pods.item_errors[99]
    );
    assert_eq!(
        pods.item_errors[100],
        format!(
            "… and 150 more errors like these in {} (only the first 100 are shown and stored; the others are counted)",
            pods.location
        )
    );
    let problems: usize =
        report.resources.iter().filter(|r| r.problem.as_ref().is_some_and(|p| p.severity == Severity::Error)).count();
    assert_eq!(report.errors(), problems + 250);
}

/// Takes a snapshot of the server `kubeconfig` points at into a fresh store,
/// in its own thread: the report and the store's observation count, or
/// `None` when it did not end within `bound` (the test's own timeout).
fn bounded_snapshot(kubeconfig: PathBuf, request_timeout: Duration, bound: Duration) -> Option<(ApiReport, i64)> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (_dir, store) = temp_store();
        let opts = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let report = rt.block_on(async {
            let c = opts.open().await.expect("connect");
            let options = SnapshotOptions {
                cluster: c.url.clone(),
                scope: Scope::AllNamespaces,
                page_size: 500,
                request_timeout,
                max_page_bytes: kdrift_rebalance::MAX_PAGE_BYTES,
                interrupt: None,
                retry: kdrift_ingest::Retry { first_delay: Duration::from_millis(10), ..Default::default() },
            };
            snapshot_cluster(&store, &c.client, &options, &ManualClock::new(Utc::now())).await.expect("snapshot")
        });
        let _ = tx.send((report, store.counts().expect("counts").observations));
    });
    rx.recv_timeout(bound).ok()
}

/// Ten pods; items[3] has invalid UTF-8 in its image, items[5] is a
/// number, items[7] has an array for metadata.
fn page_with_three_bad_items() -> (Vec<u8>, usize) {
    let mut items: Vec<Vec<u8>> = (0..10).map(|i| pod(i, 10 + i).into_bytes()).collect();
    items[3] = pod(3, 13).replace("img:1", "img:\u{1}").into_bytes();
    let bad_byte = items[3].iter().position(|b| *b == 1).expect("marker");
    items[3][bad_byte] = 0xff;
    items[5] = b"7".to_vec();
    items[7] = pod(7, 17).replacen(r#""metadata":{"#, r#""metadata":["x"],"m":{"#, 1).into_bytes();
    (list_of("PodList", &items), bad_byte)
}

#[test]
fn a_bad_item_of_a_page_is_skipped_and_the_pages_other_items_are_stored() {
    // One bad item lost the whole page: invalid UTF-8 made the body "not JSON" (issue 34).
    let (page, bad_byte) = page_with_three_bad_items();
    let kube = HostileKube::start(move |t| t.starts_with("/api/v1/pods?").then(|| Answer::Body(page.clone())));
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.received, pods.added, observations), (7, 7, 7));
    let at = format!("pods: page 1 of {}/api/v1/pods", kube.url());
    let skipped = "the item is skipped, the page's other items are kept";
    assert_eq!(
        pods.item_errors,
        [
            format!("{at}, items[3] (default/p3): not valid UTF-8 (byte {bad_byte} of the item); expected UTF-8 JSON; {skipped}"),
            format!("{at}, items[5]: expected a Kubernetes object (a JSON object), found a number; {skipped}"),
            format!(
                "{at}, items[7]: metadata is an array, expected an object (name, namespace, resourceVersion…); {skipped}"
            ),
        ]
    );
    assert!(pods.problem.is_none(), "{pods:?}");
    assert_eq!((report.status, report.errors()), (RunStatus::Partial, 3));
}

#[test]
fn a_server_that_never_answers_a_list_fails_that_resource_naming_the_server() {
    // A list the server never answered held `ingest api` forever (issue 34).
    let kube = HostileKube::start(|t| {
        if t.starts_with("/api/v1/pods?") {
            Some(Answer::Silent)
        } else if t.starts_with("/api/v1/nodes?") {
            Some(Answer::HeadersOnly)
        } else {
            None
        }
    });
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(1), Duration::from_secs(60))
            .expect("the snapshot ended within 60 s with a 1 s request timeout");
    let message = |name: &str| {
        let r = report.resources.iter().find(|r| r.resource == name).expect("resource");
        r.problem.as_ref().map(|p| (p.severity, p.message.clone()))
    };
    let url = kube.url();
    assert_eq!(
        message("pods"),
        Some((
            Severity::Error,
            format!(
                "pods: {url} sent nothing for 1 s while kdrift waited for the list's answer; given up (/api/v1/pods)"
            )
        ))
    );
    assert_eq!(
        message("nodes"),
        Some((
            Severity::Error,
            format!("nodes: {url} sent nothing for 1 s while kdrift waited for the rest of the list; given up (/api/v1/nodes)")
        ))
    );
    assert_eq!(message("namespaces"), None);
    assert_eq!((report.status, report.errors(), observations), (RunStatus::Partial, 2, 0));
}

/// A server that accepts every connection and answers nothing cost one
/// request timeout per resource, one after another (13 of them): after
/// three resources in a row got nothing, the others are not asked.
#[test]
fn after_three_silent_resources_the_others_are_not_asked() {
    let kube = HostileKube::start(|_| Some(Answer::Silent));
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(1), Duration::from_secs(30))
            .expect("the snapshot ended within 30 s with a 1 s request timeout");
    let problems: Vec<String> =
        report.resources.iter().map(|r| r.problem.as_ref().map(|p| p.message.clone()).unwrap_or_default()).collect();
    assert_eq!(problems.len(), 13, "{problems:?}");
    let url = kube.url();
    assert_eq!(
        problems[0],
        format!(
            "namespaces: {url} sent nothing for 1 s while kdrift waited for the list's answer; given up \
             (/api/v1/namespaces)"
        )
    );
    assert!(problems[1..3].iter().all(|p| p.contains("sent nothing for 1 s")), "{problems:?}");
    assert_eq!(
        problems[3],
        "poddisruptionbudgets.policy: not asked: the server sent nothing to the 3 resources before it within 1 s \
         each; kdrift gave up on the rest (raise --request-timeout if the server is only slow)"
    );
    assert_eq!(problems[3..].iter().filter(|p| p.contains(": not asked: ")).count(), 10, "{problems:?}");
    assert_eq!((report.status, report.errors(), observations), (RunStatus::Failed, 13, 0));
}

/// A server sending the pods list one byte every 100 ms, never 300 ms
/// silent: the request timeout (between two pieces) never ran out and
/// `ingest api` ran on indefinitely (break-it, issue 34). One page may
/// take 10 request timeouts in all.
#[test]
fn a_list_page_sent_too_slowly_fails_that_resource_after_ten_request_timeouts() {
    let list = list_of("PodList", &[pod(0, 10).into_bytes(), pod(1, 11).into_bytes()]);
    let kube = HostileKube::start(move |t| {
        t.starts_with("/api/v1/pods?").then(|| Answer::Drip(list.clone(), Duration::from_millis(100)))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let started = std::time::Instant::now();
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_millis(300), Duration::from_secs(30))
            .expect("the snapshot ended within 30 s with a 0.3 s request timeout");
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let url = kube.url();
    assert_eq!(
        pods.problem.as_ref().map(|p| (p.severity, p.message.clone())),
        Some((
            Severity::Error,
            format!(
                "pods: {url} did not send one whole list page within 3 s (10 × the request timeout: it kept \
                 sending, too slowly); given up (/api/v1/pods)"
            )
        ))
    );
    assert_eq!((report.status, report.errors(), observations), (RunStatus::Partial, 1, 0));
}

/// A pod list page (resourceVersion 100) of pods `p{from}`… with this
/// continue token.
fn page_of(pods: std::ops::Range<u32>, token: &str) -> Vec<u8> {
    let items: Vec<String> = pods.map(|i| pod(i, 10 + i)).collect();
    format!(
        r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"100","continue":"{token}"}},"items":[{}]}}"#,
        items.join(",")
    )
    .into_bytes()
}

#[test]
fn a_page_repeating_the_continue_token_is_kept_and_paging_stops_with_an_error() {
    // Break-it 32 N5 (a): page 2 repeating page 1's token lost page 2's 5 items.
    let kube = HostileKube::start(|t| {
        t.starts_with("/api/v1/pods?")
            .then(|| Answer::Body(page_of(if t.contains("continue=") { 5..10 } else { 0..5 }, "tok2")))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.received, pods.added, observations), (10, 10, 10));
    let problem = pods.problem.as_ref().expect("an error").message.clone();
    assert!(
        problem.contains(
            "the server returned the same continue token again (\"tok2\") on page 2: its items are kept, paging \
             stops there (the rest of the list is not read)"
        ),
        "{problem}"
    );
    assert_eq!(kube.requests().iter().filter(|r| r.starts_with("/api/v1/pods?")).count(), 2);
}

#[test]
fn a_page_cut_mid_body_keeps_its_complete_items_and_the_cut_is_an_error() {
    // Break-it 32 N5 (b): a page whose connection closed mid-body lost all of it.
    let page = page_of(0..10, "");
    let cut = String::from_utf8_lossy(&page).find(r#""name":"p7""#).expect("p7");
    let kube = HostileKube::start(move |t| {
        t.starts_with("/api/v1/pods?").then(|| Answer::Cut(page[..cut].to_vec(), page.len()))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.received, pods.added, observations), (7, 7, 7));
    assert_eq!(
        pods.item_errors,
        [format!(
            "pods: page 1 of {}/api/v1/pods, the answer stopped after {cut} bytes, inside the page: its 7 complete \
             items before the cut are kept, the rest of the list is not read",
            kube.url()
        )]
    );
    assert!(pods.problem.is_some(), "{pods:?}");
}

/// Break-it 42 M1: a page whose own fields (outside `items`) were broken
/// lost all its items (0 of 30 in `ingest api`; `record` asked it again and
/// again and stored none).
#[test]
fn a_page_with_broken_fields_outside_its_items_keeps_its_items() {
    // The metadata after the items lost its `:`: no snapshot, no continue
    // token — the 10 items are kept and the list stops, an error.
    let items: Vec<String> = (0..10).map(|i| pod(i, 10 + i)).collect();
    let tailbad = format!(
        r#"{{"kind":"PodList","apiVersion":"v1","items":[{}],"metadata":{{"resourceVersion" "100"}}}}"#,
        items.join(",")
    )
    .into_bytes();
    let kube = HostileKube::start(move |t| t.starts_with("/api/v1/pods?").then(|| Answer::Body(tailbad.clone())));
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.received, pods.added, observations), (10, 10, 10));
    assert_eq!(pods.item_errors.len(), 1, "{:?}", pods.item_errors);
    assert!(
        pods.item_errors[0]
            .contains("the list's own fields (outside `items`) are not valid JSON (expected `:` at line 1 column")
            && pods.item_errors[0].ends_with("its 10 items are kept; not read: `metadata`"),
        "{:?}",
        pods.item_errors
    );
    let problem = pods.problem.as_ref().expect("an error").message.clone();
    assert!(problem.contains("page 1's metadata could not be read"), "{problem}");

    // `"kind" "PodList"` before the items: the metadata is read, so paging
    // goes on to page 2; the damage is the page's error.
    let kube = HostileKube::start(|t| {
        t.starts_with("/api/v1/pods?").then(|| {
            let page = page_of(
                if t.contains("continue=") { 5..10 } else { 0..5 },
                if t.contains("continue=") { "" } else { "tok2" },
            );
            let page = String::from_utf8(page).expect("utf8");
            Answer::Body(
                if t.contains("continue=") { page } else { page.replacen(r#""kind":"#, r#""kind" "#, 1) }.into_bytes(),
            )
        })
    });
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.received, pods.added, observations), (10, 10, 10));
    assert_eq!(pods.item_errors.len(), 1, "{:?}", pods.item_errors);
    assert!(pods.item_errors[0].starts_with("pods: page 1 of "), "{:?}", pods.item_errors);
    assert!(pods.item_errors[0].ends_with("its 5 items are kept"), "{:?}", pods.item_errors);
    assert_eq!(kube.requests().iter().filter(|r| r.starts_with("/api/v1/pods?")).count(), 2);
}

#[test]
fn a_410_on_a_continue_token_lists_again_whole_without_limit() {
    // Break-it 32 N5 (c): the list restarted with the same limit, met the
    // same 410 and stored 5 of 10; client-go's pager lists whole instead.
    let kube = HostileKube::start(|t| {
        if !t.starts_with("/api/v1/pods") {
            return None;
        }
        Some(match (t.contains("limit="), t.contains("continue=")) {
            (true, true) => Answer::Expired,
            (true, false) => Answer::Body(page_of(0..5, "tok2")),
            (false, _) => Answer::Body(page_of(0..10, "")),
        })
    });
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.added, observations), (10, 10));
    assert!(pods.problem.is_none(), "{pods:?}");
    let asked: Vec<String> = kube.requests().into_iter().filter(|r| r.starts_with("/api/v1/pods")).collect();
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert!(!asked[2].contains("limit="), "{asked:?}");
}

/// Break-it 41 G12: one 500 on page 2 of a list ended the resource (5 of
/// 10 kept, exit 2) while `record` retried. A page failed transiently (a
/// 5xx, a 429, a connection closed once the server has answered) is
/// asked again with the same continue token; a page failing every
/// attempt ends the list with the attempts said, page 1's items kept.
#[test]
fn a_page_failed_transiently_is_asked_again_with_the_same_continue_token() {
    use std::sync::atomic::{AtomicU32, Ordering};
    for (fault, failures) in
        [(Answer::Status(500), 1), (Answer::Status(429), 2), (Answer::Closed, 1), (Answer::Status(503), 3)]
    {
        let (failed, served) = (AtomicU32::new(0), fault.clone());
        let kube = HostileKube::start(move |t| {
            if !t.starts_with("/api/v1/pods?") {
                return None;
            }
            Some(if !t.contains("continue=") {
                Answer::Body(page_of(0..5, "tok2"))
            } else if failed.fetch_add(1, Ordering::SeqCst) < failures {
                served.clone()
            } else {
                Answer::Body(page_of(5..10, ""))
            })
        });
        let dir = tempfile::tempdir().expect("tmp");
        let (report, observations) =
            bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
                .expect("the snapshot ended");
        let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
        assert_eq!((pods.added, observations), (10, 10), "{fault:?}: {pods:?}");
        assert!(pods.problem.is_none(), "{pods:?}");
        let asked: Vec<String> = kube.requests().into_iter().filter(|r| r.starts_with("/api/v1/pods")).collect();
        assert_eq!(asked.len(), 2 + failures as usize, "{asked:?}");
        assert!(asked[1..].iter().all(|r| r.contains("continue=tok2")), "{asked:?}");
    }
    // Every attempt fails: 4 asks of page 2, page 1's 5 pods kept, the attempts said.
    let kube = HostileKube::start(|t| {
        t.starts_with("/api/v1/pods?").then(|| {
            if t.contains("continue=") {
                Answer::Status(500)
            } else {
                Answer::Body(page_of(0..5, "tok2"))
            }
        })
    });
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.added, observations), (5, 5));
    let problem = pods.problem.as_ref().expect("the list failed");
    assert_eq!(
        problem.message,
        "pods: the server answered 500 InternalError: transient failure (/api/v1/pods); given up after 4 attempts \
         (--attempts)"
    );
    assert_eq!(kube.requests().iter().filter(|r| r.contains("continue=tok2")).count(), 4);
    // A 4xx is not asked again.
    let kube = HostileKube::start(|t| {
        t.starts_with("/api/v1/pods?").then(|| {
            if t.contains("continue=") {
                Answer::Status(400)
            } else {
                Answer::Body(page_of(0..5, "tok2"))
            }
        })
    });
    let (report, _) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(kube.requests().iter().filter(|r| r.contains("continue=tok2")).count(), 1);
    assert!(pods.problem.as_ref().is_some_and(|p| !p.message.contains("attempts")), "{pods:?}");
}

#[test]
fn continue_tokens_that_go_round_in_a_cycle_end_the_list_keeping_its_items() {
    // Break-it 34 H3: tokA → tokB → tokA … paged forever (~100 requests in 5 s).
    let kube = HostileKube::start(|t| {
        if !t.starts_with("/api/v1/pods?") {
            return None;
        }
        Some(Answer::Body(if t.contains("continue=tokA") {
            page_of(3..6, "tokB")
        } else if t.contains("continue=tokB") {
            page_of(6..9, "tokA")
        } else {
            page_of(0..3, "tokA")
        }))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!((pods.received, pods.added, observations), (9, 9, 9));
    let problem = pods.problem.as_ref().expect("an error").message.clone();
    assert!(
        problem.contains(
            "the server returned on page 3 the continue token page 1 already returned (\"tokA\"): the tokens go \
             round in a cycle; the items of the 3 pages are kept, paging stops there (the rest of the list is not \
             read)"
        ),
        "{problem}"
    );
    assert!(problem.starts_with("pods: "), "{problem}");
    assert_eq!(kube.requests().iter().filter(|r| r.starts_with("/api/v1/pods?")).count(), 3);
}

#[test]
fn a_list_of_endless_new_continue_tokens_ends_at_the_page_bound_keeping_its_items() {
    // Break-it 34 H3 (pages.py endless): every page a new token, forever.
    use kdrift_rebalance::{ClusterOptions as Options, ListPager, HISTORY_RESOURCES};
    let kube = HostileKube::start(|t| {
        let n: u32 = t.split("continue=tok").nth(1).and_then(|r| r.split('&').next()?.parse().ok()).unwrap_or(0);
        t.starts_with("/api/v1/pods?").then(|| Answer::Body(page_of(n * 2..n * 2 + 2, &format!("tok{}", n + 1))))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let opts = Options { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let pods = HISTORY_RESOURCES.iter().find(|r| r.kind == "Pod").expect("pods");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let (names, error) = rt.block_on(async {
        let client = opts.connect().await.expect("client");
        let mut pager = ListPager::new(client, pods, &Scope::AllNamespaces, 2).with_max_pages(4);
        let mut names = Vec::new();
        loop {
            match pager.next_page().await {
                Ok(Some(page)) => names.extend(page.items.iter().map(|i| i["metadata"]["name"].to_string())),
                Ok(None) => return (names, None),
                Err(e) => return (names, Some(e.to_string())),
            }
        }
    });
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(kdrift_rebalance::MAX_PAGES, 100_000);
    let error = error.expect("an error");
    assert!(
        error.contains(
            "the list did not end after 4 pages (at most 4; every page gave a new continue token): the items of \
             the 4 pages are kept, paging stops there (the rest of the list is not read)"
        ),
        "{error}"
    );
    assert_eq!(kube.requests().iter().filter(|r| r.starts_with("/api/v1/pods?")).count(), 4);
}

/// Every page of `pager`: the items' names and the error that ended it.
async fn read_pages(mut pager: kdrift_rebalance::ListPager) -> (Vec<String>, Option<String>) {
    let mut names = Vec::new();
    loop {
        match pager.next_page().await {
            Ok(Some(page)) => names.extend(page.items.iter().map(|i| i["metadata"]["name"].to_string())),
            Ok(None) => return (names, None),
            Err(e) => return (names, Some(e.to_string())),
        }
    }
}

#[test]
fn a_list_of_endless_new_continue_tokens_ends_at_the_lists_time_bound_keeping_its_items() {
    // Break-it 34 H3 (pages.py endless): 100,000 pages took ~80 min; the
    // whole list is bounded by 30 request timeouts (here 0.2 s → 6 s).
    use kdrift_rebalance::{ClusterOptions as Options, Deadlines, ListPager, HISTORY_RESOURCES, LIST_BOUND_FACTOR};
    let kube = HostileKube::start(|t| {
        let n: u32 = t.split("continue=tok").nth(1).and_then(|r| r.split('&').next()?.parse().ok()).unwrap_or(0);
        t.starts_with("/api/v1/pods?").then(|| Answer::Body(page_of(n * 2..n * 2 + 2, &format!("tok{}", n + 1))))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let opts = Options { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let pods = HISTORY_RESOURCES.iter().find(|r| r.kind == "Pod").expect("pods");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let started = std::time::Instant::now();
    let (names, error) = rt.block_on(async {
        let client = opts.connect().await.expect("client");
        let deadlines = Deadlines::new("", Duration::from_millis(200));
        read_pages(ListPager::new(client, pods, &Scope::AllNamespaces, 2).with_deadlines(deadlines)).await
    });
    let took = started.elapsed();
    assert_eq!(LIST_BOUND_FACTOR, 30);
    assert!((Duration::from_secs(6)..Duration::from_secs(60)).contains(&took), "{took:?}");
    let error = error.expect("an error");
    let pages = names.len() / 2;
    assert!(pages > 1, "{pages}");
    assert_eq!(
        error,
        format!(
            "pods: unexpected response from /api/v1/pods: the list did not end within 6 s (30 times \
             --request-timeout, 0.2 s): the items of the {pages} pages read are kept, paging stops there (the rest \
             of the list is not read)"
        )
    );
    // Every page's two pods, in order.
    assert_eq!(names.last().map(String::as_str), Some(format!("\"p{}\"", pages * 2 - 1).as_str()));
    assert_eq!(kube.requests().iter().filter(|r| r.starts_with("/api/v1/pods?")).count(), pages);
}

#[test]
fn a_list_of_empty_pages_with_new_continue_tokens_stops_after_100_in_a_row() {
    // A page of 2 pods, then empty pages, each with a new token, forever.
    use kdrift_rebalance::{ClusterOptions as Options, ListPager, HISTORY_RESOURCES, MAX_EMPTY_PAGES};
    let kube = HostileKube::start(|t| {
        let n: u32 = t.split("continue=tok").nth(1).and_then(|r| r.split('&').next()?.parse().ok()).unwrap_or(0);
        let pods = if n == 0 { 0..2 } else { 0..0 };
        t.starts_with("/api/v1/pods?").then(|| Answer::Body(page_of(pods, &format!("tok{}", n + 1))))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let opts = Options { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let pods = HISTORY_RESOURCES.iter().find(|r| r.kind == "Pod").expect("pods");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let (names, error) = rt.block_on(async {
        let client = opts.connect().await.expect("client");
        read_pages(ListPager::new(client, pods, &Scope::AllNamespaces, 2)).await
    });
    assert_eq!(MAX_EMPTY_PAGES, 100);
    assert_eq!(names, ["\"p0\"", "\"p1\""]);
    assert_eq!(
        error.as_deref(),
        Some(
            "pods: unexpected response from /api/v1/pods: 100 pages in a row up to page 101 held no item yet gave a \
             new continue token (at most 100): the items of the 101 pages are kept, paging stops there (the rest of \
             the list is not read)"
        )
    );
    assert_eq!(kube.requests().iter().filter(|r| r.starts_with("/api/v1/pods?")).count(), 101);
}

#[test]
fn an_error_answer_without_end_is_read_up_to_its_cap_and_cut_in_the_message() {
    // Break-it 34 H5: a 400 body was read and printed whole (an endless one
    // reached 4.2 GB in 15 s).
    let kube = HostileKube::start(|t| {
        t.starts_with("/api/v1/pods?").then(|| Answer::Endless(400, b"bad request: ".repeat(500)))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let (report, observations) =
        bounded_snapshot(kube.write_kubeconfig(dir.path()), Duration::from_secs(10), Duration::from_secs(60))
            .expect("the snapshot ended");
    let pods = report.resources.iter().find(|r| r.resource == "pods").expect("pods");
    let message = pods.problem.as_ref().expect("an error").message.clone();
    let limit = kdrift_rebalance::ERROR_BODY_LIMIT;
    assert_eq!(limit, 4096);
    assert!(message.contains("bad request: bad request: "), "{message}");
    let end = format!(" bytes: only its first {limit} characters are shown, the rest is not read] (/api/v1/pods)");
    let read: usize = message
        .strip_suffix(&end)
        .and_then(|m| m.rsplit_once("re… [the answer went on past "))
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", &message[message.len().saturating_sub(300)..]));
    // 4 × the limit, plus what redaction must see past the cut.
    assert!((limit * 4..limit * 4 + 1_000_000).contains(&read), "{read}");
    assert!(message.len() < limit + 400, "{} bytes", message.len());
    assert_eq!(observations, 0);
}

#[test]
fn a_list_page_without_end_stops_at_the_page_cap_keeping_its_complete_items() {
    // Break-it 34 H6: `{"items":[` and spaces without end grew to 6 GB in 25 s
    // (the request timeout never ran out while bytes kept coming).
    use kdrift_rebalance::{ClusterOptions as Options, ListPager, HISTORY_RESOURCES, MAX_PAGE_BYTES};
    let mut page = list_of("PodList", &[pod(0, 10).into_bytes(), pod(1, 11).into_bytes()]);
    page.truncate(page.len() - 2);
    page.push(b',');
    let kube = HostileKube::start(move |t| t.starts_with("/api/v1/pods?").then(|| Answer::Endless(200, page.clone())));
    let dir = tempfile::tempdir().expect("tmp");
    let opts = Options { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let pods = HISTORY_RESOURCES.iter().find(|r| r.kind == "Pod").expect("pods");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let (names, error) = rt.block_on(async {
        let client = opts.connect().await.expect("client");
        let mut pager = ListPager::new(client, pods, &Scope::AllNamespaces, 500).with_max_page_bytes(1 << 20);
        let mut names = Vec::new();
        loop {
            match pager.next_page().await {
                Ok(Some(page)) => names.extend(page.items.iter().map(|i| i["metadata"]["name"].to_string())),
                Ok(None) => return (names, None),
                Err(e) => return (names, Some(e.to_string())),
            }
        }
    });
    assert_eq!(names, ["\"p0\"", "\"p1\""]);
    assert_eq!(
        error.as_deref(),
        Some(
            "pods: unexpected response from /api/v1/pods: the answer goes on past 1048576 bytes (1 MiB), the most \
             kdrift reads of one answer: the rest is not read (raise --max-page-bytes)"
        )
    );
    assert_eq!(MAX_PAGE_BYTES, 256 << 20);
}

/// The `usage_samples` rows of `store` as (object, sampled_at, cpu
/// millicores, memory bytes, source), in the query's order.
fn usage_rows(store: &Store) -> Vec<(String, String, i64, i64, String)> {
    let params = [
        ("since_us".to_string(), "2000-01-01T00:00:00Z".to_string()),
        ("until_us".to_string(), "2100-01-01T00:00:00Z".to_string()),
    ];
    let rows = kdrift_store::run_query(store, "usage_samples", &params).expect("query");
    rows.rows
        .iter()
        .map(|r| {
            let s = |i: usize| r[i].as_str().unwrap_or_default().to_string();
            let object = if s(1) == "node" { s(2) } else { format!("{}/{}", s(3), s(4)) };
            (object, s(0), r[5].as_i64().unwrap_or(-1), r[6].as_i64().unwrap_or(-1), s(7))
        })
        .collect()
}

#[test]
fn ingest_api_takes_one_sample_of_node_and_pod_metrics_at_their_timestamp_and_once() {
    let kube = FakeKube::start();
    kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).expect("node");
    kube.set_node_metrics(&[("node-1", "1500000000n", "2097152Ki"), ("node-2", "123456789n", "123456Ki")]);
    kube.set_pod_metrics(&[(
        "web",
        "api-1",
        &[("app", "100500000n", "1234Ki"), ("sidecar", "100500000n", "1024Ki")][..],
    )]);
    let at: DateTime<Utc> = "2026-11-13T00:00:05Z".parse().expect("time");
    kube.set_metrics_timestamp(Some(at));
    let (_d, store) = temp_store();
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let sample = || {
        rt.block_on(async {
            let c = opts.open().await.expect("connect");
            let source = kdrift_ingest::MetricsSource {
                cluster: c.url.clone(),
                scope: Scope::AllNamespaces,
                request_timeout: DEFAULT_REQUEST_TIMEOUT,
                max_page_bytes: kdrift_rebalance::MAX_PAGE_BYTES,
            };
            kdrift_ingest::sample_metrics(&store, &c.client, &source).await.expect("sample")
        })
    };
    let first = sample();
    assert_eq!(
        (first.takes, first.nodes, first.pods, first.added, first.duplicates, first.not_served),
        (1, 2, 1, 3, 0, false)
    );
    assert_eq!(first.errors, Vec::<String>::new());
    let t = "2026-11-13T00:00:05Z".to_string();
    let row = |o: &str, cpu: i64, mem: i64| (o.to_string(), t.clone(), cpu, mem, "metrics-api".to_string());
    let expected = [
        // 1.5 cores, 2 GiB; 123456789n rounds up to 124m; the pod is its two containers summed.
        row("node-1", 1500, 2 << 30),
        row("node-2", 124, 123_456 * 1024),
        row("web/api-1", 201, (1234 + 1024) * 1024),
    ];
    assert_eq!(usage_rows(&store), expected);
    // The same reading again (metrics-server has not scraped since): nothing new.
    let again = sample();
    assert_eq!((again.added, again.duplicates), (0, 3));
    assert_eq!(usage_rows(&store), expected);
    // Without metrics-server: said, nothing stored, no error.
    kube.serve_metrics(false);
    let none = sample();
    assert_eq!((none.not_served, none.nodes, none.added, none.errors.len()), (true, 0, 0, 0));
    assert_eq!(usage_rows(&store).len(), 3);
    assert_eq!(
        kdrift_ingest::METRICS_NOT_SERVED,
        "metrics.k8s.io is not served (metrics-server not installed?): no usage samples"
    );
}

#[test]
fn metrics_item_errors_past_the_first_hundred_are_counted_and_the_page_cap_applies_to_both_lists() {
    // break-it 35 F6 (200,000 bad items: 200,000 errors printed and stored) and F7 (--max-page-bytes ignored).
    let kube = FakeKube::start();
    let names: Vec<String> = (0..250).map(|i| format!("bad-{i:03}")).collect();
    let mut items: Vec<(&str, &str, &str)> = vec![("node-1", "1500000000n", "2097152Ki")];
    items.extend(names.iter().map(|n| (n.as_str(), "x", "1Ki")));
    kube.set_node_metrics(&items);
    let containers: Vec<(String, String)> = (0..40).map(|i| (format!("c{i}"), format!("{i}m"))).collect();
    let containers: Vec<(&str, &str, &str)> = containers.iter().map(|(c, m)| (c.as_str(), m.as_str(), "1Ki")).collect();
    kube.set_pod_metrics(&[("web", "api-1", &containers[..])]);
    kube.set_metrics_timestamp(Some("2026-11-13T00:00:05Z".parse().expect("time")));
    let (_d, store) = temp_store();
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let sample = |max_page_bytes: usize| {
        rt.block_on(async {
            let c = opts.open().await.expect("connect");
            let source = kdrift_ingest::MetricsSource {
                cluster: c.url.clone(),
                scope: Scope::AllNamespaces,
                request_timeout: DEFAULT_REQUEST_TIMEOUT,
                max_page_bytes,
            };
            kdrift_ingest::sample_metrics(&store, &c.client, &source).await.expect("sample")
        })
    };
    let got = sample(kdrift_rebalance::MAX_PAGE_BYTES);
    assert_eq!((got.nodes, got.pods, got.added, got.error_total, got.errors.len()), (1, 1, 2, 250, 101));
    assert!(got.errors[99].starts_with("nodes.metrics.k8s.io: bad-099: usage.cpu \"x\""), "{}", got.errors[99]);
    assert!(
        got.errors[100].starts_with("… and 150 more errors like these in ")
            && got.errors[100].contains("metrics.k8s.io"),
        "{}",
        got.errors[100]
    );
    let stored = kdrift_store::run_query(&store, "runs", &[]).expect("runs");
    assert_eq!(stored.rows.len(), 1);
    // Both lists are past 2 KiB: each stops at the cap (the complete items before it kept) and both are said.
    let capped = sample(2048);
    assert_eq!((capped.nodes, capped.pods, capped.error_total), (1, 0, 10), "{:?}", capped.errors);
    let past = |what: &str| {
        format!(
            "{what}.metrics.k8s.io: unexpected response from /apis/metrics.k8s.io/v1beta1/{what}: the answer goes on \
             past 2048 bytes (2 KiB), the most kdrift reads of one answer: the rest is not read (raise \
             --max-page-bytes)"
        )
    };
    assert_eq!(capped.errors[8..], [past("nodes"), past("pods")]);
}

#[test]
fn a_kubeconfig_or_token_file_without_end_is_refused_at_its_cap() {
    // break-it 35 F18: `--kubeconfig /dev/zero` and `tokenFile: /dev/zero` grew to ~22 GB (OOM-killed).
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let opts = ClusterOptions { kubeconfig: Some("/dev/zero".into()), context: None };
    let e = rt.block_on(opts.open()).expect_err("refused");
    assert!(
        e.to_string().contains(
            "the kubeconfig /dev/zero holds more than 16777216 bytes (16 MiB), the most kdrift reads of one: it is \
             not read"
        ),
        "{e}"
    );
    assert_eq!(kdrift_rebalance::MAX_SECRET_FILE_BYTES, 1 << 20);
}
