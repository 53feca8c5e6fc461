//! Layout `otel-k8sobjects`: the OpenTelemetry Collector's `k8sobjects`
//! receiver (`unstructured_to_logdata.go`). The log body is a map, which
//! VictoriaLogs flattens into fields:
//! - watch mode: `type` (`ADDED`, `MODIFIED`, `DELETED`) and `object.*`, the
//!   whole object; attributes `event.domain: k8s`, `event.name` (the object's
//!   name), `k8s.resource.name` (`events`, `pods`, `nodes`, …);
//! - pull mode: the object's own fields at the top level, and
//!   `k8s.resource.name`.
//!
//! Both add the resource attribute `k8s.namespace.name`, and `_time` is the
//! receiver's observation time (nothing is removed from the object). Any
//! kind comes through (events, pods, nodes, owners); numbers, booleans and
//! lists are restored through the kind's schema ([`super::typed`]). Lost on
//! the way in: null and empty-string fields, and empty maps.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::typed::restore_types;
use super::unflatten::insert_dotted;
use super::{Converted, Layout, Row, RowError};
use crate::store::Change;

/// Attributes the receiver adds next to the object's fields.
const ATTRIBUTES: &[&str] = &["k8s.resource.name", "k8s.namespace.name", "event.domain", "event.name"];

fn not_this(problem: impl Into<String>) -> RowError {
    RowError::NotThisLayout { layout: Layout::OtelK8sobjects, problem: problem.into() }
}

/// Converts one `otel-k8sobjects` row.
///
/// # Errors
/// [`RowError::NotThisLayout`] when the row holds no object (or an unknown
/// watch type).
pub fn convert(row: Row, time: Option<DateTime<Utc>>) -> Result<Converted, RowError> {
    let watch = row.keys().any(|k| k.starts_with("object."));
    let mut object = Map::new();
    let change = if watch {
        let change = match row.get("type").and_then(Value::as_str) {
            Some("ADDED") => Change::Added,
            Some("MODIFIED") => Change::Modified,
            Some("DELETED") => Change::Deleted,
            other => return Err(not_this(format!("watch type {other:?}; expected ADDED, MODIFIED or DELETED"))),
        };
        for (k, v) in row {
            if let Some(field) = k.strip_prefix("object.") {
                insert_dotted(&mut object, field, v);
            }
        }
        change
    } else {
        if !row.contains_key("k8s.resource.name") {
            return Err(not_this("no object.* fields and no k8s.resource.name"));
        }
        for (k, v) in row {
            if k.starts_with('_') || ATTRIBUTES.contains(&k.as_str()) {
                continue;
            }
            insert_dotted(&mut object, &k, v);
        }
        Change::Listed
    };
    if !object.get("kind").is_some_and(Value::is_string) {
        return Err(not_this("the object has no kind"));
    }
    let mut object = Value::Object(object);
    let typing = restore_types(&mut object);
    Ok(Converted { object, change, observed_at: time, typing })
}

#[cfg(test)]
mod tests {
    use super::super::{convert as convert_layout, Layout, Typing};
    use crate::store::Change;
    use serde_json::json;

    #[test]
    fn a_watched_node_comes_back_typed() {
        let row = json!({
            "_msg": "missing _msg field; see https://docs.victoriametrics.com/victorialogs/keyconcepts/#message-field",
            "_time": "2026-11-28T02:10:00.5Z", "type": "MODIFIED", "event.domain": "k8s", "event.name": "node-1",
            "k8s.resource.name": "nodes",
            "object.apiVersion": "v1", "object.kind": "Node", "object.metadata.name": "node-1",
            "object.metadata.labels.kubernetes.io/hostname": "node-1",
            "object.spec.unschedulable": "true",
            "object.status.allocatable.cpu": "2", "object.status.allocatable.gpu.intel.com/i915": "1",
            "object.status.conditions": "[{\"type\":\"Ready\",\"status\":\"True\"}]"
        });
        let c = convert_layout(Layout::OtelK8sobjects, row.as_object().cloned().expect("map")).expect("node");
        assert_eq!(c.change, Change::Modified);
        assert_eq!(c.typing, Typing::Schema);
        assert_eq!(c.object["spec"]["unschedulable"], true);
        assert_eq!(c.object["status"]["allocatable"]["gpu.intel.com/i915"], "1");
        assert_eq!(c.object["metadata"]["labels"]["kubernetes.io/hostname"], "node-1");
        assert_eq!(c.object["status"]["conditions"][0]["status"], "True");
        assert!(c.object.get("type").is_none() && c.object.get("event").is_none());
    }

    #[test]
    fn pull_mode_rows_drop_the_receiver_attributes() {
        let row = json!({"_time": "2026-11-28T02:10:00Z", "k8s.resource.name": "pods", "k8s.namespace.name": "media",
                         "apiVersion": "v1", "kind": "Pod", "metadata.name": "p", "metadata.namespace": "media",
                         "spec.priority": "0"});
        let c = convert_layout(Layout::OtelK8sobjects, row.as_object().cloned().expect("map")).expect("pod");
        assert_eq!(c.change, Change::Listed);
        assert_eq!(c.object["spec"]["priority"], 0);
        assert!(c.object.get("k8s").is_none());
    }
}
