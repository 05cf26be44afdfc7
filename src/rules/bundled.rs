//! Sightline's own rules (`rules/*.py`), embedded in the binary by `build.rs` and deployed
//! beside the bundled sections (see `section::registry::deploy_bundled_sections`).

include!(concat!(env!("OUT_DIR"), "/bundled_rules.rs"));
