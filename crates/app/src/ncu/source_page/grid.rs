//! One view of the page drawn as a virtualised grid: a header, then only the rows on screen
//! (`ScrollArea::show_rows`), each with its marker margin, location, text and one cell per
//! column (a value as % of the launch with a bar, or the absolute value formatted as on the
//! Details page), and beside it the heatmap strip of the selected column over the whole view.

use eframe::egui::{self, Align2, Color32, FontId, Rect, Role, Sense, Stroke, Ui, WidgetInfo};

use sightline_model::format::format_with_unit;
use sightline_model::ncu::MetricValue;
use sightline_model::ncu::source::Cell;

use super::data::{ColumnInfo, Row, View};
use super::markers::Markers;

/// Height of a row.
pub const ROW_HEIGHT: f32 = 18.0;
/// Width of a metric column.
const COLUMN_WIDTH: f32 = 118.0;
/// Width of the marker margin.
const MARGIN: f32 = 16.0;
/// Width of the heatmap strip.
const STRIP: f32 = 14.0;
/// The narrowest text column.
const MIN_TEXT: f32 = 300.0;

/// What a grid derives from its rows, kept between frames so that a frame's work does not grow
/// with the number of rows: the maxima per column, the widest location, the heatmap strip.
#[derive(Debug, Clone, Default)]
pub struct GridCache {
    /// `(rows address, row count)` the maxima were computed for.
    rows: Option<(usize, usize)>,
    maxima: Vec<f64>,
    location_chars: usize,
    /// `(column, pixels)` of the strip, and the share of the hottest row per pixel.
    strip_key: Option<(usize, usize)>,
    strip: Vec<f32>,
}

impl GridCache {
    fn refresh(&mut self, rows: &[Row], columns: usize) {
        let key = (rows.as_ptr() as usize, rows.len());
        if self.rows == Some(key) && self.maxima.len() == columns {
            return;
        }
        self.rows = Some(key);
        self.maxima = (0..columns)
            .map(|c| rows.iter().filter_map(|r| r.number(c)).fold(0.0, f64::max))
            .collect();
        self.location_chars = rows.iter().map(|r| r.location.len()).max().unwrap_or(1);
        self.strip_key = None;
    }

    fn strip(&mut self, rows: &[Row], column: usize, pixels: usize) -> &[f32] {
        if self.strip_key != Some((column, pixels)) {
            self.strip_key = Some((column, pixels));
            let max = self.maxima.get(column).copied().unwrap_or(0.0);
            let n = rows.len();
            self.strip = (0..pixels)
                .map(|p| {
                    if max <= 0.0 || n == 0 {
                        return 0.0;
                    }
                    let from = p * n / pixels;
                    let to = ((p + 1) * n / pixels).max(from + 1).min(n);
                    let hottest = rows[from.min(n - 1)..to]
                        .iter()
                        .filter_map(|r| r.number(column))
                        .fold(0.0, f64::max);
                    (hottest / max) as f32
                })
                .collect();
        }
        &self.strip
    }
}

/// What one grid shows this frame.
pub struct Grid<'a> {
    /// The egui id of the grid (one per pane).
    pub id: &'a str,
    /// Its rows.
    pub rows: &'a [Row],
    /// The page's columns.
    pub columns: &'a [ColumnInfo],
    /// The indices of the columns shown, in order.
    pub shown: &'a [usize],
    /// The view (the text column's title, the rows' names).
    pub view: View,
    /// The column of the heatmap and the hot spots.
    pub heat: Option<usize>,
    /// Percent of the launch (else absolute values).
    pub percent: bool,
    /// The selected row.
    pub selected: Option<usize>,
    /// Rows correlated with the other pane's selection, sorted.
    pub highlighted: &'a [usize],
    /// Rows matching the search, sorted.
    pub matches: &'a [usize],
    /// Rule markers.
    pub markers: &'a Markers,
    /// The file of a Source view (markers by line).
    pub file: Option<&'a str>,
    /// A row to bring into view this frame.
    pub scroll_to: Option<usize>,
    /// The horizontal scroll of the last frame (the header follows it).
    pub h_offset: f32,
    /// What the grid keeps between frames.
    pub cache: &'a mut GridCache,
}

/// What the user did in a grid.
#[derive(Default)]
pub struct GridResponse {
    /// A row clicked (or picked on the heatmap strip).
    pub clicked: Option<usize>,
    /// A column header clicked (select it for the heatmap).
    pub column_clicked: Option<usize>,
    /// The horizontal scroll now.
    pub h_offset: f32,
}

/// The heat colour of a share in `0..=1`.
pub fn heat_color(share: f32, dark: bool) -> Color32 {
    let share = share.clamp(0.0, 1.0);
    if share <= 0.0 {
        return Color32::TRANSPARENT;
    }
    // Light enough for the cell's text to stay readable on a full bar.
    let alpha = (40.0 + 120.0 * share) as u8;
    if dark {
        Color32::from_rgba_unmultiplied(255, 120, 40, alpha)
    } else {
        Color32::from_rgba_unmultiplied(230, 80, 20, alpha)
    }
}

/// A cell's text: % of the launch or the formatted value; labels as they are.
pub fn cell_text(cell: &Cell, column: &ColumnInfo, percent: bool) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::Text(t) => t.clone(),
        Cell::Number(v) if percent && column.numeric => {
            if column.total > 0.0 {
                // `+ 0.0` turns a -0 into 0.
                format!("{:.1} %", v / column.total * 100.0 + 0.0)
            } else if *v == 0.0 {
                "0 %".to_owned()
            } else {
                String::new()
            }
        }
        Cell::Number(v) => format_with_unit(&MetricValue::Double(*v), &column.unit, None),
    }
}

/// The horizontal layout of a grid this frame: the widths of its parts and the colours it
/// paints with, computed once before the header and the rows are drawn.
struct Layout {
    /// The font of the locations and the text.
    mono: FontId,
    /// Width of the location column.
    location_width: f32,
    /// Width of the text column.
    text_width: f32,
    /// Width of a whole row (margin, location, text and columns).
    total_width: f32,
    /// Width left for the rows beside the heatmap strip.
    available: f32,
    /// The text colour.
    text_color: Color32,
    /// The weak text colour (locations).
    weak: Color32,
    /// Dark mode (the heat colours).
    dark: bool,
}

impl Grid<'_> {
    /// Draws the grid in the space left in `ui`.
    pub fn show(mut self, ui: &mut Ui) -> GridResponse {
        let mut out = GridResponse {
            h_offset: self.h_offset,
            ..Default::default()
        };
        if ui.available_width() < 2.0 * STRIP + MARGIN {
            // No room (a window squeezed to nothing): nothing to draw.
            return out;
        }
        let layout = self.layout(ui);
        self.header(ui, &layout, &mut out);
        let strip_rect = self.body(ui, &layout, &mut out);
        self.heat_strip(ui, strip_rect, layout.dark, &mut out);
        out
    }

    /// Computes the widths of the columns: the text gives way (down to 120 px) so that at least
    /// two metric columns stay in view.
    fn layout(&mut self, ui: &Ui) -> Layout {
        let mono = FontId::monospace(12.5);
        let char_width = ui.ctx().fonts_mut(|f| f.glyph_width(&mono, '0'));
        self.cache.refresh(self.rows, self.columns.len());
        let location_chars = self.cache.location_chars;
        let location_width = char_width * location_chars as f32 + 12.0;
        let columns_width = COLUMN_WIDTH * self.shown.len() as f32;
        let available = ui.available_width() - STRIP - 4.0;
        let fixed = MARGIN + location_width;
        let min_text = MIN_TEXT
            .min(available - fixed - COLUMN_WIDTH * self.shown.len().min(2) as f32)
            .max(120.0);
        let text_width = (available - fixed - columns_width).max(min_text);
        Layout {
            mono,
            location_width,
            text_width,
            total_width: MARGIN + location_width + text_width + columns_width,
            available,
            text_color: ui.visuals().text_color(),
            weak: ui.visuals().weak_text_color(),
            dark: ui.visuals().dark_mode,
        }
    }

    /// Draws the header (the view's name over the text, one clickable title per column),
    /// shifted by the rows' horizontal scroll.
    fn header(&self, ui: &mut Ui, layout: &Layout, out: &mut GridResponse) {
        let (header_rect, _) = ui.allocate_exact_size(
            egui::vec2(layout.available + STRIP, ROW_HEIGHT + 4.0),
            Sense::hover(),
        );
        let painter = ui.painter_at(header_rect);
        let x0 = header_rect.left() - self.h_offset;
        let text_x = x0 + MARGIN + layout.location_width;
        painter.text(
            egui::pos2(text_x, header_rect.center().y),
            Align2::LEFT_CENTER,
            self.view.name(),
            FontId::proportional(13.0),
            layout.text_color,
        );
        for (slot, &c) in self.shown.iter().enumerate() {
            let Some(column) = self.columns.get(c) else {
                continue;
            };
            let left = text_x + layout.text_width + COLUMN_WIDTH * slot as f32;
            let rect = Rect::from_min_size(
                egui::pos2(left, header_rect.top()),
                egui::vec2(COLUMN_WIDTH, header_rect.height()),
            );
            let id = ui.scope_id().with((self.id, "column", c));
            let response = ui
                .interact(rect.intersect(header_rect), id, Sense::click())
                .on_hover_text(column_tooltip(column));
            response.widget_info(|| {
                WidgetInfo::labeled(Role::ColumnHeader, true, column.label.clone())
            });
            if response.clicked() {
                out.column_clicked = Some(c);
            }
            if self.heat == Some(c) {
                painter.rect_filled(rect.shrink(1.0), 2.0, ui.visuals().selection.bg_fill);
            }
            painter.text(
                egui::pos2(rect.right() - 6.0, rect.center().y),
                Align2::RIGHT_CENTER,
                clip_label(&column.label, 16),
                FontId::proportional(12.0),
                layout.text_color,
            );
        }
        ui.painter().hline(
            header_rect.x_range(),
            header_rect.bottom(),
            Stroke::new(1.0, ui.visuals().widgets.noninteractive.bg_stroke.color),
        );
    }

    /// Draws the rows on screen in a scroll area (brought to `scroll_to` if asked) and returns
    /// the rectangle left beside them for the heatmap strip.
    fn body(&self, ui: &mut Ui, layout: &Layout, out: &mut GridResponse) -> Rect {
        // The maxima of the view per column, for the bars and the heatmap.
        let maxima = self.cache.maxima.clone();
        let body_height = ui.available_height();
        let area = ui.available_rect_before_wrap();
        let strip_rect = Rect::from_min_max(
            egui::pos2(area.right() - STRIP, area.top()),
            area.right_bottom(),
        );
        let body_rect = Rect::from_min_max(
            area.left_top(),
            egui::pos2(strip_rect.left() - 4.0, area.bottom()),
        );
        let mut scroll = egui::ScrollArea::both()
            .id_salt((self.id, "rows"))
            .auto_shrink([false, false])
            .max_height(body_height);
        if let Some(row) = self.scroll_to.filter(|r| *r < self.rows.len()) {
            // The row a third of the way down.
            let offset = (row as f32 * (ROW_HEIGHT + ui.spacing().item_spacing.y)
                - body_height / 3.0)
                .max(0.0);
            scroll = scroll.vertical_scroll_offset(offset);
        }
        let mut body_ui = ui.new_child(egui::UiBuilder::new().max_rect(body_rect));
        let output = scroll.show_rows(&mut body_ui, ROW_HEIGHT, self.rows.len(), |ui, range| {
            for index in range {
                let Some(row) = self.rows.get(index) else {
                    continue;
                };
                if self.row(ui, index, row, layout, &maxima) {
                    out.clicked = Some(index);
                }
            }
        });
        out.h_offset = output.state.clamped_offset().x;
        ui.advance_cursor_after_rect(area);
        strip_rect
    }

    /// Draws one row (its background, marker, location, text and cells); true when clicked.
    fn row(&self, ui: &mut Ui, index: usize, row: &Row, layout: &Layout, maxima: &[f64]) -> bool {
        let (rect, response) =
            ui.allocate_exact_size(egui::vec2(layout.total_width, ROW_HEIGHT), Sense::click());
        response.widget_info(|| {
            WidgetInfo::selected(
                Role::Row,
                true,
                self.selected == Some(index),
                row.name(self.view, self.file),
            )
        });
        let painter = ui.painter();
        if self.selected == Some(index) {
            painter.rect_filled(rect, 0.0, ui.visuals().selection.bg_fill);
        } else if self.highlighted.binary_search(&index).is_ok() {
            painter.rect_filled(
                rect,
                0.0,
                ui.visuals().selection.bg_fill.gamma_multiply(0.45),
            );
        } else if response.hovered() {
            painter.rect_filled(rect, 0.0, ui.visuals().faint_bg_color);
        }
        if self.matches.binary_search(&index).is_ok() {
            painter.rect_stroke(
                rect.shrink(0.5),
                0.0,
                Stroke::new(1.0, ui.visuals().warn_fg_color),
                egui::StrokeKind::Inside,
            );
        }
        let y = rect.center().y;
        self.marker(ui, index, row, rect);
        let painter = ui.painter();
        painter.text(
            egui::pos2(rect.left() + MARGIN + layout.location_width - 8.0, y),
            Align2::RIGHT_CENTER,
            &row.location,
            layout.mono.clone(),
            layout.weak,
        );
        let text_rect = Rect::from_min_size(
            egui::pos2(rect.left() + MARGIN + layout.location_width, rect.top()),
            egui::vec2(layout.text_width - 6.0, ROW_HEIGHT),
        );
        painter.with_clip_rect(text_rect).text(
            egui::pos2(text_rect.left(), y),
            Align2::LEFT_CENTER,
            &row.text,
            layout.mono.clone(),
            layout.text_color,
        );
        self.cells(painter, row, text_rect, y, layout, maxima);
        response.clicked()
    }

    /// Draws the first rule marker of a row in the margin, with all its markers as tooltip.
    fn marker(&self, ui: &mut Ui, index: usize, row: &Row, rect: Rect) {
        if self.markers.is_empty() {
            return;
        }
        let markers = self.markers.of_row(row, self.file);
        let Some(first) = markers.first() else {
            return;
        };
        let color = if first.warning {
            ui.visuals().warn_fg_color
        } else {
            Color32::from_rgb(80, 150, 240)
        };
        let center = egui::pos2(rect.left() + MARGIN / 2.0, rect.center().y);
        ui.painter().circle_filled(center, 4.5, color);
        let marker_rect = Rect::from_center_size(center, egui::vec2(MARGIN, ROW_HEIGHT));
        let tip: Vec<String> = markers
            .iter()
            .map(|m| format!("{}: {}", m.rule, m.message))
            .collect();
        ui.interact(
            marker_rect,
            ui.scope_id().with(("marker", index)),
            Sense::hover(),
        )
        .on_hover_text(tip.join("\n"));
    }

    /// Draws a row's cells right of its text (centred on `y`): a bar scaled to the column's maximum (heat
    /// coloured in the heatmap column) under the value.
    fn cells(
        &self,
        painter: &egui::Painter,
        row: &Row,
        text_rect: Rect,
        y: f32,
        layout: &Layout,
        maxima: &[f64],
    ) {
        for (slot, &c) in self.shown.iter().enumerate() {
            let Some(column) = self.columns.get(c) else {
                continue;
            };
            let left = text_rect.left() + layout.text_width + COLUMN_WIDTH * slot as f32;
            let cell_rect = Rect::from_min_size(
                egui::pos2(left, text_rect.top() + 1.0),
                egui::vec2(COLUMN_WIDTH - 4.0, ROW_HEIGHT - 2.0),
            );
            let cell = row.cells.get(c).unwrap_or(&Cell::Empty);
            if let (Cell::Number(v), true) = (cell, column.numeric)
                && maxima[c] > 0.0
                && *v > 0.0
            {
                let share = (*v / maxima[c]) as f32;
                let bar = Rect::from_min_size(
                    cell_rect.left_top(),
                    egui::vec2(cell_rect.width() * share, cell_rect.height()),
                );
                let color = if self.heat == Some(c) {
                    heat_color(share, layout.dark)
                } else {
                    Color32::from_rgba_unmultiplied(90, 140, 220, 70)
                };
                painter.rect_filled(bar, 1.0, color);
            }
            let text = cell_text(cell, column, self.percent);
            painter.with_clip_rect(cell_rect).text(
                egui::pos2(cell_rect.right() - 2.0, y),
                Align2::RIGHT_CENTER,
                text,
                FontId::proportional(12.0),
                layout.text_color,
            );
        }
    }

    /// Draws the heatmap strip (the hottest row per pixel, the selection and matches as ticks)
    /// and turns a click on it into a row.
    fn heat_strip(&mut self, ui: &mut Ui, strip_rect: Rect, dark: bool, out: &mut GridResponse) {
        let strip = ui.painter_at(strip_rect);
        strip.rect_filled(strip_rect, 2.0, ui.visuals().extreme_bg_color);
        let n = self.rows.len();
        if let Some(c) = self.heat.filter(|_| n > 0) {
            let pixels = strip_rect.height().max(1.0) as usize;
            for (p, share) in self.cache.strip(self.rows, c, pixels).iter().enumerate() {
                if *share > 0.0 {
                    strip.hline(
                        strip_rect.x_range(),
                        strip_rect.top() + p as f32 + 0.5,
                        Stroke::new(1.0, heat_color(*share, dark)),
                    );
                }
            }
        }
        let tick = |row: usize, color: Color32| {
            let y = strip_rect.top() + strip_rect.height() * (row as f32 + 0.5) / n.max(1) as f32;
            strip.hline(strip_rect.x_range(), y, Stroke::new(2.0, color));
        };
        for &m in self.matches {
            tick(m, ui.visuals().warn_fg_color);
        }
        if let Some(s) = self.selected {
            tick(s, ui.visuals().strong_text_color());
        }
        let response = ui
            .interact(
                strip_rect,
                ui.scope_id().with((self.id, "strip")),
                Sense::click(),
            )
            .on_hover_text("Heatmap of the selected column over the whole view: click to go there");
        response.widget_info(|| WidgetInfo::labeled(Role::ScrollBar, true, "Heatmap"));
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
            && n > 0
        {
            let share = ((pos.y - strip_rect.top()) / strip_rect.height()).clamp(0.0, 1.0);
            out.clicked = Some(((share * n as f32) as usize).min(n - 1));
        }
    }
}

/// A column header's tooltip: its label, the launch total when known, and what a click does.
fn column_tooltip(column: &ColumnInfo) -> String {
    format!(
        "{}{}\nClick: heatmap and hot spots of this column",
        column.label,
        if column.total > 0.0 {
            format!(
                "\nLaunch total: {}",
                format_with_unit(&MetricValue::Double(column.total), &column.unit, None)
            )
        } else {
            String::new()
        }
    )
}

/// A header label cut to `max` characters.
fn clip_label(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        label.to_owned()
    } else {
        let mut s: String = label.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}
