//! Parity vectors: descheduler v0.36
//! `removepodsviolatinginterpodantiaffinity/pod_antiaffinity_test.go`
//! TestPodAntiAffinity (12 cases), plus kdrift's rule texts and reasons.
//!
//! `test.SetPodAntiAffinity(pod, k, v)`: one required term, selector
//! `k In [v]`, topologyKey `region`; n1 is labelled `region=main-region`.
//! Upstream only counts evictions; kdrift's order (lowest priority first,
//! then name) also fixes which pods.

use super::support::{evicted_names, policy, run_once, test_node, test_pod, Limits};
use crate::model::node::NodeInfo;
use crate::model::pod::{LabelSelector, PodAffinityTerm, PodInfo, Requirement, SelectorOperator};
use crate::planner::plugins::inter_pod_anti_affinity::run;
use crate::planner::tests::{node, now};
use crate::planner::SYSTEM_CRITICAL_PRIORITY;
use crate::policy::{
    DefaultEvictorArgs, PluginArgs, RemovePodsViolatingInterPodAntiAffinityArgs,
    REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY,
};

fn anti(mut p: PodInfo, key: &str, value: &str, topology: &str) -> PodInfo {
    p.affinity.pod_anti_affinity.required = vec![PodAffinityTerm {
        label_selector: Some(LabelSelector {
            match_labels: Default::default(),
            match_expressions: vec![Requirement {
                key: key.into(),
                operator: SelectorOperator::In,
                values: vec![value.into()],
            }],
        }),
        topology_key: topology.into(),
        ..Default::default()
    }];
    p
}

fn labels(mut p: PodInfo, key: &str, value: &str) -> PodInfo {
    p.labels.insert(key.into(), value.into());
    p
}

fn region(mut n: NodeInfo) -> NodeInfo {
    n.labels.insert("region".into(), "main-region".into());
    n
}

fn upstream_pod(name: &str) -> PodInfo {
    let on1 = |n: &str| test_pod(n, "n1");
    match name {
        "p1" | "p3" | "p4" => anti(on1(name), "foo", "bar", "region"),
        "p2" => labels(on1(name), "foo", "bar"),
        "p5" | "p6" => {
            let mut p = anti(labels(on1(name), "foo", "bar"), "foo1", "bar1", "region");
            p.priority = Some(if name == "p5" { 100 } else { 50 });
            p
        }
        "p7" => {
            let mut p = anti(labels(on1(name), "foo1", "bar1"), "foo", "bar", "region");
            p.priority = Some(0);
            p
        }
        "p8" => {
            let mut p = on1(name);
            p.owners.clear();
            p.node_selector.insert("datacenter".into(), "west".into());
            p
        }
        "p9" | "p10" => {
            let mut p = anti(on1(name), "foo", "bar", "region");
            p.rare.deletion_timestamp = Some(now());
            p
        }
        "p11" => labels(test_pod(name, "n5"), "foo", "bar"),
        "non-evict" => {
            let mut p = labels(on1(name), "foo", "bar");
            p.owners.clear();
            p.priority = Some(SYSTEM_CRITICAL_PRIORITY);
            p
        }
        other => panic!("no upstream pod {other}"),
    }
}

struct Case {
    name: &'static str,
    pods: &'static [&'static str],
    nodes: Vec<NodeInfo>,
    limits: Limits,
    node_fit: bool,
    want: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    let n1 = || region(test_node("n1"));
    let lim = |node: Option<u32>, namespace: Option<u32>, total: Option<u32>| Limits { node, namespace, total };
    let p1234: &'static [&'static str] = &["p1", "p2", "p3", "p4"];
    let mut n2 = test_node("n2");
    n2.labels.insert("datacenter".into(), "east".into());
    let mut n3 = test_node("n3");
    n3.unschedulable = true;
    let c = |name, pods, nodes, limits, node_fit, want| Case { name, pods, nodes, limits, node_fit, want };
    vec![
        c("Maximum pods to evict - 0", p1234, vec![n1()], lim(None, None, None), false, &["p1", "p3", "p4"]),
        c("Maximum pods to evict - 3", p1234, vec![n1()], lim(Some(3), None, None), false, &["p1", "p3", "p4"]),
        c("maxPodsToEvictPerNamespace=3", p1234, vec![n1()], lim(None, Some(3), None), false, &["p1", "p3", "p4"]),
        c("maxNoOfPodsToEvictTotal", p1234, vec![n1()], lim(None, Some(3), Some(1)), false, &["p1"]),
        c("Evict only 1 pod after sorting", &["p5", "p6", "p7"], vec![n1()], lim(None, None, None), false, &["p7"]),
        c(
            "conflicts with critical pod (1)",
            &["p1", "non-evict"],
            vec![n1()],
            lim(Some(1), None, None),
            false,
            &["p1"],
        ),
        c(
            "conflicts with critical pod (2)",
            &["p1", "non-evict"],
            vec![n1()],
            lim(Some(1), None, None),
            false,
            &["p1"],
        ),
        c(
            "node selectors don't match available nodes",
            &["p8", "non-evict"],
            vec![n1(), n2],
            lim(Some(1), None, None),
            true,
            &[],
        ),
        c(
            "only other node is not schedulable",
            &["p8", "non-evict"],
            vec![n1(), n3],
            lim(Some(1), None, None),
            true,
            &[],
        ),
        c("No pod to evicted since all pod terminating", &["p9", "p10"], vec![n1()], lim(None, None, None), false, &[]),
        c(
            "only other node doesn't have enough resources",
            p1234,
            vec![n1(), node("n4", 2, 2, 1)],
            lim(Some(3), None, None),
            true,
            &[],
        ),
        c(
            "anti-affinity among different node",
            &["p1", "p11"],
            vec![n1(), region(node("n5", 200, 3000, 10))],
            lim(None, None, None),
            false,
            &["p1"],
        ),
    ]
}

#[test]
fn upstream_pod_anti_affinity() {
    let cases = cases();
    let (mut ported, mut passed) = (0, 0);
    let mut failures = Vec::new();
    for c in cases {
        ported += 1;
        let args = RemovePodsViolatingInterPodAntiAffinityArgs::default();
        let policy = policy(
            DefaultEvictorArgs { node_fit: c.node_fit, ..Default::default() },
            REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY,
            PluginArgs::RemovePodsViolatingInterPodAntiAffinity(Box::new(args.clone())),
            c.limits,
        );
        let pods = c.pods.iter().map(|p| upstream_pod(p)).collect();
        let out = run_once(c.nodes, pods, &policy, |cy, pr| run(cy, pr, &args));
        if evicted_names(&out) == c.want {
            passed += 1;
        } else {
            failures.push(format!("{}: evicted {:?}, want {:?}", c.name, evicted_names(&out), c.want));
        }
    }
    println!("upstream vectors RemovePodsViolatingInterPodAntiAffinity: {ported} ported, {passed} passed, 0 skipped");
    assert_eq!(ported, 12);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The rule names the other pod, its node and the topology key; kept pods
/// say why; an evicted pod stops conflicting at once.
#[test]
fn rule_texts_and_reasons() {
    let host = "kubernetes.io/hostname";
    let mut n1 = test_node("node-1");
    n1.labels.insert(host.into(), "node-1".into());
    let mut n2 = test_node("node-2");
    n2.labels.insert(host.into(), "node-2".into());
    let x = labels(test_pod("x", "node-2"), "app", "web");
    let mut y = anti(labels(test_pod("y", "node-2"), "app", "web"), "app", "web", host);
    y.priority = Some(10);
    // z conflicts with x and y but goes after y (higher priority).
    let mut z = anti(labels(test_pod("z", "node-2"), "app", "web"), "app", "web", host);
    z.priority = Some(20);
    let lone = anti(test_pod("lone", "node-1"), "app", "web", host);
    let plain = test_pod("plain", "node-1");
    let args = RemovePodsViolatingInterPodAntiAffinityArgs::default();
    let policy = policy(
        DefaultEvictorArgs::default(),
        REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY,
        PluginArgs::RemovePodsViolatingInterPodAntiAffinity(Box::new(args.clone())),
        Limits::default(),
    );
    let out = run_once(vec![n1, n2], vec![x, y, z, lone, plain], &policy, |c, p| run(c, p, &args));
    let rules: Vec<(&str, &str)> = out.evictions.iter().map(|e| (e.pod.name.as_str(), e.rule.as_str())).collect();
    // y goes first and conflicts with x; z then still conflicts with x.
    assert_eq!(
        rules,
        [
            ("y", "required anti-affinity with default/x on node-2 (topologyKey kubernetes.io/hostname)"),
            ("z", "required anti-affinity with default/x on node-2 (topologyKey kubernetes.io/hostname)"),
        ]
    );
    // lone (no conflicting pod), plain and x (no required anti-affinity) do
    // not break the rule: counted, not listed.
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(out.not_matching, 3);
}

/// Two pods that only conflict with each other: the first evicted, the
/// second then has no conflict left.
#[test]
fn evicted_pod_stops_conflicting() {
    let a = anti(labels(test_pod("a", "n1"), "app", "db"), "app", "db", "region");
    let b = anti(labels(test_pod("b", "n1"), "app", "db"), "app", "db", "region");
    let args = RemovePodsViolatingInterPodAntiAffinityArgs::default();
    let policy = policy(
        DefaultEvictorArgs::default(),
        REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY,
        PluginArgs::RemovePodsViolatingInterPodAntiAffinity(Box::new(args.clone())),
        Limits::default(),
    );
    let out = run_once(vec![region(test_node("n1")), test_node("n2")], vec![a, b], &policy, |c, p| run(c, p, &args));
    assert_eq!(evicted_names(&out), ["a"]);
    // b no longer conflicts once a is gone: counted, not listed.
    assert!(out.skipped.is_empty());
    assert_eq!(out.not_matching, 1);
}
