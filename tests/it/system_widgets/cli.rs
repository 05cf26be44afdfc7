//! `details --json`, CSV and text of the system widgets on the corpus.

use std::path::Path;
use std::process::Command;

use super::*;

fn sightline(args: &[&str], report: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(args)
        .arg(report)
        .output()
        .expect("run sightline");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `details --json` of the NUMA ID table: its first cell is the golden's first instance.
fn check_numa_json(numa: &Value, metrics: &Value) {
    assert_eq!(numa["label"], "NUMA ID Table");
    assert_eq!(numa["columns"][1], "CPU Affinity");
    let cell = &numa["rows"][0]["cells"][1];
    assert_eq!(cell["metric"], "numa__cpu_affinity");
    assert_eq!(cell["value"], metrics["numa__cpu_affinity"]["instances"][0]);
    assert_eq!(cell["correlation_ids"][0], 0);
}

/// `details --json` of the NVLink tables: one property row per logical link or the no-links
/// state, and an "All Links" throughput row exactly when the report holds the throughput.
fn check_nvlink_tables_json(where_: &str, properties: &Value, throughput: &Value, metrics: &Value) {
    assert_eq!(properties["label"], "Logical NVLink Properties");
    let count = &metrics["nvlink__count_logical"]["value"];
    if count.as_f64() == Some(0.0) {
        assert_eq!(properties["empty"]["metric"]["value"], *count);
    } else {
        // One row per logical link (28 on an H800).
        assert!(properties["empty"].is_null(), "{where_}");
        assert_eq!(
            properties["rows"].as_array().map(Vec::len),
            count.as_f64().map(|n| n as usize),
            "{where_}"
        );
    }
    let rows = throughput["rows"].as_array().unwrap();
    let all = rows.iter().find(|r| r["label"] == "All Links");
    let received = &metrics["nvlrx__bytes.sum.per_second"];
    if received.is_null() && metrics["nvltx__bytes.sum.per_second"].is_null() {
        // 2021.x collected no NVLink throughput: no row of N/A cells.
        assert!(all.is_none(), "{where_}: {all:?}");
        return;
    }
    let all = all.unwrap_or_else(|| panic!("{where_}: no All Links row"));
    assert!(std::ptr::eq(all, rows.last().unwrap()), "{where_}");
    assert_eq!(all["cells"][0]["metric"], "nvlrx__bytes.sum.per_second");
    assert_eq!(all["cells"][0]["value"], received["value"]);
}

/// `details --json` of the PM sampling timeline: every series has the golden's samples; the
/// first sampled one is checked in detail, and the timeline starts at the earliest sample.
fn check_timeline_json(timeline: &Value, metrics: &Value) {
    let groups: Vec<&str> = timeline["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["label"].as_str())
        .collect();
    assert!(!groups.is_empty());
    let all_series: Vec<&Value> = timeline["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rows"].as_array().unwrap())
        .flat_map(|r| r["series"].as_array().unwrap())
        .collect();
    for series in &all_series {
        let name = series["metric"]["metric"].as_str().unwrap();
        let golden = metrics[name]["instances"].as_array().map_or(0, Vec::len);
        assert_eq!(
            series["samples"].as_array().unwrap().len(),
            golden,
            "{name}"
        );
    }
    let series = all_series
        .iter()
        .find(|s| !s["samples"].as_array().unwrap().is_empty())
        .expect("a sampled series");
    let name = series["metric"]["metric"].as_str().unwrap();
    let golden = &metrics[name];
    let samples = series["samples"].as_array().unwrap();
    assert_eq!(samples[0][0], golden["correlation_ids"][0]);
    let earliest = all_series
        .iter()
        .filter_map(|s| s["samples"][0][0].as_u64())
        .min();
    assert_eq!(timeline["start_ns"].as_u64(), earliest);
    assert!(timeline["items"].as_array().unwrap().is_empty());
}

/// `details --json`: each widget of the report's sections is an item of its own kind with its
/// layout and entries, and no widget appears whose section the report lacks (2021.x reports
/// carry only the NVLink sections); the CSV lists every cell as an entry row; the text shows
/// the grids and the no-links state.
#[test]
fn cli_json_csv_and_text() {
    let reports = system_reports();
    if reports.is_empty() {
        crate::common::skip_shared("no corpus report with system widgets (../shared) found");
        return;
    }
    for (path, golden) in &reports {
        let action = &golden["ranges"][0]["actions"][0];
        let metrics = &action["metrics"];
        let sections = sections_of(action);
        let holds = |section: &str| sections.contains(&section);
        // Values are raw as NVIDIA's reader gives them: NaN as Python's JSON writes it.
        let json =
            common::python_json(&sightline(&["details", "--json", "--kernel", "0"], path)).unwrap();
        let items = common::details::json_body_items(&json);
        // The widget of kind `kind` exactly when the report has its section.
        let find = |kind: &str, section: &str| {
            let found = items.iter().find(|i| i["kind"] == kind).copied();
            assert_eq!(
                found.is_some(),
                holds(section),
                "{}: {kind}",
                path.display()
            );
            found
        };
        if let Some(numa) = find("numa_id_table", "NumaAffinity") {
            check_numa_json(numa, metrics);
        }
        let properties = find("nvlink_property_table", "Nvlink_Tables");
        let throughput = find("nvlink_throughput_table", "Nvlink_Tables");
        if let (Some(properties), Some(throughput)) = (properties, throughput) {
            let where_ = path.display().to_string();
            check_nvlink_tables_json(&where_, properties, throughput, metrics);
        }
        if let Some(topology) = find("nvlink_topology", "Nvlink_Topology") {
            assert_eq!(
                topology["devices"][0]["name"]["value"],
                metrics["nvlink__dev_display_name_all"]["instances"][0]
            );
            assert_eq!(topology["summary"][0]["metric"], "nvlink__count_logical");
        }
        if let Some(timeline) = find("timeline", "PmSampling") {
            check_timeline_json(timeline, metrics);
        }

        let csv = sightline(
            &["details", "--format", "sightline-csv", "--kernel", "0"],
            path,
        );
        let numa_rows = csv
            .lines()
            .any(|l| l.contains("NUMA ID Table") && l.contains("numa__cpu_affinity"));
        assert_eq!(numa_rows, holds("NumaAffinity"), "{}", path.display());
        let text = sightline(&["details", "--kernel", "0"], path);
        let count = &metrics["nvlink__count_logical"]["value"];
        if count.as_f64() == Some(0.0) && sections.iter().any(|s| s.starts_with("Nvlink_")) {
            assert!(text.contains("No NVLink links: nvlink__count_logical = 0"));
        }
        assert_eq!(
            text.contains("CPU Affinity"),
            holds("NumaAffinity"),
            "{}",
            path.display()
        );
    }
}
