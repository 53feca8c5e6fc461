//! Large NDJSON files (VictoriaLogs exports, recorder logs) read as a
//! stream by `kdrift ingest file`: line by line (gzip decompressed on the
//! fly), each record staged as soon as it is parsed, and the run committed
//! in batches of [`BATCH`] records, so that memory does not grow with the
//! file's length (BENCHMARKS.md, issue 6). It is bounded by the batch size
//! times the record size, not by a fixed amount: event-sized records peak
//! at about 980 MiB, big objects such as Pods much earlier (50,000 Pods
//! as NDJSON peak at about 890 MiB). Each batch is its own
//! transaction (as a recorder's); the run stays `running` until the end, and
//! ingesting the file again after a crash adds only what is missing.
//!
//! A second thread reads [`CHUNK`] lines at a time and parses and prepares
//! them on every core ([`crate::store::prepare`]) while this one stages and
//! commits (order kept: one producer, one queue of at most [`QUEUED`]
//! chunks, so memory stays bounded too).
//!
//! A file whose first two non-blank lines are not one-line objects is not
//! NDJSON: it is left to the whole-file parser.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use chrono::{DateTime, Utc};

use crate::files::{stage_prepared, FileSummary};
use crate::parallel::map_ordered;
use crate::parse::{kind_hint_from_path, looks_like_ndjson, parse_ndjson_line, Format, InputError, Parsed};
use crate::record::Origin;
use crate::store::prepare::{prepare, Prepared};
use crate::store::writer::RunWriter;
use crate::store::StoreError;

/// Records staged between two batch commits.
pub const BATCH: u64 = 100_000;

/// Read buffer, bytes.
const BUFFER: usize = 1 << 20;

/// Lines parsed per chunk handed from the parsing thread.
pub const CHUNK: usize = 2_048;

/// Parsed chunks waiting to be staged, at most.
pub const QUEUED: usize = 2;

fn open(path: &Path) -> Option<Box<dyn BufRead + Send>> {
    let mut raw = BufReader::with_capacity(BUFFER, File::open(path).ok()?);
    let gzip = raw.fill_buf().ok()?.starts_with(&[0x1f, 0x8b]);
    Some(if gzip {
        Box::new(BufReader::with_capacity(BUFFER, flate2::bufread::MultiGzDecoder::new(raw)))
    } else {
        Box::new(raw)
    })
}

/// Streams `path` into `writer` when it is NDJSON, filling `summary`;
/// returns false (nothing read) when it is not, or cannot be opened (the
/// whole-file reader then reports it). `errors_before` counts the run's
/// input errors in earlier files (for the batch progress rows).
///
/// # Errors
/// [`StoreError`] when staging or a batch commit fails.
pub(crate) fn stream_file(
    writer: &mut RunWriter<'_>,
    path: &Path,
    summary: &mut FileSummary,
    errors_before: u64,
) -> Result<bool, StoreError> {
    let Some(mut reader) = open(path) else { return Ok(false) };
    let location = summary.location.clone();
    // The first two non-blank lines decide.
    let mut head: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut line_no = 0u64;
    let mut read_bytes = 0u64;
    while head.len() < 2 {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(n) => read_bytes += n as u64,
            Err(_) => return Ok(false),
        }
        line_no += 1;
        if line_no == 1 {
            if let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF") {
                line = rest.to_vec();
            }
        }
        if !line.trim_ascii().is_empty() {
            head.push((line_no, line));
        }
    }
    let joined: Vec<u8> = head.iter().flat_map(|(_, l)| l.iter().copied().chain([b'\n'])).collect();
    if head.len() < 2 || !looks_like_ndjson(&joined) {
        return Ok(false);
    }
    summary.format = Some(Format::Ndjson);
    let hint = kind_hint_from_path(&location);
    let mut first = Parsed::default();
    for (n, line) in &head {
        parse_ndjson_line(&location, *n, line, hint, &mut first);
    }
    let started_at = writer.started_at();
    let first = Ready {
        skipped: first.skipped,
        errors: first.errors,
        records: first.records.into_iter().map(|r| prepare(r, started_at)).collect(),
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<Ready>(QUEUED);
    std::thread::scope(|scope| {
        let location = location.as_str();
        scope.spawn(move || {
            // The reader: chunks of lines, parsed and prepared on every core, in file order.
            let mut lines: Vec<(u64, Vec<u8>)> = Vec::with_capacity(CHUNK);
            let mut failed = None;
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(n) => read_bytes += n as u64,
                    Err(e) => {
                        failed = Some(InputError {
                            origin: Origin { location: location.to_string(), line: None, item: None },
                            column: None,
                            message: format!(
                                "gzip data is corrupt or truncated after {read_bytes} decompressed bytes: {e}"
                            ),
                        });
                        break;
                    }
                }
                line_no += 1;
                lines.push((line_no, line));
                if lines.len() == CHUNK {
                    let chunk = Ready::of(location, hint, std::mem::take(&mut lines), started_at);
                    if tx.send(chunk).is_err() {
                        return; // the stager stopped (a store error)
                    }
                }
            }
            let mut last = Ready::of(location, hint, lines, started_at);
            last.errors.extend(failed);
            let _ = tx.send(last);
        });
        stage_chunk(writer, first, summary, errors_before)?;
        for chunk in rx {
            stage_chunk(writer, chunk, summary, errors_before)?;
        }
        Ok::<(), StoreError>(())
    })?;
    Ok(true)
}

/// A chunk of lines parsed and prepared for staging.
#[derive(Default)]
struct Ready {
    /// Lines holding no object.
    skipped: u64,
    /// Lines that are not a record.
    errors: Vec<InputError>,
    /// The records, in line order.
    records: Vec<Prepared>,
}

impl Ready {
    /// Parses and prepares `lines` ((line number, bytes)) on every core.
    fn of(location: &str, hint: Option<&str>, lines: Vec<(u64, Vec<u8>)>, started_at: DateTime<Utc>) -> Ready {
        let per_line = map_ordered(lines, |(n, line)| {
            let mut parsed = Parsed::default();
            parse_ndjson_line(location, n, &line, hint, &mut parsed);
            let records: Vec<Prepared> = parsed.records.into_iter().map(|r| prepare(r, started_at)).collect();
            (parsed.skipped, parsed.errors, records)
        });
        let mut ready = Ready::default();
        for (skipped, mut errors, mut records) in per_line {
            ready.skipped += skipped;
            ready.errors.append(&mut errors);
            ready.records.append(&mut records);
        }
        ready
    }
}

/// Stages one parsed chunk; commits a batch when [`BATCH`] records are pending.
fn stage_chunk(
    writer: &mut RunWriter<'_>,
    mut chunk: Ready,
    summary: &mut FileSummary,
    errors_before: u64,
) -> Result<(), StoreError> {
    summary.skipped += chunk.skipped;
    summary.errors.append(&mut chunk.errors);
    for record in chunk.records {
        stage_prepared(writer, record, summary)?;
        if writer.pending() >= BATCH {
            writer.commit_batch(errors_before + summary.errors.len() as u64)?;
        }
    }
    Ok(())
}
