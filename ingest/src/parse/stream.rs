//! JSON files of one or more documents: one object or List, or
//! concatenated documents as `kubectl get -w -o json` writes them, or the
//! stdout of `kubectl cluster-info dump`, whose Lists are followed by
//! container logs between `==== START logs for container … ====` and
//! `==== END logs for container … ====` lines. Those log sections hold no
//! object: each is counted in [`Parsed::skipped`].
//!
//! Each object is read key by key and a List (or a bare JSON array of
//! objects) item by item ([`super::walk`]):
//! a bad item is skipped and the others load; a List cut off by the end of
//! the file keeps its complete items. After any other bad document, reading
//! resumes at the next line that opens a document (or a log section) in
//! column 0. The interrupt is looked at every few MB read, between documents
//! and inside one; when it is triggered, reading stops (one error says where).
//!
//! In a file named YAML (JSON documents saved as `.yaml`, e.g. `for …; do
//! kubectl get … -o json; echo ---; done`), a line that is a bare YAML
//! document marker (`---` or `...`) separates documents: no input error
//! (break-it 45 M1: one per marker, which hid the one bad document's own).

use serde_json::Value;

use super::walk::{self, Walked};
use super::{expand_document, json_error_what, line_of_offset, InputError, Parsed};
use crate::interrupt::Interrupt;
use crate::store::Origin;

/// How a container log section of `kubectl cluster-info dump` opens, in column 0.
const LOG_START: &[u8] = b"==== START logs for ";

/// Reads `bytes` as JSON documents into `out`, until they end or
/// `interrupt` is triggered; `yaml_markers`: the file is named YAML, so
/// bare `---` / `...` lines between documents are separators.
pub(super) fn parse_json_stream(
    location: &str,
    bytes: &[u8],
    hint: Option<&str>,
    yaml_markers: bool,
    interrupt: &Interrupt,
    out: &mut Parsed,
) {
    let mut pos = 0usize;
    // The offset at which the interrupt was last looked at.
    let mut checked = 0usize;
    loop {
        pos += bytes[pos..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        if pos >= bytes.len() {
            return;
        }
        // A byte-order mark opens each file joined with `cat` (one saved
        // by a Windows editor): not part of the JSON (break-it 31 F5).
        if bytes[pos..].starts_with(b"\xEF\xBB\xBF") {
            pos += 3;
            continue;
        }
        if pos >= checked + walk::CHECK_EVERY {
            checked = pos;
            if interrupt.is_triggered() {
                out.errors.push(InputError {
                    origin: Origin {
                        location: location.to_string(),
                        line: Some(line_of_offset(bytes, pos)),
                        item: None,
                    },
                    column: None,
                    message: walk::STOPPED.to_string(),
                });
                return;
            }
        }
        if yaml_markers && at_line_start(bytes, pos) {
            let line_end = bytes[pos..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |i| pos + i);
            if super::is_bare_yaml_marker(&bytes[pos..line_end]) {
                pos = line_end;
                continue;
            }
        }
        if bytes[pos..].starts_with(LOG_START) && at_line_start(bytes, pos) {
            out.skipped += 1;
            match log_section_end(bytes, pos) {
                Some(end) => pos = end,
                // No end line: the file was cut inside this log (the rest is
                // log), unless a Kubernetes object follows, read from there on.
                None => match next_object_start(bytes, pos + 1) {
                    None => return,
                    Some(next) => {
                        out.errors.push(InputError {
                            origin: Origin {
                                location: location.to_string(),
                                line: Some(line_of_offset(bytes, pos)),
                                item: None,
                            },
                            column: None,
                            message: format!(
                                "this container-log section (`==== START logs for …`) has no `==== END logs for …` \
                                 line; read as log up to the Kubernetes object on line {}",
                                line_of_offset(bytes, next)
                            ),
                        });
                        pos = next;
                    }
                },
            }
            continue;
        }
        if bytes[pos] == b'{' || bytes[pos] == b'[' {
            let read = if bytes[pos] == b'{' { walk::read_document } else { walk::read_array };
            match read(location, bytes, pos, hint, interrupt, out) {
                Walked::Read(end) => {
                    pos = end;
                    continue;
                }
                Walked::Broken(at) => match next_document_start(bytes, at) {
                    Some(next) => {
                        pos = next;
                        continue;
                    }
                    None => return,
                },
                Walked::Interrupted => return,
                Walked::Whole => {}
            }
        }
        // Keys checked for duplicates (`strict`): which of two values is meant is unknown.
        let mut stream = serde_json::Deserializer::from_slice(&bytes[pos..]).into_iter::<super::strict::Strict>();
        match stream.next() {
            None => return,
            Some(Ok(super::strict::Strict(doc))) => {
                let origin =
                    Origin { location: location.to_string(), line: Some(line_of_offset(bytes, pos)), item: None };
                expand_document(doc, origin, hint, out);
                pos += stream.byte_offset().max(1);
            }
            Some(Err(e)) => {
                // The parser counts from `pos`: the first line's columns from `pos`'s column.
                let line = line_of_offset(bytes, pos) - 1 + e.line() as u64;
                let column = if e.line() == 1 { column_of(bytes, pos) - 1 + e.column() } else { e.column() };
                let what = if e.is_eof() {
                    "the file ends in the middle of a JSON document (truncated?)".to_string()
                } else {
                    json_error_what(&e)
                };
                out.errors.push(InputError {
                    origin: Origin { location: location.to_string(), line: Some(line), item: None },
                    // Columns are 1-based: serde_json's 0 is just past a line
                    // break (the input ends there), said as the line alone
                    // (new-user trial 43: `<stdin>:2:0`).
                    column: (column > 0).then_some(column as u64),
                    message: format!("{what}; expected a Kubernetes object or list"),
                });
                match next_document_start(bytes, pos + stream.byte_offset().max(1)) {
                    Some(next) => pos = next,
                    None => return,
                }
            }
        }
    }
}

/// Whether `pos` is the first byte of a line.
fn at_line_start(bytes: &[u8], pos: usize) -> bool {
    pos == 0 || bytes[pos - 1] == b'\n'
}

/// The 1-based column (in bytes) of offset `pos`.
fn column_of(bytes: &[u8], pos: usize) -> usize {
    pos - bytes[..pos].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1
}

/// The offset just past the log section opening at `start` (a
/// `==== START logs for container C of pod NS/P ====` line): past the end
/// of the line holding its `==== END logs for container C of pod NS/P ====`
/// (which follows the log text on the same line when the log does not end
/// with a newline); `None` when the file has no such line.
fn log_section_end(bytes: &[u8], start: usize) -> Option<usize> {
    let line_end = bytes[start..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |i| start + i);
    let subject = &bytes[start + LOG_START.len()..line_end];
    let end_marker = [&b"==== END logs for "[..], subject.trim_ascii_end()].concat();
    let after = line_end + find(&bytes[line_end..], &end_marker)? + end_marker.len();
    Some(bytes[after..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |i| after + i + 1))
}

/// The offset of the next document at or after `from` (`{` in column 0)
/// that is a Kubernetes object or list (a JSON object with a `kind`), past
/// log lines that are JSON too.
fn next_object_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(next) = next_document_start(bytes, at) {
        if bytes[next] == b'{' {
            let mut stream = serde_json::Deserializer::from_slice(&bytes[next..]).into_iter::<Value>();
            if let Some(Ok(v)) = stream.next() {
                if v.get("kind").is_some_and(Value::is_string) {
                    return Some(next);
                }
            }
        }
        at = next + 1;
    }
    None
}

/// The offset of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The offset of the next line at or after `from` that opens a document
/// (`{` in column 0) or a log section.
fn next_document_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from.min(bytes.len());
    while i < bytes.len() {
        if at_line_start(bytes, i) && (bytes[i] == b'{' || bytes[i..].starts_with(LOG_START)) {
            return Some(i);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, Naming};

    #[test]
    fn cluster_info_dump_log_sections_are_skipped() {
        let list = |name: &str| {
            format!(
                "{{\n    \"kind\": \"PodList\",\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {{\"metadata\": \
                 {{\"name\": \"{name}\", \"namespace\": \"kube-system\"}}}}\n    ]\n}}\n"
            )
        };
        let input = [
            list("a"),
            "==== START logs for container c of pod kube-system/a ====\nI0101 started\n{\"level\":\"info\"}\n\
             ==== END logs for container c of pod kube-system/a ====\n"
                .to_string(),
            // A log that does not end with a newline, then an empty one.
            "==== START logs for container d of pod kube-system/a ====\nno newline==== END logs for container d of \
             pod kube-system/a ====\n==== START logs for container e of pod kube-system/a ====\n==== END logs for \
             container e of pod kube-system/a ====\n"
                .to_string(),
            list("b"),
            // The dump cut inside a log.
            "==== START logs for container c of pod kube-system/b ====\n{ half a log line\n".to_string(),
        ]
        .concat();
        let p = parse_bytes("cidump.json", input.as_bytes(), Naming::Json);
        assert_eq!(p.errors, []);
        let names: Vec<&str> = p.records.iter().filter_map(|r| r.object["metadata"]["name"].as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(p.skipped, 4);
    }

    #[test]
    fn a_bad_document_is_positioned_once_from_the_files_start() {
        let input =
            b"{\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}} {\"kind\": oops}\nnot json\n{\"kind\": \"Pod\", \
                      \"metadata\": {\"name\": \"b\"}}\n";
        let p = parse_bytes("c.json", input, Naming::Json);
        assert_eq!(p.records.len(), 2);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, ["c.json:1:53: invalid JSON: expected value; expected a Kubernetes object or list"]);
    }

    /// Break-it 31 F5: two Lists joined with `cat`, each saved with a
    /// byte-order mark: the second List was lost (5 of 10).
    #[test]
    fn a_byte_order_mark_before_a_later_document_is_skipped() {
        let list = |a: &str, b: &str| {
            format!(
                "\u{feff}{{\"kind\":\"PodList\",\"items\":[{{\"metadata\":{{\"name\":\"{a}\"}}}},{{\"metadata\":{{\"name\":\"{b}\"}}}}]}}\n"
            )
        };
        let text = list("p0", "p1") + &list("p2", "p3");
        let p = parse_bytes("pods.json", text.as_bytes(), Naming::Json);
        let names: Vec<&str> = p.records.iter().filter_map(|r| r.object["metadata"]["name"].as_str()).collect();
        assert_eq!((names, p.errors.len()), (vec!["p0", "p1", "p2", "p3"], 0), "{:?}", p.errors);
    }

    /// Break-it 45 M1: JSON documents saved as `.yaml` with `---` (or `...`)
    /// between them and one bad document gave one error per marker line
    /// (199 for 200 documents), hiding the bad document's own past the cap.
    #[test]
    fn yaml_markers_between_json_documents_are_separators() {
        let doc = |n: usize| format!("{{\"kind\": \"Pod\", \"metadata\": {{\"name\": \"p{n}\"}}}}");
        let pretty = |n: usize| format!("{{\n  \"kind\": \"Pod\",\n  \"metadata\": {{\"name\": \"p{n}\"}}\n}}");
        let bad = "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"x\"}, \"bad\" 1}".to_string();
        for (sep, form) in [("---\n", &doc as &dyn Fn(usize) -> String), ("...\n", &doc), ("---\n", &pretty)] {
            let mut docs: Vec<String> = (0..6).map(form).collect();
            docs[4] = bad.clone();
            let text: String = docs.iter().map(|d| format!("{d}\n{sep}")).collect();
            let p = parse_bytes("docs.yaml", text.as_bytes(), Naming::Yaml);
            let names: Vec<&str> = p.records.iter().filter_map(|r| r.object["metadata"]["name"].as_str()).collect();
            assert_eq!(names, ["p0", "p1", "p2", "p3", "p5"], "{sep:?}");
            let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
            let line = docs[..4].iter().map(|d| d.lines().count() + 1).sum::<usize>() + 1;
            assert_eq!(errors.len(), 1, "{sep:?}: {errors:?}");
            assert!(errors[0].starts_with(&format!("docs.yaml:{line}:")), "{sep:?}: {errors:?}");
        }
        // The same markers in a file named JSON are no JSON: each one an error.
        let text = format!("{}\n---\n{}\n", doc(0), doc(1));
        let p = parse_bytes("docs.json", text.as_bytes(), Naming::Json);
        assert_eq!((p.records.len(), p.errors.len()), (2, 1));
    }
}
