//! Schema-guided type restoration. VictoriaLogs stores every value as a
//! string (`"count": "7"`, `"unschedulable": "true"`) and every array as JSON
//! text; only the Kubernetes schema says which strings were numbers,
//! booleans or arrays (`resourceVersion: "12345"` and quantities such as
//! `cpu: "2"` are strings in the API, too).
//!
//! The schema is k8s-openapi's: the row is deserialized into the typed
//! object through [`Coerce`], a deserializer that accepts a string wherever
//! the type wants a number, a boolean, a list or a map. The typed value then
//! serves as an oracle only ([`restore`]): the stored object keeps every
//! field it had (fields outside the schema too, such as the exporter's
//! `involvedObject.labels`), with the scalar types the schema gives.

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Serialize;
use serde_json::{Map, Value};

use super::unflatten::parse_json_arrays;

type Error = serde_json::Error;

/// A deserializer over an owned JSON value that coerces strings into the
/// numbers, booleans, lists and maps the target type asks for.
struct Coerce(Value);

fn parse_json(s: &str, open: char) -> Option<Value> {
    let t = s.trim();
    if t.starts_with(open) {
        serde_json::from_str(t).ok()
    } else {
        None
    }
}

impl Coerce {
    fn number<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Value::String(s) = &self.0 {
            let t = s.trim();
            if let Ok(i) = t.parse::<i64>() {
                return visitor.visit_i64(i);
            }
            if let Ok(u) = t.parse::<u64>() {
                return visitor.visit_u64(u);
            }
            if let Ok(f) = t.parse::<f64>() {
                return visitor.visit_f64(f);
            }
        }
        self.deserialize_any(visitor)
    }
}

macro_rules! numbers {
    ($($m:ident),*) => {
        $(fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.number(visitor)
        })*
    };
}

impl<'de> Deserializer<'de> for Coerce {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visitor.visit_seq(Seq(items.into_iter())),
            Value::Object(map) => visitor.visit_map(Obj { iter: map.into_iter(), value: None }),
        }
    }

    numbers!(
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_f32,
        deserialize_f64
    );

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.0 {
            Value::String(s) if s == "true" => visitor.visit_bool(true),
            Value::String(s) if s == "false" => visitor.visit_bool(false),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Coerce(other)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.0 {
            Value::String(s) => match parse_json(s, '[') {
                Some(parsed) => Coerce(parsed).deserialize_any(visitor),
                None => self.deserialize_any(visitor),
            },
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.0 {
            Value::String(s) => match parse_json(s, '{') {
                Some(parsed) => Coerce(parsed).deserialize_any(visitor),
                None => self.deserialize_any(visitor),
            },
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct tuple_struct identifier ignored_any i128 u128
    }
}

struct Seq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Seq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|v| seed.deserialize(Coerce(v))).transpose()
    }
}

struct Obj {
    iter: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Obj {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(Coerce(Value::String(k))).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(Coerce(self.value.take().unwrap_or(Value::Null)))
    }
}

/// Why the schema rejected an object: the path of the value it rejected
/// (empty when it names none, e.g. a missing field's parent) and the error.
struct Rejection {
    path: Vec<serde_path_to_error::Segment>,
    error: Error,
}

fn through<T: DeserializeOwned + Serialize>(object: &Value) -> Result<Value, Rejection> {
    let typed: T = serde_path_to_error::deserialize(Coerce(object.clone()))
        .map_err(|e| Rejection { path: e.path().iter().cloned().collect(), error: e.into_inner() })?;
    serde_json::to_value(typed).map_err(|error| Rejection { path: Vec::new(), error })
}

type Oracle = fn(&Value) -> Result<Value, Rejection>;

/// Most values one object's schema may reject and still have its other
/// fields typed: past them, it is restored schema-free.
const MAX_REJECTED_VALUES: usize = 8;

/// Longest text of a rejected value quoted in [`Typing::Rejected`], characters.
const SHOWN_VALUE_CHARS: usize = 120;

/// Takes the value at `path` out of `value` (a list or map inside a JSON
/// string, as VictoriaLogs keeps them, parsed on the way), `None` when the
/// path leads nowhere.
fn take_at(value: &mut Value, path: &[serde_path_to_error::Segment]) -> Option<Value> {
    use serde_path_to_error::Segment;
    fn parsed(at: &mut Value) -> Option<()> {
        if let Value::String(text) = at {
            *at = serde_json::from_str::<Value>(text).ok().filter(|v| v.is_array() || v.is_object())?;
        }
        Some(())
    }
    let (last, parents) = path.split_last()?;
    let mut at = value;
    for segment in parents {
        parsed(at)?;
        at = match (segment, at) {
            (Segment::Map { key }, Value::Object(map)) => map.get_mut(key)?,
            (Segment::Seq { index }, Value::Array(items)) => items.get_mut(*index)?,
            _ => return None,
        };
    }
    parsed(at)?;
    match (last, at) {
        (Segment::Map { key }, Value::Object(map)) => map.remove(key),
        // A list item: replaced by null, so the other items keep their places.
        (Segment::Seq { index }, Value::Array(items)) => items.get_mut(*index).map(Value::take),
        _ => None,
    }
}

/// `path` as a field path: `lastTimestamp`, `status.conditions[0].type`.
fn shown_path(path: &[serde_path_to_error::Segment]) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Unknown => out.push_str(".?"),
        }
    }
    out
}

/// `value` as JSON text, cut at [`SHOWN_VALUE_CHARS`] with `…`.
fn shown_value(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(SHOWN_VALUE_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// The typed form of the kinds kdrift stores and reads, by `apiVersion` and `kind`.
fn oracle(api_version: &str, kind: &str) -> Option<Oracle> {
    use k8s_openapi::api::{apps, batch, core, events, policy, scheduling};
    Some(match (api_version, kind) {
        ("v1", "Event") => through::<core::v1::Event>,
        ("events.k8s.io/v1", "Event") => through::<events::v1::Event>,
        ("v1", "Pod") => through::<core::v1::Pod>,
        ("v1", "Node") => through::<core::v1::Node>,
        ("v1", "Namespace") => through::<core::v1::Namespace>,
        ("apps/v1", "ReplicaSet") => through::<apps::v1::ReplicaSet>,
        ("apps/v1", "Deployment") => through::<apps::v1::Deployment>,
        ("apps/v1", "StatefulSet") => through::<apps::v1::StatefulSet>,
        ("apps/v1", "DaemonSet") => through::<apps::v1::DaemonSet>,
        ("batch/v1", "Job") => through::<batch::v1::Job>,
        ("batch/v1", "CronJob") => through::<batch::v1::CronJob>,
        ("policy/v1", "PodDisruptionBudget") => through::<policy::v1::PodDisruptionBudget>,
        ("scheduling.k8s.io/v1", "PriorityClass") => through::<scheduling::v1::PriorityClass>,
        _ => return None,
    })
}

/// How the types of an object were restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typing {
    /// Through the kind's schema.
    Schema,
    /// No schema for this kind: JSON-array strings parsed, other strings kept.
    SchemaFree,
    /// The schema rejected a value (the message says which); schema-free restoration was used.
    Rejected(String),
}

/// Restores the scalar types of a flattened-and-rebuilt object in place,
/// using the schema of its `apiVersion`/`kind` when kdrift has one.
pub fn restore_types(object: &mut Value) -> Typing {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or("v1").to_string();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
    let Some(oracle) = oracle(&api_version, &kind) else {
        parse_json_arrays(object);
        return Typing::SchemaFree;
    };
    // A value the schema rejects (a `lastTimestamp` that is no time) is
    // named and kept as it is, and the others are typed without it: before,
    // the whole object fell back to text, and the store then blamed a
    // field the schema would have typed (`count: "7" is not a count`;
    // break-it 34).
    let mut trial = object.clone();
    let mut rejected: Vec<String> = Vec::new();
    loop {
        match oracle(&trial) {
            Ok(typed) if rejected.is_empty() => {
                restore(object, &typed);
                return Typing::Schema;
            }
            Ok(typed) => {
                restore(object, &typed);
                return Typing::Rejected(format!(
                    "{kind} {api_version}: {} (kept as text; the other fields typed by the schema)",
                    rejected.join("; ")
                ));
            }
            Err(Rejection { path, error }) => {
                let taken = (rejected.len() < MAX_REJECTED_VALUES).then(|| take_at(&mut trial, &path)).flatten();
                let Some(value) = taken else {
                    parse_json_arrays(object);
                    let at = if path.is_empty() { String::new() } else { format!("{}: ", shown_path(&path)) };
                    rejected.push(format!("{at}{error}"));
                    return Typing::Rejected(format!(
                        "{kind} {api_version}: {} (every field kept as text)",
                        rejected.join("; ")
                    ));
                };
                rejected.push(format!("{} {} rejected ({error})", shown_path(&path), shown_value(&value)));
            }
        }
    }
}

/// Gives each string of `value` the type `typed` has at the same place:
/// numbers and booleans from the schema, lists and maps parsed from their
/// JSON text. Fields the schema does not know get schema-free restoration.
pub fn restore(value: &mut Value, typed: &Value) {
    match (value, typed) {
        (Value::Object(map), Value::Object(t)) => restore_map(map, t),
        (v @ Value::String(_), Value::Number(_) | Value::Bool(_)) => *v = typed.clone(),
        (v @ Value::String(_), Value::Array(_) | Value::Object(_)) => {
            let parsed = v.as_str().and_then(|s| serde_json::from_str::<Value>(s).ok());
            *v = match parsed {
                Some(p) if p.is_array() == typed.is_array() => p,
                _ => typed.clone(),
            };
        }
        _ => {}
    }
}

fn restore_map(map: &mut Map<String, Value>, typed: &Map<String, Value>) {
    for (k, v) in map.iter_mut() {
        match typed.get(k) {
            Some(t) => restore(v, t),
            None => parse_json_arrays(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn event_counts_and_series_become_numbers_and_strings_stay() {
        let mut ev = json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "e", "namespace": "d", "resourceVersion": "12345"},
            "involvedObject": {"kind": "Pod", "name": "p", "labels": {"app": "x"},
                               "ownerReferences": "[{\"kind\":\"Job\",\"name\":\"j\",\"controller\":true}]"},
            "count": "7", "series": {"count": "3", "lastObservedTime": "2026-11-28T04:00:00.123456Z"},
            "reason": "1234", "eventTime": "2026-11-28T04:00:00.5Z"
        });
        assert_eq!(restore_types(&mut ev), Typing::Schema);
        assert_eq!(ev["count"], 7);
        assert_eq!(ev["series"]["count"], 3);
        assert_eq!(ev["metadata"]["resourceVersion"], "12345");
        assert_eq!(ev["reason"], "1234");
        assert_eq!(ev["eventTime"], "2026-11-28T04:00:00.5Z", "times keep their stored text");
        assert_eq!(ev["involvedObject"]["labels"]["app"], "x", "fields outside the schema are kept");
        assert_eq!(ev["involvedObject"]["ownerReferences"][0]["controller"], true);
    }

    #[test]
    fn node_booleans_quantities_and_lists() {
        let mut node = json!({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "generation": "2"},
            "spec": {"unschedulable": "true", "taints": "[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]"},
            "status": {"allocatable": {"cpu": "2", "gpu.intel.com/i915": "1"},
                       "daemonEndpoints": {"kubeletEndpoint": {"Port": "10250"}},
                       "conditions": "[{\"type\":\"Ready\",\"status\":\"True\"}]"}
        });
        assert_eq!(restore_types(&mut node), Typing::Schema);
        assert_eq!(node["spec"]["unschedulable"], true);
        assert_eq!(node["metadata"]["generation"], 2);
        assert_eq!(node["status"]["allocatable"]["cpu"], "2");
        assert_eq!(node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"], 10250);
        assert_eq!(node["spec"]["taints"][0]["effect"], "NoSchedule");
        assert_eq!(node["status"]["conditions"][0]["status"], "True");
    }

    #[test]
    fn a_value_the_schema_rejects_falls_back_without_losing_the_row() {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                             "spec": {"priority": "high", "containers": "[{\"name\":\"c\"}]"}});
        let typing = restore_types(&mut pod);
        assert!(matches!(typing, Typing::Rejected(ref m) if m.contains("Pod v1")), "{typing:?}");
        assert_eq!(pod["spec"]["priority"], "high");
        assert_eq!(pod["spec"]["containers"][0]["name"], "c");
    }

    #[test]
    fn a_rejected_value_is_named_and_the_other_fields_are_still_typed() {
        // Break-it 34: a garbage lastTimestamp left `count: "7"` text, and
        // the store blamed `count`.
        let mut ev = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "d"},
                            "involvedObject": {"kind": "Pod", "name": "p"}, "count": "7",
                            "lastTimestamp": "not-a-time", "series": {"count": "3"}});
        let typing = restore_types(&mut ev);
        let Typing::Rejected(why) = typing else { panic!("{typing:?}") };
        assert!(why.starts_with("Event v1: lastTimestamp \"not-a-time\" rejected ("), "{why}");
        assert!(why.ends_with("(kept as text; the other fields typed by the schema)"), "{why}");
        assert_eq!((ev["count"].clone(), ev["series"]["count"].clone()), (json!(7), json!(3)));
        assert_eq!(ev["lastTimestamp"], "not-a-time");
        // Inside a list kept as JSON text, and two values at once.
        let mut node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "generation": "2"},
                              "spec": {"unschedulable": "yes",
                                       "taints": "[{\"key\":\"k\",\"effect\":\"NoSchedule\",\"timeAdded\":\"x\"}]"}});
        let Typing::Rejected(why) = restore_types(&mut node) else { panic!("rejected") };
        assert!(why.contains("spec.unschedulable \"yes\" rejected"), "{why}");
        assert!(why.contains("spec.taints[0].timeAdded \"x\" rejected"), "{why}");
        assert_eq!(node["metadata"]["generation"], 2);
        assert_eq!(node["spec"]["unschedulable"], "yes");
    }

    #[test]
    fn unknown_kinds_are_restored_without_a_schema() {
        let mut obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                             "spec": {"size": "3", "items": "[1,2]"}});
        assert_eq!(restore_types(&mut obj), Typing::SchemaFree);
        assert_eq!(obj["spec"]["size"], "3");
        assert_eq!(obj["spec"]["items"], json!([1, 2]));
    }
}
