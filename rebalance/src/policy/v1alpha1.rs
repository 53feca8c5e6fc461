//! `descheduler/v1alpha1` policies (`kind: DeschedulerPolicy` with
//! `strategies:`): recognised, refused, and translated to v1alpha2 so the
//! user can see (and keep) what descheduler's own conversion made of it.
//!
//! Source: descheduler's `pkg/api/v1alpha1/conversion.go`
//! (`V1alpha1ToInternal`) and `strategymigration.go`
//! (`StrategyParamsToPluginArgs`), the conversion descheduler applied while
//! it still read v1alpha1:
//! - each strategy with `enabled: true` becomes a profile named
//!   `strategy-NAME-profile`; disabled ones are dropped; an unknown name is
//!   an error ("unknown strategy name: NAME");
//! - the profile's DefaultEvictor args come from the top-level
//!   `evictLocalStoragePods`, `evictSystemCriticalPods`, `ignorePvcPods`,
//!   `evictFailedBarePods` and the strategy's `params.nodeFit` (never for
//!   PodLifeTime), `params.thresholdPriority` /
//!   `params.thresholdPriorityClassName` (both set: "priority threshold
//!   misconfigured for plugin NAME"); only the settings that differ from
//!   the defaults are written;
//! - the strategy's params become the plugin's args (`namespaces` →
//!   `evictableNamespaces` for the utilization plugins;
//!   `nodeResourceUtilizationThresholds`, `podLifeTime`, `failedPods`,
//!   `podsHavingTooManyRestarts`, `removeDuplicates` are flattened;
//!   `podStatusPhases` and `states` join into `states`;
//!   `includeSoftConstraints` adds `ScheduleAnyway` to `constraints`, and
//!   the topology plugin gets `topologyBalanceNodeFit: true`);
//! - the plugin is enabled at its extension point (Deschedule or Balance);
//! - `nodeSelector`, `maxNoOfPodsToEvictPerNode` and
//!   `maxNoOfPodsToEvictPerNamespace` are kept.
//!
//! Departure: upstream iterates `strategies` as a Go map (random profile
//! order); the translation keeps the file's order.

use serde_yaml::{Mapping, Value};

use super::error::PolicyError;
use super::plugins::{extension_point_of, ExtensionPoint};

/// `descheduler/v1alpha1`.
pub const API_VERSION_V1ALPHA1: &str = "descheduler/v1alpha1";

fn get<'a>(m: &'a Value, key: &str) -> Option<&'a Value> {
    m.as_mapping().and_then(|m| m.get(key)).filter(|v| !v.is_null())
}

fn put(out: &mut Mapping, key: &str, v: Option<&Value>) {
    if let Some(v) = v {
        out.insert(Value::String(key.to_string()), v.clone());
    }
}

fn is_true(v: Option<&Value>) -> bool {
    v.and_then(Value::as_bool) == Some(true)
}

/// The strategy's params as the plugin's args (`StrategyParamsToPluginArgs`).
fn plugin_args(name: &str, params: &Value) -> Option<Mapping> {
    let mut a = Mapping::new();
    let ns = get(params, "namespaces");
    let sel = get(params, "labelSelector");
    let nested = |key: &str| get(params, key).cloned().unwrap_or(Value::Mapping(Mapping::new()));
    match name {
        "RemovePodsViolatingNodeTaints" => {
            put(&mut a, "namespaces", ns);
            put(&mut a, "labelSelector", sel);
            put(&mut a, "includePreferNoSchedule", get(params, "includePreferNoSchedule"));
            put(&mut a, "excludedTaints", get(params, "excludedTaints"));
        }
        "RemoveFailedPods" => {
            let f = nested("failedPods");
            put(&mut a, "namespaces", ns);
            put(&mut a, "labelSelector", sel);
            for k in ["includingInitContainers", "minPodLifetimeSeconds", "excludeOwnerKinds", "reasons"] {
                put(&mut a, k, get(&f, k));
            }
        }
        "RemovePodsViolatingNodeAffinity" => {
            put(&mut a, "namespaces", ns);
            put(&mut a, "labelSelector", sel);
            put(&mut a, "nodeAffinityType", get(params, "nodeAffinityType"));
        }
        "RemovePodsViolatingInterPodAntiAffinity" => {
            put(&mut a, "namespaces", ns);
            put(&mut a, "labelSelector", sel);
        }
        "RemovePodsHavingTooManyRestarts" => {
            let r = nested("podsHavingTooManyRestarts");
            put(&mut a, "namespaces", ns);
            put(&mut a, "labelSelector", sel);
            put(&mut a, "podRestartThreshold", get(&r, "podRestartThreshold"));
            put(&mut a, "includingInitContainers", get(&r, "includingInitContainers"));
        }
        "PodLifeTime" => {
            let l = nested("podLifeTime");
            put(&mut a, "namespaces", ns);
            put(&mut a, "labelSelector", sel);
            put(&mut a, "maxPodLifeTimeSeconds", get(&l, "maxPodLifeTimeSeconds"));
            let mut states = Vec::new();
            for k in ["podStatusPhases", "states"] {
                if let Some(Value::Sequence(s)) = get(&l, k) {
                    states.extend(s.iter().cloned());
                }
            }
            if !states.is_empty() {
                a.insert("states".into(), Value::Sequence(states));
            }
        }
        "RemoveDuplicates" => {
            put(&mut a, "namespaces", ns);
            put(&mut a, "excludeOwnerKinds", get(&nested("removeDuplicates"), "excludeOwnerKinds"));
        }
        "RemovePodsViolatingTopologySpreadConstraint" => {
            put(&mut a, "namespaces", ns);
            put(&mut a, "labelSelector", sel);
            let mut c = vec![Value::String("DoNotSchedule".into())];
            if is_true(get(params, "includeSoftConstraints")) {
                c.push(Value::String("ScheduleAnyway".into()));
            }
            a.insert("constraints".into(), Value::Sequence(c));
            a.insert("topologyBalanceNodeFit".into(), Value::Bool(true));
        }
        "HighNodeUtilization" | "LowNodeUtilization" => {
            let t = nested("nodeResourceUtilizationThresholds");
            put(&mut a, "evictableNamespaces", ns);
            put(&mut a, "thresholds", get(&t, "thresholds"));
            if name == "LowNodeUtilization" {
                put(&mut a, "targetThresholds", get(&t, "targetThresholds"));
                put(&mut a, "useDeviationThresholds", get(&t, "useDeviationThresholds"));
            }
            put(&mut a, "numberOfNodes", get(&t, "numberOfNodes"));
        }
        _ => return None,
    }
    Some(a)
}

/// The v1alpha2 translation of a v1alpha1 policy document, as YAML text.
///
/// # Errors
/// The conversion's own refusals: "unknown strategy name: NAME",
/// "priority threshold misconfigured for plugin NAME".
pub fn translate(doc: &Value) -> Result<String, String> {
    let mut profiles = Vec::new();
    let empty = Mapping::new();
    let strategies = get(doc, "strategies").and_then(Value::as_mapping).unwrap_or(&empty);
    for (k, strategy) in strategies {
        let name = k.as_str().unwrap_or_default();
        let unknown = || format!("unknown strategy name: {name}");
        let point = extension_point_of(name).ok_or_else(unknown)?;
        if !is_true(get(strategy, "enabled")) {
            continue;
        }
        let params = get(strategy, "params").cloned().unwrap_or(Value::Mapping(Mapping::new()));
        let mut evictor = Mapping::new();
        for (v1, v2) in [
            ("evictLocalStoragePods", "evictLocalStoragePods"),
            ("evictSystemCriticalPods", "evictSystemCriticalPods"),
            ("ignorePvcPods", "ignorePvcPods"),
            ("evictFailedBarePods", "evictFailedBarePods"),
        ] {
            if is_true(get(doc, v1)) {
                evictor.insert(v2.into(), Value::Bool(true));
            }
        }
        if name != "PodLifeTime" && is_true(get(&params, "nodeFit")) {
            evictor.insert("nodeFit".into(), Value::Bool(true));
        }
        let value = get(&params, "thresholdPriority");
        let class = get(&params, "thresholdPriorityClassName").filter(|v| v.as_str() != Some(""));
        if value.is_some() && class.is_some() {
            return Err(format!("priority threshold misconfigured for plugin {name}"));
        }
        if value.is_some() || class.is_some() {
            let mut t = Mapping::new();
            put(&mut t, "value", value);
            put(&mut t, "name", class);
            evictor.insert("priorityThreshold".into(), Value::Mapping(t));
        }
        let args = plugin_args(name, &params).ok_or_else(unknown)?;
        let config = |n: &str, args: Mapping| {
            let mut c = Mapping::new();
            c.insert("name".into(), Value::String(n.to_string()));
            c.insert("args".into(), Value::Mapping(args));
            Value::Mapping(c)
        };
        let point_key = match point {
            ExtensionPoint::Deschedule => "deschedule",
            ExtensionPoint::Balance => "balance",
        };
        let mut enabled = Mapping::new();
        enabled.insert("enabled".into(), Value::Sequence(vec![Value::String(name.to_string())]));
        let mut plugins = Mapping::new();
        plugins.insert(point_key.into(), Value::Mapping(enabled));
        let mut profile = Mapping::new();
        profile.insert("name".into(), Value::String(format!("strategy-{name}-profile")));
        profile.insert(
            "pluginConfig".into(),
            Value::Sequence(vec![config("DefaultEvictor", evictor), config(name, args)]),
        );
        profile.insert("plugins".into(), Value::Mapping(plugins));
        profiles.push(Value::Mapping(profile));
    }
    let mut out = Mapping::new();
    out.insert("apiVersion".into(), Value::String(super::API_VERSION.to_string()));
    out.insert("kind".into(), Value::String(super::KIND.to_string()));
    out.insert("profiles".into(), Value::Sequence(profiles));
    for k in ["nodeSelector", "maxNoOfPodsToEvictPerNode", "maxNoOfPodsToEvictPerNamespace"] {
        put(&mut out, k, get(doc, k));
    }
    serde_yaml::to_string(&Value::Mapping(out)).map_err(|e| e.to_string())
}

/// The error for a v1alpha1 document: what it is, and its translation (or
/// why the conversion itself fails); when the translation is one descheduler
/// v0.36 would refuse, that too. `path` names the apiVersion field
/// (`apiVersion`, or `deschedulerPolicyAPIVersion` in Helm values).
pub(crate) fn refusal(path: &str, doc: &Value) -> PolicyError {
    let problem = match translate(doc) {
        Err(e) => format!(
            "{API_VERSION_V1ALPHA1:?} is the old strategies format, which kdrift does not read (it reads {}); \
             descheduler's own conversion refuses this one: {e}",
            super::API_VERSION
        ),
        Ok(yaml) => {
            let check = match super::Policy::from_yaml(&yaml) {
                Ok(_) => String::new(),
                Err(e) => format!("\n# descheduler v0.36 would refuse this translation: {e}"),
            };
            format!(
                "{API_VERSION_V1ALPHA1:?} is the old strategies format, which kdrift does not read (it reads {}); \
                 descheduler's v1alpha1 conversion makes it this {} policy (one profile per enabled strategy):\n{yaml}{check}",
                super::API_VERSION,
                super::API_VERSION
            )
        }
    };
    PolicyError::field(path, problem)
}

#[cfg(test)]
mod tests {
    use crate::policy::{Policy, PolicyError};

    const V1ALPHA1: &str = r#"apiVersion: "descheduler/v1alpha1"
kind: "DeschedulerPolicy"
nodeSelector: "node-role.kubernetes.io/worker="
evictLocalStoragePods: true
maxNoOfPodsToEvictPerNode: 5
strategies:
  "RemoveDuplicates":
    enabled: true
  "RemovePodsHavingTooManyRestarts":
    enabled: false
  "LowNodeUtilization":
    enabled: true
    params:
      nodeFit: true
      thresholdPriorityClassName: "high"
      namespaces:
        exclude: ["kube-system"]
      nodeResourceUtilizationThresholds:
        thresholds: {"cpu": 20, "memory": 20, "pods": 20}
        targetThresholds: {"cpu": 50, "memory": 50, "pods": 50}
  "PodLifeTime":
    enabled: true
    params:
      nodeFit: true
      podLifeTime:
        maxPodLifeTimeSeconds: 86400
        podStatusPhases: ["Pending"]
"#;

    const V1ALPHA2: &str = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: strategy-RemoveDuplicates-profile
  pluginConfig:
  - name: DefaultEvictor
    args:
      evictLocalStoragePods: true
  - name: RemoveDuplicates
    args: {}
  plugins:
    balance:
      enabled:
      - RemoveDuplicates
- name: strategy-LowNodeUtilization-profile
  pluginConfig:
  - name: DefaultEvictor
    args:
      evictLocalStoragePods: true
      nodeFit: true
      priorityThreshold:
        name: high
  - name: LowNodeUtilization
    args:
      evictableNamespaces:
        exclude:
        - kube-system
      thresholds:
        cpu: 20
        memory: 20
        pods: 20
      targetThresholds:
        cpu: 50
        memory: 50
        pods: 50
  plugins:
    balance:
      enabled:
      - LowNodeUtilization
- name: strategy-PodLifeTime-profile
  pluginConfig:
  - name: DefaultEvictor
    args:
      evictLocalStoragePods: true
  - name: PodLifeTime
    args:
      maxPodLifeTimeSeconds: 86400
      states:
      - Pending
  plugins:
    deschedule:
      enabled:
      - PodLifeTime
nodeSelector: node-role.kubernetes.io/worker=
maxNoOfPodsToEvictPerNode: 5
";

    #[test]
    fn a_v1alpha1_policy_is_refused_with_its_v1alpha2_translation() {
        let err = Policy::from_yaml(V1ALPHA1).expect_err("v1alpha1 is refused");
        let PolicyError::Field { path, problem } = &err else { panic!("{err:?}") };
        assert_eq!(path, "apiVersion");
        let (head, yaml) = problem.split_once('\n').expect("a translation");
        assert_eq!(
            head,
            "\"descheduler/v1alpha1\" is the old strategies format, which kdrift does not read (it reads \
             descheduler/v1alpha2); descheduler's v1alpha1 conversion makes it this descheduler/v1alpha2 policy \
             (one profile per enabled strategy):"
        );
        assert_eq!(yaml, V1ALPHA2);
        // The translation is a policy kdrift reads: three profiles, limits kept.
        let p = Policy::from_yaml(yaml).expect("translation reads");
        assert_eq!(p.profiles.len(), 3);
        assert_eq!(p.max_no_of_pods_to_evict_per_node, Some(5));
    }

    #[test]
    fn the_conversions_own_refusals_are_named() {
        let bad = "apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\nstrategies:\n  RemoveEverything:\n    enabled: true\n";
        assert!(Policy::from_yaml(bad)
            .expect_err("refused")
            .to_string()
            .ends_with("descheduler's own conversion refuses this one: unknown strategy name: RemoveEverything"),);
        let both = "apiVersion: descheduler/v1alpha1\nstrategies:\n  RemoveDuplicates:\n    enabled: true\n    params:\n      thresholdPriority: 100\n      thresholdPriorityClassName: high\n";
        assert!(Policy::from_yaml(both)
            .expect_err("refused")
            .to_string()
            .ends_with("priority threshold misconfigured for plugin RemoveDuplicates"));
        // As Helm values.
        let helm = "deschedulerPolicyAPIVersion: descheduler/v1alpha1\ndeschedulerPolicy:\n  strategies:\n    RemoveDuplicates:\n      enabled: true\n";
        assert!(Policy::from_yaml(helm)
            .expect_err("refused")
            .to_string()
            .contains("- name: strategy-RemoveDuplicates-profile"));
    }
}
