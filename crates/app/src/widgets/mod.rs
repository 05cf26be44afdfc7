//! Widgets shared by every document kind.

pub mod plot;
pub mod problems;
pub mod table;
