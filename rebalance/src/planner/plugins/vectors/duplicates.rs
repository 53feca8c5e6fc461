//! descheduler v0.36 `removeduplicates/removeduplicates_test.go` ported:
//! TestFindDuplicatePods (14 cases) and TestRemoveDuplicatesUniformly (11).

use super::kit::*;
use crate::model::node::{NodeInfo, TaintEffect};
use crate::model::pod::{NodeSelectorTerm, PodInfo, Requirement, SelectorOperator, Toleration, Volume, VolumeSource};
use crate::planner::{Plan, SYSTEM_CRITICAL_PRIORITY};
use crate::policy::{DefaultEvictorArgs, PluginArgs, Policy, RemoveDuplicatesArgs};

fn dup_policy(exclude_kinds: &[&str], node_fit: bool) -> Policy {
    let args = RemoveDuplicatesArgs {
        exclude_owner_kinds: exclude_kinds.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let evictor = DefaultEvictorArgs { node_fit, ..Default::default() };
    policy("RemoveDuplicates", PluginArgs::RemoveDuplicates(Box::new(args)), evictor)
}

fn in_ns(mut p: PodInfo, ns: &str) -> PodInfo {
    p.namespace = ns.into();
    p
}

/// `buildTestPodForNode1`: 100m on n1.
fn n1pod(name: &str) -> PodInfo {
    bpod(name, 100, 0, "n1")
}

/// `buildTestPodWithImage`: a ReplicaSet pod on n1 with a second container.
fn with_image(name: &str, image: &str) -> PodInfo {
    let mut p = rs(n1pod(name));
    p.images.push(image.into());
    p
}

/// (name, pods, nodes, evictions, evicted pods, nodeFit).
type FindCase = (&'static str, Vec<PodInfo>, Vec<NodeInfo>, usize, &'static [&'static str], bool);

fn find_duplicate_cases() -> Vec<FindCase> {
    let n = |name: &str| bnode(name, 2000, 3000, 10);
    let n3 = || tainted(n("n3"), "hardware", "gpu");
    let n4 = || {
        let mut x = n("n4");
        x.labels.insert("datacenter".into(), "east".into());
        x
    };
    let n5 = || cordoned(n("n5"));
    let n6 = || bnode("n6", 200, 200, 10);
    let dev = |name: &str| in_ns(rs(n1pod(name)), "dev");
    let test = |name: &str| in_ns(rs(n1pod(name)), "test");
    let p4 = ds(n1pod("p4"));
    let mut p5 = normal(n1pod("p5"));
    p5.volumes = vec![Volume { name: "sample".into(), source: VolumeSource::EmptyDir { medium: None } }];
    let mut p6 = n1pod("p6");
    p6.annotations.insert("kubernetes.io/config.source".into(), "api".into());
    p6.annotations.insert("kubernetes.io/config.mirror".into(), "mirror".into());
    let mut p7 = in_ns(n1pod("p7"), "kube-system");
    p7.priority = Some(SYSTEM_CRITICAL_PRIORITY);
    let image = |name: &str, img: &str| {
        let mut p = in_ns(rs(n1pod(name)), "different-images");
        p.images = vec![img.into()];
        p
    };
    let mut p13 = in_ns(rs(n1pod("p13")), "different-images");
    p13.images.push("foo".into());
    let west = |name: &str| {
        let mut p = in_ns(rs(n1pod(name)), "node-fit");
        p.node_selector.insert("datacenter".into(), "west".into());
        p
    };
    let eater = in_ns(bpod("CPU-eater", 150, 150, "n6"), "test");
    let saver = in_ns(bpod("CPU-saver", 100, 150, "n6"), "test");
    let devs = || vec![dev("p1"), dev("p2"), dev("p3")];
    let tests = || vec![test("p8"), test("p9"), test("p10")];
    let protected = || vec![p4.clone(), p5.clone(), p6.clone(), p7.clone()];
    let cat = |parts: Vec<Vec<PodInfo>>| parts.into_iter().flatten().collect::<Vec<_>>();
    vec![
        ("Three pods in the `dev` Namespace, bound to same ReplicaSet. 1 should be evicted.", devs(), vec![n("n1"), n("n2")], 1, &["p3"], false),
        ("Three pods in the `dev` Namespace, bound to same ReplicaSet, but ReplicaSet kind is excluded. 0 should be evicted.", devs(), vec![n("n1"), n("n2")], 0, &[], false),
        ("Three Pods in the `test` Namespace, bound to same ReplicaSet. 1 should be evicted.", tests(), vec![n("n1"), n("n2")], 1, &["p10"], false),
        ("Three Pods in the `dev` Namespace, three Pods in the `test` Namespace. Bound to ReplicaSet with same name. 4 should be evicted.", cat(vec![devs(), tests()]), vec![n("n1"), n("n2")], 2, &["p3", "p10"], false),
        ("Pods are: part of DaemonSet, with local storage, mirror pod annotation, critical pod annotation - none should be evicted.", protected(), vec![n("n1"), n("n2")], 0, &[], false),
        ("Test all Pods: 4 should be evicted.", cat(vec![devs(), protected(), tests()]), vec![n("n1"), n("n2")], 2, &["p3", "p10"], false),
        ("Pods with the same owner but different images should not be evicted", vec![image("p11", "foo"), image("p12", "bar")], vec![n("n1"), n("n2")], 0, &[], false),
        ("Pods with multiple containers should not match themselves", vec![p13.clone()], vec![n("n1"), n("n2")], 0, &[], false),
        ("Pods with matching ownerrefs and at not all matching image should not trigger an eviction", vec![image("p11", "foo"), p13], vec![n("n1"), n("n2")], 0, &[], false),
        ("Three pods in the `dev` Namespace, bound to same ReplicaSet. Only node available has a taint, and nodeFit set to true. 0 should be evicted.", devs(), vec![n("n1"), n3()], 0, &[], true),
        ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet, all with a nodeSelector. Only node available has an incorrect node label, and nodeFit set to true. 0 should be evicted.", vec![west("p15"), west("NOT1"), west("NOT2")], vec![n("n1"), n4()], 0, &[], true),
        ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available is not schedulable, and nodeFit set to true. 0 should be evicted.", devs(), vec![n("n1"), n5()], 0, &[], true),
        ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available does not have enough CPU, and nodeFit set to true. 0 should be evicted.", cat(vec![devs(), vec![eater]]), vec![n("n1"), n6()], 0, &[], true),
        ("Three pods in the `node-fit` Namespace, bound to same ReplicaSet. Only node available has enough CPU, and nodeFit set to true. 1 should be evicted.", cat(vec![devs(), vec![saver]]), vec![n("n1"), n6()], 1, &["p3"], true),
    ]
}

#[test]
fn upstream_test_find_duplicate_pods() {
    let mut tally = Tally::default();
    for (i, (name, pods, nodes, count, names, node_fit)) in find_duplicate_cases().into_iter().enumerate() {
        let excluded: &[&str] = if i == 1 { &["ReplicaSet"] } else { &[] };
        let plan = plan_of(nodes, pods, &dup_policy(excluded, node_fit));
        tally.check(name, expect(&plan, count, names));
    }
    tally.finish("RemoveDuplicates (TestFindDuplicatePods)");
}

fn on(names: &[(&str, &str)], set: impl Fn(PodInfo) -> PodInfo) -> Vec<PodInfo> {
    names.iter().map(|(p, n)| set(bpod(p, 100, 0, n))).collect()
}

/// (5,3,1) over n1, n2, n3 named `prefix1..9`.
fn five_three_one(prefix: &str) -> Vec<(String, &'static str)> {
    (1..=9).map(|i| (format!("{prefix}{i}"), ["n1", "n1", "n1", "n1", "n1", "n2", "n2", "n2", "n3"][i - 1])).collect()
}

fn owned_by<'n>(names: &'n [&'n str]) -> impl Fn(PodInfo) -> PodInfo + 'n {
    move |mut p| {
        p.owners = names.iter().map(|n| owned("ReplicaSet", n)).collect();
        p
    }
}

fn workers_and_masters(worker: impl Fn(NodeInfo) -> NodeInfo, master: impl Fn(NodeInfo) -> NodeInfo) -> Vec<NodeInfo> {
    let n = |name: &str| bnode(name, 2000, 3000, 10);
    let mut out: Vec<NodeInfo> = ["worker1", "worker2", "worker3"].iter().map(|w| worker(n(w))).collect();
    out.extend(["master1", "master2", "master3"].iter().map(|m| master(n(m))));
    out
}

/// (5,3,1,0,0,0) on worker1..3, alternating `a`/`b` settings.
fn workers_pods(a: impl Fn(PodInfo) -> PodInfo, b: impl Fn(PodInfo) -> PodInfo) -> Vec<PodInfo> {
    let place = ["worker1", "worker1", "worker1", "worker1", "worker1", "worker2", "worker2", "worker2", "worker3"];
    (1..=9)
        .map(|i| {
            let p = bpod(&format!("p{i}"), 100, 0, place[i - 1]);
            if i % 2 == 1 {
                a(p)
            } else {
                b(p)
            }
        })
        .collect()
}

fn uniformly_cases() -> Vec<(&'static str, Vec<PodInfo>, Vec<NodeInfo>, usize)> {
    let n = |name: &str| bnode(name, 2000, 3000, 10);
    let three = || vec![n("n1"), n("n2"), n("n3")];
    let named = |v: Vec<(String, &'static str)>, set: &dyn Fn(PodInfo) -> PodInfo| -> Vec<PodInfo> {
        v.iter().map(|(p, node)| set(bpod(p, 100, 0, node))).collect()
    };
    let toleration = |k: &'static str, v: &'static str| {
        move |p: PodInfo| {
            let mut p = rs(p);
            p.tolerations = vec![Toleration::equal(k, v, Some(TaintEffect::NoSchedule))];
            p
        }
    };
    let not_master = |k: &'static str| {
        move |p: PodInfo| {
            let mut p = rs(p);
            let dne =
                |key: &str| Requirement { key: key.into(), operator: SelectorOperator::DoesNotExist, values: vec![] };
            p.affinity.node_affinity.required = Some(vec![NodeSelectorTerm {
                match_expressions: vec![dne("node-role.kubernetes.io/control-plane"), dne(k)],
                match_fields: vec![],
            }]);
            p
        }
    };
    let worker_selector = |v: &'static str| {
        move |p: PodInfo| {
            let mut p = rs(p);
            p.node_selector.insert("node-role.kubernetes.io/worker".into(), v.into());
            p
        }
    };
    let master_taint = |mut m: NodeInfo| {
        m.taints.push(crate::model::node::Taint::new(
            "node-role.kubernetes.io/control-plane",
            "",
            TaintEffect::NoSchedule,
        ));
        m
    };
    let master_label = |mut m: NodeInfo| {
        m.labels.insert("node-role.kubernetes.io/control-plane".into(), String::new());
        m
    };
    let worker_label = |mut w: NodeInfo| {
        w.labels.insert("node-role.kubernetes.io/worker".into(), "k2".into());
        w
    };
    let same = |x: NodeInfo| x;
    let mut two_owners = named(five_three_one("p1"), &owned_by(&["replicaset-1"]));
    let rs2: Vec<(&str, &str)> = vec![
        ("p21", "n1"),
        ("p22", "n2"),
        ("p23", "n2"),
        ("p24", "n2"),
        ("p25", "n3"),
        ("p26", "n3"),
        ("p27", "n3"),
        ("p28", "n3"),
        ("p29", "n3"),
    ];
    two_owners.extend(on(&rs2, owned_by(&["replicaset-2"])));
    let images = |name: &str, img: &str| with_image(name, img);
    vec![
        ("Evict pods uniformly", named(five_three_one("p"), &rs), three(), 2),
        ("Evict pods uniformly with one node left out", named(five_three_one("p"), &rs), vec![n("n1"), n("n2")], 1),
        (
            "Evict pods uniformly with two replica sets",
            named(five_three_one("p1"), &owned_by(&["replicaset-1", "replicaset-2"])),
            three(),
            4,
        ),
        ("Evict pods uniformly with two owner references", two_owners, three(), 4),
        ("Evict pods with number of pods less than nodes", on(&[("p1", "n1"), ("p2", "n1")], rs), three(), 1),
        (
            "Evict pods with number of pods less than nodes, but ignore different pods with the same ownerref",
            vec![images("p1", "foo"), images("p2", "bar"), images("p3", "baz"), images("p4", "foo")],
            three(),
            1,
        ),
        ("Evict pods with a single pod with three nodes", on(&[("p1", "n1")], rs), three(), 0),
        (
            "Evict pods uniformly respecting taints",
            workers_pods(toleration("k1", "v1"), toleration("k2", "v2")),
            workers_and_masters(same, master_taint),
            2,
        ),
        (
            "Evict pods uniformly respecting RequiredDuringSchedulingIgnoredDuringExecution node affinity",
            workers_pods(not_master("k1"), not_master("k2")),
            workers_and_masters(same, master_label),
            2,
        ),
        (
            "Evict pods uniformly respecting node selector",
            workers_pods(worker_selector("k1"), worker_selector("k2")),
            workers_and_masters(worker_label, same),
            2,
        ),
        (
            "Evict pods uniformly respecting node selector with zero target nodes",
            workers_pods(worker_selector("k1"), worker_selector("k2")),
            workers_and_masters(same, same),
            0,
        ),
    ]
}

#[test]
fn upstream_test_remove_duplicates_uniformly() {
    let mut tally = Tally::default();
    for (name, pods, nodes, count) in uniformly_cases() {
        let plan = plan_of(nodes, pods, &dup_policy(&[], false));
        tally.check(name, expect(&plan, count, &[]));
    }
    tally.finish("RemoveDuplicates (TestRemoveDuplicatesUniformly)");
}

fn case(name: &str) -> Plan {
    let (_, pods, nodes, _) = uniformly_cases().into_iter().find(|c| c.0 == name).expect("case");
    plan_of(nodes, pods, &dup_policy(&[], false))
}

/// (5,3,1): the two pods evicted are n1's last duplicates, with the numbers.
#[test]
fn uniform_rule_text_and_skips() {
    let plan = case("Evict pods uniformly");
    assert_eq!(evicted(&plan), ["p4", "p5"]);
    let run = &plan.runs[0];
    assert_eq!(
        run.evictions[0].rule,
        "copy 4 of 5 on n1, 9 copies of ReplicaSet default/replicaset-1 (images \"\") over 3 feasible nodes, \
         upperAvg ceil(9/3)=3: keeps 3"
    );
    let msg = |p: &str| run.skipped.iter().find(|s| s.pod.name == p).map(|s| s.message.clone()).unwrap_or_default();
    assert_eq!(msg("p1"), "first pod with these owners and images on n1: the original, never evicted");
    assert!(msg("p3").starts_with("copy 3 of 5 on n1: within 9 copies"), "{}", msg("p3"));
    // p9, alone on n3, is no duplicate: counted, not listed.
    assert_eq!(msg("p9"), "");
    assert_eq!(run.not_matching, 1);
    assert_eq!(run.skipped.len(), 6);
}

/// Two ownerRefs: the same two pods are requested twice, as upstream counts 4.
#[test]
fn two_owner_refs_request_twice() {
    let plan = case("Evict pods uniformly with two replica sets");
    assert_eq!(evicted(&plan), ["p14", "p15", "p14", "p15"]);
    assert!(plan.runs[0].evictions[2].rule.ends_with("(a second request: upstream evicts once per ownerRef)"));
}

/// Zero feasible nodes: upstream's note, and every duplicate says so.
#[test]
fn too_few_feasible_nodes_is_noted() {
    let plan = case("Evict pods uniformly respecting node selector with zero target nodes");
    let run = &plan.runs[0];
    assert_eq!(run.notes.len(), 1, "{:?}", run.notes);
    assert!(run.notes[0].starts_with(
        "Less than two feasible nodes for duplicates to land, skipping eviction: owner ReplicaSet default/replicaset-1"
    ));
    let p4 = run.skipped.iter().find(|s| s.pod.name == "p4").expect("p4");
    assert_eq!(
        (p4.message.as_str(), p4.upstream_message),
        (crate::planner::plugins::duplicates::TOO_FEW_FEASIBLE_NODES, true)
    );
}

/// The per-node limit moves on to the next node; the total limit ends the plugin.
#[test]
fn limits_next_node_and_stop() {
    let mut policy = dup_policy(&[], false);
    policy.max_no_of_pods_to_evict_per_node = Some(1);
    let pods = on(&[("a1", "n1"), ("a2", "n1"), ("a3", "n1"), ("b1", "n2"), ("b2", "n2"), ("b3", "n2")], rs);
    let nodes = || vec![bnode("n1", 2000, 3000, 10), bnode("n2", 2000, 3000, 10), bnode("n3", 2000, 3000, 10)];
    // occurrence 6 over 3 nodes: upperAvg 2, each node would lose 1.
    let plan = plan_of(nodes(), pods.clone(), &policy);
    assert_eq!(evicted(&plan), ["a3", "b3"]);
    policy.max_no_of_pods_to_evict_per_node = None;
    policy.max_no_of_pods_to_evict_total = Some(1);
    let plan = plan_of(nodes(), pods, &policy);
    assert_eq!(evicted(&plan), ["a3"]);
    let b3 = plan.runs[0].skipped.iter().find(|s| s.pod.name == "b3").expect("b3");
    assert_eq!(b3.message, "maximum number of evicted pods per a descheduling cycle reached");
}

/// Pods whose images were not read: owners still tell them apart.
#[test]
fn unread_images_do_not_merge_owners() {
    let mut a = rs(bpod("a", 100, 0, "n1"));
    let mut b = bpod("b", 100, 0, "n1");
    b.owners = vec![owned("ReplicaSet", "other")];
    let mut c = rs(bpod("c", 100, 0, "n1"));
    for p in [&mut a, &mut b, &mut c] {
        p.images.clear();
    }
    let nodes = vec![bnode("n1", 2000, 3000, 10), bnode("n2", 2000, 3000, 10)];
    // a and c share replicaset-1 (occurrence 2, upperAvg 1): c goes; b is alone.
    assert_eq!(evicted(&plan_of(nodes, vec![a, b, c], &dup_policy(&[], false))), ["c"]);
}
