//! descheduler v0.36 `nodeutilization/highnodeutilization_test.go` ported:
//! TestHighNodeUtilization (14 cases; DefaultEvictor with nodeFit) and
//! TestHighNodeUtilizationWithTaints (3; `maxNoOfPodsToEvictPerNode` = the
//! expected count). The stored upstream file is newer than v0.36 and has a
//! 15th case ("limits number of underutilized nodes processed per run with
//! MaxNodesToProcess") for an arg v0.36 lacks: kept as skipped.

use super::kit::*;
use crate::model::node::NodeInfo;
use crate::model::pod::{PodInfo, Toleration};
use crate::model::pod::{Volume, VolumeSource};
use crate::planner::SYSTEM_CRITICAL_PRIORITY;
use crate::policy::{DefaultEvictorArgs, HighNodeUtilizationArgs, PluginArgs, Policy};

const EXT: &str = "example.com/foo";

fn hnu(thresholds: &[(&str, f64)], only_thresholding: bool) -> HighNodeUtilizationArgs {
    HighNodeUtilizationArgs {
        thresholds: thresholds.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        eviction_modes: if only_thresholding { vec!["OnlyThresholdingResources".into()] } else { Vec::new() },
        ..Default::default()
    }
}

fn hnu_policy(args: HighNodeUtilizationArgs, node_fit: bool) -> Policy {
    let evictor = DefaultEvictorArgs { node_fit, ..Default::default() };
    policy("HighNodeUtilization", PluginArgs::HighNodeUtilization(Box::new(args)), evictor)
}

fn ext_node(n: NodeInfo, amount: i64) -> NodeInfo {
    let mut n = n;
    n.allocatable.set(EXT, amount);
    n.capacity.set(EXT, amount);
    n
}

fn ext_pod(mut p: PodInfo, amount: i64) -> PodInfo {
    p.containers[0].requests.set(EXT, amount);
    p.refresh_derived();
    p
}

fn prio(mut p: PodInfo, v: i32) -> PodInfo {
    p.priority = Some(v);
    p
}

fn rsp(name: &str, cpu: i64, mem: i64, node: &str) -> PodInfo {
    rs(bpod(name, cpu, mem, node))
}

fn dsp(name: &str, cpu: i64, mem: i64, node: &str) -> PodInfo {
    ds(bpod(name, cpu, mem, node))
}

fn critical(name: &str, node: &str) -> PodInfo {
    let mut p = normal(bpod(name, 400, 0, node));
    p.namespace = "kube-system".into();
    prio(p, SYSTEM_CRITICAL_PRIORITY)
}

struct Case {
    name: &'static str,
    thresholds: &'static [(&'static str, f64)],
    only: bool,
    nodes: Vec<NodeInfo>,
    pods: Vec<PodInfo>,
    count: usize,
    names: &'static [&'static str],
}

fn three(cpu: i64, n1_pods: i64) -> Vec<NodeInfo> {
    vec![bnode("n1", cpu, 3000, n1_pods), bnode("n2", cpu, 3000, 10), bnode("n3", cpu, 3000, 10)]
}

fn cases() -> Vec<Case> {
    let west = |mut n: NodeInfo| {
        n.labels.insert("datacenter".into(), "west".into());
        n
    };
    let selects_west = |mut p: PodInfo| {
        p.node_selector.insert("datacenter".into(), "west".into());
        p
    };
    let mut local_mirror = normal(bpod("p1", 400, 0, "n1"));
    local_mirror.volumes = vec![Volume { name: "v".into(), source: VolumeSource::EmptyDir { medium: None } }];
    local_mirror.annotations.insert("kubernetes.io/config.source".into(), "api".into());
    local_mirror.annotations.insert("kubernetes.io/config.mirror".into(), "mirror".into());
    let mut best_effort = rs(bpod("p1", 0, 0, "n1"));
    best_effort.containers[0].requests = Default::default();
    best_effort.refresh_derived();
    let mut c = vec![
        Case {
            name: "no node below threshold usage",
            thresholds: &[("cpu", 20.0), ("pods", 20.0)],
            only: false,
            nodes: three(4000, 10),
            pods: (1..=9).map(|i| rsp(&format!("p{i}"), 400, 0, ["n1", "n2", "n3"][(i - 1) / 3])).collect(),
            count: 0,
            names: &[],
        },
        Case {
            name: "no evictable pods",
            thresholds: &[("cpu", 40.0), ("pods", 40.0)],
            only: false,
            nodes: three(4000, 9),
            pods: vec![
                local_mirror,
                critical("p2", "n1"),
                dsp("p3", 400, 0, "n2"),
                dsp("p4", 400, 0, "n2"),
                rsp("p5", 400, 0, "n3"),
                rsp("p6", 400, 0, "n3"),
                rsp("p7", 400, 0, "n3"),
                rsp("p8", 400, 0, "n3"),
            ],
            count: 0,
            names: &[],
        },
        Case {
            name: "no node to schedule evicted pods",
            thresholds: &[("cpu", 20.0), ("pods", 20.0)],
            only: false,
            nodes: vec![
                bnode("n1", 4000, 3000, 10),
                bnode("n2", 4000, 3000, 10),
                cordoned(bnode("n3", 4000, 3000, 10)),
            ],
            pods: vec![
                rsp("p1", 400, 0, "n1"),
                rsp("p2", 400, 0, "n2"),
                rsp("p3", 400, 0, "n3"),
                rsp("p4", 400, 0, "n3"),
                rsp("p5", 400, 0, "n3"),
            ],
            count: 0,
            names: &[],
        },
        Case {
            name: "without priorities",
            thresholds: &[("cpu", 30.0), ("pods", 30.0)],
            only: false,
            nodes: vec![
                bnode("n1", 4000, 3000, 10),
                bnode("n2", 4000, 3000, 10),
                cordoned(bnode("n3", 4000, 3000, 10)),
            ],
            pods: vec![
                rsp("p1", 400, 0, "n1"),
                critical("p2", "n1"),
                rsp("p3", 400, 0, "n2"),
                rsp("p4", 400, 0, "n2"),
                rsp("p5", 400, 0, "n2"),
                rsp("p6", 400, 0, "n2"),
                rsp("p7", 400, 0, "n3"),
            ],
            count: 2,
            names: &["p1", "p7"],
        },
        Case {
            name: "without priorities stop when resource capacity is depleted",
            thresholds: &[("cpu", 30.0), ("pods", 30.0)],
            only: false,
            nodes: vec![
                bnode("n1", 2000, 3000, 10),
                bnode("n2", 2000, 3000, 10),
                cordoned(bnode("n3", 2000, 3000, 10)),
            ],
            pods: vec![
                rsp("p1", 400, 0, "n1"),
                rsp("p2", 400, 0, "n2"),
                rsp("p3", 400, 0, "n2"),
                rsp("p4", 400, 0, "n2"),
                rsp("p5", 400, 0, "n2"),
                rsp("p6", 400, 0, "n3"),
            ],
            count: 1,
            names: &[],
        },
        Case {
            name: "with priorities",
            thresholds: &[("cpu", 30.0)],
            only: false,
            nodes: vec![
                bnode("n1", 4000, 3000, 10),
                bnode("n2", 2000, 3000, 10),
                cordoned(bnode("n3", 2000, 3000, 10)),
            ],
            pods: vec![
                prio(rsp("p1", 400, 0, "n1"), 0),
                prio(rsp("p2", 400, 0, "n1"), 10000),
                rsp("p5", 400, 0, "n2"),
                rsp("p6", 400, 0, "n2"),
                rsp("p7", 400, 0, "n2"),
                rsp("p8", 400, 0, "n2"),
                dsp("p9", 400, 0, "n3"),
            ],
            count: 1,
            names: &["p1"],
        },
        Case {
            name: "without priorities evicting best-effort pods only",
            thresholds: &[("cpu", 30.0)],
            only: false,
            nodes: vec![bnode("n1", 3000, 3000, 10), bnode("n2", 3000, 3000, 5), cordoned(bnode("n3", 3000, 3000, 10))],
            pods: vec![
                best_effort,
                rsp("p2", 400, 0, "n1"),
                rsp("p3", 400, 0, "n2"),
                rsp("p4", 400, 0, "n2"),
                rsp("p5", 400, 0, "n2"),
                rsp("p6", 400, 0, "n2"),
            ],
            count: 1,
            names: &["p1"],
        },
        Case {
            name: "with extended resource",
            thresholds: &[("cpu", 20.0), (EXT, 40.0)],
            only: false,
            nodes: vec![
                ext_node(bnode("n1", 4000, 3000, 10), 8),
                ext_node(bnode("n2", 4000, 3000, 10), 8),
                cordoned(bnode("n3", 4000, 3000, 10)),
            ],
            pods: vec![
                ext_pod(rsp("p1", 100, 0, "n1"), 1),
                ext_pod(rsp("p2", 100, 0, "n1"), 1),
                ext_pod(rsp("p3", 500, 0, "n2"), 1),
                ext_pod(rsp("p4", 500, 0, "n2"), 1),
                ext_pod(rsp("p5", 500, 0, "n2"), 1),
                ext_pod(rsp("p6", 500, 0, "n2"), 1),
            ],
            count: 2,
            names: &["p1", "p2"],
        },
        Case {
            name: "with extended resource in some of nodes",
            thresholds: &[("cpu", 40.0), (EXT, 40.0)],
            only: false,
            nodes: vec![
                ext_node(bnode("n1", 4000, 3000, 10), 8),
                bnode("n2", 4000, 3000, 10),
                cordoned(bnode("n3", 4000, 3000, 10)),
            ],
            pods: vec![
                ext_pod(rsp("p1", 100, 0, "n1"), 1),
                ext_pod(rsp("p2", 100, 0, "n1"), 1),
                rsp("p3", 500, 0, "n2"),
                rsp("p4", 500, 0, "n2"),
                rsp("p5", 500, 0, "n2"),
                rsp("p6", 500, 0, "n2"),
            ],
            count: 0,
            names: &[],
        },
        Case {
            name: "Other node match pod node selector",
            thresholds: &[("cpu", 30.0), ("pods", 30.0)],
            only: false,
            nodes: vec![west(bnode("n1", 4000, 3000, 9)), bnode("n2", 4000, 3000, 10)],
            pods: vec![
                rsp("p1", 400, 0, "n1"),
                rsp("p2", 400, 0, "n1"),
                rsp("p3", 400, 0, "n1"),
                dsp("p4", 400, 0, "n1"),
                selects_west(rsp("p5", 400, 0, "n2")),
            ],
            count: 1,
            names: &["p5"],
        },
        Case {
            name: "Other node does not match pod node selector",
            thresholds: &[("cpu", 30.0), ("pods", 30.0)],
            only: false,
            nodes: vec![bnode("n1", 4000, 3000, 9), bnode("n2", 4000, 3000, 10)],
            pods: vec![
                rsp("p1", 400, 0, "n1"),
                rsp("p2", 400, 0, "n1"),
                rsp("p3", 400, 0, "n1"),
                dsp("p4", 400, 0, "n1"),
                selects_west(rsp("p5", 400, 0, "n2")),
            ],
            count: 0,
            names: &[],
        },
    ];
    for _ in 0..2 {
        // Upstream has this case twice, with the same name.
        c.push(Case {
            name: "Other node does not have enough Memory",
            thresholds: &[("cpu", 30.0), ("pods", 30.0)],
            only: false,
            nodes: vec![bnode("n1", 4000, 200, 9), bnode("n2", 4000, 3000, 10)],
            pods: vec![
                rsp("p1", 400, 50, "n1"),
                rsp("p2", 400, 50, "n1"),
                rsp("p3", 400, 50, "n1"),
                dsp("p4", 400, 50, "n1"),
                rsp("p5", 400, 100, "n2"),
            ],
            count: 0,
            names: &[],
        });
    }
    c.push(Case {
        name: "with extended resource threshold and no extended resource pods",
        thresholds: &[(EXT, 40.0)],
        only: true,
        nodes: vec![
            ext_node(bnode("n1", 4000, 3000, 10), 10),
            ext_node(bnode("n2", 4000, 3000, 10), 10),
            ext_node(bnode("n3", 4000, 3000, 10), 10),
        ],
        pods: vec![
            ext_pod(rsp("p1", 100, 0, "n1"), 3),
            ext_pod(rsp("p2", 100, 0, "n1"), 3),
            rsp("p3", 500, 0, "n2"),
            rsp("p4", 500, 0, "n2"),
            rsp("p5", 500, 0, "n2"),
            rsp("p6", 500, 0, "n2"),
        ],
        count: 0,
        names: &[],
    });
    c
}

#[test]
fn upstream_test_high_node_utilization() {
    let mut tally = Tally::default();
    for case in cases() {
        let plan = plan_of(case.nodes, case.pods, &hnu_policy(hnu(case.thresholds, case.only), true));
        tally.check(case.name, expect(&plan, case.count, case.names));
    }
    tally.skip(
        "limits number of underutilized nodes processed per run with MaxNodesToProcess",
        "added after v0.36 (maxNodesToProcess is not a v0.36 arg)",
    );
    tally.finish("HighNodeUtilization");
}

#[test]
fn upstream_test_high_node_utilization_with_taints() {
    let n = |name: &str| bnode(name, 1000, 3000, 10);
    let n3_tainted = || tainted(n("n3"), "key", "value");
    let mut tolerates = rsp("tolerate_pod", 200, 0, "n1");
    tolerates.tolerations = vec![Toleration::equal("key", "value", None)];
    let cases: Vec<(&str, Vec<NodeInfo>, Vec<PodInfo>, u32)> = vec![
        (
            "No taints",
            vec![n("n1"), n("n2"), n("n3")],
            vec![
                rsp("pod_1_n1", 200, 0, "n1"),
                rsp("pod_2_n1", 200, 0, "n1"),
                rsp("pod_3_n1", 200, 0, "n1"),
                rsp("pod_4_n2", 200, 0, "n2"),
            ],
            1,
        ),
        (
            "No pod tolerates node taint",
            vec![n("n1"), n3_tainted()],
            vec![rsp("pod_1_n1", 200, 0, "n1"), rsp("pod_2_n3", 200, 0, "n3")],
            0,
        ),
        (
            "Pod which tolerates node taint",
            vec![n("n1"), n3_tainted()],
            vec![rsp("pod_1_n1", 100, 0, "n1"), tolerates, rsp("pod_9_n3", 500, 0, "n3")],
            1,
        ),
    ];
    let mut tally = Tally::default();
    for (name, nodes, pods, expected) in cases {
        let mut policy = hnu_policy(hnu(&[("cpu", 40.0)], false), false);
        policy.max_no_of_pods_to_evict_per_node = Some(expected);
        let plan = plan_of(nodes, pods, &policy);
        tally.check(name, expect(&plan, expected as usize, &[]));
    }
    tally.finish("HighNodeUtilizationWithTaints");
}

/// The "without priorities" vector in detail: classes, budget, source
/// order (n3 before n1: usage sum 401 < 802), rule text and notes.
#[test]
fn without_priorities_in_detail() {
    let case = cases().into_iter().find(|c| c.name == "without priorities").expect("case");
    let plan = plan_of(case.nodes, case.pods, &hnu_policy(hnu(case.thresholds, false), true));
    let run = &plan.runs[0];
    assert_eq!(evicted(&plan), ["p7", "p1"]);
    let classes: Vec<_> = run.nodes.iter().map(|n| (n.name.as_str(), n.class)).collect();
    use crate::planner::NodeClass::*;
    assert_eq!(classes, [("n1", Underutilized), ("n2", Overutilized), ("n3", Underutilized)]);
    assert_eq!(run.nodes[0].why, "every threshold met: cpu 20.0 % ≤ 30, pods 20.0 % ≤ 30");
    assert!(run.nodes[2].why.ends_with("(cordoned, drained all the same)"), "{}", run.nodes[2].why);
    let budget = run.budget.as_ref().expect("budget");
    assert_eq!(budget.initial.get("cpu"), 2400);
    assert_eq!(budget.initial.get("pods"), 6);
    assert_eq!(budget.remaining.get("cpu"), 1600);
    let order: Vec<_> = run.source_nodes.iter().map(|s| (s.node.as_str(), s.usage_sum, s.evicted)).collect();
    assert_eq!(order, [("n3", 401, 1), ("n1", 802, 1)]);
    assert!(run.evictions[0].rule.starts_with("n3 is underutilized (every threshold met: cpu 10.0 % ≤ 30"));
    assert_eq!(run.evictions[0].plugin, "HighNodeUtilization");
    let p2 = run.skipped.iter().find(|s| s.pod.name == "p2").expect("p2 skipped");
    assert!(p2.message.contains("system critical"), "{}", p2.message);
    assert!(run.notes.is_empty());
}

#[test]
fn early_exits_are_noted_in_upstream_words() {
    let exit = |nodes: Vec<NodeInfo>, pods: Vec<PodInfo>, number_of_nodes: i64| -> Vec<String> {
        let mut args = hnu(&[("cpu", 30.0)], false);
        args.number_of_nodes = number_of_nodes;
        plan_of(nodes, pods, &hnu_policy(args, false)).runs[0].notes.clone()
    };
    let busy = || vec![rsp("a", 2000, 0, "n1"), rsp("b", 2000, 0, "n2")];
    assert_eq!(
        exit(vec![bnode("n1", 4000, 3000, 10), bnode("n2", 4000, 3000, 10)], busy(), 0),
        ["No node is underutilized, nothing to do here, you might tune your thresholds further"]
    );
    let one_low = || vec![rsp("a", 400, 0, "n1"), rsp("b", 2000, 0, "n2")];
    assert_eq!(
        exit(vec![bnode("n1", 4000, 3000, 10), bnode("n2", 4000, 3000, 10)], one_low(), 1),
        ["Number of nodes underutilized is less or equal than NumberOfNodes, nothing to do here"]
    );
    assert_eq!(
        exit(vec![bnode("n1", 4000, 3000, 10), bnode("n2", 4000, 3000, 10)], vec![], 0),
        ["All nodes are underutilized, nothing to do here"]
    );
    assert_eq!(
        exit(vec![bnode("n1", 4000, 3000, 10), cordoned(bnode("n2", 4000, 3000, 10))], one_low(), 0),
        ["No node is available to schedule the pods, nothing to do here"]
    );
}

/// `OnlyThresholdingResources`: a pod without a request for a threshold
/// resource is not removable, and says so.
#[test]
fn only_thresholding_resources_skips_with_reason() {
    let nodes = vec![ext_node(bnode("n1", 4000, 3000, 10), 10), ext_node(bnode("n2", 4000, 3000, 10), 10)];
    let pods =
        vec![rsp("plain", 100, 0, "n1"), ext_pod(rsp("gpu", 100, 0, "n1"), 1), ext_pod(rsp("big", 100, 0, "n2"), 8)];
    let plan = plan_of(nodes, pods, &hnu_policy(hnu(&[(EXT, 40.0)], true), false));
    assert_eq!(evicted(&plan), ["gpu"]);
    let plain = plan.runs[0].skipped.iter().find(|s| s.pod.name == "plain").expect("skipped");
    assert_eq!(
        plain.message,
        "evictionModes OnlyThresholdingResources: no container requests any threshold resource (example.com/foo)"
    );
}
