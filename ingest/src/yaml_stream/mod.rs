//! Large YAML files (`kubectl get pods -A -o yaml`, a List of hundreds of
//! MB, or many documents separated by `---`; gzip-compressed or not) read
//! as a stream by `kdrift ingest file`: one document, or one item of a
//! List, at a time, handed to the store in batches of
//! [`FileLimits::batch_bytes`] as [`crate::json_stream`] does, so that
//! memory holds one batch and a chunk of items, not the file (kdrift issue
//! 39: a 126 MB YAML List of 40,000 Pods read whole peaked at 2.48 GiB,
//! streamed at 459 MiB: BENCHMARKS.md "Streaming files").
//!
//! The text is split at line boundaries, never parsed whole: documents at
//! `---` lines (as the whole-file reader splits them), a List's items at
//! the `- ` lines of its top-level `items:` sequence ([`layout`]); each
//! piece is then parsed alone. Two passes over the file (gzip decompressed
//! on the fly):
//!
//! 1. a check: each document's lines are placed ([`layout`]); a List's own
//!    fields (its text without the items, a few lines) are parsed, which
//!    gives its items' kind and `apiVersion` (`crate::parse::ItemContext`)
//!    wherever `kind` comes: kubectl writes `items` before `kind`.
//! 2. the read: each document that is no List is read as the whole-file
//!    reader reads a document (`crate::parse::parse_yaml_document`: same
//!    records, same errors, numbered alike); each List item is parsed alone
//!    as that reader does when it reads a List item by item
//!    (`crate::parse::yaml_items`: a bad item, a key twice in it or an item
//!    nested deeper than `--max-yaml-depth` is an error naming `items[i]`
//!    and its line, the other items load; a key twice in the List's own
//!    fields is one error and the items load), in chunks of [`CHUNK`]
//!    pieces or [`CHUNK_BYTES`] parsed and prepared on every core, and
//!    staged ([`crate::ndjson_stream::stage_chunk`] commits the batches).
//!
//! Anything the check does not pass leaves the file to the whole-file
//! reader, whose recovery of broken input is finer (`crate::parse::cut`): a
//! List without `kind` but with `apiVersion` (kubectl writes `kind` after
//! the items: cut off there), a List whose own fields do not parse, nest
//! too deep or make it no List (an old internal-type dump, a `kind` that is
//! no List's), a List whose `items:` key appears twice, an unindented `-x` line among the items, a gzip stream that
//! is damaged or expands past its cap. So do files under a quarter of a
//! batch ([`streams`]), UTF-16 text, files named `.json`/`.ndjson` and files
//! opening with `{` or `[` under another name (JSON), and a List that may
//! set an anchor (`&a`, which kubectl never writes: an item may name it
//! while it is set outside the item).

mod layout;

use std::io::{BufRead, Read};
use std::path::Path;

use self::layout::{Layout, Part};
use crate::files::{is_dump_name, FileLimits, FileSummary};
use crate::interrupt::Interrupt;
use crate::ndjson_stream::{open, stage_chunk, Ready, CHUNK, CHUNK_BYTES};
use crate::parse::map_ordered;
use crate::parse::{
    is_blank_yaml, is_json_text, is_list, kind_hint_from_path, legacy, list_fields, looks_like_a_dump, parse_item,
    parse_yaml_document, utf16_decode, yaml_marker, Format, InputError, Item, ItemContext, Naming, Parsed, NOT_UTF8,
    STOPPED,
};
use crate::store::{prepare, Origin, RunWriter, StoreError};

/// How many bytes of input the check reads between two looks at the interrupt.
const CHECK_EVERY: usize = 4 << 20;

/// Whether `path` (named `location`) is read by this stream: not named
/// JSON or NDJSON, at least a quarter of `batch_bytes` (a gzip file's size
/// counted [`crate::json_stream::GZIP_RATIO`] times), not UTF-16, and its
/// first bytes are YAML: by its name (`.yaml`, `.yml`), or, named
/// otherwise, opening with neither `{` nor `[` and looking like a dump
/// (`crate::parse::looks_like_a_dump`). JSON named YAML
/// (`crate::parse::is_json_text`) is left to the JSON readers.
fn streams(path: &Path, location: &str, limits: &FileLimits) -> bool {
    let naming = Naming::of(location);
    if matches!(naming, Naming::Json | Naming::Ndjson) {
        return false;
    }
    let Some(reader) = open(path, limits.decompressed) else { return false };
    let mut head = Vec::new();
    if reader.take(64 << 10).read_to_end(&mut head).is_err() {
        return false;
    }
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let gzip = std::fs::File::open(path)
        .and_then(|mut f| {
            let mut magic = [0u8; 2];
            f.read_exact(&mut magic).map(|()| magic == [0x1f, 0x8b])
        })
        .unwrap_or(false);
    let estimate = if gzip { size.saturating_mul(crate::json_stream::GZIP_RATIO) } else { size };
    if estimate < limits.batch_bytes / 4 || utf16_decode(&head).is_some() {
        return false;
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let Some(first) = text.iter().copied().find(|b| !b.is_ascii_whitespace()) else { return false };
    if naming == Naming::Yaml {
        return !is_json_text(text);
    }
    !matches!(first, b'{' | b'[') && (is_dump_name(path) || looks_like_a_dump(text))
}

/// Streams `path` into `writer` when it is a YAML file this reader takes
/// ([`streams`]) and its check passes, filling `summary`; returns false
/// (nothing staged) otherwise: the whole-file reader then reads it.
/// `errors_before` counts the run's input errors in earlier files. Stops
/// between chunks when `interrupt` is triggered (the caller closes the run).
///
/// # Errors
/// [`StoreError`] when staging or a batch commit fails.
pub(crate) fn stream_file(
    writer: &mut RunWriter<'_>,
    path: &Path,
    summary: &mut FileSummary,
    errors_before: u64,
    limits: &FileLimits,
    interrupt: &Interrupt,
) -> Result<bool, StoreError> {
    let location = summary.location.clone();
    if !streams(path, &location, limits) {
        return Ok(false);
    }
    let hint = kind_hint_from_path(&location);
    // Pass 1: the check.
    let Some(reader) = open(path, limits.decompressed) else { return Ok(false) };
    let mut check = Check { location: &location, hint, max_depth: limits.yaml_depth, ..Check::default() };
    match lines(reader, |n, line, lossy| check.line(n, line, lossy, interrupt)) {
        Err(e) => {
            tracing::debug!(file = %location, error = %e, "not streamed (a read error): read whole");
            return Ok(false);
        }
        Ok(false) if check.odd => return Ok(false),
        Ok(false) => {
            // The interrupt, during the check: nothing staged.
            summary.format = Some(Format::Yaml);
            summary.add_errors(vec![stopped(&location, check.line)]);
            return Ok(true);
        }
        Ok(true) => {
            if !check.end_document() {
                return Ok(false);
            }
        }
    }
    // Pass 2: the read.
    let Some(reader) = open(path, limits.decompressed) else { return Ok(false) };
    summary.format = Some(Format::Yaml);
    tracing::info!(file = %location, "streaming a YAML file document by document, item by item");
    let mut read = Stream {
        writer,
        summary,
        location: &location,
        hint,
        max_depth: limits.yaml_depth,
        plans: check.plans,
        doc: Doc::new(0, 1),
        layout: Layout::default(),
        number: 0,
        chunk: Vec::new(),
        chunk_bytes: 0,
        errors_before,
        batch_bytes: limits.batch_bytes,
        interrupt,
        held: Held::default(),
        failed: None,
        stopped: false,
    };
    // No batch larger than the store's memory limit lets DuckDB commit (issue 39).
    read.batch_bytes = read.batch_bytes.min(read.writer.max_batch_bytes());
    if check.not_utf8 {
        let origin = Origin { location: location.clone(), line: None, item: None };
        read.push(Piece::Error(InputError { origin, column: None, message: NOT_UTF8.into() }), 0);
    }
    read.start_document(0, 1);
    let ended = lines(reader, |n, line, _| read.line(n, line));
    match ended {
        Ok(true) => {
            read.end_document();
            read.flush();
        }
        Ok(false) => {}
        Err(e) => {
            // The file changed (or broke) between the passes.
            read.flush();
            let error = InputError {
                origin: Origin { location: location.clone(), line: None, item: None },
                column: None,
                message: format!("the file changed while it was read ({e}); what was read before is kept"),
            };
            read.stage(Ready { errors: vec![error], ..Ready::default() });
        }
    }
    if let Some(e) = read.failed.take() {
        return Err(e);
    }
    Ok(true)
}

/// Calls `each` with every line of `reader` (its 1-based number and text,
/// its `\n` kept; a UTF-8 byte-order mark before the first dropped; bytes
/// that are not UTF-8 replaced by U+FFFD, as the whole-file reader does,
/// and then the third argument true) until it returns false. Ok(true): the
/// input ended; Ok(false): `each` stopped it.
fn lines(mut reader: Box<dyn BufRead + Send>, mut each: impl FnMut(u64, &str, bool) -> bool) -> std::io::Result<bool> {
    let mut bytes = Vec::new();
    let mut n = 0u64;
    // The line after a `---` line may open with a BOM too (`crate::parse::without_document_bom`).
    let mut after_marker = false;
    loop {
        bytes.clear();
        if reader.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(true);
        }
        n += 1;
        let line =
            if n == 1 || after_marker { bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes) } else { &bytes[..] };
        let text = String::from_utf8_lossy(line);
        after_marker = yaml_marker(&text).is_some();
        if !each(n, &text, matches!(text, std::borrow::Cow::Owned(_))) {
            return Ok(false);
        }
    }
}

/// The error of reading stopped on an interrupt, at `line`.
fn stopped(location: &str, line: u64) -> InputError {
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line), item: None },
        column: None,
        message: STOPPED.to_string(),
    }
}

/// How a document is read, as the check found it.
enum Plan {
    /// Whole (it has no items).
    Whole,
    /// Item by item.
    List(ListPlan),
}

/// A List read item by item.
struct ListPlan {
    /// The List's origin (its document's first line).
    origin: Origin,
    /// What its items take from it.
    context: ItemContext,
    /// The error of a key twice in its own fields.
    top: Option<InputError>,
}

/// The document being read: its first line, index and lines so far.
struct Doc {
    /// Its index in the file, empty ones counted (`Plan`'s).
    index: usize,
    /// Its first line in the file (1-based; the line after its `---`).
    first_line: u64,
    /// Lines read (0-based index of the next one in the document).
    lines: usize,
}

impl Doc {
    fn new(index: usize, first_line: u64) -> Doc {
        Doc { index, first_line, lines: 0 }
    }
}

/// Pass 1: how each document is read, or why the file is left to the
/// whole-file reader (`odd`).
#[derive(Default)]
struct Check<'a> {
    location: &'a str,
    hint: Option<&'a str>,
    max_depth: usize,
    /// Per document, in order.
    plans: Vec<Plan>,
    /// The current document's first line, index and lines read.
    doc: Option<Doc>,
    layout: Layout,
    /// The current document's own fields (all of it until items are met).
    fields: String,
    /// The 0-based lines of its first item and of the first line after its items.
    first: Option<usize>,
    end: Option<usize>,
    /// Bytes read since the interrupt was looked at.
    unchecked: usize,
    /// Line last read.
    line: u64,
    /// The file is left to the whole-file reader.
    odd: bool,
    /// Some line is not UTF-8.
    not_utf8: bool,
    /// The current document may set an anchor.
    anchors: bool,
}

impl Check<'_> {
    fn line(&mut self, n: u64, line: &str, lossy: bool, interrupt: &Interrupt) -> bool {
        self.line = n;
        self.not_utf8 |= lossy;
        self.unchecked += line.len();
        if self.unchecked >= CHECK_EVERY {
            self.unchecked = 0;
            if interrupt.is_triggered() {
                return false;
            }
        }
        if self.doc.is_none() {
            self.doc = Some(Doc::new(0, 1));
        }
        if let Some(rest) = yaml_marker(line) {
            if !self.end_document() {
                return false;
            }
            self.doc = Some(Doc::new(self.plans.len(), n + 1));
            if !rest.is_empty() {
                return self.document_line(&format!("{rest}\n"));
            }
            return true;
        }
        self.document_line(line)
    }

    fn document_line(&mut self, line: &str) -> bool {
        self.anchors |= may_set_anchor(line);
        let Some(doc) = self.doc.as_mut() else { return true };
        let at = doc.lines;
        doc.lines += 1;
        match self.layout.line(line) {
            Part::Fields => {
                if self.first.is_some() && self.end.is_none() {
                    self.end = Some(at);
                }
                self.fields.push_str(line);
            }
            Part::ItemStart => {
                self.first.get_or_insert(at);
            }
            Part::Item => {}
            Part::Odd => {
                self.odd = true;
                return false;
            }
        }
        true
    }

    /// Plans the current document; false when it leaves the file to the
    /// whole-file reader.
    fn end_document(&mut self) -> bool {
        let fields = std::mem::take(&mut self.fields);
        let (first, end) = (self.first.take(), self.end.take());
        let anchors = std::mem::take(&mut self.anchors);
        self.layout.new_document();
        let Some(doc) = self.doc.take() else { return true };
        let Some(first) = first else {
            self.plans.push(Plan::Whole);
            return true;
        };
        if anchors {
            // An item may name an anchor set elsewhere in the List: read whole.
            self.odd = true;
            return false;
        }
        let end = end.unwrap_or(doc.lines);
        let origin = Origin { location: self.location.to_string(), line: Some(doc.first_line), item: None };
        let Some((list, top)) = list_fields(&fields, &[(first, end)], &origin, self.max_depth) else {
            self.odd = true;
            return false;
        };
        // Read as a List by the whole-file reader too: not an old dump, a
        // List's kind (or none), and not cut off before its `kind` (no
        // `kind` but an `apiVersion`: `crate::parse::cut`).
        let map = list.as_object();
        let cut = map.is_some_and(|m| !m.contains_key("kind") && m.contains_key("apiVersion"));
        if legacy::is_legacy(&list) || !is_list(&list) || cut {
            self.odd = true;
            return false;
        }
        let context = ItemContext::of(&list, self.location, self.hint);
        self.plans.push(Plan::List(ListPlan { origin, context, top }));
        true
    }
}

/// Whether `line` may set a YAML anchor (`&name` opening a node: after a
/// blank, `[`, `{` or `,`, or at the line's start, followed by a name).
/// It may say so of text in a quoted scalar (`"a &b"`): such a List is
/// only read whole.
fn may_set_anchor(line: &str) -> bool {
    if !line.contains('&') {
        return false;
    }
    let bytes = line.as_bytes();
    bytes.iter().enumerate().any(|(i, b)| {
        *b == b'&'
            && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'[' | b'{' | b','))
            && bytes.get(i + 1).is_some_and(|n| !n.is_ascii_whitespace() && *n != b'&')
    })
}

/// A piece of the file to read alone.
enum Piece {
    /// A document that is no List: its first line, number and text.
    Document(u64, usize, String),
    /// Item `k` of the List planned at `list`, starting on its document's
    /// 0-based line `at`, and its text.
    Item { list: usize, k: u64, at: usize, text: String },
    /// An error found before parsing.
    Error(InputError),
    /// An empty document.
    Skipped,
}

/// Pass 2: documents and items read and staged, a chunk at a time.
struct Stream<'s, 'w> {
    writer: &'s mut RunWriter<'w>,
    summary: &'s mut FileSummary,
    location: &'s str,
    hint: Option<&'s str>,
    max_depth: usize,
    plans: Vec<Plan>,
    doc: Doc,
    layout: Layout,
    /// Documents met that are not empty (as a user numbers them).
    number: usize,
    chunk: Vec<Piece>,
    chunk_bytes: usize,
    errors_before: u64,
    batch_bytes: u64,
    interrupt: &'s Interrupt,
    /// What the current document holds so far.
    held: Held,
    /// The store error that stopped the read.
    failed: Option<StoreError>,
    /// Reading stopped (a store error, an interrupt).
    stopped: bool,
}

/// What the current document holds so far in pass 2.
#[derive(Default)]
struct Held {
    /// The text of a document read whole, or of the current item.
    text: String,
    /// The current item: its index and first line (0-based, in its document).
    item: Option<(u64, usize)>,
    /// Items started in this document.
    items: u64,
}

impl Stream<'_, '_> {
    /// The current document's plan: `None` when it is read whole.
    fn list(&self) -> Option<usize> {
        matches!(self.plans.get(self.doc.index), Some(Plan::List(_))).then_some(self.doc.index)
    }

    /// Document `index` begins on line `first_line`: a List is numbered
    /// now, with the error of a key twice in its own fields first.
    fn start_document(&mut self, index: usize, first_line: u64) {
        self.doc = Doc::new(index, first_line);
        self.layout.new_document();
        self.held = Held::default();
        if let Some(Plan::List(plan)) = self.plans.get(index) {
            self.number += 1;
            if let Some(top) = plan.top.clone() {
                self.push(Piece::Error(top), 0);
            }
        }
    }

    fn line(&mut self, n: u64, line: &str) -> bool {
        if let Some(rest) = yaml_marker(line) {
            self.end_document();
            self.start_document(self.doc.index + 1, n + 1);
            if !rest.is_empty() {
                self.document_line(&format!("{rest}\n"));
            }
        } else {
            self.document_line(line);
        }
        !self.stopped
    }

    fn document_line(&mut self, line: &str) {
        let at = self.doc.lines;
        self.doc.lines += 1;
        let Some(list) = self.list() else {
            self.held.text.push_str(line);
            return;
        };
        match self.layout.line(line) {
            Part::ItemStart => {
                self.end_item(list);
                self.held.item = Some((self.held.items, at));
                self.held.items += 1;
                self.held.text.push_str(line);
            }
            Part::Item => self.held.text.push_str(line),
            // Placed by the check: the List's own fields, read then.
            Part::Fields | Part::Odd => self.end_item(list),
        }
    }

    /// Queues the current item of the List planned at `list`, if any.
    fn end_item(&mut self, list: usize) {
        if let Some((k, at)) = self.held.item.take() {
            let text = std::mem::take(&mut self.held.text);
            let bytes = text.len();
            self.push(Piece::Item { list, k, at, text }, bytes);
        }
    }

    /// Queues the end of the current document: its last item, or itself.
    fn end_document(&mut self) {
        if let Some(list) = self.list() {
            self.end_item(list);
            return;
        }
        let text = std::mem::take(&mut self.held.text);
        if is_blank_yaml(&text) {
            if self.doc.index > 0 {
                self.push(Piece::Skipped, 0);
            }
            return;
        }
        self.number += 1;
        let bytes = text.len();
        self.push(Piece::Document(self.doc.first_line, self.number, text), bytes);
    }

    /// Queues `piece` of `bytes`; reads the chunk when it is full.
    fn push(&mut self, piece: Piece, bytes: usize) {
        self.chunk.push(piece);
        self.chunk_bytes += bytes;
        if self.chunk.len() >= CHUNK || self.chunk_bytes >= CHUNK_BYTES {
            self.flush();
        }
    }

    /// Stages `ready`; false when the store failed (kept in `failed`).
    fn stage(&mut self, ready: Ready) -> bool {
        match stage_chunk(self.writer, ready, self.summary, self.errors_before, self.batch_bytes) {
            Ok(()) => true,
            Err(e) => {
                self.failed = Some(e);
                self.stopped = true;
                false
            }
        }
    }

    /// Parses, expands, prepares (on every core) and stages the chunk's
    /// pieces; stops the read when the store failed or the interrupt is
    /// triggered (said at the line reached).
    fn flush(&mut self) {
        if self.chunk.is_empty() || self.stopped {
            return;
        }
        let chunk = std::mem::take(&mut self.chunk);
        let bytes = std::mem::take(&mut self.chunk_bytes);
        let (location, hint, max_depth, plans) = (self.location, self.hint, self.max_depth, &self.plans);
        let started_at = self.writer.started_at();
        let per_piece = map_ordered(chunk, |piece| {
            let mut parsed = Parsed::default();
            match piece {
                Piece::Document(first_line, number, text) => {
                    parse_yaml_document(location, first_line, number, &text, hint, max_depth, &mut parsed);
                }
                Piece::Item { list, k, at, text } => {
                    if let Some(Plan::List(plan)) = plans.get(list) {
                        match parse_item(&text, at, k, &plan.origin, max_depth) {
                            Item::Good(item) => {
                                let line = plan.origin.line.unwrap_or(1) + at as u64;
                                plan.context.expand_item(item, &plan.origin, k, Some(line), &mut parsed)
                            }
                            Item::Bad(e) => parsed.errors.push(e),
                            Item::NotOne => parsed.errors.push(InputError {
                                origin: Origin {
                                    line: Some(plan.origin.line.unwrap_or(1) + at as u64),
                                    item: Some(k),
                                    ..plan.origin.clone()
                                },
                                column: None,
                                message: "invalid YAML in this item: it does not read as one item of the List; it \
                                          is skipped (not stored), the List's other items are loaded"
                                    .into(),
                            }),
                        }
                    }
                }
                Piece::Error(e) => parsed.errors.push(e),
                Piece::Skipped => parsed.skipped += 1,
            }
            let records: Vec<_> = parsed.records.into_iter().map(|r| prepare(r, started_at)).collect();
            (parsed.skipped, parsed.errors, records)
        });
        let mut ready = Ready { bytes, ..Ready::default() };
        for (skipped, mut errors, mut records) in per_piece {
            ready.skipped += skipped;
            ready.errors.append(&mut errors);
            ready.records.append(&mut records);
        }
        if !self.stage(ready) {
            return;
        }
        if self.interrupt.is_triggered() {
            let line = self.doc.first_line + self.doc.lines as u64;
            self.summary.add_errors(vec![stopped(self.location, line)]);
            self.stopped = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_told_from_ampersands_in_text() {
        for anchor in ["  x: &a 1\n", "- &a\n", "&top\n", "  y: [&b 2]\n", "  z: {a: 1, b: &c 3}\n"] {
            assert!(may_set_anchor(anchor), "{anchor}");
        }
        for text in ["  cmd: a && b\n", "  url: http://x/?a=1&b=2\n", "  company: AT&T\n", "  x: *a\n", "  & \n"] {
            assert!(!may_set_anchor(text), "{text}");
        }
    }
}
