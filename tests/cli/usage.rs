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
