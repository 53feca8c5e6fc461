//! Durations as every duration flag takes them, in one grammar (Go's and
//! kubectl's `time.ParseDuration` shape, plus days): one or more
//! `<integer><unit>` with unit `d`, `h`, `m`, `s` or `ms` — `1h30m`, `90s`,
//! `1d`, `500ms` — or `0` alone. Each flag keeps its own range ([`Range`]),
//! named in the error: `--retry-delay 1m30s` and `--ready-timeout 1m30s`
//! read the same (kdrift issue 38 item 4).

use std::time::Duration;

/// The grammar, for error messages ("expected …").
pub const GRAMMAR: &str = "a duration such as 1h30m, 90s, 1d or 500ms (units d, h, m, s, ms)";

/// The units, longest suffix first (`ms` before `m` and `s`).
const UNITS: &[(&str, Duration)] = &[
    ("ms", Duration::from_millis(1)),
    ("d", Duration::from_secs(86_400)),
    ("h", Duration::from_secs(3_600)),
    ("m", Duration::from_secs(60)),
    ("s", Duration::from_secs(1)),
];

/// The longest duration the grammar takes: 36,500,000 days (about
/// 100,000 years; a time that long ago is still one chrono can hold).
pub const LONGEST: Duration = Duration::from_secs(36_500_000 * 86_400);

/// Why a value is not a duration ([`parse_checked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Not the grammar.
    Malformed,
    /// The grammar, but longer than [`LONGEST`].
    OutOfRange,
}

/// Parses the grammar alone (no range): `0`, or `<integer><unit>`
/// repeated. Surrounding whitespace is ignored; a number without a unit
/// (other than `0`), an unknown unit, a sign or a fraction is refused
/// ([`Refused::Malformed`]), as is a total past [`LONGEST`]
/// ([`Refused::OutOfRange`]).
pub fn parse_checked(s: &str) -> Result<Duration, Refused> {
    let text = s.trim();
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return Err(Refused::Malformed);
    }
    let (mut rest, mut total_ns, mut too_long) = (text, 0u128, false);
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).ok_or(Refused::Malformed)?;
        if digits == 0 {
            return Err(Refused::Malformed);
        }
        // Digits past u64 are a number too long, not a malformed one.
        let n = rest[..digits].parse::<u64>().ok();
        rest = &rest[digits..];
        let (unit, size) = UNITS.iter().find(|(u, _)| rest.starts_with(u)).ok_or(Refused::Malformed)?;
        rest = &rest[unit.len()..];
        match n {
            Some(n) => total_ns = total_ns.saturating_add(size.as_nanos().saturating_mul(u128::from(n))),
            None => too_long = true,
        }
    }
    if too_long || total_ns > LONGEST.as_nanos() {
        return Err(Refused::OutOfRange);
    }
    let (secs, nanos) = (total_ns / 1_000_000_000, total_ns % 1_000_000_000);
    Ok(Duration::new(u64::try_from(secs).map_err(|_| Refused::OutOfRange)?, nanos as u32))
}

/// [`parse_checked`] with the refusal in words: `expected a duration such
/// as …, got "1m30x"`, or `"9999999999d" is out of range: expected a
/// duration of at most 36500000d`.
pub fn parse(s: &str) -> Result<Duration, String> {
    parse_checked(s).map_err(|r| match r {
        Refused::Malformed => format!("expected {GRAMMAR}, got {s:?}"),
        Refused::OutOfRange => format!("{s:?} is out of range: expected a duration of at most {}", format(LONGEST)),
    })
}

/// What one flag accepts of the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// `0` is accepted (and means "off" or "do not wait", per flag) below `min`.
    pub zero: bool,
    /// The shortest duration other than 0.
    pub min: Duration,
    /// The longest, if any.
    pub max: Option<Duration>,
    /// Milliseconds are meaningful (else whole seconds only).
    pub sub_second: bool,
}

impl Range {
    /// At least `min`, whole seconds, no `0`.
    pub const fn at_least(min: Duration) -> Self {
        Range { zero: false, min, max: None, sub_second: false }
    }

    /// The range as its error names it: `a duration of at least 1s, in whole
    /// seconds`, `0 or a duration from 1s to 1h, in whole seconds`.
    pub fn describe(&self) -> String {
        let span = match self.max {
            Some(max) => format!("a duration from {} to {}", format(self.min), format(max)),
            None => format!("a duration of at least {}", format(self.min)),
        };
        let unit = if self.sub_second { "" } else { ", in whole seconds" };
        let zero = if self.zero && !self.min.is_zero() { "0 or " } else { "" };
        format!("{zero}{span}{unit}")
    }

    /// Parses `s` ([`parse`]) and checks it against the range.
    pub fn parse(&self, s: &str) -> Result<Duration, String> {
        // Too long for the grammar is too long for a flag with a maximum: its range says so.
        let d = match parse_checked(s) {
            Err(Refused::OutOfRange) if self.max.is_some() => {
                return Err(format!("expected {}, got {s:?}", self.describe()));
            }
            _ => parse(s)?,
        };
        let fits = (d.is_zero() && self.zero)
            || (d >= self.min && self.max.is_none_or(|max| d <= max) && (self.sub_second || d.subsec_nanos() == 0));
        if !fits {
            return Err(format!("expected {}, got {s:?}", self.describe()));
        }
        Ok(d)
    }

    /// [`Range::parse`] as a chrono span (what the store's arithmetic takes).
    pub fn parse_span(&self, s: &str) -> Result<chrono::Duration, String> {
        let d = self.parse(s)?;
        chrono::Duration::from_std(d).map_err(|_| format!("expected {}, got {s:?}", self.describe()))
    }

    /// Whole seconds, also as a bare number (`60`: what `--request-timeout`
    /// and `--batch-seconds` took before they took durations).
    pub fn parse_seconds(&self, s: &str) -> Result<u64, String> {
        let text = s.trim();
        let d = match text.parse::<u64>() {
            Ok(n) => {
                let d = Duration::from_secs(n);
                return if (d.is_zero() && self.zero) || (d >= self.min && self.max.is_none_or(|max| d <= max)) {
                    Ok(n)
                } else {
                    Err(format!("expected {} (a bare number is seconds), got {s:?}", self.describe()))
                };
            }
            Err(_) => Range { sub_second: false, ..*self }.parse(s)?,
        };
        Ok(d.as_secs())
    }
}

/// `--every`, `--metrics-interval`: at least 1s.
pub const EVERY: Range = Range::at_least(Duration::from_secs(1));
/// Spans of history (`--window`, `--step`, `--usage-window`): at least 1s.
pub const SPAN: Range = Range::at_least(Duration::from_secs(1));
/// `--max-age`: at least 1s.
pub const MAX_AGE: Range = Range::at_least(Duration::from_secs(1));
/// `--ready-timeout`: 0 (do not wait) or at least 1s.
pub const READY_TIMEOUT: Range = Range { zero: true, ..Range::at_least(Duration::from_secs(1)) };
/// `--retry-delay`: 0 to 1h, milliseconds allowed.
pub const RETRY_DELAY: Range =
    Range { zero: true, min: Duration::ZERO, max: Some(Duration::from_secs(3_600)), sub_second: true };
/// `ingest victorialogs|prometheus --request-timeout`: 1s to 1d, milliseconds allowed.
pub const HTTP_TIMEOUT: Range =
    Range { zero: false, min: Duration::from_secs(1), max: Some(Duration::from_secs(86_400)), sub_second: true };
/// `--request-timeout` (kubectl's, API server) and `--batch-seconds`: 1s to 1h, whole seconds.
pub const KUBE_SECONDS: Range =
    Range { max: Some(Duration::from_secs(3_600)), ..Range::at_least(Duration::from_secs(1)) };

/// `ingest victorialogs|prometheus --request-timeout` ([`HTTP_TIMEOUT`]; used by clap).
pub fn http_timeout(s: &str) -> Result<Duration, String> {
    HTTP_TIMEOUT.parse(s)
}

/// kubectl's `--request-timeout` and `record --batch-seconds`, in whole
/// seconds ([`KUBE_SECONDS`]; a bare number is seconds; used by clap).
pub fn kube_seconds(s: &str) -> Result<u64, String> {
    KUBE_SECONDS.parse_seconds(s)
}

/// A duration in the grammar, largest units first: `1d2h`, `1h30m`, `500ms`, `0s`.
pub fn format(d: Duration) -> String {
    if d.is_zero() {
        return "0s".to_string();
    }
    let mut out = String::new();
    let mut rest = d.as_millis();
    for (unit, size) in UNITS.iter().skip(1).chain(UNITS.iter().take(1)) {
        let size = size.as_millis();
        if rest >= size {
            out.push_str(&format!("{}{unit}", rest / size));
            rest %= size;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        let ok = |s: &str| parse(s).map(|d| d.as_millis());
        assert_eq!(ok("1h30m"), Ok(5_400_000));
        assert_eq!(ok("90s"), Ok(90_000));
        assert_eq!(ok("1d"), Ok(86_400_000));
        assert_eq!(ok("500ms"), Ok(500));
        assert_eq!(ok("1m30s"), Ok(90_000));
        assert_eq!(ok(" 0 "), Ok(0));
        assert_eq!(ok("1d12h"), Ok(129_600_000));
        for bad in ["", "5", "h", "1w", "1.5h", "-1h", "1h 30m", "1hm", "30S"] {
            assert_eq!(parse(bad), Err(format!("expected {GRAMMAR}, got {bad:?}")), "{bad:?}");
        }
        // Grammatical but too long: said as such (it read as malformed).
        assert_eq!(ok("99999999999s"), Ok(99_999_999_999_000));
        for long in ["36500001d", "9999999999999h", "99999999999999999999999s", "36500000d1ms"] {
            assert_eq!(
                parse(long),
                Err(format!("{long:?} is out of range: expected a duration of at most 36500000d")),
                "{long:?}"
            );
        }
        assert_eq!(
            RETRY_DELAY.parse("99999999999999999999999s"),
            Err(format!("expected a duration from 0s to 1h, got {:?}", "99999999999999999999999s"))
        );
    }

    #[test]
    fn ranges_and_formats() {
        assert_eq!(READY_TIMEOUT.describe(), "0 or a duration of at least 1s, in whole seconds");
        assert_eq!(RETRY_DELAY.describe(), "a duration from 0s to 1h");
        assert_eq!(KUBE_SECONDS.parse_seconds("60"), Ok(60));
        assert_eq!(KUBE_SECONDS.parse_seconds("2m"), Ok(120));
        assert!(KUBE_SECONDS.parse_seconds("0").is_err() && KUBE_SECONDS.parse_seconds("2h").is_err());
        assert_eq!(SPAN.parse_span("1h30m"), Ok(chrono::Duration::minutes(90)));
        assert_eq!(format(Duration::from_millis(90_061_500)), "1d1h1m1s500ms");
    }
}
