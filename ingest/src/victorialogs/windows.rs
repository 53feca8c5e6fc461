//! Splits `[start, end)` into query windows from `/select/logsql/hits`
//! counts, so that each window's query returns at most about `max_rows`
//! rows and finishes well inside the server's `-search.maxQueryDuration`
//! (30 s by default). Windows are contiguous, cover the range exactly, never
//! span more than `max_span`, and start on the hits buckets' (UTC-aligned)
//! boundaries where they can. A bucket holding more than `max_rows` is cut
//! into equal parts; an empty stretch fills a window up to `max_span`. The
//! span cap (a day by default, [`super::pull::PullOptions::max_window`],
//! VictoriaLogs' daily partitions) makes a range of several days several
//! windows however few its rows.

use chrono::{DateTime, Duration, Utc};

/// One query window `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Window {
    /// Inclusive start.
    pub start: DateTime<Utc>,
    /// Exclusive end.
    pub end: DateTime<Utc>,
    /// Rows `/hits` counted in it (an estimate: rows may still arrive).
    pub expected_rows: u64,
}

/// The `/hits` bucket step for a range: the smallest of 1m, 5m, 15m, 1h,
/// 6h, 1d giving at most 2000 buckets (whole days beyond).
pub fn hits_step(start: DateTime<Utc>, end: DateTime<Utc>) -> Duration {
    let span = (end - start).num_seconds().max(1);
    for minutes in [1, 5, 15, 60, 360, 1440] {
        if span / (minutes * 60) <= 2000 {
            return Duration::minutes(minutes);
        }
    }
    Duration::days(span / 86_400 / 2000 + 1)
}

/// Most pieces one bucket is cut into.
const MAX_PARTS: u64 = 10_000;

/// The shortest piece a bucket is cut into: 1 s. A server whose `/hits`
/// claims more rows than that fits (10^12 rows in a minute, break-it 31)
/// gets 1 s windows, 60 a minute, instead of 10,000 6 ms windows a minute
/// that never end a pull; no Kubernetes cluster writes 100,000 events a
/// second.
pub const MIN_WINDOW: Duration = Duration::seconds(1);

/// Splits `[s, e)` into `parts` equal pieces (the last one ends at `e`).
fn split_evenly(s: DateTime<Utc>, e: DateTime<Utc>, rows: u64, parts: u64) -> Vec<(DateTime<Utc>, DateTime<Utc>, u64)> {
    let total = (e - s).num_nanoseconds().unwrap_or(i64::MAX);
    // A bogus count from the server must not make millions of windows.
    let floor = MIN_WINDOW.num_nanoseconds().unwrap_or(1);
    let parts = parts.clamp(1, ((total / floor).max(1) as u64).min(MAX_PARTS));
    let mut out = Vec::with_capacity(parts as usize);
    let mut from = s;
    for i in 1..=parts {
        let to =
            if i == parts { e } else { s + Duration::nanoseconds((total as i128 * i as i128 / parts as i128) as i64) };
        let share = rows / parts + u64::from(i <= rows % parts);
        out.push((from, to, share));
        from = to;
    }
    out
}

/// Plans the windows. `buckets` are `/hits` `(bucket start, rows)` pairs of
/// step `step` (any order; buckets outside the range are clipped).
pub fn plan(
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    step: Duration,
    buckets: &[(DateTime<Utc>, u64)],
    max_rows: u64,
    max_span: Duration,
) -> Vec<Window> {
    if end <= start {
        return Vec::new();
    }
    let max_rows = max_rows.max(1);
    let mut sorted: Vec<(DateTime<Utc>, u64)> = buckets.to_vec();
    sorted.sort_by_key(|(t, _)| *t);
    // Contiguous segments with their row counts (gaps count zero).
    let mut segments = Vec::new();
    let mut cursor = start;
    for (t, rows) in sorted {
        let (s, e) = (t.max(cursor), t.checked_add_signed(step).unwrap_or(end).min(end));
        if e <= s {
            continue;
        }
        if s > cursor {
            segments.push((cursor, s, 0));
        }
        segments.extend(split_evenly(s, e, rows, rows.div_ceil(max_rows)));
        cursor = e;
    }
    if cursor < end {
        segments.push((cursor, end, 0));
    }
    let mut windows: Vec<Window> = Vec::new();
    let mut current: Option<Window> = None;
    for (s, e, rows) in segments {
        let pieces = if e - s > max_span {
            let n = ((e - s).num_seconds() / max_span.num_seconds().max(1) + 1) as u64;
            split_evenly(s, e, rows, n)
        } else {
            vec![(s, e, rows)]
        };
        for (s, e, rows) in pieces {
            current = match current {
                // An empty stretch fills the window up to its longest span
                // rather than cutting it where the stretch starts.
                Some(w) if rows == 0 && e - w.start > max_span && w.start + max_span > s => {
                    let cut = w.start + max_span;
                    windows.push(Window { end: cut, ..w });
                    Some(Window { start: cut, end: e, expected_rows: 0 })
                }
                Some(w) if w.expected_rows + rows <= max_rows && e - w.start <= max_span => {
                    Some(Window { end: e, expected_rows: w.expected_rows + rows, ..w })
                }
                Some(w) => {
                    windows.push(w);
                    Some(Window { start: s, end: e, expected_rows: rows })
                }
                None => Some(Window { start: s, end: e, expected_rows: rows }),
            };
        }
    }
    windows.extend(current);
    windows
}

/// `window` cut in two halves by time, for a window whose answer passed
/// [`super::pull::PullOptions::max_window_bytes`]: each half is pulled
/// and committed on its own. The cut is on a whole second where one falls
/// a second or more inside; `None` for a window shorter than two
/// [`MIN_WINDOW`]s (the floor: it is committed whole, however large).
/// The expected rows are shared evenly.
pub fn halves(window: &Window) -> Option<(Window, Window)> {
    let span = window.end - window.start;
    if span < MIN_WINDOW * 2 {
        return None;
    }
    let middle = window.start + span / 2;
    let second = DateTime::from_timestamp(middle.timestamp(), 0).unwrap_or(middle);
    let cut = if second - window.start >= MIN_WINDOW { second } else { middle };
    let rows = window.expected_rows;
    Some((
        Window { start: window.start, end: cut, expected_rows: rows - rows / 2 },
        Window { start: cut, end: window.end, expected_rows: rows / 2 },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).expect("time").with_timezone(&Utc)
    }

    fn assert_contiguous(ws: &[Window], start: DateTime<Utc>, end: DateTime<Utc>) {
        assert_eq!(ws.first().map(|w| w.start), Some(start));
        assert_eq!(ws.last().map(|w| w.end), Some(end));
        assert!(ws.windows(2).all(|p| p[0].end == p[1].start), "{ws:?}");
    }

    #[test]
    fn buckets_are_grouped_up_to_the_row_budget() {
        let (s, e) = (t("2026-11-27T00:30:00Z"), t("2026-11-27T06:00:00Z"));
        let b = [
            (t("2026-11-27T00:00:00Z"), 40),
            (t("2026-11-27T01:00:00Z"), 50),
            (t("2026-11-27T02:00:00Z"), 30),
            (t("2026-11-27T04:00:00Z"), 10),
        ];
        let ws = plan(s, e, Duration::hours(1), &b, 100, Duration::days(1));
        assert_contiguous(&ws, s, e);
        assert_eq!(ws.iter().map(|w| w.expected_rows).collect::<Vec<_>>(), vec![90, 40]);
        assert_eq!(ws[1].start, t("2026-11-27T02:00:00Z"));
    }

    #[test]
    fn a_dense_bucket_is_cut_and_long_empty_spans_are_capped() {
        let (s, e) = (t("2026-11-27T00:00:00Z"), t("2026-11-30T00:00:00Z"));
        let b = [(t("2026-11-27T00:00:00Z"), 250)];
        let ws = plan(s, e, Duration::minutes(1), &b, 100, Duration::days(1));
        assert_contiguous(&ws, s, e);
        assert_eq!(ws[0].end - ws[0].start, Duration::seconds(20));
        assert_eq!(ws.iter().map(|w| w.expected_rows).sum::<u64>(), 250);
        assert!(ws.iter().all(|w| w.end - w.start <= Duration::days(1) && w.expected_rows <= 100), "{ws:?}");
    }

    #[test]
    fn an_empty_stretch_fills_the_window_to_its_longest_span() {
        // The demo's events: 601 rows the first morning, 950 the next.
        let (s, e) = (t("2026-11-27T00:00:00Z"), t("2026-11-29T00:00:00Z"));
        let b = [(t("2026-11-27T04:00:00Z"), 601), (t("2026-11-28T02:00:00Z"), 950)];
        let ws = plan(s, e, Duration::hours(1), &b, 100_000, Duration::days(1));
        assert_contiguous(&ws, s, e);
        let got: Vec<_> = ws.iter().map(|w| (w.start, w.end, w.expected_rows)).collect();
        assert_eq!(got, vec![(s, t("2026-11-28T00:00:00Z"), 601), (t("2026-11-28T00:00:00Z"), e, 950)]);
    }

    #[test]
    fn bogus_buckets_do_not_explode() {
        let (s, e) = (t("2026-11-27T00:00:00Z"), t("2026-11-27T01:00:00Z"));
        let b = [(t("2026-11-27T00:00:00Z"), u64::MAX), (DateTime::<Utc>::MAX_UTC, 5)];
        let ws = plan(s, e, Duration::minutes(1), &b, 100, Duration::days(1));
        assert_contiguous(&ws, s, e);
        assert!(ws.len() <= 10_001, "{}", ws.len());
    }

    /// Break-it 31: `/hits` claiming 10^12 rows in a minute cut it into
    /// 10,000 windows of 6 ms; no window is shorter than [`MIN_WINDOW`].
    #[test]
    fn a_bucket_claiming_more_rows_than_fit_is_cut_into_one_second_windows() {
        let (s, e) = (t("2026-11-27T00:00:00Z"), t("2026-11-27T01:00:00Z"));
        let ws = plan(s, e, Duration::minutes(1), &[(s, 1_000_000_000_000)], 100_000, Duration::days(1));
        assert_contiguous(&ws, s, e);
        assert_eq!(ws.len(), 61, "60 windows of 1 s, then the empty rest of the hour");
        assert!(ws[..60].iter().all(|w| w.end - w.start == Duration::seconds(1)), "{:?}", &ws[..3]);
        assert_eq!(ws.iter().map(|w| w.expected_rows).sum::<u64>(), 1_000_000_000_000);
    }

    #[test]
    fn steps_and_empty_ranges() {
        assert_eq!(hits_step(t("2026-11-27T00:00:00Z"), t("2026-11-27T06:00:00Z")), Duration::minutes(1));
        assert_eq!(hits_step(t("2026-11-01T00:00:00Z"), t("2026-11-30T00:00:00Z")), Duration::minutes(60));
        assert!(plan(
            t("2026-11-27T00:00:00Z"),
            t("2026-11-27T00:00:00Z"),
            Duration::hours(1),
            &[],
            10,
            Duration::days(1)
        )
        .is_empty());
    }
    #[test]
    fn halves_cut_on_a_whole_second_down_to_the_floor() {
        let w = |s: &str, e: &str| Window { start: t(s), end: t(e), expected_rows: 5 };
        let (a, b) = halves(&w("2026-11-27T00:00:00Z", "2026-11-27T01:00:00Z")).expect("an hour");
        assert_eq!((a.end, b.start, a.expected_rows, b.expected_rows), (t("2026-11-27T00:30:00Z"), a.end, 3, 2));
        let (a, b) = halves(&w("2026-11-27T00:00:00Z", "2026-11-27T00:00:03Z")).expect("3 s");
        assert_eq!((a.end, b.end), (t("2026-11-27T00:00:01Z"), t("2026-11-27T00:00:03Z")));
        let (a, _) = halves(&w("2026-11-27T00:00:00.600Z", "2026-11-27T00:00:02.600Z")).expect("2 s");
        assert_eq!(a.end, t("2026-11-27T00:00:01.600Z"), "no whole second a second inside: the middle");
        assert_eq!(halves(&w("2026-11-27T00:00:00Z", "2026-11-27T00:00:01.999Z")), None);
    }
}
