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
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        h.state()
            .document::<TimelineDoc>(0)
            .is_some_and(|d| d.timeline().is_some())
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
        .find(|e| e.kind == EventKind::ThreadRunning)
        .expect("a running range");
    assert!(tl.name(running.name).starts_with("Running on CPU "));

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
