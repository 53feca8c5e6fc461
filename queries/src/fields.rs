//! The fields of an object the derivations read (`staging_observations.fields`,
//! issue 39 items 2 and 3), taken out in Rust as the object is staged:
//! `derive_event_versions`, `derive_pod_versions` and `derive_node_versions`
//! read them instead of parsing the whole object in SQL. DuckDB's JSON
//! functions hold a parsed copy of the object several times its size in the
//! buffer pool (yyjson's value pool, estimated at 16 bytes for every 6 bytes
//! of text, plus a copy of the text): one Event of 16 MiB failed
//! `derive_event_versions` under a memory limit of 128 MiB, a Pod of 40 MiB
//! `derive_pod_versions`.
//!
//! Each kind's paths are listed here in the order the SQL reads them (`f[1]`
//! is the first); each value is what DuckDB's `json_extract_string` gives:
//! a string's text, any other value's compact JSON, NULL for `null` or a
//! missing path.

use serde_json::Value;

/// The Event paths `derive_event_versions` reads (core/v1 and
/// events.k8s.io/v1, kubernetes-events.md §3), `f[1]`–`f[29]`.
pub const EVENT_PATHS: [&str; 29] = [
    "$.type",
    "$.reason",
    "$.message",
    "$.note",
    "$.action", // 1-5
    "$.involvedObject.kind",
    "$.regarding.kind", // 6-7
    "$.involvedObject.namespace",
    "$.regarding.namespace", // 8-9
    "$.involvedObject.name",
    "$.regarding.name", // 10-11
    "$.involvedObject.uid",
    "$.regarding.uid", // 12-13
    "$.reportingComponent",
    "$.reportingController",
    "$.source.component",
    "$.deprecatedSource.component", // 14-17
    "$.source.host",
    "$.deprecatedSource.host", // 18-19
    "$.firstTimestamp",
    "$.deprecatedFirstTimestamp",
    "$.eventTime",
    "$.metadata.creationTimestamp",
    "$.series.lastObservedTime",
    "$.lastTimestamp",
    "$.deprecatedLastTimestamp", // 20-26
    "$.series.count",
    "$.count",
    "$.deprecatedCount", // 27-29
];

/// The indices in [`EVENT_PATHS`] of the Event's times (`f[20]`–`f[26]`):
/// [`derived_fields`] gives them as [`event_time`] does.
pub const EVENT_TIMES: std::ops::Range<usize> = 19..26;

/// An Event time (RFC 3339, any offset) as `derive_event_versions` casts it:
/// UTC, `2026-11-28 04:00:00.000000`; `None` for Go's zero time
/// (`0001-01-01T00:00:00Z`) and Unix time 0 (`1970-01-01T00:00:00Z`), the
/// two ways a tool writes an unset time (Kubernetes itself writes `null`),
/// and for text that is no RFC 3339 time (ingest has already refused such
/// an Event, `crate::record::validate_event`). Any other time is kept as the
/// input says, before 1970 or in the year 9999 too: the store flags it
/// (`run_implausible_times`) and no analysis takes it as "now" or a
/// report's range (break-it 41 G7: one before 1971 was replaced silently by
/// another of the event's times). Parsed here, by the parser that validated
/// it, so that a time ingest accepts is the time stored: DuckDB's cast reads
/// no leap second and drops an offset cast straight to `TIMESTAMP`.
pub fn event_time(text: &str) -> Option<String> {
    let t = chrono::DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&chrono::Utc);
    let unset = t.timestamp_subsec_nanos() == 0 && [GO_ZERO_TIME, 0].contains(&t.timestamp());
    (!unset).then(|| t.format("%Y-%m-%d %H:%M:%S%.6f").to_string())
}

/// Go's zero time, `0001-01-01T00:00:00Z`, in Unix seconds.
const GO_ZERO_TIME: i64 = -62_135_596_800;

/// The Pod paths `derive_pod_versions` reads, `f[1]`–`f[6]`; `f[7]` is
/// the `lastTransitionTime` of the first `PodScheduled` condition with
/// status `True`, `f[8]` the first `DisruptionTarget` one's and `f[9]` its
/// `"reason: message"` (`reason` alone without a message).
pub const POD_PATHS: [&str; 6] = [
    "$.spec.nodeName",
    "$.status.phase",
    "$.metadata.creationTimestamp",
    "$.metadata.deletionTimestamp",
    "$.metadata.ownerReferences[0].kind",
    "$.metadata.ownerReferences[0].name",
];

/// The Node paths `derive_node_versions` reads, `f[1]`–`f[2]`; `f[3]` is
/// the `status` of the first `status.conditions` entry of `type` `Ready`.
pub const NODE_PATHS: [&str; 2] = ["$.metadata.creationTimestamp", "$.spec.unschedulable"];

/// The fields of `object`, a `kind` object, that the derivations read;
/// `None` for a kind none of them parses.
pub fn derived_fields(kind: &str, object: &Value) -> Option<Vec<Option<String>>> {
    match kind {
        "Event" => {
            let mut f: Vec<Option<String>> = EVENT_PATHS.iter().map(|p| extract_string(object, p)).collect();
            for time in &mut f[EVENT_TIMES] {
                *time = time.as_deref().and_then(event_time);
            }
            Some(f)
        }
        "Pod" => {
            let mut f: Vec<Option<String>> = POD_PATHS.iter().map(|p| extract_string(object, p)).collect();
            let scheduled = true_condition(object, "PodScheduled");
            let disruption = true_condition(object, "DisruptionTarget");
            f.push(scheduled.and_then(|c| c.get("lastTransitionTime")).and_then(text));
            f.push(disruption.and_then(|c| c.get("lastTransitionTime")).and_then(text));
            f.push(disruption.map(|c| {
                let reason = c.get("reason").and_then(text).unwrap_or_default();
                match c.get("message").and_then(text) {
                    Some(message) => format!("{reason}: {message}"),
                    None => reason,
                }
            }));
            Some(f)
        }
        "Node" => {
            let mut f: Vec<Option<String>> = NODE_PATHS.iter().map(|p| extract_string(object, p)).collect();
            let ready = condition(object, |c| c.get("type").and_then(Value::as_str) == Some("Ready"))
                .and_then(|c| c.get("status"))
                .and_then(text);
            f.push(ready);
            Some(f)
        }
        _ => None,
    }
}

/// The first of `status.conditions` that `wanted` picks.
fn condition(object: &Value, wanted: impl Fn(&Value) -> bool) -> Option<&Value> {
    object.pointer("/status/conditions")?.as_array()?.iter().find(|c| wanted(c))
}

/// The first of `status.conditions` of type `kind` with status `True`.
fn true_condition<'a>(object: &'a Value, kind: &str) -> Option<&'a Value> {
    condition(object, |c| {
        c.get("type").and_then(Value::as_str) == Some(kind) && c.get("status").and_then(Value::as_str) == Some("True")
    })
}

/// `json_extract_string(object, path)` for a path of `.key` and `[index]`
/// steps after `$`.
pub fn extract_string(object: &Value, path: &str) -> Option<String> {
    let mut at = object;
    let mut rest = path.strip_prefix('$')?;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            at = at.as_object()?.get(&after[..end])?;
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            at = at.as_array()?.get(after[..end].parse::<usize>().ok()?)?;
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    text(at)
}

/// A value as `json_extract_string` gives it: a string's text, NULL for
/// `null`, else compact JSON.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_read_as_json_extract_string_does() {
        let pod = json!({"spec": {"nodeName": "n1"}, "status": {"phase": null},
                         "metadata": {"ownerReferences": [{"kind": "ReplicaSet", "name": "rs-1"}], "x": 5}});
        let f = derived_fields("Pod", &pod).expect("pod");
        assert_eq!(f[..6], [Some("n1".into()), None, None, None, Some("ReplicaSet".into()), Some("rs-1".into())]);
        assert_eq!(f[6..], [None, None, None]);
        let evicted = json!({"status": {"conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-12-01T00:00:00Z"},
            {"type": "DisruptionTarget", "status": "False", "reason": "Old"},
            {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
             "message": "Eviction API: evicting", "lastTransitionTime": "2026-12-01T01:00:00Z"}]}});
        let f = derived_fields("Pod", &evicted).expect("pod");
        assert_eq!(
            f[6..],
            [
                Some("2026-12-01T00:00:00Z".into()),
                Some("2026-12-01T01:00:00Z".into()),
                Some("EvictionByEvictionAPI: Eviction API: evicting".into())
            ]
        );
        assert_eq!(extract_string(&pod, "$.metadata.x"), Some("5".into()));
        assert_eq!(
            extract_string(&pod, "$.metadata.ownerReferences"),
            Some(r#"[{"kind":"ReplicaSet","name":"rs-1"}]"#.into())
        );
        assert_eq!(extract_string(&pod, "$.metadata.ownerReferences[1].kind"), None);
        let node = json!({"spec": {"unschedulable": true}, "status": {"conditions": [
            {"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "Unknown"}]}});
        assert_eq!(
            derived_fields("Node", &node).expect("node"),
            vec![None, Some("true".into()), Some("Unknown".into())]
        );
        let event = json!({"type": "Warning", "count": 3, "series": {"count": 7}, "regarding": {"kind": "Pod"}});
        let f = derived_fields("Event", &event).expect("event");
        assert_eq!(
            (f[0].as_deref(), f[6].as_deref(), f[26].as_deref(), f[27].as_deref()),
            (Some("Warning"), Some("Pod"), Some("7"), Some("3"))
        );
        assert_eq!(derived_fields("ConfigMap", &event), None);
    }

    #[test]
    fn event_times_are_utc_text_kept_whatever_the_year_and_unset_only_for_the_zero_times() {
        assert_eq!(event_time("2026-11-28T06:00:00.5+02:00").as_deref(), Some("2026-11-28 04:00:00.500000"));
        assert_eq!(event_time("1969-06-01T00:00:00Z").as_deref(), Some("1969-06-01 00:00:00.000000"));
        assert_eq!(event_time("9999-12-31T23:59:59Z").as_deref(), Some("9999-12-31 23:59:59.000000"));
        assert_eq!(event_time("1970-01-01T00:00:01Z").as_deref(), Some("1970-01-01 00:00:01.000000"));
        assert_eq!(event_time("0001-01-01T00:00:00Z"), None, "Go's zero time");
        assert_eq!(event_time("1970-01-01T00:00:00Z"), None, "Unix time 0");
        assert_eq!(event_time("yesterday"), None);
        let event = json!({"firstTimestamp": "1969-06-01T00:00:00+01:00", "eventTime": "0001-01-01T00:00:00Z"});
        let f = derived_fields("Event", &event).expect("event");
        assert_eq!((f[19].as_deref(), f[21].as_deref()), (Some("1969-05-31 23:00:00.000000"), None));
    }
}
