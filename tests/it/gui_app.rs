//! The whole app, headless: egui_kittest drives `SightlineApp` through its accessibility tree.
//! Reports load on the real background thread; section folders are temporary folders, so the
//! user's own folders are never touched.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common;
use crate::common::app::ncu_state;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::ncu::report_tab::ReportTab;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::ncu::Report;
use sightline::section::{
    KernelDetails, SectionFolder, SectionSet, deploy_bundled_sections, resolve_action,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// A temporary folder holding a copy of the bundled sections.
fn section_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    deploy_bundled_sections(dir.path()).expect("deploy the bundled sections");
    dir
}

/// Settings whose section search path is `folder` (so nothing is deployed to the user's home).
fn settings_with(folder: &Path, prefer_embedded: bool) -> Settings {
    Settings {
        section_folders: vec![folder.to_path_buf()],
        prefer_embedded,
        ..Settings::default()
    }
}

fn harness(app: SightlineApp) -> Harness<'static, SightlineApp> {
    Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app)
}

/// Steps the app until `done` holds (reports load on a real thread); panics after 20 s.
fn step_until(
    harness: &mut Harness<'static, SightlineApp>,
    what: &str,
    done: impl Fn(&Harness<'static, SightlineApp>) -> bool,
) {
    common::app::step_until(harness, what, Duration::from_secs(20), done);
}

/// Steps until every tab finished loading and the active tab shows a resolved page.
fn wait_loaded(harness: &mut Harness<'static, SightlineApp>) {
    step_until(harness, "the report to load", |h| {
        let app = h.state();
        app.tabs.iter().all(|t| !t.loading())
            && app
                .document::<ReportTab>(app.active)
                .is_some_and(|t| t.details().is_some() || t.error().is_some())
    });
}

/// The page of kernel `index` of `report` resolved against its embedded sections.
fn embedded_page(report: &Report, index: usize) -> KernelDetails {
    let action = report.action(index).expect("action");
    let set = SectionSet::from_embedded(action.sections().expect("embedded sections"));
    resolve_action(&action, &set)
}

/// The formatted text of header entry `label` of section `section`.
fn header_text(page: &KernelDetails, section: &str, label: &str) -> String {
    let section = page
        .sections
        .iter()
        .find(|s| s.display_name == section)
        .unwrap_or_else(|| panic!("section {section} on the page"));
    section
        .header
        .iter()
        .find(|e| e.label == label)
        .unwrap_or_else(|| panic!("{label} in the header of {}", section.display_name))
        .text
        .clone()
}

#[test]
fn opens_a_report_selects_a_kernel_and_reads_values_by_label() {
    let folder = section_folder();
    let sample = fixture("sample.ncu-rep");
    let report = Report::open(&sample).expect("open the sample");
    let app = SightlineApp::new(
        settings_with(folder.path(), true),
        StartOptions {
            files: vec![sample.clone()],
            ..Default::default()
        },
    );
    let mut harness = harness(app);
    wait_loaded(&mut harness);

    // The kernel list shows every kernel; the first is selected and its page is shown.
    for index in 0..report.num_actions() {
        let name = report
            .action(index)
            .unwrap()
            .name(sightline::ncu::NameBase::Function)
            .to_owned();
        assert!(
            harness.query_all_by_label(&name).count() >= 1,
            "{name} listed"
        );
    }
    let first = embedded_page(&report, 0);
    let section = first.sections[0].display_name.clone();
    let label = first.sections[0].header[0].label.clone();
    harness.get_by_label(&section);
    harness.get_by_label(&label);
    harness.get_by_label(&header_text(&first, &section, &label));

    // Click the second kernel: its values replace the first one's.
    let second = embedded_page(&report, 1);
    let second_text = header_text(&second, &section, &label);
    assert_ne!(second_text, header_text(&first, &section, &label));
    harness.get_by_label(&second.name).click();
    harness.run();
    assert_eq!(
        harness.state().document::<ReportTab>(0).unwrap().selected(),
        1
    );
    harness.get_by_label(&second_text);

    // Collapse and expand the section.
    harness.get_by_label(&section).click();
    harness.run();
    assert!(harness.query_by_label(&second_text).is_none());
    harness.get_by_label(&section).click();
    harness.run();
    harness.get_by_label(&second_text);

    // Down / Up move the selection through the list.
    harness.key_press(egui::Key::ArrowDown);
    harness.run();
    assert_eq!(
        harness.state().document::<ReportTab>(0).unwrap().selected(),
        2
    );
    harness.key_press(egui::Key::ArrowUp);
    harness.run();
    assert_eq!(
        harness.state().document::<ReportTab>(0).unwrap().selected(),
        1
    );
}

#[test]
fn the_session_page_shows_device_and_process() {
    let folder = section_folder();
    let app = SightlineApp::new(
        settings_with(folder.path(), true),
        StartOptions {
            files: vec![fixture("sample.ncu-rep")],
            ..Default::default()
        },
    );
    let mut harness = harness(app);
    wait_loaded(&mut harness);
    harness.get_by_label("Session").click();
    harness.run();
    harness.get_by_label_contains("Sightline Synthetic GPU");
    harness.get_by_label_contains("sightline synthetic fixture");
    harness.get_by_label("Compute capability");
    harness.get_by_label("8.6");
    harness.get_by_label("Process ID");
    harness.get_by_label("31337");
}

#[test]
fn a_failed_load_shows_its_error_and_the_app_keeps_running() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.ncu-rep");
    std::fs::write(&bad, b"this is not a report").unwrap();
    let folder = section_folder();
    let app = SightlineApp::new(
        settings_with(folder.path(), true),
        StartOptions {
            files: vec![bad, fixture("sample.ncu-rep")],
            ..Default::default()
        },
    );
    let mut harness = harness(app);
    step_until(&mut harness, "both loads to end", |h| {
        h.state().tabs.len() == 2 && h.state().tabs.iter().all(|t| !t.loading())
    });
    let error = harness
        .state()
        .document::<ReportTab>(0)
        .unwrap()
        .error()
        .map(str::to_owned)
        .expect("the broken file's error");
    assert!(error.contains("broken.ncu-rep"), "{error}");
    harness.state_mut().active = 0;
    harness.run();
    // In the tab and in the status bar.
    assert_eq!(harness.query_all_by_label(&error).count(), 2);
    // The other report opened normally.
    assert!(
        harness
            .state()
            .document::<ReportTab>(1)
            .unwrap()
            .report()
            .is_some()
    );
}

#[test]
fn metric_selection_lists_sections_and_rules_and_switches_sections_off() {
    let folder = section_folder();
    std::fs::write(
        folder.path().join("OccupancyRule.py"),
        "def get_identifier():\n    return \"OccupancyCheck\"\n\ndef get_name():\n    return \"Occupancy Check\"\n\ndef get_section_identifier():\n    return \"Occupancy\"\n",
    )
    .unwrap();
    std::fs::write(
        folder.path().join("Standalone.py"),
        "def get_identifier():\n    return \"Standalone\"\n",
    )
    .unwrap();
    std::fs::write(
        folder.path().join("Broken.section"),
        "Identifier: \"Broken\"\nDisplayName: ",
    )
    .unwrap();
    let app = SightlineApp::new(
        Settings::default(),
        StartOptions {
            files: vec![fixture("sample.ncu-rep")],
            section_folders: vec![SectionFolder {
                path: folder.path().to_path_buf(),
                recursive: false,
            }],
            ..Default::default()
        },
    );
    let mut harness = harness(app);
    wait_loaded(&mut harness);
    harness.get_by_label("Launch Statistics");
    harness.get_by_label("Metric Selection…").click();
    harness.run();
    assert!(ncu_state(&harness).selection.open);
    harness.get_by_label("Reload");
    // Sections with their files, rules under their section, independent rules in their group.
    assert!(harness.query_all_by_label("Occupancy").count() >= 1);
    harness.get_by_label("Rule: Occupancy Check");
    harness.get_by_label("[Independent Rules]");
    harness.get_by_label("Rule: Standalone");
    // The failed file is listed with its positioned error.
    let broken = folder.path().join("Broken.section");
    harness.get_by_label(&broken.display().to_string());
    let failure = ncu_state(&harness).sections.set.failures[0].diagnostics[0].to_string();
    assert!(failure.contains("Broken.section:2:"), "{failure}");
    harness.get_by_label(&failure);

    // Switching Launch Statistics off removes it from the Details page.
    harness
        .get_by_role_and_label(egui::accesskit::Role::CheckBox, "Launch Statistics")
        .scroll_to_me();
    harness.run();
    harness
        .get_by_role_and_label(egui::accesskit::Role::CheckBox, "Launch Statistics")
        .click();
    harness.run();
    assert!(
        ncu_state(&harness)
            .sections
            .disabled
            .contains("LaunchStats")
    );
    let page = harness
        .state()
        .document::<ReportTab>(0)
        .unwrap()
        .details()
        .unwrap();
    assert!(!page.sections.iter().any(|s| s.identifier == "LaunchStats"));
    assert_eq!(
        harness.state().settings_to_save().disabled_sections.len(),
        1
    );
}

/// Rewrites the display name of the Launch Statistics section file in `folder`.
fn rename_launch_statistics(folder: &Path, name: &str) {
    let path = folder.join("LaunchStatistics.section");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("DisplayName: \"").unwrap() + "DisplayName: \"".len();
    let end = start + text[start..].find('"').unwrap();
    let edited = format!("{}{name}{}", &text[..start], &text[end..]);
    std::fs::write(&path, edited).unwrap();
}

fn app_on_folder(folder: &Path) -> Harness<'static, SightlineApp> {
    let app = SightlineApp::new(
        Settings::default(),
        StartOptions {
            files: vec![fixture("sample.ncu-rep")],
            section_folders: vec![SectionFolder {
                path: folder.to_path_buf(),
                recursive: false,
            }],
            ..Default::default()
        },
    );
    let mut harness = harness(app);
    wait_loaded(&mut harness);
    harness
}

#[test]
fn reload_shows_an_edited_section_and_keeps_the_selected_kernel() {
    let folder = section_folder();
    let mut harness = app_on_folder(folder.path());
    harness.get_by_label("matmul_tiled").click();
    harness.run();
    assert_eq!(
        harness.state().document::<ReportTab>(0).unwrap().selected(),
        1
    );
    harness.get_by_label("Launch Statistics");

    rename_launch_statistics(folder.path(), "Launch Configuration");
    // Reload from the Metric Selection window.
    harness.get_by_label("Metric Selection…").click();
    harness.run();
    harness.get_by_label("Reload").click();
    harness.run();
    assert!(harness.query_all_by_label("Launch Configuration").count() >= 1);
    assert_eq!(
        harness.state().document::<ReportTab>(0).unwrap().selected(),
        1
    );
    let page = harness
        .state()
        .document::<ReportTab>(0)
        .unwrap()
        .details()
        .unwrap();
    assert_eq!(page.index, 1);
    assert!(
        page.sections
            .iter()
            .any(|s| s.display_name == "Launch Configuration")
    );
}

#[test]
fn live_reload_follows_saves_and_keeps_the_last_good_version_of_a_broken_file() {
    let folder = section_folder();
    let mut harness = app_on_folder(folder.path());
    assert!(
        ncu_state(&harness).sections.watching(),
        "{:?}",
        ncu_state(&harness).sections.watch_error
    );
    harness.get_by_label("Launch Statistics");

    // A save is picked up without any click.
    rename_launch_statistics(folder.path(), "Launch Shape");
    step_until(&mut harness, "the live reload of an edited file", |h| {
        h.state()
            .document::<ReportTab>(0)
            .unwrap()
            .details()
            .is_some_and(|p| p.sections.iter().any(|s| s.display_name == "Launch Shape"))
    });
    harness.run();
    harness.get_by_label("Launch Shape");

    // A half-written file: the last good version stays, the error is in Metric Selection.
    let path = folder.path().join("LaunchStatistics.section");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    step_until(&mut harness, "the live reload of a broken file", |h| {
        ncu_state(h)
            .sections
            .set
            .failures
            .iter()
            .any(|f| f.path == path)
    });
    harness.run();
    harness.get_by_label("Launch Shape");
    harness.get_by_label("Metric Selection…").click();
    harness.run();
    harness.get_by_label("error: showing the last good version");
    let status = harness.state().status().expect("a status message");
    assert!(status.1, "the status reports the failure: {}", status.0);
}

#[test]
fn keyboard_shortcuts_filter_close_and_help() {
    let folder = section_folder();
    let mut harness = harness(SightlineApp::new(
        settings_with(folder.path(), true),
        StartOptions {
            files: vec![fixture("sample.ncu-rep")],
            ..Default::default()
        },
    ));
    wait_loaded(&mut harness);

    harness.key_press(egui::Key::F1);
    harness.run();
    harness.get_by_label("Keyboard shortcuts");
    harness.get_by_label("Previous / next kernel");

    // Ctrl+F focuses the filter; typing narrows the list.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    harness.run();
    let focused: Vec<_> = harness
        .query_all_by_role(egui::accesskit::Role::TextInput)
        .filter(|node| node.is_focused())
        .collect();
    assert_eq!(focused.len(), 1, "Ctrl+F focuses the filter box");
    focused[0].type_text("reduce");
    harness.run();
    assert_eq!(
        harness
            .state()
            .document::<ReportTab>(0)
            .unwrap()
            .list()
            .filter,
        "reduce"
    );
    harness.get_by_label("1 of 4 kernel(s)");
    assert!(harness.query_by_label("matmul_tiled").is_none());

    // Ctrl+W closes the report.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::W);
    harness.run();
    assert!(harness.state().tabs.is_empty());
    harness.get_by_label("Open…");
}

#[test]
fn dropping_a_file_opens_it_and_remembers_it() {
    let folder = section_folder();
    let mut harness = harness(SightlineApp::new(
        settings_with(folder.path(), true),
        StartOptions::default(),
    ));
    harness.run();
    harness.get_by_label("Open…");
    let sample = fixture("sample.ncu-rep");
    // Hovering files shows the overlay (painted; the app keeps running), dropping opens them.
    harness.input_mut().hovered_files.push(egui::HoveredFile {
        path: Some(sample.clone()),
        ..Default::default()
    });
    harness.step();
    harness.input_mut().hovered_files.clear();
    harness
        .input_mut()
        .dropped_files
        .push(std::sync::Arc::new(DroppedPath(sample.clone())));
    wait_loaded(&mut harness);
    assert_eq!(harness.state().tabs.len(), 1);
    assert!(harness.query_all_by_label("vector_add").count() >= 1);
    let saved = harness.state().settings_to_save();
    assert_eq!(saved.recent, vec![std::fs::canonicalize(&sample).unwrap()]);
    assert_eq!(saved.section_folders, vec![folder.path().to_path_buf()]);
}

/// A file dropped onto the window, as the platform integration hands it over.
#[derive(Debug)]
struct DroppedPath(PathBuf);

impl egui::DroppedFile for DroppedPath {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn open_path_prompt_opens_a_typed_path() {
    let folder = section_folder();
    let mut harness = harness(SightlineApp::new(
        settings_with(folder.path(), true),
        StartOptions::default(),
    ));
    harness.run();
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Open Path…").click();
    harness.run();
    let sample = fixture("sample.ncu-rep");
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .click();
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .type_text(&sample.display().to_string());
    harness.run();
    let typed = harness
        .state()
        .path_prompt
        .as_ref()
        .map(|(text, _)| text.clone());
    assert_eq!(typed, Some(sample.display().to_string()));
    harness.get_by_label("Open").click();
    wait_loaded(&mut harness);
    assert!(harness.state().path_prompt.is_none());
    assert_eq!(harness.state().tabs.len(), 1);
    assert_eq!(harness.state().tabs[0].path(), sample);
}
