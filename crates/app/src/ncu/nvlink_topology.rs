//! Nsight Compute's NVLink topology, drawn from a resolved [`NvlinkTopology`]: devices as boxes
//! (GPUs named by the report), logical links as lines between them labelled with their
//! bandwidth and their received/transmitted throughput; several links between the same pair
//! are drawn side by side. Hovering a link or a device names the metrics behind it. With no
//! links the devices stand alone under a line that says so and names `nvlink__count_logical`.

use eframe::egui::{
    self, Align2, Color32, FontId, Pos2, Rect, Role, Sense, Stroke, StrokeKind, Ui, WidgetInfo,
    pos2, vec2,
};

use super::system_tables::entry_tooltip;
use sightline_model::section::system::NvlinkTopology;
use sightline_model::section::{Entry, Item};

/// Height of the diagram.
const DIAGRAM_HEIGHT: f32 = 220.0;
/// Size of a device box.
const DEVICE_SIZE: egui::Vec2 = egui::Vec2::new(190.0, 56.0);

/// One device, ready to draw.
struct DeviceView {
    label: String,
    name: Option<Entry>,
}

/// One link, ready to draw.
struct LinkView {
    from: usize,
    to: usize,
    /// Which of the links between the same pair this is, and how many there are.
    lane: (usize, usize),
    title: String,
    lines: Vec<String>,
    entries: Vec<Entry>,
}

/// The topology, laid out once per page.
pub struct TopologyView {
    summary: String,
    devices: Vec<DeviceView>,
    links: Vec<LinkView>,
    empty: Option<(String, Entry)>,
    accessible_label: String,
}

impl TopologyView {
    /// Lays out `topology`, whose entries are `item.entries`.
    pub fn build(item: &Item, topology: &NvlinkTopology) -> TopologyView {
        let entry = |i: usize| item.entries.get(i).cloned();
        let summary = topology
            .summary
            .iter()
            .filter_map(|&i| entry(i))
            .map(|e| format!("{}: {}", e.label, e.text))
            .collect::<Vec<_>>()
            .join("    ");
        let devices = topology
            .devices
            .iter()
            .map(|d| DeviceView {
                label: d.label.clone(),
                name: d.name.and_then(entry),
            })
            .collect();
        let mut links = Vec::new();
        for link in &topology.links {
            let pair = (link.from.min(link.to), link.from.max(link.to));
            let same = |l: &&sightline_model::section::system::TopologyLink| {
                (l.from.min(l.to), l.from.max(l.to)) == pair
            };
            let count = topology.links.iter().filter(same).count();
            let lane = topology
                .links
                .iter()
                .filter(same)
                .position(|l| l.link == link.link)
                .unwrap_or(0);
            let entries: Vec<Entry> = link.entries.iter().filter_map(|&i| entry(i)).collect();
            let lines = entries
                .iter()
                .map(|e| {
                    let what = e.label.rsplit(": ").next().unwrap_or(&e.label);
                    format!("{what} {}", e.text.replace("/second", "/s"))
                })
                .collect();
            links.push(LinkView {
                from: link.from,
                to: link.to,
                lane: (lane, count),
                title: format!("Logical link {}", link.link),
                lines,
                entries,
            });
        }
        let empty = topology
            .empty
            .as_ref()
            .and_then(|state| entry(state.entry).map(|e| (state.message.clone(), e)));
        TopologyView {
            summary,
            devices,
            links,
            empty,
            accessible_label: format!("{} diagram", item.label),
        }
    }
}

/// Where device `index` of `count` sits: side by side when there are one or two, else on an
/// ellipse (so that no link crosses a device).
fn device_centre(rect: Rect, index: usize, count: usize) -> Pos2 {
    if count <= 2 {
        let step = rect.width() / count.max(1) as f32;
        return pos2(rect.left() + step * (index as f32 + 0.5), rect.center().y);
    }
    let angle = std::f32::consts::TAU * index as f32 / count as f32 - std::f32::consts::FRAC_PI_2;
    let radius = vec2(
        (rect.width() - DEVICE_SIZE.x) * 0.5,
        (rect.height() - DEVICE_SIZE.y) * 0.5,
    );
    rect.center() + vec2(angle.cos() * radius.x, angle.sin() * radius.y)
}

/// Draws the summary line, the "no links" line and the diagram.
pub fn topology_ui(ui: &mut Ui, view: &TopologyView) {
    ui.label(&view.summary);
    if let Some((message, entry)) = &view.empty {
        ui.weak(message).on_hover_ui(|ui| entry_tooltip(ui, entry));
    }
    let width = ui.available_width().max(360.0);
    // Devices alone need one row; links need room for their labels.
    let height = if view.links.is_empty() && view.devices.len() <= 2 {
        DEVICE_SIZE.y + 24.0
    } else {
        DIAGRAM_HEIGHT
    };
    let (response, painter) = ui.allocate_painter(vec2(width, height), Sense::hover());
    let label = view.accessible_label.clone();
    response.widget_info(|| WidgetInfo::labeled(Role::Image, true, &label));
    if !ui.is_rect_visible(response.rect) {
        return;
    }
    let visuals = ui.visuals().clone();
    let area = response.rect.shrink(8.0);
    let centres: Vec<Pos2> = (0..view.devices.len())
        .map(|i| device_centre(area, i, view.devices.len()))
        .collect();
    let boxes: Vec<Rect> = centres
        .iter()
        .map(|&c| Rect::from_center_size(c, DEVICE_SIZE))
        .collect();
    let hover = response.hover_pos();
    let small = FontId::proportional(11.0);
    // Links first, under the boxes.
    let hovered_link = draw_links(&painter, view, &centres, hover, &visuals, &small);
    let hovered_device = draw_devices(&painter, view, &boxes, hover, &visuals, &small);
    if let Some(index) = hovered_link {
        let link = &view.links[index];
        response.on_hover_ui_at_pointer(|ui| {
            ui.strong(&link.title);
            for entry in &link.entries {
                ui.separator();
                entry_tooltip(ui, entry);
            }
        });
    } else if let Some(index) = hovered_device {
        let device = &view.devices[index];
        response.on_hover_ui_at_pointer(|ui| match &device.name {
            Some(name) => entry_tooltip(ui, name),
            None => {
                ui.strong(&device.label);
            }
        });
    }
}

/// Draws the links between the devices at `centres` (parallel ones side by side, a loop as
/// an arc above its box, the hovered one thicker), then their labels on a backing so that
/// crossing lines stay readable. Returns the link under `hover`.
fn draw_links(
    painter: &egui::Painter,
    view: &TopologyView,
    centres: &[Pos2],
    hover: Option<Pos2>,
    visuals: &egui::Visuals,
    small: &FontId,
) -> Option<usize> {
    let link_colour = Color32::from_rgb(0x76, 0xb9, 0x00);
    let mut hovered_link = None;
    let mut labels: Vec<(Pos2, String)> = Vec::new();
    for (index, link) in view.links.iter().enumerate() {
        let (Some(&a), Some(&b)) = (centres.get(link.from), centres.get(link.to)) else {
            continue;
        };
        let direction = (b - a).normalized();
        let normal = vec2(-direction.y, direction.x);
        let (lane, count) = link.lane;
        let offset = normal * (lane as f32 - (count as f32 - 1.0) * 0.5) * 18.0;
        let (start, end) = if link.from == link.to {
            // A loop (both ends on one device): an arc above the box.
            (
                a + vec2(-30.0, -DEVICE_SIZE.y * 0.5),
                a + vec2(30.0, -DEVICE_SIZE.y * 0.5),
            )
        } else {
            (a + offset, b + offset)
        };
        let is_hovered = hover.is_some_and(|p| distance_to_segment(p, start, end) < 6.0);
        if is_hovered {
            hovered_link = Some(index);
        }
        let stroke = Stroke::new(if is_hovered { 4.0 } else { 2.5 }, link_colour);
        painter.line_segment([start, end], stroke);
        // Labels of parallel links sit at different points along their lines.
        let middle = start + (end - start) * ((lane + 1) as f32 / (count + 1) as f32);
        labels.push((middle, link.lines.join("\n")));
    }
    for (at, text) in labels {
        let galley = painter.layout_no_wrap(text, small.clone(), visuals.text_color());
        let rect = Align2::CENTER_TOP.anchor_size(at + vec2(0.0, 4.0), galley.size());
        painter.rect_filled(
            rect.expand(2.0),
            2.0,
            visuals.panel_fill.gamma_multiply(0.85),
        );
        painter.galley(rect.min, galley, visuals.text_color());
    }
    hovered_link
}

/// Draws the device boxes (outlined in the strong text colour when hovered) with their label
/// and the report's name of the GPU. Returns the device under `hover`.
fn draw_devices(
    painter: &egui::Painter,
    view: &TopologyView,
    boxes: &[Rect],
    hover: Option<Pos2>,
    visuals: &egui::Visuals,
    small: &FontId,
) -> Option<usize> {
    let mut hovered_device = None;
    for (index, (device, rect)) in view.devices.iter().zip(boxes).enumerate() {
        let fill = if visuals.dark_mode {
            Color32::from_rgb(0x27, 0x47, 0x6e)
        } else {
            Color32::from_rgb(0xc4, 0xd8, 0xf0)
        };
        let is_hovered = hover.is_some_and(|p| rect.contains(p));
        if is_hovered {
            hovered_device = Some(index);
        }
        let stroke_colour = if is_hovered {
            visuals.strong_text_color()
        } else {
            fill.gamma_multiply(1.6)
        };
        painter.rect_filled(*rect, 4.0, fill);
        painter.rect_stroke(
            *rect,
            4.0,
            Stroke::new(1.0, stroke_colour),
            StrokeKind::Inside,
        );
        painter.text(
            rect.center() - vec2(0.0, 9.0),
            Align2::CENTER_CENTER,
            &device.label,
            FontId::proportional(13.0),
            visuals.strong_text_color(),
        );
        if let Some(name) = &device.name {
            painter.text(
                rect.center() + vec2(0.0, 10.0),
                Align2::CENTER_CENTER,
                &name.text,
                small.clone(),
                visuals.text_color(),
            );
        }
    }
    hovered_device
}

fn distance_to_segment(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_sq().max(f32::EPSILON)).clamp(0.0, 1.0);
    (a + ab * t).distance(p)
}
