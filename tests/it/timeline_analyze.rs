//! The expert rules (Python timeline rules) equal `nsys analyze` on every corpus export: for each
//! line of the oracle's `analyze/STATUS.tsv`, an `ok` rule's CSV byte for byte, a `no-rows` rule
//! an empty table, a `SKIPPED` rule the same message — except where nsys refuses an export that
//! holds the data (no `ENUM_CUDA_MEM_KIND`, no `greenContextId`): there Sightline answers.
//! Also: options, user rules (added, edited, broken) and hostile rules.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sightline::rules::{RuleEngine, TimelineOutcome, TimelineRunOptions};
use sightline::timeline::nsys::stats;
use sightline::timeline::nsys::trace::Trace;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    if dir.join("MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        crate::common::skip_shared(format!("{} is absent", dir.display()));
        None
    }
}

fn exports(corpus: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(corpus.join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("MANIFEST.tsv: {e}"));
    manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| f.ends_with(".sqlite"))
        .map(|f| corpus.join(f))
        .collect()
}

fn engine() -> RuleEngine {
    RuleEngine::start().unwrap_or_else(|e| panic!("{e}"))
}

fn run(engine: &RuleEngine, trace: &Arc<Trace>, requests: Vec<String>) -> Vec<TimelineOutcome> {
    let options = TimelineRunOptions {
        requests: Some(requests),
        timeout: Duration::from_secs(30),
        ..TimelineRunOptions::bundled()
    };
    let out = engine
        .run_timeline(trace.clone(), options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
    out.findings.into_iter().map(|f| f.outcome).collect()
}

fn first_difference(expected: &str, got: &str) -> String {
    for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        if e != g {
            return format!("line {}:\n expected {e}\n      got {g}", i + 1);
        }
    }
    format!(
        "{} lines expected, {} got",
        expected.lines().count(),
        got.lines().count()
    )
}

/// Runs every line of an oracle `STATUS.tsv` (rules and options as `nsys analyze` ran them)
/// on `export` and returns what differs; `dir` holds the oracle's CSVs.
fn check_against_oracle(
    engine: &RuleEngine,
    export: &Path,
    status: &str,
    dir: &Path,
) -> (usize, Vec<String>) {
    let stem = export
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let trace = Arc::new(Trace::open(export).unwrap_or_else(|e| panic!("{e}")));
    let lines: Vec<(String, String)> = status
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut c = l.split('\t');
            Some((c.next()?.to_string(), c.next()?.to_string()))
        })
        .collect();
    let requests = lines.iter().map(|(n, _)| n.replace('@', ":")).collect();
    let outcomes = run(engine, &trace, requests);
    let shown = format!("inputs/{stem}.sqlite");
    let mut failures = Vec::new();
    for ((name, state), outcome) in lines.iter().zip(outcomes) {
        let what = format!("{stem}: {name}");
        match (state.as_str(), &outcome) {
            ("ok", TimelineOutcome::Table { table, .. }) => {
                let expected = std::fs::read_to_string(dir.join(format!("{name}.csv")))
                    .unwrap_or_else(|e| panic!("{what}.csv: {e}"));
                let got = stats::to_csv(table);
                if got != expected {
                    failures.push(format!("{what}: {}", first_difference(&expected, &got)));
                }
            }
            (s, TimelineOutcome::Table { table, .. }) if s.starts_with("no-rows") => {
                if !table.rows.is_empty() {
                    failures.push(format!(
                        "{what}: nsys has no rows, got {}",
                        table.rows.len()
                    ));
                }
            }
            (s, _) if s.starts_with("SKIPPED: ") => {
                let message = s["SKIPPED: ".len()..].replace(&shown, &export.display().to_string());
                let refused = message.contains("Please re-export")
                    || message.contains("does not contain ENUM_");
                match &outcome {
                    TimelineOutcome::Skipped(m) if *m == message => {}
                    TimelineOutcome::Table { .. } if refused => {}
                    other => {
                        failures.push(format!("{what}: nsys SKIPPED: {message}, got {other:?}"))
                    }
                }
            }
            (s, other) => failures.push(format!("{what}: nsys {s}, got {other:?}")),
        }
    }
    (lines.len(), failures)
}

#[test]
fn every_rule_on_every_export_equals_nsys_analyze() {
    let Some(corpus) = corpus() else { return };
    let engine = engine();
    let mut failures = Vec::new();
    let mut checked = 0;
    for export in exports(&corpus) {
        let stem = export
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let oracle = corpus.join("oracle").join(&stem).join("analyze");
        let status = std::fs::read_to_string(oracle.join("STATUS.tsv"))
            .unwrap_or_else(|e| panic!("{}: {e}", oracle.display()));
        let (n, f) = check_against_oracle(&engine, &export, &status, &oracle);
        checked += n;
        failures.extend(f);
    }
    eprintln!("{checked} rule runs checked against nsys analyze");
    assert!(checked > 0, "no rule run checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The generated export that gives every rule something to find, with rules run with options:
/// equal to `nsys analyze`'s output, committed beside it (fixtures/nsys/golden/analyze/).
#[test]
fn fixture_rules_and_options_equal_the_nsys_analyze_goldens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = root.join("fixtures/nsys/golden/analyze");
    let status = std::fs::read_to_string(golden.join("STATUS.tsv"))
        .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
    let (checked, failures) = check_against_oracle(
        &engine(),
        &root.join("fixtures/nsys/expert.sqlite"),
        &status,
        &golden,
    );
    assert!(checked > 10, "{checked} lines in {}", golden.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn expert_fixture_is_what_the_generator_writes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let fresh = dir.path().join("expert.sqlite");
    sightline_test_support::nsys_expert::write_expert(&fresh).unwrap_or_else(|e| panic!("{e}"));
    let committed =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/expert.sqlite"))
            .unwrap_or_else(|e| panic!("{e}"));
    let written = std::fs::read(&fresh).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        committed == written,
        "fixtures/nsys/expert.sqlite differs from the generator's output: regenerate it (fixtures/nsys/README.md)"
    );
}

fn fixture_trace() -> Arc<Trace> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/synth_2k.sqlite");
    Arc::new(Trace::open(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn user_options(folder: &Path, requests: &[&str]) -> TimelineRunOptions {
    TimelineRunOptions {
        folders: vec![folder.to_path_buf()],
        requests: Some(requests.iter().map(|r| r.to_string()).collect()),
        timeout: Duration::from_secs(2),
        ..TimelineRunOptions::bundled()
    }
}

const LONGEST: &str = r#"
import timeline
NAME = "longest_kernels"
TITLE = "Longest kernels"
OPTIONS = {"rows": 3}
def analyze(trace, options):
    k = trace.events("gpu").where("op", "==", "kernel").sort("-duration", "start").head(options["rows"])
    return timeline.Result(["Duration (ns)", "Name"], k.rows("duration", "name"), events=k)
"#;

#[test]
fn a_user_rule_is_added_edited_and_broken() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("longest.py");
    std::fs::write(&file, LONGEST).unwrap_or_else(|e| panic!("{e}"));
    let engine = engine();
    let trace = fixture_trace();
    let out = engine
        .run_timeline(
            trace.clone(),
            user_options(dir.path(), &["longest_kernels"]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.rules.iter().any(|r| r.name == "longest_kernels"));
    assert!(
        out.rules.iter().any(|r| r.name == "gpu_gaps"),
        "bundled rules beside"
    );
    let (table, events) = match &out.findings[0].outcome {
        TimelineOutcome::Table { table, events, .. } => (table.clone(), events.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(table.rows.len(), 3);
    // The longest kernel of the export, and the finding names its row.
    let kernels = trace.table("gpu").unwrap_or_else(|| panic!("gpu table"));
    let longest = (0..kernels.len())
        .filter(|&i| kernels.value("op", i).and_then(|(_, v)| trace.text(v)) == Some("kernel"))
        .map(|i| kernels.value("duration", i).map_or(0, |(_, v)| v))
        .max()
        .unwrap_or(0);
    assert_eq!(
        table.rows.cell(0, 0).expect("a cell").as_str(),
        longest.to_string()
    );
    assert!(matches!(&events[0], Some((t, _)) if t == "CUPTI_ACTIVITY_KIND_KERNEL"));
    // Edited: the next run loads the new text (options too).
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&file, LONGEST.replace("\"rows\": 3", "\"rows\": 5"))
        .unwrap_or_else(|e| panic!("{e}"));
    let out = engine
        .run_timeline(
            trace.clone(),
            user_options(dir.path(), &["longest_kernels"]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(&out.findings[0].outcome, TimelineOutcome::Table { table, .. } if table.rows.len() == 5)
    );
    // An option given on the request overrides the default; an unknown one is the rule's error.
    let out = engine
        .run_timeline(
            trace.clone(),
            user_options(
                dir.path(),
                &["longest_kernels:rows=1", "longest_kernels:rowz=1"],
            ),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(&out.findings[0].outcome, TimelineOutcome::Table { table, .. } if table.rows.len() == 1)
    );
    assert!(
        matches!(&out.findings[1].outcome, TimelineOutcome::Error(m) if m.contains("unknown option \"rowz\"")),
        "{:?}",
        out.findings[1].outcome
    );
    // Broken: a syntax error is a load error naming the file; the bundled rules still run.
    std::fs::write(&file, "def analyze(trace, options:\n").unwrap_or_else(|e| panic!("{e}"));
    let out = engine
        .run_timeline(trace.clone(), user_options(dir.path(), &["gpu_gaps"]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.load_errors
            .iter()
            .any(|e| e.message.contains("longest.py") && e.message.contains("SyntaxError")),
        "{:?}",
        out.load_errors
    );
    assert!(matches!(
        &out.findings[0].outcome,
        TimelineOutcome::Table { .. }
    ));
}

#[test]
fn hostile_timeline_rules_are_contained() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let rules = [
        (
            "spin",
            "def analyze(trace, options):\n    while True:\n        pass\n",
        ),
        (
            "writer",
            "def analyze(trace, options):\n    open('/tmp/sightline-hostile-rule', 'w').write('x')\n",
        ),
        (
            "shell",
            "import os\ndef analyze(trace, options):\n    os.system('true')\n",
        ),
        (
            "raiser",
            "def analyze(trace, options):\n    raise RuntimeError('boom')\n",
        ),
        ("wrong", "def analyze(trace, options):\n    return 42\n"),
        (
            "badcol",
            "def analyze(trace, options):\n    return trace.events('gpu').where('nope', '==', 1)\n",
        ),
    ];
    for (name, text) in rules {
        std::fs::write(dir.path().join(format!("{name}.py")), text)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let engine = engine();
    let names: Vec<&str> = rules.iter().map(|(n, _)| *n).collect();
    let mut options = user_options(dir.path(), &names);
    options.timeout = Duration::from_millis(500);
    let out = engine
        .run_timeline(fixture_trace(), options)
        .unwrap_or_else(|e| panic!("{e}"));
    let error = |i: usize| match &out.findings[i].outcome {
        TimelineOutcome::Error(m) => m.clone(),
        other => panic!("{}: {other:?}", names[i]),
    };
    assert!(
        error(0).contains("Timeout") || error(0).contains("time"),
        "{}",
        error(0)
    );
    assert!(error(1).contains("PermissionError"), "{}", error(1));
    assert!(!Path::new("/tmp/sightline-hostile-rule").exists());
    assert!(
        error(2).contains("AttributeError") || error(2).contains("system"),
        "{}",
        error(2)
    );
    assert!(error(3).contains("boom"), "{}", error(3));
    assert!(error(4).contains("not a timeline.Result"), "{}", error(4));
    assert!(error(5).contains("no column \"nope\""), "{}", error(5));
    // The engine still answers after all that.
    let out = engine
        .run_timeline(fixture_trace(), TimelineRunOptions::bundled())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.findings.len(), out.rules.len());
}

/// Memory kinds of exports without `ENUM_CUDA_MEM_KIND` (where Sightline answers the rules nsys
/// refuses) are named by nsys's numbering: every corpus export that has the table numbers them
/// as the fallback does, and the trace of one that lacks it names its copies' kinds by it (a
/// host-to-device copy goes from pageable or pinned memory to the device).
#[test]
fn memory_kinds_without_their_enum_table_use_nsys_numbering() {
    use sightline::timeline::nsys::MEM_KIND_LABELS;
    let Some(corpus) = corpus() else {
        return;
    };
    let mut without = 0;
    for file in exports(&corpus) {
        let conn = rusqlite::Connection::open_with_flags(
            &file,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let has_enum = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'ENUM_CUDA_MEM_KIND'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap_or_else(|e| panic!("{e}"))
            > 0;
        if has_enum {
            let mut stmt = conn
                .prepare("SELECT id, label FROM ENUM_CUDA_MEM_KIND")
                .unwrap_or_else(|e| panic!("{e}"));
            let rows: Vec<(i64, String)> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .and_then(Iterator::collect)
                .unwrap_or_else(|e| panic!("{e}"));
            for (id, label) in rows {
                assert_eq!(
                    MEM_KIND_LABELS.get(id as usize).copied(),
                    Some(label.as_str()),
                    "{}: memory kind {id}",
                    file.display()
                );
            }
            continue;
        }
        let trace = Trace::open(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let Some(gpu) = trace.table("gpu") else {
            continue;
        };
        let column = |name: &str| {
            gpu.column(name)
                .unwrap_or_else(|| panic!("{name}"))
                .values
                .clone()
        };
        let (ops, src, dst) = (column("copy_kind"), column("src_kind"), column("dst_kind"));
        for i in 0..ops.len() {
            if trace.text(ops[i]) == Some("Host-to-Device") {
                without += 1;
                let (s, d) = (trace.text(src[i]), trace.text(dst[i]));
                assert!(
                    matches!(s, Some("Pageable" | "Pinned")) && d == Some("Device"),
                    "{}: a host-to-device copy from {s:?} to {d:?}",
                    file.display()
                );
            }
        }
    }
    assert!(
        without > 0,
        "no host-to-device copy in an export without ENUM_CUDA_MEM_KIND"
    );
}
