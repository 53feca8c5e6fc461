//! The committing side of a pull, on the calling thread: each answered
//! attempt at a window ([`super::fetch`] fetches and prepares its lines on
//! a thread of its own, working ahead) is staged into a fresh ingest run,
//! and the run is committed together with the window's `vl_windows` row in
//! one transaction — or abandoned, leaving nothing of the attempt in the
//! store. While a window commits, the fetcher goes on with the next.
//!
//! A window is never held whole (break-it 35 F8: 20 rows of 60 MiB in one
//! window peaked at 7.75 GB): the run holds one transaction from its first
//! row ([`RunWriter::hold_transaction`]), and each time the rows staged
//! reach [`PullOptions::max_batch_bytes`] (`--max-batch-bytes`, 64 MiB)
//! they are moved into the store inside it ([`RunWriter::move_batch`]:
//! `observations` and the derived tables, the staging table emptied). The
//! transaction commits with the `vl_windows` row, so `--resume` still sees
//! a window whole or not at all: an attempt that fails or is interrupted
//! rolls every batch of it back. A row of 1 MiB or more gives that
//! transaction up (`kdrift_store`'s `RunWriter::released`, break-it 40 F3:
//! one 30 MiB row under `--memory-limit 64MiB` failed its window whole,
//! none of its 200 other rows stored): the batches before it are committed,
//! the later ones commit as they go, a row DuckDB cannot store alone is an
//! input error naming it, and the `vl_windows` row still commits last (a
//! window that fails after is pulled again whole, its stored rows counted
//! as duplicates). What DuckDB holds of the uncommitted
//! batches is its buffer manager's (spilled to its temporary directory
//! under memory pressure), not kdrift's.
//!
//! Text that is not JSON ending the body, a body cut off mid-line, or a
//! broken connection fails the attempt (VictoriaLogs reports errors after
//! the 200 header inside the body; a 200 is no proof of completeness). A
//! line that is not a row with rows after it, and a row that is JSON but
//! not of the layout, are input errors of the run ([`super::fetch`] says
//! why the window is still committed); the other rows still load, and so
//! do they around a line longer than the limit
//! ([`crate::ndjson_stream::MAX_LINE_BYTES`]), also an input error. An
//! interrupt ([`crate::interrupt::Interrupt`]) closes the window's run as failed.

use chrono::Utc;
use kdrift_store::params;

use super::client::VlClient;
use super::error::{show_time, VlError};
use super::fetch::{FetchJob, Fetched, FetchedLine, Fetcher};
use super::layout::Layout;
use super::logsql::window_query;
use super::pull::{PullOptions, PullProgress};
use super::windows::Window;
use crate::files::{show_rejected, stage_prepared, FileSummary};
use crate::interrupt::INTERRUPTED_RUN_MESSAGE;
use crate::store::{sql, Store, StoreError};
use crate::store::{RunStatus, RunWriter};

/// The ingest run's `source_kind`.
pub const SOURCE_KIND: &str = "victorialogs";

/// The `ingest_files.format` of a window.
pub const FORMAT: &str = "victorialogs-ndjson";

/// What one committed window gave.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WindowReport {
    /// The window.
    #[serde(flatten)]
    pub window: Window,
    /// The ingest run that committed it.
    pub run_id: i64,
    /// Rows read: response lines holding something (each object of a line
    /// holding several, and each bad line, counted once).
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
    /// Rows that could not be stored (reported as input errors): the first
    /// 100 of the window, then one saying how many more were counted.
    pub errors: Vec<String>,
    /// Rows that could not be stored, counted ones included.
    pub error_count: u64,
    /// Rows whose values the kind's schema rejected (stored with schema-free types).
    pub schema_rejected: u64,
    /// Attempts it took.
    pub attempts: u32,
}

/// What the pull's windows share.
#[derive(Debug, Clone, Copy)]
pub struct WindowJob<'a> {
    /// The layout of the rows.
    pub layout: Layout,
    /// The query without its time filter.
    pub base_query: &'a str,
    /// The pull's key in `vl_windows`.
    pub pull_key: &'a str,
}

/// Where a window's rows come from, as errors and `ingest_files` name it:
/// `<endpoint> [<start>, <end>)`.
pub fn location(client: &VlClient, window: &Window) -> String {
    location_at(&client.endpoint("/select/logsql/query"), window)
}

/// [`location`], from the query endpoint's URL.
pub fn location_at(endpoint: &str, window: &Window) -> String {
    format!("{endpoint} [{}, {})", show_time(&window.start), show_time(&window.end))
}

/// Pulls `windows` in order, each committed on its own: the fetcher works
/// ahead while the calling thread stages and commits. Committed windows are
/// pushed to `done` (and told to `progress`) as they commit.
///
/// # Errors
/// [`VlError::Window`] when a window's attempts are spent (or its failure
/// is not retryable), [`VlError::Interrupted`] (the run in progress closed
/// as failed), [`VlError::Store`]; the windows in `done` stay committed.
pub async fn pull_windows(
    store: &Store,
    client: &VlClient,
    job: WindowJob<'_>,
    windows: &[Window],
    options: &PullOptions,
    progress: &mut dyn PullProgress,
    done: &mut Vec<WindowReport>,
) -> Result<(), VlError> {
    let interrupt = &options.interrupt;
    if windows.is_empty() {
        return Ok(());
    }
    let fetch = FetchJob {
        layout: job.layout,
        base_query: job.base_query.to_string(),
        max_line: options.max_line_bytes,
        queued_bytes: usize::try_from(options.max_batch_bytes / 2).unwrap_or(usize::MAX),
        windows: windows.to_vec(),
        window_bytes: options.max_window_bytes,
        retry: options.retry,
        endpoint: client.endpoint("/select/logsql/query"),
        started_at: Utc::now(),
        redactor: client.redactor().clone(),
    };
    let mut fetcher = Fetcher::start(client.detached()?, fetch, interrupt.clone())
        .map_err(|problem| VlError::BadUrl { url: client.base_url(), problem })?;
    let mut current: Option<Attempt<'_>> = None;
    // The windows left, as the fetcher pulls them (a split replaces the
    // first by its halves).
    let mut todo: std::collections::VecDeque<Window> = windows.iter().copied().collect();
    // Time spent waiting for the fetcher since the last commit (the rest is
    // staging and committing): in the log, it says which side is slower.
    let mut waited = std::time::Duration::ZERO;
    loop {
        let next_window = todo.front().map(|w| (w.start, w.end));
        let asked = std::time::Instant::now();
        let message = tokio::select! {
            m = fetcher.queue.recv() => m,
            () = interrupt.triggered() => None,
        };
        waited += asked.elapsed();
        let Some(message) = message.filter(|_| !interrupt.is_triggered()) else {
            if todo.is_empty() {
                return Ok(());
            }
            // The fetcher stops only after the last window, a failure it
            // reported, or an interrupt.
            let run_id = match current.take() {
                Some(a) => Some(a.abandon(INTERRUPTED_RUN_MESSAGE)?),
                None => None,
            };
            return Err(VlError::Interrupted { window: next_window, run_id, committed: done.len() });
        };
        match message {
            Fetched::Begin { window, attempt } => {
                debug_assert!(current.is_none() && todo.front() == Some(&window));
                let window = &window;
                let location = location(client, window);
                let query = window_query(job.base_query, window.start, window.end);
                let mut writer = RunWriter::begin(store, SOURCE_KIND, &format!("{location} {query}"))?;
                // The window commits whole, its batches moved inside one transaction.
                writer.hold_transaction()?;
                let summary = FileSummary { location, ..FileSummary::default() };
                let (max_line, batch_bytes) = (options.max_line_bytes, options.max_batch_bytes);
                current = Some(Attempt {
                    window: *window,
                    attempt,
                    writer,
                    summary,
                    rows: 0,
                    schema_rejected: 0,
                    max_line,
                    batch_bytes,
                });
            }
            Fetched::Lines(lines, permit) => {
                for line in lines {
                    // Seen between rows (break-it 36 F4b: with `--max-batch-bytes 1`
                    // each row moves a batch, and a chunk of 2,048 rows took 189 s).
                    if interrupt.is_triggered() {
                        let run_id = match current.take() {
                            Some(a) => Some(a.abandon(INTERRUPTED_RUN_MESSAGE)?),
                            None => None,
                        };
                        return Err(VlError::Interrupted { window: next_window, run_id, committed: done.len() });
                    }
                    current.as_mut().expect("lines follow their attempt's Begin").stage(line)?;
                }
                // Staged: the fetcher may hold that much more ahead.
                drop(permit);
            }
            Fetched::End => {
                let a = current.take().expect("an attempt's End follows its Begin");
                let report = a.commit(job)?;
                let waited_ms = std::mem::take(&mut waited).as_millis() as u64;
                tracing::info!(start = %report.window.start, end = %report.window.end, rows = report.rows, added = report.added, run = report.run_id, waited_ms, "window committed");
                progress.window_done(&report);
                todo.pop_front();
                done.push(report);
            }
            Fetched::Split { window, parts, read } => {
                let shown: Vec<String> =
                    parts.iter().map(|w| format!("[{}, {})", show_time(&w.start), show_time(&w.end))).collect();
                let message = format!(
                    "the answer of window [{}, {}) passed --max-window-bytes ({} bytes) after {read} bytes: it is \
                     pulled again as {} windows ({}), each committed on its own; nothing of this run is kept",
                    show_time(&window.start),
                    show_time(&window.end),
                    options.max_window_bytes,
                    parts.len(),
                    shown.join(", "),
                );
                if let Some(a) = current.take() {
                    a.abandon(&message)?;
                }
                tracing::info!(start = %window.start, end = %window.end, read, parts = parts.len(), "window split");
                progress.split(&window, &parts);
                todo.pop_front();
                for part in parts.iter().rev() {
                    todo.push_front(*part);
                }
            }
            Fetched::Failed { window, attempt, failure, retry_in } => {
                let failure = failure.redacted(client.redactor());
                if let Some(a) = current.take() {
                    a.abandon(&failure.to_string())?;
                }
                let window = &window;
                match retry_in {
                    Some(delay) => {
                        tracing::info!(attempt, %failure, ?delay, "window failed; retrying");
                        progress.retrying(window, attempt, &failure, delay);
                    }
                    None => {
                        return Err(VlError::Window {
                            url: client.endpoint("/select/logsql/query"),
                            start: window.start,
                            end: window.end,
                            attempts: attempt,
                            failure,
                        })
                    }
                }
            }
        }
    }
}

/// One answered attempt at a window, being staged into its own run.
struct Attempt<'s> {
    window: Window,
    attempt: u32,
    writer: RunWriter<'s>,
    summary: FileSummary,
    /// Rows read (as [`WindowReport::rows`]).
    rows: u64,
    schema_rejected: u64,
    /// The longest line read ([`PullOptions::max_line_bytes`]), for errors.
    max_line: usize,
    /// Bytes staged before they are moved into the store ([`PullOptions::max_batch_bytes`]).
    batch_bytes: u64,
}

impl Attempt<'_> {
    /// Stages one line (or records its input error).
    fn stage(&mut self, line: FetchedLine) -> Result<(), StoreError> {
        match line {
            FetchedLine::TooLong { line, len } => {
                self.rows += 1;
                let error = crate::ndjson_stream::too_long_error(&self.summary.location, line, len, self.max_line);
                self.summary.add_error(error);
            }
            FetchedLine::Row { line, rejected, record } => {
                self.rows += 1;
                // Counted only when the row is stored: one the validation
                // then refuses is an input error, not stored (break-it 46 L5).
                let stored = record.as_ref().is_ok_and(|p| p.row.is_ok());
                if let (Some(why), true) = (&rejected, stored) {
                    self.schema_rejected += 1;
                    tracing::debug!(line, %why, "schema rejected a value; stored with schema-free types");
                }
                match record {
                    Ok(prepared) => stage_prepared(&mut self.writer, *prepared, &mut self.summary)?,
                    Err(e) => self.summary.add_error(e),
                }
            }
        }
        if self.writer.pending_bytes() >= self.batch_bytes {
            self.writer.move_batch(self.summary.error_total())?;
        }
        Ok(())
    }

    /// Closes the attempt's run as failed, with `message` as its error
    /// row; nothing it staged is kept, but for the batches committed before
    /// when a big row gave its transaction up (`RunWriter::released`).
    /// Returns the run's id.
    fn abandon(mut self, message: &str) -> Result<i64, StoreError> {
        let run_id = self.writer.run_id();
        let location = self.summary.location.clone();
        let message = if self.writer.released() {
            let kept = self.writer.committed().records;
            format!(
                "{message} ({kept} records of this attempt were committed before, from its first row of 1 MiB or more \
                 on its batches commit as they go; the window is pulled again whole, those counted as duplicates)"
            )
        } else {
            message.to_string()
        };
        self.writer.note_error(&location, None, None, None, &message);
        self.writer.abandon(1)?;
        Ok(run_id)
    }

    /// Commits the window's run with its `vl_windows` row.
    fn commit(self, job: WindowJob<'_>) -> Result<WindowReport, StoreError> {
        let Attempt { window, attempt, mut writer, mut summary, rows, schema_rejected, .. } = self;
        // The window's first 100 errors kept, the others counted (break-it 34 M1).
        summary.close_errors();
        let errors = summary.error_total();
        let run_id = writer.run_id();
        writer.record_file(&summary.location, FORMAT, summary.records, summary.events, summary.objects, 0, errors);
        for e in &summary.errors {
            writer.note_error(&e.origin.location, e.origin.line, e.column, e.origin.item, &e.message);
        }
        let status = match (errors, summary.records) {
            (0, _) => RunStatus::Ok,
            (_, 0) => RunStatus::Failed,
            _ => RunStatus::Partial,
        };
        // A window's run holds one transaction until an object of 1 MiB or
        // more gives it up (`RunWriter::released`); from there an object too
        // big for the memory limit is left out (`Committed::rejected`).
        let committed = writer.commit_with(status, errors, |store, run_id| {
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
        let counts = committed.counts;
        show_rejected(std::slice::from_mut(&mut summary), &committed.rejected);
        Ok(WindowReport {
            window,
            run_id,
            rows,
            records: counts.records,
            events: summary.events,
            objects: summary.objects,
            added: counts.added,
            duplicates: counts.duplicates,
            errors: summary.errors.iter().map(ToString::to_string).collect(),
            error_count: summary.error_total(),
            schema_rejected,
            attempts: attempt,
        })
    }
}
