//! The Recipes tab under a timeline: a recipe picked, its options typed, Run on a background
//! job (progress, then the recipe's tables in the sortable table), a bad option named, and
//! Save writing what `sightline recipe` writes (equal to NVIDIA's recipe on this export).

use std::path::Path;
use std::time::Duration;

use crate::common;
use eframe::egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::SightlineApp;
use sightline::app::timeline::TimelineDoc;

fn doc<'a>(h: &'a Harness<'static, SightlineApp>) -> &'a TimelineDoc {
    h.state()
        .document::<TimelineDoc>(0)
        .expect("the timeline tab")
}

/// Types `text` into the option field labelled `--flag`.
fn type_option(h: &mut Harness<'static, SightlineApp>, flag: &str, text: &str) {
    h.get_by_label(flag).focus();
    h.run();
    let field = h
        .query_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .expect("the option field has the focus");
    field.type_text(text);
    h.run();
}

#[test]
fn a_recipe_runs_in_the_background_shows_its_table_and_saves_nvidias_files() {
    let export = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nsys/expert.sqlite");
    let mut h = common::app::harness_sized(vec![export], eframe::egui::vec2(1400.0, 900.0));
    common::app::step_until(&mut h, "the export to load", Duration::from_secs(60), |h| {
        doc(h).stats().reports.is_some()
    });
    h.get_by_label("Recipes").click();
    h.run();
    // The recipe picker: gpu_gaps, with two options.
    h.get_by_role_and_label(Role::ComboBox, "Recipe:").click();
    h.run();
    h.get_by_label("gpu_gaps").click();
    h.run();
    assert_eq!(doc(&h).stats().recipes.recipe.name, "gpu_gaps");

    // A bad option is named, and nothing runs.
    type_option(&mut h, "--rows", "two");
    h.get_by_label("Run").click();
    h.run();
    h.get_by_label("--rows takes N, not \"two\"");
    assert!(!doc(&h).stats().recipes.busy());

    // NVIDIA's golden of `gpu_gaps --gap 1 --rows 2` on this export.
    for _ in 0..3 {
        h.get_by_label("--rows").focus();
        h.key_press(eframe::egui::Key::Backspace);
    }
    h.run();
    type_option(&mut h, "--rows", "2");
    type_option(&mut h, "--gap", "1");
    h.get_by_label("Run").click();
    h.step();
    common::app::step_until(&mut h, "the recipe to run", Duration::from_secs(60), |h| {
        !doc(h).stats().recipes.busy()
    });
    let panel = &doc(&h).stats().recipes;
    assert_eq!(panel.error, None);
    let output = panel.output.clone().expect("the recipe's output");
    assert_eq!(output.tables.len(), 1);
    let table = &output.tables[0];
    assert_eq!(table.stem, "analysis");
    assert_eq!(table.rows(), 2, "--rows 2");
    // The table is on screen: its columns and the first gap's duration.
    h.get_by_label("analysis");
    let duration = table
        .column("Duration")
        .expect("a Duration column")
        .cells
        .text(0);
    assert!(
        h.query_all_by_label(&duration).next().is_some(),
        "the first row's duration {duration} is shown"
    );

    // Save writes NVIDIA's file.
    let out = tempfile::tempdir().unwrap();
    let ctx = h.ctx.clone();
    h.state_mut()
        .document_mut::<TimelineDoc>(0)
        .expect("the timeline")
        .stats_mut()
        .recipes
        .save_to(
            out.path().to_path_buf(),
            std::sync::Arc::new(move || ctx.request_repaint()),
        );
    common::app::step_until(
        &mut h,
        "the tables to be saved",
        Duration::from_secs(30),
        |h| doc(h).stats().recipes.saved.is_some() || doc(h).stats().recipes.error.is_some(),
    );
    assert_eq!(doc(&h).stats().recipes.error, None);
    h.get_by_label(&format!("Saved 1 file(s) in {}", out.path().display()));
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/nsys/golden/recipes/gpu_gaps@gap=1@rows=2/analysis.parquet");
    crate::recipes_analysis::same_analysis(&golden, &out.path().join("analysis.parquet"));
}
