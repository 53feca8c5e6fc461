//! The cycle-wide eviction limits, shared by every plugin and profile.
//!
//! Source: descheduler v0.36 `PodEvictor.EvictPod`, checked in the order
//! total → per node → per namespace, each as `count + 1 > max` (so a limit of
//! 0 allows nothing); counters move only on success.
//! `evictionLimits.node` is the plugin's own counter, kept in the loop.

use std::collections::HashMap;

use super::plan::LimitCounts;
use crate::policy::Policy;

/// Which limit refused an eviction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitHit {
    /// `maxNoOfPodsToEvictTotal`.
    Total,
    /// `maxNoOfPodsToEvictPerNode`.
    Node,
    /// `maxNoOfPodsToEvictPerNamespace`.
    Namespace,
}

/// Counters of one descheduling cycle.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    max_total: Option<u32>,
    max_node: Option<u32>,
    max_namespace: Option<u32>,
    total: u32,
    per_node: HashMap<String, u32>,
    per_namespace: HashMap<String, u32>,
}

impl Counters {
    pub(crate) fn new(policy: &Policy) -> Counters {
        Counters {
            max_total: policy.max_no_of_pods_to_evict_total,
            max_node: policy.max_no_of_pods_to_evict_per_node,
            max_namespace: policy.max_no_of_pods_to_evict_per_namespace,
            ..Counters::default()
        }
    }

    /// The first limit an eviction from `node` in `namespace` would exceed.
    pub(crate) fn check(&self, node: &str, namespace: &str) -> Option<LimitHit> {
        let over = |count: u32, max: Option<u32>| max.is_some_and(|m| count.saturating_add(1) > m);
        if over(self.total, self.max_total) {
            return Some(LimitHit::Total);
        }
        if over(self.per_node.get(node).copied().unwrap_or(0), self.max_node) {
            return Some(LimitHit::Node);
        }
        if over(self.per_namespace.get(namespace).copied().unwrap_or(0), self.max_namespace) {
            return Some(LimitHit::Namespace);
        }
        None
    }

    /// Counts a successful eviction.
    pub(crate) fn record(&mut self, node: &str, namespace: &str) {
        self.total += 1;
        *self.per_node.entry(node.to_string()).or_insert(0) += 1;
        *self.per_namespace.entry(namespace.to_string()).or_insert(0) += 1;
    }

    /// The counts for `node` and `namespace` now, with the limits.
    pub(crate) fn counts(&self, node: &str, namespace: &str) -> LimitCounts {
        LimitCounts {
            total: self.total,
            max_total: self.max_total,
            node: self.per_node.get(node).copied().unwrap_or(0),
            max_per_node: self.max_node,
            namespace: self.per_namespace.get(namespace).copied().unwrap_or(0),
            max_per_namespace: self.max_namespace,
        }
    }
}
