//! Loading a Gainsight input on the `sightline-loader` thread: GPGPU-Sim logs (one file, several,
//! or a folder) are analysed by the model with progress and Cancel; the frontend's outputs
//! (`NAME.sim.csv`, `NAME.sim_l1.csv`, `NAME.sim_l2.csv`, `NAME.json`, whichever exist beside
//! the opened one) are read back into the same shape, so the panel shows either the same way.
//! The UI thread only polls.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use sightline_model::gainsight::OutputFiles;
use sightline_model::gainsight::{
    Analysis, AnalyzeOptions, FrontendReport, GainsightError, Params, analyze_paths, expand_inputs,
    output_stem, read_outputs, report_date_time,
};

use crate::job::{Job, JobCtx};
use sightline_model::core::Progress;

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

impl crate::lifecycle::LoadFailure for JobError {
    fn is_cancelled(&self) -> bool {
        matches!(
            self,
            JobError::LoadCancelled { .. }
                | JobError::ExportCancelled
                | JobError::Model(GainsightError::Cancelled(_))
        )
    }
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

/// Reads back a simulation's outputs with the model ([`read_outputs`]): the job's progress
/// is the bytes read, Cancel stops it between reads.
fn load_outputs(files: &OutputFiles, params: &Params, ctx: &JobCtx) -> Result<Loaded, JobError> {
    let outputs = match read_outputs(files, params, Progress::new(ctx)) {
        Ok(outputs) => outputs,
        Err(GainsightError::Cancelled(_)) => {
            let what = files
                .present()
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(cancelled_error(&what));
        }
        Err(error) => return Err(error.into()),
    };
    Ok(Loaded {
        inputs: Inputs::Outputs(files.clone()),
        params: params.clone(),
        analysis: outputs.analysis,
        report: outputs.report,
        report_from_file: outputs.report_from_file,
        lifetimes_known: outputs.lifetimes_known,
        elapsed: Duration::ZERO,
        notes: outputs.notes,
    })
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
