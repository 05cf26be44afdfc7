//! The loaded timeline: a track tree over packed, per-row event columns.
//!
//! Memory layout (the budget is ≤ 32 bytes per event all-in): every event of every track lives in
//! one set of columns (`start` in about 4 bytes — a `u32` from its block's smallest start, see
//! `blocked.rs` — `duration` u32, `name` u32, `correlation` and `source` in about 2 bytes each
//! the same way, `kind` u8: about 17 bytes), ordered track by track and row by row, so a row is a contiguous index range sorted
//! by start whose spans never overlap. Flows cost 12 bytes each (the pair plus a
//! second ordering), durations past `u32::MAX` ns and attributes (colour, category, payload...)
//! sit in sparse side tables held only by the events that have them.

use std::ops::Range;
use std::path::PathBuf;

use super::strings::{StrId, StringTable};
use crate::core::num::index_u32;

/// The correlation column of a CPU sample without a call stack (a sample's correlation column
/// holds its [`super::stacks::StackId`]).
pub const NO_STACK: u32 = u32::MAX;

/// An event's index in its [`Timeline`]'s columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub u32);

/// A track's index in [`Timeline::tracks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TrackId(pub u32);

/// What an event is. Kept to one byte per event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EventKind {
    /// A CUDA runtime or driver API call on a CPU thread.
    CudaApi,
    /// An OS runtime library call (`OSRT_API`).
    OsRuntime,
    /// A cuBLAS call.
    Cublas,
    /// A cuDNN call.
    Cudnn,
    /// An NVTX push/pop range (nested per thread and domain; the row is its depth).
    NvtxPushPop,
    /// An NVTX start/end range (placed in lanes; may end on another thread).
    NvtxStartEnd,
    /// An NVTX mark (an instant).
    NvtxMark,
    /// A GPU kernel.
    Kernel,
    /// A GPU memory copy.
    Memcpy,
    /// A GPU memory set.
    Memset,
    /// A CUDA synchronization (event, stream, context wait).
    Synchronization,
    /// A CUDA graph launch executed on a stream.
    GraphLaunch,
    /// A host API call of another runtime (OpenCL, HSA, ...).
    HostApi,
    /// Work executed by a device queue (OpenCL command, HSA dispatch or copy).
    DeviceCommand,
    /// A generic instant (text annotations, perfmarkers).
    Marker,
    /// A generic range (text annotations, perfmarkers).
    Range,
    /// A CPU sample of a thread (an instant; its call stack is [`Timeline::stack_of`]).
    CpuSample,
    /// A thread running on a CPU, from its sched-in to its sched-out.
    ThreadRunning,
}

impl EventKind {
    /// Every kind, in declaration order.
    pub const ALL: [EventKind; 18] = [
        EventKind::CudaApi,
        EventKind::OsRuntime,
        EventKind::Cublas,
        EventKind::Cudnn,
        EventKind::NvtxPushPop,
        EventKind::NvtxStartEnd,
        EventKind::NvtxMark,
        EventKind::Kernel,
        EventKind::Memcpy,
        EventKind::Memset,
        EventKind::Synchronization,
        EventKind::GraphLaunch,
        EventKind::HostApi,
        EventKind::DeviceCommand,
        EventKind::Marker,
        EventKind::Range,
        EventKind::CpuSample,
        EventKind::ThreadRunning,
    ];

    /// The stable lowercase name used in JSON output (`"kernel"`, `"cuda_api"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::CudaApi => "cuda_api",
            EventKind::OsRuntime => "os_runtime",
            EventKind::Cublas => "cublas",
            EventKind::Cudnn => "cudnn",
            EventKind::NvtxPushPop => "nvtx_push_pop",
            EventKind::NvtxStartEnd => "nvtx_start_end",
            EventKind::NvtxMark => "nvtx_mark",
            EventKind::Kernel => "kernel",
            EventKind::Memcpy => "memcpy",
            EventKind::Memset => "memset",
            EventKind::Synchronization => "synchronization",
            EventKind::GraphLaunch => "graph_launch",
            EventKind::HostApi => "host_api",
            EventKind::DeviceCommand => "device_command",
            EventKind::Marker => "marker",
            EventKind::Range => "range",
            EventKind::CpuSample => "cpu_sample",
            EventKind::ThreadRunning => "thread_running",
        }
    }

    /// Whether this kind runs on a GPU (the target side of a flow).
    pub fn is_gpu_work(self) -> bool {
        matches!(
            self,
            EventKind::Kernel
                | EventKind::Memcpy
                | EventKind::Memset
                | EventKind::Synchronization
                | EventKind::GraphLaunch
                | EventKind::DeviceCommand
        )
    }
}

/// What a node of the track tree stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrackKind {
    /// A machine (or VM) of the session.
    Machine,
    /// A process.
    Process,
    /// A CPU thread.
    Thread,
    /// A GPU (device).
    Gpu,
    /// A GPU context.
    Context,
    /// A CUDA stream.
    Stream,
    /// A device queue (OpenCL command queue, HSA queue).
    Queue,
    /// A series of events under its parent ("CUDA API", "OS runtime", "NVTX (domain)", a file...).
    Series,
    /// One file of a merged timeline (a rank or node of a job): the group of its tracks.
    File,
}

/// How the builder places a track's events into rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// A span inside the previous open span goes one row deeper (call stacks, push/pop).
    #[default]
    Nested,
    /// First row whose last span has ended (start/end ranges, overlapping work).
    Lanes,
    /// The depth each event was given, moved down only if it would overlap.
    Explicit,
    /// Samples of a level over time (one row of instants whose payload is the value), drawn
    /// as a step chart.
    Counter,
}

/// A node of the track tree. Leaves (and any node) may hold rows of events.
#[derive(Debug, Clone)]
pub struct Track {
    /// Display name ("Thread 1234 (python)", "Stream 7", "CUDA API").
    pub name: String,
    /// What the node stands for.
    pub kind: TrackKind,
    /// A numeric identity within the parent (pid, tid, device id, stream id, ...).
    pub key: u64,
    /// Parent node (`None` for roots).
    pub parent: Option<TrackId>,
    /// Child nodes in display order.
    pub children: Vec<TrackId>,
    /// Rows of events, top to bottom; row `d` is nesting depth `d` (or lane `d`).
    pub rows: Vec<Range<u32>>,
    /// How the events were placed in rows.
    pub layout: Layout,
}

impl Track {
    /// Number of events in all rows of this node (not its children).
    pub fn event_count(&self) -> usize {
        self.rows.iter().map(|r| r.len()).sum()
    }
}

/// Sparse per-event attributes (most events have none). Identical attribute sets are stored
/// once, so a trace whose NVTX ranges share a few colours pays 8 bytes per coloured event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventAttrs {
    /// ARGB colour (`0xAARRGGBB`).
    pub color: Option<u32>,
    /// A category number (NVTX category).
    pub category: Option<u32>,
    /// A payload value.
    pub payload: Option<Payload>,
    /// When the work was queued (device queues: queued → start is waiting time). Given to the
    /// builder here; a finished timeline answers it with [`Timeline::queued_ns`].
    pub queued_ns: Option<i64>,
    /// The range was never closed; its end is the last timestamp of its source.
    pub open: bool,
    /// The call stack of the call (an OS runtime or CUDA API call with a backtrace).
    pub stack: Option<super::stacks::StackId>,
}

impl EventAttrs {
    /// Attributes that only give a call its stack.
    pub fn with_stack(stack: super::stacks::StackId) -> EventAttrs {
        EventAttrs {
            stack: Some(stack),
            ..EventAttrs::default()
        }
    }
}

impl Eq for EventAttrs {}

impl std::hash::Hash for EventAttrs {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.color.hash(state);
        self.category.hash(state);
        self.queued_ns.hash(state);
        self.open.hash(state);
        self.stack.hash(state);
        match &self.payload {
            None => 0u8.hash(state),
            Some(Payload::U64(v)) => (1u8, v).hash(state),
            Some(Payload::I64(v)) => (2u8, v).hash(state),
            Some(Payload::F64(v)) => (3u8, v.to_bits()).hash(state),
            Some(Payload::Text(v)) => (4u8, v).hash(state),
        }
    }
}

/// An NVTX-style payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// Unsigned integer payload.
    U64(u64),
    /// Signed integer payload.
    I64(i64),
    /// Floating-point payload.
    F64(f64),
    /// Text payload (JSON or plain).
    Text(String),
}

/// A link between the work that was asked for and the work that ran (API call → kernel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Flow {
    /// The calling event (an API call).
    pub from: EventId,
    /// The event it caused (GPU work).
    pub to: EventId,
}

/// A GPU of the session with its properties.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuInfo {
    /// Device id as used by the events.
    pub id: u32,
    /// Marketing name ("NVIDIA A100-SXM4-40GB").
    pub name: String,
    /// Other properties as (name, value) text.
    pub properties: Vec<(String, String)>,
}

/// Facts about the session and the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionInfo {
    /// Version of the tool that wrote the file ("2024.5.1.113").
    pub product_version: Option<String>,
    /// Version of the file's schema ("3.13.2").
    pub schema_version: Option<String>,
    /// Wall-clock time of time 0, in ns since the Unix epoch (UTC).
    pub start_utc_ns: Option<i64>,
    /// The name of the machine that was profiled (`TARGET_INFO_SYSTEM_ENV` `Hostname`).
    pub host_name: Option<String>,
    /// The GPUs.
    pub gpus: Vec<GpuInfo>,
    /// The Analysis Summary of an Nsight Systems export (empty for other files).
    pub summary: super::nsys::AnalysisSummary,
    /// What the loader did with every row of the file (`ImportStats`).
    pub imports: super::imports::ImportStats,
    /// The source table of rows whose events' kind does not tell it (an export's tables
    /// drawn generically: profiler overhead, OpenACC, diagnostics...).
    pub series_sources: std::collections::BTreeMap<TrackId, String>,
    /// The binary payloads of the export's NVTX events (`NVTX_EVENTS.binaryData`) with their
    /// schemas, decoded on demand ([`Timeline::payload_fields`]).
    pub nvtx_payloads: Option<std::sync::Arc<super::nsys::payload::store::NvtxPayloads>>,
    /// The fields of rows whose events keep more than the timeline draws (CUDA graph nodes,
    /// unified memory), by table and rowid ([`Timeline::row_fields`]).
    pub row_fields: Option<std::sync::Arc<super::row_fields::RowFields>>,
    /// The export's MPI calls' fields, ranks and communicators ([`Timeline::mpi_call`]).
    pub mpi: Option<std::sync::Arc<super::mpi::MpiRecords>>,
}

/// The packed event columns (see the module documentation for the layout).
#[derive(Debug, Clone, Default)]
pub(crate) struct Columns {
    pub start: super::blocked::Starts,
    pub duration: Vec<u32>,
    pub name: Vec<StrId>,
    pub correlation: super::blocked::Packed32,
    pub source: super::blocked::Packed32,
    pub kind: Vec<EventKind>,
    /// `(event, duration)` for durations ≥ `u32::MAX`, sorted by event.
    pub long_durations: Vec<(u32, u64)>,
}

/// A loaded timeline: the track tree, the events, flows, attributes, warnings and session facts.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The file the timeline was read from.
    pub source: PathBuf,
    /// Every name of every event and track.
    pub strings: StringTable,
    /// The track tree, parents before children.
    pub tracks: Vec<Track>,
    /// Top-level tracks in display order.
    pub roots: Vec<TrackId>,
    /// Problems worked around while loading.
    pub warnings: Vec<crate::problem::FileProblem>,
    /// Session facts.
    pub session: SessionInfo,
    /// Call stacks of CPU samples and of calls with a backtrace.
    pub stacks: super::stacks::CallStacks,
    /// The CPU samples' call stacks are still being read: this is the timeline shown while
    /// they are (see `nsys::LoadOptions::preview`); its samples have none yet.
    pub stacks_pending: bool,
    /// The file is still being read: this is what was read so far, shown while the rest is
    /// (see `nsys::LoadOptions::preview`).
    pub partial: bool,
    /// Events read when this preview was made, when its large tracks are sketched
    /// (`crate::timeline::builder::SKETCH_NAME` spans stand for them): see
    /// [`Timeline::events_read`].
    pub sketched_from: Option<usize>,
    pub(crate) columns: Columns,
    /// Flows sorted by `from` (no second ordering is kept: see [`Timeline::flow_partners`]).
    pub(crate) flows: Vec<Flow>,
    /// Sparse `(event, index into attr_sets)` sorted by event.
    pub(crate) attrs: Vec<(EventId, u32)>,
    /// Distinct attribute sets (without `queued_ns`: see `wait_ids`).
    pub(crate) attr_sets: Vec<EventAttrs>,
    /// Events with a queued time, sorted; `queued_ns[i]` belongs to `wait_ids[i]`.
    pub(crate) wait_ids: Vec<EventId>,
    /// Queued times of `wait_ids`.
    pub(crate) queued_ns: Vec<i64>,
    /// The files of a merged timeline ([`super::merge`]); empty for one file.
    pub(crate) parts: Vec<super::merge::TimelinePart>,
    /// The time range, computed once by the builder.
    pub(crate) span: Option<(i64, i64)>,
    /// Counter samples held apart from the events, sorted by track ([`super::series`]).
    pub(crate) series: Vec<(TrackId, super::series::CounterSeries)>,
    /// The MPI collectives grouped across ranks ([`Timeline::link_mpi`]).
    pub(crate) mpi: Option<std::sync::Arc<super::mpi::MpiIndex>>,
}

/// One event, unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// Its id.
    pub id: EventId,
    /// What it is.
    pub kind: EventKind,
    /// Start (ns from session start).
    pub start: i64,
    /// End (ns from session start); equal to `start` for instants.
    pub end: i64,
    /// Display name.
    pub name: StrId,
    /// Correlation id (0 when none).
    pub correlation: u32,
    /// Position of the event's record in its source (SQLite rowid, or line number).
    pub source: u32,
}

impl Timeline {
    /// Events the timeline stands for: its own, or for a sketched preview the events read
    /// when it was made.
    pub fn events_read(&self) -> usize {
        self.sketched_from.unwrap_or_else(|| self.event_count())
    }

    /// Whether `event` is a span of a sketched preview (standing for events being read).
    pub fn is_sketch(&self, event: EventId) -> bool {
        self.sketched_from.is_some()
            && self
                .event(event)
                .is_some_and(|e| self.name(e.name) == crate::timeline::builder::SKETCH_NAME)
    }

    /// Total number of events.
    pub fn event_count(&self) -> usize {
        self.columns.start.len()
    }

    /// The event `id` unpacked (`None` when out of range).
    pub fn event(&self, id: EventId) -> Option<Event> {
        let i = id.0 as usize;
        let start = self.columns.start.get(i)?;
        Some(Event {
            id,
            kind: self.columns.kind[i],
            start,
            end: self.end_of(i),
            name: self.columns.name[i],
            correlation: self.columns.correlation.at(i),
            source: self.columns.source.at(i),
        })
    }

    /// Start of event index `i` (ns). Panics never: callers pass indices of a row.
    pub(crate) fn start_of(&self, i: usize) -> i64 {
        self.columns.start.at(i)
    }

    /// End of event index `i` (ns).
    pub(crate) fn end_of(&self, i: usize) -> i64 {
        let d = self.columns.duration[i];
        let duration = if d == u32::MAX {
            match self
                .columns
                .long_durations
                .binary_search_by_key(&index_u32(i), |&(e, _)| e)
            {
                Ok(pos) => self.columns.long_durations[pos].1,
                Err(_) => u64::from(d),
            }
        } else {
            u64::from(d)
        };
        self.columns
            .start
            .at(i)
            .saturating_add(duration.min(i64::MAX as u64) as i64)
    }

    /// The display text of a string id.
    pub fn name(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    /// The track `id`.
    pub fn track(&self, id: TrackId) -> Option<&Track> {
        self.tracks.get(id.0 as usize)
    }

    /// The track and row that hold `event`.
    pub fn locate(&self, event: EventId) -> Option<(TrackId, usize)> {
        // Tracks hold consecutive index ranges in track order: binary search over row starts.
        let e = event.0;
        for (t, track) in self.tracks.iter().enumerate() {
            let (Some(first), Some(last)) = (track.rows.first(), track.rows.last()) else {
                continue;
            };
            if e < first.start || e >= last.end {
                continue;
            }
            let row = track.rows.partition_point(|r| r.end <= e);
            return Some((TrackId(index_u32(t)), row));
        }
        None
    }

    /// The track path of `track` from its root ("Machine 0/Process 12/Thread 12/CUDA API").
    pub fn track_path(&self, track: TrackId) -> String {
        let mut parts = Vec::new();
        let mut cur = Some(track);
        while let Some(id) = cur {
            let Some(t) = self.track(id) else { break };
            parts.push(t.name.as_str());
            cur = t.parent;
        }
        parts.reverse();
        parts.join("/")
    }

    /// The attributes of `event` (colour, category, payload, ...), when it has any.
    ///
    /// A device command's queued time is not among them (nearly every one is distinct, so they
    /// are kept apart): read it with [`Timeline::queued_ns`].
    pub fn attrs(&self, event: EventId) -> Option<&EventAttrs> {
        self.attrs
            .binary_search_by_key(&event, |(e, _)| *e)
            .ok()
            .and_then(|i| self.attr_sets.get(self.attrs[i].1 as usize))
    }

    /// Removes the CPU samples' call stacks (their correlation column).
    pub(crate) fn clear_sample_stacks(&mut self) {
        let c = &mut self.columns;
        for (i, kind) in c.kind.iter().enumerate() {
            if *kind == EventKind::CpuSample {
                c.correlation.set(i, NO_STACK);
            }
        }
    }

    /// The call stack of `event`: a CPU sample's (held in its correlation column, where
    /// `NO_STACK` means none), or a call's backtrace (in its attributes).
    pub fn stack_of(&self, event: EventId) -> Option<super::stacks::StackId> {
        let i = event.0 as usize;
        if *self.columns.kind.get(i)? == EventKind::CpuSample {
            let stack = self.columns.correlation.at(i);
            return (stack != NO_STACK).then_some(super::stacks::StackId(stack));
        }
        self.attrs(event)?.stack
    }

    /// When a device command was queued (its waiting time runs from there to its start).
    pub fn queued_ns(&self, event: EventId) -> Option<i64> {
        let i = self.wait_ids.binary_search(&event).ok()?;
        self.queued_ns.get(i).copied()
    }

    /// Every flow, sorted by the calling event.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    /// The events `event` caused (API call → GPU work) and the calls that caused it (GPU work →
    /// API call): the far end of every flow touching `event`.
    pub fn flow_partners(&self, event: EventId) -> Vec<EventId> {
        let mut out = Vec::new();
        let lo = self.flows.partition_point(|f| f.from < event);
        out.extend(
            self.flows[lo..]
                .iter()
                .take_while(|f| f.from == event)
                .map(|f| f.to),
        );
        // The calls that caused `event`: one pass over the 8-byte pairs, made when an event is
        // selected, instead of a second ordering held all along (4 more bytes a flow).
        out.extend(self.flows.iter().filter(|f| f.to == event).map(|f| f.from));
        out
    }

    /// Earliest start and latest end over all events (`None` when empty).
    pub fn time_range(&self) -> Option<(i64, i64)> {
        self.span
    }

    /// The time range from the rows (what [`Timeline::time_range`] returns, kept since).
    pub(crate) fn compute_time_range(&self) -> Option<(i64, i64)> {
        let mut range: Option<(i64, i64)> = None;
        for track in &self.tracks {
            for row in &track.rows {
                if row.is_empty() {
                    continue;
                }
                let first = self.start_of(row.start as usize);
                let last = self.end_of(row.end as usize - 1);
                range = Some(match range {
                    None => (first, last),
                    Some((a, b)) => (a.min(first), b.max(last)),
                });
            }
        }
        for (first, last) in self.series.iter().filter_map(|(_, s)| s.extent()) {
            range = Some(match range {
                None => (first, last),
                Some((a, b)) => (a.min(first), b.max(last)),
            });
        }
        range
    }

    /// Number of events of each kind, in [`EventKind::ALL`] order (kinds with none left out).
    pub fn counts_by_kind(&self) -> Vec<(EventKind, usize)> {
        let mut counts = [0usize; EventKind::ALL.len()];
        for &k in &self.columns.kind {
            counts[k as usize] += 1;
        }
        EventKind::ALL
            .iter()
            .zip(counts)
            .filter(|(_, n)| *n > 0)
            .map(|(&k, n)| (k, n))
            .collect()
    }

    /// Every event of the timeline in column order (track by track, row by row).
    pub fn events(&self) -> impl Iterator<Item = Event> + '_ {
        (0..self.event_count()).filter_map(|i| self.event(EventId(index_u32(i))))
    }

    /// Bytes the timeline holds on the heap (columns, side tables, tracks, strings): the
    /// resident cost of a loaded timeline, for the per-event memory budget.
    pub fn heap_bytes(&self) -> usize {
        let c = &self.columns;
        c.start.heap_bytes()
            + c.duration.capacity() * 4
            + c.name.capacity() * 4
            + c.correlation.heap_bytes()
            + c.source.heap_bytes()
            + c.kind.capacity()
            + c.long_durations.capacity() * 16
            + self.flows.capacity() * 8
            + self.attrs.capacity() * 8
            + self.attr_sets.capacity() * std::mem::size_of::<EventAttrs>()
            + self.wait_ids.capacity() * 4
            + self.queued_ns.capacity() * 8
            + self.tracks.capacity() * std::mem::size_of::<Track>()
            + self
                .tracks
                .iter()
                .map(|t| t.name.capacity() + t.children.capacity() * 4 + t.rows.capacity() * 8)
                .sum::<usize>()
            + self.strings.heap_bytes()
            + self.stacks.memory_bytes()
            + self.series.capacity()
                * std::mem::size_of::<(TrackId, super::series::CounterSeries)>()
            + self
                .series
                .iter()
                .map(|(_, s)| s.heap_bytes())
                .sum::<usize>()
    }
}
