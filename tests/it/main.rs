//! Sightline's integration tests, as one test binary (`it`).
//!
//! Each module was its own binary under `tests/` before; each linked the RustPython VM, egui and
//! SQLite, so a clean `cargo test` spent most of its time linking. One binary links them once.
//! Run one file's tests by its module path: `cargo test --test it details::` (or any part of a
//! test name). The tests that must not share a process (a global allocator, a changed
//! environment, a thread left spinning) stay separate binaries: see `[[test]]` in `Cargo.toml`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

mod common;

mod baselines;
mod baselines_session;
mod cli;
mod cli_in_process;
mod codexl_atp;
mod codexl_cli;
mod codexl_counters;
mod codexl_occupancy;
mod compare;
mod corpus_golden;
mod derived_metrics;
mod desktop;
mod details;
mod dump;
mod events_view;
mod fixtures;
mod fixtures_nsys_ml;
mod format_values;
mod gainsight_cli;
mod gainsight_fixtures;
mod gainsight_formulas;
mod gainsight_parse;
mod gui_app;
mod gui_baselines_body;
mod gui_codexl;
mod gui_details_panel;
mod gui_events_view;
mod gui_gainsight;
mod gui_ncu_link;
mod gui_nvtx_payload;
mod gui_rare_tables;
mod gui_read_warnings;
mod gui_rules;
mod gui_source_page;
mod gui_stats_sort;
mod gui_summary_raw;
mod gui_timeline;
mod gui_timeline_cpu;
mod gui_timeline_damaged;
mod gui_timeline_expert;
mod gui_timeline_export;
mod gui_timeline_merge;
mod gui_timeline_metrics;
mod gui_timeline_mpi;
mod gui_timeline_sources;
mod line_endings;
mod memory_widgets;
mod ncu_import_csv;
mod ncu_link;
mod nsys_rep_export;
mod nvtx_payload;
mod nvtx_payload_nccl;
mod nvtxt_cli;
mod nvtxt_errors;
mod nvtxt_grammar;
mod nvtxt_oracle;
mod python_arrow;
mod python_module;
mod python_oracle;
mod recipes;
mod recipes_analysis;
mod recipes_nvtx;
mod report_edge_cases;
mod rules_api_surface;
mod rules_bundled;
mod rules_cli;
mod rules_fixtures;
mod rules_source;
mod rules_stdlib;
mod rules_stock;
mod rules_tables;
mod section_parse;
mod section_watch;
mod source_hot_spots;
mod source_synthetic;
mod system_widgets;
mod timeline_analyze;
mod timeline_bad_input;
mod timeline_cancel;
mod timeline_cli;
mod timeline_corpus;
mod timeline_damaged;
mod timeline_damaged_salvage_stats;
mod timeline_damaged_stats;
mod timeline_export;
mod timeline_families;
mod timeline_gpu_metrics;
mod timeline_imports;
mod timeline_merge;
mod timeline_model;
mod timeline_mpi;
mod timeline_nvtx_streamed;
mod timeline_rare_tables;
mod timeline_stats;
mod timeline_summary_info;
mod units_golden;
mod wine;
