//! Loading a report on a named background thread, with progress and cancel.
//!
//! The loader opens and indexes the report, decodes the first kernel (so its Details page can be
//! shown at once) and then streams the rows of the kernel list in batches while the user works.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use sightline_model::ncu::{Action, NameBase, Report};

/// One row of the kernel list.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRow {
    /// Action index.
    pub index: usize,
    /// Function name.
    pub name: String,
    /// Demangled name (tooltip).
    pub demangled: String,
    /// `"x×y×z"` grid size.
    pub grid: String,
    /// `"x×y×z"` block size.
    pub block: String,
    /// `gpu__time_duration.sum` in nanoseconds.
    pub duration_ns: Option<f64>,
    /// CUDA stream id.
    pub stream: Option<u32>,
    /// CUDA context id.
    pub context: Option<u32>,
}

impl KernelRow {
    /// The row of `action`.
    pub fn of(action: &Action) -> KernelRow {
        let dim = |d: Option<[u64; 3]>| {
            d.map_or_else(|| "-".to_owned(), |[x, y, z]| format!("{x}×{y}×{z}"))
        };
        KernelRow {
            index: action.index(),
            name: action.name(NameBase::Function).to_owned(),
            demangled: action.name(NameBase::Demangled).to_owned(),
            grid: dim(action.grid_size()),
            block: dim(action.block_size()),
            duration_ns: action
                .metric("gpu__time_duration.sum")
                .and_then(|m| m.value().as_f64()),
            stream: action.stream_id(),
            context: action.context_id(),
        }
    }
}

impl KernelRow {
    /// The row of action `index`, which could not be decoded: the name says so, the tooltip
    /// gives the error.
    pub fn unreadable(index: usize, error: &str) -> KernelRow {
        KernelRow {
            index,
            name: "(unreadable result)".to_owned(),
            demangled: error.to_owned(),
            grid: "-".to_owned(),
            block: "-".to_owned(),
            duration_ns: None,
            stream: None,
            context: None,
        }
    }
}

/// What the loader thread reports.
pub enum LoadEvent {
    /// Progress in `0..=1` with a stage description.
    Progress(f32, String),
    /// The report is open; the first rows are ready.
    Opened(Arc<Report>),
    /// More kernel list rows.
    Rows(Vec<KernelRow>),
    /// All rows are loaded.
    Finished,
    /// Loading failed (or a kernel could not be decoded).
    Failed(String),
}

/// A running load.
pub struct LoadJob {
    /// The file being loaded.
    pub path: PathBuf,
    events: Receiver<LoadEvent>,
    cancel: Arc<AtomicBool>,
}

impl LoadJob {
    /// Starts loading `path` on a thread named `sightline-loader`; `wake` is called whenever an
    /// event is ready (the GUI passes a repaint request).
    pub fn start(path: &Path, wake: impl Fn() + Send + 'static) -> LoadJob {
        let (tx, events) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&cancel);
        let file = path.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("sightline-loader".into())
            .spawn(move || {
                let send = |event| {
                    let ok = tx.send(event).is_ok();
                    wake();
                    ok
                };
                send(LoadEvent::Progress(0.05, "indexing".into()));
                let report = match Report::open(&file) {
                    Ok(report) => Arc::new(report),
                    Err(error) => {
                        send(LoadEvent::Failed(error.to_string()));
                        return;
                    }
                };
                if !send(LoadEvent::Opened(Arc::clone(&report))) {
                    return;
                }
                let total = report.num_actions();
                let mut batch = Vec::new();
                for index in 0..total {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    // A damaged result is listed as unreadable (selecting it shows the
                    // error); the kernels after it still load.
                    batch.push(match report.action(index) {
                        Ok(action) => KernelRow::of(&action),
                        Err(error) => KernelRow::unreadable(index, &error.to_string()),
                    });
                    if index == 0 || batch.len() >= 64 {
                        let progress = (index + 1) as f32 / total.max(1) as f32;
                        if !send(LoadEvent::Rows(std::mem::take(&mut batch)))
                            || !send(LoadEvent::Progress(
                                progress,
                                format!("reading kernels {}/{total}", index + 1),
                            ))
                        {
                            return;
                        }
                    }
                }
                if !batch.is_empty() {
                    send(LoadEvent::Rows(batch));
                }
                send(LoadEvent::Finished);
            });
        if let Err(error) = spawned {
            let (tx, rx) = channel();
            let _ = tx.send(LoadEvent::Failed(format!(
                "cannot start the loader thread: {error}"
            )));
            return LoadJob {
                path: path.to_path_buf(),
                events: rx,
                cancel,
            };
        }
        LoadJob {
            path: path.to_path_buf(),
            events,
            cancel,
        }
    }

    /// Asks the thread to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The next pending event, if any; `Finished` also when the thread ended.
    pub fn poll(&self) -> Option<LoadEvent> {
        match self.events.try_recv() {
            Ok(event) => Some(event),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(LoadEvent::Finished),
        }
    }
}

impl Drop for LoadJob {
    fn drop(&mut self) {
        self.cancel();
    }
}
