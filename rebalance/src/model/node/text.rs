//! Reading a node straight from its JSON text ([`NodeInfo::from_json_text`]):
//! what loading the cluster at an instant does for every stored node model
//! (5,000 at the scale of kdrift issue 6, ~10 µs each through a
//! `serde_json::Value`).
//!
//! The same rule as [`crate::model::pod::text`]: the fields [`NodeInfo::from_json`]
//! reads are deserialized into typed structs, and this gives exactly what
//! [`NodeInfo::from_json`] gives on the same text. Anything this path does
//! not accept as it is (a field of another JSON type, a bad quantity, a
//! missing name, a duplicated key, a taint or condition that is not an
//! object) is read again by [`NodeInfo::from_json`], so errors and
//! tolerated oddities come out exactly as there. Tested equal on every node
//! of the real dumps, the demo and the generated scenarios
//! (`kdrift_tests::assert_model_fields_agree`), and on random nodes (`tests`
//! below).

use serde::Deserialize;
use serde_json::Value;

use crate::model::node::{NodeInfo, Taint, TaintEffect};
use crate::model::pod::text::{resource_list, ModelTextError, Obj, Quantities, StrMap};

impl NodeInfo {
    /// Reads a Node object from its JSON text (a stored `node_versions.model`,
    /// or a whole object): the same node, or the same error, as
    /// [`NodeInfo::from_json`] on the parsed text, at a fraction of the cost.
    ///
    /// # Errors
    /// The JSON parser's message when the text is not JSON; otherwise
    /// [`NodeInfo::from_json`]'s error (naming the node and the field).
    pub fn from_json_text(text: &str) -> Result<NodeInfo, ModelTextError> {
        if let Some(node) = read_typed(text) {
            return Ok(node);
        }
        let v: Value = serde_json::from_str(text).map_err(ModelTextError::Json)?;
        NodeInfo::from_json(&v).map_err(ModelTextError::Model)
    }
}

/// Whether [`NodeInfo::from_json_text`] reads `text` without falling back
/// to [`NodeInfo::from_json`] (for the tests that check the fast path is the
/// one taken on real and generated nodes).
#[doc(hidden)]
pub fn node_json_reads_typed(text: &str) -> bool {
    read_typed(text).is_some()
}

/// The node, when the typed path reads it as [`NodeInfo::from_json`]
/// would; `None` sends the text to [`NodeInfo::from_json`].
fn read_typed(text: &str) -> Option<NodeInfo> {
    let Obj(doc) = serde_json::from_str::<Obj<Doc>>(text).ok()?;
    let meta = doc.metadata.map(Obj::into_inner).unwrap_or_default();
    let spec = doc.spec.map(Obj::into_inner).unwrap_or_default();
    let status = doc.status.map(Obj::into_inner).unwrap_or_default();
    let capacity = resource_list(status.capacity);
    let mut allocatable = resource_list(status.allocatable);
    if allocatable.is_empty() {
        allocatable = capacity.clone();
    }
    let taints = spec
        .taints
        .unwrap_or_default()
        .into_iter()
        .map(|Obj(t)| Taint {
            key: t.key.unwrap_or_default(),
            value: t.value.unwrap_or_default(),
            effect: TaintEffect::parse(t.effect.as_deref().unwrap_or_default()),
        })
        .collect();
    // The last Ready condition decides, as in `NodeInfo::from_json`.
    let mut ready = None;
    for Obj(c) in status.conditions.unwrap_or_default() {
        if c.type_.as_deref() == Some("Ready") {
            ready = Some(c.status.as_deref() == Some("True"));
        }
    }
    Some(NodeInfo {
        name: meta.name?,
        labels: meta.labels.map(StrMap::into_inner).unwrap_or_default(),
        allocatable,
        capacity,
        unschedulable: spec.unschedulable.unwrap_or(false),
        taints,
        ready,
    })
}

#[derive(Deserialize)]
struct Doc {
    metadata: Option<Obj<Meta>>,
    spec: Option<Obj<Spec>>,
    status: Option<Obj<Status>>,
}

#[derive(Deserialize, Default)]
struct Meta {
    name: Option<String>,
    labels: Option<StrMap>,
}

#[derive(Deserialize, Default)]
struct Spec {
    unschedulable: Option<bool>,
    taints: Option<Vec<Obj<TaintText>>>,
}

#[derive(Deserialize)]
struct TaintText {
    key: Option<String>,
    value: Option<String>,
    effect: Option<String>,
}

#[derive(Deserialize, Default)]
struct Status {
    capacity: Option<Quantities>,
    allocatable: Option<Quantities>,
    conditions: Option<Vec<Obj<Condition>>>,
}

/// A node condition; its `status` is read only for `Ready` by
/// [`NodeInfo::from_json`], so another type with a status that is not a
/// string sends the node to the fallback, which reads it as this would.
#[derive(Deserialize)]
struct Condition {
    #[serde(rename = "type")]
    type_: Option<String>,
    status: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// [`NodeInfo::from_json_text`] and [`NodeInfo::from_json`] agree on the
    /// node or on the error text.
    fn agree(v: &Value) -> Result<NodeInfo, String> {
        let text = v.to_string();
        let fast = NodeInfo::from_json_text(&text).map_err(|e| e.to_string());
        let slow = NodeInfo::from_json(v).map_err(|e| e.to_string());
        assert_eq!(fast, slow, "{text}");
        fast
    }

    fn typical() -> Value {
        json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1", "zone": "a", "empty": null}},
            "spec": {"unschedulable": true, "taints": [
                {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": "2024-01-01T00:00:00Z"},
                {"key": "gpu", "value": "true", "effect": "PreferNoSchedule"},
                {"key": "odd", "effect": "Sometimes"}
            ]},
            "status": {
                "capacity": {"cpu": "2", "memory": "1925036Ki", "pods": "110", "ephemeral-storage": "15564179840"},
                "allocatable": {"cpu": "1930m", "memory": "1822636Ki", "pods": 110, "nvidia.com/gpu": "1", "x": null},
                "conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True",
                    "lastTransitionTime": "2024-01-01T00:00:00Z"}],
                "nodeInfo": {"bootID": "b-1"}
            }
        })
    }

    #[test]
    fn a_typical_node_is_read_typed_and_as_from_json_reads_it() {
        let v = typical();
        assert!(node_json_reads_typed(&v.to_string()), "the fast path");
        let n = agree(&v).expect("valid node");
        assert_eq!(n.name, "node-1");
        assert_eq!(n.allocatable.get("cpu"), 1930);
        assert_eq!(n.allocatable.get("pods"), 110);
        assert_eq!(n.capacity.get("cpu"), 2000);
        assert_eq!(n.labels.get("empty").map(String::as_str), Some(""));
        assert_eq!(n.taints[2].effect, TaintEffect::Other("Sometimes".to_string()));
        assert_eq!(n.ready, Some(true));
        assert!(n.unschedulable);
    }

    #[test]
    fn empty_allocatable_nulls_and_the_last_ready_condition_read_as_from_json() {
        for v in [
            json!({"metadata": {"name": "n", "labels": null}, "spec": {"taints": null},
                "status": {"capacity": {"cpu": 4, "pods": "10"}, "allocatable": {},
                    "conditions": [{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "Unknown"}]}}),
            json!({"metadata": {"name": "bare"}}),
            json!({"metadata": {"name": "n"}, "spec": null, "status": null}),
            json!({"metadata": {"name": "n"}, "status": {"conditions": [{"type": "Ready"}]}}),
        ] {
            assert!(node_json_reads_typed(&v.to_string()), "{v}");
            agree(&v).expect("valid node");
        }
    }

    #[test]
    fn what_the_typed_path_refuses_reads_as_from_json_reads_it() {
        let cases = [
            // Errors, named by `NodeInfo::from_json`.
            json!({"metadata": {}}),
            json!({"metadata": {"name": 7}}),
            json!({"metadata": {"name": "n", "labels": {"a": 1}}}),
            json!({"metadata": {"name": "n"}, "status": {"capacity": {"cpu": "lots"}}}),
            json!({"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": true}}}),
            json!({"metadata": {"name": "n"}, "spec": {"unschedulable": "yes"}}),
            json!({"metadata": {"name": "n"}, "spec": {"taints": [{"key": 1}]}}),
            json!({"metadata": {"name": "n"}, "status": {"conditions": [{"type": "Ready", "status": 1}]}}),
            json!({"metadata": {"name": "n"}, "status": {"conditions": {"type": "Ready"}}}),
            json!(["not", "a", "node"]),
            // Tolerated by `NodeInfo::from_json`: a taint or condition that
            // is not an object, another condition's odd status, a spec that
            // is a string.
            json!({"metadata": {"name": "n"}, "spec": {"taints": ["x"]}}),
            json!({"metadata": {"name": "n"}, "status": {"conditions": [7, {"type": "Ready", "status": "True"}]}}),
            json!({"metadata": {"name": "n"}, "status": {"conditions": [{"type": "DiskPressure", "status": 0}]}}),
            json!({"metadata": {"name": "n"}, "spec": "odd"}),
        ];
        for v in &cases {
            let _ = agree(v);
        }
        // A duplicated key: the last value, as `serde_json::Value` keeps it.
        let text = r#"{"metadata": {"name": "a", "name": "b"}, "status": {"capacity": {"cpu": "1", "cpu": "2"}}}"#;
        let slow = NodeInfo::from_json(&serde_json::from_str(text).expect("json")).expect("node");
        assert_eq!(NodeInfo::from_json_text(text).expect("node"), slow);
        assert_eq!((slow.name.as_str(), slow.capacity.get("cpu")), ("b", 2000));
        let err = NodeInfo::from_json_text("{not json").expect_err("not JSON");
        assert!(matches!(err, ModelTextError::Json(_)), "{err}");
    }

    fn arb_str() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            "[a-z]{0,3}".prop_map(Value::from),
            Just(json!("Ready")),
            Just(json!("True")),
            Just(json!("NoExecute")),
            any::<i32>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
        ]
    }

    fn arb_quantities() -> impl Strategy<Value = Value> {
        let q = prop_oneof![
            Just(json!("1")),
            Just(json!("250m")),
            Just(json!("1Gi")),
            Just(json!("bad")),
            Just(json!(3)),
            Just(Value::Null),
            Just(json!([]))
        ];
        prop::collection::btree_map(prop_oneof![Just("cpu"), Just("memory"), Just("pods")], q, 0..3)
            .prop_map(|m| json!(m))
    }

    proptest! {
        #[test]
        fn random_nodes_read_as_from_json_reads_them(
            name in arb_str(), label in arb_str(), unschedulable in arb_str(),
            key in arb_str(), effect in arb_str(), ctype in arb_str(), cstatus in arb_str(),
            capacity in arb_quantities(), allocatable in arb_quantities(),
        ) {
            let v = json!({
                "metadata": {"name": name, "labels": {"l": label}},
                "spec": {"unschedulable": unschedulable, "taints": [{"key": key, "effect": effect}]},
                "status": {"capacity": capacity, "allocatable": allocatable,
                    "conditions": [{"type": ctype, "status": cstatus}]}
            });
            let text = v.to_string();
            let fast = NodeInfo::from_json_text(&text).map_err(|e| e.to_string());
            let slow = NodeInfo::from_json(&v).map_err(|e| e.to_string());
            prop_assert_eq!(fast, slow, "{}", text);
        }
    }
}
