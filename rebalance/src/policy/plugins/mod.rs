//! The arguments of descheduler v0.36's plugins other than `DefaultEvictor`
//! and `LowNodeUtilization` (those two have their own modules), one file
//! per plugin, plus what they share: the plugin names, the extension points
//! each plugin implements, and the common `namespaces` / `labelSelector`
//! args with their validation.
//!
//! Source: descheduler v0.36 `pkg/framework/plugins/*/{types,validation,defaults}.go`;
//! descheduler-plugins.md §0 (common validation) and §2–§3.

pub mod duplicates;
pub mod failed_pods;
pub mod high_node_utilization;
pub mod inter_pod_anti_affinity;
pub mod node_affinity;
pub mod node_taints;
pub mod pod_lifetime;
#[cfg(test)]
pub(crate) mod test_support;
pub mod too_many_restarts;
pub mod topology_spread;

use serde::{Deserialize, Serialize};
use serde_yaml::Value;

use super::error::PolicyError;
use super::lnu::Namespaces;
use super::reader::{mapping, strings, Obj};
use super::selector::{label_selector_value, read_label_selector};
use crate::model::pod::LabelSelector;

/// `RemovePodsViolatingNodeAffinity`.
pub const REMOVE_PODS_VIOLATING_NODE_AFFINITY: &str = "RemovePodsViolatingNodeAffinity";
/// `RemovePodsViolatingNodeTaints`.
pub const REMOVE_PODS_VIOLATING_NODE_TAINTS: &str = "RemovePodsViolatingNodeTaints";
/// `RemovePodsViolatingInterPodAntiAffinity`.
pub const REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY: &str = "RemovePodsViolatingInterPodAntiAffinity";
/// `PodLifeTime`.
pub const POD_LIFE_TIME: &str = "PodLifeTime";
/// `RemoveFailedPods`.
pub const REMOVE_FAILED_PODS: &str = "RemoveFailedPods";
/// `RemovePodsHavingTooManyRestarts`.
pub const REMOVE_PODS_HAVING_TOO_MANY_RESTARTS: &str = "RemovePodsHavingTooManyRestarts";
/// `RemoveDuplicates`.
pub const REMOVE_DUPLICATES: &str = "RemoveDuplicates";
/// `RemovePodsViolatingTopologySpreadConstraint`.
pub const REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT: &str = "RemovePodsViolatingTopologySpreadConstraint";
/// `HighNodeUtilization`.
pub const HIGH_NODE_UTILIZATION: &str = "HighNodeUtilization";

/// The extension point a plugin runs at. descheduler v0.36 runs every
/// profile's Deschedule plugins, then every profile's Balance plugins
/// (`runProfiles`, descheduler-plugins.md §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ExtensionPoint {
    /// `plugins.deschedule`: pods that break a rule.
    Deschedule,
    /// `plugins.balance`: spreading and packing.
    Balance,
}

impl ExtensionPoint {
    /// `deschedule` / `balance`, as in the policy's `plugins:` keys.
    pub fn key(self) -> &'static str {
        match self {
            ExtensionPoint::Deschedule => "deschedule",
            ExtensionPoint::Balance => "balance",
        }
    }
}

/// The extension point a registered v0.36 plugin implements (`None` for
/// `DefaultEvictor`, a filter, and for names v0.36 does not register).
/// Source: each plugin's `var _ frameworktypes.DeschedulePlugin` /
/// `BalancePlugin` assertion.
pub fn extension_point_of(plugin: &str) -> Option<ExtensionPoint> {
    match plugin {
        REMOVE_PODS_VIOLATING_NODE_AFFINITY
        | REMOVE_PODS_VIOLATING_NODE_TAINTS
        | REMOVE_PODS_VIOLATING_INTER_POD_ANTI_AFFINITY
        | POD_LIFE_TIME
        | REMOVE_FAILED_PODS
        | REMOVE_PODS_HAVING_TOO_MANY_RESTARTS => Some(ExtensionPoint::Deschedule),
        REMOVE_DUPLICATES
        | REMOVE_PODS_VIOLATING_TOPOLOGY_SPREAD_CONSTRAINT
        | HIGH_NODE_UTILIZATION
        | super::LOW_NODE_UTILIZATION => Some(ExtensionPoint::Balance),
        _ => None,
    }
}

/// The `namespaces` and `labelSelector` args most plugins share.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PodScope {
    /// `namespaces`: `include` or `exclude` (not both).
    pub namespaces: Option<Namespaces>,
    /// `labelSelector`: only matching pods are candidates.
    pub label_selector: Option<LabelSelector>,
}

impl PodScope {
    /// Reads `namespaces` and `labelSelector` from `o` (the caller checks
    /// the allowed keys).
    pub(crate) fn read(o: &Obj<'_>) -> Result<PodScope, PolicyError> {
        let namespaces = match o.obj("namespaces")? {
            Some(n) => {
                n.only(&["include", "exclude"])?;
                Some(Namespaces { include: n.str_list("include")?, exclude: n.str_list("exclude")? })
            }
            None => None,
        };
        let label_selector = match o.obj("labelSelector")? {
            Some(s) => Some(read_label_selector(&s)?),
            None => None,
        };
        Ok(PodScope { namespaces, label_selector })
    }

    /// descheduler v0.36 `validateNamespaces` (the label selector is checked
    /// when read): `only one of Include/Exclude namespaces can be set`.
    pub fn validate(&self) -> Vec<String> {
        match &self.namespaces {
            Some(n) if !n.include.is_empty() && !n.exclude.is_empty() => {
                vec!["only one of Include/Exclude namespaces can be set".to_string()]
            }
            _ => Vec::new(),
        }
    }

    /// `podutil.Options.BuildFilterFunc`'s first steps: the namespace is
    /// included (or not excluded) and the labels match `labelSelector`.
    pub fn selects(&self, namespace: &str, labels: &(impl crate::LabelLookup + ?Sized)) -> bool {
        if let Some(n) = &self.namespaces {
            if !n.include.is_empty() && !n.include.iter().any(|x| x == namespace) {
                return false;
            }
            if n.exclude.iter().any(|x| x == namespace) {
                return false;
            }
        }
        self.label_selector.as_ref().is_none_or(|s| s.matches(labels))
    }

    /// `namespaces` and `labelSelector` as YAML pairs for [`mapping`].
    pub(crate) fn pairs(&self) -> Vec<(&'static str, Option<Value>)> {
        let ns = self.namespaces.as_ref().map(|n| {
            mapping(vec![
                ("include", (!n.include.is_empty()).then(|| strings(&n.include))),
                ("exclude", (!n.exclude.is_empty()).then(|| strings(&n.exclude))),
            ])
        });
        vec![("namespaces", ns), ("labelSelector", self.label_selector.as_ref().map(label_selector_value))]
    }
}
