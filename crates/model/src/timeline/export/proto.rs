//! The Perfetto trace messages Sightline writes and reads, hand-written with `prost` from the
//! field numbers of the published `perfetto_trace.proto` (only the fields used here; unknown
//! fields of other writers are skipped on decoding). The file is proto2: repeated scalars are
//! unpacked, optional fields are `Option`s. Notes: `notes/perfetto.md`.

/// `TracePacket`: one record of the trace (a `Trace` is `repeated TracePacket packet = 1`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TracePacket {
    /// Time of the event in ns (field 8).
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    /// The writer's sequence; interned data is per sequence (field 10).
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    /// A track event (field 11).
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    /// Names and categories interned for later packets of the sequence (field 12).
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    /// `SequenceFlags`: 1 incremental state cleared, 2 needs incremental state (field 13).
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    /// Defaults for the sequence's later packets (field 59).
    #[prost(message, optional, tag = "59")]
    pub trace_packet_defaults: Option<TracePacketDefaults>,
    /// A track's description (field 60).
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
}

/// `TracePacket.sequence_flags`: the sequence's interned data starts afresh.
pub const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `TracePacket.sequence_flags`: the packet uses the sequence's interned data.
pub const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// `TracePacketDefaults`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TracePacketDefaults {
    /// Defaults of track events (field 11).
    #[prost(message, optional, tag = "11")]
    pub track_event_defaults: Option<TrackEventDefaults>,
}

/// `TrackEventDefaults`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackEventDefaults {
    /// The track of events that name none (field 11).
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
}

/// `TrackDescriptor`: a track, by its uuid, with its parent, name and what it stands for.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackDescriptor {
    /// The track's identity (field 1).
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    /// Display name (field 2).
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// A process track (field 3).
    #[prost(message, optional, tag = "3")]
    pub process: Option<ProcessDescriptor>,
    /// A thread track (field 4).
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
    /// The parent track (field 5).
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
    /// A counter track (field 8).
    #[prost(message, optional, tag = "8")]
    pub counter: Option<CounterDescriptor>,
    /// A name known at compile time (field 10; same use as `name`).
    #[prost(string, optional, tag = "10")]
    pub static_name: Option<String>,
}

/// `ProcessDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcessDescriptor {
    /// Process id (field 1).
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// Process name (field 6).
    #[prost(string, optional, tag = "6")]
    pub process_name: Option<String>,
}

/// `ThreadDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ThreadDescriptor {
    /// Its process id (field 1).
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// Thread id (field 2).
    #[prost(int64, optional, tag = "2")]
    pub tid: Option<i64>,
    /// Thread name (field 5).
    #[prost(string, optional, tag = "5")]
    pub thread_name: Option<String>,
}

/// `CounterDescriptor` (present, even empty, on a counter track).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CounterDescriptor {
    /// `Unit` (field 3): 0 unspecified, 1 ns, 2 count, 3 bytes.
    #[prost(int32, optional, tag = "3")]
    pub unit: Option<i32>,
}

/// `TrackEvent.Type`: a slice begins.
pub const TYPE_SLICE_BEGIN: i32 = 1;
/// `TrackEvent.Type`: the innermost open slice of the track ends.
pub const TYPE_SLICE_END: i32 = 2;
/// `TrackEvent.Type`: an instant.
pub const TYPE_INSTANT: i32 = 3;
/// `TrackEvent.Type`: a counter value.
pub const TYPE_COUNTER: i32 = 4;

/// `TrackEvent`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackEvent {
    /// Interned categories (field 3).
    #[prost(uint64, repeated, packed = "false", tag = "3")]
    pub category_iids: Vec<u64>,
    /// `Type` (field 9).
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    /// Interned name (field 10).
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    /// The track (field 11).
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    /// Categories as text (field 22).
    #[prost(string, repeated, tag = "22")]
    pub categories: Vec<String>,
    /// Name as text (field 23).
    #[prost(string, optional, tag = "23")]
    pub name: Option<String>,
    /// Integer counter value (field 30).
    #[prost(int64, optional, tag = "30")]
    pub counter_value: Option<i64>,
    /// Flow ids, older encoding (field 36).
    #[prost(uint64, repeated, packed = "false", tag = "36")]
    pub flow_ids_old: Vec<u64>,
    /// Terminating flow ids, older encoding (field 42).
    #[prost(uint64, repeated, packed = "false", tag = "42")]
    pub terminating_flow_ids_old: Vec<u64>,
    /// Floating-point counter value (field 44).
    #[prost(double, optional, tag = "44")]
    pub double_counter_value: Option<f64>,
    /// Flows this event takes part in (field 47).
    #[prost(fixed64, repeated, packed = "false", tag = "47")]
    pub flow_ids: Vec<u64>,
    /// Flows this event ends (field 48).
    #[prost(fixed64, repeated, packed = "false", tag = "48")]
    pub terminating_flow_ids: Vec<u64>,
    /// Correlation id (field 52).
    #[prost(uint64, optional, tag = "52")]
    pub correlation_id: Option<u64>,
}

/// `InternedData`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InternedData {
    /// Categories (field 1).
    #[prost(message, repeated, tag = "1")]
    pub event_categories: Vec<InternedString>,
    /// Event names (field 2).
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<InternedString>,
}

/// `EventName` and `EventCategory` (the same two fields).
#[derive(Clone, PartialEq, prost::Message)]
pub struct InternedString {
    /// Interning id (field 1).
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// The text (field 2).
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
}
