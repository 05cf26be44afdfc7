//! The NVTX, NCCL and MPI summary recipes (`nvtx_sum`, `nvtx_gpu_proj_sum`, `nccl_sum`,
//! `nccl_gpu_proj_sum`, `mpi_sum`): per file, the durations of its ranges or calls by text
//! ([`super::nvtx`], [`super::mpi`]) described as [`super::describe`] says; written as
//! `rank_stats` (every file's groups, files in order, each file's by text, with the file's
//! rank — its place among the files with data — and stem), `all_stats` (the groups across
//! files, by text) and `files` (the stems of the files with data), as the recipes write them.

use std::collections::BTreeMap;
use std::path::Path;

use super::describe::{Approx, Described};
use super::nvtx::{RankPart, Window, nvtx_part, projection_part};
use super::table::{Cells, PandasIndex, Table, TableColumn};
use super::{FileOutcome, Kind, Recipe, RecipeKind, RecipeOption, RecipeOptions};
use crate::timeline::nsys::ExportDb;

/// What a summary of ranges or calls reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangesOf {
    /// NVTX ranges (of one domain, when named).
    Nvtx(Option<&'static str>),
    /// NVTX ranges projected onto the GPU (of one domain, when named).
    Projection(Option<&'static str>),
    /// MPI calls.
    Mpi,
}

/// A summary recipe of ranges or calls.
#[derive(Debug)]
pub struct RangeSummary {
    /// What it reads.
    pub of: RangesOf,
}

/// The options of these recipes.
const WINDOW: &[RecipeOption] = &[RecipeOption::Start, RecipeOption::End];

/// A recipe of this kind.
const fn ranges(name: &'static str, about: &'static str, of: RangesOf) -> Recipe {
    Recipe {
        name,
        about,
        options: WINDOW,
        kind: Kind::Ranges(RangeSummary { of }),
    }
}

/// `nvtx_sum`.
pub const NVTX_SUM: Recipe = ranges(
    "nvtx_sum",
    "NVTX push/pop and start/end range durations by text, per rank and across ranks",
    RangesOf::Nvtx(None),
);

/// `nvtx_gpu_proj_sum`.
pub const NVTX_GPU_PROJ_SUM: Recipe = ranges(
    "nvtx_gpu_proj_sum",
    "NVTX ranges projected onto the GPU, durations by text, per rank and across ranks",
    RangesOf::Projection(None),
);

/// `nccl_sum`.
pub const NCCL_SUM: Recipe = ranges(
    "nccl_sum",
    "NCCL calls (NVTX ranges of the NCCL domain) by name, per rank and across ranks",
    RangesOf::Nvtx(Some("NCCL")),
);

/// `nccl_gpu_proj_sum`.
pub const NCCL_GPU_PROJ_SUM: Recipe = ranges(
    "nccl_gpu_proj_sum",
    "NCCL calls projected onto the GPU, by name, per rank and across ranks",
    RangesOf::Projection(Some("NCCL")),
);

/// `mpi_sum`.
pub const MPI_SUM: Recipe = ranges(
    "mpi_sum",
    "MPI call durations by function, per rank and across ranks",
    RangesOf::Mpi,
);

impl RecipeKind for RangeSummary {
    /// The file's groups by text.
    type Partial = RankPart;

    fn file(&self, path: &Path, options: &RecipeOptions) -> FileOutcome<RankPart> {
        let db = match ExportDb::open_salvaging(path) {
            Ok(db) => db,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        let window = Window {
            start: options.start,
            end: options.end,
        };
        let part = match self.of {
            RangesOf::Nvtx(domain) => nvtx_part(&db, domain, window),
            RangesOf::Projection(domain) => projection_part(&db, domain, window),
            RangesOf::Mpi => super::mpi::mpi_part(&db, window),
        };
        match part {
            Ok(Some(part)) => FileOutcome::Data(part),
            Ok(None) => FileOutcome::NoData(format!(
                "{}: no {} in the file",
                path.display(),
                match self.of {
                    RangesOf::Nvtx(Some(_)) | RangesOf::Projection(Some(_)) => "NCCL ranges",
                    RangesOf::Nvtx(None) | RangesOf::Projection(None) => "NVTX ranges",
                    RangesOf::Mpi => "MPI calls",
                }
            )),
            Err(e) => FileOutcome::Failed(e.to_string()),
        }
    }

    fn tables(
        &self,
        stems: &[String],
        files: &[Option<RankPart>],
        _: &RecipeOptions,
    ) -> Vec<Table> {
        let with_data = super::with_data(stems, files);
        if with_data.is_empty() {
            return Vec::new();
        }
        let floats = with_data.iter().any(|(_, p)| p.floats);
        vec![
            all_stats(&with_data, floats),
            rank_stats(&with_data, floats),
            files_table(with_data.iter().map(|(s, _)| (*s).clone())),
        ]
    }
}

/// The `files` table: the stems of the files with data.
pub fn files_table(stems: impl IntoIterator<Item = String>) -> Table {
    Table {
        stem: "files",
        columns: vec![TableColumn::texts("File", stems)],
        index: PandasIndex::Dropped,
        csv: false,
    }
}

/// A column of durations (min, max, sum): floats when the recipe holds them as floats.
fn durations(name: &str, values: impl IntoIterator<Item = i64>, floats: bool) -> TableColumn {
    let values = values.into_iter();
    TableColumn {
        name: name.to_owned(),
        cells: if floats {
            Cells::Float(values.map(|v| Some(v as f64)).collect())
        } else {
            Cells::Int(values.map(Some).collect())
        },
    }
}

/// A column of floats (`None`: missing).
pub(crate) fn floats_column(
    name: &str,
    values: impl IntoIterator<Item = Option<f64>>,
) -> TableColumn {
    TableColumn {
        name: name.to_owned(),
        cells: Cells::Float(values.into_iter().collect()),
    }
}

/// The statistics columns of described groups (`approx`: the across-file headers).
fn stats_columns(
    key: &str,
    rows: &[(&str, Described)],
    floats: bool,
    approx: bool,
) -> Vec<TableColumn> {
    let h = |name: &str| {
        if approx && !matches!(name, "Count" | "Mean" | "Min" | "Max" | "Sum") {
            format!("{name} (approx)")
        } else {
            name.to_owned()
        }
    };
    let f = |name: &str, pick: fn(&Described) -> Option<f64>| {
        floats_column(&h(name), rows.iter().map(|(_, d)| pick(d)))
    };
    vec![
        TableColumn::texts(key, rows.iter().map(|(t, _)| (*t).to_owned())),
        TableColumn::ints(
            "Count",
            rows.iter()
                .map(|(_, d)| i64::try_from(d.count).unwrap_or(i64::MAX)),
        ),
        f("Mean", |d| Some(d.mean)),
        f("Std", |d| d.std),
        durations("Min", rows.iter().map(|(_, d)| d.min), floats),
        f("Q1", |d| Some(d.q1)),
        f("Median", |d| Some(d.median)),
        f("Q3", |d| Some(d.q3)),
        durations("Max", rows.iter().map(|(_, d)| d.max), floats),
        durations("Sum", rows.iter().map(|(_, d)| d.sum), floats),
    ]
}

/// `rank_stats`: every file's groups, files in order.
fn rank_stats(files: &[(&String, &RankPart)], floats: bool) -> Table {
    let mut rows: Vec<(&str, Described)> = Vec::new();
    let mut ranks = Vec::new();
    let mut stems = Vec::new();
    for (rank, (stem, part)) in files.iter().enumerate() {
        for (text, d) in &part.groups {
            rows.push((text, d.clone()));
            ranks.push(i64::try_from(rank).unwrap_or(i64::MAX));
            stems.push((*stem).clone());
        }
    }
    let mut columns = stats_columns("Text", &rows, floats, false);
    columns.push(TableColumn::ints("Rank", ranks));
    columns.push(TableColumn::texts("File", stems));
    Table {
        stem: "rank_stats",
        columns,
        index: PandasIndex::Key,
        csv: true,
    }
}

/// `all_stats`: the groups across files, by text.
fn all_stats(files: &[(&String, &RankPart)], floats: bool) -> Table {
    let mut by_text: BTreeMap<&str, Vec<&Described>> = BTreeMap::new();
    for (_, part) in files {
        for (text, d) in &part.groups {
            by_text.entry(text).or_default().push(d);
        }
    }
    let rows: Vec<(&str, Described)> = by_text
        .into_iter()
        .filter_map(|(text, ds)| Some((text, approx_row(&Approx::of(&ds)?))))
        .collect();
    Table {
        stem: "all_stats",
        columns: stats_columns("Text", &rows, floats, true),
        index: PandasIndex::Key,
        csv: true,
    }
}

/// An across-file row in the shape of a file's (so both tables share their columns' code).
pub(crate) fn approx_row(a: &Approx) -> Described {
    Described {
        count: a.count,
        mean: a.mean,
        std: a.std,
        min: a.min,
        q1: a.q1,
        median: a.median,
        q3: a.q3,
        max: a.max,
        sum: a.sum,
    }
}

/// The across-file table of one group (the pace recipes' `stats`), its key column `key`.
pub(crate) fn approx_table(
    stem: &'static str,
    (key, text): (&str, &str),
    a: &Approx,
    floats: bool,
) -> Table {
    Table {
        stem,
        columns: stats_columns(key, &[(text, approx_row(a))], floats, true),
        index: PandasIndex::Key,
        csv: false,
    }
}
