//! Linking an Nsight Compute report with a timeline of the same program: for each profiled
//! kernel (a result of the report), the timeline kernels that can be it.
//!
//! Both sides are first reduced to plain records — [`TimelineKernel`] (read from the export's
//! kernel table by each kernel event's source rowid, with the NVTX ranges open on the launching
//! thread taken from the timeline) and [`ProfiledKernel`] (one per kernel result of the report)
//! — then [`match_kernels`] compares them, criterion by criterion:
//!
//! 1. **process**: the same run when a timeline process has the result's pid and the same
//!    program; otherwise a different run of the same program (matched by program name), and
//!    launch order is then counted per process;
//! 2. **kernel name**: mangled when both sides have it, else the demangled signature
//!    (normalised: spaces, a leading `void`), else the function name;
//! 3. **grid and block** sizes;
//! 4. **stream** (only when it is the same run: stream ids are per run);
//! 5. **launch order**: the result's place among the report's results of that kernel (name,
//!    grid, block) in its process vs the timeline's n-th launch of it, shifted by the launches
//!    the report's `--launch-skip`/`--launch-skip-before-match`/`-k` skipped
//!    ([`LaunchFilter`]); when the report's filters cannot be replayed, any order-preserving
//!    place stays possible;
//! 6. the **NVTX state** of the result as a tie-breaker.
//!
//! A result with exactly one timeline kernel left is [`Certainty::Certain`]; with several
//! they are [`Certainty::Candidates`], best first, and never silently reduced to one.

mod filter;
mod matcher;
mod ncu_side;
mod timeline_side;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

pub use filter::{KernelNameBase, LaunchFilter};
pub use matcher::{MAX_CANDIDATES, match_kernels};
pub use ncu_side::profiled_kernels;
pub use timeline_side::{timeline_kernels, timeline_kernels_in};

use crate::timeline::model::{EventId, Timeline};

/// Why linking failed: a side could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The timeline's export could not be read.
    #[error(transparent)]
    Timeline(#[from] crate::timeline::nsys::NsysError),
    /// The report could not be read.
    #[error(transparent)]
    Report(#[from] crate::ncu::ReadError),
}

/// A kernel on the timeline, with what matching needs.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineKernel {
    /// The kernel's event on the timeline.
    pub event: EventId,
    /// Start (ns, the timeline's clock).
    pub start: i64,
    /// Process id of the launching process, when known.
    pub pid: Option<u64>,
    /// Name of the launching process (the export's `PROCESSES.name`, else its main thread's
    /// name), when known (shared by the process's kernels).
    pub process: Option<Arc<str>>,
    /// CUDA device id.
    pub device: i64,
    /// CUDA context id.
    pub context: i64,
    /// CUDA stream id.
    pub stream: i64,
    /// Grid size, when the export has it.
    pub grid: Option<[u64; 3]>,
    /// Block size, when the export has it.
    pub block: Option<[u64; 3]>,
    /// Mangled name (exports before 2021 have none); names are shared by the launches of a
    /// kernel.
    pub mangled: Option<Arc<str>>,
    /// Demangled signature.
    pub demangled: Option<Arc<str>>,
    /// Function (short) name.
    pub function: Option<Arc<str>>,
    /// NVTX push/pop ranges open on the launching thread at the launch, bottom first, every
    /// domain.
    pub nvtx: Vec<String>,
}

/// A kernel result of an Nsight Compute report, with what matching needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProfiledKernel {
    /// Index of the result in the report.
    pub index: usize,
    /// Process id of the profiled process, when known.
    pub pid: Option<u64>,
    /// Name (usually the executable's path) of the profiled process, when known.
    pub process: Option<String>,
    /// Function name.
    pub function: String,
    /// Demangled signature (empty when the report has none).
    pub demangled: String,
    /// Mangled name (empty when the report has none).
    pub mangled: String,
    /// Grid size.
    pub grid: Option<[u64; 3]>,
    /// Block size.
    pub block: Option<[u64; 3]>,
    /// CUDA stream id.
    pub stream: Option<u32>,
    /// NVTX push/pop ranges open on the launching thread, bottom first, every domain.
    pub nvtx: Vec<String>,
}

/// A criterion that held for a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Criterion {
    /// Same run: the process id and program agree.
    SameRun,
    /// Same program in another run (the pids differ).
    SameProgram,
    /// Mangled names equal.
    MangledName,
    /// Demangled signatures equal (after normalisation).
    DemangledName,
    /// Function names equal (neither side had a better name).
    FunctionName,
    /// Grid and block sizes equal.
    GridBlock,
    /// Stream ids equal (same run only).
    Stream,
    /// The result's launch position is this timeline launch: the n-th (1-based) launch of
    /// the kernel with this grid and block in its process.
    LaunchOrder(usize),
    /// The open NVTX ranges are the same.
    Nvtx,
}

impl Criterion {
    /// How much the criterion counts when candidates are ordered.
    fn weight(self) -> u32 {
        match self {
            Criterion::SameRun | Criterion::MangledName | Criterion::DemangledName => 4,
            Criterion::SameProgram | Criterion::FunctionName | Criterion::Stream => 2,
            Criterion::GridBlock => 3,
            Criterion::LaunchOrder(_) => 5,
            Criterion::Nvtx => 1,
        }
    }
}

impl fmt::Display for Criterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Criterion::SameRun => f.write_str("same run (pid and program)"),
            Criterion::SameProgram => f.write_str("same program (another run)"),
            Criterion::MangledName => f.write_str("mangled name"),
            Criterion::DemangledName => f.write_str("demangled name"),
            Criterion::FunctionName => f.write_str("function name"),
            Criterion::GridBlock => f.write_str("grid/block"),
            Criterion::Stream => f.write_str("stream"),
            Criterion::LaunchOrder(n) => write!(f, "launch #{n} of this kernel"),
            Criterion::Nvtx => f.write_str("NVTX ranges"),
        }
    }
}

/// How sure a result's match is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certainty {
    /// Exactly one timeline kernel passes every criterion.
    Certain,
    /// Several remain: offered, best first, never chosen.
    Candidates,
    /// No timeline kernel can be the result.
    Unmatched,
}

impl Certainty {
    /// The word the outputs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Certainty::Certain => "certain",
            Certainty::Candidates => "candidates",
            Certainty::Unmatched => "unmatched",
        }
    }
}

/// A timeline kernel that can be a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Index into the timeline kernels given to [`match_kernels`].
    pub kernel: usize,
    /// The kernel's event.
    pub event: EventId,
    /// The criteria that held, in the order of the module's list.
    pub held: Vec<Criterion>,
    /// The sum of the criteria's weights (candidates are ordered by it, best first).
    pub score: u32,
}

/// The match of one result.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultLink {
    /// Index of the result in the report.
    pub result: usize,
    /// How sure the match is.
    pub certainty: Certainty,
    /// The timeline kernels it can be, best first (one when certain; at most
    /// [`MAX_CANDIDATES`]).
    pub candidates: Vec<Candidate>,
    /// How many more candidates there were beyond those kept.
    pub more: usize,
}

/// The matches of every kernel result of a report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Links {
    /// One entry per kernel result, in report order.
    pub results: Vec<ResultLink>,
    /// What the report's command line says was skipped.
    pub filter: LaunchFilter,
}

impl Links {
    /// The link of result `index`.
    pub fn result(&self, index: usize) -> Option<&ResultLink> {
        self.results.iter().find(|r| r.result == index)
    }

    /// How many results are matched with certainty.
    pub fn certain_count(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.certainty == Certainty::Certain)
            .count()
    }

    /// For each timeline event that some result can be: the results (index, whether the
    /// match is certain).
    pub fn by_event(&self) -> HashMap<EventId, Vec<(usize, bool)>> {
        let mut out: HashMap<EventId, Vec<(usize, bool)>> = HashMap::new();
        for r in &self.results {
            for c in &r.candidates {
                out.entry(c.event)
                    .or_default()
                    .push((r.result, r.certainty == Certainty::Certain));
            }
        }
        out
    }
}

/// Everything read from both sides and their matches: what the CLI prints and the app shows.
#[derive(Debug, Clone, Default)]
pub struct LinkSet {
    /// The timeline's kernels.
    pub kernels: Vec<TimelineKernel>,
    /// The report's kernel results.
    pub profiled: Vec<ProfiledKernel>,
    /// The matches.
    pub links: Links,
}

/// Reads the kernels of `timeline` (whose kernel rows come from the export at `export`) and the
/// kernel results of the report at `report`, and matches them.
pub fn link_files(
    export: &Path,
    timeline: &Timeline,
    report: &crate::ncu::Report,
) -> Result<LinkSet, LinkError> {
    let all = 0..crate::core::num::index_u32(timeline.event_count());
    link_sources(&[(export.to_path_buf(), all)], timeline, report)
}

/// As [`link_files`] for a timeline whose kernels come from several exports (a merged
/// timeline: each file's export with the ids of its events), matched all at once — the
/// process criteria tell the files' kernels apart.
pub fn link_sources(
    sources: &[(std::path::PathBuf, std::ops::Range<u32>)],
    timeline: &Timeline,
    report: &crate::ncu::Report,
) -> Result<LinkSet, LinkError> {
    let mut kernels = Vec::new();
    for (export, ids) in sources {
        kernels.extend(timeline_kernels_in(export, timeline, ids.clone())?);
    }
    kernels.sort_by_key(|k| (k.start, k.event.0));
    let profiled = profiled_kernels(report)?;
    let filter = LaunchFilter::of_command_line(report.session().profiler_cmdline.as_deref());
    let links = match_kernels(&kernels, &profiled, &filter);
    Ok(LinkSet {
        kernels,
        profiled,
        links,
    })
}

/// A demangled signature in one spelling: whitespace only where it separates two identifier
/// characters, a leading `void ` (return type, printed by some tools) dropped.
pub fn normalize_demangled(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_prefix("void ").unwrap_or(name);
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(name.len());
    let mut pending_space = false;
    for c in name.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && ident(c) && out.chars().next_back().is_some_and(ident) {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// The program of a process name or command line: the file name of its first word.
pub fn program_of(process: &str) -> &str {
    let first = process.split_whitespace().next().unwrap_or("");
    first.rsplit(['/', '\\']).next().unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangled_names_normalise() {
        assert_eq!(
            normalize_demangled("void gemm<float, 128>(const float *, float*)"),
            "gemm<float,128>(const float*,float*)"
        );
        assert_eq!(
            normalize_demangled("init_array(double*, unsigned long)"),
            normalize_demangled("init_array(double *, unsigned long)")
        );
    }

    #[test]
    fn programs() {
        assert_eq!(program_of("/work/home/x/ex-gpu"), "ex-gpu");
        assert_eq!(program_of("./app --size 3"), "app");
        assert_eq!(program_of("C:\\bin\\app.exe"), "app.exe");
    }
}
