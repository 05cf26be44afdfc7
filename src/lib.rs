//! Sightline: a fast, scriptable viewer for GPU profiler reports.
//!
//! The library holds the model layers (no GUI code): [`ncu`] reads and writes Nsight Compute
//! reports, [`pyjson`] prints JSON exactly as Python's `json` module does (so Sightline's
//! headless output can be compared byte for byte with NVIDIA's reader).

pub mod app;
pub mod codexl;
pub mod desktop;
pub mod gainsight;
pub mod ncu;
pub mod proto;
pub mod pyjson;
pub mod rules;
pub mod section;
pub mod timeline;
