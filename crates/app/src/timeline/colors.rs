//! Colours of the timeline, taken from the theme: a hue per event kind, varied per name so
//! neighbouring kernels can be told apart; NVTX colours from the file when it has them.

use eframe::egui::{Color32, Visuals};

use sightline_model::timeline::{EventKind, StrId};

/// Base hue (degrees) of each kind.
fn hue(kind: EventKind) -> f32 {
    match kind {
        EventKind::Kernel => 205.0,
        EventKind::Memcpy => 35.0,
        EventKind::Memset => 55.0,
        EventKind::Synchronization => 0.0,
        EventKind::GraphLaunch => 265.0,
        EventKind::DeviceCommand => 190.0,
        EventKind::CudaApi | EventKind::HostApi => 140.0,
        EventKind::OsRuntime => 95.0,
        EventKind::Cublas | EventKind::Cudnn => 170.0,
        EventKind::NvtxPushPop | EventKind::NvtxStartEnd | EventKind::NvtxMark => 300.0,
        EventKind::Marker | EventKind::Range => 320.0,
        EventKind::CpuSample => 20.0,
        EventKind::ThreadRunning => 120.0,
    }
}

/// The fill of an event of `kind` named `name` (`argb`: its own colour, when it has one).
pub fn event_fill(visuals: &Visuals, kind: EventKind, name: StrId, argb: Option<u32>) -> Color32 {
    if let Some(c) = argb {
        let [_, r, g, b] = c.to_be_bytes();
        return Color32::from_rgb(r, g, b);
    }
    // A few shades per kind, picked by name, so equal names share a colour.
    let shade = (name.0.wrapping_mul(2_654_435_761) >> 29) as f32; // 0..8
    let h = hue(kind) + (shade - 3.5) * 4.0;
    let (s, v) = if visuals.dark_mode {
        (0.55, 0.62 + shade * 0.025)
    } else {
        (0.45, 0.78 + shade * 0.02)
    };
    hsv(h, s, v.min(1.0))
}

/// The fill of a bar standing for several merged events (no single name: the kind's hue, dimmer).
pub fn merged_fill(visuals: &Visuals, kind: EventKind) -> Color32 {
    let v = if visuals.dark_mode { 0.45 } else { 0.65 };
    hsv(hue(kind), 0.45, v)
}

/// Text drawn on an event of fill `fill`: dark on light fills, light on dark ones.
pub fn text_on(fill: Color32) -> Color32 {
    let [r, g, b, _] = fill.to_array();
    let luma = 0.299 * f32::from(r) + 0.587 * f32::from(g) + 0.114 * f32::from(b);
    if luma > 140.0 {
        Color32::from_gray(20)
    } else {
        Color32::from_gray(235)
    }
}

/// Outline of the selected event and of the flow arrows.
pub fn selection(visuals: &Visuals) -> Color32 {
    visuals.selection.stroke.color
}

/// Outline of search hits and of a summary row's instances.
pub fn highlight(visuals: &Visuals) -> Color32 {
    visuals.warn_fg_color
}

/// The badge of a kernel profiled in an open Nsight Compute report.
pub fn linked(visuals: &Visuals) -> Color32 {
    if visuals.dark_mode {
        Color32::from_rgb(0x76, 0xb9, 0x00)
    } else {
        Color32::from_rgb(0x4a, 0x7a, 0x00)
    }
}

/// Shade over the selected time range.
pub fn range_shade(visuals: &Visuals) -> Color32 {
    visuals.selection.bg_fill.gamma_multiply(0.25)
}

/// An RGB colour from hue (degrees), saturation and value (0..=1).
fn hsv(h: f32, s: f32, v: f32) -> Color32 {
    let h = h.rem_euclid(360.0) / 60.0;
    let c = v * s;
    let x = c * (1.0 - ((h % 2.0) - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let to = |f: f32| ((f + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    Color32::from_rgb(to(r), to(g), to(b))
}
