//! Layout `msg-json`: the event JSON is the log line (kubernetes-event-exporter's
//! stdout sink, `kubectl get events -w -o json`, read by a log collector
//! from the pod's log): `_msg` holds the whole object, with its own types,
//! nulls and empty strings intact, and `_time` is when the collector read
//! the line. A watch wrapper (`{"type": "ADDED", "object": {…}}`) is
//! unwrapped.
//!
//! Carries everything the JSON has: nothing is lost. The collector's own
//! fields (`kubernetes.pod_name`, `stream`, …) are not part of the event.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{event_kind, Converted, Layout, Row, RowError, Typing};
use crate::store::Change;

fn not_this(problem: impl Into<String>) -> RowError {
    RowError::NotThisLayout { layout: Layout::MsgJson, problem: problem.into() }
}

/// Converts one `msg-json` row.
///
/// # Errors
/// [`RowError::NotThisLayout`] when `_msg` is not a JSON Event (or a watch
/// event wrapping an object).
pub fn convert(row: Row, time: Option<DateTime<Utc>>) -> Result<Converted, RowError> {
    let msg = row.get("_msg").and_then(Value::as_str).ok_or_else(|| not_this("no _msg"))?;
    let start = msg.find('{').ok_or_else(|| not_this("_msg holds no JSON object"))?;
    // Keys checked for duplicates at any depth (issue 34).
    let doc = serde_json::from_str::<kdrift_rebalance::StrictValue>(&msg[start..]).map(|s| s.0).map_err(|e| {
        if e.classify() == serde_json::error::Category::Data {
            not_this(format!("_msg JSON: {e}"))
        } else {
            not_this(format!("_msg is not JSON ({e})"))
        }
    })?;
    let (change, object) = match doc {
        Value::Object(mut map) if map.contains_key("object") && map.get("type").is_some_and(Value::is_string) => {
            let change = match map.get("type").and_then(Value::as_str) {
                Some("ADDED") => Change::Added,
                Some("MODIFIED") => Change::Modified,
                Some("DELETED") => Change::Deleted,
                other => return Err(not_this(format!("watch event type {other:?}"))),
            };
            (change, map.remove("object").unwrap_or(Value::Null))
        }
        other => (Change::Listed, other),
    };
    let Value::Object(mut object) = object else {
        return Err(not_this("_msg JSON is not an object"));
    };
    let is_event = object.contains_key("involvedObject") || object.contains_key("regarding");
    if is_event {
        event_kind(&mut object);
    } else if !object.get("kind").is_some_and(Value::is_string) {
        return Err(not_this("_msg JSON is neither an Event nor an object with a kind"));
    }
    Ok(Converted { object: Value::Object(object), change, observed_at: time, typing: Typing::Schema })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(msg: &str) -> Row {
        json!({"_msg": msg, "_time": "2026-01-01T00:00:00Z", "kubernetes.pod_name": "exporter-1"})
            .as_object()
            .cloned()
            .expect("map")
    }

    #[test]
    fn the_event_json_is_taken_whole() {
        let inner = json!({"metadata": {"name": "x.1"}, "involvedObject": {"kind": "Pod", "name": "x"},
                           "reason": "Scheduled", "eventTime": null, "count": 2});
        let c = convert(row(&inner.to_string()), None).expect("event");
        assert_eq!(c.object["eventTime"], Value::Null, "nulls survive inside _msg");
        assert_eq!(c.object["count"], 2);
        assert_eq!(c.object["kind"], "Event");
        assert_eq!(c.change, Change::Listed);
    }

    #[test]
    fn watch_wrappers_and_garbage() {
        let w = json!({"type": "DELETED", "object": {"kind": "Pod", "metadata": {"name": "p"}}});
        let c = convert(row(&w.to_string()), None).expect("pod");
        assert_eq!(c.change, Change::Deleted);
        assert_eq!(c.object["kind"], "Pod");
        assert!(convert(row("GET /healthz 200"), None).is_err());
        assert!(convert(row("{\"level\":\"info\"}"), None).is_err());
    }
}
