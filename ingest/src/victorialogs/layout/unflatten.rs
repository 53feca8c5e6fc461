//! Undoes VictoriaLogs' dot-flattening of one stored row (victorialogs.md
//! "Ingestion"): `involvedObject.name` becomes `{"involvedObject": {"name": …}}`.
//!
//! Flattening is lossy where a Kubernetes map key contains dots itself
//! (`app.kubernetes.io/name`, `nvidia.com/gpu`): field names never do, so
//! after a segment that is a string-keyed map in the Kubernetes schema
//! ([`MAP_SEGMENTS`]) the rest of the dotted name is one key. Arrays arrive
//! as JSON strings; they are left as strings here and restored by
//! [`super::typed`] (which knows the schema) or [`parse_json_arrays`].

use serde_json::{Map, Value};

/// Segments whose value is a map with free-form keys in the Kubernetes
/// schema (labels, annotations, node selectors, resource lists, ConfigMap
/// data): everything after them is one key.
pub const MAP_SEGMENTS: &[&str] = &[
    "labels",
    "annotations",
    "nodeSelector",
    "matchLabels",
    "capacity",
    "allocatable",
    "requests",
    "limits",
    "data",
    "binaryData",
    "stringData",
    "parameters",
];

/// Inserts `value` at the dotted `key` into `root`. A scalar already sitting
/// where an object is needed is replaced by the object (a later, longer key
/// wins), so a malformed row never panics.
pub fn insert_dotted(root: &mut Map<String, Value>, key: &str, value: Value) {
    let mut cur = root;
    let mut rest = key;
    loop {
        let (part, tail) = match rest.split_once('.') {
            Some((p, t)) if !p.is_empty() => (p, Some(t)),
            _ => (rest, None),
        };
        let Some(tail) = tail else {
            cur.insert(part.to_string(), value);
            return;
        };
        let entry = cur.entry(part.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        let Value::Object(next) = entry else { return };
        if MAP_SEGMENTS.contains(&part) {
            next.insert(tail.to_string(), value);
            return;
        }
        cur = next;
        rest = tail;
    }
}

#[cfg(test)]
/// Rebuilds a nested object from flat `(dotted key, value)` pairs.
pub fn unflatten<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    let mut out = Map::new();
    for (k, v) in pairs {
        insert_dotted(&mut out, k, v);
    }
    Value::Object(out)
}

/// Schema-free array restoration (for kinds kdrift has no schema for, and
/// for fields outside the schema such as the exporter's
/// `involvedObject.ownerReferences`): a string that is a JSON array becomes
/// that array. Values inside [`MAP_SEGMENTS`] maps stay strings (an
/// annotation may hold JSON text on purpose).
pub fn parse_json_arrays(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if MAP_SEGMENTS.contains(&k.as_str()) {
                    continue;
                }
                parse_json_arrays(v);
            }
        }
        Value::String(s) if s.starts_with('[') && s.ends_with(']') => {
            if let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(s) {
                *value = parsed;
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dotted_keys_nest_and_map_keys_keep_their_dots() {
        let v = unflatten([
            ("involvedObject.name", json!("p")),
            ("involvedObject.labels.app.kubernetes.io/name", json!("backup")),
            ("status.allocatable.gpu.intel.com/i915", json!("1")),
            ("status.allocatable.cpu", json!("2")),
            ("reason", json!("Started")),
        ]);
        assert_eq!(
            v,
            json!({
                "involvedObject": {"name": "p", "labels": {"app.kubernetes.io/name": "backup"}},
                "status": {"allocatable": {"gpu.intel.com/i915": "1", "cpu": "2"}},
                "reason": "Started"
            })
        );
    }

    #[test]
    fn conflicting_keys_do_not_panic() {
        let v = unflatten([("a", json!("x")), ("a.b", json!("y")), (".c", json!("z")), ("d.", json!("w"))]);
        assert_eq!(v["a"]["b"], "y");
        assert_eq!(v[".c"], "z");
        assert_eq!(v["d"][""], "w");
    }

    #[test]
    fn json_array_strings_become_arrays_except_in_maps() {
        let mut v = json!({
            "ownerReferences": "[{\"kind\":\"Job\",\"name\":\"j\"}]",
            "annotations": {"k8s.v1.cni.cncf.io/networks-status": "[{\"name\":\"x\"}]"},
            "message": "[not json",
        });
        parse_json_arrays(&mut v);
        assert_eq!(v["ownerReferences"][0]["kind"], "Job");
        assert!(v["annotations"]["k8s.v1.cni.cncf.io/networks-status"].is_string());
        assert_eq!(v["message"], "[not json");
    }
}
