//! Nsight Compute's memory chart and memory tables: the model against the corpus' golden values
//! (every cell backed by a metric, every derived cell by its formula), `details --json`, and the
//! Details panel (kittest) finding the chart and the tables with no placeholder left.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use serde_json::Value;
use sightline::app::ncu::details::DetailsPanel;
use sightline::format::format_with_unit;
use sightline::ncu::{Action, MetricValue, Report};
use sightline::section::SectionSet;
use sightline::section::memory::{self, MemoryWidget, RowFilter};
use sightline::section::{DetailsSection, Entry, Item, ItemKind, KernelDetails, resolve_action};

/// Corpus reports whose sections include the memory widgets, with their golden JSON.
fn full_set_reports() -> Vec<(PathBuf, Value)> {
    common::corpus_pairs()
        .into_iter()
        .filter_map(|(report, golden)| {
            let golden = common::golden_json(&golden);
            let has_chart = golden["ranges"][0]["actions"].as_array()?.iter().any(|a| {
                a["sections"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|id| id == "MemoryWorkloadAnalysis_Chart"))
            });
            has_chart.then_some((report, golden))
        })
        .collect()
}

fn page(action: &Action) -> KernelDetails {
    let set = SectionSet::from_embedded(action.sections().expect("embedded sections"));
    resolve_action(action, &set)
}

fn golden_value(metrics: &Value, name: &str) -> Option<f64> {
    common::json_f64(&metrics.get(name)?["value"])
}

fn value_f64(entry: &Entry) -> Option<f64> {
    entry.value.as_ref().and_then(MetricValue::as_f64)
}

/// The value of a derived entry's formula (`a + b + ...`, `a / b`, `a / b * 100`, `a * 32`)
/// computed from the golden metrics.
fn formula_value(metrics: &Value, formula: &str) -> Option<f64> {
    if formula.contains(" + ") {
        return formula
            .split(" + ")
            .map(|name| golden_value(metrics, name))
            .sum();
    }
    if let Some((numerator, rest)) = formula.split_once(" / ") {
        let (denominator, scale) = match rest.split_once(" * ") {
            Some((d, s)) => (d, s.parse::<f64>().ok()?),
            None => (rest, 1.0),
        };
        let (n, d) = (
            golden_value(metrics, numerator)?,
            golden_value(metrics, denominator)?,
        );
        return Some(if d == 0.0 { 0.0 } else { n / d * scale });
    }
    let (name, factor) = formula.split_once(" * ")?;
    Some(golden_value(metrics, name)? * factor.parse::<f64>().ok()?)
}

/// The metrics the writing tool collected for the memory widgets of a golden action: the
/// union of its `group:memory__*` lists.
fn collected(metrics: &Value) -> HashSet<String> {
    metrics
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(name, _)| name.starts_with("group:memory__"))
        .filter_map(|(_, m)| m["value"].as_str())
        .flat_map(|list| list.split(','))
        .map(|n| n.trim().to_owned())
        .collect()
}

/// The metric names an entry's `metric` field names: the metric, or the operands of its
/// formula.
fn names_of(formula: &str) -> Vec<&str> {
    formula
        .split(" + ")
        .flat_map(|part| part.split(" / "))
        .flat_map(|part| part.split(" * "))
        .filter(|token| token.parse::<f64>().is_err())
        .collect()
}

/// Compares one cell with the golden: `Some(derived)` when it holds a value equal to NVIDIA's
/// (a derived one to its formula over NVIDIA's values), `None` when it is "N/A" in an action
/// that was not `measured` (none of the metrics the tool collected for the widgets, listed in
/// its `group:memory__*` lists, is in the golden: NVIDIA's CLI prints `n/a` for them), naming
/// only such collected metrics. Any other missing value fails: the widgets name the metrics
/// of the architecture's reports.
fn check_cell(
    where_: &str,
    entry: &Entry,
    metrics: &Value,
    collected: &HashSet<String>,
    measured: bool,
) -> Option<bool> {
    let Some(value) = value_f64(entry) else {
        let names = names_of(&entry.metric);
        let lost = !measured
            && names
                .iter()
                .all(|n| metrics.get(*n).is_none() && collected.contains(*n));
        assert!(
            lost && !names.is_empty(),
            "{where_}: {} is missing",
            entry.metric
        );
        assert_eq!(entry.text, "N/A", "{where_}");
        return None;
    };
    if entry.derived {
        let want = formula_value(metrics, &entry.metric)
            .unwrap_or_else(|| panic!("{where_}: formula {}", entry.metric));
        assert!(
            common::details::close(value, want),
            "{where_}: {value} != {want}"
        );
    } else {
        let want = golden_value(metrics, &entry.metric)
            .unwrap_or_else(|| panic!("{where_}: {} not in golden", entry.metric));
        assert!(
            common::details::close(value, want),
            "{where_}: {value} != {want}"
        );
        assert_eq!(
            entry.unit, metrics[&entry.metric]["unit"],
            "{where_}: unit of {}",
            entry.metric
        );
    }
    Some(entry.derived)
}

/// For each full-set corpus report, every cell, node and link value backed by a metric equals
/// NVIDIA's reader's value, every derived one equals its formula over NVIDIA's values, and no
/// metric the widgets name is missing: the names are those of the architecture's reports. An
/// action whose measurement failed (2021.1's `trace` launch: grid (0, 0, 0), none of the
/// metrics its `group:memory__*` lists name, every metric `n/a` on NVIDIA's CLI page) shows
/// "N/A" in every cell.
#[test]
fn corpus_cells_equal_golden_values() {
    let reports = full_set_reports();
    if reports.is_empty() {
        crate::common::skip_shared("no full-set corpus report (../shared) found");
        return;
    }
    let mut architectures = std::collections::BTreeSet::new();
    for (path, golden) in &reports {
        let report = Report::open(path).unwrap();
        for (index, expected) in golden["ranges"][0]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let action = report.action(index).unwrap();
            architectures.insert(action.compute_capability());
            let page = page(&action);
            let items = common::details::items_where(&page, |i| i.memory().is_some());
            let kinds: Vec<&str> = items.iter().map(|i| i.kind.name()).collect();
            assert!(
                kinds.contains(&"memory_chart"),
                "{}: {kinds:?}",
                path.display()
            );
            assert!(
                kinds.contains(&"memory_table"),
                "{}: {kinds:?}",
                path.display()
            );
            let metrics = &expected["metrics"];
            let collected = collected(metrics);
            let measured = collected.iter().any(|n| metrics.get(n).is_some());
            let (mut stored, mut derived, mut lost) = (0, 0, 0);
            for item in items {
                for entry in &item.entries {
                    let where_ = format!(
                        "{} #{index} {}: {}",
                        path.display(),
                        item.label,
                        entry.label
                    );
                    match check_cell(&where_, entry, metrics, &collected, measured) {
                        Some(true) => derived += 1,
                        Some(false) => stored += 1,
                        None => lost += 1,
                    }
                }
            }
            let counts = format!("{stored} stored, {derived} derived, {lost} N/A");
            if measured {
                assert!(
                    stored > 100 && derived > 20,
                    "{} #{index}: {counts}",
                    path.display()
                );
            } else {
                assert!(
                    stored == 0 && derived == 0 && lost > 100,
                    "{} #{index}: {counts}",
                    path.display()
                );
            }
        }
    }
    // The corpus' full-set reports cover Turing (7.5) and Ampere (8.6).
    assert!(architectures.len() >= 2, "{architectures:?}");
}

/// The formulas of the derived cells reproduce the metrics Nsight Compute stores where it
/// stores both: hit rate = lookup hits / sectors × 100, bytes = sectors × 32, and a total's
/// % of peak = the sum of its parts'.
#[test]
fn formulas_reproduce_stored_metrics() {
    let reports = full_set_reports();
    if reports.is_empty() {
        crate::common::skip_shared("no full-set corpus report (../shared) found");
        return;
    }
    for (path, golden) in &reports {
        let mut checked = 0;
        for action in golden["ranges"][0]["actions"].as_array().unwrap() {
            let m = &action["metrics"];
            let mut check = |formula: &str, stored: &str| {
                // An action whose measurement failed (2021.1's `trace`) holds neither side.
                if names_of(formula)
                    .iter()
                    .chain([&stored])
                    .all(|n| m.get(*n).is_none())
                {
                    return;
                }
                let (Some(computed), Some(want)) =
                    (formula_value(m, formula), golden_value(m, stored))
                else {
                    panic!("{}: {formula} or {stored} missing", path.display());
                };
                checked += 1;
                assert!(
                    (computed.is_nan() && want.is_nan())
                        || (computed - want).abs() < 1e-6 * want.abs().max(1.0),
                    "{}: {formula} = {computed}, {stored} = {want}",
                    path.display()
                );
            };
            check(
                "lts__t_sectors_lookup_hit.sum / lts__t_sectors.sum * 100",
                "lts__t_sector_hit_rate.pct",
            );
            check(
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum / \
                 l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum * 100",
                "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
            );
            check("dram__sectors_read.sum * 32", "dram__bytes_read.sum");
            check("dram__sectors_write.sum * 32", "dram__bytes_write.sum");
            check(
                "dram__bytes_read.sum.pct_of_peak_sustained_elapsed + \
                 dram__bytes_write.sum.pct_of_peak_sustained_elapsed",
                "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            );
        }
        assert!(checked >= 5, "{}: {checked} checks", path.display());
    }
}

/// An entry as the Details model makes it for a metric, from a fixed table of values (a
/// synthetic report: no `../shared` needed).
fn synthetic_entry(name: &str) -> Entry {
    let value = if name.ends_with(".per_second") {
        None
    } else if name.ends_with(".pct") || name.contains("pct_of_peak") {
        Some(MetricValue::Double(42.5))
    } else if name.contains("requests") {
        Some(MetricValue::Uint64(1_000))
    } else if name.contains("sectors") || name.starts_with("dram__bytes") {
        Some(MetricValue::Uint64(4_000))
    } else if name.contains("inst") {
        Some(MetricValue::Uint64(500))
    } else {
        None
    };
    let unit = sightline::ncu::infer_unit(name).into_owned();
    Entry {
        label: name.to_owned(),
        metric: name.to_owned(),
        text: value
            .as_ref()
            .map_or("N/A".to_owned(), |v| format_with_unit(v, &unit, None)),
        value,
        unit,
        description: None,
        hw_unit: None,
        instances: None,
        derived: false,
        blank_label: false,
    }
}

fn synthetic_item(widget: &str, label: &str, compute_capability: u32) -> Item {
    let (layout, entries) = memory::build(
        widget,
        Some(compute_capability),
        RowFilter::default(),
        &synthetic_entry,
    )
    .expect("a memory widget");
    Item {
        entries,
        ..Item::empty(ItemKind::Memory(layout), label)
    }
}

/// Derived cells follow their formula; columns that do not apply stay empty; rows that need a
/// newer architecture appear only there; a missing metric is "N/A", never a number.
#[test]
fn model_formulas_rows_and_missing_metrics() {
    let l2 = synthetic_item("memory_l2_cache_table", "L2 Cache", 86);
    let Some(MemoryWidget::Table(table)) = l2.memory() else {
        panic!("a table");
    };
    assert_eq!(table.columns[2], "Sectors/Req");
    let load = &table.rows[0];
    assert_eq!(load.label, "L1/TEX Load");
    let cell = |row: &sightline::section::memory::TableRow, column: usize| {
        &l2.entries[row.cells[column].expect("a cell")]
    };
    assert_eq!(
        value_f64(cell(load, 2)),
        Some(4.0),
        "4,000 sectors / 1,000 requests"
    );
    assert_eq!(
        value_f64(cell(load, 3)),
        Some(100.0),
        "hits / sectors × 100"
    );
    assert_eq!(value_f64(cell(load, 4)), Some(128_000.0), "sectors × 32");
    assert_eq!(cell(load, 4).text, "128.00 Kbyte");
    let ecc = table.rows.iter().find(|r| r.label == "ECC Total").unwrap();
    assert_eq!(ecc.cells[0], None, "ECC traffic has no requests");

    let shared = |cc| {
        let item = synthetic_item("memory_shared_table", "Shared Memory", cc);
        let Some(MemoryWidget::Table(table)) = item.memory() else {
            panic!("a table");
        };
        table.rows.iter().map(|r| r.label).collect::<Vec<_>>()
    };
    assert!(shared(86).contains(&"Shared Load Matrix"));
    assert!(!shared(75).contains(&"Shared Load Matrix"));

    // Metrics the synthetic report lacks (throughputs) are N/A.
    let chart = synthetic_item("memory_chart", "Memory Chart", 75);
    let Some(MemoryWidget::Chart(layout)) = chart.memory() else {
        panic!("a chart");
    };
    let read = layout
        .links
        .iter()
        .find(|l| l.from == "device" && l.to == "l2")
        .unwrap();
    let rate = &chart.entries[read.rate.unwrap()];
    assert_eq!(rate.metric, "dram__bytes_read.sum.per_second");
    assert_eq!((rate.value.as_ref(), rate.text.as_str()), (None, "N/A"));
    assert!(layout.nodes.iter().any(|n| n.id == "l2" && n.physical));
    assert!(layout.nodes.iter().any(|n| n.id == "global" && !n.physical));
    assert!(memory::build("table", Some(86), RowFilter::default(), &synthetic_entry).is_none());
}

fn details_json(report: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["details", "--json", "--kernel", "0"])
        .arg(report)
        .output()
        .expect("run sightline");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Values are raw as NVIDIA's reader gives them: NaN as Python's JSON writes it.
    common::python_json(&String::from_utf8_lossy(&out.stdout)).expect("JSON")
}

/// `details --json`: the chart is a `memory_chart` item with nodes and links, each table a
/// `memory_table` item with columns and rows of cells; every value is an entry.
#[test]
fn cli_json_has_memory_chart_and_tables() {
    let reports = full_set_reports();
    if reports.is_empty() {
        crate::common::skip_shared("no full-set corpus report (../shared) found");
        return;
    }
    for (path, golden) in &reports {
        let json = details_json(path);
        let metrics = &golden["ranges"][0]["actions"][0]["metrics"];
        let items = common::details::json_body_items(&json);
        let chart = items
            .iter()
            .find(|i| i["kind"] == "memory_chart")
            .expect("a memory_chart item");
        assert_eq!(chart["label"], "Memory Chart");
        let nodes = chart["nodes"].as_array().unwrap();
        assert!(
            nodes
                .iter()
                .any(|n| n["id"] == "kernel" && n["physical"] == false)
        );
        assert!(
            nodes
                .iter()
                .any(|n| n["id"] == "l2" && n["physical"] == true)
        );
        let links = chart["links"].as_array().unwrap();
        let read = links
            .iter()
            .find(|l| l["from"] == "device" && l["to"] == "l2")
            .expect("device -> L2");
        assert_eq!(read["amount"]["metric"], "dram__bytes_read.sum");
        assert_eq!(
            read["amount"]["value"],
            metrics["dram__bytes_read.sum"]["value"]
        );
        assert_eq!(
            read["peak"]["metric"],
            "dram__bytes_read.sum.pct_of_peak_sustained_elapsed"
        );

        let tables: Vec<&&Value> = items
            .iter()
            .filter(|i| i["kind"] == "memory_table")
            .collect();
        let labels: Vec<&str> = tables.iter().filter_map(|t| t["label"].as_str()).collect();
        for want in ["Shared Memory", "L1/TEX Cache", "L2 Cache", "Device Memory"] {
            assert!(labels.contains(&want), "{labels:?}");
        }
        let device = tables
            .iter()
            .find(|t| t["label"] == "Device Memory")
            .unwrap();
        assert_eq!(device["widget"], "memory_device_memory_table");
        assert_eq!(device["columns"][0], "Sectors");
        let load = &device["rows"][0];
        assert_eq!(load["label"], "Load");
        assert_eq!(load["cells"][0]["metric"], "dram__sectors_read.sum");
        assert_eq!(
            load["cells"][0]["value"],
            metrics["dram__sectors_read.sum"]["value"]
        );
        let l2 = tables.iter().find(|t| t["label"] == "L2 Cache").unwrap();
        let ecc = l2["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == "ECC Total");
        // The ECC row is there where the report's tool version collected ECC traffic for the
        // table (its `group:` metric lists it; 2020.2 does not), and only there.
        let collected = metrics["group:memory__l2_cache_table"]["value"]
            .as_str()
            .is_none_or(|list| list.split(',').any(|m| m == "lts__t_sectors_data_ecc.sum"));
        assert_eq!(ecc.is_some(), collected, "{}: ECC row", path.display());
        if let Some(ecc) = ecc {
            assert!(ecc["cells"][0].is_null(), "not applicable: null");
            assert_eq!(ecc["cells"][1]["metric"], "lts__t_sectors_data_ecc.sum");
        }
    }
}

const MEMORY_WIDGET_NAMES: &[&str] = &[
    "Memory chart",
    "Shared memory table",
    "First-level cache table",
    "Second-level cache table",
    "Device memory table",
    "L1/TEX cache table",
    "L2 cache table",
    "L2 cache eviction policy table",
];

fn assert_no_memory_placeholder(harness: &Harness<'_, DetailsPanel>) {
    for node in harness.query_all_by_label_contains("no metric list") {
        let label = node.accesskit_node().label().unwrap_or_default();
        assert!(
            !MEMORY_WIDGET_NAMES.iter().any(|w| label.starts_with(w)),
            "placeholder left: {label}"
        );
    }
}

/// The panel draws the chart and the tables of a synthetic page (no `../shared` needed).
#[test]
fn panel_draws_chart_and_tables_of_a_synthetic_page() {
    let report = Report::open(common::fixtures().join("sample.ncu-rep")).expect("sample");
    let action = report.action(0).expect("action");
    let body = vec![
        synthetic_item("memory_chart", "Memory Chart", 86),
        synthetic_item("memory_shared_table", "Shared Memory", 86),
        synthetic_item("memory_l1tex_cache_table", "L1/TEX Cache", 86),
        synthetic_item("memory_l2_cache_table", "L2 Cache", 86),
        synthetic_item(
            "memory_l2_cache_evict_policy_table",
            "L2 Cache Eviction Policies",
            86,
        ),
        synthetic_item("memory_device_memory_table", "Device Memory", 86),
    ];
    let page = KernelDetails {
        index: 0,
        name: "synthetic".into(),
        sections: vec![DetailsSection {
            identifier: "MemoryWorkloadAnalysis_Chart".into(),
            display_name: "Memory Workload Analysis Chart".into(),
            order: 31,
            description: String::new(),
            header: Vec::new(),
            body,
            metrics: Vec::new(),
            children: Vec::new(),
        }],
    };
    let mut harness = common::details::panel_harness(&report, &action, &page, 3000.0);
    harness.run();
    harness.get_by_label("Memory Chart diagram");
    for title in [
        "Shared Memory",
        "L1/TEX Cache",
        "L2 Cache",
        "L2 Cache Eviction Policies",
        "Device Memory",
    ] {
        harness.get_by_label(title);
    }
    // Column headings and row labels are real text.
    harness.get_by_label("Sector Misses to Device");
    harness.get_by_label("Shared Load Matrix");
    harness.get_by_label("Normal Demote Misses");
    assert!(
        !harness
            .query_all_by_label("128.00 Kbyte")
            .collect::<Vec<_>>()
            .is_empty()
    );
    assert_no_memory_placeholder(&harness);
}

/// On every full-set corpus report the panel shows the chart and the tables and no memory
/// widget placeholder remains.
#[test]
fn panel_shows_corpus_memory_widgets_without_placeholders() {
    let reports = full_set_reports();
    if reports.is_empty() {
        crate::common::skip_shared("no full-set corpus report (../shared) found");
        return;
    }
    for (path, _) in &reports {
        let report = Report::open(path).unwrap();
        let action = report.action(0).unwrap();
        let page = page(&action);
        let mut harness = common::details::panel_harness(&report, &action, &page, 3000.0);
        harness.run();
        harness.get_by_label("Memory Chart diagram");
        // A table's title is on screen once per memory table of that title on the page: a
        // report's own sections may show a table twice (the 2023.1 smemTranspose report adds
        // a "Shared Memory Analysis" section holding the shared-memory table again).
        for title in ["Shared Memory", "L1/TEX Cache", "L2 Cache", "Device Memory"] {
            let on_page = common::details::items_where(&page, |i| {
                matches!(i.kind, ItemKind::Memory(MemoryWidget::Table(_))) && i.label == title
            })
            .len();
            assert!(on_page >= 1, "{}: no {title} table", path.display());
            // Other sections may use the same words ("L2 Cache" in a custom section's table).
            assert!(
                harness.query_all_by_label(title).count() >= on_page,
                "{}: {title}",
                path.display()
            );
        }
        assert_no_memory_placeholder(&harness);
    }
}

/// The widget's `group:` metric names what the writing tool version collected: a part of a sum
/// that the version did not collect is left out (2020.2 has no LDSM count in Kernel → Shared),
/// a throughput it did not collect is no entry at all, and a table row it did not collect is
/// no row; a part it collected but the report lacks still makes its cell "N/A".
#[test]
fn parts_the_reports_version_did_not_collect_are_left_out() {
    let ldsm = "smsp__inst_executed_op_ldsm.sum";
    let ecc = "lts__t_sectors_data_ecc.sum";
    // Every metric the synthetic report has, except LDSM and ECC, is listed as collected.
    let with_group = |group: &'static str, listed: Vec<String>| {
        move |name: &str| {
            if name == group {
                let mut entry = synthetic_entry("x");
                entry.value = Some(MetricValue::String(listed.join(",")));
                return entry;
            }
            let mut entry = synthetic_entry(name);
            if name == ldsm || name.starts_with("lts__t_sectors_data_ecc") {
                entry.value = None;
                entry.text = "N/A".to_owned();
            }
            entry
        }
    };
    let shared_link = |lookup: &dyn Fn(&str) -> Entry| {
        let (MemoryWidget::Chart(chart), entries) =
            memory::build("memory_chart", Some(86), RowFilter::default(), lookup).unwrap()
        else {
            panic!("a chart")
        };
        let link = chart
            .links
            .iter()
            .find(|l| l.from == "kernel" && l.to == "shared")
            .unwrap();
        let throughput = chart
            .links
            .iter()
            .find(|l| l.from == "l2" && l.to == "l1tex")
            .unwrap()
            .rate;
        (entries[link.amount].clone(), throughput)
    };
    let chart_metrics = vec![
        "smsp__sass_inst_executed_op_shared_ld.sum".to_owned(),
        "smsp__sass_inst_executed_op_shared_st.sum".to_owned(),
        "smsp__inst_executed_op_shared_atom.sum".to_owned(),
        "smsp__inst_executed_op_ldgsts.sum".to_owned(),
    ];
    // Not collected: left out of the sum, which keeps its value; no throughput entry.
    let lookup = with_group("group:memory__chart", chart_metrics.clone());
    let (amount, throughput) = shared_link(&lookup);
    assert!(!amount.metric.contains(ldsm), "{}", amount.metric);
    assert_eq!(amount.value, Some(MetricValue::Uint64(4 * 500)));
    assert_eq!(throughput, None);
    // Collected but absent from the report: "N/A", as without any group.
    let mut listed = chart_metrics;
    listed.push(ldsm.to_owned());
    let lookup = with_group("group:memory__chart", listed);
    let (amount, _) = shared_link(&lookup);
    assert!(amount.metric.contains(ldsm));
    assert_eq!((amount.value, amount.text.as_str()), (None, "N/A"));
    // Without a group nothing is known of the version: the same "N/A", and every entry.
    let lookup = with_group("group:unused", Vec::new());
    let (amount, throughput) = shared_link(&lookup);
    assert_eq!(amount.value, None);
    assert!(throughput.is_some());
    // A table row of metrics not collected is no row; with them listed it is there.
    let ecc_row = |lookup: &dyn Fn(&str) -> Entry| {
        let (MemoryWidget::Table(table), _) = memory::build(
            "memory_l2_cache_table",
            Some(86),
            RowFilter::default(),
            lookup,
        )
        .unwrap() else {
            panic!("a table")
        };
        table.rows.iter().any(|r| r.label == "ECC Total")
    };
    let lookup = with_group(
        "group:memory__l2_cache_table",
        vec!["lts__t_sectors.sum".into()],
    );
    assert!(!ecc_row(&lookup));
    let lookup = with_group("group:memory__l2_cache_table", vec![ecc.to_owned()]);
    assert!(ecc_row(&lookup));
    let lookup = with_group("group:unused", Vec::new());
    assert!(ecc_row(&lookup));
}

/// A launch whose measurement failed holds no metric at all (2021.1's `trace`): every cell is
/// "N/A", and a cell whose metric changed its name across versions names the alternative the
/// report's version collected (its `group:memory__chart` list), not the newest one.
#[test]
fn a_failed_measurement_names_the_versions_metrics() {
    let listed = [
        "sass__inst_executed_shared_loads",
        "sass__inst_executed_shared_stores",
        "smsp__inst_executed_op_shared_atom.sum",
    ];
    let lookup = |name: &str| {
        let mut entry = synthetic_entry(name);
        if name == "group:memory__chart" {
            entry.value = Some(MetricValue::String(listed.join(",")));
        } else {
            entry.value = None;
            entry.text = "N/A".to_owned();
        }
        entry
    };
    let (MemoryWidget::Chart(chart), entries) =
        memory::build("memory_chart", Some(75), RowFilter::default(), &lookup).unwrap()
    else {
        panic!("a chart")
    };
    assert!(entries.iter().all(|e| e.value.is_none() && e.text == "N/A"));
    let link = chart
        .links
        .iter()
        .find(|l| l.from == "kernel" && l.to == "shared")
        .unwrap();
    assert_eq!(entries[link.amount].metric, listed.join(" + "));
}
