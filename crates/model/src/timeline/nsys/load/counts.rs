//! The row counts of the tables read as events — the progress total and the import
//! statistics' `rows` — taken on a second connection while the first reads: counting reads
//! every page of a table (2 s for a 100 M-event export), so the first events, and the first
//! preview, need not wait for it. The small tables are counted at once.

use std::thread::JoinHandle;

use super::reading::Reading;
use super::{READ_TABLES, SAMPLE_CHAINS};
use crate::timeline::builder::TimelineBuilder;
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::ExportDb;
use crate::timeline::nsys::schema;

/// Each read table's rows, and the rows the load will read of them (the progress total).
pub(super) type Counts = (Vec<(&'static str, u64)>, u64);

/// Counts the tables read as events (without the samples' call stacks when they are read
/// after a preview, `defer`).
pub(super) fn count_read_tables(db: &ExportDb, defer: bool) -> Result<Counts, NsysError> {
    let mut rows = Vec::with_capacity(READ_TABLES.len());
    let mut total = 0;
    for &t in READ_TABLES {
        if defer && t == SAMPLE_CHAINS {
            continue;
        }
        let n = db.row_count(t)?;
        rows.push((t, n));
        total += if t == "OSRT_API" && db.has_column(t, "eventClass") {
            db.row_count_where(t, "eventClass = 27")?
        } else {
            n
        };
    }
    Ok((rows, total))
}

/// The counting thread. Dropped before its counts were taken (the load failed or was
/// cancelled), it interrupts the count and waits for the thread, so that none outlives the
/// load.
pub(super) struct Counting {
    handle: Option<JoinHandle<Result<Counts, NsysError>>>,
    interrupt: rusqlite::InterruptHandle,
    /// Whether the samples' call stacks are left out (read after a preview).
    defer: bool,
}

impl Drop for Counting {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            self.interrupt.interrupt();
            let _ = handle.join();
        }
    }
}

/// Starts counting on a second connection; `None` when none opens (then count at once).
pub(super) fn start_counting(db: &ExportDb, defer: bool) -> Option<Counting> {
    let sibling = db.sibling()?;
    let interrupt = sibling.conn.get_interrupt_handle();
    let handle = std::thread::Builder::new()
        .name("sightline-count".into())
        .spawn(move || count_read_tables(&sibling, defer))
        .ok()?;
    Some(Counting {
        handle: Some(handle),
        interrupt,
        defer,
    })
}

impl Reading<'_> {
    /// Takes the counts when they are there (`wait`: waits for them), into the import
    /// statistics and the progress total.
    pub(super) fn take_counts(
        &mut self,
        db: &ExportDb,
        b: &mut TimelineBuilder,
        wait: bool,
    ) -> Result<(), NsysError> {
        let Some(mut counting) = self.counting.take() else {
            return Ok(());
        };
        let Some(handle) = counting.handle.take() else {
            return Ok(());
        };
        if !wait && !handle.is_finished() {
            counting.handle = Some(handle);
            self.counting = Some(counting);
            return Ok(());
        }
        let (rows, total) = match handle.join() {
            Ok(counts) => counts?,
            // The counting thread panicked: count here.
            Err(_) => count_read_tables(db, counting.defer)?,
        };
        self.apply_counts(b, rows, total);
        Ok(())
    }

    /// Puts each read table's rows into the import statistics and adds `total` to the
    /// progress total.
    pub(super) fn apply_counts(
        &mut self,
        b: &mut TimelineBuilder,
        rows: Vec<(&'static str, u64)>,
        total: u64,
    ) {
        for (table, n) in rows {
            if n > 0 {
                let source = b.session.imports.source(table);
                source.rows = n;
                source.documented = schema::is_documented(table);
            }
        }
        self.rows_total += total;
    }
}
