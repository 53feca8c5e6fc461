//! Chart geometry shared by the Gantt and the line charts: a time axis
//! mapped onto an x range (SVG user units), "nice" tick steps with UTC
//! labels, and coordinates written with at most two decimals so that the
//! same data always gives the same bytes.

use std::io::Write;

use chrono::{DateTime, Duration, Timelike, Utc};

/// A time range drawn from `x0` to `x1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeScale {
    /// Left end (UTC).
    pub from: DateTime<Utc>,
    /// Right end (UTC), after `from`.
    pub to: DateTime<Utc>,
    /// x of `from`.
    pub x0: f64,
    /// x of `to`.
    pub x1: f64,
}

impl TimeScale {
    /// A scale; an empty or reversed range becomes one minute long.
    pub fn new(from: DateTime<Utc>, to: DateTime<Utc>, x0: f64, x1: f64) -> TimeScale {
        let to = if to > from { to } else { from + Duration::minutes(1) };
        TimeScale { from, to, x0, x1 }
    }

    fn seconds(&self) -> f64 {
        micros(self.to - self.from) / 1e6
    }

    /// The x of an instant (outside the range: beyond the ends).
    pub fn x(&self, t: DateTime<Utc>) -> f64 {
        self.x0 + (micros(t - self.from) / 1e6) / self.seconds() * (self.x1 - self.x0)
    }

    /// The x of an instant, clamped to the axis.
    pub fn x_clamped(&self, t: DateTime<Utc>) -> f64 {
        self.x(t).clamp(self.x0, self.x1)
    }

    /// A span `[from, to]` (an open `to` runs to the axis end) as `(x, width)`,
    /// clipped to the axis and at least `min_width` wide; `None` when it
    /// lies entirely outside.
    pub fn span(&self, from: DateTime<Utc>, to: Option<DateTime<Utc>>, min_width: f64) -> Option<(f64, f64)> {
        let to = to.unwrap_or(self.to);
        if to < self.from || from > self.to {
            return None;
        }
        let (a, b) = (self.x_clamped(from), self.x_clamped(to.max(from)));
        let width = (b - a).max(min_width);
        // Keep a widened band inside the axis.
        let x = if a + width > self.x1 { (self.x1 - width).max(self.x0) } else { a };
        Some((x, width))
    }

    /// Tick instants and labels: multiples of the smallest "nice" step
    /// (1 minute … 30 days) giving at most `max_ticks` ticks. The first tick
    /// and every tick at midnight carry the date.
    pub fn ticks(&self, max_ticks: usize) -> Vec<(DateTime<Utc>, String)> {
        let step = tick_step(self.to - self.from, max_ticks.max(1));
        let step_s = step.num_seconds().max(1);
        let first = self.from.timestamp().div_euclid(step_s) * step_s;
        let first = if first < self.from.timestamp() { first + step_s } else { first };
        let mut out = Vec::new();
        let mut s = first;
        while s <= self.to.timestamp() {
            let Some(t) = DateTime::<Utc>::from_timestamp(s, 0) else { break };
            let dated = out.is_empty() || (t.hour() == 0 && t.minute() == 0) || step >= Duration::days(1);
            let label = if step >= Duration::days(1) {
                t.format("%Y-%m-%d").to_string()
            } else if dated {
                t.format("%m-%d %H:%M").to_string()
            } else {
                t.format("%H:%M").to_string()
            };
            out.push((t, label));
            s += step_s;
        }
        out
    }
}

fn micros(d: Duration) -> f64 {
    d.num_microseconds().map_or(d.num_milliseconds() as f64 * 1e3, |u| u as f64)
}

/// The smallest of 1, 2, 5, 10, 15, 30 minutes, 1, 2, 3, 6, 12 hours, 1, 2,
/// 7, 14, 30, 60, 91, 182 days, 1, 2, 5, 10 years (of 365 days) that cuts
/// `span` into at most `max_ticks` steps; beyond, whole multiples of 10 years.
pub fn tick_step(span: Duration, max_ticks: usize) -> Duration {
    const MINUTES: [i64; 11] = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720];
    const DAYS: [i64; 12] = [1, 2, 7, 14, 30, 60, 91, 182, 365, 730, 1825, 3650];
    let span_s = span.num_seconds().max(1);
    let max = max_ticks.max(1) as i64;
    MINUTES
        .iter()
        .map(|m| Duration::minutes(*m))
        .chain(DAYS.iter().map(|d| Duration::days(*d)))
        .find(|step| span_s / step.num_seconds() <= max)
        .unwrap_or_else(|| {
            let decade = 3650 * 86_400;
            Duration::days(3650 * (span_s / max / decade + 1))
        })
}

/// A coordinate or size with at most two decimals, without trailing zeros (`120`, `120.5`, `0.33`).
pub fn num(v: f64) -> String {
    let v = if v.is_finite() { (v * 100.0).round() / 100.0 } else { 0.0 };
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// The time axis' title: its unit (every tick label is UTC).
pub const TIME_AXIS_TITLE: &str = "time (UTC)";

/// Draws a time axis at `y`: a base line, a tick per tick with its label
/// (`03:00`, the date where it changes) and the full instant as its
/// tooltip, and the axis' title with its unit ([`TIME_AXIS_TITLE`]) at its
/// right end, under the labels.
pub fn axis<W: Write>(out: &mut W, scale: &TimeScale, y: f64, max_ticks: usize, grid_top: f64) -> std::io::Result<()> {
    writeln!(out, r#"<g class="axis" data-from="{}" data-to="{}">"#, scale.from.to_rfc3339(), scale.to.to_rfc3339())?;
    writeln!(out, r#"<line class="axis-line" x1="{}" y1="{y}" x2="{}" y2="{y}"/>"#, num(scale.x0), num(scale.x1))?;
    for (t, label) in scale.ticks(max_ticks) {
        let x = num(scale.x(t));
        writeln!(out, r#"<line class="grid" x1="{x}" y1="{}" x2="{x}" y2="{}"/>"#, num(grid_top), num(y))?;
        let at = kdrift_store::instant_text(t);
        writeln!(
            out,
            r#"<text class="tick" x="{x}" y="{}" data-at="{at}">{label}<title>{at}</title></text>"#,
            num(y + 14.0),
        )?;
    }
    writeln!(out, r#"<text class="axis-title" x="{}" y="{}">{TIME_AXIS_TITLE}</text>"#, num(scale.x1), num(y + 29.0))?;
    writeln!(out, "</g>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).expect("time")
    }

    #[test]
    fn a_band_from_02_00_to_02_10_on_a_day_axis() {
        // 0–24 h over 1440 units: one unit per minute.
        let s = TimeScale::new(t("2026-11-28T00:00:00Z"), t("2026-11-29T00:00:00Z"), 0.0, 1440.0);
        assert_eq!(s.span(t("2026-11-28T02:00:00Z"), Some(t("2026-11-28T02:10:00Z")), 0.0), Some((120.0, 10.0)));
        // With a left margin of 100 and 720 units: half a unit per minute.
        let s = TimeScale::new(t("2026-11-28T00:00:00Z"), t("2026-11-29T00:00:00Z"), 100.0, 820.0);
        assert_eq!(s.span(t("2026-11-28T02:00:00Z"), Some(t("2026-11-28T02:10:00Z")), 0.0), Some((160.0, 5.0)));
        assert_eq!(s.x(t("2026-11-28T12:00:00Z")), 460.0);
    }

    #[test]
    fn spans_are_clipped_widened_and_open_ended() {
        let s = TimeScale::new(t("2026-11-28T00:00:00Z"), t("2026-11-29T00:00:00Z"), 0.0, 1440.0);
        // Starts before the axis: clipped at 0.
        assert_eq!(s.span(t("2026-11-27T23:00:00Z"), Some(t("2026-11-28T01:00:00Z")), 0.0), Some((0.0, 60.0)));
        // Open: runs to the end.
        assert_eq!(s.span(t("2026-11-28T23:00:00Z"), None, 0.0), Some((1380.0, 60.0)));
        // Too thin to see: widened to the minimum.
        assert_eq!(s.span(t("2026-11-28T02:00:00Z"), Some(t("2026-11-28T02:00:10Z")), 2.0), Some((120.0, 2.0)));
        // A widened band at the right end stays inside the axis.
        assert_eq!(s.span(t("2026-11-29T00:00:00Z"), None, 2.0), Some((1438.0, 2.0)));
        // Outside.
        assert_eq!(s.span(t("2026-11-29T00:00:01Z"), None, 2.0), None);
        assert_eq!(s.span(t("2026-11-27T00:00:00Z"), Some(t("2026-11-27T01:00:00Z")), 2.0), None);
    }

    #[test]
    fn an_empty_range_is_one_minute() {
        let at = t("2026-11-28T00:00:00Z");
        let s = TimeScale::new(at, at, 0.0, 60.0);
        assert_eq!(s.x(at + Duration::seconds(30)), 30.0);
    }

    #[test]
    fn ticks_are_nice_steps_with_dates_at_midnight() {
        let s = TimeScale::new(t("2026-11-27T00:00:00Z"), t("2026-11-28T05:30:00Z"), 0.0, 1000.0);
        let ticks = s.ticks(10);
        // 29.5 h in at most 10 whole steps: 3 h.
        assert_eq!(tick_step(Duration::minutes(29 * 60 + 30), 10), Duration::hours(3));
        assert_eq!(tick_step(Duration::minutes(29 * 60 + 30), 5), Duration::hours(6));
        let labels: Vec<&str> = ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(
            labels,
            ["11-27 00:00", "03:00", "06:00", "09:00", "12:00", "15:00", "18:00", "21:00", "11-28 00:00", "03:00"]
        );
        // A 20-minute drain window: 2-minute ticks from the first multiple.
        let s = TimeScale::new(t("2026-11-28T01:58:30Z"), t("2026-11-28T02:16:00Z"), 0.0, 1000.0);
        let ticks = s.ticks(10);
        assert_eq!(ticks[0], (t("2026-11-28T02:00:00Z"), "11-28 02:00".to_string()));
        assert_eq!(ticks[1].1, "02:02");
        assert_eq!(ticks.len(), 9);
        // Five years of dumps: half-year steps, dates only.
        let s = TimeScale::new(t("2019-03-08T08:48:01Z"), t("2024-01-17T11:14:57Z"), 0.0, 1000.0);
        assert_eq!(tick_step(s.to - s.from, 10), Duration::days(182));
        let ticks = s.ticks(10);
        assert!(ticks.len() <= 11 && ticks.iter().all(|(_, l)| l.len() == 10), "{ticks:?}");
        assert_eq!(tick_step(Duration::days(400 * 365), 10), Duration::days(3650 * 5));
    }

    #[test]
    fn numbers_have_two_decimals_at_most() {
        assert_eq!(num(120.0), "120");
        assert_eq!(num(120.5), "120.5");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(f64::NAN), "0");
    }
}
