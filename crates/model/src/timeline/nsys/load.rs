//! Reading an Nsight Systems SQLite export into a [`Timeline`].
//!
//! Host side: machine → process → thread → series ("CUDA API", "OS runtime", "cuBLAS",
//! "cuDNN", "NVTX" per domain, "NVTX ranges" per domain). Device side: machine → GPU → context
//! → stream (kernels, memcpy, memset, synchronization, graph launches). API rows of eventClass 67
//! (the backtrace duplicates of 2022.2-and-older exports) are dropped; every GPU row gets a flow
//! from the API call with the same process and correlation id.

use std::collections::HashMap;
use std::path::Path;

mod ahead;
mod api;
mod counters;
mod counts;
mod cpu;
mod damaged;
mod finish;
mod flows;
mod generic;
mod generic_events;
mod gpu;
mod graph_nodes;
mod metrics;
mod mpi;
mod names;
mod net_metrics;
mod nvtx;
mod payloads;
mod pipe;
mod pmu;
mod preview;
mod reading;
mod summary;
mod table_fields;
mod tracks;

use ahead::Ahead;
use flows::Flows;
use gpu::{GPU_TABLES, gpu_sql};
use names::Names;
use pipe::Cells;
use preview::PreviewClock;
pub use preview::{PREVIEW_AFTER, PREVIEW_MAX_EVENTS};
use reading::Reading;
use tracks::Tracks;

use super::NsysError;
use super::db::{ExportDb, int_of, text_of};
use crate::core::Progress;
use crate::problem::Location;
use crate::timeline::builder::{EventRef, TimelineBuilder};
use crate::timeline::model::{EventKind, GpuInfo, Timeline};

/// Options of [`load_with`].
#[derive(Default)]
pub struct LoadOptions<'a> {
    /// Progress and Cancel: the rows read of the tables read as events, reported every
    /// 65,536 rows and after each table with the table's name as the stage (the tables not
    /// counted as `other tables`); once cancelled, loading stops with
    /// [`NsysError::Cancelled`].
    pub progress: Progress<'a>,
    /// When set, timelines to show before the load ends are handed here:
    /// - what was read so far, with `partial` set: [`PREVIEW_AFTER`] after the start or once
    ///   [`PREVIEW_MAX_EVENTS`] events are read, whichever is first (a preview may hold one
    ///   report's worth, 65,536 rows, more), then whenever the time elapsed has doubled, so
    ///   that the first tracks show early and the others as their tables are read; past
    ///   [`PREVIEW_MAX_EVENTS`] events its large tracks are sketched (one span per run of busy
    ///   buckets, named "[events being read]": see `TimelineBuilder::sketch`), so that a
    ///   preview never costs a second copy of the events;
    /// - the timeline without the CPU samples' call stacks (`SAMPLING_CALLCHAINS`: often most
    ///   of an export's rows), which are then read last: its samples are named
    ///   [`STACKS_PENDING`] and have no call stack, and its `stacks_pending` is set (not for
    ///   an export without them).
    pub preview: Option<&'a mut dyn FnMut(Timeline)>,
    /// When the first preview of what was read so far is due (`None`: [`PREVIEW_AFTER`]).
    pub first_preview: Option<std::time::Duration>,
    /// How many event tables may be read ahead of the one being built from, each on its own
    /// connection and thread (`None`: one per core beyond two).
    pub read_ahead: Option<usize>,
}

/// The call stacks of the CPU samples.
const SAMPLE_CHAINS: &str = "SAMPLING_CALLCHAINS";

/// The name of a CPU sample in a preview timeline (see [`LoadOptions::preview`]).
pub const STACKS_PENDING: &str = "[call stack not read yet]";

/// Loads an export with default options.
pub fn load(path: &Path) -> Result<Timeline, NsysError> {
    load_with(path, LoadOptions::default())
}

/// Loads an export, reporting progress and honouring the cancel flag.
pub fn load_with(path: &Path, options: LoadOptions<'_>) -> Result<Timeline, NsysError> {
    let db = ExportDb::open_salvaging(path)?;
    let mut loader = Loader::new(&db, options)?;
    if let Some(summary) = &db.salvage {
        loader
            .b
            .warn(Location::Part("schema".into()), summary.clone());
    }
    for table in &db.undefined {
        loader.b.warn(
            Location::Part(table.clone()),
            "the table's definition in the schema is damaged (SQLite cannot parse it): skipped",
        );
    }
    loader.report_views();
    loader.session();
    loader.analysis_summary();
    loader.names()?;
    loader.runtime()?;
    loader.flows.index_calls();
    loader.cuda_events()?;
    loader.host_series("OSRT_API", "OS runtime", SERIES_OSRT, EventKind::OsRuntime)?;
    loader.host_series("CUBLAS_EVENTS", "cuBLAS", SERIES_CUBLAS, EventKind::Cublas)?;
    loader.host_series("CUDNN_EVENTS", "cuDNN", SERIES_CUDNN, EventKind::Cudnn)?;
    for spec in GPU_TABLES {
        loader.gpu_table(spec)?;
    }
    loader.flows.drop_calls();
    loader.nvtx()?;
    loader.cpu_samples()?;
    loader.thread_states()?;
    loader.counter_tables()?;
    let metrics = loader.metric_names()?;
    loader.gpu_metrics(&metrics)?;
    loader.network_metrics()?;
    loader.pmu_counters()?;
    loader.mpi()?;
    loader.generic_tables(&metrics)?;
    if !loader.samples.deferred {
        return loader.finish();
    }
    let mut timeline = loader.finish_timeline()?;
    if let Some(preview) = loader.reading.preview.as_mut() {
        let mut shown = timeline.clone();
        shown.clear_sample_stacks();
        shown.stacks_pending = true;
        preview(shown);
    }
    loader.sample_stacks(&mut timeline)?;
    Ok(timeline)
}

const SERIES_CUDA_API: u64 = 0;
const SERIES_OSRT: u64 = 1;
const SERIES_CUBLAS: u64 = 2;
const SERIES_CUDNN: u64 = 3;
const SERIES_SCHED: u64 = 4;
const SERIES_SAMPLES: u64 = 5;
/// NVTX push/pop series keys are `SERIES_NVTX + domain`, start/end `SERIES_NVTX_RANGES + domain`.
const SERIES_NVTX: u64 = 1 << 32;
const SERIES_NVTX_RANGES: u64 = 2 << 32;
/// Series keys of the tables drawn generically start here ([`generic`]).
const SERIES_GENERIC: u64 = 3 << 32;
/// Series keys of counter rows start here ([`counters`]).
const SERIES_COUNTERS: u64 = 4 << 32;

/// Tables read, for the progress total.
const READ_TABLES: &[&str] = &[
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "OSRT_API",
    "CUBLAS_EVENTS",
    "CUDNN_EVENTS",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
    "NVTX_EVENTS",
    "COMPOSITE_EVENTS",
    "SCHED_EVENTS",
    SAMPLE_CHAINS,
];

/// Labels of `ENUM_CUDA_MEM_KIND` for exports that lack the table: nsys's numbering, 0 is
/// pageable (as in every export that has the table; not CUPTI's, where 0 is unknown — the
/// corpus's exports without it copy host-to-device from kind 0 or 1 to kind 2).
pub const MEM_KIND_LABELS: &[&str] = &[
    "Pageable",
    "Pinned",
    "Device",
    "Array",
    "Managed",
    "Device Static",
    "Managed Static",
    "Unknown",
];

/// Labels of `ENUM_CUDA_MEMCPY_OPER` for exports that lack the table.
pub const MEMCPY_LABELS: &[&str] = &[
    "Unknown",
    "Host-to-Device",
    "Device-to-Host",
    "Host-to-Array",
    "Array-to-Host",
    "Array-to-Array",
    "Array-to-Device",
    "Device-to-Array",
    "Device-to-Device",
    "Host-to-Host",
    "Peer-to-Peer",
    "Unified Host-to-Device",
    "Unified Device-to-Host",
    "Unified Device-to-Device",
];

const SYNC_LABELS: &[&str] = &[
    "Unknown",
    "Event sync",
    "Stream wait sync",
    "Stream sync",
    "Context sync",
];

/// Why a row could not be read (its rows are skipped and counted in a warning).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum RowError {
    /// A column that must hold an integer holds something else (or NULL).
    #[error("{column} is not an integer")]
    NotInteger {
        /// The column.
        column: &'static str,
    },
    /// A row without a session time whose raw time is in another time base.
    #[error(
        "timestamp is NULL and the raw time is in the source's time base {time_source}, not the session's"
    )]
    ForeignTime {
        /// The source's time base.
        time_source: String,
    },
    /// A 32-bit id column (a correlation id) holds a value outside `0..2^32`.
    #[error("{column} {value} is not a 32-bit id")]
    NotId32 {
        /// The column.
        column: &'static str,
        /// The value it holds.
        value: i64,
    },
}

/// Rows of one table that could not be read.
#[derive(Default)]
struct Skipped {
    count: u64,
    first_rowid: Option<i64>,
    reason: String,
}

/// A load in progress: the export, the timeline being built, and the load's state in parts
/// by concern, so that a table reader borrows only the parts it needs.
struct Loader<'d, 'a> {
    db: &'d ExportDb,
    b: TimelineBuilder,
    /// Progress, row counts, counting and previews ([`reading`]).
    reading: Reading<'a>,
    /// The id → name caches ([`names`]).
    names: Names,
    /// The track maps ([`tracks`]).
    tracks: Tracks,
    /// The correlation bookkeeping ([`flows`]).
    flows: Flows,
    /// The CPU samples' call stacks ([`cpu`]).
    samples: cpu::Samples,
    /// The event tables being read ahead of the one being built from.
    ahead: Ahead,
}

impl<'d, 'a> Loader<'d, 'a> {
    fn new(db: &'d ExportDb, options: LoadOptions<'a>) -> Result<Self, NsysError> {
        let started = std::time::Instant::now();
        // Every table's rows, counted once: the import statistics, and the progress total.
        let mut b = TimelineBuilder::new(&db.path);
        let mut names: Vec<&str> = db.table_names().into_iter().collect();
        names.sort_unstable();
        // The samples' call stacks are read after a preview when one is wanted; their table
        // is then counted when it is read (counting 132 M rows reads them all: ~9 s).
        let defer = options.preview.is_some()
            && db.has_rows("COMPOSITE_EVENTS")?
            && db.has_rows(SAMPLE_CHAINS)?;
        // The tables read as events are counted beside the load ([`counts`]).
        for table in names {
            if READ_TABLES.contains(&table) {
                continue;
            }
            let rows = db.row_count(table)?;
            if rows > 0 {
                let source = b.session.imports.source(table);
                source.rows = rows;
                source.documented = super::schema::is_documented(table);
            }
        }
        let counting = counts::start_counting(db, defer);
        let counted = match counting {
            Some(_) => None,
            None => Some(counts::count_read_tables(db, defer)?),
        };
        let mut loader = Loader {
            db,
            b,
            reading: Reading {
                progress: options.progress,
                preview: options.preview,
                preview_clock: PreviewClock {
                    started,
                    due: Some(started + options.first_preview.unwrap_or(PREVIEW_AFTER)),
                    made: false,
                },
                rows_done: 0,
                rows_total: 0,
                counting,
            },
            names: Names::default(),
            tracks: Tracks::default(),
            flows: Flows::default(),
            samples: cpu::Samples::new(defer),
            ahead: Ahead::new(
                ahead::plan(db, defer),
                options.read_ahead.unwrap_or_else(Ahead::depth_for_cores),
            ),
        };
        if let Some((rows, total)) = counted {
            loader.reading.apply_counts(&mut loader.b, rows, total);
        }
        Ok(loader)
    }

    /// Reports progress at stage `table` ([`Reading::report`]).
    fn report(&mut self, table: &'static str) -> Result<(), NsysError> {
        self.reading.report(self.db, &mut self.b, table)
    }

    /// Counts the rows of `table` not yet accounted for as attached: a table read whole into
    /// names, labels or session facts.
    fn attach_rest(&mut self, table: &str) {
        if let Some(source) = self.b.session.imports.sources.get_mut(table) {
            source.attached += u64::try_from(source.unaccounted()).unwrap_or(0);
        }
    }

    /// Counts the events pushed since the builder held `before` as events of `table`.
    fn events_since(&mut self, table: &str, before: usize) {
        let n = self.b.event_count().saturating_sub(before) as u64;
        self.b.session.imports.events(table, n);
    }

    /// Runs `sql` over `table`, calling `f` per row; rows `f` rejects are counted and reported.
    /// An event table is read on a second connection and thread while `f` runs here
    /// ([`pipe`]), often started ahead while earlier tables were built from ([`ahead`]);
    /// other tables, and a database no second connection opens, on this thread.
    fn scan(
        &mut self,
        table: &str,
        sql: &str,
        mut f: impl FnMut(&mut Self, &Cells<'_>) -> Result<(), RowError>,
    ) -> Result<(), NsysError> {
        // Progress names the tables it counts, and the rest as "other tables".
        let stage = READ_TABLES
            .iter()
            .copied()
            .find(|t| *t == table)
            .unwrap_or("other tables");
        let db = self.db;
        let mut skipped = Skipped::default();
        let mut n: u64 = 0;
        let counted = stage == table;
        let mut each = |l: &mut Self, row: Cells<'_>| -> Result<(), NsysError> {
            if let Err(reason) = f(l, &row) {
                l.b.session.imports.skipped(table, &reason.to_string(), 1);
                if skipped.count == 0 {
                    skipped.first_rowid = row.get_ref(0).ok().and_then(int_of);
                    skipped.reason = reason.to_string();
                }
                skipped.count += 1;
            }
            n += 1;
            if n.is_multiple_of(65536) {
                if counted {
                    l.reading.rows_done += 65536;
                }
                l.report(stage)?;
            }
            Ok(())
        };
        let reader = if counted {
            self.ahead.reader(db, table, sql)
        } else {
            None
        };
        let damage = match reader {
            Some(reader) => {
                let mut result = Ok(());
                while let Some(batch) = reader.next() {
                    result = (0..batch.len()).try_for_each(|i| each(self, batch.row(i)));
                    reader.recycle(batch);
                    if result.is_err() {
                        break;
                    }
                }
                // Joined before any error is returned: the reader stops at its next batch.
                let scanned = reader.finish();
                // Its batches are freed on its thread's heap: give their pages back now
                // rather than at the next trim (the load's peak comes at its end).
                crate::timeline::release_free_memory();
                result?;
                scanned?
            }
            None => pipe::read_here(db, table, sql, |row| each(self, row))?,
        };
        if let Some(readable) = damage {
            self.damaged(table, &readable);
        }
        if counted {
            self.reading.rows_done += n % 65536;
        }
        self.report(stage)?;
        if skipped.count > 0 {
            let at = skipped
                .first_rowid
                .map_or(String::new(), |r| format!(" (first at rowid {r})"));
            self.b.warn(
                Location::Row {
                    table: table.into(),
                    rowid: skipped.first_rowid,
                },
                format!("{} rows skipped{at}: {}", skipped.count, skipped.reason),
            );
        }
        Ok(())
    }

    fn session(&mut self) {
        let mut meta = self.db.key_values("META_DATA_EXPORT");
        self.attach_rest("META_DATA_EXPORT");
        if meta.is_empty() {
            meta = self.db.key_values("EXPORT_META_DATA");
            self.attach_rest("EXPORT_META_DATA");
        }
        self.b.session.product_version = meta.get("EXPORT_PRODUCT_VERSION").cloned();
        // `EXPORT_SCHEMA_VERSION`, else its parts (`_MAJOR`, `_MINOR`, `_MICRO`) where only
        // those are written; the oldest layout has neither table (no version at all).
        self.b.session.schema_version = meta.get("EXPORT_SCHEMA_VERSION").cloned().or_else(|| {
            let part = |p: &str| meta.get(&format!("EXPORT_SCHEMA_VERSION_{p}")).cloned();
            let major = part("MAJOR")?;
            Some(match (part("MINOR"), part("MICRO")) {
                (Some(minor), Some(micro)) => format!("{major}.{minor}.{micro}"),
                (Some(minor), None) => format!("{major}.{minor}"),
                _ => major,
            })
        });
        if self.db.has_table("TARGET_INFO_SESSION_START_TIME") {
            self.b.session.start_utc_ns = self
                .db
                .conn
                .query_row(
                    "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
                    [],
                    |r| Ok(r.get_ref(0).ok().and_then(int_of)),
                )
                .ok()
                .flatten();
            self.attach_rest("TARGET_INFO_SESSION_START_TIME");
        }
        if self.db.has_column("TARGET_INFO_SYSTEM_ENV", "value") {
            self.b.session.host_name = self
                .db
                .conn
                .query_row(
                    "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' LIMIT 1",
                    [],
                    |r| r.get::<_, String>(0),
                )
                .ok()
                .filter(|h| !h.trim().is_empty());
        }
        for (table, id_column) in [
            ("TARGET_INFO_GPU", "id"),
            ("TARGET_INFO_CUDA_GPU", "deviceId"),
        ] {
            let id_column = if self.db.has_column(table, id_column) {
                id_column
            } else {
                "deviceId"
            };
            if !self.db.has_column(table, id_column) || !self.b.session.gpus.is_empty() {
                continue;
            }
            let columns: Vec<String> = self.db.columns(table).to_vec();
            let Ok(mut stmt) = self.db.conn.prepare(&format!("SELECT * FROM {table}")) else {
                continue;
            };
            let Ok(mut rows) = stmt.query([]) else {
                continue;
            };
            while let Ok(Some(row)) = rows.next() {
                let mut gpu = GpuInfo::default();
                for (i, c) in columns.iter().enumerate() {
                    let Some(v) = row.get_ref(i).ok().and_then(text_of) else {
                        continue;
                    };
                    if c == id_column {
                        gpu.id = v.parse().unwrap_or(0);
                    } else if c == "name" {
                        gpu.name = v;
                    } else {
                        gpu.properties.push((c.clone(), v));
                    }
                }
                self.names
                    .gpu_names
                    .insert(i64::from(gpu.id), gpu.name.clone());
                self.b.session.gpus.push(gpu);
            }
            drop(rows);
            drop(stmt);
            self.attach_rest(table);
        }
    }
}

fn rowid(v: Option<i64>) -> u32 {
    v.map_or(0, crate::core::num::clamp_u32)
}

/// A 32-bit id (a correlation id: 0 = none, also for NULL), or the error for `column` holding
/// a value outside `0..2^32` (never wrapped onto another id).
fn id32(value: Option<i64>, column: &'static str) -> Result<u32, RowError> {
    value.map_or(Ok(0), |v| {
        u32::try_from(v).map_err(|_| RowError::NotId32 { column, value: v })
    })
}

fn times(start: Option<i64>, end: Option<i64>) -> Result<(i64, i64), RowError> {
    match (start, end) {
        (Some(s), Some(e)) => Ok((s, e)),
        (None, _) => Err(RowError::NotInteger { column: "start" }),
        (_, None) => Err(RowError::NotInteger { column: "end" }),
    }
}

/// `value`, or the error for `column` not holding an integer.
fn integer(value: Option<i64>, column: &'static str) -> Result<i64, RowError> {
    value.ok_or(RowError::NotInteger { column })
}

fn lookup_label(table: Option<&HashMap<i64, String>>, builtin: &[&str], code: i64) -> String {
    lookup_label_opt(table, builtin, code).unwrap_or_else(|| format!("kind {code}"))
}

/// The label of `code` in the export's enum `table`, else in `builtin`, else `None`.
fn lookup_label_opt(
    table: Option<&HashMap<i64, String>>,
    builtin: &[&str],
    code: i64,
) -> Option<String> {
    table.and_then(|t| t.get(&code).cloned()).or_else(|| {
        usize::try_from(code)
            .ok()
            .and_then(|i| builtin.get(i))
            .map(|s| s.to_string())
    })
}
