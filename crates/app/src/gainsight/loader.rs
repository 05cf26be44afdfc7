//! Loading a Gainsight input on the `sightline-loader` thread: GPGPU-Sim logs (one file, several,
//! or a folder) are analysed by the model with progress and Cancel; the frontend's outputs
//! (`NAME.sim.csv`, `NAME.sim_l1.csv`, `NAME.sim_l2.csv`, `NAME.json`, whichever exist beside
//! the opened one) are read back into the same shape, so the panel shows either the same way.
//! The UI thread only polls.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sightline_model::gainsight::csv::{read_kernel_csv, read_lifetime_csv};
use sightline_model::gainsight::reader::expand_inputs;
use sightline_model::gainsight::report::{FrontendReport, report_date_time};
use sightline_model::gainsight::stats::KernelRow;
use sightline_model::gainsight::whatif::LifetimeStore;
use sightline_model::gainsight::{
    Analysis, AnalyzeOptions, EndStats, GainsightError, KernelResult, Params, analyze_paths,
};

use crate::job::{Job, JobCtx};
use sightline_model::core::Progress;

/// The suffixes of the frontend's outputs, in the order of [`OutputFiles`]' fields.
pub const OUTPUT_SUFFIXES: [&str; 4] = [".sim.csv", ".sim_l1.csv", ".sim_l2.csv", ".json"];

/// The frontend's outputs of one name (each may be missing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputFiles {
    /// `NAME.sim.csv`: one row per kernel.
    pub kernel_csv: Option<PathBuf>,
    /// `NAME.sim_l1.csv`: the L1 lifetimes.
    pub l1_csv: Option<PathBuf>,
    /// `NAME.sim_l2.csv`: the L2 lifetimes.
    pub l2_csv: Option<PathBuf>,
    /// `NAME.json`: the report.
    pub json: Option<PathBuf>,
}

impl OutputFiles {
    /// The outputs named `stem` in `dir` that exist, plus `opened` in its own slot.
    pub fn beside(opened: &Path) -> Option<OutputFiles> {
        let (dir, stem, slot) = output_stem(opened)?;
        let mut files = OutputFiles::default();
        for (index, suffix) in OUTPUT_SUFFIXES.iter().enumerate() {
            let candidate = if index == slot {
                opened.to_path_buf()
            } else {
                dir.join(format!("{stem}{suffix}"))
            };
            if index == slot || candidate.is_file() {
                *files.slot_mut(index) = Some(candidate);
            }
        }
        Some(files)
    }

    fn slot_mut(&mut self, index: usize) -> &mut Option<PathBuf> {
        match index {
            0 => &mut self.kernel_csv,
            1 => &mut self.l1_csv,
            2 => &mut self.l2_csv,
            _ => &mut self.json,
        }
    }

    /// The files present, in suffix order.
    pub fn present(&self) -> Vec<&Path> {
        [&self.kernel_csv, &self.l1_csv, &self.l2_csv, &self.json]
            .into_iter()
            .filter_map(|p| p.as_deref())
            .collect()
    }
}

/// `(folder, stem, slot)` of a file named like one of the outputs (case-insensitive):
/// `runs/generate.sim_l1.csv` → (`runs`, `generate`, 1). A bare suffix has no stem.
pub fn output_stem(path: &Path) -> Option<(PathBuf, String, usize)> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    // `.sim_l1.csv` before `.sim.csv` is not needed (they differ before `.csv`), but the
    // longest suffix is checked first anyway so a future overlap stays right.
    let mut order: Vec<usize> = (0..OUTPUT_SUFFIXES.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(OUTPUT_SUFFIXES[i].len()));
    for slot in order {
        let suffix = OUTPUT_SUFFIXES[slot];
        if lower.len() > suffix.len() && lower.ends_with(suffix) {
            let stem = name[..name.len() - suffix.len()].to_string();
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            return Some((dir, stem, slot));
        }
    }
    None
}

/// What a Gainsight document was opened from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inputs {
    /// GPGPU-Sim logs or folders of logs, analysed with the parameters.
    Logs(Vec<PathBuf>),
    /// The frontend's outputs, read back.
    Outputs(OutputFiles),
}

impl Inputs {
    /// The inputs `path` stands for: the outputs beside an output file; for a folder, its logs,
    /// or — when it holds no log — the outputs of its first `*.sim.csv` (else `*.json`); any
    /// other file is a log.
    pub fn of(path: &Path) -> Inputs {
        if path.is_dir() {
            let has_logs = expand_inputs(&[path.to_path_buf()]).is_ok_and(|f| !f.is_empty());
            if !has_logs && let Some(outputs) = outputs_in(path) {
                return Inputs::Outputs(outputs);
            }
            return Inputs::Logs(vec![path.to_path_buf()]);
        }
        match OutputFiles::beside(path) {
            Some(outputs) => Inputs::Outputs(outputs),
            None => Inputs::Logs(vec![path.to_path_buf()]),
        }
    }

    /// Whether the kernel table and lifetimes are recomputed from logs.
    pub fn is_logs(&self) -> bool {
        matches!(self, Inputs::Logs(_))
    }
}

/// The outputs of the first `*.sim.csv` (else `*.json`) in `dir`, by name.
fn outputs_in(dir: &Path) -> Option<OutputFiles> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    let pick = |slot: usize| {
        names
            .iter()
            .find(|p| output_stem(p).is_some_and(|(_, _, s)| s == slot))
    };
    pick(0)
        .or_else(|| pick(3))
        .or_else(|| pick(1))
        .or_else(|| pick(2))
        .and_then(|p| OutputFiles::beside(p))
}

/// A loaded Gainsight input.
#[derive(Debug)]
pub struct Loaded {
    /// Where it came from.
    pub inputs: Inputs,
    /// The parameters the kernel rows were computed with.
    pub params: Params,
    /// Kernels, `.sim.csv` rows, lifetimes, warnings. For outputs, the kernels are rebuilt from
    /// the kernel CSV (ids, access counts, cycles) so the report can be recomputed.
    pub analysis: Analysis,
    /// The JSON report: read from `NAME.json`, or computed.
    pub report: FrontendReport,
    /// Whether the report was read from a file (not computed here).
    pub report_from_file: bool,
    /// Whether lifetimes are in memory (logs, or lifetime CSVs read): refreshes can be projected.
    pub lifetimes_known: bool,
    /// How long loading took.
    pub elapsed: Duration,
    /// What the panel should say about missing pieces.
    pub notes: Vec<String>,
}

/// Why a background job (loading an input, exporting the files or chart images) failed. Every
/// message names the file, or the inputs, concerned.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The model could not read, analyse or write an input or output.
    #[error(transparent)]
    Model(#[from] GainsightError),
    /// A file or folder could not be created, opened, written or renamed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The user cancelled loading.
    #[error("{inputs}: loading cancelled")]
    LoadCancelled {
        /// The inputs, as [`describe`] lists them.
        inputs: String,
    },
    /// The user cancelled an export.
    #[error("export cancelled")]
    ExportCancelled,
    /// The export's output name is empty.
    #[error("export: the output name is empty")]
    EmptyName,
    /// The chart to save as an image is not on screen.
    #[error("the chart is not on screen")]
    OffScreen,
    /// The screenshot's pixels do not fill the chart's image.
    #[error("the image buffer has the wrong size")]
    ImageSize,
    /// A chart image could not be encoded as PNG.
    #[error("{0}")]
    Png(#[source] image::ImageError),
    /// The job's thread could not be started.
    #[error("{what}: cannot start the loader thread: {source}")]
    Spawn {
        /// What the job was for (the inputs, `export`...).
        what: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl JobError {
    /// The error for an I/O `source` on `path`, for `map_err`.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> JobError + '_ {
        move |source| JobError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A Gainsight background job (loading an input, exporting the files or chart images).
pub type GainsightJob<T> = Job<T, JobError>;

/// Runs `work` on a new `sightline-loader` thread; `what` names the job in a spawn error; `wake`
/// requests a repaint.
pub fn start_job<T: Send + 'static>(
    wake: &Arc<dyn Fn() + Send + Sync>,
    what: &str,
    work: impl FnOnce(&JobCtx) -> Result<T, JobError> + Send + 'static,
) -> GainsightJob<T> {
    let wake = wake.clone();
    let what = what.to_owned();
    Job::start(
        move || wake(),
        move |source| JobError::Spawn { what, source },
        work,
    )
}

/// Starts loading `inputs` with `params`.
pub fn start_load(
    inputs: Inputs,
    params: Params,
    wake: &Arc<dyn Fn() + Send + Sync>,
) -> GainsightJob<Box<Loaded>> {
    let what = describe(&inputs);
    start_job(wake, &what, move |ctx| {
        load(inputs, &params, ctx).map(Box::new)
    })
}

/// The inputs in one line, for messages.
pub fn describe(inputs: &Inputs) -> String {
    let paths: Vec<String> = match inputs {
        Inputs::Logs(paths) => paths.iter().map(|p| p.display().to_string()).collect(),
        Inputs::Outputs(files) => files
            .present()
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    };
    paths.join(", ")
}

/// Loads `inputs` on the calling thread (the job's work; tests call it directly).
pub fn load(inputs: Inputs, params: &Params, ctx: &JobCtx) -> Result<Loaded, JobError> {
    let started = Instant::now();
    let mut loaded = match &inputs {
        Inputs::Logs(paths) => load_logs(paths, params, ctx)?,
        Inputs::Outputs(files) => load_outputs(files, params, ctx)?,
    };
    loaded.inputs = inputs;
    loaded.elapsed = started.elapsed();
    Ok(loaded)
}

fn cancelled_error(inputs: &str) -> JobError {
    JobError::LoadCancelled {
        inputs: inputs.to_owned(),
    }
}

fn load_logs(paths: &[PathBuf], params: &Params, ctx: &JobCtx) -> Result<Loaded, JobError> {
    let what = paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let files = expand_inputs(paths)?;
    let stage = format!("analysing {} file(s)", files.len());
    let options = AnalyzeOptions {
        threads: 0,
        progress: Progress::new(ctx).named(&stage),
        render_lifetime_csv: false,
        merged_lifetimes_only: false,
    };
    let result = analyze_paths(paths, params, &options, &mut |_| Ok(()));
    let analysis = match result {
        Ok(analysis) => analysis,
        Err(GainsightError::Cancelled(_)) => return Err(cancelled_error(&what)),
        Err(error) => return Err(error.into()),
    };
    let (date, time) = report_date_time();
    let report = FrontendReport::compute(&analysis, params, &analysis.name, &date, &time);
    Ok(Loaded {
        inputs: Inputs::Logs(paths.to_vec()),
        params: params.clone(),
        analysis,
        report,
        report_from_file: false,
        lifetimes_known: true,
        elapsed: Duration::ZERO,
        notes: Vec::new(),
    })
}

/// A reader that counts bytes into `read` and fails once `cancel` is set.
struct Counting<'a, R> {
    inner: R,
    read: &'a AtomicU64,
    cancel: &'a AtomicBool,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("cancelled"));
        }
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The access count behind a frequency of the kernel CSV: `f × T × p / 1000`, rounded (the
/// frequency is `n / (T × p) × 1000`, exact to a few ulps, so rounding recovers `n`).
pub fn count_from_frequency(frequency: Option<f64>, cycles: u64, ns_per_cycle: f64) -> u64 {
    match frequency {
        Some(f) if f.is_finite() && f > 0.0 => {
            (f * cycles as f64 * ns_per_cycle / 1000.0).round() as u64
        }
        _ => 0,
    }
}

/// The kernels behind kernel-CSV rows: ids, names, access counts and cycles, enough for
/// [`FrontendReport::compute`].
pub fn kernels_from_rows(rows: &[KernelRow], params: &Params) -> Vec<KernelResult> {
    let p = params.ns_per_cycle();
    rows.iter()
        .enumerate()
        .map(|(seq, row)| {
            let t = row.total_cycles;
            KernelResult {
                seq,
                id: Some(row.kernel_id),
                name: Some(row.name.clone()),
                l1_size_bytes: Some(row.l1_size),
                end: EndStats {
                    sim_cycle: Some(t),
                    ..EndStats::default()
                },
                reads: [
                    count_from_frequency(row.l1_read_frequency, t, p),
                    count_from_frequency(row.l2_read_frequency, t, p),
                ],
                writes: [
                    count_from_frequency(row.l1_write_frequency, t, p),
                    count_from_frequency(row.l2_write_frequency, t, p),
                ],
                unique: [row.l1_unique, row.l2_unique],
                last_cycle: t,
                ..KernelResult::default()
            }
        })
        .collect()
}

/// Reads back a simulation's outputs (kernel CSV, lifetime CSVs, JSON report); a missing file
/// is a note, and the report is computed here without `NAME.json`.
fn load_outputs(files: &OutputFiles, params: &Params, ctx: &JobCtx) -> Result<Loaded, JobError> {
    let present = files.present();
    let reader = OutputReader {
        what: present
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        total: present
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum(),
        read: AtomicU64::new(0),
        ctx,
    };
    let mut notes = Vec::new();
    let rows = match &files.kernel_csv {
        Some(path) => {
            reader.tick("reading the kernel CSV");
            read_kernel_csv(&path.display().to_string(), reader.open(path)?)
                .map_err(|e| reader.fail(e))?
        }
        None => {
            notes.push("no NAME.sim.csv beside it: the kernel table is empty".to_string());
            Vec::new()
        }
    };
    let (per_kernel, lifetimes_known) = reader.lifetimes_by_kernel(files, &rows)?;
    if !lifetimes_known {
        notes.push(
            "no lifetime CSVs (NAME.sim_l1.csv, NAME.sim_l2.csv) beside it: histograms and \
             what-if refreshes need them"
                .to_string(),
        );
    }
    let json = match &files.json {
        Some(path) => Some(reader.report(path)?),
        None => None,
    };
    if ctx.is_cancelled() {
        return Err(cancelled_error(&reader.what));
    }
    reader.tick("building the lifetime store");
    let store = LifetimeStore::from_cycles(&per_kernel);
    drop(per_kernel);
    let name = json
        .as_ref()
        .map(|r| r.name.clone())
        .filter(|n| !n.is_empty())
        .or_else(|| {
            present
                .first()
                .and_then(|p| output_stem(p))
                .map(|(_, s, _)| s)
        })
        .unwrap_or_default();
    let analysis = Analysis {
        name: name.clone(),
        files: present.iter().map(|p| p.display().to_string()).collect(),
        kernels: kernels_from_rows(&rows, params),
        rows,
        store,
        bytes: reader.total,
        ..Analysis::default()
    };
    let report_from_file = json.is_some();
    let report = match json {
        Some(report) => report,
        None => {
            notes.push("no NAME.json beside it: the report is computed here".to_string());
            let (date, time) = report_date_time();
            FrontendReport::compute(&analysis, params, &name, &date, &time)
        }
    };
    Ok(Loaded {
        inputs: Inputs::Outputs(files.clone()),
        params: params.clone(),
        analysis,
        report,
        report_from_file,
        lifetimes_known,
        elapsed: Duration::ZERO,
        notes,
    })
}

/// The lifetimes of each kernel id: `(id, L1 cycles, L2 cycles)`.
type KernelLifetimes = Vec<(u64, Vec<u64>, Vec<u64>)>;

/// Reads a simulation's output files, counting the bytes read for the job's progress and
/// stopping on its cancel.
struct OutputReader<'a> {
    /// The files, for the "loading cancelled" message.
    what: String,
    /// Their total size.
    total: u64,
    /// The bytes read so far.
    read: AtomicU64,
    ctx: &'a JobCtx,
}

impl OutputReader<'_> {
    /// Opens `path` for buffered, counted reading.
    fn open(&self, path: &Path) -> Result<BufReader<Counting<'_, File>>, JobError> {
        let file = File::open(path).map_err(JobError::io(path))?;
        Ok(BufReader::with_capacity(
            1 << 20,
            Counting {
                inner: file,
                read: &self.read,
                cancel: self.ctx.cancel_flag(),
            },
        ))
    }

    /// The job error of a read error: "cancelled" when the job was cancelled (the counting
    /// reader stops with an error then).
    fn fail(&self, error: GainsightError) -> JobError {
        if self.ctx.is_cancelled() {
            cancelled_error(&self.what)
        } else {
            error.into()
        }
    }

    /// Reports the fraction of the bytes read so far, at `stage`.
    fn tick(&self, stage: &str) {
        let fraction = if self.total > 0 {
            self.read.load(Ordering::Relaxed) as f64 / self.total as f64
        } else {
            0.0
        };
        self.ctx.progress(fraction as f32, stage);
    }

    /// The lifetimes grouped by kernel id: kernels of the kernel CSV first (in its order),
    /// then ids only the lifetime CSVs name; and whether any lifetime CSV was there.
    fn lifetimes_by_kernel(
        &self,
        files: &OutputFiles,
        rows: &[KernelRow],
    ) -> Result<(KernelLifetimes, bool), JobError> {
        let mut ids: Vec<u64> = Vec::new();
        for row in rows {
            if !ids.contains(&row.kernel_id) {
                ids.push(row.kernel_id);
            }
        }
        let mut index_of: std::collections::HashMap<u64, usize> =
            ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let mut per_kernel: KernelLifetimes =
            ids.iter().map(|&id| (id, Vec::new(), Vec::new())).collect();
        let mut lifetimes_known = false;
        for (level, path) in [(0usize, &files.l1_csv), (1, &files.l2_csv)] {
            let Some(path) = path else { continue };
            self.tick(&format!("reading the L{} lifetimes", level + 1));
            let lifetimes = read_lifetime_csv(&path.display().to_string(), self.open(path)?)
                .map_err(|e| self.fail(e))?;
            lifetimes_known = true;
            for row in lifetimes {
                let index = *index_of.entry(row.kernel_id).or_insert_with(|| {
                    per_kernel.push((row.kernel_id, Vec::new(), Vec::new()));
                    per_kernel.len() - 1
                });
                let entry = &mut per_kernel[index];
                if level == 0 {
                    entry.1.push(row.cycles);
                } else {
                    entry.2.push(row.cycles);
                }
            }
        }
        Ok((per_kernel, lifetimes_known))
    }

    /// The report of `NAME.json` at `path`.
    fn report(&self, path: &Path) -> Result<FrontendReport, JobError> {
        self.tick("reading the JSON report");
        let mut text = String::new();
        self.open(path)?.read_to_string(&mut text).map_err(|e| {
            self.fail(GainsightError::Io {
                path: path.display().to_string(),
                source: e,
            })
        })?;
        FrontendReport::read(&path.display().to_string(), &text).map_err(|e| self.fail(e))
    }
}

/// Recomputes the report of outputs read back under new parameters, keeping from `old` what
/// the files cannot give again: refreshes without lifetimes, write frequencies and read
/// energies without kernel rows.
pub fn recompute_outputs_report(loaded: &Loaded, params: &Params) -> FrontendReport {
    let old = &loaded.report;
    let mut report =
        FrontendReport::compute(&loaded.analysis, params, &old.name, &old.date, &old.time);
    if !loaded.lifetimes_known {
        report.lifetime_count = old.lifetime_count;
        report.refreshes = old.refreshes.clone();
        report.refresh_energy = old.refresh_energy.clone();
    }
    if loaded.analysis.rows.is_empty() {
        report.write_frequency = old.write_frequency;
        report.read_energy = old.read_energy.clone();
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names() {
        let (dir, stem, slot) = output_stem(Path::new("/r/gen.SIM_L2.csv")).unwrap();
        assert_eq!((dir, stem.as_str(), slot), (PathBuf::from("/r"), "gen", 2));
        assert_eq!(output_stem(Path::new("a.sim.csv")).unwrap().2, 0);
        assert_eq!(output_stem(Path::new("a.sim_l1.csv")).unwrap().2, 1);
        assert_eq!(output_stem(Path::new("a.json")).unwrap().2, 3);
        assert!(output_stem(Path::new("a.csv")).is_none());
        assert!(output_stem(Path::new(".sim.csv")).is_none());
        assert!(output_stem(Path::new("kernel-3.log")).is_none());
    }

    #[test]
    fn counts_come_back_from_frequencies() {
        let p = 1000.0 / 2235.0;
        for (n, t) in [
            (12056u64, 22571u64),
            (88, 22571),
            (1, 3),
            (123_456_789, 987_654),
        ] {
            let f = sightline_model::gainsight::stats::level_frequency(n, t, p);
            assert_eq!(count_from_frequency(f, t, p), n);
        }
        assert_eq!(count_from_frequency(None, 5, p), 0);
    }
}
