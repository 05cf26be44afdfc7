//! The horizontal view of a timeline: which time is at the left edge and how many nanoseconds a
//! pixel spans; zooming about a point, panning, fitting a range; the ruler's adaptive ticks and
//! how times are written.

use crate::widgets::plot::nice_step;

/// Narrowest zoom: one pixel is this many nanoseconds at least.
const MIN_NS_PER_PX: f64 = 0.01;

/// The time axis of the canvas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Time at the canvas's left edge (ns from the session start).
    pub start: f64,
    /// Nanoseconds per pixel.
    pub ns_per_px: f64,
    /// Canvas width in pixels (set each frame).
    pub width: f32,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            start: 0.0,
            ns_per_px: 1.0,
            width: 1.0,
        }
    }
}

impl Viewport {
    /// Time at the right edge.
    pub fn end(&self) -> f64 {
        self.start + self.ns_per_px * f64::from(self.width)
    }

    /// Pixel offset (from the canvas's left edge) of time `t`.
    pub fn x_of(&self, t: f64) -> f32 {
        ((t - self.start) / self.ns_per_px) as f32
    }

    /// Time at pixel offset `x`.
    pub fn t_of(&self, x: f32) -> f64 {
        self.start + f64::from(x) * self.ns_per_px
    }

    /// Shows `[t0, t1]` across the whole width (with a small margin).
    pub fn fit(&mut self, t0: f64, t1: f64) {
        let span = (t1 - t0).max(1.0);
        let margin = span * 0.02;
        self.ns_per_px =
            ((span + 2.0 * margin) / f64::from(self.width.max(1.0))).max(MIN_NS_PER_PX);
        self.start = t0 - margin;
    }

    /// Zooms by `factor` (> 1 zooms in) keeping the time under pixel `anchor_x` in place.
    pub fn zoom_at(&mut self, factor: f64, anchor_x: f32) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        let anchor = self.t_of(anchor_x);
        self.ns_per_px = (self.ns_per_px / factor).max(MIN_NS_PER_PX);
        self.start = anchor - f64::from(anchor_x) * self.ns_per_px;
    }

    /// Moves the view by `dx` pixels (positive: later times come into view).
    pub fn pan_px(&mut self, dx: f32) {
        self.start += f64::from(dx) * self.ns_per_px;
    }

    /// Keeps the view within `range` extended by half a screen, and no wider than twice it.
    pub fn clamp_to(&mut self, range: (i64, i64)) {
        let (t0, t1) = (range.0 as f64, range.1 as f64);
        let span = (t1 - t0).max(1.0);
        let max_ns_per_px = 2.0 * span / f64::from(self.width.max(1.0));
        self.ns_per_px = self.ns_per_px.min(max_ns_per_px).max(MIN_NS_PER_PX);
        let visible = self.end() - self.start;
        let lo = t0 - visible / 2.0;
        let hi = t1 - visible / 2.0;
        self.start = self.start.clamp(lo.min(hi), hi.max(lo));
    }

    /// Centres the view on `[t0, t1]`, zooming out only when the range does not fit.
    pub fn reveal(&mut self, t0: f64, t1: f64) {
        let visible = self.end() - self.start;
        if t1 - t0 > visible * 0.9 {
            self.fit(t0, t1);
        } else {
            self.start = (t0 + t1) / 2.0 - visible / 2.0;
        }
    }
}

/// Ticks of the ruler: `(time, label)` for every major tick in view, `minor` the step between
/// minor ticks. Steps follow 1-2-5 so that major ticks are at least `min_px` apart; labels
/// carry the unit that suits the step, relative to `origin`.
pub fn ruler_ticks(view: &Viewport, origin: f64, min_px: f32) -> (Vec<(f64, String)>, f64) {
    let min_ns = view.ns_per_px * f64::from(min_px.max(1.0));
    let step = nice_step(min_ns.max(1e-3));
    let first = ((view.start - origin) / step).floor() * step + origin;
    let mut ticks = Vec::new();
    let mut t = first;
    let end = view.end();
    while t <= end && ticks.len() < 1000 {
        ticks.push((t, format_offset(t - origin, step)));
        t += step;
    }
    (ticks, step / 5.0)
}

/// A time offset written with the unit that suits `step` (ns, µs, ms, s; a step of a tenth of a
/// unit or more is written in that unit: "2.5 ms" rather than "2500 µs") and just enough
/// decimals to tell neighbouring ticks apart.
pub fn format_offset(ns: f64, step: f64) -> String {
    let (scale, unit) = unit_for(step * 10.0);
    let decimals = decimals_for(step / scale);
    format!("{:.*} {unit}", decimals, ns / scale)
}

/// A duration written with the unit that suits its own size ("1.234 ms").
pub fn format_duration(ns: f64) -> String {
    sightline_model::format::DurationFormat::TIMELINE.format(ns)
}

/// `(ns per unit, unit)` for a magnitude.
fn unit_for(ns: f64) -> (f64, &'static str) {
    if ns >= 1e9 {
        (1e9, "s")
    } else if ns >= 1e6 {
        (1e6, "ms")
    } else if ns >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// Decimals needed to write multiples of `step` (in the chosen unit) exactly.
fn decimals_for(step: f64) -> usize {
    let mut decimals = 0;
    let mut s = step;
    while decimals < 6 && (s - s.round()).abs() > 1e-6 * s.max(1e-9) {
        s *= 10.0;
        decimals += 1;
    }
    decimals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_keeps_the_anchor_in_place() {
        let mut v = Viewport {
            start: 1000.0,
            ns_per_px: 10.0,
            width: 500.0,
        };
        let before = v.t_of(200.0);
        v.zoom_at(2.0, 200.0);
        assert!((v.t_of(200.0) - before).abs() < 1e-6);
        assert!((v.ns_per_px - 5.0).abs() < 1e-9);
        v.pan_px(10.0);
        assert!((v.t_of(200.0) - before - 50.0).abs() < 1e-6);
    }

    #[test]
    fn ticks_use_1_2_5_steps_and_units() {
        let v = Viewport {
            start: 0.0,
            ns_per_px: 1000.0,
            width: 1000.0,
        };
        let (ticks, minor) = ruler_ticks(&v, 0.0, 80.0);
        assert_eq!(ticks[1].0, 100_000.0);
        assert_eq!(ticks[1].1, "0.1 ms");
        assert_eq!(minor, 20_000.0);
        assert_eq!(format_offset(2_500_000.0, 500_000.0), "2.5 ms");
        assert_eq!(format_offset(8_920_000_000.0, 20_000_000.0), "8920 ms");
        assert_eq!(format_offset(8_500_000_000.0, 100_000_000.0), "8.5 s");
        assert_eq!(format_offset(300.0, 50.0), "300 ns");
        assert_eq!(format_duration(1_234_567.0), "1.235 ms");
        assert_eq!(format_duration(12.0), "12 ns");
    }
}
