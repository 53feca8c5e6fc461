//! Executor tests on an in-memory cluster ([`super::fake`]): the planned
//! evictions and nothing else, 429/500/timeouts, drift and `--replan`, the
//! live re-check, replacements against the prediction, the records.
//!
//! The cluster: three 4000m nodes; node-1 runs eight 450m ReplicaSet pods
//! (90 %), node-2 and node-3 one 400m pod each (10 %). With thresholds cpu
//! 40 → target 50 descheduler evicts four pods from node-1 (3600m → 1800m).

use std::time::Duration;

use serde_json::{json, Value};

use super::fake::{Answer, Fake};
use super::*;
use crate::document::PlanSource;
use crate::planner::PlanOptions;

const POLICY: &str = r#"
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: test
    pluginConfig:
      - name: DefaultEvictor
        args:
          noEvictionPolicy: Mandatory
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 40}
          targetThresholds: {cpu: 50}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
"#;

fn policy() -> Policy {
    Policy::from_yaml(POLICY).expect("valid policy")
}

fn node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
        "status": {"allocatable": {"cpu": "4000m", "memory": "8Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn pod(name: &str, node: &str, cpu_m: i64) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"namespace": "apps", "name": name, "uid": format!("uid-{name}"), "resourceVersion": "7",
            "labels": {"app": name},
            "creationTimestamp": "2026-11-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("rs-{name}"),
                "uid": format!("rs-uid-{name}"), "controller": true}]},
        "spec": {"nodeName": node, "containers": [{"name": "c", "resources": {"requests": {"cpu": format!("{cpu_m}m")}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
}

fn cluster() -> Fake {
    let mut pods: Vec<Value> = (0..8).map(|i| pod(&format!("w{i}"), "node-1", 450)).collect();
    pods.push(pod("a", "node-2", 400));
    pods.push(pod("b", "node-3", 400));
    Fake::new(vec![node("node-1"), node("node-2"), node("node-3")], pods)
}

fn fast() -> ExecuteOptions {
    ExecuteOptions {
        concurrency: 1,
        ready_timeout: Duration::from_secs(5),
        poll_interval: Duration::from_millis(5),
        request_timeout: Duration::from_millis(200),
        retries: 2,
        backoff: Duration::from_millis(1),
        ..ExecuteOptions::default()
    }
}

/// `rebalance plan --live`: the document the CLI prints.
async fn live_plan(fake: &Fake) -> PlanDocument {
    let p = policy();
    let live = read_snapshot(fake, &p, Utc::now()).await.expect("read");
    let source = PlanSource { kind: "live".into(), detail: "fake".into() };
    plan_document(&live.snapshot, &p, "test.yaml", PlanOptions::default(), &source, live.notes).expect("doc")
}

fn planned_keys(doc: &PlanDocument) -> Vec<String> {
    doc.evictions.iter().map(|e| e.pod.key()).collect()
}

fn reasons(records: &[Value]) -> Vec<String> {
    records.iter().filter_map(|r| r.get("reason").and_then(Value::as_str).map(str::to_string)).collect()
}

#[tokio::test]
async fn apply_performs_exactly_the_planned_evictions_and_records_them() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    assert_eq!(doc.evictions.len(), 4, "{:?}", planned_keys(&doc));
    assert!(doc.evictions.iter().all(|e| e.node == "node-1"));
    let mut records = Vec::new();
    let (report, executed) = apply_plan(&fake, &doc, &fast(), &mut records).await.expect("apply");
    assert_eq!(executed.evictions, doc.evictions, "no drift: the file's plan is executed");
    assert_eq!(report.outcome, RunOutcome::Succeeded);
    assert!(!report.replanned);
    assert_eq!(fake.lock().evicted, planned_keys(&doc), "the eviction log is the plan, in order");
    assert_eq!(report.count("Evicted"), 4);
    // Each replacement is Ready on node-2 (where the fake lands them); compared with the prediction.
    for (r, e) in report.results.iter().zip(&doc.evictions) {
        match &r.outcome {
            EvictionOutcome::Evicted {
                attempts: 1,
                replacement: Replacement::Ready { pod, node, as_predicted, .. },
            } => {
                assert_eq!(pod, &format!("{}-r", e.pod.key()));
                assert_eq!(node, "node-2");
                assert_eq!(*as_predicted, e.predicted_node.as_ref().map(|p| p == "node-2"));
            }
            other => panic!("{}: {other:?}", r.pod),
        }
    }
    // One attempt event and one replacement event per eviction, then the run.
    let r = reasons(&records);
    assert_eq!(r.iter().filter(|x| *x == "Evicted").count(), 4);
    assert_eq!(r.iter().filter(|x| *x == "ReplacementReady").count(), 4);
    let evicted = records.iter().find(|x| x["reason"] == "Evicted").expect("event");
    assert_eq!(evicted["involvedObject"]["kind"], "Pod");
    assert_eq!(evicted["reportingComponent"], "kdrift");
    assert_eq!(evicted["type"], "Normal");
    let run = records.last().expect("run record");
    assert_eq!((run["kind"].as_str(), run["status"]["outcome"].as_str()), (Some("RebalanceRun"), Some("Succeeded")));
    assert_eq!(run["status"]["evicted"], 4);
}

#[tokio::test]
async fn concurrency_is_bounded_and_the_evictions_are_the_same() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    let options = ExecuteOptions { concurrency: 3, ..fast() };
    let (report, _) = apply_plan(&fake, &doc, &options, &mut Vec::new()).await.expect("apply");
    let s = fake.lock();
    let mut log = s.evicted.clone();
    log.sort();
    let mut planned = planned_keys(&doc);
    planned.sort();
    assert_eq!(log, planned);
    assert!(s.max_in_flight <= 3, "{} in flight", s.max_in_flight);
    assert_eq!(report.count("Evicted"), 4);
    assert_eq!(report.results.iter().map(|r| r.order).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
}

#[tokio::test]
async fn a_pdb_refusal_is_skipped_and_the_others_continue() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    let second = doc.evictions[1].pod.key();
    fake.script(&second, &[Answer::Status(429, "Cannot evict pod as it would violate the pod's disruption budget.")]);
    let mut records = Vec::new();
    let (report, _) = apply_plan(&fake, &doc, &fast(), &mut records).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Succeeded);
    assert!(
        matches!(&report.results[1].outcome, EvictionOutcome::Blocked { message } if message.contains("disruption budget"))
    );
    assert_eq!(report.count("Evicted"), 3);
    assert_eq!(fake.lock().calls.iter().filter(|c| **c == second).count(), 1, "a PDB refusal is not retried");
    let blocked = records.iter().find(|x| x["reason"] == "EvictionBlocked").expect("event");
    assert_eq!(blocked["involvedObject"]["name"], doc.evictions[1].pod.name.as_str());
    assert_eq!(blocked["type"], "Warning");
}

#[tokio::test]
async fn server_errors_are_retried_then_the_run_stops() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    let second = doc.evictions[1].pod.key();
    fake.script(&second, &[Answer::Status(500, "etcdserver: leader changed"); 3]);
    let mut records = Vec::new();
    let (report, _) = apply_plan(&fake, &doc, &fast(), &mut records).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Stopped);
    assert!(
        matches!(&report.results[1].outcome, EvictionOutcome::Failed { attempts: 3, error } if error.contains("HTTP 500"))
    );
    assert!(matches!(&report.results[2].outcome, EvictionOutcome::NotAttempted { .. }));
    assert!(matches!(&report.results[3].outcome, EvictionOutcome::NotAttempted { .. }));
    assert_eq!(fake.lock().evicted, vec![doc.evictions[0].pod.key()], "nothing after the failure");
    assert_eq!(fake.lock().calls.iter().filter(|c| **c == second).count(), 3, "1 call + 2 retries");
    assert!(report.stop_reason.as_deref().is_some_and(|r| r.contains(&second)), "{:?}", report.stop_reason);
    // One event per attempt made: 1 Evicted, 1 EvictionFailed; none for those not attempted.
    let r = reasons(&records);
    assert_eq!(r.iter().filter(|x| *x == "Evicted").count(), 1);
    assert_eq!(r.iter().filter(|x| *x == "EvictionFailed").count(), 1);
    assert_eq!(records.last().expect("run")["status"]["outcome"], "Stopped");
}

#[tokio::test]
async fn a_transient_error_then_success_and_a_timeout_are_retried() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    fake.script(&doc.evictions[0].pod.key(), &[Answer::Status(503, "unavailable")]);
    fake.script(&doc.evictions[2].pod.key(), &[Answer::Hang]);
    let (report, _) = apply_plan(&fake, &doc, &fast(), &mut Vec::new()).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Succeeded);
    assert!(matches!(report.results[0].outcome, EvictionOutcome::Evicted { attempts: 2, .. }));
    assert!(matches!(report.results[2].outcome, EvictionOutcome::Evicted { attempts: 2, .. }));
    assert_eq!(fake.lock().evicted, planned_keys(&doc));
    assert_eq!(fake.lock().in_flight, 0, "the timed-out call was dropped");
}

#[tokio::test]
async fn drift_is_refused_with_the_difference_named_and_replan_executes_the_new_plan() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    let gone = doc.evictions[0].pod.key();
    fake.edit_pod(&gone, |_| false);
    let moved = doc.evictions[1].pod.key();
    fake.edit_pod(&moved, |p| {
        p["spec"]["nodeName"] = json!("node-3");
        true
    });
    let mut records = Vec::new();
    let (report, _) = apply_plan(&fake, &doc, &fast(), &mut records).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Refused);
    assert!(fake.lock().calls.is_empty(), "nothing evicted");
    assert!(report.differences.contains(&format!("pod {gone} (eviction 1) is gone")), "{:?}", report.differences);
    assert!(
        report.differences.contains(&format!("pod {moved} (eviction 2) moved from node-1 to node-3")),
        "{:?}",
        report.differences
    );
    assert_eq!(records.len(), 1, "only the run record");
    assert_eq!(records[0]["status"]["outcome"], "Refused");

    let options = ExecuteOptions { replan: true, ..fast() };
    let (report, executed) = apply_plan(&fake, &doc, &options, &mut Vec::new()).await.expect("apply");
    assert!(report.replanned);
    assert_eq!(report.outcome, RunOutcome::Succeeded);
    assert!(!report.differences.is_empty());
    // node-1 now has six pods (2700m, 67.5 %): the new plan evicts two of them, not the gone or moved pod.
    assert_eq!(fake.lock().evicted, planned_keys(&executed));
    assert_eq!(executed.evictions.len(), 2);
    assert!(!planned_keys(&executed).contains(&gone) && !planned_keys(&executed).contains(&moved));
}

#[tokio::test]
async fn a_status_update_does_not_refuse_the_plan() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    fake.edit_pod(&doc.evictions[0].pod.key(), |p| {
        p["metadata"]["resourceVersion"] = json!("8");
        true
    });
    let (report, _) = apply_plan(&fake, &doc, &fast(), &mut Vec::new()).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Succeeded);
    assert!(report.differences.is_empty());
    assert!(report.notes.iter().any(|n| n.contains("1 planned pod(s) changed")), "{:?}", report.notes);
}

#[tokio::test]
async fn the_live_pod_is_checked_again_before_its_eviction() {
    // Executed without the drift check, as `run` does between planning and evicting.
    let fake = cluster();
    let doc = live_plan(&fake).await;
    let p = policy();
    let live = read_snapshot(&fake, &p, Utc::now()).await.expect("read").snapshot;
    fake.edit_pod(&doc.evictions[0].pod.key(), |p| {
        p["metadata"]["annotations"] = json!({"descheduler.alpha.kubernetes.io/prefer-no-eviction": "true"});
        true
    });
    fake.edit_pod(&doc.evictions[1].pod.key(), |p| {
        p["metadata"]["uid"] = json!("another");
        true
    });
    fake.edit_pod(&doc.evictions[2].pod.key(), |p| {
        p["metadata"]["deletionTimestamp"] = json!("2026-11-28T02:00:00Z");
        true
    });
    fake.edit_pod(&doc.evictions[3].pod.key(), |_| false);
    let mut records = Vec::new();
    let report = execute_plan(&fake, &doc, &p, &live, &fast(), &mut records).await.expect("execute");
    let causes: Vec<Option<SkipCause>> = report
        .results
        .iter()
        .map(|r| match r.outcome {
            EvictionOutcome::Skipped { cause, .. } => Some(cause),
            _ => None,
        })
        .collect();
    assert_eq!(
        causes,
        vec![
            Some(SkipCause::MandatoryNoEviction),
            Some(SkipCause::Replaced),
            Some(SkipCause::Terminating),
            Some(SkipCause::Gone)
        ]
    );
    assert!(fake.lock().calls.is_empty());
    assert_eq!(reasons(&records).iter().filter(|x| *x == "EvictionSkipped").count(), 4);
}

#[tokio::test]
async fn replacements_that_do_not_become_ready_are_reported() {
    let fake = cluster();
    fake.lock().ready = false;
    let doc = live_plan(&fake).await;
    let options = ExecuteOptions { ready_timeout: Duration::from_millis(30), ..fast() };
    let mut records = Vec::new();
    let (report, _) = apply_plan(&fake, &doc, &options, &mut records).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Succeeded, "a slow replacement does not stop the run");
    let EvictionOutcome::Evicted { replacement: Replacement::NotReady { pod, node, .. }, .. } =
        &report.results[0].outcome
    else {
        panic!("{:?}", report.results[0].outcome)
    };
    assert_eq!(pod.as_deref(), Some(format!("{}-r", doc.evictions[0].pod.key()).as_str()));
    assert_eq!(node.as_deref(), Some("node-2"));
    assert_eq!(reasons(&records).iter().filter(|x| *x == "ReplacementNotReady").count(), 4);
}

#[tokio::test]
async fn a_list_that_fails_is_an_error_not_an_empty_cluster() {
    let fake = cluster();
    fake.lock().list_fails = Some(kinds::POD_DISRUPTION_BUDGET);
    let err = read_snapshot(&fake, &policy(), Utc::now()).await.expect_err("fails");
    assert_eq!(err.to_string(), "reading poddisruptionbudgets.policy from the cluster");
}

#[tokio::test]
async fn same_cluster_same_plan_as_printed() {
    // Dry-run parity: what `plan --live` prints is what `apply` executes.
    let fake = cluster();
    let printed = live_plan(&fake).await;
    let again = live_plan(&fake).await;
    assert_eq!(printed.evictions, again.evictions);
    assert_eq!(printed.snapshot.nodes, again.snapshot.nodes);
    let (_, executed) = apply_plan(&fake, &printed, &fast(), &mut Vec::new()).await.expect("apply");
    assert_eq!(executed.evictions, printed.evictions);
}

/// Answers every request on 127.0.0.1 with `{"active": true}` on `/busy`,
/// `{"active": false}` elsewhere; returns the base URL.
async fn probe_server() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]).to_string();
                let body =
                    if request.starts_with("GET /busy") { r#"{"active": true}"# } else { r#"{"active": false}"# };
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(answer.as_bytes()).await;
            });
        }
    });
    base
}

#[tokio::test]
async fn probes_skip_pods_in_use_and_pods_they_cannot_ask_about() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    let base = probe_server().await;
    let names: Vec<String> = doc.evictions.iter().map(|e| e.pod.name.clone()).collect();
    let probes = vec![
        Probe::parse(&format!("app={}={base}/busy", names[0])).expect("probe"),
        Probe::parse(&format!("app={}={base}/idle", names[1])).expect("probe"),
        // Nothing listens on port 1: cannot tell, treated as in use.
        Probe::parse(&format!("app={}=http://127.0.0.1:1/sessions", names[2])).expect("probe"),
    ];
    let (report, _) =
        apply_plan(&fake, &doc, &ExecuteOptions { probes, ..fast() }, &mut Vec::new()).await.expect("apply");
    assert!(
        matches!(&report.results[0].outcome, EvictionOutcome::Skipped { cause: SkipCause::InUse, message } if message.contains("active: true")),
        "{:?}",
        report.results[0]
    );
    assert!(matches!(report.results[1].outcome, EvictionOutcome::Evicted { .. }), "{:?}", report.results[1]);
    assert!(
        matches!(&report.results[2].outcome, EvictionOutcome::Skipped { cause: SkipCause::InUse, message } if message.contains("treated as in use")),
        "{:?}",
        report.results[2]
    );
    assert!(matches!(report.results[3].outcome, EvictionOutcome::Evicted { .. }), "no probe for it");
    assert_eq!(fake.lock().evicted, vec![doc.evictions[1].pod.key(), doc.evictions[3].pod.key()]);
}

/// A plan made on measured usage (`metricsUtilization`) is checked on the
/// same readings: with them apply finds no drift and evicts the pod the
/// readings chose; without them its plan from requests differs and apply
/// refuses.
#[tokio::test]
async fn a_plan_on_measured_usage_is_checked_on_measured_usage() {
    let fake = cluster();
    let p = Policy::from_yaml(&POLICY.replace(
        "targetThresholds: {cpu: 50}",
        "targetThresholds: {cpu: 50}\n          metricsUtilization: {source: KubernetesMetrics}",
    ))
    .expect("valid policy");
    let reading =
        |cpu| crate::Measured { cpu_millis: Some(cpu), memory_bytes: Some(1 << 30), sampled_at_us: 0, samples: 1 };
    let mut usage = crate::MeasuredUsage {
        reading: Some(crate::Reading::Latest { max_age_us: 300_000_000 }),
        ..Default::default()
    };
    for (n, cpu) in [("node-1", 1000), ("node-2", 3800), ("node-3", 400)] {
        usage.nodes.insert(n.into(), reading(cpu));
    }
    usage.pods.insert(("apps".into(), "a".into()), (reading(3800), Some("node-2".into())));
    let mut live = read_snapshot(&fake, &p, Utc::now()).await.expect("read");
    live.snapshot.measured = Some(usage.clone());
    let source = PlanSource { kind: "live".into(), detail: "fake".into() };
    let doc = plan_document(&live.snapshot, &p, "test.yaml", PlanOptions::default(), &source, live.notes).expect("doc");
    assert_eq!(planned_keys(&doc), ["apps/a"], "node-2 is the hot one by usage (95 %), node-1 only on paper");

    let (report, _) = apply_plan(&fake, &doc, &fast(), &mut Vec::new()).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Refused, "from requests the plan is w0…w3: {:?}", report.differences);
    let options = ExecuteOptions { measured: Some(usage), ..fast() };
    let (report, _) = apply_plan(&fake, &doc, &options, &mut Vec::new()).await.expect("apply");
    assert_eq!(report.outcome, RunOutcome::Succeeded, "{:?}", report.differences);
    assert_eq!(fake.lock().evicted, ["apps/a"]);
}

/// Records every progress call as a line (issue 38 item 3).
#[derive(Default)]
struct Calls(std::sync::Mutex<Vec<String>>);

impl ExecutionProgress for Calls {
    fn planned(&self, total: usize) {
        self.0.lock().expect("lock").push(format!("planned {total}"));
    }
    fn evicted(&self, step: Step<'_>, waits: bool) {
        self.0
            .lock()
            .expect("lock")
            .push(format!("[{}/{}] evicted {} waits={waits}", step.index, step.total, step.pod));
    }
    fn settled(&self, step: Step<'_>, outcome: &EvictionOutcome) {
        self.0.lock().expect("lock").push(format!("[{}/{}] {} {}", step.index, step.total, step.pod, outcome.kind()));
    }
}

#[tokio::test]
async fn progress_is_told_of_each_eviction_as_it_happens_in_plan_order() {
    let fake = cluster();
    let doc = live_plan(&fake).await;
    let keys = planned_keys(&doc);
    fake.script(&keys[1], &[Answer::Status(429, "Cannot evict pod as it would violate the pod's disruption budget.")]);
    let calls = std::sync::Arc::new(Calls::default());
    let options = ExecuteOptions { progress: ProgressHandle(calls.clone()), ready_timeout: Duration::ZERO, ..fast() };
    apply_plan(&fake, &doc, &options, &mut Vec::new()).await.expect("apply");
    let want = vec![
        "planned 4".to_string(),
        format!("[1/4] evicted {} waits=false", keys[0]),
        format!("[1/4] {} Evicted", keys[0]),
        format!("[2/4] {} Blocked", keys[1]),
        format!("[3/4] evicted {} waits=false", keys[2]),
        format!("[3/4] {} Evicted", keys[2]),
        format!("[4/4] evicted {} waits=false", keys[3]),
        format!("[4/4] {} Evicted", keys[3]),
    ];
    assert_eq!(*calls.0.lock().expect("lock"), want);
}
