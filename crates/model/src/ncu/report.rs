//! Opening a report: the container index, the string table and the session details.
//!
//! Opening reads only the container's block headers and the length prefix of every result, so
//! a report of any size opens in milliseconds; results are decoded on demand by
//! [`Report::action`]. Plain reports are memory-mapped; `.ncu-repz` reports are decompressed
//! into memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use prost::Message;

use super::action::Action;
use super::error::ReadError;
use super::metric::MetricValue;
use super::wire::{FieldReader, WireValue};
use crate::mapped::{Access, MappedFile};
use crate::problem::{Location, Problem};
use crate::proto::nv::profiler::messages as pb;

/// Prefix of device attribute names (`device__attribute_multiprocessor_count`).
pub const DEVICE_ATTRIBUTE_PREFIX: &str = "device__attribute_";

/// The four bytes every report starts with.
pub const MAGIC: &[u8; 4] = b"NVR\0";
/// The four bytes a zstd frame starts with (`.ncu-repz`).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The kind of workload a result describes, numbered as NVIDIA's `IAction.WorkloadType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    /// One kernel launch (`ProfileResult`).
    Kernel = 0,
    /// A replayed range (`RangeResult`).
    Range = 1,
    /// A command list (`CmdlistResult`).
    Cmdlist = 2,
    /// A CUDA graph (`GraphResult`).
    Graph = 3,
}

/// The Nsight Compute version that wrote a report: `2023.1.0.0 (build …)` is year 2023,
/// minor 1. Behaviour that changed between versions (the regular value of derived metrics)
/// is chosen from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolVersion {
    /// The release year (`2023`).
    pub year: u32,
    /// The release of that year (`1` in `2023.1.0.0`).
    pub minor: u32,
}

impl ToolVersion {
    /// Parses the start of a version string (`2023.3.1.0 (build 33474944) (public-release)`);
    /// `None` when it does not start with `YEAR.MINOR`.
    pub fn parse(text: &str) -> Option<ToolVersion> {
        let mut parts = text.trim().split(|c: char| !c.is_ascii_digit());
        let year = parts.next()?.parse().ok()?;
        let minor = parts.next().unwrap_or("0").parse().unwrap_or(0);
        Some(ToolVersion { year, minor })
    }

    /// The version of the Nsight Compute that wrote a report: the `Nsight Compute Target`
    /// entry of its version info, else the first entry whose provider starts with
    /// `Nsight Compute`.
    pub fn of_session(session: &pb::ReportSessionDetails) -> Option<ToolVersion> {
        let infos = &session.version_info;
        infos
            .iter()
            .find(|v| v.provider == "Nsight Compute Target")
            .or_else(|| {
                infos
                    .iter()
                    .find(|v| v.provider.starts_with("Nsight Compute"))
            })
            .and_then(|v| ToolVersion::parse(&v.version))
    }
}

impl std::fmt::Display for ToolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.year, self.minor)
    }
}

/// Where one result's bytes are.
#[derive(Debug, Clone)]
pub(crate) struct ResultEntry {
    pub kind: WorkloadKind,
    /// Offset of the encoded result in the report's bytes.
    pub offset: usize,
    pub len: usize,
    /// Index of the block's process in [`Report::processes`], if the block names one.
    pub process: Option<usize>,
}

/// A source entry (`SourceData`): SASS, PTX and source files of a module.
#[derive(Debug, Clone)]
pub struct SourceEntry {
    /// The reference results point to (`ProfileResult.Source.Reference`).
    pub reference: u64,
    /// The encoded `SourceData`.
    pub bytes: Bytes,
}

impl SourceEntry {
    /// Decodes the full source data.
    pub fn decode(&self) -> Result<pb::SourceData, prost::DecodeError> {
        pb::SourceData::decode(self.bytes.clone())
    }
}

/// An opened Nsight Compute report.
#[derive(Debug)]
pub struct Report {
    path: PathBuf,
    data: Bytes,
    version: u32,
    strings: Arc<Vec<String>>,
    session: pb::ReportSessionDetails,
    processes: Vec<pb::ProcessInfo>,
    sources: Vec<SourceEntry>,
    results: Vec<ResultEntry>,
    warnings: Vec<Problem>,
    tool_version: Option<ToolVersion>,
}

impl Report {
    /// Opens and indexes the report at `path` (`.ncu-rep`, or zstd-compressed `.ncu-repz`).
    pub fn open(path: impl AsRef<Path>) -> Result<Report, ReadError> {
        let path = path.as_ref();
        let io = |error| ReadError::Io {
            path: path.to_path_buf(),
            error,
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        if meta.is_dir() {
            return Err(ReadError::Io {
                path: path.to_path_buf(),
                error: std::io::Error::other("is a directory, not a report file"),
            });
        }
        let file = std::fs::File::open(path).map_err(io)?;
        if meta.len() == 0 {
            return Report::index_bytes(path, Bytes::new(), None);
        }
        let map = MappedFile::open(&file).map_err(io)?;
        if map.starts_with(&ZSTD_MAGIC) {
            // `.ncu-repz`: decompressed (once) by `index_bytes`.
            return Report::index_bytes(path, Bytes::from_owner(map), None);
        }
        // Results are decoded on demand: without read-ahead, opening a report and showing one
        // kernel touches only the pages it reads.
        map.advise(Access::Random);
        Report::index_bytes(path, Bytes::from_owner(map), Some(&file))
    }

    /// Indexes a report held in memory; `path` is used in messages only.
    pub fn from_bytes(path: impl AsRef<Path>, data: Bytes) -> Result<Report, ReadError> {
        Report::index_bytes(path.as_ref(), data, None)
    }

    /// Indexes `data`; when `file` is given, `data` maps it and the index is read from the file.
    fn index_bytes(
        path: &Path,
        data: Bytes,
        file: Option<&std::fs::File>,
    ) -> Result<Report, ReadError> {
        // One level of compression only: a zstd stream inside the stream is not a report.
        let data = if data.starts_with(&ZSTD_MAGIC) {
            decompress(path, &data)?
        } else {
            data
        };
        let mut report = Report {
            path: path.to_path_buf(),
            data,
            version: 0,
            strings: Arc::new(Vec::new()),
            session: pb::ReportSessionDetails::default(),
            processes: Vec::new(),
            sources: Vec::new(),
            results: Vec::new(),
            warnings: Vec::new(),
            tool_version: None,
        };
        report.index(file)?;
        report.tool_version = ToolVersion::of_session(&report.session);
        Ok(report)
    }

    fn index(&mut self, file: Option<&std::fs::File>) -> Result<(), ReadError> {
        let path = self.path.clone();
        let data = self.data.clone();
        if data.is_empty() {
            return Err(ReadError::format(
                &path,
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
            return Err(ReadError::format(&path, 0, what));
        }
        let window = file.map(FileWindow::new);
        let mut cursor = Cursor {
            data: &data,
            file: window.as_ref(),
            end: data.len(),
            pos: 4,
        };
        let (_, header) = cursor
            .message("file header")
            .map_err(|(offset, message)| ReadError::format(&path, offset, message))?;
        let file_header = pb::FileHeader::decode(header)
            .map_err(|e| ReadError::format(&path, 8, format!("corrupt file header: {e}")))?;
        self.version = file_header.version;
        let mut strings = Vec::new();
        let mut block_index = 0usize;
        while cursor.pos < data.len() {
            let block_start = cursor.pos;
            match self.index_block(&mut cursor, &mut strings) {
                Ok(()) => block_index += 1,
                Err((offset, message)) => {
                    // Refused only when nothing is readable: a damaged block after readable
                    // ones (session details, strings, results) becomes a warning.
                    if block_index == 0 {
                        return Err(ReadError::format(&path, offset, message));
                    }
                    self.warnings.push(Problem::warning(
                        Location::Byte(offset as u64),
                        format!(
                            "{message}; block {block_index} (from byte {block_start}) and the \
                             rest of the file were skipped, {} result(s) before it are readable",
                            self.results.len()
                        ),
                    ));
                    break;
                }
            }
        }
        if self.results.is_empty() && self.warnings.is_empty() {
            // Nsight Compute writes no report when nothing was profiled: well-formed blocks
            // without a single result are a report cut short between two blocks (a cut there
            // leaves nothing else to notice).
            self.warnings.push(Problem::warning(
                Location::Byte(data.len() as u64),
                format!(
                    "the report holds no profile results after {block_index} complete block(s);                      it may have been cut short at byte {}",
                    data.len()
                ),
            ));
        }
        self.strings = Arc::new(strings);
        Ok(())
    }

    /// Indexes one block. On error nothing of the block is kept.
    fn index_block(
        &mut self,
        cursor: &mut Cursor<'_>,
        strings: &mut Vec<String>,
    ) -> Result<(), (usize, String)> {
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
        let mut sources = Vec::new();
        let mut warnings = Vec::new();
        for _ in 0..header.num_sources.unwrap_or(0) {
            let (offset, bytes) = inner.message("source entry")?;
            match source_reference(&bytes) {
                Ok(reference) => sources.push(SourceEntry {
                    reference,
                    bytes: self.data.slice(offset..inner.pos),
                }),
                // The entry is framed, so the damage stays inside it: skip it alone.
                Err(e) => warnings.push(Problem::warning(
                    Location::Byte((offset + e.offset) as u64),
                    format!("{} in a source entry; the entry was skipped", e.what),
                )),
            }
        }
        let process = header.process.as_ref().map(|_| self.processes.len());
        let mut results = Vec::new();
        for (kind, count) in [
            (WorkloadKind::Kernel, header.num_results),
            (WorkloadKind::Range, header.num_range_results),
            (WorkloadKind::Cmdlist, header.num_cmdlist_results),
            (WorkloadKind::Graph, header.num_graph_results),
        ] {
            for _ in 0..count.unwrap_or(0) {
                let what = match kind {
                    WorkloadKind::Kernel => "profile result",
                    WorkloadKind::Range => "range result",
                    WorkloadKind::Cmdlist => "command list result",
                    WorkloadKind::Graph => "graph result",
                };
                let (offset, len) = inner.skip_message(what)?;
                results.push(ResultEntry {
                    kind,
                    offset,
                    len,
                    process,
                });
            }
        }
        let trailing = payload_start + payload_size - inner.pos;
        if trailing > 0 {
            // Tolerated: a newer writer may append payload kinds this reader does not know.
            warnings.push(Problem::warning(
                Location::Byte(inner.pos as u64),
                format!("{trailing} unread byte(s) at the end of a block payload"),
            ));
        }
        cursor.pos = payload_start + payload_size;
        if let Some(table) = header.string_table {
            strings.extend(table.strings);
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

    /// The report's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The container version (`FileHeader.Version`).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The session details, merged across all blocks.
    pub fn session(&self) -> &pb::ReportSessionDetails {
        &self.session
    }

    /// Attribute `name` of device `device` from the session details. `name` may be the full
    /// name (`device__attribute_compute_capability_major`) or the part after the prefix.
    pub fn device_attribute(&self, device: u32, name: &str) -> Option<MetricValue> {
        let short = name.strip_prefix(DEVICE_ATTRIBUTE_PREFIX).unwrap_or(name);
        let attributes = self
            .session
            .device_attributes
            .iter()
            .find(|d| d.id == device)?;
        let attribute = attributes.attributes.iter().rev().find(|a| {
            a.name
                .strip_prefix(DEVICE_ATTRIBUTE_PREFIX)
                .unwrap_or(&a.name)
                == short
        })?;
        Some(MetricValue::from_message(&attribute.value))
    }

    /// The Nsight Compute version that wrote the report, when its session details say.
    pub fn tool_version(&self) -> Option<ToolVersion> {
        self.tool_version
    }

    /// The processes named by block headers.
    pub fn processes(&self) -> &[pb::ProcessInfo] {
        &self.processes
    }

    /// The source entries of the report.
    pub fn sources(&self) -> &[SourceEntry] {
        &self.sources
    }

    /// The cumulative string table.
    pub fn strings(&self) -> &[String] {
        &self.strings
    }

    /// Problems the reader worked around while indexing.
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    /// Number of results (actions) in the report.
    pub fn num_actions(&self) -> usize {
        self.results.len()
    }

    /// The workload kind of action `index` without decoding it.
    pub fn action_kind(&self, index: usize) -> Option<WorkloadKind> {
        self.results.get(index).map(|r| r.kind)
    }

    /// Size in bytes of action `index`'s encoded result.
    pub fn action_size(&self, index: usize) -> Option<usize> {
        self.results.get(index).map(|r| r.len)
    }

    /// Decodes action `index` (file order; all results form range 0, as in NVIDIA's reader).
    pub fn action(&self, index: usize) -> Result<Action, ReadError> {
        let entry = self.results.get(index).ok_or_else(|| {
            ReadError::format(
                &self.path,
                self.data.len(),
                format!(
                    "no action {index}: the report has {} action(s)",
                    self.results.len()
                ),
            )
        })?;
        let bytes = self.data.slice(entry.offset..entry.offset + entry.len);
        Action::decode(
            index,
            entry,
            &bytes,
            Arc::clone(&self.strings),
            self.tool_version,
        )
        .map_err(|e| ReadError::format(&self.path, entry.offset + e.offset, e.what))
    }

    /// The raw bytes of the report (decompressed for `.ncu-repz`).
    pub fn bytes(&self) -> &Bytes {
        &self.data
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

/// The last bytes read from the file at some offset, shared by the cursors of one index walk.
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

/// Largest expansion accepted from a `.ncu-repz` (reports compress about 5-20:1); a stream
/// that expands further is treated as damaged rather than allowed to exhaust memory.
const MAX_ZSTD_RATIO: u64 = 256;
/// Streams below this size may always expand to it.
const MIN_ZSTD_LIMIT: u64 = 64 << 20;

fn decompress(path: &Path, compressed: &[u8]) -> Result<Bytes, ReadError> {
    use std::io::Read;
    let limit = (compressed.len() as u64)
        .saturating_mul(MAX_ZSTD_RATIO)
        .max(MIN_ZSTD_LIMIT);
    let decoder = zstd::stream::read::Decoder::new(compressed)
        .map_err(|e| ReadError::format(path, 0, format!("cannot start zstd decompression: {e}")))?;
    let mut out = Vec::new();
    decoder
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| ReadError::format(path, 0, format!("corrupt zstd stream (.ncu-repz): {e}")))?;
    if out.len() as u64 > limit {
        return Err(ReadError::format(
            path,
            0,
            format!("zstd stream expands beyond {limit} bytes ({MAX_ZSTD_RATIO}:1); not a report"),
        ));
    }
    Ok(Bytes::from(out))
}
