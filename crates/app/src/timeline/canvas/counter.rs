//! Counter rows (GPU metrics, memory usage) drawn as area graphs with the smallest and largest
//! value of every pixel.

use eframe::egui::{self, Pos2, Rect, Stroke};

use super::{Canvas, Hit, RowPaint, colors};
use sightline_model::timeline::{CounterSample, EventId, EventKind, StrId, TrackId, VisibleItem};

impl Canvas {
    /// Draws a counter row as an area graph scaled from 0 (or its smallest value, when
    /// below) to its largest value (100 at least for a percentage): per pixel a vertical
    /// stroke from the smallest to the largest value seen there and the area under the level
    /// that held until the next pixel, joined by the step line of the levels. Hovering
    /// anywhere over a level shows its value.
    pub(super) fn draw_counter(
        &mut self,
        paint: &RowPaint<'_>,
        track: TrackId,
        row: usize,
        line: Rect,
    ) {
        let RowPaint {
            painter,
            visuals,
            timeline,
            area,
            ..
        } = *paint;
        let view = self.viewport;
        let (t0, t1) = (view.start.floor() as i64, view.end().ceil() as i64);
        let Some((lo, hi)) = timeline.counter_range(track) else {
            return;
        };
        let percent = timeline
            .counter_series(track)
            .is_some_and(|s| s.unit.as_deref() == Some("%"));
        let (lo, hi) = (lo.min(0.0), if percent { hi.max(100.0) } else { hi });
        let mut buckets = Vec::new();
        timeline.counter_buckets(track, row, t0, t1, view.ns_per_px, &mut buckets);
        let (top, bottom) = (line.top() + 2.0, line.bottom() - 1.0);
        let span = if hi > lo { hi - lo } else { 1.0 };
        let y = |v: f64| bottom - ((v - lo) / span) as f32 * (bottom - top);
        let x_of = |t: i64| {
            (area.left() + view.x_of(t as f64)).clamp(area.left() - 2.0, area.right() + 2.0)
        };
        let color = colors::event_fill(visuals, EventKind::Marker, StrId(track.0), None);
        let fill = color.gamma_multiply(0.35);
        let mut points: Vec<Pos2> = Vec::with_capacity(buckets.len() * 2 + 1);
        for (i, b) in buckets.iter().enumerate() {
            let x = x_of(b.start);
            let next = buckets.get(i + 1).map_or(area.right(), |n| x_of(n.start));
            if let Some(p) = points.last().copied() {
                points.push(Pos2::new(x, p.y));
            }
            painter.rect_filled(
                Rect::from_min_max(Pos2::new(x, y(b.last)), Pos2::new(next.max(x), bottom)),
                0.0,
                fill,
            );
            if b.max > b.min {
                painter.line_segment(
                    [Pos2::new(x, y(b.min)), Pos2::new(x, y(b.max))],
                    Stroke::new(1.0, color),
                );
                self.shapes_drawn += 1;
            }
            points.push(Pos2::new(x, y(b.first)));
            points.push(Pos2::new(x, y(b.last)));
            let (first, end) = match b.sample {
                CounterSample::Event(e) => (e, b.start),
                CounterSample::Series(_) => (EventId(u32::MAX), b.start),
            };
            self.hits.push(Hit {
                rect: Rect::from_min_max(
                    Pos2::new(x, line.top()),
                    Pos2::new(next.max(x + 1.0), line.bottom()),
                ),
                item: VisibleItem {
                    first,
                    count: 1,
                    start: b.start,
                    end,
                },
                counter: Some((track, *b)),
            });
        }
        if let Some(p) = points.last().copied() {
            points.push(Pos2::new(area.right(), p.y));
        }
        self.events_drawn += buckets.len() as u64;
        self.shapes_drawn += buckets.len();
        if points.len() >= 2 {
            painter.add(egui::Shape::line(points, Stroke::new(1.5, color)));
            self.shapes_drawn += 1;
        }
    }
}
