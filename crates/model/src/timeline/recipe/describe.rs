//! The statistics of NVIDIA's NVTX, NCCL and MPI summary recipes (`nvtx_sum`,
//! `nvtx_gpu_proj_sum`, `nccl_sum`, `nccl_gpu_proj_sum`, `mpi_sum`), learnt from their outputs
//! (`../shared/corpus/nsys/recipes/`, and the recipes run on exports cut to known values):
//!
//! - per file ("rank"), each group's durations as pandas' grouped `describe()` gives them, plus
//!   their sum: count, mean, the sample standard deviation by Welford's running update over
//!   the values in table order (its last digits differ from a two-pass formula's; missing for
//!   one value), min, the quartiles and median by linear interpolation between the two nearest
//!   sorted values, max;
//! - across files ("approx", from the per-file rows alone): counts and sums added, the mean
//!   their ratio, the standard deviation the plain mean of the files' deviations (those that
//!   have one), Q1 the smallest file Q1, the median the median of the files' medians, Q3 the
//!   largest file Q3, min and max of the files', every float rounded to one decimal.

use super::stats::round1;

/// One group's statistics in one file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Described {
    /// How many values.
    pub count: u64,
    /// Their mean.
    pub mean: f64,
    /// The sample standard deviation (`None` for a single value).
    pub std: Option<f64>,
    /// The smallest value.
    pub min: i64,
    /// The first quartile.
    pub q1: f64,
    /// The median.
    pub median: f64,
    /// The third quartile.
    pub q3: f64,
    /// The largest value.
    pub max: i64,
    /// The sum.
    pub sum: i64,
}

impl Described {
    /// The statistics of `values` in table order; `None` when empty.
    pub fn of(values: &[i64]) -> Option<Described> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        // Welford's update, as pandas' grouped `std` runs it.
        let (mut mean, mut ssqdm) = (0.0_f64, 0.0_f64);
        for (k, &v) in values.iter().enumerate() {
            let x = v as f64;
            let old = mean;
            mean += (x - old) / (k + 1) as f64;
            ssqdm += (x - mean) * (x - old);
        }
        let std = (n > 1).then(|| (ssqdm / (n - 1) as f64).sqrt());
        let sum: i128 = values.iter().map(|&v| i128::from(v)).sum();
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        Some(Described {
            count: n as u64,
            mean: sum as f64 / n as f64,
            std,
            min: sorted[0],
            q1: quantile(&sorted, 1),
            median: quantile(&sorted, 2),
            q3: quantile(&sorted, 3),
            max: sorted[n - 1],
            sum: i64::try_from(sum).unwrap_or(i64::MAX),
        })
    }
}

/// The `quarters`/4 quantile of sorted, non-empty `values` by linear interpolation between
/// the two nearest (pandas' default): at position `(n − 1)·p`.
pub fn quantile(values: &[i64], quarters: usize) -> f64 {
    let h4 = (values.len() - 1) * quarters;
    let (lo, frac) = (h4 / 4, (h4 % 4) as f64 / 4.0);
    let below = values[lo] as f64;
    let above = values[(lo + 1).min(values.len() - 1)] as f64;
    below + (above - below) * frac
}

/// One group's statistics across files, from the files' rows, rounded as the recipe rounds
/// them (one decimal).
#[derive(Debug, Clone, PartialEq)]
pub struct Approx {
    /// Values in all files.
    pub count: u64,
    /// The mean of them all.
    pub mean: f64,
    /// The mean of the files' standard deviations (`None` when no file has one).
    pub std: Option<f64>,
    /// The smallest value.
    pub min: i64,
    /// The smallest file Q1.
    pub q1: f64,
    /// The median of the files' medians.
    pub median: f64,
    /// The largest file Q3.
    pub q3: f64,
    /// The largest value.
    pub max: i64,
    /// The sum.
    pub sum: i64,
}

impl Approx {
    /// Combines one group's rows of the files that have it, in file order; `None` when empty.
    pub fn of(rows: &[&Described]) -> Option<Approx> {
        let first = rows.first()?;
        let count: u64 = rows.iter().map(|r| r.count).sum();
        let sum = rows.iter().fold(0_i64, |s, r| s.saturating_add(r.sum));
        let stds: Vec<f64> = rows.iter().filter_map(|r| r.std).collect();
        let std = (!stds.is_empty()).then(|| stds.iter().sum::<f64>() / stds.len() as f64);
        let mut medians: Vec<f64> = rows.iter().map(|r| r.median).collect();
        medians.sort_by(f64::total_cmp);
        let m = medians.len();
        let median = if m % 2 == 1 {
            medians[m / 2]
        } else {
            (medians[m / 2 - 1] + medians[m / 2]) / 2.0
        };
        let fold = |init: f64, pick: fn(&Described) -> f64, f: fn(f64, f64) -> f64| {
            rows.iter().map(|r| pick(r)).fold(init, f)
        };
        Some(Approx {
            count,
            mean: round1(sum as f64 / count as f64),
            std: std.map(round1),
            min: rows.iter().map(|r| r.min).min().unwrap_or(first.min),
            q1: round1(fold(f64::INFINITY, |r| r.q1, f64::min)),
            median: round1(median),
            q3: round1(fold(f64::NEG_INFINITY, |r| r.q3, f64::max)),
            max: rows.iter().map(|r| r.max).max().unwrap_or(first.max),
            sum,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The durations of "Inner Level 71" in caoye310_la_nsys23 (rowid order) and what the
    /// recipe's rank_stats.csv says of them.
    #[test]
    fn a_group_is_described_as_pandas_describes_it() {
        let d = Described::of(&[21_944, 15_833, 16_115]).unwrap();
        assert_eq!(d.count, 3);
        assert_eq!(d.mean, 17964.0);
        assert_eq!(d.std, Some(3449.663896671674));
        assert_eq!(
            (d.min, d.q1, d.median, d.q3, d.max),
            (15_833, 15974.0, 16115.0, 19029.5, 21_944)
        );
        assert_eq!(d.sum, 53_892);
        let one = Described::of(&[5]).unwrap();
        assert_eq!((one.std, one.q1, one.q3), (None, 5.0, 5.0));
        assert!(Described::of(&[]).is_none());
    }

    #[test]
    fn quartiles_interpolate_between_the_nearest_values() {
        // 4 values: h = 0.75 and 2.25.
        assert_eq!(quantile(&[1, 2, 3, 4], 1), 1.75);
        assert_eq!(quantile(&[1, 2, 3, 4], 3), 3.25);
        assert_eq!(quantile(&[10, 20], 2), 15.0);
    }

    /// A recipe run on three cuts of one export ("A-Task 0": 9, 12 and 1 values).
    #[test]
    fn files_combine_as_the_recipe_combines_them() {
        let d = |count, mean, std, min, q1, median, q3, max, sum| Described {
            count,
            mean,
            std,
            min,
            q1,
            median,
            q3,
            max,
            sum,
        };
        let a = d(
            9,
            8547252.333333334,
            Some(18368327.514227398),
            2_301_349,
            2382324.0,
            2449472.0,
            2479708.0,
            57_529_133,
            76_925_271,
        );
        let b = d(
            12,
            2331083.5,
            Some(175407.14385187614),
            1_808_345,
            2314496.0,
            2357980.0,
            2412384.5,
            2_479_708,
            27_973_002,
        );
        let c = d(
            1, 57529133.0, None, 57_529_133, 57529133.0, 57529133.0, 57529133.0, 57_529_133,
            57_529_133,
        );
        let all = Approx::of(&[&a, &b, &c]).unwrap();
        assert_eq!(all.count, 22);
        assert_eq!(all.mean, 7383063.9);
        assert_eq!(all.std, Some(9271867.3));
        assert_eq!(
            (all.min, all.q1, all.median, all.q3, all.max),
            (1_808_345, 2314496.0, 2449472.0, 57529133.0, 57_529_133)
        );
        assert_eq!(all.sum, 162_427_406);
        let two = Approx::of(&[&a, &b]).unwrap();
        assert_eq!((two.median, two.q3), (2403726.0, 2479708.0));
        assert_eq!(Approx::of(&[&c, &c]).unwrap().std, None);
    }
}
