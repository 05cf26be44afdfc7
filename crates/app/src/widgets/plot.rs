//! What the charts share: round 1-2-5 tick steps and the ticks covering a range, the text of a
//! tick, a plot (egui_plot) that leaves the page's scrolling alone, the marks and labels of a
//! category axis, and the categorical palette of series and groups.

use eframe::egui::Color32;
use egui_plot::{GridInput, GridMark, Plot};

/// The categorical palette: one colour per series or group, cycled (`0xRRGGBB`).
pub const PALETTE: [u32; 8] = [
    0x4c9be8, 0x2fb886, 0xb07ce0, 0xd9b41e, 0xe05a8a, 0x6cc8d8, 0x9ca83a, 0xa0a0a0,
];

/// The colour `0xRRGGBB`.
pub const fn rgb(hex: u32) -> Color32 {
    Color32::from_rgb((hex >> 16) as u8, (hex >> 8) as u8, hex as u8)
}

/// The palette's colour of series or group `index`.
pub fn palette(index: usize) -> Color32 {
    cycle(&PALETTE, index)
}

/// Colour `index` of `colours` (`0xRRGGBB`), cycled; black for an empty list. For charts whose
/// own colours stay (the screenshots show them) rather than [`PALETTE`]'s.
pub fn cycle(colours: &[u32], index: usize) -> Color32 {
    match colours.len() {
        0 => Color32::BLACK,
        n => rgb(colours[index % n]),
    }
}

/// The smallest step of 1, 2 or 5 × 10ⁿ not below `at_least` (1 when `at_least` is not a
/// positive number).
pub fn nice_step(at_least: f64) -> f64 {
    if !(at_least > 0.0 && at_least.is_finite()) {
        return 1.0;
    }
    let magnitude = 10f64.powf(at_least.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|step| *step >= at_least)
        .unwrap_or(10.0 * magnitude)
}

/// A 1-2-5 step giving about `count` ticks over `span` (1 for an empty span).
pub fn step_for(span: f64, count: f64) -> f64 {
    if span <= 0.0 {
        return 1.0;
    }
    nice_step(span / count)
}

/// About `target` round tick values (steps of 1, 2 or 5 × 10^k) covering `min..=max`; the
/// first is ≤ `min`, the last ≥ `max`.
pub fn nice_ticks(min: f64, max: f64, target: usize) -> Vec<f64> {
    let (min, max) = if min.is_finite() && max.is_finite() && min <= max {
        (min, max)
    } else {
        (0.0, 1.0)
    };
    let span = if max > min {
        max - min
    } else {
        min.abs().max(1.0)
    };
    let step = nice_step(span / target.max(1) as f64);
    let first = (min / step).floor();
    let last = (max / step).ceil().max(first + 1.0);
    // Bounded: `last - first` is about `target` by construction.
    (first as i64..=last as i64)
        .take(64)
        .map(|k| k as f64 * step)
        .collect()
}

/// A tick's text: integers without a fraction, others with the digits the step needs, large
/// and small magnitudes in exponent form.
pub fn tick_text(value: f64, step: f64) -> String {
    if value == 0.0 {
        return "0".into();
    }
    let magnitude = value.abs();
    if !(1e-3..1e7).contains(&magnitude) {
        return format!("{value:.1e}");
    }
    let decimals = if step >= 1.0 || step <= 0.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{value:.decimals$}")
}

/// A plot of fixed height that does not take the page's scroll wheel or drags (no zoom, no
/// pan, no crosshair).
pub fn static_plot<'a>(id: &str, height: f32) -> Plot<'a> {
    Plot::new(id)
        .height(height)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        .allow_axis_zoom_drag(false)
        .show_crosshair(false)
}

/// One grid mark per category of a bar chart (categories at 0, 1, …, `count - 1`), for
/// `Plot::{x,y}_grid_spacer`.
pub fn category_marks(input: &GridInput, count: usize) -> Vec<GridMark> {
    let (low, high) = input.bounds;
    (0..count)
        .map(|i| i as f64)
        .filter(|v| *v >= low && *v <= high)
        .map(|value| GridMark {
            value,
            step_size: 1.0,
        })
        .collect()
}

/// The label of the category at `value` (the first label at `count - 1`: categories drawn top
/// to bottom), for `Plot::{x,y}_axis_formatter`; none between categories.
pub fn category_label(labels: &[String], value: f64) -> String {
    let rounded = value.round();
    if (value - rounded).abs() > 1e-6 || rounded < 0.0 || rounded >= labels.len() as f64 {
        return String::new();
    }
    // In range: `rounded` is a whole number in `0..labels.len()`.
    let from_bottom = rounded as usize;
    labels
        .len()
        .checked_sub(from_bottom + 1)
        .and_then(|i| labels.get(i))
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(
            nice_ticks(0.0, 100.0, 5),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        let t = nice_ticks(3.0, 868.8, 5);
        assert_eq!(t.first(), Some(&0.0));
        assert!(t.last().is_some_and(|&l| l >= 868.8));
        assert_eq!(t[1] - t[0], 200.0);
        assert_eq!(nice_ticks(5.0, 5.0, 5).len(), 2);
        assert_eq!(nice_ticks(f64::NAN, 1.0, 5).len(), 6);
        assert_eq!(tick_text(0.25, 0.05), "0.25");
        assert_eq!(tick_text(65536.0, 16384.0), "65536");
        assert_eq!(tick_text(4.0e9, 1e9), "4.0e9");
    }

    #[test]
    fn steps_are_1_2_5() {
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(12_000.0), 20_000.0);
        assert_eq!(nice_step(100.0), 100.0);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(step_for(290_000.0, 6.0), 50_000.0);
        assert_eq!(step_for(0.0, 6.0), 1.0);
        assert_eq!(palette(9), Color32::from_rgb(0x2f, 0xb8, 0x86));
        let labels = ["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(category_label(&labels, 2.0), "a");
        assert_eq!(category_label(&labels, 0.0), "c");
        assert_eq!(category_label(&labels, 0.5), "");
        assert_eq!(category_label(&labels, 3.0), "");
    }
}
