//! Where a List item that does not parse ends, so that the items after it
//! load (kdrift issue 34). A scan of brackets that steps over strings
//! ([`value_end`]) finds the end of an item whose brackets balance; an
//! item that lost a closing quote or bracket (`{"bad":` then the next
//! item, a hand edit or a writer killed mid-item) has no such end, and the
//! next item is looked for by what follows the break ([`resync`]).

use serde_json::Value;

/// The end of the bad item that starts at `start`, where [`value_end`]
/// put it (`scanned`) unless the next item of the List opens before that.
/// A string that lost its closing quote on a one-line List makes the scan
/// read the items after it as strings and stop inside one (or at the end
/// of the input); an item that lost its value or closing `}` (`{"bad":,`,
/// `{"bad":1,` before the next item) makes it take every item after it.
/// Looked at when the scan's end is doubtful (no end, or not followed by
/// `,` or `]`: then up to the end of the input), a good item came before,
/// or the parser said where the item's syntax breaks (`broken_at`, an
/// offset in `bytes`; both then up to the scan's end). The next item is
/// the first `{` after a `,` that parses as an object followed by `,` or
/// `]`, with a `metadata` object and the same `kind` as the good item
/// before (`previous`), and that opens at or after the break or after a
/// `}` (before the break, a `{` after `,` is inside the bad item: an
/// element of one of its arrays), or that a scan from `start` reads inside
/// a string (the bad item was cut inside a string, which took the next
/// item's `,{` as its text: [`kdrift_rebalance::braces_in_strings`]).
pub(super) fn resync(
    bytes: &[u8],
    start: usize,
    scanned: Option<usize>,
    previous: Option<&Value>,
    broken_at: Option<usize>,
) -> Option<usize> {
    let next_byte = |at: usize| bytes[at..].iter().copied().find(|b| !b.is_ascii_whitespace());
    let doubtful = scanned.is_none_or(|end| !matches!(next_byte(end), Some(b',' | b']')) || closed_early(bytes, end));
    if !doubtful && previous.is_none() && broken_at.is_none() {
        return scanned;
    }
    // A doubtful scan may have stopped inside the bad item itself (an
    // escaped quote put it back in step): look on to the next item.
    let region = if doubtful { bytes.len() } else { scanned.unwrap_or(bytes.len()) };
    let before = |at: usize| bytes[..at].iter().rposition(|b| !b.is_ascii_whitespace());
    let like_previous = |v: &Value| {
        v.get("metadata").is_some_and(Value::is_object) && previous.is_none_or(|p| p.get("kind") == v.get("kind"))
    };
    // Before the break, a `{` the scan reads inside a string is the next
    // item's when one parses from it: the bad item was cut inside a string
    // that took the next item's `,{` as its text (break-it 42 H4).
    let swallowed = kdrift_rebalance::braces_in_strings(bytes, start, broken_at.unwrap_or(0).min(region));
    for at in (start + 1..region).filter(|&i| bytes[i] == b'{') {
        let Some(comma) = before(at).filter(|&c| bytes[c] == b',') else { continue };
        let past_break = broken_at.is_some_and(|b| at >= b);
        if !past_break && before(comma).is_none_or(|c| bytes[c] != b'}') && swallowed.binary_search(&at).is_err() {
            continue;
        }
        let mut stream = serde_json::Deserializer::from_slice(&bytes[at..]).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next() {
            if like_previous(&v) && matches!(next_byte(at + stream.byte_offset()), Some(b',' | b']')) {
                // The item ends at the `,` before it.
                return Some(comma);
            }
        }
    }
    scanned
}

/// Whether the text at `at`, just after a List item's closing bracket,
/// shows that the item closed before its end (a stray `}` or `]` inside
/// it, break-it 32 N4): what follows is neither `,`, `]` nor the next
/// item's `{` (a missing `,`), or it is a `,` and then a key (`"…":`), the
/// item's own fields going on after its close. `false` at the end of the
/// input (a cut List).
pub(super) fn closed_early(bytes: &[u8], at: usize) -> bool {
    let skip = |at: usize| at + bytes[at.min(bytes.len())..].iter().take_while(|b| b.is_ascii_whitespace()).count();
    let at = skip(at);
    match bytes.get(at) {
        None | Some(b']' | b'{') => false,
        Some(b',') => {
            let key = skip(at + 1);
            if bytes.get(key) != Some(&b'"') {
                return false;
            }
            let mut stream = serde_json::Deserializer::from_slice(&bytes[key..]).into_iter::<String>();
            matches!(stream.next(), Some(Ok(_))) && bytes.get(skip(key + stream.byte_offset())) == Some(&b':')
        }
        Some(_) => true,
    }
}

/// The offset in `bytes` where the syntax error `e` of the value read
/// from `start` is (serde_json counts lines from `start`, columns from 1).
/// `None` for an error that is no syntax error (a key twice: the syntax
/// around it is sound).
pub(super) fn offset_of(bytes: &[u8], start: usize, e: &serde_json::Error) -> Option<usize> {
    if e.classify() != serde_json::error::Category::Syntax || e.line() == 0 {
        return None;
    }
    let mut line_start = start;
    for _ in 1..e.line() {
        line_start += bytes[line_start..].iter().position(|b| *b == b'\n')? + 1;
    }
    Some((line_start + e.column().saturating_sub(1)).min(bytes.len()))
}

/// The offset just past the JSON value that starts at `start`, found
/// without parsing it: an object or array ends at its matching closing
/// bracket (brackets inside strings, escaped quotes included, do not
/// count), a string at its closing quote or at the end of its line (a
/// JSON string holds no raw newline: its closing quote is missing),
/// anything else before the next `,`, `]` or `}`. `None` when the input
/// ends first.
pub(super) fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') => {
                in_string = false;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            (true, b'\n' | b'\r') => {
                in_string = false;
                if depth == 0 {
                    return Some(i);
                }
            }
            (true, _) => {}
            (false, b'"') => in_string = true,
            (false, b'{' | b'[') => depth += 1,
            (false, b'}' | b']') if depth <= 1 => return Some(if depth == 0 { i } else { i + 1 }),
            (false, b'}' | b']') => depth -= 1,
            (false, b',') if depth == 0 => return Some(i),
            (false, _) => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_bytes, Naming};

    /// A one-line List (or bare array) of 10 Pods `p0`…`p9` with `bad`
    /// between `p4` and `p5`: item 5 of 11.
    fn with_bad_item(bad: &str, array: bool) -> String {
        let mut items: Vec<String> = (0..10)
            .map(|i| format!(r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p{i}","namespace":"d"}}}}"#))
            .collect();
        items.insert(5, bad.to_string());
        let items = items.join(",");
        if array {
            format!("[{items}]")
        } else {
            format!(r#"{{"apiVersion":"v1","kind":"List","metadata":{{}},"items":[{items}]}}"#)
        }
    }

    fn loaded(p: &crate::parse::Parsed) -> Vec<String> {
        p.records.iter().map(|r| r.object["metadata"]["name"].as_str().unwrap_or_default().to_string()).collect()
    }

    /// Break-it 31 F6: an item that lost its value or its `}` (`{"bad":`,
    /// `{"bad":1` before the next item) took the good item after it along
    /// (9 of 10 stored); in a bare array the whole file was lost.
    #[test]
    fn an_item_cut_short_before_the_next_one_loses_no_good_item() {
        let all: Vec<String> = (0..10).map(|i| format!("p{i}")).collect();
        for (bad, what, past) in [("{\"bad\":", "expected value", 1), ("{\"bad\":1", "key must be a string", 2)] {
            for array in [false, true] {
                let text = with_bad_item(bad, array);
                let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
                assert_eq!(loaded(&p), all, "{bad} array={array}: {:?}", p.errors);
                let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
                // At the `,` after `{"bad":`, at the `{` after `{"bad":1,`.
                let column = text.find("{\"bad").expect("bad") + bad.len() + past;
                assert_eq!(
                    errors,
                    [format!(
                        "pods.json:1:{column}: items[5]: invalid JSON: {what}; this item is skipped (not stored); the \
                         List's other items are loaded"
                    )],
                    "{bad} array={array}"
                );
                // Each good item keeps its own index among the 11.
                let index: Vec<Option<u64>> = p.records.iter().map(|r| r.origin.item).collect();
                assert_eq!(index, [0, 1, 2, 3, 4, 6, 7, 8, 9, 10].map(Some), "{bad} array={array}");
            }
        }
    }

    /// Break-it 42 H4: an item cut inside a string and followed directly
    /// by the next item (`"reason":"FailedSchedu,{"apiVersion":…`) took
    /// that good item along, named nowhere (9 of 10 stored).
    #[test]
    fn an_item_cut_inside_a_string_loses_no_good_item_after_it() {
        let all: Vec<String> = (0..10).map(|i| format!("p{i}")).collect();
        let cut = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"cut","namespace":"d"},"reason":"FailedSchedu"#;
        for array in [false, true] {
            let text = with_bad_item(cut, array);
            let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
            assert_eq!(loaded(&p), all, "array={array}: {:?}", p.errors);
            let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
            assert_eq!(errors.len(), 1, "array={array}: {errors:?}");
            assert!(errors[0].contains(": items[5]: invalid JSON: "), "array={array}: {errors:?}");
            assert!(errors[0].ends_with("; the List's other items are loaded"), "array={array}: {errors:?}");
            let index: Vec<Option<u64>> = p.records.iter().map(|r| r.origin.item).collect();
            assert_eq!(index, [0, 1, 2, 3, 4, 6, 7, 8, 9, 10].map(Some), "array={array}");
        }
    }

    /// Break-it 32 N4: a stray `}` or `]` inside item 5 lost every item
    /// after it, and with `}` item 5 was stored cut short as if good.
    #[test]
    fn a_stray_closing_bracket_inside_an_item_skips_that_item_only() {
        let all: Vec<String> = (0..10).map(|i| format!("p{i}")).collect();
        let head = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"cut","namespace":"d"},"a":"x""#;
        for (stray, what) in [
            ("}", "invalid JSON: the item's object is closed before its end (a stray `}` or `]` in it?): its text goes on here"),
            ("]", "invalid JSON: expected `,` or `}`"),
            ("}}", "invalid JSON: the item's object is closed before its end (a stray `}` or `]` in it?): its text goes on here"),
        ] {
            let bad = format!(r#"{head}{stray},"b":"y","c":[{{"d":1}},{{"e":2}}]}}"#);
            for array in [false, true] {
                let text = with_bad_item(&bad, array);
                let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
                assert_eq!(loaded(&p), all, "{stray} array={array}: {:?}", p.errors);
                let column = text.find(head).expect("head") + head.len() + if stray == "]" { 1 } else { 2 };
                let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
                let then = if stray == "]" {
                    "this item is skipped (not stored); the List's other items are loaded".to_string()
                } else {
                    "this item is skipped (not stored: it would be cut short); the List's other items are loaded".to_string()
                };
                assert_eq!(
                    errors,
                    [format!("pods.json:1:{column}: items[5]: {what}; {then}")],
                    "{stray} array={array}"
                );
                let index: Vec<Option<u64>> = p.records.iter().map(|r| r.origin.item).collect();
                assert_eq!(index, [0, 1, 2, 3, 4, 6, 7, 8, 9, 10].map(Some), "{stray} array={array}");
            }
        }
        // Pretty-printed (`kubectl get -o json`), the stray `}` on item 5's line 4.
        let items: Vec<String> = (0..10)
            .map(|i| {
                let close = if i == 5 { "}," } else { "," };
                format!("    {{\n      \"kind\": \"Pod\",\n      \"metadata\": {{\"name\": \"p{i}\"}},\n      \"a\": \"x\"{close}\n      \"b\": 1\n    }}")
            })
            .collect();
        let text = format!("{{\n  \"kind\": \"List\",\n  \"items\": [\n{}\n  ]\n}}\n", items.join(",\n"));
        let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
        let want: Vec<String> = (0..10).filter(|i| *i != 5).map(|i| format!("p{i}")).collect();
        assert_eq!(loaded(&p), want);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            ["pods.json:37:16: items[5]: invalid JSON: the item's object is closed before its end (a stray `}` or `]` \
              in it?): its text goes on here (the item opens at line 34); this item is skipped (not stored: it would \
              be cut short); the List's other items are loaded"]
        );
    }

    #[test]
    fn a_syntax_errors_offset_counts_lines_from_the_values_start() {
        let bytes = b"xx{\n \"a\": ,}";
        let e = serde_json::from_slice::<Value>(&bytes[2..]).expect_err("bad");
        assert_eq!(offset_of(bytes, 2, &e), Some(bytes.iter().position(|b| *b == b',').expect(",")));
        let e = serde_json::from_str::<crate::parse::strict::Strict>("{\"a\":1,\"a\":2}").expect_err("twice");
        assert_eq!(offset_of(b"{\"a\":1,\"a\":2}", 0, &e), None);
    }

    #[test]
    fn value_end_steps_over_strings_and_nested_brackets() {
        let text = br#"{"a": "}{\"]", "b": [1, {"c": 2}]} , 7"#;
        assert_eq!(value_end(text, 0), Some(34));
        assert_eq!(&text[..34], br#"{"a": "}{\"]", "b": [1, {"c": 2}]}"#);
        assert_eq!(value_end(b"tru, 1", 0), Some(3));
        assert_eq!(value_end(b"\"a,b\" ]", 0), Some(5));
        assert_eq!(value_end(b"{\"a\": [1, 2}", 0), None);
    }
}
