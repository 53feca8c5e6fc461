//! One line of an NDJSON file (or of a VictoriaLogs export): every JSON
//! value on it is read, not only the first. A line normally holds one
//! object, but a writer that lost its newlines (`{…}{…}`, `{…} {…}`) or
//! one with old-Mac line ends (a bare `\r` between objects, so the whole
//! file is one line to a `\n` reader) puts several on one line; each loads
//! (kdrift issue 34: all but the first were dropped with no error).
//!
//! Text after a value that is not JSON (`{…} garbage`) is an error at its
//! line and column; the values before it load. Reading then goes on at the
//! next `{` after a bare `\r` on the line, if any: a raw `\r` cannot be
//! inside a JSON string, so it is a line end there, never part of a value;
//! or at the next object of the line after a value cut short before it
//! (`{…"reason":"Fail{…}`, [`kdrift_rebalance::next_value_on_line`]: one
//! that opens inside the cut string or at the break, with a `metadata`
//! object, followed by the next `{` or the line's end; break-it 42 H5);
//! otherwise the rest of the line is not read (which the error says), as a
//! looser guess at where the next object starts inside broken text could
//! load a nested object as a record of its own.

use serde_json::Value;

use super::strict::Strict;
use super::{expand_document, json_error_what, json_type, walk, InputError, Parsed, NDJSON_EXPECTED};
use crate::interrupt::Interrupt;
use crate::store::Origin;

/// Parses line `line_no` (1-based) of an NDJSON file into `out` (blank
/// lines add nothing): every JSON value on it, in order (module doc).
/// Used line by line by the streaming reader of large files
/// ([`crate::ndjson_stream`]).
///
/// Every error names the file and the line (a List on one line: the line
/// and the item), the column when the parser gives one or the value is not
/// the line's first, and what a line must be: [`NDJSON_EXPECTED`].
pub fn parse_ndjson_line(location: &str, line_no: u64, line: &[u8], hint: Option<&str>, out: &mut Parsed) {
    parse_ndjson_line_until(location, line_no, line, hint, &Interrupt::new(), out);
}

/// How many values of one line are read between two looks at the interrupt.
const VALUES_BETWEEN_LOOKS: u64 = 4096;

/// [`parse_ndjson_line`], looking at `interrupt` every
/// [`VALUES_BETWEEN_LOOKS`] values of the line: once it is triggered, the
/// rest of the line is not read and an error says where reading stopped
/// (break-it 39: a 4 MB line of `{}{}…` ignored SIGTERM for 126 s).
pub(crate) fn parse_ndjson_line_until(
    location: &str,
    line_no: u64,
    line: &[u8],
    hint: Option<&str>,
    interrupt: &Interrupt,
    out: &mut Parsed,
) {
    // A byte-order mark opens any line of files joined with `cat` (one
    // saved by a Windows editor): not part of the JSON.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let origin = || Origin { location: location.to_string(), line: Some(line_no), item: None };
    let problem = |column: Option<usize>, found: String| InputError {
        origin: origin(),
        column: column.map(|c| c as u64),
        message: format!("{found}; expected {NDJSON_EXPECTED}"),
    };
    // Offset of the next value (blanks before it allowed), and how many
    // values were read whole before it on this line.
    let (mut pos, mut read) = (0usize, 0u64);
    loop {
        let start = pos + blanks(&line[pos..]);
        if start == line.len() {
            return;
        }
        if read > 0 && read % VALUES_BETWEEN_LOOKS == 0 && interrupt.is_triggered() {
            out.errors.push(InputError {
                origin: origin(),
                column: Some(start as u64 + 1),
                message: walk::STOPPED.to_string(),
            });
            return;
        }
        // A NUL run before JSON (a writer that crashed left its file's
        // zeroed tail, then wrote on): said, and the JSON after it read.
        let nuls = line[start..].iter().take_while(|b| **b == 0).count();
        if nuls > 0 && line[start + nuls..].iter().any(|b| !b.is_ascii_whitespace() && *b != 0) {
            out.errors.push(InputError {
                origin: origin(),
                column: Some(start as u64 + 1),
                message: format!(
                    "{nuls} NUL bytes before the JSON (a writer that crashed and wrote on?): skipped, the JSON \
                     after them is read"
                ),
            });
            pos = start + nuls;
            continue;
        }
        let mut stream = serde_json::Deserializer::from_slice(&line[start..]).into_iter::<Strict>();
        match stream.next() {
            None => return,
            // An array (`jq -c .items` writes a List's items so): each
            // item a record, as a bare array in a `.json` file (break-it 33 F5).
            Some(Ok(Strict(doc @ (Value::Object(_) | Value::Array(_))))) => {
                let (records, errors) = (out.records.len(), out.errors.len());
                expand_document(doc, origin(), hint, out);
                // A List on one line: its items' line is that line.
                for r in &mut out.records[records..] {
                    r.origin.line.get_or_insert(line_no);
                }
                for e in &mut out.errors[errors..] {
                    e.origin.line.get_or_insert(line_no);
                }
                pos = start + stream.byte_offset();
            }
            Some(Ok(Strict(other))) => {
                // The line's first value is the line; a later one has its column.
                let column = (read > 0).then_some(start + 1);
                out.add_error(problem(column, format!("found {}", json_type(&other))));
                pos = start + stream.byte_offset();
            }
            Some(Err(e)) => {
                // A value past the parsed cap or stopped on the interrupt is
                // not read again item by item.
                let given_up = super::strict::is_too_large(&e.to_string()) || super::strict::is_stopped(&e.to_string());
                if !e.is_eof() && !given_up {
                    if let Some(next) = list_line_read_by_item(location, line_no, line, start, hint, out) {
                        read += 1;
                        match next {
                            Some(next) => {
                                pos = next;
                                continue;
                            }
                            None => return,
                        }
                    }
                }
                // The parser counts from `start`, 1-based; past the line's
                // newline (a value cut at its end): the line's end.
                let (at, column) = if e.line() == 1 {
                    (start + e.column().saturating_sub(1), start + e.column().max(1))
                } else {
                    (line.len(), line.trim_ascii_end().len() + 1)
                };
                let what = if e.is_eof() {
                    "the line ends in the middle of a JSON value (cut off?)".to_string()
                } else {
                    json_error_what(&e)
                };
                if super::strict::is_stopped(&e.to_string()) {
                    // The interrupt, inside this value: the rest is not read.
                    out.errors.push(InputError { origin: origin(), column: Some(column as u64), message: what });
                    return;
                }
                // A value cut short before the next one of the line (inside
                // a string that took its `{`, or at the next `{`): read on
                // there (break-it 42 H5); only an object with a `metadata`
                // object whole and followed by the next `{` or the line's end.
                let like = |o: &serde_json::Map<String, Value>| o.get("metadata").is_some_and(Value::is_object);
                let next = (e.line() == 1 && line[start] == b'{')
                    .then(|| kdrift_rebalance::next_value_on_line(line, start, at, like))
                    .flatten();
                let resume = match (after_carriage_return(line, at), next) {
                    (Some(r), Some(n)) => Some(r.min(n)),
                    (r, n) => r.or(n),
                };
                let mut found = what;
                if read > 0 {
                    let s = if read == 1 { "" } else { "s" };
                    found.push_str(&format!(", after {read} complete JSON value{s} on this line (read)"));
                }
                match resume {
                    Some(r) if Some(r) == next => {
                        found.push_str(&format!("; the line is read on from column {}, at the next object", r + 1))
                    }
                    Some(r) => found.push_str(&format!(
                        "; the line is read on from column {}, after a carriage return (an old Mac line end)",
                        r + 1
                    )),
                    None if read > 0 => found.push_str("; the rest of the line is not read"),
                    None => {}
                }
                out.add_error(problem(Some(column), found));
                match resume {
                    Some(r) => pos = r,
                    None => return,
                }
            }
        }
        read += 1;
    }
}

/// Blank bytes (space, tab, `\r`, `\n`, form feed) at the start of `bytes`.
fn blanks(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_whitespace()).count()
}

/// The offset of the next `{` that opens a line of its own after a bare
/// `\r` at or after `from` (blanks between allowed): where reading goes
/// on after a bad stretch of a line (module doc).
fn after_carriage_return(line: &[u8], from: usize) -> Option<usize> {
    let mut i = from.min(line.len());
    while let Some(r) = line[i..].iter().position(|b| *b == b'\r') {
        let next = i + r + 1;
        let start = next + blanks(&line[next..]);
        if line.get(start) == Some(&b'{') {
            return Some(start);
        }
        i = next;
    }
    None
}

/// A one-line List (or bare array) at `start` whose value does not parse whole, read item
/// by item as in a `.json` file ([`walk::read_document`]): its good items
/// load and each bad one is its `items[i]` error. `None` (nothing added)
/// when that does no better than one error for the value; else where the
/// line's next value may start (`Some(None)`: nothing more is read).
fn list_line_read_by_item(
    location: &str,
    line_no: u64,
    line: &[u8],
    start: usize,
    hint: Option<&str>,
    out: &mut Parsed,
) -> Option<Option<usize>> {
    let (records, errors) = (out.records.len(), out.errors.len());
    let read = if line[start] == b'[' { walk::read_array } else { walk::read_document };
    let next = match read(location, line, start, hint, &Interrupt::new(), out) {
        walk::Walked::Whole | walk::Walked::Interrupted => return None,
        walk::Walked::Read(end) => Some(end),
        // Reported: the List's syntax broke; the rest of the line is not read.
        walk::Walked::Broken(at) => after_carriage_return(line, at),
    };
    // Lines counted in the line: all line 1.
    out.records[records..].iter_mut().for_each(|r| r.origin.line = Some(line_no));
    out.errors[errors..].iter_mut().for_each(|e| e.origin.line = Some(line_no));
    Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_stops_a_line_of_many_values() {
        let pod = r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"d","uid":"u"}}"#;
        let line = pod.repeat(10_000);
        let interrupt = Interrupt::new();
        interrupt.trigger();
        let mut p = Parsed::default();
        parse_ndjson_line_until("x.ndjson", 3, line.as_bytes(), None, &interrupt, &mut p);
        assert_eq!(p.records.len(), 4096);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, [format!("x.ndjson:3:{}: {}", 4096 * pod.len() + 1, walk::STOPPED)]);
        let mut p = Parsed::default();
        parse_ndjson_line("x.ndjson", 3, line.as_bytes(), None, &mut p);
        assert_eq!((p.records.len(), p.errors.len()), (10_000, 0));
    }

    fn event(name: &str) -> String {
        format!(
            r#"{{"kind":"Event","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"d","uid":"u-{name}"}},"involvedObject":{{"kind":"Pod","name":"p"}}}}"#
        )
    }

    fn names(p: &Parsed) -> Vec<&str> {
        p.records.iter().filter_map(|r| r.object["metadata"]["name"].as_str()).collect()
    }

    fn errors(p: &Parsed) -> Vec<String> {
        p.errors.iter().map(ToString::to_string).collect()
    }

    /// Break-it (issue 34): a UTF-8 byte-order mark opening a middle line
    /// (files joined with `cat`) lost that line's record.
    #[test]
    fn a_byte_order_mark_opening_any_line_is_not_json() {
        let mut out = Parsed::default();
        parse_ndjson_line(
            "a.ndjson",
            7,
            b"\xEF\xBB\xBF{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}",
            None,
            &mut out,
        );
        assert_eq!((out.records.len(), out.errors.len()), (1, 0), "{:?}", out.errors);
    }

    /// Break-it 31 F5: a NUL run before a line (as a crash leaves) lost
    /// the line's object.
    #[test]
    fn a_nul_run_before_a_lines_json_is_said_and_the_json_loads() {
        let mut p = Parsed::default();
        let line = [&[0u8; 8][..], event("a").as_bytes(), b"\n"].concat();
        parse_ndjson_line("x.ndjson", 6, &line, None, &mut p);
        assert_eq!(names(&p), ["a"]);
        assert_eq!(
            errors(&p),
            ["x.ndjson:6:1: 8 NUL bytes before the JSON (a writer that crashed and wrote on?): skipped, the JSON after \
              them is read"]
        );
    }

    #[test]
    fn every_value_on_a_line_loads_whatever_separates_them() {
        let (a, b, c) = (event("a"), event("b"), event("c"));
        for line in [format!("{a}{b}{c}"), format!("{a} {b}\t{c}\n"), format!("{a}\r{b}\r{c}\r"), format!("{a}\r\n")] {
            let mut p = Parsed::default();
            parse_ndjson_line("x.ndjson", 4, line.as_bytes(), None, &mut p);
            assert_eq!(errors(&p), Vec::<String>::new(), "{line}");
            let expected = if line.contains(&b) { vec!["a", "b", "c"] } else { vec!["a"] };
            assert_eq!(names(&p), expected, "{line}");
            assert!(p.records.iter().all(|r| r.origin.line == Some(4)));
        }
    }

    #[test]
    fn text_after_a_value_is_an_error_at_its_column_and_the_values_before_load() {
        let (a, b) = (event("a"), event("b"));
        let mut p = Parsed::default();
        let line = format!("{a} garbage {b}\n");
        parse_ndjson_line("x.ndjson", 2, line.as_bytes(), None, &mut p);
        assert_eq!(names(&p), ["a"]);
        let column = a.len() + 2;
        assert_eq!(
            errors(&p),
            [format!(
                "x.ndjson:2:{column}: invalid JSON: expected value, after 1 complete JSON value on this line (read); \
                 the rest of the line is not read; expected {NDJSON_EXPECTED}"
            )]
        );
        // Old-Mac line ends: reading goes on after the next `\r`, and a later number is its own error.
        let mut p = Parsed::default();
        let line = format!("{a}\r{b} oops\r{a}\r7\r");
        parse_ndjson_line("m.json", 1, line.as_bytes(), None, &mut p);
        assert_eq!(names(&p), ["a", "b", "a"]);
        let (bad, next) = (a.len() + b.len() + 3, a.len() + b.len() + 8);
        let number = 2 * a.len() + b.len() + 9;
        assert_eq!(
            errors(&p),
            [
                format!(
                    "m.json:1:{bad}: invalid JSON: expected value, after 2 complete JSON values on this line (read); \
                     the line is read on from column {next}, after a carriage return (an old Mac line end); expected \
                     {NDJSON_EXPECTED}"
                ),
                format!("m.json:1:{number}: found a number; expected {NDJSON_EXPECTED}"),
            ]
        );
    }

    /// Break-it 42 H5: a value cut inside a string before the next one of
    /// its line lost every value after it on the line (10 of 19 stored).
    #[test]
    fn a_value_cut_before_the_next_on_its_line_loses_no_value_after_it() {
        let e2 = event("e2");
        let cut = &e2[..e2.find("e2").expect("e2") + 1];
        let line = format!("{}{}{cut}{}{}\n", event("e0"), event("e1"), event("e3"), event("e4"));
        let mut p = Parsed::default();
        parse_ndjson_line("x.ndjson", 5, line.as_bytes(), None, &mut p);
        assert_eq!(names(&p), ["e0", "e1", "e3", "e4"], "{:?}", p.errors);
        let errors = errors(&p);
        let next = 2 * event("e0").len() + cut.len() + 1;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains(&format!(
                "after 2 complete JSON values on this line (read); the line is read on from column {next}, at the \
                 next object"
            )),
            "{errors:?}"
        );
    }

    /// Break-it 33 F5: a line holding a JSON array (`jq -c .items`) lost
    /// its 4 items ("found a JSON array"); a bad item is its own error.
    #[test]
    fn a_line_holding_an_array_loads_each_item() {
        let items: Vec<String> = (1..5).map(|i| event(&format!("e{i}"))).collect();
        let text = format!("{}\n[{}]\n{}\n", event("e0"), items.join(","), event("e5"));
        let p = crate::parse::parse_bytes("ev.ndjson", text.as_bytes(), crate::parse::Naming::Ndjson);
        assert_eq!(names(&p), ["e0", "e1", "e2", "e3", "e4", "e5"], "{:?}", p.errors);
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let lines: Vec<Option<u64>> = p.records.iter().map(|r| r.origin.line).collect();
        assert_eq!(lines, [Some(1), Some(2), Some(2), Some(2), Some(2), Some(3)]);
        // A key twice in one item: that item's error, the others load.
        let bad = event("e2").replacen("\"apiVersion\":\"v1\"", "\"apiVersion\":\"v1\",\"apiVersion\":\"v1\"", 1);
        let text = format!("[{},{bad},{}]\n", event("e1"), event("e3"));
        let p = crate::parse::parse_bytes("ev.ndjson", text.as_bytes(), crate::parse::Naming::Ndjson);
        assert_eq!(names(&p), ["e1", "e3"], "{:?}", p.errors);
        let errors = errors(&p);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("ev.ndjson:1:")
                && errors[0].contains(": items[1]: invalid JSON: the key \"apiVersion\" appears twice"),
            "{errors:?}"
        );
    }
}
