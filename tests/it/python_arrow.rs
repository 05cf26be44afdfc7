//! `sightline.nsys`: an export's tables, events and `nsys stats` reports as Arrow tables
//! (pyarrow), checked against Python's `sqlite3` and NVIDIA's `nsys stats` outputs
//! (`tests/python/arrow_check.py`); `sightline export --format parquet` writes the same tables.
//! pyarrow comes from `.ci/run`; without it the tests skip, and fail instead under
//! `SIGHTLINE_REQUIRE_WHEEL=1`.

use std::path::{Path, PathBuf};

use crate::python_module::{run_python, site};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The module's site folder, when pyarrow is importable there too.
fn arrow_site() -> Option<&'static Path> {
    let site = site()?;
    if run_python(site, &["-c", "import pyarrow"]).is_err() {
        assert!(
            std::env::var_os("SIGHTLINE_REQUIRE_WHEEL").is_none_or(|v| v != "1"),
            "pyarrow is not installed (python3 -m pip install pyarrow: .ci/run does)"
        );
        eprintln!("skipped: pyarrow not installed");
        return None;
    }
    Some(site)
}

fn check(site: &Path, pairs: &[(PathBuf, PathBuf)]) -> String {
    let script = root().join("tests/python/arrow_check.py");
    let mut args = vec![script.to_string_lossy().into_owned()];
    for (export, oracle) in pairs {
        args.push(export.to_string_lossy().into_owned());
        args.push(oracle.to_string_lossy().into_owned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_python(site, &args).unwrap_or_else(|e| panic!("{e}"))
}

/// The fixture export: every table equals sqlite3's rows.
#[test]
fn fixture_tables_equal_sqlite3_rows() {
    let Some(site) = arrow_site() else { return };
    let export = root().join("fixtures/nsys/synth_2k.sqlite");
    let out = check(site, &[(export, PathBuf::from("no-oracle"))]);
    assert!(out.trim_end().ends_with("ok"), "{out}");
    assert!(!out.contains("tables=0 "), "{out}");
}

/// Every corpus export the MANIFEST lists: every table equals sqlite3's rows, every `nsys
/// stats` report NVIDIA's CSV.
#[test]
fn corpus_tables_equal_sqlite3_and_reports_equal_nsys_stats() {
    let dir = root().join("../shared/corpus/nsys");
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        crate::common::skip_shared("../shared/corpus/nsys/MANIFEST.tsv not found");
        return;
    };
    let Some(site) = arrow_site() else { return };
    let pairs: Vec<(PathBuf, PathBuf)> = manifest
        .lines()
        .skip(1)
        .filter_map(|line| line.split('\t').next())
        .filter(|name| name.ends_with(".sqlite"))
        .map(|name| {
            let stem = name.trim_end_matches(".sqlite");
            (dir.join(name), dir.join("oracle").join(stem))
        })
        .collect();
    assert!(!pairs.is_empty(), "the MANIFEST lists no export");
    let out = check(site, &pairs);
    eprintln!("{}", out.lines().rev().nth(1).unwrap_or_default());
    assert!(out.trim_end().ends_with("ok"), "{out}");
    assert!(!out.contains("reports=0 "), "{out}");
}

/// The timeline's events and counter samples: as many as `sightline timeline` counts, the
/// columns documented, kinds and tracks as dictionary strings; a pickled export reopens; a
/// stats report nsys would skip gives `None` and a warning; an unknown table a `KeyError`; a
/// missing file `FileNotFoundError`; and the tables are usable from threads.
#[test]
fn events_stats_errors_pickle_and_threads() {
    let Some(site) = arrow_site() else { return };
    let export = root().join("fixtures/nsys/synth_2k.sqlite");
    let summary = crate::common::sightline_ok(["timeline", export.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let events = json["events"]
        .as_u64()
        .expect("timeline --json counts events");
    let script = format!(
        r#"
import pickle, threading, warnings
import pyarrow as pa
import sightline.nsys as nsys
e = nsys.open({export:?})
t = e.events()
assert t.num_rows == {events}, (t.num_rows, {events})
assert t.column_names[:8] == ["id", "track", "row", "kind", "name", "start", "end", "duration"], t.column_names
assert pa.types.is_dictionary(t.schema.field("kind").type)
assert set(t.column("kind").to_pylist()) >= {{"kernel"}}, set(t.column("kind").to_pylist())
d = t.column("duration").to_pylist()
assert all(x >= 0 for x in d) and d == [b - a for a, b in zip(t.column("start").to_pylist(), t.column("end").to_pylist())]
c = e.counters()
assert c.column_names == ["track", "time", "value"]
k = e.stats("cuda_gpu_kern_sum")
assert k.num_rows > 0 and k.schema.field("Instances").type == pa.int64(), k.schema
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    assert e.stats("openmp_sum") is None
    assert any("SKIPPED" in str(x.message) for x in w), [str(x.message) for x in w]
try:
    e.table("NO_SUCH_TABLE"); raise SystemExit("no KeyError")
except KeyError as err:
    assert "synth_2k.sqlite" in str(err), err
try:
    nsys.open("/nonexistent/x.sqlite"); raise SystemExit("no FileNotFoundError")
except FileNotFoundError:
    pass
again = pickle.loads(pickle.dumps(e))
assert again.table_names() == e.table_names() and "StringIds" in again
results = []
def read(name):
    results.append((name, e.table(name).num_rows))
threads = [threading.Thread(target=read, args=(n,)) for n in e.table_names()]
[x.start() for x in threads]; [x.join() for x in threads]
assert sorted(results) == sorted((n, e.table(n).num_rows) for n in e.table_names())
print("ok")
"#,
        export = export.to_str().unwrap()
    );
    let out = run_python(site, &["-c", &script]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), "ok");
}

/// `sightline export --format parquet` writes every table, the events and the default
/// reports; each file read by pyarrow equals the Arrow table `sightline.nsys` gives.
#[test]
fn parquet_folder_equals_the_arrow_tables() {
    let Some(site) = arrow_site() else { return };
    let export = root().join("fixtures/nsys/synth_2k.sqlite");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("synth_pqtdir");
    crate::common::sightline_ok([
        "export",
        export.to_str().unwrap(),
        "--format",
        "parquet",
        "--events",
        "--stats",
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    let script = format!(
        r#"
import os
import pyarrow.parquet as pq
import sightline.nsys as nsys
e = nsys.open({export:?})
d = {dir:?}
names = e.table_names()
assert sorted(f[:-8] for f in os.listdir(d) if f.endswith(".parquet")) == sorted(names + ["events", "counters"])
for n in names:
    a, b = pq.read_table(os.path.join(d, n + ".parquet")), e.table(n)
    assert a.equals(b), (n, a.schema, b.schema)
ev = pq.read_table(os.path.join(d, "events.parquet"))
assert ev.column("track").to_pylist() == e.events().column("track").to_pylist()
k = pq.read_table(os.path.join(d, "stats", "cuda_gpu_kern_sum.parquet"))
assert k.equals(e.stats("cuda_gpu_kern_sum"))
print("ok")
"#,
        export = export.to_str().unwrap(),
        dir = out_dir.to_str().unwrap()
    );
    let out = run_python(site, &["-c", &script]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.trim(), "ok");
}
