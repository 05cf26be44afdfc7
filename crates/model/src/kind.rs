//! What kind of file is this: one answer for the app (which document opens it), the commands,
//! the file dialogs and the desktop integration.
//!
//! A file is known by its name first (the extension, case-insensitive; Gainsight's
//! `NAME.sim.csv` outputs are not counter files), then by its first bytes: an SQLite database
//! is an Nsight Systems export, a file that mentions GPGPU-Sim is a simulator log, anything
//! else goes to the Nsight Compute reader, which names what is wrong with it.

use std::io::Read;
use std::path::Path;

/// The kinds of file Sightline opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// An Nsight Compute report (`.ncu-rep`, `.ncu-repz`).
    NcuReport,
    /// An Nsight Systems SQLite export (`.sqlite`, or any name by content).
    NsysExport,
    /// An Nsight Systems report (`.nsys-rep`, `.qdrep`), exported with `nsys` first.
    NsysReport,
    /// An NVTXT annotation file (`.nvtxt`).
    Nvtxt,
    /// An AMD CodeXL / RCP application trace (`.atp`).
    Atp,
    /// CodeXL / RCP performance counters (`.csv`).
    CodexlCounters,
    /// CodeXL / RCP kernel occupancy (`.occupancy`).
    CodexlOccupancy,
    /// Gainsight input: GPGPU-Sim logs (a file of any name that mentions GPGPU-Sim, or a
    /// folder of them) or the frontend's outputs (`.sim*.csv`, `.json`).
    Gainsight,
    /// A Perfetto protobuf trace (`.perfetto-trace`, `.pftrace`), opened on the timeline.
    PerfettoTrace,
    /// A Chrome JSON trace (a `.json` file or a file of another name whose first bytes are a
    /// `traceEvents` object or an array of events), opened on the timeline.
    ChromeTrace,
    /// A folder holding Nsight Systems exports or reports (the ranks of a job, the runs of a
    /// sweep): the recipes and Compare run over them.
    NsysFolder,
}

/// MIME type of an uncompressed Nsight Compute report (`*.ncu-rep`, starts with `NVR\0`).
pub const REPORT_MIME_TYPE: &str = "application/x-nvidia-ncu-report";

/// MIME type of a zstd-compressed Nsight Compute report (`*.ncu-repz`); a sub-class of
/// `application/zstd`.
pub const COMPRESSED_REPORT_MIME_TYPE: &str = "application/x-nvidia-ncu-report-zstd";

/// MIME type of an Nsight Systems report (`*.nsys-rep`, and `*.qdrep` of releases before 2021.4),
/// opened on the timeline after `nsys export --type sqlite`.
pub const NSYS_REPORT_MIME_TYPE: &str = "application/x-nvidia-nsys-report";

/// MIME type of an NVTXT annotation file (`*.nvtxt`, text), opened on the timeline.
pub const NVTXT_MIME_TYPE: &str = "application/x-nvidia-nvtxt";

/// MIME type of an AMD CodeXL / Radeon Compute Profiler application trace (`*.atp`, text).
pub const ATP_MIME_TYPE: &str = "application/x-amd-codexl-trace";

/// MIME type of an AMD CodeXL / Radeon Compute Profiler occupancy file (`*.occupancy`, text).
pub const OCCUPANCY_MIME_TYPE: &str = "application/x-amd-codexl-occupancy";

/// MIME type of SQLite databases (shared-mime-info's name; `*.sqlite` Nsight Systems exports).
pub const SQLITE_MIME_TYPE: &str = "application/vnd.sqlite3";

/// How many leading bytes [`FileKind::from_content`] looks at.
pub const HEAD_BYTES: usize = 64 * 1024;

/// The first 16 bytes of every SQLite database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Name endings of Gainsight's CSV outputs (which are not counter files).
const GAINSIGHT_CSV_SUFFIXES: &[&str] = &[".sim.csv", ".sim_l1.csv", ".sim_l2.csv"];

impl FileKind {
    /// Every kind, in the order the file dialogs list them.
    pub const ALL: [FileKind; 11] = [
        FileKind::NcuReport,
        FileKind::NsysExport,
        FileKind::NsysReport,
        FileKind::Nvtxt,
        FileKind::Atp,
        FileKind::CodexlCounters,
        FileKind::CodexlOccupancy,
        FileKind::Gainsight,
        FileKind::PerfettoTrace,
        FileKind::ChromeTrace,
        FileKind::NsysFolder,
    ];

    /// The file name extensions of the kind (lower case, without the dot).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            FileKind::NcuReport => &["ncu-rep", "ncu-repz"],
            FileKind::NsysExport => &["sqlite"],
            FileKind::NsysReport => &["nsys-rep", "qdrep"],
            FileKind::Nvtxt => &["nvtxt"],
            FileKind::Atp => &["atp"],
            FileKind::CodexlCounters => &["csv"],
            FileKind::CodexlOccupancy => &["occupancy"],
            FileKind::Gainsight => &["log", "traceg", "json"],
            FileKind::PerfettoTrace => &["perfetto-trace", "pftrace"],
            FileKind::ChromeTrace => &["json"],
            FileKind::NsysFolder => &[],
        }
    }

    /// The MIME types of the kind's files, as the desktop integration registers them (an
    /// export's `application/vnd.sqlite3` is shared-mime-info's; counter files and Gainsight
    /// inputs are plain text, not claimed).
    pub fn mime_types(self) -> &'static [&'static str] {
        match self {
            FileKind::NcuReport => &[REPORT_MIME_TYPE, COMPRESSED_REPORT_MIME_TYPE],
            FileKind::NsysReport => &[NSYS_REPORT_MIME_TYPE],
            FileKind::Nvtxt => &[NVTXT_MIME_TYPE],
            FileKind::Atp => &[ATP_MIME_TYPE],
            FileKind::CodexlOccupancy => &[OCCUPANCY_MIME_TYPE],
            FileKind::NsysExport => &[SQLITE_MIME_TYPE],
            FileKind::CodexlCounters
            | FileKind::Gainsight
            | FileKind::PerfettoTrace
            | FileKind::ChromeTrace
            | FileKind::NsysFolder => &[],
        }
    }

    /// Whether the kind is shown on a timeline.
    pub fn is_timeline(self) -> bool {
        matches!(
            self,
            FileKind::NsysExport
                | FileKind::NsysReport
                | FileKind::Nvtxt
                | FileKind::Atp
                | FileKind::PerfettoTrace
                | FileKind::ChromeTrace
        )
    }

    /// The kind a file's name tells, `None` when it does not (an unknown or missing
    /// extension). A `.json` file is a Gainsight output by name ([`FileKind::detect`] and
    /// [`FileKind::of_path`] look inside for a Chrome trace). A Gainsight CSV output (`NAME.sim.csv`, `NAME.sim_l1.csv`,
    /// `NAME.sim_l2.csv`) is [`FileKind::Gainsight`], another `.csv` a counter file.
    pub fn from_name(path: &Path) -> Option<FileKind> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        if GAINSIGHT_CSV_SUFFIXES.iter().any(|s| name.ends_with(s)) {
            return Some(FileKind::Gainsight);
        }
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        FileKind::ALL
            .into_iter()
            .find(|kind| kind.extensions().contains(&ext.as_str()))
    }

    /// The kind a file's first bytes tell (at most [`HEAD_BYTES`] are looked at): an SQLite
    /// database is an export, a GPGPU-Sim log a Gainsight input, anything else a report.
    pub fn from_content(head: &[u8]) -> FileKind {
        let head = &head[..head.len().min(HEAD_BYTES)];
        if head.starts_with(SQLITE_MAGIC) {
            FileKind::NsysExport
        } else if is_chrome_trace(head) {
            FileKind::ChromeTrace
        } else if memchr::memmem::find(head, b"GPGPU-Sim").is_some() {
            FileKind::Gainsight
        } else {
            FileKind::NcuReport
        }
    }

    /// The kind of a file from its name, else from its first bytes `head`.
    pub fn detect(path: &Path, head: &[u8]) -> FileKind {
        match FileKind::from_name(path) {
            Some(FileKind::Gainsight) if is_json(path) && is_chrome_trace(head) => {
                FileKind::ChromeTrace
            }
            Some(kind) => kind,
            None => FileKind::from_content(head),
        }
    }

    /// The kind of the file or folder at `path`: a report or timeline extension decides; a
    /// folder is a folder of Gainsight logs; then the name; then the first [`HEAD_BYTES`] of
    /// the file (unreadable: a report, whose reader says why).
    pub fn of_path(path: &Path) -> FileKind {
        match FileKind::from_name(path) {
            Some(kind) if kind == FileKind::NcuReport || kind.is_timeline() => kind,
            _ if path.is_dir() && holds_nsys_files(path) => FileKind::NsysFolder,
            _ if path.is_dir() => FileKind::Gainsight,
            Some(FileKind::Gainsight) if is_json(path) => FileKind::detect(path, &read_head(path)),
            Some(kind) => kind,
            None => FileKind::from_content(&read_head(path)),
        }
    }
}

/// The file dialogs' groups, by the tool that writes the files: `(label, kinds, extra
/// extensions)` (Gainsight's outputs include `.sim.csv` files).
pub const DIALOG_GROUPS: &[(&str, &[FileKind], &[&str])] = &[
    ("Nsight Compute reports", &[FileKind::NcuReport], &[]),
    (
        "Nsight Systems exports and reports",
        &[FileKind::NsysExport, FileKind::NsysReport],
        &[],
    ),
    ("NVTXT annotations", &[FileKind::Nvtxt], &[]),
    (
        "Perfetto and Chrome JSON traces",
        &[FileKind::PerfettoTrace, FileKind::ChromeTrace],
        &[],
    ),
    (
        "CodeXL sessions",
        &[
            FileKind::Atp,
            FileKind::CodexlCounters,
            FileKind::CodexlOccupancy,
        ],
        &[],
    ),
    (
        "Gainsight logs and outputs",
        &[FileKind::Gainsight],
        &["csv"],
    ),
];

/// The file-dialog filters: `(label, extensions)`: every supported file, one per
/// [`DIALOG_GROUPS`] entry, then all files (`*`).
pub fn dialog_filters() -> Vec<(&'static str, Vec<&'static str>)> {
    let extensions = |kinds: &[FileKind]| -> Vec<&'static str> {
        kinds.iter().flat_map(|k| k.extensions()).copied().collect()
    };
    let mut filters = vec![("All supported files", extensions(&FileKind::ALL))];
    for (label, kinds, extra) in DIALOG_GROUPS {
        let mut group = extensions(kinds);
        group.extend(extra.iter().copied());
        filters.push((*label, group));
    }
    filters.push(("All files", vec!["*"]));
    filters
}

/// Whether the folder `dir` holds an Nsight Systems export or report (by name).
fn holds_nsys_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|e| {
            matches!(
                FileKind::from_name(&e.path()),
                Some(FileKind::NsysExport | FileKind::NsysReport)
            )
        })
    })
}

/// Whether `path` ends in `.json` (any case).
fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("json"))
}

/// Whether a file's first bytes are a Chrome JSON trace: an object whose `traceEvents` key
/// shows in the head, or an array whose first element has a `"ph"` phase.
pub fn is_chrome_trace(head: &[u8]) -> bool {
    let text = head.trim_ascii_start();
    match text.first() {
        Some(b'{') => memchr::memmem::find(text, b"\"traceEvents\"").is_some(),
        Some(b'[') => {
            text[1..].trim_ascii_start().first() == Some(&b'{')
                && memchr::memmem::find(text, b"\"ph\"").is_some()
        }
        _ => false,
    }
}

/// Up to [`HEAD_BYTES`] leading bytes of the file at `path` (none when it cannot be read).
pub fn read_head(path: &Path) -> Vec<u8> {
    let mut head = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(HEAD_BYTES as u64).read_to_end(&mut head);
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_then_content() {
        let name = |n: &str| FileKind::from_name(Path::new(n));
        assert_eq!(name("a/B.NCU-REPZ"), Some(FileKind::NcuReport));
        assert_eq!(name("x.qdrep"), Some(FileKind::NsysReport));
        assert_eq!(name("s.Atp"), Some(FileKind::Atp));
        assert_eq!(name("run.sim.csv"), Some(FileKind::Gainsight));
        assert_eq!(name("run.SIM_L2.csv"), Some(FileKind::Gainsight));
        assert_eq!(name("Session1.csv"), Some(FileKind::CodexlCounters));
        assert_eq!(name("trace.traceg"), Some(FileKind::Gainsight));
        assert_eq!(name("README"), None);
        assert_eq!(name("x.db"), None);
        let content = |bytes: &[u8]| FileKind::detect(Path::new("x.db"), bytes);
        assert_eq!(content(b"SQLite format 3\0rest"), FileKind::NsysExport);
        assert_eq!(content(b"...GPGPU-Sim Cycle 1..."), FileKind::Gainsight);
        assert_eq!(content(b"NVR\0"), FileKind::NcuReport);
        assert_eq!(content(b""), FileKind::NcuReport);
        // The name wins over the content.
        assert_eq!(
            FileKind::detect(Path::new("a.nvtxt"), b"SQLite format 3\0"),
            FileKind::Nvtxt
        );
        // Every kind of file has extensions; a folder of exports has none.
        assert!(
            FileKind::ALL
                .iter()
                .all(|k| k.extensions().is_empty() == (*k == FileKind::NsysFolder))
        );
        assert_eq!(name("t.PFTRACE"), Some(FileKind::PerfettoTrace));
        assert_eq!(name("t.perfetto-trace"), Some(FileKind::PerfettoTrace));
        let json = |bytes: &[u8]| FileKind::detect(Path::new("t.json"), bytes);
        assert_eq!(json(b" {\"traceEvents\":[]}"), FileKind::ChromeTrace);
        assert_eq!(json(b"[\n{\"ph\":\"X\"}]"), FileKind::ChromeTrace);
        assert_eq!(json(b"{\"kernels\": []}"), FileKind::Gainsight);
        assert_eq!(content(b"{\"traceEvents\":["), FileKind::ChromeTrace);
    }
}
