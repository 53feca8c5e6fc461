//! Large NDJSON files (VictoriaLogs exports, recorder logs) read as a
//! stream by `kdrift ingest file`: line by line (gzip decompressed on the
//! fly), each record staged as soon as it is parsed, and the run committed
//! in batches of [`BATCH`] records, so that memory does not grow with the
//! file's length (BENCHMARKS.md, issue 6). It is bounded by the batch size
//! times the record size, not by a fixed amount: event-sized records peak
//! at about 1 GiB, big objects such as Pods much earlier (50,000 Pods
//! as NDJSON peak at about 890 MiB). Each batch is its own
//! transaction (as a recorder's); the run stays `running` until the end, and
//! ingesting the file again after a crash adds only what is missing.
//!
//! A second thread reads [`CHUNK`] lines (or [`CHUNK_BYTES`]) at a time and
//! parses and prepares them on every core ([`crate::store::prepare`]) while
//! this one stages and commits (order kept: one producer, one queue of at
//! most [`QUEUED`] chunks, so memory stays bounded too).
//!
//! A file whose first two non-blank lines are not one-line objects is not
//! NDJSON: it is left to the whole-file parser (unless its name ends
//! `.ndjson` or `.jsonl` and it opens with `{`). One such line followed by
//! a read error (a gzip bomb past its cap, a damaged gzip tail) is NDJSON
//! too: the line loads, and the error names the line and decompressed byte
//! where reading stopped.
//!
//! No line is held longer than [`MAX_LINE_BYTES`]: a longer one is skipped
//! as it is read and becomes an input error naming the file and line; the
//! lines around it still load.

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind};
use std::path::Path;

use chrono::{DateTime, Utc};

use crate::files::{stage_prepared, FileLimits, FileSummary};
use crate::gzip::{skipped_in, Capped, DecompressedCap, Members, Skipped};
use crate::interrupt::Interrupt;
use crate::parse::map_ordered;
use crate::parse::{kind_hint_from_path, looks_like_ndjson, parse_ndjson_line_until, Format, InputError, Parsed};
use crate::store::Origin;
use crate::store::RunWriter;
use crate::store::StoreError;
use crate::store::{prepare, Prepared};

/// The longest NDJSON line (and VictoriaLogs response line) read, bytes,
/// without its newline: 64 MiB, far above any Kubernetes object (etcd
/// refuses values over 1.5 MiB by default) yet a bound on what one line can
/// make the reader hold in memory. A longer line is an input error naming
/// the file (or window) and line, and is never held whole; the lines
/// around it still load.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Records staged between two batch commits, at most.
pub const BATCH: u64 = 100_000;

/// Bytes staged between two batch commits, at most (plus one record), by
/// default (`kdrift ingest file --max-batch-bytes SIZE` sets another:
/// [`FileLimits::batch_bytes`]): the objects' compact JSON and model
/// columns ([`RunWriter::pending_bytes`]).
/// [`BATCH`] alone bounds a batch of events (~1 KiB each) but not one of
/// lines near [`MAX_LINE_BYTES`]: twenty 63 MiB lines (1.26 GB) were staged
/// in one transaction and passed 6 GiB (kdrift issue 34).
pub const BATCH_BYTES: u64 = 64 << 20;

/// Bytes of lines the reader holds ahead of the stager, at most (plus one
/// chunk when none is queued), by default: half of [`FileLimits::batch_bytes`].
/// [`QUEUED`] chunks bound the count, this the size when lines are big.
pub const QUEUED_BYTES: usize = (BATCH_BYTES / 2) as usize;

/// Read buffer, bytes.
const BUFFER: usize = 1 << 20;

/// Lines parsed per chunk handed from the parsing thread, at most.
pub const CHUNK: usize = 2_048;

/// Bytes of lines per chunk: a chunk ends at [`CHUNK`] lines or at the
/// line that reaches this size (so it holds at most this plus one line),
/// and big objects make smaller chunks.
pub const CHUNK_BYTES: usize = 2 << 20;

/// Parsed chunks waiting to be staged, at most: enough for the reader to
/// go on parsing and preparing while a batch commits (~1.5 s of DuckDB
/// work per 100,000 events on one core; 2 chunks kept it idle then), and
/// a bound on what it holds ahead: 16 chunks of lines with their prepared
/// rows (about 27 MiB of event-sized lines).
pub const QUEUED: usize = 16;

pub(crate) fn open(path: &Path, cap: DecompressedCap) -> Option<Box<dyn BufRead + Send>> {
    let file = File::open(path).ok()?;
    let compressed = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut raw = BufReader::with_capacity(BUFFER, file);
    let gzip = raw.fill_buf().ok()?.starts_with(&[0x1f, 0x8b]);
    Some(if gzip {
        let decoder = Capped::new(Members::new(raw), cap, compressed);
        Box::new(BufReader::with_capacity(BUFFER, decoder))
    } else {
        Box::new(raw)
    })
}

/// One line read by [`read_line_capped`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// The input ended (no byte read).
    End,
    /// A line of this many bytes (its newline included) is in the buffer.
    Line(u64),
    /// A line longer than the limit: consumed, not kept (the buffer is
    /// empty). The numbers: bytes read (its newline included), and the
    /// line's length without its newline.
    TooLong(u64, u64),
}

/// Reads one line into `line` (cleared first; its `\n` kept), holding at
/// most `max` bytes of it (without the newline): the rest of a longer line
/// is read and dropped.
///
/// # Errors
/// The reader's (a damaged gzip stream).
pub(crate) fn read_line_capped<R: BufRead + ?Sized>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    line.clear();
    let (mut total, mut too_long, mut ended) = (0u64, false, false);
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let used = newline.map_or(available.len(), |i| i + 1);
        total += used as u64;
        if !too_long {
            let content = line.len() + used - usize::from(newline.is_some());
            if content > max {
                too_long = true;
                *line = Vec::new(); // give the memory back
            } else {
                line.extend_from_slice(&available[..used]);
            }
        }
        reader.consume(used);
        if newline.is_some() {
            ended = true;
            break;
        }
    }
    Ok(match (total, too_long) {
        (0, _) => LineRead::End,
        (n, true) => LineRead::TooLong(n, n - u64::from(ended)),
        (n, false) => LineRead::Line(n),
    })
}

/// The input error of a line longer than `limit` ([`MAX_LINE_BYTES`]):
/// `bytes` long, without its newline.
pub(crate) fn too_long_error(location: &str, line_no: u64, bytes: u64, limit: usize) -> InputError {
    let limit = if limit.is_multiple_of(1 << 20) { format!("{} MiB", limit >> 20) } else { format!("{limit} bytes") };
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line_no), item: None },
        column: None,
        message: format!(
            "the line is {bytes} bytes long, more than the {limit} kdrift reads in one line; skipped (expected {})",
            crate::parse::NDJSON_EXPECTED
        ),
    }
}

/// The input error of a read stopped by an interrupt before line `line_no`.
fn stopped_error(location: &str, line_no: u64) -> InputError {
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line_no), item: None },
        column: None,
        message: crate::parse::STOPPED.to_string(),
    }
}

/// How the message of [`read_failed_error`] starts.
const READ_FAILED: &str = "reading stopped at byte ";

/// The input error of a read that failed (`e`: the decompression cap, or
/// damaged gzip data) in line `line_no`, `offset` bytes into the
/// decompressed data: the lines before it are kept.
fn read_failed_error(location: &str, line_no: u64, offset: u64, e: &std::io::Error) -> InputError {
    let what = if e.kind() == ErrorKind::FileTooLarge {
        e.to_string()
    } else {
        format!("gzip data is corrupt or truncated: {e}")
    };
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line_no), item: None },
        column: None,
        message: format!(
            "{READ_FAILED}{offset} of the decompressed data: {what}; the lines before it are kept (expected {})",
            crate::parse::NDJSON_EXPECTED
        ),
    }
}

/// The input error of bytes between gzip members skipped ([`Skipped`])
/// before line `line_no`: the lines before and after are read.
fn skipped_error(location: &str, line_no: u64, skipped: Skipped) -> InputError {
    let after = if skipped.trailing { "the lines before are kept" } else { "the lines before and after are kept" };
    InputError {
        origin: Origin { location: location.to_string(), line: Some(line_no), item: None },
        column: None,
        message: format!("{skipped}; {after}"),
    }
}

/// Whether the name says NDJSON (`.ndjson`, `.jsonl`, also with `.gz`).
fn ndjson_by_name(location: &str) -> bool {
    crate::parse::Naming::of(location) == crate::parse::Naming::Ndjson
}

/// A line of a file's head: its bytes, or the length of a line too long to keep.
enum HeadLine {
    Bytes(Vec<u8>),
    TooLong(u64),
}

/// `#` comment lines read at most before the lines that decide whether a
/// file is NDJSON ([`stream_file`]); a file of more is left to the
/// whole-file reader.
const MAX_HEAD_COMMENTS: usize = 16;

/// Bytes read (decompressed) between two looks at the interrupt while the
/// lines that decide whether a file is NDJSON are read (1 MiB).
const HEAD_BYTES_BETWEEN_LOOKS: u64 = 1 << 20;

/// Streams `path` into `writer` when it is NDJSON, filling `summary`;
/// returns false (nothing read) when it is not, or cannot be opened (the
/// whole-file reader then reports it). `errors_before` counts the run's
/// input errors in earlier files (for the batch progress rows). Stops
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
    // No batch larger than the store's memory limit lets DuckDB commit (issue 39).
    let limits = &FileLimits { batch_bytes: limits.batch_bytes.min(writer.max_batch_bytes()), ..*limits };
    let Some(mut reader) = open(path, limits.decompressed) else { return Ok(false) };
    let location = summary.location.clone();
    // The first two non-blank lines that are not `#` comments decide (a
    // log saved with a `# …` header line is still one object per line;
    // the header is that line's error). YAML's comments lead to YAML
    // lines, which decide the other way.
    let is_comment = |l: &HeadLine| matches!(l, HeadLine::Bytes(b) if b.trim_ascii_start().starts_with(b"#"));
    let mut head: Vec<(u64, HeadLine)> = Vec::new();
    let mut comments = 0usize;
    let mut line_no = 0u64;
    let mut read_bytes = 0u64;
    let mut next_look = HEAD_BYTES_BETWEEN_LOOKS;
    // A read error in the head (a gzip bomb or damaged tail after the
    // first line): what was read before it decides, and loads.
    let mut head_failed = None;
    let mut head_skipped = Vec::new();
    while head.len() - comments < 2 && comments <= MAX_HEAD_COMMENTS {
        // Looked at every [`HEAD_BYTES_BETWEEN_LOOKS`] read: blank lines do
        // not count towards the head, so a file of them was read whole here
        // (break-it 40 F4: 100 MB of `\n` held SIGINT for 27 s). Not before:
        // a file that is not NDJSON is the other readers' to stop.
        if read_bytes >= next_look {
            next_look = read_bytes + HEAD_BYTES_BETWEEN_LOOKS;
            if interrupt.is_triggered() {
                summary.errors.push(stopped_error(&location, line_no + 1));
                return Ok(true);
            }
        }
        let mut line = Vec::new();
        let read = match read_line_capped(&mut *reader, &mut line, MAX_LINE_BYTES) {
            Ok(LineRead::End) => break,
            Ok(read) => read,
            // Garbage between gzip members: skipped, the next member read.
            Err(e) if skipped_in(&e).is_some() => {
                head_skipped.extend(skipped_in(&e).map(|s| skipped_error(&location, line_no + 1, s)));
                continue;
            }
            Err(e) => {
                head_failed = Some(read_failed_error(&location, line_no + 1, read_bytes, &e));
                break;
            }
        };
        line_no += 1;
        match read {
            LineRead::TooLong(n, len) => {
                read_bytes += n;
                head.push((line_no, HeadLine::TooLong(len)));
            }
            LineRead::End => {}
            LineRead::Line(n) => {
                read_bytes += n;
                if line_no == 1 {
                    if let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF") {
                        line = rest.to_vec();
                    }
                }
                if !line.trim_ascii().is_empty() {
                    let line = HeadLine::Bytes(line);
                    comments += usize::from(is_comment(&line));
                    head.push((line_no, line));
                }
            }
        }
    }
    let mut decisive = head.iter().map(|(_, l)| l).filter(|l| !is_comment(l));
    let is_ndjson = match (decisive.next(), decisive.next()) {
        // Named NDJSON and a line of the head opening like JSON (a bad first
        // line is that line's error; YAML in such a file is left to the
        // whole-file parser, which names the mistake once).
        (Some(HeadLine::TooLong(_)), _) => ndjson_by_name(&location),
        // Pretty-printed values (`jq '.items[]'` without `-c`): the
        // whole-file reader reads them as a stream of JSON values.
        (Some(HeadLine::Bytes(a)), Some(HeadLine::Bytes(b)))
            if ndjson_by_name(&location) && crate::parse::pretty_values_for_ndjson(a, Some(b)) =>
        {
            false
        }
        (Some(HeadLine::Bytes(a)), b) if ndjson_by_name(&location) => {
            let opens_object = |l: &[u8]| l.trim_ascii_start().starts_with(b"{");
            opens_object(a)
                || matches!(b, Some(HeadLine::Bytes(b)) if opens_object(b))
                || matches!(b, Some(HeadLine::TooLong(_)))
        }
        // A one-line object, then a line too long to look at: a stream of objects.
        (Some(HeadLine::Bytes(a)), Some(HeadLine::TooLong(_))) => {
            let a = a.trim_ascii();
            a.len() > 1 && a.starts_with(b"{") && a.ends_with(b"}")
        }
        (Some(HeadLine::Bytes(a)), Some(HeadLine::Bytes(b))) => {
            looks_like_ndjson(&[a.as_slice(), b"\n", b.as_slice(), b"\n"].concat())
        }
        // A one-line object, then a read error: that object loads here (the
        // whole-file reader would lose it with the damaged rest).
        (Some(HeadLine::Bytes(a)), None) if head_failed.is_some() => {
            let a = a.trim_ascii();
            a.len() > 1 && a.starts_with(b"{") && a.ends_with(b"}")
        }
        _ => false,
    };
    if !is_ndjson {
        return Ok(false);
    }
    summary.format = Some(Format::Ndjson);
    let hint = kind_hint_from_path(&location);
    let mut first = Parsed::default();
    for (n, line) in &head {
        match line {
            HeadLine::Bytes(line) => {
                parse_ndjson_line_until(&location, *n, line, hint, interrupt, &mut first);
            }
            HeadLine::TooLong(bytes) => first.errors.push(too_long_error(&location, *n, *bytes, MAX_LINE_BYTES)),
        }
    }
    first.errors.extend(head_skipped);
    first.errors.extend(head_failed.take());
    let started_at = writer.started_at();
    let read_failed = first.errors.last().is_some_and(|e| e.message.starts_with(READ_FAILED));
    let first = Ready {
        bytes: 0,
        skipped: first.skipped,
        errors: first.errors,
        errors_not_kept: first.errors_not_kept,
        records: first.records.into_iter().map(|r| prepare(r, started_at)).collect(),
    };
    if read_failed {
        // Nothing more can be read.
        stage_chunk(writer, first, summary, errors_before, limits.batch_bytes)?;
        return Ok(true);
    }
    let (tx, rx) = std::sync::mpsc::sync_channel::<Ready>(QUEUED);
    let budget = Budget::new(usize::try_from(limits.batch_bytes / 2).unwrap_or(usize::MAX));
    // The parsed-size cap and the interrupt go with the reader.
    let bounds = crate::parse::current_bounds();
    std::thread::scope(|scope| {
        let location = location.as_str();
        let reader_budget = &budget;
        scope.spawn(move || {
            let _bounds = crate::parse::enter_bounds(bounds);
            // The reader: chunks of lines, parsed and prepared on every core, in file order.
            let mut lines: Vec<(u64, Vec<u8>)> = Vec::with_capacity(CHUNK);
            let mut chunk_bytes = 0usize;
            let mut too_long = Vec::new();
            let mut failed = None;
            loop {
                // Before every line (blank ones too: a chunk of them holds
                // no value for the parser's looks).
                if interrupt.is_triggered() {
                    failed = Some(stopped_error(location, line_no + 1));
                    break;
                }
                let mut line = Vec::new();
                match read_line_capped(&mut *reader, &mut line, MAX_LINE_BYTES) {
                    Ok(LineRead::End) => break,
                    Ok(LineRead::Line(n)) => read_bytes += n,
                    Ok(LineRead::TooLong(n, len)) => {
                        read_bytes += n;
                        line_no += 1;
                        too_long.push(too_long_error(location, line_no, len, MAX_LINE_BYTES));
                        continue;
                    }
                    Err(e) if skipped_in(&e).is_some() => {
                        too_long.extend(skipped_in(&e).map(|s| skipped_error(location, line_no + 1, s)));
                        continue;
                    }
                    Err(e) => {
                        // Past the decompression cap, or damaged: the lines before it load.
                        failed = Some(read_failed_error(location, line_no + 1, read_bytes, &e));
                        break;
                    }
                }
                line_no += 1;
                chunk_bytes += line.len();
                lines.push((line_no, line));
                if lines.len() == CHUNK || chunk_bytes >= CHUNK_BYTES {
                    // Held until the chunks queued ahead leave room for it.
                    if !reader_budget.take(chunk_bytes) {
                        return; // the stager stopped (a store error, an interrupt)
                    }
                    let mut chunk = Ready::of(location, hint, std::mem::take(&mut lines), started_at, interrupt);
                    chunk.bytes = std::mem::take(&mut chunk_bytes);
                    chunk.add_errors(std::mem::take(&mut too_long));
                    if tx.send(chunk).is_err() {
                        return; // the stager stopped (a store error, an interrupt)
                    }
                }
            }
            if !reader_budget.take(chunk_bytes) {
                return;
            }
            let mut last = Ready::of(location, hint, lines, started_at, interrupt);
            last.bytes = chunk_bytes;
            last.add_errors(too_long);
            last.errors.extend(failed);
            let _ = tx.send(last);
        });
        // However the stager ends (a store error, an interrupt), a reader
        // waiting for room is released.
        let _closed = budget.closer();
        stage_chunk(writer, first, summary, errors_before, limits.batch_bytes)?;
        for chunk in rx {
            if interrupt.is_triggered() {
                break; // dropping the receiver stops the reader
            }
            let bytes = chunk.bytes;
            stage_chunk(writer, chunk, summary, errors_before, limits.batch_bytes)?;
            budget.give(bytes);
        }
        Ok::<(), StoreError>(())
    })?;
    Ok(true)
}

/// The bytes of lines the reader may hold ahead of the stager
/// ([`QUEUED_BYTES`]): the reader takes a chunk's bytes before sending it,
/// the stager gives them back once the chunk is staged. A chunk larger
/// than the whole budget goes alone.
struct Budget {
    state: std::sync::Mutex<(usize, bool)>,
    changed: std::sync::Condvar,
    limit: usize,
}

impl Budget {
    fn new(limit: usize) -> Budget {
        Budget { state: std::sync::Mutex::new((0, false)), changed: std::sync::Condvar::new(), limit }
    }

    /// Waits until `bytes` fit beside those held (or none are held), then
    /// holds them. False when the stager has stopped.
    fn take(&self, bytes: usize) -> bool {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while !state.1 && state.0 > 0 && state.0 + bytes > self.limit {
            state = self.changed.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        if state.1 {
            return false;
        }
        state.0 += bytes;
        true
    }

    /// Gives back the bytes of a staged chunk.
    fn give(&self, bytes: usize) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        state.0 = state.0.saturating_sub(bytes);
        self.changed.notify_all();
    }

    /// A guard that marks the stager stopped when dropped.
    fn closer(&self) -> BudgetCloser<'_> {
        BudgetCloser(self)
    }
}

/// Marks the [`Budget`]'s stager stopped when dropped.
struct BudgetCloser<'a>(&'a Budget);

impl Drop for BudgetCloser<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        state.1 = true;
        self.0.changed.notify_all();
    }
}

/// A chunk of lines parsed and prepared for staging.
#[derive(Default)]
pub(crate) struct Ready {
    /// Bytes of the lines it was parsed from ([`Budget`]).
    pub(crate) bytes: usize,
    /// Lines holding no object.
    pub(crate) skipped: u64,
    /// Lines that are not a record.
    pub(crate) errors: Vec<InputError>,
    /// Errors past those a line's [`Parsed`] kept, only counted.
    pub(crate) errors_not_kept: u64,
    /// The records, in line order.
    pub(crate) records: Vec<Prepared>,
}

impl Ready {
    /// Parses and prepares `lines` ((line number, bytes)) on every core.
    /// A line of many values stops within a few thousand of them once
    /// `interrupt` is triggered.
    fn of(
        location: &str,
        hint: Option<&str>,
        lines: Vec<(u64, Vec<u8>)>,
        started_at: DateTime<Utc>,
        interrupt: &Interrupt,
    ) -> Ready {
        let per_line = map_ordered(lines, |(n, line)| {
            let mut parsed = Parsed::default();
            parse_ndjson_line_until(location, n, &line, hint, interrupt, &mut parsed);
            let records: Vec<Prepared> = parsed.records.into_iter().map(|r| prepare(r, started_at)).collect();
            (parsed.skipped, (parsed.errors, parsed.errors_not_kept), records)
        });
        let mut ready = Ready::default();
        for (skipped, (mut errors, not_kept), mut records) in per_line {
            ready.skipped += skipped;
            ready.errors_not_kept += not_kept;
            ready.errors.append(&mut errors);
            ready.records.append(&mut records);
        }
        ready
    }

    /// Adds errors of lines not parsed (too long), keeping the errors in line order.
    fn add_errors(&mut self, errors: Vec<InputError>) {
        if !errors.is_empty() {
            self.errors.extend(errors);
            self.errors.sort_by_key(|e| e.origin.line);
        }
    }
}

/// Stages one parsed chunk; commits a batch when [`BATCH`] records or
/// `batch_bytes` bytes ([`FileLimits::batch_bytes`]) are pending.
pub(crate) fn stage_chunk(
    writer: &mut RunWriter<'_>,
    mut chunk: Ready,
    summary: &mut FileSummary,
    errors_before: u64,
    batch_bytes: u64,
) -> Result<(), StoreError> {
    summary.skipped += chunk.skipped;
    summary.add_errors(std::mem::take(&mut chunk.errors));
    summary.errors_not_kept += chunk.errors_not_kept;
    for record in chunk.records {
        stage_prepared(writer, record, summary)?;
        if writer.pending() >= BATCH || writer.pending_bytes() >= batch_bytes {
            // The file's errors so far commit with the batch (those of the
            // files before, `errors_before` of them, were given already).
            let given = writer.errors_noted().saturating_sub(errors_before) as usize;
            for e in summary.errors.iter().skip(given) {
                crate::files::note_error(writer, e);
            }
            writer.commit_batch(errors_before + summary.errors.len() as u64)?;
            summary.batches += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `input` read with a cap of `max` bytes, through a 4-byte buffer.
    fn lines(input: &[u8], max: usize) -> Vec<(LineRead, String)> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        let mut line = Vec::new();
        loop {
            let read = read_line_capped(&mut reader, &mut line, max).expect("read");
            if read == LineRead::End {
                return out;
            }
            out.push((read, String::from_utf8_lossy(&line).into_owned()));
        }
    }

    #[test]
    fn a_line_over_the_cap_is_consumed_not_kept_and_the_next_lines_are_read() {
        let got = lines(b"{\"a\":1}\n0123456789ABCDEF\n\n0123456789\nlast", 10);
        assert_eq!(
            got,
            vec![
                (LineRead::Line(8), "{\"a\":1}\n".to_string()),
                (LineRead::TooLong(17, 16), String::new()),
                (LineRead::Line(1), "\n".to_string()),
                (LineRead::Line(11), "0123456789\n".to_string()),
                (LineRead::Line(4), "last".to_string()),
            ]
        );
        // The last line without a newline, over the cap.
        assert_eq!(lines(b"0123456789AB", 10), vec![(LineRead::TooLong(12, 12), String::new())]);
    }

    #[test]
    fn a_batch_commits_once_its_staged_bytes_reach_the_bound_whatever_its_record_count() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = crate::Store::open(&dir.path().join("k.duckdb")).expect("store");
        let mut writer = RunWriter::begin(&store, "file", "big.ndjson").expect("run");
        let pad = "x".repeat((BATCH_BYTES / 3) as usize);
        let records: Vec<Prepared> = (0..4)
            .map(|i| {
                let object = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": format!("p{i}"), "namespace": "ns", "uid": format!("u{i}"),
                                 "annotations": {"pad": pad}}});
                let origin = Origin { location: "big.ndjson".into(), line: Some(i + 1), item: None };
                let record =
                    crate::store::Record { object, origin, observed_at: None, change: crate::store::Change::Listed };
                prepare(record, writer.started_at())
            })
            .collect();
        let mut summary = FileSummary::default();
        let chunk = Ready { records, ..Ready::default() };
        stage_chunk(&mut writer, chunk, &mut summary, 0, BATCH_BYTES).expect("stage");
        // 3 × a third of the bound reach it: committed; the 4th waits.
        assert_eq!((writer.committed().records, writer.pending()), (3, 1));
        assert!(writer.pending_bytes() < BATCH_BYTES);
        writer.abandon(0).expect("close");
    }

    #[test]
    fn a_smaller_batch_bytes_bound_commits_sooner() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = crate::Store::open(&dir.path().join("k.duckdb")).expect("store");
        let mut writer = RunWriter::begin(&store, "file", "small.ndjson").expect("run");
        let records: Vec<Prepared> = (0..5)
            .map(|i| {
                let object = serde_json::json!({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": format!("n{i}"), "uid": format!("u{i}")}});
                let origin = Origin { location: "small.ndjson".into(), line: Some(i + 1), item: None };
                let record =
                    crate::store::Record { object, origin, observed_at: None, change: crate::store::Change::Listed };
                prepare(record, writer.started_at())
            })
            .collect();
        let mut records = records.into_iter();
        let (first, rest): (Vec<Prepared>, Vec<Prepared>) = (records.by_ref().take(2).collect(), records.collect());
        let mut summary = FileSummary::default();
        // The default bound: all pending, nothing committed yet.
        stage_chunk(&mut writer, Ready { records: first, ..Ready::default() }, &mut summary, 0, BATCH_BYTES)
            .expect("stage");
        assert_eq!((writer.committed().records, writer.pending()), (0, 2));
        // Each record alone passes a 1-byte bound: committed as it comes, nothing left pending.
        stage_chunk(&mut writer, Ready { records: rest, ..Ready::default() }, &mut summary, 0, 1).expect("stage");
        assert_eq!((writer.committed().records, writer.pending(), summary.records), (5, 0, 5));
        writer.abandon(0).expect("close");
    }

    #[test]
    fn the_error_of_a_long_line_names_the_line_its_length_and_the_limit() {
        let e = too_long_error("/d/x.ndjson", 7, 67_108_865, MAX_LINE_BYTES);
        assert_eq!(
            e.to_string(),
            "/d/x.ndjson:7: the line is 67108865 bytes long, more than the 64 MiB kdrift reads in one line; skipped \
             (expected one JSON object per line (a Kubernetes object or a log record))"
        );
        assert!(too_long_error("x", 1, 20, 10).message.contains("more than the 10 bytes kdrift reads"));
    }
}
