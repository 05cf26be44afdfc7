//! Nsight Compute reports in the app: the report tab (kernel list, Details page drawn from section
//! files, Session, Source, Summary and Raw pages, baselines), its loader, the Metric Selection window, the rule runner and the
//! widgets of the Details page (charts, memory chart and tables, NUMA/NVLink tables, NVLink
//! topology, PM sampling timeline).

pub mod baselines;
pub mod details;
pub mod document;
pub mod kernel_list;
pub mod loader;
pub mod memory_chart;
pub mod memory_tables;
pub mod metric_selection;
pub mod nvlink_topology;
pub mod pm_sampling_chart;
pub mod raw_page;
pub mod report_tab;
pub mod rule_runner;
pub mod rule_state;
pub mod section_state;
pub mod session_page;
pub mod source_page;
pub mod state;
pub mod summary_page;
pub mod system_tables;
pub mod timeline_links;
pub mod view_ctx;
