//! Reading a YAML tree field by field, with the field path in every error.
//!
//! serde's derive would report "unknown field" without saying where; a policy
//! file is edited by hand and nested five levels deep, so every error here
//! names the full path (`profiles[0].pluginConfig[1].args.thresholds.cpu`).
//! `null` reads as "not set", as Kubernetes' decoder treats it.

use std::collections::BTreeMap;

use serde_yaml::{Mapping, Value};

use super::error::PolicyError;

/// Most characters of a string value quoted in an error.
const QUOTED: usize = 60;

/// A short description of a YAML value, for error messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        // A whole file that is no policy (`--policy /etc/passwd`) reads
        // as one string: quoted up to its first line, 60 characters at
        // most (new-user trial 46).
        // Masked before the cut, so that no cut credential shows in part
        // (break-it 46 L7: 15 characters of a `ghp_` token).
        Value::String(s) => {
            let masked = crate::redact::mask_shown(s.lines().next().unwrap_or_default());
            let first: String = masked.chars().take(QUOTED).collect();
            if first.len() < s.len() {
                format!("string {first:?}… ({} characters)", s.chars().count())
            } else {
                format!("string {s:?}")
            }
        }
        Value::Sequence(_) => "a list".to_string(),
        Value::Mapping(_) => "a mapping".to_string(),
        Value::Tagged(t) => format!("a value tagged {}", t.tag),
    }
}

/// `parent.key`, or `key` at the root.
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// A mapping being read, with its path.
pub(crate) struct Obj<'a> {
    pub(crate) path: String,
    pub(crate) map: &'a Mapping,
}

impl<'a> Obj<'a> {
    /// Reads `v` (at `path`) as a mapping.
    pub(crate) fn new(v: &'a Value, path: &str) -> Result<Obj<'a>, PolicyError> {
        match v {
            Value::Mapping(map) => Ok(Obj { path: path.to_string(), map }),
            other => Err(PolicyError::field(
                if path.is_empty() { "(document)" } else { path },
                format!("expected a mapping, got {}", describe(other)),
            )),
        }
    }

    /// Rejects any key not in `allowed` (and any non-string key), naming the
    /// first offending field and the accepted ones.
    pub(crate) fn only(&self, allowed: &[&str]) -> Result<(), PolicyError> {
        for k in self.map.keys() {
            match k.as_str() {
                Some(s) if allowed.contains(&s) => {}
                Some(s) => {
                    return Err(PolicyError::field(
                        &join(&self.path, s),
                        format!("unknown field (expected one of: {})", allowed.join(", ")),
                    ))
                }
                None => {
                    return Err(PolicyError::field(
                        &self.path,
                        format!("field names must be strings, got {}", describe(k)),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The value at `key`, `None` when absent or null.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        match self.map.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    /// The path of `key` below this mapping.
    pub(crate) fn at(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// A sub-mapping at `key`.
    pub(crate) fn obj(&self, key: &str) -> Result<Option<Obj<'a>>, PolicyError> {
        self.get(key).map(|v| Obj::new(v, &self.at(key))).transpose()
    }

    /// A string at `key`.
    pub(crate) fn str(&self, key: &str) -> Result<Option<String>, PolicyError> {
        self.get(key).map(|v| as_string(v, &self.at(key))).transpose()
    }

    /// A boolean at `key`.
    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, PolicyError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => {
                Err(PolicyError::field(&self.at(key), format!("expected true or false, got {}", describe(other))))
            }
        }
    }

    /// An integer at `key` within `[min, max]`.
    pub(crate) fn int(&self, key: &str, min: i64, max: i64) -> Result<Option<i64>, PolicyError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => as_int(v, &self.at(key), min, max).map(Some),
        }
    }

    /// A non-negative integer at `key` that fits Go's `uint` as descheduler
    /// uses it (kept to 32 bits here).
    pub(crate) fn uint(&self, key: &str) -> Result<Option<u32>, PolicyError> {
        Ok(self.int(key, 0, i64::from(u32::MAX))?.map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
    }

    /// A list at `key`.
    pub(crate) fn list(&self, key: &str) -> Result<Vec<(String, &'a Value)>, PolicyError> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Sequence(items)) => {
                Ok(items.iter().enumerate().map(|(i, v)| (format!("{}[{i}]", self.at(key)), v)).collect())
            }
            Some(other) => Err(PolicyError::field(&self.at(key), format!("expected a list, got {}", describe(other)))),
        }
    }

    /// A list of strings at `key`.
    pub(crate) fn str_list(&self, key: &str) -> Result<Vec<String>, PolicyError> {
        self.list(key)?.into_iter().map(|(path, v)| as_string(v, &path)).collect()
    }

    /// A `string → string` mapping at `key`.
    pub(crate) fn str_map(&self, key: &str) -> Result<BTreeMap<String, String>, PolicyError> {
        let mut out = BTreeMap::new();
        if let Some(o) = self.obj(key)? {
            for (k, v) in o.map {
                let name = as_string(k, &o.path)?;
                let path = join(&o.path, &name);
                out.insert(name, as_string(v, &path)?);
            }
        }
        Ok(out)
    }
}

/// A string (numbers and booleans are not silently turned into strings).
pub(crate) fn as_string(v: &Value, path: &str) -> Result<String, PolicyError> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(PolicyError::field(path, format!("expected a string, got {}", describe(other)))),
    }
}

/// An integer within `[min, max]`.
pub(crate) fn as_int(v: &Value, path: &str, min: i64, max: i64) -> Result<i64, PolicyError> {
    let n = match v {
        Value::Number(n) => n.as_i64(),
        _ => None,
    };
    match n {
        Some(n) if n >= min && n <= max => Ok(n),
        _ => Err(PolicyError::field(path, format!("expected an integer in [{min}, {max}], got {}", describe(v)))),
    }
}

/// A number (integer or float).
pub(crate) fn as_f64(v: &Value, path: &str) -> Result<f64, PolicyError> {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.is_finite() => Ok(f),
            _ => Err(PolicyError::field(path, format!("expected a finite number, got {}", describe(v)))),
        },
        other => Err(PolicyError::field(path, format!("expected a number, got {}", describe(other)))),
    }
}

/// A YAML number for `f`: an integer when `f` has no fraction (so `20`
/// round-trips as `20`, not `20.0`).
pub(crate) fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::Number((f as i64).into())
    } else {
        Value::Number(f.into())
    }
}

/// A string YAML value.
pub(crate) fn string(s: &str) -> Value {
    Value::String(s.to_string())
}

/// A list of strings as a YAML sequence.
pub(crate) fn strings(items: &[String]) -> Value {
    Value::Sequence(items.iter().map(|s| string(s)).collect())
}

/// Builds a mapping from `(key, value)` pairs, skipping `None` values.
pub(crate) fn mapping(pairs: Vec<(&str, Option<Value>)>) -> Value {
    let mut m = Mapping::new();
    for (k, v) in pairs {
        if let Some(v) = v {
            m.insert(string(k), v);
        }
    }
    Value::Mapping(m)
}

/// A `string → string` map as a YAML mapping.
pub(crate) fn str_map_value(map: &BTreeMap<String, String>) -> Value {
    let mut m = Mapping::new();
    for (k, v) in map {
        m.insert(string(k), string(v));
    }
    Value::Mapping(m)
}
