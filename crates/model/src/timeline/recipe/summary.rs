//! The summary recipes (`cuda_api_sum`, `cuda_gpu_kern_sum`, `cuda_gpu_mem_size_sum`,
//! `cuda_gpu_mem_time_sum`, `osrt_sum`): per file, the groups of one `nsys stats` report with
//! quartiles (`rank_stats`); across files, the groups combined (`all_stats`); both as CSV and
//! Parquet, as the recipe writes them (columns, row order, number formats; see [`super::stats`]).

use std::collections::HashMap;
use std::path::Path;

use super::stats::{AllStats, RankStats, py_float, round1};
use super::table::{Cells, PandasIndex, Table, TableColumn};
use super::{FileOutcome, Kind, Recipe, RecipeKind, RecipeOptions};
use crate::timeline::nsys::ExportDb;
use crate::timeline::nsys::stats::{ReportOutcome, ReportRequest, named_values, summary_order};
use crate::timeline::summary::fmt_ratio;

/// `cuda_api_sum`.
pub const CUDA_API_SUM: Recipe = summary(
    "cuda_api_sum",
    "CUDA API summary per rank and across ranks",
    Summary {
        report: "cuda_api_sum",
        key: "Name",
        count: "Num Calls",
        sizes: false,
    },
);

/// `cuda_gpu_kern_sum`.
pub const CUDA_GPU_KERN_SUM: Recipe = summary(
    "cuda_gpu_kern_sum",
    "CUDA GPU kernel summary per rank and across ranks",
    Summary {
        report: "cuda_gpu_kern_sum",
        key: "Name",
        count: "Instances",
        sizes: false,
    },
);

/// `cuda_gpu_mem_size_sum`.
pub const CUDA_GPU_MEM_SIZE_SUM: Recipe = summary(
    "cuda_gpu_mem_size_sum",
    "CUDA GPU memory operations by size, per rank and across ranks",
    Summary {
        report: "cuda_gpu_mem_size_sum",
        key: "Operation",
        count: "Count",
        sizes: true,
    },
);

/// `cuda_gpu_mem_time_sum`.
pub const CUDA_GPU_MEM_TIME_SUM: Recipe = summary(
    "cuda_gpu_mem_time_sum",
    "CUDA GPU memory operations by time, per rank and across ranks",
    Summary {
        report: "cuda_gpu_mem_time_sum",
        key: "Operation",
        count: "Count",
        sizes: false,
    },
);

/// `osrt_sum`.
pub const OSRT_SUM: Recipe = summary(
    "osrt_sum",
    "OS runtime summary per rank and across ranks",
    Summary {
        report: "osrt_sum",
        key: "Name",
        count: "Num Calls",
        sizes: false,
    },
);

/// A summary recipe (they take no options).
const fn summary(name: &'static str, about: &'static str, summary: Summary) -> Recipe {
    Recipe {
        name,
        about,
        options: &[],
        kind: Kind::Summary(summary),
    }
}

/// What a summary recipe summarizes and how its tables are headed.
#[derive(Debug)]
pub struct Summary {
    /// The `nsys stats` report whose groups it summarizes per file.
    pub report: &'static str,
    /// The header of the group column (`Name`, `Operation`).
    pub key: &'static str,
    /// The header of the count column (`Instances`, `Num Calls`, `Count`).
    pub count: &'static str,
    /// Whether the values are sizes (bytes: `Total` and integer quartiles, no `Time`).
    pub sizes: bool,
}

impl RecipeKind for Summary {
    /// The file's groups, in `nsys stats` order.
    type Partial = Vec<RankStats>;

    fn file(&self, path: &Path, _: &RecipeOptions) -> FileOutcome<Vec<RankStats>> {
        let db = match ExportDb::open_salvaging(path) {
            Ok(db) => db,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        let request = match ReportRequest::parse(self.report) {
            Ok(r) => r,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        let named = match named_values(&db, &request) {
            Ok(Ok(named)) => named,
            Ok(Err(ReportOutcome::Skipped(why))) => return FileOutcome::NoData(why),
            Ok(Err(_)) => {
                return FileOutcome::NoData(format!("{}: no {} data", path.display(), self.report));
            }
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        let mut rows: Vec<RankStats> = named
            .into_iter()
            .filter_map(|(name, mut values)| RankStats::of(name, &mut values))
            .collect();
        // `nsys stats`' order (two groups may share a name: API functions with a `_vNNNN`
        // suffix).
        let kernels = self.report == "cuda_gpu_kern_sum";
        rows.sort_by(|a, b| summary_order(&a.name, &a.summary, &b.name, &b.summary, kernels));
        FileOutcome::Data(rows)
    }

    fn tables(
        &self,
        stems: &[String],
        files: &[Option<Vec<RankStats>>],
        _: &RecipeOptions,
    ) -> Vec<Table> {
        let ranks: Vec<Vec<RankStats>> = files
            .iter()
            .map(|f| f.clone().unwrap_or_default())
            .collect();
        let tables = Tables {
            summary: self,
            stems,
            all: combine(&ranks),
            ranks,
        };
        vec![
            table("all_stats", tables.all_rows()),
            table("rank_stats", tables.rank_rows()),
        ]
    }
}

/// A table of text cells typed as pandas types them (the key column and the file columns are
/// text whatever they hold), its key column the index.
fn table(stem: &'static str, (header, rows): (Vec<&'static str>, Vec<Vec<String>>)) -> Table {
    let columns = header
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let cells: Vec<&str> = rows
                .iter()
                .map(|r| r.get(c).map_or("", String::as_str))
                .collect();
            let text = c == 0 || matches!(*name, "File" | "Min File" | "Max File");
            TableColumn {
                name: (*name).to_owned(),
                cells: Cells::from_text(&cells, text),
            }
        })
        .collect();
    Table {
        stem,
        columns,
        index: PandasIndex::Key,
        csv: true,
    }
}

/// The groups across files, by total (descending), then in the order first met.
fn combine(ranks: &[Vec<RankStats>]) -> Vec<AllStats> {
    // Groups in the order first met (files in order, each file's rows in order).
    let mut order: Vec<&str> = Vec::new();
    let mut by_name: HashMap<&str, Vec<(usize, &RankStats)>> = HashMap::new();
    for (file, rows) in ranks.iter().enumerate() {
        for row in rows {
            let entry = by_name.entry(&row.name).or_default();
            if entry.is_empty() {
                order.push(&row.name);
            }
            entry.push((file, row));
        }
    }
    let mut all: Vec<AllStats> = order
        .iter()
        .filter_map(|name| AllStats::combine(by_name.get(name)?))
        .collect();
    // Stable: equal totals keep the order first met.
    all.sort_by_key(|a| std::cmp::Reverse(a.total));
    all
}

/// What the two tables are made of.
struct Tables<'a> {
    summary: &'a Summary,
    stems: &'a [String],
    /// Each input's rows (empty for a file without the data), in `nsys stats` order.
    ranks: Vec<Vec<RankStats>>,
    /// The groups across files, by total (descending).
    all: Vec<AllStats>,
}

impl Tables<'_> {
    /// The statistics headers, then the trailing `File` or `Min File`/`Max File`.
    fn header(&self, trailing: &[&'static str]) -> Vec<&'static str> {
        let r = self.summary;
        let mut h = vec![r.key];
        if r.sizes {
            h.extend(["Total", r.count]);
        } else {
            h.extend(["Time", "Total Time", r.count]);
        }
        h.extend(["Avg", "Q1", "Med", "Q3", "Min", "Max", "StdDev"]);
        h.extend(trailing);
        h
    }

    /// Quartile `which`'s text (0: Q1, 1: Q3, 2: the size recipe's median) from twice its
    /// value: as a float when any row's is the mean of two different values (the recipe's
    /// column is then of floats), else as an integer.
    fn quartile(&self, which: usize, x2: i128) -> String {
        let floats = self.ranks.iter().flatten().any(|r| r.between[which]);
        if floats {
            py_float(x2 as f64 / 2.0)
        } else {
            x2.div_euclid(2).to_string()
        }
    }

    /// A rank row's statistics cells as `nsys stats` rounds them (the recipe takes them from
    /// its reports): (Time), total, count, mean, Q1, median, Q3, min, max, deviation.
    fn rank_cells(&self, r: &RankStats, grand: i128) -> Vec<String> {
        let s = &r.summary;
        let sizes = self.summary.sizes;
        let mut cells = Vec::new();
        if !sizes {
            cells.push(fmt_ratio(100 * s.total, grand, 1));
        }
        cells.push(s.total.to_string());
        cells.push(s.count.to_string());
        if sizes {
            // The size recipe computes its own statistics in bytes, unrounded.
            cells.push(py_float(s.total as f64 / s.count as f64));
            cells.push(self.quartile(0, r.q1_x2));
            cells.push(self.quartile(2, s.median_x2));
            cells.push(self.quartile(1, r.q3_x2));
        } else {
            cells.push(r.mean_text());
            cells.push(self.quartile(0, r.q1_x2));
            cells.push(fmt_ratio(s.median_x2, 2, 1));
            cells.push(self.quartile(1, r.q3_x2));
        }
        cells.push(s.min.to_string());
        cells.push(s.max.to_string());
        cells.push(if sizes {
            py_float(r.size_stddev)
        } else {
            r.stddev_text()
        });
        cells
    }

    /// An across-rank row's statistics cells, rounded as pandas rounds them.
    fn all_cells(&self, a: &AllStats, grand: i128) -> Vec<String> {
        let mut cells = Vec::new();
        if !self.summary.sizes {
            let share = if grand == 0 {
                0.0
            } else {
                100.0 * a.total as f64 / grand as f64
            };
            cells.push(py_float(round1(share)));
        }
        cells.push(a.total.to_string());
        cells.push(a.count.to_string());
        cells.push(py_float(round1(a.total as f64 / a.count as f64)));
        cells.push(self.quartile(0, a.q1_x2));
        cells.push(py_float(round1(a.median)));
        cells.push(self.quartile(1, a.q3_x2));
        cells.push(a.min.to_string());
        cells.push(a.max.to_string());
        cells.push(py_float(round1(a.stddev)));
        cells
    }

    /// `rank_stats`' header and rows (cells as the CSV writes them): every file's rows, files
    /// in input order.
    fn rank_rows(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let mut rows = Vec::new();
        for (ranks, stem) in self.ranks.iter().zip(self.stems) {
            let grand: i128 = ranks.iter().map(|r| r.summary.total).sum();
            for r in ranks {
                let mut cells = vec![r.name.clone()];
                cells.extend(self.rank_cells(r, grand));
                cells.push(stem.clone());
                rows.push(cells);
            }
        }
        (self.header(&["File"]), rows)
    }

    /// `all_stats`' header and rows: the groups across files.
    fn all_rows(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let grand: i128 = self.all.iter().map(|a| a.total).sum();
        let files = |list: &[usize]| {
            list.iter()
                .filter_map(|&i| self.stems.get(i).map(String::as_str))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let rows = self
            .all
            .iter()
            .map(|a| {
                let mut cells = vec![a.name.clone()];
                cells.extend(self.all_cells(a, grand));
                cells.push(files(&a.min_files));
                cells.push(files(&a.max_files));
                cells
            })
            .collect();
        (self.header(&["Min File", "Max File"]), rows)
    }
}
