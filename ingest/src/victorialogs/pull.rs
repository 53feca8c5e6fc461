//! `kdrift ingest victorialogs`: detect the layout (or take `--layout`),
//! size windows with `/hits`, pull them in time order, each committed on
//! its own, retrying a failed window with exponential backoff. `--resume`
//! starts after the last window this pull committed before.

use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};

use super::client::VlClient;
use super::error::{Failure, VlError};
use super::layout::{detect, Layout};
use super::logsql::{base_query, window_query};
use super::window::{pull_windows, WindowJob, WindowReport};
use super::windows::{hits_step, plan, Window};
use crate::interrupt::Interrupt;
use crate::retry::Stop;
use crate::store::{sql, Store};

pub use crate::retry::Retry;

/// The default [`PullOptions::max_window_bytes`]: 256 MiB, four
/// `--max-batch-bytes` batches (a window of 100,000 events of 2 KiB fits).
pub const MAX_WINDOW_BYTES: u64 = 256 << 20;

/// What to pull.
#[derive(Debug, Clone)]
pub struct PullOptions {
    /// Range start (default: 7 days before the end, VictoriaLogs' default retention).
    pub start: Option<DateTime<Utc>>,
    /// Range end, exclusive (default: now).
    pub end: Option<DateTime<Utc>>,
    /// A LogsQL filter ANDed to the layout's (no pipes).
    pub filter: Option<String>,
    /// Force a layout instead of detecting it.
    pub layout: Option<Layout>,
    /// Continue after the last committed window of this pull.
    pub resume: bool,
    /// Rows a window should return at most (by `/hits`).
    pub max_rows_per_window: u64,
    /// Longest window.
    pub max_window: Duration,
    /// Retries.
    pub retry: Retry,
    /// Longest response line accepted, bytes; a longer line is an input
    /// error of its window (the other rows load).
    pub max_line_bytes: usize,
    /// Bytes of rows a window stages before they are moved into the store
    /// inside the window's transaction (`--max-batch-bytes`, as `ingest
    /// file`'s; default `ndjson_stream::BATCH_BYTES`, 64 MiB): the
    /// memory bound of a window, whatever its size; the fetcher holds at
    /// most half as much ahead (`victorialogs::window`).
    pub max_batch_bytes: u64,
    /// Bytes of rows one window's answer may hold (`--max-window-bytes`,
    /// default [`MAX_WINDOW_BYTES`]): past it the window is given up and
    /// pulled again in parts by time (planned from its `/hits` counts for
    /// the rows that fit at the bytes per row seen, else its halves), each
    /// committed with its own `vl_windows` row (`--resume` goes on after the last one committed),
    /// down to windows under two seconds, which are committed whole however
    /// large (rows of one instant cannot be split by time). A window is one
    /// transaction, and DuckDB holds about three times the bytes of a
    /// window's rows until it commits (break-it 36 F8: 20 rows of 60 MiB in
    /// one window peaked at 6.32 GB): this bounds that.
    pub max_window_bytes: u64,
    /// Stops the pull when triggered (the CLI's SIGINT/SIGTERM): the window
    /// in progress is closed as failed, the windows committed before stay.
    pub interrupt: Interrupt,
}

impl Default for PullOptions {
    fn default() -> Self {
        PullOptions {
            start: None,
            end: None,
            filter: None,
            layout: None,
            resume: false,
            max_rows_per_window: 100_000,
            max_window: Duration::days(1),
            retry: Retry::default(),
            max_line_bytes: crate::ndjson_stream::MAX_LINE_BYTES,
            max_batch_bytes: crate::ndjson_stream::BATCH_BYTES,
            max_window_bytes: MAX_WINDOW_BYTES,
            interrupt: Interrupt::new(),
        }
    }
}

impl PullOptions {
    /// The range to pull, `[start, end)`: `end` or `now`, `start` or 7 days
    /// before that end. Checked before anything is pulled or stored (the
    /// CLI checks it before it opens the store).
    ///
    /// # Errors
    /// [`VlError::Options`] when the start is not before the end.
    pub fn range(&self, now: DateTime<Utc>) -> Result<(DateTime<Utc>, DateTime<Utc>), VlError> {
        let end = self.end.unwrap_or(now);
        let start = self.start.unwrap_or(end - Duration::days(7));
        if start >= end {
            return Err(VlError::Options(format!(
                "--start ({}) must be before --end ({})",
                // Whole seconds, as every printed time (`now` has sub-seconds).
                crate::store::instant_text(start),
                crate::store::instant_text(end)
            )));
        }
        Ok((start, end))
    }
}

/// What a pull did (also what was committed before a failure).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PullReport {
    /// The server (no credentials).
    pub url: String,
    /// The layout read.
    pub layout: Option<Layout>,
    /// `detected` or `forced`.
    pub layout_source: &'static str,
    /// The pull's key in `vl_windows` (base URL, tenant, layout, filter).
    pub pull_key: String,
    /// Range start actually pulled (after `--resume`).
    pub start: Option<DateTime<Utc>>,
    /// Range end.
    pub end: Option<DateTime<Utc>>,
    /// Where `--resume` continued from, when it did.
    pub resumed_from: Option<DateTime<Utc>>,
    /// Committed windows, in time order.
    pub windows: Vec<WindowReport>,
    /// What the layout cannot carry, and other caveats.
    pub notes: Vec<String>,
    /// What the user should act on (the CLI prints them on stderr as
    /// warnings): a `--filter` that matched no row, with the filter the
    /// layout needs.
    pub warnings: Vec<String>,
    /// The interrupt was triggered during the final window's commit (after
    /// the last check): too late to stop the pull, which completed and is
    /// kept, as `ingest file`'s final commit
    /// ([`crate::IngestReport::interrupted_during_commit`]).
    pub interrupted_during_commit: bool,
}

impl PullReport {
    /// Rows read over all windows.
    pub fn rows(&self) -> u64 {
        self.windows.iter().map(|w| w.rows).sum()
    }
    /// New object versions over all windows.
    pub fn added(&self) -> u64 {
        self.windows.iter().map(|w| w.added).sum()
    }
    /// Versions already stored over all windows.
    pub fn duplicates(&self) -> u64 {
        self.windows.iter().map(|w| w.duplicates).sum()
    }
    /// Rows that could not be stored.
    pub fn error_count(&self) -> usize {
        let total: u64 = self.windows.iter().map(|w| w.error_count).sum();
        usize::try_from(total).unwrap_or(usize::MAX)
    }
}

/// A pull that stopped; the windows in `committed` stay in the store.
#[derive(Debug)]
pub struct PullFailed {
    /// What was committed before the failure.
    pub committed: PullReport,
    /// What stopped it.
    pub error: VlError,
}

impl std::fmt::Display for PullFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for PullFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.error)
    }
}

/// Progress callbacks (the CLI prints to stderr; tests pass [`NoPullProgress`]).
pub trait PullProgress {
    /// The layout is known and the windows are planned.
    fn planned(&mut self, _layout: Layout, _windows: &[Window]) {}
    /// A window committed.
    fn window_done(&mut self, _report: &WindowReport) {}
    /// A window's answer passed [`PullOptions::max_window_bytes`]: it is
    /// pulled again as `parts` (windows more).
    fn split(&mut self, _window: &Window, _parts: &[Window]) {}
    /// An attempt failed and will be retried after `delay`.
    fn retrying(&mut self, _window: &Window, _attempt: u32, _failure: &Failure, _delay: StdDuration) {}
}

/// Progress that shows nothing.
#[derive(Debug, Default)]
pub struct NoPullProgress;
impl PullProgress for NoPullProgress {}

/// What each layout cannot carry, for the report.
fn caveat(layout: Layout) -> Option<&'static str> {
    match layout {
        Layout::OtelK8sevents => Some(
            "otel-k8sevents carries no firstTimestamp, series, source component or the event's own namespace: \
             first times are creation times, a new-API event counts once per distinct version, events of \
             cluster-scoped objects are put in `default`",
        ),
        Layout::Kent => Some(
            "kent carries no event name, uid or first time: events are named by their correlation key \
             (same object, reason, type, source and message = one event)",
        ),
        _ => None,
    }
}

async fn choose_layout(
    client: &VlClient,
    options: &PullOptions,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<(Layout, &'static str), VlError> {
    if let Some(l) = options.layout {
        return Ok((l, "forced"));
    }
    let user = options.filter.as_deref().map(str::trim).filter(|f| !f.is_empty());
    let (layout, fields) = detect_under(client, options, user, start, end).await?;
    if let Some(layout) = layout {
        return Ok((layout, "detected"));
    }
    let url = client.endpoint("/select/logsql/field_names");
    if let Some(filter) = user {
        // Nothing under the filter: does the range hold rows without it?
        if let (Some(layout), _) = detect_under(client, options, None, start, end).await? {
            let filter = client.redactor().cut(filter, true, 2000);
            return Err(VlError::FilterMatchedNothing { url, start, end, filter, layout });
        }
    }
    let mut names: Vec<String> = fields.into_iter().map(|(n, _)| n).take(20).collect();
    if names.is_empty() {
        names.push("none".into());
    }
    // Field names are the server's words too.
    let fields = client.redactor().cut(&names.join(", "), true, 2000);
    let filter =
        user.map(|f| format!(" under --filter '{}'", client.redactor().cut(f, true, 2000))).unwrap_or_default();
    Err(VlError::NoLayout { url, start, end, filter, fields })
}

/// The layout of the rows in `[start, end)` matching `filter` (all rows
/// without one), with the field names seen; `None` when none shows.
async fn detect_under(
    client: &VlClient,
    options: &PullOptions,
    filter: Option<&str>,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<(Option<Layout>, Vec<(String, u64)>), VlError> {
    let scope = match filter {
        Some(f) => format!("{} ({f})", super::logsql::time_filter(start, end)),
        None => super::logsql::time_filter(start, end),
    };
    let fields = retrying(options, || client.field_names(&scope, start, end)).await?;
    if let Some((layout, _)) = detect(&fields) {
        return Ok((Some(layout), fields));
    }
    // msg-json has no field of its own: probe with its filter.
    let probe = window_query(&base_query(Layout::MsgJson, filter), start, end);
    let whole = (end - start).max(Duration::seconds(1));
    let hits = retrying(options, || client.hits(&probe, start, end, whole)).await?;
    let found = hits.iter().map(|(_, n)| n).sum::<u64>() > 0;
    Ok((found.then_some(Layout::MsgJson), fields))
}

/// Pulls `[start, end)` from `client` into `store`.
///
/// # Errors
/// [`PullFailed`], carrying the windows committed before the failure
/// (they stay in the store; `--resume` continues after them).
pub async fn pull(
    store: &Store,
    client: &VlClient,
    options: &PullOptions,
    progress: &mut dyn PullProgress,
) -> Result<PullReport, Box<PullFailed>> {
    let mut report = PullReport { url: client.base_url(), ..PullReport::default() };
    match run(store, client, options, progress, &mut report).await {
        Ok(()) => Ok(report),
        Err(error) => Err(Box::new(PullFailed { committed: report, error })),
    }
}

async fn run(
    store: &Store,
    client: &VlClient,
    options: &PullOptions,
    progress: &mut dyn PullProgress,
    report: &mut PullReport,
) -> Result<(), VlError> {
    let (requested_start, end) = options.range(Utc::now())?;
    let (layout, source) = choose_layout(client, options, requested_start, end).await?;
    report.layout = Some(layout);
    report.layout_source = source;
    report.notes.extend(caveat(layout).map(str::to_string));
    if layout != Layout::OtelK8sobjects {
        report.notes.push(format!(
            "{layout} carries events only: load pods and nodes with `kdrift ingest file` for why-pending's node state"
        ));
    }
    let base = base_query(layout, options.filter.as_deref());
    let tenant = client_tenant(client);
    report.pull_key = format!(
        "{} {tenant} layout={layout} filter={}",
        client.base_url(),
        options.filter.as_deref().unwrap_or("").trim()
    );
    let mut start = requested_start;
    if options.resume {
        let last: Option<i64> = store.query_one(&sql::VL_LAST_WINDOW_END, [&report.pull_key], |r| r.get(1))?;
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
    if start >= end {
        report.notes.push("nothing left to pull: the last committed window ends at --end".into());
        progress.planned(layout, &[]);
        return Ok(());
    }
    let step = hits_step(start, end);
    let query = window_query(&base, start, end);
    let buckets = retrying(options, || client.hits(&query, start, end, step)).await?;
    let windows = plan(start, end, step, &buckets, options.max_rows_per_window, options.max_window);
    tracing::info!(%layout, source, windows = windows.len(), expected_rows = buckets.iter().map(|b| b.1).sum::<u64>(), "planned");
    progress.planned(layout, &windows);
    let pull_key = report.pull_key.clone();
    let job = WindowJob { layout, base_query: &base, pull_key: &pull_key };
    pull_windows(store, client, job, &windows, options, progress, &mut report.windows).await?;
    // Triggered since the last check: during the final window's commit, which went on.
    report.interrupted_during_commit = options.interrupt.is_triggered();
    if let Some(warning) = empty_filter_warning(client, options, layout, start, end, report).await? {
        report.warnings.push(warning);
    }
    let rejected: u64 = report.windows.iter().map(|w| w.schema_rejected).sum();
    if rejected > 0 {
        report.notes.push(format!(
            "{rejected} row(s) hold values their kind's schema rejects (-vv names them); they are stored with \
             those values as text, their other fields typed"
        ));
    }
    Ok(())
}

/// When a pull with `--filter` (not resumed) read no row: says so, naming
/// the filter, with how many rows of `layout` the range holds without it
/// (one more `/hits`) and the filter that layout needs
/// ([`super::error::filter_advice`]).
async fn empty_filter_warning(
    client: &VlClient,
    options: &PullOptions,
    layout: Layout,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    report: &PullReport,
) -> Result<Option<String>, VlError> {
    let Some(filter) = options.filter.as_deref().map(str::trim).filter(|f| !f.is_empty()) else {
        return Ok(None);
    };
    if report.rows() > 0 || report.resumed_from.is_some() || options.interrupt.is_triggered() {
        return Ok(None);
    }
    let probe = window_query(&base_query(layout, None), start, end);
    let whole = (end - start).max(Duration::seconds(1));
    let hits = retrying(options, || client.hits(&probe, start, end, whole)).await?;
    let unfiltered: u64 = hits.iter().map(|(_, n)| n).sum();
    let range = format!("[{}, {})", super::error::show_time(&start), super::error::show_time(&end));
    let filter = client.redactor().cut(filter, true, 2000);
    Ok(Some(if unfiltered > 0 {
        format!(
            "--filter '{filter}' matched no row in {range}, while without it the range holds {unfiltered} row(s) \
             of the {layout} layout; for {layout}, filter with {}",
            super::error::filter_advice(layout)
        )
    } else {
        format!("--filter '{filter}' matched no row in {range}, and the range holds no row of the {layout} layout without it either")
    }))
}

/// Runs a request (`/field_names`, `/hits`) with [`crate::retry::retrying`]:
/// a failed request is retried when its failure is one retrying can cure.
async fn retrying<T, F, Fut>(options: &PullOptions, request: F) -> Result<T, VlError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, VlError>>,
{
    let retryable = |e: &VlError| matches!(e, VlError::Request { failure, .. } if failure.is_retryable());
    crate::retry::retrying(&options.retry, &options.interrupt, retryable, request).await.map_err(|stop| match stop {
        Stop::Interrupted => VlError::Interrupted { window: None, run_id: None, committed: 0 },
        Stop::Failed(_, e) => e,
    })
}

fn client_tenant(client: &VlClient) -> String {
    let t = client.tenant();
    format!("account={} project={}", t.account_id.unwrap_or(0), t.project_id.unwrap_or(0))
}
