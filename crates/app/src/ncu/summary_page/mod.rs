//! The Summary page: one row per result — index, kernel, grid, block, duration, the
//! throughput and occupancy values of the Speed of Light and Occupancy sections, the estimated
//! speedup of the top stored rule result and, per shown baseline, the duration's difference to
//! the baseline's matching result ([`deltas`]) — in the shared sortable table, filtered by kernel name and NVTX range; a click opens the
//! result's Details page. Reports with several GPUs get a per-GPU rollup above the table.
//! The rows are computed on a background job ([`job`]) when the page is first shown, and again
//! when the sections change.

pub mod deltas;
pub mod job;

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

use eframe::egui;

use crate::widgets::filter::filter_field;
use egui_extras::Column;
use sightline_model::ncu::Report;
use sightline_model::section::{OverviewColumns, OverviewRow, gpu_rollup};

use self::deltas::Deltas;
use self::job::{SummaryJob, start_summary};
use super::baselines::Baseline;
use super::kernel_list::format_duration;
use super::section_state::SectionState;
use crate::job::{Polled, poll_job};
use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// The fixed columns before the value columns.
const INDEX: usize = 0;
const NAME: usize = 1;
const GRID: usize = 2;
const BLOCK: usize = 3;
const DURATION: usize = 4;
const FIXED: usize = 5;

/// What the Summary page asks of its tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryAction {
    /// Open result `index`'s Details page.
    Open(usize),
    /// Add result `index` as a baseline.
    AddBaseline(usize),
}

/// The Summary page of one report.
#[derive(Default)]
pub struct SummaryPage {
    job: Option<SummaryJob>,
    /// `(fraction, stage)` while the rows are computed.
    pub progress: Option<(f32, String)>,
    /// The section generation the rows were computed under.
    generation: Option<u64>,
    /// The rows received so far, in report order.
    pub rows: Vec<OverviewRow>,
    /// The value columns.
    pub columns: OverviewColumns,
    /// Sort, selection and display order.
    pub table: SortableTable,
    /// Kernel name filter (case-insensitive substring).
    pub name_filter: String,
    /// NVTX range filter (case-insensitive substring).
    pub nvtx_filter: String,
    /// Why the rows could not be computed.
    pub error: Option<String>,
    /// The shown baselines' differences, per row.
    pub deltas: Deltas,
}

impl SummaryPage {
    /// Starts computing the rows when there are none for the sections' generation.
    fn ensure(&mut self, report: &Arc<Report>, sections: &SectionState, ctx: &egui::Context) {
        if self.generation == Some(sections.generation) {
            return;
        }
        self.generation = Some(sections.generation);
        self.rows.clear();
        self.columns = OverviewColumns::default();
        self.error = None;
        self.table.invalidate();
        let ctx = ctx.clone();
        self.job = Some(start_summary(
            Arc::clone(report),
            Arc::clone(&sections.set),
            sections.prefer_embedded,
            move || ctx.request_repaint(),
        ));
        self.progress = Some((0.0, "summary".into()));
    }

    /// Applies the batches that arrived.
    fn poll(&mut self) {
        while let Some(event) = poll_job(&mut self.job, &mut self.progress) {
            match event {
                Polled::Sent(batch) => {
                    self.columns = batch.columns;
                    self.rows.extend(batch.rows);
                    self.table.invalidate();
                }
                Polled::Done(()) => {}
                Polled::Failed(error) => self.error = Some(error.to_string()),
            }
        }
    }

    /// Whether the rows are still being computed.
    pub fn computing(&self) -> bool {
        self.job.is_some()
    }

    /// Whether row `i` passes the filters (lower-case needles).
    fn keep(&self, name: &str, nvtx: &str, i: usize) -> bool {
        let row = &self.rows[i];
        (name.is_empty()
            || row.launch.name.to_lowercase().contains(name)
            || row.launch.demangled.to_lowercase().contains(name))
            && (nvtx.is_empty() || row.nvtx.to_lowercase().contains(nvtx))
    }

    /// Ascending order of rows `a` and `b` by `column`; missing values sort first.
    pub fn compare(&self, column: usize, a: usize, b: usize) -> Ordering {
        let (ra, rb) = (&self.rows[a], &self.rows[b]);
        let number = |v: Option<f64>| v.filter(|v| !v.is_nan()).unwrap_or(f64::NEG_INFINITY);
        match column {
            INDEX => ra.launch.index.cmp(&rb.launch.index),
            NAME => ra.launch.name.cmp(&rb.launch.name),
            GRID => ra.launch.grid.cmp(&rb.launch.grid),
            BLOCK => ra.launch.block.cmp(&rb.launch.block),
            DURATION => number(ra.launch.duration_ns).total_cmp(&number(rb.launch.duration_ns)),
            c if c == self.speedup_column() => number(ra.top_rule.as_ref().map(|t| t.speedup))
                .total_cmp(&number(rb.top_rule.as_ref().map(|t| t.speedup))),
            c if c > self.speedup_column() => {
                let baseline = c - self.speedup_column() - 1;
                let relative = |row: usize| {
                    self.deltas
                        .get(baseline, row)
                        .and_then(|(_, d)| d)
                        .and_then(|d| d.relative)
                };
                number(relative(a)).total_cmp(&number(relative(b)))
            }
            c => {
                let value = |r: &OverviewRow| r.value(c - FIXED).map(|v| v.value);
                number(value(ra)).total_cmp(&number(value(rb)))
            }
        }
    }

    fn speedup_column(&self) -> usize {
        FIXED + self.columns.columns.len()
    }

    /// The display order after the filters and the sort (recomputed when they change).
    pub fn refresh(&mut self) -> &[usize] {
        let name = self.name_filter.to_lowercase();
        let nvtx = self.nvtx_filter.to_lowercase();
        let mut table = std::mem::take(&mut self.table);
        table.filtered_order(
            self.rows.len(),
            &|i| self.keep(&name, &nvtx, i),
            &|c, a, b| self.compare(c, a, b),
        );
        self.table = table;
        &self.table.order
    }

    /// Draws the page of report `report` (at `path`); `selected` is the tab's selected result,
    /// `baselines` the shown baselines. Returns what the user asked for.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        (path, report): (&Path, &Arc<Report>),
        sections: &SectionState,
        selected: usize,
        baselines: &[&Baseline],
    ) -> Option<SummaryAction> {
        self.ensure(report, sections, ui.ctx());
        self.poll();
        if self.deltas.update(path, &self.rows, baselines) {
            self.table.invalidate();
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        let mut changed = false;
        ui.horizontal(|ui| {
            changed |= filter_field(ui, "Kernel:", &mut self.name_filter, "name contains", 220.0)
                .changed();
            changed |=
                filter_field(ui, "NVTX:", &mut self.nvtx_filter, "range contains", 220.0).changed();
            if let Some((fraction, stage)) = &self.progress {
                ui.add(
                    egui::ProgressBar::new(*fraction)
                        .desired_width(160.0)
                        .text(stage.as_str()),
                );
            }
        });
        if changed {
            self.table.invalidate();
        }
        self.refresh();
        ui.label(
            egui::RichText::new(format!(
                "{} of {} result(s)",
                self.table.order.len(),
                self.rows.len()
            ))
            .small()
            .weak(),
        );
        self.rollup_ui(ui);
        self.table_ui(ui, selected)
    }

    /// The per-GPU rollup, for reports whose results ran on more than one GPU.
    fn rollup_ui(&self, ui: &mut egui::Ui) {
        let rollup = gpu_rollup(&self.rows, self.columns.columns.len());
        if rollup.len() < 2 {
            return;
        }
        egui::CollapsingHeader::new(format!("Per GPU ({} devices)", rollup.len()))
            .id_salt("summary-per-gpu")
            .default_open(true)
            .show(ui, |ui| {
                egui::Grid::new("summary-per-gpu-grid")
                    .striped(true)
                    .show(ui, |ui| {
                        ui.strong("Device");
                        ui.strong("Results");
                        ui.strong("Total duration");
                        for column in &self.columns.columns {
                            ui.strong(format!("Mean {}", column.label));
                        }
                        ui.end_row();
                        for gpu in &rollup {
                            ui.label(gpu.device.map_or_else(|| "-".to_owned(), |d| d.to_string()));
                            ui.label(gpu.results.to_string());
                            ui.label(format_duration(gpu.total_ns));
                            for mean in &gpu.means {
                                ui.label(
                                    mean.map_or_else(|| "-".to_owned(), |m| format!("{m:.2} %")),
                                );
                            }
                            ui.end_row();
                        }
                    });
            });
    }

    fn table_ui(&mut self, ui: &mut egui::Ui, selected: usize) -> Option<SummaryAction> {
        let mut headers = vec![
            Header::new("ID", Column::auto().at_least(32.0)).tooltip("The result's index"),
            Header::new("Kernel", Column::initial(260.0).at_least(120.0).clip(true))
                .tooltip("The function's name (a row's tooltip: the demangled name)"),
            Header::new("Grid", Column::auto()),
            Header::new("Block", Column::auto()),
            Header::new("Duration", Column::auto()).tooltip("gpu__time_duration.sum"),
        ];
        for column in &self.columns.columns {
            headers.push(
                Header::new(&column.label, Column::auto().at_least(60.0)).tooltip(&column.metric),
            );
        }
        headers
            .push(Header::new("Top speedup", Column::auto()).tooltip(
                "The estimated speedup of the stored rule result that estimates the most",
            ));
        let baseline_headers: Vec<(String, String)> = self
            .deltas
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                (
                    format!("Δ Duration {}", i + 1),
                    format!(
                        "The duration's difference to baseline {}, {name}: to its result of \
                         the same kernel name and launch order, or the one picked in the \
                         baselines bar (relative; absolute and the result on hover)",
                        i + 1
                    ),
                )
            })
            .collect();
        for (label, tooltip) in &baseline_headers {
            headers.push(Header::new(label, Column::auto()).tooltip(tooltip));
        }
        let name = self.name_filter.to_lowercase();
        let nvtx = self.nvtx_filter.to_lowercase();
        let mut table = std::mem::take(&mut self.table);
        let mut action = None;
        let speedup = self.speedup_column();
        let clicked = Table::new("summary-table", headers, "the report's order")
            .sideways()
            .filter(&|i| self.keep(&name, &nvtx, i))
            .selected(&|i| self.rows[i].launch.index == selected)
            .row_menu(&mut |ui, i| {
                let index = self.rows[i].launch.index;
                if ui.button("Open Details").clicked() {
                    action = Some(SummaryAction::Open(index));
                }
                if ui.button("Add as baseline").clicked() {
                    action = Some(SummaryAction::AddBaseline(index));
                }
            })
            .show(
                ui,
                &mut table,
                self.rows.len(),
                &|c, a, b| self.compare(c, a, b),
                &mut |ui, i, column| {
                    cell_ui(ui, (i, &self.rows[i]), column, speedup, &self.deltas);
                },
            );
        self.table = table;
        action.or(clicked.map(|i| SummaryAction::Open(self.rows[i].launch.index)))
    }
}

/// Draws column `column` of `row`.
fn cell_ui(
    ui: &mut egui::Ui,
    (position, row): (usize, &OverviewRow),
    column: usize,
    speedup: usize,
    deltas: &Deltas,
) -> egui::Response {
    match column {
        INDEX => cell_text(ui, &row.launch.index.to_string()),
        NAME => cell_text(ui, &row.launch.name).on_hover_text(&row.launch.demangled),
        GRID => cell_text(ui, &row.launch.grid),
        BLOCK => cell_text(ui, &row.launch.block),
        DURATION => cell_text(
            ui,
            &row.launch
                .duration_ns
                .map_or_else(|| "-".to_owned(), format_duration),
        ),
        c if c == speedup => match &row.top_rule {
            Some(top) => cell_text(ui, &format!("{:.2} %", top.speedup))
                .on_hover_text(format!("{}: {}", top.rule, top.title)),
            None => cell_text(ui, "-"),
        },
        c if c > speedup => match deltas.get(c - speedup - 1, position) {
            Some((matched, Some(d))) => cell_text(ui, &d.relative_text()).on_hover_text(format!(
                "{} (baseline result {matched})",
                d.absolute_text("nsecond")
            )),
            Some((matched, None)) => cell_text(ui, "N/A")
                .on_hover_text(format!("baseline result {matched} has no duration")),
            None => cell_text(ui, "N/A")
                .on_hover_text("no result of the same kernel name and launch order"),
        },
        c => match row.value(c - FIXED) {
            Some(cell) => cell_text(ui, &cell.text),
            None => cell_text(ui, "N/A"),
        },
    }
}
