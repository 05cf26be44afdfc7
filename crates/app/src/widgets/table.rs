//! The one sortable table of the application (the kernel list, the CodeXL tables, Gainsight's
//! kernel table, the timeline's summary tables): a click on a header sorts by that column —
//! ascending, then descending, then the source's own order again — and the sorted header ends in
//! ` ^` (ascending) or ` v` (descending). Sorts are stable, so equal rows keep the source's
//! order in both directions. Only the rows on screen are laid out (the kernel list scrolls
//! through 100 000 kernels at the cost of one screenful); the display order is computed again
//! only when the sort, the row count or the filter changes.

use std::cmp::Ordering;

use eframe::egui;
use egui_extras::{Column, TableBuilder};

/// The suffix of the header the table is sorted by, ascending.
pub const ASCENDING: &str = " ^";
/// The suffix of the header the table is sorted by, descending.
pub const DESCENDING: &str = " v";

/// Orders two rows ascending by a column: `compare(column, a, b)`.
pub type Compare<'a> = &'a dyn Fn(usize, usize, usize) -> Ordering;

/// Draws a row's context menu: `menu(ui, row)`.
pub type RowMenu<'a> = &'a mut dyn FnMut(&mut egui::Ui, usize);

/// What a display order was computed for: the row count and the sort.
pub type OrderKey = (usize, Option<(usize, bool)>);

/// The sort state, selection and display order of one table.
#[derive(Debug, Clone, Default)]
pub struct SortableTable {
    /// Sort column and whether descending; `None`: the source's order.
    pub sort: Option<(usize, bool)>,
    /// The selected row (an index into the source, not the display order).
    pub selected: Option<usize>,
    /// A row to bring into view on the next frame.
    pub scroll_to: Option<usize>,
    /// Row indices (into the source) in display order, as last computed.
    pub order: Vec<usize>,
    order_key: Option<OrderKey>,
    /// A stale sorted order is left for a background job
    /// ([`super::background_sort::BackgroundSort`]) instead of being computed in the frame.
    deferred: bool,
}

impl SortableTable {
    /// What a click on column `column`'s header does: ascending, then descending, then the
    /// source's order.
    pub fn click_header(&mut self, column: usize) {
        self.sort = match self.sort {
            Some((c, false)) if c == column => Some((column, true)),
            Some((c, true)) if c == column => None,
            _ => Some((column, false)),
        };
    }

    /// Forgets the display order (the rows or the filter changed).
    pub fn invalidate(&mut self) {
        self.order_key = None;
    }

    /// Row indices in display order for `rows` rows, every row shown.
    pub fn display_order(&mut self, rows: usize, compare: Compare<'_>) -> &[usize] {
        self.filtered_order(rows, &|_| true, compare)
    }

    /// Row indices in display order for `rows` rows, those `keep` keeps. Recomputed only when
    /// the sort or the row count changed, or after [`SortableTable::invalidate`]. A deferred
    /// table ([`SortableTable::set_deferred`]) keeps its last order (or the source's, when the
    /// row count changed) until [`SortableTable::set_order`] brings the new one.
    pub fn filtered_order(
        &mut self,
        rows: usize,
        keep: &dyn Fn(usize) -> bool,
        compare: Compare<'_>,
    ) -> &[usize] {
        let key = (rows, self.sort);
        if self.order_key != Some(key) {
            if self.deferred && self.sort.is_some() {
                if self.order.len() != rows {
                    self.order = (0..rows).collect();
                }
            } else {
                self.order = sorted_order(rows, keep, self.sort, compare);
                self.order_key = Some(key);
            }
        }
        &self.order
    }

    /// Whether a stale sorted order is left for a background job (see
    /// [`SortableTable::filtered_order`]); such a table shows every row.
    pub fn set_deferred(&mut self, deferred: bool) {
        self.deferred = deferred;
    }

    /// The row count and sort whose order is wanted, when the order shown is not it.
    pub fn stale_order(&self, rows: usize) -> Option<OrderKey> {
        let key = (rows, self.sort);
        (self.order_key != Some(key)).then_some(key)
    }

    /// Takes `order`, computed elsewhere for `key`; ignored when the table wants another order
    /// by now.
    pub fn set_order(&mut self, key: OrderKey, order: Vec<usize>) {
        if key.1 == self.sort && order.len() == key.0 {
            self.order = order;
            self.order_key = Some(key);
        }
    }

    /// The row `step` rows away from `row` in the last display order.
    pub fn neighbour(&self, row: usize, step: isize) -> Option<usize> {
        let at = self.order.iter().position(|&r| r == row)?;
        self.order.get(at.checked_add_signed(step)?).copied()
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

    /// The header text of column `column` with its label: the label and the sort arrow.
    pub fn header_text(&self, column: usize, label: &str) -> String {
        let arrow = match self.sort {
            Some((c, false)) if c == column => ASCENDING,
            Some((c, true)) if c == column => DESCENDING,
            _ => "",
        };
        format!("{label}{arrow}")
    }
}

/// The rows of `rows` that `keep` keeps, in the order of `sort` (column, descending) by
/// `compare`, or in the source's order. Stable: equal rows keep the source's order in both
/// directions.
pub fn sorted_order(
    rows: usize,
    keep: &dyn Fn(usize) -> bool,
    sort: Option<(usize, bool)>,
    compare: Compare<'_>,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows).filter(|&r| keep(r)).collect();
    if let Some((column, descending)) = sort {
        order.sort_by(|&a, &b| {
            let o = compare(column, a, b);
            if descending { o.reverse() } else { o }
        });
    }
    order
}

/// A column of a [`Table`]: its header label, width and tooltip, and whether it sorts.
pub struct Header<'a> {
    label: &'a str,
    width: Column,
    sortable: bool,
    tooltip: Option<&'a str>,
}

impl<'a> Header<'a> {
    /// A sortable column.
    pub fn new(label: &'a str, width: Column) -> Self {
        Header {
            label,
            width,
            sortable: true,
            tooltip: None,
        }
    }

    /// A column whose header does not sort.
    pub fn fixed(mut self) -> Self {
        self.sortable = false;
        self
    }

    /// What the header's tooltip says before the sort hint.
    pub fn tooltip(mut self, text: &'a str) -> Self {
        self.tooltip = Some(text);
        self
    }
}

/// How one table is drawn; [`Table::show`] draws it with a [`SortableTable`]'s state.
pub struct Table<'a> {
    id_salt: egui::IdSalt,
    headers: Vec<Header<'a>>,
    origin: &'a str,
    row_height: f32,
    header_height: f32,
    max_height: Option<f32>,
    min_height: Option<f32>,
    sideways: bool,
    keep: Option<&'a dyn Fn(usize) -> bool>,
    selected: Option<&'a dyn Fn(usize) -> bool>,
    menu: Option<RowMenu<'a>>,
}

impl<'a> Table<'a> {
    /// A table of these columns; `origin` names the unsorted order in the header tooltips
    /// ("file order", "the report's order").
    pub fn new(id_salt: impl egui::AsIdSalt, headers: Vec<Header<'a>>, origin: &'a str) -> Self {
        Table {
            id_salt: egui::IdSalt::new(id_salt),
            headers,
            origin,
            row_height: 18.0,
            header_height: 22.0,
            max_height: None,
            min_height: None,
            sideways: false,
            keep: None,
            selected: None,
            menu: None,
        }
    }

    /// The height of a body row (default 18).
    pub fn row_height(mut self, height: f32) -> Self {
        self.row_height = height;
        self
    }

    /// The height of the header row (default 22).
    pub fn header_height(mut self, height: f32) -> Self {
        self.header_height = height;
        self
    }

    /// The most the body scrolls in (default: egui's).
    pub fn max_height(mut self, height: f32) -> Self {
        self.max_height = Some(height);
        self
    }

    /// The least the body scrolls in, when the space is smaller (default: egui's).
    pub fn min_height(mut self, height: f32) -> Self {
        self.min_height = Some(height);
        self
    }

    /// Scrolls sideways rather than squeeze many columns.
    pub fn sideways(mut self) -> Self {
        self.sideways = true;
        self
    }

    /// Shows only the rows `keep` keeps (call [`SortableTable::invalidate`] when it changes).
    pub fn filter(mut self, keep: &'a dyn Fn(usize) -> bool) -> Self {
        self.keep = Some(keep);
        self
    }

    /// Which rows are highlighted (default: the state's `selected`).
    pub fn selected(mut self, selected: &'a dyn Fn(usize) -> bool) -> Self {
        self.selected = Some(selected);
        self
    }

    /// A context menu on every row: `menu(ui, row)` draws its items.
    pub fn row_menu(mut self, menu: RowMenu<'a>) -> Self {
        self.menu = Some(menu);
        self
    }

    /// Draws the table of `rows` source rows: `compare` orders two rows by a column (see
    /// [`Compare`]), `cell(ui, row, column)` draws a cell. A header click sorts (the order is
    /// computed again at once); a row click selects that row. Returns the row clicked.
    pub fn show(
        self,
        ui: &mut egui::Ui,
        state: &mut SortableTable,
        rows: usize,
        compare: Compare<'_>,
        cell: &mut dyn FnMut(&mut egui::Ui, usize, usize),
    ) -> Option<usize> {
        let keep = self.keep.unwrap_or(&|_| true);
        state.filtered_order(rows, keep, compare);
        let mut clicked = None;
        let mut header_clicked = None;
        if self.sideways {
            let height = ui.available_height();
            egui::ScrollArea::horizontal()
                .id_salt((self.id_salt, "sideways"))
                .auto_shrink([false, true])
                .show(ui, |ui| {
                    let table = Table {
                        max_height: self.max_height.or(Some(height)),
                        ..self
                    };
                    table.body_ui(ui, state, cell, &mut clicked, &mut header_clicked);
                });
        } else {
            self.body_ui(ui, state, cell, &mut clicked, &mut header_clicked);
        }
        if let Some(column) = header_clicked {
            state.click_header(column);
            state.filtered_order(rows, keep, compare);
            if state.deferred {
                // The background sort starts on the next frame: have one.
                ui.ctx().request_repaint();
            }
        }
        if let Some(row) = clicked {
            state.selected = Some(row);
        }
        clicked
    }

    /// The table itself.
    fn body_ui(
        self,
        ui: &mut egui::Ui,
        state: &mut SortableTable,
        cell: &mut dyn FnMut(&mut egui::Ui, usize, usize),
        clicked: &mut Option<usize>,
        header_clicked: &mut Option<usize>,
    ) {
        let mut builder = TableBuilder::new(ui)
            .id_salt(self.id_salt)
            .striped(true)
            .sense(egui::Sense::click());
        if let Some(height) = self.max_height {
            builder = builder.max_scroll_height(height).auto_shrink([false, true]);
        }
        if let Some(height) = self.min_height {
            builder = builder.min_scrolled_height(height);
        }
        if let Some(row) = state.scroll_to.take()
            && let Some(position) = state.order.iter().position(|&r| r == row)
        {
            builder = builder.scroll_to_row(position, Some(egui::Align::Center));
        }
        for header in &self.headers {
            builder = builder.column(header.width);
        }
        let selected = self.selected;
        let mut menu = self.menu;
        let columns = self.headers.len();
        let state_ref = &*state;
        builder
            .header(self.header_height, |mut row| {
                for (i, header) in self.headers.iter().enumerate() {
                    row.col(|ui| {
                        if !header.sortable {
                            let label = ui.strong(header.label);
                            if let Some(tooltip) = header.tooltip {
                                label.on_hover_text(tooltip);
                            }
                            return;
                        }
                        let text = egui::RichText::new(state_ref.header_text(i, header.label));
                        let button =
                            egui::Button::new(text.strong()).wrap_mode(egui::TextWrapMode::Extend);
                        let hint = format!(
                            "{}Click to sort: ascending, descending, {}",
                            header.tooltip.map(|t| format!("{t}\n")).unwrap_or_default(),
                            self.origin
                        );
                        if ui.add(button).on_hover_text(hint).clicked() {
                            *header_clicked = Some(i);
                        }
                    });
                }
            })
            .body(|body| {
                body.rows(self.row_height, state_ref.order.len(), |mut row| {
                    let r = state_ref.order[row.index()];
                    row.set_selected(match selected {
                        Some(selected) => selected(r),
                        None => state_ref.selected == Some(r),
                    });
                    for c in 0..columns {
                        row.col(|ui| cell(ui, r, c));
                    }
                    let response = row.response();
                    if response.clicked() {
                        *clicked = Some(r);
                    }
                    if let Some(menu) = menu.as_mut() {
                        response.context_menu(|ui| menu(ui, r));
                    }
                });
            });
    }
}

/// A cell's text, truncated to the column (the full text on hover), not selectable.
pub fn cell_text(ui: &mut egui::Ui, text: &str) -> egui::Response {
    ui.add(egui::Label::new(text).selectable(false).truncate())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_clicks_cycle_and_order_follows() {
        let data = [3.0f64, 1.0, 2.0];
        let compare = |_c: usize, a: usize, b: usize| data[a].total_cmp(&data[b]);
        let mut table = SortableTable::default();
        assert_eq!(table.display_order(3, &compare), &[0, 1, 2]);
        table.click_header(0);
        assert_eq!(table.header_text(0, "x"), "x ^");
        assert_eq!(table.display_order(3, &compare), &[1, 2, 0]);
        assert_eq!(table.step(true), Some(1));
        assert_eq!(table.step(true), Some(2));
        assert_eq!(table.step(false), Some(1));
        assert_eq!(table.step(false), Some(1));
        assert_eq!(table.neighbour(2, 1), Some(0));
        assert_eq!(table.neighbour(0, 1), None);
        table.click_header(0);
        assert_eq!(table.header_text(0, "x"), "x v");
        assert_eq!(table.header_text(1, "y"), "y");
        assert_eq!(table.display_order(3, &compare), &[0, 2, 1]);
        table.click_header(0);
        assert_eq!(table.display_order(3, &compare), &[0, 1, 2]);
        table.click_header(1);
        assert_eq!(table.sort, Some((1, false)));
    }

    #[test]
    fn filtered_rows_and_stable_ties() {
        let data = [1, 2, 1, 2, 1];
        let compare = |_c: usize, a: usize, b: usize| data[a].cmp(&data[b]);
        let mut table = SortableTable::default();
        table.click_header(0);
        table.click_header(0);
        assert_eq!(table.display_order(5, &compare), &[1, 3, 0, 2, 4]);
        table.invalidate();
        assert_eq!(
            table.filtered_order(5, &|r| r != 3, &compare),
            &[1, 0, 2, 4]
        );
    }
}
