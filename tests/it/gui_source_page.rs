//! The Source page in the whole app (egui_kittest): views switch, two views side by side with
//! correlated highlighting, the heatmap column and the hot spot buttons, find, a Details source
//! metric table linking into the page, the plain message of a binary without line info, a file
//! not in the report resolved from disk, and nvdisasm's text on a corpus report when nvdisasm is
//! installed. Reports are written by the synthetic cubin writer (`source_synthetic`'s spec):
//! `inst_executed` is 100 + the instruction's index, so the hot spots are known.

use std::path::{Path, PathBuf};
use std::time::Duration;

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use sightline::app::document::Document;
use sightline::app::ncu::report_tab::{Page, ReportTab};
use sightline::app::ncu::source_page::data::{NO_LINE_INFO, View};
use sightline::app::{Settings, SightlineApp, StartOptions};
use sightline::ncu::source::nvdisasm;
use sightline::section::deploy_bundled_sections;
use sightline_test_support::ncu::synth_source::write_source_report;

use crate::common;
use crate::source_synthetic::{LOAD, SOURCE, spec};

/// A report of the synthetic kernel (`lines`: with line info; `files`: imported sources).
fn report(dir: &Path, lines: bool, files: &[(&str, &str)]) -> PathBuf {
    let path = dir.join("kernel.ncu-rep");
    let file = std::fs::File::create(&path).unwrap();
    let sm = if lines { (8, 6) } else { (12, 0) };
    let abi = if lines { 7 } else { 8 };
    write_source_report(
        std::io::BufWriter::new(file),
        &spec(false, sm, abi, lines),
        &LOAD,
        files,
        &[0],
    )
    .unwrap();
    path
}

/// The app on `path` with the bundled sections in a temporary folder, the report loaded and
/// nvdisasm pointed at nothing (the page is the same with or without it installed, and no
/// cache is written).
fn open(dir: &Path, path: PathBuf) -> Harness<'static, SightlineApp> {
    let sections = dir.join("sections");
    std::fs::create_dir_all(&sections).unwrap();
    deploy_bundled_sections(&sections).unwrap();
    let app = SightlineApp::new(
        Settings {
            section_folders: vec![sections],
            // The bundled SourceCounters section (its hot spot tables), not the report's own.
            prefer_embedded: false,
            ..Settings::default()
        },
        StartOptions {
            files: vec![path],
            ..Default::default()
        },
    );
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1500.0, 1000.0))
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut SightlineApp| app.frame_ui(ui), app);
    common::app::step_until(&mut harness, "the report", Duration::from_secs(20), |h| {
        h.state()
            .document::<ReportTab>(0)
            .is_some_and(|t| !t.loading() && t.details().is_some())
    });
    let tab = tab_mut(&mut harness);
    tab.source_mut().nvdisasm.explicit = Some(dir.join("no-nvdisasm-here"));
    tab.source_mut().nvdisasm.cache_dir = None;
    harness
}

fn tab<'a>(h: &'a Harness<'static, SightlineApp>) -> &'a ReportTab {
    h.state().document::<ReportTab>(0).unwrap()
}

fn tab_mut<'a>(h: &'a mut Harness<'static, SightlineApp>) -> &'a mut ReportTab {
    h.state_mut().document_mut::<ReportTab>(0).unwrap()
}

/// Shows the Source page and waits for its build.
fn show_source_page(h: &mut Harness<'static, SightlineApp>) {
    tab_mut(h).set_page(Page::Source);
    wait_built(h);
}

fn wait_built(h: &mut Harness<'static, SightlineApp>) {
    common::app::step_until(h, "the Source page", Duration::from_secs(20), |h| {
        tab(h).source().page().is_some() && !tab(h).source().is_building()
    });
}

fn sass(offset: u64) -> String {
    format!("SASS {:#x}", LOAD[0] + offset)
}

fn click(h: &mut Harness<'static, SightlineApp>, label: &str) {
    h.get_by_label(label).click();
    h.run();
}

#[test]
fn gui_source_views_switch() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[("/src/kernel.cu", SOURCE)]);
    let mut h = open(dir.path(), path);
    show_source_page(&mut h);
    assert_eq!(tab(&h).source().view(0), Some(View::Source));
    // The imported file: every line, also those without code.
    h.get_by_label("Source kernel.cu:1");
    h.get_by_label("Source kernel.cu:4");
    assert!(h.query_by_label(&sass(0x10)).is_none());

    click(&mut h, "SASS");
    assert_eq!(tab(&h).source().view(0), Some(View::Sass));
    h.get_by_label(&sass(0x10));
    // The callee's instructions are listed under the kernel.
    h.get_by_label(&format!("SASS {:#x}", LOAD[1] + 0x20));
    assert!(h.query_by_label("Source kernel.cu:4").is_none());
    // Without nvdisasm: one line saying how to get the text.
    h.get_by_label(nvdisasm::MISSING_HINT);

    click(&mut h, "PTX");
    assert_eq!(tab(&h).source().view(0), Some(View::Ptx));
    h.get_by_label("PTX 3");
    assert!(h.query_by_label(&sass(0x10)).is_none());
}

#[test]
fn gui_source_side_by_side_correlation() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[("/src/kernel.cu", SOURCE)]);
    let mut h = open(dir.path(), path);
    show_source_page(&mut h);
    click(&mut h, "Side by side");
    assert!(tab(&h).source().side_by_side);
    assert_eq!(tab(&h).source().view(1), Some(View::Sass));

    // Line 4 has the instructions at 0x10 and 0x20 (0x10 has two rows: lines 4 and 5).
    click(&mut h, "Source kernel.cu:4");
    assert_eq!(
        tab(&h).source().selected_name(0).as_deref(),
        Some("Source kernel.cu:4")
    );
    assert_eq!(
        tab(&h).source().highlighted_names(1),
        [sass(0x10), sass(0x20)]
    );
    // And back: the instruction at 0x30 is line 5's only.
    click(&mut h, &sass(0x30));
    assert_eq!(
        tab(&h).source().highlighted_names(0),
        ["Source kernel.cu:5"]
    );
    // 0x10 belongs to both lines.
    click(&mut h, &sass(0x10));
    assert_eq!(
        tab(&h).source().highlighted_names(0),
        ["Source kernel.cu:4", "Source kernel.cu:5"]
    );

    // SASS beside PTX: the instruction at 0x40 is PTX line 3.
    tab_mut(&mut h).source_mut().set_view(0, View::Ptx);
    h.run();
    click(&mut h, &sass(0x40));
    assert_eq!(tab(&h).source().highlighted_names(0), ["PTX 3"]);
}

#[test]
fn gui_source_heatmap_and_hot_spots() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[("/src/kernel.cu", SOURCE)]);
    let mut h = open(dir.path(), path);
    show_source_page(&mut h);
    assert_eq!(
        tab(&h).source().heat_column().as_deref(),
        Some("Instructions Executed")
    );
    // Line sums of inst_executed: 3 → 100, 4 → 203, 5 → 306, 6 → 209.
    let selected = |h: &Harness<'static, SightlineApp>| tab(h).source().selected_name(0);
    click(&mut h, "Next hot spot");
    assert_eq!(selected(&h).as_deref(), Some("Source kernel.cu:5"));
    click(&mut h, "Next hot spot");
    assert_eq!(selected(&h).as_deref(), Some("Source kernel.cu:6"));
    click(&mut h, "Next hot spot");
    assert_eq!(selected(&h).as_deref(), Some("Source kernel.cu:4"));
    click(&mut h, "Previous hot spot");
    assert_eq!(selected(&h).as_deref(), Some("Source kernel.cu:6"));
    click(&mut h, "Previous hot spot");
    assert_eq!(selected(&h).as_deref(), Some("Source kernel.cu:5"));

    // In the SASS view the kernel's last instruction (105) is the hottest, then 104.
    click(&mut h, "SASS");
    click(&mut h, "Next hot spot");
    assert_eq!(selected(&h), Some(sass(0x50)));
    click(&mut h, "Next hot spot");
    assert_eq!(selected(&h), Some(sass(0x40)));

    // The heatmap strip: a click at its top selects the first row.
    let strip = h.get_by_label("Heatmap").rect();
    common::app::click_at(&mut h, egui::pos2(strip.center().x, strip.top() + 2.0));
    assert_eq!(selected(&h), Some(sass(0)));

    // Absolute values instead of % of the launch.
    assert!(tab(&h).source().percent);
    click(&mut h, "Absolute");
    assert!(!tab(&h).source().percent);
}

#[test]
fn gui_source_find() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[("/src/kernel.cu", SOURCE)]);
    let mut h = open(dir.path(), path);
    show_source_page(&mut h);
    tab_mut(&mut h).source_mut().find = "HELPER(".into();
    click(&mut h, "Find next");
    assert_eq!(
        tab(&h).source().selected_name(0).as_deref(),
        Some("Source kernel.cu:5")
    );
    assert_eq!(tab(&h).source().match_count(), (1, Some(0)));
    h.get_by_label("1 of 1");

    tab_mut(&mut h).source_mut().find = "a".into();
    click(&mut h, "Find next");
    // "float *a", "a[0] = 1.0f;", "helper(a);": the next after line 5 wraps to line 2.
    assert_eq!(tab(&h).source().match_count().0, 3);
    assert_eq!(
        tab(&h).source().selected_name(0).as_deref(),
        Some("Source kernel.cu:2")
    );
    click(&mut h, "Find next");
    assert_eq!(
        tab(&h).source().selected_name(0).as_deref(),
        Some("Source kernel.cu:4")
    );
    h.get_by_label("2 of 3");

    tab_mut(&mut h).source_mut().find = "no such text".into();
    click(&mut h, "Find next");
    assert_eq!(tab(&h).source().match_count(), (0, None));
    h.get_by_label("0 found");
}

#[test]
fn gui_source_details_hot_spot_table_links_into_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[("/src/kernel.cu", SOURCE)]);
    let mut h = open(dir.path(), path);
    assert_eq!(tab(&h).page(), Page::Details);
    // "Most Executed Instructions": inst_executed per PC, highest first (at the page's end).
    show_source_counters(&mut h);
    let hottest = format!("{:#x}", LOAD[0] + 0x50);
    h.get_by_label(&format!("{:#x}", LOAD[0] + 0x40));
    // Each row's source line beside its address (0x40 and 0x50 are both line 6).
    assert_eq!(h.get_all_by_label("kernel.cu:6").count(), 2);
    h.get_by_label("kernel.cu:5");
    // One frame for the click: the page's build then runs (`wait_built`), which may take more
    // frames than `Harness::run` allows on a loaded machine.
    h.get_by_label(&hottest).click();
    h.step();
    assert_eq!(tab(&h).page(), Page::Source);
    wait_built(&mut h);
    h.run();
    let source = &tab(&h).source();
    assert!(source.side_by_side);
    assert_eq!(source.view(0), Some(View::Source));
    assert_eq!(source.selected_name(1), Some(sass(0x50)));
    assert_eq!(
        source.selected_name(0).as_deref(),
        Some("Source kernel.cu:6")
    );
}

/// Opens the Details page's SourceCounters section (at the page's end) alone.
fn show_source_counters(h: &mut Harness<'static, SightlineApp>) {
    tab_mut(h).panel_mut().set_all_open(false);
    h.run();
    tab_mut(h).panel_mut().scroll_to_section("SourceCounters");
    common::app::step_until(h, "the scroll", Duration::from_secs(10), |h| {
        tab(h).panel().pending_scroll().is_none()
    });
    // Until the scroll's animation has ended (clicks land where the rows are drawn).
    h.run();
}

#[test]
fn gui_source_details_hot_spot_line_opens_the_source_view_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[("/src/kernel.cu", SOURCE)]);
    let mut h = open(dir.path(), path);
    show_source_counters(&mut h);
    // The hottest instructions: 0x50 and 0x40 (line 6), 0x30 (line 5), 0x20 and 0x10 (line 4).
    h.get_all_by_label("kernel.cu:5").next().unwrap().click();
    h.step();
    assert_eq!(tab(&h).page(), Page::Source);
    wait_built(&mut h);
    h.run();
    let source = &tab(&h).source();
    assert_eq!(source.view(0), Some(View::Source));
    assert_eq!(
        source.selected_name(0).as_deref(),
        Some("Source kernel.cu:5")
    );
}

#[test]
fn gui_source_details_hot_spots_without_line_info_show_addresses_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), false, &[]);
    let mut h = open(dir.path(), path);
    show_source_counters(&mut h);
    h.get_by_label(&format!("{:#x}", LOAD[0] + 0x50));
    assert!(h.query_by_label_contains("kernel.cu:").is_none());
}

/// A derived metric of the bundled "Shared Memory Bank Conflicts" table on a kernel that
/// stores only its operands: the table ranks the instructions with the values evaluated per
/// PC (the fixture's PCs: 0x100 + 16 × index; the excess is at the 4th and 41st).
#[test]
fn gui_source_details_derived_metric_table_lists_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let path = common::fixtures().join("derived_2023_3.ncu-rep");
    let mut h = open(dir.path(), path);
    tab_mut(&mut h).select(1);
    common::app::step_until(&mut h, "kernel 1", Duration::from_secs(20), |h| {
        tab(h).details().is_some_and(|d| d.index == 1)
    });
    show_source_counters(&mut h);
    h.get_by_label("Excess Wavefronts by instruction");
    // Only this table has the 41st instruction; the 4th is also among the most executed.
    h.get_by_label("0x380");
    assert!(h.get_all_by_label("0x130").count() >= 1);
    h.get_by_label("786,432");
    h.get_by_label("393,216");
}

/// A temporary folder for the app's settings and the path of the corpus report `name`
/// (`None`, with the skip said, when `../shared` is absent).
fn corpus_report(name: &str) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let corpus = common::corpus_ncu()?;
    Some((
        tempfile::tempdir().unwrap(),
        corpus.join("reports").join(name),
    ))
}

/// A corpus kernel with line info: the top instruction's `file:line` (the file's name) is a
/// link that opens the Source view at that line.
#[test]
fn gui_source_corpus_hot_spot_line_link() {
    use sightline::app::ncu::source_page::data::short_name;
    use sightline::ncu::Report;
    use sightline::ncu::source::{PcMetrics, SourceModule, top_pcs};
    let Some((dir, path)) = corpus_report("ncu2022.3_rtx3070_manual_nvtx.ncu-rep") else {
        return;
    };
    let report = Report::open(&path).unwrap();
    let mut h = open(dir.path(), path);
    let action = report.action(tab(&h).details().unwrap().index).unwrap();
    let top = top_pcs(&PcMetrics::of(&action), &action, "inst_executed", 5, false);
    let module = SourceModule::for_action(&report, &action).unwrap();
    let location = module.source_info(top[0].0).unwrap();
    let text = format!("{}:{}", short_name(&location.file), location.line);
    show_source_counters(&mut h);
    // The rules applied on load may still add their messages above the section: wait for the
    // tables, then bring them into view again.
    common::app::step_until(&mut h, "the hot spot line", Duration::from_secs(20), |h| {
        h.query_all_by_label(&text).next().is_some()
    });
    show_source_counters(&mut h);
    // The address in each table listing the instruction, its line beside it.
    assert!(h.get_all_by_label(&format!("{:#x}", top[0].0)).count() >= 1);
    h.get_all_by_label(&text).next().unwrap().click();
    h.step();
    assert_eq!(tab(&h).page(), Page::Source);
    wait_built(&mut h);
    h.run();
    let source = &tab(&h).source();
    assert_eq!(source.view(0), Some(View::Source));
    assert_eq!(source.selected_name(0), Some(format!("Source {text}")));
}

#[test]
fn gui_source_without_line_info_shows_the_plain_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), false, &[]);
    let mut h = open(dir.path(), path);
    show_source_page(&mut h);
    h.run();
    h.get_by_label(NO_LINE_INFO);
    assert_eq!(tab(&h).source().view(0), Some(View::Sass));
    h.get_by_label(&sass(0x10));
    // The Source view says the same instead of rows ("Source" is also the page's tab).
    tab_mut(&mut h).source_mut().set_view(0, View::Source);
    h.run();
    assert_eq!(tab(&h).source().view(0), Some(View::Source));
    assert_eq!(h.get_all_by_label(NO_LINE_INFO).count(), 2);
    assert!(h.query_by_label(&sass(0x10)).is_none());
}

#[test]
fn gui_source_file_not_in_report_and_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[]);
    let mut h = open(dir.path(), path);
    show_source_page(&mut h);
    h.get_by_label("/src/kernel.cu: file not in report");
    h.get_by_label("Resolve…");
    // Line numbers of the lines with code only.
    h.get_by_label("Source kernel.cu:4");
    assert!(h.query_by_label("Source kernel.cu:1").is_none());

    let local = dir.path().join("kernel.cu");
    std::fs::write(&local, SOURCE).unwrap();
    tab_mut(&mut h).source_mut().resolve_file(0, local);
    h.run();
    assert!(
        h.query_by_label("/src/kernel.cu: file not in report")
            .is_none()
    );
    h.get_by_label("Source kernel.cu:1");
    click(&mut h, "Source kernel.cu:4");
    assert_eq!(
        tab(&h).source().selected_name(0).as_deref(),
        Some("Source kernel.cu:4")
    );
}

/// A corpus kernel with line info: the page's columns and files, hot spots, and nvdisasm's text
/// when it is installed (skipped without it).
#[test]
fn gui_source_corpus_manual_nvtx() {
    let Some((dir, path)) = corpus_report("ncu2022.3_rtx3070_manual_nvtx.ncu-rep") else {
        return;
    };
    let mut h = open(dir.path(), path);
    let found = nvdisasm::find(None);
    {
        let source = tab_mut(&mut h).source_mut();
        source.nvdisasm.explicit = found.clone();
        source.nvdisasm.cache_dir = Some(dir.path().join("cache"));
    }
    show_source_page(&mut h);
    let page = tab(&h).source().page().unwrap();
    assert!(page.has_line_info);
    assert!(!page.files.is_empty());
    assert!(page.columns.iter().any(|c| c.numeric && c.total > 0.0));
    click(&mut h, "Next hot spot");
    assert!(tab(&h).source().selected_name(0).is_some());
    match found {
        Some(_) => {
            let page = tab(&h).source().page().unwrap();
            assert!(page.has_sass_text, "{:?}", page.messages);
            assert!(page.sass.iter().any(|r| r.text.contains("EXIT")));
        }
        None => eprintln!("nvdisasm not installed: SASS text not checked"),
    }
}

/// monte_carlo_pi kernel 1 (`computeValue<float>`) calls device functions: the selector
/// lists the kernel first, then each callee by address, under their demangled names as
/// Nsight Compute names its blocks (`ncu --page source` of the same report).
#[test]
fn gui_source_callees_by_demangled_name() {
    let Some((dir, path)) = corpus_report("ncu2020.2.1_rtx3080_monte_carlo_pi.ncu-rep") else {
        return;
    };
    let mut h = open(dir.path(), path);
    tab_mut(&mut h).select(1);
    h.run();
    show_source_page(&mut h);
    let page = tab(&h).source().page().unwrap();
    let names: Vec<&str> = page.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "void computeValue<float>(unsigned int *, curandStateXORWOW *, unsigned int)",
            "cooperative_groups::__v1::thread_group_base<(unsigned int)4>::thread_group_base() \
             [subobject]",
            "reduce_sum(unsigned int, cooperative_groups::__v1::thread_block)",
            "getPoint(float &, float &, curandStateXORWOW &)",
            "cooperative_groups::__v1::thread_group::thread_group(unsigned int) [subobject]",
            "__barrier_sync(unsigned int)",
        ]
    );
    assert!(page.functions[0].kernel);
    assert_eq!(
        page.functions[3].mangled,
        "_Z8getPointRfS_R17curandStateXORWOW"
    );
    // The selector shows the callee's demangled name (cut to its width).
    h.get_by_label("getPoint(float &, float &, …");
    h.get_by_label("void computeValue<float>(un…");
}

/// Rule source markers: stored ones at a PC and at a file's line land on the rows that hold
/// them (a source line through its instructions too); a rule applied in this session replaces
/// its stored markers with its own.
#[test]
fn gui_source_rule_markers_on_rows() {
    use sightline::app::ncu::rule_state::PageRules;
    use sightline::app::ncu::source_page::build::build_page;
    use sightline::app::ncu::source_page::markers::Markers;
    use sightline::ncu::source::nvdisasm::NvdisasmOptions;
    use sightline::proto::nv::rule_system::{RuleResult, SourceMarker, source_marker};
    use sightline::rules::model::{self as rules, MarkerLocation};

    let dir = tempfile::tempdir().unwrap();
    let path = report(dir.path(), true, &[("/src/kernel.cu", SOURCE)]);
    let report = sightline::ncu::Report::open(&path).unwrap();
    let options = NvdisasmOptions {
        explicit: Some(dir.path().join("no-nvdisasm-here")),
        ..NvdisasmOptions::default()
    };
    let page = build_page(&report, 0, &options, &|_, _| {}).unwrap();
    let stored = RuleResult {
        identifier: "StoredRule".into(),
        source_markers: vec![
            SourceMarker {
                kind: Some(0),
                tooltip: Some("uncoalesced access".into()),
                r#type: Some(2),
                file_name: None,
                source_location: Some(source_marker::SourceLocation::Address(LOAD[0] + 0x30)),
            },
            SourceMarker {
                kind: Some(1),
                tooltip: Some("divergent branch".into()),
                r#type: Some(1),
                file_name: Some("/src/kernel.cu".into()),
                source_location: Some(source_marker::SourceLocation::LineNumber(6)),
            },
        ],
        ..Default::default()
    };
    let markers = Markers::build(std::slice::from_ref(&stored), None, &page);
    let file = &page.files[0];
    let line = |n: u32| {
        file.rows
            .iter()
            .find(|r| r.location == n.to_string())
            .unwrap()
    };
    let messages = |row, file: Option<&str>| -> Vec<String> {
        markers
            .of_row(row, file)
            .iter()
            .map(|m| format!("{} {}", m.message, m.warning))
            .collect()
    };
    let name = Some(file.name.as_str());
    assert_eq!(messages(&page.sass[3], None), ["uncoalesced access true"]);
    assert!(messages(&page.sass[2], None).is_empty());
    assert_eq!(messages(line(5), name), ["uncoalesced access true"]);
    assert_eq!(messages(line(6), name), ["divergent branch false"]);
    assert!(messages(line(3), name).is_empty());

    // Applied in this session: its markers replace the stored ones.
    let applied = PageRules {
        rows: Vec::new(),
        applied: vec![rules::RuleResult {
            identifier: "StoredRule".into(),
            name: "StoredRule".into(),
            section_identifier: None,
            messages: Vec::new(),
            source_markers: vec![rules::SourceMarker {
                message: "applied marker".into(),
                location: MarkerLocation::Sass(LOAD[0] + 0x10),
                msg_type: rules::MsgType::Warning,
            }],
            charts: Vec::new(),
        }],
        charts: Default::default(),
        replaced: ["StoredRule".to_owned()].into_iter().collect(),
        running: false,
        request_error: None,
        version: 1,
    };
    let markers = Markers::build(std::slice::from_ref(&stored), Some(&applied), &page);
    assert!(markers.of_row(&page.sass[3], None).is_empty());
    let on_0x10: Vec<&str> = markers
        .of_row(&page.sass[1], None)
        .iter()
        .map(|m| m.message.as_str())
        .collect();
    assert_eq!(on_0x10, ["applied marker"]);
}
