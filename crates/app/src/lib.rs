//! The desktop application (eframe/egui). The only module that uses egui: it renders the model
//! layers (`ncu`, `section`, `timeline`) and never parses files itself. Each tab is a
//! [`document::Document`]: an Nsight Compute report ([`ncu`]), a timeline ([`timeline`]), CodeXL
//! counters or occupancy ([`codexl`]), or a Gainsight analysis ([`gainsight`]). [`widgets`]
//! holds what the documents share (the problems list); [`recipes`] is the Recipes panel a
//! timeline and a folder of rank exports show.

pub mod codexl;
pub mod desktop;
pub mod document;
pub mod file_types;
pub mod gainsight;
pub mod job;
pub mod lifecycle;
pub mod links;
pub mod ncu;
pub mod recipes;
pub mod runs;
pub mod sightline_app;
pub mod timeline;
pub mod widgets;

pub use ncu::view_ctx::ViewCtx;
pub use sightline_app::{RunError, Settings, SightlineApp, StartOptions, run};
