//! `kdrift ingest prometheus` against the real VictoriaMetrics server
//! (`../shared/tools/victoria-metrics`, started by
//! [`kdrift_tests::real_vlogs::RealVmetrics`]): node-exporter, cAdvisor and
//! kube-state-metrics series loaded with `/api/v1/import/prometheus`, pulled
//! with the default queries, and read back from the store (query
//! `usage_samples`) as exact millicores and bytes.

use std::collections::BTreeMap;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use kdrift_ingest::{
    pull_prometheus, resolve_queries, Auth, PromClient, PromOptions, PromPullFailed, PromReport, Retry, Timeouts,
};
use kdrift_store::{run_query, Store};
use kdrift_tests::real_vlogs::RealVmetrics;
use kdrift_tests::temp_store;
use serde_json::Value;

/// 2026-11-13T00:00:00Z, seconds since the epoch: the first raw sample.
const T0: i64 = 1_794_528_000;

fn at(seconds_after_t0: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(T0 + seconds_after_t0, 0).expect("time")
}

/// 30 minutes of raw samples every 30 s from T0 (text exposition format,
/// timestamps in ms):
/// - node-a, scraped as `10.0.0.1:9100` (kube_node_info maps it): user
///   0.5 cores + system 0.25 (idle excluded) = 750m; 8 GiB − 5 GiB available;
/// - worker-b, scraped by hostname: 1.2 cores; 16 GiB − 4 GiB;
/// - `10.9.9.9:9100`, which no kube_node_info names (an input error);
/// - pod web/api-1 on node-a: container api 0.3 cores (the pod cgroup's
///   `container=""` and the pause `POD` excluded); api 200 MiB + sidecar 56 MiB;
/// - a working-set series without a pod label (an input error).
fn exposition() -> String {
    let mut out = String::new();
    for k in 0..=60i64 {
        let (ms, s) = ((T0 + 30 * k) * 1000, 30 * k);
        let mut line = |series: &str, value: String| out.push_str(&format!("{series} {value} {ms}\n"));
        let cpu = |instance: &str, cpu: u32, mode: &str| {
            format!(r#"node_cpu_seconds_total{{instance="{instance}",job="node",cpu="{cpu}",mode="{mode}"}}"#)
        };
        line(&cpu("10.0.0.1:9100", 0, "user"), format!("{}", s / 2));
        line(&cpu("10.0.0.1:9100", 0, "idle"), format!("{}", s / 2));
        line(&cpu("10.0.0.1:9100", 1, "system"), format!("{}", s / 4));
        line(&cpu("worker-b:9100", 0, "user"), format!("{}", s * 6 / 5));
        for (instance, total, available) in [
            ("10.0.0.1:9100", 8u64 << 30, 5u64 << 30),
            ("worker-b:9100", 16 << 30, 4 << 30),
            ("10.9.9.9:9100", 4 << 30, 1 << 30),
        ] {
            line(&format!(r#"node_memory_MemTotal_bytes{{instance="{instance}",job="node"}}"#), total.to_string());
            line(
                &format!(r#"node_memory_MemAvailable_bytes{{instance="{instance}",job="node"}}"#),
                available.to_string(),
            );
        }
        line(r#"kube_node_info{node="node-a",internal_ip="10.0.0.1",job="ksm"}"#, "1".into());
        line(r#"kube_node_info{node="worker-b",internal_ip="10.0.0.2",job="ksm"}"#, "1".into());
        let pod = |metric: &str, container: &str| {
            format!(r#"{metric}{{namespace="web",pod="api-1",container="{container}",node="node-a",job="kubelet"}}"#)
        };
        line(&pod("container_cpu_usage_seconds_total", "api"), format!("{}", s * 3 / 10));
        line(&pod("container_cpu_usage_seconds_total", ""), format!("{}", s * 7 / 20));
        line(&pod("container_cpu_usage_seconds_total", "POD"), format!("{}", s * 5));
        line(&pod("container_memory_working_set_bytes", "api"), (200u64 << 20).to_string());
        line(&pod("container_memory_working_set_bytes", "sidecar"), (56u64 << 20).to_string());
        line(&pod("container_memory_working_set_bytes", "POD"), (1u64 << 20).to_string());
        line(
            r#"container_memory_working_set_bytes{namespace="web",container="x",node="node-a",job="kubelet"}"#,
            (9u64 << 20).to_string(),
        );
    }
    out
}

fn server(test: &str) -> Option<RealVmetrics> {
    let vm = RealVmetrics::victoria_metrics_or_skip(test)?;
    vm.post("/api/v1/import/prometheus", exposition());
    vm.flush();
    Some(vm)
}

fn options(start: i64, end: i64, overrides: &[(String, String)]) -> PromOptions {
    PromOptions {
        start: Some(at(start)),
        end: Some(at(end)),
        max_window: Duration::minutes(5),
        retry: Retry {
            attempts: 2,
            first_delay: StdDuration::from_millis(10),
            max_delay: StdDuration::from_millis(20),
        },
        ..PromOptions::new(resolve_queries(overrides).expect("queries"))
    }
}

fn pull(store: &Store, url: &str, options: &PromOptions) -> Result<PromReport, Box<PromPullFailed>> {
    let client = PromClient::new(url, Auth::default(), Timeouts::default()).expect("client");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(pull_prometheus(store, &client, options, &mut |_| {}))
}

/// `(kind node namespace/pod cpu_millis memory_bytes)` → how many instants, and the first and last instant.
fn stored(store: &Store) -> (BTreeMap<String, usize>, Vec<String>) {
    let params = [
        ("since_us".to_string(), "2026-11-13T00:00:00Z".to_string()),
        ("until_us".to_string(), "2026-11-14T00:00:00Z".to_string()),
        ("node".to_string(), String::new()),
    ];
    let r = run_query(store, "usage_samples", &params).expect("usage_samples");
    let col = |c: &str| r.columns.iter().position(|x| x == c).expect("column");
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let mut counts = BTreeMap::new();
    for row in &r.rows {
        let key = format!(
            "{} {} {}/{} {} {} {}",
            text(&row[col("kind")]),
            text(&row[col("node")]),
            text(&row[col("namespace")]),
            text(&row[col("pod")]),
            row[col("cpu_millis")],
            row[col("memory_bytes")],
            text(&row[col("source")]),
        );
        *counts.entry(key).or_insert(0) += 1;
    }
    let times: Vec<String> = r.rows.iter().map(|row| text(&row[col("sampled_at")])).collect();
    let mut span = vec![times.first().cloned().unwrap_or_default(), times.last().cloned().unwrap_or_default()];
    span.dedup();
    (counts, span)
}

#[test]
fn node_and_pod_usage_is_stored_in_millicores_and_bytes_once_whatever_the_reingests() {
    let Some(vm) = server("node_and_pod_usage_is_stored_in_millicores_and_bytes") else { return };
    let (_dir, store) = temp_store();
    // [T0+10m, T0+20m): 20 instants, in two 5-minute windows.
    let report = pull(&store, &vm.url(), &options(600, 1200, &[])).expect("pull");
    assert_eq!(report.windows.len(), 2);
    assert_eq!((report.samples(), report.added()), (60, 60), "20 instants × (node-a, worker-b, web/api-1)");
    let (counts, span) = stored(&store);
    let expected: BTreeMap<String, usize> = [
        ("node node-a null/null 750 3221225472 prometheus".to_string(), 20),
        ("node worker-b null/null 1200 12884901888 prometheus".to_string(), 20),
        ("pod node-a web/api-1 300 268435456 prometheus".to_string(), 20),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    assert_eq!(span, ["2026-11-13T00:10:00Z", "2026-11-13T00:19:30Z"]);
    // Each window's input errors, named by window, query and series.
    let errors: Vec<&String> = report.windows.iter().flat_map(|w| &w.errors).collect();
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert_eq!(
        errors[0],
        "window [2026-11-13T00:10:00Z, 2026-11-13T00:15:00Z) query node_memory series {instance=\"10.9.9.9:9100\"}: \
         names no node: its instance 10.9.9.9:9100 is an IP address that no kube_node_info series maps to a node \
         (internal_ip) during the window; scrape kube-state-metrics, or give the series a node label; skipped"
    );
    assert_eq!(
        errors[1],
        "window [2026-11-13T00:10:00Z, 2026-11-13T00:15:00Z) query pod_memory series {namespace=\"web\", \
         node=\"node-a\"}: has no pod label; skipped"
    );
    // The same range again: nothing added.
    let again = pull(&store, &vm.url(), &options(600, 1200, &[])).expect("again");
    assert_eq!((again.samples(), again.added()), (60, 0));
    assert_eq!(stored(&store).0, expected);
}

#[test]
fn resume_continues_after_the_last_committed_window_and_a_failing_query_names_its_window() {
    let Some(vm) = server("resume_continues_after_the_last_committed_window") else { return };
    let (_dir, store) = temp_store();
    let first = pull(&store, &vm.url(), &options(600, 900, &[])).expect("first");
    assert_eq!(first.samples(), 30);
    let mut resumed = options(600, 1200, &[]);
    resumed.resume = true;
    let second = pull(&store, &vm.url(), &resumed).expect("resumed");
    assert_eq!(second.resumed_from, Some(at(900)));
    assert_eq!((second.samples(), second.added()), (30, 30));
    assert_eq!(stored(&store).1, ["2026-11-13T00:10:00Z", "2026-11-13T00:19:30Z"]);
    // A query the server refuses: the pull stops naming the window and the
    // query; what was committed before stays.
    let bad = [("pod_cpu".to_string(), "sum(rate(".to_string())];
    let failed = pull(&store, &vm.url(), &options(1200, 1500, &bad)).expect_err("refused");
    let text = failed.error.to_string();
    assert!(
        text.starts_with(&format!(
            "window [2026-11-13T00:20:00Z, 2026-11-13T00:25:00Z) query pod_cpu: {}/api/v1/query_range failed after 1 \
             attempt(s): HTTP 4",
            vm.url()
        )),
        "{text}"
    );
    assert!(failed.committed.windows.is_empty());
    assert_eq!(stored(&store).0.values().sum::<usize>(), 60, "the windows committed before stay");
}

/// web/api-1's working set from T0 for an hour, and six more pods from
/// T0+30m: under `-search.maxSamplesPerQuery=150` the windows before
/// T0+30m read few enough raw samples, the next one too many.
fn growing_exposition() -> String {
    let mut out = String::new();
    for k in 0..=120i64 {
        let ms = (T0 + 30 * k) * 1000;
        let series = |pod: &str| {
            format!(
                r#"container_memory_working_set_bytes{{namespace="web",pod="{pod}",container="api",node="node-a"}}"#
            )
        };
        out.push_str(&format!("{} 1000 {ms}\n", series("api-1")));
        if k >= 60 {
            for p in 0..6 {
                out.push_str(&format!("{} 2000 {ms}\n", series(&format!("burst-{p}"))));
            }
        }
    }
    out
}

#[test]
fn a_window_the_server_refuses_stops_the_pull_naming_it_and_the_windows_before_stay() {
    let test = "a_window_the_server_refuses_stops_the_pull";
    let Some(vm) = RealVmetrics::victoria_metrics_with_or_skip(test, &["-search.maxSamplesPerQuery=150"]) else {
        return;
    };
    vm.post("/api/v1/import/prometheus", growing_exposition());
    vm.flush();
    let (_dir, store) = temp_store();
    let only_pod_memory: Vec<(String, String)> =
        ["node_info", "node_cpu", "node_memory", "pod_cpu"].iter().map(|n| (n.to_string(), String::new())).collect();
    let mut options = options(600, 2700, &only_pod_memory);
    let failed = pull(&store, &vm.url(), &options).expect_err("the fifth window reads too many samples");
    let windows: Vec<String> =
        failed.committed.windows.iter().map(|w| format!("{} {}", w.window.start, w.samples)).collect();
    assert_eq!(
        windows,
        [
            "2026-11-13 00:10:00 UTC 10",
            "2026-11-13 00:15:00 UTC 10",
            "2026-11-13 00:20:00 UTC 10",
            "2026-11-13 00:25:00 UTC 10"
        ]
    );
    let text = failed.error.to_string();
    let expected = format!(
        "window [2026-11-13T00:30:00Z, 2026-11-13T00:35:00Z) query pod_memory: {}/api/v1/query_range failed after 1 \
         attempt(s): HTTP 422: 422: cannot select more than -search.maxSamplesPerQuery=150 samples",
        vm.url()
    );
    assert!(text.starts_with(&expected), "{text}");
    // Four ok runs, then the failed window's, its error stored.
    let runs = run_query(&store, "runs", &[]).expect("runs");
    let status: Vec<&Value> = runs.rows.iter().map(|r| &r[3]).collect();
    assert_eq!(status, ["failed", "ok", "ok", "ok", "ok"]);
    let errors = run_query(&store, "run_errors", &[("run_id".into(), "5".into())]).expect("run_errors");
    assert!(errors.rows.iter().any(|r| r.iter().any(|v| v.as_str().is_some_and(|t| t.starts_with(&expected)))));
    let (counts, span) = stored(&store);
    assert_eq!(counts.values().sum::<usize>(), 40, "{counts:?}");
    assert_eq!(span, ["2026-11-13T00:10:00Z", "2026-11-13T00:29:30Z"]);
    // --resume starts at the refused window, not before.
    options.resume = true;
    let again = pull(&store, &vm.url(), &options).expect_err("still too many");
    assert_eq!(again.committed.resumed_from, Some(at(1800)));
    assert!(again.error.to_string().starts_with(&expected), "{}", again.error);
}
