//! NVIDIA's multi-report recipes (`nsys recipe`), computed from Nsight Systems exports: for now
//! the five summary recipes — `cuda_api_sum`, `cuda_gpu_kern_sum`, `cuda_gpu_mem_size_sum`,
//! `cuda_gpu_mem_time_sum`, `osrt_sum` — each writing `rank_stats.csv` (every file's groups, as
//! `nsys stats` groups them, with quartiles) and `all_stats.csv` (the groups across files) as the
//! recipe writes them (columns, row order, number formats; see [`stats`]).
//!
//! Files are read in parallel (one export per worker thread, the values of one report at a
//! time), each reduced to its per-group statistics before the next is read, so memory holds one
//! file's values per worker and the small per-file rows; the rows are combined at the end.

pub mod describe;
pub mod mpi;
pub mod nvtx;
pub mod pace;
pub mod parquet;
pub mod proj_trace;
pub mod stats;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use self::stats::{AllStats, RankStats, py_float, round1};
use super::nsys::ExportDb;
use super::nsys::stats::{ReportOutcome, ReportRequest, csv_line, named_values, summary_order};
use crate::core::Progress;
use crate::timeline::summary::fmt_ratio;

/// One recipe: its name, what it summarizes and how its tables are headed.
#[derive(Debug)]
pub struct Recipe {
    /// NVIDIA's name (`cuda_gpu_kern_sum`).
    pub name: &'static str,
    /// One line on what it gives.
    pub about: &'static str,
    /// The `nsys stats` report whose groups it summarizes per file.
    report: &'static str,
    /// The header of the group column (`Name`, `Operation`).
    key: &'static str,
    /// The header of the count column (`Instances`, `Num Calls`, `Count`).
    count: &'static str,
    /// Whether the values are sizes (bytes: `Total` and integer quartiles, no `Time`).
    sizes: bool,
}

/// The recipes Sightline computes, in NVIDIA's order.
pub const RECIPES: &[Recipe] = &[
    Recipe {
        name: "cuda_api_sum",
        about: "CUDA API summary per rank and across ranks",
        report: "cuda_api_sum",
        key: "Name",
        count: "Num Calls",
        sizes: false,
    },
    Recipe {
        name: "cuda_gpu_kern_sum",
        about: "CUDA GPU kernel summary per rank and across ranks",
        report: "cuda_gpu_kern_sum",
        key: "Name",
        count: "Instances",
        sizes: false,
    },
    Recipe {
        name: "cuda_gpu_mem_size_sum",
        about: "CUDA GPU memory operations by size, per rank and across ranks",
        report: "cuda_gpu_mem_size_sum",
        key: "Operation",
        count: "Count",
        sizes: true,
    },
    Recipe {
        name: "cuda_gpu_mem_time_sum",
        about: "CUDA GPU memory operations by time, per rank and across ranks",
        report: "cuda_gpu_mem_time_sum",
        key: "Operation",
        count: "Count",
        sizes: false,
    },
    Recipe {
        name: "osrt_sum",
        about: "OS runtime summary per rank and across ranks",
        report: "osrt_sum",
        key: "Name",
        count: "Num Calls",
        sizes: false,
    },
];

/// The recipe named `name`.
pub fn find(name: &str) -> Option<&'static Recipe> {
    RECIPES.iter().find(|r| r.name == name)
}

/// Running a recipe failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum RecipeError {
    /// No input file was given (or the folders held none).
    #[error("no input files")]
    NoInputs,
    /// The user cancelled.
    #[error("cancelled")]
    Cancelled,
}

/// What a recipe computed: the inputs (sorted by file name), each file's rows and the rows
/// across files, and what was said of files that gave nothing.
#[derive(Debug, Clone)]
pub struct RecipeResult {
    /// The recipe.
    pub recipe: &'static Recipe,
    /// The input files, in the order the tables list them.
    pub inputs: Vec<PathBuf>,
    /// Each input's rows (empty for a file without the data), in `nsys stats` order.
    pub ranks: Vec<Vec<RankStats>>,
    /// The groups across files, by total (descending).
    pub all: Vec<AllStats>,
    /// Files that could not be read or hold none of the data, with why.
    pub warnings: Vec<String>,
}

/// Runs `recipe` over `inputs` (exports; sorted by file name as the recipe lists them) on up to
/// `threads` worker threads, reporting files done on `progress`.
pub fn run(
    recipe: &'static Recipe,
    inputs: &[PathBuf],
    threads: usize,
    progress: Progress<'_>,
) -> Result<RecipeResult, RecipeError> {
    if inputs.is_empty() {
        return Err(RecipeError::NoInputs);
    }
    let mut inputs = inputs.to_vec();
    inputs.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    let n = inputs.len();
    let mut ranks: Vec<Vec<RankStats>> = vec![Vec::new(); n];
    let mut warnings: Vec<Option<String>> = vec![None; n];
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, n) {
            let send = send.clone();
            let (next, stop, inputs) = (&next, &stop, &inputs);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= inputs.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let _ = send.send((i, file_rows(recipe, &inputs[i])));
                }
            });
        }
        drop(send);
        for (done, (i, rows)) in receive.iter().enumerate() {
            progress.report("files", done as u64 + 1, n as u64);
            if progress.is_cancelled() {
                stop.store(true, Ordering::Relaxed);
            }
            match rows {
                Ok(rows) => ranks[i] = rows,
                Err(why) => warnings[i] = Some(why),
            }
        }
    });
    if stop.load(Ordering::Relaxed) {
        return Err(RecipeError::Cancelled);
    }
    let all = combine(recipe, &ranks);
    Ok(RecipeResult {
        recipe,
        inputs,
        ranks,
        all,
        warnings: warnings.into_iter().flatten().collect(),
    })
}

/// One file's rows, or why it gives none.
fn file_rows(recipe: &Recipe, path: &Path) -> Result<Vec<RankStats>, String> {
    let db = ExportDb::open_salvaging(path).map_err(|e| e.to_string())?;
    let request = ReportRequest::parse(recipe.report).map_err(|e| e.to_string())?;
    let named = match named_values(&db, &request) {
        Ok(Ok(named)) => named,
        Ok(Err(ReportOutcome::Skipped(why))) => return Err(why),
        Ok(Err(_)) => return Err(format!("{}: no {} data", path.display(), recipe.report)),
        Err(e) => return Err(e.to_string()),
    };
    let mut rows: Vec<RankStats> = named
        .into_iter()
        .filter_map(|(name, mut values)| RankStats::of(name, &mut values))
        .collect();
    // `nsys stats`' order (two groups may share a name: API functions with a `_vNNNN` suffix).
    let kernels = recipe.report == "cuda_gpu_kern_sum";
    rows.sort_by(|a, b| summary_order(&a.name, &a.summary, &b.name, &b.summary, kernels));
    Ok(rows)
}

/// The groups across files, by total (descending), then count (descending), then name.
fn combine(recipe: &Recipe, ranks: &[Vec<RankStats>]) -> Vec<AllStats> {
    let _ = recipe;
    // Groups in the order first met (files in order, each file's rows in order).
    let mut order: Vec<&str> = Vec::new();
    let mut by_name: std::collections::HashMap<&str, Vec<(usize, &RankStats)>> =
        std::collections::HashMap::new();
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

impl RecipeResult {
    /// The stem naming input `i` in the tables.
    fn stem(&self, i: usize) -> String {
        self.inputs[i]
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The statistics headers, then the trailing `File` or `Min File`/`Max File`.
    fn header(&self, trailing: &[&'static str]) -> Vec<&'static str> {
        let r = self.recipe;
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
        let mut cells = Vec::new();
        if !self.recipe.sizes {
            cells.push(fmt_ratio(100 * s.total, grand, 1));
        }
        cells.push(s.total.to_string());
        cells.push(s.count.to_string());
        if self.recipe.sizes {
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
        cells.push(if self.recipe.sizes {
            py_float(r.size_stddev)
        } else {
            r.stddev_text()
        });
        cells
    }

    /// An across-rank row's statistics cells, rounded as pandas rounds them.
    fn all_cells(&self, a: &AllStats, grand: i128) -> Vec<String> {
        let mut cells = Vec::new();
        if !self.recipe.sizes {
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
    pub fn rank_rows(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let mut rows = Vec::new();
        for (i, ranks) in self.ranks.iter().enumerate() {
            let grand: i128 = ranks.iter().map(|r| r.summary.total).sum();
            let stem = self.stem(i);
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
    pub fn all_rows(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let grand: i128 = self.all.iter().map(|a| a.total).sum();
        let files = |list: &[usize]| {
            list.iter()
                .map(|&i| self.stem(i))
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

    /// `rank_stats.csv`.
    pub fn rank_csv(&self) -> String {
        csv_text(self.rank_rows())
    }

    /// `all_stats.csv`.
    pub fn all_csv(&self) -> String {
        csv_text(self.all_rows())
    }

    /// Writes the recipe's tables into `dir` (created when missing) as NVIDIA's recipe does:
    /// `all_stats.csv`, `all_stats.parquet`, `rank_stats.csv` and `rank_stats.parquet` (the
    /// Parquet files as pandas writes the recipe's data frames: [`parquet`]); returns the files
    /// written.
    pub fn write(
        &self,
        dir: &Path,
    ) -> Result<Vec<PathBuf>, crate::columnar::parquet::ParquetWriteError> {
        let io = |path: &Path, source| crate::columnar::parquet::ParquetWriteError::Io {
            path: path.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let mut written = Vec::new();
        for (name, (header, rows)) in [
            ("all_stats", self.all_rows()),
            ("rank_stats", self.rank_rows()),
        ] {
            let csv = dir.join(format!("{name}.csv"));
            std::fs::write(&csv, csv_text((header.clone(), rows.clone())))
                .map_err(|e| io(&csv, e))?;
            written.push(csv);
            let pq = dir.join(format!("{name}.parquet"));
            parquet::write(name, &header, &rows, &pq)?;
            written.push(pq);
        }
        Ok(written)
    }
}

/// A table's CSV text: the header, then the rows.
fn csv_text((header, rows): (Vec<&'static str>, Vec<Vec<String>>)) -> String {
    let mut out = Vec::new();
    let _ = csv_line(&mut out, header.into_iter());
    for row in &rows {
        let _ = csv_line(&mut out, row.iter().map(String::as_str));
    }
    String::from_utf8_lossy(&out).into_owned()
}
