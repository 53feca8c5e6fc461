//! Percent of allocatable as people read it: one decimal, the same digits
//! wherever it is shown — the tables of `kdrift skew`, `kdrift timeline
//! drains`, `kdrift why-pending` and `kdrift rebalance plan`, the HTML
//! report, the next steps' text, and the planner's reasons
//! (`cpu 50.8 % > 50`). Thresholds, which people type, are shown as typed
//! ([`threshold_text`]). Every human-readable output writes a percent as the
//! number, a space, then `%` (`50.8 %`), never `50.8%`.
//!
//! Rounding is half away from zero on the decimal value. Float noise is
//! ignored first (values within a millionth of a point are the same value):
//! descheduler's `used / allocatable * 100` gives 50.74999999999999 for
//! 1015m of 2000m where `used * 100 / allocatable` gives 50.75, and both
//! must read 50.8.

/// `percent` in tenths of a point, rounded half away from zero after
/// snapping to millionths of a point (`50.75` → 508, `50.74999999999999` → 508,
/// `-0.05` → −1). Non-finite values give 0; values beyond ±9.2e11 saturate.
pub fn tenths(percent: f64) -> i64 {
    if !percent.is_finite() {
        return 0;
    }
    // Millionths of a point: integer from here on, so no further float rounding.
    let millionths = (percent * 1e6).round() as i64;
    let half = if millionths < 0 { -50_000 } else { 50_000 };
    millionths.saturating_add(half) / 100_000
}

/// Tenths of a point as text with one decimal: 508 → `50.8`, −1 → `-0.1`, 0 → `0.0`.
pub fn tenths_text(tenths: i64) -> String {
    let sign = if tenths < 0 { "-" } else { "" };
    let abs = tenths.unsigned_abs();
    format!("{sign}{}.{}", abs / 10, abs % 10)
}

/// A percent with one decimal, without the `%` sign: `50.8`, `100.0`, `0.0`
/// ([`tenths`] then `tenths_text`).
pub fn percent_text(percent: f64) -> String {
    tenths_text(tenths(percent))
}

/// A threshold percent as people type it: a whole number without decimals
/// (`50`), else with one ([`percent_text`]: `37.5`).
pub fn threshold_text(percent: f64) -> String {
    let t = tenths(percent);
    if t % 10 == 0 {
        format!("{}", t / 10)
    } else {
        tenths_text(t)
    }
}

/// The difference of two percents in points, as the difference of their
/// one-decimal texts, so that a line such as `97.1 points (node-1 99.6 % −
/// node-5 2.5 %)` adds up: within 0.1 of `high − low` itself.
pub fn points_text(high: f64, low: f64) -> String {
    tenths_text(tenths(high).saturating_sub(tenths(low)))
}

/// A percent (or percentage points) as `-o json` writes it: two decimals,
/// rounded half away from zero after the same snapping to millionths of a
/// point as [`tenths`] (`37.599999999999994` → `37.6`,
/// `61.72636375142387` → `61.73`, `50.74999999999999` → `50.75`).
/// Non-finite values give 0. Only for output: classes and plans are
/// computed from the exact values.
pub fn hundredths(percent: f64) -> f64 {
    if !percent.is_finite() {
        return 0.0;
    }
    let millionths = (percent * 1e6).round() as i64;
    let half = if millionths < 0 { -5_000 } else { 5_000 };
    (millionths.saturating_add(half) / 10_000) as f64 / 100.0
}

/// Serializes a percent with two decimals ([`hundredths`]), for
/// `#[serde(serialize_with = "…")]` on the percent fields of JSON outputs.
///
/// # Errors
/// The serializer's.
pub fn serialize_hundredths<S: serde::Serializer>(percent: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(hundredths(*percent))
}

/// [`serialize_hundredths`] for an optional percent (`None` stays `null`).
///
/// # Errors
/// The serializer's.
pub fn serialize_hundredths_opt<S: serde::Serializer>(percent: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match percent {
        Some(p) => s.serialize_some(&hundredths(*p)),
        None => s.serialize_none(),
    }
}

/// `n` with a comma every three digits, as every output writes counts
/// (`5940` → `5,940`, `299900` → `299,900`).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_round_away_from_zero_whatever_the_float_noise() {
        // 1015m of 2000m both ways round: the table and the planner's reason agree.
        let descheduler = 1015f64 / 2000.0 * 100.0;
        let table = 1015f64 * 100.0 / 2000.0;
        assert_ne!(descheduler, table, "the two orders differ in the last bit");
        assert_eq!(percent_text(descheduler), "50.8");
        assert_eq!(percent_text(table), "50.8");
        // Rust's `{:.1}` rounds the exact tie 0.25 to even and the other down.
        assert_eq!(format!("{:.1}", 0.25f64), "0.2");
        assert_eq!(percent_text(0.25), "0.3");
        assert_eq!(percent_text(51.849999999999994), "51.9");
        assert_eq!(percent_text(-0.05), "-0.1");
        assert_eq!(percent_text(97.14), "97.1");
        assert_eq!(percent_text(99.95), "100.0");
        assert_eq!(percent_text(0.0), "0.0");
        assert_eq!(percent_text(f64::NAN), "0.0");
    }

    #[test]
    fn points_are_the_difference_of_the_parts_shown() {
        // 99.64 − 2.46 = 97.18, but the parts read 99.6 and 2.5.
        assert_eq!(points_text(99.64, 2.46), "97.1");
        assert_eq!(points_text(99.6, 2.5), "97.1");
        assert_eq!(points_text(2.5, 2.5), "0.0");
        assert_eq!(tenths_text(-12), "-1.2");
    }

    #[test]
    fn json_percents_have_two_decimals_without_float_noise() {
        assert_eq!(hundredths(37.599999999999994), 37.6);
        assert_eq!(hundredths(61.72636375142387), 61.73);
        assert_eq!(hundredths(50.74999999999999), 50.75);
        assert_eq!(hundredths(14.100000000000001), 14.1);
        assert_eq!(hundredths(0.125), 0.13);
        assert_eq!(hundredths(-0.125), -0.13);
        assert_eq!(hundredths(100.0), 100.0);
        assert_eq!(hundredths(f64::INFINITY), 0.0);
        #[derive(serde::Serialize)]
        struct Line {
            #[serde(serialize_with = "serialize_hundredths")]
            percent: f64,
            #[serde(serialize_with = "serialize_hundredths_opt")]
            after: Option<f64>,
            #[serde(serialize_with = "serialize_hundredths_opt")]
            before: Option<f64>,
        }
        let line = Line { percent: 37.599999999999994, after: Some(11.818181818181818), before: None };
        assert_eq!(serde_json::to_string(&line).expect("json"), r#"{"percent":37.6,"after":11.82,"before":null}"#);
    }

    #[test]
    fn thresholds_read_as_typed() {
        assert_eq!(threshold_text(50.0), "50");
        assert_eq!(threshold_text(37.5), "37.5");
        assert_eq!(threshold_text(35.25), "35.3");
        assert_eq!(threshold_text(0.0), "0");
        assert_eq!(threshold_text(99.99), "100");
    }
}
