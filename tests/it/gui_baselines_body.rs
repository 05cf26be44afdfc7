//! Baselines on the body of the Details page (issue 24, item 1): body tables, bar charts, the
//! memory tables and the memory chart compare with two baselines from two other corpus reports
//! of other versions — `matrix_addition2D`-era MLP (2024.2.1, T4, full set: every memory metric)
//! and `VecAdd_kernel` (2022.3, RTX 3070, basic set: no memory tables, so "N/A") — matched by
//! kernel name and launch order (no match: every value "N/A"), then picked by hand in the
//! baselines bar. Expected texts are those `sightline details --baseline` prints for the same
//! pairs (`tests/it/baselines.rs` checks those numbers against `sightline dump`).

use std::path::PathBuf;
use std::time::Duration;

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::ncu::baselines::Pick;
use sightline::app::ncu::report_tab::ReportTab;

use crate::baselines::baseline_names;
use crate::common;
use crate::gui_summary_raw::app_on;

/// The 2022.3 basic-set report, the 2024.2.1 MLP report and `vec_add` (2024.1.1), opened in
/// that order (the last one is the active tab).
fn reports() -> Option<Vec<PathBuf>> {
    let dir = common::corpus_ncu()?.join("reports");
    Some(vec![
        dir.join("ncu2022.3_rtx3070_CuVectorAddDrv.ncu-rep"),
        dir.join("ncu2024.2.1_t4_mlp_full.ncu-rep"),
        dir.join("ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep"),
    ])
}

type H = Harness<'static, SightlineApp>;

fn tab_at(h: &H, at: usize) -> &ReportTab {
    h.state().document::<ReportTab>(at).unwrap()
}

/// Adds the first result of tab `at` as a baseline with its Details page's button.
fn add_from_tab(h: &mut H, at: usize) {
    h.state_mut().active = at;
    h.run();
    common::app::step_until(h, "the tab's page", Duration::from_secs(30), |h| {
        tab_at(h, at).details().is_some()
    });
    h.get_by_label("Add as baseline").click();
    h.run();
}

/// Shows section `id` of the active tab's page (opened and scrolled into view).
fn show_section(h: &mut H, id: &str) {
    let active = h.state().active;
    h.state_mut()
        .document_mut::<ReportTab>(active)
        .unwrap()
        .panel_mut()
        .scroll_to_section(id);
    common::app::step_until(h, id, Duration::from_secs(20), |h| {
        tab_at(h, h.state().active).panel().last_scrolled() == Some(id)
    });
}

/// `vec_add` with the MLP's and the 2022.3 report's first results as baselines (matched by
/// name: neither report has a `vec_add`).
fn vec_add_with_two_baselines() -> Option<(H, tempfile::TempDir)> {
    let files = reports()?;
    let (mut h, folder) = app_on(files);
    add_from_tab(&mut h, 1);
    add_from_tab(&mut h, 0);
    h.state_mut().active = 2;
    h.run();
    assert_eq!(baseline_names(&h).len(), 2);
    Some((h, folder))
}

/// Opens the baselines bar's result picker that shows `value`.
fn click_picker(h: &mut H, value: &str) {
    h.get_all_by_role(egui::accesskit::Role::ComboBox)
        .find(|n| n.value().as_deref() == Some(value))
        .unwrap_or_else(|| panic!("a picker showing {value}"))
        .click();
    h.run();
}

fn pick_first_results(h: &mut H) {
    let state = h
        .state_mut()
        .kind_state_mut::<sightline::app::ncu::state::NcuState>()
        .unwrap();
    let ids: Vec<u64> = state.baselines.list.iter().map(|b| b.id).collect();
    for id in ids {
        state.baselines.set_pick(id, Pick::Result(0));
    }
    h.run();
}

#[test]
fn gui_baselines_body_tables_and_bar_charts() {
    let Some((mut h, _folder)) = vec_add_with_two_baselines() else {
        return;
    };
    // Matched by kernel name and launch order: no result named vec_add in either report, so
    // the page compares with nothing — never with another kernel.
    assert!(h.query_by_label("14.00 %").is_none());
    let unmatched = h.query_all_by_label("N/A").count();
    assert!(unmatched > 20, "{unmatched} N/A");

    pick_first_results(&mut h);
    let names = baseline_names(&h);
    // "Compute Throughput Breakdown" (a body table of SpeedOfLight): SM: Issue Active is
    // 9.18 % here, 14.00 % in the MLP (-34.42 %), 5.05 % in the 2022.3 report; SM: Pipe
    // Shared Cycles Active is not in the 2022.3 report.
    h.get_by_label("SM: Issue Active");
    assert!(h.query_all_by_label("14.00 %").count() >= 1);
    assert!(h.query_all_by_label("5.05 %").count() >= 1);
    assert!(h.query_all_by_label("-34.42%").count() >= 1);
    h.get_by_label("SM: Pipe Shared Cycles Active");
    // One "Δ vs" column per compared grid: the header and the body tables.
    let grids = h.query_all_by_label(&format!("Δ vs {}", names[0])).count();
    assert!(grids > 3, "{grids} compared grids");
    // The bar chart "GPU Throughput": a series per result with a legend.
    assert!(h.query_all_by_label("This result").count() >= 1);
    assert!(h.query_all_by_label("N/A").count() < unmatched);
}

#[test]
fn gui_baselines_memory_tables_and_chart() {
    let Some((mut h, _folder)) = vec_add_with_two_baselines() else {
        return;
    };
    pick_first_results(&mut h);
    show_section(&mut h, "MemoryWorkloadAnalysis_Tables");
    // L1/TEX "Global Load: Sectors": 262,144 here, 248,408 in the MLP (+5.53 %); the 2022.3
    // report has no memory tables: its lines say "N/A".
    // (Global Load: Sectors and Sector Misses to L2 have the same values.)
    assert_eq!(h.query_all_by_label("248,408 sector (+5.53%)").count(), 2);
    h.get_by_label("7.95 Mbyte (+5.53%)");
    let missing = h.query_all_by_label("N/A").count();
    assert!(
        missing > 100,
        "{missing}: a line per cell of the 2022.3 baseline"
    );

    // The memory chart: hovering the L2 unit lists each baseline's value of its metrics.
    show_section(&mut h, "MemoryWorkloadAnalysis_Chart");
    // Compared grids wrap their long headings: the page is no wider than the window.
    let chart = h.get_by_label("Memory Chart diagram").rect();
    assert!(chart.right() <= 1500.0, "{chart:?}");
    // Scroll the page with the wheel until the chart is in view.
    let mut chart = chart;
    for _ in 0..40 {
        if chart.top() > 100.0 && chart.bottom() < 1000.0 {
            break;
        }
        h.hover_at(egui::pos2(chart.center().x, 500.0));
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, if chart.top() <= 100.0 { 40.0 } else { -40.0 }),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
        });
        h.run();
        chart = h.get_by_label("Memory Chart diagram").rect();
    }
    assert!(
        chart.top() > 100.0 && chart.bottom() < 1000.0,
        "{chart:?} in view"
    );
    let scale = (chart.width() - 8.0) / 1200.0;
    let l2 = egui::pos2(chart.left() + 4.0 + 837.0 * scale, chart.top() + 200.0);
    h.hover_at(l2);
    h.run();

    let names = baseline_names(&h);
    assert!(
        h.query_all_by_label_contains(&format!("{}: ", names[0]))
            .count()
            > 0,
        "the MLP's values in the hover"
    );
    assert!(
        h.query_all_by_label(&format!("{}: N/A", names[1])).count() > 0,
        "the 2022.3 report lacks the L2 metrics"
    );
}

#[test]
fn gui_baselines_follow_the_shown_result_and_the_picker() {
    let fixture = |name: &str| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name)
    };
    // The sample, another report with the same kernels in the same order (multi_block) and a
    // report whose kernels the sample lacks (late_strings).
    let (mut h, _folder) = app_on(vec![
        fixture("sample.ncu-rep"),
        fixture("multi_block.ncu-rep"),
        fixture("late_strings.ncu-rep"),
    ]);
    add_from_tab(&mut h, 0);

    // In another report, the result with the shown kernel's name and launch order.
    h.state_mut().active = 1;
    h.state_mut()
        .document_mut::<ReportTab>(1)
        .unwrap()
        .select(2);
    h.run();
    common::app::step_until(&mut h, "kernel 2", Duration::from_secs(20), |h| {
        tab_at(h, 1).details().is_some_and(|d| d.index == 2)
    });
    let compared = &tab_at(&h, 1).panel().baselines;
    assert_eq!(compared.len(), 1);
    assert_eq!(compared[0].result, Some(2), "{}", compared[0].origin());
    // Each value compares with the same kernel's: no difference.
    assert!(h.query_all_by_label("0.00%").count() > 5);

    // A report without a kernel of that name: nothing matches, every value "N/A".
    h.state_mut().active = 2;
    h.run();
    let compared = &tab_at(&h, 2).panel().baselines;
    assert_eq!(compared[0].result, None);
    assert!(
        compared[0].origin().contains("no result named"),
        "{}",
        compared[0].origin()
    );

    // In its own report, the baseline is the result added, whatever is shown.
    h.state_mut().active = 0;
    h.state_mut()
        .document_mut::<ReportTab>(0)
        .unwrap()
        .select(2);
    h.run();
    assert_eq!(tab_at(&h, 0).panel().baselines[0].result, Some(0));
    // After a section reload the result added is resolved again with the new sections.
    let before = std::sync::Arc::clone(&tab_at(&h, 0).panel().baselines[0].entries);
    h.state_mut()
        .kind_state_mut::<sightline::app::ncu::state::NcuState>()
        .unwrap()
        .sections
        .generation += 1;
    h.run();
    let after = &tab_at(&h, 0).panel().baselines[0];
    assert_eq!(after.result, Some(0));
    assert!(!std::sync::Arc::ptr_eq(&before, &after.entries));
    assert_eq!(
        *before, *after.entries,
        "the same sections give the same page"
    );

    // Picked by hand in the bar: the picker lists the report's results.
    click_picker(&mut h, "matched");
    let name = tab_at(&h, 0).list().rows[3].name.clone();
    h.get_by_label(&format!("[3] {name}")).click();
    h.run();
    assert_eq!(
        common::app::ncu_state(&h).baselines.list[0].pick,
        Pick::Result(3)
    );
    assert_eq!(tab_at(&h, 0).panel().baselines[0].result, Some(3));
    h.state_mut().active = 1;
    h.run();
    assert_eq!(tab_at(&h, 1).panel().baselines[0].result, Some(3));
    // Back to matched.
    click_picker(&mut h, &format!("[3] {name}"));
    h.get_by_label("matched").click();
    h.run();
    assert_eq!(tab_at(&h, 1).panel().baselines[0].result, Some(2));
}
