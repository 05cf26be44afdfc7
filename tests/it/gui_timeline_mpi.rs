//! An MPI run in the app (egui_kittest): the four generated rank exports opened merged, their
//! groups named "Rank N", a collective call's details naming its straggler with the wait and
//! transfer split, and the `mpi_summary` table in the Summary panel.

use std::time::Duration;

use crate::common;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::timeline::TimelineDoc;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::timeline::EventId;
use sightline::timeline::nsys::stats::ReportOutcome;
use sightline_test_support::nsys_mpi::{COLLECTIVES, RANKS, write_mpi_run};

fn opened(dir: &std::path::Path) -> Harness<'static, SightlineApp> {
    let files = write_mpi_run(dir).unwrap();
    let app = SightlineApp::new(
        Settings::default(),
        StartOptions {
            files,
            merge: true,
            ..Default::default()
        },
    );
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    common::app::step_until(&mut h, "the merged run", Duration::from_secs(60), |h| {
        h.state().document::<TimelineDoc>(0).is_some_and(|d| {
            d.timeline().is_some_and(|t| t.parts().len() == RANKS) && d.stats().reports.is_some()
        })
    });
    h.run();
    h
}

#[test]
fn ranks_straggler_details_and_the_mpi_summary_table() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = opened(dir.path());
    let tl = common::app::first_doc::<TimelineDoc>(&h)
        .timeline()
        .unwrap()
        .clone();
    let labels: Vec<&str> = tl.parts().iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["Rank 0", "Rank 1", "Rank 2", "Rank 3"]);
    // The first group's name in the gutter (the others may be below the fold).
    h.get_by_label("Rank 0");
    // Rank 0's barrier: the last to arrive is rank 2, 400 ns later; the transfer 100 ns.
    let (start, _) = COLLECTIVES[0].calls[0];
    let part = &tl.parts()[0];
    let barrier = part
        .events
        .clone()
        .map(EventId)
        .find(|&id| {
            let e = tl.event(id).unwrap();
            e.start == start && tl.name(e.name) == "MPI_Barrier"
        })
        .expect("rank 0's barrier");
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("tab")
        .go_to(barrier);
    h.run();
    h.get_by_label("MPI call");
    h.get_by_label("Straggler: Rank 2, wait 400 ns, transfer 100 ns");
    // The Summary panel has the MPI summary: its tab, and its rows once shown.
    {
        let doc = common::app::first_doc::<TimelineDoc>(&h);
        let reports = doc.stats().reports.as_ref().unwrap();
        let (_, result) = reports
            .iter()
            .find(|(n, _)| n == "mpi_summary")
            .expect("the MPI summary among the summary tables");
        let Ok(ReportOutcome::Table(table)) = result else {
            panic!("no MPI summary table")
        };
        assert!(table.columns.iter().any(|c| c == "Q3 (ns)"));
    }
    h.get_by_label("mpi_summary").click();
    h.run();
    h.get_by_label("Total Bytes");
    assert!(h.query_all_by_label("MPI_Allreduce").count() >= 1);
}
