//! The CodeXL charts, drawn with the egui painter: a bar chart of one counter across dispatches
//! (bars narrower than two pixels are folded per pixel column into their range, so a file with a
//! million dispatches costs one shape per pixel) and a line chart of occupancy against a resource
//! with the kernel's own point marked. Both have labelled axes with 1-2-5 ticks, show the value
//! under the pointer in a tooltip, and name themselves to screen readers (and tests).

use std::f32::consts::FRAC_PI_2;

use crate::widgets::plot::{nice_ticks, palette, tick_text};

use eframe::egui::{
    self, Align2, Color32, FontId, Pos2, Rect, Role, Sense, Stroke, Ui, Vec2, WidgetInfo, epaint,
    pos2, vec2,
};

/// Bar colour (bars without a group, and folded bars).
const BAR: Color32 = Color32::from_rgb(0x4c, 0x9b, 0xe8);
/// Legend entries drawn at most (the rest are counted).
const MAX_LEGEND: usize = 10;

/// The colour of group `group`.
pub fn group_colour(group: u32) -> Color32 {
    palette(group as usize)
}
/// The hovered or selected bar, and the kernel's point.
const MARK: Color32 = Color32::from_rgb(0xe0, 0x6a, 0x2a);
/// Occupancy line.
const LINE: Color32 = Color32::from_rgb(0x2f, 0xa8, 0x96);

/// Space around the plot area: left (y ticks and the y title), right, top (title), bottom
/// (x ticks and the x title).
const MARGIN_LEFT: f32 = 62.0;
const MARGIN_RIGHT: f32 = 14.0;
const MARGIN_TOP: f32 = 20.0;
const MARGIN_BOTTOM: f32 = 36.0;

/// The outcome of drawing a chart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChartOutput {
    /// The bar (or point) under the pointer.
    pub hovered: Option<usize>,
    /// The bar (or point) clicked.
    pub clicked: Option<usize>,
}

/// The frame of a chart: plot area, value ranges, the painter.
struct Frame {
    plot: Rect,
    x: (f64, f64),
    y: (f64, f64),
}

impl Frame {
    fn px_x(&self, x: f64) -> f32 {
        let t = if self.x.1 > self.x.0 {
            (x - self.x.0) / (self.x.1 - self.x.0)
        } else {
            0.5
        };
        self.plot.left() + t as f32 * self.plot.width()
    }

    fn px_y(&self, y: f64) -> f32 {
        let t = if self.y.1 > self.y.0 {
            (y - self.y.0) / (self.y.1 - self.y.0)
        } else {
            0.0
        };
        self.plot.bottom() - t as f32 * self.plot.height()
    }
}

/// What a chart draws around its plot, and its size.
#[derive(Debug, Clone, Copy)]
pub struct ChartAxes<'a> {
    /// Title above the plot.
    pub title: &'a str,
    /// x axis title.
    pub x_label: &'a str,
    /// y axis title.
    pub y_label: &'a str,
    /// Size of the whole chart.
    pub size: Vec2,
}

/// Allocates the chart's space and draws the title, the axes, the grid and the tick labels.
fn axes(
    ui: &mut Ui,
    chart: ChartAxes<'_>,
    x_ticks: &[f64],
    y_ticks: &[f64],
    x_range: (f64, f64),
) -> (egui::Response, Frame) {
    let ChartAxes {
        title,
        x_label,
        y_label,
        size,
    } = chart;
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    let plot = Rect::from_min_max(
        pos2(rect.left() + MARGIN_LEFT, rect.top() + MARGIN_TOP),
        pos2(
            (rect.right() - MARGIN_RIGHT).max(rect.left() + MARGIN_LEFT + 10.0),
            (rect.bottom() - MARGIN_BOTTOM).max(rect.top() + MARGIN_TOP + 10.0),
        ),
    );
    let y_range = (
        y_ticks.first().copied().unwrap_or(0.0),
        y_ticks.last().copied().unwrap_or(1.0),
    );
    let frame = Frame {
        plot,
        x: x_range,
        y: y_range,
    };
    if !ui.is_rect_visible(rect) {
        return (response, frame);
    }
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    let text = visuals.text_color();
    let weak = visuals.weak_text_color();
    let grid = Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color);
    let axis = Stroke::new(1.0, weak);
    let small = FontId::proportional(11.0);
    painter.text(
        pos2(plot.left(), rect.top() + 2.0),
        Align2::LEFT_TOP,
        title,
        FontId::proportional(13.0),
        text,
    );
    let y_step = y_ticks.windows(2).next().map_or(1.0, |w| w[1] - w[0]);
    for &t in y_ticks {
        let y = frame.px_y(t);
        painter.hline(plot.x_range(), y, grid);
        painter.text(
            pos2(plot.left() - 4.0, y),
            Align2::RIGHT_CENTER,
            tick_text(t, y_step),
            small.clone(),
            weak,
        );
    }
    let x_step = x_ticks.windows(2).next().map_or(1.0, |w| w[1] - w[0]);
    for &t in x_ticks {
        if t < x_range.0 || t > x_range.1 {
            continue;
        }
        let x = frame.px_x(t);
        painter.vline(x, plot.bottom()..=plot.bottom() + 4.0, axis);
        // The last label would be cut by the chart's edge: align it to the tick's left.
        let anchor = if x > rect.right() - 24.0 {
            Align2::RIGHT_TOP
        } else {
            Align2::CENTER_TOP
        };
        painter.text(
            pos2(x, plot.bottom() + 5.0),
            anchor,
            tick_text(t, x_step),
            small.clone(),
            weak,
        );
    }
    painter.vline(plot.left(), plot.y_range(), axis);
    painter.hline(plot.x_range(), plot.bottom(), axis);
    painter.text(
        pos2(plot.center().x, rect.bottom() - 2.0),
        Align2::CENTER_BOTTOM,
        x_label,
        small.clone(),
        text,
    );
    let galley = painter.layout_no_wrap(y_label.to_string(), small, text);
    let at = pos2(rect.left() + 2.0, plot.center().y + galley.size().x / 2.0);
    painter.add(epaint::TextShape::new(at, galley, text).with_angle(-FRAC_PI_2));
    (response, frame)
}

/// A bar chart of one value per dispatch.
pub struct BarChart<'a> {
    /// The title, the axis titles and the size.
    pub axes: ChartAxes<'a>,
    /// One value per bar (`None`: no bar).
    pub values: &'a [Option<f64>],
    /// The bar drawn outlined.
    pub selected: Option<usize>,
    /// Per bar, its group (a kernel): bars are coloured by group. Empty: one colour.
    pub groups: &'a [u32],
    /// Group names, for the legend (empty: no legend).
    pub legend: &'a [String],
}

impl BarChart<'_> {
    /// Draws the chart; `describe(i)` is bar `i`'s tooltip. Bars are numbered from 1 on the x
    /// axis.
    pub fn ui(&self, ui: &mut Ui, describe: &dyn Fn(usize) -> String) -> ChartOutput {
        let n = self.values.len();
        let (lo, hi) = self
            .values
            .iter()
            .flatten()
            .fold((0.0f64, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let y_ticks = nice_ticks(lo, hi, 5);
        let x_range = (0.5, n as f64 + 0.5);
        let x_ticks = nice_ticks(1.0, n.max(1) as f64, 8);
        let x_ticks: Vec<f64> = x_ticks.into_iter().filter(|t| *t >= 1.0).collect();
        let (response, frame) = axes(ui, self.axes, &x_ticks, &y_ticks, x_range);
        let label = format!(
            "Bar chart of {} across {n} dispatches",
            if self.axes.y_label.is_empty() {
                self.axes.title
            } else {
                self.axes.y_label
            }
        );
        response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
        let plot = frame.plot;
        let bar_at = |pos: Pos2| -> Option<usize> {
            if n == 0 || !plot.contains(pos) {
                return None;
            }
            let t = (pos.x - plot.left()) / plot.width();
            Some(((t * n as f32) as usize).min(n - 1))
        };
        let hovered = response.hover_pos().and_then(bar_at);
        let clicked = if response.clicked() {
            response.interact_pointer_pos().and_then(bar_at)
        } else {
            None
        };
        if ui.is_rect_visible(plot) && n > 0 {
            self.draw_bars(ui, &frame, hovered);
        }
        if let Some(i) = hovered {
            response.on_hover_text_at_pointer(describe(i));
        }
        ChartOutput { hovered, clicked }
    }
}

impl BarChart<'_> {
    /// Paints the bars in `frame`'s plot (one per value, coloured by group; folded per pixel
    /// column when narrower than 2 px), the `hovered` bar marked, the selected bar outlined,
    /// and the legend.
    fn draw_bars(&self, ui: &Ui, frame: &Frame, hovered: Option<usize>) {
        let n = self.values.len();
        let plot = frame.plot;
        let painter = ui.painter_at(plot.expand(1.0));
        let zero = frame.px_y(0.0);
        let slot = plot.width() / n as f32;
        let bar_rect = |i: usize, value: f64| {
            let x0 = plot.left() + i as f32 * slot;
            let gap = if slot > 4.0 { slot * 0.15 } else { 0.0 };
            let y = frame.px_y(value);
            Rect::from_min_max(
                pos2(x0 + gap, y.min(zero)),
                pos2((x0 + slot - gap).max(x0 + gap + 1.0), y.max(zero)),
            )
        };
        if slot >= 2.0 {
            for (i, v) in self.values.iter().enumerate() {
                if let Some(v) = v {
                    let colour = self.groups.get(i).map_or(BAR, |&g| group_colour(g));
                    painter.rect_filled(bar_rect(i, *v), 0.0, colour);
                }
            }
        } else {
            self.draw_folded(&painter, frame);
        }
        let widened = |r: Rect| {
            if r.width() < 3.0 {
                Rect::from_center_size(r.center(), vec2(3.0, r.height().max(1.0)))
            } else {
                r
            }
        };
        if let Some(i) = hovered
            && let Some(Some(v)) = self.values.get(i)
        {
            painter.rect_filled(widened(bar_rect(i, *v)), 0.0, MARK);
        }
        if let Some(i) = self.selected
            && let Some(Some(v)) = self.values.get(i)
        {
            let stroke = Stroke::new(2.0, ui.visuals().strong_text_color());
            painter.rect_stroke(
                widened(bar_rect(i, *v)),
                0.0,
                stroke,
                egui::StrokeKind::Outside,
            );
        }
        self.legend_ui(ui, plot);
    }

    /// Folds the bars of each pixel column into one line from their minimum to their
    /// maximum (zero included).
    fn draw_folded(&self, painter: &egui::Painter, frame: &Frame) {
        let n = self.values.len();
        let plot = frame.plot;
        let columns = plot.width().max(1.0) as usize;
        for px in 0..columns {
            let i0 = px * n / columns;
            let i1 = ((px + 1) * n / columns).max(i0 + 1).min(n);
            let range =
                self.values[i0..i1]
                    .iter()
                    .flatten()
                    .fold(None, |acc: Option<(f64, f64)>, &v| {
                        Some(acc.map_or((v, v), |(a, b)| (a.min(v), b.max(v))))
                    });
            if let Some((a, b)) = range {
                let x = plot.left() + px as f32 + 0.5;
                let (ya, yb) = (frame.px_y(a.min(0.0)), frame.px_y(b.max(0.0)));
                painter.vline(x, ya.min(yb)..=ya.max(yb).max(ya.min(yb) + 1.0), (1.0, BAR));
            }
        }
    }
}

impl BarChart<'_> {
    /// The legend: a swatch and a name per group, right-aligned on the title line.
    fn legend_ui(&self, ui: &Ui, plot: Rect) {
        if self.legend.is_empty() {
            return;
        }
        let painter = ui.painter();
        let font = FontId::proportional(11.0);
        let text = ui.visuals().text_color();
        let mut x = plot.right();
        let y = plot.top() - 11.0;
        let hidden = self.legend.len().saturating_sub(MAX_LEGEND);
        if hidden > 0 {
            let r = painter.text(
                pos2(x, y),
                Align2::RIGHT_CENTER,
                format!("+{hidden} more"),
                font.clone(),
                text,
            );
            x = r.left() - 10.0;
        }
        for (g, name) in self.legend.iter().enumerate().take(MAX_LEGEND).rev() {
            let r = painter.text(pos2(x, y), Align2::RIGHT_CENTER, name, font.clone(), text);
            let swatch = Rect::from_center_size(pos2(r.left() - 8.0, y), vec2(9.0, 9.0));
            painter.rect_filled(swatch, 1.0, group_colour(g as u32));
            x = swatch.left() - 10.0;
            if x < plot.left() + 200.0 {
                break;
            }
        }
    }
}

/// A line chart of `(x, y)` points with one point marked.
pub struct LineChart<'a> {
    /// The title, the axis titles and the size.
    pub axes: ChartAxes<'a>,
    /// Points, x ascending.
    pub points: &'a [(f64, f64)],
    /// The marked point (the kernel's own).
    pub marked: Option<(f64, f64)>,
    /// The y range shown (the occupancy charts use 0–100 %).
    pub y_range: (f64, f64),
    /// What screen readers (and tests) call the chart.
    pub accessible_label: &'a str,
}

impl LineChart<'_> {
    /// Draws the chart; `describe(x, y)` is the tooltip of the point under the pointer.
    pub fn ui(&self, ui: &mut Ui, describe: &dyn Fn(f64, f64) -> String) -> ChartOutput {
        let x_min = self.points.first().map_or(0.0, |p| p.0);
        let x_max = self.points.last().map_or(1.0, |p| p.0);
        let x_range = if x_max > x_min {
            (x_min, x_max)
        } else {
            (x_min - 0.5, x_min + 0.5)
        };
        let x_ticks = nice_ticks(x_range.0, x_range.1, 6);
        let y_ticks = nice_ticks(self.y_range.0, self.y_range.1, 5);
        let (response, frame) = axes(ui, self.axes, &x_ticks, &y_ticks, x_range);
        let label = self.accessible_label.to_string();
        response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
        let plot = frame.plot;
        let nearest = |pos: Pos2| -> Option<usize> {
            if self.points.is_empty() || !plot.contains(pos) {
                return None;
            }
            let t = (pos.x - plot.left()) / plot.width();
            let x = x_range.0 + t as f64 * (x_range.1 - x_range.0);
            let i = self.points.partition_point(|p| p.0 < x);
            let candidates = [i.checked_sub(1), (i < self.points.len()).then_some(i)];
            candidates.into_iter().flatten().min_by(|&a, &b| {
                (self.points[a].0 - x)
                    .abs()
                    .total_cmp(&(self.points[b].0 - x).abs())
            })
        };
        let hovered = response.hover_pos().and_then(nearest);
        let clicked = if response.clicked() {
            response.interact_pointer_pos().and_then(nearest)
        } else {
            None
        };
        if ui.is_rect_visible(plot) {
            let painter = ui.painter_at(plot.expand(6.0));
            let to_screen = |(x, y): (f64, f64)| pos2(frame.px_x(x), frame.px_y(y));
            // Steps: occupancy holds until the next point.
            let mut line: Vec<Pos2> = Vec::with_capacity(self.points.len() * 2);
            for (i, &p) in self.points.iter().enumerate() {
                let at = to_screen(p);
                if i > 0
                    && let Some(previous) = line.last().copied()
                {
                    let corner = pos2(at.x, previous.y);
                    line.push(corner);
                }
                line.push(at);
            }
            if line.len() >= 2 {
                painter.line(line, Stroke::new(1.5, LINE));
            } else if let Some(&only) = line.first() {
                painter.circle_filled(only, 2.5, LINE);
            }
            if let Some(p) = hovered.and_then(|i| self.points.get(i)) {
                let at = to_screen(*p);
                painter.vline(
                    at.x,
                    plot.y_range(),
                    Stroke::new(1.0, ui.visuals().weak_text_color()),
                );
                painter.circle_filled(at, 3.5, LINE);
            }
            if let Some(p) = self.marked {
                let at = to_screen(p);
                painter.circle_filled(at, 5.0, MARK);
                painter.circle_stroke(at, 5.0, Stroke::new(1.0, ui.visuals().strong_text_color()));
                let anchor = if at.x > plot.center().x {
                    Align2::RIGHT_BOTTOM
                } else {
                    Align2::LEFT_BOTTOM
                };
                let offset = if at.x > plot.center().x { -7.0 } else { 7.0 };
                let y = (at.y - 4.0).max(plot.top() + 14.0);
                painter.text(
                    pos2(at.x + offset, y),
                    anchor,
                    format!("kernel: {}, {:.1}%", tick_text(p.0, 1.0), p.1),
                    FontId::proportional(11.0),
                    MARK,
                );
            }
        }
        if let Some(&(x, y)) = hovered.and_then(|i| self.points.get(i)) {
            response.on_hover_text_at_pointer(describe(x, y));
        }
        ChartOutput { hovered, clicked }
    }
}
