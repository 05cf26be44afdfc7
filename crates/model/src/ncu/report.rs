//! Opening a report: the container index, the string table and the session details.
//!
//! Opening reads only the container's block headers and the length prefix of every result, so
//! a report of any size opens in milliseconds; results are decoded on demand by
//! [`Report::action`]. [`Report::open_lazy`] reads even those only as far as each question
//! needs (`index.rs`): on a cold disk, the first result of a 2 GB report without 18,000 reads.
//! Plain reports are memory-mapped; `.ncu-repz` reports are decompressed into memory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use bytes::Bytes;
use prost::Message;

use super::action::Action;
use super::error::ReadError;
use super::index::{Index, ResultEntry, Source, Walk};
use super::metric::MetricValue;
use crate::mapped::{Access, MappedFile};
use crate::problem::Problem;
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

/// An opened Nsight Compute report. Shared by reference between threads: its index is built
/// under a lock, block by block, as far as the questions asked need.
#[derive(Debug)]
pub struct Report {
    inner: Arc<Inner>,
}

/// The report behind [`Report`], shared with the actions whose tool version is read later
/// ([`VersionOf::Report`]).
#[derive(Debug)]
pub(crate) struct Inner {
    path: PathBuf,
    data: Bytes,
    version: u32,
    /// The file `data` maps (the index is read from it with positioned reads).
    file: Option<std::fs::File>,
    /// The walk over the blocks, as far as it went.
    walk: Mutex<Walk>,
    /// The whole report's index, once the walk has ended.
    index: OnceLock<Index>,
}

/// The Nsight Compute version an action carries: known when it was decoded, or the whole
/// report's, read on first use (indexing the rest of the report then).
#[derive(Clone)]
pub(crate) enum VersionOf {
    /// The version (or its absence) was settled by the blocks walked before the action.
    Known(Option<ToolVersion>),
    /// Later blocks may still name it.
    Report(Arc<Inner>),
}

impl VersionOf {
    /// The version of the tool that wrote the report.
    pub fn get(&self) -> Option<ToolVersion> {
        match self {
            VersionOf::Known(version) => *version,
            VersionOf::Report(inner) => inner.complete().tool_version,
        }
    }
}

impl std::fmt::Debug for VersionOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VersionOf::Known(version) => f.debug_tuple("Known").field(version).finish(),
            VersionOf::Report(inner) => write!(f, "Report({})", inner.path.display()),
        }
    }
}

impl Inner {
    fn source(&self) -> Source<'_> {
        Source {
            path: &self.path,
            data: &self.data,
            file: self.file.as_ref(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Walk> {
        self.walk.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The whole report's index, walking the blocks not walked yet (one at a time under the
    /// lock, so that other threads' questions about walked blocks are answered meanwhile).
    fn complete(&self) -> &Index {
        self.index.get_or_init(|| {
            loop {
                let mut walk = self.lock();
                if walk.done {
                    return std::mem::take(&mut walk.found);
                }
                // Fails only on the first block, which opening walked; the walk ends either way.
                let _ = walk.step(self.source());
            }
        })
    }

    /// `f` of the index once it holds `need` results, or is complete. A walk goes on to twice
    /// the results found before it, so that reading the results in order extends the walk (and
    /// copies a string table an action holds) a logarithmic number of times.
    fn walked<T>(&self, need: usize, f: impl FnOnce(&Index) -> T) -> T {
        if let Some(index) = self.index.get() {
            return f(index);
        }
        let mut target = None;
        loop {
            let mut walk = self.lock();
            if walk.done {
                drop(walk);
                return f(self.complete());
            }
            let found = walk.found.results.len();
            let target = *target.get_or_insert(if found >= need {
                need
            } else {
                need.max(2 * found)
            });
            if found >= target {
                return f(&walk.found);
            }
            let _ = walk.step(self.source());
        }
    }
}

impl Report {
    /// Opens and indexes the report at `path` (`.ncu-rep`, or zstd-compressed `.ncu-repz`):
    /// every block header is read before it returns.
    pub fn open(path: impl AsRef<Path>) -> Result<Report, ReadError> {
        let report = Report::open_lazy(path)?;
        report.inner.complete();
        Ok(report)
    }

    /// Opens the report at `path` reading only its first block: the rest is indexed as far
    /// as each question needs (result `i` walks the blocks up to it; counts, warnings, session
    /// details, sources and strings walk them all). Answers, orders and warnings are those of
    /// [`Report::open`]; the same errors refuse a report whose first block does not read.
    pub fn open_lazy(path: impl AsRef<Path>) -> Result<Report, ReadError> {
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
            return Report::start(path, Bytes::new(), None);
        }
        let map = MappedFile::open(&file).map_err(io)?;
        if map.starts_with(&ZSTD_MAGIC) {
            // `.ncu-repz`: decompressed (once) by `start`.
            return Report::start(path, Bytes::from_owner(map), None);
        }
        // Results are decoded on demand: without read-ahead, opening a report and showing one
        // kernel touches only the pages it reads.
        map.advise(Access::Random);
        Report::start(path, Bytes::from_owner(map), Some(file))
    }

    /// Indexes a report held in memory; `path` is used in messages only.
    pub fn from_bytes(path: impl AsRef<Path>, data: Bytes) -> Result<Report, ReadError> {
        let report = Report::start(path.as_ref(), data, None)?;
        report.inner.complete();
        Ok(report)
    }

    /// Reads the file header and the first block of `data`; when `file` is given, `data` maps
    /// it and the index is read from the file.
    fn start(path: &Path, data: Bytes, file: Option<std::fs::File>) -> Result<Report, ReadError> {
        // One level of compression only: a zstd stream inside the stream is not a report.
        let data = if data.starts_with(&ZSTD_MAGIC) {
            decompress(path, &data)?
        } else {
            data
        };
        let source = Source {
            path,
            data: &data,
            file: file.as_ref(),
        };
        let (version, mut walk) = Walk::start(source)?;
        // A report is refused only when its first block does not read.
        walk.step(source)?;
        Ok(Report {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                data,
                version,
                file,
                walk: Mutex::new(walk),
                index: OnceLock::new(),
            }),
        })
    }

    /// The report's path.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The container version (`FileHeader.Version`).
    pub fn version(&self) -> u32 {
        self.inner.version
    }

    /// Whether every block has been indexed (always, for a report opened by [`Report::open`]).
    pub fn is_indexed(&self) -> bool {
        self.inner.index.get().is_some() || self.inner.lock().done
    }

    /// The session details, merged across all blocks.
    pub fn session(&self) -> &pb::ReportSessionDetails {
        &self.inner.complete().session
    }

    /// Attribute `name` of device `device` from the session details. `name` may be the full
    /// name (`device__attribute_compute_capability_major`) or the part after the prefix.
    pub fn device_attribute(&self, device: u32, name: &str) -> Option<MetricValue> {
        let short = name.strip_prefix(DEVICE_ATTRIBUTE_PREFIX).unwrap_or(name);
        let attributes = self
            .session()
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
        self.inner.complete().tool_version
    }

    /// The processes named by block headers.
    pub fn processes(&self) -> &[pb::ProcessInfo] {
        &self.inner.complete().processes
    }

    /// The source entries of the report.
    pub fn sources(&self) -> &[SourceEntry] {
        &self.inner.complete().sources
    }

    /// The cumulative string table.
    pub fn strings(&self) -> &[String] {
        &self.inner.complete().strings
    }

    /// Problems the reader worked around while indexing.
    pub fn warnings(&self) -> &[Problem] {
        &self.inner.complete().warnings
    }

    /// The problems met by the blocks indexed so far, from the `seen`-th on (in the order of
    /// [`Report::warnings`]); indexes nothing more. A caller that reports problems as a lazy
    /// walk meets them passes how many it has reported.
    pub fn warnings_found(&self, seen: usize) -> Vec<Problem> {
        self.inner.walked(0, |index| {
            index.warnings.get(seen..).unwrap_or_default().to_vec()
        })
    }

    /// Number of results (actions) in the report.
    pub fn num_actions(&self) -> usize {
        self.inner.complete().results.len()
    }

    /// Whether the report holds action `index` (indexing the blocks up to it).
    pub fn has_action(&self, index: usize) -> bool {
        self.inner
            .walked(index.saturating_add(1), |found| index < found.results.len())
    }

    /// The workload kind of action `index` without decoding it.
    pub fn action_kind(&self, index: usize) -> Option<WorkloadKind> {
        self.inner.walked(index.saturating_add(1), |found| {
            found.results.get(index).map(|r| r.kind)
        })
    }

    /// Size in bytes of action `index`'s encoded result.
    pub fn action_size(&self, index: usize) -> Option<usize> {
        self.inner.walked(index.saturating_add(1), |found| {
            found.results.get(index).map(|r| r.len)
        })
    }

    /// Decodes action `index` (file order; all results form range 0, as in NVIDIA's reader),
    /// indexing the blocks up to it.
    pub fn action(&self, index: usize) -> Result<Action, ReadError> {
        let found = self.inner.walked(index.saturating_add(1), |found| {
            let entry = found.results.get(index)?.clone();
            let version = found.settled_tool_version();
            Some((entry, Arc::clone(&found.strings), version, found.complete))
        });
        let Some((entry, strings, version, complete)) = found else {
            return Err(ReadError::format(
                &self.inner.path,
                self.inner.data.len(),
                format!(
                    "no action {index}: the report has {} action(s)",
                    self.num_actions()
                ),
            ));
        };
        let version = match version {
            Some(version) => VersionOf::Known(version),
            None => VersionOf::Report(Arc::clone(&self.inner)),
        };
        let action = self.decode(index, &entry, strings, version)?;
        if complete || !action.names_beyond_table() {
            return Ok(action);
        }
        // A metric named by a later block (a late string-only block): decoded again with the
        // whole report's string table, as `open` would have.
        let all = self.inner.complete();
        let version = VersionOf::Known(all.tool_version);
        self.decode(index, &entry, Arc::clone(&all.strings), version)
    }

    /// Decodes the result at `entry` with the string table `strings`.
    fn decode(
        &self,
        index: usize,
        entry: &ResultEntry,
        strings: Arc<Vec<String>>,
        version: VersionOf,
    ) -> Result<Action, ReadError> {
        let bytes = self
            .inner
            .data
            .slice(entry.offset..entry.offset + entry.len);
        Action::decode(index, entry, &bytes, strings, version)
            .map_err(|e| ReadError::format(&self.inner.path, entry.offset + e.offset, e.what))
    }

    /// The raw bytes of the report (decompressed for `.ncu-repz`).
    pub fn bytes(&self) -> &Bytes {
        &self.inner.data
    }
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
