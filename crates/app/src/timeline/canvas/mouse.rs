//! The canvas's mouse: pan, zoom, vertical scroll, Shift+drag for a time range and clicks on
//! the event area (a merged bar zooms into what it stands for).

use eframe::egui::{self, Rect};

use super::{Canvas, CanvasOutput, Drag, Hit};
use sightline_model::timeline::CounterSample;

impl Canvas {
    /// Pan, zoom, scroll, range drag and clicks on the event area.
    pub(super) fn mouse(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        area: Rect,
        out: &mut CanvasOutput,
    ) {
        let shift = ui.input(|i| i.modifiers.shift);
        if response.drag_started() {
            // The drag starts where the button went down, not where it passed the threshold.
            let origin = ui
                .input(|i| i.pointer.press_origin())
                .or(response.interact_pointer_pos());
            self.drag = Some(match origin {
                Some(p) if shift => Drag::Range {
                    from: self.viewport.t_of(p.x - area.left()),
                },
                _ => Drag::Pan,
            });
        }
        if response.dragged() {
            let delta = response.drag_delta();
            match self.drag {
                Some(Drag::Pan) => {
                    self.viewport.pan_px(-delta.x);
                    self.scroll_y -= delta.y;
                }
                Some(Drag::Range { from }) => {
                    if let Some(p) = response.interact_pointer_pos() {
                        let to = self.viewport.t_of(p.x - area.left());
                        out.range = Some((from.min(to) as i64, from.max(to) as i64));
                    }
                }
                None => {}
            }
        }
        if response.drag_stopped() {
            if let (Some(Drag::Range { from }), Some(p)) =
                (self.drag, response.interact_pointer_pos())
            {
                let to = self.viewport.t_of(p.x - area.left());
                out.range = Some((from.min(to) as i64, from.max(to) as i64));
                out.range_done = true;
            }
            self.drag = None;
        }
        if response.hovered() {
            let (zoom, scroll, pointer) =
                ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta, i.pointer.hover_pos()));
            let anchor = pointer.map_or(area.width() / 2.0, |p| p.x - area.left());
            if zoom != 1.0 {
                self.viewport.zoom_at(f64::from(zoom), anchor);
            } else {
                self.scroll_y -= scroll.y;
                self.viewport.pan_px(-scroll.x);
            }
        }
        if response.clicked() {
            let pos = response.interact_pointer_pos();
            match pos.and_then(|p| {
                self.hits
                    .iter()
                    .rev()
                    .find(|h| h.rect.expand(0.5).contains(p))
            }) {
                // A counter's level: selects its sample when that is an event.
                Some(Hit {
                    counter: Some((_, b)),
                    ..
                }) => match b.sample {
                    CounterSample::Event(e) => out.clicked = Some(e),
                    CounterSample::Series(_) => out.clicked_empty = true,
                },
                Some(hit) if hit.item.count > 1 => {
                    // A merged bar: zoom into what it stands for.
                    self.viewport
                        .fit(hit.item.start as f64, hit.item.end as f64);
                }
                Some(hit) => out.clicked = Some(hit.item.first),
                None => out.clicked_empty = true,
            }
        }
    }
}
