//! Integer columns of the timeline's events kept as small distances from a block base.
//!
//! Events are numbered track by track and row by row, so neighbouring events mostly hold close
//! values: start times, source rows, correlation ids. A column is cut in blocks of [`BLOCK`]
//! events; a block keeps its smallest value (`base`) and each event its distance from it in a
//! narrow word `L` (the start column: `u32`, 4.29 s at ns resolution; row and correlation
//! columns: `u16`). A block whose distances do not all fit — sparse events, the seam between two
//! tracks — keeps the distances' high halves beside it (`highs`, one more `L` an event of that
//! block), so every value round-trips exactly, whatever the spread: a column never takes more
//! than its plain width plus the block headers. Distances are computed modulo 2⁶⁴
//! (`wrapping_sub`), exact for any pair of values.
//!
//! Appended values wait in `pending` until their block is full; reads see them there.

use crate::core::num::{index_u32, low_u16, low_u32};

/// Events per block.
const BLOCK: usize = 64;
/// `high[b]` of a block whose distances all fit in `L`.
const NARROW: u32 = u32::MAX;

/// A column's value type.
pub(crate) trait Value: Copy + Ord + Default {
    /// `self - base`, for `base ≤ self` (modulo 2⁶⁴ otherwise).
    fn distance(self, base: Self) -> u64;
    /// `base + distance`.
    fn offset(base: Self, distance: u64) -> Self;
}

impl Value for i64 {
    fn distance(self, base: i64) -> u64 {
        self.wrapping_sub(base) as u64
    }
    fn offset(base: i64, distance: u64) -> i64 {
        base.wrapping_add(distance as i64)
    }
}

impl Value for u32 {
    fn distance(self, base: u32) -> u64 {
        u64::from(self.wrapping_sub(base))
    }
    fn offset(base: u32, distance: u64) -> u32 {
        // Modulo 2³²: the low bits of the distance are the ones that matter.
        base.wrapping_add(low_u32(distance))
    }
}

/// A distance's narrow word (its low bits; a wide block keeps the next bits in another).
pub(crate) trait Low: Copy + Default {
    /// Bits in the word.
    const BITS: u32;
    /// The low `BITS` bits of `v`.
    fn truncate(v: u64) -> Self;
    /// The word, widened.
    fn widen(self) -> u64;
}

impl Low for u32 {
    const BITS: u32 = 32;
    fn truncate(v: u64) -> u32 {
        low_u32(v)
    }
    fn widen(self) -> u64 {
        u64::from(self)
    }
}

impl Low for u16 {
    const BITS: u32 = 16;
    fn truncate(v: u64) -> u16 {
        low_u16(v)
    }
    fn widen(self) -> u64 {
        u64::from(self)
    }
}

/// A compact column (see the module documentation).
#[derive(Debug, Clone, Default)]
pub(crate) struct Blocked<V, L> {
    /// Smallest value of each full block.
    base: Vec<V>,
    /// Where each full block's high words begin in `highs`, or [`NARROW`].
    high: Vec<u32>,
    /// Low word of each event's distance from its block's base (full blocks only).
    low: Vec<L>,
    /// High words of the distances of wide blocks, [`BLOCK`] per wide block.
    highs: Vec<L>,
    /// The values of the last, incomplete block.
    pending: Vec<V>,
}

/// Start times (ns): about 4 bytes an event.
pub(crate) type Starts = Blocked<i64, u32>;
/// Source rows and correlation ids: about 2 bytes an event where neighbours are close.
pub(crate) type Packed32 = Blocked<u32, u16>;

impl<V: Value, L: Low> Blocked<V, L> {
    /// An empty column with room for `n` values.
    pub fn with_capacity(n: usize) -> Self {
        Blocked {
            base: Vec::with_capacity(n / BLOCK + 1),
            high: Vec::with_capacity(n / BLOCK + 1),
            low: Vec::with_capacity(n),
            highs: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.low.len() + self.pending.len()
    }

    /// Value `i`, `None` past the end.
    pub fn get(&self, i: usize) -> Option<V> {
        let full = self.low.len();
        if i >= full {
            return self.pending.get(i - full).copied();
        }
        let b = i / BLOCK;
        let high = match self.high[b] {
            NARROW => 0,
            at => self.highs[at as usize + i % BLOCK].widen(),
        };
        Some(V::offset(
            self.base[b],
            (high << L::BITS) | self.low[i].widen(),
        ))
    }

    /// Value `i`; callers pass indices below [`Blocked::len`] (the default past it, never a
    /// panic).
    pub fn at(&self, i: usize) -> V {
        self.get(i).unwrap_or_default()
    }

    /// Appends `value`.
    pub fn push(&mut self, value: V) {
        self.pending.push(value);
        if self.pending.len() == BLOCK {
            let block = std::mem::take(&mut self.pending);
            self.push_block(&block);
            self.pending = block;
            self.pending.clear();
        }
    }

    /// Sets value `i` (below [`Blocked::len`]; ignored past it).
    pub fn set(&mut self, i: usize, value: V) {
        let full = self.low.len();
        if i >= full {
            if let Some(v) = self.pending.get_mut(i - full) {
                *v = value;
            }
            return;
        }
        let b = i / BLOCK;
        let fits = value >= self.base[b]
            && (self.high[b] != NARROW || value.distance(self.base[b]) >> L::BITS == 0);
        if fits {
            let d = value.distance(self.base[b]);
            self.low[i] = L::truncate(d);
            if self.high[b] != NARROW {
                self.highs[self.high[b] as usize + i % BLOCK] = L::truncate(d >> L::BITS);
            }
        } else {
            self.map_range(i..i + 1, |_| value);
        }
    }

    /// The first index in `lo..hi` whose value is not below `t`, for values sorted in
    /// `lo..hi` (`hi` when none): galloping from `lo` over the bases of the whole blocks in the
    /// range — each the block's first value there, 1/64 of the memory of the values — then
    /// within one block; for an answer `d` values past `lo`, O(log d) probes near `lo`.
    pub fn first_at_least(&self, lo: usize, hi: usize, t: V) -> usize {
        let hi = hi.min(self.len());
        let below = |k: usize| self.at(k) < t;
        // Whole blocks inside `lo..hi` that hold no pending value.
        let (first, last) = (lo.div_ceil(BLOCK), hi.min(self.low.len()) / BLOCK);
        if first >= last {
            return super::query::gallop(lo, hi, below);
        }
        let head = first * BLOCK;
        let at = super::query::gallop(lo, head, below);
        if at < head {
            return at;
        }
        // The first whole block whose first value is not below `t`: the answer is in the
        // block before it, or is its first index.
        let b = super::query::gallop(first, last, |b| self.base[b] < t);
        let from = if b > first { (b - 1) * BLOCK } else { head };
        let to = if b < last { b * BLOCK } else { hi };
        super::query::partition(from, to, below)
    }

    /// Every value in order.
    pub fn iter(&self) -> impl Iterator<Item = V> + '_ {
        (0..self.len()).map(|i| self.at(i))
    }

    /// Replaces each value `v` of `range` (clamped to the column) by `f(v)`.
    pub fn map_range(&mut self, range: std::ops::Range<usize>, f: impl Fn(V) -> V) {
        let end = range.end.min(self.len());
        if range.start >= end {
            return;
        }
        let full = self.low.len();
        for v in &mut self.pending[range.start.max(full) - full..end.max(full) - full] {
            *v = f(*v);
        }
        if range.start >= full {
            return;
        }
        let mut values = Vec::with_capacity(BLOCK);
        for b in range.start / BLOCK..end.min(full).div_ceil(BLOCK) {
            let first = b * BLOCK;
            values.clear();
            values.extend((first..first + BLOCK).map(|i| self.at(i)));
            for (k, v) in values.iter_mut().enumerate() {
                if range.contains(&(first + k)) {
                    *v = f(*v);
                }
            }
            self.encode(b, &values);
        }
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        let (v, l) = (std::mem::size_of::<V>(), std::mem::size_of::<L>());
        self.base.capacity() * v
            + self.high.capacity() * 4
            + (self.low.capacity() + self.highs.capacity()) * l
            + self.pending.capacity() * v
    }

    /// Appends a full block.
    fn push_block(&mut self, values: &[V]) {
        let b = self.base.len();
        self.base.push(V::default());
        self.high.push(NARROW);
        self.low.resize(self.low.len() + BLOCK, L::default());
        self.encode(b, values);
    }

    /// (Re)writes full block `b` from its [`BLOCK`] `values`.
    fn encode(&mut self, b: usize, values: &[V]) {
        let base = values.iter().copied().min().unwrap_or_default();
        let wide = values.iter().any(|&v| v.distance(base) >> L::BITS != 0);
        self.base[b] = base;
        if wide && self.high[b] == NARROW {
            self.high[b] = index_u32(self.highs.len());
            self.highs.resize(self.highs.len() + BLOCK, L::default());
        }
        let first = b * BLOCK;
        for (k, &v) in values.iter().enumerate() {
            let d = v.distance(base);
            self.low[first + k] = L::truncate(d);
            if self.high[b] != NARROW {
                self.highs[self.high[b] as usize + k] = L::truncate(d >> L::BITS);
            }
        }
    }
}

impl<V: Value, L: Low> FromIterator<V> for Blocked<V, L> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut column = Blocked::with_capacity(iter.size_hint().0);
        for v in iter {
            column.push(v);
        }
        column
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<V: Value + std::fmt::Debug, L: Low>(values: &[V]) -> Blocked<V, L> {
        let column: Blocked<V, L> = values.iter().copied().collect();
        assert_eq!(column.len(), values.len());
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(column.get(i), Some(v), "value {i}");
        }
        assert_eq!(column.get(values.len()), None);
        assert_eq!(column.iter().collect::<Vec<_>>(), values);
        column
    }

    #[test]
    fn dense_sparse_and_extreme_values_round_trip() {
        // Dense rising starts (narrow blocks), two tracks' seam, sparse events, extremes.
        let mut values: Vec<i64> = (0..1000).map(|i| 1_000_000 + i * 37).collect();
        values.extend((0..300).map(|i| i * 20));
        values.extend((0..200).map(|i| i * 10_000_000_000));
        values.extend([i64::MIN, i64::MAX, 0, -1, i64::MAX, i64::MIN + 1]);
        values.extend((0..130).map(|i| -(i * 3)));
        round_trip::<i64, u32>(&values);
        round_trip::<i64, u32>(&[]);
        round_trip::<i64, u32>(&[7]);
        let rows: Vec<u32> = (0..500u32)
            .map(|i| i * 3)
            .chain((0..200).map(|i| i * 70_000))
            .chain([u32::MAX, 0, u32::MAX - 1, 1 << 16])
            .collect();
        round_trip::<u32, u16>(&rows);
    }

    #[test]
    fn first_at_least_agrees_with_a_plain_search() {
        // Two sorted runs (rows) back to back, the second starting mid-block, plus pending.
        let mut values: Vec<i64> = (0..1000).map(|i| i * 7 / 3).collect();
        values.extend((0..530).map(|i| 100 + i * 5));
        let starts: Starts = values.iter().copied().collect();
        for (lo, hi) in [
            (0, 1000),
            (1000, 1530),
            (3, 64),
            (70, 600),
            (1000, 1001),
            (5, 5),
        ] {
            for t in [-5, 0, 1, 100, 101, 700, 2329, 2330, 5000] {
                let plain = lo + values[lo..hi].partition_point(|&v| v < t);
                assert_eq!(starts.first_at_least(lo, hi, t), plain, "{lo}..{hi} {t}");
            }
        }
    }

    #[test]
    fn close_values_take_the_narrow_word() {
        let starts: Starts = (0..64_000).map(|i| 5_000_000_000 + i * 1_000).collect();
        assert!(starts.highs.is_empty());
        assert!(
            starts.heap_bytes() < 64_000 * 9 / 2,
            "{}",
            starts.heap_bytes()
        );
        let rows =
            round_trip::<u32, u16>(&(0..64_000u32).map(|i| 90_000 + i * 4).collect::<Vec<_>>());
        assert!(rows.highs.is_empty());
        assert!(rows.heap_bytes() < 64_000 * 5 / 2, "{}", rows.heap_bytes());
    }

    #[test]
    fn ranges_are_mapped_and_values_set_in_place_across_blocks() {
        let values: Vec<i64> = (0..300).map(|i| i * 1_000).collect();
        let mut starts: Starts = values.iter().copied().collect();
        // A shift that makes some blocks wide, then one that makes them narrow again.
        starts.map_range(50..250, |v| v.saturating_add(1 << 40));
        let shifted: Vec<i64> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                if (50..250).contains(&i) {
                    v + (1 << 40)
                } else {
                    v
                }
            })
            .collect();
        assert_eq!(starts.iter().collect::<Vec<_>>(), shifted);
        starts.map_range(50..250, |v| v - (1 << 40));
        assert_eq!(starts.iter().collect::<Vec<_>>(), values);
        starts.map_range(290..400, |v| v + 1);
        assert_eq!(starts.get(299), Some(299_001));
        assert_eq!(starts.get(289), Some(289_000));

        let mut rows: Packed32 = (0..200u32).collect();
        let mut expected: Vec<u32> = (0..200).collect();
        for (i, v) in [
            (3, 7),
            (70, 0),
            (71, u32::MAX),
            (72, 70),
            (199, 5),
            (150, 1 << 20),
        ] {
            rows.set(i, v);
            expected[i] = v;
            assert_eq!(
                rows.iter().collect::<Vec<_>>(),
                expected,
                "after setting {i}"
            );
        }
        rows.set(500, 1);
        assert_eq!(rows.len(), 200);
    }
}
