//! JSON values in which no object has the same key twice. serde_json keeps
//! the last of duplicate keys silently, so `{"metadata": {"name": "a",
//! "name": "b"}}` was stored as `b` with nothing said (kdrift issue 34).
//! kubectl, the API server and every exporter write each key once (the API
//! server's strict field validation refuses a duplicate field), so a
//! duplicate is a hand edit or a broken writer: the object is an input
//! error naming the key, its line and column, and the objects around it
//! load. [`Strict`] deserializes like [`serde_json::Value`] otherwise.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A [`Value`] read with every object's keys checked for duplicates.
#[derive(Debug, Clone, PartialEq)]
pub struct Strict(pub Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Strict::deserialize(deserializer).map(|s| s.0)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key {key:?} appears twice in one object (which value is meant is unknown)"
                )));
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::Strict;

    #[test]
    fn a_duplicate_key_at_any_depth_is_an_error_at_its_position() {
        let e =
            serde_json::from_str::<Strict>("{\"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\", \"name\": \"b\"}}")
                .expect_err("duplicate");
        assert_eq!(
            e.to_string(),
            "the key \"name\" appears twice in one object (which value is meant is unknown) at line 2 column 39"
        );
        assert!(serde_json::from_str::<Strict>("[{\"a\": 1}, {\"a\": 1, \"a\": 2}]").is_err());
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}, "big": 18446744073709551615}"#;
        let strict: Strict = serde_json::from_str(text).expect("strict");
        let plain: serde_json::Value = serde_json::from_str(text).expect("plain");
        assert_eq!(strict.0, plain);
        // Key order is kept (the workspace's serde_json keeps insertion order).
        let keys: Vec<&String> = strict.0.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["a", "b", "big"]);
    }
}
