//! A list page whose own fields (outside `items`) are broken, read field by
//! field past the damage. Break-it 42 M1: a missing `:` in the `metadata`
//! written after the items, a trailing `,` after it, or `"kind" "EventList"`
//! before the items lost all 30 good events of the page, in `ingest api`
//! and in `record` (which asked the same page again and again); a List file
//! damaged the same way keeps its items (break-it 42 H1).
//!
//! Only a body that [`super::scan`] cannot read comes here. Its top-level
//! `"key": value` pairs are found at the object's own level (strings and
//! brackets stepped over) and each parsed on its own, `items` item by item
//! as [`super::scan_items`] reads them; text that is no such pair is passed
//! over. A field that does not parse is left out and named; `metadata` left
//! out means no snapshot (`resourceVersion`) and no continue token: the
//! pager keeps the items and stops there.

use super::{scan_items, skip_blank, string_end, value_end, Decoded};

/// The page read field by field; `None` when `body` is no object, holds no
/// `items` array or one whose end is not found (cut off: the page's error
/// stands, as [`super::decode`] says). `problem`
/// is the parser's words on the whole body (`expected ':' at line 1 column
/// 15310`), said with what was kept in [`Decoded::envelope`] and
/// [`Decoded::odd`].
pub(super) fn salvage(body: &[u8], problem: &str) -> Option<Decoded> {
    let mut out = Decoded::default();
    let mut pos = skip_blank(body, 0);
    (body.get(pos) == Some(&b'{')).then_some(())?;
    pos += 1;
    let mut items = false;
    // Fields whose value did not parse, or came twice with two values.
    let mut unread: Vec<String> = Vec::new();
    // The end of a field whose value did not parse: read on inside it for
    // `items` (a broken `metadata` that swallowed them), its other keys not
    // taken for the list's.
    let mut broken_until = 0;
    while pos < body.len() {
        pos = skip_blank(body, pos);
        let Some(&byte) = body.get(pos) else { break };
        match byte {
            b'"' => {
                let Some(key_end) = string_end(body, pos) else { break };
                let colon = skip_blank(body, key_end);
                let key = serde_json::from_slice::<String>(&body[pos..key_end]).ok();
                let Some(key) = key.filter(|_| body.get(colon) == Some(&b':')) else {
                    // A string that is no key (`"kind" "EventList"`): passed over.
                    pos = key_end;
                    continue;
                };
                let start = skip_blank(body, colon + 1);
                if key == "items" && !items && body.get(start) == Some(&b'[') {
                    items = true;
                    // Its end not found (cut off, or broken past resync):
                    // the page's error, as before.
                    pos = start + scan_items(&body[start..], &mut out, false)?;
                    continue;
                }
                if pos < broken_until {
                    pos = key_end;
                    continue;
                }
                let end = value_end(body, start);
                match end.filter(|&end| read_field(&mut out, &mut unread, &key, &body[start..end])) {
                    Some(end) => pos = end,
                    None => {
                        broken_until = end.unwrap_or(body.len());
                        pos = start + 1;
                    }
                }
            }
            b'{' | b'[' if pos >= broken_until => pos = value_end(body, pos).unwrap_or(pos + 1),
            _ => pos += 1,
        }
    }
    items.then_some(())?;
    let mut named: Vec<&String> = Vec::new();
    for key in &unread {
        if !named.contains(&key) {
            named.push(key);
        }
    }
    let mut said = format!(
        "the list's own fields (outside `items`) are not valid JSON ({problem}): read field by field past the \
         damage, its {} items are kept",
        out.items.len()
    );
    if !named.is_empty() {
        let names: Vec<String> = named.iter().map(|k| format!("`{k}`")).collect();
        said.push_str(&format!("; not read: {}", names.join(", ")));
    }
    let said = crate::redact::held().redact(&said);
    out.odd.push(said.clone());
    out.envelope = Some(said);
    Some(out)
}

/// One top-level field's value `raw`, parsed on its own into `out.fields`;
/// `false`, and named in `unread`, when it does not parse or is `metadata`
/// holding a key twice (which snapshot or continue token is meant is
/// unknown). A field read again with another value is taken out and named.
fn read_field(out: &mut Decoded, unread: &mut Vec<String>, key: &str, raw: &[u8]) -> bool {
    let parsed = std::str::from_utf8(raw).ok().and_then(|text| crate::parse_noting_duplicates(text).ok());
    let value = match parsed {
        Some((_, duplicates)) if key == "metadata" && !duplicates.is_empty() => None,
        Some((value, _)) => Some(value),
        None => None,
    };
    let Some(value) = value else {
        out.fields.remove(key);
        unread.push(key.to_string());
        return false;
    };
    if unread.iter().any(|k| k == key) {
        return true;
    }
    match out.fields.get(key) {
        None => _ = out.fields.insert(key.to_string(), value),
        Some(first) if *first == value => {}
        Some(_) => {
            out.fields.remove(key);
            unread.push(key.to_string());
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::decode;
    use serde_json::Value;

    fn events(n: usize) -> String {
        let items: Vec<String> = (0..n).map(|i| format!(r#"{{"metadata":{{"name":"e{i}"}},"count":1}}"#)).collect();
        items.join(",")
    }

    fn names(body: &str) -> (Vec<String>, Option<String>, Option<String>) {
        let d = decode(body.as_bytes()).expect("the page's items kept");
        let names =
            d.items.iter().filter_map(|i| i.pointer("/metadata/name").and_then(Value::as_str)).map(String::from);
        let rv = d.fields.get("metadata").and_then(|m| m.get("resourceVersion")).and_then(Value::as_str);
        (names.collect(), rv.map(String::from), d.envelope)
    }

    /// Break-it 42 M1's three damages (`fkenv.py tailbad|tailcomma|headbad`).
    #[test]
    fn a_broken_field_outside_the_items_keeps_the_items() {
        let all: Vec<String> = (0..30).map(|i| format!("e{i}")).collect();
        let items = events(30);
        let tailbad = format!(r#"{{"kind":"EventList","items":[{items}],"metadata":{{"resourceVersion" "9"}}}}"#);
        let (got, rv, envelope) = names(&tailbad);
        assert_eq!((got, rv), (all.clone(), None));
        let envelope = envelope.expect("said");
        assert!(
            envelope.starts_with(
                "the list's own fields (outside `items`) are not valid JSON (expected `:` at line 1 column"
            ),
            "{envelope}"
        );
        assert!(
            envelope.ends_with("read field by field past the damage, its 30 items are kept; not read: `metadata`"),
            "{envelope}"
        );

        let tailcomma = format!(r#"{{"kind":"EventList","items":[{items}],"metadata":{{"resourceVersion":"9"}},}}"#);
        let (got, rv, envelope) = names(&tailcomma);
        assert_eq!((got, rv.as_deref()), (all.clone(), Some("9")));
        assert!(envelope.expect("said").ends_with("its 30 items are kept"));

        let headbad = format!(
            r#"{{"kind" "EventList","apiVersion":"v1","metadata":{{"resourceVersion":"9"}},"items":[{items}]}}"#
        );
        let (got, rv, envelope) = names(&headbad);
        assert_eq!((got, rv.as_deref()), (all, Some("9")));
        assert!(envelope.is_some());
    }

    #[test]
    fn metadata_broken_around_the_items_or_read_twice_differently_gives_no_snapshot() {
        let items = events(3);
        // `metadata` broken around the items (a `,` twice in it).
        let unclosed = format!(r#"{{"kind":"EventList","metadata":{{"resourceVersion":"9",,"items":[{items}]}}}}"#);
        let (got, rv, envelope) = names(&unclosed);
        assert_eq!((got.len(), rv), (3, None));
        assert!(envelope.expect("said").ends_with("not read: `metadata`"));
        let twice = format!(
            r#"{{"kind" "EventList","metadata":{{"resourceVersion":"9"}},"items":[{items}],"metadata":{{"resourceVersion":"10"}}}}"#
        );
        let (got, rv, _) = names(&twice);
        assert_eq!((got.len(), rv), (3, None));
        let dup = format!(r#"{{"kind" "EventList","metadata":{{"continue":"a","continue":"b"}},"items":[{items}]}}"#);
        let d = decode(dup.as_bytes()).expect("items kept");
        assert!(!d.fields.contains_key("metadata"));
    }

    #[test]
    fn a_body_with_no_items_array_stays_the_pages_error() {
        assert!(decode(br#"{"kind" "Status","message":"x"}"#).expect_err("no items").starts_with("not JSON: expected"));
        assert!(decode(br#"["items":[]]"#).is_err());
    }
}
