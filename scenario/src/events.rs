//! Event objects in the exact shapes the components write them
//! (reference: shared/reference/kubernetes-events.md §2–§3, real dumps in
//! shared/fixtures/real/dumps/).
//!
//! - Old-path recorders (kubelet, controller-manager controllers) write
//!   core/v1 Events: `involvedObject`, `message`, `source{component,host}`,
//!   `firstTimestamp`/`lastTimestamp` in seconds, `count`, `eventTime: null`.
//! - The scheduler writes events.k8s.io/v1 Events: `regarding`, `note`,
//!   `reportingController`, `action`, `eventTime` with microseconds and, from
//!   the second occurrence on, `series{count,lastObservedTime}`.
//!
//! Event names are `<object>.<unix nanoseconds in hex>`, as client-go makes them.

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde_json::{json, Value};

use super::rng::SplitMix64;

/// RFC 3339 with whole seconds (`2026-11-27T02:00:00Z`), as metav1.Time.
pub(crate) fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// RFC 3339 with microseconds, as metav1.MicroTime.
pub(crate) fn micro(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The object an event is about.
#[derive(Debug, Clone)]
pub(crate) struct ObjRef {
    /// `v1` for pods and nodes, `batch/v1` for jobs, ...
    pub api_version: &'static str,
    /// `Pod`, `Node`, `ReplicaSet`, ...
    pub kind: &'static str,
    /// Object name.
    pub name: String,
    /// Namespace; `None` for nodes.
    pub namespace: Option<String>,
    /// Object uid (for kubelet node events: the node name).
    pub uid: String,
    /// `spec.containers{c}` for container events.
    pub field_path: Option<String>,
}

impl ObjRef {
    /// The same reference pointing at one container of a pod.
    pub(crate) fn container(&self, c: &str) -> ObjRef {
        ObjRef { field_path: Some(format!("spec.containers{{{c}}}")), ..self.clone() }
    }

    /// The namespace an event about this object lives in.
    fn event_namespace(&self) -> String {
        self.namespace.clone().unwrap_or_else(|| "default".to_string())
    }

    fn to_json(&self) -> Value {
        let mut v = json!({ "apiVersion": self.api_version, "kind": self.kind, "name": self.name });
        if let Some(m) = v.as_object_mut() {
            if let Some(ns) = &self.namespace {
                m.insert("namespace".into(), json!(ns));
            }
            m.insert("uid".into(), json!(self.uid));
            if let Some(fp) = &self.field_path {
                m.insert("fieldPath".into(), json!(fp));
            }
        }
        v
    }
}

/// Name, uid and creation time of one Event object (stable across its versions).
#[derive(Debug, Clone)]
pub(crate) struct EventId {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: String,
    /// `metadata.creationTimestamp` (and the first occurrence).
    pub created: DateTime<Utc>,
}

impl EventId {
    /// A new identity for an event about `object_name` first seen at `at`.
    pub(crate) fn new(rng: &mut SplitMix64, object_name: &str, at: DateTime<Utc>) -> Self {
        // client-go: fmt.Sprintf("%v.%x", ref.Name, t.UnixNano()); the low bits
        // are noise so that two events in the same millisecond differ.
        let nanos = at.timestamp_millis().max(0) as u64 * 1_000_000 + rng.below(1_000_000);
        EventId { name: format!("{object_name}.{nanos:016x}"), uid: rng.uuid(), created: at }
    }
}

/// Normal or Warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventType {
    /// Normal.
    Normal,
    /// Warning.
    Warning,
}

impl EventType {
    fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// Who writes a core/v1 event.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// The kubelet of the named node (`source.host`).
    Kubelet(&'a str),
    /// A controller-manager controller (`replicaset-controller`, ...).
    Controller(&'a str),
}

impl<'a> Source<'a> {
    /// `source.component` and `source.host`.
    pub(crate) fn parts(self) -> (&'a str, Option<&'a str>) {
        match self {
            Source::Kubelet(host) => ("kubelet", Some(host)),
            Source::Controller(c) => (c, None),
        }
    }
}

/// A core/v1 Event as an old-path recorder writes it.
pub(crate) struct CoreEvent<'a> {
    /// Identity.
    pub id: &'a EventId,
    /// Involved object.
    pub regarding: &'a ObjRef,
    /// Reason.
    pub reason: &'a str,
    /// Message.
    pub message: &'a str,
    /// Normal or Warning.
    pub kind: EventType,
    /// `source.component` (`kubelet`, `replicaset-controller`, ...).
    pub component: &'a str,
    /// `source.host` (kubelet events only).
    pub host: Option<&'a str>,
    /// `count` of this version.
    pub count: u32,
    /// `lastTimestamp` of this version.
    pub last: DateTime<Utc>,
}

impl CoreEvent<'_> {
    /// The full core/v1 Event object (resourceVersion is stamped later).
    pub(crate) fn to_json(&self) -> Value {
        let mut source = json!({ "component": self.component });
        if let (Some(h), Some(m)) = (self.host, source.as_object_mut()) {
            m.insert("host".into(), json!(h));
        }
        json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": self.id.name,
                "namespace": self.regarding.event_namespace(),
                "uid": self.id.uid,
                "resourceVersion": "",
                "creationTimestamp": ts(self.id.created),
            },
            "involvedObject": self.regarding.to_json(),
            "reason": self.reason,
            "message": self.message,
            "source": source,
            "firstTimestamp": ts(self.id.created),
            "lastTimestamp": ts(self.last),
            "count": self.count,
            "type": self.kind.as_str(),
            "eventTime": null,
            "reportingComponent": self.component,
            "reportingInstance": self.host.unwrap_or(""),
        })
    }
}

/// An events.k8s.io/v1 Event as the scheduler writes it.
pub(crate) struct SchedulerEvent<'a> {
    /// Identity.
    pub id: &'a EventId,
    /// The pod.
    pub regarding: &'a ObjRef,
    /// `Scheduled` or `FailedScheduling`.
    pub reason: &'a str,
    /// `Binding` or `Scheduling`.
    pub action: &'a str,
    /// The note.
    pub note: &'a str,
    /// Normal or Warning.
    pub kind: EventType,
    /// `eventTime` (microseconds).
    pub event_time: DateTime<Utc>,
    /// `series{count,lastObservedTime}` from the second occurrence on.
    pub series: Option<(u32, DateTime<Utc>)>,
}

/// The scheduler profile name.
pub(crate) const SCHEDULER: &str = "default-scheduler";
/// The scheduler's `reportingInstance` (`<profile>-<host>`).
pub(crate) const SCHEDULER_INSTANCE: &str = "default-scheduler-cp-1";

impl SchedulerEvent<'_> {
    /// The full events.k8s.io/v1 Event object.
    pub(crate) fn to_json(&self) -> Value {
        let mut v = json!({
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {
                "name": self.id.name,
                "namespace": self.regarding.event_namespace(),
                "uid": self.id.uid,
                "resourceVersion": "",
                "creationTimestamp": ts(self.id.created),
            },
            "eventTime": micro(self.event_time),
            "reportingController": SCHEDULER,
            "reportingInstance": SCHEDULER_INSTANCE,
            "action": self.action,
            "reason": self.reason,
            "regarding": self.regarding.to_json(),
            "note": self.note,
            "type": self.kind.as_str(),
            "deprecatedSource": {},
            "deprecatedFirstTimestamp": null,
            "deprecatedLastTimestamp": null,
        });
        if let (Some((count, last)), Some(m)) = (self.series, v.as_object_mut()) {
            m.insert("series".into(), json!({ "count": count, "lastObservedTime": micro(last) }));
        }
        v
    }
}

/// The event time a scheduler stamps: the decision instant minus a few
/// hundred microseconds of noise (the record is observed a little later).
pub(crate) fn jittered(rng: &mut SplitMix64, at: DateTime<Utc>) -> DateTime<Utc> {
    at - Duration::microseconds(1 + rng.below(900) as i64)
}

/// Converts an events.k8s.io/v1 Event into the core/v1 shape `kubectl get
/// events` shows: `count` missing, null first/last timestamps, empty source.
pub(crate) fn new_to_core(ev: &Value) -> Value {
    let g = |k: &str| ev.get(k).cloned().unwrap_or(Value::Null);
    let mut out = json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": g("metadata"),
        "involvedObject": g("regarding"),
        "reason": g("reason"),
        "message": g("note"),
        "source": {},
        "firstTimestamp": null,
        "lastTimestamp": null,
        "type": g("type"),
        "eventTime": g("eventTime"),
        "action": g("action"),
        "reportingComponent": g("reportingController"),
        "reportingInstance": g("reportingInstance"),
    });
    if let (Some(series), Some(m)) = (ev.get("series"), out.as_object_mut()) {
        m.insert("series".into(), series.clone());
    }
    out
}
