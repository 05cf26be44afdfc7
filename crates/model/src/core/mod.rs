//! The model's shared primitives: small pieces every reader, loader and report uses in one
//! way — the one progress and cancel protocol ([`progress`]), the one line reader ([`lines`]),
//! a named two-thread join ([`threads`]), one string interner ([`intern`]), one capped problems
//! list ([`problems`]) and the number conversions that could lose bits ([`num`]).

pub mod intern;
pub mod lines;
pub mod num;
pub mod problems;
pub mod progress;
pub mod threads;

pub use lines::{Line, Lines};
pub use progress::{Cancelled, FnSink, Progress, ProgressSink, Step, Ticker, Unit};
