//! Several exports on one timeline in the app (egui_kittest): `--merge` opens them as one tab
//! with a group per file and the Files panel; a file's offset typed there moves its events;
//! the summary tables switch between all files and one; File → Add to timeline… (its
//! document call) adds a file. The exports are written by the project's generator.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;
use eframe::egui::{self, Role};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sightline::app::document::Document;
use sightline::app::timeline::TimelineDoc;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::timeline::nsys::stats::ReportOutcome;
use sightline::timeline::{EventId, TrackKind};
use sightline_test_support::nsys::{SynthOptions, write_export};

fn export(dir: &Path, name: &str, seed: u64) -> PathBuf {
    let path = dir.join(name);
    write_export(
        &path,
        &SynthOptions {
            events: 2000,
            threads: 2,
            streams: 2,
            seed,
        },
    )
    .expect("write the export");
    path
}

fn doc<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h TimelineDoc {
    common::app::first_doc(h)
}

fn wait_merged(h: &mut Harness<'static, SightlineApp>, files: usize) {
    common::app::step_until(h, "the merged timeline", Duration::from_secs(60), |h| {
        h.state().document::<TimelineDoc>(0).is_some_and(|d| {
            d.timeline().is_some_and(|t| t.parts().len() == files) && d.stats().reports.is_some()
        })
    });
    h.run();
}

/// Rows of the `cuda_gpu_kern_sum` table shown: `(name, instances)`.
fn kernel_instances(doc: &TimelineDoc) -> Vec<(String, String)> {
    let reports = doc.stats().reports.as_ref().expect("reports");
    let (_, result) = reports
        .iter()
        .find(|(n, _)| n == "cuda_gpu_kern_sum")
        .expect("the kernel summary");
    let Ok(ReportOutcome::Table(t)) = result else {
        panic!("no kernel table")
    };
    let name = t.columns.iter().position(|c| c == "Name").unwrap();
    let count = t.columns.iter().position(|c| c == "Instances").unwrap();
    t.rows
        .iter()
        .map(|r| (r[name].as_str().to_owned(), r[count].as_str().to_owned()))
        .collect()
}

#[test]
fn two_exports_on_one_timeline_with_their_files_panel() {
    let dir = tempfile::tempdir().unwrap();
    let a = export(dir.path(), "rank0.sqlite", 3);
    let b = export(dir.path(), "rank1.sqlite", 4);
    let app = SightlineApp::new(
        Settings::default(),
        StartOptions {
            files: vec![a.clone(), b.clone()],
            merge: true,
            ..Default::default()
        },
    );
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    wait_merged(&mut h, 2);
    assert_eq!(h.state().tab_count(), 1, "one tab for both files");
    assert_eq!(doc(&h).title(), "rank0.sqlite + 1 more");
    let timeline = doc(&h).timeline().unwrap().clone();
    for (k, part) in timeline.parts().iter().enumerate() {
        assert_eq!(timeline.track(part.group).unwrap().kind, TrackKind::File);
        assert_eq!(part.source, [&a, &b][k].clone());
    }
    h.get_by_label("Files (2)");
    h.get_by_label("Summary tables and reports over");
    // The summary over all files counts the kernels of both.
    let all = kernel_instances(doc(&h));
    // Type an offset for the second file: its events move by it.
    let before = timeline
        .event(EventId(timeline.parts()[1].events.start))
        .unwrap();
    h.get_all_by_value("0 ns")
        .nth(1)
        .expect("the second file's offset")
        .click();
    h.run();
    h.get_all_by_value("0")
        .next()
        .expect("the offset being typed")
        .type_text("2500");
    h.run();
    h.key_press(egui::Key::Enter);
    h.run();
    let moved = doc(&h).timeline().unwrap().clone();
    let after = moved.event(EventId(moved.parts()[1].events.start)).unwrap();
    assert_eq!(after.start - before.start, 2500);
    assert_eq!(moved.parts()[1].user_offset_ns(), 2500);
    // The summary tables of the first file alone.
    let first_label = moved.parts()[0].label.clone();
    let before: Vec<_> = h
        .query_all_by_label(&first_label)
        .map(|n| n.accesskit_node().id())
        .collect();
    h.get_by_role_and_label(Role::ComboBox, "Summary tables and reports over")
        .click();
    h.run();
    h.get_all_by_label(&first_label)
        .find(|n| !before.contains(&n.accesskit_node().id()))
        .expect("the first file in the list")
        .click();
    common::app::step_until(
        &mut h,
        "the first file's tables",
        Duration::from_secs(30),
        |h| {
            h.state()
                .document::<TimelineDoc>(0)
                .is_some_and(|d| d.files_panel().scope == Some(0) && kernel_instances(d) != all)
        },
    );
    let one = kernel_instances(doc(&h));
    let total = |rows: &[(String, String)]| -> u64 {
        rows.iter().map(|(_, n)| n.parse::<u64>().unwrap()).sum()
    };
    assert!(total(&one) < total(&all), "{one:?} vs {all:?}");
}

#[test]
fn add_to_timeline_adds_a_file_as_a_group() {
    let dir = tempfile::tempdir().unwrap();
    let a = export(dir.path(), "a.sqlite", 5);
    let b = export(dir.path(), "b.sqlite", 6);
    let mut h = common::app::opened_timeline(vec![a.clone()]);
    let alone = doc(&h).timeline().unwrap().event_count();
    assert!(doc(&h).timeline().unwrap().parts().is_empty());
    let added = h
        .state_mut()
        .document_mut::<TimelineDoc>(0)
        .unwrap()
        .add_files(vec![b.clone()]);
    assert!(added);
    wait_merged(&mut h, 2);
    let merged = doc(&h).timeline().unwrap().clone();
    assert!(merged.event_count() > alone);
    assert_eq!(merged.parts()[0].events.len(), alone);
    assert_eq!(merged.parts()[1].source, b);
    h.get_by_label("Files (2)");
}
