//! Large JSON files (`kubectl get pods -A -o json`, a List of hundreds of
//! MB, gzip-compressed or not) read as a stream by `kdrift ingest file`:
//! the List's items one at a time, handed to the store in batches of
//! [`FileLimits::batch_bytes`] as [`crate::ndjson_stream`] does, so that
//! memory holds one batch and one item, not the file (kdrift issue 39: a
//! 353 MB List of 150,000 Pods read whole peaked at 4.0 GiB).
//!
//! Two passes over the file ([`scan`] walks the bytes, gzip decompressed
//! on the fly):
//!
//! 1. a check: every document is an object, every List's own fields
//!    (`apiVersion`, `kind`, `metadata`) parse with each key once, every
//!    item is JSON. It learns each List's kind and `apiVersion` for its
//!    items (`crate::parse::ItemContext`), wherever `kind` comes: kubectl
//!    writes `items` before `kind`. A List cut off by the end of the file
//!    passes when the cut is clean (the bytes it ends in are a prefix of
//!    JSON).
//! 2. the read: each item is parsed, expanded and prepared as the
//!    whole-file reader does it (same records, same errors: an item with a
//!    key twice is skipped and named, a cut List keeps its complete items
//!    and says where the file ends, a second `items` array is read on
//!    after the first and named), in chunks of [`CHUNK`] items or
//!    [`CHUNK_BYTES`] prepared on every core, and staged
//!    ([`crate::ndjson_stream::stage_chunk`] commits the batches).
//!
//! Anything the check does not pass (a bad item, a missing comma, container
//! logs of `kubectl cluster-info dump`, a bare JSON array, an old
//! internal-type dump, a gzip stream that is damaged or expands past its
//! cap) leaves the file to the whole-file reader, whose recovery of broken
//! input is finer (`crate::parse`). So do files whose size is under a
//! quarter of a batch ([`streams`]): read whole they hold about ten times
//! their size, within the bound.

mod scan;

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use self::scan::{Cut, Ended, Scanner, Sink};
use crate::files::{FileLimits, FileSummary};
use crate::interrupt::Interrupt;
use crate::ndjson_stream::{open, stage_chunk, Ready, CHUNK, CHUNK_BYTES};
use crate::parse::map_ordered;
use crate::parse::{
    bad_item_message, expand_document, is_json_text, is_list, items_twice_message, json_cut_error_at,
    kind_hint_from_path, legacy, looks_like_ndjson, utf16_decode, CutAt, Format, InputError, ItemContext, Naming,
    Parsed, STOPPED,
};
use crate::store::{prepare, Origin, RunWriter, StoreError};

/// How much more than its size on disk a gzip file is taken to hold when
/// deciding whether it streams ([`streams`]): JSON compresses 10–20×.
pub(crate) const GZIP_RATIO: u64 = 16;

/// How many bytes of input the check reads between two looks at the interrupt.
const CHECK_EVERY: usize = 4 << 20;

/// Whether `path` (named `location`) is read by this stream: not named
/// NDJSON, at least a quarter of `batch_bytes` (a gzip file's size
/// counted [`GZIP_RATIO`] times), and its first bytes open a JSON object
/// that is not NDJSON (nor UTF-16 text); named YAML, when they are JSON
/// (`crate::parse::is_json_text`: `kubectl get -o json > events.yaml`).
fn streams(path: &Path, location: &str, limits: &FileLimits) -> bool {
    let naming = Naming::of(location);
    if naming == Naming::Ndjson {
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
    let estimate = if gzip { size.saturating_mul(GZIP_RATIO) } else { size };
    if estimate < limits.batch_bytes / 4 || utf16_decode(&head).is_some() {
        return false;
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
        && !looks_like_ndjson(text)
        && (naming != Naming::Yaml || is_json_text(text))
}

/// Streams `path` into `writer` when it is a JSON file this reader takes
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
    let mut check = Check { location: &location, hint, interrupt: Some(interrupt), ..Check::default() };
    let ended = scan::walk(&mut Scanner::new(reader), &mut check);
    match &ended {
        Ended::End => {}
        Ended::Stopped if check.odd => return Ok(false),
        Ended::Stopped => {
            // The interrupt, during the check: nothing staged.
            summary.format = Some(Format::Json);
            summary.add_errors(vec![stopped(&location, check.line, None)]);
            return Ok(true);
        }
        Ended::Odd(why) => {
            tracing::debug!(file = %location, why, "not streamed: read whole");
            return Ok(false);
        }
        Ended::Cut { cut, partial, .. } => {
            let clean = partial.is_empty()
                || matches!(serde_json::from_slice::<serde::de::IgnoredAny>(partial), Err(e) if e.is_eof());
            if matches!(cut, Cut::BeforeItems) || !clean || !check.end_list() {
                return Ok(false);
            }
        }
    }
    // Pass 2: the read.
    let Some(reader) = open(path, limits.decompressed) else { return Ok(false) };
    summary.format = Some(Format::Json);
    tracing::info!(file = %location, "streaming a JSON file item by item");
    // No batch larger than the store's memory limit lets DuckDB commit
    // (issue 39), as the NDJSON and YAML streams bound theirs: a List's
    // batch of 64 MiB held the 50 items after an Event of 60 MiB under
    // --memory-limit 64MiB, and its commit in parts lost them (break-it 40 F1).
    let batch_bytes = limits.batch_bytes.min(writer.max_batch_bytes());
    let mut read = Stream {
        writer,
        summary,
        location: &location,
        hint,
        plan: check.plan.into_iter(),
        list: None,
        origin: Origin { location: location.clone(), line: None, item: None },
        fields: Map::new(),
        chunk: Vec::new(),
        chunk_bytes: 0,
        walked: 0,
        loaded: 0,
        errors_before,
        batch_bytes,
        interrupt: Some(interrupt),
        failed: None,
    };
    let ended = scan::walk(&mut Scanner::new(reader), &mut read);
    if let Some(e) = read.failed.take() {
        return Err(e);
    }
    match ended {
        Ended::Stopped => {}
        Ended::End => {
            read.flush();
        }
        Ended::Cut { cut, last_line, .. } => {
            if read.flush() {
                let (at, line, walked) = match cut {
                    Cut::Item { index, line } => (CutAt::Item(0), line, index),
                    Cut::BetweenItems { walked } => (CutAt::BetweenItems, last_line, walked),
                    Cut::AfterItems | Cut::BeforeItems => (CutAt::AfterItems, last_line, read.walked),
                };
                let error = json_cut_error_at(read.origin.clone(), line, &at, read.loaded, walked);
                read.stage(Ready { errors: vec![error], ..Ready::default() });
            }
        }
        Ended::Odd(why) => {
            // The file changed between the passes.
            let error = InputError {
                origin: Origin { location: location.clone(), line: None, item: None },
                column: None,
                message: format!("the file changed while it was read ({why}); what was read before is kept"),
            };
            read.stage(Ready { errors: vec![error], ..Ready::default() });
        }
    }
    if let Some(e) = read.failed.take() {
        return Err(e);
    }
    Ok(true)
}

/// The error of reading stopped on an interrupt, at `line` (in item `item`).
fn stopped(location: &str, line: u64, item: Option<u64>) -> InputError {
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line), item },
        column: None,
        message: STOPPED.to_string(),
    }
}

/// Pass 1: what each document is, or why the file is left to the
/// whole-file reader (`odd`).
#[derive(Default)]
struct Check<'a> {
    location: &'a str,
    hint: Option<&'a str>,
    interrupt: Option<&'a Interrupt>,
    /// Per document, in order: its items' context when it is a List.
    plan: Vec<Option<ItemContext>>,
    /// The current document's fields (a List's without its items).
    fields: Map<String, Value>,
    /// The current document has its items.
    items: bool,
    /// The file is left to the whole-file reader.
    odd: bool,
    /// Line of the last document or item met.
    line: u64,
    /// Bytes of items checked since the interrupt was looked at.
    unchecked: usize,
}

impl<'a> Check<'a> {
    fn odd(&mut self) -> bool {
        self.odd = true;
        false
    }

    /// Plans the current document as a List; false when it is none the
    /// stream reads (an old internal-type dump, a `kind` that is no List's).
    fn end_list(&mut self) -> bool {
        let mut header = Value::Object(std::mem::take(&mut self.fields));
        if let Some(map) = header.as_object_mut() {
            map.insert("items".into(), Value::Array(Vec::new()));
        }
        if legacy::is_legacy(&header) || !is_list(&header) {
            return self.odd();
        }
        self.plan.push(Some(ItemContext::of(&header, self.location, self.hint)));
        true
    }
}

impl Sink for Check<'_> {
    fn document(&mut self, line: u64) -> bool {
        self.fields.clear();
        self.items = false;
        self.line = line;
        true
    }

    fn field(&mut self, key: String, value: Vec<u8>) -> bool {
        if self.fields.contains_key(&key) || (self.items && key == "items") {
            return self.odd();
        }
        match serde_json::from_slice::<crate::parse::Strict>(&value) {
            Ok(v) => {
                self.fields.insert(key, v.0);
                true
            }
            Err(_) => self.odd(),
        }
    }

    fn items(&mut self, key: &str, _again: bool, _line: u64, _column: u64) -> bool {
        if key != "items" || self.fields.contains_key(key) {
            return self.odd();
        }
        self.items = true;
        true
    }

    fn item(&mut self, _index: u64, line: u64, _column: u64, value: &[u8]) -> bool {
        self.line = line;
        if serde_json::from_slice::<serde::de::IgnoredAny>(value).is_err() {
            return self.odd();
        }
        self.unchecked += value.len();
        if self.unchecked >= CHECK_EVERY {
            self.unchecked = 0;
            if self.interrupt.is_some_and(Interrupt::is_triggered) {
                return false;
            }
        }
        true
    }

    fn end(&mut self) -> bool {
        if self.items {
            return self.end_list();
        }
        self.fields.clear();
        self.plan.push(None);
        true
    }
}

/// An item waiting in a chunk: its index, line, column and bytes.
type Pending = (u64, u64, u64, Vec<u8>);

/// Pass 2: documents expanded and staged, a List's items a chunk at a time.
struct Stream<'s, 'w> {
    writer: &'s mut RunWriter<'w>,
    summary: &'s mut FileSummary,
    location: &'s str,
    hint: Option<&'s str>,
    plan: std::vec::IntoIter<Option<ItemContext>>,
    /// The current document's items' context, when it is a List.
    list: Option<ItemContext>,
    /// The current document's origin (its first line).
    origin: Origin,
    /// The current document's fields, when it is no List.
    fields: Map<String, Value>,
    chunk: Vec<Pending>,
    chunk_bytes: usize,
    /// The current List's items met, and parsed.
    walked: u64,
    loaded: usize,
    errors_before: u64,
    batch_bytes: u64,
    interrupt: Option<&'s Interrupt>,
    /// The store error that stopped the read.
    failed: Option<StoreError>,
}

impl Stream<'_, '_> {
    /// Stages `ready`; false when the store failed (kept in `failed`).
    fn stage(&mut self, ready: Ready) -> bool {
        match stage_chunk(self.writer, ready, self.summary, self.errors_before, self.batch_bytes) {
            Ok(()) => true,
            Err(e) => {
                self.failed = Some(e);
                false
            }
        }
    }

    /// Parses, expands, prepares (on every core) and stages the chunk's
    /// items; false when the store failed or the interrupt is triggered
    /// (said at the next item).
    fn flush(&mut self) -> bool {
        if self.chunk.is_empty() {
            return true;
        }
        let chunk = std::mem::take(&mut self.chunk);
        let bytes = std::mem::take(&mut self.chunk_bytes);
        let last = chunk.last().map(|(i, line, _, _)| (*i, *line));
        let (list, origin, started_at) =
            (self.list.clone().unwrap_or_default(), &self.origin, self.writer.started_at());
        let location = self.location;
        let per_item = map_ordered(chunk, |(i, line, column, value)| {
            let mut parsed = Parsed::default();
            let loaded = match serde_json::from_slice::<crate::parse::Strict>(&value) {
                Ok(v) => {
                    list.expand_item(v.0, origin, i, Some(line), &mut parsed);
                    true
                }
                Err(e) => {
                    // Skipped and named, as the whole-file reader does (`crate::parse::walk`).
                    let (line, column, message) = bad_item_message(line, column as usize, Some(&e), false);
                    parsed.errors.push(InputError {
                        origin: Origin { location: location.to_string(), line: Some(line), item: Some(i) },
                        column,
                        message,
                    });
                    false
                }
            };
            let records: Vec<_> = parsed.records.into_iter().map(|r| prepare(r, started_at)).collect();
            (loaded, parsed.skipped, parsed.errors, records)
        });
        let mut ready = Ready { bytes, ..Ready::default() };
        for (loaded, skipped, mut errors, mut records) in per_item {
            self.loaded += usize::from(loaded);
            ready.skipped += skipped;
            ready.errors.append(&mut errors);
            ready.records.append(&mut records);
        }
        if !self.stage(ready) {
            return false;
        }
        if self.interrupt.is_some_and(Interrupt::is_triggered) {
            let (i, line) = last.unwrap_or_default();
            self.summary.add_errors(vec![stopped(self.location, line, Some(i + 1))]);
            return false;
        }
        true
    }
}

impl Sink for Stream<'_, '_> {
    fn document(&mut self, line: u64) -> bool {
        self.list = self.plan.next().flatten();
        self.origin.line = Some(line);
        self.fields.clear();
        (self.walked, self.loaded) = (0, 0);
        true
    }

    fn field(&mut self, key: String, value: Vec<u8>) -> bool {
        if self.list.is_none() {
            // A document that is no List: kept whole (the check parsed each field).
            if let Ok(v) = serde_json::from_slice::<crate::parse::Strict>(&value) {
                self.fields.insert(key, v.0);
            }
        }
        true
    }

    fn items(&mut self, key: &str, again: bool, line: u64, column: u64) -> bool {
        if !again {
            return true;
        }
        // A second `items` array (issue 34): said at its key, after the
        // first's items, as the whole-file reader says it.
        if !self.flush() {
            return false;
        }
        let error = InputError {
            origin: Origin { location: self.location.to_string(), line: Some(line), item: None },
            column: Some(column),
            message: items_twice_message(key, self.walked, true),
        };
        self.stage(Ready { errors: vec![error], ..Ready::default() })
    }

    fn item(&mut self, index: u64, line: u64, column: u64, value: &[u8]) -> bool {
        self.walked = index + 1;
        self.chunk_bytes += value.len();
        self.chunk.push((index, line, column, value.to_vec()));
        if self.chunk.len() >= CHUNK || self.chunk_bytes >= CHUNK_BYTES {
            return self.flush();
        }
        true
    }

    fn end(&mut self) -> bool {
        if self.list.is_some() {
            return self.flush();
        }
        let mut parsed = Parsed::default();
        let doc = Value::Object(std::mem::take(&mut self.fields));
        expand_document(doc, self.origin.clone(), self.hint, &mut parsed);
        let started_at = self.writer.started_at();
        let records = parsed.records.into_iter().map(|r| prepare(r, started_at)).collect();
        let (skipped, errors, errors_not_kept) = (parsed.skipped, parsed.errors, parsed.errors_not_kept);
        self.stage(Ready { bytes: 0, skipped, errors, errors_not_kept, records })
    }
}
