//! `RemovePodsViolatingTopologySpreadConstraint` args: upstream's
//! `validation_test.go` (6) and `defaults_test.go` (5), unknown fields and
//! the YAML round trip.

use super::*;
use crate::model::pod::LabelSelector;
use crate::policy::lnu::Namespaces;
use crate::policy::plugins::high_node_utilization::tests::policy_text;
use crate::policy::{PluginArgs, Policy};

const PLUGIN: &str = "RemovePodsViolatingTopologySpreadConstraint";

fn read(args: &str) -> Result<RemovePodsViolatingTopologySpreadConstraintArgs, String> {
    let p = Policy::from_yaml(&policy_text(PLUGIN, args)).map_err(|e| e.to_string())?;
    match &p.profiles[0].plugin_config[0].args {
        PluginArgs::RemovePodsViolatingTopologySpreadConstraint(a) => Ok((**a).clone()),
        other => Err(format!("{other:?}")),
    }
}

#[test]
fn upstream_validation_table() {
    let ns = |include: &[&str], exclude: &[&str]| PodScope {
        namespaces: Some(Namespaces {
            include: include.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
        }),
        label_selector: None,
    };
    let with = |scope: PodScope, constraints: &[&str]| RemovePodsViolatingTopologySpreadConstraintArgs {
        scope,
        constraints: constraints.iter().map(|s| s.to_string()).collect(),
        topology_balance_node_fit: None,
    };
    assert_eq!(with(ns(&["default"], &[]), &[]).validate(), Ok(()), "valid namespace args");
    assert_eq!(
        with(ns(&["default"], &["kube-system"]), &[]).validate(),
        Err("only one of Include/Exclude namespaces can be set".to_string())
    );
    assert!(read("labelSelector: {matchLabels: {role.kubernetes.io/node: \"\"}}").is_ok(), "valid label selector");
    let bad = read("labelSelector: {matchExpressions: [{operator: In}]}").err().unwrap_or_default();
    assert!(bad.contains("labelSelector.matchExpressions[0].key") && bad.contains("is required"), "{bad}");
    assert_eq!(with(PodScope::default(), &["DoNotSchedule", "ScheduleAnyway"]).validate(), Ok(()));
    assert_eq!(
        with(PodScope::default(), &["foo"]).validate(),
        Err("constraint foo is not one of map[DoNotSchedule:{} ScheduleAnyway:{}]".to_string())
    );
    println!("upstream vectors RemovePodsViolatingTopologySpreadConstraint validation: 6 ported, 6 passed, 0 skipped");
}

#[test]
fn errors_are_aggregated() {
    let e = Policy::from_yaml(&policy_text(
        PLUGIN,
        "namespaces: {include: [a], exclude: [b]}\nconstraints: [foo, DoNotSchedule, bar]",
    ))
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(
        e.contains(
            "in profile p: [only one of Include/Exclude namespaces can be set, constraint foo is not one of \
             map[DoNotSchedule:{} ScheduleAnyway:{}], constraint bar is not one of map[DoNotSchedule:{} ScheduleAnyway:{}]]"
        ),
        "{e}"
    );
}

#[test]
fn upstream_defaults_table() {
    let dns = || vec![DO_NOT_SCHEDULE.to_string()];
    // "empty", "without TopologyBalanceNodeFit", "with nil constraints".
    let empty = RemovePodsViolatingTopologySpreadConstraintArgs::default().defaulted();
    assert_eq!((empty.constraints.clone(), empty.topology_balance_node_fit), (dns(), Some(true)));
    assert_eq!(empty.scope, PodScope::default());
    // "with value": namespaces {}, labelSelector {}, both constraints kept.
    let with = RemovePodsViolatingTopologySpreadConstraintArgs {
        scope: PodScope { namespaces: Some(Namespaces::default()), label_selector: Some(LabelSelector::default()) },
        constraints: vec![DO_NOT_SCHEDULE.into(), SCHEDULE_ANYWAY.into()],
        topology_balance_node_fit: None,
    }
    .defaulted();
    assert_eq!(with.constraints, [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY]);
    assert_eq!(with.topology_balance_node_fit, Some(true));
    assert!(with.scope.label_selector.is_some());
    // "with TopologyBalanceNodeFit=false".
    let off = read("topologyBalanceNodeFit: false").map(|a| a.defaulted()).unwrap_or_default();
    assert_eq!((off.constraints, off.topology_balance_node_fit), (dns(), Some(false)));
    // Reading keeps what was written: defaults are applied after validation.
    assert_eq!(read("topologyBalanceNodeFit: false").map(|a| a.constraints), Ok(Vec::new()));
    println!("upstream vectors RemovePodsViolatingTopologySpreadConstraint defaults: 5 ported, 5 passed, 0 skipped");
}

#[test]
fn unknown_fields_are_rejected_and_round_trip() {
    let e = read("constraint: [DoNotSchedule]").err().unwrap_or_default();
    assert!(e.contains("constraint") && e.contains("unknown field"), "{e}");
    let e = read("includeSoftConstraints: true").err().unwrap_or_default();
    assert!(e.contains("includeSoftConstraints"), "{e}");
    let text = policy_text(
        PLUGIN,
        "namespaces: {exclude: [kube-system]}\nlabelSelector: {matchLabels: {app: web}}\nconstraints: [DoNotSchedule, ScheduleAnyway]\ntopologyBalanceNodeFit: false",
    );
    let p = Policy::from_yaml(&text).expect("valid");
    let written = p.to_yaml().expect("writes");
    assert_eq!(Policy::from_yaml(&written).expect("reads back"), p, "{written}");
}
