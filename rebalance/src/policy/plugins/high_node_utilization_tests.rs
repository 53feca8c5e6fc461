//! `HighNodeUtilization` args: upstream's validation and defaults tables
//! (`nodeutilization/validation_test.go` TestValidateHighNodeUtilizationPluginConfig,
//! `defaults_test.go` TestSetDefaults_HighNodeUtilizationArgs), unknown
//! fields and the YAML round trip.

use super::*;
use crate::policy::{PluginArgs, Policy};

fn args(thresholds: &[(&str, f64)], modes: Option<&[&str]>, exclude: &[&str]) -> HighNodeUtilizationArgs {
    HighNodeUtilizationArgs {
        thresholds: thresholds.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        eviction_modes: modes.unwrap_or(&[]).iter().map(|m| m.to_string()).collect(),
        evictable_namespaces: (!exclude.is_empty())
            .then(|| Namespaces { include: Vec::new(), exclude: exclude.iter().map(|s| s.to_string()).collect() }),
        ..Default::default()
    }
}

/// The policy text of one profile with `HighNodeUtilization` `args`.
pub(crate) fn policy_text(plugin: &str, args: &str) -> String {
    format!(
        "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: {plugin}\n    args:\n{}\n  plugins:\n    balance:\n      enabled: [{plugin}]\n",
        args.lines().map(|l| format!("      {l}")).collect::<Vec<_>>().join("\n")
    )
}

fn read(args: &str) -> Result<HighNodeUtilizationArgs, String> {
    let p = Policy::from_yaml(&policy_text("HighNodeUtilization", args)).map_err(|e| e.to_string())?;
    match &p.profiles[0].plugin_config[0].args {
        PluginArgs::HighNodeUtilization(a) => Ok((**a).clone()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn upstream_validation_table() {
    let only = Some(&[ONLY_THRESHOLDING_RESOURCES][..]);
    let cases: Vec<(&str, HighNodeUtilizationArgs, Option<&str>)> = vec![
        ("valid configuration with CPU and memory", args(&[("cpu", 80.0), ("memory", 90.0)], only, &[]), None),
        (
            "valid configuration with extended resource",
            args(&[("cpu", 85.0), ("example.com/foo", 95.0)], only, &[]),
            None,
        ),
        ("empty thresholds", args(&[], None, &[]), Some("no resource threshold is configured")),
        (
            "threshold below minimum (0%)",
            args(&[("cpu", -1.0)], None, &[]),
            Some("cpu threshold not in [0, 100] range"),
        ),
        (
            "threshold above maximum (100%)",
            args(&[("memory", 101.0)], None, &[]),
            Some("memory threshold not in [0, 100] range"),
        ),
        (
            "multiple thresholds with one out of range",
            args(&[("cpu", 50.0), ("memory", 150.0)], None, &[]),
            Some("memory threshold not in [0, 100] range"),
        ),
        ("evictableNamespaces with Exclude (allowed)", args(&[("cpu", 80.0)], None, &["ns1", "ns2"]), None),
        (
            "invalid eviction mode",
            args(&[("cpu", 80.0)], Some(&["InvalidMode"]), &[]),
            Some("invalid eviction mode InvalidMode"),
        ),
        ("missing eviction modes (nil)", args(&[("cpu", 80.0)], None, &[]), None),
        ("empty eviction modes slice", args(&[("cpu", 80.0)], Some(&[]), &[]), None),
    ];
    let (mut passed, total) = (0, cases.len());
    for (name, a, want) in cases {
        assert_eq!(a.validate().err().as_deref(), want, "{name}");
        passed += 1;
    }
    println!("upstream vectors HighNodeUtilization validation: {total} ported, {passed} passed, 0 skipped");
}

#[test]
fn include_namespaces_are_rejected_first() {
    let mut a = args(&[], Some(&["Bad"]), &[]);
    a.evictable_namespaces = Some(Namespaces { include: vec!["a".into()], exclude: Vec::new() });
    assert_eq!(a.validate().err().as_deref(), Some("only Exclude namespaces can be set, inclusion is not supported"));
    let e = Policy::from_yaml(&policy_text("HighNodeUtilization", "thresholds: {cpu: 120}"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("in profile p: cpu threshold not in [0, 100] range"), "{e}");
}

#[test]
fn upstream_defaults_table() {
    // "HighNodeUtilizationArgs empty": no threshold, numberOfNodes 0.
    let empty = HighNodeUtilizationArgs::read(None).expect("reads");
    assert!(empty.thresholds.is_empty());
    assert_eq!(empty.number_of_nodes, 0);
    // "with value": kept as written (memory 120 is not clamped by defaulting).
    let a = read("thresholds: {cpu: 20, memory: 50}\nnumberOfNodes: 10").expect("valid");
    assert_eq!(a.thresholds.get("cpu"), Some(&20.0));
    assert_eq!(a.number_of_nodes, 10);
    println!("upstream vectors HighNodeUtilization defaults: 2 ported, 2 passed, 0 skipped");
}

#[test]
fn unknown_fields_are_rejected_with_their_path() {
    let e = read("thresholds: {cpu: 20}\ntargetThresholds: {cpu: 50}").err().unwrap_or_default();
    assert!(e.contains("targetThresholds") && e.contains("unknown field"), "{e}");
    let e = read("thresholds: {cpu: 20}\nevictableNamespaces: {exclud: [a]}").err().unwrap_or_default();
    assert!(e.contains("evictableNamespaces.exclud"), "{e}");
}

#[test]
fn round_trip_is_equal() {
    let text = policy_text(
        "HighNodeUtilization",
        "thresholds: {cpu: 20.5, memory: 30, example.com/gpu: 10}\nnumberOfNodes: 2\nevictionModes: [OnlyThresholdingResources]\nevictableNamespaces: {exclude: [kube-system]}",
    );
    let p = Policy::from_yaml(&text).expect("valid");
    let written = p.to_yaml().expect("writes");
    assert_eq!(Policy::from_yaml(&written).expect("reads back"), p, "{written}");
    let PluginArgs::HighNodeUtilization(a) = &p.profiles[0].plugin_config[0].args else { panic!() };
    assert!(a.only_thresholding_resources());
    assert_eq!(a.excluded_namespaces(), ["kube-system".to_string()]);
}
