//! Where the next JSON value opens inside one cut in the middle of a
//! string (break-it 42 H4/H5): `{…,"reason":"FailedSchedu` then directly
//! the next List item `,{"apiVersion":…}` (or the next value of a line,
//! `{"type":"ADDED",…}`). The cut string takes the next value's `,{` as
//! its text and closes at that value's first quote, so the parser finds
//! the syntax broken only after the `{`; a resync that looks for the next
//! value from the break on skips it and loses a good value.
//!
//! A `{` that a scan from the bad value's start reads inside a string is
//! such a start when an object parses from it: a JSON string holds no
//! unescaped `"`, so no string of a well-formed value holds an object's
//! text (JSON held in a string, as `last-applied-configuration`, has its
//! quotes escaped and parses from no `{` of it). The callers check the
//! rest (what the object holds, what follows it); [`next_value_on_line`]
//! does it for values written one after another on a line.

use serde_json::Value;

/// The offsets of the `{` bytes in `bytes[start..end]` (`end` capped at
/// the length) that a scan from `start`, stepping over escapes, reads
/// inside a string. A raw line end closes a string (a JSON string holds
/// none: its closing quote was lost), as the bracket scans of the List
/// readers do.
pub fn braces_in_strings(bytes: &[u8], start: usize, end: usize) -> Vec<usize> {
    let end = end.min(bytes.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut found = Vec::new();
    for (at, &b) in bytes.iter().enumerate().take(end).skip(start) {
        if !in_string {
            in_string = b == b'"';
            continue;
        }
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' | b'\n' | b'\r' => in_string = false,
            b'{' => found.push(at),
            _ => {}
        }
    }
    found
}

/// Where the next value of a line of JSON values written one after
/// another (`{…}{…}`: a watch stream, a VictoriaLogs answer, NDJSON)
/// opens after the bad value that starts at `start` and whose syntax
/// breaks at `broken_at` (offsets in `line`, which holds one line). It is
/// the first `{` that either a scan from `start` reads inside a string
/// before the break ([`braces_in_strings`]: the bad value was cut inside a
/// string), or that opens at or after the break right after a `}` or at
/// the break itself (the bad value was cut elsewhere); from which an
/// object parses that `like` accepts (the caller's shape of a value: a
/// watch event, a row), followed by blanks and the next `{` or the line's
/// end (a nested object of the bad value is followed by `,` or `}`).
/// `None` when there is none: the rest of the line is not read.
pub fn next_value_on_line(
    line: &[u8],
    start: usize,
    broken_at: usize,
    like: impl Fn(&serde_json::Map<String, Value>) -> bool,
) -> Option<usize> {
    let broken_at = broken_at.min(line.len());
    let before = |at: usize| line[..at].iter().rposition(|b| !b.is_ascii_whitespace());
    let after = (broken_at..line.len())
        .filter(|&at| line[at] == b'{' && (at == broken_at || before(at).is_some_and(|c| line[c] == b'}')));
    let swallowed = braces_in_strings(line, start, broken_at);
    swallowed.into_iter().filter(|&at| at > start).chain(after).find(|&at| {
        let mut stream = serde_json::Deserializer::from_slice(&line[at..]).into_iter::<Value>();
        let Some(Ok(Value::Object(object))) = stream.next() else { return false };
        let end = at + stream.byte_offset();
        let next = line[end..].iter().find(|b| !b.is_ascii_whitespace());
        matches!(next, None | Some(b'{')) && like(&object)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brace_the_cut_string_took_is_found_and_escaped_json_is_not_misread() {
        let text = br#"{"a":"b{","reason":"FailedSchedu,{"kind":"Event"}"#;
        let inside: Vec<usize> = braces_in_strings(text, 0, text.len());
        // `b{` and the next item's `{`; not the item's own `{`.
        assert_eq!(inside, [7, text.windows(2).position(|w| w == b",{").expect(",{") + 1]);
        assert_eq!(braces_in_strings(br#"{"x":"\"{"}"#, 0, 11), [8]);
        assert_eq!(braces_in_strings(b"{\"x\":\"cut\n{\"y\":1}", 0, 17), Vec::<usize>::new());
    }

    #[test]
    fn the_next_value_of_a_line_is_found_after_a_cut_one_and_no_nested_object_is() {
        let event = |n: u32| format!(r#"{{"type":"ADDED","object":{{"metadata":{{"name":"e{n}"}}}}}}"#);
        let typed = |o: &serde_json::Map<String, Value>| o.contains_key("type");
        let find = |line: &str, start: usize| {
            let e = serde_json::from_slice::<Value>(&line.as_bytes()[start..]).expect_err("bad");
            next_value_on_line(line.as_bytes(), start, start + e.column() - 1, typed)
        };
        // Cut inside a string, in a number, after a key: the next event.
        for cut in
            [r#"{"type":"ADDED","object":{"reason":"FailedSche"#, r#"{"type":"ADDED","object":{"n":1"#, r#"{"type""#]
        {
            let line = format!("{}{cut}{}{}", event(0), event(2), event(3));
            let start = event(0).len();
            assert_eq!(find(&line, start), Some(start + cut.len()), "{cut}");
        }
        // A broken value whose nested objects are no next value: none.
        let line = r#"{"type":"ADDED" "object":{"type":"x","a":{"type":"y"}}}"#;
        assert_eq!(find(line, 0), None);
    }
}
