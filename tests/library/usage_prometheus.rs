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
fn a_range_pulled_again_with_the_memory_queries_fills_the_memory_of_the_stored_samples() {
    // Break-it 36 F2: the memory of a second pull was "already stored".
    let Some(vm) = server("a_range_pulled_again_with_the_memory_queries_fills") else { return };
    let (_dir, store) = temp_store();
    let no_memory = [("node_memory".to_string(), String::new()), ("pod_memory".to_string(), String::new())];
    let first = pull(&store, &vm.url(), &options(600, 900, &no_memory)).expect("cpu only");
    assert_eq!((first.samples(), first.added()), (30, 30), "10 instants × (node-a, worker-b, web/api-1)");
    let cpu_only: BTreeMap<String, usize> = [
        ("node node-a null/null 750 null prometheus".to_string(), 10),
        ("node worker-b null/null 1200 null prometheus".to_string(), 10),
        ("pod node-a web/api-1 300 null prometheus".to_string(), 10),
    ]
    .into_iter()
    .collect();
    assert_eq!(stored(&store).0, cpu_only);
    // The same range with the memory queries: every sample is new (its
    // memory), none added as a row, none changed in cpu.
    let again = pull(&store, &vm.url(), &options(600, 900, &[])).expect("with memory");
    assert_eq!((again.samples(), again.added()), (30, 30));
    let expected: BTreeMap<String, usize> = [
        ("node node-a null/null 750 3221225472 prometheus".to_string(), 10),
        ("node worker-b null/null 1200 12884901888 prometheus".to_string(), 10),
        ("pod node-a web/api-1 300 268435456 prometheus".to_string(), 10),
    ]
    .into_iter()
    .collect();
    assert_eq!(stored(&store).0, expected);
    // Break-it 37 F8: each row keeps the run that stored it first (documented
    // in usage_samples' query and docs/sources.md); the filling run is the
    // one credited with the 30 new samples.
    let (first_run, fill_run) = (first.windows[0].run_id, again.windows[0].run_id);
    assert_ne!(first_run, fill_run);
    let params = [
        ("since_us".to_string(), "2026-11-13T00:00:00Z".to_string()),
        ("until_us".to_string(), "2026-11-14T00:00:00Z".to_string()),
        ("node".to_string(), String::new()),
    ];
    let rows = run_query(&store, "usage_samples", &params).expect("usage_samples");
    let run_col = rows.columns.iter().position(|c| c == "run_id").expect("run_id");
    let runs: std::collections::BTreeSet<i64> = rows.rows.iter().filter_map(|r| r[run_col].as_i64()).collect();
    assert_eq!(runs.into_iter().collect::<Vec<_>>(), [first_run]);
    assert_eq!((again.windows.len(), again.windows[0].added), (1, 30));
    // A third time: nothing left to add.
    let third = pull(&store, &vm.url(), &options(600, 900, &[])).expect("third");
    assert_eq!((third.samples(), third.added()), (30, 0));
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

mod hot_node_from_victoria_metrics {
    //! issue 37's "done when": a cluster whose nodes are all 45–55 %
    //! requested, one node at ≥ 90 % cpu used for two hours
    //! ([`kdrift_tests::hot_node`]), its series pulled out of the real
    //! VictoriaMetrics by `ingest prometheus`; `skew --usage` and `hotspots`
    //! name the node, the episode and the pods driving it.

    use chrono::Duration;
    use kdrift_analyze::{hotspots, skew_usage, Arrival, HotspotsOptions};
    use kdrift_rebalance::Reading;
    use kdrift_tests::hot_node::{self, at, HOT_NODE, ROLLOUT};
    use kdrift_tests::real_vlogs::RealVmetrics;
    use kdrift_tests::temp_store;

    use super::pull;

    #[test]
    fn skew_usage_and_hotspots_name_the_hot_node_its_episode_and_the_rollout_pods_driving_it() {
        let test = "skew_usage_and_hotspots_name_the_hot_node";
        let Some(vm) = RealVmetrics::victoria_metrics_or_skip(test) else { return };
        vm.post("/api/v1/import/prometheus", hot_node::exposition());
        vm.flush();
        let (_dir, store) = temp_store();
        hot_node::load_objects(&store);
        let mut options = super::options(0, 4 * 3600, &[]);
        options.max_window = Duration::hours(1);
        let report = pull(&store, &vm.url(), &options).expect("pull");
        assert!(report.added() > 0, "{report:?}");

        // At T0+2h: node-3 at 3900m of 4000m (97.5 %) while 50 % requested.
        let skew = skew_usage(&store, Some(at(2 * 3600)), Reading::Latest { max_age_us: 15 * 60_000_000 }, 80.0)
            .expect("skew --usage");
        let cpu: Vec<(String, f64, Option<i64>, Option<f64>)> = skew
            .nodes
            .iter()
            .map(|n| {
                let l = n.get("cpu").expect("cpu");
                (n.node.clone(), l.requested_percent, l.used, l.used_percent)
            })
            .collect();
        assert_eq!(
            cpu,
            [
                ("node-1".to_string(), 50.0, Some(1600), Some(40.0)),
                ("node-2".to_string(), 45.0, Some(1500), Some(37.5)),
                ("node-3".to_string(), 50.0, Some(3900), Some(97.5)),
                ("node-4".to_string(), 55.0, Some(1800), Some(45.0)),
            ]
        );
        let memory = skew.nodes[2].get("memory").expect("memory");
        assert_eq!((memory.used, memory.requested_percent), (Some(7 << 30), 50.0));
        assert_eq!(skew.hot_not_requested.len(), 1, "{:#?}", skew.hot_not_requested);
        let spot = &skew.hot_not_requested[0];
        assert_eq!((spot.node.as_str(), spot.resource.as_str()), (HOT_NODE, "cpu"));
        let pods: Vec<(String, i64, Option<i64>, Option<f64>)> =
            spot.pods.iter().map(|d| (d.name.clone(), d.used, d.requested, d.ratio)).collect();
        assert_eq!(
            pods,
            [
                ("crunch-5f6b8-m3n8v".to_string(), 1100, Some(500), Some(2.2)),
                ("crunch-5f6b8-q7w4z".to_string(), 1100, Some(500), Some(2.2)),
                ("crunch-5f6b8-xk2p9".to_string(), 1100, Some(500), Some(2.2)),
                ("api-4".to_string(), 400, Some(500), Some(0.8)),
            ]
        );
        assert!(skew.requested_not_used.is_empty());

        // Hotspots over the four hours, 5-minute steps, 3 in a row at ≥ 80 %.
        let options = HotspotsOptions {
            since: Some(at(0)),
            until: Some(at(4 * 3600)),
            threshold: 80.0,
            windows: 3,
            step: Duration::minutes(5),
        };
        let hot = hotspots(&store, &options).expect("hotspots");
        let episodes: Vec<(String, String, String, String, usize)> = hot
            .episodes
            .iter()
            .map(|e| {
                (e.node.clone(), e.resource.clone(), e.started_at.to_rfc3339(), e.ended_at.to_rfc3339(), e.windows)
            })
            .collect();
        // rate(…[5m]) takes five minutes to reach the new usage: the step of the
        // rise (T0+1h) averages under 80 %, the step of the fall (T0+3h) too.
        assert_eq!(
            episodes,
            [(
                HOT_NODE.to_string(),
                "cpu".to_string(),
                "2026-11-13T01:05:00+00:00".to_string(),
                "2026-11-13T03:00:00+00:00".to_string(),
                23
            )]
        );
        assert_eq!(hot.spikes, 1, "node-1's 10 minutes at 95 %");
        let e = &hot.episodes[0];
        assert_eq!(e.requested_percent, Some(50.0));
        assert!(e.peak_percent >= 97.0 && e.mean_percent >= 90.0, "{e:#?}");
        let drivers: Vec<(&str, i64, Option<i64>)> =
            e.pods.iter().map(|d| (d.name.as_str(), d.used, d.requested)).collect();
        assert_eq!(
            drivers,
            [
                ("crunch-5f6b8-m3n8v", 1100, Some(500)),
                ("crunch-5f6b8-q7w4z", 1100, Some(500)),
                ("crunch-5f6b8-xk2p9", 1100, Some(500)),
                ("api-4", 400, Some(500)),
            ]
        );
        for d in &e.pods[..3] {
            assert_eq!(d.bound_at, Some(at(55 * 60)), "{}", d.name);
            match &d.arrival {
                Some(Arrival::ScaleUp { deployment, message, rollout: true, .. }) => {
                    assert_eq!((deployment.as_str(), message.as_str()), ("batch/crunch", ROLLOUT));
                }
                other => panic!("{}: {other:?}", d.name),
            }
        }
    }
}

mod hot_node_from_the_recorder {
    //! issue 37's "done when", its second source: the same cluster's usage
    //! as metrics-server reports it (the fake API server's NodeMetrics and
    //! PodMetrics, metrics-server's JSON), sampled by `kdrift record` every
    //! `--metrics-interval`; `skew --usage` and `hotspots` name the node,
    //! the episode and the pods driving it.

    use std::sync::Arc;
    use std::time::{Duration as StdDuration, Instant};

    use chrono::Duration;
    use kdrift_analyze::{hotspots, skew_usage, HotspotsOptions};
    use kdrift_ingest::WallClock;
    use kdrift_rebalance::Reading;
    use kdrift_store::{Store, UsageKind};
    use kdrift_tests::fake_kube::metrics::Reading as Scrape;
    use kdrift_tests::fake_kube::{ContainerUsage, FakeKube};
    use kdrift_tests::hot_node::{self, at, HOT_NODE};
    use kdrift_tests::recorder::RunningRecorder;

    /// Every 5 minutes of the four hours (49 readings).
    const STEP: i64 = 300;

    /// The hot-node cluster's reading at T0+`s` seconds, as metrics-server
    /// serves it (cpu `1600m`, memory in `Ki`).
    fn reading(s: i64) -> Scrape {
        let samples = hot_node::at_instant(s);
        let text = |s: &kdrift_store::UsageSample| {
            (format!("{}m", s.cpu_millis.unwrap_or(0)), format!("{}Ki", s.memory_bytes.unwrap_or(0) / 1024))
        };
        let of = |kind: UsageKind| samples.iter().filter(move |s| s.kind == kind);
        let nodes: Vec<(String, String, String)> = of(UsageKind::Node)
            .map(|s| {
                let (c, m) = text(s);
                (s.node.clone().unwrap_or_default(), c, m)
            })
            .collect();
        let pods: Vec<(String, String, String, String)> = of(UsageKind::Pod)
            .map(|s| {
                let (c, m) = text(s);
                (s.namespace.clone().unwrap_or_default(), s.pod.clone().unwrap_or_default(), c, m)
            })
            .collect();
        let node_refs: Vec<(&str, &str, &str)> =
            nodes.iter().map(|(n, c, m)| (n.as_str(), c.as_str(), m.as_str())).collect();
        let containers: Vec<[ContainerUsage<'_>; 1]> =
            pods.iter().map(|(_, _, c, m)| [("main", c.as_str(), m.as_str())]).collect();
        let pod_refs: Vec<(&str, &str, &[ContainerUsage<'_>])> =
            pods.iter().zip(&containers).map(|((ns, name, _, _), c)| (ns.as_str(), name.as_str(), &c[..])).collect();
        Scrape::new(at(s), &node_refs, &pod_refs)
    }

    #[test]
    fn skew_usage_and_hotspots_name_the_hot_node_from_recorded_metrics_server_readings() {
        let kube = FakeKube::start();
        // Every reading queued before the recorder starts: each scrape takes
        // the next one (its NodeMetrics list pops it), so none is skipped or
        // repeated however the sampling loop and the machine's load go.
        let readings: Vec<Scrape> = (0..=hot_node::HOURS * 3600).step_by(STEP as usize).map(reading).collect();
        assert_eq!(readings.len(), 49);
        kube.queue_metrics(readings);
        let dir = tempfile::tempdir().expect("tmp");
        let kubeconfig = kube.write_kubeconfig(dir.path());
        let db = dir.path().join("rec.duckdb");
        let rec = RunningRecorder::start(&kubeconfig, &db, Arc::new(WallClock), |o| {
            o.metrics_interval = Some(StdDuration::from_millis(50));
        });
        let deadline = Instant::now() + StdDuration::from_secs(300);
        while kube.metrics_queued() > 0 {
            assert!(Instant::now() < deadline, "{} readings not taken in 300 s", kube.metrics_queued());
            std::thread::sleep(StdDuration::from_millis(20));
        }
        // The take that popped the last reading is stored once the
        // recorder counts one more take than now (that one or a later one).
        let takes = rec.watched.seen().usage.map_or(0, |u| u.takes);
        assert!(
            rec.watched.wait(StdDuration::from_secs(120), |st| st.usage.as_ref().is_some_and(|u| u.takes > takes)),
            "the recorder stored no take after the last reading"
        );
        let report = rec.stop();
        let usage = report.usage.expect("usage sampled");
        assert_eq!(usage.errors.len(), 0, "{usage:?}");
        let store = Store::open(&db).expect("store");
        // The object history beside the recorded readings (the fake API holds no history).
        hot_node::load_objects(&store);

        let skew = skew_usage(&store, Some(at(2 * 3600)), Reading::Latest { max_age_us: 15 * 60_000_000 }, 80.0)
            .expect("skew --usage");
        let cpu: Vec<(String, f64, Option<i64>)> = skew
            .nodes
            .iter()
            .map(|n| {
                let l = n.get("cpu").expect("cpu");
                (n.node.clone(), l.requested_percent, l.used)
            })
            .collect();
        assert_eq!(
            cpu,
            [
                ("node-1".to_string(), 50.0, Some(1600)),
                ("node-2".to_string(), 45.0, Some(1500)),
                ("node-3".to_string(), 50.0, Some(3900)),
                ("node-4".to_string(), 55.0, Some(1800)),
            ]
        );
        assert_eq!(skew.hot_not_requested.len(), 1, "{:#?}", skew.hot_not_requested);
        let spot = &skew.hot_not_requested[0];
        assert_eq!(spot.node, HOT_NODE);
        let pods: Vec<(&str, i64)> = spot.pods.iter().map(|d| (d.name.as_str(), d.used)).collect();
        assert_eq!(
            pods,
            [("crunch-5f6b8-m3n8v", 1100), ("crunch-5f6b8-q7w4z", 1100), ("crunch-5f6b8-xk2p9", 1100), ("api-4", 400)]
        );

        let options = HotspotsOptions {
            since: Some(at(0)),
            until: Some(at(4 * 3600)),
            threshold: 80.0,
            windows: 3,
            step: Duration::minutes(5),
        };
        let hot = hotspots(&store, &options).expect("hotspots");
        let episodes: Vec<(String, String, String, usize)> = hot
            .episodes
            .iter()
            .map(|e| (e.node.clone(), e.started_at.to_rfc3339(), e.ended_at.to_rfc3339(), e.windows))
            .collect();
        // Readings at whole 5 minutes: the episode is exactly [T0+1h, T0+3h).
        assert_eq!(
            episodes,
            [(
                HOT_NODE.to_string(),
                "2026-11-13T01:00:00+00:00".to_string(),
                "2026-11-13T03:00:00+00:00".to_string(),
                24
            )]
        );
        let drivers: Vec<&str> = hot.episodes[0].pods.iter().take(3).map(|d| d.name.as_str()).collect();
        assert_eq!(drivers, ["crunch-5f6b8-m3n8v", "crunch-5f6b8-q7w4z", "crunch-5f6b8-xk2p9"]);
    }
}

/// A Prometheus stand-in on 127.0.0.1 answering every range query with
/// `answer(start)` (`start`: the form's `start`, seconds), until the test ends.
fn canned_server(answer: fn(i64) -> String) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            // Headers, then the form (Content-Length bytes).
            let (head_end, length) = loop {
                let n = conn.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break (request.len(), 0);
                }
                request.extend_from_slice(&buf[..n]);
                if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&request[..at]).to_ascii_lowercase();
                    let length = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    break (at + 4, length);
                }
            };
            while request.len() < head_end + length {
                let n = conn.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
            }
            let form = String::from_utf8_lossy(&request[head_end.min(request.len())..]).to_string();
            let start = form
                .split('&')
                .find_map(|p| p.strip_prefix("start="))
                .and_then(|s| s.parse::<f64>().ok())
                .unwrap_or(0.0) as i64;
            let body = answer(start);
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = conn.write_all(reply.as_bytes());
        }
    });
    url
}

/// Good series n1 (0.5 cores) and n2 (0.25) at the window's first two
/// instants, and series each wrong in its own way (break-it 37 F3).
fn hostile_answer(s: i64) -> String {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let result = [
        format!(r#"{{"metric":{{"node":"n1"}},"values":[[{s},"0.5"],[{},"0.5"]]}}"#, s + 30),
        format!(r#"{{"metric":{{"node":"n3"}},"values":[[{s},"1"]],"values":[[{s},"2"]]}}"#),
        format!(r#"{{"metric":{{"node":"n4"}},"metric":{{"node":"n5"}},"values":[[{s},"1"]]}}"#),
        format!(r#"{{"metric":{{"node":"n6"}},"values":[{deep},[1e400,"1"],[{s},"0.75"]]}}"#),
        format!(r#"{{"metric":{{"node":"n7\ud800","job":"node"}},"values":[[{s},"1"]]}}"#),
        r#"{"metric":"text","values":[]}"#.to_string(),
        format!(r#"{{"metric":{{"node":"n2"}},"values":[[{s},"0.25"],[{},"0.25"]]}}"#, s + 30),
    ];
    format!(r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#, result.join(","))
}

#[test]
fn a_hostile_series_is_an_input_error_naming_it_and_the_windows_other_series_are_stored() {
    // Break-it 37 F3: a member twice, a point nested 200 deep or timed 1e400,
    // a lone surrogate in `node`, a `metric` that is text failed the whole
    // window ("HTTP 200 but not a Prometheus answer") and stopped the pull.
    let url = canned_server(hostile_answer);
    let (_dir, store) = temp_store();
    let only_node_cpu: Vec<(String, String)> =
        ["node_info", "node_memory", "pod_cpu", "pod_memory"].iter().map(|n| (n.to_string(), String::new())).collect();
    let report = pull(&store, &url, &options(0, 600, &only_node_cpu)).expect("both windows committed");
    let per_window: Vec<(u64, u64)> = report.windows.iter().map(|w| (w.samples, w.error_count)).collect();
    assert_eq!(per_window, [(5, 5), (5, 5)]);
    let w = "window [2026-11-13T00:00:00Z, 2026-11-13T00:05:00Z) query node_cpu series";
    assert_eq!(
        report.windows[0].errors,
        [
            format!("{w} {{node=\"n3\"}}: member \"values\" twice; skipped"),
            format!("{w} {{node=\"n4\"}}: member \"metric\" twice; skipped"),
            format!(
                "{w} {{node=\"n6\"}}: 2 point(s) are not [time, \"value\"] (the first, values[0]: {}); skipped, the \
                 series' other points are stored",
                "[".repeat(80)
            ),
            format!("{w} {{}}: label \"node\" is not valid JSON text (unexpected end of hex escape); skipped"),
            format!("{w} {{}}: \"metric\" is text, not an object of labels; skipped"),
        ]
    );
    let (counts, span) = stored(&store);
    let expected: BTreeMap<String, usize> = [
        ("node n1 null/null 500 null prometheus".to_string(), 4),
        ("node n2 null/null 250 null prometheus".to_string(), 4),
        ("node n6 null/null 750 null prometheus".to_string(), 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    assert_eq!(span, ["2026-11-13T00:00:00Z", "2026-11-13T00:05:30Z"]);
}

/// Good series n1 (0.5 cores) and n2 (0.25) at the window's first two
/// instants, between elements of `result` that are no object: `null`, text,
/// an array.
fn not_an_object_answer(s: i64) -> String {
    let result = [
        "null".to_string(),
        format!(r#"{{"metric":{{"node":"n1"}},"values":[[{s},"0.5"],[{},"0.5"]]}}"#, s + 30),
        r#""oops""#.to_string(),
        "[1,2]".to_string(),
        format!(r#"{{"metric":{{"node":"n2"}},"values":[[{s},"0.25"],[{},"0.25"]]}}"#, s + 30),
    ];
    format!(r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#, result.join(","))
}

#[test]
fn a_series_that_is_no_object_is_an_input_error_naming_its_index_and_the_others_are_stored() {
    // Break-it 43 N3: one `null`, `"oops"` or `[1,2]` in `result` lost the
    // window (0 of 90) and stopped the pull: "its result is no list of series".
    let url = canned_server(not_an_object_answer);
    let (_dir, store) = temp_store();
    let only_node_cpu: Vec<(String, String)> =
        ["node_info", "node_memory", "pod_cpu", "pod_memory"].iter().map(|n| (n.to_string(), String::new())).collect();
    let report = pull(&store, &url, &options(0, 600, &only_node_cpu)).expect("both windows committed");
    let per_window: Vec<(u64, u64)> = report.windows.iter().map(|w| (w.samples, w.error_count)).collect();
    assert_eq!(per_window, [(4, 3), (4, 3)]);
    let w = "window [2026-11-13T00:00:00Z, 2026-11-13T00:05:00Z) query node_cpu series";
    assert_eq!(
        report.windows[0].errors,
        [
            format!("{w} result[0]: it is null, not a series (an object); skipped"),
            format!("{w} result[2]: it is text, not a series (an object); skipped"),
            format!("{w} result[3]: it is an array, not a series (an object); skipped"),
        ]
    );
    let (counts, _) = stored(&store);
    let expected: BTreeMap<String, usize> = [
        ("node n1 null/null 500 null prometheus".to_string(), 4),
        ("node n2 null/null 250 null prometheus".to_string(), 4),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
}

/// Good series n1 and n2, and n3 whose one value is 2 MB of text.
fn huge_value_answer(s: i64) -> String {
    let huge = "a".repeat(2 << 20);
    let result = [
        format!(r#"{{"metric":{{"node":"n1"}},"values":[[{s},"0.5"]]}}"#),
        format!(r#"{{"metric":{{"node":"n3"}},"values":[[{s},"0.75"],[{},"{huge}"]]}}"#, s + 30),
        format!(r#"{{"metric":{{"node":"n2"}},"values":[[{s},"0.25"]]}}"#),
    ];
    format!(r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#, result.join(","))
}

#[test]
fn a_value_longer_than_a_number_can_be_is_an_input_error_naming_its_series_and_the_others_are_stored() {
    // Issue 34 F5: one 200 MB string value was copied and quoted whole
    // (peak 892 MB; 2.0 GB in a debug build); it is refused unread.
    let url = canned_server(huge_value_answer);
    let (_dir, store) = temp_store();
    let only_node_cpu: Vec<(String, String)> =
        ["node_info", "node_memory", "pod_cpu", "pod_memory"].iter().map(|n| (n.to_string(), String::new())).collect();
    let report = pull(&store, &url, &options(0, 300, &only_node_cpu)).expect("the window is committed");
    let per_window: Vec<(u64, u64)> = report.windows.iter().map(|w| (w.samples, w.error_count)).collect();
    assert_eq!(per_window, [(2, 1)]);
    assert_eq!(
        report.windows[0].errors,
        [format!(
            "window [2026-11-13T00:00:00Z, 2026-11-13T00:05:00Z) query node_cpu series {{node=\"n3\"}}: 1 point(s) \
             are longer than the 1024 bytes a point can be ([time, \"value\"], a value a number's text; the first, \
             values[1], is {} bytes); skipped",
            (2 << 20) + 15
        )]
    );
    let (counts, _) = stored(&store);
    let expected: BTreeMap<String, usize> = [
        ("node n1 null/null 500 null prometheus".to_string(), 1),
        ("node n2 null/null 250 null prometheus".to_string(), 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
}

/// pod_memory of one pod, web/api-1, from two series (node n1 at 100 MiB,
/// node n2 at 300 MiB) at the window's first two instants, and web/api-2
/// from one series whose second point is 0.4 µs off the step's grid.
fn two_series_answer(s: i64) -> String {
    let mib = 1u64 << 20;
    let result = [
        format!(
            r#"{{"metric":{{"namespace":"web","pod":"api-1","node":"n1"}},"values":[[{s},"{}"],[{},"{}"]]}}"#,
            100 * mib,
            s + 30,
            100 * mib
        ),
        format!(
            r#"{{"metric":{{"namespace":"web","pod":"api-1","node":"n2"}},"values":[[{s},"{}"],[{},"{}"]]}}"#,
            300 * mib,
            s + 30,
            300 * mib
        ),
        format!(
            r#"{{"metric":{{"namespace":"web","pod":"api-2","node":"n1"}},"values":[[{s},"{}"],[{}.0000004,"{}"]]}}"#,
            mib,
            s + 30,
            mib
        ),
    ];
    format!(r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#, result.join(","))
}

#[test]
fn a_pod_from_two_series_at_the_same_instants_is_an_input_error_and_near_instants_are_one() {
    // Break-it 40 F10: the second series' points were dropped silently
    // (exit 0), and a point 0.4 µs off the grid was a sample of its own.
    let url = canned_server(two_series_answer);
    let (_dir, store) = temp_store();
    let only_pod_memory: Vec<(String, String)> =
        ["node_info", "node_cpu", "node_memory", "pod_cpu"].iter().map(|n| (n.to_string(), String::new())).collect();
    let report = pull(&store, &url, &options(0, 300, &only_pod_memory)).expect("the window is committed");
    let per_window: Vec<(u64, u64)> = report.windows.iter().map(|w| (w.samples, w.error_count)).collect();
    assert_eq!(per_window, [(4, 1)]);
    assert_eq!(
        report.windows[0].errors,
        ["window [2026-11-13T00:00:00Z, 2026-11-13T00:05:00Z) query pod_memory series {namespace=\"web\", \
          node=\"n2\", pod=\"api-1\"}: 2 point(s) at instants series {namespace=\"web\", node=\"n1\", pod=\"api-1\"} \
          already gave (the first at 2026-11-13T00:00:00Z); skipped, the first series' value is stored (a pod moved \
          to another node has both series for a few instants; more is one pod measured twice)"]
    );
    let (counts, span) = stored(&store);
    let expected: BTreeMap<String, usize> = [
        (format!("pod n1 web/api-1 null {} prometheus", 100u64 << 20), 2),
        (format!("pod n1 web/api-2 null {} prometheus", 1u64 << 20), 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    assert_eq!(span, ["2026-11-13T00:00:00Z", "2026-11-13T00:00:30Z"]);
}

/// New-user trial 46: `ingest victorialogs --url` of a VictoriaMetrics
/// server got its bare `HTTP 400: unsupported path requested` with no hint.
#[test]
fn a_victorialogs_pull_from_victoria_metrics_says_which_server_it_reached() {
    let test = "a_victorialogs_pull_from_victoria_metrics_says_which_server_it_reached";
    let Some(vm) = RealVmetrics::victoria_metrics_or_skip(test) else { return };
    let (_dir, store) = kdrift_tests::temp_store();
    let options = kdrift_tests::vl_pull::test_options(
        "2026-11-20T00:00:00Z".parse().expect("t"),
        "2026-11-21T00:00:00Z".parse().expect("t"),
        1000,
    );
    let err = kdrift_tests::vl_pull::pull_blocking(&store, &vm.url(), kdrift_ingest::Auth::default(), &options)
        .expect_err("no VictoriaLogs there");
    let mut text = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(e) = source {
        text.push_str(&format!(": {e}"));
        source = e.source();
    }
    assert!(text.contains("HTTP 400: unsupported path requested"), "{text}");
    assert!(text.contains("is --url a VictoriaLogs server? VictoriaMetrics answers so"), "{text}");
}
