//! The two API views of one Event (core/v1 and events.k8s.io/v1), converted
//! field by field as the apiserver does (k8s.io/kubernetes
//! pkg/apis/events/v1 conversion): `involvedObject` ↔ `regarding`,
//! `message` ↔ `note`, `source` ↔ `deprecatedSource`, `firstTimestamp` /
//! `lastTimestamp` / `count` ↔ `deprecated*`, `reportingComponent` ↔
//! `reportingController`.

use serde_json::{Map, Value};

/// (core/v1 field, events.k8s.io/v1 field) pairs that only change name.
const RENAMED: &[(&str, &str)] = &[
    ("involvedObject", "regarding"),
    ("message", "note"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
    ("reportingComponent", "reportingController"),
];

/// Fields with the same name in both views.
const SAME: &[&str] = &["metadata", "reason", "type", "action", "related", "eventTime", "series", "reportingInstance"];

/// `event` (written as `from_api_version`) seen through `to_api_version`.
pub fn convert(event: &Value, to_api_version: &str) -> Value {
    let Some(obj) = event.as_object() else { return event.clone() };
    let from = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("v1");
    if from == to_api_version {
        return event.clone();
    }
    let to_new = to_api_version == "events.k8s.io/v1";
    let mut out = Map::new();
    out.insert("kind".into(), Value::String("Event".into()));
    out.insert("apiVersion".into(), Value::String(to_api_version.into()));
    for key in SAME {
        if let Some(v) = obj.get(*key) {
            out.insert((*key).into(), v.clone());
        }
    }
    for (core, new) in RENAMED {
        let (src, dst) = if to_new { (core, new) } else { (new, core) };
        if let Some(v) = obj.get(*src) {
            out.insert((*dst).into(), v.clone());
        }
    }
    if !to_new {
        // core/v1 always has these keys, null when the event did not set them.
        for key in ["firstTimestamp", "lastTimestamp", "eventTime"] {
            out.entry(key).or_insert(Value::Null);
        }
        out.entry("source").or_insert_with(|| Value::Object(Map::new()));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_keeps_every_field() {
        let core = json!({"kind": "Event", "apiVersion": "v1", "metadata": {"name": "e", "namespace": "d"},
            "involvedObject": {"kind": "Pod", "name": "p"}, "message": "m", "reason": "Killing", "count": 3,
            "source": {"component": "kubelet", "host": "n1"}, "firstTimestamp": "2026-11-28T04:00:00Z",
            "lastTimestamp": "2026-11-28T04:01:00Z", "type": "Normal", "eventTime": null,
            "reportingComponent": "kubelet", "reportingInstance": "n1"});
        let new = convert(&core, "events.k8s.io/v1");
        assert_eq!(new["note"], "m");
        assert_eq!(new["deprecatedCount"], 3);
        assert_eq!(new["regarding"]["name"], "p");
        assert_eq!(convert(&new, "v1"), core);
    }
}
