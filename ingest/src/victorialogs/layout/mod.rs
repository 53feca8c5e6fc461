//! The shippers' field layouts in VictoriaLogs (victorialogs.md "How
//! Kubernetes events arrive"), each converted into the object the store
//! keeps: the core/v1 Event (or, for OpenTelemetry k8sobjects, any object
//! the receiver watched, pods and nodes included).
//!
//! | layout | shipper | module |
//! |---|---|---|
//! | `raw` | kubernetes-event-exporter webhook sink, Fluent Bit `kubernetes_events` | [`raw`] |
//! | `msg-json` | the exporter's stdout sink read by a log collector: the event JSON is `_msg` | [`msg_json`] |
//! | `otel-k8sevents` | OpenTelemetry Collector `k8s_events` receiver | [`otel_events`] |
//! | `otel-k8sobjects` | OpenTelemetry Collector `k8sobjects` receiver (watch or pull) | [`otel_objects`] |
//! | `kent` | KENT | [`kent`] |
//!
//! What each layout cannot carry is listed in its module; nothing is
//! invented to fill the gap except where the module says how (an event's
//! namespace, KENT's event name).

pub mod kent;
pub mod msg_json;
pub mod otel_events;
pub mod otel_objects;
pub mod raw;
pub mod times;
pub mod typed;
pub mod unflatten;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::store::Change;
pub use typed::Typing;

/// One row as `/select/logsql/query` returns it: field name → string value.
pub type Row = Map<String, Value>;

/// What VictoriaLogs stores as `_msg` when a row had no message field.
pub const MISSING_MSG: &str = "missing _msg field";

/// A shipper's field layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// The core/v1 Event flattened with dots (kubernetes-event-exporter webhook sink, Fluent Bit).
    Raw,
    /// The event JSON as the log line (`_msg`), e.g. the exporter's stdout read by a log collector.
    MsgJson,
    /// OpenTelemetry `k8s_events` receiver: `k8s.event.*`, `k8s.object.*` attributes, `_msg` = message.
    OtelK8sevents,
    /// OpenTelemetry `k8sobjects` receiver: `type` + `object.*` (watch) or the object's own fields (pull).
    OtelK8sobjects,
    /// KENT: `logType: event`, `k8s.kind/namespace/name`, `event.*`.
    Kent,
}

impl Layout {
    /// Every layout, in detection tie-break order (most specific first).
    pub const ALL: [Layout; 5] =
        [Layout::OtelK8sobjects, Layout::OtelK8sevents, Layout::Kent, Layout::Raw, Layout::MsgJson];

    /// The name users pass to `--layout`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Raw => "raw",
            Layout::MsgJson => "msg-json",
            Layout::OtelK8sevents => "otel-k8sevents",
            Layout::OtelK8sobjects => "otel-k8sobjects",
            Layout::Kent => "kent",
        }
    }

    /// Parses a `--layout` name.
    pub fn parse(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// The shipper's short name, for messages.
    pub fn shipper(self) -> &'static str {
        match self {
            Layout::Raw => "kubernetes-event-exporter or Fluent Bit",
            Layout::MsgJson => "event JSON in _msg",
            Layout::OtelK8sevents => "OpenTelemetry k8sevents",
            Layout::OtelK8sobjects => "OpenTelemetry k8sobjects",
            Layout::Kent => "KENT",
        }
    }

    /// Who writes this layout.
    pub fn describe(self) -> &'static str {
        match self {
            Layout::Raw => "raw core/v1 Event, flattened (kubernetes-event-exporter webhook sink, Fluent Bit)",
            Layout::MsgJson => "event JSON inside _msg (exporter stdout read by a log collector)",
            Layout::OtelK8sevents => "OpenTelemetry k8s_events receiver (k8s.event.*, k8s.object.*)",
            Layout::OtelK8sobjects => "OpenTelemetry k8sobjects receiver (object.*, or the object's fields)",
            Layout::Kent => "KENT (logType: event, k8s.*, event.*)",
        }
    }

    /// A `--filter` keeping this layout's FailedScheduling and Scheduled
    /// events, for messages suggesting one (victorialogs.md "LogsQL you
    /// need"): a field filter where the reason is a field of its own, words
    /// of `_msg` for `msg-json` (the Event JSON is inside `_msg`: a field
    /// filter such as `reason:…` matches nothing there).
    pub fn reason_filter_example(self) -> &'static str {
        match self {
            Layout::Raw => "reason:in(FailedScheduling, Scheduled)",
            Layout::MsgJson => "_msg:FailedScheduling or _msg:Scheduled",
            Layout::OtelK8sevents => "k8s.event.reason:in(FailedScheduling, Scheduled)",
            Layout::OtelK8sobjects => {
                "object.reason:in(FailedScheduling, Scheduled) or reason:in(FailedScheduling, Scheduled)"
            }
            Layout::Kent => "event.reason:in(FailedScheduling, Scheduled)",
        }
    }

    /// The LogsQL filter that selects this layout's rows.
    pub fn filter(self) -> &'static str {
        match self {
            Layout::Raw => r#"("involvedObject.name":* or "regarding.name":*)"#,
            Layout::MsgJson => "(_msg:involvedObject or _msg:regarding)",
            Layout::OtelK8sevents => r#""k8s.event.name":*"#,
            Layout::OtelK8sobjects => r#"("object.metadata.name":* or "k8s.resource.name":*)"#,
            Layout::Kent => r#""logType":=event"#,
        }
    }

    /// Field names whose presence (with hits) in `/select/logsql/field_names`
    /// shows this layout. `msg-json` has none: its fields are `_msg` and the
    /// collector's; it is probed with its filter instead.
    pub fn marker_fields(self) -> &'static [&'static str] {
        match self {
            Layout::Raw => &["involvedObject.name", "involvedObject.kind", "regarding.name"],
            Layout::MsgJson => &[],
            Layout::OtelK8sevents => &["k8s.event.name", "k8s.event.reason", "k8s.event.uid"],
            Layout::OtelK8sobjects => &["object.metadata.name", "object.kind", "k8s.resource.name"],
            Layout::Kent => &["event.reason"],
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The layout with the most evidence among `/select/logsql/field_names`
/// results (`(name, hits)`), with its hit count; `None` when no marker field
/// is present (then `msg-json` is the candidate to probe). KENT needs
/// `logType` too.
pub fn detect(fields: &[(String, u64)]) -> Option<(Layout, u64)> {
    let hits = |name: &str| fields.iter().find(|(n, _)| n == name).map_or(0, |(_, h)| *h);
    let mut best: Option<(Layout, u64)> = None;
    for layout in Layout::ALL {
        let mut evidence = layout.marker_fields().iter().map(|f| hits(f)).max().unwrap_or(0);
        if layout == Layout::Kent && hits("logType") == 0 {
            evidence = 0;
        }
        if evidence > 0 && best.is_none_or(|(_, b)| evidence > b) {
            best = Some((layout, evidence));
        }
    }
    best
}

/// The layout of one row, for NDJSON exports read by `ingest file` (no
/// `field_names` there).
pub fn detect_row(row: &Row) -> Option<Layout> {
    let has = |name: &str| row.contains_key(name);
    let has_prefix = |p: &str| row.keys().any(|k| k.starts_with(p));
    if has_prefix("object.") && (has("type") || has("k8s.resource.name")) || has("k8s.resource.name") {
        return Some(Layout::OtelK8sobjects);
    }
    if has_prefix("k8s.event.") || has_prefix("k8s.object.") {
        return Some(Layout::OtelK8sevents);
    }
    if has("logType") && has_prefix("event.") {
        return Some(Layout::Kent);
    }
    if has_prefix("involvedObject.") || has_prefix("regarding.") || has_prefix("metadata.") {
        return Some(Layout::Raw);
    }
    let msg = row.get("_msg").and_then(Value::as_str).unwrap_or("");
    if msg.trim_start().starts_with('{') {
        return Some(Layout::MsgJson);
    }
    None
}

/// One row converted into an object version.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The object (`kind` and `apiVersion` set).
    pub object: Value,
    /// How the shipper saw it (a watch type for k8sobjects, else `Listed`).
    pub change: Change,
    /// The row's `_time`.
    pub observed_at: Option<DateTime<Utc>>,
    /// How scalar types were restored.
    pub typing: Typing,
}

/// Why a row is not an object of its layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RowError {
    /// The row lacks what the layout needs.
    #[error("not a valid {layout} row ({}): {problem}", layout.shipper())]
    NotThisLayout {
        /// The layout expected.
        layout: Layout,
        /// What is missing or wrong.
        problem: String,
    },
    /// A time field that does not parse.
    #[error("{field} is {value:?}; expected {expected}")]
    BadTime {
        /// The field.
        field: &'static str,
        /// Its value.
        value: String,
        /// The form expected.
        expected: &'static str,
    },
}

/// Converts one row of `layout`.
///
/// # Errors
/// [`RowError`] when the row is not of that layout or a time does not parse.
pub fn convert(layout: Layout, row: Row) -> Result<Converted, RowError> {
    let time = match row.get("_time").and_then(Value::as_str) {
        Some(s) => Some(times::parse_rfc3339(s).ok_or_else(|| RowError::BadTime {
            field: "_time",
            value: s.to_string(),
            expected: "RFC 3339, e.g. 2026-11-28T04:00:00Z",
        })?),
        None => None,
    };
    match layout {
        Layout::Raw => raw::convert(row, time),
        Layout::MsgJson => msg_json::convert(row, time),
        Layout::OtelK8sevents => otel_events::convert(row, time),
        Layout::OtelK8sobjects => otel_objects::convert(row, time),
        Layout::Kent => kent::convert(row, time),
    }
}

/// The row's message, unless VictoriaLogs filled in its missing-message text.
fn message(row: &Row) -> Option<String> {
    row.get("_msg").and_then(Value::as_str).filter(|m| !m.starts_with(MISSING_MSG)).map(str::to_string)
}

/// Sets `kind: Event` and `apiVersion` (v1, or events.k8s.io/v1 for the
/// `regarding` form) when missing.
fn event_kind(event: &mut Map<String, Value>) {
    if !event.get("kind").is_some_and(Value::is_string) {
        event.insert("kind".into(), Value::String("Event".into()));
    }
    if !event.get("apiVersion").is_some_and(Value::is_string) {
        let v = if event.contains_key("regarding") { "events.k8s.io/v1" } else { "v1" };
        event.insert("apiVersion".into(), Value::String(v.into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[(&str, u64)]) -> Vec<(String, u64)> {
        list.iter().map(|(n, h)| (n.to_string(), *h)).collect()
    }

    #[test]
    fn detection_picks_the_layout_with_most_hits() {
        assert_eq!(detect(&names(&[("_msg", 10), ("involvedObject.name", 10)])), Some((Layout::Raw, 10)));
        assert_eq!(detect(&names(&[("k8s.event.name", 7), ("k8s.object.kind", 7)])), Some((Layout::OtelK8sevents, 7)));
        // k8sobjects pull mode of events carries involvedObject.* too; equal hits go to the more specific.
        assert_eq!(
            detect(&names(&[("involvedObject.name", 5), ("k8s.resource.name", 5)])),
            Some((Layout::OtelK8sobjects, 5))
        );
        assert_eq!(detect(&names(&[("event.reason", 3), ("logType", 3)])), Some((Layout::Kent, 3)));
        assert_eq!(detect(&names(&[("event.reason", 3)])), None, "KENT needs logType");
        assert_eq!(detect(&names(&[("_msg", 3), ("kubernetes.pod_name", 3)])), None);
        for l in Layout::ALL {
            assert_eq!(Layout::parse(l.as_str()), Some(l));
        }
    }
}
