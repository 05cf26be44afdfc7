//! The pace recipes (`nvtx_pace`, `nvtx_gpu_proj_pace`, `cuda_gpu_kern_pace`): how the
//! instances of one NVTX range (by text), one projected range or one kernel (by short name),
//! named by `--name`, follow each other in every file. Learnt from the recipes' outputs
//! (`../shared/corpus/nsys/recipes/pace/` and runs on exports with known values):
//!
//! - per file, the instances in table order (the export's row order: `NVTX_EVENTS` for the
//!   ranges and their projections, `CUPTI_ACTIVITY_KIND_KERNEL` for the kernels; instances on
//!   several threads or streams overlap, and the deltas are then negative), not by start;
//!   one column per file holding them (named by the file's
//!   rank, its place among the files that have the name: `0`, `1`...), one row per instance
//!   (shorter files padded with missing values, which makes their column floats);
//! - a file whose NVTX table has a row without end (its `end` column floats) has its ends,
//!   durations and deltas as floats (`nvtx_pace`);
//! - `pace_start`/`pace_end`: the instances' start and end moved onto a common clock (plus the
//!   file's session start, `TARGET_INFO_SESSION_START_TIME.utcEpochNs`, minus the earliest of
//!   the files'; a file without one is not moved — NVIDIA's recipe stops with a `KeyError`);
//!   `pace_duration` and its running sum `pace_duration_accum`; `pace_delta`, the first
//!   instance's own start (not moved) and then each gap from an instance's end to the next
//!   start, and its running sum `pace_delta_accum`;
//! - `pace_delta_stats`: per row, the deltas of the files that have one described (count,
//!   mean, standard deviation by two passes, quartiles, sum; all floats, as pandas' row-wise
//!   statistics give them, with NumPy's pairwise sums);
//! - `stats`: the named group across files as the summary recipes' `all_stats` combine it.

use std::path::Path;

use super::describe::{Approx, Described, quantile};
use super::nvtx::{Window, read_ranges};
use super::ranks::{approx_table, files_table, floats_column};
use super::table::{PandasIndex, Table, TableColumn};
use super::{FileOutcome, Kind, Recipe, RecipeKind, RecipeOption, RecipeOptions};
use crate::timeline::nsys::db::int_of;
use crate::timeline::nsys::stats::projected_ranges;
use crate::timeline::nsys::{ExportDb, NsysError};

/// What a pace recipe follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaceOf {
    /// NVTX push/pop and start/end ranges, by text (`nvtx_pace`).
    Nvtx,
    /// NVTX ranges projected onto the GPU, by text (`nvtx_gpu_proj_pace`).
    Projection,
    /// CUDA kernels, by short name (`cuda_gpu_kern_pace`).
    Kernel,
}

/// One file's instances of the name.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PacePart {
    /// The session's start (ns since the epoch), when the export has it.
    pub session_start: Option<i64>,
    /// The instances' start and end (ns), in table order.
    pub instances: Vec<(i64, i64)>,
    /// Their durations' statistics (in table order).
    pub stats: Described,
    /// Whether the recipe holds the durations as floats (NVTX ranges of a file with a row
    /// without end).
    pub floats: bool,
}

/// One file's instances of `name`; `None` when it has none.
pub fn pace_part(
    db: &ExportDb,
    of: PaceOf,
    name: &str,
    window: Window,
) -> Result<Option<PacePart>, NsysError> {
    let mut floats = false;
    let instances: Vec<(i64, i64)> = match of {
        PaceOf::Nvtx => {
            let Some((ranges, open)) = read_ranges(db)? else {
                return Ok(None);
            };
            floats = open;
            ranges
                .into_iter()
                .filter(|r| r.text.as_deref() == Some(name) && window.keeps(r.start, r.end))
                .filter_map(|r| Some((r.start, r.end?)))
                .collect()
        }
        PaceOf::Projection => projected_ranges(db, window.bounds())?
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r.text == name && window.keeps(r.start, r.end))
            .map(|r| (r.proj_start, r.proj_end))
            .collect(),
        PaceOf::Kernel => kernels(db, name, window)?,
    };
    let durations: Vec<i64> = instances.iter().map(|&(s, e)| e - s).collect();
    let Some(stats) = Described::of(&durations) else {
        return Ok(None);
    };
    Ok(Some(PacePart {
        session_start: session_start(db)?,
        instances,
        stats,
        floats,
    }))
}

/// The kernels of short name `name` (start, end), in table order.
fn kernels(db: &ExportDb, name: &str, window: Window) -> Result<Vec<(i64, i64)>, NsysError> {
    const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
    if !db.has_table(KERNEL) {
        return Ok(Vec::new());
    }
    let strings = db.string_ids()?;
    let ids: Vec<i64> = strings
        .iter()
        .filter(|(_, s)| s.as_str() == name)
        .map(|(&id, _)| id)
        .collect();
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let short = db.col_or_null(KERNEL, "shortName");
    let sql = format!("SELECT rowid, start, end, {short} FROM {KERNEL} ORDER BY rowid");
    let mut out = Vec::new();
    db.scan_around_damage(KERNEL, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        if let (Some(start), Some(end), Some(id)) = (v(1), v(2), v(3))
            && ids.contains(&id)
            && window.keeps(start, Some(end))
        {
            out.push((start, end));
        }
        Ok(())
    })?;
    Ok(out)
}

/// `TARGET_INFO_SESSION_START_TIME.utcEpochNs`, when there is one.
fn session_start(db: &ExportDb) -> Result<Option<i64>, NsysError> {
    const T: &str = "TARGET_INFO_SESSION_START_TIME";
    if !db.has_column(T, "utcEpochNs") {
        return Ok(None);
    }
    let mut first = None;
    db.scan_around_damage(
        T,
        &format!("SELECT rowid, utcEpochNs FROM {T} LIMIT 1"),
        |row| {
            first = row.get_ref(1).ok().and_then(int_of);
            Ok(())
        },
    )?;
    Ok(first)
}

/// The pace tables' series: per table stem, one column per file (files in rank order).
pub fn pace_series(parts: &[&PacePart]) -> Vec<(&'static str, Vec<Vec<i64>>)> {
    let earliest = parts.iter().filter_map(|p| p.session_start).min();
    let offset = |p: &PacePart| match (p.session_start, earliest) {
        (Some(s), Some(e)) => s - e,
        _ => 0,
    };
    let each = |f: &dyn Fn(&PacePart) -> Vec<i64>| parts.iter().map(|p| f(p)).collect();
    let accum = |v: Vec<i64>| {
        v.into_iter()
            .scan(0_i64, |s, x| {
                *s = s.saturating_add(x);
                Some(*s)
            })
            .collect::<Vec<i64>>()
    };
    let delta = |p: &PacePart| -> Vec<i64> {
        let mut prev_end = None;
        p.instances
            .iter()
            .map(|&(s, e)| {
                let d = prev_end.map_or(s, |pe| s - pe);
                prev_end = Some(e);
                d
            })
            .collect()
    };
    let duration = |p: &PacePart| -> Vec<i64> { p.instances.iter().map(|&(s, e)| e - s).collect() };
    vec![
        (
            "pace_start",
            each(&|p| p.instances.iter().map(|i| i.0 + offset(p)).collect()),
        ),
        (
            "pace_end",
            each(&|p| p.instances.iter().map(|i| i.1 + offset(p)).collect()),
        ),
        ("pace_duration", each(&duration)),
        ("pace_duration_accum", each(&|p| accum(duration(p)))),
        ("pace_delta", each(&delta)),
        ("pace_delta_accum", each(&|p| accum(delta(p)))),
    ]
}

/// One row of `pace_delta_stats`: the row's values across files as pandas' row-wise
/// statistics give them (`None`: missing).
#[derive(Debug, Clone, PartialEq)]
pub struct RowStats {
    /// Count, mean, std, min, Q1, median, Q3, max, sum.
    pub cells: [Option<f64>; 9],
}

/// `pace_delta_stats`' rows from the files' columns (row `k` of a column shorter than `k`
/// missing).
pub fn row_stats(columns: &[Vec<i64>]) -> Vec<RowStats> {
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    (0..rows)
        .map(|k| {
            // The row as pandas holds it: missing values as 0 in the sums.
            let row: Vec<Option<i64>> = columns.iter().map(|c| c.get(k).copied()).collect();
            let n = row.iter().flatten().count();
            let filled: Vec<f64> = row.iter().map(|v| v.map_or(0.0, |x| x as f64)).collect();
            let sum = pairwise_sum(&filled);
            let mean = sum / n as f64;
            let squares: Vec<f64> = row
                .iter()
                .map(|v| v.map_or(0.0, |x| (mean - x as f64).powi(2)))
                .collect();
            let std = (n > 1).then(|| (pairwise_sum(&squares) / (n - 1) as f64).sqrt());
            let mut sorted: Vec<i64> = row.iter().flatten().copied().collect();
            sorted.sort_unstable();
            let (min, max) = (sorted[0] as f64, sorted[n - 1] as f64);
            let q = |p| Some(quantile(&sorted, p));
            RowStats {
                cells: [
                    Some(n as f64),
                    Some(mean),
                    std,
                    Some(min),
                    q(1),
                    q(2),
                    q(3),
                    Some(max),
                    Some(sum),
                ],
            }
        })
        .collect()
}

/// NumPy's pairwise summation of `v` (`np.add.reduce` on float64): a plain loop under 8
/// values, eight running sums up to 128, halves (rounded to a multiple of 8) above.
pub fn pairwise_sum(v: &[f64]) -> f64 {
    let n = v.len();
    if n < 8 {
        return v.iter().fold(0.0, |s, x| s + x);
    }
    if n <= 128 {
        let mut r: [f64; 8] = [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]];
        let mut i = 8;
        while i + 8 <= n {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += v[i + j];
            }
            i += 8;
        }
        let mut s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for x in &v[i..] {
            s += x;
        }
        return s;
    }
    let mut half = n / 2;
    half -= half % 8;
    pairwise_sum(&v[..half]) + pairwise_sum(&v[half..])
}

/// `stats`: the named group across files.
pub fn pace_stats(parts: &[&PacePart]) -> Option<Approx> {
    let rows: Vec<&Described> = parts.iter().map(|p| &p.stats).collect();
    Approx::of(&rows)
}

/// A pace recipe of this kind.
const fn pace(name: &'static str, about: &'static str, of: PaceOf) -> Recipe {
    Recipe {
        name,
        about,
        options: &[RecipeOption::Name, RecipeOption::Start, RecipeOption::End],
        kind: Kind::Pace(Pace { of }),
    }
}

/// `nvtx_pace`.
pub const NVTX_PACE: Recipe = pace(
    "nvtx_pace",
    "How the instances of one NVTX range (--name) follow each other in every rank",
    PaceOf::Nvtx,
);

/// `nvtx_gpu_proj_pace`.
pub const NVTX_GPU_PROJ_PACE: Recipe = pace(
    "nvtx_gpu_proj_pace",
    "How one NVTX range (--name) projected onto the GPU paces every rank",
    PaceOf::Projection,
);

/// `cuda_gpu_kern_pace`.
pub const CUDA_GPU_KERN_PACE: Recipe = pace(
    "cuda_gpu_kern_pace",
    "How the instances of one CUDA kernel (--name, its short name) follow each other in every rank",
    PaceOf::Kernel,
);

/// A pace recipe.
#[derive(Debug)]
pub struct Pace {
    /// What it follows.
    pub of: PaceOf,
}

impl RecipeKind for Pace {
    /// The file's instances of the name.
    type Partial = PacePart;

    fn file(&self, path: &Path, options: &RecipeOptions) -> FileOutcome<PacePart> {
        let Some(name) = options.name.as_deref() else {
            return FileOutcome::Failed("the recipe needs --name".into());
        };
        let db = match ExportDb::open_salvaging(path) {
            Ok(db) => db,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        let window = Window {
            start: options.start,
            end: options.end,
        };
        match pace_part(&db, self.of, name, window) {
            Ok(Some(part)) => FileOutcome::Data(part),
            Ok(None) => {
                FileOutcome::NoData(format!("{} does not contain '{name}'.", path.display()))
            }
            Err(e) => FileOutcome::Failed(e.to_string()),
        }
    }

    fn tables(
        &self,
        stems: &[String],
        files: &[Option<PacePart>],
        options: &RecipeOptions,
    ) -> Vec<Table> {
        let (stems, parts): (Vec<String>, Vec<&PacePart>) = super::with_data(stems, files)
            .into_iter()
            .map(|(s, p)| (s.clone(), p))
            .unzip();
        let Some(stats) = pace_stats(&parts) else {
            return Vec::new();
        };
        let floats = parts.iter().any(|p| p.floats);
        let mut tables = vec![files_table(stems)];
        let series = pace_series(&parts);
        let deltas = series
            .iter()
            .find(|(stem, _)| *stem == "pace_delta")
            .map(|(_, c)| row_stats(c))
            .unwrap_or_default();
        // A file whose NVTX ends are floats has its ends, durations and deltas as floats.
        let float_files: Vec<bool> = parts.iter().map(|p| p.floats).collect();
        tables.extend(series.into_iter().map(|(stem, columns)| {
            let as_floats: &[bool] = if stem == "pace_start" {
                &[]
            } else {
                &float_files
            };
            series_table(stem, &columns, as_floats)
        }));
        let names = [
            "Count", "Mean", "Std", "Min", "Q1", "Median", "Q3", "Max", "Sum",
        ];
        tables.push(Table {
            stem: "pace_delta_stats",
            columns: names
                .iter()
                .enumerate()
                .map(|(i, n)| floats_column(n, deltas.iter().map(|r| r.cells[i])))
                .collect(),
            index: PandasIndex::Dropped,
            csv: false,
        });
        let name = options.name.as_deref().unwrap_or_default();
        // The kernel recipe names its key column as the kernel table does.
        let key = if self.of == PaceOf::Kernel {
            "Shortname"
        } else {
            "Text"
        };
        tables.push(approx_table("stats", (key, name), &stats, floats));
        tables
    }
}

/// One pace table: a column per file named by its rank, integers where the file reaches the
/// last row, floats (missing values after its end) where it does not or `floats` says so.
fn series_table(stem: &'static str, columns: &[Vec<i64>], floats: &[bool]) -> Table {
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    let columns = columns
        .iter()
        .enumerate()
        .map(|(rank, values)| {
            let name = rank.to_string();
            if values.len() == rows && !floats.get(rank).copied().unwrap_or(false) {
                TableColumn::ints(&name, values.iter().copied())
            } else {
                floats_column(&name, (0..rows).map(|k| values.get(k).map(|&v| v as f64)))
            }
        })
        .collect();
    Table {
        stem,
        columns,
        index: PandasIndex::Dropped,
        csv: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(session_start: Option<i64>, instances: &[(i64, i64)]) -> PacePart {
        let durations: Vec<i64> = instances.iter().map(|&(s, e)| e - s).collect();
        PacePart {
            session_start,
            instances: instances.to_vec(),
            stats: Described::of(&durations).unwrap(),
            floats: false,
        }
    }

    #[test]
    fn series_move_starts_onto_the_common_clock_but_not_the_first_delta() {
        let a = part(Some(1_000), &[(100, 150), (200, 260), (300, 310)]);
        let b = part(Some(900), &[(100, 120), (130, 200)]);
        let series = pace_series(&[&a, &b]);
        let get = |stem: &str| series.iter().find(|(s, _)| *s == stem).unwrap().1.clone();
        assert_eq!(get("pace_start"), [vec![200, 300, 400], vec![100, 130]]);
        assert_eq!(get("pace_end"), [vec![250, 360, 410], vec![120, 200]]);
        assert_eq!(get("pace_duration"), [vec![50, 60, 10], vec![20, 70]]);
        assert_eq!(
            get("pace_duration_accum"),
            [vec![50, 110, 120], vec![20, 90]]
        );
        assert_eq!(get("pace_delta"), [vec![100, 50, 40], vec![100, 10]]);
        assert_eq!(
            get("pace_delta_accum"),
            [vec![100, 150, 190], vec![100, 110]]
        );
        // A file without a session start stays where it is.
        let c = part(None, &[(5, 6)]);
        assert_eq!(pace_series(&[&a, &c])[0].1, [vec![100, 200, 300], vec![5]]);
    }

    /// Row 4 of a recipe run on three cuts of one export, and a row only one file reaches.
    #[test]
    fn rows_are_described_across_files() {
        let cols = [
            vec![0, 0, 0, 0, 3_573_289],
            vec![0, 0, 0, 0, 21_311_454, 7],
            vec![0, 0, 0, 0, 3_573_289],
        ];
        let rows = row_stats(&cols);
        assert_eq!(rows.len(), 6);
        let r = &rows[4].cells;
        assert_eq!(r[0], Some(3.0));
        assert_eq!(r[1], Some(9486010.666666666));
        assert_eq!(r[2], Some(10241134.337679999));
        assert_eq!(
            (r[4], r[5], r[6]),
            (Some(3573289.0), Some(3573289.0), Some(12442371.5))
        );
        assert_eq!(rows[5].cells[2], None);
        assert_eq!(rows[5].cells[8], Some(7.0));
    }

    #[test]
    fn sums_pair_as_numpy_pairs_them() {
        let v: Vec<f64> = (0..300).map(|i| 0.1 * f64::from(i)).collect();
        let plain: f64 = v.iter().sum();
        assert!((pairwise_sum(&v) - plain).abs() < 1e-9);
        assert_eq!(pairwise_sum(&[1.0, 2.0]), 3.0);
    }
}
