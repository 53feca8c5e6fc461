//! The wordings issue 33 (item 3) found unparsed, each written from its format:
//! a PreFilter message followed by `preemption:`, `no nodes available to
//! schedule pods`, Volcano's `0/N nodes are unavailable`, the ~2015
//! `failed to find fit for pod` form, and PVC messages with quoted names in the
//! counted, predicate-list and bracketed forms.

use super::tests::{check, insufficient, modern, other, preempt, pvc, rc, taint};
use super::*;

use PvcProblem::*;
use Reason::*;

fn with_prefilter(total: u32, reason: Reason) -> FailedScheduling {
    FailedScheduling { prefilter: Some(reason), ..modern(total, vec![]) }
}

// ---- PreFilter message (no per-node count) then `preemption:` ----

#[test]
fn prefilter_then_preemption_part_is_parsed() {
    check(
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        preempt(with_prefilter(3, pvc(None, Unbound)), 3, vec![rc(3, PreemptionNotHelpful)]),
    );
    // 1.25–1.27 end the preemption part with `..`; claim names hold periods.
    check(
        "0/3 nodes are available: persistentvolumeclaim \"data.db-0\" not found. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..",
        preempt(with_prefilter(3, pvc(Some("data.db-0"), NotFound)), 3, vec![rc(3, PreemptionNotHelpful)]),
    );
    check(
        "0/2 nodes are available: persistentvolumeclaim \"www-web-0\" bound to non-existent persistentvolume \"pvc-1.a\". preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
        preempt(
            with_prefilter(2, pvc(Some("www-web-0"), BoundToMissingVolume { volume: "pvc-1.a".into() })),
            2,
            vec![rc(2, NoPreemptionVictims)],
        ),
    );
}

#[test]
fn a_quoted_name_never_ends_the_prefilter_or_starts_preemption() {
    check(
        "0/1 nodes are available: persistentvolumeclaim \"a. preemption: b\" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        preempt(with_prefilter(1, pvc(Some("a. preemption: b"), NotFound)), 1, vec![rc(1, PreemptionNotHelpful)]),
    );
}

// ---- `no nodes available to schedule pods` ----

#[test]
fn no_nodes_available_is_a_typed_reason() {
    // generic_scheduler.go (1.5): `ErrNoNodesAvailable = fmt.Errorf("no nodes available to schedule pods")`,
    // returned when the node lister (Ready, schedulable nodes only) gives none.
    let want = FailedScheduling {
        total_nodes: Some(0),
        form: MessageForm::NoNodes,
        prefilter: Some(NoNodesAvailable),
        ..FailedScheduling::default()
    };
    check("no nodes available to schedule pods", want.clone());
    check("Error scheduling: no nodes available to schedule pods", want);
    assert_eq!(NoNodesAvailable.kind(), ReasonKind::NoNodesAvailable);
    assert_eq!(NoNodesAvailable.message(), "no nodes available to schedule pods");
    assert!(!NoNodesAvailable.preemption_can_help());
}

// ---- Volcano ----
//
// volcano-sh/volcano pkg/scheduler/api/unschedule_info.go, `FitErrors.Error()`:
//     f.err = fmt.Sprintf("0/%v", len(f.nodes)) + " nodes are unavailable"
//     reasonMsg := fmt.Sprintf(f.err+": %v.", strings.Join(sortReasonsHistogram(), ", "))
// with `NodePodNumberExceeded = "node(s) pod number exceeded"`,
// `NodeResourceFitFailed = "node(s) resource fit failed"`,
// `AllNodeUnavailableMsg = "all nodes are unavailable"`; and
// pkg/scheduler/plugins/predicates/predicates.go (v1.x):
//     return fmt.Errorf("plugin %s predicates failed %s", nodeaffinity.Name, status.Message())
// (the NodePorts check returns with `nodeaffinity.Name` too), and
//     return fmt.Errorf("plugin %s pre-predicates failed %s", interpodaffinity.Name, status.Message())

fn volcano(total: Option<u32>, items: Vec<ReasonCount>) -> FailedScheduling {
    FailedScheduling { total_nodes: total, form: MessageForm::Volcano, items, ..FailedScheduling::default() }
}

#[test]
fn volcano_plain_reasons() {
    check("0/3 nodes are unavailable: 3 Insufficient cpu.", volcano(Some(3), vec![rc(3, insufficient("cpu"))]));
    check(
        "0/4 nodes are unavailable: 1 node(s) pod number exceeded, 3 node(s) resource fit failed.",
        volcano(Some(4), vec![rc(1, TooManyPods), rc(3, ResourceFit)]),
    );
    check("all nodes are unavailable: 2 Insufficient memory.", volcano(None, vec![rc(2, insufficient("memory"))]));
}

#[test]
fn volcano_plugin_predicate_errors() {
    check(
        "0/5 nodes are unavailable: 1 plugin NodeAffinity predicates failed node(s) didn't have free ports for the requested pod ports, 1 plugin NodeAffinity predicates failed node(s) didn't match Pod's node affinity/selector, 1 plugin TaintToleration predicates failed node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate, 2 plugin NodeUnschedulable predicates failed node(s) were unschedulable.",
        volcano(
            Some(5),
            vec![
                rc(1, HostPorts),
                rc(1, NodeAffinity),
                rc(1, taint("node-role.kubernetes.io/master", "")),
                rc(2, Unschedulable),
            ],
        ),
    );
    // InterPodAffinity's status of 1.18–1.20 joins two reasons with `, `: each gets the count.
    check(
        "0/2 nodes are unavailable: 2 plugin InterPodAffinity predicates failed node(s) didn't match pod affinity/anti-affinity, node(s) didn't match pod affinity rules.",
        volcano(Some(2), vec![rc(2, PodAffinityOrAntiAffinity), rc(2, PodAffinity)]),
    );
    check(
        "0/3 nodes are unavailable: 3 plugin InterPodAffinity pre-predicates failed node(s) didn't satisfy existing pods anti-affinity rules.",
        volcano(Some(3), vec![rc(3, ExistingPodsAntiAffinity)]),
    );
    // Volcano's own device checks are not kube-scheduler reasons: kept whole.
    check(
        "0/1 nodes are unavailable: 1 plugin predicates predicates failed no enough gpu memory on single device.",
        volcano(
            Some(1),
            vec![rc(1, other("plugin predicates predicates failed no enough gpu memory on single device"))],
        ),
    );
}

// ---- ~2015: `failed to find fit for pod: {…}Node NAME: Predicate` ----
//
// plugin/pkg/scheduler/generic_scheduler.go of that time built the error as
// "failed to find fit for pod: " + the pod printed with %v, then one
// "Node NAME: Pred1,Pred2" per node with no separator; the scheduler's event was
// "Error scheduling: <error>" (OpenShift 2015 shows
// `Error scheduling: failed to find fit for pod, Node n1.example.com: PodFitsPorts`).

const POD_STRUCT: &str = "&{{ } {nginx default /api/v1/namespaces/default/pods/nginx 0 {0 0 <nil>} map[app:nginx] map[]} {[] [{nginx nginx [] [] [] {map[cpu:{2 DecimalSI}] map[]} [] <nil> <nil> <nil> /dev/termination-log IfNotPresent <nil>}] Always <nil> ClusterFirst map[] } {Pending [] <nil>}}";

fn find_fit(per_node: &[(&str, Reason)], items: Vec<ReasonCount>) -> FailedScheduling {
    FailedScheduling {
        form: MessageForm::FindFit,
        items,
        per_node: per_node.iter().map(|(n, r)| (n.to_string(), r.clone())).collect(),
        ..FailedScheduling::default()
    }
}

#[test]
fn find_fit_one_line_per_node_after_the_pod_struct() {
    check(
        &format!(
            "failed to find fit for pod: {POD_STRUCT}Node node-1: PodFitsResourcesNode node-2: PodFitsHostPorts,MatchNodeSelectorNode node-3: NoDiskConflict,PodFitsResources"
        ),
        find_fit(
            &[
                ("node-1", ResourceFit),
                ("node-2", HostPorts),
                ("node-2", NodeAffinity),
                ("node-3", VolumeRestrictions),
                ("node-3", ResourceFit),
            ],
            vec![rc(2, ResourceFit), rc(1, HostPorts), rc(1, NodeAffinity), rc(1, VolumeRestrictions)],
        ),
    );
    check(
        "Error scheduling: failed to find fit for pod, Node n1.example.com: PodFitsPorts",
        find_fit(&[("n1.example.com", HostPorts)], vec![rc(1, HostPorts)]),
    );
}

#[test]
fn find_fit_struct_holding_node_text_or_cut() {
    // A label value `Node a: b` inside the struct is not a node line.
    check(
        "failed to find fit for pod: &{{ } {web default map[note:Node a: b]}}Node kube-2: HostName",
        find_fit(&[("kube-2", NodeName)], vec![rc(1, NodeName)]),
    );
    // Cut at 1024 bytes inside the struct: no node line survives.
    let parsed = parse(&format!("failed to find fit for pod: {} ...", &POD_STRUCT[..60]));
    assert_eq!((parsed.form, parsed.truncated), (MessageForm::FindFit, true));
    assert!(parsed.items.is_empty() && parsed.per_node.is_empty() && parsed.unparsed.is_empty(), "{parsed:?}");
    assert_eq!(ResourceFit.message(), "node(s) resource fit failed");
    assert!(ResourceFit.preemption_can_help());
}

// ---- PVC messages with quoted names, every form ----

#[test]
fn pvc_names_in_the_counted_form() {
    check(
        "0/3 nodes are available: 3 persistentvolumeclaim \"data\" bound to non-existent persistentvolume \"pv.1\".",
        modern(3, vec![rc(3, pvc(Some("data"), BoundToMissingVolume { volume: "pv.1".into() }))]),
    );
    check(
        "0/3 nodes are available: 3 persistentvolumeclaim \"x\" not found, which is unexpected.",
        modern(3, vec![rc(3, pvc(Some("x"), NotFound))]),
    );
    // `, 2 ` and `. ` inside a quoted name split nothing.
    check(
        "0/3 nodes are available: 1 persistentvolumeclaim \"a, 2 b. c\" not found, 2 Insufficient cpu.",
        modern(3, vec![rc(1, pvc(Some("a, 2 b. c"), NotFound)), rc(2, insufficient("cpu"))]),
    );
    check(
        "persistentvolumeclaims \"x\" not found",
        FailedScheduling {
            form: MessageForm::BareReason,
            prefilter: Some(pvc(Some("x"), NotFound)),
            ..FailedScheduling::default()
        },
    );
}

#[test]
fn pvc_names_in_the_predicate_list_and_bracketed_forms() {
    check(
        "No nodes are available that match all of the following predicates:: persistentvolumeclaim \"d (1), x\" not found (2), Insufficient cpu (1).",
        FailedScheduling {
            form: MessageForm::PredicateList,
            items: vec![rc(2, pvc(Some("d (1), x"), NotFound)), rc(1, insufficient("cpu"))],
            ..FailedScheduling::default()
        },
    );
    let bracketed = |items| FailedScheduling { form: MessageForm::Bracketed, items, ..FailedScheduling::default() };
    check(
        "[SchedulerPredicates failed due to persistentvolumeclaim \"data-0\" not found, which is unexpected., SchedulerPredicates failed due to persistentvolumeclaim \"data-1\" bound to non-existent persistentvolume \"pv-9\", which is unexpected., SchedulerPredicates failed due to persistentvolumeclaim \"data-0\" not found, which is unexpected.]",
        bracketed(vec![
            rc(2, pvc(Some("data-0"), NotFound)),
            rc(1, pvc(Some("data-1"), BoundToMissingVolume { volume: "pv-9".into() })),
        ]),
    );
    check(
        "[SchedulerPredicates failed due to persistentvolumeclaim \"a, which is unexpected., b\" not found, which is unexpected.]",
        bracketed(vec![rc(1, pvc(Some("a, which is unexpected., b"), NotFound))]),
    );
    check(
        "SchedulerPredicates failed due to persistentvolumeclaim \"x\" not found, which is unexpected.",
        bracketed(vec![rc(1, pvc(Some("x"), NotFound))]),
    );
}
