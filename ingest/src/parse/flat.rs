//! Events exported from VictoriaLogs (or any log store fed by
//! kubernetes-event-exporter / Fluent Bit): one flat record per line, nested
//! fields flattened with dots, every value a string, nulls and empty strings
//! dropped, and the field used for `_time` removed (victorialogs.md
//! "Ingestion" and layout 1). This module rebuilds a core/v1 Event from such a
//! record, or takes the event JSON embedded in `_msg` (layout 5).

use serde_json::{Map, Value};

/// The text VictoriaLogs stores when a record had no message field.
const MISSING_MSG: &str = "missing _msg field";

/// True when a record looks like a flattened log-store export rather than an
/// API object: it has `_msg`/`_time`/`_stream`, or a dotted top-level key.
pub fn is_flat(doc: &Value) -> bool {
    let Some(map) = doc.as_object() else { return false };
    if map.contains_key("metadata") && !map.keys().any(|k| k.contains('.')) {
        return false;
    }
    map.keys().any(|k| k == "_msg" || k == "_time" || k == "_stream" || k.contains('.'))
}

/// Names a log-store layout kdrift cannot read yet (OpenTelemetry
/// k8sevents/k8sobjects, KENT), so the error says what the record is instead
/// of "no name".
pub fn unsupported_layout(doc: &Value) -> Option<&'static str> {
    let map = doc.as_object()?;
    let has = |prefix: &str| map.keys().any(|k| k.starts_with(prefix));
    if has("involvedObject.") || has("regarding.") || has("metadata.") {
        return None;
    }
    if has("k8s.event.") || has("k8s.object.") {
        Some("OpenTelemetry k8sevents")
    } else if has("object.") {
        Some("OpenTelemetry k8sobjects")
    } else if has("event.reason") || map.contains_key("logType") {
        Some("KENT")
    } else {
        None
    }
}

/// Fields whose string values are numbers in the Event schema.
const NUMERIC: &[&str] = &["count", "series.count", "deprecatedCount", "deprecatedSeries.count"];

/// Segments after which the remainder of a dotted key is a single map key
/// (label and annotation keys contain dots themselves).
const MAP_SEGMENTS: &[&str] = &["labels", "annotations"];

fn insert_path(root: &mut Map<String, Value>, key: &str, value: Value) {
    let parts: Vec<&str> = key.split('.').collect();
    let mut cur = root;
    let mut i = 0;
    while i < parts.len() {
        let part = parts[i];
        let last = i == parts.len() - 1;
        if last {
            cur.insert(part.to_string(), value);
            return;
        }
        if MAP_SEGMENTS.contains(&part) {
            let rest = parts[i + 1..].join(".");
            let entry = cur.entry(part.to_string()).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = entry {
                m.insert(rest, value);
            }
            return;
        }
        let entry = cur.entry(part.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        let Value::Object(next) = entry else { return };
        cur = next;
        i += 1;
    }
}

fn typed(key: &str, value: Value) -> Value {
    let Value::String(s) = &value else { return value };
    if NUMERIC.contains(&key) {
        if let Ok(n) = s.parse::<i64>() {
            return Value::from(n);
        }
    }
    if key.ends_with("ownerReferences") && s.starts_with('[') {
        if let Ok(v) = serde_json::from_str::<Value>(s) {
            return v;
        }
    }
    value
}

/// Rebuilds the event from a flat record. Returns the object and the record's
/// `_time` (the shipper's timestamp) when present.
pub fn unflatten_event(doc: Value) -> (Value, Option<String>) {
    let Value::Object(map) = doc else { return (doc, None) };
    let msg = map.get("_msg").and_then(Value::as_str).map(str::to_string);
    let time = map.get("_time").and_then(Value::as_str).map(str::to_string);
    // Layout 5: the event JSON is the message itself.
    if let Some(m) = msg.as_deref() {
        if m.trim_start().starts_with('{') {
            if let Ok(inner @ Value::Object(_)) = serde_json::from_str::<Value>(m) {
                if inner.get("involvedObject").is_some() || inner.get("regarding").is_some() {
                    return (inner, time);
                }
            }
        }
    }
    let mut out = Map::new();
    for (k, v) in map {
        if k.starts_with('_') {
            continue;
        }
        let v = typed(&k, v);
        insert_path(&mut out, &k, v);
    }
    let has_message = out.contains_key("message") || out.contains_key("note");
    if !has_message {
        if let Some(m) = msg.filter(|m| !m.starts_with(MISSING_MSG)) {
            out.insert("message".into(), Value::String(m));
        }
    }
    // The shipper removed the field it used as `_time`; put the time back.
    if let Some(t) = &time {
        let has = |k: &str| out.contains_key(k);
        if !has("lastTimestamp") && !has("eventTime") {
            let key = if has("firstTimestamp") { "lastTimestamp" } else { "eventTime" };
            out.insert(key.into(), Value::String(t.clone()));
        }
    }
    if !out.contains_key("kind") {
        out.insert("kind".into(), Value::String("Event".into()));
    }
    if !out.contains_key("apiVersion") {
        let v = if out.contains_key("regarding") { "events.k8s.io/v1" } else { "v1" };
        out.insert("apiVersion".into(), Value::String(v.into()));
    }
    (Value::Object(out), time)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let (ev, time) = unflatten_event(rec);
        assert_eq!(time.as_deref(), Some("2026-11-27T04:00:01.5Z"));
        assert_eq!(ev["count"], 7);
        assert_eq!(ev["involvedObject"]["name"], "backup-1");
        assert_eq!(ev["involvedObject"]["labels"]["app.kubernetes.io/name"], "backup");
        assert_eq!(ev["message"], "0/5 nodes are available: 1 Insufficient cpu.");
        assert_eq!(ev["lastTimestamp"], "2026-11-27T04:00:01.5Z");
        assert_eq!(ev["kind"], "Event");
    }

    #[test]
    fn takes_event_json_embedded_in_msg() {
        let inner =
            json!({"metadata": {"name": "x.1"}, "involvedObject": {"kind": "Pod", "name": "x"}, "reason": "Scheduled"});
        let rec = json!({"_msg": inner.to_string(), "_time": "2026-01-01T00:00:00Z"});
        let (ev, _) = unflatten_event(rec);
        assert_eq!(ev, inner);
    }

    #[test]
    fn api_objects_are_not_flat() {
        assert!(!is_flat(&json!({"metadata": {"name": "a"}, "kind": "Pod"})));
    }
}
