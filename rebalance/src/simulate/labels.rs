//! Landing risk from node labels: a pod that ran on a node with AVX2, a GPU
//! or another architecture may misbehave (or crash on an illegal
//! instruction) on a node without it, even though nothing in its spec told
//! the scheduler so.
//!
//! Compared labels: exact keys ([`DEFAULT_RISK_LABEL_KEYS`] plus the
//! caller's) and whole label namespaces with their sub-namespaces
//! ([`DEFAULT_RISK_LABEL_NAMESPACES`]: node-feature-discovery's
//! `feature.node.kubernetes.io`, which also covers
//! `intel.feature.node.kubernetes.io/…`).

use std::collections::BTreeSet;

use serde::Serialize;

use super::SimulateOptions;
use crate::model::node::NodeInfo;

/// Label keys compared by default: the CPU architecture and the instance type
/// (well-known labels set by the kubelet / cloud provider).
pub const DEFAULT_RISK_LABEL_KEYS: [&str; 2] = ["kubernetes.io/arch", "node.kubernetes.io/instance-type"];

/// Label namespaces compared by default: node-feature-discovery's features
/// (`feature.node.kubernetes.io/cpu-cpuid.AVX2`, `…/cpu-model.id`, …).
pub const DEFAULT_RISK_LABEL_NAMESPACES: [&str; 1] = ["feature.node.kubernetes.io"];

/// One label that differs between the node a pod leaves and the node it lands on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LabelDiff {
    /// The label key.
    pub key: String,
    /// Its value on the source node; `None` when the source node lacks it.
    pub source: Option<String>,
    /// Its value on the predicted node; `None` when that node lacks it.
    pub target: Option<String>,
}

impl LabelDiff {
    /// `key: "true" → absent`.
    pub fn describe(&self) -> String {
        let v = |x: &Option<String>| x.as_ref().map_or_else(|| "absent".to_string(), |s| format!("{s:?}"));
        format!("{}: {} → {}", self.key, v(&self.source), v(&self.target))
    }
}

/// Whether `key` is one the options ask to compare.
fn watched(key: &str, options: &SimulateOptions) -> bool {
    if options.risk_label_keys.iter().any(|k| k == key) {
        return true;
    }
    let Some((ns, _)) = key.split_once('/') else {
        return false;
    };
    options
        .risk_label_namespaces
        .iter()
        .any(|w| ns == w || ns.strip_suffix(w.as_str()).is_some_and(|p| p.ends_with('.')))
}

/// The watched labels whose values differ between `source` and `target`, by key.
pub(crate) fn label_diffs(source: &NodeInfo, target: &NodeInfo, options: &SimulateOptions) -> Vec<LabelDiff> {
    let keys: BTreeSet<&str> =
        source.labels.keys().chain(target.labels.keys()).map(String::as_str).filter(|k| watched(k, options)).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (s, t) = (source.labels.get(k), target.labels.get(k));
            (s != t).then(|| LabelDiff { key: k.to_string(), source: s.cloned(), target: t.cloned() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::resources::ResourceList;

    fn node(labels: &[(&str, &str)]) -> NodeInfo {
        let mut n = NodeInfo::new("n", ResourceList::new());
        n.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        n
    }

    #[test]
    fn watched_keys_and_namespaces() {
        let o = SimulateOptions::default();
        assert!(watched("feature.node.kubernetes.io/cpu-cpuid.AVX2", &o));
        assert!(watched("intel.feature.node.kubernetes.io/gpu", &o));
        assert!(!watched("xfeature.node.kubernetes.io/gpu", &o));
        assert!(watched("kubernetes.io/arch", &o));
        assert!(watched("node.kubernetes.io/instance-type", &o));
        assert!(!watched("kubernetes.io/hostname", &o));
        assert!(!watched("topology.kubernetes.io/zone", &o));
        let custom = SimulateOptions { risk_label_keys: vec!["topology.kubernetes.io/zone".into()], ..o };
        assert!(watched("topology.kubernetes.io/zone", &custom));
        assert!(!watched("kubernetes.io/arch", &custom));
    }

    #[test]
    fn diffs_name_both_values() {
        let a = node(&[
            ("feature.node.kubernetes.io/cpu-cpuid.AVX2", "true"),
            ("kubernetes.io/arch", "amd64"),
            ("kubernetes.io/hostname", "a"),
        ]);
        let b = node(&[("kubernetes.io/arch", "arm64"), ("kubernetes.io/hostname", "b")]);
        let d = label_diffs(&a, &b, &SimulateOptions::default());
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].describe(), "feature.node.kubernetes.io/cpu-cpuid.AVX2: \"true\" → absent");
        assert_eq!(d[1].describe(), "kubernetes.io/arch: \"amd64\" → \"arm64\"");
        assert!(label_diffs(&a, &a, &SimulateOptions::default()).is_empty());
    }
}
