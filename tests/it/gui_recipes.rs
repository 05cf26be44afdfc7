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
    h.get_by_label(&format!("Saved 2 file(s) in {}", out.path().display()));
    // With the `.nsys-analysis` file NVIDIA's recipes write, named after the folder.
    let stem = out.path().file_name().unwrap().to_string_lossy();
    let analysis: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.path().join(format!("{stem}.nsys-analysis"))).unwrap(),
    )
    .unwrap();
    assert_eq!(analysis["RecipeName"], "gpu_gaps");
    assert_eq!(analysis["Mode"], "concurrent");
    assert_eq!(analysis["Outputs"]["analysis.parquet"], "Table");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/nsys/golden/recipes/gpu_gaps@gap=1@rows=2/analysis.parquet");
    crate::recipes_analysis::same_analysis(&golden, &out.path().join("analysis.parquet"));
}

/// The Recipes panel of the folder in tab 0.
fn panel<'a>(h: &'a Harness<'static, SightlineApp>) -> &'a sightline::app::recipes::RecipesPanel {
    &h.state()
        .document::<sightline::app::runs::RunsDoc>(0)
        .expect("the folder")
        .recipes
}

/// Runs the CLI's `sightline recipe NAME --input DIR --output OUT`.
fn cli_recipe(name: &str, input: &Path, output: &Path) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["recipe", name, "--input"])
        .arg(input)
        .arg("--output")
        .arg(output)
        .output()
        .unwrap_or_else(|e| panic!("sightline does not run: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_folder_of_rank_exports_opens_with_its_files_recipes_and_compare() {
    use sightline::app::runs::RunsDoc;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ranks");
    let ranks = crate::compare::ranks(&dir, 3);
    assert_eq!(
        sightline::kind::FileKind::of_path(&dir),
        sightline::kind::FileKind::NsysFolder
    );
    let mut h = common::app::harness_sized(vec![dir.clone()], eframe::egui::vec2(1400.0, 900.0));
    let folder = |h: &Harness<'static, SightlineApp>| -> Option<sightline::app::runs::RunFolder> {
        h.state().document::<RunsDoc>(0)?.folder().cloned()
    };
    common::app::step_until(
        &mut h,
        "the folder to be listed",
        Duration::from_secs(30),
        |h| folder(h).is_some(),
    );
    let listed = folder(&h).expect("listed");
    assert_eq!(listed.exports, ranks);
    for rank in &ranks {
        h.get_by_label(&rank.file_name().unwrap().to_string_lossy());
    }
    // The default recipe over the three ranks; its tables equal the CLI's files.
    h.get_by_label("Run").click();
    h.step();
    common::app::step_until(&mut h, "the recipe", Duration::from_secs(60), |h| {
        !panel(h).busy()
    });
    assert_eq!(panel(&h).error, None);
    h.get_by_label("rank_stats");
    h.get_by_label("all_stats");
    let saved = tmp.path().join("saved");
    let cli = tmp.path().join("cli");
    let ctx = h.ctx.clone();
    h.state_mut()
        .document_mut::<RunsDoc>(0)
        .expect("the folder")
        .recipes
        .save_to(
            saved.clone(),
            std::sync::Arc::new(move || ctx.request_repaint()),
        );
    common::app::step_until(&mut h, "the save", Duration::from_secs(30), |h| {
        panel(h).saved.is_some() || panel(h).error.is_some()
    });
    cli_recipe("cuda_gpu_kern_sum", &dir, &cli);
    for file in [
        "rank_stats.csv",
        "all_stats.csv",
        "rank_stats.parquet",
        "all_stats.parquet",
    ] {
        let read = |d: &Path| std::fs::read(d.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(read(&saved) == read(&cli), "{file} differs from the CLI's");
    }
    // A heat map: drawn as one, a row per rank, and as its table on demand.
    h.get_by_role_and_label(Role::ComboBox, "Recipe:").click();
    h.run();
    h.get_by_label("cuda_gpu_time_util_map").click();
    h.run();
    type_option(&mut h, "--bins", "5");
    h.get_by_label("Run").click();
    h.step();
    common::app::step_until(&mut h, "the heat map", Duration::from_secs(60), |h| {
        !panel(h).busy()
    });
    let output = panel(&h).output.clone().expect("the heat map's output");
    let sightline::timeline::recipe::Kind::HeatMap(map) = &output.recipe.kind else {
        panic!("not a heat map");
    };
    let grid = sightline::timeline::recipe::heatmap_plot::grid(&output.tables[0], map);
    assert_eq!((grid.rows.len(), grid.bins), (3, 5));
    for (name, _, top) in &grid.panels {
        h.get_by_label(&format!("{name} (%, scale 0–{top})"));
    }
    h.get_by_label("Table").click();
    h.run();
    h.get_by_label("Duration");

    // The Compare tab is there; a file's Open button opens it on a timeline.
    h.get_by_label("Compare").click();
    h.run();
    h.get_by_label("Compare with folder…");
    h.get_all_by_label("Open")
        .next()
        .expect("an Open button")
        .click();
    h.step();
    common::app::step_until(
        &mut h,
        "the rank's timeline",
        Duration::from_secs(30),
        |h| h.state().document::<TimelineDoc>(1).is_some(),
    );
}
