//! Go `time.Duration` text (`5m`, `1h30m`, `300ms`) as used by descheduler's
//! `minPodAge` (`metav1.Duration`).
//!
//! Parsing follows Go's `time.ParseDuration` (units `ns`, `us`/`µs`, `ms`,
//! `s`, `m`, `h`, decimal fractions, an optional sign, bare `0`); formatting
//! follows `Duration.String()` (`5m0s`, `1h0m0s`, `1.5s`, `300ms`), because
//! descheduler prints the value that way in its messages
//! ("pod age is not older than MinPodAge: 5m0s seconds").

use std::fmt;

/// A duration in nanoseconds, as Go's `time.Duration` (signed 64-bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GoDuration(pub i64);

const NS: u128 = 1;
const US: u128 = 1_000;
const MS: u128 = 1_000_000;
const S: u128 = 1_000_000_000;

impl serde::Serialize for GoDuration {
    /// Serialized as Go's text (`5m0s`).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl GoDuration {
    /// The duration in nanoseconds.
    pub fn nanos(self) -> i64 {
        self.0
    }

    /// The duration as a `chrono::Duration`.
    pub fn to_chrono(self) -> chrono::Duration {
        chrono::Duration::nanoseconds(self.0)
    }

    /// Parses Go duration text. Errors carry Go's messages, e.g.
    /// `time: missing unit in duration "5"`.
    /// Source: Go `time.ParseDuration`.
    pub fn parse(text: &str) -> Result<GoDuration, String> {
        let invalid = || format!("time: invalid duration {text:?}");
        let (neg, mut rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        if rest == "0" {
            return Ok(GoDuration(0));
        }
        if rest.is_empty() {
            return Err(invalid());
        }
        let mut total: u128 = 0;
        while !rest.is_empty() {
            let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
            let int_part = &rest[..int_len];
            rest = &rest[int_len..];
            let mut frac_part = "";
            if let Some(after_dot) = rest.strip_prefix('.') {
                let frac_len = after_dot.bytes().take_while(u8::is_ascii_digit).count();
                frac_part = &after_dot[..frac_len];
                rest = &after_dot[frac_len..];
            }
            if int_part.is_empty() && frac_part.is_empty() {
                return Err(invalid());
            }
            let unit_len = rest
                .char_indices()
                .find(|(_, c)| *c == '.' || c.is_ascii_digit())
                .map(|(i, _)| i)
                .unwrap_or(rest.len());
            let unit = &rest[..unit_len];
            rest = &rest[unit_len..];
            let scale = match unit {
                "" => return Err(format!("time: missing unit in duration {text:?}")),
                "ns" => NS,
                "us" | "µs" | "μs" => US,
                "ms" => MS,
                "s" => S,
                "m" => 60 * S,
                "h" => 3600 * S,
                other => return Err(format!("time: unknown unit {other:?} in duration {text:?}")),
            };
            let whole: u128 = if int_part.is_empty() { 0 } else { int_part.parse().map_err(|_| invalid())? };
            let mut part = whole.checked_mul(scale).ok_or_else(invalid)?;
            // Fractions are truncated to whole nanoseconds, as Go does.
            let mut div: u128 = 1;
            let mut frac: u128 = 0;
            for d in frac_part.bytes().take(18) {
                frac = frac * 10 + u128::from(d - b'0');
                div *= 10;
            }
            part = part.checked_add(frac * scale / div).ok_or_else(invalid)?;
            total = total.checked_add(part).ok_or_else(invalid)?;
            if total > i64::MAX as u128 + u128::from(neg) {
                return Err(invalid());
            }
        }
        let signed = if neg { -(total as i128) } else { total as i128 };
        i64::try_from(signed).map(GoDuration).map_err(|_| invalid())
    }
}

/// `v / 10^prec` and the fraction digits with trailing zeros removed.
fn frac(v: u128, prec: u32) -> (u128, String) {
    let p = 10u128.pow(prec);
    let digits = format!("{:0width$}", v % p, width = prec as usize);
    let trimmed = digits.trim_end_matches('0');
    let text = if trimmed.is_empty() { String::new() } else { format!(".{trimmed}") };
    (v / p, text)
}

impl fmt::Display for GoDuration {
    /// Go's `Duration.String()`: `0s`, `300ms`, `1.5µs`, `5m0s`, `1h0m0s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = self.0 < 0;
        let u = self.0.unsigned_abs() as u128;
        let sign = if neg { "-" } else { "" };
        if u == 0 {
            return f.write_str("0s");
        }
        if u < S {
            let (prec, unit) = if u < US {
                (0, "ns")
            } else if u < MS {
                (3, "µs")
            } else {
                (6, "ms")
            };
            let (int, fr) = frac(u, prec);
            return write!(f, "{sign}{int}{fr}{unit}");
        }
        let (secs, fr) = frac(u, 9);
        let s = secs % 60;
        let mins = secs / 60;
        if mins == 0 {
            return write!(f, "{sign}{s}{fr}s");
        }
        let m = mins % 60;
        let hours = mins / 60;
        if hours == 0 {
            write!(f, "{sign}{m}m{s}{fr}s")
        } else {
            write!(f, "{sign}{hours}h{m}m{s}{fr}s")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> i64 {
        GoDuration::parse(s).expect("valid").0
    }

    #[test]
    fn parses_like_go() {
        assert_eq!(p("0"), 0);
        assert_eq!(p("5m"), 300 * 1_000_000_000);
        assert_eq!(p("1h30m"), 5400 * 1_000_000_000);
        assert_eq!(p("1.5s"), 1_500_000_000);
        assert_eq!(p(".5s"), 500_000_000);
        assert_eq!(p("300ms"), 300_000_000);
        assert_eq!(p("2µs"), 2_000);
        assert_eq!(p("2us"), 2_000);
        assert_eq!(p("-1m"), -60_000_000_000);
        assert_eq!(p("1h1m1s1ms1us1ns"), 3_661_001_001_001);
        assert_eq!(GoDuration::parse("5").expect_err("invalid"), "time: missing unit in duration \"5\"");
        assert_eq!(GoDuration::parse("1d").expect_err("invalid"), "time: unknown unit \"d\" in duration \"1d\"");
        assert_eq!(GoDuration::parse("").expect_err("invalid"), "time: invalid duration \"\"");
        assert_eq!(GoDuration::parse("m").expect_err("invalid"), "time: invalid duration \"m\"");
        assert!(GoDuration::parse("9999999999h").is_err());
    }

    #[test]
    fn formats_like_go() {
        let f = |s: &str| GoDuration::parse(s).expect("valid").to_string();
        assert_eq!(f("0"), "0s");
        assert_eq!(f("5m"), "5m0s");
        assert_eq!(f("1h"), "1h0m0s");
        assert_eq!(f("90s"), "1m30s");
        assert_eq!(f("1.5s"), "1.5s");
        assert_eq!(f("300ms"), "300ms");
        assert_eq!(f("1500us"), "1.5ms");
        assert_eq!(f("2us"), "2µs");
        assert_eq!(f("7ns"), "7ns");
        assert_eq!(f("-1m"), "-1m0s");
        assert_eq!(f("26h3m4.005s"), "26h3m4.005s");
    }
}
