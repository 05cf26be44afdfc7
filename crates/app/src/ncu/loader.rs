//! Loading a report on a named background thread, with progress and cancel.
//!
//! The loader opens and indexes the report, decodes the first kernel (so its Details page can be
//! shown at once) and then streams the rows of the kernel list in batches while the user works.

use std::path::Path;
use std::sync::Arc;

use sightline_model::ncu::{Action, NameBase, Report};

use crate::job::{Job, JobCtx};

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

/// What the loader sends before it is done (as [`crate::job::JobEvent::Sent`]); progress comes
/// as `Progress`, the end as `Done(())` (all rows loaded) or `Failed(message)`.
pub enum LoadEvent {
    /// The report is open; the first rows are ready.
    Opened(Arc<Report>),
    /// More kernel list rows.
    Rows(Vec<KernelRow>),
}

/// A running load: `Done(())` once all rows are loaded, `Failed` when the report cannot be read.
pub type LoadJob = Job<(), String, LoadEvent>;

/// Starts loading `path` on the `sightline-loader` thread; `wake` is called whenever an event is
/// ready (the GUI passes a repaint request).
pub fn start_load(path: &Path, wake: impl Fn() + Send + Sync + 'static) -> LoadJob {
    let file = path.to_path_buf();
    Job::start(
        wake,
        |error| format!("cannot start the loader thread: {error}"),
        move |ctx| load(&file, ctx),
    )
}

/// The loader thread's work: index the report, then stream the kernel list's rows.
fn load(file: &Path, ctx: &JobCtx<LoadEvent>) -> Result<(), String> {
    ctx.progress_now(0.05, "indexing");
    let report = Arc::new(Report::open(file).map_err(|error| error.to_string())?);
    if !ctx.send(LoadEvent::Opened(Arc::clone(&report))) {
        return Ok(());
    }
    let total = report.num_actions();
    let mut batch = Vec::new();
    for index in 0..total {
        if ctx.is_cancelled() {
            return Ok(());
        }
        // A damaged result is listed as unreadable (selecting it shows the error); the
        // kernels after it still load.
        batch.push(match report.action(index) {
            Ok(action) => KernelRow::of(&action),
            Err(error) => KernelRow::unreadable(index, &error.to_string()),
        });
        if index == 0 || batch.len() >= 64 {
            let progress = (index + 1) as f32 / total.max(1) as f32;
            if !ctx.send(LoadEvent::Rows(std::mem::take(&mut batch)))
                || !ctx.progress_now(progress, &format!("reading kernels {}/{total}", index + 1))
            {
                return Ok(());
            }
        }
    }
    if !batch.is_empty() {
        ctx.send(LoadEvent::Rows(batch));
    }
    Ok(())
}
