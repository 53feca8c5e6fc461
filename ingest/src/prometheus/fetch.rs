//! The fetching half of a pull: each window's range queries asked (with
//! retries) and merged into samples on a thread of its own (its own Tokio
//! runtime), one window ahead of the commits. A window's requests and merge
//! use one core while the previous window's commit (DuckDB, on the caller's
//! thread, which owns the store) uses the other: on 2 cores a window of
//! 5,000 nodes costs the longer of the two instead of their sum
//! (BENCHMARKS.md "Measured usage").
//!
//! At most one merged window waits for its commit (a channel of one), so a
//! pull holds at most two windows' samples whatever its range. The fetcher
//! stops at the first window that fails or is interrupted (after saying so),
//! or as soon as the committing side is gone.

use std::time::Instant;

use tokio::sync::mpsc;

use super::client::PromClient;
use super::error::Failure;
use super::pull::PromOptions;
use super::queries::Measure;
use super::series::{Merger, NodeMap};
use super::windows::PromWindow;
use crate::retry::{retrying, Stop};
use crate::store::UsageSample;
use crate::victorialogs::error::show_time;

/// A window's samples, merged, ready to commit.
#[derive(Debug)]
pub(super) struct Fetched {
    /// The window.
    pub window: PromWindow,
    /// `[start, end)` as errors and logs show it.
    pub shown: String,
    /// Its samples in (instant, kind, object) order.
    pub samples: Vec<UsageSample>,
    /// Its input errors (the server's words: not yet redacted).
    pub errors: Vec<String>,
    /// How many input errors there were (past the ones kept).
    pub error_count: u64,
    /// Seconds spent asking the queries (retries included).
    pub fetch_s: f64,
    /// Seconds spent merging the answers into samples.
    pub merge_s: f64,
}

/// What the fetcher hands the committing side, window by window.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The next window, merged.
    Window(Box<Fetched>),
    /// A query of `window` kept failing: the last message.
    Failed {
        /// The window.
        window: PromWindow,
        /// The query's name.
        query: String,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's failure (not yet redacted).
        failure: Failure,
    },
    /// The pull was interrupted during `window` (or before it): the last message.
    Interrupted(PromWindow),
}

/// Starts fetching `windows` in order on a new thread; their outcomes
/// arrive on the receiver, which ends after the last window, a failure or
/// an interruption.
pub(super) fn spawn(client: PromClient, options: PromOptions, windows: Vec<PromWindow>) -> mpsc::Receiver<Outcome> {
    let (tx, rx) = mpsc::channel(1);
    let thread = std::thread::Builder::new().name("kdrift-prom-fetch".into()).spawn(move || {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(e) => {
                if let Some(window) = windows.first() {
                    let failure = Failure::Transport(format!("cannot start the fetching thread's runtime: {e}"));
                    let failed = Outcome::Failed { window: *window, query: "-".into(), attempts: 0, failure };
                    let _ = tx.blocking_send(failed);
                }
                return;
            }
        };
        runtime.block_on(async move {
            for window in windows {
                let outcome = tokio::select! {
                    outcome = fetch_window(&client, &options, window) => outcome,
                    () = tx.closed() => return,
                };
                let last = !matches!(outcome, Outcome::Window(_));
                if tx.send(outcome).await.is_err() || last {
                    return;
                }
            }
        });
    });
    if let Err(e) = thread {
        // No thread: the receiver ends at once; the caller says so.
        tracing::error!(error = %e, "cannot start the Prometheus fetching thread");
    }
    rx
}

/// Asks every query of `window` (`node_info` first) and merges the answers.
async fn fetch_window(client: &PromClient, options: &PromOptions, window: PromWindow) -> Outcome {
    if options.interrupt.is_triggered() {
        return Outcome::Interrupted(window);
    }
    let shown = format!("[{}, {})", show_time(&window.start), show_time(&window.end));
    let instants = (window.first.timestamp_micros(), window.last.timestamp_micros());
    let step = options.step.to_std().unwrap_or(std::time::Duration::from_secs(30));
    let mut merger = Merger::new(shown.clone(), instants);
    let mut map = NodeMap::default();
    let (mut fetch_s, mut merge_s) = (0.0, 0.0);
    for q in &options.queries {
        let fetching = Instant::now();
        let (retry, interrupt) = (&options.retry, &options.interrupt);
        let answer = retrying(retry, interrupt, Failure::is_retryable, || {
            client.query_range(&q.promql, window.first, window.last, step)
        })
        .await;
        fetch_s += fetching.elapsed().as_secs_f64();
        let answer = match answer {
            Ok(answer) => answer,
            Err(Stop::Interrupted) => return Outcome::Interrupted(window),
            Err(Stop::Failed(attempts, failure)) => {
                return Outcome::Failed { window, query: q.name.to_string(), attempts, failure }
            }
        };
        let merging = Instant::now();
        if q.measure == Measure::NodeInfo {
            map = NodeMap::from_info(&answer);
        } else {
            merger.add(q, &answer, &map);
        }
        drop(answer);
        merge_s += merging.elapsed().as_secs_f64();
    }
    let merging = Instant::now();
    let (samples, errors, error_count) = merger.finish();
    merge_s += merging.elapsed().as_secs_f64();
    Outcome::Window(Box::new(Fetched { window, shown, samples, errors, error_count, fetch_s, merge_s }))
}
