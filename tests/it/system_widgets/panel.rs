//! The panel drawing the system widgets, synthetic and from the corpus.

use super::*;

fn assert_no_placeholder(harness: &Harness<'_, DetailsPanel>, what: &str) {
    let left: Vec<String> = harness
        .query_all_by_label_contains("no metric list")
        .map(|n| n.accesskit_node().label().unwrap_or_default().to_owned())
        .collect();
    assert!(left.is_empty(), "{what}: placeholders left: {left:?}");
}

/// The panel draws all five widgets of a synthetic page with links (no `../shared` needed).
#[test]
fn panel_draws_synthetic_widgets() {
    let report = Report::open(common::fixtures().join("sample.ncu-rep")).expect("sample");
    let action = report.action(0).expect("action");
    let metrics = two_links();
    let body = vec![
        synthetic_item(&metrics, "numa_id_table", "NUMA ID Table"),
        synthetic_item(&metrics, "nvlink_topology", "NVLink Topology"),
        synthetic_item(
            &metrics,
            "nvlink_property_table",
            "Logical NVLink Properties",
        ),
        synthetic_item(
            &metrics,
            "nvlink_throughput_table",
            "Logical NVLink Throughput",
        ),
        synthetic_timeline(),
    ];
    let page = KernelDetails {
        index: 0,
        name: "synthetic".into(),
        sections: vec![DetailsSection {
            identifier: "Synthetic".into(),
            display_name: "System".into(),
            order: 1,
            description: String::new(),
            header: Vec::new(),
            body,
            metrics: Vec::new(),
            children: Vec::new(),
        }],
    };
    let mut harness = common::details::panel_harness(&report, &action, &page, 3000.0);
    harness.run();
    for label in [
        "NUMA ID Table",
        "NVLink Topology diagram",
        "Logical NVLink Properties",
        "Logical NVLink Throughput",
        "PM Sampling timeline",
        "NVSwitch Connected",
        "8-15",
        "All Links",
        "Active Warps",
        "Active Warps samples",
        "Warp States",
    ] {
        harness.get_by_label(label);
    }
    // The section collapses "Warp States" (`Expanded: false`): its rows are not drawn.
    assert_eq!(harness.query_all_by_label("Stalls samples").count(), 0);
    assert_eq!(harness.query_all_by_label("NPU").count(), 1);
    assert_no_placeholder(&harness, "synthetic page");
}

/// Each corpus report with system widgets shows those of its sections by label (and none of
/// the others: 2021.x reports carry only the NVLink sections), and no corpus page (first
/// kernel of every report) keeps a "no metric list" placeholder.
#[test]
fn panel_shows_corpus_widgets_without_placeholders() {
    let pairs = common::corpus_pairs();
    if pairs.is_empty() {
        crate::common::skip_shared("../shared corpus not found");
        return;
    }
    let with_widgets = system_reports();
    for (path, _) in &pairs {
        let report = Report::open(path).unwrap();
        let action = report.action(0).unwrap();
        let page = common::details::page(&action);
        let mut harness = common::details::panel_harness(&report, &action, &page, 3000.0);
        harness.run();
        if let Some((_, golden)) = with_widgets.iter().find(|(p, _)| p == path) {
            let sections = sections_of(&golden["ranges"][0]["actions"][0]);
            for (section, label) in [
                ("NumaAffinity", "NUMA ID Table"),
                ("Nvlink_Topology", "NVLink Topology diagram"),
                ("Nvlink_Tables", "Logical NVLink Properties"),
                ("Nvlink_Tables", "Logical NVLink Throughput"),
                ("PmSampling", "PM Sampling timeline"),
            ] {
                let shown = harness.query_all_by_label(label).count();
                assert_eq!(
                    shown >= 1,
                    sections.contains(&section),
                    "{}: {label}",
                    path.display()
                );
            }
            // "No NVLink links" where the device has none (a GTX 1660), links where it has
            // them (28 on an H800).
            if sections.iter().any(|s| s.starts_with("Nvlink_")) {
                let links = action
                    .metric("nvlink__count_logical")
                    .and_then(|m| m.value().as_f64())
                    .unwrap_or(0.0);
                let none = harness
                    .query_all_by_label("No NVLink links: nvlink__count_logical = 0")
                    .count();
                assert_eq!(none >= 1, links == 0.0, "{}: {links} links", path.display());
            }
            if sections.contains(&"PmSampling") {
                // The first sampled row of the first expanded group is drawn with its samples
                // (the rows differ by architecture and version).
                let timelines = common::details::items_where(&page, |i| {
                    matches!(i.system(), Some(SystemWidget::Timeline(_)))
                });
                let first_row = timelines
                    .iter()
                    .filter_map(|i| match i.system() {
                        Some(SystemWidget::Timeline(t)) => Some(t),
                        _ => None,
                    })
                    .flat_map(|t| t.groups.iter().filter(|g| g.expanded))
                    .flat_map(|g| &g.rows)
                    .find(|r| r.series.iter().any(|s| !s.samples.is_empty()))
                    .unwrap_or_else(|| panic!("{}: no sampled row", path.display()));
                harness.get_by_label(&format!("{} samples", first_row.label));
            }
        }
        assert_no_placeholder(&harness, &path.display().to_string());
    }
}
