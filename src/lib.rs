//! Sightline: a fast, scriptable viewer for GPU profiler reports.
//!
//! This package is the `sightline` binary and its headless commands ([`cli`], one module per
//! command, each callable in-process). The library re-exports the layers it is built on, so
//! that the commands, the tests and the benches name them in one way (`sightline::ncu`,
//! `sightline::app`...):
//!
//! - the model ([`sightline_model`]): [`ncu`], [`section`], [`timeline`], [`codexl`],
//!   [`gainsight`], [`core`] (progress and cancel, the line reader), [`format`], [`pyjson`], [`proto`] — no GUI, no Python;
//! - the rule engine ([`rules`], `sightline-rules`) on the model;
//! - the desktop app ([`app`], `sightline-app`) on both, with the desktop integration
//!   ([`desktop`]).

pub mod cli;

pub use sightline_app as app;
pub use sightline_app::desktop;
pub use sightline_model::{
    codexl, columnar, core, format, gainsight, kind, link, ncu, problem, proto, pyjson, section,
    timeline,
};
pub use sightline_rules as rules;
