//! Predicted used % after the moves (kdrift issue 37, beyond descheduler):
//! when the snapshot carries measured usage ([`crate::Snapshot::measured`]),
//! each node's measured cpu and memory before, and after the landings: its
//! reading, minus the readings of the pods that leave it, plus the readings
//! of the replacements predicted to land on it (a replacement is assumed to
//! use what the pod it replaces used). Shown next to the requested %
//! ([`super::NodeChange`]), which is what the scheduler and descheduler see.

use serde::Serialize;

use crate::model::measured::MeasuredUsage;
use crate::model::resources::{CPU, MEMORY};
use crate::planner::Snapshot;

use super::landing::Landing;
use super::usage::percent;

/// One resource's measured use on one node, before and predicted after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsedChange {
    /// `cpu` (millicores) or `memory` (bytes).
    pub resource: String,
    /// The node's allocatable.
    pub allocatable: Option<i64>,
    /// Measured before the evictions; `None`: the node has no reading.
    pub before: Option<i64>,
    /// Predicted after the landings; `None`: the node has no reading.
    pub after: Option<i64>,
    /// `before / allocatable × 100`.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub percent_before: Option<f64>,
    /// `after / allocatable × 100`.
    #[serde(serialize_with = "crate::model::percent::serialize_hundredths_opt")]
    pub percent_after: Option<f64>,
}

/// One node's measured use before and predicted after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeUsedChange {
    /// The node.
    pub node: String,
    /// `cpu`, then `memory`.
    pub resources: Vec<UsedChange>,
}

/// The predicted used side of a simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PredictedUsage {
    /// How the readings were taken, e.g. `latest sample (≤ 5m old)`.
    pub reading: String,
    /// Per node, in snapshot order.
    pub nodes: Vec<NodeUsedChange>,
    /// Moved pods without a reading: their use is unknown and left out
    /// (`namespace/name`).
    pub unmeasured_pods: Vec<String>,
}

impl PredictedUsage {
    /// The node's change.
    pub fn node(&self, name: &str) -> Option<&NodeUsedChange> {
        self.nodes.iter().find(|n| n.node == name)
    }
}

impl NodeUsedChange {
    /// The change of `resource`.
    pub fn resource(&self, resource: &str) -> Option<&UsedChange> {
        self.resources.iter().find(|r| r.resource == resource)
    }
}

/// Moves the readings of the pods in `landings` as the simulation moved the
/// pods (the next night of [`super::simulate_rounds`]): each node's reading
/// loses the usage of the pods that left and gains that of those that
/// landed, and each moved pod's reading names its new node.
pub(crate) fn carry(usage: &mut MeasuredUsage, landings: &[Landing]) {
    for l in landings {
        let key = (l.pod.namespace.clone(), l.pod.name.clone());
        let Some((m, node)) = usage.pods.get_mut(&key) else { continue };
        let m = *m;
        *node = l.node().map(str::to_string);
        let mut shift = |name: &str, sign: i64| {
            if let Some(n) = usage.nodes.get_mut(name) {
                n.cpu_millis = n.cpu_millis.map(|c| c + sign * m.cpu_millis.unwrap_or(0));
                n.memory_bytes = n.memory_bytes.map(|b| b + sign * m.memory_bytes.unwrap_or(0));
            }
        };
        shift(&l.source_node, -1);
        if let Some(to) = l.node() {
            shift(to, 1);
        }
    }
}

/// The prediction for `landings` on `snapshot`, `None` without measured usage.
pub(crate) fn predicted_usage(snapshot: &Snapshot, landings: &[Landing]) -> Option<PredictedUsage> {
    let usage: &MeasuredUsage = snapshot.measured.as_ref()?;
    let mut delta: std::collections::BTreeMap<(&str, &str), i64> = std::collections::BTreeMap::new();
    let mut unmeasured = Vec::new();
    for l in landings {
        let Some(m) = usage.pod(&l.pod.namespace, &l.pod.name) else {
            unmeasured.push(l.pod.key());
            continue;
        };
        for (r, v) in [(CPU, m.cpu_millis), (MEMORY, m.memory_bytes)] {
            let v = v.unwrap_or(0);
            *delta.entry((l.source_node.as_str(), r)).or_insert(0) -= v;
            if let Some(to) = l.node() {
                *delta.entry((to, r)).or_insert(0) += v;
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let nodes = snapshot
        .nodes
        .iter()
        .filter(|n| seen.insert(n.name.as_str()))
        .map(|n| {
            let reading = usage.node(&n.name);
            let resources = [CPU, MEMORY]
                .iter()
                .map(|r| {
                    let before = reading.and_then(|m| if *r == CPU { m.cpu_millis } else { m.memory_bytes });
                    let after = before.map(|b| b + delta.get(&(n.name.as_str(), *r)).copied().unwrap_or(0));
                    let allocatable = n.allocatable.get_opt(r);
                    UsedChange {
                        resource: r.to_string(),
                        allocatable,
                        before,
                        after,
                        percent_before: before.and_then(|b| percent(b, allocatable)),
                        percent_after: after.and_then(|a| percent(a, allocatable)),
                    }
                })
                .collect();
            NodeUsedChange { node: n.name.clone(), resources }
        })
        .collect();
    Some(PredictedUsage {
        reading: usage.reading.map(|r| r.describe()).unwrap_or_default(),
        nodes,
        unmeasured_pods: unmeasured,
    })
}
