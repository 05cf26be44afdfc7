//! The bottom panel: the summary tables (`nsys stats` reports computed by the model), one at a
//! time, sortable by any column (the shared [`crate::widgets::table`]); clicking a row
//! highlights that name's instances on the timeline and steps through them.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui;
use egui_extras::Column;

use sightline_model::core::join_two;
use sightline_model::timeline::nsys::NsysError;
use sightline_model::timeline::nsys::stats::{
    CellText, ReportOutcome, ReportTable, strip_stats_suffix,
};
use sightline_model::timeline::{EventId, EventKind, StrId, Timeline};

use super::expert::{ExpertSource, Target};
use crate::widgets::background_sort::{BackgroundSort, JobCompare, PrepareSort};
use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// A report's table, or why there is none.
pub type ReportResult = Result<ReportOutcome, NsysError>;

/// The instances of a clicked row.
#[derive(Debug, Clone, Default)]
pub struct Instances {
    /// The row's name, as the report writes it.
    pub label: String,
    /// Events of that name and the report's kinds, in time order.
    pub events: Vec<EventId>,
    /// The current one.
    pub current: Option<usize>,
    /// Per string id: whether it is the row's name (what the canvas outlines).
    pub names: Vec<bool>,
}

/// The tab the summary panel shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Pane {
    /// The report `StatsPanel::shown`.
    #[default]
    Report,
    /// The CPU profile.
    Profile,
    /// The expert rules.
    Expert,
    /// The export's diagnostics.
    Diagnostics,
    /// The export's Analysis Summary.
    Analysis,
    /// NVIDIA's multi-report recipes over the timeline's exports.
    Recipes,
    /// This run compared with another.
    Compare,
}

/// What the panel's tabs read besides the timeline: the export the expert rules read, the
/// exports the recipes and Compare read, the `nsys` that exports a report to compare with.
#[derive(Default, Clone, Copy)]
pub struct PanelInputs<'a> {
    /// What the expert rules read.
    pub expert: Option<&'a ExpertSource>,
    /// Every export of the timeline.
    pub exports: &'a [PathBuf],
    /// The `nsys` executable (`None`: the first on `PATH`).
    pub nsys: Option<&'a PathBuf>,
}

/// The panel's state.
#[derive(Debug, Default)]
pub struct StatsPanel {
    /// The reports, by name (set when the loader has computed them).
    pub reports: Option<Vec<(String, ReportResult)>>,
    /// Index of the report shown.
    pub shown: usize,
    /// The table's sort state (reset when another report is shown).
    pub table: SortableTable,
    /// The clicked row's instances.
    pub instances: Option<Instances>,
    /// What the panel shows: a report, or one of the other tabs.
    pub pane: Pane,
    /// The CPU profile (offered when the timeline has CPU samples).
    pub profile: super::cpu_profile::CpuProfile,
    /// The expert rules and their findings.
    pub expert: super::expert::ExpertPanel,
    /// The export's diagnostics (offered when it has some).
    pub diagnostics: super::diagnostics::DiagnosticsList,
    /// The Analysis Summary (offered when the export has one).
    pub analysis: super::analysis_summary::AnalysisSummaryPanel,
    /// Any report on demand.
    pub runner: super::report_runner::ReportRunner,
    /// The sort of a long table, off the UI thread.
    pub sorter: BackgroundSort,
    /// The Recipes tab.
    pub recipes: crate::recipes::RecipesPanel,
    /// The Compare tab.
    pub compare: crate::recipes::compare::ComparePane,
}

/// The panel reads as its table's state (`stats.sort`, `stats.order`).
impl std::ops::Deref for StatsPanel {
    type Target = SortableTable;

    fn deref(&self) -> &SortableTable {
        &self.table
    }
}

/// The event kinds a report summarizes.
pub fn report_kinds(report: &str) -> &'static [EventKind] {
    match report {
        "cuda_gpu_kern_sum" => &[EventKind::Kernel],
        "cuda_api_sum" => &[EventKind::CudaApi],
        "cuda_gpu_mem_time_sum" | "cuda_gpu_mem_size_sum" => {
            &[EventKind::Memcpy, EventKind::Memset]
        }
        "osrt_sum" => &[EventKind::OsRuntime],
        "nvtx_sum" | "nvtx_pushpop_sum" | "nvtx_startend_sum" => {
            &[EventKind::NvtxPushPop, EventKind::NvtxStartEnd]
        }
        other => sightline_model::timeline::model_report(other).map_or(&[], |r| r.kinds),
    }
}

/// The column holding the row's name (the last of Name / Operation / Range).
pub fn name_column(table: &ReportTable) -> Option<usize> {
    table
        .columns
        .iter()
        .rposition(|c| matches!(c.as_str(), "Name" | "Operation" | "Range"))
}

/// The events of `timeline` a summary row named `label` stands for: the report's kinds, and the
/// name as the timeline writes it (NVTX rows carry a `domain:` prefix; API rows lose a `_vNNNN`
/// suffix), in time order.
pub fn find_instances(timeline: &Timeline, report: &str, label: &str) -> Instances {
    let kinds = report_kinds(report);
    let short = label.split_once(':').map(|(_, rest)| rest);
    let names: Vec<bool> = timeline
        .strings
        .iter()
        .map(|(_, s)| {
            !s.is_empty() && (s == label || strip_stats_suffix(s) == label || Some(s) == short)
        })
        .collect();
    let wanted: HashSet<StrId> = timeline
        .strings
        .iter()
        .filter(|(id, _)| names[id.0 as usize])
        .map(|(id, _)| id)
        .collect();
    let mut events: Vec<(i64, EventId)> = if wanted.is_empty() {
        Vec::new()
    } else {
        timeline
            .events()
            .filter(|e| kinds.contains(&e.kind) && wanted.contains(&e.name))
            .map(|e| (e.start, e.id))
            .collect()
    };
    events.sort_unstable();
    Instances {
        label: label.to_string(),
        events: events.into_iter().map(|(_, id)| id).collect(),
        current: None,
        names,
    }
}

impl Instances {
    /// Steps to the next (`forward`) or previous instance; returns it.
    pub fn step(&mut self, forward: bool) -> Option<EventId> {
        super::search::step_around(&self.events, &mut self.current, forward)
    }
}

impl StatsPanel {
    /// The shown report's table, when it has one.
    pub fn shown_table(&self) -> Option<&ReportTable> {
        table_of(self.reports.as_deref(), self.shown)
    }

    /// Row indices of the shown table in display order (sorted as asked).
    pub fn display_order(&mut self) -> &[usize] {
        let Some(table) = table_of(self.reports.as_deref(), self.shown) else {
            return &[];
        };
        self.table
            .display_order(table.rows.len(), &row_order(table))
    }

    /// Clicks row `row` (an index into the table's rows): a trace report's row is an event (go
    /// to it); a summary row's instances are found and the first is gone to. Returns it.
    pub fn click_row(&mut self, timeline: &Timeline, row: usize) -> Option<EventId> {
        let table = self.shown_table()?;
        if let Some(event) = super::report_runner::trace_event(timeline, table, row) {
            self.instances = None;
            return Some(event);
        }
        let col = name_column(table)?;
        let label = table.rows.cell(row, col)?.as_str().to_string();
        let mut instances = find_instances(timeline, &table.report, &label);
        let first = instances.step(true);
        self.instances = Some(instances);
        first
    }

    /// Adds a report run on demand as a tab (replacing one of the same request) and shows it.
    pub fn add_report(&mut self, (request, result): super::report_runner::RunResult) {
        let reports = self.reports.get_or_insert_with(Vec::new);
        let at = match reports.iter().position(|(n, _)| *n == request) {
            Some(i) => {
                reports[i].1 = result;
                i
            }
            None => {
                reports.push((request, result));
                reports.len() - 1
            }
        };
        self.shown = at;
        self.pane = Pane::Report;
        self.table = SortableTable::default();
        self.instances = None;
    }

    /// Draws the panel; returns where to go (an event of a summary row or a finding, a
    /// finding's range). `inputs` is what the tabs read, `wake` requests a repaint.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Timeline,
        range: Option<(i64, i64)>,
        inputs: PanelInputs<'_>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Option<Target> {
        let PanelInputs {
            expert,
            exports,
            nsys,
        } = inputs;
        let sort_wake = wake.clone();
        let Some(reports) = &self.reports else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Computing the summary tables…");
            });
            return None;
        };
        let names: Vec<String> = reports.iter().map(|(n, _)| n.clone()).collect();
        self.tabs_ui(ui, timeline, &names, !exports.is_empty());
        match self.pane {
            Pane::Expert => return self.expert.ui(ui, timeline, expert, wake),
            Pane::Profile => {
                self.profile.ui(ui, timeline, range);
                return None;
            }
            Pane::Diagnostics => return self.diagnostics.ui(ui, timeline).map(Target::Event),
            Pane::Analysis => {
                self.analysis.ui(ui, timeline);
                return None;
            }
            Pane::Recipes => {
                self.recipes.ui(ui, exports, &wake);
                return None;
            }
            Pane::Compare => {
                self.compare.ui(ui, exports, nsys, &wake);
                return None;
            }
            Pane::Report => {}
        }
        if let Some(source) = expert
            && let Some(request) = self.runner.ui(ui)
        {
            self.runner
                .run(source.export.clone(), request, move || wake());
        }
        let mut go_to = self.instances_ui(ui);
        if !self.report_status_ui(ui) {
            return go_to;
        }
        if let Some(table) = table_of(self.reports.as_deref(), self.shown) {
            self.sorter.update(
                &mut self.table,
                table.rows.len(),
                move || sort_wake(),
                || prepare_sort(table.clone()),
            );
            self.sorter.status_ui(ui);
        }
        if let Some(row) = self.table_ui(ui) {
            go_to = self.click_row(timeline, row).map(Target::Event);
        }
        go_to
    }

    /// The tab row: one tab per report, then the CPU profile (when the timeline has samples),
    /// the expert rules, the diagnostics (when there are some), the Analysis Summary (when
    /// the export has one), the recipes and Compare (when the timeline has exports).
    fn tabs_ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Timeline,
        names: &[String],
        has_exports: bool,
    ) {
        let diagnostics = self.diagnostics.of(timeline).len();
        ui.horizontal(|ui| {
            ui.strong("Summary");
            for (i, name) in names.iter().enumerate() {
                let shown = self.shown == i && self.pane == Pane::Report;
                if ui.selectable_label(shown, name).clicked() && !shown {
                    self.shown = i;
                    self.pane = Pane::Report;
                    self.table = SortableTable::default();
                    self.instances = None;
                }
            }
            let mut tab = |ui: &mut egui::Ui, pane: Pane, label: &str, hover: &str| {
                ui.separator();
                if ui
                    .selectable_label(self.pane == pane, label)
                    .on_hover_text(hover)
                    .clicked()
                {
                    self.pane = pane;
                    self.instances = None;
                }
            };
            if super::cpu_profile::has_samples(timeline) {
                tab(
                    ui,
                    Pane::Profile,
                    "CPU profile",
                    "Where the sampled threads spent their time",
                );
            }
            tab(
                ui,
                Pane::Expert,
                "Expert",
                "The expert rules: what nsys analyze points at, and your rules",
            );
            if diagnostics > 0 {
                tab(
                    ui,
                    Pane::Diagnostics,
                    &format!("Diagnostics ({diagnostics})"),
                    "What Nsight Systems noted while it profiled",
                );
            }
            if super::analysis_summary::has_summary(timeline) {
                tab(
                    ui,
                    Pane::Analysis,
                    "Analysis summary",
                    "How the run was captured: command line, environment, CPU, GPUs, NICs, \
                     CUDA streams, export",
                );
            }
            if has_exports {
                tab(
                    ui,
                    Pane::Recipes,
                    "Recipes",
                    "NVIDIA's multi-report recipes over this timeline's exports",
                );
                tab(
                    ui,
                    Pane::Compare,
                    "Compare",
                    "This run against another: per kernel, memory operation, NVTX range and \
                     API call, the change and whether it is beyond the spread",
                );
            }
        });
    }

    /// The previous/next buttons of the instances of the clicked row; returns the event to go
    /// to.
    fn instances_ui(&mut self, ui: &mut egui::Ui) -> Option<Target> {
        let mut go_to = None;
        if let Some(inst) = &mut self.instances {
            ui.horizontal(|ui| {
                let any = !inst.events.is_empty();
                if ui
                    .add_enabled(any, egui::Button::new("Previous instance"))
                    .clicked()
                {
                    go_to = inst.step(false).map(Target::Event);
                }
                if ui
                    .add_enabled(any, egui::Button::new("Next instance"))
                    .clicked()
                {
                    go_to = inst.step(true).map(Target::Event);
                }
                let at = inst.current.map_or(0, |i| i + 1);
                ui.label(format!(
                    "{} — instance {at} of {}",
                    inst.label,
                    inst.events.len()
                ));
            });
        }
        go_to
    }

    /// What the shown report says above its table (its damaged pages), or instead of it
    /// (skipped, failed); returns whether its table is drawn.
    fn report_status_ui(&self, ui: &mut egui::Ui) -> bool {
        match self
            .reports
            .as_ref()
            .and_then(|r| r.get(self.shown))
            .map(|(_, r)| r)
        {
            Some(Ok(ReportOutcome::Table(t))) => {
                // Tables with damaged pages: what the report could not read, above the table.
                for w in &t.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, w);
                }
            }
            Some(Ok(ReportOutcome::Skipped(why))) => {
                ui.weak(format!("SKIPPED: {why}"));
                return false;
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e.to_string());
                return false;
            }
            None => return false,
        }
        true
    }

    /// The sortable table; returns the clicked row.
    fn table_ui(&mut self, ui: &mut egui::Ui) -> Option<usize> {
        let table = table_of(self.reports.as_deref(), self.shown)?;
        let name_col = name_column(table);
        let selected_label = self.instances.as_ref().map(|i| i.label.as_str());
        let headers = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let width = if Some(i) == name_col {
                    Column::remainder().at_least(200.0).clip(true)
                } else {
                    Column::auto().at_least(60.0)
                };
                Header::new(c, width)
            })
            .collect();
        let selected = |r: usize| {
            name_col
                .and_then(|c| table.rows.cell(r, c))
                .is_some_and(|cell| Some(cell.as_str()) == selected_label)
        };
        Table::new(("stats-table", self.shown), headers, "the report's order")
            .header_height(20.0)
            .max_height(ui.available_height())
            .selected(&selected)
            .show(
                ui,
                &mut self.table,
                table.rows.len(),
                &row_order(table),
                &mut |ui, r, c| {
                    if let Some(cell) = table.rows.cell(r, c) {
                        cell_text(ui, cell.as_str());
                    }
                },
            )
    }
}

/// Report `shown`'s table, when it has one.
fn table_of(reports: Option<&[(String, ReportResult)]>, shown: usize) -> Option<&ReportTable> {
    match reports?.get(shown)? {
        (_, Ok(ReportOutcome::Table(t))) => Some(t),
        _ => None,
    }
}

/// A cell's sort key: its number when it reads as one, and its text.
struct SortKey {
    number: Option<f64>,
    text: CellText,
}

/// The sort keys of column `col` of `table`; `tick(rows done)` is called every few thousand
/// rows and stops the reading when it returns `false` (`None` then).
fn sort_keys(
    table: &ReportTable,
    col: usize,
    tick: impl FnMut(usize) -> bool,
) -> Option<Vec<SortKey>> {
    keys_of(table, col, 0..table.rows.len(), tick)
}

/// The sort keys of column `col` of rows `rows` of `table` (see [`sort_keys`]).
fn keys_of(
    table: &ReportTable,
    col: usize,
    rows: std::ops::Range<usize>,
    mut tick: impl FnMut(usize) -> bool,
) -> Option<Vec<SortKey>> {
    let mut keys = Vec::with_capacity(rows.len());
    for (done, r) in rows.enumerate() {
        if done % 16_384 == 0 && !tick(done) {
            return None;
        }
        let text = table
            .rows
            .cell(r, col)
            .map_or_else(CellText::default, |c| c.as_str().into());
        keys.push(SortKey {
            number: text.parse::<f64>().ok(),
            text,
        });
    }
    Some(keys)
}

/// Rows `a` and `b` ascending by their `keys`: as numbers when both cells are numbers, else as
/// text.
fn compare_keys(keys: &[SortKey], a: usize, b: usize) -> Ordering {
    match (keys.get(a), keys.get(b)) {
        (Some(x), Some(y)) => match (x.number, y.number) {
            (Some(p), Some(q)) => p.total_cmp(&q),
            _ => x.text.cmp(&y.text),
        },
        (x, y) => x.is_some().cmp(&y.is_some()),
    }
}

/// The ascending order of `table`'s rows by a column, for the shared table widget: as numbers
/// when both cells are numbers, else as text. Each cell of the column is read once per sort (a
/// trace's rows are formatted when read), not once per comparison.
pub(crate) fn row_order(table: &ReportTable) -> impl Fn(usize, usize, usize) -> Ordering + '_ {
    let keys: RefCell<Option<(usize, Vec<SortKey>)>> = RefCell::new(None);
    move |col, a, b| {
        let mut keys = keys.borrow_mut();
        if keys.as_ref().is_none_or(|(c, _)| *c != col) {
            *keys = sort_keys(table, col, |_| true).map(|k| (col, k));
        }
        keys.as_ref()
            .map_or(Ordering::Equal, |(_, keys)| compare_keys(keys, a, b))
    }
}

/// What the background sort of `table` runs: the column's keys read with progress, then the
/// comparison of two rows by them.
fn prepare_sort(table: ReportTable) -> PrepareSort {
    Box::new(move |ctx, col| {
        let rows = table.rows.len();
        // Each half of the column on its own core (a trace's rows are formatted for their
        // keys); the first half reports the progress of both.
        let mid = rows / 2;
        let first = |done: usize| {
            ctx.progress(
                done as f32 / mid.max(1) as f32,
                &format!("reading the column of {rows} rows"),
            );
            !ctx.is_cancelled()
        };
        let second = || keys_of(&table, col, mid..rows, |_| !ctx.is_cancelled());
        let (mut keys, rest) = join_two(
            "sightline-sort-keys",
            || keys_of(&table, col, 0..mid, first),
            second,
        );
        keys.as_mut()?.extend(rest?);
        let keys = keys?;
        let compare: JobCompare = Box::new(move |a, b| compare_keys(&keys, a, b));
        Some(compare)
    })
}
