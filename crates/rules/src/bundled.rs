//! Sightline's own rules (`rules/*.py`), embedded in the binary by the model crate's build
//! script and deployed beside the bundled sections (see
//! `sightline_model::section::deploy_bundled_sections`).

pub use sightline_model::section::BUNDLED_RULES;
