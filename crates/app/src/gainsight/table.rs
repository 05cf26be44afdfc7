//! The per-kernel table: the `.sim.csv` columns, sortable by any column (click a header; again to
//! reverse), one row selected to filter the charts.

use std::cmp::Ordering;

use eframe::egui;
use egui_extras::{Column, TableBuilder};

use sightline_model::gainsight::csv::KERNEL_HEADER;
use sightline_model::gainsight::stats::KernelRow;

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

/// The table's state: sort column and direction, the selected row, the display order.
#[derive(Debug, Clone, Default)]
pub struct KernelTable {
    /// Sort column (an index of [`KERNEL_HEADER`]) and whether descending; `None`: file order.
    pub sort: Option<(usize, bool)>,
    /// The selected row (an index into the rows), filtering the charts.
    pub selected: Option<usize>,
    /// Row indices in display order.
    pub order: Vec<usize>,
}

impl KernelTable {
    /// Sorts by `column`: ascending first, descending when it is already the sort column.
    pub fn sort_by(&mut self, column: usize, rows: &[KernelRow]) {
        let descending = matches!(self.sort, Some((c, false)) if c == column);
        self.sort = Some((column, descending));
        self.resort(rows);
    }

    /// Rebuilds the display order (after a sort change or new rows).
    pub fn resort(&mut self, rows: &[KernelRow]) {
        self.order = (0..rows.len()).collect();
        if let Some((column, descending)) = self.sort {
            // Stable: equal values keep the file order.
            self.order.sort_by(|&a, &b| {
                let o = cell(&rows[a], column).cmp(&cell(&rows[b], column));
                if descending { o.reverse() } else { o }
            });
        }
        if self.selected.is_some_and(|s| s >= rows.len()) {
            self.selected = None;
        }
    }

    /// Draws the table; returns whether the selection changed.
    pub fn ui(&mut self, ui: &mut egui::Ui, rows: &[KernelRow]) -> bool {
        if self.order.len() != rows.len() {
            self.resort(rows);
        }
        let mut changed = false;
        let mut sort_clicked = None;
        egui::ScrollArea::horizontal()
            .id_salt("gainsight-table-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let max_height = ui.available_height() - 28.0;
                let mut table = TableBuilder::new(ui)
                    .id_salt("gainsight-kernels")
                    .striped(true)
                    .auto_shrink([false, false])
                    .sense(egui::Sense::click())
                    .resizable(true)
                    .min_scrolled_height(0.0)
                    .max_scroll_height(max_height)
                    .cell_layout(egui::Layout::left_to_right(egui::Align::Center));
                for index in 0..KERNEL_HEADER.len() {
                    let width = match index {
                        0 => 86.0,
                        1 => 220.0,
                        _ => 92.0,
                    };
                    table = table.column(Column::initial(width).at_least(40.0).clip(true));
                }
                table
                    .header(22.0, |mut header| {
                        for (index, title) in KERNEL_HEADER.iter().enumerate() {
                            header.col(|ui| {
                                let arrow = match self.sort {
                                    Some((c, false)) if c == index => " ^",
                                    Some((c, true)) if c == index => " v",
                                    _ => "",
                                };
                                if ui
                                    .button(egui::RichText::new(format!("{title}{arrow}")).strong())
                                    .on_hover_text(format!("Sort by {title}"))
                                    .clicked()
                                {
                                    sort_clicked = Some(index);
                                }
                            });
                        }
                    })
                    .body(|body| {
                        body.rows(20.0, self.order.len(), |mut table_row| {
                            let index = self.order[table_row.index()];
                            let row = &rows[index];
                            table_row.set_selected(self.selected == Some(index));
                            for column in 0..KERNEL_HEADER.len() {
                                table_row.col(|ui| {
                                    let text = cell(row, column).display();
                                    if column == 0 {
                                        ui.add(egui::Label::new(text).selectable(false));
                                    } else {
                                        ui.add(egui::Label::new(text).selectable(false).truncate());
                                    }
                                });
                            }
                            if table_row.response().clicked() {
                                self.selected = if self.selected == Some(index) {
                                    None
                                } else {
                                    Some(index)
                                };
                                changed = true;
                            }
                        });
                    });
            });
        if let Some(column) = sort_clicked {
            self.sort_by(column, rows);
        }
        changed
    }
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
    fn sorting_is_stable_and_toggles() {
        let rows: Vec<KernelRow> = [(3u64, 10u64), (1, 30), (2, 10)]
            .iter()
            .map(|&(id, cycles)| KernelRow {
                kernel_id: id,
                total_cycles: cycles,
                ..KernelRow::default()
            })
            .collect();
        let mut t = KernelTable::default();
        t.sort_by(0, &rows);
        assert_eq!(t.order, [1, 2, 0]);
        t.sort_by(0, &rows);
        assert_eq!(t.order, [0, 2, 1]);
        t.sort_by(22, &rows);
        assert_eq!(t.order, [0, 2, 1]);
        t.sort_by(22, &rows);
        assert_eq!(t.order, [1, 0, 2]);
    }
}
