//! JSON values in which no object has the same key twice, at any depth.
//! serde_json keeps the last of duplicate keys silently, so `{"metadata":
//! {"labels": {"app": "a", "app": "b"}}}` was read as `b` with nothing said
//! (kdrift issue 34). kubectl, the API server and every exporter write each
//! key once (the API server's strict field validation refuses a duplicate
//! field), so a duplicate is a hand edit or a broken writer or proxy: the
//! object holding it is an input error naming the key's path
//! (`items[3].metadata.labels.app`), and the objects around it are read.
//!
//! [`StrictValue`] (files: `kdrift_ingest`'s parsers) fails on the first
//! duplicate; [`parse_noting_duplicates`] (an API server's list response)
//! reads the whole body and names every duplicate's path, so that only the
//! items holding one are refused. Both read values as [`serde_json::Value`]
//! does otherwise. The path costs nothing until a duplicate is found: each
//! nested value's reader holds a link to its parent's key on the call
//! stack, walked only to name a duplicate.
//!
//! [`parse_within`] reads a value whose parsed size
//! ([`crate::parsed_size`]) may not pass a limit, counted as it is built:
//! a watch event of `[0,0,…]` takes 36 to 72 times its text parsed (break-it
//! 37 F9), and is given up once past the limit, not held whole first.
//! [`strict_bounded`] does so for any deserializer and also gives up when
//! asked to stop (looked at every [`VALUES_BETWEEN_STOPS`] values: SIGINT
//! inside a long parse, break-it 41 G4).

use std::cell::{Cell, RefCell};
use std::fmt::{self, Write};

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::parsed_size::{heap_bytes, map_slots, ENTRY_BYTES, VALUE_BYTES};

/// A [`Value`] read with every object's keys checked for duplicates: the
/// first one is a deserialization error naming its key and path.
#[derive(Debug, Clone, PartialEq)]
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<StrictValue, D::Error> {
        let reading = Reading { fail: true, ..Reading::default() };
        Seed { reading: &reading, at: None }.deserialize(deserializer).map(StrictValue)
    }
}

/// A key that appears twice in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The key.
    pub key: String,
    /// Its path from the top of the text (`items[3].metadata.labels.app`).
    pub path: String,
}

/// `text` read as JSON, with every key that appears twice in its object
/// (in text order); the value keeps the last of duplicates, as serde_json
/// does.
///
/// # Errors
/// serde_json's, when `text` is not JSON.
pub fn parse_noting_duplicates(text: &str) -> Result<(Value, Vec<Duplicate>), serde_json::Error> {
    parse_within(text, usize::MAX).map_err(|e| match e {
        ParseError::Json(e) => e,
        ParseError::TooLarge { .. } => unreachable!("no value is larger than usize::MAX bytes"),
    })
}

/// Why [`parse_within`] read no value.
#[derive(Debug)]
pub enum ParseError {
    /// The text is not JSON (serde_json's error).
    Json(serde_json::Error),
    /// The value parsed would take more than `limit` bytes
    /// ([`crate::parsed_size`]); its reading stopped there, at byte `at`
    /// of the text (nothing of it is kept).
    TooLarge {
        /// The limit, bytes.
        limit: usize,
        /// How far the text was read, bytes.
        at: usize,
    },
}

/// [`parse_noting_duplicates`] of a value that may take at most `limit`
/// bytes parsed ([`crate::parsed_size::parsed_bytes`], counted as it is
/// built: at most `limit` plus one string or one array's growth is ever held).
///
/// # Errors
/// [`ParseError::Json`] when `text` is not JSON, [`ParseError::TooLarge`]
/// when its value takes more than `limit` bytes parsed.
pub fn parse_within(text: &str, limit: usize) -> Result<(Value, Vec<Duplicate>), ParseError> {
    let reading = Reading { limit, used: Cell::new(VALUE_BYTES), ..Reading::default() };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Seed { reading: &reading, at: None }.deserialize(&mut de);
    if reading.used.get() > limit {
        // Where it stopped: the error's line and column, in bytes of the text.
        let at = value.as_ref().err().map_or(text.len(), |e| offset_of(text, e.line(), e.column()));
        return Err(ParseError::TooLarge { limit, at });
    }
    let value = value.map_err(ParseError::Json)?;
    de.end().map_err(ParseError::Json)?;
    Ok((value, reading.found.into_inner()))
}

/// A [`StrictValue`] read from any `deserializer` (a YAML document) that
/// may take at most `limit` bytes parsed ([`crate::parsed_size`], counted
/// as it is built): a YAML alias (`*a`) repeats its anchor's whole value
/// each time, so 2,000 aliases of a 1 MB anchor in a 1 MB file built 2 GB
/// (break-it 39 F1) — given up past `limit`, not held whole first.
///
/// # Errors
/// The deserializer's: a duplicate key ([`duplicate_message`]), or `the
/// value takes more than N bytes parsed` ([`TOO_LARGE`] starts it) past `limit`.
pub fn strict_within<'de, D: Deserializer<'de>>(deserializer: D, limit: usize) -> Result<Value, D::Error> {
    let reading = Reading { fail: true, limit, used: Cell::new(VALUE_BYTES), ..Reading::default() };
    Seed { reading: &reading, at: None }.deserialize(deserializer)
}

/// How the error of a value past its parsed limit begins ([`strict_within`]).
pub const TOO_LARGE: &str = "the value takes more than ";

/// The error of a read given up because its `stop` said so ([`strict_bounded`]).
pub const STOPPED_READING: &str = "reading this value was stopped on request";

/// How many values [`strict_bounded`] reads between two looks at its
/// `stop`: 64 Ki, a few MB of text at most of the smallest values (`0,`),
/// a few milliseconds.
pub const VALUES_BETWEEN_STOPS: u32 = 1 << 16;

/// [`strict_within`] (fails on the first duplicate key; at most `limit`
/// bytes parsed, counted as built) that also gives up once `stop` returns
/// true, looked at before the first value and every
/// [`VALUES_BETWEEN_STOPS`] values after: a 60 MB NDJSON line or YAML
/// document is not parsed to its end after a SIGINT (break-it 41 G4).
///
/// # Errors
/// The deserializer's: a duplicate key ([`duplicate_message`]), the value
/// past `limit` ([`TOO_LARGE`] starts it), or [`STOPPED_READING`].
pub fn strict_bounded<'de, D: Deserializer<'de>>(
    deserializer: D,
    limit: usize,
    stop: &dyn Fn() -> bool,
) -> Result<Value, D::Error> {
    let reading = Reading {
        fail: true,
        limit,
        used: Cell::new(VALUE_BYTES),
        stop: Some(stop),
        // The first value looks at once.
        until_look: Cell::new(1),
        ..Reading::default()
    };
    Seed { reading: &reading, at: None }.deserialize(deserializer)
}

/// [`NotedValue`] (every duplicate key noted, none refused) read within
/// `limit` bytes parsed and given up once `stop` returns true, as
/// [`strict_bounded`] reads.
///
/// # Errors
/// The deserializer's, the value past `limit` ([`TOO_LARGE`] starts it),
/// or [`STOPPED_READING`].
pub fn noted_bounded<'de, D: Deserializer<'de>>(
    deserializer: D,
    limit: usize,
    stop: &dyn Fn() -> bool,
) -> Result<NotedValue, D::Error> {
    let reading = Reading {
        limit,
        used: Cell::new(VALUE_BYTES),
        stop: Some(stop),
        until_look: Cell::new(1),
        ..Reading::default()
    };
    let value = Seed { reading: &reading, at: None }.deserialize(deserializer)?;
    Ok(NotedValue { value, duplicates: reading.found.into_inner() })
}

/// The byte offset of serde_json's `line` (1-based) and `column` in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    (start + column).min(text.len())
}

/// A [`Value`] read with the keys that appear twice in its objects noted
/// (as [`parse_noting_duplicates`] does), where a value is read as part of
/// a larger one (a watch event's `object`).
#[derive(Debug, Clone, PartialEq)]
pub struct NotedValue {
    /// The value (the last of duplicates kept).
    pub value: Value,
    /// Every key that appears twice, its path from this value.
    pub duplicates: Vec<Duplicate>,
}

impl<'de> Deserialize<'de> for NotedValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NotedValue, D::Error> {
        let reading = Reading::default();
        let value = Seed { reading: &reading, at: None }.deserialize(deserializer)?;
        Ok(NotedValue { value, duplicates: reading.found.into_inner() })
    }
}

/// serde_json's message for `e` without its trailing `at line L column C`
/// (the callers say where in their own terms: a file's line, an item's
/// column, a watch line).
pub fn json_error_text(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&position).map_or_else(|| text.clone(), str::to_string)
}

/// The message of a duplicate `key` at `path`.
pub fn duplicate_message(key: &str, path: &str) -> String {
    format!("the key {key:?} appears twice in one object (at {path}; which value is meant is unknown)")
}

/// One step of a path: a key, or an index in an array.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Where a value being read stands: its step, and its parent's node (on
/// the reader's call stack).
struct Node<'a> {
    step: Step<'a>,
    up: Option<&'a Node<'a>>,
}

/// The state of one read: how a duplicate is handled, and what was found.
struct Reading<'s> {
    /// Fail on the first duplicate ([`StrictValue`]) rather than note it.
    fail: bool,
    found: RefCell<Vec<Duplicate>>,
    /// The most bytes the value may take parsed ([`parse_within`]).
    limit: usize,
    /// The bytes it takes so far (counted only under a limit).
    used: Cell<usize>,
    /// Says when to give up ([`strict_bounded`]).
    stop: Option<&'s dyn Fn() -> bool>,
    /// Values left to read before `stop` is looked at.
    until_look: Cell<u32>,
}

impl Default for Reading<'_> {
    fn default() -> Self {
        Reading {
            fail: false,
            found: RefCell::default(),
            limit: usize::MAX,
            used: Cell::new(0),
            stop: None,
            until_look: Cell::new(VALUES_BETWEEN_STOPS),
        }
    }
}

impl Reading<'_> {
    /// One more value read: an error when `stop` (looked at every
    /// [`VALUES_BETWEEN_STOPS`] values) says to give up.
    fn step<E: de::Error>(&self) -> Result<(), E> {
        let Some(stop) = self.stop else { return Ok(()) };
        let left = self.until_look.get() - 1;
        if left > 0 {
            self.until_look.set(left);
            return Ok(());
        }
        self.until_look.set(VALUES_BETWEEN_STOPS);
        if stop() {
            return Err(E::custom(STOPPED_READING));
        }
        Ok(())
    }

    /// Counts `bytes` more; an error once past the limit.
    fn count<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        if self.limit == usize::MAX {
            return Ok(());
        }
        let used = self.used.get().saturating_add(bytes);
        self.used.set(used);
        if used > self.limit {
            return Err(E::custom(format_args!("{TOO_LARGE}{} bytes parsed", self.limit)));
        }
        Ok(())
    }
}

/// The path of `key` in the object at `at`.
fn path_to(at: Option<&Node<'_>>, key: &str) -> String {
    let mut steps = vec![Step::Key(key)];
    let mut node = at;
    while let Some(n) = node {
        steps.push(n.step);
        node = n.up;
    }
    let mut out = String::new();
    for step in steps.iter().rev() {
        match step {
            Step::Key(k) => push_key(&mut out, k),
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// `.key`, or `["key"]` when the key holds more than letters, digits, `_`
/// and `-` (`labels["app.kubernetes.io/name"]`).
fn push_key(out: &mut String, key: &str) {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    } else {
        let _ = write!(out, "[{key:?}]");
    }
}

/// Reads one value at `at`.
#[derive(Clone, Copy)]
struct Seed<'a> {
    reading: &'a Reading<'a>,
    at: Option<&'a Node<'a>>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.reading.step()?;
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
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

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.reading.count(heap_bytes(v.len()))?;
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.reading.count(heap_bytes(v.capacity()))?;
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        self.reading.count(heap_bytes(out.capacity() * VALUE_BYTES))?;
        loop {
            let node = Node { step: Step::Index(out.len()), up: self.at };
            match seq.next_element_seed(Seed { reading: self.reading, at: Some(&node) })? {
                Some(v) => {
                    if out.len() == out.capacity() {
                        // Grown by doubling, counted before it is allocated.
                        let (before, after) = (out.capacity(), (out.capacity() * 2).max(4));
                        self.reading.count(heap_bytes(after * VALUE_BYTES) - heap_bytes(before * VALUE_BYTES))?;
                        out.reserve_exact(after - before);
                    }
                    out.push(v);
                }
                None => break,
            }
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.reading.count(heap_bytes(key.capacity()))?;
            let node = Node { step: Step::Key(&key), up: self.at };
            let value = map.next_value_seed(Seed { reading: self.reading, at: Some(&node) })?;
            if out.contains_key(&key) {
                let path = path_to(self.at, &key);
                if self.reading.fail {
                    return Err(de::Error::custom(duplicate_message(&key, &path)));
                }
                self.reading.found.borrow_mut().push(Duplicate { key: key.clone(), path });
            }
            let (before, after) = (map_slots(out.len()), map_slots(out.len() + 1));
            if after != before {
                self.reading.count(heap_bytes(after * ENTRY_BYTES) - heap_bytes(before * ENTRY_BYTES))?;
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_at_any_depth_is_named_by_its_path() {
        let e = serde_json::from_str::<StrictValue>(
            "{\"kind\": \"Pod\",\n \"metadata\": {\"labels\": {\"app.kubernetes.io/name\": \"a\", \
             \"app.kubernetes.io/name\": \"b\"}}}",
        )
        .expect_err("duplicate");
        assert_eq!(
            e.to_string(),
            "the key \"app.kubernetes.io/name\" appears twice in one object (at \
             metadata.labels[\"app.kubernetes.io/name\"]; which value is meant is unknown) at line 2 column 86"
        );
        let text = r#"{"kind": "PodList", "metadata": {"resourceVersion": "9"}, "items": [
            {"metadata": {"name": "p0"}},
            {"metadata": {"name": "p1", "labels": {"app": "a", "app": "b"}}},
            {"metadata": {"name": "p2"}, "spec": {"containers": [{"name": "c", "env": [{"name": "A", "name": "B"}]}]}},
            {"metadata": {"name": "p3"}, "status": {"phase": "Running", "phase": "Failed"}}]}"#;
        let (value, found) = parse_noting_duplicates(text).expect("json");
        let paths: Vec<&str> = found.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            ["items[1].metadata.labels.app", "items[2].spec.containers[0].env[0].name", "items[3].status.phase"]
        );
        assert_eq!(found[2].key, "phase");
        assert_eq!(value["items"][3]["status"]["phase"], "Failed");
        let plain: Value = serde_json::from_str(text).expect("plain");
        assert_eq!(value, plain);
        assert!(parse_noting_duplicates("{\"a\": 1} x").is_err());
    }

    #[test]
    fn a_bounded_read_looks_at_its_stop_before_the_first_value_and_every_64_ki_values() {
        // 200,000 numbers in one array: 200,002 values with the object and the array.
        let text = format!(r#"{{"x":[{}0]}}"#, "0,".repeat(199_999));
        let looks = Cell::new(0u32);
        let never = || {
            looks.set(looks.get() + 1);
            false
        };
        let value = strict_bounded(&mut serde_json::Deserializer::from_str(&text), usize::MAX, &never).expect("read");
        assert_eq!(value["x"].as_array().map(Vec::len), Some(200_000));
        assert_eq!(looks.get(), 1 + 200_002 / VALUES_BETWEEN_STOPS);
        // Stopped at the third look: after 2 × 64 Ki values, not at the end.
        looks.set(0);
        let third = || {
            looks.set(looks.get() + 1);
            looks.get() == 3
        };
        let e = strict_bounded(&mut serde_json::Deserializer::from_str(&text), usize::MAX, &third).expect_err("stop");
        assert!(e.to_string().starts_with(STOPPED_READING), "{e}");
        assert_eq!(looks.get(), 3);
        // The same for a noted read.
        let at_once = || true;
        assert!(noted_bounded(&mut serde_json::Deserializer::from_str(&text), usize::MAX, &at_once).is_err());
    }

    #[test]
    fn a_value_past_its_parsed_limit_is_given_up_where_it_passes_and_its_size_is_counted_as_parsed_bytes() {
        // Break-it 37 F9: 64 KiB of `0,` take 32 Ki slots of a Value parsed.
        let text =
            format!(r#"{{"type":"ADDED","object":{{"metadata":{{"name":"p"}},"x":[{}0]}}}}"#, "0,".repeat(32 << 10));
        let (value, _) = parse_within(&text, usize::MAX - 1).expect("json");
        let size = crate::parsed_size::parsed_bytes(&value);
        assert!(size > 32 * text.len(), "{size} for {}", text.len());
        assert!(parse_within(&text, size).is_ok(), "exactly its parsed size fits");
        match parse_within(&text, 1 << 20) {
            Err(ParseError::TooLarge { limit, at }) => {
                assert_eq!(limit, 1 << 20);
                assert!(at > 40 && at < text.len(), "stopped inside the array: {at}");
            }
            other => panic!("{other:?}"),
        }
        // A string of the same text length is about its length parsed.
        let blob = format!(r#"{{"a":"{}"}}"#, "x".repeat(64 << 10));
        assert!(parse_within(&blob, (64 << 10) + 1024).is_ok());
        assert!(matches!(parse_within("{\"a\": 1} x", 1 << 20), Err(ParseError::Json(_))));
    }
}
