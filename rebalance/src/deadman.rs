//! The dead-man check of the nightly rebalance (`kdrift check --max-age
//! 26h`): when did a rebalance last succeed, by any of the sources asked
//! (the store's newest `Succeeded` RebalanceRun, a CronJob's
//! `status.lastSuccessfulTime`), and is that recent enough? One status line
//! and a verdict the CLI turns into an exit code (OK 0, STALE / NEVER 1).
//! Pure: the caller reads the sources and passes "now".

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::Serialize;

/// Parses a maximum age: a sequence of `<integer><unit>` with units `d`,
/// `h`, `m`, `s` (`26h`, `90m`, `1d`, `1d12h`, `45s`). Pure.
///
/// # Errors
/// A message with the expected form.
pub fn parse_max_age(text: &str) -> Result<Duration, String> {
    let bad = || format!("expected a duration such as 26h, 90m, 1d or 1d12h, got {text:?}");
    let mut total: i64 = 0;
    let mut digits = String::new();
    let mut any = false;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit: i64 = match c {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n: i64 = digits.parse().map_err(|_| bad())?;
        total = n.checked_mul(unit).and_then(|x| total.checked_add(x)).ok_or_else(bad)?;
        digits.clear();
        any = true;
    }
    if !digits.is_empty() || !any || total == 0 {
        return Err(bad());
    }
    Ok(Duration::seconds(total))
}

/// A compact age: `3h12m`, `1d3h`, `45m`, `12s`.
pub fn format_age(d: Duration) -> String {
    let s = d.num_seconds().max(0);
    let (days, hours, minutes, seconds) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60, s % 60);
    match (days, hours, minutes) {
        (0, 0, 0) => format!("{seconds}s"),
        (0, 0, m) => format!("{m}m"),
        (0, h, m) => format!("{h}h{m:02}m"),
        (d, h, _) => format!("{d}d{h}h"),
    }
}

/// What one source says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceReading {
    /// The source, e.g. `store kdrift.duckdb` or `CronJob kube-system/kdrift-rebalance`.
    pub source: String,
    /// The last success it knows of.
    pub last_success: Option<DateTime<Utc>>,
    /// What that success was (a run name), or why there is none.
    pub detail: String,
}

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DeadmanStatus {
    /// The newest success is within the maximum age.
    Ok,
    /// The newest success is older.
    Stale,
    /// No source knows of any success.
    Never,
}

/// The check's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckResult {
    /// The verdict.
    pub status: DeadmanStatus,
    /// The one status line (`OK: last successful rebalance 3h12m ago (…)`).
    pub line: String,
    /// The newest success over all sources.
    pub last_success: Option<DateTime<Utc>>,
    /// Its age in seconds (never negative).
    pub age_seconds: Option<i64>,
    /// The maximum age in seconds.
    pub max_age_seconds: i64,
    /// Every source's reading.
    pub sources: Vec<SourceReading>,
}

/// Judges the readings at `now` against `max_age` (`max_age_text`: as the user wrote it). The newest success over all sources
/// counts (a run that succeeded is a run that succeeded, wherever it was
/// recorded); every source is named in the line.
pub fn check_last_success(
    readings: Vec<SourceReading>,
    max_age: Duration,
    max_age_text: &str,
    now: DateTime<Utc>,
) -> CheckResult {
    let newest = readings.iter().filter(|r| r.last_success.is_some()).max_by_key(|r| r.last_success);
    let max = max_age_text;
    let others = |skip: Option<&SourceReading>| -> String {
        readings
            .iter()
            .filter(|r| skip.is_none_or(|s| !std::ptr::eq(*r, s)))
            .map(|r| match r.last_success {
                Some(t) => format!("{}: {} ({})", r.source, t.to_rfc3339_opts(SecondsFormat::Secs, true), r.detail),
                None => format!("{}: {}", r.source, r.detail),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let (status, line, last, age) = match newest.and_then(|r| r.last_success.map(|t| (r, t))) {
        None => (
            DeadmanStatus::Never,
            format!("NEVER: no successful rebalance ({}; max age {max})", others(None)),
            None,
            None,
        ),
        Some((r, t)) => {
            let age = (now - t).max(Duration::zero());
            let status = if age <= max_age { DeadmanStatus::Ok } else { DeadmanStatus::Stale };
            let rest = others(Some(r));
            let line = format!(
                "{}: last successful rebalance {} ago ({}, {} {}{}; max age {max})",
                if status == DeadmanStatus::Ok { "OK" } else { "STALE" },
                format_age(age),
                t.to_rfc3339_opts(SecondsFormat::Secs, true),
                r.source,
                r.detail,
                if rest.is_empty() { String::new() } else { format!("; {rest}") },
            );
            (status, line, Some(t), Some(age.num_seconds()))
        }
    };
    CheckResult {
        status,
        line,
        last_success: last,
        age_seconds: age,
        max_age_seconds: max_age.num_seconds(),
        sources: readings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 28, h, m, 0).single().expect("time")
    }

    #[test]
    fn durations() {
        assert_eq!(parse_max_age("26h"), Ok(Duration::hours(26)));
        assert_eq!(parse_max_age("90m"), Ok(Duration::minutes(90)));
        assert_eq!(parse_max_age("1d"), Ok(Duration::days(1)));
        assert_eq!(parse_max_age("1d12h"), Ok(Duration::hours(36)));
        assert_eq!(parse_max_age("45s"), Ok(Duration::seconds(45)));
        for bad in ["", "26", "h", "26x", "-1h", "1.5h", "0h", "99999999999999999999d"] {
            assert!(parse_max_age(bad).is_err(), "{bad:?}");
        }
        assert_eq!(format_age(Duration::minutes(192)), "3h12m");
        assert_eq!(format_age(Duration::hours(27)), "1d3h");
        assert_eq!(format_age(Duration::minutes(45)), "45m");
        assert_eq!(format_age(Duration::seconds(12)), "12s");
        assert_eq!(format_age(Duration::seconds(-5)), "0s");
    }

    #[test]
    fn verdicts() {
        let store = |at: Option<DateTime<Utc>>| SourceReading {
            source: "store kdrift.duckdb".into(),
            last_success: at,
            detail: if at.is_some() { "run rebalance-1".into() } else { "no successful run recorded".into() },
        };
        let ok = check_last_success(vec![store(Some(t(2, 0)))], Duration::hours(26), "26h", t(5, 12));
        assert_eq!(ok.status, DeadmanStatus::Ok);
        assert_eq!(
            ok.line,
            "OK: last successful rebalance 3h12m ago (2026-11-28T02:00:00Z, store kdrift.duckdb run rebalance-1; max age 26h)"
        );
        assert_eq!(ok.age_seconds, Some(192 * 60));
        let stale = check_last_success(vec![store(Some(t(2, 0)))], Duration::minutes(90), "90m", t(5, 12));
        assert_eq!(stale.status, DeadmanStatus::Stale);
        assert!(stale.line.starts_with("STALE: last successful rebalance 3h12m ago"), "{}", stale.line);
        let never = check_last_success(vec![store(None)], Duration::hours(26), "26h", t(5, 12));
        assert_eq!(never.status, DeadmanStatus::Never);
        assert_eq!(
            never.line,
            "NEVER: no successful rebalance (store kdrift.duckdb: no successful run recorded; max age 26h)"
        );
        // The newest source wins; the other is named.
        let cron = SourceReading {
            source: "CronJob kube-system/kdrift".into(),
            last_success: Some(t(4, 0)),
            detail: "status.lastSuccessfulTime".into(),
        };
        let both = check_last_success(vec![store(Some(t(2, 0))), cron], Duration::hours(2), "2h", t(5, 0));
        assert_eq!(both.status, DeadmanStatus::Ok);
        assert!(both.line.contains("1h00m ago (2026-11-28T04:00:00Z, CronJob kube-system/kdrift"), "{}", both.line);
        assert!(both.line.contains("store kdrift.duckdb: 2026-11-28T02:00:00Z (run rebalance-1)"), "{}", both.line);
    }
}
