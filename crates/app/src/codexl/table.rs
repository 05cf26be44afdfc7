//! The tables of typed CodeXL values, drawn by the shared [`crate::widgets::table`] (a click on
//! a column header sorts by it: ascending, descending, then the file's order again); numbers
//! sort as numbers, work sizes by their product, text by its characters, `NULL` and empty fields
//! last.

use std::borrow::Cow;
use std::cmp::Ordering;

use eframe::egui;

use sightline_model::codexl::counters::CounterValue;

use crate::widgets::table::{Header, Table, cell_text};

/// How a typed value is shown: numbers as the file wrote them (every digit kept), work sizes
/// as `{x, y, z}`, `NULL` as written, empty as nothing.
pub fn value_text(value: &CounterValue) -> Cow<'_, str> {
    match value {
        CounterValue::Empty => Cow::Borrowed(""),
        CounterValue::Null => Cow::Borrowed("NULL"),
        CounterValue::Number { text, .. } => Cow::Borrowed(text),
        CounterValue::Sizes(sizes) => {
            let parts: Vec<String> = sizes.iter().map(u64::to_string).collect();
            Cow::Owned(format!("{{{}}}", parts.join(", ")))
        }
        CounterValue::Text(text) => Cow::Borrowed(text),
    }
}

/// Rank of a value's kind in a sort: numbers and sizes first, then text, then `NULL`, then
/// empty fields.
fn kind_rank(value: &CounterValue) -> u8 {
    match value {
        CounterValue::Number { .. } | CounterValue::Sizes(_) => 0,
        CounterValue::Text(_) => 1,
        CounterValue::Null => 2,
        CounterValue::Empty => 3,
    }
}

/// The sort key of a number-like value: the number, or a work size's product.
fn numeric(value: &CounterValue) -> Option<f64> {
    match value {
        CounterValue::Number { value, .. } => Some(*value),
        CounterValue::Sizes(sizes) => Some(sizes.iter().map(|&s| s as f64).product()),
        _ => None,
    }
}

/// Ascending order of two values (see the module documentation).
pub fn compare_values(a: &CounterValue, b: &CounterValue) -> Ordering {
    let by_kind = kind_rank(a).cmp(&kind_rank(b));
    if by_kind != Ordering::Equal {
        return by_kind;
    }
    match (a, b) {
        (CounterValue::Sizes(x), CounterValue::Sizes(y)) => numeric(a)
            .unwrap_or(0.0)
            .total_cmp(&numeric(b).unwrap_or(0.0))
            .then_with(|| x.cmp(y)),
        (CounterValue::Text(x), CounterValue::Text(y)) => x.cmp(y),
        _ => match (numeric(a), numeric(b)) {
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

    fn number(v: f64) -> CounterValue {
        CounterValue::Number {
            value: v,
            text: v.to_string(),
        }
    }

    #[test]
    fn numbers_sort_numerically_and_missing_values_last() {
        let mut values = [
            CounterValue::Empty,
            number(100.0),
            CounterValue::Null,
            number(9.5),
            CounterValue::Text("b".into()),
            number(-1.0),
        ];
        values.sort_by(compare_values);
        assert_eq!(values[0], number(-1.0));
        assert_eq!(values[1], number(9.5));
        assert_eq!(values[2], number(100.0));
        assert_eq!(values[3], CounterValue::Text("b".into()));
        assert_eq!(values[4], CounterValue::Null);
        assert_eq!(values[5], CounterValue::Empty);
        assert_eq!(
            value_text(&CounterValue::Sizes(vec![64, 1, 1])),
            "{64, 1, 1}"
        );
    }
}
