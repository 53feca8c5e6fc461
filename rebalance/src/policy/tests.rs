//! Tests of policy reading, validation messages and round trips.

use super::*;

/// A homelab policy: 50 % → 80 % on cpu and memory, at most 5 evictions per
/// node and 10 per cycle, nodeFit, local storage evictable, kube-system and
/// postgres untouched, Plex and Job pods never evicted.
pub(crate) const HOMELAB_POLICY: &str = r#"
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictTotal: 10
profiles:
  - name: homelab
    pluginConfig:
      - name: DefaultEvictor
        args:
          nodeFit: true
          podProtections:
            defaultDisabled: [PodsWithLocalStorage]
          labelSelector:
            matchExpressions:
              - {key: app, operator: NotIn, values: [plex]}
              - {key: batch.kubernetes.io/job-name, operator: DoesNotExist}
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 50, memory: 50}
          targetThresholds: {cpu: 80, memory: 80}
          evictableNamespaces:
            exclude: [kube-system, postgres]
          evictionLimits:
            node: 5
    plugins:
      balance:
        enabled: [LowNodeUtilization]
"#;

fn invalid(text: &str) -> String {
    match Policy::from_yaml(text) {
        Err(e @ PolicyError::Invalid(_)) => e.to_string(),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

fn with_lnu(args: &str) -> String {
    format!(
        "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: LowNodeUtilization\n    args:\n{}\n  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n",
        args.lines().map(|l| format!("      {l}")).collect::<Vec<_>>().join("\n")
    )
}

fn with_evictor(args: &str) -> String {
    format!(
        "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n    args:\n{}\n",
        args.lines().map(|l| format!("      {l}")).collect::<Vec<_>>().join("\n")
    )
}

#[test]
fn reads_the_homelab_policy() {
    let p = Policy::from_yaml(HOMELAB_POLICY).expect("valid");
    assert_eq!(p.max_no_of_pods_to_evict_total, Some(10));
    let prof = &p.profiles[0];
    assert!(prof.balances_low_node_utilization());
    let lnu = prof.low_node_utilization().expect("lnu");
    assert_eq!(lnu.thresholds.get("cpu"), Some(&50.0));
    assert_eq!(lnu.target_thresholds.get("memory"), Some(&80.0));
    assert_eq!(lnu.node_eviction_limit(), Some(5));
    assert_eq!(lnu.excluded_namespaces(), ["kube-system".to_string(), "postgres".to_string()]);
    let ev = prof.default_evictor();
    assert!(ev.node_fit);
    assert_eq!(
        ev.effective_protections(),
        vec![PodProtection::SystemCriticalPods, PodProtection::FailedBarePods, PodProtection::DaemonSetPods]
    );
    assert_eq!(ev.label_selector.as_ref().map(|s| s.match_expressions.len()), Some(2));
}

#[test]
fn round_trip_is_equal() {
    let texts = [
        HOMELAB_POLICY.to_string(),
        with_lnu("thresholds: {cpu: 20.5, memory: 20, pods: 20}\ntargetThresholds: {cpu: 50, memory: 50.25, pods: 50}\nuseDeviationThresholds: true\nnumberOfNodes: 2\nmetricsUtilization: {metricsServer: true}"),
        with_evictor("nodeSelector: \"role=worker\"\npriorityThreshold: {name: high}\nminReplicas: 2\nminPodAge: 90s\nnoEvictionPolicy: Mandatory\nnamespaceLabelSelector: {matchLabels: {team: a}}\npodProtections:\n  extraEnabled: [PodsWithPVC, PodsWithoutPDB]\n  config:\n    PodsWithPVC:\n      protectedStorageClasses: [{name: local-path}]"),
        with_evictor("evictLocalStoragePods: true\nevictDaemonSetPods: false\nignorePvcPods: true"),
        "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nnodeSelector: \"kubernetes.io/os=linux\"\nmaxNoOfPodsToEvictPerNode: 3\nmaxNoOfPodsToEvictPerNamespace: 2\ngracePeriodSeconds: 30\nevictionFailureEventNotification: true\nmetricsProviders: [{source: KubernetesMetrics}]\nprofiles:\n- name: x\n  pluginConfig:\n  - name: RemoveDuplicates\n  - name: PodLifeTime\n    args: {maxPodLifeTimeSeconds: 86400}\n  plugins:\n    deschedule: {enabled: [PodLifeTime]}\n    preevictionfilter: {enabled: [DefaultEvictor]}\n".to_string(),
    ];
    for t in texts {
        let p = Policy::from_yaml(&t).expect("valid");
        let written = p.to_yaml().expect("writes");
        let again = Policy::from_yaml(&written).unwrap_or_else(|e| panic!("{e}\n{written}"));
        assert_eq!(p, again, "{written}");
    }
}

#[test]
fn uniform_thresholds_replace_only_the_lnu_values() {
    let p = Policy::from_yaml(HOMELAB_POLICY).expect("valid");
    let q = p.with_uniform_thresholds(40.0, 70.0).expect("valid");
    let lnu = q.profiles[0].low_node_utilization().expect("lnu");
    let map = |v: f64| [("cpu".to_string(), v), ("memory".to_string(), v)].into_iter().collect::<ResourceThresholds>();
    assert_eq!(lnu.thresholds, map(40.0));
    assert_eq!(lnu.target_thresholds, map(70.0));
    assert_eq!(lnu.evictable_namespaces, p.profiles[0].low_node_utilization().expect("lnu").evictable_namespaces);
    assert_eq!(q.max_no_of_pods_to_evict_total, Some(10));
    assert_eq!(q.profiles[0].default_evictor(), p.profiles[0].default_evictor());
    // A target below the threshold fails descheduler's validation.
    assert!(p.with_uniform_thresholds(60.0, 50.0).is_err());
}

#[test]
fn durations_are_written_the_go_way() {
    let p = Policy::from_yaml(&with_evictor("minPodAge: 5m")).expect("valid");
    assert!(p.to_yaml().expect("writes").contains("minPodAge: 5m0s"));
}

#[test]
fn helm_values_form() {
    let values = r#"
schedule: "*/5 * * * *"
cmdOptions: {v: 3}
deschedulerPolicyAPIVersion: descheduler/v1alpha2
deschedulerPolicy:
  maxNoOfPodsToEvictPerNode: 4
  profiles:
    - name: mine
      pluginConfig:
        - name: LowNodeUtilization
          args:
            thresholds: {cpu: 30}
            targetThresholds: {cpu: 60}
      plugins:
        balance: {enabled: [LowNodeUtilization]}
"#;
    let (p, form) = Policy::from_yaml_with_form(values).expect("valid");
    assert_eq!(form, PolicyForm::HelmValues);
    assert_eq!(p.max_no_of_pods_to_evict_per_node, Some(4));
    // The user's profiles list replaces the chart's whole default list.
    assert_eq!(p.profiles.len(), 1);
    assert_eq!(p.profiles[0].name, "mine");
    assert_eq!(p.profiles[0].low_node_utilization().map(|a| a.thresholds.len()), Some(1));
}

#[test]
fn helm_values_without_profiles_get_the_chart_defaults() {
    let (p, _) = Policy::from_yaml_with_form("deschedulerPolicy:\n  nodeSelector: \"a=b\"\n").expect("valid");
    assert_eq!(p.node_selector.as_deref(), Some("a=b"));
    let prof = &p.profiles[0];
    assert!(prof.balances_low_node_utilization());
    let lnu = prof.low_node_utilization().expect("lnu");
    assert_eq!(lnu.thresholds.get("pods"), Some(&20.0));
    assert_eq!(lnu.target_thresholds.get("cpu"), Some(&50.0));
    let ev = prof.default_evictor();
    assert_eq!(ev.pod_protections.default_disabled, vec![PodProtection::PodsWithLocalStorage]);
    assert_eq!(ev.pod_protections.extra_enabled, vec![PodProtection::PodsWithPVC]);
    let (empty, _) = Policy::from_yaml_with_form("deschedulerPolicy:\n").expect("valid");
    assert_eq!(empty.profiles, p.profiles);
    let err = Policy::from_yaml("deschedulerPolicyAPIVersion: descheduler/v1alpha1\ndeschedulerPolicy: {}\n")
        .expect_err("v1alpha1");
    assert!(err.to_string().starts_with("deschedulerPolicyAPIVersion:"), "{err}");
}

#[test]
fn configmap_form() {
    let cm = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: descheduler}}\ndata:\n  policy.yaml: |\n{}",
        HOMELAB_POLICY.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
    );
    let (p, form) = Policy::from_yaml_with_form(&cm).expect("valid");
    assert_eq!(form, PolicyForm::ConfigMap);
    assert_eq!(p, Policy::from_yaml(HOMELAB_POLICY).expect("valid"));
}

#[test]
fn lnu_validation_messages_are_descheduler_s() {
    assert_eq!(
        invalid(&with_lnu("thresholds: {}\ntargetThresholds: {cpu: 50}")),
        "in profile p: thresholds config is not valid: no resource threshold is configured"
    );
    assert_eq!(
        invalid(&with_lnu("thresholds: {cpu: 20, memory: 120}\ntargetThresholds: {cpu: 80, memory: 80}")),
        "in profile p: thresholds config is not valid: memory threshold not in [0, 100] range"
    );
    assert_eq!(
        invalid(&with_lnu("thresholds: {cpu: 20}\ntargetThresholds: {cpu: -1}")),
        "in profile p: targetThresholds config is not valid: cpu threshold not in [0, 100] range"
    );
    assert_eq!(
        invalid(&with_lnu("thresholds: {cpu: 20, memory: 20}\ntargetThresholds: {cpu: 80, pods: 80}")),
        "in profile p: thresholds and targetThresholds configured different resources"
    );
    assert_eq!(
        invalid(&with_lnu("thresholds: {cpu: 20}\ntargetThresholds: {cpu: 80, pods: 80}")),
        "in profile p: thresholds and targetThresholds configured different resources"
    );
    assert_eq!(
        invalid(&with_lnu("thresholds: {cpu: 90, memory: 20}\ntargetThresholds: {cpu: 80, memory: 80}")),
        "in profile p: thresholds' cpu percentage is greater than targetThresholds'"
    );
    // Allowed in deviation mode.
    Policy::from_yaml(&with_lnu("thresholds: {cpu: 90}\ntargetThresholds: {cpu: 10}\nuseDeviationThresholds: true"))
        .expect("deviation thresholds may be larger");
    assert_eq!(
        invalid(&with_lnu("thresholds: {cpu: 20}\ntargetThresholds: {cpu: 80}\nevictableNamespaces: {include: [a]}")),
        "in profile p: only Exclude namespaces can be set, inclusion is not supported"
    );
}

#[test]
fn evictor_validation_messages_are_descheduler_s() {
    assert_eq!(
        invalid(&with_evictor("priorityThreshold: {value: 1, name: x}")),
        "in profile p: priority threshold misconfigured, only one of priorityThreshold fields can be set"
    );
    assert_eq!(
        invalid(&with_evictor("noEvictionPolicy: Sometimes")),
        r#"in profile p: noEvictionPolicy accepts only ["Preferred" "Mandatory"] values"#
    );
    assert_eq!(
        invalid(&with_evictor("evictLocalStoragePods: true\npodProtections: {defaultDisabled: [DaemonSetPods]}")),
        "in profile p: cannot use Deprecated fields alongside PodProtections.ExtraEnabled or PodProtections.DefaultDisabled"
    );
    // `false` cannot be told from unset in Go: no error.
    Policy::from_yaml(&with_evictor(
        "evictLocalStoragePods: false\npodProtections: {defaultDisabled: [DaemonSetPods]}",
    ))
    .expect("false is unset");
    assert_eq!(
        invalid(&with_evictor("podProtections: {extraEnabled: [DaemonSetPods]}")),
        r#"in profile p: invalid pod protection policy in ExtraEnabled: "DaemonSetPods". Valid options are: [PodsWithPVC PodsWithoutPDB PodsWithResourceClaims]"#
    );
    assert_eq!(
        invalid(&with_evictor("podProtections: {defaultDisabled: [PodsWithLocalStorag]}")),
        r#"in profile p: invalid pod protection policy in DefaultDisabled: "PodsWithLocalStorag". Valid options are: [PodsWithLocalStorage SystemCriticalPods FailedBarePods DaemonSetPods]"#
    );
    assert_eq!(
        invalid(&with_evictor("noEvictionPolicy: invalid-no-eviction-policy\npodProtections:\n  extraEnabled: [PodsWithPVC, PodsWithPVC]\n  defaultDisabled: [PodsWithLocalStorage, PodsWithLocalStorage, PodsWithoutPDB]")),
        r#"in profile p: [noEvictionPolicy accepts only ["Preferred" "Mandatory"] values, invalid pod protection policy in DefaultDisabled: "PodsWithoutPDB". Valid options are: [PodsWithLocalStorage SystemCriticalPods FailedBarePods DaemonSetPods], PodProtections.DefaultDisabled contains duplicate entries, PodProtections.ExtraEnabled contains duplicate entries]"#
    );
}

#[test]
fn several_profiles_aggregate() {
    let text = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: a\n  pluginConfig:\n  - name: LowNodeUtilisation\n- name: b\n  pluginConfig:\n  - name: LowNodeUtilization\n    args: {thresholds: {}, targetThresholds: {}}\n";
    assert_eq!(
        invalid(text),
        "[in profile a: plugin LowNodeUtilisation in pluginConfig not registered (did you mean LowNodeUtilization?), in profile b: thresholds config is not valid: no resource threshold is configured]"
    );
}

#[test]
fn field_errors_name_the_path() {
    let err = Policy::from_yaml(&with_lnu("thresholds: {cpu: 20}\ntargetThreshold: {cpu: 50}")).expect_err("typo");
    assert!(
        err.to_string()
            .starts_with("profiles[0].pluginConfig[0].args.targetThreshold: unknown field (expected one of: thresholds, targetThresholds"),
        "{err}"
    );
    let err =
        Policy::from_yaml(&with_lnu("thresholds: {cpu: \"20\"}\ntargetThresholds: {cpu: 50}")).expect_err("string");
    assert_eq!(
        err.to_string(),
        "profiles[0].pluginConfig[0].args.thresholds.cpu: expected a number, got string \"20\""
    );
    let err = Policy::from_yaml(&with_evictor("minPodAge: \"5\"")).expect_err("no unit");
    assert_eq!(err.to_string(), "profiles[0].pluginConfig[0].args.minPodAge: time: missing unit in duration \"5\"");
    let err =
        Policy::from_yaml(&with_evictor("labelSelector: {matchExpressions: [{key: a, operator: Gt, values: ['1']}]}"))
            .expect_err("Gt");
    assert_eq!(
        err.to_string(),
        "profiles[0].pluginConfig[0].args.labelSelector.matchExpressions[0].operator: \"Gt\" is not a valid label selector operator"
    );
    let err = Policy::from_yaml("apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n").expect_err("v1alpha1");
    assert!(
        err.to_string().starts_with(
            "apiVersion: \"descheduler/v1alpha1\" is the old strategies format, which kdrift does not read"
        ),
        "{err}"
    );
    let err = Policy::from_yaml("kind: DeschedulerPolicy\nprofiles: []\n").expect_err("no apiVersion");
    assert!(err.to_string().starts_with("apiVersion: is required"), "{err}");
    let err = Policy::from_yaml("apiVersion: descheduler/v1alpha2\nstrategies: {}\n").expect_err("v1alpha1 field");
    assert!(err.to_string().starts_with("strategies: unknown field"), "{err}");
    let err = Policy::from_yaml("a: [").expect_err("yaml");
    assert!(matches!(err, PolicyError::Yaml(_)));
    let err = Policy::from_yaml("apiVersion: descheduler/v1alpha2\nnodeSelector: \"a b\"\n").expect_err("selector");
    assert!(err.to_string().starts_with("nodeSelector: unable to parse requirement"), "{err}");
}

/// descheduler v0.36 `NewProfile`: a plugin at an extension point it lacks,
/// and an enabled plugin without its `pluginConfig`, refuse the profile; an
/// out-of-tree plugin name is accepted (the plan names it as not modelled).
#[test]
fn profile_build_rules() {
    let head = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n";
    let wrong_point = format!(
        "{head}  pluginConfig:\n  - name: LowNodeUtilization\n    args: {{thresholds: {{cpu: 20}}, targetThresholds: {{cpu: 50}}}}\n  - name: RemoveDuplicates\n  plugins:\n    deschedule:\n      enabled: [LowNodeUtilization, RemoveDuplicates]\n"
    );
    assert_eq!(
        invalid(&wrong_point),
        r#"profile "p" configures deschedule extension point of non-existing plugins: map[LowNodeUtilization:{} RemoveDuplicates:{}]"#
    );
    let no_config = format!("{head}  plugins:\n    deschedule:\n      enabled: [RemovePodsViolatingNodeTaints]\n");
    assert_eq!(
        invalid(&no_config),
        r#"unable to create "p" profile: unable to build RemovePodsViolatingNodeTaints plugin: unable to find "RemovePodsViolatingNodeTaints" plugin config"#
    );
    let out_of_tree = format!(
        "{head}  pluginConfig:\n  - name: MyCompanyEvictor\n    args: {{anything: [1, 2]}}\n  plugins:\n    deschedule:\n      enabled: [MyCompanyEvictor]\n"
    );
    let p = Policy::from_yaml(&out_of_tree).expect("an out-of-tree plugin is accepted");
    assert_eq!(p.profiles[0].plugins.deschedule.enabled, vec!["MyCompanyEvictor".to_string()]);
}
