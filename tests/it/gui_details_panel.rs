//! The Details page panel, headless: egui_kittest drives the panel through its accessibility tree
//! (no renderer, no display).

use std::path::Path;

use crate::common;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sightline::app::ViewCtx;
use sightline::app::ncu::details::{DetailsPanel, Span, parse_markup};
use sightline::format::format_with_unit;
use sightline::ncu::{Action, MetricValue, Report};
use sightline::section::{
    ChartAxes, DetailsSection, Entry, Item, ItemKind, KernelDetails, Roofline, RooflinePoint,
    SectionSet, resolve_action,
};

mod every_kind;
use every_kind::every_item_kind_page;

fn sample() -> Report {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sample.ncu-rep");
    Report::open(&path).expect("open the sample report")
}

/// Kernel `index` of the sample with its page resolved against its embedded sections.
fn embedded_page(report: &Report, index: usize) -> (Action, KernelDetails) {
    let action = report.action(index).expect("action");
    let set = SectionSet::from_embedded(action.sections().expect("embedded sections"));
    let page = resolve_action(&action, &set);
    (action, page)
}

/// Kernel `index` of the sample with its page resolved against the bundled sections.
fn bundled_page(report: &Report, index: usize) -> (Action, KernelDetails) {
    let action = report.action(index).expect("action");
    let page = resolve_action(&action, &SectionSet::bundled());
    (action, page)
}

fn entry(label: &str, metric: &str, value: Option<MetricValue>, unit: &str) -> Entry {
    let text = match &value {
        Some(v) => format_with_unit(v, unit, None),
        None => "N/A".to_owned(),
    };
    Entry {
        label: label.to_owned(),
        metric: metric.to_owned(),
        value,
        unit: unit.to_owned(),
        text,
        description: None,
        hw_unit: None,
        instances: None,
        derived: false,
        blank_label: false,
    }
}

/// A line chart with the default axes and no highlights.
fn line_chart() -> ItemKind {
    ItemKind::LineChart {
        axes: ChartAxes::default(),
        highlights: Vec::new(),
    }
}

/// A roofline chart of these peaks and achieved points.
fn roofline_chart(rooflines: Vec<RooflinePoint>, points: Vec<RooflinePoint>) -> ItemKind {
    ItemKind::Roofline(Roofline {
        rooflines,
        points,
        parts: Vec::new(),
    })
}

fn item(kind: ItemKind, label: &str, entries: Vec<Entry>) -> Item {
    Item {
        entries,
        ..Item::empty(kind, label)
    }
}

fn section(id: &str, name: &str, header: Vec<Entry>, body: Vec<Item>) -> DetailsSection {
    DetailsSection {
        identifier: id.to_owned(),
        display_name: name.to_owned(),
        order: 0,
        description: format!("What {name} shows"),
        header,
        body,
        metrics: Vec::new(),
        children: Vec::new(),
    }
}

/// A "Cycles" entry with the 46 per-SM instances of `sm__cycles_elapsed.max` from the sample.
fn cycles_entry(action: &Action) -> Entry {
    let metric = action
        .metric("sm__cycles_elapsed.max")
        .expect("the sample has sm__cycles_elapsed.max");
    let mut cycles = entry(
        "Cycles",
        "sm__cycles_elapsed.max",
        Some(metric.value()),
        "cycle",
    );
    cycles.instances = Some(
        metric
            .instances
            .iter()
            .map(|i| (i.correlation_id.clone(), i.value.clone()))
            .collect(),
    );
    cycles
}

#[test]
fn section_titles_and_header_values_render() {
    let report = sample();
    let (action, page) = embedded_page(&report, 0);
    let harness = common::details::panel_harness(&report, &action, &page, 900.0);
    for title in [
        "GPU Speed Of Light Throughput",
        "Launch Statistics",
        "Occupancy",
    ] {
        harness.get_by_label(title);
    }
    harness.get_by_label("Duration");
    harness.get_by_label("34.17 usecond");
    harness.get_by_label("Grid Size");
    harness.get_by_label("vector_add");
    // Body tables render too.
    harness.get_by_label("Occupancy Details");
    harness.get_by_label("Block Limit Warps");
}

#[test]
fn every_sample_kernel_renders_with_both_section_sets() {
    let report = sample();
    for index in 0..report.num_actions() {
        for page in [embedded_page(&report, index), bundled_page(&report, index)] {
            let (action, page) = page;
            let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
            harness.run();
            for section in &page.sections {
                assert!(
                    harness
                        .query_all_by_label(&section.display_name)
                        .next()
                        .is_some(),
                    "kernel {index}: section {} missing",
                    section.display_name
                );
            }
        }
    }
}

#[test]
fn clicking_a_section_header_hides_its_content_and_the_state_survives_kernel_switches() {
    let report = sample();
    let pages = [embedded_page(&report, 0), embedded_page(&report, 1)];
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1200.0, 900.0))
        .with_max_steps(30)
        .build_ui_state(
            |ui, (panel, kernel): &mut (DetailsPanel, usize)| {
                let (action, page) = &pages[*kernel];
                let ctx = ViewCtx {
                    report: &report,
                    action,
                    details: page,
                    rules: &sightline::app::ncu::rule_state::PageRules::default(),
                };
                panel.ui(ui, &ctx);
            },
            (DetailsPanel::new(), 0usize),
        );
    harness.get_by_label("Grid Size");
    harness.get_by_label("Launch Statistics").click();
    harness.run();
    assert!(harness.query_by_label("Grid Size").is_none());
    assert_eq!(
        harness
            .get_by_label("Launch Statistics")
            .accesskit_node()
            .data()
            .is_expanded(),
        Some(false)
    );
    // Other sections stay open.
    harness.get_by_label("Duration");

    // Another kernel: the section is still collapsed.
    harness.state_mut().1 = 1;
    harness.run();
    assert!(harness.query_by_label("Grid Size").is_none());
    harness.get_by_label("Duration");

    harness.get_by_label("Launch Statistics").click();
    harness.run();
    harness.get_by_label("Grid Size");
}

#[test]
fn expand_and_collapse_all() {
    let report = sample();
    let (action, page) = embedded_page(&report, 0);
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.get_by_label("Collapse all").click();
    harness.run();
    assert!(harness.query_by_label("Duration").is_none());
    assert!(harness.query_by_label("Grid Size").is_none());
    harness.get_by_label("Expand all").click();
    harness.run();
    harness.get_by_label("Duration");
    harness.get_by_label("Grid Size");
}

#[test]
fn instances_toggle_shows_and_hides_instance_rows() {
    let report = sample();
    let action = report.action(0).expect("action");
    let cycles = cycles_entry(&action);
    let first = cycles.instances.as_ref().expect("instances")[0].1.clone();
    let first_text = format_with_unit(&first, "cycle", None);
    let page = KernelDetails {
        index: 0,
        name: "vector_add".to_owned(),
        sections: vec![section(
            "Clocks",
            "Clocks",
            vec![cycles],
            vec![item(ItemKind::table(), "Per SM", vec![])],
        )],
    };
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    assert!(harness.query_by_label("Correlation ID").is_none());

    harness.get_by_label("Show 46 instances of Cycles").click();
    harness.run();
    assert_eq!(harness.state().expanded_instance_tables(), 1);
    harness.get_by_label("Correlation ID");
    harness.get_by_label(&first_text);
    // Correlation ids 0.. are shown in decimal; the table is virtualized (only the rows in
    // view exist).
    harness.get_by_label("0");
    harness.get_by_label("5");
    assert!(harness.query_by_label("45").is_none());

    harness.get_by_label("Hide 46 instances of Cycles").click();
    harness.run();
    assert!(harness.query_by_label("Correlation ID").is_none());
    assert_eq!(harness.state().expanded_instance_tables(), 0);
}

#[test]
fn large_correlation_ids_are_hexadecimal() {
    let report = sample();
    let action = report.action(0).expect("action");
    let mut handles = entry("Handles", "x", Some(MetricValue::Double(2.0)), "");
    handles.instances = Some(vec![
        (
            Some(MetricValue::Uint64(0x7f00_1234_5678)),
            MetricValue::Double(1.0),
        ),
        (None, MetricValue::Double(2.0)),
    ]);
    let page = KernelDetails {
        index: 0,
        name: "k".to_owned(),
        sections: vec![section("S", "Handles section", vec![handles], vec![])],
    };
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.get_by_label("Show 2 instances of Handles").click();
    harness.run();
    harness.get_by_label("0x7f0012345678");
    harness.get_by_label("#1");
}

#[test]
fn rule_messages_appear_under_their_sections() {
    let report = sample();
    let (action, page) = embedded_page(&report, 0);
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    harness.get_by_label("Bottleneck");
    harness.get_by_label("High Throughput");
    harness.get_by_label_contains("This kernel is compute-bound at 85.5% of peak");
    harness.get_by_label("Est. Global Speedup: 14.47%");
    harness.get_by_label("Est. Local Speedup: 38.53%");
    harness.get_by_label_contains("Achieved occupancy is 61.5%");
    // The URL markup is a hyperlink.
    let link = harness.get_by_label("CUDA Best Practices Guide");
    assert_eq!(link.accesskit_node().role(), egui::accesskit::Role::Link);
    // ComputeWorkloadAnalysis is not among the embedded sections: not a link, plain text.
    let text = harness.get_by_label("Compute Workload Analysis");
    assert_ne!(text.accesskit_node().role(), egui::accesskit::Role::Link);
    // Focus metrics are collapsible, closed by default.
    assert!(
        harness
            .query_by_label_contains("sm__throughput.avg.pct_of_peak_sustained_elapsed")
            .is_none()
    );
    harness.get_by_label("Focus metrics (1)").click();
    harness.run();
    harness.get_by_label("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    harness.get_by_label("Increase compute throughput (high severity)");

    // Rules go with their section: collapsing Occupancy hides its rule messages.
    harness.get_by_label("Occupancy").click();
    harness.run();
    assert!(
        harness
            .query_by_label("Est. Local Speedup: 38.53%")
            .is_none()
    );
    harness.get_by_label("High Throughput");
}

#[test]
fn rules_without_a_section_on_the_page_go_to_other_rules() {
    let report = sample();
    let action = report.action(0).expect("action");
    let page = KernelDetails {
        index: 0,
        name: "vector_add".to_owned(),
        sections: Vec::new(),
    };
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    harness.get_by_label("No section applies to this kernel.");
    harness.get_by_label("Other rules");
    harness.get_by_label("High Throughput");
    harness.get_by_label("Other rules").click();
    harness.run();
    assert!(harness.query_by_label("High Throughput").is_none());
}

#[test]
fn section_link_scrolls_to_the_target_section() {
    let report = sample();
    let (action, page) = bundled_page(&report, 0);
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    // Close the target first: following the link opens it again.
    let header = |harness: &Harness<'_, DetailsPanel>| {
        harness
            .get_by_role_and_label(
                egui::accesskit::Role::DisclosureTriangle,
                "Compute Workload Analysis",
            )
            .rect()
    };
    let before = header(&harness).top();
    harness
        .get_by_role_and_label(
            egui::accesskit::Role::DisclosureTriangle,
            "Compute Workload Analysis",
        )
        .click();
    harness.run();
    assert_eq!(
        harness
            .get_by_role_and_label(
                egui::accesskit::Role::DisclosureTriangle,
                "Compute Workload Analysis",
            )
            .accesskit_node()
            .data()
            .is_expanded(),
        Some(false)
    );
    let link =
        harness.get_by_role_and_label(egui::accesskit::Role::Link, "Compute Workload Analysis");
    link.click();
    harness.step();
    assert_eq!(
        harness.state().pending_scroll(),
        Some("ComputeWorkloadAnalysis")
    );
    harness.run();
    assert_eq!(harness.state().pending_scroll(), None);
    assert_eq!(
        harness.state().last_scrolled(),
        Some("ComputeWorkloadAnalysis")
    );
    let header = harness.get_by_role_and_label(
        egui::accesskit::Role::DisclosureTriangle,
        "Compute Workload Analysis",
    );
    assert_eq!(header.accesskit_node().data().is_expanded(), Some(true));
    // The header is now at the top of the page's viewport (below the kernel title bar).
    let top = header.rect().top();
    assert!(
        top < 120.0 && top < before,
        "the section header is at y = {top} (was {before})"
    );
}

#[test]
fn scroll_to_section_opens_a_child_section_inside_its_parent() {
    let report = sample();
    let (action, page) = bundled_page(&report, 0);
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    // Collapse the parent: scrolling to the child opens it.
    harness.get_by_label("Speed of Light").click();
    harness.run();
    assert!(harness.query_by_label("Speed of Light: Roofline").is_none());
    harness
        .state_mut()
        .scroll_to_section("SpeedOfLight_RooflineChart");
    harness.run();
    assert_eq!(
        harness.state().last_scrolled(),
        Some("SpeedOfLight_RooflineChart")
    );
    harness.get_by_label("Speed of Light: Roofline");

    // An unknown section is ignored.
    harness.state_mut().scroll_to_section("NoSuchSection");
    harness.run();
    assert_eq!(harness.state().pending_scroll(), None);
    assert_eq!(
        harness.state().last_scrolled(),
        Some("SpeedOfLight_RooflineChart")
    );
}

#[test]
fn na_entries_and_fixed_widgets_render() {
    let report = sample();
    let (action, page) = bundled_page(&report, 0);
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    harness.get_by_label("Elapsed Cycles (slowest GPC)");
    assert!(harness.query_all_by_label("N/A").count() > 5);
    // Nsight Compute's memory chart and tables are drawn from the metrics built into them
    // (issue 16): no placeholder, the chart and the table under their labels.
    harness.get_by_label("Memory Hierarchy Traffic diagram");
    harness.get_by_label("L2 Cache");
    harness.get_by_label("Sector Misses to Device");
    assert!(
        harness
            .query_all_by_label_contains("no metric list")
            .all(|n| {
                let label = n.accesskit_node().label().unwrap_or_default();
                ![
                    "Memory",
                    "Shared memory",
                    "Device memory",
                    "L1/TEX",
                    "L2 cache",
                    "First",
                    "Second",
                ]
                .iter()
                .any(|w| label.starts_with(w))
            }),
        "a memory widget placeholder is left"
    );
    // A bar chart whose metrics all miss, and a roofline without inputs, say so in one line
    // below their title.
    harness.get_by_label("Pipeline Busy Cycles");
    assert!(
        harness
            .query_all_by_label("No values were collected for this kernel.")
            .count()
            >= 3
    );
    harness.get_by_label("FP32 and FP64 Roofline (DRAM)");
    harness.get_by_label(
        "The metrics of FP32 Peak, FP64 Peak, FP32 Achieved, FP64 Achieved were not collected for this kernel.",
    );
}

#[test]
fn every_body_item_kind_renders() {
    let report = sample();
    let action = report.action(0).expect("action");
    let page = every_item_kind_page();
    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    check_table_layouts(&harness);
    check_every_kind_shown(&harness);
}

/// Column major: A1 above A2, B1 to the right of A1. Row major: R2 to the right of R1, S1
/// below R1.
fn check_table_layouts(harness: &Harness<'_, DetailsPanel>) {
    // Column major: A1 above A2, B1 to the right of A1.
    let a1 = harness.get_by_label("A1").rect();
    let a2 = harness.get_by_label("A2").rect();
    let b1 = harness.get_by_label("B1").rect();
    assert!(a2.top() > a1.top() && (a2.left() - a1.left()).abs() < 1.0);
    assert!(b1.left() > a1.right() && (b1.top() - a1.top()).abs() < 1.0);
    // Row major: R2 to the right of R1, S1 below R1.
    let r1 = harness.get_by_label("R1").rect();
    let r2 = harness.get_by_label("R2").rect();
    let s1 = harness.get_by_label("S1").rect();
    assert!(r2.left() > r1.right() && (r2.top() - r1.top()).abs() < 1.0);
    assert!(s1.top() > r1.top() && (s1.left() - r1.left()).abs() < 1.0);
}

/// Every item's title, the roofline's legend and the container's items side by side.
fn check_every_kind_shown(harness: &Harness<'_, DetailsPanel>) {
    for label in [
        "Throughput bars",
        "Occupancy by registers",
        "Histogram of warps",
        "Roofline",
        "Source metrics",
        "Suffixes",
        "Base Suffix",
        "L2 Hit",
        "Not drawn (metrics not collected): FP64 Achieved",
        "Graphics metrics widget: this Nsight Compute widget has no metric list in the section file.",
    ] {
        harness.get_by_label(label);
    }
    // The roofline's legend names its peak and achieved point.
    harness.get_by_label("FP32 Peak");
    harness.get_by_label("FP32 Achieved");
    // The two container items sit side by side.
    let source = harness.get_by_label("Source metrics").rect();
    let suffix = harness.get_by_label("Suffixes").rect();
    assert!(suffix.left() > source.right() && (suffix.top() - source.top()).abs() < 1.0);
}

/// Not a pass/fail test: prints the mean frame time of the largest sample page, on a bare egui
/// context (no accessibility tree, as in the app without a screen reader) and in the harness.
/// `cargo test --release --test it -- --ignored --nocapture gui_details_panel::frame_time`
#[test]
#[ignore]
fn frame_time() {
    let report = sample();
    let (action, page) = bundled_page(&report, 0);
    let ctx = ViewCtx {
        report: &report,
        action: &action,
        details: &page,
        rules: &sightline::app::ncu::rule_state::PageRules::default(),
    };
    let frames = 300;

    let egui_ctx = egui::Context::default();
    let mut panel = DetailsPanel::new();
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1400.0, 1000.0),
        )),
        ..Default::default()
    };
    let frame = |panel: &mut DetailsPanel| {
        let mut output = egui_ctx.run_ui(input(), |ui| panel.ui(ui, &ctx));
        output.textures_delta.clear();
    };
    for _ in 0..5 {
        frame(&mut panel);
    }
    let start = std::time::Instant::now();
    for _ in 0..frames {
        frame(&mut panel);
    }
    let bare = start.elapsed() / frames;

    let mut harness = common::details::panel_harness(&report, &action, &page, 900.0);
    harness.run();
    let start = std::time::Instant::now();
    for _ in 0..frames {
        harness.step();
    }
    let with_accesskit = start.elapsed() / frames;
    println!(
        "bundled page of kernel 0: {bare:?} per frame; {with_accesskit:?} with the accessibility tree"
    );
}

// ---------------------------------------------------------------------------------------------
// parse_markup

mod markup;

/// A baseline named "before" whose compared result's page is `page`.
fn baseline_before(page: &KernelDetails) -> sightline::app::ncu::baselines::ComparedBaseline {
    sightline::app::ncu::baselines::ComparedBaseline {
        id: 1,
        name: "before".to_owned(),
        color: egui::Color32::from_rgb(200, 40, 40),
        report: "before.ncu-rep".into(),
        result: Some(0),
        note: None,
        entries: std::sync::Arc::new(sightline::section::BaselineEntries::of(page)),
    }
}

/// A roofline chart with baselines: each baseline's achieved points of the chart of the same
/// label in the same section, in its colour and named after it; a point a baseline has no
/// value for, and a chart whose label two of the baseline's charts share, draw nothing.
#[test]
fn roofline_shows_the_baselines_achieved_points() {
    let report = sample();
    let action = report.action(0).expect("action");
    let point = |label: &str, work: Option<f64>| RooflinePoint {
        label: label.to_owned(),
        work,
        traffic: Some(4.0e10),
    };
    let roofline = |label: &str, points: Vec<RooflinePoint>| {
        let peaks = vec![RooflinePoint {
            label: "FP32 Peak".to_owned(),
            work: Some(1.0e13),
            traffic: Some(1.0e12),
        }];
        item(roofline_chart(peaks, points), label, vec![])
    };
    let page = |charts: Vec<Item>| KernelDetails {
        index: 0,
        name: "k".to_owned(),
        sections: vec![section("SOL", "Speed of Light", vec![], charts)],
    };
    let shown = page(vec![
        roofline("DRAM", vec![point("FP32 Achieved", Some(2.0e11))]),
        roofline("Twice", vec![point("FP32 Achieved", Some(3.0e11))]),
    ]);
    let before = page(vec![
        roofline(
            "DRAM",
            vec![
                point("FP32 Achieved", Some(1.0e11)),
                point("FP64 Achieved", None),
            ],
        ),
        roofline("Twice", vec![point("FP32 Achieved", Some(5.0e10))]),
        roofline("Twice", vec![point("FP32 Achieved", Some(6.0e10))]),
    ]);
    let mut harness = common::details::panel_harness(&report, &action, &shown, 1400.0);
    harness.state_mut().baselines = vec![baseline_before(&before)];
    harness.run();
    // Both charts draw the shown result's point; only "DRAM" draws the baseline's.
    assert_eq!(harness.query_all_by_label("FP32 Achieved").count(), 2);
    assert_eq!(
        harness.query_all_by_label("FP32 Achieved (before)").count(),
        1
    );
    assert!(harness.query_by_label("FP64 Achieved (before)").is_none());
}

/// A line chart with a baseline: the baseline's instances of the same metric as a line of its
/// own, named after it; a metric the baseline lacks draws nothing.
#[test]
fn line_chart_shows_the_baselines_lines() {
    let report = sample();
    let action = report.action(0).expect("action");
    let warps = |label: &str, metric: &str, scale: f64| {
        let mut e = entry(label, metric, None, "");
        e.instances = Some(
            (0..8u32)
                .map(|i| {
                    let y = scale / f64::from(i + 1);
                    (
                        Some(MetricValue::Uint32(32 * (i + 1))),
                        MetricValue::Double(y),
                    )
                })
                .collect(),
        );
        e
    };
    let page = |entries: Vec<Entry>| KernelDetails {
        index: 0,
        name: "k".to_owned(),
        sections: vec![section(
            "Occupancy",
            "Occupancy",
            vec![],
            vec![item(line_chart(), "Occupancy by registers", entries)],
        )],
    };
    let shown = page(vec![
        warps("Registers", "launch__occupancy_per_register_count", 64.0),
        warps("Block size", "launch__occupancy_per_block_size", 48.0),
    ]);
    let before = page(vec![warps(
        "Registers",
        "launch__occupancy_per_register_count",
        32.0,
    )]);
    let mut harness = common::details::panel_harness(&report, &action, &shown, 900.0);
    harness.state_mut().baselines = vec![baseline_before(&before)];
    harness.run();
    harness.get_by_label("Registers");
    harness.get_by_label("Block size");
    harness.get_by_label("Registers (before)");
    assert!(harness.query_by_label("Block size (before)").is_none());
}
