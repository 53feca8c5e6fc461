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
use crate::parallel::map_ordered;
use crate::parse::InputError;
use crate::record::{Origin, Record};
use crate::store::prepare::{prepare, Prepared};
use kdrift_rebalance::Redactor;

/// Lines converted and prepared together, on every core (one message).
pub const CHUNK: usize = 2_048;

/// Messages the queue holds ahead of the caller: at most this many chunks
/// of [`CHUNK`] lines are converted and waiting while a window commits.
pub const QUEUED: usize = 8;

/// What the fetcher hands over, in order.
#[derive(Debug)]
pub enum Fetched {
    /// Attempt `attempt` (1-based) at window `index` was answered (2xx):
    /// its lines follow.
    Begin {
        /// The window's index in the plan.
        index: usize,
        /// 1-based.
        attempt: u32,
    },
    /// Lines of the attempt begun last, in line order (blank lines left out).
    Lines(Vec<FetchedLine>),
    /// The attempt's answer ended cleanly: the window can be committed.
    End,
    /// Attempt `attempt` at window `index` failed (after the lines sent, if
    /// it was answered). `retry_in`: it is asked again after that wait;
    /// `None`: the fetcher stops (attempts spent, or not retryable).
    Failed {
        /// The window's index in the plan.
        index: usize,
        /// 1-based.
        attempt: u32,
        /// What broke.
        failure: Failure,
        /// The wait before the next attempt.
        retry_in: Option<StdDuration>,
    },
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
    /// The windows, in the order they are committed.
    pub windows: Vec<Window>,
    /// Retries of a failed window.
    pub retry: Retry,
    /// The location of window `i`'s rows in errors ([`super::window::location`]).
    pub locations: Vec<String>,
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
}

async fn fetch_all(client: &VlClient, job: &FetchJob, interrupt: &Interrupt, tx: &Sender<Fetched>) {
    let attempts = job.retry.attempts.max(1);
    for (index, window) in job.windows.iter().enumerate() {
        let mut attempt = 1;
        loop {
            let failure = match fetch_attempt(client, job, index, attempt, window, interrupt, tx).await {
                Ok(()) => break,
                Err(Stop::Quit) => return,
                Err(Stop::Failed(failure)) => failure.redacted(&job.redactor),
            };
            let retry_in = (attempt < attempts && failure.is_retryable()).then(|| job.retry.delay(attempt));
            if tx.send(Fetched::Failed { index, attempt, failure, retry_in }).await.is_err() {
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
async fn fetch_attempt(
    client: &VlClient,
    job: &FetchJob,
    index: usize,
    attempt: u32,
    window: &Window,
    interrupt: &Interrupt,
    tx: &Sender<Fetched>,
) -> Result<(), Stop> {
    let query = window_query(&job.base_query, window.start, window.end);
    // The request comes first: a refused query begins no run.
    let mut response = unless_stopped(client.query(&query), interrupt, tx).await?.map_err(Stop::Failed)?;
    send(tx, Fetched::Begin { index, attempt }).await?;
    let mut lines = Pending { job, location: &job.locations[index], held: Vec::new() };
    let mut splitter = LineSplitter::new(job.max_line);
    loop {
        let chunk = match unless_stopped(client.next_chunk(&mut response), interrupt, tx).await? {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(f) => {
                // The lines before the break go first (an earlier line that
                // is not JSON is what the attempt reports).
                lines.flush(tx).await?;
                return Err(Stop::Failed(f));
            }
        };
        let _ = splitter.push::<()>(chunk.as_ref(), &mut |n, line| {
            lines.held.push(match line {
                Line::Bytes(bytes) => (n, Held::Bytes(bytes.to_vec())),
                Line::TooLong(len) => (n, Held::TooLong(len)),
            });
            Ok(())
        });
        if lines.held.len() >= CHUNK {
            lines.flush(tx).await?;
        }
    }
    lines.flush(tx).await?;
    splitter.finish().map_err(Stop::Failed)?;
    send(tx, Fetched::End).await
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
}

impl Pending<'_> {
    /// Converts and prepares the held lines on every core and sends them;
    /// the first line that is not JSON fails the attempt, after the lines
    /// before it are sent.
    async fn flush(&mut self, tx: &Sender<Fetched>) -> Result<(), Stop> {
        if self.held.is_empty() {
            return Ok(());
        }
        let (layout, location, started_at) = (self.job.layout, self.location, self.job.started_at);
        let redactor = &self.job.redactor;
        let outcomes = map_ordered(std::mem::take(&mut self.held), |(line, held)| match held {
            Held::Bytes(bytes) => outcome(layout, location, line, &bytes, started_at, redactor),
            Held::TooLong(len) => Outcome::Line(FetchedLine::TooLong { line, len }),
        });
        let mut lines = Vec::with_capacity(outcomes.len());
        let mut failed = None;
        for o in outcomes {
            match o {
                Outcome::Blank => {}
                Outcome::Line(l) => lines.push(l),
                Outcome::NotJson(f) => {
                    failed = Some(f);
                    break;
                }
            }
        }
        if !lines.is_empty() {
            send(tx, Fetched::Lines(lines)).await?;
        }
        match failed {
            Some(f) => Err(Stop::Failed(f)),
            None => Ok(()),
        }
    }
}

/// What one response line is.
enum Outcome {
    /// Whitespace only.
    Blank,
    /// Not a JSON object: the attempt fails.
    NotJson(Failure),
    /// A line to hand over.
    Line(FetchedLine),
}

/// Reads one response line (pure: runs on any core). What it quotes of
/// the line is redacted before it is cut.
fn outcome(
    layout: Layout,
    location: &str,
    line: u64,
    bytes: &[u8],
    started_at: DateTime<Utc>,
    redactor: &Redactor,
) -> Outcome {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Outcome::Blank;
    }
    let not_json = |problem: String| {
        let text = redactor.quote(bytes, QUOTE_LIMIT);
        Outcome::NotJson(Failure::NotJson { line, problem: redactor.redact(&problem), text })
    };
    let origin = Origin { location: location.to_string(), line: Some(line), item: None };
    // Keys checked for duplicates at any depth (issue 34): the row's error.
    let row = match serde_json::from_slice::<kdrift_rebalance::StrictValue>(bytes).map(|s| s.0) {
        Ok(Value::Object(row)) => row,
        Ok(_) => return not_json("a JSON value that is not an object".into()),
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            let message = redactor.redact(&e.to_string());
            return Outcome::Line(FetchedLine::Row {
                line,
                rejected: None,
                record: Err(InputError { origin, column: None, message }),
            });
        }
        Err(e) => return not_json(e.to_string()),
    };
    Outcome::Line(match convert(layout, row) {
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
    })
}
