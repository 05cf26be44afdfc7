//! Loading a report on a named background thread, with progress and cancel.
//!
//! The loader opens and indexes the report, decodes the first kernel (so its Details page can be
//! shown at once) and then streams the rows of the kernel list in batches while the user works.

use std::path::Path;
use std::sync::Arc;

use sightline_model::ncu::{Action, LaunchRow, ReadError, Report};

use crate::job::{Job, JobCtx};

/// What the loader sends before it is done (as [`crate::job::JobEvent::Sent`]); progress comes
/// as `Progress`, the end as `Done(())` (all rows loaded) or `Failed(`[`LoadError`]`)`.
pub enum LoadEvent {
    /// The report is open; the first rows are ready.
    Opened(Arc<Report>),
    /// More kernel list rows.
    Rows(Vec<LaunchRow>),
}

/// Why a report could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The loader thread could not be started.
    #[error("cannot start the loader thread: {0}")]
    Spawn(#[source] std::io::Error),
    /// The report could not be opened and indexed (the message names the file).
    #[error(transparent)]
    Read(#[from] ReadError),
}

impl crate::lifecycle::LoadFailure for LoadError {
    fn is_cancelled(&self) -> bool {
        false
    }
}

/// A running load: `Done(())` once all rows are loaded, `Failed` when the report cannot be read.
pub type LoadJob = Job<(), LoadError, LoadEvent>;

/// Starts loading `path` on the `sightline-loader` thread; `wake` is called whenever an event is
/// ready (the GUI passes a repaint request).
pub fn start_load(path: &Path, wake: impl Fn() + Send + Sync + 'static) -> LoadJob {
    let file = path.to_path_buf();
    Job::start(wake, LoadError::Spawn, move |ctx| load(&file, ctx))
}

/// The loader thread's work: index the report, then stream the kernel list's rows.
fn load(file: &Path, ctx: &JobCtx<LoadEvent>) -> Result<(), LoadError> {
    ctx.progress_now(0.05, "indexing");
    let report = Arc::new(Report::open(file)?);
    if !ctx.send(LoadEvent::Opened(Arc::clone(&report))) {
        return Ok(());
    }
    let total = report.num_actions();
    // A damaged result is listed as unreadable (selecting it shows the error); the kernels
    // after it still load.
    for_each_batch(
        &report,
        ctx,
        (1, 64),
        |index, action| match action {
            Ok(action) => LaunchRow::of(&action),
            Err(error) => LaunchRow::unreadable(index, &error.to_string()),
        },
        |rows, done| {
            ctx.send(LoadEvent::Rows(rows))
                && ctx.progress_now(
                    done as f32 / total.max(1) as f32,
                    &format!("reading kernels {done}/{total}"),
                )
        },
    );
    Ok(())
}

/// Decodes every result of `report` in order into a row (`row` gets the result's index and its
/// decoding, an error for a damaged result) and hands the rows to `send` in batches, with the
/// number of results done: the first batch of `sizes.0` rows (small, so a list fills at once),
/// the later ones of `sizes.1`. Stops when the job is cancelled or `send` returns false.
pub fn for_each_batch<R, E>(
    report: &Report,
    ctx: &JobCtx<E>,
    sizes: (usize, usize),
    mut row: impl FnMut(usize, Result<Action, ReadError>) -> R,
    mut send: impl FnMut(Vec<R>, usize) -> bool,
) {
    let total = report.num_actions();
    let mut batch = Vec::new();
    for index in 0..total {
        if ctx.is_cancelled() {
            return;
        }
        batch.push(row(index, report.action(index)));
        let limit = if index < sizes.0 { sizes.0 } else { sizes.1 };
        if (batch.len() >= limit || index + 1 == total)
            && !send(std::mem::take(&mut batch), index + 1)
        {
            return;
        }
    }
}
