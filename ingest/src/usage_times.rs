//! Usage samples' instants checked at ingest (break-it 35 F12): a reading
//! dated 9999-12-31 or 0001-01-01 (a metrics-server timestamp, `kubectl
//! top --at`) is refused with an input error naming it, as no usage
//! analysis could place it; the plausible instants are those of
//! [`crate::store::plausible_range`] (1970 to a day after now), the rule
//! the event history uses.

use chrono::{DateTime, Utc};

/// `None` when `at` is plausible as of `now`, else why not (naming `at`).
pub(crate) fn implausible(at: DateTime<Utc>, now: DateTime<Utc>) -> Option<String> {
    let (lower, upper) = crate::store::plausible_range(now);
    (at < lower || at > upper).then(|| {
        format!(
            "{} is before 1970 or more than a day after now ({}), an instant no usage analysis takes",
            crate::victorialogs::error::show_time(&at),
            now.format("%Y-%m-%dT%H:%M:%SZ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_past_a_day_from_now_or_before_1970_are_named() {
        let now = DateTime::parse_from_rfc3339("2026-11-27T00:00:00Z").expect("now").with_timezone(&Utc);
        let at = |s: &str| DateTime::parse_from_rfc3339(s).expect("at").with_timezone(&Utc);
        assert_eq!(implausible(at("2026-11-27T23:00:00Z"), now), None);
        assert_eq!(implausible(at("1970-01-01T00:00:00Z"), now), None);
        assert_eq!(
            implausible(at("9999-12-31T00:00:00Z"), now).as_deref(),
            Some(
                "9999-12-31T00:00:00Z is before 1970 or more than a day after now (2026-11-27T00:00:00Z), an \
                 instant no usage analysis takes"
            )
        );
        assert!(implausible(at("0001-01-01T00:00:00Z"), now).is_some());
    }
}
