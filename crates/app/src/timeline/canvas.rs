//! The timeline canvas: the ruler, the track tree's labels at the left, and the events of every
//! visible row with level of detail (the model's `visible` query merges sub-pixel events; the
//! canvas picks the pixel bucket so a frame stays under [`SHAPE_BUDGET`] shapes), the selected
//! time range, the selection's flow arrows, and the mouse: hover tooltips, click to select,
//! drag to pan, Shift+drag to select a range, wheel to scroll, Ctrl+wheel to zoom.

use eframe::egui::{self, Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, StrokeKind, Vec2};

use super::colors;
use super::rows::{self, HEADER_HEIGHT, INDENT, Line, LineKind, TreeState};
use super::view::Viewport;
use sightline_model::timeline::{
    CounterBucket, Event, EventId, EventKind, Layout, Timeline, Track, TrackId, VisibleItem,
};

mod counter;
mod mouse;

/// Most shapes a frame should draw, whatever the number of events.
pub const SHAPE_BUDGET: usize = 20_000;
/// Width of the label gutter (points).
pub const GUTTER_WIDTH: f32 = 240.0;
/// Height of the ruler (points).
pub const RULER_HEIGHT: f32 = 24.0;
/// Narrowest bar that gets its name written on it (points).
const LABEL_MIN_WIDTH: f32 = 40.0;

/// A drawn bar, for hit testing.
#[derive(Debug, Clone, Copy)]
struct Hit {
    rect: Rect,
    item: VisibleItem,
    /// A counter's bucket: its track and what it holds (hovering shows its level).
    counter: Option<(TrackId, CounterBucket)>,
}

/// What a drag is doing.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Drag {
    Pan,
    Range { from: f64 },
}

/// What the user did on the canvas this frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CanvasOutput {
    /// An event was clicked.
    pub clicked: Option<EventId>,
    /// Empty space was clicked.
    pub clicked_empty: bool,
    /// A range was selected (Shift+drag released) or is being dragged.
    pub range: Option<(i64, i64)>,
    /// The range drag finished this frame.
    pub range_done: bool,
}

/// What the canvas highlights, decided by the pane.
pub struct Marks<'a> {
    /// The selected event.
    pub selected: Option<EventId>,
    /// Its flow partners (API call ↔ GPU work).
    pub partners: &'a [EventId],
    /// The selected time range.
    pub range: Option<(i64, i64)>,
    /// Per string id: whether events of that name are highlighted (search hits, a summary
    /// row's instances). Empty: nothing highlighted.
    pub names: &'a [bool],
    /// Per call-stack node: whether CPU samples with that stack are highlighted (the CPU
    /// profile's selected function). Empty: nothing highlighted.
    pub stacks: &'a [bool],
    /// Events linked with a result of an open Nsight Compute report, sorted by id: drawn with
    /// a badge.
    pub linked: &'a [EventId],
}

/// What the rows of one frame are drawn with: the events' painter (clipped to the event area),
/// the colours, the timeline, the marks and the event area.
#[derive(Clone, Copy)]
struct RowPaint<'a> {
    painter: &'a egui::Painter,
    visuals: &'a egui::Visuals,
    timeline: &'a Timeline,
    marks: &'a Marks<'a>,
    area: Rect,
}

/// The parts of the canvas's rectangle: the label gutter at the left, the event area beside
/// it with the ruler on top, and the tracks (gutter and events) below the ruler.
#[derive(Clone, Copy)]
struct Areas {
    /// The whole canvas.
    whole: Rect,
    /// The label gutter.
    gutter: Rect,
    /// The event area (ruler included).
    area: Rect,
    /// The ruler.
    ruler: Rect,
    /// The tracks below the ruler, gutter included.
    tracks: Rect,
}

impl Areas {
    /// Cuts `rect` into its parts.
    fn of(rect: Rect) -> Areas {
        let gutter = Rect::from_min_max(
            rect.min,
            Pos2::new(rect.left() + GUTTER_WIDTH, rect.bottom()),
        );
        let area = Rect::from_min_max(Pos2::new(gutter.right(), rect.top()), rect.max);
        let ruler =
            Rect::from_min_max(area.min, Pos2::new(area.right(), area.top() + RULER_HEIGHT));
        let tracks = Rect::from_min_max(Pos2::new(rect.left(), ruler.bottom()), rect.max);
        Areas {
            whole: rect,
            gutter,
            area,
            ruler,
            tracks,
        }
    }

    /// The clip of the track lines: the whole canvas below the ruler (gutter and events).
    fn tracks_clip(&self) -> Rect {
        Rect::from_min_max(
            Pos2::new(self.whole.left(), self.tracks.top()),
            self.whole.max,
        )
    }

    /// The clip of the events: the event area below the ruler.
    fn events_clip(&self) -> Rect {
        Rect::from_min_max(
            Pos2::new(self.area.left(), self.tracks.top()),
            self.area.max,
        )
    }
}

/// What the lines of one frame are drawn with: the canvas's parts, the colours, the timeline
/// and the marks.
struct FramePaint<'a> {
    areas: Areas,
    visuals: &'a egui::Visuals,
    timeline: &'a Timeline,
    marks: &'a Marks<'a>,
}

/// The canvas's state: the view, the tree, vertical scroll, the drag in progress.
#[derive(Debug)]
pub struct Canvas {
    /// The time axis.
    pub viewport: Viewport,
    /// Collapsed and hidden tracks.
    pub tree: TreeState,
    /// Vertical scroll of the track area (points).
    pub scroll_y: f32,
    lines: Vec<Line>,
    lines_valid: bool,
    fitted: bool,
    /// The view the canvas fitted by itself; while the view is still that one, a change of the
    /// canvas width (panels settling on the first frames, window resized) fits again.
    auto_view: Option<Viewport>,
    /// A time span to show on the next frame, once the canvas knows its width ([`Canvas::frame`]).
    pending_frame: Option<(f64, f64)>,
    drag: Option<Drag>,
    hits: Vec<Hit>,
    /// The track names written in the gutter in the last frame, where (for accessibility).
    labels: Vec<(Rect, TrackId)>,
    /// Shapes the last frame drew on the canvas (bars, labels, ticks, arrows).
    pub shapes_drawn: usize,
    /// Events the last frame's bars stood for.
    pub events_drawn: u64,
    /// Bars drawn with the Nsight Compute badge in the last frame.
    pub linked_drawn: u64,
    /// The canvas's event area on screen during the last frame.
    pub events_rect: Rect,
    /// The items of the rows drawn lately.
    row_items: super::row_cache::RowCache,
    /// A track whose "Show in Events View" was chosen in its menu (taken by the pane).
    pub events_request: Option<TrackId>,
}

impl Default for Canvas {
    fn default() -> Self {
        Canvas {
            viewport: Viewport::default(),
            tree: TreeState::default(),
            scroll_y: 0.0,
            lines: Vec::new(),
            lines_valid: false,
            fitted: false,
            pending_frame: None,
            auto_view: None,
            drag: None,
            hits: Vec::new(),
            labels: Vec::new(),
            shapes_drawn: 0,
            events_drawn: 0,
            linked_drawn: 0,
            events_rect: Rect::NOTHING,
            row_items: super::row_cache::RowCache::default(),
            events_request: None,
        }
    }
}

impl Canvas {
    /// The lines of the track tree (laid out again after the tree changed).
    pub fn lines(&mut self, timeline: &Timeline) -> &[Line] {
        if !self.lines_valid {
            self.lines = rows::layout(timeline, &self.tree);
            self.lines_valid = true;
        }
        &self.lines
    }

    /// Lays the tree out again on the next frame (after collapsing, hiding...).
    pub fn invalidate_lines(&mut self) {
        self.lines_valid = false;
    }

    /// Shows `t0..t1` from the next frame on (also when the canvas was never drawn: a tab
    /// shown for the first time frames it instead of the whole timeline).
    pub fn frame(&mut self, t0: f64, t1: f64) {
        self.pending_frame = Some((t0, t1));
    }

    /// Fits the view to the whole timeline at the next frame unless the user moved it (a
    /// timeline shown while loading, now whole).
    pub fn refit_if_untouched(&mut self) {
        if self.auto_view == Some(self.viewport) {
            self.fitted = false;
        }
    }

    /// Shows the whole timeline.
    pub fn fit_all(&mut self, timeline: &Timeline) {
        if let Some((t0, t1)) = timeline.time_range() {
            self.viewport.fit(t0 as f64, t1 as f64);
        }
    }

    /// Brings `event` into view: centred horizontally (zoomed out if it is wider than the
    /// view), its row scrolled into the track area, its collapsed ancestors expanded.
    pub fn reveal(&mut self, timeline: &Timeline, event: EventId) {
        let Some(e) = timeline.event(event) else {
            return;
        };
        self.viewport.reveal(e.start as f64, e.end as f64);
        let Some((track, row)) = timeline.locate(event) else {
            return;
        };
        let mut cur = Some(track);
        let mut changed = false;
        while let Some(t) = cur {
            changed |= self.tree.collapsed.remove(&t);
            changed |= self.tree.hidden.remove(&t);
            cur = timeline.track(t).and_then(|tr| tr.parent);
        }
        if changed {
            self.invalidate_lines();
        }
        let height = (self.events_rect.height() - RULER_HEIGHT).max(HEADER_HEIGHT);
        if let Some(line) = rows::line_of(self.lines(timeline), timeline, track, row)
            && (line.y < self.scroll_y || line.y + line.height > self.scroll_y + height)
        {
            self.scroll_y = (line.y - height / 2.0).max(0.0);
        }
    }

    /// The gutter's track names as labels, for screen readers (and tests); a file's group
    /// ("Rank 3") names its file on hover.
    fn label_tracks(&self, ui: &egui::Ui, timeline: &Timeline) {
        for (rect, track) in &self.labels {
            if let Some(t) = timeline.track(*track) {
                let label = ui.interact(
                    *rect,
                    ui.scope_id().with(("track-label", track.0)),
                    Sense::hover(),
                );
                label.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &t.name));
                if let Some(index) = timeline.parts().iter().position(|p| p.group == *track) {
                    label.on_hover_text(part_hover(timeline, index));
                }
            }
        }
    }

    /// Draws the canvas into `rect` and handles the mouse.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        rect: Rect,
        timeline: &Timeline,
        marks: &Marks<'_>,
    ) -> CanvasOutput {
        let mut out = CanvasOutput::default();
        let areas = Areas::of(rect);
        let Areas {
            gutter,
            area,
            ruler,
            tracks,
            ..
        } = areas;
        self.events_rect = area;
        let refit = self.fit_to_width(timeline, area.width().max(1.0));
        let response = ui.allocate_rect(area, Sense::click_and_drag());
        let gutter_response = ui.interact(gutter, ui.scope_id().with("gutter"), Sense::click());
        self.mouse(ui, &response, area, &mut out);
        if let Some(range) = timeline.time_range() {
            self.viewport.clamp_to(range);
        }
        if refit {
            self.auto_view = Some(self.viewport);
        }
        let lines = self.lines(timeline).to_vec();
        let content = lines.last().map_or(0.0, |l| l.y + l.height);
        self.scroll_y = self
            .scroll_y
            .clamp(0.0, (content - tracks.height() + HEADER_HEIGHT).max(0.0));

        let visuals = ui.visuals().clone();
        let painter = ui.painter_at(rect);
        self.begin_frame(&painter, &visuals, areas);
        let frame = FramePaint {
            areas,
            visuals: &visuals,
            timeline,
            marks,
        };
        // A click in the gutter, where the pointer was.
        let gutter_click = ui
            .input(|i| i.pointer.interact_pos())
            .filter(|_| gutter_response.clicked());
        if let Some(track) = self.draw_lines(&painter, &frame, &lines, gutter_click) {
            self.tree.toggle(track);
            self.invalidate_lines();
        }
        self.label_tracks(ui, timeline);
        self.gutter_menu(&gutter_response, gutter, tracks, &lines);
        self.draw_range(&painter, &visuals, area, tracks, marks.range);
        let event_painter = painter
            .with_clip_rect(areas.tracks_clip())
            .with_clip_rect(areas.events_clip());
        self.draw_flows(&event_painter, &visuals, timeline, tracks, &lines, marks);
        self.draw_ruler(&painter.with_clip_rect(ruler), &visuals, ruler, timeline);
        let hovered = response
            .hover_pos()
            .filter(|_| self.drag.is_none())
            .and_then(|hover| {
                self.hits
                    .iter()
                    .rev()
                    .find(|h| h.rect.expand(0.5).contains(hover))
                    .map(|h| (h.item, h.counter))
            });
        if let Some((item, counter)) = hovered {
            if item.count == 1 && counter.is_none() {
                self.draw_collective(
                    &event_painter,
                    &visuals,
                    timeline,
                    (tracks, &lines),
                    item.first,
                );
            }
            match counter {
                Some((track, bucket)) => response.on_hover_ui_at_pointer(|ui| {
                    super::overlays::counter_tooltip(ui, timeline, track, &bucket);
                }),
                None => response
                    .on_hover_ui_at_pointer(|ui| super::overlays::tooltip(ui, timeline, &item)),
            };
        }
        out
    }

    /// Sets the viewport's width; fits the whole timeline on the first frame, or when the
    /// width changed while the view is still the one the canvas fitted by itself, and shows a
    /// pending time span. True when it fitted.
    fn fit_to_width(&mut self, timeline: &Timeline, width: f32) -> bool {
        let untouched = self.auto_view == Some(self.viewport);
        let refit = !self.fitted || (untouched && self.viewport.width != width);
        self.viewport.width = width;
        if refit {
            self.fit_all(timeline);
            self.fitted = true;
        }
        if let Some((t0, t1)) = self.pending_frame.take() {
            self.viewport.fit(t0, t1);
        }
        refit
    }

    /// Paints the backgrounds of the canvas and the gutter and resets the frame's counters,
    /// hits and row items.
    fn begin_frame(&mut self, painter: &egui::Painter, visuals: &egui::Visuals, areas: Areas) {
        painter.rect_filled(areas.whole, 0.0, visuals.extreme_bg_color);
        painter.rect_filled(areas.gutter, 0.0, visuals.panel_fill);
        self.shapes_drawn = 2;
        self.events_drawn = 0;
        self.linked_drawn = 0;
        self.hits.clear();
        self.row_items.begin_frame();
    }

    /// Draws the visible lines (a track's label in the gutter, its rows' events) and returns
    /// the track whose arrow `gutter_click` hit, to expand or collapse.
    fn draw_lines(
        &mut self,
        painter: &egui::Painter,
        frame: &FramePaint<'_>,
        lines: &[Line],
        gutter_click: Option<Pos2>,
    ) -> Option<TrackId> {
        let Areas {
            whole: rect,
            area,
            tracks,
            ..
        } = frame.areas;
        let visible_lines: Vec<&Line> = lines
            .iter()
            .filter(|l| {
                let top = tracks.top() + l.y - self.scroll_y;
                top + l.height >= tracks.top() && top <= tracks.bottom()
            })
            .collect();
        // Level of detail: one bar per bucket of pixels, the bucket wide enough that every
        // visible event line together stays within the budget.
        let event_lines = visible_lines
            .iter()
            .filter(|l| l.kind != LineKind::Header)
            .count();
        let bucket_px =
            ((event_lines as f32 * area.width()) / (SHAPE_BUDGET as f32 * 0.45)).max(1.0);
        let track_painter = painter.with_clip_rect(frame.areas.tracks_clip());
        let event_painter = track_painter.with_clip_rect(frame.areas.events_clip());
        let mut toggled = None;
        self.labels.clear();
        for line in &visible_lines {
            let top = tracks.top() + line.y - self.scroll_y;
            let line_rect = Rect::from_min_size(
                Pos2::new(rect.left(), top),
                Vec2::new(rect.width(), line.height),
            );
            let Some(track) = frame.timeline.track(line.track) else {
                continue;
            };
            if line.label {
                let gutter =
                    Rect::from_min_max(line_rect.min, Pos2::new(area.left(), line_rect.max.y));
                self.labels.push((gutter.intersect(tracks), line.track));
                if self.draw_label(&track_painter, frame, line, track, line_rect, gutter_click) {
                    toggled = Some(line.track);
                }
            }
            // A collapsed track draws all its rows on its one line.
            let rows = match line.kind {
                LineKind::Header => 0..0,
                LineKind::Events { row } => row..row + 1,
                LineKind::Collapsed => 0..track.rows.len(),
            };
            let paint = RowPaint {
                painter: &event_painter,
                visuals: frame.visuals,
                timeline: frame.timeline,
                marks: frame.marks,
                area,
            };
            for row in rows {
                self.draw_row(&paint, line.track, row, line_rect, bucket_px);
            }
        }
        toggled
    }

    /// Draws a track's label line: the separator, the expand/collapse arrow of a track with
    /// something to fold ([`super::rows::expandable`]), and its name in the gutter. True when `gutter_click` hit the line of
    /// an expandable track.
    fn draw_label(
        &mut self,
        track_painter: &egui::Painter,
        frame: &FramePaint<'_>,
        line: &Line,
        track: &Track,
        line_rect: Rect,
        gutter_click: Option<Pos2>,
    ) -> bool {
        let visuals = frame.visuals;
        let gutter = frame.areas.gutter;
        track_painter.line_segment(
            [line_rect.left_top(), line_rect.right_top()],
            Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color),
        );
        let x = frame.areas.whole.left() + 4.0 + line.level as f32 * INDENT;
        let expandable = super::rows::expandable(track);
        let gutter_painter = track_painter.with_clip_rect(gutter);
        if expandable {
            let c = Pos2::new(x + 4.0, line_rect.center().y);
            let points = if self.tree.collapsed.contains(&line.track) {
                vec![
                    c + Vec2::new(-3.0, -4.0),
                    c + Vec2::new(3.0, 0.0),
                    c + Vec2::new(-3.0, 4.0),
                ]
            } else {
                vec![
                    c + Vec2::new(-4.0, -3.0),
                    c + Vec2::new(4.0, -3.0),
                    c + Vec2::new(0.0, 3.0),
                ]
            };
            gutter_painter.add(egui::Shape::convex_polygon(
                points,
                visuals.text_color(),
                Stroke::NONE,
            ));
        }
        gutter_painter.text(
            Pos2::new(x + 12.0, line_rect.center().y),
            Align2::LEFT_CENTER,
            &track.name,
            FontId::proportional(12.5),
            visuals.strong_text_color(),
        );
        self.shapes_drawn += 2;
        expandable
            && gutter_click.is_some_and(|p| {
                p.y >= line_rect.top() && p.y < line_rect.bottom() && gutter.contains(p)
            })
    }

    /// Draws row `row` of `track` into `line_rect`.
    fn draw_row(
        &mut self,
        paint: &RowPaint<'_>,
        track: TrackId,
        row: usize,
        line_rect: Rect,
        bucket_px: f32,
    ) {
        let RowPaint { timeline, area, .. } = *paint;
        let view = self.viewport;
        let t0 = view.start.floor() as i64;
        let t1 = view.end().ceil() as i64;
        if timeline
            .track(track)
            .is_some_and(|t| t.layout == Layout::Counter)
        {
            self.draw_counter(paint, track, row, line_rect);
            return;
        }
        let items = self.row_items.take(
            timeline,
            (track, row),
            (t0, t1),
            view.ns_per_px * f64::from(bucket_px),
        );
        let y0 = line_rect.top() + 1.0;
        let y1 = line_rect.bottom() - 1.0;
        let mut pending: Option<(Rect, VisibleItem)> = None;
        for item in &items {
            let x0 = area.left() + view.x_of(item.start as f64);
            let x1 = (area.left() + view.x_of(item.end as f64)).max(x0 + 1.0);
            let r = Rect::from_min_max(
                Pos2::new(x0.max(area.left() - 2.0), y0),
                Pos2::new(x1.min(area.right() + 2.0), y1),
            );
            // Touching bars that stand for merged or sub-pixel events are drawn as one (their
            // counts add up): a dense run is one shape, however long. Events wide enough to be
            // seen on their own stay separate.
            let fine = |r: &Rect, i: &VisibleItem| i.count > 1 || r.width() < 2.0;
            if let Some((pr, pi)) = &mut pending
                && fine(&r, item)
                && fine(pr, pi)
                && r.left() <= pr.right() + 1.0
            {
                pr.max.x = pr.max.x.max(r.right());
                pi.count += item.count;
                pi.end = pi.end.max(item.end);
                continue;
            }
            if let Some((pr, pi)) = pending.take() {
                self.draw_bar(paint, pr, pi);
            }
            pending = Some((r, *item));
        }
        if let Some((pr, pi)) = pending {
            self.draw_bar(paint, pr, pi);
        }
        self.row_items.keep(track, row, items);
    }

    /// Draws one bar (an event, or merged events) and records it for hit testing. A device
    /// command's waiting time (queued → start) is drawn before it, thinner and lighter.
    fn draw_bar(&mut self, paint: &RowPaint<'_>, rect: Rect, item: VisibleItem) {
        let RowPaint {
            painter,
            visuals,
            timeline,
            ..
        } = *paint;
        let Some(event) = timeline.event(item.first) else {
            return;
        };
        self.events_drawn += u64::from(item.count);
        let single = item.count == 1;
        let fill = if single {
            let argb = timeline.attrs(item.first).and_then(|a| a.color);
            colors::event_fill(visuals, event.kind, event.name, argb)
        } else {
            colors::merged_fill(visuals, event.kind)
        };
        if single && let Some(queued) = timeline.queued_ns(item.first) {
            self.draw_wait(paint, rect, queued, fill);
        }
        painter.rect_filled(rect, 0.0, fill);
        self.shapes_drawn += 1;
        self.draw_bar_marks(paint, rect, item, &event);
        if rect.width() >= LABEL_MIN_WIDTH {
            // A sketched preview's spans stand for events being read: no count of them.
            let text = if single || timeline.is_sketch(item.first) {
                timeline.name(event.name).to_string()
            } else {
                format!("{} events", item.count)
            };
            painter
                .with_clip_rect(rect.shrink(2.0).intersect(painter.clip_rect()))
                .text(
                    Pos2::new(
                        rect.left().max(painter.clip_rect().left()) + 3.0,
                        rect.center().y,
                    ),
                    Align2::LEFT_CENTER,
                    text,
                    FontId::proportional(11.0),
                    colors::text_on(fill),
                );
            self.shapes_drawn += 1;
        }
        self.hits.push(Hit {
            rect,
            item,
            counter: None,
        });
    }

    /// Draws a device command's waiting time, from `queued` to the bar's start, thinner and
    /// lighter than the bar (nothing when it was not queued before the bar).
    fn draw_wait(&mut self, paint: &RowPaint<'_>, rect: Rect, queued: i64, fill: Color32) {
        let RowPaint { painter, area, .. } = *paint;
        let xq = area.left() + self.viewport.x_of(queued as f64);
        if xq < rect.left() - 0.5 {
            let h = rect.height() * 0.25;
            let wait = Rect::from_min_max(
                Pos2::new(
                    xq.max(painter.clip_rect().left() - 2.0),
                    rect.center().y - h,
                ),
                Pos2::new(rect.left(), rect.center().y + h),
            );
            painter.rect_filled(wait, 0.0, fill.gamma_multiply(0.35));
            self.shapes_drawn += 1;
        }
    }

    /// Draws what the marks say of a bar: a highlight border (search hits, the CPU profile's
    /// selection), a selection border (the selected event or a flow partner) and the corner
    /// badge of an event linked with an Nsight Compute result.
    fn draw_bar_marks(
        &mut self,
        paint: &RowPaint<'_>,
        rect: Rect,
        item: VisibleItem,
        event: &Event,
    ) {
        let RowPaint {
            painter,
            visuals,
            marks,
            ..
        } = *paint;
        let highlighted = marks
            .names
            .get(event.name.0 as usize)
            .copied()
            .unwrap_or(false)
            || (event.kind == EventKind::CpuSample
                && marks
                    .stacks
                    .get(event.correlation as usize)
                    .copied()
                    .unwrap_or(false));
        if highlighted {
            painter.rect_stroke(
                rect,
                0.0,
                Stroke::new(2.0, colors::highlight(visuals)),
                StrokeKind::Inside,
            );
            self.shapes_drawn += 1;
        }
        let selected = marks
            .selected
            .is_some_and(|s| s.0 >= item.first.0 && s.0 < item.first.0 + item.count);
        let partner = marks
            .partners
            .iter()
            .any(|s| s.0 >= item.first.0 && s.0 < item.first.0 + item.count);
        if selected || partner {
            painter.rect_stroke(
                rect.expand(1.0),
                1.0,
                Stroke::new(2.0, colors::selection(visuals)),
                StrokeKind::Outside,
            );
            self.shapes_drawn += 1;
        }
        let first_linked = marks.linked.partition_point(|e| e.0 < item.first.0);
        if marks
            .linked
            .get(first_linked)
            .is_some_and(|e| e.0 < item.first.0 + item.count)
        {
            // A corner badge: the kernel (or one of the merged ones) was profiled.
            let size = rect.height().min(8.0);
            let corner = rect.right_top();
            painter.add(egui::Shape::convex_polygon(
                vec![
                    corner,
                    corner + egui::vec2(0.0, size),
                    corner - egui::vec2(size.min(rect.width()), 0.0),
                ],
                colors::linked(visuals),
                Stroke::NONE,
            ));
            self.shapes_drawn += 1;
            self.linked_drawn += 1;
        }
    }

    /// Where `event` was drawn on screen during the last frame (its bar, before clipping), when
    /// its row is laid out.
    pub fn event_screen_rect(&mut self, timeline: &Timeline, event: EventId) -> Option<Rect> {
        let e = timeline.event(event)?;
        let (track, row) = timeline.locate(event)?;
        let line = rows::line_of(self.lines(timeline), timeline, track, row)?;
        let top = self.events_rect.top() + RULER_HEIGHT + line.y - self.scroll_y;
        let left = self.events_rect.left();
        let x0 = left + self.viewport.x_of(e.start as f64);
        let x1 = (left + self.viewport.x_of(e.end as f64)).max(x0 + 1.0);
        Some(Rect::from_min_max(
            Pos2::new(x0, top + 1.0),
            Pos2::new(x1, top + line.height - 1.0),
        ))
    }
}

/// The hover text of a file's group: its label, its file, and where its rank came from.
fn part_hover(timeline: &Timeline, index: usize) -> String {
    let Some(part) = timeline.parts().get(index) else {
        return String::new();
    };
    let rank = timeline
        .mpi_rank(Some(index))
        .map(|(r, from)| format!("\nMPI rank {r} (from {})", from.describe()))
        .unwrap_or_default();
    format!("{}\n{}{rank}", part.label, part.source.display())
}
