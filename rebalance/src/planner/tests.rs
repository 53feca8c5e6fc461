//! Planner tests: upstream vectors, boundaries, budget, limits, taints, profiles.

use std::collections::BTreeMap;

use chrono::{TimeZone, Utc};

use super::*;
use crate::model::node::{Taint, TaintEffect};
use crate::model::pod::qos::QosClass;
use crate::model::pod::{ContainerInfo, ContainerKind, OwnerRef, PodPhase, Toleration, Volume, VolumeSource};
use crate::model::resources::ResourceList;
use crate::policy::{
    DefaultEvictorArgs, EvictionLimits, LowNodeUtilizationArgs, Namespaces, PluginArgs, PluginConfig, Profile,
};

pub(crate) const MI: i64 = 1024 * 1024;

pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).single().expect("valid time")
}

pub(crate) fn node(name: &str, cpu: i64, memory: i64, pods: i64) -> NodeInfo {
    NodeInfo::new(name, ResourceList::from_pairs(&[("cpu", cpu), ("memory", memory), ("pods", pods)]))
}

pub(crate) fn owner(kind: &str, name: &str) -> OwnerRef {
    OwnerRef {
        api_version: "apps/v1".into(),
        kind: kind.into(),
        name: name.into(),
        uid: format!("{kind}-{name}"),
        controller: true,
    }
}

/// A running ReplicaSet pod with the given requests (Burstable; BestEffort when none).
pub(crate) fn pod(ns: &str, name: &str, node: &str, cpu: i64, memory: i64) -> PodInfo {
    let mut p = PodInfo::new(ns, name);
    p.node_name = Some(node.into());
    p.phase = Some(PodPhase::Running);
    p.uid = Some(format!("uid-{ns}-{name}"));
    p.owners = vec![owner("ReplicaSet", "rs")];
    p.creation_timestamp = Some(now() - chrono::Duration::hours(1));
    let mut req = ResourceList::new();
    if cpu > 0 {
        req.set("cpu", cpu);
    }
    if memory > 0 {
        req.set("memory", memory);
    }
    p.containers = vec![ContainerInfo::new("c", ContainerKind::App, req)];
    p.refresh_derived();
    p
}

pub(crate) fn lnu(thresholds: &[(&str, f64)], targets: &[(&str, f64)]) -> LowNodeUtilizationArgs {
    let m = |pairs: &[(&str, f64)]| pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>();
    LowNodeUtilizationArgs { thresholds: m(thresholds), target_thresholds: m(targets), ..Default::default() }
}

pub(crate) fn policy_with(evictor: DefaultEvictorArgs, args: LowNodeUtilizationArgs) -> Policy {
    let mut profile = Profile { name: "test".into(), ..Default::default() };
    profile.plugin_config = vec![
        PluginConfig { name: "DefaultEvictor".into(), args: PluginArgs::DefaultEvictor(Box::new(evictor)) },
        PluginConfig { name: "LowNodeUtilization".into(), args: PluginArgs::LowNodeUtilization(Box::new(args)) },
    ];
    profile.plugins.balance.enabled = vec!["LowNodeUtilization".into()];
    Policy { profiles: vec![profile], ..Default::default() }
}

pub(crate) fn run_of(plan: &Plan) -> &PluginRun {
    plan.runs.first().expect("one run")
}

fn evicted(plan: &Plan) -> Vec<String> {
    plan.evictions().map(|e| e.pod.name.clone()).collect()
}

fn skip_of<'a>(plan: &'a Plan, name: &str) -> &'a SkippedPod {
    plan.runs
        .iter()
        .flat_map(|r| r.skipped.iter())
        .find(|s| s.pod.name == name)
        .unwrap_or_else(|| panic!("{name} not skipped: {:#?}", plan))
}

/// The cluster of descheduler's `lownodeutilization_test.go` ("without
/// priorities"): n1 with 8 pods of 400m (p1–p5 ReplicaSet, p6 DaemonSet, p7
/// mirror with local storage, p8 system-critical), n2 with one, n3 cordoned.
fn upstream_cluster() -> Snapshot {
    let n1 = node("n1", 4000, 3000, 9);
    let n2 = node("n2", 4000, 3000, 10);
    let mut n3 = node("n3", 4000, 3000, 10);
    n3.unschedulable = true;
    let mut pods: Vec<PodInfo> = (1..=5).map(|i| pod("default", &format!("p{i}"), "n1", 400, 0)).collect();
    let mut p6 = pod("default", "p6", "n1", 400, 0);
    p6.owners = vec![owner("DaemonSet", "ds")];
    let mut p7 = pod("kube-system", "p7", "n1", 400, 0);
    p7.annotations.insert("kubernetes.io/config.mirror".into(), "x".into());
    p7.annotations.insert("kubernetes.io/config.source".into(), "file".into());
    p7.volumes = vec![Volume { name: "data".into(), source: VolumeSource::EmptyDir { medium: None } }];
    let mut p8 = pod("kube-system", "p8", "n1", 400, 0);
    p8.priority = Some(SYSTEM_CRITICAL_PRIORITY);
    pods.extend([p6, p7, p8, pod("default", "p9", "n2", 400, 0)]);
    Snapshot::new(vec![n1, n2, n3], pods, now())
}

#[test]
fn upstream_vector_evicts_four() {
    let policy =
        policy_with(Default::default(), lnu(&[("cpu", 30.0), ("pods", 30.0)], &[("cpu", 50.0), ("pods", 50.0)]));
    let plan = plan(&upstream_cluster(), &policy, &PlanOptions::default());
    assert_eq!(plan.evictions_total, 4, "{plan:#?}");
    assert_eq!(evicted(&plan), ["p1", "p2", "p3", "p4"]);
    let run = run_of(&plan);
    let classes: Vec<NodeClass> = run.nodes.iter().map(|n| n.class).collect();
    assert_eq!(classes, [NodeClass::Overutilized, NodeClass::Underutilized, NodeClass::AppropriatelyUtilized]);
    assert_eq!(run.nodes[2].why, "Node is unschedulable, thus not considered as underutilized");
    let budget = run.budget.as_ref().expect("budget");
    assert_eq!(budget.initial, ResourceList::from_pairs(&[("cpu", 1600), ("memory", 3000), ("pods", 4)]));
    assert_eq!(budget.remaining, ResourceList::from_pairs(&[("cpu", 0), ("memory", 3000), ("pods", 0)]));
    assert_eq!(skip_of(&plan, "p6").message, "daemonset pods are protected against eviction");
    assert_eq!(
        skip_of(&plan, "p7").message,
        "[pod is a mirror pod, pod is a static pod, pod has local storage and is protected against eviction] — static \
         pod from n1's kubelet manifest: deleting its mirror would not stop it"
    );
    assert_eq!(
        skip_of(&plan, "p8").message,
        "[pod has system critical priority and is protected against eviction, pod has higher priority than specified priority class threshold]"
    );
    // After four evictions n1 is at 1600m <= 2000m and 4 pods <= 4 (and the
    // budget is spent too); the node check comes first upstream.
    assert_eq!(skip_of(&plan, "p5").reason, SkipReason::NotReached { stop: StopReason::NoLongerAboveTarget });
    let n1 = &run.nodes[0];
    let cpu = n1.resources.iter().find(|r| r.resource == "cpu").expect("cpu");
    assert_eq!((cpu.used, cpu.percent, cpu.cap), (3200, 80.0, 2000));
    let pods = n1.resources.iter().find(|r| r.resource == "pods").expect("pods");
    assert_eq!(pods.cap, 4); // int64(50 * 0.01 * 9)
    assert!(serde_json::to_string(&plan).is_ok());
    let first = plan.evictions().next().expect("an eviction");
    assert!(
        first.rule.starts_with("#1 of 5 removable pods on n1: lowest priority first (no priority"),
        "{}",
        first.rule
    );
    assert_eq!(first.budget_after, ResourceList::from_pairs(&[("cpu", 1200), ("memory", 3000), ("pods", 3)]));
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
}

#[test]
fn upstream_deviation_vector_evicts_two() {
    let mut args = lnu(&[("cpu", 5.0), ("pods", 5.0)], &[("cpu", 5.0), ("pods", 5.0)]);
    args.use_deviation_thresholds = true;
    let plan = plan(&upstream_cluster(), &policy_with(Default::default(), args), &PlanOptions::default());
    assert_eq!(plan.evictions_total, 2, "{plan:#?}");
    let run = run_of(&plan);
    let avg = run.thresholds.averages.as_ref().expect("averages");
    assert_eq!(avg.get("cpu").copied(), Some(30.0));
    assert!((avg["pods"] - 32.96).abs() < 0.01);
    assert_eq!(run.thresholds.high.get("cpu").copied(), Some(35.0));
    let budget = run.budget.as_ref().expect("budget");
    assert_eq!(budget.initial.get("cpu"), 1000);
    assert_eq!(budget.initial.get("pods"), 2);
}

fn two_nodes(cpu_on_a: &[i64]) -> Snapshot {
    let pods = cpu_on_a.iter().enumerate().map(|(i, c)| pod("default", &format!("a{i}"), "a", *c, 0)).collect();
    Snapshot::new(vec![node("a", 1000, 1024 * MI, 110), node("b", 1000, 1024 * MI, 110)], pods, now())
}

#[test]
fn classification_boundaries() {
    let class = |cpu: i64, low: f64, high: f64| {
        let p = plan(
            &two_nodes(&[cpu]),
            &policy_with(Default::default(), lnu(&[("cpu", low)], &[("cpu", high)])),
            &PlanOptions::default(),
        );
        run_of(&p).nodes[0].class
    };
    // Exactly 20.0 % with threshold 20 is underutilized (inclusive).
    assert_eq!(class(200, 20.0, 50.0), NodeClass::Underutilized);
    assert_eq!(class(201, 20.0, 50.0), NodeClass::AppropriatelyUtilized);
    // Exactly the target is not overutilized (strict >).
    assert_eq!(class(500, 20.0, 50.0), NodeClass::AppropriatelyUtilized);
    assert_eq!(class(501, 20.0, 50.0), NodeClass::Overutilized);
    // Float thresholds.
    assert_eq!(class(205, 20.5, 50.0), NodeClass::Underutilized);
}

#[test]
fn budget_uses_truncated_caps() {
    // b: 3000m cpu, target 29 % → cap 869; 58 % of 100 pods → 57.
    let nodes = vec![node("a", 3000, 1024 * MI, 100), node("b", 3000, 1024 * MI, 100)];
    let pods = vec![pod("default", "x", "a", 2900, 0)];
    let p = plan(
        &Snapshot::new(nodes, pods, now()),
        &policy_with(Default::default(), lnu(&[("cpu", 10.0), ("pods", 10.0)], &[("cpu", 29.0), ("pods", 58.0)])),
        &PlanOptions::default(),
    );
    let b = run_of(&p).budget.as_ref().expect("budget");
    assert_eq!(b.initial.get("cpu"), 869);
    assert_eq!(b.initial.get("pods"), 57);
}

#[test]
fn unschedulable_node_is_never_underutilized() {
    let mut s = two_nodes(&[900]);
    s.nodes[1].unschedulable = true;
    let p =
        plan(&s, &policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)])), &PlanOptions::default());
    let run = run_of(&p);
    assert_eq!(run.nodes[1].class, NodeClass::AppropriatelyUtilized);
    assert_eq!(run.early_exit.as_ref().map(|e| e.kind), Some(EarlyExitKind::NoUnderutilizedNode));
    assert_eq!(
        run.early_exit.as_ref().map(|e| e.message.as_str()),
        Some("No node is underutilized, nothing to do here, you might tune your thresholds further")
    );
    assert_eq!(p.evictions_total, 0);
}

#[test]
fn early_exits_in_order() {
    let pol = |n: i64| {
        let mut a = lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]);
        a.number_of_nodes = n;
        policy_with(Default::default(), a)
    };
    let kind =
        |s: &Snapshot, n: i64| run_of(&plan(s, &pol(n), &PlanOptions::default())).early_exit.as_ref().map(|e| e.kind);
    assert_eq!(kind(&two_nodes(&[900]), 1), Some(EarlyExitKind::TooFewUnderutilizedNodes));
    assert_eq!(kind(&two_nodes(&[100]), 0), Some(EarlyExitKind::AllNodesUnderutilized));
    assert_eq!(kind(&two_nodes(&[300]), 0), Some(EarlyExitKind::NoOverutilizedNode));
    assert_eq!(kind(&two_nodes(&[900]), 0), None);
    let p = plan(&two_nodes(&[300]), &pol(0), &PlanOptions::default());
    assert_eq!(
        run_of(&p).early_exit.as_ref().map(|e| e.message.as_str()),
        Some("All nodes are under target utilization, nothing to do here")
    );
    let mut one = two_nodes(&[900]);
    one.nodes[1].ready = Some(false);
    let p = plan(&one, &pol(0), &PlanOptions::default());
    assert_eq!(p.aborted.as_deref(), Some("Skipping descheduling cycle: requires >=2 nodes"));
    assert_eq!(
        p.too_few_nodes().as_deref(),
        Some(
            "descheduler skips its cycle when fewer than 2 nodes are Ready and match the nodeSelector, and only \
             a is (left out: b: not Ready): nothing is classified or evicted, whatever the thresholds (\"Skipping descheduling cycle: \
             requires >=2 nodes\")"
        ),
        "{:?}",
        p.nodes_considered
    );
    assert_eq!(p.nodes_excluded[0].reason, "not Ready");
}

#[test]
fn excluded_namespaces_count_but_are_not_evicted() {
    let mut s = two_nodes(&[]);
    s.pods.push(pod("kube-system", "k", "a", 900, 0));
    let mut args = lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]);
    args.evictable_namespaces = Some(Namespaces { include: vec![], exclude: vec!["kube-system".into()] });
    let p = plan(&s, &policy_with(Default::default(), args), &PlanOptions::default());
    assert_eq!(run_of(&p).nodes[0].class, NodeClass::Overutilized);
    assert_eq!(skip_of(&p, "k").reason, SkipReason::ExcludedNamespace);
}

#[test]
fn taint_toleration_of_underutilized_nodes() {
    let mut s = two_nodes(&[]);
    s.nodes[1].taints = vec![Taint::new("dedicated", "gpu", TaintEffect::PreferNoSchedule)];
    s.pods.push(pod("default", "plain", "a", 450, 0));
    let mut tol = pod("default", "tolerant", "a", 450, 0);
    tol.tolerations = vec![Toleration::equal("dedicated", "gpu", None)];
    s.pods.push(tol);
    let p =
        plan(&s, &policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)])), &PlanOptions::default());
    // PreferNoSchedule counts too.
    assert_eq!(skip_of(&p, "plain").message, "Skipping eviction for pod, doesn't tolerate node taint");
    assert_eq!(evicted(&p), ["tolerant"]);
    // Upstream also wants at least as many tolerations as the node has taints.
    let mut s2 = two_nodes(&[]);
    s2.nodes[1].taints =
        vec![Taint::new("x", "", TaintEffect::NoSchedule), Taint::new("y", "", TaintEffect::NoSchedule)];
    let mut wild = pod("default", "wild", "a", 900, 0);
    wild.tolerations = vec![Toleration::exists("", None)];
    s2.pods.push(wild);
    let p =
        plan(&s2, &policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)])), &PlanOptions::default());
    assert_eq!(skip_of(&p, "wild").reason, SkipReason::UntoleratedTaints);
}

fn many(n: usize, ns: impl Fn(usize) -> String, node_name: &str) -> Vec<PodInfo> {
    (0..n).map(|i| pod(&ns(i), &format!("{node_name}-{i}"), node_name, 100, 0)).collect()
}

fn busy_cluster() -> Snapshot {
    // a and c are 100 % full of 100m pods; b and d are empty with plenty of room.
    let nodes = vec![
        node("a", 1000, 1024 * MI, 110),
        node("b", 8000, 1024 * MI, 110),
        node("c", 1000, 1024 * MI, 110),
        node("d", 8000, 1024 * MI, 110),
    ];
    let mut pods = many(10, |i| if i % 2 == 0 { "x".into() } else { "y".into() }, "a");
    pods.extend(many(10, |_| "z".into(), "c"));
    Snapshot::new(nodes, pods, now())
}

#[test]
fn limits_total_node_namespace_and_plugin_node() {
    let base = || lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]);
    let unlimited = plan(&busy_cluster(), &policy_with(Default::default(), base()), &PlanOptions::default());
    assert_eq!(unlimited.evictions_total, 10); // 5 from each node gets it to 50 %
                                               // Total.
    let mut pol = policy_with(Default::default(), base());
    pol.max_no_of_pods_to_evict_total = Some(3);
    let p = plan(&busy_cluster(), &pol, &PlanOptions::default());
    assert_eq!(p.evictions_total, 3);
    let run = run_of(&p);
    assert_eq!(run.source_nodes[0].stop, StopReason::MaxTotal);
    assert_eq!(run.source_nodes[1].stop, StopReason::NotVisited);
    assert!(run.skipped.iter().any(|s| s.reason == SkipReason::MaxTotal
        && s.message == "maximum number of evicted pods per a descheduling cycle reached"));
    // Per node.
    let mut pol = policy_with(Default::default(), base());
    pol.max_no_of_pods_to_evict_per_node = Some(2);
    let p = plan(&busy_cluster(), &pol, &PlanOptions::default());
    assert_eq!(p.evictions_total, 4);
    assert!(run_of(&p).source_nodes.iter().all(|s| s.stop == StopReason::MaxPerNode && s.evicted == 2));
    // `rebalance explain` of a pod kept there names the limit and who used
    // it (new-user trial 43: the words alone did not).
    let kept = run_of(&p).skipped.iter().find(|s| s.node == "a").expect("a pod kept on a").pod.index;
    let on_a: Vec<String> = p.evictions().filter(|e| e.source_node == "a").map(|e| e.pod.key()).collect();
    let e = crate::planner::explain_pod(&busy_cluster(), &pol, &PlanOptions::default(), kept);
    match &e.plugins[0].verdict {
        crate::planner::PodVerdict::Keeps { limit, .. } => assert_eq!(
            limit.as_deref(),
            Some(
                format!("maxNoOfPodsToEvictPerNode 2 on a, used by LowNodeUtilization (test): {}", on_a.join(", "))
                    .as_str()
            )
        ),
        other => panic!("{other:?}"),
    }
    // Per namespace: x, y on a; z on c.
    let mut pol = policy_with(Default::default(), base());
    pol.max_no_of_pods_to_evict_per_namespace = Some(1);
    let p = plan(&busy_cluster(), &pol, &PlanOptions::default());
    let namespaces: Vec<String> = p.evictions().map(|e| e.pod.namespace.clone()).collect();
    assert_eq!(namespaces, ["x", "y", "z"]);
    assert!(run_of(&p).skipped.iter().any(|s| s.reason == SkipReason::MaxPerNamespace));
    // evictionLimits.node.
    let mut args = base();
    args.eviction_limits = Some(EvictionLimits { node: Some(1) });
    let p = plan(&busy_cluster(), &policy_with(Default::default(), args), &PlanOptions::default());
    assert_eq!(p.evictions_total, 2);
    assert!(run_of(&p).source_nodes.iter().all(|s| s.stop == StopReason::PluginNodeLimit { limit: 1 }));
    // A pod of an excluded namespace after the limit is said excluded (the
    // reason that holds whatever the limits), the others not reached.
    let mut args = base();
    args.eviction_limits = Some(EvictionLimits { node: Some(1) });
    args.evictable_namespaces = Some(Namespaces { include: vec![], exclude: vec!["y".into()] });
    let p = plan(&busy_cluster(), &policy_with(Default::default(), args), &PlanOptions::default());
    let on_a: Vec<(&str, &SkipReason)> =
        run_of(&p).skipped.iter().filter(|s| s.node == "a").map(|s| (s.pod.namespace.as_str(), &s.reason)).collect();
    assert_eq!(on_a.len(), 9, "{on_a:?}");
    assert!(on_a.iter().all(|(ns, r)| (*ns == "y") == (**r == SkipReason::ExcludedNamespace)), "{on_a:?}");
    assert_eq!(on_a.iter().filter(|(ns, _)| *ns == "y").count(), 5, "{on_a:?}");
}

#[test]
fn skip_zero_request_spares_best_effort_pods() {
    let mut s = two_nodes(&[900]);
    s.pods.push(pod("default", "be", "a", 0, 0));
    assert_eq!(s.pods[1].qos, QosClass::BestEffort);
    let pol = policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]));
    let upstream = plan(&s, &pol, &PlanOptions::default());
    assert_eq!(evicted(&upstream), ["be", "a0"]);
    let opts = PlanOptions { skip_zero_request: true, ..Default::default() };
    let p = plan(&s, &pol, &opts);
    assert_eq!(evicted(&p), ["a0"]);
    assert_eq!(skip_of(&p, "be").reason, SkipReason::FreesNothing { over: vec!["cpu".into()] });
}

#[test]
fn second_profile_does_not_evict_again() {
    let mut pol = policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]));
    let mut second = pol.profiles[0].clone();
    second.name = "again".into();
    pol.profiles.push(second);
    let p = plan(&two_nodes(&[300, 300, 300]), &pol, &PlanOptions::default());
    assert_eq!(p.runs.len(), 2);
    // Usage is not refreshed between profiles: the second run sees the same
    // overutilized node but the evicted pod is no longer a candidate.
    // a is at 900m, cap 500m: two evictions bring it to 300m.
    assert_eq!(p.runs[0].evictions.len(), 2);
    assert_eq!(p.runs[1].evictions.len(), 1);
    assert_eq!(p.runs[1].evictions[0].pod.name, "a2");
    assert_eq!(p.runs[1].skipped.iter().filter(|s| s.reason == SkipReason::AlreadyEvicted).count(), 2);
    let names: Vec<String> = evicted(&p);
    let mut dedup = names.clone();
    dedup.dedup();
    assert_eq!(names, dedup);
    assert_eq!(p.evictions().map(|e| e.order).collect::<Vec<_>>(), (1..=p.evictions_total).collect::<Vec<_>>());
}

#[test]
fn invalid_policy_aborts() {
    let p = plan(&two_nodes(&[900]), &policy_with(Default::default(), lnu(&[], &[])), &PlanOptions::default());
    assert_eq!(
        p.aborted.as_deref(),
        Some("invalid policy: in profile test: thresholds config is not valid: no resource threshold is configured")
    );
}

#[test]
fn homelab_policy() {
    let policy = Policy::from_yaml(crate::policy::tests::HOMELAB_POLICY).expect("valid");
    let gi = 1024 * MI;
    let nodes =
        vec![node("big", 4000, 16 * gi, 110), node("small", 4000, 16 * gi, 110), node("idle", 4000, 16 * gi, 110)];
    let mut pods = Vec::new();
    // "big" is at 134 % cpu: ten 400m web pods (priority 0) + plex + a job
    // pod + kube-system + postgres (no priority: tried first).
    for i in 0..10 {
        let mut p = pod("apps", &format!("web-{i}"), "big", 400, gi / 4);
        p.priority = Some(0);
        p.labels.insert("app".into(), "web".into());
        if i == 0 {
            p.volumes = vec![Volume { name: "cache".into(), source: VolumeSource::EmptyDir { medium: None } }];
        }
        pods.push(p);
    }
    let mut plex = pod("media", "plex-0", "big", 500, gi);
    plex.labels.insert("app".into(), "plex".into());
    pods.push(plex);
    let mut job = pod("batch", "backup-xyz", "big", 300, gi / 2);
    job.labels.insert("batch.kubernetes.io/job-name".into(), "backup".into());
    job.owners = vec![owner("Job", "backup")];
    pods.push(job);
    pods.push(pod("kube-system", "coredns", "big", 100, gi / 8));
    pods.push(pod("postgres", "pg-0", "big", 450, 2 * gi));
    pods.push(pod("apps", "other", "small", 1000, gi));
    let p = plan(&Snapshot::new(nodes, pods, now()), &policy, &PlanOptions::default());
    let run = run_of(&p);
    assert_eq!(run.nodes.iter().find(|n| n.name == "big").map(|n| n.class), Some(NodeClass::Overutilized));
    assert_eq!(
        skip_of(&p, "plex-0").message,
        "pod labels do not match the labelSelector filter in the policy parameter"
    );
    assert_eq!(
        skip_of(&p, "backup-xyz").message,
        "pod labels do not match the labelSelector filter in the policy parameter"
    );
    assert_eq!(skip_of(&p, "coredns").reason, SkipReason::ExcludedNamespace);
    assert_eq!(skip_of(&p, "pg-0").reason, SkipReason::ExcludedNamespace);
    // Local storage is evictable here; evictionLimits.node caps the node at 5.
    let names = evicted(&p);
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("web-")));
    assert!(names.contains(&"web-0".to_string()));
    assert_eq!(run.source_nodes[0].stop, StopReason::PluginNodeLimit { limit: 5 });
}

#[test]
fn same_input_same_plan() {
    let policy = policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]));
    let a = plan(&busy_cluster(), &policy, &PlanOptions::default());
    let b = plan(&busy_cluster(), &policy, &PlanOptions::default());
    assert_eq!(a, b);
    assert_eq!(serde_json::to_string(&a).expect("json"), serde_json::to_string(&b).expect("json"));
}

#[test]
fn state_without_feeds_a_simulation() {
    let s = two_nodes(&[300, 300, 300]);
    let policy = policy_with(Default::default(), lnu(&[("cpu", 20.0)], &[("cpu", 50.0)]));
    let p = plan(&s, &policy, &PlanOptions::default());
    let idx = p.evicted_pod_indices();
    let state = s.state_without(&idx);
    assert_eq!(state.pods.len(), s.pods.len() - idx.len());
    let moved = s.pods[idx[0]].unbound_copy();
    let placed = crate::scheduler::pick_node(&state, &moved).expect("fits somewhere");
    assert_eq!(placed.node, "b");
}

#[test]
fn unknown_priority_class_is_warned_about() {
    let evictor = DefaultEvictorArgs {
        priority_threshold: Some(crate::policy::PriorityThreshold { value: None, name: Some("missing".into()) }),
        ..Default::default()
    };
    let p = plan(
        &two_nodes(&[900]),
        &policy_with(evictor, lnu(&[("cpu", 20.0)], &[("cpu", 50.0)])),
        &PlanOptions::default(),
    );
    assert_eq!(p.evictions_total, 1); // no priority: still evictable
    assert!(
        p.warnings[0].starts_with("Failed to get threshold priority from args: unable to get priority value from the priority class: priorityclasses.scheduling.k8s.io \"missing\" not found"),
        "{:?}",
        p.warnings
    );
}

#[test]
fn a_capitalised_threshold_key_is_warned_about_in_the_plan() {
    let policy =
        policy_with(Default::default(), lnu(&[("cpu", 20.0), ("Pods", 20.0)], &[("cpu", 50.0), ("Pods", 50.0)]));
    let p = plan(&two_nodes(&[900]), &policy, &PlanOptions::default());
    let warning = |field: &str| {
        format!(
            "profile test: LowNodeUtilization {field} key \"Pods\": resource names are case-sensitive; descheduler \
             takes it as an unknown extended resource that counts 0 on every node (did you mean pods?); its budget on \
             the underutilized nodes is then 0, so LowNodeUtilization evicts nothing"
        )
    };
    assert_eq!(p.warnings, [warning("thresholds"), warning("targetThresholds")]);
    // As upstream: "Pods" is on no node, so b (0 %) is underutilized and a
    // (90 % cpu) overutilized, but the budget for "Pods" is 0: nothing moves.
    assert_eq!(p.evictions_total, 0);
    let run = run_of(&p);
    assert_eq!(run.source_nodes[0].stop, StopReason::BudgetExhausted { resources: vec!["Pods".to_string()] });
}
