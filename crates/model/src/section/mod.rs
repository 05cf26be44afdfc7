//! Section files (`.section`, `.chart`) and the Details model: parsing, search paths, which
//! sections a kernel uses (`choice`), metric options and filters, derived metrics, resolution
//! for one action, and value formatting.

pub mod baseline;
pub mod breakdown;
pub mod choice;
pub mod derived;
pub mod details;
pub mod filter;
pub mod memory;
pub mod overview;
pub mod parse;
pub mod registry;
pub mod system;
pub mod watch;
