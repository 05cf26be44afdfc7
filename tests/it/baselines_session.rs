//! Baselines across sessions: kept in the settings and restored on the next start (also when
//! their report has gone), and saved to and loaded from baselines files.

use std::path::PathBuf;

use egui_kittest::kittest::Queryable;

use sightline::app::ncu::baselines::Pick;
use sightline::app::ncu::report_tab::ReportTab;

use crate::baselines::{AppHarness, app_with_two_baselines, baseline_names, fixture};
use crate::common;
use crate::gui_summary_raw::app_on;

/// The app on `files` with `settings` (their section folder a temporary one, which the caller
/// keeps), once the active report's page is shown.
fn app_with(
    settings: sightline::app::Settings,
    files: Vec<PathBuf>,
) -> egui_kittest::Harness<'static, sightline::app::SightlineApp> {
    let app = sightline::app::SightlineApp::new(
        settings,
        sightline::app::StartOptions {
            files,
            ..Default::default()
        },
    );
    // Before the first frame, every restored baseline is in the bar, loading: its report is
    // read by a job the first frame starts, never while the app is made.
    let state = app
        .kind_state::<sightline::app::ncu::state::NcuState>()
        .unwrap();
    assert!(state.baselines.list.iter().all(|b| b.status
        == sightline::app::ncu::baselines::BaselineStatus::Loading
        && b.names.is_empty()));
    let mut h = egui_kittest::Harness::builder()
        .with_size(eframe::egui::vec2(1500.0, 1000.0))
        .with_max_steps(60)
        .build_ui_state(
            |ui, app: &mut sightline::app::SightlineApp| app.frame_ui(ui),
            app,
        );
    common::app::until_report_shown(&mut h, "the report to load");
    h
}

/// eframe's storage in memory.
#[derive(Default)]
struct MemoryStorage(std::collections::BTreeMap<String, String>);

impl eframe::Storage for MemoryStorage {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

/// Steps until no baseline is loading any more.
fn until_restored(h: &mut egui_kittest::Harness<'static, sightline::app::SightlineApp>) {
    common::app::step_until(
        h,
        "the baselines to be restored",
        std::time::Duration::from_secs(30),
        |h| !common::app::ncu_state(h).baselines.restoring(),
    );
}

fn ncu_state_mut<'a>(
    h: &'a mut egui_kittest::Harness<'static, sightline::app::SightlineApp>,
) -> &'a mut sightline::app::ncu::state::NcuState {
    h.state_mut()
        .kind_state_mut::<sightline::app::ncu::state::NcuState>()
        .unwrap()
}

/// What a baseline is, compared before and after a restart: name, colour, visibility, pick,
/// report, kernel, kernel names, durations and entries.
type BaselineSnapshot = (
    String,
    eframe::egui::Color32,
    bool,
    Pick,
    PathBuf,
    usize,
    std::sync::Arc<Vec<String>>,
    std::sync::Arc<Vec<Option<f64>>>,
    std::sync::Arc<sightline::section::BaselineEntries>,
);

#[test]
fn gui_baselines_persist_with_the_session() {
    let (mut h, _folder) = app_with_two_baselines();
    edit_baselines(&mut h);
    h.run();
    let before = snapshot(&h);
    let settings = saved_settings(&mut h);
    drop(h);

    // A new app with those settings: the baselines are there at once, loading, then read in
    // the background.
    let mut h = app_with(settings, vec![fixture("multi_block.ncu-rep")]);
    until_restored(&mut h);
    check_restored(&h, &before);
    check_shared_reports(&h);
    check_shown_after_restart(&mut h, &before);
}

/// Edited: the first renamed and compared with a picked result, the second hidden and
/// moved to the front.
fn edit_baselines(h: &mut AppHarness) {
    // Edited: the first renamed and compared with a picked result, the second hidden and
    // moved to the front.
    {
        let store = &mut ncu_state_mut(h).baselines;
        assert_eq!(store.list.len(), 2);
        store.list[0].name = "my sample baseline".to_owned();
        store.list[0].pick = Pick::Result(1);
        store.list[1].visible = false;
        let second = store.list[1].id;
        store.move_by(second, true);
    }
}

/// Every baseline as a tuple.
fn snapshot(h: &AppHarness) -> Vec<BaselineSnapshot> {
    common::app::ncu_state(h)
        .baselines
        .list
        .iter()
        .map(|b| {
            (
                b.name.clone(),
                b.color,
                b.visible,
                b.pick,
                b.report.clone(),
                b.kernel,
                b.names.clone(),
                b.durations.clone(),
                b.entries.clone(),
            )
        })
        .collect()
}

/// What is persisted: the app's eframe save into a test storage (nothing goes to $HOME),
/// read back as eframe reads it at start.
fn saved_settings(h: &mut AppHarness) -> sightline::app::Settings {
    let mut storage = MemoryStorage::default();
    eframe::App::save(h.state_mut(), &mut storage);
    let (key, _) = storage.0.iter().next().expect("the settings were saved");
    let settings: sightline::app::Settings =
        eframe::get_value(&storage, key).expect("the settings read back");
    assert_eq!(settings, h.state().settings_to_save());
    assert_eq!(settings.baselines.len(), 2);
    assert_eq!(settings.baselines[1].name, "my sample baseline");
    assert_eq!(settings.baselines[1].pick, Some(1));
    assert!(!settings.baselines[0].visible);
    settings
}

/// The restored baselines equal the saved ones, read again from their reports.
fn check_restored(h: &AppHarness, before: &[BaselineSnapshot]) {
    use sightline::app::ncu::baselines::BaselineStatus;
    let store = &common::app::ncu_state(h).baselines;
    assert_eq!(store.list.len(), 2);
    for (b, (name, color, visible, pick, report, kernel, names, durations, entries)) in
        store.list.iter().zip(before)
    {
        // The added result's page, resolved on the job as its tab resolved it.
        assert_ne!(
            entries.as_ref(),
            &sightline::section::BaselineEntries::default()
        );
        assert_eq!(&b.entries, entries, "{name}");
        assert_eq!(b.status, BaselineStatus::Ready, "{}", b.name);
        assert_eq!(&b.name, name);
        assert_eq!(&b.color, color);
        assert_eq!(&b.visible, visible);
        assert_eq!(&b.pick, pick);
        assert_eq!(&b.report, report);
        assert_eq!(&b.kernel, kernel);
        // Kernel names and durations for matching, read from its report as the kernel list
        // reads them.
        assert!(!b.names.is_empty());
        assert_eq!(&b.names, names);
        assert_eq!(&b.durations, durations);
    }
}

/// The baseline of the report open in the tab uses the tab's report, not a second copy; the
/// other one's report was read by its job.
fn check_shared_reports(h: &AppHarness) {
    let store = &common::app::ncu_state(h).baselines;
    let tab = h
        .state()
        .document::<ReportTab>(0)
        .and_then(|t| t.report().cloned())
        .expect("the tab's report");
    let shares = |b: &sightline::app::ncu::baselines::Baseline| {
        b.source().is_some_and(|r| std::sync::Arc::ptr_eq(r, &tab))
    };
    let (open, other): (Vec<_>, Vec<_>) = store
        .list
        .iter()
        .partition(|b| b.report.ends_with("multi_block.ncu-rep"));
    assert_eq!((open.len(), other.len()), (1, 1));
    assert!(shares(open[0]), "restored from the open tab");
    assert!(other[0].source().is_some() && !shares(other[0]));
}

/// The bar shows them; the Details page compares with the shown one (its picked result), and
/// shown again, the other one too.
fn check_shown_after_restart(h: &mut AppHarness, before: &[BaselineSnapshot]) {
    // The bar shows them; the Details page compares with the shown one (its picked result).
    h.run();
    h.get_by_label("Clear baselines");
    assert!(
        h.query_all_by_label_contains("Δ vs my sample baseline")
            .count()
            > 0
    );
    assert!(h.query_by_label_contains("no such").is_none());
    // Shown again, the other one compares too.
    ncu_state_mut(h).baselines.list[0].visible = true;
    h.run();
    let other = &before[0].0;
    assert!(
        h.query_all_by_label_contains(&format!("Δ vs {other}"))
            .count()
            > 0
    );
}

#[test]
fn gui_baselines_restored_from_a_missing_file_say_why_and_can_be_removed() {
    use sightline::app::ncu::baselines::BaselineStatus;
    use sightline::app::ncu::baselines::persist::BaselineSpec;
    let folder = tempfile::tempdir().unwrap();
    sightline::section::deploy_bundled_sections(folder.path()).unwrap();
    let gone = folder.path().join("gone.ncu-rep");
    let spec = |report: PathBuf, result: usize, name: &str| BaselineSpec {
        report,
        result,
        name: name.to_owned(),
        color: [200, 100, 50],
        visible: true,
        pick: None,
    };
    let settings = sightline::app::Settings {
        section_folders: vec![folder.path().to_path_buf()],
        baselines: vec![
            spec(gone.clone(), 0, "gone"),
            spec(fixture("sample.ncu-rep"), 999, "too far"),
            spec(fixture("sample.ncu-rep"), 0, "fine"),
        ],
        ..Default::default()
    };
    let mut h = app_with(settings, vec![fixture("sample.ncu-rep")]);
    until_restored(&mut h);
    h.run();
    let store = &common::app::ncu_state(&h).baselines;
    let gone_message = format!("{}: the file is gone", gone.display());
    assert_eq!(
        store.list[0].status,
        BaselineStatus::Failed(gone_message.clone())
    );
    match &store.list[1].status {
        BaselineStatus::Failed(why) => {
            assert!(why.contains("sample.ncu-rep"), "{why}");
            assert!(why.contains("no longer holds result 999"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(store.list[2].status, BaselineStatus::Ready);
    // The bar says which file and why.
    h.get_by_label(&gone_message);
    h.get_by_label_contains("no longer holds result 999");
    // The working one compares on the Details page.
    assert!(h.query_all_by_label_contains("Δ vs fine").count() > 0);
    // Removed, the broken ones are gone (and not persisted).
    h.get_all_by_label("Remove").next().unwrap().click();
    h.run();
    h.get_all_by_label("Remove").next().unwrap().click();
    h.run();
    let names = baseline_names(&h);
    assert_eq!(names, vec!["fine".to_owned()]);
    assert!(h.query_by_label(&gone_message).is_none());
    assert_eq!(h.state().settings_to_save().baselines.len(), 1);
}

#[test]
fn gui_baselines_save_and_load_files() {
    use sightline::app::ncu::baselines::BaselineStatus;
    let (mut h, folder) = app_on(vec![fixture("sample.ncu-rep")]);
    h.get_by_label("Add as baseline").click();
    h.run();
    ncu_state_mut(&mut h).baselines.list[0].name = "saved one".to_owned();
    let specs = common::app::ncu_state(&h).baselines.specs();
    let path = folder.path().join("baselines.json");
    let (message, error) = ncu_state_mut(&mut h).baselines_file(false, &path);
    assert!(!error, "{message}");
    assert!(message.contains("1 baseline(s) saved"), "{message}");
    // Cleared, then loaded: the same description, read in the background.
    h.get_by_label("Clear baselines").click();
    h.run();
    assert!(baseline_names(&h).is_empty());
    let (message, error) = ncu_state_mut(&mut h).baselines_file(true, &path);
    assert!(!error, "{message}");
    assert_eq!(common::app::ncu_state(&h).baselines.specs(), specs);
    until_restored(&mut h);
    h.run();
    assert_eq!(
        common::app::ncu_state(&h).baselines.list[0].status,
        BaselineStatus::Ready
    );
    assert!(h.query_all_by_label_contains("Δ vs saved one").count() > 0);

    // The File menu has them (the dialogs themselves are not opened here).
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Baselines").click();
    h.run();
    h.get_by_label("Save baselines…");
    h.get_by_label("Load baselines…");
    h.key_press(eframe::egui::Key::Escape);
    h.run();

    // A broken file: the error names the file, line and column.
    let broken = folder.path().join("broken.json");
    std::fs::write(
        &broken,
        "{\n  \"format\": \"sightline-baselines/1\",\n  \"baselines\": [ oops ]\n}\n",
    )
    .unwrap();
    let (message, error) = ncu_state_mut(&mut h).baselines_file(true, &broken);
    assert!(error);
    let at = format!("{}:3:18:", broken.display());
    assert!(message.contains(&at), "{message}");
    assert!(message.contains("expected value"), "{message}");
    // Another program's JSON; a file that is not there.
    std::fs::write(&broken, "{\"format\": \"other\", \"baselines\": []}").unwrap();
    let (message, _) = ncu_state_mut(&mut h).baselines_file(true, &broken);
    assert!(message.contains("not a baselines file"), "{message}");
    let missing = folder.path().join("missing.json");
    let (message, error) = ncu_state_mut(&mut h).baselines_file(true, &missing);
    assert!(error && message.contains("missing.json"), "{message}");
    // Nothing was added by the failures.
    assert_eq!(common::app::ncu_state(&h).baselines.list.len(), 1);
}
