//! descheduler v0.36 `removepodshavingtoomanyrestarts/toomanyrestarts_test.go`
//! TestRemovePodsHavingTooManyRestarts (20) and `validation_test.go`
//! TestValidateRemovePodsHavingTooManyRestartsArgs (5), ported as data.
//!
//! `initPods`: pod-0 … pod-9 on node1 (100m, owner kind Pod), pod-i with
//! 5·i init-container restarts and two containers of 10·i each; pod-6 is a
//! DaemonSet pod, pod-7 has local storage, pod-8 is a mirror pod. Two bare
//! CPU consumers (150m) sit on node4 and node5.

use super::state_support::{build_pod, check_validation, cs, owner_of, run_vectors, status_mut, Case};
use crate::model::node::{Taint, TaintEffect};
use crate::model::pod::{PodInfo, PodPhase, Volume, VolumeSource};
use crate::planner::tests::node;
use crate::policy::{
    PluginArgs, RemovePodsHavingTooManyRestartsArgs as Args, REMOVE_PODS_HAVING_TOO_MANY_RESTARTS as PLUGIN,
};

fn init_pods() -> Vec<PodInfo> {
    let mut pods: Vec<PodInfo> = (0..=9)
        .map(|i| {
            let mut p = build_pod(&format!("pod-{i}"), 100, 0, "node1");
            p.owners = vec![owner_of("Pod")];
            let st = status_mut(&mut p);
            let mut init = cs("init");
            init.restart_count = 5 * i;
            st.init_containers = vec![init];
            st.containers = (0..2)
                .map(|k| {
                    let mut c = cs(&format!("c{k}"));
                    c.restart_count = 10 * i;
                    c
                })
                .collect();
            p
        })
        .collect();
    pods[6].owners = vec![owner_of("DaemonSet")];
    pods[7].volumes =
        vec![Volume { name: "sample".into(), source: VolumeSource::HostPath { path: "somePath".into() } }];
    pods[8].annotations.insert("kubernetes.io/config.mirror".into(), "mirror".into());
    pods.push(build_pod("CPU-consumer-1", 150, 100, "node4"));
    pods.push(build_pod("CPU-consumer-2", 150, 100, "node5"));
    pods
}

fn nodes(names: &[&str]) -> Vec<crate::model::node::NodeInfo> {
    names
        .iter()
        .map(|n| match *n {
            "node2" => {
                let mut x = node("node2", 2000, 3000, 10);
                x.taints = vec![Taint { key: "hardware".into(), value: "gpu".into(), effect: TaintEffect::NoSchedule }];
                x
            }
            "node3" => {
                let mut x = node("node3", 2000, 3000, 10);
                x.unschedulable = true;
                x
            }
            "node4" => node("node4", 200, 3000, 10),
            other => node(other, 2000, 3000, 10),
        })
        .collect()
}

struct Row {
    name: &'static str,
    args: Args,
    nodes: &'static [&'static str],
    count: usize,
    per_node: Option<u32>,
    per_namespace: Option<u32>,
    node_fit: bool,
    apply: Option<fn(&mut PodInfo)>,
}

fn row(name: &'static str, threshold: i32, init: bool, nodes: &'static [&'static str], count: usize) -> Row {
    let args = Args { pod_restart_threshold: threshold, including_init_containers: init, ..Default::default() };
    Row { name, args, nodes, count, per_node: None, per_namespace: None, node_fit: false, apply: None }
}

fn with_states(mut r: Row, states: &[&str], apply: Option<fn(&mut PodInfo)>) -> Row {
    r.args.states = states.iter().map(|s| s.to_string()).collect();
    r.apply = apply;
    r.per_node = Some(3);
    r
}

fn limited(mut r: Row, node_fit: bool) -> Row {
    r.per_node = Some(3);
    r.node_fit = node_fit;
    r
}

fn rows() -> Vec<Row> {
    let n1: &[&str] = &["node1"];
    let mut per_ns = row(
        "All pods have total restarts equals threshold(maxNoOfPodsToEvictPerNamespace=3), 3 pod evictions",
        1,
        true,
        n1,
        3,
    );
    per_ns.per_namespace = Some(3);
    let clbo = |p: &mut PodInfo| {
        if let Some(c) = p.status.as_mut().and_then(|s| s.containers.first_mut()) {
            c.waiting_reason = Some("CrashLoopBackOff".into());
        }
    };
    let init_clbo = |p: &mut PodInfo| {
        let mut c = cs("init");
        c.waiting_reason = Some("CrashLoopBackOff".into());
        status_mut(p).init_containers = vec![c];
    };
    vec![
        row("All pods have total restarts under threshold, no pod evictions", 10000, true, n1, 0),
        row("Some pods have total restarts bigger than threshold", 1, true, n1, 6),
        row("Nine pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", 25, true, n1, 6),
        row("Nine pods have total restarts equals threshold(includingInitContainers=false), 5 pod evictions", 25, false, n1, 5),
        row("All pods have total restarts equals threshold(includingInitContainers=true), 6 pod evictions", 20, true, n1, 6),
        row("Nine pods have total restarts equals threshold(includingInitContainers=false), 6 pod evictions", 20, false, n1, 6),
        row("Five pods have total restarts bigger than threshold(includingInitContainers=true), but only 1 pod eviction", 5 * 25 + 1, true, n1, 1),
        row("Five pods have total restarts bigger than threshold(includingInitContainers=false), but only 1 pod eviction", 5 * 20 + 1, false, n1, 1),
        limited(row("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3), 3 pod evictions", 1, true, n1, 3), false),
        per_ns,
        limited(row("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is tainted, 0 pod evictions", 1, true, &["node1", "node2"], 0), true),
        limited(row("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node is not schedulable, 0 pod evictions", 1, true, &["node1", "node3"], 0), true),
        limited(row("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node does not have enough CPU, 0 pod evictions", 1, true, &["node1", "node4"], 0), true),
        limited(row("All pods have total restarts equals threshold(maxPodsToEvictPerNode=3) but the only other node has enough CPU, 3 pod evictions", 1, true, &["node1", "node5"], 3), true),
        limited(with_states(row("pods are in CrashLoopBackOff with states=CrashLoopBackOff, 3 pod evictions", 1, false, &["node1", "node5"], 3), &["CrashLoopBackOff"], Some(clbo)), true),
        limited(with_states(row("pods without CrashLoopBackOff with states=CrashLoopBackOff, 0 pod evictions", 1, false, &["node1", "node5"], 0), &["CrashLoopBackOff"], None), true),
        with_states(row("pods running with state=Running, 3 pod evictions", 1, false, n1, 3), &["Running"], Some(|p| p.phase = Some(PodPhase::Running))),
        with_states(row("pods pending with state=Running, 0 pod evictions", 1, false, n1, 0), &["Running"], Some(|p| p.phase = Some(PodPhase::Pending))),
        with_states(row("pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=true), 3 pod evictions", 1, true, n1, 3), &["CrashLoopBackOff"], Some(init_clbo)),
        with_states(row("pods pending with initContainer with states=CrashLoopBackOff threshold(includingInitContainers=false), 0 pod evictions", 1, false, n1, 0), &["CrashLoopBackOff"], Some(init_clbo)),
    ]
}

#[test]
fn upstream_vectors_too_many_restarts() {
    let cases: Vec<Case> = rows()
        .into_iter()
        .map(|r| {
            let mut c = Case::new(r.name, PluginArgs::RemovePodsHavingTooManyRestarts(Box::new(r.args)));
            c.nodes = nodes(r.nodes);
            c.pods = init_pods();
            if let Some(f) = r.apply {
                c.pods.iter_mut().for_each(f);
            }
            c.count = r.count;
            c.max_per_node = r.per_node;
            c.max_per_namespace = r.per_namespace;
            c.evictor.node_fit = r.node_fit;
            c
        })
        .collect();
    assert_eq!(cases.len(), 20);
    run_vectors(PLUGIN, &cases);
}

/// validation_test.go TestValidateRemovePodsHavingTooManyRestartsArgs (5).
#[test]
fn upstream_validation_vectors_too_many_restarts() {
    let args = |t: i32, s: &[&str]| Args {
        pod_restart_threshold: t,
        states: s.iter().map(|x| x.to_string()).collect(),
        ..Default::default()
    };
    let states = "states must be one of [CrashLoopBackOff Running]";
    let both = format!("[invalid PodsHavingTooManyRestarts threshold, {states}]");
    let cases = [
        ("valid arg, no errors", args(1, &["Running"]).validate(), None),
        (
            "invalid PodRestartThreshold arg, expects errors",
            args(0, &[]).validate(),
            Some("invalid PodsHavingTooManyRestarts threshold"),
        ),
        ("invalid States arg, expects errors", args(1, &["Failed"]).validate(), Some(states)),
        ("allows CrashLoopBackOff state", args(1, &["CrashLoopBackOff"]).validate(), None),
        (
            "invalid PodRestartThreshold arg and invalid States arg, expects errors",
            args(0, &["Failed"]).validate(),
            Some(both.as_str()),
        ),
    ];
    check_validation(PLUGIN, &cases);
}

/// kdrift's own case: most restarts first, the rule and skip texts with the
/// numbers, a node limit moving on to the next node.
#[test]
fn most_restarts_first_with_numbers() {
    let pod = |name: &str, node_name: &str, restarts: i32, init: i32| {
        let mut p = build_pod(name, 100, 0, node_name);
        p.owners = vec![owner_of("ReplicaSet")];
        p.phase = Some(PodPhase::Running);
        let st = status_mut(&mut p);
        let mut c = cs("app");
        c.restart_count = restarts;
        let mut i = cs("init");
        i.restart_count = init;
        st.containers = vec![c];
        st.init_containers = vec![i];
        p
    };
    let args = Args { pod_restart_threshold: 5, including_init_containers: true, ..Default::default() };
    let mut c = Case::new("kdrift", PluginArgs::RemovePodsHavingTooManyRestarts(Box::new(args)));
    c.nodes = nodes(&["a", "b"]);
    c.pods = vec![pod("few", "a", 3, 1), pod("some", "a", 5, 0), pod("many", "a", 7, 2), pod("b-many", "b", 9, 0)];
    c.max_per_node = Some(1);
    let plan = c.plan(PLUGIN);
    let run = &plan.runs[0];
    let got: Vec<(&str, usize, &str)> =
        run.evictions.iter().map(|e| (e.pod.name.as_str(), e.rank_on_node, e.rule.as_str())).collect();
    assert_eq!(
        got,
        [
            ("many", 1, "restarts 9 (containers 7, init containers 2) >= podRestartThreshold 5"),
            ("b-many", 1, "restarts 9 (containers 9, init containers 0) >= podRestartThreshold 5"),
        ]
    );
    let skip = |n: &str| run.skipped.iter().find(|s| s.pod.name == n).map(|s| (s.message.clone(), s.upstream_message));
    // few (4 restarts < 5) breaks nothing: counted, not listed.
    assert_eq!(skip("few"), None);
    assert_eq!(run.not_matching, 1);
    assert_eq!(skip("some"), Some(("maximum number of evicted pods per node reached".to_string(), true)));
}
