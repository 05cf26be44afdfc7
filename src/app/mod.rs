//! The desktop application (eframe/egui). The only module that uses egui: it renders the model
//! layers (`ncu`, `section`, `timeline`) and never parses files itself. Each tab is a
//! [`document::Document`]: a report tab or a timeline.

pub mod codexl;
pub mod details_panel;
pub mod document;
pub mod gainsight;
pub mod kernel_list;
pub mod loader;
pub mod memory_chart;
pub mod memory_tables;
pub mod metric_selection;
pub mod nvlink_topology;
pub mod pm_sampling_chart;
pub mod report_tab;
pub mod rule_runner;
pub mod rule_state;
pub mod section_state;
pub mod session_page;
pub mod sightline_app;
pub mod system_tables;
pub mod timeline;
pub mod view_ctx;

pub use sightline_app::{Settings, SightlineApp, StartOptions, run};
pub use view_ctx::ViewCtx;
