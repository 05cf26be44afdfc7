//! Fuzzes the Itanium C++ demangler of the Source page (`ncu::source::demangle`): every input
//! is demangled as it is and, when it does not start with `_Z`, with `_Z` put before it (most
//! inputs then reach the grammar), in NVIDIA's style and in GNU's (reports before 2021.2).
//! Falling back (`None`) is expected; panics, stack overflows,
//! hangs, outputs beyond `MAX_OUTPUT` and runaway allocations are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_model::ncu::source::demangle::{
    MAX_OUTPUT, Style, demangle, demangle_in, demangle_or_raw,
};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut inputs = vec![text.to_owned()];
    if !text.starts_with("_Z") {
        inputs.push(format!("_Z{text}"));
    }
    for input in inputs {
        for name in [demangle(&input), demangle_in(&input, Style::Gnu)]
            .into_iter()
            .flatten()
        {
            assert!(name.len() <= MAX_OUTPUT, "{} bytes", name.len());
            assert!(!name.is_empty());
        }
        let _ = demangle_or_raw(&input);
    }
});
