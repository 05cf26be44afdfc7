//! The timeline: what every CPU thread and every GPU stream did over time.
//!
//! Plain data, no GUI. [`Timeline`] is a tree of [`Track`]s (machine → process → thread →
//! series such as "CUDA API" or "NVTX"; GPU → context → stream; device queues) whose events are
//! packed into columns (≤ 32 bytes per event, see `model`); `query` answers what a view
//! needs (visible items with level of detail, search, range statistics, GPU utilization).
//! [`nsys`] loads Nsight Systems SQLite exports and computes `nsys stats` reports; [`nvtxt`] and
//! [`atp`] put NVTXT files and CodeXL traces on the same model (`open` tells them apart and
//! merges NVTXT files onto an export); `tables` computes the summary tables of sources
//! without `nsys stats`. [`export`] writes any timeline as a Perfetto or Chrome JSON trace
//! and reads such traces back.
//!
//! # How to put events on the timeline (for loaders of other formats)
//!
//! 1. `let mut b = TimelineBuilder::new(path);`
//! 2. Make tracks with [`TimelineBuilder::track`]`(parent, kind, key, || name)`: it returns the
//!    existing track for the same `(parent, kind, key)`, so call it freely per event. Host side:
//!    `Machine` → `Process` (key pid) → `Thread` (key tid) → `Series` ("OpenCL API", "NVTX",
//!    "Perfmarkers"...). Device side: `Gpu` (key device id) → `Context` → `Stream` or `Queue`.
//!    Events may sit on any node; a `Series` under a thread is the usual place for host events.
//! 3. Choose each track's [`Layout`] with [`TimelineBuilder::set_layout`]: `Nested` (default:
//!    push/pop ranges and call stacks, the row is the nesting depth), `Lanes` (start/end ranges
//!    or overlapping device work: first free lane), `Explicit` (you computed the depth: pass it
//!    in [`NewEvent::depth`]).
//! 4. Push events with [`TimelineBuilder::push`] and a [`NewEvent`]: kind, start/end in ns
//!    (instants and markers: `end == start`), name ([`TimelineBuilder::intern`]), correlation id,
//!    and `source` (the record's SQLite rowid or line number, so details can be read on demand).
//!    Order does not matter.
//! 5. Optional per event: [`TimelineBuilder::set_attrs`] with [`EventAttrs`] (ARGB colour,
//!    category, payload, `queued_ns` for a device command's queued → start waiting time, `open`
//!    for a range never closed). Flows: [`TimelineBuilder::add_flow`]`(call, work)`, or
//!    [`TimelineBuilder::link_by_key`] to pair calls and work by a key such as
//!    `(process index << 32) | correlation id`. A range whose end is learned later:
//!    [`TimelineBuilder::set_end`].
//! 6. Per-file problems: [`TimelineBuilder::warn`]`(position, message)` (they name the file;
//!    [`TimelineBuilder::warn_file`] for another file). Session facts go in `b.session`
//!    ([`SessionInfo`]).
//! 7. `let timeline = b.finish();` sorts, lays out and packs everything.
//!
//! To add events to a timeline already loaded (NVTXT files beside an export), reopen it with
//! [`TimelineBuilder::from_timeline`], push onto new or existing tracks, and `finish()` again.
//!
//! Several files on one timeline (the ranks of a job): `merge::merge`, then
//! [`Timeline::shift_part`] / [`Timeline::align_on`] to line them up.
//!
//! Reading back: [`Timeline::visible`] per row for drawing, [`Timeline::event`],
//! [`Timeline::attrs`], [`Timeline::flow_partners`], [`Timeline::search`],
//! [`Timeline::range_stats`], [`Timeline::gpu_utilization`].

pub mod atp;
mod blocked;
mod builder;
pub mod compare;
mod events_source;
mod events_table;
pub mod export;
mod fields;
mod imports;
mod launch_range;
mod merge;
pub(crate) mod model;
mod mpi;
pub mod nsys;
pub mod nvtxt;
mod open;
mod profile;
mod query;
pub mod recipe;
mod row_fields;
mod series;
mod stacks;
mod strings;
mod summary;
mod tables;
pub use imports::ImportStats;
pub use merge::{default_label, merge};
pub use mpi::{
    CollectiveGroup, CollectiveTiming, Communicator, MpiCall, MpiRecords, MpiTable, RANK_VARIABLES,
    RankFrom, rank_in_text,
};
pub use open::{
    DetailSource, LoadedTimeline, MergeInput, OpenError, TimelineFileKind, load_merged,
    load_timeline, merge_nvtxt, merge_nvtxt_files, nvtxt_beside, timeline_inputs,
};
pub use profile::{CallTree, FlatRow, StackCounts, flat, stacks_holding};
pub use stacks::FrameId;
pub use summary::fmt_ratio;
pub use tables::{model_report, model_reports};

pub use builder::{EventRef, NewEvent, TimelineBuilder};
pub use events_source::{SourceCell, SourceColumns};
pub use events_table::{EventColumn, EventsTable, SortKey, compare_keys};
pub use model::{
    Event, EventAttrs, EventId, EventKind, Flow, GpuInfo, Layout, Payload, SessionInfo, Timeline,
    Track, TrackId, TrackKind,
};
pub use query::{
    CounterBucket, CounterSample, GpuUtilization, NameStats, ThreadUtilization, VisibleItem,
};
pub use row_fields::RowFields;
pub use series::{CounterSeries, CounterStats};
pub use strings::{StrId, StringTable};

/// Makes every large allocation (≥ 1 MiB: event columns, staging, indexes) a mapping of its
/// own, returned to the system as soon as it is freed and grown in place: glibc otherwise
/// raises its mmap threshold each time such a block is freed (up to 32 MiB), after which
/// blocks that size come from the heap, where freeing keeps them resident and growing copies
/// them. Call once at start, before threads (the binary does).
pub fn map_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
        }
        /// glibc's `M_MMAP_THRESHOLD`.
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        // SAFETY: mallopt takes no pointers; setting the threshold only changes where later
        // allocations come from.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 1 << 20);
        }
    }
}

/// Hands a loader's freed scratch memory (staging vectors, indexes, a parsed trace's records)
/// back to the system, so the resident cost of a loaded timeline is the timeline itself: glibc
/// keeps freed heap pages otherwise once its mmap threshold has grown past the vectors' sizes.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim takes no pointers; it only returns free heap pages to the kernel.
        unsafe {
            malloc_trim(0);
        }
    }
}
