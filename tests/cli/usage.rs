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
