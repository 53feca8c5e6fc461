//! The `kdrift` binary as a user runs it: exit codes, stdout/stderr split,
//! error messages naming the file and line.

use assert_cmd::Command;
use predicates::prelude::*;

fn kdrift() -> Command {
    Command::cargo_bin("kdrift").expect("binary")
}

#[test]
fn demo_tells_the_story_with_nothing_but_the_binary() {
    let out = kdrift().arg("demo").env_remove("KDRIFT_DB").assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for needle in [
        "1 Insufficient cpu, 4 node(s) didn't match pod affinity rules",
        "InterPodAffinity excluded 4 node(s): node-2, node-3, node-4, node-5",
        "left after the constraints: node-1",
        "node-1 cpu: the pod requests 100m, 58m free → 42m short",
        "lower the pod's cpu request from 100m to at most 58m",
        "1942m/2000m (97.1 %)",
        "19 pods landed on node-1 within 3 minutes after it came back",
        "node-1 was the only schedulable node offering gpu.intel.com/i915",
        // Measured usage (issue 37): requests even on node-4, its cpu hot.
        "from 03:30:00Z two pods on node-4 use several times what they request",
        "  node-4 cpu: 93.2 % used, 40.8 % requested",
        "     batch/queue-worker-99lqv4ktcz-42lf2             788m   100m        7.88×",
        "  node-1 cpu: 66.8 % used, 97.1 % requested",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in:\n{stdout}");
    }
}

#[test]
fn demo_json_is_machine_readable() {
    let out = kdrift().args(["demo", "-o", "json"]).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("stdout is JSON");
    assert_eq!(v["why_pending"]["state"]["shortfalls"][0]["short"], 42);
    assert_eq!(v["why_pending"]["state"]["shortfalls"][0]["node"], "node-1");
    assert_eq!(v["usage"]["hot_not_requested"][0]["node"], "node-4", "{}", v["usage"]);
}

#[test]
fn bad_file_is_named_with_its_line_and_exit_is_2_while_good_records_load() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let good = dir.path().join("good.json");
    std::fs::write(&good, r#"{"kind":"EventList","items":[{"metadata":{"name":"p.1","namespace":"d"},"involvedObject":{"kind":"Pod","name":"p","namespace":"d"},"reason":"FailedScheduling","message":"0/2 nodes are available: 2 Too many pods.","count":3}]}"#).expect("write");
    let bad = dir.path().join("bad.ndjson");
    std::fs::write(&bad, "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}\n{\"broken\n").expect("write");
    kdrift()
        .arg("--db")
        .arg(&db)
        .args(["ingest", "file"])
        .arg(&good)
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.ndjson:2:"))
        .stdout(predicate::str::contains("good.json"));
    kdrift()
        .arg("--db")
        .arg(&db)
        .args(["why-pending", "--all"])
        .assert()
        .success()
        .stdout(predicate::str::contains("d/p").and(predicate::str::contains("2 Too many pods")));
    kdrift()
        .arg("--db")
        .arg(&db)
        .args(["why-pending", "d/nope"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no FailedScheduling event for d/nope"));
}

#[test]
fn analysis_never_creates_a_store_and_typos_are_errors() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("absent.duckdb");
    kdrift()
        .arg("--db")
        .arg(&db)
        .args(["why-pending", "--all"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no store at"));
    assert!(!db.exists());
    kdrift().args(["why-pending", "--al"]).assert().code(2);
    // A name alone is looked up in the store; a malformed reference is refused.
    kdrift().args(["why-pending", "a/b/c"]).assert().code(2).stderr(predicate::str::contains("NAMESPACE/NAME"));
}

#[test]
fn rebalance_plan_on_the_saved_demo_store() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().arg("demo").arg("--save").arg(&db).env_remove("KDRIFT_DB").assert().success();
    let policy = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homelab-policy.yaml");
    let out =
        kdrift().arg("--db").arg(&db).args(["rebalance", "plan", "--policy", policy, "--simulate"]).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let line = |start: &str, after: &str| -> Vec<String> {
        let section = stdout.split_once(after).map_or("", |(_, rest)| rest);
        section
            .lines()
            .find(|l| l.trim_start().starts_with(start))
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .unwrap_or_else(|| panic!("no line starting with {start:?} after {after:?} in:\n{stdout}"))
    };
    assert_eq!(line("node-1", "Profile homelab")[..5], ["node-1", "overutilized", "97.1", "%", ">"]);
    assert_eq!(line("node-5", "Profile homelab")[..2], ["node-5", "underutilized"]);
    assert!(stdout.contains("5 evictions planned"), "{stdout}");
    // Every eviction is from node-1; node-5, the emptiest node, gets 2
    // replacements, the second docs copy goes to node-3 and a queue-worker
    // back to node-1 (PodTopologySpread's system default spreading keeps
    // copies of one ReplicaSet apart; before it was modelled: 3 on node-5, a
    // pile-up).
    let landings: Vec<Vec<String>> = (1..=5).map(|i| line(&format!("{i} "), "Landing simulation")).collect();
    assert!(landings.iter().all(|l| l[2] == "node-1"), "{landings:?}");
    let lands_on: Vec<&str> = landings.iter().map(|l| l[3].as_str()).collect();
    assert_eq!(lands_on, ["node-5", "node-5", "node-3", "node-1", "node-2"], "{landings:?}");
    let node5 = line("node-5", "Requested before → after");
    assert_eq!(node5[node5.len() - 2..], ["0", "2"], "{node5:?}");
    assert!(!stdout.contains("pile-up:"), "{stdout}");
    assert!(stdout.contains("'s replacement lands back on node-1, the node it is evicted from"), "{stdout}");

    let json = kdrift()
        .arg("--db")
        .arg(&db)
        .args(["rebalance", "plan", "--policy", policy, "--rounds", "5", "-o", "json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).expect("stdout is JSON");
    assert_eq!(v["plan"]["evictions_total"], 5);
    assert_eq!(v["policy_source"], policy);
    assert_eq!(v["simulation"]["landings"].as_array().map(Vec::len), Some(5));
    // The queue-worker back on node-1 is evicted again night after night.
    assert_eq!(v["rounds"]["verdict"]["kind"], "Stalled");
    assert_eq!(v["rounds"]["verdict"]["round"], 3);

    // Written out, a plan made from the store says so before it is applied
    // (new-user finding: the hint read as if it were the live cluster's).
    let file = dir.path().join("plan.json");
    let out =
        kdrift().arg("--db").arg(&db).args(["rebalance", "plan", "--policy", policy, "--out"]).arg(&file).assert();
    let stderr = String::from_utf8_lossy(&out.success().get_output().stderr).to_string();
    let hint = format!(
        "kdrift: plan written to {0} (5 eviction(s)); execute it with `kdrift rebalance apply {0}` (made from the \
         store's history at ",
        file.display()
    );
    assert!(stderr.contains(&hint), "{stderr}");
    assert!(
        stderr.contains("apply re-reads the live cluster first and refuses a plan that no longer holds"),
        "{stderr}"
    );

    // A misspelt field is an error naming the file and the field; exit 2.
    let typo = dir.path().join("typo.yaml");
    let text = std::fs::read_to_string(policy).expect("policy").replace("targetThresholds:", "targetThreshold:");
    std::fs::write(&typo, text).expect("write");
    kdrift().arg("--db").arg(&db).args(["rebalance", "plan", "--policy"]).arg(&typo).assert().code(2).stderr(
        predicate::str::contains(format!(
            "policy {}: profiles[0].pluginConfig[1].args.targetThreshold: unknown field",
            typo.display()
        )),
    );
}

#[test]
fn rebalance_plan_with_a_scheduler_config_lands_by_its_scoring_strategy() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().arg("demo").arg("--save").arg(&db).env_remove("KDRIFT_DB").assert().success();
    let policy = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homelab-policy.yaml");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scheduler-most-allocated.yaml");
    let args = ["rebalance", "plan", "--policy", policy, "--simulate", "--scheduler-config", config];
    let out = kdrift().arg("--db").arg(&db).args(args).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let header = format!(
        "Landing simulation (kube-scheduler filters and scores: NodeResourcesFit MostAllocated (cpu 1, memory 1) \
         from {config}; a tie goes on with the first node by name)"
    );
    assert!(stdout.contains(&header), "{stdout}");
    // MostAllocated sends the replacements back to node-1, the fullest node,
    // except the second docs copy: the system default spreading (weight 2)
    // keeps it off the node its sibling just landed on.
    let section = stdout.split_once("Landing simulation").map_or("", |(_, rest)| rest);
    let lands: Vec<&str> = (1..=5)
        .map(|i| {
            let line = section.lines().find(|l| l.trim_start().starts_with(&format!("{i} "))).expect("landing row");
            line.split_whitespace().nth(3).expect("LANDS ON")
        })
        .collect();
    assert_eq!(lands, ["node-1", "node-1", "node-3", "node-1", "node-1"], "{stdout}");
    assert!(stdout.contains("pile-up: 4 of 5 replacement pods land on node-1"), "{stdout}");
    // The default profile says so in the same header.
    let plain = kdrift().arg("--db").arg(&db).args(&args[..5]).assert().success();
    let plain = String::from_utf8_lossy(&plain.get_output().stdout).to_string();
    assert!(plain.contains("kube-scheduler filters and scores: NodeResourcesFit LeastAllocated (cpu 1, memory 1), the default profile;"), "{plain}");

    // -o json carries the strategy; --scoring is the shorthand.
    let json = kdrift()
        .arg("--db")
        .arg(&db)
        .args(["rebalance", "plan", "--policy", policy, "--simulate", "--scoring", "most-allocated", "-o", "json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).expect("stdout is JSON");
    assert_eq!(v["simulation"]["scoring"]["strategy"]["type"], "MostAllocated");
    assert_eq!(v["simulation"]["scoring"]["source"], "--scoring most-allocated");
    assert_eq!(v["simulation"]["landings"][0]["outcome"]["node"], "node-1");
    let backtest = kdrift()
        .arg("--db")
        .arg(&db)
        .args(["rebalance", "backtest", "--policy", policy, "--schedule", "0 3 * * *", "--scheduler-config", config])
        .args(["-o", "json"])
        .assert()
        .success();
    let b: serde_json::Value = serde_json::from_slice(&backtest.get_output().stdout).expect("stdout is JSON");
    assert_eq!(b["scoring"]["strategy"]["type"], "MostAllocated");
    assert_eq!(b["scoring"]["source"], config);
    // Replayed with MostAllocated, night 2's BestEffort and docs evictions
    // land back on node-1 (the fullest); the system default spreading still
    // sends the two queue-worker copies to node-2 and node-3, which frees the
    // 200m the 04:00 CronJob pod needs there: it would have fit, as under
    // the default profile (messages::backtest_…).
    let table = kdrift()
        .arg("--db")
        .arg(&db)
        .args(["rebalance", "backtest", "--policy", policy, "--schedule", "0 3 * * *", "--scheduler-config", config])
        .assert()
        .success();
    let table = String::from_utf8_lossy(&table.get_output().stdout).to_string();
    assert!(
        table.contains(&format!(
            "  landings scored by kube-scheduler: NodeResourcesFit MostAllocated (cpu 1, memory 1) from {config}"
        )),
        "{table}"
    );
    for landing in [
        "media/flaresolverr-pzl245k5g9-mq2cb from node-1 by LowNodeUtilization: lands on node-1",
        "batch/queue-worker-99lqv4ktcz-bpz55 from node-1 by LowNodeUtilization: lands on node-2",
        "batch/queue-worker-99lqv4ktcz-cmh62 from node-1 by LowNodeUtilization: lands on node-3",
    ] {
        assert!(table.contains(landing), "{landing}: {table}");
    }
    assert!(
        table.contains(
            "media/backup-29930640-5l8lp at 2026-11-28T04:00:00Z: would have fit on node-1 after night 2 (simulated)"
        ),
        "{table}"
    );

    // A config kube-scheduler would refuse is refused with its message, naming the file.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n  \
         - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        \
         resources: [{name: cpu, weight: 200}]\n",
    )
    .expect("write");
    let out = kdrift().arg("--db").arg(&db).args(&args[..6]).arg(&bad).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains(&format!("scheduler config {}", bad.display())), "{stderr}");
    assert!(
        stderr.contains(
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 200: resource weight \
             of cpu not in valid range (0, 100]"
        ),
        "{stderr}"
    );
}

#[test]
fn rebalance_recommend_on_the_saved_demo_store() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    kdrift().arg("demo").arg("--save").arg(&db).env_remove("KDRIFT_DB").assert().success();
    let policy = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homelab-policy.yaml");
    // With PodTopologySpread's system default spreading modelled, every
    // threshold pair that moves pods stalls on the demo: a replacement lands
    // back on node-1, where no other pod of its ReplicaSet runs. Exit 1, the
    // table and the reason on stderr, nothing on stdout (no policy to save).
    let out = kdrift().arg("--db").arg(&db).args(["rebalance", "recommend", "--policy", policy]).assert().code(1);
    assert_eq!(String::from_utf8_lossy(&out.get_output().stdout), "");
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("cpu/memory 50 → 90 %    STALLED at night 3"), "{stderr}");
    assert!(stderr.contains("No policy to recommend: no threshold pair helps"), "{stderr}");
    assert!(stderr.contains(") land back where they were"), "{stderr}");
}

#[test]
fn ingest_api_and_record_without_a_kubeconfig_create_no_store() {
    // They created an empty store (with a failed run) before reading the kubeconfig.
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let missing = dir.path().join("no-such-kubeconfig");
    for command in [&["ingest", "api"][..], &["record"]] {
        let out = kdrift()
            .arg("--db")
            .arg(&db)
            .args(command)
            .arg("--kubeconfig")
            .arg(&missing)
            .env_remove("KUBECONFIG")
            .env_remove("KUBERNETES_SERVICE_HOST")
            .env("HOME", dir.path())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{command:?}: {stderr}");
        assert!(stderr.contains("no-such-kubeconfig"), "{command:?} names the kubeconfig: {stderr}");
        // Said once (kube's error was both in the message and its source),
        // the path once and unquoted (kube's text added it again as '"…"').
        assert_eq!(stderr.matches("failed to read it: No such file").count(), 1, "{command:?}: {stderr}");
        assert_eq!(stderr.matches("no-such-kubeconfig").count(), 1, "{command:?}: {stderr}");
        assert!(!stderr.contains("'\""), "{command:?}: {stderr}");
        assert!(!db.exists(), "{command:?} created {}", db.display());
    }
}

#[test]
fn ingest_api_stores_a_snapshot_and_warns_about_a_refused_resource() {
    use kdrift_scenario::{generate, ScenarioConfig};
    let scenario = generate(&ScenarioConfig { seed: 9, scale: 1 });
    let facts = scenario.facts.clone();
    let kube = kdrift_tests::fake_kube::FakeKube::start();
    kube.load_state_at(&scenario, Some(facts.failure_at + chrono::Duration::minutes(20)));
    kube.fail_resource("poddisruptionbudgets.policy", 403);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("k.duckdb");
    let out = kdrift()
        .arg("--db")
        .arg(&db)
        .args(["ingest", "api", "-A", "--kubeconfig"])
        .arg(&kubeconfig)
        .env_remove("KUBECONFIG")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "kdrift: warning: poddisruptionbudgets.policy: the server answered 403 Forbidden: \
             poddisruptionbudgets.policy is forbidden",
        ));
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let pods_line = stdout.lines().find(|l| l.trim_start().starts_with("pods ")).expect("pods row");
    assert!(pods_line.contains(&kube.objects("v1", "Pod").len().to_string()), "{stdout}");
    assert!(stdout.contains("(partial)") && stdout.contains("1 warning, 0 errors"), "{stdout}");
    kdrift()
        .arg("--db")
        .arg(&db)
        .args(["why-pending", &format!("{}/{}", facts.pending_pod.namespace, facts.pending_pod.name)])
        .assert()
        .success()
        .stdout(predicate::str::contains("node-1 cpu: the pod requests 100m, 58m free → 42m short"));
}

/// `kdrift ingest api` and `record`'s first lists say each list on stderr
/// (issue 38 item 3): plain lines when stderr is not a terminal, the first
/// page and a final line per resource; JSON log events with `--log-format
/// json`.
#[test]
fn ingest_api_and_records_first_lists_say_their_pages_on_stderr() {
    use kdrift_rebalance::HISTORY_RESOURCES;
    use kdrift_tests::fake_kube::FakeKube;
    let kube = FakeKube::start();
    for i in 0..5 {
        kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("p-{i}"), "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}, "status": {"phase": "Pending"}}))
            .expect("pod");
    }
    for i in 0..3 {
        kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": format!("node-{i}")}}))
            .expect("node");
    }
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let stderr_of = |db: &str, more: &[&str]| {
        let out = kdrift()
            .arg("--db")
            .arg(dir.path().join(db))
            .args(more)
            .args(["ingest", "api", "-A", "--chunk-size", "2", "--kubeconfig"])
            .arg(&kubeconfig)
            .env_remove("KUBECONFIG")
            .env_remove("KDRIFT_LOG")
            .env_remove("KDRIFT_LOG_FORMAT")
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stderr).to_string()
    };
    let stderr = stderr_of("plain.duckdb", &[]);
    // Every resource's final line, in listing order: pages of 2 items (an empty list is one page).
    let listed: Vec<&str> = stderr.lines().filter(|l| l.starts_with("kdrift: listed ")).collect();
    let expected: Vec<String> = HISTORY_RESOURCES
        .iter()
        .map(|r| {
            let n = kube.objects(&r.api_version(), r.kind).len();
            let pages = n.div_ceil(2).max(1);
            let words = (if n == 1 { "item" } else { "items" }, if pages == 1 { "page" } else { "pages" });
            format!("kdrift: listed {}: {n} {} ({pages} {})", r.name(), words.0, words.1)
        })
        .collect();
    assert_eq!(listed, expected, "{stderr}");
    assert!(listed.contains(&"kdrift: listed pods: 5 items (3 pages)"), "{stderr}");
    // As it goes: the first page always, later ones at most once a second.
    let pods: Vec<&str> = stderr.lines().filter(|l| l.starts_with("kdrift: listing pods… ")).collect();
    assert_eq!(pods.first(), Some(&"kdrift: listing pods… 2 items (1 page)"), "{stderr}");
    for line in &pods {
        assert!(
            [
                "kdrift: listing pods… 2 items (1 page)",
                "kdrift: listing pods… 4 items (2 pages)",
                "kdrift: listing pods… 5 items (3 pages)"
            ]
            .contains(line),
            "{line}"
        );
    }
    assert!(!stderr.contains('\r') && !stderr.contains('\x1b'), "plain lines: {stderr:?}");

    let stderr = stderr_of("json.duckdb", &["--log-format", "json"]);
    let events: Vec<serde_json::Value> = stderr.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let pods = events.iter().find(|e| e["event"] == "listed" && e["resource"] == "pods").expect("a listed event");
    assert_eq!((pods["items"].as_u64(), pods["pages"].as_u64()), (Some(5), Some(3)), "{pods}");
    assert_eq!(pods["message"], "kdrift: listed pods: 5 items (3 pages)", "{pods}");

    // The recorder's first lists, concurrent: each resource's final line.
    let mut recorder = std::process::Command::new(env!("CARGO_BIN_EXE_kdrift"))
        .arg("--db")
        .arg(dir.path().join("rec.duckdb"))
        .args(["record", "-A", "--chunk-size", "2", "--metrics-interval", "off", "--kubeconfig"])
        .arg(&kubeconfig)
        .env_remove("KUBECONFIG")
        .env_remove("KDRIFT_LOG")
        .env_remove("KDRIFT_LOG_FORMAT")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("record");
    let lines = std::io::BufRead::lines(std::io::BufReader::new(recorder.stderr.take().expect("stderr")));
    let mut said = Vec::new();
    // The lists run concurrently: read until both final lines came, in either order.
    let finals = ["kdrift: listed pods: 5 items (3 pages)", "kdrift: listed nodes: 3 items (2 pages)"];
    for line in lines.map_while(Result::ok) {
        said.push(line);
        if finals.iter().all(|f| said.iter().any(|l| l == f)) {
            break;
        }
    }
    let pid = recorder.id().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().expect("kill").success());
    recorder.wait().expect("exit");
    assert!(said.contains(&"kdrift: listing pods… 2 items (1 page)".to_string()), "{said:?}");
    assert!(said.contains(&"kdrift: listed nodes: 3 items (2 pages)".to_string()), "{said:?}");
}

/// A Status whose message quotes the request's `Authorization` header (raw,
/// base64, URL-encoded, JSON-escaped): `kdrift -vv ingest api` with a
/// kubeconfig holding a bearer token, then Basic auth, shows no form of
/// either (nor 6 characters of it) on stdout, stderr (with kube's debug
/// log) or in the run's `ingest_errors`; the echo itself reaches them.
#[test]
fn an_error_echoing_the_authorization_header_shows_no_form_of_the_kubeconfig_credentials() {
    use kdrift_scenario::{generate, ScenarioConfig};
    use kdrift_tests::fake_kube::FakeKube;
    use kdrift_tests::leaks::{self, HOSTILE};
    let scenario = generate(&ScenarioConfig { seed: 5, scale: 1 });
    let kube = FakeKube::start();
    kube.load_final_state(&scenario);
    kube.fail_resource("pods", 500);
    kube.echo_authorization();
    for (basic, scheme) in [(false, "bearer token"), (true, "Basic auth")] {
        let dir = tempfile::tempdir().expect("tmp");
        let kubeconfig = dir.path().join("kubeconfig");
        let config = kube.kubeconfig(None).replace("    token: fake-token\n", &HOSTILE.kube_user(basic));
        std::fs::write(&kubeconfig, config).expect("kubeconfig");
        let db = dir.path().join("kdrift.duckdb");
        let out = kdrift()
            .env_remove("KUBECONFIG")
            .env_remove("KDRIFT_DB")
            .env_remove("KDRIFT_LOG")
            .env("HOME", dir.path())
            .arg("--db")
            .arg(&db)
            .args(["-vv", "ingest", "api", "-A", "--retry-delay", "10ms", "--kubeconfig"])
            .arg(&kubeconfig)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "pods failed with 500");
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let rows = leaks::ingest_errors(&db);
        let pods = rows.iter().find(|m| m.starts_with("pods: the server answered 500")).expect("the pods error row");
        // The echo came through, with every form of the credential masked.
        assert!(
            pods.contains(
                "the request had Authorization: *** (base64 ***, unpadded ***, URL-encoded ***, JSON-escaped \"***\")"
            ),
            "{pods}"
        );
        assert!(stderr.contains("the request had Authorization: *** (base64 ***"), "{stderr}");
        assert!(stderr.contains("DEBUG"), "kube's debug log is on: {stderr}");
        HOSTILE.assert_absent_from_kube(&stdout, &format!("stdout ({scheme})"));
        HOSTILE.assert_absent_from_kube(&stderr, &format!("stderr with -vv ({scheme})"));
        HOSTILE.assert_absent_from_kube(&rows.join("\n"), &format!("ingest_errors ({scheme})"));
    }
}

/// A kubeconfig user authenticating with an `exec` credential plugin (a
/// script printing an ExecCredential): every request carries
/// `Bearer <its token>`; the server echoes it in the pods' 500 Status (raw,
/// base64, URL-encoded, JSON-escaped), in the nodes' `200` that is not
/// JSON (raw, base64, hex, JSON-escaped) and in an Event's message (raw,
/// JSON-escaped); `kdrift -vv ingest api` shows no form of it on stdout or
/// stderr (kube's debug log included) and stores none in any table.
#[test]
fn an_exec_plugins_token_echoed_by_the_server_is_masked_in_every_output_and_store_row() {
    use kdrift_scenario::{generate, ScenarioConfig};
    use kdrift_tests::fake_kube::FakeKube;
    use kdrift_tests::leaks::{self, base64_of as b64, hex_of as hex};
    use std::os::unix::fs::PermissionsExt;
    const TOKEN: &str = "eXeC/pLuGiN+tOkEn=4f3e2d1c";
    let json_escaped = leaks::json_escaped(TOKEN);
    let dir = tempfile::tempdir().expect("tmp");
    let plugin = dir.path().join("get-token");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/bash\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
             \"status\":{{\"token\":\"{TOKEN}\"}}}}'\n"
        ),
    )
    .expect("plugin");
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let kube = FakeKube::start();
    kube.load_final_state(&generate(&ScenarioConfig { seed: 5, scale: 1 }));
    kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "echo.1", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-0"},
        "reason": "Echo", "message": format!("webhook saw token {TOKEN} (json \"{json_escaped}\")")}))
        .expect("event");
    kube.fail_resource("pods", 500);
    kube.fail_resource("nodes", 200);
    kube.echo_authorization();
    let kubeconfig = dir.path().join("kubeconfig");
    let user = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n",
        plugin.display()
    );
    std::fs::write(&kubeconfig, kube.kubeconfig(None).replace("    token: fake-token\n", &user)).expect("kubeconfig");
    let db = dir.path().join("kdrift.duckdb");
    let out = kdrift()
        .env_remove("KUBECONFIG")
        .env_remove("KDRIFT_DB")
        .env_remove("KDRIFT_LOG")
        .env("HOME", dir.path())
        .arg("--db")
        .arg(&db)
        .args(["-vv", "ingest", "api", "-A", "--retry-delay", "10ms", "--kubeconfig"])
        .arg(&kubeconfig)
        .output()
        .expect("run");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "pods failed with 500: {stderr}");
    let requests = kube.requests();
    assert!(requests.len() > 5, "{requests:?}");
    for r in &requests {
        assert_eq!(r.authorization, format!("Bearer {TOKEN}"), "{} {}", r.method, r.path);
    }
    // The echoes came through, masked.
    assert!(stderr.contains("the request had Authorization: *** (base64 ***"), "{stderr}");
    assert!(stderr.contains("DEBUG"), "kube's debug log is on: {stderr}");
    let store = leaks::store_text(&db);
    assert!(store.contains("webhook saw token *** (json"), "the event is stored, masked: {store}");
    let forms = [
        ("raw", TOKEN.to_string()),
        ("base64", b64(TOKEN)),
        ("base64 of the header", b64(&format!("Bearer {TOKEN}")).trim_end_matches('=').to_string()),
        ("hex", hex(TOKEN)),
        ("hex of the header", hex(&format!("Bearer {TOKEN}"))),
        ("JSON-escaped", json_escaped.clone()),
        ("URL-encoded", leaks::url_encoded(TOKEN)),
        ("a part", "pLuGiN+tOkEn".to_string()),
    ];
    for (what, form) in &forms {
        for (place, text) in [("stdout", &*stdout), ("stderr", &*stderr), ("the store", &*store)] {
            assert!(!text.contains(form.as_str()), "the token ({what}: {form}) leaked into {place}:\n{text}");
        }
    }
}

/// `why-pending d/web-0` on two empty 1-CPU nodes, the pod (100m) stored
/// after the failure, its one FailedScheduling event saying `message`.
fn why_pending_with_message(message: &str) -> String {
    let dir = tempfile::tempdir().expect("tmp");
    let node = |n: u32| {
        serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": format!("n{n}"), "uid": format!("u-n{n}"), "creationTimestamp": "2026-01-01T00:00:00Z"},
            "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "110"}}})
    };
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "d", "uid": "u-web", "creationTimestamp": "2026-01-01T05:00:00Z"},
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}]},
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                   "lastTransitionTime": "2026-01-01T05:40:00Z"}]}});
    let event = serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "web-0.1", "namespace": "d"},
        "involvedObject": {"kind": "Pod", "namespace": "d", "name": "web-0", "uid": "u-web"},
        "reason": "FailedScheduling", "type": "Warning", "count": 4, "message": message,
        "firstTimestamp": "2026-01-01T05:00:00Z", "lastTimestamp": "2026-01-01T05:30:00Z"});
    let files = [
        ("nodes.json", serde_json::json!({"kind": "List", "items": [node(1), node(2)]})),
        ("pod.json", pod),
        ("event.json", event),
    ];
    let db = dir.path().join("k.duckdb");
    let mut ingest = kdrift();
    ingest.arg("--db").arg(&db).args(["ingest", "file"]);
    for (name, body) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, body.to_string()).expect("write");
        ingest.arg(path);
    }
    ingest.assert().success();
    let out = kdrift().arg("--db").arg(&db).args(["why-pending", "d/web-0"]).output().expect("run");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The last cell of the node table's row for `node`.
fn fit_cell<'a>(stdout: &'a str, node: &str) -> Option<&'a str> {
    stdout.lines().find(|l| l.trim_start().starts_with(node)).and_then(|l| l.split_whitespace().next_back())
}

const FIT_FOOTNOTE: &str = "  * fits on the stored objects, yet the event says no node fit at the failure: those \
                            objects are not the failure's state (see notes)";

#[test]
fn why_pending_says_a_fit_the_event_contradicts_is_not_the_failures_state_and_names_the_unseen_taint() {
    // The event says both nodes had an untolerated taint; the stored nodes
    // (dumped later) have none. The node table said "fits" with nothing
    // pointing at the taint.
    let stdout = why_pending_with_message("0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: db}.");
    assert_eq!((fit_cell(&stdout, "n1"), fit_cell(&stdout, "n2")), (Some("fits*"), Some("fits*")), "{stdout}");
    for needle in [
        FIT_FOOTNOTE,
        "the event names the taint {dedicated: db} (on 2 nodes) that no stored Node object carries: the nodes' \
         objects were observed before it was added or after it was removed, so the filters re-evaluated on them \
         cannot show it",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in:\n{stdout}");
    }
}

#[test]
fn why_pending_does_not_call_a_fit_contradicted_by_an_event_that_names_no_modelled_filter() {
    // A binding error names no node that failed; a volume reason is not
    // re-evaluated: "fits*" and its footnote said the event contradicted the fit.
    let binding = why_pending_with_message(
        "running PreBind plugin \"VolumeBinding\": binding volumes: timed out waiting for the condition",
    );
    assert_eq!(fit_cell(&binding, "n1"), Some("fits"), "{binding}");
    assert!(!binding.contains(FIT_FOOTNOTE) && binding.contains("the latest event names no node filter that failed"));
    let volume = why_pending_with_message("0/2 nodes are available: 2 node(s) had volume node affinity conflict.");
    assert_eq!(fit_cell(&volume, "n2"), Some("fits"), "{volume}");
    assert!(
        volume.contains(
            "the event's \"node(s) didn't match PersistentVolume's node affinity\" is not re-evaluated here (kdrift \
             models NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, \
             PodTopologySpread and InterPodAffinity): a node the pod passes here may have failed it at the failure"
        ),
        "{volume}"
    );
}

#[test]
fn an_ingest_sorts_its_lookup_tables_and_keeps_the_moves_and_says_so_with_v() {
    // A bound pod (a binding and name-index entries to sort); a second
    // ingest of the same file adds nothing, so nothing is sorted again.
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let file = dir.path().join("pods.json");
    std::fs::write(
        &file,
        r#"{"kind":"List","items":[
            {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"2","pods":"110"}}},
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"d","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z"},
             "spec":{"nodeName":"n1","containers":[{"name":"c"}]},"status":{"phase":"Running"}}]}"#,
    )
    .expect("write");
    let ingest = || {
        let out = kdrift().arg("-v").arg("--db").arg(&db).args(["ingest", "file"]).arg(&file).assert().success();
        String::from_utf8_lossy(&out.get_output().stderr).to_string()
    };
    let first = ingest();
    for needle in ["sorted the name index, ", "sorted the bindings by node, ", "kept the moves of 0 drain operation(s)"]
    {
        assert!(first.contains(needle), "missing {needle:?} in:\n{first}");
    }
    let again = ingest();
    assert!(!again.contains("sorted the"), "nothing new to sort:\n{again}");
    assert!(again.contains("the kept drain moves are already those of the history"), "{again}");
    // Test fixture: the store as schema 12 left it; the next open migrates it, and says so.
    kdrift_store::Store::open(&db)
        .expect("open")
        .conn()
        .execute_batch(
            "ALTER TABLE pod_versions DROP COLUMN first_seen_late; DROP TABLE replica_set_scalings; UPDATE kdrift_meta SET value = '12' WHERE key = 'schema_version'; \
             UPDATE drain_moves_kept SET schema_version = 12;",
        )
        .expect("downgrade");
    let out = kdrift().arg("-v").arg("--db").arg(&db).arg("skew").assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    let said = format!("from schema version 12 to {}", kdrift_store::SCHEMA_VERSION);
    assert!(stderr.contains("migrating store") && stderr.contains(&said), "{stderr}");
    // Issue 38 item 3: a plain line as each step begins (stderr is not a terminal).
    let steps: Vec<&str> = stderr.lines().filter(|l| l.starts_with("kdrift: migrating the store")).collect();
    let want: Vec<String> = (13..=kdrift_store::SCHEMA_VERSION)
        .map(|v| format!("kdrift: migrating the store {} to schema v{v} (from v{}) …", db.display(), v - 1))
        .collect();
    assert_eq!(steps, want, "{stderr}");
    let out = kdrift().arg("-v").arg("--db").arg(&db).arg("skew").assert().success();
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("migrating"), "migrated once");
}

/// Issue 33, item 4: a store holding only a descheduler run (two
/// events.k8s.io/v1 `Descheduled` events, as descheduler v0.36's
/// `PodEvictor.EvictPod` records them in pkg/descheduler/evictions/evictions.go)
/// and a pre-v1 Karpenter eviction (`Evicted` "Evicted pod",
/// pkg/controllers/node/termination/eviction `PodEvictedEvent`) has no
/// drain, but `timeline drains` lists both runs and exits 0.
#[test]
fn timeline_drains_lists_a_descheduler_run_without_any_drain_and_exits_0() {
    let dir = tempfile::tempdir().expect("tmp");
    let event = |pod: &str, second: u32| {
        serde_json::json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": format!("{pod}.18a1"), "namespace": "web", "uid": format!("u-{pod}"),
                         "creationTimestamp": format!("2026-02-01T01:30:0{second}Z")},
            "eventTime": format!("2026-02-01T01:30:0{second}.000000Z"),
            "reportingController": "sigs.k8s.io.descheduler", "reportingInstance": "sigs.k8s.io.descheduler-x",
            "action": "Descheduled", "reason": "LowNodeUtilization", "type": "Normal",
            "regarding": {"kind": "Pod", "namespace": "web", "name": pod, "uid": format!("p-{pod}")},
            "note": "pod eviction from node-2 node by sigs.k8s.io/descheduler"})
    };
    let path = dir.path().join("events.json");
    let karpenter = serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "cache-5f-b1.18a2", "namespace": "web", "uid": "u-k1", "creationTimestamp": "2026-02-01T01:45:00Z"},
        "involvedObject": {"kind": "Pod", "namespace": "web", "name": "cache-5f-b1", "uid": "p-cache"},
        "reason": "Evicted", "message": "Evicted pod", "type": "Normal", "source": {"component": "karpenter"},
        "firstTimestamp": "2026-02-01T01:45:00Z", "lastTimestamp": "2026-02-01T01:45:00Z", "count": 1});
    let items = [event("api-7d-a1", 0), event("api-7d-a2", 1), karpenter];
    let list = serde_json::json!({"kind": "List", "apiVersion": "v1", "items": items});
    std::fs::write(&path, list.to_string()).expect("write");
    let db = dir.path().join("k.duckdb");
    kdrift().arg("--db").arg(&db).args(["ingest", "file"]).arg(&path).assert().success();
    let out = kdrift().arg("--db").arg(&db).args(["timeline", "drains"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "descheduler's LowNodeUtilization run at 2026-02-01T01:30:00Z: 2 pods evicted from node-2; \
             no replacement in the store"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("Karpenter's disruption (eviction) at 2026-02-01T01:45:00Z: 1 pod evicted from an unknown node; no replacement in the store"),
        "{stdout}"
    );
}

/// Issue 34 break-it: a password or token in the kubeconfig's `server:` URL
/// (user info, query) reaches no output and no store, and a kubeconfig
/// whose YAML is broken right after `token:` does not quote the token.
#[test]
fn credentials_in_the_server_url_and_around_a_kubeconfig_syntax_error_are_never_shown() {
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    let config = |server: &str, extra: &str| {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: {server}\n\
             contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n\
             users:\n- name: u\n  user:\n    token: sEcReTtOkEn5678\n{extra}"
        )
    };
    // Port 1 on 127.0.0.1: refused at once.
    let server = "http://admin:PaSsWoRdSeCrEt42@127.0.0.1:1/?access_token=QuErYtOkEn9999";
    std::fs::write(&kubeconfig, config(server, "")).expect("write");
    let db = dir.path().join("k.duckdb");
    let run = |args: &[&str]| {
        let out = kdrift().arg("--db").arg(&db).args(args).env_remove("KUBECONFIG").output().expect("run");
        (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    };
    let (code, text) = run(&["ingest", "api", "-A", "--kubeconfig", kubeconfig.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("http://127.0.0.1:1"), "the server is named without its credentials: {text}");
    let (_, runs) = run(&["query", "runs", "-o", "json"]);
    let (_, errors) = run(&["query", "run_errors", "--param", "run_id=1", "-o", "json"]);
    assert!(runs.contains("http://127.0.0.1:1"), "{runs}");
    for secret in ["PaSsWoRdSeCrEt42", "QuErYtOkEn9999", "sEcReTtOkEn5678"] {
        for (what, t) in [("output", &text), ("runs", &runs), ("run_errors", &errors)] {
            assert!(!t.contains(secret), "{secret} in the {what}: {t}");
        }
    }
    // A YAML syntax error on the line after the token: kube quotes the lines around it.
    std::fs::write(&kubeconfig, config("http://127.0.0.1:1", "preferences: {x: [}\n")).expect("write");
    let (code, text) = run(&["rebalance", "plan", "--kubeconfig", kubeconfig.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("kubeconfig"), "{text}");
    assert!(!text.contains("sEcReTtOkEn5678"), "{text}");
}

#[test]
fn ingest_api_stores_a_pages_good_items_around_a_bad_one_and_gives_up_on_a_silent_server() {
    // One bad item lost its whole page, and a list never answered held the
    // command forever (issue 34).
    use kdrift_tests::hostile_kube::{list_of, pod, Answer, HostileKube};
    let mut items: Vec<Vec<u8>> = (0..4).map(|i| pod(i, 10 + i).into_bytes()).collect();
    items[2] = br#"{"metadata":{"name":"p2","namespace":"default"},"spec":{"x":1,}}"#.to_vec();
    let page = list_of("PodList", &items);
    let kube = HostileKube::start(move |t| {
        if t.starts_with("/api/v1/pods?") {
            Some(Answer::Body(page.clone()))
        } else {
            t.starts_with("/api/v1/nodes?").then_some(Answer::Silent)
        }
    });
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let out = kdrift()
        .arg("--db")
        .arg(dir.path().join("k.duckdb"))
        .args(["-o", "json", "ingest", "api", "-A", "--request-timeout", "1", "--kubeconfig"])
        .arg(&kubeconfig)
        .env_remove("KUBECONFIG")
        .timeout(std::time::Duration::from_secs(90))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    let url = kube.url();
    for line in [
        format!(
            "kdrift: pods: page 1 of {url}/api/v1/pods, items[2]: invalid JSON: trailing comma (column 63 of the \
             item); the item is skipped, the page's other items are kept"
        ),
        format!("kdrift: nodes: {url} sent nothing for 1 s while kdrift waited for the list's answer; given up (/api/v1/nodes)"),
    ] {
        assert!(stderr.lines().any(|l| l == line), "missing {line:?} in:\n{stderr}");
    }
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("stdout is JSON");
    assert_eq!(v["status"], "partial");
    let received = |name: &str| {
        let r = v["resources"].as_array().expect("resources").iter().find(|r| r["resource"] == name).expect("resource");
        r["received"].as_u64()
    };
    assert_eq!((received("pods"), received("nodes")), (Some(3), Some(0)));
}

/// Break-it 31 F2: a list whose `metadata.resourceVersion` echoes the
/// kubeconfig's token (`hostile-token`): `ingest api`'s RESOURCE VERSION
/// column (table and `-o json`) shows `***`, a plain one stays as sent.
#[test]
fn ingest_api_shows_a_resource_version_echoing_the_token_masked() {
    use kdrift_tests::hostile_kube::{list_of, pod, Answer, HostileKube};
    let page = String::from_utf8(list_of("PodList", &[pod(0, 10).into_bytes()])).expect("utf-8").replacen(
        r#""resourceVersion":"100""#,
        r#""resourceVersion":"hostile-token""#,
        1,
    );
    let kube =
        HostileKube::start(move |t| t.starts_with("/api/v1/pods?").then(|| Answer::Body(page.clone().into_bytes())));
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let run = |json: bool| {
        let mut c = kdrift();
        c.arg("--db").arg(dir.path().join("k.duckdb"));
        if json {
            c.args(["-o", "json"]);
        }
        let out = c
            .args(["ingest", "api", "-A", "--kubeconfig"])
            .arg(&kubeconfig)
            .env_remove("KUBECONFIG")
            .assert()
            .success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
        assert!(!text.contains("hostile-token"), "{text}");
        text
    };
    let table = run(false);
    let rv = |resource: &str| {
        let line = table.lines().find(|l| l.trim_start().starts_with(&format!("{resource} "))).expect("row");
        line.split_whitespace().nth(4).map(str::to_string)
    };
    assert_eq!((rv("pods").as_deref(), rv("nodes").as_deref()), (Some("***"), Some("100")), "{table}");
    let v: serde_json::Value = serde_json::from_str(&run(true)).expect("stdout is JSON");
    let pods = v["resources"].as_array().expect("resources").iter().find(|r| r["resource"] == "pods").expect("pods");
    assert_eq!((pods["resource_version"].as_str(), pods["received"].as_u64()), (Some("***"), Some(1)));
}

/// A store at `db` of the demo's (seed 1) after-the-fact files named in `keep`
/// ([`kdrift_tests::after_the_fact`]), loaded with `kdrift ingest file`.
fn after_the_fact_store(dir: &std::path::Path, db: &std::path::Path, keep: &[&str]) {
    let scenario = kdrift_scenario::generate(&kdrift_scenario::ScenarioConfig { seed: 1, scale: 1 });
    let files: Vec<_> = kdrift_tests::after_the_fact::write_files(&scenario, dir)
        .into_iter()
        .filter(|p| keep.iter().any(|k| p.ends_with(k)))
        .collect();
    kdrift().arg("--db").arg(db).args(["ingest", "file"]).args(&files).assert().success();
}

#[test]
fn postmortem_job_tells_the_deleted_pending_pods_chain_from_the_last_hours_events() {
    // The demo cut down to a 05:30:01 dump and the last hour's events: the
    // Job's `Deleted pod:` event names the pod, and its section carries the
    // why-pending chain, marked as reconstructed.
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("atf.duckdb");
    after_the_fact_store(dir.path(), &db, &["events.json", "pods.json", "nodes.json", "jobs.json", "cronjobs.json"]);
    let out = kdrift().arg("--db").arg(&db).args(["postmortem", "job", "backup"]).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |line: &str| lines.iter().position(|l| *l == line).unwrap_or_else(|| panic!("no {line:?} in:\n{stdout}"));
    let deleted = at("  2026-11-28T05:30:00Z  Job Normal SuccessfulDelete: Deleted pod: backup-29930640-5l8lp");
    let pod = at("  pod backup-29930640-5l8lp never started (deleted unscheduled)");
    assert!(deleted < pod);
    assert_eq!(
        lines[pod + 1],
        "    reconstructed: its object is not in the store; known from the Job's `Deleted pod:` event and its own events"
    );
    let short = at("      node-1 cpu: the pod requests 100m, 58m free → 42m short (from the owner's template)");
    assert!(pod < short);
    at("      left after the constraints: node-1 (from the owner's template)");

    // The Jobs without events or pods: one line of what was looked for.
    let bare = tempfile::tempdir().expect("tmp");
    let db = bare.path().join("bare.duckdb");
    after_the_fact_store(bare.path(), &db, &["jobs.json", "cronjobs.json"]);
    let out = kdrift().arg("--db").arg(&db).args(["postmortem", "job", "backup-29930640"]).assert();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    // A Job's postmortem opens with its own line (new-user trial 46: an empty one first).
    assert!(stdout.starts_with("Job backup-29930640 (created by CronJob/backup): "), "{stdout}");
    assert!(
        stdout.lines().any(|l| l
            == "  no pod of Job media/backup-29930640 in the store (looked for pods owned by the Job, its `Created pod:` \
                and `Deleted pod:` events, and events of pods named backup-29930640-xxxxx since its creation)"),
        "{stdout}"
    );
}

#[test]
fn why_pending_finds_a_pasted_pod_by_name_alone_and_counts_its_wait_to_the_listing() {
    // `kubectl get pod,node -o yaml` pasted at 05:15, no event: the name
    // alone finds it, pending from its creation (04:00) to the listing.
    let scenario = kdrift_scenario::generate(&kdrift_scenario::ScenarioConfig { seed: 1, scale: 1 });
    let listed = scenario.facts.job_created_at + chrono::Duration::minutes(75);
    let dir = tempfile::tempdir().expect("tmp");
    let (db, pod, other) = (dir.path().join("p.duckdb"), dir.path().join("pod.yaml"), dir.path().join("other.yaml"));
    std::fs::write(&pod, kdrift_tests::after_the_fact::pasted_pod_yaml(&scenario, listed, None)).expect("write");
    kdrift().arg("--db").arg(&db).args(["ingest", "file"]).arg(&pod).assert().success();
    let out = kdrift().arg("--db").arg(&db).args(["why-pending", "backup-29930640-5l8lp"]).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "Pod media/backup-29930640-5l8lp  (uid 55d2bfac-6273-40b2-9cfe-23b7664918e2)", "{stdout}");
    assert_eq!(lines[1], "  failed to schedule 1 time in 1 event, from 2026-11-28T04:00:00Z to 2026-11-28T05:15:00Z");
    assert_eq!(lines[2], "  outcome: not seen scheduled: pending for at least 1h 15m");
    let out = kdrift().arg("--db").arg(&db).args(["why-pending", "--all"]).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.lines().any(|l| l.starts_with(" media/backup-29930640-5l8lp   at least 1h 15m   2026-11-28T04:00:00Z ")),
        "{stdout}"
    );

    // Pasted in a second namespace too: the name alone is ambiguous.
    std::fs::write(&other, kdrift_tests::after_the_fact::pasted_pod_yaml(&scenario, listed, Some("other")))
        .expect("write");
    kdrift().arg("--db").arg(&db).args(["ingest", "file"]).arg(&other).assert().success();
    kdrift().arg("--db").arg(&db).args(["why-pending", "backup-29930640-5l8lp"]).assert().code(2).stderr(
        predicate::str::contains(
            "pods named backup-29930640-5l8lp failed to schedule in several namespaces: give one of \
             media/backup-29930640-5l8lp, other/backup-29930640-5l8lp",
        ),
    );
}

/// A proxy on 127.0.0.1, HTTP CONNECT or (`socks`) SOCKS5 without
/// authentication: its URL, and for each tunnel it opened what it was
/// asked (the CONNECT request's head; `SOCKS5 CONNECT host:port`).
fn tunnel_proxy(socks: bool) -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream};
    /// What a client asked of the SOCKS5 proxy: the target (`ip:port`).
    fn socks_target(client: &mut TcpStream) -> Option<String> {
        let mut greeting = [0u8; 2];
        client.read_exact(&mut greeting).ok()?;
        let mut methods = vec![0u8; usize::from(greeting[1])];
        client.read_exact(&mut methods).ok()?;
        client.write_all(&[5, 0]).ok()?;
        let mut request = [0u8; 4];
        client.read_exact(&mut request).ok()?;
        let host = match request[3] {
            1 => {
                let mut ip = [0u8; 4];
                client.read_exact(&mut ip).ok()?;
                std::net::Ipv4Addr::from(ip).to_string()
            }
            3 => {
                let mut len = [0u8; 1];
                client.read_exact(&mut len).ok()?;
                let mut name = vec![0u8; usize::from(len[0])];
                client.read_exact(&mut name).ok()?;
                String::from_utf8(name).ok()?
            }
            _ => return None,
        };
        let mut port = [0u8; 2];
        client.read_exact(&mut port).ok()?;
        Some(format!("{host}:{}", u16::from_be_bytes(port)))
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let scheme = if socks { "socks5" } else { "http" };
    let url = format!("{scheme}://{}", listener.local_addr().expect("addr"));
    let (heads, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let (Ok(mut client), heads) = (conn, heads.clone()) else { continue };
            std::thread::spawn(move || {
                let target = if socks {
                    let Some(target) = socks_target(&mut client) else { return };
                    let _ = heads.send(format!("SOCKS5 CONNECT {target}"));
                    target
                } else {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match client.read(&mut byte) {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    let head = String::from_utf8_lossy(&head).to_string();
                    let target = head.split_whitespace().nth(1).unwrap_or_default().to_string();
                    let _ = heads.send(head);
                    target
                };
                let Ok(mut server) = TcpStream::connect(&target) else {
                    let refused: &[u8] =
                        if socks { &[5, 5, 0, 1, 0, 0, 0, 0, 0, 0] } else { b"HTTP/1.1 502 Bad Gateway\r\n\r\n" };
                    let _ = client.write_all(refused);
                    return;
                };
                let ok: &[u8] = if socks {
                    &[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]
                } else {
                    b"HTTP/1.1 200 Connection established\r\n\r\n"
                };
                let _ = client.write_all(ok);
                let (Ok(mut from_client), Ok(mut to_server)) = (client.try_clone(), server.try_clone()) else { return };
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from_client, &mut to_server);
                    let _ = to_server.shutdown(Shutdown::Write);
                });
                let _ = std::io::copy(&mut server, &mut client);
                let _ = client.shutdown(Shutdown::Write);
            });
        }
    });
    (url, received)
}

/// `kdrift ingest api -A` of `kube` through a kubeconfig whose cluster has
/// `proxy-url: PROXY`: its stdout and stderr (asserting success).
fn ingest_api_through(kube: &kdrift_tests::fake_kube::FakeKube, proxy: &str) -> (String, String) {
    let server = format!("server: {}\n", kube.url());
    let text = kube.kubeconfig(None).replacen(&server, &format!("{server}    proxy-url: {proxy}\n"), 1);
    assert!(text.contains("proxy-url"), "{text}");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, text).expect("write");
    let out = kdrift()
        .arg("--db")
        .arg(dir.path().join("p.duckdb"))
        .args(["ingest", "api", "-A", "--kubeconfig"])
        .arg(&kubeconfig)
        .env_remove("KUBECONFIG")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .assert()
        .success();
    let output = out.get_output();
    (String::from_utf8_lossy(&output.stdout).to_string(), String::from_utf8_lossy(&output.stderr).to_string())
}

/// Break-it 34: a kubeconfig's `proxy-url:` failed with kube's "requires
/// the disabled feature kube/http-proxy". kdrift now reaches the API
/// server through it (HTTP CONNECT), with the proxy's Basic credentials
/// from the URL, and prints none of them.
#[test]
fn ingest_api_reaches_the_server_through_the_kubeconfigs_proxy_url() {
    use kdrift_tests::fake_kube::FakeKube;
    let kube = FakeKube::start();
    for i in 0..3 {
        kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("p-{i}"), "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}, "status": {"phase": "Pending"}}))
            .expect("pod");
    }
    let (proxy, heads) = tunnel_proxy(false);
    let (stdout, stderr) = ingest_api_through(&kube, &proxy.replace("http://", "http://pxuser:ProxyPw9zQ7x@"));
    let pods_line = stdout.lines().find(|l| l.trim_start().starts_with("pods ")).expect("pods row");
    assert_eq!(pods_line.split_whitespace().nth(1), Some("3"), "{stdout}");
    let heads: Vec<String> = heads.try_iter().collect();
    let authority = kube.url().trim_start_matches("http://").trim_end_matches('/').to_string();
    assert!(!heads.is_empty(), "no tunnel asked");
    let basic = kdrift_tests::leaks::base64_of("pxuser:ProxyPw9zQ7x");
    for head in &heads {
        assert!(head.starts_with(&format!("CONNECT {authority} HTTP/1.1\r\n")), "{head}");
        let auth = format!("proxy-authorization: basic {basic}\r\n").to_ascii_lowercase();
        assert!(head.to_ascii_lowercase().contains(&auth), "{head}");
    }
    assert!(!stdout.contains("ProxyPw9zQ7x") && !stderr.contains("ProxyPw9zQ7x"), "{stdout}{stderr}");
    // `socks5://` (kube's `socks5` feature), as kubectl takes it.
    let (socks, asked) = tunnel_proxy(true);
    let (stdout, _) = ingest_api_through(&kube, &socks);
    let pods_line = stdout.lines().find(|l| l.trim_start().starts_with("pods ")).expect("pods row");
    assert_eq!(pods_line.split_whitespace().nth(1), Some("3"), "{stdout}");
    let asked: Vec<String> = asked.try_iter().collect();
    assert!(!asked.is_empty() && asked.iter().all(|a| *a == format!("SOCKS5 CONNECT {authority}")), "{asked:?}");
}

/// Break-it 40 F9: a `socks5://user:pass@` proxy (the kubeconfig's
/// `proxy-url`, or `HTTPS_PROXY`) had its credentials dropped silently: the
/// client greeted the proxy with no authentication. kdrift cannot send
/// them, so it refuses before any request, naming where the proxy was set,
/// the password masked.
#[test]
fn ingest_api_refuses_a_socks5_proxy_with_credentials_before_any_request() {
    use kdrift_tests::fake_kube::FakeKube;
    let kube = FakeKube::start();
    let (socks, asked) = tunnel_proxy(true);
    let with_credentials = socks.replace("socks5://", "socks5://pxuser:SocksPw9zQ7x@");
    let dir = tempfile::tempdir().expect("tmp");
    let server = format!("server: {}\n", kube.url());
    let text = kube.kubeconfig(None).replacen(&server, &format!("{server}    proxy-url: {with_credentials}\n"), 1);
    let proxied = dir.path().join("proxied");
    std::fs::write(&proxied, text).expect("write");
    let plain = kube.write_kubeconfig(dir.path());
    let shown = socks.replace("socks5://", "socks5://pxuser:***@");
    for (kubeconfig, https_proxy, origin) in [
        (&proxied, None, format!("the proxy-url of the context's cluster in kubeconfig {}", proxied.display())),
        (&plain, Some(with_credentials.as_str()), "HTTPS_PROXY".to_string()),
    ] {
        let mut cmd = kdrift();
        cmd.arg("--db").arg(dir.path().join("s.duckdb")).args(["ingest", "api", "-A", "--kubeconfig"]).arg(kubeconfig);
        for var in ["KUBECONFIG", "NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy"] {
            cmd.env_remove(var);
        }
        if let Some(proxy) = https_proxy {
            cmd.env("HTTPS_PROXY", proxy);
        }
        let out = cmd.assert().failure();
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(
            stderr.trim_end(),
            format!(
                "kdrift: error: {origin} is {shown}: a SOCKS5 proxy with a user and password, which kdrift cannot \
                 send (its SOCKS5 client offers no authentication, so the proxy would refuse it or let it through \
                 unauthenticated); expected a socks5:// proxy that needs no credentials, or an http:// or https:// \
                 proxy (their user and password are sent as Proxy-Authorization)"
            ),
            "{stdout}"
        );
        assert!(!stdout.contains("SocksPw9zQ7x"), "{stdout}");
    }
    assert_eq!(asked.try_iter().count(), 0, "no tunnel is asked of the proxy");
}

/// Break-it 40 F11: a kubeconfig `tokenFile` that cannot be read (or holds
/// a line break) was found at the first request of each resource: the same
/// error printed 13 times. It is read once before any request: one error.
#[test]
fn ingest_api_says_once_that_the_token_file_cannot_be_used() {
    use kdrift_tests::fake_kube::FakeKube;
    let kube = FakeKube::start();
    let dir = tempfile::tempdir().expect("tmp");
    let missing = dir.path().join("missing-token");
    let broken = dir.path().join("broken-token");
    std::fs::write(&broken, "TokPartOne\nTokPartTwo\n").expect("write");
    for (file, cause) in [
        (&missing, "No such file or directory (os error 2)".to_string()),
        (
            &broken,
            "its token holds the control character U+000A at character 11 of 21: an HTTP header cannot carry it (a \
             stray line break in the kubeconfig or in the exec plugin's output?); expected the token alone, \
             printable characters on one line"
                .to_string(),
        ),
    ] {
        let text =
            kube.kubeconfig(None).replace("    token: fake-token\n", &format!("    tokenFile: {}\n", file.display()));
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::write(&kubeconfig, text).expect("write");
        let out = kdrift()
            .arg("--db")
            .arg(dir.path().join("t.duckdb"))
            .args(["ingest", "api", "-A", "--kubeconfig"])
            .arg(&kubeconfig)
            .env_remove("KUBECONFIG")
            .assert()
            .failure();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(
            stderr.lines().collect::<Vec<_>>(),
            [format!("kdrift: error: the token file {}: {cause}", file.display())],
            "{stderr}"
        );
        assert!(!stderr.contains("TokPart"), "{stderr}");
    }
}

/// Break-it 40 F8: a credential that is ordinary text but not letters only
/// (`default-scheduler`, `Insufficient cpu`) masked stored records with no
/// warning. It is warned about when loaded, naming its source, and again
/// when a record being stored holds it; the record is stored masked (the
/// documented choice: a credential never reaches the store).
#[test]
fn a_credential_that_is_a_name_or_a_phrase_is_warned_about_and_so_is_a_record_holding_it() {
    use kdrift_tests::fake_kube::FakeKube;
    let kube = FakeKube::start();
    kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "web-0.1", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-0"},
        "source": {"component": "default-scheduler"}, "reason": "FailedScheduling", "type": "Warning",
        "message": "0/3 nodes are available: 3 Insufficient cpu."}))
        .expect("event");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, kube.kubeconfig(None).replace("token: fake-token", "token: default-scheduler"))
        .expect("kubeconfig");
    let db = dir.path().join("w.duckdb");
    let out = kdrift()
        .arg("--db")
        .arg(&db)
        .args(["ingest", "api", "-A", "--kubeconfig"])
        .arg(&kubeconfig)
        .env_remove("KUBECONFIG")
        .env_remove("KDRIFT_LOG")
        .output()
        .expect("run");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let events = stdout.lines().find(|l| l.trim_start().starts_with("events ")).expect("events row");
    assert_eq!(events.split_whitespace().nth(1), Some("1"), "{stdout}");
    let loaded = "the token of kubeconfig user fake is words joined by `-`, `_` or `.`, like a name: wherever that \
                  text or any 12+ characters of it appear in an error, a log line or a stored record (a component's \
                  or an object's name, an Event's message), they are masked (***)";
    let found = "the token of kubeconfig user fake appears in a record being stored (an object's field or name, a \
                 measured name) and is masked there (***)";
    assert_eq!(stderr.matches(loaded).count(), 1, "{stderr}");
    assert_eq!(stderr.matches(found).count(), 1, "{stderr}");
    assert!(!stderr.contains("default-scheduler"), "{stderr}");
    let store = kdrift_tests::leaks::store_text(&db);
    assert!(store.contains(r#""component":"***""#) && !store.contains("default-scheduler"), "{store}");
    // A phrase: said when loaded, never its value.
    let out = kdrift()
        .arg("--db")
        .arg(dir.path().join("v.duckdb"))
        .args(["ingest", "victorialogs", "--url", "http://127.0.0.1:9", "--user", "kd", "--attempts", "1"])
        .args(["--start", "2026-01-01T00:00:00Z", "--end", "2026-01-01T01:00:00Z"])
        .env("KDRIFT_VL_PASSWORD", "Insufficient cpu")
        .env_remove("KDRIFT_LOG")
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    let phrase = "the password from KDRIFT_VL_PASSWORD is text with blanks, like a phrase: wherever that text, one \
                  of its words of 8+ characters or any 12+ characters of it appear in an error, a log line or a \
                  stored record (an Event's message), they are masked (***)";
    assert_eq!(stderr.matches(phrase).count(), 1, "{stderr}");
    assert!(!stderr.contains("Insufficient"), "{stderr}");
}

/// Break-it 34: a held credential that is an ordinary word masks that word
/// in everything kdrift shows and stores, silently. It is said once on
/// stderr, naming where it came from, never the value.
#[test]
fn a_credential_that_is_an_ordinary_word_is_warned_about_naming_its_source_not_its_value() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = kdrift()
        .arg("--db")
        .arg(dir.path().join("w.duckdb"))
        .args(["ingest", "victorialogs", "--url", "http://127.0.0.1:9", "--user", "kd", "--attempts", "1"])
        .args(["--start", "2026-01-01T00:00:00Z", "--end", "2026-01-01T01:00:00Z"])
        .env("KDRIFT_VL_PASSWORD", "Insufficient")
        .env_remove("KDRIFT_LOG")
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    let warning = "the password from KDRIFT_VL_PASSWORD is letters only, like a word: wherever that word appears \
                   in an error, a log line or a stored record (an Event's message), it is masked (***)";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
    assert!(!stderr.contains("Insufficient"), "{stderr}");
}
