//! File → Export timeline… on a timeline tab, driven headless (egui_kittest): the menu item
//! opens the window with a path beside the file, the format radio changes the extension, only
//! the selected range goes out when asked, the export runs on its background job and the status
//! bar says what was written; the file reads back with Sightline's own reader.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::timeline::TimelineDoc;
use sightline::timeline::export::{read_chrome, read_perfetto};

use crate::common;

fn doc<'h>(h: &'h egui_kittest::Harness<'static, SightlineApp>) -> &'h TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("a timeline tab")
}

#[test]
fn export_timeline_from_the_file_menu() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("notes.sqlite");
    std::fs::copy(common::fixtures().join("nsys/synth_2k.sqlite"), &input).expect("copy");
    let mut h = common::app::opened_timeline(vec![input.clone()]);
    let timeline = doc(&h).timeline().expect("loaded").clone();

    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export timeline…").click();
    h.run();
    assert!(doc(&h).export().open, "the window opens");
    assert_eq!(
        doc(&h).export().path,
        dir.path()
            .join("notes.perfetto-trace")
            .display()
            .to_string()
    );

    // Perfetto, the whole timeline.
    h.get_by_label("Export").click();
    common::app::step_until(
        &mut h,
        "the Perfetto export",
        Duration::from_secs(30),
        |h| {
            !doc(h).export().running()
                && h.state()
                    .status()
                    .as_ref()
                    .is_some_and(|(s, _)| s.starts_with("Exported"))
        },
    );
    let written = dir.path().join("notes.perfetto-trace");
    let back = read_perfetto::load(&written).expect("reads back");
    assert_eq!(back.event_count(), timeline.event_count());
    let (status, error) = h.state().status().expect("a status");
    assert!(!error, "{status}");
    assert!(
        status.contains(&format!("{} events", timeline.event_count())),
        "{status}"
    );

    // Chrome JSON, only the selected range.
    let (t0, t1) = timeline.time_range().expect("events");
    let range = (t0, t0 + (t1 - t0) / 4);
    {
        let d = h.state_mut().document_mut::<TimelineDoc>(0).expect("tab");
        d.selection_mut().range = Some(range);
    }
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export timeline…").click();
    h.run();
    h.get_by_label("Chrome JSON trace").click();
    h.run();
    assert!(
        doc(&h).export().path.ends_with("notes.json"),
        "{}",
        doc(&h).export().path
    );
    h.get_by_label(&format!(
        "Only the selected range ({} – {} ns)",
        range.0, range.1
    ))
    .click();
    h.run();
    assert!(doc(&h).export().only_range);
    h.get_by_label("Export").click();
    common::app::step_until(&mut h, "the JSON export", Duration::from_secs(30), |h| {
        !doc(h).export().running()
            && h.state()
                .status()
                .as_ref()
                .is_some_and(|(s, _)| s.ends_with("notes.json"))
    });
    h.run();
    let back = read_chrome::load(&dir.path().join("notes.json")).expect("reads back");
    let inside = timeline
        .events()
        .filter(|e| e.start <= range.1 && e.end >= range.0)
        .count();
    assert_eq!(back.event_count(), inside);
    assert!(inside < timeline.event_count());
}
