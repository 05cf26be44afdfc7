//! Reader of AMD CodeXL / Radeon Compute Profiler application trace files (`.atp`).
//!
//! Self-contained: plain data, no egui, no dependency on the rest of the timeline. The grammar
//! (FORMATS.md §4): a header of `Key=Value` lines up to the first line starting with `=`, then
//! sections `=====<name>=====` of every writer generation (`sections::classify_section`).
//! API Trace and Timestamp sections are thread blocks (`<threadId>`, `<N>`, N lines); the
//! i-th trace line of a thread is paired with its i-th timestamp line. LF or CRLF; bytes that
//! are not UTF-8 are decoded as Latin-1 (`text::decode`). The reader never fails on content:
//! every problem becomes a warning [`Problem`](crate::problem::Problem) with its line and the rest still loads.
//!
//! # Layout, for the conversion to timeline tracks
//! - [`AtpTrace::threads`]: one [`ApiThread`] per thread block (API + OS thread id); its
//!   `calls` range indexes the flat [`AtpTrace::calls`] array (24-byte [`ApiCall`]s in call
//!   order, host start/end in ns). A host-thread track is `calls[range]`; the name is
//!   `names.get(call.name())`; arguments and return value come from
//!   [`AtpFile::api_line`] (read from the file on demand, not held in memory).
//! - [`AtpTrace::enqueues`]: OpenCL device commands (48 bytes each) with queued/submit/start/
//!   end; `queue` indexes [`AtpTrace::queues`] (one device-queue row each, with context and
//!   device); `call` is the enqueue call (the flow's source); `payload` points to an interned
//!   [`KernelLaunch`] (kernel name, work sizes) or a transfer size. The waiting time is
//!   `queued_ns..start_ns`, the execution `start_ns..end_ns`.
//! - [`AtpTrace::hsa_dispatches`]: HSA kernel dispatches per agent and queue;
//!   [`AtpTrace::hsa_copies`]: async copies with their own transfer times.
//! - [`AtpTrace::perfmarkers`]: ranges with their nesting depth per thread.
//! - [`AtpTrace::sources`]: per thread block, the i-th [`SourceLocation`] belongs to the i-th
//!   call of that (API, thread): see [`AtpTrace::source_location`].

mod api_line;
mod details;
mod kernel_ts;
mod model;
mod parser;
mod perfmarker;
mod sections;
mod source;
mod text;
pub(crate) mod timeline;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::core::{Cancelled, Progress};
use crate::mapped::MappedFile;

pub use api_line::{ApiLine, parse_api_line, split_args};
pub use model::*;
pub use text::WorkSize;

/// Everything read from an `.atp` file (see the module documentation for the layout).
#[derive(Debug, Default, Clone)]
pub struct AtpTrace {
    /// The header entries.
    pub header: Header,
    /// The sections in file order.
    pub sections: Vec<Section>,
    /// Interned API, command, kernel, device and agent names.
    pub names: Names,
    /// The API type id the timestamp lines give each API name.
    pub api_type_ids: HashMap<StrId, u32>,
    /// Thread blocks (OpenCL and HSA), in file order.
    pub threads: Vec<ApiThread>,
    /// All host API calls; each thread owns a contiguous range.
    pub calls: Vec<ApiCall>,
    /// OpenCL enqueue commands, in file order.
    pub enqueues: Vec<EnqueueCommand>,
    /// Command types seen (`EnqueueCommand::kind` indexes it).
    pub command_kinds: Vec<CommandKind>,
    /// Command queues with their context and device (`EnqueueCommand::queue` indexes it).
    pub queues: Vec<CommandQueue>,
    /// Distinct kernel launch configurations (`CommandPayload::Kernel` indexes it).
    pub launches: Vec<KernelLaunch>,
    /// Distinct transfer sizes in bytes (`CommandPayload::Transfer` indexes it).
    pub transfer_sizes: Vec<u64>,
    /// HSA kernel dispatches.
    pub hsa_dispatches: Vec<HsaDispatch>,
    /// Kernel Timestamp rows of AQL packets that are not kernel dispatches (skipped).
    pub skipped_packets: u64,
    /// HSA asynchronous memory copies.
    pub hsa_copies: Vec<HsaMemoryCopy>,
    /// Perfmarker ranges, in begin order.
    pub perfmarkers: Vec<Perfmarker>,
    /// Source-code section blocks.
    pub sources: Vec<SourceThread>,
    /// Problems worked around (at most 500 kept).
    pub warnings: Vec<crate::problem::Problem>,
    /// Warnings beyond the kept ones.
    pub warnings_dropped: u64,
}

/// Parses the bytes of an `.atp` file. Never fails: problems become warnings.
pub fn parse_atp(data: &[u8]) -> AtpTrace {
    // Lines without progress are never cancelled: always a trace.
    parse_atp_with(data, Progress::none()).unwrap_or_default()
}

/// What [`parse_atp_with`] reports its progress as (bytes read).
pub const STAGE: &str = "trace lines";

/// Parses the bytes of an `.atp` file, reporting the bytes read to `progress` as [`STAGE`];
/// `Err(Cancelled)` when it was cancelled.
pub fn parse_atp_with<'a>(data: &'a [u8], progress: Progress<'a>) -> Result<AtpTrace, Cancelled> {
    parser::Parser::new(data).run_lines(text::Lines::with_progress(data, progress, STAGE))
}

impl AtpTrace {
    /// The calls of `thread`.
    pub fn thread_calls(&self, thread: &ApiThread) -> &[ApiCall] {
        self.calls
            .get(thread.calls.start as usize..thread.calls.end as usize)
            .unwrap_or(&[])
    }

    /// The API name of a call.
    pub fn call_name(&self, call: &ApiCall) -> &str {
        self.names.get(call.name())
    }

    /// The launch of a kernel command.
    pub fn launch(&self, command: &EnqueueCommand) -> Option<&KernelLaunch> {
        match command.payload() {
            CommandPayload::Kernel(i) => self.launches.get(i as usize),
            _ => None,
        }
    }

    /// The transfer size of a data-transfer command, in bytes.
    pub fn transfer_bytes(&self, command: &EnqueueCommand) -> Option<u64> {
        match command.payload() {
            CommandPayload::Transfer(i) => self.transfer_sizes.get(i as usize).copied(),
            _ => None,
        }
    }

    /// The source location of the `index`-th call (0-based, within the thread) of `thread`.
    pub fn source_location(&self, thread: &ApiThread, index: usize) -> Option<&SourceLocation> {
        self.sources
            .iter()
            .find(|s| s.api == thread.api && s.thread_id == thread.thread_id)?
            .locations
            .get(index)
    }

    /// Number of timeline events: API calls, device commands, HSA dispatches and copies,
    /// perfmarker ranges.
    pub fn event_count(&self) -> usize {
        self.calls.len()
            + self.enqueues.len()
            + self.hsa_dispatches.len()
            + self.hsa_copies.len()
            + self.perfmarkers.len()
    }

    /// Bytes held on the heap by the parsed trace (not the file's bytes), for the memory budget.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.calls.capacity() * size_of::<ApiCall>()
            + self.enqueues.capacity() * size_of::<EnqueueCommand>()
            + self.threads.capacity() * size_of::<ApiThread>()
            + self.launches.capacity() * size_of::<KernelLaunch>()
            + self.transfer_sizes.capacity() * 8
            + self.queues.capacity() * size_of::<CommandQueue>()
            + self
                .command_kinds
                .iter()
                .map(|k| k.name.capacity() + size_of::<CommandKind>())
                .sum::<usize>()
            + self.hsa_dispatches.capacity() * size_of::<HsaDispatch>()
            + self.hsa_copies.capacity() * size_of::<HsaMemoryCopy>()
            + self.perfmarkers.capacity() * size_of::<Perfmarker>()
            + self.names.heap_bytes()
            + self.api_type_ids.capacity() * 16
            + self
                .sources
                .iter()
                .map(|s| s.locations.capacity() * size_of::<SourceLocation>())
                .sum::<usize>()
            + self
                .header
                .entries
                .iter()
                .map(|(k, v)| 48 + k.capacity() + v.capacity())
                .sum::<usize>()
            + self
                .sections
                .iter()
                .map(|s| size_of::<Section>() + s.name.capacity())
                .sum::<usize>()
            + self
                .warnings
                .iter()
                .map(|w| size_of::<crate::problem::Problem>() + w.message.capacity())
                .sum::<usize>()
    }
}

/// HIP/HC kernel symbols in `.atp` files lack the leading `_` of an Itanium mangled name
/// (`Z3addPfS_`): the symbol with it restored, for demangling; other names unchanged.
pub fn mangled_symbol(name: &str) -> std::borrow::Cow<'_, str> {
    let bytes = name.as_bytes();
    if bytes.len() > 2
        && bytes[0] == b'Z'
        && (bytes[1].is_ascii_digit() || bytes[1] == b'N' || bytes[1] == b'L')
    {
        std::borrow::Cow::Owned(format!("_{name}"))
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// The bytes of an opened trace: memory-mapped, or owned (parsed from memory).
pub type AtpSource = MappedFile;

/// A trace with the file it came from (argument text is read from it on demand).
#[derive(Debug)]
pub struct AtpFile {
    /// The file (empty for a trace parsed from memory without a path).
    pub path: PathBuf,
    /// The file's bytes.
    pub source: AtpSource,
    /// The parsed trace.
    pub trace: AtpTrace,
    /// The device commands' details once their times are on the timeline
    /// ([`AtpFile::free_timeline_records`]); empty while `trace.enqueues` holds them.
    pub commands: Vec<CommandRecord>,
}

/// What details need of an OpenCL command once the timeline holds its start and end: 32 bytes
/// instead of 48.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandRecord {
    /// CL_PROFILING_COMMAND_QUEUED.
    pub queued_ns: u64,
    /// CL_PROFILING_COMMAND_SUBMIT.
    pub submit_ns: u64,
    /// Index of the enqueue call in `AtpTrace::calls`.
    pub call: u32,
    /// Index in `AtpTrace::queues`.
    pub queue: u32,
    /// Index in `AtpTrace::command_kinds`.
    pub kind: u16,
    payload_tag: u16,
    payload_index: u32,
}

impl CommandRecord {
    /// The record of `command`.
    pub fn of(command: &EnqueueCommand) -> CommandRecord {
        let (payload_tag, payload_index) = match command.payload() {
            CommandPayload::None => (0, 0),
            CommandPayload::Kernel(i) => (1, i),
            CommandPayload::Transfer(i) => (2, i),
        };
        CommandRecord {
            queued_ns: command.queued_ns,
            submit_ns: command.submit_ns,
            call: command.call,
            queue: command.queue,
            kind: command.kind,
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

/// Opening an `.atp` file failed (only I/O can fail; content problems are warnings).
#[derive(Debug, thiserror::Error)]
pub enum AtpError {
    /// The file could not be opened, mapped or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Reading was cancelled (what was read is freed).
    #[error(transparent)]
    Cancelled(#[from] Cancelled),
}

impl AtpFile {
    /// Maps and parses a file.
    pub fn open(path: &Path) -> Result<AtpFile, AtpError> {
        Self::open_with(path, Progress::none())
    }

    /// Maps and parses a file, reporting the bytes read to `progress`;
    /// `Err(AtpError::Cancelled)` when it was cancelled (what was read is freed).
    pub fn open_with(path: &Path, progress: Progress<'_>) -> Result<AtpFile, AtpError> {
        let io = |source| AtpError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let source = MappedFile::open(&file).map_err(io)?;
        let trace = parse_atp_with(&source, progress)?;
        Ok(AtpFile {
            path: path.to_path_buf(),
            source,
            trace,
            commands: Vec::new(),
        })
    }

    /// Parses bytes held in memory.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> AtpFile {
        let trace = parse_atp(&bytes);
        AtpFile {
            path: path.into(),
            source: MappedFile::from_vec(bytes),
            trace,
            commands: Vec::new(),
        }
    }

    /// The `Ret = Name ( args )` line of a call, parsed; `None` when the trace has none.
    pub fn api_line(&self, call: &ApiCall) -> Option<ApiLine> {
        self.api_line_at(call.trace_offset()?)
    }

    /// The API trace line starting at byte `offset` of the file, parsed.
    pub fn api_line_at(&self, offset: u64) -> Option<ApiLine> {
        parse_api_line(text::line_at(&self.source, offset))
    }

    /// Whether every trace-line offset fits in 32 bits (files under 4 GiB), so the timeline
    /// can carry them itself (see `timeline::EventOrigin`).
    pub fn offsets_fit_u32(&self) -> bool {
        self.source.len() < u32::MAX as usize
    }

    /// Frees what the timeline now holds itself, once it is built: the per-call records (each
    /// call's index and trace-line offset ride in its event; kept for files of 4 GiB or more)
    /// and the perfmarker records (name, group, thread and depth are the event's name, track
    /// and row); the thread ranges, device commands, names and source locations stay for
    /// details. The device commands shrink to [`CommandRecord`]s when every command's start and
    /// end are on the timeline exactly (start ≤ end ≤ `i64::MAX` ns). Also drops the mapped
    /// pages ([`AtpFile::release_pages`]).
    pub fn free_timeline_records(&mut self) {
        if self.offsets_fit_u32() {
            self.trace.calls = Vec::new();
        }
        self.trace.perfmarkers = Vec::new();
        let exact = self
            .trace
            .enqueues
            .iter()
            .all(|c| c.start_ns <= c.end_ns && i64::try_from(c.end_ns).is_ok());
        if exact {
            self.commands = self.trace.enqueues.iter().map(CommandRecord::of).collect();
            self.trace.enqueues = Vec::new();
        }
        self.release_pages();
    }

    /// Bytes held for details: the trace's records and the command records.
    pub fn heap_bytes(&self) -> usize {
        self.trace.heap_bytes() + self.commands.capacity() * std::mem::size_of::<CommandRecord>()
    }

    /// Drops the mapped file's pages from this process's memory once parsed (they stay in the
    /// page cache; the few lines details read later come back on demand), so resident memory
    /// holds the timeline, not the file.
    pub fn release_pages(&self) {
        self.source.release_all();
    }

    /// The warnings as `PATH:LINE: message` (line 0: the file as a whole).
    pub fn warning_texts(&self) -> Vec<String> {
        let path = self.path.display();
        let mut out: Vec<String> = self
            .trace
            .warnings
            .iter()
            .map(|w| w.plain_in(&self.path).to_string())
            .collect();
        if self.trace.warnings_dropped > 0 {
            out.push(format!(
                "{path}: {} more warnings",
                self.trace.warnings_dropped
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests;
pub use details::{DispatchKey, dispatch_key, event_details};
pub use timeline::timeline_of;
