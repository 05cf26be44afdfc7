//! The Summary page's rows, computed on a background job: every result is decoded and its
//! Speed of Light and Occupancy sections resolved ([`OverviewBuilder`]); rows go to the GUI in
//! batches (the first after a few rows, so the page fills at once) with a repaint request each.

use std::cell::RefCell;
use std::sync::Arc;

use sightline_model::ncu::Report;
use sightline_model::section::{OverviewBuilder, OverviewColumns, OverviewRow, SectionSet};

use super::super::loader::for_each_batch;
use crate::job::{Job, JobCtx};

/// Rows of the first batch (small, so the first rows show at once).
const FIRST_BATCH: usize = 16;
/// Rows of the later batches.
const BATCH: usize = 128;

/// A batch of rows with the columns known so far.
pub struct SummaryBatch {
    /// Every column seen up to this batch (a superset of the previous batch's).
    pub columns: OverviewColumns,
    /// The rows, in report order.
    pub rows: Vec<OverviewRow>,
}

/// Why the rows could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The job's thread could not be started.
    #[error("cannot start the summary thread: {0}")]
    Spawn(#[source] std::io::Error),
}

/// The running computation: `Done(())` once every row was sent.
pub type SummaryJob = Job<(), SummaryError, SummaryBatch>;

/// Starts computing the rows of `report`: `folder_set` is the search path's sections,
/// `prefer_embedded` the app's setting; `wake` requests a repaint.
pub fn start_summary(
    report: Arc<Report>,
    folder_set: Arc<SectionSet>,
    prefer_embedded: bool,
    wake: impl Fn() + Send + Sync + 'static,
) -> SummaryJob {
    Job::start(wake, SummaryError::Spawn, move |ctx| {
        rows(&report, &folder_set, prefer_embedded, ctx)
    })
}

/// The job's work.
fn rows(
    report: &Report,
    folder_set: &SectionSet,
    prefer_embedded: bool,
    ctx: &JobCtx<SummaryBatch>,
) -> Result<(), SummaryError> {
    let mut builder = OverviewBuilder::new(folder_set, prefer_embedded);
    let total = report.num_actions();
    // The columns as of the last row (the row and send closures both need them).
    let columns = RefCell::new(OverviewColumns::default());
    for_each_batch(
        report,
        ctx,
        (FIRST_BATCH, BATCH),
        |index, action| {
            let row = match action {
                Ok(action) => builder.row(&action),
                Err(error) => OverviewRow::unreadable(index, &error.to_string()),
            };
            // Columns only grow: copy them when new ones came.
            let mut columns = columns.borrow_mut();
            if columns.columns.len() != builder.columns.columns.len() {
                columns.clone_from(&builder.columns);
            }
            row
        },
        |rows, done| {
            ctx.send(SummaryBatch {
                columns: columns.borrow().clone(),
                rows,
            }) && ctx.progress(
                done as f32 / total.max(1) as f32,
                &format!("summary {done}/{total}"),
            )
        },
    );
    Ok(())
}
