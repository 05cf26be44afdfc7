//! An event table read on its own connection and thread while the loader builds from its rows.
//!
//! SQLite's stepping through a table's pages and the loader's work on each row (tracks, names,
//! flows, staging) take comparable time; done one after the other they add up. A reader thread
//! ([`spawn`], named `sightline-read`) runs the query on a second read-only connection
//! ([`ExportDb::sibling`]) — damage handling included, [`ExportDb::scan_around_damage`] — and
//! hands the rows over in batches through a bounded channel, so the two overlap and at most
//! [`BATCHES`] batches wait in memory. A row is kept as [`Cells`]: integers and reals as they
//! are, text and blobs as byte ranges of the batch, so every row reads back exactly as SQLite
//! gave it ([`Cells::get_ref`]).
//!
//! When the consumer stops early (cancelled), it drops the receiver: the reader's next send
//! fails and it ends its scan; the caller joins it before returning.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use rusqlite::Row;
use rusqlite::types::ValueRef;

use super::super::NsysError;
use super::super::damage::Readable;
use super::super::db::ExportDb;
use crate::core::num::index_u32;

/// Rows in a batch.
const ROWS: usize = 4096;
/// Text and blob bytes after which a batch is sent with fewer rows: bounds the memory of the
/// waiting batches, and keeps the `u32` byte ranges of [`Cell`] far from overflowing (one
/// SQLite value holds at most 1 GB by default).
const BATCH_BYTES: usize = 64 << 20;
/// Batches that may wait between the reader and the loader.
const BATCHES: usize = 4;

/// One value of a row.
#[derive(Debug, Clone, Copy)]
enum Cell {
    Null,
    Integer(i64),
    Real(f64),
    /// A range of [`Batch::bytes`].
    Text(u32, u32),
    /// A range of [`Batch::bytes`].
    Blob(u32, u32),
}

/// Rows of one query, `width` cells each.
#[derive(Debug, Default)]
pub(super) struct Batch {
    width: usize,
    cells: Vec<Cell>,
    bytes: Vec<u8>,
}

impl Batch {
    /// Appends `row`.
    fn push(&mut self, row: &Row<'_>) {
        if self.width == 0 {
            self.width = row.as_ref().column_count();
        }
        for i in 0..self.width {
            let cell = match row.get_ref(i) {
                Ok(ValueRef::Integer(v)) => Cell::Integer(v),
                Ok(ValueRef::Real(v)) => Cell::Real(v),
                Ok(ValueRef::Text(t)) => {
                    let (at, len) = self.keep(t);
                    Cell::Text(at, len)
                }
                Ok(ValueRef::Blob(b)) => {
                    let (at, len) = self.keep(b);
                    Cell::Blob(at, len)
                }
                Ok(ValueRef::Null) | Err(_) => Cell::Null,
            };
            self.cells.push(cell);
        }
    }

    /// Keeps `bytes` at the end of the batch, as `(at, len)`. A batch stops growing past
    /// [`BATCH_BYTES`], so both fit in a `u32`; were they ever past it, they saturate and the
    /// value reads back empty ([`Cells::get_ref`]), never as other bytes.
    fn keep(&mut self, bytes: &[u8]) -> (u32, u32) {
        let at = index_u32(self.bytes.len());
        self.bytes.extend_from_slice(bytes);
        (at, index_u32(bytes.len()))
    }

    /// Whether the batch is ready to send: [`ROWS`] rows, or [`BATCH_BYTES`] of text.
    fn is_full(&self) -> bool {
        self.len() >= ROWS || self.bytes.len() >= BATCH_BYTES
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.cells.len().checked_div(self.width).unwrap_or(0)
    }

    /// Row `i` (below [`Batch::len`]).
    pub fn row(&self, i: usize) -> Cells<'_> {
        let cells = self
            .cells
            .get(i * self.width..(i + 1) * self.width)
            .unwrap_or(&[]);
        Cells {
            cells,
            bytes: &self.bytes,
        }
    }

    fn clear(&mut self) {
        self.cells.clear();
        self.bytes.clear();
    }
}

/// One row of a query, as SQLite gave it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cells<'a> {
    cells: &'a [Cell],
    bytes: &'a [u8],
}

impl<'a> Cells<'a> {
    /// Column `i`, as [`rusqlite::Row::get_ref`] gives it.
    pub fn get_ref(&self, i: usize) -> rusqlite::Result<ValueRef<'a>> {
        let bytes = |at: u32, len: u32| {
            self.bytes
                .get(at as usize..at as usize + len as usize)
                .unwrap_or(&[])
        };
        match self.cells.get(i) {
            Some(Cell::Null) => Ok(ValueRef::Null),
            Some(Cell::Integer(v)) => Ok(ValueRef::Integer(*v)),
            Some(Cell::Real(v)) => Ok(ValueRef::Real(*v)),
            Some(Cell::Text(at, len)) => Ok(ValueRef::Text(bytes(*at, *len))),
            Some(Cell::Blob(at, len)) => Ok(ValueRef::Blob(bytes(*at, *len))),
            None => Err(rusqlite::Error::InvalidColumnIndex(i)),
        }
    }
}

/// A query being read on another thread: its batches, then what its scan returned.
pub(super) struct Reader {
    table: String,
    path: std::path::PathBuf,
    batches: Receiver<Batch>,
    spent: SyncSender<Batch>,
    thread: JoinHandle<Result<Option<Arc<Readable>>, NsysError>>,
}

/// What reading a query gave: the damage met ([`ExportDb::scan_around_damage`]).
pub(super) type Scanned = Result<Option<Arc<Readable>>, NsysError>;

/// Starts reading `sql` over `table` on a sibling connection of `db`; `None` when no second
/// connection opens (the caller reads on its own).
pub(super) fn spawn(db: &ExportDb, table: &str, sql: &str) -> Option<Reader> {
    let sibling = db.sibling()?;
    let (tx, batches) = sync_channel::<Batch>(BATCHES);
    // Emptied batches come back to be filled again (no allocation per batch).
    let (spent, reuse) = sync_channel::<Batch>(BATCHES + 2);
    let (name, sql) = (table.to_owned(), sql.to_owned());
    let thread = std::thread::Builder::new()
        .name("sightline-read".into())
        .spawn(move || read(&sibling, &name, &sql, &tx, &reuse))
        .ok()?;
    Some(Reader {
        table: table.to_owned(),
        path: db.path.clone(),
        batches,
        spent,
        thread,
    })
}

/// The reader thread: fills batches and sends them; stops when the receiver is gone.
fn read(
    db: &ExportDb,
    table: &str,
    sql: &str,
    tx: &SyncSender<Batch>,
    reuse: &Receiver<Batch>,
) -> Scanned {
    let fresh = || reuse.try_recv().unwrap_or_default();
    let mut batch = fresh();
    let gone = || NsysError::Cancelled {
        path: db.path.clone(),
    };
    let damage = db.scan_around_damage(table, sql, |row| {
        batch.push(row);
        if batch.is_full() {
            let full = std::mem::replace(&mut batch, fresh());
            tx.send(full).map_err(|_| gone())?;
        }
        Ok(())
    })?;
    if batch.len() > 0 {
        tx.send(batch).map_err(|_| gone())?;
    }
    Ok(damage)
}

impl Reader {
    /// The next batch, `None` once the query is read (then [`Reader::finish`]).
    pub fn next(&self) -> Option<Batch> {
        self.batches.recv().ok()
    }

    /// Gives an emptied batch back for reuse.
    pub fn recycle(&self, mut batch: Batch) {
        batch.clear();
        let _ = self.spent.try_send(batch);
    }

    /// Waits for the reader and returns what its scan returned. Called early (the consumer
    /// stopped), it stops the reader first.
    pub fn finish(self) -> Scanned {
        let Reader {
            table,
            path,
            batches,
            thread,
            ..
        } = self;
        drop(batches);
        thread.join().unwrap_or_else(|_| {
            Err(NsysError::Query {
                path,
                table,
                detail: "the thread reading the table failed".into(),
            })
        })
    }
}

/// Reads `sql` over `table` on this thread, handing each row to `each` as [`Cells`] (the
/// path of small tables, and of a database no second connection can open).
pub(super) fn read_here(
    db: &ExportDb,
    table: &str,
    sql: &str,
    mut each: impl FnMut(Cells<'_>) -> Result<(), NsysError>,
) -> Scanned {
    let mut batch = Batch::default();
    db.scan_around_damage(table, sql, |row| {
        batch.clear();
        batch.push(row);
        each(batch.row(0))
    })
}
