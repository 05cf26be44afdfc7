//! The frontend's statistics with its exact float operations (FORMATS.md §5): lifetimes in µs,
//! numpy's pairwise sum, mean, median and linear percentiles, per-kernel frequencies and
//! utilizations (the `.sim.csv` row), and the JSON report's projections.

use super::kernel::{KernelResult, Lifetime};
use super::params::Params;
use crate::core::num::{float_to_u64, saturating_usize};

/// A lifetime in µs: `cycles × p / 1000` with `p = 1000 / clock_mhz`.
pub fn lifetime_us(cycles: u64, ns_per_cycle: f64) -> f64 {
    cycles as f64 * ns_per_cycle / 1000.0
}

/// A lifetime in ns (the lifetime CSV's column): `cycles × p`.
pub fn lifetime_ns(cycles: u64, ns_per_cycle: f64) -> f64 {
    cycles as f64 * ns_per_cycle
}

/// Refreshes one lifetime needs: `floor(lifetime_us / retention_us)`.
pub fn refreshes_of(cycles: u64, ns_per_cycle: f64, retention_us: f64) -> u64 {
    float_to_u64((lifetime_us(cycles, ns_per_cycle) / retention_us).floor())
}

/// numpy's pairwise summation of float64 (`np.sum`, `np.mean`): blocks of at most 128 summed
/// with eight accumulators, larger arrays split in halves at a multiple of 8.
pub fn pairwise_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        let mut res = 0.0;
        for &v in values {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += values[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += values[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&values[..n2]) + pairwise_sum(&values[n2..])
    }
}

/// numpy's mean (pairwise sum / n); `None` when empty.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| pairwise_sum(values) / values.len() as f64)
}

/// numpy's `percentile(values, q)` with linear interpolation, on ascending `sorted` values.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let virtual_index = (n - 1) as f64 * (q / 100.0);
    let below = virtual_index.floor();
    let gamma = virtual_index - below;
    let lo = saturating_usize(float_to_u64(below)).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let (a, b) = (sorted[lo], sorted[hi]);
    let diff = b - a;
    Some(if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    })
}

/// numpy's median on ascending `sorted` values: the middle one, or the mean of the two middle.
pub fn median_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    })
}

/// Mean, median, 90th percentile and max of one level's lifetimes (µs); `None`: no lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LifetimeStats {
    /// Mean (pairwise sum in the lifetime CSV's order).
    pub mean: Option<f64>,
    /// Median.
    pub median: Option<f64>,
    /// 90th percentile, linear.
    pub p90: Option<f64>,
    /// Maximum.
    pub max: Option<f64>,
}

/// Statistics of lifetimes in the lifetime CSV's order: taken over the lifetimes in cycles, each
/// statistic then converted `× p / 1000` to µs. (Taken over per-lifetime µs values, the seed's
/// median would be 3.493736017897092, not its 3.4937360178970915.)
pub fn lifetime_stats(lifetimes: &[Lifetime], ns_per_cycle: f64) -> LifetimeStats {
    let values: Vec<f64> = lifetimes.iter().map(|l| l.cycles as f64).collect();
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    let us = |cycles: Option<f64>| cycles.map(|c| c * ns_per_cycle / 1000.0);
    LifetimeStats {
        mean: us(mean(&values)),
        median: us(median_sorted(&sorted)),
        p90: us(percentile_sorted(&sorted, 90.0)),
        max: us(sorted.last().copied()),
    }
}

/// One row of `NAME.sim.csv`; `None` values are written as `0` (an empty statistic).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KernelRow {
    /// Kernel ID.
    pub kernel_id: u64,
    /// Mangled Names.
    pub name: String,
    /// L1 lifetime statistics (µs).
    pub l1: LifetimeStats,
    /// L2 lifetime statistics (µs).
    pub l2: LifetimeStats,
    /// L1 Read Frequency (accesses per µs).
    pub l1_read_frequency: Option<f64>,
    /// L1 Write Frequency.
    pub l1_write_frequency: Option<f64>,
    /// L2 Read Frequency.
    pub l2_read_frequency: Option<f64>,
    /// L2 Write Frequency.
    pub l2_write_frequency: Option<f64>,
    /// L1 Utilization.
    pub l1_utilization: Option<f64>,
    /// L1 Size (bytes).
    pub l1_size: u64,
    /// L1 Unique Addresses.
    pub l1_unique: u64,
    /// L2 Utilization.
    pub l2_utilization: Option<f64>,
    /// L2 Size (bytes).
    pub l2_size: u64,
    /// L2 Unique Addresses.
    pub l2_unique: u64,
    /// Total Read Frequency (accesses per ns).
    pub total_read_frequency: Option<f64>,
    /// Total Write Frequency (accesses per ns).
    pub total_write_frequency: Option<f64>,
    /// Total Cycles (the kernel's `gpu_sim_cycle`).
    pub total_cycles: u64,
}

/// The kernel's cycles T: `gpu_sim_cycle`, else its last access cycle.
pub fn kernel_cycles(kernel: &KernelResult) -> u64 {
    kernel.end.sim_cycle.unwrap_or(kernel.last_cycle)
}

/// `n / (T × p) × 1000` (accesses per µs); `None` when T is 0.
pub fn level_frequency(n: u64, cycles: u64, ns_per_cycle: f64) -> Option<f64> {
    (cycles > 0).then(|| n as f64 / (cycles as f64 * ns_per_cycle) * 1000.0)
}

/// `(n_L1 + n_L2) / (T × p)` (accesses per ns); `None` when T is 0.
pub fn total_frequency(n: u64, cycles: u64, ns_per_cycle: f64) -> Option<f64> {
    (cycles > 0).then(|| n as f64 / (cycles as f64 * ns_per_cycle))
}

/// `unique × block / size`.
pub fn utilization(unique: u64, block_size_bytes: u64, size_bytes: u64) -> Option<f64> {
    (size_bytes > 0)
        .then(|| (u128::from(unique) * u128::from(block_size_bytes)) as f64 / size_bytes as f64)
}

/// The `.sim.csv` row of a kernel (its lifetimes still attached).
pub fn kernel_row(kernel: &KernelResult, params: &Params) -> KernelRow {
    let p = params.ns_per_cycle();
    let t = kernel_cycles(kernel);
    let l1_size = kernel.l1_size_bytes.unwrap_or(params.l1_default_size_bytes);
    let l2_size = params.l2_size_bytes;
    KernelRow {
        kernel_id: kernel.id.unwrap_or_default(),
        name: kernel.name.clone().unwrap_or_default(),
        l1: lifetime_stats(&kernel.lifetimes[0], p),
        l2: lifetime_stats(&kernel.lifetimes[1], p),
        l1_read_frequency: level_frequency(kernel.reads[0], t, p),
        l1_write_frequency: level_frequency(kernel.writes[0], t, p),
        l2_read_frequency: level_frequency(kernel.reads[1], t, p),
        l2_write_frequency: level_frequency(kernel.writes[1], t, p),
        l1_utilization: utilization(kernel.unique[0], params.block_size_bytes, l1_size),
        l1_size,
        l1_unique: kernel.unique[0],
        l2_utilization: utilization(kernel.unique[1], params.block_size_bytes, l2_size),
        l2_size,
        l2_unique: kernel.unique[1],
        total_read_frequency: total_frequency(kernel.reads[0] + kernel.reads[1], t, p),
        total_write_frequency: total_frequency(kernel.writes[0] + kernel.writes[1], t, p),
        total_cycles: t,
    }
}

/// The JSON report's write-frequency statistics of one level.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WriteFrequencyStats {
    /// Largest per-kernel write frequency.
    pub max: f64,
    /// 0-based position of the (first) max, kernels ordered by id.
    pub maxidx: u64,
    /// 90th percentile (linear) of the per-kernel write frequencies.
    pub p90: f64,
    /// Σ writes / Σ (T × p) × 1000.
    pub weighted: f64,
}

/// Write-frequency statistics over kernels ordered by id: `(frequency, writes, cycles)`.
pub fn write_frequency_stats(
    per_kernel: &[(f64, u64, u64)],
    ns_per_cycle: f64,
) -> WriteFrequencyStats {
    if per_kernel.is_empty() {
        return WriteFrequencyStats::default();
    }
    let mut max = f64::NEG_INFINITY;
    let mut maxidx = 0;
    for (i, &(f, _, _)) in per_kernel.iter().enumerate() {
        if f > max {
            max = f;
            maxidx = i as u64;
        }
    }
    let mut sorted: Vec<f64> = per_kernel.iter().map(|k| k.0).collect();
    sorted.sort_by(f64::total_cmp);
    let writes: u64 = per_kernel.iter().map(|k| k.1).sum();
    let times: Vec<f64> = per_kernel
        .iter()
        .map(|k| k.2 as f64 * ns_per_cycle)
        .collect();
    let total_time = pairwise_sum(&times);
    let weighted = if total_time > 0.0 {
        writes as f64 / total_time * 1000.0
    } else {
        0.0
    };
    WriteFrequencyStats {
        max,
        maxidx,
        p90: percentile_sorted(&sorted, 90.0).unwrap_or(0.0),
        weighted,
    }
}

/// Area of a level's array: `bits × K / divisor` (or `(bits / divisor) × K`).
pub fn area(capacity_bits: f64, cell_factor: f64, divisor: f64, divide_first: bool) -> f64 {
    if divide_first {
        capacity_bits / divisor * cell_factor
    } else {
        capacity_bits * cell_factor / divisor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: f64 = 1000.0 / 2235.0;

    #[test]
    fn seed_frequencies_and_utilization_to_the_last_bit() {
        assert_eq!(level_frequency(12056, 22571, P), Some(1193.795578397058));
        assert_eq!(level_frequency(88, 22571, P), Some(8.71383633866466));
        assert_eq!(level_frequency(4296, 22571, P), Some(425.39364671481104));
        assert_eq!(level_frequency(128, 22571, P), Some(12.674671038057685));
        assert_eq!(
            total_frequency(12056 + 4296, 22571, P),
            Some(1.6191892251118694)
        );
        assert_eq!(
            total_frequency(88 + 128, 22571, P),
            Some(0.021388507376722345)
        );
        assert_eq!(utilization(2996, 32, 122880), Some(0.7802083333333333));
        assert_eq!(utilization(141436, 32, 52428800), Some(0.08632568359375));
        assert_eq!(lifetime_us(17116, P), 7.658165548098434);
    }

    #[test]
    fn seed_median_is_the_mean_of_the_middle_pair() {
        let lifetimes = [7808, 7809, 100, 20000].map(|cycles| Lifetime { address: 0, cycles });
        let stats = lifetime_stats(&lifetimes, P);
        assert_eq!(stats.median, Some(3.4937360178970915));
        assert_eq!(stats.max, Some(lifetime_us(20000, P)));
    }

    #[test]
    fn seed_areas_to_the_last_bit() {
        let l1 = 1_048_576.0;
        let l2 = 524_288.0;
        assert_eq!(area(l1, 121.0, 75.0, false), 1691702.6133333333);
        assert_eq!(area(l1, 62.92, 75.0, true), 879685.3589333334);
        assert_eq!(area(l1, 62.5, 75.0, false), 873813.3333333334);
        assert_eq!(area(l1, 96.0, 75.0, false), 1342177.28);
        assert_eq!(area(l2, 121.0, 75.0, false), 845851.3066666666);
        assert_eq!(area(l2, 62.92, 75.0, true), 439842.6794666667);
        assert_eq!(area(l2, 62.5, 75.0, false), 436906.6666666667);
        assert_eq!(area(l2, 96.0, 75.0, false), 671088.64);
    }

    #[test]
    fn pairwise_sum_matches_the_block_structure() {
        let values: Vec<f64> = (0..1000).map(|i| 0.1 * i as f64).collect();
        let mut n2 = 500;
        n2 -= n2 % 8;
        assert_eq!(
            pairwise_sum(&values),
            pairwise_sum(&values[..n2]) + pairwise_sum(&values[n2..])
        );
        assert_eq!(pairwise_sum(&[1.0, 2.0, 3.0]), 6.0);
    }

    #[test]
    fn percentile_linear_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile_sorted(&v, 90.0), Some(3.7));
        assert_eq!(percentile_sorted(&v, 50.0), Some(2.5));
        assert_eq!(percentile_sorted(&[5.0], 90.0), Some(5.0));
        assert_eq!(percentile_sorted(&[], 90.0), None);
    }
}
