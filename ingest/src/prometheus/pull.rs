//! `kdrift ingest prometheus`: the range cut into step-aligned windows
//! (`super::windows`), each asked with every query (`node_info` first),
//! merged into samples (`super::series`) and committed as one ingest run
//! with its `usage_windows` row — whole or not at all. A failed request is
//! retried with exponential backoff; a window that keeps failing stops the
//! pull with an error naming it and its query (recorded as a `failed` run),
//! and the windows committed before stay. `--resume` starts after the last window this pull (same
//! URL, step and queries) committed. Consecutive windows without a sample
//! or an error are committed together, as one ingest run and one
//! `usage_windows` row spanning them (so `--resume` continues after them),
//! not a run each (new-user trial: a server without data for the default
//! day left 24 empty runs and 24 rows of zeros).

use chrono::{DateTime, Duration, Utc};

use super::client::PromClient;
use super::error::PromError;
use super::fetch::{self, Fetched, Outcome};
use super::queries::NamedPromql;
use super::windows::{plan, PromWindow};
use crate::interrupt::Interrupt;
use crate::store::{sql, Store, UsageSource, UsageWindow};
use crate::victorialogs::error::show_time;
use crate::victorialogs::Retry;

/// `ingest_runs.source_kind` of a window's run.
pub const SOURCE_KIND: &str = "prometheus";

/// What to pull.
#[derive(Debug, Clone)]
pub struct PromOptions {
    /// Range start (default: one day before the end).
    pub start: Option<DateTime<Utc>>,
    /// Range end, exclusive (default: now).
    pub end: Option<DateTime<Utc>>,
    /// Resolution: the instants sampled are its multiples since the epoch.
    pub step: Duration,
    /// Longest window (also at most [`super::windows::MAX_POINTS`] steps).
    pub max_window: Duration,
    /// The queries ([`super::queries::resolve`]).
    pub queries: Vec<NamedPromql>,
    /// Continue after the last committed window of this pull.
    pub resume: bool,
    /// Retries of a failed request.
    pub retry: Retry,
    /// Stops the pull between requests (the CLI's SIGINT/SIGTERM).
    pub interrupt: Interrupt,
}

impl PromOptions {
    /// Options for `queries` with the defaults: 30 s steps, 1 h windows, the last day.
    pub fn new(queries: Vec<NamedPromql>) -> PromOptions {
        PromOptions {
            start: None,
            end: None,
            step: Duration::seconds(30),
            max_window: Duration::hours(1),
            queries,
            resume: false,
            retry: Retry::default(),
            interrupt: Interrupt::new(),
        }
    }

    /// The range `[start, end)`: `end` or `now`, `start` or a day before.
    ///
    /// # Errors
    /// [`PromError::Options`] when the start is not before the end or the step is not positive.
    pub fn range(&self, now: DateTime<Utc>) -> Result<(DateTime<Utc>, DateTime<Utc>), PromError> {
        let end = self.end.unwrap_or(now);
        let start = self.start.unwrap_or(end - Duration::days(1));
        if start >= end {
            return Err(PromError::Options(format!(
                "--start ({}) must be before --end ({})",
                // Whole seconds, as every printed time (`now` has sub-seconds).
                crate::store::instant_text(start),
                crate::store::instant_text(end)
            )));
        }
        if self.step <= Duration::zero() || self.max_window <= Duration::zero() {
            return Err(PromError::Options("--step and --window must be longer than 0s".into()));
        }
        // A step past the range samples no instant: refused, not "nothing pulled".
        if self.step > end - start {
            return Err(PromError::Options(format!(
                "--step {} is longer than the range it samples ({} to {}, {}): expected a step of at most {} \
                 (a shorter --step, or a wider --start/--end)",
                span_text(self.step),
                show_time(&start),
                show_time(&end),
                span_text(end - start),
                span_text(end - start)
            )));
        }
        Ok((start, end))
    }
}

/// A span as the duration flags take it: `1d`, `2562048h` is `106752d`,
/// `1h30m`, `90s` is `1m30s` (whole seconds; sub-seconds as `ms`).
fn span_text(d: Duration) -> String {
    let ms = d.num_milliseconds().max(0);
    let mut rest = ms;
    let mut out = String::new();
    for (unit, size) in [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)] {
        if rest >= size {
            out.push_str(&format!("{}{unit}", rest / size));
            rest %= size;
        }
    }
    if out.is_empty() {
        "0s".into()
    } else {
        out
    }
}

/// One committed window.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PromWindowReport {
    /// The window (for a stretch without samples: from its first window's
    /// start to its last one's end).
    pub window: PromWindow,
    /// Query windows this row covers: 1, or the length of a stretch of
    /// windows without a sample or an error, committed as one run.
    pub windows: usize,
    /// Its ingest run.
    pub run_id: i64,
    /// Samples read (CPU and memory of one object at one instant are one).
    pub samples: u64,
    /// New samples stored.
    pub added: u64,
    /// Samples the store already had.
    pub duplicates: u64,
    /// Input errors (bad points, series naming no node), stored with the
    /// run: the first 100 of the window, then one saying how many more
    /// were counted.
    pub errors: Vec<String>,
    /// Input errors, counted ones included.
    pub error_count: u64,
}

/// What a pull did (also what was committed before a failure).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PromReport {
    /// The server (no credentials).
    pub url: String,
    /// The pull's key in `usage_windows`.
    pub pull_key: String,
    /// Range start pulled (after `--resume`).
    pub start: Option<DateTime<Utc>>,
    /// Range end.
    pub end: Option<DateTime<Utc>>,
    /// Where `--resume` continued from, when it did.
    pub resumed_from: Option<DateTime<Utc>>,
    /// Committed windows, in time order (a stretch of windows without
    /// samples is one, see [`PromWindowReport::windows`]).
    pub windows: Vec<PromWindowReport>,
    /// Caveats.
    pub notes: Vec<String>,
}

impl PromReport {
    /// Samples read over all windows.
    pub fn samples(&self) -> u64 {
        self.windows.iter().map(|w| w.samples).sum()
    }
    /// New samples over all windows.
    pub fn added(&self) -> u64 {
        self.windows.iter().map(|w| w.added).sum()
    }
    /// Query windows pulled over all committed rows (a stretch without
    /// samples counts each of its windows).
    pub fn windows_pulled(&self) -> usize {
        self.windows.iter().map(|w| w.windows).sum()
    }
    /// Input errors over all windows.
    pub fn error_count(&self) -> usize {
        let total: u64 = self.windows.iter().map(|w| w.error_count).sum();
        usize::try_from(total).unwrap_or(usize::MAX)
    }
}

/// A pull that stopped; the windows in `committed` stay in the store.
#[derive(Debug)]
pub struct PromPullFailed {
    /// What was committed before the failure.
    pub committed: PromReport,
    /// What stopped it.
    pub error: PromError,
}

impl std::fmt::Display for PromPullFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for PromPullFailed {}

/// The key of a pull in `usage_windows`: URL, step and every query (`--resume`
/// continues only the same pull).
pub fn pull_key(client: &PromClient, options: &PromOptions) -> String {
    let queries: Vec<String> = options.queries.iter().map(|q| format!("{}={}", q.name, q.promql)).collect();
    format!("{} step={}s {}", client.base_url(), options.step.num_milliseconds() as f64 / 1e3, queries.join(" "))
}

/// Pulls `[start, end)` from `client` into `store`, calling `progress`
/// after each committed window.
///
/// # Errors
/// [`PromPullFailed`], carrying the windows committed before the failure.
pub async fn pull_prometheus(
    store: &Store,
    client: &PromClient,
    options: &PromOptions,
    progress: &mut dyn FnMut(&PromWindowReport),
) -> Result<PromReport, Box<PromPullFailed>> {
    let mut report = PromReport { url: client.base_url(), ..PromReport::default() };
    match run(store, client, options, progress, &mut report).await {
        Ok(()) => Ok(report),
        Err(error) => Err(Box::new(PromPullFailed { committed: report, error })),
    }
}

async fn run(
    store: &Store,
    client: &PromClient,
    options: &PromOptions,
    progress: &mut dyn FnMut(&PromWindowReport),
    report: &mut PromReport,
) -> Result<(), PromError> {
    let (mut start, end) = options.range(Utc::now())?;
    report.pull_key = pull_key(client, options);
    if options.resume {
        let last: Option<i64> = store.query_one(&sql::USAGE_LAST_WINDOW_END, [&report.pull_key], |r| r.get(1))?;
        match last.and_then(DateTime::from_timestamp_micros) {
            Some(t) if t > start => {
                report.resumed_from = Some(t);
                start = t.min(end);
            }
            Some(_) => {}
            None => report
                .notes
                .push("--resume: no window of this pull was committed before; pulling the whole range".into()),
        }
    }
    report.start = Some(start);
    report.end = Some(end);
    let windows = plan(start, end, options.step, options.max_window);
    if windows.is_empty() {
        report.notes.push("nothing to pull: no instant of the step falls in the range".into());
        return Ok(());
    }
    let expected = windows.len();
    let mut next = fetch::spawn(client.clone(), options.clone(), windows);
    // Windows without a sample or an error, not committed yet: (the stretch, how many).
    let mut empty: Option<(PromWindow, usize)> = None;
    while let Some(outcome) = next.recv().await {
        if !matches!(outcome, Outcome::Window(_)) {
            commit_empty(store, client, &mut empty, report, progress)?;
        }
        let fetched = match outcome {
            Outcome::Window(fetched) => fetched,
            Outcome::Interrupted(window) => {
                return Err(PromError::Interrupted {
                    window: Some((window.start, window.end)),
                    committed: report.windows.len(),
                })
            }
            Outcome::Failed { window, query, attempts, failure } => {
                let e = PromError::Window {
                    url: client.endpoint(),
                    query,
                    start: window.start,
                    end: window.end,
                    attempts,
                    failure: Box::new(failure.redacted(client.redactor())),
                };
                // Shown by `kdrift query runs` next to the windows committed.
                let shown = format!("[{}, {})", show_time(&window.start), show_time(&window.end));
                let location = format!("{} {shown}", client.endpoint());
                store.record_failed_usage_run(SOURCE_KIND, &location, &e.to_string())?;
                return Err(e);
            }
        };
        let Fetched { window, shown, samples, errors, error_count, fetch_s, merge_s } = *fetched;
        if samples.is_empty() && errors.is_empty() && error_count == 0 && !options.interrupt.is_triggered() {
            empty = Some(match empty {
                Some((w, n)) => (PromWindow { end: window.end, last: window.last, ..w }, n + 1),
                None => (window, 1),
            });
            continue;
        }
        commit_empty(store, client, &mut empty, report, progress)?;
        if options.interrupt.is_triggered() {
            return Err(PromError::Interrupted {
                window: Some((window.start, window.end)),
                committed: report.windows.len(),
            });
        }
        let committing = std::time::Instant::now();
        let location = format!("{} {shown}", client.endpoint());
        // Series labels are the server's words: its credentials and every
        // credential shape masked before they are shown or stored (break-it 35 F4).
        let errors: Vec<String> =
            errors.iter().map(|e| kdrift_rebalance::mask_shown(&client.redactor().redact(e))).collect();
        let w = UsageWindow {
            pull_key: &report.pull_key,
            start_us: window.start.timestamp_micros(),
            end_us: window.end.timestamp_micros(),
        };
        let c = store.commit_usage(SOURCE_KIND, &location, UsageSource::Prometheus, &samples, &errors, Some(w))?;
        drop(samples);
        // Where a window's time goes (-v): the fetcher's seconds overlap the
        // previous window's commit.
        tracing::info!(
            window = %shown,
            samples = c.samples,
            added = c.added,
            run = c.run_id,
            fetch_s = format!("{fetch_s:.3}"),
            merge_s = format!("{merge_s:.3}"),
            commit_s = format!("{:.3}", committing.elapsed().as_secs_f64()),
            "window committed"
        );
        let done = PromWindowReport {
            window,
            windows: 1,
            run_id: c.run_id,
            samples: c.samples,
            added: c.added,
            duplicates: c.duplicates,
            errors,
            error_count,
        };
        progress(&done);
        report.windows.push(done);
    }
    commit_empty(store, client, &mut empty, report, progress)?;
    if report.windows_pulled() < expected {
        // The fetching thread ended without saying why (it could not start).
        return Err(PromError::Options(format!(
            "the fetching thread stopped after {} of {expected} window(s); see the log above",
            report.windows_pulled()
        )));
    }
    Ok(())
}

/// Commits the stretch of windows without samples in `empty`, if any, as one
/// ingest run with one `usage_windows` row from its start to its end (where
/// `--resume` continues), and reports it as one row.
fn commit_empty(
    store: &Store,
    client: &PromClient,
    empty: &mut Option<(PromWindow, usize)>,
    report: &mut PromReport,
    progress: &mut dyn FnMut(&PromWindowReport),
) -> Result<(), PromError> {
    let Some((window, windows)) = empty.take() else { return Ok(()) };
    let shown = format!("[{}, {})", show_time(&window.start), show_time(&window.end));
    let location = format!("{} {shown}", client.endpoint());
    let w = UsageWindow {
        pull_key: &report.pull_key,
        start_us: window.start.timestamp_micros(),
        end_us: window.end.timestamp_micros(),
    };
    let c = store.commit_usage(SOURCE_KIND, &location, UsageSource::Prometheus, &[], &[], Some(w))?;
    let done = PromWindowReport {
        window,
        windows,
        run_id: c.run_id,
        samples: 0,
        added: 0,
        duplicates: 0,
        errors: Vec::new(),
        error_count: 0,
    };
    progress(&done);
    report.windows.push(done);
    Ok(())
}
