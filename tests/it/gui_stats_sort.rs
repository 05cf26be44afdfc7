//! A summary table longer than `BACKGROUND_ROWS` sorts on a background job: the header click
//! returns at once with the rows in their old order and a progress line, and the sorted order
//! arrives in a later frame (the job requests the repaint). A short table sorts in the frame.

use std::sync::Arc;
use std::time::{Duration, Instant};

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::timeline::stats_panel::StatsPanel;
use sightline::app::widgets::background_sort::BACKGROUND_ROWS;
use sightline::timeline::Timeline;
use sightline::timeline::nsys::stats::{Cell, ReportOutcome, ReportTable, Rows};

/// A panel showing one table of `rows` rows: `Key` counts down, `Name` is text.
fn panel(rows: usize) -> StatsPanel {
    let table = ReportTable::new(
        "long_trace",
        ["Key", "Name"],
        (0..rows)
            .map(|r| vec![Cell::int(rows - r), Cell::Text(format!("n{r}").into())])
            .collect::<Rows>(),
    );
    StatsPanel {
        reports: Some(vec![(
            "long_trace".to_owned(),
            Ok(ReportOutcome::Table(table)),
        )]),
        ..StatsPanel::default()
    }
}

fn harness(rows: usize) -> Harness<'static, StatsPanel> {
    let timeline = Timeline::default();
    Harness::builder()
        .with_size(egui::vec2(900.0, 500.0))
        .build_ui_state(
            move |ui, panel: &mut StatsPanel| {
                let ctx = ui.ctx().clone();
                panel.ui(
                    ui,
                    &timeline,
                    None,
                    Default::default(),
                    Arc::new(move || ctx.request_repaint()),
                );
            },
            panel(rows),
        )
}

#[test]
fn a_long_table_sorts_on_a_job_and_the_order_arrives_later() {
    let rows = BACKGROUND_ROWS + 1;
    let mut h = harness(rows);
    h.run();
    assert_eq!(
        h.state().order.first(),
        Some(&0),
        "the report's order first"
    );
    h.get_by_label("Key").click();
    // The frame that takes the click does not sort: the rows keep the report's order.
    h.step();
    assert_eq!(h.state().sort, Some((0, false)));
    assert_eq!(h.state().order.first(), Some(&0), "not sorted in the frame");
    // The next frame starts the job.
    h.step();
    assert!(
        h.state().sorter.is_sorting() || h.state().order.first() == Some(&(rows - 1)),
        "a sort job runs"
    );
    let started = Instant::now();
    while h.state().sorter.is_sorting() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the sort job never ended"
        );
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.step();
    let order = &h.state().order;
    assert_eq!(order.len(), rows);
    // Ascending by Key (= rows - r): the last source row first.
    assert_eq!(order.first(), Some(&(rows - 1)));
    assert_eq!(order.last(), Some(&0));
    // Descending, then the report's order again.
    h.get_by_label("Key ^").click();
    h.step();
    let started = Instant::now();
    while h.state().order.first() != Some(&0) {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no descending order"
        );
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    assert_eq!(h.state().sort, Some((0, true)));
    h.get_by_label("Key v").click();
    h.step();
    h.step();
    assert_eq!(h.state().sort, None);
    assert_eq!(h.state().order.first(), Some(&0));
    assert!(!h.state().sorter.is_sorting());
}

#[test]
fn a_short_table_sorts_in_the_frame() {
    let mut h = harness(100);
    h.run();
    h.get_by_label("Key").click();
    h.run();
    assert!(!h.state().sorter.is_sorting());
    assert_eq!(h.state().order.first(), Some(&99));
}
