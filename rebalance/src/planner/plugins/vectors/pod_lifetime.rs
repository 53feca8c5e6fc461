//! descheduler v0.36 `podlifetime/pod_lifetime_test.go` (every planning
//! table: 53 cases, 52 ported) and `validation_test.go` TestValidateRemovePodLifeTimeArgs
//! (6) + `TestValidation` (13), ported as data. The stored upstream file has
//! 2 TestOwnerKindsFiltering cases where descheduler-plugins.md §6 counts 3
//! (53 planning cases): the third is not in the version kdrift could read and
//! stays in the table as skipped.
//! Upstream's clock is `time.Now()`; here it is
//! [`crate::planner::tests::now`], with `newerPodCreationTime` = now,
//! `oldTransitionTime` = now − 2h, `newTransitionTime` = now − 1m.

use chrono::{DateTime, Utc};

use super::state_support::{ago, build_pod, cs, older, owner_of, rs_owner, run_vectors, status_mut, Case};
use crate::model::pod::{PodCondition, PodInfo, PodPhase, Volume, VolumeSource};
use crate::planner::tests::{node, now};
use crate::policy::plugins::pod_lifetime::{OwnerKinds, PodConditionFilter};
use crate::policy::{Namespaces, PluginArgs, PodLifeTimeArgs, POD_LIFE_TIME};

#[path = "pod_lifetime_filters.rs"]
mod filters;

fn max600() -> PodLifeTimeArgs {
    PodLifeTimeArgs { max_pod_life_time_seconds: Some(600), ..Default::default() }
}

fn states(max: Option<u32>, s: &[&str]) -> PodLifeTimeArgs {
    PodLifeTimeArgs {
        max_pod_life_time_seconds: max,
        states: s.iter().map(|x| x.to_string()).collect(),
        ..Default::default()
    }
}

fn cond(type_: &str, status: &str, reason: &str, min: Option<u32>) -> PodConditionFilter {
    PodConditionFilter {
        type_: type_.into(),
        status: status.into(),
        reason: reason.into(),
        min_time_since_last_transition_seconds: min,
    }
}

fn pod_cond(type_: &str, status: &str, reason: &str, ltt: Option<DateTime<Utc>>) -> PodCondition {
    PodCondition {
        type_: type_.into(),
        status: status.into(),
        reason: (!reason.is_empty()).then(|| reason.to_string()),
        last_transition_time: ltt,
    }
}

/// `buildTestPodForNode1`: 100m on `n1`, created at `created`.
fn p1(name: &str, created: DateTime<Utc>) -> PodInfo {
    let mut p = build_pod(name, 100, 0, "n1");
    p.creation_timestamp = Some(created);
    p
}

/// `buildTestPodWithRSOwnerRefForNode1`.
fn rs1(name: &str, created: DateTime<Utc>) -> PodInfo {
    let mut p = p1(name, created);
    p.owners = vec![rs_owner()];
    p
}

/// `buildTestPodWithRSOwnerRefWithPendingPhaseForNode1`.
fn pend1(name: &str, created: DateTime<Utc>) -> PodInfo {
    let mut p = rs1(name, created);
    p.phase = Some(PodPhase::Pending);
    p
}

/// `buildPod(name, "node1")`: 1m/1 B, ReplicaSet-owned, no creationTimestamp.
fn bp(name: &str) -> PodInfo {
    let mut p = build_pod(name, 1, 1, "node1");
    p.owners = vec![rs_owner()];
    p
}

fn with_phase(mut p: PodInfo, phase: PodPhase) -> PodInfo {
    p.phase = Some(phase);
    p
}

fn waiting(mut p: PodInfo, kind: &str, reason: &str) -> PodInfo {
    let mut c = cs("c0");
    c.waiting_reason = Some(reason.into());
    let st = status_mut(&mut p);
    match kind {
        "init" => st.init_containers.push(c),
        "ephemeral" => st.ephemeral_containers.push(c),
        _ => st.containers.push(c),
    }
    p
}

fn terminated(mut p: PodInfo, kind: &str, reason: Option<&str>, code: i32) -> PodInfo {
    let mut c = cs("c0");
    c.terminated_reason = reason.map(str::to_string);
    c.terminated_exit_code = Some(code);
    let st = status_mut(&mut p);
    match kind {
        "init" => st.init_containers.push(c),
        "ephemeral" => st.ephemeral_containers.push(c),
        _ => st.containers.push(c),
    }
    p
}

fn reason(mut p: PodInfo, r: &str) -> PodInfo {
    status_mut(&mut p).reason = Some(r.into());
    p
}

fn conds(mut p: PodInfo, c: Vec<PodCondition>) -> PodInfo {
    status_mut(&mut p).conditions = c;
    p
}

fn job(mut p: PodInfo) -> PodInfo {
    p.owners = vec![owner_of("Job")];
    p
}

fn case(name: &'static str, args: PodLifeTimeArgs, pods: Vec<PodInfo>, count: usize, evicted: &[&'static str]) -> Case {
    let mut c = Case::new(name, PluginArgs::PodLifeTime(Box::new(args)));
    let on_node1 = pods.iter().any(|p| p.node_name.as_deref() == Some("node1"));
    c.nodes = vec![node(if on_node1 { "node1" } else { "n1" }, 2000, 3000, 10)];
    c.pods = pods;
    c.count = count;
    c.evicted = evicted.to_vec();
    c
}

fn pvc(mut p: PodInfo) -> PodInfo {
    p.volumes =
        vec![Volume { name: "pvc".into(), source: VolumeSource::PersistentVolumeClaim { claim_name: "foo".into() } }];
    p
}

/// TestPodLifeTime … TestPodLifeTime_PodPhaseStates (33 cases).
fn basic_cases() -> Vec<Case> {
    let old = older();
    let new = now();
    let mut v = Vec::new();
    // TestPodLifeTime (1)
    let mut a = max600();
    a.scope.label_selector = Some(crate::model::pod::LabelSelector {
        match_labels: [("foo".to_string(), "bar".to_string())].into(),
        ..Default::default()
    });
    let mut t1 = rs1("p14", old);
    t1.rare.deletion_timestamp = Some(old);
    let mut t2 = rs1("p15", old);
    t2.rare.deletion_timestamp = Some(old);
    v.push(case("No pod should be evicted since pod terminating", a.clone(), vec![t1, t2], 0, &[]));
    // _EvictorConfiguration (2)
    let mut c =
        case("Does not evict pvc pods with ignorePvcPods set to true", max600(), vec![pvc(rs1("p11", old))], 0, &[]);
    c.evictor.ignore_pvc_pods = Some(true);
    v.push(c);
    v.push(case(
        "Evicts pvc pods with ignorePvcPods set to false (or unset)",
        max600(),
        vec![pvc(rs1("p11", old))],
        1,
        &[],
    ));
    // _GenericFiltering (1)
    let mut l1 = rs1("p12", old);
    l1.labels.insert("foo".into(), "bar".into());
    let mut l2 = rs1("p13", old);
    l2.labels.insert("foo".into(), "bar1".into());
    v.push(case("1 pod matching label selector should be evicted", a, vec![l1, l2], 1, &["p12"]));
    // _EvictionLimits (4)
    v.push(case(
        "2 Oldest pods should be evicted when maxPodsToEvictPerNode and maxPodsToEvictPerNamespace are not set",
        max600(),
        vec![rs1("p1", new), rs1("p2", old), pend1("p9", old)],
        2,
        &["p2", "p9"],
    ));
    let mut c = case(
        "1 Oldest pod should be evicted when maxPodsToEvictPerNamespace is set to 1",
        max600(),
        vec![rs1("p1", new), rs1("p2", old)],
        1,
        &["p2"],
    );
    c.max_per_namespace = Some(1);
    v.push(c);
    let mut c = case(
        "1 Oldest pod should be evicted when maxPodsToEvictTotal is set to 1",
        max600(),
        vec![rs1("p1", new), rs1("p2", old)],
        1,
        &["p2"],
    );
    c.max_per_namespace = Some(2);
    c.max_total = Some(1);
    v.push(c);
    let mut c = case(
        "1 Oldest pod should be evicted when maxPodsToEvictPerNode is set to 1",
        max600(),
        vec![rs1("p1", new), rs1("p2", old)],
        1,
        &["p2"],
    );
    c.max_per_node = Some(1);
    v.push(c);
    // _ContainerWaitingReasons (13)
    let stuck = |name: &str, r: &str| {
        let mut p = waiting(build_pod(name, 0, 0, "n1"), "", r);
        p.owners = vec![rs_owner()];
        p.creation_timestamp = Some(old);
        p
    };
    v.push(case(
        "Two pods, one with ContainerCreating state. 1 should be evicted.",
        states(Some(600), &["ContainerCreating"]),
        vec![pend1("p9", old), stuck("container-creating-stuck", "ContainerCreating")],
        1,
        &[],
    ));
    v.push(case(
        "Two pods, one with PodInitializing state. 1 should be evicted.",
        states(Some(600), &["PodInitializing"]),
        vec![pend1("p9", old), stuck("pod-initializing-stuck", "PodInitializing")],
        1,
        &[],
    ));
    for (name, r) in [
        ("1 pod with container status ImagePullBackOff should be evicted", "ImagePullBackOff"),
        ("1 pod with container status CrashLoopBackOff should be evicted", "CrashLoopBackOff"),
        ("1 pod with container status CreateContainerConfigError should be evicted", "CreateContainerConfigError"),
        ("1 pod with container status ErrImagePull should be evicted", "ErrImagePull"),
    ] {
        v.push(case(name, states(Some(600), &[r]), vec![waiting(pend1("p9", old), "", r)], 1, &[]));
    }
    let cce = "CreateContainerError";
    v.push(case(
        "1 pod with init container status CreateContainerError should not be evicted without includingInitContainers",
        states(Some(600), &[cce]),
        vec![waiting(pend1("p9", old), "init", cce)],
        0,
        &[],
    ));
    let mut a = states(Some(600), &[cce]);
    a.including_init_containers = true;
    v.push(case(
        "1 pod with init container status CreateContainerError should be evicted with includingInitContainers",
        a,
        vec![waiting(pend1("p9", old), "init", cce)],
        1,
        &[],
    ));
    v.push(case(
        "1 pod with ephemeral container status CreateContainerError should not be evicted without includingEphemeralContainers",
        states(Some(600), &[cce]),
        vec![waiting(pend1("p9", old), "ephemeral", cce)],
        0,
        &[],
    ));
    let mut a = states(Some(600), &[cce]);
    a.including_ephemeral_containers = true;
    v.push(case(
        "1 pod with ephemeral container status CreateContainerError should be evicted with includingEphemeralContainers",
        a,
        vec![waiting(pend1("p9", old), "ephemeral", cce)],
        1,
        &[],
    ));
    v.push(case(
        "1 pod with container status CreateContainerError should be evicted",
        states(Some(600), &[cce]),
        vec![waiting(pend1("p9", old), "", cce)],
        1,
        &[],
    ));
    v.push(case(
        "1 pod with container status InvalidImageName should be evicted",
        states(Some(600), &["InvalidImageName"]),
        vec![waiting(pend1("p9", old), "", "InvalidImageName")],
        1,
        &[],
    ));
    v.push(case(
        "1 pod with ImagePullBackOff status should be ignored when States filter is ContainerCreating",
        states(Some(600), &["ContainerCreating"]),
        vec![waiting(pend1("p9", old), "", "ImagePullBackOff")],
        0,
        &[],
    ));
    // _PodStatusReasons (4)
    for r in ["NodeLost", "NodeAffinity", "Shutdown", "UnexpectedAdmissionError"] {
        let name: &'static str =
            Box::leak(format!("1 pod with pod status reason {r} should be evicted").into_boxed_str());
        v.push(case(name, states(Some(600), &[r]), vec![reason(pend1("p9", old), r)], 1, &[]));
    }
    // _AgeThreshold (4)
    v.push(case(
        "Two pods in the default namespace, 1 is new and 1 very is old. 1 should be evicted.",
        max600(),
        vec![rs1("p1", new), rs1("p2", old)],
        1,
        &["p2"],
    ));
    v.push(case(
        "Two pods in the default namespace, 2 are new and 0 are old. 0 should be evicted.",
        max600(),
        vec![rs1("p3", new), rs1("p4", new)],
        0,
        &[],
    ));
    v.push(case(
        "Two pods in the default namespace, 1 created 605 seconds ago. 1 should be evicted.",
        max600(),
        vec![rs1("p5", new), rs1("p6", ago(605))],
        1,
        &["p6"],
    ));
    v.push(case(
        "Two pods in the default namespace, 1 created 595 seconds ago. 0 should be evicted.",
        max600(),
        vec![p1("p7", new), p1("p8", ago(595))],
        0,
        &[],
    ));
    // _PodPhaseStates (4)
    v.push(case(
        "Two old pods with different states. 1 should be evicted.",
        states(Some(600), &["Pending"]),
        vec![pend1("p9", old), with_phase(rs1("p10", old), PodPhase::Running)],
        1,
        &["p9"],
    ));
    for (name, phase) in [
        ("1 pod with pod status phase v1.PodSucceeded should be evicted", PodPhase::Succeeded),
        ("1 pod with pod status phase v1.PodFailed should be evicted", PodPhase::Failed),
        ("1 pod with pod status phase v1.PodUnknown should be evicted", PodPhase::Unknown),
    ] {
        v.push(case(name, states(Some(600), &[phase.as_str()]), vec![with_phase(rs1("p16", old), phase)], 1, &[]));
    }
    v
}

#[test]
fn upstream_vectors_pod_lifetime() {
    let mut cases = basic_cases();
    cases.extend(filters::new_field_cases());
    assert_eq!(cases.len(), 53);
    run_vectors(POD_LIFE_TIME, &cases);
}

const ALLOWED: &str = "states must be one of [Completed ContainerCannotRun ContainerCreating CrashLoopBackOff \
     CreateContainerConfigError CreateContainerError DeadlineExceeded ErrImagePull Error Evicted Failed \
     ImagePullBackOff InvalidImageName NodeAffinity NodeLost OOMKilled Pending PodInitializing Running Shutdown \
     StartError Succeeded UnexpectedAdmissionError Unknown]";
const NO_FILTER: &str =
    "at least one filtering criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)";

#[test]
fn upstream_validation_vectors_pod_lifetime() {
    let v = |a: PodLifeTimeArgs| a.validate();
    let c_only = |f: PodConditionFilter| PodLifeTimeArgs { conditions: vec![f], ..Default::default() };
    let ns = Namespaces { include: vec!["a".into()], exclude: vec!["b".into()] };
    let mut both_ns = states(None, &["Running"]);
    both_ns.scope.namespaces = Some(ns);
    let mut both_ok = states(None, &["Running"]);
    both_ok.owner_kinds = Some(OwnerKinds { include: vec!["Job".into()], exclude: vec!["ReplicaSet".into()] });
    let cases = [
        // validation_test.go TestValidateRemovePodLifeTimeArgs (6)
        ("valid arg, no errors", v(states(Some(1), &["Running"])), None),
        ("Pod Status Reasons Succeeded or Failed", v(states(Some(1), &["Succeeded", "Failed"])), None),
        ("Pod Status Reasons CrashLoopBackOff", v(states(Some(1), &["CrashLoopBackOff"])), None),
        ("nil MaxPodLifeTimeSeconds arg, expects errors", v(PodLifeTimeArgs::default()), Some(NO_FILTER)),
        ("invalid pod state arg, expects errors", v(states(Some(1), &["InvalidState"])), Some(ALLOWED)),
        ("nil MaxPodLifeTimeSeconds arg and invalid pod state arg", v(states(None, &["InvalidState"])), Some(ALLOWED)),
        // pod_lifetime_test.go TestValidation (13; upstream checks only error / no error)
        ("valid: states set", v(states(None, &["Running"])), None),
        ("valid: conditions set", v(c_only(cond("", "", "PodCompleted", None))), None),
        ("valid: maxPodLifeTimeSeconds set", v(max600()), None),
        ("valid: states with maxPodLifeTimeSeconds", v(states(Some(600), &["Running"])), None),
        (
            "valid: states with conditions",
            v(PodLifeTimeArgs { conditions: vec![cond("", "", "PodCompleted", None)], ..states(None, &["Succeeded"]) }),
            None,
        ),
        ("valid: exitCodes only", v(PodLifeTimeArgs { exit_codes: vec![1], ..Default::default() }), None),
        ("valid: condition with min time", v(c_only(cond("", "", "PodCompleted", Some(300)))), None),
        ("valid: condition with only min time", v(c_only(cond("", "", "", Some(300)))), None),
        ("invalid: no filter criteria", v(PodLifeTimeArgs::default()), Some(NO_FILTER)),
        (
            "invalid: both include and exclude namespaces",
            v(both_ns),
            Some("only one of Include/Exclude namespaces can be set"),
        ),
        (
            "invalid: both include and exclude ownerKinds",
            v(both_ok),
            Some("only one of Include/Exclude ownerKinds can be set"),
        ),
        ("invalid: bad state name", v(states(None, &["NotAState"])), Some(ALLOWED)),
        (
            "invalid: empty condition filter",
            v(c_only(PodConditionFilter::default())),
            Some(
                "conditions[0]: at least one of type, status, reason, or minTimeSinceLastTransitionSeconds must be set",
            ),
        ),
    ];
    super::state_support::check_validation(POD_LIFE_TIME, &cases);
}
