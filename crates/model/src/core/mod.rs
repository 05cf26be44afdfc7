//! The model's shared primitives: small pieces every reader, loader and report uses in one
//! way — the one progress and cancel protocol ([`Progress`]), the one line reader ([`Lines`]),
//! a named two-thread join ([`join_two`]), one string interner ([`StringTable`]), one capped
//! problems list ([`CappedProblems`]) and, inside the crate, the number conversions that could
//! lose bits (`num`). The submodules are private; what they offer is re-exported here.

pub(crate) mod intern;
pub(crate) mod lines;
pub(crate) mod num;
pub(crate) mod par;
pub(crate) mod problems;
mod progress;
pub(crate) mod threads;

pub use intern::{StrId, StringTable};
pub use lines::{Line, Lines, REPORT_EVERY};
pub(crate) use par::map_files;
pub use problems::CappedProblems;
pub use progress::{CancelFlag, Cancelled, FnSink, Progress, ProgressSink, Step, Ticker, Unit};
pub use threads::join_two;
