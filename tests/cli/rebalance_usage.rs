//! `kdrift rebalance plan` with a `metricsUtilization` policy on a store
//! holding usage samples (issue 37): nodes and pods ingested from `kubectl
//! get -o json` dumps, two hours of 30 s samples
//! (`kdrift_tests::usage_spike`). The plan reads the latest sample as
//! descheduler does and names it; `--usage-window 2h` reads the p95 and
//! ignores the 5-minute spike.

use assert_cmd::Command;
use kdrift_store::{Store, UsageSource};
use kdrift_tests::real_vlogs::RealVmetrics;
use kdrift_tests::usage_spike::{nodes_list, pods_list, samples, AT_TEXT, POLICY};
use std::sync::{Arc, Mutex};

use serde_json::Value;

struct Env {
    dir: tempfile::TempDir,
    db: std::path::PathBuf,
    policy: std::path::PathBuf,
}

fn env(with_samples: bool) -> Env {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("k.duckdb");
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, POLICY).expect("policy");
    let mut ingest = kdrift(&db);
    ingest.args(["ingest", "file"]);
    for (name, body) in [("nodes.json", nodes_list()), ("pods.json", pods_list())] {
        let path = dir.path().join(name);
        std::fs::write(&path, body.to_string()).expect("write");
        ingest.arg(path);
    }
    ingest.assert().success();
    if with_samples {
        let store = Store::open(&db).expect("store");
        store.commit_usage("test", "usage_spike", UsageSource::MetricsApi, &samples(), &[], None).expect("commit");
    }
    Env { dir, db, policy }
}

fn kdrift(db: &std::path::Path) -> Command {
    let mut c = Command::cargo_bin("kdrift").expect("binary");
    c.env_remove("KUBECONFIG").env_remove("KDRIFT_DB").arg("--db").arg(db);
    c
}

impl Env {
    fn plan(&self, extra: &[&str]) -> (String, String) {
        let _ = &self.dir;
        let out = kdrift(&self.db)
            .args(["rebalance", "plan", "--at", AT_TEXT, "--policy"])
            .arg(&self.policy)
            .args(extra)
            .assert()
            .success();
        let o = out.get_output();
        (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

fn evicted(doc: &Value) -> Vec<String> {
    let pods = doc["evictions"].as_array().expect("evictions").iter().map(|e| &e["pod"]);
    pods.map(|p| format!("{}/{}", p["namespace"].as_str().unwrap_or("?"), p["name"].as_str().unwrap_or("?"))).collect()
}

#[test]
fn plan_classifies_on_the_latest_sample_and_the_window_ignores_the_spike() {
    let env = env(true);
    let (table, _) = env.plan(&[]);
    assert!(
        table.contains(
            "(descheduler-v0.36, LowNodeUtilization from measured usage, latest sample (≤ 5m old); plan only"
        ),
        "{table}"
    );
    assert!(
        table.contains(
            "  usage: measured (KubernetesMetrics, latest sample (≤ 5m old)); percentages are used, not requested"
        ),
        "{table}"
    );
    assert!(
        table
            .contains("above target: cpu used 95.0 % > 70 (latest sample at 2026-11-13T02:00:00Z, 0s before the plan)"),
        "{table}"
    );
    assert!(
        table.contains(
            "every threshold met: cpu used 10.0 % ≤ 20 (latest sample at 2026-11-13T02:00:00Z, 0s before the plan)"
        ),
        "{table}"
    );

    let (json, _) = env.plan(&["-o", "json"]);
    let doc: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(evicted(&doc), ["web/app-hot-0", "web/app-hot-1"], "{json}");
    let run = &doc["plan"]["runs"][0];
    assert_eq!(run["usage_source"]["source"], "KubernetesMetrics");
    assert_eq!(run["usage_source"]["reading"], "latest sample (≤ 5m old)");
    assert_eq!(run["evictions"][0]["frees"]["cpu"], 950);
    let notes: Vec<&str> = doc["notes"].as_array().expect("notes").iter().filter_map(Value::as_str).collect();
    assert!(
        notes.contains(
            &"metricsUtilization: classified on measured usage, latest sample (≤ 5m old) at 2026-11-13T02:00:00Z (3 \
              node(s), 12 pod(s) measured); reasons cite used %, not requested %"
        ),
        "{notes:?}"
    );

    // --simulate: requested and predicted used % after the moves; the two
    // replacements land back on hot (the least requested once they left).
    let (table, _) = env.plan(&["--simulate"]);
    assert!(
        table.contains(
            "Used before → predicted after (latest sample (≤ 5m old); a moved pod takes its measured usage to its new \
             node; beyond descheduler)"
        ),
        "{table}"
    );
    // Both land back on hot, still 95 % used: said per pod.
    for pod in ["app-hot-0", "app-hot-1"] {
        let line = format!(
            "  verdict: web/{pod} lands back on hot, the node it was evicted from (predicted cpu used 95.0 % > 70 \
             target): the eviction relieves nothing there"
        );
        assert!(table.lines().any(|l| l == line), "{line}\n{table}");
    }
    let (json, _) = env.plan(&["-o", "json", "--simulate"]);
    let doc: Value = serde_json::from_str(&json).expect("json");
    let hot = &doc["simulation"]["predicted_usage"]["nodes"][1];
    assert_eq!((hot["node"].as_str(), &hot["resources"][0]["percent_after"]), (Some("hot"), &Value::from(95.0)));
    let verdict = &doc["simulation"]["predicted_usage"]["hot_landings"][0];
    assert_eq!(
        (&verdict["pod"], &verdict["node"], &verdict["back_on_source"], &verdict["percent_after"], &verdict["target"]),
        (
            &Value::from("web/app-hot-0"),
            &Value::from("hot"),
            &Value::from(true),
            &Value::from(95.0),
            &Value::from(70.0)
        )
    );
    assert_eq!(doc["simulation"]["predicted_usage"]["hot_landings"].as_array().map(Vec::len), Some(2));

    let (json, _) = env.plan(&["-o", "json", "--usage-window", "2h"]);
    let doc: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(evicted(&doc), Vec::<String>::new());
    assert_eq!(doc["plan"]["runs"][0]["usage_source"]["reading"], "p95 over 2h");
    let notes = doc["notes"].to_string();
    assert!(notes.contains("beyond descheduler (--usage-window)"), "{notes}");
    // The document keeps the reading and the ranking: apply plans again on them.
    assert_eq!(
        doc["options"],
        serde_json::json!({"skip_zero_request": false, "rank_by_usage": true,
                           "usage_window": {"window_seconds": 7200, "percentile": 95.0}})
    );
    let (json, _) = env.plan(&["-o", "json"]);
    let doc: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(doc["options"], serde_json::json!({"skip_zero_request": false}));
}

#[test]
fn plan_without_samples_says_so_and_plans_from_requests() {
    let env = env(false);
    let (json, _) = env.plan(&["-o", "json"]);
    let doc: Value = serde_json::from_str(&json).expect("json");
    // Requests are 50 % everywhere: nothing is under 20 %.
    assert_eq!(evicted(&doc), Vec::<String>::new());
    assert!(doc["plan"]["runs"][0].get("usage_source").is_none());
    let notes = doc["notes"].to_string();
    assert!(
        notes.contains("metricsUtilization: the store holds no node usage sample for latest sample (≤ 5m old) before 2026-11-13T02:00:00Z"),
        "{notes}"
    );
}

#[test]
fn backtest_plans_each_night_on_the_usage_recorded_then() {
    let env = env(true);
    let out = kdrift(&env.db)
        .args(["-o", "json", "rebalance", "backtest", "--schedule", "0 2 * * *", "--policy"])
        .arg(&env.policy)
        .args(["--since", "2026-11-13T00:00:00Z", "--until", "2026-11-13T03:00:00Z"])
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let nights = doc["nights"].as_array().expect("nights");
    assert_eq!(nights.len(), 1, "{doc}");
    let pods: Vec<&str> =
        nights[0]["evictions"].as_array().expect("evictions").iter().filter_map(|e| e["pod"].as_str()).collect();
    assert_eq!(pods, ["web/app-hot-0", "web/app-hot-1"], "{doc}");
}

impl Env {
    /// `rebalance COMMAND` at [`AT_TEXT`]: its stdout, with exit `code`.
    fn run(&self, command: &str, extra: &[&str], code: i32) -> String {
        let out = kdrift(&self.db)
            .args(["rebalance", command, "--at", AT_TEXT, "--policy"])
            .arg(&self.policy)
            .args(extra)
            .assert()
            .code(code);
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    }

    /// [`Self::run`]'s stderr (where `recommend` puts its table).
    fn run_stderr(&self, command: &str, extra: &[&str], code: i32) -> String {
        let out = kdrift(&self.db)
            .args(["rebalance", command, "--at", AT_TEXT, "--policy"])
            .arg(&self.policy)
            .args(extra)
            .assert()
            .code(code);
        String::from_utf8_lossy(&out.get_output().stderr).into_owned()
    }
}

#[test]
fn explain_reasons_on_the_readings_the_plan_classifies_on() {
    let env = env(true);
    let hot = env.run("explain", &["web/app-hot-0"], 0);
    assert!(hot.contains("  verdict: EVICTED by LowNodeUtilization (profile load-aware)"), "{hot}");
    assert!(
        hot.contains(
            "its node: hot overutilized: above target: cpu used 95.0 % > 70 (latest sample at 2026-11-13T02:00:00Z, \
             0s before the plan)"
        ),
        "{hot}"
    );
    assert!(
        hot.contains(
            "metricsUtilization: classified on measured usage, latest sample (≤ 5m old) at 2026-11-13T02:00:00Z (3 \
             node(s), 12 pod(s) measured)"
        ),
        "{hot}"
    );
    let cool = env.run("explain", &["web/app-cool-0"], 0);
    assert!(
        cool.contains(
            "does not look at it: its node cool is not overutilized, so not a source: every threshold met: cpu used \
             10.0 % ≤ 20 (latest sample at 2026-11-13T02:00:00Z, 0s before the plan)"
        ),
        "{cool}"
    );
    // The window's p95 (the plan's --usage-window): hot at 40 %, the run stops first.
    let windowed = env.run("explain", &["web/app-hot-0", "--usage-window", "2h"], 0);
    assert!(windowed.contains("  verdict: not evicted by any plugin of the policy"), "{windowed}");
    assert!(
        windowed.contains(
            "its node: hot appropriately utilized: above a threshold (cpu used 40.0 % > 20) but no target exceeded \
             (p95 of 240 samples over 2h to 2026-11-13T02:00:00Z)"
        ),
        "{windowed}"
    );
    let json: Value = serde_json::from_str(&env.run("explain", &["web/app-hot-0", "-o", "json"], 0)).expect("json");
    assert_eq!(json["plugins"][0]["verdict"]["kind"], "Evicts", "{json}");
    assert_eq!(
        json["plugins"][0]["node_class"],
        "hot overutilized: above target: cpu used 95.0 % > 70 (latest sample at 2026-11-13T02:00:00Z, 0s before the \
         plan)"
    );
}

#[test]
fn recommend_classifies_on_the_measured_readings() {
    let env = env(true);
    let table = env.run_stderr("recommend", &[], 1);
    assert!(table.contains("(on measured usage, latest sample (≤ 5m old); plan only: nothing is evicted)"), "{table}");
    let lines: Vec<&str> = table.lines().filter(|l| l.contains("(profile load-aware):")).collect();
    assert_eq!(
        lines,
        [
            "  cool underutilized (profile load-aware): every threshold met: cpu used 10.0 % ≤ 20 (latest sample at \
             2026-11-13T02:00:00Z, 0s before the plan)",
            "  hot overutilized (profile load-aware): above target: cpu used 95.0 % > 70 (latest sample at \
             2026-11-13T02:00:00Z, 0s before the plan)",
            "  mid appropriately utilized (profile load-aware): above a threshold (cpu used 50.0 % > 20) but no target \
             exceeded (latest sample at 2026-11-13T02:00:00Z, 0s before the plan)",
        ],
        "{table}"
    );
    let doc: Value =
        serde_json::from_str(&env.run("recommend", &["-o", "json", "--usage-window", "2h"], 0)).expect("json");
    assert_eq!(doc["measured"], "p95 over 2h");
    let hot = &doc["classified"][1][1];
    assert_eq!(
        (&hot["name"], &hot["class"], &hot["resources"][0]["percent"]),
        (&"hot".into(), &"AppropriatelyUtilized".into(), &Value::from(40.0))
    );
}

/// LowNodeUtilization on the policy's own Prometheus query (v0.36's
/// `MetricResource`, 30 → 50), on [`kdrift_tests::hot_node`]'s store.
const PROMETHEUS_POLICY: &str = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: prom
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {MetricResource: 30}
          targetThresholds: {MetricResource: 50}
          metricsUtilization:
            source: Prometheus
            prometheus: {query: 'node_utilization'}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
";

/// `node_utilization{instance=NODE}` every 30 s from T0+1h to T0+3h: the
/// upstream vector's 0.5696 / 0.4245 / 0.2038 on node-3 / node-1 /
/// node-2, node-4 at 0.4 — not what the store's samples say (node-2 at
/// 37.5 % cpu used, node-3 at 97.5 %).
fn utilization_exposition() -> String {
    let mut out = String::new();
    for k in 0..=240i64 {
        let ms = (kdrift_tests::hot_node::T0 + 3600 + 30 * k) * 1000;
        for (node, v) in [("node-1", 0.4245), ("node-2", 0.2038), ("node-3", 0.5696), ("node-4", 0.4)] {
            out.push_str(&format!("node_utilization{{instance=\"{node}\"}} {v} {ms}\n"));
        }
    }
    out
}

#[test]
fn a_prometheus_source_runs_the_policys_query_as_an_instant_query_at_the_plans_instant() {
    let (dir, db) = kdrift_tests::hot_node::temp_store(true);
    let policy = dir.path().join("prom.yaml");
    std::fs::write(&policy, PROMETHEUS_POLICY).expect("policy");
    let plan = |extra: &[&str]| -> Value {
        let out = kdrift(&db)
            .args(["-o", "json", "rebalance", "plan", "--at", "2026-11-13T02:00:00Z", "--policy"])
            .arg(&policy)
            .args(extra)
            .env_remove("KDRIFT_PROM_PASSWORD")
            .env_remove("KDRIFT_PROM_BEARER_TOKEN")
            .assert()
            .success();
        serde_json::from_slice(&out.get_output().stdout).expect("json")
    };
    let notes = |doc: &Value| -> Vec<String> {
        doc["notes"].as_array().expect("notes").iter().filter_map(Value::as_str).map(str::to_string).collect()
    };
    let classes = |doc: &Value| -> Vec<(String, String, f64)> {
        let nodes = doc["plan"]["runs"][0]["nodes"].as_array().expect("nodes").iter();
        nodes
            .map(|n| {
                let name = n["name"].as_str().unwrap_or("?").to_string();
                (
                    name,
                    n["class"].as_str().unwrap_or("?").to_string(),
                    n["resources"][0]["percent"].as_f64().unwrap_or(-1.0),
                )
            })
            .collect()
    };
    // Without a URL: the stand-in (cpu used / allocatable), said in one line.
    let stand_in = plan(&[]);
    assert!(
        notes(&stand_in).contains(
            &"metricsUtilization source Prometheus: no --prometheus-url, so the policy's query (node_utilization) is \
              not run: kdrift stands in for it with each node's measured cpu used / allocatable from the store's \
              samples (give --prometheus-url to run it)"
                .to_string()
        ),
        "{:?}",
        notes(&stand_in)
    );
    assert_eq!(
        classes(&stand_in),
        [
            ("node-1".into(), "AppropriatelyUtilized".into(), 40.0),
            ("node-2".into(), "AppropriatelyUtilized".into(), 37.0),
            ("node-3".into(), "Overutilized".into(), 97.0),
            ("node-4".into(), "AppropriatelyUtilized".into(), 45.0),
        ]
    );
    assert_eq!(stand_in["evictions"].as_array().map(Vec::len), Some(0));

    let Some(vm) = RealVmetrics::victoria_metrics_or_skip("a_prometheus_source_runs_the_policys_query") else {
        return;
    };
    vm.post("/api/v1/import/prometheus", utilization_exposition());
    vm.flush();
    let doc = plan(&["--prometheus-url", &vm.url()]);
    assert!(
        notes(&doc).contains(&format!(
            "metricsUtilization source Prometheus: ran the policy's query (node_utilization) on {} as an instant \
             query at 2026-11-13T02:00:00Z (descheduler runs it at each cycle): 4 sample(s)",
            vm.url()
        )),
        "{:?}",
        notes(&doc)
    );
    assert!(
        notes(&doc).iter().any(|n| n.starts_with("metricsUtilization: the store's usage samples (latest sample")),
        "{:?}",
        notes(&doc)
    );
    // v0.36: int64(value × 100), node-2 under 30, node-3 over 50; one pod
    // leaves node-3 (pod usage unknown to the Prometheus source).
    assert_eq!(
        classes(&doc),
        [
            ("node-1".into(), "AppropriatelyUtilized".into(), 42.0),
            ("node-2".into(), "Underutilized".into(), 20.0),
            ("node-3".into(), "Overutilized".into(), 56.0),
            ("node-4".into(), "AppropriatelyUtilized".into(), 40.0),
        ]
    );
    let run = &doc["plan"]["runs"][0];
    assert_eq!(
        run["nodes"][2]["why"],
        "above target: MetricResource used 56.0 % > 50 (query value 0.5696 at 2026-11-13T02:00:00Z)"
    );
    assert_eq!(run["usage_source"]["reading"], "the query's instant result at 2026-11-13T02:00:00Z");
    assert!(run["usage_source"].get("stand_in").is_none(), "{run}");
    let evicted: Vec<&str> =
        doc["evictions"].as_array().expect("evictions").iter().filter_map(|e| e["node"].as_str()).collect();
    assert_eq!(evicted, ["node-3"], "{doc}");
    // An unreachable server is an error naming the URL and the query.
    let out = kdrift(&db)
        .args([
            "rebalance",
            "plan",
            "--at",
            "2026-11-13T02:00:00Z",
            "--prometheus-url",
            "http://127.0.0.1:9",
            "--policy",
        ])
        .arg(&policy)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(
            "metricsUtilization: the policy's query (node_utilization) at 2026-11-13T02:00:00Z on \
             http://127.0.0.1:9/api/v1/query"
        ),
        "{stderr}"
    );
}

/// New-user trial: on the demo, the default policy (requests, no
/// metricsUtilization) sends batch/queue-worker-…-qqrw9 from node-1 to
/// node-4, measured 93.2 % cpu used in the same store; the landing warnings
/// said nothing. Each such replacement is now a warning naming pod, node and
/// used %, in the table and `-o json`.
#[test]
fn a_plan_on_requests_warns_of_replacements_landing_on_a_node_hot_on_measured_usage() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("demo.duckdb");
    Command::cargo_bin("kdrift").expect("binary").arg("demo").arg("--save").arg(&db).assert().success();
    let out = kdrift(&db).args(["-o", "json", "rebalance", "plan", "--simulate"]).assert().success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let hot: Vec<(String, String, String)> = doc["simulation"]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| w["kind"] == "HotNode")
        .map(|w| {
            (
                w["pod"].as_str().unwrap_or_default().to_string(),
                w["node"].as_str().unwrap_or_default().to_string(),
                w["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let message = |pod: &str| {
        format!(
            "{pod} lands on node-4, already above the hot limit on measured usage before the plan (cpu used 93.2 %) \
             and hotter after (predicted cpu used 94.7 % > 80 %, kdrift's hot limit for a plan on requests) \
             (planned on requests; the store's usage samples say so)"
        )
    };
    assert_eq!(
        hot,
        [
            (
                "batch/queue-worker-99lqv4ktcz-qqrw9".to_string(),
                "node-4".to_string(),
                message("batch/queue-worker-99lqv4ktcz-qqrw9")
            ),
            ("web/api-c6w2dh2mbv-wfmwc".to_string(), "node-4".to_string(), message("web/api-c6w2dh2mbv-wfmwc")),
        ]
    );
    let node4 = doc["simulation"]["predicted_usage"]["nodes"].as_array().expect("nodes")[3].clone();
    assert_eq!(
        (node4["node"].as_str(), node4["resources"][0]["percent_before"].as_f64()),
        (Some("node-4"), Some(93.2))
    );
    let out = kdrift(&db).args(["rebalance", "plan", "--simulate"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let warnings = &text[text.find("\nLanding warnings\n").expect("warnings")..];
    assert!(
        warnings.contains(&format!("\n  - warning: {}\n", message("batch/queue-worker-99lqv4ktcz-qqrw9"))),
        "{text}"
    );
}

/// A fake Prometheus answering every instant query (`/api/v1/query`) with
/// `body`'s current bytes, and the body to change between commands.
fn fake_prometheus(first: Vec<u8>) -> (kdrift_tests::hostile_kube::HostileKube, Arc<Mutex<Vec<u8>>>) {
    use kdrift_tests::hostile_kube::{Answer, HostileKube};
    let body = Arc::new(Mutex::new(first));
    let answer = body.clone();
    let server = HostileKube::start(move |target| {
        target
            .starts_with("/api/v1/query")
            .then(|| Answer::Body(answer.lock().unwrap_or_else(|p| p.into_inner()).clone()))
    });
    (server, body)
}

/// An instant query's answer: a vector of `instance` = node, value as given.
fn vector(samples: &[(&str, &str)]) -> Vec<u8> {
    let result: Vec<Value> = samples
        .iter()
        .map(|(node, v)| serde_json::json!({"metric": {"instance": node}, "value": [1_794_535_200, v]}))
        .collect();
    serde_json::json!({"status": "success", "data": {"resultType": "vector", "result": result}})
        .to_string()
        .into_bytes()
}

/// Break-it 37 F1: an answer LowNodeUtilization cannot use (NaN, +Inf, a
/// negative value, a matrix, a node without a sample) fails the plugin as
/// v0.36 does, but `recommend` said "converged (nothing moves)" and exit 0,
/// `explain` exit 0, and the plan's header lost its thresholds. Now
/// recommend has no policy (exit 2, stdout empty) and says why with the
/// query, the value and the node; explain exits 2 after its explanation;
/// the plan keeps its thresholds, as percent of the metric.
#[test]
fn a_prometheus_answer_low_node_utilization_cannot_use_fails_recommend_and_explain_naming_query_value_and_node() {
    let (dir, db) = kdrift_tests::hot_node::temp_store(true);
    let policy = dir.path().join("prom.yaml");
    std::fs::write(&policy, PROMETHEUS_POLICY).expect("policy");
    let (prom, body) = fake_prometheus(Vec::new());
    let run = |command: &[&str], code: i32| -> (String, String) {
        let out = kdrift(&db)
            .args(["rebalance"])
            .args(command)
            .args(["--at", "2026-11-13T02:00:00Z", "--prometheus-url", prom.url(), "--policy"])
            .arg(&policy)
            .assert()
            .code(code);
        let o = out.get_output();
        (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let ok = [("node-1", "0.4245"), ("node-2", "0.2038"), ("node-3", "0.5696"), ("node-4", "0.4")];
    let with = |node: &str, value: &str| -> Vec<u8> {
        let samples: Vec<(&str, &str)> = ok.iter().map(|(n, v)| (*n, if *n == node { value } else { *v })).collect();
        vector(&samples)
    };
    let outside = |node: &str, value: &str| {
        format!(
            "error getting node usage: The collected metrics sample for \"{node}\" has value {value} outside of <0; \
             1> interval"
        )
    };
    let matrix = br#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#.to_vec();
    let cases = [
        (with("node-1", "NaN"), outside("node-1", "NaN")),
        (with("node-2", "+Inf"), outside("node-2", "+Inf")),
        (with("node-3", "-1e-320"), outside("node-3", "-1e-320")),
        (
            vector(&[("node-1", "0.4"), ("node-2", "0.2"), ("node-3", "0.5"), ("node-9", "0.4")]),
            "error getting node usage: unable to find metric entry for node-4".to_string(),
        ),
        (
            matrix,
            "error getting node usage: expected query results to be of type \"vector\", got \"matrix\" instead".into(),
        ),
    ];
    // Break-it 37 F5: a sample with `instance` twice or too long was taken
    // silently (the last one) or read as having none.
    let answer = |metric: &str| -> Vec<u8> {
        format!(
            r#"{{"status":"success","data":{{"resultType":"vector","result":[
                {{"metric":{{"instance":"node-2"}},"value":[1794535200,"0.2"]}},
                {{"metric":{metric},"value":[1794535200,"0.99"]}}]}}}}"#
        )
        .into_bytes()
    };
    let long = "n".repeat(1100);
    let cases = cases.into_iter().chain([
        (
            answer(r#"{"instance":"elsewhere","instance":"node-1"}"#),
            "error getting node usage: sample {instance=\"node-1\"}: label \"instance\" twice".to_string(),
        ),
        (
            answer(&format!(r#"{{"instance":"{long}"}}"#)),
            "error getting node usage: sample {}: label \"instance\" is 1100 bytes long, more than the 1024 kdrift \
             reads (a Kubernetes name is at most 253)"
                .to_string(),
        ),
    ]);
    let from = format!("(from the policy's query (node_utilization) on {} at 2026-11-13T02:00:00Z)", prom.url());
    for (answer, error) in cases {
        *body.lock().expect("body") = answer;
        let (stdout, stderr) = run(&["recommend"], 2);
        assert_eq!(stdout, "", "{error}");
        assert_eq!(
            stderr,
            format!(
                "kdrift: error: no policy to recommend: LowNodeUtilization failed in profile prom, so descheduler \
                 v0.36 evicts nothing in it whatever its thresholds: {error} {from}\n"
            )
        );
        let (stdout, stderr) = run(&["explain", "batch/crunch-5f6b8-m3n8v"], 2);
        assert!(
            stdout.contains(
                "  verdict: UNKNOWN: LowNodeUtilization (profile prom) failed before looking at any pod (see below)\n"
            ),
            "{stdout}"
        );
        assert!(stdout.contains(&format!("FAILED before looking at any pod (evicts nothing): {error}\n")), "{stdout}");
        assert!(
            stdout.contains(
                "  underutilized when every one of MetricResource 30 % or less; overutilized when any is above \
                 MetricResource 50 %\n"
            ),
            "{stdout}"
        );
        assert_eq!(
            stderr,
            format!(
                "kdrift: error: LowNodeUtilization failed in profile prom: {error} {from}; what it would do with \
                 batch/crunch-5f6b8-m3n8v is unknown\n"
            )
        );
        let (stdout, _) = run(&["plan"], 0);
        assert!(
            stdout.contains(
                "Profile prom — LowNodeUtilization: underutilized when every one of MetricResource 30 % or less; \
                 overutilized when any is above MetricResource 50 %\n"
            ),
            "{stdout}"
        );
        assert!(stdout.contains(&format!("\n  {error}\n  FAILED with the error above: nothing")), "{stdout}");
    }
}

/// Break-it 37 F7: rebalance's refusal of credentials in the URL named
/// `ingest prometheus`' flags (`--url`, `--user`, `--password-file`).
#[test]
fn credentials_in_the_prometheus_url_are_refused_naming_rebalances_flags() {
    let (dir, db) = kdrift_tests::hot_node::temp_store(true);
    let policy = dir.path().join("prom.yaml");
    std::fs::write(&policy, PROMETHEUS_POLICY).expect("policy");
    let out = kdrift(&db)
        .args(["rebalance", "plan", "--at", "2026-11-13T02:00:00Z", "--policy"])
        .arg(&policy)
        .args(["--prometheus-url", "http://kuser:Pw9zQ7secretX@127.0.0.1:1/"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(
            "--prometheus-url http://127.0.0.1:1/: credentials in the URL would show in `ps` and shell history; set \
             KDRIFT_PROM_USER and KDRIFT_PROM_PASSWORD (or --prometheus-user and --prometheus-password-file) instead"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("Pw9zQ7secretX"), "{stderr}");
}

/// Break-it 37 F1d: a value of 1e-320 printed as 320 digits in the node's
/// reason; it is printed as Go's `%v` prints it (descheduler's own form).
#[test]
fn a_tiny_query_value_is_printed_in_exponent_form() {
    let (dir, db) = kdrift_tests::hot_node::temp_store(true);
    let policy = dir.path().join("prom.yaml");
    std::fs::write(&policy, PROMETHEUS_POLICY).expect("policy");
    let (prom, _body) =
        fake_prometheus(vector(&[("node-1", "0.4245"), ("node-2", "1e-320"), ("node-3", "0.5696"), ("node-4", "0.4")]));
    let out = kdrift(&db)
        .args(["-o", "json", "rebalance", "plan", "--at", "2026-11-13T02:00:00Z", "--prometheus-url", prom.url()])
        .arg("--policy")
        .arg(&policy)
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).expect("json");
    let whys: Vec<&str> =
        doc["plan"]["runs"][0]["nodes"].as_array().expect("nodes").iter().filter_map(|n| n["why"].as_str()).collect();
    assert_eq!(
        whys,
        [
            "above a threshold (MetricResource used 42.0 % > 30) but no target exceeded (query value 0.4245 at \
             2026-11-13T02:00:00Z)",
            "every threshold met: MetricResource used 0.0 % ≤ 30 (query value 1e-320 at 2026-11-13T02:00:00Z)",
            "above target: MetricResource used 56.0 % > 50 (query value 0.5696 at 2026-11-13T02:00:00Z)",
            "above a threshold (MetricResource used 40.0 % > 30) but no target exceeded (query value 0.4 at \
             2026-11-13T02:00:00Z)",
        ]
    );
}

/// Break-it 37 F1c: a server that accepts and never answers held the plan
/// for reqwest's fixed 120 s; `--request-timeout` now bounds the query,
/// and the error names the URL and the time waited.
#[test]
fn a_silent_prometheus_fails_the_plan_at_the_request_timeout_naming_the_url() {
    use kdrift_tests::hostile_kube::{Answer, HostileKube};
    let (dir, db) = kdrift_tests::hot_node::temp_store(false);
    let policy = dir.path().join("prom.yaml");
    std::fs::write(&policy, PROMETHEUS_POLICY).expect("policy");
    let silent = HostileKube::start(|_| Some(Answer::Silent));
    let out = kdrift(&db)
        .args(["rebalance", "plan", "--at", "2026-11-13T02:00:00Z", "--prometheus-url", silent.url()])
        .args(["--request-timeout", "1s", "--policy"])
        .arg(&policy)
        .assert()
        .code(2);
    let o = out.get_output();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "kdrift: error: metricsUtilization: the policy's query (node_utilization) at 2026-11-13T02:00:00Z on \
             {}/api/v1/query: /api/v1/query did not answer whole within 1s, the most kdrift waits for one request \
             (raise --request-timeout)\n",
            silent.url()
        )
    );
}

/// Break-it 37 F1b: `apply` and `run` planned again on the store's
/// stand-in, not the policy's Prometheus query. The fake cluster's requests
/// put node-1 at 90 % cpu; the query says node-2 is the busy one (0.9), so
/// v0.36 evicts node-2's one pod, apps/a — and so do `run --prometheus-url`
/// and `apply` of a plan made with it (on the server the plan recorded).
#[test]
fn apply_and_run_plan_again_on_the_policys_prometheus_query() {
    use kdrift_tests::fake_kube::FakeKube;
    let (prom, _body) = fake_prometheus(vector(&[("node-1", "0.1"), ("node-2", "0.9"), ("node-3", "0.2")]));
    let evictions = |kube: &FakeKube| -> Vec<String> {
        kube.evictions().into_iter().filter(|e| e.code == 201).map(|e| format!("{}/{}", e.namespace, e.name)).collect()
    };
    let cluster = || {
        let kube = FakeKube::start();
        kdrift_tests::busy_cluster::load(&kube);
        let dir = tempfile::tempdir().expect("tmp");
        let kubeconfig = kube.write_kubeconfig(dir.path());
        let policy = dir.path().join("prom.yaml");
        std::fs::write(&policy, PROMETHEUS_POLICY).expect("policy");
        (kube, dir, kubeconfig, policy)
    };
    let queries = || prom.requests().iter().filter(|r| r.starts_with("/api/v1/query")).count();

    // plan --live with the query, then apply: the plan's server again.
    let (kube, dir, kubeconfig, policy) = cluster();
    let db = dir.path().join("none.duckdb");
    let plan_file = dir.path().join("plan.json");
    kdrift(&db)
        .args(["rebalance", "plan", "--prometheus-url", prom.url(), "--kubeconfig"])
        .arg(&kubeconfig)
        .arg("--policy")
        .arg(&policy)
        .arg("--out")
        .arg(&plan_file)
        .assert()
        .success();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&plan_file).expect("plan")).expect("json");
    assert_eq!(evicted(&doc), ["apps/a"]);
    let before = queries();
    let out = kdrift(&db)
        .args(["rebalance", "apply", "--ready-timeout", "0", "--no-store", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg(&plan_file)
        .assert()
        .success();
    assert_eq!(queries(), before + 1, "apply ran the query again");
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(&format!(
            "kdrift: metricsUtilization source Prometheus: ran the policy's query (node_utilization) on {}",
            prom.url()
        )),
        "{stderr}"
    );
    assert_eq!(evictions(&kube), ["apps/a"]);
    assert_eq!(doc["options"]["prometheus_url"], prom.url());

    // Break-it 37 F4: credentials go only to a server the command line
    // names, never to one a (passed around) plan file names.
    let before = queries();
    let out = kdrift(&db)
        .env("KDRIFT_PROM_USER", "kuser")
        .env("KDRIFT_PROM_PASSWORD", "Zq8wPlm3Rt5yXv7bN2")
        .args(["rebalance", "apply", "--ready-timeout", "0", "--no-store", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg(&plan_file)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the plan ran the policy's query on {0}: credentials (--prometheus-* or KDRIFT_PROM_*) are sent only \
             to a server given on the command line; add --prometheus-url {0} to run it there again",
            prom.url()
        )),
        "{stderr}"
    );
    assert_eq!(queries(), before, "no request reached the plan's server");
    assert!(!stderr.contains("Zq8wPlm3Rt5yXv7bN2"), "{stderr}");

    // run --yes --prometheus-url: the same eviction.
    // Its --out records the server, as plan --out does: without the
    // credential in its query string (break-it 37 F1).
    let (kube, dir, kubeconfig, policy) = cluster();
    let executed = dir.path().join("executed.json");
    kdrift(&dir.path().join("none.duckdb"))
        .args(["rebalance", "run", "--yes", "--ready-timeout", "0", "--no-store", "--prometheus-url"])
        .arg(format!("{}/?authKey=QkEy77hh66gg55ff#f", prom.url()))
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--policy")
        .arg(&policy)
        .arg("--out")
        .arg(&executed)
        .assert()
        .success();
    assert_eq!(evictions(&kube), ["apps/a"]);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&executed).expect("executed plan")).expect("json");
    assert_eq!(doc["options"]["prometheus_url"], prom.url());
}

/// New-user trial 43: a Prometheus-source plan at an instant with
/// sub-seconds printed `2026-11-28T05:30:01.020Z` in its header and every
/// WHY cell (docs/cli.md: whole seconds), and its "Requested before → after"
/// table had a METRICRESOURCE column of `-` on every row.
#[test]
fn a_prometheus_source_plan_prints_whole_seconds_and_no_empty_metric_column() {
    let (dir, db) = kdrift_tests::hot_node::temp_store(true);
    let policy = dir.path().join("prom.yaml");
    std::fs::write(&policy, PROMETHEUS_POLICY).expect("policy");
    let (prom, _body) =
        fake_prometheus(vector(&[("node-1", "0.4245"), ("node-2", "0.2038"), ("node-3", "0.5696"), ("node-4", "0.4")]));
    let run = |json: bool| -> String {
        let mut c = kdrift(&db);
        if json {
            c.args(["-o", "json"]);
        }
        let out = c
            .args(["rebalance", "plan", "--simulate", "--at", "2026-11-13T02:00:00.250Z", "--prometheus-url"])
            .arg(prom.url())
            .arg("--policy")
            .arg(&policy)
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let text = run(false);
    assert!(!text.contains(".25Z") && !text.contains(".250Z"), "{text}");
    assert!(text.contains("the query's instant result at 2026-11-13T02:00:00Z"), "{text}");
    assert!(text.contains("(query value 0.5696 at 2026-11-13T02:00:00Z)"), "{text}");
    let table: Vec<&str> = text.lines().skip_while(|l| *l != "Requested before → after").skip(1).take(5).collect();
    assert!(table[0].trim_start().starts_with("NODE"), "{table:#?}");
    assert!(!table[0].contains("METRICRESOURCE"), "{table:#?}");
    let doc: Value = serde_json::from_str(&run(true)).expect("json");
    let run0 = &doc["plan"]["runs"][0];
    assert_eq!(run0["usage_source"]["reading"], "the query's instant result at 2026-11-13T02:00:00Z");
    assert_eq!(
        run0["nodes"][2]["why"],
        "above target: MetricResource used 56.0 % > 50 (query value 0.5696 at 2026-11-13T02:00:00Z)"
    );
}
