//! Instants as every TIME flag takes them (`--since`, `--until`, `--at`,
//! `--start`, `--end`): an RFC 3339 time or UTC microseconds
//! ([`kdrift_store::parse_instant`]), `now`, or — as kubectl's `--since` —
//! a duration before now in the one duration grammar ([`crate::duration`]):
//! `--since 2h` is two hours ago, `--until 30m` thirty minutes ago.

use chrono::{DateTime, Utc};

/// What a relative instant may be written as, inserted in the store's "expected …" wording.
pub const RELATIVE: &str = "or a duration before now such as 2h, 30m or 1d12h, or now";

/// Parses `s` as an instant, durations counted back from `now` (pure).
pub fn parse_at(s: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let absolute = match kdrift_store::parse_instant(s) {
        Ok(t) => return Ok(t),
        Err(e) => e,
    };
    if s.trim() == "now" {
        return Ok(now);
    }
    // A value with a unit letter is meant as a duration; anything else keeps the store's hint.
    let too_long = || {
        format!(
            "{s:?} is out of range: expected a duration before now of at most {} (about 100,000 years)",
            crate::duration::format(crate::duration::LONGEST)
        )
    };
    match crate::duration::parse_checked(s) {
        Ok(d) => chrono::Duration::from_std(d).ok().and_then(|d| now.checked_sub_signed(d)).ok_or_else(too_long),
        Err(crate::duration::Refused::OutOfRange) => Err(too_long()),
        Err(crate::duration::Refused::Malformed) => {
            Err(absolute.to_string().replacen(", got ", &format!(", {RELATIVE}, got "), 1))
        }
    }
}

/// [`parse_at`] against the wall clock (used by clap).
pub fn parse(s: &str) -> Result<DateTime<Utc>, String> {
    parse_at(s, Utc::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute() {
        let now = DateTime::parse_from_rfc3339("2026-12-06T12:00:00Z").expect("valid").with_timezone(&Utc);
        let at = |s: &str| parse_at(s, now).map(|t| t.to_rfc3339());
        assert_eq!(at("2h"), Ok("2026-12-06T10:00:00+00:00".into()));
        assert_eq!(at("30m"), Ok("2026-12-06T11:30:00+00:00".into()));
        assert_eq!(at("1d12h"), Ok("2026-12-05T00:00:00+00:00".into()));
        assert_eq!(at("now"), Ok("2026-12-06T12:00:00+00:00".into()));
        assert_eq!(at("2026-11-28T07:00:00+02:00"), Ok("2026-11-28T05:00:00+00:00".into()));
        assert_eq!(at("1795838400000000"), Ok("2026-11-28T04:00:00+00:00".into()));
        let err = at("yesterday").expect_err("no such word");
        assert!(err.starts_with("expected an RFC 3339 time such as 2026-11-13T00:00:00Z"), "{err}");
        assert!(
            err.ends_with(", or a duration before now such as 2h, 30m or 1d12h, or now, got \"yesterday\""),
            "{err}"
        );
    }
}
