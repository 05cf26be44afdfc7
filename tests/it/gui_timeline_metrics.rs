//! GPU metrics in the timeline pane (egui_kittest): a generated export with the 22 metrics of
//! an A100 shows each metric as a named counter track under "GPU Metrics" and its group, drawn
//! as a graph; hovering a graph shows the metric's value, and a selected range lists each
//! metric's average, smallest and largest value.

use std::path::PathBuf;

use crate::common;
use eframe::egui::{self, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::timeline::TimelineDoc;
use sightline_test_support::nsys_metrics::{A100_METRICS, MetricsOptions, write_metrics};

fn doc<'a>(h: &'a Harness<'static, SightlineApp>) -> &'a TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("a timeline tab")
}

fn opened() -> (tempfile::TempDir, Harness<'static, SightlineApp>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path: PathBuf = dir.path().join("metrics.sqlite");
    write_metrics(
        &path,
        &MetricsOptions {
            times: 2000,
            ..MetricsOptions::default()
        },
    )
    .expect("write the export");
    let mut h = common::app::harness_sized(vec![path], egui::vec2(1400.0, 2400.0));
    common::app::step_until(
        &mut h,
        "the timeline to load",
        std::time::Duration::from_secs(30),
        |h| {
            h.state()
                .document::<TimelineDoc>(0)
                .is_some_and(|d| d.timeline().is_some() && d.stats().reports.is_some())
        },
    );
    h.run();
    (dir, h)
}

#[test]
fn metric_tracks_render_with_their_names_values_and_range_statistics() {
    let (_dir, mut h) = opened();
    for name in [
        "GPU Metrics",
        "GPU Activity",
        "Memory Bandwidth",
        "PCIe",
        "NVLink",
    ] {
        h.get_by_label(name);
    }
    // The first metrics of the list are on screen, each with its name.
    for name in [
        "SM Active",
        "SM Issue",
        "Tensor Active",
        "GPC Clock Frequency",
    ] {
        h.get_by_label(name);
    }
    let tl = doc(&h).timeline().expect("loaded").clone();
    assert_eq!(tl.all_counter_series().len(), A100_METRICS.len());
    assert!(doc(&h).canvas().shapes_drawn > 0);
    // Hovering a graph shows the metric's value.
    let label = h.get_by_label("SM Active").rect();
    let area = doc(&h).canvas().events_rect;
    let y = label.center().y;
    h.hover_at(Pos2::new(area.center().x, y));
    h.run();
    assert!(
        h.query_by_label_contains("value ").is_some(),
        "no counter tooltip"
    );
    // A selected range lists every metric with its average, min and max.
    let from = Pos2::new(area.left() + area.width() * 0.2, y);
    let to = Pos2::new(area.left() + area.width() * 0.7, y);
    h.event(egui::Event::ModifiersChanged(Modifiers::SHIFT));
    h.hover_at(from);
    h.step();
    h.event(egui::Event::PointerButton {
        pos: from,
        button: PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::SHIFT,
    });
    h.step();
    for k in 1..=5 {
        h.hover_at(from + (to - from) * (k as f32 / 5.0));
        h.step();
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::SHIFT,
    });
    h.step();
    h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    h.run();
    let d = doc(&h);
    let (t0, t1) = d.selection().range.expect("a range");
    assert_eq!(d.selection().range_counters.len(), A100_METRICS.len());
    for (track, s) in &d.selection().range_counters {
        assert_eq!(Some(*s), tl.counter_stats(*track, t0, t1));
    }
    h.get_by_label(&format!("Counters ({})", A100_METRICS.len()));
}

#[test]
fn an_export_of_metrics_alone_says_its_samples_not_zero_events() {
    let (_dir, h) = opened();
    let said = format!(
        "0 events, {} samples in {} metric tracks",
        2000 * A100_METRICS.len(),
        A100_METRICS.len()
    );
    assert!(
        h.query_all_by_label_contains(&said).next().is_some(),
        "the header or status does not say \"{said}\""
    );
    let tl = doc(&h).timeline().expect("loaded");
    assert_eq!(tl.contents_text(tl.event_count()), said);
}
