//! One profiling session: `S.atp` (trace), `S.csv` (counters) and `S.occupancy` (occupancy) in
//! one folder. Opening any of them offers the other two; a kernel dispatch of the trace finds
//! its counter row by (`ThreadID`, `CallIndex`) and its occupancy row by thread and kernel.

use std::path::{Path, PathBuf};

use super::counters::{CounterFile, CounterRow};
use super::occupancy::{OccupancyFile, OccupancyRow};

/// The kind of a session file, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionFileKind {
    /// `.atp`: application timeline trace.
    Trace,
    /// `.csv`: performance counters.
    Counters,
    /// `.occupancy`: kernel occupancy.
    Occupancy,
}

impl SessionFileKind {
    /// The kind of `path`, from its extension (case-insensitive).
    pub fn of(path: &Path) -> Option<SessionFileKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "atp" => Some(SessionFileKind::Trace),
            "csv" => Some(SessionFileKind::Counters),
            "occupancy" => Some(SessionFileKind::Occupancy),
            _ => None,
        }
    }

    fn extension(self) -> &'static str {
        match self {
            SessionFileKind::Trace => "atp",
            SessionFileKind::Counters => "csv",
            SessionFileKind::Occupancy => "occupancy",
        }
    }
}

/// The files of one session that exist on disk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFiles {
    /// `S.atp`.
    pub trace: Option<PathBuf>,
    /// `S.csv`.
    pub counters: Option<PathBuf>,
    /// `S.occupancy`.
    pub occupancy: Option<PathBuf>,
}

impl SessionFiles {
    /// The siblings of `path` (any of the three) with the same stem, that exist (the path
    /// itself included when it exists). An extension in another case (`S.ATP`) is found too.
    pub fn find(path: &Path) -> SessionFiles {
        let mut files = SessionFiles::default();
        let Some(stem) = path.file_stem() else {
            return files;
        };
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let entries: Vec<PathBuf> = std::fs::read_dir(folder)
            .map(|dir| dir.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        for kind in [
            SessionFileKind::Trace,
            SessionFileKind::Counters,
            SessionFileKind::Occupancy,
        ] {
            let exact = folder.join(stem).with_extension(kind.extension());
            let found = if exact.is_file() {
                Some(exact)
            } else {
                let mut candidates: Vec<&PathBuf> = entries
                    .iter()
                    .filter(|p| {
                        p.file_stem() == Some(stem)
                            && SessionFileKind::of(p) == Some(kind)
                            && p.is_file()
                    })
                    .collect();
                candidates.sort();
                candidates.first().map(|p| (*p).clone())
            };
            match kind {
                SessionFileKind::Trace => files.trace = found,
                SessionFileKind::Counters => files.counters = found,
                SessionFileKind::Occupancy => files.occupancy = found,
            }
        }
        files
    }

    /// The files other than `path` (what to offer to open with it).
    pub fn others(&self, path: &Path) -> Vec<PathBuf> {
        [&self.trace, &self.counters, &self.occupancy]
            .into_iter()
            .flatten()
            .filter(|p| p.as_path() != path)
            .cloned()
            .collect()
    }
}

/// Counters and occupancy of a session, for the details of a dispatch.
#[derive(Debug, Clone, Default)]
pub struct SessionData {
    /// The counter file, when the session has one.
    pub counters: Option<CounterFile>,
    /// The occupancy file, when the session has one.
    pub occupancy: Option<OccupancyFile>,
}

impl SessionData {
    /// The counter row of the dispatch made by call `call_index` (0-based, within its thread)
    /// of thread `thread_id`.
    pub fn counters_for_call(&self, thread_id: u64, call_index: u64) -> Option<&CounterRow> {
        self.counters.as_ref()?.row_for_call(thread_id, call_index)
    }

    /// The occupancy row of the `nth` (0-based) dispatch of `kernel` by thread `thread_id`
    /// (the file has one row per dispatch, in dispatch order).
    pub fn occupancy_for(&self, thread_id: u64, kernel: &str, nth: usize) -> Option<&OccupancyRow> {
        let file = self.occupancy.as_ref()?;
        file.rows
            .iter()
            .filter(|r| {
                r.thread_id.is_none_or(|t| t == thread_id) && file.kernel_parts(r).0 == kernel
            })
            .nth(nth)
    }
}
