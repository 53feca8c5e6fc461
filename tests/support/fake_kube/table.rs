//! Server-side printing: the `meta.k8s.io/v1` `Table` kubectl asks for
//! (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), with the
//! apiserver's columns for pods, events and nodes (NAME and AGE for the
//! rest) and each row's object as `PartialObjectMetadata` (or whole with
//! `includeObject=Object`).

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

/// A row renderer.
type Cells = fn(&Value) -> Vec<Value>;

fn col(name: &str, ty: &str, format: &str, priority: u8) -> Value {
    json!({"name": name, "type": ty, "format": format, "description": name, "priority": priority})
}

fn text<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn time(v: &Value, ptr: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text(v, ptr)).ok().map(|t| t.with_timezone(&Utc))
}

/// kubectl's `duration.HumanDuration`.
pub fn human_duration(d: chrono::Duration) -> String {
    let seconds = d.num_seconds();
    if seconds < -1 {
        return "<invalid>".into();
    } else if seconds < 0 {
        return "0s".into();
    } else if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    } else if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") };
    } else if hours < 48 {
        return format!("{hours}h");
    } else if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) };
    } else if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 { format!("{}y", hours / 24 / 365) } else { format!("{}y{dy}d", hours / 24 / 365) };
    }
    format!("{}y", hours / 24 / 365)
}

fn age(t: Option<DateTime<Utc>>) -> String {
    t.map_or_else(|| "<unknown>".to_string(), |t| human_duration(Utc::now() - t))
}

fn pod_status(p: &Value) -> String {
    if p.pointer("/metadata/deletionTimestamp").is_some_and(|v| !v.is_null()) {
        return "Terminating".into();
    }
    let mut reason = text(p, "/status/reason").to_string();
    if reason.is_empty() {
        reason = text(p, "/status/phase").to_string();
    }
    for c in p.pointer("/status/containerStatuses").and_then(Value::as_array).into_iter().flatten() {
        let r = text(c, "/state/waiting/reason");
        let t = text(c, "/state/terminated/reason");
        if !r.is_empty() {
            reason = r.to_string();
        } else if !t.is_empty() {
            reason = t.to_string();
        }
    }
    reason
}

fn pod_cells(p: &Value) -> Vec<Value> {
    let statuses = p.pointer("/status/containerStatuses").and_then(Value::as_array).cloned().unwrap_or_default();
    let total = p.pointer("/spec/containers").and_then(Value::as_array).map_or(0, Vec::len);
    let ready = statuses.iter().filter(|c| c.get("ready").and_then(Value::as_bool) == Some(true)).count();
    let restarts: i64 = statuses.iter().filter_map(|c| c.get("restartCount").and_then(Value::as_i64)).sum();
    let none = |s: &str| if s.is_empty() { "<none>".to_string() } else { s.to_string() };
    vec![
        json!(text(p, "/metadata/name")),
        json!(format!("{ready}/{total}")),
        json!(pod_status(p)),
        json!(restarts),
        json!(age(time(p, "/metadata/creationTimestamp"))),
        json!(none(text(p, "/status/podIP"))),
        json!(none(text(p, "/spec/nodeName"))),
        json!(none(text(p, "/status/nominatedNodeName"))),
        json!("<none>"),
    ]
}

fn event_cells(e: &Value) -> Vec<Value> {
    let last = time(e, "/lastTimestamp")
        .or_else(|| time(e, "/series/lastObservedTime"))
        .or_else(|| time(e, "/eventTime"))
        .or_else(|| time(e, "/metadata/creationTimestamp"));
    let object = format!("{}/{}", text(e, "/involvedObject/kind").to_lowercase(), text(e, "/involvedObject/name"));
    vec![
        json!(age(last)),
        json!(text(e, "/type")),
        json!(text(e, "/reason")),
        json!(object),
        json!(text(e, "/message")),
    ]
}

fn node_cells(n: &Value) -> Vec<Value> {
    let conditions = n.pointer("/status/conditions").and_then(Value::as_array).cloned().unwrap_or_default();
    let ready = conditions.iter().find(|c| text(c, "/type") == "Ready").map(|c| text(c, "/status").to_string());
    let mut status = match ready.as_deref() {
        Some("True") => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    };
    if n.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push_str(",SchedulingDisabled");
    }
    let roles: Vec<String> = n
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|l| l.keys().filter_map(|k| k.strip_prefix("node-role.kubernetes.io/")).map(str::to_string).collect())
        .unwrap_or_default();
    vec![
        json!(text(n, "/metadata/name")),
        json!(status),
        json!(if roles.is_empty() { "<none>".to_string() } else { roles.join(",") }),
        json!(age(time(n, "/metadata/creationTimestamp"))),
        json!(text(n, "/status/nodeInfo/kubeletVersion")),
    ]
}

/// The Table of `items` of `kind` (core/v1 view for events).
pub fn table(kind: &str, items: &[Value], resource_version: u64, continue_token: &str, include_object: &str) -> Value {
    let (columns, cells): (Vec<Value>, Cells) = match kind {
        "Pod" => (
            vec![
                col("Name", "string", "name", 0),
                col("Ready", "string", "", 0),
                col("Status", "string", "", 0),
                col("Restarts", "string", "", 0),
                col("Age", "string", "", 0),
                col("IP", "string", "", 1),
                col("Node", "string", "", 1),
                col("Nominated Node", "string", "", 1),
                col("Readiness Gates", "string", "", 1),
            ],
            pod_cells,
        ),
        "Event" => (
            vec![
                col("Last Seen", "string", "", 0),
                col("Type", "string", "", 0),
                col("Reason", "string", "", 0),
                col("Object", "string", "", 0),
                col("Message", "string", "", 0),
            ],
            event_cells,
        ),
        "Node" => (
            vec![
                col("Name", "string", "name", 0),
                col("Status", "string", "", 0),
                col("Roles", "string", "", 0),
                col("Age", "string", "", 0),
                col("Version", "string", "", 0),
            ],
            node_cells,
        ),
        _ => (vec![col("Name", "string", "name", 0), col("Age", "string", "", 0)], |o| {
            vec![json!(text(o, "/metadata/name")), json!(age(time(o, "/metadata/creationTimestamp")))]
        }),
    };
    let rows: Vec<Value> = items
        .iter()
        .map(|o| {
            let object = match include_object {
                "None" => Value::Null,
                "Object" => o.clone(),
                _ => json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                            "metadata": o.get("metadata").cloned().unwrap_or(json!({}))}),
            };
            json!({"cells": cells(o), "object": object})
        })
        .collect();
    let mut metadata = json!({"resourceVersion": resource_version.to_string()});
    if !continue_token.is_empty() {
        metadata["continue"] = json!(continue_token);
    }
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata, "columnDefinitions": columns, "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        let d = chrono::Duration::seconds;
        assert_eq!(human_duration(d(59)), "59s");
        assert_eq!(human_duration(d(125)), "2m5s");
        assert_eq!(human_duration(d(3600 * 5 + 60 * 3)), "5h3m");
        assert_eq!(human_duration(d(3600 * 30)), "30h");
        assert_eq!(human_duration(d(3600 * 50)), "2d2h");
    }
}
