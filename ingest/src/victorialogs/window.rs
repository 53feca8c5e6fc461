//! One attempt at one query window: the response is streamed line by line
//! into a fresh ingest run (never held whole in memory), and the run is
//! committed together with the window's `vl_windows` row in one
//! transaction — or abandoned, leaving nothing of the window in the store.
//!
//! A non-JSON line, a body cut off mid-line, or a broken connection fails
//! the attempt (VictoriaLogs reports errors after the 200 header inside the
//! body; a 200 is no proof of completeness). A row that is JSON but not of
//! the layout is an input error of the run; the other rows still load, and
//! so do they around a line longer than the limit
//! ([`crate::ndjson_stream::MAX_LINE_BYTES`]), also an input error. An
//! interrupt ([`Interrupt`]) closes the window's run as failed.

use chrono::{DateTime, Utc};
use duckdb::params;
use serde_json::Value;

use super::client::{next_chunk, VlClient};
use super::error::{show_time, Failure};
use super::layout::{convert, Layout, Typing};
use super::lines::{Line, LineSplitter};
use super::logsql::window_query;
use super::windows::Window;
use crate::files::{stage_prepared, FileSummary};
use crate::interrupt::{Interrupt, INTERRUPTED_RUN_MESSAGE};
use crate::parallel::map_ordered;
use crate::parse::InputError;
use crate::record::{Origin, Record};
use crate::store::prepare::{prepare, Prepared};
use crate::store::writer::{RunStatus, RunWriter};
use crate::store::{sql, Store, StoreError};

/// The ingest run's `source_kind`.
pub const SOURCE_KIND: &str = "victorialogs";

/// The `ingest_files.format` of a window.
pub const FORMAT: &str = "victorialogs-ndjson";

/// Most characters of a bad line quoted in an error.
const QUOTE_LIMIT: usize = 300;

/// What one committed window gave.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WindowReport {
    /// The window.
    #[serde(flatten)]
    pub window: Window,
    /// The ingest run that committed it.
    pub run_id: i64,
    /// Rows (response lines) read.
    pub rows: u64,
    /// Object versions staged.
    pub records: u64,
    /// Of which Events.
    pub events: u64,
    /// Of which other objects.
    pub objects: u64,
    /// New versions the store did not have.
    pub added: u64,
    /// Versions the store already had.
    pub duplicates: u64,
    /// Rows that could not be stored (reported as input errors).
    pub errors: Vec<String>,
    /// Rows whose values the kind's schema rejected (stored with schema-free types).
    pub schema_rejected: u64,
    /// Attempts it took.
    pub attempts: u32,
}

/// Why an attempt failed: the server or network (retry may help) or the store (abort).
#[derive(Debug)]
pub enum AttemptError {
    /// The answer failed.
    Failure(Failure),
    /// The store failed.
    Store(StoreError),
    /// The pull was interrupted; the window's run (when one was begun) is
    /// closed as failed.
    Interrupted {
        /// The window's run.
        run_id: Option<i64>,
    },
}

impl From<Failure> for AttemptError {
    fn from(f: Failure) -> Self {
        AttemptError::Failure(f)
    }
}

impl From<StoreError> for AttemptError {
    fn from(e: StoreError) -> Self {
        AttemptError::Store(e)
    }
}

/// What an attempt needs to know about the pull.
#[derive(Debug, Clone, Copy)]
pub struct WindowJob<'a> {
    /// The layout of the rows.
    pub layout: Layout,
    /// The query without its time filter.
    pub base_query: &'a str,
    /// The pull's key in `vl_windows`.
    pub pull_key: &'a str,
    /// Longest line accepted, bytes.
    pub max_line: usize,
}

/// Lines read before they are converted and prepared together, on every core.
const CHUNK: usize = 2_048;

/// Per-line state of an attempt: lines are buffered [`CHUNK`] at a time,
/// converted and prepared on every core, then staged in line order.
struct Lines<'w, 's> {
    writer: &'w mut RunWriter<'s>,
    summary: FileSummary,
    layout: Layout,
    rows: u64,
    schema_rejected: u64,
    pending: Vec<(u64, Vec<u8>)>,
    /// The longest line held ([`WindowJob::max_line`]).
    max_line: usize,
}

/// What one response line is.
enum LineOutcome {
    /// Whitespace only.
    Blank,
    /// Not a JSON object: the attempt fails.
    NotJson(Failure),
    /// A row: its object prepared, or why it is not one of the layout.
    Row { rejected: Option<String>, record: Result<Box<Prepared>, InputError> },
}

impl Lines<'_, '_> {
    fn line(&mut self, line: u64, bytes: Line<'_>) -> Result<(), AttemptError> {
        let bytes = match bytes {
            Line::Bytes(bytes) => bytes,
            Line::TooLong(len) => {
                // An input error in line order: the lines before it go first.
                self.flush()?;
                self.rows += 1;
                let location = &self.summary.location;
                let error = crate::ndjson_stream::too_long_error(location, line, len, self.max_line);
                self.summary.errors.push(error);
                return Ok(());
            }
        };
        self.pending.push((line, bytes.to_vec()));
        if self.pending.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    /// Converts, prepares and stages the buffered lines; the first line that
    /// is not JSON fails the attempt.
    fn flush(&mut self) -> Result<(), AttemptError> {
        let (layout, location, started_at) = (self.layout, self.summary.location.as_str(), self.writer.started_at());
        let outcomes = map_ordered(std::mem::take(&mut self.pending), |(line, bytes)| {
            outcome(layout, location, line, &bytes, started_at)
        });
        for (line, outcome) in outcomes {
            match outcome {
                LineOutcome::Blank => {}
                LineOutcome::NotJson(f) => return Err(AttemptError::Failure(f)),
                LineOutcome::Row { rejected, record } => {
                    self.rows += 1;
                    if let Some(why) = rejected {
                        self.schema_rejected += 1;
                        tracing::debug!(line, %why, "schema rejected a value; stored with schema-free types");
                    }
                    match record {
                        Ok(prepared) => stage_prepared(self.writer, *prepared, &mut self.summary)?,
                        Err(e) => self.summary.errors.push(e),
                    }
                }
            }
        }
        Ok(())
    }
}

/// Reads one response line (pure: runs on any core). Returns the line
/// number with it.
fn outcome(layout: Layout, location: &str, line: u64, bytes: &[u8], started_at: DateTime<Utc>) -> (u64, LineOutcome) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return (line, LineOutcome::Blank);
    }
    let not_json = |problem: String| {
        let text = String::from_utf8_lossy(bytes);
        let text: String = text.chars().take(QUOTE_LIMIT).collect();
        LineOutcome::NotJson(Failure::NotJson { line, problem, text })
    };
    let row = match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(row)) => row,
        Ok(_) => return (line, not_json("a JSON value that is not an object".into())),
        Err(e) => return (line, not_json(e.to_string())),
    };
    let origin = Origin { location: location.to_string(), line: Some(line), item: None };
    let outcome = match convert(layout, row) {
        Ok(c) => {
            let rejected = match c.typing {
                Typing::Rejected(why) => Some(why),
                _ => None,
            };
            let record = Record { object: c.object, origin, observed_at: c.observed_at, change: c.change };
            LineOutcome::Row { rejected, record: Ok(Box::new(prepare(record, started_at))) }
        }
        Err(e) => LineOutcome::Row {
            rejected: None,
            record: Err(InputError { origin, column: None, message: e.to_string() }),
        },
    };
    (line, outcome)
}

/// Pulls one window once: on success its rows and its `vl_windows` row are
/// committed (one transaction); on failure nothing of it is kept.
///
/// # Errors
/// [`AttemptError::Failure`] (the caller may retry), [`AttemptError::Store`].
pub async fn pull_window(
    store: &Store,
    client: &VlClient,
    job: WindowJob<'_>,
    window: &Window,
    interrupt: &Interrupt,
) -> Result<WindowReport, AttemptError> {
    let query = window_query(job.base_query, window.start, window.end);
    let location = format!(
        "{} [{}, {})",
        client.endpoint("/select/logsql/query"),
        show_time(&window.start),
        show_time(&window.end)
    );
    // The request comes first: a refused query leaves no run behind.
    let mut response = tokio::select! {
        response = client.query(&query) => response?,
        () = interrupt.triggered() => return Err(AttemptError::Interrupted { run_id: None }),
    };
    let mut writer = RunWriter::begin(store, SOURCE_KIND, &format!("{location} {query}"))?;
    let run_id = writer.run_id();
    let streamed = stream_into(&mut writer, &mut response, job, &location, interrupt).await;
    let (summary, rows, schema_rejected) = match streamed {
        Ok(done) => done,
        Err(e) => {
            match &e {
                AttemptError::Failure(f) => writer.record_error(&location, None, None, None, &f.to_string())?,
                AttemptError::Interrupted { .. } => {
                    writer.record_error(&location, None, None, None, INTERRUPTED_RUN_MESSAGE)?
                }
                AttemptError::Store(_) => {}
            }
            writer.abandon(1)?;
            return Err(match e {
                AttemptError::Interrupted { .. } => AttemptError::Interrupted { run_id: Some(run_id) },
                other => other,
            });
        }
    };
    writer.record_file(
        &location,
        FORMAT,
        summary.records,
        summary.events,
        summary.objects,
        0,
        summary.errors.len() as u64,
    )?;
    for e in &summary.errors {
        writer.record_error(&e.origin.location, e.origin.line, e.column, e.origin.item, &e.message)?;
    }
    let errors = summary.errors.len() as u64;
    let status = match (errors, summary.records) {
        (0, _) => RunStatus::Ok,
        (_, 0) => RunStatus::Failed,
        _ => RunStatus::Partial,
    };
    let (counts, _) = writer.commit_with(status, errors, |store, run_id| {
        store
            .execute(
                &sql::VL_RECORD_WINDOW,
                params![
                    job.pull_key,
                    window.start.timestamp_micros(),
                    window.end.timestamp_micros(),
                    run_id,
                    rows as i64,
                    Utc::now().timestamp_micros()
                ],
            )
            .map(|_| ())
    })?;
    Ok(WindowReport {
        window: *window,
        run_id,
        rows,
        records: counts.records,
        events: summary.events,
        objects: summary.objects,
        added: counts.added,
        duplicates: counts.duplicates,
        errors: summary.errors.iter().map(ToString::to_string).collect(),
        schema_rejected,
        attempts: 1,
    })
}

async fn stream_into(
    writer: &mut RunWriter<'_>,
    response: &mut reqwest::Response,
    job: WindowJob<'_>,
    location: &str,
    interrupt: &Interrupt,
) -> Result<(FileSummary, u64, u64), AttemptError> {
    let summary = FileSummary { location: location.to_string(), ..FileSummary::default() };
    let mut lines = Lines {
        writer,
        summary,
        layout: job.layout,
        rows: 0,
        schema_rejected: 0,
        pending: Vec::new(),
        max_line: job.max_line,
    };
    let mut splitter = LineSplitter::new(job.max_line);
    loop {
        // A failure after some lines: the buffered lines come first (an
        // earlier line that is not JSON is what the attempt reports).
        let next = tokio::select! {
            next = next_chunk(response) => next,
            () = interrupt.triggered() => return Err(AttemptError::Interrupted { run_id: None }),
        };
        let chunk = match next {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(f) => {
                lines.flush()?;
                return Err(f.into());
            }
        };
        if let Err(e) = splitter.push::<AttemptError>(chunk.as_ref(), &mut |n, bytes| lines.line(n, bytes)) {
            lines.flush()?;
            return Err(e);
        }
    }
    lines.flush()?;
    splitter.finish()?;
    Ok((lines.summary, lines.rows, lines.schema_rejected))
}
