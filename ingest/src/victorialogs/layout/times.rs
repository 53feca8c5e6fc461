//! Times as the layouts carry them: VictoriaLogs' `_time` (RFC 3339 UTC,
//! trailing zeros trimmed), Go's `Time.String()` (OpenTelemetry's
//! `k8s.event.start_time`), and the event time field a shipper moved into
//! `_time` and removed from the row (victorialogs.md "Ingestion").

use chrono::{DateTime, SecondsFormat, Timelike, Utc};
use serde_json::{Map, Value};

/// Parses an RFC 3339 time (any offset) into UTC.
pub fn parse_rfc3339(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s.trim()).ok().map(|t| t.with_timezone(&Utc))
}

/// Parses Go's `time.Time.String()` form: `2025-07-01 10:00:00 +0000 UTC`,
/// optionally with fractional seconds and a monotonic-clock suffix
/// (`m=+0.000000001`).
pub fn parse_go_time(s: &str) -> Option<DateTime<Utc>> {
    let s = s.split(" m=").next().unwrap_or(s).trim();
    // Drop the zone abbreviation after the numeric offset.
    let mut parts: Vec<&str> = s.split(' ').collect();
    if parts.len() == 4 {
        parts.pop();
    }
    let text = parts.join(" ");
    DateTime::parse_from_str(&text, "%Y-%m-%d %H:%M:%S%.f %z").ok().map(|t| t.with_timezone(&Utc))
}

/// `metav1.Time` text: whole seconds, `Z`.
pub fn k8s_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `metav1.MicroTime` text: six fractional digits, `Z`.
pub fn micro_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Whether a time has a sub-second part: a `metav1.MicroTime` (`eventTime`)
/// almost always has one, a `metav1.Time` (`lastTimestamp`) never.
pub fn has_fraction(t: DateTime<Utc>) -> bool {
    t.nanosecond() != 0
}

/// Which event field the shipper's `_time` came from, when the row still
/// says so; the field is written back in its own text form.
///
/// Shippers name the field with `_time_field` (first present wins), and
/// VictoriaLogs removes it from the row. Rules, from what the remaining
/// fields allow (kubernetes-events.md: a classic event always has both
/// `firstTimestamp` and `lastTimestamp`; a new-API event has neither, only
/// `eventTime`):
/// 1. `firstTimestamp` present, `lastTimestamp` absent → `lastTimestamp` was taken;
/// 2. none of `eventTime`, `lastTimestamp`, `firstTimestamp` → `eventTime` was taken;
/// 3. `eventTime` present, first/last absent, no `metadata.creationTimestamp`
///    → `metadata.creationTimestamp` was taken (Fluent Bit's fallback);
/// 4. otherwise nothing was taken (e.g. `_time_field=date`), and nothing is added.
///
/// Returns the field written back, if any.
pub fn restore_removed_time_field(event: &mut Map<String, Value>, time: DateTime<Utc>) -> Option<&'static str> {
    let has = |m: &Map<String, Value>, k: &str| m.get(k).is_some_and(|v| !v.is_null());
    let first = has(event, "firstTimestamp");
    let last = has(event, "lastTimestamp");
    let event_time = has(event, "eventTime");
    let created = event.get("metadata").and_then(|m| m.get("creationTimestamp")).is_some_and(|v| !v.is_null());
    if first && !last {
        event.insert("lastTimestamp".into(), Value::String(k8s_time(time)));
        return Some("lastTimestamp");
    }
    if !first && !last && !event_time {
        event.insert("eventTime".into(), Value::String(micro_time(time)));
        return Some("eventTime");
    }
    if event_time && !first && !last && !created {
        if let Some(Value::Object(meta)) = event.get_mut("metadata") {
            meta.insert("creationTimestamp".into(), Value::String(k8s_time(time)));
            return Some("metadata.creationTimestamp");
        }
    }
    None
}

/// For layouts that carry one event time and not its field (OpenTelemetry
/// k8sevents: `eventTime` if set, else `lastTimestamp`, else
/// `firstTimestamp`; KENT): a time with a sub-second part was an `eventTime`
/// (MicroTime), one without was a `lastTimestamp`. Returns the field set.
pub fn set_event_time(event: &mut Map<String, Value>, time: DateTime<Utc>) -> &'static str {
    if has_fraction(time) {
        event.insert("eventTime".into(), Value::String(micro_time(time)));
        "eventTime"
    } else {
        event.insert("lastTimestamp".into(), Value::String(k8s_time(time)));
        "lastTimestamp"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(s: &str) -> DateTime<Utc> {
        parse_rfc3339(s).expect("time")
    }

    #[test]
    fn go_time_strings() {
        assert_eq!(parse_go_time("2021-06-19 05:57:03 +0000 UTC"), Some(t("2021-06-19T05:57:03Z")));
        assert_eq!(parse_go_time("2021-06-19 07:57:03.25 +0200 CEST"), Some(t("2021-06-19T05:57:03.25Z")));
        assert_eq!(parse_go_time("2021-06-19 05:57:03 +0000 UTC m=+0.000000001"), Some(t("2021-06-19T05:57:03Z")));
        assert_eq!(parse_go_time("yesterday"), None);
    }

    #[test]
    fn removed_time_field_rules() {
        let time = t("2026-11-28T04:00:00.5Z");
        let mut classic = json!({"firstTimestamp": "2026-11-28T03:00:00Z"});
        let m = classic.as_object_mut().expect("map");
        assert_eq!(restore_removed_time_field(m, t("2026-11-28T04:00:00Z")), Some("lastTimestamp"));
        assert_eq!(m["lastTimestamp"], "2026-11-28T04:00:00Z");

        let mut modern = json!({"metadata": {"creationTimestamp": "2026-11-28T04:00:00Z"}});
        let m = modern.as_object_mut().expect("map");
        assert_eq!(restore_removed_time_field(m, time), Some("eventTime"));
        assert_eq!(m["eventTime"], "2026-11-28T04:00:00.500000Z");

        let mut fluent = json!({"eventTime": "2026-11-28T04:00:00.500000Z", "metadata": {"name": "e"}});
        let m = fluent.as_object_mut().expect("map");
        assert_eq!(restore_removed_time_field(m, t("2026-11-28T04:00:00Z")), Some("metadata.creationTimestamp"));

        let mut whole = json!({"firstTimestamp": "a", "lastTimestamp": "b"});
        assert_eq!(restore_removed_time_field(whole.as_object_mut().expect("map"), time), None);
    }

    #[test]
    fn one_time_goes_to_event_time_or_last_timestamp() {
        let mut m = Map::new();
        assert_eq!(set_event_time(&mut m, t("2026-11-28T04:00:00.000100Z")), "eventTime");
        assert_eq!(set_event_time(&mut m, t("2026-11-28T04:00:00Z")), "lastTimestamp");
        assert_eq!(m["lastTimestamp"], "2026-11-28T04:00:00Z");
    }
}
