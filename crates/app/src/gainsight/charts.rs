//! The panel's charts (egui_plot): lifetime histograms on a logarithmic time axis with a line per
//! cell type's retention; refreshes and area per level and cell type against SRAM; write
//! frequency per kernel with its max, 90th percentile and weighted mean. Each chart is drawn
//! from plain numbers the panel computed (no model call per frame) and reports its screen rect,
//! so it can be saved as an image.

use eframe::egui::{self, Color32, Rect, RichText};
use egui_plot::{Bar, BarChart, GridInput, GridMark, HLine, Legend, LineStyle, VLine};

use crate::widgets::plot::{category_label, category_marks, cycle, static_plot};

use sightline_model::gainsight::LogHistogram;

/// Colour of the L1 series.
pub const L1_COLOR: Color32 = Color32::from_rgb(0x4c, 0x9a, 0xe0);
/// Colour of the L2 series.
pub const L2_COLOR: Color32 = Color32::from_rgb(0xe0, 0x8a, 0x3c);
/// Colour of the selected kernel's bar.
pub const SELECTED_COLOR: Color32 = Color32::from_rgb(0xe8, 0xd4, 0x4d);

/// Colour of cell type `index` (retention lines).
pub fn cell_color(index: usize) -> Color32 {
    cycle(
        &[0xe05050, 0x5cc06c, 0xb070e0, 0x40c8c8, 0xe0a0d0, 0xa0a050],
        index,
    )
}

/// The colour of a level's series.
pub fn level_color(level: usize) -> Color32 {
    if level == 0 { L1_COLOR } else { L2_COLOR }
}

/// A time in µs with a unit that fits (`100 ns`, `2.5 µs`, `1 s`).
pub fn time_label(us: f64) -> String {
    let (value, unit) = if us >= 1e6 {
        (us / 1e6, "s")
    } else if us >= 1e3 {
        (us / 1e3, "ms")
    } else if us >= 1.0 {
        (us, "µs")
    } else {
        (us * 1e3, "ns")
    };
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

/// A count with thousands separators.
pub fn count_label(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The smallest whole step (in axis units) that puts marks at least `min_px` apart: egui_plot's
/// `base_step_size` is the axis span of its minimal grid spacing, 8 points.
fn whole_step(input: &GridInput, min_px: f64) -> i64 {
    let step = (input.base_step_size * min_px / 8.0).ceil();
    if step.is_finite() {
        step.clamp(1.0, 1e6) as i64
    } else {
        1
    }
}

/// Grid marks at whole powers of ten of a log10 axis, at least `min_px` apart (every second or
/// third decade on a narrow chart, so the labels have room).
fn decade_marks(input: &GridInput, min_px: f64) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    if !(lo.is_finite() && hi.is_finite()) || hi - lo > 400.0 {
        return Vec::new();
    }
    let step = whole_step(input, min_px);
    (lo.ceil() as i64..=hi.floor() as i64)
        .filter(|e| e.rem_euclid(step) == 0)
        .map(|e| GridMark {
            value: e as f64,
            step_size: step as f64,
        })
        .collect()
}

/// The height of a bar on the refresh chart's axis: `1 + log10(v)` for `v ≥ 1` (one refresh is
/// one unit tall), 0 for none.
pub fn log_height(v: f64) -> f64 {
    if v >= 1.0 { 1.0 + v.log10() } else { 0.0 }
}

/// The value at a whole mark of the [`log_height`] axis.
fn log_axis_label(mark: f64) -> String {
    let k = mark.round();
    if (mark - k).abs() > 1e-6 || k < 0.0 {
        String::new()
    } else if k == 0.0 {
        "0".into()
    } else {
        compact(10f64.powf(k - 1.0))
    }
}

/// A titled frame around a chart; returns the frame's rect (what an image of the chart shows).
pub fn chart_frame(ui: &mut egui::Ui, title: &str, body: impl FnOnce(&mut egui::Ui)) -> Rect {
    egui::Frame::group(ui.style())
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(RichText::new(title).strong());
            body(ui);
        })
        .response
        .rect
}

/// A retention line of a histogram.
#[derive(Debug, Clone, PartialEq)]
pub struct RetentionMark {
    /// The cell type.
    pub name: String,
    /// Retention, µs.
    pub retention_us: f64,
    /// Share of lifetimes it covers (0..=1).
    pub covered: f64,
}

/// A lifetime histogram on a log10 µs axis with one vertical line per retention time.
pub fn histogram_ui(
    ui: &mut egui::Ui,
    id: &str,
    level: usize,
    histogram: &LogHistogram,
    marks: &[RetentionMark],
    height: f32,
) {
    if histogram.counts.is_empty() {
        let note = if histogram.zero > 0 {
            format!(
                "{} lifetime(s), all of 0 cycles",
                count_label(histogram.zero)
            )
        } else {
            "No lifetimes".to_string()
        };
        ui.weak(note);
        return;
    }
    let bars = histogram_bars(histogram);
    let mut plot = static_plot(id, height)
        .x_grid_spacer(|input| decade_marks(&input, 85.0))
        .x_axis_formatter(|mark: GridMark, _| time_label(10f64.powf(mark.value)))
        .x_axis_label("lifetime (log scale)")
        .y_axis_label("lifetimes")
        .include_y(0.0);
    for mark in marks {
        if mark.retention_us > 0.0 && mark.retention_us.is_finite() {
            plot = plot.include_x(mark.retention_us.log10());
        }
    }
    if let (Some(first), Some(last)) = (histogram.edges_us.first(), histogram.edges_us.last()) {
        plot = plot.include_x(first.log10()).include_x(last.log10());
    }
    plot.show(ui, |plot_ui| {
        plot_ui.bar_chart(
            BarChart::new("lifetimes", bars)
                .color(level_color(level))
                .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone())),
        );
        for (index, mark) in marks.iter().enumerate() {
            if !(mark.retention_us > 0.0 && mark.retention_us.is_finite()) {
                continue;
            }
            plot_ui.vline(
                VLine::new(
                    format!(
                        "{} {}: {:.1}% need no refresh",
                        mark.name,
                        time_label(mark.retention_us),
                        mark.covered * 100.0
                    ),
                    mark.retention_us.log10(),
                )
                .color(cell_color(index))
                .width(1.5)
                .style(LineStyle::dashed_loose()),
            );
        }
    });
    retention_captions_ui(ui, histogram, marks);
}

/// One bar per bin of `histogram`, centred on the log10 of its edges and named by its range
/// and count.
fn histogram_bars(histogram: &LogHistogram) -> Vec<Bar> {
    histogram
        .edges_us
        .windows(2)
        .zip(&histogram.counts)
        .map(|(edge, &count)| {
            let (a, b) = (edge[0].log10(), edge[1].log10());
            Bar::new((a + b) / 2.0, count as f64)
                .width((b - a) * 0.95)
                .name(format!(
                    "{} .. {}: {} lifetime(s)",
                    time_label(edge[0]),
                    time_label(edge[1]),
                    count_label(count)
                ))
        })
        .collect()
}

/// The captions under a histogram: each retention time with the share of lifetimes it
/// covers, and the lifetimes of 0 cycles the log axis cannot show.
fn retention_captions_ui(ui: &mut egui::Ui, histogram: &LogHistogram, marks: &[RetentionMark]) {
    let mut captions: Vec<(Color32, String)> = marks
        .iter()
        .enumerate()
        .map(|(index, mark)| {
            (
                cell_color(index),
                format!(
                    "{} {} {:.1}%",
                    mark.name,
                    time_label(mark.retention_us),
                    mark.covered * 100.0
                ),
            )
        })
        .collect();
    if histogram.zero > 0 {
        captions.push((
            ui.visuals().weak_text_color(),
            format!(
                "+ {} lifetime(s) of 0 cycles (not on the log axis)",
                count_label(histogram.zero)
            ),
        ));
    }
    captions_ui(ui, Some("shorter than the retention:"), &captions);
}

/// One group of a grouped bar chart: a category with one value per level (L1, L2).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Category (cell type or technology).
    pub name: String,
    /// L1 and L2 values.
    pub values: [f64; 2],
    /// Text shown on hover per level.
    pub notes: [String; 2],
}

/// Horizontal bars per category (top to bottom) and level (L1 above L2); `log` draws
/// [`log_height`].
pub fn grouped_bars_ui(
    ui: &mut egui::Ui,
    id: &str,
    groups: &[Group],
    value_label: &str,
    log: bool,
    height: f32,
) {
    let count = groups.len();
    // Category `i` sits at `count - 1 - i`, so the first is at the top.
    let position = move |i: usize| (count - 1 - i) as f64;
    let names: Vec<String> = groups.iter().map(|g| g.name.clone()).collect();
    let series = |level: usize| {
        let bars = groups
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let v = g.values[level];
                let h = if log { log_height(v) } else { v };
                Bar::new(position(i) + if level == 0 { 0.2 } else { -0.2 }, h)
                    .width(0.38)
                    .name(format!("{} L{}: {}", g.name, level + 1, g.notes[level]))
            })
            .collect();
        BarChart::new(format!("L{}", level + 1), bars)
            .horizontal()
            .color(level_color(level))
            .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone()))
    };
    let widest = names.iter().map(|n| n.len()).max().unwrap_or(4) as f32;
    let mut plot = static_plot(id, height)
        .legend(Legend::default().position(egui_plot::Corner::RightBottom))
        .show_grid([true, false])
        .y_axis_min_width(widest * 7.0 + 8.0)
        .y_grid_spacer(move |input: GridInput| category_marks(&input, count))
        .y_axis_formatter(move |mark: GridMark, _| category_label(&names, mark.value))
        .x_axis_label(value_label)
        .include_x(0.0)
        .include_y(-0.6)
        .include_y(count as f64 - 0.4);
    if log {
        plot = plot
            .x_grid_spacer(|input| decade_marks(&input, 85.0))
            .x_axis_formatter(|mark: GridMark, _| log_axis_label(mark.value));
    }
    plot.show(ui, |plot_ui| {
        plot_ui.bar_chart(series(0));
        plot_ui.bar_chart(series(1));
    });
}

/// A line of coloured captions (the charts' legends, kept out of the data).
pub fn captions_ui(ui: &mut egui::Ui, prefix: Option<&str>, captions: &[(Color32, String)]) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 12.0;
        if let Some(prefix) = prefix {
            ui.weak(RichText::new(prefix).small());
        }
        for (color, text) in captions {
            ui.label(RichText::new(format!("-- {text}")).color(*color).small());
        }
    });
}

/// A statistic line of the write-frequency chart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrequencyMarks {
    /// Largest per-kernel write frequency.
    pub max: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Weighted mean (all writes over all time).
    pub weighted: f64,
}

/// Write frequency per kernel (bars in kernel-id order, the selected one highlighted) with
/// the max, 90th percentile and weighted mean as horizontal lines.
pub fn write_frequency_ui(
    ui: &mut egui::Ui,
    id: &str,
    level: usize,
    kernels: &[(u64, f64, bool)],
    marks: FrequencyMarks,
    height: f32,
) {
    if kernels.is_empty() {
        ui.weak("No kernel rows");
        return;
    }
    let ids: Vec<u64> = kernels.iter().map(|k| k.0).collect();
    let bars: Vec<Bar> = kernels
        .iter()
        .enumerate()
        .map(|(i, &(id, f, selected))| {
            let bar = Bar::new(i as f64, f)
                .width(0.8)
                .name(format!("kernel {id}: {} writes/µs", compact(f)));
            if selected {
                bar.fill(SELECTED_COLOR)
            } else {
                bar
            }
        })
        .collect();
    let count = ids.len();
    let lines = [
        ("max", marks.max, Color32::from_rgb(0xe0, 0x50, 0x50)),
        (
            "90th percentile",
            marks.p90,
            Color32::from_rgb(0x5c, 0xc0, 0x6c),
        ),
        (
            "weighted mean",
            marks.weighted,
            Color32::from_rgb(0xb0, 0x70, 0xe0),
        ),
    ];
    static_plot(id, height)
        .x_grid_spacer(move |input: GridInput| {
            let (lo, hi) = input.bounds;
            let step = whole_step(&input, 70.0) as usize;
            (0..count)
                .step_by(step)
                .map(|i| i as f64)
                .filter(|v| *v >= lo && *v <= hi)
                .map(|value| GridMark {
                    value,
                    step_size: step as f64 * 1.5,
                })
                .collect()
        })
        .x_axis_formatter(move |mark: GridMark, _| {
            let i = mark.value.round();
            if (mark.value - i).abs() < 1e-6 && i >= 0.0 {
                ids.get(i as usize).map_or(String::new(), u64::to_string)
            } else {
                String::new()
            }
        })
        .x_axis_label("kernel id")
        .y_axis_label("writes / µs")
        .include_y(0.0)
        .include_y(marks.max * 1.05)
        .include_x(-0.6)
        .include_x(count as f64 - 0.4)
        .show(ui, |plot_ui| {
            plot_ui.bar_chart(
                BarChart::new(format!("L{} write frequency", level + 1), bars)
                    .color(level_color(level))
                    .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone())),
            );
            for (name, value, color) in lines {
                plot_ui.hline(
                    HLine::new(name, value)
                        .color(color)
                        .width(1.5)
                        .style(LineStyle::dashed_loose()),
                );
            }
        });
    let captions: Vec<(Color32, String)> = lines
        .iter()
        .map(|(name, value, color)| (*color, format!("{name} {}", compact(*value))))
        .collect();
    captions_ui(ui, None, &captions);
}

use super::table::compact;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(time_label(0.1), "100 ns");
        assert_eq!(time_label(1.0), "1 µs");
        assert_eq!(time_label(2.5), "2.5 µs");
        assert_eq!(time_label(1e6), "1 s");
        assert_eq!(time_label(1234.0), "1.234 ms");
        assert_eq!(count_label(1234567), "1,234,567");
        assert_eq!(count_label(12), "12");
        assert_eq!(
            (log_height(0.0), log_height(1.0), log_height(100.0)),
            (0.0, 1.0, 3.0)
        );
        assert_eq!(log_axis_label(3.0), "100");
        assert_eq!(log_axis_label(0.0), "0");
    }
}
