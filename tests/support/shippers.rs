//! Fixture shippers: Kubernetes objects sent to a (fake) VictoriaLogs'
//! `/insert/jsonline` the way each real shipper formats them
//! (victorialogs.md "How Kubernetes events arrive"), so that the fake
//! stores exactly what the real server would.
//!
//! - `raw`: kubernetes-event-exporter's webhook sink: the event JSON as the
//!   informer has it (no `kind`/`apiVersion`), `_msg_field=message`,
//!   `_time_field=eventTime,lastTimestamp,firstTimestamp`; deletions are not sent.
//! - `msg-json`: the exporter's stdout sink read by a log collector: the
//!   event JSON is the `log` line, `_time` the collection time.
//! - `otel-k8sevents`: what VictoriaLogs stores for an OTLP record of the
//!   `k8s_events` receiver (`k8s_event_to_logdata.go`): resource and log
//!   attributes as fields, body as `_msg`, severity text as `severity`,
//!   `_time` = eventTime, else lastTimestamp, else firstTimestamp. (The fake
//!   has no OTLP endpoint; the shipper posts the stored form.)
//! - `otel-k8sobjects`: the `k8sobjects` receiver in watch mode
//!   (`unstructured_to_logdata.go`): body `{type, object}` flattened,
//!   attributes `k8s.resource.name`, `event.domain`, `event.name`,
//!   `k8s.namespace.name`; `_time` = observation time; deletions included.
//! - `kent`: nested `{level, logType, clusterID, k8s{…}, event{…}, message,
//!   time}`. Where the reference does not say, the fixture takes the time as
//!   series.lastObservedTime → lastTimestamp → eventTime → firstTimestamp and
//!   the count as series.count → count.

use chrono::{DateTime, Utc};
use kdrift_ingest::Layout;
use serde_json::{json, Map, Value};

/// How a watch saw an object version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// ADDED (or listed).
    Added,
    /// MODIFIED.
    Modified,
    /// DELETED.
    Deleted,
}

impl Seen {
    fn as_str(self) -> &'static str {
        match self {
            Seen::Added => "ADDED",
            Seen::Modified => "MODIFIED",
            Seen::Deleted => "DELETED",
        }
    }
}

/// One object version a shipper saw.
#[derive(Debug, Clone)]
pub struct Sighting {
    /// When the shipper saw it.
    pub observed_at: DateTime<Utc>,
    /// How.
    pub seen: Seen,
    /// The object (core/v1 form for events).
    pub object: Value,
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn time_at(v: &Value, ptr: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(str_at(v, ptr)).ok().map(|t| t.with_timezone(&Utc)).filter(|t| t.timestamp() > 0)
}

/// Go's `time.Time.String()` of an RFC 3339 UTC time (`2021-06-19 05:57:03 +0000 UTC`).
pub fn go_time_string(t: DateTime<Utc>) -> String {
    let whole = t.format("%Y-%m-%d %H:%M:%S");
    match t.timestamp_subsec_nanos() {
        0 => format!("{whole} +0000 UTC"),
        n => format!("{whole}.{} +0000 UTC", format!("{n:09}").trim_end_matches('0')),
    }
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// The event as an informer serializes it: no `kind`/`apiVersion`.
fn informer_json(event: &Value) -> Value {
    let mut e = event.clone();
    if let Some(m) = e.as_object_mut() {
        m.remove("kind");
        m.remove("apiVersion");
    }
    e
}

fn plural(kind: &str) -> String {
    match kind {
        "" => String::new(),
        k if k.ends_with('s') => format!("{}es", k.to_lowercase()),
        k if k.ends_with('y') => format!("{}ies", &k[..k.len() - 1].to_lowercase()),
        k => format!("{}s", k.to_lowercase()),
    }
}

fn otel_k8sevents(s: &Sighting) -> Value {
    let e = &s.object;
    let mut m = Map::new();
    let mut put = |k: &str, v: &str| {
        m.insert(k.to_string(), Value::String(v.to_string()));
    };
    put("k8s.node.name", str_at(e, "/source/host"));
    for (attr, ptr) in [
        ("k8s.object.kind", "/involvedObject/kind"),
        ("k8s.object.name", "/involvedObject/name"),
        ("k8s.object.uid", "/involvedObject/uid"),
        ("k8s.object.fieldpath", "/involvedObject/fieldPath"),
        ("k8s.object.api_version", "/involvedObject/apiVersion"),
        ("k8s.object.resource_version", "/involvedObject/resourceVersion"),
        ("k8s.event.reason", "/reason"),
        ("k8s.event.action", "/action"),
        ("k8s.event.name", "/metadata/name"),
        ("k8s.event.uid", "/metadata/uid"),
        ("k8s.namespace.name", "/involvedObject/namespace"),
    ] {
        put(attr, str_at(e, ptr));
    }
    let created = time_at(e, "/metadata/creationTimestamp").unwrap_or(DateTime::UNIX_EPOCH);
    put("k8s.event.start_time", &go_time_string(created));
    let kind = str_at(e, "/type");
    if ["normal", "warning", "error", "critical"].contains(&kind.to_lowercase().as_str()) {
        put("severity", kind);
    }
    put("otel.body", str_at(e, "/message"));
    let time =
        time_at(e, "/eventTime").or_else(|| time_at(e, "/lastTimestamp")).or_else(|| time_at(e, "/firstTimestamp"));
    put("otel.time", &rfc3339(time.unwrap_or(s.observed_at)));
    if let Some(c) = e.get("count").and_then(Value::as_i64).filter(|c| *c != 0) {
        m.insert("k8s.event.count".into(), Value::from(c));
    }
    Value::Object(m)
}

fn otel_k8sobjects(s: &Sighting) -> Value {
    let o = &s.object;
    let mut m = Map::new();
    m.insert("type".into(), json!(s.seen.as_str()));
    m.insert("object".into(), o.clone());
    m.insert("k8s.resource.name".into(), json!(plural(str_at(o, "/kind"))));
    m.insert("event.domain".into(), json!("k8s"));
    m.insert("event.name".into(), json!(str_at(o, "/metadata/name")));
    m.insert("k8s.namespace.name".into(), json!(str_at(o, "/metadata/namespace")));
    m.insert("otel.observed".into(), json!(rfc3339(s.observed_at)));
    Value::Object(m)
}

fn kent(s: &Sighting) -> Value {
    let e = &s.object;
    let time = time_at(e, "/series/lastObservedTime")
        .or_else(|| time_at(e, "/lastTimestamp"))
        .or_else(|| time_at(e, "/eventTime"))
        .or_else(|| time_at(e, "/firstTimestamp"))
        .unwrap_or(s.observed_at);
    let count = e.pointer("/series/count").or_else(|| e.get("count")).and_then(Value::as_i64).unwrap_or(0);
    let source = match str_at(e, "/source/component") {
        "" => str_at(e, "/reportingComponent"),
        c => c,
    };
    json!({
        "level": if str_at(e, "/type") == "Warning" { "warning" } else { "info" },
        "logType": "event",
        "clusterID": "kdrift-fixture",
        "k8s": {"namespace": str_at(e, "/involvedObject/namespace"), "name": str_at(e, "/involvedObject/name"),
                "kind": str_at(e, "/involvedObject/kind")},
        "event": {"reason": str_at(e, "/reason"), "type": str_at(e, "/type"), "source": source, "count": count},
        "message": str_at(e, "/message"),
        "time": rfc3339(time),
    })
}

/// The `/insert/jsonline` query string and the NDJSON line of each sighting for `layout`.
pub fn format(layout: Layout, sightings: &[Sighting]) -> (String, Vec<String>) {
    let is_event = |o: &Value| match str_at(o, "/kind") {
        "" => o.get("involvedObject").is_some() || o.get("regarding").is_some(),
        kind => kind == "Event",
    };
    let events_only = |s: &&Sighting| s.seen != Seen::Deleted && is_event(&s.object);
    let (args, lines): (&str, Vec<Value>) = match layout {
        Layout::Raw => (
            "_msg_field=message&_time_field=eventTime,lastTimestamp,firstTimestamp&_stream_fields=involvedObject.namespace",
            sightings.iter().filter(events_only).map(|s| informer_json(&s.object)).collect(),
        ),
        Layout::MsgJson => (
            "_msg_field=log&_time_field=time&_stream_fields=kubernetes.namespace_name,kubernetes.pod_name",
            sightings
                .iter()
                .filter(events_only)
                .map(|s| {
                    json!({"log": informer_json(&s.object).to_string(), "time": rfc3339(s.observed_at), "stream": "stdout",
                           "kubernetes": {"namespace_name": "monitoring", "pod_name": "event-exporter-6d4f9-x2x7c",
                                          "container_name": "event-exporter"}})
                })
                .collect(),
        ),
        Layout::OtelK8sevents => (
            "_msg_field=otel.body&_time_field=otel.time&_stream_fields=k8s.node.name,k8s.object.kind,k8s.object.name",
            sightings.iter().filter(events_only).map(otel_k8sevents).collect(),
        ),
        Layout::OtelK8sobjects => {
            ("_time_field=otel.observed&_stream_fields=k8s.namespace.name", sightings.iter().map(otel_k8sobjects).collect())
        }
        Layout::Kent => (
            "_msg_field=message&_time_field=time&_stream_fields=k8s.namespace",
            sightings.iter().filter(events_only).map(kent).collect(),
        ),
    };
    (args.to_string(), lines.iter().map(Value::to_string).collect())
}

/// Ships `sightings` in `layout` to the server at `url` (tenant headers
/// when given), 500 lines per request, as `application/stream+json`.
/// Returns the number of lines sent.
///
/// # Panics
/// When the server cannot be reached or refuses a batch (a test setup problem).
pub fn ship(url: &str, layout: Layout, sightings: &[Sighting], tenant: Option<(u32, u32)>) -> usize {
    let (args, lines) = format(layout, sightings);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let http = reqwest::Client::new();
    rt.block_on(async {
        for batch in lines.chunks(500) {
            let mut rb = http
                .post(format!("{url}/insert/jsonline?{args}"))
                .header("Content-Type", "application/stream+json")
                .body(batch.join("\n"));
            if let Some((a, p)) = tenant {
                rb = rb.header("AccountID", a.to_string()).header("ProjectID", p.to_string());
            }
            let status = rb.send().await.expect("ship to the fake VictoriaLogs").status();
            assert!(status.is_success(), "insert answered {status}");
        }
    });
    lines.len()
}

/// The sighting of each event of a `kubectl get events -o json|yaml` list:
/// one version each, seen at its last time.
pub fn sightings_of_list(list: &Value) -> Vec<Sighting> {
    list.get("items")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|e| Sighting {
                    observed_at: time_at(e, "/lastTimestamp")
                        .or_else(|| time_at(e, "/eventTime"))
                        .or_else(|| time_at(e, "/firstTimestamp"))
                        .unwrap_or(DateTime::UNIX_EPOCH),
                    seen: Seen::Added,
                    object: e.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_time_and_plurals() {
        let t = DateTime::parse_from_rfc3339("2021-06-19T05:57:03.120Z").expect("t").with_timezone(&Utc);
        assert_eq!(go_time_string(t), "2021-06-19 05:57:03.12 +0000 UTC");
        assert_eq!(
            (plural("Event"), plural("Node"), plural("PriorityClass")),
            ("events".into(), "nodes".into(), "priorityclasses".into())
        );
    }
}
