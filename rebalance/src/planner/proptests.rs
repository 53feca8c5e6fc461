//! Property tests over generated clusters and policies.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::tests::{node, now, owner, pod};
use super::*;
use crate::model::node::{Taint, TaintEffect};
use crate::model::pod::{Toleration, Volume, VolumeSource};
use crate::policy::{
    DefaultEvictorArgs, EvictionLimits, LowNodeUtilizationArgs, Namespaces, NoEvictionPolicy, PluginArgs, PluginConfig,
    PodProtection, Profile,
};

/// What makes a generated pod special.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Normal,
    DaemonSet,
    Mirror,
    Static,
    Critical,
    Bare,
    LocalStorage,
    Terminating,
    /// Carries `descheduler.alpha.kubernetes.io/prefer-no-eviction`.
    PreferNoEviction,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        6 => Just(Kind::Normal),
        1 => Just(Kind::DaemonSet),
        1 => Just(Kind::Mirror),
        1 => Just(Kind::Static),
        1 => Just(Kind::Critical),
        1 => Just(Kind::Bare),
        1 => Just(Kind::LocalStorage),
        1 => Just(Kind::Terminating),
        1 => Just(Kind::PreferNoEviction),
    ]
}

#[derive(Debug, Clone)]
struct GenPod {
    node: usize,
    ns: usize,
    cpu: i64,
    mem: i64,
    priority: Option<i32>,
    kind: Kind,
    tolerate: bool,
}

fn gen_pod() -> impl Strategy<Value = GenPod> {
    (
        prop_oneof![2 => Just(0usize), 1 => 0usize..6],
        0usize..3,
        0i64..1500,
        0i64..2048,
        prop::option::of(-5i32..5),
        kind(),
        any::<bool>(),
    )
        .prop_map(|(node, ns, cpu, mem, priority, kind, tolerate)| GenPod {
            node,
            ns,
            cpu: cpu / 100 * 100,
            mem,
            priority,
            kind,
            tolerate,
        })
}

#[derive(Debug, Clone)]
struct GenNode {
    cpu: i64,
    pods: i64,
    unschedulable: bool,
    tainted: bool,
}

fn gen_node() -> impl Strategy<Value = GenNode> {
    (1i64..9, 4i64..30, prop::bool::weighted(0.15), prop::bool::weighted(0.2)).prop_map(|(c, pods, u, t)| GenNode {
        cpu: c * 1000,
        pods,
        unschedulable: u,
        tainted: t,
    })
}

#[derive(Debug, Clone)]
struct GenPolicy {
    low: f64,
    gap: f64,
    with_pods: bool,
    deviation: bool,
    total: Option<u32>,
    per_node: Option<u32>,
    per_ns: Option<u32>,
    plugin_node: Option<u32>,
    local_storage_disabled: bool,
    skip_zero: bool,
    /// `noEvictionPolicy: Mandatory`.
    mandatory: bool,
    /// `evictableNamespaces.exclude: [gamma]`.
    exclude_gamma: bool,
}

fn gen_policy() -> impl Strategy<Value = GenPolicy> {
    (
        (0u32..50, 0u32..40, any::<bool>(), prop::bool::weighted(0.3)),
        (
            prop::option::of(0u32..6),
            prop::option::of(0u32..4),
            prop::option::of(0u32..4),
            prop::option::of(0u32..4),
            any::<bool>(),
            any::<bool>(),
        ),
        (any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(
                (low, gap, with_pods, deviation),
                (total, per_node, per_ns, plugin_node, ls, skip_zero),
                (mandatory, exclude_gamma),
            )| {
                GenPolicy {
                    low: f64::from(low),
                    gap: f64::from(gap),
                    with_pods,
                    deviation,
                    total,
                    per_node,
                    per_ns,
                    plugin_node,
                    local_storage_disabled: ls,
                    skip_zero,
                    mandatory,
                    exclude_gamma,
                }
            },
        )
}

fn build(nodes: &[GenNode], pods: &[GenPod]) -> Snapshot {
    let names = ["n0", "n1", "n2", "n3", "n4", "n5"];
    let ns_names = ["alpha", "beta", "gamma"];
    let ns = nodes
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let mut n = node(names[i], g.cpu, 4096, g.pods);
            n.unschedulable = g.unschedulable;
            if g.tainted {
                n.taints = vec![Taint::new("dedicated", "x", TaintEffect::NoSchedule)];
            }
            n
        })
        .collect();
    let ps = pods
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let node = names[g.node % nodes.len()];
            let mut p = pod(ns_names[g.ns], &format!("p{i}"), node, g.cpu, g.mem);
            p.priority = g.priority;
            if g.tolerate {
                p.tolerations = vec![Toleration::exists("dedicated", None)];
            }
            match g.kind {
                Kind::Normal => {}
                Kind::DaemonSet => p.owners = vec![owner("DaemonSet", "ds")],
                Kind::Mirror => {
                    p.annotations.insert("kubernetes.io/config.mirror".into(), "m".into());
                }
                Kind::Static => {
                    p.annotations.insert("kubernetes.io/config.source".into(), "file".into());
                }
                Kind::Critical => p.priority = Some(SYSTEM_CRITICAL_PRIORITY),
                Kind::Bare => p.owners.clear(),
                Kind::LocalStorage => {
                    p.volumes = vec![Volume { name: "tmp".into(), source: VolumeSource::EmptyDir { medium: None } }]
                }
                Kind::Terminating => p.rare.deletion_timestamp = Some(now()),
                Kind::PreferNoEviction => {
                    p.annotations.insert(PREFER_NO_EVICTION.into(), "true".into());
                }
            }
            p
        })
        .collect();
    Snapshot::new(ns, ps, now())
}

fn policy(g: &GenPolicy) -> Policy {
    let mut thresholds = BTreeMap::from([("cpu".to_string(), g.low)]);
    let mut targets = BTreeMap::from([("cpu".to_string(), (g.low + g.gap).min(100.0))]);
    if g.with_pods {
        thresholds.insert("pods".into(), g.low);
        targets.insert("pods".into(), (g.low + g.gap).min(100.0));
    }
    let args = LowNodeUtilizationArgs {
        thresholds,
        target_thresholds: targets,
        use_deviation_thresholds: g.deviation,
        eviction_limits: g.plugin_node.map(|n| EvictionLimits { node: Some(n) }),
        evictable_namespaces: g
            .exclude_gamma
            .then(|| Namespaces { exclude: vec!["gamma".into()], ..Default::default() }),
        ..Default::default()
    };
    let mut evictor = DefaultEvictorArgs::default();
    if g.mandatory {
        evictor.no_eviction_policy = Some(NoEvictionPolicy::Mandatory);
    }
    if g.local_storage_disabled {
        evictor.pod_protections.default_disabled = vec![PodProtection::PodsWithLocalStorage];
    }
    let mut profile = Profile { name: "p".into(), ..Default::default() };
    profile.plugin_config = vec![
        PluginConfig { name: "DefaultEvictor".into(), args: PluginArgs::DefaultEvictor(Box::new(evictor)) },
        PluginConfig { name: "LowNodeUtilization".into(), args: PluginArgs::LowNodeUtilization(Box::new(args)) },
    ];
    profile.plugins.balance.enabled = vec!["LowNodeUtilization".into()];
    Policy {
        profiles: vec![profile],
        max_no_of_pods_to_evict_total: g.total,
        max_no_of_pods_to_evict_per_node: g.per_node,
        max_no_of_pods_to_evict_per_namespace: g.per_ns,
        ..Default::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn plans_respect_protections_limits_and_budget(
        nodes in prop::collection::vec(gen_node(), 2..6),
        pods in prop::collection::vec(gen_pod(), 0..48),
        g in gen_policy(),
    ) {
        let snapshot = build(&nodes, &pods);
        let pol = policy(&g);
        let opts = PlanOptions { skip_zero_request: g.skip_zero, ..Default::default() };
        let p = plan(&snapshot, &pol, &opts);
        prop_assert!(p.aborted.is_none(), "{:?}", p.aborted);

        // Same input, same plan.
        prop_assert_eq!(&p, &plan(&snapshot, &pol, &opts));

        let mut per_node: BTreeMap<&str, u32> = BTreeMap::new();
        let mut per_ns: BTreeMap<&str, u32> = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for e in p.evictions() {
            let pod = &snapshot.pods[e.pod.index];
            let kind = pods[e.pod.index].kind;
            // No protected pod is ever planned.
            let protected = matches!(kind, Kind::DaemonSet | Kind::Mirror | Kind::Static | Kind::Critical | Kind::Bare | Kind::Terminating)
                || (kind == Kind::LocalStorage && !g.local_storage_disabled)
                || (kind == Kind::PreferNoEviction && g.mandatory)
                || (pod.namespace == "gamma" && g.exclude_gamma);
            prop_assert!(!protected, "protected pod {:?} ({:?}) planned", pod.name, kind);
            prop_assert!(seen.insert(e.pod.index), "pod planned twice");
            // The budget was positive on every resource when the pod was chosen.
            let before = e.budget_after.plus(&e.frees);
            prop_assert!(before.iter().all(|(_, v)| v > 0), "budget before eviction {:?}", before);
            *per_node.entry(e.source_node.as_str()).or_insert(0) += 1;
            *per_ns.entry(pod.namespace.as_str()).or_insert(0) += 1;
        }
        // Limits are never exceeded.
        let total = p.evictions_total as u32;
        if let Some(t) = g.total { prop_assert!(total <= t); }
        for n in per_node.values() {
            if let Some(m) = g.per_node { prop_assert!(*n <= m); }
            if let Some(m) = g.plugin_node { prop_assert!(*n <= m); }
        }
        if let Some(m) = g.per_ns { prop_assert!(per_ns.values().all(|n| *n <= m)); }

        for run in &p.runs {
            // Nothing is evicted from a budget that starts at or below zero (an
            // underutilized node can hold more than its allocatable of an
            // untracked-threshold resource), and the budget goes down by exactly
            // what each eviction frees.
            if let Some(b) = &run.budget {
                if b.initial.iter().any(|(_, v)| v <= 0) {
                    prop_assert!(run.evictions.is_empty(), "evicted with budget {:?}", b.initial);
                }
                let mut left = b.initial.clone();
                for e in &run.evictions {
                    left = left.minus(&e.frees);
                    prop_assert_eq!(&left, &e.budget_after);
                }
                prop_assert_eq!(&left, &b.remaining);
            } else {
                prop_assert!(run.evictions.is_empty());
            }
            let class: BTreeMap<&str, NodeClass> = run.nodes.iter().map(|n| (n.name.as_str(), n.class)).collect();
            // Unschedulable nodes are never underutilized.
            for n in &run.nodes {
                if n.unschedulable { prop_assert_ne!(n.class, NodeClass::Underutilized); }
            }
            // Evictions leave overutilized nodes only.
            for e in &run.evictions {
                prop_assert_eq!(class[e.source_node.as_str()], NodeClass::Overutilized);
            }
            // Every pod on a source node is evicted or skipped, exactly once.
            for s in &run.source_nodes {
                let on_node = snapshot.pods.iter().filter(|x| x.counts_toward_usage() && x.node_name.as_deref() == Some(s.node.as_str())).count();
                let accounted = run.evictions.iter().filter(|e| e.source_node == s.node).count()
                    + run.skipped.iter().filter(|k| k.node == s.node).count();
                prop_assert_eq!(on_node, accounted);
                prop_assert_eq!(s.removable + s.non_removable, on_node);
            }
        }
    }

    #[test]
    fn classification_from_summed_requests_is_the_plans(
        // One node: the cycle aborts (descheduler needs two), in both.
        nodes in prop::collection::vec(gen_node(), 1..6),
        pods in prop::collection::vec(gen_pod(), 0..48),
        g in gen_policy(),
    ) {
        let snapshot = build(&nodes, &pods);
        let pol = policy(&g);
        let p = plan(&snapshot, &pol, &PlanOptions::default());
        // Each node's usage as `kdrift skew` reads it from the store: summed requests, `pods` = count.
        let mut usage: BTreeMap<String, crate::model::resources::ResourceList> = BTreeMap::new();
        for pod in snapshot.pods.iter().filter(|x| x.counts_toward_usage()) {
            let Some(node) = pod.node_name.clone() else { continue };
            let used = usage.entry(node).or_default();
            used.add(&pod.requests);
            used.set(crate::model::resources::PODS, used.get(crate::model::resources::PODS) + 1);
        }
        let c = classify_nodes(snapshot.nodes.clone(), &usage, &pol);
        prop_assert_eq!(&c.aborted, &p.aborted);
        prop_assert_eq!(&c.nodes_considered, &p.nodes_considered);
        prop_assert_eq!(&c.nodes_excluded, &p.nodes_excluded);
        prop_assert_eq!(c.runs.len(), p.runs.len());
        for (a, b) in c.runs.iter().zip(&p.runs) {
            prop_assert_eq!(&a.thresholds, &b.thresholds);
            prop_assert_eq!(&a.tracked_resources, &b.tracked_resources);
            prop_assert_eq!(&a.nodes, &b.nodes);
            prop_assert_eq!(&a.early_exit, &b.early_exit);
            prop_assert!(a.evictions.is_empty() && a.budget.is_none());
        }
    }
}

/// Every v0.36 plugin in one cycle (issue 36): the Deschedule plugins and
/// RemoveDuplicates, TopologySpread and LowNodeUtilization in profile `p`,
/// HighNodeUtilization in profile `pack`; the generated DefaultEvictor and
/// limits.
fn whole_policy(g: &GenPolicy) -> Policy {
    let mut pol = policy(g);
    let text = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: x
    pluginConfig:
      - {name: RemovePodsViolatingNodeAffinity, args: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}}
      - {name: RemovePodsViolatingNodeTaints}
      - {name: RemovePodsViolatingInterPodAntiAffinity}
      - {name: PodLifeTime, args: {maxPodLifeTimeSeconds: 86400}}
      - {name: RemoveFailedPods}
      - {name: RemovePodsHavingTooManyRestarts, args: {podRestartThreshold: 100}}
      - {name: RemoveDuplicates}
      - {name: RemovePodsViolatingTopologySpreadConstraint}
      - {name: HighNodeUtilization, args: {thresholds: {cpu: 20}}}
";
    let extra = Policy::from_yaml(text).expect("valid");
    let mut configs = extra.profiles[0].plugin_config.clone();
    let hnu = configs.pop().expect("HighNodeUtilization");
    let p = &mut pol.profiles[0];
    let evictor = p.plugin_config[0].clone();
    p.plugin_config.extend(configs);
    p.plugins.deschedule.enabled = [
        "RemovePodsViolatingNodeAffinity",
        "RemovePodsViolatingNodeTaints",
        "RemovePodsViolatingInterPodAntiAffinity",
        "PodLifeTime",
        "RemoveFailedPods",
        "RemovePodsHavingTooManyRestarts",
    ]
    .map(String::from)
    .to_vec();
    p.plugins.balance.enabled =
        ["RemoveDuplicates", "RemovePodsViolatingTopologySpreadConstraint", "LowNodeUtilization"]
            .map(String::from)
            .to_vec();
    let mut pack = Profile { name: "pack".into(), plugin_config: vec![evictor, hnu], ..Default::default() };
    pack.plugins.balance.enabled = vec!["HighNodeUtilization".into()];
    pol.profiles.push(pack);
    pol
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The whole policy never plans a protected pod, never exceeds a cycle
    /// limit summed over every plugin and profile, never evicts a pod twice,
    /// and plans the same twice.
    #[test]
    fn the_whole_policy_respects_protections_and_shared_limits(
        nodes in prop::collection::vec(gen_node(), 2..6),
        pods in prop::collection::vec(gen_pod(), 0..48),
        g in gen_policy(),
    ) {
        let mut snapshot = build(&nodes, &pods);
        // Give the rule plugins something: old pods, restarting pods, images.
        for (i, p) in snapshot.pods.iter_mut().enumerate() {
            p.images = vec![format!("img-{}", i % 4)];
            if i % 3 == 0 {
                p.creation_timestamp = Some(now() - chrono::Duration::days(3));
            }
            if i % 5 == 0 {
                p.status = Some(Box::new(crate::model::pod::PodStatusInfo {
                    containers: vec![crate::model::pod::ContainerStatus {
                        name: "c".into(),
                        restart_count: 200,
                        ..Default::default()
                    }],
                    ..Default::default()
                }));
            }
        }
        let pol = whole_policy(&g);
        prop_assert!(pol.validate().is_ok(), "{:?}", pol.validate());
        let opts = PlanOptions::default();
        let p = plan(&snapshot, &pol, &opts);
        prop_assert!(p.aborted.is_none(), "{:?}", p.aborted);
        prop_assert_eq!(&p, &plan(&snapshot, &pol, &opts));
        let mut per_node: BTreeMap<&str, u32> = BTreeMap::new();
        let mut per_ns: BTreeMap<&str, u32> = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for e in p.evictions().filter(|e| e.refused_by_pdb.is_none()) {
            let pod = &snapshot.pods[e.pod.index];
            let kind = pods[e.pod.index].kind;
            let protected = matches!(kind, Kind::DaemonSet | Kind::Mirror | Kind::Static | Kind::Critical | Kind::Bare | Kind::Terminating)
                || (kind == Kind::LocalStorage && !g.local_storage_disabled)
                || (kind == Kind::PreferNoEviction && g.mandatory);
            prop_assert!(!protected, "protected pod {} ({:?}) planned by {}", pod.name, kind, e.plugin);
            prop_assert!(seen.insert(e.pod.index), "{} planned twice (again by {})", pod.name, e.plugin);
            *per_node.entry(e.source_node.as_str()).or_insert(0) += 1;
            *per_ns.entry(pod.namespace.as_str()).or_insert(0) += 1;
        }
        let total: u32 = per_node.values().sum();
        if let Some(t) = g.total { prop_assert!(total <= t, "{total} > total {t}"); }
        if let Some(m) = g.per_node { prop_assert!(per_node.values().all(|n| *n <= m), "{per_node:?} > {m}"); }
        if let Some(m) = g.per_ns { prop_assert!(per_ns.values().all(|n| *n <= m), "{per_ns:?} > {m}"); }
        // Deschedule runs come before every Balance run.
        let points: Vec<_> = p.runs.iter().map(|r| r.extension_point).collect();
        prop_assert!(points.windows(2).all(|w| w[0] <= w[1]));
    }
}
