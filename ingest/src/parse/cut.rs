//! Files cut off before their end (`head -c`, a full disk, a copy or
//! download interrupted): a kubectl List keeps its complete items, and the
//! one the file ends inside is reported (never stored half).
//!
//! - JSON: the document is walked key by key, item by item
//!   ([`super::walk`]); when the input ends inside an object with an
//!   `items` array (`Items` in old internal-type dumps), every complete
//!   item is loaded as the whole List's would be, and one error says where
//!   the file ends ([`json_cut_error`]).
//! - YAML: the document parses, since any prefix of lines is YAML, so the
//!   cut shows in what is missing: kubectl writes a List as `apiVersion`,
//!   `items`, then `kind: List` and `metadata`, so a mapping with
//!   `apiVersion` and an `items` sequence but no `kind` was cut inside its
//!   items. Its last item may be incomplete: it is reported, the others
//!   load ([`is_cut_yaml_list`], [`load_cut_yaml_list`]). A cut that leaves
//!   the document unparseable (in the middle of a quoted string) is
//!   recovered the same way when the text before the last item parses
//!   ([`recover_yaml_list`]).

use serde::Deserialize;
use serde_json::Value;

use super::{expand_document, line_of_offset, list_item_hint, top_level_keys, InputError, Parsed};
use crate::store::{identify, Origin};

/// Where in a List the file ends.
pub(crate) enum CutAt {
    /// Inside an item, which starts at this offset.
    Item(usize),
    /// Between two items, or before the first.
    BetweenItems,
    /// After the items, before the List's end.
    AfterItems,
}

/// The error of a JSON List (whose first line is `origin`'s) that the end
/// of the input cuts off at `cut`, after `walked` items of which `loaded`
/// were loaded (the others were bad, and reported): in an item (named by
/// its index, at the line it starts on), or between items, or after them.
pub(super) fn json_cut_error(bytes: &[u8], origin: Origin, cut: CutAt, loaded: usize, walked: u64) -> InputError {
    let line = match cut {
        CutAt::Item(at) => line_of_offset(bytes, at),
        _ => line_of_offset(bytes, bytes.len()),
    };
    json_cut_error_at(origin, line, &cut, loaded, walked)
}

/// [`json_cut_error`] at `line`: the cut item's first line ([`CutAt::Item`],
/// whose offset is not looked at), else the input's last line.
pub(crate) fn json_cut_error_at(origin: Origin, line: u64, cut: &CutAt, loaded: usize, walked: u64) -> InputError {
    let (item, message) = match cut {
        CutAt::Item(_) => (
            Some(walked),
            format!(
                "the file ends inside this item: it is cut off (truncated?) and not stored; {}",
                items_before(loaded)
            ),
        ),
        CutAt::BetweenItems => (
            None,
            format!(
                "the file ends inside the List's items, after {} (truncated?): {}; any after them are missing",
                count(walked as usize, "item"),
                match loaded {
                    0 => "nothing is loaded".to_string(),
                    n if n as u64 == walked => "they are loaded".to_string(),
                    n => format!("{n} of them are loaded"),
                }
            ),
        ),
        CutAt::AfterItems if loaded as u64 == walked => (
            None,
            format!(
                "the file ends after the List's items, before the List's end (truncated?); all {} are loaded",
                count(loaded, "item")
            ),
        ),
        CutAt::AfterItems => (
            None,
            format!(
                "the file ends after the List's items, before the List's end (truncated?); {} of its {} are loaded",
                count(loaded, "item"),
                count(walked as usize, "item")
            ),
        ),
    };
    InputError { origin: Origin { line: Some(line), item, ..origin }, column: None, message }
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
    // A second top-level `items:` sequence after the trailer is no cut:
    // `yaml_items` reads the items of both (break-it 41 G5).
    if lines[trailer_at..].iter().any(|l| l.strip_prefix("items:").is_some_and(|rest| rest.trim().is_empty())) {
        return false;
    }
    let trailer: String = lines[trailer_at..].concat();
    if let Ok(t) = Value::deserialize(serde_yaml::Deserializer::from_str(&trailer)) {
        // Whole closing lines (`kind: …List`, with `metadata` after it or
        // not): nothing was cut; the document failed for another reason
        // (a key twice in an item), which the item-by-item reader names.
        if t.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List")) {
            return false;
        }
    }
    let before: String = lines[..trailer_at].concat();
    // Keys checked for duplicates, as everywhere (`strict`).
    let Ok(mut doc) = super::strict::yaml_value(&before) else {
        return false;
    };
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
pub(super) fn item_starts(text: &str) -> Vec<usize> {
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
