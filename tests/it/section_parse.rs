//! Tests of the tolerant section-file (protobuf text format) parser: NVIDIA's stock section
//! and chart files (read from `../shared`, skipped when absent), spot checks of parsed values,
//! and malformed inputs with exact diagnostic positions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use sightline::problem::{FileProblem, Location};
use sightline::proto::nv::profiler::messages::{CollectionImportance, CollectionScope, GpuArch};
use sightline::proto::nv::profiler::{ProfilerSection, profiler_section_table};
use sightline::section::{
    CHART_MESSAGE, Parsed, SECTION_MESSAGE, Severity, descriptor_pool, parse_chart,
    parse_chart_file, parse_section, parse_section_file, parse_text_format,
};

const NCU: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/reference/ncu");

const STOCK_DIRS: &[&str] = &[
    "sections/ncu-2022.3.0",
    "sections/ncu-2024.1.1",
    "sections/ncu-2025.3.1",
    "rules/RuleTemplates-2022.3.0",
    "rules/RuleTemplates-2024.1.1",
];

fn path() -> &'static Path {
    Path::new("test.section")
}

/// `(line, column, severity, message)` of every diagnostic.
fn diags<T>(parsed: &Parsed<T>) -> Vec<(usize, usize, Severity)> {
    parsed.diagnostics.iter().map(at).collect()
}

/// `(line, column)` of a diagnostic.
fn pos(d: &FileProblem) -> (usize, usize) {
    match d.problem.location {
        Location::Line {
            line,
            column: Some(column),
        } => (line, column),
        ref other => panic!("not a line and column: {other:?}"),
    }
}

/// `(line, column, severity)` of a diagnostic.
fn at(d: &FileProblem) -> (usize, usize, Severity) {
    let (line, column) = pos(d);
    (line, column, d.problem.severity)
}

fn section(text: &str) -> Parsed<ProfilerSection> {
    let parsed = parse_section(path(), text);
    for d in &parsed.diagnostics {
        println!("{d}");
    }
    assert_eq!(parsed.value.is_none(), parsed.has_errors());
    parsed
}

/// Parses and expects no diagnostic at all.
fn clean(text: &str) -> ProfilerSection {
    let parsed = section(text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.value.expect("value")
}

/// Parses and expects exactly one diagnostic; returns it.
fn single(text: &str) -> (Parsed<ProfilerSection>, FileProblem) {
    let parsed = section(text);
    assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
    let d = parsed.diagnostics[0].clone();
    (parsed, d)
}

const HEAD: &str = "Identifier: \"Id\"\nDisplayName: \"Name\"\n";

// ---------------------------------------------------------------------------------------------
// Stock files

fn stock_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("section" | "chart")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Checks a parse result against the generic (`DynamicMessage`) API and, for files without
/// warnings, against prost-reflect's own (strict) text-format parser.
fn cross_check<T>(file: &Path, message: &str, parsed: &Parsed<T>)
where
    T: prost::Message + Default + PartialEq + std::fmt::Debug,
{
    let Some(value) = &parsed.value else {
        return;
    };
    let text = std::fs::read_to_string(file).expect("readable");
    let dynamic = parse_text_format(file, &text, message);
    assert_eq!(dynamic.diagnostics, parsed.diagnostics);
    let via_dynamic: T = dynamic
        .value
        .expect("dynamic value")
        .transcode_to()
        .expect("transcode");
    assert_eq!(&via_dynamic, value, "{}", file.display());
    if parsed.diagnostics.is_empty() {
        let pool = descriptor_pool().expect("pool");
        let desc = pool.get_message_by_name(message).expect("message");
        let strict = prost_reflect::DynamicMessage::parse_text_format(desc, &text)
            .unwrap_or_else(|e| panic!("prost-reflect rejects {}: {e}", file.display()));
        let strict: T = strict.transcode_to().expect("transcode");
        assert_eq!(&strict, value, "{}", file.display());
    }
}

#[test]
fn stock_files_parse_without_errors() {
    let root = Path::new(NCU);
    if !root.is_dir() {
        crate::common::skip_shared(format!("{} not found", root.display()));
        return;
    }
    let mut all_errors = Vec::new();
    for dir in STOCK_DIRS {
        let dir_path = root.join(dir);
        if !dir_path.is_dir() {
            crate::common::skip_shared(format!("{} not found", dir_path.display()));
            continue;
        }
        let files = stock_files(&dir_path);
        assert!(
            !files.is_empty(),
            "no stock files in {}",
            dir_path.display()
        );
        let mut warnings = 0;
        let mut distinct: BTreeMap<String, usize> = BTreeMap::new();
        let mut sections = 0;
        let mut charts = 0;
        for file in &files {
            let diagnostics = if file.extension().is_some_and(|e| e == "chart") {
                charts += 1;
                let parsed = parse_chart_file(file);
                assert_eq!(parsed.value.is_some(), !parsed.has_errors());
                cross_check(file, CHART_MESSAGE, &parsed);
                parsed.diagnostics
            } else {
                sections += 1;
                let parsed = parse_section_file(file);
                assert_eq!(parsed.value.is_some(), !parsed.has_errors());
                cross_check(file, SECTION_MESSAGE, &parsed);
                parsed.diagnostics
            };
            let text = std::fs::read_to_string(file).unwrap_or_default();
            for d in diagnostics {
                if let Some(name) = d
                    .problem
                    .message
                    .strip_prefix("unknown field `")
                    .and_then(|rest| rest.split('`').next())
                {
                    // The warning points at the field name token.
                    let line = text.lines().nth(pos(&d).0 - 1).unwrap_or("");
                    let at: String = line.chars().skip(pos(&d).1 - 1).collect();
                    assert!(at.starts_with(name), "{d} points at {at:?}");
                }
                match d.problem.severity {
                    Severity::Error => all_errors.push(d.to_string()),
                    Severity::Warning => {
                        warnings += 1;
                        *distinct.entry(d.problem.message.clone()).or_default() += 1;
                    }
                }
            }
        }
        println!(
            "{dir}: {} files ({sections} sections, {charts} charts), {warnings} warnings",
            files.len()
        );
        for (message, count) in &distinct {
            println!("    {count:4} x {message}");
        }
    }
    for e in &all_errors {
        println!("{e}");
    }
    assert!(
        all_errors.is_empty(),
        "{} errors in stock files",
        all_errors.len()
    );
}

#[test]
fn stock_files_parse_fast() {
    let root = Path::new(NCU);
    let dir = root.join("sections/ncu-2025.3.1");
    if !dir.is_dir() {
        crate::common::skip_shared(format!("{} not found", dir.display()));
        return;
    }
    let texts: Vec<(PathBuf, String)> = stock_files(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "section"))
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect();
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    // Warm up (descriptor pool).
    let _ = parse_section(path(), HEAD);
    let start = Instant::now();
    let mut loaded = 0;
    for (p, t) in &texts {
        loaded += usize::from(parse_section(p, t).value.is_some());
    }
    let elapsed = start.elapsed();
    println!(
        "parsed {} sections ({} KiB) in {:.2} ms (this build's profile)",
        texts.len(),
        bytes / 1024,
        elapsed.as_secs_f64() * 1e3
    );
    assert_eq!(loaded, texts.len());
}

#[test]
fn speed_of_light_values() {
    let file = Path::new(NCU).join("sections/ncu-2024.1.1/SpeedOfLight.section");
    if !file.is_file() {
        crate::common::skip_shared(format!("{} not found", file.display()));
        return;
    }
    let parsed = parse_section_file(&file);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let s = parsed.value.expect("value");
    assert_eq!(s.identifier, "SpeedOfLight");
    assert_eq!(s.display_name, "GPU Speed Of Light Throughput");
    assert_eq!(s.order, Some(10));
    assert!(
        s.description
            .as_deref()
            .unwrap_or("")
            .starts_with("High-level overview")
    );
    let sets: Vec<&str> = s.sets.iter().map(|x| x.identifier.as_str()).collect();
    assert_eq!(sets, ["basic", "detailed", "full", "roofline"]);
    let header = s.header.as_ref().expect("header");
    assert_eq!(header.metrics.len(), 10);
    assert_eq!(
        header.metrics[0].label.as_deref(),
        Some("Compute (SM) Throughput")
    );
    assert_eq!(
        header.metrics[0].name,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed"
    );
    let dram = &header.metrics[8];
    assert_eq!(dram.label.as_deref(), Some("DRAM Throughput"));
    assert_eq!(
        dram.filter.as_ref().and_then(|f| f.max_arch),
        Some(GpuArch::Cc70 as i32)
    );
    assert_eq!(dram.options.len(), 2);
    let f0 = dram.options[0].filter.as_ref().expect("filter");
    assert_eq!(f0.min_arch, Some(GpuArch::Cc75 as i32));
    assert_eq!(f0.max_arch, Some(GpuArch::Cc86 as i32));
    let f1 = dram.options[1].filter.as_ref().expect("filter");
    assert_eq!(f1.min_arch, Some(GpuArch::Cc89 as i32));
    assert_eq!(f1.max_arch, None);
    assert_eq!(s.body.len(), 2);
    assert_eq!(
        s.body[0].display_name.as_deref(),
        Some("GPU Throughput Chart")
    );
    assert_eq!(s.body[0].set_default, Some(true));
    let bar = s.body[0].items[0].bar_chart.as_ref().expect("bar chart");
    let axis = bar.value_axis.as_ref().expect("value axis");
    let range = axis.range.as_ref().expect("range");
    assert_eq!(
        (range.min, range.max, axis.tick_count),
        (Some(0), Some(100), Some(11))
    );
    assert_eq!(bar.metrics.len(), 2);
}

#[test]
fn stock_2025_unknown_fields_are_warnings() {
    let file = Path::new(NCU).join("sections/ncu-2025.3.1/PmSampling.section");
    if !file.is_file() {
        crate::common::skip_shared(format!("{} not found", file.display()));
        return;
    }
    let parsed = parse_section_file(&file);
    assert!(!parsed.has_errors());
    // PmSampling.section line 13: "  VGpu: Platform_NotSupported" (a field the schema lacks,
    // unless someone adds it: then there is no warning to check).
    if let Some(vgpu) = parsed
        .warnings()
        .find(|d| d.problem.message.contains("`VGpu`"))
    {
        assert_eq!(pos(vgpu), (13, 3));
        assert_eq!(
            vgpu.problem.message,
            "unknown field `VGpu` in `NV.Profiler.Messages.MetricOptionFilter` (skipped)"
        );
    }
    let s = parsed.value.expect("value");
    assert_eq!(s.identifier, "PmSampling");
}

// ---------------------------------------------------------------------------------------------
// Malformed input, exact positions

#[test]
fn unclosed_brace_reports_end_of_input() {
    let text =
        "Identifier: \"Id\"\nDisplayName: \"Name\"\nHeader {\n  Metrics {\n    Name: \"m\"\n  }\n";
    let (parsed, d) = single(text);
    assert!(parsed.value.is_none());
    assert_eq!(at(&d), (7, 1, Severity::Error));
    assert!(
        d.problem
            .message
            .contains("expected '}' to close '{' at 3:8"),
        "{}",
        d.problem.message
    );
    // Without a final newline: just past the last character.
    let (_, d) = single("Identifier: \"Id\"\nDisplayName: \"N\"\nHeader {  ");
    assert_eq!(pos(&d), (3, 11));
    // Unclosed '<' and '['.
    let (_, d) = single("Identifier: \"Id\"\nDisplayName: \"N\"\nHeader < Rows: 1");
    assert_eq!(pos(&d), (3, 17));
    assert!(
        d.problem.message.contains("expected '>'"),
        "{}",
        d.problem.message
    );
    let (_, d) = single("Identifier: \"Id\"\nDisplayName: \"N\"\nSets [ { Identifier: \"a\" },");
    assert_eq!(pos(&d), (3, 28));
    assert!(
        d.problem.message.contains("expected ']'"),
        "{}",
        d.problem.message
    );
}

#[test]
fn unterminated_string() {
    let (parsed, d) = single("Identifier: \"Id\"\nDisplayName: \"Name\n\"\n");
    assert!(parsed.value.is_none());
    assert_eq!(at(&d), (2, 14, Severity::Error));
    assert_eq!(d.problem.message, "unterminated string");
    let (_, d) = single("Identifier: 'Id");
    assert_eq!(pos(&d), (1, 13));
}

#[test]
fn bad_enum_value_is_a_warning_at_the_value() {
    let text = format!(
        "{HEAD}Header {{\n  Metrics {{\n    Name: \"m\"\n    Filter {{ MinArch: CC_999 MaxArch: CC_80 }}\n  }}\n}}\n"
    );
    let (parsed, d) = single(&text);
    assert_eq!(at(&d), (6, 23, Severity::Warning));
    assert!(
        d.problem.message.contains("`CC_999`"),
        "{}",
        d.problem.message
    );
    let s = parsed.value.expect("loads");
    let filter = s.header.unwrap().metrics[0].filter.clone().unwrap();
    assert_eq!(filter.min_arch, None);
    assert_eq!(filter.max_arch, Some(GpuArch::Cc80 as i32));
    // By number: known and unknown.
    let s = clean(&format!("{HEAD}Filter {{ MinArch: 75 }}"));
    assert_eq!(s.filter.unwrap().min_arch, Some(GpuArch::Cc75 as i32));
    let (_, d) = single(&format!("{HEAD}Filter {{ MinArch: 76 }}"));
    assert_eq!(at(&d), (3, 19, Severity::Warning));
}

#[test]
fn unknown_field_is_a_warning_and_following_fields_parse() {
    let text = format!("{HEAD}  Bogus: 12\nOrder: 7\nDescription: \"d\"\n");
    let (parsed, d) = single(&text);
    assert_eq!(at(&d), (3, 3, Severity::Warning));
    assert_eq!(
        d.problem.message,
        "unknown field `Bogus` in `NV.Profiler.ProfilerSection` (skipped)"
    );
    let s = parsed.value.expect("loads");
    assert_eq!(s.order, Some(7));
    assert_eq!(s.description.as_deref(), Some("d"));
    // Scalar forms that must be skipped: negative, strings, lists, identifiers.
    let s = section(&format!(
        "{HEAD}A: -5\nB: \"x\" 'y'\nC: [1, 2, {{ x: 1 }}]\nD: ident; E: [] , F: -inf\nOrder: 3"
    ));
    assert_eq!(s.diagnostics.len(), 6);
    assert!(s.warnings().count() == 6);
    assert_eq!(s.value.unwrap().order, Some(3));
}

#[test]
fn unknown_nested_block_is_skipped() {
    let text = format!(
        "{HEAD}Future {{\n  Inner {{ Deeper < X: \"}}\" > List: [ {{ a: 1 }}, {{ b {{ }} }} ] }}\n  Y: 2\n}}\nOrder: 4\nFuture2: {{ }}\n"
    );
    let parsed = section(&text);
    assert_eq!(
        diags(&parsed),
        [(3, 1, Severity::Warning), (8, 1, Severity::Warning)]
    );
    assert!(parsed.diagnostics[1].problem.message.contains("`Future2`"));
    assert_eq!(parsed.value.expect("loads").order, Some(4));
    // Unknown field inside a known nested block: reported with the nested type.
    let (parsed, d) = single(&format!(
        "{HEAD}Header {{\n  Metrics {{\n    Name: \"m\"\n    ShowOnlyIfNotZero {{ Metric {{ Name: \"x\" }} }}\n  }}\n}}"
    ));
    assert_eq!(pos(&d), (6, 5));
    assert_eq!(
        d.problem.message,
        "unknown field `ShowOnlyIfNotZero` in `NV.Profiler.ProfilerSectionMetric` (skipped)"
    );
    assert_eq!(parsed.value.unwrap().header.unwrap().metrics[0].name, "m");
    // A syntax error inside an unknown block is still an error.
    let parsed = section(&format!("{HEAD}Future {{ x: }} }}"));
    assert_eq!(
        diags(&parsed),
        [(3, 1, Severity::Warning), (3, 13, Severity::Error)]
    );
    assert_eq!(
        parsed.diagnostics[1].problem.message,
        "expected a value, found '}'"
    );
}

#[test]
fn missing_required_identifier_at_1_1() {
    let (parsed, d) = single("DisplayName: \"Name\"\nOrder: 1\n");
    assert!(parsed.value.is_none());
    assert_eq!(at(&d), (1, 1, Severity::Error));
    assert_eq!(
        d.problem.message,
        "missing required field `Identifier` in `NV.Profiler.ProfilerSection`"
    );
    // Both missing: two errors at 1:1.
    let parsed = section("# only a comment\n");
    assert_eq!(
        diags(&parsed),
        [(1, 1, Severity::Error), (1, 1, Severity::Error)]
    );
}

#[test]
fn missing_required_metric_name_in_nested_block() {
    let text = format!(
        "{HEAD}Header {{\n  Metrics {{\n    Name: \"ok\"\n  }}\n  Metrics {{\n    Label: \"no name\"\n  }}\n}}\n"
    );
    let (parsed, d) = single(&text);
    assert!(parsed.value.is_none());
    // Reported at the opening '{' of the message that lacks it.
    assert_eq!(at(&d), (7, 11, Severity::Error));
    assert_eq!(
        d.problem.message,
        "missing required field `Name` in `NV.Profiler.ProfilerSectionMetric`"
    );
    // Also inside list syntax.
    let (_, d) = single(&format!("{HEAD}Sets [ {{ Identifier: \"a\" }}, {{ }} ]"));
    assert_eq!(pos(&d), (3, 29));
}

#[test]
fn type_mismatch_at_the_value() {
    let (parsed, d) = single(&format!("{HEAD}Order: \"ten\"\n"));
    assert!(parsed.value.is_none());
    assert_eq!(at(&d), (3, 8, Severity::Error));
    assert_eq!(
        d.problem.message,
        "field `Order` expects an unsigned integer, found string \"ten\""
    );
    let (_, d) = single(&format!("{HEAD}Order: -1"));
    assert_eq!(pos(&d), (3, 8));
    assert!(
        d.problem.message.contains("out of range"),
        "{}",
        d.problem.message
    );
    let (_, d) = single(&format!("{HEAD}Order: 4294967296"));
    assert!(
        d.problem.message.contains("out of range"),
        "{}",
        d.problem.message
    );
    let (_, d) = single(&format!("{HEAD}Order: 1.5"));
    assert_eq!(pos(&d), (3, 8));
    let (_, d) = single(&format!("{HEAD}Description: 12"));
    assert_eq!(pos(&d), (3, 14));
    let (_, d) = single(&format!("{HEAD}Header: 12"));
    assert_eq!(pos(&d), (3, 9));
    let (_, d) = single(&format!("{HEAD}Description {{ }}"));
    assert_eq!(pos(&d), (3, 13));
    let (_, d) = single(&format!("{HEAD}Extends: Id2"));
    assert_eq!(pos(&d), (3, 10));
    let (_, d) = single(&format!("{HEAD}Body {{ SetDefault: maybe }}"));
    assert_eq!(pos(&d), (3, 20));
    let (_, d) = single(&format!("{HEAD}Order: [1, 2]"));
    assert!(
        d.problem.message.contains("not repeated"),
        "{}",
        d.problem.message
    );
    // Errors after a mismatch are still found (the mismatched value is skipped).
    let parsed = section(&format!("{HEAD}Order: \"x\" \"y\"\nExtends: 5\n"));
    assert_eq!(
        diags(&parsed),
        [(3, 8, Severity::Error), (4, 10, Severity::Error)]
    );
}

#[test]
fn garbage_tokens() {
    let (parsed, d) = single("Identifier: \"Id\"\n  DisplayName = \"x\"\n");
    assert!(parsed.value.is_none());
    assert_eq!(at(&d), (2, 15, Severity::Error));
    assert_eq!(d.problem.message, "unexpected character '='");
    let (_, d) = single("Identifier: \"Id\" }");
    assert_eq!(pos(&d), (1, 18));
    assert_eq!(d.problem.message, "expected field name, found '}'");
    let (_, d) = single("Identifier: \"Id\"\n42");
    assert_eq!(pos(&d), (2, 1));
    let (_, d) = single("Identifier \"Id\"");
    assert_eq!(pos(&d), (1, 12));
    assert!(
        d.problem.message.starts_with("expected ':'"),
        "{}",
        d.problem.message
    );
    let (_, d) = single("Identifier: \"Id\"\nOrder: 12abc");
    assert_eq!(pos(&d), (2, 8));
    assert_eq!(d.problem.message, "invalid number `12abc`");
    let (_, d) = single("Identifier: \"é\" DisplayName: \"x\" Order: 09");
    assert_eq!(pos(&d), (1, 41));
    let (_, d) = single("Identifier: \"a\\qb\"");
    assert_eq!(pos(&d), (1, 15));
    assert_eq!(d.problem.message, "invalid escape sequence `\\q`");
    let (_, d) = single("Identifier: \"Id\"\nHeader { Metrics { Name: \"m\" ] }");
    assert_eq!(pos(&d), (2, 30));
    // Non-ASCII before the error: columns count characters.
    let (_, d) = single("Identifier: \"ééé\" ~");
    assert_eq!(pos(&d), (1, 19));
}

#[test]
fn short_enum_forms() {
    let text = format!(
        "{HEAD}Filter {{\n  CollectionFilter {{\n    Importance: Required\n    CollectionScopes: Launch\n    CollectionScopes: CollectionScope_Range\n    CollectionScopes: CollectionScopes_Cmdlist\n  }}\n}}\nBody {{ Items {{ Table {{ Columns: 1 Order: ColumnMajor SortKey: SortKeys_ByValue SortDirection: sortdirection_Descending }} BarChart {{ ValueAxisAlignment: Both }} }} }}\n"
    );
    let s = clean(&text);
    let cf = s.filter.unwrap().collection_filter.unwrap();
    assert_eq!(cf.importance, Some(CollectionImportance::Required as i32));
    assert_eq!(
        cf.collection_scopes,
        [
            CollectionScope::Launch as i32,
            CollectionScope::Range as i32,
            CollectionScope::Cmdlist as i32
        ]
    );
    let item = &s.body[0].items[0];
    assert_eq!(
        item.table.as_ref().unwrap().order,
        Some(profiler_section_table::LayoutOrder::ColumnMajor as i32)
    );
    assert_eq!(item.table.as_ref().unwrap().sort_key, Some(1));
    assert_eq!(item.table.as_ref().unwrap().sort_direction, Some(1));
    assert_eq!(
        item.bar_chart.as_ref().unwrap().value_axis_alignment,
        Some(2)
    );
    // A name that matches nothing is still a warning.
    let (_, d) = single(&format!(
        "{HEAD}Filter {{ CollectionFilter {{ Importance: Mandatory }} }}"
    ));
    assert_eq!(at(&d), (3, 41, Severity::Warning));
}

#[test]
fn list_syntax() {
    let s = clean(&format!(
        "{HEAD}Sets: [ {{ Identifier: \"a\" }}, < Identifier: \"b\" > ]\nSets [{{Identifier: \"c\"}}]\nSets {{ Identifier: \"d\" }}\nFilter {{ CollectionFilter {{ CollectionScopes: [Launch, 2, CollectionScope_Cmdlist] }} }}\nHeader {{ Metrics {{ Name: \"m\" Groups: [\"g1\", 'g2'] Groups: \"g3\" CtrDomains: [] }} }}\n"
    ));
    let sets: Vec<&str> = s.sets.iter().map(|x| x.identifier.as_str()).collect();
    assert_eq!(sets, ["a", "b", "c", "d"]);
    assert_eq!(
        s.filter
            .unwrap()
            .collection_filter
            .unwrap()
            .collection_scopes,
        [1, 2, 3]
    );
    let m = &s.header.unwrap().metrics[0];
    assert_eq!(m.groups, ["g1", "g2", "g3"]);
    assert!(m.ctr_domains.is_empty());
    // A bad element: enum warning drops only that element.
    let (parsed, d) = single(&format!(
        "{HEAD}Filter {{ CollectionFilter {{ CollectionScopes: [Launch, Nope, Range] }} }}"
    ));
    assert_eq!(pos(&d), (3, 56));
    assert_eq!(
        parsed
            .value
            .unwrap()
            .filter
            .unwrap()
            .collection_filter
            .unwrap()
            .collection_scopes,
        [1, 2]
    );
    let (_, d) = single(&format!("{HEAD}Sets [ {{ Identifier: \"a\" }} {{ }} ]"));
    assert_eq!(pos(&d), (3, 28));
    assert!(
        d.problem.message.starts_with("expected ',' or ']'"),
        "{}",
        d.problem.message
    );
}

#[test]
fn strings_concatenation_and_escapes() {
    let s = clean(concat!(
        "Identifier: \"a\" 'b'\n   \"c\"\n",
        "DisplayName: \"q\\\"s\\'\\\\ \\t\\n\\101\\x42\\u00e9\\U0001F600 \\?\"\n",
        "Description: 'single \"double\" inside' \"\" '\\0'\n",
        "Extends: \"\\ud83d\\ude00 é\"\n",
    ));
    assert_eq!(s.identifier, "abc");
    assert_eq!(s.display_name, "q\"s'\\ \t\nAB\u{e9}\u{1F600} ?");
    assert_eq!(s.description.as_deref(), Some("single \"double\" inside\0"));
    assert_eq!(s.extends.as_deref(), Some("\u{1F600} é"));
    // Escapes producing invalid UTF-8 in a string field.
    let (_, d) = single(&format!("{HEAD}Extends: \"\\xff\""));
    assert_eq!(at(&d), (3, 10, Severity::Error));
}

#[test]
fn comments_separators_and_numbers() {
    let s = clean(concat!(
        "# leading comment\n",
        "Identifier: \"Id\" # trailing comment with \"quote and { brace\n",
        "DisplayName: \"#not a comment\";\n",
        "Order: 0x1F,\n",
        "Body { Items { BarChart { ValueAxis { Range { Min: -5 Max: 017 } TickCount: -0x10 } } } }\n",
        "Body < Items < RooflineChart < AxisIntensity { Base: 1e-3 Min: .5 Max: 5. } AxisWork { Base: 2.5f Min: -inf Max: 10 } > > >\n",
        "Body { Items { RooflineChart { AxisWork { Base: nan } } } SetDefault: t }\n",
        "Body { SetDefault: 0 } Body { SetDefault: True } Body { SetDefault: 1; }\n",
    ));
    assert_eq!(s.display_name, "#not a comment");
    assert_eq!(s.order, Some(31));
    let axis = s.body[0].items[0]
        .bar_chart
        .as_ref()
        .unwrap()
        .value_axis
        .as_ref()
        .unwrap();
    assert_eq!(axis.range.as_ref().unwrap().min, Some(-5));
    assert_eq!(axis.range.as_ref().unwrap().max, Some(15));
    assert_eq!(axis.tick_count, Some(-16));
    let roof = s.body[1].items[0].roofline_chart.as_ref().unwrap();
    let ai = roof.axis_intensity.as_ref().unwrap();
    assert_eq!(
        (ai.base, ai.min, ai.max),
        (Some(1e-3), Some(0.5), Some(5.0))
    );
    let aw = roof.axis_work.as_ref().unwrap();
    assert_eq!(
        (aw.base, aw.min, aw.max),
        (Some(2.5), Some(f64::NEG_INFINITY), Some(10.0))
    );
    let nan = s.body[2].items[0].roofline_chart.as_ref().unwrap();
    assert!(nan.axis_work.as_ref().unwrap().base.unwrap().is_nan());
    let defaults: Vec<Option<bool>> = s.body.iter().map(|b| b.set_default).collect();
    assert_eq!(
        defaults,
        [None, None, Some(true), Some(false), Some(true), Some(true)]
    );
}

#[test]
fn duplicate_singular_field_is_a_warning_last_wins() {
    let (parsed, d) = single(&format!("{HEAD}Order: 1\nOrder: 2\n"));
    assert_eq!(at(&d), (4, 8, Severity::Warning));
    assert_eq!(parsed.value.unwrap().order, Some(2));
}

#[test]
fn nesting_limit_is_an_error_not_a_crash() {
    let depth = 5000;
    let text = format!("{HEAD}{}{}", "Future { ".repeat(depth), "} ".repeat(depth));
    let parsed = section(&text);
    assert!(parsed.value.is_none());
    assert_eq!(parsed.errors().count(), 1);
    assert!(
        parsed
            .errors()
            .next()
            .unwrap()
            .problem
            .message
            .contains("nesting deeper than 100")
    );
    let text = format!(
        "{HEAD}{}",
        "Body { Items { HorizontalContainer { Items { ".repeat(60)
    );
    let parsed = section(&text);
    assert!(parsed.value.is_none());
    // 100 levels are fine.
    let ok = format!("{HEAD}{}{}", "X { ".repeat(100), "} ".repeat(100));
    assert!(section(&ok).value.is_some());
}

#[test]
fn never_panics_on_prefixes_and_junk() {
    let text = concat!(
        "Identifier: \"Id\" DisplayName: 'x' Order: 3\n",
        "Body { Items { Table { Columns: 2 Order: ColumnMajor Metrics [ { Name: \"a\\x41\\u00e9\" } ] } } }\n",
        "Future < a: [1, -2.5e3, \"s\" 't', { b: c }] > Header { Rows: 0x1 }\n",
    );
    for end in 0..=text.len() {
        if let Some(prefix) = text.get(..end) {
            let _ = parse_section(path(), prefix);
            let _ = parse_chart(path(), prefix);
        }
    }
    for junk in [
        "\u{feff}",
        "-",
        "--",
        "[",
        "]",
        "[a.b/c",
        "x: -",
        "x: [",
        "x: [1,",
        "\"\\",
        "'\\u12",
        "\\",
        "0x",
        "1e",
        ".",
        "..5",
        "x: 1.2.3",
        "x: \"\\777\"",
        "\0",
        "x: {",
        "x <",
        "x: <>",
    ] {
        let parsed = parse_section(path(), junk);
        assert!(parsed.value.is_none());
        assert!(parsed.has_errors());
    }
}

mod files;
