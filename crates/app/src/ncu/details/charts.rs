//! Section charts on the Details page: bar, line, histogram and roofline charts (egui_plot),
//! their series prepared once per page (`BarsView`, `LinesView`, `HistogramView`,
//! `RooflineView`) and their axes, marks and number labels.

use super::*;
use crate::ncu::baselines::compare::values;
use crate::widgets::plot::{category_label, category_marks, static_plot};

mod roofline_points;
use roofline_points::{achieved_points, missing_note};

/// Allocates a chart's area and calls `show` only when it is on screen (plots are the costliest
/// widgets of the page).
pub(super) fn chart_area(ui: &mut Ui, height: f32, show: impl FnOnce(&mut Ui)) {
    let width = ui.available_width().max(120.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, height), Sense::hover());
    if ui.is_rect_visible(rect) {
        let mut child = ui.new_child(UiBuilder::new().id_salt("chart").max_rect(rect));
        show(&mut child);
    }
}

pub(super) fn bar_chart_ui(ui: &mut Ui, item: &Item, chart: &BarsView) {
    if chart.series.iter().all(|(_, _, bars)| bars.is_empty()) {
        ui.weak(chart.empty_note.as_str());
        return;
    }
    if chart.series.len() > 1 {
        series_legend(ui, &chart.series);
    }
    // A row per entry, taller with each baseline's bar.
    let row = 22.0 + 14.0 * (chart.series.len() - 1) as f32;
    let height = (chart.labels.len() as f32 * row + 44.0).clamp(90.0, 900.0);
    let labels = &chart.labels;
    let count = labels.len();
    chart_area(ui, height, |ui| {
        let mut plot = static_plot("bar-chart", height)
            .show_grid([true, false])
            .y_axis_min_width(chart.axis_width)
            .y_grid_spacer(move |input: GridInput| category_marks(&input, count))
            .y_axis_formatter(move |mark: GridMark, _| category_label(labels, mark.value))
            .x_axis_formatter(|mark: GridMark, _| si_text(mark.value))
            .label_formatter(|_: &HoverPosition<'_>| None)
            .include_x(0.0)
            .include_y(-0.5)
            .include_y(count as f64 - 0.5);
        // The section's value-axis label, else the unit of the values.
        let label = axes_of(item)
            .x
            .label
            .as_deref()
            .unwrap_or(chart.unit.as_str());
        if !label.is_empty() {
            plot = plot.x_axis_label(label);
        }
        plot = with_range(plot, &axes_of(item).x, Plot::include_x);
        let right = if chart.percent {
            chart.max_value.max(100.0)
        } else {
            chart.max_value
        };
        // Room for the value texts right of the longest bar.
        plot = plot.include_x(right * 1.15);
        let text_color = ui.visuals().text_color();
        plot.show(ui, |plot_ui| {
            for (name, color, bars) in &chart.series {
                plot_ui.bar_chart(
                    BarChart::new(name.as_str(), bars.clone())
                        .horizontal()
                        .color(*color)
                        .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone())),
                );
            }
            for (position, text, color) in &chart.texts {
                let color = if *color == Color32::PLACEHOLDER {
                    text_color
                } else {
                    *color
                };
                plot_ui.text(
                    egui_plot::Text::new("", *position, RichText::new(text).small())
                        .color(color)
                        .anchor(egui::Align2::LEFT_CENTER)
                        .allow_hover(false),
                );
            }
        });
    });
}

/// A line of swatches naming the series of a compared bar chart (above it, so that no bar is
/// hidden).
fn series_legend(ui: &mut Ui, series: &[(String, Color32, Vec<Bar>)]) {
    ui.horizontal_wrapped(|ui| {
        for (name, color, _) in series {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), Sense::hover());
            ui.painter().rect_filled(rect, 2.0, *color);
            ui.label(RichText::new(name).small());
            ui.add_space(8.0);
        }
    });
}

pub(super) fn line_chart_ui(ui: &mut Ui, item: &Item, chart: &LinesView) {
    if chart.lines.is_empty() {
        ui.weak(chart.empty_note.as_str());
        return;
    }
    let height = 200.0;
    chart_area(ui, height, |ui| {
        let mut plot = static_plot("line-chart", height)
            .x_axis_formatter(|mark: GridMark, _| si_text(mark.value))
            .y_axis_formatter(|mark: GridMark, _| si_text(mark.value));
        plot = with_axes(plot, axes_of(item));
        if chart.lines.len() > 1 || !chart.highlights.is_empty() || !chart.baseline_lines.is_empty()
        {
            plot = plot.legend(Legend::default());
        }
        let name = if item.label.is_empty() {
            "values"
        } else {
            item.label.as_str()
        };
        plot.show(ui, |plot_ui| {
            for (index, (line_name, points)) in chart.lines.iter().enumerate() {
                let line_name = if line_name.is_empty() {
                    name
                } else {
                    line_name
                };
                let color = series_color(index);
                plot_ui.line(
                    Line::new(line_name, PlotPoints::from(points.as_slice()))
                        .color(color)
                        .width(1.5),
                );
                plot_ui.points(
                    Points::new(line_name, PlotPoints::from(points.as_slice()))
                        .color(color)
                        .radius(2.5),
                );
            }
            // Baselines: dashed, in their colours.
            for (line_name, points, color) in &chart.baseline_lines {
                plot_ui.line(
                    Line::new(line_name.as_str(), PlotPoints::from(points.as_slice()))
                        .color(*color)
                        .style(LineStyle::dashed_dense())
                        .width(1.5),
                );
            }
            // The kernel's own configuration: a dashed line, and a ring on the curve.
            for (label, x, y) in &chart.highlights {
                plot_ui.vline(
                    VLine::new(label.as_str(), *x)
                        .color(HIGHLIGHT_COLOR)
                        .style(LineStyle::dashed_loose()),
                );
                if let Some(y) = y {
                    plot_ui.points(
                        Points::new(label.as_str(), vec![[*x, *y]])
                            .color(HIGHLIGHT_COLOR)
                            .shape(MarkerShape::Circle)
                            .filled(false)
                            .radius(6.0),
                    );
                }
            }
        });
    });
}

/// `plot` with the labels and ranges of the section file's axes.
pub(super) fn with_axes<'a>(mut plot: Plot<'a>, axes: &ChartAxes) -> Plot<'a> {
    if let Some(label) = &axes.x.label {
        plot = plot.x_axis_label(label.as_str());
    }
    if let Some(label) = &axes.y.label {
        plot = plot.y_axis_label(label.as_str());
    }
    let plot = with_range(plot, &axes.x, Plot::include_x);
    with_range(plot, &axes.y, Plot::include_y)
}

/// `plot` showing at least the range of `axis` (`include` is `Plot::include_x` or `_y`).
pub(super) fn with_range<'a>(
    mut plot: Plot<'a>,
    axis: &ChartAxis,
    include: fn(Plot<'a>, f64) -> Plot<'a>,
) -> Plot<'a> {
    for bound in [axis.min, axis.max].into_iter().flatten() {
        plot = include(plot, bound);
    }
    plot
}

pub(super) fn histogram_ui(ui: &mut Ui, item: &Item, chart: &HistogramView) {
    if chart.bars.is_empty() {
        ui.weak(chart.empty_note.as_str());
        return;
    }
    let height = 180.0;
    chart_area(ui, height, |ui| {
        let plot = static_plot("histogram", height)
            .y_axis_formatter(|mark: GridMark, _| si_text(mark.value))
            .include_y(0.0);
        with_axes(plot, axes_of(item)).show(ui, |plot_ui| {
            plot_ui.bar_chart(
                BarChart::new(chart.name.as_str(), chart.bars.clone())
                    .color(HISTOGRAM_COLOR)
                    .element_formatter(Box::new(|bar: &Bar, _: &BarChart| bar.name.clone())),
            );
        });
    });
}

pub(super) const BAR_COLOR: Color32 = Color32::from_rgb(0x4a, 0x90, 0xd9);
/// The shown result's bars beside baselines' bars.
pub(super) const COMPARED_COLOR: Color32 = Color32::from_gray(0x9a);
pub(super) const HISTOGRAM_COLOR: Color32 = Color32::from_rgb(0x6a, 0xb0, 0x4c);
pub(super) const HIGHLIGHT_COLOR: Color32 = Color32::from_rgb(0xe0, 0x4a, 0x4a);

pub(super) const SERIES_COLORS: [u32; 6] =
    [0x4a90d9, 0xe07b39, 0x5cb85c, 0xc050b0, 0xd9c23a, 0x3ab5b0];

pub(super) fn series_color(index: usize) -> Color32 {
    crate::widgets::plot::cycle(&SERIES_COLORS, index)
}

pub(super) fn roofline_ui(ui: &mut Ui, chart: &RooflineView) {
    if chart.lines.is_empty() && chart.points.is_empty() {
        ui.weak(chart.missing_note.as_str());
        return;
    }
    let height = 300.0;
    chart_area(ui, height, |ui| {
        static_plot("roofline", height)
            .legend(Legend::default())
            .x_axis_label("Arithmetic intensity [FLOP/byte]")
            .y_axis_label("Performance [FLOP/s]")
            .x_grid_spacer(decade_marks)
            .y_grid_spacer(decade_marks)
            .x_axis_formatter(|mark: GridMark, _| decade_label(mark.value))
            .y_axis_formatter(|mark: GridMark, _| decade_label(mark.value))
            .label_formatter(|hover: &HoverPosition<'_>| match hover {
                HoverPosition::NearDataPoint {
                    plot_name,
                    position,
                    ..
                } => Some(format!(
                    "{plot_name}\n{} FLOP/byte\n{} FLOP/s",
                    si_text(10f64.powf(position.x)),
                    si_text(10f64.powf(position.y))
                )),
                HoverPosition::Elsewhere { .. } => None,
            })
            .include_x(chart.x_range[0])
            .include_x(chart.x_range[1])
            .include_y(chart.y_range[0])
            .include_y(chart.y_range[1])
            .show(ui, |plot_ui| {
                for (index, (name, points)) in chart.lines.iter().enumerate() {
                    plot_ui.line(
                        Line::new(name.as_str(), PlotPoints::from(points.as_slice()))
                            .color(series_color(index))
                            .width(2.0),
                    );
                }
                for mark in &chart.points {
                    let at = std::slice::from_ref(&mark.at);
                    plot_ui.points(
                        Points::new(mark.name.as_str(), PlotPoints::from(at))
                            .color(mark.color)
                            .shape(if mark.baseline {
                                MarkerShape::Circle
                            } else {
                                MarkerShape::Diamond
                            })
                            .filled(true)
                            .radius(if mark.baseline { 5.0 } else { 6.0 }),
                    );
                }
            });
    });
    if !chart.missing_note.is_empty() {
        ui.weak(chart.missing_note.as_str());
    }
}

/// Grid marks at whole powers of ten (the roofline's axes are log10).
#[expect(
    clippy::needless_pass_by_value,
    reason = "egui_plot's grid spacer: a `Fn(GridInput)`, this function is passed as one"
)]
pub(super) fn decade_marks(input: GridInput) -> Vec<GridMark> {
    let (low, high) = input.bounds;
    if !low.is_finite() || !high.is_finite() || high - low > 400.0 {
        return Vec::new();
    }
    let step = if high - low > 12.0 { 2.0 } else { 1.0 };
    let mut marks = Vec::new();
    let mut value = (low / step).ceil() * step;
    while value <= high {
        marks.push(GridMark {
            value,
            step_size: step,
        });
        value += step;
    }
    marks
}

pub(super) fn decade_label(exponent: f64) -> String {
    let rounded = exponent.round();
    if (exponent - rounded).abs() > 1e-6 {
        return String::new();
    }
    si_text(10f64.powf(rounded))
}

/// A number with an SI prefix: `1.5G`, `12k`, `0.25`, `3m`.
pub(super) fn si_text(value: f64) -> String {
    if !value.is_finite() {
        return String::new();
    }
    let magnitude = value.abs();
    if magnitude == 0.0 {
        return "0".to_owned();
    }
    const PREFIXES: [(f64, &str); 9] = [
        (1e18, "E"),
        (1e15, "P"),
        (1e12, "T"),
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
        (1.0, ""),
        (1e-3, "m"),
        (1e-6, "µ"),
    ];
    for (scale, prefix) in PREFIXES {
        if magnitude >= scale * 0.999_999 {
            return trim_number(value / scale, prefix);
        }
    }
    format!("{value:.1e}")
}

pub(super) fn trim_number(value: f64, suffix: &str) -> String {
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{suffix}")
}

pub(super) struct BarsView {
    /// One series per result: the shown one, then each baseline (name, colour, bars).
    pub(super) series: Vec<(String, Color32, Vec<Bar>)>,
    /// Value texts at the end of each bar ("N/A" at zero for missing values), in the colour of
    /// their series.
    pub(super) texts: Vec<(PlotPoint, String, Color32)>,
    /// The largest value (room is left right of it for its text).
    pub(super) max_value: f64,
    pub(super) labels: Vec<String>,
    pub(super) axis_width: f32,
    pub(super) unit: String,
    pub(super) percent: bool,
    pub(super) empty_note: String,
}

pub(super) struct LinesView {
    pub(super) lines: Vec<(String, Vec<PlotPoint>)>,
    /// Each baseline's lines of the same metrics (name, points, its colour), drawn dashed.
    pub(super) baseline_lines: Vec<(String, Vec<PlotPoint>, Color32)>,
    /// The kernel's own x values (`HighlightX`): legend text, x, and the first line's y there.
    pub(super) highlights: Vec<(String, f64, Option<f64>)>,
    pub(super) empty_note: String,
}

pub(super) struct HistogramView {
    pub(super) name: String,
    pub(super) bars: Vec<Bar>,
    pub(super) empty_note: String,
}

/// An achieved point of a roofline chart.
pub(super) struct RooflineMark {
    /// Its label (a baseline's point: with the baseline's name).
    pub(super) name: String,
    /// Where, in log10 space.
    pub(super) at: PlotPoint,
    pub(super) color: Color32,
    /// A baseline's point (a circle; the shown result's are diamonds).
    pub(super) baseline: bool,
}

pub(super) struct RooflineView {
    /// Peak lines in log10 space.
    pub(super) lines: Vec<(String, Vec<PlotPoint>)>,
    /// Achieved points in log10 space: the shown result's, then each baseline's.
    pub(super) points: Vec<RooflineMark>,
    pub(super) x_range: [f64; 2],
    pub(super) y_range: [f64; 2],
    /// What could not be drawn (empty when everything was).
    pub(super) missing_note: String,
}

impl BarsView {
    /// The bars of `item` (of section `section`): one per entry, and beside each a bar per
    /// baseline in the baseline's colour (its value of the same metric; "N/A" when it lacks it).
    pub(super) fn build(item: &Item, section: &str, baselines: &[ComparedBaseline]) -> BarsView {
        let count = item.entries.len();
        let series_count = 1 + baselines.len();
        // The bars of one entry share 0.8 of its row, the shown result's on top.
        let width = 0.8 / series_count as f64;
        let offset = |series: usize| 0.4 - width * (series as f64 + 0.5);
        // Beside baselines (the first of which may be blue), the shown result is neutral.
        let own = if baselines.is_empty() {
            BAR_COLOR
        } else {
            COMPARED_COLOR
        };
        let mut series: Vec<(String, Color32, Vec<Bar>)> =
            std::iter::once(("This result".to_owned(), own))
                .chain(baselines.iter().map(|b| (b.name.clone(), b.color)))
                .map(|(name, color)| (name, color, Vec::new()))
                .collect();
        let mut texts = Vec::with_capacity(count * series_count);
        let mut labels = Vec::with_capacity(count);
        let mut max_value: f64 = 0.0;
        for (index, entry) in item.entries.iter().enumerate() {
            labels.push(entry.label.clone());
            let argument = (count - 1 - index) as f64;
            let compared = values(section, entry, baselines);
            let shown = (value_f64(entry.value.as_ref()), entry.text.clone(), None);
            let others = compared.iter().map(|v| {
                let relative = v
                    .relative()
                    .map(|r| format!(" (Δ {r})"))
                    .unwrap_or_default();
                (
                    v.value.filter(|x| x.is_finite()),
                    v.text.clone(),
                    Some(relative),
                )
            });
            for (at, (value, text, relative)) in std::iter::once(shown).chain(others).enumerate() {
                let (name, color, bars) = &mut series[at];
                let y = argument + offset(at);
                // The shown result's texts in the text colour, the baselines' in theirs.
                let tint = if at == 0 {
                    Color32::PLACEHOLDER
                } else {
                    *color
                };
                match value {
                    Some(value) => {
                        max_value = max_value.max(value);
                        let hover = match &relative {
                            Some(relative) => format!("{name}\n{}: {text}{relative}", entry.label),
                            None if baselines.is_empty() => format!("{}: {text}", entry.label),
                            None => format!("{name}\n{}: {text}", entry.label),
                        };
                        bars.push(
                            Bar::new(y, value)
                                .width(width * 0.9)
                                .fill(color.gamma_multiply(0.7))
                                .stroke(Stroke::new(1.0, *color))
                                .name(hover),
                        );
                        texts.push((
                            PlotPoint {
                                x: value.max(0.0),
                                y,
                            },
                            format!(" {text}"),
                            tint,
                        ));
                    }
                    None => texts.push((PlotPoint { x: 0.0, y }, format!(" {text}"), tint)),
                }
            }
        }
        let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let first_unit = item.entries.first().map(|e| e.unit.as_str()).unwrap_or("");
        let same_unit = item.entries.iter().all(|e| e.unit == first_unit);
        let unit = if same_unit {
            first_unit.to_owned()
        } else {
            String::new()
        };
        BarsView {
            series,
            texts,
            max_value,
            labels,
            axis_width: (longest as f32 * 6.8 + 12.0).clamp(40.0, 300.0),
            percent: same_unit && first_unit == "%",
            unit,
            empty_note: empty_note(item),
        }
    }
}

/// The x coordinates of instances: their correlation ids when all are numbers, else positions.
pub(super) fn instance_xs(instances: &[(Option<MetricValue>, MetricValue)]) -> Vec<f64> {
    let ids: Option<Vec<f64>> = instances
        .iter()
        .map(|(id, _)| value_f64(id.as_ref()))
        .collect();
    ids.unwrap_or_else(|| (0..instances.len()).map(|i| i as f64).collect())
}

/// An entry's instances as points `(x, value)`, by x; `None` for an entry without instances.
fn instance_points(entry: &Entry) -> Option<Vec<PlotPoint>> {
    let instances = entry.instances.as_ref().filter(|list| !list.is_empty())?;
    let mut points: Vec<PlotPoint> = instance_xs(instances)
        .into_iter()
        .zip(instances)
        .filter_map(|(x, (_, value))| value_f64(Some(value)).map(|y| PlotPoint { x, y }))
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    Some(points)
}

/// The lines of `entries` (the entries of `item`, or a baseline's of the same metrics): one
/// per entry with instances, named `name(label)`, and one of the scalar values by position,
/// named `name(item's label)`.
fn lines_of<'a>(
    item: &Item,
    entries: impl Iterator<Item = Option<&'a Entry>>,
    name: impl Fn(&str) -> String,
) -> Vec<(String, Vec<PlotPoint>)> {
    let mut lines = Vec::new();
    let mut scalar = Vec::new();
    for (index, entry) in entries.enumerate() {
        let Some(entry) = entry else { continue };
        match instance_points(entry) {
            Some(points) if !points.is_empty() => lines.push((name(&entry.label), points)),
            Some(_) => {}
            None => {
                if let Some(y) = value_f64(entry.value.as_ref()) {
                    scalar.push(PlotPoint { x: index as f64, y });
                }
            }
        }
    }
    if !scalar.is_empty() {
        lines.push((name(&item.label), scalar));
    }
    lines
}

impl LinesView {
    /// The chart of `item` in section `section`, with each baseline's lines of the same
    /// metrics (its own instances and values) in its colour.
    pub(super) fn build(item: &Item, section: &str, baselines: &[ComparedBaseline]) -> LinesView {
        let lines = lines_of(item, item.entries.iter().map(Some), str::to_owned);
        let mut baseline_lines = Vec::new();
        for baseline in baselines {
            let theirs = item
                .entries
                .iter()
                .map(|e| baseline.entries.get(section, &e.metric));
            let named = |label: &str| format!("{label} ({})", baseline.name);
            for (name, points) in lines_of(item, theirs, named) {
                baseline_lines.push((name, points, baseline.color));
            }
        }
        let highlights = match &item.kind {
            ItemKind::LineChart { highlights, .. } => highlights.as_slice(),
            _ => &[],
        };
        let highlights = highlights
            .iter()
            .filter_map(|entry| {
                let x = value_f64(entry.value.as_ref())?;
                let y = lines
                    .first()
                    .and_then(|(_, points)| points.iter().find(|p| p.x == x).map(|p| p.y));
                Some((format!("{}: {}", entry.label, entry.text), x, y))
            })
            .collect();
        LinesView {
            lines,
            baseline_lines,
            highlights,
            empty_note: empty_note(item),
        }
    }
}

impl HistogramView {
    pub(super) fn build(item: &Item) -> HistogramView {
        let mut bars = Vec::new();
        let mut name = item.label.clone();
        if let Some(entry) = item.entries.first() {
            if name.is_empty() {
                name = entry.label.clone();
            }
            let instances = entry.instances.as_deref().unwrap_or_default();
            let xs = instance_xs(instances);
            let width = bar_width(&xs);
            for (x, (_, value)) in xs.into_iter().zip(instances) {
                if let Some(y) = value_f64(Some(value)) {
                    bars.push(
                        Bar::new(x, y)
                            .width(width)
                            .fill(HISTOGRAM_COLOR.gamma_multiply(0.7))
                            .stroke(Stroke::new(1.0, HISTOGRAM_COLOR))
                            .name(format!(
                                "{}: {}",
                                si_text(x),
                                format_with_unit(value, &entry.unit, None)
                            )),
                    );
                }
            }
        }
        if name.is_empty() {
            name = "values".to_owned();
        }
        HistogramView {
            name,
            bars,
            empty_note: empty_note(item),
        }
    }
}

/// A bar width that leaves a gap between neighbouring bars.
pub(super) fn bar_width(xs: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let gap = sorted
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    if gap.is_finite() { gap * 0.8 } else { 0.8 }
}

impl RooflineView {
    /// The chart of `item` in section `section`, with each baseline's achieved points (those of
    /// its chart of the same label) in the baseline's colour.
    pub(super) fn build(
        item: &Item,
        section: &str,
        baselines: &[ComparedBaseline],
    ) -> RooflineView {
        let positive = |v: Option<f64>| v.filter(|v| v.is_finite() && *v > 0.0);
        let mut missing = Vec::new();
        let mut peaks = Vec::new();
        let (rooflines, points): (&[RooflinePoint], &[RooflinePoint]) = item
            .roofline()
            .map_or((&[], &[]), |r| (&r.rooflines, &r.points));
        for (index, roofline) in rooflines.iter().enumerate() {
            let name = or_placeholder(&roofline.label, "Peak", index);
            match (positive(roofline.work), positive(roofline.traffic)) {
                (Some(work), Some(traffic)) => peaks.push((name, work, traffic)),
                _ => missing.push(name),
            }
        }
        let achieved = achieved_points(item, section, baselines, points, &mut missing);
        let intensities = peaks
            .iter()
            .map(|(_, work, traffic)| work / traffic)
            .chain(achieved.iter().map(|a| a.1))
            .map(f64::log10);
        let (low, high) = intensities.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let (x_low, x_high) = if low.is_finite() {
            (low.floor() - 2.0, high.ceil() + 2.0)
        } else {
            (-2.0, 2.0)
        };
        let mut lines = Vec::new();
        let mut y_low = f64::INFINITY;
        let mut y_high = f64::NEG_INFINITY;
        for (name, work, traffic) in peaks {
            let ridge = (work / traffic).log10();
            let (log_work, log_traffic) = (work.log10(), traffic.log10());
            let start = log_traffic + x_low;
            y_low = y_low.min(start);
            y_high = y_high.max(log_work);
            lines.push((
                name,
                vec![
                    PlotPoint { x: x_low, y: start },
                    PlotPoint {
                        x: ridge,
                        y: log_work,
                    },
                    PlotPoint {
                        x: x_high,
                        y: log_work,
                    },
                ],
            ));
        }
        let points: Vec<RooflineMark> = achieved
            .into_iter()
            .map(|(name, intensity, work, color, baseline)| {
                let y = work.log10();
                y_low = y_low.min(y);
                y_high = y_high.max(y);
                RooflineMark {
                    name,
                    at: PlotPoint {
                        x: intensity.log10(),
                        y,
                    },
                    color,
                    baseline,
                }
            })
            .collect();
        let y_range = if y_low.is_finite() {
            [y_low.floor() - 1.0, y_high.ceil() + 1.0]
        } else {
            [0.0, 1.0]
        };
        let missing_note = missing_note(item, &missing, lines.is_empty() && points.is_empty());
        RooflineView {
            lines,
            points,
            x_range: [x_low, x_high],
            y_range,
            missing_note,
        }
    }
}

pub(super) fn or_placeholder(label: &str, kind: &str, index: usize) -> String {
    if label.is_empty() {
        format!("{kind} {}", index + 1)
    } else {
        label.to_owned()
    }
}

/// The axes of a chart item as the section file gives them (none: the defaults).
fn axes_of(item: &Item) -> &ChartAxes {
    static NONE: ChartAxes = ChartAxes {
        x: ChartAxis {
            label: None,
            min: None,
            max: None,
        },
        y: ChartAxis {
            label: None,
            min: None,
            max: None,
        },
    };
    item.axes().unwrap_or(&NONE)
}
