//! One list page's body decoded item by item (issue 34): one bad item (not
//! an object, a `metadata` that is no object, invalid UTF-8 or invalid JSON
//! inside it) is a [`BadItem`] naming its `items[i]` (and its name when
//! readable), and the page's other items are kept, as `kdrift ingest file`
//! keeps a List file's good items. A body that parses whole is checked item
//! by item; one that does not is scanned: its top-level keys and each item
//! are cut out by a scan of brackets that steps over strings, and parsed
//! one by one. Only a body whose structure outside the items is broken (cut
//! off, not a list) is an error of the whole page.

use serde_json::{Map, Value};

/// A list item that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadItem {
    /// Its index in the page's `items` (0-based, as the server sent them).
    pub index: usize,
    /// (namespace, name) when they could be read (namespace `""` when
    /// absent).
    pub key: Option<(String, String)>,
    /// What was wrong and what was expected (redacted).
    pub problem: String,
}

impl std::fmt::Display for BadItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "items[{}]", self.index)?;
        // A name may hold a credential a server echoed into it (break-it, issue 34).
        let held = crate::redact::held();
        match &self.key {
            Some((ns, name)) if !ns.is_empty() => write!(f, " ({}/{})", held.redact(ns), held.redact(name))?,
            Some((_, name)) => write!(f, " ({})", held.redact(name))?,
            None => {}
        }
        write!(f, ": {}; the item is skipped, the page's other items are kept", self.problem)
    }
}

/// A page's body, decoded.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    /// The good items, in the server's order.
    pub items: Vec<Value>,
    /// The bad ones.
    pub bad: Vec<BadItem>,
    /// The list's top-level fields but `items` (`metadata`, `kind`, …).
    pub fields: Map<String, Value>,
}

/// Decodes `body`; `Err` names what is wrong with the page as a whole.
pub(crate) fn decode(body: &[u8]) -> Result<Decoded, String> {
    let parsed =
        std::str::from_utf8(body).map_err(|_| ()).and_then(|text| crate::parse_noting_duplicates(text).map_err(|_| ()));
    let Ok((whole, duplicates)) = parsed else {
        // Invalid UTF-8 or JSON somewhere: item by item, to keep the others.
        let whole =
            serde_json::from_slice::<Value>(body).err().map_or_else(|| "not UTF-8".to_string(), |e| e.to_string());
        return scan(body).ok_or_else(|| format!("not JSON: {whole}"));
    };
    // Issue 34 C: an item holding a key twice (at any depth) is a bad item;
    // one outside `items` makes the page unreadable.
    let mut twice: Vec<(usize, String)> = Vec::new();
    for d in &duplicates {
        let item = d.path.strip_prefix("items[").and_then(|rest| {
            let (index, within) = rest.split_once(']')?;
            Some((index.parse::<usize>().ok()?, within.trim_start_matches('.')))
        });
        match item {
            Some((index, within)) if !within.is_empty() => {
                if twice.last().is_none_or(|(i, _)| *i != index) {
                    twice.push((index, crate::duplicate_message(&d.key, within)));
                }
            }
            _ => return Err(crate::duplicate_message(&d.key, &d.path)),
        }
    }
    match whole {
        Value::Object(mut fields) => {
            let items = match fields.remove("items") {
                Some(Value::Array(items)) => items,
                // An empty list may come back with `"items": null`.
                Some(Value::Null) | None => Vec::new(),
                Some(other) => return Err(format!("`items` is not an array but {}", json_type(&other))),
            };
            let mut out = Decoded { fields, ..Decoded::default() };
            let mut twice = twice.into_iter().peekable();
            for (index, item) in items.into_iter().enumerate() {
                match twice.next_if(|(i, _)| *i == index) {
                    Some((_, problem)) => {
                        let key = item_key(&item);
                        out.bad.push(BadItem { index, key, problem: crate::redact::held().redact(&problem) });
                    }
                    None => out.push(index, Ok(item), None),
                }
            }
            Ok(out)
        }
        other => Err(format!("expected a list object, found {}", json_type(&other))),
    }
}

/// (namespace, name) of a parsed item, when it has a name.
fn item_key(item: &Value) -> Option<(String, String)> {
    let name = item.pointer("/metadata/name").and_then(Value::as_str)?;
    let namespace = item.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
    Some((namespace.to_string(), name.to_string()))
}

impl Decoded {
    fn push(&mut self, index: usize, item: Result<Value, String>, raw: Option<&[u8]>) {
        let problem = match item {
            Ok(Value::Object(map)) => match map.get("metadata") {
                None | Some(Value::Object(_)) => {
                    self.items.push(Value::Object(map));
                    return;
                }
                Some(other) => {
                    format!("metadata is {}, expected an object (name, namespace, resourceVersion…)", json_type(other))
                }
            },
            Ok(other) => format!("expected a Kubernetes object (a JSON object), found {}", json_type(&other)),
            Err(problem) => problem,
        };
        let key = raw.and_then(readable_key);
        self.bad.push(BadItem { index, key, problem: crate::redact::held().redact(&problem) });
    }
}

/// (namespace, name) of an item that does not parse, read from its text
/// with invalid UTF-8 replaced; `None` when that does not parse either.
fn readable_key(raw: &[u8]) -> Option<(String, String)> {
    item_key(&serde_json::from_str(&String::from_utf8_lossy(raw)).ok()?)
}

/// One item's own parse: what is wrong with it.
fn parse_item(raw: &[u8]) -> Result<Value, String> {
    if let Err(e) = std::str::from_utf8(raw) {
        return Err(format!("not valid UTF-8 (byte {} of the item); expected UTF-8 JSON", e.valid_up_to()));
    }
    let text = std::str::from_utf8(raw).unwrap_or_default();
    let (value, duplicates) = crate::parse_noting_duplicates(text)
        .map_err(|e| format!("invalid JSON: {} (column {} of the item)", crate::json_error_text(&e), e.column()))?;
    match duplicates.first() {
        Some(d) => Err(crate::duplicate_message(&d.key, &d.path)),
        None => Ok(value),
    }
}

/// A body that does not parse whole, read key by key and item by item;
/// `None` when its structure outside the items is broken.
fn scan(body: &[u8]) -> Option<Decoded> {
    let mut out = Decoded::default();
    let mut pos = skip_blank(body, 0);
    (body.get(pos) == Some(&b'{')).then_some(())?;
    pos = skip_blank(body, pos + 1);
    if body.get(pos) == Some(&b'}') {
        return Some(out);
    }
    loop {
        let key_end = value_end(body, pos)?;
        let key: String = serde_json::from_slice(&body[pos..key_end]).ok()?;
        pos = skip_blank(body, key_end);
        (body.get(pos) == Some(&b':')).then_some(())?;
        pos = skip_blank(body, pos + 1);
        let end = value_end(body, pos)?;
        if key == "items" && body[pos] == b'[' {
            scan_items(&body[pos..end], &mut out)?;
        } else {
            out.fields.insert(key, serde_json::from_slice(&body[pos..end]).ok()?);
        }
        pos = skip_blank(body, end);
        match body.get(pos)? {
            b',' => pos = skip_blank(body, pos + 1),
            b'}' => return (skip_blank(body, pos + 1) == body.len()).then_some(out),
            _ => return None,
        }
    }
}

/// The items of `array` (`[` … `]`), each parsed on its own.
fn scan_items(array: &[u8], out: &mut Decoded) -> Option<()> {
    let mut pos = skip_blank(array, 1);
    let mut index = 0;
    while array.get(pos)? != &b']' {
        let end = value_end(array, pos)?;
        let raw = &array[pos..end];
        out.push(index, parse_item(raw), Some(raw));
        index += 1;
        pos = skip_blank(array, end);
        match array.get(pos)? {
            b',' => pos = skip_blank(array, pos + 1),
            b']' => break,
            _ => return None,
        }
    }
    Some(())
}

fn skip_blank(bytes: &[u8], pos: usize) -> usize {
    pos + bytes.get(pos..).unwrap_or_default().iter().take_while(|b| b.is_ascii_whitespace()).count()
}

/// Where the JSON value starting at `pos` ends (exclusive), by its
/// brackets, stepping over strings; `None` when the input ends first.
fn value_end(bytes: &[u8], pos: usize) -> Option<usize> {
    match bytes.get(pos)? {
        b'"' => string_end(bytes, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = pos;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let len = bytes[pos..]
                .iter()
                .take_while(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                .count();
            Some(pos + len)
        }
    }
}

/// The end (after the closing quote) of the string starting at `pos`.
fn string_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// `a number`, `an array`, … for messages.
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods(items: &[&[u8]]) -> Vec<u8> {
        let mut body = br#"{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":["#.to_vec();
        body.extend(items.join(&b","[..]));
        body.extend(b"]}");
        body
    }

    fn names(d: &Decoded) -> Vec<&str> {
        d.items.iter().filter_map(|i| i.pointer("/metadata/name").and_then(Value::as_str)).collect()
    }

    #[test]
    fn invalid_utf8_or_json_inside_one_item_skips_that_item_only() {
        let body = pods(&[
            br#"{"metadata":{"name":"a"}}"#,
            b"{\"metadata\":{\"name\":\"b\",\"namespace\":\"web\"},\"spec\":{\"image\":\"x\xff\"}}",
            br#"{"metadata":{"name":"c"},"spec":{"x":1,}}"#,
            br#"{"metadata":{"name":"d"}}"#,
        ]);
        let d = decode(&body).expect("page");
        assert_eq!(names(&d), ["a", "d"]);
        assert_eq!(d.fields["metadata"]["resourceVersion"], "9");
        assert_eq!(d.bad.len(), 2);
        assert_eq!(
            d.bad[0].to_string(),
            "items[1] (web/b): not valid UTF-8 (byte 61 of the item); expected UTF-8 JSON; the item is skipped, the \
             page's other items are kept"
        );
        assert_eq!((d.bad[1].index, d.bad[1].key.as_ref()), (2, None));
        assert!(d.bad[1].problem.starts_with("invalid JSON: trailing comma"), "{}", d.bad[1].problem);
    }

    #[test]
    fn an_item_that_is_no_object_or_has_a_bad_metadata_is_skipped() {
        let body = pods(&[br#"{"metadata":{"name":"a"}}"#, b"7", br#"{"metadata":["x"]}"#]);
        let d = decode(&body).expect("page");
        assert_eq!(names(&d), ["a"]);
        let bad: Vec<String> = d.bad.iter().map(|b| format!("{}: {}", b.index, b.problem)).collect();
        assert_eq!(
            bad,
            [
                "1: expected a Kubernetes object (a JSON object), found a number",
                "2: metadata is an array, expected an object (name, namespace, resourceVersion…)"
            ]
        );
    }

    #[test]
    fn an_item_holding_a_key_twice_is_a_bad_item_naming_the_path() {
        let body = pods(&[
            br#"{"metadata":{"name":"a"}}"#,
            br#"{"metadata":{"name":"b","namespace":"web","labels":{"app":"x","app":"y"}}}"#,
            br#"{"metadata":{"name":"c"}}"#,
        ]);
        let d = decode(&body).expect("page");
        assert_eq!(names(&d), ["a", "c"]);
        assert_eq!(
            d.bad.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["items[1] (web/b): the key \"app\" appears twice in one object (at metadata.labels.app; which value is \
              meant is unknown); the item is skipped, the page's other items are kept"]
        );
        // Also when another item makes the body unreadable whole.
        let body =
            pods(&[br#"{"metadata":{"name":"a","name":"b"}}"#, b"{\"x\":\"\xff\"}", br#"{"metadata":{"name":"c"}}"#]);
        let d = decode(&body).expect("page");
        assert_eq!(names(&d), ["c"]);
        assert!(d.bad[0].problem.starts_with("the key \"name\" appears twice"), "{:?}", d.bad);
        assert_eq!(
            decode(br#"{"kind":"PodList","kind":"X","items":[]}"#).expect_err("outside items"),
            "the key \"kind\" appears twice in one object (at kind; which value is meant is unknown)"
        );
    }

    #[test]
    fn a_body_cut_off_or_not_a_list_is_an_error_of_the_page() {
        let body = pods(&[br#"{"metadata":{"name":"a"}}"#]);
        assert!(decode(&body[..body.len() - 3]).expect_err("cut").starts_with("not JSON: EOF"));
        assert_eq!(decode(b"[1]").expect_err("array"), "expected a list object, found an array");
    }
}
