//! Sightline's `ncu_report` against NVIDIA's: scripts in `tests/python/` that use only NVIDIA's
//! documented interface run with both modules, and their outputs must be equal: the enums and
//! constants (`constants_dump.py`), every other name the module shows (`compat_dump.py`:
//! containers, value types, rule-system interfaces), and on every corpus and fixture report the
//! sections and rule results (`sections_dump.py`), the timelines (`timelines_dump.py`) and the
//! source view (`source_dump.py`: source files, markers, and `source_info`/`ptx_by_pc`/
//! `sass_by_pc` of the addresses the metrics correlate with; SASS where nvdisasm is found; PTX
//! not of cubins linked from several units, where NVIDIA's module reads another unit's text
//! depending on its memory layout, as the model's `ncu_source_oracle` test explains).
//!
//! NVIDIA's module is found as the model's Source tests find it (`SIGHTLINE_NCU_ORACLE_PYTHON`,
//! else `~/.cache/ncu-oracle-venv`, made by `../shared/tools/ncu-oracle/setup.sh`). Like
//! nvdisasm it is optional even in CI: without it these tests skip with a message. The corpus
//! is `../shared`: without it they skip, and fail instead under `SIGHTLINE_REQUIRE_SHARED=1`.
//! NVIDIA's outputs are kept in `target/tmp/ncu-oracle/` (named by the reader, the script, its
//! arguments and the report's bytes); `SIGHTLINE_ORACLE_CACHE=0` always asks.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use sightline::ncu::Report;
use sightline::ncu::source::{SourceModule, nvdisasm};

use crate::common::{self, first_difference, python_json};
use crate::python_module::{root, run_python, site};

/// The classes Sightline's module implements, whose constants are compared.
const CLASSES: [&str; 11] = [
    "IAction",
    "IContext",
    "IMetric",
    "INvtxDomainInfo",
    "INvtxRange",
    "INvtxState",
    "IRange",
    "IRuleResult",
    "ISection",
    "ISourceInfo",
    "ITimelines",
];

/// The python of a venv with NVIDIA's `ncu_report`, or `None` with a message
/// (`sightline_test_support::oracles::ncu_oracle_python`).
pub(crate) fn oracle_python() -> Option<PathBuf> {
    sightline_test_support::oracles::ncu_oracle_python()
}

/// What tells one installed NVIDIA module from another: the interpreter, and the module's file
/// with its size and modification time.
fn reader_identity(python: &Path) -> String {
    sightline_test_support::oracles::ncu_oracle_identity(python)
}

/// The standard output of `script` with `args` run by NVIDIA's module, kept in
/// `target/tmp/ncu-oracle/` (files among `args` are named by their bytes). The script must
/// succeed.
pub(crate) fn nvidia_output(python: &Path, script: &Path, args: &[&str]) -> String {
    nvidia_run(python, script, args, false)
}

/// The standard output of `script` with `args` run by NVIDIA's module followed by a line
/// `exit status: N` (scripts that exit non-zero on purpose, as a CI gate does); kept as
/// [`nvidia_output`] keeps its outputs.
pub(crate) fn nvidia_output_and_status(python: &Path, script: &Path, args: &[&str]) -> String {
    nvidia_run(python, script, args, true)
}

/// [`nvidia_output`], and with `status` the exit status after it instead of a failure.
fn nvidia_run(python: &Path, script: &Path, args: &[&str], status: bool) -> String {
    let ask = || {
        let out = Command::new(python)
            .arg(script)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if status && out.status.code().is_some() {
            return with_status(stdout, out.status.code());
        }
        assert!(
            out.status.success(),
            "NVIDIA's module failed on {} {args:?}: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    if std::env::var_os("SIGHTLINE_ORACLE_CACHE").is_some_and(|v| v == "0") {
        return ask();
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    reader_identity(python).hash(&mut h);
    std::fs::read(script).expect("script").hash(&mut h);
    for arg in args {
        arg.hash(&mut h);
        if let Ok(bytes) = std::fs::read(arg) {
            bytes.hash(&mut h);
        }
    }
    status.hash(&mut h);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ncu-oracle");
    let path = dir.join(format!("py-{:016x}.json", h.finish()));
    if let Ok(kept) = std::fs::read_to_string(&path) {
        return kept;
    }
    let output = ask();
    // Written beside and renamed: a test running at the same time never reads half of it.
    let partial = path.with_extension(format!("{}.partial", std::process::id()));
    let kept = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&partial, &output))
        .and_then(|()| std::fs::rename(&partial, &path));
    if kept.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    output
}

/// `stdout` followed by the line `exit status: N` (the code, or `signal` when killed).
pub(crate) fn with_status(mut stdout: String, code: Option<i32>) -> String {
    if !stdout.is_empty() && !stdout.ends_with('\n') {
        stdout.push('\n');
    }
    let code = code.map_or_else(|| "signal".to_owned(), |c| c.to_string());
    stdout.push_str(&format!("exit status: {code}\n"));
    stdout
}

/// The JSON `tests/python/<script>` prints with `args`: Sightline's, then NVIDIA's.
pub(crate) fn both(site: &Path, python: &Path, script: &str, args: &[&str]) -> (Value, Value) {
    let script = root().join("tests/python").join(script);
    let mut all = vec![script.to_str().unwrap()];
    all.extend(args);
    let ours = run_python(site, &all).unwrap_or_else(|e| {
        panic!(
            "{} {args:?}: Sightline's module failed:\n{e}",
            script.display()
        )
    });
    let theirs = nvidia_output(python, &script, args);
    let parse = |text: &str, whose: &str| {
        python_json(text).unwrap_or_else(|e| {
            panic!(
                "{} {args:?}: {whose} output is not JSON: {e}",
                script.display()
            )
        })
    };
    (parse(&ours, "Sightline's"), parse(&theirs, "NVIDIA's"))
}

#[test]
fn the_enums_and_constants_equal_nvidias() {
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let (ours, theirs) = both(site, &python, "constants_dump.py", &CLASSES);
    // Of the classes only the ones Sightline has (NVIDIA's rule-system classes aside).
    let mut theirs = theirs;
    if let Some(classes) = theirs["classes"].as_object_mut() {
        classes.retain(|name, _| CLASSES.contains(&name.as_str()));
    }
    if let Some(diff) = first_difference(&ours, &theirs, "") {
        panic!("constants: {diff}");
    }
    let count = |key: &str| ours[key].as_object().map_or(0, serde_json::Map::len);
    eprintln!(
        "{} enums, {} module constants, {} classes' constants equal NVIDIA's",
        count("enums"),
        count("module"),
        count("classes")
    );
    assert!(count("enums") >= 5 && count("module") >= 40, "{ours}");
}

/// The reports NVIDIA's module is compared on: every corpus report (none, with a skip, without
/// `../shared`) and every fixture report.
fn compared_reports() -> Vec<PathBuf> {
    let mut reports: Vec<PathBuf> = common::corpus_pairs().into_iter().map(|(r, _)| r).collect();
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(common::fixtures())
        .expect("fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ncu-rep"))
        .collect();
    fixtures.sort();
    reports.extend(fixtures);
    reports
}

#[test]
fn sections_and_rule_results_equal_nvidias_on_every_report() {
    let reports = compared_reports();
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let (mut actions, mut sections, mut rules) = (0, 0, 0);
    for report in &reports {
        let (ours, theirs) = both(
            site,
            &python,
            "sections_dump.py",
            &[report.to_str().unwrap()],
        );
        if let Some(diff) = first_difference(&ours, &theirs, "") {
            panic!("{}: {diff}", report.display());
        }
        for action in ours["actions"].as_array().into_iter().flatten() {
            actions += 1;
            sections += action["sections"].as_array().map_or(0, Vec::len);
            rules += action["rule_results"].as_array().map_or(0, Vec::len);
        }
    }
    eprintln!(
        "{actions} results of {} reports: {sections} sections and {rules} rule results equal \
         NVIDIA's",
        reports.len()
    );
    assert!(sections > 0 && rules > 0, "nothing compared");
}

/// What the source comparison left out, by reason.
#[derive(Default)]
struct SourceTally {
    compared: usize,
    /// Of them, with the SASS text (`sass_by_pc`).
    sass: usize,
    /// SASS answers of cubins no nvdisasm found here reads.
    unreadable_sass: usize,
    /// PTX answers of cubins linked from several units (NVIDIA's is memory-layout dependent).
    multi_unit_ptx: usize,
    /// Addresses outside every function of the module, where Sightline answers nothing and
    /// NVIDIA's module answers from the line table (raw cubin offsets of arch_render).
    outside_functions: usize,
}

/// Removes from one action's `pcs` (both outputs) the answers NVIDIA's module is no oracle for
/// (see [`SourceTally`]).
fn drop_unreliable(
    ours: &mut Value,
    theirs: &mut Value,
    module: &SourceModule,
    tally: &mut SourceTally,
) {
    let several = module.ptx_files().len() > 1;
    // No nvdisasm found here reads the cubin's architecture (CUDA 13's refuses sm_70 and
    // older; `.ci/run` adds a CUDA 12 one through SIGHTLINE_NVDISASM_PATH).
    let unreadable = module
        .sm()
        .is_some_and(|sm| !matches!(nvdisasm::find_for(None, sm), nvdisasm::Choice::Found(_)));
    let (Some(a), Some(b)) = (ours["pcs"].as_array_mut(), theirs["pcs"].as_array_mut()) else {
        return;
    };
    for (p, q) in a.iter_mut().zip(b.iter_mut()) {
        let pc = p["pc"].as_u64().unwrap_or(0);
        if unreadable && p.get("sass").is_some() {
            for v in [&mut *p, &mut *q] {
                v.as_object_mut().map(|o| o.remove("sass"));
            }
            tally.unreadable_sass += 1;
        }
        if several {
            for v in [&mut *p, &mut *q] {
                v.as_object_mut().map(|o| o.remove("ptx"));
            }
            tally.multi_unit_ptx += 1;
        }
        if module.function_at(pc).is_none() && p != q {
            for key in ["source_info", "ptx", "sass"] {
                let silent = p[key].is_null() || p[key] == "";
                if silent && q.get(key).is_some_and(|v| !v.is_null() && v != "") {
                    p.as_object_mut().map(|o| o.remove(key));
                    q.as_object_mut().map(|o| o.remove(key));
                    tally.outside_functions += 1;
                }
            }
        }
        tally.compared += 1;
        tally.sass += usize::from(p.get("sass").is_some());
    }
}

#[test]
fn source_answers_equal_nvidias_on_every_report() {
    let reports = compared_reports();
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    // SASS only where the user's nvdisasm is found (NVIDIA's module disassembles by itself).
    let sass = nvdisasm::find(None).is_some();
    if !sass {
        eprintln!(
            "sass_by_pc not compared: nvdisasm not found ({})",
            nvdisasm::MISSING_HINT
        );
    }
    let mut tally = SourceTally::default();
    for path in &reports {
        let mut args = vec![path.to_str().unwrap()];
        if sass {
            args.push("--sass");
        }
        let (mut ours, mut theirs) = both(site, &python, "source_dump.py", &args);
        let report = Report::open(path).unwrap();
        let (Some(a), Some(b)) = (
            ours["actions"].as_array_mut(),
            theirs["actions"].as_array_mut(),
        ) else {
            panic!("{}: no actions", path.display());
        };
        assert_eq!(a.len(), b.len(), "{}", path.display());
        for (index, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
            let action = report.action(index).unwrap();
            if let Ok(module) = SourceModule::for_action(&report, &action) {
                drop_unreliable(x, y, &module, &mut tally);
            }
        }
        if let Some(diff) = first_difference(&ours, &theirs, "") {
            panic!("{}: {diff}", path.display());
        }
    }
    eprintln!(
        "{} addresses ({} with SASS) of {} reports equal NVIDIA's (source files and markers of \
         every result too); not compared: {} PTX answers of cubins linked from several units, {} answers \
         NVIDIA's module gives outside every function, {} SASS answers of cubins no nvdisasm \
         found here reads",
        tally.compared,
        tally.sass,
        reports.len(),
        tally.multi_unit_ptx,
        tally.outside_functions,
        tally.unreadable_sass
    );
    assert!(tally.compared > 0, "nothing compared");
}

#[test]
fn metric_labels_and_has_value_equal_nvidias_on_every_report() {
    let reports = compared_reports();
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let (mut metrics, mut labelled) = (0, 0);
    let mut types = TypeTally::default();
    for path in &reports {
        let (mut ours, mut theirs) =
            both(site, &python, "metric_dump.py", &[path.to_str().unwrap()]);
        types.take(&mut ours, &mut theirs, path);
        if let Some(diff) = first_difference(&ours, &theirs, "") {
            panic!("{}: {diff}", path.display());
        }
        for action in ours["actions"].as_array().into_iter().flatten() {
            for m in action
                .as_object()
                .into_iter()
                .flat_map(serde_json::Map::values)
            {
                metrics += 1;
                labelled += usize::from(m["label"] != "");
            }
        }
    }
    eprintln!(
        "{metrics} metrics of {} reports: labels ({labelled} labelled), has_value, subtypes \
         and rollup operations equal NVIDIA's; types equal for {} of {} ({} of NVIDIA's \
         library metrics)",
        reports.len(),
        types.equal,
        types.total,
        types.library
    );
    assert!(labelled > 0, "no label compared");
    assert!(types.library > 0, "no library metric compared");
    let share = types.equal as f64 / types.total as f64;
    assert!(
        share >= TYPE_AGREEMENT,
        "metric types: {:.1} % equal",
        100.0 * share
    );
}

/// The share of metric types (over every metric of the compared results) that must equal
/// NVIDIA's. NVIDIA's module answers from the GA10x metric library whatever the chip, and
/// gives OTHER for metrics that library lacks; Sightline infers types from the name, so it
/// types those as what they are (a Hopper counter: COUNTER): 98.96 % equal on the corpus.
/// Every metric NVIDIA's library types must be typed equally.
const TYPE_AGREEMENT: f64 = 0.985;

/// Metric types of `metric_dump.py` outputs: taken out of the compared JSON and counted.
#[derive(Default)]
struct TypeTally {
    equal: usize,
    total: usize,
    library: usize,
}

impl TypeTally {
    /// Removes `metric_type` from every metric of both dumps, counting agreement; panics for a
    /// metric NVIDIA's library types (not OTHER) that Sightline types differently.
    fn take(&mut self, ours: &mut Value, theirs: &mut Value, path: &Path) {
        let ours = ours["actions"].as_array_mut().into_iter().flatten();
        let theirs = theirs["actions"].as_array_mut().into_iter().flatten();
        for (a, b) in ours.zip(theirs) {
            let (Some(a), Some(b)) = (a.as_object_mut(), b.as_object_mut()) else {
                continue;
            };
            for (name, metric) in a.iter_mut() {
                let ours = metric.as_object_mut().and_then(|m| m.remove("metric_type"));
                let theirs = b
                    .get_mut(name)
                    .and_then(Value::as_object_mut)
                    .and_then(|m| m.remove("metric_type"));
                self.total += 1;
                self.equal += usize::from(ours == theirs);
                if theirs
                    .as_ref()
                    .and_then(Value::as_i64)
                    .is_some_and(|t| t != 0)
                {
                    self.library += 1;
                    assert_eq!(ours, theirs, "{}: type of {name}", path.display());
                }
            }
        }
    }
}

#[test]
fn rule_system_calls_on_an_opened_report_behave_as_nvidias() {
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let sample = common::fixtures().join("sample.ncu-rep");
    let (ours, theirs) = both(
        site,
        &python,
        "read_only_dump.py",
        &[sample.to_str().unwrap()],
    );
    if let Some(diff) = first_difference(&ours, &theirs, "") {
        panic!("rule-system calls: {diff}");
    }
    assert_eq!(ours["metrics_unchanged"], true, "{ours}");
}

/// Drops from a `timelines_dump.py` output the units (their agreement is measured by
/// `python_module`) and, in results with PM sampling pass groups, the workload timestamps
/// (`profiler__timestamp_workload_{start,end}_G`): NVIDIA's reader aligns those
/// inconsistently (in the GH200 report group 1's as a NaN and a zero at shifted times, group
/// 0's not at all); Sightline keeps them as they are. Returns how many aligned metrics remain.
fn timelines_view(dump: &mut Value) -> usize {
    let mut aligned = 0;
    let actions = dump
        .as_array_mut()
        .into_iter()
        .flatten()
        .filter_map(Value::as_array_mut)
        .flatten();
    for action in actions {
        let Some(metrics) = action["metrics"].as_object_mut() else {
            continue;
        };
        if metrics.contains_key("profiler__pmsampler_pass_groups") {
            metrics.retain(|name, _| !name.starts_with("profiler__timestamp_workload_"));
        }
        for metric in metrics.values_mut() {
            common::strip_units(metric);
            aligned += usize::from(!metric["aligned"].is_null());
        }
    }
    aligned
}

#[test]
fn timelines_and_correlation_ids_equal_nvidias_on_every_report() {
    let reports = compared_reports();
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let mut aligned = 0;
    for path in &reports {
        let (mut ours, mut theirs) = both(
            site,
            &python,
            "timelines_dump.py",
            &[path.to_str().unwrap()],
        );
        aligned += timelines_view(&mut ours);
        timelines_view(&mut theirs);
        if let Some(diff) = first_difference(&ours, &theirs, "") {
            panic!("{}: {diff}", path.display());
        }
    }
    eprintln!(
        "{} reports: {aligned} aligned metrics and every instanced metric's correlation ids \
         equal NVIDIA's",
        reports.len()
    );
    assert!(aligned > 0, "no aligned metric compared");
}

#[test]
fn every_name_nvidias_module_shows_exists_and_behaves_as_nvidias() {
    let Some(site) = site() else { return };
    let Some(python) = oracle_python() else {
        return;
    };
    let (ours, theirs) = both(site, &python, "compat_dump.py", &[]);
    if let Some(diff) = first_difference(&ours, &theirs, "") {
        panic!("compat_dump.py: {diff}");
    }
    let names = ours["names"].as_object().map_or(0, serde_json::Map::len);
    eprintln!("{names} module-level names and their attributes equal NVIDIA's");
    assert!(names > 80, "only {names} names compared");
}
