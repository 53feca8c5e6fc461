//! One observed object version on its way into the store: the object itself,
//! where it came from, when it was observed, and the identity columns the
//! store indexes it by.

use chrono::{DateTime, Utc};
use serde_json::Value;

/// How a source saw an object version (a watch's event type, or a list/dump).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Change {
    /// Part of a list or dump: the object existed in this state.
    Listed,
    /// A watch ADDED event.
    Added,
    /// A watch MODIFIED event.
    Modified,
    /// A watch DELETED event: the object's last state before deletion.
    Deleted,
}

impl Change {
    /// The value stored in `observations.change`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Listed => "LISTED",
            Change::Added => "ADDED",
            Change::Modified => "MODIFIED",
            Change::Deleted => "DELETED",
        }
    }
}

/// Where a record was read: a file (or URL) and, when known, the 1-based line
/// and the 0-based index in a List's `items`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Origin {
    /// File path or URL, as the user gave it.
    pub location: String,
    /// 1-based line of the record's start, when the format tells it.
    pub line: Option<u64>,
    /// 0-based index in the enclosing List's `items`.
    pub item: Option<u64>,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.location)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(item) = self.item {
            write!(f, " (items[{item}])")?;
        }
        Ok(())
    }
}

/// An object version read from a source, before identity extraction.
#[derive(Debug, Clone)]
pub struct Record {
    /// The whole API object (camelCase keys; `kind` and `apiVersion` set).
    pub object: Value,
    /// Where it was read.
    pub origin: Origin,
    /// When the source observed it (a watch event's arrival, a VictoriaLogs
    /// `_time`); `None` for dumps, which carry no observation time.
    pub observed_at: Option<DateTime<Utc>>,
    /// How the source saw it.
    pub change: Change,
}

/// The columns `observations` indexes an object version by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// `kind`, e.g. `Event`, `Pod`, `Node`.
    pub kind: String,
    /// `apiVersion`, e.g. `v1`, `events.k8s.io/v1`.
    pub api_version: String,
    /// `metadata.namespace`, `""` for cluster-scoped objects.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`, when present.
    pub uid: Option<String>,
    /// `metadata.resourceVersion`, when present.
    pub resource_version: Option<String>,
}

/// Why a document cannot be stored as an object version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdentityError {
    /// The document is not a JSON object.
    #[error("expected a Kubernetes object (a mapping), found {0}")]
    NotAnObject(&'static str),
    /// No `kind` and none could be inferred from the shape.
    #[error("object has no `kind` and its shape is not an Event, Pod or Node")]
    NoKind,
    /// Neither `metadata.name` nor `metadata.uid`.
    #[error("{kind} has neither metadata.name nor metadata.uid")]
    NoName {
        /// The object's kind.
        kind: String,
    },
    /// A Secret: never stored, whatever its source
    /// (`kdrift_ingest`'s `parse::NOT_KEPT_KINDS`, `crate::record_mask`).
    #[error("Secret {name}: not stored: kdrift never stores a Secret (it reads nothing from one, and its data would travel with every copy of the store)")]
    Secret {
        /// `namespace/name` (or uid).
        name: String,
    },
    /// An object whose kind exists to carry a credential
    /// (`CREDENTIAL_KINDS`: a TokenRequest's or ExecCredential's
    /// `status.token`, a TokenReview's `spec.token`): never stored, whatever
    /// its source (break-it 40 F6: one with a `metadata.name` was stored
    /// with its token).
    #[error("{kind} {name}: not stored: a {kind} carries a credential (kdrift reads nothing from one, and it would travel with every copy of the store)")]
    Credential {
        /// Its kind, as `CREDENTIAL_KINDS` spells it.
        kind: &'static str,
        /// `namespace/name` (or uid).
        name: String,
    },
    /// A kubeconfig (`apiVersion: v1`, `kind: Config`; [`is_kubeconfig`]):
    /// no cluster history, and its `users` hold credentials (tokens,
    /// passwords, client keys), which would travel with every copy of the
    /// store. Refused whatever its source, with or without a
    /// `metadata.name` (break-it 34: one with a name was stored verbatim as
    /// an object of unknown kind, its token with it).
    #[error(
        "a kubeconfig (kind Config), not cluster history: not stored (it holds credentials); expected Kubernetes \
         objects, e.g. `kubectl get pods -A -o json`"
    )]
    Kubeconfig,
    /// A field kdrift reads for the object's identity (`kind`,
    /// `apiVersion`, `metadata` and its `name`, `namespace`, `uid`,
    /// `resourceVersion`) holds a value of the wrong JSON type (break-it 34
    /// L2: `metadata.uid: 7` was stored as a null uid, `kind: 5` replaced).
    #[error("{object}{field}: expected {expected}, found {found}")]
    WrongType {
        /// `Kind namespace/name: ` when they are readable, else empty.
        object: String,
        /// The field path.
        field: &'static str,
        /// `a string`, `an object`.
        expected: &'static str,
        /// What it holds: `the number 7`, `a list`, …
        found: String,
    },
    /// A name the store keeps and prints (`metadata.name`, `.namespace`,
    /// an Event's `involvedObject` or `regarding` name and namespace) holds
    /// a control character (newline, ESC, …), which no Kubernetes name holds
    /// (DNS-1123 labels and subdomains, path segment names): stored, it was
    /// printed raw, a newline forging lines and ESC reaching the terminal
    /// (issue 34). The object is an input error, its neighbours stored.
    #[error("{object}{field}: expected a Kubernetes name (DNS-1123: no control character), found \"{shown}\" holding {character}")]
    ControlCharacter {
        /// `Kind namespace/name: `, control characters written visibly.
        object: String,
        /// The field path.
        field: &'static str,
        /// The field's value, control characters written visibly
        /// ([`kdrift_rebalance::visible`]).
        shown: String,
        /// Its first control character, as written in `shown` (`\n`, `\e`).
        character: String,
    },
    /// A field with a value of the wrong type or out of range.
    #[error("{kind} {name}: {field}: {problem}")]
    BadField {
        /// The object's kind.
        kind: String,
        /// `namespace/name` (or uid).
        name: String,
        /// The field path.
        field: &'static str,
        /// What is wrong and what was expected.
        problem: String,
    },
}

/// Event fields holding counts (Kubernetes int32).
const EVENT_COUNTS: &[(&str, &str)] =
    &[("count", "/count"), ("deprecatedCount", "/deprecatedCount"), ("series.count", "/series/count")];

/// Event fields holding times (RFC 3339; Go's zero time means unset).
const EVENT_TIMES: &[(&str, &str)] = &[
    ("firstTimestamp", "/firstTimestamp"),
    ("lastTimestamp", "/lastTimestamp"),
    ("eventTime", "/eventTime"),
    ("deprecatedFirstTimestamp", "/deprecatedFirstTimestamp"),
    ("deprecatedLastTimestamp", "/deprecatedLastTimestamp"),
    ("series.lastObservedTime", "/series/lastObservedTime"),
    ("metadata.creationTimestamp", "/metadata/creationTimestamp"),
];

/// Checks the Event fields the store derives from: counts are integers in
/// 0..=2147483647, times are RFC 3339, the involved object is a mapping.
///
/// # Errors
/// [`IdentityError::BadField`] naming the field and what was expected.
pub fn validate_event(object: &Value, id: &Identity) -> Result<(), IdentityError> {
    let bad = |field: &'static str, problem: String| IdentityError::BadField {
        kind: id.kind.clone(),
        name: if id.name.is_empty() {
            id.uid.clone().unwrap_or_default()
        } else {
            format!("{}/{}", id.namespace, id.name)
        },
        field,
        problem,
    };
    for (field, pointer) in EVENT_COUNTS {
        match object.pointer(pointer) {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v <= i32::MAX as u64) => {}
            Some(other) => {
                return Err(bad(field, format!("{other} is not a count; expected an integer from 0 to 2147483647")))
            }
        }
    }
    for (field, pointer) in EVENT_TIMES {
        match object.pointer(pointer) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.is_empty() => {}
            // chrono reads second 60 as a leap second; Kubernetes never
            // writes one (Go's `time.Parse`, which the API server reads
            // times with, refuses it) and DuckDB cannot store one: the
            // event is an input error rather than stored with another of
            // its times (break-it 41 G7).
            Some(Value::String(s)) if DateTime::parse_from_rfc3339(s).is_ok_and(|t| is_leap_second(&t)) => {
                return Err(bad(
                    field,
                    format!(
                        "\"{s}\" is a leap second (second 60), which Kubernetes never writes; expected RFC 3339 \
                         with seconds 00 to 59, e.g. 2026-11-28T04:00:00Z"
                    ),
                ))
            }
            Some(Value::String(s)) if DateTime::parse_from_rfc3339(s).is_ok() => {}
            Some(other) => {
                return Err(bad(field, format!("{other} is not a time; expected RFC 3339, e.g. 2026-11-28T04:00:00Z")))
            }
        }
    }
    // events.k8s.io/v1 `series` (EventSeries: count, lastObservedTime):
    // text or a list was read as no series, count 1 (break-it 44 L1).
    if let Some(v) = object.get("series") {
        if !v.is_object() && !v.is_null() {
            return Err(bad(
                "series",
                format!("{v} is not an event series; expected a mapping with count and lastObservedTime"),
            ));
        }
    }
    for (field, pointer) in [("involvedObject", "/involvedObject"), ("regarding", "/regarding")] {
        if let Some(v) = object.pointer(pointer) {
            if !v.is_object() && !v.is_null() {
                return Err(bad(
                    field,
                    format!("{v} is not an object reference; expected a mapping with kind, namespace, name"),
                ));
            }
        }
    }
    Ok(())
}

/// Whether chrono read `t` with second 60 (a leap second: chrono keeps it
/// as 1,000,000,000 nanoseconds or more into the second before).
pub(crate) fn is_leap_second<Tz: chrono::TimeZone>(t: &DateTime<Tz>) -> bool {
    chrono::Timelike::nanosecond(t) >= 1_000_000_000
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str()
}

/// Kind inferred from an object's shape when `kind` is missing (items of old
/// lists often omit it). Returns `None` when the shape is not recognised.
pub fn infer_kind(object: &Value) -> Option<&'static str> {
    if object.get("involvedObject").is_some() || object.get("regarding").is_some() {
        return Some("Event");
    }
    if object.pointer("/spec/containers").is_some() {
        return Some("Pod");
    }
    if object.pointer("/status/nodeInfo").is_some()
        || object.pointer("/status/allocatable").is_some()
        || object.pointer("/status/capacity").is_some()
    {
        return Some("Node");
    }
    None
}

/// The default `apiVersion` of a kind when a document omits it.
pub fn default_api_version(kind: &str, object: &Value) -> &'static str {
    match kind {
        "Event" if object.get("regarding").is_some() || object.get("note").is_some() => "events.k8s.io/v1",
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => "apps/v1",
        "Job" | "CronJob" => "batch/v1",
        "PodDisruptionBudget" => "policy/v1",
        "PriorityClass" => "scheduling.k8s.io/v1",
        _ => "v1",
    }
}

/// The identity fields of an object and the JSON type each must have when
/// present and not null.
const IDENTITY_FIELDS: [(&str, &str, bool); 7] = [
    ("kind", "/kind", false),
    ("apiVersion", "/apiVersion", false),
    ("metadata", "/metadata", true),
    ("metadata.name", "/metadata/name", false),
    ("metadata.namespace", "/metadata/namespace", false),
    ("metadata.uid", "/metadata/uid", false),
    ("metadata.resourceVersion", "/metadata/resourceVersion", false),
];

/// What a JSON value is, for an error: `the number 7`, `the boolean true`,
/// `a list`, `an object`, `a string` (lists and objects are not quoted: they
/// may hold anything).
pub fn json_kind(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// Checks that the identity fields of `object` (a mapping) have their JSON
/// types when present and not null: `kind`, `apiVersion`,
/// `metadata.name`, `.namespace`, `.uid`, `.resourceVersion` strings,
/// `metadata` an object (the Kubernetes API's types).
///
/// # Errors
/// [`IdentityError::WrongType`] naming the first field of the wrong type,
/// the type expected and what it holds.
pub fn check_identity_types(object: &Value) -> Result<(), IdentityError> {
    for (field, pointer, is_object) in IDENTITY_FIELDS {
        let ok = match object.pointer(pointer) {
            None | Some(Value::Null) => true,
            Some(v) => {
                if is_object {
                    v.is_object()
                } else {
                    v.is_string()
                }
            }
        };
        if !ok {
            let found = object.pointer(pointer).map(json_kind).unwrap_or_default();
            let kind = object.get("kind").and_then(Value::as_str).filter(|k| !k.is_empty());
            let name = object.pointer("/metadata/name").and_then(Value::as_str).filter(|n| !n.is_empty());
            let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
            let object = object_prefix(kind, name, namespace);
            let expected = if is_object { "an object" } else { "a string" };
            return Err(IdentityError::WrongType { object, field, expected, found });
        }
    }
    Ok(())
}

/// `Kind namespace/name: ` (the parts that are there) for an error about
/// an object, control characters written visibly; empty without a name.
fn object_prefix(kind: Option<&str>, name: Option<&str>, namespace: &str) -> String {
    use kdrift_rebalance::visible;
    let (namespace, name) = (visible(namespace), name.map(visible));
    match (kind.map(visible), name) {
        (Some(k), Some(n)) if namespace.is_empty() => format!("{k} {n}: "),
        (Some(k), Some(n)) => format!("{k} {namespace}/{n}: "),
        (None, Some(n)) if namespace.is_empty() => format!("{n}: "),
        (None, Some(n)) => format!("{namespace}/{n}: "),
        _ => String::new(),
    }
}

/// The names of an object the store keeps and prints, by kind: its own
/// (`metadata.namespace`, `metadata.name`), and an Event's involved
/// object's (core/v1 `involvedObject`, events.k8s.io/v1 `regarding`).
const NAME_FIELDS: [(&str, &str, bool); 6] = [
    ("metadata.namespace", "/metadata/namespace", false),
    ("metadata.name", "/metadata/name", false),
    ("involvedObject.namespace", "/involvedObject/namespace", true),
    ("involvedObject.name", "/involvedObject/name", true),
    ("regarding.namespace", "/regarding/namespace", true),
    ("regarding.name", "/regarding/name", true),
];

/// Checks that `kind` and the names of `object` hold no control
/// character nor a byte-order mark (`kdrift_rebalance::first_control`;
/// [`NAME_FIELDS`]; an Event's involved object's too).
///
/// # Errors
/// [`IdentityError::ControlCharacter`] naming the first such field.
pub fn check_names(object: &Value, kind: &str) -> Result<(), IdentityError> {
    // Nor does a kind (break-it 43 L1: an Event of kind `\u{feff}Event`
    // was stored as an object of that kind).
    if let Some(character) = kdrift_rebalance::first_control(kind) {
        let name = object.pointer("/metadata/name").and_then(Value::as_str).filter(|n| !n.is_empty());
        let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
        return Err(IdentityError::ControlCharacter {
            object: object_prefix(None, name, namespace),
            field: "kind",
            shown: kdrift_rebalance::visible(kind).into_owned(),
            character,
        });
    }
    for (field, pointer, event_only) in NAME_FIELDS {
        if event_only && kind != "Event" {
            continue;
        }
        let Some(value) = object.pointer(pointer).and_then(Value::as_str) else { continue };
        let Some(character) = kdrift_rebalance::first_control(value) else { continue };
        let name = object.pointer("/metadata/name").and_then(Value::as_str).filter(|n| !n.is_empty());
        let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
        return Err(IdentityError::ControlCharacter {
            object: object_prefix(Some(kind), name, namespace),
            field,
            shown: kdrift_rebalance::visible(value).into_owned(),
            character,
        });
    }
    Ok(())
}

/// Kinds that exist to carry a credential, never stored
/// ([`IdentityError::Credential`]; Secrets have their own variant):
/// `authentication.k8s.io` TokenRequest (`status.token`) and TokenReview
/// (`spec.token`), `client.authentication.k8s.io` ExecCredential
/// (`status.token`, client keys).
pub const CREDENTIAL_KINDS: [&str; 3] = ["TokenRequest", "TokenReview", "ExecCredential"];

/// The [`CREDENTIAL_KINDS`] entry `kind` is (any case, blanks around it).
pub fn credential_kind(kind: &str) -> Option<&'static str> {
    CREDENTIAL_KINDS.iter().copied().find(|k| k.eq_ignore_ascii_case(kind.trim()))
}

/// Members only a kubeconfig has at its top level (client-go's
/// `clientcmd/api/v1` `Config`).
const KUBECONFIG_MEMBERS: [&str; 4] = ["clusters", "users", "contexts", "current-context"];

/// Whether `object` is a kubeconfig: `kind: Config` (any case, blanks
/// around it) with `apiVersion` `v1` or none, or with a member only a
/// kubeconfig has (`clusters`, `users`, `contexts`, `current-context`). A
/// `Config` of an API group (OpenShift's
/// `imageregistry.operator.openshift.io/v1`) without those members is an
/// ordinary object of unknown kind.
pub fn is_kubeconfig(object: &serde_json::Map<String, Value>) -> bool {
    let kind = object.get("kind").and_then(Value::as_str).map(str::trim);
    if !kind.is_some_and(|k| k.eq_ignore_ascii_case("Config")) {
        return false;
    }
    let version = object.get("apiVersion").and_then(Value::as_str).map(str::trim).unwrap_or("");
    matches!(version, "" | "v1") || KUBECONFIG_MEMBERS.iter().any(|m| object.contains_key(*m))
}

/// Fills in `kind` and `apiVersion` when missing, then reads the identity.
///
/// # Errors
/// [`IdentityError`] when the document is not an object, an identity field
/// has the wrong JSON type ([`check_identity_types`]), its kind cannot be
/// known, it is a kubeconfig ([`IdentityError::Kubeconfig`]), or it has
/// neither a name nor a uid.
pub fn identify(object: &mut Value, kind_hint: Option<&str>) -> Result<Identity, IdentityError> {
    match object {
        Value::Object(_) => {}
        Value::Null => return Err(IdentityError::NotAnObject("null")),
        Value::Array(_) => return Err(IdentityError::NotAnObject("a list")),
        Value::String(_) => return Err(IdentityError::NotAnObject("a string")),
        Value::Number(_) => return Err(IdentityError::NotAnObject("a number")),
        Value::Bool(_) => return Err(IdentityError::NotAnObject("a boolean")),
    };
    check_identity_types(object)?;
    let Value::Object(map) = object else { return Err(IdentityError::NotAnObject("a mapping")) };
    let kind = match map.get("kind").and_then(Value::as_str).filter(|k| !k.is_empty()) {
        Some(k) => k.to_string(),
        None => {
            let inferred =
                kind_hint.or_else(|| infer_kind(&Value::Object(map.clone()))).ok_or(IdentityError::NoKind)?;
            map.insert("kind".into(), Value::String(inferred.to_string()));
            inferred.to_string()
        }
    };
    if is_kubeconfig(map) {
        return Err(IdentityError::Kubeconfig);
    }
    if map.get("apiVersion").and_then(Value::as_str).filter(|v| !v.is_empty()).is_none() {
        let v = default_api_version(&kind, &Value::Object(map.clone()));
        map.insert("apiVersion".into(), Value::String(v.to_string()));
    }
    let object = &*object;
    let api_version = str_at(object, &["apiVersion"]).unwrap_or("v1").to_string();
    let namespace = str_at(object, &["metadata", "namespace"]).unwrap_or("").to_string();
    let uid = str_at(object, &["metadata", "uid"]).filter(|s| !s.is_empty()).map(str::to_string);
    let name = str_at(object, &["metadata", "name"]).unwrap_or("").to_string();
    if name.is_empty() && uid.is_none() {
        return Err(IdentityError::NoName { kind: kdrift_rebalance::visible(&kind).into_owned() });
    }
    check_names(object, &kind)?;
    let resource_version =
        str_at(object, &["metadata", "resourceVersion"]).filter(|s| !s.is_empty()).map(str::to_string);
    let id = Identity { kind, api_version, namespace, name, uid, resource_version };
    if id.kind == "Event" {
        validate_event(object, &id)?;
    }
    Ok(id)
}

/// FNV-1a 64 over the change, apiVersion, kind and the object's JSON text:
/// the store's dedupe key. Stable across Rust versions and platforms (unlike
/// `std`'s hashers), so a store written by one build dedupes against another.
pub fn content_hash(change: Change, identity: &Identity, json: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    for part in [change.as_str(), "\0", &identity.api_version, "\0", &identity.kind, "\0", json] {
        for b in part.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(PRIME);
        }
    }
    h
}

/// The newest RFC 3339 timestamp found anywhere in the object (keys ending in
/// `Time`, `Timestamp`, `At`, or `startTime`): the earliest instant at which
/// this version is known to have existed. Used as the observation time of a
/// dump, which records none of its own.
pub fn newest_timestamp(object: &Value) -> Option<DateTime<Utc>> {
    fn walk(v: &Value, key: Option<&str>, best: &mut Option<DateTime<Utc>>) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    walk(child, Some(k), best);
                }
            }
            Value::Array(items) => {
                for child in items {
                    walk(child, key, best);
                }
            }
            Value::String(s) => {
                let time_key =
                    key.is_some_and(|k| k.ends_with("Time") || k.ends_with("Timestamp") || k.ends_with("At"));
                if time_key {
                    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
                        let t = t.with_timezone(&Utc);
                        if best.is_none_or(|b| t > b) {
                            *best = Some(t);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    walk(object, None, &mut best);
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identify_fills_kind_and_api_version_from_shape() {
        let mut v = json!({"metadata": {"name": "e1", "namespace": "default"}, "involvedObject": {"kind": "Pod"}});
        let id = identify(&mut v, None).expect("identity");
        assert_eq!(id.kind, "Event");
        assert_eq!(id.api_version, "v1");
        assert_eq!(v["kind"], "Event");
        let mut v = json!({"metadata": {"name": "e1"}, "regarding": {"kind": "Pod"}, "note": "x"});
        assert_eq!(identify(&mut v, None).expect("id").api_version, "events.k8s.io/v1");
    }

    #[test]
    fn identify_rejects_nameless_and_non_objects() {
        let mut v = json!({"kind": "Pod", "metadata": {}});
        assert_eq!(identify(&mut v, None), Err(IdentityError::NoName { kind: "Pod".into() }));
        let mut v = json!([1, 2]);
        assert_eq!(identify(&mut v, None), Err(IdentityError::NotAnObject("a list")));
        let mut v = json!({"metadata": {"name": "x"}});
        assert_eq!(identify(&mut v, None), Err(IdentityError::NoKind));
    }

    #[test]
    fn a_kubeconfig_is_refused_with_or_without_a_name_and_an_api_groups_config_is_not() {
        // Break-it 34: `kind: Config` with a metadata.name was stored
        // verbatim as an unknown kind, its user's token with it.
        let user = json!([{"name": "u", "user": {"token": "kubeconfig-token-9f8e7d"}}]);
        for mut v in [
            json!({"apiVersion": "v1", "kind": "Config", "metadata": {"name": "mine"}, "users": user}),
            json!({"apiVersion": "v1", "kind": "Config", "users": user}),
            json!({"kind": " config ", "metadata": {"name": "mine"}, "current-context": "c"}),
            json!({"apiVersion": "x.example/v1", "kind": "Config", "metadata": {"name": "m"}, "clusters": []}),
        ] {
            assert_eq!(identify(&mut v, None), Err(IdentityError::Kubeconfig), "{v}");
        }
        assert!(IdentityError::Kubeconfig
            .to_string()
            .starts_with("a kubeconfig (kind Config), not cluster history: not stored (it holds credentials)"));
        let mut operator = json!({"apiVersion": "imageregistry.operator.openshift.io/v1", "kind": "Config",
                                  "metadata": {"name": "cluster"}, "spec": {"replicas": 2}});
        assert_eq!(identify(&mut operator, None).map(|id| id.name), Ok("cluster".to_string()));
    }

    #[test]
    fn identity_fields_of_the_wrong_type_are_errors_naming_field_and_type() {
        // Break-it 34 L2: uid 7 was stored as null, kind 5 replaced, apiVersion ["v1"] defaulted.
        let ok = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e5", "namespace": "d",
                        "uid": "u5", "resourceVersion": "15"}, "involvedObject": {}});
        assert!(identify(&mut ok.clone(), None).is_ok());
        for (pointer, value, expected) in [
            ("/metadata/uid", json!(7), "Event d/e5: metadata.uid: expected a string, found the number 7"),
            ("/kind", json!(5), "d/e5: kind: expected a string, found the number 5"),
            ("/metadata/namespace", json!(7), "Event e5: metadata.namespace: expected a string, found the number 7"),
            ("/apiVersion", json!(["v1"]), "Event d/e5: apiVersion: expected a string, found a list"),
            ("/metadata/name", json!(true), "metadata.name: expected a string, found the boolean true"),
            (
                "/metadata/resourceVersion",
                json!(15),
                "Event d/e5: metadata.resourceVersion: expected a string, found the number 15",
            ),
            ("/metadata", json!("x"), "metadata: expected an object, found a string"),
        ] {
            let mut v = ok.clone();
            *v.pointer_mut(pointer).expect(pointer) = value;
            assert_eq!(identify(&mut v, None).expect_err(pointer).to_string(), expected);
        }
        // Null is absence, as the API server reads it.
        let mut v = ok.clone();
        v["metadata"]["uid"] = Value::Null;
        assert_eq!(identify(&mut v, None).expect("null uid").uid, None);
    }

    #[test]
    fn event_fields_are_validated() {
        let ok = json!({"kind": "Event", "metadata": {"name": "e", "namespace": "d"}, "count": 3,
                        "firstTimestamp": "2026-11-27T06:00:00+02:00", "eventTime": null, "involvedObject": {}});
        assert!(identify(&mut ok.clone(), None).is_ok());
        for (field, value, needle) in [
            ("count", json!("abc"), "count: \"abc\" is not a count"),
            ("count", json!(2.5), "count: 2.5 is not a count"),
            ("count", json!(3_000_000_000u64), "count: 3000000000 is not a count"),
            ("lastTimestamp", json!("yesterday"), "lastTimestamp: \"yesterday\" is not a time"),
            // Break-it 41 G7: stored with the firstTimestamp instead.
            (
                "lastTimestamp",
                json!("2026-11-20T23:59:60Z"),
                "lastTimestamp: \"2026-11-20T23:59:60Z\" is a leap second (second 60), which Kubernetes never writes",
            ),
            ("eventTime", json!("2026-11-20T23:59:60.5+01:00"), "eventTime: \"2026-11-20T23:59:60.5+01:00\" is a leap"),
            ("involvedObject", json!("d/p6"), "involvedObject: \"d/p6\" is not an object reference"),
            // Break-it 44 L1: stored as no series, count 1.
            ("series", json!("x"), "series: \"x\" is not an event series"),
            ("series", json!([1, 2]), "series: [1,2] is not an event series"),
        ] {
            let mut v = ok.clone();
            v[field] = value;
            let err = identify(&mut v, None).expect_err(field).to_string();
            assert!(err.contains(needle), "{err}");
            assert!(err.starts_with("Event d/e: "), "{err}");
        }
    }

    #[test]
    fn hash_differs_by_change_and_content() {
        let id = Identity {
            kind: "Pod".into(),
            api_version: "v1".into(),
            namespace: "a".into(),
            name: "b".into(),
            uid: None,
            resource_version: None,
        };
        let a = content_hash(Change::Listed, &id, "{}");
        assert_eq!(a, content_hash(Change::Listed, &id, "{}"));
        assert_ne!(a, content_hash(Change::Deleted, &id, "{}"));
        assert_ne!(a, content_hash(Change::Listed, &id, "{ }"));
    }

    #[test]
    fn newest_timestamp_walks_nested_times() {
        let v = json!({"metadata": {"creationTimestamp": "2019-03-08T08:55:25Z"},
                       "status": {"conditions": [{"lastTransitionTime": "2019-03-08T09:00:00Z"}]},
                       "message": "2030-01-01T00:00:00Z"});
        let t = newest_timestamp(&v).expect("time");
        assert_eq!(t.to_rfc3339(), "2019-03-08T09:00:00+00:00");
    }
}
