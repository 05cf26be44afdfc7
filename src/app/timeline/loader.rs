//! Loading a timeline on the `sightline-loader` thread: `.nsys-rep`/`.qdrep` exported with
//! `nsys` first, then the export read by the model's loader with progress and Cancel, then the
//! summary tables (`nsys stats` reports) computed on the same thread. The UI thread only polls.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use crate::timeline::Timeline;
use crate::timeline::nsys::stats::{DEFAULT_REPORTS, ReportOutcome, run_reports};
use crate::timeline::nsys::{LoadOptions, Progress, is_report_file, load_with, rep};

/// What the loader thread tells the UI.
pub enum TimelineLoadEvent {
    /// Progress `(fraction, stage)`.
    Progress(f32, String),
    /// The timeline is ready (the summary tables follow).
    Loaded {
        /// The timeline.
        timeline: Arc<Timeline>,
        /// The SQLite export it was read from (the file itself, or the cached export).
        export: PathBuf,
        /// How long reading took.
        elapsed: Duration,
    },
    /// The summary tables, by report name (an error text when a report failed).
    Reports(Vec<(String, Result<ReportOutcome, String>)>),
    /// Loading failed (the message names the file).
    Failed(String),
}

/// A running load.
pub struct TimelineLoadJob {
    events: Receiver<TimelineLoadEvent>,
    cancel: Arc<AtomicBool>,
}

impl TimelineLoadJob {
    /// Starts loading `path` on a new `sightline-loader` thread; `wake` requests a repaint.
    pub fn start(path: &Path, wake: impl Fn() + Send + 'static) -> TimelineLoadJob {
        let (tx, rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let file = path.to_path_buf();
        let failed = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("sightline-loader".into())
            .spawn(move || run(&file, &flag, &tx, &wake));
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
fn run(path: &Path, cancel: &AtomicBool, tx: &Sender<TimelineLoadEvent>, wake: &dyn Fn()) {
    let send = |event: TimelineLoadEvent| {
        let _ = tx.send(event);
        wake();
    };
    let started = Instant::now();
    let export = if is_report_file(path) {
        send(TimelineLoadEvent::Progress(
            0.0,
            "exporting with nsys export --type sqlite".into(),
        ));
        match rep::export_report(path, None, &rep::default_cache_dir(), Some(cancel)) {
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
    let timeline = match load_with(&export, options) {
        Ok(timeline) => Arc::new(timeline),
        Err(error) => return send(TimelineLoadEvent::Failed(error.to_string())),
    };
    send(TimelineLoadEvent::Loaded {
        timeline,
        export: export.clone(),
        elapsed: started.elapsed(),
    });
    if cancel.load(Ordering::Relaxed) {
        return;
    }
    let reports = match run_reports(&export, DEFAULT_REPORTS) {
        Ok(all) => all.into_iter().map(|(name, r)| (name, Ok(r))).collect(),
        // One failing report fails the batch: compute them one by one to keep the others.
        Err(_) => DEFAULT_REPORTS
            .iter()
            .map(|name| {
                let one = run_reports(&export, &[name])
                    .map_err(|e| e.to_string())
                    .and_then(|mut v| v.pop().map(|(_, r)| r).ok_or_else(String::new));
                (name.to_string(), one)
            })
            .collect(),
    };
    send(TimelineLoadEvent::Reports(reports));
}
