//! The statistics of NVIDIA's summary recipes (`cuda_gpu_kern_sum`, `cuda_api_sum`,
//! `osrt_sum`, `cuda_gpu_mem_time_sum`, `cuda_gpu_mem_size_sum` of `nsys recipe`), learnt from
//! their outputs over the corpus exports (`../shared/corpus/nsys/recipes/`):
//!
//! - per rank (file), each group's count, total, mean, min, max, sample standard deviation and
//!   median as `nsys stats` gives them, and quartiles Q1/Q3 of type 2 (the `⌈n·p⌉`-th value,
//!   the mean of two when `n·p` is whole: n = 3 gives the smallest and the largest, n = 4 the
//!   means of the two smallest and of the two largest, n = 921 the 231st and the 691st);
//! - across ranks ("approx", from the per-rank rows alone): counts and totals summed, the mean
//!   of the sum, min and max of the ranks', Q1 the smallest rank Q1, Q3 the largest rank Q3,
//!   the median the median of the ranks' medians, the standard deviation pooled from the ranks'
//!   counts and their means and deviations as the rank table rounds them; the files holding
//!   the minimum and the maximum.

use crate::timeline::summary::{Summary, fmt_float, fmt_ratio};

/// One group's statistics in one file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankStats {
    /// The group (kernel or function name, memory operation).
    pub name: String,
    /// `nsys stats`' summary of its values.
    pub summary: Summary,
    /// Twice Q1 and twice Q3 (integers, so halves stay exact).
    pub q1_x2: i128,
    /// See `q1_x2`.
    pub q3_x2: i128,
    /// The sample standard deviation as the size recipe prints it ([`size_std`]).
    pub size_stddev: f64,
    /// Whether Q1 (Q3, the median) is the mean of two different values: the recipe's table
    /// then holds that column as floats (`912.0`), else as integers (`640`), for every row
    /// (the size recipe's median too; the time recipes take theirs from `nsys stats`).
    pub between: [bool; 3],
}

impl RankStats {
    /// The statistics of `values` (sorted in place); `None` when empty.
    pub fn of(name: String, values: &mut [i64]) -> Option<RankStats> {
        let size_stddev = size_std(values);
        let summary = Summary::of(values)?;
        let (q1_x2, q1_between) = quantile_x2(values, 1, 4);
        let (q3_x2, q3_between) = quantile_x2(values, 3, 4);
        let n = values.len();
        let median_between = n.is_multiple_of(2) && values[n / 2 - 1] != values[n / 2];
        Some(RankStats {
            name,
            summary,
            size_stddev,
            q1_x2,
            q3_x2,
            between: [q1_between, q3_between, median_between],
        })
    }

    /// The mean as the rank table prints it (`nsys stats`' rounding: one decimal, halves up).
    pub fn mean_text(&self) -> String {
        fmt_ratio(self.summary.total, i128::from(self.summary.count), 1)
    }

    /// The standard deviation as the rank table prints it.
    pub fn stddev_text(&self) -> String {
        fmt_float(self.summary.stddev, 1)
    }
}

/// Twice the `num/den` quantile of sorted, non-empty `values` by the averaged inverse of the
/// empirical distribution (Hyndman and Fan's type 2): with `k = n·p`, the `k`-th value (1-based)
/// rounded up when `k` is not whole, the mean of the `k`-th and the next when it is; and
/// whether those two differ.
fn quantile_x2(values: &[i64], num: usize, den: usize) -> (i128, bool) {
    let n = values.len();
    let at = |i: usize| i128::from(values[i.min(n - 1)]);
    let k = n * num;
    if k.is_multiple_of(den) {
        let k = k / den;
        // k ≥ 1 for n ≥ 1 and p > 0; the k-th value is at index k - 1.
        (at(k - 1) + at(k), at(k - 1) != at(k))
    } else {
        (2 * at(k / den), false)
    }
}

/// One group's statistics across files.
#[derive(Debug, Clone, PartialEq)]
pub struct AllStats {
    /// The group.
    pub name: String,
    /// Values in all files.
    pub count: u64,
    /// Their sum.
    pub total: i128,
    /// Twice the smallest rank Q1.
    pub q1_x2: i128,
    /// The median of the ranks' medians.
    pub median: f64,
    /// Twice the largest rank Q3.
    pub q3_x2: i128,
    /// The smallest value.
    pub min: i64,
    /// The largest value.
    pub max: i64,
    /// The pooled sample standard deviation.
    pub stddev: f64,
    /// The files (indices into the inputs) holding the minimum, in input order.
    pub min_files: Vec<usize>,
    /// The files holding the maximum.
    pub max_files: Vec<usize>,
}

impl AllStats {
    /// Combines the rows of one group, `(file index, row)`, in input order; `None` when empty.
    pub fn combine(rows: &[(usize, &RankStats)]) -> Option<AllStats> {
        let (_, first) = rows.first()?;
        let count: u64 = rows.iter().map(|(_, r)| r.summary.count).sum();
        let total: i128 = rows.iter().map(|(_, r)| r.summary.total).sum();
        let min = rows.iter().map(|(_, r)| r.summary.min).min()?;
        let max = rows.iter().map(|(_, r)| r.summary.max).max()?;
        let half = |x2: i128| x2 as f64 / 2.0;
        let q1_x2 = rows.iter().map(|(_, r)| r.q1_x2).min()?;
        let q3_x2 = rows.iter().map(|(_, r)| r.q3_x2).max()?;
        let mut medians: Vec<i128> = rows.iter().map(|(_, r)| r.summary.median_x2).collect();
        medians.sort_unstable();
        let m = medians.len();
        // The median of the ranks' medians (each a whole or half number: exact in f64).
        let median = (half(medians[(m - 1) / 2]) + half(medians[m / 2])) / 2.0;
        let mean = total as f64 / count as f64;
        // Within-rank sums of squares plus the ranks' distances from the pooled mean, from the
        // ranks' means and deviations as the rank table rounds them (NVIDIA combines the
        // rounded table: exact values give 2306591.9 where it prints 2306591.8).
        let ss: f64 = rows
            .iter()
            .map(|(_, r)| {
                let n = r.summary.count as f64;
                let m: f64 = r.mean_text().parse().unwrap_or(0.0);
                let sd: f64 = r.stddev_text().parse().unwrap_or(0.0);
                (n - 1.0) * sd.powi(2) + n * (m - mean).powi(2)
            })
            .sum();
        let stddev = if count > 1 {
            (ss / (count - 1) as f64).sqrt()
        } else {
            0.0
        };
        let files_with = |v: i64, pick: fn(&Summary) -> i64| {
            rows.iter()
                .filter(|(_, r)| pick(&r.summary) == v)
                .map(|(f, _)| *f)
                .collect()
        };
        Some(AllStats {
            name: first.name.clone(),
            count,
            total,
            q1_x2,
            median,
            q3_x2,
            min,
            max,
            stddev,
            min_files: files_with(min, |s| s.min),
            max_files: files_with(max, |s| s.max),
        })
    }
}

/// The sample standard deviation of `values` as the size recipe prints it (unrounded, so the
/// formula shows in the last digits): `sqrt((n·Σx² − (Σx)²) / (n·(n − 1)))`, the numerator
/// exact (pandas' own `std()` gives 1210726.608501413 where the recipe prints
/// 1210726.6085014127 for 112, 2097152, 2097152). On larger groups the recipe's last digits
/// still differ (its summation order is not known): equal to about 15 significant digits.
pub fn size_std(values: &[i64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return if n == 1 { 0.0 } else { f64::NAN };
    }
    let s: i128 = values.iter().map(|&v| i128::from(v)).sum();
    let q: i128 = values.iter().map(|&v| i128::from(v) * i128::from(v)).sum();
    let n = n as i128;
    ((n * q - s * s) as f64 / (n * (n - 1)) as f64).sqrt()
}

/// `x` rounded to one decimal as pandas' `round(1)` does (half to even on `x * 10`).
pub fn round1(x: f64) -> f64 {
    (x * 10.0).round_ties_even() / 10.0
}

/// `x` as Python prints a float (`45887.0`, `268797.4`).
pub fn py_float(x: f64) -> String {
    let text = format!("{x}");
    if text.contains(['.', 'e', 'N', 'i']) {
        text
    } else {
        format!("{text}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(values: &[i64]) -> (f64, f64) {
        let r = RankStats::of("k".into(), &mut values.to_vec()).unwrap();
        (r.q1_x2 as f64 / 2.0, r.q3_x2 as f64 / 2.0)
    }

    /// Quartiles of the corpus rows (recipes/all, rank_stats.csv) whose values were read back
    /// from the exports with sqlite3.
    #[test]
    fn quartiles_are_the_medians_of_the_halves() {
        // 0x822a5b87_test-cuda_report1: add_parallel (4), cudaHostAlloc (3), HtoD copies (8).
        assert_eq!(
            q(&[133_752, 134_200, 134_263, 134_327]),
            (133_976.0, 134_295.0)
        );
        assert_eq!(
            q(&[179_916_130, 181_018_734, 341_005_517]),
            (179_916_130.0, 341_005_517.0)
        );
        let copies = [
            7_661_204, 7_661_300, 7_661_524, 7_663_668, 7_664_724, 7_666_516, 7_668_372, 7_675_379,
        ];
        assert_eq!(q(&copies), (7_661_412.0, 7_667_444.0));
        assert_eq!(q(&[5]), (5.0, 5.0));
        assert_eq!(q(&[412_387, 412_099]), (412_099.0, 412_387.0));
    }

    /// Whether a quartile averages two different values (the recipe's column is then of
    /// floats): 4 distinct values yes, 8 equal sizes no, 3 values never.
    #[test]
    fn quartiles_say_when_they_fall_between_two_values() {
        let between = |v: &[i64]| RankStats::of("k".into(), &mut v.to_vec()).unwrap().between;
        assert_eq!(
            between(&[133_752, 134_200, 134_263, 134_327]),
            [true, true, true]
        );
        assert_eq!(between(&[100_000_000; 8]), [false, false, false]);
        assert_eq!(between(&[1, 2, 3]), [false, false, false]);
        assert_eq!(
            between(&[600, 640, 640, 912, 913, 990, 1000, 1000]),
            [false, true, true]
        );
    }

    #[test]
    fn floats_print_as_python_prints_them() {
        assert_eq!(py_float(round1(573_947.75)), "573947.8");
        assert_eq!(py_float(round1(0.25)), "0.2");
        assert_eq!(py_float(45_887.0), "45887.0");
        assert_eq!(py_float(round1(268_797.428_571)), "268797.4");
    }
}
