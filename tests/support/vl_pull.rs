//! VictoriaLogs pulls from synchronous tests, and the store's events as
//! comparable rows.

use std::collections::BTreeMap;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};
use kdrift_ingest::{pull, Auth, NoPullProgress, PullFailed, PullOptions, PullReport, Retry, Timeouts, VlClient};

use kdrift_store::run_query;
use kdrift_store::Store;
use serde_json::Value;

/// Options for tests: the range, small windows (so a pull has several),
/// and quick retries (10 ms, 20 ms, …).
pub fn test_options(start: DateTime<Utc>, end: DateTime<Utc>, max_rows_per_window: u64) -> PullOptions {
    PullOptions {
        start: Some(start),
        end: Some(end),
        max_rows_per_window,
        retry: Retry {
            attempts: 3,
            first_delay: StdDuration::from_millis(10),
            max_delay: StdDuration::from_millis(40),
        },
        ..PullOptions::default()
    }
}

/// Pulls from `url` into `store` on a fresh current-thread runtime.
///
/// # Panics
/// When the URL or runtime cannot be set up (a test setup problem).
pub fn pull_blocking(
    store: &Store,
    url: &str,
    auth: Auth,
    options: &PullOptions,
) -> Result<PullReport, Box<PullFailed>> {
    let client = VlClient::new(url, auth, Timeouts::default()).expect("client");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(pull(store, &client, options, &mut NoPullProgress))
}

/// One event as the store derives it: column → value.
pub type EventRow = BTreeMap<String, Value>;

/// The store's events (`event_list` query), keyed by event_key.
///
/// # Panics
/// When the query fails.
pub fn store_events(store: &Store) -> BTreeMap<String, EventRow> {
    let r = run_query(store, "event_list", &[]).expect("event_list");
    r.rows
        .into_iter()
        .map(|row| {
            let m: EventRow = r.columns.iter().cloned().zip(row).collect();
            (m["event_key"].as_str().unwrap_or_default().to_string(), m)
        })
        .collect()
}

/// `2021-06-19T00:00:00Z` → a UTC time.
///
/// # Panics
/// On a malformed literal.
pub fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).expect("RFC 3339 literal").with_timezone(&Utc)
}
