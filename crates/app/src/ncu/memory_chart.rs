//! Nsight Compute's memory chart, drawn from a resolved [`MemoryChart`]: logical units (green)
//! linked to the kernel by instructions and to the physical units (blue) by requests; links
//! between physical units carry the bytes moved and their throughput, reads drawn towards the
//! SM and writes away from it. A link's colour is its share of the peak (legend below the
//! chart); hovering a link or a unit names the metrics behind it — with baselines, each
//! baseline's value of each metric and the difference to it. With baselines, each value drawn
//! in the chart is followed by its difference to the first one (in % and its direction's
//! colour; `N/A` when that baseline lacks the metric). The layout is laid out in a
//! fixed design space scaled to the available width; colours follow the theme.

use eframe::egui::{
    self, Align2, Color32, FontId, Pos2, Rect, Role, Sense, Stroke, StrokeKind, Ui, Vec2,
    WidgetInfo, pos2, vec2,
};

use sightline_model::ncu::MetricValue;
use sightline_model::section::memory::{ChartLink, ChartNode, MemoryChart};
use sightline_model::section::{Entry, Item};

use super::baselines::ComparedBaseline;
use super::baselines::compare::{BaselineValue, direction_color, values};

/// Width of the design space the layout is written in.
const DESIGN_WIDTH: f32 = 1200.0;
/// Height of the diagram (not scaled).
const DIAGRAM_HEIGHT: f32 = 400.0;
/// Height of the legend row under the diagram.
const LEGEND_HEIGHT: f32 = 30.0;
/// The narrowest the diagram gets (a horizontal scroll bar appears below it).
const MIN_WIDTH: f32 = 760.0;

/// Colour buckets of a link's % of peak: upper bound (exclusive, except the last) and colour.
const PEAK_COLOURS: [(f64, Color32); 5] = [
    (20.0, Color32::from_rgb(0x4c, 0x9b, 0xe8)),
    (40.0, Color32::from_rgb(0x2f, 0xb8, 0xa6)),
    (60.0, Color32::from_rgb(0xd9, 0xb4, 0x1e)),
    (80.0, Color32::from_rgb(0xf0, 0x8a, 0x24)),
    (f64::INFINITY, Color32::from_rgb(0xe0, 0x44, 0x3a)),
];

/// The x of the vertical bus the kernel's links run along (design space).
const KERNEL_BUS_X: f32 = 120.0;

/// Where each unit sits in the design space.
fn node_rect(id: &str) -> Option<Rect> {
    let r =
        |x0: f32, y0: f32, x1: f32, y1: f32| Some(Rect::from_min_max(pos2(x0, y0), pos2(x1, y1)));
    match id {
        "kernel" => r(0.0, 159.0, 90.0, 229.0),
        "global" => r(250.0, 16.0, 340.0, 68.0),
        "local" => r(250.0, 92.0, 340.0, 144.0),
        "texture" => r(250.0, 168.0, 340.0, 220.0),
        "surface" => r(250.0, 244.0, 340.0, 296.0),
        "shared" => r(250.0, 320.0, 340.0, 372.0),
        "l1tex" => r(480.0, 16.0, 610.0, 296.0),
        "shared_memory" => r(480.0, 312.0, 610.0, 380.0),
        "l2" => r(775.0, 60.0, 900.0, 340.0),
        "system" => r(1065.0, 30.0, 1200.0, 110.0),
        "device" => r(1065.0, 160.0, 1200.0, 240.0),
        "peer" => r(1065.0, 290.0, 1200.0, 370.0),
        _ => None,
    }
}

/// One unit, ready to draw.
struct NodeView {
    label: String,
    rect: Rect,
    physical: bool,
    /// Lines drawn inside the unit ("Hit Rate 33.48 %").
    lines: Vec<String>,
    /// The first baseline's value of each line's metric (none without baselines).
    firsts: Vec<Option<BaselineValue>>,
    /// Entries named in the hover.
    entries: Vec<Entry>,
    /// The baselines' values of each entry.
    baselines: Vec<Vec<BaselineValue>>,
}

/// One link, ready to draw: a polyline in design space ending with an arrow head; its label
/// sits on the last segment.
struct LinkView {
    title: String,
    points: Vec<Pos2>,
    /// Label lines: amount (with what is counted), then throughput.
    lines: Vec<String>,
    /// The first baseline's value of each label line's metric (none for a line that names no
    /// value, and without baselines).
    firsts: Vec<Option<BaselineValue>>,
    /// % of peak, when known.
    peak: Option<f64>,
    /// Entries named in the hover.
    entries: Vec<Entry>,
    /// The baselines' values of each entry.
    baselines: Vec<Vec<BaselineValue>>,
    /// Whether the label goes above (reads) or below (writes) the line.
    label_above: bool,
}

/// The memory chart, laid out once per page.
pub struct MemoryChartView {
    nodes: Vec<NodeView>,
    links: Vec<LinkView>,
    accessible_label: String,
}

impl MemoryChartView {
    /// Lays out `chart`, whose entries are `item.entries`, compared with `baselines` (matched
    /// in section `section`).
    pub fn build(
        item: &Item,
        chart: &MemoryChart,
        section: &str,
        baselines: &[ComparedBaseline],
    ) -> MemoryChartView {
        let values = ChartValues {
            item,
            section,
            baselines,
        };
        let nodes = chart
            .nodes
            .iter()
            .filter_map(|node| values.node_view(node))
            .collect();
        let links = chart
            .links
            .iter()
            .filter_map(|link| values.link_view(link))
            .collect();
        MemoryChartView {
            nodes,
            links,
            accessible_label: format!("{} diagram", item.label),
        }
    }
}

/// Where the chart's values come from: the item's entries, and the baselines they are
/// compared with (matched in section `section`).
struct ChartValues<'a> {
    item: &'a Item,
    section: &'a str,
    baselines: &'a [ComparedBaseline],
}

impl ChartValues<'_> {
    /// Entry `index` of the item.
    fn entry(&self, index: usize) -> Option<Entry> {
        self.item.entries.get(index).cloned()
    }

    /// The baselines' values of each of `entries`.
    fn compared(&self, entries: &[Entry]) -> Vec<Vec<BaselineValue>> {
        entries
            .iter()
            .map(|e| values(self.section, e, self.baselines))
            .collect()
    }

    /// The first baseline's value of `entry` (none without baselines).
    fn first(&self, entry: &Entry) -> Option<BaselineValue> {
        values(
            self.section,
            entry,
            self.baselines.get(..1).unwrap_or_default(),
        )
        .pop()
    }

    /// A unit laid out: its box and one line per entry, named without the unit's prefix
    /// (none for a unit the layout does not place).
    fn node_view(&self, node: &ChartNode) -> Option<NodeView> {
        let rect = node_rect(node.id)?;
        let entries: Vec<Entry> = node.entries.iter().filter_map(|&i| self.entry(i)).collect();
        let lines = entries
            .iter()
            .map(|e| {
                let what = e.label.strip_prefix(node.label).unwrap_or(&e.label);
                let what = what.trim_start_matches(": ");
                // Short enough for the unit's box; the hover gives the full name.
                let what = what.strip_suffix(" Success Rate").unwrap_or(what);
                format!("{what} {}", e.text)
            })
            .collect();
        Some(NodeView {
            label: node.label.to_owned(),
            rect,
            physical: node.physical,
            lines,
            firsts: entries.iter().map(|e| self.first(e)).collect(),
            baselines: self.compared(&entries),
            entries,
        })
    }

    /// A link laid out: its path between its units, its label lines (amount, rate) and its
    /// peak share (none when a unit is not placed or the amount is missing).
    fn link_view(&self, link: &ChartLink) -> Option<LinkView> {
        let (Some(from), Some(to)) = (node_rect(link.from), node_rect(link.to)) else {
            return None;
        };
        let amount = self.entry(link.amount)?;
        let rate = link.rate.and_then(|i| self.entry(i));
        let peak = link.peak.and_then(|i| self.entry(i));
        // Physical links come in read/write pairs drawn side by side.
        let pair = matches!(link.label, "Read" | "Write");
        let offset = if pair { 7.0 } else { 0.0 };
        let (start, end) = endpoints(from, to, offset, link.label == "Read");
        // The kernel's links leave along a bus and reach each unit horizontally.
        let points = if link.from == "kernel" && (start.y - to.center().y).abs() > 1.0 {
            vec![
                start,
                pos2(KERNEL_BUS_X, start.y),
                pos2(KERNEL_BUS_X, to.center().y),
                pos2(end.x, to.center().y),
            ]
        } else {
            vec![start, end]
        };
        // "98,304 inst", "98,304 Req", "8.39 Mbyte Read".
        let amount_text = short_units(&amount.text);
        let mut lines = if pair || (amount.unit.is_empty() && link.label.len() <= 4) {
            vec![format!("{amount_text} {}", link.label)]
        } else if amount.unit.is_empty() {
            // A long noun goes on its own line to keep the label narrow.
            vec![amount_text, link.label.to_lowercase()]
        } else {
            vec![amount_text]
        };
        let mut firsts = vec![None; lines.len()];
        firsts[0] = self.first(&amount);
        if let Some(rate) = &rate {
            lines.push(short_units(&rate.text));
            firsts.push(self.first(rate));
        }
        let title = amount
            .label
            .split_once(':')
            .map_or(amount.label.clone(), |(path, _)| path.to_owned());
        let peak_value = peak.as_ref().and_then(|e| finite(e.value.as_ref()));
        let entries: Vec<Entry> = [Some(amount), rate, peak].into_iter().flatten().collect();
        Some(LinkView {
            title: format!("{title} ({})", link.label),
            points,
            lines,
            firsts,
            peak: peak_value,
            baselines: self.compared(&entries),
            entries,
            label_above: !pair || link.label == "Read",
        })
    }
}

/// The two ends of a link between two unit rectangles: from the right edge of the left unit to
/// the left edge of the right one, shifted up (`upper`) or down by `offset` for the read and
/// write of a pair. The link is horizontal when the smaller unit's middle lies within the
/// larger one's height, else it joins the two middles (the kernel's fan).
fn endpoints(a: Rect, b: Rect, offset: f32, upper: bool) -> (Pos2, Pos2) {
    let (left, right, forward) = if a.center().x <= b.center().x {
        (a, b, true)
    } else {
        (b, a, false)
    };
    let shift = if upper { -offset } else { offset };
    let (small, big) = if left.height() <= right.height() {
        (left, right)
    } else {
        (right, left)
    };
    let (y_left, y_right) = if big.y_range().contains(small.center().y) {
        (small.center().y, small.center().y)
    } else {
        (left.center().y, right.center().y)
    };
    let p = pos2(left.right(), y_left + shift);
    let q = pos2(right.left(), y_right + shift);
    if forward { (p, q) } else { (q, p) }
}

fn finite(value: Option<&MetricValue>) -> Option<f64> {
    value
        .and_then(MetricValue::as_f64)
        .filter(|v| v.is_finite())
}

/// Shortens units for link labels: "Gbyte/second" → "Gbyte/s".
fn short_units(text: &str) -> String {
    text.replace("/second", "/s")
}

/// The colour of a link whose share of the peak is `peak` percent.
pub fn peak_colour(peak: f64) -> Color32 {
    PEAK_COLOURS
        .iter()
        .find(|(limit, _)| peak < *limit)
        .map_or(PEAK_COLOURS[4].1, |(_, colour)| *colour)
}

/// Draws the chart (diagram and legend).
pub fn memory_chart_ui(ui: &mut Ui, view: &MemoryChartView) {
    let width = ui.available_width().max(MIN_WIDTH);
    egui::ScrollArea::horizontal()
        .id_salt("memory-chart-scroll")
        .show(ui, |ui| {
            let (response, painter) =
                ui.allocate_painter(vec2(width, DIAGRAM_HEIGHT + LEGEND_HEIGHT), Sense::hover());
            let label = view.accessible_label.clone();
            response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
            if !ui.is_rect_visible(response.rect) {
                return;
            }
            let visuals = ui.visuals().clone();
            let chart = ChartPaint {
                origin: response.rect.min + vec2(4.0, 0.0),
                scale: (width - 8.0) / DESIGN_WIDTH,
                text_colour: visuals.strong_text_color(),
                small: FontId::proportional(11.0),
                painter: &painter,
                visuals: &visuals,
            };
            let hover = response.hover_pos();
            // The link or unit under the pointer.
            let hovered_link = hover.and_then(|pointer| chart.link_at(view, pointer));
            let hovered_node = hover.and_then(|pointer| {
                view.nodes
                    .iter()
                    .position(|n| chart.rect(n.rect).contains(pointer))
            });
            for (index, node) in view.nodes.iter().enumerate() {
                chart.draw_node(ui, node, hovered_node == Some(index));
            }
            for (index, link) in view.links.iter().enumerate() {
                chart.draw_link(ui, link, hovered_link == Some(index));
            }
            legend(
                &painter,
                to_legend_rect(response.rect),
                &visuals,
                &chart.small,
            );
            if let Some(index) = hovered_link {
                let link = &view.links[index];
                response.on_hover_ui_at_pointer(|ui| {
                    entries_tooltip(ui, &link.title, &link.entries, &link.baselines)
                });
            } else if let Some(index) = hovered_node {
                let node = &view.nodes[index];
                let title = if node.physical {
                    format!("{} (physical unit)", node.label)
                } else {
                    format!("{} (logical memory space)", node.label)
                };
                response.on_hover_ui_at_pointer(|ui| {
                    entries_tooltip(ui, &title, &node.entries, &node.baselines)
                });
            }
        });
}

/// How the diagram is drawn this frame: the design space's origin and scale on screen, the
/// painter and the colours and font of the labels.
struct ChartPaint<'a> {
    /// Where the design space's origin is on screen.
    origin: Pos2,
    /// Screen points per design unit, horizontally (the height is not scaled).
    scale: f32,
    /// The colour of the units' text.
    text_colour: Color32,
    /// The font of the values.
    small: FontId,
    painter: &'a egui::Painter,
    visuals: &'a egui::Visuals,
}

impl ChartPaint<'_> {
    /// A point of the design space on screen.
    fn at(&self, p: Pos2) -> Pos2 {
        self.origin + vec2(p.x * self.scale, p.y)
    }

    /// A rectangle of the design space on screen.
    fn rect(&self, r: Rect) -> Rect {
        Rect::from_min_max(self.at(r.min), self.at(r.max))
    }

    /// The link nearest to `pointer` within 7 points, if any.
    fn link_at(&self, view: &MemoryChartView, pointer: Pos2) -> Option<usize> {
        view.links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let distance = l
                    .points
                    .windows(2)
                    .map(|w| distance_to_segment(pointer, self.at(w[0]), self.at(w[1])))
                    .fold(f32::INFINITY, f32::min);
                (i, distance)
            })
            .filter(|(_, d)| *d < 7.0)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// Draws a unit: its box (outlined in the text colour when hovered), its name and its
    /// lines, each followed on the next row by its difference to the first baseline (the
    /// units' boxes are narrow).
    fn draw_node(&self, ui: &Ui, node: &NodeView, hovered: bool) {
        let painter = self.painter;
        let text_colour = self.text_colour;
        let rect = self.rect(node.rect);
        let fill = node_fill(node.physical, self.visuals.dark_mode);
        let stroke_colour = if hovered {
            text_colour
        } else {
            fill.gamma_multiply(1.6)
        };
        painter.rect_filled(rect, 4.0, fill);
        painter.rect_stroke(
            rect,
            4.0,
            Stroke::new(1.0, stroke_colour),
            StrokeKind::Inside,
        );
        let mut rows = Vec::new();
        for (line_index, line) in node.lines.iter().enumerate() {
            rows.push(with_difference(ui, line, None, &self.small, text_colour));
            let first = node.firsts.get(line_index).and_then(Option::as_ref);
            if difference_text(first).is_some() {
                rows.push(with_difference(ui, "", first, &self.small, text_colour));
            }
        }
        let title_y = rect.center().y - 8.0 * rows.len() as f32;
        painter.text(
            pos2(rect.center().x, title_y),
            Align2::CENTER_CENTER,
            &node.label,
            FontId::proportional(12.5),
            text_colour,
        );
        for (row_index, job) in rows.into_iter().enumerate() {
            let galley = painter.layout_job(job);
            let at = pos2(rect.center().x, title_y + 16.0 * (row_index + 1) as f32);
            let place = Align2::CENTER_CENTER.anchor_size(at, galley.size());
            painter.galley(place.min, galley, text_colour);
        }
    }

    /// Draws a link: its path with an arrow head, coloured by its share of the peak (thicker
    /// when hovered), and its labels at the middle of the last segment, above or below it.
    fn draw_link(&self, ui: &Ui, link: &LinkView, hovered: bool) {
        let painter = self.painter;
        let points: Vec<Pos2> = link.points.iter().map(|&p| self.at(p)).collect();
        let colour = link
            .peak
            .map_or(self.visuals.weak_text_color(), peak_colour);
        let width = if hovered { 3.5 } else { 2.0 };
        let stroke = Stroke::new(width, colour);
        let (Some(&to), Some(&from)) = (points.last(), points.iter().rev().nth(1)) else {
            return;
        };
        let direction = (to - from).normalized();
        let mut line = points.clone();
        if let Some(last) = line.last_mut() {
            *last = to - direction * 2.0;
        }
        painter.add(egui::Shape::line(line, stroke));
        arrow_head(painter, to, direction, stroke);
        let middle = from + (to - from) * 0.5;
        let line_height = 13.0;
        let count = link.lines.len() as f32;
        let first_y = if link.label_above {
            middle.y - 4.0 - line_height * count
        } else {
            middle.y + 4.0
        };
        for (line_index, line) in link.lines.iter().enumerate() {
            let first = link.firsts.get(line_index).and_then(Option::as_ref);
            let colour = self.visuals.text_color();
            let job = with_difference(ui, line, first, &self.small, colour);
            let galley = painter.layout_job(job);
            let at = pos2(middle.x, first_y + line_height * line_index as f32);
            let place = Align2::CENTER_TOP.anchor_size(at, galley.size());
            painter.galley(place.min, galley, colour);
        }
    }
}

fn to_legend_rect(chart: Rect) -> Rect {
    Rect::from_min_max(
        pos2(chart.left() + 4.0, chart.bottom() - LEGEND_HEIGHT + 6.0),
        chart.right_bottom(),
    )
}

/// "Link colour: % of peak" with one swatch per bucket, a swatch for links without a peak
/// metric, and the two unit colours.
fn legend(painter: &egui::Painter, rect: Rect, visuals: &egui::Visuals, font: &FontId) {
    let text = visuals.text_color();
    let mut x = rect.left();
    let y = rect.top() + 8.0;
    let label = |x: &mut f32, s: &str| {
        let r = painter.text(pos2(*x, y), Align2::LEFT_CENTER, s, font.clone(), text);
        *x = r.right() + 14.0;
    };
    label(&mut x, "Link colour, % of peak:");
    let mut lower = 0.0;
    for (limit, colour) in PEAK_COLOURS {
        painter.line_segment([pos2(x, y), pos2(x + 22.0, y)], Stroke::new(3.0, colour));
        x += 26.0;
        let name = if limit.is_finite() {
            format!("{lower:.0}–{limit:.0}")
        } else {
            format!("≥ {lower:.0}")
        };
        label(&mut x, &name);
        lower = limit;
    }
    painter.line_segment(
        [pos2(x, y), pos2(x + 22.0, y)],
        Stroke::new(3.0, visuals.weak_text_color()),
    );
    x += 26.0;
    label(&mut x, "no peak metric");
    for (physical, name) in [(false, "logical unit"), (true, "physical unit")] {
        let swatch = Rect::from_center_size(pos2(x + 7.0, y), vec2(14.0, 12.0));
        painter.rect_filled(swatch, 2.0, node_fill(physical, visuals.dark_mode));
        x += 20.0;
        label(&mut x, name);
    }
}

fn node_fill(physical: bool, dark: bool) -> Color32 {
    match (physical, dark) {
        (false, true) => Color32::from_rgb(0x2f, 0x5a, 0x2f),
        (false, false) => Color32::from_rgb(0xc8, 0xe6, 0xc3),
        (true, true) => Color32::from_rgb(0x27, 0x47, 0x6e),
        (true, false) => Color32::from_rgb(0xc4, 0xd8, 0xf0),
    }
}

fn arrow_head(painter: &egui::Painter, tip: Pos2, direction: Vec2, stroke: Stroke) {
    let size = 8.0;
    let normal = vec2(-direction.y, direction.x);
    let base = tip - direction * size;
    painter.add(egui::Shape::convex_polygon(
        vec![tip, base + normal * size * 0.5, base - normal * size * 0.5],
        stroke.color,
        Stroke::NONE,
    ));
}

fn distance_to_segment(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_sq().max(f32::EPSILON)).clamp(0.0, 1.0);
    (a + ab * t).distance(p)
}

/// The label difference of `first` (the first baseline's value of the line's metric): its
/// relative difference, `N/A` when the baseline lacks the metric, nothing when the values are
/// equal or there is no baseline.
fn difference_text(first: Option<&BaselineValue>) -> Option<String> {
    let first = first?;
    if first.missing {
        Some("N/A".to_owned())
    } else {
        first.relative()
    }
}

/// `text` in `colour`, then the difference of `first` in its direction's colour.
fn with_difference(
    ui: &Ui,
    text: &str,
    first: Option<&BaselineValue>,
    font: &FontId,
    colour: Color32,
) -> egui::text::LayoutJob {
    let mut job = egui::text::LayoutJob::default();
    let format = |color| egui::TextFormat::simple(font.clone(), color);
    job.append(text, 0.0, format(colour));
    if let Some(difference) = difference_text(first) {
        let colour = first.and_then(|f| f.difference).map_or_else(
            || ui.visuals().weak_text_color(),
            |d| direction_color(ui, &d),
        );
        job.append(&difference, 4.0, format(colour));
    }
    job
}

/// A tooltip: a title, then each entry's label and value with its metric in monospace, and
/// each baseline's value of it (`baselines`, one list per entry).
fn entries_tooltip(ui: &mut Ui, title: &str, entries: &[Entry], baselines: &[Vec<BaselineValue>]) {
    ui.set_max_width(560.0);
    ui.strong(title);
    for (index, entry) in entries.iter().enumerate() {
        let what = entry.label.rsplit(": ").next().unwrap_or(&entry.label);
        ui.label(format!("{what}: {}", entry.text));
        for value in baselines.get(index).into_iter().flatten() {
            ui.horizontal(|ui| {
                ui.colored_label(value.color, format!("{}: {}", value.name, value.text));
                if let Some(difference) = value.difference.filter(|d| d.absolute != 0.0) {
                    ui.colored_label(
                        direction_color(ui, &difference),
                        format!("{} ({})", difference.relative_text(), value.absolute),
                    );
                }
            });
        }
        ui.monospace(&entry.metric);
        if entry.derived {
            ui.weak("Computed by Sightline from the metrics above");
        }
        if entry.value.is_none() {
            ui.weak("Not collected for this kernel");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use sightline_model::section::BaselineEntries;
    use sightline_model::section::memory::{ChartLink, ChartNode, MemoryWidget};
    use sightline_model::section::{DetailsSection, ItemKind, KernelDetails};

    use super::*;

    fn entry(label: &str, metric: &str, value: f64) -> Entry {
        Entry {
            label: label.to_owned(),
            metric: metric.to_owned(),
            value: Some(MetricValue::Double(value)),
            unit: String::new(),
            text: format!("{value}"),
            description: None,
            hw_unit: None,
            instances: None,
            derived: false,
            blank_label: false,
        }
    }

    /// A chart of the kernel's instructions to L2 and L2's hit rate.
    fn chart(entries: Vec<Entry>) -> (Item, MemoryChart) {
        let node = |id, label, physical, entries| ChartNode {
            id,
            label,
            physical,
            entries,
        };
        let chart = MemoryChart {
            nodes: vec![
                node("kernel", "Kernel", false, vec![]),
                node("l2", "L2 Cache", true, vec![1]),
            ],
            links: vec![ChartLink {
                from: "kernel",
                to: "l2",
                label: "Inst",
                amount: 0,
                rate: None,
                peak: None,
            }],
        };
        let item = Item {
            entries,
            ..Item::empty(
                ItemKind::Memory(MemoryWidget::Chart(chart.clone())),
                "Memory Chart",
            )
        };
        (item, chart)
    }

    fn baseline(entries: Vec<Entry>) -> ComparedBaseline {
        let (item, _) = chart(entries);
        let page = KernelDetails {
            index: 0,
            name: "k".to_owned(),
            sections: vec![DetailsSection {
                identifier: "Memory".to_owned(),
                display_name: "Memory".to_owned(),
                order: 0,
                description: String::new(),
                header: vec![],
                body: vec![item],
                metrics: vec![],
                children: vec![],
            }],
        };
        ComparedBaseline {
            id: 1,
            name: "before".to_owned(),
            color: Color32::RED,
            report: "before.ncu-rep".into(),
            result: Some(0),
            note: None,
            entries: Arc::new(BaselineEntries::of(&page)),
        }
    }

    #[test]
    fn values_in_the_chart_carry_the_difference_to_the_first_baseline() {
        let (item, layout) = chart(vec![
            entry("Kernel to L2: Inst", "inst", 100.0),
            entry("L2 Cache: Hit Rate", "hit", 50.0),
        ]);
        let ours = |view: &MemoryChartView| {
            (
                difference_text(view.links[0].firsts[0].as_ref()),
                difference_text(view.nodes[1].firsts[0].as_ref()),
            )
        };
        let none = MemoryChartView::build(&item, &layout, "Memory", &[]);
        assert_eq!(ours(&none), (None, None));
        // The first baseline counts; a second one is in the hovers only.
        let first = baseline(vec![entry("", "inst", 80.0), entry("", "hit", 50.0)]);
        let second = baseline(vec![entry("", "inst", 10.0)]);
        let view = MemoryChartView::build(&item, &layout, "Memory", &[first, second.clone()]);
        assert_eq!(ours(&view), (Some("+25.00%".to_owned()), None));
        // A baseline without the hit rate: "N/A".
        let view = MemoryChartView::build(&item, &layout, "Memory", &[second]);
        assert_eq!(
            ours(&view),
            (Some("+900.00%".to_owned()), Some("N/A".to_owned()))
        );
    }
}
