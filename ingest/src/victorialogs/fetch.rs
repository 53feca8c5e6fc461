//! The fetching side of a pull: one thread, with its own Tokio runtime and
//! HTTP client, asks for the windows in time order, splits each answer into
//! lines, converts and prepares them (on every core) and hands them over in
//! order through a bounded queue, while the calling thread stages and
//! commits the window before ([`super::window`]). DuckDB work stays on the
//! calling thread (a store connection is not shared between threads); the
//! fetcher never touches the store.
//!
//! Retries happen here: a failed attempt is reported ([`Fetched::Failed`],
//! after the lines it sent, so the caller abandons that attempt's run), and
//! the window is asked again after the backoff. The fetcher stops when the
//! pull is interrupted, when the caller drops the queue, after the last
//! window, or after a failure it does not retry.
//!
//! A response line that is not a row is an input error of its window, not
//! a failure, unless it is text ending an answer cut off (the server's
//! error report) or an answer of text only: [`outcome`] says why that is
//! safe for `--resume`. An answer whose transfer ended normally
//! ([`super::client::framed`]) is whole: text ending it is bad rows, and
//! its last line needs no newline (break-it 42 H2: a last line that was
//! not a row, or a last row without its newline, lost the window for
//! good, as the answer asked again is the same).
//!
//! What the fetcher holds is bounded by bytes, not by the window: lines go
//! in chunks of [`CHUNK`] lines or [`crate::ndjson_stream::CHUNK_BYTES`]
//! (whichever comes first; a line near the 64 MiB cap goes alone), and the
//! chunks converted or waiting in the queue hold at most
//! [`FetchJob::queued_bytes`] of lines (half of `--max-batch-bytes`, as
//! `ingest file`'s reader) plus one chunk: the stager gives a chunk's
//! [`Permit`] back once it is staged (break-it 35 F8: one window of 20 rows
//! of 60 MiB was held whole, 7.75 GB).

use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio::sync::mpsc::{Receiver, Sender};

use super::client::{VlClient, QUOTE_LIMIT};
use super::error::Failure;
use super::layout::{convert, Layout, Typing};
use super::lines::{Line, LineSplitter};
use super::logsql::window_query;
use super::pull::Retry;
use super::windows::Window;
use crate::interrupt::Interrupt;
use crate::parse::InputError;
use crate::store::map_ordered;
use crate::store::{prepare, Prepared};
use crate::store::{Origin, Record};
use kdrift_rebalance::Redactor;

/// Lines converted and prepared together, on every core (one message).
pub const CHUNK: usize = 2_048;

/// Messages the queue holds ahead of the caller: at most this many chunks
/// of [`CHUNK`] lines are converted and waiting while a window commits.
pub const QUEUED: usize = 8;

/// What the fetcher hands over, in order.
#[derive(Debug)]
pub enum Fetched {
    /// Attempt `attempt` (1-based) at `window` was answered (2xx): its
    /// lines follow.
    Begin {
        /// The window (the plan's, or a half of one, [`Fetched::Split`]).
        window: Window,
        /// 1-based.
        attempt: u32,
    },
    /// Lines of the attempt begun last, in line order (blank lines left
    /// out), with the share of [`FetchJob::queued_bytes`] they hold (given
    /// back when dropped: drop it once they are staged).
    Lines(Vec<FetchedLine>, Permit),
    /// The attempt's answer ended cleanly: the window can be committed.
    End,
    /// The answer of the attempt begun last passed
    /// [`FetchJob::window_bytes`]: it is given up (nothing of it is kept)
    /// and `window` is pulled again as `parts`, in time order, each
    /// committed on its own ([`split`]).
    Split {
        /// The window given up.
        window: Window,
        /// The windows pulled next in its place (two or more, contiguous).
        parts: Vec<Window>,
        /// Bytes of its answer read when it was given up.
        read: u64,
    },
    /// Attempt `attempt` at `window` failed (after the lines sent, if it
    /// was answered). `retry_in`: it is asked again after that wait;
    /// `None`: the fetcher stops (attempts spent, or not retryable).
    Failed {
        /// The window.
        window: Window,
        /// 1-based.
        attempt: u32,
        /// What broke.
        failure: Failure,
        /// The wait before the next attempt.
        retry_in: Option<StdDuration>,
    },
}

/// A chunk's share of the bytes the fetcher may hold ahead of the stager
/// ([`FetchJob::queued_bytes`]), given back when dropped.
#[derive(Debug)]
pub struct Permit(#[allow(dead_code)] Option<tokio::sync::OwnedSemaphorePermit>);

/// The budget of [`FetchJob::queued_bytes`], counted in KiB (a semaphore
/// counts at most `u32::MAX` permits at a time).
#[derive(Debug, Clone)]
struct Budget {
    kib: std::sync::Arc<tokio::sync::Semaphore>,
    limit: u32,
}

impl Budget {
    fn new(bytes: usize) -> Budget {
        let limit =
            u32::try_from((bytes >> 10).max(1)).unwrap_or(u32::MAX).min(tokio::sync::Semaphore::MAX_PERMITS as u32);
        Budget { kib: std::sync::Arc::new(tokio::sync::Semaphore::new(limit as usize)), limit }
    }

    /// Waits until `bytes` fit beside those held (a chunk larger than the
    /// whole budget waits until nothing else is held), then holds them.
    async fn take(&self, bytes: usize) -> Permit {
        let kib = u32::try_from(bytes.div_ceil(1 << 10)).unwrap_or(u32::MAX).clamp(1, self.limit);
        // The semaphore is never closed.
        Permit(self.kib.clone().acquire_many_owned(kib).await.ok())
    }
}

/// One response line that holds something.
#[derive(Debug)]
pub enum FetchedLine {
    /// Longer than the limit: an input error of the window (not read).
    TooLong {
        /// 1-based line number.
        line: u64,
        /// Its length, bytes.
        len: u64,
    },
    /// A row: its object prepared, or why it is not one of the layout.
    Row {
        /// 1-based line number.
        line: u64,
        /// Why the kind's schema rejected a value (stored with schema-free types).
        rejected: Option<String>,
        /// The prepared record, or the row's input error.
        record: Result<Box<Prepared>, InputError>,
    },
}

/// What the fetcher needs, owned (it runs on its own thread).
#[derive(Debug, Clone)]
pub struct FetchJob {
    /// The layout of the rows.
    pub layout: Layout,
    /// The query without its time filter.
    pub base_query: String,
    /// Longest line accepted, bytes.
    pub max_line: usize,
    /// Bytes of lines converted or queued ahead of the stager, at most
    /// (plus one chunk): half of [`super::PullOptions::max_batch_bytes`].
    pub queued_bytes: usize,
    /// The windows, in the order they are committed (before any split).
    pub windows: Vec<Window>,
    /// Bytes of lines one window's answer may hold before the window is
    /// split in halves by time ([`Fetched::Split`]; a window under two
    /// seconds is read whole): [`super::PullOptions::max_window_bytes`].
    pub window_bytes: u64,
    /// Retries of a failed window.
    pub retry: Retry,
    /// The query endpoint, for the location of a window's rows in errors
    /// ([`super::window::location`]).
    pub endpoint: String,
    /// The observation time of a record that carries none (the run's start).
    pub started_at: DateTime<Utc>,
    /// Masks the credentials in what the server says (a line that is not
    /// JSON, a row's bad value) before it is quoted in an error.
    pub redactor: Redactor,
}

/// A running fetcher: its queue and its thread.
pub struct Fetcher {
    /// The messages, in order.
    pub queue: Receiver<Fetched>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Fetcher {
    /// Starts fetching `job`'s windows from `client` (detached to the
    /// fetcher's own runtime) on a new thread.
    ///
    /// # Errors
    /// The thread or its runtime cannot start (the message says which).
    pub fn start(client: VlClient, job: FetchJob, interrupt: Interrupt) -> Result<Fetcher, String> {
        let (tx, queue) = tokio::sync::mpsc::channel(QUEUED);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the fetcher's runtime: {e}"))?;
        let thread = std::thread::Builder::new()
            .name("kdrift-vl-fetch".into())
            .spawn(move || runtime.block_on(fetch_all(&client, &job, &interrupt, &tx)))
            .map_err(|e| format!("cannot start the fetcher's thread: {e}"))?;
        Ok(Fetcher { queue, thread: Some(thread) })
    }
}

impl Drop for Fetcher {
    /// Closes the queue (the fetcher stops at its next step) and waits for
    /// the thread; a panic there is resumed here.
    fn drop(&mut self) {
        self.queue.close();
        while self.queue.try_recv().is_ok() {}
        if let Some(thread) = self.thread.take() {
            if let Err(panic) = thread.join() {
                if !std::thread::panicking() {
                    std::panic::resume_unwind(panic);
                }
            }
        }
    }
}

/// Why an attempt stopped short of its end.
enum Stop {
    /// The attempt failed: report it, maybe retry.
    Failed(Failure),
    /// Interrupted, or the caller is gone: stop fetching.
    Quit,
    /// The answer passed [`FetchJob::window_bytes`] after this many bytes
    /// and rows: pull the window in parts instead.
    Split(u64, u64),
}

async fn fetch_all(client: &VlClient, job: &FetchJob, interrupt: &Interrupt, tx: &Sender<Fetched>) {
    let attempts = job.retry.attempts.max(1);
    // One budget for the whole pull: the next window's lines wait for the
    // room the last window's leave.
    let budget = Budget::new(job.queued_bytes);
    let mut todo: std::collections::VecDeque<Window> = job.windows.iter().copied().collect();
    'windows: while let Some(window) = todo.pop_front() {
        let mut attempt = 1;
        loop {
            let failure = match fetch_attempt(client, job, &budget, attempt, &window, interrupt, tx).await {
                Ok(()) => break,
                Err(Stop::Quit) => return,
                Err(Stop::Split(read, rows)) => {
                    let Ok(parts) = unless_stopped(split(client, job, &window, read, rows), interrupt, tx).await else {
                        return;
                    };
                    for part in parts.iter().rev() {
                        todo.push_front(*part);
                    }
                    if tx.send(Fetched::Split { window, parts, read }).await.is_err() {
                        return;
                    }
                    continue 'windows;
                }
                Err(Stop::Failed(failure)) => failure.redacted(&job.redactor),
            };
            let retry_in = (attempt < attempts && failure.is_retryable()).then(|| job.retry.delay(attempt));
            if tx.send(Fetched::Failed { window, attempt, failure, retry_in }).await.is_err() {
                return;
            }
            let Some(delay) = retry_in else { return };
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = interrupt.triggered() => return,
                () = tx.closed() => return,
            }
            attempt += 1;
        }
    }
}

/// Waits for `work`, giving up (`Stop::Quit`) when the pull is
/// interrupted or the caller dropped the queue.
async fn unless_stopped<T>(
    work: impl std::future::Future<Output = T>,
    interrupt: &Interrupt,
    tx: &Sender<Fetched>,
) -> Result<T, Stop> {
    tokio::select! {
        done = work => Ok(done),
        () = interrupt.triggered() => Err(Stop::Quit),
        () = tx.closed() => Err(Stop::Quit),
    }
}

/// One attempt at one window: asks, then hands the lines over in chunks.
#[allow(clippy::too_many_arguments)]
async fn fetch_attempt(
    client: &VlClient,
    job: &FetchJob,
    budget: &Budget,
    attempt: u32,
    window: &Window,
    interrupt: &Interrupt,
    tx: &Sender<Fetched>,
) -> Result<(), Stop> {
    let query = window_query(&job.base_query, window.start, window.end);
    // The whole answer within the request timeout (break-it 35 F20: a
    // server trickling a byte a second held the pull forever).
    let deadline = tokio::time::Instant::now() + client.request_timeout();
    let overran = || client.overran("/select/logsql/query");
    // The request comes first: a refused query begins no run.
    let asked = tokio::time::timeout_at(deadline, client.query(&query));
    let mut response =
        unless_stopped(asked, interrupt, tx).await?.unwrap_or_else(|_| Err(overran())).map_err(Stop::Failed)?;
    send(tx, Fetched::Begin { window: *window, attempt }).await?;
    let framed = super::client::framed(&response);
    let location = super::window::location_at(&job.endpoint, window);
    // Split when the answer passes the budget, unless the window is at the floor.
    let split_past = if super::windows::halves(window).is_some() { job.window_bytes } else { u64::MAX };
    let (mut read, mut rows): (u64, u64) = (0, 0);
    let mut lines = Pending {
        job,
        location: &location,
        held: Vec::new(),
        held_bytes: 0,
        budget,
        own_time: StdDuration::ZERO,
        text: Vec::new(),
        other_lines: false,
    };
    let mut splitter = LineSplitter::new(job.max_line);
    loop {
        // kdrift's own time (converting, waiting for the stager) is not the server's.
        let next = tokio::time::timeout_at(deadline + lines.own_time, client.next_chunk(&mut response));
        let chunk = match unless_stopped(next, interrupt, tx).await?.unwrap_or_else(|_| Err(overran())) {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(f) => {
                // The lines before the break go first (error text the server
                // wrote before it is what the attempt reports).
                lines.flush(tx).await?;
                return Err(Stop::Failed(lines.error_text().unwrap_or(f)));
            }
        };
        // A body chunk is at most the HTTP reader's buffer (hundreds of
        // KiB): its lines are handed on once they fill a chunk of ours.
        let _ = splitter.push::<()>(chunk.as_ref(), &mut |n, line| {
            if let Some(bytes) = lines.hold(n, line) {
                read += bytes;
                rows += 1;
            }
            Ok(())
        });
        if read > split_past {
            return Err(Stop::Split(read, rows));
        }
        if lines.held.len() >= CHUNK || lines.held_bytes >= crate::ndjson_stream::CHUNK_BYTES {
            lines.flush(tx).await?;
        }
    }
    if framed {
        // The whole answer: its unfinished line is its last.
        let _ = splitter.finish_whole::<()>(&mut |n, line| {
            lines.hold(n, line);
            Ok(())
        });
        lines.flush(tx).await?;
        lines.end_whole(tx).await?;
    } else {
        lines.flush(tx).await?;
        if let Some(f) = lines.error_text() {
            return Err(Stop::Failed(f));
        }
        splitter.finish().map_err(Stop::Failed)?;
    }
    send(tx, Fetched::End).await
}

/// The parts a window whose answer passed [`FetchJob::window_bytes`]
/// (after `read` bytes in `rows` rows) is pulled as: planned again from
/// its `/hits` counts ([`super::windows::plan`]) for windows of the rows
/// that fit three quarters of the budget at the bytes per row seen, so that
/// one answer too large costs one read given up, not one per halving
/// (640 rows of 1.9 MiB in the first 11 minutes of a day: ten halvings of
/// 256 MiB read and staged for nothing). When `/hits` fails or plans no
/// smaller window: the window's two halves ([`super::windows::halves`]).
async fn split(client: &VlClient, job: &FetchJob, window: &Window, read: u64, rows: u64) -> Vec<Window> {
    let halves = || super::windows::halves(window).map(|(a, b)| vec![a, b]).unwrap_or_else(|| vec![*window]);
    let per_row = (read / rows.max(1)).max(1);
    let fit = (job.window_bytes / 4 * 3 / per_row).max(1);
    let step = super::windows::hits_step(window.start, window.end);
    let query = window_query(&job.base_query, window.start, window.end);
    let parts = match client.hits(&query, window.start, window.end, step).await {
        Ok(buckets) => super::windows::plan(window.start, window.end, step, &buckets, fit, window.end - window.start),
        Err(e) => {
            tracing::info!(error = %e, "cannot count the rows of a window too large; pulling its halves");
            return halves();
        }
    };
    if parts.len() < 2 {
        return halves();
    }
    parts
}

async fn send(tx: &Sender<Fetched>, message: Fetched) -> Result<(), Stop> {
    tx.send(message).await.map_err(|_| Stop::Quit)
}

/// A line as read, before conversion.
enum Held {
    Bytes(Vec<u8>),
    TooLong(u64),
}

/// Lines read and not yet handed over.
struct Pending<'j> {
    job: &'j FetchJob,
    location: &'j str,
    held: Vec<(u64, Held)>,
    /// Bytes of the lines in `held`.
    held_bytes: usize,
    /// What may be held ahead of the stager.
    budget: &'j Budget,
    /// Time spent handing lines over (waiting for the budget, converting,
    /// queueing): added to the request's deadline, which bounds the
    /// server's time only (a window staged slowly is no server trickling).
    own_time: StdDuration,
    /// Lines that are not JSON nor open like a row, with no row after them
    /// yet: VictoriaLogs' error text when the answer ends with them
    /// ([`Pending::error_text`]), else bad rows.
    text: Vec<(Failure, FetchedLine)>,
    /// A line other than such text was read (a row, a bad row, a line over
    /// the limit).
    other_lines: bool,
}

impl Pending<'_> {
    /// Holds one line read; returns its length (bytes) when it is held whole.
    fn hold(&mut self, n: u64, line: Line<'_>) -> Option<u64> {
        match line {
            Line::Bytes(bytes) => {
                self.held_bytes += bytes.len();
                self.held.push((n, Held::Bytes(bytes.to_vec())));
                Some(bytes.len() as u64)
            }
            Line::TooLong(len) => {
                self.held.push((n, Held::TooLong(len)));
                None
            }
        }
    }

    /// The answer ended and its transfer says it is whole (flushed first).
    /// Text ending it is bad rows, sent as the window's input errors, when
    /// other lines came before it: a proxy or shipper wrote it, and the
    /// answer asked again would be the same (VictoriaLogs failing after the
    /// 200 aborts the connection: a transport error, not a whole answer).
    /// An answer of text only is no VictoriaLogs answer (a proxy's page):
    /// the attempt fails with its first line.
    async fn end_whole(&mut self, tx: &Sender<Fetched>) -> Result<(), Stop> {
        if !self.other_lines {
            return self.error_text().map_or(Ok(()), |f| Err(Stop::Failed(f)));
        }
        let rows: Vec<FetchedLine> = self.text.drain(..).map(|(_, row)| row).collect();
        if rows.is_empty() {
            return Ok(());
        }
        // A few capped messages: they hold no share of the budget.
        send(tx, Fetched::Lines(rows, Permit(None))).await
    }

    /// Converts and prepares the held lines on every core and sends them.
    /// Lines that are not JSON and do not open with `{` are held back until
    /// a row follows them (then they are bad rows, sent before it).
    async fn flush(&mut self, tx: &Sender<Fetched>) -> Result<(), Stop> {
        if self.held.is_empty() {
            return Ok(());
        }
        let began = std::time::Instant::now();
        let result = self.hand_over(tx).await;
        self.own_time += began.elapsed();
        result
    }

    /// [`Pending::flush`], its time not counted.
    async fn hand_over(&mut self, tx: &Sender<Fetched>) -> Result<(), Stop> {
        // Held until the chunks ahead leave room for this one's conversion.
        let bytes = std::mem::take(&mut self.held_bytes);
        let permit = tokio::select! {
            p = self.budget.take(bytes) => p,
            () = tx.closed() => return Err(Stop::Quit),
        };
        let (layout, location, started_at) = (self.job.layout, self.location, self.job.started_at);
        let redactor = &self.job.redactor;
        let outcomes = map_ordered(std::mem::take(&mut self.held), |(line, held)| match held {
            Held::Bytes(bytes) => outcome(layout, location, line, &bytes, started_at, redactor),
            Held::TooLong(len) => Outcome::Lines(vec![FetchedLine::TooLong { line, len }]),
        });
        let mut lines = Vec::with_capacity(outcomes.len());
        for o in outcomes {
            match o {
                Outcome::Blank => {}
                Outcome::Text(failure, row) => self.text.push((failure, row)),
                Outcome::Lines(rows) => {
                    self.other_lines = true;
                    // The server went on writing rows: the text before was no error of its own.
                    lines.extend(self.text.drain(..).map(|(_, row)| row));
                    lines.extend(rows);
                }
            }
        }
        if !lines.is_empty() {
            send(tx, Fetched::Lines(lines, permit)).await?;
        }
        Ok(())
    }

    /// The first of the lines that are not JSON when no row followed them:
    /// how VictoriaLogs reports a query that failed after the 200 header
    /// (`error during query execution: …`, then the body ends). The
    /// attempt fails (and is retried): what the server had left to send is
    /// missing.
    fn error_text(&mut self) -> Option<Failure> {
        self.text.drain(..).next().map(|(failure, _)| failure)
    }
}

/// What one response line is.
enum Outcome {
    /// Whitespace only.
    Blank,
    /// Not JSON, and not opening with `{` as a row does: the server's error
    /// text when no row follows (the attempt fails), else a bad row (the
    /// line's input error).
    Text(Failure, FetchedLine),
    /// The rows on the line (one, normally) and the input errors of what
    /// is not a row.
    Lines(Vec<FetchedLine>),
}

/// What a response line must hold, for the input error of one that does not.
pub const ROW_EXPECTED: &str = "one JSON object per line (a VictoriaLogs row)";

/// Reads one response line (pure: runs on any core). What it quotes of
/// the line is redacted before it is cut.
///
/// A line that is not a row (cut, not JSON, a JSON value that is no
/// object, text after a row) is an input error of the window naming the
/// response line and column, and the window's other rows load: the window
/// is committed and a `--resume` goes on after it. That is safe: the real
/// server writes every row whole from what it stored, so a bad line comes
/// from what stored or relayed it and would be as bad when asked again;
/// failing the window made every run (and `--resume`) fail on it forever
/// (kdrift issue 34). Every object on a line loads (`{…}{…}`: a relay
/// that lost a newline). Only text that is not JSON and ends an answer cut
/// off (or makes the whole answer) is the server's own error report
/// ([`Outcome::Text`], [`Pending::end_whole`]).
fn outcome(
    layout: Layout,
    location: &str,
    line: u64,
    bytes: &[u8],
    started_at: DateTime<Utc>,
    redactor: &Redactor,
) -> Outcome {
    let start = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
    if start == bytes.len() {
        return Outcome::Blank;
    }
    let origin = Origin { location: location.to_string(), line: Some(line), item: None };
    let bad = |column: Option<usize>, problem: String| {
        let text = redactor.quote(bytes, QUOTE_LIMIT);
        let message = format!(
            "response line {line} is not a row ({}): {text:?}; expected {ROW_EXPECTED}; the window's other lines are \
             stored",
            redactor.redact(&problem)
        );
        FetchedLine::Row {
            line,
            rejected: None,
            record: Err(InputError { origin: origin.clone(), column: column.map(|c| c as u64), message }),
        }
    };
    let mut rows = Vec::new();
    // Keys checked for duplicates at any depth (issue 34): the row's error.
    let values =
        |from: usize| serde_json::Deserializer::from_slice(&bytes[from..]).into_iter::<kdrift_rebalance::StrictValue>();
    // Where the stream starts in the line: past a bad row, at the next row
    // (break-it 42 H5); its columns count from there.
    let mut base = 0;
    let mut stream = values(base);
    loop {
        let at = base + stream.byte_offset();
        match stream.next().map(|v| v.map(|s| s.0)) {
            None => break,
            Some(Err(e)) if e.classify() == serde_json::error::Category::Data => {
                let message = redactor.redact(&e.to_string());
                rows.push(FetchedLine::Row {
                    line,
                    rejected: None,
                    record: Err(InputError {
                        origin: origin.clone(),
                        column: Some((base + e.column()) as u64),
                        message,
                    }),
                });
                break;
            }
            Some(Ok(Value::Object(row))) => rows.push(row_of(layout, origin.clone(), line, row, started_at, redactor)),
            Some(Ok(other)) => {
                let found = match other {
                    Value::Array(_) => "a JSON array",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    _ => "null",
                };
                let column = at + bytes[at..].iter().take_while(|b| b.is_ascii_whitespace()).count() + 1;
                rows.push(bad(Some(column), format!("found {found}, not a JSON object")));
            }
            Some(Err(e)) => {
                let mut problem = crate::parse::json_error_what(&e);
                if !rows.is_empty() {
                    let s = if rows.len() == 1 { "" } else { "s" };
                    problem.push_str(&format!(", after {} JSON value{s} on this line (read)", rows.len()));
                }
                // A row cut before the next one on its line (`{…"_msg":"ab{…}`):
                // the line is read on at that row (break-it 42 H5: every row
                // after it was lost). VictoriaLogs rows are flat: an object
                // is a row.
                let value = at + bytes[at..].iter().take_while(|b| b.is_ascii_whitespace()).count();
                let next = (e.line() == 1 && bytes[value] == b'{')
                    .then(|| {
                        kdrift_rebalance::next_value_on_line(
                            bytes,
                            value,
                            (base + e.column()).saturating_sub(1),
                            |_| true,
                        )
                    })
                    .flatten();
                if let Some(next) = next {
                    problem.push_str(&format!("; the line is read on from column {}, at the next row", next + 1));
                }
                let row = bad(Some(base + e.column()), problem);
                if rows.is_empty() && bytes[start] != b'{' {
                    let text = redactor.quote(bytes, QUOTE_LIMIT);
                    let failure = Failure::NotJson { line, problem: redactor.redact(&e.to_string()), text };
                    return Outcome::Text(failure, row);
                }
                rows.push(row);
                match next {
                    Some(next) => {
                        base = next;
                        stream = values(base);
                    }
                    None => break,
                }
            }
        }
    }
    Outcome::Lines(rows)
}

/// One JSON object of a response line, converted by `layout` and prepared.
fn row_of(
    layout: Layout,
    origin: Origin,
    line: u64,
    row: serde_json::Map<String, Value>,
    started_at: DateTime<Utc>,
    redactor: &Redactor,
) -> FetchedLine {
    match convert(layout, row) {
        Ok(c) => {
            let rejected = match c.typing {
                Typing::Rejected(why) => Some(redactor.redact(&why)),
                _ => None,
            };
            let record = Record { object: c.object, origin, observed_at: c.observed_at, change: c.change };
            FetchedLine::Row { line, rejected, record: Ok(Box::new(prepare(record, started_at))) }
        }
        Err(e) => FetchedLine::Row {
            line,
            rejected: None,
            record: Err(InputError { origin, column: None, message: redactor.redact(&e.to_string()) }),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::victorialogs::{Auth, Timeouts};

    /// A raw-layout row of pod `p{i}` whose message is `mib` MiB long.
    fn big_row(i: usize, mib: usize) -> String {
        serde_json::json!({
            "_time": format!("2026-11-27T00:00:{:02}Z", i % 60), "_msg": "", "reason": "FailedScheduling",
            "type": "Warning", "involvedObject.kind": "Pod", "involvedObject.namespace": "default",
            "involvedObject.name": format!("p{i}"), "metadata.name": format!("p{i}.ev"),
            "metadata.namespace": "default", "metadata.uid": format!("e{i}"), "count": "1",
            "message": "x".repeat(mib << 20),
        })
        .to_string()
    }

    /// Break-it 42 H5: rows on one response line (a relay that lost its
    /// newlines) with one cut inside a string before the next: every row
    /// after it on the line was lost (290 of 299 stored).
    #[test]
    fn a_row_cut_before_the_next_on_its_line_loses_no_row_after_it() {
        let rows: Vec<String> = (0..6).map(|i| big_row(i, 0)).collect();
        let cut = &rows[2][..rows[2].find("FailedSched").expect("reason") + 6];
        let line = format!("{}{}{cut}{}{}{}\n", rows[0], rows[1], rows[3], rows[4], rows[5]);
        let Outcome::Lines(lines) = outcome(Layout::Raw, "w", 7, line.as_bytes(), Utc::now(), &Redactor::default())
        else {
            panic!("lines")
        };
        // p0, p1, the cut row p2's error, p3, p4, p5.
        let kinds: Vec<&str> = lines
            .iter()
            .map(|l| match l {
                FetchedLine::Row { record: Ok(r), .. } if r.row.is_ok() => "row",
                FetchedLine::Row { record: Err(_), .. } => "error",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["row", "row", "error", "row", "row", "row"]);
        let errors: Vec<String> = lines
            .iter()
            .filter_map(|l| match l {
                FetchedLine::Row { record: Err(e), .. } => Some(e.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        let next = rows[0].len() + rows[1].len() + cut.len() + 1;
        assert!(errors[0].contains(&format!("the line is read on from column {next}, at the next row")), "{errors:?}");
    }

    /// A one-request server answering `/select/logsql/query` with `body`.
    fn query_server(body: Vec<u8>) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().expect("accept");
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match conn.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
            let _ = conn.write_all(head.as_bytes()).and_then(|()| conn.write_all(&body));
        });
        url
    }

    /// Break-it 35 F8: a window's lines went in chunks of 2,048 whatever
    /// their size (20 rows of 60 MiB: the whole window in one message,
    /// 7.75 GB). Lines go in chunks of at most 2 MiB plus a line, and the
    /// fetcher holds no more than its byte budget ahead of the stager: with
    /// a 2 MiB budget, the next chunk waits until the last is staged.
    #[test]
    fn a_windows_lines_go_in_byte_bounded_chunks_and_wait_for_the_budget() {
        let body: String = (0..12).map(|i| big_row(i, 1) + "\n").collect();
        let url = query_server(body.into_bytes());
        let client = VlClient::new(&url, Auth::default(), Timeouts::default()).expect("client");
        let t = |s: &str| DateTime::parse_from_rfc3339(s).expect("time").with_timezone(&Utc);
        let job = FetchJob {
            layout: Layout::Raw,
            base_query: "*".into(),
            max_line: crate::ndjson_stream::MAX_LINE_BYTES,
            queued_bytes: 2 << 20,
            windows: vec![Window {
                start: t("2026-11-27T00:00:00Z"),
                end: t("2026-11-27T01:00:00Z"),
                expected_rows: 12,
            }],
            window_bytes: u64::MAX,
            retry: Retry { attempts: 1, ..Retry::default() },
            endpoint: "w".into(),
            started_at: Utc::now(),
            redactor: client.redactor().clone(),
        };
        let mut fetcher = Fetcher::start(client, job, Interrupt::new()).expect("fetcher");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
        async fn next(f: &mut Fetcher) -> Fetched {
            let message = tokio::time::timeout(StdDuration::from_secs(60), f.queue.recv()).await;
            message.expect("in time").expect("a message")
        }
        runtime.block_on(async {
            assert!(matches!(next(&mut fetcher).await, Fetched::Begin { attempt: 1, .. }));
            let mut rows = Vec::new();
            loop {
                match next(&mut fetcher).await {
                    Fetched::Lines(lines, permit) => {
                        rows.push(lines.iter().filter(|l| matches!(l, FetchedLine::Row { record: Ok(_), .. })).count());
                        // Not staged yet: the fetcher has no room for the next chunk.
                        tokio::time::sleep(StdDuration::from_millis(300)).await;
                        let ahead = fetcher.queue.try_recv();
                        drop(permit);
                        match ahead {
                            Err(_) => {}
                            // The end holds no line.
                            Ok(Fetched::End) => break,
                            Ok(other) => panic!("{other:?} came past the budget after {rows:?}"),
                        }
                    }
                    Fetched::End => break,
                    other => panic!("{other:?}"),
                }
            }
            // 2 MiB reached at the second 1 MiB row of each chunk.
            assert_eq!(rows, [2, 2, 2, 2, 2, 2]);
        });
    }
}
