//! The instructions of the Details page's source metric tables (`ncu::source::hotspots`): a
//! metric's per-PC values from the same model code as the Source page's columns, stored,
//! derived from instanced operands (the fixtures `derived_2023_1` / `derived_2023_3`: kernel 0
//! stores the derived metrics, kernel 1 only their operands) or `group:` sums, ranked.

use sightline::ncu::Report;
use sightline::ncu::source::hotspots::top_pcs;
use sightline::ncu::source::{Cell, ColumnKind, PcMetrics, SourcePage};

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
