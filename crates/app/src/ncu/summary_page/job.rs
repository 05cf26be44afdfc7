//! The Summary page's rows, computed on a background job: every result is decoded and its
//! Speed of Light and Occupancy sections resolved ([`OverviewBuilder`]); rows go to the GUI in
//! batches (the first after a few rows, so the page fills at once) with a repaint request each.

use std::sync::Arc;

use sightline_model::ncu::Report;
use sightline_model::section::overview::{OverviewBuilder, OverviewColumns, OverviewRow};
use sightline_model::section::registry::SectionSet;

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

/// The running computation: `Done(())` once every row was sent.
pub type SummaryJob = Job<(), String, SummaryBatch>;

/// Starts computing the rows of `report`: `folder_set` is the search path's sections,
/// `prefer_embedded` the app's setting; `wake` requests a repaint.
pub fn start_summary(
    report: Arc<Report>,
    folder_set: Arc<SectionSet>,
    prefer_embedded: bool,
    wake: impl Fn() + Send + Sync + 'static,
) -> SummaryJob {
    Job::start(
        wake,
        |error| format!("cannot start the summary thread: {error}"),
        move |ctx| rows(&report, &folder_set, prefer_embedded, ctx),
    )
}

/// The job's work.
fn rows(
    report: &Report,
    folder_set: &SectionSet,
    prefer_embedded: bool,
    ctx: &JobCtx<SummaryBatch>,
) -> Result<(), String> {
    let mut builder = OverviewBuilder::new(folder_set, prefer_embedded);
    let total = report.num_actions();
    let mut batch = Vec::new();
    for index in 0..total {
        if ctx.is_cancelled() {
            return Ok(());
        }
        batch.push(match report.action(index) {
            Ok(action) => builder.row(&action),
            Err(error) => unreadable(index, &error.to_string()),
        });
        let limit = if index < FIRST_BATCH {
            FIRST_BATCH
        } else {
            BATCH
        };
        if batch.len() >= limit || index + 1 == total {
            let sent = ctx.send(SummaryBatch {
                columns: builder.columns.clone(),
                rows: std::mem::take(&mut batch),
            });
            let progress = (index + 1) as f32 / total.max(1) as f32;
            if !sent || !ctx.progress(progress, &format!("summary {}/{total}", index + 1)) {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The row of a result that does not decode: the name says so, the tooltip gives the error.
fn unreadable(index: usize, error: &str) -> OverviewRow {
    OverviewRow {
        index,
        name: "(unreadable result)".to_owned(),
        demangled: error.to_owned(),
        grid: "-".to_owned(),
        block: "-".to_owned(),
        duration_ns: None,
        device: None,
        nvtx: String::new(),
        values: Vec::new(),
        top_rule: None,
    }
}
