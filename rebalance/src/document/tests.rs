//! Plan document tests: what it records, reading it back, refusing other
//! documents, and the drift rules on hand-made changes.

use super::drift::{drift, Difference};
use super::*;
use crate::planner::tests::{node, now, pod, MI};
use crate::planner::{plan, PlanOptions, Snapshot};
use crate::simulate::simulate_plan;

const POLICY: &str = r#"
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: p
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 40}
          targetThresholds: {cpu: 50}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
"#;

/// node-1: eight 450m pods (90 %); node-2, node-3: one 400m pod (10 %).
fn snapshot() -> Snapshot {
    let nodes = ["n1", "n2", "n3"].iter().map(|n| node(n, 4000, 8192 * MI, 110)).collect();
    let mut pods: Vec<_> = (0..8).map(|i| pod("apps", &format!("w{i}"), "n1", 450, 0)).collect();
    pods.push(pod("apps", "a", "n2", 400, 0));
    pods.push(pod("apps", "b", "n3", 400, 0));
    for (i, p) in pods.iter_mut().enumerate() {
        p.resource_version = Some(format!("{}", 100 + i));
    }
    Snapshot::new(nodes, pods, now())
}

fn document(s: &Snapshot, simulate: bool) -> (PlanDocument, Policy) {
    let policy = Policy::from_yaml(POLICY).expect("policy");
    let planned = plan(s, &policy, &PlanOptions::default());
    let sim = simulate.then(|| simulate_plan(s, &planned));
    let source = PlanSource { kind: "store".into(), detail: "test.duckdb".into() };
    let inputs = PlanInputs {
        snapshot: s,
        policy: &policy,
        policy_source: "p.yaml",
        options: PlanOptions::default(),
        source: &source,
    };
    (PlanDocument::build(inputs, &planned, sim.as_ref(), None, vec!["a note".into()]).expect("doc"), policy)
}

#[test]
fn the_document_describes_the_plan_and_reads_back_equal() {
    let s = snapshot();
    let (doc, policy) = document(&s, true);
    assert_eq!((doc.format.as_str(), doc.format_version), (PLAN_FORMAT, PLAN_FORMAT_VERSION));
    assert_eq!(doc.evictions.len(), 4);
    let e = &doc.evictions[0];
    assert_eq!((e.order, e.node.as_str(), e.profile.as_str()), (1, "n1", "p"));
    assert_eq!(e.pod.uid.as_deref(), Some("uid-apps-w0"));
    assert_eq!(e.pod.resource_version.as_deref(), Some("100"));
    assert_eq!(e.reason, "n1 is overutilized (above target: cpu 90.0 % > 50)");
    assert!(e.rule.contains("priority"), "{}", e.rule);
    assert_eq!(e.owner.as_ref().map(|o| o.kind.as_str()), Some("ReplicaSet"));
    assert!(e.predicted_node.is_some(), "simulated: a predicted node");
    // Node identity: classes and percentages per profile.
    let n1 = doc.snapshot.nodes.iter().find(|n| n.name == "n1").expect("n1");
    assert_eq!(n1.classes[0].class, NodeClass::Overutilized);
    assert_eq!(n1.classes[0].percent.get("cpu"), Some(&90.0));
    // Proportional to the evictions: the snapshot names its nodes, not its
    // 10 pods (each evicted pod's identity is in its eviction).
    let written = serde_json::to_value(&doc).expect("json");
    assert_eq!(
        written["snapshot"].as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["at".to_string(), "nodes".to_string()])
    );
    // Skipped candidates with their reason.
    assert_eq!(doc.skipped.len(), 4);
    assert!(doc.skipped.iter().all(|k| k.reason == "NotReached"), "{:?}", doc.skipped);
    // The file round-trips, policy included.
    let text = serde_json::to_string_pretty(&doc).expect("json");
    let back = PlanDocument::from_json(&text).expect("reads back");
    // (The verbatim planner output holds floats that JSON text does not keep to the last bit.)
    assert_eq!(
        (&back.evictions, &back.skipped, &back.snapshot, &back.options, &back.source, &back.policy),
        (&doc.evictions, &doc.skipped, &doc.snapshot, &doc.options, &doc.source, &doc.policy)
    );
    assert_eq!(back.policy().expect("policy"), policy);
    assert_eq!(doc.notes, vec!["a note".to_string()]);
}

#[test]
fn other_documents_are_refused_with_what_they_are() {
    let err = PlanDocument::from_json(r#"{"kind": "PodList"}"#).expect_err("not a plan");
    assert_eq!(
        err.to_string(),
        "not a kdrift plan document: it has no `format` field, expected \"kdrift.rebalance-plan\" (`kdrift \
         rebalance plan --out FILE` writes one)"
    );
    let err = PlanDocument::from_json(r#"{"format": "x"}"#).expect_err("not a plan");
    assert!(err.to_string().starts_with("not a kdrift plan document: format is \"x\", expected"), "{err}");
    // Break-it 35 F21: a format value is the file's words: masked, then cut to 40 characters.
    let format = "ghp_abcdefghijklmnopqrstuvwxyz0123456789 password=hunter2secretvalue";
    let err = PlanDocument::from_json(&serde_json::json!({"format": format}).to_string()).expect_err("not a plan");
    assert!(
        err.to_string().starts_with("not a kdrift plan document: format is \"*** password=***\", expected"),
        "{err}"
    );
    let long = "kdrift.rebalance-plan-".repeat(10);
    let err = PlanDocument::from_json(&serde_json::json!({"format": long}).to_string()).expect_err("not a plan");
    assert!(
        err.to_string().starts_with(
            "not a kdrift plan document: format is \"kdrift.rebalance-plan-kdrift.rebalance-p…\", expected"
        ),
        "{err}"
    );
    // serde's text once, not again as the error's source (`{:#}` repeated it).
    let err = PlanDocument::from_json(r#"{"format": "#).expect_err("cut");
    assert_eq!(err.to_string(), "not a kdrift plan document: EOF while parsing a value at line 1 column 11");
    assert!(std::error::Error::source(&err).is_none());
    let err =
        PlanDocument::from_json(r#"{"format": "kdrift.rebalance-plan", "format_version": 9}"#).expect_err("newer");
    assert!(err.to_string().starts_with("plan format version 9 is newer"), "{err}");
    let err = PlanDocument::from_json(r#"{"format": "kdrift.rebalance-plan", "format_version": 1}"#).expect_err("bare");
    assert!(err.to_string().contains("missing field"), "{err}");
    assert!(PlanDocument::from_json("not json").is_err());
}

#[test]
fn an_unchanged_cluster_has_not_drifted() {
    let s = snapshot();
    let (doc, policy) = document(&s, false);
    let d = drift(&doc, &s, &plan(&s, &policy, &PlanOptions::default()));
    assert!(d.is_empty(), "{:?}", d.differences);
    assert!(d.notes.is_empty());
}

#[test]
fn drift_names_moved_replaced_and_changed_pods_and_nodes() {
    let s = snapshot();
    let (doc, policy) = document(&s, false);
    let mut live = s.clone();
    live.pods[0].node_name = Some("n3".into());
    live.pods[1].uid = Some("new-uid".into());
    live.pods[2].resource_version = Some("999".into());
    live.nodes.push(node("n4", 4000, 8192 * MI, 110));
    let d = drift(&doc, &live, &plan(&live, &policy, &PlanOptions::default()));
    let texts: Vec<String> = d.differences.iter().map(ToString::to_string).collect();
    assert!(texts.contains(&"pod apps/w0 (eviction 1) moved from n1 to n3".to_string()), "{texts:?}");
    assert!(
        texts.contains(&"pod apps/w1 (eviction 2) was recreated: uid uid-apps-w1 in the plan, new-uid now".to_string()),
        "{texts:?}"
    );
    assert!(texts.contains(&"node n4 is new".to_string()), "{texts:?}");
    // The plan changed, so the changed resourceVersion is listed as a likely cause.
    assert!(d.differences.iter().any(|x| matches!(x, Difference::EvictionsChanged { .. })), "{texts:?}");
    assert!(
        texts.contains(&"pod apps/w2 (eviction 3) changed: resourceVersion 102 in the plan, 999 now".to_string()),
        "{texts:?}"
    );
}

#[test]
fn a_node_whose_class_changed_is_named() {
    let s = snapshot();
    let (doc, policy) = document(&s, false);
    let mut live = s.clone();
    // n2 fills up to 60 %: no longer underutilized.
    live.pods.push(pod("apps", "big", "n2", 2000, 0));
    let d = drift(&doc, &live, &plan(&live, &policy, &PlanOptions::default()));
    let texts: Vec<String> = d.differences.iter().map(ToString::to_string).collect();
    assert!(texts.contains(&"node n2 was underutilized in profile p, now overutilized".to_string()), "{texts:?}");
}

#[test]
fn a_resource_version_change_alone_is_a_note() {
    let s = snapshot();
    let (doc, policy) = document(&s, false);
    let mut live = s.clone();
    live.pods[0].resource_version = Some("555".into());
    let d = drift(&doc, &live, &plan(&live, &policy, &PlanOptions::default()));
    assert!(d.is_empty(), "{:?}", d.differences);
    assert_eq!(
        d.notes,
        vec!["1 planned pod(s) changed since the plan (another resourceVersion) without changing the plan".to_string()]
    );
}

#[test]
fn a_plan_written_with_every_pod_of_the_snapshot_still_reads() {
    // Plans written before kdrift issue 39 listed every bound pod in
    // `snapshot.pods`: the field is read and ignored.
    let s = snapshot();
    let (doc, _) = document(&s, false);
    let mut old = serde_json::to_value(&doc).expect("json");
    old["snapshot"]["pods"] = serde_json::json!([{"namespace": "apps", "name": "w0", "uid": "uid-apps-w0",
        "resource_version": "100", "node": "n1"}]);
    let back = PlanDocument::from_json(&old.to_string()).expect("reads an older plan");
    assert_eq!((&back.snapshot, &back.evictions), (&doc.snapshot, &doc.evictions));
}
