//! Next steps on hand-built reports: one-node clusters, DaemonSet-only
//! nodes, the threshold pair, the request that fits the most nodes,
//! cordoned nodes, taints, affinity wordings.

use chrono::{DateTime, Utc};

use super::next_steps;
use crate::failed_scheduling::ReasonKind;
use crate::pending::{
    DefaultPolicyRelief, History, NodeLine, PendingReport, ReasonLine, Relief, ReliefPolicy, ResourceLine, Shortfall,
    StateAtFailure,
};

fn at() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2019-03-08T08:55:25Z").expect("t").with_timezone(&Utc)
}

/// A node with `cpu_requested` of 2000m requested.
fn node(name: &str, cpu_requested: i64, cordoned: bool, fails: &[&str]) -> NodeLine {
    NodeLine {
        name: name.into(),
        ready: Some(true),
        unschedulable: cordoned,
        pods: 3,
        resources: vec![ResourceLine {
            resource: "cpu".into(),
            allocatable: 2000,
            requested: cpu_requested,
            free: 2000 - cpu_requested,
            percent: cpu_requested as f64 / 20.0,
        }],
        fails: fails.iter().map(ToString::to_string).collect(),
        recorded_as: None,
        estimated: false,
    }
}

fn short(node: &str, requested: i64, free: i64) -> Shortfall {
    Shortfall {
        node: node.into(),
        resource: "cpu".into(),
        requested,
        free,
        short: requested - free,
        display: [format!("{requested}m"), format!("{free}m"), format!("{}m", requested - free)],
        exact_from: None,
    }
}

fn line(reason: &str, kind: ReasonKind, nodes: u32) -> ReasonLine {
    ReasonLine { reason: reason.into(), kind, nodes: Some(nodes), occurrences: 1, preemption_can_help: false }
}

fn report(nodes: Vec<NodeLine>, left: &[&str], shortfalls: Vec<Shortfall>, reasons: Vec<ReasonLine>) -> PendingReport {
    let total = nodes.len() as u32;
    PendingReport {
        namespace: "default".into(),
        name: "web-1".into(),
        uid: String::new(),
        history: History {
            first_failure: at(),
            last_failure: at(),
            occurrences: 1,
            failure_events: 1,
            scheduled: None,
            deleted_at: None,
            deleted_by: None,
            rejected: None,
            pending_seconds: 0,
            outcome: "pending",
        },
        total_nodes: Some(total),
        latest_message: String::new(),
        reasons,
        preemption: None,
        failures: Vec::new(),
        state: Some(StateAtFailure {
            at: at(),
            pod_known: true,
            pod_requests: vec![("cpu".into(), 500)],
            requests_without_limit: Vec::new(),
            nodes,
            constraints: Vec::new(),
            left: left.iter().map(ToString::to_string).collect(),
            shortfalls,
            reconstructed_message: None,
            matches_event: Some(true),
            pods_counted: 3,
            requested_is_lower_bound: false,
            spec_from: None,
        }),
        why_full: None,
        relief: Vec::new(),
        next_steps: Vec::new(),
        notes: Vec::new(),
    }
}

fn relief(node: &str, movable: usize, policy: Option<ReliefPolicy>) -> Relief {
    Relief {
        node: node.into(),
        resource: "cpu".into(),
        movable_pods: movable,
        movable_amount: 300 * movable as i64,
        fixed_pods: 2,
        lower_priority: false,
        policy,
        no_policy: None,
        default_policy: None,
    }
}

fn actions(r: &PendingReport) -> Vec<String> {
    next_steps(r).into_iter().map(|s| s.action).collect()
}

#[test]
fn a_one_node_cluster_gets_no_move_pods_elsewhere() {
    // erwee402/multi-k8s: minikube alone, "0/1 nodes are available: 1 Insufficient cpu."
    let r = report(
        vec![node("minikube", 1775, false, &["Insufficient cpu"])],
        &["minikube"],
        vec![short("minikube", 500, 225)],
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 1)],
    );
    let a = actions(&r);
    assert!(a.iter().all(|s| !s.contains("move pods elsewhere") && !s.contains("rebalance")), "{a:#?}");
    assert_eq!(a[0], "lower the pod's cpu request from 500m to at most 225m (it fits minikube then)");
    assert!(a[1].starts_with("minikube is the cluster's only node: no other node can take its pods"), "{a:#?}");
}

#[test]
fn only_daemonset_or_static_pods_on_the_node_get_no_move_pods_elsewhere() {
    let mut r = report(
        vec![
            node("a", 1900, false, &["Insufficient cpu"]),
            node("b", 100, false, &["node(s) didn't match pod affinity rules"]),
        ],
        &["a"],
        vec![short("a", 500, 100)],
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 1)],
    );
    r.relief = vec![relief("a", 0, None)];
    let a = actions(&r);
    assert!(a.iter().all(|s| !s.contains("move pods elsewhere")), "{a:#?}");
    assert!(a[1].starts_with("only DaemonSet or static pods hold cpu on a (2 pods): none can move"), "{a:#?}");
}

#[test]
fn the_move_step_names_the_threshold_pair_that_frees_the_node() {
    let mut r = report(
        vec![node("a", 1942, false, &["Insufficient cpu"]), node("b", 600, false, &["x"])],
        &["a"],
        vec![short("a", 100, 58)],
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 1)],
    );
    let policy = ReliefPolicy { threshold: 40.0, target: 70.0, nights: 1, evictions: 3, freed: 550 };
    r.relief = vec![relief("a", 4, Some(policy))];
    let a = actions(&r);
    assert!(
        a[1].starts_with(
            "free 42m of cpu on a: move pods elsewhere with `kdrift rebalance plan --policy FILE --simulate` and \
             LowNodeUtilization thresholds 40 % → targetThresholds 70 % in FILE (the simulation converges in 1 \
             night with 3 evictions, 550m of cpu off a;"
        ),
        "{a:#?}"
    );
}

/// New-user trial 39: the step said no threshold pair frees node-1 while
/// `kdrift rebalance plan --simulate` with the default policy freed 175m
/// there (RemoveDuplicates); the default policy's relief comes first.
#[test]
fn the_move_step_says_when_the_default_policy_already_frees_enough() {
    let mut r = report(
        vec![node("a", 1942, false, &["Insufficient cpu"]), node("b", 600, false, &["x"])],
        &["a"],
        vec![short("a", 100, 58)],
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 1)],
    );
    let mut relief_a = relief("a", 4, None);
    relief_a.no_policy = Some("no LowNodeUtilization threshold pair frees cpu on a in the simulation".into());
    relief_a.default_policy =
        Some(DefaultPolicyRelief { freed: 175, evictions: 3, plugins: vec!["RemoveDuplicates".into()] });
    r.relief = vec![relief_a.clone()];
    let a = actions(&r);
    assert!(
        a[1].starts_with(
            "free 42m of cpu on a: descheduler's default policy would, run once — `kdrift rebalance plan --simulate` \
             evicts 3 pods off a (RemoveDuplicates) and frees 175m of cpu there in one run"
        ),
        "{a:#?}"
    );
    // Freeing less than the shortfall is not enough: the other step stays.
    relief_a.default_policy.as_mut().expect("set above").freed = 41;
    r.relief = vec![relief_a];
    let a = actions(&r);
    assert!(a[1].starts_with("free 42m of cpu on a: move pods elsewhere by hand"), "{a:#?}");
}

/// New-user trial 42: a pod on a one-node cluster whose object is not
/// stored (no shortfall) was sent to `kdrift rebalance plan`, which then
/// said descheduler skips a cycle under 2 Ready nodes.
#[test]
fn insufficient_on_the_only_node_without_numbers_does_not_point_to_rebalance() {
    let mut r = report(
        vec![node("minikube", 1780, false, &[])],
        &[],
        Vec::new(),
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 1)],
    );
    r.state.as_mut().expect("state").pod_known = false;
    let a = actions(&r);
    assert_eq!(
        a,
        ["minikube is the cluster's only node: no other node can take its pods; lower the pod's request or add a \
          node; ingest the Pod object for exact numbers"],
    );
    // Two nodes: rebalancing can help.
    let r = report(
        vec![node("a", 1780, false, &[]), node("b", 1780, false, &[])],
        &[],
        Vec::new(),
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 2)],
    );
    assert!(actions(&r)[0].contains("`kdrift rebalance plan`"), "{:?}", actions(&r));
}

#[test]
fn the_smallest_request_fix_names_the_value_that_fits_the_most_nodes() {
    let r = report(
        vec![
            node("a", 1942, false, &["Insufficient cpu"]),
            node("b", 1970, false, &["Insufficient cpu"]),
            node("c", 1970, false, &["Insufficient cpu"]),
            node("d", 500, false, &["x"]),
        ],
        &["a", "b", "c"],
        vec![short("a", 100, 58), short("b", 100, 30), short("c", 100, 30)],
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 3)],
    );
    let a = actions(&r);
    assert_eq!(
        a[0],
        "lower the pod's cpu request from 100m to at most 30m (it fits 3 nodes then: c, b, a; at most 58m fits 1 node)"
    );
    assert_eq!(a.iter().filter(|s| s.starts_with("lower the pod's")).count(), 1, "{a:#?}");
}

#[test]
fn a_cordoned_node_that_would_take_the_pod_is_uncordoned_first() {
    let r = report(
        vec![
            node("a", 1942, false, &["Insufficient cpu"]),
            node("b", 200, true, &["node(s) were unschedulable"]),
            node("c", 200, true, &["node(s) were unschedulable", "Insufficient cpu"]),
        ],
        &["a"],
        vec![short("a", 100, 58)],
        vec![
            line("Insufficient cpu", ReasonKind::Insufficient, 1),
            line("node(s) were unschedulable", ReasonKind::Unschedulable, 2),
        ],
    );
    let steps = next_steps(&r);
    assert_eq!(
        steps[0].action,
        "uncordon b (`kubectl uncordon b`): it is cordoned and passes every other filter for this pod"
    );
    // Said once, not again as the generic cordon advice.
    assert_eq!(steps.iter().filter(|s| s.action.contains("uncordon")).count(), 1, "{steps:#?}");
}

#[test]
fn taint_advice_fits_the_nodes_that_exist() {
    let taint = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }";
    let one = report(
        vec![node("cp", 800, false, &[taint])],
        &[],
        Vec::new(),
        vec![line(taint, ReasonKind::UntoleratedTaint, 1)],
    );
    let a = actions(&one);
    assert!(a.iter().all(|s| !s.contains("worker nodes")), "{a:#?}");
    assert!(
        a[0].starts_with(
            "every node carries the control-plane taint node-role.kubernetes.io/control-plane:NoSchedule (set by \
             kubeadm on control-plane nodes): there is no worker node"
        ),
        "{a:#?}"
    );
    let custom = "node(s) had untolerated taint {dedicated: db}";
    let two = report(
        vec![node("a", 800, false, &[custom]), node("b", 800, false, &[custom])],
        &[],
        Vec::new(),
        vec![line(custom, ReasonKind::UntoleratedTaint, 2)],
    );
    assert_eq!(
        actions(&two)[0],
        "a, b carry the taint dedicated=db (set by hand or by the tool that provisions the nodes: no \
         Kubernetes component sets it): add a toleration for it to the pod, or remove the taint when it is stale \
         (`kubectl taint nodes a b dedicated-`)"
    );
    // Only the node that carries it is named (the generated memory/taint
    // story: node-2 tainted, node-1 short, the others without the affinity).
    let one = report(
        vec![
            node("node-1", 1990, false, &["Insufficient memory"]),
            node("node-2", 800, false, &["node(s) had untolerated taint(s)"]),
            node("node-3", 800, false, &["node(s) didn't match pod affinity rules"]),
        ],
        &[],
        Vec::new(),
        vec![line("node(s) had untolerated taint {dedicated: gpu}", ReasonKind::UntoleratedTaint, 1)],
    );
    assert_eq!(
        actions(&one)[0],
        "node-2 carries the taint dedicated=gpu (set by hand or by the tool that provisions the nodes: no \
         Kubernetes component sets it): add a toleration for it to the pod, or remove the taint when it is stale \
         (`kubectl taint nodes node-2 dedicated-`)"
    );
}

#[test]
fn affinity_or_anti_affinity_gets_advice_for_both() {
    let reason = "node(s) didn't match pod affinity/anti-affinity";
    let r = report(
        vec![node("a", 800, false, &[reason])],
        &[],
        Vec::new(),
        vec![line(reason, ReasonKind::PodAffinityOrAntiAffinity, 1)],
    );
    let a = actions(&r);
    assert!(a[0].contains("if its required pod affinity, the required pod affinity pins"), "{a:#?}");
    assert!(a[0].contains("if a required anti-affinity (the pod's, or an existing pod's against it), relax"), "{a:#?}");
}

/// New-user trial 43: a pod whose latest message names no node count
/// (kube-scheduler's "skip schedule deleting pod", a PVC being deleted) was
/// still sent to `kdrift rebalance plan` on a one-node cluster, and told to
/// ingest the Node object the store held.
#[test]
fn the_only_node_is_the_stores_not_the_latest_messages() {
    let mut r = report(
        vec![node("minikube", 775, false, &[])],
        &[],
        Vec::new(),
        vec![ReasonLine { nodes: None, occurrences: 12, ..line("Insufficient cpu", ReasonKind::Insufficient, 1) }],
    );
    r.total_nodes = None;
    r.latest_message = "skip schedule deleting pod: default/web-1".into();
    r.state.as_mut().expect("state").pod_known = false;
    assert_eq!(
        actions(&r),
        ["minikube is the cluster's only node: no other node can take its pods; lower the pod's request or add a \
          node; ingest the Pod object for exact numbers"],
    );
    // Two nodes stored, the Pod object not: only the Pod object is missing.
    let mut r = report(
        vec![node("a", 1780, false, &[]), node("b", 1780, false, &[])],
        &[],
        Vec::new(),
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 2)],
    );
    r.state.as_mut().expect("state").pod_known = false;
    assert_eq!(
        actions(&r),
        ["lower the pod's request or free room on a node (`kdrift rebalance plan`); ingest the Pod object for exact \
          numbers"]
    );
    // No Node object stored: both are asked for.
    r.state = None;
    assert_eq!(
        actions(&r),
        ["lower the pod's request or free room on a node (`kdrift rebalance plan`); ingest the Pod and Node objects \
          for exact numbers"]
    );
    // The message counts 3 nodes, the store holds 1: it misses nodes, so not "the only node".
    let mut r = report(
        vec![node("minikube", 1780, false, &[])],
        &[],
        Vec::new(),
        vec![line("Insufficient cpu", ReasonKind::Insufficient, 3)],
    );
    r.total_nodes = Some(3);
    assert_eq!(actions(&r), ["lower the pod's request or free room on a node (`kdrift rebalance plan`)"]);
}

/// New-user trial 46: coredns on a booting minikube waited 1 s
/// (`node(s) had untolerated taint(s)`: the not-ready taint) and was
/// scheduled; it was told to remove the taint by hand.
#[test]
fn a_pod_scheduled_after_a_short_wait_resolved_by_itself() {
    use crate::pending::ScheduledAt;
    let taint = line("node(s) had untolerated taint(s)", ReasonKind::UntoleratedTaint, 1);
    let mut r = report(vec![node("minikube", 0, false, &[])], &["minikube"], Vec::new(), vec![taint]);
    let bound = DateTime::parse_from_rfc3339("2019-03-08T08:55:26Z").expect("t").with_timezone(&Utc);
    r.history.scheduled = Some(ScheduledAt { at: bound, node: "minikube".into() });
    r.history.outcome = "scheduled";
    r.history.pending_seconds = 1;
    let steps = next_steps(&r);
    assert_eq!(steps.len(), 1, "{steps:#?}");
    assert_eq!(steps[0].addresses, "node(s) had untolerated taint(s)");
    assert_eq!(
        steps[0].action,
        "resolved by itself after 1s: the scheduler bound the pod to minikube at 2019-03-08T08:55:26Z; the node was \
         likely not yet Ready (a booting or recovering node carries node.kubernetes.io/not-ready until its kubelet \
         reports Ready, and the node controller then removes it): no toleration or taint removal needed unless it \
         recurs"
    );
    assert!(!steps[0].action.contains("kubectl taint"));
    // A custom taint gone within the minute: not the node's readiness.
    r.reasons = vec![line("node(s) had untolerated taint {team: db}", ReasonKind::UntoleratedTaint, 1)];
    assert!(actions(&r)[0].ends_with(
        "; the taint was gone by then (removed by whoever set it): no toleration or \
                                        taint removal needed unless it recurs"
    ));
    // Another reason: nothing to change.
    r.reasons = vec![line("Insufficient cpu", ReasonKind::Insufficient, 1)];
    assert_eq!(
        actions(&r),
        ["resolved by itself after 1s: the scheduler bound the pod to minikube at 2019-03-08T08:55:26Z: nothing to \
          change unless it recurs"]
    );
    // A wait past the minute, or a binding the kubelet refused: the usual steps.
    r.reasons = vec![line("node(s) had untolerated taint(s)", ReasonKind::UntoleratedTaint, 1)];
    r.history.pending_seconds = 61;
    assert!(actions(&r)[0].contains("kubectl taint nodes"), "{:#?}", actions(&r));
}
