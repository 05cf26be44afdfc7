//! The CUDA API calls of an export by correlation id, for the reports that put each GPU
//! operation beside the call that launched it (`cuda_gpu_trace`, `cuda_kern_exec_*`, the NVTX
//! projections).

use rustc_hash::FxHashMap;

use super::super::NsysError;
use super::super::db::ExportDb;
use super::gpu_ops::{Placement, RUNTIME};
use super::table::{for_each_row, int_at};
use crate::core::num::{index_u32, saturating_usize};

/// A CUDA API call.
#[derive(Debug, Clone, Copy)]
pub(super) struct ApiCall {
    /// Start (ns).
    pub start: i64,
    /// End (ns).
    pub end: i64,
    /// `globalTid`.
    pub global_tid: i64,
    /// String id of the function's name.
    pub name: i64,
    /// Its rowid (the table's order: what nsys lists calls of equal start by).
    pub row: i64,
}

impl ApiCall {
    /// Process id.
    pub fn pid(&self) -> i64 {
        (self.global_tid >> 24) & 0xFF_FFFF
    }

    /// Thread id.
    pub fn tid(&self) -> i64 {
        self.global_tid & 0xFF_FFFF
    }
}

/// The API calls that carry a correlation id, sorted by (process, correlation id, start): one
/// flat vector, looked up by binary search.
pub(super) struct CallsByCorr {
    /// (correlation id, process id, call), by correlation id, process, start and rowid.
    calls: Vec<(i64, i64, ApiCall)>,
    /// Where each correlation id's calls are in `calls`.
    index: CorrIndex,
}

/// The range of a sorted list that holds each key: an offset table when the keys are dense
/// (correlation ids count up from 1 in every export seen), else a hash map.
pub(super) enum CorrIndex {
    /// `starts[k − min]..starts[k − min + 1]` for key k.
    Dense { min: i64, starts: Vec<u32> },
    /// Key → range.
    Sparse(FxHashMap<i64, (u32, u32)>),
}

impl CorrIndex {
    /// The index of `keys` (sorted).
    pub(super) fn of(keys: impl ExactSizeIterator<Item = i64> + Clone) -> CorrIndex {
        if let Some((min, starts)) = Self::dense(keys.clone(), keys.len()) {
            return CorrIndex::Dense { min, starts };
        }
        let mut ranges: FxHashMap<i64, (u32, u32)> = FxHashMap::default();
        for (i, k) in keys.enumerate() {
            let i = index_u32(i);
            ranges
                .entry(k)
                .and_modify(|r| r.1 = i + 1)
                .or_insert((i, i + 1));
        }
        CorrIndex::Sparse(ranges)
    }

    /// The smallest key and where each key's run starts in the sorted list, when the `n` keys
    /// (in any order) are dense.
    fn dense(keys: impl Iterator<Item = i64> + Clone, n: usize) -> Option<(i64, Vec<u32>)> {
        let (min, max) = keys
            .clone()
            .fold((i64::MAX, i64::MIN), |(lo, hi), k| (lo.min(k), hi.max(k)));
        let span = max.checked_sub(min).and_then(|s| usize::try_from(s).ok())?;
        if n == 0 || span > n.saturating_mul(4).saturating_add(1024) {
            return None;
        }
        let mut starts = vec![0u32; span + 2];
        // min ≤ k ≤ max: k − min ≤ span, which fits in a usize.
        for k in keys {
            starts[saturating_usize(k.abs_diff(min)) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        Some((min, starts))
    }

    /// `(key, i)` for each `i` whose key is `Some`, sorted, with their index: a counting sort
    /// when the keys are dense (what correlation ids are), else a sort.
    pub(super) fn sorted(keys: &[Option<i64>]) -> (Vec<(i64, u32)>, CorrIndex) {
        let present = || {
            keys.iter()
                .enumerate()
                .filter_map(|(i, k)| k.map(|k| (k, index_u32(i))))
        };
        let n = present().count();
        if let Some((min, starts)) = Self::dense(present().map(|(k, _)| k), n) {
            // Each key's entries at its run's next free place, in index order.
            let mut next = starts.clone();
            let mut sorted = vec![(0, 0); n];
            for (k, i) in present() {
                let at = &mut next[saturating_usize(k.abs_diff(min))];
                sorted[*at as usize] = (k, i);
                *at += 1;
            }
            return (sorted, CorrIndex::Dense { min, starts });
        }
        let mut sorted: Vec<(i64, u32)> = present().collect();
        sorted.sort_unstable();
        let index = CorrIndex::of(sorted.iter().map(|(k, _)| *k));
        (sorted, index)
    }

    /// The range holding `key` (empty when absent).
    pub(super) fn range(&self, key: i64) -> (usize, usize) {
        match self {
            CorrIndex::Dense { min, starts } => key
                .checked_sub(*min)
                .and_then(|k| usize::try_from(k).ok())
                .and_then(|k| Some((*starts.get(k)?, *starts.get(k + 1)?)))
                .map_or((0, 0), |(lo, hi)| (lo as usize, hi as usize)),
            CorrIndex::Sparse(ranges) => ranges
                .get(&key)
                .map_or((0, 0), |&(lo, hi)| (lo as usize, hi as usize)),
        }
    }
}

impl CallsByCorr {
    /// Reads the runtime table's calls.
    pub fn read(db: &ExportDb) -> Result<CallsByCorr, NsysError> {
        let mut read = Vec::new();
        let mut corrs = Vec::new();
        if db.has_table(RUNTIME) {
            let corr = db.col_or_null(RUNTIME, "correlationId");
            let sql = format!(
                "SELECT rowid, start, end, {}, {corr}, {} FROM {RUNTIME} WHERE {corr} IS NOT NULL",
                db.col_or_null(RUNTIME, "globalTid"),
                db.col_or_null(RUNTIME, "nameId"),
            );
            for_each_row(db, RUNTIME, &sql, |row| {
                let (Some(start), Some(end), Some(corr)) =
                    (int_at(row, 1), int_at(row, 2), int_at(row, 4))
                else {
                    let rowid = int_at(row, 0).unwrap_or(-1);
                    return Err(db.query_error(
                        RUNTIME,
                        format!("rowid {rowid}: start, end or correlationId is not an integer"),
                    ));
                };
                let call = ApiCall {
                    start,
                    end,
                    global_tid: int_at(row, 3).unwrap_or(0),
                    name: int_at(row, 5).unwrap_or(-1),
                    row: int_at(row, 0).unwrap_or(0),
                };
                read.push(call);
                corrs.push(Some(corr));
                Ok(())
            })?;
        }
        // By correlation id (a counting sort), then each id's few calls by process, start and
        // rowid (equal starts in table order, as nsys lists them).
        let (sorted, index) = CorrIndex::sorted(&corrs);
        drop(corrs);
        let mut calls: Vec<(i64, i64, ApiCall)> = sorted
            .into_iter()
            .map(|(corr, i)| {
                let call = read[i as usize];
                (corr, call.pid(), call)
            })
            .collect();
        drop(read);
        for same in calls.chunk_by_mut(|a, b| a.0 == b.0) {
            if same.len() > 1 {
                same.sort_unstable_by_key(|(_, pid, c)| (*pid, c.start, c.row));
            }
        }
        Ok(CallsByCorr { calls, index })
    }

    /// The calls of a GPU operation: same process (any, for exports without `globalPid` on
    /// GPU rows; then by process) and correlation id, by start.
    pub fn of(&self, at: &Placement) -> impl Iterator<Item = &ApiCall> {
        self.indices_of(at).map(|i| &self.calls[i].2)
    }

    /// [`CallsByCorr::of`] as indices for [`CallsByCorr::call`].
    pub fn indices_of(&self, at: &Placement) -> impl Iterator<Item = usize> + '_ {
        let (lo, hi) = at.corr.map_or((0, 0), |corr| self.index.range(corr));
        let (lo, hi) = if lo <= hi && hi <= self.calls.len() {
            (lo, hi)
        } else {
            (0, 0)
        };
        let pid = at.pid;
        (lo..hi).filter(move |&i| pid.is_none_or(|pid| self.calls[i].1 == pid))
    }

    /// The call at `index` (from [`CallsByCorr::indices_of`]).
    pub fn call(&self, index: usize) -> &ApiCall {
        &self.calls[index].2
    }
}
