//! The instructions of the Details page's source metric tables (`ncu::source::hotspots`): a
//! metric's per-PC values from the same model code as the Source page's columns, stored,
//! derived from instanced operands (the fixtures `derived_2023_1` / `derived_2023_3`: kernel 0
//! stores the derived metrics, kernel 1 only their operands; a report written here whose
//! SourceCounters section lists a derived metric as a Source page column) or `group:` sums,
//! ranked.

use sightline::ncu::Report;
use sightline::ncu::source::{Cell, ColumnKind, PcMetrics, SourcePage, top_pcs};

use crate::common;

/// The fixtures' PCs: 47 instructions from 0x100.
fn pc(index: u64) -> u64 {
    0x100 + 16 * index
}

fn open(name: &str) -> Report {
    Report::open(common::fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn derived_source_metrics_rank_their_instructions() {
    for name in ["derived_2023_1.ncu-rep", "derived_2023_3.ncu-rep"] {
        let report = open(name);
        // Kernel 0 stores what Nsight Compute stored; kernel 1 only the operands: the
        // definitions of its embedded SourceCounters section are evaluated per PC, by the rule
        // of the report's version, and must rank the same.
        for kernel in [0, 1] {
            let action = report.action(kernel).unwrap();
            let metrics = PcMetrics::of(&action);
            let top = |metric: &str, rows: usize, ascending: bool| {
                top_pcs(&metrics, &action, metric, rows, ascending)
            };
            let context = format!("{name} kernel {kernel}");
            // (1048576 - 262144) at the 4th instruction, (524288 - 131072) at the 41st.
            assert_eq!(
                top("derived__memory_l1_wavefronts_shared_excessive", 5, false),
                [(pc(3), 786_432.0), (pc(40), 393_216.0)],
                "{context}"
            );
            // Integer division of the operands' elements (left operand on 2 PCs only).
            assert_eq!(
                top("derived__memory_l1_conflicts_shared_nway", 5, false),
                [(pc(3), 2.0), (pc(40), 1.0)],
                "{context}"
            );
            // 32 threads per instruction everywhere: ties by PC.
            let expected: Vec<(u64, f64)> = (0..5).map(|i| (pc(i), 32.0)).collect();
            assert_eq!(
                top("derived__avg_thread_executed", 5, false),
                expected,
                "{context}"
            );
            assert_eq!(
                top("derived__avg_thread_executed", 2, true),
                expected[..2],
                "{context}"
            );
            // A metric neither stored nor defined has no rows.
            assert!(
                top("derived__not_defined", 5, false).is_empty(),
                "{context}"
            );
        }
    }
}

/// The hot spots of stored and `group:` metrics carry the values of the Source page's columns
/// at the same PCs (a corpus kernel with sampled stalls and line info).
#[test]
fn hot_spot_values_equal_the_source_page_columns() {
    let Some(corpus) = common::corpus_ncu() else {
        return;
    };
    let report =
        Report::open(corpus.join("reports/ncu2020.2.1_rtx3080_monte_carlo_pi.ncu-rep")).unwrap();
    let action = report.action(1).unwrap();
    let page = SourcePage::build(&report, &action, None).unwrap();
    let metrics = PcMetrics::of(&action);
    let cell_at = |pc: u64, c: usize| {
        let row = page.sass().iter().find(|r| r.address == pc).unwrap();
        row.cells[c].clone()
    };
    let mut checked = 0;
    let mut sums = Vec::new();
    for (c, column) in page.columns().columns().iter().enumerate() {
        match &column.kind {
            ColumnKind::Metric(name) => {
                for (pc, value) in top_pcs(&metrics, &action, name, 10, false) {
                    assert_eq!(cell_at(pc, c), Cell::Number(value), "{name} at {pc:#x}");
                    checked += 1;
                }
            }
            ColumnKind::Sum(_) => sums.push(c),
            ColumnKind::MemoryLabel(_) => {}
        }
    }
    // Each stall group is one of the page's sum columns.
    for group in [
        "group:smsp__pcsamp_warp_stall_reasons",
        "group:smsp__pcsamp_warp_stall_reasons_not_issued",
    ] {
        let top = top_pcs(&metrics, &action, group, 10, false);
        assert!(!top.is_empty(), "{group}");
        assert!(
            sums.iter().any(|&c| top
                .iter()
                .all(|&(pc, value)| cell_at(pc, c) == Cell::Number(value))),
            "{group}: {top:?}"
        );
        checked += top.len();
    }
    assert!(checked >= 20, "only {checked} hot spots checked");
}

/// A SourceCounters section listing a derived metric the result does not store (only its
/// instanced operands): the Source page's column evaluates it per PC, and the metric's hot
/// spots carry the same values.
#[test]
fn derived_source_columns_equal_their_hot_spots() {
    use sightline::ncu::MetricValue;
    use sightline::ncu::source::SourceColumns;
    use sightline::proto::nv::profiler::{
        ProfilerSection, ProfilerSectionMetric, ProfilerSectionMetricDefinition,
        ProfilerSectionMetricDefinitions, ProfilerSectionMetrics,
    };
    use sightline_test_support::ncu::synth::{KernelSpec, instanced, write_kernels};

    let pcs: Vec<u64> = (0..8).map(|i| 0x7f00_0000_0000 + 16 * i).collect();
    let ids = Some(pcs.iter().map(|&pc| MetricValue::Uint64(pc)).collect());
    // 32 threads per instruction except at the 3rd (8) and the 6th (16).
    let executed: Vec<u64> = (0..8).map(|i| 10 + i).collect();
    let threads: Vec<u64> = executed
        .iter()
        .enumerate()
        .map(|(i, n)| n * [32, 32, 8, 32, 32, 16, 32, 32][i])
        .collect();
    let list = |values: &[u64]| values.iter().map(|&v| MetricValue::Uint64(v)).collect();
    let metric = |name: &str, label: &str| ProfilerSectionMetric {
        name: name.to_owned(),
        label: Some(label.to_owned()),
        ..Default::default()
    };
    let section = ProfilerSection {
        identifier: "SourceCounters".into(),
        display_name: "Source Counters".into(),
        source_metrics: Some(ProfilerSectionMetrics {
            metrics: vec![
                metric("inst_executed", "Instructions Executed"),
                metric("derived__avg_thread_executed", "Avg. Threads Executed"),
            ],
            order: None,
        }),
        metric_definitions: Some(ProfilerSectionMetricDefinitions {
            metric_definitions: vec![ProfilerSectionMetricDefinition {
                name: "derived__avg_thread_executed".into(),
                expression: "thread_inst_executed / inst_executed".into(),
                ..Default::default()
            }],
        }),
        ..Default::default()
    };
    let kernel = KernelSpec {
        function: "k".into(),
        demangled: "k".into(),
        mangled: "k".into(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        metrics: vec![
            (
                "inst_executed".to_owned(),
                instanced(MetricValue::Uint64(0), list(&executed), ids.clone()),
            ),
            (
                "thread_inst_executed".to_owned(),
                instanced(MetricValue::Uint64(0), list(&threads), ids),
            ),
        ],
        sections: vec![section],
        rule_results: Vec::new(),
        nvtx: None,
        stream: 7,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("derived.ncu-rep");
    write_kernels(&[kernel], 1, std::fs::File::create(&path).unwrap()).unwrap();
    let report = Report::open(&path).unwrap();
    let action = report.action(0).unwrap();
    assert!(action.metric("derived__avg_thread_executed").is_none());

    let columns = SourceColumns::of(&action);
    let labels: Vec<&str> = columns.columns().iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["Instructions Executed", "Avg. Threads Executed"]);
    let cells = columns.cells(&pcs);
    let column: Vec<Cell> = cells.iter().map(|row| row[1].clone()).collect();
    let expected: Vec<Cell> = [32.0, 32.0, 8.0, 32.0, 32.0, 16.0, 32.0, 32.0]
        .into_iter()
        .map(Cell::Number)
        .collect();
    assert_eq!(column, expected);

    // "Fewest Predicated-On Threads"-like ascending table: the same values, ranked.
    let top = top_pcs(
        &PcMetrics::of(&action),
        &action,
        "derived__avg_thread_executed",
        3,
        true,
    );
    assert_eq!(top, [(pcs[2], 8.0), (pcs[5], 16.0), (pcs[0], 32.0)]);
    for (pc, value) in top {
        let row = pcs.iter().position(|&p| p == pc).unwrap();
        assert_eq!(cells[row][1], Cell::Number(value));
    }
}
