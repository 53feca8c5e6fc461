//! Parity vectors: descheduler v0.36 `removepodsviolatingnodeaffinity/node_affinity_test.go`
//! TestRemovePodsViolatingNodeAffinity (22 cases), plus kdrift's own: the
//! rule texts and reasons, and one whole-policy cycle showing that plugins
//! share the cycle's limits.
//!
//! Upstream's pods: `podWithNodeAffinity` (required: `kubernetes.io/desiredNode
//! In [yes]`, or the same as a preferred term of weight 10, or no affinity
//! for the unknown type), `pod1`, `pod2`; all 100m, with a normal owner.
//! Upstream names no pod; only `podWithNodeAffinity` can be evicted.

use super::support::{evicted_names, policy, run_once, test_node, test_pod, Limits};
use crate::model::node::{NodeInfo, Taint, TaintEffect};
use crate::model::pod::{NodeSelectorTerm, PodInfo, PreferredNodeTerm, Requirement, SelectorOperator};
use crate::planner::plan::SkipReason;
use crate::planner::plugins::node_affinity::run;
use crate::planner::tests::{now, pod};
use crate::planner::{plan, PlanOptions, Snapshot};
use crate::policy::plugins::node_affinity::{PREFERRED_DURING_SCHEDULING, REQUIRED_DURING_SCHEDULING};
use crate::policy::{
    DefaultEvictorArgs, PluginArgs, PluginConfig, Policy, RemovePodsViolatingNodeAffinityArgs,
    RemovePodsViolatingNodeTaintsArgs, REMOVE_PODS_VIOLATING_NODE_AFFINITY, REMOVE_PODS_VIOLATING_NODE_TAINTS,
};

const WITH: &str = "nodeWithLabels";
const WITHOUT: &str = "nodeWithoutLabels";
const UNSCHED: &str = "unschedulableNodeWithLabels";
const INVALID: &str = "requiredDuringSchedulingRequiredDuringExecution";

fn term(key: &str, value: &str) -> NodeSelectorTerm {
    NodeSelectorTerm {
        match_expressions: vec![Requirement {
            key: key.into(),
            operator: SelectorOperator::In,
            values: vec![value.into()],
        }],
        match_fields: vec![],
    }
}

fn labelled(name: &str) -> NodeInfo {
    let mut n = test_node(name);
    n.labels.insert("kubernetes.io/desiredNode".into(), "yes".into());
    n
}

fn unschedulable() -> NodeInfo {
    let mut n = labelled(UNSCHED);
    n.unschedulable = true;
    n
}

/// `addPodsToNode(node, deletionTimestamp, affinityType)`.
fn pods_on(node: &str, terminating: bool, kind: &str) -> Vec<PodInfo> {
    let mut with = test_pod("podWithNodeAffinity", node);
    match kind {
        REQUIRED_DURING_SCHEDULING => {
            with.affinity.node_affinity.required = Some(vec![term("kubernetes.io/desiredNode", "yes")])
        }
        PREFERRED_DURING_SCHEDULING => {
            with.affinity.node_affinity.preferred =
                vec![PreferredNodeTerm { weight: 10, preference: term("kubernetes.io/desiredNode", "yes") }]
        }
        _ => {}
    }
    let mut pods = vec![with, test_pod("pod1", node), test_pod("pod2", node)];
    if terminating {
        for p in &mut pods {
            p.rare.deletion_timestamp = Some(now());
        }
    }
    pods
}

struct Case {
    name: &'static str,
    kind: &'static str,
    pods: Vec<PodInfo>,
    nodes: Vec<NodeInfo>,
    limits: Limits,
    node_fit: bool,
    evicted: usize,
}

fn case(name: &'static str, kind: &'static str, pods: Vec<PodInfo>, nodes: Vec<NodeInfo>, evicted: usize) -> Case {
    Case { name, kind, pods, nodes, limits: Limits::default(), node_fit: false, evicted }
}

fn cases() -> Vec<Case> {
    let (req, pref) = (REQUIRED_DURING_SCHEDULING, PREFERRED_DURING_SCHEDULING);
    let two = || vec![test_node(WITHOUT), labelled(WITH)];
    let lim = |node: Option<u32>, namespace: Option<u32>, total: Option<u32>| Limits { node, namespace, total };
    let with_limits = |mut c: Case, l: Limits| {
        c.limits = l;
        c
    };
    let fit = |mut c: Case| {
        c.node_fit = true;
        c
    };
    vec![
        case("Invalid Affinity type", INVALID, pods_on(WITHOUT, false, INVALID), two(), 0),
        case("correctly scheduled [required]", req, pods_on(WITH, false, req), vec![labelled(WITH)], 0),
        case("correctly scheduled [preferred]", pref, pods_on(WITH, false, pref), vec![labelled(WITH)], 0),
        case("another schedulable node available [required]", req, pods_on(WITHOUT, false, req), two(), 1),
        case("better fit available [preferred]", pref, pods_on(WITHOUT, false, pref), two(), 1),
        with_limits(
            case("maxPodsToEvictPerNode 1 [required]", req, pods_on(WITHOUT, false, req), two(), 1),
            lim(Some(1), None, None),
        ),
        with_limits(
            case("maxPodsToEvictPerNode 1 [preferred]", pref, pods_on(WITHOUT, false, pref), two(), 1),
            lim(Some(1), None, None),
        ),
        with_limits(
            case("maxPodsToEvictPerNode 0 [required]", req, pods_on(WITHOUT, false, req), two(), 0),
            lim(Some(0), None, None),
        ),
        with_limits(
            case("maxPodsToEvictPerNode 0 [preferred]", pref, pods_on(WITHOUT, false, pref), two(), 0),
            lim(Some(0), None, None),
        ),
        with_limits(
            case("maxPodsToEvictPerNode 1, terminating [required]", req, pods_on(WITHOUT, true, req), two(), 0),
            lim(Some(1), None, None),
        ),
        with_limits(
            case("maxPodsToEvictPerNode 1, terminating [preferred]", pref, pods_on(WITHOUT, true, pref), two(), 0),
            lim(Some(1), None, None),
        ),
        with_limits(
            case("maxNoOfPodsToEvictPerNamespace 1 [required]", req, pods_on(WITHOUT, false, req), two(), 1),
            lim(None, Some(1), None),
        ),
        with_limits(
            case("maxNoOfPodsToEvictTotal 0 [required]", req, pods_on(WITHOUT, false, req), two(), 0),
            lim(None, Some(1), Some(0)),
        ),
        with_limits(
            case("maxNoOfPodsToEvictPerNamespace 1 [preferred]", pref, pods_on(WITHOUT, false, pref), two(), 1),
            lim(None, Some(1), None),
        ),
        with_limits(
            case("maxNoOfPodsToEvictPerNamespace 0 [required]", req, pods_on(WITHOUT, false, req), two(), 0),
            lim(None, Some(0), None),
        ),
        with_limits(
            case("maxNoOfPodsToEvictPerNamespace 0 [preferred]", pref, pods_on(WITHOUT, false, pref), two(), 0),
            lim(None, Some(0), None),
        ),
        with_limits(
            case(
                "maxNoOfPodsToEvictPerNamespace 1, terminating [required]",
                req,
                pods_on(WITHOUT, true, req),
                two(),
                0,
            ),
            lim(None, Some(1), None),
        ),
        with_limits(
            case(
                "maxNoOfPodsToEvictPerNamespace 1, terminating [preferred]",
                pref,
                pods_on(WITHOUT, true, pref),
                two(),
                0,
            ),
            lim(None, Some(1), None),
        ),
        fit(case(
            "no node where pod fits [required]",
            req,
            pods_on(WITHOUT, false, req),
            vec![test_node(WITHOUT), unschedulable()],
            0,
        )),
        fit(case(
            "no node where pod fits [preferred]",
            pref,
            pods_on(WITHOUT, false, pref),
            vec![test_node(WITHOUT), unschedulable()],
            0,
        )),
        fit(with_limits(
            case(
                "unschedulable node where pod could fit [required]",
                req,
                pods_on(WITHOUT, false, req),
                vec![labelled(WITH), unschedulable()],
                0,
            ),
            lim(Some(1), None, None),
        )),
        fit(with_limits(
            case(
                "unschedulable node where pod could fit [preferred]",
                pref,
                pods_on(WITHOUT, false, pref),
                vec![labelled(WITH), unschedulable()],
                0,
            ),
            lim(Some(1), None, None),
        )),
    ]
}

#[test]
fn upstream_remove_pods_violating_node_affinity() {
    let cases = cases();
    let (mut ported, mut passed) = (0, 0);
    let mut failures = Vec::new();
    for c in cases {
        ported += 1;
        let args =
            RemovePodsViolatingNodeAffinityArgs { node_affinity_type: vec![c.kind.to_string()], ..Default::default() };
        let evictor = DefaultEvictorArgs { node_fit: c.node_fit, ..Default::default() };
        let policy = policy(
            evictor,
            REMOVE_PODS_VIOLATING_NODE_AFFINITY,
            PluginArgs::RemovePodsViolatingNodeAffinity(Box::new(args.clone())),
            c.limits,
        );
        let out = run_once(c.nodes, c.pods, &policy, |cy, pr| run(cy, pr, &args));
        let names = evicted_names(&out);
        let want: Vec<&str> = if c.evicted == 1 { vec!["podWithNodeAffinity"] } else { vec![] };
        if names == want {
            passed += 1;
        } else {
            failures.push(format!("{}: evicted {names:?}, want {want:?}", c.name));
        }
    }
    println!("upstream vectors RemovePodsViolatingNodeAffinity: {ported} ported, {passed} passed, 0 skipped");
    assert_eq!(ported, 22);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The rule names the node and the fit; kept pods say why.
#[test]
fn rule_texts_and_reasons() {
    let nodes = vec![test_node("node-1"), test_node("node-2"), labelled("node-3")];
    let mut moved = test_pod("moved", "node-1");
    moved.affinity.node_affinity.required = Some(vec![term("kubernetes.io/desiredNode", "yes")]);
    let mut home = test_pod("home", "node-3");
    home.affinity.node_affinity.required = Some(vec![term("kubernetes.io/desiredNode", "yes")]);
    let mut soft = test_pod("soft", "node-1");
    soft.affinity.node_affinity.preferred =
        vec![PreferredNodeTerm { weight: 30, preference: term("kubernetes.io/desiredNode", "yes") }];
    let mut content = test_pod("content", "node-3");
    content.affinity.node_affinity.preferred = soft.affinity.node_affinity.preferred.clone();
    let args = RemovePodsViolatingNodeAffinityArgs {
        node_affinity_type: vec![REQUIRED_DURING_SCHEDULING.into(), "bogus".into(), PREFERRED_DURING_SCHEDULING.into()],
        ..Default::default()
    };
    let policy = policy(
        DefaultEvictorArgs::default(),
        REMOVE_PODS_VIOLATING_NODE_AFFINITY,
        PluginArgs::RemovePodsViolatingNodeAffinity(Box::new(args.clone())),
        Limits::default(),
    );
    let out = run_once(nodes, vec![moved, home, soft, content], &policy, |c, p| run(c, p, &args));
    let rules: Vec<(&str, &str)> = out.evictions.iter().map(|e| (e.pod.name.as_str(), e.rule.as_str())).collect();
    assert_eq!(
        rules,
        [
            ("moved", "required node affinity no longer matches node-1; fits node-3"),
            ("soft", "preferred node affinity weight 0 on node-1 < 30 on node-3; fits node-1 (its own node, requests not checked)"),
        ]
    );
    assert_eq!(out.notes, [r#"Invalid nodeAffinityType "bogus": skipped (descheduler logs this and goes on)"#]);
    // Required pass: home (still matches), soft and content (no required
    // affinity); preferred pass: moved and home (no preferred term), content
    // (already on the best node). None breaks the rule: counted, not listed
    // (moved, evicted by the first pass, is not "already evicted" in the
    // second, where it breaks nothing).
    assert!(out.skipped.is_empty(), "{:?}", out.skipped);
    assert_eq!(out.not_matching, 6);
}

/// descheduler v0.36 §1.1: one PodEvictor per cycle. With
/// `maxNoOfPodsToEvictTotal: 2`, NodeTaints (first in the profile) evicts 2
/// pods, so NodeAffinity evicts none: its violating pod is skipped with the
/// total limit.
#[test]
fn cycle_shares_limits_between_plugins() {
    let mut tainted = test_node("node-1");
    tainted.taints = vec![Taint::new("dedicated", "gpu", TaintEffect::NoSchedule)];
    let nodes = vec![tainted, test_node("node-2"), labelled("node-3")];
    let mut stray = pod("web", "stray", "node-2", 100, 0);
    stray.affinity.node_affinity.required = Some(vec![term("kubernetes.io/desiredNode", "yes")]);
    let pods = vec![pod("web", "a", "node-1", 100, 0), pod("web", "b", "node-1", 100, 0), stray];
    let mut policy = Policy { max_no_of_pods_to_evict_total: Some(2), ..Default::default() };
    let mut profile = crate::policy::Profile { name: "p".into(), ..Default::default() };
    let taints = RemovePodsViolatingNodeTaintsArgs::default();
    let affinity = RemovePodsViolatingNodeAffinityArgs {
        node_affinity_type: vec![REQUIRED_DURING_SCHEDULING.into()],
        ..Default::default()
    };
    profile.plugin_config = vec![
        PluginConfig {
            name: REMOVE_PODS_VIOLATING_NODE_TAINTS.into(),
            args: PluginArgs::RemovePodsViolatingNodeTaints(Box::new(taints)),
        },
        PluginConfig {
            name: REMOVE_PODS_VIOLATING_NODE_AFFINITY.into(),
            args: PluginArgs::RemovePodsViolatingNodeAffinity(Box::new(affinity)),
        },
    ];
    profile.plugins.deschedule.enabled =
        vec![REMOVE_PODS_VIOLATING_NODE_TAINTS.into(), REMOVE_PODS_VIOLATING_NODE_AFFINITY.into()];
    policy.profiles = vec![profile];
    let out = plan(&Snapshot::new(nodes, pods, now()), &policy, &PlanOptions::default());
    assert_eq!(out.aborted, None);
    assert_eq!(out.runs.len(), 2);
    assert_eq!(out.runs[0].plugin, REMOVE_PODS_VIOLATING_NODE_TAINTS);
    assert_eq!(evicted_names(&out.runs[0]), ["a", "b"]);
    assert_eq!(out.runs[0].evictions[1].counted.total, 2);
    assert_eq!(out.runs[1].plugin, REMOVE_PODS_VIOLATING_NODE_AFFINITY);
    assert!(out.runs[1].evictions.is_empty());
    let stray = out.runs[1].skipped.iter().find(|s| s.pod.name == "stray").expect("stray skipped");
    assert_eq!(stray.reason, SkipReason::MaxTotal);
    assert_eq!(stray.message, "maximum number of evicted pods per a descheduling cycle reached");
    assert_eq!(out.evictions_total, 2);
}
