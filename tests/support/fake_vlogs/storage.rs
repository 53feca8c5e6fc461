//! How the fake stores a row, the way VictoriaLogs' `/insert/jsonline`
//! does (victorialogs.md "Ingestion"): nested objects flattened with dots,
//! arrays as JSON text, numbers and booleans as strings, null and empty
//! values dropped, the first present `_time_field` parsed into `_time` and
//! REMOVED, the first present `_msg_field` renamed `_msg` (or the
//! missing-message text), `_stream` built from `_stream_fields`.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// What VictoriaLogs stores as `_msg` when a row has none.
pub const MISSING_MSG: &str =
    "missing _msg field; see https://docs.victoriametrics.com/victorialogs/keyconcepts/#message-field";

/// Lines longer than this are rejected, as by VictoriaLogs.
pub const MAX_LINE: usize = 256 * 1024;

/// One stored row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRow {
    /// `(AccountID, ProjectID)`.
    pub tenant: (u32, u32),
    /// `_time`, nanoseconds since the epoch.
    pub time_ns: i64,
    /// Every other field, `_msg` and `_stream` included, as strings.
    pub fields: BTreeMap<String, String>,
}

impl StoredRow {
    /// `_time` as VictoriaLogs prints it: RFC 3339 UTC, nanoseconds with trailing zeros trimmed.
    pub fn time_text(&self) -> String {
        let t = DateTime::from_timestamp_nanos(self.time_ns);
        let whole = t.format("%Y-%m-%dT%H:%M:%S");
        match t.timestamp_subsec_nanos() {
            0 => format!("{whole}Z"),
            n => format!("{whole}.{}Z", format!("{n:09}").trim_end_matches('0')),
        }
    }

    /// `_stream_id`: an id of the row's stream (the real one is 32 hex digits too).
    pub fn stream_id(&self) -> String {
        let stream = self.fields.get("_stream").map_or("", String::as_str);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in stream.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{:016x}{:016x}", self.tenant.0 as u64 ^ h, u64::from(self.tenant.1) ^ h.rotate_left(17))
    }

    /// The row as one line of `/select/logsql/query` (`'` escaped as `\u0027`, like VictoriaLogs).
    pub fn to_line(&self) -> String {
        let mut m = Map::new();
        m.insert("_time".into(), Value::String(self.time_text()));
        m.insert("_stream_id".into(), Value::String(self.stream_id()));
        for (k, v) in &self.fields {
            m.insert(k.clone(), Value::String(v.clone()));
        }
        Value::Object(m).to_string().replace('\'', "\\u0027")
    }

    /// A field's value; `_time` as text.
    pub fn get(&self, field: &str) -> Option<String> {
        if field == "_time" {
            return Some(self.time_text());
        }
        self.fields.get(field).cloned()
    }
}

/// `/insert/jsonline` query args (comma-separated lists).
#[derive(Debug, Clone, Default)]
pub struct InsertArgs {
    /// `_msg_field`.
    pub msg_fields: Vec<String>,
    /// `_time_field`.
    pub time_fields: Vec<String>,
    /// `_stream_fields`.
    pub stream_fields: Vec<String>,
}

fn flatten(prefix: &str, v: &Value, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, child, out);
            }
        }
        Value::Null => {}
        Value::String(s) if s.is_empty() => {}
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        Value::Array(_) => {
            out.insert(prefix.to_string(), v.to_string());
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

/// Parses a `_time` field value: RFC 3339, or Unix seconds/ms/µs/ns by magnitude; `"0"` is now.
pub fn parse_time(s: &str, now: DateTime<Utc>) -> Option<i64> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return t.timestamp_nanos_opt();
    }
    let n: i64 = s.parse().ok()?;
    if n == 0 {
        return now.timestamp_nanos_opt();
    }
    Some(match n.abs() {
        0..=99_999_999_999 => n.saturating_mul(1_000_000_000),
        100_000_000_000..=99_999_999_999_999 => n.saturating_mul(1_000_000),
        100_000_000_000_000..=99_999_999_999_999_999 => n.saturating_mul(1000),
        _ => n,
    })
}

/// Stores the NDJSON `body`; returns (rows stored, lines skipped). Invalid
/// lines are skipped (VictoriaLogs logs a warning and goes on).
pub fn ingest(body: &str, args: &InsertArgs, tenant: (u32, u32), now: DateTime<Utc>) -> (Vec<StoredRow>, usize) {
    let mut rows = Vec::new();
    let mut skipped = 0;
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        let doc = match serde_json::from_str::<Value>(line) {
            Ok(doc @ Value::Object(_)) if line.len() <= MAX_LINE => doc,
            _ => {
                skipped += 1;
                continue;
            }
        };
        let mut fields = BTreeMap::new();
        flatten("", &doc, &mut fields);
        let mut time_ns = None;
        // Without `_time_field`/`_msg_field`, the fields named `_time` and `_msg` are used.
        let default_time = ["_time".to_string()];
        let time_fields = if args.time_fields.is_empty() { &default_time[..] } else { &args.time_fields[..] };
        let default_msg = ["_msg".to_string()];
        let msg_fields = if args.msg_fields.is_empty() { &default_msg[..] } else { &args.msg_fields[..] };
        if let Some(f) = time_fields.iter().find(|f| fields.contains_key(*f)) {
            let text = fields.remove(f).unwrap_or_default();
            time_ns = parse_time(&text, now);
            if time_ns.is_none() {
                skipped += 1;
                continue;
            }
        }
        let msg = msg_fields.iter().find_map(|f| fields.remove(f)).unwrap_or_else(|| MISSING_MSG.to_string());
        let stream: Vec<String> = args
            .stream_fields
            .iter()
            .filter_map(|f| fields.get(f).map(|v| format!("{f}={}", Value::String(v.clone()))))
            .collect();
        fields.insert("_msg".into(), msg);
        fields.insert("_stream".into(), format!("{{{}}}", stream.join(",")));
        let time_ns = time_ns.or_else(|| now.timestamp_nanos_opt()).unwrap_or(0);
        rows.push(StoredRow { tenant, time_ns, fields });
    }
    (rows, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_are_stored_like_victorialogs_does() {
        let args = InsertArgs {
            msg_fields: vec!["message".into()],
            time_fields: vec!["eventTime".into(), "lastTimestamp".into()],
            stream_fields: vec!["involvedObject.namespace".into()],
        };
        let doc = json!({"message": "it's 1", "eventTime": null, "lastTimestamp": "2026-11-27T04:00:00.120Z",
                         "count": 3, "ok": true, "empty": "", "involvedObject": {"namespace": "media"},
                         "refs": [{"a": 1}]});
        let (rows, skipped) = ingest(&doc.to_string(), &args, (0, 0), Utc::now());
        assert_eq!((rows.len(), skipped), (1, 0));
        let r = &rows[0];
        assert_eq!(r.fields["count"], "3");
        assert_eq!(r.fields["ok"], "true");
        assert_eq!(r.fields["refs"], "[{\"a\":1}]");
        assert_eq!(r.fields["_stream"], "{involvedObject.namespace=\"media\"}");
        assert!(!r.fields.contains_key("lastTimestamp") && !r.fields.contains_key("empty"));
        assert_eq!(r.time_text(), "2026-11-27T04:00:00.12Z");
        assert!(r.to_line().contains("it\\u0027s 1"), "{}", r.to_line());
    }
}
