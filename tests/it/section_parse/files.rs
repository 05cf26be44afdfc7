//! Chart files, unreadable files, the diagnostics' format and their cost.

use super::*;

#[test]
fn chart_files_and_generic_parse() {
    let chart = parse_chart(
        Path::new("x.chart"),
        "Table {\n  Label: \"T\"\n  Columns: 1\n  Order: ColumnMajor\n  Metrics { Name: \"m\" }\n}\n",
    );
    assert!(chart.diagnostics.is_empty(), "{:?}", chart.diagnostics);
    let table = chart.value.unwrap().table.unwrap();
    assert_eq!(table.columns, 1);
    assert_eq!(table.metrics[0].name, "m");
    // Missing required Columns of a table.
    let chart = parse_chart(Path::new("x.chart"), "Table {\n  Label: \"T\"\n}\n");
    assert_eq!(diags(&chart), [(1, 7, Severity::Error)]);
    let dynamic = parse_text_format(
        path(),
        "Name: \"n\" Expression: \"a + b\"",
        "NV.Profiler.ProfilerSectionMetricDefinition",
    );
    assert!(dynamic.diagnostics.is_empty());
    assert!(dynamic.value.is_some());
    let unknown = parse_text_format(path(), "", "NV.Profiler.Nope");
    assert_eq!(diags(&unknown), [(1, 1, Severity::Error)]);
}

#[test]
fn files_that_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.section");
    let parsed = parse_section_file(&missing);
    assert_eq!(diags(&parsed), [(1, 1, Severity::Error)]);
    assert!(
        parsed.diagnostics[0]
            .problem
            .message
            .starts_with("cannot read the file")
    );
    let binary = dir.path().join("binary.chart");
    std::fs::write(&binary, b"Table { Label: \"\xff\" }").unwrap();
    let parsed = parse_chart_file(&binary);
    assert_eq!(diags(&parsed), [(1, 1, Severity::Error)]);
    assert!(
        parsed.diagnostics[0]
            .problem
            .message
            .contains("not valid UTF-8")
    );
    let good = dir.path().join("good.section");
    std::fs::write(&good, HEAD).unwrap();
    let parsed = parse_section_file(&good);
    assert_eq!(parsed.value.unwrap().identifier, "Id");
}

#[test]
fn diagnostic_display_format() {
    let parsed = parse_section(
        Path::new("sections/My.section"),
        "Identifier: \"Id\"\nDisplayName: \"N\"\n\tBogus: 1\nOrder: \"x\"\n",
    );
    let lines: Vec<String> = parsed.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "sections/My.section:3:2: warning: unknown field `Bogus` in `NV.Profiler.ProfilerSection` (skipped)",
            "sections/My.section:4:8: error: field `Order` expects an unsigned integer, found string \"x\"",
        ]
    );
    assert_eq!(Severity::Error.to_string(), "error");
    assert_eq!(Severity::Warning.to_string(), "warning");
}

#[test]
fn many_diagnostics_on_one_long_line_stay_linear() {
    let n = 50_000;
    let mut text = HEAD.replace('\n', " ");
    for _ in 0..n {
        text.push_str("Unknown: 1 ");
    }
    let parsed = parse_section(path(), &text);
    assert_eq!(parsed.diagnostics.len(), n);
    let last = parsed.diagnostics.last().unwrap();
    // "Identifier: \"Id\" DisplayName: \"Name\" " is 37 characters, each field 11.
    assert_eq!(pos(last), (1, 38 + 11 * (n - 1)));
    assert!(parsed.value.is_some());
}
