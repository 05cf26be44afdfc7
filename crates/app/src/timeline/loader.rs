//! Loading a timeline on the `sightline-loader` thread: `.nsys-rep`/`.qdrep` exported with
//! `nsys` first, then the export read by the model's loader with progress and Cancel and the
//! `.nvtxt` files beside it merged on, then the summary tables (`nsys stats` reports) computed
//! on the same thread. NVTXT files and CodeXL traces are read by their own loaders, their
//! summary tables computed from the timeline. The UI thread only polls.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use sightline_model::codexl::session::{SessionData, SessionFiles};
use sightline_model::kind::FileKind;
use sightline_model::timeline::Timeline;
use sightline_model::timeline::nsys::db::ExportDb;
use sightline_model::timeline::nsys::stats::{DEFAULT_REPORTS, run_report, run_reports};
use sightline_model::timeline::nsys::{LoadOptions, Progress, load_with, rep};
use sightline_model::timeline::nvtxt::NvtxtDocument;
use sightline_model::timeline::open::{
    DetailSource, TimelineFileKind, load_timeline, merge_nvtxt_files, nvtxt_beside,
};
use sightline_model::timeline::tables::model_reports;

use super::stats_panel::ReportResult;

/// What the loader thread tells the UI.
pub enum TimelineLoadEvent {
    /// Progress `(fraction, stage)`.
    Progress(f32, String),
    /// The timeline is ready (the summary tables follow).
    Loaded(Box<Loaded>),
    /// The summary tables, by report name (an error text when a report failed).
    Reports(Vec<(String, ReportResult)>),
    /// Loading failed (the message names the file).
    Failed(String),
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

/// The CodeXL session of an `.atp` trace.
pub struct CodexlSession {
    /// `S.atp`, `S.csv`, `S.occupancy` as found beside the trace.
    pub files: SessionFiles,
    /// The counters and occupancy read from them.
    pub data: SessionData,
    /// Problems reading them.
    pub problems: Vec<String>,
}

/// A running load.
pub struct TimelineLoadJob {
    events: Receiver<TimelineLoadEvent>,
    cancel: Arc<AtomicBool>,
}

impl TimelineLoadJob {
    /// Starts loading `path` on a new `sightline-loader` thread (a report exported with `nsys`,
    /// else the first `nsys` on `PATH`); `wake` requests a repaint.
    pub fn start(
        path: &Path,
        nsys: Option<PathBuf>,
        wake: impl Fn() + Send + 'static,
    ) -> TimelineLoadJob {
        let (tx, rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let file = path.to_path_buf();
        let failed = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("sightline-loader".into())
            .spawn(move || run(&file, nsys.as_deref(), &flag, &tx, &wake));
        if let Err(error) = spawned {
            let _ = failed.send(TimelineLoadEvent::Failed(format!(
                "{}: cannot start the loader thread: {error}",
                path.display()
            )));
        }
        TimelineLoadJob { events: rx, cancel }
    }

    /// The next event, if one arrived.
    pub fn poll(&self) -> Option<TimelineLoadEvent> {
        self.events.try_recv().ok()
    }

    /// Asks the loader to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Drop for TimelineLoadJob {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// The loader thread's work.
fn run(
    path: &Path,
    nsys: Option<&Path>,
    cancel: &AtomicBool,
    tx: &Sender<TimelineLoadEvent>,
    wake: &dyn Fn(),
) {
    let send = |event: TimelineLoadEvent| {
        let _ = tx.send(event);
        wake();
    };
    let started = Instant::now();
    // A file without a known extension was routed here by its SQLite content: an export.
    let kind = TimelineFileKind::from_kind(FileKind::of_path(path))
        .unwrap_or(TimelineFileKind::NsysExport);
    if !kind.takes_nvtxt() {
        send(TimelineLoadEvent::Progress(
            0.0,
            format!("reading {}", path.display()),
        ));
        let loaded = match load_timeline(path, kind, path, LoadOptions::default(), false) {
            Ok(loaded) => loaded,
            Err(error) => return send(TimelineLoadEvent::Failed(error.to_string())),
        };
        let timeline = Arc::new(loaded.timeline);
        let session = (kind == TimelineFileKind::Atp).then(|| {
            let files = SessionFiles::find(path);
            let (data, problems) = super::super::codexl::dispatch::load_session_data(&files);
            CodexlSession {
                files,
                data,
                problems,
            }
        });
        send(TimelineLoadEvent::Loaded(Box::new(Loaded {
            timeline: timeline.clone(),
            base: None,
            details: loaded.details,
            nvtxt: loaded.nvtxt,
            elapsed: started.elapsed(),
            session,
        })));
        let reports = model_reports(&timeline)
            .into_iter()
            .map(|(name, r)| (name, Ok(r)))
            .collect();
        return send(TimelineLoadEvent::Reports(reports));
    }
    let export = if kind == TimelineFileKind::NsysReport {
        send(TimelineLoadEvent::Progress(
            0.0,
            "exporting with nsys export --type sqlite".into(),
        ));
        match rep::export_report(path, nsys, &rep::default_cache_dir(), Some(cancel)) {
            Ok(export) => export,
            Err(error) => return send(TimelineLoadEvent::Failed(error.to_string())),
        }
    } else {
        path.to_path_buf()
    };
    let mut last_sent = Instant::now();
    let mut on_progress = |p: Progress| {
        if last_sent.elapsed() < Duration::from_millis(40) && p.rows_done < p.rows_total {
            return;
        }
        last_sent = Instant::now();
        let fraction = if p.rows_total > 0 {
            (p.rows_done as f64 / p.rows_total as f64) as f32
        } else {
            0.0
        };
        send(TimelineLoadEvent::Progress(
            fraction.clamp(0.0, 1.0),
            format!("reading {}", p.table),
        ));
    };
    let options = LoadOptions {
        progress: Some(&mut on_progress),
        cancel: Some(cancel),
    };
    let base = match load_with(&export, options) {
        Ok(timeline) => Arc::new(timeline),
        Err(error) => return send(TimelineLoadEvent::Failed(error.to_string())),
    };
    let beside = nvtxt_beside(path);
    if !beside.is_empty() {
        send(TimelineLoadEvent::Progress(
            1.0,
            format!("merging {} NVTXT file(s)", beside.len()),
        ));
    }
    let (timeline, nvtxt) = merge_files(&base, &beside);
    if cancel.load(Ordering::Relaxed) {
        return send(TimelineLoadEvent::Failed(format!(
            "{}: loading cancelled",
            path.display()
        )));
    }
    send(TimelineLoadEvent::Loaded(Box::new(Loaded {
        timeline,
        base: Some(base),
        details: DetailSource::Export(export.clone()),
        nvtxt,
        elapsed: started.elapsed(),
        session: None,
    })));
    if cancel.load(Ordering::Relaxed) {
        return;
    }
    let reports = match run_reports(&export, DEFAULT_REPORTS) {
        Ok(all) => all.into_iter().map(|(name, r)| (name, Ok(r))).collect(),
        // One failing report fails the batch: compute them one by one to keep the others.
        Err(_) => DEFAULT_REPORTS
            .iter()
            .map(|name| {
                let one = ExportDb::open(&export).and_then(|db| run_report(&db, name));
                (name.to_string(), one)
            })
            .collect(),
    };
    send(TimelineLoadEvent::Reports(reports));
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
