//! Which timeline a file makes, and the NVTXT files that go with an export.
//!
//! [`TimelineFileKind::of`] tells an Nsight Systems export or report, an NVTXT file and a
//! CodeXL trace apart; [`nvtxt_beside`] lists the `.nvtxt` files in an export's folder and
//! [`merge_nvtxt`] puts them on its timeline (each file on its own, see [`super::nvtxt::timeline`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::atp::{AtpError, AtpFile};
use super::nsys::{LoadOptions, NsysError};
use super::nvtxt::timeline::{Placement, add_document};
use super::nvtxt::{NvtxtDocument, NvtxtError};
use super::{Timeline, TimelineBuilder};
use crate::core::Progress;
use crate::kind::FileKind;
use crate::problem::{FileProblem, Location, Problem};

/// Opening a timeline failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The export could not be read.
    #[error(transparent)]
    Nsys(#[from] NsysError),
    /// The NVTXT file could not be read.
    #[error(transparent)]
    Nvtxt(#[from] NvtxtError),
    /// The trace could not be read.
    #[error(transparent)]
    Atp(#[from] AtpError),
    /// The Perfetto or Chrome JSON trace could not be read.
    #[error(transparent)]
    Trace(#[from] super::export::TraceError),
    /// The user cancelled.
    #[error("{}: loading cancelled", .0.display())]
    Cancelled(PathBuf),
}

impl OpenError {
    /// Whether reading stopped because the caller cancelled it (not a problem of the file).
    pub fn is_cancelled(&self) -> bool {
        match self {
            OpenError::Cancelled(_)
            | OpenError::Nvtxt(NvtxtError::Cancelled(_))
            | OpenError::Atp(AtpError::Cancelled(_)) => true,
            OpenError::Nsys(error) => error.is_cancelled(),
            _ => false,
        }
    }
}

/// Where the details of an event are read on demand.
#[derive(Debug, Clone)]
pub enum DetailSource {
    /// The Nsight Systems export (a row of its tables per event).
    Export(PathBuf),
    /// The CodeXL trace (arguments, source locations, work sizes).
    Atp(Arc<AtpFile>),
    /// Nothing beyond what the timeline holds (an NVTXT file alone).
    None,
    /// A merged timeline: the source of each of its files, in part order.
    Parts(Vec<DetailSource>),
}

impl DetailSource {
    /// Where the details of `event` of `timeline` are read: for a merged timeline, the source
    /// of the file that holds the event.
    pub fn for_event(&self, timeline: &Timeline, event: super::EventId) -> Option<&DetailSource> {
        match self {
            DetailSource::Parts(parts) => parts.get(timeline.part_of(event)?),
            other => Some(other),
        }
    }
}

/// One file to put on a merged timeline.
#[derive(Debug, Clone)]
pub struct MergeInput {
    /// The file (export, report, NVTXT file or trace).
    pub path: PathBuf,
    /// Its kind.
    pub kind: TimelineFileKind,
    /// The SQLite export to read for an Nsight Systems report (the file itself otherwise).
    pub export: PathBuf,
}

/// The files to merge for `paths`: each file as given, and each folder's timeline files (by
/// name, sorted; NVTXT files, exports, reports and traces).
pub fn timeline_inputs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, OpenError> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|source| {
            OpenError::Nsys(NsysError::Io {
                path: path.clone(),
                source,
            })
        })?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && TimelineFileKind::of(p).is_some())
            .collect();
        found.sort();
        // A report exported beside itself: the export is read, not the report again.
        let exported = |p: &PathBuf| {
            TimelineFileKind::of(p) == Some(TimelineFileKind::NsysReport)
                && found.contains(&p.with_extension("sqlite"))
        };
        let keep: Vec<PathBuf> = found.iter().filter(|p| !exported(p)).cloned().collect();
        out.extend(keep);
    }
    // A file given and also found in a folder given is read once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    Ok(out)
}

/// Loads `inputs` onto one timeline, a group per file in the order given, aligned by their
/// session starts ([`super::merge`]). Files are loaded one after another and merged as they
/// come, so that only the merged timeline and one file are in memory at once. Each file is
/// part `i` of `n` of `progress`, named `reading file i of n: PATH`.
pub fn load_merged(
    inputs: &[MergeInput],
    progress: Progress<'_>,
) -> Result<LoadedTimeline, OpenError> {
    let mut merger = super::merge::Merger::default();
    let mut details = Vec::with_capacity(inputs.len());
    let mut nvtxt = Vec::new();
    let n = inputs.len();
    for (index, input) in inputs.iter().enumerate() {
        let name = format!(
            "reading file {} of {n}: {}",
            index + 1,
            input.path.display()
        );
        let part = progress.part(index, n).named(&name);
        part.report("files", 0, 1);
        let options = LoadOptions {
            progress: part,
            ..LoadOptions::default()
        };
        let loaded = load_timeline(&input.path, input.kind, &input.export, options, false)?;
        let label = super::merge::default_label(&loaded.timeline);
        merger.push(loaded.timeline, label);
        details.push(loaded.details);
        nvtxt.extend(loaded.nvtxt);
        super::release_free_memory();
    }
    Ok(LoadedTimeline {
        timeline: merger.finish(),
        details: DetailSource::Parts(details),
        nvtxt,
    })
}

/// A timeline with what goes with it.
#[derive(Debug)]
pub struct LoadedTimeline {
    /// The timeline.
    pub timeline: Timeline,
    /// Where event details come from.
    pub details: DetailSource,
    /// The NVTXT files on it (the file itself, or the files beside an export), in the order of
    /// their series keys, their events dropped (they are on the timeline): names and
    /// diagnostics for the per-file problem list.
    pub nvtxt: Vec<NvtxtDocument>,
}

/// Loads the timeline of `path` (of kind `kind`). `export` is the SQLite export to read for an
/// Nsight Systems report (the file itself for an export). NVTXT files beside an export are
/// merged onto it when `with_nvtxt` is set.
pub fn load_timeline(
    path: &Path,
    kind: TimelineFileKind,
    export: &Path,
    options: LoadOptions<'_>,
    with_nvtxt: bool,
) -> Result<LoadedTimeline, OpenError> {
    let progress = options.progress;
    let cancelled = || OpenError::Cancelled(path.to_path_buf());
    let strip = |mut doc: NvtxtDocument| {
        doc.events = Vec::new();
        doc
    };
    let loaded = match kind {
        TimelineFileKind::NsysExport | TimelineFileKind::NsysReport => {
            let timeline = super::nsys::load_with(export, options)?;
            let files = if with_nvtxt {
                nvtxt_beside(path)
            } else {
                Vec::new()
            };
            progress.check().map_err(|_| cancelled())?;
            let (timeline, docs) = merge_nvtxt_files(timeline, &files);
            LoadedTimeline {
                timeline,
                details: DetailSource::Export(export.to_path_buf()),
                nvtxt: docs,
            }
        }
        TimelineFileKind::Nvtxt => {
            let doc = super::nvtxt::load_with(path, progress).map_err(|e| match e {
                NvtxtError::Cancelled(_) => cancelled(),
                e => e.into(),
            })?;
            LoadedTimeline {
                timeline: super::nvtxt::timeline::timeline_of(&doc),
                details: DetailSource::None,
                nvtxt: vec![strip(doc)],
            }
        }
        TimelineFileKind::Atp => {
            let mut file = AtpFile::open_with(path, progress).map_err(|e| match e {
                AtpError::Cancelled(_) => cancelled(),
                e => e.into(),
            })?;
            progress.check().map_err(|_| cancelled())?;
            let timeline = super::atp::timeline::timeline_of(&file);
            // The timeline now carries each call's index and trace-line offset.
            file.free_timeline_records();
            super::release_free_memory();
            LoadedTimeline {
                timeline,
                details: DetailSource::Atp(Arc::new(file)),
                nvtxt: Vec::new(),
            }
        }
        TimelineFileKind::PerfettoTrace | TimelineFileKind::ChromeTrace => LoadedTimeline {
            timeline: match kind {
                TimelineFileKind::PerfettoTrace => super::export::read_perfetto::load(path)?,
                _ => super::export::read_chrome::load(path)?,
            },
            details: DetailSource::None,
            nvtxt: Vec::new(),
        },
    };
    progress.check().map_err(|_| cancelled())?;
    Ok(loaded)
}

/// A file that opens as a timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineFileKind {
    /// An Nsight Systems SQLite export.
    NsysExport,
    /// An Nsight Systems report (`.nsys-rep`, `.qdrep`), exported with `nsys` first.
    NsysReport,
    /// An NVTXT annotation file (`.nvtxt`).
    Nvtxt,
    /// An AMD CodeXL / RCP application trace (`.atp`).
    Atp,
    /// A Perfetto protobuf trace (`.perfetto-trace`, `.pftrace`).
    PerfettoTrace,
    /// A Chrome JSON trace.
    ChromeTrace,
}

impl TimelineFileKind {
    /// The kind of `path` by its name ([`FileKind::from_name`]); `None` for other files.
    pub fn of(path: &Path) -> Option<TimelineFileKind> {
        FileKind::from_name(path).and_then(TimelineFileKind::from_kind)
    }

    /// The timeline kind of a file kind; `None` for kinds not shown on a timeline.
    pub fn from_kind(kind: FileKind) -> Option<TimelineFileKind> {
        Some(match kind {
            FileKind::NsysExport => TimelineFileKind::NsysExport,
            FileKind::NsysReport => TimelineFileKind::NsysReport,
            FileKind::Nvtxt => TimelineFileKind::Nvtxt,
            FileKind::Atp => TimelineFileKind::Atp,
            FileKind::PerfettoTrace => TimelineFileKind::PerfettoTrace,
            FileKind::ChromeTrace => TimelineFileKind::ChromeTrace,
            _ => return None,
        })
    }

    /// Whether NVTXT files beside the file are loaded with it.
    pub fn takes_nvtxt(self) -> bool {
        matches!(
            self,
            TimelineFileKind::NsysExport | TimelineFileKind::NsysReport
        )
    }
}

/// The `.nvtxt` files (any case of the extension) in the folder of `file`, sorted by name.
pub fn nvtxt_beside(file: &Path) -> Vec<PathBuf> {
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| TimelineFileKind::of(p) == Some(TimelineFileKind::Nvtxt) && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Reads the NVTXT `files` and merges them onto `timeline` (file `i` keeps index `i` among
/// those read); a file that cannot be read becomes a load warning. Returns the timeline and
/// the files read, their events dropped (they are on the timeline).
pub fn merge_nvtxt_files(timeline: Timeline, files: &[PathBuf]) -> (Timeline, Vec<NvtxtDocument>) {
    let mut docs = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        match super::nvtxt::load(file) {
            Ok(doc) => docs.push(doc),
            Err(error) => unreadable.push((file.clone(), error.to_string())),
        }
    }
    let mut timeline = merge_nvtxt(timeline, &docs);
    super::release_free_memory();
    for (file, message) in unreadable {
        timeline.warnings.push(FileProblem::new(
            file,
            Problem::error(Location::Part("opening".into()), message),
        ));
    }
    for doc in &mut docs {
        doc.events = Vec::new();
    }
    (timeline, docs)
}

/// The timeline with the events of `docs` added (file `i` of `docs` keeps index `i`).
pub fn merge_nvtxt(timeline: Timeline, docs: &[NvtxtDocument]) -> Timeline {
    if docs.is_empty() {
        return timeline;
    }
    let placement = Placement {
        beside_export: true,
        session_start_utc_ns: timeline.session.start_utc_ns,
    };
    let mut b = TimelineBuilder::from_timeline(&timeline);
    // The builder holds its own copy: the old events go before the new ones are added.
    drop(timeline);
    for (index, doc) in docs.iter().enumerate() {
        add_document(&mut b, doc, index, &placement);
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::nvtxt;

    #[test]
    fn kinds_by_extension() {
        assert_eq!(
            TimelineFileKind::of(Path::new("a/B.NVTXT")),
            Some(TimelineFileKind::Nvtxt)
        );
        assert_eq!(
            TimelineFileKind::of(Path::new("s.atp")),
            Some(TimelineFileKind::Atp)
        );
        assert_eq!(TimelineFileKind::of(Path::new("x.ncu-rep")), None);
        assert!(TimelineFileKind::NsysReport.takes_nvtxt());
        assert!(!TimelineFileKind::Atp.takes_nvtxt());
    }

    #[test]
    fn merged_files_keep_the_export_and_add_their_rows() {
        let export =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nsys/synth_2k.sqlite");
        let base = crate::timeline::nsys::load(&export).unwrap();
        let before = base.event_count();
        let doc = nvtxt::parse(
            "side.nvtxt",
            b"TimeBase = Relative\n@Marker, Time, ProcessId, ThreadId, Message\nMarker, 5, 1, 2, \"m\"\n",
        );
        let merged = merge_nvtxt(base, std::slice::from_ref(&doc));
        assert_eq!(merged.event_count(), before + 1);
        let marker = merged
            .events()
            .find(|e| merged.name(e.name) == "m")
            .unwrap();
        assert_eq!(marker.start, 5);
        let (track, _) = merged.locate(marker.id).unwrap();
        let path = merged.track_path(track);
        assert!(path.starts_with("Machine 0"), "{path}");
        assert!(path.ends_with("NVTXT: side.nvtxt"), "{path}");
    }
}
