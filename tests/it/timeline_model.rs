//! The timeline model on generated exports: level of detail, search, range statistics, GPU
//! utilization, flows, progress and cancel, and the per-event memory budget.

use std::sync::atomic::AtomicBool;

use sightline::core::{FnSink, Progress, Step};
use sightline::timeline::nsys::{self, LoadOptions, NsysError};
use sightline::timeline::{EventKind, Timeline, TrackKind};
use sightline_test_support::nsys::{SynthOptions, write_export, write_export_with_cpu};
use sightline_test_support::nsys_cpu::CpuOptions;

fn generated(events: u64) -> (tempfile::TempDir, std::path::PathBuf, Timeline) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("g.sqlite");
    write_export(
        &path,
        &SynthOptions {
            events,
            threads: 3,
            streams: 4,
            seed: 3,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tl = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    (dir, path, tl)
}

#[test]
fn level_of_detail_bounds_the_shapes_and_covers_every_event() {
    let (_dir, _path, tl) = generated(40_000);
    let (t0, t1) = tl.time_range().unwrap_or((0, 0));
    let width_px = 1000.0;
    let ns_per_px = (t1 - t0) as f64 / width_px;
    let mut items = Vec::new();
    for (t, track) in tl.tracks.iter().enumerate() {
        for (r, row) in track.rows.iter().enumerate() {
            items.clear();
            tl.visible(
                sightline::timeline::TrackId(t as u32),
                r,
                t0,
                t1,
                ns_per_px,
                &mut items,
            );
            let covered: u64 = items.iter().map(|i| u64::from(i.count)).sum();
            assert_eq!(
                covered,
                row.len() as u64,
                "zoomed out, every event is inside one item"
            );
            assert!(
                items.len() as f64 <= 2.0 * width_px + 2.0,
                "{} items for {width_px} px",
                items.len()
            );
            // Items are in order and do not overlap.
            for w in items.windows(2) {
                assert!(w[0].end <= w[1].start, "{:?}", w);
            }
        }
    }
    // Zoomed in to 1 ns per pixel, every visible event is its own item.
    let stream = tl
        .tracks
        .iter()
        .position(|t| t.kind == TrackKind::Stream)
        .unwrap_or(0);
    let row = &tl.tracks[stream].rows[0];
    let first = tl
        .event(sightline::timeline::EventId(row.start))
        .map(|e| e.start)
        .unwrap_or(0);
    items.clear();
    tl.visible(
        sightline::timeline::TrackId(stream as u32),
        0,
        first,
        first + 200_000,
        1.0,
        &mut items,
    );
    assert!(!items.is_empty() && items.iter().all(|i| i.count == 1));
}

#[test]
fn search_range_stats_and_utilization() {
    let (_dir, _path, tl) = generated(5_000);
    let hits = tl.search("GEMM_kernel");
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|&h| {
        tl.event(h)
            .is_some_and(|e| tl.name(e.name).contains("gemm_kernel"))
    }));
    let (t0, t1) = tl.time_range().unwrap_or((0, 0));
    let all = tl.range_stats(t0, t1, &[]);
    let total: u64 = all.iter().map(|s| s.count).sum();
    assert_eq!(
        total as usize,
        tl.event_count(),
        "the whole range holds every event"
    );
    assert!(all.windows(2).all(|w| w[0].total_ns >= w[1].total_ns));
    let half = tl.range_stats(t0, (t0 + t1) / 2, &[]);
    assert!(half.iter().map(|s| s.count).sum::<u64>() < total);
    let u = tl.gpu_utilization(None);
    assert_eq!(u.len(), 1);
    assert!(u[0].busy_ns > 0 && u[0].busy_ns <= u[0].range_ns);
}

#[test]
fn every_gpu_activity_has_its_call() {
    let (_dir, _path, tl) = generated(3_000);
    let gpu = tl.events().filter(|e| e.kind.is_gpu_work()).count();
    assert_eq!(tl.flows().len(), gpu);
    for e in tl.events().filter(|e| e.kind.is_gpu_work()) {
        let p = tl.flow_partners(e.id);
        assert_eq!(p.len(), 1);
        assert!(
            tl.event(p[0])
                .is_some_and(|c| c.kind == EventKind::CudaApi && c.correlation == e.correlation)
        );
    }
    // NVTX ranges keep their colour; start/end ranges sit in lanes of their own series.
    let nvtx = tl
        .events()
        .find(|e| e.kind == EventKind::NvtxPushPop)
        .map(|e| e.id);
    assert_eq!(
        nvtx.and_then(|id| tl.attrs(id)).and_then(|a| a.color),
        Some(0xFF00_80FF)
    );
    assert!(tl.tracks.iter().any(|t| t.name == "NVTX ranges (synth.io)"));
}

#[test]
fn progress_and_cancel() {
    let (_dir, path, tl) = generated(2_000);
    let mut calls = Vec::new();
    let progress = FnSink::new(|p: &Step<'_>| calls.push((p.done, p.total)));
    let again = nsys::load_with(
        &path,
        LoadOptions {
            progress: Progress::new(&progress),
            preview: None,
            first_preview: None,
            read_ahead: None,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.event_count(), tl.event_count());
    assert!(!calls.is_empty());
    let last = calls[calls.len() - 1];
    assert_eq!(last.0, last.1);
    assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
    let cancel = AtomicBool::new(true);
    let r = nsys::load_with(
        &path,
        LoadOptions {
            progress: Progress::new(&cancel),
            preview: None,
            first_preview: None,
            read_ahead: None,
        },
    );
    assert!(matches!(r, Err(NsysError::Cancelled { .. })));
}

/// Cancelled part way, while the next tables are being read ahead: the load says so and
/// returns (the readers started ahead are stopped and joined, none is left waiting).
#[test]
fn cancel_while_tables_are_read_ahead() {
    let (_dir, path, tl) = generated(300_000);
    for stop_at in [1, 2, 4, 8] {
        let cancel = AtomicBool::new(false);
        let mut reports = 0;
        let progress = FnSink::new(|_: &Step<'_>| {
            reports += 1;
            if reports == stop_at {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .with_cancel(&cancel);
        let r = nsys::load_with(
            &path,
            LoadOptions {
                progress: Progress::new(&progress),
                read_ahead: Some(3),
                ..LoadOptions::default()
            },
        );
        assert!(
            matches!(r, Err(NsysError::Cancelled { .. })),
            "stopped at report {stop_at}: {:?}",
            r.map(|t| t.event_count())
        );
    }
    // Not cancelled: the whole timeline, as read without readers ahead.
    let ahead = nsys::load_with(
        &path,
        LoadOptions {
            read_ahead: Some(3),
            ..LoadOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ahead.event_count(), tl.event_count());
}

/// The model's own size (its heap bytes, not the process's RSS): issue 25's ≤ 24 bytes an
/// event resident after load, on the benchmark's mix of kernels, calls, NVTX and OS runtime.
#[test]
fn memory_budget_per_event() {
    let (_dir, _path, tl) = generated(100_000);
    let per_event = tl.heap_bytes() as f64 / tl.event_count() as f64;
    assert!(per_event <= 24.0, "{per_event:.1} bytes per event");
}

#[test]
fn details_are_read_from_the_file_on_demand() {
    let (_dir, path, tl) = generated(1_000);
    let kernel = tl
        .events()
        .find(|e| e.kind == EventKind::Kernel)
        .unwrap_or_else(|| panic!("no kernel"));
    let details = nsys::event_details(&path, &tl, kernel.id).unwrap_or_else(|e| panic!("{e}"));
    let get = |k: &str| details.iter().find(|(c, _)| c == k).map(|(_, v)| v.clone());
    assert_eq!(get("start"), Some(kernel.start.to_string()));
    assert_eq!(get("correlationId"), Some(kernel.correlation.to_string()));
    assert!(get("gridX").is_some() && get("registersPerThread").is_some());
    assert_eq!(get("demangledName").as_deref(), Some(tl.name(kernel.name)));
    let call = tl.flow_partners(kernel.id)[0];
    let call_details = nsys::event_details(&path, &tl, call).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        call_details
            .iter()
            .any(|(c, v)| c == "nameId" && v.starts_with("cuda"))
    );
}

/// A counter row: the buckets of a range start with the level before it, and each bucket
/// keeps the first, smallest, largest and last value of its samples.
#[test]
fn counter_buckets_keep_the_level_and_the_extremes() {
    use sightline::timeline::{EventAttrs, Layout, NewEvent, Payload, TimelineBuilder};
    let mut b = TimelineBuilder::new("counter");
    let track = b.track(None, TrackKind::Series, 1, || "usage".into());
    b.set_layout(track, Layout::Counter);
    let name = b.intern("v");
    for (t, v) in [(0, 5), (100, 7), (110, 2), (120, 9), (130, 4), (300, 1)] {
        let e = b.push(
            track,
            NewEvent {
                kind: EventKind::Marker,
                start: t,
                end: t,
                name,
                correlation: 0,
                source: 0,
                depth: 0,
            },
        );
        b.set_attrs(
            e,
            EventAttrs {
                payload: Some(Payload::I64(v)),
                ..EventAttrs::default()
            },
        );
    }
    let tl = b.finish();
    assert_eq!(tl.counter_range(track), Some((1.0, 9.0)));
    let mut out = Vec::new();
    tl.counter_buckets(track, 0, 50, 400, 100.0, &mut out);
    let got: Vec<(i64, f64, f64, f64, f64)> = out
        .iter()
        .map(|b| (b.start, b.first, b.min, b.max, b.last))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 5.0, 5.0, 5.0, 5.0),
            (100, 7.0, 2.0, 9.0, 4.0),
            (300, 1.0, 1.0, 1.0, 1.0)
        ]
    );
}

/// The events of `tl` as text: kind, times, name, track, and the call stack's frames.
fn described(tl: &Timeline) -> Vec<String> {
    tl.events()
        .map(|e| {
            let frames: Vec<&str> = tl
                .stack_of(e.id)
                .map(|s| tl.stacks.frames_of(s).map(|f| tl.name(f.symbol)).collect())
                .unwrap_or_default();
            format!(
                "{:?} {} {:?} {} {:?} {:?}",
                e.kind,
                e.start,
                e.end,
                tl.name(e.name),
                tl.locate(e.id),
                frames
            )
        })
        .collect()
}

/// Loads `path` asking for a preview: the previews handed over, and the timeline.
fn load_with_previews(path: &std::path::Path) -> (Vec<Timeline>, Timeline) {
    let mut previews: Vec<Timeline> = Vec::new();
    // The timeline before the samples' call stacks (not what was read so far, previewed too
    // when the load is slow).
    let mut on_preview = |t: Timeline| {
        if !t.partial {
            previews.push(t);
        }
    };
    let timeline = nsys::load_with(
        path,
        LoadOptions {
            progress: Progress::none(),
            preview: Some(&mut on_preview),
            first_preview: None,
            read_ahead: None,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (previews, timeline)
}

#[test]
fn cpu_samples_show_before_their_call_stacks_are_read() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("cpu.sqlite");
    let options = SynthOptions {
        events: 2_000,
        threads: 3,
        streams: 2,
        seed: 5,
    };
    let cpu = CpuOptions {
        samples: 3_000,
        sched: 400,
    };
    write_export_with_cpu(&path, &options, &cpu).unwrap_or_else(|e| panic!("{e}"));
    let full = nsys::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let (previews, deferred) = load_with_previews(&path);
    assert_eq!(previews.len(), 1, "one preview");
    let preview = &previews[0];
    assert!(preview.stacks_pending && !deferred.stacks_pending && !full.stacks_pending);
    // The preview: every event, the samples without call stacks and named so.
    assert_eq!(preview.event_count(), full.event_count());
    let samples: Vec<_> = preview
        .events()
        .filter(|e| e.kind == EventKind::CpuSample)
        .collect();
    assert_eq!(samples.len(), 3_000);
    for s in &samples {
        assert_eq!(preview.stack_of(s.id), None);
        assert!(
            [nsys::STACKS_PENDING, "[no call stack]"].contains(&preview.name(s.name)),
            "{}",
            preview.name(s.name)
        );
    }
    // Then the timeline equals one read in one go: events, names, stacks, statistics.
    assert!(
        full.stacks
            .depth(full.stack_of(samples[0].id).expect("a stack"))
            > 0
    );
    assert_eq!(described(&deferred), described(&full));
    assert_eq!(deferred.session.imports, full.session.imports);
    assert_eq!(deferred.warnings, full.warnings);
}

#[test]
fn an_export_without_cpu_samples_has_no_preview() {
    let (_dir, path, tl) = generated(2_000);
    let (previews, again) = load_with_previews(&path);
    assert!(previews.is_empty());
    assert_eq!(described(&again), described(&tl));
}

#[test]
fn what_was_read_so_far_is_previewed_then_the_whole() {
    let (_dir, path, whole) = generated(300_000);
    let mut previews: Vec<sightline::timeline::Timeline> = Vec::new();
    let mut on_preview = |t: sightline::timeline::Timeline| previews.push(t);
    let loaded = nsys::load_with(
        &path,
        LoadOptions {
            progress: Progress::none(),
            preview: Some(&mut on_preview),
            // Due at once: every report of progress (each 65,536 rows) may preview.
            first_preview: Some(std::time::Duration::ZERO),
            read_ahead: None,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(!loaded.partial);
    assert_eq!(loaded.event_count(), whole.event_count());
    assert!(!previews.is_empty(), "no preview of what was read so far");
    let of = |t: &sightline::timeline::Timeline, e: &sightline::timeline::Event| {
        let track = t.locate(e.id).map(|(track, _)| track.0 as usize);
        (
            e.start,
            e.end,
            t.strings.get(e.name).to_owned(),
            track.map(|i| t.tracks[i].name.clone()),
        )
    };
    let all: std::collections::HashSet<_> = whole.events().map(|e| of(&whole, &e)).collect();
    for p in &previews {
        assert!(p.partial);
        assert!(p.event_count() > 0 && p.event_count() < whole.event_count());
        assert!(p.event_count() <= nsys::PREVIEW_MAX_EVENTS + 65_536);
        // Each event of a preview is one of the whole timeline's, on a track of the same name.
        for e in p.events() {
            let key = of(p, &e);
            assert!(all.contains(&key), "{key:?} is not in the whole timeline");
        }
    }
    // Later previews hold more.
    assert!(
        previews
            .windows(2)
            .all(|w| w[0].event_count() <= w[1].event_count())
    );
}
