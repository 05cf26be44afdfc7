//! The timeline pane driven headless (egui_kittest): opening a generated Nsight Systems export
//! (and a broken one), zooming and panning with the keys, selecting with the mouse, following a
//! flow, searching, a range's statistics, and a summary-table row click. The export is written
//! by the project's own generator, small enough to keep the test fast.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;
use eframe::egui::{self, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::document::Document;
use sightline::app::timeline::TimelineDoc;
use sightline::app::timeline::canvas::SHAPE_BUDGET;
use sightline::timeline::{EventId, EventKind, Timeline};
use sightline_test_support::nsys::{SynthOptions, write_export};

/// Writes a small nsys-shaped export into `dir`.
fn small_export(dir: &Path) -> PathBuf {
    let path = dir.join("small.sqlite");
    write_export(
        &path,
        &SynthOptions {
            events: 3000,
            threads: 2,
            streams: 2,
            seed: 7,
        },
    )
    .expect("write the export");
    path
}

fn doc<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("a timeline tab")
}

fn doc_mut<'h>(h: &'h mut Harness<'static, SightlineApp>) -> &'h mut TimelineDoc {
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("a timeline tab")
}

fn timeline(h: &Harness<'static, SightlineApp>) -> std::sync::Arc<Timeline> {
    doc(h).timeline().expect("loaded").clone()
}

/// Opens a fresh small export and waits until the timeline and its summary tables are ready.
fn opened() -> (tempfile::TempDir, Harness<'static, SightlineApp>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = small_export(dir.path());
    (dir, opened_file(path))
}

/// Opens `path` and waits until the timeline and its summary tables are ready.
fn opened_file(path: PathBuf) -> Harness<'static, SightlineApp> {
    common::app::opened_timeline(vec![path])
}

/// The middle of the event area.
fn canvas_centre(h: &Harness<'static, SightlineApp>) -> Pos2 {
    doc(h).canvas().events_rect.center()
}

use common::app::click_at;

/// A kernel that has its launching call as a flow.
fn kernel_with_flow(tl: &Timeline) -> (EventId, EventId) {
    tl.events()
        .filter(|e| e.kind == EventKind::Kernel)
        .find_map(|e| {
            tl.flow_partners(e.id)
                .into_iter()
                .find(|p| tl.event(*p).is_some_and(|c| c.kind == EventKind::CudaApi))
                .map(|call| (e.id, call))
        })
        .expect("a kernel with its launching call")
}

/// Zooms onto `event` so that it spans most of the canvas, with its row in view.
fn zoom_onto(h: &mut Harness<'static, SightlineApp>, event: EventId) {
    let tl = timeline(h);
    let e = tl.event(event).expect("event");
    let d = doc_mut(h);
    d.canvas_mut().reveal(&tl, event);
    d.canvas_mut().viewport.fit(e.start as f64, e.end as f64);
    h.run();
}

#[test]
fn opens_an_export_with_tracks_summary_and_bounded_shapes() {
    let (dir, mut h) = opened();
    let tl = timeline(&h);
    let direct = sightline::timeline::nsys::load(&dir.path().join("small.sqlite")).expect("load");
    assert_eq!(tl.event_count(), direct.event_count());
    assert!(tl.event_count() > 2000, "{}", tl.event_count());
    // The tab, the status and the summary tables.
    h.get_by_label("small.sqlite");
    let status = h.state().status().expect("status");
    assert!(status.0.starts_with("Opened ") && !status.1, "{status:?}");
    let reports: Vec<String> = doc(&h)
        .stats()
        .reports
        .as_ref()
        .expect("reports")
        .iter()
        .map(|(n, _)| n.clone())
        .collect();
    assert!(
        reports.iter().any(|r| r == "cuda_gpu_kern_sum"),
        "{reports:?}"
    );
    h.get_by_label("cuda_gpu_kern_sum");
    // Zoomed out: everything drawn, within the shape budget.
    let d = doc(&h);
    assert!(d.canvas().shapes_drawn > 10 && d.canvas().shapes_drawn <= SHAPE_BUDGET);
    assert!(d.canvas().events_drawn > 0);
    // A `.sqlite` that is not an export: the error names the file, in the tab and the status.
    let broken = dir.path().join("broken.sqlite");
    std::fs::write(&broken, b"this is not a database at all").expect("write");
    let ctx = h.ctx.clone();
    h.state_mut().open(&broken, &ctx);
    common::app::step_until(
        &mut h,
        "the broken file's error",
        Duration::from_secs(20),
        |h| {
            h.state()
                .document::<TimelineDoc>(1)
                .is_some_and(|d| d.error().is_some())
        },
    );
    let error = h
        .state()
        .document::<TimelineDoc>(1)
        .and_then(|d| d.error().map(str::to_owned))
        .expect("error");
    assert!(error.contains("broken.sqlite"), "{error}");
    assert_eq!(
        h.query_all_by_label(&error).count(),
        2,
        "tab and status bar"
    );
}

#[test]
fn keys_zoom_at_the_pointer_and_pan() {
    let (_dir, mut h) = opened();
    let centre = canvas_centre(&h);
    let x = centre.x - doc(&h).canvas().events_rect.left();
    h.hover_at(centre);
    h.run();
    let before = doc(&h).canvas().viewport;
    h.key_press(egui::Key::W);
    h.run();
    let zoomed = doc(&h).canvas().viewport;
    assert!(zoomed.ns_per_px < before.ns_per_px * 0.9, "W zooms in");
    let drift = (zoomed.t_of(x) - before.t_of(x)).abs();
    assert!(
        drift <= before.ns_per_px,
        "the time under the pointer stays: {drift}"
    );
    h.key_press(egui::Key::W);
    h.run();
    h.key_press(egui::Key::S);
    h.run();
    let back = doc(&h).canvas().viewport;
    assert!((back.ns_per_px - zoomed.ns_per_px).abs() < zoomed.ns_per_px * 1e-6);
    h.key_press(egui::Key::D);
    h.run();
    let panned = doc(&h).canvas().viewport;
    assert!(panned.start > back.start, "D pans towards later times");
    h.key_press(egui::Key::A);
    h.run();
    assert!((doc(&h).canvas().viewport.start - back.start).abs() < back.ns_per_px);
    // `?` lists the keys.
    h.key_press(egui::Key::Questionmark);
    h.run();
    assert!(doc(&h).show_keys());
    h.get_by_label("Timeline keys");
    h.get_by_label("Zoom in / out at the pointer");
}

#[test]
fn click_selects_and_a_flow_leads_to_the_launching_call() {
    let (_dir, mut h) = opened();
    let tl = timeline(&h);
    let (kernel, call) = kernel_with_flow(&tl);
    zoom_onto(&mut h, kernel);
    let rect = doc_mut(&mut h)
        .canvas_mut()
        .event_screen_rect(&tl, kernel)
        .expect("kernel on screen");
    click_at(&mut h, rect.center());
    assert_eq!(
        doc(&h).selection().event,
        Some(kernel),
        "the click selects the kernel"
    );
    assert!(doc(&h).selection().partners.contains(&call));
    h.get_by_label("Selected event");
    h.get_by_label("Launched by");
    // "Go to" the launching call: selected and in view.
    h.get_by_label("Go to").click();
    h.run();
    assert_eq!(doc(&h).selection().event, Some(call));
    let c = tl.event(call).expect("call");
    let view = doc(&h).canvas().viewport;
    assert!(view.start <= c.start as f64 && (c.end as f64) <= view.end());
    h.get_by_label("GPU work it launched");
    // Clicking empty space clears the selection.
    let empty = doc(&h).canvas().events_rect.left_bottom() + egui::vec2(5.0, -5.0);
    click_at(&mut h, empty);
    assert_eq!(doc(&h).selection().event, None);
}

#[test]
fn ctrl_f_searches_names_and_steps_through_hits() {
    let (_dir, mut h) = opened();
    let tl = timeline(&h);
    let kernel = tl
        .events()
        .find(|e| e.kind == EventKind::Kernel)
        .expect("a kernel");
    let name = tl.name(kernel.name).to_string();
    let expected = tl
        .events()
        .filter(|e| {
            tl.name(e.name)
                .to_ascii_lowercase()
                .contains(&name.to_ascii_lowercase())
        })
        .count();
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::F);
    h.run();
    let focused: Vec<_> = h
        .query_all_by_role(egui::accesskit::Role::TextInput)
        .filter(|n| n.is_focused())
        .collect();
    assert_eq!(focused.len(), 1, "Ctrl+F focuses the search box");
    let view = doc(&h).canvas().viewport;
    focused[0].type_text(&name);
    h.run();
    assert_eq!(doc(&h).search().hits.len(), expected);
    h.get_by_label(&format!("{expected} match(es)"));
    // Typing does not zoom or pan (W, S, A, D are letters of many names).
    h.key_press(egui::Key::W);
    h.key_press(egui::Key::D);
    h.run();
    assert_eq!(doc(&h).canvas().viewport, view);
    h.key_press(egui::Key::Enter);
    h.run();
    let first = doc(&h).search().hits[0];
    assert_eq!(doc(&h).selection().event, Some(first));
    h.get_by_label(&format!("1 of {expected} match(es)"));
    h.get_by_label("Next").click();
    h.run();
    assert_eq!(doc(&h).selection().event, Some(doc(&h).search().hits[1]));
    h.get_by_label("Previous").click();
    h.run();
    assert_eq!(doc(&h).selection().event, Some(first));
    let hits = &doc(&h).search().hits;
    let starts: Vec<i64> = hits
        .iter()
        .map(|&e| tl.event(e).expect("hit").start)
        .collect();
    assert!(
        starts.windows(2).all(|w| w[0] <= w[1]),
        "hits in time order"
    );
}

#[test]
fn shift_drag_selects_a_range_with_per_name_statistics() {
    let (_dir, mut h) = opened();
    let area = doc(&h).canvas().events_rect;
    let from = Pos2::new(area.left() + area.width() * 0.25, area.center().y);
    let to = Pos2::new(area.left() + area.width() * 0.6, area.center().y);
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
    // The view the drag starts in (the panels may resize while it goes on: an untouched view
    // is fitted again).
    let mut view_at_start = None;
    for k in 1..=5 {
        h.hover_at(from + (to - from) * (k as f32 / 5.0));
        h.step();
        view_at_start = view_at_start.or(Some(doc(&h).canvas().viewport));
    }
    let view_at_end = doc(&h).canvas().viewport;
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
    let view = view_at_start.expect("dragged");
    let expect0 = view.t_of(from.x - area.left());
    let expect1 = view_at_end.t_of(to.x - area.left());
    assert!(
        (t0 as f64 - expect0).abs() <= 2.0 * view.ns_per_px,
        "{t0} vs {expect0}"
    );
    assert!(
        (t1 as f64 - expect1).abs() <= 2.0 * view.ns_per_px,
        "{t1} vs {expect1}"
    );
    // Per name: count of overlapping events and their clipped total, checked independently.
    let tl = timeline(&h);
    let stats = &d.selection().range_stats;
    assert!(!stats.is_empty());
    for s in stats.iter().take(5) {
        let (mut count, mut total) = (0u64, 0i64);
        for e in tl.events().filter(|e| e.name == s.name) {
            if e.end >= t0 && e.start <= t1 {
                count += 1;
                total += (e.end.min(t1) - e.start.max(t0)).max(0);
            }
        }
        assert_eq!((s.count, s.total_ns), (count, total), "{}", tl.name(s.name));
    }
    h.get_by_label("Selected range");
    // F zooms to the range.
    h.hover_at(area.center());
    h.key_press(egui::Key::F);
    h.run();
    let view = doc(&h).canvas().viewport;
    assert!(view.start <= t0 as f64 && view.end() >= t1 as f64);
    assert!(view.end() - view.start < (t1 - t0) as f64 * 1.1);
}

#[test]
fn a_summary_row_click_highlights_and_steps_through_its_instances() {
    let (_dir, mut h) = opened();
    h.get_by_label("cuda_gpu_kern_sum").click();
    h.run();
    let tl = timeline(&h);
    let table = doc(&h).stats().shown_table().expect("kernel table").clone();
    let name_col = table
        .columns
        .iter()
        .position(|c| c == "Name")
        .expect("Name");
    let inst_col = table
        .columns
        .iter()
        .position(|c| c == "Instances")
        .expect("Instances");
    let row = table.rows.get(0).expect("a row");
    let name = row[name_col].as_str().to_string();
    let instances: usize = row[inst_col].as_str().parse().expect("count");
    h.get_by_label(&name).click();
    h.run();
    let d = doc(&h);
    let inst = d.stats().instances.as_ref().expect("instances");
    assert_eq!(inst.events.len(), instances, "as many as the table says");
    assert!(inst.events.iter().all(|&e| {
        tl.event(e)
            .is_some_and(|e| e.kind == EventKind::Kernel && tl.name(e.name) == name)
    }));
    assert_eq!(d.selection().event, Some(inst.events[0]));
    let second = inst.events.get(1).copied();
    if instances > 1 {
        h.get_by_label("Next instance").click();
        h.run();
        assert_eq!(doc(&h).selection().event, second);
        let e = tl.event(second.expect("second")).expect("event");
        let view = doc(&h).canvas().viewport;
        assert!(view.start <= e.start as f64 && e.end as f64 <= view.end());
    }
    // Sorting by a column reorders the rows.
    h.get_by_label("Instances").click();
    h.run();
    assert_eq!(doc(&h).stats().sort, Some((inst_col, false)));
}

/// The export's diagnostics: a tab of the summary panel listing them by time; a click selects
/// the diagnostic on the timeline. An export without any has no such tab.
#[test]
fn diagnostics_are_listed_and_a_click_goes_to_one() {
    let mut h = opened_file(common::fixtures().join("nsys/families.sqlite"));
    let tl = timeline(&h);
    let list = sightline::app::timeline::diagnostics::diagnostics(&tl);
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list.iter().all(|d| d.text == "Profiling has started."));
    assert!(list[0].start < list[1].start);
    h.get_by_label("Diagnostics (2)").click();
    h.run();
    assert_eq!(
        doc(&h).stats().pane,
        sightline::app::timeline::stats_panel::Pane::Diagnostics
    );
    // The later one: its row is the second by time.
    let later = list[1].event;
    let rows = h.get_all_by_label("Profiling has started.").count();
    assert_eq!(rows, 2, "one row per diagnostic");
    h.get_all_by_label("Profiling has started.")
        .nth(1)
        .expect("second row")
        .click();
    h.run();
    assert_eq!(doc(&h).selection().event, Some(later));

    // A small export without diagnostics offers no tab.
    let (_dir, h) = opened();
    assert!(h.query_by_label_contains("Diagnostics (").is_none());
}

/// A counter track (GPU memory usage): drawn as a step chart whose steps answer a click with
/// the sample they stand for, its value in the details.
#[test]
fn a_counter_track_answers_a_click_with_its_sample() {
    let mut h = opened_file(common::fixtures().join("nsys/families.sqlite"));
    let tl = timeline(&h);
    let track = tl
        .tracks
        .iter()
        .position(|t| t.layout == sightline::timeline::Layout::Counter)
        .map(|i| sightline::timeline::TrackId(i as u32))
        .expect("a counter row");
    let samples: Vec<EventId> = tl.tracks[track.0 as usize]
        .rows
        .iter()
        .flat_map(|r| r.clone().map(EventId))
        .collect();
    assert_eq!(samples.len(), 3);
    let second = tl.event(samples[1]).expect("sample");
    assert_eq!(tl.counter_value(samples[1]), Some(1_048_576.0));
    {
        let d = doc_mut(&mut h);
        d.canvas_mut().reveal(&tl, samples[1]);
        d.canvas_mut().viewport.fit(0.0, 10_000.0);
    }
    h.run();
    let rect = doc_mut(&mut h)
        .canvas_mut()
        .event_screen_rect(&tl, samples[1])
        .expect("the sample on screen");
    // Between this sample and the next one the step shows this sample's value.
    let third = tl.event(samples[2]).expect("sample");
    let ns_per_px = doc(&h).canvas().viewport.ns_per_px;
    let dx = ((third.start - second.start) as f64 / ns_per_px / 2.0) as f32;
    click_at(&mut h, rect.center() + egui::vec2(dx, 0.0));
    assert_eq!(doc(&h).selection().event, Some(samples[1]));
    h.get_by_label("Selected event");
    // Named by its value in the unit's own scale, with the raw value beside it.
    h.get_by_label("1.0 MiB");
    h.get_by_label("1048576");
    assert!(doc(&h).canvas().shapes_drawn > 0);
}
