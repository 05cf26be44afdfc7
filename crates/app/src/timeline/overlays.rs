//! What the canvas draws over and around the events — the time ruler, the selected range's
//! shade, the flow arrows of the selection, the hover tooltip — and the track labels' context
//! menu (Show in Events View, hide, collapse, expand).

use eframe::egui::{self, Align2, FontId, Pos2, Rect, Stroke, Vec2};

use super::canvas::{Canvas, Marks};
use super::colors;
use super::rows::{self, Line};
use super::view::{format_duration, ruler_ticks};
use sightline_model::timeline::{
    CounterBucket, EventId, EventKind, Flow, Timeline, TrackId, VisibleItem,
};

impl Canvas {
    /// The time ruler: adaptive major ticks with labels, minor ticks between them.
    pub(super) fn draw_ruler(
        &mut self,
        painter: &egui::Painter,
        visuals: &egui::Visuals,
        ruler: Rect,
        timeline: &Timeline,
    ) {
        painter.rect_filled(ruler, 0.0, visuals.panel_fill);
        let origin = timeline.time_range().map_or(0.0, |(t0, _)| t0 as f64);
        let (ticks, minor) = ruler_ticks(&self.viewport, origin, 90.0);
        let stroke = Stroke::new(1.0, visuals.text_color().gamma_multiply(0.6));
        for (t, label) in &ticks {
            let x = ruler.left() + self.viewport.x_of(*t);
            painter.line_segment(
                [Pos2::new(x, ruler.top()), Pos2::new(x, ruler.bottom())],
                stroke,
            );
            painter.text(
                Pos2::new(x + 3.0, ruler.top() + 2.0),
                Align2::LEFT_TOP,
                label,
                FontId::monospace(11.0),
                visuals.text_color(),
            );
            for k in 1..5 {
                let xm = ruler.left() + self.viewport.x_of(t + minor * f64::from(k));
                painter.line_segment(
                    [
                        Pos2::new(xm, ruler.bottom() - 5.0),
                        Pos2::new(xm, ruler.bottom()),
                    ],
                    stroke,
                );
            }
            self.shapes_drawn += 6;
        }
        painter.line_segment([ruler.left_bottom(), ruler.right_bottom()], stroke);
    }

    /// Shade over the selected range, with its length written at the top.
    pub(super) fn draw_range(
        &mut self,
        painter: &egui::Painter,
        visuals: &egui::Visuals,
        area: Rect,
        tracks: Rect,
        range: Option<(i64, i64)>,
    ) {
        let Some((t0, t1)) = range else { return };
        let x0 = area.left() + self.viewport.x_of(t0 as f64);
        let x1 = area.left() + self.viewport.x_of(t1 as f64);
        let r = Rect::from_min_max(
            Pos2::new(x0, tracks.top()),
            Pos2::new(x1.max(x0 + 1.0), area.bottom()),
        )
        .intersect(area);
        painter.rect_filled(r, 0.0, colors::range_shade(visuals));
        let edge = Stroke::new(1.0, colors::selection(visuals));
        painter.vline(x0, tracks.top()..=area.bottom(), edge);
        painter.vline(x1, tracks.top()..=area.bottom(), edge);
        painter.text(
            Pos2::new((x0 + x1) / 2.0, tracks.top() + 2.0),
            Align2::CENTER_TOP,
            format_duration((t1 - t0) as f64),
            FontId::proportional(12.0),
            visuals.strong_text_color(),
        );
        self.shapes_drawn += 4;
    }

    /// Arrows from the selected event to each of its flow partners (API call → GPU work).
    pub(super) fn draw_flows(
        &mut self,
        painter: &egui::Painter,
        visuals: &egui::Visuals,
        timeline: &Timeline,
        tracks: Rect,
        lines: &[Line],
        marks: &Marks<'_>,
    ) {
        let Some(selected) = marks.selected else {
            return;
        };
        let Some(from) = self.anchor(timeline, tracks, lines, selected) else {
            return;
        };
        let color = colors::selection(visuals);
        for &p in marks.partners {
            let Some(to) = self.anchor(timeline, tracks, lines, p) else {
                continue;
            };
            // From the flow's source (a call, a send) to its target (the work, the receive).
            let outgoing = timeline
                .flows()
                .binary_search(&Flow {
                    from: selected,
                    to: p,
                })
                .is_ok();
            let (a, b) = if outgoing { (from, to) } else { (to, from) };
            let stroke = Stroke::new(1.5, color);
            painter.line_segment([a, b], stroke);
            // A small head at the work's end, whatever the arrow's length.
            let dir = (b - a).normalized();
            if dir.is_finite() {
                let back = b - dir * 9.0;
                let side = Vec2::new(-dir.y, dir.x) * 4.5;
                painter.add(egui::Shape::convex_polygon(
                    vec![b, back + side, back - side],
                    color,
                    Stroke::NONE,
                ));
            }
            self.shapes_drawn += 2;
        }
    }

    /// The calls of the MPI collective `event` is part of, outlined in every rank while it is
    /// hovered, the last arrival (the straggler) thicker, joined at their starts.
    pub(super) fn draw_collective(
        &mut self,
        painter: &egui::Painter,
        visuals: &egui::Visuals,
        timeline: &Timeline,
        (tracks, lines): (Rect, &[Line]),
        event: EventId,
    ) {
        let Some(group) = timeline.mpi_collective(event) else {
            return;
        };
        let straggler = timeline.mpi_collective_timing(event).map(|t| t.straggler);
        let color = colors::selection(visuals);
        let mut starts: Vec<Pos2> = Vec::new();
        for &m in &group.members {
            let (Some(at), Some(e)) = (self.anchor(timeline, tracks, lines, m), timeline.event(m))
            else {
                continue;
            };
            let (track, row) = timeline.locate(m).unwrap_or((TrackId(0), 0));
            let height = rows::line_of(lines, timeline, track, row).map_or(12.0, |l| l.height);
            let right = self.events_rect.left() + self.viewport.x_of(e.end as f64);
            let rect = Rect::from_min_max(
                Pos2::new(at.x, at.y - height / 2.0),
                Pos2::new(right.max(at.x + 2.0), at.y + height / 2.0),
            );
            let width = if Some(m) == straggler { 3.0 } else { 1.5 };
            painter.rect_stroke(
                rect,
                2.0,
                Stroke::new(width, color),
                egui::StrokeKind::Outside,
            );
            starts.push(at);
            self.shapes_drawn += 1;
        }
        starts.sort_by(|a, b| a.y.total_cmp(&b.y));
        for pair in starts.windows(2) {
            painter.line_segment(
                [pair[0], pair[1]],
                Stroke::new(1.0, color.gamma_multiply(0.6)),
            );
            self.shapes_drawn += 1;
        }
    }

    /// Where an arrow meets `event`: its start, at the middle of its line.
    fn anchor(
        &self,
        timeline: &Timeline,
        tracks: Rect,
        lines: &[Line],
        event: EventId,
    ) -> Option<Pos2> {
        let e = timeline.event(event)?;
        let (track, row) = timeline.locate(event)?;
        let line = rows::line_of(lines, timeline, track, row)?;
        let x = self.events_rect.left() + self.viewport.x_of(e.start as f64);
        Some(Pos2::new(
            x,
            tracks.top() + line.y - self.scroll_y + line.height / 2.0,
        ))
    }

    /// Right-click on a track's label: hide it, collapse or expand it.
    pub(super) fn gutter_menu(
        &mut self,
        response: &egui::Response,
        gutter: Rect,
        tracks: Rect,
        lines: &[Line],
    ) {
        let Some(pos) = response
            .interact_pointer_pos()
            .filter(|_| response.secondary_clicked())
        else {
            if !response.context_menu_opened() {
                return;
            }
            self.context_menu(response);
            return;
        };
        let y = pos.y - tracks.top() + self.scroll_y;
        if let Some(line) = lines.iter().find(|l| y >= l.y && y < l.y + l.height)
            && gutter.contains(pos)
        {
            response
                .ctx
                .data_mut(|d| d.insert_temp(response.id.with("menu-track"), line.track));
        }
        self.context_menu(response);
    }

    fn context_menu(&mut self, response: &egui::Response) {
        let key = response.id.with("menu-track");
        let Some(track) = response.ctx.data(|d| d.get_temp::<TrackId>(key)) else {
            return;
        };
        let mut changed = false;
        response.context_menu(|ui| {
            if ui
                .button("Show in Events View")
                .on_hover_text("The track's events as a table (E)")
                .clicked()
            {
                self.events_request = Some(track);
                ui.close();
            }
            if ui.button("Hide track").clicked() {
                self.tree.hidden.insert(track);
                changed = true;
                ui.close();
            }
            let label = if self.tree.collapsed.contains(&track) {
                "Expand"
            } else {
                "Collapse"
            };
            if ui.button(label).clicked() {
                self.tree.toggle(track);
                changed = true;
                ui.close();
            }
        });
        if changed {
            self.invalidate_lines();
        }
    }
}

/// The hover tooltip of a bar.
/// The tooltip of a counter's level under the pointer: the counter's name, its value (with
/// its unit), the smallest and largest value the pixel stands for, and when it was sampled.
pub(super) fn counter_tooltip(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    track: TrackId,
    bucket: &CounterBucket,
) {
    let name = timeline.track(track).map_or("", |t| t.name.as_str());
    let unit = timeline
        .counter_series(track)
        .and_then(|s| s.unit.as_deref());
    ui.strong(name);
    ui.label(format!(
        "value {}",
        super::details::counter_text(bucket.last, unit)
    ));
    if bucket.max > bucket.min {
        ui.label(format!(
            "{} – {} in this pixel",
            super::details::counter_text(bucket.min, unit),
            super::details::counter_text(bucket.max, unit)
        ));
    }
    let origin = timeline.time_range().map_or(0, |(t0, _)| t0);
    ui.label(format!(
        "sampled at {}",
        format_duration((bucket.start - origin) as f64)
    ));
    if let Some(parent) = timeline.track(track).and_then(|t| t.parent) {
        ui.weak(timeline.track_path(parent));
    }
}

pub(super) fn tooltip(ui: &mut egui::Ui, timeline: &Timeline, item: &VisibleItem) {
    let Some(e) = timeline.event(item.first) else {
        return;
    };
    if timeline.is_sketch(item.first) {
        ui.strong("Events being read");
        ui.label(format!(
            "spanning {}",
            format_duration((item.end - item.start) as f64)
        ));
        ui.weak("Shown in full once the file is read");
        return;
    }
    if item.count > 1 {
        ui.strong(format!("{} events", item.count));
        ui.label(format!("first: {}", timeline.name(e.name)));
        ui.label(format!(
            "spanning {}",
            format_duration((item.end - item.start) as f64)
        ));
        ui.weak("Click to zoom in");
        return;
    }
    ui.strong(timeline.name(e.name));
    ui.label(format!(
        "{}  ·  {}",
        e.kind.as_str(),
        format_duration((e.end - e.start) as f64)
    ));
    let origin = timeline.time_range().map_or(0, |(t0, _)| t0);
    ui.label(format!(
        "starts at {}",
        format_duration((e.start - origin) as f64)
    ));
    // A CPU sample's correlation column holds its call stack.
    if e.correlation != 0 && e.kind != EventKind::CpuSample {
        ui.label(format!("correlation id {}", e.correlation));
    }
    for line in super::payload_fields::tooltip_lines(timeline, e.id) {
        ui.label(line);
    }
    for line in super::mpi_details::tooltip_lines(timeline, e.id) {
        ui.label(line);
    }
    if let Some(stack) = timeline.stack_of(e.id) {
        // The innermost frames; the details list them all.
        for frame in timeline.stacks.frames_of(stack).take(4) {
            ui.weak(format!("  {}", timeline.name(frame.symbol)));
        }
    }
}
