//! Sightline's feature unification: no code. Its `Cargo.toml` names the dependencies built both
//! for build scripts and proc macros and for the programs, with the union of their features, so
//! that cargo compiles each once (maintained by `cargo hakari`; see that file).
