//! descheduler v0.36 LowNodeUtilization `metricsUtilization` vectors ported:
//! `descheduler_test.go` TestLoadAwareDescheduling (KubernetesMetrics, 1
//! case) and `lownodeutilization_test.go`
//! TestLowNodeUtilizationWithPrometheusMetrics (4 cases; DefaultEvictor with
//! nodeFit), plus `usageclients_test.go` TestPrometheusUsageClient's three
//! refusals (missing `instance`, a value outside [0, 1]) and a node missing
//! from the collected metrics. Measured values are given as upstream's fakes
//! give them: [`MeasuredUsage`] for metrics-server, [`MetricSample`]s for
//! Prometheus.

use super::kit::*;
use crate::model::measured::{Measured, MeasuredUsage, Reading};
use crate::model::node::NodeInfo;
use crate::model::pod::{PodInfo, Volume, VolumeSource};
use crate::planner::tests::now;
use crate::planner::{plan, MetricSample, Plan, PlanOptions, Snapshot, StopReason, SYSTEM_CRITICAL_PRIORITY};
use crate::policy::{
    DefaultEvictorArgs, EvictionLimits, LowNodeUtilizationArgs, MetricsUtilization, PluginArgs, PrometheusQuery,
    KUBERNETES_METRICS, METRIC_RESOURCE, PROMETHEUS_METRICS,
};

fn t(pairs: &[(&str, f64)]) -> crate::policy::ResourceThresholds {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn reading(cpu: i64, memory: i64) -> Measured {
    let at = now().timestamp_micros();
    Measured { cpu_millis: Some(cpu), memory_bytes: Some(memory), sampled_at_us: at - 30_000_000, samples: 1 }
}

/// `test.BuildNodeMetrics` / `BuildPodMetrics` readings, as the store gives them.
fn measured(nodes: &[(&str, i64, i64)], pods: &[(&str, i64, i64)]) -> MeasuredUsage {
    MeasuredUsage {
        at_us: now().timestamp_micros(),
        reading: Some(Reading::Latest { max_age_us: 900_000_000 }),
        nodes: nodes.iter().map(|(n, c, m)| (n.to_string(), reading(*c, *m))).collect(),
        pods: pods.iter().map(|(p, c, m)| (("default".into(), p.to_string()), (reading(*c, *m), None))).collect(),
    }
}

fn lnu_policy(args: LowNodeUtilizationArgs, node_fit: bool) -> crate::policy::Policy {
    policy(
        "LowNodeUtilization",
        PluginArgs::LowNodeUtilization(Box::new(args)),
        DefaultEvictorArgs { node_fit, ..Default::default() },
    )
}

fn snapshot(nodes: Vec<NodeInfo>, pods: Vec<PodInfo>) -> Snapshot {
    Snapshot::new(nodes, pods, now())
}

/// TestLoadAwareDescheduling: n1 (2000m, NoSchedule taint) uses 2400m with
/// five ReplicaSet pods of 300m requested / 400m used; n2 uses 400m.
pub(crate) fn load_aware() -> (Snapshot, crate::policy::Policy) {
    let nodes = vec![tainted(bnode("n1", 2000, 3000, 10), "key", "value"), bnode("n2", 2000, 3000, 10)];
    let pods = (1..=5).map(|i| rs(bpod(&format!("p{i}"), 300, 0, "n1"))).collect();
    let mut s = snapshot(nodes, pods);
    let pod_usage: Vec<(String, i64, i64)> = (1..=5).map(|i| (format!("p{i}"), 400, 0)).collect();
    let pod_usage: Vec<(&str, i64, i64)> = pod_usage.iter().map(|(n, c, m)| (n.as_str(), *c, *m)).collect();
    s.measured = Some(measured(&[("n1", 2400, 3000), ("n2", 400, 0)], &pod_usage));
    let args = LowNodeUtilizationArgs {
        thresholds: t(&[("cpu", 30.0), ("pods", 30.0)]),
        target_thresholds: t(&[("cpu", 50.0), ("pods", 50.0)]),
        metrics_utilization: Some(MetricsUtilization { source: Some(KUBERNETES_METRICS.into()), ..Default::default() }),
        ..Default::default()
    };
    (s, lnu_policy(args, false))
}

/// The Prometheus cluster: n1 (4000m, 9 pods) with p1–p5 (ReplicaSet), p6
/// (DaemonSet), p7 (mirror with local storage), p8 (system-critical); n2
/// with p9; n3 empty.
fn prometheus_cluster(samples: [f64; 3]) -> Snapshot {
    let nodes = vec![bnode("n1", 4000, 3000, 9), bnode("n2", 4000, 3000, 10), bnode("n3", 4000, 3000, 10)];
    let mut pods: Vec<PodInfo> = (1..=5).map(|i| rs(bpod(&format!("p{i}"), 400, 0, "n1"))).collect();
    let mut p7 = normal(bpod("p7", 400, 0, "n1"));
    p7.volumes = vec![Volume { name: "sample".into(), source: VolumeSource::HostPath { path: "somePath".into() } }];
    p7.annotations.insert("kubernetes.io/config.mirror".into(), "mirror".into());
    let mut p8 = normal(bpod("p8", 400, 0, "n1"));
    p8.namespace = "kube-system".into();
    p8.priority = Some(SYSTEM_CRITICAL_PRIORITY);
    pods.extend([ds(bpod("p6", 400, 0, "n1")), p7, p8, rs(bpod("p9", 400, 0, "n2"))]);
    let mut s = snapshot(nodes, pods);
    s.metric_samples = Some(
        ["n1", "n2", "n3"]
            .iter()
            .zip(samples)
            .map(|(n, v)| MetricSample { instance: Some(n.to_string()), value: v })
            .collect(),
    );
    s
}

fn prometheus_args(low: f64, high: f64, deviation: bool, node_limit: Option<u32>) -> LowNodeUtilizationArgs {
    LowNodeUtilizationArgs {
        thresholds: t(&[(METRIC_RESOURCE, low)]),
        target_thresholds: t(&[(METRIC_RESOURCE, high)]),
        use_deviation_thresholds: deviation,
        eviction_limits: node_limit.map(|n| EvictionLimits { node: Some(n) }),
        metrics_utilization: Some(MetricsUtilization {
            source: Some(PROMETHEUS_METRICS.into()),
            prometheus: Some(PrometheusQuery { query: "instance:node_cpu:rate:sum".into() }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

const SAMPLES: [f64; 3] = [0.5695757575757561, 0.4245454545454522, 0.20381818181818104];

fn prometheus_plan(samples: [f64; 3], args: LowNodeUtilizationArgs) -> Plan {
    plan(&prometheus_cluster(samples), &lnu_policy(args, true), &PlanOptions::default())
}

#[test]
fn upstream_metrics_vectors() {
    let mut tally = Tally::default();
    let (s, p) = load_aware();
    let load = plan(&s, &p, &PlanOptions::default());
    tally.check("TestLoadAwareDescheduling", expect(&load, 2, &["p1", "p2"]));
    let cases: [(&str, [f64; 3], LowNodeUtilizationArgs, usize); 4] = [
        ("with instance:node_cpu:rate:sum query", SAMPLES, prometheus_args(30.0, 50.0, false, None), 1),
        (
            "with instance:node_cpu:rate:sum query with more evictions",
            SAMPLES,
            prometheus_args(30.0, 50.0, false, Some(3)),
            3,
        ),
        ("with instance:node_cpu:rate:sum query with deviation", SAMPLES, prometheus_args(5.0, 5.0, true, Some(2)), 2),
        (
            "with instance:node_cpu:rate:sum query and deviation thresholds",
            [1.0, 0.5, 0.0],
            prometheus_args(10.0, 10.0, true, None),
            1,
        ),
    ];
    for (name, samples, args, count) in cases {
        tally.check(name, expect(&prometheus_plan(samples, args), count, &[]));
    }
    tally.finish("LowNodeUtilization metricsUtilization");

    // The figures behind the counts: 2400m of 2000m is 120 %; the budget on
    // n2 is 1000m − 400m = 600m and 5 pods; each eviction frees 400m used.
    let run = &load.runs[0];
    assert_eq!(
        run.nodes[0].why,
        "above target: cpu used 120.0 % > 50 (latest sample at 2026-06-01T11:59:30Z, 30s before the plan)"
    );
    let budget = run.budget.as_ref().expect("budget");
    assert_eq!((budget.initial.get("cpu"), budget.initial.get("pods")), (600, 5));
    assert_eq!((budget.remaining.get("cpu"), budget.remaining.get("pods")), (-200, 3));
    assert_eq!(run.evictions[0].frees.get("cpu"), 400, "the pod's usage, not its 300m request");
    // 0.5696 → 56, 0.4245 → 42, 0.2038 → 20 (truncated); one pod, then the node's loop ends.
    let one = prometheus_plan(SAMPLES, prometheus_args(30.0, 50.0, false, None));
    let used: Vec<i64> = one.runs[0].nodes.iter().map(|n| n.resources[0].used).collect();
    assert_eq!(used, [56, 42, 20]);
    assert_eq!(one.runs[0].source_nodes[0].stop, StopReason::SinglePodEviction);
    assert_eq!(one.runs[0].source_nodes[0].stop_message, "Currently, only a single pod eviction is allowed");
    let dev = prometheus_plan(SAMPLES, prometheus_args(5.0, 5.0, true, Some(2)));
    let high = dev.runs[0].thresholds.high[METRIC_RESOURCE];
    assert!((high - 44.333).abs() < 0.001, "avg 39.33 + 5, got {high}");
}

#[test]
fn upstream_usage_client_refusals_fail_the_run() {
    let mut tally = Tally::default();
    let error_of = |s: &Snapshot, args: LowNodeUtilizationArgs| -> Option<String> {
        let p = plan(s, &lnu_policy(args, true), &PlanOptions::default());
        assert_eq!(p.evictions_total, 0);
        p.runs[0].error.clone()
    };
    let check = |got: Option<String>, want: &str| -> Result<(), String> {
        (got.as_deref() == Some(want)).then_some(()).ok_or(format!("want {want:?}, got {got:?}"))
    };
    let mut s = prometheus_cluster(SAMPLES);
    s.metric_samples.as_mut().expect("set by the fixture")[1].instance = None;
    tally.check(
        "missing instance",
        check(
            error_of(&s, prometheus_args(30.0, 50.0, false, None)),
            "error getting node usage: The collected metrics sample is missing 'instance' key",
        ),
    );
    let s = prometheus_cluster([0.5, 1.5, 0.2]);
    tally.check(
        "value outside of <0; 1>",
        check(
            error_of(&s, prometheus_args(30.0, 50.0, false, None)),
            "error getting node usage: The collected metrics sample for \"n2\" has value 1.5 outside of <0; 1> interval",
        ),
    );
    let mut s = prometheus_cluster(SAMPLES);
    s.metric_samples.as_mut().expect("set by the fixture").pop();
    tally.check(
        "no sample for a node",
        check(
            error_of(&s, prometheus_args(30.0, 50.0, false, None)),
            "error getting node usage: unable to find metric entry for n3",
        ),
    );
    let mut s = prometheus_cluster(SAMPLES);
    s.metric_samples = None;
    s.metric_query_error = Some("expected query results to be of type \"vector\", got \"matrix\" instead".into());
    tally.check(
        "the query's answer is not a vector",
        check(
            error_of(&s, prometheus_args(30.0, 50.0, false, None)),
            "error getting node usage: expected query results to be of type \"vector\", got \"matrix\" instead",
        ),
    );
    let (mut s, p) = load_aware();
    s.measured.as_mut().expect("set by the fixture").nodes.remove("n2");
    let missing = plan(&s, &p, &PlanOptions::default());
    tally.check(
        "node missing from the collected metrics",
        check(
            missing.runs[0].error.clone(),
            "error getting node usage: unable to find node \"n2\" in the collected metrics",
        ),
    );
    // A failed run keeps the thresholds it was given and where its usage
    // came from (break-it 37 F1: the plan's header lost them).
    let s = prometheus_cluster([0.5, f64::NAN, 0.2]);
    let failed = plan(&s, &lnu_policy(prometheus_args(30.0, 50.0, false, None), true), &PlanOptions::default());
    let run = &failed.runs[0];
    tally.check(
        "a failed run keeps its thresholds",
        check(
            run.error.clone(),
            "error getting node usage: The collected metrics sample for \"n2\" has value NaN outside of <0; 1> interval",
        )
        .and_then(|()| {
            let kept = (run.thresholds.low[METRIC_RESOURCE], run.thresholds.high[METRIC_RESOURCE]);
            (kept == (30.0, 50.0)).then_some(()).ok_or(format!("thresholds {kept:?}"))
        })
        .and_then(|()| {
            let source = run.usage_source.as_ref().map(|u| u.source);
            (source == Some(crate::policy::MetricsSource::Prometheus)).then_some(()).ok_or(format!("{source:?}"))
        }),
    );
    tally.finish("LowNodeUtilization usage clients");
    assert_eq!(
        missing.warnings.last().map(String::as_str),
        Some("profile test: LowNodeUtilization failed: error getting node usage: unable to find node \"n2\" in the collected metrics")
    );
}

#[test]
fn a_pod_without_a_reading_is_skipped_and_no_usage_means_requests() {
    let (mut s, p) = load_aware();
    s.measured.as_mut().expect("set by the fixture").pods.remove(&("default".to_string(), "p1".to_string()));
    let out = plan(&s, &p, &PlanOptions::default());
    assert_eq!(evicted(&out), ["p2", "p3"]);
    let skip = out.runs[0].skipped.iter().find(|k| k.pod.name == "p1").expect("p1 skipped");
    assert_eq!(
        skip.message,
        "unable to get pod usage: no PodMetrics reading for default/p1 (latest sample (≤ 15m old))"
    );
    // Without measured usage: requests (1500m of 2000m = 75 % > 50) and a warning.
    s.measured = None;
    let out = plan(&s, &p, &PlanOptions::default());
    assert!(out.runs[0].usage_source.is_none());
    assert_eq!(out.runs[0].nodes[0].why, "above target: cpu 75.0 % > 50");
    assert!(out.warnings.iter().any(|w| w.contains("metricsUtilization is set but no measured usage was loaded")));
}

#[test]
fn ranking_by_usage_evicts_the_pod_that_relieves_the_hot_resource() {
    let (mut s, p) = load_aware();
    let usage = s.measured.as_mut().expect("set by the fixture");
    usage.nodes.get_mut("n1").expect("set by the fixture").cpu_millis = Some(2800);
    usage.pods.get_mut(&("default".to_string(), "p5".to_string())).expect("set by the fixture").0.cpu_millis =
        Some(1200);
    // descheduler's order (by name among equals): p1, p2 free 800m and spend the 600m budget.
    assert_eq!(evicted(&plan(&s, &p, &PlanOptions::default())), ["p1", "p2"]);
    let ranked = plan(&s, &p, &PlanOptions { rank_by_usage: true, ..Default::default() });
    assert_eq!(evicted(&ranked), ["p5"], "1200m in one eviction");
    let rule = &ranked.runs[0].evictions[0].rule;
    assert!(
        rule.starts_with(
            "ranked by measured cpu used (1200m), the node's hot resource (kdrift's --usage-window ranking"
        ),
        "{rule}"
    );
    assert_eq!(ranked.runs[0].budget.as_ref().expect("set by the fixture").remaining.get("cpu"), 600 - 1200);
}

#[test]
fn without_the_query_result_prometheus_stands_in_with_measured_cpu_over_allocatable() {
    let (s, _) = load_aware();
    let args = prometheus_args(30.0, 50.0, false, None);
    let out = plan(&s, &lnu_policy(args, false), &PlanOptions::default());
    let run = &out.runs[0];
    // n1: 2400m of 2000m → 1.2, counted as 1 (100); n2: 400m of 2000m → 0.2 (20).
    let used: Vec<i64> = run.nodes.iter().map(|n| n.resources[0].used).collect();
    assert_eq!(used, [100, 20]);
    assert_eq!(evicted(&out), ["p1"], "one pod per overutilized node");
    let source = run.usage_source.as_ref().expect("measured");
    assert_eq!(source.query.as_deref(), Some("instance:node_cpu:rate:sum"));
    assert_eq!(
        source.stand_in.as_deref(),
        Some(
            "each node's measured cpu used / allocatable cpu, in place of the query's result (counted as 1 above 100 \
             %: n1 at 120.0 %)"
        )
    );
}
