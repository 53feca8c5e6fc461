//! JSON values in which no object has the same key twice. serde_json keeps
//! the last of duplicate keys silently, so `{"metadata": {"name": "a",
//! "name": "b"}}` was stored as `b` with nothing said (kdrift issue 34).
//! kubectl, the API server and every exporter write each key once (the API
//! server's strict field validation refuses a duplicate field), so a
//! duplicate is a hand edit or a broken writer: the object is an input
//! error naming the key, its line and column, and the objects around it
//! load. [`Strict`] deserializes like [`serde_json::Value`] otherwise, and
//! names the duplicate's path (`metadata.labels.app`).
//!
//! Each value is read within the [`Bounds`] of the thread reading it
//! (`kdrift ingest file` sets them per file, [`enter`]): no object (an
//! NDJSON line, a List item, a JSON or YAML document) is built past
//! [`Bounds::parsed`] bytes parsed (`--max-parsed-bytes`, default
//! [`MAX_PARSED_BYTES`]; break-it 41 G3: a 60 MB line of `[1,1,…]` peaked
//! at 3.45 GB), and a parse gives up within
//! [`kdrift_rebalance::VALUES_BETWEEN_STOPS`] values once the interrupt is
//! triggered (break-it 41 G4: SIGINT waited 23 to 60 s for a parse's end).

use std::cell::RefCell;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::interrupt::Interrupt;

/// The most bytes one object read by `kdrift ingest file` may take parsed
/// by default ([`kdrift_rebalance::parsed_size`]; `--max-parsed-bytes`):
/// 16 times the NDJSON line limit ([`crate::MAX_LINE_BYTES`],
/// 64 MiB) plus 1 MiB, 1025 MiB, as `kdrift record` bounds a watch event
/// ([`kdrift_rebalance::parsed_event_limit`] of the same 64 MiB). Real
/// objects take 6 to 14 times their JSON text, a `[0,0,…]` array 36 to 72.
pub const MAX_PARSED_BYTES: u64 =
    (crate::ndjson_stream::MAX_LINE_BYTES * kdrift_rebalance::PARSED_BYTES_PER_EVENT_BYTE + (1 << 20)) as u64;

/// What a value read on this thread may cost: the most bytes it may take
/// parsed, and the interrupt that stops its parse.
#[derive(Debug, Clone)]
pub(crate) struct Bounds {
    /// Bytes parsed, at most ([`kdrift_rebalance::parsed_size`]).
    pub(crate) parsed: usize,
    /// Stops a parse once triggered.
    pub(crate) interrupt: Option<Interrupt>,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds { parsed: usize::MAX, interrupt: None }
    }
}

impl Bounds {
    /// Whether the interrupt was triggered.
    fn stopped(&self) -> bool {
        self.interrupt.as_ref().is_some_and(Interrupt::is_triggered)
    }
}

thread_local! {
    static BOUNDS: RefCell<Bounds> = RefCell::new(Bounds::default());
}

/// The bounds of values read on this thread.
pub(crate) fn current() -> Bounds {
    BOUNDS.with(|b| b.borrow().clone())
}

/// Sets the bounds of values read on this thread until the guard is dropped
/// (the ones before come back then).
pub(crate) fn enter(bounds: Bounds) -> Entered {
    Entered { before: Some(BOUNDS.with(|b| b.replace(bounds))) }
}

/// Restores the bounds [`enter`] replaced, when dropped.
pub(crate) struct Entered {
    before: Option<Bounds>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(before) = self.before.take() {
            BOUNDS.with(|b| *b.borrow_mut() = before);
        }
    }
}

/// `crate::store::map_ordered` (`f` over `items` on every core, in order)
/// with this thread's [`Bounds`] on the threads that run `f`.
pub(crate) fn map_ordered<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let bounds = current();
    crate::store::map_ordered(items, |item| {
        let _in = enter(bounds.clone());
        f(item)
    })
}

/// A `serde_json::Value` read with every object's keys checked for
/// duplicates at any depth (the error names the key's path:
/// [`kdrift_rebalance::StrictValue`]), within this thread's [`Bounds`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Strict(pub Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        BOUNDS.with(|b| {
            let b = b.borrow();
            kdrift_rebalance::strict_bounded(deserializer, b.parsed, &|| b.stopped()).map(Strict)
        })
    }
}

/// A `serde_json::Value` with the keys that appear twice in its objects
/// noted ([`kdrift_rebalance::NotedValue`]), read within this thread's
/// [`Bounds`] (a document's own fields, read one by one by `super::walk`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Noted(pub kdrift_rebalance::NotedValue);

impl<'de> Deserialize<'de> for Noted {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Noted, D::Error> {
        BOUNDS.with(|b| {
            let b = b.borrow();
            kdrift_rebalance::noted_bounded(deserializer, b.parsed, &|| b.stopped()).map(Noted)
        })
    }
}

/// Whether `text` (a parse error's) says the value passed its parsed limit.
pub(crate) fn is_too_large(text: &str) -> bool {
    text.contains(kdrift_rebalance::TOO_LARGE)
}

/// Whether `text` (a parse error's) says the parse stopped on the interrupt.
pub(crate) fn is_stopped(text: &str) -> bool {
    text.contains(kdrift_rebalance::STOPPED_READING)
}

/// The message of a JSON value not built because it would take more than
/// this thread's [`Bounds::parsed`] bytes parsed.
pub(crate) fn too_large_message() -> String {
    format!(
        "this value takes more than {} bytes parsed (a JSON array of small numbers takes up to 72 times its \
         text); not read (`kdrift ingest file --max-parsed-bytes SIZE` raises the limit)",
        current().parsed
    )
}

/// Bytes a YAML node is counted as parsed, before it is parsed
/// ([`yaml_estimate`]): the YAML parser holds every event of a document
/// (about 100 bytes each, in a vector grown by doubling, and the scalar's
/// text) before the value (72 bytes a slot) is built: a 30 MB flow list of
/// `1,` peaked at 3.3 GB (break-it 41 G3), 220 bytes a node.
pub(crate) const YAML_BYTES_PER_NODE: usize = 256;

/// The bytes a YAML text is counted as taking parsed before it is parsed:
/// [`YAML_BYTES_PER_NODE`] for each byte that can open or separate a node
/// (`,` `[` `{` `:` `-` `?` `*`) and for the text itself. A cheap upper
/// bound for the nodes of flow lists, block lists and mappings (a scalar's
/// own `-` and `:`, as in a timestamp, count too); ordinary objects come
/// out at about 20 times their text.
pub(crate) fn yaml_estimate(text: &str) -> usize {
    let marks = text.bytes().filter(|b| matches!(b, b',' | b'[' | b'{' | b':' | b'-' | b'?' | b'*')).count();
    marks.saturating_add(1).saturating_mul(YAML_BYTES_PER_NODE)
}

/// The most bytes a YAML text of `len` bytes may take parsed: 64 times its
/// text (a flow list of small numbers, `[0,0,…]`, takes about 16 times)
/// plus 64 MiB. YAML aliases (`*a`) repeat their anchor's value, so a
/// small text can expand without bound (break-it 39 F1: 2,000 aliases of a
/// 1 MB anchor, 8.2 GB peak); kubectl and the API server never write
/// anchors.
pub(crate) fn yaml_parsed_limit(len: usize) -> usize {
    len.saturating_mul(64).saturating_add(64 << 20)
}

/// `text` read as one YAML value with its keys checked for duplicates
/// ([`Strict`]), given up once it takes more than [`yaml_parsed_limit`]
/// bytes parsed or this thread's [`Bounds::parsed`], the latter checked
/// first on [`yaml_estimate`] (the parser holds the whole document's events
/// before any value is built); the error then holds
/// [`kdrift_rebalance::TOO_LARGE`] ([`expands_too_much`]). The parse gives up
/// once the interrupt is triggered ([`stopped`]; looked at as the value is
/// built, not while the parser reads the document's events, which the
/// estimate bounds).
pub(crate) fn yaml_value(text: &str) -> Result<serde_json::Value, serde_yaml::Error> {
    let b = current();
    if b.stopped() {
        return Err(serde::de::Error::custom(kdrift_rebalance::STOPPED_READING));
    }
    if b.parsed != usize::MAX && yaml_estimate(text) > b.parsed {
        return Err(serde::de::Error::custom(format_args!("{}{} bytes parsed", kdrift_rebalance::TOO_LARGE, b.parsed)));
    }
    if text.len() < YAML_ALONE_BYTES || b.interrupt.is_none() {
        return yaml_within(text, &b);
    }
    yaml_alone(text.to_string(), b)
}

/// Bytes of a YAML text from which [`yaml_value`] parses it on a thread
/// of its own, abandoned on the interrupt: the YAML parser reads a whole
/// document's events before any value is built, and looks at nothing in
/// between (break-it 41 G4: 60 s after SIGINT on a 30 MB document).
const YAML_ALONE_BYTES: usize = 1 << 20;

/// How often the thread waiting for [`yaml_alone`]'s parse looks at the interrupt.
const YAML_LOOK_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

/// [`yaml_value`] of `text` within `b` (no estimate).
fn yaml_within(text: &str, b: &Bounds) -> Result<serde_json::Value, serde_yaml::Error> {
    let limit = yaml_parsed_limit(text.len()).min(b.parsed);
    kdrift_rebalance::strict_bounded(serde_yaml::Deserializer::from_str(text), limit, &|| b.stopped())
}

/// [`yaml_within`] on a thread of its own, waited for until the interrupt
/// is triggered: then the parse is abandoned (it ends on its own, at the
/// latest once its events are read and the value's build looks at the
/// interrupt; what it holds is within the cap) and the error is
/// [`kdrift_rebalance::STOPPED_READING`]. An error when no thread can start.
fn yaml_alone(text: String, b: Bounds) -> Result<serde_json::Value, serde_yaml::Error> {
    let (tx, rx) = std::sync::mpsc::channel();
    let theirs = b.clone();
    let spawned = std::thread::Builder::new()
        .name("kdrift-yaml".into())
        // The parser recurses once a level (at most 128: `super::depth`).
        .stack_size(16 << 20)
        .spawn(move || {
            let _ = tx.send(yaml_within(&text, &theirs));
        });
    if spawned.is_err() {
        return Err(serde::de::Error::custom("no thread could be started to parse this YAML document"));
    }
    loop {
        match rx.recv_timeout(YAML_LOOK_EVERY) {
            Ok(answer) => return answer,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if b.stopped() => {
                return Err(serde::de::Error::custom(kdrift_rebalance::STOPPED_READING));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(serde::de::Error::custom("the YAML parser's thread ended without an answer"));
            }
        }
    }
}

/// Whether `e` ([`yaml_value`]'s) says the value expanded past its limit.
pub(crate) fn expands_too_much(e: &serde_yaml::Error) -> bool {
    is_too_large(&e.to_string())
}

/// Whether `e` ([`yaml_value`]'s) says the parse stopped on the interrupt.
pub(crate) fn stopped(e: &serde_yaml::Error) -> bool {
    is_stopped(&e.to_string())
}

/// The message of a YAML text that expanded past its limit: `what` is
/// `YAML document 3` or `this item`. Past this thread's
/// [`Bounds::parsed`] (`--max-parsed-bytes`), or past its aliases' bound.
pub(crate) fn expansion_message(what: &str, text: &str) -> String {
    let (cap, len) = (current().parsed, text.len());
    if cap != usize::MAX && (yaml_estimate(text) > cap || cap < yaml_parsed_limit(len)) {
        return format!(
            "{what} takes more than {cap} bytes parsed, from {len} bytes of YAML (each node is counted as {} \
             bytes, the parser's events and the value); not parsed (`kdrift ingest file --max-parsed-bytes SIZE` \
             raises the limit)",
            YAML_BYTES_PER_NODE
        );
    }
    format!(
        "{what} expands past {} bytes parsed, from {len} bytes of YAML: its aliases (`*name`) repeat their \
         anchors' values (kubectl never writes anchors); not parsed; expected a Kubernetes object or list whose \
         aliases expand to at most 64 times its text plus 64 MiB",
        yaml_parsed_limit(len)
    )
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
            "the key \"name\" appears twice in one object (at metadata.name; which value is meant is unknown) at line 2 \
             column 39"
        );
        assert!(serde_json::from_str::<Strict>("[{\"a\": 1}, {\"a\": 1, \"a\": 2}]").is_err());
    }

    #[test]
    fn yaml_aliases_that_expand_past_the_limit_are_given_up() {
        // One anchor of 64 KiB used 1,100 times: 70 MB parsed, from 71 KiB of YAML.
        let anchor = "x".repeat(64 << 10);
        let aliases = "  - *a\n".repeat(1100);
        let text = format!("kind: Pod\nbig: &a {anchor}\nmore:\n{aliases}");
        let e = super::yaml_value(&text).expect_err("too large");
        assert!(super::expands_too_much(&e), "{e}");
        // A few aliases are read as the YAML parser reads them.
        let small = "kind: Pod\nbig: &a [1, 2]\nmore: [*a, *a]\n";
        assert_eq!(super::yaml_value(small).expect("value")["more"], serde_json::json!([[1, 2], [1, 2]]));
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
