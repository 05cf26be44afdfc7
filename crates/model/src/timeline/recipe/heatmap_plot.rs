//! Sightline's picture of a heat-map recipe's table (NVIDIA's recipe writes a notebook that
//! draws it): an SVG with one panel per value column, one row of cells per file, process and
//! GPU, one cell per bin, coloured from dark (0 %) to yellow (100 %, or the highest value when
//! `--cumulative` passes it), grey where the bin is outside the file. Written by hand: no
//! plotting crate.

use std::fmt::Write;

use super::heatmap::HeatMap;
use super::table::{Cells, Table};

/// A cell's size (px).
const CELL_W: f64 = 12.0;
/// A row's height (px).
const CELL_H: f64 = 16.0;
/// The width of the row labels (px).
const LABEL_W: f64 = 220.0;
/// The colour scale's stops (viridis-like), from 0 to 1.
const STOPS: [(f64, [u8; 3]); 5] = [
    (0.0, [68, 1, 84]),
    (0.25, [59, 82, 139]),
    (0.5, [33, 145, 140]),
    (0.75, [94, 201, 98]),
    (1.0, [253, 231, 37]),
];

/// The colour of `v` on a scale from 0 to `top`, as SVG writes it.
fn colour(v: f64, top: f64) -> String {
    let [r, g, b] = colour_rgb(v, top);
    format!("rgb({r},{g},{b})")
}

/// The colour of `v` on a scale from 0 (dark) to `top` (yellow): red, green, blue.
pub fn colour_rgb(v: f64, top: f64) -> [u8; 3] {
    let t = (v / top).clamp(0.0, 1.0);
    let i = STOPS
        .iter()
        .rposition(|s| s.0 <= t)
        .unwrap_or(0)
        .min(STOPS.len() - 2);
    let ((a, ca), (b, cb)) = (STOPS[i], STOPS[i + 1]);
    let f = (t - a) / (b - a);
    let mix = |k: usize| {
        let x = (f64::from(ca[k]) + f * (f64::from(cb[k]) - f64::from(ca[k]))).round();
        // Between two stops of 0..=255, rounded: always a byte.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let byte = x.clamp(0.0, 255.0) as u8;
        byte
    };
    [mix(0), mix(1), mix(2)]
}

/// `text` escaped for XML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The integers of column `name` (empty when missing).
fn ints(table: &Table, name: &str) -> Vec<i64> {
    match table.column(name).map(|c| &c.cells) {
        Some(Cells::Int(v)) => v.iter().map(|x| x.unwrap_or(0)).collect(),
        _ => Vec::new(),
    }
}

/// A heat map's table as a grid: one row per file, process and GPU, one cell per bin.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatGrid {
    /// The bins per row.
    pub bins: usize,
    /// Each row's label (`FILE · PID N · GPU D`).
    pub rows: Vec<String>,
    /// Each cell's bin start (ns), row after row.
    pub starts: Vec<i64>,
    /// Per value column: its name, its cells row after row (`None`: outside the file) and the
    /// top of its colour scale (100, or the highest value above it; for values that are not
    /// percentages, the highest value).
    pub panels: Vec<(String, Vec<Option<f64>>, f64)>,
    /// The values' unit (`%`, or empty).
    pub unit: &'static str,
}

impl HeatGrid {
    /// A panel's title: its column, unit and scale (`Kernel (%, scale 0–100)`).
    pub fn title(&self, name: &str, top: f64) -> String {
        match self.unit {
            "" => format!("{name} (scale 0–{top})"),
            unit => format!("{name} ({unit}, scale 0–{top})"),
        }
    }

    /// A value with its unit (`12.5 %`).
    pub fn value_text(&self, v: f64) -> String {
        match self.unit {
            "" => format!("{v}"),
            unit => format!("{v} {unit}"),
        }
    }
}

/// The label of row `r` of `table`: its file and the process, GPU or NIC it is of.
fn row_label(table: &Table, r: usize) -> String {
    let cell = |name: &str| table.column(name).map(|c| c.cells.text(r));
    let mut text = cell("File").unwrap_or_default();
    for (column, label) in [
        ("PID", "PID"),
        ("Device ID", "GPU"),
        ("GPU", "GPU"),
        ("NIC ID", "NIC"),
    ] {
        if let Some(v) = cell(column) {
            let _ = write!(text, " · {label} {}", v.trim_end_matches(".0"));
        }
    }
    text
}

/// The grid of `table` (heat map `map`'s `analysis` table), one panel per value column: one
/// column per bin start found, one row per run of rows with the same label and rising bins
/// (a metric map's rows may leave bins out: their cells are empty).
pub fn grid(table: &Table, map: &HeatMap) -> HeatGrid {
    let (values, unit) = (map.values(), map.unit());
    let durations = ints(table, "Duration");
    let mut columns = durations.clone();
    columns.sort_unstable();
    columns.dedup();
    let bins = columns.len();
    // The grid row of each table row.
    let mut labels: Vec<String> = Vec::new();
    let mut row_of = Vec::with_capacity(durations.len());
    for (r, &d) in durations.iter().enumerate() {
        let label = row_label(table, r);
        let same = r > 0 && durations[r - 1] < d && labels.last() == Some(&label);
        if !same {
            labels.push(label);
        }
        row_of.push(labels.len() - 1);
    }
    let place = |r: usize| row_of[r] * bins + columns.binary_search(&durations[r]).unwrap_or(0);
    let panels = values
        .iter()
        .map(|name| {
            let mut cells = vec![None; labels.len() * bins];
            if let Some(Cells::Float(v)) = table.column(name).map(|c| &c.cells) {
                for (r, x) in v.iter().enumerate().take(durations.len()) {
                    cells[place(r)] = *x;
                }
            }
            let floor = if unit == "%" { 100.0 } else { 0.0 };
            let top = cells.iter().flatten().copied().fold(floor, f64::max);
            let top = if top > 0.0 { top } else { 1.0 };
            ((*name).to_owned(), cells, top)
        })
        .collect();
    let starts = (0..labels.len())
        .flat_map(|_| columns.iter().copied())
        .collect();
    HeatGrid {
        bins,
        rows: labels,
        starts,
        panels,
        unit,
    }
}

/// The SVG of `table` (heat map `map`'s `analysis` table) for recipe `recipe`, one panel per
/// value column.
pub fn svg(recipe: &str, table: &Table, map: &HeatMap) -> String {
    let grid = grid(table, map);
    let (bins, rows, starts) = (grid.bins, grid.rows.len(), &grid.starts);
    let label = |row: usize| escape(&grid.rows[row]);
    let panel_h = CELL_H * rows as f64 + 40.0;
    let width = LABEL_W + CELL_W * bins as f64 + 80.0;
    let height = 30.0 + panel_h * grid.panels.len() as f64;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        out,
        r#"<text x="4" y="16" font-size="14">{}</text>"#,
        escape(recipe)
    );
    for (p, (name, cells, top)) in grid.panels.iter().enumerate() {
        let top = *top;
        let y0 = 30.0 + panel_h * p as f64;
        let _ = writeln!(
            out,
            r#"<text x="4" y="{}" font-weight="bold">{}</text>"#,
            y0 + 12.0,
            escape(&grid.title(name, top))
        );
        for row in 0..rows {
            let y = y0 + 20.0 + CELL_H * row as f64;
            let _ = writeln!(out, r#"<text x="4" y="{}">{}</text>"#, y + 12.0, label(row));
            for bin in 0..bins {
                let i = row * bins + bin;
                let (fill, tip) = match cells.get(i).copied().flatten() {
                    Some(v) => (colour(v, top), format!("{v}")),
                    None => ("rgb(220,220,220)".to_owned(), "outside the file".to_owned()),
                };
                let start = starts.get(i).copied().unwrap_or(0);
                let _ = writeln!(
                    out,
                    r#"<rect x="{}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{fill}"><title>{start} ns: {tip}</title></rect>"#,
                    LABEL_W + CELL_W * bin as f64
                );
            }
        }
        let last = starts.get(bins.saturating_sub(1)).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            r#"<text x="{LABEL_W}" y="{}">0 ns</text><text x="{}" y="{}" text-anchor="end">{last} ns</text>"#,
            y0 + 32.0 + CELL_H * rows as f64,
            LABEL_W + CELL_W * bins as f64,
            y0 + 32.0 + CELL_H * rows as f64
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_runs_from_dark_to_yellow() {
        assert_eq!(colour(0.0, 100.0), "rgb(68,1,84)");
        assert_eq!(colour(100.0, 100.0), "rgb(253,231,37)");
        assert_eq!(colour(250.0, 100.0), "rgb(253,231,37)");
        assert_eq!(colour(50.0, 100.0), "rgb(33,145,140)");
    }

    #[test]
    fn percentages_say_so_and_nic_values_do_not() {
        let grid = |unit| HeatGrid {
            bins: 0,
            rows: Vec::new(),
            starts: Vec::new(),
            panels: Vec::new(),
            unit,
        };
        assert_eq!(grid("%").title("Kernel", 100.0), "Kernel (%, scale 0–100)");
        assert_eq!(grid("%").value_text(12.5), "12.5 %");
        assert_eq!(
            grid("").title("Bytes Recv", 42.0),
            "Bytes Recv (scale 0–42)"
        );
        assert_eq!(grid("").value_text(12.5), "12.5");
        let units: Vec<&str> = super::super::RECIPES
            .iter()
            .filter_map(|r| match &r.kind {
                super::super::Kind::HeatMap(map) => Some(map.unit()),
                _ => None,
            })
            .collect();
        // Six heat maps; only nic_metric_map's values are not percentages.
        assert_eq!(units.len(), 6, "{units:?}");
        assert_eq!(
            units.iter().filter(|u| u.is_empty()).count(),
            1,
            "{units:?}"
        );
    }
}
