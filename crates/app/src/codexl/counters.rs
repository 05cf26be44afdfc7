//! The counters document (`SESSION.csv`, every dialect the model reads): the session header
//! above a sortable table of dispatches whose `Method` is split into kernel, kernel id and
//! device; the per-kernel aggregates beside it; below, a bar chart of the counter chosen in a
//! combo box across the dispatches (hover names the dispatch and value, a click selects its row).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use eframe::egui;

use super::chart::{BarChart, ChartAxes};
use super::dispatch::offer_session_ui;
use super::header::{header_ui, warnings_ui};
use super::loader::{LoadError, Loaded, start_load};
use super::table::{SortableTable, arrow_step, compare_values, table_ui, value_text};
use crate::document::{Document, Services, Wake};
use crate::lifecycle::{DocumentView, Load, LoadJob, Opened, STARTING};
use sightline_model::codexl::{CodexlError, CounterFile, CounterValue, KernelAggregate};
use sightline_model::core::Progress;

/// A column of the dispatch table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownColumn {
    /// The kernel name from `Method`.
    Kernel,
    /// The kernel id from `Method`.
    KernelId,
    /// The device from `Method`.
    Device,
    /// A column of the file (by index), `Method` excepted.
    File(usize),
}

/// A counter file prepared for the view (on the loader thread).
pub struct CountersData {
    /// The file as the model reads it.
    pub file: CounterFile,
    /// Dispatches and time per kernel.
    pub aggregates: Vec<KernelAggregate>,
    /// The dispatch table's columns.
    pub columns: Vec<ShownColumn>,
    /// Their titles.
    pub column_names: Vec<String>,
    /// File columns with at least one number (what the chart can show), in file order.
    pub numeric_columns: Vec<usize>,
    /// Kernel names in order of first dispatch (the chart's colours and legend).
    pub kernel_names: Vec<String>,
    /// Per dispatch, its kernel's index in `kernel_names`.
    pub kernel_of_row: Vec<u32>,
}

impl CountersData {
    /// Reads a counter file (reporting the bytes read to `progress`) and prepares its columns
    /// and aggregates.
    pub fn read(path: &Path, progress: Progress<'_>) -> Result<CountersData, CodexlError> {
        // The reader keeps typed rows only (the raw fields are dropped line by line).
        let file = CounterFile::open_with(path, progress)?;
        let aggregates = file.aggregates();
        let method = file.table.column("Method");
        let mut columns = Vec::new();
        if method.is_some() {
            columns.push(ShownColumn::Kernel);
            if file.rows.iter().any(|r| r.kernel_id.is_some()) {
                columns.push(ShownColumn::KernelId);
            }
            if file.rows.iter().any(|r| r.device.is_some()) {
                columns.push(ShownColumn::Device);
            }
        }
        columns.extend(
            (0..file.table.columns.len())
                .filter(|&i| Some(i) != method)
                .map(ShownColumn::File),
        );
        let column_names = columns
            .iter()
            .map(|c| match c {
                ShownColumn::Kernel => "Kernel".to_string(),
                ShownColumn::KernelId => "Kernel ID".to_string(),
                ShownColumn::Device => "Device".to_string(),
                ShownColumn::File(i) => file.table.columns[*i].clone(),
            })
            .collect();
        let numeric_columns = (0..file.table.columns.len())
            .filter(|&i| Some(i) != method)
            .filter(|&i| {
                file.rows
                    .iter()
                    .any(|r| r.values.get(i).is_some_and(CounterValue::is_number))
            })
            .collect();
        let mut kernel_names: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        let mut kernel_of_row = Vec::with_capacity(file.rows.len());
        for row in &file.rows {
            let next = kernel_names.len() as u32;
            let k = *index.entry(&row.kernel).or_insert_with(|| {
                kernel_names.push(row.kernel.to_string());
                next
            });
            kernel_of_row.push(k);
        }
        Ok(CountersData {
            file,
            aggregates,
            columns,
            column_names,
            numeric_columns,
            kernel_names,
            kernel_of_row,
        })
    }

    /// The text of `column` in dispatch `row`.
    pub fn cell(&self, row: usize, column: usize) -> Cow<'_, str> {
        let Some(r) = self.file.rows.get(row) else {
            return Cow::Borrowed("");
        };
        match self.columns.get(column) {
            Some(ShownColumn::Kernel) => Cow::Borrowed(&r.kernel),
            Some(ShownColumn::KernelId) => r
                .kernel_id
                .map_or(Cow::Borrowed(""), |id| Cow::Owned(id.to_string())),
            Some(ShownColumn::Device) => Cow::Borrowed(r.device.as_deref().unwrap_or("")),
            Some(ShownColumn::File(i)) => r
                .values
                .get(*i)
                .map_or(Cow::Borrowed(""), |v| value_text(&self.file.values, v)),
            None => Cow::Borrowed(""),
        }
    }

    /// Ascending order of dispatches `a` and `b` by `column` (numbers numerically, missing
    /// values last).
    pub fn compare(&self, column: usize, a: usize, b: usize) -> Ordering {
        let (Some(x), Some(y)) = (self.file.rows.get(a), self.file.rows.get(b)) else {
            return Ordering::Equal;
        };
        let text_last = |p: Option<&str>, q: Option<&str>| match (p, q) {
            (Some(p), Some(q)) => p.cmp(q),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        match self.columns.get(column) {
            Some(ShownColumn::Kernel) => x.kernel.cmp(&y.kernel),
            Some(ShownColumn::KernelId) => match (x.kernel_id, y.kernel_id) {
                (Some(p), Some(q)) => p.cmp(&q),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            Some(ShownColumn::Device) => text_last(x.device.as_deref(), y.device.as_deref()),
            Some(ShownColumn::File(i)) => match (x.values.get(*i), y.values.get(*i)) {
                (Some(p), Some(q)) => compare_values(&self.file.values, p, q),
                _ => Ordering::Equal,
            },
            None => Ordering::Equal,
        }
    }

    /// The column the chart shows first: the time column, else the first numeric one.
    pub fn default_chart_column(&self) -> Option<usize> {
        self.file
            .time_column()
            .filter(|t| self.numeric_columns.contains(t))
            .or_else(|| self.numeric_columns.first().copied())
    }
}

/// Titles of the aggregate table.
const AGGREGATE_COLUMNS: [&str; 5] = [
    "Kernel",
    "Device",
    "Dispatches",
    "Total time (ms)",
    "Average time (ms)",
];

/// An open counter file.
pub struct CountersDoc {
    /// Loading, then the prepared file and its session.
    load: Load<CountersDoc>,
    /// The dispatch table.
    table: SortableTable,
    /// The per-kernel table.
    kernels: SortableTable,
    /// The file column the bar chart shows.
    chart_column: Option<usize>,
    /// The dispatch under the pointer in the chart, last frame.
    hovered_dispatch: Option<usize>,
    /// Values of `chart_column` per dispatch, computed when the column changes.
    chart_values: Option<(usize, Vec<Option<f64>>)>,
}

impl CountersDoc {
    /// Starts loading `path` on the loader thread; `wake` requests a repaint on progress.
    pub fn open(path: PathBuf, wake: impl Fn() + Send + Sync + 'static) -> CountersDoc {
        let mut doc = CountersDoc {
            load: Load::new(path, std::sync::Arc::new(wake)),
            table: SortableTable::default(),
            kernels: SortableTable::default(),
            chart_column: None,
            hovered_dispatch: None,
            chart_values: None,
        };
        crate::lifecycle::start(&mut doc, STARTING);
        doc
    }

    /// The prepared file, once loaded.
    pub fn data(&self) -> Option<&CountersData> {
        self.load.loaded().map(|l| &l.data)
    }

    /// Dispatch indices in the table's display order.
    pub fn display_order(&mut self) -> Vec<usize> {
        let Some(loaded) = self.load.loaded() else {
            return Vec::new();
        };
        let data = &loaded.data;
        self.table
            .display_order(data.file.rows.len(), &|c, a, b| data.compare(c, a, b))
            .to_vec()
    }
}

/// What the GUI tests read of a counter file's tab; the app itself goes through the methods
/// above.
impl CountersDoc {
    /// The dispatch table (sort, order, selection).
    #[doc(hidden)]
    pub fn table(&self) -> &SortableTable {
        &self.table
    }

    /// The per-kernel table.
    #[doc(hidden)]
    pub fn kernels(&self) -> &SortableTable {
        &self.kernels
    }

    /// The file column the bar chart shows.
    #[doc(hidden)]
    pub fn chart_column(&self) -> Option<usize> {
        self.chart_column
    }

    /// The dispatch under the pointer in the chart, last frame.
    #[doc(hidden)]
    pub fn hovered_dispatch(&self) -> Option<usize> {
        self.hovered_dispatch
    }
}

/// The counter choice and the bar chart; returns the dispatch clicked.
fn chart_ui(
    ui: &mut egui::Ui,
    data: &CountersData,
    chart_column: &mut Option<usize>,
    cache: &mut Option<(usize, Vec<Option<f64>>)>,
    selected: Option<usize>,
    hovered: &mut Option<usize>,
) -> Option<usize> {
    if data.numeric_columns.is_empty() {
        ui.weak("No column of this file holds numbers: nothing to chart.");
        return None;
    }
    if chart_column.is_none_or(|c| !data.numeric_columns.contains(&c)) {
        *chart_column = data.default_chart_column();
    }
    let column = (*chart_column)?;
    let name = |c: usize| data.file.table.columns.get(c).map_or("", String::as_str);
    ui.horizontal(|ui| {
        let label = ui.label("Counter:");
        egui::ComboBox::from_id_salt("codexl-counter-choice")
            .selected_text(name(column))
            .width(220.0)
            .show_ui(ui, |ui| {
                for &c in &data.numeric_columns {
                    ui.selectable_value(chart_column, Some(c), name(c));
                }
            })
            .response
            .labelled_by(label.id);
    });
    let column = chart_column.unwrap_or(column);
    if cache.as_ref().is_none_or(|(c, _)| *c != column) {
        *cache = Some((column, data.file.column_values(column)));
    }
    let values: &[Option<f64>] = cache.as_ref().map_or(&[], |(_, v)| v.as_slice());
    let missing = values.iter().filter(|v| v.is_none()).count();
    let title = if missing > 0 {
        format!(
            "{} per dispatch ({} dispatches, {missing} without a value)",
            name(column),
            values.len()
        )
    } else {
        format!(
            "{} per dispatch ({} dispatches)",
            name(column),
            values.len()
        )
    };
    let size = egui::vec2(ui.available_width(), ui.available_height().max(120.0));
    let chart = BarChart {
        axes: ChartAxes {
            title: &title,
            x_label: "Dispatch (file order)",
            y_label: name(column),
            size,
        },
        values,
        selected,
        groups: &data.kernel_of_row,
        legend: &data.kernel_names,
    };
    let describe = |i: usize| {
        let Some(row) = data.file.rows.get(i) else {
            return String::new();
        };
        let value = row
            .values
            .get(column)
            .map_or(Cow::Borrowed(""), |v| value_text(&data.file.values, v));
        format!(
            "Dispatch {} (line {}): {}\n{} = {value}",
            i + 1,
            row.line,
            row.kernel,
            name(column)
        )
    };
    let out = chart.ui(ui, &describe);
    *hovered = out.hovered;
    out.clicked
}

/// The per-kernel table; returns the kernel row clicked.
fn aggregates_ui(
    ui: &mut egui::Ui,
    table: &mut SortableTable,
    aggregates: &[KernelAggregate],
) -> Option<usize> {
    // The Device column only when `Method` names devices (not in sprofile files).
    let with_device = aggregates.iter().any(|a| a.device.is_some());
    let shown: Vec<usize> = (0..AGGREGATE_COLUMNS.len())
        .filter(|&c| with_device || c != 1)
        .collect();
    let names: Vec<String> = shown
        .iter()
        .map(|&c| AGGREGATE_COLUMNS[c].to_string())
        .collect();
    let cell = |r: usize, c: usize| -> Cow<'_, str> {
        let a = &aggregates[r];
        let c = shown.get(c).copied().unwrap_or(0);
        match c {
            0 => Cow::Borrowed(a.kernel.as_str()),
            1 => Cow::Borrowed(a.device.as_deref().unwrap_or("")),
            2 => Cow::Owned(a.dispatches.to_string()),
            3 => Cow::Owned(format!("{:.5}", a.total_time_ms)),
            _ => Cow::Owned(format!("{:.5}", a.average_time_ms)),
        }
    };
    let compare = |c: usize, x: usize, y: usize| {
        let (a, b) = (&aggregates[x], &aggregates[y]);
        let c = shown.get(c).copied().unwrap_or(0);
        match c {
            0 => a.kernel.cmp(&b.kernel),
            1 => a.device.cmp(&b.device),
            2 => a.dispatches.cmp(&b.dispatches),
            3 => a.total_time_ms.total_cmp(&b.total_time_ms),
            _ => a.average_time_ms.total_cmp(&b.average_time_ms),
        }
    };
    table_ui(
        ui,
        table,
        "codexl-kernels-table",
        &names,
        &|c| c == 0,
        aggregates.len(),
        &cell,
        &compare,
    )
}

impl DocumentView for CountersDoc {
    type Loaded = Loaded<CountersData>;
    type Sent = std::convert::Infallible;
    type Done = Box<Loaded<CountersData>>;
    type Error = LoadError;

    fn load(&self) -> &Load<CountersDoc> {
        &self.load
    }

    fn load_mut(&mut self) -> &mut Load<CountersDoc> {
        &mut self.load
    }

    fn start(&mut self, wake: Wake) -> LoadJob<Self> {
        start_load(self.load.path(), CountersData::read, move || wake())
    }

    fn sent(&mut self, message: std::convert::Infallible) -> Option<Opened> {
        match message {}
    }

    fn done(&mut self, loaded: Box<Loaded<CountersData>>) -> Option<Opened> {
        let data = &loaded.data;
        self.chart_column = data.default_chart_column();
        let opened = Opened::new(format!(
            "{} dispatch(es), {} kernel(s)",
            data.file.rows.len(),
            data.aggregates.len()
        ))
        .warnings(data.file.warnings().len())
        .elapsed(loaded.elapsed);
        self.load.set_loaded(Some(*loaded));
        Some(opened)
    }

    fn loaded_ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        let open_files = &mut services.open_files;
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        let data = &loaded.data;
        let path = self.load.path();
        egui::Panel::top("codexl-counters-top").show(ui, |ui| {
            offer_session_ui(ui, path, &loaded.session, open_files);
            header_ui(ui, &data.file.table.header, &data.file.devices);
            warnings_ui(ui, path, data.file.warnings());
        });
        egui::Panel::bottom("codexl-counters-chart")
            .resizable(true)
            .default_size(280.0)
            .size_range(150.0..=700.0)
            .show(ui, |ui| {
                let clicked = chart_ui(
                    ui,
                    data,
                    &mut self.chart_column,
                    &mut self.chart_values,
                    self.table.selected,
                    &mut self.hovered_dispatch,
                );
                if let Some(row) = clicked {
                    self.table.select(row);
                }
            });
        if !data.aggregates.is_empty() {
            egui::Panel::right("codexl-counters-kernels")
                .resizable(true)
                .default_size(380.0)
                .size_range(220.0..=900.0)
                .show(ui, |ui| {
                    let time = data
                        .file
                        .time_column()
                        .and_then(|t| data.file.table.columns.get(t))
                        .map_or("", String::as_str);
                    ui.strong(format!(
                        "Kernels ({}, time column {time})",
                        data.aggregates.len()
                    ));
                    if let Some(k) = aggregates_ui(ui, &mut self.kernels, &data.aggregates) {
                        let wanted = &data.aggregates[k];
                        if let Some(first) = data.file.rows.iter().position(|r| {
                            *r.kernel == *wanted.kernel
                                && r.device.as_deref() == wanted.device.as_deref()
                        }) {
                            self.table.select(first);
                        }
                    }
                });
        }
        if let Some(forward) = arrow_step(ui) {
            self.table.step(forward);
        }
        egui::CentralPanel::default().show(ui, |ui| {
            ui.strong(format!(
                "Dispatches ({}) — click a header to sort",
                data.file.rows.len()
            ));
            let names = &data.column_names;
            let kernel_column = |c: usize| data.columns.get(c) == Some(&ShownColumn::Kernel);
            table_ui(
                ui,
                &mut self.table,
                "codexl-counters-table",
                names,
                &kernel_column,
                data.file.rows.len(),
                &|r, c| data.cell(r, c),
                &|c, a, b| data.compare(c, a, b),
            );
        });
    }
}

impl Document for CountersDoc {
    crate::lifecycle::lifecycle_methods!();

    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        super::table::TABLE_KEYS
    }

    crate::document::any_methods!();
}
