//! Primitives every reader shares: the one progress and cancel protocol ([`progress`]) and the
//! one line reader ([`lines`]).

pub mod lines;
pub mod progress;

pub use lines::{Line, Lines};
pub use progress::{Cancelled, FnSink, Progress, ProgressSink, Step, Ticker, Unit};
