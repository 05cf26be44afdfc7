//! The NVTXT files of a timeline tab: the files beside an export (or the file opened alone),
//! their problems listed per file, File → Add NVTXT…, and live reload — a file that changes on
//! disk is read again and the timeline rebuilt on the `sightline-loader` thread, so a person
//! can edit annotations and watch them move.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use eframe::egui;

use super::loader::merge_files;
use crate::job::{Job, JobEvent};
use crate::widgets::dialog::{Dialog, take_answer};
use crate::widgets::problems::{ProblemList, RowText};
use sightline_model::section::FolderWatcher;
use sightline_model::timeline::nsys::stats::ReportOutcome;
use sightline_model::timeline::nvtxt::{NvtxtDocument, timeline_of};
use sightline_model::timeline::{Timeline, model_reports};

/// How long after an editor's save the file is read again.
const RELOAD_DEBOUNCE: Duration = Duration::from_millis(200);

/// A rebuilt timeline.
pub struct Rebuilt {
    /// The timeline with the files' current events.
    pub timeline: Arc<Timeline>,
    /// The files as read now (events dropped).
    pub docs: Vec<NvtxtDocument>,
    /// The summary tables, when the timeline is the NVTXT file alone (an export keeps its own).
    pub reports: Option<Vec<(String, ReportOutcome)>>,
}

/// The NVTXT files of one tab.
pub struct NvtxtFiles {
    /// An export's timeline without NVTXT (what the files are merged onto); `None` when the
    /// tab is one NVTXT file alone.
    base: Option<Arc<Timeline>>,
    /// The files, in series-key order.
    pub paths: Vec<PathBuf>,
    /// The files as last read (names and problems).
    pub docs: Vec<NvtxtDocument>,
    /// Whether a changed file is read again on its own.
    pub live_reload: bool,
    watcher: Option<FolderWatcher>,
    /// Whether `watcher` wakes the UI (set at the first poll after it was made: the waker
    /// comes with the poll).
    watcher_wakes: bool,
    /// Why the files cannot be watched, when they cannot.
    pub watch_error: Option<String>,
    job: Option<Job<Rebuilt, ()>>,
    dialog: Option<Dialog<Vec<PathBuf>>>,
    /// Reloads done (for the status line and tests).
    pub reloads: u64,
}

impl NvtxtFiles {
    /// The files of a freshly loaded tab: `base` for an export (`None` for a file alone), and
    /// the files read with it.
    pub fn new(base: Option<Arc<Timeline>>, docs: Vec<NvtxtDocument>) -> NvtxtFiles {
        let mut files = NvtxtFiles {
            base,
            paths: docs.iter().map(|d| d.path.clone()).collect(),
            docs,
            live_reload: true,
            watcher: None,
            watcher_wakes: false,
            watch_error: None,
            job: None,
            dialog: None,
            reloads: 0,
        };
        files.rewatch();
        files
    }

    /// Whether NVTXT files can be added (the tab shows an export).
    pub fn accepts_more(&self) -> bool {
        self.base.is_some()
    }

    /// Whether a rebuild is running.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Watches the folders of the files (not their subfolders).
    fn rewatch(&mut self) {
        self.watcher = None;
        self.watcher_wakes = false;
        self.watch_error = None;
        if !self.live_reload || self.paths.is_empty() {
            return;
        }
        let mut folders: Vec<PathBuf> = self
            .paths
            .iter()
            .map(|p| match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            })
            .collect();
        folders.sort();
        folders.dedup();
        match FolderWatcher::with_extensions(&folders, &["nvtxt"], false, RELOAD_DEBOUNCE) {
            Ok(w) => self.watcher = Some(w),
            Err(e) => self.watch_error = Some(e.to_string()),
        }
    }

    /// Adds `path` (when new) and rebuilds the timeline.
    pub fn add(&mut self, path: PathBuf, wake: impl Fn() + Send + Sync + 'static) {
        if !self.accepts_more() || self.paths.contains(&path) {
            return;
        }
        self.paths.push(path);
        self.rewatch();
        self.rebuild(wake);
    }

    /// Reads every file again and rebuilds the timeline on the loader thread.
    pub fn rebuild(&mut self, wake: impl Fn() + Send + Sync + 'static) {
        let base = self.base.clone();
        let paths = self.paths.clone();
        self.job = Some(Job::start(
            wake,
            |_| (),
            move |_| {
                Ok(match &base {
                    Some(base) => {
                        let (timeline, docs) = merge_files(base, &paths);
                        Rebuilt {
                            timeline,
                            docs,
                            reports: None,
                        }
                    }
                    None => {
                        let path = paths.first().ok_or(())?;
                        // Gone or unreadable while being saved: keep what is shown.
                        let mut doc =
                            sightline_model::timeline::nvtxt::load(path).map_err(|_| ())?;
                        let timeline = timeline_of(&doc);
                        let reports = model_reports(&timeline);
                        doc.events = Vec::new();
                        Rebuilt {
                            timeline: Arc::new(timeline),
                            docs: vec![doc],
                            reports: Some(reports),
                        }
                    }
                })
            },
        ));
    }

    /// Checks the watcher, the rebuild and the Add dialog; returns a rebuilt timeline to show.
    pub fn poll(&mut self, wake: impl Fn() + Send + Sync + Clone + 'static) -> Option<Rebuilt> {
        if let Some(picked) = take_answer(&mut self.dialog) {
            for path in picked.value {
                self.add(path, wake.clone());
            }
        }
        // A file saved while the window is idle must wake it: the watcher's thread requests
        // the repaint that brings the next poll.
        if let Some(watcher) = self.watcher.as_ref()
            && !self.watcher_wakes
        {
            watcher.set_waker(wake.clone());
            self.watcher_wakes = true;
        }
        let changed = self.watcher.as_ref().map(|w| w.poll()).unwrap_or_default();
        if changed
            .iter()
            .any(|c| self.paths.iter().any(|p| same_file(p, c)))
        {
            self.rebuild(wake.clone());
        }
        let event = self.job.as_ref()?.poll()?;
        self.job = None;
        // A file that could not be read (or a thread that could not start) keeps what is shown.
        let JobEvent::Done(rebuilt) = event else {
            return None;
        };
        self.docs = rebuilt.docs.clone();
        self.reloads += 1;
        Some(rebuilt)
    }

    /// Opens the file dialog for File → Add NVTXT… (on its own thread).
    pub fn add_dialog(&mut self, wake: impl Fn() + Send + 'static) {
        if self.dialog.is_some() {
            return;
        }
        let pick = || {
            rfd::FileDialog::new()
                .set_title("Add NVTXT files to the timeline")
                .add_filter("NVTXT annotations", &["nvtxt"])
                .pick_files()
                .unwrap_or_default()
        };
        self.dialog = Dialog::spawn("file", wake, pick).ok();
    }

    /// The per-file list: each file with its problems (`LINE:COL: error|warning: CLASS: ...`).
    pub fn ui(&mut self, ui: &mut egui::Ui) -> bool {
        let mut toggled = false;
        if self.docs.is_empty() && !self.accepts_more() {
            return false;
        }
        ui.separator();
        ui.horizontal(|ui| {
            ui.strong(format!("NVTXT files ({})", self.docs.len()));
            if self.busy() {
                ui.spinner();
            }
        });
        if ui
            .checkbox(&mut self.live_reload, "Reload when a file changes")
            .changed()
        {
            toggled = true;
        }
        if let Some(e) = &self.watch_error {
            ui.colored_label(ui.visuals().warn_fg_color, format!("cannot watch: {e}"));
        }
        for doc in &self.docs {
            let errors = doc.diagnostics.iter().filter(|d| d.is_error()).count();
            let warnings = doc.diagnostics.len() - errors;
            let header = format!(
                "{} — {} error(s), {} warning(s)",
                file_label(&doc.path),
                errors,
                warnings
            );
            egui::CollapsingHeader::new(header)
                .id_salt(("nvtxt-file", &doc.path))
                .default_open(errors > 0)
                .show(ui, |ui| {
                    ui.weak(doc.path.display().to_string());
                    if doc.diagnostics.is_empty() {
                        ui.label("No problems.");
                    }
                    ProblemList::new(&doc.diagnostics)
                        .text(RowText::Compiler)
                        .max_rows(500)
                        .show(ui);
                });
        }
        if toggled {
            self.rewatch();
        }
        toggled
    }
}

/// A file's name for display.
fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Whether two paths name the same file (the watcher may report an absolute path for a
/// relative one).
fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a.file_name() == b.file_name() && a.file_name().is_some(),
    }
}
