//! Files cut off before their end (`head -c`, a full disk, a copy or
//! download interrupted): a kubectl List keeps its complete items, and the
//! one the file ends inside is reported (never stored half).
//!
//! - JSON: the document fails to parse at the end of the input. When it is
//!   an object with an `items` array (`Items` in old internal-type dumps),
//!   it is walked key by key, item by item, and every complete item is
//!   loaded as the whole List's would be ([`recover_json_list`]).
//! - YAML: the document parses, since any prefix of lines is YAML, so the
//!   cut shows in what is missing: kubectl writes a List as `apiVersion`,
//!   `items`, then `kind: List` and `metadata`, so a mapping with
//!   `apiVersion` and an `items` sequence but no `kind` was cut inside its
//!   items. Its last item may be incomplete: it is reported, the others
//!   load ([`is_cut_yaml_list`], [`load_cut_yaml_list`]). A cut that leaves
//!   the document unparseable (in the middle of a quoted string) is
//!   recovered the same way when the text before the last item parses
//!   ([`recover_yaml_list`]).

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{expand_document, is_list, legacy, line_of_offset, list_item_hint, top_level_keys, InputError, Parsed};
use crate::record::{identify, Origin};

/// One step of the walk through a cut JSON document.
enum Step<T> {
    /// A complete value.
    Got(T),
    /// The input ends inside the value (or before it).
    Cut,
    /// Something that is not what the parser of the whole document saw.
    Bad,
}

/// A cursor over the bytes of one JSON document.
struct Walk<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Walk<'_> {
    /// The next byte that is not a blank (without taking it); `None` at the end.
    fn peek(&mut self) -> Option<u8> {
        self.pos += self.bytes[self.pos..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        self.bytes.get(self.pos).copied()
    }

    /// Takes the next non-blank byte when it is `b`.
    fn eat(&mut self, b: u8) -> Step<()> {
        match self.peek() {
            None => Step::Cut,
            Some(c) if c == b => {
                self.pos += 1;
                Step::Got(())
            }
            Some(_) => Step::Bad,
        }
    }

    /// Parses the next value.
    fn value<T: DeserializeOwned>(&mut self) -> Step<T> {
        if self.peek().is_none() {
            return Step::Cut;
        }
        let mut stream = serde_json::Deserializer::from_slice(&self.bytes[self.pos..]).into_iter::<T>();
        match stream.next() {
            Some(Ok(v)) => {
                self.pos += stream.byte_offset();
                Step::Got(v)
            }
            Some(Err(e)) if e.is_eof() => Step::Cut,
            None => Step::Cut,
            Some(Err(_)) => Step::Bad,
        }
    }
}

/// Where in a List the file ends.
enum CutAt {
    /// Inside item `n`, which starts at this offset.
    Item(usize),
    /// Between two items, or before the first.
    BetweenItems,
    /// After the items, before the List's end.
    AfterItems,
}

/// Recovers a JSON document starting at `start` in `bytes` that the end of
/// the input cuts off: when it is a List (an object with an `items` array
/// before the cut, `Items` in old dumps, and no `kind` that is not a List),
/// its complete items are expanded into `out` as [`expand_document`] does
/// for the whole List (same hints, origins `items[i]`), and one error says
/// where the file ends: in an item (named, at the line it starts on), or
/// between items, or after them. Returns false, adding nothing, for
/// anything else (the caller reports the document as truncated).
pub(super) fn recover_json_list(
    location: &str,
    bytes: &[u8],
    start: usize,
    hint: Option<&str>,
    out: &mut Parsed,
) -> bool {
    let mut walk = Walk { bytes, pos: start };
    let mut fields = Map::new();
    let mut items: Option<(String, Vec<Value>)> = None;
    let mut cut = CutAt::AfterItems;
    if !matches!(walk.eat(b'{'), Step::Got(())) {
        return false;
    }
    loop {
        let key = match walk.value::<String>() {
            Step::Got(key) => key,
            Step::Cut => break,
            Step::Bad => return false,
        };
        match walk.eat(b':') {
            Step::Got(()) => {}
            Step::Cut => break,
            Step::Bad => return false,
        }
        if (key == "items" || key == "Items") && items.is_none() && walk.peek() == Some(b'[') {
            walk.pos += 1;
            let mut list = Vec::new();
            let ended = walk_items(&mut walk, &mut list);
            items = Some((key, list));
            match ended {
                Step::Got(()) => {}
                Step::Cut => {
                    cut = if walk.peek().is_some() { CutAt::Item(walk.pos) } else { CutAt::BetweenItems };
                    break;
                }
                Step::Bad => return false,
            }
        } else {
            match walk.value::<Value>() {
                Step::Got(v) => {
                    fields.insert(key, v);
                }
                Step::Cut => break,
                Step::Bad => return false,
            }
        }
        match walk.peek() {
            None => break,
            Some(b',') => walk.pos += 1,
            // A complete document (or a bad one) is not what the parser saw.
            Some(_) => return false,
        }
    }
    let Some((key, list)) = items else { return false };
    let loaded = list.len();
    fields.insert(key, Value::Array(list));
    let doc = Value::Object(fields);
    if !legacy::is_legacy(&doc) && !is_list(&doc) {
        return false;
    }
    let origin = Origin { location: location.to_string(), line: Some(line_of_offset(bytes, start)), item: None };
    expand_document(doc, origin.clone(), hint, out);
    let (line, item, message) = match cut {
        CutAt::Item(at) => (
            line_of_offset(bytes, at),
            Some(loaded as u64),
            format!(
                "the file ends inside this item: it is cut off (truncated?) and not stored; {}",
                items_before(loaded)
            ),
        ),
        CutAt::BetweenItems => (
            line_of_offset(bytes, bytes.len()),
            None,
            format!(
                "the file ends inside the List's items, after {} (truncated?): {}; any after them are missing",
                count(loaded, "item"),
                if loaded == 0 { "nothing is loaded" } else { "they are loaded" }
            ),
        ),
        CutAt::AfterItems => (
            line_of_offset(bytes, bytes.len()),
            None,
            format!(
                "the file ends after the List's items, before the List's end (truncated?); all {} are loaded",
                count(loaded, "item")
            ),
        ),
    };
    out.errors.push(InputError { origin: Origin { line: Some(line), item, ..origin }, column: None, message });
    true
}

/// Walks the items of a JSON array after its `[` into `list`: `Got` at
/// its `]`, `Cut` when the input ends first (`walk.pos` then at the start
/// of the cut item, or at the end).
fn walk_items(walk: &mut Walk<'_>, list: &mut Vec<Value>) -> Step<()> {
    if walk.peek() == Some(b']') {
        walk.pos += 1;
        return Step::Got(());
    }
    loop {
        match walk.value::<Value>() {
            Step::Got(v) => list.push(v),
            Step::Cut => return Step::Cut,
            Step::Bad => return Step::Bad,
        }
        match walk.peek() {
            None => return Step::Cut,
            Some(b',') => walk.pos += 1,
            Some(b']') => {
                walk.pos += 1;
                return Step::Got(());
            }
            Some(_) => return Step::Bad,
        }
    }
}

/// `1 item`, `14 items`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// What the items before a cut one became.
fn items_before(n: usize) -> String {
    match n {
        0 => "no item comes before it".to_string(),
        1 => "the item before it is loaded".to_string(),
        n => format!("the {n} items before it are loaded"),
    }
}

/// Whether a YAML document is a kubectl List cut inside its items: a
/// mapping with `apiVersion` and a non-empty `items` sequence but no
/// `kind`, which kubectl writes after the items.
pub(super) fn is_cut_yaml_list(doc: &Value) -> bool {
    doc.as_object().is_some_and(|m| {
        m.get("items").and_then(Value::as_array).is_some_and(|items| !items.is_empty())
            && m.contains_key("apiVersion")
            && !m.contains_key("kind")
    })
}

/// What the error on the last item of a YAML List cut inside its items says.
const YAML_CUT: &str = "the file ends inside the List: kubectl writes `kind: List` after the items and it is \
                        missing (cut off or truncated?), so this last item may be incomplete and is not stored";

/// Loads a YAML List cut inside its items ([`is_cut_yaml_list`]), whose
/// text `doc_text` begins on line `first_line`: every item but the last
/// as the whole List's would load, and the last as an error naming it and
/// its line (and, when it is not a valid object as it stands, why not).
pub(super) fn load_cut_yaml_list(mut doc: Value, doc_text: &str, origin: Origin, hint: Option<&str>, out: &mut Parsed) {
    let item_hint = list_item_hint(&doc, super::kind_hint_from_path(&origin.location));
    let item_hint = item_hint.as_deref().or(hint).map(str::to_string);
    let Some(Value::Array(items)) = doc.get_mut("items") else { return };
    let Some(mut last) = items.pop() else { return };
    let n = items.len();
    let starts = item_starts(doc_text);
    let line = (starts.len() == n + 1).then(|| origin.line.unwrap_or(1) + starts[n] as u64);
    let invalid = match identify(&mut last, item_hint.as_deref()) {
        Ok(_) => String::new(),
        Err(e) => format!(" (as it stands: {e})"),
    };
    expand_document(doc, origin.clone(), hint, out);
    out.errors.push(InputError {
        origin: Origin { line: line.or(origin.line), item: Some(n as u64), ..origin },
        column: None,
        message: format!("{YAML_CUT}{invalid}; {}", items_before(n)),
    });
}

/// Recovers a YAML document that does not parse because the file ends in
/// its last List item (a cut inside a quoted string): when its top-level
/// keys include `apiVersion` and `items` but not `kind`, and the text
/// before its last item parses as such a List, those items load and the
/// last one is an error (with the parser's `problem`). Returns false,
/// adding nothing, otherwise.
pub(super) fn recover_yaml_list(
    doc_text: &str,
    origin: &Origin,
    hint: Option<&str>,
    problem: &str,
    out: &mut Parsed,
) -> bool {
    let keys: Vec<&[u8]> = top_level_keys(doc_text.as_bytes()).collect();
    let has = |k: &[u8]| keys.contains(&k);
    if !has(b"apiVersion") || !has(b"items") || has(b"kind") {
        return false;
    }
    let starts = item_starts(doc_text);
    let Some(&last) = starts.last() else { return false };
    let before: String = doc_text.split_inclusive('\n').take(last).collect();
    let Ok(doc) = Value::deserialize(serde_yaml::Deserializer::from_str(&before)) else { return false };
    let n = match doc.get("items").and_then(Value::as_array) {
        Some(items) if items.len() == starts.len() - 1 && doc.get("kind").is_none() => items.len(),
        _ => return false,
    };
    expand_document(doc, origin.clone(), hint, out);
    out.errors.push(InputError {
        origin: Origin { line: Some(origin.line.unwrap_or(1) + last as u64), item: Some(n as u64), ..origin.clone() },
        column: None,
        message: format!("{YAML_CUT} (its YAML is incomplete: {problem}); {}", items_before(n)),
    });
    true
}

/// Whether a YAML document that parsed as `doc` may be a List cut inside
/// its closing lines: `apiVersion` and an `items` sequence, and a `kind`
/// that is no List's (`kind: Li`, the rest of the line cut off).
pub(super) fn may_have_cut_trailer(doc: &Value) -> bool {
    doc.as_object().is_some_and(|m| {
        m.contains_key("apiVersion")
            && m.get("items").is_some_and(Value::is_array)
            && m.get("kind").and_then(Value::as_str).is_some_and(|k| !k.ends_with("List"))
    })
}

/// Recovers a YAML List whose file ends inside the closing lines kubectl
/// writes after the items (`kind: List`, `metadata:`): the text up to the
/// first top-level key after `items:` is parsed alone, and when it is
/// `apiVersion` and a complete `items` sequence, every item loads and one
/// error names the cut line. Returns false, adding nothing, when the text
/// has no such closing lines, they are whole (`kind` ends with `List`), or
/// the items do not parse on their own.
pub(super) fn recover_cut_trailer(doc_text: &str, origin: &Origin, hint: Option<&str>, out: &mut Parsed) -> bool {
    let lines: Vec<&str> = doc_text.split_inclusive('\n').collect();
    let top_key = |l: &str| !l.starts_with([' ', '\t', '-', '#']) && l.contains(':');
    let Some(items_at) = lines.iter().position(|l| l.strip_prefix("items:").is_some()) else { return false };
    let Some(trailer_at) = lines.iter().skip(items_at + 1).position(|l| top_key(l)).map(|i| i + items_at + 1) else {
        return false;
    };
    let trailer: String = lines[trailer_at..].concat();
    if let Ok(t) = Value::deserialize(serde_yaml::Deserializer::from_str(&trailer)) {
        if t.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List")) && t.get("metadata").is_some() {
            return false;
        }
    }
    let before: String = lines[..trailer_at].concat();
    let Ok(mut doc) = Value::deserialize(serde_yaml::Deserializer::from_str(&before)) else { return false };
    let n = match doc.get("items").and_then(Value::as_array) {
        Some(items) if !items.is_empty() && doc.get("apiVersion").is_some() && doc.get("kind").is_none() => items.len(),
        _ => return false,
    };
    if let Some(m) = doc.as_object_mut() {
        m.insert("kind".into(), Value::String("List".into()));
    }
    expand_document(doc, origin.clone(), hint, out);
    out.errors.push(InputError {
        origin: Origin { line: Some(origin.line.unwrap_or(1) + trailer_at as u64), item: None, ..origin.clone() },
        column: None,
        message: format!(
            "the file ends inside the List's closing lines (kubectl writes `kind: List` and `metadata` after the \
             items; cut off or truncated?): all {} are loaded",
            count(n, "item")
        ),
    });
    true
}

/// The 0-based lines of `text` on which the items of its top-level
/// `items:` sequence start: the `- ` lines at the indentation of the
/// first one after `items:` (deeper ones belong to an item), up to the
/// next top-level key.
fn item_starts(text: &str) -> Vec<usize> {
    let mut lines = text.lines().enumerate();
    if !lines.any(|(_, l)| l.strip_prefix("items:").is_some_and(|rest| rest.trim().is_empty())) {
        return Vec::new();
    }
    let mut indent = None;
    let mut starts = Vec::new();
    for (i, line) in lines {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let depth = line.len() - body.len();
        let item = body == "-" || body.starts_with("- ");
        if depth == 0 && !item {
            break;
        }
        if item && *indent.get_or_insert(depth) == depth {
            starts.push(i);
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_starts_are_the_items_own_dashes() {
        let text = "apiVersion: v1\nitems:\n- kind: Pod\n  spec:\n    containers:\n    - name: a\n  list:\n  - x\n\n- \
                    kind: Pod\nkind: List\n- not an item\n";
        assert_eq!(item_starts(text), [2, 9]);
        let indented = "items:\n  - a: 1\n    b:\n    - c\n  - a: 2\n";
        assert_eq!(item_starts(indented), [1, 4]);
        assert_eq!(item_starts("kind: List\nitems: []\n"), Vec::<usize>::new());
    }
}
