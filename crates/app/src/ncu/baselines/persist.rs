//! Baselines kept between runs and shared as files: what each one is ([`BaselineSpec`]: its
//! report, its result, its name as edited, colour, shown or hidden, the result picked) — in the
//! settings ([`crate::sightline_app::Settings::baselines`]) and in the small JSON files of
//! File → Baselines → Save baselines… / Load baselines…. A restored baseline is opened,
//! decoded and resolved on a background job ([`start_restore`]), never on the UI thread.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui::Color32;
use sightline_model::ncu::{Action, NameBase, ReadError, Report, UNREADABLE_NAME};
use sightline_model::section::{BaselineEntries, KernelDetails, SectionSet, resolve_action};

use super::super::section_state::{SectionSource, SectionState};
use crate::job::Job;

/// The thread a baseline is restored on.
pub const RESTORE_THREAD: &str = "sightline-baseline";

/// What a baseline is, without what was decoded from its report.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BaselineSpec {
    /// The report it comes from.
    pub report: PathBuf,
    /// The result added (its index in that report).
    pub result: usize,
    /// Its name, as edited.
    pub name: String,
    /// Its colour, `[r, g, b]`.
    pub color: [u8; 3],
    /// Whether it is shown.
    #[serde(default = "shown")]
    pub visible: bool,
    /// The result picked in the bar (`None`: matched by kernel name and launch order).
    #[serde(default)]
    pub pick: Option<usize>,
}

fn shown() -> bool {
    true
}

impl BaselineSpec {
    /// The colour as egui's.
    pub fn color32(&self) -> Color32 {
        let [r, g, b] = self.color;
        Color32::from_rgb(r, g, b)
    }
}

/// A baselines file: a format tag and the descriptions, in the bar's order.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct BaselinesFile {
    format: String,
    baselines: Vec<BaselineSpec>,
}

/// The format tag of baselines files.
const FORMAT: &str = "sightline-baselines/1";

/// Why a baselines file could not be written or read. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum BaselinesFileError {
    /// The baselines could not be serialized.
    #[error("{}: {error}", path.display())]
    Serialize {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        error: serde_json::Error,
    },
    /// The file could not be written.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The file could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// The file is not a baselines file: reading stopped at `line`:`column`.
    #[error("{}:{line}:{column}: not a baselines file: {what}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Where reading stopped.
        line: usize,
        /// Where reading stopped.
        column: usize,
        /// What was wrong there.
        what: String,
    },
    /// The file has another format tag.
    #[error("{}: not a baselines file: format {:?}, expected {:?}", .path.display(), .format, FORMAT)]
    Format {
        /// The file.
        path: PathBuf,
        /// The format tag it has.
        format: String,
    },
}

/// Writes `specs` to `path` as a baselines file.
pub fn write_file(path: &Path, specs: &[BaselineSpec]) -> Result<(), BaselinesFileError> {
    let file = BaselinesFile {
        format: FORMAT.to_owned(),
        baselines: specs.to_vec(),
    };
    let path_buf = || path.to_owned();
    let text =
        serde_json::to_string_pretty(&file).map_err(|error| BaselinesFileError::Serialize {
            path: path_buf(),
            error,
        })?;
    std::fs::write(path, text + "\n").map_err(|error| BaselinesFileError::Write {
        path: path_buf(),
        error,
    })
}

/// Reads the baselines file `path`; an error names the file and, for a file that is not one,
/// the line and column where reading stopped (`file:line:column: what`).
pub fn read_file(path: &Path) -> Result<Vec<BaselineSpec>, BaselinesFileError> {
    let text = std::fs::read_to_string(path).map_err(|error| BaselinesFileError::Read {
        path: path.to_owned(),
        error,
    })?;
    let file: BaselinesFile = serde_json::from_str(&text).map_err(|error| {
        let (line, column) = (error.line(), error.column());
        let message = error.to_string();
        let what = message
            .strip_suffix(&format!(" at line {line} column {column}"))
            .unwrap_or(&message)
            .to_owned();
        BaselinesFileError::Syntax {
            path: path.to_owned(),
            line,
            column,
            what,
        }
    })?;
    if file.format != FORMAT {
        return Err(BaselinesFileError::Format {
            path: path.to_owned(),
            format: file.format,
        });
    }
    Ok(file.baselines)
}

/// What resolving a page needs of the sections, taken from the [`SectionState`] so that a
/// background job can resolve with it.
#[derive(Clone)]
pub struct Resolver {
    set: Arc<SectionSet>,
    disabled: BTreeSet<String>,
    prefer_embedded: bool,
    /// The sections generation it was taken at.
    pub generation: u64,
}

impl Resolver {
    /// The sections as they are now.
    pub fn of(sections: &SectionState) -> Resolver {
        Resolver {
            set: Arc::clone(&sections.set),
            disabled: sections.disabled.clone(),
            prefer_embedded: sections.prefer_embedded,
            generation: sections.generation,
        }
    }

    /// `action`'s Details page, as [`super::resolve_page`] resolves it.
    pub fn resolve(&self, action: &Action) -> KernelDetails {
        let set = match SectionSource::for_action(action, self.prefer_embedded) {
            SectionSource::Embedded => match action.sections() {
                Ok(embedded) => Arc::new(SectionSet::from_embedded(embedded)),
                Err(_) => Arc::clone(&self.set),
            },
            SectionSource::Folders => Arc::clone(&self.set),
        };
        if self.disabled.is_empty() {
            resolve_action(action, &set)
        } else {
            resolve_action(action, &set.without(&self.disabled))
        }
    }
}

/// A restored baseline's report, decoded.
pub struct Restored {
    /// The report.
    pub report: Arc<Report>,
    /// The added result's page, indexed.
    pub entries: Arc<BaselineEntries>,
    /// The sections generation it was resolved under.
    pub generation: u64,
    /// The function name of each result (as the kernel list reads them).
    pub names: Vec<String>,
    /// The duration of each result.
    pub durations: Vec<Option<f64>>,
}

/// The job restoring one baseline.
pub type RestoreJob = Job<Restored, String>;

/// A report already open in a tab, with its kernel list: a restored baseline of the same file
/// uses it instead of reading the file again.
#[derive(Clone)]
pub struct OpenReport {
    /// The tab's report.
    pub report: Arc<Report>,
    /// The function name of each result (the tab's kernel list).
    pub names: Vec<String>,
    /// The duration of each result (the tab's kernel list).
    pub durations: Vec<Option<f64>>,
}

/// Whether a baseline's report is open in a tab.
pub enum Opened {
    /// No tab shows it.
    No,
    /// A tab is still reading it (the baseline waits for it rather than read it twice).
    Loading,
    /// A tab shows it.
    Yes(OpenReport),
}

/// Decodes and resolves `spec`'s result on a [`RESTORE_THREAD`] thread, from `open` (a tab's
/// report of the same file) or else from the file; `wake` requests a repaint. The error says
/// which file and why.
pub fn start_restore(
    spec: &BaselineSpec,
    resolver: Resolver,
    open: Option<OpenReport>,
    wake: impl Fn() + Send + Sync + 'static,
) -> RestoreJob {
    let (path, index) = (spec.report.clone(), spec.result);
    let shown = path.display().to_string();
    Job::start_named(
        RESTORE_THREAD,
        wake,
        move |error| format!("{shown}: cannot start restoring the baseline: {error}"),
        move |ctx| {
            restore(&path, index, &resolver, open, &|| ctx.is_cancelled())
                .map_err(|error| error.to_string())
        },
    )
}

/// Why a baseline could not be restored. Every variant names the report file.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The report file no longer exists.
    #[error("{}: the file is gone", path.display())]
    Gone {
        /// The report.
        path: PathBuf,
    },
    /// The report cannot be opened.
    #[error("{}: cannot open it: {error}", path.display())]
    Open {
        /// The report.
        path: PathBuf,
        /// Why.
        error: ReadError,
    },
    /// The report has fewer results than the baseline's index.
    #[error("{}: no longer holds result {index} (it has {total} result(s))", path.display())]
    NoResult {
        /// The report.
        path: PathBuf,
        /// The baseline's result.
        index: usize,
        /// How many results the report has.
        total: usize,
    },
    /// The result cannot be decoded.
    #[error("{}: result {index} cannot be decoded: {error}", path.display())]
    Decode {
        /// The report.
        path: PathBuf,
        /// The baseline's result.
        index: usize,
        /// Why.
        error: ReadError,
    },
    /// The caller cancelled.
    #[error("{}: restoring cancelled", path.display())]
    Cancelled {
        /// The report.
        path: PathBuf,
    },
}

/// The work of [`start_restore`] (public for tests and tools: it runs on any thread).
pub fn restore(
    path: &Path,
    index: usize,
    resolver: &Resolver,
    open: Option<OpenReport>,
    cancelled: &dyn Fn() -> bool,
) -> Result<Restored, RestoreError> {
    let path = || path.to_owned();
    let report = match &open {
        Some(open) => open.report.clone(),
        None if !path().exists() => return Err(RestoreError::Gone { path: path() }),
        None => Arc::new(Report::open(path()).map_err(|error| RestoreError::Open {
            path: path(),
            error,
        })?),
    };
    let total = report.num_actions();
    if index >= total {
        return Err(RestoreError::NoResult {
            path: path(),
            index,
            total,
        });
    }
    let action = report.action(index).map_err(|error| RestoreError::Decode {
        path: path(),
        index,
        error,
    })?;
    let entries = Arc::new(BaselineEntries::of(&resolver.resolve(&action)));
    let (names, durations) = match open {
        Some(open) => (open.names, open.durations),
        None => kernel_list(&report, &action, cancelled)
            .map_err(|()| RestoreError::Cancelled { path: path() })?,
    };
    Ok(Restored {
        report,
        entries,
        generation: resolver.generation,
        names,
        durations,
    })
}

/// The function name and duration of every result of `report` (`action` is the one already
/// decoded); `Err` when `cancelled`.
fn kernel_list(
    report: &Report,
    action: &Action,
    cancelled: &dyn Fn() -> bool,
) -> Result<(Vec<String>, Vec<Option<f64>>), ()> {
    let total = report.num_actions();
    let mut names = Vec::with_capacity(total);
    let mut durations = Vec::with_capacity(total);
    for i in 0..total {
        if cancelled() {
            return Err(());
        }
        let decoded = if i == action.index() {
            Ok(None)
        } else {
            report.action(i).map(Some)
        };
        match decoded {
            Ok(other) => {
                let action = other.as_ref().unwrap_or(action);
                names.push(action.name(NameBase::Function).to_owned());
                durations.push(
                    action
                        .metric("gpu__time_duration.sum")
                        .and_then(|m| m.value().as_f64()),
                );
            }
            Err(_) => {
                names.push(UNREADABLE_NAME.to_owned());
                durations.push(None);
            }
        }
    }
    Ok((names, durations))
}
