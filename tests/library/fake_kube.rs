//! The fake Kubernetes API server speaks the real protocol: kubectl lists
//! what it holds (Tables and `-o json`), kdrift's cluster client pages
//! through it, watches resume with bookmarks and get 410 Gone after a
//! compaction, and the eviction subresource answers 201 / 429 / 404 / 500.

use std::process::Command;
use std::time::Duration;

use futures::StreamExt;
use kdrift_rebalance::{list_all, watch, ClusterOptions, ListPager, Scope, WatchItem, WatchOptions, HISTORY_RESOURCES};
use kdrift_scenario::{generate, ScenarioConfig};
use kdrift_tests::fake_kube::{EvictionFault, FakeKube, PDB_MESSAGE};
use serde_json::{json, Value};

fn kubectl_or_fail() -> &'static str {
    let found = Command::new("kubectl").arg("version").arg("--client").output().is_ok_and(|o| o.status.success());
    assert!(
        found,
        "kubectl is not installed: install the Debian package kubernetes-client \
         (`apt-get install -y kubernetes-client`; .ci/run does it)"
    );
    "kubectl"
}

fn kubectl(kube: &FakeKube, dir: &std::path::Path, args: &[&str]) -> String {
    let config = kube.write_kubeconfig(dir);
    let out = Command::new(kubectl_or_fail())
        .arg("--kubeconfig")
        .arg(&config)
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .args(args)
        .env("HOME", dir)
        .env_remove("KUBECONFIG")
        .output()
        .expect("run kubectl");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "kubectl {args:?} failed:\n{stderr}\n{stdout}");
    stdout
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "status": {"conditions": [{"type": "Ready", "status": "True"}], "allocatable": {"cpu": "2", "pods": "110"}}})
}

fn pod(ns: &str, name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
           "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}]},
           "status": {"phase": "Running"}})
}

#[test]
fn kubectl_gets_the_demo_pods_and_events_from_the_fake() {
    let scenario = generate(&ScenarioConfig { seed: 2, scale: 1 });
    let facts = scenario.facts.clone();
    let kube = FakeKube::start();
    kube.load_state_at(&scenario, Some(facts.failure_at + chrono::Duration::minutes(10)));
    let dir = tempfile::tempdir().expect("tmp");

    let pods = kubectl(&kube, dir.path(), &["get", "pods", "-A"]);
    let header = pods.lines().next().unwrap_or("");
    for col in ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"] {
        assert!(header.contains(col), "{header}");
    }
    let pending = pods.lines().find(|l| l.contains(&facts.pending_pod.name)).expect("pending pod listed");
    assert!(pending.starts_with("media ") && pending.contains("Pending"), "{pending}");
    let plex = pods.lines().find(|l| l.contains(&facts.plex.name)).expect("plex listed");
    assert!(plex.contains("Running"), "{plex}");
    assert_eq!(pods.lines().count() - 1, kube.objects("v1", "Pod").len());

    let events = kubectl(&kube, dir.path(), &["get", "events", "-A"]);
    assert!(events.lines().next().unwrap_or("").contains("REASON"), "{events}");
    let failed = events.lines().find(|l| l.contains("FailedScheduling")).expect("FailedScheduling listed");
    assert!(failed.contains(&format!("pod/{}", facts.pending_pod.name)), "{failed}");
    assert!(failed.contains("1 Insufficient cpu"), "{failed}");

    let json: Value =
        serde_json::from_str(&kubectl(&kube, dir.path(), &["get", "pods", "-A", "-o", "json"])).expect("json");
    let items = json["items"].as_array().expect("items");
    assert_eq!(items.len(), kube.objects("v1", "Pod").len());
    let p = items.iter().find(|p| p["metadata"]["name"] == facts.pending_pod.name.as_str()).expect("pod in json");
    assert_eq!(p["kind"], "Pod");
    assert_eq!(p["metadata"]["uid"], facts.pending_pod.uid.as_str());
    let json: Value =
        serde_json::from_str(&kubectl(&kube, dir.path(), &["get", "events", "-A", "-o", "json"])).expect("json");
    assert_eq!(json["items"].as_array().map(Vec::len), Some(kube.objects("v1", "Event").len()));
    // kubectl paginates with limit=500 and asked for Tables.
    assert!(kube.requests().iter().any(|r| r.path == "/api/v1/pods" && r.query.contains("limit=500")));
}

#[test]
fn lists_page_through_continue_tokens_at_one_resource_version() {
    let kube = FakeKube::start();
    for i in 1..=5 {
        kube.create(node(&format!("node-{i}"))).expect("node");
    }
    let rv = kube.resource_version();
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let nodes = HISTORY_RESOURCES.iter().find(|r| r.kind == "Node").expect("nodes");
    let (list, paged) = rt().block_on(async {
        let client = opts.connect().await.expect("client");
        let list = list_all(&client, nodes, &Scope::AllNamespaces, 2).await.expect("list");
        // A write between pages does not show in the pages of a list already started.
        let mut pager = ListPager::new(client, nodes, &Scope::AllNamespaces, 3);
        let mut names = Vec::new();
        let first = pager.next_page().await.expect("page").expect("first page");
        kube.create(node("node-6")).expect("node");
        names.extend(first.items);
        let second = pager.next_page().await.expect("page").expect("second page");
        assert_eq!(second.resource_version, first.resource_version);
        names.extend(second.items);
        assert!(pager.next_page().await.expect("end").is_none());
        (list, names.iter().map(|n| n["metadata"]["name"].as_str().unwrap_or("").to_string()).collect::<Vec<_>>())
    });
    assert_eq!(paged, ["node-1", "node-2", "node-3", "node-4", "node-5"]);
    assert_eq!(list.items.len(), 5);
    assert_eq!(list.resource_version, rv.to_string());
    assert_eq!(list.items[0]["kind"], "Node", "list items get their kind back");
    assert_eq!(list.items[4]["metadata"]["name"], "node-5");
    let pages: Vec<_> = kube.requests().into_iter().filter(|r| r.path == "/api/v1/nodes").collect();
    assert_eq!(pages.len(), 3 + 2, "{pages:?}");
    assert!(pages[1].query.contains("continue="), "{pages:?}");
}

#[test]
fn watches_replay_bookmark_expire_and_drop() {
    let kube = FakeKube::start();
    kube.set_bookmark_interval(Duration::from_millis(50));
    kube.create(pod("d", "a", json!({}))).expect("pod");
    let start = kube.resource_version().to_string();
    kube.create(pod("d", "b", json!({}))).expect("pod");
    kube.delete("v1", "Pod", "d", "a").expect("delete");
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let pods = HISTORY_RESOURCES.iter().find(|r| r.kind == "Pod").expect("pods");
    rt().block_on(async {
        let client = opts.connect().await.expect("client");
        let options = WatchOptions {
            resource_version: start.clone(),
            timeout_seconds: Some(30),
            bookmarks: true,
            deadlines: Default::default(),
            max_event_bytes: kdrift_rebalance::MAX_WATCH_EVENT_BYTES,
        };
        let mut s = watch(&client, pods, &Scope::Namespace("d".into()), &options).await.expect("watch");
        let first = s.next().await.expect("event").expect("ok");
        assert!(matches!(&first, WatchItem::Added(o) if o["metadata"]["name"] == "b"), "{first:?}");
        let second = s.next().await.expect("event").expect("ok");
        match &second {
            WatchItem::Deleted(o) => {
                assert_eq!(o["metadata"]["name"], "a");
                assert_eq!(o["spec"]["nodeName"], "node-1", "DELETED carries the last state");
            }
            other => panic!("{other:?}"),
        }
        let third = s.next().await.expect("event").expect("ok");
        assert_eq!(third, WatchItem::Bookmark { resource_version: kube.resource_version().to_string() });
        kube.drop_watches();
        let mut ended = false;
        for _ in 0..100 {
            match s.next().await {
                None | Some(Err(_)) => {
                    ended = true;
                    break;
                }
                Some(Ok(WatchItem::Bookmark { .. })) => {}
                Some(Ok(other)) => panic!("{other:?}"),
            }
        }
        assert!(ended, "a dropped watch ends the stream");

        kube.create(pod("d", "c", json!({}))).expect("pod");
        kube.compact();
        let mut s = watch(&client, pods, &Scope::AllNamespaces, &options).await.expect("watch");
        let err = s.next().await.expect("event").expect_err("410");
        assert!(err.is_gone(), "{err}");
        assert!(err.to_string().contains(&format!("too old resource version: {start}")), "{err}");
    });
}

#[test]
fn evictions_answer_201_429_404_500_and_are_logged() {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, EvictParams};
    let kube = FakeKube::start();
    kube.create(pod("web", "free", json!({"app": "free"}))).expect("pod");
    kube.create(pod("web", "guarded", json!({"app": "db"}))).expect("pod");
    kube.create(
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "web"},
                       "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
                       "status": {"disruptionsAllowed": 0, "desiredHealthy": 1, "currentHealthy": 1}}),
    )
    .expect("pdb");
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    rt().block_on(async {
        let mut config = opts.config().await.expect("config");
        config.default_retry = false; // a 429 is an answer, not something to retry here
        let client = kube::Client::try_from(config).expect("client");
        let api: Api<Pod> = Api::namespaced(client, "web");
        let ok = api.evict("free", &EvictParams::default()).await.expect("201");
        assert_eq!(ok.code, 201);
        assert!(kube.get("v1", "Pod", "web", "free").is_none(), "evicted pod is deleted");

        let err = api.evict("guarded", &EvictParams::default()).await.expect_err("429");
        let kube::Error::Api(status) = err else { panic!("{err:?}") };
        assert_eq!(
            (status.code, status.reason.as_str(), status.message.as_str()),
            (429, "TooManyRequests", PDB_MESSAGE)
        );
        let cause = &status.details.as_ref().expect("details").causes[0];
        assert_eq!(cause.reason, "DisruptionBudget");
        assert_eq!(cause.message, "The disruption budget db needs 1 healthy pods and has 1 currently");

        let err = api.evict("ghost", &EvictParams::default()).await.expect_err("404");
        assert!(
            matches!(&err, kube::Error::Api(s) if s.code == 404 && s.message == "pods \"ghost\" not found"),
            "{err:?}"
        );

        kube.fail_evictions(EvictionFault::ServerError, Some(("web", "guarded")), Some(1));
        let err = api.evict("guarded", &EvictParams::default()).await.expect_err("500");
        assert!(matches!(&err, kube::Error::Api(s) if s.code == 500), "{err:?}");
    });
    let log: Vec<(String, u16)> = kube.evictions().into_iter().map(|e| (e.name, e.code)).collect();
    assert_eq!(
        log,
        vec![("free".into(), 201), ("guarded".into(), 429), ("ghost".into(), 404), ("guarded".into(), 500)]
    );
}

#[test]
fn a_forbidden_resource_is_named_with_the_servers_message() {
    let kube = FakeKube::start();
    kube.fail_resource("poddisruptionbudgets.policy", 403);
    let dir = tempfile::tempdir().expect("tmp");
    let opts = ClusterOptions { kubeconfig: Some(kube.write_kubeconfig(dir.path())), context: None };
    let pdbs = HISTORY_RESOURCES.iter().find(|r| r.kind == "PodDisruptionBudget").expect("pdbs");
    let err = rt().block_on(async {
        let client = opts.connect().await.expect("client");
        list_all(&client, pdbs, &Scope::AllNamespaces, 10).await.expect_err("403")
    });
    assert!(err.is_unavailable_resource());
    let text = err.to_string();
    assert!(text.starts_with("poddisruptionbudgets.policy: the server answered 403 Forbidden: "), "{text}");
    assert!(text.contains("cannot list resource \"poddisruptionbudgets\" in API group \"policy\""), "{text}");
}

/// Break-it F9: a 307 from the Kubernetes API was reported as "not JSON".
/// It is reported as a redirect, not followed: the status, the `Location`'s
/// origin without its credentials, path or query, and what to do.
#[test]
fn a_redirect_from_the_api_is_named_as_one_with_its_origin_and_not_followed() {
    use kdrift_tests::fake_vlogs::scripted::{Reply, Scripted};
    let away = Scripted::start(|_| Reply::redirect(307, "http://admin:hunter2pw@127.0.0.1:9/steal?token=abc123"));
    let here = Scripted::start(|_| Reply::redirect(302, "/login?next=%2Fapi"));
    let dir = tempfile::tempdir().expect("tmp");
    let pods = HISTORY_RESOURCES.iter().find(|r| r.kind == "Pod").expect("pods");
    let mut texts = Vec::new();
    for (name, server) in [("away", &away), ("here", &here)] {
        let config = dir.path().join(name);
        std::fs::write(
            &config,
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {{server: '{}'}}\n\
                 contexts:\n- name: c\n  context: {{cluster: c, user: u}}\nusers:\n- name: u\n  user: {{token: \
                 redirect-test-token-77aa}}\n",
                server.url()
            ),
        )
        .expect("kubeconfig");
        let opts = ClusterOptions { kubeconfig: Some(config), context: None };
        let err = rt().block_on(async {
            let client = opts.connect().await.expect("client");
            list_all(&client, pods, &Scope::AllNamespaces, 10).await.expect_err("a redirect")
        });
        texts.push(err.to_string());
        assert_eq!(server.seen().len(), 1, "{name}: not followed, not retried");
    }
    assert_eq!(
        texts,
        [
            "pods: HTTP 307: the server redirects to another origin, http://127.0.0.1:9; kdrift follows no redirect \
             from the Kubernetes API (the credentials would go there): if that is your API server, set the \
             kubeconfig's `server:` to it (/api/v1/pods)"
                .to_string(),
            format!(
                "pods: HTTP 302: the server redirects to another path on the same origin, {}; kdrift follows no \
                 redirect from the Kubernetes API (a proxy in front of it? point the kubeconfig's `server:` at the \
                 API server's own URL; --follow-redirects is for VictoriaLogs only) (/api/v1/pods)",
                here.url()
            ),
        ]
    );
}

/// An exec plugin (a script) whose tokens expire 30 s after issue, inside
/// the 60 s renewal margin: kdrift's client runs it again before each
/// request (on a multi-thread runtime, as `kdrift record`'s), and each
/// request carries the newest token.
#[test]
fn an_expiring_exec_token_is_renewed_before_each_request_of_one_client() {
    use std::os::unix::fs::PermissionsExt;
    let kube = FakeKube::start();
    kube.create(node("node-1")).expect("node");
    let dir = tempfile::tempdir().expect("tmp");
    let count = dir.path().join("count");
    let plugin = dir.path().join("get-token");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/bash\nn=$(( $(cat {c} 2>/dev/null || echo 0) + 1 )); echo $n > {c}\n\
             exp=$(date -u -d '+30 seconds' +%Y-%m-%dT%H:%M:%SZ)\n\
             echo \"{{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1beta1\\\",\\\"kind\\\":\\\"ExecCredential\\\",\
             \\\"status\\\":{{\\\"token\\\":\\\"sHoRtLiVeD-$n\\\",\\\"expirationTimestamp\\\":\\\"$exp\\\"}}}}\"\n",
            c = count.display()
        ),
    )
    .expect("plugin");
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let user = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: {}\n      interactiveMode: Never\n",
        plugin.display()
    );
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, kube.kubeconfig(None).replace("    token: fake-token\n", &user)).expect("write");
    let opts = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
    let nodes = HISTORY_RESOURCES.iter().find(|r| r.kind == "Node").expect("nodes");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    runtime.block_on(async {
        let client = opts.connect().await.expect("client");
        for _ in 0..3 {
            let list = list_all(&client, nodes, &Scope::AllNamespaces, 0).await.expect("list");
            assert_eq!(list.items.len(), 1);
        }
    });
    let sent: Vec<String> = kube.requests().into_iter().map(|r| r.authorization).collect();
    assert_eq!(sent, ["Bearer sHoRtLiVeD-2", "Bearer sHoRtLiVeD-3", "Bearer sHoRtLiVeD-4"]);
    assert_eq!(kdrift_rebalance::held().redact("sHoRtLiVeD-4"), "***");
}

/// Break-it (issue 34): a kubeconfig `tokenFile` (the in-cluster service
/// account's token is one) rewritten between requests of one client, as
/// the kubelet rotates a projected token: kdrift re-reads it, sends the
/// new token, and holds it before it is sent (kube re-read it on its own
/// and nothing held the new token: an echo of it was stored in the clear).
#[test]
fn a_rotated_token_file_is_re_read_and_the_new_token_held_before_it_is_sent() {
    let kube = FakeKube::start();
    kube.create(node("node-1")).expect("node");
    let dir = tempfile::tempdir().expect("tmp");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "rOtAtEdToKeN-first1\n").expect("token");
    let kubeconfig = dir.path().join("kubeconfig");
    let user = format!("    tokenFile: {}\n", token_file.display());
    std::fs::write(&kubeconfig, kube.kubeconfig(None).replace("    token: fake-token\n", &user)).expect("write");
    let opts = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
    let nodes = HISTORY_RESOURCES.iter().find(|r| r.kind == "Node").expect("nodes");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    runtime.block_on(async {
        let client = opts.connect().await.expect("client");
        list_all(&client, nodes, &Scope::AllNamespaces, 0).await.expect("list");
        std::fs::write(&token_file, "rOtAtEdToKeN-second22\n").expect("rotate");
        list_all(&client, nodes, &Scope::AllNamespaces, 0).await.expect("list");
        list_all(&client, nodes, &Scope::AllNamespaces, 0).await.expect("list");
    });
    let sent: Vec<String> = kube.requests().into_iter().map(|r| r.authorization).collect();
    assert_eq!(sent, ["Bearer rOtAtEdToKeN-first1", "Bearer rOtAtEdToKeN-second22", "Bearer rOtAtEdToKeN-second22"]);
    let hex: String = "rOtAtEdToKeN-second22".bytes().map(|b| format!("{b:02x}")).collect();
    assert_eq!(kdrift_rebalance::held().redact(&format!("got rOtAtEdToKeN-second22 hex {hex}")), "got *** hex ***");
}

/// metrics.k8s.io as metrics-server serves it: real `kubectl top nodes` and
/// `kubectl top pods -A` read the fake's NodeMetrics / PodMetrics (so its
/// discovery and JSON are what kubectl accepts), and their saved output
/// loads back through `ingest file` as the same millicores and bytes.
#[test]
fn kubectl_top_reads_the_fakes_metrics_and_its_saved_output_ingests_back() {
    let kube = FakeKube::start();
    let mut n = node("node-1");
    n["status"]["allocatable"]["memory"] = json!("8Gi");
    n["status"]["capacity"] = json!({"cpu": "2", "memory": "8Gi", "pods": "110"});
    kube.create(n).expect("node");
    kube.create(pod("web", "api-1", json!({"app": "api"}))).expect("pod");
    kube.set_node_metrics(&[("node-1", "1500000000n", "2097152Ki")]);
    kube.set_pod_metrics(&[("web", "api-1", &[("c", "250000000n", "1024Ki"), ("d", "1m", "1024Ki")][..])]);
    let dir = tempfile::tempdir().expect("tmp");
    let nodes = kubectl(&kube, dir.path(), &["top", "nodes"]);
    let pods = kubectl(&kube, dir.path(), &["top", "pods", "-A"]);
    let cells = |text: &str, row: usize| -> Vec<String> {
        text.lines().nth(row).unwrap_or_default().split_whitespace().map(str::to_string).collect()
    };
    assert_eq!(cells(&nodes, 1), ["node-1", "1500m", "75%", "2048Mi", "25%"], "{nodes}");
    assert_eq!(cells(&pods, 1), ["web", "api-1", "251m", "2Mi"], "{pods}");
    let files: Vec<std::path::PathBuf> = [("top-nodes.txt", &nodes), ("top-pods.txt", &pods)]
        .into_iter()
        .map(|(name, text)| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).expect("write");
            p
        })
        .collect();
    let (_d, store) = kdrift_tests::temp_store();
    let at = "2026-11-13T00:00:00Z".parse().expect("time");
    let report = kdrift_ingest::ingest_files_at(
        &store,
        &files,
        &kdrift_ingest::FileLimits::default(),
        Some(at),
        &mut kdrift_ingest::NoProgress,
        &kdrift_ingest::Interrupt::new(),
    )
    .expect("ingest");
    let got: Vec<(u64, u64, usize)> = report.usage.iter().map(|u| (u.samples, u.added, u.errors.len())).collect();
    assert_eq!(got, [(1, 1, 0), (1, 1, 0)]);
    let params = [
        ("since_us".to_string(), "2026-11-13T00:00:00Z".to_string()),
        ("until_us".to_string(), "2026-11-14T00:00:00Z".to_string()),
    ];
    let rows = kdrift_store::run_query(&store, "usage_samples", &params).expect("query").rows;
    let shown: Vec<String> = rows.iter().map(|r| serde_json::to_string(&r[1..8]).expect("json")).collect();
    assert_eq!(
        shown,
        [
            r#"["node","node-1",null,null,1500,2147483648,"kubectl-top"]"#,
            r#"["pod",null,"web","api-1",251,2097152,"kubectl-top"]"#
        ]
    );
}
