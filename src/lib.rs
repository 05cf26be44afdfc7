//! Sightline: a fast, scriptable viewer for GPU profiler reports.
//!
//! The library holds the model layers: [`ncu`] reads and writes Nsight Compute reports,
//! [`pyjson`] prints JSON exactly as Python's `json` module does (so Sightline's headless
//! output can be compared byte for byte with NVIDIA's reader); on top of them the desktop app
//! ([`app`]) and the headless commands of the binary ([`cli`], one module per command).

pub mod app;
pub mod cli;
pub mod codexl;
pub mod desktop;
pub mod gainsight;
pub mod ncu;
pub mod proto;
pub mod pyjson;
pub mod rules;
pub mod section;
pub mod timeline;
