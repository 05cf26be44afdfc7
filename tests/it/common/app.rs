//! Driving the whole app headless (egui_kittest).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use sightline::app::{Settings, SightlineApp, StartOptions};

/// The whole app in a 1400×1000 window with `files` opened from the command line.
pub fn harness(files: Vec<PathBuf>) -> Harness<'static, SightlineApp> {
    harness_sized(files, egui::vec2(1400.0, 1000.0))
}

/// The whole app in a window of `size` with `files` opened from the command line.
pub fn harness_sized(files: Vec<PathBuf>, size: egui::Vec2) -> Harness<'static, SightlineApp> {
    let app = SightlineApp::new(
        Settings::default(),
        StartOptions {
            files,
            ..Default::default()
        },
    );
    Harness::builder()
        .with_size(size)
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app)
}

/// Steps the app until `done` holds (reports load and rules run on real threads); panics with
/// `what` after `limit`.
pub fn step_until(
    harness: &mut Harness<'static, SightlineApp>,
    what: &str,
    limit: Duration,
    done: impl Fn(&Harness<'static, SightlineApp>) -> bool,
) {
    let start = Instant::now();
    loop {
        harness.step();
        if done(harness) {
            harness.step();
            return;
        }
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Steps until no tab is loading and the active tab is a report whose Details page is
/// built, for at most 30 s (`what`: what the caller waits for, named when it times out).
pub fn until_report_shown(harness: &mut Harness<'static, SightlineApp>, what: &str) {
    step_until(harness, what, Duration::from_secs(30), |h| {
        let app = h.state();
        app.tabs.iter().all(|t| !t.loading())
            && app
                .document::<sightline::app::ncu::report_tab::ReportTab>(app.active)
                .is_some_and(|t| t.details().is_some())
    });
}

/// The app's Nsight Compute state: sections, rules, the Metric Selection window.
pub fn ncu_state<'a>(
    harness: &'a Harness<'_, SightlineApp>,
) -> &'a sightline::app::ncu::state::NcuState {
    harness
        .state()
        .kind_state()
        .expect("the app keeps an Nsight Compute state")
}

/// Presses and releases the primary button at `pos` (a click).
pub fn click_at(h: &mut Harness<'static, SightlineApp>, pos: egui::Pos2) {
    h.hover_at(pos);
    h.step();
    h.drag_at(pos);
    h.step();
    h.event(egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run();
}

/// The document of the first tab, as its concrete kind `T` (panics when it is another kind).
pub fn first_doc<'h, T: sightline::app::document::Document>(
    h: &'h Harness<'static, SightlineApp>,
) -> &'h T {
    h.state()
        .document::<T>(0)
        .expect("the first tab of that kind")
}

/// Opens `files` and waits until the first tab's timeline and its summary tables are ready.
pub fn opened_timeline(files: Vec<PathBuf>) -> Harness<'static, SightlineApp> {
    let mut h = harness(files);
    step_until(
        &mut h,
        "the timeline to load",
        Duration::from_secs(30),
        |h| {
            h.state()
                .document::<sightline::app::timeline::TimelineDoc>(0)
                .is_some_and(|d| d.timeline().is_some() && d.stats().reports.is_some())
        },
    );
    h.run();
    h
}
