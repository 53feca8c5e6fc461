//! `kdrift sessions annotate --probe SELECTOR=URL` against the fake API
//! server and a probe HTTP server on 127.0.0.1: a pod in use gets
//! descheduler's prefer-no-eviction plus kdrift's marker, one kdrift
//! annotated earlier that is now idle loses both, a user's own
//! prefer-no-eviction is never touched, and the store has one Event per
//! change.

use std::io::{Read, Write};
use std::path::PathBuf;

use assert_cmd::Command;
use kdrift_tests::fake_kube::FakeKube;
use serde_json::{json, Value};

const PREFER: &str = "descheduler.alpha.kubernetes.io/prefer-no-eviction";
const MARKER: &str = "kdrift.io/sessions-annotated";

/// Answers `GET /sessions/{name}` with `{"sessions": 2}` for names starting
/// with `busy`, `{"sessions": 0}` otherwise; returns the base URL.
fn probe_server() -> String {
    probe_server_calling(|_| {})
}

/// [`probe_server`], calling `on_probe(request line)` before answering.
fn probe_server_calling(on_probe: impl Fn(&str) + Send + 'static) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for mut sock in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let n = sock.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]).to_string();
            on_probe(request.lines().next().unwrap_or(""));
            let body =
                if request.starts_with("GET /sessions/busy") { r#"{"sessions": 2}"# } else { r#"{"sessions": 0}"# };
            let _ = write!(
                sock,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    base
}

fn pod(name: &str, annotations: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": "media", "name": name, "uid": format!("uid-{name}"),
            "labels": {"app": "plex"}, "annotations": annotations},
        "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "plex"}]},
        "status": {"phase": "Running"}})
}

/// The store's events written by kdrift (`query event_list`).
fn kdrift_events(db: &std::path::Path) -> Vec<Value> {
    let q = Command::cargo_bin("kdrift")
        .expect("binary")
        .env_remove("KDRIFT_DB")
        .arg("--db")
        .arg(db)
        .args(["query", "event_list", "-o", "json"])
        .assert()
        .success();
    let rows: Vec<Value> = serde_json::from_slice(&q.get_output().stdout).expect("rows");
    rows.into_iter().filter(|r| r["reporting_component"] == "kdrift").collect()
}

fn annotations(kube: &FakeKube, name: &str) -> Value {
    kube.get("v1", "Pod", "media", name).expect("pod")["metadata"]["annotations"].clone()
}

#[test]
fn probed_pods_are_annotated_and_released_a_users_own_annotation_is_left_and_each_change_is_an_event() {
    let kube = FakeKube::start();
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig: PathBuf = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("kdrift.duckdb");
    let base = probe_server();
    kube.create(pod("busy-0", json!({}))).expect("busy-0");
    kube.create(pod("idle-0", json!({PREFER: "true", MARKER: "true"}))).expect("idle-0");
    kube.create(pod("idle-users", json!({PREFER: "true"}))).expect("idle-users");
    kube.create(pod("busy-users", json!({PREFER: ""}))).expect("busy-users");
    kube.create(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": "web", "name": "busy-web", "uid": "uid-w", "labels": {"app": "web"}},
        "spec": {"containers": []}, "status": {"phase": "Running"}}))
        .expect("web");

    let kdrift = |args: &[&str]| {
        let mut c = Command::cargo_bin("kdrift").expect("binary");
        c.env_remove("KUBECONFIG").env_remove("KDRIFT_DB").env("HOME", dir.path());
        c.arg("--db").arg(&db).args(args).arg("--kubeconfig").arg(&kubeconfig);
        c
    };
    let probe = format!("app=plex={base}/sessions/{{name}}");
    let run =
        kdrift(&["sessions", "annotate", "--probe", &probe, "--every", "1m", "--max-iterations", "1", "-o", "json"])
            .assert()
            .success();
    let report: Value = serde_json::from_slice(&run.get_output().stdout).expect("report");
    let changes: Vec<(String, String)> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| (c["pod"].as_str().unwrap_or("").to_string(), c["action"].as_str().unwrap_or("").to_string()))
        .collect();
    assert_eq!(
        changes,
        vec![("media/busy-0".to_string(), "annotate".to_string()), ("media/idle-0".to_string(), "remove".to_string())]
    );
    assert_eq!(report["probed"], 4, "the app=web pod is not probed");
    assert_eq!(report["users_own"], json!(["media/busy-users", "media/idle-users"]));

    assert_eq!(annotations(&kube, "busy-0"), json!({PREFER: "true", MARKER: "true"}));
    assert_eq!(annotations(&kube, "idle-0"), json!({}));
    assert_eq!(annotations(&kube, "idle-users"), json!({PREFER: "true"}), "the user's own: never removed");
    assert_eq!(annotations(&kube, "busy-users"), json!({PREFER: ""}), "the user's own: not marked");
    let web = kube.get("v1", "Pod", "web", "busy-web").expect("pod");
    assert_eq!(web["metadata"]["annotations"], Value::Null, "no probe selects it");

    let rows = kdrift_events(&db);
    let mut events: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["involved_name"].as_str().unwrap_or("").to_string(),
                r["reason"].as_str().unwrap_or("").to_string(),
                r["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    events.sort();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!((events[0].0.as_str(), events[0].1.as_str()), ("busy-0", "SessionsActive"));
    assert_eq!(
        events[0].2,
        format!("in use according to {base}/sessions/busy-0 (sessions: 2): annotated {PREFER} and {MARKER}")
    );
    assert_eq!((events[1].0.as_str(), events[1].1.as_str()), ("idle-0", "SessionsEnded"));
    assert_eq!(events[1].2, format!("every probe says idle: removed {PREFER} and {MARKER} (kdrift had set them)"));

    // Two more rounds a second apart: nothing left to change, nothing recorded.
    let again = kdrift(&["sessions", "annotate", "--probe", &probe, "--every", "1s", "--max-iterations", "2"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&again.get_output().stdout).to_string();
    assert_eq!(text.matches(": 5 pod(s), 4 probed, 0 change(s) made").count(), 2, "{text}");
    assert!(text.contains("media/idle-users: prefer-no-eviction set by someone else: left alone"), "{text}");
}

/// A pod that changes between the list and the PATCH (here: while it is
/// probed, as a kubelet status update would) gets the apiserver's 409: the
/// change is reported failed with the server's words, nothing is recorded,
/// the exit code is 2, and the next round (with the fresh
/// resourceVersion) makes it.
#[test]
fn a_pod_changed_meanwhile_is_a_409_left_for_the_next_round_and_not_recorded() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let kube = Arc::new(FakeKube::start());
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig: PathBuf = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("kdrift.duckdb");
    kube.create(pod("busy-race", json!({}))).expect("busy-race");
    kube.create(pod("busy-calm", json!({}))).expect("busy-calm");
    let touched = Arc::new(AtomicBool::new(false));
    let base = {
        let (kube, touched) = (Arc::clone(&kube), Arc::clone(&touched));
        probe_server_calling(move |line| {
            if line.starts_with("GET /sessions/busy-race") && !touched.swap(true, Ordering::SeqCst) {
                let mut p = kube.get("v1", "Pod", "media", "busy-race").expect("pod");
                p["metadata"]["labels"]["touched"] = json!("yes");
                kube.update(p).expect("touch");
            }
        })
    };
    let kdrift = |args: &[&str]| {
        let mut c = Command::cargo_bin("kdrift").expect("binary");
        c.env_remove("KUBECONFIG").env_remove("KDRIFT_DB").env("HOME", dir.path());
        c.arg("--db").arg(&db).args(args).arg("--kubeconfig").arg(&kubeconfig);
        c
    };
    let probe = format!("app=plex={base}/sessions/{{name}}");
    let first = kdrift(&["sessions", "annotate", "--probe", &probe, "-o", "json"]).assert().code(2);
    let report: Value = serde_json::from_slice(&first.get_output().stdout).expect("report");
    let changes = report["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 2, "{report}");
    assert_eq!(changes[0]["pod"], "media/busy-calm");
    assert_eq!(changes[0]["error"], Value::Null, "{report}");
    assert_eq!(changes[1]["pod"], "media/busy-race");
    let error = changes[1]["error"].as_str().unwrap_or_default();
    assert!(error.contains("the object has been modified"), "{error}");
    assert_eq!(annotations(&kube, "busy-race"), json!({}), "not annotated");
    assert_eq!(annotations(&kube, "busy-calm"), json!({PREFER: "true", MARKER: "true"}));
    let recorded = |name: &str| -> usize { kdrift_events(&db).iter().filter(|r| r["involved_name"] == name).count() };
    assert_eq!(recorded("busy-calm"), 1);
    assert_eq!(recorded("busy-race"), 0, "a failed change is not recorded");

    // The next round lists the fresh resourceVersion and makes the change.
    let second = kdrift(&["sessions", "annotate", "--probe", &probe, "-o", "json"]).assert().success();
    let report: Value = serde_json::from_slice(&second.get_output().stdout).expect("report");
    assert_eq!(report["changes"][0]["pod"], "media/busy-race", "{report}");
    assert_eq!(report["changes"].as_array().map(Vec::len), Some(1), "{report}");
    assert_eq!(annotations(&kube, "busy-race"), json!({PREFER: "true", MARKER: "true"}));
    assert_eq!(kube.get("v1", "Pod", "media", "busy-race").expect("pod")["metadata"]["labels"]["touched"], "yes");
    assert_eq!(recorded("busy-race"), 1);
}
