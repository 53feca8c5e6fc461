//! One test per message era and per parsing trap, with the exact strings of the
//! project reference (`shared/reference/kubernetes-events.md` §1).

use super::tests::{any_taint, check, insufficient, modern, other, preempt, pvc, rc, taint};
use super::*;

use PvcProblem::*;
use Reason::*;

// ---- §1 "Real examples" ----

#[test]
fn reference_example_affinity() {
    check(
        "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match pod affinity rules.",
        modern(5, vec![rc(1, insufficient("cpu")), rc(4, PodAffinity)]),
    );
}

#[test]
fn reference_example_hostname_and_resources() {
    check(
        "0/254 nodes are available: 1 Too many pods, 154 node(s) didn't match the requested hostname, 33 Insufficient memory, 69 Insufficient cpu.",
        modern(
            254,
            vec![rc(1, TooManyPods), rc(154, NodeName), rc(33, insufficient("memory")), rc(69, insufficient("cpu"))],
        ),
    );
}

#[test]
fn reference_example_preemption_nested() {
    check(
        "0/12 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 node(s) had volume node affinity conflict, 8 node(s) didn't match Pod's node affinity/selector. preemption: 0/12 nodes are available: 1 No preemption victims found for incoming pod, 11 Preemption is not helpful for scheduling.",
        preempt(
            modern(
                12,
                vec![
                    rc(1, PodAntiAffinity),
                    rc(1, taint("node.kubernetes.io/unreachable", "")),
                    rc(2, VolumeNodeAffinity),
                    rc(8, NodeAffinity),
                ],
            ),
            12,
            vec![rc(1, NoPreemptionVictims), rc(11, PreemptionNotHelpful)],
        ),
    );
}

#[test]
fn reference_example_prefilter_without_counts() {
    check(
        "0/6 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
        preempt(
            FailedScheduling { prefilter: Some(pvc(None, Unbound)), ..modern(6, vec![]) },
            6,
            vec![rc(6, PreemptionNotHelpful)],
        ),
    );
}

#[test]
fn reference_example_dra_post_filter() {
    check(
        "0/6 nodes are available: 3 node(s) didn't match pod affinity rules, 3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
        preempt(
            FailedScheduling {
                post_filter: vec!["no new claims to deallocate".to_string()],
                ..modern(6, vec![rc(3, PodAffinity), rc(3, any_taint())])
            },
            6,
            vec![rc(6, PreemptionNotHelpful)],
        ),
    );
}

// ---- eras (§1 "Format history") ----

#[test]
fn era_1_7_following_predicates_double_colon() {
    check(
        "No nodes are available that match all of the following predicates:: MatchNodeSelector (1), PodToleratesNodeTaints (1).",
        FailedScheduling {
            form: MessageForm::PredicateList,
            items: vec![rc(1, NodeAffinity), rc(1, any_taint())],
            ..FailedScheduling::default()
        },
    );
}

#[test]
fn era_1_8_predicate_names_in_counts() {
    check(
        "0/25 nodes are available: 1 Insufficient pods, 1 PodToleratesNodeTaints, 23 Insufficient cpu.",
        modern(25, vec![rc(1, TooManyPods), rc(1, any_taint()), rc(23, insufficient("cpu"))]),
    );
}

#[test]
fn era_1_8_predicate_list_single_colon() {
    check(
        "No nodes are available that match all of the predicates: Insufficient pods (2), NodeNotReady (1), NodeUnschedulable (3).",
        FailedScheduling {
            form: MessageForm::PredicateList,
            items: vec![rc(2, TooManyPods), rc(1, NotReady), rc(3, Unschedulable)],
            ..FailedScheduling::default()
        },
    );
}

#[test]
fn era_1_8_predicate_names_map_to_current_reasons() {
    let names = [
        ("MatchInterPodAffinity", PodAffinityOrAntiAffinity),
        ("ExistingPodsAntiAffinityRulesNotMatch", ExistingPodsAntiAffinity),
        ("HostName", NodeName),
        ("PodFitsHostPorts", HostPorts),
        ("NoVolumeZoneConflict", VolumeZone),
        ("MaxEBSVolumeCount", VolumeLimits),
        ("NoDiskConflict", VolumeRestrictions),
        ("CheckNodeMemoryPressure", NodeCondition { condition: NodeConditionType::MemoryPressure }),
        ("CheckServiceAffinity", other("CheckServiceAffinity")),
    ];
    for (name, reason) in names {
        check(&format!("0/2 nodes are available: 2 {name}."), modern(2, vec![rc(2, reason)]));
    }
}

#[test]
fn era_1_5_per_node_lines_with_several_reasons() {
    check(
        "pod (web-1) failed to fit in any node\nfit failure on node (n1): Insufficient cpu, Insufficient memory\nfit failure on node (n2): MatchNodeSelector\nfit failure on node (n3): Insufficient cpu\n",
        FailedScheduling {
            form: MessageForm::PerNodeLines,
            items: vec![rc(2, insufficient("cpu")), rc(1, insufficient("memory")), rc(1, NodeAffinity)],
            per_node: vec![
                ("n1".to_string(), insufficient("cpu")),
                ("n1".to_string(), insufficient("memory")),
                ("n2".to_string(), NodeAffinity),
                ("n3".to_string(), insufficient("cpu")),
            ],
            ..FailedScheduling::default()
        },
    );
}

#[test]
fn era_1_6_bracketed_and_single_error() {
    let bracketed = FailedScheduling {
        form: MessageForm::Bracketed,
        items: vec![
            rc(2, pvc(Some("data-0"), Unbound)),
            rc(1, pvc(None, BoundToMissingVolume { volume: "pv-9".into() })),
        ],
        ..FailedScheduling::default()
    };
    check(
        "[SchedulerPredicates failed due to PersistentVolumeClaim is not bound: \"data-0\", which is unexpected., SchedulerPredicates failed due to PersistentVolume not found: \"pv-9\", which is unexpected., SchedulerPredicates failed due to PersistentVolumeClaim is not bound: \"data-0\", which is unexpected.]",
        bracketed,
    );
    check(
        "SchedulerPredicates failed due to PersistentVolumeClaim was not found: \"c1\", which is unexpected.",
        FailedScheduling {
            form: MessageForm::Bracketed,
            items: vec![rc(1, pvc(Some("c1"), NotFound))],
            ..FailedScheduling::default()
        },
    );
}

#[test]
fn era_1_24_single_period_1_25_double_period_1_28_single_again() {
    let want = preempt(modern(3, vec![rc(3, insufficient("cpu"))]), 3, vec![rc(3, NoPreemptionVictims)]);
    for ending in [".", "..", "."] {
        check(
            &format!("0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod{ending}"),
            want.clone(),
        );
    }
}

#[test]
fn preemption_text_forms() {
    let text = |t: &str| FailedScheduling {
        preemption: Some(Preemption::Text(t.to_string())),
        ..modern(2, vec![rc(2, insufficient("memory"))])
    };
    check(
        "0/2 nodes are available: 2 Insufficient memory. preemption: not eligible due to preemptionPolicy=Never..",
        text("not eligible due to preemptionPolicy=Never"),
    );
    check(
        "0/2 nodes are available: 2 Insufficient memory. preemption: not eligible due to a terminating pod on the nominated node.",
        text("not eligible due to a terminating pod on the nominated node"),
    );
}

#[test]
fn non_counting_messages() {
    check(
        "no nodes available to schedule pods",
        FailedScheduling {
            total_nodes: Some(0),
            form: MessageForm::NoNodes,
            prefilter: Some(NoNodesAvailable),
            ..FailedScheduling::default()
        },
    );
    check(
        "skip schedule deleting pod: default/redis-5fd75d8cc6-2nvkh",
        FailedScheduling { form: MessageForm::SkipDeletingPod, ..FailedScheduling::default() },
    );
    for bind in [
        "running PreBind plugin \"VolumeBinding\": binding volumes: timed out waiting for the condition",
        "Binding rejected: Operation cannot be fulfilled on pods/binding \"x\": pod x is already assigned to node \"n\"",
    ] {
        check(bind, FailedScheduling { form: MessageForm::BindError, ..FailedScheduling::default() });
    }
    check(
        "persistentvolumeclaim \"data\" is being deleted",
        FailedScheduling {
            form: MessageForm::BareReason,
            prefilter: Some(pvc(Some("data"), BeingDeleted)),
            ..FailedScheduling::default()
        },
    );
    check("Volcano: all nodes are unavailable: 3 node(s) resource fit failed.", FailedScheduling::default());
}

// ---- traps (§1 "Parsing traps") ----

#[test]
fn trap_1_18_taint_wording_contains_comma_space() {
    check(
        "0/3 nodes are available: 1 node(s) had taint {gpu: }, that the pod didn't tolerate, 2 node(s) had taint {dedicated: 42}, that the pod didn't tolerate.",
        modern(3, vec![rc(1, taint("gpu", "")), rc(2, taint("dedicated", "42"))]),
    );
}

#[test]
fn trap_yaml_and_json_quotes_are_normalised() {
    let want = modern(2, vec![rc(2, PodAffinity)]);
    check("0/2 nodes are available: 2 node(s) didn''t match pod affinity rules.", want.clone());
    check("0/2 nodes are available: 2 node(s) didn\\u0027t match pod affinity rules.", want.clone());
    check("0/2 nodes are available: 2 node(s) didn\u{2019}t match pod affinity rules.", want);
    check(
        "0/1 nodes are available: 1 persistentvolumeclaim \\\"a.b\\\" not found.",
        modern(1, vec![rc(1, pvc(Some("a.b"), NotFound))]),
    );
}

#[test]
fn trap_missing_final_period_and_wrapped_paste() {
    check(
        "0/7 nodes are available:\n  1 node(s) didn't have free ports for the requested pod ports,\n  6 node(s) didn't satisfy plugin(s) [NodeAffinity]",
        modern(7, vec![rc(1, HostPorts), rc(6, NodeAffinity)]),
    );
}

#[test]
fn trap_counts_may_exceed_total() {
    let parsed = parse("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.");
    assert_eq!(parsed.total_nodes, Some(1));
    assert_eq!(parsed.items.iter().map(|i| i.count).sum::<u32>(), 2);
}

#[test]
fn trap_truncated_event_text() {
    let parsed = parse("0/12 nodes are available: 1 Insufficient cpu. preemption: 0/12 nodes are available: 1 No preemption victims found for incoming pod, 11 Preemption is not h ...");
    assert!(parsed.truncated);
    let Some(Preemption::Nodes(nested)) = &parsed.preemption else {
        panic!("nested preemption expected: {parsed:?}");
    };
    assert!(nested.truncated);
    assert_eq!(nested.items[1], rc(11, other("Preemption is not h")));
}

#[test]
fn combined_from_similar_events_prefix() {
    let parsed = parse("(combined from similar events): 0/3 nodes are available: 3 Too many pods.");
    assert!(parsed.combined);
    assert_eq!(parsed.items, vec![rc(3, TooManyPods)]);
}

#[test]
fn current_plugin_wordings() {
    let cases = [
        ("node(s) didn't match scheduler-enforced node affinity", NodeAffinity),
        ("node(s) didn't match Pod's node affinity", NodeAffinity),
        (
            "node(s) didn't match pod topology spread constraints (missing required label)",
            TopologySpread { missing_label: true },
        ),
        ("node(s) didn't match pod topology spread constraints", TopologySpread { missing_label: false }),
        ("node(s) did not have enough free storage", VolumeCapacity),
        ("node(s) didn't match PersistentVolume's node affinity", VolumeNodeAffinity),
        (
            "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
            taint("node-role.kubernetes.io/control-plane", ""),
        ),
        ("node(s) had unknown conditions", UnknownCondition),
        (
            "resourceclaim not available on the node",
            DynamicResources { detail: "resourceclaim not available on the node".into() },
        ),
        (
            "node(s) didn't satisfy plugin(s) [InterPodAffinity NodeAffinity] simultaneously",
            other("node(s) didn't satisfy plugin(s) [InterPodAffinity NodeAffinity] simultaneously"),
        ),
    ];
    for (text, reason) in cases {
        check(&format!("0/4 nodes are available: 4 {text}."), modern(4, vec![rc(4, reason)]));
    }
}

// ---- Reason helpers ----

#[test]
fn message_gives_current_wording() {
    assert_eq!(insufficient("cpu").message(), "Insufficient cpu");
    assert_eq!(PodAffinity.message(), "node(s) didn't match pod affinity rules");
    assert_eq!(
        parse("0/1 nodes are available: 1 MatchNodeSelector.").items[0].reason.message(),
        "node(s) didn't match Pod's node affinity/selector"
    );
    assert_eq!(any_taint().message(), "node(s) had untolerated taint(s)");
    assert_eq!(taint("gpu", "").message(), "node(s) had untolerated taint {gpu: }");
    assert_eq!(pvc(Some("x"), NotFound).message(), "persistentvolumeclaim \"x\" not found");
    assert_eq!(rc(3, TooManyPods).to_string(), "3 Too many pods");
}

#[test]
fn every_known_reason_round_trips_through_its_message() {
    let reasons = [
        insufficient("nvidia.com/gpu"),
        TooManyPods,
        NodeAffinity,
        PodAffinity,
        PodAntiAffinity,
        ExistingPodsAntiAffinity,
        PodAffinityOrAntiAffinity,
        any_taint(),
        taint("k", "v"),
        Unschedulable,
        UnknownCondition,
        NotReady,
        NodeName,
        HostPorts,
        VolumeNodeAffinity,
        VolumeBinding,
        VolumeCapacity,
        VolumeZone,
        VolumeLimits,
        VolumeRestrictions,
        pvc(None, Unbound),
        pvc(Some("c"), NotFound),
        pvc(Some("c"), BeingDeleted),
        pvc(Some("c"), BoundToMissingVolume { volume: "v".into() }),
        TopologySpread { missing_label: true },
        PreemptionNotHelpful,
        NoPreemptionVictims,
        NodeCondition { condition: NodeConditionType::PidPressure },
        ResourceFit,
        NoNodesAvailable,
    ];
    for reason in reasons {
        assert_eq!(wording::classify(&reason.message()), reason, "{}", reason.message());
    }
}

#[test]
fn preemption_can_help_matches_the_hard_column() {
    assert!(insufficient("cpu").preemption_can_help());
    assert!(TooManyPods.preemption_can_help());
    assert!(PodAntiAffinity.preemption_can_help());
    assert!(HostPorts.preemption_can_help());
    assert!(!NodeAffinity.preemption_can_help());
    assert!(!PodAffinity.preemption_can_help());
    assert!(!any_taint().preemption_can_help());
    assert!(!pvc(None, Unbound).preemption_can_help());
    assert!(!TopologySpread { missing_label: true }.preemption_can_help());
    assert!(TopologySpread { missing_label: false }.preemption_can_help());
    assert_eq!(taint("a", "b").kind(), ReasonKind::UntoleratedTaint);
}
