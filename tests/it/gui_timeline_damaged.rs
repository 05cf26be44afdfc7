//! The summary panel on a damaged export: a report over a table with a damaged page shows,
//! above its table, the warning naming the table and the rows lost; a report whose table does
//! not read at all shows the error naming the table, and the other reports their tables.

use egui_kittest::kittest::Queryable;

use crate::common::app::opened_timeline;
use crate::timeline_damaged_stats::{damage_leaf, damage_root, synth};

const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";

#[test]
fn the_summary_panel_shows_what_a_damaged_table_lost() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let (copy, lost) = damage_leaf(&path, KERNEL, 3, 0x00);
    let mut h = opened_timeline(vec![copy]);
    h.get_by_label("cuda_gpu_kern_sum").click();
    h.run();
    let warning = format!(
        "table {KERNEL}: damaged pages: rowids {}–{} could not be read ({} rows lost); the \
         report covers the rows before and after them",
        lost[0],
        lost[lost.len() - 1],
        lost.len()
    );
    h.get_by_label(&warning);
    // The runtime report read no damage: no warning above it.
    h.get_by_label("cuda_api_sum").click();
    h.run();
    assert!(h.query_by_label_contains("damaged pages").is_none());
}

#[test]
fn the_summary_panel_names_a_table_that_does_not_read() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = synth(dir.path());
    let mut h = opened_timeline(vec![damage_root(&path, KERNEL)]);
    h.get_by_label("cuda_gpu_kern_sum").click();
    h.run();
    let error = format!(
        "table {KERNEL}: damaged pages: the table could not be read, so report \
         cuda_gpu_kern_sum could not be computed"
    );
    assert!(h.query_by_label_contains(&error).is_some(), "{error}");
    h.get_by_label("cuda_api_sum").click();
    h.run();
    assert!(h.query_by_label_contains("damaged pages").is_none());
    assert!(h.query_by_label("cudaLaunchKernel").is_some());
}
