//! `LowNodeUtilization` plugin arguments and their validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/nodeutilization/{types,validation}.go`.
//! Where upstream iterates a Go map (random order) to find the first invalid
//! threshold, resources are checked here in name order, so the message is
//! deterministic.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_yaml::{Mapping, Value};

use super::error::PolicyError;
use super::metrics_utilization::MetricsUtilization;
use super::reader::{as_f64, join, mapping, number, string, strings, Obj};

/// Percent per resource name (`cpu: 20`, `memory: 35.5`, `pods: 20`).
pub type ResourceThresholds = BTreeMap<String, f64>;

/// `evictableNamespaces`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Namespaces {
    /// `include` (not supported by LowNodeUtilization; validation rejects it).
    pub include: Vec<String>,
    /// `exclude`: pods in these namespaces are never evicted (they still count toward usage).
    pub exclude: Vec<String>,
}

/// `evictionLimits`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EvictionLimits {
    /// `node`: at most this many evictions per node by this plugin per cycle.
    pub node: Option<u32>,
}

/// `LowNodeUtilization` args. Source: descheduler v0.36 `LowNodeUtilizationArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LowNodeUtilizationArgs {
    /// `thresholds`: a node is underutilized when usage <= these (percent of allocatable).
    pub thresholds: ResourceThresholds,
    /// `targetThresholds`: a node is overutilized when usage > any of these.
    pub target_thresholds: ResourceThresholds,
    /// `useDeviationThresholds`: the two maps are deviations from the mean usage.
    pub use_deviation_thresholds: bool,
    /// `numberOfNodes`: do nothing unless more than this many nodes are underutilized.
    pub number_of_nodes: i64,
    /// `evictableNamespaces`.
    pub evictable_namespaces: Option<Namespaces>,
    /// `evictionLimits`.
    pub eviction_limits: Option<EvictionLimits>,
    /// `metricsUtilization`: classify on measured usage (`crate::planner`'s
    /// metrics mode) instead of requests.
    pub metrics_utilization: Option<MetricsUtilization>,
}

const FIELDS: [&str; 7] = [
    "thresholds",
    "targetThresholds",
    "useDeviationThresholds",
    "numberOfNodes",
    "evictableNamespaces",
    "evictionLimits",
    "metricsUtilization",
];

/// descheduler `validateThresholds`: non-empty, each in [0, 100].
fn validate_thresholds(t: &ResourceThresholds) -> Result<(), String> {
    if t.is_empty() {
        return Err("no resource threshold is configured".to_string());
    }
    for (name, percent) in t {
        if !(0.0..=100.0).contains(percent) {
            return Err(format!("{name} threshold not in [0, 100] range"));
        }
    }
    Ok(())
}

impl LowNodeUtilizationArgs {
    /// The node-limit of `evictionLimits.node`, if set.
    pub fn node_eviction_limit(&self) -> Option<u32> {
        self.eviction_limits.as_ref().and_then(|l| l.node)
    }

    /// The excluded namespaces (`evictableNamespaces.exclude`).
    pub fn excluded_namespaces(&self) -> &[String] {
        self.evictable_namespaces.as_ref().map(|n| n.exclude.as_slice()).unwrap_or(&[])
    }

    /// descheduler v0.36 `ValidateLowNodeUtilizationArgs`: the first error, with
    /// upstream's exact text (e.g. `thresholds config is not valid: cpu
    /// threshold not in [0, 100] range`).
    pub fn validate(&self) -> Result<(), String> {
        if self.evictable_namespaces.as_ref().is_some_and(|n| !n.include.is_empty()) {
            return Err("only Exclude namespaces can be set, inclusion is not supported".to_string());
        }
        validate_thresholds(&self.thresholds).map_err(|e| format!("thresholds config is not valid: {e}"))?;
        validate_thresholds(&self.target_thresholds)
            .map_err(|e| format!("targetThresholds config is not valid: {e}"))?;
        if self.thresholds.len() != self.target_thresholds.len() {
            return Err("thresholds and targetThresholds configured different resources".to_string());
        }
        for (name, value) in &self.thresholds {
            match self.target_thresholds.get(name) {
                None => return Err("thresholds and targetThresholds configured different resources".to_string()),
                Some(target) if value > target && !self.use_deviation_thresholds => {
                    return Err(format!("thresholds' {name} percentage is greater than targetThresholds'"))
                }
                _ => {}
            }
        }
        match &self.metrics_utilization {
            Some(m) => m.validate(&self.thresholds, &self.target_thresholds),
            None => Ok(()),
        }
    }

    /// Reads the args mapping at `o`.
    pub(crate) fn read(o: &Obj<'_>) -> Result<LowNodeUtilizationArgs, PolicyError> {
        o.only(&FIELDS)?;
        let thresholds = |key: &str| -> Result<ResourceThresholds, PolicyError> {
            let mut out = BTreeMap::new();
            if let Some(t) = o.obj(key)? {
                for (k, v) in t.map {
                    let name = super::reader::as_string(k, &t.path)?;
                    let path = join(&t.path, &name);
                    out.insert(name, as_f64(v, &path)?);
                }
            }
            Ok(out)
        };
        let mut a = LowNodeUtilizationArgs {
            thresholds: thresholds("thresholds")?,
            target_thresholds: thresholds("targetThresholds")?,
            use_deviation_thresholds: o.bool("useDeviationThresholds")?.unwrap_or(false),
            number_of_nodes: o.int("numberOfNodes", i64::MIN, i64::MAX)?.unwrap_or(0),
            metrics_utilization: o.obj("metricsUtilization")?.map(|m| MetricsUtilization::read(&m)).transpose()?,
            ..LowNodeUtilizationArgs::default()
        };
        if let Some(n) = o.obj("evictableNamespaces")? {
            n.only(&["include", "exclude"])?;
            a.evictable_namespaces =
                Some(Namespaces { include: n.str_list("include")?, exclude: n.str_list("exclude")? });
        }
        if let Some(l) = o.obj("evictionLimits")? {
            l.only(&["node"])?;
            a.eviction_limits = Some(EvictionLimits { node: l.uint("node")? });
        }
        Ok(a)
    }

    /// The args in policy form.
    pub(crate) fn to_value(&self) -> Value {
        let thresholds = |t: &ResourceThresholds| -> Value {
            let mut m = Mapping::new();
            for (k, v) in t {
                m.insert(string(k), number(*v));
            }
            Value::Mapping(m)
        };
        mapping(vec![
            ("thresholds", Some(thresholds(&self.thresholds))),
            ("targetThresholds", Some(thresholds(&self.target_thresholds))),
            ("useDeviationThresholds", self.use_deviation_thresholds.then_some(Value::Bool(true))),
            ("numberOfNodes", (self.number_of_nodes != 0).then(|| Value::Number(self.number_of_nodes.into()))),
            (
                "evictableNamespaces",
                self.evictable_namespaces.as_ref().map(|n| {
                    mapping(vec![
                        ("include", (!n.include.is_empty()).then(|| strings(&n.include))),
                        ("exclude", (!n.exclude.is_empty()).then(|| strings(&n.exclude))),
                    ])
                }),
            ),
            (
                "evictionLimits",
                self.eviction_limits.as_ref().map(|l| mapping(vec![("node", l.node.map(|n| Value::Number(n.into())))])),
            ),
            ("metricsUtilization", self.metrics_utilization.as_ref().map(MetricsUtilization::to_value)),
        ])
    }
}

/// The resource names Kubernetes defines without a domain (besides the
/// `hugepages-<size>` family): the only threshold keys without `/` or `.`
/// that name something a node has.
const NATIVE_RESOURCES: [&str; 4] = ["cpu", "memory", "pods", "ephemeral-storage"];

/// Threshold keys of LowNodeUtilization (`thresholds`, `targetThresholds`)
/// and HighNodeUtilization (`thresholds`) that name no resource a node can
/// have, one warning each (profile order, then plugin config order, then key
/// order). Resource names are case-sensitive, and descheduler v0.36 takes any
/// other key as an extended resource (`extendedResourceNames`): one without a
/// `/` or `.` (extended resources are domain-qualified, e.g. `nvidia.com/gpu`)
/// is on no node, so it counts 0 everywhere: never over a target, always
/// under a threshold; LowNodeUtilization's budget for it (the room on the
/// underutilized nodes) is 0, and its loop runs only while every budget
/// resource is > 0, so it evicts nothing. The likely intended name is the native one equal to the
/// key ignoring case.
pub fn threshold_name_warnings(policy: &super::Policy) -> Vec<String> {
    let mut out = Vec::new();
    for profile in &policy.profiles {
        for config in &profile.plugin_config {
            let maps: Vec<(&str, &ResourceThresholds)> = match &config.args {
                super::PluginArgs::LowNodeUtilization(a) => {
                    vec![("thresholds", &a.thresholds), ("targetThresholds", &a.target_thresholds)]
                }
                super::PluginArgs::HighNodeUtilization(a) => vec![("thresholds", &a.thresholds)],
                _ => continue,
            };
            for (field, map) in maps {
                for key in map.keys() {
                    let prometheus = match &config.args {
                        super::PluginArgs::LowNodeUtilization(a) => a
                            .metrics_utilization
                            .as_ref()
                            .is_some_and(|m| m.source() == Ok(super::metrics_utilization::MetricsSource::Prometheus)),
                        _ => false,
                    };
                    if prometheus && key == super::metrics_utilization::METRIC_RESOURCE {
                        continue;
                    }
                    let native = NATIVE_RESOURCES.contains(&key.as_str()) || key.starts_with("hugepages-");
                    if native || key.contains('/') || key.contains('.') {
                        continue;
                    }
                    let hint = match NATIVE_RESOURCES.iter().find(|n| n.eq_ignore_ascii_case(key)) {
                        Some(n) => format!("did you mean {n}?"),
                        None => "extended resources are named with their domain, e.g. nvidia.com/gpu".to_string(),
                    };
                    // LowNodeUtilization's budget for it is 0 (no node has
                    // it) and its loop needs every budget resource > 0.
                    let effect = if matches!(config.args, super::PluginArgs::LowNodeUtilization(_)) {
                        "; its budget on the underutilized nodes is then 0, so LowNodeUtilization evicts nothing"
                    } else {
                        ""
                    };
                    out.push(format!(
                        "profile {}: {} {field} key {key:?}: resource names are case-sensitive; descheduler takes it as \
                         an unknown extended resource that counts 0 on every node ({hint}){effect}",
                        profile.name, config.name
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod name_tests {
    use super::*;
    use crate::policy::Policy;

    #[test]
    fn threshold_keys_that_are_no_resource_are_flagged_with_the_likely_name() {
        let yaml = "apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: p
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {CPU: 20, Pods: 20, nvidia.com/gpu: 10, hugepages-2Mi: 5}
          targetThresholds: {CPU: 50, Pods: 50, nvidia.com/gpu: 60, hugepages-2Mi: 50}
      - name: HighNodeUtilization
        args:
          thresholds: {memory: 20, gpu: 10}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
";
        let policy = Policy::from_yaml(yaml).expect("valid policy");
        let lnu = |field: &str, key: &str, name: &str| {
            format!(
                "profile p: LowNodeUtilization {field} key \"{key}\": resource names are case-sensitive; descheduler \
                 takes it as an unknown extended resource that counts 0 on every node (did you mean {name}?); its \
                 budget on the underutilized nodes is then 0, so LowNodeUtilization evicts nothing"
            )
        };
        assert_eq!(
            threshold_name_warnings(&policy),
            [
                lnu("thresholds", "CPU", "cpu"),
                lnu("thresholds", "Pods", "pods"),
                lnu("targetThresholds", "CPU", "cpu"),
                lnu("targetThresholds", "Pods", "pods"),
                "profile p: HighNodeUtilization thresholds key \"gpu\": resource names are case-sensitive; descheduler \
                 takes it as an unknown extended resource that counts 0 on every node (extended resources are named \
                 with their domain, e.g. nvidia.com/gpu)"
                    .to_string(),
            ]
        );
    }
}
