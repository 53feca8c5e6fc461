//! Errors of a VictoriaLogs pull. Each names the URL (never with
//! credentials), the window `[start, end)` and, for a bad line, its number.

use chrono::{DateTime, Utc};

use crate::store::StoreError;
use kdrift_rebalance::Redactor;

/// RFC 3339 UTC text of a window bound, sub-seconds kept: it is also what
/// the LogsQL `_time` filter and the `start`/`end` parameters send.
pub fn show_time(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Why one attempt at a request or a window failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Failure {
    /// The server answered with an error status; its body is what it said.
    #[error("HTTP {status}: {body}{}", not_victorialogs(*status, body))]
    Status {
        /// The status code.
        status: u16,
        /// The response body (plain text from VictoriaLogs), trimmed and capped.
        body: String,
    },
    /// The connection failed or broke (refused, reset, timed out, truncated chunked body).
    #[error("{0}")]
    Transport(String),
    /// A 200 response ends with lines that are not JSON: VictoriaLogs writes
    /// its error text into the body when a query fails after the header was
    /// sent. (Such a line with rows after it is a bad row: an input error.)
    #[error("line {line} of the response is not JSON ({problem}): {text:?}")]
    NotJson {
        /// 1-based line number in the response.
        line: u64,
        /// The parser's complaint.
        problem: String,
        /// The line, capped.
        text: String,
    },
    /// The body ended in the middle of a line (no final newline).
    #[error("the response ends in the middle of line {line} ({bytes} bytes without a newline): truncated")]
    Truncated {
        /// 1-based number of the unfinished line.
        line: u64,
        /// Bytes of it received.
        bytes: usize,
    },
    /// The answer of `/hits` or `/field_names` is not what VictoriaLogs sends.
    #[error("unexpected answer: {0}")]
    BadAnswer(String),
    /// The server answered with a redirect that was not followed: redirects
    /// are followed only with `--follow-redirects`, and then only to the
    /// same origin (scheme, host and port), so that the credentials and
    /// extra headers never reach another server.
    #[error("{}", redirect_text(*status, to, *following))]
    Redirected {
        /// The status code (301, 302, 303, 307, 308).
        status: u16,
        /// The origin of its `Location` (`http://host:port`, redacted), or
        /// why there is none.
        to: String,
        /// Whether `--follow-redirects` was given (the `Location` is then
        /// on another origin).
        following: bool,
    },
}

/// A hint after a 400 whose body says the path is unknown, as
/// VictoriaMetrics (or vmselect, vmagent) answers `/select/logsql/…`
/// (new-user trial 46: `--url` of VictoriaMetrics got no hint).
fn not_victorialogs(status: u16, body: &str) -> &'static str {
    if (status == 400 || status == 404) && body.contains("unsupported path requested") {
        " (this server knows no `/select/logsql/` path: is --url a VictoriaLogs server? VictoriaMetrics answers \
         so; its samples go to `kdrift ingest prometheus`)"
    } else {
        ""
    }
}

/// A time as the NoLayout error shows it: RFC 3339 UTC to the whole
/// second (docs/cli.md), as a user writes `--start`/`--end`.
fn whole_second(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The text of [`VlError::NoLayout`]: a range without a row is said as
/// such (new-user trial 46: "no Kubernetes event layout found" blamed the
/// layout when the default 7 days held nothing).
fn no_layout_text(url: &str, start: &DateTime<Utc>, end: &DateTime<Utc>, filter: &str, fields: &str) -> String {
    let (start, end) = (whole_second(start), whole_second(end));
    if fields == "none" {
        format!(
            "{url}: no rows in [{start}, {end}){filter}, so no layout to detect; widen --start/--end (by default \
             the last 7 days), or check --account-id/--project-id"
        )
    } else {
        format!(
            "{url}: no Kubernetes event layout found in [{start}, {end}){filter} (fields seen: {fields}); pass \
             --layout (raw, msg-json, otel-k8sevents, otel-k8sobjects, kent) or widen --start/--end"
        )
    }
}

fn redirect_text(status: u16, to: &str, following: bool) -> String {
    if following {
        format!(
            "HTTP {status}: the server redirects to another origin, {to}; kdrift follows a redirect only to the \
             same origin, even with --follow-redirects (the credentials and extra headers would go to {to}); \
             pass --url with that server if you trust it"
        )
    } else {
        format!(
            "HTTP {status}: the server redirects to {to}; kdrift follows no redirect unless --follow-redirects \
             is given (then only to the same origin: the credentials and extra headers never go to another)"
        )
    }
}

impl Failure {
    /// Whether trying again may help: server overload and timeouts (429,
    /// 5xx), broken connections and bodies. 4xx answers (a bad query, bad
    /// credentials) would fail the same way again.
    pub fn is_retryable(&self) -> bool {
        match self {
            Failure::Status { status, .. } => *status == 429 || *status >= 500,
            Failure::Transport(_) | Failure::NotJson { .. } | Failure::Truncated { .. } => true,
            Failure::BadAnswer(_) | Failure::Redirected { .. } => false,
        }
    }

    /// The failure with every credential in its text masked by `redactor`
    /// (what a server said is redacted where it is read; this applies it
    /// again wherever a failure is reported or stored).
    pub fn redacted(self, redactor: &Redactor) -> Failure {
        match self {
            Failure::Status { status, body } => Failure::Status { status, body: redactor.redact(&body) },
            Failure::Transport(text) => Failure::Transport(redactor.redact(&text)),
            Failure::NotJson { line, problem, text } => {
                Failure::NotJson { line, problem: redactor.redact(&problem), text: redactor.redact(&text) }
            }
            f @ Failure::Truncated { .. } => f,
            Failure::BadAnswer(text) => Failure::BadAnswer(redactor.redact(&text)),
            Failure::Redirected { status, to, following } => {
                Failure::Redirected { status, to: redactor.redact(&to), following }
            }
        }
    }
}

/// A VictoriaLogs pull failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VlError {
    /// The `--url` is unusable.
    #[error("--url {url}: {problem}")]
    BadUrl {
        /// The URL with any user:password removed.
        url: String,
        /// What is wrong.
        problem: String,
    },
    /// Credentials could not be read or are contradictory.
    #[error("credentials: {0}")]
    Credentials(String),
    /// Bad options (times, layout).
    #[error("{0}")]
    Options(String),
    /// A request other than a window's query failed.
    #[error("request to {url} failed")]
    Request {
        /// The endpoint.
        url: String,
        /// What happened.
        #[source]
        failure: Failure,
    },
    /// A window could not be pulled; nothing of it was committed.
    #[error(
        "window [{}, {}) of {url} failed after {attempts} attempt(s); nothing of this window was committed",
        show_time(start),
        show_time(end)
    )]
    Window {
        /// The query endpoint.
        url: String,
        /// Window start (inclusive).
        start: DateTime<Utc>,
        /// Window end (exclusive).
        end: DateTime<Utc>,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's failure.
        #[source]
        failure: Failure,
    },
    /// No layout could be detected (`filter` is `""`, or ` under --filter
    /// '…'` when one was given and the rows without it show no layout either).
    #[error("{}", no_layout_text(url, start, end, filter, fields))]
    NoLayout {
        /// `""`, or ` under --filter '…'` (the filter as given).
        filter: String,
        /// The field_names endpoint.
        url: String,
        /// Range looked at.
        start: DateTime<Utc>,
        /// Range end.
        end: DateTime<Utc>,
        /// The field names found (capped).
        fields: String,
    },
    /// `--filter` matched no row in the range, while the rows without it
    /// are of `layout`: the layout cannot be detected from nothing. Said
    /// instead of [`VlError::NoLayout`], which would blame the range.
    #[error(
        "{url}: --filter '{filter}' matched no row in [{}, {}), so no layout can be detected (without it the \
         rows there are of the {layout} layout); for {layout}, filter with {example}",
        show_time(start),
        show_time(end),
        example = filter_advice(*layout)
    )]
    FilterMatchedNothing {
        /// The field_names endpoint.
        url: String,
        /// Range looked at.
        start: DateTime<Utc>,
        /// Range end.
        end: DateTime<Utc>,
        /// The filter as given.
        filter: String,
        /// The layout the rows show without the filter.
        layout: super::layout::Layout,
    },
    /// The pull was interrupted ([`crate::interrupt::Interrupt`]): the
    /// window in progress (if any) is closed as failed, the `committed`
    /// windows before it stay.
    #[error(
        "the pull was interrupted{}; {}",
        match (window, run_id) {
            (Some(w), Some(run)) => format!(
                " during window [{}, {}) (its run {run} is closed as failed, nothing of it kept)",
                show_time(&w.0),
                show_time(&w.1)
            ),
            (Some(w), None) => format!(" before window [{}, {}) was read", show_time(&w.0), show_time(&w.1)),
            _ => String::new(),
        },
        match committed {
            0 => "it committed no window (rerun the same command to pull them)".to_string(),
            n => format!("the {n} window(s) it committed stay (rerun with --resume to continue after them)"),
        }
    )]
    Interrupted {
        /// The window in progress, `[start, end)`, when there was one.
        window: Option<(DateTime<Utc>, DateTime<Utc>)>,
        /// Its run, when one was begun.
        run_id: Option<i64>,
        /// Windows this pull committed before the interrupt.
        committed: usize,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How to filter `layout`'s rows, for messages: `--filter '…'` with the
/// layout's example ([`super::layout::Layout::reason_filter_example`]), and
/// for `msg-json` why a field filter finds nothing there.
pub(crate) fn filter_advice(layout: super::layout::Layout) -> String {
    let example = layout.reason_filter_example();
    match layout {
        super::layout::Layout::MsgJson => format!(
            "words or phrases of _msg (its fields are inside _msg, so a field filter such as reason:… matches \
             nothing), e.g. --filter '{example}'"
        ),
        _ => format!("its own field names, e.g. --filter '{example}'"),
    }
}
