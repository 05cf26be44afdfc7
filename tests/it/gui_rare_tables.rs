//! The fields of rows the timeline draws on their own tracks (a unified-memory GPU page fault)
//! in the app's details panel, driven headless (egui_kittest).

use crate::common;
use egui_kittest::kittest::Queryable;
use sightline::app::timeline::TimelineDoc;
use sightline_test_support::nsys_rare::write_rare;

#[test]
fn the_details_panel_lists_a_selected_page_faults_fields() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("rare.sqlite");
    write_rare(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut h = common::app::opened_timeline(vec![path]);
    let tl = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.timeline().cloned())
        .unwrap_or_else(|| panic!("not loaded"));
    let fault = tl
        .events()
        .find(|e| e.start == 7_000 && e.end == 7_500)
        .map(|e| e.id)
        .unwrap_or_else(|| panic!("no fault"));
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .unwrap_or_else(|| panic!("no tab"))
        .go_to(fault);
    h.run();
    h.get_by_label("Fields");
    h.get_by_label("Access type");
    h.get_by_label("Write (2)");
    h.get_by_label("Number of page faults");
    h.get_by_label("0x7f0000001000");
}
