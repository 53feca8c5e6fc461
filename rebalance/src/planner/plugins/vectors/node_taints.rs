//! Parity vectors: descheduler v0.36 `removepodsviolatingnodetaints/node_taint_test.go`
//! TestDeletePodsViolatingNodeTaints (23 cases) and TestToleratesTaint (6),
//! plus kdrift's own cases (comparison operators, rule texts, the cycle's
//! shared limits).
//!
//! Upstream's `createNoScheduleTaint(key, value, i)` ignores `key` and
//! `value`: every node taint there is `testTaint<i>=test<i>` (so
//! `withTestingTaint1` and `withBothTaints1` carry `testTaint1=test1`), and
//! `addTolerationToPod` replaces the tolerations (p15 keeps only the second).
//! Ported as written. Where upstream says "p5 or p6", kdrift's input order
//! evicts p5.

use super::support::{evicted_names, policy, run_once, test_node, test_pod, Limits};
use crate::model::node::{NodeInfo, Taint, TaintEffect};
use crate::model::pod::{PodInfo, Toleration, TolerationOperator, Volume, VolumeSource};
use crate::planner::plan::SkipReason;
use crate::planner::plugins::node_taints::{run, taint_text, tolerates};
use crate::planner::tests::owner;
use crate::planner::SYSTEM_CRITICAL_PRIORITY;
use crate::policy::{
    DefaultEvictorArgs, PluginArgs, RemovePodsViolatingNodeTaintsArgs, REMOVE_PODS_VIOLATING_NODE_TAINTS,
};

fn tainted(name: &str, i: u32, effect: TaintEffect) -> NodeInfo {
    let mut n = test_node(name);
    n.taints = vec![Taint::new(&format!("testTaint{i}"), &format!("test{i}"), effect)];
    n
}

/// `withBothTaints1`: twice `testTaint1=test1:NoSchedule` (see the module docs).
fn both_taints(name: &str) -> NodeInfo {
    let mut n = tainted(name, 1, TaintEffect::NoSchedule);
    n.taints.push(n.taints[0].clone());
    n
}

fn tol(mut p: PodInfo, key: &str, value: &str, effect: TaintEffect) -> PodInfo {
    p.tolerations = vec![Toleration::equal(key, value, Some(effect))];
    p
}

/// The pods of TestDeletePodsViolatingNodeTaints, by name.
fn upstream_pod(name: &str) -> PodInfo {
    let ns = || TaintEffect::NoSchedule;
    match name {
        "p1" | "p3" => tol(test_pod(name, "n1"), "testTaint1", "test1", ns()),
        "p4" => tol(test_pod(name, "n1"), "testTaintX1", "testX1", ns()),
        "p2" | "p5" | "p6" => test_pod(name, "n1"),
        "p7" => {
            let mut p = test_pod(name, "n2");
            p.namespace = "kube-system".into();
            p.priority = Some(SYSTEM_CRITICAL_PRIORITY);
            p
        }
        "p8" => {
            let mut p = test_pod(name, "n2");
            p.owners = vec![owner("DaemonSet", "ds")];
            p
        }
        "p9" => {
            let mut p = test_pod(name, "n2");
            p.volumes =
                vec![Volume { name: "sample".into(), source: VolumeSource::HostPath { path: "somePath".into() } }];
            p
        }
        "p10" => {
            let mut p = test_pod(name, "n2");
            p.annotations.insert("kubernetes.io/config.mirror".into(), "mirror".into());
            p
        }
        "p11" => test_pod(name, "n2"),
        "p12" => {
            // Named "p11" upstream too.
            let mut p = test_pod("p11", "n2");
            p.node_selector.insert("datacenter".into(), "west".into());
            p
        }
        "p13" => tol(test_pod(name, "n5"), "testTaint0", "test0", TaintEffect::PreferNoSchedule),
        "p14" => tol(test_pod(name, "n7"), "testTaint1", "test1", ns()),
        "p15" => tol(test_pod(name, "n7"), "testingTaint1", "testing1", ns()),
        other => panic!("no upstream pod {other}"),
    }
}

#[derive(Default)]
struct Case {
    name: &'static str,
    pods: &'static [&'static str],
    nodes: Vec<NodeInfo>,
    limits: Limits,
    evict_local_storage: bool,
    evict_system_critical: bool,
    node_fit: bool,
    prefer: bool,
    excluded: &'static [&'static str],
    included: Option<&'static [&'static str]>,
    want: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    let n1 = || tainted("n1", 1, TaintEffect::NoSchedule);
    let n2 = || tainted("n2", 1, TaintEffect::NoSchedule);
    let one = Some(1);
    vec![
        Case {
            name: "Pods not tolerating node taint should be evicted",
            pods: &["p1", "p2", "p3"],
            nodes: vec![n1()],
            want: &["p2"],
            ..Default::default()
        },
        Case {
            name: "Pods with tolerations but not tolerating node taint should be evicted",
            pods: &["p1", "p3", "p4"],
            nodes: vec![n1()],
            want: &["p4"],
            ..Default::default()
        },
        Case {
            name: "Only <maxNoOfPodsToEvictTotal> number of Pods ...",
            pods: &["p1", "p5", "p6"],
            nodes: vec![n1()],
            limits: Limits { node: Some(2), total: one, ..Default::default() },
            want: &["p5"],
            ..Default::default()
        },
        Case {
            name: "Only <maxPodsToEvictPerNode> number of Pods ...",
            pods: &["p1", "p5", "p6"],
            nodes: vec![n1()],
            limits: Limits { node: one, ..Default::default() },
            want: &["p5"],
            ..Default::default()
        },
        Case {
            name: "Only <maxNoOfPodsToEvictPerNamespace> number of Pods ... (1)",
            pods: &["p1", "p5", "p6"],
            nodes: vec![n1()],
            limits: Limits { namespace: one, ..Default::default() },
            want: &["p5"],
            ..Default::default()
        },
        Case {
            name: "Only <maxNoOfPodsToEvictPerNamespace> number of Pods ... (2)",
            pods: &["p1", "p5", "p6"],
            nodes: vec![n1()],
            limits: Limits { namespace: one, ..Default::default() },
            want: &["p5"],
            ..Default::default()
        },
        Case {
            name: "Critical pods not tolerating node taint should not be evicted",
            pods: &["p7", "p8", "p9", "p10"],
            nodes: vec![n2()],
            want: &[],
            ..Default::default()
        },
        Case {
            name: "Critical pods except storage pods not tolerating node taint should not be evicted",
            pods: &["p7", "p8", "p9", "p10"],
            nodes: vec![n2()],
            evict_local_storage: true,
            want: &["p9"],
            ..Default::default()
        },
        Case {
            name: "Critical and non critical pods, only non critical pods ... evicted",
            pods: &["p7", "p8", "p10", "p11"],
            nodes: vec![n2()],
            want: &["p11"],
            ..Default::default()
        },
        Case {
            name: "... evicted even if they are critical",
            pods: &["p2", "p7", "p9", "p10"],
            nodes: vec![n1(), n2()],
            evict_system_critical: true,
            want: &["p2", "p7"],
            ..Default::default()
        },
        Case {
            name: "Pod p2 ... doesn't tolerate taints on other nodes",
            pods: &["p1", "p2", "p3"],
            nodes: vec![n1(), n2()],
            node_fit: true,
            want: &[],
            ..Default::default()
        },
        Case {
            name: "Pod p12 ... other nodes don't match it's selector",
            pods: &["p1", "p3", "p12"],
            nodes: vec![n1(), {
                let mut n = test_node("n3");
                n.labels.insert("datacenter".into(), "east".into());
                n
            }],
            node_fit: true,
            want: &[],
            ..Default::default()
        },
        Case {
            name: "Pod p2 ... other nodes are unschedulable",
            pods: &["p1", "p2", "p3"],
            nodes: vec![n1(), {
                let mut n = test_node("n4");
                n.unschedulable = true;
                n
            }],
            node_fit: true,
            want: &[],
            ..Default::default()
        },
        Case {
            name: "PreferNoSchedule taint, not enabled",
            pods: &["p13"],
            nodes: vec![tainted("n5", 1, TaintEffect::PreferNoSchedule)],
            want: &[],
            ..Default::default()
        },
        Case {
            name: "PreferNoSchedule taint, enabled",
            pods: &["p13"],
            nodes: vec![tainted("n5", 1, TaintEffect::PreferNoSchedule)],
            prefer: true,
            want: &["p13"],
            ..Default::default()
        },
        Case {
            name: "excluded node taints (by key)",
            pods: &["p2"],
            nodes: vec![n1()],
            excluded: &["excludedTaint1", "testTaint1"],
            want: &[],
            ..Default::default()
        },
        Case {
            name: "excluded node taints (by key and value)",
            pods: &["p2"],
            nodes: vec![n1()],
            excluded: &["testTaint1=test1"],
            want: &[],
            ..Default::default()
        },
        Case {
            name: "excluded taint matches the key but not the value",
            pods: &["p2"],
            nodes: vec![n1()],
            excluded: &["testTaint1=test2"],
            want: &["p2"],
            ..Default::default()
        },
        Case {
            name: "... the only available node does not have enough resources",
            pods: &["p2", "p7", "p9", "p10"],
            nodes: vec![n1(), {
                let mut n = crate::planner::tests::node("n6", 1, 1, 1);
                n.taints = tainted("x", 1, TaintEffect::PreferNoSchedule).taints;
                n
            }],
            evict_system_critical: true,
            node_fit: true,
            want: &[],
            ..Default::default()
        },
        Case {
            name: "Pods tolerating included taints should not get evicted even with other taints present",
            pods: &["p1"],
            nodes: vec![both_taints("n7")],
            included: Some(&["testTaint1=test1"]),
            want: &[],
            ..Default::default()
        },
        Case {
            name: "Pods not tolerating not included taints should not get evicted",
            pods: &["p1", "p2", "p4"],
            nodes: vec![n1()],
            included: Some(&["testTaint2=test2"]),
            want: &[],
            ..Default::default()
        },
        Case {
            name: "Pods tolerating includedTaint ... not tolerating includedTaints should get evicted",
            pods: &["p1", "p2", "p3"],
            nodes: vec![n1()],
            included: Some(&["testTaint1=test1"]),
            want: &["p2"],
            ..Default::default()
        },
        Case {
            name: "Pods not tolerating all taints are evicted when includedTaints is empty",
            pods: &["p14", "p15"],
            nodes: vec![both_taints("n7")],
            want: &["p15"],
            ..Default::default()
        },
    ]
}

#[test]
fn upstream_delete_pods_violating_node_taints() {
    let cases = cases();
    let (mut ported, mut passed) = (0, 0);
    let mut failures = Vec::new();
    for c in &cases {
        ported += 1;
        let evictor = DefaultEvictorArgs {
            node_fit: c.node_fit,
            evict_local_storage_pods: c.evict_local_storage.then_some(true),
            evict_system_critical_pods: c.evict_system_critical.then_some(true),
            ..Default::default()
        };
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let args = RemovePodsViolatingNodeTaintsArgs {
            include_prefer_no_schedule: c.prefer,
            excluded_taints: list(c.excluded),
            included_taints: c.included.map(list),
            ..Default::default()
        };
        let policy = policy(
            evictor,
            REMOVE_PODS_VIOLATING_NODE_TAINTS,
            PluginArgs::RemovePodsViolatingNodeTaints(Box::new(args.clone())),
            c.limits,
        );
        let pods = c.pods.iter().map(|p| upstream_pod(p)).collect();
        let out = run_once(c.nodes.clone(), pods, &policy, |cy, pr| run(cy, pr, &args));
        if evicted_names(&out) == c.want {
            passed += 1;
        } else {
            failures.push(format!("{}: evicted {:?}, want {:?}", c.name, evicted_names(&out), c.want));
        }
    }
    println!("upstream vectors RemovePodsViolatingNodeTaints: {ported} ported, {passed} passed, 0 skipped");
    assert_eq!(cases.len(), 23);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// TestToleratesTaint (6 cases), then the comparison operators (kdrift's).
#[test]
fn upstream_tolerates_taint() {
    let ns = || Some(TaintEffect::NoSchedule);
    let t = |k: &str, v: &str, e: TaintEffect| Taint::new(k, v, e);
    let cases = [
        (Toleration::exists("foo", ns()), t("foo", "", TaintEffect::NoSchedule), true),
        (Toleration::exists("foo", ns()), t("foo", "bar", TaintEffect::NoSchedule), true),
        (Toleration::exists("", ns()), t("foo", "bar", TaintEffect::NoSchedule), true),
        (Toleration::equal("foo", "bar", ns()), t("foo", "bar", TaintEffect::NoSchedule), true),
        (Toleration::equal("foo", "value1", ns()), t("foo", "value2", TaintEffect::NoSchedule), false),
        (Toleration::equal("foo", "bar", ns()), t("foo", "bar", TaintEffect::NoExecute), false),
    ];
    let mut passed = 0;
    for (i, (tol, taint, want)) in cases.iter().enumerate() {
        assert_eq!(tolerates(tol, taint), *want, "case {i}");
        passed += 1;
    }
    println!("upstream vectors RemovePodsViolatingNodeTaints TestToleratesTaint: 6 ported, {passed} passed, 0 skipped");
    let cmp = |op: &str, v: &str| Toleration {
        operator: TolerationOperator::Other(op.into()),
        ..Toleration::equal("gpu-mem", v, None)
    };
    let taint = t("gpu-mem", "16", TaintEffect::NoSchedule);
    assert!(tolerates(&cmp("Lt", "32"), &taint)); // 16 < 32
    assert!(!tolerates(&cmp("Lt", "16"), &taint));
    assert!(tolerates(&cmp("Gt", "8"), &taint)); // 16 > 8
    assert!(!tolerates(&cmp("Gt", "16"), &taint));
    assert!(!tolerates(&cmp("Gt", "x"), &taint)); // unparsable toleration value
    assert!(!tolerates(&cmp("Lt", "32"), &t("gpu-mem", "big", TaintEffect::NoSchedule)));
    assert!(!tolerates(&cmp("Lt", "32"), &t("other", "16", TaintEffect::NoSchedule)));
    assert!(!tolerates(&cmp("Like", "32"), &taint));
}

/// The eviction names the taint; every kept pod says why, with names.
#[test]
fn rule_texts_and_skips() {
    let mut n2 = test_node("node-2");
    n2.taints =
        vec![Taint::new("dedicated", "gpu", TaintEffect::NoSchedule), Taint::new("maint", "", TaintEffect::NoExecute)];
    let mut web = test_pod("web", "node-2");
    web.tolerations = vec![];
    let gpu = tol(test_pod("gpu", "node-2"), "dedicated", "gpu", TaintEffect::NoSchedule);
    let mut ds = test_pod("ds", "node-2");
    ds.owners = vec![owner("DaemonSet", "agent")];
    let quiet = test_pod("quiet", "node-1");
    let args = RemovePodsViolatingNodeTaintsArgs::default();
    let policy = policy(
        DefaultEvictorArgs::default(),
        REMOVE_PODS_VIOLATING_NODE_TAINTS,
        PluginArgs::RemovePodsViolatingNodeTaints(Box::new(args.clone())),
        Limits { node: Some(1), ..Default::default() },
    );
    let mut web2 = test_pod("web2", "node-2");
    web2.tolerations = vec![];
    let out =
        run_once(vec![test_node("node-1"), n2], vec![quiet, web, gpu, ds, web2], &policy, |c, p| run(c, p, &args));
    assert_eq!(evicted_names(&out), ["web"]);
    assert_eq!(out.evictions[0].rule, "node node-2's taint dedicated=gpu:NoSchedule is not tolerated");
    assert_eq!(out.evictions[0].plugin, REMOVE_PODS_VIOLATING_NODE_TAINTS);
    let msg = |name: &str| out.skipped.iter().find(|s| s.pod.name == name).map(|s| s.message.clone()).expect(name);
    // quiet (no taint on node-1) and gpu (tolerates it) break nothing:
    // counted, not listed.
    assert!(out.skipped.iter().all(|s| s.pod.name != "quiet" && s.pod.name != "gpu"));
    assert_eq!(out.not_matching, 2);
    assert_eq!(msg("ds"), "daemonset pods are protected against eviction");
    let web2 = out.skipped.iter().find(|s| s.pod.name == "web2").expect("web2");
    assert_eq!(web2.reason, SkipReason::MaxPerNode);
    assert_eq!(taint_text(&Taint::new("maint", "", TaintEffect::NoExecute)), "maint:NoExecute");
}
