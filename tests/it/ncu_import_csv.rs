//! `sightline session|details|raw|summary --csv` equal NVIDIA's `ncu --import` CSV pages
//! (Nsight Compute 2024.1.1, `../shared/corpus/ncu/cli-oracle/<report>/`) byte for byte.
//!
//! The test walks every corpus report of the MANIFEST and every line of its `STATUS.tsv`:
//! each `session*`, `details*.csv`, `raw*` and `summary*` file whose status is `ok` has its
//! `ncu` options mapped to Sightline's flags ([`sightline_args`]; options Sightline cannot
//! express fail the test), is produced in-process and compared with the oracle's bytes.
//! Files that are known to differ are listed in [`KNOWN_DIFFERENCES`] with the reason; the
//! test fails when an unlisted file differs and also when a listed one has come to match (so
//! the list only shrinks).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use sightline::cli;

use crate::common;

/// Files known to differ from the oracle: `(report, file, reason)`. Empty since the details
/// page resolves units in the order it prints (manual_nvtx's `no_instructions` stall samples
/// in `warp`: `derived_and_stall_units_follow_the_entries_printed_before`).
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[];

#[derive(Parser)]
struct SessionCmd {
    #[command(flatten)]
    args: cli::session::SessionArgs,
}

#[derive(Parser)]
struct DetailsCmd {
    #[command(flatten)]
    args: cli::details::DetailsArgs,
}

#[derive(Parser)]
struct SummaryCmd {
    #[command(flatten)]
    args: cli::summary::SummaryArgs,
}

#[derive(Parser)]
struct RawCmd {
    #[command(flatten)]
    args: cli::raw::RawArgs,
}

/// A Sightline command line for the `ncu --import R` options of an oracle file, or why it has
/// none.
fn sightline_args(options: &str) -> Result<(&'static str, Vec<String>), String> {
    let words: Vec<&str> = options.split_whitespace().collect();
    let mut page = None;
    let mut flags: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let value = words.get(i + 1).copied();
        match (words[i], value) {
            ("--page", Some(p)) => {
                page = Some(p);
                i += 1;
            }
            ("--csv", _) => flags.push("--csv".to_owned()),
            (
                flag @ ("--print-units"
                | "--print-metric-instances"
                | "--print-details"
                | "--print-metric-name"
                | "--print-nvtx-rename"
                | "--print-summary"),
                Some(v),
            ) => {
                flags.push(flag.to_owned());
                flags.push(v.to_owned());
                i += 1;
            }
            (other, _) => return Err(format!("option {other} has no Sightline equivalent")),
        }
        i += 1;
    }
    match page {
        Some("session") => Ok(("session", flags)),
        Some("details") if flags.iter().any(|f| f == "--print-summary") => {
            let mut out = Vec::new();
            let mut rest = flags.iter();
            while let Some(flag) = rest.next() {
                if flag == "--print-summary" {
                    let per = rest.next().map(String::as_str).unwrap_or_default();
                    out.push("--per".to_owned());
                    out.push(per.trim_start_matches("per-").to_owned());
                } else {
                    out.push(flag.clone());
                }
            }
            Ok(("summary", out))
        }
        Some("raw") => Ok(("raw", flags)),
        Some("details") => Ok(("details", flags)),
        Some(other) => Err(format!("page {other} is not implemented")),
        None => Err("no --page".to_owned()),
    }
}

fn run_sightline(command: &str, report: &Path, flags: &[String]) -> Vec<u8> {
    let mut argv = vec!["sightline".to_owned(), report.display().to_string()];
    argv.extend(flags.iter().cloned());
    let mut out = Vec::new();
    match command {
        "session" => {
            let cmd = SessionCmd::try_parse_from(&argv).unwrap();
            cli::session::run(&cmd.args, &mut out).unwrap();
        }
        "details" => {
            let cmd = DetailsCmd::try_parse_from(&argv).unwrap();
            cli::details::run(&cmd.args, &mut out).unwrap();
        }
        "summary" => {
            let cmd = SummaryCmd::try_parse_from(&argv).unwrap();
            cli::summary::run(&cmd.args, &mut out).unwrap();
        }
        "raw" => {
            let cmd = RawCmd::try_parse_from(&argv).unwrap();
            cli::raw::run(&cmd.args, &mut out).unwrap();
        }
        other => panic!("no command {other}"),
    }
    out
}

/// The reports of the corpus MANIFEST.
fn manifest_reports(corpus: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(corpus.join("reports/MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| !f.is_empty())
        .map(|f| corpus.join("reports").join(f))
        .collect()
}

/// Whether `file` is one of the pages this test covers.
fn covered(file: &str) -> bool {
    file.starts_with("session")
        || (file.starts_with("details") && file.ends_with(".csv"))
        || file.starts_with("raw")
        || file.starts_with("summary")
}

/// The first line where `ours` and `theirs` differ, for the failure message.
fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    let ours = String::from_utf8_lossy(ours);
    let theirs = String::from_utf8_lossy(theirs);
    for (n, (a, b)) in ours.split('\n').zip(theirs.split('\n')).enumerate() {
        if a != b {
            let cut = |s: &str| s.chars().take(300).collect::<String>();
            return format!(
                "line {}:\n  ours:   {}\n  ncu:    {}",
                n + 1,
                cut(a),
                cut(b)
            );
        }
    }
    format!(
        "lengths differ: {} lines vs {} lines",
        ours.split('\n').count(),
        theirs.split('\n').count()
    )
}

fn known_difference(report: &str, file: &str) -> Option<&'static str> {
    KNOWN_DIFFERENCES
        .iter()
        .find(|(r, f, _)| *r == report && *f == file)
        .map(|(_, _, why)| *why)
}

#[test]
fn csv_pages_equal_the_cli_oracle() {
    let Some(corpus) = common::corpus_ncu() else {
        return;
    };
    let oracle = corpus.join("cli-oracle");
    if !oracle.is_dir() {
        common::skip_shared(format!("{} not found", oracle.display()));
        return;
    }
    let mut equal: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut known = 0;
    for report in manifest_reports(&corpus) {
        let stem = report.file_stem().unwrap().to_string_lossy().into_owned();
        let status = oracle.join(&stem).join("STATUS.tsv");
        let text = std::fs::read_to_string(&status)
            .unwrap_or_else(|e| panic!("{}: {e}", status.display()));
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split('\t').collect();
            let [file, state, options, ..] = fields[..] else {
                panic!("{}: malformed line {line:?}", status.display());
            };
            if state != "ok" || !covered(file) {
                continue;
            }
            let expected = std::fs::read(oracle.join(&stem).join(file)).unwrap();
            let verdict = match sightline_args(options) {
                Err(why) => Err(format!("{options}: {why}")),
                Ok((command, flags)) => {
                    let ours = run_sightline(command, &report, &flags);
                    if ours == expected {
                        Ok(())
                    } else {
                        Err(first_difference(&ours, &expected))
                    }
                }
            };
            let kind = file.trim_end_matches(".csv").to_owned();
            match (verdict, known_difference(&stem, file)) {
                (Ok(()), None) => *equal.entry(kind).or_default() += 1,
                (Ok(()), Some(_)) => failures.push(format!(
                    "{stem}/{file}: now equal: remove it from KNOWN_DIFFERENCES"
                )),
                (Err(_), Some(_)) => known += 1,
                (Err(diff), None) => failures.push(format!("{stem}/{file}: {diff}")),
            }
        }
    }
    eprintln!("equal to the oracle: {equal:?}; known differences: {known}");
    assert!(
        failures.is_empty(),
        "{} file(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A page of a fixture as text.
fn page(command: &str, fixture: &str, flags: &[&str]) -> String {
    let path = common::fixtures().join(fixture);
    let flags: Vec<String> = flags.iter().map(|f| (*f).to_owned()).collect();
    String::from_utf8(run_sightline(command, &path, &flags)).unwrap()
}

/// The cells of one CSV line in NVIDIA's dialect (fields wrapped in `"`, quotes inside never
/// doubled: split on `","`).
fn cells(line: &str) -> Vec<&str> {
    let line = line.strip_suffix(',').unwrap_or(line);
    let line = line.strip_prefix('"').unwrap_or(line);
    let line = line.strip_suffix('"').unwrap_or(line);
    line.split("\",\"").collect()
}

/// The raw page's column `name`: its unit and its values, one per kernel.
fn raw_column(text: &str, name: &str) -> (String, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let header = cells(lines[0]);
    let i = header.iter().position(|h| *h == name).unwrap();
    let unit = cells(lines[1])[i].to_owned();
    let values = lines[2..].iter().map(|l| cells(l)[i].to_owned()).collect();
    (unit, values)
}

#[test]
fn raw_page_scales_each_column_by_its_largest_value() {
    let auto = page("raw", "sample.ncu-rep", &["--csv"]);
    // 8388608 .. 33554432 bytes: the whole column in Mbyte, 6 decimals, no separators.
    let (unit, values) = raw_column(&auto, "dram__bytes_read.sum");
    assert_eq!(unit, "Mbyte");
    assert_eq!(values[0], "8.388608");
    assert_eq!(values[1], "33.554432");
    // A rate of cycles scales its time denominator: 1.5e9 cycle/second = 1.5 cycle/nsecond.
    let (unit, values) = raw_column(&auto, "smsp__cycles_elapsed.avg.per_second");
    assert_eq!(unit, "cycle/nsecond");
    assert!(values[0].starts_with("1.50") && values[0].len() == "1.503871".len());
    // Bytes per second scale their numerator.
    assert_eq!(
        raw_column(&auto, "dram__bytes.sum.per_second").0,
        "Gbyte/second"
    );
    assert_eq!(raw_column(&auto, "gpu__time_duration.sum").0, "usecond");
    // Integers with a unit print with 6 decimals, without thousands separators; a percentage
    // never scales; a metric without a unit prints integers plainly, doubles with 2 decimals.
    assert_eq!(
        raw_column(&auto, "launch__thread_count").1[0],
        "1048576.000000"
    );
    assert_eq!(
        raw_column(&auto, "sm__maximum_warps_per_active_cycle_pct").0,
        "%"
    );
    assert_eq!(raw_column(&auto, "launch__grid_size").1[0], "4096");
    assert!(!auto.lines().skip(2).any(|l| cells(l).iter().any(|c| {
        c.bytes()
            .all(|b| b.is_ascii_digit() || b == b',' || b == b'.')
            && c.contains(',')
    })));

    let base = page("raw", "sample.ncu-rep", &["--csv", "--print-units", "base"]);
    let (unit, values) = raw_column(&base, "dram__bytes_read.sum");
    assert_eq!((unit.as_str(), values[0].as_str()), ("byte", "8388608"));
    assert_eq!(raw_column(&base, "gpu__time_duration.sum").0, "nsecond");
    assert_eq!(
        raw_column(&base, "smsp__cycles_elapsed.avg.per_second").0,
        "cycle/second"
    );
    // An integral double prints without decimals in base units.
    assert_eq!(
        raw_column(&base, "sm__maximum_warps_per_active_cycle_pct").1[0],
        "100"
    );
}

#[test]
fn raw_page_quotes_without_doubling_and_marks_empty_metrics() {
    let text = page("raw", "value_kinds.ncu-rep", &["--csv"]);
    // The string metric `héllo "world"\n` is written as it is inside its quotes.
    assert!(text.contains(",\"héllo \"world\"\n\","), "{text}");
    let header = cells(text.lines().next().unwrap());
    assert!(header.contains(&"empty__metric"));
    assert!(text.contains("\"no data\""));
    // Instances of a metric without a unit: values, then correlation ids (`both__uint64`).
    let values = page(
        "raw",
        "value_kinds.ncu-rep",
        &["--csv", "--print-metric-instances", "values"],
    );
    let details = page(
        "raw",
        "value_kinds.ncu-rep",
        &["--csv", "--print-metric-instances", "details"],
    );
    assert_ne!(values, details);
    // (Cells looked up by text: a string metric of this fixture holds a newline.)
    assert!(values.contains("\"42 (40; 2)\""), "{values}");
    assert!(
        details.contains("\"42 (3735928559: 40; 65261: 2)\""),
        "{details}"
    );
    // A metric with a unit prints its aggregate only, as the CLI does (`sm__cycles_elapsed.max`
    // of sample.ncu-rep has instances).
    let sample = page(
        "raw",
        "sample.ncu-rep",
        &["--csv", "--print-metric-instances", "details"],
    );
    let (unit, cycles) = raw_column(&sample, "sm__cycles_elapsed.max");
    assert_eq!(unit, "cycle");
    assert!(!cycles[0].contains('('), "{}", cycles[0]);
    // SASS-patched metrics print their PCs in hex, the others in decimal.
    assert!(sightline::ncu::pages::hex_correlation_ids(
        "memory_access_type"
    ));
    assert!(sightline::ncu::pages::hex_correlation_ids(
        "smsp__sass_inst_executed_memdesc_explicit_evict_type"
    ));
    assert!(!sightline::ncu::pages::hex_correlation_ids(
        "smsp__pcsamp_sample_count"
    ));
}

#[test]
fn details_page_rows_and_rule_rows() {
    let text = page("details", "sample.ncu-rep", &["--csv"]);
    let mut lines = text.lines();
    let header = cells(lines.next().unwrap());
    assert_eq!(
        &header[header.len() - 5..],
        [
            "Rule Name",
            "Rule Type",
            "Rule Description",
            "Estimated Speedup Type",
            "Estimated Speedup"
        ]
    );
    let rows: Vec<&str> = lines.collect();
    // Metric rows carry no rule columns and end with a trailing comma.
    let metric_rows: Vec<&&str> = rows.iter().filter(|l| l.ends_with(',')).collect();
    assert!(!metric_rows.is_empty());
    for row in &metric_rows {
        assert_eq!(cells(row).len(), header.len() - 5, "{row}");
    }
    // Rule rows name the section by identifier and have empty metric columns.
    let rule_rows: Vec<Vec<&str>> = rows
        .iter()
        .filter(|l| !l.ends_with(','))
        .map(|l| cells(l))
        .collect();
    assert!(!rule_rows.is_empty());
    for row in &rule_rows {
        assert_eq!(row.len(), header.len());
        assert!(["OPT", "WRN", "ERR", "INF", ""].contains(&row[header.len() - 4]));
        assert!(!row[header.len() - 3].contains('@'), "markup left: {row:?}");
    }
    // Base units: durations in nsecond, no scaling.
    let base = page(
        "details",
        "sample.ncu-rep",
        &["--csv", "--print-units", "base"],
    );
    assert!(base.contains("\"nsecond\""));
    assert!(!base.contains("\"usecond\""));
}

#[test]
fn session_page_tables() {
    let text = page("session", "sample.ncu-rep", &["--csv"]);
    let titles: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('"') && !l.is_empty())
        .collect();
    assert_eq!(
        titles,
        [
            "Launch Settings",
            "Session Info",
            "Processes",
            "Device Attributes"
        ]
    );
    assert!(text.contains("\"Created\",\"2023-Nov-14 22:13:20\"\n"));
    assert!(!text.ends_with("\n\n"));
}

#[test]
fn raw_summary_lists_device_attributes_then_metrics_per_kernel() {
    let text = page(
        "raw",
        "sample.ncu-rep",
        &["--csv", "--print-summary", "per-kernel"],
    );
    let mut lines = text.lines();
    assert_eq!(
        cells(lines.next().unwrap()),
        [
            "Process ID",
            "Process Name",
            "Host Name",
            "Kernel Name",
            "Block Size",
            "Grid Size",
            "Device",
            "CC",
            "Invocations",
            "Metric Name",
            "Metric Unit",
            "Minimum",
            "Maximum",
            "Average"
        ]
    );
    let rows: Vec<Vec<&str>> = lines.map(cells).collect();
    // Per kernel: the device attributes first, then the other metrics, each sorted by name.
    let kernel = rows[0][3];
    let names: Vec<&str> = rows
        .iter()
        .filter(|r| r[3] == kernel)
        .map(|r| r[9])
        .collect();
    let split = names
        .iter()
        .position(|n| !n.starts_with("device__attribute_"))
        .unwrap();
    assert!(split > 0);
    assert!(names[..split].is_sorted() && names[split..].is_sorted());
    // A device attribute prints its value as the average, strings too.
    let display = rows
        .iter()
        .find(|r| r[9] == "device__attribute_display_name")
        .unwrap();
    assert_eq!(&display[10..], ["", "", "", "Sightline Synthetic GPU"]);
    // Numbers with 6 decimals in the raw page's unit, metrics without a unit too.
    let grid = rows.iter().find(|r| r[9] == "launch__grid_size").unwrap();
    assert_eq!(
        &grid[10..],
        ["", "1024.000000", "1024.000000", "1024.000000"]
    );
    let dram = rows
        .iter()
        .find(|r| r[3] == kernel && r[9] == "dram__bytes_read.sum")
        .unwrap();
    assert_eq!(dram[10], "Mbyte");
    // No pseudo-metrics and no string metrics but the device attributes.
    assert!(!rows.iter().any(|r| r[9].contains(':')));
    assert!(!rows.iter().any(|r| r[9] == "launch__func_cache_config"));
}

/// The derived FMA counts are in `thread` after a column in `thread` and in `inst` otherwise
/// (`sightline_model::ncu::pages::resolved`): two fixtures that differ in one metric
/// (`derived__avg_thread_executed`), each page equal to what NVIDIA's 2024.1 CLI printed for
/// it (`fixtures/golden/cli/`).
#[test]
fn derived_fma_units_follow_the_columns_before_them() {
    for (fixture, unit) in [
        ("derived_units_inst.ncu-rep", "inst"),
        ("derived_units_thread.ncu-rep", "thread"),
    ] {
        for (file, flags) in [
            ("raw.csv", &["--csv"][..]),
            ("raw-base.csv", &["--csv", "--print-units", "base"][..]),
        ] {
            let golden = common::fixtures()
                .join("golden/cli")
                .join(format!("{fixture}.{file}"));
            let expected = std::fs::read_to_string(&golden)
                .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
            let ours = page("raw", fixture, flags);
            assert_eq!(ours, expected, "{fixture}: {file}");
            for column in [
                "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
                "derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2",
            ] {
                assert_eq!(raw_column(&ours, column).0, unit, "{fixture}: {column}");
            }
        }
    }
}

/// The pages of a fixture kept with NVIDIA's CLI output (`fixtures/golden/cli/FIXTURE.FILE`):
/// `(file, command, flags)` as `run.sh` of the CLI oracle names and makes them.
const GOLDEN_PAGES: &[(&str, &str, &[&str])] = &[
    ("details.csv", "details", &["--csv"]),
    (
        "details-all.csv",
        "details",
        &["--csv", "--print-details", "all"],
    ),
    (
        "details-all-base.csv",
        "details",
        &["--csv", "--print-details", "all", "--print-units", "base"],
    ),
    ("raw.csv", "raw", &["--csv"]),
    ("raw-base.csv", "raw", &["--csv", "--print-units", "base"]),
    ("summary.csv", "summary", &["--csv", "--per", "kernel"]),
    ("summary-per-gpu.csv", "summary", &["--csv", "--per", "gpu"]),
    (
        "summary-raw.csv",
        "raw",
        &["--csv", "--print-summary", "per-kernel"],
    ),
];

/// The pages kept for the `details_units` fixtures (the CLI's summaries crash on them with
/// SIGSEGV, as on sglang and raytracer).
const DETAILS_UNITS_PAGES: &[&str] = &[
    "details.csv",
    "details-all.csv",
    "details-all-base.csv",
    "raw.csv",
    "raw-base.csv",
];

/// `fixture`'s page `file` (one of [`GOLDEN_PAGES`]) compared byte for byte with the CLI's.
fn assert_golden_page(fixture: &str, file: &str) -> String {
    let (_, command, flags) = GOLDEN_PAGES
        .iter()
        .find(|(f, _, _)| *f == file)
        .unwrap_or_else(|| panic!("no golden page {file}"));
    let golden = common::fixtures()
        .join("golden/cli")
        .join(format!("{fixture}.{file}"));
    let expected =
        std::fs::read_to_string(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
    let ours = page(command, fixture, flags);
    assert_eq!(ours, expected, "{fixture}: {file}");
    ours
}

/// The `Metric Unit` of the details page's rows labelled `label`.
fn details_units(text: &str, label: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let header = cells(lines[0]);
    let name = header.iter().position(|h| *h == "Metric Name").unwrap();
    lines[1..]
        .iter()
        .map(|l| cells(l))
        .filter(|c| c.get(name) == Some(&label))
        .map(|c| c[name + 1].to_owned())
        .collect()
}

/// The details page resolves units in the order it prints, as the raw page does in column
/// order: the `no_instructions` stall samples (two unit words, `warp` and `inst`) are in `inst`
/// after an entry in `inst` and in `warp` otherwise (manual_nvtx's details-all.csv); a derived
/// FMA count after `launch__thread_count` (`thread`) is in `thread` there, while the raw page,
/// where it sorts before `launch__thread_count`, says `inst`. Two fixtures that differ in one
/// section printed first, each page equal to NVIDIA's 2024.1 CLI's (`fixtures/golden/cli/`).
#[test]
fn derived_and_stall_units_follow_the_entries_printed_before() {
    for (fixture, stall, fma) in [
        ("details_units_inst.ncu-rep", "inst", "inst"),
        ("details_units_warp.ncu-rep", "warp", "thread"),
    ] {
        for file in DETAILS_UNITS_PAGES {
            assert_golden_page(fixture, file);
        }
        let details = page("details", fixture, &["--csv"]);
        assert_eq!(details_units(&details, "No Instructions"), [stall]);
        assert_eq!(
            details_units(&details, "No Instructions (Not Issued)"),
            [stall]
        );
        assert_eq!(details_units(&details, "Barrier"), ["warp"]);
        assert_eq!(details_units(&details, "FFMA Thread Instructions"), [fma]);
        let raw = page("raw", fixture, &["--csv"]);
        assert_eq!(
            raw_column(
                &raw,
                "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2"
            )
            .0,
            "inst"
        );
    }
}

/// OpenACC and OpenMP-offload kernels (`main_24_gpu`, `__pgi_uacc_cuda_fill_42_gpu`,
/// `nvkernel_solve_F1L204_2`, C++ forms, with and without a stored demangled name): the CLI's
/// details, raw and summary pages print their names as stored, the demangled name or else the
/// mangled one, `_gpu` and all, and the summaries sort them bytewise (`_Z4mainv_31_gpu` before
/// `__nv_static_...`, `main_24_gpu` before `main_9_gpu`). Every page equal to NVIDIA's 2024.1
/// CLI's (`fixtures/golden/cli/offload_names.ncu-rep.*`).
#[test]
fn offload_kernel_names_print_as_stored() {
    let fixture = "offload_names.ncu-rep";
    for (file, ..) in GOLDEN_PAGES
        .iter()
        .filter(|(f, ..)| *f != "details-all-base.csv")
    {
        assert_golden_page(fixture, file);
    }
    let raw = page("raw", fixture, &["--csv"]);
    let names: Vec<String> = raw
        .lines()
        .skip(2)
        .map(|l| cells(l)[4].to_owned())
        .collect();
    let stored: Vec<String> = sightline_test_support::ncu::synth_names::OFFLOAD_NAMES
        .iter()
        .map(|(_, mangled, demangled)| {
            if demangled.is_empty() {
                mangled
            } else {
                demangled
            }
            .to_string()
        })
        .collect();
    assert_eq!(names, stored);
}
