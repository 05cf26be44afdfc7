//! Several files on one timeline (the ranks or nodes of a job): loading them on the loader
//! thread into one merged timeline ([`sightline_model::timeline::merge`]), the Files panel
//! (each file's group name, its offset — dragged or typed — and "align on" an event name for
//! files without a common clock), and which file the summary tables and reports are over (all
//! of them at once through a merged export, or one).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use eframe::egui;

use super::view::format_duration;
use sightline_model::core::Progress;
use sightline_model::timeline::Timeline;
use sightline_model::timeline::nsys::MergedExport;
use sightline_model::timeline::nsys::stats::run_summary_tables;
use sightline_model::timeline::nsys::{default_cache_dir, export_report};
use sightline_model::timeline::{
    DetailSource, MergeInput, TimelineFileKind, load_merged, timeline_inputs,
};

use super::canvas::Canvas;
use super::details::Selection;
use super::loader::{Finished, LoadError, Loaded, Reports, TimelineLoadJob};
use super::search::Search;
use super::stats_panel::StatsPanel;
use super::{DOCUMENT, TimelineDoc};
use crate::job::{Job, JobCtx, Polled, poll_job};
use crate::lifecycle::STARTING;
use crate::widgets::dialog::Dialog;

impl TimelineDoc {
    /// The tab's title: the first file's name, and how many more there are.
    pub(super) fn merged_title(&self) -> String {
        let path = self.load.path();
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        match self.files.len() {
            0 | 1 => name,
            n => format!("{name} + {} more", n - 1),
        }
    }

    /// Adds `paths` to the files on this timeline and reads them all again (see
    /// [`crate::document::Document::add_files`]).
    pub(super) fn add_more_files(&mut self, paths: Vec<PathBuf>) -> bool {
        if paths.is_empty() {
            return true;
        }
        let mut all = if self.files.is_empty() {
            vec![self.load.path().to_path_buf()]
        } else {
            self.files.clone()
        };
        all.extend(
            paths
                .into_iter()
                .filter(|p| !self.files.contains(p) && p != self.load.path()),
        );
        self.merge_files(all);
        true
    }

    /// Starts loading `paths` (files or folders) onto one timeline: a group per file, aligned
    /// by their session starts.
    pub fn open_merged(
        paths: Vec<PathBuf>,
        nsys: Option<PathBuf>,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> TimelineDoc {
        let first = paths.first().cloned().unwrap_or_default();
        let mut doc = TimelineDoc::idle(first, nsys, Arc::new(wake));
        doc.merge_files(paths);
        doc
    }

    /// Reads `paths` onto one timeline from the start (the current timeline goes; the group
    /// names and offsets given by hand are kept by file).
    pub(super) fn merge_files(&mut self, paths: Vec<PathBuf>) {
        self.files = paths;
        self.load.set_loaded(None);
        self.nvtxt = None;
        self.selection = Selection::default();
        self.search = Search::default();
        self.stats = StatsPanel::default();
        self.canvas = Canvas::default();
        self.files_panel.reset();
        crate::lifecycle::start(self, STARTING);
    }

    /// Opens the file dialog of File → Add to timeline…; the files picked are added when the
    /// dialog closes (see [`Document::add_files`]).
    pub fn add_files_dialog(&mut self) {
        if self.add_dialog.is_some() {
            return;
        }
        let pick = || {
            let exts: Vec<&str> = DOCUMENT
                .file_kinds
                .iter()
                .flat_map(|k| k.extensions().iter().copied())
                .collect();
            rfd::FileDialog::new()
                .set_title("Add files to the timeline")
                .add_filter("Timelines (exports, reports, NVTXT, CodeXL traces)", &exts)
                .pick_files()
                .unwrap_or_default()
        };
        self.add_dialog = Dialog::spawn("file", self.waker(), pick).ok();
    }

    /// Applies a change of the Files panel: a group renamed, a file moved or the files lined up
    /// (on the timeline, kept by file for a reload), or the summary tables over another scope.
    pub(super) fn apply_file_change(
        &mut self,
        change: FileChange,
        details: &DetailSource,
        merged: Option<&sightline_model::timeline::nsys::MergedExport>,
    ) {
        if let FileChange::Scope(scope) = change {
            if let Some(export) = scope_export(details, merged, scope) {
                let wake = self.waker();
                self.files_panel.compute_scope(scope, export, wake);
            }
            return;
        }
        let Some(loaded) = self.load.loaded_mut() else {
            return;
        };
        let timeline = Arc::make_mut(&mut loaded.timeline);
        let source = |k: usize| timeline.parts().get(k).map(|p| p.source.clone());
        match change {
            FileChange::Rename(k, label) => {
                if let Some(path) = source(k) {
                    self.edits.labels.insert(path, label.clone());
                }
                let _ = timeline.rename_part(k, label);
            }
            FileChange::Offset(k, ns) => {
                if let Some(path) = source(k) {
                    self.edits.offsets.insert(path, ns);
                }
                let _ = timeline.set_user_offset(k, ns);
            }
            FileChange::AlignOn(name, nth) => {
                let what = match nth {
                    0 => format!("\"{name}\""),
                    n => format!("\"{name}\" (iteration {})", n + 1),
                };
                self.files_panel.align_message = Some(match timeline.align_on_nth(&name, nth) {
                    Ok(moved) if moved.is_empty() => format!("{what}: nothing to move"),
                    Ok(moved) => {
                        for &(k, _) in &moved {
                            let part = &timeline.parts()[k];
                            self.edits
                                .offsets
                                .insert(part.source.clone(), part.user_offset_ns());
                        }
                        format!("lined up on {what}: {} file(s) moved", moved.len())
                    }
                    Err(error) => error.to_string(),
                });
            }
            FileChange::Scope(_) => {}
        }
        // Times or names changed: the selection's range statistics and the drawn lines.
        let timeline = loaded.timeline.clone();
        let range = self.selection.range;
        self.selection.set_range(&timeline, range);
        self.canvas.invalidate_lines();
    }
}

/// Starts loading `paths` (files, or folders of them) onto one timeline on a new
/// `sightline-loader` thread; `wake` requests a repaint.
pub fn start_merged_load(
    paths: Vec<PathBuf>,
    nsys: Option<PathBuf>,
    wake: impl Fn() + Send + Sync + 'static,
) -> TimelineLoadJob {
    let shown = paths
        .first()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    Job::start(
        wake,
        move |source| LoadError::Spawn { shown, source },
        move |ctx| run(&paths, nsys.as_deref(), ctx),
    )
}

/// The loader thread's work: every file read and merged, the timeline sent, then the summary
/// tables over all files.
fn run(
    paths: &[PathBuf],
    nsys: Option<&Path>,
    ctx: &JobCtx<Box<Loaded>>,
) -> Result<Finished, LoadError> {
    let started = Instant::now();
    let files = timeline_inputs(paths)?;
    if files.is_empty() {
        return Err(LoadError::NothingToShow(paths.to_vec()));
    }
    let n = files.len();
    let mut inputs = Vec::with_capacity(n);
    for file in &files {
        let kind = TimelineFileKind::of(file).unwrap_or(TimelineFileKind::NsysExport);
        let export = if kind == TimelineFileKind::NsysReport {
            ctx.progress_now(0.0, &format!("exporting {} with nsys", file.display()));
            export_report(file, nsys, &default_cache_dir(), Progress::new(ctx))?
        } else {
            file.clone()
        };
        inputs.push(MergeInput {
            path: file.clone(),
            kind,
            export,
        });
    }
    let loaded = load_merged(&inputs, Progress::new(ctx))?;
    let (message, timeline) = Loaded::whole(loaded, started, None);
    ctx.send(Box::new(message));
    let exports: Vec<PathBuf> = inputs
        .iter()
        .filter(|i| {
            matches!(
                i.kind,
                TimelineFileKind::NsysExport | TimelineFileKind::NsysReport
            )
        })
        .map(|i| i.export.clone())
        .collect();
    if exports.len() < inputs.len() || exports.is_empty() {
        // Not every file is an export: the tables Sightline computes from the timeline.
        return Ok(Finished::from_timeline(&timeline));
    }
    ctx.progress_now(1.0, "putting the exports together for the summary tables");
    let merged = MergedExport::build(&exports)?;
    if ctx.is_cancelled() {
        return Err(LoadError::Cancelled(None));
    }
    let reports = reports_of(merged.path());
    Ok(Finished {
        reports,
        merged: Some(Arc::new(merged)),
    })
}

/// The default summary tables of `export` (a failing report keeps its error).
fn reports_of(export: &Path) -> Reports {
    match run_summary_tables(export) {
        Ok(each) => each,
        Err(error) => vec![("summary".into(), Err(error))],
    }
}

/// What the user changed of the files, kept by path so that it survives a reload (adding a
/// file reads them all again).
#[derive(Debug, Default, Clone)]
pub struct PartEdits {
    /// Group names given by hand.
    pub labels: HashMap<PathBuf, String>,
    /// Offsets given by hand (ns, on top of the clock alignment).
    pub offsets: HashMap<PathBuf, i64>,
}

impl PartEdits {
    /// Applies the edits to a freshly merged timeline.
    pub fn apply(&self, timeline: &mut Timeline) {
        for k in 0..timeline.parts().len() {
            let source = timeline.parts()[k].source.clone();
            if let Some(label) = self.labels.get(&source) {
                let _ = timeline.rename_part(k, label.clone());
            }
            if let Some(&offset) = self.offsets.get(&source) {
                let _ = timeline.set_user_offset(k, offset);
            }
        }
    }
}

/// The Files panel's state: what is typed, and the summary tables of one file being computed.
#[derive(Default)]
pub struct FilesPanel {
    /// The group names being typed, by file index.
    editing: HashMap<usize, String>,
    /// The event name to align on.
    pub align_name: String,
    /// The outcome of the last alignment.
    pub align_message: Option<String>,
    /// The file the summary tables are over (`None`: all of them).
    pub scope: Option<usize>,
    scope_job: Option<Job<Reports, LoadError>>,
    scope_progress: Option<(f32, String)>,
}

/// A change asked for in the Files panel.
#[derive(Debug, Clone, PartialEq)]
pub enum FileChange {
    /// Rename file `k`'s group.
    Rename(usize, String),
    /// Set file `k`'s offset (ns, on top of the clock alignment).
    Offset(usize, i64),
    /// Line the files up on an event of this name: its instance `.1` (0: the first).
    AlignOn(String, usize),
    /// The summary tables over one file (`None`: all).
    Scope(Option<usize>),
}

impl FilesPanel {
    /// Draws the list of files; returns what the user changed. `selected_name` is the name of
    /// the selected event (offered as the event to align on).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Timeline,
        selected_name: Option<&str>,
    ) -> Vec<FileChange> {
        let mut changes = Vec::new();
        let parts = timeline.parts();
        if parts.is_empty() {
            return changes;
        }
        ui.separator();
        egui::CollapsingHeader::new(format!("Files ({})", parts.len()))
            .id_salt("timeline-files")
            .default_open(true)
            .show(ui, |ui| {
                for (k, part) in parts.iter().enumerate() {
                    ui.push_id(("timeline-file", k), |ui| {
                        let text = self.editing.entry(k).or_insert_with(|| part.label.clone());
                        let edit = ui.add(
                            egui::TextEdit::singleline(text)
                                .desired_width(f32::INFINITY)
                                .hint_text("group name"),
                        );
                        if edit.lost_focus() && *text != part.label && !text.trim().is_empty() {
                            changes.push(FileChange::Rename(k, text.trim().to_owned()));
                        }
                        ui.weak(part.source.display().to_string());
                        ui.horizontal(|ui| {
                            ui.label("Offset");
                            let mut offset = part.user_offset_ns();
                            let drag = ui
                                .add(
                                    egui::DragValue::new(&mut offset)
                                        .speed(1000.0)
                                        .suffix(" ns"),
                                )
                                .on_hover_text(
                                    "Drag or type: moves this file's events on the timeline \
                                     (after the alignment by session start)",
                                );
                            if drag.changed() {
                                changes.push(FileChange::Offset(k, offset));
                            }
                            if offset != 0 && ui.small_button("Reset").clicked() {
                                changes.push(FileChange::Offset(k, 0));
                            }
                        });
                        let clock = if part.clock_known {
                            format!(
                                "placed by its session start (+{})",
                                format_duration(part.clock_ns as f64)
                            )
                        } else {
                            "no wall clock in the file: placed at 0".to_owned()
                        };
                        ui.weak(format!("{} events · {clock}", part.events.len()));
                    });
                    ui.add_space(4.0);
                }
                ui.horizontal(|ui| {
                    let label = ui.label("Align on");
                    ui.add(
                        egui::TextEdit::singleline(&mut self.align_name)
                            .hint_text("an event name")
                            .desired_width(140.0),
                    )
                    .labelled_by(label.id);
                    if let Some(name) = selected_name
                        && ui
                            .small_button("selected")
                            .on_hover_text("The name of the selected event")
                            .clicked()
                    {
                        self.align_name = name.to_owned();
                    }
                    if ui
                        .add_enabled(
                            !self.align_name.trim().is_empty(),
                            egui::Button::new("Align"),
                        )
                        .on_hover_text(
                            "Move the files so that the first event of this name starts at the \
                             same time in each",
                        )
                        .clicked()
                    {
                        changes.push(FileChange::AlignOn(self.align_name.trim().to_owned(), 0));
                    }
                });
                if let Some(message) = &self.align_message {
                    ui.weak(message);
                }
            });
        changes
    }

    /// The scope picker above the summary tables: all files, or one.
    pub fn scope_ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline) -> Option<FileChange> {
        let parts = timeline.parts();
        if parts.len() < 2 {
            return None;
        }
        let name = |scope: Option<usize>| match scope {
            None => "all files".to_owned(),
            Some(k) => parts.get(k).map_or_else(String::new, |p| p.label.clone()),
        };
        let mut picked = self.scope;
        let label = ui.label("Summary tables and reports over");
        egui::ComboBox::from_id_salt("report-scope")
            .selected_text(name(self.scope))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut picked, None, name(None));
                for k in 0..parts.len() {
                    ui.selectable_value(&mut picked, Some(k), name(Some(k)));
                }
            })
            .response
            .labelled_by(label.id)
            .on_hover_text("The summary tables and reports over all files at once, or one");
        if self.scope_job.is_some() {
            ui.spinner();
        }
        (picked != self.scope).then_some(FileChange::Scope(picked))
    }

    /// Computes the summary tables of `export` for the scope just picked.
    pub fn compute_scope(
        &mut self,
        scope: Option<usize>,
        export: PathBuf,
        wake: impl Fn() + Send + Sync + 'static,
    ) {
        self.scope = scope;
        self.scope_job = Some(Job::start(wake, LoadError::SpawnScope, move |_| {
            Ok(reports_of(&export))
        }));
    }

    /// The summary tables of the scope, once computed (call every frame).
    pub fn poll(&mut self) -> Option<Result<Reports, LoadError>> {
        match poll_job(&mut self.scope_job, &mut self.scope_progress)? {
            Polled::Done(reports) => Some(Ok(reports)),
            Polled::Failed(error) => Some(Err(error)),
            Polled::Sent(never) => match never {},
        }
    }

    /// Forgets what was typed (the timeline was read again).
    pub fn reset(&mut self) {
        self.editing.clear();
        self.scope = None;
        self.scope_job = None;
    }
}

/// The exports whose kernels the timeline's kernels are, with the ids of their events: the
/// export of a timeline of one, each export of a merged timeline (NVTXT files and traces have
/// no kernels to link).
pub fn link_sources(
    timeline: &Timeline,
    details: &DetailSource,
) -> Vec<(PathBuf, std::ops::Range<u32>)> {
    match details {
        DetailSource::Export(p) => vec![(p.clone(), 0..timeline.event_count() as u32)],
        DetailSource::Parts(parts) => parts
            .iter()
            .zip(timeline.parts())
            .filter_map(|(source, part)| match source {
                DetailSource::Export(p) => Some((p.clone(), part.events.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Every Nsight Systems export of the timeline, in part order (what the recipes read).
pub fn all_exports(details: &DetailSource) -> Vec<PathBuf> {
    match details {
        DetailSource::Export(p) => vec![p.clone()],
        DetailSource::Parts(parts) => parts.iter().flat_map(all_exports).collect(),
        _ => Vec::new(),
    }
}

/// The export the reports of `scope` read: the merged export for all files, else the file's.
pub fn scope_export(
    details: &DetailSource,
    merged: Option<&MergedExport>,
    scope: Option<usize>,
) -> Option<PathBuf> {
    match (details, scope) {
        (DetailSource::Parts(parts), Some(k)) => match parts.get(k)? {
            DetailSource::Export(p) => Some(p.clone()),
            _ => None,
        },
        (DetailSource::Parts(_), None) => merged.map(|m| m.path().to_path_buf()),
        (DetailSource::Export(p), _) => Some(p.clone()),
        _ => None,
    }
}
