//! descheduler v0.36 `pod_lifetime_test.go`'s tables for the v0.36 fields
//! (TestStatesWithTerminatedReasons … TestCombinedFilters), and kdrift's own
//! PodLifeTime cases (order, rule and skip texts). Fixtures: the parent module.

use super::*;

/// TestStatesWithTerminatedReasons … TestCombinedFilters (20 cases, 19 ported).
pub(super) fn new_field_cases() -> Vec<Case> {
    let (old_t, new_t) = (Some(ago(2 * 3600)), Some(ago(60)));
    let mut v = Vec::new();
    let failed = |name: &str| with_phase(bp(name), PodPhase::Failed);
    // TestStatesWithTerminatedReasons (4)
    v.push(case(
        "evict pod with matching terminated reason via states",
        states(None, &["Failed", "NodeAffinity"]),
        vec![terminated(failed("p1"), "", Some("NodeAffinity"), 0)],
        1,
        &[],
    ));
    v.push(case(
        "evict pod with matching pod status reason via states",
        states(None, &["Shutdown"]),
        vec![reason(failed("p1"), "Shutdown")],
        1,
        &[],
    ));
    let mut a = states(None, &["CreateContainerConfigError"]);
    a.including_init_containers = true;
    v.push(case(
        "states matches terminated reason on init container",
        a,
        vec![terminated(bp("p1"), "init", Some("CreateContainerConfigError"), 0)],
        1,
        &[],
    ));
    v.push(case(
        "states does not match terminated reason on init container without flag",
        states(None, &["CreateContainerConfigError"]),
        vec![terminated(bp("p1"), "init", Some("CreateContainerConfigError"), 0)],
        0,
        &[],
    ));
    // TestConditionFiltering (3)
    let c_args = |f: Vec<PodConditionFilter>| PodLifeTimeArgs { conditions: f, ..Default::default() };
    v.push(case(
        "evict pod with matching condition reason",
        c_args(vec![cond("", "True", "PodCompleted", None)]),
        vec![
            conds(bp("p1"), vec![pod_cond("Initialized", "True", "PodCompleted", old_t)]),
            conds(bp("p2"), vec![pod_cond("Initialized", "True", "OtherReason", old_t)]),
        ],
        1,
        &["p1"],
    ));
    v.push(case(
        "evict pod matching condition type only",
        c_args(vec![cond("Ready", "", "", None)]),
        vec![conds(bp("p1"), vec![pod_cond("Ready", "False", "", old_t)])],
        1,
        &[],
    ));
    v.push(case(
        "no matching conditions, 0 evictions",
        c_args(vec![cond("", "", "PodCompleted", None)]),
        vec![conds(bp("p1"), vec![pod_cond("Ready", "True", "SomethingElse", None)])],
        0,
        &[],
    ));
    // TestTransitionTimeFiltering (4)
    let sc = |s: &[&str], f: Vec<PodConditionFilter>| PodLifeTimeArgs { conditions: f, ..states(None, s) };
    let succeeded = |name: &str| with_phase(bp(name), PodPhase::Succeeded);
    let completed_old =
        vec![pod_cond("Initialized", "True", "PodCompleted", old_t), pod_cond("Ready", "False", "PodCompleted", old_t)];
    v.push(case(
        "evict pod with old transition time",
        sc(&["Succeeded"], vec![cond("", "True", "PodCompleted", Some(300))]),
        vec![conds(succeeded("p1"), completed_old.clone())],
        1,
        &["p1"],
    ));
    v.push(case(
        "do not evict pod with recent transition time",
        sc(&["Succeeded"], vec![cond("", "", "", Some(14400))]),
        vec![conds(succeeded("p1"), vec![pod_cond("Ready", "False", "", new_t)])],
        0,
        &[],
    ));
    v.push(case(
        "transition time scoped to matching conditions only",
        c_args(vec![cond("", "", "PodCompleted", Some(300))]),
        vec![conds(
            bp("p1"),
            vec![pod_cond("Initialized", "", "PodCompleted", old_t), pod_cond("Ready", "", "OtherReason", new_t)],
        )],
        1,
        &["p1"],
    ));
    v.push(case(
        "no conditions on pod, transition time filter returns false",
        sc(&["Running"], vec![cond("", "", "", Some(300))]),
        vec![with_phase(bp("p1"), PodPhase::Running)],
        0,
        &[],
    ));
    // TestOwnerKindsFiltering (3; 2 readable)
    let ok = |include: &[&str], exclude: &[&str]| PodLifeTimeArgs {
        owner_kinds: Some(OwnerKinds {
            include: include.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
        }),
        ..states(None, &["Failed"])
    };
    v.push(case("exclude Job owner kind", ok(&[], &["Job"]), vec![job(failed("p1")), failed("p2")], 1, &["p2"]));
    v.push(case("include only Job owner kind", ok(&["Job"], &[]), vec![job(failed("p1")), failed("p2")], 1, &["p1"]));
    let mut third = case("TestOwnerKindsFiltering case 3", ok(&["Job"], &[]), vec![], 0, &[]);
    third.skip = Some("counted by descheduler-plugins.md §6 but not in the test file kdrift could read");
    v.push(third);
    // TestStatesWithEphemeralContainers (2)
    let mut a = states(None, &["OOMKilled"]);
    a.including_ephemeral_containers = true;
    v.push(case(
        "states matches terminated reason on ephemeral container",
        a,
        vec![terminated(bp("p1"), "ephemeral", Some("OOMKilled"), 0)],
        1,
        &[],
    ));
    v.push(case(
        "states does not match ephemeral container without flag",
        states(None, &["OOMKilled"]),
        vec![terminated(bp("p1"), "ephemeral", Some("OOMKilled"), 0)],
        0,
        &[],
    ));
    // TestExitCodesFiltering (2)
    let ec = |code: i32| PodLifeTimeArgs { exit_codes: vec![code], ..states(None, &["Failed"]) };
    v.push(case("evict pod with matching exit code", ec(1), vec![terminated(failed("p1"), "", None, 1)], 1, &[]));
    v.push(case("exit code not matched, 0 evictions", ec(2), vec![terminated(failed("p1"), "", None, 1)], 0, &[]));
    // TestCombinedFilters (2)
    v.push(case(
        "user scenario: Succeeded + PodCompleted condition + transition time threshold",
        sc(&["Succeeded"], vec![cond("", "True", "PodCompleted", Some(300))]),
        vec![
            conds(succeeded("stale-completed"), completed_old),
            conds(succeeded("recent-completed"), vec![pod_cond("Initialized", "True", "PodCompleted", new_t)]),
            with_phase(bp("running-pod"), PodPhase::Running),
        ],
        1,
        &["stale-completed"],
    ));
    let mut a = ok(&[], &["Job"]);
    a.max_pod_life_time_seconds = Some(0);
    v.push(case(
        "failed pod removal compat: Failed + min age + exclude Job",
        a,
        vec![terminated(failed("failed-rs"), "", Some("Error"), 0), job(failed("failed-job"))],
        1,
        &["failed-rs"],
    ));
    v
}

/// kdrift's own case: one list over both nodes, oldest first; the rule and
/// skip texts carry the numbers; a node limit moves on to the next pod.
#[test]
fn one_list_oldest_first_with_numbers() {
    let pod = |name: &str, node_name: &str, age: i64| {
        let mut p = build_pod(name, 100, 0, node_name);
        p.owners = vec![rs_owner()];
        p.phase = Some(PodPhase::Running);
        p.creation_timestamp = Some(ago(age));
        p
    };
    let args = PodLifeTimeArgs { max_pod_life_time_seconds: Some(3600), ..Default::default() };
    let mut c = case("kdrift", args, Vec::new(), 0, &[]);
    c.nodes = vec![node("a", 2000, 3000, 10), node("b", 2000, 3000, 10)];
    c.pods =
        vec![pod("a-old", "a", 7200), pod("a-older", "a", 10_920), pod("a-young", "a", 1800), pod("b-old", "b", 9000)];
    c.max_per_node = Some(1);
    let plan = c.plan(POD_LIFE_TIME);
    let run = &plan.runs[0];
    let got: Vec<(&str, &str, &str)> =
        run.evictions.iter().map(|e| (e.pod.name.as_str(), e.source_node.as_str(), e.rule.as_str())).collect();
    assert_eq!(
        got,
        [
            ("a-older", "a", "#1 of 3 (oldest first): age 10920s (3h02m) > maxPodLifeTimeSeconds 3600"),
            ("b-old", "b", "#2 of 3 (oldest first): age 9000s (2h30m) > maxPodLifeTimeSeconds 3600"),
        ]
    );
    let skip = |n: &str| run.skipped.iter().find(|s| s.pod.name == n).map(|s| (s.message.clone(), s.upstream_message));
    assert_eq!(skip("a-old"), Some(("maximum number of evicted pods per node reached".to_string(), true)));
    // a-young (age 1800s <= 3600) breaks nothing: counted, not listed.
    assert_eq!(skip("a-young"), None);
    assert_eq!(run.not_matching, 1);
    assert_eq!(run.skipped.len(), 1);
}

/// kdrift's own case: the condition rule names the condition and its
/// transition age; a pod failing `states` is counted.
#[test]
fn condition_and_state_texts() {
    let mut p = conds(
        with_phase(bp("done"), PodPhase::Succeeded),
        vec![pod_cond("Ready", "False", "PodCompleted", Some(ago(7200)))],
    );
    p.creation_timestamp = Some(ago(9000));
    let running = with_phase(bp("running"), PodPhase::Running);
    let args = PodLifeTimeArgs {
        conditions: vec![cond("Ready", "", "PodCompleted", Some(300))],
        ..states(None, &["Succeeded", "OOMKilled"])
    };
    let plan = case("kdrift", args, vec![p, running], 1, &["done"]).plan(POD_LIFE_TIME);
    let run = &plan.runs[0];
    assert_eq!(
        run.evictions[0].rule,
        "#1 of 1 (oldest first): state phase Succeeded listed, condition Ready=False (PodCompleted) for 7200s (2h00m) >= minTimeSinceLastTransitionSeconds 300"
    );
    // running (no state listed) breaks nothing: counted, not listed.
    assert!(run.skipped.is_empty(), "{:?}", run.skipped);
    assert_eq!(run.not_matching, 1);
}
