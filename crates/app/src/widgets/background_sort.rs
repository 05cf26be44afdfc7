//! Sorting a long table off the UI thread: a trace report of millions of rows takes seconds to
//! sort (every cell of the column is formatted for its key), so the window would freeze. A table
//! with more than [`BACKGROUND_ROWS`] rows leaves its [`SortableTable`] order stale for one of
//! these to compute on a [`Job`] (thread `sightline-sort`, progress, cancelled when the sort
//! changes again); the rows stay in their last order, with a spinner, until the new one arrives.

use std::cmp::Ordering;

use eframe::egui;

use super::table::{OrderKey, SortableTable, sorted_order};
use crate::job::{Job, JobCtx, Polled, poll_job};

/// Tables with more rows than this sort on a background job.
pub const BACKGROUND_ROWS: usize = 100_000;

/// The comparison a sort job runs: `compare(a, b)` orders two rows ascending by the sort column.
pub type JobCompare = Box<dyn Fn(usize, usize) -> Ordering + Send>;

/// Builds a sort job's comparison for `column` on the job's thread (reading the column's keys,
/// the long part, with progress and cancel); `None` when cancelled.
pub type PrepareSort = Box<dyn FnOnce(&JobCtx, usize) -> Option<JobCompare> + Send>;

/// The sort job of one table, if one runs.
#[derive(Default)]
pub struct BackgroundSort {
    running: Option<Job<Vec<usize>, String>>,
    /// The row count and sort the running job computes.
    key: OrderKey,
    progress: Option<(f32, String)>,
    /// The last failure (shown until the next sort).
    error: Option<String>,
}

impl std::fmt::Debug for BackgroundSort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundSort")
            .field("running", &self.running.is_some())
            .field("key", &self.key)
            .field("progress", &self.progress)
            .finish()
    }
}

impl BackgroundSort {
    /// Call before the table is drawn. A table of `rows` rows longer than [`BACKGROUND_ROWS`]
    /// is sorted here: a finished job's order goes into `state`; a stale order starts a job
    /// (`prepare` builds its comparison; `wake` requests a repaint). Shorter tables sort in
    /// the frame as usual.
    pub fn update(
        &mut self,
        state: &mut SortableTable,
        rows: usize,
        wake: impl Fn() + Send + Sync + 'static,
        prepare: impl FnOnce() -> PrepareSort,
    ) {
        let background = rows > BACKGROUND_ROWS;
        state.set_deferred(background);
        if background {
            match poll_job(&mut self.running, &mut self.progress) {
                Some(Polled::Done(order)) => state.set_order(self.key, order),
                Some(Polled::Failed(error)) => self.error = Some(error),
                Some(Polled::Sent(never)) => match never {},
                None => {}
            }
        }
        let Some(key) = state.stale_order(rows).filter(|_| background) else {
            self.running = None;
            self.progress = None;
            return;
        };
        if key.1.is_none() {
            // The source's order needs no job.
            state.set_order(key, (0..rows).collect());
            self.running = None;
            self.progress = None;
            return;
        }
        if self.running.is_some() && self.key == key {
            return;
        }
        self.error = None;
        self.progress = Some((0.0, "sorting".to_owned()));
        let prepare = prepare();
        let work = move |ctx: &JobCtx| -> Result<Vec<usize>, String> {
            let Some((column, descending)) = key.1 else {
                return Ok((0..key.0).collect());
            };
            let Some(compare) = prepare(ctx, column) else {
                return Err("sort cancelled".to_owned());
            };
            ctx.progress_now(1.0, "ordering the rows");
            let compare = |_: usize, a: usize, b: usize| compare(a, b);
            Ok(sorted_order(
                key.0,
                &|_| true,
                Some((column, descending)),
                &compare,
            ))
        };
        // Replacing the job drops (cancels) the one computing the previous sort.
        self.key = key;
        self.running = Some(Job::start_named(
            "sightline-sort",
            wake,
            |e| format!("cannot start the sort thread: {e}"),
            work,
        ));
    }

    /// Whether a sort is running.
    pub fn is_sorting(&self) -> bool {
        self.running.is_some()
    }

    /// A line saying what runs (a spinner, the stage and its progress) or why the last sort
    /// failed; nothing when idle.
    pub fn status_ui(&self, ui: &mut egui::Ui) {
        if self.running.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                let (fraction, stage) =
                    self.progress.clone().unwrap_or((0.0, "sorting".to_owned()));
                ui.label(format!("{stage}… {:.0} %", fraction * 100.0));
            });
        } else if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
    }
}
