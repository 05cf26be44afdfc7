//! The Gainsight panel: a [`Document`] showing what gain-cell memory would make of a GPGPU-Sim
//! run — a log, a folder of logs, or the frontend's outputs read back.
//!
//! - [`loader`]: the `sightline-loader` thread (analysis with progress and Cancel; outputs read
//!   back into the same shape).
//! - [`table`]: the sortable per-kernel table (`.sim.csv` columns); a selected kernel filters
//!   the charts.
//! - [`charts`]: lifetime histograms (log time axis, retention lines and covered shares),
//!   refreshes and area against SRAM, write frequency per kernel with its statistics.
//! - [`whatif`]: retention and clock sliders, refreshes recomputed live from the lifetimes kept
//!   in memory.
//! - [`params_editor`]: the TOML parameters, applied (re-analysis) or reset to the defaults.
//! - [`export`]: the four output files and chart images (PNG).

pub mod charts;
pub mod export;
pub mod loader;
pub mod params_editor;
pub mod table;
pub mod whatif;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use eframe::egui::{self, ColorImage, Rect};

use super::document::{Document, DocumentKind, DocumentType, Services, Wake};
use crate::job::{Polled, poll_job};
use crate::lifecycle::{DocumentView, Load, LoadJob, Opened, STARTING, Status};
use crate::widgets::problems::ProblemList;
use charts::{FrequencyMarks, Group, RetentionMark, chart_frame, count_label, time_label};
use export::{ExportRequest, export_outputs, png_of_region, write_png};
use loader::{
    GainsightJob, Inputs, JobError, Loaded, recompute_outputs_report, start_job, start_load,
};
use params_editor::{EditorAction, ParamsEditor};
use sightline_model::gainsight::{Params, Selection};
use sightline_model::kind::FileKind;
use table::compact;

use crate::widgets::table::SortableTable;
use whatif::WhatIf;

/// The charts that can be saved as images: (file suffix, title).
pub const CHARTS: [(&str, &str); 6] = [
    ("l1-lifetimes", "L1 lifetimes"),
    ("l2-lifetimes", "L2 lifetimes"),
    ("refreshes", "Refreshes per cell type"),
    ("area", "Area per technology"),
    ("l1-write-frequency", "L1 write frequency per kernel"),
    ("l2-write-frequency", "L2 write frequency per kernel"),
];

/// Where exports go.
#[derive(Debug, Clone, Default)]
pub struct ExportSettings {
    /// Output folder.
    pub dir: String,
    /// Output name (`NAME.sim.csv`...).
    pub name: String,
    /// What the last export wrote, or why it failed.
    pub last: Option<(String, bool)>,
}

/// A screenshot on its way back from the integration, with the scale it was taken at.
type Shot = (Arc<ColorImage>, f32);

/// An open Gainsight tab.
pub struct GainsightDoc {
    /// The file or folder opened, its analysis (or outputs read back) once loaded.
    load: Load<GainsightDoc>,
    /// What the next load reads, with which parameters (`None`: the opened path with the
    /// default parameters).
    next: Option<(Inputs, Params)>,
    export_job: Option<GainsightJob<Vec<PathBuf>>>,
    /// Progress `(fraction, stage)` of the running export.
    export_progress: Option<(f32, String)>,
    /// Row index → the kernel's index in the lifetime store (input order).
    store_index: Vec<Option<usize>>,
    /// The kernel table.
    table: SortableTable,
    /// The what-if sliders and projection.
    whatif: WhatIf,
    /// The parameter editor.
    editor: ParamsEditor,
    /// Export folder and name.
    export: ExportSettings,
    /// Screen rects of the charts drawn last frame, by file suffix.
    chart_rects: Vec<(&'static str, Rect)>,
    shots: (Sender<Shot>, Receiver<Shot>),
    /// Whether a screenshot was requested and not yet received.
    screenshot_pending: bool,
    status: Option<(String, bool)>,
}

impl GainsightDoc {
    /// Starts loading `path` (a log, a folder, an output file) with the default parameters.
    pub fn open(path: PathBuf, wake: impl Fn() + Send + Sync + 'static) -> GainsightDoc {
        let mut doc = GainsightDoc {
            load: Load::new(path, Arc::new(wake)),
            next: None,
            export_job: None,
            export_progress: None,
            store_index: Vec::new(),
            table: SortableTable::default(),
            whatif: WhatIf::default(),
            editor: ParamsEditor::default(),
            export: ExportSettings::default(),
            chart_rects: Vec::new(),
            shots: channel(),
            screenshot_pending: false,
            status: None,
        };
        crate::lifecycle::start(&mut doc, STARTING);
        doc
    }

    /// The loaded input.
    pub fn loaded(&self) -> Option<&Loaded> {
        self.load.loaded()
    }

    /// The kernel selection of the charts (all kernels, or the selected row's kernel).
    pub fn selection(&self) -> Selection {
        match self
            .table
            .selected
            .and_then(|row| self.store_index.get(row))
        {
            Some(Some(index)) => Selection::Kernel(*index),
            _ => Selection::All,
        }
    }

    /// Whether a background job (load, re-analysis, export) is running.
    pub fn busy(&self) -> bool {
        self.load.loading() || self.export_job.is_some()
    }

    fn take_loaded(&mut self, loaded: Box<Loaded>) {
        let loaded = *loaded;
        self.store_index = store_indices(&loaded);
        self.whatif = WhatIf::from_params(&loaded.params);
        self.editor = ParamsEditor::default();
        table::resort(&mut self.table, &loaded.analysis.rows);
        if self.export.name.is_empty() {
            self.export.name = loaded.analysis.name.clone();
        }
        if self.export.dir.is_empty() {
            let path = self.load.path();
            let dir = if path.is_dir() {
                path.to_path_buf()
            } else {
                path.parent().map(Path::to_path_buf).unwrap_or_default()
            };
            self.export.dir = dir.display().to_string();
        }
        self.load.set_loaded(Some(loaded));
    }

    /// Uses `params`: logs are analysed again (the current view stays until the new one is
    /// ready); outputs read back get their report recomputed.
    pub fn apply_params(&mut self, params: Params) {
        let Some(loaded) = self.load.loaded_mut() else {
            return;
        };
        if loaded.inputs.is_logs() {
            self.next = Some((loaded.inputs.clone(), params));
            crate::lifecycle::start(self, "analysing again with the new parameters");
        } else {
            loaded.report = recompute_outputs_report(loaded, &params);
            loaded.params = params;
            self.whatif = WhatIf::from_params(&loaded.params);
            self.status = Some(("Parameters applied".into(), false));
        }
    }

    /// Starts exporting the four files into the export folder.
    pub fn start_export(&mut self) {
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        if self.export_job.is_some() {
            return;
        }
        let request = ExportRequest {
            dir: PathBuf::from(self.export.dir.trim()),
            name: self.export.name.trim().to_string(),
            inputs: loaded.inputs.clone(),
            params: loaded.params.clone(),
            rows: loaded.analysis.rows.clone(),
            report: loaded.report.clone(),
        };
        self.export_job = Some(start_job(self.load.wake(), "export", move |ctx| {
            export_outputs(&request, ctx)
        }));
        self.export_progress = Some((0.0, "exporting".into()));
    }

    /// Asks the integration for a screenshot; the charts are cut out of it when it arrives.
    pub fn request_chart_images(&mut self, ctx: &egui::Context) {
        let tx = self.shots.0.clone();
        let wake = self.load.wake().clone();
        let ppp = ctx.pixels_per_point();
        ctx.request_screenshot(move |image| {
            let _ = tx.send((image, ppp));
            wake();
        });
        self.screenshot_pending = true;
        ctx.request_repaint();
    }

    /// Cuts the charts out of a screenshot and writes them as PNG (on the loader thread).
    fn save_chart_images(&mut self, image: Arc<ColorImage>, ppp: f32) {
        self.screenshot_pending = false;
        let dir = PathBuf::from(self.export.dir.trim());
        let name = self.export.name.trim().to_string();
        let rects = self.chart_rects.clone();
        if rects.is_empty() {
            self.export.last = Some(("No chart is on screen".into(), true));
            return;
        }
        if self.export_job.is_some() {
            self.export.last = Some(("An export is running".into(), true));
            return;
        }
        self.export_job = Some(start_job(self.load.wake(), "chart images", move |_| {
            let mut written = Vec::new();
            for (suffix, rect) in rects {
                let png = png_of_region(&image, rect, ppp)?;
                written.push(write_png(&dir.join(format!("{name}.{suffix}.png")), &png)?);
            }
            Ok(written)
        }));
    }

    /// Applies what the export jobs and the screenshot sent; returns a status message.
    fn poll_exports(&mut self) -> Option<Status> {
        let mut status = self.status.take();
        while let Some(event) = poll_job(&mut self.export_job, &mut self.export_progress) {
            match event {
                Polled::Done(files) => {
                    let message = format!(
                        "Exported {} file(s) to {}",
                        files.len(),
                        self.export.dir.trim()
                    );
                    self.export.last = Some((
                        files
                            .iter()
                            .map(|f| f.display().to_string())
                            .collect::<Vec<_>>()
                            .join("\n"),
                        false,
                    ));
                    status = Some((message, false));
                }
                Polled::Failed(error) => {
                    let message = error.to_string();
                    self.export.last = Some((message.clone(), true));
                    status = Some((message, true));
                }
            }
        }
        if let Ok((image, ppp)) = self.shots.1.try_recv() {
            self.save_chart_images(image, ppp);
        }
        status
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui) {
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        let a = &loaded.analysis;
        ui.horizontal_wrapped(|ui| {
            ui.strong(&a.name);
            ui.separator();
            let source = match &loaded.inputs {
                Inputs::Logs(_) => format!(
                    "{} kernel(s) from {} log file(s), {:.1} MB, {} lines ({} accesses)",
                    a.rows.len(),
                    a.files.len(),
                    a.bytes as f64 / 1e6,
                    count_label(a.lines.total),
                    count_label(a.lines.accesses)
                ),
                Inputs::Outputs(files) => format!(
                    "{} kernel(s) read from {} output file(s)",
                    a.rows.len(),
                    files.present().len()
                ),
            };
            ui.label(source);
            ui.separator();
            ui.label(format!(
                "{} L1 / {} L2 lifetimes",
                count_label(loaded.report.lifetime_count[0]),
                count_label(loaded.report.lifetime_count[1])
            ));
            if let Some(row) = self.table.selected.and_then(|r| a.rows.get(r)) {
                ui.separator();
                ui.label(format!("charts: kernel {}", row.kernel_id));
                if ui.button("Show all kernels").clicked() {
                    self.table.selected = None;
                }
            }
        });
    }

    /// The what-if sliders and the refresh figures they give.
    fn whatif_ui(&mut self, ui: &mut egui::Ui) {
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        if !loaded.lifetimes_known {
            ui.weak("Open the lifetime CSVs (NAME.sim_l1.csv, NAME.sim_l2.csv) or the log to project refreshes.");
            return;
        }
        let selection = self.selection();
        self.whatif.sliders_ui(ui, &loaded.params);
        let projection = self
            .whatif
            .projection(&loaded.analysis.store, selection)
            .clone();
        ui.add_space(4.0);
        let at_params = !self.whatif.differs_from(&loaded.params) && selection == Selection::All;
        egui::Grid::new("gainsight-refreshes")
            .num_columns(5)
            .striped(true)
            .show(ui, |ui| {
                ui.strong("Cell type");
                ui.strong("L1 covered");
                ui.strong("L1 refreshes");
                ui.strong("L2 covered");
                ui.strong("L2 refreshes");
                ui.end_row();
                ui.label("SRAM");
                for _ in 0..2 {
                    ui.label("100%");
                    ui.label("0");
                }
                ui.end_row();
                for (index, cell) in loaded.params.retention.iter().enumerate() {
                    ui.label(&cell.name).on_hover_text(format!(
                        "retention {}",
                        time_label(self.whatif.retention_us.get(index).copied().unwrap_or(0.0))
                    ));
                    for level in 0..2 {
                        let covered = projection.covered[level].get(index).copied().unwrap_or(0.0);
                        let n = projection.refreshes[level].get(index).copied().unwrap_or(0);
                        ui.label(format!("{:.1}%", covered * 100.0));
                        let label = ui.label(count_label(n));
                        if at_params && let Some((_, v)) = loaded.report.refreshes[level].get(index)
                        {
                            label.on_hover_text(format!("report: {}", compact(*v)));
                        }
                    }
                    ui.end_row();
                }
            });
        ui.weak(format!(
            "{} L1 and {} L2 lifetimes{}",
            count_label(projection.lifetimes[0]),
            count_label(projection.lifetimes[1]),
            match selection {
                Selection::All => " (all kernels)".to_string(),
                Selection::Kernel(_) => " (selected kernel)".to_string(),
            }
        ));
    }

    fn export_ui(&mut self, ui: &mut egui::Ui) {
        egui::Grid::new("gainsight-export")
            .num_columns(2)
            .show(ui, |ui| {
                ui.label("Folder");
                ui.add(
                    egui::TextEdit::singleline(&mut self.export.dir)
                        .desired_width(220.0)
                        .hint_text("output folder"),
                )
                .on_hover_text("Output folder (created if missing)");
                ui.end_row();
                ui.label("Name");
                ui.add(egui::TextEdit::singleline(&mut self.export.name).desired_width(220.0))
                    .on_hover_text("NAME.sim.csv, NAME.sim_l1.csv, NAME.sim_l2.csv, NAME.json");
                ui.end_row();
            });
        let busy = self.busy();
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!busy, egui::Button::new("Export CSVs and JSON"))
                .on_hover_text(
                    "Write the four files of Gainsight's frontend with the parameters in use",
                )
                .clicked()
            {
                self.start_export();
            }
            if ui
                .add_enabled(
                    !busy && !self.screenshot_pending,
                    egui::Button::new("Save chart images"),
                )
                .on_hover_text("Save each chart on screen as NAME.CHART.png")
                .clicked()
            {
                self.request_chart_images(ui.ctx());
            }
        });
        if let Some((text, error)) = &self.export.last {
            if *error {
                ui.colored_label(ui.visuals().error_fg_color, text);
            } else {
                ui.weak(text);
            }
        }
    }

    fn side_ui(&mut self, ui: &mut egui::Ui) {
        egui::ScrollArea::vertical()
            .id_salt("gainsight-side-scroll")
            .show(ui, |ui| {
                egui::CollapsingHeader::new("What-if")
                    .default_open(true)
                    .show(ui, |ui| self.whatif_ui(ui));
                let busy = self.busy();
                let action = match self.load.loaded() {
                    Some(loaded) => egui::CollapsingHeader::new("Parameters")
                        .default_open(false)
                        .show(ui, |ui| self.editor.ui(ui, &loaded.params, busy))
                        .body_returned
                        .flatten(),
                    None => None,
                };
                if let Some(EditorAction::Apply(params)) = action {
                    self.apply_params(params);
                }
                egui::CollapsingHeader::new("Export")
                    .default_open(true)
                    .show(ui, |ui| self.export_ui(ui));
                let Some(loaded) = self.load.loaded() else {
                    return;
                };
                for note in &loaded.notes {
                    ui.weak(note);
                }
                let a = &loaded.analysis;
                let warnings = ProblemList::new(&a.warnings).not_kept(a.warnings_dropped);
                let title = format!("{} warning(s)", warnings.count());
                warnings.show_collapsed(ui, "gainsight-warnings", title);
            });
    }

    fn charts_ui(&mut self, ui: &mut egui::Ui) {
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        let selection = self.selection();
        // Two rows of charts in the space left, within reason.
        let height = ((ui.available_height() - 2.0 * 80.0) / 2.0).clamp(140.0, 360.0);
        let (histograms, projection) = if loaded.lifetimes_known {
            let h = self
                .whatif
                .histograms(&loaded.analysis.store, selection)
                .clone();
            let p = self
                .whatif
                .projection(&loaded.analysis.store, selection)
                .clone();
            (Some(h), Some(p))
        } else {
            (None, None)
        };
        let view = ChartView {
            loaded,
            retention_us: &self.whatif.retention_us,
            selected: self.table.selected,
            histograms: histograms.as_ref(),
            projection: projection.as_ref(),
            height,
        };
        let mut rects = Vec::new();
        egui::ScrollArea::vertical()
            .id_salt("gainsight-charts-scroll")
            .show(ui, |ui| {
                for row in [[0usize, 1, 2], [4, 5, 3]] {
                    ui.columns(3, |columns| {
                        for (column, &chart) in columns.iter_mut().zip(&row) {
                            let (suffix, title) = CHARTS[chart];
                            let rect = chart_frame(column, title, |ui| view.chart_ui(ui, chart));
                            rects.push((suffix, rect));
                        }
                    });
                }
            });
        rects.sort_by_key(|(suffix, _)| CHARTS.iter().position(|(s, _)| s == suffix));
        self.chart_rects = rects;
    }

    /// The loaded input: toolbar, side panel, kernel table, charts.
    fn panels_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("gainsight-toolbar").show(ui, |ui| self.toolbar_ui(ui));
        egui::Panel::right("gainsight-side")
            .resizable(true)
            .default_size(400.0)
            .size_range(260.0..=700.0)
            .show(ui, |ui| self.side_ui(ui));
        egui::Panel::top("gainsight-table")
            .resizable(true)
            .default_size(200.0)
            .size_range(80.0..=800.0)
            .show(ui, |ui| {
                let Some(loaded) = self.load.loaded() else {
                    return;
                };
                table::table_ui(ui, &mut self.table, &loaded.analysis.rows);
            });
        egui::CentralPanel::default().show(ui, |ui| self.charts_ui(ui));
    }
}

/// What the GUI tests read and set of a Gainsight tab; the app itself goes through the methods
/// above.
impl GainsightDoc {
    /// The kernel table (sort, order, selection).
    #[doc(hidden)]
    pub fn table(&self) -> &SortableTable {
        &self.table
    }

    /// The what-if sliders and projection.
    #[doc(hidden)]
    pub fn whatif(&self) -> &WhatIf {
        &self.whatif
    }

    /// The what-if sliders and projection, mutable (to compute a projection).
    #[doc(hidden)]
    pub fn whatif_mut(&mut self) -> &mut WhatIf {
        &mut self.whatif
    }

    /// Export folder and name, and the last export's result.
    #[doc(hidden)]
    pub fn export_settings(&self) -> &ExportSettings {
        &self.export
    }

    /// Export folder and name, mutable (to type them).
    #[doc(hidden)]
    pub fn export_settings_mut(&mut self) -> &mut ExportSettings {
        &mut self.export
    }

    /// Screen rects of the charts drawn last frame, by file suffix.
    #[doc(hidden)]
    pub fn chart_rects(&self) -> &[(&'static str, Rect)] {
        &self.chart_rects
    }

    /// Whether a screenshot was requested and not yet received.
    #[doc(hidden)]
    pub fn screenshot_pending(&self) -> bool {
        self.screenshot_pending
    }
}

/// What the charts are drawn from, for one frame.
struct ChartView<'a> {
    loaded: &'a Loaded,
    retention_us: &'a [f64],
    selected: Option<usize>,
    histograms: Option<&'a [sightline_model::gainsight::LogHistogram; 2]>,
    projection: Option<&'a whatif::Projection>,
    height: f32,
}

impl ChartView<'_> {
    /// Draws chart `chart` (an index of [`CHARTS`]).
    fn chart_ui(&self, ui: &mut egui::Ui, chart: usize) {
        let (suffix, _) = CHARTS[chart];
        let loaded = self.loaded;
        match chart {
            0 | 1 => {
                let level = chart;
                let (Some(h), Some(p)) = (self.histograms, self.projection) else {
                    ui.weak("No lifetimes loaded");
                    return;
                };
                let marks: Vec<RetentionMark> = loaded
                    .params
                    .retention
                    .iter()
                    .enumerate()
                    .map(|(i, c)| RetentionMark {
                        name: c.name.clone(),
                        retention_us: self.retention_us.get(i).copied().unwrap_or(c.retention_us),
                        covered: p.covered[level].get(i).copied().unwrap_or(0.0),
                    })
                    .collect();
                charts::histogram_ui(ui, suffix, level, &h[level], &marks, self.height);
            }
            2 => {
                let groups = refresh_groups(loaded, self.projection);
                charts::grouped_bars_ui(ui, suffix, &groups, "refreshes (log)", true, self.height);
            }
            3 => {
                let groups = area_groups(loaded);
                charts::grouped_bars_ui(ui, suffix, &groups, "area", false, self.height);
            }
            _ => {
                let level = chart - 4;
                let rows = &loaded.analysis.rows;
                let mut order: Vec<usize> = (0..rows.len()).collect();
                order.sort_by_key(|&i| rows[i].kernel_id);
                let kernels: Vec<(u64, f64, bool)> = order
                    .iter()
                    .map(|&i| {
                        let row = &rows[i];
                        let f = if level == 0 {
                            row.l1_write_frequency
                        } else {
                            row.l2_write_frequency
                        };
                        (row.kernel_id, f.unwrap_or(0.0), self.selected == Some(i))
                    })
                    .collect();
                let s = &loaded.report.write_frequency[level];
                let marks = FrequencyMarks {
                    max: s.max,
                    p90: s.p90,
                    weighted: s.weighted,
                };
                charts::write_frequency_ui(ui, suffix, level, &kernels, marks, self.height);
            }
        }
    }
}

/// For each kernel row, its index in the lifetime store: the k-th row of an id is the k-th
/// kernel of that id in the store (input order).
fn store_indices(loaded: &Loaded) -> Vec<Option<usize>> {
    let mut positions: std::collections::HashMap<u64, std::collections::VecDeque<usize>> =
        std::collections::HashMap::new();
    for (index, id) in loaded.analysis.store.kernel_ids.iter().enumerate() {
        positions.entry(*id).or_default().push_back(index);
    }
    loaded
        .analysis
        .rows
        .iter()
        .map(|row| positions.get_mut(&row.kernel_id)?.pop_front())
        .collect()
}

/// Refreshes per cell type and level (the projection, else the report), SRAM first at zero.
fn refresh_groups(loaded: &Loaded, projection: Option<&whatif::Projection>) -> Vec<Group> {
    let mut groups = vec![Group {
        name: "SRAM".into(),
        values: [0.0, 0.0],
        notes: ["no refresh".into(), "no refresh".into()],
    }];
    for (index, cell) in loaded.params.retention.iter().enumerate() {
        let value = |level: usize| match projection {
            Some(p) => p.refreshes[level].get(index).map_or(0.0, |&n| n as f64),
            None => loaded.report.refreshes[level]
                .get(index)
                .map_or(0.0, |(_, v)| *v),
        };
        let values = [value(0), value(1)];
        groups.push(Group {
            name: cell.name.clone(),
            values,
            notes: values.map(|v| format!("{} refreshes", compact(v))),
        });
    }
    groups
}

/// Area per technology and level (the report's), with the share of SRAM's.
fn area_groups(loaded: &Loaded) -> Vec<Group> {
    let [l1, l2] = &loaded.report.area;
    let sram = |level: &[(String, f64)]| {
        level
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("sram"))
            .map(|(_, v)| *v)
    };
    let (s1, s2) = (sram(l1), sram(l2));
    l1.iter()
        .enumerate()
        .map(|(i, (name, a1))| {
            let a2 = l2.get(i).map_or(0.0, |(_, v)| *v);
            let note = |a: f64, s: Option<f64>| match s {
                Some(s) if s > 0.0 => format!("{} ({:.1}% of SRAM)", compact(a), a / s * 100.0),
                _ => compact(a),
            };
            Group {
                name: name.clone(),
                values: [*a1, a2],
                notes: [note(*a1, s1), note(a2, s2)],
            }
        })
        .collect()
}

/// GPGPU-Sim logs (a file or a folder) and the frontend's outputs open in the Gainsight panel.
pub const DOCUMENT: DocumentType = DocumentType {
    kind: DocumentKind::Gainsight,
    name: "Gainsight",
    file_kinds: &[FileKind::Gainsight],
    open: |path, _states, wake| Box::new(GainsightDoc::open(path, move || wake())),
    state: None,
};

impl DocumentView for GainsightDoc {
    type Loaded = Loaded;
    type Sent = std::convert::Infallible;
    type Done = Box<Loaded>;
    type Error = JobError;

    fn load(&self) -> &Load<GainsightDoc> {
        &self.load
    }

    fn load_mut(&mut self) -> &mut Load<GainsightDoc> {
        &mut self.load
    }

    fn start(&mut self, wake: Wake) -> LoadJob<Self> {
        let (inputs, params) = self
            .next
            .take()
            .unwrap_or_else(|| (Inputs::of(self.load.path()), Params::default()));
        start_load(inputs, params, &wake)
    }

    fn sent(&mut self, message: std::convert::Infallible) -> Option<Opened> {
        match message {}
    }

    fn done(&mut self, loaded: Box<Loaded>) -> Option<Opened> {
        let opened = Opened::new(format!(
            "{} kernel(s), {} L1 and {} L2 lifetimes",
            loaded.analysis.rows.len(),
            count_label(loaded.report.lifetime_count[0]),
            count_label(loaded.report.lifetime_count[1]),
        ))
        .elapsed(loaded.elapsed);
        self.take_loaded(loaded);
        Some(opened)
    }

    fn loaded_ui(&mut self, ui: &mut egui::Ui, _services: &mut Services<'_>) {
        self.panels_ui(ui);
    }

    fn poll_view(&mut self) -> Option<Status> {
        self.poll_exports()
    }

    fn view_progress(&self) -> Option<(f32, String)> {
        self.export_job.as_ref().and(self.export_progress.clone())
    }

    fn cancel_view(&mut self) -> bool {
        if let Some(job) = self.export_job.take() {
            job.cancel();
            self.export_progress = None;
            self.export.last = Some(("Export cancelled".into(), true));
        }
        // The load, when one runs, is cancelled with the export.
        false
    }

    fn load_cancelled(&mut self) -> Option<&'static str> {
        Some("the previous results stay")
    }
}

impl Document for GainsightDoc {
    crate::lifecycle::lifecycle_methods!();

    crate::document::any_methods!();
}
