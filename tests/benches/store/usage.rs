//! Measured usage benchmarks of issue 37 (`cargo bench --bench store --
//! usage`): node-level samples every 30 s of `KDRIFT_BENCH_USAGE_NODES`
//! nodes (default 5,000) over `KDRIFT_BENCH_USAGE_DAYS` days (default 30).
//!
//! - A Prometheus-compatible server on 127.0.0.1 (this process, axum)
//!   answers `/api/v1/query_range` with the samples, generated per request;
//!   `kdrift ingest prometheus` (its library function, [`pull_prometheus`],
//!   in a fresh child process) pulls one day, then DuckDB's own
//!   `read_json` loads the same day's samples from an NDJSON file into a
//!   table (fresh child process): samples/s, peak RSS, the ratio
//!   (target ≥ 1.0×).
//! - The whole range is pulled into one store (child process): time,
//!   samples/s, store size, peak RSS.
//! - On that store, the readings `skew --usage` and the planner's
//!   `metricsUtilization` take at the last instant ([`measured_at`]: the
//!   latest sample, and p95 over 1 h), and the whole `skew --usage --at T`
//!   analysis ([`skew_usage`], once the nodes' objects are stored too),
//!   median of warm runs (target ≤ 200 ms).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use kdrift_analyze::{measured_at, skew_usage};
use kdrift_ingest::{pull_prometheus, resolve_queries, Auth, PromClient, PromOptions, Timeouts};
use kdrift_rebalance::Reading;
use kdrift_scenario::{ObjectChange, ScenarioRecord};
use kdrift_store::Store;
use serde_json::{json, Value};

use crate::child::vm_hwm_kib;
use crate::{child, f, mib, scratch};

/// 2026-11-01T00:00:00Z: where the generated range starts.
const START_S: i64 = 1_793_491_200;
/// Seconds between samples.
const STEP_S: i64 = 30;

fn nodes() -> u32 {
    env_u64("KDRIFT_BENCH_USAGE_NODES", 5_000) as u32
}

fn days() -> i64 {
    env_u64("KDRIFT_BENCH_USAGE_DAYS", 30) as i64
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

/// Node `n`'s cpu (millicores) and memory (bytes) at `t` (Unix seconds):
/// a per-node base and a daily wave, integers so that the stored values are
/// exactly the generated ones.
fn sample(n: u32, t: i64) -> (i64, i64) {
    let base = i64::from(n % 97) * 40 + 200;
    let wave = ((t / STEP_S) % 2_880 - 1_440).abs();
    (base + wave, (i64::from(n % 61) + 4) * 268_435_456 + wave * 1_048_576)
}

fn node_name(n: u32) -> String {
    format!("node-{n:05}")
}

/// The Prometheus answer to one range query over `[start, end]` at `step`
/// seconds (`node_cpu` in cores, `node_memory` in bytes, `kube_node_info`
/// empty: the series carry their `node` label).
fn answer(query: &str, start: i64, end: i64, step: i64) -> String {
    let cpu = query.contains("node_cpu_seconds_total");
    let memory = query.contains("MemAvailable");
    let mut out = String::from(r#"{"status":"success","data":{"resultType":"matrix","result":["#);
    if cpu || memory {
        let first = start.div_euclid(step) * step + if start.rem_euclid(step) == 0 { 0 } else { step };
        for n in 0..nodes() {
            if n > 0 {
                out.push(',');
            }
            out.push_str(&format!(r#"{{"metric":{{"node":"{}","instance":"10.0.0.1:9100"}},"values":["#, node_name(n)));
            let mut t = first;
            let mut comma = false;
            while t <= end {
                let (c, m) = sample(n, t);
                if comma {
                    out.push(',');
                }
                comma = true;
                if cpu {
                    out.push_str(&format!(r#"[{t},"{}.{:03}"]"#, c / 1000, c % 1000));
                } else {
                    out.push_str(&format!(r#"[{t},"{m}"]"#));
                }
                t += step;
            }
            out.push_str("]}");
        }
    }
    out.push_str("]}}");
    out
}

/// Starts the Prometheus-compatible server on 127.0.0.1; its base URL.
fn serve() -> Result<String, String> {
    use axum::routing::post;
    use axum::{Form, Router};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let app = Router::new().route(
                "/api/v1/query_range",
                post(|Form(form): Form<HashMap<String, String>>| async move {
                    // kdrift sends `step` as a duration (`30s`), as Prometheus accepts.
                    let num = |k: &str| {
                        form.get(k).and_then(|v| v.trim_end_matches('s').parse::<f64>().ok()).unwrap_or(0.0) as i64
                    };
                    let query = form.get("query").cloned().unwrap_or_default();
                    let (start, end, step) = (num("start"), num("end"), num("step").max(1));
                    tokio::task::spawn_blocking(move || answer(&query, start, end, step)).await.unwrap_or_default()
                }),
            );
            axum::serve(listener, app).await.expect("serve");
        });
    });
    Ok(format!("http://{addr}"))
}

/// Writes the samples of `[start, end)` as NDJSON, one sample a line, the
/// columns `kdrift` stores: what DuckDB's `read_json` loads for the ratio.
fn write_ndjson(path: &Path, start: i64, end: i64) -> Result<u64, String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut rows = 0u64;
    let mut t = start;
    while t < end {
        let at = DateTime::from_timestamp(t, 0).unwrap_or_default().format("%Y-%m-%dT%H:%M:%SZ");
        for n in 0..nodes() {
            let (c, m) = sample(n, t);
            writeln!(
                w,
                r#"{{"kind":"node","node":"{}","sampled_at":"{at}","cpu_millis":{c},"memory_bytes":{m},"source":"prometheus"}}"#,
                node_name(n)
            )
            .map_err(|e| e.to_string())?;
            rows += 1;
        }
        t += STEP_S;
    }
    w.flush().map_err(|e| e.to_string())?;
    Ok(rows)
}

/// The bench: one day pulled vs `read_json`, the whole range, the readings.
pub fn bench_usage() -> Result<(), String> {
    let url = serve()?;
    let (nodes, days) = (nodes(), days());
    println!("\n== measured usage: {nodes} nodes, a sample every {STEP_S} s ==");
    let day_end = START_S + 86_400;
    let at = |s: i64| DateTime::from_timestamp(s, 0).unwrap_or_default().to_rfc3339();
    let dir = scratch()?;
    let k = child(&["usage-pull", &url, &at(START_S), &at(day_end), &dir.path().display().to_string()])?;
    let lines = dir.path().join("day.ndjson");
    let written = write_ndjson(&lines, START_S, day_end)?;
    let b = child(&["ingest-duckdb", &lines.display().to_string(), &dir.path().display().to_string()])?;
    std::fs::remove_file(&lines).ok();
    let rate = |v: &Value| f(v, "rows") / f(v, "secs");
    println!(
        "kdrift ingest prometheus, 1 day   {:>8.2} s {:>10.0} samples/s  peak RSS {:>7.1} MiB  samples {}  windows {}",
        f(&k, "secs"),
        rate(&k),
        mib(&k),
        k["rows"],
        k["windows"]
    );
    println!(
        "duckdb read_json, same samples    {:>8.2} s {:>10.0} samples/s  peak RSS {:>7.1} MiB  rows {} (of {written})",
        f(&b, "secs"),
        rate(&b),
        mib(&b),
        b["rows"]
    );
    let ratio = rate(&k) / rate(&b);
    println!("ratio kdrift/read_json (samples/s): {ratio:.2}x  (target >= 1.0x: {})", verdict(ratio >= 1.0));

    let whole = scratch()?;
    let end = START_S + days * 86_400;
    let w = child(&["usage-pull", &url, &at(START_S), &at(end), &whole.path().display().to_string()])?;
    let store = whole.path().join("store.duckdb");
    let size = std::fs::metadata(&store).map(|m| m.len()).unwrap_or(0);
    let days = if days == 1 { "1 day".to_string() } else { format!("{days} days") };
    println!(
        "kdrift ingest prometheus, {days} {:>8.1} s {:>10.0} samples/s  peak RSS {:>7.1} MiB  samples {}  store {:.0} MiB ({:.2} bytes/sample)",
        f(&w, "secs"),
        rate(&w),
        mib(&w),
        w["rows"],
        size as f64 / 1_048_576.0,
        size as f64 / f(&w, "rows")
    );
    let q = child(&["usage-readings", &store.display().to_string(), &at(end - STEP_S)])?;
    for (label, key) in
        [("latest sample (<= 15m old)", "latest"), ("p95 over 1h", "p95"), ("skew --usage --at T, whole", "skew")]
    {
        let v = &q[key];
        let med = f(v, "median_ms");
        println!(
            "reading at the end, {label:<27} median {med:>8.1} ms  (min {:.1}, max {:.1}, {} runs; {} nodes)  target <= 200 ms: {}",
            f(v, "min_ms"),
            f(v, "max_ms"),
            v["runs"],
            q[&format!("{key}_nodes")],
            verdict(med <= 200.0)
        );
    }
    Ok(())
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

/// Child: pulls `[start, end)` from `url` into a new store in `dir`.
pub fn pull(url: &str, start: DateTime<Utc>, end: DateTime<Utc>, dir: &Path) -> Result<Value, String> {
    let store = Store::open(&dir.join("store.duckdb")).map_err(|e| e.to_string())?;
    let overrides = [("pod_cpu".to_string(), String::new()), ("pod_memory".to_string(), String::new())];
    let mut options = PromOptions::new(resolve_queries(&overrides).map_err(|e| e.to_string())?);
    (options.start, options.end, options.step) = (Some(start), Some(end), Duration::seconds(STEP_S));
    let client = PromClient::new(url, Auth::default(), Timeouts::default()).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let t = Instant::now();
    let report =
        rt.block_on(pull_prometheus(&store, &client, &options, &mut |_| {})).map_err(|e| format!("pull: {e}"))?;
    drop(store); // closing checkpoints what the WAL still holds
    let secs = t.elapsed().as_secs_f64();
    if report.error_count() > 0 {
        return Err(format!("{} input errors, e.g. {:?}", report.error_count(), report.windows[0].errors.first()));
    }
    Ok(json!({ "secs": secs, "rows": report.added(), "windows": report.windows.len(), "vm_hwm_kib": vm_hwm_kib() }))
}

/// The nodes' objects (8 cores, 32 GiB allocatable each), observed an hour
/// before the range: what `skew --usage` divides the readings by.
fn node_objects() -> Vec<kdrift_store::Record> {
    let observed_at = DateTime::from_timestamp(START_S - 3600, 0).unwrap_or_default();
    (0..nodes())
        .map(|n| {
            let name = node_name(n);
            let object = json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "uid": format!("uid-{name}"), "resourceVersion": (n + 1).to_string(),
                    "creationTimestamp": "2026-10-01T00:00:00Z", "labels": {"kubernetes.io/hostname": name}},
                "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                    "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-10-01T00:00:00Z"}]}});
            kdrift_ingest::to_record(ScenarioRecord { observed_at, change: ObjectChange::Added, object }, "usage-bench")
        })
        .collect()
}

/// Child: the two readings at `at` on the store, and the whole `skew
/// --usage` analysis once the nodes' objects are stored (not timed), timed.
pub fn readings(store: &Path, at: DateTime<Utc>) -> Result<Value, String> {
    let store = Store::open(store).map_err(|e| e.to_string())?;
    kdrift_ingest::ingest_records(&store, "file", "usage-bench", node_objects()).map_err(|e| e.to_string())?;
    let runs = env_u64("KDRIFT_BENCH_RUNS", 20) as usize;
    let latest = Reading::Latest { max_age_us: 15 * 60_000_000 };
    let p95 = Reading::Percentile { window_us: 3_600_000_000, percentile: 95.0 };
    let (l, lu) = crate::child::timed(runs, || measured_at(&store, at, latest).map_err(|e| e.to_string()))?;
    let (p, pu) = crate::child::timed(runs, || measured_at(&store, at, p95).map_err(|e| e.to_string()))?;
    let (k, ku) = crate::child::timed(runs, || skew_usage(&store, Some(at), latest, 80.0).map_err(|e| e.to_string()))?;
    let skew_nodes = ku.nodes.iter().filter(|n| n.get("cpu").is_some_and(|c| c.used_percent.is_some())).count();
    Ok(json!({ "latest": l, "latest_nodes": lu.nodes.len(), "p95": p, "p95_nodes": pu.nodes.len(),
        "skew": k, "skew_nodes": skew_nodes, "vm_hwm_kib": vm_hwm_kib() }))
}
