//! Nsight Compute's memory tables (shared memory, L1/TEX, L2, L2 eviction policies, device
//! memory), drawn from a resolved [`MemoryTable`]: an aligned, striped grid with the access
//! kinds as rows and the counters as columns, values right-aligned with their units, "N/A"
//! dimmed where the report lacks a metric, "-" where a column does not apply to a row. Hovering
//! a cell names the metric (or the formula) behind it. Wide tables scroll horizontally. With
//! baselines, each cell has a line per baseline under its value: the baseline's value in its
//! colour and the difference to it in percent ("N/A" where the baseline lacks the metric; cells
//! match by section identifier and metric — or formula — name).

use eframe::egui::{self, Align, Layout, RichText, Ui};

use sightline_model::section::memory::MemoryTable;
use sightline_model::section::{Entry, Item};

use super::baselines::ComparedBaseline;
use super::baselines::compare::{BaselineValue, direction_color, values};

/// The section of a table and the baselines its cells are compared with.
pub(super) type Comparison<'a> = Option<(&'a str, &'a [ComparedBaseline])>;

/// One cell, ready to draw.
pub(super) struct CellView {
    /// The formatted value ("-" for a cell without an entry).
    pub(super) text: String,
    /// The entry behind it.
    pub(super) entry: Option<Entry>,
    /// No value: drawn weak.
    pub(super) missing: bool,
    /// The baselines' values (none without baselines or without an entry).
    pub(super) baselines: Vec<BaselineValue>,
    /// What the column's width is measured on: the value and the baselines' lines.
    pub(super) measure: String,
}

/// The cells of one table row: entries of `item` by index (`None`: a cell this architecture or
/// report does not have), compared with the baselines of `comparison`.
pub(super) fn cell_views(
    cells: &[Option<usize>],
    item: &Item,
    comparison: Comparison<'_>,
) -> Vec<CellView> {
    cells
        .iter()
        .map(|cell| match cell.and_then(|i| item.entries.get(i)) {
            Some(entry) => {
                let baselines = comparison.map_or_else(Vec::new, |(section, baselines)| {
                    values(section, entry, baselines)
                });
                let measure = std::iter::once(entry.text.clone())
                    .chain(baselines.iter().map(BaselineValue::line))
                    .collect::<Vec<_>>()
                    .join("\n");
                CellView {
                    text: entry.text.clone(),
                    missing: entry.value.is_none(),
                    entry: Some(entry.clone()),
                    baselines,
                    measure,
                }
            }
            None => CellView {
                text: "-".to_owned(),
                entry: None,
                missing: true,
                baselines: Vec::new(),
                measure: "-".to_owned(),
            },
        })
        .collect()
}

/// A table laid out for [`aligned_grid`]: the grid's id, the column headings and the rows.
pub(super) struct GridView {
    id: String,
    columns: Vec<String>,
    rows: Vec<(String, Vec<CellView>)>,
}

impl GridView {
    /// Lays out rows `(label, cells)` whose cells are entries of `item` by index, as the grid
    /// `id`, compared with the baselines of `comparison`.
    pub(super) fn build<'r>(
        id: String,
        columns: &[&str],
        rows: impl Iterator<Item = (String, &'r [Option<usize>])>,
        item: &Item,
        comparison: Comparison<'_>,
    ) -> GridView {
        GridView {
            id,
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: rows
                .map(|(label, cells)| (label, cell_views(cells, item, comparison)))
                .collect(),
        }
    }

    /// Whether the table has no rows.
    pub(super) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Draws the grid; `cell_ui(ui, row label, cell)` draws a cell.
    pub(super) fn ui(&self, ui: &mut Ui, cell_ui: impl Fn(&mut Ui, &str, &CellView)) {
        aligned_grid(
            ui,
            &self.id,
            &self.columns,
            &self.rows,
            |cell| cell.measure.as_str(),
            cell_ui,
        );
    }
}

/// A memory table, laid out once per page.
pub struct MemoryTableView {
    grid: GridView,
}

impl MemoryTableView {
    /// Lays out `table`, whose entries are `item.entries`; `place` makes the grid id unique on
    /// the page; `section` is the table's section, whose entries `baselines` are matched in.
    pub fn build(
        place: &str,
        item: &Item,
        table: &MemoryTable,
        section: &str,
        baselines: &[ComparedBaseline],
    ) -> MemoryTableView {
        let rows = table
            .rows
            .iter()
            .map(|row| (row.label.to_owned(), row.cells.as_slice()));
        MemoryTableView {
            grid: GridView::build(
                format!("memory-table-{place}-{}", table.widget),
                &table.columns,
                rows,
                item,
                (!baselines.is_empty()).then_some((section, baselines)),
            ),
        }
    }
}

/// Draws the table. Columns are as wide as their widest text, so values line up on the right
/// of their column and headings stay apart.
pub fn memory_table_ui(ui: &mut Ui, view: &MemoryTableView) {
    if view.grid.is_empty() {
        ui.weak("No rows apply to this kernel.");
        return;
    }
    view.grid.ui(ui, cell_ui);
}

/// A grid with a label column and value columns as wide as their widest text (heading
/// included), values aligned right, scrolling sideways when the panel is narrow: the layout of
/// Nsight Compute's memory, NUMA and NVLink tables.
pub fn aligned_grid<C>(
    ui: &mut Ui,
    id: &str,
    columns: &[String],
    rows: &[(String, Vec<C>)],
    text: impl Fn(&C) -> &str,
    cell_ui: impl Fn(&mut Ui, &str, &C),
) {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let colour = ui.visuals().text_color();
    let width_of = |text: &str| {
        ui.painter()
            .layout_no_wrap(text.to_owned(), font.clone(), colour)
            .size()
            .x
    };
    let widths: Vec<f32> = columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            rows.iter()
                .filter_map(|(_, cells)| cells.get(index))
                .map(|cell| width_of(text(cell)))
                .fold(width_of(column), f32::max)
                .ceil()
                + 2.0
        })
        .collect();
    let height = ui.spacing().interact_size.y;
    let cell = |ui: &mut Ui, width: f32, add: &mut dyn FnMut(&mut Ui)| {
        ui.allocate_ui_with_layout(
            egui::vec2(width, height),
            Layout::right_to_left(Align::Center),
            |ui| {
                ui.set_min_width(width);
                add(ui);
            },
        );
    };
    egui::ScrollArea::horizontal()
        .id_salt((id, "scroll"))
        .show(ui, |ui| {
            egui::Grid::new(id)
                .striped(true)
                .num_columns(columns.len() + 1)
                .spacing([18.0, 4.0])
                .show(ui, |ui| {
                    ui.label("");
                    for (column, &width) in columns.iter().zip(&widths) {
                        cell(ui, width, &mut |ui| {
                            ui.label(RichText::new(column).strong());
                        });
                    }
                    ui.end_row();
                    for (label, cells) in rows {
                        ui.label(label);
                        for (value, &width) in cells.iter().zip(&widths) {
                            cell(ui, width, &mut |ui| cell_ui(ui, label, value));
                        }
                        ui.end_row();
                    }
                });
        });
}

fn cell_ui(ui: &mut Ui, row: &str, cell: &CellView) {
    let mut text = RichText::new(&cell.text);
    if cell.missing {
        text = text.color(ui.visuals().weak_text_color());
    }
    if !cell.baselines.is_empty() {
        ui.with_layout(Layout::top_down(Align::Max), |ui| {
            ui.spacing_mut().item_spacing.y = 0.0;
            cell_tooltip(ui.add(egui::Label::new(text).selectable(false)), row, cell);
            for value in &cell.baselines {
                baseline_line(ui, value);
            }
        });
        return;
    }
    let response = ui.add(egui::Label::new(text).selectable(false));
    cell_tooltip(response, row, cell);
}

/// One baseline's line of a cell: its value in its colour, then the difference to it coloured
/// by direction (the absolute difference on hover).
fn baseline_line(ui: &mut Ui, value: &BaselineValue) {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let format = |color| egui::TextFormat::simple(font.clone(), color);
    let mut job = egui::text::LayoutJob::default();
    job.append(&value.text, 0.0, format(value.color));
    // Equal values (0 against 0 is common) need no "(0.00%)".
    if let Some(difference) = value.difference.filter(|d| d.absolute != 0.0) {
        job.append(
            &format!(" ({})", difference.relative_text()),
            0.0,
            format(direction_color(ui, &difference)),
        );
    }
    let response = ui.add(egui::Label::new(job).selectable(false));
    if value.missing {
        response.on_hover_text(format!("{}: no value for this metric", value.name));
    } else {
        response.on_hover_text(format!(
            "{}: {} (Δ {})",
            value.name, value.text, value.absolute
        ));
    }
}

/// The hover of a cell's value: its label and metric (or formula).
fn cell_tooltip(response: egui::Response, row: &str, cell: &CellView) {
    let Some(entry) = &cell.entry else {
        response.on_hover_text(format!("{row}: this column does not apply"));
        return;
    };
    response.on_hover_ui(|ui| {
        ui.set_max_width(560.0);
        ui.strong(&entry.label);
        ui.monospace(&entry.metric);
        if entry.derived {
            ui.weak("Computed from the metrics of the formula above");
        }
        if entry.value.is_none() {
            ui.weak("Not collected for this kernel");
        }
    });
}
