//! One result's launch, as a list row: what the app's kernel list and the Summary page show of
//! every result before anything else (name, geometry, duration, stream, device).

use crate::ncu::{Action, NameBase};

/// The launch part of a result's row, decoded once from its [`Action`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchRow {
    /// The result's index in its report.
    pub index: usize,
    /// The function name.
    pub name: String,
    /// The demangled name, as the report stores it (the name's tooltip).
    pub demangled: String,
    /// `x×y×z` grid size, or `-`.
    pub grid: String,
    /// `x×y×z` block size, or `-`.
    pub block: String,
    /// `gpu__time_duration.sum` in nanoseconds.
    pub duration_ns: Option<f64>,
    /// CUDA stream id.
    pub stream: Option<u32>,
    /// CUDA context id.
    pub context: Option<u32>,
    /// `device__attribute_device_index`.
    pub device: Option<u64>,
}

/// The name of a result that could not be decoded.
pub const UNREADABLE_NAME: &str = "(unreadable result)";

impl LaunchRow {
    /// The row of `action`.
    pub fn of(action: &Action) -> LaunchRow {
        let dim = |d: Option<[u64; 3]>| {
            d.map_or_else(|| "-".to_owned(), |[x, y, z]| format!("{x}×{y}×{z}"))
        };
        LaunchRow {
            index: action.index(),
            name: action.name(NameBase::Function).to_owned(),
            demangled: action.name(NameBase::Demangled).to_owned(),
            grid: dim(action.grid_size()),
            block: dim(action.block_size()),
            duration_ns: action
                .metric("gpu__time_duration.sum")
                .and_then(|m| m.value().as_f64()),
            stream: action.stream_id(),
            context: action.context_id(),
            device: action
                .metric("device__attribute_device_index")
                .and_then(|m| m.value().as_u64()),
        }
    }

    /// The row of result `index`, which could not be decoded: the name says so, the tooltip
    /// (the demangled name) gives the error.
    pub fn unreadable(index: usize, error: &str) -> LaunchRow {
        LaunchRow {
            index,
            name: UNREADABLE_NAME.to_owned(),
            demangled: error.to_owned(),
            grid: "-".to_owned(),
            block: "-".to_owned(),
            ..LaunchRow::default()
        }
    }
}
