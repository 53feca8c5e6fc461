//! Layout `otel-k8sevents`: the OpenTelemetry Collector's `k8s_events`
//! receiver (`k8s_event_to_logdata.go`) sent to `/insert/opentelemetry/v1/logs`.
//! Resource attributes `k8s.node.name` (= `source.host`), `k8s.object.kind`,
//! `.name`, `.uid`, `.fieldpath`, `.api_version`, `.resource_version` (the
//! involved object); log attributes `k8s.event.reason`, `.action`, `.name`,
//! `.uid`, `.start_time` (the event's creationTimestamp in Go's
//! `Time.String()` form), `.count` (only when non-zero), `k8s.namespace.name`
//! (the INVOLVED object's namespace); `_msg` = message; `severity` = type
//! (Normal/Warning; unknown types are not sent); `_time` = `eventTime`, else
//! `lastTimestamp`, else `firstTimestamp`.
//!
//! Cannot carry, so never stored from this layout (the comparison test
//! lists the same): `firstTimestamp` (the store derives the first time from
//! `metadata.creationTimestamp`, seconds), `series` (a new-API event counts
//! once per distinct version), `source.component`/`reportingComponent`/
//! `reportingInstance`, the event's `resourceVersion`, and its namespace:
//! kdrift uses the involved object's namespace, or `default` for
//! cluster-scoped objects (where Kubernetes' event recorders write them).
//! Which field `_time` came from is not said: a time with a sub-second part
//! is written back as `eventTime`, one without as `lastTimestamp`
//! ([`times::set_event_time`]).

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::times::{k8s_time, parse_go_time, set_event_time};
use super::{message, Converted, Layout, Row, RowError, Typing};
use crate::store::Change;

fn text<'a>(row: &'a Row, field: &str) -> Option<&'a str> {
    row.get(field).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn put(m: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(v) = value {
        m.insert(key.to_string(), Value::String(v.to_string()));
    }
}

/// Converts one `otel-k8sevents` row.
///
/// # Errors
/// [`RowError::NotThisLayout`] without `k8s.event.name` and `k8s.event.uid`;
/// [`RowError::BadTime`] when `k8s.event.start_time` does not parse.
pub fn convert(row: Row, time: Option<DateTime<Utc>>) -> Result<Converted, RowError> {
    let name = text(&row, "k8s.event.name");
    let uid = text(&row, "k8s.event.uid");
    if name.is_none() && uid.is_none() {
        return Err(RowError::NotThisLayout {
            layout: Layout::OtelK8sevents,
            problem: "no k8s.event.name or k8s.event.uid".into(),
        });
    }
    let involved_ns = text(&row, "k8s.namespace.name");
    let mut metadata = Map::new();
    put(&mut metadata, "name", name);
    put(&mut metadata, "namespace", Some(involved_ns.unwrap_or("default")));
    put(&mut metadata, "uid", uid);
    if let Some(start) = text(&row, "k8s.event.start_time") {
        let t = parse_go_time(start).ok_or_else(|| RowError::BadTime {
            field: "k8s.event.start_time",
            value: start.to_string(),
            expected: "Go time text, e.g. 2025-07-01 10:00:00 +0000 UTC",
        })?;
        metadata.insert("creationTimestamp".into(), Value::String(k8s_time(t)));
    }
    let mut involved = Map::new();
    for (field, key) in [
        ("k8s.object.kind", "kind"),
        ("k8s.namespace.name", "namespace"),
        ("k8s.object.name", "name"),
        ("k8s.object.uid", "uid"),
        ("k8s.object.api_version", "apiVersion"),
        ("k8s.object.resource_version", "resourceVersion"),
        ("k8s.object.fieldpath", "fieldPath"),
    ] {
        put(&mut involved, key, text(&row, field));
    }
    let mut event = Map::new();
    event.insert("apiVersion".into(), json!("v1"));
    event.insert("kind".into(), json!("Event"));
    event.insert("metadata".into(), Value::Object(metadata));
    event.insert("involvedObject".into(), Value::Object(involved));
    put(&mut event, "reason", text(&row, "k8s.event.reason"));
    put(&mut event, "action", text(&row, "k8s.event.action"));
    put(&mut event, "type", text(&row, "severity"));
    if let Some(m) = message(&row) {
        event.insert("message".into(), Value::String(m));
    }
    if let Some(count) = text(&row, "k8s.event.count").and_then(|c| c.parse::<i64>().ok()) {
        event.insert("count".into(), Value::from(count));
    }
    let mut source = Map::new();
    put(&mut source, "component", text(&row, "k8s.event.source"));
    put(&mut source, "host", text(&row, "k8s.node.name"));
    if !source.is_empty() {
        event.insert("source".into(), Value::Object(source));
    }
    if let Some(t) = time {
        set_event_time(&mut event, t);
    }
    Ok(Converted { object: Value::Object(event), change: Change::Listed, observed_at: time, typing: Typing::Schema })
}

#[cfg(test)]
mod tests {
    use super::super::{convert as convert_layout, Layout};
    use serde_json::json;

    #[test]
    fn otel_attributes_become_the_event() {
        let row = json!({
            "_msg": "Started container nginx", "_time": "2021-06-19T05:58:10Z", "severity": "Normal",
            "k8s.node.name": "minikube", "k8s.object.kind": "Pod", "k8s.object.name": "web-1",
            "k8s.object.uid": "u1", "k8s.object.fieldpath": "spec.containers{nginx}",
            "k8s.object.api_version": "v1", "k8s.object.resource_version": "512",
            "k8s.event.reason": "Started", "k8s.event.name": "web-1.1689", "k8s.event.uid": "e1",
            "k8s.event.start_time": "2021-06-19 05:58:09 +0000 UTC", "k8s.namespace.name": "default",
            "k8s.event.count": "3"
        });
        let c = convert_layout(Layout::OtelK8sevents, row.as_object().cloned().expect("map")).expect("event");
        let e = c.object;
        assert_eq!(e["metadata"]["name"], "web-1.1689");
        assert_eq!(e["metadata"]["creationTimestamp"], "2021-06-19T05:58:09Z");
        assert_eq!(e["involvedObject"]["fieldPath"], "spec.containers{nginx}");
        assert_eq!(e["count"], 3);
        assert_eq!(e["type"], "Normal");
        assert_eq!(e["source"]["host"], "minikube");
        assert_eq!(e["lastTimestamp"], "2021-06-19T05:58:10Z");
        assert!(e.get("firstTimestamp").is_none(), "not carried, not invented");
    }

    #[test]
    fn cluster_scoped_objects_events_live_in_default_and_microtimes_are_event_times() {
        let row = json!({"_msg": "Node minikube status is now: NodeReady", "_time": "2021-06-19T05:57:05.123456Z",
                         "k8s.object.kind": "Node", "k8s.object.name": "minikube", "k8s.event.name": "minikube.1"});
        let c = convert_layout(Layout::OtelK8sevents, row.as_object().cloned().expect("map")).expect("event");
        assert_eq!(c.object["metadata"]["namespace"], "default");
        assert!(c.object["involvedObject"].get("namespace").is_none());
        assert_eq!(c.object["eventTime"], "2021-06-19T05:57:05.123456Z");
    }
}
