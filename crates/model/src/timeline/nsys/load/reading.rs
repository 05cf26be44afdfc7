//! The loader's reading state: the progress and cancel flag, the rows read of the tables read
//! as events and their total (counted beside the load, [`counts`](super::counts)), and the
//! previews of what was read so far ([`preview`](super::preview)). [`Reading::report`] is
//! called after every 65,536 rows and after each table.

use super::counts::Counting;
use super::preview::PreviewClock;
use crate::core::Progress;
use crate::timeline::builder::TimelineBuilder;
use crate::timeline::model::Timeline;
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::ExportDb;

/// Progress, row counts, counting and previews of a load.
pub(super) struct Reading<'a> {
    /// Where progress goes, and whether the load is cancelled.
    pub(super) progress: Progress<'a>,
    /// Where previews go, when wanted.
    pub(super) preview: Option<&'a mut dyn FnMut(Timeline)>,
    /// When the previews are due.
    pub(super) preview_clock: PreviewClock,
    /// Rows read of the tables read as events.
    pub(super) rows_done: u64,
    /// Rows to read in all (0 until the tables are counted).
    pub(super) rows_total: u64,
    /// The counting of the tables read as events, on a second connection.
    pub(super) counting: Option<Counting>,
}

impl Reading<'_> {
    /// Reports the rows read at stage `table` (taking the counts when they are there), stops
    /// a cancelled load, and makes a preview when one is due.
    pub(super) fn report(
        &mut self,
        db: &ExportDb,
        b: &mut TimelineBuilder,
        table: &'static str,
    ) -> Result<(), NsysError> {
        self.take_counts(db, b, false)?;
        self.progress.report(table, self.rows_done, self.rows_total);
        if self.progress.is_cancelled() {
            return Err(NsysError::Cancelled {
                path: db.path.clone(),
            });
        }
        self.maybe_preview(b);
        Ok(())
    }
}
