//! All lifetimes kept in memory in a compact form for what-if projections.
//!
//! Per level, the lifetimes of each kernel are stored as ascending distinct cycle counts with
//! their multiplicities (lifetimes are integers of cycles and repeat a lot), concatenated over
//! kernels, with prefix sums of the counts; the same for all kernels merged. A refresh
//! projection for a new retention time or clock is then `Σ count × floor(t(v) / r)` over the
//! distinct values, or — when few refresh counts are possible — a binary search per count
//! (`floor` of a monotone function is monotone), bit-identical to summing over every lifetime.
//! The share a retention covers and log-axis histogram bins are binary searches too.

use std::ops::Range;

use super::Level;
use super::kernel::FastMap;
use super::stats::{lifetime_us, refreshes_of};
use crate::core::num::{float_to_i64, float_to_u64, saturating_usize};

/// Which lifetimes a query covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// All kernels.
    All,
    /// One kernel, by its position in input order.
    Kernel(usize),
}

/// One level's lifetimes, compact.
#[derive(Debug, Clone, Default)]
pub struct LevelLifetimes {
    values: Vec<u64>,
    prefix: Vec<u64>,
    kernel_starts: Vec<usize>,
    all_values: Vec<u64>,
    all_prefix: Vec<u64>,
    /// Every `SKIP`-th value of `all_values`: a small index that keeps the searches of a
    /// refresh projection in cache.
    all_skip: Vec<u64>,
    /// `all_prefix` at each skip entry, and the total at the end (`all_skip.len() + 1` entries).
    all_skip_prefix: Vec<u64>,
}

/// Stride of the skip index.
const SKIP: usize = 16;

/// A histogram on a logarithmic time axis (µs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogHistogram {
    /// Bin edges in µs, ascending; bin `i` is `[edges[i], edges[i + 1])`.
    pub edges_us: Vec<f64>,
    /// Lifetimes per bin.
    pub counts: Vec<u64>,
    /// Lifetimes of 0 cycles (not on a log axis).
    pub zero: u64,
}

impl LevelLifetimes {
    fn skip(&self, selection: Selection) -> Option<&[u64]> {
        match selection {
            Selection::All => Some(&self.all_skip),
            Selection::Kernel(_) => None,
        }
    }

    fn slice(&self, selection: Selection) -> (&[u64], &[u64]) {
        match selection {
            Selection::All => (&self.all_values, &self.all_prefix),
            Selection::Kernel(k) => {
                let range = self.kernel_range(k);
                (
                    &self.values[range.clone()],
                    &self.prefix[range.start..range.end + 1],
                )
            }
        }
    }

    fn kernel_range(&self, kernel: usize) -> Range<usize> {
        match (
            self.kernel_starts.get(kernel),
            self.kernel_starts.get(kernel + 1),
        ) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        }
    }

    /// Number of lifetimes.
    pub fn count(&self, selection: Selection) -> u64 {
        let (_, prefix) = self.slice(selection);
        match (prefix.first(), prefix.last()) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        }
    }

    /// Longest lifetime in cycles.
    pub fn max_cycles(&self, selection: Selection) -> Option<u64> {
        self.slice(selection).0.last().copied()
    }

    /// Distinct lifetime values stored (the compact size).
    pub fn distinct(&self) -> usize {
        self.values.len() + self.all_values.len()
    }

    /// Σ floor(lifetime_us / retention_us) at `clock_mhz`, exactly as per lifetime (saturating;
    /// 0 when the retention or the clock is not a positive finite number).
    pub fn refreshes(&self, selection: Selection, retention_us: f64, clock_mhz: f64) -> u64 {
        if !valid(retention_us) || !valid(clock_mhz) {
            return 0;
        }
        let (values, prefix) = self.slice(selection);
        let p = 1000.0 / clock_mhz;
        let Some(&max) = values.last() else {
            return 0;
        };
        let count_from = |i: usize| prefix[prefix.len() - 1] - prefix[i];
        let fast = FastRefreshes::new(p, retention_us);
        let kmax = fast.of(max);
        let skip = self.skip(selection);
        let n = values.len();
        // Galloping from the previous boundary costs about log2(gap) per refresh count.
        let gap = (n as f64 / (kmax as f64 + 1.0)).max(1.0);
        let search_cost = (kmax as f64) * 2.0 * (gap.log2() + 1.0);
        if let (Some(skip), Selection::All) = (
            skip.filter(|s| saturating_usize(kmax) > s.len() / 256),
            selection,
        ) {
            let block_prefix = &self.all_skip_prefix;
            // Many refresh counts: one pass over the blocks of the skip index; a block whose
            // first value and the next block's first value need as many refreshes is counted
            // whole, only blocks that straddle a boundary are evaluated value by value.
            let mut total: u64 = 0;
            let mut f0 = fast.of(skip[0]);
            for j in 0..skip.len() {
                let (start, end) = (j * SKIP, ((j + 1) * SKIP).min(n));
                let f1 = match skip.get(j + 1) {
                    Some(&next) => fast.of(next),
                    None => fast.of(values[n - 1]),
                };
                if f0 == f1 {
                    total = (block_prefix[j + 1] - block_prefix[j])
                        .saturating_mul(f0)
                        .saturating_add(total);
                } else {
                    for i in start..end {
                        total = (prefix[i + 1] - prefix[i])
                            .saturating_mul(fast.of(values[i]))
                            .saturating_add(total);
                    }
                }
                f0 = f1;
            }
            total
        } else if search_cost < n as f64 {
            // Σ_k≥1 #{lifetimes with floor(t / r) ≥ k}.
            let mut total = 0;
            let mut lo = 0;
            for k in 1..=kmax {
                lo = boundary(values, skip, lo, |v| fast.of(v) < k);
                total = count_from(lo).saturating_add(total);
            }
            total
        } else {
            let mut total = 0;
            for (i, &v) in values.iter().enumerate() {
                total =
                    ((prefix[i + 1] - prefix[i]).saturating_mul(fast.of(v))).saturating_add(total);
            }
            total
        }
    }

    /// Share of lifetimes that need no refresh (lifetime < retention); 1 without lifetimes, 0
    /// for an invalid retention or clock.
    pub fn covered_share(&self, selection: Selection, retention_us: f64, clock_mhz: f64) -> f64 {
        if !valid(retention_us) || !valid(clock_mhz) {
            return 0.0;
        }
        let (values, prefix) = self.slice(selection);
        let p = 1000.0 / clock_mhz;
        let total = self.count(selection);
        if total == 0 {
            return 1.0;
        }
        let i = values.partition_point(|&v| refreshes_of(v, p, retention_us) == 0);
        (prefix[i] - prefix[0]) as f64 / total as f64
    }

    /// A histogram with `bins_per_decade` bins (1..=1000) per power of ten, covering the
    /// lifetimes; empty for an invalid clock.
    pub fn histogram(
        &self,
        selection: Selection,
        clock_mhz: f64,
        bins_per_decade: u32,
    ) -> LogHistogram {
        if !valid(clock_mhz) {
            return LogHistogram::default();
        }
        let bins_per_decade = bins_per_decade.clamp(1, 1000);
        let (values, prefix) = self.slice(selection);
        let p = 1000.0 / clock_mhz;
        let first_positive = values.partition_point(|&v| v == 0);
        let zero = prefix.get(first_positive).map_or(0, |&c| c - prefix[0]);
        let (Some(&min), Some(&max)) = (values.get(first_positive), values.last()) else {
            return LogHistogram {
                zero,
                ..LogHistogram::default()
            };
        };
        let per = f64::from(bins_per_decade.max(1));
        let lo = float_to_i64((lifetime_us(min, p).log10() * per).floor());
        let hi = float_to_i64((lifetime_us(max, p).log10() * per).floor()) + 1;
        let edges_us: Vec<f64> = (lo..=hi).map(|e| 10f64.powf(e as f64 / per)).collect();
        let mut counts = Vec::with_capacity(edges_us.len().saturating_sub(1));
        let mut start = first_positive;
        for pair in edges_us.windows(2) {
            let end = start + values[start..].partition_point(|&v| lifetime_us(v, p) < pair[1]);
            counts.push(prefix[end] - prefix[start]);
            start = end;
        }
        if let Some(last) = counts.last_mut() {
            *last += prefix[values.len()] - prefix[start];
        }
        LogHistogram {
            edges_us,
            counts,
            zero,
        }
    }
}

/// A positive finite number.
fn valid(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// `refreshes_of` with one multiplication: the product with a pre-computed factor differs from
/// the exact `((c × p) / 1000) / r` by a few ulps, so its floor is the exact one unless the
/// product is within a relative 1e-12 of an integer; only then is the exact formula evaluated.
struct FastRefreshes {
    p: f64,
    retention_us: f64,
    factor: f64,
}

impl FastRefreshes {
    fn new(p: f64, retention_us: f64) -> Self {
        FastRefreshes {
            p,
            retention_us,
            factor: p / 1000.0 / retention_us,
        }
    }

    #[inline]
    fn of(&self, cycles: u64) -> u64 {
        let x = cycles as f64 * self.factor;
        let q = x.floor();
        let margin = x * 1e-12 + 1e-300;
        if x - q > margin && q + 1.0 - x > margin && x < 9.0e15 {
            float_to_u64(q)
        } else {
            refreshes_of(cycles, self.p, self.retention_us)
        }
    }
}

/// The first index ≥ `from` where `below` turns false (`below` is true then false over `values`),
/// found by doubling steps from `from` then bisecting: cheap when the answer is near.
fn gallop(values: &[u64], from: usize, below: impl Fn(u64) -> bool) -> usize {
    let mut step = 1;
    let mut lo = from;
    while lo + step <= values.len() && below(values[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(values.len());
    lo + values[lo..hi].partition_point(|&v| below(v))
}

/// The first index ≥ `from` where `below` turns false, galloping on the skip index (every
/// `SKIP`-th value) first when there is one, then within one block.
fn boundary(
    values: &[u64],
    skip: Option<&[u64]>,
    from: usize,
    below: impl Fn(u64) -> bool,
) -> usize {
    let Some(skip) = skip.filter(|s| !s.is_empty()) else {
        return gallop(values, from, below);
    };
    // Values before `from` are below, so skip entries before `from / SKIP` are too.
    let j = gallop(skip, from / SKIP, &below);
    let start = from.max(j.saturating_sub(1) * SKIP);
    let end = (j * SKIP).min(values.len()).max(start);
    start + values[start..end].partition_point(|&v| below(v))
}

/// Both levels' lifetimes and the kernel ids, in input order.
#[derive(Debug, Clone, Default)]
pub struct LifetimeStore {
    /// L1 and L2.
    pub levels: [LevelLifetimes; 2],
    /// Kernel ids in input order (the `Selection::Kernel` index).
    pub kernel_ids: Vec<u64>,
}

impl LifetimeStore {
    /// One level.
    pub fn level(&self, level: Level) -> &LevelLifetimes {
        &self.levels[level.index()]
    }

    /// Builds a store from plain cycle lists (kernel id, L1 cycles, L2 cycles) — e.g. lifetimes
    /// read back from the lifetime CSVs.
    pub fn from_cycles(kernels: &[(u64, Vec<u64>, Vec<u64>)]) -> LifetimeStore {
        let mut builder = LifetimeStoreBuilder::default();
        for (id, l1, l2) in kernels {
            builder.push_cycles(*id, l1.clone(), l2.clone());
        }
        builder.build()
    }
}

/// Accumulates kernels into a [`LifetimeStore`].
#[derive(Debug)]
pub struct LifetimeStoreBuilder {
    store: LifetimeStore,
    /// Lifetimes per distinct cycle count over all kernels, per level.
    all_counts: [FastMap<u64, u64>; 2],
    per_kernel: bool,
}

impl Default for LifetimeStoreBuilder {
    fn default() -> Self {
        LifetimeStoreBuilder::new(true)
    }
}

fn push_runs(level: &mut LevelLifetimes, mut cycles: Vec<u64>) {
    if level.prefix.is_empty() {
        level.prefix.push(0);
    }
    level.kernel_starts.push(level.values.len());
    cycles.sort_unstable();
    let mut total = *level.prefix.last().unwrap_or(&0);
    let mut i = 0;
    while i < cycles.len() {
        let v = cycles[i];
        let run = cycles[i..].iter().take_while(|&&c| c == v).count();
        total += run as u64;
        level.values.push(v);
        level.prefix.push(total);
        i += run;
    }
}

impl LifetimeStoreBuilder {
    /// A builder; `per_kernel = false` keeps only the merged lifetimes (memory bounded by the
    /// distinct lifetime values, whatever the log size), and per-kernel queries are empty.
    pub fn new(per_kernel: bool) -> Self {
        LifetimeStoreBuilder {
            store: LifetimeStore::default(),
            all_counts: [FastMap::default(), FastMap::default()],
            per_kernel,
        }
    }

    /// Adds one kernel's lifetimes as cycle counts.
    pub fn push_cycles(&mut self, id: u64, l1: Vec<u64>, l2: Vec<u64>) {
        self.store.kernel_ids.push(id);
        for (index, cycles) in [l1, l2].into_iter().enumerate() {
            for &c in &cycles {
                *self.all_counts[index].entry(c).or_insert(0) += 1;
            }
            if self.per_kernel {
                push_runs(&mut self.store.levels[index], cycles);
            }
        }
    }

    /// Adds one kernel's lifetimes to the per-kernel store only (their counts arrive through
    /// [`LifetimeStoreBuilder::merge_counts`]).
    pub(crate) fn push_kernel_only(&mut self, id: u64, l1: Vec<u64>, l2: Vec<u64>) {
        self.store.kernel_ids.push(id);
        if self.per_kernel {
            push_runs(&mut self.store.levels[0], l1);
            push_runs(&mut self.store.levels[1], l2);
        }
    }

    /// Adds lifetimes counted elsewhere (per level: cycles → number of lifetimes).
    pub(crate) fn merge_counts(&mut self, counts: [FastMap<u64, u64>; 2]) {
        for (all, part) in self.all_counts.iter_mut().zip(counts) {
            if all.is_empty() {
                *all = part;
                continue;
            }
            for (cycles, n) in part {
                *all.entry(cycles).or_insert(0) += n;
            }
        }
    }

    /// Finishes: closes the kernel ranges and sorts the merged lifetimes.
    pub fn build(mut self) -> LifetimeStore {
        for (level, counts) in self.store.levels.iter_mut().zip(&mut self.all_counts) {
            if level.prefix.is_empty() {
                level.prefix.push(0);
            }
            if self.per_kernel {
                level.kernel_starts.push(level.values.len());
            }
            let mut runs: Vec<(u64, u64)> = counts.drain().collect();
            runs.sort_unstable_by_key(|r| r.0);
            level.all_values = runs.iter().map(|r| r.0).collect();
            level.all_prefix = Vec::with_capacity(runs.len() + 1);
            level.all_prefix.push(0);
            let mut total = 0;
            for (_, c) in runs {
                total += c;
                level.all_prefix.push(total);
            }
            level.all_skip = level.all_values.iter().step_by(SKIP).copied().collect();
            level.all_skip_prefix = level.all_prefix.iter().step_by(SKIP).copied().collect();
            if (level.all_prefix.len() - 1) % SKIP != 0 {
                level.all_skip_prefix.push(total);
            }
        }
        self.store
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(cycles: &[u64], r: f64, clock: f64) -> u64 {
        cycles
            .iter()
            .map(|&c| refreshes_of(c, 1000.0 / clock, r))
            .sum()
    }

    #[test]
    fn refreshes_equal_the_per_lifetime_sum_on_both_paths() {
        let a: Vec<u64> = (0..5000u64).map(|i| (i * 7919) % 40_000).collect();
        let b: Vec<u64> = (0..3000u64).map(|i| (i * i) % 90_000).collect();
        let store =
            LifetimeStore::from_cycles(&[(1, a.clone(), b.clone()), (2, b.clone(), a.clone())]);
        let all: Vec<u64> = a.iter().chain(&b).copied().collect();
        for r in [0.01, 0.5, 1.0, 3.3, 10.0, 100.0, 1e6] {
            for clock in [2235.0, 1000.0] {
                let l1 = store.level(Level::L1);
                assert_eq!(
                    l1.refreshes(Selection::All, r, clock),
                    brute(&all, r, clock)
                );
                assert_eq!(
                    l1.refreshes(Selection::Kernel(0), r, clock),
                    brute(&a, r, clock)
                );
                assert_eq!(
                    l1.refreshes(Selection::Kernel(1), r, clock),
                    brute(&b, r, clock)
                );
            }
        }
        assert_eq!(store.level(Level::L2).count(Selection::All), 8000);
        // Lifetimes on exact µs boundaries (multiples of 2235 cycles at 2235 MHz).
        let edges: Vec<u64> = (0..4000u64).map(|i| i * 2235 / 4).collect();
        let store = LifetimeStore::from_cycles(&[(1, edges.clone(), vec![])]);
        // Invalid inputs give nothing, quickly.
        let l1 = store.level(Level::L1);
        assert_eq!(l1.refreshes(Selection::All, 0.0, 2235.0), 0);
        assert_eq!(l1.refreshes(Selection::All, 1.0, f64::NAN), 0);
        assert!(l1.histogram(Selection::All, 0.0, 10).counts.is_empty());
        assert!(l1.histogram(Selection::All, 2235.0, u32::MAX).counts.len() < 100_000);
        // A tiny retention saturates instead of overflowing.
        assert!(l1.refreshes(Selection::All, 1e-300, 2235.0) > 0);
        for r in [0.25, 0.5, 1.0, 0.1, 3.0] {
            let l1 = store.level(Level::L1);
            assert_eq!(
                l1.refreshes(Selection::All, r, 2235.0),
                brute(&edges, r, 2235.0),
                "r {r}"
            );
        }
        assert_eq!(store.level(Level::L1).count(Selection::Kernel(5)), 0);
    }

    #[test]
    fn histogram_counts_everything_once() {
        let cycles: Vec<u64> = vec![0, 0, 1, 2, 50, 2235, 22350, 22351, 1_000_000];
        let store = LifetimeStore::from_cycles(&[(7, cycles.clone(), vec![])]);
        let h = store.level(Level::L1).histogram(Selection::All, 2235.0, 10);
        assert_eq!(h.zero, 2);
        assert_eq!(h.counts.iter().sum::<u64>(), 7);
        assert_eq!(h.edges_us.len(), h.counts.len() + 1);
        let share = store
            .level(Level::L1)
            .covered_share(Selection::All, 1.0, 2235.0);
        let covered = cycles
            .iter()
            .filter(|&&c| refreshes_of(c, 1000.0 / 2235.0, 1.0) == 0)
            .count();
        assert_eq!(share, covered as f64 / 9.0);
        let empty = store.level(Level::L2).histogram(Selection::All, 2235.0, 10);
        assert!(empty.counts.is_empty());
    }
}
