//! The descheduler Helm chart's values form: the policy lives under
//! `deschedulerPolicy:`, and the chart renders it merged over its own
//! defaults (Helm merges mappings key by key; lists and scalars in the user's
//! values replace the chart's, and `null` deletes a default key — so a
//! `profiles:` list replaces the chart's whole default list).
//!
//! [`CHART_DEFAULT_POLICY`] is the chart's default `deschedulerPolicy` as
//! described in the compatibility reference §8 (DefaultEvictor
//! `defaultDisabled: [PodsWithLocalStorage]`, `extraEnabled: [PodsWithPVC]`;
//! LowNodeUtilization cpu/memory/pods 20 → 50), with the chart's other
//! default plugins (kdrift does not plan those; they are listed so a plan can
//! say they also run).

use serde_yaml::{Mapping, Value};

/// The chart's `deschedulerPolicyAPIVersion` default.
pub const CHART_DEFAULT_API_VERSION: &str = "descheduler/v1alpha2";

/// The chart's default `deschedulerPolicy` (values.yaml), as YAML text.
pub const CHART_DEFAULT_POLICY: &str = r#"
profiles:
  - name: default
    pluginConfig:
      - name: DefaultEvictor
        args:
          podProtections:
            defaultDisabled:
              - PodsWithLocalStorage
            extraEnabled:
              - PodsWithPVC
      - name: RemoveDuplicates
      - name: RemovePodsHavingTooManyRestarts
        args:
          podRestartThreshold: 100
          includingInitContainers: true
      - name: RemovePodsViolatingNodeAffinity
        args:
          nodeAffinityType:
            - requiredDuringSchedulingIgnoredDuringExecution
      - name: RemovePodsViolatingNodeTaints
      - name: RemovePodsViolatingInterPodAntiAffinity
      - name: LowNodeUtilization
        args:
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
          - RemoveDuplicates
          - LowNodeUtilization
      deschedule:
        enabled:
          - RemovePodsHavingTooManyRestarts
          - RemovePodsViolatingNodeTaints
          - RemovePodsViolatingNodeAffinity
          - RemovePodsViolatingInterPodAntiAffinity
"#;

/// Helm's merge of user values over chart values: mappings merge key by key,
/// anything else in `over` replaces `base`, `null` in `over` removes the key.
/// Source: Helm `chartutil.CoalesceTables`.
pub fn coalesce(base: &Value, over: &Value) -> Value {
    match (base, over) {
        (Value::Mapping(b), Value::Mapping(o)) => {
            let mut out: Mapping = b.clone();
            for (k, v) in o {
                if v.is_null() {
                    out.remove(k);
                    continue;
                }
                let merged = match out.get(k) {
                    Some(existing) => coalesce(existing, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Mapping(out)
        }
        (_, o) => o.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn y(s: &str) -> Value {
        serde_yaml::from_str(s).expect("yaml")
    }

    #[test]
    fn maps_merge_lists_replace_null_deletes() {
        let base = y("a: {x: 1, y: [1, 2]}\nb: 2\nc: 3");
        let over = y("a: {y: [9]}\nb: null\nd: 4");
        assert_eq!(coalesce(&base, &over), y("a: {x: 1, y: [9]}\nc: 3\nd: 4"));
    }

    #[test]
    fn chart_default_is_yaml() {
        let v = y(CHART_DEFAULT_POLICY);
        assert!(v.get("profiles").is_some());
    }
}
