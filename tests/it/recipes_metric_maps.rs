//! `sightline recipe` for NVIDIA's metric heat maps (`gpu_metric_util_map`, `nic_metric_map`).
//!
//! NVIDIA's outputs (Nsight Systems 2023.4) on the exports [`write_set`] writes are kept in
//! `fixtures/nsys/recipes/maps/SET/RUN/` (see the README there) and compared file by file,
//! every value. Where NVIDIA's recipe cannot run (`gpu_metric_util_map` on `GPU_METRICS` or
//! with `--start`), expectations computed by hand from the generators' formulas.

use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use rusqlite::Connection;
use sightline_test_support::nsys_metrics::{self, A100_METRICS, MetricsOptions};

use crate::recipes_nvtx::compare_fixture_set;

/// The session start of the generated exports (UTC ns).
const SESSION: i64 = 1_700_000_000_000_000_000;

/// The session start (`SESSION` + `offset`) and the capture's length, as the recipes read them.
fn clock(offset: i64, duration: i64) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
         CREATE TABLE IF NOT EXISTS ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL,
           startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL);
         INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ({}, '', '');
         INSERT INTO ANALYSIS_DETAILS VALUES (281474976710656, {duration}, 0, {duration});",
        SESSION + offset
    )
}

/// Runs `sql` on the export at `path` (created when missing).
fn amend(path: &Path, sql: &str) {
    Connection::open(path)
        .unwrap()
        .execute_batch(sql)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The GPU-metric exports: `(stem, GPU, sampling times, period, session offset, length)`.
const GPU_FILES: [(&str, u8, u64, i64, i64, i64); 2] = [
    ("gpu0", 0, 100, 100_000, 0, 12_000_000),
    ("gpu1", 1, 60, 150_000, 500_000, 11_000_000),
];

/// A NIC's globalId.
const NIC: i64 = 0x0100_0000_0000;

/// The NIC exports' tables (as 2023.4 exports them; NVIDIA's recipe needs `StringIds`).
const NIC_SCHEMA: &str = "
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_NETWORK_METRICS (metricsListId INTEGER NOT NULL, metricsIdx INTEGER NOT NULL,
  name TEXT NOT NULL, description TEXT NOT NULL, unit TEXT NOT NULL);
CREATE TABLE NIC_ID_MAP (nicId INTEGER NOT NULL, globalId INTEGER NOT NULL);
CREATE TABLE NET_NIC_METRIC (start INTEGER NOT NULL, end INTEGER NOT NULL, globalId INTEGER NOT NULL,
  metricsListId INTEGER NOT NULL, metricsIdx INTEGER NOT NULL, value INTEGER NOT NULL);
INSERT INTO TARGET_INFO_NETWORK_METRICS VALUES (0, 0, 'IB: Packets sent', '', 'packets/s'),
  (0, 1, 'IB: Bytes received', '', 'B/s'), (0, 2, 'IB: Bytes sent', '', 'B/s'),
  (0, 3, 'IB: Send waits', '', 'ticks/ms');
";

/// A NIC export: its stem, session offset, length, NICs `(nicId, globalId)` and samples
/// `(start, end, globalId, metricsIdx, value)`.
type NicFile = (
    &'static str,
    i64,
    i64,
    &'static [(i64, i64)],
    &'static [(i64, i64, i64, i64, i64)],
);

/// The `nic` set: `b` starts 250 ns after `a`; `a` has two NICs (ids not in globalId order).
const NIC_FILES: [NicFile; 2] = [
    (
        "a",
        0,
        1000,
        &[(2, NIC), (1, NIC + 4)],
        &[
            (150, 350, NIC, 2, 1000),
            (10, 13, NIC, 1, 7),
            (90, 110, NIC, 3, 2),
            (200, 260, NIC, 0, 99),
            (610, 630, NIC + 4, 2, 7),
            (620, 640, NIC + 4, 2, 11),
            (290, 310, NIC + 4, 3, 8),
            (300, 301, NIC + 4, 1, 5),
        ],
    ),
    (
        "b",
        250,
        520,
        &[(3, NIC + 3)],
        &[
            (0, 20, NIC + 3, 2, 1000),
            (100, 520, NIC + 3, 1, 10),
            (0, 100, NIC + 3, 3, 5),
            (99, 100, NIC + 3, 2, 3),
        ],
    ),
];

/// The `nic_unmapped` set: samples of a globalId without a NIC beside a NIC's.
const NIC_UNMAPPED: NicFile = (
    "unmapped",
    0,
    800,
    &[(5, NIC)],
    &[(100, 300, NIC, 2, 40), (50, 60, NIC + 9, 2, 70)],
);

/// Writes NIC export `file` into `dir`; returns it.
fn write_nic(dir: &Path, (stem, offset, duration, nics, samples): &NicFile) -> PathBuf {
    let path = dir.join(format!("{stem}.sqlite"));
    let mut sql = format!("{}{NIC_SCHEMA}", clock(*offset, *duration));
    for (nic, global) in *nics {
        sql.push_str(&format!("INSERT INTO NIC_ID_MAP VALUES ({nic}, {global});"));
    }
    for (s, e, global, idx, v) in *samples {
        sql.push_str(&format!(
            "INSERT INTO NET_NIC_METRIC VALUES ({s}, {e}, {global}, 0, {idx}, {v});"
        ));
    }
    amend(&path, &sql);
    path
}

/// Writes the GPU-metric exports into `dir`, as generic events (`generic`) or `GPU_METRICS`.
fn write_gpu(dir: &Path, generic: bool) -> Vec<PathBuf> {
    GPU_FILES
        .iter()
        .map(|&(stem, gpu, times, period_ns, offset, duration)| {
            let path = dir.join(format!("{stem}.sqlite"));
            let options = MetricsOptions {
                times,
                period_ns,
                generic,
                gpu,
            };
            nsys_metrics::write_metrics(&path, &options).unwrap();
            amend(&path, &clock(offset, duration));
            path
        })
        .collect()
}

/// Writes the exports of input set `set` into `dir`; returns them.
pub(crate) fn write_set(set: &str, dir: &Path) -> Vec<PathBuf> {
    match set {
        "gpu_metrics" => write_gpu(dir, true),
        "nic" => NIC_FILES.iter().map(|f| write_nic(dir, f)).collect(),
        "nic_unmapped" => vec![write_nic(dir, &NIC_UNMAPPED)],
        _ => panic!("no input set {set}"),
    }
}

/// The input sets with NVIDIA's outputs in `fixtures/nsys/recipes/maps/`.
const SETS: [&str; 3] = ["gpu_metrics", "nic", "nic_unmapped"];

/// Writes every input set into `$SIGHTLINE_MAP_INPUTS/SET/` (to run NVIDIA's recipes on them:
/// fixtures/nsys/recipes/maps/README.md); ignored unless run by name.
#[test]
#[ignore = "writes the inputs for the oracle runs"]
fn write_metric_map_inputs() {
    let root = PathBuf::from(std::env::var("SIGHTLINE_MAP_INPUTS").expect("SIGHTLINE_MAP_INPUTS"));
    for set in SETS {
        let dir = root.join(set);
        std::fs::create_dir_all(&dir).unwrap();
        for p in write_set(set, &dir) {
            println!("{}", p.display());
        }
    }
}

#[test]
fn metric_maps_equal_nvidias_on_generated_exports() {
    let mut compared = 0;
    for set in SETS {
        let dir = tempfile::tempdir().unwrap();
        let inputs = write_set(set, dir.path());
        let n = compare_fixture_set(&format!("maps/{set}"), &inputs);
        assert!(n >= 1, "{set}: {n} files compared");
        compared += n;
    }
    assert!(compared >= 6, "{compared} metric-map outputs compared");
}

/// Runs `recipe` over `inputs` with `args`; returns the output folder and standard error.
fn run(recipe: &str, inputs: &[PathBuf], args: &[&str]) -> (tempfile::TempDir, String) {
    let out = tempfile::tempdir().unwrap();
    let mut all: Vec<std::ffi::OsString> = vec!["recipe".into(), recipe.into(), "--input".into()];
    all.extend(inputs.iter().map(|p| p.as_os_str().to_owned()));
    all.extend(["--output".into(), out.path().as_os_str().to_owned()]);
    all.extend(args.iter().map(Into::into));
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(&all)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{recipe}: {stderr}");
    (out, stderr)
}

/// The rows of `analysis.parquet` in `dir`: `(Duration, values, device, File)`.
type Row = (i64, Vec<Option<f64>>, i64, String);

fn rows(dir: &Path) -> Vec<Row> {
    let path = dir.join("analysis.parquet");
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let (mut duration, mut values, mut device, mut file) = (0, vec![], 0, String::new());
            for (name, field) in row.unwrap().get_column_iter() {
                match (name.as_str(), field) {
                    ("Duration", Field::Long(v)) => duration = *v,
                    ("GPU" | "GlobalId", Field::Long(v)) => device = *v,
                    ("File", Field::Str(s)) => file = s.clone(),
                    ("NIC ID" | "__index_level_0__", _) => {}
                    (_, Field::Double(v)) => values.push(Some(*v)),
                    (_, Field::Null) => values.push(None),
                    (n, f) => panic!("{}: column {n}: {f:?}", path.display()),
                }
            }
            (duration, values, device, file)
        })
        .collect()
}

/// The mean of `SM Active`, `SM Issue`, `Tensor Active` per bin `(start, end]` of the
/// generated file `file` (of [`GPU_FILES`]) with bins of `size` ns, from the generator's
/// formulas; bins without samples left out.
fn expected_gpu_means(file: usize, size: i64) -> Vec<(i64, Vec<Option<f64>>)> {
    let (_, _, times, period_ns, offset, _) = GPU_FILES[file];
    let options = MetricsOptions {
        times,
        period_ns,
        generic: false,
        gpu: 0,
    };
    let columns: Vec<usize> = ["SM Active", "SM Issue", "Tensor Active"]
        .iter()
        .map(|m| A100_METRICS.iter().position(|n| n == m).unwrap())
        .collect();
    let mut bins: std::collections::BTreeMap<i64, Vec<Vec<f64>>> = Default::default();
    for k in 0..times {
        let t = nsys_metrics::metric_time(&options, k) + offset;
        let values = bins
            .entry((t - 1) / size)
            .or_insert_with(|| vec![vec![]; 3]);
        for (c, &m) in columns.iter().enumerate() {
            values[c].push(nsys_metrics::metric_value(m, k) as f64);
        }
    }
    bins.into_iter()
        .map(|(bin, values)| {
            let means = values
                .iter()
                .map(|v| {
                    Some((v.iter().sum::<f64>() / v.len() as f64 * 10.0).round_ties_even() / 10.0)
                })
                .collect();
            (bin * size, means)
        })
        .collect()
}

/// The GPU metrics from `GPU_METRICS` (which NVIDIA's recipe does not read) give the means of
/// the samples per bin, as computed from the generator's formulas.
#[test]
fn gpu_metric_means_per_bin_from_gpu_metrics_tables() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_gpu(dir.path(), false);
    let (out, _) = run("gpu_metric_util_map", &inputs, &["--bins", "9"]);
    let got = rows(out.path());
    // The axis: gpu0 ends at 12 ms, gpu1 at 0.5 + 11 ms: 12 ms in 9 bins of 1,333,334 ns.
    let size = 1_333_334;
    for (file, (stem, gpu, ..)) in GPU_FILES.iter().enumerate() {
        let mine: Vec<(i64, Vec<Option<f64>>)> = got
            .iter()
            .filter(|r| r.3 == *stem)
            .inspect(|r| assert_eq!(r.2, i64::from(*gpu)))
            .map(|r| (r.0, r.1.clone()))
            .collect();
        assert_eq!(mine, expected_gpu_means(file, size), "{stem}");
    }
    assert!(out.path().join("analysis.svg").exists());
    // The same samples as generic events give the same table.
    let generic = tempfile::tempdir().unwrap();
    let inputs = write_gpu(generic.path(), true);
    let (again, _) = run("gpu_metric_util_map", &inputs, &["--bins", "9"]);
    assert_eq!(rows(again.path()), got);
}

/// NVIDIA's `gpu_metric_util_map` stops on `--start`; Sightline keeps the samples at or after
/// it (on each file's own clock).
#[test]
fn gpu_metric_start_keeps_the_later_samples() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_gpu(dir.path(), true);
    let (out, _) = run(
        "gpu_metric_util_map",
        &inputs[..1],
        &["--bins", "12", "--start", "6000000"],
    );
    let got = rows(out.path());
    // gpu0's samples are at 1 ms + k × 0.1 ms: from k = 50 on; bins of 1 ms, (6, 7] ms first.
    let want: Vec<(i64, Vec<Option<f64>>)> = expected_gpu_means(0, 1_000_000)
        .into_iter()
        .filter(|(start, _)| *start >= 5_000_000)
        .map(|(start, v)| {
            if start == 5_000_000 {
                (start, vec![None; 3])
            } else {
                (start, v)
            }
        })
        .collect();
    // Bin (5, 6] ms keeps only its sample at 6 ms (k = 50).
    let k50: Vec<Option<f64>> = [13, 14, 15]
        .iter()
        .map(|&m| Some(nsys_metrics::metric_value(m, 50) as f64))
        .collect();
    let mut want = want;
    want[0].1 = k50;
    let mine: Vec<(i64, Vec<Option<f64>>)> = got.into_iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(mine, want);
}

/// A NIC sample adds value × its time in each bin, over the bin's time in the file × 100:
/// [150, 350) of 1000 B/s in bins of 100 ns gives 50,000, 100,000 and 50,000; NVIDIA's
/// `Bytes Recv` column holds `IB: Bytes sent`.
#[test]
fn nic_samples_are_weighed_by_their_time_in_each_bin() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_set("nic", dir.path());
    let (out, _) = run("nic_metric_map", &inputs[..1], &["--bins", "10"]);
    let got = rows(out.path());
    let first: Vec<Option<f64>> = got.iter().filter(|r| r.2 == NIC).map(|r| r.1[0]).collect();
    let mut want = vec![Some(0.0); 10];
    want[1] = Some(50_000.0);
    want[2] = Some(100_000.0);
    want[3] = Some(50_000.0);
    assert_eq!(first, want);
    // `IB: Bytes received` [10, 13) of 7: 21 ns·B/s over 100 ns × 100.
    assert_eq!(got[0].1[1], Some(21.0));
    // Two overlapping samples add up: [610, 630) of 7 and [620, 640) of 11 in bin 6.
    let second: Vec<&Row> = got.iter().filter(|r| r.2 == NIC + 4).collect();
    assert_eq!(second[6].1[0], Some(360.0));
}

#[test]
fn exports_without_metrics_are_named_and_give_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let nic = write_set("nic", dir.path());
    let (out, stderr) = run("gpu_metric_util_map", &nic[..1], &[]);
    assert!(stderr.contains("a.sqlite: no SM Active"), "{stderr}");
    assert!(!out.path().join("analysis.parquet").exists());
    let gpu = write_gpu(dir.path(), true);
    let (out, stderr) = run("nic_metric_map", &gpu, &[]);
    assert!(stderr.contains("gpu0.sqlite: no NIC metrics"), "{stderr}");
    assert!(!out.path().join("analysis.parquet").exists());
    // A broken file among good ones: named, the others still mapped.
    let bad = dir.path().join("broken.sqlite");
    std::fs::write(&bad, b"not a database").unwrap();
    let (out, stderr) = run("nic_metric_map", &[nic[0].clone(), bad], &["--bins", "5"]);
    assert!(stderr.contains("broken.sqlite"), "{stderr}");
    assert_eq!(rows(out.path()).len(), 2 * 5);
}
