//! Errors of a Prometheus pull. Each names the URL (never with credentials)
//! and, once windows are pulled, the window `[start, end)` and the query
//! (`node_cpu`, …) that failed.

use chrono::{DateTime, Utc};

use crate::store::StoreError;
use crate::victorialogs::error::show_time;
pub use crate::victorialogs::Failure;

/// Why a Prometheus pull stopped (the windows committed before stay).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PromError {
    /// The server URL (`flag`: `--url`, `--prometheus-url`) cannot be used.
    #[error("{flag} {url}: {problem}")]
    BadUrl {
        /// The command's flag that gave it.
        flag: &'static str,
        /// The URL, without credentials.
        url: String,
        /// What is wrong.
        problem: String,
    },
    /// A credential file or variable cannot be used.
    #[error("credentials: {0}")]
    Credentials(String),
    /// Options that cannot be pulled (`--start` after `--end`, a bad `--query`).
    #[error("{0}")]
    Options(String),
    /// A window's query kept failing (or failed in a way retrying cannot help).
    #[error("{}", window_text(url, query, start, end, *attempts, failure))]
    Window {
        /// The endpoint (no credentials).
        url: String,
        /// The query's name (`node_cpu`, …).
        query: String,
        /// Window start (inclusive).
        start: DateTime<Utc>,
        /// Window end (exclusive).
        end: DateTime<Utc>,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's failure (redacted).
        failure: Box<Failure>,
    },
    /// SIGINT or SIGTERM: the window in progress (if any) is not stored.
    #[error("interrupted{}; {committed} window(s) committed before stay", window.map(|(s, e)| format!(" during window [{}, {})", show_time(&s), show_time(&e))).unwrap_or_default())]
    Interrupted {
        /// The window being pulled.
        window: Option<(DateTime<Utc>, DateTime<Utc>)>,
        /// Windows committed before.
        committed: usize,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn window_text(
    url: &str,
    query: &str,
    start: &DateTime<Utc>,
    end: &DateTime<Utc>,
    attempts: u32,
    f: &Failure,
) -> String {
    format!(
        "window [{}, {}) query {query}: {url} failed after {attempts} attempt(s): {f}",
        show_time(start),
        show_time(end)
    )
}

impl From<crate::victorialogs::VlError> for PromError {
    fn from(e: crate::victorialogs::VlError) -> Self {
        match e {
            crate::victorialogs::VlError::Credentials(text) => PromError::Credentials(text),
            crate::victorialogs::VlError::BadUrl { url, problem } => PromError::BadUrl { flag: "--url", url, problem },
            other => PromError::Options(other.to_string()),
        }
    }
}
