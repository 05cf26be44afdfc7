//! Loading a timeline on the `sightline-loader` thread: `.nsys-rep`/`.qdrep` exported with
//! `nsys` first, then the export read by the model's loader with progress and Cancel and the
//! `.nvtxt` files beside it merged on, then the summary tables (`nsys stats` reports) computed
//! on the same thread. NVTXT files and CodeXL traces are read by their own loaders, their
//! summary tables computed from the timeline. The UI thread only polls.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sightline_model::codexl::{SessionData, SessionFiles};
use sightline_model::core::Progress;
use sightline_model::kind::FileKind;
use sightline_model::timeline::nsys::stats::run_summary_tables;
use sightline_model::timeline::nsys::{
    LoadOptions, NsysError, default_cache_dir, export_report, load_with,
};
use sightline_model::timeline::nvtxt::NvtxtDocument;
use sightline_model::timeline::{
    DetailSource, LoadedTimeline, OpenError, TimelineFileKind, load_timeline, merge_nvtxt_files,
    nvtxt_beside,
};
use sightline_model::timeline::{Timeline, model_reports};

use super::stats_panel::ReportResult;
use crate::job::{Job, JobCtx};

/// The summary tables, by report name (an error text when a report failed).
pub type Reports = Vec<(String, ReportResult)>;

/// Why a timeline (of one file or several) could not be loaded. Every message names the file,
/// or the files.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The loader thread could not be started (`shown`: the file, or the first file).
    #[error("{shown}: cannot start the loader thread: {source}")]
    Spawn {
        /// The file as shown.
        shown: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The thread computing the summary tables of a scope could not be started.
    #[error("cannot start the loader thread: {0}")]
    SpawnScope(#[source] std::io::Error),
    /// A report could not be exported, or an export read or put together with others.
    #[error(transparent)]
    Nsys(#[from] NsysError),
    /// A file could not be read onto a timeline.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The export's timeline is shown, but the call stacks of its CPU samples were not read.
    #[error("the call stacks of the CPU samples were not read: {0}")]
    Stacks(#[source] NsysError),
    /// None of the files goes on a timeline.
    #[error(
        "{}: no Nsight Systems export, NVTXT file or CodeXL trace to put on a timeline",
        shown_all(.0)
    )]
    NothingToShow(Vec<PathBuf>),
    /// The user cancelled (the message names the file when there is one).
    #[error("{}loading cancelled", file_prefix(.0.as_deref()))]
    Cancelled(Option<PathBuf>),
}

/// `a, b, c`: the paths as shown.
fn shown_all(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `PATH: ` when there is a path.
fn file_prefix(path: Option<&Path>) -> String {
    path.map_or(String::new(), |p| format!("{}: ", p.display()))
}

impl crate::lifecycle::LoadFailure for LoadError {
    fn is_cancelled(&self) -> bool {
        match self {
            LoadError::Cancelled(_) => true,
            LoadError::Nsys(error) | LoadError::Stacks(error) => error.is_cancelled(),
            LoadError::Open(error) => error.is_cancelled(),
            _ => false,
        }
    }
}

/// A running load: it sends the timeline ([`Loaded`], as soon as it can be shown), then is
/// `Done` with the summary tables, or `Failed` (the message names the file).
pub type TimelineLoadJob = Job<Finished, LoadError, Box<Loaded>>;

/// What a load ends with, after the timeline was sent.
pub struct Finished {
    /// The summary tables.
    pub reports: Reports,
    /// Several exports on one timeline: the export made of all of them, which the reports
    /// over all files read (removed when the last holder drops it).
    pub merged: Option<Arc<sightline_model::timeline::nsys::MergedExport>>,
}

impl Finished {
    /// The summary tables Sightline computes from the timeline itself (for files that are
    /// not all exports).
    pub fn from_timeline(timeline: &Timeline) -> Finished {
        let reports = model_reports(timeline)
            .into_iter()
            .map(|(name, r)| (name, Ok(r)))
            .collect();
        Finished {
            reports,
            merged: None,
        }
    }
}

/// A timeline read by the loader thread.
pub struct Loaded {
    /// The timeline shown (with the NVTXT files beside an export merged onto it).
    pub timeline: Arc<Timeline>,
    /// An export's own timeline, without NVTXT files (what they are merged onto again when
    /// one is added or changes); `None` for a file that is not an export.
    pub base: Option<Arc<Timeline>>,
    /// Where event details are read on demand.
    pub details: DetailSource,
    /// The NVTXT files on the timeline (events dropped: names and problems).
    pub nvtxt: Vec<NvtxtDocument>,
    /// How long reading took.
    pub elapsed: Duration,
    /// A CodeXL trace's session: its sibling files, their counters and occupancy, and the
    /// problems reading them (`FILE:LINE: message`).
    pub session: Option<CodexlSession>,
}

impl Loaded {
    /// A file's whole timeline as [`open`](sightline_model::timeline::open) loaded it (no export
    /// of its own to merge NVTXT files onto again), read since `started`; with the shared
    /// timeline, which the job's result describes too.
    pub fn whole(
        loaded: LoadedTimeline,
        started: Instant,
        session: Option<CodexlSession>,
    ) -> (Self, Arc<Timeline>) {
        let timeline = Arc::new(loaded.timeline);
        let message = Self {
            timeline: timeline.clone(),
            base: None,
            details: loaded.details,
            nvtxt: loaded.nvtxt,
            elapsed: started.elapsed(),
            session,
        };
        (message, timeline)
    }
}

/// The CodeXL session of an `.atp` trace.
pub struct CodexlSession {
    /// `S.atp`, `S.csv`, `S.occupancy` as found beside the trace.
    pub files: SessionFiles,
    /// The counters and occupancy read from them.
    pub data: SessionData,
    /// Problems reading them.
    pub problems: Vec<String>,
}

/// Starts loading `path` on a new `sightline-loader` thread (a report exported with `nsys`,
/// else the first `nsys` on `PATH`); `wake` requests a repaint.
pub fn start_load(
    path: &Path,
    nsys: Option<PathBuf>,
    wake: impl Fn() + Send + Sync + 'static,
) -> TimelineLoadJob {
    let file = path.to_path_buf();
    let shown = path.display().to_string();
    Job::start(
        wake,
        move |source| LoadError::Spawn { shown, source },
        move |ctx| run(&file, nsys.as_deref(), ctx),
    )
}

/// The loader thread's work.
fn run(path: &Path, nsys: Option<&Path>, ctx: &JobCtx<Box<Loaded>>) -> Result<Finished, LoadError> {
    let started = Instant::now();
    let cancelled = || LoadError::Cancelled(Some(path.to_path_buf()));
    // A file without a known extension was routed here by its SQLite content: an export.
    let kind = TimelineFileKind::from_kind(FileKind::of_path(path))
        .unwrap_or(TimelineFileKind::NsysExport);
    if !kind.takes_nvtxt() {
        return run_whole(path, kind, started, ctx);
    }
    let export = if kind == TimelineFileKind::NsysReport {
        ctx.progress_now(0.0, "exporting with nsys export --type sqlite");
        export_report(path, nsys, &default_cache_dir(), Progress::new(ctx))?
    } else {
        path.to_path_buf()
    };
    let beside = nvtxt_beside(path);
    // The timeline with the NVTXT files merged on, sent to the UI.
    let show = |base: Timeline| {
        let base = Arc::new(base);
        if !beside.is_empty() {
            ctx.progress_now(1.0, &format!("merging {} NVTXT file(s)", beside.len()));
        }
        let (timeline, nvtxt) = merge_files(&base, &beside);
        ctx.send(Box::new(Loaded {
            timeline,
            base: Some(base),
            details: DetailSource::Export(export.clone()),
            nvtxt,
            elapsed: started.elapsed(),
            session: None,
        }));
    };
    // What was read so far is shown early (without the NVTXT files, merged at the end); an
    // export with CPU samples is shown before their call stacks are read (often most of its
    // rows), then again with them.
    let mut previewed = false;
    let mut on_preview = |timeline: Timeline| {
        if timeline.partial {
            ctx.send(Box::new(Loaded {
                timeline: Arc::new(timeline),
                base: None,
                details: DetailSource::Export(export.clone()),
                nvtxt: Vec::new(),
                elapsed: started.elapsed(),
                session: None,
            }));
            return;
        }
        previewed = true;
        show(timeline);
    };
    let options = LoadOptions {
        progress: Progress::new(ctx),
        preview: Some(&mut on_preview),
        ..LoadOptions::default()
    };
    let loaded = load_with(&export, options);
    let base = match loaded {
        Ok(base) => base,
        Err(error) if previewed => return Err(LoadError::Stacks(error)),
        Err(error) => return Err(error.into()),
    };
    if ctx.is_cancelled() {
        return Err(cancelled());
    }
    show(base);
    if ctx.is_cancelled() {
        return Err(cancelled());
    }
    // Each report keeps its own outcome: one failing keeps the others.
    let reports = match run_summary_tables(&export) {
        Ok(each) => each,
        Err(error) => vec![("summary".into(), Err(error))],
    };
    Ok(Finished {
        reports,
        merged: None,
    })
}

/// A file read whole (no NVTXT files merged on it): with progress and Cancel, and for a CodeXL
/// trace the counters and occupancy of its session.
fn run_whole(
    path: &Path,
    kind: TimelineFileKind,
    started: Instant,
    ctx: &JobCtx<Box<Loaded>>,
) -> Result<Finished, LoadError> {
    ctx.progress_now(0.0, &format!("reading {}", path.display()));
    // Progress every few MB; Cancel stops the reader there and frees what it read.
    let options = LoadOptions {
        progress: Progress::new(ctx),
        ..LoadOptions::default()
    };
    let loaded = load_timeline(path, kind, path, options, false)
        .inspect_err(|_| sightline_model::timeline::release_free_memory())?;
    let session = (kind == TimelineFileKind::Atp).then(|| {
        let files = SessionFiles::find(path);
        let (data, problems) = super::super::codexl::dispatch::load_session_data(&files);
        CodexlSession {
            files,
            data,
            problems,
        }
    });
    let (message, timeline) = Loaded::whole(loaded, started, session);
    ctx.send(Box::new(message));
    Ok(Finished::from_timeline(&timeline))
}

/// Reads the NVTXT `files` and merges them onto `base` (the same timeline when there are
/// none): see [`merge_nvtxt_files`].
pub fn merge_files(base: &Arc<Timeline>, files: &[PathBuf]) -> (Arc<Timeline>, Vec<NvtxtDocument>) {
    if files.is_empty() {
        return (base.clone(), Vec::new());
    }
    let (timeline, docs) = merge_nvtxt_files((**base).clone(), files);
    (Arc::new(timeline), docs)
}
