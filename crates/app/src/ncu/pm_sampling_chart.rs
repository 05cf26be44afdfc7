//! Nsight Compute's PM sampling timeline, drawn from a resolved [`PmTimeline`]: one collapsible
//! block per metric group, one small line chart per metric row, every chart on the same time
//! axis (time since the first sample), the axis under the last group. Each row's label names
//! the metric on hover; hovering a chart shows the time and the sampled value of every metric
//! of the row at the nearest sample, and a cursor at that time across all rows.

use eframe::egui::{
    self, Align, Align2, FontId, Layout, Pos2, Rect, Role, Sense, Stroke, Ui, WidgetInfo, pos2,
    vec2,
};

use crate::widgets::plot::{cycle, step_for};
use sightline_model::format::format_with_unit;
use sightline_model::ncu::MetricValue;
use sightline_model::section::system::PmTimeline;
use sightline_model::section::{Entry, Item};

/// Width of the row label column.
const LABEL_WIDTH: f32 = 230.0;
/// Height of one row's chart.
const ROW_HEIGHT: f32 = 42.0;
/// Height of the time axis.
const AXIS_HEIGHT: f32 = 22.0;
/// Time buckets of a long series' outline.
const OUTLINE_BUCKETS: usize = 2048;

/// The points to draw for `points` over `span_ns`: all of them when few, else the minimum and
/// maximum of each time bucket, in time order.
fn outline(points: &[(f64, f64)], span_ns: f64) -> Vec<(f64, f64)> {
    if points.len() <= 2 * OUTLINE_BUCKETS || span_ns <= 0.0 {
        return points.to_vec();
    }
    let mut out = Vec::with_capacity(2 * OUTLINE_BUCKETS);
    let bucket_of = |t: f64| ((t / span_ns) * OUTLINE_BUCKETS as f64) as usize;
    let mut start = 0;
    while start < points.len() {
        let bucket = bucket_of(points[start].0);
        let end = start
            + points[start..]
                .iter()
                .take_while(|p| bucket_of(p.0) == bucket)
                .count()
                .max(1);
        let slice = &points[start..end];
        let low = slice.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1));
        let high = slice.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(low), Some(high)) = (low, high) {
            if low.0 <= high.0 {
                out.extend([low, high]);
            } else {
                out.extend([high, low]);
            }
        }
        start = end;
    }
    out
}

/// Line colours of the series of a row.
const SERIES_COLOURS: [u32; 6] = [0x76b900, 0x4c9be8, 0xf08a24, 0xd94ca0, 0x2fb8a6, 0xd9b41e];

/// One sampled metric, ready to draw.
struct SeriesView {
    entry: Entry,
    pass_groups: String,
    /// `(ns since the timeline's start, value)`, sorted by time.
    points: Vec<(f64, f64)>,
    /// What is drawn: the points, or for long series the minimum and maximum of each of
    /// [`OUTLINE_BUCKETS`] time buckets, so a frame draws a bounded number of vertices.
    outline: Vec<(f64, f64)>,
}

/// One row: its label and its series on a common value range.
struct RowView {
    label: String,
    series: Vec<SeriesView>,
    low: f64,
    high: f64,
    /// The largest value with its unit, drawn in the chart's corner.
    peak_text: String,
}

struct GroupView {
    label: String,
    expanded: bool,
    rows: Vec<RowView>,
}

/// The timeline, laid out once per page.
pub struct PmTimelineView {
    id: String,
    span_ns: f64,
    groups: Vec<GroupView>,
    accessible_label: String,
}

impl PmTimelineView {
    /// Lays out `timeline`, whose entries are `item.entries`; `place` makes ids unique.
    pub fn build(place: &str, item: &Item, timeline: &PmTimeline) -> PmTimelineView {
        let start = timeline.start_ns.unwrap_or(0);
        let span_ns = timeline
            .end_ns
            .map_or(0.0, |end| end.saturating_sub(start) as f64);
        let groups = timeline
            .groups
            .iter()
            .map(|group| GroupView {
                label: group.label.clone(),
                expanded: group.expanded,
                rows: group
                    .rows
                    .iter()
                    .map(|row| {
                        let series: Vec<SeriesView> = row
                            .series
                            .iter()
                            .filter_map(|s| {
                                // A NaN or infinite sample is not drawn.
                                let points: Vec<(f64, f64)> = s
                                    .samples
                                    .iter()
                                    .filter(|(_, v)| v.is_finite())
                                    .map(|&(t, v)| (t.saturating_sub(start) as f64, v))
                                    .collect();
                                Some(SeriesView {
                                    entry: item.entries.get(s.entry)?.clone(),
                                    pass_groups: s.pass_groups.join(", "),
                                    outline: outline(&points, span_ns),
                                    points,
                                })
                            })
                            .collect();
                        let values = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
                        let high = values().fold(0.0_f64, f64::max);
                        let low = values().fold(0.0_f64, f64::min);
                        let unit = series.first().map_or("", |s| s.entry.unit.as_str());
                        RowView {
                            label: row.label.clone(),
                            peak_text: format!(
                                "max {}",
                                format_with_unit(&MetricValue::Double(high), unit, None)
                            ),
                            series,
                            low,
                            high,
                        }
                    })
                    .collect(),
            })
            .collect();
        let title = if item.label.is_empty() {
            "PM Sampling"
        } else {
            item.label.as_str()
        };
        PmTimelineView {
            id: format!("pm-timeline-{place}"),
            span_ns,
            groups,
            accessible_label: format!("{title} timeline"),
        }
    }
}

/// A time offset in ns as text with a unit suited to `span_ns`.
fn time_text(ns: f64, span_ns: f64) -> String {
    if span_ns < 10_000.0 {
        format!("{ns:.0} ns")
    } else if span_ns < 10_000_000.0 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{:.3} ms", ns / 1e6)
    }
}

/// Draws the timeline.
pub fn pm_timeline_ui(ui: &mut Ui, view: &PmTimelineView) {
    if view.groups.is_empty() {
        ui.weak("No PM sampling metrics apply to this kernel.");
        return;
    }
    let hover_id = ui.make_persistent_id((&view.id, "hover-ns"));
    let previous: Option<f64> = ui.ctx().data(|d| d.get_temp(hover_id));
    let mut hovered: Option<f64> = None;
    let mut chart_left: Option<f32> = None;
    let chart_width = (ui.available_width() - LABEL_WIDTH - 12.0).max(240.0);
    ui.scope(|ui| {
        // The accessible node of the whole timeline.
        let response = ui.label(egui::RichText::new(&view.accessible_label).weak());
        let label = view.accessible_label.clone();
        response.widget_info(|| WidgetInfo::labeled(Role::Label, true, &label));
    });
    for (group_index, group) in view.groups.iter().enumerate() {
        let title = if group.label.is_empty() {
            "Metrics"
        } else {
            group.label.as_str()
        };
        egui::CollapsingHeader::new(title)
            .id_salt((&view.id, group_index))
            .default_open(group.expanded)
            .show(ui, |ui| {
                for (row_index, row) in group.rows.iter().enumerate() {
                    ui.push_id((group_index, row_index), |ui| {
                        ui.horizontal(|ui| {
                            ui.allocate_ui_with_layout(
                                vec2(LABEL_WIDTH, ROW_HEIGHT),
                                Layout::left_to_right(Align::Center),
                                |ui| {
                                    ui.set_min_size(vec2(LABEL_WIDTH, ROW_HEIGHT));
                                    ui.add(egui::Label::new(&row.label).truncate())
                                        .on_hover_ui(|ui| row_tooltip(ui, row));
                                },
                            );
                            chart_left = Some(ui.cursor().left());
                            if let Some(t) = row_chart_ui(ui, view, row, chart_width, previous) {
                                hovered = Some(t);
                            }
                        });
                    });
                }
            });
    }
    ui.horizontal(|ui| {
        // Under the charts, wherever the group's indentation put them.
        let left = chart_left.unwrap_or(ui.cursor().left() + LABEL_WIDTH);
        ui.add_space((left - ui.cursor().left()).max(0.0));
        axis_ui(ui, view.span_ns, chart_width);
    });
    if hovered != previous {
        ui.ctx().data_mut(|d| match hovered {
            Some(t) => {
                d.insert_temp(hover_id, t);
            }
            None => d.remove::<f64>(hover_id),
        });
        ui.ctx().request_repaint();
    }
}

fn row_tooltip(ui: &mut Ui, row: &RowView) {
    ui.set_max_width(560.0);
    ui.strong(&row.label);
    for series in &row.series {
        ui.monospace(&series.entry.metric);
        ui.label(format!(
            "{}: {} over the kernel, {} samples",
            series.entry.label,
            series.entry.text,
            series.points.len()
        ));
        if !series.pass_groups.is_empty() {
            ui.weak(format!("Pass group {}", series.pass_groups));
        }
    }
}

/// One row's chart; returns the time (ns since start) under the pointer when hovered.
fn row_chart_ui(
    ui: &mut Ui,
    view: &PmTimelineView,
    row: &RowView,
    width: f32,
    cursor: Option<f64>,
) -> Option<f64> {
    let (response, painter) = ui.allocate_painter(vec2(width, ROW_HEIGHT), Sense::hover());
    let label = format!("{} samples", row.label);
    response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
    if !ui.is_rect_visible(response.rect) {
        return None;
    }
    let visuals = ui.visuals();
    let rect = response.rect;
    painter.rect_filled(rect, 2.0, visuals.faint_bg_color);
    let plot = rect.shrink2(vec2(2.0, 4.0));
    let x_of = |ns: f64| {
        if view.span_ns > 0.0 {
            plot.left() + (ns / view.span_ns) as f32 * plot.width()
        } else {
            plot.center().x
        }
    };
    let range = (row.high - row.low).max(f64::MIN_POSITIVE);
    let y_of = |v: f64| plot.bottom() - ((v - row.low) / range) as f32 * plot.height();
    for (index, series) in row.series.iter().enumerate() {
        let colour = cycle(&SERIES_COLOURS, index);
        let points: Vec<Pos2> = series
            .outline
            .iter()
            .map(|&(t, v)| pos2(x_of(t), y_of(v)))
            .collect();
        if points.len() == 1 {
            painter.circle_filled(points[0], 2.5, colour);
        } else {
            painter.add(egui::Shape::line(points, Stroke::new(1.5, colour)));
        }
    }
    if row.series.iter().all(|s| s.points.is_empty()) {
        painter.text(
            rect.center(),
            Align2::CENTER_CENTER,
            "No samples: not collected for this kernel",
            FontId::proportional(11.0),
            visuals.weak_text_color(),
        );
        return None;
    }
    painter.text(
        rect.left_top() + vec2(4.0, 2.0),
        Align2::LEFT_TOP,
        &row.peak_text,
        FontId::proportional(10.0),
        visuals.weak_text_color(),
    );
    let hovered = response
        .hover_pos()
        .filter(|_| view.span_ns > 0.0)
        .map(|p| f64::from((p.x - plot.left()) / plot.width()).clamp(0.0, 1.0) * view.span_ns);
    if let Some(t) = hovered.or(cursor) {
        let x = x_of(t);
        painter.line_segment(
            [pos2(x, rect.top()), pos2(x, rect.bottom())],
            Stroke::new(1.0, visuals.strong_text_color().gamma_multiply(0.6)),
        );
    }
    if let Some(t) = hovered {
        for (index, series) in row.series.iter().enumerate() {
            if let Some((time, value)) = nearest(&series.points, t) {
                let colour = cycle(&SERIES_COLOURS, index);
                painter.circle_filled(pos2(x_of(time), y_of(value)), 3.0, colour);
            }
        }
        let span = view.span_ns;
        response.on_hover_ui_at_pointer(|ui| {
            ui.strong(format!("t = {}", time_text(t, span)));
            for series in &row.series {
                match nearest(&series.points, t) {
                    Some((time, value)) => ui.label(format!(
                        "{}: {} at {}",
                        series.entry.label,
                        format_with_unit(&MetricValue::Double(value), &series.entry.unit, None),
                        time_text(time, span)
                    )),
                    None => ui.weak(format!("{}: no samples", series.entry.label)),
                };
            }
        });
    }
    hovered
}

/// The sample nearest to `t` in time-sorted `points`.
fn nearest(points: &[(f64, f64)], t: f64) -> Option<(f64, f64)> {
    let after = points.partition_point(|p| p.0 < t);
    let candidates = [after.checked_sub(1), Some(after)];
    candidates
        .into_iter()
        .flatten()
        .filter_map(|i| points.get(i).copied())
        .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
}

/// The shared time axis: ticks every 1-2-5 step with their times since the first sample.
fn axis_ui(ui: &mut Ui, span_ns: f64, width: f32) {
    let (rect, _) = ui.allocate_exact_size(vec2(width, AXIS_HEIGHT), Sense::hover());
    let painter = ui.painter_at(rect.expand2(vec2(40.0, 0.0)));
    let visuals = ui.visuals();
    let plot = Rect::from_min_max(
        rect.left_top() + vec2(2.0, 0.0),
        rect.right_bottom() - vec2(2.0, 0.0),
    );
    painter.line_segment(
        [plot.left_top(), plot.right_top()],
        Stroke::new(1.0, visuals.weak_text_color()),
    );
    if span_ns <= 0.0 {
        painter.text(
            plot.left_top() + vec2(0.0, 4.0),
            Align2::LEFT_TOP,
            "0 ns",
            FontId::proportional(10.0),
            visuals.text_color(),
        );
        return;
    }
    let step = step_for(span_ns, 6.0);
    let mut tick = 0.0;
    while tick <= span_ns + step * 1e-9 {
        let x = plot.left() + (tick / span_ns) as f32 * plot.width();
        painter.line_segment(
            [pos2(x, plot.top()), pos2(x, plot.top() + 4.0)],
            Stroke::new(1.0, visuals.weak_text_color()),
        );
        painter.text(
            pos2(x, plot.top() + 5.0),
            Align2::CENTER_TOP,
            time_text(tick, span_ns),
            FontId::proportional(10.0),
            visuals.text_color(),
        );
        tick += step;
    }
}

#[cfg(test)]
mod tests {
    use super::{OUTLINE_BUCKETS, nearest, outline};

    #[test]
    fn long_series_are_outlined_by_bucket_extremes() {
        let points: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64, if i == 50_000 { 1e6 } else { (i % 7) as f64 }))
            .collect();
        let drawn = outline(&points, 99_999.0);
        assert!(drawn.len() <= 2 * OUTLINE_BUCKETS + 2);
        assert!(drawn.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
        assert!(drawn.contains(&(50_000.0, 1e6)), "the spike survives");
        let short = [(0.0, 1.0), (5.0, 2.0)];
        assert_eq!(outline(&short, 5.0), short);
    }

    #[test]
    fn nearest_sample_and_ticks() {
        let points = [(0.0, 1.0), (10.0, 2.0), (20.0, 3.0)];
        assert_eq!(nearest(&points, 14.0), Some((10.0, 2.0)));
        assert_eq!(nearest(&points, 16.0), Some((20.0, 3.0)));
        assert_eq!(nearest(&points, 99.0), Some((20.0, 3.0)));
        assert_eq!(nearest(&[], 1.0), None);
    }
}
