//! Layout `raw`: the core/v1 Event as kubernetes-event-exporter's webhook
//! sink (or Fluent Bit's `kubernetes_events` input through its http output)
//! posts it to `/insert/jsonline`, flattened by VictoriaLogs:
//! `involvedObject.name`, `metadata.uid`, `count: "7"`, `message` often as
//! `_msg`, nulls and empty strings gone, and the field named by
//! `_time_field` removed (put back by [`times::restore_removed_time_field`]).
//!
//! Carries everything a core/v1 Event has; the exporter's extras
//! (`involvedObject.labels`, `involvedObject.ownerReferences`, `clusterName`)
//! are kept as they are. Lost on the way in, and not restorable: fields
//! that were empty strings or null (the store's derived columns treat
//! missing and empty alike), and the removed time field's original text
//! (written back as `metav1.Time`/`MicroTime` text).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::times::restore_removed_time_field;
use super::typed::restore_types;
use super::unflatten::insert_dotted;
use super::{event_kind, message, Converted, Layout, Row, RowError};
use crate::store::Change;

/// Converts one `raw` row.
///
/// # Errors
/// [`RowError::NotThisLayout`] when the row has no `involvedObject.*` or `regarding.*`.
pub fn convert(row: Row, time: Option<DateTime<Utc>>) -> Result<Converted, RowError> {
    let msg = message(&row);
    let mut event = serde_json::Map::new();
    for (k, v) in row {
        // VictoriaLogs' own fields: _msg, _time, _stream, _stream_id.
        if k.starts_with('_') {
            continue;
        }
        insert_dotted(&mut event, &k, v);
    }
    if !event.contains_key("involvedObject") && !event.contains_key("regarding") {
        return Err(RowError::NotThisLayout {
            layout: Layout::Raw,
            problem: "no involvedObject.* or regarding.* field".into(),
        });
    }
    if !event.contains_key("message") && !event.contains_key("note") {
        if let Some(m) = msg {
            event.insert("message".into(), Value::String(m));
        }
    }
    event_kind(&mut event);
    if let Some(t) = time {
        restore_removed_time_field(&mut event, t);
    }
    let mut object = Value::Object(event);
    let typing = restore_types(&mut object);
    Ok(Converted { object, change: Change::Listed, observed_at: time, typing })
}

#[cfg(test)]
mod tests {
    use super::super::{convert as convert_layout, Layout};
    use serde_json::json;

    #[test]
    fn exporter_row_becomes_the_core_v1_event() {
        let row = json!({
            "_msg": "0/5 nodes are available: 1 Insufficient cpu.",
            "_time": "2026-11-27T04:00:01Z",
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
        let c = convert_layout(Layout::Raw, row.as_object().cloned().expect("map")).expect("converts");
        let ev = c.object;
        assert_eq!(ev["count"], 7);
        assert_eq!(ev["involvedObject"]["labels"]["app.kubernetes.io/name"], "backup");
        assert_eq!(ev["message"], "0/5 nodes are available: 1 Insufficient cpu.");
        assert_eq!(ev["lastTimestamp"], "2026-11-27T04:00:01Z");
        assert_eq!((ev["kind"].as_str(), ev["apiVersion"].as_str()), (Some("Event"), Some("v1")));
        assert_eq!(c.observed_at.map(|t| t.to_rfc3339()), Some("2026-11-27T04:00:01+00:00".into()));
    }

    #[test]
    fn a_row_whose_last_timestamp_is_garbage_is_refused_naming_that_field_not_count() {
        // Break-it 34: the schema rejected the time, every field stayed
        // text, and the store said `count: "7" is not a count`.
        let row = json!({
            "_msg": "0/5 nodes are available", "_time": "2026-11-27T04:00:01Z",
            "involvedObject.kind": "Pod", "involvedObject.name": "backup-1", "involvedObject.namespace": "media",
            "metadata.name": "backup-1.187", "metadata.namespace": "media", "reason": "FailedScheduling",
            "count": "7", "firstTimestamp": "2026-11-27T04:00:00Z", "lastTimestamp": "yesterday-ish"
        });
        let c = convert_layout(Layout::Raw, row.as_object().cloned().expect("map")).expect("converts");
        assert!(
            matches!(&c.typing, super::super::typed::Typing::Rejected(why)
                if why.starts_with("Event v1: lastTimestamp \"yesterday-ish\" rejected")),
            "{:?}",
            c.typing
        );
        assert_eq!(c.object["count"], 7);
        let origin = kdrift_store::Origin { location: "w".into(), line: Some(3), item: None };
        let record = kdrift_store::Record { object: c.object, origin, observed_at: c.observed_at, change: c.change };
        let prepared = kdrift_store::prepare(record, chrono::Utc::now());
        let error = prepared.row.expect_err("refused").to_string();
        assert_eq!(
            error,
            "Event media/backup-1.187: lastTimestamp: \"yesterday-ish\" is not a time; expected RFC 3339, e.g. \
             2026-11-28T04:00:00Z"
        );
    }

    #[test]
    fn a_row_without_an_involved_object_is_refused() {
        let row = json!({"_msg": "GET /healthz 200", "_time": "2026-11-27T04:00:01Z", "level": "info"});
        let err = convert_layout(Layout::Raw, row.as_object().cloned().expect("map")).expect_err("not an event");
        assert!(err.to_string().contains("not a valid raw row (kubernetes-event-exporter or Fluent Bit)"), "{err}");
    }
}
