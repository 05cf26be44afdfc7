//! The tables of typed CodeXL values, drawn by the shared [`crate::widgets::table`] (a click on
//! a column header sorts by it: ascending, descending, then the file's order again); numbers
//! sort as numbers, work sizes by their product, text by its characters, `NULL` and empty fields
//! last.

use std::borrow::Cow;
use std::cmp::Ordering;

use eframe::egui;

use sightline_model::codexl::{CounterValue, Values};

use crate::widgets::table::{Header, Table, cell_text};

/// How a typed value is shown: numbers as the file wrote them (every digit kept), work sizes
/// as `{x, y, z}`, `NULL` as written, empty as nothing. `store` holds the file's texts.
pub fn value_text<'a>(store: &'a Values, value: &CounterValue) -> Cow<'a, str> {
    match value {
        CounterValue::Sizes(i) => {
            let parts: Vec<String> = store.sizes(*i).iter().map(u64::to_string).collect();
            Cow::Owned(format!("{{{}}}", parts.join(", ")))
        }
        _ => store.written(value),
    }
}

/// Rank of a value's kind in a sort: numbers and sizes first, then text, then `NULL`, then
/// empty fields.
fn kind_rank(value: &CounterValue) -> u8 {
    match value {
        CounterValue::Number { .. } | CounterValue::Written { .. } | CounterValue::Sizes(_) => 0,
        CounterValue::Text(_) => 1,
        CounterValue::Null => 2,
        CounterValue::Empty => 3,
    }
}

/// The sort key of a number-like value: the number, or a work size's product.
fn numeric(store: &Values, value: &CounterValue) -> Option<f64> {
    match value {
        CounterValue::Sizes(i) => Some(store.sizes(*i).iter().map(|&s| s as f64).product()),
        _ => value.as_f64(),
    }
}

/// Ascending order of two values of the file whose texts are in `store` (see the module
/// documentation).
pub fn compare_values(store: &Values, a: &CounterValue, b: &CounterValue) -> Ordering {
    let by_kind = kind_rank(a).cmp(&kind_rank(b));
    if by_kind != Ordering::Equal {
        return by_kind;
    }
    match (a, b) {
        (CounterValue::Sizes(x), CounterValue::Sizes(y)) => numeric(store, a)
            .unwrap_or(0.0)
            .total_cmp(&numeric(store, b).unwrap_or(0.0))
            .then_with(|| store.sizes(*x).cmp(store.sizes(*y))),
        (CounterValue::Text(x), CounterValue::Text(y)) => store.text(*x).cmp(store.text(*y)),
        _ => match (numeric(store, a), numeric(store, b)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            _ => Ordering::Equal,
        },
    }
}

pub use crate::widgets::table::{SortableTable, arrow_step};

/// Draws a CodeXL table in the available space (scrolling sideways): `columns` headers, `rows`
/// rows whose cells are `cell(row, column)`; `wide` marks the columns that take the remaining
/// width. Returns the row clicked, if any.
#[allow(clippy::too_many_arguments)]
pub fn table_ui<'d>(
    ui: &mut egui::Ui,
    table: &mut SortableTable,
    id_salt: &str,
    columns: &[String],
    wide: &dyn Fn(usize) -> bool,
    rows: usize,
    cell: &dyn Fn(usize, usize) -> Cow<'d, str>,
    compare: &dyn Fn(usize, usize, usize) -> Ordering,
) -> Option<usize> {
    use egui_extras::Column;
    let headers = columns
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let width = if wide(i) {
                Column::auto().at_least(140.0).clip(true).resizable(true)
            } else {
                Column::auto().at_least(40.0).resizable(true)
            };
            Header::new(name, width)
        })
        .collect();
    Table::new(id_salt, headers, "file order").sideways().show(
        ui,
        table,
        rows,
        compare,
        &mut |ui, r, c| {
            cell_text(ui, cell(r, c).as_ref());
        },
    )
}

/// The keys of the CodeXL documents, for the shortcut list.
pub const TABLE_KEYS: &[(&str, &str)] = &[
    ("Up / Down", "Previous / next row"),
    (
        "Click a column header",
        "Sort: ascending, descending, file order",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_sort_numerically_and_missing_values_last() {
        let mut store = Values::default();
        let mut values = ["", "100", "NULL", "9.5", "b", "-1", "{64 1 1}", "{2 1 1}"]
            .map(|f| store.parse(f, false));
        values.sort_by(|a, b| compare_values(&store, a, b));
        let texts: Vec<String> = values
            .iter()
            .map(|v| value_text(&store, v).into_owned())
            .collect();
        assert_eq!(
            texts,
            [
                "-1",
                "{2, 1, 1}",
                "9.5",
                "{64, 1, 1}",
                "100",
                "b",
                "NULL",
                ""
            ]
        );
    }
}
