//! Sightline's own rules (`rules/*.py`), embedded in the binary by the model crate's build
//! script and deployed beside the bundled sections (see
//! `sightline_model::section::registry::deploy_bundled_sections`).

pub use sightline_model::section::registry::BUNDLED_RULES;
