//! A heat-map recipe's table drawn as the heat map (the model's `heatmap_plot::grid`, the
//! colours of its SVG): one panel per value column, one row per file, process and GPU, one cell
//! per bin; hovering a cell tells its row, bin start and value.

use eframe::egui;

use sightline_model::format::DurationFormat;
use sightline_model::timeline::recipe::heatmap_plot::{HeatGrid, colour_rgb};

/// The width of the row labels (px).
const LABEL_W: f32 = 240.0;
/// A row's height (px).
const ROW_H: f32 = 16.0;

/// Draws `grid`.
pub fn heatmap_ui(ui: &mut egui::Ui, grid: &HeatGrid) {
    if grid.bins == 0 || grid.rows.is_empty() {
        ui.label("The heat map has no rows.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("recipe-heatmap")
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for (name, cells, top) in &grid.panels {
                ui.strong(grid.title(name, *top));
                panel_ui(ui, grid, cells, *top);
                ui.add_space(8.0);
            }
        });
}

/// One value column's panel.
fn panel_ui(ui: &mut egui::Ui, grid: &HeatGrid, cells: &[Option<f64>], top: f64) {
    let width = ui.available_width().max(LABEL_W + 100.0);
    let height = ROW_H * grid.rows.len() as f32 + 18.0;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let cell_w = (width - LABEL_W) / grid.bins as f32;
    let text = ui.visuals().text_color();
    let font = egui::FontId::proportional(11.0);
    let outside = ui.visuals().faint_bg_color;
    for (row, label) in grid.rows.iter().enumerate() {
        let y = rect.top() + ROW_H * row as f32;
        painter.text(
            egui::pos2(rect.left() + 2.0, y + ROW_H / 2.0),
            egui::Align2::LEFT_CENTER,
            label,
            font.clone(),
            text,
        );
        for bin in 0..grid.bins {
            let x = rect.left() + LABEL_W + cell_w * bin as f32;
            let cell = egui::Rect::from_min_size(egui::pos2(x, y), egui::vec2(cell_w, ROW_H - 1.0));
            let fill = match cells.get(row * grid.bins + bin).copied().flatten() {
                Some(v) => {
                    let [r, g, b] = colour_rgb(v, top);
                    egui::Color32::from_rgb(r, g, b)
                }
                None => outside,
            };
            painter.rect_filled(cell, 0.0, fill);
        }
    }
    let last = grid.starts.get(grid.bins - 1).copied().unwrap_or(0);
    let axis_y = rect.top() + ROW_H * grid.rows.len() as f32 + 9.0;
    painter.text(
        egui::pos2(rect.left() + LABEL_W, axis_y),
        egui::Align2::LEFT_CENTER,
        "0",
        font.clone(),
        text,
    );
    painter.text(
        egui::pos2(rect.right(), axis_y),
        egui::Align2::RIGHT_CENTER,
        DurationFormat::LIST.format(last as f64),
        font,
        text,
    );
    if let Some(pos) = response.hover_pos()
        && let Some(tip) = hovered(grid, cells, rect, cell_w, pos)
    {
        response.on_hover_text_at_pointer(tip);
    }
}

/// What the cell under `pos` says: its row, bin start and value.
fn hovered(
    grid: &HeatGrid,
    cells: &[Option<f64>],
    rect: egui::Rect,
    cell_w: f32,
    pos: egui::Pos2,
) -> Option<String> {
    let x = pos.x - rect.left() - LABEL_W;
    let y = pos.y - rect.top();
    if x < 0.0 || y < 0.0 {
        return None;
    }
    let (bin, row) = ((x / cell_w) as usize, (y / ROW_H) as usize);
    if bin >= grid.bins || row >= grid.rows.len() {
        return None;
    }
    let i = row * grid.bins + bin;
    let start = grid.starts.get(i).copied().unwrap_or(0);
    let value = match cells.get(i).copied().flatten() {
        Some(v) => grid.value_text(v),
        None => "outside the file".to_owned(),
    };
    Some(format!(
        "{}\nbin {} from {}: {value}",
        grid.rows[row],
        bin + 1,
        DurationFormat::LIST.format(start as f64)
    ))
}
