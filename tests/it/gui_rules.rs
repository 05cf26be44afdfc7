//! Applying rules from the GUI, headless (egui_kittest): Apply Rules and per-rule Apply buttons,
//! rule states on the page and in the Metric Selection window, failures with their error,
//! re-applying on live reload of a rule file, and Cancel. Rules run on the real engine thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::common;
use crate::common::app::ncu_state;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::ncu::report_tab::ReportTab;
use sightline::app::ncu::rule_state::RuleStatus;
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::ncu::Report;
use sightline::rules::{RuleEngine, RunOptions, SectionBinding};
use sightline::section::{SectionFolder, deploy_bundled_sections};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sample.ncu-rep")
}

/// A temporary folder holding the bundled sections and rules.
fn section_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    deploy_bundled_sections(dir.path()).expect("deploy the bundled sections");
    dir
}

fn app_on_folder(folder: &Path) -> Harness<'static, SightlineApp> {
    let app = SightlineApp::new(
        Settings::default(),
        StartOptions {
            files: vec![sample()],
            section_folders: vec![SectionFolder {
                path: folder.to_path_buf(),
                recursive: false,
            }],
            ..Default::default()
        },
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1400.0, 8000.0))
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    step_until(&mut harness, "the report to load", |h| {
        let app = h.state();
        app.tabs.iter().all(|t| !t.loading())
            && app.document::<ReportTab>(0).unwrap().details().is_some()
    });
    harness
}

/// Steps the app until `done` holds; panics after 60 s (the engine starts in a debug build).
fn step_until(
    harness: &mut Harness<'static, SightlineApp>,
    what: &str,
    done: impl Fn(&Harness<'static, SightlineApp>) -> bool,
) {
    common::app::step_until(harness, what, Duration::from_secs(60), done);
}

/// The source of a rule bound to the Launch Statistics section: `(identifier, name, body of
/// apply(handle))`.
fn launch_rule((identifier, name, body): (&str, &str, &str)) -> String {
    format!(
        "import NvRules\n\ndef get_identifier():\n    return \"{identifier}\"\n\n\
         def get_name():\n    return \"{name}\"\n\n\
         def get_section_identifier():\n    return \"LaunchStats\"\n\n\
         def apply(handle):{body}"
    )
}

/// Steps until the engine is idle. Called after a click on Apply and one `step` (the frame that
/// takes the click and starts the engine), not `run`: how many frames of the spinner the rules
/// take depends on the machine's speed, and `run` fails past 60.
fn wait_applied(harness: &mut Harness<'static, SightlineApp>) {
    step_until(harness, "rules to be applied", |h| !h.state().busy());
    harness.run();
}

fn status_of(harness: &Harness<'static, SightlineApp>, rule: &str) -> Option<RuleStatus> {
    harness
        .state()
        .document::<ReportTab>(0)
        .unwrap()
        .shown_page_rules()
        .and_then(|page| page.status(rule).cloned())
}

fn assert_status(harness: &Harness<'static, SightlineApp>, rule: &str, expected: RuleStatus) {
    assert_eq!(status_of(harness, rule), Some(expected), "state of {rule}");
}

/// What the engine itself says about `kernel` with the folder's rules and sections.
fn engine_titles(folder: &Path, kernel: usize, rule: &str) -> Vec<String> {
    let report = Arc::new(Report::open(sample()).expect("open the sample"));
    let set = sightline::section::SectionSet::load_folders(&[SectionFolder {
        path: folder.to_path_buf(),
        recursive: false,
    }]);
    let mut options = RunOptions::new(vec![folder.to_path_buf()]);
    options.sections = SectionBinding::Identifiers(
        set.sections
            .iter()
            .map(|s| s.section.identifier.clone())
            .collect(),
    );
    options.kernels = Some(vec![kernel]);
    let engine = RuleEngine::start().expect("engine");
    let output = engine.run(report, options).expect("run");
    output.kernels[0]
        .results
        .iter()
        .filter(|r| r.identifier == rule)
        .flat_map(|r| r.messages.iter().map(|m| m.title.clone()))
        .collect()
}

#[test]
fn apply_rules_replaces_stored_results_and_shows_rule_states() {
    let folder = section_folder();
    let mut harness = app_on_folder(folder.path());

    // Before applying: the report's stored results are shown, Sightline's rules are not applied.
    assert_status(&harness, "AchievedOccupancy", RuleStatus::Stored);
    assert_status(&harness, "SightlineOccupancy", RuleStatus::NotApplied);
    assert!(harness.query_all_by_label("stored").count() >= 1);
    let expected = engine_titles(folder.path(), 0, "SightlineOccupancy");
    assert!(!expected.is_empty(), "the occupancy rule says something");
    assert!(harness.query_by_label(&expected[0]).is_none());

    harness.get_by_label("Apply Rules").click();
    wait_applied(&mut harness);
    assert_status(&harness, "SightlineOccupancy", RuleStatus::Applied);
    // The applied rule's message is on the page; stored results of rules not applied stay.
    assert!(harness.query_all_by_label(&expected[0]).count() >= 1);
    assert_status(&harness, "AchievedOccupancy", RuleStatus::Stored);
    assert!(harness.query_all_by_label("applied").count() >= 3);
    let status = harness.state().status().expect("a status message");
    assert!(!status.1, "no failure: {}", status.0);

    // The Metric Selection window gives the same states.
    harness.get_by_label("Metric Selection…").click();
    harness.run();
    assert!(harness.query_all_by_label("found · applied").count() >= 3);
    // Rules known only from the report's stored results are listed too.
    assert!(harness.query_all_by_label("in report · stored").count() >= 2);
    assert!(harness.query_all_by_label("<stored in report>").count() >= 2);
}

#[test]
fn one_rule_is_applied_alone_and_per_kernel() {
    let folder = section_folder();
    let mut harness = app_on_folder(folder.path());
    harness.get_by_label("matmul_tiled").click();
    harness.run();
    assert_eq!(
        harness.state().document::<ReportTab>(0).unwrap().selected(),
        1
    );

    harness.get_by_label("Apply Occupancy").click();
    harness.step();
    wait_applied(&mut harness);
    assert_status(&harness, "SightlineOccupancy", RuleStatus::Applied);
    // Only that rule ran.
    assert_status(&harness, "SightlineLaunchConfig", RuleStatus::NotApplied);
    // Another kernel has nothing applied.
    harness.get_by_label("vector_add").click();
    harness.run();
    assert_eq!(
        harness.state().document::<ReportTab>(0).unwrap().selected(),
        0
    );
    assert_status(&harness, "SightlineOccupancy", RuleStatus::NotApplied);
    // Ctrl+R applies every rule to it.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::R);
    harness.step();
    wait_applied(&mut harness);
    assert_status(&harness, "SightlineOccupancy", RuleStatus::Applied);
    assert_status(&harness, "SightlineLaunchConfig", RuleStatus::Applied);
}

const FAILING_RULE: (&str, &str, &str) = (
    "TestLaunchCheck",
    "Launch Check",
    r#"
    ctx = NvRules.get_context(handle)
    return 1 / 0
"#,
);

const FIXED_RULE: (&str, &str, &str) = (
    "TestLaunchCheck",
    "Launch Check",
    r#"
    ctx = NvRules.get_context(handle)
    fe = ctx.frontend()
    fe.message(NvRules.MsgType.OK, "The launch was checked again.", "Checked After Edit")
"#,
);

#[test]
fn a_failing_rule_shows_its_error_and_is_applied_again_when_its_file_changes() {
    let folder = section_folder();
    let rule = folder.path().join("test_launch_check.py");
    std::fs::write(&rule, launch_rule(FAILING_RULE)).unwrap();
    let mut harness = app_on_folder(folder.path());

    harness.get_by_label("Apply Launch Check").click();
    harness.step();
    wait_applied(&mut harness);
    match status_of(&harness, "TestLaunchCheck") {
        Some(RuleStatus::Failed(error)) => {
            assert!(error.contains("ZeroDivisionError"), "{error}");
            assert!(error.contains("test_launch_check.py"), "{error}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    assert!(harness.query_all_by_label("failed").count() >= 1);
    // The line under the kernel name names the rule and scrolls to its error.
    harness.get_by_label("1 rule(s) failed on this kernel: Launch Check.");
    harness.get_by_label("Show the error").click();
    step_until(&mut harness, "the scroll to the failed rule", |h| {
        h.state()
            .document::<ReportTab>(0)
            .unwrap()
            .panel()
            .last_scrolled()
            == Some("LaunchStats")
    });
    assert!(
        harness
            .query_all_by_label_contains("ZeroDivisionError")
            .count()
            >= 1
    );

    // Saving a fixed version re-applies it without a click.
    std::fs::write(&rule, launch_rule(FIXED_RULE)).unwrap();
    step_until(&mut harness, "the rule to be applied again", |h| {
        matches!(
            h.state()
                .document::<ReportTab>(0)
                .unwrap()
                .shown_page_rules()
                .and_then(|p| p.status("TestLaunchCheck")),
            Some(RuleStatus::Applied)
        )
    });
    harness.run();
    harness.get_by_label("Checked After Edit");
    assert!(
        harness
            .query_all_by_label_contains("ZeroDivisionError")
            .next()
            .is_none()
    );
}

const SLOW_RULE: (&str, &str, &str) = (
    "TestSlow",
    "Slow",
    r#"
    while True:
        pass
"#,
);

#[test]
fn cancel_stops_a_running_rule() {
    let folder = section_folder();
    std::fs::write(folder.path().join("test_slow.py"), launch_rule(SLOW_RULE)).unwrap();
    let mut harness = app_on_folder(folder.path());
    // Start the engine first, so that the slow rule is running (not waiting) when cancelled.
    harness.get_by_label("Apply Launch Configuration").click();
    harness.step();
    wait_applied(&mut harness);
    assert_status(&harness, "SightlineLaunchConfig", RuleStatus::Applied);

    harness.get_by_label("Apply Slow").click();
    step_until(&mut harness, "the rule to start", |h| {
        h.query_by_label("Applying rules…").is_some()
    });
    std::thread::sleep(Duration::from_millis(300));
    harness.get_by_label("Cancel").click();
    wait_applied(&mut harness);
    match status_of(&harness, "TestSlow") {
        Some(RuleStatus::Failed(error)) => assert!(error.contains("cancelled"), "{error}"),
        other => panic!("expected a cancelled rule, got {other:?}"),
    }
    assert!(
        harness
            .query_all_by_label("Applying rules was cancelled")
            .count()
            >= 1
    );

    // The engine still works afterwards.
    harness.get_by_label("Apply Occupancy").click();
    harness.step();
    wait_applied(&mut harness);
    assert_status(&harness, "SightlineOccupancy", RuleStatus::Applied);
}

#[test]
fn bundled_rules_run_from_memory_without_a_folder() {
    // No folder on the search path (deployment disabled): the bundled rules are listed and run.
    let report = Arc::new(Report::open(sample()).expect("open the sample"));
    let mut options = RunOptions::new(Vec::new());
    options.bundled_from_memory = true;
    let engine = RuleEngine::start().expect("engine");
    let output = engine.run(report, options).expect("run");
    assert!(output.load_errors.is_empty(), "{:?}", output.load_errors);
    assert_eq!(
        output.rules_loaded,
        sightline::rules::scan::scan_bundled().rules.len()
    );
    for kernel in &output.kernels {
        assert!(kernel.errors.is_empty(), "{:?}", kernel.errors);
        assert!(
            kernel
                .results
                .iter()
                .any(|r| r.identifier == "SightlineBottleneck" && !r.messages.is_empty())
        );
    }
}

const CHART_RULE: (&str, &str, &str) = (
    "TestLaunchChart",
    "Launch Chart",
    r#"
    ctx = NvRules.get_context(handle)
    fe = ctx.frontend()
    msg = fe.message(NvRules.MsgType.OK, "Launch shape as a chart and a table.", "Launch Shape")
    fe.generate_table(msg, ["Quantity", "Value"], [["Block size", 256.0], ["Waves", 3.25]],
                      {"title": "Launch Figures", "sort_by": {"column": "Value"},
                       "per_column_configs": {"Quantity": {"tooltip": "What is counted",
                                                           "relative_width": 0.3}}})
    fe.load_chart_from_file("test_launch.chart")
"#,
);

const CHART: &str = r#"BarChart {
  Label: "Launch Shape Chart"
  ValueAxis {
    Label: "Count"
  }
  Metrics {
    Label: "Registers Per Thread"
    Name: "launch__registers_per_thread"
  }
}
"#;

#[test]
fn applied_rules_show_their_tables_and_charts() {
    let folder = section_folder();
    std::fs::write(
        folder.path().join("test_launch_chart.py"),
        launch_rule(CHART_RULE),
    )
    .unwrap();
    std::fs::write(folder.path().join("test_launch.chart"), CHART).unwrap();
    let mut harness = app_on_folder(folder.path());
    harness.get_by_label("Apply Launch Chart").click();
    harness.step();
    wait_applied(&mut harness);
    assert_status(&harness, "TestLaunchChart", RuleStatus::Applied);
    harness.get_by_label("Launch Shape");
    harness.get_by_label("Launch Figures");
    harness.get_by_label("Quantity");
    harness.get_by_label("3.25");
    // Rows in the order the rule asked for (ascending by value), not the order given.
    let waves = harness.get_by_label("Waves").rect();
    let block = harness.get_by_label("Block size").rect();
    assert!(waves.top() < block.top(), "{waves:?} {block:?}");
    harness.get_by_label("Launch Shape Chart");
}

#[test]
fn a_rule_file_that_does_not_load_is_reported_in_metric_selection() {
    let folder = section_folder();
    std::fs::write(
        folder.path().join("broken_rule.py"),
        "import NvRules\n\ndef get_identifier():\n    return \"TestBroken\"\n\ndef apply(handle)\n    pass\n",
    )
    .unwrap();
    let mut harness = app_on_folder(folder.path());
    harness.get_by_label("Apply Rules").click();
    harness.step();
    wait_applied(&mut harness);
    let errors = ncu_state(&harness).rule_load_errors.clone();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.contains("broken_rule.py"), "{errors:?}");
    let status = harness.state().status().expect("a status message");
    assert!(
        status.1 && status.0.contains("did not load"),
        "{}",
        status.0
    );
    // The other rules still ran.
    assert_status(&harness, "SightlineOccupancy", RuleStatus::Applied);
    harness.get_by_label("Metric Selection…").click();
    harness.run();
    harness.get_by_label("load error");
    harness.get_by_label("rule error:");
}
