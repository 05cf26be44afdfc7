//! A sortable, virtualized table of typed CodeXL values: a click on a column header sorts by it
//! (ascending, descending, then the file's order again); numbers sort as numbers, work sizes by
//! their product, text by its characters, `NULL` and empty fields last. Only the rows on screen
//! are laid out, so a file with many dispatches scrolls at the cost of one screenful.

use std::borrow::Cow;
use std::cmp::Ordering;

use eframe::egui;

use sightline_model::codexl::counters::CounterValue;

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

/// The sort state and selection of one table.
#[derive(Debug, Default, Clone)]
pub struct SortableTable {
    /// Sort column and direction (`true`: ascending); `None`: the file's order.
    pub sort: Option<(usize, bool)>,
    /// The selected row (an index into the data, not the display order).
    pub selected: Option<usize>,
    /// A row to bring into view on the next frame.
    pub scroll_to: Option<usize>,
    order: Vec<usize>,
    order_key: Option<(usize, Option<(usize, bool)>)>,
}

impl SortableTable {
    /// Row indices in display order for `rows` rows; `compare(column, a, b)` orders two rows
    /// ascending by a column. Recomputed only when the sort or the row count changes.
    pub fn display_order(
        &mut self,
        rows: usize,
        compare: &dyn Fn(usize, usize, usize) -> Ordering,
    ) -> &[usize] {
        let key = (rows, self.sort);
        if self.order_key != Some(key) {
            let mut order: Vec<usize> = (0..rows).collect();
            if let Some((column, ascending)) = self.sort {
                // Stable: equal rows keep the file's order in both directions.
                order.sort_by(|&a, &b| {
                    let o = compare(column, a, b);
                    if ascending { o } else { o.reverse() }
                });
            }
            self.order = order;
            self.order_key = Some(key);
        }
        &self.order
    }

    /// What a click on column `column`'s header does: ascending, then descending, then the
    /// file's order.
    pub fn click_header(&mut self, column: usize) {
        self.sort = match self.sort {
            Some((c, true)) if c == column => Some((column, false)),
            Some((c, false)) if c == column => None,
            _ => Some((column, true)),
        };
    }

    /// Moves the selection to the next (`forward`) or previous row in display order (the first
    /// row when none is selected) and scrolls it into view; returns the row. Uses the order of
    /// the last frame drawn.
    pub fn step(&mut self, forward: bool) -> Option<usize> {
        let last = self.order.len().checked_sub(1)?;
        let at = self
            .selected
            .and_then(|s| self.order.iter().position(|&r| r == s));
        let next = match (at, forward) {
            (None, _) => 0,
            (Some(p), true) => (p + 1).min(last),
            (Some(p), false) => p.saturating_sub(1),
        };
        let row = self.order[next];
        self.select(row);
        Some(row)
    }

    /// Selects `row` and scrolls it into view.
    pub fn select(&mut self, row: usize) {
        self.selected = Some(row);
        self.scroll_to = Some(row);
    }

    /// Draws the table in the available space: `columns` headers (buttons that sort), `rows`
    /// rows whose cells are `cell(row, column)`. `wide` marks columns that take the remaining
    /// width. Returns the row clicked, if any.
    #[allow(clippy::too_many_arguments)]
    pub fn ui<'d>(
        &mut self,
        ui: &mut egui::Ui,
        id_salt: &str,
        columns: &[String],
        wide: &dyn Fn(usize) -> bool,
        rows: usize,
        cell: &dyn Fn(usize, usize) -> Cow<'d, str>,
        compare: &dyn Fn(usize, usize, usize) -> Ordering,
    ) -> Option<usize> {
        self.display_order(rows, compare);
        // Borrowed out while the table draws (no copy per frame), put back below.
        let order = std::mem::take(&mut self.order);
        let mut clicked = None;
        let mut header_clicked = None;
        let height = ui.available_height();
        // Many counter columns: scroll sideways rather than squeeze them.
        egui::ScrollArea::horizontal()
            .id_salt((id_salt, "sideways"))
            .auto_shrink([false, true])
            .show(ui, |ui| {
                self.table_ui(
                    ui,
                    id_salt,
                    columns,
                    wide,
                    &order,
                    height,
                    cell,
                    &mut clicked,
                    &mut header_clicked,
                );
            });
        self.order = order;
        if let Some(i) = header_clicked {
            self.click_header(i);
        }
        if let Some(r) = clicked {
            self.selected = Some(r);
        }
        clicked
    }

    /// The table itself (inside the sideways scroll area).
    #[allow(clippy::too_many_arguments)]
    fn table_ui<'d>(
        &mut self,
        ui: &mut egui::Ui,
        id_salt: &str,
        columns: &[String],
        wide: &dyn Fn(usize) -> bool,
        order: &[usize],
        height: f32,
        cell: &dyn Fn(usize, usize) -> Cow<'d, str>,
        clicked: &mut Option<usize>,
        header_clicked: &mut Option<usize>,
    ) {
        use egui_extras::{Column, TableBuilder};
        let mut builder = TableBuilder::new(ui)
            .id_salt(id_salt)
            .striped(true)
            .sense(egui::Sense::click())
            .max_scroll_height(height)
            .auto_shrink([false, true]);
        if let Some(row) = self.scroll_to.take()
            && let Some(position) = order.iter().position(|&r| r == row)
        {
            builder = builder.scroll_to_row(position, Some(egui::Align::Center));
        }
        for i in 0..columns.len() {
            builder = builder.column(if wide(i) {
                Column::auto().at_least(140.0).clip(true).resizable(true)
            } else {
                Column::auto().at_least(40.0).resizable(true)
            });
        }
        builder
            .header(22.0, |mut header| {
                for (i, name) in columns.iter().enumerate() {
                    header.col(|ui| {
                        let arrow = match self.sort {
                            Some((c, true)) if c == i => " ^",
                            Some((c, false)) if c == i => " v",
                            _ => "",
                        };
                        let button = egui::Button::new(format!("{name}{arrow}"))
                            .wrap_mode(egui::TextWrapMode::Extend);
                        if ui
                            .add(button)
                            .on_hover_text(
                                "Sort by this column (ascending, descending, file order)",
                            )
                            .clicked()
                        {
                            *header_clicked = Some(i);
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(18.0, order.len(), |mut row| {
                    let r = order[row.index()];
                    row.set_selected(self.selected == Some(r));
                    for c in 0..columns.len() {
                        row.col(|ui| {
                            ui.add(
                                egui::Label::new(cell(r, c).as_ref())
                                    .selectable(false)
                                    .truncate(),
                            );
                        });
                    }
                    if row.response().clicked() {
                        *clicked = Some(r);
                    }
                });
            });
    }
}

/// Up/Down when no text field has the keyboard: `Some(true)` next, `Some(false)` previous.
pub fn arrow_step(ui: &egui::Ui) -> Option<bool> {
    if ui.ctx().egui_wants_keyboard_input() {
        return None;
    }
    ui.input_mut(|i| {
        if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown) {
            Some(true)
        } else if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp) {
            Some(false)
        } else {
            None
        }
    })
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
    }

    #[test]
    fn header_clicks_cycle_and_order_follows() {
        let data = [3.0f64, 1.0, 2.0];
        let compare = |_c: usize, a: usize, b: usize| data[a].total_cmp(&data[b]);
        let mut table = SortableTable::default();
        assert_eq!(table.display_order(3, &compare), &[0, 1, 2]);
        table.click_header(0);
        assert_eq!(table.display_order(3, &compare), &[1, 2, 0]);
        assert_eq!(table.step(true), Some(1));
        assert_eq!(table.step(true), Some(2));
        assert_eq!(table.step(false), Some(1));
        assert_eq!(table.step(false), Some(1));
        table.click_header(0);
        assert_eq!(table.display_order(3, &compare), &[0, 2, 1]);
        table.click_header(0);
        assert_eq!(table.display_order(3, &compare), &[0, 1, 2]);
        assert_eq!(
            value_text(&CounterValue::Sizes(vec![64, 1, 1])),
            "{64, 1, 1}"
        );
    }
}
