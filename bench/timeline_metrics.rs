//! GPU metrics' resident cost: `cargo bench -p sightline-model --bench timeline_metrics [--
//! SAMPLES]` writes an export of 22 GPU metrics (an A100's metric set) sampled
//! SAMPLES / 22 times (default 1,750,408 samples, the training export of issue 46) into
//! `target/bench-data/`, loads it, and prints the load time, the bytes the timeline holds per
//! sample (`Timeline::heap_bytes` of the export less that of the same export with one sampling
//! time)
//! and the RSS growth per sample. Budget: 16 bytes a sample. Then it opens the export again as
//! the app does (`load_timeline` with a preview callback) and prints that time and when the
//! first preview came. Run it with `--profile release` for the figures users see (the bench
//! profile is the release one: plain `cargo bench` builds optimized).
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{Connection, params};
use sightline_model::timeline::nsys;
// The metrics of an A100, as the test generators write them.
use sightline_test_support::nsys_metrics::A100_METRICS as METRICS;

/// Writes the export with `times` sampling times (each a sample of every metric).
fn write(path: &Path, times: u64) {
    let _ = std::fs::remove_file(path);
    let mut conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
         CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT);
         CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL,
           typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);
         CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER NOT NULL,
           metricId INTEGER NOT NULL, value INTEGER NOT NULL);
         INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A100-SXM4-40GB');",
    )
    .unwrap();
    let tx = conn.transaction().unwrap();
    for (m, name) in METRICS.iter().enumerate() {
        tx.execute(
            "INSERT INTO TARGET_INFO_GPU_METRICS VALUES (1, 1, 'GA100', ?1, ?2)",
            params![m as i64, name],
        )
        .unwrap();
    }
    {
        let mut insert = tx
            .prepare("INSERT INTO GPU_METRICS VALUES (?1, 1, ?2, ?3)")
            .unwrap();
        // 10 kHz sampling with a little jitter; values like real ones (mostly small, varying).
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for k in 0..times {
            let t = 1_000_000 + k as i64 * 100_000 + (k % 7) as i64;
            for m in 0..METRICS.len() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let value = if m == 10 || m == 11 {
                    1005 + (state % 406) as i64
                } else {
                    (state % 101) as i64
                };
                insert.execute(params![t, m as i64, value]).unwrap();
            }
        }
    }
    tx.commit().unwrap();
}

fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn main() {
    let samples: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map_or(1_750_408, |a| a.parse().unwrap());
    let times = samples.div_ceil(METRICS.len() as u64);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    // The baseline: the same export with one sampling time (an export without any sample is
    // refused as empty).
    let empty = dir.join("metrics-1.sqlite");
    write(&empty, 1);
    let path = dir.join(format!("metrics-{samples}.sqlite"));
    write(&path, times);
    let base = nsys::load(&empty).unwrap().heap_bytes();
    sightline_model::timeline::release_free_memory();
    let rss_before = rss_bytes();
    let started = Instant::now();
    let tl = nsys::load(&path).unwrap();
    let load = started.elapsed();
    sightline_model::timeline::release_free_memory();
    let rss_after = rss_bytes();
    let n = tl.sample_count();
    assert_eq!(n as u64, times * METRICS.len() as u64);
    let per_sample = (tl.heap_bytes() - base) as f64 / (n - METRICS.len()) as f64;
    let rss = rss_after.saturating_sub(rss_before) as f64 / n as f64;
    println!(
        "{n} samples of {} metrics: load {:.2} s, timeline {per_sample:.2} B/sample (heap), \
         RSS growth {rss:.2} B/sample (budget 16)",
        METRICS.len(),
        load.as_secs_f64()
    );
    std::hint::black_box(&tl);
    drop(tl);
    open_as_the_app(&path);
}

/// Opens `path` as the app does (with a preview callback, NVTXT files beside it merged) and
/// prints the time to the whole timeline and to the first preview.
fn open_as_the_app(path: &Path) {
    use sightline_model::timeline::{TimelineFileKind, load_timeline};
    let started = Instant::now();
    let mut first_preview = None;
    let mut previews = 0;
    let mut on_preview = |_tl: sightline_model::timeline::Timeline| {
        previews += 1;
        first_preview.get_or_insert(started.elapsed());
    };
    let options = nsys::LoadOptions {
        preview: Some(&mut on_preview),
        ..nsys::LoadOptions::default()
    };
    let loaded = load_timeline(path, TimelineFileKind::NsysExport, path, options, true).unwrap();
    let open = started.elapsed();
    println!(
        "opened as the app does: {:.2} s ({} samples; {previews} previews, the first at {})",
        open.as_secs_f64(),
        loaded.timeline.sample_count(),
        first_preview.map_or("-".to_owned(), |d| format!("{:.2} s", d.as_secs_f64()))
    );
}
