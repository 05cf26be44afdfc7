//! The model's shared primitives: small pieces every reader, loader and report uses in one way
//! (a named two-thread join, one string interner, one capped problems list...).

pub mod intern;
pub mod problems;
pub mod threads;
