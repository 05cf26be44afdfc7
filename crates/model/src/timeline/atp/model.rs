//! The parsed trace: plain data laid out for the timeline (flat sorted arrays, interned
//! strings, fixed-size records; argument text stays in the file and is read on demand).

use super::text::WorkSize;
use crate::core::intern::StringTable;

/// Which API a block of the trace belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Api {
    /// OpenCL (`ocl` sections and the oldest `AMD APP Profiler` sections).
    OpenCl,
    /// HSA (`hsa` sections).
    Hsa,
}

impl Api {
    /// `"OpenCL"` or `"HSA"`.
    pub fn label(self) -> &'static str {
        match self {
            Api::OpenCl => "OpenCL",
            Api::Hsa => "HSA",
        }
    }
}

pub use crate::core::intern::StrId;

/// Interned strings (API names, command names, kernel names, device and agent names): the
/// model's one interner, fed the file's bytes (decoded with `super::text::decode`).
#[derive(Debug, Default, Clone)]
pub struct Names(StringTable);

impl Names {
    /// The id of `bytes` (decoded with `super::text::decode`), adding it if new.
    pub fn intern(&mut self, bytes: &[u8]) -> StrId {
        self.0.intern(&super::text::decode(bytes))
    }

    /// The id of an already decoded string, adding it if new.
    pub fn intern_str(&mut self, text: &str) -> StrId {
        self.0.intern(text)
    }

    /// The string of `id` (empty for an unknown id).
    pub fn get(&self, id: StrId) -> &str {
        self.0.get(id)
    }

    /// Number of distinct strings (the empty string, always held, included).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when no string but the empty one was interned.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Bytes held (strings and index), for the memory report.
    pub fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
}

/// The file header: `Key=Value` lines before the first section, in file order.
#[derive(Debug, Default, Clone)]
pub struct Header {
    /// Every entry in file order (`EnvVar` repeats; its value is `NAME=VALUE`).
    pub entries: Vec<(String, String)>,
}

impl Header {
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `TraceFileVersion` as (major, minor), when present and numeric.
    pub fn trace_file_version(&self) -> Option<(u32, u32)> {
        let text = self.get("TraceFileVersion")?;
        let (major, minor) = text.trim().split_once('.').unwrap_or((text.trim(), "0"));
        Some((major.parse().ok()?, minor.parse().ok()?))
    }
}

/// What a section holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    /// `<api> API Trace Output`: `Ret = Name ( args )` lines per thread.
    ApiTrace(Api),
    /// `<api> Timestamp Output`: host start/end (and device times of enqueues) per thread.
    Timestamp(Api),
    /// `hsa Kernel Timestamp Output`: one row per kernel dispatch, no thread line.
    KernelTimestamp,
    /// `Perfmarker Output` / `OpenCL Perfmarker Output`.
    Perfmarker,
    /// `<api> Stack Trace Output`: the source-code section (API → function, line, file).
    SourceCode(Api),
    /// A section name the reader does not know (skipped with a warning).
    Unknown,
}

/// A section as it appeared in the file.
#[derive(Debug, Clone)]
pub struct Section {
    /// The name between the `=====` runs, as written (with any `CodeXL ` prefix).
    pub name: String,
    /// What the reader took it for.
    pub kind: SectionKind,
    /// 1-based line of the `=====` line.
    pub line: u64,
}

/// Marks a call without an API trace line ([`ApiCall::trace_offset`] is `None`).
pub const NO_TRACE_LINE: u64 = (1 << 40) - 1;

/// One host API call: 24 bytes. Times are the CPU nanoseconds of the timestamp section;
/// return value and arguments stay in the file ([`super::AtpFile::api_line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiCall {
    /// Host start time (ns).
    pub start_ns: u64,
    /// Host end time (ns).
    pub end_ns: u64,
    /// Bits 0–39: byte offset of the call's API trace line ([`NO_TRACE_LINE`] if none);
    /// bits 40–63: the API name's [`StrId`].
    packed: u64,
}

impl ApiCall {
    /// A call named `name` with no trace line yet.
    pub fn new(start_ns: u64, end_ns: u64, name: StrId) -> Self {
        ApiCall {
            start_ns,
            end_ns,
            packed: (u64::from(name.0) << 40) | NO_TRACE_LINE,
        }
    }

    /// The API name.
    pub fn name(&self) -> StrId {
        StrId((self.packed >> 40) as u32)
    }

    /// Byte offset of the `Ret = Name ( args )` line in the file, when the trace has one.
    pub fn trace_offset(&self) -> Option<u64> {
        let offset = self.packed & NO_TRACE_LINE;
        (offset != NO_TRACE_LINE).then_some(offset)
    }

    /// Records the trace line's offset (offsets ≥ 2⁴⁰ − 1 are not representable: left unset).
    pub fn set_trace_offset(&mut self, offset: u64) {
        if offset < NO_TRACE_LINE {
            self.packed = (self.packed & !NO_TRACE_LINE) | offset;
        }
    }
}

/// The calls of one thread block of one API; `calls` indexes [`super::AtpTrace::calls`].
#[derive(Debug, Clone)]
pub struct ApiThread {
    /// OpenCL or HSA.
    pub api: Api,
    /// The OS thread id.
    pub thread_id: u64,
    /// Range of this thread's calls in `AtpTrace::calls`, in call order (sorted by start).
    pub calls: std::ops::Range<u32>,
    /// 1-based line of the block's thread-id line in the timestamp section.
    pub first_line: u64,
}

/// What an OpenCL enqueue command carries besides its times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandPayload {
    /// Markers, barriers, acquire/release and the like.
    None,
    /// A kernel launch: index in `AtpTrace::launches`.
    Kernel(u32),
    /// A data transfer: index in `AtpTrace::transfer_sizes`.
    Transfer(u32),
}

/// One OpenCL enqueue command's device side: 48 bytes. Device times are CPU nanoseconds
/// (the profiler maps device timestamps onto the host clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnqueueCommand {
    /// CL_PROFILING_COMMAND_QUEUED.
    pub queued_ns: u64,
    /// CL_PROFILING_COMMAND_SUBMIT.
    pub submit_ns: u64,
    /// CL_PROFILING_COMMAND_START.
    pub start_ns: u64,
    /// CL_PROFILING_COMMAND_END.
    pub end_ns: u64,
    /// Index of the enqueue call in `AtpTrace::calls` (the flow's source).
    pub call: u32,
    /// Index in `AtpTrace::queues`.
    pub queue: u32,
    /// Index in `AtpTrace::command_kinds`.
    pub kind: u16,
    /// 0: none, 1: kernel launch, 2: transfer ([`EnqueueCommand::payload`]).
    payload_tag: u16,
    payload_index: u32,
}

impl EnqueueCommand {
    /// A command; `payload` says what it carries.
    pub fn new(times: [u64; 4], call: u32, queue: u32, kind: u16, payload: CommandPayload) -> Self {
        let (payload_tag, payload_index) = match payload {
            CommandPayload::None => (0, 0),
            CommandPayload::Kernel(i) => (1, i),
            CommandPayload::Transfer(i) => (2, i),
        };
        let [queued_ns, submit_ns, start_ns, end_ns] = times;
        EnqueueCommand {
            queued_ns,
            submit_ns,
            start_ns,
            end_ns,
            call,
            queue,
            kind,
            payload_tag,
            payload_index,
        }
    }

    /// Kernel launch, transfer size or nothing.
    pub fn payload(&self) -> CommandPayload {
        match self.payload_tag {
            1 => CommandPayload::Kernel(self.payload_index),
            2 => CommandPayload::Transfer(self.payload_index),
            _ => CommandPayload::None,
        }
    }
}

/// A command type: the number and name of the timestamp line (`4592 CL_COMMAND_NDRANGE_KERNEL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandKind {
    /// The `cl_command_type` value.
    pub type_id: u32,
    /// Its name, e.g. `CL_COMMAND_WRITE_BUFFER`.
    pub name: String,
}

/// A command queue (one timeline row per queue), with its context and device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandQueue {
    /// The profiler's numerical queue id.
    pub queue_id: u32,
    /// The queue handle.
    pub queue_handle: u64,
    /// The profiler's numerical context id.
    pub context_id: u32,
    /// The context handle.
    pub context_handle: u64,
    /// The device name (the profiler wrote spaces as `_`).
    pub device: StrId,
}

/// A kernel launch configuration (interned: repeated launches share one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelLaunch {
    /// The `cl_kernel` handle.
    pub kernel_handle: u64,
    /// The kernel name.
    pub kernel: StrId,
    /// Global work size.
    pub global: WorkSize,
    /// Local work size; `None` when the application passed NULL.
    pub local: Option<WorkSize>,
}

/// An HSA kernel dispatch of the Kernel Timestamp section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HsaDispatch {
    /// Kernel symbol name, escapes undone (HIP/HC symbols lack the `_` of a mangled name:
    /// see [`super::mangled_symbol`]).
    pub kernel: StrId,
    /// Kernel object handle.
    pub kernel_handle: u64,
    /// Device start (ns, host clock).
    pub start_ns: u64,
    /// Device end (ns, host clock).
    pub end_ns: u64,
    /// Agent name (escapes undone); empty when the row has none.
    pub agent: StrId,
    /// Agent handle, when given.
    pub agent_handle: Option<u64>,
    /// Zero-based queue index (trace files ≥ 3.2) or queue id, when given.
    pub queue_index: Option<u32>,
    /// Queue handle, when given.
    pub queue_handle: Option<u64>,
    /// Agent index (RCP 5.x), when given.
    pub agent_index: Option<u32>,
    /// AQL packet id (RCP 5.x), when given.
    pub packet_id: Option<u64>,
    /// 1-based line of the row.
    pub line: u64,
}

/// An `hsa_amd_memory_async_copy` with the copy's own device times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HsaMemoryCopy {
    /// Index of the API call in `AtpTrace::calls`.
    pub call: u32,
    /// Transfer start (ns).
    pub start_ns: u64,
    /// Transfer end (ns).
    pub end_ns: u64,
    /// Bytes copied (the call's `size` argument), when the trace line gives it.
    pub bytes: Option<u64>,
}

/// A performance-marker range, nested per thread: 40 bytes (names interned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Perfmarker {
    /// Begin time (ns).
    pub start_ns: u64,
    /// End time (ns); [`Perfmarker::OPEN`] when the file never ends the range.
    pub end_ns: u64,
    /// The thread that began it.
    pub thread_id: u64,
    /// Marker name (escapes undone); for `clEndPerfMarkerEx`, the end's name.
    pub name: StrId,
    /// Group name (escapes undone).
    pub group: StrId,
    /// Nesting depth (0 = outermost) on its thread.
    pub depth: u32,
}

impl Perfmarker {
    /// `end_ns` of a range that is never ended.
    pub const OPEN: u64 = u64::MAX;

    /// The end time, when the range was ended.
    pub fn end(&self) -> Option<u64> {
        (self.end_ns != Self::OPEN).then_some(self.end_ns)
    }
}

/// Where one API call was made (the source-code section): 20 bytes, strings interned in
/// [`super::AtpTrace::names`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLocation {
    /// The API name as the section gives it.
    pub api_name: StrId,
    /// Calling function, or an address when there was no debug information.
    pub function: StrId,
    /// Line number (0 when unknown).
    pub line: u32,
    /// Source file; `None` without debug information.
    pub file: Option<StrId>,
}

/// The source locations of one thread block; the i-th location belongs to the thread's i-th
/// call of the same API.
#[derive(Debug, Clone)]
pub struct SourceThread {
    /// OpenCL or HSA.
    pub api: Api,
    /// The OS thread id.
    pub thread_id: u64,
    /// One location per call, in call order.
    pub locations: Vec<SourceLocation>,
}
