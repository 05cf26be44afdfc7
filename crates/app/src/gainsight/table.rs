//! The per-kernel table: the `.sim.csv` columns, sortable by any column (the shared
//! [`crate::widgets::table`]: ascending, descending, the file's order), one row selected to
//! filter the charts.

use std::cmp::Ordering;

use eframe::egui;
use egui_extras::Column;

use sightline_model::gainsight::{KERNEL_HEADER, KernelRow};

use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// A cell's value for sorting and display.
#[derive(Debug, Clone, PartialEq)]
pub enum CellValue {
    /// An integer column.
    Int(u64),
    /// A float column (`None`: an empty statistic, written `0` in the CSV).
    Float(Option<f64>),
    /// The kernel name.
    Text(String),
}

impl CellValue {
    /// The text shown in the table.
    pub fn display(&self) -> String {
        match self {
            CellValue::Int(n) => n.to_string(),
            CellValue::Float(None) => "-".to_string(),
            CellValue::Float(Some(v)) => compact(*v),
            CellValue::Text(s) => s.clone(),
        }
    }

    fn cmp(&self, other: &CellValue) -> Ordering {
        match (self, other) {
            (CellValue::Int(a), CellValue::Int(b)) => a.cmp(b),
            (CellValue::Float(a), CellValue::Float(b)) => match (a, b) {
                (Some(a), Some(b)) => a.total_cmp(b),
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
            },
            (CellValue::Text(a), CellValue::Text(b)) => a.cmp(b),
            _ => Ordering::Equal,
        }
    }
}

/// A number in at most 6 significant digits (scientific outside 1e-3..1e7).
pub fn compact(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e7).contains(&a) {
        return format!("{v:.4e}");
    }
    let decimals = (5 - a.log10().floor() as i32).clamp(0, 8) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The value of column `column` (an index of [`KERNEL_HEADER`]) of `row`.
pub fn cell(row: &KernelRow, column: usize) -> CellValue {
    let f = CellValue::Float;
    match column {
        0 => CellValue::Int(row.kernel_id),
        1 => CellValue::Text(row.name.clone()),
        2 => f(row.l1.mean),
        3 => f(row.l1.median),
        4 => f(row.l1.p90),
        5 => f(row.l1.max),
        6 => f(row.l2.mean),
        7 => f(row.l2.median),
        8 => f(row.l2.p90),
        9 => f(row.l2.max),
        10 => f(row.l1_read_frequency),
        11 => f(row.l1_write_frequency),
        12 => f(row.l2_read_frequency),
        13 => f(row.l2_write_frequency),
        14 => f(row.l1_utilization),
        15 => CellValue::Int(row.l1_size),
        16 => CellValue::Int(row.l1_unique),
        17 => f(row.l2_utilization),
        18 => CellValue::Int(row.l2_size),
        19 => CellValue::Int(row.l2_unique),
        20 => f(row.total_read_frequency),
        21 => f(row.total_write_frequency),
        _ => CellValue::Int(row.total_cycles),
    }
}

/// Rebuilds the display order (after new rows); drops a selection past the rows.
pub fn resort(table: &mut SortableTable, rows: &[KernelRow]) {
    table.invalidate();
    table.display_order(rows.len(), &|c, a, b| compare(rows, c, a, b));
    if table.selected.is_some_and(|s| s >= rows.len()) {
        table.selected = None;
    }
}

/// Ascending order of rows `a` and `b` by column `column`.
fn compare(rows: &[KernelRow], column: usize, a: usize, b: usize) -> Ordering {
    cell(&rows[a], column).cmp(&cell(&rows[b], column))
}

/// Draws the table; a click on the selected row unselects it. Returns whether the selection
/// changed.
pub fn table_ui(ui: &mut egui::Ui, table: &mut SortableTable, rows: &[KernelRow]) -> bool {
    let before = table.selected;
    let mut clicked = None;
    egui::ScrollArea::horizontal()
        .id_salt("gainsight-table-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let max_height = ui.available_height() - 28.0;
            let headers = KERNEL_HEADER
                .iter()
                .enumerate()
                .map(|(index, title)| {
                    let width = match index {
                        0 => 86.0,
                        1 => 220.0,
                        _ => 92.0,
                    };
                    let width = Column::initial(width)
                        .at_least(40.0)
                        .clip(true)
                        .resizable(true);
                    Header::new(title, width)
                })
                .collect();
            clicked = Table::new("gainsight-kernels", headers, "file order")
                .row_height(20.0)
                .max_height(max_height)
                .min_height(0.0)
                .show(
                    ui,
                    table,
                    rows.len(),
                    &|c, a, b| compare(rows, c, a, b),
                    &mut |ui, r, column| {
                        let text = cell(&rows[r], column).display();
                        if column == 0 {
                            ui.add(egui::Label::new(text).selectable(false));
                        } else {
                            cell_text(ui, &text);
                        }
                    },
                );
        });
    if clicked.is_some() && clicked == before {
        table.selected = None;
    }
    clicked.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_numbers() {
        assert_eq!(compact(1193.795578397058), "1193.8");
        assert_eq!(compact(0.7802083333333333), "0.780208");
        assert_eq!(compact(3.0), "3");
        assert_eq!(compact(1.0e-5), "1.0000e-5");
        assert_eq!(compact(0.0), "0");
    }

    #[test]
    fn sorting_is_stable_and_cycles() {
        let rows: Vec<KernelRow> = [(3u64, 10u64), (1, 30), (2, 10)]
            .iter()
            .map(|&(id, cycles)| KernelRow {
                kernel_id: id,
                total_cycles: cycles,
                ..KernelRow::default()
            })
            .collect();
        let mut t = SortableTable::default();
        let click = |t: &mut SortableTable, column: usize| {
            t.click_header(column);
            resort(t, &rows);
            t.order.clone()
        };
        assert_eq!(click(&mut t, 0), [1, 2, 0]);
        assert_eq!(click(&mut t, 0), [0, 2, 1]);
        assert_eq!(click(&mut t, 22), [0, 2, 1]);
        assert_eq!(click(&mut t, 22), [1, 0, 2]);
        assert_eq!(click(&mut t, 22), [0, 1, 2]);
    }
}
