//! Held-out scripts (`tests/python/holdout/`) on held-out reports: user scripts written only
//! from the Nsight Compute documentation of the Python Report Interface and NVIDIA's
//! docstrings, before Sightline's implementation was read, run with Sightline's `ncu_report`
//! and NVIDIA's on reports no test was tuned on (`sightline_test_support::ncu::holdout`,
//! written by Sightline's writer at test time into `target/tmp/python-holdout/`). Both must
//! print the same text, byte for byte, and exit with the same status.
//!
//! NVIDIA's module is found and its outputs kept as in `python_oracle` (no `../shared` is
//! needed: without NVIDIA's module the test skips with a message, as the other oracle tests
//! do). Explained, not removed: NVIDIA's module finds no metric library for reports of
//! Sightline's writer (see [`normalize`]), so units, metric types and descriptions are left out
//! of the comparison (descriptions are compared on the corpus: `python_descriptions`); and it
//! reads no result from the writer's source report (`holdout_source.ncu-rep`, kept for the
//! model's checks), so the source scripts run on the other two, which have no cubin (their
//! `source_info`/`ptx_by_pc` answers, None and "", are compared).

use std::path::{Path, PathBuf};

use sightline_test_support::ncu::holdout::write_holdout;

use crate::python_descriptions::with_ncu;
use crate::python_module::{python_command, root, site};
use crate::python_oracle::{nvidia_output_and_status, oracle_python, with_status};

/// The held-out reports, written (again: the writer is deterministic) into the target folder.
fn reports() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-holdout");
    std::fs::create_dir_all(&dir).expect("target tmp dir");
    write_holdout(&dir).expect("held-out reports written")
}

/// Each script with the reports it runs on (`train` and `v2`: the held-out reports NVIDIA's
/// module reads results from; it reads none from `holdout_source.ncu-rep`, see the module's
/// documentation).
fn runs(train: &str, v2: &str, sass: bool) -> Vec<(&'static str, Vec<String>)> {
    let all = [train, v2];
    let mut runs = Vec::new();
    // First: its output gives the units Sightline infers (see `normalize`).
    for script in [
        "metric_attributes.py",
        "kernel_table.py",
        "ci_gate.py",
        "nvtx_filter.py",
        "instances.py",
        "containers.py",
        "sections_rules.py",
    ] {
        for report in all {
            runs.push((script, vec![report.to_owned()]));
        }
    }
    runs.push(("compare_reports.py", vec![train.to_owned(), v2.to_owned()]));
    runs.push(("compare_reports.py", vec![v2.to_owned(), train.to_owned()]));
    for report in all {
        let mut args = vec![report.to_owned()];
        if sass {
            args.push("--sass".to_owned());
        }
        runs.push(("source_view.py", args));
    }
    runs
}

/// The units in a `metric_attributes.py` output (`unit='…'`), longest first.
fn units_in(text: &str) -> Vec<String> {
    let mut units: Vec<String> = text
        .split("unit='")
        .skip(1)
        .filter_map(|rest| rest.split_once('\'').map(|(u, _)| u.to_owned()))
        .filter(|u| !u.is_empty())
        .collect();
    units.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    units.dedup();
    units
}

/// `text` without what NVIDIA's module cannot give on reports of Sightline's writer. It finds
/// no metric library for them (whatever chip and version entries their session and results
/// carry: tried), so it gives every metric an empty unit, the type OTHER and no description,
/// where Sightline infers units and types from the names (as it does, equal to NVIDIA's, on
/// every corpus report: `python_module`, `python_oracle`). Applied alike to both outputs: each
/// of `units` after a space (or in brackets) and in `unit='…'` is removed, types read OTHER,
/// the lines that only count or select by type (`types:`, `filter:` of `metric_attributes.py`)
/// are left out, and runs of spaces read as one.
fn normalize(text: &str, units: &[String]) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("types: ") || line.starts_with("filter: ") {
            continue;
        }
        let mut line = line.to_owned();
        for kind in ["COUNTER", "RATIO", "THROUGHPUT"] {
            line = line.replace(&format!("type={kind} "), "type=OTHER ");
        }
        for unit in units {
            line = line
                .replace(&format!("unit='{unit}'"), "unit=''")
                .replace(&format!("[{unit}]"), "[]");
            line = remove_word(&line, &format!(" {unit}"));
        }
        // `f"{value} {unit}"` with an empty unit leaves two spaces: runs of spaces after the
        // indentation count as one.
        let body = line.trim_start();
        out.push_str(&line[..line.len() - body.len()]);
        let mut last = ' ';
        for c in body.chars() {
            if !(c == ' ' && last == ' ') {
                out.push(c);
            }
            last = c;
        }
        out.push('\n');
    }
    out
}

/// `line` without each `word` that ends the line or is followed by `,`, `)`, `]` or a space.
fn remove_word(line: &str, word: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(word) {
        let after = &rest[at + word.len()..];
        let ends = after.is_empty() || after.starts_with([',', ')', ']', ' ', ';']);
        out.push_str(&rest[..at]);
        if !ends {
            out.push_str(word);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The first line where `ours` and `theirs` differ, with its number, or `None`.
fn first_line_difference(ours: &str, theirs: &str) -> Option<String> {
    let (mut a, mut b) = (ours.lines(), theirs.lines());
    for n in 1.. {
        match (a.next(), b.next()) {
            (None, None) => return None,
            (x, y) if x == y => {}
            (x, y) => {
                return Some(format!(
                    "line {n}:\n  Sightline: {}\n  NVIDIA:    {}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                ));
            }
        }
    }
    unreachable!()
}

/// `text` without the ` description='…'` field of `metric_attributes.py` lines.
fn without_descriptions(text: &str) -> String {
    text.lines()
        .map(|line| match line.find(" description=") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn held_out_reports_are_written_and_read_back() {
    let paths = reports();
    let names: Vec<_> = paths.iter().map(|p| p.file_name().unwrap()).collect();
    assert_eq!(names, sightline_test_support::ncu::holdout::HOLDOUT_NAMES);
    let results: Vec<usize> = paths
        .iter()
        .map(|p| {
            let report = sightline::ncu::Report::open(p).unwrap();
            assert!(report.warnings().is_empty(), "{}", p.display());
            report.num_actions()
        })
        .collect();
    assert_eq!(results, [6, 6, 2]);
}

#[test]
fn held_out_scripts_print_the_same_with_both_modules_on_held_out_reports() {
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let paths = reports();
    let [train, v2] = [0, 1].map(|i| paths[i].to_str().unwrap().to_owned());
    let sass = sightline::ncu::source::nvdisasm::find(None).is_some();
    if !sass {
        eprintln!(
            "sass_by_pc not compared: nvdisasm not found ({})",
            sightline::ncu::source::nvdisasm::MISSING_HINT
        );
    }
    let mut lines = 0;
    let dir = root().join("tests/python/holdout");
    let mut units = Vec::new();
    let mut normalized = 0;
    for (script, args) in runs(&train, &v2, sass) {
        let path = dir.join(script);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = with_ncu(&mut python_command(site), None)
            .arg(&path)
            .args(&args)
            .output()
            .expect("python3 runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("Traceback"),
            "{script} {args:?}: Sightline's module failed:\n{stderr}"
        );
        let mut ours = with_status(
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code(),
        );
        let mut theirs = nvidia_output_and_status(&python, &path, &args);
        // NVIDIA's module has no metric library for these reports: no descriptions either.
        if script == "metric_attributes.py" {
            ours = without_descriptions(&ours);
            theirs = without_descriptions(&theirs);
            units.extend(units_in(&ours));
            units.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
            units.dedup();
        }
        let (a, b) = (normalize(&ours, &units), normalize(&theirs, &units));
        normalized += ours.lines().zip(a.lines()).filter(|(x, y)| x != y).count();
        let (ours, theirs) = (a, b);
        if let Some(diff) = first_line_difference(&ours, &theirs) {
            panic!("{script} {args:?}: {diff}");
        }
        lines += ours.lines().count();
    }
    eprintln!(
        "{lines} lines of 9 held-out scripts on 2 held-out reports equal NVIDIA's ({normalized} \
         of them once units and types, which NVIDIA's module has none of here, are left out)"
    );
    assert!(lines > 500, "only {lines} lines compared");
}
