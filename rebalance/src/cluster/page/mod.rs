//! One list page's body decoded item by item (issue 34): one bad item (not
//! an object, a `metadata` that is no object, invalid UTF-8 or invalid JSON
//! inside it) is a [`BadItem`] naming its `items[i]` (and its name when
//! readable), and the page's other items are kept, as `kdrift ingest file`
//! keeps a List file's good items. A body that parses whole is checked item
//! by item; one that does not is scanned: its top-level keys and each item
//! are cut out and parsed one by one. An item is cut out where it parses,
//! else by a scan of brackets that steps over strings; one that lost its
//! value or closing `}` (`{"bad":` before the next item) ends at the next
//! item that opens after the point its syntax breaks ([`item_end`]).
//!
//! What is odd about the page as a whole but leaves its items readable (a
//! UTF-8 byte-order mark, text after its JSON such as a proxy's footer or a
//! second document, a key twice outside the items but in
//! `metadata.resourceVersion` or `metadata.continue`; `metadata` twice
//! giving the same snapshot and continue token; a top-level field too deep
//! to read, left out) is said in
//! [`Decoded::odd`] and the items are kept. Only a body whose structure
//! outside the items is broken (cut off, not a list) or whose snapshot or
//! continue token is ambiguous is an error of the whole page — unless its
//! items can still be found: a body whose own fields are broken (a missing
//! `:` or a trailing `,` outside the items, break-it 42 M1) is read field
//! by field past the damage ([`envelope`]), its items kept and the damage
//! said in [`Decoded::envelope`].

mod envelope;

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
    /// What is odd about the page as a whole, its items kept (redacted).
    pub odd: Vec<String>,
    /// The damage to the list's own fields (outside `items`) when they had
    /// to be read field by field past it ([`envelope::salvage`]): the items
    /// are kept, the fields that did not parse are missing (`metadata`:
    /// no snapshot or continue token to read on with).
    pub envelope: Option<String>,
}

/// The oddity of a body that opens with a UTF-8 byte-order mark.
const BOM: &str =
    "the body opens with a UTF-8 byte-order mark (an API server sends none; a proxy added it?): read past it";

/// Decodes `body`; `Err` names what is wrong with the page as a whole.
pub(crate) fn decode(body: &[u8]) -> Result<Decoded, String> {
    let (body, bom) = match body.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (rest, true),
        None => (body, false),
    };
    let mut out = decode_value(body)?;
    if bom {
        out.odd.insert(0, BOM.to_string());
    }
    Ok(out)
}

/// The complete items of a body cut mid-way (the connection closed inside
/// the page, break-it 32 N5), with the list's fields read before the cut;
/// `None` when the cut comes before the items or the body is broken
/// before the cut.
pub(crate) fn decode_cut(body: &[u8]) -> Option<Decoded> {
    scan(body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body), true)
}

/// [`decode`] past a byte-order mark.
fn decode_value(body: &[u8]) -> Result<Decoded, String> {
    let parsed =
        std::str::from_utf8(body).map_err(|_| ()).and_then(|text| crate::parse_noting_duplicates(text).map_err(|_| ()));
    let Ok((whole, duplicates)) = parsed else {
        // The list followed by other text: the list, and the text said.
        if let Some(end) = first_value_end(body).filter(|&end| skip_blank(body, end) < body.len()) {
            let mut out = decode_value(&body[..end])?;
            out.odd.push(trailing(&body[end..]));
            return Ok(out);
        }
        // Invalid UTF-8 or JSON somewhere: item by item, to keep the others.
        let whole =
            serde_json::from_slice::<Value>(body).err().map_or_else(|| "not UTF-8".to_string(), |e| e.to_string());
        return scan(body, false)
            .or_else(|| envelope::salvage(body, &whole))
            .ok_or_else(|| format!("not JSON: {whole}"));
    };
    // Issue 34 C: an item holding a key twice (at any depth) is a bad item;
    // one outside `items` is said, and makes the page unreadable only when
    // its snapshot, continue token or items are ambiguous.
    let mut twice: Vec<(usize, String)> = Vec::new();
    let mut odd = Vec::new();
    for d in &duplicates {
        // `metadata` twice: read key by key, which compares the two
        // (break-it 33 F4).
        if d.path == "metadata" {
            return scan(body, false).ok_or_else(|| {
                format!(
                    "{}; their resourceVersion or continue differ",
                    crate::duplicate_message("metadata", "metadata")
                )
            });
        }
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
            _ => odd.push(outside_items(&d.key, &d.path)?),
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
            let mut out = Decoded { fields, odd, ..Decoded::default() };
            let mut twice = twice.into_iter().peekable();
            for (index, item) in items.into_iter().enumerate() {
                match twice.next_if(|(i, _)| *i == index) {
                    Some((_, problem)) => {
                        // A name or namespace twice: which object it is is unknown.
                        let ambiguous = ["(at metadata.name;", "(at metadata.namespace;"];
                        let key = item_key(&item).filter(|_| !ambiguous.iter().any(|a| problem.contains(a)));
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

/// The oddity of `key` twice at `path` outside the items; `Err` when it
/// makes the page unreadable: which items, snapshot or continue token is
/// meant is unknown.
fn outside_items(key: &str, path: &str) -> Result<String, String> {
    let message = crate::duplicate_message(key, path);
    match path {
        "items" | "metadata" | "metadata.resourceVersion" | "metadata.continue" => Err(message),
        _ => Ok(format!("{message}; the page's items are kept")),
    }
}

/// Where the JSON value that opens `body` ends (exclusive), when it parses.
fn first_value_end(body: &[u8]) -> Option<usize> {
    let mut stream = serde_json::Deserializer::from_slice(body).into_iter::<serde::de::IgnoredAny>();
    matches!(stream.next(), Some(Ok(_))).then(|| stream.byte_offset())
}

/// The oddity of `rest` following the list's JSON value.
fn trailing(rest: &[u8]) -> String {
    let rest = rest.trim_ascii();
    let what = if first_value_end(rest).is_some() { "another JSON value" } else { "text that is not JSON" };
    let shown: String = String::from_utf8_lossy(rest).chars().take(40).collect();
    let shown = crate::redact::held().redact(&shown);
    format!(
        "{} bytes follow the list's JSON ({what}, starting {shown:?}; a proxy's footer, a second document?): they \
         are not read, the page's items are kept",
        rest.len()
    )
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
/// `None` when its structure outside the items is broken. `cut`: the body
/// ends inside its items (the items before are kept).
fn scan(body: &[u8], cut: bool) -> Option<Decoded> {
    let mut out = Decoded::default();
    let mut pos = skip_blank(body, 0);
    (body.get(pos) == Some(&b'{')).then_some(())?;
    pos = skip_blank(body, pos + 1);
    let mut items = false;
    if body.get(pos) == Some(&b'}') {
        pos += 1;
    } else {
        loop {
            let key_end = value_end(body, pos)?;
            let key: String = serde_json::from_slice(&body[pos..key_end]).ok()?;
            pos = skip_blank(body, key_end);
            (body.get(pos) == Some(&b':')).then_some(())?;
            pos = skip_blank(body, pos + 1);
            if key == "items" && body.get(pos) == Some(&b'[') && !items {
                items = true;
                pos += scan_items(&body[pos..], &mut out, cut)?;
                if cut && pos >= body.len() {
                    return Some(out);
                }
            } else {
                let end = value_end(body, pos)?;
                let parsed = std::str::from_utf8(&body[pos..end])
                    .map_err(|_| "not valid UTF-8".to_string())
                    .and_then(|text| crate::parse_noting_duplicates(text).map_err(|e| crate::json_error_text(&e)));
                let (value, duplicates) =
                    match parsed {
                        Ok(parsed) => parsed,
                        // A field the page's reading needs not (nested 300 deep,
                        // break-it 33 F4): said and left out.
                        Err(problem) if key != "metadata" && key != "items" => {
                            out.odd.push(crate::redact::held().redact(&format!(
                                "the list's `{key}` is not read ({problem}); the page's items are kept"
                            )));
                            pos = end;
                            match body.get(skip_blank(body, pos))? {
                                b',' => pos = skip_blank(body, skip_blank(body, pos) + 1),
                                b'}' => {
                                    pos = skip_blank(body, pos) + 1;
                                    break;
                                }
                                _ => return None,
                            }
                            continue;
                        }
                        Err(_) => return None,
                    };
                if key == "metadata" && out.fields.contains_key(&key) {
                    // Both the same snapshot and continue token: said.
                    let same = ["resourceVersion", "continue"].iter().all(|k| out.fields[&key].get(k) == value.get(k));
                    same.then_some(())?;
                    out.odd.push(format!(
                        "{}; both give the same resourceVersion and continue, the page's items are kept",
                        crate::duplicate_message(&key, &key)
                    ));
                } else if out.fields.contains_key(&key) || (key == "items" && items) {
                    out.odd.push(outside_items(&key, &key).ok()?);
                }
                for d in duplicates {
                    let path =
                        if d.path.starts_with('[') { format!("{key}{}", d.path) } else { format!("{key}.{}", d.path) };
                    out.odd.push(crate::redact::held().redact(&outside_items(&d.key, &path).ok()?));
                }
                out.fields.insert(key, value);
                pos = end;
            }
            pos = skip_blank(body, pos);
            match body.get(pos)? {
                b',' => pos = skip_blank(body, pos + 1),
                b'}' => {
                    pos += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    if skip_blank(body, pos) < body.len() {
        out.odd.push(trailing(&body[pos..]));
    }
    Some(out)
}

/// The items of the array that opens `rest` (`[` …), each parsed on its
/// own; the length of the array (up to its `]`). `cut`: `rest` may end
/// inside the array, its complete items kept (the length is then `rest`'s).
fn scan_items(rest: &[u8], out: &mut Decoded, cut: bool) -> Option<usize> {
    let ended = || cut.then_some(rest.len());
    let mut pos = skip_blank(rest, 1);
    if rest.get(pos).or_else(|| ended().map(|_| &b']'))? == &b']' {
        return Some(pos + 1).filter(|_| pos < rest.len()).or_else(ended);
    }
    let mut index = 0;
    loop {
        let Some((end, early)) = item_end(rest, pos) else { return ended() };
        let raw = rest[pos..end].trim_ascii_end();
        match early {
            // Stored it would be cut short (break-it 32 N4).
            Some(close) => out.push(index, Err(closed_early_problem(&rest[pos..close])), Some(&rest[pos..close])),
            None => out.push(index, parse_item(raw), Some(raw)),
        }
        index += 1;
        pos = skip_blank(rest, end);
        match rest.get(pos) {
            Some(b',') => pos = skip_blank(rest, pos + 1),
            Some(b']') => return Some(pos + 1),
            None => return ended(),
            Some(_) => return None,
        }
        if pos >= rest.len() {
            return ended();
        }
    }
}

/// Where the item that starts at `pos` in `rest` ends: where it parses
/// (unless its object closes early: [`closed_early`]), else where its
/// brackets close when `,` or `]` follows, else at the `,` before the next
/// item ([`next_item`]) that opens at or after the point the parser found
/// its syntax broken; `None` when there is none (the page is cut or
/// broken). The second value is where an item that closed early closed.
fn item_end(rest: &[u8], pos: usize) -> Option<(usize, Option<usize>)> {
    let mut stream = serde_json::Deserializer::from_slice(&rest[pos..]).into_iter::<serde::de::IgnoredAny>();
    let e = match stream.next()? {
        Ok(_) => {
            let close = pos + stream.byte_offset();
            if !closed_early(rest, close) {
                return Some((close, None));
            }
            return Some((next_item(rest, &[], close)?, Some(close)));
        }
        Err(e) => e,
    };
    let followed =
        |end: usize| matches!(rest.get(skip_blank(rest, end)), Some(b',' | b']')) && !closed_early(rest, end);
    if let Some(end) = value_end(rest, pos).filter(|&end| followed(end)) {
        return Some((end, None));
    }
    if e.classify() != serde_json::error::Category::Syntax {
        return None;
    }
    // The parser counts lines from `pos`, columns from 1.
    let mut line_start = pos;
    for _ in 1..e.line() {
        line_start += rest[line_start..].iter().position(|b| *b == b'\n')? + 1;
    }
    let broken_at = line_start + e.column().saturating_sub(1);
    // Cut inside a string that took the next item's `,{` as its text
    // (break-it 42 H4: that item was lost): it opens before the break.
    let swallowed = crate::swallowed::braces_in_strings(rest, pos, broken_at);
    Some((next_item(rest, &swallowed, broken_at.max(pos + 1))?, None))
}

/// The `,` before the first item (an object with a `metadata` object,
/// followed by `,` or `]`) that opens after a `,` at one of the offsets
/// `swallowed` (`{` read inside a string of the bad item before its break)
/// or at or after `from`.
fn next_item(rest: &[u8], swallowed: &[usize], from: usize) -> Option<usize> {
    let followed = |end: usize| matches!(rest.get(skip_blank(rest, end)), Some(b',' | b']'));
    let before = |at: usize| rest[..at].iter().rposition(|b| !b.is_ascii_whitespace());
    let after = (from..rest.len()).filter(|&i| rest[i] == b'{');
    for at in swallowed.iter().copied().filter(|&i| i < from).chain(after) {
        let Some(comma) = before(at).filter(|&c| rest[c] == b',') else { continue };
        let mut stream = serde_json::Deserializer::from_slice(&rest[at..]).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next() {
            if v.get("metadata").is_some_and(Value::is_object) && followed(at + stream.byte_offset()) {
                return Some(comma);
            }
        }
    }
    None
}

/// Whether the text at `at`, just after an item's closing bracket, shows
/// that the item closed before its end (a stray `}` or `]` inside it,
/// break-it 32 N4): neither `,`, `]` nor `{` follows, or a `,` and then a
/// key (`"…":`), the item's fields going on after its close.
fn closed_early(rest: &[u8], at: usize) -> bool {
    let at = skip_blank(rest, at);
    match rest.get(at) {
        None | Some(b']' | b'{') => false,
        Some(b',') => {
            let key = skip_blank(rest, at + 1);
            let mut stream = serde_json::Deserializer::from_slice(&rest[key..]).into_iter::<String>();
            rest.get(key) == Some(&b'"')
                && matches!(stream.next(), Some(Ok(_)))
                && rest.get(skip_blank(rest, key + stream.byte_offset())) == Some(&b':')
        }
        Some(_) => true,
    }
}

/// The problem of an item whose object closed early (`cut`: its text up
/// to that close).
fn closed_early_problem(cut: &[u8]) -> String {
    format!(
        "invalid JSON: the item's object is closed before its end (a stray `}}` or `]` in it?) at column {} of the \
         item and its text goes on after it; stored it would be cut short",
        cut.len()
    )
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
        // Outside the items: said, the items kept (break-it 31 F7).
        let d = decode(br#"{"kind":"PodList","kind":"X","items":[{"metadata":{"name":"a"}}]}"#).expect("page");
        assert_eq!((names(&d), d.odd.len()), (vec!["a"], 1));
        assert_eq!(
            d.odd[0],
            "the key \"kind\" appears twice in one object (at kind; which value is meant is unknown); the page's \
             items are kept"
        );
    }

    #[test]
    fn a_body_cut_off_or_not_a_list_is_an_error_of_the_page() {
        let body = pods(&[br#"{"metadata":{"name":"a"}}"#]);
        assert!(decode(&body[..body.len() - 3]).expect_err("cut").starts_with("not JSON: EOF"));
        assert_eq!(decode(b"[1]").expect_err("array"), "expected a list object, found an array");
    }

    /// Break-it 32 N4: a stray `}` or `]` inside item 5 (`badpage3.py
    /// brace`) lost the whole page (0 of 10 items kept).
    #[test]
    fn an_item_closed_early_by_a_stray_bracket_is_skipped_and_the_others_kept() {
        let good: Vec<Vec<u8>> = (0..10).map(|i| format!(r#"{{"metadata":{{"name":"e{i}"}}}}"#).into_bytes()).collect();
        let all: Vec<String> = (0..10).map(|i| format!("e{i}")).collect();
        let head = r#"{"metadata":{"name":"cut"},"a":"x""#;
        let early =
            "invalid JSON: the item's object is closed before its end (a stray `}` or `]` in it?) at column 35 \
                     of the item and its text goes on after it; stored it would be cut short";
        for (stray, problem, key) in [
            ("}", early, Some("cut")),
            ("}}", early, Some("cut")),
            ("]", "invalid JSON: expected `,` or `}` (column 35 of the item)", None),
        ] {
            let bad = format!(r#"{head}{stray},"b":"y","c":[{{"d":1}},{{"e":2}}]}}"#);
            let mut items: Vec<&[u8]> = good.iter().map(Vec::as_slice).collect();
            items.insert(5, bad.as_bytes());
            let d = decode(&pods(&items)).expect("page");
            assert_eq!(names(&d), all, "{stray}");
            let bad: Vec<String> = d.bad.iter().map(|b| format!("{}: {}", b.index, b.problem)).collect();
            assert_eq!(bad, [format!("5: {problem}")], "{stray}");
            let name = d.bad[0].key.as_ref().map(|(_, n)| n.as_str());
            assert_eq!(name, key, "{stray}");
        }
    }

    /// Break-it 31 F7: an item cut short before the next one (`{"bad":`,
    /// `{"bad":1`) lost the whole page (0 of 10 items); the page's other
    /// oddities (a key twice in its metadata, text after its JSON, a
    /// byte-order mark) lost it too.
    #[test]
    fn an_item_cut_short_or_an_odd_page_keeps_the_other_items() {
        let good: Vec<Vec<u8>> = (0..10).map(|i| format!(r#"{{"metadata":{{"name":"e{i}"}}}}"#).into_bytes()).collect();
        let all: Vec<String> = (0..10).map(|i| format!("e{i}")).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        for (bad, problem) in [
            (&b"{\"bad\":"[..], "invalid JSON: EOF while parsing a value (column 7 of the item)"),
            (b"{\"bad\":1", "invalid JSON: EOF while parsing an object (column 8 of the item)"),
        ] {
            let mut items: Vec<&[u8]> = good.iter().map(Vec::as_slice).collect();
            items.insert(5, bad);
            let d = decode(&pods(&items)).expect("page");
            assert_eq!(names(&d), all);
            let bad: Vec<String> = d.bad.iter().map(|b| format!("{}: {}", b.index, b.problem)).collect();
            assert_eq!(bad, [format!("5: {problem}")]);
            assert!(d.odd.is_empty(), "{:?}", d.odd);
        }
        let items: Vec<&[u8]> = good.iter().map(Vec::as_slice).collect();
        let page = pods(&items);
        let dupmeta = String::from_utf8(page.clone()).expect("utf8").replacen(
            r#""resourceVersion":"9""#,
            r#""resourceVersion":"9","remainingItemCount":1,"remainingItemCount":1"#,
            1,
        );
        let footer = [&page[..], b"\n<html>proxy footer</html>"].concat();
        let cases: [(Vec<u8>, &str); 4] = [
            (
                dupmeta.into_bytes(),
                "the key \"remainingItemCount\" appears twice in one object (at metadata.remainingItemCount; which \
                 value is meant is unknown); the page's items are kept",
            ),
            (
                footer,
                "25 bytes follow the list's JSON (text that is not JSON, starting \"<html>proxy footer</html>\"; a \
                 proxy's footer, a second document?): they are not read, the page's items are kept",
            ),
            ([&b"\xEF\xBB\xBF"[..], &page].concat(), BOM),
            ([&page[..], &page].concat(), "follow the list's JSON (another JSON value, starting \"{\\\"kind"),
        ];
        for (body, odd) in cases {
            let d = decode(&body).expect("page");
            assert_eq!((names(&d), d.bad.len()), (all.clone(), 0));
            assert_eq!(d.fields["metadata"]["resourceVersion"], "9");
            assert_eq!(d.odd.len(), 1, "{:?}", d.odd);
            assert!(d.odd[0] == odd || d.odd[0].contains(odd), "{:?}", d.odd);
        }
        // The same oddities beside a bad item (the body scanned).
        let mut items: Vec<&[u8]> = good.iter().map(Vec::as_slice).collect();
        items.insert(5, b"{\"bad\":1");
        let d = decode(&[&pods(&items)[..], b" footer"].concat()).expect("page");
        assert_eq!((names(&d), d.bad.len(), d.odd.len()), (all.clone(), 1, 1));
        // A snapshot or continue token read twice is the page's error.
        let twice =
            br#"{"kind":"PodList","metadata":{"resourceVersion":"9","continue":"a","continue":"b"},"items":[]}"#;
        assert_eq!(
            decode(twice).expect_err("continue twice"),
            "the key \"continue\" appears twice in one object (at metadata.continue; which value is meant is unknown)"
        );
    }

    /// Break-it 42 H4: an item cut inside a string and followed directly
    /// by the next item (`"reason":"FailedSchedu,{"metadata":…`) took that
    /// good item along (8 of 9 good kept, only the cut one named).
    #[test]
    fn an_item_cut_inside_a_string_loses_no_good_item_after_it() {
        let good: Vec<Vec<u8>> = (0..10)
            .map(|i| format!(r#"{{"metadata":{{"name":"e{i}"}},"reason":"FailedScheduling","count":1}}"#).into_bytes())
            .collect();
        let all: Vec<String> = (0..10).map(|i| format!("e{i}")).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let cut = br#"{"metadata":{"name":"cut"},"reason":"FailedSchedu"#;
        let mut items: Vec<&[u8]> = good.iter().map(Vec::as_slice).collect();
        items.insert(5, cut);
        let d = decode(&pods(&items)).expect("page");
        assert_eq!(names(&d), all);
        let bad: Vec<usize> = d.bad.iter().map(|b| b.index).collect();
        assert_eq!(bad, [5], "{:?}", d.bad);
    }

    /// Break-it 33 F4: `metadata` twice at a page's top level, or an extra
    /// field nested 300 deep (`toppage.py dupmeta|extra`), lost the page.
    #[test]
    fn metadata_twice_or_a_too_deep_field_keeps_the_pages_items() {
        let items: Vec<String> = (0..10).map(|i| format!(r#"{{"metadata":{{"name":"e{i}"}}}}"#)).collect();
        let all: Vec<String> = (0..10).map(|i| format!("e{i}")).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let page = |top: &str| format!(r#"{{"kind":"EventList",{top},"items":[{}]}}"#, items.join(","));
        let meta = r#""metadata":{"resourceVersion":"100"}"#;
        let d = decode(page(&format!("{meta},{meta}")).as_bytes()).expect("page");
        assert_eq!((names(&d), d.bad.len()), (all.clone(), 0));
        assert_eq!(d.fields["metadata"]["resourceVersion"], "100");
        assert_eq!(
            d.odd,
            ["the key \"metadata\" appears twice in one object (at metadata; which value is meant is unknown); both \
              give the same resourceVersion and continue, the page's items are kept"]
        );
        let deep = format!(r#"{meta},"x":{}{}"#, "[".repeat(300), "]".repeat(300));
        let d = decode(page(&deep).as_bytes()).expect("page");
        assert_eq!((names(&d), d.bad.len()), (all.clone(), 0));
        assert_eq!(d.fields["metadata"]["resourceVersion"], "100");
        assert_eq!(d.odd, ["the list's `x` is not read (recursion limit exceeded); the page's items are kept"]);
        // Two snapshots: which is meant is unknown, the page's error.
        let two = format!(r#"{meta},"metadata":{{"resourceVersion":"101"}}"#);
        assert_eq!(
            decode(page(&two).as_bytes()).expect_err("two snapshots"),
            "the key \"metadata\" appears twice in one object (at metadata; which value is meant is unknown); their \
             resourceVersion or continue differ"
        );
    }
}
