//! Instants as users type them — `--at`, `--since`, `--until`, and the
//! query catalog's `_us` and `instants` parameters (`kdrift query … --param
//! at_us=…`): an RFC 3339 time, or UTC microseconds since the epoch (the
//! unit the store's queries bind). One parser and one wording for all of
//! them, so that a value one place accepts is accepted everywhere.

use chrono::{DateTime, Utc};

/// What an instant may be written as, for error messages ("expected …").
pub const ACCEPTED: &str = "an RFC 3339 time such as 2026-11-13T00:00:00Z or 2026-11-13T02:00:00+02:00 \
     (date, T, time, then Z or a UTC offset), or UTC microseconds since the epoch such as 1794528000000000";

/// A value that is not an instant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {ACCEPTED}, got {given:?}{hint}")]
pub struct InstantError {
    /// The value as given.
    pub given: String,
    /// What the value looks like instead (`""`, or `; …` appended to the message).
    pub hint: &'static str,
}

/// An instant as every table and line of kdrift prints it: RFC 3339 in
/// UTC, whole seconds (`2026-11-28T05:30:00Z`), the form `--at`/`--since`
/// take back. `-o json` keeps the sub-seconds (serde's RFC 3339).
pub fn instant_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The time of day of an instant, where its date is said next to it (a
/// drain's rows under its start): RFC 3339's full-time, `05:30:00Z`.
pub fn time_of_day_text(t: DateTime<Utc>) -> String {
    t.format("%H:%M:%SZ").to_string()
}

/// The instants a stored time may have and still define "now" or the edges
/// of a report's range, as of `now` (the wall clock): from 1970-01-01 to
/// one day after `now`. A time outside (an event dated 9999-12-31, a
/// timestamp of 0001) is kept in the store, as the input said, and flagged
/// when ingested (query `run_implausible_times`), but no analysis takes it
/// as the store's latest or first instant (kdrift issue 34).
pub fn plausible_range(now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    (DateTime::<Utc>::UNIX_EPOCH, now + chrono::Duration::days(1))
}

/// The last instant a number is taken for: 9999-12-31T23:59:59.999999Z in
/// microseconds. A larger one is a unit mistake (nanoseconds are 1,000
/// times larger: `date +%s%N`, Go's `UnixNano`), not a time.
const LAST_MICROS: i64 = 253_402_300_799_999_999;

/// The hint for a number past [`LAST_MICROS`].
const NANOS_HINT: &str = "; that is after the year 9999 in microseconds: nanoseconds? (divide by 1000)";

/// The first instant a positive number is taken for: 1973-03-03T09:46:40Z
/// (10^14 microseconds). A smaller one is a unit mistake (a Unix time in
/// seconds, `date +%s`, is about 10^9; in milliseconds about 10^12: as
/// microseconds both fall in January 1970), not a time of a cluster.
const FIRST_MICROS: i64 = 100_000_000_000_000;

/// The hint for a positive number below [`FIRST_MICROS`].
const SECONDS_HINT: &str =
    "; that is before 1973 in microseconds: seconds (multiply by 1000000) or milliseconds (by 1000)?";

/// Parses an RFC 3339 time (any offset, converted to UTC) or an integer of
/// UTC microseconds since the epoch. Surrounding whitespace is ignored.
///
/// # Errors
/// [`InstantError`] naming the value when it is neither, when the
/// microseconds are past the year 9999 either way (with a hint: such a
/// number is usually nanoseconds), or when a positive number is before 1973
/// as microseconds (with a hint: seconds or milliseconds). 0 is the epoch.
pub fn parse_instant(s: &str) -> Result<DateTime<Utc>, InstantError> {
    let value = s.trim();
    let bad = || InstantError { given: s.to_string(), hint: "" };
    if let Ok(us) = value.parse::<i64>() {
        if us.unsigned_abs() > LAST_MICROS as u64 {
            return Err(InstantError { given: s.to_string(), hint: NANOS_HINT });
        }
        if us > 0 && us < FIRST_MICROS {
            return Err(InstantError { given: s.to_string(), hint: SECONDS_HINT });
        }
        return DateTime::from_timestamp_micros(us).ok_or_else(bad);
    }
    DateTime::parse_from_rfc3339(value).map(|t| t.with_timezone(&Utc)).map_err(|_| {
        let hint = if chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok() {
            DATE_HINT
        } else if chrono::NaiveDateTime::parse_from_str(&value.replace(' ', "T"), "%Y-%m-%dT%H:%M:%S%.f").is_ok() {
            OFFSET_HINT
        } else {
            ""
        };
        InstantError { given: s.to_string(), hint }
    })
}

/// The hint for a date alone: which midnight is meant depends on the zone.
const DATE_HINT: &str = "; a date alone does not say which midnight: add T, the time and the zone (T00:00:00Z for UTC)";

/// The hint for a date and time without a zone.
const OFFSET_HINT: &str = "; add the zone: Z for UTC or an offset such as +02:00";

/// Parses a comma-separated list of instants ([`parse_instant`] each) into
/// UTC microseconds, in the order given. An empty element (`a,,b`, a comma
/// at either end) is refused: it is a typo or a missing value, and the
/// store's `pod_versions_at(instants)` macro would skip it silently.
///
/// # Errors
/// [`InstantListError::Empty`] when no instant is given,
/// [`InstantListError::EmptyElement`] naming the first empty element,
/// [`InstantListError::Element`] naming the first element that is not an instant.
pub fn parse_instant_list(s: &str) -> Result<Vec<i64>, InstantListError> {
    if s.trim().is_empty() {
        return Err(InstantListError::Empty);
    }
    let mut out = Vec::new();
    for (i, element) in s.split(',').map(str::trim).enumerate() {
        if element.is_empty() {
            return Err(InstantListError::EmptyElement { position: i + 1 });
        }
        let t = parse_instant(element).map_err(InstantListError::Element)?;
        out.push(t.timestamp_micros());
    }
    Ok(out)
}

/// A list of instants that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstantListError {
    /// No element at all (an empty value).
    #[error("expected one or more comma-separated instants, each {ACCEPTED}; got none")]
    Empty,
    /// An empty element (two commas in a row, or a comma at either end).
    #[error(
        "element {position} is empty (two commas in a row, or a comma at an end); expected comma-separated \
         instants, each {ACCEPTED}"
    )]
    EmptyElement {
        /// 1-based position of the empty element.
        position: usize,
    },
    /// An element that is not an instant.
    #[error("element {:?} is not an instant: expected {ACCEPTED}{}", .0.given, .0.hint)]
    Element(InstantError),
}

#[cfg(test)]
mod tests {
    #[test]
    fn instants_print_as_rfc_3339_in_whole_seconds() {
        let t = super::parse_instant("2026-11-28T07:30:00.987654+02:00").expect("instant");
        assert_eq!(super::instant_text(t), "2026-11-28T05:30:00Z");
        assert_eq!(super::time_of_day_text(t), "05:30:00Z");
        assert_eq!(super::parse_instant(&super::instant_text(t)).map(|p| p.timestamp()), Ok(t.timestamp()));
    }

    use super::*;

    #[test]
    fn rfc3339_and_microseconds_are_the_same_instant() {
        let a = parse_instant("2026-11-13T02:00:00+02:00").expect("rfc3339");
        let b = parse_instant(" 1794528000000000 ").expect("micros");
        assert_eq!(a, b);
        assert_eq!(a.to_rfc3339(), "2026-11-13T00:00:00+00:00");
        assert_eq!(parse_instant("2026-11-13T00:00:00.5Z").map(|t| t.timestamp_micros()), Ok(1_794_528_000_500_000));
    }

    #[test]
    fn other_values_are_refused_with_the_value_and_the_accepted_forms() {
        for bad in ["yesterday", "2026-11", "", "1794528000000000x", "99999999999999999999"] {
            let err = parse_instant(bad).expect_err(bad);
            assert_eq!(err.given, bad);
            let text = err.to_string();
            assert!(text.contains("2026-11-13T00:00:00Z") && text.contains("microseconds"), "{text}");
            assert!(text.ends_with(&format!("got {bad:?}")), "{text}");
        }
        // i64::MAX microseconds is past chrono's last representable year.
        assert!(parse_instant(&i64::MAX.to_string()).is_err());
    }

    #[test]
    fn nanoseconds_given_for_microseconds_are_refused_with_a_hint() {
        // 2026-11-13T00:00:00Z in nanoseconds: year ~58,800 as microseconds.
        let err = parse_instant("1794528000000000000").expect_err("nanoseconds");
        assert_eq!(err.hint, NANOS_HINT);
        assert!(err.to_string().ends_with("got \"1794528000000000000\"; that is after the year 9999 in microseconds: nanoseconds? (divide by 1000)"), "{err}");
        // The last microsecond of 9999 is still a time, the next one is not.
        assert_eq!(
            parse_instant("253402300799999999").map(|t| t.to_rfc3339()),
            Ok("9999-12-31T23:59:59.999999+00:00".to_string())
        );
        assert!(parse_instant("253402300800000000").is_err());
        assert!(parse_instant("-253402300800000000").is_err());
    }

    #[test]
    fn a_date_alone_or_a_time_without_zone_is_refused_with_what_to_add() {
        let err = parse_instant("2026-11-28").expect_err("date");
        assert_eq!(err.hint, DATE_HINT);
        assert!(err.to_string().ends_with(
            "got \"2026-11-28\"; a date alone does not say which midnight: add T, the time and the zone (T00:00:00Z for UTC)"
        ));
        for no_zone in ["2026-11-28T05:00:00", "2026-11-28 05:00:00", "2026-11-28T05:00:00.5"] {
            assert_eq!(parse_instant(no_zone).expect_err(no_zone).hint, OFFSET_HINT, "{no_zone}");
        }
        assert_eq!(parse_instant("yesterday").expect_err("word").hint, "");
    }

    #[test]
    fn seconds_and_milliseconds_given_for_microseconds_are_refused_with_a_hint() {
        // `skew --at 1552035000` read as 1970-01-01T00:25:52Z, with only "before its history".
        for unit_mistake in ["1552035000", "1552035000000", "99999999999999"] {
            let err = parse_instant(unit_mistake).expect_err(unit_mistake);
            assert_eq!(err.hint, SECONDS_HINT, "{unit_mistake}");
        }
        assert!(parse_instant("1552035000")
            .expect_err("seconds")
            .to_string()
            .ends_with("got \"1552035000\"; that is before 1973 in microseconds: seconds (multiply by 1000000) or milliseconds (by 1000)?"));
        assert_eq!(
            parse_instant("100000000000000").map(|t| t.to_rfc3339()),
            Ok("1973-03-03T09:46:40+00:00".to_string())
        );
        assert_eq!(parse_instant("0").map(|t| t.timestamp_micros()), Ok(0));
    }

    #[test]
    fn lists_convert_each_element_and_refuse_none() {
        assert_eq!(
            parse_instant_list("2026-11-13T00:00:00Z, 1794528000000001"),
            Ok(vec![1_794_528_000_000_000, 1_794_528_000_000_001])
        );
        assert_eq!(parse_instant_list(""), Err(InstantListError::Empty));
        assert_eq!(parse_instant_list("  "), Err(InstantListError::Empty));
        assert_eq!(parse_instant_list(" , "), Err(InstantListError::EmptyElement { position: 1 }));
        assert_eq!(
            parse_instant_list("2026-11-13T00:00:00Z,,1794528000000001"),
            Err(InstantListError::EmptyElement { position: 2 })
        );
        let trailing = parse_instant_list("2026-11-13T00:00:00Z, 1794528000000001,").expect_err("trailing comma");
        assert_eq!(trailing, InstantListError::EmptyElement { position: 3 });
        assert!(
            trailing.to_string().starts_with(
                "element 3 is empty (two commas in a row, or a comma at an end); expected comma-separated instants, \
                 each an RFC 3339 time"
            ),
            "{trailing}"
        );
        let err = parse_instant_list("1794528000000000,abc").expect_err("abc");
        assert_eq!(err, InstantListError::Element(InstantError { given: "abc".into(), hint: "" }));
        assert!(err.to_string().starts_with("element \"abc\" is not an instant: expected an RFC 3339 time"), "{err}");
    }
}
