//! Tolerant reading of stored API objects as `serde_json::Value`.
//!
//! Missing and `null` fields read as "not set" (old dumps and partial objects
//! are full of both); a field of the wrong JSON type is an error naming the
//! object and the field, because silently dropping e.g. a request would make
//! every later explanation wrong.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::error::ModelError;
use crate::model::quantity;
use crate::model::resources::ResourceList;

/// The object being read (for error messages) and helpers bound to it.
pub(crate) struct Reader {
    /// `pod default/x`, `node node-1`.
    pub(crate) object: String,
}

/// A short description of a JSON value's type, for error messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// `v[key]`, treating JSON `null` as absent.
pub(crate) fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v.get(key) {
        None | Some(Value::Null) => None,
        Some(x) => Some(x),
    }
}

/// Follows a path of keys, treating `null` anywhere as absent.
pub(crate) fn get_path<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for k in keys {
        cur = get(cur, k)?;
    }
    Some(cur)
}

impl Reader {
    pub(crate) fn new(object: String) -> Self {
        Reader { object }
    }

    pub(crate) fn bad(&self, field: &str, problem: String) -> ModelError {
        ModelError::BadField { object: self.object.clone(), field: field.to_string(), problem }
    }

    pub(crate) fn wrap(&self, field: &str, error: ModelError) -> ModelError {
        ModelError::InField { object: self.object.clone(), field: field.to_string(), error: Box::new(error) }
    }

    /// An optional string.
    pub(crate) fn opt_str(&self, v: Option<&Value>, field: &str) -> Result<Option<String>, ModelError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.bad(field, format!("expected a string, got {}", describe(other)))),
        }
    }

    /// An optional boolean.
    pub(crate) fn opt_bool(&self, v: Option<&Value>, field: &str) -> Result<Option<bool>, ModelError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.bad(field, format!("expected a boolean, got {}", describe(other)))),
        }
    }

    /// An optional integer (a JSON integer, or a string holding one, as some dumps write it).
    pub(crate) fn opt_i64(&self, v: Option<&Value>, field: &str) -> Result<Option<i64>, ModelError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => {
                n.as_i64().map(Some).ok_or_else(|| self.bad(field, format!("expected an integer, got number {n}")))
            }
            Some(Value::String(s)) => s
                .trim()
                .parse::<i64>()
                .map(Some)
                .map_err(|_| self.bad(field, format!("expected an integer, got string {s:?}"))),
            Some(other) => Err(self.bad(field, format!("expected an integer, got {}", describe(other)))),
        }
    }

    /// An optional 32-bit integer.
    pub(crate) fn opt_i32(&self, v: Option<&Value>, field: &str) -> Result<Option<i32>, ModelError> {
        match self.opt_i64(v, field)? {
            None => Ok(None),
            Some(n) => i32::try_from(n).map(Some).map_err(|_| self.bad(field, format!("{n} does not fit in 32 bits"))),
        }
    }

    /// An array; missing or null reads as empty.
    pub(crate) fn array<'a>(&self, v: Option<&'a Value>, field: &str) -> Result<&'a [Value], ModelError> {
        match v {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(a)) => Ok(a.as_slice()),
            Some(other) => Err(self.bad(field, format!("expected an array, got {}", describe(other)))),
        }
    }

    /// A list of strings; missing or null reads as empty.
    pub(crate) fn str_list(&self, v: Option<&Value>, field: &str) -> Result<Vec<String>, ModelError> {
        let mut out = Vec::new();
        for (i, item) in self.array(v, field)?.iter().enumerate() {
            match item {
                Value::String(s) => out.push(s.clone()),
                other => {
                    return Err(
                        self.bad(&format!("{field}[{i}]"), format!("expected a string, got {}", describe(other)))
                    )
                }
            }
        }
        Ok(out)
    }

    /// A string-to-string map (labels, annotations, nodeSelector); missing or null reads as empty.
    pub(crate) fn string_map(&self, v: Option<&Value>, field: &str) -> Result<BTreeMap<String, String>, ModelError> {
        let mut out = BTreeMap::new();
        match v {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (k, val) in m {
                    match val {
                        Value::String(s) => {
                            out.insert(k.clone(), s.clone());
                        }
                        // A null label value is how some tools write an empty one.
                        Value::Null => {
                            out.insert(k.clone(), String::new());
                        }
                        other => {
                            return Err(self
                                .bad(&format!("{field}.{k}"), format!("expected a string, got {}", describe(other))))
                        }
                    }
                }
            }
            Some(other) => return Err(self.bad(field, format!("expected an object, got {}", describe(other)))),
        }
        Ok(out)
    }

    /// A resource list (`requests`, `limits`, `overhead`, `allocatable`, `capacity`):
    /// each value is a quantity string (or a bare JSON number), converted with
    /// [`quantity::parse_amount`] (cpu to millicores, the rest to base units,
    /// negatives rejected).
    pub(crate) fn resource_list(&self, v: Option<&Value>, field: &str) -> Result<ResourceList, ModelError> {
        let mut out = ResourceList::new();
        match v {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (name, val) in m {
                    let path = format!("{field}.{name}");
                    let text = match val {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        Value::Null => continue,
                        other => {
                            return Err(self.bad(&path, format!("expected a quantity string, got {}", describe(other))))
                        }
                    };
                    let amount = quantity::parse_amount(name, &text).map_err(|e| self.wrap(&path, e))?;
                    out.set(name, amount);
                }
            }
            Some(other) => return Err(self.bad(field, format!("expected an object, got {}", describe(other)))),
        }
        Ok(out)
    }

    /// An optional RFC 3339 timestamp (`metav1.Time` / `MicroTime`).
    pub(crate) fn opt_time(&self, v: Option<&Value>, field: &str) -> Result<Option<DateTime<Utc>>, ModelError> {
        match self.opt_str(v, field)? {
            None => Ok(None),
            Some(s) if s.is_empty() => Ok(None),
            Some(s) => DateTime::parse_from_rfc3339(s.trim()).map(|t| Some(t.with_timezone(&Utc))).map_err(|_| {
                self.bad(field, format!("{s:?} is not an RFC 3339 timestamp (expected e.g. 2024-05-01T12:00:00Z)"))
            }),
        }
    }
}
