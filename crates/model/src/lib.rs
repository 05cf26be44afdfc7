//! Sightline's model layer: the readers and the data the app and the commands show. No GUI
//! and no Python in its dependency tree (`cargo tree -p sightline-model` shows it).
//!
//! - [`ncu`] reads Nsight Compute reports (`.ncu-rep`, `.ncu-repz`) exactly as NVIDIA's own
//!   reader does; [`pyjson`] prints JSON as Python's `json` module does, so the headless output
//!   can be compared byte for byte with NVIDIA's; [`proto`] is the schema.
//! - `mapped` holds a file's bytes (memory-mapped, with its safety argument in one place).
//! - [`kind`] tells what kind of file a path is (by name, then content), for every caller.
//! - [`format`] writes metric values and durations for display, in one way everywhere.
//! - [`section`] parses section files and resolves a kernel's Details page (derived metrics,
//!   charts, the memory and system widgets).
//! - [`timeline`] is the timeline model and its loaders (Nsight Systems exports, NVTXT, CodeXL
//!   `.atp` traces) with the `nsys stats` reports.
//! - [`codexl`] reads CodeXL / RCP counter and occupancy tables; [`gainsight`] turns GPGPU-Sim
//!   logs into lifetimes, refresh and area projections.
//! - [`core`] holds what every reader shares: the one progress and cancel type
//!   ([`core::Progress`]) and the one line reader.
//! - [`problem`] is the one shape of what every reader reports it met (location, severity,
//!   message), shown in one problems list in the app.

// Numbers read from files are checked, not wrapped: a conversion that could lose bits says why
// it cannot (or why it means to), see `core::num`.
#![deny(clippy::cast_possible_truncation)]

pub mod codexl;
pub mod columnar;
pub mod core;
pub(crate) mod dirs;
pub mod format;
pub mod gainsight;
pub mod kind;
pub mod link;
pub(crate) mod mapped;
pub mod ncu;
pub mod problem;
pub mod proto;
pub mod pyjson;
pub mod section;
pub mod timeline;
