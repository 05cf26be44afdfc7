//! Widgets shared by the documents.

pub mod problems;
