//! Nodes as the scheduler and descheduler see them: labels, allocatable,
//! taints, cordon flag and readiness, read tolerantly from a stored Node object.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::error::ModelError;
use crate::model::extract::{describe, get, get_path, Reader};
use crate::model::resources::ResourceList;

pub mod text;

/// The effect of a taint (or the effect a toleration is limited to).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum TaintEffect {
    /// New pods that do not tolerate the taint are not scheduled.
    NoSchedule,
    /// The scheduler tries to avoid the node (scoring only).
    PreferNoSchedule,
    /// New pods are not scheduled and running pods are evicted.
    NoExecute,
    /// An effect this model does not know, kept as written.
    Other(String),
}

impl TaintEffect {
    /// Reads the API spelling; unknown spellings are kept as [`TaintEffect::Other`].
    pub fn parse(s: &str) -> TaintEffect {
        match s {
            "NoSchedule" => TaintEffect::NoSchedule,
            "PreferNoSchedule" => TaintEffect::PreferNoSchedule,
            "NoExecute" => TaintEffect::NoExecute,
            other => TaintEffect::Other(other.to_string()),
        }
    }

    /// The API spelling.
    pub fn as_str(&self) -> &str {
        match self {
            TaintEffect::NoSchedule => "NoSchedule",
            TaintEffect::PreferNoSchedule => "PreferNoSchedule",
            TaintEffect::NoExecute => "NoExecute",
            TaintEffect::Other(s) => s,
        }
    }
}

/// A node taint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Taint {
    /// The taint key, e.g. `node.kubernetes.io/unschedulable`.
    pub key: String,
    /// The value; empty when not set.
    pub value: String,
    /// The effect.
    pub effect: TaintEffect,
}

impl Taint {
    /// A taint from its parts.
    pub fn new(key: &str, value: &str, effect: TaintEffect) -> Taint {
        Taint { key: key.to_string(), value: value.to_string(), effect }
    }
}

impl std::fmt::Display for Taint {
    /// The scheduler's 1.24–1.34 rendering: `{key: value}` (value may be empty).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{{{}: {}}}", self.key, self.value)
    }
}

/// A node as the scheduling model needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeInfo {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
    /// `status.allocatable`, or `status.capacity` when allocatable is empty
    /// (descheduler v0.36 §1: "allocatable, or capacity when allocatable is empty").
    pub allocatable: ResourceList,
    /// `status.capacity`.
    pub capacity: ResourceList,
    /// `spec.unschedulable` (cordoned).
    pub unschedulable: bool,
    /// `spec.taints`, in the order stored.
    pub taints: Vec<Taint>,
    /// The `Ready` condition: `Some(true)` for status `True`, `Some(false)` for
    /// `False` or `Unknown`, `None` when the node reports no Ready condition.
    pub ready: Option<bool>,
}

impl NodeInfo {
    /// A node with the given name and allocatable, nothing else set (handy for
    /// tests and what-if simulations). Capacity equals allocatable; ready; no
    /// labels (add `kubernetes.io/hostname` for hostname topology terms).
    /// Include a `pods` entry in `allocatable`: without one the node allows 0
    /// pods and every pod fails with `Too many pods`, as in Kubernetes.
    pub fn new(name: &str, allocatable: ResourceList) -> NodeInfo {
        NodeInfo {
            name: name.to_string(),
            labels: BTreeMap::new(),
            capacity: allocatable.clone(),
            allocatable,
            unschedulable: false,
            taints: Vec::new(),
            ready: Some(true),
        }
    }

    /// Reads a Node object as stored (API JSON, camelCase). Missing and null
    /// fields read as unset; wrongly typed fields and bad quantities are errors
    /// naming the node and the field.
    pub fn from_json(v: &Value) -> Result<NodeInfo, ModelError> {
        if !v.is_object() {
            return Err(ModelError::NotAnObject { expected: "Node", found: describe(v) });
        }
        let meta = get(v, "metadata");
        let probe = Reader::new("node ?".to_string());
        let name = probe.opt_str(meta.and_then(|m| get(m, "name")), "metadata.name")?.ok_or_else(|| {
            ModelError::MissingField { object: "node ?".to_string(), field: "metadata.name".to_string() }
        })?;
        let r = Reader::new(format!("node {name}"));
        let labels = r.string_map(meta.and_then(|m| get(m, "labels")), "metadata.labels")?;
        let capacity = r.resource_list(get_path(v, &["status", "capacity"]), "status.capacity")?;
        let mut allocatable = r.resource_list(get_path(v, &["status", "allocatable"]), "status.allocatable")?;
        if allocatable.is_empty() {
            allocatable = capacity.clone();
        }
        let unschedulable = r.opt_bool(get_path(v, &["spec", "unschedulable"]), "spec.unschedulable")?.unwrap_or(false);
        let mut taints = Vec::new();
        for (i, t) in r.array(get_path(v, &["spec", "taints"]), "spec.taints")?.iter().enumerate() {
            let path = format!("spec.taints[{i}]");
            let key = r.opt_str(get(t, "key"), &format!("{path}.key"))?.unwrap_or_default();
            let value = r.opt_str(get(t, "value"), &format!("{path}.value"))?.unwrap_or_default();
            let effect = r.opt_str(get(t, "effect"), &format!("{path}.effect"))?.unwrap_or_default();
            taints.push(Taint { key, value, effect: TaintEffect::parse(&effect) });
        }
        let mut ready = None;
        for (i, c) in r.array(get_path(v, &["status", "conditions"]), "status.conditions")?.iter().enumerate() {
            let path = format!("status.conditions[{i}]");
            if r.opt_str(get(c, "type"), &format!("{path}.type"))?.as_deref() == Some("Ready") {
                let status = r.opt_str(get(c, "status"), &format!("{path}.status"))?;
                ready = Some(status.as_deref() == Some("True"));
            }
        }
        Ok(NodeInfo { name, labels, allocatable, capacity, unschedulable, taints, ready })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_a_stored_node() {
        let n = NodeInfo::from_json(&json!({
            "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1", "zone": "a"}},
            "spec": {"unschedulable": true, "taints": [
                {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": "2024-01-01T00:00:00Z"},
                {"key": "gpu", "value": "true", "effect": "PreferNoSchedule"}
            ]},
            "status": {
                "capacity": {"cpu": "2", "memory": "1925036Ki", "pods": "110", "ephemeral-storage": "15564179840"},
                "allocatable": {"cpu": "1930m", "memory": "1822636Ki", "pods": "110", "nvidia.com/gpu": "1"},
                "conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True"}]
            }
        }))
        .expect("valid node");
        assert_eq!(n.name, "node-1");
        assert_eq!(n.labels.get("zone").map(String::as_str), Some("a"));
        assert_eq!(n.allocatable.get("cpu"), 1930);
        assert_eq!(n.allocatable.get("memory"), 1_822_636 * 1024);
        assert_eq!(n.allocatable.get("nvidia.com/gpu"), 1);
        assert_eq!(n.capacity.get("cpu"), 2000);
        assert_eq!(n.capacity.get("ephemeral-storage"), 15_564_179_840);
        assert!(n.unschedulable);
        assert_eq!(n.taints.len(), 2);
        assert_eq!(n.taints[0], Taint::new("node.kubernetes.io/unschedulable", "", TaintEffect::NoSchedule));
        assert_eq!(n.taints[1].effect, TaintEffect::PreferNoSchedule);
        assert_eq!(n.taints[1].to_string(), "{gpu: true}");
        assert_eq!(n.ready, Some(true));
    }

    #[test]
    fn capacity_stands_in_for_empty_allocatable_and_nulls_are_tolerated() {
        let n = NodeInfo::from_json(&json!({
            "metadata": {"name": "n", "labels": null},
            "spec": {"taints": null},
            "status": {"capacity": {"cpu": 4, "pods": "10"}, "allocatable": {}, "conditions": [{"type": "Ready", "status": "Unknown"}]}
        }))
        .expect("valid node");
        assert_eq!(n.allocatable.get("cpu"), 4000);
        assert_eq!(n.allocatable.get("pods"), 10);
        assert_eq!(n.ready, Some(false));
        assert!(!n.unschedulable);
        let bare = NodeInfo::from_json(&json!({"metadata": {"name": "bare"}})).expect("valid node");
        assert_eq!(bare.ready, None);
        assert!(bare.allocatable.is_empty());
    }

    #[test]
    fn errors_name_the_node_and_field() {
        let err = NodeInfo::from_json(&json!({"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "lots"}}}))
            .expect_err("bad cpu");
        assert!(err.to_string().starts_with("node n1: status.allocatable.cpu: \"lots\" is not a quantity"), "{err}");
        let err = NodeInfo::from_json(&json!({"metadata": {}})).expect_err("no name");
        assert_eq!(err.to_string(), "node ?: metadata.name is missing");
        let err = NodeInfo::from_json(&json!([1])).expect_err("not an object");
        assert_eq!(err.to_string(), "expected a Node object, got an array");
        let err = NodeInfo::from_json(&json!({"metadata": {"name": "n1"}, "spec": {"unschedulable": "yes"}}))
            .expect_err("bad bool");
        assert_eq!(err.to_string(), "node n1: spec.unschedulable: expected a boolean, got string \"yes\"");
    }
}
