//! Levels over time as counter tracks: a GPU's memory usage per process and segment group
//! (`GPU_MEMORY_USAGE_EVENTS`), its budget (`GPU_MEMORY_BUDGET_EVENTS`) and the bytes resident
//! in each segment (`TOTAL_BYTES_RESIDENT_IN_SEGMENT_EVENTS`). Each sample is an instant whose
//! payload is the new value, on a row drawn as a step chart.

use std::collections::HashMap;

use super::tracks::{gpu_track, machine_track, process_track};
use super::{Loader, integer, rowid};
use crate::timeline::builder::NewEvent;
use crate::timeline::model::{EventAttrs, EventKind, Layout, Payload, TrackKind};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, split_global_id};
use crate::timeline::strings::StrId;

/// A counter table: its value column, and whether its rows are per process.
struct CounterTable {
    table: &'static str,
    value: &'static str,
    what: &'static str,
    per_process: bool,
}

const COUNTER_TABLES: &[CounterTable] = &[
    CounterTable {
        table: "GPU_MEMORY_USAGE_EVENTS",
        value: "newUsage",
        what: "memory usage",
        per_process: true,
    },
    CounterTable {
        table: "GPU_MEMORY_BUDGET_EVENTS",
        value: "newBudget",
        what: "memory budget",
        per_process: false,
    },
    CounterTable {
        table: "TOTAL_BYTES_RESIDENT_IN_SEGMENT_EVENTS",
        value: "totalBytesResident",
        what: "bytes resident",
        per_process: false,
    },
];

/// `segmentGroup` 0 is the GPU's local memory, 1 the system memory it maps.
fn segment_group(group: i64) -> String {
    match group {
        0 => "local".to_owned(),
        1 => "non-local".to_owned(),
        g => format!("segment group {g}"),
    }
}

/// `bytes` as a short label ("43.5 MiB").
pub(super) fn bytes_label(bytes: i64) -> String {
    let b = bytes as f64;
    let (v, unit) = match bytes.unsigned_abs() {
        n if n >= 1 << 30 => (b / f64::from(1u32 << 30), "GiB"),
        n if n >= 1 << 20 => (b / f64::from(1u32 << 20), "MiB"),
        n if n >= 1 << 10 => (b / 1024.0, "KiB"),
        _ => return format!("{bytes} B"),
    };
    format!("{v:.1} {unit}")
}

impl Loader<'_, '_> {
    /// Every counter table of the export.
    pub(super) fn counter_tables(&mut self) -> Result<(), NsysError> {
        for (index, spec) in COUNTER_TABLES.iter().enumerate() {
            if self.db.has_table(spec.table) && self.db.has_column(spec.table, spec.value) {
                self.counter_table(index as u64, spec)?;
            }
        }
        Ok(())
    }

    fn counter_table(&mut self, index: u64, spec: &CounterTable) -> Result<(), NsysError> {
        let t = spec.table;
        let optional = self.db.cols_or_null(
            t,
            &["globalTid", "gpu", spec.value, "segmentGroup", "segmentId"],
        );
        let sql = format!("SELECT rowid, timestamp, {optional} FROM {t} ORDER BY timestamp");
        let mut names: HashMap<i64, StrId> = HashMap::new();
        let before = self.b.event_count();
        self.scan(t, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let time = integer(v(1), "timestamp")?;
            let gpu = v(3).unwrap_or(0);
            let value = integer(v(4), spec.value)?;
            let group = v(5).unwrap_or(0);
            let mut label = format!("GPU {gpu} {} ({})", spec.what, segment_group(group));
            if let Some(segment) = v(6) {
                label = format!("GPU {gpu} {} (segment {segment})", spec.what);
            }
            let gtid = v(2).unwrap_or(0);
            let (machine, pid, _) = split_global_id(gtid);
            let m = machine_track(&mut l.b, machine);
            let parent = if spec.per_process {
                process_track(&mut l.b, &l.names, m, machine, pid)
            } else {
                gpu_track(&mut l.b, &l.names, m, gpu)
            };
            // One row per (table, GPU, segment group or segment).
            let key = super::SERIES_COUNTERS
                + (index << 24)
                + ((gpu as u64 & 0xFF) << 16)
                + (v(6).unwrap_or(group) as u64 & 0xFFFF);
            let track = l.b.track(Some(parent), TrackKind::Series, key, || label);
            l.b.set_layout(track, Layout::Counter);
            l.b.session
                .series_sources
                .entry(track)
                .or_insert_with(|| t.to_owned());
            let name = *names
                .entry(value)
                .or_insert_with(|| l.b.intern(&bytes_label(value)));
            let e = l.b.push(
                track,
                NewEvent::new(EventKind::Marker, time, time, name, rowid(v(0))),
            );
            l.b.set_attrs(
                e,
                EventAttrs {
                    payload: Some(Payload::I64(value)),
                    ..EventAttrs::default()
                },
            );
            Ok(())
        })?;
        self.events_since(t, before);
        Ok(())
    }
}
