//! The scheduler cache against the scheduler model it speeds up: on
//! generated clusters (taints, cordons, node selectors, required and
//! preferred pod (anti-)affinity, host ports, extended resources, pods
//! without uid, duplicated names, terminal pods), placing pods one after the
//! other, [`SchedulerCache::pick`] / `message` / `usage` must give exactly
//! what [`pick_node`] / [`scheduler_message`] / [`ClusterState::usage`] give
//! on a `ClusterState` holding the same pods.

use proptest::prelude::*;

use super::pick::Pick;
use super::*;
use crate::model::node::{Taint, TaintEffect};
use crate::model::pod::{
    ContainerInfo, ContainerKind, LabelSelector, OwnerRef, PodAffinityTerm, PodPhase, Toleration,
    TopologySpreadConstraint, WeightedPodAffinityTerm,
};

/// A generated node: cpu millicores, pod slots, cordoned, taint kind (0 none,
/// 1 NoSchedule `dedicated=db`, 2 PreferNoSchedule `spot`), zone, not Ready.
type GenNode = (i64, i64, bool, u8, u8, bool);

/// A generated pod: node (None: unbound), cpu, memory MiB, gpu, app label,
/// feature bits, name number, terminal.
type GenPod = (Option<usize>, i64, i64, bool, u8, u16, u8, bool);

fn gen_node() -> impl Strategy<Value = GenNode> {
    (1i64..9, 2i64..12, prop::bool::weighted(0.15), 0u8..3, 0u8..2, prop::bool::weighted(0.1))
}

fn gen_pod(nodes: usize) -> impl Strategy<Value = GenPod> {
    (
        prop::option::weighted(0.9, 0..nodes.max(1)),
        0i64..2500,
        0i64..3000,
        prop::bool::weighted(0.05),
        0u8..3,
        any::<u16>(),
        0u8..60,
        prop::bool::weighted(0.05),
    )
}

fn term(app: u8, key: &str) -> PodAffinityTerm {
    PodAffinityTerm {
        label_selector: Some(LabelSelector::from_labels(&[("app", &format!("a{app}"))])),
        namespaces: Vec::new(),
        namespace_selector: None,
        topology_key: key.to_string(),
    }
}

fn node_of(i: usize, g: &GenNode) -> NodeInfo {
    let &(cpu, pods, cordoned, taint, zone, not_ready) = g;
    let mut n = NodeInfo::new(
        &format!("n{i}"),
        ResourceList::from_pairs(&[("cpu", cpu * 1000), ("memory", 8 << 30), ("pods", pods), ("example.com/gpu", 1)]),
    );
    n.labels = [("kubernetes.io/hostname", format!("n{i}")), ("zone", format!("z{zone}"))]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    // PodTopologySpread's system defaults read the well-known zone label;
    // every fourth node lacks it (the zone `""`).
    if i % 4 != 3 {
        n.labels.insert("topology.kubernetes.io/zone".into(), format!("z{zone}"));
    }
    n.unschedulable = cordoned;
    n.ready = Some(!not_ready);
    match taint {
        1 => n.taints.push(Taint::new("dedicated", "db", TaintEffect::NoSchedule)),
        2 => n.taints.push(Taint::new("spot", "", TaintEffect::PreferNoSchedule)),
        _ => {}
    }
    n
}

fn pod_of(g: &GenPod) -> PodInfo {
    let &(node, cpu, mem, gpu, app, bits, name, terminal) = g;
    let bit = |b: u16| bits & (1 << b) != 0;
    // Bits 0-2 pick features rarely enough that most pods are plain.
    let mut p = PodInfo::new(if bit(9) { "other" } else { "ns" }, &format!("p{name}"));
    p.uid = (!bit(3) || !bit(4)).then(|| format!("u{name}-{}", bits % 7));
    p.node_name = node.map(|n| format!("n{n}"));
    p.phase = Some(if terminal {
        PodPhase::Succeeded
    } else if node.is_some() {
        PodPhase::Running
    } else {
        PodPhase::Pending
    });
    p.labels.insert("app".into(), format!("a{app}"));
    // Two ReplicaSets (system default spreading), and a few pods with
    // topology spread constraints of their own.
    let rs = if bit(15) { "rs-b" } else { "rs" };
    p.owners = vec![OwnerRef {
        api_version: "apps/v1".into(),
        kind: "ReplicaSet".into(),
        name: rs.into(),
        uid: rs.into(),
        controller: true,
    }];
    let spread = |max_skew: i32, key: &str, when: &str| TopologySpreadConstraint {
        max_skew,
        topology_key: key.to_string(),
        when_unsatisfiable: when.to_string(),
        label_selector: Some(LabelSelector::from_labels(&[("app", &format!("a{app}"))])),
        ..TopologySpreadConstraint::default()
    };
    match name % 17 {
        0 => p.rare.topology_spread_constraints.push(spread(1, "topology.kubernetes.io/zone", "DoNotSchedule")),
        1 => p.rare.topology_spread_constraints.push(spread(1, "kubernetes.io/hostname", "ScheduleAnyway")),
        _ => {}
    }
    let mut req = ResourceList::new();
    if cpu > 100 {
        req.set("cpu", cpu);
    }
    if mem > 200 {
        req.set("memory", mem << 20);
    }
    if gpu {
        req.set("example.com/gpu", 1);
    }
    p.containers = vec![ContainerInfo::new("c", ContainerKind::App, req)];
    if bit(0) && bit(1) {
        p.tolerations.push(Toleration::equal("dedicated", "db", Some(TaintEffect::NoSchedule)));
    }
    if bit(2) && bit(5) {
        p.node_selector.insert("zone".into(), "z1".into());
    }
    if bit(6) && bit(7) && bit(8) {
        p.affinity.pod_anti_affinity.required.push(term(app, "kubernetes.io/hostname"));
    }
    if bit(10) && bit(11) && bit(12) {
        p.affinity.pod_affinity.required.push(term((app + 1) % 3, "zone"));
    }
    if bit(13) && bit(14) {
        p.affinity.pod_anti_affinity.preferred.push(WeightedPodAffinityTerm { weight: 50, term: term(app, "zone") });
    }
    if bit(15) && bit(1) && bit(2) {
        p.rare.host_ports.push(HostPort {
            container: "c".into(),
            port: 8080,
            protocol: "TCP".into(),
            host_ip: "0.0.0.0".into(),
        });
    }
    p.refresh_derived();
    p
}

/// A generated cluster: nodes and pods (bound, unbound, terminal).
pub(crate) fn arb_cluster() -> impl Strategy<Value = (Vec<NodeInfo>, Vec<PodInfo>)> {
    prop::collection::vec(gen_node(), 1..7).prop_flat_map(|nodes| {
        let n = nodes.len();
        prop::collection::vec(gen_pod(n), 0..45).prop_map(move |pods| {
            let nodes: Vec<NodeInfo> = nodes.iter().enumerate().map(|(i, g)| node_of(i, g)).collect();
            (nodes, pods.iter().map(pod_of).collect())
        })
    })
}

/// What [`pick_node`] says, as a [`Pick`].
fn reference_pick(state: &ClusterState, pod: &PodInfo) -> Option<Pick> {
    pick_node(state, pod).map(|p| {
        let runner_up = p.candidates.iter().find(|c| c.total < p.score).map(|c| (c.node.clone(), c.total));
        Pick { node: p.node, score: p.score, tie_with: p.tie_with, runner_up }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The unbound pods are placed one after the other (each bound where the
    /// reference picks it); before each placement the cache and the
    /// reference agree on the pick, the message, and every node's usage. The
    /// bound pods are offered too (the cluster then holds the pod itself).
    #[test]
    fn cache_picks_what_pick_node_picks((nodes, pods) in arb_cluster()) {
        let (incoming, present): (Vec<PodInfo>, Vec<PodInfo>) = pods.into_iter().partition(|p| p.node_name.is_none());
        let mut state = ClusterState::new(nodes.clone(), present.clone());
        let mut cache = SchedulerCache::new(&nodes, present.iter());
        for p in present.iter().take(5) {
            prop_assert_eq!(cache.pick(p), reference_pick(&state, p), "bound pod {}", p.key());
            prop_assert_eq!(cache.message(p), scheduler_message(&state, p));
        }
        for p in &incoming {
            let want = reference_pick(&state, p);
            prop_assert_eq!(cache.pick(p), want.clone(), "pod {}", p.key());
            prop_assert_eq!(cache.message(p), scheduler_message(&state, p), "pod {}", p.key());
            if let Some(w) = want {
                cache.bind(p, &w.node);
                let mut bound = p.clone();
                bound.node_name = Some(w.node.clone());
                bound.phase = Some(PodPhase::Running);
                state.pods.push(bound);
            }
            for n in &nodes {
                prop_assert_eq!(cache.usage(&n.name), state.usage(&n.name), "node {}", n.name);
            }
        }
    }
}

/// [`arb_cluster`] without inter-pod terms and PreferNoSchedule taints, so
/// that the other scores are the same on every node and the cache scans
/// the nodes in order, with PodTopologySpread's system default scores
/// from its index (`scheduler/default_spread.rs`).
fn arb_spread_cluster() -> impl Strategy<Value = (Vec<NodeInfo>, Vec<PodInfo>)> {
    arb_cluster().prop_map(|(mut nodes, mut pods)| {
        for n in &mut nodes {
            n.taints.retain(|t| t.effect != TaintEffect::PreferNoSchedule);
        }
        for p in &mut pods {
            p.affinity.pod_affinity = Default::default();
            p.affinity.pod_anti_affinity = Default::default();
        }
        (nodes, pods)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// As `cache_picks_what_pick_node_picks`, on clusters where the scan
    /// applies: the spread scores from the index are the reference's.
    #[test]
    fn cache_picks_what_pick_node_picks_with_default_spreading((nodes, pods) in arb_spread_cluster()) {
        let (incoming, present): (Vec<PodInfo>, Vec<PodInfo>) = pods.into_iter().partition(|p| p.node_name.is_none());
        let mut state = ClusterState::new(nodes.clone(), present.clone());
        let mut cache = SchedulerCache::new(&nodes, present.iter());
        for p in &incoming {
            let want = reference_pick(&state, p);
            prop_assert_eq!(cache.pick(p), want.clone(), "pod {}", p.key());
            if let Some(w) = want {
                cache.bind(p, &w.node);
                let mut bound = p.clone();
                bound.node_name = Some(w.node.clone());
                bound.phase = Some(PodPhase::Running);
                state.pods.push(bound);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// [`evaluate_with_sums`] with every pod that has neither host ports nor
    /// inter-pod terms (and is not the incoming pod) counted by its node's
    /// sums gives exactly what [`evaluate`] gives on the state listing every
    /// pod, for every incoming pod without required inter-pod terms; with
    /// such terms it declines.
    #[test]
    fn summed_pods_give_the_filters_verdicts_of_listed_pods((nodes, pods) in arb_cluster()) {
        let state = ClusterState::new(nodes.clone(), pods.clone());
        for incoming in pods.iter().take(8) {
            let summable = |p: &PodInfo| {
                p.rare.host_ports.is_empty() && !has_pod_affinity_terms(p) && !snapshot::same_pod(p, incoming)
            };
            let (summed_pods, listed): (Vec<PodInfo>, Vec<PodInfo>) = pods.iter().cloned().partition(summable);
            let by_node = NodePods::of(&summed_pods, nodes.len());
            let summed: SummedPods = by_node.nodes().map(|n| (n.to_string(), by_node.usage(n))).collect();
            let with_sums = evaluate_with_sums(&ClusterState::new(nodes.clone(), listed), &summed, incoming);
            let required = !incoming.affinity.pod_affinity.required.is_empty()
                || !incoming.affinity.pod_anti_affinity.required.is_empty()
                || incoming.rare.topology_spread_constraints.iter().any(|c| c.when_unsatisfiable == "DoNotSchedule");
            if required {
                prop_assert!(with_sums.is_none(), "pod {}", incoming.key());
            } else {
                prop_assert_eq!(with_sums, Some(evaluate(&state, incoming)), "pod {}", incoming.key());
            }
        }
    }
}
