//! A table read by two connections at once in rowid chunks that each takes as it is free, so
//! that neither waits on the other: a report that reads table A on one connection and table B on
//! the other shares table C between them by what each has left to do, whatever A and B cost on
//! this machine. The parts come back in table order.

use std::sync::atomic::{AtomicU64, Ordering};

use super::super::db::ExportDb;
use super::gpu_ops::rowid_bounds;

/// Rows a chunk spans at least (about a twentieth of a second of reading).
const MIN_CHUNK: u64 = 1 << 17;
/// At most this many chunks, however sparse the rowids (each is one query).
const MAX_CHUNKS: u64 = 256;

/// A table's rowid range cut into chunks handed out in order, one at a time, to whichever
/// connection asks.
pub(super) struct RowidChunks {
    lo: i64,
    hi: i64,
    /// Rowids a chunk spans.
    step: u64,
    /// How many chunks.
    count: u64,
    /// The next chunk to hand out.
    next: AtomicU64,
}

impl RowidChunks {
    /// The chunks of `table` (`None` when it does not exist or has no rows).
    pub(super) fn of(db: &ExportDb, table: &str) -> Option<RowidChunks> {
        let (lo, hi) = rowid_bounds(db, table)?;
        (lo <= hi).then(|| RowidChunks::new(lo, hi))
    }

    /// The chunks of the rowids `lo..=hi` (`lo ≤ hi`).
    fn new(lo: i64, hi: i64) -> RowidChunks {
        // 0 ≤ hi − lo < 2⁶⁴ (rowids may be any i64).
        let extent = hi.abs_diff(lo);
        let step = MIN_CHUNK.max(extent / MAX_CHUNKS + 1);
        RowidChunks {
            lo,
            hi,
            step,
            count: extent / step + 1,
            next: AtomicU64::new(0),
        }
    }

    /// The next chunk not yet taken: its number (chunks are numbered in rowid order) and its
    /// inclusive rowid range.
    pub(super) fn take(&self) -> Option<(u64, (i64, i64))> {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        if k >= self.count {
            return None;
        }
        let first = i128::from(self.lo) + i128::from(k) * i128::from(self.step);
        let last = (first + i128::from(self.step) - 1).min(i128::from(self.hi));
        // lo ≤ first ≤ last ≤ hi: both are i64.
        let (Ok(first), Ok(last)) = (i64::try_from(first), i64::try_from(last)) else {
            return None;
        };
        Some((k, (first, last)))
    }

    /// Reads chunks with `read` until none is left: the parts with their chunk numbers.
    pub(super) fn drain<T, E>(
        &self,
        mut read: impl FnMut((i64, i64)) -> Result<T, E>,
    ) -> Result<Vec<(u64, T)>, E> {
        let mut parts = Vec::new();
        while let Some((k, range)) = self.take() {
            parts.push((k, read(range)?));
        }
        Ok(parts)
    }
}

/// The parts two connections read, in chunk (table) order.
pub(super) fn in_table_order<T>(a: Vec<(u64, T)>, b: Vec<(u64, T)>) -> impl Iterator<Item = T> {
    let mut all = a;
    all.extend(b);
    all.sort_unstable_by_key(|(k, _)| *k);
    all.into_iter().map(|(_, part)| part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_rowids_once_in_order() {
        for (lo, hi) in [
            (1, 1),
            (1, 1_000_000),
            (-5, 300_000),
            (i64::MIN, i64::MAX),
            (i64::MAX - 3, i64::MAX),
        ] {
            let c = RowidChunks::new(lo, hi);
            let mut expect = lo;
            let mut n = 0;
            while let Some((k, (first, last))) = c.take() {
                assert_eq!(k, n);
                assert_eq!(first, expect, "{lo}..{hi}: chunk {k}");
                assert!(last >= first);
                n += 1;
                if last == hi {
                    break;
                }
                expect = last + 1;
            }
            assert!(c.take().is_none(), "{lo}..{hi}: chunks past the end");
            assert!(n <= MAX_CHUNKS, "{lo}..{hi}: {n} chunks");
        }
    }

    #[test]
    fn parts_come_back_in_table_order() {
        let a = vec![(0, 'a'), (3, 'd')];
        let b = vec![(1, 'b'), (2, 'c'), (4, 'e')];
        assert_eq!(in_table_order(a, b).collect::<String>(), "abcde");
    }
}
