//! NVIDIA's multi-report recipes (`nsys recipe`), computed from Nsight Systems exports and
//! written as the recipes write them.
//!
//! A [`Recipe`] is a name, a line on what it gives, the options it takes and a [`Kind`]: the
//! computation. Every kind implements [`RecipeKind`] in its own file:
//!
//! - [`summary`]: `rank_stats` and `all_stats` of one `nsys stats` report (`cuda_api_sum`,
//!   `cuda_gpu_kern_sum`, `cuda_gpu_mem_size_sum`, `cuda_gpu_mem_time_sum`, `osrt_sum`);
//! - [`analysis`]: one `analysis` table of the findings of an `nsys analyze` rule per file
//!   (`cuda_api_sync`, `cuda_memcpy_async`, `cuda_memcpy_sync`, `cuda_memset_sync`,
//!   `dx12_mem_ops`, `gpu_gaps`, `gpu_time_util`);
//! - [`heatmap`]: the use of the GPU per bin of time (`cuda_gpu_time_util_map`,
//!   `nccl_gpu_time_util_map`, `mpi_gpu_time_util_map`, `ucx_gpu_time_util_map`) and sampled
//!   metrics per bin of time ([`metric_map`]: `gpu_metric_util_map`, `nic_metric_map`), with an
//!   SVG heat map beside the table.
//!
//! [`run`] reads the files in parallel (one export per worker thread), each reduced by
//! [`RecipeKind::file`] to a small per-file partial result before the next is read, so memory
//! holds one file per worker and the partials; [`RecipeKind::tables`] then combines the
//! partials, files in name order, into the output [`Table`]s, which [`RecipeOutput::write`]
//! writes as CSV and/or Parquet (pandas' layout: [`parquet`]).
//!
//! Adding a kind: a type implementing [`RecipeKind`] in its own file, a variant of [`Kind`]
//! and its arm in `Kind::apply`, and its recipes in [`RECIPES`].
//!
//! [`partial`] runs the per-file work elsewhere (another process, a Dask worker) and combines
//! the partials it sends back as [`run`] does.

pub mod analysis;
pub mod describe;
pub mod diff;
mod dx12;
mod gpu_use;
pub mod heatmap;
pub mod heatmap_plot;
pub mod metric_map;
pub mod mpi;
pub mod nsys_analysis;
pub mod nvtx;
mod nvtx_window;
mod option_text;
pub mod pace;
pub mod pandas_read;
pub mod parquet;
pub mod partial;
pub mod paths;
pub mod proj_trace;
pub mod ranks;
pub mod stats;
pub mod summary;
pub mod table;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

pub use self::table::{Cells, PandasIndex, Table, TableColumn};
use crate::columnar::parquet::ParquetWriteError;
use crate::core::Progress;

/// One recipe: its name, what it gives, the options it takes and how it computes.
#[derive(Debug)]
pub struct Recipe {
    /// NVIDIA's name (`cuda_gpu_kern_sum`).
    pub name: &'static str,
    /// One line on what it gives.
    pub about: &'static str,
    /// The options it takes besides `--input` and `--output`.
    pub options: &'static [RecipeOption],
    /// What it computes.
    pub kind: Kind,
}

/// How a recipe computes: one variant per kind, each implementing [`RecipeKind`].
#[derive(Debug)]
pub enum Kind {
    /// Per-file and across-file statistics of an `nsys stats` report.
    Summary(summary::Summary),
    /// Per-file and across-file statistics of NVTX ranges, NCCL or MPI calls by text.
    Ranges(ranks::RangeSummary),
    /// Every file's NVTX ranges projected onto the GPU, row by row.
    ProjTrace(proj_trace::ProjTrace),
    /// How the instances of one name follow each other in every file.
    Pace(pace::Pace),
    /// One row per finding of an expert rule, per file.
    Analysis(analysis::Analysis),
    /// The use of the GPU (and of MPI or UCX) per bin of time, per process and GPU; or sampled
    /// GPU or NIC metrics per bin of time.
    HeatMap(heatmap::HeatMap),
}

/// An option a recipe may take (as `nsys recipe NAME --help` lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecipeOption {
    /// `--start NS`: only what ends at or after this time.
    Start,
    /// `--end NS`: only what starts before this time.
    End,
    /// `--nvtx RANGE[@DOMAIN]`: only what overlaps the first instance of this NVTX range.
    Nvtx,
    /// `--rows N`: at most N rows per input file.
    Rows,
    /// `--gap MS`: the shortest GPU gap listed.
    Gap,
    /// `--threshold PERCENT`: the highest GPU use listed.
    Threshold,
    /// `--chunks N`: the number of equal chunks of a GPU's time.
    Chunks,
    /// `--name NAME`: the range or kernel a pace recipe follows (required there).
    Name,
    /// `--bins N`: the number of bins of a heat map.
    Bins,
    /// `--cumulative`: a heat map adds up its events' times instead of joining them.
    Cumulative,
}

impl RecipeOption {
    /// The flag without dashes (`start`).
    pub fn flag(self) -> &'static str {
        match self {
            RecipeOption::Start => "start",
            RecipeOption::End => "end",
            RecipeOption::Nvtx => "nvtx",
            RecipeOption::Rows => "rows",
            RecipeOption::Gap => "gap",
            RecipeOption::Threshold => "threshold",
            RecipeOption::Chunks => "chunks",
            RecipeOption::Name => "name",
            RecipeOption::Bins => "bins",
            RecipeOption::Cumulative => "cumulative",
        }
    }
}

/// The options' values (`None`: not given, the recipe's default).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecipeOptions {
    /// `--start` (ns).
    pub start: Option<i64>,
    /// `--end` (ns).
    pub end: Option<i64>,
    /// `--nvtx` (`RANGE[@DOMAIN]`).
    pub nvtx: Option<String>,
    /// `--rows`.
    pub rows: Option<usize>,
    /// `--gap` (ms).
    pub gap: Option<f64>,
    /// `--threshold` (a whole percentage).
    pub threshold: Option<i64>,
    /// `--chunks`.
    pub chunks: Option<u32>,
    /// `--name`.
    pub name: Option<String>,
    /// `--bins`.
    pub bins: Option<u32>,
    /// `--cumulative` (absent: not given).
    #[serde(default)]
    pub cumulative: bool,
}

impl RecipeOptions {
    /// The options given that `recipe` does not take.
    pub fn unsupported(&self, recipe: &Recipe) -> Vec<&'static str> {
        let given = [
            (RecipeOption::Start, self.start.is_some()),
            (RecipeOption::End, self.end.is_some()),
            (RecipeOption::Nvtx, self.nvtx.is_some()),
            (RecipeOption::Rows, self.rows.is_some()),
            (RecipeOption::Gap, self.gap.is_some()),
            (RecipeOption::Threshold, self.threshold.is_some()),
            (RecipeOption::Chunks, self.chunks.is_some()),
            (RecipeOption::Name, self.name.is_some()),
            (RecipeOption::Bins, self.bins.is_some()),
            (RecipeOption::Cumulative, self.cumulative),
        ];
        given
            .into_iter()
            .filter(|&(o, set)| set && !recipe.options.contains(&o))
            .map(|(o, _)| o.flag())
            .collect()
    }
}

/// A kind of recipe: what it keeps of one file and how it makes its tables of them.
pub trait RecipeKind: Sync {
    /// What one file gives (small: the file's rows or statistics, never the file);
    /// serializable, so that other processes can compute it ([`partial`]).
    type Partial: Send + serde::Serialize + serde::de::DeserializeOwned;

    /// Reads the export at `path` (never holding more of it than the partial needs).
    fn file(&self, path: &Path, options: &RecipeOptions) -> FileOutcome<Self::Partial>;

    /// The recipe's tables from every file's partial (`None` for a file without data), files
    /// in input order, each named by its stem in `stems`; no table when nothing was found.
    fn tables(
        &self,
        stems: &[String],
        files: &[Option<Self::Partial>],
        options: &RecipeOptions,
    ) -> Vec<Table>;
}

/// What one file gave a recipe.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum FileOutcome<P> {
    /// Its partial result.
    Data(P),
    /// It was read but holds no data for the recipe (why, naming the file).
    NoData(String),
    /// It could not be used (why, naming the file).
    Failed(String),
}

/// The recipes Sightline computes, by name (as `nsys recipe --help` lists them).
pub const RECIPES: &[Recipe] = &[
    summary::CUDA_API_SUM,
    analysis::CUDA_API_SYNC,
    pace::CUDA_GPU_KERN_PACE,
    summary::CUDA_GPU_KERN_SUM,
    summary::CUDA_GPU_MEM_SIZE_SUM,
    summary::CUDA_GPU_MEM_TIME_SUM,
    heatmap::CUDA_GPU_TIME_UTIL_MAP,
    analysis::CUDA_MEMCPY_ASYNC,
    analysis::CUDA_MEMCPY_SYNC,
    analysis::CUDA_MEMSET_SYNC,
    analysis::DX12_MEM_OPS,
    analysis::GPU_GAPS,
    metric_map::GPU_METRIC_UTIL_MAP,
    analysis::GPU_TIME_UTIL,
    heatmap::MPI_GPU_TIME_UTIL_MAP,
    ranks::MPI_SUM,
    ranks::NCCL_GPU_PROJ_SUM,
    heatmap::NCCL_GPU_TIME_UTIL_MAP,
    ranks::NCCL_SUM,
    metric_map::NIC_METRIC_MAP,
    pace::NVTX_GPU_PROJ_PACE,
    ranks::NVTX_GPU_PROJ_SUM,
    proj_trace::NVTX_GPU_PROJ_TRACE,
    pace::NVTX_PACE,
    ranks::NVTX_SUM,
    summary::OSRT_SUM,
    heatmap::UCX_GPU_TIME_UTIL_MAP,
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
    /// The recipe needs an option that was not given.
    #[error("recipe {recipe} needs --{option}")]
    Missing {
        /// The recipe.
        recipe: &'static str,
        /// The option.
        option: &'static str,
    },
    /// The recipe does not take an option that was given.
    #[error("recipe {recipe} does not take --{option}")]
    Unsupported {
        /// The recipe.
        recipe: &'static str,
        /// The option.
        option: &'static str,
    },
    /// A file's partial result (computed elsewhere: [`partial`]) cannot be used.
    #[error("{0}")]
    Partial(#[from] partial::PartialError),
}

/// What a recipe computed: the inputs (sorted by file name), its tables, and what was said of
/// files that gave nothing.
#[derive(Debug, Clone)]
pub struct RecipeOutput {
    /// The recipe.
    pub recipe: &'static Recipe,
    /// The input files, in the order the tables list them.
    pub inputs: Vec<PathBuf>,
    /// The tables (none when no file held data: the recipe then writes nothing).
    pub tables: Vec<Table>,
    /// Files that could not be read or hold none of the data, with why.
    pub warnings: Vec<String>,
    /// How many files could be read (with or without data).
    pub readable: usize,
}

/// Runs `recipe` over `inputs` (exports; sorted by file name as the recipe lists them) with
/// `options` on up to `threads` worker threads, reporting files done on `progress`.
pub fn run(
    recipe: &'static Recipe,
    inputs: &[PathBuf],
    options: &RecipeOptions,
    threads: usize,
    progress: Progress<'_>,
) -> Result<RecipeOutput, RecipeError> {
    let (inputs, stems) = prepare(recipe, inputs, options)?;
    let run = Run {
        inputs: &inputs,
        stems: &stems,
        options,
        threads,
        progress,
    };
    let output = recipe.kind.apply(run)?;
    Ok(RecipeOutput::of(recipe, inputs, output))
}

/// Checks `options` against `recipe` ([`check_options`]) and that there are inputs; the
/// inputs sorted by file name (as the recipe lists them) and their stems.
fn prepare(
    recipe: &'static Recipe,
    inputs: &[PathBuf],
    options: &RecipeOptions,
) -> Result<(Vec<PathBuf>, Vec<String>), RecipeError> {
    check_options(recipe, options)?;
    if inputs.is_empty() {
        return Err(RecipeError::NoInputs);
    }
    let mut inputs = inputs.to_vec();
    inputs.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    let stems: Vec<String> = inputs.iter().map(|p| stem(p)).collect();
    Ok((inputs, stems))
}

/// An error when `options` holds one that `recipe` does not take, or lacks one it needs.
pub fn check_options(recipe: &'static Recipe, options: &RecipeOptions) -> Result<(), RecipeError> {
    if let Some(option) = options.unsupported(recipe).first() {
        return Err(RecipeError::Unsupported {
            recipe: recipe.name,
            option,
        });
    }
    if matches!(recipe.kind, Kind::Pace(_)) && options.name.is_none() {
        return Err(RecipeError::Missing {
            recipe: recipe.name,
            option: "name",
        });
    }
    Ok(())
}

/// Something done with a recipe's kind, whatever its type: [`Kind::apply`].
trait KindFn {
    /// What it gives.
    type Out;
    /// Does it with `kind`.
    fn call<K: RecipeKind>(self, kind: &K) -> Self::Out;
}

impl Kind {
    /// Does `f` with the kind's [`RecipeKind`].
    fn apply<F: KindFn>(&self, f: F) -> F::Out {
        match self {
            Kind::Summary(kind) => f.call(kind),
            Kind::Ranges(kind) => f.call(kind),
            Kind::ProjTrace(kind) => f.call(kind),
            Kind::Pace(kind) => f.call(kind),
            Kind::Analysis(kind) => f.call(kind),
            Kind::HeatMap(kind) => f.call(kind),
        }
    }
}

/// The files' outcomes as they come in, then the tables ([`Gathered::finish`]).
struct Gathered<P> {
    /// Each file's partial (files in input order; `None`: no data).
    partials: Vec<Option<P>>,
    /// What was said of each file.
    warnings: Vec<Option<String>>,
    /// How many files could not be read.
    failed: usize,
}

impl<P> Gathered<P> {
    /// Nothing yet of `n` files.
    fn new(n: usize) -> Self {
        Gathered {
            partials: (0..n).map(|_| None).collect(),
            warnings: (0..n).map(|_| None).collect(),
            failed: 0,
        }
    }

    /// File `i`'s outcome.
    fn add(&mut self, i: usize, outcome: FileOutcome<P>) {
        match outcome {
            FileOutcome::Data(p) => self.partials[i] = Some(p),
            FileOutcome::NoData(why) => self.warnings[i] = Some(why),
            FileOutcome::Failed(why) => {
                self.failed += 1;
                self.warnings[i] = Some(why);
            }
        }
    }

    /// The tables of `kind`, the warnings and the number of readable files.
    fn finish<K: RecipeKind<Partial = P>>(
        self,
        kind: &K,
        stems: &[String],
        options: &RecipeOptions,
    ) -> RunOutput {
        let tables = kind.tables(stems, &self.partials, options);
        let readable = self.partials.len() - self.failed;
        (
            tables,
            self.warnings.into_iter().flatten().collect(),
            readable,
        )
    }
}

/// The files that gave data, with their stems (files in order; those without data left out).
fn with_data<'a, P>(stems: &'a [String], files: &'a [Option<P>]) -> Vec<(&'a String, &'a P)> {
    stems
        .iter()
        .zip(files)
        .filter_map(|(s, f)| Some((s, f.as_ref()?)))
        .collect()
}

/// The stem naming an input in the tables.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One run's inputs and settings.
struct Run<'a> {
    inputs: &'a [PathBuf],
    stems: &'a [String],
    options: &'a RecipeOptions,
    threads: usize,
    progress: Progress<'a>,
}

/// A run's tables, warnings and the number of readable files.
type RunOutput = (Vec<Table>, Vec<String>, usize);

impl KindFn for Run<'_> {
    type Out = Result<RunOutput, RecipeError>;

    /// Every file's partial of `kind`, computed in parallel, then the tables.
    fn call<K: RecipeKind>(self, kind: &K) -> Result<RunOutput, RecipeError> {
        let n = self.inputs.len();
        let mut gathered = Gathered::new(n);
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let (send, receive) = mpsc::channel();
        std::thread::scope(|scope| {
            for w in 0..self.threads.clamp(1, n) {
                let send = send.clone();
                let (next, stop, inputs, options) = (&next, &stop, self.inputs, self.options);
                let work = move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= inputs.len() || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let _ = send.send((i, kind.file(&inputs[i], options)));
                    }
                };
                let spawned = std::thread::Builder::new()
                    .name(format!("sightline-recipe-{w}"))
                    .spawn_scoped(scope, work);
                if spawned.is_err() {
                    break;
                }
            }
            drop(send);
            for (done, (i, partial)) in receive.iter().enumerate() {
                self.progress.report("files", done as u64 + 1, n as u64);
                if self.progress.is_cancelled() {
                    stop.store(true, Ordering::Relaxed);
                }
                gathered.add(i, partial);
            }
        });
        if stop.load(Ordering::Relaxed) {
            return Err(RecipeError::Cancelled);
        }
        Ok(gathered.finish(kind, self.stems, self.options))
    }
}

impl RecipeOutput {
    /// The output of `recipe` over `inputs` (sorted) from what its kind computed.
    fn of(recipe: &'static Recipe, inputs: Vec<PathBuf>, output: RunOutput) -> Self {
        let (tables, warnings, readable) = output;
        RecipeOutput {
            recipe,
            inputs,
            tables,
            warnings,
            readable,
        }
    }

    /// The table of file stem `stem`.
    pub fn table(&self, stem: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.stem == stem)
    }

    /// Writes the recipe's tables into `dir` (created when missing) as NVIDIA's recipe does:
    /// [`write_tables`]; returns the files written.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, ParquetWriteError> {
        let mut written = write_tables(&self.tables, dir)?;
        if let Kind::HeatMap(map) = &self.recipe.kind {
            let io = |path: &Path, source| ParquetWriteError::Io {
                path: path.to_path_buf(),
                source,
            };
            for table in &self.tables {
                let svg = dir.join(format!("{}.svg", table.stem));
                let text = heatmap_plot::svg(self.recipe.name, table, map);
                std::fs::write(&svg, text).map_err(|e| io(&svg, e))?;
                written.push(svg);
            }
        }
        Ok(written)
    }
}

/// Writes `tables` into `dir` (created when missing) as NVIDIA's recipes do: `STEM.csv` for the
/// tables written as CSV, then `STEM.parquet` (as pandas writes the data frame: [`parquet`]),
/// tables in order; returns the files written.
pub fn write_tables(tables: &[Table], dir: &Path) -> Result<Vec<PathBuf>, ParquetWriteError> {
    let io = |path: &Path, source| ParquetWriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut written = Vec::new();
    for table in tables {
        if table.csv {
            let csv = dir.join(format!("{}.csv", table.stem));
            std::fs::write(&csv, table.csv_text()).map_err(|e| io(&csv, e))?;
            written.push(csv);
        }
        let pq = dir.join(format!("{}.parquet", table.stem));
        parquet::write(table, &pq)?;
        written.push(pq);
    }
    Ok(written)
}
