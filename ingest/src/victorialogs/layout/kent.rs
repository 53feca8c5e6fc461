//! Layout `kent`: KENT's event records (victorialogs.md layout 4): `level`,
//! `logType: event`, `clusterID`, `k8s.kind`, `k8s.namespace`, `k8s.name`
//! (the involved object), `event.reason`, `event.type`, `event.source`,
//! `event.count`, `_msg` = message, `_time` = the event's time.
//!
//! KENT carries no event name, uid or namespace of its own. kdrift names the
//! event `<object name>.kent-<hash>`, the hash over what client-go's
//! EventCorrelator uses to decide that two occurrences are the same Event
//! (source, involved kind/namespace/name, type, reason, message), so the
//! versions of one event share a name and its highest count wins; two
//! distinct events with the same key (e.g. two kubelet restarts, both
//! "Starting kubelet.") become one. The namespace is the involved object's,
//! or `default` for cluster-scoped objects. Also not carried: the involved
//! object's uid, the first time (the store derives first = last time of
//! the version), `series`, `action`, `reportingComponent`, `source.host`.
//! The time goes back as `eventTime` or `lastTimestamp` like OpenTelemetry's
//! ([`super::times::set_event_time`]).

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::times::set_event_time;
use super::{message, Converted, Layout, Row, RowError, Typing};
use crate::store::Change;

fn text<'a>(row: &'a Row, field: &str) -> &'a str {
    row.get(field).and_then(Value::as_str).unwrap_or("")
}

/// FNV-1a 64 over the parts, each followed by a NUL.
fn correlator_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.bytes().chain(std::iter::once(0))) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Converts one `kent` row.
///
/// # Errors
/// [`RowError::NotThisLayout`] without `logType: event`, `k8s.name` or `event.reason`.
pub fn convert(row: Row, time: Option<DateTime<Utc>>) -> Result<Converted, RowError> {
    let not_this = |problem: &str| RowError::NotThisLayout { layout: Layout::Kent, problem: problem.into() };
    if text(&row, "logType") != "event" {
        return Err(not_this("logType is not \"event\""));
    }
    let (kind, namespace, name) = (text(&row, "k8s.kind"), text(&row, "k8s.namespace"), text(&row, "k8s.name"));
    let (reason, kind_of_event, source) =
        (text(&row, "event.reason"), text(&row, "event.type"), text(&row, "event.source"));
    if name.is_empty() || reason.is_empty() {
        return Err(not_this("no k8s.name or event.reason"));
    }
    let msg = message(&row).unwrap_or_default();
    let hash = correlator_hash(&[source, kind, namespace, name, kind_of_event, reason, &msg]);
    let mut involved = Map::new();
    for (key, value) in [("kind", kind), ("namespace", namespace), ("name", name)] {
        if !value.is_empty() {
            involved.insert(key.into(), Value::String(value.into()));
        }
    }
    let mut event = Map::new();
    event.insert("apiVersion".into(), json!("v1"));
    event.insert("kind".into(), json!("Event"));
    event.insert(
        "metadata".into(),
        json!({ "name": format!("{name}.kent-{hash:016x}"),
                "namespace": if namespace.is_empty() { "default" } else { namespace } }),
    );
    event.insert("involvedObject".into(), Value::Object(involved));
    event.insert("reason".into(), Value::String(reason.into()));
    if !kind_of_event.is_empty() {
        event.insert("type".into(), Value::String(kind_of_event.into()));
    }
    if !msg.is_empty() {
        event.insert("message".into(), Value::String(msg));
    }
    if !source.is_empty() {
        event.insert("source".into(), json!({ "component": source }));
    }
    if let Some(count) = text(&row, "event.count").parse::<i64>().ok().filter(|c| *c > 0) {
        event.insert("count".into(), Value::from(count));
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

    fn row(count: &str, time: &str) -> super::Row {
        json!({"_msg": "Back-off restarting failed container", "_time": time, "level": "warning",
               "logType": "event", "clusterID": "c1", "k8s.kind": "Pod", "k8s.namespace": "media",
               "k8s.name": "plex-0", "event.reason": "BackOff", "event.type": "Warning",
               "event.source": "kubelet", "event.count": count})
        .as_object()
        .cloned()
        .expect("map")
    }

    #[test]
    fn versions_of_one_event_share_a_synthetic_name() {
        let a = convert_layout(Layout::Kent, row("1", "2026-11-28T04:00:00Z")).expect("event").object;
        let b = convert_layout(Layout::Kent, row("5", "2026-11-28T04:10:00Z")).expect("event").object;
        assert_eq!(a["metadata"]["name"], b["metadata"]["name"]);
        assert!(a["metadata"]["name"].as_str().is_some_and(|n| n.starts_with("plex-0.kent-")));
        assert_eq!((a["count"].clone(), b["count"].clone()), (json!(1), json!(5)));
        assert_eq!(b["lastTimestamp"], "2026-11-28T04:10:00Z");
        assert_eq!(b["involvedObject"]["namespace"], "media");
    }
}
