//! GPU metrics on the timeline: a generated export with the 22 metrics of an A100 (as real
//! exports name them), in `GPU_METRICS` or as generic events with NULL timestamps, loads as one
//! counter track per metric under its GPU and group, with every sample's value as written; the
//! CLI lists each metric track with its sample count and prints each sample's value; generic
//! events with NULL timestamps are placed by their source's time base; and every `GPU_METRICS`
//! row of the corpus exports lands on a named metric track.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use sightline::timeline::nsys;
use sightline::timeline::{EventKind, Layout, Timeline, TrackId};
use sightline_test_support::nsys_metrics::{
    A100_METRICS, MetricsOptions, add_generic_instants, metric_time, metric_value, write_metrics,
};

fn export(dir: &Path, options: &MetricsOptions) -> PathBuf {
    let path = dir.join(if options.generic {
        "metrics_generic.sqlite"
    } else {
        "metrics.sqlite"
    });
    write_metrics(&path, options).expect("write the export");
    path
}

/// The series tracks of `tl` by name.
fn metric_tracks(tl: &Timeline) -> HashMap<String, TrackId> {
    tl.all_counter_series()
        .iter()
        .map(|(t, _)| (tl.tracks[t.0 as usize].name.clone(), *t))
        .collect()
}

/// Every metric is one track named as the export names it, under GPU 0 → "GPU Metrics" → its
/// group, with every sample as written (time and value).
fn check_every_sample(tl: &Timeline, options: &MetricsOptions) {
    let tracks = metric_tracks(tl);
    assert_eq!(tracks.len(), A100_METRICS.len(), "{:?}", tracks.keys());
    for (m, name) in A100_METRICS.iter().enumerate() {
        let track = tracks[*name];
        let path = tl.track_path(track);
        assert!(
            path.contains("GPU 0 (NVIDIA A100-SXM4-40GB)/GPU Metrics/"),
            "{path}"
        );
        assert_eq!(tl.tracks[track.0 as usize].layout, Layout::Counter);
        let series = tl.counter_series(track).expect("a series");
        assert_eq!(series.len() as u64, options.times, "{name}");
        for k in 0..options.times {
            let got = series.get(k as usize).expect("a sample");
            let want = (metric_time(options, k), metric_value(m, k) as f64);
            assert_eq!(got, want, "{name} sample {k}");
        }
    }
    let group = |name: &str| {
        let track = tracks[name];
        let parent = tl.tracks[track.0 as usize].parent.expect("a group");
        tl.tracks[parent.0 as usize].name.clone()
    };
    assert_eq!(group("SM Active"), "GPU Activity");
    assert_eq!(group("Tensor Active"), "GPU Activity");
    assert_eq!(group("DRAM Read Bandwidth"), "Memory Bandwidth");
    assert_eq!(group("PCIe RX Throughput"), "PCIe");
    assert_eq!(group("NVLink TX Requests User Data"), "NVLink");
    assert_eq!(group("Compute Warps in Flight"), "Warps");
    assert_eq!(group("GPC Clock Frequency"), "Clocks");
    let unit = |name: &str| {
        tl.counter_series(tracks[name])
            .and_then(|s| s.unit.clone())
            .unwrap_or_default()
    };
    assert_eq!(unit("SM Active"), "%");
    assert_eq!(unit("GPC Clock Frequency"), "MHz");
}

#[test]
fn every_sample_of_22_metrics_is_on_its_named_track() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = MetricsOptions {
        times: 300,
        ..MetricsOptions::default()
    };
    let path = export(dir.path(), &options);
    let tl = nsys::load(&path).expect("load");
    check_every_sample(&tl, &options);
    assert_eq!(tl.sample_count(), 300 * 22);
    let stats = &tl.session.imports.sources["GPU_METRICS"];
    assert_eq!((stats.rows, stats.events), (300 * 22, 300 * 22));
    assert_eq!(stats.unaccounted(), 0);
    assert_eq!(
        tl.session.imports.sources["TARGET_INFO_GPU_METRICS"].unaccounted(),
        0
    );
    // The time range covers the samples.
    assert_eq!(
        tl.time_range(),
        Some((metric_time(&options, 0), metric_time(&options, 299)))
    );
}

#[test]
fn buckets_and_range_statistics_of_a_metric() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = MetricsOptions {
        times: 1000,
        ..MetricsOptions::default()
    };
    let tl = nsys::load(&export(dir.path(), &options)).expect("load");
    let m = 13; // SM Active
    let track = metric_tracks(&tl)[A100_METRICS[m]];
    let values: Vec<f64> = (0..1000).map(|k| metric_value(m, k) as f64).collect();
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    assert_eq!(tl.counter_range(track), Some((min, max)));
    // Buckets of 37 samples: each bucket's extremes are those of its samples.
    let (t0, t1) = (metric_time(&options, 0), metric_time(&options, 999));
    let bucket_ns = 37.0 * options.period_ns as f64;
    let mut buckets = Vec::new();
    tl.counter_buckets(track, 0, t0, t1, bucket_ns, &mut buckets);
    assert_eq!(buckets.len(), 1000usize.div_ceil(37));
    for (i, b) in buckets.iter().enumerate() {
        let chunk = &values[i * 37..((i + 1) * 37).min(1000)];
        let lo = chunk.iter().copied().fold(f64::MAX, f64::min);
        let hi = chunk.iter().copied().fold(f64::MIN, f64::max);
        assert_eq!(
            (b.first, b.min, b.max, b.last),
            (chunk[0], lo, hi, chunk[chunk.len() - 1])
        );
    }
    // Over samples 100..=200: the level held from each sample to the next.
    let (r0, r1) = (metric_time(&options, 100), metric_time(&options, 200));
    let s = tl.counter_stats(track, r0, r1).expect("stats");
    let inside = &values[100..=200];
    assert_eq!(s.samples, 101);
    assert_eq!(s.min, inside.iter().copied().fold(f64::MAX, f64::min));
    assert_eq!(s.max, inside.iter().copied().fold(f64::MIN, f64::max));
    let average = values[100..200].iter().sum::<f64>() / 100.0;
    assert!(
        (s.average - average).abs() < 1e-9,
        "{} vs {average}",
        s.average
    );
}

#[test]
fn generic_events_with_null_timestamps_are_placed_by_their_source() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = MetricsOptions {
        times: 120,
        generic: true,
        ..MetricsOptions::default()
    };
    let path = export(dir.path(), &options);
    add_generic_instants(&path, 5).expect("add instants");
    let tl = nsys::load(&path).expect("load");
    // The GPU metric samples: one track per field, every value as written.
    check_every_sample(&tl, &options);
    // The instants of the session-time source: on its row at their raw times.
    let marks: Vec<i64> = tl
        .events()
        .filter(|e| e.kind == EventKind::Marker && tl.name(e.name) == "sched_wakeup")
        .map(|e| e.start)
        .collect();
    assert_eq!(
        marks,
        (0..5).map(|k| 2_000_000 + 1_000 * k).collect::<Vec<_>>()
    );
    let (track, _) = tl
        .locate(
            tl.events()
                .find(|e| tl.name(e.name) == "sched_wakeup")
                .unwrap()
                .id,
        )
        .unwrap();
    assert!(tl.track_path(track).ends_with("Generic events: ftrace"));
    // The rows of the other time base are skipped, with that time base named.
    let stats = &tl.session.imports.sources["GENERIC_EVENTS"];
    assert_eq!(stats.rows, 120 + 5 + 3);
    assert_eq!(stats.events, 120 + 5);
    assert_eq!(stats.skipped_total(), 3);
    let reason = stats.skipped.keys().next().unwrap();
    assert!(reason.contains("QPC"), "{reason}");
    assert!(
        tl.warnings
            .iter()
            .any(|w| w.problem.message.contains("QPC")),
        "{:?}",
        tl.warnings
    );
}

fn sightline() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("{e}"))
}

/// Finds the track `name` in the `--json` track tree, with the names of the tracks above it.
fn find_track<'v>(
    tracks: &'v [serde_json::Value],
    name: &str,
    above: &mut Vec<String>,
) -> Option<&'v serde_json::Value> {
    for t in tracks {
        if t["name"] == name {
            return Some(t);
        }
        above.push(t["name"].as_str().unwrap_or("").to_owned());
        if let Some(found) = find_track(t["children"].as_array()?, name, above) {
            return Some(found);
        }
        above.pop();
    }
    None
}

#[test]
fn the_cli_lists_metric_tracks_and_prints_every_sample_value() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = MetricsOptions {
        times: 40,
        ..MetricsOptions::default()
    };
    let path = export(dir.path(), &options);
    let json = stdout_of(sightline().args(["timeline", "--json"]).arg(&path));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let roots = v["tracks"].as_array().expect("tracks");
    for name in A100_METRICS {
        let mut above = Vec::new();
        let t = find_track(roots, name, &mut above).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(t["samples"], 40, "{name}");
        assert!(
            above.iter().any(|a| a.starts_with("GPU 0")),
            "{name} under {above:?}"
        );
    }
    // The summary says the samples, not only "0 events".
    let text = stdout_of(sightline().arg("timeline").arg(&path));
    assert!(text.contains("  0 events ("), "{text}");
    assert!(
        text.contains("  880 samples in 22 metric tracks\n"),
        "{text}"
    );
    let lines = stdout_of(sightline().args(["timeline", "--events"]).arg(&path));
    let mut values: HashMap<String, Vec<(i64, f64)>> = HashMap::new();
    for line in lines.lines() {
        let e: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert_eq!(e["kind"], "counter");
        values
            .entry(e["name"].as_str().unwrap().to_owned())
            .or_default()
            .push((e["start"].as_i64().unwrap(), e["value"].as_f64().unwrap()));
    }
    assert_eq!(values.len(), 22);
    for (m, name) in A100_METRICS.iter().enumerate() {
        let want: Vec<(i64, f64)> = (0..40)
            .map(|k| (metric_time(&options, k), metric_value(m, k) as f64))
            .collect();
        assert_eq!(values[*name], want, "{name}");
    }
}

/// Every corpus export listed in the manifest that has `GPU_METRICS`: each row is a sample of
/// the track of its metric, named as `TARGET_INFO_GPU_METRICS` names it.
#[test]
fn every_corpus_gpu_metrics_row_lands_on_a_named_metric_track() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nsys");
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        crate::common::skip_shared(format!("{}/MANIFEST.tsv is absent", dir.display()));
        return;
    };
    let mut checked = 0;
    for line in manifest.lines().skip(1) {
        let Some(file) = line.split('\t').next().filter(|f| f.ends_with(".sqlite")) else {
            continue;
        };
        let path = dir.join(file);
        let conn = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        let Ok(mut stmt) = conn.prepare(
            "SELECT coalesce(n.metricName, ''), count(*) FROM GPU_METRICS g \
             LEFT JOIN TARGET_INFO_GPU_METRICS n USING (typeId, metricId) \
             WHERE g.timestamp IS NOT NULL GROUP BY g.typeId, g.metricId",
        ) else {
            continue;
        };
        let rows: Vec<(String, usize)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (t, s) in tl.all_counter_series() {
            if tl.session.series_sources.get(t).map(String::as_str) == Some("GPU_METRICS") {
                *by_name
                    .entry(tl.tracks[t.0 as usize].name.clone())
                    .or_default() += s.len();
            }
        }
        let mut want: HashMap<String, usize> = HashMap::new();
        for (name, n) in rows {
            assert!(!name.is_empty(), "{file}: a metric without a name");
            *want.entry(name).or_default() += n;
        }
        assert_eq!(by_name, want, "{file}");
        checked += 1;
    }
    assert!(checked > 0, "no export of the manifest has GPU_METRICS");
}
