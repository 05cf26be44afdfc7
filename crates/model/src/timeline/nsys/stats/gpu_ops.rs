//! What the CUDA trace and GPU reports share: the kernels, memory copies and memsets of an
//! export streamed row by row, kernel names as the options ask for them (demangled,
//! `base`, `mangled`, with the innermost NVTX range for `nvtx-name`), and the layout of nsys
//! 2022.4 for exports without `ENUM_CUDA_MEMCPY_OPER`; the launching API calls by correlation id
//! are in [`super::calls_by_corr`].

use super::table::read_both;
pub(super) use super::table::{for_each_row, int_at};
use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, text_of};
use super::super::load::MEM_KIND_LABELS;
pub(super) use super::calls_by_corr::{CallsByCorr, CorrIndex};
use super::table::string_of;
use super::{ReportOutcome, ReportRequest, RequestError, StatsOption, skipped};
use crate::core::num::index_u32;

/// The kernel table.
pub(super) const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
/// The memory copy table.
pub(super) const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
/// The memset table.
pub(super) const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
/// The CUDA runtime/driver API table.
pub(super) const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
/// The NVTX table.
pub(super) const NVTX: &str = "NVTX_EVENTS";

/// Which kernel name a report shows (`cuda_gpu_kern_sum:base`, `:mangled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameKind {
    /// `demangledName` (the default).
    Demangled,
    /// `shortName`: the function name without parameters or templates.
    Base,
    /// `mangledName` where the export has it, else the demangled name.
    Mangled,
}

impl NameKind {
    /// The kind a request asks for: `base` wins over `mangled` when both are given (as in nsys).
    pub(super) fn of(req: &ReportRequest) -> Result<NameKind, RequestError> {
        Ok(if req.flag(StatsOption::Base)? {
            NameKind::Base
        } else if req.flag(StatsOption::Mangled)? {
            NameKind::Mangled
        } else {
            NameKind::Demangled
        })
    }
}

/// Where a GPU operation ran and which API call launched it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    /// Start (ns).
    pub start: i64,
    /// End (ns).
    pub end: i64,
    /// Correlation id of the launching API call.
    pub corr: Option<i64>,
    /// Process id (from `globalPid`), when the export has it.
    pub pid: Option<i64>,
    /// Device id.
    pub device: Option<i64>,
    /// Context id.
    pub context: Option<i64>,
    /// Green context id.
    pub green: Option<i64>,
    /// Stream id.
    pub stream: Option<i64>,
}

impl Placement {
    /// `end − start`.
    pub fn duration(&self) -> i64 {
        self.end.saturating_sub(self.start)
    }
}

/// A kernel execution.
#[derive(Debug, Clone)]
pub(super) struct Kernel {
    /// Where and when.
    pub at: Placement,
    /// The string id of its name (of the kind asked for).
    pub name: i64,
    /// Grid size x, y, z.
    pub grid: [i64; 3],
    /// Block size x, y, z.
    pub block: [i64; 3],
    /// Registers per thread.
    pub registers: Option<i64>,
    /// Static shared memory (B).
    pub static_smem: Option<i64>,
    /// Dynamic shared memory (B).
    pub dynamic_smem: Option<i64>,
}

/// A memory copy or memset.
#[derive(Debug, Clone)]
pub(super) struct MemOp {
    /// Where and when.
    pub at: Placement,
    /// Bytes copied or set.
    pub bytes: i64,
    /// The copy kind; `None` for a memset.
    pub copy_kind: Option<i64>,
    /// Source memory kind (the set memory's kind for a memset).
    pub src_kind: Option<i64>,
    /// Destination memory kind.
    pub dst_kind: Option<i64>,
}

/// Labels for memory operations: the export's ENUM tables, or nsys 2022.4's names.
pub(super) struct MemLabels {
    copy: Option<HashMap<i64, String>>,
    kind: Option<HashMap<i64, String>>,
}

impl MemLabels {
    /// The export's labels.
    pub fn of(db: &ExportDb) -> MemLabels {
        MemLabels {
            copy: db.enum_labels("ENUM_CUDA_MEMCPY_OPER"),
            kind: db.enum_labels("ENUM_CUDA_MEM_KIND"),
        }
    }

    /// Whether the export lacks `ENUM_CUDA_MEMCPY_OPER`: nsys 2023.4 refuses it, Sightline
    /// answers with the layout of nsys 2022.4.
    pub fn old_layout(&self) -> bool {
        self.copy.is_none()
    }

    /// `[CUDA memcpy Host-to-Device]`, `[CUDA memset]`.
    pub fn operation(&self, op: &MemOp) -> String {
        self.operation_label(op.copy_kind)
    }

    /// The label of a copy kind, `None` for a memset.
    pub fn operation_label(&self, copy_kind: Option<i64>) -> String {
        match copy_kind {
            Some(kind) => super::table::memcpy_label(self.copy.as_ref(), kind),
            None => "[CUDA memset]".to_string(),
        }
    }

    /// A memory kind's label (`Pageable`, `Device`).
    pub fn memory_kind(&self, kind: i64) -> String {
        match &self.kind {
            Some(l) => l.get(&kind).cloned().unwrap_or_else(|| "Unknown".into()),
            None => usize::try_from(kind)
                .ok()
                .and_then(|i| MEM_KIND_LABELS.get(i))
                .copied()
                .unwrap_or("Unknown")
                .to_string(),
        }
    }
}

/// The placement columns of a GPU table, in the order [`placement`] reads them (from 1; 0 is
/// the rowid).
fn placement_sql(db: &ExportDb, table: &str, full: bool) -> String {
    let c = |name| {
        if full || matches!(name, "correlationId" | "globalPid" | "deviceId") {
            db.col_or_null(table, name)
        } else {
            "NULL".to_string()
        }
    };
    format!(
        "rowid, start, end, {}, {}, {}, {}, {}, {}",
        c("correlationId"),
        c("globalPid"),
        c("deviceId"),
        c("contextId"),
        c("greenContextId"),
        c("streamId"),
    )
}

const PLACEMENT_COLUMNS: usize = 9;

fn placement(db: &ExportDb, table: &str, row: &rusqlite::Row<'_>) -> Result<Placement, NsysError> {
    let (Some(start), Some(end)) = (int_at(row, 1), int_at(row, 2)) else {
        let rowid = int_at(row, 0).unwrap_or(-1);
        return Err(db.query_error(
            table,
            format!("rowid {rowid}: start or end is not an integer"),
        ));
    };
    Ok(Placement {
        start,
        end,
        corr: int_at(row, 3),
        pid: int_at(row, 4).map(|g| (g >> 24) & 0xFF_FFFF),
        device: int_at(row, 5),
        context: int_at(row, 6),
        green: int_at(row, 7),
        stream: int_at(row, 8),
    })
}

/// Which kernel columns a report reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Columns {
    /// Times, correlation, process, device, name, grid and block sizes (the summaries): the
    /// other fields are `None`.
    Lean,
    /// Every field.
    All,
}

/// Calls `each` with every kernel, in table order, named as `names` asks.
pub(super) fn for_each_kernel(
    db: &ExportDb,
    names: NameKind,
    columns: Columns,
    each: impl FnMut(&Kernel),
) -> Result<(), NsysError> {
    kernels_in(db, names, columns, None, each)
}

/// Folds the kernel table's two halves (by rowid) at once, on two connections, each into its
/// own `T` (first half first): for reports whose result does not depend on the kernels' order.
pub(super) fn fold_kernel_halves<T: Send>(
    db: &ExportDb,
    names: NameKind,
    columns: Columns,
    init: impl Fn() -> T + Sync,
    each: impl Fn(&mut T, &Kernel) + Sync,
) -> Result<[T; 2], NsysError> {
    let Some((first, second)) = kernel_split(db, 0) else {
        let mut all = init();
        for_each_kernel(db, names, columns, |k| each(&mut all, k))?;
        return Ok([all, init()]);
    };
    let part = |db: &ExportDb, range: (i64, i64)| {
        let mut part = init();
        kernels_in(db, names, columns, Some(range), |k| each(&mut part, k)).map(|()| part)
    };
    let (first, second) = read_both(db, |db| part(db, first), |db| part(db, second));
    Ok([first?, second?])
}

/// The inclusive rowid range of `table`'s rows (`None` when it has none or does not exist).
pub(super) fn rowid_bounds(db: &ExportDb, table: &str) -> Option<(i64, i64)> {
    if !db.has_table(table) {
        return None;
    }
    db.conn
        .query_row(
            // Two subqueries: each is one b-tree descent (`min` and `max` in one SELECT scan
            // the whole table).
            &format!("SELECT (SELECT min(rowid) FROM {table}), (SELECT max(rowid) FROM {table})"),
            [],
            |row| Ok((row.get::<_, Option<i64>>(0)?, row.get::<_, Option<i64>>(1)?)),
        )
        .ok()
        .and_then(|(lo, hi)| Some((lo?, hi?)))
}

/// The kernel table split in two rowid ranges for two connections, the second of which also
/// reads about `extra` rows of other tables: the parts take as many rows each (rowids of
/// exports are dense). `None` when the table has fewer than two rows.
pub(super) fn kernel_split(db: &ExportDb, extra: u64) -> Option<((i64, i64), (i64, i64))> {
    let (lo, hi) = rowid_bounds(db, KERNEL).filter(|(lo, hi)| lo < hi)?;
    let rows = (i128::from(hi) - i128::from(lo) + 1) as u128;
    // The first part's share of rows: half of all, kernels and extra together.
    let first = ((rows + u128::from(extra)) / 2).clamp(1, rows - 1);
    // lo ≤ mid < hi, so mid + 1 cannot overflow (rowids may be any i64).
    let mid = i64::try_from(i128::from(lo) + first as i128 - 1).ok()?;
    Some(((lo, mid), (mid + 1, hi)))
}

/// [`for_each_kernel`] over the rows whose rowid is in `range` (all rows for `None`).
pub(super) fn kernels_in(
    db: &ExportDb,
    names: NameKind,
    columns: Columns,
    range: Option<(i64, i64)>,
    mut each: impl FnMut(&Kernel),
) -> Result<(), NsysError> {
    if !db.has_table(KERNEL) {
        return Ok(());
    }
    let full = columns == Columns::All;
    let c = |name| {
        let lean = matches!(
            name,
            "registersPerThread" | "staticSharedMemory" | "dynamicSharedMemory"
        );
        if full || !lean {
            db.col_or_null(KERNEL, name)
        } else {
            "NULL".to_string()
        }
    };
    let name = match names {
        NameKind::Demangled => c("demangledName"),
        NameKind::Base => format!("coalesce({}, {})", c("shortName"), c("demangledName")),
        NameKind::Mangled => format!("coalesce({}, {})", c("mangledName"), c("demangledName")),
    };
    let filter = range.map_or_else(String::new, |(lo, hi)| {
        format!(" WHERE rowid BETWEEN {lo} AND {hi}")
    });
    let sql = format!(
        "SELECT {}, {name}, {}, {}, {}, {}, {}, {}, {}, {}, {} FROM {KERNEL}{filter}",
        placement_sql(db, KERNEL, full),
        c("gridX"),
        c("gridY"),
        c("gridZ"),
        c("blockX"),
        c("blockY"),
        c("blockZ"),
        c("registersPerThread"),
        c("staticSharedMemory"),
        c("dynamicSharedMemory"),
    );
    const P: usize = PLACEMENT_COLUMNS;
    for_each_row(db, KERNEL, &sql, |row| {
        let at = placement(db, KERNEL, row)?;
        let v = |i| int_at(row, P + i);
        each(&Kernel {
            at,
            name: v(0).unwrap_or(-1),
            grid: [v(1).unwrap_or(0), v(2).unwrap_or(0), v(3).unwrap_or(0)],
            block: [v(4).unwrap_or(0), v(5).unwrap_or(0), v(6).unwrap_or(0)],
            registers: v(7),
            static_smem: v(8),
            dynamic_smem: v(9),
        });
        Ok(())
    })
}

/// Calls `each` with every memory copy, then every memset, each in table order.
pub(super) fn for_each_mem_op(
    db: &ExportDb,
    mut each: impl FnMut(&MemOp),
) -> Result<(), NsysError> {
    const P: usize = PLACEMENT_COLUMNS;
    if db.has_table(MEMCPY) {
        let c = |name| db.col_or_null(MEMCPY, name);
        let sql = format!(
            "SELECT {}, {}, {}, {}, {} FROM {MEMCPY}",
            placement_sql(db, MEMCPY, true),
            c("bytes"),
            c("copyKind"),
            c("srcKind"),
            c("dstKind"),
        );
        for_each_row(db, MEMCPY, &sql, |row| {
            let at = placement(db, MEMCPY, row)?;
            each(&MemOp {
                at,
                bytes: int_at(row, P).unwrap_or(0),
                copy_kind: Some(int_at(row, P + 1).unwrap_or(0)),
                src_kind: int_at(row, P + 2),
                dst_kind: int_at(row, P + 3),
            });
            Ok(())
        })?;
    }
    if db.has_table(MEMSET) {
        let sql = format!(
            "SELECT {}, {} FROM {MEMSET}",
            placement_sql(db, MEMSET, true),
            db.cols_or_null(MEMSET, &["bytes", "memKind"]),
        );
        for_each_row(db, MEMSET, &sql, |row| {
            let at = placement(db, MEMSET, row)?;
            each(&MemOp {
                at,
                bytes: int_at(row, P).unwrap_or(0),
                copy_kind: None,
                src_kind: int_at(row, P + 1),
                dst_kind: None,
            });
            Ok(())
        })?;
    }
    Ok(())
}

/// NVTX push/pop and start/end ranges per (starting) thread, to name a kernel by the innermost
/// range around the API call that launched it: the range that holds the whole call and started
/// last (a range that ends during the call does not count; domains are not shown).
pub(super) struct NvtxRanges {
    /// Per globalTid: (start, end, index into `texts`), sorted by start.
    by_thread: FxHashMap<i64, Vec<(i64, i64, u32)>>,
    /// The ranges' texts.
    texts: Vec<String>,
}

impl NvtxRanges {
    /// Reads the ranges (a range never ended runs to the last NVTX timestamp).
    pub fn read(db: &ExportDb, strings: &HashMap<i64, String>) -> Result<NvtxRanges, NsysError> {
        let mut by_thread: FxHashMap<i64, Vec<(i64, Option<i64>, u32)>> = FxHashMap::default();
        let mut texts = Vec::new();
        // Texts by `textId` and by text: ranges of one name share one text (and kernels under
        // them one name key).
        let mut by_id: FxHashMap<i64, u32> = FxHashMap::default();
        let mut by_text: FxHashMap<String, u32> = FxHashMap::default();
        let mut last = i64::MIN;
        if db.has_table(NVTX) {
            let sql = format!(
                "SELECT rowid, start, end, eventType, {} FROM {NVTX}",
                db.cols_or_null(NVTX, &["globalTid", "text", "textId", "endGlobalTid"]),
            );
            for_each_row(db, NVTX, &sql, |row| {
                let (Some(start), Some(kind)) = (int_at(row, 1), int_at(row, 3)) else {
                    let rowid = int_at(row, 0).unwrap_or(-1);
                    return Err(db.query_error(
                        NVTX,
                        format!("rowid {rowid}: start or eventType is not an integer"),
                    ));
                };
                let end = int_at(row, 2);
                last = last.max(start).max(end.unwrap_or(i64::MIN));
                // A start/end range counts only without an `endGlobalTid` (one that may end on
                // another thread does not name the work inside it: checked with nsys 2023.4 on
                // fixtures/nsys/synth_2k.sqlite).
                let cross_thread = kind == 60 && int_at(row, 7).is_some();
                if kind == 59 || (kind == 60 && !cross_thread) {
                    let mut add = |text: String| {
                        *by_text.entry(text).or_insert_with_key(|text| {
                            texts.push(text.clone());
                            u32::try_from(texts.len() - 1).unwrap_or(u32::MAX)
                        })
                    };
                    let index = match row.get_ref(5).ok().and_then(text_of) {
                        Some(text) => add(text),
                        None => match int_at(row, 6) {
                            Some(id) => *by_id.entry(id).or_insert_with(|| {
                                add(strings.get(&id).cloned().unwrap_or_default())
                            }),
                            None => add(String::new()),
                        },
                    };
                    by_thread
                        .entry(int_at(row, 4).unwrap_or(0))
                        .or_default()
                        .push((start, end, index));
                }
                Ok(())
            })?;
        }
        let by_thread = by_thread
            .into_iter()
            .map(|(tid, v)| {
                // Equal starts as read (the unstable sort's tie-break is the read order).
                let mut v: Vec<(i64, u32, i64, u32)> = v
                    .into_iter()
                    .enumerate()
                    .map(|(i, (s, e, t))| (s, index_u32(i), e.unwrap_or(last), t))
                    .collect();
                v.sort_unstable_by_key(|r| (r.0, r.1));
                (tid, v.into_iter().map(|(s, _, e, t)| (s, e, t)).collect())
            })
            .collect();
        Ok(NvtxRanges { by_thread, texts })
    }

    /// The innermost range of thread `global_tid` that holds `[start, end]` (its text's index).
    pub fn innermost(&self, global_tid: i64, start: i64, end: i64) -> Option<u32> {
        let ranges = self.by_thread.get(&global_tid)?;
        let n = ranges.partition_point(|r| r.0 <= start);
        ranges[..n].iter().rev().find(|r| r.1 >= end).map(|r| r.2)
    }
}

/// What names a kernel: the innermost NVTX range (`nvtx-name`), if any, and its name's id.
pub(super) type NameKey = (Option<u32>, i64);

/// Kernel names for the reports: `strings[name]`, prefixed with `range/` under `nvtx-name`.
/// Kernels group by [`NameKey`] (cheap), and only each group's name is built.
pub(super) struct KernelNamer {
    strings: HashMap<i64, String>,
    nvtx: Option<(NvtxRanges, CallsByCorr)>,
}

/// The opening every kernel report shares: with `nvtx_name`, the report is skipped as nsys
/// skips it without NVTX data (`Ok(Err(outcome))`); otherwise the export's strings are read
/// and a namer made of them (reading the NVTX ranges and API calls with `nvtx_name`).
pub(super) fn kernel_namer(
    db: &ExportDb,
    nvtx_name: bool,
) -> Result<Result<KernelNamer, ReportOutcome>, NsysError> {
    if nvtx_name && let Some(skip) = nvtx_missing(db) {
        return skip.map(Err);
    }
    let strings = db.string_ids()?;
    let nvtx = if nvtx_name {
        let (ranges, calls) = read_both(db, |db| NvtxRanges::read(db, &strings), CallsByCorr::read);
        Some((ranges?, calls?))
    } else {
        None
    };
    Ok(Ok(KernelNamer { strings, nvtx }))
}

impl KernelNamer {
    /// The export's strings by id (`StringIds`), as the namer read them.
    pub fn strings(&self) -> &HashMap<i64, String> {
        &self.strings
    }

    /// The key of kernel `k`'s name.
    pub fn key(&self, k: &Kernel) -> NameKey {
        let range = self.nvtx.as_ref().and_then(|(ranges, calls)| {
            let c = calls.of(&k.at).next()?;
            ranges.innermost(c.global_tid, c.start, c.end)
        });
        (range, k.name)
    }

    /// The name a key stands for.
    pub fn text(&self, key: NameKey) -> String {
        let base = string_of(&self.strings, key.1);
        match (key.0, &self.nvtx) {
            (Some(i), Some((ranges, _))) => match ranges.texts.get(i as usize) {
                Some(range) => format!("{range}/{base}"),
                None => base,
            },
            _ => base,
        }
    }

    /// Durations grouped by key, as (name, durations); keys that give the same name (one
    /// range text under two ranges) make one group.
    pub fn by_name<K>(
        &self,
        groups: impl IntoIterator<Item = ((NameKey, K), Vec<i64>)>,
    ) -> Vec<((String, K), Vec<i64>)>
    where
        K: Eq + std::hash::Hash,
    {
        let mut out: FxHashMap<(String, K), Vec<i64>> = FxHashMap::default();
        for ((key, extra), v) in groups {
            out.entry((self.text(key), extra)).or_default().extend(v);
        }
        out.into_iter().collect()
    }
}

/// Kernel durations grouped by name (as `names` and the namer give it).
pub(super) fn kernel_durations(
    db: &ExportDb,
    names: NameKind,
    namer: &KernelNamer,
) -> Result<Vec<(String, Vec<i64>)>, NsysError> {
    let [mut by_key, second] = fold_kernel_halves(
        db,
        names,
        Columns::Lean,
        FxHashMap::default,
        |by_key: &mut FxHashMap<(NameKey, ()), Vec<i64>>, k| {
            by_key
                .entry((namer.key(k), ()))
                .or_default()
                .push(k.at.duration())
        },
    )?;
    merge_groups(&mut by_key, second);
    Ok(namer
        .by_name(by_key)
        .into_iter()
        .map(|((name, ()), v)| (name, v))
        .collect())
}

/// Adds the groups of a later part of a table to those of an earlier one.
pub(super) fn merge_groups<K: Eq + std::hash::Hash>(
    into: &mut FxHashMap<K, Vec<i64>>,
    later: FxHashMap<K, Vec<i64>>,
) {
    for (key, values) in later {
        into.entry(key).or_default().extend(values);
    }
}

/// The skip for `nvtx-name` on an export without NVTX data.
pub(super) fn nvtx_missing(db: &ExportDb) -> Option<Result<ReportOutcome, NsysError>> {
    (!db.has_table(NVTX)).then(|| skipped(db, "NV Tools Extension (NVTX) data"))
}

/// Device names by id: `TARGET_INFO_GPU` (`id` or, in older exports, `deviceId`); none without
/// the table or its columns. A table that does not read is an error, as for the report's own.
pub(super) fn device_names(db: &ExportDb) -> Result<HashMap<i64, String>, NsysError> {
    const T: &str = "TARGET_INFO_GPU";
    let mut out = HashMap::new();
    if !db.has_table(T) {
        return Ok(out);
    }
    let id = if db.has_column(T, "id") {
        "id"
    } else {
        "deviceId"
    };
    if !db.has_column(T, id) || !db.has_column(T, "name") {
        return Ok(out);
    }
    let sql = format!("SELECT rowid, {id}, name FROM {T}");
    for_each_row(db, T, &sql, |row| {
        if let (Some(id), Some(name)) = (int_at(row, 1), row.get_ref(2).ok().and_then(text_of)) {
            out.entry(id).or_insert(name);
        }
        Ok(())
    })?;
    Ok(out)
}

/// `x` formatted `%4d %4d %4d` (nsys's GridXYZ and BlockXYZ).
pub(super) fn xyz(v: [i64; 3]) -> String {
    format!("{:>4} {:>4} {:>4}", v[0], v[1], v[2])
}

#[cfg(test)]
mod tests {
    use super::CorrIndex;
    use crate::core::num::index_u32;

    #[test]
    fn dense_and_sparse_indexes_agree() {
        let keys = [1_i64, 1, 2, 4, 4, 4, 7];
        let dense = CorrIndex::of(keys.iter().copied());
        assert!(matches!(dense, CorrIndex::Dense { .. }));
        let sparse_keys: Vec<i64> = keys.iter().map(|k| k * 1_000_000_000).collect();
        let sparse = CorrIndex::of(sparse_keys.iter().copied());
        assert!(matches!(sparse, CorrIndex::Sparse(_)));
        for (key, want) in [
            (1, (0, 2)),
            (2, (2, 3)),
            (3, (3, 3)),
            (4, (3, 6)),
            (7, (6, 7)),
        ] {
            assert_eq!(dense.range(key), want, "dense {key}");
            let (lo, hi) = sparse.range(key * 1_000_000_000);
            assert_eq!(hi - lo, want.1 - want.0, "sparse {key}");
            if hi > lo {
                assert_eq!((lo, hi), want);
            }
        }
        for absent in [0, 8, -5, i64::MIN, i64::MAX] {
            assert_eq!(dense.range(absent).0, dense.range(absent).1);
        }
        assert_eq!(CorrIndex::of([].into_iter()).range(1), (0, 0));
        let extreme = CorrIndex::of([i64::MIN, i64::MAX].into_iter());
        assert_eq!(extreme.range(i64::MAX), (1, 2));
    }

    #[test]
    fn sorted_keys_are_a_sort_of_the_present_ones() {
        let dense = [
            Some(4),
            None,
            Some(2),
            Some(4),
            Some(9),
            None,
            Some(2),
            Some(3),
        ];
        let sparse = dense.map(|k| k.map(|k: i64| k.wrapping_mul(1 << 40) - 7));
        for (keys, is_dense) in [(&dense, true), (&sparse, false)] {
            let (sorted, index) = CorrIndex::sorted(keys);
            assert_eq!(matches!(index, CorrIndex::Dense { .. }), is_dense);
            let mut want: Vec<(i64, u32)> = keys
                .iter()
                .enumerate()
                .filter_map(|(i, k)| k.map(|k| (k, index_u32(i))))
                .collect();
            want.sort_unstable();
            assert_eq!(sorted, want);
            for &(k, _) in &want {
                let (lo, hi) = index.range(k);
                assert!(sorted[lo..hi].iter().all(|&(s, _)| s == k), "key {k}");
                assert_eq!(hi - lo, want.iter().filter(|w| w.0 == k).count());
            }
        }
        assert!(CorrIndex::sorted(&[None, None]).0.is_empty());
    }
}
