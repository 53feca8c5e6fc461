//! Filter model tests: the reference example, each plugin, message building,
//! scoring and property tests.

use serde_json::{json, Value};

use super::*;
use crate::model::node::{NodeInfo, TaintEffect};
use crate::model::pod::PodInfo;

fn node(name: &str, cpu: &str, extra: Value) -> NodeInfo {
    let mut v = json!({
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}
    });
    merge(&mut v, extra);
    NodeInfo::from_json(&v).expect("valid node")
}

fn pod(ns: &str, name: &str, extra: Value) -> PodInfo {
    let mut v = json!({
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{ns}-{name}")},
        "spec": {"containers": [{"name": "main"}]},
        "status": {"phase": "Pending"}
    });
    merge(&mut v, extra);
    PodInfo::from_json(&v).expect("valid pod")
}

/// Deep-merges `extra` into `base` (objects merge, everything else replaces).
fn merge(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(b), Value::Object(e)) => {
            for (k, v) in e {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, e) => *slot = e,
    }
}

fn requests(cpu: &str) -> Value {
    json!({"spec": {"containers": [{"name": "main", "resources": {"requests": {"cpu": cpu}}}]}})
}

fn bound(node: &str, mut extra: Value) -> Value {
    merge(&mut extra, json!({"spec": {"nodeName": node}, "status": {"phase": "Running"}}));
    extra
}

fn messages(e: &NodeEvaluation) -> Vec<String> {
    e.first_failure().map(PluginFailure::messages).unwrap_or_default()
}

/// The reference example (`kubernetes-events.md` §1): 5 nodes with 2000m
/// each; node-1 has 1942m requested and hosts app=plex; the new pod asks for
/// 100m with required affinity to app=plex on the hostname.
fn plex_cluster() -> (ClusterState, PodInfo) {
    let nodes = (1..=5).map(|i| node(&format!("node-{i}"), "2000m", json!({}))).collect();
    let mut plex = bound("node-1", requests("1442m"));
    merge(&mut plex, json!({"metadata": {"labels": {"app": "plex"}}}));
    let pods = vec![pod("media", "plex-0", plex), pod("media", "sidekick", bound("node-1", requests("500m")))];
    let incoming = pod(
        "media",
        "transcoder",
        json!({"spec": {
            "containers": [{"name": "main", "resources": {"requests": {"cpu": "100m"}}}],
            "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "plex"}}, "topologyKey": "kubernetes.io/hostname"}
            ]}}
        }}),
    );
    (ClusterState::new(nodes, pods), incoming)
}

#[test]
fn reference_example_plex_affinity() {
    let (state, incoming) = plex_cluster();
    assert_eq!(state.usage("node-1").get("cpu"), 1942);
    let evals = evaluate(&state, &incoming);
    assert_eq!(evals.len(), 5);

    let n1 = &evals[0];
    assert_eq!(n1.node, "node-1");
    assert_eq!(n1.failures.len(), 1, "node-1 fails only NodeResourcesFit: {n1:?}");
    let fit = n1.first_failure().expect("node-1 fails");
    assert_eq!(fit.plugin, Plugin::NodeResourcesFit);
    assert_eq!(
        fit.reasons,
        vec![FilterFailure::Insufficient(InsufficientResource {
            resource: "cpu".into(),
            requested: 100,
            used: 1942,
            allocatable: 2000,
        })]
    );
    let FilterFailure::Insufficient(cpu) = &fit.reasons[0] else { panic!("not insufficient") };
    assert_eq!((cpu.requested, cpu.free(), cpu.short_by()), (100, 58, 42));
    assert!(!fit.reasons[0].is_unresolvable());
    assert!(!n1.fails(Plugin::InterPodAffinity));

    for e in &evals[1..] {
        assert_eq!(e.failures.len(), 1, "{e:?}");
        let f = e.first_failure().expect("fails");
        assert_eq!(f.plugin, Plugin::InterPodAffinity);
        assert_eq!(
            f.reasons,
            vec![FilterFailure::PodAffinityMismatch {
                topology_key: "kubernetes.io/hostname".into(),
                missing_label: false,
            }]
        );
        assert_eq!(messages(e), vec!["node(s) didn't match pod affinity rules".to_string()]);
        assert_eq!(f.reasons[0].kind(), FailureKind::PodAffinityMismatch);
    }
    assert_eq!(
        fit_error_message(5, &evals),
        "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match pod affinity rules."
    );
    assert_eq!(
        scheduler_message(&state, &incoming).as_deref(),
        Some("0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match pod affinity rules.")
    );
    assert_eq!(pick_node(&state, &incoming), None);
}

#[test]
fn first_failure_is_what_the_scheduler_records_but_all_are_kept() {
    // node-2 is cordoned AND outside the affinity: the scheduler counts it as
    // unschedulable only, the evaluation keeps both.
    let (mut state, incoming) = plex_cluster();
    state.nodes[1].unschedulable = true;
    let evals = evaluate(&state, &incoming);
    let n2 = &evals[1];
    assert_eq!(n2.failures.len(), 2);
    assert_eq!(n2.first_failure().map(|f| f.plugin), Some(Plugin::NodeUnschedulable));
    assert!(n2.fails(Plugin::InterPodAffinity));
    assert_eq!(
        fit_error_message(5, &evals),
        "0/5 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable, 3 node(s) didn't match pod affinity rules."
    );
}

#[test]
fn node_unschedulable() {
    let mut cordoned = node("n1", "1", json!({"spec": {"unschedulable": true}}));
    cordoned.taints.clear();
    let state = ClusterState::new(vec![cordoned], vec![]);
    let plain = pod("default", "p", json!({}));
    let e = &evaluate(&state, &plain)[0];
    assert_eq!(e.first_failure().map(|f| f.reasons.clone()), Some(vec![FilterFailure::NodeUnschedulable]));
    assert_eq!(messages(e), vec!["node(s) were unschedulable"]);
    assert!(e.first_failure().is_some_and(|f| f.reasons[0].is_unresolvable()));
    let tolerant = pod(
        "default",
        "p",
        json!({"spec": {"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}}),
    );
    assert!(evaluate(&state, &tolerant)[0].is_feasible());
}

#[test]
fn node_name() {
    let state = ClusterState::new(vec![node("n1", "1", json!({})), node("n2", "1", json!({}))], vec![]);
    let p = pod("default", "p", json!({"spec": {"nodeName": "n2"}}));
    let evals = evaluate(&state, &p);
    assert_eq!(
        evals[0].first_failure().map(|f| f.reasons.clone()),
        Some(vec![FilterFailure::NodeNameMismatch { requested: "n2".into() }])
    );
    assert_eq!(messages(&evals[0]), vec!["node(s) didn't match the requested node name"]);
    assert!(evals[1].is_feasible());
    // An unbound copy may go anywhere.
    assert!(evaluate(&state, &p.unbound_copy()).iter().all(NodeEvaluation::is_feasible));
}

#[test]
fn taint_toleration() {
    let tainted = node(
        "n1",
        "1",
        json!({"spec": {"taints": [
            {"key": "soft", "effect": "PreferNoSchedule"},
            {"key": "gpu", "value": "true", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
        ]}}),
    );
    let state = ClusterState::new(vec![tainted], vec![]);
    let e = &evaluate(&state, &pod("default", "p", json!({})))[0];
    let f = e.first_failure().expect("tainted");
    assert_eq!(f.plugin, Plugin::TaintToleration);
    assert_eq!(
        f.reasons,
        vec![FilterFailure::UntoleratedTaint { taint: Taint::new("gpu", "true", TaintEffect::NoSchedule) }]
    );
    assert_eq!(f.further.len(), 1, "the NoExecute taint is kept as further");
    assert_eq!(messages(e), vec!["node(s) had untolerated taint(s)"]);

    let tolerant = pod(
        "default",
        "p",
        json!({"spec": {"tolerations": [
            {"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists"}
        ]}}),
    );
    assert!(evaluate(&state, &tolerant)[0].is_feasible(), "PreferNoSchedule never filters");
    let wrong_value = pod(
        "default",
        "p",
        json!({"spec": {"tolerations": [{"operator": "Exists", "effect": "NoExecute"}, {"key": "gpu", "value": "false"}]}}),
    );
    assert!(evaluate(&state, &wrong_value)[0].fails(Plugin::TaintToleration));
}

#[test]
fn node_affinity_selector_and_required_terms() {
    let state = ClusterState::new(
        vec![
            node("a1", "1", json!({"metadata": {"labels": {"zone": "a", "disk": "ssd"}}})),
            node("a2", "1", json!({"metadata": {"labels": {"zone": "a"}}})),
            node("b1", "1", json!({"metadata": {"labels": {"zone": "b", "disk": "ssd"}}})),
        ],
        vec![],
    );
    let p = pod(
        "default",
        "p",
        json!({"spec": {
            "nodeSelector": {"disk": "ssd"},
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
            ]}}}
        }}),
    );
    let evals = evaluate(&state, &p);
    assert!(evals[0].is_feasible());
    assert_eq!(
        evals[1].first_failure().map(|f| f.reasons.clone()),
        Some(vec![FilterFailure::NodeAffinityMismatch { node_selector: true, required_affinity: false }])
    );
    assert_eq!(
        evals[2].first_failure().map(|f| f.reasons.clone()),
        Some(vec![FilterFailure::NodeAffinityMismatch { node_selector: false, required_affinity: true }])
    );
    assert_eq!(messages(&evals[2]), vec!["node(s) didn't match Pod's node affinity/selector"]);
}

#[test]
fn daemonset_pods_are_narrowed_by_prefilter() {
    let state = ClusterState::new(
        vec![node("n1", "1", json!({})), node("n2", "1", json!({})), node("n3", "1", json!({}))],
        vec![pod("default", "hog", bound("n2", requests("1")))],
    );
    let ds = pod(
        "kube-system",
        "ds-x",
        json!({"spec": {
            "containers": [{"name": "main", "resources": {"requests": {"cpu": "100m"}}}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}
            ]}}}
        }}),
    );
    let evals = evaluate(&state, &ds);
    let n1 = evals[0].first_failure().expect("excluded");
    assert_eq!(n1.plugin, Plugin::NodeAffinity);
    assert_eq!(n1.messages(), vec!["node(s) didn't satisfy plugin(s) [NodeAffinity]"]);
    assert_eq!(n1.further.first().map(FilterFailure::kind), Some(FailureKind::NodeAffinityMismatch));
    assert_eq!(evals[0].failures.len(), 1);
    assert_eq!(
        scheduler_message(&state, &ds).as_deref(),
        Some("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].")
    );

    let mut conflict = ds.clone();
    conflict.affinity.node_affinity.required = Some(vec![crate::model::pod::NodeSelectorTerm {
        match_expressions: vec![],
        match_fields: vec![
            crate::model::pod::Requirement {
                key: "metadata.name".into(),
                operator: crate::model::pod::SelectorOperator::In,
                values: vec!["n1".into()],
            },
            crate::model::pod::Requirement {
                key: "metadata.name".into(),
                operator: crate::model::pod::SelectorOperator::In,
                values: vec!["n2".into()],
            },
        ],
    }]);
    assert_eq!(prefilter_rejection(&conflict).as_deref(), Some("pod affinity terms conflict"));
    assert_eq!(
        scheduler_message(&state, &conflict).as_deref(),
        Some("0/3 nodes are available: pod affinity terms conflict.")
    );
}

#[test]
fn node_ports() {
    let web = json!({"spec": {"containers": [{"name": "main", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}});
    let state = ClusterState::new(
        vec![node("n1", "1", json!({})), node("n2", "1", json!({}))],
        vec![pod("default", "web-1", bound("n1", web.clone()))],
    );
    let evals = evaluate(&state, &pod("default", "web-2", web));
    assert_eq!(evals[0].first_failure().map(|f| f.plugin), Some(Plugin::NodePorts));
    assert_eq!(messages(&evals[0]), vec!["node(s) didn't have free ports for the requested pod ports"]);
    assert!(!evals[0].first_failure().is_some_and(|f| f.reasons[0].is_unresolvable()));
    assert!(evals[1].is_feasible());
}

#[test]
fn node_resources_fit_reports_every_shortage() {
    let small = node(
        "n1",
        "1",
        json!({"status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "2", "ephemeral-storage": "10Gi"}}}),
    );
    let filler = json!({"spec": {"containers": [{"name": "main", "resources": {"requests": {"cpu": "400m", "memory": "400Mi"}}}]}});
    let state = ClusterState::new(
        vec![small],
        vec![
            pod("default", "a", bound("n1", filler.clone())),
            pod("default", "b", bound("n1", filler.clone())),
            // Terminal pods and pods on unknown nodes do not count.
            pod("default", "done", {
                let mut v = bound("n1", filler.clone());
                merge(&mut v, json!({"status": {"phase": "Succeeded"}}));
                v
            }),
            pod("default", "elsewhere", bound("ghost", filler.clone())),
        ],
    );
    assert_eq!(
        state.usage("n1"),
        ResourceList::from_pairs(&[("cpu", 800), ("memory", 800 * 1024 * 1024), ("pods", 2)])
    );
    let big = pod(
        "default",
        "big",
        json!({"spec": {"containers": [{"name": "main", "resources": {"requests": {
            "cpu": "300m", "memory": "300Mi", "ephemeral-storage": "1Gi", "nvidia.com/gpu": "1"
        }}}]}}),
    );
    let e = &evaluate(&state, &big)[0];
    let f = e.first_failure().expect("does not fit");
    assert_eq!(f.plugin, Plugin::NodeResourcesFit);
    assert_eq!(
        f.messages(),
        vec!["Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient nvidia.com/gpu"]
    );
    assert_eq!(
        f.reasons.iter().map(FilterFailure::kind).collect::<Vec<_>>(),
        vec![
            FailureKind::TooManyPods,
            FailureKind::InsufficientResource,
            FailureKind::InsufficientResource,
            FailureKind::InsufficientResource
        ]
    );
    // The gpu can never fit this node: unresolvable; cpu could after evictions.
    assert!(f.reasons[3].is_unresolvable());
    assert!(!f.reasons[1].is_unresolvable());
    // One node, four reasons: the counts add up to more than N.
    assert_eq!(
        fit_error_message(1, &evaluate(&state, &big)),
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Insufficient nvidia.com/gpu, 1 Too many pods."
    );
    // A pod asking for nothing needs only a slot.
    let empty = pod("default", "empty", json!({}));
    assert_eq!(messages(&evaluate(&state, &empty)[0]), vec!["Too many pods"]);
    // The incoming pod never counts against itself.
    let a_again = state.pods[0].clone();
    let e = &evaluate(&state, &a_again.unbound_copy())[0];
    assert!(e.is_feasible(), "{e:?}");
}

#[test]
fn inter_pod_affinity_first_pod_of_a_self_affine_group_goes_anywhere() {
    let state = ClusterState::new(vec![node("n1", "1", json!({})), node("n2", "1", json!({}))], vec![]);
    let affine = json!({
        "metadata": {"labels": {"app": "cache"}},
        "spec": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}
        ]}}}
    });
    assert!(evaluate(&state, &pod("default", "cache-0", affine.clone())).iter().all(NodeEvaluation::is_feasible));
    // A pod that does not match its own term stays Pending.
    let mut other = affine.clone();
    merge(&mut other, json!({"metadata": {"labels": {"app": "web"}}}));
    assert!(evaluate(&state, &pod("default", "web-0", other)).iter().all(|e| e.fails(Plugin::InterPodAffinity)));
    // Once a matching pod exists, only its domain qualifies.
    let state = ClusterState::new(state.nodes.clone(), vec![pod("default", "cache-0", bound("n2", affine.clone()))]);
    let evals = evaluate(&state, &pod("default", "cache-1", affine.clone()));
    assert!(evals[0].fails(Plugin::InterPodAffinity));
    assert!(evals[1].is_feasible());
    // From another namespace, cache-0 does not match (namespaces default to the pod's
    // own), so no pod matches anywhere and the self-match special case applies again.
    let evals = evaluate(&state, &pod("other", "cache-1", affine));
    assert!(evals.iter().all(NodeEvaluation::is_feasible));
}

#[test]
fn inter_pod_affinity_missing_topology_label() {
    let mut bare = node("n1", "1", json!({}));
    bare.labels.clear();
    let state = ClusterState::new(vec![bare], vec![]);
    let p = pod(
        "default",
        "p",
        json!({"metadata": {"labels": {"app": "x"}}, "spec": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "topology.kubernetes.io/zone"}
        ]}}}}),
    );
    let e = &evaluate(&state, &p)[0];
    assert_eq!(
        e.first_failure().map(|f| f.reasons.clone()),
        Some(vec![FilterFailure::PodAffinityMismatch {
            topology_key: "topology.kubernetes.io/zone".into(),
            missing_label: true,
        }])
    );
}

#[test]
fn inter_pod_anti_affinity_both_directions() {
    let zone = |z: &str| json!({"metadata": {"labels": {"topology.kubernetes.io/zone": z}}});
    let nodes = vec![node("a1", "4", zone("a")), node("a2", "4", zone("a")), node("b1", "4", zone("b"))];
    let anti = json!({
        "metadata": {"labels": {"app": "db"}},
        "spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.kubernetes.io/zone"}
        ]}}}
    });
    let state = ClusterState::new(nodes, vec![pod("prod", "db-0", bound("a1", anti.clone()))]);

    // The incoming pod's own anti-affinity rejects the whole zone a.
    let evals = evaluate(&state, &pod("prod", "db-1", anti));
    for e in &evals[..2] {
        let f = e.first_failure().expect("zone a rejected");
        assert_eq!(
            f.reasons[0],
            FilterFailure::PodAntiAffinityConflict {
                topology_key: "topology.kubernetes.io/zone".into(),
                existing_pod: "prod/db-0".into(),
            }
        );
        assert_eq!(f.messages(), vec!["node(s) didn't match pod anti-affinity rules"]);
        // The existing pod's own term also rejects it: reported as further.
        assert_eq!(f.further.first().map(FilterFailure::kind), Some(FailureKind::ExistingPodAntiAffinity));
    }
    assert!(evals[2].is_feasible());

    // A plain pod labelled app=db is rejected by the EXISTING pod's anti-affinity only.
    let evals = evaluate(&state, &pod("prod", "db-tool", json!({"metadata": {"labels": {"app": "db"}}})));
    let f = evals[1].first_failure().expect("rejected by existing pod");
    assert_eq!(
        f.reasons,
        vec![FilterFailure::ExistingPodAntiAffinity {
            existing_pod: "prod/db-0".into(),
            topology_key: "topology.kubernetes.io/zone".into(),
        }]
    );
    assert_eq!(f.messages(), vec!["node(s) didn't satisfy existing pods anti-affinity rules"]);
    assert!(evals[2].is_feasible());
    // In another namespace the existing pod's term does not apply.
    assert!(evaluate(&state, &pod("dev", "db-tool", json!({"metadata": {"labels": {"app": "db"}}})))
        .iter()
        .all(NodeEvaluation::is_feasible));
}

#[test]
fn namespace_lists_and_selectors() {
    let state = ClusterState::new(
        vec![node("n1", "1", json!({})), node("n2", "1", json!({}))],
        vec![pod("team-a", "api-0", bound("n1", json!({"metadata": {"labels": {"app": "api"}}})))],
    );
    let with_term = |term: Value| {
        pod(
            "team-b",
            "client",
            json!({"spec": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}}),
        )
    };
    let feasible = |p: &PodInfo| -> Vec<bool> { evaluate(&state, p).iter().map(NodeEvaluation::is_feasible).collect() };
    let base = json!({"labelSelector": {"matchLabels": {"app": "api"}}, "topologyKey": "kubernetes.io/hostname"});
    // Own namespace only: nothing matches, and the pod does not match itself.
    assert_eq!(feasible(&with_term(base.clone())), vec![false, false]);
    let mut listed = base.clone();
    merge(&mut listed, json!({"namespaces": ["team-a"]}));
    assert_eq!(feasible(&with_term(listed)), vec![true, false]);
    let mut all = base.clone();
    merge(&mut all, json!({"namespaceSelector": {}}));
    assert_eq!(feasible(&with_term(all)), vec![true, false]);
    let mut by_name = base;
    merge(&mut by_name, json!({"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "team-a"}}}));
    assert_eq!(feasible(&with_term(by_name)), vec![true, false]);
}

#[test]
fn fit_error_message_sorts_items_as_text() {
    let eval = |node: &str, f: FilterFailure| NodeEvaluation {
        node: node.into(),
        failures: vec![PluginFailure { plugin: f.plugin(), reasons: vec![f], further: vec![] }],
    };
    let mut evals = Vec::new();
    for i in 0..10 {
        evals.push(eval(&format!("t{i}"), FilterFailure::NodeUnschedulable));
    }
    for i in 0..2 {
        evals.push(eval(
            &format!("c{i}"),
            FilterFailure::Insufficient(InsufficientResource {
                resource: "cpu".into(),
                requested: 1,
                used: 0,
                allocatable: 0,
            }),
        ));
    }
    evals.push(NodeEvaluation { node: "ok".into(), failures: vec![] });
    // "10 …" sorts before "2 …" as text.
    assert_eq!(
        fit_error_message(13, &evals),
        "0/13 nodes are available: 10 node(s) were unschedulable, 2 Insufficient cpu."
    );
    assert_eq!(fit_error_message(0, &[]), "0/0 nodes are available:");
    assert_eq!(
        scheduler_message(&ClusterState::default(), &PodInfo::new("d", "p")).as_deref(),
        Some("no nodes available to schedule pods")
    );
}

#[test]
fn pick_node_prefers_the_emptier_node_and_reports_ties() {
    let nodes = vec![node("n1", "4", json!({})), node("n2", "4", json!({})), node("n3", "4", json!({}))];
    let state = ClusterState::new(nodes, vec![pod("default", "busy", bound("n1", requests("2")))]);
    let p = pod("default", "p", requests("1"));
    let placement = pick_node(&state, &p).expect("feasible");
    assert_eq!(placement.node, "n2");
    assert_eq!(placement.tie_with, vec!["n3".to_string()]);
    assert_eq!(placement.candidates.len(), 3);
    assert_eq!(placement.candidates[2].node, "n1");
    // n2: cpu (4000-1000)*100/4000 = 75; memory (8Gi-200Mi)*100/8Gi = 97 → 86.
    assert_eq!(placement.candidates[0].node_resources_fit, 86);
    // balanced: cpu .25, memory 0 → std .125 → 87.
    assert_eq!(placement.candidates[0].balanced_allocation, 87);
    // taint toleration: no taints anywhere → 100 each, weight 3.
    assert_eq!(placement.candidates[0].taint_toleration, 100);
    assert_eq!(placement.score, 86 + 87 + 300);
    // n1: cpu (4000-3000)*100/4000 = 25; memory (8Gi-400Mi) → 95 → 60.
    assert_eq!(placement.candidates[2].node_resources_fit, 60);
}

#[test]
fn pick_node_follows_preferences() {
    let nodes = vec![
        node("n1", "4", json!({"metadata": {"labels": {"disk": "hdd"}}})),
        node(
            "n2",
            "4",
            json!({"metadata": {"labels": {"disk": "ssd"}}, "spec": {"taints": [{"key": "spot", "effect": "PreferNoSchedule"}]}}),
        ),
        node("n3", "4", json!({"metadata": {"labels": {"disk": "ssd"}}})),
    ];
    let state = ClusterState::new(nodes, vec![]);
    let p = pod(
        "default",
        "p",
        json!({"spec": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}
        ]}}}}),
    );
    let placement = pick_node(&state, &p).expect("feasible");
    assert_eq!(placement.node, "n3");
    assert!(placement.tie_with.is_empty());
    let n2 = placement.candidates.iter().find(|c| c.node == "n2").expect("n2 scored");
    assert_eq!((n2.node_affinity, n2.taint_toleration), (100, 0));
    let n1 = placement.candidates.iter().find(|c| c.node == "n1").expect("n1 scored");
    assert_eq!((n1.node_affinity, n1.taint_toleration), (0, 100));
}

#[test]
fn pick_node_follows_preferred_pod_affinity() {
    let nodes = vec![node("n1", "4", json!({})), node("n2", "4", json!({}))];
    let state = ClusterState::new(
        nodes,
        vec![pod("default", "cache", bound("n2", json!({"metadata": {"labels": {"app": "cache"}}})))],
    );
    let p = pod(
        "default",
        "p",
        json!({"spec": {"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}}
        ]}}}}),
    );
    let placement = pick_node(&state, &p).expect("feasible");
    assert_eq!(placement.node, "n2");
    assert_eq!(placement.candidates[0].inter_pod_affinity, 100);
    assert_eq!(placement.candidates[1].inter_pod_affinity, 0);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn container(cpu: u32, mem: u32) -> Value {
        json!({"name": "c", "resources": {"requests": {"cpu": format!("{cpu}m"), "memory": format!("{mem}Mi")}}})
    }

    proptest! {
        #[test]
        fn requests_are_never_negative_and_cover_every_container(
            apps in prop::collection::vec((0u32..5000, 0u32..4096), 0..4),
            inits in prop::collection::vec((0u32..5000, 0u32..4096, any::<bool>()), 0..4),
            overhead in 0u32..500,
        ) {
            let mut init_json = Vec::new();
            for (c, m, sidecar) in &inits {
                let mut v = container(*c, *m);
                if *sidecar {
                    merge(&mut v, json!({"restartPolicy": "Always"}));
                }
                init_json.push(v);
            }
            let p = pod("default", "p", json!({"spec": {
                "containers": apps.iter().map(|(c, m)| container(*c, *m)).collect::<Vec<_>>(),
                "initContainers": init_json,
                "overhead": {"cpu": format!("{overhead}m")}
            }}));
            for (_, v) in p.requests.iter() {
                prop_assert!(v >= 0);
            }
            for (_, v) in p.non_zero_requests.iter() {
                prop_assert!(v >= 0);
            }
            let app_cpu: i64 = apps.iter().map(|(c, _)| i64::from(*c)).sum();
            prop_assert!(p.requests.get("cpu") >= app_cpu + i64::from(overhead));
            for (c, _, _) in &inits {
                prop_assert!(p.requests.get("cpu") >= i64::from(*c) + i64::from(overhead));
            }
            prop_assert!(p.non_zero_requests.get("cpu") >= p.requests.get("cpu"));
        }

        #[test]
        fn evaluation_is_deterministic_and_ignores_pod_order(
            node_cpus in prop::collection::vec(0u32..4000, 1..6),
            placed in prop::collection::vec((0usize..6, 0u32..2000, any::<bool>()), 0..12),
            want in 0u32..3000,
            anti in any::<bool>(),
        ) {
            let nodes: Vec<NodeInfo> = node_cpus
                .iter()
                .enumerate()
                .map(|(i, c)| node(&format!("n{i}"), &format!("{c}m"), json!({})))
                .collect();
            let mut pods = Vec::new();
            for (i, (n, c, labelled)) in placed.iter().enumerate() {
                let mut v = bound(&format!("n{}", n % node_cpus.len()), requests(&format!("{c}m")));
                if *labelled {
                    merge(&mut v, json!({"metadata": {"labels": {"app": "x"}}}));
                }
                pods.push(pod("default", &format!("p{i}"), v));
            }
            let mut incoming = json!({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [
                {"name": "main", "resources": {"requests": {"cpu": format!("{want}m")}}}
            ]}});
            if anti {
                merge(&mut incoming, json!({"spec": {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}
                ]}}}}));
            }
            let incoming = pod("default", "new", incoming);
            let state = ClusterState::new(nodes.clone(), pods.clone());
            let first = evaluate(&state, &incoming);
            prop_assert_eq!(&first, &evaluate(&state, &incoming));
            prop_assert_eq!(pick_node(&state, &incoming), pick_node(&state, &incoming));

            let mut reversed = pods;
            reversed.reverse();
            let other = evaluate(&ClusterState::new(nodes, reversed), &incoming);
            let feasible = |e: &[NodeEvaluation]| e.iter().map(NodeEvaluation::is_feasible).collect::<Vec<_>>();
            prop_assert_eq!(feasible(&first), feasible(&other));
            prop_assert_eq!(fit_error_message(node_cpus.len(), &first), fit_error_message(node_cpus.len(), &other));
            // Feasible exactly when the cpu fits and (without anti-affinity) nothing else can fail.
            for (i, e) in first.iter().enumerate() {
                let used = state.usage(&format!("n{i}")).get("cpu");
                let fits = i64::from(want) == 0 || i64::from(want) <= i64::from(node_cpus[i]) - used;
                prop_assert_eq!(fits, !e.fails(Plugin::NodeResourcesFit));
            }
        }
    }
}
