//! Rules: Python files that turn metrics into advice. This module finds rule files on the
//! section/rule search path and reads their bindings.

pub mod bundled;
pub mod scan;
