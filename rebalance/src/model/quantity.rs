//! Kubernetes quantities (`100m`, `1.5`, `1925036Ki`, `129e6`, `1G`) parsed exactly.
//!
//! Source: apimachinery `pkg/api/resource` (`ParseQuantity`, `MilliValue`,
//! `Value`). A quantity is kept as an exact decimal times a power of 1024 — no
//! `f64` anywhere — and converted to integers the way Kubernetes does it:
//! `cpu` to millicores with [`Quantity::milli_value`], everything else to base
//! units (bytes, counts) with [`Quantity::value`]; both round a fraction UP
//! (away from zero), so `0.1m` of cpu is 1 millicore and `1.1Ki` is 1127 bytes.
//!
//! Grammar (from `quantity.go`):
//! `<sign>? <digits> (. <digits>)? <suffix>` where suffix is one of
//! `n u m "" k M G T P E` (decimal SI), `Ki Mi Gi Ti Pi Ei` (binary SI), or
//! `e<int>` / `E<int>` (decimal exponent; a bare `E` is exa).

use crate::error::ModelError;

/// The most significant decimal digits kept exactly (what fits in a `u128`).
const MAX_DIGITS: usize = 38;

const EXPECTED_NUMBER: &str = "expected a number with an optional suffix, such as 100m, 0.5, 2, 1e3, 128Mi or 1G";

/// An exact Kubernetes quantity: `(-1)^negative × mantissa × 10^exp10 × 1024^exp1024`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Quantity {
    negative: bool,
    mantissa: u128,
    exp10: i64,
    exp1024: u32,
}

impl Quantity {
    /// Parses a quantity string (surrounding whitespace is ignored, as the JSON
    /// decoder of apimachinery does). Negative values parse; callers that need
    /// non-negative amounts use [`parse_amount`].
    ///
    /// Source: apimachinery `resource.ParseQuantity` / `parseQuantityString`.
    /// Stricter than upstream in one way: at least one digit is required
    /// (upstream reads a bare `m` as zero).
    pub fn parse(input: &str) -> Result<Quantity, ModelError> {
        let not_a_quantity = |expected: String| ModelError::NotAQuantity { input: input.to_string(), expected };
        let s = input.trim();
        if s.is_empty() {
            return Err(not_a_quantity(format!("got an empty string; {EXPECTED_NUMBER}")));
        }
        let bytes = s.as_bytes();
        let mut pos = 0;
        let negative = match bytes[0] {
            b'-' => {
                pos = 1;
                true
            }
            b'+' => {
                pos = 1;
                false
            }
            _ => false,
        };
        let int_start = pos;
        while pos < bytes.len() && bytes[pos].is_ascii_digit() {
            pos += 1;
        }
        let int_digits = &s[int_start..pos];
        let mut frac_digits = "";
        if pos < bytes.len() && bytes[pos] == b'.' {
            pos += 1;
            let frac_start = pos;
            while pos < bytes.len() && bytes[pos].is_ascii_digit() {
                pos += 1;
            }
            frac_digits = &s[frac_start..pos];
        }
        if int_digits.is_empty() && frac_digits.is_empty() {
            return Err(not_a_quantity(EXPECTED_NUMBER.to_string()));
        }
        let suffix = &s[pos..];
        let (suffix_exp10, exp1024): (i64, u32) = match suffix {
            "" => (0, 0),
            "n" => (-9, 0),
            "u" => (-6, 0),
            "m" => (-3, 0),
            "k" => (3, 0),
            "M" => (6, 0),
            "G" => (9, 0),
            "T" => (12, 0),
            "P" => (15, 0),
            "E" => (18, 0),
            "Ki" => (0, 1),
            "Mi" => (0, 2),
            "Gi" => (0, 3),
            "Ti" => (0, 4),
            "Pi" => (0, 5),
            "Ei" => (0, 6),
            _ => match parse_exponent(suffix) {
                Some(Ok(e)) => (e, 0),
                Some(Err(())) => {
                    return Err(ModelError::QuantityOutOfRange {
                        input: input.to_string(),
                        reason: "the exponent is too large",
                    })
                }
                None => {
                    return Err(not_a_quantity(format!(
                        "unknown suffix {suffix:?}; expected one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3"
                    )))
                }
            },
        };

        // Significant digits: strip leading zeros, then trailing zeros (moved into the exponent).
        let mut exp10 = suffix_exp10 - frac_digits.len() as i64;
        let all: String = format!("{int_digits}{frac_digits}");
        let trimmed = all.trim_start_matches('0');
        let significant = trimmed.trim_end_matches('0');
        exp10 += (trimmed.len() - significant.len()) as i64;
        if significant.len() > MAX_DIGITS {
            return Err(ModelError::QuantityOutOfRange {
                input: input.to_string(),
                reason: "more than 38 significant digits",
            });
        }
        let mut mantissa: u128 = 0;
        for b in significant.bytes() {
            // Cannot overflow: at most 38 digits.
            mantissa = mantissa * 10 + u128::from(b - b'0');
        }
        if mantissa == 0 {
            return Ok(Quantity { negative: false, mantissa: 0, exp10: 0, exp1024: 0 });
        }
        Ok(Quantity { negative, mantissa, exp10, exp1024 })
    }

    /// True for a value below zero.
    pub fn is_negative(&self) -> bool {
        self.negative && self.mantissa != 0
    }

    /// True for exactly zero (`0`, `0m`, `0.000Ki`).
    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    /// The value in thousandths (millicores for cpu), rounded up (away from
    /// zero); `None` when it does not fit in an `i64`.
    ///
    /// Source: apimachinery `Quantity.MilliValue` (`ScaledValue(Milli)`).
    pub fn milli_value(&self) -> Option<i64> {
        self.scaled_ceil(3)
    }

    /// The value in billionths (nanocores for cpu, as metrics-server
    /// reports usage), rounded up (away from zero); `None` when it does not
    /// fit in an `i64`.
    pub fn nano_value(&self) -> Option<i64> {
        self.scaled_ceil(9)
    }

    /// The value in base units (bytes, counts), rounded up (away from zero);
    /// `None` when it does not fit in an `i64`.
    ///
    /// Source: apimachinery `Quantity.Value` (`ScaledValue(0)`).
    pub fn value(&self) -> Option<i64> {
        self.scaled_ceil(0)
    }

    /// `ceil(|self| × 10^extra_exp10)` with the sign put back.
    fn scaled_ceil(&self, extra_exp10: i64) -> Option<i64> {
        if self.mantissa == 0 {
            return Some(0);
        }
        let mut num = self.mantissa;
        for _ in 0..self.exp1024 {
            num = num.checked_mul(1024)?;
        }
        let e = self.exp10.checked_add(extra_exp10)?;
        let magnitude = if e >= 0 {
            num.checked_mul(pow10(e)?)?
        } else {
            let d = -e;
            if d > 38 {
                // num < 2^128 < 10^39 <= 10^d, and num > 0: strictly between 0 and 1.
                1
            } else {
                let p = pow10(d)?;
                num / p + u128::from(!num.is_multiple_of(p))
            }
        };
        let m = i64::try_from(magnitude).ok()?;
        Some(if self.negative { -m } else { m })
    }
}

/// `10^e` as a `u128`, `None` past `10^38`.
fn pow10(e: i64) -> Option<u128> {
    let e = u32::try_from(e).ok()?;
    10u128.checked_pow(e)
}

/// `e3`, `E-2`, `e+7` → `Some(Ok(exponent))`; out of range → `Some(Err(()))`;
/// anything else → `None`.
fn parse_exponent(suffix: &str) -> Option<Result<i64, ()>> {
    let rest = suffix.strip_prefix('e').or_else(|| suffix.strip_prefix('E'))?;
    let digits = rest.strip_prefix('-').or_else(|| rest.strip_prefix('+')).unwrap_or(rest);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Bounded well inside i64 so later exponent arithmetic cannot overflow.
    Some(match rest.parse::<i64>() {
        Ok(e) if e.abs() <= 1_000_000 => Ok(e),
        _ => Err(()),
    })
}

/// True for the resource measured in thousandths: `cpu` (millicores).
/// Every other resource is converted to base units.
pub fn is_milli_resource(resource: &str) -> bool {
    resource == "cpu"
}

/// True for resources measured in bytes (`memory`, `ephemeral-storage`,
/// `storage`, `hugepages-*`), which display as `512 MiB`.
pub fn is_byte_resource(resource: &str) -> bool {
    matches!(resource, "memory" | "ephemeral-storage" | "storage") || resource.starts_with("hugepages-")
}

/// Parses the amount of one resource as the scheduler compares it: `cpu` in
/// millicores (`MilliValue`), everything else in base units (`Value`), both
/// rounded up. Negative amounts and amounts beyond `i64` are errors.
///
/// Source: kube-scheduler `framework.Resource.Add` (MilliValue for cpu, Value otherwise).
pub fn parse_amount(resource: &str, input: &str) -> Result<i64, ModelError> {
    let q = Quantity::parse(input)?;
    if q.is_negative() {
        return Err(ModelError::QuantityOutOfRange {
            input: input.to_string(),
            reason: "a resource amount cannot be negative",
        });
    }
    let v = if is_milli_resource(resource) { q.milli_value() } else { q.value() };
    v.ok_or_else(|| ModelError::QuantityOutOfRange {
        input: input.to_string(),
        reason: "too large for a 64-bit integer",
    })
}

/// Millicores for display: whole cores as `2`, the rest as `58m` / `1500m`.
pub fn format_cpu(millis: i64) -> String {
    if millis % 1000 == 0 {
        format!("{}", millis / 1000)
    } else {
        format!("{millis}m")
    }
}

/// Bytes for display in binary units with at most two decimals, rounded half
/// away from zero: `512 MiB`, `1.5 GiB`, `1.84 GiB`, `999 B`.
pub fn format_bytes(bytes: i64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let negative = bytes < 0;
    let abs = i128::from(bytes).abs();
    if abs < 1024 {
        return format!("{bytes} B");
    }
    let mut idx = 0;
    let mut unit: i128 = 1024;
    while idx + 1 < UNITS.len() && abs >= unit * 1024 {
        unit *= 1024;
        idx += 1;
    }
    // Hundredths of the unit, rounded half up.
    let mut hundredths = (abs * 100 + unit / 2) / unit;
    if hundredths >= 1024 * 100 && idx + 1 < UNITS.len() {
        idx += 1;
        unit *= 1024;
        hundredths = (abs * 100 + unit / 2) / unit;
    }
    let whole = hundredths / 100;
    let frac = hundredths % 100;
    let sign = if negative { "-" } else { "" };
    let number = if frac == 0 {
        format!("{whole}")
    } else if frac % 10 == 0 {
        format!("{whole}.{}", frac / 10)
    } else {
        format!("{whole}.{frac:02}")
    };
    format!("{sign}{number} {}", UNITS[idx])
}

/// An amount of a resource for display: `format_cpu` for cpu,
/// `format_bytes` for byte resources, the plain integer otherwise (pods,
/// extended resources).
pub fn format_amount(resource: &str, amount: i64) -> String {
    if is_milli_resource(resource) {
        format_cpu(amount)
    } else if is_byte_resource(resource) {
        format_bytes(amount)
    } else {
        amount.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn milli(s: &str) -> i64 {
        Quantity::parse(s).expect("parses").milli_value().expect("fits")
    }
    fn value(s: &str) -> i64 {
        Quantity::parse(s).expect("parses").value().expect("fits")
    }

    #[test]
    fn parse_table() {
        // (input, MilliValue, Value)
        let table: &[(&str, i64, i64)] = &[
            ("100m", 100, 1),
            ("2", 2000, 2),
            ("1.5", 1500, 2),
            ("0.5", 500, 1),
            ("1925036Ki", 1_971_236_864_000, 1_971_236_864),
            ("15564179840", 15_564_179_840_000, 15_564_179_840),
            ("1e3", 1_000_000, 1000),
            ("1E3", 1_000_000, 1000),
            ("128974848", 128_974_848_000, 128_974_848),
            ("129e6", 129_000_000_000, 129_000_000),
            ("123Mi", 128_974_848_000, 128_974_848),
            ("1G", 1_000_000_000_000, 1_000_000_000),
            ("1k", 1_000_000, 1000),
            ("1Gi", 1_073_741_824_000, 1_073_741_824),
            ("1.5Gi", 1_610_612_736_000, 1_610_612_736),
            ("0", 0, 0),
            ("0m", 0, 0),
            ("+5", 5000, 5),
            (".5", 500, 1),
            ("5.", 5000, 5),
            ("  250m ", 250, 1),
            ("1e-3", 1, 1),
            ("500u", 1, 1),
            ("100n", 1, 1),
            ("007", 7000, 7),
        ];
        for (input, m, v) in table {
            assert_eq!(milli(input), *m, "milli of {input}");
            assert_eq!(value(input), *v, "value of {input}");
        }
    }

    #[test]
    fn rounding_is_up_like_kubernetes() {
        assert_eq!(milli("0.1m"), 1);
        assert_eq!(milli("1.0001m"), 2);
        assert_eq!(milli("0.0001"), 1);
        assert_eq!(value("1.1Ki"), 1127); // 1126.4
        assert_eq!(value("100m"), 1);
        assert_eq!(value("1m"), 1);
        assert_eq!(value("0.5Mi"), 524_288);
        // Negative values round away from zero.
        assert_eq!(Quantity::parse("-1.5m").expect("parses").milli_value(), Some(-2));
        assert_eq!(Quantity::parse("-1").expect("parses").value(), Some(-1));
    }

    #[test]
    fn big_values() {
        // 7Ei fits; 8Ei is 2^63 and does not.
        assert_eq!(value("7Ei"), 7 * (1_i64 << 60));
        assert_eq!(value("1E"), 1_000_000_000_000_000_000);
        assert_eq!(Quantity::parse("1E").expect("parses").milli_value(), None);
        assert_eq!(Quantity::parse("8Ei").expect("parses").value(), None);
        assert_eq!(value("9223372036854775807"), i64::MAX);
        assert_eq!(Quantity::parse("9223372036854775808").expect("parses").value(), None);
        // In millis, 9.3e15 cores overflow while the value fits.
        assert_eq!(Quantity::parse("9300000000000000").expect("parses").milli_value(), None);
        assert_eq!(value("9300000000000000"), 9_300_000_000_000_000);
        assert_eq!(Quantity::parse("1e100").expect("parses").value(), None);
        // Tiny values still round up to one unit.
        assert_eq!(value("1e-100"), 1);
        assert_eq!(value("0.000000000000000000000000000000000000000000001"), 1);
        // Many digits that are only zeros are fine.
        assert_eq!(value("000000000000000000000000000000000000000000001"), 1);
        assert_eq!(value("1000000000000000000.000000000000000000000000000"), 1_000_000_000_000_000_000);
    }

    #[test]
    fn rejects_garbage_with_a_clear_message() {
        for bad in ["", "abc", "1.2.3", "12Kb", "1K", "m", "--1", "1e", "1ee3", "Mi", "1 Mi", "0x10"] {
            assert!(Quantity::parse(bad).is_err(), "{bad:?} should not parse");
        }
        let err = Quantity::parse("abc").expect_err("abc is bad");
        assert_eq!(
            err.to_string(),
            "\"abc\" is not a quantity (expected a number with an optional suffix, such as 100m, 0.5, 2, 1e3, 128Mi or 1G)"
        );
        let err = Quantity::parse("12Kb").expect_err("Kb is bad");
        assert!(err.to_string().starts_with("\"12Kb\" is not a quantity (unknown suffix \"Kb\""), "{err}");
        let err = Quantity::parse("1e99999999").expect_err("too big");
        assert_eq!(err.to_string(), "\"1e99999999\" is out of range: the exponent is too large");
        let err = Quantity::parse("1234567890123456789012345678901234567890").expect_err("too many digits");
        assert!(matches!(err, ModelError::QuantityOutOfRange { .. }));
    }

    #[test]
    fn parse_amount_by_resource() {
        assert_eq!(parse_amount("cpu", "100m"), Ok(100));
        assert_eq!(parse_amount("cpu", "1.5"), Ok(1500));
        assert_eq!(parse_amount("memory", "123Mi"), Ok(128_974_848));
        assert_eq!(parse_amount("memory", "100m"), Ok(1));
        assert_eq!(parse_amount("nvidia.com/gpu", "2"), Ok(2));
        assert_eq!(parse_amount("pods", "110"), Ok(110));
        assert_eq!(parse_amount("cpu", "-0"), Ok(0));
        assert_eq!(
            parse_amount("cpu", "-1").map_err(|e| e.to_string()),
            Err("\"-1\" is out of range: a resource amount cannot be negative".to_string())
        );
        assert_eq!(
            parse_amount("memory", "8Ei").map_err(|e| e.to_string()),
            Err("\"8Ei\" is out of range: too large for a 64-bit integer".to_string())
        );
    }

    #[test]
    fn formatting() {
        assert_eq!(format_cpu(58), "58m");
        assert_eq!(format_cpu(2000), "2");
        assert_eq!(format_cpu(1500), "1500m");
        assert_eq!(format_cpu(0), "0");
        assert_eq!(format_cpu(-42), "-42m");
        assert_eq!(format_bytes(512 * 1024 * 1024), "512 MiB");
        assert_eq!(format_bytes(1_610_612_736), "1.5 GiB");
        assert_eq!(format_bytes(1_971_236_864), "1.84 GiB");
        assert_eq!(format_bytes(999), "999 B");
        assert_eq!(format_bytes(1024), "1 KiB");
        assert_eq!(format_bytes(-200 * 1024 * 1024), "-200 MiB");
        assert_eq!(format_bytes(1_073_741_823), "1 GiB");
        assert_eq!(format_bytes(i64::MAX), "8 EiB");
        assert_eq!(format_amount("memory", 128_974_848), "123 MiB");
        assert_eq!(format_amount("cpu", 58), "58m");
        assert_eq!(format_amount("pods", 110), "110");
        assert_eq!(format_amount("hugepages-2Mi", 4 * 1024 * 1024), "4 MiB");
    }
}
