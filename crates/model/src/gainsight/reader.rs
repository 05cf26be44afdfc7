//! Streaming analysis of one log, several logs or a folder of logs.
//!
//! Files are memory-mapped. A kernel is the span from a `Processing kernel` line to the next
//! (the lines before the first one form a kernel too when they hold a header or accesses).
//! Worker threads claim the next kernel from a shared cursor (finding its end is the only serial
//! step, and it overlaps the other workers' parsing), fold it with a [`KernelAccumulator`] and
//! send the result back; results are handed to the caller's sink in input order, then their
//! lifetimes move into the compact [`LifetimeStore`]. Memory is the live addresses of the
//! kernels in flight plus the compact lifetimes, not the log size.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};

use super::GainsightError;
use super::kernel::{FastMap, KernelAccumulator, KernelResult, LineCounts};
use super::params::Params;
use super::stats::{KernelRow, kernel_row};
use super::whatif::{LifetimeStore, LifetimeStoreBuilder};
use crate::core::Progress;
use crate::core::problems::CappedProblems;
use crate::mapped::{Access, MappedFile};
use crate::problem::{FileProblem, Location, Problem};

/// Warnings kept for a whole analysis; the rest are counted.
const MAX_WARNINGS: usize = 1000;
const BOUNDARY: &[u8] = b"\nProcessing kernel";

/// One input log, memory-mapped or in memory.
pub struct Source {
    /// The name used in warnings (the path as given).
    pub name: String,
    data: MappedFile,
}

impl Source {
    /// Maps a file.
    pub fn open(path: &Path) -> Result<Source, GainsightError> {
        let io = |source| GainsightError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let data = MappedFile::open(&file).map_err(io)?;
        data.advise(Access::Sequential);
        Ok(Source {
            name: path.display().to_string(),
            data,
        })
    }

    /// A log held in memory (tests, fuzzing).
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Source {
        Source {
            name: name.into(),
            data: MappedFile::from_vec(bytes),
        }
    }

    /// Drops the mapped pages of `range` from this process's memory (they stay in the page
    /// cache and are read again if touched), so resident memory does not grow with the log.
    fn release(&self, start: usize, end: usize) {
        self.data.release(start..end);
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        self.data.bytes()
    }
}

/// What [`analyze`] reports its progress as (bytes of the logs read).
pub const STAGE: &str = "log lines";

/// Options of an analysis.
#[derive(Debug, Clone, Default)]
pub struct AnalyzeOptions<'a> {
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Progress and Cancel: the bytes of all inputs read, as `STAGE`, from the worker
    /// threads as kernels are read (every 65,536 lines and at each kernel's end); once
    /// cancelled the analysis stops early with [`GainsightError::Cancelled`].
    pub progress: Progress<'a>,
    /// Render each kernel's lifetime CSV rows on its worker thread
    /// ([`KernelResult::lifetime_csv`]), so the sink only copies bytes.
    pub render_lifetime_csv: bool,
    /// Keep only the lifetimes merged over all kernels (memory bounded by distinct lifetime
    /// values, not by the log); per-kernel what-if queries are then empty. For batch use.
    pub merged_lifetimes_only: bool,
}

/// The result of an analysis: kernels (without their lifetime lists), their kernel-CSV rows,
/// the compact lifetimes, and what was worked around.
#[derive(Debug, Default)]
pub struct Analysis {
    /// The program name (from the first kernel's path: the folder above `traces/`).
    pub name: String,
    /// The input files.
    pub files: Vec<String>,
    /// Kernels in input order; `lifetimes` are emptied (they live in `store`).
    pub kernels: Vec<KernelResult>,
    /// `.sim.csv` rows, sorted by kernel id (input order for equal ids).
    pub rows: Vec<KernelRow>,
    /// All lifetimes, compact (per kernel in input order and over all kernels).
    pub store: LifetimeStore,
    /// Line counts over all inputs.
    pub lines: LineCounts,
    /// Bytes read.
    pub bytes: u64,
    /// Problems worked around, with file and line.
    pub warnings: Vec<FileProblem>,
    /// Warnings beyond the kept ones.
    pub warnings_dropped: u64,
}

/// The inputs of `paths`: files as given, folders as their files (not recursive, hidden files
/// and `.csv`/`.json`/`.toml`/`.png` outputs skipped) in natural name order.
pub fn expand_inputs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, GainsightError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let io = |source| GainsightError::Io {
                path: path.display().to_string(),
                source,
            };
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(path).map_err(io)? {
                let entry = entry.map_err(io)?;
                let p = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let skip_ext = p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                    matches!(
                        e.to_ascii_lowercase().as_str(),
                        "csv" | "json" | "toml" | "png"
                    )
                });
                if p.is_file() && !name.starts_with('.') && !skip_ext {
                    entries.push((natural_key(&name), p));
                }
            }
            entries.sort();
            files.extend(entries.into_iter().map(|(_, p)| p));
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// A sort key that orders `kernel-9` before `kernel-10`.
fn natural_key(name: &str) -> Vec<(String, u128)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for c in name.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            if !digits.is_empty() {
                key.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u128::MAX),
                ));
                digits.clear();
            }
            text.push(c);
        }
    }
    let number = if digits.is_empty() {
        0
    } else {
        digits.parse().unwrap_or(u128::MAX)
    };
    key.push((text, number));
    key
}

/// Opens `paths` (files or folders) and analyses them.
pub fn analyze_paths(
    paths: &[PathBuf],
    params: &Params,
    options: &AnalyzeOptions,
    sink: &mut dyn FnMut(&KernelResult) -> Result<(), GainsightError>,
) -> Result<Analysis, GainsightError> {
    let files = expand_inputs(paths)?;
    if files.is_empty() {
        return Err(GainsightError::NoKernels {
            path: display_list(paths),
            message: "no input files".into(),
        });
    }
    let sources = files
        .iter()
        .map(|f| Source::open(f))
        .collect::<Result<Vec<_>, _>>()?;
    analyze(&sources, params, options, sink)
}

fn display_list(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

/// Byte frequencies of GPGPU-Sim logs for the kernel boundary search: `g` occurs in no access
/// line (not a hex digit, in none of its words), so the search's prefilter passes over them.
struct LogByteRank;

impl memchr::arch::all::packedpair::HeuristicFrequencyRank for LogByteRank {
    fn rank(&self, byte: u8) -> u8 {
        match byte {
            b'g' => 0,
            b'k' => 10,
            b'P' | b'\n' | b' ' | b'0'..=b'9' | b'a'..=b'f' => 255,
            _ => 100,
        }
    }
}

/// The shared position of the next kernel to claim.
struct Cursor {
    file: usize,
    pos: usize,
    seq: usize,
}

struct Claim {
    seq: usize,
    file: usize,
    start: usize,
    end: usize,
}

fn claim(
    cursor: &Mutex<Cursor>,
    sources: &[Source],
    finder: &memchr::memmem::Finder,
) -> Option<Claim> {
    let mut c = cursor.lock().ok()?;
    loop {
        let data = sources.get(c.file)?.bytes();
        if c.pos >= data.len() {
            c.file += 1;
            c.pos = 0;
            continue;
        }
        let start = c.pos;
        let end = finder
            .find(&data[start..])
            .map_or(data.len(), |p| start + p + 1);
        c.pos = end;
        c.seq += 1;
        return Some(Claim {
            seq: c.seq - 1,
            file: c.file,
            start,
            end,
        });
    }
}

/// Bytes folded between releases of mapped pages.
const RELEASE_EVERY: usize = 64 << 20;
/// More than Linux maps around a page fault (`fault_around_bytes`, 64 KiB by default).
const FAULT_AROUND: usize = 1 << 20;

/// The bytes of all inputs read so far, shared by the workers, reported to `progress`.
struct BytesRead<'a> {
    progress: Progress<'a>,
    read: AtomicU64,
    total: u64,
}

impl BytesRead<'_> {
    /// `n` more bytes read: reports the sum.
    fn add(&self, n: usize) {
        if self.progress.is_reported() {
            let n = n as u64;
            let sum = self.read.fetch_add(n, Ordering::Relaxed) + n;
            self.progress.report_bytes(STAGE, sum, self.total);
        }
    }
}

fn fold_kernel(claim: &Claim, source: &Source, bytes: &BytesRead<'_>) -> KernelResult {
    let data = source.bytes();
    let mut acc = KernelAccumulator::new(claim.seq, claim.file, claim.start as u64);
    let mut pos = claim.start;
    let mut reported = pos;
    let mut released = pos;
    let mut lines: u32 = 0;
    while pos < claim.end {
        let rest = &data[pos..claim.end];
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        acc.feed(&rest[..len], pos as u64);
        pos += len + 1;
        lines = lines.wrapping_add(1);
        if lines.is_multiple_of(65536) {
            if bytes.progress.is_cancelled() {
                break;
            }
            let done = pos.min(claim.end);
            bytes.add(done - reported);
            reported = done;
            if done - released >= RELEASE_EVERY {
                source.release(released, done);
                released = done;
            }
        }
    }
    bytes.add(claim.end.saturating_sub(reported));
    // From a little before the span: the kernel's fault-around maps the neighbouring pages of
    // a fault, so reading this kernel's first lines mapped the end of the previous one again.
    source.release(released.saturating_sub(FAULT_AROUND), claim.end);
    acc.finish()
}

/// Analyses `sources`: kernels in parallel, handed to `sink` in input order (with their
/// lifetimes, e.g. to write the lifetime CSVs), then kept compact in the [`Analysis`].
pub fn analyze(
    sources: &[Source],
    params: &Params,
    options: &AnalyzeOptions,
    sink: &mut dyn FnMut(&KernelResult) -> Result<(), GainsightError>,
) -> Result<Analysis, GainsightError> {
    let threads = if options.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        options.threads
    };
    let bytes = BytesRead {
        progress: options.progress,
        read: AtomicU64::new(0),
        total: sources.iter().map(|s| s.bytes().len() as u64).sum(),
    };
    let stop = AtomicBool::new(false);
    let cursor = Mutex::new(Cursor {
        file: 0,
        pos: 0,
        seq: 0,
    });
    let finder =
        memchr::memmem::FinderBuilder::new().build_forward_with_ranker(LogByteRank, BOUNDARY);
    let shared = Shared {
        sources,
        params,
        cursor: &cursor,
        finder: &finder,
        bytes: &bytes,
        stop: &stop,
        render: options.render_lifetime_csv,
        per_kernel: !options.merged_lifetimes_only,
    };
    let mut collector = Collector::new(sources, !options.merged_lifetimes_only);
    let mut sink_error = None;
    let mut started = 0;
    let mut spawn_error = None;
    let mut worker_panicked = false;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Prepared>(threads * 4);
        let mut workers = Vec::with_capacity(threads);
        for index in 0..threads {
            let tx = tx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("sightline-gainsight-{index}"))
                .spawn_scoped(scope, move || shared.work(&tx));
            match spawned {
                Ok(handle) => workers.push(handle),
                Err(e) => spawn_error = Some(e),
            }
        }
        drop(tx);
        sink_error = deliver_in_order(rx, &mut collector, sink, &stop);
        started = workers.len();
        for worker in workers {
            match worker.join() {
                Ok(counts) => collector.store.merge_counts(counts),
                Err(_) => worker_panicked = true,
            }
        }
    });
    if worker_panicked {
        return Err(GainsightError::Io {
            path: "worker threads".into(),
            source: std::io::Error::other("a worker thread panicked"),
        });
    }
    if let Some(e) = sink_error {
        return Err(e);
    }
    if let (0, Some(source)) = (started, spawn_error) {
        return Err(GainsightError::Io {
            path: "worker threads".into(),
            source,
        });
    }
    options.progress.check()?;
    collector.finish()
}

/// What the worker threads share: the files, the parameters, the claim cursor, the bytes read
/// and the stop flag (set after a sink error).
#[derive(Clone, Copy)]
struct Shared<'s, 'p> {
    sources: &'s [Source],
    params: &'s Params,
    cursor: &'s Mutex<Cursor>,
    finder: &'s memchr::memmem::Finder<'s>,
    bytes: &'s BytesRead<'p>,
    stop: &'s AtomicBool,
    /// Whether lifetime CSV rows are rendered.
    render: bool,
    /// Whether each kernel keeps its lifetimes' cycles (else only the counts are kept).
    per_kernel: bool,
}

impl Shared<'_, '_> {
    /// One worker: claims kernels until the files, a cancel or a stop end it, sends each
    /// prepared kernel on `tx`, and returns its lifetimes per distinct cycle count.
    fn work(self, tx: &mpsc::SyncSender<Prepared>) -> [FastMap<u64, u64>; 2] {
        // Lifetimes per distinct cycle count, counted here rather than on the thread that
        // keeps the input order.
        let mut counts: [FastMap<u64, u64>; 2] = Default::default();
        while !self.bytes.progress.is_cancelled() && !self.stop.load(Ordering::Relaxed) {
            let Some(claim) = claim(self.cursor, self.sources, self.finder) else {
                break;
            };
            let source = &self.sources[claim.file];
            let mut result = prepare(
                fold_kernel(&claim, source, self.bytes),
                self.params,
                self.render,
            );
            for (level, cycles) in counts.iter_mut().zip(&mut result.cycles) {
                for &c in cycles.iter() {
                    *level.entry(c).or_insert(0) += 1;
                }
                if !self.per_kernel {
                    *cycles = Vec::new();
                }
            }
            if tx.send(result).is_err() {
                break;
            }
        }
        counts
    }
}

/// Hands the workers' kernels to `collector` (and `sink`) in input order until every worker
/// is done; the first sink error stops the workers and is returned.
fn deliver_in_order(
    rx: mpsc::Receiver<Prepared>,
    collector: &mut Collector<'_>,
    sink: &mut dyn FnMut(&KernelResult) -> Result<(), GainsightError>,
    stop: &AtomicBool,
) -> Option<GainsightError> {
    let mut sink_error = None;
    let mut pending: BTreeMap<usize, Prepared> = BTreeMap::new();
    let mut next = 0;
    for result in rx {
        pending.insert(result.kernel.seq, result);
        while let Some(result) = pending.remove(&next) {
            next += 1;
            if sink_error.is_none()
                && let Err(e) = collector.take(result, sink)
            {
                sink_error = Some(e);
                stop.store(true, Ordering::Relaxed);
            }
        }
    }
    sink_error
}

/// A kernel finished on its worker thread: its id settled, its kernel-CSV row (`None`: the
/// span held no kernel), its lifetimes' cycles and, when asked, its lifetime CSV rows rendered.
struct Prepared {
    kernel: KernelResult,
    row: Option<KernelRow>,
    cycles: [Vec<u64>; 2],
}

fn prepare(mut kernel: KernelResult, params: &Params, render: bool) -> Prepared {
    let has_content = kernel.processing_path.is_some()
        || kernel.id.is_some()
        || kernel.name.is_some()
        || kernel.lines.accesses > 0
        || kernel.end.any();
    if !has_content {
        return Prepared {
            kernel,
            row: None,
            cycles: [Vec::new(), Vec::new()],
        };
    }
    if kernel.id.is_none() {
        let from_path = kernel.processing_path.as_deref().and_then(id_from_path);
        let id = from_path.unwrap_or(kernel.seq as u64);
        let how = if from_path.is_some() {
            "its path"
        } else {
            "its position"
        };
        kernel.warnings.push((
            kernel.offset,
            format!("kernel without `-kernel id` line; id {id} taken from {how}"),
        ));
        kernel.id = Some(id);
    }
    let id = kernel.id.unwrap_or_default();
    if kernel.end.sim_cycle.is_none() {
        kernel.warnings.push((
            kernel.offset,
            format!(
                "kernel {id} has no end-of-kernel statistics (gpu_sim_cycle); its cycles are taken from its last access ({})",
                kernel.last_cycle
            ),
        ));
    }
    let row = kernel_row(&kernel, params);
    if render {
        let p = params.ns_per_cycle();
        let render_level = |lifetimes: &[super::Lifetime]| {
            let mut out = Vec::with_capacity(lifetimes.len() * 40);
            // Writing into a Vec cannot fail.
            let _ = super::csv::write_lifetime_rows(&mut out, id, lifetimes, p);
            out
        };
        kernel.lifetime_csv = Some([
            render_level(&kernel.lifetimes[0]),
            render_level(&kernel.lifetimes[1]),
        ]);
    }
    let cycles = [0, 1].map(|i| kernel.lifetimes[i].iter().map(|l| l.cycles).collect());
    Prepared {
        kernel,
        row: Some(row),
        cycles,
    }
}

/// Gathers kernel results in input order.
struct Collector<'a> {
    sources: &'a [Source],
    analysis: Analysis,
    raw_warnings: Vec<(usize, u64, String)>,
    store: LifetimeStoreBuilder,
}

impl<'a> Collector<'a> {
    fn new(sources: &'a [Source], per_kernel: bool) -> Self {
        let mut raw_warnings = Vec::new();
        for (index, source) in sources.iter().enumerate() {
            let bytes = source.bytes();
            if bytes.is_empty() {
                raw_warnings.push((index, u64::MAX, "empty file".to_string()));
            } else if bytes[..bytes.len().min(4096)].contains(&0) {
                raw_warnings.push((
                    index,
                    u64::MAX,
                    "looks like a binary file (NUL bytes); reading its text lines anyway".into(),
                ));
            }
        }
        Collector {
            sources,
            analysis: Analysis {
                files: sources.iter().map(|s| s.name.clone()).collect(),
                bytes: sources.iter().map(|s| s.bytes().len() as u64).sum(),
                ..Analysis::default()
            },
            raw_warnings,
            store: LifetimeStoreBuilder::new(per_kernel),
        }
    }

    fn take(
        &mut self,
        prepared: Prepared,
        sink: &mut dyn FnMut(&KernelResult) -> Result<(), GainsightError>,
    ) -> Result<(), GainsightError> {
        let Prepared {
            mut kernel,
            row,
            cycles,
        } = prepared;
        self.analysis.lines.add(&kernel.lines);
        let file = kernel.file;
        for (offset, message) in kernel.warnings.drain(..) {
            self.raw_warnings.push((file, offset, message));
        }
        let Some(row) = row else {
            return Ok(());
        };
        if self.analysis.name.is_empty()
            && let Some(name) = kernel.processing_path.as_deref().and_then(program_name)
        {
            self.analysis.name = name;
        }
        sink(&kernel)?;
        self.analysis.rows.push(row);
        let [l1, l2] = cycles;
        self.store
            .push_kernel_only(kernel.id.unwrap_or_default(), l1, l2);
        kernel.lifetimes = [Vec::new(), Vec::new()];
        kernel.lifetime_csv = None;
        self.analysis.kernels.push(kernel);
        Ok(())
    }

    fn finish(mut self) -> Result<Analysis, GainsightError> {
        self.resolve_warnings();
        if self.analysis.kernels.is_empty() {
            let mut why = Vec::new();
            for w in &self.analysis.warnings {
                if w.problem.location == Location::None {
                    why.push(w.problem.message.clone());
                }
            }
            let message = if why.is_empty() {
                "no kernel found (no `Processing kernel`, `-kernel id` or access line)".to_string()
            } else {
                format!("no kernel found ({})", why.join("; "))
            };
            return Err(GainsightError::NoKernels {
                path: self.analysis.files.join(", "),
                message,
            });
        }
        if self.analysis.name.is_empty() {
            self.analysis.name = self
                .sources
                .first()
                .map(|s| {
                    Path::new(&s.name)
                        .file_stem()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| s.name.clone())
                })
                .unwrap_or_default();
        }
        self.analysis.rows.sort_by_key(|r| r.kernel_id);
        self.analysis.store = self.store.build();
        Ok(self.analysis)
    }

    /// Turns byte offsets into line numbers, one pass per file with warnings.
    fn resolve_warnings(&mut self) {
        let mut raw = std::mem::take(&mut self.raw_warnings);
        raw.sort_by_key(|(file, offset, _)| (*file, *offset));
        // The first warnings in file order are kept; only those get a line number.
        let mut capped = CappedProblems::new(MAX_WARNINGS);
        for warning in raw {
            capped.push(warning);
        }
        let (kept, dropped) = capped.into_parts();
        let mut current: Option<(usize, usize, u64)> = None; // file, offset, line
        for (file, offset, message) in kept {
            let line = if offset == u64::MAX {
                0
            } else {
                let data = self.sources[file].bytes();
                let target = crate::core::num::saturating_usize(offset).min(data.len());
                let (from, mut line) = match current {
                    Some((f, o, l)) if f == file && o <= target => (o, l),
                    _ => (0, 1),
                };
                line += memchr::memchr_iter(b'\n', &data[from..target]).count() as u64;
                current = Some((file, target, line));
                line
            };
            self.analysis.warnings.push(FileProblem::new(
                self.sources[file].name.clone(),
                Problem::warning(Location::line_or_file(line), message),
            ));
        }
        self.analysis.warnings_dropped = dropped;
    }
}

/// `.../kernel-25.traceg` → 25.
fn id_from_path(path: &str) -> Option<u64> {
    let stem = Path::new(path).file_stem()?.to_str()?;
    let digits: String = stem
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()?
        .to_string();
    digits.parse().ok()
}

/// `$ROOT/logs/generate/traces/kernel-25.traceg` → `generate` (the folder above `traces`,
/// else the kernel file's folder).
fn program_name(path: &str) -> Option<String> {
    let parent = Path::new(path).parent()?;
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    if name(parent).as_deref() == Some("traces") {
        parent.parent().and_then(name)
    } else {
        name(parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_paths() {
        assert_eq!(
            program_name("$PROJECT_ROOT/logs/generate/traces/kernel-25.traceg").as_deref(),
            Some("generate")
        );
        assert_eq!(id_from_path("/x/traces/kernel-25.traceg"), Some(25));
        assert_eq!(id_from_path("/x/traces/kernel.traceg"), None);
    }

    #[test]
    fn natural_order() {
        let mut names = vec!["kernel-10.log", "kernel-9.log", "kernel-1.log"];
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(names, ["kernel-1.log", "kernel-9.log", "kernel-10.log"]);
    }
}
