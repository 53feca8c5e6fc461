//! Landing simulation tests: a cluster shaped like kdrift's demo (five
//! 2000m nodes, node-1 at 1942m, node-5 at 580m and without AVX2), ties,
//! Pending replacements, ping-pong, rounds, suggestions, determinism.

use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use super::*;
use crate::model::node::NodeInfo;
use crate::model::pod::PodInfo;
use crate::planner::{plan, NodeClass, Plan, PlanOptions, Snapshot};
use crate::policy::Policy;

const AVX2: &str = "feature.node.kubernetes.io/cpu-cpuid.AVX2";
const MI: i64 = 1024 * 1024;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 2, 0, 0).single().expect("valid time")
}

/// A Ready node read from JSON: `cpu_m` millicores, `mem_mi` MiB, 110 pods;
/// the demo's labels (`fast`: AVX2, GPU, cpu-model 154; otherwise model 156).
fn node(name: &str, cpu_m: i64, mem_mi: i64, fast: bool) -> NodeInfo {
    let mut labels = json!({
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "feature.node.kubernetes.io/cpu-model.vendor_id": "Intel",
        "feature.node.kubernetes.io/cpu-model.id": if fast { "154" } else { "156" },
    });
    if fast {
        labels[AVX2] = json!("true");
        labels["intel.feature.node.kubernetes.io/gpu"] = json!("true");
    }
    NodeInfo::from_json(&json!({
        "metadata": {"name": name, "labels": labels},
        "status": {
            "allocatable": {"cpu": format!("{cpu_m}m"), "memory": format!("{mem_mi}Mi"), "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}]
        }
    }))
    .expect("valid node")
}

/// A Running pod on `node` read from JSON, owned by `(kind, name)`; requests
/// `(millicores, MiB)` (both 0: none at all, BestEffort). `extra` is merged into `spec`.
fn pod_of(owner: (&str, &str), ns: &str, name: &str, node: &str, requests: (i64, i64), extra: Value) -> PodInfo {
    let ((owner_kind, owner), (cpu_m, mem_mi)) = (owner, requests);
    let resources = if cpu_m == 0 && mem_mi == 0 {
        json!({})
    } else {
        json!({"requests": {"cpu": format!("{cpu_m}m"), "memory": format!("{mem_mi}Mi")}})
    };
    let mut spec = json!({"nodeName": node, "containers": [{"name": "main", "resources": resources}]});
    if let (Some(s), Value::Object(e)) = (spec.as_object_mut(), extra) {
        s.extend(e);
    }
    PodInfo::from_json(&json!({
        "metadata": {
            "name": name, "namespace": ns, "uid": format!("uid-{ns}-{name}"),
            "creationTimestamp": "2026-11-28T03:00:00Z",
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": owner_kind, "name": owner,
                "uid": format!("{owner_kind}-{owner}"), "controller": true
            }]
        },
        "spec": spec,
        "status": {"phase": "Running"}
    }))
    .expect("valid pod")
}

/// A ReplicaSet pod (`name` is also the ReplicaSet's name up to the last `-`).
fn rs(ns: &str, name: &str, node: &str, cpu_m: i64, mem_mi: i64) -> PodInfo {
    rs_with(ns, name, node, cpu_m, mem_mi, json!({}))
}

fn rs_with(ns: &str, name: &str, node: &str, cpu_m: i64, mem_mi: i64, extra: Value) -> PodInfo {
    let owner = name.rsplit_once('-').map_or(name, |(o, _)| o);
    pod_of(("ReplicaSet", owner), ns, name, node, (cpu_m, mem_mi), extra)
}

/// The DaemonSet pods of one node, pinned to it as the DaemonSet controller does.
fn daemons(node: &str, gpu: bool) -> Vec<PodInfo> {
    let pin = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]
    }}}});
    let mut out = vec![
        pod_of(("DaemonSet", "kube-proxy"), "kube-system", &format!("kube-proxy-{node}"), node, (0, 0), pin.clone()),
        pod_of(
            ("DaemonSet", "node-exporter"),
            "monitoring",
            &format!("node-exporter-{node}"),
            node,
            (50, 64),
            pin.clone(),
        ),
    ];
    if gpu {
        out.push(pod_of(
            ("DaemonSet", "intel-gpu-plugin"),
            "kube-system",
            &format!("intel-gpu-plugin-{node}"),
            node,
            (40, 45),
            pin,
        ));
    }
    out
}

/// Prefers AVX2 nodes (weight 100), like the demo's queue-worker.
fn prefers_avx2() -> Value {
    json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": {"matchExpressions": [{"key": AVX2, "operator": "In", "values": ["true"]}]}}
    ]}}})
}

/// The demo-like cluster: node-1 at 1942m (two BestEffort pods and many small
/// Burstable ones, all from ReplicaSets), node-2/3/4 at 820/850/890m, node-5
/// at 580m with 3800 MiB and no AVX2.
fn demo() -> Snapshot {
    let nodes = vec![
        node("node-1", 2000, 7901, true),
        node("node-2", 2000, 7901, true),
        node("node-3", 2000, 7901, true),
        node("node-4", 2000, 7901, true),
        node("node-5", 2000, 3800, false),
    ];
    let mut pods = Vec::new();
    for (n, gpu) in [("node-1", true), ("node-2", true), ("node-3", true), ("node-4", true), ("node-5", false)] {
        pods.extend(daemons(n, gpu));
    }
    // node-1: 90m of daemons + 1852m of workloads = 1942m.
    pods.extend([
        rs("home", "esphome-6b7f9-x2k4p", "node-1", 0, 0),
        rs("home", "homepage-5d4c8-9qwzt", "node-1", 0, 0),
        rs_with("batch", "queue-worker-7c9d5-h8m2n", "node-1", 40, 128, prefers_avx2()),
        rs("home", "home-assistant-84f6c-lz7rb", "node-1", 142, 512),
        rs("home", "node-red-5f8b7-c4vjx", "node-1", 120, 512),
        rs("home", "paperless-6d9c4-rt5kq", "node-1", 50, 512),
        rs("media", "plex-7f6d8-m2x9c", "node-1", 400, 1024),
        rs("media", "bazarr-66c9f-p8d2s", "node-1", 50, 128),
        rs("media", "prowlarr-59d7b-w4h6t", "node-1", 50, 128),
        rs("media", "qbittorrent-7b8c6-n5j3k", "node-1", 150, 512),
        rs("media", "radarr-5c6d7-f2g8h", "node-1", 100, 256),
        rs("media", "sonarr-6f7a8-k9l2m", "node-1", 100, 256),
        rs("monitoring", "grafana-7d8e9-q3r4s", "node-1", 50, 128),
        rs("monitoring", "loki-5e6f7-t5u6v", "node-1", 100, 256),
        rs("monitoring", "prometheus-8f9a1-w7x8y", "node-1", 150, 1024),
        rs("web", "api-6a7b8-z1a2b", "node-1", 75, 192),
        rs("web", "api-6a7b8-c3d4e", "node-1", 75, 192),
        rs("web", "frontend-5b6c7-f5g6h", "node-1", 75, 64),
        rs("web", "frontend-5b6c7-i7j8k", "node-1", 75, 64),
        rs("web", "redis-7c8d9-l9m1n", "node-1", 50, 64),
    ]);
    // node-2/3/4: 90m of daemons + 730/760/800m; node-5: 50m + 530m.
    for (n, cpu, mem) in [("node-2", 730, 3700), ("node-3", 760, 3700), ("node-4", 800, 3700), ("node-5", 530, 300)] {
        let short = &n[5..];
        pods.extend([
            rs("apps", &format!("worker-{short}a-1"), n, cpu / 2, mem / 2),
            rs("apps", &format!("worker-{short}b-1"), n, cpu - cpu / 2, mem - mem / 2),
        ]);
    }
    Snapshot::new(nodes, pods, now())
}

const HOMELAB: &str = r#"
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictTotal: 10
profiles:
  - name: homelab
    pluginConfig:
      - name: DefaultEvictor
        args:
          nodeFit: true
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 50, memory: 50}
          targetThresholds: {cpu: 80, memory: 80}
          evictableNamespaces:
            exclude: [kube-system]
          evictionLimits:
            node: 5
    plugins:
      balance:
        enabled: [LowNodeUtilization]
"#;

fn homelab() -> Policy {
    Policy::from_yaml(HOMELAB).expect("valid policy")
}

fn homelab_at(threshold: u32, target: u32) -> Policy {
    let text = HOMELAB
        .replace("{cpu: 50, memory: 50}", &format!("{{cpu: {threshold}, memory: {threshold}}}"))
        .replace("{cpu: 80, memory: 80}", &format!("{{cpu: {target}, memory: {target}}}"));
    Policy::from_yaml(&text).expect("valid policy")
}

fn round1(pct: Option<f64>) -> f64 {
    (pct.expect("percent") * 10.0).round() / 10.0
}

fn cpu(sim: &Simulation, node: &str) -> (f64, f64) {
    let n = sim.node(node).expect("node");
    (round1(n.percent_before("cpu")), round1(n.percent_after("cpu")))
}

fn names(sim: &Simulation) -> Vec<&str> {
    sim.landings.iter().map(|l| l.pod.name.as_str()).collect()
}

fn nodes_of(sim: &Simulation) -> Vec<Option<&str>> {
    sim.landings.iter().map(Landing::node).collect()
}

#[test]
fn demo_cluster_is_shaped_like_the_demo() {
    let s = demo();
    let state = s.cluster_state();
    let used: Vec<i64> = (1..=5).map(|i| state.usage(&format!("node-{i}")).get("cpu")).collect();
    assert_eq!(used, [1942, 820, 850, 890, 580]);
    assert!(!s.nodes[4].labels.contains_key(AVX2));
    assert!(s.nodes[..4].iter().all(|n| n.labels.get(AVX2).map(String::as_str) == Some("true")));
}

#[test]
fn demo_evicted_pods_pile_up_on_node_5() {
    let s = demo();
    let p = plan(&s, &homelab(), &PlanOptions::default());
    let sim = simulate_plan(&s, &p);
    // descheduler's order on node-1: BestEffort first, then Burstable, by namespace/name; evictionLimits.node = 5.
    assert_eq!(
        names(&sim),
        [
            "esphome-6b7f9-x2k4p",
            "homepage-5d4c8-9qwzt",
            "queue-worker-7c9d5-h8m2n",
            "home-assistant-84f6c-lz7rb",
            "node-red-5f8b7-c4vjx"
        ]
    );
    assert!(sim.landings.iter().all(|l| l.source_node == "node-1"));
    assert_eq!(sim.landings[0].owner.as_deref(), Some("ReplicaSet/esphome-6b7f9"));
    // LeastAllocated sends everything to node-5 except the pod that prefers AVX2.
    assert_eq!(nodes_of(&sim), [Some("node-5"), Some("node-5"), Some("node-2"), Some("node-5"), Some("node-5")]);
    assert_eq!(sim.pile_up, Some(PileUp { node: "node-5".into(), count: 4, of: 5 }));
    assert_eq!(
        sim.landings[0].outcome,
        LandingOutcome::Scheduled {
            node: "node-5".into(),
            // PodTopologySpread's system default spreading gives every node 100
            // (× 2): no other pod of these ReplicaSets runs anywhere.
            score: 570,
            tie_with: vec![],
            runner_up: Some("node-2".into()),
            runner_up_score: Some(547),
        }
    );
    // node-red is a near tie (641 vs 640), queue-worker a real three-way tie.
    assert!(matches!(
        &sim.landings[4].outcome,
        LandingOutcome::Scheduled { score: 641, runner_up_score: Some(640), tie_with, .. } if tie_with.is_empty()
    ));
    assert!(sim.landings[2].is_tie());
    assert!(matches!(
        &sim.landings[2].outcome,
        LandingOutcome::Scheduled { score: 845, tie_with, .. } if *tie_with == ["node-3", "node-4"]
    ));

    // Percent before → after.
    assert_eq!(sim.tracked_resources, ["cpu", "memory", "pods"]);
    assert_eq!(cpu(&sim, "node-1"), (97.1, 82.0));
    assert_eq!(cpu(&sim, "node-2"), (41.0, 43.0));
    assert_eq!(cpu(&sim, "node-3"), (42.5, 42.5));
    assert_eq!(cpu(&sim, "node-4"), (44.5, 44.5));
    assert_eq!(cpu(&sim, "node-5"), (29.0, 42.1));
    let n5 = sim.node("node-5").expect("node-5");
    assert_eq!((round1(n5.percent_before("memory")), round1(n5.percent_after("memory"))), (9.6, 36.5));
    let pods = n5.resource("pods").expect("pods");
    assert_eq!((pods.before, pods.after, pods.allocatable), (4, 8, Some(110)));
    let mem = n5.resource("memory").expect("memory");
    assert_eq!((mem.before, mem.after), (364 * MI, 1388 * MI));
    assert_eq!((n5.pods_in, n5.pods_out), (4, 0));
    assert_eq!(sim.node("node-1").map(|n| (n.pods_in, n.pods_out)), Some((0, 5)));
    assert_eq!(sim.cpu_skew_before.map(|v| (v * 10.0).round() / 10.0), Some(68.1));
    assert_eq!(sim.cpu_skew_after.map(|v| (v * 10.0).round() / 10.0), Some(39.9));

    // Warnings: 4 label risks + the pile-up (Warning), the tie (Info); nothing critical.
    assert!(!sim.has_critical());
    let kinds: Vec<(Severity, WarningKind)> = sim.warnings.iter().map(|w| (w.severity, w.kind)).collect();
    assert_eq!(
        kinds,
        [
            (Severity::Warning, WarningKind::LabelRisk),
            (Severity::Warning, WarningKind::LabelRisk),
            (Severity::Warning, WarningKind::LabelRisk),
            (Severity::Warning, WarningKind::LabelRisk),
            (Severity::Warning, WarningKind::PileUp),
            (Severity::Info, WarningKind::Tie),
        ]
    );
    let risk = &sim.warnings[2];
    assert_eq!(risk.pod.as_deref(), Some("home/home-assistant-84f6c-lz7rb"));
    assert_eq!(risk.node.as_deref(), Some("node-5"));
    assert_eq!(
        risk.message,
        "home/home-assistant-84f6c-lz7rb moves from node-1 to node-5, whose labels differ: \
         feature.node.kubernetes.io/cpu-cpuid.AVX2: \"true\" → absent; \
         feature.node.kubernetes.io/cpu-model.id: \"154\" → \"156\"; \
         intel.feature.node.kubernetes.io/gpu: \"true\" → absent"
    );
    assert_eq!(
        sim.landings[3].label_diffs[0],
        LabelDiff { key: AVX2.into(), source: Some("true".into()), target: None }
    );
    // node-1 → node-2: same features, no risk.
    assert!(sim.landings[2].label_diffs.is_empty());
    assert_eq!(
        sim.warnings[4].message,
        "pile-up: 4 of 5 replacement pods land on node-5: the scheduler sends them to the node that scores best \
         (the least allocated), descheduler does not choose destinations"
    );
    assert_eq!(
        sim.warnings[5].message,
        "batch/queue-worker-7c9d5-h8m2n: node-2 ties with node-3, node-4 (score 845): the scheduler picks one at \
         random; the simulation goes on with node-2 (first by name)"
    );
}

#[test]
fn risk_labels_are_configurable() {
    let s = demo();
    let p = plan(&s, &homelab(), &PlanOptions::default());
    let none = SimulateOptions { risk_label_keys: vec![], risk_label_namespaces: vec![], ..Default::default() };
    let sim = simulate_plan_with(&s, &p, &none);
    assert!(sim.landings.iter().all(|l| l.label_diffs.is_empty()));
    assert!(!sim.warnings.iter().any(|w| w.kind == WarningKind::LabelRisk));
    let only_avx2 = SimulateOptions { risk_label_keys: vec![AVX2.into()], risk_label_namespaces: vec![], ..none };
    let sim = simulate_plan_with(&s, &p, &only_avx2);
    let diffs: Vec<usize> = sim.landings.iter().map(|l| l.label_diffs.len()).collect();
    assert_eq!(diffs, [1, 1, 0, 1, 1]);
}

#[test]
fn demo_rounds_converge_with_the_homelab_policy() {
    let r = simulate_rounds(&demo(), &homelab(), &PlanOptions::default(), 10);
    assert_eq!(r.verdict, Verdict::Converged { rounds: 2 });
    assert_eq!(r.rounds.len(), 3);
    assert_eq!(r.rounds.iter().map(|x| x.evictions).collect::<Vec<_>>(), [5, 1, 0]);
    assert_eq!(r.total_evictions(), 6);
    assert_eq!(r.pile_ups(), 1);
    let first = &r.rounds[0];
    assert_eq!(first.classes.get("node-1"), Some(&NodeClass::Overutilized));
    assert!((2..=5).all(|i| first.classes.get(&format!("node-{i}")) == Some(&NodeClass::Underutilized)));
    let second = &r.rounds[1];
    assert_eq!(second.now, now() + chrono::Duration::days(1));
    assert_eq!(second.evicted(), ["home/paperless-6d9c4-rt5kq"]);
    // Night 2 starts from night 1's landings: node-5 is no longer the emptiest.
    assert_eq!(second.simulation.landings[0].node(), Some("node-3"));
    assert!(second.simulation.landings[0].is_tie());
    assert_eq!(round1(second.percent_after("node-1", "cpu")), 79.5);
    assert_eq!(round1(second.percent_after("node-5", "cpu")), 42.1);
    assert_eq!(round1(second.percent_after("node-3", "cpu")), 45.0);
    let last = &r.rounds[2];
    assert_eq!(last.early_exit.as_ref().map(|e| e.kind), Some(crate::planner::EarlyExitKind::NoOverutilizedNode));
    assert_eq!(r.rounds_to_converge(), Some(2));
}

#[test]
fn demo_rounds_stall_with_threshold_40() {
    let r = simulate_rounds(&demo(), &homelab_at(40, 80), &PlanOptions::default(), 10);
    assert_eq!(
        r.verdict,
        Verdict::Stalled {
            round: 2,
            reason: "after round 1 no node is below 40 % cpu (lowest: node-5 at 42.1 %): nothing more will move \
                     while node-1 (cpu 82.0 % > 80) stays above target"
                .into()
        }
    );
    assert_eq!(r.rounds.iter().map(|x| x.evictions).collect::<Vec<_>>(), [5, 0]);
    let first = &r.rounds[0];
    assert_eq!(first.classes.get("node-5"), Some(&NodeClass::Underutilized));
    assert_eq!(first.classes.get("node-2"), Some(&NodeClass::AppropriatelyUtilized));
    assert_eq!(first.pile_up().map(|p| (p.node.as_str(), p.count)), Some(("node-5", 4)));
    assert_eq!(
        r.rounds[1].early_exit.as_ref().map(|e| e.kind),
        Some(crate::planner::EarlyExitKind::NoUnderutilizedNode)
    );
    assert_eq!(r.rounds_to_converge(), None);
}

#[test]
fn one_node_is_nothing_to_do_not_a_stall() {
    // It said "STALLED at night 1": descheduler skips its cycle with fewer
    // than two nodes (reference §1), whatever the thresholds.
    let mut one = demo();
    one.nodes.retain(|n| n.name == "node-1");
    let r = simulate_rounds(&one, &homelab(), &PlanOptions::default(), 5);
    assert_eq!(
        r.verdict,
        Verdict::NothingToDo {
            reason: "descheduler skips its cycle when fewer than 2 nodes are Ready and match the nodeSelector, and \
                     only node-1 is: nothing is classified or evicted, whatever the thresholds (\"Skipping \
                     descheduling cycle: requires >=2 nodes\")"
                .into()
        }
    );
    assert_eq!((r.rounds.len(), r.total_evictions()), (1, 0));
    let suggestions = suggest_thresholds(&one, &homelab(), &Candidates::default());
    assert!(suggestions.iter().all(|s| matches!(s.verdict, Verdict::NothingToDo { .. })), "{suggestions:?}");
}

#[test]
fn round_limit() {
    let r = simulate_rounds(&demo(), &homelab(), &PlanOptions::default(), 1);
    assert_eq!(r.verdict, Verdict::Limit { rounds: 1 });
    assert_eq!(r.rounds.len(), 1);
    let r = simulate_rounds(&demo(), &homelab(), &PlanOptions::default(), 0);
    assert_eq!(r.verdict, Verdict::Limit { rounds: 0 });
    assert!(r.rounds.is_empty());
}

#[test]
fn suggestions_rank_converging_candidates_by_evictions() {
    let got = suggest_thresholds(&demo(), &homelab(), &Candidates::default());
    let rows: Vec<(f64, f64, Option<usize>, usize)> =
        got.iter().map(|s| (s.threshold, s.target, s.rounds_to_converge, s.evictions)).collect();
    assert_eq!(
        rows[..6],
        [
            (50.0, 90.0, Some(1), 4),
            (60.0, 90.0, Some(1), 4),
            (50.0, 80.0, Some(2), 6),
            (60.0, 80.0, Some(2), 6),
            (50.0, 70.0, Some(2), 8),
            // Converges only because nothing exceeds a 100 % target: ranked after those that move pods.
            (60.0, 100.0, Some(0), 0),
        ]
    );
    assert_eq!(got.len(), 12);
    assert!(got[6..].iter().all(|s| matches!(s.verdict, Verdict::Stalled { round: 2, .. }) && s.evictions == 5));
    let top = &got[0];
    assert_eq!(top.thresholds.get("cpu"), Some(&50.0));
    assert_eq!(top.target_thresholds.get("memory"), Some(&90.0));
    assert_eq!(top.final_max_cpu_percent.map(|v| (v * 10.0).round() / 10.0), Some(88.0));
    let third = &got[2];
    assert_eq!(third.final_cpu_skew.map(|v| (v * 10.0).round() / 10.0), Some(37.4));
    // A candidate the policy validation rejects (threshold above target) is left out.
    let odd = Candidates { pairs: vec![(70.0, 60.0), (50.0, 80.0)], ..Candidates::default() };
    let got = suggest_thresholds(&demo(), &homelab(), &odd);
    assert_eq!(got.iter().map(|s| (s.threshold, s.target)).collect::<Vec<_>>(), [(50.0, 80.0)]);
    assert_eq!(Candidates::grid(&[30.0, 70.0], &[20.0, 40.0]).pairs, [(30.0, 50.0), (30.0, 70.0), (70.0, 90.0)]);
}

/// Three 4000m nodes; `a` is labelled `disk=ssd` and full: a 1600m
/// Guaranteed pod and three 800m Burstable ones.
fn troubled() -> Snapshot {
    let mut a = node("a", 4000, 8192, true);
    a.labels.insert("disk".into(), "ssd".into());
    let nodes = vec![a, node("b", 4000, 8192, true), node("c", 4000, 8192, true)];
    let mut bare = rs("apps", "bare-1", "a", 800, 256);
    bare.owners.clear();
    // Bare pods are protected unless annotated (descheduler's evict annotation bypasses the checks).
    bare.annotations.insert(crate::planner::EVICT_ANNOTATION.into(), "true".into());
    let mut filler = rs("apps", "filler-1", "a", 1600, 512);
    filler.containers[0].limits = filler.containers[0].requests.clone();
    filler.refresh_derived();
    let pods = vec![
        bare,
        // Scheduled when `a` still had the label; no node has it now.
        rs_with("apps", "huge-1", "a", 800, 256, json!({"nodeSelector": {"disk": "nvme"}})),
        rs_with("apps", "pinned-1", "a", 800, 256, json!({"nodeSelector": {"disk": "ssd"}})),
        filler,
    ];
    Snapshot::new(nodes, pods, now())
}

const SIMPLE: &str = r#"
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: simple
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 20}
          targetThresholds: {cpu: 50}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
"#;

#[test]
fn pending_and_lost_replacements_are_critical() {
    let s = troubled();
    let policy = Policy::from_yaml(SIMPLE).expect("valid");
    let p = plan(&s, &policy, &PlanOptions::default());
    let sim = simulate_plan(&s, &p);
    assert_eq!(names(&sim), ["bare-1", "huge-1", "pinned-1"]);
    assert_eq!(sim.landings[0].outcome, LandingOutcome::NotRecreated);
    assert_eq!(
        sim.landings[1].outcome,
        LandingOutcome::Unschedulable {
            message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.".into()
        }
    );
    assert_eq!(sim.landings[2].node(), Some("a"));
    assert_eq!(sim.unschedulable(), 1);
    assert!(sim.has_critical());
    let kinds: Vec<(Severity, WarningKind)> = sim.warnings.iter().map(|w| (w.severity, w.kind)).collect();
    assert_eq!(
        kinds,
        [
            (Severity::Critical, WarningKind::NotRecreated),
            (Severity::Critical, WarningKind::Unschedulable),
            (Severity::Warning, WarningKind::BackOnSource),
        ]
    );
    assert_eq!(
        sim.warnings[1].message,
        "apps/huge-1's replacement (evicted from a) would stay Pending: 0/3 nodes are available: 3 node(s) didn't \
         match Pod's node affinity/selector."
    );
    assert_eq!(
        sim.warnings[0].message,
        "apps/bare-1 (on a) has no controller: evicting it deletes it and nothing recreates it"
    );
    // 1 of 2 replacements on one node is not "more than half".
    assert_eq!(sim.pile_up, None);
    assert_eq!(cpu(&sim, "a"), (100.0, 60.0));
    assert_eq!(cpu(&sim, "b"), (0.0, 0.0));
}

#[test]
fn evictions_that_come_back_stall_the_rounds() {
    let s = troubled();
    let policy = Policy::from_yaml(SIMPLE).expect("valid");
    let r = simulate_rounds(&s, &policy, &PlanOptions::default(), 10);
    assert_eq!(
        r.rounds.iter().map(|x| x.evicted()).collect::<Vec<_>>(),
        [vec!["apps/bare-1", "apps/huge-1", "apps/pinned-1"], vec!["apps/pinned-1"], vec!["apps/pinned-1"],]
    );
    assert_eq!(
        r.verdict,
        Verdict::Stalled {
            round: 3,
            reason: "round 3 finds every node in the same class with the same requests as round 2: the pods evicted \
                     each night (LowNodeUtilization 1) land back where they were, descheduler would evict them night \
                     after night"
                .into()
        }
    );
    assert_eq!(r.total_unschedulable(), 1);
    // The Pending replacement stays in the snapshot, unbound; the bare pod is gone.
    assert_eq!(round1(r.rounds[1].percent_after("a", "cpu")), 60.0);
}

#[test]
fn equal_nodes_are_reported_as_a_tie() {
    let nodes = vec![node("a", 4000, 8192, true), node("b", 4000, 8192, true), node("c", 4000, 8192, true)];
    let pods = (1..=4).map(|i| rs("apps", &format!("web-{i}"), "a", 700, 256)).collect();
    let s = Snapshot::new(nodes, pods, now());
    let p = plan(&s, &Policy::from_yaml(SIMPLE).expect("valid"), &PlanOptions::default());
    let sim = simulate_plan(&s, &p);
    assert_eq!(names(&sim), ["web-1", "web-2"]);
    assert!(matches!(
        &sim.landings[0].outcome,
        LandingOutcome::Scheduled { node, tie_with, .. } if node == "b" && *tie_with == ["c"]
    ));
    // b got web-1, so web-2 goes to c without a tie.
    assert_eq!(sim.landings[1].node(), Some("c"));
    assert!(!sim.landings[1].is_tie());
    assert_eq!(sim.pile_up, None);
    let ties: Vec<&Warning> = sim.warnings.iter().filter(|w| w.kind == WarningKind::Tie).collect();
    assert_eq!(ties.len(), 1);
    assert_eq!(ties[0].severity, Severity::Info);
    assert!(ties[0].message.starts_with("apps/web-1: b ties with c (score "), "{}", ties[0].message);
}

#[test]
fn same_input_same_simulation() {
    let s = demo();
    let p = plan(&s, &homelab(), &PlanOptions::default());
    let a = simulate_plan(&s, &p);
    let b = simulate_plan(&demo(), &plan(&demo(), &homelab(), &PlanOptions::default()));
    assert_eq!(a, b);
    assert_eq!(serde_json::to_string(&a).expect("json"), serde_json::to_string(&b).expect("json"));
    let r1 = simulate_rounds(&s, &homelab(), &PlanOptions::default(), 5);
    let r2 = simulate_rounds(&s, &homelab(), &PlanOptions::default(), 5);
    assert_eq!(r1, r2);
    assert_eq!(serde_json::to_string(&r1).expect("json"), serde_json::to_string(&r2).expect("json"));
}

#[test]
fn nothing_planned_changes_nothing() {
    let s = demo();
    let p = plan(&s, &homelab_at(30, 100), &PlanOptions::default());
    assert_eq!(p.evictions_total, 0);
    let sim = simulate_plan(&s, &p);
    assert!(sim.landings.is_empty() && sim.warnings.is_empty() && sim.pile_up.is_none());
    assert!(sim.nodes.iter().all(|n| n.resources.iter().all(|r| r.before == r.after)));
    assert_eq!(sim.cpu_skew_before, sim.cpu_skew_after);
}

#[test]
fn an_eviction_of_another_snapshot_is_left_out() {
    let s = demo();
    let mut p: Plan = plan(&s, &homelab(), &PlanOptions::default());
    p.runs[0].evictions[0].pod.index = 0; // kube-proxy-node-1, not esphome
    let sim = simulate_plan(&s, &p);
    assert_eq!(sim.landings.len(), 4);
    let w = sim.warnings.iter().find(|w| w.kind == WarningKind::UnknownPod).expect("warned");
    assert_eq!(
        w.message,
        "eviction #1 names home/esphome-6b7f9-x2k4p at pod index 0, which this snapshot does not have there: left out"
    );
    // The pod it named stays where it is.
    assert_eq!(sim.node("node-1").map(|n| n.pods_out), Some(4));
}

#[test]
fn stall_when_no_pod_on_the_overutilized_node_may_go() {
    let policy = Policy::from_yaml(&HOMELAB.replace("maxNoOfPodsToEvictTotal: 10", "maxNoOfPodsToEvictTotal: 0"))
        .expect("valid policy");
    let r = simulate_rounds(&demo(), &policy, &PlanOptions::default(), 10);
    let Verdict::Stalled { round, reason } = &r.verdict else { panic!("{:?}", r.verdict) };
    assert_eq!(*round, 1);
    assert_eq!(
        reason,
        "as the cluster is now, node-1 (cpu 97.1 % > 80) stays above target, but none of its pods is evicted: \
         node-1: maximum number of evicted pods per a descheduling cycle reached (19 × not reached: maximum number \
         of evicted pods per a descheduling cycle reached; 3 × daemonset pods are protected against eviction; 1 × \
         maximum number of evicted pods per a descheduling cycle reached)"
    );
}

const HIGH_NODE_UTILIZATION: &str = r#"
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: packing
    pluginConfig:
      - name: HighNodeUtilization
        args:
          thresholds: {cpu: 20, memory: 20}
    plugins:
      balance:
        enabled: [HighNodeUtilization]
"#;

/// Three 4000m / 8000 MiB nodes: full-a at 2800m (70 %), half-b at 1600m
/// (40 %), low-c at 400m (10 %, two pods of two ReplicaSets):
/// HighNodeUtilization empties low-c.
fn packing() -> Snapshot {
    let nodes =
        vec![node("full-a", 4000, 8000, true), node("half-b", 4000, 8000, true), node("low-c", 4000, 8000, true)];
    let pods = vec![
        rs("apps", "big-1", "full-a", 1400, 2800),
        rs("apps", "big-2", "full-a", 1400, 2800),
        rs("apps", "mid-1", "half-b", 1600, 3200),
        rs("apps", "small-1", "low-c", 200, 400),
        // Another ReplicaSet's: the system default spreading does not keep
        // the two evicted pods apart.
        rs("apps", "tiny-1", "low-c", 200, 400),
    ];
    Snapshot::new(nodes, pods, now())
}

#[test]
fn high_node_utilization_packs_onto_the_fullest_node_under_most_allocated() {
    let snapshot = packing();
    let policy = Policy::from_yaml(HIGH_NODE_UTILIZATION).expect("valid policy");
    let planned = plan(&snapshot, &policy, &PlanOptions::default());
    let evicted: Vec<String> = planned.evictions().map(|e| e.pod.key()).collect();
    assert_eq!(evicted, ["apps/small-1", "apps/tiny-1"]);
    // The default profile (LeastAllocated): both go back to the emptied
    // node, the eviction frees nothing.
    let least = simulate_plan(&snapshot, &planned);
    assert_eq!(least.scoring.strategy.kind, crate::scheduler::StrategyType::LeastAllocated);
    assert_eq!(nodes_of(&least), [Some("low-c"), Some("low-c")]);
    assert!(least.warnings.iter().any(|w| w.kind == WarningKind::BackOnSource));
    // MostAllocated, as HighNodeUtilization is meant to run with: the fullest node.
    let scoring = crate::scheduler::scoring_shorthand("most-allocated").expect("known");
    let options = SimulateOptions { scoring, ..SimulateOptions::default() };
    let most = simulate_plan_with(&snapshot, &planned, &options);
    assert_eq!(nodes_of(&most), [Some("full-a"), Some("full-a")]);
    // full-a: cpu (2800+200)/4000 = 75, memory (5600+400)/8000 = 75 → 75,
    // + BalancedAllocation 100 + TaintToleration 3 × 100 + PodTopologySpread
    // 2 × 100 (no sibling anywhere); half-b 30 points behind.
    assert!(matches!(
        &most.landings[0].outcome,
        LandingOutcome::Scheduled { score: 675, runner_up: Some(r), runner_up_score: Some(645), .. } if r == "half-b"
    ));
    assert_eq!(cpu(&most, "full-a"), (70.0, 80.0));
    assert_eq!(cpu(&most, "low-c"), (10.0, 0.0));
    let pile = most.pile_up.as_ref().expect("both on one node");
    assert_eq!(pile.node, "full-a");
    let text = &most.warnings.iter().find(|w| w.kind == WarningKind::PileUp).expect("pile-up warning").message;
    assert!(text.contains("(the most allocated: MostAllocated packs)"), "{text}");
}

const DUPLICATES: &str = r#"
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: dups
    pluginConfig:
      - name: RemoveDuplicates
    plugins:
      balance:
        enabled: [RemoveDuplicates]
"#;

#[test]
fn duplicates_evicted_by_remove_duplicates_spread_instead_of_landing_back_on_their_node() {
    // web's 3 copies share node a, the emptiest (300m of 4000m); b and c run
    // 1500m each. LeastAllocated alone sends both evicted copies back to a
    // (RemoveDuplicates evicts them again the next night); PodTopologySpread's
    // system default spreading (hostname maxSkew 3) puts a node that already
    // runs a copy 100 points behind (2 × 50), more than a's 66-point lead.
    let nodes = vec![node("a", 4000, 8192, true), node("b", 4000, 8192, true), node("c", 4000, 8192, true)];
    let mut pods: Vec<PodInfo> = (1..=3).map(|i| rs("apps", &format!("web-{i}"), "a", 100, 128)).collect();
    pods.push(rs("apps", "db-1", "b", 1500, 1024));
    pods.push(rs("apps", "cache-1", "c", 1500, 1024));
    let s = Snapshot::new(nodes, pods, now());
    let policy = Policy::from_yaml(DUPLICATES).expect("valid");
    let p = plan(&s, &policy, &PlanOptions::default());
    let sim = simulate_plan(&s, &p);
    assert_eq!(names(&sim), ["web-2", "web-3"]);
    assert_eq!(nodes_of(&sim), [Some("b"), Some("c")]);
    assert!(matches!(
        &sim.landings[0].outcome,
        LandingOutcome::Scheduled { node, tie_with, runner_up, .. }
            if node == "b" && *tie_with == ["c"] && runner_up.as_deref() == Some("a")
    ));
    let r = simulate_rounds(&s, &policy, &PlanOptions::default(), 5);
    assert_eq!(r.loops, vec![], "no copy is evicted again");
    assert_eq!(r.rounds.iter().map(|x| x.evicted()).collect::<Vec<_>>(), [vec!["apps/web-2", "apps/web-3"], vec![]]);
}
