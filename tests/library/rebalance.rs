//! `rebalance plan` on the demo store: the snapshot as the store knows it,
//! the homelab policy of `examples/homelab-policy.yaml`, the landing
//! simulation and the nights after.
//!
//! The demo's workloads prefer AVX2 nodes (a weight-100 preferred node
//! affinity that node-1 … node-4 satisfy and node-5 does not), so the
//! replacements of node-1's pods land on node-2/3/4, not on node-5, although
//! node-5 has the lowest CPU requests. (The rebalance crate's own unit tests
//! use a demo-*like* cluster without that preference, where they pile up on
//! node-5.) The label-risk warning is shown on the demo's real Node labels
//! with a what-if in which node-5 is the only node left to land on.

use chrono::{DateTime, Duration, Utc};
use kdrift_analyze::{load_snapshot, LoadedSnapshot};
use kdrift_ingest::ingest_scenario;
use kdrift_rebalance::NodeClass;
use kdrift_rebalance::WarningKind;
use kdrift_rebalance::{plan, simulate_plan, simulate_rounds, PlanOptions, Policy, Verdict};
use kdrift_scenario::{generate, ScenarioConfig, ScenarioFacts};
use kdrift_tests::temp_store;

const HOMELAB: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homelab-policy.yaml"));

fn homelab() -> Policy {
    Policy::from_yaml(HOMELAB).expect("examples/homelab-policy.yaml is valid")
}

/// The homelab policy with both `thresholds` at `percent`.
fn homelab_thresholds(percent: u32) -> Policy {
    let text = HOMELAB.replace(
        "            cpu: 50\n            memory: 50",
        &format!("            cpu: {percent}\n            memory: {percent}"),
    );
    assert_ne!(text, HOMELAB, "the thresholds block moved in examples/homelab-policy.yaml");
    Policy::from_yaml(&text).expect("valid policy")
}

/// The demo store's snapshot at `at` (default: its newest observation).
fn demo_snapshot(at: Option<fn(&ScenarioFacts) -> DateTime<Utc>>) -> (LoadedSnapshot, ScenarioFacts) {
    let scenario = generate(&ScenarioConfig { seed: 3, scale: 1 });
    let facts = scenario.facts.clone();
    let (_dir, store) = temp_store();
    ingest_scenario(&store, scenario, 3).expect("ingest");
    let loaded = load_snapshot(&store, at.map(|f| f(&facts))).expect("snapshot");
    (loaded, facts)
}

#[test]
fn homelab_policy_evicts_only_from_node_1_and_spares_the_protected_pods() {
    let (loaded, facts) = demo_snapshot(None);
    assert!(loaded.at >= facts.pending_pod_deleted_at, "defaults to the newest observation: {}", loaded.at);
    assert_eq!(loaded.snapshot.nodes.len(), 5);
    // The demo stores no Namespace, PDB, PriorityClass or PVC, and the
    // homelab policy reads none of them: nothing is said of them.
    assert!(loaded.notes.iter().all(|n| !n.contains(" objects: ")), "{:?}", loaded.notes);

    let p = plan(&loaded.snapshot, &homelab(), &PlanOptions::default());
    assert!(p.warnings.iter().all(|w| !w.starts_with("no ")), "{:?}", p.warnings);
    assert!(p.aborted.is_none(), "{:?}", p.aborted);
    let run = &p.runs[0];
    let class = |n: &str| run.nodes.iter().find(|x| x.name == n).map(|x| x.class);
    assert_eq!(class("node-1"), Some(NodeClass::Overutilized));
    for n in ["node-2", "node-3", "node-4", "node-5"] {
        assert_eq!(class(n), Some(NodeClass::Underutilized), "{n}");
    }
    // evictionLimits.node = 5, and node-1 is the only source.
    assert_eq!(p.evictions_total, 5);
    for e in p.evictions() {
        assert_eq!(e.source_node, "node-1", "{}", e.pod.key());
        let pod = &loaded.snapshot.pods[e.pod.index];
        assert_eq!(pod.key(), e.pod.key());
        assert!(!["kube-system", "postgres"].contains(&pod.namespace.as_str()), "{}", pod.key());
        assert_ne!(pod.labels.get("app"), Some("plex"), "{}", pod.key());
        assert!(!pod.labels.contains_key("batch.kubernetes.io/job-name"), "{}", pod.key());
        assert!(pod.controller().is_some(), "{}", pod.key());
    }
    // Plex is on node-1 and is kept there by the labelSelector.
    let plex = run.skipped.iter().find(|s| s.pod.key() == format!("{}/{}", facts.plex.namespace, facts.plex.name));
    assert_eq!(
        plex.map(|s| s.message.as_str()),
        Some("pod labels do not match the labelSelector filter in the policy parameter")
    );
    assert_eq!(run.source_nodes.len(), 1);
    assert_eq!(run.source_nodes[0].stop_message, "Max number of evictions per node per plugin reached");
}

#[test]
fn replacements_spread_out_and_a_queue_worker_lands_back_on_node_1() {
    let (loaded, _) = demo_snapshot(None);
    let p = plan(&loaded.snapshot, &homelab(), &PlanOptions::default());
    let sim = simulate_plan(&loaded.snapshot, &p);
    let landed: Vec<(&str, Option<&str>)> = sim.landings.iter().map(|l| (l.pod.name.as_str(), l.node())).collect();
    // The BestEffort pods go to node-5, the least allocated node, except the
    // second docs copy: PodTopologySpread's system default spreading puts a
    // node already running a docs pod behind. The queue-workers prefer AVX2;
    // one lands back on node-1, the only AVX2 node without a queue-worker
    // (before the scheduler model scored PodTopologySpread: 3 on node-5, a
    // pile-up, none back on node-1).
    assert_eq!(
        landed,
        [
            ("flaresolverr-dl25jqd2gp-snhqt", Some("node-5")),
            ("docs-p4wg5lmjmw-dl58t", Some("node-5")),
            ("docs-p4wg5lmjmw-vdlpc", Some("node-3")),
            ("queue-worker-sttmddf8fm-2sfvr", Some("node-1")),
            ("queue-worker-sttmddf8fm-57zc5", Some("node-2")),
        ]
    );
    assert_eq!(sim.unschedulable(), 0);
    assert_eq!(sim.pile_up, None);
    let count = |k: WarningKind| sim.warnings.iter().filter(|w| w.kind == k).count();
    // node-5 has another CPU model and no AVX2: each move there is a label risk.
    assert_eq!(
        (count(WarningKind::LabelRisk), count(WarningKind::BackOnSource), count(WarningKind::PileUp)),
        (2, 1, 0)
    );
    let node1 = sim.node("node-1").expect("node-1");
    assert_eq!((node1.pods_out, node1.pods_in), (5, 1));
    assert!(node1.percent_after("cpu") < node1.percent_before("cpu"));
    assert!(sim.cpu_skew_after < sim.cpu_skew_before);
}

#[test]
fn landing_on_node_5_warns_about_its_cpu_labels() {
    // What-if: node-1 … node-4 cordoned (say, for a kernel update) when the
    // nightly run starts; node-5, without AVX2 and with another CPU model, is
    // the only node left to land on.
    let (mut loaded, _) = demo_snapshot(None);
    for n in loaded.snapshot.nodes.iter_mut().filter(|n| n.name != "node-5") {
        n.unschedulable = true;
    }
    let p = plan(&loaded.snapshot, &homelab(), &PlanOptions::default());
    assert_eq!(p.evictions_total, 5);
    let sim = simulate_plan(&loaded.snapshot, &p);
    assert!(sim.landings.iter().all(|l| l.node() == Some("node-5")), "{:?}", sim.landings);
    let pile = sim.pile_up.as_ref().expect("pile-up");
    assert_eq!((pile.node.as_str(), pile.count, pile.of), ("node-5", 5, 5));
    let risks: Vec<&str> =
        sim.warnings.iter().filter(|w| w.kind == WarningKind::LabelRisk).map(|w| w.message.as_str()).collect();
    assert_eq!(risks.len(), 5, "{risks:?}");
    for r in risks {
        assert!(r.contains("moves from node-1 to node-5, whose labels differ"), "{r}");
        assert!(r.contains("feature.node.kubernetes.io/cpu-cpuid.AVX2: \"true\" → absent"), "{r}");
        assert!(r.contains("feature.node.kubernetes.io/cpu-model.id: \"154\" → \"156\""), "{r}");
    }
}

#[test]
fn nights_at_40_stall_as_a_replacement_lands_back_and_stall_during_the_drain() {
    // As the store last saw the cluster: the replacements of the pods
    // evicted from node-1 land back there night after night (a queue-worker
    // goes back to node-1, the AVX2 node without a sibling of its own:
    // PodTopologySpread's system default spreading). Before the scheduler
    // model scored PodTopologySpread: converged in 2 nights, 7 evictions.
    let (loaded, _) = demo_snapshot(None);
    let rounds = simulate_rounds(&loaded.snapshot, &homelab_thresholds(40), &PlanOptions::default(), 10);
    assert_eq!(
        rounds.verdict,
        Verdict::Stalled {
            round: 3,
            reason: "round 3 finds every node in the same class with the same requests as round 2: the pods evicted \
                     each night (LowNodeUtilization 3) land back where they were, descheduler would evict them night \
                     after night"
                .into()
        }
    );
    assert_eq!(rounds.rounds.iter().map(|r| r.evictions).collect::<Vec<_>>(), [5, 3, 3]);
    assert_eq!(rounds.total_evictions(), 11);

    // During drain #2, after the burst onto node-1 and while node-2/3/4 are
    // cordoned: no schedulable node is below 40 %, nothing can move.
    let (loaded, facts) = demo_snapshot(Some(|f| f.burst_ready_at + Duration::minutes(3)));
    let cordoned: Vec<&str> =
        loaded.snapshot.nodes.iter().filter(|n| n.unschedulable).map(|n| n.name.as_str()).collect();
    assert_eq!(cordoned, ["node-2", "node-3", "node-4"], "at {}", loaded.at);
    assert!(loaded.at < facts.drains[1].ended_at);
    let rounds = simulate_rounds(&loaded.snapshot, &homelab_thresholds(40), &PlanOptions::default(), 10);
    match &rounds.verdict {
        Verdict::Stalled { round: 1, reason } => {
            assert!(reason.starts_with("as the cluster is now, no node is below 40 % cpu"), "{reason}");
            assert!(reason.contains("nothing more will move while node-1 (cpu 99.6 % > 80)"), "{reason}");
        }
        other => panic!("expected a stall at night 1, got {other:?}"),
    }
    assert_eq!(rounds.total_evictions(), 0);
}
