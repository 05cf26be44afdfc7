//! The loader's tracks: how the track of a row is found or made — a series under its thread
//! (machine → process → thread → series), a GPU stream (machine → GPU → context → stream), or
//! the row of a generically drawn table under its thread, process, GPU or the diagnostics
//! group — each made once and then found by its key.

use std::collections::HashMap;

use super::generic::Place;
use super::names::Names;
use super::{SERIES_GENERIC, SERIES_NVTX_RANGES};
use crate::timeline::builder::TimelineBuilder;
use crate::timeline::model::{Layout, TrackId, TrackKind};
use crate::timeline::nsys::db::split_global_id;

/// The track maps of a load.
#[derive(Default)]
pub(super) struct Tracks {
    /// Series tracks by (global thread id, series key).
    pub(super) series: HashMap<(i64, u64), TrackId>,
    /// Stream tracks by (machine, device, context, stream).
    streams: HashMap<(u64, i64, i64, i64), TrackId>,
    /// The series keys of the generically drawn tables (and their sources), by name.
    generic_keys: HashMap<String, u64>,
}

impl Tracks {
    /// The series track `key` under the thread of `gtid`.
    pub(super) fn thread_series(
        &mut self,
        b: &mut TimelineBuilder,
        names: &Names,
        gtid: i64,
        key: u64,
        name: &str,
    ) -> TrackId {
        if let Some(&t) = self.series.get(&(gtid, key)) {
            return t;
        }
        let (machine, pid, tid) = split_global_id(gtid);
        let m = machine_track(b, machine);
        let p = process_track(b, names, m, machine, pid);
        let tname = names.thread_names.get(&gtid).cloned();
        let t = b.track(Some(p), TrackKind::Thread, tid, || match tname {
            Some(n) => format!("Thread {tid} ({n})"),
            None => format!("Thread {tid}"),
        });
        let s = b.track(Some(t), TrackKind::Series, key, || name.to_string());
        if key >= SERIES_NVTX_RANGES {
            b.set_layout(s, Layout::Lanes);
        }
        self.series.insert((gtid, key), s);
        s
    }

    /// The track of a GPU stream.
    pub(super) fn stream(
        &mut self,
        b: &mut TimelineBuilder,
        names: &Names,
        (machine, device, context, stream): (u64, i64, i64, i64),
    ) -> TrackId {
        if let Some(&t) = self.streams.get(&(machine, device, context, stream)) {
            return t;
        }
        let m = machine_track(b, machine);
        let g = gpu_track(b, names, m, device);
        let c = b.track(Some(g), TrackKind::Context, context as u64, || {
            format!("Context {context}")
        });
        let s = b.track(Some(c), TrackKind::Stream, stream as u64, || {
            format!("Stream {stream}")
        });
        b.set_layout(s, Layout::Lanes);
        self.streams.insert((machine, device, context, stream), s);
        s
    }

    /// The series key of a generically drawn table's rows.
    pub(super) fn generic_key(&mut self, table: &str) -> u64 {
        let next = SERIES_GENERIC + self.generic_keys.len() as u64;
        *self.generic_keys.entry(table.to_owned()).or_insert(next)
    }

    /// The row of generic family `key` at `place`.
    pub(super) fn generic(
        &mut self,
        b: &mut TimelineBuilder,
        names: &Names,
        place: Place,
        key: u64,
        label: &str,
    ) -> TrackId {
        match place {
            Place::Thread(gtid) => self.thread_series(b, names, gtid, key, label),
            Place::Process(gpid) => {
                let (machine, pid, _) = split_global_id(gpid);
                let m = machine_track(b, machine);
                let p = process_track(b, names, m, machine, pid);
                b.track(Some(p), TrackKind::Series, key, || label.to_owned())
            }
            Place::Device(device) => {
                let m = machine_track(b, self.first_machine());
                let g = gpu_track(b, names, m, device);
                b.track(Some(g), TrackKind::Series, key, || label.to_owned())
            }
            Place::Elsewhere => {
                let group = b.track(None, TrackKind::Series, u64::MAX, || {
                    "Diagnostics and other events".to_owned()
                });
                b.track(Some(group), TrackKind::Series, key, || label.to_owned())
            }
        }
    }

    /// The machine of the first thread or process seen (GPU rows without a process id).
    pub(super) fn first_machine(&self) -> u64 {
        self.series
            .keys()
            .map(|(gtid, _)| split_global_id(*gtid).0)
            .min()
            .unwrap_or(0)
    }

    /// Frees the maps once the events are read.
    pub(super) fn free(&mut self) {
        *self = Self::default();
    }
}

/// The machine track of `machine`.
pub(super) fn machine_track(b: &mut TimelineBuilder, machine: u64) -> TrackId {
    b.track(None, TrackKind::Machine, machine, || {
        format!("Machine {machine}")
    })
}

/// The track of process `pid` under machine track `m`, named with its name when known.
pub(super) fn process_track(
    b: &mut TimelineBuilder,
    names: &Names,
    m: TrackId,
    machine: u64,
    pid: u64,
) -> TrackId {
    let pname = names.process_names.get(&(machine, pid)).cloned();
    b.track(Some(m), TrackKind::Process, pid, || match pname {
        Some(n) => format!("Process {pid} ({n})"),
        None => format!("Process {pid}"),
    })
}

/// The track of GPU `device` under machine track `m`, named with its name when known.
pub(super) fn gpu_track(
    b: &mut TimelineBuilder,
    names: &Names,
    m: TrackId,
    device: i64,
) -> TrackId {
    let gname = names.gpu_names.get(&device).cloned();
    b.track(Some(m), TrackKind::Gpu, device as u64, || match gname {
        Some(n) if !n.is_empty() => format!("GPU {device} ({n})"),
        _ => format!("GPU {device}"),
    })
}
