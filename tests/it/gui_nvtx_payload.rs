//! NVTX payload fields in the app: a selected NCCL range's decoded fields (communicator,
//! message size, reduction operation by name) in the details panel, driven headless
//! (egui_kittest); a selected NCCL kernel shows its collective's fields with a link to the range.

use crate::common;
use egui_kittest::kittest::Queryable;
use sightline::app::timeline::TimelineDoc;
use sightline_test_support::nsys_payload::{
    NCCL_ALL_REDUCE_KERNEL, NCCL_COMM, nccl_export, write_payload_export,
};

#[test]
fn the_details_panel_lists_a_selected_ranges_payload_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nccl.sqlite");
    write_payload_export(&path, &nccl_export()).unwrap();
    let mut h = common::app::opened_timeline(vec![path]);
    let tl = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.timeline().cloned())
        .expect("loaded");
    let reduce = crate::nvtx_payload::event_named(&tl, "ncclAllReduce");
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .go_to(reduce);
    h.run();
    h.get_by_label("Payload fields (NcclNvtxParamsAllReduce)");
    h.get_by_label("NCCL communicator ID");
    h.get_by_label(&NCCL_COMM.to_string());
    h.get_by_label("Message size [bytes]");
    h.get_by_label("1048576");
    h.get_by_label("Reduction operation");
    h.get_by_label("Sum (0)");
    assert!(h.query_by_label_contains("Not decoded").is_none());
}

#[test]
fn a_selected_nccl_kernel_shows_its_collectives_fields_and_links_to_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nccl.sqlite");
    write_payload_export(&path, &nccl_export()).unwrap();
    let mut h = common::app::opened_timeline(vec![path]);
    let tl = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.timeline().cloned())
        .expect("loaded");
    let kernel = crate::nvtx_payload::event_named(&tl, NCCL_ALL_REDUCE_KERNEL);
    let range = tl.launch_range(kernel).expect("launched in a range");
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .go_to(kernel);
    h.run();
    h.get_by_label("Launched in");
    h.get_by_label("Message size [bytes]");
    h.get_by_label("1048576");
    h.get_by_label("Sum (0)");
    h.get_by_label("NCCL: ncclAllReduce").click();
    h.run();
    let selected = h
        .state()
        .document::<TimelineDoc>(0)
        .and_then(|d| d.selection().event);
    assert_eq!(selected, Some(range), "the link selects the NCCL range");
    h.get_by_label("Payload fields (NcclNvtxParamsAllReduce)");
}
