//! The Details model: sections resolved against real reports and fixtures.

use std::path::Path;

use crate::common::{self, corpus_pairs, fixtures};
use serde_json::Value;
use sightline::ncu::{MetricValue, Report};
use sightline::section::{
    ChartAxis, DetailsSection, Entry, Item, ItemKind, KernelDetails, SectionFolder, SectionSet,
    deploy_bundled_sections, resolve_action,
};

fn all_sections(page: &KernelDetails) -> Vec<&DetailsSection> {
    fn walk<'a>(s: &'a DetailsSection, out: &mut Vec<&'a DetailsSection>) {
        out.push(s);
        s.children.iter().for_each(|c| walk(c, out));
    }
    let mut out = Vec::new();
    page.sections.iter().for_each(|s| walk(s, &mut out));
    out
}

fn all_entries(section: &DetailsSection) -> Vec<&Entry> {
    fn items<'a>(item: &'a Item, out: &mut Vec<&'a Entry>) {
        out.extend(&item.entries);
        item.items.iter().for_each(|i| items(i, out));
    }
    let mut out: Vec<&Entry> = section.header.iter().collect();
    section.body.iter().for_each(|i| items(i, &mut out));
    out
}

fn json_of(value: &MetricValue) -> Value {
    match value {
        MetricValue::None => Value::Null,
        MetricValue::String(s) => Value::from(s.as_str()),
        MetricValue::Float(v) => common::json_of_f64(f64::from(*v)),
        MetricValue::Double(v) => common::json_of_f64(*v),
        MetricValue::Uint32(v) => Value::from(*v),
        MetricValue::Uint64(v) => Value::from(*v),
    }
}

/// The golden value an entry must show: the metric's value, or, for a cell that shows one
/// instance of an instanced metric (the NUMA and NVLink widgets: `instances` holds exactly that
/// instance), the golden instance with the same correlation id.
fn shown_golden_value(entry: &Entry, value: &MetricValue, golden_metric: &Value) -> Value {
    if let Some([(Some(id), instance)]) = entry.instances.as_deref()
        && instance == value
    {
        let id = json_of(id);
        let position = golden_metric["correlation_ids"]
            .as_array()
            .and_then(|ids| ids.iter().position(|g| *g == id));
        if let Some(position) = position {
            return golden_metric["instances"][position].clone();
        }
    }
    golden_metric["value"].clone()
}

/// Every embedded section of every corpus report appears on the Details page, and every value
/// shown equals the official reader's value of that metric.
#[test]
fn embedded_sections_resolve_to_golden_values() {
    for (report_path, golden_path) in corpus_pairs() {
        let report = Report::open(&report_path).unwrap();
        let golden = common::golden_json(&golden_path);
        let (mut shown, mut missing, mut derived) = (0, 0, 0);
        for (index, expected) in golden["ranges"][0]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let action = report.action(index).unwrap();
            let set = SectionSet::from_embedded(action.sections().unwrap());
            let page = resolve_action(&action, &set);
            let ids: Vec<&str> = all_sections(&page)
                .iter()
                .map(|s| s.identifier.as_str())
                .collect();
            for id in expected["sections"].as_array().unwrap() {
                let id = id.as_str().unwrap();
                let filtered = set.get(id).is_some_and(|s| s.section.filter.is_some());
                assert!(
                    ids.contains(&id) || filtered,
                    "{}: section {id} missing from the page",
                    report_path.display()
                );
            }
            for section in all_sections(&page) {
                for entry in all_entries(section) {
                    match (&entry.value, expected["metrics"].get(&entry.metric)) {
                        (Some(value), Some(golden_metric)) => {
                            assert_eq!(
                                json_of(value),
                                shown_golden_value(entry, value, golden_metric),
                                "{} {}",
                                report_path.display(),
                                entry.metric
                            );
                            shown += 1;
                        }
                        (Some(_), None) => {
                            assert!(
                                entry.derived,
                                "{}: {} has a value but is not in the report",
                                report_path.display(),
                                entry.metric
                            );
                            derived += 1;
                        }
                        (None, golden_metric) => {
                            assert!(
                                golden_metric.is_none(),
                                "{}: {} is in the report but shown N/A",
                                report_path.display(),
                                entry.metric
                            );
                            assert_eq!(entry.text, "N/A");
                            missing += 1;
                        }
                    }
                }
            }
        }
        eprintln!(
            "{}: {shown} values equal the golden, {derived} derived, {missing} N/A",
            report_path.display()
        );
    }
}

#[test]
fn bundled_sections_load_without_errors_and_resolve_on_the_sample() {
    let set = SectionSet::bundled();
    assert!(set.failures.is_empty(), "{:?}", set.diagnostics());
    assert!(
        set.sections.len() >= 10,
        "only {} bundled sections",
        set.sections.len()
    );
    for id in [
        "SpeedOfLight",
        "LaunchStats",
        "Occupancy",
        "MemoryWorkloadAnalysis",
        "WarpStateStats",
    ] {
        assert!(set.get(id).is_some(), "bundled section {id} missing");
    }
    let report = Report::open(fixtures().join("sample.ncu-rep")).unwrap();
    let page = resolve_action(&report.action(0).unwrap(), &set);
    let sol = page
        .sections
        .iter()
        .find(|s| s.identifier == "SpeedOfLight")
        .unwrap();
    let duration = sol
        .header
        .iter()
        .find(|e| e.metric == "gpu__time_duration.sum")
        .expect("duration entry");
    assert!(duration.value.is_some());
    assert!(duration.text.contains("second"), "{}", duration.text);
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

const CUSTOM: &str = r#"
Identifier: "Custom"
DisplayName: "Custom Section"
Order: 5
Header {
  Metrics { Label: "Duration" Name: "gpu__time_duration.sum" }
  Metrics { Label: "Missing" Name: "does__not_exist.sum" }
  Metrics { Label: "Old GPUs only" Name: "old__metric" Filter { MaxArch: CC_70 } }
  Metrics {
    Label: "Renamed"
    Name: "old__name"
    Options { Name: "sm__throughput.avg.pct_of_peak_sustained_elapsed" Filter { MinArch: CC_80 } }
  }
}
Body {
  Items { Table { Label: "Launch" Columns: 1 Metrics { Name: "regex:launch__occupancy_limit_.*" } } }
  Items { Filter { MaxArch: CC_70 } Table { Label: "Hidden" Columns: 1 Metrics { Name: "launch__grid_size" } } }
  Items { BarChart { Label: "Per SM" Metrics { Label: "Cycles" Name: "sm__cycles_elapsed.max" ShowInstances: true } } }
  Items { HorizontalContainer { Items { Table { Label: "Left" Columns: 1 Metrics { Name: "launch__block_size" } } } } }
}
MetricDefinitions {
  MetricDefinitions { Name: "custom__double_duration" Expression: "gpu__time_duration.sum * 2" }
}
"#;

const CHILD: &str = r#"
Identifier: "CustomChild"
DisplayName: "Custom Child"
Extends: "Custom"
Body { Items { Table { Label: "Derived" Columns: 1 Metrics { Name: "custom__double_duration" Unit: "ns" } } } }
"#;

/// Every item of `items`, containers opened.
fn flat_items(items: &[Item]) -> Vec<&Item> {
    items
        .iter()
        .flat_map(|item| std::iter::once(item).chain(flat_items(&item.items)))
        .collect()
}

#[test]
fn line_charts_carry_their_axes_and_the_kernels_own_value() {
    let set = SectionSet::bundled();
    let report = Report::open(fixtures().join("sample.ncu-rep")).unwrap();
    let page = resolve_action(&report.action(0).unwrap(), &set);
    let occupancy = page
        .sections
        .iter()
        .find(|s| s.identifier == "Occupancy")
        .expect("Occupancy section");
    let items = flat_items(&occupancy.body);
    let chart = items
        .iter()
        .find(|i| i.label == "Warps Per SM vs. Registers Per Thread")
        .expect("registers chart");
    let ItemKind::LineChart { axes, highlights } = &chart.kind else {
        panic!("a line chart, not {:?}", chart.kind);
    };
    assert_eq!(
        axes.x,
        ChartAxis {
            label: Some("Registers Per Thread".into()),
            min: Some(0.0),
            max: None
        }
    );
    assert_eq!(axes.y.label.as_deref(), Some("Resident Warps Per SM"));
    let highlight = &highlights[0];
    assert_eq!(highlight.metric, "launch__registers_per_thread");
    assert_eq!(highlight.label, "Current Registers Per Thread");
    assert!(highlight.value.is_some());
    // A bar chart's value axis is the horizontal one.
    let sol = page
        .sections
        .iter()
        .find(|s| s.identifier == "SpeedOfLight")
        .unwrap();
    let bars = flat_items(&sol.body)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::BarChart { .. }))
        .expect("bar chart");
    assert_eq!(
        bars.axes().expect("axes").x,
        ChartAxis {
            label: Some("Throughput [% of peak]".into()),
            min: Some(0.0),
            max: Some(100.0)
        }
    );
}

#[test]
fn options_filters_regex_extends_and_derived_metrics_resolve() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Custom.section", CUSTOM);
    write(dir.path(), "CustomChild.section", CHILD);
    let set = SectionSet::load_folders(&[SectionFolder {
        path: dir.path().to_path_buf(),
        recursive: false,
    }]);
    assert!(set.failures.is_empty(), "{:?}", set.diagnostics());
    let report = Report::open(fixtures().join("sample.ncu-rep")).unwrap();
    let action = report.action(0).unwrap();
    let page = resolve_action(&action, &set);
    assert_eq!(page.sections.len(), 1, "the child is nested in its parent");
    let custom = &page.sections[0];
    let labels: Vec<&str> = custom.header.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(
        labels,
        ["Duration", "Missing", "Renamed"],
        "CC 8.6: the MaxArch 7.0 entry is dropped"
    );
    assert_eq!(custom.header[1].text, "N/A");
    assert_eq!(custom.header[1].value, None);
    assert_eq!(
        custom.header[2].metric,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed"
    );
    let regex_table = &custom.body[0];
    let names: Vec<&str> = regex_table
        .entries
        .iter()
        .map(|e| e.metric.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "launch__occupancy_limit_blocks",
            "launch__occupancy_limit_registers",
            "launch__occupancy_limit_shared_mem",
            "launch__occupancy_limit_warps"
        ]
    );
    assert_eq!(custom.body.len(), 3, "the MaxArch 7.0 body item is dropped");
    let instances = custom.body[1].entries[0]
        .instances
        .as_ref()
        .expect("ShowInstances");
    assert_eq!(instances.len(), 46);
    assert_eq!(custom.body[2].kind, ItemKind::Container);
    assert_eq!(
        custom.body[2].items[0].entries[0].metric,
        "launch__block_size"
    );
    let child = &custom.children[0];
    assert_eq!(child.identifier, "CustomChild");
    let derived = &child.body[0].entries[0];
    assert!(derived.derived);
    let duration = action
        .metric("gpu__time_duration.sum")
        .unwrap()
        .value()
        .as_f64()
        .unwrap();
    assert_eq!(
        derived.value.as_ref().and_then(MetricValue::as_f64),
        Some(duration * 2.0)
    );
}

#[test]
fn duplicate_identifiers_keep_the_first_and_warn() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(a.path(), "Custom.section", CUSTOM);
    write(
        b.path(),
        "Other.section",
        &CUSTOM.replace("Custom Section", "Second Copy"),
    );
    let folders = [
        SectionFolder {
            path: a.path().to_path_buf(),
            recursive: false,
        },
        SectionFolder {
            path: b.path().to_path_buf(),
            recursive: false,
        },
    ];
    let set = SectionSet::load_folders(&folders);
    assert_eq!(set.sections.len(), 1);
    assert_eq!(set.sections[0].section.display_name, "Custom Section");
    assert_eq!(set.warnings.len(), 1);
    assert!(
        set.warnings[0].contains("duplicate section identifier \"Custom\""),
        "{}",
        set.warnings[0]
    );
    assert!(set.warnings[0].contains("Other.section"));
}

#[test]
fn recursive_folders_and_failed_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("nested")).unwrap();
    write(&dir.path().join("nested"), "Custom.section", CUSTOM);
    write(
        dir.path(),
        "Broken.section",
        "Identifier: \"Broken\"\nDisplayName: \"Broken\"\nHeader {\n",
    );
    let flat = SectionSet::load_folders(&[SectionFolder {
        path: dir.path().to_path_buf(),
        recursive: false,
    }]);
    assert!(flat.sections.is_empty());
    assert_eq!(flat.failures.len(), 1);
    assert!(
        flat.diagnostics()[0].contains("Broken.section:"),
        "{:?}",
        flat.diagnostics()
    );
    let deep = SectionSet::load_folders(&[SectionFolder {
        path: dir.path().to_path_buf(),
        recursive: true,
    }]);
    assert_eq!(deep.sections.len(), 1);
}

#[test]
fn deployment_writes_the_bundled_files_and_keeps_user_edits() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("sections");
    deploy_bundled_sections(&target).unwrap();
    let deployed = SectionSet::load_folders(&[SectionFolder {
        path: target.clone(),
        recursive: false,
    }]);
    assert_eq!(
        deployed.sections.len(),
        SectionSet::bundled().sections.len()
    );
    let sol = target.join("SpeedOfLight.section");
    let edited = std::fs::read_to_string(&sol).unwrap().replacen(
        "DisplayName: \"",
        "DisplayName: \"Edited ",
        1,
    );
    std::fs::write(&sol, &edited).unwrap();
    deploy_bundled_sections(&target).unwrap();
    assert_eq!(
        std::fs::read_to_string(&sol).unwrap(),
        edited,
        "a user's edit survives redeployment"
    );
}

#[test]
fn breakdown_labels_follow_the_template() {
    use sightline::section::breakdown_label;
    assert_eq!(
        breakdown_label(
            "{UNIT}: {COMPOUND_NAME}",
            "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed"
        ),
        "SM: Inst Executed Pipe Lsu"
    );
    assert_eq!(
        breakdown_label("{UNIT}: {COMPOUND_NAME}", "l1tex__data_bank_reads.avg"),
        "L1: Data Bank Reads"
    );
    assert_eq!(
        breakdown_label("{NAME}", "lts__t_sectors.avg"),
        "lts__t_sectors.avg"
    );
}

#[test]
fn breakdown_tables_expand_and_sort_by_value_on_the_full_set_report() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/ncu/reports/ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep");
    if !path.is_file() {
        crate::common::skip_shared("../shared/corpus is absent");
        return;
    }
    let report = sightline::ncu::Report::open(&path).unwrap();
    let action = report.action(0).unwrap();
    let set = sightline::section::SectionSet::from_embedded(action.sections().unwrap());
    let page = sightline::section::resolve_action(&action, &set);
    let sol = page
        .sections
        .iter()
        .find(|s| s.identifier == "SpeedOfLight")
        .unwrap();
    let mut tables = Vec::new();
    fn collect<'a>(
        items: &'a [sightline::section::Item],
        out: &mut Vec<&'a sightline::section::Item>,
    ) {
        for item in items {
            if item.label == "Compute Throughput Breakdown" {
                out.push(item);
            }
            collect(&item.items, out);
        }
    }
    collect(&sol.body, &mut tables);
    let table = tables.first().expect("the compute breakdown table");
    let breakdown = action
        .metric("breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed")
        .unwrap()
        .value();
    let sightline::ncu::MetricValue::String(list) = breakdown else {
        panic!("breakdown is a string")
    };
    assert_eq!(table.entries.len(), list.split(',').count());
    let values: Vec<f64> = table
        .entries
        .iter()
        .map(|e| e.value.as_ref().and_then(|v| v.as_f64()).unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
    for entry in &table.entries {
        let expected = action.metric(&entry.metric).unwrap().value();
        assert_eq!(entry.value.as_ref(), Some(&expected));
        assert!(entry.label.contains(": "), "{}", entry.label);
    }
}

/// A body item's `regex:` metric lists the metrics the report stored for it (the matches at
/// collection time), also when the pattern uses look-around the `regex` crate cannot compile:
/// smemTranspose's custom "L1 Level Miss stage to L2" tables
/// (`regex:^(?=.*l1tex)(?=.*m_)(?=.*lsu)(?!.*mem).*.sum$`). And a `SourceCounters` section's
/// `SourceMetrics` (2024.1) count among the section's own metrics (vec_add: "# Samples").
#[test]
fn stored_regex_matches_and_source_metrics_resolve() {
    let Some(corpus) = common::corpus_ncu() else {
        return;
    };
    let open = |name: &str| Report::open(corpus.join("reports").join(name)).unwrap();
    let report = open("ncu2023.1.0_rtx4090_smemTranspose.ncu-rep");
    let action = report.action(0).unwrap();
    let set = SectionSet::from_embedded(action.sections().unwrap());
    let page = resolve_action(&action, &set);
    let items: Vec<&Item> = page
        .sections
        .iter()
        .flat_map(|s| flat_items(&s.body))
        .filter(|i| i.label == "L1 Level Miss stage to L2")
        .collect();
    assert_eq!(items.len(), 2, "Load Metrics and Store Metrics");
    for item in items {
        let names: Vec<&str> = item.entries.iter().map(|e| e.metric.as_str()).collect();
        assert_eq!(
            names,
            [
                "l1tex__m_l1tex2xbar_write_bytes_pipe_lsu.sum",
                "l1tex__m_l1tex2xbar_write_sectors_pipe_lsu.sum",
                "l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum",
                "l1tex__m_xbar2l1tex_read_sectors_pipe_lsu.sum",
            ]
        );
        assert!(item.entries.iter().all(|e| e.value.is_some()));
    }

    let report = open("ncu2024.1.1_gtx1660s_vec_add_full.ncu-rep");
    let action = report.action(0).unwrap();
    let set = SectionSet::from_embedded(action.sections().unwrap());
    let page = resolve_action(&action, &set);
    let counters = all_sections(&page)
        .into_iter()
        .find(|s| s.identifier == "SourceCounters")
        .unwrap();
    let samples = counters
        .metrics
        .iter()
        .find(|e| e.metric == "smsp__pcsamp_sample_count")
        .expect("# Samples among the section's own metrics");
    assert_eq!(samples.label, "# Samples");
    assert!(
        counters
            .metrics
            .iter()
            .any(|e| e.metric == "gpc__cycles_elapsed.max")
    );
}
