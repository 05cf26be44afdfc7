//! Baselines in the app: results added with "Add as baseline" (kernel list, Details page,
//! Summary page) from any open report, shown beside every report's Details page.
//!
//! Which result a baseline compares with follows the shown result ([`Pick`]): by default the
//! result of the baseline's report with the same kernel name and launch order (in the shown
//! report itself, the result added), or a result picked by hand in the bar. Results met that
//! way are decoded and resolved with their own report's sections once, then kept
//! ([`BaselineStore::compared_with`]); a result without a match is compared with nothing
//! (every value "N/A"), never with another kernel.
//!
//! The store ([`BaselineStore`]) belongs to the Nsight Compute kind's window-wide state
//! ([`super::state::NcuState`]), which the shell hands to every report document through
//! [`crate::document::Services`]; a baseline holds what it needs decoded and resolved (its
//! page indexed by section identifier and metric name, its duration, its report's kernel names
//! and the shared, read-only report), so no document ever reaches into another one. [`bar`]
//! draws the baselines bar (reorder, hide, rename, pick the result, remove, clear).
//!
//! Baselines are persisted with the session and can be saved to and loaded from a file
//! ([`persist`]): what each one is goes into the settings; at start (or when a file is loaded)
//! each is added as loading ([`BaselineStatus::Loading`]) and its report opened, its result
//! decoded and resolved and its report's kernel names and durations read on a background job
//! ([`BaselineStore::poll`] starts and polls them). One whose file is gone or no longer holds
//! its result stays in the bar with the reason ([`BaselineStatus::Failed`]) until removed.

pub mod bar;
pub mod compare;
pub mod persist;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui::Color32;
use sightline_model::ncu::{Action, LaunchRow, NameBase, Report};
use sightline_model::section::{
    BaselineEntries, KernelDetails, match_all, match_by_name, resolve_action,
};

use eframe::egui;

use self::persist::{BaselineSpec, Resolver, RestoreJob, start_restore};
pub use self::persist::{OpenReport, Opened};
use super::section_state::SectionState;
use crate::job::JobEvent;
use crate::widgets::plot::palette;

/// Which result of its report a baseline compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The default: the result of the baseline's report with the shown result's kernel name
    /// and launch order (in the shown report itself, the result added).
    Matched,
    /// A result picked by hand (its index).
    Result(usize),
}

/// A result's indexed page, or why it could not be decoded.
type Resolved = Result<Arc<BaselineEntries>, String>;

/// How many resolved results a baseline keeps (the last ones compared with).
const RESOLVED_KEPT: usize = 8;

/// Whether a baseline's report was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaselineStatus {
    /// Its result is decoded and resolved: it compares.
    Ready,
    /// Restored from the settings or a file: its report is being read in the background.
    Loading,
    /// Its report could not be read (the file is gone, it no longer holds the result...): why,
    /// naming the file.
    Failed(String),
}

/// One baseline.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// Unique in the store.
    pub id: u64,
    /// Its name (editable): `kernel [index] (file)` at first.
    pub name: String,
    /// Its colour in the bar and on the Details page.
    pub color: Color32,
    /// Whether it is shown.
    pub visible: bool,
    /// The report it comes from.
    pub report: PathBuf,
    /// Its index in that report: the result added.
    pub kernel: usize,
    /// Which result is compared with (matched by default, or picked in the bar).
    pub pick: Pick,
    /// Whether its report was read (a restored baseline is loading until then).
    pub status: BaselineStatus,
    /// Its Details page, indexed by section identifier and metric name.
    pub entries: Arc<BaselineEntries>,
    /// The sections generation `entries` was resolved under (after a section reload, the
    /// result is resolved again like any other).
    generation: u64,
    /// The function name of each result of its report (matching, the picker).
    pub names: Arc<Vec<String>>,
    /// The `gpu__time_duration.sum` of each result of its report (the Summary page's
    /// differences), as its kernel list read them.
    pub durations: Arc<Vec<Option<f64>>>,
    /// Its report, to decode the other results matching and picking lead to.
    source: Option<Arc<Report>>,
    /// Other results of its report met so far: index → (sections generation, page or why it
    /// did not decode).
    resolved: HashMap<usize, (u64, Resolved)>,
}

impl Baseline {
    /// What it is, to persist.
    pub fn spec(&self) -> BaselineSpec {
        let [r, g, b, _] = self.color.to_array();
        BaselineSpec {
            // Absolute, so that it is found again whatever the next run's working folder.
            report: std::path::absolute(&self.report).unwrap_or_else(|_| self.report.clone()),
            result: self.kernel,
            name: self.name.clone(),
            color: [r, g, b],
            visible: self.visible,
            pick: match self.pick {
                Pick::Matched => None,
                Pick::Result(index) => Some(index),
            },
        }
    }

    /// Its report, once read (the tab's own when it was added from, or restored beside, a tab
    /// of that report).
    pub fn source(&self) -> Option<&Arc<Report>> {
        self.source.as_ref()
    }

    /// Whether it compares: shown, and its report read.
    pub fn compares(&self) -> bool {
        self.visible && self.status == BaselineStatus::Ready
    }

    /// The result of its report compared with result `index` of report `shown` whose function
    /// names are `names`; `None` when nothing matches.
    pub fn result_for<S: AsRef<str>>(
        &self,
        shown: &Path,
        names: &[S],
        index: usize,
    ) -> Option<usize> {
        match self.pick {
            Pick::Result(picked) => Some(picked),
            // In its own report, matching would find the shown result itself.
            Pick::Matched if same_file(shown, &self.report) => Some(self.kernel),
            Pick::Matched => match_by_name(names, index, &self.names),
        }
    }

    /// [`Baseline::result_for`] for every result of report `shown` (function names `names`).
    pub fn results_for<S: AsRef<str>>(&self, shown: &Path, names: &[S]) -> Vec<Option<usize>> {
        match self.pick {
            Pick::Result(picked) => vec![Some(picked); names.len()],
            Pick::Matched if same_file(shown, &self.report) => vec![Some(self.kernel); names.len()],
            Pick::Matched => match_all(names, &self.names),
        }
    }

    /// The page of result `index` of its report, indexed (decoded and resolved with its own
    /// report's sections the first time, then kept — a result that does not decode too, so
    /// that it is not decoded again every frame).
    fn entries_of(&mut self, index: usize, sections: &SectionState) -> Resolved {
        if index == self.kernel && self.generation == sections.generation {
            return Ok(Arc::clone(&self.entries));
        }
        if let Some((generation, entries)) = self.resolved.get(&index)
            && *generation == sections.generation
        {
            return entries.clone();
        }
        let entries = match &self.source {
            None => Err(format!("{} is not open", self.report.display())),
            Some(report) => report
                .action(index)
                .map(|action| Arc::new(BaselineEntries::of(&resolve_page(&action, sections))))
                .map_err(|e| format!("{}: result {index}: {e}", self.report.display())),
        };
        if self.resolved.len() >= RESOLVED_KEPT {
            self.resolved.clear();
        }
        self.resolved
            .insert(index, (sections.generation, entries.clone()));
        entries
    }
}

/// Whether `a` and `b` name the same file (a restored baseline's report path is absolute; the
/// tab's may be relative to the working folder).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || (a.is_absolute() != b.is_absolute()
            && std::path::absolute(a).ok() == std::path::absolute(b).ok())
}

/// `action`'s Details page resolved with its own report's sections (as its tab resolves it).
pub fn resolve_page(action: &Action, sections: &SectionState) -> KernelDetails {
    let (set, _) = sections.sections_for(action);
    if sections.disabled.is_empty() {
        resolve_action(action, &set)
    } else {
        resolve_action(action, &set.without(&sections.disabled))
    }
}

/// A shown baseline as compared with one result: what the Details page draws.
#[derive(Debug, Clone)]
pub struct ComparedBaseline {
    /// The baseline's id in the store.
    pub id: u64,
    /// Its name.
    pub name: String,
    /// Its colour.
    pub color: Color32,
    /// Its report.
    pub report: PathBuf,
    /// The result compared with; `None`: no result matches (every value "N/A").
    pub result: Option<usize>,
    /// Why there is no result (no match, a decoding error).
    pub note: Option<String>,
    /// That result's page, indexed (empty without a result).
    pub entries: Arc<BaselineEntries>,
}

impl ComparedBaseline {
    /// Where the compared values come from: `report result N`, or why there are none.
    pub fn origin(&self) -> String {
        match (self.result, &self.note) {
            (Some(result), _) => format!("{} result {result}", self.report.display()),
            (None, Some(note)) => note.clone(),
            (None, None) => format!("{}: no result", self.report.display()),
        }
    }
}

/// Why a baseline has no result for result `index` of a report with function names `names`.
fn no_match<S: AsRef<str>>(report: &Path, names: &[S], index: usize) -> String {
    let Some(name) = names.get(index).map(AsRef::as_ref) else {
        return format!("{}: no matching result", report.display());
    };
    let launch = names[..index].iter().filter(|n| n.as_ref() == name).count() + 1;
    format!(
        "{}: no result named {name} at launch {launch} (pick one in the baselines bar)",
        report.display()
    )
}

/// The baselines of the window, in order (the first shown one is what differences are
/// computed against).
#[derive(Default)]
pub struct BaselineStore {
    /// The baselines.
    pub list: Vec<Baseline>,
    next_id: u64,
    /// How many colours were handed out (each new baseline takes the next one).
    colours: usize,
    /// The jobs restoring baselines, by baseline id.
    jobs: Vec<(u64, RestoreJob)>,
}

impl std::fmt::Debug for BaselineStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BaselineStore")
            .field("list", &self.list)
            .field("restoring", &self.jobs.len())
            .finish_non_exhaustive()
    }
}

impl BaselineStore {
    /// Adds result `action` of `report` with its `page` resolved under sections generation
    /// `generation`; `launches` are the report's results as its kernel list read them (names
    /// and durations, to match other results) and `source` the report; returns its id.
    pub fn add(
        &mut self,
        report: &Path,
        action: &Action,
        (page, generation): (&KernelDetails, u64),
        launches: &[LaunchRow],
        source: Option<Arc<Report>>,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let file = report.file_name().map_or_else(
            || report.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let color = palette(self.colours);
        self.colours += 1;
        self.list.push(Baseline {
            id,
            name: format!(
                "{} [{}] ({file})",
                action.name(NameBase::Function),
                action.index()
            ),
            color,
            visible: true,
            report: report.to_path_buf(),
            kernel: action.index(),
            pick: Pick::Matched,
            status: BaselineStatus::Ready,
            entries: Arc::new(BaselineEntries::of(page)),
            generation,
            names: Arc::new(launches.iter().map(|l| l.name.clone()).collect()),
            durations: Arc::new(launches.iter().map(|l| l.duration_ns).collect()),
            source,
            resolved: HashMap::new(),
        });
        id
    }

    /// Adds the baselines `specs` describe, as loading (their reports are read by jobs that
    /// [`BaselineStore::poll`] starts); returns how many.
    pub fn restore(&mut self, specs: &[BaselineSpec]) -> usize {
        for spec in specs {
            let id = self.next_id;
            self.next_id += 1;
            self.colours += 1;
            self.list.push(Baseline {
                id,
                name: spec.name.clone(),
                color: spec.color32(),
                visible: spec.visible,
                report: spec.report.clone(),
                kernel: spec.result,
                pick: spec.pick.map_or(Pick::Matched, Pick::Result),
                status: BaselineStatus::Loading,
                entries: Arc::default(),
                generation: 0,
                names: Arc::default(),
                durations: Arc::default(),
                source: None,
                resolved: HashMap::new(),
            });
        }
        specs.len()
    }

    /// What every baseline is, in order (to persist).
    pub fn specs(&self) -> Vec<BaselineSpec> {
        self.list.iter().map(Baseline::spec).collect()
    }

    /// Saves the baselines to the baselines file `path`.
    pub fn save_file(&self, path: &Path) -> Result<(), persist::BaselinesFileError> {
        persist::write_file(path, &self.specs())
    }

    /// Adds the baselines of the baselines file `path` after the current ones (loading);
    /// returns how many.
    pub fn load_file(&mut self, path: &Path) -> Result<usize, persist::BaselinesFileError> {
        let specs = persist::read_file(path)?;
        Ok(self.restore(&specs))
    }

    /// Whether a baseline is still being restored.
    pub fn restoring(&self) -> bool {
        self.list
            .iter()
            .any(|b| b.status == BaselineStatus::Loading)
    }

    /// Starts a job for every loading baseline without one, and applies what the jobs sent;
    /// `ctx` is repainted when one ends. `open` says whether a baseline's report is open in a
    /// tab: its report is used rather than read again (and a baseline waits for a tab still
    /// reading it).
    pub fn poll(
        &mut self,
        ctx: &egui::Context,
        sections: &SectionState,
        open: &dyn Fn(&Path) -> Opened,
    ) {
        // Jobs of removed baselines are dropped (which cancels them).
        let list = &self.list;
        self.jobs.retain(|(id, _)| {
            list.iter()
                .any(|b| b.id == *id && b.status == BaselineStatus::Loading)
        });
        let mut waiting = false;
        for baseline in &self.list {
            if baseline.status == BaselineStatus::Loading
                && !self.jobs.iter().any(|(id, _)| *id == baseline.id)
            {
                let tab = match open(&baseline.report) {
                    Opened::Loading => {
                        waiting = true;
                        continue;
                    }
                    Opened::Yes(tab) => Some(tab),
                    Opened::No => None,
                };
                let repaint = ctx.clone();
                let job = start_restore(&baseline.spec(), Resolver::of(sections), tab, move || {
                    repaint.request_repaint()
                });
                self.jobs.push((baseline.id, job));
            }
        }
        // The tab's load may end in a frame that polled the baselines first: look again soon
        // rather than wait for the next input.
        if waiting {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        let mut ended = Vec::new();
        for (id, job) in &self.jobs {
            let mut outcome = None;
            while let Some(event) = job.poll() {
                match event {
                    JobEvent::Done(restored) => outcome = Some(Ok(restored)),
                    JobEvent::Failed(why) => outcome = Some(Err(why)),
                    JobEvent::Progress(..) => {}
                    JobEvent::Sent(never) => match never {},
                }
            }
            // A thread that ended without a word panicked.
            if outcome.is_none() && !job.is_running() {
                outcome = Some(Err(format!(
                    "restoring the baseline stopped unexpectedly (baseline {id})"
                )));
            }
            if let Some(outcome) = outcome {
                ended.push((*id, outcome));
            }
        }
        for (id, outcome) in ended {
            self.jobs.retain(|(j, _)| *j != id);
            let Some(baseline) = self.list.iter_mut().find(|b| b.id == id) else {
                continue;
            };
            match outcome {
                Ok(restored) => {
                    baseline.entries = restored.entries;
                    baseline.generation = restored.generation;
                    baseline.names = Arc::new(restored.names);
                    baseline.durations = Arc::new(restored.durations);
                    baseline.source = Some(restored.report);
                    baseline.resolved.clear();
                    baseline.status = BaselineStatus::Ready;
                }
                Err(why) => baseline.status = BaselineStatus::Failed(why),
            }
        }
    }

    /// The shown baselines whose report was read, in order (a loading or failed one is in the
    /// bar only).
    pub fn shown(&self) -> Vec<&Baseline> {
        self.list.iter().filter(|b| b.compares()).collect()
    }

    /// The shown baselines compared with result `index` of report `shown` (function names
    /// `names`): each one's matched or picked result, decoded and resolved when first met.
    pub fn compared_with<S: AsRef<str>>(
        &mut self,
        shown: &Path,
        names: &[S],
        index: usize,
        sections: &SectionState,
    ) -> Vec<ComparedBaseline> {
        self.list
            .iter_mut()
            .filter(|b| b.compares())
            .map(|baseline| {
                let result = baseline.result_for(shown, names, index);
                let (result, note, entries) = match result {
                    Some(result) => match baseline.entries_of(result, sections) {
                        Ok(entries) => (Some(result), None, entries),
                        Err(error) => (None, Some(error), Arc::default()),
                    },
                    None => (
                        None,
                        Some(no_match(&baseline.report, names, index)),
                        Arc::default(),
                    ),
                };
                ComparedBaseline {
                    id: baseline.id,
                    name: baseline.name.clone(),
                    color: baseline.color,
                    report: baseline.report.clone(),
                    result,
                    note,
                    entries,
                }
            })
            .collect()
    }

    /// Compares baseline `id` with result `pick` of its report.
    pub fn set_pick(&mut self, id: u64, pick: Pick) {
        if let Some(baseline) = self.list.iter_mut().find(|b| b.id == id) {
            baseline.pick = pick;
        }
    }

    /// Removes baseline `id`.
    pub fn remove(&mut self, id: u64) {
        self.list.retain(|b| b.id != id);
    }

    /// Moves baseline `id` one place towards the front (`up`) or the back.
    pub fn move_by(&mut self, id: u64, up: bool) {
        let Some(at) = self.list.iter().position(|b| b.id == id) else {
            return;
        };
        let to = if up {
            at.checked_sub(1)
        } else {
            Some(at + 1).filter(|&t| t < self.list.len())
        };
        if let Some(to) = to {
            self.list.swap(at, to);
        }
    }

    /// Removes every baseline.
    pub fn clear(&mut self) {
        self.list.clear();
    }
}
