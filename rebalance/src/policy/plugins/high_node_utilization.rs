//! `HighNodeUtilization` plugin arguments, their defaults and validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/nodeutilization/` (`types.go`,
//! `validation.go`, `defaults.go`); descheduler-plugins.md §3.3. There is no
//! defaulting beyond Go's zero values (`numberOfNodes` 0), and no
//! `evictionLimits` / `metricsUtilization`: usage is always from requests.
//! Where upstream iterates a Go map to find the first invalid threshold,
//! resources are checked in name order, so the message is deterministic.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_yaml::{Mapping, Value};

use crate::policy::error::PolicyError;
use crate::policy::lnu::{Namespaces, ResourceThresholds};
use crate::policy::reader::{as_f64, as_string, join, mapping, number, string, strings, Obj};

/// The only `evictionModes` value v0.36 knows: a pod is removable only when
/// one of its (init) containers requests some threshold resource.
pub const ONLY_THRESHOLDING_RESOURCES: &str = "OnlyThresholdingResources";

/// `HighNodeUtilization` args. Source: descheduler v0.36 `HighNodeUtilizationArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HighNodeUtilizationArgs {
    /// `thresholds`: a node is underutilized (and drained) when its usage is
    /// at or below these percentages of allocatable for every listed resource.
    pub thresholds: ResourceThresholds,
    /// `numberOfNodes`: do nothing unless more than this many nodes are underutilized.
    pub number_of_nodes: i64,
    /// `evictionModes` as written (only `OnlyThresholdingResources` is valid).
    pub eviction_modes: Vec<String>,
    /// `evictableNamespaces` (only `exclude` is valid).
    pub evictable_namespaces: Option<Namespaces>,
}

const FIELDS: [&str; 4] = ["thresholds", "numberOfNodes", "evictionModes", "evictableNamespaces"];

impl HighNodeUtilizationArgs {
    /// Reads the `args` mapping (`None` when the entry has no `args`),
    /// rejecting unknown fields with their path.
    pub(crate) fn read(o: Option<&Obj<'_>>) -> Result<HighNodeUtilizationArgs, PolicyError> {
        let Some(o) = o else {
            return Ok(HighNodeUtilizationArgs::default());
        };
        o.only(&FIELDS)?;
        let mut thresholds = BTreeMap::new();
        if let Some(t) = o.obj("thresholds")? {
            for (k, v) in t.map {
                let name = as_string(k, &t.path)?;
                let path = join(&t.path, &name);
                thresholds.insert(name, as_f64(v, &path)?);
            }
        }
        let evictable_namespaces = match o.obj("evictableNamespaces")? {
            Some(n) => {
                n.only(&["include", "exclude"])?;
                Some(Namespaces { include: n.str_list("include")?, exclude: n.str_list("exclude")? })
            }
            None => None,
        };
        Ok(HighNodeUtilizationArgs {
            thresholds,
            number_of_nodes: o.int("numberOfNodes", i64::MIN, i64::MAX)?.unwrap_or(0),
            eviction_modes: o.str_list("evictionModes")?,
            evictable_namespaces,
        })
    }

    /// descheduler v0.36 `ValidateHighNodeUtilizationArgs`: the first error
    /// only, with upstream's text (e.g. `cpu threshold not in [0, 100] range`).
    pub fn validate(&self) -> Result<(), String> {
        if self.evictable_namespaces.as_ref().is_some_and(|n| !n.include.is_empty()) {
            return Err("only Exclude namespaces can be set, inclusion is not supported".to_string());
        }
        if self.thresholds.is_empty() {
            return Err("no resource threshold is configured".to_string());
        }
        for (name, percent) in &self.thresholds {
            if !(0.0..=100.0).contains(percent) {
                return Err(format!("{name} threshold not in [0, 100] range"));
            }
        }
        for mode in &self.eviction_modes {
            if mode != ONLY_THRESHOLDING_RESOURCES {
                return Err(format!("invalid eviction mode {mode}"));
            }
        }
        Ok(())
    }

    /// `evictionModes` contains `OnlyThresholdingResources`.
    pub fn only_thresholding_resources(&self) -> bool {
        self.eviction_modes.iter().any(|m| m == ONLY_THRESHOLDING_RESOURCES)
    }

    /// The excluded namespaces (`evictableNamespaces.exclude`).
    pub fn excluded_namespaces(&self) -> &[String] {
        self.evictable_namespaces.as_ref().map(|n| n.exclude.as_slice()).unwrap_or(&[])
    }

    /// The args as YAML (`None` writes no `args`).
    pub(crate) fn to_value(&self) -> Option<Value> {
        if *self == HighNodeUtilizationArgs::default() {
            return None;
        }
        let mut t = Mapping::new();
        for (k, v) in &self.thresholds {
            t.insert(string(k), number(*v));
        }
        Some(mapping(vec![
            ("thresholds", (!self.thresholds.is_empty()).then_some(Value::Mapping(t))),
            ("numberOfNodes", (self.number_of_nodes != 0).then(|| Value::Number(self.number_of_nodes.into()))),
            ("evictionModes", (!self.eviction_modes.is_empty()).then(|| strings(&self.eviction_modes))),
            (
                "evictableNamespaces",
                self.evictable_namespaces.as_ref().map(|n| {
                    mapping(vec![
                        ("include", (!n.include.is_empty()).then(|| strings(&n.include))),
                        ("exclude", (!n.exclude.is_empty()).then(|| strings(&n.exclude))),
                    ])
                }),
            ),
        ]))
    }
}

#[cfg(test)]
#[path = "high_node_utilization_tests.rs"]
pub(crate) mod tests;
