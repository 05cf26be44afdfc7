//! Widgets shared by every document kind.

pub mod background_sort;
pub mod dialog;
pub mod filter;
pub mod pairs;
pub mod plot;
pub mod problems;
pub mod table;
