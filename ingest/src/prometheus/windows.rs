//! `[start, end)` cut into range-query windows.
//!
//! The instants evaluated are the multiples of the step since the Unix
//! epoch (as Grafana and VictoriaMetrics align them, so that a server's
//! alignment changes nothing and two pulls with the same step sample the
//! same instants). A window holds at most [`MAX_POINTS`] of them per
//! series, Prometheus' limit (`exceeded maximum resolution of 11,000 points
//! per timeseries`), and at most `--window` of time, which bounds one
//! answer's size (5,000 nodes × 120 points for 1 h at 30 s).

use chrono::{DateTime, Duration, Utc};

/// Points per series one range query may return, at most (Prometheus'
/// limit: it refuses `(end − start) / step > 11,000`; asking 11,000 points
/// keeps that ratio at 10,999).
pub const MAX_POINTS: i64 = 11_000;

/// One range query window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PromWindow {
    /// Start, inclusive.
    pub start: DateTime<Utc>,
    /// End, exclusive (where the next window starts, and `--resume` continues).
    pub end: DateTime<Utc>,
    /// The first instant evaluated (a multiple of the step).
    pub first: DateTime<Utc>,
    /// The last instant evaluated (`first + k × step`, before `end`).
    pub last: DateTime<Utc>,
}

/// The windows of `[start, end)` at `step`, each at most `max_window` long
/// and at most [`MAX_POINTS`] instants; none when no instant falls in the range.
pub fn plan(start: DateTime<Utc>, end: DateTime<Utc>, step: Duration, max_window: Duration) -> Vec<PromWindow> {
    let step_us = step.num_microseconds().unwrap_or(i64::MAX).max(1);
    let (start_us, end_us) = (start.timestamp_micros(), end.timestamp_micros());
    let per_window = (max_window.num_microseconds().unwrap_or(i64::MAX) / step_us).clamp(1, MAX_POINTS);
    let mut first = start_us.div_euclid(step_us) * step_us;
    if first < start_us {
        first += step_us;
    }
    let at = |us: i64| DateTime::from_timestamp_micros(us).unwrap_or(end);
    let mut out = Vec::new();
    let mut window_start = start_us;
    while first < end_us {
        let next = first.saturating_add(per_window.saturating_mul(step_us));
        let window_end = next.min(end_us);
        let last = first + (window_end - 1 - first) / step_us * step_us;
        out.push(PromWindow { start: at(window_start), end: at(window_end), first: at(first), last: at(last) });
        window_start = window_end;
        first = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_step_aligned_and_hold_at_most_the_points_allowed() {
        let t = |s: &str| DateTime::parse_from_rfc3339(s).expect("time").with_timezone(&Utc);
        let w = plan(t("2026-11-13T00:00:10Z"), t("2026-11-13T02:00:00Z"), Duration::seconds(30), Duration::hours(1));
        let shown: Vec<String> = w.iter().map(|w| format!("{} {} {} {}", w.start, w.end, w.first, w.last)).collect();
        assert_eq!(
            shown,
            [
                "2026-11-13 00:00:10 UTC 2026-11-13 01:00:30 UTC 2026-11-13 00:00:30 UTC 2026-11-13 01:00:00 UTC",
                "2026-11-13 01:00:30 UTC 2026-11-13 02:00:00 UTC 2026-11-13 01:00:30 UTC 2026-11-13 01:59:30 UTC",
            ]
        );
        // A long window at a fine step: 11,000 instants each.
        let w = plan(t("2026-11-13T00:00:00Z"), t("2026-11-14T00:00:00Z"), Duration::seconds(1), Duration::days(1));
        assert_eq!(w.len(), 8);
        assert_eq!((w[0].last - w[0].first).num_seconds(), MAX_POINTS - 1);
        assert!(plan(t("2026-11-13T00:00:01Z"), t("2026-11-13T00:00:02Z"), Duration::seconds(30), Duration::hours(1))
            .is_empty());
    }
}
