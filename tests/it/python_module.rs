//! The Python module (crates/python, python/): built as the extension CPython imports, laid
//! out as `pip install ./python` installs it (`sightline/` with `_native.abi3.so`, and
//! `ncu_report/`), and driven by `tests/python/interface_dump.py`, a script that uses only the
//! documented `ncu_report` calls. Run with NVIDIA's module, that script prints exactly the
//! corpus goldens (names, workload types, metrics, NVTX); run with Sightline's it must too.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::common::{self, corpus_pairs, first_difference, python_json};

/// The keys of a golden action the interface script prints.
const KEYS: [&str; 6] = [
    "name",
    "demangled",
    "mangled",
    "workload_type",
    "metrics",
    "nvtx",
];

pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `python3` runs here.
fn python_available() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The path of the extension library `cargo build -p sightline-python` makes.
fn build_extension() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "-p", "sightline-python", "--message-format=json"])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building the Python module failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "sightline_python")
        .find_map(|m| {
            m["filenames"]
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .find(|f| f.ends_with(".so") || f.ends_with(".dll") || f.ends_with(".dylib"))
                .map(PathBuf::from)
        })
        .expect("cargo names the extension library it built")
}

/// A folder laid out as the installed packages, built once per test run (`None`, with a
/// skip, without `python3`).
pub(crate) fn site() -> Option<&'static Path> {
    static SITE: OnceLock<Option<tempfile::TempDir>> = OnceLock::new();
    SITE.get_or_init(|| {
        if !python_available() {
            common::skip_shared("python3 not found: the Python module is not tested");
            return None;
        }
        let library = build_extension();
        let site = tempfile::tempdir().expect("temp dir");
        for package in ["sightline", "ncu_report"] {
            let from = root().join("python/src").join(package);
            let to = site.path().join(package);
            std::fs::create_dir_all(&to).unwrap();
            for entry in std::fs::read_dir(&from).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "py") {
                    std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
                }
            }
        }
        let name = if cfg!(windows) {
            "_native.pyd"
        } else {
            "_native.abi3.so"
        };
        std::fs::copy(&library, site.path().join("sightline").join(name)).unwrap();
        Some(site)
    })
    .as_ref()
    .map(tempfile::TempDir::path)
}

/// `python3` with Sightline's module importable.
pub(crate) fn python_command(site: &Path) -> Command {
    let mut command = Command::new("python3");
    command
        .env("PYTHONPATH", site)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

/// Runs a Python script with the module importable; its standard output.
pub(crate) fn run_python(site: &Path, args: &[&str]) -> Result<String, String> {
    let out = python_command(site)
        .args(args)
        .output()
        .expect("python3 runs");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The interface script's JSON of `report`.
fn interface_dump(site: &Path, report: &Path) -> Value {
    let script = root().join("tests/python/interface_dump.py");
    let text = run_python(site, &[script.to_str().unwrap(), report.to_str().unwrap()])
        .unwrap_or_else(|e| panic!("{}: the script failed:\n{e}", report.display()));
    python_json(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", report.display()))
}

/// A dump's actions with only the keys the interface script prints.
fn interface_view(dump: &Value) -> Vec<Value> {
    dump["ranges"][0]["actions"]
        .as_array()
        .map(|actions| {
            actions
                .iter()
                .map(|a| {
                    let object = KEYS
                        .iter()
                        .filter_map(|k| Some(((*k).to_owned(), a.get(*k)?.clone())))
                        .collect();
                    Value::Object(object)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The share of metric units (over every metric of every corpus result) that must equal
/// NVIDIA's: units are inferred from names (reports store none), and the inference agrees on
/// 99.79 % of the corpus metrics (`units_golden.rs` measures it per family).
const UNIT_AGREEMENT: f64 = 99.7;

/// The `(equal, total)` units of the metrics of two dumps' actions.
fn unit_tally(ours: &[Value], golden: &[Value]) -> (usize, usize) {
    let mut tally = (0, 0);
    for (a, b) in ours.iter().zip(golden) {
        let Some(metrics) = b["metrics"].as_object() else {
            continue;
        };
        for (name, metric) in metrics {
            tally.1 += 1;
            if a["metrics"][name]["unit"] == metric["unit"] {
                tally.0 += 1;
            }
        }
    }
    tally
}

#[test]
fn the_interface_script_prints_every_corpus_golden() {
    let pairs = corpus_pairs();
    let Some(site) = site() else { return };
    let (mut equal_units, mut units) = (0, 0);
    for (report, golden) in pairs {
        let mut ours = interface_view(&interface_dump(site, &report));
        let mut expected = interface_view(&common::golden_json(&golden));
        assert_eq!(ours.len(), expected.len(), "{}", report.display());
        let (equal, total) = unit_tally(&ours, &expected);
        (equal_units, units) = (equal_units + equal, units + total);
        ours.iter_mut().for_each(common::strip_units);
        expected.iter_mut().for_each(common::strip_units);
        for (i, (a, b)) in ours.iter().zip(&expected).enumerate() {
            if let Some(diff) = first_difference(a, b, &format!("/actions/{i}")) {
                panic!("{}: {diff}", report.display());
            }
        }
        eprintln!(
            "{}: {} result(s) equal; units {equal}/{total}",
            report.display(),
            ours.len()
        );
    }
    if units > 0 {
        let agreement = 100.0 * equal_units as f64 / units as f64;
        eprintln!("units: {equal_units}/{units} equal ({agreement:.2} %)");
        assert!(agreement >= UNIT_AGREEMENT, "units: {agreement:.2} % equal");
    }
}

#[test]
fn the_interface_script_prints_the_sample_as_sightline_dump_does() {
    let Some(site) = site() else { return };
    let path = common::fixtures().join("sample.ncu-rep");
    let report = sightline::ncu::Report::open(&path).unwrap();
    let options = sightline::ncu::DumpOptions {
        units: true,
        ..Default::default()
    };
    let dump = python_json(&common::dump_text(&report, &options)).unwrap();
    let ours = interface_view(&interface_dump(site, &path));
    assert_eq!(ours, interface_view(&dump));
}

#[test]
fn the_high_level_interface_and_errors_behave_as_nvidias() {
    let Some(site) = site() else { return };
    let sample = common::fixtures().join("sample.ncu-rep");
    let script = format!(
        r#"
import ncu_report, sightline, threading
ctx = ncu_report.load_report({sample:?})
assert len(ctx) == ctx.num_ranges() == 1
rng = ctx[0]
assert len(rng) == rng.num_actions() > 0
assert ctx.range_by_idx(1) is None and rng.action_by_idx(len(rng)) is None
action = rng[-1]
assert str(action) == action.name()
names = action.metric_names()
assert isinstance(names, tuple) and len(action) == len(names) and list(action) == list(names)
assert names[0] in action and "no__such.sum" not in action
assert action.metric_by_name("no__such.sum") is None
try:
    action["no__such.sum"]
    raise SystemExit("no KeyError")
except KeyError as e:
    assert "no metric named" in str(e)
m = action[names[0]]
assert m.name() == str(m) == names[0]
assert m.value() == (m.as_string() if m.kind() == m.ValueKind_STRING else m.value())
assert isinstance(rng[0:2], tuple) and [a.name() for a in rng] == [rng[i].name() for i in range(len(rng))]
assert sightline.load_report is not None and isinstance(sightline.load_report({sample:?}), sightline.IContext)
try:
    ncu_report.load_report("/no/such/report.ncu-rep")
    raise SystemExit("no error")
except FileNotFoundError as e:
    assert "/no/such/report.ncu-rep" in str(e)
# Handles pickle as the path and indices, and restore to equal objects.
import pickle
assert len(pickle.loads(pickle.dumps(ctx))) == 1
assert len(pickle.loads(pickle.dumps(rng))) == len(rng)
restored = pickle.loads(pickle.dumps(action))
assert restored.name() == action.name() and list(restored) == list(names)
for name in names:
    metric = pickle.loads(pickle.dumps(action[name]))
    assert metric.name() == name and repr(metric.value()) == repr(action[name].value())
# Correlation ids are a metric of the metric's name, none for a metric without them (as NVIDIA's).
with_ids = [action[n] for n in names if action[n].has_correlation_ids()]
assert with_ids, "the sample has metrics with correlation ids"
ids = pickle.loads(pickle.dumps(with_ids[0].correlation_ids()))
assert ids.name() == with_ids[0].name() and ids.num_instances() == with_ids[0].num_instances()
assert all(action[n].correlation_ids() is None for n in names if not action[n].has_correlation_ids())
# Objects are safe to share between threads.
results = []
def work():
    results.append(sum(len(a) for a in rng))
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
assert len(set(results)) == 1
print("ok")
"#
    );
    let out = run_python(site, &["-c", &script]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), "ok");
}

#[test]
fn a_damaged_report_loads_what_is_readable_and_warns_naming_the_file_and_position() {
    let Some(site) = site() else { return };
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read(common::fixtures().join("sample.ncu-rep")).unwrap();
    let cut = dir.path().join("cut.ncu-rep");
    std::fs::write(&cut, &sample[..sample.len() * 2 / 3]).unwrap();
    let junk = dir.path().join("junk.ncu-rep");
    std::fs::write(&junk, b"not a report at all").unwrap();
    let script = format!(
        r#"
import ncu_report, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ctx = ncu_report.load_report({cut:?})
    print(len(ctx[0]), [a.name() for a in ctx[0]])
    for w in caught:
        print("warning", w.category.__name__, w.message)
try:
    ncu_report.load_report({junk:?})
except ValueError as e:
    print("error", e)
"#,
        cut = cut.to_str().unwrap(),
        junk = junk.to_str().unwrap()
    );
    let out = run_python(site, &["-c", &script]).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = out.lines().collect();
    let report = sightline::ncu::Report::open(&cut).unwrap();
    let readable = report.num_actions();
    assert!(
        readable > 0 && lines[0].starts_with(&format!("{readable} [")),
        "{out}"
    );
    assert!(
        lines[1].starts_with("warning UserWarning ")
            && lines[1].contains("cut.ncu-rep: byte ")
            && lines[1].contains("truncated"),
        "{out}"
    );
    assert!(
        lines[2].starts_with("error ") && lines[2].contains("junk.ncu-rep: byte 0: "),
        "{out}"
    );
}

/// The module as `pip install ./python` installs it into a fresh venv (`.ci/run` does, and
/// points `SIGHTLINE_WHEEL_VENV` at the venv): both packages import from the venv, without
/// any path set, and the interface script prints the sample as `sightline dump` does. Skips
/// without the venv, fails instead under `SIGHTLINE_REQUIRE_WHEEL=1`.
#[test]
fn the_installed_wheel_reads_reports_in_a_fresh_venv() {
    let Some(venv) = std::env::var_os("SIGHTLINE_WHEEL_VENV") else {
        assert!(
            std::env::var_os("SIGHTLINE_REQUIRE_WHEEL").is_none_or(|v| v != "1"),
            "SIGHTLINE_REQUIRE_WHEEL=1 requires SIGHTLINE_WHEEL_VENV"
        );
        eprintln!("skipped: SIGHTLINE_WHEEL_VENV not set (a venv with `pip install ./python`)");
        return;
    };
    let python = Path::new(&venv).join(if cfg!(windows) {
        "Scripts/python.exe"
    } else {
        "bin/python"
    });
    let run = |args: &[&str]| {
        let out = Command::new(&python)
            .args(args)
            .env_remove("PYTHONPATH")
            .current_dir(std::env::temp_dir())
            .output()
            .expect("the venv's python runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let where_from = run(&[
        "-c",
        "import ncu_report, sightline; print(ncu_report.load_report is sightline.load_report, sightline.__file__)",
    ]);
    assert!(
        where_from.starts_with("True ")
            && Path::new(where_from[5..].trim()).starts_with(Path::new(&venv)),
        "{where_from}"
    );
    let sample = common::fixtures().join("sample.ncu-rep");
    let script = root().join("tests/python/interface_dump.py");
    let text = run(&[script.to_str().unwrap(), sample.to_str().unwrap()]);
    let report = sightline::ncu::Report::open(&sample).unwrap();
    let options = sightline::ncu::DumpOptions {
        units: true,
        ..Default::default()
    };
    let dump = python_json(&common::dump_text(&report, &options)).unwrap();
    assert_eq!(
        interface_view(&python_json(&text).unwrap()),
        interface_view(&dump)
    );
}

/// Jupyter's rich display: a result's `_repr_html_()` is a table of every metric, a section's
/// the Details page's tables with the labels the sections give; wrong arguments of the source
/// calls are Python exceptions (as NVIDIA's module raises them), not crashes.
#[test]
fn results_and_sections_display_as_html_and_bad_arguments_raise() {
    let Some(site) = site() else { return };
    let sample = common::fixtures().join("sample.ncu-rep");
    let script = format!(
        r#"
import html, ncu_report
action = ncu_report.load_report({sample:?})[0][0]
page = action._repr_html_()
assert page.startswith("<div>") and page.count("<tr>") == len(action) + 1, page[:200]
for name in action:
    assert "<td style=\"text-align:left\">" + html.escape(name, quote=True) + "</td>" in page, name
sections = action.sections()
assert sections
for section in sections:
    page = section._repr_html_()
    assert html.escape(section.name()) in page, section.name()
    for metric in section.header_metrics():
        if metric.label():
            assert html.escape(metric.label()) in page, (section.name(), metric.label())
for call, argument, error in [
    (action.source_info, -1, OverflowError),
    (action.sass_by_pc, "x", TypeError),
    (action.ptx_by_pc, 2**64, OverflowError),
]:
    try:
        call(argument)
        raise SystemExit(f"{{call.__name__}}({{argument!r}}) raised nothing")
    except error:
        pass
print("ok")
"#
    );
    let out = run_python(site, &["-c", &script]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), "ok");
}

/// The type stub (`python/src/sightline/_native.pyi`) declares exactly the module's public
/// names, classes, methods, constants and enum members (`tests/python/stub_check.py`).
#[test]
fn the_type_stub_declares_exactly_what_the_module_has() {
    let Some(site) = site() else { return };
    let script = root().join("tests/python/stub_check.py");
    let stub = root().join("python/src/sightline/_native.pyi");
    let out = run_python(site, &[script.to_str().unwrap(), stub.to_str().unwrap()])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), "ok", "{out}");
}

/// A result whose embedded section does not decode: `sections()` raises `ValueError` naming
/// the file and the result; what does not need the sections (metrics, rule results, the HTML
/// table of the metrics) still answers, and labels are empty.
#[test]
fn a_damaged_embedded_section_raises_naming_the_file() {
    let Some(site) = site() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(common::fixtures().join("sample.ncu-rep")).unwrap();
    // The first section's identifier field (field 1, 12 bytes) gets wire type 7, which no
    // protobuf decoder reads.
    let pattern = b"\x0a\x0cSpeedOfLight";
    let at = bytes
        .windows(pattern.len())
        .position(|w| w == pattern)
        .expect("the sample embeds SpeedOfLight");
    bytes[at] = 0x0f;
    let damaged = dir.path().join("damaged.ncu-rep");
    std::fs::write(&damaged, &bytes).unwrap();
    let script = format!(
        r#"
import ncu_report
action = ncu_report.load_report({damaged:?})[0][0]
try:
    action.sections()
    raise SystemExit("no error")
except ValueError as e:
    assert "damaged.ncu-rep: result 0: corrupt embedded section" in str(e), e
assert len(action) > 0 and action[action.metric_names()[0]].label() == ""
assert action.rule_results() and "<table>" in action._repr_html_()
print("ok")
"#,
        damaged = damaged.to_str().unwrap()
    );
    let out = run_python(site, &["-c", &script]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), "ok");
}

/// Results decoded ahead (a script walking them in order) and freed when no Python object
/// holds them answer as results read one by one: four threads walking one context forwards,
/// backwards and out of order, and a second pass after every result was dropped, read the
/// same metrics and values as a fresh context read in a random order.
#[test]
fn read_ahead_and_freed_results_answer_as_random_access() {
    let Some(site) = site() else { return };
    let report = common::fixtures().join("offload_names.ncu-rep");
    let script = format!(
        r#"
import gc, random, threading
import ncu_report
path = {report:?}
def dump(action):
    return tuple((n, action.metric_by_name(n).value()) for n in action.metric_names())
fresh = ncu_report.load_report(path)[0]
n = fresh.num_actions()
assert n > 4, n
order = list(range(n)); random.Random(7).shuffle(order)
want = {{i: dump(fresh.action_by_idx(i)) for i in order}}
ctx = ncu_report.load_report(path)
rng = ctx[0]
got = []
def walk(indices):
    for i in indices:
        got.append((i, dump(rng.action_by_idx(i))))
orders = [range(n), range(n - 1, -1, -1), order, range(n)]
threads = [threading.Thread(target=walk, args=(o,)) for o in orders]
[t.start() for t in threads]; [t.join() for t in threads]
assert len(got) == 4 * n and all(want[i] == d for i, d in got)
got.clear(); gc.collect()
walk(range(n))
assert all(want[i] == d for i, d in got)
print("ok")
"#,
        report = report.to_str().unwrap()
    );
    let out = run_python(site, &["-c", &script]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), "ok");
}
