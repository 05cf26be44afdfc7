//! The timeline pane: a [`Document`] showing an Nsight Systems export (with the NVTXT files
//! beside it), an NVTXT file or a CodeXL trace on one zoomable timeline.
//!
//! - [`loader`]: the `sightline-loader` thread (export, load with progress and Cancel, summary
//!   tables).
//! - [`view`]: the time axis (zoom about a point, pan, fit) and the ruler's adaptive units.
//! - [`rows`]: the track tree as lines (collapse, hide; a track as tall as its nesting depth).
//! - [`canvas`]: drawing with level of detail, hover, click, drag, range selection;
//!   [`overlays`]: the ruler, the range shade, flow arrows, tooltips, the track menu.
//! - [`search`], [`details`], [`stats_panel`]: Ctrl+F, the selection panel with range
//!   statistics, the summary tables.
//! - [`nvtxt_files`]: the NVTXT files on the timeline, their problems, Add NVTXT…, live reload.
//! - [`export`]: File → Export timeline… (Perfetto or Chrome JSON, on a background job).
//! - [`keys`]: the keyboard, and the `?` list.
//! - [`colors`]: the theme's colours per kind.
//! - [`ncu_links`]: the links with Nsight Compute reports open beside the timeline (marks,
//!   "Open in Nsight Compute result N", what the report tabs' "Show on timeline" uses).

pub mod canvas;
pub mod colors;
pub mod cpu_profile;
pub mod details;
pub mod diagnostics;
pub mod expert;
pub mod export;
pub mod files;
pub mod imports;
pub mod keys;
pub mod loader;
pub mod ncu_links;
pub mod nsys_state;
pub mod nvtxt_files;
pub mod overlays;
pub mod report_runner;
mod row_cache;
pub mod rows;
pub mod search;
pub mod stats_panel;
pub mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use eframe::egui;

use super::codexl::dispatch::offer_session_ui;
use super::document::{
    Document, DocumentKind, DocumentType, Navigate, Peer, Published, Services, opening_panel,
};
use crate::job::JobEvent;
use crate::widgets::problems::{ProblemList, RowText};
use canvas::{Canvas, Marks};
use details::Selection;
use expert::{ExpertSource, Target};
use keys::TIMELINE_KEYS;
use loader::{TimelineLoadJob, start_load};
use ncu_links::NcuLinks;
use nsys_state::NsysState;
use nvtxt_files::{NvtxtFiles, Rebuilt};
use search::{Search, SearchRequest};
use sightline_model::kind::FileKind;
use sightline_model::timeline::nsys::stats::ReportOutcome;
use sightline_model::timeline::open::DetailSource;
use sightline_model::timeline::{EventId, Timeline};
use stats_panel::StatsPanel;

/// A loaded timeline with where it came from.
pub struct LoadedTimeline {
    /// The timeline.
    pub timeline: Arc<Timeline>,
    /// Where event details are read (the SQLite export, the CodeXL trace...).
    pub details: DetailSource,
    /// How long loading took.
    pub elapsed: Duration,
    /// GPU utilization per device over the whole timeline ("GPU 0 42.0% busy"), computed once.
    pub utilization: String,
    /// A CodeXL trace's session (counters and occupancy of its dispatches).
    pub session: Option<Arc<loader::CodexlSession>>,
    /// Several exports on one timeline: the export made of all of them (for the reports over
    /// all files).
    pub merged: Option<Arc<sightline_model::timeline::nsys::merged::MergedExport>>,
}

/// An open timeline tab.
pub struct TimelineDoc {
    /// The file opened (an export, or a report that was exported).
    pub path: PathBuf,
    job: Option<TimelineLoadJob>,
    /// Load progress `(fraction, stage)` while loading.
    pub progress: Option<(f32, String)>,
    /// Why the file could not be shown.
    pub error: Option<String>,
    /// The timeline, once loaded.
    pub loaded: Option<LoadedTimeline>,
    /// The canvas (view, tree, level of detail).
    pub canvas: Canvas,
    /// The selected event and range.
    pub selection: Selection,
    /// Ctrl+F.
    pub search: Search,
    /// The summary tables.
    pub stats: StatsPanel,
    /// Whether the key list is shown.
    pub show_keys: bool,
    /// The NVTXT files on the timeline (once loaded).
    pub nvtxt: Option<NvtxtFiles>,
    /// The `nsys` executable typed in after a report could not be exported.
    pub nsys_entry: String,
    /// The folder of the user's timeline rules (the Expert tab runs them beside Sightline's).
    pub rules_folder: Option<PathBuf>,
    /// Several files on one timeline: all of them (files or folders, as given); empty for one
    /// file.
    pub files: Vec<PathBuf>,
    /// The group names and offsets given by hand (kept when the files are read again).
    pub edits: files::PartEdits,
    /// The Files panel.
    pub files_panel: files::FilesPanel,
    nsys: Option<PathBuf>,
    add_dialog: Option<crate::widgets::dialog::Dialog<Vec<PathBuf>>>,
    /// The links with the Nsight Compute reports open in other tabs.
    pub ncu_links: NcuLinks,
    /// File → Export timeline…: its window and running export.
    pub export: export::ExportPanel,
    wake: Arc<dyn Fn() + Send + Sync>,
}

impl TimelineDoc {
    /// Starts loading `path` on the loader thread (`nsys` exports a report; `None`: the first
    /// on `PATH`); `wake` requests a repaint on progress.
    pub fn open(
        path: PathBuf,
        nsys: Option<PathBuf>,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> TimelineDoc {
        let mut doc = TimelineDoc::idle(path, nsys, Arc::new(wake));
        let waker = doc.waker();
        doc.job = Some(start_load(&doc.path, doc.nsys.clone(), waker));
        doc
    }

    /// A tab of `path` with nothing loading yet.
    fn idle(
        path: PathBuf,
        nsys: Option<PathBuf>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> TimelineDoc {
        let nsys_entry = nsys
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        TimelineDoc {
            path,
            job: None,
            progress: Some((0.0, "starting".into())),
            error: None,
            loaded: None,
            canvas: Canvas::default(),
            selection: Selection::default(),
            search: Search::default(),
            stats: StatsPanel::default(),
            show_keys: false,
            nvtxt: None,
            nsys_entry,
            rules_folder: sightline_model::section::registry::timeline_rules_folder(),
            files: Vec::new(),
            edits: files::PartEdits::default(),
            files_panel: files::FilesPanel::default(),
            nsys,
            add_dialog: None,
            ncu_links: NcuLinks::default(),
            export: export::ExportPanel::default(),
            wake,
        }
    }

    /// Loads the file again from the start, exporting a report with `nsys`.
    pub fn retry_with_nsys(&mut self, nsys: PathBuf) {
        let waker = self.waker();
        self.error = None;
        self.progress = Some((0.0, "starting".into()));
        self.nsys = Some(nsys.clone());
        self.job = Some(start_load(&self.path, Some(nsys), waker));
    }

    /// Below an export error of a report: the `nsys` executable to use, kept in the settings.
    fn nsys_prompt_ui(&mut self, ui: &mut egui::Ui, set_nsys: &mut Option<PathBuf>) {
        ui.add_space(8.0);
        ui.label("NVIDIA's nsys exports the report to SQLite. Where is it?");
        ui.horizontal(|ui| {
            ui.label("nsys executable:");
            let edit = ui.add(
                egui::TextEdit::singleline(&mut self.nsys_entry)
                    .hint_text("/opt/nvidia/nsight-systems/2025.1/bin/nsys")
                    .desired_width(420.0),
            );
            let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if (ui.button("Export and open").clicked() || entered)
                && !self.nsys_entry.trim().is_empty()
            {
                let nsys = PathBuf::from(self.nsys_entry.trim());
                *set_nsys = Some(nsys.clone());
                self.retry_with_nsys(nsys);
            }
        });
    }

    /// A repaint request usable from other threads.
    fn waker(&self) -> impl Fn() + Send + Sync + Clone + 'static {
        let wake = self.wake.clone();
        move || wake()
    }

    /// Opens the file dialog of File → Add NVTXT… (for an export's timeline).
    pub fn add_nvtxt_dialog(&mut self) {
        let wake = self.waker();
        if let Some(files) = self.nvtxt.as_mut().filter(|f| f.accepts_more()) {
            files.add_dialog(wake);
        }
    }

    /// Adds an NVTXT file to an export's timeline (rebuilt on the loader thread).
    pub fn add_nvtxt(&mut self, path: PathBuf) {
        let wake = self.waker();
        if let Some(files) = self.nvtxt.as_mut() {
            files.add(path, wake);
        }
    }

    /// Whether NVTXT files can be added to this tab (it shows an export).
    pub fn accepts_nvtxt(&self) -> bool {
        self.nvtxt.as_ref().is_some_and(NvtxtFiles::accepts_more)
    }

    /// Reads the NVTXT files again now (as live reload does when one changes).
    pub fn reload_nvtxt(&mut self) {
        let wake = self.waker();
        if let Some(files) = self.nvtxt.as_mut() {
            files.rebuild(wake);
        }
    }

    /// Shows a rebuilt timeline, keeping the zoom, the selected range and — when it is still
    /// there — the selected event (found again by track, name and times: ids change).
    fn show_rebuilt(&mut self, rebuilt: Rebuilt) {
        let Some(loaded) = self.loaded.as_mut() else {
            return;
        };
        let old = std::mem::replace(&mut loaded.timeline, rebuilt.timeline);
        let timeline = loaded.timeline.clone();
        let selected = self
            .selection
            .event
            .and_then(|id| details::same_event(&old, id, &timeline));
        let range = self.selection.range;
        self.selection = Selection::default();
        self.selection.select(&timeline, selected);
        self.selection.set_range(&timeline, range);
        self.search = Search::default();
        self.stats.instances = None;
        if let Some(reports) = rebuilt.reports {
            self.stats.reports = Some(reports.into_iter().map(|(n, r)| (n, Ok(r))).collect());
        }
        self.canvas.invalidate_lines();
    }

    /// The timeline, once loaded.
    pub fn timeline(&self) -> Option<&Arc<Timeline>> {
        self.loaded.as_ref().map(|l| &l.timeline)
    }

    /// Selects `event` and brings it into view (search hits, flow "Go to", summary rows).
    pub fn go_to(&mut self, event: EventId) {
        let Some(timeline) = self.timeline().cloned() else {
            return;
        };
        self.selection.select(&timeline, Some(event));
        self.canvas.reveal(&timeline, event);
    }

    /// The toolbar: search, fit, key list, counts.
    fn toolbar_ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Timeline,
        utilization: &str,
    ) -> Option<EventId> {
        let mut go_to = None;
        ui.horizontal(|ui| {
            if let Some(SearchRequest::GoTo(e)) = self.search.ui(ui, timeline) {
                go_to = Some(e);
            }
            ui.separator();
            if ui
                .button("Fit")
                .on_hover_text("Show the whole timeline (0)")
                .clicked()
            {
                self.canvas.fit_all(timeline);
            }
            if !self.canvas.tree.hidden.is_empty()
                && ui
                    .button(format!(
                        "Show {} hidden track(s)",
                        self.canvas.tree.hidden.len()
                    ))
                    .clicked()
            {
                self.canvas.tree.hidden.clear();
                self.canvas.invalidate_lines();
            }
            if ui.button("Keys (?)").clicked() {
                self.show_keys = !self.show_keys;
            }
            imports::import_button_ui(ui, &timeline.session.imports);
            ui.separator();
            ui.weak(format!(
                "{} events · {} tracks{}",
                timeline.event_count(),
                timeline.tracks.len(),
                utilization
            ));
        });
        go_to
    }

    /// Draws the loaded timeline: toolbar, summary tables, details, canvas.
    fn loaded_ui(
        &mut self,
        ui: &mut egui::Ui,
        open_files: &mut Vec<PathBuf>,
        navigate: &mut Vec<Navigate>,
    ) {
        let Some(loaded) = &self.loaded else { return };
        let timeline = loaded.timeline.clone();
        let details_source = loaded.details.clone();
        let utilization = loaded.utilization.clone();
        let session = loaded.session.clone();
        let merged = loaded.merged.clone();
        let mut go_to = None;
        let mut file_changes = Vec::new();
        egui::Panel::top("timeline-toolbar").show(ui, |ui| {
            if let Some(session) = &session {
                offer_session_ui(ui, &self.path, &session.files, open_files);
            }
            go_to = go_to.or(self.toolbar_ui(ui, &timeline, &utilization));
        });
        egui::Panel::bottom("timeline-stats")
            .resizable(true)
            .default_size(220.0)
            .show(ui, |ui| {
                if timeline.parts().len() > 1 {
                    ui.horizontal(|ui| {
                        file_changes.extend(self.files_panel.scope_ui(ui, &timeline));
                    });
                }
                let export =
                    files::scope_export(&details_source, merged.as_deref(), self.files_panel.scope);
                let expert = export.map(|export| ExpertSource {
                    export,
                    folder: self.rules_folder.clone(),
                });
                let wake = self.wake.clone();
                match self
                    .stats
                    .ui(ui, &timeline, self.selection.range, expert.as_ref(), wake)
                {
                    Some(Target::Event(e)) => go_to = go_to.or(Some(e)),
                    Some(Target::Range(t0, t1)) => {
                        self.selection.set_range(&timeline, Some((t0, t1)));
                        self.canvas.viewport.fit(t0 as f64, t1 as f64);
                    }
                    None => {}
                }
            });
        egui::Panel::right("timeline-details")
            .resizable(true)
            .default_size(340.0)
            .size_range(220.0..=640.0)
            .show(ui, |ui| {
                go_to = go_to.or(details::details_ui(
                    ui,
                    &timeline,
                    &details::Sources {
                        details: &details_source,
                        nvtxt: self.nvtxt.as_ref().map_or(&[], |f| f.paths.as_slice()),
                        session: session.as_deref(),
                    },
                    &mut self.selection,
                ));
                if let Some(event) = self.selection.event {
                    self.ncu_links.details_ui(ui, event, navigate);
                }
                if let Some(session) = &session
                    && !session.problems.is_empty()
                {
                    ui.separator();
                    egui::CollapsingHeader::new(format!(
                        "{} session file problem(s)",
                        session.problems.len()
                    ))
                    .id_salt("session-problems")
                    .show(ui, |ui| {
                        for p in session.problems.iter().take(200) {
                            ui.label(p);
                        }
                    });
                }
                if let Some(files) = self.nvtxt.as_mut() {
                    files.ui(ui);
                }
                let selected = self.selection.event.and_then(|e| timeline.event(e));
                let selected_name = selected.map(|e| timeline.name(e.name));
                file_changes.extend(self.files_panel.ui(ui, &timeline, selected_name));
                if !timeline.warnings.is_empty() {
                    ui.separator();
                    ProblemList::new(&timeline.warnings)
                        .text(RowText::Compiler)
                        .show_collapsed(
                            ui,
                            "timeline-warnings",
                            format!("{} load warning(s)", timeline.warnings.len()),
                        );
                }
            });
        egui::CentralPanel::default().show(ui, |ui| {
            let rect = ui.available_rect_before_wrap();
            let keys = keys::read_keys(ui.ctx());
            let pointer_x = ui
                .input(|i| i.pointer.hover_pos())
                .filter(|p| self.canvas.events_rect.contains(*p))
                .map(|p| p.x - self.canvas.events_rect.left());
            self.apply_keys(keys, pointer_x);
            let highlight: &[bool] = match &self.stats.instances {
                Some(inst) => &inst.names,
                None => &self.search.names,
            };
            let marks = Marks {
                selected: self.selection.event,
                partners: &self.selection.partners,
                range: self.selection.range,
                names: highlight,
                stacks: if self.stats.pane == stats_panel::Pane::Profile {
                    &self.stats.profile.highlight
                } else {
                    &[]
                },
                linked: &self.ncu_links.marked,
            };
            let out = self.canvas.ui(ui, rect, &timeline, &marks);
            if let Some(e) = out.clicked {
                self.selection.select(&timeline, Some(e));
            } else if out.clicked_empty {
                self.selection.select(&timeline, None);
            }
            if out.range_done {
                self.selection.set_range(&timeline, out.range);
            } else if let Some(r) = out.range {
                // While dragging: show the shade, compute the statistics on release.
                self.selection.range = Some(r);
            }
        });
        if let Some(e) = go_to {
            self.go_to(e);
        }
        for change in file_changes {
            self.apply_file_change(change, &details_source, merged.as_deref());
        }
        keys::keys_window(ui.ctx(), &mut self.show_keys);
        let wake = self.waker();
        self.export
            .window_ui(ui.ctx(), &timeline, self.selection.range, wake);
    }
}

/// Nsight Systems exports and reports, NVTXT files and CodeXL traces open on a timeline.
pub const DOCUMENT: DocumentType = DocumentType {
    kind: DocumentKind::Timeline,
    name: "Timelines",
    file_kinds: &[
        FileKind::NsysExport,
        FileKind::NsysReport,
        FileKind::Nvtxt,
        FileKind::Atp,
        FileKind::PerfettoTrace,
        FileKind::ChromeTrace,
    ],
    open: |path, states, wake| {
        let nsys = states.get::<NsysState>().and_then(|s| s.nsys.clone());
        Box::new(TimelineDoc::open(path, nsys, move || wake()))
    },
    state: Some(|settings, options| Box::new(NsysState::new(settings, options))),
};

impl Document for TimelineDoc {
    fn file_menu_ui(&mut self, ui: &mut egui::Ui) {
        if ui
            .add_enabled(!self.loading(), egui::Button::new("Add to timeline…"))
            .on_hover_text(
                "Put more Nsight Systems exports, NVTXT files or CodeXL traces on this timeline \
                 (the ranks of a job: a group per file, aligned by their session starts)",
            )
            .clicked()
        {
            self.add_files_dialog();
            ui.close();
        }
        if ui
            .add_enabled(self.accepts_nvtxt(), egui::Button::new("Add NVTXT…"))
            .on_disabled_hover_text("Open an Nsight Systems export first")
            .on_hover_text("Put the annotations of .nvtxt files on this export's timeline")
            .clicked()
        {
            self.add_nvtxt_dialog();
            ui.close();
        }
        if ui
            .add_enabled(self.loaded.is_some(), egui::Button::new("Export timeline…"))
            .on_hover_text("Write this timeline as a Perfetto or Chrome JSON trace")
            .clicked()
        {
            self.export.show(&self.path);
            ui.close();
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn loading(&self) -> bool {
        self.job.is_some() && self.loaded.is_none() && self.error.is_none()
    }

    fn progress(&self) -> Option<(f32, String)> {
        self.progress
            .clone()
            .or_else(|| self.export.progress.clone())
    }

    fn cancel(&mut self) {
        if self.export.running() {
            self.export.cancel();
            return;
        }
        if let Some(job) = self.job.take() {
            job.cancel();
            if self.loaded.is_none() {
                self.error = Some(format!("{}: loading cancelled", self.path.display()));
            } else if self.stats.reports.is_none() {
                // Cancelled while the summary tables were computed: there will be none.
                self.stats.reports = Some(Vec::new());
            }
        }
        self.progress = None;
    }

    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn poll(&mut self) -> Option<(String, bool)> {
        let mut status = self.ncu_links.poll().or(self.export.poll());
        self.stats.expert.poll();
        if let Some(picked) = crate::widgets::dialog::take_answer(&mut self.add_dialog) {
            self.add_files(picked.value);
        }
        match self.files_panel.poll() {
            Some(Ok(reports)) => {
                self.stats.reports = Some(reports);
                self.stats.shown = 0;
                self.stats.table = crate::widgets::table::SortableTable::default();
                self.stats.instances = None;
            }
            Some(Err(message)) => status = Some((message, true)),
            None => {}
        }
        if let Some(result) = self.stats.runner.poll() {
            self.stats.add_report(result);
        }
        let wake = self.waker();
        if let Some(rebuilt) = self.nvtxt.as_mut().and_then(|f| f.poll(wake)) {
            let problems: usize = rebuilt.docs.iter().map(|d| d.diagnostics.len()).sum();
            status = Some((
                format!(
                    "NVTXT read again: {} file(s), {} problem(s); {} events on the timeline",
                    rebuilt.docs.len(),
                    problems,
                    rebuilt.timeline.event_count()
                ),
                false,
            ));
            self.show_rebuilt(rebuilt);
        }
        while let Some(event) = self.job.as_ref().and_then(TimelineLoadJob::poll) {
            match event {
                JobEvent::Progress(f, stage) => self.progress = Some((f, stage)),
                JobEvent::Sent(loaded) => {
                    let loader::Loaded {
                        mut timeline,
                        base,
                        details,
                        nvtxt,
                        elapsed,
                        session,
                    } = *loaded;
                    if !nvtxt.is_empty() || base.is_some() {
                        self.nvtxt = Some(NvtxtFiles::new(base, nvtxt));
                    }
                    self.progress = None;
                    let what = if timeline.stacks_pending {
                        "; reading the CPU samples' call stacks"
                    } else {
                        ""
                    };
                    let opened = if timeline.partial {
                        "Reading"
                    } else {
                        "Opened"
                    };
                    let so_far = if timeline.partial { " so far" } else { "" };
                    status = Some((
                        format!(
                            "{opened} {}: {} events on {} tracks{so_far} in {:.0} ms{what}",
                            if self.files.len() > 1 {
                                format!("{} files", timeline.parts().len())
                            } else {
                                self.path.display().to_string()
                            },
                            timeline.events_read(),
                            timeline.tracks.len(),
                            elapsed.as_secs_f64() * 1e3
                        ),
                        false,
                    ));
                    // What was read so far is replaced by more: the view stays unless the user
                    // has not moved it, and the rest is set up again below.
                    let was_partial = self.loaded.as_ref().is_some_and(|l| l.timeline.partial);
                    if was_partial {
                        self.show_rebuilt(Rebuilt {
                            timeline: timeline.clone(),
                            docs: Vec::new(),
                            reports: None,
                        });
                        self.canvas.refit_if_untouched();
                    } else if self.loaded.is_some() {
                        // The same events again, now with their call stacks: keep the view.
                        self.show_rebuilt(Rebuilt {
                            timeline,
                            docs: Vec::new(),
                            reports: None,
                        });
                        self.stats.profile.reset();
                        if let Some(loaded) = self.loaded.as_mut() {
                            loaded.elapsed = elapsed;
                        }
                        continue;
                    }
                    let mut util: Vec<String> = timeline
                        .gpu_utilization(None)
                        .iter()
                        .map(|u| format!("GPU {} {:.1}% busy", u.device, u.fraction * 100.0))
                        .collect();
                    if let Some(cpu) = timeline.thread_utilization(None) {
                        util.push(format!(
                            "threads running {:.2} on average on {} CPUs",
                            cpu.average_running(),
                            cpu.cpus
                        ));
                    }
                    let utilization = if util.is_empty() {
                        String::new()
                    } else {
                        format!(" · {}", util.join(", "))
                    };
                    if !timeline.parts().is_empty() {
                        self.edits.apply(Arc::make_mut(&mut timeline));
                    }
                    self.loaded = Some(LoadedTimeline {
                        timeline,
                        details,
                        elapsed,
                        utilization,
                        session: session.map(Arc::new),
                        merged: None,
                    });
                }
                JobEvent::Done(loader::Finished { reports, merged }) => {
                    self.progress = None;
                    if let Some(loaded) = self.loaded.as_mut() {
                        loaded.merged = merged;
                    }
                    // Show the kernels first when there are any, else the first table.
                    let table = |name: &str| {
                        reports.iter().position(|(n, r)| {
                            n == name
                                && matches!(r, Ok(ReportOutcome::Table(t)) if !t.rows.is_empty())
                        })
                    };
                    self.stats.shown = table("cuda_gpu_kern_sum")
                        .or_else(|| reports.iter().map(|(n, _)| n.as_str()).find_map(table))
                        .unwrap_or(0);
                    self.stats.reports = Some(reports);
                    self.job = None;
                }
                JobEvent::Failed(message) => {
                    self.progress = None;
                    self.job = None;
                    self.error = Some(message.clone());
                    status = Some((message, true));
                }
            }
        }
        status
    }

    fn ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        if self.loaded.is_some() {
            self.loaded_ui(ui, &mut services.open_files, &mut services.navigate);
            return;
        }
        opening_panel(ui, self, |doc, ui| {
            if doc.error.is_some() && sightline_model::timeline::nsys::is_report_file(&doc.path) {
                let mut set_nsys = None;
                doc.nsys_prompt_ui(ui, &mut set_nsys);
                if let Some(nsys) = set_nsys
                    && let Some(state) = services.state::<NsysState>()
                {
                    state.nsys = Some(nsys);
                }
            }
        });
    }

    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        TIMELINE_KEYS
    }

    fn title(&self) -> String {
        self.merged_title()
    }

    fn add_files(&mut self, paths: Vec<PathBuf>) -> bool {
        self.add_more_files(paths)
    }

    fn published(&self) -> Vec<Published> {
        self.ncu_links.published().into_iter().collect()
    }

    fn see_peers(&mut self, peers: &[Peer]) {
        // Linked once the whole timeline is loaded (not the preview without call stacks).
        let Some(loaded) = self
            .loaded
            .as_ref()
            .filter(|l| !l.timeline.stacks_pending && !l.timeline.partial)
        else {
            return;
        };
        let sources = files::link_sources(&loaded.timeline, &loaded.details);
        let timeline = loaded.timeline.clone();
        self.ncu_links
            .see_peers(peers, Some(&timeline), &sources, &self.wake);
    }

    fn navigate(&mut self, item: u64) -> bool {
        let Some(event) = u32::try_from(item)
            .ok()
            .and_then(|id| self.timeline().and_then(|t| t.event(EventId(id))))
        else {
            return false;
        };
        // Framed: the event and twice its length on each side (at least a microsecond).
        let pad = (event.end - event.start).max(1_000) * 2;
        self.canvas
            .frame((event.start - pad) as f64, (event.end + pad) as f64);
        self.go_to(event.id);
        true
    }

    crate::document::any_methods!();
}
