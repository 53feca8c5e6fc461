//! Rows exported from VictoriaLogs (or any log store with the same
//! flattening) as NDJSON files: one flat record per line, nested fields
//! flattened with dots, every value a string, nulls and empty strings
//! dropped, the field used for `_time` removed (victorialogs.md
//! "Ingestion"). A file has no `/select/logsql/field_names`, so each row's
//! layout is recognised from its own fields ([`detect_row`]), then converted
//! exactly as `kdrift ingest victorialogs` converts it
//! ([`crate::victorialogs::layout`]): the same row gives the same stored
//! object, and the same dedupe key, from a file or from a pull.

use serde_json::Value;

use crate::victorialogs::layout::{self, detect_row, Converted, Layout, Row, RowError};

/// True when a record looks like a flattened log-store export rather than an
/// API object: it has `_msg`/`_time`/`_stream`, or a dotted top-level key.
pub fn is_flat(doc: &Value) -> bool {
    let Some(map) = doc.as_object() else { return false };
    if map.contains_key("metadata") && !map.keys().any(|k| k.contains('.')) {
        return false;
    }
    map.keys().any(|k| k == "_msg" || k == "_time" || k == "_stream" || k.contains('.'))
}

/// Converts one exported row, its layout recognised from its fields.
///
/// # Errors
/// [`RowError`] when no layout matches or the row is not valid for its layout.
pub fn convert(row: Row) -> Result<Converted, RowError> {
    let layout = detect_row(&row).ok_or_else(|| RowError::NotThisLayout {
        layout: Layout::Raw,
        problem: "no field of a known layout (involvedObject.*, k8s.event.*, object.*, logType/event.*, \
                  or event JSON in _msg)"
            .into(),
    })?;
    layout::convert(layout, row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Change;
    use serde_json::json;

    fn row(v: Value) -> Row {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn rebuilds_core_v1_event_from_flat_string_fields() {
        let rec = json!({
            "_msg": "0/5 nodes are available: 1 Insufficient cpu.",
            "_time": "2026-11-27T04:00:01.5Z",
            "_stream": "{involvedObject.namespace=\"media\"}",
            "involvedObject.kind": "Pod",
            "involvedObject.name": "backup-1",
            "involvedObject.namespace": "media",
            "involvedObject.labels.app.kubernetes.io/name": "backup",
            "metadata.name": "backup-1.187",
            "metadata.namespace": "media",
            "reason": "FailedScheduling",
            "count": "7",
            "firstTimestamp": "2026-11-27T04:00:00Z"
        });
        assert!(is_flat(&rec));
        let c = convert(row(rec)).expect("event");
        let ev = c.object;
        assert_eq!(c.observed_at.map(|t| t.to_rfc3339()), Some("2026-11-27T04:00:01.500+00:00".into()));
        assert_eq!(ev["count"], 7);
        assert_eq!(ev["involvedObject"]["name"], "backup-1");
        assert_eq!(ev["involvedObject"]["labels"]["app.kubernetes.io/name"], "backup");
        assert_eq!(ev["message"], "0/5 nodes are available: 1 Insufficient cpu.");
        assert_eq!(ev["lastTimestamp"], "2026-11-27T04:00:01Z", "metav1.Time text: whole seconds");
        assert_eq!(ev["kind"], "Event");
    }

    #[test]
    fn takes_event_json_embedded_in_msg() {
        let inner =
            json!({"metadata": {"name": "x.1"}, "involvedObject": {"kind": "Pod", "name": "x"}, "reason": "Scheduled"});
        let c = convert(row(json!({"_msg": inner.to_string(), "_time": "2026-01-01T00:00:00Z"}))).expect("event");
        assert_eq!(c.object["involvedObject"], inner["involvedObject"]);
        assert_eq!((c.object["kind"].as_str(), c.object["apiVersion"].as_str()), (Some("Event"), Some("v1")));
    }

    #[test]
    fn opentelemetry_and_kent_rows_are_read_too() {
        let otel = json!({"_msg": "Pulled", "_time": "2026-01-01T00:00:00Z", "k8s.event.name": "p.1",
                          "k8s.object.kind": "Pod", "k8s.object.name": "p", "k8s.namespace.name": "d"});
        assert_eq!(convert(row(otel)).expect("otel").object["metadata"]["name"], "p.1");
        let watch = json!({"_time": "2026-01-01T00:00:00Z", "type": "DELETED", "k8s.resource.name": "pods",
                           "object.kind": "Pod", "object.apiVersion": "v1", "object.metadata.name": "p"});
        assert_eq!(convert(row(watch)).expect("k8sobjects").change, Change::Deleted);
        let kent = json!({"_msg": "m", "_time": "2026-01-01T00:00:00Z", "logType": "event", "k8s.name": "p",
                          "k8s.kind": "Pod", "event.reason": "BackOff"});
        assert_eq!(convert(row(kent)).expect("kent").object["reason"], "BackOff");
        let app = json!({"_msg": "GET /healthz", "_time": "2026-01-01T00:00:00Z", "level": "info"});
        assert!(convert(row(app)).is_err_and(|e| e.to_string().contains("no field of a known layout")));
    }

    #[test]
    fn api_objects_are_not_flat() {
        assert!(!is_flat(&json!({"metadata": {"name": "a"}, "kind": "Pod"})));
    }
}
