//! Fuzzes the section path: the tolerant text-format parser (`.section` and `.chart`), then the
//! Details resolution of a parsed section (metric options and filters, `regex:` and
//! `breakdown:` names, derived-metric expressions) against every kernel of the bundled sample.
//! Diagnostics are expected; panics, hangs and runaway allocations are bugs.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sightline_model::ncu::{Action, Report};
use sightline_model::section::{SectionSet, parse_chart, parse_section, resolve_action};

static SAMPLE: &[u8] = include_bytes!("../../fixtures/sample.ncu-rep");

fn actions() -> &'static [Action] {
    static ACTIONS: OnceLock<Vec<Action>> = OnceLock::new();
    ACTIONS.get_or_init(|| {
        let report = Report::from_bytes("sample.ncu-rep", bytes::Bytes::from_static(SAMPLE))
            .expect("the bundled sample opens");
        (0..report.num_actions())
            .map(|i| report.action(i).expect("sample action"))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("fuzz.section");
    let _ = parse_chart(Path::new("fuzz.chart"), &text);
    let parsed = parse_section(path, &text);
    for diagnostic in &parsed.diagnostics {
        let _ = diagnostic.to_string();
    }
    if let Some(section) = parsed.value {
        let set = SectionSet::from_embedded(vec![section]);
        for action in actions() {
            let _ = resolve_action(action, &set);
        }
    }
});
