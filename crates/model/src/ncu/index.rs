//! The index of a report: where its results and sources are, its string table, session
//! details and processes, built by walking the container's blocks in file order. A [`Walk`]
//! goes one block at a time, so that a report can be indexed all at once ([`Report::open`])
//! or only as far as a question needs ([`Report::open_lazy`]): the same steps in the same
//! order either way, hence the same index and the same warnings.
//!
//! [`Report::open`]: super::Report::open
//! [`Report::open_lazy`]: super::Report::open_lazy

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use prost::Message;

use super::error::ReadError;
use super::report::{MAGIC, SourceEntry, ToolVersion, WorkloadKind};
use super::wire::{FieldReader, WireValue};
use crate::problem::{Location, Problem};
use crate::proto::nv::profiler::messages as pb;

/// Where one result's bytes are.
#[derive(Debug, Clone)]
pub(crate) struct ResultEntry {
    pub kind: WorkloadKind,
    /// Offset of the encoded result in the report's bytes.
    pub offset: usize,
    pub len: usize,
    /// Index of the block's process in [`Index::processes`], if the block names one.
    pub process: Option<usize>,
}

/// What the blocks walked so far hold; the whole report's once [`Index::complete`].
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// The cumulative string table (shared with the actions decoded from it: a later block's
    /// strings are appended to a copy when an action holds this one).
    pub strings: Arc<Vec<String>>,
    /// The session details, merged across the blocks.
    pub session: pb::ReportSessionDetails,
    pub processes: Vec<pb::ProcessInfo>,
    pub sources: Vec<SourceEntry>,
    pub results: Vec<ResultEntry>,
    /// Problems worked around, in file order.
    pub warnings: Vec<Problem>,
    /// Whether every block has been walked.
    pub complete: bool,
    /// The version of the tool that wrote the report (set when complete).
    pub tool_version: Option<ToolVersion>,
}

impl Index {
    /// The tool version, when the blocks walked so far settle it: the whole report's once
    /// complete, else when a `Nsight Compute Target` entry was met (later blocks only append
    /// version entries, and [`ToolVersion::of_session`] takes the first such entry).
    pub fn settled_tool_version(&self) -> Option<Option<ToolVersion>> {
        if self.complete {
            return Some(self.tool_version);
        }
        let infos = &self.session.version_info;
        infos
            .iter()
            .any(|v| v.provider == "Nsight Compute Target")
            .then(|| ToolVersion::of_session(&self.session))
    }

    /// Indexes one block. On error nothing of the block is kept.
    fn block(&mut self, cursor: &mut Cursor<'_>) -> Result<(), (usize, String)> {
        let (header_offset, header_bytes) = cursor.message("block header")?;
        let header = pb::BlockHeader::decode(&header_bytes[..])
            .map_err(|e| (header_offset, format!("corrupt block header: {e}")))?;
        let payload_size = header.payload_size.unwrap_or(0) as usize;
        let payload_start = cursor.pos;
        if payload_size > cursor.end - payload_start {
            return Err((
                payload_start,
                format!(
                    "truncated block: payload of {payload_size} bytes but only {} remain",
                    cursor.end - payload_start
                ),
            ));
        }
        let mut inner = Cursor {
            data: cursor.data,
            file: cursor.file,
            end: payload_start + payload_size,
            pos: payload_start,
        };
        let mut warnings = Vec::new();
        let sources = block_sources(&mut inner, &header, &mut warnings)?;
        let results = block_results(&mut inner, &header, self.processes.len())?;
        let trailing = payload_start + payload_size - inner.pos;
        if trailing > 0 {
            // Tolerated: a newer writer may append payload kinds this reader does not know.
            warnings.push(Problem::warning(
                Location::Byte(inner.pos as u64),
                format!("{trailing} unread byte(s) at the end of a block payload"),
            ));
        }
        cursor.pos = payload_start + payload_size;
        if let Some(table) = header.string_table.filter(|t| !t.strings.is_empty()) {
            Arc::make_mut(&mut self.strings).extend(table.strings);
        }
        if let Some(session) = header_session_bytes(&header_bytes) {
            // Merged into a copy: damaged session details must not leave half a merge behind.
            let mut merged = self.session.clone();
            match merged.merge(session) {
                Ok(()) => self.session = merged,
                Err(e) => warnings.push(Problem::warning(
                    Location::Byte(header_offset as u64),
                    format!(
                        "corrupt session details in a block header ({e}); that block's session \
                         details were skipped, its results are kept"
                    ),
                )),
            }
        }
        self.warnings.extend(warnings);
        self.processes.extend(header.process);
        self.sources.extend(sources);
        self.results.extend(results);
        Ok(())
    }
}

/// The source entries of a block's payload; an entry that does not decode is skipped with a
/// warning (it is framed, so the damage stays inside it).
fn block_sources(
    inner: &mut Cursor<'_>,
    header: &pb::BlockHeader,
    warnings: &mut Vec<Problem>,
) -> Result<Vec<SourceEntry>, (usize, String)> {
    let mut sources = Vec::new();
    for _ in 0..header.num_sources.unwrap_or(0) {
        let (offset, bytes) = inner.message("source entry")?;
        match source_reference(&bytes) {
            Ok(reference) => sources.push(SourceEntry {
                reference,
                bytes: inner.data.slice(offset..inner.pos),
            }),
            Err(e) => warnings.push(Problem::warning(
                Location::Byte((offset + e.offset) as u64),
                format!("{} in a source entry; the entry was skipped", e.what),
            )),
        }
    }
    Ok(sources)
}

/// Where the results of a block's payload are (skipped, not read); `process` is the index
/// the block's process gets if the header names one.
fn block_results(
    inner: &mut Cursor<'_>,
    header: &pb::BlockHeader,
    process: usize,
) -> Result<Vec<ResultEntry>, (usize, String)> {
    let process = header.process.as_ref().map(|_| process);
    let mut results = Vec::new();
    for (kind, count, what) in [
        (WorkloadKind::Kernel, header.num_results, "profile result"),
        (
            WorkloadKind::Range,
            header.num_range_results,
            "range result",
        ),
        (
            WorkloadKind::Cmdlist,
            header.num_cmdlist_results,
            "command list result",
        ),
        (
            WorkloadKind::Graph,
            header.num_graph_results,
            "graph result",
        ),
    ] {
        for _ in 0..count.unwrap_or(0) {
            let (offset, len) = inner.skip_message(what)?;
            results.push(ResultEntry {
                kind,
                offset,
                len,
                process,
            });
        }
    }
    Ok(results)
}

/// A walk over a report's blocks: what it found, and where it stands.
#[derive(Debug)]
pub(crate) struct Walk {
    /// What the blocks walked so far hold (taken when the report keeps the complete index).
    pub found: Index,
    /// Offset of the next block.
    pos: usize,
    /// Blocks read whole.
    blocks: usize,
    /// Whether the walk has ended (at the end of the file or at a damaged block).
    pub done: bool,
    /// The last positioned read ([`FileWindow`]), kept from block to block.
    window: (usize, Vec<u8>),
}

/// The bytes a walk reads: the report's (decompressed) bytes, and the file they map when
/// there is one (the index is then read with positioned reads).
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub path: &'a Path,
    pub data: &'a Bytes,
    pub file: Option<&'a std::fs::File>,
}

impl Walk {
    /// Checks the magic and reads the file header; the walk then stands at the first block.
    /// Returns the container version with it.
    pub fn start(source: Source<'_>) -> Result<(u32, Walk), ReadError> {
        let (path, data) = (source.path, source.data);
        if data.is_empty() {
            return Err(ReadError::format(
                path,
                0,
                "empty file, not an Nsight Compute report",
            ));
        }
        if !data.starts_with(MAGIC) {
            let what = if data
                .iter()
                .take(512)
                .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace())
            {
                "a text file, not an Nsight Compute report (no \"NVR\\0\" magic)"
            } else {
                "not an Nsight Compute report (no \"NVR\\0\" magic)"
            };
            return Err(ReadError::format(path, 0, what));
        }
        let window = source.file.map(FileWindow::new);
        let mut cursor = Cursor {
            data,
            file: window.as_ref(),
            end: data.len(),
            pos: 4,
        };
        let (_, header) = cursor
            .message("file header")
            .map_err(|(offset, message)| ReadError::format(path, offset, message))?;
        let file_header = pb::FileHeader::decode(header)
            .map_err(|e| ReadError::format(path, 8, format!("corrupt file header: {e}")))?;
        let pos = cursor.pos;
        let mut walk = Walk {
            found: Index::default(),
            pos,
            blocks: 0,
            done: false,
            // The read of the file header holds the start of the first block.
            window: window.map(|w| w.read.into_inner()).unwrap_or_default(),
        };
        walk.end_if_at_end(data.len());
        Ok((file_header.version, walk))
    }

    /// Walks the next block. A damaged block ends the walk: the first one fails it (nothing
    /// is readable), a later one becomes a warning. The walk is done after an error too.
    pub fn step(&mut self, source: Source<'_>) -> Result<(), ReadError> {
        if self.done {
            return Ok(());
        }
        let data = source.data;
        let window = source.file.map(|file| FileWindow {
            file,
            read: std::cell::RefCell::new(std::mem::take(&mut self.window)),
        });
        let mut cursor = Cursor {
            data,
            file: window.as_ref(),
            end: data.len(),
            pos: self.pos,
        };
        let block_start = self.pos;
        let read = self.found.block(&mut cursor).map(|()| cursor.pos);
        if let Some(window) = window {
            self.window = window.read.into_inner();
        }
        match read {
            Ok(pos) => {
                self.blocks += 1;
                self.pos = pos;
                self.end_if_at_end(data.len());
            }
            Err((offset, message)) => {
                // Refused only when nothing is readable: a damaged block after readable ones
                // (session details, strings, results) becomes a warning.
                if self.blocks == 0 {
                    self.done = true;
                    return Err(ReadError::format(source.path, offset, message));
                }
                self.found.warnings.push(Problem::warning(
                    Location::Byte(offset as u64),
                    format!(
                        "{message}; block {} (from byte {block_start}) and the rest of the file \
                         were skipped, {} result(s) before it are readable",
                        self.blocks,
                        self.found.results.len()
                    ),
                ));
                self.end(data.len());
            }
        }
        Ok(())
    }

    /// Ends the walk when no block is left.
    fn end_if_at_end(&mut self, len: usize) {
        if self.pos >= len {
            self.end(len);
        }
    }

    /// Ends the walk: the index is complete.
    fn end(&mut self, len: usize) {
        if self.found.results.is_empty() && self.found.warnings.is_empty() {
            // Nsight Compute writes no report when nothing was profiled: well-formed blocks
            // without a single result are a report cut short between two blocks (a cut there
            // leaves nothing else to notice).
            self.found.warnings.push(Problem::warning(
                Location::Byte(len as u64),
                format!(
                    "the report holds no profile results after {} complete block(s); it may \
                     have been cut short at byte {len}",
                    self.blocks
                ),
            ));
        }
        self.found.tool_version = ToolVersion::of_session(&self.found.session);
        self.found.complete = true;
        self.done = true;
    }
}

/// A position in the report's bytes, reading `u32 length | message` records.
///
/// With a file at hand the index is read with positioned reads, so opening a memory-mapped
/// report faults in only the pages of the records it reads, not the results it skips.
struct Cursor<'a> {
    data: &'a Bytes,
    file: Option<&'a FileWindow<'a>>,
    end: usize,
    pos: usize,
}

/// The bytes a positioned read brings in at least: a block's length prefix, its header and the
/// length prefix of its first record are then one read (one system call per block instead of
/// three; 20,000 blocks took 60,000 reads). Small, because copying is the cost of a read from
/// the page cache: 4 KB windows made as many fewer reads no faster.
const WINDOW: usize = 512;

/// The last bytes read from the file at some offset, shared by the cursors of one walk.
struct FileWindow<'a> {
    file: &'a std::fs::File,
    /// The file offset of `bytes[0]` and the bytes read there.
    read: std::cell::RefCell<(usize, Vec<u8>)>,
}

impl<'a> FileWindow<'a> {
    fn new(file: &'a std::fs::File) -> FileWindow<'a> {
        FileWindow {
            file,
            read: std::cell::RefCell::new((0, Vec::new())),
        }
    }

    /// `len` bytes at `offset` of a file of `size` bytes, from the last read when it holds
    /// them, else read with one positioned read of at least [`WINDOW`] bytes (less at the end
    /// of the file).
    #[cfg(any(unix, windows))]
    fn read_at(&self, offset: usize, len: usize, size: usize) -> Result<Bytes, (usize, String)> {
        let mut read = self.read.borrow_mut();
        let (start, bytes) = &mut *read;
        if offset < *start || offset + len > *start + bytes.len() {
            let want = len.max(WINDOW).min(size.saturating_sub(offset)).max(len);
            bytes.clear();
            bytes.resize(want, 0);
            *start = offset;
            if let Err(e) = read_exact_at(self.file, bytes, offset as u64) {
                bytes.clear();
                return Err((offset, format!("cannot read {len} byte(s): {e}")));
            }
        }
        let from = offset - *start;
        Ok(Bytes::copy_from_slice(&bytes[from..from + len]))
    }
}

/// Fills `buf` from `file` at `offset` (a positioned read: no shared cursor on Unix).
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Fills `buf` from `file` at `offset`: Windows' positioned read (`seek_read`, which may read
/// less than asked and moves the file's cursor, which nothing else here uses).
#[cfg(windows)]
fn read_exact_at(file: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Cursor<'_> {
    fn read_at(&self, offset: usize, len: usize) -> Result<Bytes, (usize, String)> {
        #[cfg(any(unix, windows))]
        if let Some(file) = self.file {
            return file.read_at(offset, len, self.data.len());
        }
        Ok(self.data.slice(offset..offset + len))
    }

    /// Skips one record, returning the offset and length of its message.
    fn skip_message(&mut self, what: &str) -> Result<(usize, usize), (usize, String)> {
        let start = self.pos;
        let remaining = self.end - start;
        if remaining < 4 {
            return Err((
                start,
                format!("truncated {what}: {remaining} byte(s) left, need a 4-byte length"),
            ));
        }
        let prefix = self.read_at(start, 4)?;
        let len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        if len > remaining - 4 {
            return Err((
                start,
                format!(
                    "truncated {what}: length {len} but only {} byte(s) left",
                    remaining - 4
                ),
            ));
        }
        self.pos = start + 4 + len;
        Ok((start + 4, len))
    }

    /// Reads one record's message.
    fn message(&mut self, what: &str) -> Result<(usize, Bytes), (usize, String)> {
        let (offset, len) = self.skip_message(what)?;
        Ok((offset, self.read_at(offset, len)?))
    }
}

/// The raw `SessionDetails` field of a block header, for protobuf merging across blocks.
fn header_session_bytes(header: &[u8]) -> Option<&[u8]> {
    let mut reader = FieldReader::new(header);
    while let Ok(Some((field, value))) = reader.next_field() {
        if let (3, WireValue::Bytes(bytes, _)) = (field, value) {
            return Some(bytes);
        }
    }
    None
}

fn source_reference(bytes: &[u8]) -> Result<u64, super::wire::WireError> {
    let mut reader = FieldReader::new(bytes);
    let mut reference = 0;
    while let Some((field, value)) = reader.next_field()? {
        if let (1, WireValue::Varint(v)) = (field, value) {
            reference = v;
        }
    }
    Ok(reference)
}
