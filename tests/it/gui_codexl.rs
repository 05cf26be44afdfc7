//! The CodeXL documents driven headless (egui_kittest): a counter file opens from the project's
//! fixtures and lists its dispatches with `Method` split, header clicks sort (numerically), the
//! chart's counter is chosen in the combo box and its bars answer hover and click, an occupancy
//! row's four charts mark the kernel's point, the session bar offers the sibling files and Open
//! hands them to the shell, a dispatch's details join counters and occupancy, and malformed or
//! unreadable files show their warnings or an error naming the file. Files are tiny: fast.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;
use eframe::egui::{self, Role};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sightline::app::SightlineApp;
use sightline::app::codexl::dispatch::{dispatch_details_ui, load_session_data, offer_session_ui};
use sightline::app::codexl::{CountersDoc, OccupancyDoc};
use sightline::app::document::Document;
use sightline::codexl::{CounterFile, OccupancyFile, OccupancyModel, SessionData, SessionFiles};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/codexl")
        .join(name)
}

fn counters<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h CountersDoc {
    h.state().tabs[0]
        .as_any()
        .downcast_ref()
        .expect("a counters tab")
}

fn counters_mut<'h>(h: &'h mut Harness<'static, SightlineApp>) -> &'h mut CountersDoc {
    h.state_mut().tabs[0]
        .as_any_mut()
        .downcast_mut()
        .expect("a counters tab")
}

fn occupancy<'h>(h: &'h Harness<'static, SightlineApp>) -> &'h OccupancyDoc {
    h.state().tabs[0]
        .as_any()
        .downcast_ref()
        .expect("an occupancy tab")
}

/// Opens `path` in the app and waits until its first tab has loaded or failed.
fn opened(path: PathBuf) -> Harness<'static, SightlineApp> {
    let mut h = common::app::harness(vec![path]);
    common::app::step_until(&mut h, "the file to load", Duration::from_secs(30), |h| {
        h.state()
            .tabs
            .first()
            .is_some_and(|t| !t.loading() || t.error().is_some())
    });
    h.run();
    h
}

#[test]
fn counter_file_lists_dispatches_with_method_split_and_aggregates() {
    let h = opened(fixture("session1.csv"));
    let doc = counters(&h);
    let data = doc.data().expect("loaded");
    let direct = CounterFile::open(&fixture("session1.csv")).expect("read");
    assert_eq!(data.file.rows.len(), direct.rows.len());
    assert_eq!(data.file.rows.len(), 8);
    // Method is split into three columns and not shown itself.
    // (Kernel and Device head the aggregate table too.)
    assert_eq!(
        h.get_all_by_role_and_label(Role::Button, "Kernel").count(),
        2
    );
    h.get_by_role_and_label(Role::Button, "Kernel ID");
    assert_eq!(
        h.get_all_by_role_and_label(Role::Button, "Device").count(),
        2
    );
    assert!(h.query_by_role_and_label(Role::Button, "Method").is_none());
    // Four dispatches of each kernel, plus each kernel's aggregate row.
    assert_eq!(h.get_all_by_label("matmul_tiled").count(), 5);
    assert_eq!(h.get_all_by_label("vadd").count(), 5);
    // Every digit as written; work sizes and NULL.
    h.get_by_label("868.81050");
    assert!(h.get_all_by_label("{32768, 1, 1}").count() >= 1);
    assert_eq!(h.get_all_by_label("NULL").count(), 2);
    // The aggregate: the sum of vadd's four times.
    let vadd = data
        .aggregates
        .iter()
        .find(|a| a.kernel == "vadd")
        .expect("vadd");
    assert_eq!(vadd.dispatches, 4);
    h.get_by_label(&format!("{:.5}", vadd.total_time_ms));
    h.get_by_label("2301.50795");
    // The header.
    h.get_by_label_contains("Application: /home/user/app");
    h.get_by_label("Session information (10 entries)");
    let status = h.state().status().expect("status");
    assert!(
        status.0.contains("8 dispatch(es), 2 kernel(s)") && !status.1,
        "{status:?}"
    );
}

#[test]
fn header_clicks_sort_numbers_numerically() {
    let mut h = opened(fixture("session1.csv"));
    h.get_by_role_and_label(Role::Button, "Time").click();
    h.run();
    let data = CounterFile::open(&fixture("session1.csv")).expect("read");
    let time = data.time_column().expect("time column");
    let times: Vec<f64> = data.column_values(time).into_iter().flatten().collect();
    let mut expected: Vec<usize> = (0..times.len()).collect();
    expected.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    assert_eq!(counters_mut(&mut h).display_order(), expected);
    h.get_by_role_and_label(Role::Button, "Time ^").click();
    h.run();
    expected.reverse();
    assert_eq!(counters_mut(&mut h).display_order(), expected);
    h.get_by_role_and_label(Role::Button, "Time v").click();
    h.run();
    assert_eq!(
        counters_mut(&mut h).display_order(),
        (0..8).collect::<Vec<_>>()
    );

    // Two-digit orders: text order would put 9 before 10.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("many.csv");
    let mut text = String::from("#ListSeparator=;\nMethod; ExecutionOrder; Time\n");
    for i in 1..=12 {
        text.push_str(&format!("k__k1_Fiji1; {i}; {}.5\n", 13 - i));
    }
    std::fs::write(&path, text).expect("write");
    let mut h = opened(path);
    h.get_by_role_and_label(Role::Button, "ExecutionOrder")
        .click();
    h.run();
    h.get_by_role_and_label(Role::Button, "ExecutionOrder ^")
        .click();
    h.run();
    let order = counters_mut(&mut h).display_order();
    assert_eq!(order, (0..12).rev().collect::<Vec<_>>());
}

#[test]
fn chart_counter_is_chosen_and_bars_answer_hover_and_click() {
    let mut h = opened(fixture("session1.csv"));
    let data = CounterFile::open(&fixture("session1.csv")).expect("read");
    let time = data.time_column().expect("time");
    assert_eq!(counters(&h).chart_column(), Some(time));
    h.get_by_label("Bar chart of Time across 8 dispatches");

    // Choose VALUBusy in the combo box (the popup's entry is the new node of that name).
    let before: Vec<_> = h
        .get_all_by_label("VALUBusy")
        .map(|n| n.accesskit_node().id())
        .collect();
    h.get_by_role_and_label(Role::ComboBox, "Counter:").click();
    h.run();
    let entry = h
        .get_all_by_label("VALUBusy")
        .find(|n| !before.contains(&n.accesskit_node().id()))
        .expect("the combo box entry");
    entry.click();
    h.run();
    let valu = data.table.column("VALUBusy").expect("VALUBusy");
    assert_eq!(counters(&h).chart_column(), Some(valu));
    let chart = h.get_by_label("Bar chart of VALUBusy across 8 dispatches");

    // Hover the second bar: the tooltip names the dispatch and its value as written.
    let rect = chart.rect();
    let plot_left = rect.left() + 62.0;
    let plot_width = rect.width() - 62.0 - 14.0;
    let second = egui::pos2(plot_left + plot_width * 1.5 / 8.0, rect.center().y);
    h.hover_at(second);
    h.run();
    assert_eq!(counters(&h).hovered_dispatch(), Some(1));
    h.get_by_label_contains("Dispatch 2 (line 13): vadd");
    h.get_by_label_contains("VALUBusy = 81.22");
    // A click selects the dispatch's row.
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: second,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
    h.run();
    assert_eq!(counters(&h).table().selected, Some(1));
}

#[test]
fn occupancy_row_charts_mark_the_kernels_point() {
    let mut h = opened(fixture("session1.occupancy"));
    let file = OccupancyFile::open(&fixture("session1.occupancy")).expect("read");
    let doc = occupancy(&h);
    assert_eq!(doc.data().expect("loaded").file.rows.len(), file.rows.len());
    // The first row is charted at once.
    assert_eq!(doc.charts().map(|c| c.row), Some(0));
    // Select the first matmul_tiled row.
    let row = file
        .rows
        .iter()
        .position(|r| r.kernel_name == "matmul_tiled")
        .expect("matmul_tiled");
    h.get_all_by_label("matmul_tiled")
        .next()
        .expect("a row")
        .click();
    h.run();
    assert_eq!(occupancy(&h).charts().map(|c| c.row), Some(row));
    let r = &file.rows[row];
    let model = OccupancyModel::from_row(r).expect("model");
    let percent = model.limits(model.usage).occupancy_percent;
    // The model reproduces the file's own occupancy at the kernel's point.
    assert_eq!(Some(percent), r.occupancy_percent);
    let usage = model.usage;
    for (title, x) in [
        ("VGPRs", usage.vgprs),
        ("SGPRs", usage.sgprs),
        ("LDS bytes", usage.lds),
        ("work-group size", usage.work_group_size),
    ] {
        h.get_by_label(&format!(
            "Occupancy vs {title}; kernel at {x}: {percent:.1}%"
        ));
    }
    assert_eq!(usage.vgprs, 93);
    h.get_by_label_contains("limited by");
    // Down and Up step through the rows, the charts following.
    h.key_press(egui::Key::ArrowDown);
    h.run();
    assert_eq!(occupancy(&h).charts().map(|c| c.row), Some(row + 1));
    h.key_press(egui::Key::ArrowUp);
    h.run();
    assert_eq!(occupancy(&h).charts().map(|c| c.row), Some(row));
    // Hovering the VGPR chart names a point with its occupancy.
    let chart = h.get_by_label_contains("Occupancy vs VGPRs;");
    let rect = chart.rect();
    h.hover_at(egui::pos2(rect.right() - 20.0, rect.center().y));
    h.run();
    h.get_by_label_contains("Number of VGPRs = ");
}

#[test]
fn session_bar_offers_the_siblings_and_open_pushes_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    for ext in ["atp", "csv", "occupancy"] {
        std::fs::copy(
            fixture(&format!("session1.{ext}")),
            dir.path().join(format!("S.{ext}")),
        )
        .expect("copy");
    }
    let csv = dir.path().join("S.csv");
    let mut h = opened(csv.clone());
    h.get_by_label("Same session: S.atp, S.occupancy");
    h.get_by_role_and_label(Role::Button, "Open").click();
    // The opened trace may show a spinner while it loads: step, do not wait to settle.
    h.run_steps(3);
    let paths: Vec<PathBuf> = h
        .state()
        .tabs
        .iter()
        .map(|t| t.path().to_path_buf())
        .collect();
    assert_eq!(
        paths,
        vec![
            csv.clone(),
            dir.path().join("S.atp"),
            dir.path().join("S.occupancy")
        ]
    );

    // The widget alone: what it lists and what Open pushes.
    let files = SessionFiles::find(&dir.path().join("S.occupancy"));
    let path = dir.path().join("S.occupancy");
    let mut w = Harness::builder()
        .with_size(egui::vec2(700.0, 80.0))
        .build_ui_state(
            move |ui, pushed: &mut Vec<PathBuf>| offer_session_ui(ui, &path, &files, pushed),
            Vec::new(),
        );
    w.run();
    w.get_by_label("Same session: S.atp, S.csv");
    w.get_by_role_and_label(Role::Button, "Open").click();
    w.run();
    assert_eq!(w.state(), &vec![dir.path().join("S.atp"), csv]);

    // A file alone offers nothing.
    let lone = dir.path().join("lone.csv");
    std::fs::copy(fixture("session1.csv"), &lone).expect("copy");
    let h = opened(lone);
    assert!(h.query_by_label_contains("Same session").is_none());
}

#[test]
fn dispatch_details_join_counters_and_occupancy_or_say_there_is_none() {
    let (data, problems) = load_session_data(&SessionFiles::find(&fixture("session1.atp")));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(data.counters.as_ref().map(|c| c.rows.len()), Some(8));
    assert_eq!(data.occupancy.as_ref().map(|o| o.rows.len()), Some(8));
    // A file that cannot be read is named; the other one still loads.
    let gone = SessionFiles {
        trace: None,
        counters: Some(PathBuf::from("/no/such/S.csv")),
        occupancy: Some(fixture("session1.occupancy")),
    };
    let (partial, problems) = load_session_data(&gone);
    assert!(partial.counters.is_none() && partial.occupancy.is_some());
    assert!(
        problems.len() == 1 && problems[0].starts_with("/no/such/S.csv"),
        "{problems:?}"
    );
    let shown = |thread: u64, call: u64, kernel: &'static str, nth: usize, data: SessionData| {
        // As narrow as the timeline's details panel can be.
        let mut h = Harness::builder()
            .with_size(egui::vec2(260.0, 900.0))
            .build_ui_state(
                move |ui, data: &mut SessionData| {
                    dispatch_details_ui(ui, data, thread, call, kernel, nth)
                },
                data,
            );
        h.run();
        h
    };
    let h = shown(4101, 18, "matmul_tiled", 1, data.clone());
    h.get_by_label("VALUBusy");
    h.get_by_label("71.01");
    h.get_by_label("222.43700");
    assert!(h.query_by_label("Method").is_none());
    h.get_by_label("Kernel occupancy");
    h.get_by_label("93 of 256");
    let row = data
        .occupancy_for(4101, "matmul_tiled", 1)
        .expect("occupancy row");
    h.get_by_label(&format!(
        "{:.2}%",
        row.occupancy_percent.expect("occupancy")
    ));
    let model = OccupancyModel::from_row(row).expect("model");
    let percent = model.limits(model.usage).occupancy_percent;
    h.get_by_label(&format!("Occupancy vs VGPRs; kernel at 93: {percent:.1}%"));
    // Nothing sticks out of the narrow panel.
    for node in h.get_all_by_role(Role::Label) {
        assert!(node.rect().right() <= 260.5, "{:?}", node.rect());
    }

    let h = shown(1, 1, "nothing", 0, data);
    h.get_by_label("The session's counter file has no row for thread 1, call 1.");
    h.get_by_label_contains("occupancy file has no row for dispatch 1 of nothing");
    let h = shown(4101, 18, "matmul_tiled", 1, SessionData::default());
    h.get_by_label("This session has no counter file (.csv).");
    h.get_by_label("This session has no occupancy file (.occupancy).");
}

#[test]
fn malformed_files_show_warnings_and_unreadable_ones_an_error_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "#ListSeparator=;\nMethod; Time; VGPRs\nk__k1_Fiji1; 1.5; 24\nk__k1_Fiji1; 2.5\nk__k1_Fiji1; 3.5; 32\n",
    )
    .expect("write");
    let mut h = opened(bad.clone());
    // The readable rows load.
    assert_eq!(counters(&h).data().expect("loaded").file.rows.len(), 3);
    h.get_by_label("1 warning(s)").click();
    h.run();
    h.get_by_label(&format!(
        "{}:4: row has 2 fields, the column line 3: kept",
        bad.display()
    ));
    h.get_by_label("Bar chart of Time across 3 dispatches");

    // An empty file and bytes that are no table at all: a warning, no panic.
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, b"").expect("write");
    let h = opened(empty.clone());
    assert!(h.state().tabs[0].error().is_none());
    h.get_by_label("1 warning(s)");
    h.get_by_label("No column of this file holds numbers: nothing to chart.");
    let garbage = dir.path().join("garbage.occupancy");
    let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&garbage, bytes).expect("write");
    let h = opened(garbage);
    assert!(h.state().tabs[0].error().is_none());
    assert!(occupancy(&h).data().is_some());

    // A row without a limit the model needs: its values, and no charts but the reason.
    let text = std::fs::read_to_string(fixture("session1.occupancy")).expect("read");
    let lacking = dir.path().join("lacking.occupancy");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let first_row = lines
        .iter()
        .position(|l| l.starts_with("4100,"))
        .expect("a data row");
    let mut fields: Vec<&str> = lines[first_row].split(',').collect();
    fields[6] = ""; // Max. number of VGPR
    lines[first_row] = fields.join(",");
    std::fs::write(&lacking, lines.join("\n")).expect("write");
    let h = opened(lacking);
    assert_eq!(occupancy(&h).charts().map(|c| c.row), Some(0));
    h.get_by_label_contains("the row lacks a limit the charts need");
    assert!(h.query_by_label_contains("Occupancy vs VGPRs").is_none());

    let missing = dir.path().join("missing.occupancy");
    let h = opened(missing.clone());
    let error = h.state().tabs[0].error().expect("an error").to_string();
    assert!(error.starts_with(&missing.display().to_string()), "{error}");
    assert!(h.get_all_by_label(&error).count() >= 1);

    // Cancel before the loader's answer is read: the tab says so, nothing is shown.
    let mut doc = OccupancyDoc::open(fixture("session1.occupancy"), || {});
    assert!(doc.loading());
    doc.cancel();
    assert!(doc.poll().is_none());
    let error = doc.error().expect("cancelled").to_string();
    assert!(error.ends_with("loading cancelled"), "{error}");
    assert!(doc.data().is_none() && !doc.loading());
}

#[test]
fn every_real_counter_file_opens_with_all_its_rows() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/codexl");
    let Ok(entries) = std::fs::read_dir(&corpus) else {
        crate::common::skip_shared(format!("{} is absent", corpus.display()));
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .csv in {}", corpus.display());
    for path in files {
        let direct = CounterFile::open(&path).expect("read");
        let h = opened(path.clone());
        let doc = counters(&h);
        assert!(
            doc.error().is_none(),
            "{}: {:?}",
            path.display(),
            doc.error()
        );
        let data = doc.data().expect("loaded");
        assert_eq!(
            data.file.rows.len(),
            direct.rows.len(),
            "{}",
            path.display()
        );
        assert!(!data.file.rows.is_empty(), "{}", path.display());
        // The chart shows the time column, and the table the split kernel names.
        assert_eq!(
            doc.chart_column(),
            direct.time_column(),
            "{}",
            path.display()
        );
        h.get_by_label(&format!(
            "Bar chart of {} across {} dispatches",
            direct.table.columns[direct.time_column().expect("time")],
            direct.rows.len()
        ));
        let first = &direct.rows[0].kernel;
        assert!(h.get_all_by_label(first).count() >= 1, "{}", path.display());
    }
}

#[test]
fn hsa_kernel_names_show_unescaped_with_id_and_device() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("hsa.csv");
    std::fs::write(
        &path,
        "#ProfilerVersion=5.6\r\n#API=HSA\r\n#Device gfx900 Name=gfx900\r\n#ListSeparator=,\r\n\
         Method,ThreadID,CallIndex,Time\r\n\
         my&nbsp;kernel&comma;v2__k3_gfx9001,7,1,0.25\r\n",
    )
    .expect("write");
    let h = opened(path);
    let data = counters(&h).data().expect("loaded");
    assert_eq!(data.file.rows.len(), 1);
    assert!(data.file.warnings().is_empty());
    // The table, the aggregate and the legend's data: the name as the program wrote it.
    assert_eq!(h.get_all_by_label("my kernel,v2").count(), 2);
    assert_eq!(data.kernel_names, vec!["my kernel,v2".to_string()]);
    h.get_by_label("3");
    assert!(h.get_all_by_label("gfx900").count() >= 2);
    h.get_by_label_contains("API: HSA");
}
