//! "Did my change help?": two runs of a program — each one export or a folder of rank exports —
//! compared per kernel, NVTX range, CUDA API function and GPU memory operation.
//!
//! Each export is summarized by the `nsys stats` reports Sightline computes byte for byte as
//! nsys does (`cuda_gpu_kern_sum`, `nvtx_sum`, `cuda_api_sum`, `cuda_gpu_mem_time_sum`): per
//! group its total time, instances, median and standard deviation. Files are read in parallel
//! and each is reduced to those rows before the next is read, so memory holds the rows, never a
//! file's events.
//!
//! Per group and run: the **total per rank** (the mean over the run's files of the group's total;
//! a file without the group counts 0), the **median** (of the files' medians; with one file, the
//! median of its instances), and the **spread**: with two or more files the rank-to-rank
//! standard deviation of the totals, with one file the spread of its instances
//! (`sqrt(instances) * stddev`, the noise of a sum of that many instances). The change between
//! runs is significant when it exceeds twice its standard error (a ~95 % band): of the
//! rank-by-rank differences when both runs have as many files (two or more), else the runs'
//! combined; a change the spread hides is **inconclusive** when the band is as wide as the
//! threshold.
//! See [`Verdict`] and [`Comparison::gate`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::nsys::ExportDb;
use super::nsys::stats::{ReportOutcome, ReportTable, run_report};
use crate::core::map_files;
use crate::core::{Cancelled, Progress};

/// What is compared: one `nsys stats` report's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Category {
    /// GPU kernels by name (`cuda_gpu_kern_sum`).
    Kernel,
    /// GPU memory operations by kind (`cuda_gpu_mem_time_sum`).
    Memory,
    /// NVTX ranges by name (`nvtx_sum`).
    Nvtx,
    /// CUDA API functions by name (`cuda_api_sum`).
    Api,
}

impl Category {
    /// Every category, in the order tables list them.
    pub const ALL: [Category; 4] = [
        Category::Kernel,
        Category::Memory,
        Category::Nvtx,
        Category::Api,
    ];

    /// The `nsys stats` report summarizing it.
    pub fn report(self) -> &'static str {
        match self {
            Category::Kernel => "cuda_gpu_kern_sum",
            Category::Memory => "cuda_gpu_mem_time_sum",
            Category::Nvtx => "nvtx_sum",
            Category::Api => "cuda_api_sum",
        }
    }

    /// A short label ("kernel").
    pub fn label(self) -> &'static str {
        match self {
            Category::Kernel => "kernel",
            Category::Memory => "memory",
            Category::Nvtx => "NVTX",
            Category::Api => "CUDA API",
        }
    }

    /// Whether the category's groups add up to a meaningful total: NVTX ranges nest, so the
    /// sum of their times counts nested time twice.
    pub fn has_total(self) -> bool {
        self != Category::Nvtx
    }
}

/// One group's row of one file: what `nsys stats` prints for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupRow {
    /// Total time, ns.
    pub total: f64,
    /// Instances (calls).
    pub count: f64,
    /// Median time, ns.
    pub median: f64,
    /// Standard deviation of the instances, ns.
    pub stddev: f64,
}

/// A group: its category and name (an NVTX range of the start/end style is named with it).
pub type GroupKey = (Category, String);

/// One run: its files and, per group, each file's row (`None` where the file lacks it).
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    /// The exports, sorted by name.
    pub files: Vec<PathBuf>,
    /// Each group's rows, one per file, in the order groups were first met.
    pub groups: Vec<(GroupKey, Vec<Option<GroupRow>>)>,
    /// What could not be read, one line each (naming the file).
    pub warnings: Vec<String>,
}

/// Comparing failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A run has no files.
    #[error("run {0} has no Nsight Systems exports")]
    NoFiles(char),
    /// No file of a run could be read.
    #[error("no export of run {run} could be read: {first}")]
    Unreadable {
        /// `A` or `B`.
        run: char,
        /// The first file's error.
        first: String,
    },
    /// A run's path is not an export, a report or a folder of them, or a report could not be
    /// exported.
    #[error("run {run}: {message}")]
    Input {
        /// `A` or `B`.
        run: char,
        /// Why, naming the file.
        message: String,
    },
    /// The user cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl From<Cancelled> for CompareError {
    fn from(_: Cancelled) -> Self {
        CompareError::Cancelled
    }
}

/// One file's groups and its warnings.
type FileRows = (Vec<(GroupKey, GroupRow)>, Vec<String>);

/// The rows of every category of one export and what could not be read, or why it gives none.
fn file_rows(path: &Path) -> Result<FileRows, String> {
    let db = ExportDb::open_salvaging(path).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for category in Category::ALL {
        match run_report(&db, category.report()) {
            Ok(ReportOutcome::Table(table)) => {
                warnings.extend(
                    table
                        .warnings
                        .iter()
                        .map(|w| format!("{}: {w}", path.display())),
                );
                rows.extend(
                    table_rows(category, &table)
                        .map_err(|e| format!("{}: {}: {e}", path.display(), category.report()))?,
                );
            }
            // The export lacks this kind of data: the group list simply has none of it.
            Ok(ReportOutcome::Skipped(_)) => {}
            Err(e) => warnings.push(format!("{}: {}: {e}", path.display(), category.report())),
        }
    }
    Ok((rows, warnings))
}

/// A summary table's rows as groups (columns found by their headers).
fn table_rows(
    category: Category,
    table: &ReportTable,
) -> Result<Vec<(GroupKey, GroupRow)>, String> {
    let column = |names: &[&str]| {
        table
            .columns
            .iter()
            .position(|c| names.contains(&c.as_str()))
            .ok_or_else(|| format!("no column {}", names.join(" or ")))
    };
    let total = column(&["Total Time (ns)"])?;
    let count = column(&["Instances", "Num Calls", "Count"])?;
    let median = column(&["Med (ns)"])?;
    let stddev = column(&["StdDev (ns)"])?;
    let name = column(&["Name", "Range", "Operation"])?;
    let style = table.columns.iter().position(|c| c == "Style");
    let number = |row: &[super::nsys::stats::Cell], i: usize| {
        let text = row.get(i).map(|c| c.as_str()).unwrap_or_default();
        text.parse::<f64>()
            .map_err(|_| format!("{:?} is not a number", text))
    };
    let mut out = Vec::with_capacity(table.rows.len());
    for row in table.rows.iter() {
        let mut label = row
            .get(name)
            .map(|c| c.as_str().to_owned())
            .unwrap_or_default();
        if let Some(style) = style.and_then(|i| row.get(i))
            && style.as_str() != "PushPop"
            && !style.as_str().is_empty()
        {
            label = format!("{label} ({})", style.as_str());
        }
        let stats = GroupRow {
            total: number(&row, total)?,
            count: number(&row, count)?,
            median: number(&row, median)?,
            stddev: number(&row, stddev).unwrap_or(0.0),
        };
        out.push(((category, label), stats));
    }
    Ok(out)
}

/// Summarizes the exports `files` (sorted by file name first) on up to `threads` threads.
/// Files that cannot be read are left out with a warning; `Err` when none can be read.
pub fn summarize(
    run: char,
    files: &[PathBuf],
    threads: usize,
    progress: Progress<'_>,
) -> Result<RunSummary, CompareError> {
    if files.is_empty() {
        return Err(CompareError::NoFiles(run));
    }
    let mut files = files.to_vec();
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()).then_with(|| a.cmp(b)));
    let per_file = map_files(&files, threads, progress, file_rows)?;
    let mut summary = RunSummary::default();
    let mut index: HashMap<GroupKey, usize> = HashMap::new();
    let mut first_error = None;
    let mut kept = Vec::new();
    for (path, outcome) in files.iter().zip(per_file) {
        match outcome {
            Ok((rows, warnings)) => {
                summary.warnings.extend(warnings);
                kept.push((path.clone(), rows));
            }
            Err(why) => {
                first_error.get_or_insert_with(|| why.clone());
                summary.warnings.push(why);
            }
        }
    }
    if kept.is_empty() {
        return Err(CompareError::Unreadable {
            run,
            first: first_error.unwrap_or_default(),
        });
    }
    let n = kept.len();
    for (f, (path, rows)) in kept.into_iter().enumerate() {
        summary.files.push(path);
        for (key, row) in rows {
            let slot = *index.entry(key.clone()).or_insert_with(|| {
                summary.groups.push((key, vec![None; n]));
                summary.groups.len() - 1
            });
            // Two rows of one name in one file (nsys keeps `_vNNNN` API variants apart): one
            // group, their times added, the median and spread of the larger.
            let cell = &mut summary.groups[slot].1[f];
            *cell = Some(match *cell {
                None => row,
                Some(old) => merge_rows(old, row),
            });
        }
    }
    Ok(summary)
}

/// Two rows of one group in one file as one.
fn merge_rows(a: GroupRow, b: GroupRow) -> GroupRow {
    let (big, _) = if a.total >= b.total { (a, b) } else { (b, a) };
    GroupRow {
        total: a.total + b.total,
        count: a.count + b.count,
        median: big.median,
        stddev: big.stddev,
    }
}

/// One run's figures for a group (or a category's total).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Side {
    /// Files the group appears in.
    pub files_with: usize,
    /// Mean over the run's files of the group's total time, ns.
    pub total: f64,
    /// Mean instances per file.
    pub instances: f64,
    /// Median time (the median of the files' medians), ns; `None` for a category total.
    pub median: Option<f64>,
    /// Rank-to-rank standard deviation of the totals (two or more files), else the spread of
    /// the one file's instances, ns.
    pub spread: f64,
    /// Standard error of [`Side::total`], ns.
    pub std_error: f64,
}

impl Side {
    /// The figures of `rows` (one per file of the run).
    pub fn of(rows: &[Option<GroupRow>]) -> Side {
        let n = rows.len().max(1) as f64;
        let totals: Vec<f64> = rows.iter().map(|r| r.map_or(0.0, |r| r.total)).collect();
        let mean = totals.iter().sum::<f64>() / n;
        let mut medians: Vec<f64> = rows.iter().flatten().map(|r| r.median).collect();
        let (spread, std_error) = if rows.len() >= 2 {
            let sd = sample_sd(&totals, mean);
            (sd, sd / n.sqrt())
        } else {
            let noise = rows
                .first()
                .copied()
                .flatten()
                .map_or(0.0, |r| r.count.sqrt() * r.stddev);
            (noise, noise)
        };
        Side {
            files_with: rows.iter().flatten().count(),
            total: mean,
            instances: rows.iter().flatten().map(|r| r.count).sum::<f64>() / n,
            median: median_of(&mut medians),
            spread,
            std_error,
        }
    }
}

/// The sample standard deviation of `values` around `mean` (0 for fewer than two).
pub(super) fn sample_sd(values: &[f64], mean: f64) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    (ss / (values.len() - 1) as f64).sqrt()
}

/// The median of `values` (sorted in place), `None` when empty.
fn median_of(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

/// What a change amounts to, at the comparison's threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Significantly slower by at least the threshold.
    Slower,
    /// Significantly faster by at least the threshold.
    Faster,
    /// Within the threshold, and the spread small enough to say so.
    Unchanged,
    /// The spread is at least the threshold and hides the change.
    Inconclusive,
    /// Only in run B.
    New,
    /// Only in run A.
    Gone,
}

impl Verdict {
    /// The verdict's word, as JSON writes it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Unchanged => "unchanged",
            Verdict::Inconclusive => "inconclusive",
            Verdict::New => "new",
            Verdict::Gone => "gone",
        }
    }
}

mod change;
mod inputs;
pub use change::{Change, Comparison, Gate, compare};
pub use inputs::run_exports;
