//! The rebalance executor against the fake API server, through the same
//! kube client the CLI uses: the planned evictions and nothing else (by the
//! fake's eviction log), PodDisruptionBudget refusals, server errors and
//! timeouts, drift and `--replan`, replacements against the prediction, and
//! one kdrift Event per eviction attempt in the store.

use kdrift_store::run_query;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::Utc;
use kdrift_ingest::StoreSink;
use kdrift_rebalance::ClusterOptions;
use kdrift_rebalance::{apply_plan, plan_document};
use kdrift_rebalance::{
    read_snapshot, EvictionOutcome, ExecuteOptions, ExecutionReport, KubeClient, Replacement, RunOutcome,
};
use kdrift_rebalance::{PlanDocument, PlanSource};
use kdrift_rebalance::{PlanOptions, Policy};

use kdrift_tests::busy_cluster::{self, BUSY_POLICY, WHOLE_POLICY};
use kdrift_tests::fake_kube::{EvictionFault, FakeKube, PDB_MESSAGE};
use kdrift_tests::temp_store;
use serde_json::{json, Value};

struct Setup {
    kube: FakeKube,
    _dir: tempfile::TempDir,
    rt: tokio::runtime::Runtime,
    client: KubeClient,
}

fn setup() -> Setup {
    let kube = FakeKube::start();
    busy_cluster::load(&kube);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let options = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
    let client = rt.block_on(KubeClient::connect(&options)).expect("connect");
    Setup { kube, _dir: dir, rt, client }
}

fn policy() -> Policy {
    Policy::from_yaml(BUSY_POLICY).expect("policy")
}

fn options() -> ExecuteOptions {
    ExecuteOptions {
        ready_timeout: Duration::ZERO,
        request_timeout: Duration::from_millis(500),
        retries: 2,
        backoff: Duration::from_millis(10),
        poll_interval: Duration::from_millis(20),
        ..ExecuteOptions::default()
    }
}

/// What `rebalance plan --live -o json` writes.
fn plan(s: &Setup) -> PlanDocument {
    let p = policy();
    let live = s.rt.block_on(read_snapshot(&s.client, &p, Utc::now())).expect("read");
    let source = PlanSource { kind: "live".into(), detail: "fake".into() };
    let doc =
        plan_document(&live.snapshot, &p, "busy.yaml", PlanOptions::default(), &source, live.notes).expect("plan");
    // Through the file format and back.
    PlanDocument::from_json(&serde_json::to_string(&doc).expect("json")).expect("read back")
}

fn apply(s: &Setup, doc: &PlanDocument, options: &ExecuteOptions) -> (ExecutionReport, PlanDocument, Vec<Value>) {
    let mut records = Vec::new();
    let (report, executed) = s.rt.block_on(apply_plan(&s.client, doc, options, &mut records)).expect("apply");
    (report, executed, records)
}

fn keys(doc: &PlanDocument) -> Vec<String> {
    doc.evictions.iter().map(|e| e.pod.key()).collect()
}

/// Pods the fake accepted evictions for, in order.
fn evicted(kube: &FakeKube) -> Vec<String> {
    kube.evictions().into_iter().filter(|e| e.code == 201).map(|e| format!("{}/{}", e.namespace, e.name)).collect()
}

#[test]
fn apply_performs_exactly_the_planned_evictions() {
    let s = setup();
    let doc = plan(&s);
    assert_eq!(doc.evictions.len(), 4);
    let (report, executed, _) = apply(&s, &doc, &options());
    assert_eq!(report.outcome, RunOutcome::Succeeded, "{:?}", report.differences);
    assert_eq!(executed.evictions, doc.evictions);
    assert_eq!(evicted(&s.kube), keys(&doc));
    assert_eq!(s.kube.evictions().len(), 4, "no other eviction request");
    // Every Eviction names the pod's uid as a precondition.
    for (e, planned) in s.kube.evictions().iter().zip(&doc.evictions) {
        assert_eq!(e.body["deleteOptions"]["preconditions"]["uid"].as_str(), planned.pod.uid.as_deref());
    }
}

#[test]
fn with_concurrency_the_same_pods_are_evicted() {
    let s = setup();
    let doc = plan(&s);
    let (report, _, _) = apply(&s, &doc, &ExecuteOptions { concurrency: 3, ..options() });
    let mut log = evicted(&s.kube);
    log.sort();
    let mut planned = keys(&doc);
    planned.sort();
    assert_eq!(log, planned);
    assert_eq!(report.count("Evicted"), 4);
}

#[test]
fn a_429_is_skipped_and_reported_and_the_others_continue() {
    let s = setup();
    let doc = plan(&s);
    let blocked = &doc.evictions[1].pod;
    s.kube.fail_evictions(EvictionFault::TooManyRequests, Some((&blocked.namespace, &blocked.name)), None);
    let (report, _, records) = apply(&s, &doc, &options());
    assert_eq!(report.outcome, RunOutcome::Succeeded, "{:?}", report.results[1]);
    assert!(matches!(&report.results[1].outcome, EvictionOutcome::Blocked { message } if message == PDB_MESSAGE));
    let mut expected = keys(&doc);
    expected.remove(1);
    assert_eq!(evicted(&s.kube), expected);
    let event = records.iter().find(|r| r["reason"] == "EvictionBlocked").expect("event");
    assert_eq!(event["involvedObject"]["name"], blocked.name.as_str());
}

#[test]
fn a_real_pod_disruption_budget_blocks_its_pod() {
    let s = setup();
    // w0 is the first pod descheduler would evict from node-1. With its PDB
    // allowing no disruption the plan says the API will refuse it, and
    // evicts four others (a refusal frees nothing); apply tries w0 as
    // descheduler would and is blocked (429).
    s.kube
        .create(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"namespace": "apps", "name": "keep-one"},
            "spec": {"selector": {"matchLabels": {"app": "w0"}}, "minAvailable": 1},
            "status": {"disruptionsAllowed": 0, "desiredHealthy": 1, "currentHealthy": 1}}))
        .expect("pdb");
    let doc = plan(&s);
    assert_eq!(doc.evictions[0].pod.key(), "apps/w0");
    assert_eq!(
        doc.evictions[0].predicted_outcome.as_deref(),
        Some("descheduler will try it and the API will refuse it (429, PDB apps/keep-one)")
    );
    assert_eq!(doc.evictions.len(), 5);
    let (report, _, _) = apply(&s, &doc, &options());
    assert!(matches!(&report.results[0].outcome, EvictionOutcome::Blocked { .. }), "{:?}", report.results[0]);
    assert_eq!(report.count("Evicted"), 4);
}

#[test]
fn a_500_is_retried_then_the_run_stops() {
    let s = setup();
    let doc = plan(&s);
    let failing = &doc.evictions[1].pod;
    s.kube.fail_evictions(EvictionFault::ServerError, Some((&failing.namespace, &failing.name)), None);
    let (report, _, records) = apply(&s, &doc, &options());
    assert_eq!(report.outcome, RunOutcome::Stopped);
    assert!(matches!(report.results[1].outcome, EvictionOutcome::Failed { attempts: 3, .. }));
    assert!(matches!(report.results[2].outcome, EvictionOutcome::NotAttempted { .. }));
    assert!(matches!(report.results[3].outcome, EvictionOutcome::NotAttempted { .. }));
    let calls: Vec<u16> = s.kube.evictions().iter().filter(|e| e.name == failing.name).map(|e| e.code).collect();
    assert_eq!(calls, vec![500, 500, 500], "one call and two retries");
    assert_eq!(evicted(&s.kube), vec![doc.evictions[0].pod.key()], "no eviction after the failure");
    assert_eq!(records.iter().filter(|r| r["reason"] == "EvictionFailed").count(), 1);
    assert_eq!(records.last().expect("run")["status"]["outcome"], "Stopped");
}

#[test]
fn a_500_once_and_a_timeout_once_are_retried() {
    let s = setup();
    let doc = plan(&s);
    let (a, b) = (&doc.evictions[0].pod, &doc.evictions[2].pod);
    s.kube.fail_evictions(EvictionFault::ServerError, Some((&a.namespace, &a.name)), Some(1));
    s.kube.fail_evictions(EvictionFault::Delay(Duration::from_secs(2)), Some((&b.namespace, &b.name)), Some(1));
    let (report, _, _) = apply(&s, &doc, &options());
    assert_eq!(report.outcome, RunOutcome::Succeeded, "{:?}", report.stop_reason);
    assert!(matches!(report.results[0].outcome, EvictionOutcome::Evicted { attempts: 2, .. }));
    assert!(matches!(report.results[2].outcome, EvictionOutcome::Evicted { attempts: 2, .. }));
    assert_eq!(report.count("Evicted"), 4);
}

#[test]
fn drift_is_refused_naming_the_pod_and_replan_executes_the_new_plan() {
    let s = setup();
    let doc = plan(&s);
    let gone = doc.evictions[0].pod.clone();
    s.kube.delete("v1", "Pod", &gone.namespace, &gone.name).expect("delete");
    let (report, _, _) = apply(&s, &doc, &options());
    assert_eq!(report.outcome, RunOutcome::Refused);
    assert!(
        report.differences.contains(&format!("pod {} (eviction 1) is gone", gone.key())),
        "{:?}",
        report.differences
    );
    assert!(s.kube.evictions().is_empty(), "nothing evicted");

    let (report, executed, _) = apply(&s, &doc, &ExecuteOptions { replan: true, ..options() });
    assert!(report.replanned);
    assert_eq!(report.outcome, RunOutcome::Succeeded);
    assert_eq!(evicted(&s.kube), keys(&executed), "the new plan is what was executed");
    assert!(!keys(&executed).contains(&gone.key()));
    assert_eq!(executed.evictions.len(), 3, "seven pods (3150m): three evictions bring node-1 to 45 %");
}

#[test]
fn replacements_are_awaited_and_compared_with_the_prediction() {
    let s = setup();
    let doc = plan(&s);
    let originals = s.kube.objects("v1", "Pod");
    let stop = AtomicBool::new(false);
    let (report, _, records) = std::thread::scope(|scope| {
        scope.spawn(|| busy_cluster::replace_evicted(&s.kube, &originals, "node-3", &stop));
        let out = apply(&s, &doc, &ExecuteOptions { ready_timeout: Duration::from_secs(20), ..options() });
        stop.store(true, Ordering::SeqCst);
        out
    });
    for (r, e) in report.results.iter().zip(&doc.evictions) {
        let EvictionOutcome::Evicted {
            replacement: Replacement::Ready { pod, node, predicted_node, as_predicted, .. },
            ..
        } = &r.outcome
        else {
            panic!("{r:?}")
        };
        assert_eq!(pod, &format!("{}-r", e.pod.key()));
        assert_eq!(node, "node-3");
        assert_eq!(predicted_node, &e.predicted_node);
        assert_eq!(*as_predicted, e.predicted_node.as_ref().map(|p| p == "node-3"));
    }
    assert_eq!(records.iter().filter(|r| r["reason"] == "ReplacementReady").count(), 4);
}

#[test]
fn the_store_receives_one_kdrift_event_per_eviction_attempt() {
    let s = setup();
    let doc = plan(&s);
    let blocked = &doc.evictions[3].pod;
    s.kube.fail_evictions(EvictionFault::TooManyRequests, Some((&blocked.namespace, &blocked.name)), None);
    let (_dir, store) = temp_store();
    let mut sink = StoreSink::new(&store, "rebalance apply plan.json");
    let (report, _) = s.rt.block_on(apply_plan(&s.client, &doc, &options(), &mut sink)).expect("apply");
    assert_eq!(report.count("Evicted"), 3);
    let at = (Utc::now() + chrono::Duration::minutes(1)).to_rfc3339();
    let events = run_query(&store, "objects_at", &[("kind".into(), "Event".into()), ("at_us".into(), at.clone())])
        .expect("events");
    let object = events.columns.iter().position(|c| c == "object").expect("object column");
    let mut reasons: Vec<(String, String)> = events
        .rows
        .iter()
        .filter_map(|r| match &r[object] {
            Value::String(o) => serde_json::from_str::<Value>(o).ok(),
            other => Some(other.clone()),
        })
        .filter(|e| e["reportingComponent"] == "kdrift")
        .map(|e| {
            (
                e["involvedObject"]["name"].as_str().unwrap_or("").to_string(),
                e["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    reasons.sort();
    let mut expected: Vec<(String, String)> = doc
        .evictions
        .iter()
        .map(|e| (e.pod.name.clone(), if e.pod.name == blocked.name { "EvictionBlocked" } else { "Evicted" }.into()))
        .collect();
    expected.sort();
    assert_eq!(reasons, expected);
    let runs = run_query(&store, "rebalance_latest_runs", &[]).expect("runs");
    assert_eq!(runs.rows.len(), 1);
    assert_eq!(runs.rows[0][0], "Succeeded");
    assert_eq!(runs.rows[0][runs.columns.iter().position(|c| c == "evicted").expect("col")], 3);
}

// ---- The whole policy (issue 36 item 7): plugins at both extension points.

fn whole_setup() -> Setup {
    let kube = FakeKube::start();
    busy_cluster::load_whole_policy(&kube);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = kube.write_kubeconfig(dir.path());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let options = ClusterOptions { kubeconfig: Some(kubeconfig), context: None };
    let client = rt.block_on(KubeClient::connect(&options)).expect("connect");
    Setup { kube, _dir: dir, rt, client }
}

/// `rebalance plan --live` with [`WHOLE_POLICY`], through the file format.
fn whole_plan(s: &Setup) -> PlanDocument {
    let p = Policy::from_yaml(WHOLE_POLICY).expect("policy");
    let live = s.rt.block_on(read_snapshot(&s.client, &p, Utc::now())).expect("read");
    let source = PlanSource { kind: "live".into(), detail: "fake".into() };
    let doc =
        plan_document(&live.snapshot, &p, "whole.yaml", PlanOptions::default(), &source, live.notes).expect("plan");
    PlanDocument::from_json(&serde_json::to_string(&doc).expect("json")).expect("read back")
}

/// `(pod, plugin)` per planned eviction, in plan order.
fn by_plugin(doc: &PlanDocument) -> Vec<(String, String)> {
    doc.evictions.iter().map(|e| (e.pod.key(), e.plugin.clone())).collect()
}

/// The whole-policy plan: Deschedule plugins' evictions first, in enabled order.
const WHOLE_ORDER: [(&str, &str); 7] = [
    ("apps/a", "RemovePodsViolatingNodeTaints"),
    ("apps/b", "RemovePodsHavingTooManyRestarts"),
    ("apps/d1", "RemoveDuplicates"),
    ("apps/w0", "LowNodeUtilization"),
    ("apps/w1", "LowNodeUtilization"),
    ("apps/w2", "LowNodeUtilization"),
    ("apps/w3", "LowNodeUtilization"),
];

fn owned(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(p, g)| (p.to_string(), g.to_string())).collect()
}

/// kdrift's Events in the store: `(pod, reason, kdrift.io/plugin, message)`, by pod.
fn stored_events(store: &kdrift_store::Store) -> Vec<(String, String, String, String)> {
    let at = (Utc::now() + chrono::Duration::minutes(1)).to_rfc3339();
    let events =
        run_query(store, "objects_at", &[("kind".into(), "Event".into()), ("at_us".into(), at)]).expect("events");
    let object = events.columns.iter().position(|c| c == "object").expect("object column");
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let mut out: Vec<(String, String, String, String)> = events
        .rows
        .iter()
        .filter_map(|r| match &r[object] {
            Value::String(o) => serde_json::from_str::<Value>(o).ok(),
            other => Some(other.clone()),
        })
        .filter(|e| e["reportingComponent"] == "kdrift")
        .map(|e| {
            (
                format!("{}/{}", text(&e["involvedObject"]["namespace"]), text(&e["involvedObject"]["name"])),
                text(&e["reason"]),
                text(&e["metadata"]["annotations"]["kdrift.io/plugin"]),
                text(&e["message"]),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn whole_policy_apply_evicts_in_cycle_order_and_each_event_carries_its_plugin() {
    let s = whole_setup();
    let doc = whole_plan(&s);
    assert_eq!(by_plugin(&doc), owned(&WHOLE_ORDER), "Deschedule plugins' evictions first");
    // A PodDisruptionBudget refuses the restarts plugin's eviction: reported, the run goes on.
    s.kube.fail_evictions(EvictionFault::TooManyRequests, Some(("apps", "b")), None);
    let (_dir, store) = temp_store();
    let mut sink = StoreSink::new(&store, "rebalance apply plan.json");
    let (report, executed) = s.rt.block_on(apply_plan(&s.client, &doc, &options(), &mut sink)).expect("apply");
    assert_eq!(report.outcome, RunOutcome::Succeeded, "{:?}", report.differences);
    assert!(report.differences.is_empty(), "the unchanged whole-policy plan holds: {:?}", report.differences);
    assert!(!report.replanned);
    assert_eq!(executed.evictions, doc.evictions);
    let kinds: Vec<(String, &str)> = report.results.iter().map(|r| (r.pod.clone(), r.outcome.kind())).collect();
    let mut expected: Vec<(String, &str)> = WHOLE_ORDER.iter().map(|(p, _)| (p.to_string(), "Evicted")).collect();
    expected[1].1 = "Blocked";
    assert_eq!(kinds, expected);
    assert!(matches!(&report.results[1].outcome, EvictionOutcome::Blocked { message } if message == PDB_MESSAGE));
    let results: Vec<(String, String)> = report.results.iter().map(|r| (r.pod.clone(), r.plugin.clone())).collect();
    assert_eq!(results, owned(&WHOLE_ORDER), "each result names its plugin");
    assert!(report.results.iter().all(|r| r.profile == "whole"));
    // The fake saw the attempts in the plan's order, b refused (429) and nothing else.
    let attempts: Vec<(String, u16)> =
        s.kube.evictions().into_iter().map(|e| (format!("{}/{}", e.namespace, e.name), e.code)).collect();
    let mut order: Vec<(String, u16)> = WHOLE_ORDER.iter().map(|(p, _)| (p.to_string(), 201)).collect();
    order[1].1 = 429;
    assert_eq!(attempts, order);

    let events = stored_events(&store);
    let summary: Vec<(String, String, String)> =
        events.iter().map(|(p, r, g, _)| (p.clone(), r.clone(), g.clone())).collect();
    let mut want: Vec<(String, String, String)> = WHOLE_ORDER
        .iter()
        .map(|(p, g)| (p.to_string(), if *p == "apps/b" { "EvictionBlocked" } else { "Evicted" }.into(), g.to_string()))
        .collect();
    want.sort();
    assert_eq!(summary, want);
    let taints = events.iter().find(|e| e.0 == "apps/a").expect("a");
    assert!(
        taints.3.contains("triggered by whole/RemovePodsViolatingNodeTaints): RemovePodsViolatingNodeTaints: node node-2's taint dedicated=gpu:NoSchedule is not tolerated"),
        "{}",
        taints.3
    );
    let lnu = events.iter().find(|e| e.0 == "apps/w0").expect("w0");
    assert!(
        lnu.3
            .contains("triggered by whole/LowNodeUtilization): node-1 is overutilized (above target: cpu 90.0 % > 50)"),
        "{}",
        lnu.3
    );
    let runs = run_query(&store, "rebalance_latest_runs", &[]).expect("runs");
    assert_eq!(runs.rows[0][runs.columns.iter().position(|c| c == "evicted").expect("col")], 6);
}

#[test]
fn whole_policy_plan_drifted_by_a_removed_taint_is_refused_and_replan_drops_that_eviction() {
    let s = whole_setup();
    let doc = whole_plan(&s);
    assert_eq!(by_plugin(&doc), owned(&WHOLE_ORDER));
    busy_cluster::set_gpu_taint(&s.kube, false);
    let (report, _, _) = apply(&s, &doc, &options());
    assert_eq!(report.outcome, RunOutcome::Refused);
    assert_eq!(report.differences, vec!["planning now gives other evictions (no longer planned: apps/a)".to_string()]);
    assert!(s.kube.evictions().is_empty(), "nothing evicted");

    let (report, executed, records) = apply(&s, &doc, &ExecuteOptions { replan: true, ..options() });
    assert!(report.replanned);
    assert_eq!(report.outcome, RunOutcome::Succeeded);
    assert_eq!(by_plugin(&executed), owned(&WHOLE_ORDER[1..]));
    assert_eq!(evicted(&s.kube), keys(&executed), "the new plan, in its order");
    let plugins: Vec<(String, String)> = records
        .iter()
        .filter(|r| r["reason"] == "Evicted")
        .map(|r| {
            (
                format!("apps/{}", r["involvedObject"]["name"].as_str().unwrap_or("")),
                r["metadata"]["annotations"]["kdrift.io/plugin"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(plugins, owned(&WHOLE_ORDER[1..]));
    // The RebalanceRun record's report names each eviction's plugin too.
    let run = records.last().expect("run");
    let results: Vec<(String, String)> = run["status"]["report"]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["pod"].as_str().unwrap_or("").to_string(), r["plugin"].as_str().unwrap_or("").to_string()))
        .collect();
    assert_eq!(results, owned(&WHOLE_ORDER[1..]));
}
