//! Summary statistics with `nsys stats`' rounding: one decimal, half away from zero; median of
//! the two middle values for an even count; sample standard deviation.

/// Count, total, mean, median, min, max and sample standard deviation of integer durations.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Number of values.
    pub count: u64,
    /// Their sum.
    pub total: i128,
    /// Smallest value.
    pub min: i64,
    /// Largest value.
    pub max: i64,
    /// Twice the median (an integer, so halves stay exact).
    pub median_x2: i128,
    /// Sample standard deviation (n − 1), 0 when n = 1.
    pub stddev: f64,
}

impl Summary {
    /// Summarizes `values` (sorted in place). `None` when empty.
    pub fn of(values: &mut [i64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        values.sort_unstable();
        let n = values.len();
        let total: i128 = values.iter().map(|&v| i128::from(v)).sum();
        let median_x2 = if n % 2 == 1 {
            2 * i128::from(values[n / 2])
        } else {
            i128::from(values[n / 2 - 1]) + i128::from(values[n / 2])
        };
        let stddev = if n > 1 {
            // Two-pass in f64 around the exact mean keeps the error far below 0.05.
            let mean = total as f64 / n as f64;
            let ss: f64 = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum();
            (ss / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Summary {
            count: n as u64,
            total,
            min: values[0],
            max: values[n - 1],
            median_x2,
            stddev,
        })
    }
}

/// `num / den` rounded half away from zero to `decimals` places, as text ("931.0").
pub fn fmt_ratio(num: i128, den: i128, decimals: u32) -> String {
    if den == 0 {
        return fmt_scaled(0, decimals);
    }
    let scale = 10i128.pow(decimals);
    let n = num * scale;
    let (n, d) = if den < 0 { (-n, -den) } else { (n, den) };
    let q = n.abs() / d;
    let r = n.abs() % d;
    let mut q = if 2 * r >= d { q + 1 } else { q };
    if n < 0 {
        q = -q;
    }
    fmt_scaled(q, decimals)
}

/// A float rounded to `decimals` places (half away from zero on its decimal expansion).
pub fn fmt_float(value: f64, decimals: u32) -> String {
    let scale = 10f64.powi(decimals as i32);
    let scaled = value * scale;
    let rounded = scaled.abs().round().copysign(scaled);
    if !rounded.is_finite() {
        return format!("{value}");
    }
    fmt_scaled(whole_i128(rounded), decimals)
}

/// A whole (finite) float as an `i128`, saturating past ±1.7e38 as `as` does.
#[expect(
    clippy::cast_possible_truncation,
    reason = "`rounded` is already whole: `as` keeps it exactly, or saturates past i128"
)]
fn whole_i128(rounded: f64) -> i128 {
    rounded as i128
}

/// `value / 10^decimals` as text with exactly `decimals` decimals.
fn fmt_scaled(value: i128, decimals: u32) -> String {
    let scale = 10i128.pow(decimals);
    let sign = if value < 0 { "-" } else { "" };
    let a = value.abs();
    if decimals == 0 {
        return format!("{sign}{a}");
    }
    format!(
        "{sign}{}.{:0width$}",
        a / scale,
        a % scale,
        width = decimals as usize
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(fmt_ratio(5, 4, 1), "1.3");
        assert_eq!(fmt_ratio(-5, 4, 1), "-1.3");
        assert_eq!(fmt_ratio(931, 1, 1), "931.0");
        assert_eq!(fmt_ratio(1, 3, 3), "0.333");
        assert_eq!(fmt_float(0.04999, 1), "0.0");
        assert_eq!(fmt_float(2.25, 1), "2.3");
    }

    #[test]
    fn summary_matches_definitions() {
        let s = Summary::of(&mut [3, 1, 2, 10]).unwrap_or_else(|| unreachable!());
        assert_eq!(
            (s.count, s.total, s.min, s.max, s.median_x2),
            (4, 16, 1, 10, 5)
        );
        assert_eq!(fmt_float(s.stddev, 1), "4.1");
        assert!(Summary::of(&mut []).is_none());
    }
}
