//! `kdrift rebalance plan` with a `metricsUtilization` policy on a store
//! holding usage samples (issue 37): nodes and pods ingested from `kubectl
//! get -o json` dumps, two hours of 30 s samples
//! (`kdrift_tests::usage_spike`). The plan reads the latest sample as
//! descheduler does and names it; `--usage-window 2h` reads the p95 and
//! ignores the 5-minute spike.

use assert_cmd::Command;
use kdrift_store::{Store, UsageSource};
use kdrift_tests::usage_spike::{nodes_list, pods_list, samples, AT_TEXT, POLICY};
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
    let (json, _) = env.plan(&["-o", "json", "--simulate"]);
    let doc: Value = serde_json::from_str(&json).expect("json");
    let hot = &doc["simulation"]["predicted_usage"]["nodes"][1];
    assert_eq!((hot["node"].as_str(), &hot["resources"][0]["percent_after"]), (Some("hot"), &Value::from(95.0)));

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
    let table = env.run("recommend", &[], 1);
    assert!(table.contains("(on measured usage, latest sample (≤ 5m old); plan only: nothing is evicted)"), "{table}");
    let lines: Vec<&str> = table.lines().filter(|l| l.contains("(profile load-aware):")).collect();
    assert_eq!(
        lines,
        [
            "  cool underutilized (profile load-aware): every threshold met: cpu used 10.0 % ≤ 20 (latest sample at \
             2026-11-13T02:00:00Z, 0s before the plan)",
            "  hot OVERUTILIZED (profile load-aware): above target: cpu used 95.0 % > 70 (latest sample at \
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
