//! CPU samples, call stacks, thread states and the Import popover in the app, on a real export
//! of the corpus (CloverLeaf on Perlmutter: OS runtime with call stacks, scheduling, sampling).
//! Skips when ../shared is absent.

use std::path::Path;
use std::time::Duration;

use crate::common;
use egui_kittest::kittest::Queryable;
use sightline::app::timeline::TimelineDoc;
use sightline::timeline::EventKind;

const EXPORT: &str = "../shared/corpus/nsys/pipit_perlmutter-cloverleaf-cuda.sqlite";

#[test]
fn a_sample_shows_its_call_stack_and_the_import_popover_lists_every_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXPORT);
    if !path.is_file() {
        common::skip_shared(format!("{} is absent", path.display()));
        return;
    }
    let mut h = common::app::harness_sized(vec![path], eframe::egui::vec2(1400.0, 900.0));
    // The timeline shows before the samples' call stacks are read: wait for those too.
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .and_then(|d| d.timeline())
            .is_some_and(|t| !t.stacks_pending && !t.partial)
    });
    h.run();
    let tl = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.timeline().cloned())
        .expect("loaded");
    // The thread rows: CPU samples and thread state, as series named so in the tree.
    assert!(tl.tracks.iter().any(|t| t.name == "CPU samples"));
    assert!(tl.tracks.iter().any(|t| t.name == "Thread state"));
    let running = tl
        .events()
        .find(|e| {
            e.kind == EventKind::ThreadRunning
                && tl
                    .locate(e.id)
                    .is_some_and(|(t, _)| tl.tracks[t.0 as usize].name == "Thread state")
        })
        .expect("a running range");
    assert!(tl.name(running.name).starts_with("Running on CPU "));
    // The same range on its CPU's row, named by the thread.
    let cpus = tl
        .tracks
        .iter()
        .position(|t| t.name == "CPUs")
        .expect("a CPUs group");
    assert!(!tl.tracks[cpus].children.is_empty());

    // A sample with a call stack of several frames: its details list them, innermost first.
    let sample = tl
        .events()
        .filter(|e| e.kind == EventKind::CpuSample)
        .find(|e| tl.stack_of(e.id).is_some_and(|s| tl.stacks.depth(s) >= 3))
        .expect("a sample with a deep stack");
    let stack = tl.stack_of(sample.id).expect("its stack");
    let depth = tl.stacks.depth(stack);
    let inner = tl
        .stacks
        .frames_of(stack)
        .find(|f| !f.unresolved)
        .map(|f| tl.name(f.symbol).to_owned())
        .expect("a resolved frame");
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("the timeline")
        .go_to(sample.id);
    h.run();
    h.get_by_label(&format!("Call stack ({depth} frames)"));
    assert!(
        !h.query_all_by_label(&inner).collect::<Vec<_>>().is_empty(),
        "the frame {inner} is listed"
    );

    // The Import popover: documented tables with their counts, unknown ones by name.
    h.get_by_label("Import").click();
    h.run();
    h.get_by_label("SAMPLING_CALLCHAINS");
    h.get_by_label("SCHED_EVENTS");
    h.get_by_label_contains("tables the schema reference does not describe");
    h.get_by_label("TARGET_INFO_GPU");
}

/// The CPU profile of all threads: the Flat table's functions have the self and total samples
/// SQLite counts in the export (a sample counts once for a function however often its stack
/// holds it); the Top-Down root children add up to the samples; a click on a function
/// outlines its samples, and the flame graph draws.
#[test]
fn the_cpu_profile_counts_what_the_export_holds() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXPORT);
    if !path.is_file() {
        common::skip_shared(format!("{} is absent", path.display()));
        return;
    }
    let tl = sightline::timeline::nsys::load(&path).expect("load");
    let (t0, t1) = tl.time_range().expect("a time range");
    let counts = tl.sample_counts(t0, t1, &[]);
    let conn =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let rows = conn
        .query_row("SELECT count(*) FROM COMPOSITE_EVENTS", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap() as u64;
    assert_eq!(counts.samples, rows);
    let flat = sightline::timeline::flat(&tl.stacks, &counts);
    assert!(flat.len() > 10, "{} functions", flat.len());
    for row in flat.iter().take(15) {
        let frame = tl.stacks.frame(row.frame).expect("frame");
        let (symbol, module) = (tl.name(frame.symbol), tl.name(frame.module));
        let count = |depth_filter: &str| -> u64 {
            conn.query_row(
                &format!(
                    "SELECT count(DISTINCT e.id) FROM COMPOSITE_EVENTS e \
                     JOIN SAMPLING_CALLCHAINS c ON c.id = e.id \
                     JOIN StringIds s ON s.id = c.symbol JOIN StringIds m ON m.id = c.module \
                     WHERE s.value = ?1 AND m.value = ?2 {depth_filter}"
                ),
                [symbol, module],
                |r| r.get::<_, i64>(0),
            )
            .unwrap() as u64
        };
        assert_eq!(row.total, count(""), "{symbol} in {module}: total");
        assert_eq!(
            row.self_count,
            count("AND c.stackDepth = 0"),
            "{symbol} in {module}: self"
        );
    }
    let top_down = sightline::timeline::CallTree::top_down(&tl.stacks, &counts);
    let root = &top_down.nodes[0];
    let children: u64 = root
        .children
        .iter()
        .map(|&c| top_down.nodes[c as usize].total)
        .sum();
    assert_eq!(children + root.self_count, rows);

    // In the app: the CPU profile tab, its views, and a function picked from the Flat table.
    let mut h = common::app::harness_sized(vec![path], eframe::egui::vec2(1400.0, 900.0));
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .is_some_and(|d| d.timeline().is_some() && d.stats().reports.is_some())
    });
    h.run();
    h.get_by_label("CPU profile").click();
    h.run();
    h.get_by_label("Top-Down");
    h.get_by_label("Bottom-Up");
    h.get_by_label("Flat").click();
    h.run();
    let top = tl.stacks.frame(flat[0].frame).expect("frame");
    let top_name = tl.name(top.symbol).to_owned();
    h.get_all_by_label(&top_name)
        .next()
        .expect("the top function is listed")
        .click();
    h.run();
    let doc = h.state().document::<TimelineDoc>(0).expect("timeline");
    let profile = &doc.stats().profile;
    assert_eq!(profile.selected, Some(flat[0].frame));
    // The outlined samples are exactly those whose stack holds the function.
    let outlined = tl
        .events()
        .filter(|e| e.kind == EventKind::CpuSample)
        .filter(|e| profile.highlight.get(e.correlation as usize) == Some(&true))
        .count() as u64;
    assert_eq!(outlined, flat[0].total);
    h.get_by_label("Flame graph").click();
    h.run();
    h.get_by_label("Bottom-Up").click();
    h.run();
    h.get_by_label("Total %");
}

/// The flame graph: a click on the widest bar below the root focuses it and selects its
/// function, whose samples are outlined; a click on the focused bar goes back up.
#[test]
fn a_flame_graph_click_selects_and_outlines_a_function() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXPORT);
    if !path.is_file() {
        common::skip_shared(format!("{} is absent", path.display()));
        return;
    }
    let mut h = common::app::harness_sized(vec![path], eframe::egui::vec2(1400.0, 900.0));
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .is_some_and(|d| d.timeline().is_some() && d.stats().reports.is_some())
    });
    h.run();
    h.get_by_label("CPU profile").click();
    h.run();
    h.get_by_label("Flame graph").click();
    h.run();
    let bars = h.get_by_label("Flame graph bars").rect();
    // The root's widest child starts at the left edge, on the second row of bars.
    let at = eframe::egui::pos2(bars.left() as f32 + 4.0, bars.top() as f32 + 18.0 * 1.5);
    common::app::click_at(&mut h, at);
    let doc = h.state().document::<TimelineDoc>(0).expect("timeline");
    let tl = doc.timeline().expect("loaded").clone();
    let (t0, t1) = tl.time_range().expect("range");
    let counts = tl.sample_counts(t0, t1, &[]);
    let tree = sightline::timeline::CallTree::top_down(&tl.stacks, &counts);
    let widest = tree.nodes[tree.nodes[0].children[0] as usize].frame;
    let profile = &doc.stats().profile;
    assert_eq!(
        profile.selected, widest,
        "the widest bar's function is selected"
    );
    assert!(
        profile.highlight.iter().any(|&b| b),
        "its samples are outlined"
    );
}

/// An export with CPU samples shows before their call stacks are read: the samples without
/// stacks and the CPU profile saying so; then the complete timeline replaces it, the selected
/// event kept.
#[test]
fn the_timeline_shows_before_the_call_stacks_and_keeps_the_selection() {
    use sightline_test_support::nsys::{SynthOptions, write_export_with_cpu};
    use sightline_test_support::nsys_cpu::CpuOptions;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("sampled.sqlite");
    let options = SynthOptions {
        events: 2_000,
        threads: 2,
        streams: 2,
        seed: 9,
    };
    let cpu = CpuOptions {
        samples: 60_000,
        sched: 200,
    };
    let started = std::time::Instant::now();
    write_export_with_cpu(&path, &options, &cpu).expect("write the export");
    eprintln!("export written in {:?}", started.elapsed());
    let mut h = common::app::harness_sized(vec![path], eframe::egui::vec2(1400.0, 900.0));
    common::app::step_until(
        &mut h,
        "the timeline to show",
        Duration::from_secs(60),
        |h| {
            h.state()
                .document::<TimelineDoc>(0)
                .is_some_and(|d| d.timeline().is_some_and(|t| !t.partial))
        },
    );
    let preview = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.timeline().cloned())
        .expect("shown");
    assert!(
        preview.stacks_pending,
        "the first timeline shown has no call stacks yet"
    );
    let kernel = preview
        .events()
        .find(|e| e.kind == EventKind::Kernel)
        .expect("a kernel");
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .go_to(kernel.id);
    let sample = preview
        .events()
        .find(|e| e.kind == EventKind::CpuSample)
        .expect("a sample");
    assert_eq!(preview.stack_of(sample.id), None);
    assert_eq!(
        preview.name(sample.name),
        sightline::timeline::nsys::STACKS_PENDING
    );
    common::app::step_until(&mut h, "the call stacks", Duration::from_secs(120), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .and_then(|d| d.timeline())
            .is_some_and(|t| !t.stacks_pending && !t.partial)
    });
    let d = h.state().document::<TimelineDoc>(0).expect("tab");
    let complete = d.timeline().cloned().expect("loaded");
    assert_eq!(complete.event_count(), preview.event_count());
    assert_eq!(
        d.selection().event,
        Some(kernel.id),
        "the selection is kept"
    );
    assert!(complete.stack_of(sample.id).is_some());
    assert_ne!(
        complete.name(complete.event(sample.id).expect("sample").name),
        sightline::timeline::nsys::STACKS_PENDING
    );
}
