//! The occupancy document (`SESSION.occupancy`): the header above the sortable table of
//! dispatches (RCP's columns as the file has them), and for the selected row the four charts
//! CodeXL drew (occupancy against VGPRs, SGPRs, LDS bytes and work-group size, the kernel's
//! point marked) with the waves each resource allows.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use eframe::egui;

use super::dispatch::offer_session_ui;
use super::header::{header_ui, warnings_ui};
use super::loader::{LoadError, Loaded, start_load};
use super::occupancy_charts::{KernelCharts, charts_grid_ui, limits_text};
use super::table::{SortableTable, arrow_step, compare_values, table_ui, value_text};
use crate::document::{Document, Services, Wake};
use crate::lifecycle::{DocumentView, Load, LoadJob, Opened, STARTING};
use sightline_model::codexl::{CodexlError, OccupancyFile};
use sightline_model::core::Progress;

/// An occupancy file prepared for the view (on the loader thread).
pub struct OccupancyData {
    /// The file as the model reads it.
    pub file: OccupancyFile,
    /// Device names of the rows (the header summary's devices).
    pub devices: Vec<String>,
}

impl OccupancyData {
    /// Reads an occupancy file, reporting the bytes read to `progress`.
    pub fn read(path: &Path, progress: Progress<'_>) -> Result<OccupancyData, CodexlError> {
        let mut file = OccupancyFile::open_with(path, progress)?;
        // The typed rows and values are what the view reads: drop the raw fields.
        file.table.rows = Vec::new();
        let mut devices: Vec<String> = Vec::new();
        for row in &file.rows {
            if !row.device_name.is_empty() && !devices.contains(&row.device_name) {
                devices.push(row.device_name.clone());
            }
        }
        Ok(OccupancyData { file, devices })
    }

    /// The text of `column` in row `row`.
    pub fn cell(&self, row: usize, column: usize) -> Cow<'_, str> {
        self.file
            .values
            .get(row)
            .and_then(|v| v.get(column))
            .map_or(Cow::Borrowed(""), |v| value_text(&self.file.store, v))
    }

    /// Ascending order of rows `a` and `b` by `column`.
    pub fn compare(&self, column: usize, a: usize, b: usize) -> Ordering {
        let value = |r: usize| self.file.values.get(r).and_then(|v| v.get(column));
        match (value(a), value(b)) {
            (Some(x), Some(y)) => compare_values(&self.file.store, x, y),
            _ => Ordering::Equal,
        }
    }
}

/// An open occupancy file.
pub struct OccupancyDoc {
    /// Loading, then the prepared file and its session.
    load: Load<OccupancyDoc>,
    /// The table (its selection is the charted row).
    table: SortableTable,
    /// The selected row's charts.
    charts: Option<KernelCharts>,
}

impl OccupancyDoc {
    /// Starts loading `path` on the loader thread; `wake` requests a repaint on progress.
    pub fn open(path: PathBuf, wake: impl Fn() + Send + Sync + 'static) -> OccupancyDoc {
        let mut doc = OccupancyDoc {
            load: Load::new(path, std::sync::Arc::new(wake)),
            table: SortableTable::default(),
            charts: None,
        };
        crate::lifecycle::start(&mut doc, STARTING);
        doc
    }

    /// The prepared file, once loaded.
    pub fn data(&self) -> Option<&OccupancyData> {
        self.load.loaded().map(|l| &l.data)
    }

    /// Selects row `row` and computes its charts.
    pub fn select(&mut self, row: usize) {
        let Some(data) = self.data() else { return };
        let Some(r) = data.file.rows.get(row) else {
            return;
        };
        let charts = KernelCharts::new(row, r);
        self.charts = Some(charts);
        self.table.select(row);
    }
}

/// What the GUI tests read of an occupancy file's tab; the app itself goes through the methods
/// above.
impl OccupancyDoc {
    /// The table (sort, order, selection).
    #[doc(hidden)]
    pub fn table(&self) -> &SortableTable {
        &self.table
    }

    /// The selected row's charts.
    #[doc(hidden)]
    pub fn charts(&self) -> Option<&KernelCharts> {
        self.charts.as_ref()
    }
}

impl DocumentView for OccupancyDoc {
    type Loaded = Loaded<OccupancyData>;
    type Sent = std::convert::Infallible;
    type Done = Box<Loaded<OccupancyData>>;
    type Error = LoadError;

    fn load(&self) -> &Load<OccupancyDoc> {
        &self.load
    }

    fn load_mut(&mut self) -> &mut Load<OccupancyDoc> {
        &mut self.load
    }

    fn start(&mut self, wake: Wake) -> LoadJob<Self> {
        start_load(self.load.path(), OccupancyData::read, move || wake())
    }

    fn sent(&mut self, message: std::convert::Infallible) -> Option<Opened> {
        match message {}
    }

    fn done(&mut self, loaded: Box<Loaded<OccupancyData>>) -> Option<Opened> {
        let file = &loaded.data.file;
        let (rows, warnings) = (file.rows.len(), file.warnings().len());
        let opened = Opened::new(format!("{rows} dispatch(es)"))
            .warnings(warnings)
            .elapsed(loaded.elapsed);
        self.load.set_loaded(Some(*loaded));
        if rows > 0 {
            self.select(0);
        }
        Some(opened)
    }

    fn loaded_ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        let open_files = &mut services.open_files;
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        let data = &loaded.data;
        let path = self.load.path();
        egui::Panel::top("codexl-occupancy-top").show(ui, |ui| {
            offer_session_ui(ui, path, &loaded.session, open_files);
            header_ui(ui, &data.file.table.header, &data.devices);
            warnings_ui(ui, path, data.file.warnings());
        });
        if let Some(charts) = &self.charts
            && let Some(row) = data.file.rows.get(charts.row)
        {
            // The charts get most of the height at first (the table scrolls).
            let default_height = (ui.available_height() * 0.6).max(260.0);
            egui::Panel::bottom("codexl-occupancy-charts")
                .resizable(true)
                .default_size(default_height)
                .size_range(220.0..=900.0)
                .show(ui, |ui| {
                    let (kernel, _, device) = data.file.kernel_parts(row);
                    ui.horizontal(|ui| {
                        ui.strong(format!(
                            "{kernel}{} — row {}, line {}",
                            device.map(|d| format!(" on {d}")).unwrap_or_default(),
                            charts.row + 1,
                            row.line
                        ));
                    });
                    ui.add(egui::Label::new(limits_text(row, charts)).wrap());
                    ui.add_space(4.0);
                    charts_grid_ui(ui, charts);
                });
        }
        let mut clicked = None;
        egui::CentralPanel::default().show(ui, |ui| {
            ui.strong(format!(
                "Dispatches ({}) — click a row for its occupancy charts, a header to sort",
                data.file.rows.len()
            ));
            let kernel_column = data.file.table.column("Kernel Name");
            clicked = table_ui(
                ui,
                &mut self.table,
                "codexl-occupancy-table",
                &data.file.table.columns,
                &|c| Some(c) == kernel_column,
                data.file.rows.len(),
                &|r, c| data.cell(r, c),
                &|c, a, b| data.compare(c, a, b),
            );
        });
        if let Some(forward) = arrow_step(ui) {
            clicked = clicked.or(self.table.step(forward));
        }
        if let Some(row) = clicked {
            self.select(row);
        }
    }
}

impl Document for OccupancyDoc {
    crate::lifecycle::lifecycle_methods!();

    fn shortcuts(&self) -> &'static [(&'static str, &'static str)] {
        super::table::TABLE_KEYS
    }

    crate::document::any_methods!();
}
