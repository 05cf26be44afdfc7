//! The dump's units (`dump --units`): a section's own unit wins over the inferred one.
//! (Moved from the model's unit tests: it needs the report writer of the test-support crate.)

use sightline::ncu::{DumpOptions, MetricValue, Report, write_dump};
use sightline_test_support::ncu::synth::{scalar, section, write_kernels};
use sightline_test_support::ncu::synth_kernels::sample_kernels;

#[test]
fn section_unit_overrides_the_inferred_unit() {
    let mut kernel = sample_kernels().remove(0);
    kernel
        .metrics
        .push(("custom__widgets.sum".into(), scalar(MetricValue::Uint64(3))));
    let mut custom = section(
        "Custom",
        "Custom",
        99,
        &[("Widgets", "custom__widgets.sum")],
        &[],
    );
    if let Some(header) = custom.header.as_mut() {
        header.metrics[0].unit = Some("widget".into());
    }
    kernel.sections.push(custom);
    let mut bytes = Vec::new();
    write_kernels(&[kernel], 1, &mut bytes).unwrap();
    let report = Report::from_bytes("mem.ncu-rep", bytes.into()).unwrap();
    let mut out = Vec::new();
    write_dump(
        &report,
        &DumpOptions {
            units: true,
            kernel: None,
        },
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let at = text.find("\"custom__widgets.sum\"").unwrap();
    assert!(
        text[at..]
            .lines()
            .nth(2)
            .unwrap()
            .contains("\"unit\": \"widget\"")
    );
    let at = text.find("\"gpu__time_duration.sum\"").unwrap();
    assert!(
        text[at..]
            .lines()
            .nth(2)
            .unwrap()
            .contains("\"unit\": \"ns\"")
    );
}
