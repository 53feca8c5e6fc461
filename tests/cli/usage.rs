//! `kdrift ingest prometheus` and `kdrift query usage_samples` as users run
//! them, against the real VictoriaMetrics (`../shared/tools`): the
//! per-window summary, the samples in millicores and bytes, and the
//! errors that name what to fix.

use assert_cmd::Command;
use kdrift_tests::real_vlogs::RealVmetrics;

/// node-1 at 1.5 cores (a counter rising 1.5 s per second) and 6 GiB used
/// of 8 GiB, every 30 s from 2026-11-13T00:00:00Z for 30 minutes.
fn exposition() -> String {
    let mut out = String::new();
    for k in 0..=60i64 {
        let ms = (1_794_528_000 + 30 * k) * 1000;
        out.push_str(&format!(
            "node_cpu_seconds_total{{node=\"node-1\",instance=\"10.0.0.1:9100\",cpu=\"0\",mode=\"user\"}} {} {ms}\n",
            45 * k
        ));
        out.push_str(&format!(
            "node_memory_MemTotal_bytes{{node=\"node-1\",instance=\"10.0.0.1:9100\"}} {} {ms}\n",
            8u64 << 30
        ));
        out.push_str(&format!(
            "node_memory_MemAvailable_bytes{{node=\"node-1\",instance=\"10.0.0.1:9100\"}} {} {ms}\n",
            2u64 << 30
        ));
    }
    out
}

fn kdrift(db: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("kdrift").expect("binary");
    c.arg("--db").arg(db).env_remove("KDRIFT_PROM_PASSWORD").env_remove("KDRIFT_PROM_BEARER_TOKEN");
    c
}

#[test]
fn ingest_prometheus_prints_its_windows_and_query_usage_samples_shows_millicores_and_bytes() {
    let Some(vm) = RealVmetrics::victoria_metrics_or_skip("ingest_prometheus_prints_its_windows") else { return };
    vm.post("/api/v1/import/prometheus", exposition());
    vm.flush();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let range = ["--start", "2026-11-13T00:10:00Z", "--end", "2026-11-13T00:11:00Z"];
    let out = kdrift(&db).args(["ingest", "prometheus", "--url", &vm.url()]).args(range).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let last = stdout.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!(
            "2 usage samples from {} in 1 window: 2 new, 0 already stored, 0 input errors → {}",
            vm.url(),
            db.display()
        )
    );
    let out = kdrift(&db)
        .args(["--output", "json", "query", "usage_samples", "--param", "since_us=2026-11-13T00:00:00Z"])
        .args(["--param", "until_us=2026-11-14T00:00:00Z"])
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let row = |at: &str| {
        serde_json::json!({"sampled_at": at, "kind": "node", "node": "node-1", "namespace": null, "pod": null,
                           "cpu_millis": 1500, "memory_bytes": 6442450944u64, "source": "prometheus", "run_id": 1})
    };
    assert_eq!(rows, serde_json::json!([row("2026-11-13T00:10:00Z"), row("2026-11-13T00:10:30Z")]));
    // Credentials in the URL are refused before anything is created.
    let other = dir.path().join("other.duckdb");
    let out = kdrift(&other)
        .args(["ingest", "prometheus", "--url", "http://kuser:Pw9zQ7secretX@127.0.0.1:9"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("Pw9zQ7secretX"), "{stderr}");
    assert!(stderr.contains("set KDRIFT_PROM_USER and KDRIFT_PROM_PASSWORD"), "{stderr}");
    assert!(!other.exists());
}

#[test]
fn ingest_prometheus_again_with_the_memory_queries_counts_the_memory_filled_in_as_new() {
    // Break-it 36 F2: the second pull said "0 new, 2 already stored" and
    // the memory was lost.
    let Some(vm) = RealVmetrics::victoria_metrics_or_skip("ingest_prometheus_again_with_the_memory_queries") else {
        return;
    };
    vm.post("/api/v1/import/prometheus", exposition());
    vm.flush();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let range = ["--start", "2026-11-13T00:10:00Z", "--end", "2026-11-13T00:11:00Z"];
    let summary = |extra: &[&str]| {
        let out =
            kdrift(&db).args(["ingest", "prometheus", "--url", &vm.url()]).args(range).args(extra).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).lines().last().unwrap_or_default().to_string()
    };
    let line = |new: u32, old: u32| {
        format!(
            "2 usage samples from {} in 1 window: {new} new, {old} already stored, 0 input errors → {}",
            vm.url(),
            db.display()
        )
    };
    assert_eq!(summary(&["--query", "node_memory=", "--query", "pod_memory="]), line(2, 0));
    assert_eq!(summary(&[]), line(2, 0), "the memory filled in is new");
    assert_eq!(summary(&[]), line(0, 2));
    let out = kdrift(&db)
        .args(["--output", "json", "query", "usage_samples", "--param", "since_us=2026-11-13T00:10:30Z"])
        .args(["--param", "until_us=2026-11-13T00:11:00Z", "--param", "node=node-1"])
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(
        rows,
        serde_json::json!([{"sampled_at": "2026-11-13T00:10:30Z", "kind": "node", "node": "node-1", "namespace": null,
                            "pod": null, "cpu_millis": 1500, "memory_bytes": 6442450944u64, "source": "prometheus",
                            "run_id": 1}])
    );
}

/// A store with [`kdrift_tests::hot_node`]'s cluster and its usage samples
/// stored directly (no server).
fn hot_store(samples: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    kdrift_tests::hot_node::temp_store(samples)
}

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).to_string()
}

/// The table's lines, each without its trailing blanks.
fn lines(text: &str) -> Vec<String> {
    text.lines().map(|l| l.trim_end().to_string()).collect()
}

#[test]
fn skew_usage_prints_requested_and_used_side_by_side_and_the_pods_driving_the_hot_node() {
    let (_dir, db) = hot_store(true);
    let out = kdrift(&db).args(["skew", "--usage", "--at", "2026-11-13T02:00:00Z"]).assert().success();
    assert_eq!(
        lines(&stdout_of(&out)),
        [
            "Requested % and used % of allocatable at 2026-11-13T02:00:00Z (usage: latest sample (≤ 15m old); hot at \
             80 %)",
            " NODE     CPU REQUESTED   CPU USED   MEMORY REQUESTED   MEMORY USED   SAMPLED",
            " node-1   50.0 %          40.0 %     50.0 %             43.8 %        2026-11-13T02:00:00Z",
            " node-2   45.0 %          37.5 %     50.0 %             34.4 %        2026-11-13T02:00:00Z",
            " node-3   50.0 %          97.5 %     50.0 %             43.8 %        2026-11-13T02:00:00Z",
            " node-4   55.0 %          45.0 %     50.0 %             43.8 %        2026-11-13T02:00:00Z",
            "Hot in fact, not on paper (used ≥ 80 %, requested below):",
            "  node-3 cpu: 97.5 % used, 50.0 % requested",
            "     POD                        USED    REQUESTED   USED/REQUESTED",
            "     batch/crunch-5f6b8-m3n8v   1100m   500m        2.20×",
            "     batch/crunch-5f6b8-q7w4z   1100m   500m        2.20×",
            "     batch/crunch-5f6b8-xk2p9   1100m   500m        2.20×",
            "     web/api-4                  400m    500m        0.80×",
            "Hot on paper, not in fact (requested ≥ 80 %, used below):",
            "  none",
        ]
    );
    let out = kdrift(&db).args(["-o", "json", "skew", "--usage", "--at", "2026-11-13T02:00:00Z"]).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(json["at"], "2026-11-13T02:00:00Z");
    assert_eq!(
        json["nodes"][2]["resources"][0],
        serde_json::json!({"resource": "cpu", "allocatable": 4000, "requested": 2000, "requested_percent": 50.0,
                           "used": 3900, "used_percent": 97.5})
    );
    assert_eq!(
        json["hot_not_requested"][0]["pods"][0],
        serde_json::json!({"namespace": "batch", "name": "crunch-5f6b8-m3n8v", "used": 1100, "requested": 500,
                           "ratio": 2.2})
    );
    assert_eq!(json["requested_not_used"], serde_json::json!([]));
    // 20 minutes after the last sample with a 5-minute window: "no sample", not 0, and exit 1.
    // The why on stderr (docs/cli.md "Nothing found"), the table on stdout.
    let out = kdrift(&db).args(["skew", "--usage", "--at", "2026-11-13T04:20:00Z", "--window", "5m"]).assert().code(1);
    let text = lines(&stdout_of(&out));
    assert_eq!(text[2], " node-1   50.0 %          no sample   50.0 %             no sample     -");
    assert!(!text.iter().any(|l| l.contains("measured usage")), "{text:#?}");
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        "kdrift: no measured usage: no node has a usage sample in the 5 minutes up to 2026-11-13T04:20:00Z (latest \
         sample (≤ 5m old)); the store's samples span 2026-11-13T00:00:00Z to 2026-11-13T04:00:00Z\n"
    );
}

#[test]
fn hotspots_prints_the_episode_its_pods_and_the_rollout_that_put_them_there() {
    let (_dir, db) = hot_store(true);
    let out = kdrift(&db).args(["hotspots"]).assert().success();
    let rollout = "rollout of batch/crunch: Scaled up replica set crunch-5f6b8 from 0 to 3";
    assert_eq!(
        lines(&stdout_of(&out)),
        [
            "Hotspots from 2026-11-13T00:00:00Z to 2026-11-13T04:00:00Z: cpu or memory used ≥ 80 % of allocatable \
             for 3 steps of 5m in a row"
                .to_string(),
            " NODE     RESOURCE   FROM                   TO                     LASTED   PEAK USED   MEAN USED   \
             REQUESTED"
                .to_string(),
            " node-3   cpu        2026-11-13T01:00:00Z   2026-11-13T03:00:00Z   2h 0m    97.5 %      97.5 %      \
             50.0 %"
                .to_string(),
            "  node-3 cpu from 2026-11-13T01:00:00Z: the pods measured there".to_string(),
            "     POD                        USED (MEAN)   REQUESTED   USED/REQUESTED   BOUND                  BROUGHT BY"
                .to_string(),
            format!("     batch/crunch-5f6b8-m3n8v   1100m         500m        2.20×            2026-11-13T00:55:00Z   {rollout}"),
            format!("     batch/crunch-5f6b8-q7w4z   1100m         500m        2.20×            2026-11-13T00:55:00Z   {rollout}"),
            format!("     batch/crunch-5f6b8-xk2p9   1100m         500m        2.20×            2026-11-13T00:55:00Z   {rollout}"),
            "     web/api-4                  400m          500m        0.80×            2026-11-12T23:00:00Z   created by \
             ReplicaSet/api-6d5f"
                .to_string(),
            "  1 shorter run above 80 % (spikes under 3 steps) not reported".to_string(),
        ]
    );
    // One step of 10 minutes in a row at 90 %: node-1's spike (30m–40m at 95 %) is an episode too.
    let out = kdrift(&db)
        .args(["-o", "json", "hotspots", "--since", "2026-11-13T00:00:00Z", "--until", "2026-11-13T04:00:00Z"])
        .args(["--threshold", "90", "--for", "1", "--step", "10m"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let episodes: Vec<String> = json["episodes"]
        .as_array()
        .expect("episodes")
        .iter()
        .map(|e| format!("{} {} {} {} {}", e["node"], e["resource"], e["started_at"], e["ended_at"], e["windows"]))
        .collect();
    assert_eq!(
        episodes,
        [
            r#""node-1" "cpu" "2026-11-13T00:30:00Z" "2026-11-13T00:40:00Z" 1"#,
            r#""node-3" "cpu" "2026-11-13T01:00:00Z" "2026-11-13T03:00:00Z" 12"#,
        ]
    );
    assert_eq!(json["episodes"][0]["pods"][0]["name"], "api-1");
    assert_eq!(json["episodes"][0]["pods"][0]["used"], 1800);
    assert_eq!(
        json["episodes"][1]["pods"][0]["arrival"],
        serde_json::json!({"kind": "scale-up", "deployment": "batch/crunch", "at": "2026-11-13T00:54:55Z",
                           "message": "Scaled up replica set crunch-5f6b8 from 0 to 3", "rollout": true})
    );
}

#[test]
fn with_no_usage_sample_in_the_store_both_commands_say_how_to_get_some_and_exit_1() {
    let (_dir, db) = hot_store(false);
    let how = "kdrift: no measured usage: the store holds no usage samples: load them with `kdrift ingest \
               prometheus --url URL` (node-exporter, cAdvisor), `kdrift record` or `kdrift ingest api` \
               (metrics.k8s.io, metrics-server), or `kdrift ingest file` of saved `kubectl top nodes` / `kubectl top \
               pods -A` output\n";
    // On stderr: stdout has only the (empty) table.
    for args in [&["skew", "--usage"][..], &["hotspots"][..]] {
        let out = kdrift(&db).args(args).assert().code(1);
        assert_eq!(stdout_of(&out), "", "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.get_output().stderr), how, "{args:?}");
    }
}

const TOP_NODES: &str = "NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)
node-1   1942m        97%      4876Mi          61%
node-2   250m         12%      1Gi             10%
";

const TOP_PODS: &str = "NAMESPACE   NAME     CPU(cores)   MEMORY(bytes)
web         api-1    75m          128Mi
web         api-2    lots         128Mi
batch       w-1      100m         64Mi
";

#[test]
fn ingest_file_of_kubectl_top_tables_stores_one_sample_per_row_at_the_given_instant_and_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let (nodes, pods) = (dir.path().join("top-nodes.txt"), dir.path().join("top-pods.txt"));
    std::fs::write(&nodes, TOP_NODES).expect("write");
    std::fs::write(&pods, TOP_PODS).expect("write");
    let ingest = || {
        let out = kdrift(&db)
            .args(["ingest", "file", "--at", "2026-11-13T00:00:00Z"])
            .arg(&nodes)
            .arg(&pods)
            .assert()
            .code(2)
            .get_output()
            .clone();
        (String::from_utf8_lossy(&out.stdout).to_string(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (stdout, stderr) = ingest();
    let line = |run: u32, n: &str, what: &str, file: &std::path::Path, new: u32, old: u32, errors: &str| {
        format!(
            "run {run}: {n} (kubectl top {what}) from {} at 2026-11-13T00:00:00Z: {new} new, {old} already stored, \
             {errors} → {}",
            file.display(),
            db.display()
        )
    };
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            line(1, "2 usage samples", "nodes", &nodes, 2, 0, "0 input errors"),
            line(2, "2 usage samples", "pods", &pods, 2, 0, "1 input error")
        ]
    );
    // The bad row is named by file and line; the rows around it are stored.
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [format!(
            "kdrift: {}:3: api-2: cpu \"lots\" is not a quantity (expected a number with an optional suffix, such \
             as 100m, 0.5, 2, 1e3, 128Mi or 1G)",
            pods.display()
        )]
    );
    // Ingesting the same files again adds nothing.
    let (stdout, _) = ingest();
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            line(3, "2 usage samples", "nodes", &nodes, 0, 2, "0 input errors"),
            line(4, "2 usage samples", "pods", &pods, 0, 2, "1 input error")
        ]
    );
    let out = kdrift(&db)
        .args(["--output", "json", "query", "usage_samples", "--param", "since_us=2026-11-13T00:00:00Z"])
        .args(["--param", "until_us=2026-11-14T00:00:00Z"])
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let got: Vec<(String, i64, i64, &str, &str)> = rows
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let name = r["node"].as_str().or(r["pod"].as_str()).unwrap_or_default();
            let ns = r["namespace"].as_str().map(|n| format!("{n}/")).unwrap_or_default();
            let (cpu, mem) = (r["cpu_millis"].as_i64().unwrap_or(-1), r["memory_bytes"].as_i64().unwrap_or(-1));
            let (at, source) = (r["sampled_at"].as_str().unwrap_or_default(), r["source"].as_str().unwrap_or_default());
            (format!("{ns}{name}"), cpu, mem, at, source)
        })
        .collect();
    let row = |o: &str, cpu: i64, mem: i64| (o.to_string(), cpu, mem, "2026-11-13T00:00:00Z", "kubectl-top");
    assert_eq!(
        got,
        [
            row("node-1", 1942, 4876 << 20),
            row("node-2", 250, 1 << 30),
            row("batch/w-1", 100, 64 << 20),
            row("web/api-1", 75, 128 << 20)
        ]
    );
}

#[test]
fn ingest_file_reads_a_kubectl_top_table_in_a_directory_beside_dumps_at_its_modification_time() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let input = dir.path().join("saved");
    std::fs::create_dir(&input).expect("mkdir");
    let top = input.join("top-nodes.txt");
    std::fs::write(&top, TOP_NODES).expect("write");
    // 2026-11-13T06:30:00Z
    let mtime = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_794_551_400);
    std::fs::File::options().write(true).open(&top).expect("open").set_modified(mtime).expect("mtime");
    let node = serde_json::json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node-1", "uid": "n-1", "resourceVersion": "1", "creationTimestamp": "2026-11-13T00:00:00Z"},
        "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}});
    std::fs::write(input.join("nodes.json"), serde_json::json!({"kind": "List", "items": [node]}).to_string())
        .expect("write");
    std::fs::write(input.join("logs.txt"), "not a table\n").expect("write");
    let out = kdrift(&db).args(["ingest", "file"]).arg(&input).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("run 2 (ok): 1 object version read, 1 new")), "{stdout}");
    let expected = format!(
        "run 1: 2 usage samples (kubectl top nodes) from {} at 2026-11-13T06:30:00Z: 2 new, 0 already stored, 0 input \
         errors → {}",
        top.display(),
        db.display()
    );
    assert!(lines.contains(&expected.as_str()), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("ignored 1 file that is not a dump")), "{stdout}");
    // New-user trial: the modification time was used silently.
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.lines().any(|l| l
            == "kdrift: note: kubectl top tables have no time: stored at the file's modification time \
                2026-11-13T06:30:00Z; pass --at TIME for the time it was taken"),
        "{stderr}"
    );
    // Two tables: each file's time, said; with --at, no note.
    let pods = dir.path().join("top-pods.txt");
    std::fs::write(&pods, TOP_PODS).expect("write");
    let mtime = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_794_551_403);
    std::fs::File::options().write(true).open(&pods).expect("open").set_modified(mtime).expect("mtime");
    let out = kdrift(&db).args(["ingest", "file"]).arg(&top).arg(&pods).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(
        stderr.lines().last(),
        Some(
            format!(
                "kdrift: note: kubectl top tables have no time: stored at each file's modification time ({} at \
                 2026-11-13T06:30:00Z, {} at 2026-11-13T06:30:03Z); pass --at TIME for the time they were taken",
                top.display(),
                pods.display()
            )
            .as_str()
        )
    );
    let out = kdrift(&db).args(["ingest", "file", "--at", "2026-11-13T06:30:00Z"]).arg(&top).assert().success();
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("no time"));
}

#[test]
fn ingest_api_stores_the_metrics_apis_usage_and_without_metrics_server_says_so_once() {
    use kdrift_tests::fake_kube::FakeKube;
    let kube = FakeKube::start();
    kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})).expect("node");
    kube.set_node_metrics(&[("node-1", "1500000000n", "2097152Ki"), ("node-2", "123456789n", "123456Ki")]);
    kube.set_pod_metrics(&[("web", "api-1", &[("app", "250m", "1024Ki")][..])]);
    kube.set_metrics_timestamp(Some("2026-11-13T00:00:05Z".parse().expect("time")));
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let db = dir.path().join("k.duckdb");
    let ingest = || {
        let out = kdrift(&db)
            .args(["ingest", "api", "-A", "--kubeconfig"])
            .arg(&kubeconfig)
            .env_remove("KUBECONFIG")
            .output();
        let out = out.expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, stdout, stderr) = ingest();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout.lines().last(),
        Some("usage from metrics.k8s.io: 2 node samples and 1 pod sample in 1 take: 3 new, 0 already stored, 0 errors")
    );
    assert!(!stderr.contains("note"), "{stderr}");
    let (_, stdout, _) = ingest();
    assert_eq!(
        stdout.lines().last(),
        Some("usage from metrics.k8s.io: 2 node samples and 1 pod sample in 1 take: 0 new, 3 already stored, 0 errors")
    );
    // A cluster without metrics-server: one note, the objects stored, exit 0.
    kube.serve_metrics(false);
    let (code, stdout, stderr) = ingest();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr.lines().filter(|l| l.contains("metrics")).collect::<Vec<_>>(),
        ["kdrift: note: metrics.k8s.io is not served (metrics-server not installed?): no usage samples"]
    );
    assert!(!stdout.contains("usage from"), "{stdout}");
    let nodes = stdout.lines().find(|l| l.trim_start().starts_with("nodes ")).expect("nodes row");
    assert_eq!(nodes.split_whitespace().nth(1), Some("1"), "{stdout}");
}

/// erwee402's one-node minikube dump (nodes and kube-system pods; the
/// default namespace's pods were not dumped) in a store, with `kubectl top
/// nodes` samples (minikube at 1900m of 2000m, 1000Mi) at each of `at`.
fn erwee_store(test: &str, at: &[&str]) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let real = kdrift_tests::real_fixtures_or_skip(test)?;
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let dumps: Vec<std::path::PathBuf> =
        ["default__events.json", "kube-system__events.json", "kube-system__pods.json", "nodes.json"]
            .iter()
            .map(|f| real.join("dumps").join(format!("erwee402__multi-k8s__{f}")))
            .collect();
    kdrift(&db).args(["ingest", "file"]).args(&dumps).assert().success();
    let top = dir.path().join("top-nodes.txt");
    std::fs::write(
        &top,
        "NAME       CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)\nminikube   1900m        95%      1000Mi          53%\n",
    )
    .expect("write");
    for t in at {
        kdrift(&db).args(["ingest", "file", "--at", t]).arg(&top).assert().success();
    }
    Some((dir, db))
}

/// New-user trial: `skew` says minikube is ≥38.8 % cpu requested (the
/// default namespace's pods were not dumped); `skew --usage` and
/// `hotspots` showed a plain 38.8 % and called it "hot in fact, not on
/// paper" on that lower bound, without a word.
#[test]
fn skew_usage_and_hotspots_mark_the_requested_percent_as_a_lower_bound_like_skew() {
    let test = "skew_usage_and_hotspots_mark_the_requested_percent_as_a_lower_bound_like_skew";
    let at = ["2019-03-08T08:50:00Z", "2019-03-08T08:55:00Z"];
    let Some((_dir, db)) = erwee_store(test, &at) else { return };
    let out = kdrift(&db).args(["skew", "--usage"]).assert().success();
    let text = lines(&stdout_of(&out));
    assert_eq!(
        text[..8],
        [
            "Requested % and used % of allocatable at 2019-03-08T08:55:00Z (usage: latest sample (≤ 15m old); hot at \
             80 %)",
            " NODE       CPU REQUESTED   CPU USED   MEMORY REQUESTED   MEMORY USED   SAMPLED",
            " minikube   ≥38.8 %         95.0 %     ≥11.7 %            53.2 %        2019-03-08T08:55:00Z",
            "Hot in fact, not on paper (used ≥ 80 %, requested below):",
            "  minikube cpu: 95.0 % used, ≥38.8 % requested",
            "Hot on paper, not in fact (requested ≥ 80 %, used below):",
            "  none",
            "  ≥ lower bound: the store lacks pods or their requests (see the notes)",
        ]
    );
    assert!(
        text[8].starts_with(
            "note: requested amounts are lower bounds (≥) on every node: events in the hour up to \
             2019-03-08T08:55:00Z name 109 pods of namespace default"
        ),
        "{text:#?}"
    );
    let out = kdrift(&db).args(["-o", "json", "skew", "--usage"]).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(json["nodes"][0]["lower_bound"], true);
    assert_eq!(json["nodes"][0]["resources"][0]["requested_percent"], 38.75);
    assert_eq!(json["hot_not_requested"][0]["lower_bound"], true);
    assert!(json["notes"][0].as_str().unwrap_or_default().starts_with("requested amounts are lower bounds (≥)"));
    // hotspots: the episode's REQUESTED is ≥38.8 %, with the same note.
    let out = kdrift(&db).args(["hotspots", "--step", "5m", "--for", "2"]).assert().success();
    let text = lines(&stdout_of(&out));
    assert_eq!(
        text[2],
        " minikube   cpu        2019-03-08T08:50:00Z   2019-03-08T09:00:00Z (ongoing)   10m      95.0 %      \
         95.0 %      ≥38.8 %",
        "{text:#?}"
    );
    assert_eq!(text[3], "  ≥ lower bound: the store lacks pods or their requests (see the notes)");
    assert!(text[4].starts_with("note: requested amounts are lower bounds (≥) on every node"), "{text:#?}");
    let out = kdrift(&db).args(["-o", "json", "hotspots", "--step", "5m", "--for", "2"]).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(json["episodes"][0]["lower_bound"], true);
    assert_eq!(json["episodes"][0]["requested_percent"], 38.75);
}

/// New-user trial: `kubectl top` samples stored at 2026 (the file's
/// modification time) against erwee402's 2019 history: `skew --usage`
/// showed 2019's requests beside 2026's usage without a word.
#[test]
fn skew_usage_says_when_the_readings_are_after_the_stores_history() {
    let test = "skew_usage_says_when_the_readings_are_after_the_stores_history";
    let Some((_dir, db)) = erwee_store(test, &["2026-12-06T20:48:05Z"]) else { return };
    let out = kdrift(&db).args(["-o", "json", "skew", "--usage"]).assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(
        json["notes"][0],
        "2026-12-06T20:48:05Z is after the store's history: its last recorded instant is 2019-03-08T08:59:58Z; \
         showing the state as recorded then"
    );
    let out = kdrift(&db).args(["skew", "--usage"]).assert().success();
    assert!(
        stdout_of(&out)
            .contains("\nnote: 2026-12-06T20:48:05Z is after the store's history: its last recorded instant"),
        "{}",
        stdout_of(&out)
    );
}

/// New-user trial: `skew --usage --at T` before the store's first Node
/// object blamed the samples ("no node has a usage sample by the latest
/// sample …") though T was inside their span: say what `skew --at` says.
#[test]
fn skew_usage_before_the_first_node_object_says_so_like_skew() {
    let test = "skew_usage_before_the_first_node_object_says_so_like_skew";
    let Some((_dir, db)) = erwee_store(test, &["2019-03-08T08:40:00Z", "2019-03-08T08:55:00Z"]) else { return };
    let out = kdrift(&db).args(["skew", "--usage", "--at", "2019-03-08T08:45:00Z"]).assert().code(1);
    assert_eq!(stdout_of(&out), "");
    assert_eq!(
        lines(&String::from_utf8_lossy(&out.get_output().stderr)),
        // Not "no measured usage" then a note that minikube was measured
        // (new-user trial 43).
        ["kdrift: usage measured on minikube but the store has no Node objects at 2019-03-08T08:45:00Z (before its \
          history); its history spans 2019-03-08T08:48:01Z to 2019-03-08T08:59:58Z: choose an --at within it (or \
          ingest Node objects listed at that time)"
            .to_string()]
    );
}

/// New-user trial: a pull over a range where the server has no data (the
/// default, the last day, against older data) printed 0 samples and
/// exited 0 without a hint.
#[test]
fn ingest_prometheus_that_stores_no_sample_says_the_range_and_exits_1() {
    let Some(vm) = RealVmetrics::victoria_metrics_or_skip("ingest_prometheus_that_stores_no_sample") else { return };
    vm.post("/api/v1/import/prometheus", exposition());
    vm.flush();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let range = ["--start", "2026-11-12T00:00:00Z", "--end", "2026-11-12T01:00:00Z"];
    let out = kdrift(&db).args(["ingest", "prometheus", "--url", &vm.url()]).args(range).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        ["kdrift: no usage sample from 2026-11-12T00:00:00Z to 2026-11-12T01:00:00Z (1 window): the server has no \
          data for the queries then; pass --start and --end for the range its data covers"]
    );
    let stdout = stdout_of(&out);
    assert!(stdout.contains("0 usage samples from"), "{stdout}");
    // The range where the data is: exit 0, no such line.
    let range = ["--start", "2026-11-13T00:10:00Z", "--end", "2026-11-13T00:11:00Z"];
    let out = kdrift(&db).args(["ingest", "prometheus", "--url", &vm.url()]).args(range).assert().success();
    assert!(!String::from_utf8_lossy(&out.get_output().stderr).contains("no usage sample"));
}

/// New-user trial: a pull of the default day from a server without data
/// then stored 24 empty ingest runs and printed 24 rows of zeros. A stretch
/// of windows without samples is one run, one row and one `usage_windows`
/// row spanning it, so `--resume` still continues after it.
#[test]
fn ingest_prometheus_commits_a_stretch_of_windows_without_samples_as_one_run() {
    let Some(vm) = RealVmetrics::victoria_metrics_or_skip("ingest_prometheus_commits_a_stretch") else { return };
    vm.post("/api/v1/import/prometheus", exposition());
    vm.flush();
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    // 21:00–00:00 has no data (3 windows of 1 h), 00:00–00:10 has.
    let range = ["--start", "2026-11-12T21:00:00Z", "--end", "2026-11-13T00:10:00Z", "--window", "1h"];
    let out =
        kdrift(&db).args(["-o", "json", "ingest", "prometheus", "--url", &vm.url()]).args(range).assert().success();
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let rows: Vec<(String, String, u64, bool)> = report["windows"]
        .as_array()
        .expect("windows")
        .iter()
        .map(|w| {
            (
                w["window"]["start"].as_str().unwrap_or_default().to_string(),
                w["window"]["end"].as_str().unwrap_or_default().to_string(),
                w["windows"].as_u64().unwrap_or(0),
                w["samples"].as_u64().unwrap_or(0) > 0,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("2026-11-12T21:00:00Z".to_string(), "2026-11-13T00:00:00Z".to_string(), 3, false),
            ("2026-11-13T00:00:00Z".to_string(), "2026-11-13T00:10:00Z".to_string(), 1, true),
        ]
    );
    let out = kdrift(&db).args(["query", "runs", "-o", "json"]).assert().success();
    let runs: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(runs.as_array().map(Vec::len), Some(2), "{runs}");
    // Only empty windows: one row, the windows counted, and --resume continues after them.
    let db = dir.path().join("empty.duckdb");
    let range = ["--start", "2026-11-12T00:00:00Z", "--end", "2026-11-12T06:00:00Z", "--window", "1h"];
    let out = kdrift(&db).args(["ingest", "prometheus", "--url", &vm.url()]).args(range).assert().code(1);
    let text = stdout_of(&out);
    assert_eq!(text.lines().filter(|l| l.contains("2026-11-12T")).count(), 1, "{text}");
    assert!(text.contains("0 usage samples from ") && text.contains(" in 6 windows: 0 new"), "{text}");
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains(" (6 windows): the server has no data"));
    let out = kdrift(&db).args(["ingest", "prometheus", "--resume", "--url", &vm.url()]).args(range).assert().code(1);
    let text = stdout_of(&out);
    assert!(text.contains("resumed after the last committed window, at 2026-11-12T06:00:00Z"), "{text}");
}

/// One stored sample: `(kind, node, namespace, pod, cpu_millis)`.
type UsageRow = (String, Option<String>, Option<String>, Option<String>, Option<i64>);

/// `query usage_samples -o json` of `db` over November 2026, each row as a [`UsageRow`].
fn usage_rows(db: &std::path::Path) -> Vec<UsageRow> {
    let out = kdrift(db)
        .args(["--output", "json", "query", "usage_samples", "--param", "since_us=2026-11-01T00:00:00Z"])
        .args(["--param", "until_us=2026-12-01T00:00:00Z"])
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    rows.as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap_or_default().to_string(),
                text(&r["node"]),
                text(&r["namespace"]),
                text(&r["pod"]),
                r["cpu_millis"].as_i64(),
            )
        })
        .collect()
}

#[test]
fn metrics_api_names_echoing_the_kubeconfig_token_are_stored_masked_as_an_objects_name_is() {
    // Break-it 35 F3: NodeMetrics named with the bearer token, PodMetrics in a
    // namespace so named, were stored verbatim (a Node so named was `***`).
    use kdrift_tests::fake_kube::FakeKube;
    const TOKEN: &str = "k8sTok3nQwErTy9876ZxCv";
    let kube = FakeKube::start();
    kube.create(serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": TOKEN}})).expect("node");
    kube.set_node_metrics(&[(TOKEN, "1500000000n", "2097152Ki"), ("node-2", "250000000n", "1024Ki")]);
    let pod = format!("web-{TOKEN}-0");
    kube.set_pod_metrics(&[(TOKEN, pod.as_str(), &[("app", "250m", "1024Ki")][..])]);
    kube.set_metrics_timestamp(Some("2026-11-13T00:00:05Z".parse().expect("time")));
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, kube.kubeconfig(None).replace("token: fake-token", &format!("token: {TOKEN}")))
        .expect("kubeconfig");
    let db = dir.path().join("k.duckdb");
    let out =
        kdrift(&db).args(["ingest", "api", "-A", "--kubeconfig"]).arg(&kubeconfig).env_remove("KUBECONFIG").output();
    let out = out.expect("run");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stdout.lines().last(),
        Some("usage from metrics.k8s.io: 2 node samples and 1 pod sample in 1 take: 3 new, 0 already stored, 0 errors")
    );
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        usage_rows(&db),
        [
            ("node".into(), some("***"), None, None, Some(1500)),
            ("node".into(), some("node-2"), None, None, Some(250)),
            ("pod".into(), None, some("***"), some("***"), Some(250)),
        ]
    );
    // (The token inside a longer name masks the whole name, as in an object.)
    // The Node object of that name is stored as `***` too: the two still meet.
    let out = kdrift(&db)
        .args(["-o", "json", "query", "nodes_at", "--param", "at_us=2030-01-01T00:00:00Z"])
        .assert()
        .success();
    let nodes: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(
        nodes.as_array().map(|n| n.iter().map(|n| n["name"].clone()).collect::<Vec<_>>()),
        Some(vec!["***".into()])
    );
    assert!(!kdrift_tests::leaks::store_text(&db).contains(TOKEN), "the token is stored");
}

/// Credential shapes a file or a server may carry in its words.
const GHP: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

#[test]
fn prometheus_labels_echoing_its_credentials_are_stored_masked_and_shapes_in_its_errors_are_not_shown() {
    // Break-it 35 F1/F4: a pod series labelled with the Basic password
    // (node, pod) and the X-Api-Key value (namespace) was stored verbatim and
    // shown back by skew/hotspots; a series quoting `ghp_…` and
    // `password=…` in its labels was printed raw on stderr.
    use kdrift_tests::hostile_kube::{Answer, HostileKube};
    const PASSWORD: &str = "Zq8wPlm3Rt5yXv7bN2";
    const API_KEY: &str = "AKey9f8e7d6c5b4a3z2y1x";
    // 2026-11-27T00:00:00Z
    let t = 1_795_737_600;
    let answer = serde_json::json!({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"namespace": API_KEY, "pod": PASSWORD, "node": PASSWORD}, "values": [[t, "0.5"]]},
        {"metric": {"node": GHP, "instance": "password=hunter2secretvalue", "pod": "x", "job": "password=jobsecretvalue"},
         "values": [[t, "1"]]}]}});
    let prom = HostileKube::start(move |target| {
        target.starts_with("/api/v1/query_range").then(|| Answer::Body(answer.to_string().into_bytes()))
    });
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("p.duckdb");
    let out = kdrift(&db)
        .args(["-o", "json", "ingest", "prometheus", "--url", prom.url(), "--attempts", "1", "--window", "1m"])
        .args(["--start", "2026-11-27T00:00:00Z", "--end", "2026-11-27T00:01:00Z"])
        .args(["--query", "node_info=", "--query", "node_cpu=", "--query", "node_memory=", "--query", "pod_memory="])
        .env("KDRIFT_PROM_USER", "kuser")
        .env("KDRIFT_PROM_PASSWORD", PASSWORD)
        .env("KDRIFT_PROM_HEADERS", format!("X-Api-Key: {API_KEY}"))
        .output()
        .expect("run");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // (A label kdrift does not read, `job`, is not kept, so not shown: break-it 36 F6.)
    let error = "window [2026-11-27T00:00:00Z, 2026-11-27T00:01:00Z) query pod_cpu series {instance=\"password=***\", \
                 node=\"***\", pod=\"x\"}: has no namespace label; skipped";
    // Each echoed credential is said once, by its source (break-it 40 F8), then the error.
    let warned: Vec<String> = stderr
        .lines()
        .map(|l| l.split_once("WARN kdrift::credentials: ").map_or(l, |(_, w)| w))
        .map(|l| l.split_once(" appears in a record being stored").map_or(l, |(who, _)| who).to_string())
        .collect();
    assert_eq!(
        warned,
        [
            "the password from KDRIFT_PROM_PASSWORD".to_string(),
            "the value of header X-Api-Key from KDRIFT_PROM_HEADERS".to_string(),
            format!("kdrift: {error}")
        ],
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(report["windows"][0]["errors"], serde_json::json!([error]), "{stdout}");
    let some = |s: &str| Some(s.to_string());
    assert_eq!(usage_rows(&db), [("pod".into(), some("***"), some("***"), some("***"), Some(500))]);
    let store = kdrift_tests::leaks::store_text(&db);
    for secret in [PASSWORD, API_KEY, GHP, "hunter2secretvalue", "jobsecretvalue"] {
        assert!(!store.contains(secret), "{secret} is stored");
    }
}

#[test]
fn kubectl_top_errors_quoting_credential_shapes_are_masked_on_stderr_and_in_json() {
    // Break-it 35 F4: stored masked, but printed raw.
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let top = dir.path().join("top-nodes.txt");
    let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl";
    std::fs::write(
        &top,
        format!(
            "NAME   CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)\nnode-1   250m   12%   1Gi   10%\n\
             {GHP}   password=hunter2secretvalue   1%   1Gi   1%\nnode-2   100m   5%   Bearer_{jwt}   1%\n"
        ),
    )
    .expect("write");
    let out = kdrift(&db)
        .args(["-o", "json", "ingest", "file", "--at", "2026-11-13T00:00:00Z"])
        .arg(&top)
        .output()
        .expect("run");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let not_a_quantity = "is not a quantity (expected a number with an optional suffix, such as 100m, 0.5, 2, 1e3, \
                          128Mi or 1G)";
    let errors = [
        format!("{}:3: ***: cpu \"password=***\" {not_a_quantity}", top.display()),
        format!("{}:4: node-2: memory \"Bearer_***\" {not_a_quantity}", top.display()),
    ];
    let shown: Vec<String> = errors.iter().map(|e| format!("kdrift: {e}")).collect();
    assert_eq!(stderr.lines().collect::<Vec<_>>(), shown, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(report["usage"][0]["errors"], serde_json::json!(errors), "{stdout}");
    assert_eq!(report["usage"][0]["samples"], 1, "node-1 is stored");
}

#[test]
fn ingest_file_reads_a_top_table_with_bare_cr_ends_and_counts_errors_past_the_first_hundred() {
    // break-it 35 F9 (bare `\r`: 0 samples, 0 errors) and F5 (every bad row printed and stored).
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let top = dir.path().join("top-cr.txt");
    let mut rows = vec!["NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%)".to_string(), "node-1 250m 12% 1Gi 40%".into()];
    rows.extend((0..300).map(|i| format!("node-b{i} x 1% 1Gi 1%")));
    rows.push("node-2 900m 45% 2Gi 13%".into());
    std::fs::write(&top, rows.join("\r")).expect("write");
    let out = kdrift(&db).args(["ingest", "file", "--at", "2026-11-13T00:00:00Z"]).arg(&top).assert().code(2);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [format!(
            "run 1: 2 usage samples (kubectl top nodes) from {} at 2026-11-13T00:00:00Z: 2 new, 0 already stored, 300 \
             input errors → {}",
            top.display(),
            db.display()
        )]
    );
    let errors: Vec<&str> = stderr.lines().collect();
    assert_eq!(errors.len(), 101, "{stderr}");
    assert!(errors[0].starts_with(&format!("kdrift: {}:3: node-b0: cpu \"x\"", top.display())), "{}", errors[0]);
    assert_eq!(
        errors[100],
        format!(
            "kdrift: {0}: … and 200 more errors like these in {0} (only the first 100 are shown and stored; the \
             others are counted)",
            top.display()
        )
    );
    let out = kdrift(&db).args(["--output", "json", "query", "runs"]).assert().success();
    let runs: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    assert_eq!(runs[0]["errors"], 101, "{runs}");
}

/// Break-it 40 F11: a pod name holding `/` from a `kubectl top` file was
/// stored (`web/a/b`, one name two ways). It is an input error naming the
/// file and line; the other rows are stored.
#[test]
fn ingest_file_refuses_a_top_row_whose_name_holds_a_slash_and_keeps_the_others() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let top = dir.path().join("top-pods.txt");
    let rows = [
        "NAMESPACE   NAME      CPU(cores)   MEMORY(bytes)",
        "web         api-1     75m          128Mi",
        "web         a/b       10m          16Mi",
        "web/x       api-2     20m          32Mi",
        "batch       worker    100m         64Mi",
    ];
    std::fs::write(&top, rows.join("\n")).expect("write");
    let out = kdrift(&db).args(["ingest", "file", "--at", "2026-11-13T00:00:00Z"]).arg(&top).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            format!(
                "kdrift: {}:3: name \"a/b\" holds '/', which no Kubernetes name holds; expected a Kubernetes name \
                 (DNS-1123); this row is skipped",
                top.display()
            ),
            format!(
                "kdrift: {}:4: namespace \"web/x\" holds '/', which no Kubernetes name holds; expected a Kubernetes \
                 name (DNS-1123); this row is skipped",
                top.display()
            ),
        ]
    );
    let out = kdrift(&db)
        .args(["--output", "json", "query", "usage_samples", "--param", "since_us=2026-11-13T00:00:00Z"])
        .args(["--param", "until_us=2026-11-14T00:00:00Z"])
        .assert()
        .success();
    let samples: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let pods: Vec<String> = samples
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| format!("{}/{}", r["namespace"].as_str().unwrap_or("?"), r["pod"].as_str().unwrap_or("?")))
        .collect();
    assert_eq!(pods, ["batch/worker", "web/api-1"], "{samples}");
}

/// New-user trial: the demo's node-4 episode read "TO 05:30:00Z (ongoing)
/// 2h 0m"; once cooler samples from 06:00 were added, "TO 05:35:00Z, 2h
/// 5m". An episode ends at its last hot step's end (start + step), ongoing
/// or not: the same end, 05:35, and the same 2h 5m (25 steps of 5m) both ways.
#[test]
fn hotspots_ends_an_episode_at_its_last_hot_steps_end_whether_ongoing_or_not() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    Command::cargo_bin("kdrift").expect("binary").arg("demo").arg("--save").arg(&db).assert().success();
    let episode = |db: &std::path::Path| {
        let out = kdrift(db).args(["-o", "json", "hotspots"]).assert().success();
        let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
        let e = &json["episodes"][0];
        format!(
            "{} {} {} {} {} {}",
            e["node"], e["resource"], e["started_at"], e["ended_at"], e["windows"], e["ongoing"]
        )
    };
    assert_eq!(episode(&db), r#""node-4" "cpu" "2026-11-28T03:30:00Z" "2026-11-28T05:35:00Z" 25 true"#);
    let text = stdout_of(&kdrift(&db).arg("hotspots").assert().success());
    assert!(text.contains("   2026-11-28T03:30:00Z   2026-11-28T05:35:00Z (ongoing)   2h 5m "), "{text}");
    // node-4 at 10 % of its cpu every 5 minutes from 06:00 to 07:00.
    let cool: Vec<kdrift_store::UsageSample> = (0..=12)
        .map(|k| kdrift_store::UsageSample {
            kind: kdrift_store::UsageKind::Node,
            node: Some("node-4".to_string()),
            namespace: None,
            pod: None,
            at_us: 1_795_845_600_000_000 + k * 300_000_000,
            cpu_millis: Some(100),
            memory_bytes: None,
        })
        .collect();
    let store = kdrift_store::Store::open(&db).expect("store");
    store.commit_usage("test", "cool", kdrift_store::UsageSource::MetricsApi, &cool, &[], None).expect("commit");
    drop(store);
    assert_eq!(episode(&db), r#""node-4" "cpu" "2026-11-28T03:30:00Z" "2026-11-28T05:35:00Z" 25 false"#);
    let text = stdout_of(&kdrift(&db).arg("hotspots").assert().success());
    assert!(text.contains("   2026-11-28T03:30:00Z   2026-11-28T05:35:00Z   2h 5m "), "{text}");
}
