//! Sightline's one formatter of numbers for display: metric values like the Details page of
//! Nsight Compute ([`format_value`], [`format_with_unit`], [`group_thousands`]) and durations
//! ([`DurationFormat`], for the kernel list, the timeline and the summaries).
//!
//! [`format_value`] turns a [`MetricValue`] and its unit (spelled as NVIDIA's reader spells
//! it, see [`crate::ncu::infer_unit`]) into a display text and a display unit: the value is first
//! multiplied by the optional section `Multiplier`, then scaled into the largest unit step it
//! reaches (steps are powers of 1000, as in Nsight Compute), then printed with thousands
//! separators.
//!
//! # Unit steps
//!
//! | unit                | display steps (powers of 1000)                                |
//! |---------------------|---------------------------------------------------------------|
//! | `ns` (`us` `ms` `s`) | `nsecond`, `usecond`, `msecond`, `second`                    |
//! | `byte` (`Kbyte` …)  | `byte`, `Kbyte`, `Mbyte`, `Gbyte`, `Tbyte`, `Pbyte`           |
//! | `hz` (`Khz` …)      | `hz`, `Khz`, `Mhz`, `Ghz`, `Thz`                              |
//! | `byte/s`            | `byte/second`, `Kbyte/second`, … `Tbyte/second`               |
//! | `U/s` (other `U`)   | `U/second`, `KU/second`, `MU/second`, `GU/second`, `TU/second` |
//! | `%`, `%/U`          | not scaled; always two decimals                               |
//! | anything else       | not scaled: `inst`, `cycle`, `sector`, `warp`, `inst/cycle`, … |
//!
//! A composite unit `N/D` scales by its numerator and keeps its denominator (`byte/block` →
//! `Kbyte/block`, `ns/inst` → `usecond/inst`); time denominators are spelled out (`s` →
//! `second`, `ns` → `nsecond`, `us` → `usecond`, `ms` → `msecond`). Units that already carry
//! a step (`Kbyte`, `ms`) are converted to the base unit first, so values can also move down
//! (`0.002 ms` → `2.00 usecond`). A step is taken when the value reaches it (`999 ns` stays
//! `999 nsecond`, `1,000 ns` is `1.00 usecond`), or when the value would print as `1,000.00`
//! of the smaller step after rounding (`999.999 ns` is `1.00 usecond`).
//!
//! # Numbers
//!
//! - Integer kinds that stay in their base unit (no family, or below the family's first step)
//!   print exactly, with thousands separators (`18,446,744,073,709,551,615`, `999 nsecond`).
//! - Floating-point values that stay in their base unit and have no fractional part print
//!   like integers (`256`, `2,345`), as Nsight Compute prints `Block Size` or `Elapsed Cycles`.
//! - Other floating-point values and every value moved to a larger step print with two decimals
//!   (`3,431.67`, `1.00 usecond`); below 1 they keep three significant digits, with at least
//!   two decimals (`0.50`, `0.0234`, `0.000123`); below `1e-9`, and at or above `1e15`
//!   without scaling, they print in scientific notation (`1.50e-12`).
//! - Percentages always print with two decimals (`100.00`, `16.71`).
//! - `NaN`, `inf` and `-inf` print as such; `-0` prints as `0`.
//! - Strings print unchanged with no unit; a missing value prints `N/A` with no unit.
//! - A multiplier is applied first. An integer value times an integral, non-negative
//!   multiplier stays an exact integer when it fits; otherwise the product is a double.

use crate::core::num::{exact_u64, saturating_i32};
use crate::ncu::MetricValue;

/// A formatted value: the display text of the (scaled) value and the (scaled) unit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Formatted {
    /// The value text, e.g. `12.34` or `1,234,567`.
    pub text: String,
    /// The display unit, e.g. `usecond`, `Gbyte/second`; empty for none.
    pub unit: String,
}

/// Formats `value` with its `unit` for display (see the module doc), after multiplying it by
/// `multiplier` when given.
pub fn format_value(value: &MetricValue, unit: &str, multiplier: Option<f64>) -> Formatted {
    let number = match value {
        MetricValue::None => return plain("N/A"),
        MetricValue::String(s) => return plain(s),
        MetricValue::Uint32(v) => Number::Int(u64::from(*v)),
        MetricValue::Uint64(v) => Number::Int(*v),
        MetricValue::Float(v) => Number::Float(f64::from(*v)),
        MetricValue::Double(v) => Number::Float(*v),
    };
    let number = match multiplier {
        None => number,
        Some(m) => number.times(m),
    };
    let unit = unit.trim();
    let (numerator, denominator) = match unit.split_once('/') {
        Some((n, d)) => (n, Some(d)),
        None => (unit, None),
    };
    let unscaled_unit = || match denominator {
        Some(d) => format!("{numerator}/{}", spell_denominator(d)),
        None => numerator.to_owned(),
    };
    if numerator == "%" {
        return Formatted {
            text: match number {
                Number::Int(v) => format_fixed(v as f64, 2),
                Number::Float(v) => format_fixed(v, 2),
            },
            unit: unscaled_unit(),
        };
    }
    let Some(scale) = Scale::of(numerator, denominator) else {
        return Formatted {
            text: number.unscaled_text(),
            unit: unscaled_unit(),
        };
    };
    let base = match number {
        Number::Int(v) if scale.start == 0 => {
            if v < 1000 {
                return Formatted {
                    text: group_thousands(&v.to_string()),
                    unit: scale.unit(0),
                };
            }
            v as f64
        }
        Number::Int(v) => v as f64 * 1000f64.powi(saturating_i32(scale.start)),
        Number::Float(v) => v * 1000f64.powi(saturating_i32(scale.start)),
    };
    if !base.is_finite() {
        return Formatted {
            text: non_finite(base),
            unit: scale.unit(scale.start),
        };
    }
    let mut step = 0;
    while step + 1 < scale.steps && base.abs() >= 1000f64.powi(saturating_i32(step + 1)) {
        step += 1;
    }
    let mut scaled = base / 1000f64.powi(saturating_i32(step));
    if step + 1 < scale.steps && format!("{:.2}", scaled.abs()).starts_with("1000.") {
        step += 1;
        scaled = base / 1000f64.powi(saturating_i32(step));
    }
    let text = if step == 0 && scaled.fract() == 0.0 && scaled.abs() < 1e15 {
        format_integral(scaled)
    } else {
        format_decimal(scaled)
    };
    Formatted {
        text,
        unit: scale.unit(step),
    }
}

/// Formats `value` and its unit as one string: `12.34 usecond`, `1,024`, `N/A`.
pub fn format_with_unit(value: &MetricValue, unit: &str, multiplier: Option<f64>) -> String {
    let formatted = format_value(value, unit, multiplier);
    if formatted.unit.is_empty() {
        formatted.text
    } else {
        format!("{} {}", formatted.text, formatted.unit)
    }
}

/// The decimal digits of `v`, written at the end of `buf` (for writers that skip the
/// formatting machinery in their hot loop).
pub fn u64_digits(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[at..]
}

/// Inserts `,` between groups of three digits: `1234567` → `1,234,567`. A leading `-` or `+`
/// is kept; text that is not a run of ASCII digits is returned unchanged.
pub fn group_thousands(integer_digits: &str) -> String {
    let (sign, digits) = match integer_digits.strip_prefix(['-', '+']) {
        Some(rest) => integer_digits.split_at(integer_digits.len() - rest.len()),
        None => ("", integer_digits),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return integer_digits.to_owned();
    }
    let mut out = String::with_capacity(sign.len() + digits.len() + digits.len() / 3);
    out.push_str(sign);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A Unix time as a UTC civil date and time of day: `(year, month 1..=12, day 1..=31,
/// seconds into the day)`, by Howard Hinnant's `civil_from_days` (proleptic Gregorian calendar,
/// any year).
pub fn civil_utc(unix_seconds: i64) -> (i64, i64, i64, i64) {
    let days = unix_seconds.div_euclid(86_400);
    let seconds = unix_seconds.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, seconds)
}

fn plain(text: &str) -> Formatted {
    Formatted {
        text: text.to_owned(),
        unit: String::new(),
    }
}

#[derive(Debug, Clone, Copy)]
enum Number {
    Int(u64),
    Float(f64),
}

impl Number {
    fn times(self, m: f64) -> Number {
        // Integral multipliers in `0..2^64` convert to `u64` exactly.
        match (self, exact_u64(m)) {
            (Number::Int(v), Some(whole)) => match v.checked_mul(whole) {
                Some(product) => Number::Int(product),
                None => Number::Float(v as f64 * m),
            },
            (Number::Int(v), None) => Number::Float(v as f64 * m),
            (Number::Float(v), _) => Number::Float(v * m),
        }
    }

    fn unscaled_text(self) -> String {
        match self {
            Number::Int(v) => group_thousands(&v.to_string()),
            Number::Float(v) if !v.is_finite() => non_finite(v),
            Number::Float(v) if v.fract() == 0.0 && v.abs() < 1e15 => format_integral(v),
            Number::Float(v) => format_decimal(v),
        }
    }
}

/// A unit family that scales in steps of 1000.
struct Scale {
    /// Step names; `{}` in `pattern` is replaced by the step name.
    names: &'static [&'static str],
    /// The number of steps.
    steps: usize,
    /// The step of the input unit.
    start: usize,
    /// The display unit around the step name, e.g. `{}/second`.
    pattern: String,
}

impl Scale {
    fn of(numerator: &str, denominator: Option<&str>) -> Option<Scale> {
        const TIME: &[&str] = &["nsecond", "usecond", "msecond", "second"];
        const TIME_INPUT: &[&[&str]] = &[
            &["ns", "nsecond"],
            &["us", "usecond"],
            &["ms", "msecond"],
            &["s", "second"],
        ];
        const BYTE: &[&str] = &["byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte"];
        const HZ: &[&str] = &["hz", "Khz", "Mhz", "Ghz", "Thz"];
        const HZ_INPUT: &[&[&str]] = &[
            &["hz", "Hz"],
            &["Khz", "kHz", "KHz"],
            &["Mhz", "MHz"],
            &["Ghz", "GHz"],
            &["Thz", "THz"],
        ];
        const PREFIX: &[&str] = &["", "K", "M", "G", "T"];

        let rest = match denominator {
            None => String::new(),
            Some(d) => format!("/{}", spell_denominator(d)),
        };
        let family = |names: &'static [&'static str], start: usize| Scale {
            names,
            steps: names.len(),
            start,
            pattern: format!("{{}}{rest}"),
        };
        if let Some(start) = TIME_INPUT.iter().position(|s| s.contains(&numerator)) {
            return Some(family(TIME, start));
        }
        if let Some(start) = BYTE.iter().position(|s| *s == numerator) {
            return Some(family(BYTE, start));
        }
        if let Some(start) = HZ_INPUT.iter().position(|s| s.contains(&numerator)) {
            return Some(family(HZ, start));
        }
        let is_rate = matches!(denominator, Some("s" | "second"));
        if is_rate && !numerator.is_empty() && !numerator.contains('%') {
            return Some(Scale {
                names: PREFIX,
                steps: PREFIX.len(),
                start: 0,
                pattern: format!("{{}}{numerator}/second"),
            });
        }
        None
    }

    fn unit(&self, step: usize) -> String {
        let name = self.names.get(step).copied().unwrap_or_default();
        self.pattern.replacen("{}", name, 1)
    }
}

fn spell_denominator(denominator: &str) -> &str {
    match denominator {
        "s" => "second",
        "ns" => "nsecond",
        "us" => "usecond",
        "ms" => "msecond",
        other => other,
    }
}

fn non_finite(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v > 0.0 {
        "inf".to_owned()
    } else {
        "-inf".to_owned()
    }
}

/// An integral double (`|v| < 1e15`) with separators.
fn format_integral(v: f64) -> String {
    let text = format!("{:.0}", v.abs());
    if v < 0.0 {
        format!("-{}", group_thousands(&text))
    } else {
        group_thousands(&text)
    }
}

/// Two decimals at or above 1, three significant digits (at least two decimals) below 1,
/// scientific notation for the extremes.
fn format_decimal(v: f64) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    let magnitude = v.abs();
    if magnitude == 0.0 {
        return "0".to_owned();
    }
    if !(1e-9..1e15).contains(&magnitude) {
        return format!("{v:.2e}");
    }
    if magnitude >= 1.0 {
        return format_fixed(v, 2);
    }
    // Exponent of the value rounded to three significant digits.
    let exponent: i32 = format!("{magnitude:.2e}")
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let decimals = (2 - exponent).clamp(2, 12) as usize;
    let mut text = format_fixed(v, decimals);
    // Trim zeros beyond the second decimal: 0.500 → 0.50.
    if let Some(dot) = text.find('.') {
        let keep = dot + 3;
        while text.len() > keep && text.ends_with('0') {
            text.pop();
        }
    }
    text
}

/// `v` with exactly `decimals` decimals and separators in the integer part.
fn format_fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    let text = format!("{:.*}", decimals, v.abs());
    let (integer, fraction) = match text.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (text.as_str(), None),
    };
    let negative = v < 0.0 && text.bytes().any(|b| matches!(b, b'1'..=b'9'));
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(&group_thousands(integer));
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(fraction);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u64_digits_of_the_extremes() {
        let mut buf = [0u8; 20];
        assert_eq!(u64_digits(0, &mut buf), b"0");
        assert_eq!(u64_digits(1_000_007, &mut buf), b"1000007");
        assert_eq!(u64_digits(u64::MAX, &mut buf), b"18446744073709551615");
    }

    #[test]
    fn decimal_precision() {
        assert_eq!(format_decimal(0.5), "0.50");
        assert_eq!(format_decimal(0.0234), "0.0234");
        assert_eq!(format_decimal(0.000123), "0.000123");
        assert_eq!(format_decimal(0.9996), "1.00");
        assert_eq!(format_decimal(-0.1), "-0.10");
        assert_eq!(format_decimal(1.5e-12), "1.50e-12");
        assert_eq!(format_decimal(3431.666), "3,431.67");
        assert_eq!(format_decimal(-0.0), "0");
    }

    #[test]
    fn fixed_never_prints_negative_zero() {
        assert_eq!(format_fixed(-0.001, 2), "0.00");
        assert_eq!(format_fixed(-1234.5, 2), "-1,234.50");
    }
}

/// How a duration in nanoseconds is written: the largest unit it reaches (ns, µs, ms, and s when
/// [`DurationFormat::seconds`]) with a fixed number of decimals (none for ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DurationFormat {
    /// Decimals in µs, ms and s.
    pub decimals: usize,
    /// The spelling of microseconds: `µs` on screen, `us` in plain-ASCII text output.
    pub micro: &'static str,
    /// Whether durations of a second or more are written in seconds (else in ms).
    pub seconds: bool,
}

impl DurationFormat {
    /// Lists and tables: `1.23 ms`, `456.00 µs`, `789 ns`.
    pub const LIST: DurationFormat = DurationFormat {
        decimals: 2,
        micro: "µs",
        seconds: false,
    };
    /// Plain-ASCII text output (`sightline summary`): `1.23 ms`, `456.00 us`.
    pub const ASCII: DurationFormat = DurationFormat {
        decimals: 2,
        micro: "us",
        seconds: false,
    };
    /// The timeline (durations of any size): `2.500 s`, `1.234 ms`, `789 ns`.
    pub const TIMELINE: DurationFormat = DurationFormat {
        decimals: 3,
        micro: "µs",
        seconds: true,
    };

    /// `ns` written in this format.
    pub fn format(&self, ns: f64) -> String {
        let magnitude = ns.abs();
        let (scale, unit) = if self.seconds && magnitude >= 1e9 {
            (1e9, "s")
        } else if magnitude >= 1e6 {
            (1e6, "ms")
        } else if magnitude >= 1e3 {
            (1e3, self.micro)
        } else {
            return format!("{ns:.0} ns");
        };
        format!("{:.*} {unit}", self.decimals, ns / scale)
    }
}
