//! Turns the bytes of a dump file into object-version records: JSON (one
//! document, concatenated documents as `kubectl get -w -o json` writes, or
//! NDJSON), YAML (one or many documents), lists (`List`, `EventList`,
//! `PodList`, `NodeList`, `items: null`), watch-event wrappers, old
//! internal-type dumps and flattened log-store exports. Bad input becomes an
//! [`InputError`] naming the line (or item) and what was expected; the
//! records around it are kept: a List cut off by the end of its file keeps
//! its complete items (`cut`), the container logs in `kubectl cluster-info
//! dump`'s stdout are skipped (`stream`), UTF-16 text is decoded first
//! (`utf16`). List items without `kind` (every List of a `kubectl
//! cluster-info dump`) get it from the List, the file name or their shape
//! (`kinds`). Secrets and ConfigMaps are never kept ([`NOT_KEPT_KINDS`]),
//! nor kinds kdrift has no use for ([`kinds::UNUSED_KINDS`]).

mod cut;
pub(crate) use cut::{json_cut_error_at, CutAt};
pub(crate) use walk::{bad_item_message, items_twice_message, STOPPED};
pub mod depth;
pub mod flat;
mod flow_items;
pub mod kinds;
pub mod legacy;
mod line;
mod resync;
mod stream;
mod strict;
pub use strict::MAX_PARSED_BYTES;
pub(crate) use strict::{current as current_bounds, enter as enter_bounds, map_ordered, Bounds, Strict};
mod utf16;
pub(crate) use utf16::{decode as utf16_decode, LOSSY as UTF16_LOSSY};
mod walk;
mod yaml_items;
pub(crate) use yaml_items::{ends_items, list_fields, parse_item, Item};

use serde_json::Value;

use crate::interrupt::Interrupt;
use crate::store::{identify, Change, Origin, Record};

pub use line::parse_ndjson_line;
pub(crate) use line::parse_ndjson_line_until;

/// The syntax a file was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One JSON document, or several concatenated.
    Json,
    /// One JSON document per line.
    Ndjson,
    /// One or more YAML documents.
    Yaml,
}

impl Format {
    /// The value stored in `ingest_files.format`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Ndjson => "ndjson",
            Format::Yaml => "yaml",
        }
    }
}

/// One piece of input that could not be read, with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// File, line (1-based) and list item (0-based) when known.
    pub origin: Origin,
    /// 1-based column, when the parser reports it.
    pub column: Option<u64>,
    /// What was wrong and what was expected.
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.origin.location)?;
        if let Some(line) = self.origin.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        if let Some(item) = self.origin.item {
            write!(f, ": items[{item}]")?;
        }
        // The message may quote the file's or a server's text (issue 34).
        write!(f, ": {}", kdrift_rebalance::mask_shown(&self.message))
    }
}

/// Everything read from one file.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The syntax detected (`None` when nothing could be read).
    pub format: Option<Format>,
    /// Object versions, in file order.
    pub records: Vec<Record>,
    /// Documents that hold no object (empty YAML documents, BOOKMARK events,
    /// the container logs of a `kubectl cluster-info dump`) and objects
    /// kdrift does not keep ([`NOT_KEPT_KINDS`], [`kinds::UNUSED_KINDS`]).
    pub skipped: u64,
    /// Input errors; the records above are still good. Those of a List's
    /// items, its objects and an NDJSON line's values are kept up to
    /// [`crate::kept_errors::KEPT_ERRORS_PER_FILE`].
    pub errors: Vec<InputError>,
    /// Input errors past the kept ones, only counted (break-it 39: a List
    /// of 2,000,000 `{}` held each item's error, 1.16 GB).
    pub errors_not_kept: u64,
}

impl Parsed {
    /// Keeps `error` while fewer than
    /// [`crate::kept_errors::KEPT_ERRORS_PER_FILE`] are kept, else counts it
    /// in [`Parsed::errors_not_kept`]. `errors` never shrinks.
    pub(crate) fn add_error(&mut self, error: InputError) {
        crate::kept_errors::keep(&mut self.errors, &mut self.errors_not_kept, error);
    }
}

/// A kind hint from a file name as `kubectl cluster-info dump` writes them
/// (`events.json`, `pods.json`, `nodes.json`, `deployments.json`,
/// `replication-controllers.json`, …: [`kinds::RESOURCES`]), for lists
/// whose items lack `kind`. The name up to its first `.` counts
/// (`replicasets.apps.json` is `replicasets`).
pub fn kind_hint_from_path(location: &str) -> Option<&'static str> {
    let file = location.rsplit(['/', '\\']).next().unwrap_or(location);
    let stem = file.split('.').next().unwrap_or("");
    kinds::kind_of_resource_name(stem)
}

/// What a file's name says about its syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// `.yaml`, `.yml` (also `.gz`): read as YAML.
    Yaml,
    /// `.json` (also `.gz`): read as JSON or NDJSON only; content that is
    /// not JSON is an error, not read as YAML.
    Json,
    /// `.ndjson`, `.jsonl` (also `.gz`): read line by line as NDJSON when
    /// any line opens with `{` (a bad line, even the first, is an error of
    /// its own and the others load); otherwise one error, as [`Naming::Json`].
    Ndjson,
    /// Any other name: the content decides.
    Content,
}

impl Naming {
    /// The naming of `location`'s file name (case-insensitive, after a `.gz`).
    pub fn of(location: &str) -> Naming {
        match name_ending(location).as_deref() {
            Some("yaml" | "yml") => Naming::Yaml,
            Some("json") => Naming::Json,
            Some("ndjson" | "jsonl") => Naming::Ndjson,
            _ => Naming::Content,
        }
    }
}

/// The ending of a file name after any `.gz`, lowercased (`json` for `x.JSON.gz`).
fn name_ending(location: &str) -> Option<String> {
    let file = location.rsplit(['/', '\\']).next().unwrap_or(location).to_ascii_lowercase();
    let file = file.strip_suffix(".gz").unwrap_or(&file);
    file.rsplit_once('.').map(|(_, ext)| ext.to_string())
}

#[cfg(test)]
/// Parses one file's (already decompressed) bytes. [`Naming::Yaml`] reads
/// YAML; [`Naming::Json`] reads JSON or NDJSON, and content that opens
/// with neither `{` nor `[` is one error (a YAML dump saved as `.json`);
/// [`Naming::Ndjson`] reads NDJSON line by line when a line opens with `{`
/// (a bad first line is that line's error), else is one error as `.json`;
/// [`Naming::Content`]: the first non-blank byte decides (`{`/`[` → JSON,
/// else YAML). UTF-16 text (PowerShell's `>`) is decoded first and read
/// as its UTF-8 copy would be.
pub fn parse_bytes(location: &str, bytes: &[u8], named: Naming) -> Parsed {
    parse_bytes_until(location, bytes, named, &Interrupt::new())
}

#[cfg(test)]
/// [`parse_bytes`], stopping early when `interrupt` is triggered (looked at
/// between documents and every few MB inside a JSON List): what was read
/// before is returned, with an error at the place reading stopped.
pub fn parse_bytes_until(location: &str, bytes: &[u8], named: Naming, interrupt: &Interrupt) -> Parsed {
    parse_bytes_with(location, bytes, named, depth::MAX_YAML_DEPTH, interrupt)
}

/// [`parse_bytes_until`] refusing YAML documents that nest deeper than
/// `yaml_depth` levels ([`depth::too_deep`]; `--max-yaml-depth`) instead
/// of [`depth::MAX_YAML_DEPTH`].
pub fn parse_bytes_with(
    location: &str,
    bytes: &[u8],
    named: Naming,
    yaml_depth: usize,
    interrupt: &Interrupt,
) -> Parsed {
    // Each value's parse stops on `interrupt` too (`strict`), within the
    // parsed-size cap of this thread.
    let _bounds = strict::enter(Bounds { interrupt: Some(interrupt.clone()), ..strict::current() });
    if let Some((text, lossy)) = utf16::decode(bytes) {
        let mut out = parse_bytes_with(location, text.as_bytes(), named, yaml_depth, interrupt);
        if lossy {
            let origin = Origin { location: location.to_string(), line: None, item: None };
            out.errors.insert(0, InputError { origin, column: None, message: utf16::LOSSY.into() });
        }
        return out;
    }
    // JSON saved as `.yaml` (`kubectl get -o json > events.yaml`) is read
    // as JSON, item by item (break-it 42 H3: one bad item lost all 400).
    let yaml_by_name = named == Naming::Yaml && !is_json_text(bytes);
    let mut out = Parsed::default();
    let hint = kind_hint_from_path(location);
    // A UTF-8 byte-order mark (Windows editors) is not content.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    let Some(first) = first else {
        out.format = Some(if yaml_by_name { Format::Yaml } else { Format::Json });
        out.errors.push(InputError {
            origin: Origin { location: location.to_string(), line: None, item: None },
            column: None,
            message: EMPTY_FILE.into(),
        });
        return out;
    };
    if named == Naming::Ndjson
        && !pretty_values_in(bytes)
        && bytes.split(|b| *b == b'\n').any(|l| l.trim_ascii_start().starts_with(b"{"))
    {
        out.format = Some(Format::Ndjson);
        parse_ndjson(location, bytes, hint, &mut out);
        return out;
    }
    if matches!(named, Naming::Ndjson | Naming::Content) && ndjson_after_a_bad_first_line(bytes) {
        out.format = Some(Format::Ndjson);
        parse_ndjson(location, bytes, hint, &mut out);
        return out;
    }
    if matches!(named, Naming::Json | Naming::Ndjson) && first != b'{' && first != b'[' {
        out.format = Some(Format::Json);
        out.errors.push(not_json_error(location, bytes));
        return out;
    }
    if !yaml_by_name && (first == b'{' || first == b'[') {
        if looks_like_ndjson(bytes) {
            out.format = Some(Format::Ndjson);
            parse_ndjson(location, bytes, hint, &mut out);
        } else {
            out.format = Some(Format::Json);
            stream::parse_json_stream(location, bytes, hint, named == Naming::Yaml, interrupt, &mut out);
        }
        // A `.yaml` file that opened like JSON but is not all JSON (YAML
        // flow style, a YAML document after it): read as YAML when YAML
        // reads it all, or more of it.
        if named == Naming::Yaml && !out.errors.is_empty() && !interrupt.is_triggered() {
            let mut yaml = Parsed { format: Some(Format::Yaml), ..Parsed::default() };
            parse_yaml(location, bytes, hint, yaml_depth, interrupt, &mut yaml);
            let fewer_errors = yaml.records.len() == out.records.len() && yaml.errors.len() < out.errors.len();
            if yaml.errors.is_empty() || yaml.records.len() > out.records.len() || fewer_errors {
                return yaml;
            }
        }
    } else {
        out.format = Some(Format::Yaml);
        parse_yaml(location, bytes, hint, yaml_depth, interrupt, &mut out);
    }
    out
}

/// Whether `bytes` (after blanks and a UTF-8 byte-order mark) open a JSON
/// document, not YAML flow style: `{` then a quoted key or `}`, or `[`
/// then `]` or such an object. `kubectl get -o json > events.yaml` is
/// JSON in a file named YAML; it goes to the JSON readers, whose recovery
/// of a bad item is finer (break-it 42 H3).
pub(crate) fn is_json_text(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rest = bytes.trim_ascii_start();
    if let Some(after) = rest.strip_prefix(b"[") {
        rest = after.trim_ascii_start();
        if rest.starts_with(b"]") {
            return true;
        }
    }
    match rest.strip_prefix(b"{") {
        Some(after) => matches!(after.trim_ascii_start().first(), Some(b'"' | b'}')),
        None => false,
    }
}

/// The error of a file whose name says JSON (`.json`, `.ndjson`, `.jsonl`,
/// also `.gz`) but whose first non-blank character opens no JSON document
/// (a `kubectl get` table, YAML, a log), judged from its first bytes
/// (`head`, decompressed; UTF-16 decoded first), as [`parse_bytes`] would
/// report it; `None` for any other file. `kdrift ingest file` refuses such
/// a file before it opens the store when nothing else is given.
pub fn not_json_for_its_name(location: &str, head: &[u8]) -> Option<InputError> {
    if let Some((text, _)) = utf16::decode(head) {
        return not_json_for_its_name(location, text.as_bytes());
    }
    if !matches!(Naming::of(location), Naming::Json | Naming::Ndjson) {
        return None;
    }
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first = head.iter().copied().find(|b| !b.is_ascii_whitespace())?;
    // NDJSON is read line by line: a bad first line is that line's error.
    if Naming::of(location) == Naming::Ndjson && ndjson_after_a_bad_first_line(head) {
        return None;
    }
    (first != b'{' && first != b'[').then(|| not_json_error(location, head))
}

/// The error of a file named `.json` (`.ndjson`, `.jsonl`) whose content
/// is not JSON: at the line and column of its first non-blank character,
/// quoting that line, saying where YAML goes when it looks like YAML.
fn not_json_error(location: &str, bytes: &[u8]) -> InputError {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(0);
    let line = line_of_offset(bytes, start);
    let line_start = bytes[..start].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&bytes[line_start..start]).chars().count() as u64 + 1;
    let text = bytes[start..].split(|b| *b == b'\n').next().unwrap_or_default();
    let text = String::from_utf8_lossy(text);
    let mut quoted: String = text.trim_end().chars().take(60).collect();
    if quoted.len() < text.trim_end().len() {
        quoted.push('…');
    }
    let ending = name_ending(location).unwrap_or_else(|| "json".into());
    let why = if looks_like_yaml(bytes) {
        format!(
            "it looks like YAML, but a file ending .{ending} is read as JSON only: YAML goes in a file ending .yaml \
             or .yml"
        )
    } else {
        format!("a file ending .{ending} is read as JSON only (a `kubectl get` table is no dump: add `-o json`)")
    };
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line), item: None },
        column: Some(column),
        message: format!(
            "expected JSON (a Kubernetes object or list, opening with `{{` or `[`), found {quoted:?}; {why}"
        ),
    }
}

/// Whether bytes of a file whose name says nothing (`.txt`, `.tsv`, no
/// ending) can be a dump: JSON or NDJSON (the first non-blank byte is `{`
/// or `[`) or YAML (the first line that is not blank or a `#` comment is a
/// `---` or `%YAML` marker or a `- ` list item, or it is a `key:` of a
/// mapping whose unindented keys, in these bytes, include `apiVersion`,
/// `kind`, `items` or `metadata`, as every Kubernetes object and list has).
/// A table (`kubectl get` without `-o`, a TSV) is none of them, nor is
/// `kubectl describe` output (`Name:   web-0`, `Namespace:   default`, …),
/// which reads as YAML but holds no object.
///
/// UTF-16 text (PowerShell's `>`) is judged by its characters.
pub fn looks_like_a_dump(bytes: &[u8]) -> bool {
    if let Some((text, _)) = utf16::decode(bytes) {
        return looks_like_a_dump(text.as_bytes());
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if is_docker_json_log(bytes) {
        return false;
    }
    match first_line_shape(bytes) {
        // `---` then `kubectl describe` text is no dump either.
        Shape::Mapping | Shape::DocumentMarker => top_level_keys(bytes).any(|k| KUBERNETES_KEYS.contains(&k)),
        Shape::Other => ndjson_after_a_bad_first_line(bytes),
        _ => true,
    }
}

/// Whether `bytes` open with a line that is neither JSON nor YAML (a
/// kubectl warning `W1207 … memcache.go:287]` captured with `2>&1`, a log
/// collector's banner) and go on as NDJSON: the next line that is not
/// blank or a `#` comment is one JSON object. Such a file (or stdin) is
/// read line by line, its first line one input error (break-it 46 M1: it
/// was refused whole, its good lines lost).
pub(crate) fn ndjson_after_a_bad_first_line(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if first_line_shape(bytes) != Shape::Other {
        return false;
    }
    let mut lines =
        bytes.split(|b| *b == b'\n').map(<[u8]>::trim_ascii).filter(|l| !l.is_empty() && !l.starts_with(b"#"));
    lines.next();
    lines.next().is_some_and(|l| l.len() > 1 && l.starts_with(b"{") && l.ends_with(b"}"))
}

/// Keys every Kubernetes object or list has at its top level.
const KUBERNETES_KEYS: [&[u8]; 4] = [b"apiVersion", b"kind", b"items", b"metadata"];

/// The unindented `key:` lines' keys, without the quotes of a quoted key
/// (`"apiVersion": v1`).
fn top_level_keys(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split(|b| *b == b'\n').filter_map(|line| {
        let i = line.iter().position(|b| *b == b':')?;
        let key = &line[..i];
        let key = match key {
            [q @ (b'"' | b'\''), inner @ .., end] if end == q => inner,
            _ => key,
        };
        (!key.is_empty() && !key.iter().any(u8::is_ascii_whitespace) && !key.starts_with(b"#")).then_some(key)
    })
}

/// What the first line that is not blank or a comment opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Nothing but blanks and comments.
    Empty,
    /// `{` or `[`: JSON or NDJSON.
    Json,
    /// A YAML document marker (`---`, `%YAML`).
    DocumentMarker,
    /// A YAML list item (`- `).
    ListItem,
    /// A `key:` of a YAML mapping.
    Mapping,
    /// Anything else (a table, a CSV, a URL).
    Other,
}

/// Whether the bytes read as YAML at all (a marker, a list item, a `key:`),
/// Kubernetes keys or not: for the message refusing YAML in a `.json` file.
fn looks_like_yaml(bytes: &[u8]) -> bool {
    matches!(first_line_shape(bytes), Shape::Empty | Shape::DocumentMarker | Shape::ListItem | Shape::Mapping)
}

fn first_line_shape(bytes: &[u8]) -> Shape {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some(first) = bytes
        .split(|b| *b == b'\n')
        .map(|l| l.trim_ascii_end())
        .find(|l| !l.trim_ascii().is_empty() && !l.trim_ascii_start().starts_with(b"#"))
    else {
        return Shape::Empty; // reported as an empty file
    };
    let first = first.trim_ascii_start();
    if first.starts_with(b"{") || first.starts_with(b"[") {
        return Shape::Json;
    }
    if first == b"---" || first.starts_with(b"--- ") || first.starts_with(b"%YAML") {
        return Shape::DocumentMarker;
    }
    if first == b"-" || first.starts_with(b"- ") {
        return Shape::ListItem;
    }
    // `key:` then a space or the end of the line; a plain key has no blanks.
    let key_end = first.iter().position(|b| *b == b':');
    let mapping = key_end.is_some_and(|i| {
        let key = &first[..i];
        let after = first.get(i + 1);
        !key.is_empty() && !key.iter().any(|b| b.is_ascii_whitespace()) && matches!(after, None | Some(b' '))
    });
    if mapping {
        Shape::Mapping
    } else {
        Shape::Other
    }
}

/// Why bytes that are not a dump ([`looks_like_a_dump`] false) are refused:
/// YAML-shaped text without a Kubernetes key (`kubectl describe` output)
/// is told apart from a table or CSV; both end with [`SUPPORTED_FORMATS`].
pub fn not_a_dump_message(bytes: &[u8]) -> String {
    if let Some((text, _)) = utf16::decode(bytes) {
        return not_a_dump_message(text.as_bytes());
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if is_docker_json_log(bytes) {
        return docker_json_log_message();
    }
    if is_kubectl_drain_output(bytes) {
        return format!(
            "`kubectl drain` output (`node/… cordoned`, `evicting pod …`), which says which pods were evicted but \
             not when they left nor where they landed: ingest the cluster's events (`kubectl get events -A -o \
             json`, or a VictoriaLogs pull) for the drain timeline; expected {SUPPORTED_FORMATS}"
        );
    }
    if matches!(first_line_shape(bytes), Shape::Mapping | Shape::DocumentMarker) {
        format!(
            "YAML-shaped text holding no Kubernetes object (no top-level apiVersion, kind, items or metadata; \
             `kubectl describe` output is not a dump: use `kubectl get … -o yaml`); expected {SUPPORTED_FORMATS}"
        )
    } else {
        format!("neither JSON, NDJSON nor YAML; expected {SUPPORTED_FORMATS}")
    }
}

/// Whether `bytes` read like `kubectl drain`'s output: one of its line
/// shapes (`node/N cordoned`, `evicting pod NS/P`, `pod/P evicted`, `error
/// when evicting pods/"P"`) in the first 64 KiB (new-user trial 46: it was
/// refused as `kubectl describe` output).
fn is_kubectl_drain_output(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64 << 10)]);
    head.lines().any(|l| {
        let l = l.trim();
        (l.starts_with("node/") && (l.ends_with(" cordoned") || l.ends_with(" drained")))
            || l.starts_with("evicting pod ")
            || l.starts_with("error when evicting pod")
            || (l.starts_with("pod/") && l.ends_with(" evicted"))
    })
}

/// The keys of a record of Docker's json-file log driver (`attrs` with
/// `--log-opt labels/env`; moby `daemon/logger/jsonfilelog/jsonlog`).
const DOCKER_JSON_LOG_KEYS: [&str; 4] = ["log", "stream", "time", "attrs"];

/// Whether bytes are Docker's json-file log driver's records (a
/// container's log as `/var/lib/docker/containers/ID/ID-json.log` holds it,
/// one `{"log":…,"stream":…,"time":…}` per line): the first line that is not
/// blank or a `#` comment is a JSON object with `log` and `time` and no key
/// but Docker's. Refused whatever the file's name (new-user trial 43: each
/// line was reported as an object without `kind`, after a store was created).
pub fn is_docker_json_log(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some(first) =
        bytes.split(|b| *b == b'\n').map(<[u8]>::trim_ascii).find(|l| !l.is_empty() && !l.starts_with(b"#"))
    else {
        return false;
    };
    match serde_json::from_slice::<serde_json::Map<String, Value>>(first) {
        Ok(map) => {
            map.contains_key("log")
                && map.contains_key("time")
                && map.keys().all(|k| DOCKER_JSON_LOG_KEYS.contains(&k.as_str()))
        }
        Err(_) => false,
    }
}

/// The error refusing a file of [`is_docker_json_log`].
pub fn docker_json_log_message() -> String {
    format!(
        "Docker json-file log records (log/stream/time), not Kubernetes objects: a container's log as Docker's \
         json-file driver writes it holds no object (for the events a kubelet log line mentions, ingest `kubectl get \
         events -A -o json`); expected {SUPPORTED_FORMATS}"
    )
}

/// The error of a file holding nothing but blanks (and a byte-order mark).
pub const EMPTY_FILE: &str =
    "the file is empty; expected a Kubernetes object, list or NDJSON (did `kubectl get … > file` fail?)";

/// What `kdrift ingest file` reads, for the message refusing anything else.
pub const SUPPORTED_FORMATS: &str = "JSON (a Kubernetes object or list), NDJSON (one object per line) or YAML; \
     files ending .json, .ndjson, .jsonl, .yaml or .yml (also .gz) are read by their ending, others by their content";

/// Whether a file named NDJSON holds pretty-printed JSON values instead
/// (`jq '.items[]'` without `-c`, break-it 32 N7): its first non-blank
/// line `a` opens an object that the line does not close, and the next
/// one `b` opens no object of its own (a key or value of that object).
/// Such a file is read as a stream of JSON values, as a `.json` file; a
/// genuinely bad line (`{"a":` then `{…}`) keeps its per-line error.
pub(crate) fn pretty_values_for_ndjson(a: &[u8], b: Option<&[u8]>) -> bool {
    let a = a.trim_ascii();
    if !a.starts_with(b"{") || b.is_none_or(|b| b.trim_ascii_start().starts_with(b"{")) {
        return false;
    }
    let mut stream = serde_json::Deserializer::from_slice(a).into_iter::<serde::de::IgnoredAny>();
    matches!(stream.next(), Some(Err(e)) if e.is_eof())
}

/// [`pretty_values_for_ndjson`] of the first two non-blank lines of `bytes`.
fn pretty_values_in(bytes: &[u8]) -> bool {
    let mut lines = bytes.split(|b| *b == b'\n').filter(|l| !l.trim_ascii().is_empty());
    lines.next().is_some_and(|a| pretty_values_for_ndjson(a, lines.next()))
}

/// NDJSON when the first two non-blank lines each look like a whole object
/// on one line (`{` … `}`); pretty-printed JSON opens with a lone `{`.
pub(crate) fn looks_like_ndjson(bytes: &[u8]) -> bool {
    let mut lines = bytes.split(|b| *b == b'\n').map(|l| l.trim_ascii()).filter(|l| !l.is_empty());
    let one_line_object = |l: &[u8]| l.len() > 1 && l.starts_with(b"{") && l.ends_with(b"}");
    match (lines.next(), lines.next()) {
        (Some(a), Some(b)) => one_line_object(a) && b.starts_with(b"{"),
        _ => false,
    }
}

fn line_of_offset(bytes: &[u8], offset: usize) -> u64 {
    let end = offset.min(bytes.len());
    bytes[..end].iter().filter(|b| **b == b'\n').count() as u64 + 1
}

fn parse_ndjson(location: &str, bytes: &[u8], hint: Option<&str>, out: &mut Parsed) {
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.len() > crate::ndjson_stream::MAX_LINE_BYTES {
            out.errors.push(crate::ndjson_stream::too_long_error(
                location,
                i as u64 + 1,
                line.len() as u64,
                crate::ndjson_stream::MAX_LINE_BYTES,
            ));
            continue;
        }
        parse_ndjson_line(location, i as u64 + 1, line, hint, out);
    }
}

/// What each line of an NDJSON file must hold.
pub const NDJSON_EXPECTED: &str = "one JSON object per line (a Kubernetes object or a log record)";

/// `a JSON array`, `a string`, … for messages.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a JSON array",
        Value::Object(_) => "a JSON object",
    }
}

/// `invalid JSON: ` and serde's text without its ` at line L column C`
/// (the error names the position once, counted from the file's start);
/// a value past its parsed limit or stopped on the interrupt says so
/// (`strict`).
pub(crate) fn json_error_what(e: &serde_json::Error) -> String {
    let text = kdrift_rebalance::json_error_text(e);
    if strict::is_too_large(&text) {
        return strict::too_large_message();
    }
    if strict::is_stopped(&text) {
        return walk::STOPPED.to_string();
    }
    format!("invalid JSON: {text}")
}

/// The rest of a YAML document marker line (`---`, `--- text`): `None`
/// when `line` is no marker, else the text after the marker (empty when
/// there is none). A marker starts a new document; its rest is that
/// document's first line.
///
/// A byte-order mark before the marker is no part of it (YAML lets one
/// open any document: `cat a.yaml b.yaml` of a file saved on Windows).
///
/// A document end (`...`, also with a comment after it) and a directive
/// (`%YAML 1.2`, `%TAG …`, which stand between a `...` and the next `---`)
/// end the document too, with no text of their own (break-it 46 M4: a
/// stream of `%YAML 1.2`, `---`, a document, `...` stored 1 of 200).
/// Both are in column 0, as YAML has them.
pub(crate) fn yaml_marker(line: &str) -> Option<&str> {
    let trimmed = line.strip_prefix('\u{feff}').unwrap_or(line).trim_end();
    if trimmed == "---" || trimmed.starts_with("--- ") || trimmed.starts_with("---\t") {
        return Some(trimmed.trim_start_matches('-').trim());
    }
    let document_end = trimmed == "..." || trimmed.starts_with("... ") || trimmed.starts_with("...\t");
    (document_end || trimmed.starts_with('%')).then_some("")
}

/// Whether `line` is a YAML document marker alone ([`yaml_marker`]): `---`
/// (a document starts), `...` (one ends), a directive (`%YAML 1.2`), with
/// at most a comment after it; trailing blanks and a byte-order mark
/// allowed.
pub(crate) fn is_bare_yaml_marker(line: &[u8]) -> bool {
    let Ok(line) = std::str::from_utf8(line) else { return false };
    yaml_marker(line).is_some_and(|rest| rest.is_empty() || rest.starts_with('#'))
}

/// Whether a YAML document's text holds nothing but blanks and comments
/// (an empty document: skipped, not numbered).
pub(crate) fn is_blank_yaml(doc_text: &str) -> bool {
    doc_text.trim().is_empty() || doc_text.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}

/// The error of a YAML file that is not valid UTF-8 (its invalid bytes
/// replaced by U+FFFD and the rest read).
pub(crate) const NOT_UTF8: &str =
    "the file is not valid UTF-8; invalid bytes were replaced by U+FFFD and the rest was read";

/// The line that opens a YAML document (the one after a `---` line)
/// without the byte-order mark it may open with: YAML lets one open any
/// document (break-it 43 L1: `---` then a BOM lost the document, "more
/// than one document").
pub(crate) fn without_document_bom(line: &str) -> &str {
    line.strip_prefix('\u{feff}').unwrap_or(line)
}

/// Splits YAML text into documents at `---` lines, with each document's
/// first line (1-based), so that one bad document does not lose the others.
fn yaml_documents(text: &str) -> Vec<(u64, String)> {
    let mut docs = Vec::new();
    let mut current = String::new();
    let mut start = 1u64;
    let mut after_marker = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let line = if std::mem::take(&mut after_marker) { without_document_bom(line) } else { line };
        if let Some(rest) = yaml_marker(line) {
            after_marker = true;
            docs.push((start, std::mem::take(&mut current)));
            start = i as u64 + 2;
            if !rest.is_empty() {
                current.push_str(rest);
                current.push('\n');
            }
            continue;
        }
        current.push_str(line);
    }
    docs.push((start, current));
    docs
}

fn parse_yaml(
    location: &str,
    bytes: &[u8],
    hint: Option<&str>,
    max_depth: usize,
    interrupt: &Interrupt,
    out: &mut Parsed,
) {
    let text = String::from_utf8_lossy(bytes);
    if let std::borrow::Cow::Owned(_) = text {
        out.errors.push(InputError {
            origin: Origin { location: location.to_string(), line: None, item: None },
            column: None,
            message: NOT_UTF8.into(),
        });
    }
    // Documents are numbered as a user counts them: the non-empty ones
    // (a leading `---` or an empty document between two is not one).
    let mut number = 0;
    // Bytes of documents read, and read when the interrupt was last looked at.
    let (mut read, mut checked) = (0usize, 0usize);
    for (n, (first_line, doc_text)) in yaml_documents(&text).into_iter().enumerate() {
        if is_blank_yaml(&doc_text) {
            if n > 0 {
                out.skipped += 1;
            }
            continue;
        }
        number += 1;
        read += doc_text.len();
        if read >= checked + walk::CHECK_EVERY {
            checked = read;
            if interrupt.is_triggered() {
                let origin = Origin { location: location.to_string(), line: Some(first_line), item: None };
                out.errors.push(InputError { origin, column: None, message: walk::STOPPED.to_string() });
                return;
            }
        }
        parse_yaml_document(location, first_line, number, &doc_text, hint, max_depth, out);
    }
}

/// Reads one non-blank YAML document, document `number` of its file (as a
/// user counts them), whose text `doc_text` begins on line `first_line`:
/// its records, or the errors naming what is wrong (a List cut off, bad
/// items, a document nesting deeper than `max_depth`), into `out`. The
/// whole-file reader calls it for every document, the streamed one
/// (`crate::yaml_stream`) for every document that is no List.
pub(crate) fn parse_yaml_document(
    location: &str,
    first_line: u64,
    number: usize,
    doc_text: &str,
    hint: Option<&str>,
    max_depth: usize,
    out: &mut Parsed,
) {
    if let Some((line, depth)) = depth::too_deep(doc_text, max_depth) {
        // Refused before the parser, whose work grows with the square of
        // the depth; in a List, only the items too deep (break-it 32 N6).
        let origin = Origin { location: location.to_string(), line: Some(first_line), item: None };
        if yaml_items::recover_yaml_items(doc_text, &origin, hint, max_depth, out) {
            return;
        }
        out.errors.push(InputError {
            origin: Origin { location: location.to_string(), line: Some(first_line - 1 + line), item: None },
            column: None,
            message: depth::too_deep_message(number, depth, max_depth),
        });
        return;
    }
    // Keys checked for duplicates, as in JSON (`strict`), and aliases
    // expanding past a bound given up.
    match strict::yaml_value(doc_text) {
        Ok(Value::Null) => out.skipped += 1,
        Ok(doc) => {
            let origin = Origin { location: location.to_string(), line: Some(first_line), item: None };
            if cut::is_cut_yaml_list(&doc) {
                cut::load_cut_yaml_list(doc, doc_text, origin, hint, out);
            } else if !(cut::may_have_cut_trailer(&doc) && cut::recover_cut_trailer(doc_text, &origin, hint, out)) {
                let items = doc.get("items").and_then(Value::as_array).map(Vec::len);
                let before = (out.records.len(), out.errors.len());
                expand_document(doc, origin, hint, out);
                // Each item at its `- ` line, when the items are those lines
                // (a flow sequence `items: [...]` has none).
                let starts = cut::item_starts(doc_text);
                if items.is_some_and(|n| n > 0 && n == starts.len()) {
                    set_item_lines(out, before, |k| starts.get(k as usize).map(|at| first_line + *at as u64));
                }
            }
        }
        Err(e) if strict::stopped(&e) => {
            let origin = Origin { location: location.to_string(), line: Some(first_line), item: None };
            out.errors.push(InputError { origin, column: None, message: walk::STOPPED.to_string() });
        }
        Err(e) if strict::expands_too_much(&e) => {
            // A List's items are read one by one: only those expanding too much are refused.
            let origin = Origin { location: location.to_string(), line: Some(first_line), item: None };
            if !yaml_items::recover_yaml_items(doc_text, &origin, hint, max_depth, out) {
                out.errors.push(InputError {
                    origin,
                    column: None,
                    message: strict::expansion_message(&format!("YAML document {number}"), doc_text),
                });
            }
        }
        Err(e) => {
            let (line, column) = match e.location() {
                Some(l) => (Some(first_line - 1 + l.line() as u64), Some(l.column() as u64)),
                None => (Some(first_line), None),
            };
            // The parser counts lines from the document's start; the user from the file's.
            let e = shift_line_numbers(&e.to_string(), first_line - 1);
            let origin = Origin { location: location.to_string(), line: Some(first_line), item: None };
            if cut::recover_cut_trailer(doc_text, &origin, hint, out)
                || cut::recover_yaml_list(doc_text, &origin, hint, &e, out)
                || yaml_items::recover_yaml_items(doc_text, &origin, hint, max_depth, out)
            {
                return;
            }
            let mut error = InputError {
                origin: Origin { location: location.to_string(), line, item: None },
                column,
                message: format!("invalid YAML in document {number}: {e}; expected a Kubernetes object or list"),
            };
            if flow_items::recover_flow_items(doc_text, &origin, hint, &error, out) {
                return;
            }
            if flow_items::flow_items_at(doc_text).is_some() {
                error.message = format!("{}; {}", error.message, flow_items::FLOW_ITEMS_HINT);
            }
            out.errors.push(error);
        }
    }
}

/// `text` with every `line N` made `line N+offset`.
fn shift_line_numbers(text: &str, offset: u64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("line ") {
        let (before, after) = rest.split_at(i + "line ".len());
        out.push_str(before);
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<u64>() {
            Ok(n) => out.push_str(&(n + offset).to_string()),
            Err(_) => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The kind of a List's items that lack one: the List's `<Kind>List`, else
/// the resource its `selfLink` names, else `fallback` (the file name's).
fn list_item_hint(doc: &Value, fallback: Option<&'static str>) -> Option<String> {
    if let Some(kind) = doc.get("kind").and_then(Value::as_str) {
        if let Some(base) = kind.strip_suffix("List") {
            if !base.is_empty() {
                return Some(base.to_string());
            }
        }
    }
    if let Some((kind, _)) = list_self_link(doc).and_then(kinds::kind_of_self_link) {
        return Some(kind.to_string());
    }
    fallback.map(str::to_string)
}

/// A List's `selfLink` (`metadata.selfLink`, or flattened at the top in
/// internal-type dumps).
fn list_self_link(doc: &Value) -> Option<&str> {
    doc.pointer("/metadata/selfLink").or_else(|| doc.get("selfLink")).and_then(Value::as_str)
}

/// The `apiVersion` of a List's items of kind `kind` that lack one: the
/// List's own when it is a `<kind>List` (`apiVersion: apps/v1`,
/// `kind: DeploymentList`), else the group and version its `selfLink`
/// was served at when that names the same resource
/// (`/apis/extensions/v1beta1/namespaces/web/deployments`). `None`: the
/// kind's default applies.
fn list_item_api_version(doc: &Value, kind: &str) -> Option<String> {
    let list_kind = doc.get("kind").and_then(Value::as_str);
    let own = doc.get("apiVersion").and_then(Value::as_str).filter(|v| !v.trim().is_empty());
    if let (Some(list_kind), Some(own)) = (list_kind, own) {
        if list_kind.strip_suffix("List") == Some(kind) {
            return Some(own.to_string());
        }
    }
    list_self_link(doc)
        .and_then(kinds::kind_of_self_link)
        .and_then(|(linked, api_version)| (linked == kind).then_some(api_version))
}

pub(crate) fn is_list(doc: &Value) -> bool {
    let Some(map) = doc.as_object() else { return false };
    let Some(items) = map.get("items") else { return false };
    let kind = map.get("kind").and_then(Value::as_str);
    (items.is_array() || items.is_null()) && kind.is_none_or(|k| k.ends_with("List"))
}

fn watch_change(doc: &Value) -> Option<Change> {
    let map = doc.as_object()?;
    if !map.contains_key("object") || map.len() > 2 {
        return None;
    }
    match map.get("type")?.as_str()? {
        "ADDED" => Some(Change::Added),
        "MODIFIED" => Some(Change::Modified),
        "DELETED" => Some(Change::Deleted),
        _ => None,
    }
}

/// What a List's items take from the List they are in: the kind of those
/// without one ([`list_item_hint`]) and the `apiVersion` of those of the
/// List's kind ([`list_item_api_version`]). The streamed reader of large
/// JSON Lists (`crate::json_stream`) reads the List's own fields first and
/// expands its items one at a time with it, as [`expand_document`] does.
#[derive(Debug, Clone, Default)]
pub(crate) struct ItemContext {
    hint: Option<String>,
    api_version: Option<String>,
}

impl ItemContext {
    /// The context of the List `doc` (its items may be left out) read from
    /// `location`; `hint` is the file name's kind ([`kind_hint_from_path`]).
    pub(crate) fn of(doc: &Value, location: &str, hint: Option<&str>) -> ItemContext {
        let item_hint = list_item_hint(doc, kind_hint_from_path(location));
        let item_hint = item_hint.or_else(|| hint.map(str::to_string));
        let api_version = item_hint.as_deref().and_then(|k| list_item_api_version(doc, k));
        ItemContext { hint: item_hint, api_version }
    }

    /// Expands item `i` of the List whose origin is `list` into `out`;
    /// `line` is the item's first line, when the reader knows it.
    pub(crate) fn expand_item(&self, item: Value, list: &Origin, i: u64, line: Option<u64>, out: &mut Parsed) {
        let mut item = if legacy::is_legacy(&item) { legacy::normalise_object(item) } else { item };
        if let (Some(version), Some(map)) = (&self.api_version, item.as_object_mut()) {
            // Only an item whose kind is the List's: one with its own kind keeps the default.
            if !has_kind(map) && map.get("apiVersion").and_then(Value::as_str).is_none_or(|v| v.is_empty()) {
                map.insert("apiVersion".into(), Value::String(version.clone()));
            }
        }
        // The document's first line is not the item's: the item's own, or
        // none (`set_item_lines` may give it later).
        let origin = Origin { item: Some(i), line, ..list.clone() };
        push_object(item, origin, self.hint.as_deref(), Change::Listed, out);
    }
}

/// Gives the records and errors `out` got after its first `records` and
/// `errors` that name a List's item but no line the item's first line,
/// `line_of(item)`: an error then says `FILE:LINE: items[I]`, as the docs
/// show (break-it 40 F11: a List read whole named the item only).
pub(crate) fn set_item_lines(
    out: &mut Parsed,
    (records, errors): (usize, usize),
    line_of: impl Fn(u64) -> Option<u64>,
) {
    let set = |o: &mut Origin| {
        if o.line.is_none() {
            o.line = o.item.and_then(&line_of);
        }
    };
    out.records.iter_mut().skip(records).for_each(|r| set(&mut r.origin));
    out.errors.iter_mut().skip(errors).for_each(|e| set(&mut e.origin));
}

/// The 1-based line of each offset of `offsets` (in increasing order) in
/// `bytes`, counted in one pass.
pub(crate) fn lines_at(bytes: &[u8], offsets: &[usize]) -> Vec<u64> {
    let (mut line, mut pos) = (1u64, 0usize);
    offsets
        .iter()
        .map(|&at| {
            let at = at.min(bytes.len());
            if at > pos {
                line += bytes[pos..at].iter().filter(|b| **b == b'\n').count() as u64;
                pos = at;
            }
            line
        })
        .collect()
}

/// Expands one parsed document into records (a list into its items).
pub fn expand_document(doc: Value, origin: Origin, hint: Option<&str>, out: &mut Parsed) {
    // A bare JSON array of objects: treat it like a List.
    let doc = match doc {
        Value::Array(items) => serde_json::json!({ "kind": "List", "items": items }),
        other => other,
    };
    let doc = if legacy::is_legacy(&doc) { legacy::normalise_document(doc) } else { doc };
    if let Some(items) = doc.get("items").filter(|i| !i.is_array() && !i.is_null()) {
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("list");
        let found = match items {
            Value::Object(_) => "a mapping",
            Value::String(_) => "a string",
            _ => "a scalar",
        };
        out.add_error(InputError {
            origin,
            column: None,
            message: format!("{kind}.items is {found}; expected a list of objects (or null)"),
        });
        return;
    }
    if is_list(&doc) {
        let context = ItemContext::of(&doc, &origin.location, hint);
        let Value::Object(mut map) = doc else { return };
        let items = match map.remove("items") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(), // `items: null`: an empty list
        };
        for (i, item) in items.into_iter().enumerate() {
            context.expand_item(item, &origin, i as u64, None, out);
        }
        return;
    }
    if let Some(change) = watch_change(&doc) {
        let Value::Object(mut map) = doc else { return };
        let object = map.remove("object").unwrap_or(Value::Null);
        push_object(object, origin, hint, change, out);
        return;
    }
    if doc.get("type").and_then(Value::as_str) == Some("BOOKMARK") {
        out.skipped += 1;
        return;
    }
    if flat::is_flat(&doc) {
        let Value::Object(row) = doc else { return };
        match flat::convert(row) {
            Ok(c) if not_kept(&c.object, None) => out.skipped += 1,
            Ok(c) => {
                let mut object = c.object;
                match identify(&mut object, None) {
                    Ok(_) => out.records.push(Record { object, origin, observed_at: c.observed_at, change: c.change }),
                    Err(e) => out.add_error(InputError { origin, column: None, message: e.to_string() }),
                }
            }
            Err(e) => out.add_error(InputError { origin, column: None, message: e.to_string() }),
        }
        return;
    }
    push_object(doc, origin, hint, Change::Listed, out);
}

/// Kinds of object kdrift never stores, counted in [`Parsed::skipped`]:
/// it uses none of them, and their data (passwords, keys, configuration)
/// would travel with every copy of a store and every report it is attached to.
/// The kinds that exist to carry a credential (TokenRequest, TokenReview,
/// ExecCredential: `kdrift_store`'s `CREDENTIAL_KINDS`) are skipped too.
pub const NOT_KEPT_KINDS: [&str; 5] = ["Secret", "ConfigMap", "TokenRequest", "TokenReview", "ExecCredential"];

/// Whether `object` (its `kind`, else the kind `hint` gives it) is of a
/// kind kdrift does not keep ([`NOT_KEPT_KINDS`], [`kinds::UNUSED_KINDS`]).
fn not_kept(object: &Value, hint: Option<&str>) -> bool {
    // `secret`, ` Secret`: a hand-written kind is still a Secret to whoever reads the store.
    let kind = object.get("kind").and_then(Value::as_str).map(str::trim).filter(|k| !k.is_empty()).or(hint);
    kind.is_some_and(|k| NOT_KEPT_KINDS.iter().chain(&kinds::UNUSED_KINDS).any(|n| n.eq_ignore_ascii_case(k)))
}

/// Whether an object names its kind (a non-blank `kind`).
fn has_kind(map: &serde_json::Map<String, Value>) -> bool {
    map.get("kind").and_then(Value::as_str).is_some_and(|k| !k.trim().is_empty())
}

/// The error of an object whose kind nothing tells.
const NO_KIND: &str = "object has no `kind`, and neither its List (`kind: <Kind>List`, `selfLink`), its file's name \
     (pods.json, deployments.json, replication-controllers.json, …) nor its shape tells it; expected a Kubernetes \
     object with `kind`";

fn push_object(mut object: Value, origin: Origin, hint: Option<&str>, change: Change, out: &mut Parsed) {
    // `kind: 5` is a wrong type, not a missing kind to infer (break-it 34 L2).
    if let Err(e) = crate::store::check_identity_types(&object) {
        out.add_error(InputError { origin, column: None, message: e.to_string() });
        return;
    }
    // No kind, none from the List or file: the shape's (`kinds`).
    let hint = match object.as_object() {
        Some(map) if !has_kind(map) => match hint.or_else(|| kinds::kind_from_shape(&object)) {
            Some(kind) => Some(kind),
            None => {
                out.add_error(InputError { origin, column: None, message: NO_KIND.into() });
                return;
            }
        },
        _ => hint,
    };
    if not_kept(&object, hint) {
        out.skipped += 1;
        return;
    }
    match identify(&mut object, hint) {
        Ok(_) => out.records.push(Record { object, origin, observed_at: None, change }),
        Err(e) => out.add_error(InputError { origin, column: None, message: e.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndjson_keeps_good_lines_around_a_bad_one() {
        let input = b"{\"kind\":\"Event\",\"metadata\":{\"name\":\"a\"},\"involvedObject\":{}}\n{not json\n{\"kind\":\"Event\",\"metadata\":{\"name\":\"b\"},\"involvedObject\":{}}\n";
        let p = parse_bytes("x.ndjson", input, Naming::Json);
        assert_eq!(p.format, Some(Format::Ndjson));
        assert_eq!(p.records.len(), 2);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].origin.line, Some(2));
        assert!(p.errors[0].to_string().starts_with("x.ndjson:2:"), "{}", p.errors[0]);
    }

    #[test]
    fn a_named_ndjson_file_whose_first_line_is_bad_keeps_the_lines_after_it() {
        let good = "{\"kind\":\"Event\",\"metadata\":{\"name\":\"a\"},\"involvedObject\":{}}";
        for first in ["not json at all", "# exported by a shipper"] {
            for name in ["x.ndjson", "x.JSONL.gz"] {
                let input = format!("{first}\n{good}\n{}\n", good.replace("\"a\"", "\"b\""));
                let p = parse_bytes(name, input.as_bytes(), Naming::of(name));
                assert_eq!(p.format, Some(Format::Ndjson), "{name}");
                assert_eq!(p.records.len(), 2, "{name}: {:?}", p.errors);
                assert_eq!(p.errors.len(), 1, "{name}");
                assert_eq!(p.errors[0].origin.line, Some(1), "{name}");
            }
        }
        // No line opens like JSON (YAML saved as .ndjson): one error, as for `.json`.
        let p = parse_bytes("x.ndjson", b"kind: Node\nmetadata:\n  name: n1\n", Naming::of("x.ndjson"));
        assert_eq!((p.records.len(), p.errors.len()), (0, 1));
        assert!(p.errors[0].message.contains("read as JSON only"), "{}", p.errors[0].message);
    }

    #[test]
    fn truncated_json_names_the_line() {
        let input = b"{\n \"kind\": \"List\",\n \"items\": [\n  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}";
        let p = parse_bytes("t.json", input, Naming::Json);
        // The one item is complete: it loads.
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.errors.len(), 1);
        assert_eq!(p.errors[0].origin.line, Some(4));
        assert!(p.errors[0].message.contains("truncated"), "{}", p.errors[0].message);
        // Not a List: nothing to keep.
        let p = parse_bytes("t.json", b"{\n \"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\"", Naming::Json);
        assert_eq!(p.records.len(), 0);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            ["t.json:3:25: the file ends in the middle of a JSON document (truncated?); expected a Kubernetes object \
              or list"]
        );
        // Ending just past a line break: the line alone, never column 0
        // (columns are 1-based; new-user trial 43: `<stdin>:2:0`).
        let p = parse_bytes("<stdin>", b"{\"kind\":\"Pod\",\n", Naming::Json);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            ["<stdin>:2: the file ends in the middle of a JSON document (truncated?); expected a Kubernetes object or \
              list"]
        );
    }

    #[test]
    fn cluster_info_dump_lists_of_every_era_give_their_items_kind_and_api_version() {
        // 1.14+ (typed clients, printer sets the List's kind), `-o yaml` in later versions.
        let y = b"apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- metadata:\n    name: web\n    namespace: d\n  \
                  spec:\n    replicas: 1\n";
        let p = parse_bytes("/dump/d/deployments.yaml", y, Naming::Yaml);
        assert_eq!(p.errors, []);
        assert_eq!(
            (&p.records[0].object["kind"], &p.records[0].object["apiVersion"]),
            (&"Deployment".into(), &"apps/v1".into())
        );
        // Between: no List kind, public camelCase, the List's metadata.selfLink.
        let j = br#"{"metadata":{"selfLink":"/apis/apps/v1/namespaces/d/replicasets"},"items":[{"metadata":{"name":"web-1","namespace":"d"},"spec":{"replicas":1}}]}"#;
        let p = parse_bytes("/dump/d/whatever.json", j, Naming::Json);
        assert_eq!(
            (&p.records[0].object["kind"], &p.records[0].object["apiVersion"]),
            (&"ReplicaSet".into(), &"apps/v1".into())
        );
        // Nothing but the file name: the kind's default apiVersion.
        let j = br#"{"items":[{"metadata":{"name":"nightly","namespace":"d"}}]}"#;
        let p = parse_bytes("/dump/d/cronjobs.json", j, Naming::Json);
        assert_eq!(
            (&p.records[0].object["kind"], &p.records[0].object["apiVersion"]),
            (&"CronJob".into(), &"batch/v1".into())
        );
        // An item with its own kind keeps it, and no apiVersion from the List.
        let j = br#"{"kind":"DeploymentList","apiVersion":"apps/v1","items":[{"kind":"Pod","metadata":{"name":"p"}}]}"#;
        let p = parse_bytes("x.json", j, Naming::Json);
        assert_eq!((&p.records[0].object["kind"], &p.records[0].object["apiVersion"]), (&"Pod".into(), &"v1".into()));
        // Services, by List kind, file name or shape: skipped, never errors.
        for (name, text) in [
            ("/dump/d/services.yaml", &b"kind: ServiceList\napiVersion: v1\nitems:\n- metadata: {name: a}\n"[..]),
            ("/dump/d/services.json", br#"{"Items":[{"name":"kubernetes","Spec":{"ClusterIP":"10.96.0.1"}}]}"#),
            ("/dump/mixed.json", br#"[{"metadata":{"name":"s"},"spec":{"clusterIP":"None","ports":[]}}]"#),
            ("/dump/svc.json", br#"{"kind":"Service","apiVersion":"v1","metadata":{"name":"s"}}"#),
        ] {
            let p = parse_bytes(name, text, Naming::of(name));
            assert_eq!((p.records.len(), p.skipped, p.errors.len()), (0, 1, 0), "{name}: {:?}", p.errors);
        }
        // Nothing tells the kind: an error naming what would have.
        let p = parse_bytes("/dump/objects.json", br#"{"items":[{"metadata":{"name":"x"}}]}"#, Naming::Json);
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, [format!("/dump/objects.json:1: items[0]: {NO_KIND}")]);
    }

    #[test]
    fn list_items_null_and_bad_item() {
        let p = parse_bytes("e.json", br#"{"kind":"EventList","items":null}"#, Naming::Json);
        assert_eq!((p.records.len(), p.errors.len()), (0, 0));
        let p = parse_bytes(
            "e.json",
            br#"{"kind":"PodList","items":[{"metadata":{"name":"a"}}, 7, {"metadata":{}}]}"#,
            Naming::Json,
        );
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.records[0].object["kind"], "Pod");
        assert_eq!(p.errors.len(), 2);
        assert_eq!(p.errors[0].origin.item, Some(1));
        assert!(p.errors[1].to_string().contains("items[2]"));
    }

    /// Break-it (issue 34): a key twice in an item of a YAML List whose
    /// closing lines are `kind: List` alone was taken for a List cut inside
    /// its closing lines, loading the item with its last value.
    #[test]
    fn a_key_twice_in_a_yaml_list_item_with_kind_last_is_that_items_error() {
        let y = b"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Event\n  metadata: {name: a1, namespace: d}\n  \
                  reason: R\n  reason: S\n- apiVersion: v1\n  kind: Event\n  metadata: {name: a2, namespace: d}\n  \
                  reason: R\nkind: List\n";
        let p = parse_bytes("yl.yaml", y, Naming::Yaml);
        let names: Vec<_> = p.records.iter().map(|r| r.object["metadata"]["name"].as_str().unwrap_or("")).collect();
        assert_eq!(names, ["a2"]);
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        assert!(p.errors[0].message.contains("the key \"reason\" appears twice"), "{:?}", p.errors[0]);
        assert!(!p.errors[0].message.contains("closing lines"), "{:?}", p.errors[0]);
    }

    #[test]
    fn yaml_multi_document_and_watch_wrappers() {
        let y = b"kind: Node\nmetadata:\n  name: n1\n---\n---\nkind: Pod\nmetadata:\n  name: p\n";
        let p = parse_bytes("a.yaml", y, Naming::Yaml);
        assert_eq!(p.records.len(), 2);
        assert_eq!(p.skipped, 1);
        let w = br#"{"type":"DELETED","object":{"kind":"Pod","metadata":{"name":"p"}}}
{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"q"}}}"#;
        let p = parse_bytes("w.json", w, Naming::Json);
        assert_eq!(p.records[0].change, Change::Deleted);
        assert_eq!(p.records[1].change, Change::Added);
    }

    #[test]
    fn every_bad_ndjson_line_names_its_line_and_what_a_line_must_be() {
        let input = b"{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}\n{broken\n[1,2,3]\n\"text\"\nnull\n[]\n{\"kind\":\"Node\",\"metadata\":\n{\"kind\":\"NodeList\",\"items\":[{\"metadata\":{\"name\":\"n2\"}},7]}\n";
        let p = parse_bytes("x.ndjson", input, Naming::Json);
        assert_eq!(p.format, Some(Format::Ndjson));
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        let expected = "expected one JSON object per line (a Kubernetes object or a log record)";
        assert_eq!(
            errors,
            [
                format!("x.ndjson:2:2: invalid JSON: key must be a string; {expected}"),
                // An array's items are each a record (break-it 33 F5); an empty one adds nothing.
                "x.ndjson:3: items[0]: expected a Kubernetes object (a mapping), found a number".to_string(),
                "x.ndjson:3: items[1]: expected a Kubernetes object (a mapping), found a number".to_string(),
                "x.ndjson:3: items[2]: expected a Kubernetes object (a mapping), found a number".to_string(),
                format!("x.ndjson:4: found a string; {expected}"),
                format!("x.ndjson:5: found null; {expected}"),
                format!("x.ndjson:7:26: the line ends in the middle of a JSON value (cut off?); {expected}"),
                "x.ndjson:8: items[1]: expected a Kubernetes object (a mapping), found a number".to_string(),
            ]
        );
        assert_eq!(p.records.len(), 2);
        assert_eq!((p.records[1].origin.line, p.records[1].origin.item), (Some(8), Some(0)));
    }

    #[test]
    fn yaml_documents_are_numbered_as_a_user_counts_them() {
        // A leading `---` and an empty document are not documents.
        let y = b"---\nkind: Node\nmetadata:\n  name: n1\n---\n---\nkind: Pod\nmetadata:\n  name: [oops\n  x: 1\n";
        let p = parse_bytes("a.yaml", y, Naming::Yaml);
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
        let e = &p.errors[0];
        assert!(e.message.starts_with("invalid YAML in document 2: "), "{e}");
        assert_eq!(e.origin.line, Some(10), "{e}");
        assert!(e.message.contains("at line 10 column 4"), "lines counted from the file's start: {e}");
        // Without the leading marker, the same numbers.
        let p = parse_bytes("a.yaml", &y[4..], Naming::Yaml);
        assert!(p.errors[0].message.starts_with("invalid YAML in document 2: "), "{}", p.errors[0]);
        assert_eq!(
            shift_line_numbers("at line 3 column 9, while parsing at line 12", 5),
            "at line 8 column 9, while parsing at line 17"
        );
    }

    /// Break-it 46 M4: directives and document ends are YAML's own: a
    /// stream of `%YAML 1.2`, `---`, a document, `...` stored 1 of N.
    #[test]
    fn directives_and_document_ends_separate_documents() {
        let block = |n: usize| format!("kind: Pod\nmetadata:\n  name: p{n}\n");
        let json = |n: usize| format!("{{\"kind\": \"Pod\", \"metadata\": {{\"name\": \"p{n}\"}}}}\n");
        let forms: [(&str, String); 5] = [
            ("directive each", (0..4).map(|n| format!("%YAML 1.2\n---\n{}...\n", block(n))).collect()),
            ("directive each, JSON", (0..4).map(|n| format!("%YAML 1.2\n---\n{}...\n", json(n))).collect()),
            (
                "directive once",
                format!(
                    "%YAML 1.2\n%TAG ! tag:example.com,2026:\n---\n{}",
                    (0..4).map(block).collect::<Vec<_>>().join("---\n")
                ),
            ),
            ("end with a comment, JSON", (0..4).map(|n| format!("{}... # end\n", json(n))).collect()),
            ("bare documents after ends", (0..4).map(|n| format!("{}...\n", block(n))).collect()),
        ];
        for (what, text) in forms {
            let p = parse_bytes("s.yaml", text.as_bytes(), Naming::Yaml);
            let names: Vec<&str> = p.records.iter().filter_map(|r| r.object["metadata"]["name"].as_str()).collect();
            assert_eq!(names, ["p0", "p1", "p2", "p3"], "{what}: {:?}", p.errors);
            assert_eq!(p.errors.len(), 0, "{what}: {:?}", p.errors);
        }
    }

    /// Break-it 46 M1: NDJSON whose first line is a kubectl warning (or
    /// stdin so) was refused whole: 0 of 100 stored.
    #[test]
    fn ndjson_after_a_bad_first_line_loads_the_good_lines() {
        let text = b"W1207 23:50:00.123456 12345 memcache.go:287] couldn't get resource list\n\
                     {\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}\n{\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}\n";
        for (name, naming) in
            [("e.ndjson", Naming::Ndjson), ("<stdin>", Naming::Content), ("e.jsonl.gz", Naming::Ndjson)]
        {
            assert_eq!(not_json_for_its_name(name, text), None, "{name}");
            assert!(looks_like_a_dump(text), "{name}");
            let p = parse_bytes(name, text, naming);
            assert_eq!(p.records.len(), 2, "{name}");
            let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
            assert_eq!(errors.len(), 1, "{name}: {errors:?}");
            assert!(errors[0].starts_with(&format!("{name}:1:")), "{errors:?}");
        }
        // A table is still no dump, and `.json` still refuses a non-JSON opening.
        assert!(!looks_like_a_dump(b"NAME   READY\nweb-0  1/1\n"));
        assert!(not_json_for_its_name("e.json", text).is_some());
    }

    /// New-user trial 46: `kubectl drain` output was refused as `kubectl
    /// describe` output; the real ones pasted by operators are told apart.
    #[test]
    fn kubectl_drain_output_is_named() {
        let drain =
            b"$ kubectl drain --ignore-daemonsets --force gke-test-pool-zvmh\nnode/gke-test-pool-zvmh cordoned\n\
                      WARNING: Ignoring DaemonSet-managed pods: fluentd-gcp-v3.1.0-phftv\n\
                      evicting pod kube-system/kube-dns-788979dc8f-xxn6m\npod/kube-dns-788979dc8f-xxn6m evicted\n";
        assert!(!looks_like_a_dump(drain));
        assert!(not_a_dump_message(drain).starts_with("`kubectl drain` output (`node/… cordoned`"));
        let describe = b"Name:         web-0\nNamespace:    default\nNode:         node-1/10.0.0.1\n";
        assert!(not_a_dump_message(describe).contains("`kubectl describe` output is not a dump"));
    }

    /// New-user trial 43: the real kubelet log wrapped by Docker's json-file
    /// driver (kubernetes issue 117609) read as NDJSON of objects without `kind`.
    #[test]
    fn docker_json_file_log_records_are_no_dump() {
        let log = b"# kubelet log\n{\"log\":\"I0426 02:33:44.879788   19558 kubelet_node_status.go:429] Recording \
                    NodeSchedulable event message for node 192.168.1.38\\n\",\"stream\":\"stderr\",\"time\":\
                    \"2023-04-26T02:33:44.879860406Z\"}\n";
        assert!(is_docker_json_log(log));
        assert!(!looks_like_a_dump(log));
        assert!(not_a_dump_message(log)
            .starts_with("Docker json-file log records (log/stream/time), not Kubernetes objects"));
        // An object with other keys, or a Kubernetes object, is not.
        for other in [
            &b"{\"log\":\"x\",\"time\":\"t\",\"kind\":\"Event\"}"[..],
            b"{\"kind\":\"Pod\"}",
            b"{\"log\":\"x\",\"stream\":\"stdout\"}",
            b"[{\"log\":\"x\",\"time\":\"t\"}]",
        ] {
            assert!(!is_docker_json_log(other), "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn content_of_an_unknown_ending_is_a_dump_or_not() {
        for dump in
            [&b"{\"kind\":\"Pod\"}"[..], b"  [1]", b"# c\n\nkind: Pod\n", b"---\nkind: Pod", b"- a\n", b"items:\n", b""]
        {
            assert!(looks_like_a_dump(dump), "{}", String::from_utf8_lossy(dump));
        }
        for other in [
            &b"NAMESPACE\tNAME\tREADY\nmedia\tplex\t1/1\n"[..],
            b"NAME   READY   STATUS\n",
            b"a,b,c\n1,2,3\n",
            b"http://x:80/",
            // `kubectl describe pod` saved as .txt: YAML-shaped, no object.
            b"Name:             web-0\nNamespace:        default\nPriority:         0\nEvents:\n  Type  Reason\n",
            b"notes: drained node-3 at 02:00\n",
            b"---\nName:         web-0\nNamespace:    default\n",
        ] {
            assert!(!looks_like_a_dump(other), "{}", String::from_utf8_lossy(other));
        }
        // A kubectl YAML dump saved under any name, keys in any order.
        for dump in [
            &b"apiVersion: v1\nitems: []\n"[..],
            b"# x\nmetadata:\n  name: a\nkind: Pod\n",
            b"\"apiVersion\": v1\n\"kind\": Pod\n",
            b"---\napiVersion: v1\nkind: Pod\n",
        ] {
            assert!(looks_like_a_dump(dump), "{}", String::from_utf8_lossy(dump));
        }
    }

    #[test]
    fn concatenated_pretty_json_documents() {
        let input = b"{\n \"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\"}\n}\n{\n \"kind\": \"Pod\",\n \"metadata\": {\"name\": \"b\"}\n}\n";
        let p = parse_bytes("c.json", input, Naming::Json);
        assert_eq!(p.format, Some(Format::Json));
        assert_eq!(p.records.len(), 2);
        assert_eq!(p.records[1].origin.line, Some(5));
    }

    #[test]
    fn a_file_named_json_is_read_as_json_only() {
        assert_eq!(Naming::of("/d/pods.json"), Naming::Json);
        assert_eq!(Naming::of("/d/e.JSONL.gz"), Naming::Ndjson);
        assert_eq!(Naming::of("/d/x.ndjson"), Naming::Ndjson);
        assert_eq!(Naming::of("/d/a.yml"), Naming::Yaml);
        assert_eq!(Naming::of("/d.json/pods.txt"), Naming::Content);
        let yaml = b"\n\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";
        let p = parse_bytes("/d/pod.json", yaml, Naming::Json);
        assert_eq!((p.format, p.records.len()), (Some(Format::Json), 0));
        let errors: Vec<String> = p.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            ["/d/pod.json:3:1: expected JSON (a Kubernetes object or list, opening with `{` or `[`), found \
              \"apiVersion: v1\"; it looks like YAML, but a file ending .json is read as JSON only: YAML goes in a \
              file ending .yaml or .yml"]
        );
        // Named otherwise, the same text is YAML.
        assert_eq!(parse_bytes("/d/pod.yaml", yaml, Naming::Yaml).records.len(), 1);
        assert_eq!(parse_bytes("/d/pod", yaml, Naming::Content).records.len(), 1);
        // Not YAML either: no word of YAML; a long first line is cut.
        let p = parse_bytes("/d/e.jsonl.gz", "NAME READY ".repeat(10).as_bytes(), Naming::Json);
        let message = &p.errors[0].message;
        assert!(
            message.contains(
                "found \"NAME READY NAME READY NAME READY NAME READY NAME READY NAME …\"; a file ending .jsonl is read"
            ),
            "{message}"
        );
    }
}
