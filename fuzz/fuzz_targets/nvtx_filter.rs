//! Fuzzes the NVTX filter grammar of `IRange.actions_by_nvtx` (domains, push/pop paths with
//! `[`/`]` anchors, `*` and `+` wildcards, `regex:` names, escapes, start/end ranges): parse
//! arbitrary text and match it against a few NVTX states. Errors are expected; panics and
//! hangs (exponential matching) are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sightline_rules::nvtx_filter::{DomainRanges, NvtxFilter};

fn states() -> Vec<Vec<DomainRanges>> {
    let domain = |name: &str, is_default: bool, push_pop: &[&str], start_end: &[&str]| {
        DomainRanges {
            name: name.to_owned(),
            is_default,
            push_pop: push_pop.iter().map(|s| (*s).to_owned()).collect(),
            start_end: start_end.iter().map(|s| (*s).to_owned()).collect(),
        }
    };
    let deep: Vec<String> = (0..64).map(|i| format!("r{}", i % 5)).collect();
    let deep: Vec<&str> = deep.iter().map(String::as_str).collect();
    vec![
        Vec::new(),
        vec![domain("<default domain>", true, &["a", "b", "c"], &["s"])],
        vec![
            domain("<default domain>", true, &[], &[]),
            domain("D", false, &["x/y", "a]", "[b", "*"], &["start", "end"]),
        ],
        vec![domain("<default domain>", true, &deep, &[])],
    ]
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(filter) = NvtxFilter::parse(&text) else {
        return;
    };
    for state in states() {
        let _ = filter.matches(&state);
    }
});
