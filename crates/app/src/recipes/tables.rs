//! A recipe's table in the shared sortable table: its typed columns (integers and floats sort
//! as numbers, text as text, missing values first), cells as the CSV writes them.

use std::cmp::Ordering;

use eframe::egui;
use egui_extras::Column;

use sightline_model::timeline::recipe::{Cells, Table};

use crate::widgets::table::{Header, SortableTable, Table as TableView, cell_text};

/// Orders rows `a` and `b` of a column ascending (missing values first).
pub fn compare_cells(cells: &Cells, a: usize, b: usize) -> Ordering {
    fn by<T>(v: &[Option<T>], a: usize, b: usize, cmp: impl Fn(&T, &T) -> Ordering) -> Ordering {
        match (
            v.get(a).and_then(Option::as_ref),
            v.get(b).and_then(Option::as_ref),
        ) {
            (Some(x), Some(y)) => cmp(x, y),
            (x, y) => x.is_some().cmp(&y.is_some()),
        }
    }
    match cells {
        Cells::Int(v) => by(v, a, b, Ord::cmp),
        Cells::Float(v) => by(v, a, b, f64::total_cmp),
        Cells::Text(v) => by(v, a, b, Ord::cmp),
        Cells::Null(_) => Ordering::Equal,
    }
}

/// Whether a column holds numbers (drawn right-aligned).
fn numeric(cells: &Cells) -> bool {
    matches!(cells, Cells::Int(_) | Cells::Float(_))
}

/// Draws `table` with its sort state `state`; returns the row clicked.
pub fn table_ui(ui: &mut egui::Ui, table: &Table, state: &mut SortableTable) -> Option<usize> {
    let headers = table
        .columns
        .iter()
        .map(|c| {
            let width = if numeric(&c.cells) {
                Column::auto().at_least(60.0)
            } else {
                Column::auto().at_least(120.0).clip(true)
            };
            Header::new(&c.name, width)
        })
        .collect();
    let compare = |col: usize, a: usize, b: usize| {
        table
            .columns
            .get(col)
            .map_or(Ordering::Equal, |c| compare_cells(&c.cells, a, b))
    };
    TableView::new(("recipe-table", table.stem), headers, "the recipe's order")
        .header_height(20.0)
        .max_height(ui.available_height())
        .sideways()
        .show(ui, state, table.rows(), &compare, &mut |ui, r, c| {
            let Some(column) = table.columns.get(c) else {
                return;
            };
            let text = column.cells.text(r);
            if numeric(&column.cells) {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    cell_text(ui, &text);
                });
            } else {
                cell_text(ui, &text);
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_sort_as_numbers_and_missing_values_first() {
        let ints = Cells::Int(vec![Some(10), None, Some(9)]);
        assert_eq!(compare_cells(&ints, 0, 2), Ordering::Greater);
        assert_eq!(compare_cells(&ints, 1, 2), Ordering::Less);
        let floats = Cells::Float(vec![Some(2.5), Some(10.0)]);
        assert_eq!(compare_cells(&floats, 0, 1), Ordering::Less);
        let text = Cells::Text(vec![Some("b".into()), Some("a".into())]);
        assert_eq!(compare_cells(&text, 0, 1), Ordering::Greater);
    }
}
