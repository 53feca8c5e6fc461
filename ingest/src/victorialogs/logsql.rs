//! The LogsQL kdrift sends (victorialogs.md "LogsQL you need"): a time
//! filter `_time:[start, end)` with `Z` times, the layout's filter, and the
//! user's `--filter` in parentheses. No pipes: rows come unsorted and are
//! de-duplicated by the store.

use chrono::{DateTime, Utc};

use super::error::show_time;
use super::layout::Layout;

/// `_time:[start, end)`: start inclusive, end exclusive, both RFC 3339 UTC.
pub fn time_filter(start: DateTime<Utc>, end: DateTime<Utc>) -> String {
    format!("_time:[{}, {})", show_time(&start), show_time(&end))
}

/// The query without its time filter: the layout's filter and the user's
/// (parenthesized, so an `or` in it stays inside).
pub fn base_query(layout: Layout, user_filter: Option<&str>) -> String {
    match user_filter.map(str::trim).filter(|f| !f.is_empty()) {
        Some(f) => format!("{} ({f})", layout.filter()),
        None => layout.filter().to_string(),
    }
}

/// The query of one window.
pub fn window_query(base: &str, start: DateTime<Utc>, end: DateTime<Utc>) -> String {
    format!("{} {base}", time_filter(start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_time_filter_layout_and_user_filter() {
        let s = DateTime::parse_from_rfc3339("2026-11-27T00:00:00Z").expect("t").with_timezone(&Utc);
        let e = DateTime::parse_from_rfc3339("2026-11-27T06:00:00.25Z").expect("t").with_timezone(&Utc);
        let base = base_query(Layout::OtelK8sevents, Some(" reason:=FailedScheduling or reason:=Scheduled "));
        assert_eq!(
            window_query(&base, s, e),
            "_time:[2026-11-27T00:00:00Z, 2026-11-27T06:00:00.250Z) \"k8s.event.name\":* \
             (reason:=FailedScheduling or reason:=Scheduled)"
        );
        assert_eq!(base_query(Layout::Kent, Some("  ")), "\"logType\":=event");
    }
}
