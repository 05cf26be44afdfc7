//! The timeline pane: a [`Document`] showing an Nsight Systems export (with the NVTXT files
//! beside it), an NVTXT file or a CodeXL trace on one zoomable timeline.
//!
//! - [`loader`]: the `sightline-loader` thread (export, load with progress and Cancel, summary
//!   tables).
//! - [`view`]: the time axis (zoom about a point, pan, fit) and the ruler's adaptive units.
//! - [`rows`]: the track tree as lines (collapse, hide; a track as tall as its nesting depth).
//! - [`canvas`]: drawing with level of detail, hover, click, drag, range selection;
//!   [`overlays`]: the ruler, the range shade, flow arrows, tooltips, the track menu.
//! - [`events_view`]: the Events view (one track's events as a sortable, filterable table;
//!   copy, CSV export, a click selects the event).
//! - [`search`], [`details`], [`stats_panel`]: Ctrl+F, the selection panel with range
//!   statistics, the summary tables; [`analysis_summary`]: the summary panel's "Analysis
//!   summary" tab (capture, command lines, environment, CPU, GPUs, NICs, CUDA streams, export).
//! - [`nvtxt_files`]: the NVTXT files on the timeline, their problems, Add NVTXT…, live reload.
//! - [`export`]: File → Export timeline… (Perfetto or Chrome JSON, on a background job).
//! - [`keys`]: the keyboard, and the `?` list.
//! - [`colors`]: the theme's colours per kind.
//! - [`ncu_links`]: the links with Nsight Compute reports open beside the timeline (marks,
//!   "Open in Nsight Compute result N", what the report tabs' "Show on timeline" uses).

pub mod analysis_summary;
mod beside;
pub mod canvas;
pub mod colors;
pub mod cpu_profile;
pub mod details;
pub mod diagnostics;
pub mod events_view;
pub mod expert;
pub mod export;
pub mod files;
pub mod imports;
pub mod keys;
mod load_view;
pub mod loader;
mod mpi_details;
pub mod ncu_links;
pub mod nsys_state;
pub mod nvtxt_files;
pub mod overlays;
mod payload_fields;
pub mod report_runner;
mod row_cache;
pub mod rows;
pub mod search;
pub mod stats_panel;
pub mod view;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use eframe::egui;

use super::codexl::dispatch::offer_session_ui;
use super::document::{Document, DocumentKind, DocumentType, Navigate, Peer, Published};
use crate::lifecycle::{Load, STARTING};
use crate::widgets::problems::{ProblemList, RowText};
use canvas::{Canvas, Marks};
use details::Selection;
use expert::{ExpertSource, Target};
use keys::TIMELINE_KEYS;
use loader::CodexlSession;
use ncu_links::NcuLinks;
use nsys_state::NsysState;
use nvtxt_files::{NvtxtFiles, Rebuilt};
use search::{Search, SearchRequest};
use sightline_model::kind::FileKind;
use sightline_model::timeline::DetailSource;
use sightline_model::timeline::nsys::MergedExport;
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
    pub merged: Option<Arc<sightline_model::timeline::nsys::MergedExport>>,
}

/// An open timeline tab.
pub struct TimelineDoc {
    /// The file opened (an export, or a report that was exported); the timeline once loaded.
    load: Load<TimelineDoc>,
    /// The canvas (view, tree, level of detail).
    canvas: Canvas,
    /// The selected event and range.
    selection: Selection,
    /// Ctrl+F.
    search: Search,
    /// The summary tables.
    stats: StatsPanel,
    /// Whether the key list is shown.
    show_keys: bool,
    /// The NVTXT files on the timeline (once loaded).
    nvtxt: Option<NvtxtFiles>,
    /// The `nsys` executable typed in after a report could not be exported.
    nsys_entry: String,
    /// The folder of the user's timeline rules (the Expert tab runs them beside Sightline's).
    rules_folder: Option<PathBuf>,
    /// Several files on one timeline: all of them (files or folders, as given); empty for one
    /// file.
    files: Vec<PathBuf>,
    /// The group names and offsets given by hand (kept when the files are read again).
    edits: files::PartEdits,
    /// The Files panel.
    files_panel: files::FilesPanel,
    nsys: Option<PathBuf>,
    add_dialog: Option<crate::widgets::dialog::Dialog<Vec<PathBuf>>>,
    /// The links with the Nsight Compute reports open in other tabs.
    ncu_links: NcuLinks,
    /// File → Export timeline…: its window and running export.
    export: export::ExportPanel,
    /// The Events view.
    events: events_view::EventsView,
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
        crate::lifecycle::start(&mut doc, STARTING);
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
            load: Load::new(path, wake),
            canvas: Canvas::default(),
            selection: Selection::default(),
            search: Search::default(),
            stats: StatsPanel::default(),
            show_keys: false,
            nvtxt: None,
            nsys_entry,
            rules_folder: sightline_model::section::timeline_rules_folder(),
            files: Vec::new(),
            edits: files::PartEdits::default(),
            files_panel: files::FilesPanel::default(),
            nsys,
            add_dialog: None,
            ncu_links: NcuLinks::default(),
            export: export::ExportPanel::default(),
            events: events_view::EventsView::default(),
        }
    }

    /// Loads the file again from the start, exporting a report with `nsys`.
    pub fn retry_with_nsys(&mut self, nsys: PathBuf) {
        self.nsys = Some(nsys);
        crate::lifecycle::start(self, STARTING);
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
        self.load.waker()
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
        let Some(loaded) = self.load.loaded_mut() else {
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
        self.load.loaded().map(|l| &l.timeline)
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
            if ui
                .selectable_label(self.events.open, "Events view (E)")
                .on_hover_text(
                    "The selected event's track as a table: sort, filter, copy, export CSV",
                )
                .clicked()
            {
                self.events.toggle(timeline, &self.selection);
            }
            if ui.button("Keys (?)").clicked() {
                self.show_keys = !self.show_keys;
            }
            imports::import_button_ui(ui, &timeline.session.imports);
            ui.separator();
            ui.weak(format!(
                "{} · {} tracks{}",
                timeline.contents_text(timeline.event_count()),
                timeline.tracks.len(),
                utilization
            ));
        });
        go_to
    }

    /// Draws the loaded timeline: toolbar, summary tables, details, canvas.
    fn timeline_ui(
        &mut self,
        ui: &mut egui::Ui,
        open_files: &mut Vec<PathBuf>,
        navigate: &mut Vec<Navigate>,
    ) {
        self.serve_beside();
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        let timeline = loaded.timeline.clone();
        let details_source = loaded.details.clone();
        let utilization = loaded.utilization.clone();
        let session = loaded.session.clone();
        let merged = loaded.merged.clone();
        let mut go_to = None;
        let mut file_changes = Vec::new();
        egui::Panel::top("timeline-toolbar").show(ui, |ui| {
            if let Some(session) = &session {
                offer_session_ui(ui, self.load.path(), &session.files, open_files);
            }
            go_to = go_to.or(self.toolbar_ui(ui, &timeline, &utilization));
        });
        egui::Panel::bottom("timeline-stats")
            .resizable(true)
            .default_size(220.0)
            .show(ui, |ui| {
                let target = self.stats_ui(
                    ui,
                    &timeline,
                    &details_source,
                    merged.as_deref(),
                    &mut file_changes,
                );
                go_to = go_to.or(target);
                open_files.extend(self.stats.compare.open_request.take());
            });
        if self.events.open {
            egui::Panel::bottom("timeline-events")
                .resizable(true)
                .default_size(260.0)
                .show(ui, |ui| {
                    let wake = self.load.wake().clone();
                    match self
                        .events
                        .ui(ui, &timeline, (&self.selection, &details_source), &wake)
                    {
                        Some(events_view::GoTo::Event(e)) => go_to = go_to.or(Some(e)),
                        Some(events_view::GoTo::Time(t)) => {
                            self.canvas.viewport.reveal(t as f64, t as f64);
                        }
                        None => {}
                    }
                });
        }
        egui::Panel::right("timeline-details")
            .resizable(true)
            .default_size(340.0)
            .size_range(220.0..=640.0)
            .show(ui, |ui| {
                let target = self.details_ui(
                    ui,
                    &timeline,
                    &details_source,
                    session.as_deref(),
                    navigate,
                    &mut file_changes,
                );
                go_to = go_to.or(target);
            });
        egui::CentralPanel::default().show(ui, |ui| self.canvas_ui(ui, &timeline));
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

    /// The bottom panel: the file scope of a multi-file timeline and the statistics. Returns
    /// the event to go to; a range picked there becomes the selection and is fitted.
    fn stats_ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Arc<Timeline>,
        details_source: &DetailSource,
        merged: Option<&MergedExport>,
        file_changes: &mut Vec<files::FileChange>,
    ) -> Option<EventId> {
        if timeline.parts().len() > 1 {
            ui.horizontal(|ui| {
                file_changes.extend(self.files_panel.scope_ui(ui, timeline));
            });
        }
        let export = files::scope_export(details_source, merged, self.files_panel.scope);
        let expert = export.map(|export| ExpertSource {
            export,
            folder: self.rules_folder.clone(),
        });
        let wake = self.load.wake().clone();
        let exports = files::all_exports(details_source);
        match self.stats.ui(
            ui,
            timeline,
            self.selection.range,
            stats_panel::PanelInputs {
                expert: expert.as_ref(),
                exports: &exports,
                nsys: self.nsys.as_ref(),
            },
            wake,
        ) {
            Some(Target::Event(e)) => return Some(e),
            Some(Target::Range(t0, t1)) => {
                self.selection.set_range(timeline, Some((t0, t1)));
                self.canvas.viewport.fit(t0 as f64, t1 as f64);
            }
            None => {}
        }
        None
    }

    /// The right panel: the selection's details and Nsight Compute links, the session's
    /// problems, the NVTXT files, the files panel and the load warnings. Returns the event to
    /// go to.
    fn details_ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Timeline,
        details_source: &DetailSource,
        session: Option<&CodexlSession>,
        navigate: &mut Vec<Navigate>,
        file_changes: &mut Vec<files::FileChange>,
    ) -> Option<EventId> {
        let go_to = details::details_ui(
            ui,
            timeline,
            &details::Sources {
                details: details_source,
                nvtxt: self.nvtxt.as_ref().map_or(&[], |f| f.paths.as_slice()),
                session,
            },
            &mut self.selection,
        );
        if let Some(event) = self.selection.event {
            self.ncu_links.details_ui(ui, event, navigate);
        }
        if let Some(session) = session
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
        file_changes.extend(self.files_panel.ui(ui, timeline, selected_name));
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
        go_to
    }

    /// The central panel: the keys, then the canvas with the marks of the selection, search,
    /// statistics and Nsight Compute links; a click selects, a range drag sets the range.
    fn canvas_ui(&mut self, ui: &mut egui::Ui, timeline: &Timeline) {
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
        let out = self.canvas.ui(ui, rect, timeline, &marks);
        if let Some(track) = self.canvas.events_request.take() {
            self.events.show_track(track);
        }
        if let Some(e) = out.clicked {
            self.selection.select(timeline, Some(e));
        } else if out.clicked_empty {
            self.selection.select(timeline, None);
        }
        if out.range_done {
            self.selection.set_range(timeline, out.range);
        } else if let Some(r) = out.range {
            // While dragging: show the shade, compute the statistics on release.
            self.selection.range = Some(r);
        }
    }
}

/// What the GUI tests read and set of a timeline tab; the app itself goes through the methods
/// above.
impl TimelineDoc {
    /// The canvas (view, tree, level of detail).
    #[doc(hidden)]
    pub fn canvas(&self) -> &Canvas {
        &self.canvas
    }

    /// The canvas, mutable (to move the view).
    #[doc(hidden)]
    pub fn canvas_mut(&mut self) -> &mut Canvas {
        &mut self.canvas
    }

    /// The selected event and range.
    #[doc(hidden)]
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The selected event and range, mutable.
    #[doc(hidden)]
    pub fn selection_mut(&mut self) -> &mut Selection {
        &mut self.selection
    }

    /// Ctrl+F.
    #[doc(hidden)]
    pub fn search(&self) -> &Search {
        &self.search
    }

    /// The summary tables.
    #[doc(hidden)]
    pub fn stats(&self) -> &StatsPanel {
        &self.stats
    }

    /// The summary tables, mutable (the report runner's entries).
    #[doc(hidden)]
    pub fn stats_mut(&mut self) -> &mut StatsPanel {
        &mut self.stats
    }

    /// Whether the key list is shown.
    #[doc(hidden)]
    pub fn show_keys(&self) -> bool {
        self.show_keys
    }

    /// The NVTXT files on the timeline.
    #[doc(hidden)]
    pub fn nvtxt(&self) -> Option<&NvtxtFiles> {
        self.nvtxt.as_ref()
    }

    /// Types `nsys` into the prompt shown when a report could not be exported.
    #[doc(hidden)]
    pub fn set_nsys_entry(&mut self, nsys: &str) {
        self.nsys_entry = nsys.to_owned();
    }

    /// Uses the timeline rules of `folder` (the Expert tab).
    #[doc(hidden)]
    pub fn set_rules_folder(&mut self, folder: Option<PathBuf>) {
        self.rules_folder = folder;
    }

    /// The Files panel.
    #[doc(hidden)]
    pub fn files_panel(&self) -> &files::FilesPanel {
        &self.files_panel
    }

    /// The links with the Nsight Compute reports open in other tabs.
    #[doc(hidden)]
    pub fn ncu_links(&self) -> &NcuLinks {
        &self.ncu_links
    }

    /// File → Export timeline…'s window and running export.
    #[doc(hidden)]
    pub fn export(&self) -> &export::ExportPanel {
        &self.export
    }

    /// The Events view.
    #[doc(hidden)]
    pub fn events_view(&self) -> &events_view::EventsView {
        &self.events
    }

    /// The Events view, mutable (to open it on a track, type a filter).
    #[doc(hidden)]
    pub fn events_view_mut(&mut self) -> &mut events_view::EventsView {
        &mut self.events
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
            .add_enabled(
                self.load.loaded().is_some(),
                egui::Button::new("Export timeline…"),
            )
            .on_hover_text("Write this timeline as a Perfetto or Chrome JSON trace")
            .clicked()
        {
            self.export.show(self.load.path());
            ui.close();
        }
        let has_exports = self
            .load
            .loaded()
            .is_some_and(|l| !files::all_exports(&l.details).is_empty());
        if ui
            .add_enabled(has_exports, egui::Button::new("Compare with…"))
            .on_disabled_hover_text("Open an Nsight Systems export first")
            .on_hover_text(
                "Compare this run with another (an export, a report or a folder of rank \
                 exports): the summary panel's Compare tab",
            )
            .clicked()
        {
            self.stats.pane = stats_panel::Pane::Compare;
            let wake = self.load.wake().clone();
            self.stats.compare.pick(false, &wake);
            ui.close();
        }
    }

    crate::lifecycle::lifecycle_methods!();

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
            .load
            .loaded()
            .filter(|l| !l.timeline.stacks_pending && !l.timeline.partial)
        else {
            return;
        };
        let sources = files::link_sources(&loaded.timeline, &loaded.details);
        let timeline = loaded.timeline.clone();
        self.ncu_links
            .see_peers(peers, Some(&timeline), &sources, self.load.wake());
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
