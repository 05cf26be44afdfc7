//! The events of an NVTXT file and the values they carry.

/// The clock a time is written in (the `TimeBase` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeBase {
    /// Absolute nanoseconds.
    Manual,
    /// Nanoseconds from the report's session start.
    Relative,
    /// `CLOCK_MONOTONIC_RAW` nanoseconds (needs a report with that clock to place).
    ClockMonotonicRaw,
    /// The Arm virtual counter `CNTVCT` (needs a report with that clock to place).
    Cntvct,
    /// Windows `QueryPerformanceCounter` ticks (the seed's example; NVIDIA's importer on Linux
    /// rejects it).
    Qpc,
}

impl TimeBase {
    /// Every time base, in the order the documentation lists them.
    pub const ALL: [TimeBase; 5] = [
        TimeBase::Manual,
        TimeBase::Relative,
        TimeBase::ClockMonotonicRaw,
        TimeBase::Cntvct,
        TimeBase::Qpc,
    ];

    /// The name as written in a file (`Manual`, `Relative`, `ClockMonotonicRaw`, `CNTVCT`, `Qpc`).
    pub fn name(self) -> &'static str {
        match self {
            TimeBase::Manual => "Manual",
            TimeBase::Relative => "Relative",
            TimeBase::ClockMonotonicRaw => "ClockMonotonicRaw",
            TimeBase::Cntvct => "CNTVCT",
            TimeBase::Qpc => "Qpc",
        }
    }

    /// The time base written `name` (case-sensitive).
    pub fn from_name(name: &[u8]) -> Option<TimeBase> {
        TimeBase::ALL
            .into_iter()
            .find(|base| base.name().as_bytes() == name)
    }
}

/// A document's strings (messages, colour names, ...): the model's one interner.
pub use crate::core::intern::{StrId, StringTable};

/// An event's colour as the file wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorSpec {
    /// `Color` was never assigned: the default opaque black.
    Unset,
    /// A colour name (known or not; an unknown one gets the default and a warning).
    Name(StrId),
    /// An integer, taken as ARGB (its low 32 bits).
    Integer,
}

/// The kind of an event, with what is particular to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    /// `Marker`: an instant (`start == end`).
    Marker,
    /// `RangePush` … `RangePop` on one thread.
    PushPop,
    /// `RangeStartEnd`.
    Range,
}

impl EventKind {
    /// The name used in JSON: `marker`, `push_pop` or `range`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Marker => "marker",
            EventKind::PushPop => "push_pop",
            EventKind::Range => "range",
        }
    }
}

/// One event of an NVTXT file. Times are in the file's units (see `time_base`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Marker, push/pop range or start/end range.
    pub kind: EventKind,
    /// The marker's time, or the range's start.
    pub start: i64,
    /// The range's end (the marker's time for a marker). For a range left open, the file's last
    /// timestamp (see `open`).
    pub end: i64,
    /// The clock of `start` and `end`.
    pub time_base: TimeBase,
    /// Process id (0…16777215).
    pub pid: u32,
    /// Thread id (0…16777215).
    pub tid: u32,
    /// Nesting depth of a push/pop range on its (pid, tid): 0 for the outermost; 0 for others.
    pub depth: u32,
    /// `CategoryId` (0 when never set).
    pub category: u32,
    /// The colour as written.
    pub color: ColorSpec,
    /// The colour as ARGB (the default 0xFF000000 for an unset or unknown name).
    pub color_argb: u32,
    /// The message (`Message`; empty when never set).
    pub message: StrId,
    /// `Payload`, when one was set.
    pub payload: Option<i64>,
    /// The 1-based line of the call that made the event (the push for a push/pop range).
    pub line: u32,
    /// A push never popped: `end` is the file's last timestamp, not a real end.
    pub open: bool,
}
