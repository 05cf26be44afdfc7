//! NVTXT grammar, one test per rule: lines, comments, tokens, assignments, expansion, formats,
//! calls and static arguments, built-in commands, parameters and their checks, events.
//! Expected values are NVIDIA's importer's (probed with `../shared/tools/nvtxt-oracle`).

use sightline::timeline::nvtxt::{
    self, ColorSpec, ErrorClass, Event, EventKind, NvtxtDocument, Severity, TimeBase,
};

fn parse(text: &str) -> NvtxtDocument {
    nvtxt::parse("test.nvtxt", text.as_bytes())
}

/// Parses text that must load without any diagnostic.
fn clean(text: &str) -> NvtxtDocument {
    let doc = parse(text);
    let lines: Vec<String> = doc.diagnostic_lines().collect();
    assert!(lines.is_empty(), "unexpected diagnostics: {lines:#?}");
    doc
}

/// (start, message) of every event.
fn starts(doc: &NvtxtDocument) -> Vec<(i64, String)> {
    doc.events
        .iter()
        .map(|e| (e.start, doc.message(e).to_string()))
        .collect()
}

fn only_event(doc: &NvtxtDocument) -> &Event {
    assert_eq!(doc.events.len(), 1, "{:?}", doc.events);
    &doc.events[0]
}

const HEAD: &str = "TimeBase = Manual\n@Marker, Time, Message\n";

#[test]
fn comments_blank_lines_and_spacing() {
    let doc = clean(&format!(
        "# a comment line\n\n   \n\t# indented comment\n{HEAD}Marker, 1, \"a\" # after a call\n\
         Marker,2,b\n\t Marker\t,\t3 , c\t\nMarker, 4, d#no space before the comment\n"
    ));
    // `//` is not a comment: that line is an error and only it is skipped.
    assert_eq!(starts(&doc).len(), 4);
    assert_eq!(starts(&doc)[3], (4, "d".to_string()));
}

#[test]
fn double_slash_is_not_a_comment() {
    let doc = parse(&format!("{HEAD}// note\nMarker, 1, a\n"));
    assert_eq!(doc.diagnostics.len(), 1);
    assert_eq!(doc.diagnostics[0].line(), 3);
    assert_eq!(doc.events.len(), 1);
}

#[test]
fn line_ends_crlf_and_byte_order_mark() {
    let doc = clean("\u{feff}TimeBase = Manual\r\n@Marker, Time, Message\r\nMarker, 5, x\r\n");
    assert_eq!(starts(&doc), vec![(5, "x".to_string())]);
}

#[test]
fn three_string_forms_and_backslashes_kept() {
    let doc = clean(&format!(
        "{HEAD}Marker, 1, \"double\"\nMarker, 2, 'single'\nMarker, 3, Bare_Name-2\n\
         Marker, 4, \"it's\"\nMarker, 5, 'say \"hi\"'\nMarker, 6, \"a\\\"b\"\n\
         Marker, 7, 'a\\'b'\nMarker, 8, \"# not a comment\"\nMarker, 9, \"\"\n\
         Marker, 10, \"héllo ✓\"\n"
    ));
    let messages: Vec<String> = starts(&doc).into_iter().map(|(_, m)| m).collect();
    assert_eq!(
        messages,
        [
            "double",
            "single",
            "Bare_Name-2",
            "it's",
            "say \"hi\"",
            "a\\\"b",
            "a\\'b",
            "# not a comment",
            "",
            "héllo ✓"
        ]
    );
}

#[test]
fn integers_decimal_hex_octal() {
    let doc = clean(&format!(
        "{HEAD}Marker, 10, a\nMarker, 0x1F, b\nMarker, 0X1f, c\nMarker, 010, d\nMarker, 0, e\n\
         Marker, -0, f\nMarker, 9223372036854775807, g\n"
    ));
    let times: Vec<i64> = doc.events.iter().map(|e| e.start).collect();
    assert_eq!(times, [10, 31, 31, 8, 0, 0, i64::MAX]);
}

#[test]
fn negative_integers_where_they_make_sense() {
    let doc = clean(
        "TimeBase = Manual\nPayload = -5\nColor = -1\n@Marker, Time\nMarker, 1\n\
         Payload = -9223372036854775808\nMarker, 2\n",
    );
    assert_eq!(doc.events[0].payload, Some(-5));
    assert_eq!(doc.events[0].color_argb, 0xFFFF_FFFF);
    assert_eq!(doc.events[1].payload, Some(i64::MIN));
}

#[test]
fn assignment_of_parameters_and_user_variables() {
    let doc = clean(
        "TimeBase = Manual\nMessage = \"from a parameter\"\nmy_time = 42\nLabel-1 = 'user text'\n\
         @Marker, Time\nMarker, $my_time\n@Marker, Time, Message\nMarker, 43, $Label-1\n",
    );
    assert_eq!(
        starts(&doc),
        vec![
            (42, "from a parameter".to_string()),
            (43, "user text".to_string())
        ]
    );
}

#[test]
fn variables_are_case_sensitive() {
    let doc = parse("TimeBase = Manual\ntime = 5\n@Marker, Time\nMarker, $Time\n");
    // `time` is a user variable; `$Time` was never assigned: a lexing error.
    assert_eq!(doc.diagnostics.len(), 1);
    assert_eq!(doc.diagnostics[0].class, ErrorClass::Lexing);
    assert!(doc.events.is_empty());
}

#[test]
fn expansion_keeps_the_type_and_the_current_value() {
    let doc = clean(
        "TimeBase = Manual\nT = 100\nText = abc\n@Marker, Time, Message\nMarker, $T, $Text\n\
         T = 200\nMarker, $T, \"$Text\"\nThreadId = 7\nMarker, $ThreadId, $TimeBase\n",
    );
    assert_eq!(
        starts(&doc),
        vec![
            (100, "abc".to_string()),
            (200, "$Text".to_string()),
            (7, "Manual".to_string())
        ]
    );
}

#[test]
fn expansion_in_an_assignment() {
    let doc = clean("TimeBase = Manual\nA = 5\nB = $A\nTime = $B\n@Marker, Message\nMarker, x\n");
    assert_eq!(only_event(&doc).start, 5);
}

#[test]
fn a_format_is_valid_until_replaced() {
    let doc = clean(
        "TimeBase = Manual\n@Marker, Time, Message\nMarker, 1, a\nMarker, 2, b\n\
         @Marker, Message, Time\nMarker, c, 3\n@Marker, Time,\nMarker, 4,\n",
    );
    assert_eq!(
        starts(&doc),
        vec![
            (1, "a".to_string()),
            (2, "b".to_string()),
            (3, "c".to_string()),
            (4, "c".to_string())
        ]
    );
}

#[test]
fn a_call_takes_exactly_the_formats_number_of_values() {
    let doc = parse(&format!("{HEAD}Marker, 1\nMarker, 2, a, b\nMarker, 3, c\n"));
    assert_eq!(starts(&doc), vec![(3, "c".to_string())]);
    let lines: Vec<(u32, u32)> = doc
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.column()))
        .collect();
    // Too few: at the command; too many: at the first value too many.
    assert_eq!(lines, [(3, 1), (4, 15)]);
}

#[test]
fn static_arguments_come_from_parameters_at_the_call() {
    // The seed's own example (TimeBase Qpc, which Sightline accepts).
    let doc = clean(
        "@RangeStartEnd, Start, End, Message\nProcessId = 1844\nThreadId = 4880\n\
         CategoryId = 1\nColor = Blue\nTimeBase = Qpc\n\
         RangeStartEnd, 8236719005, 8236928073, \"My Message\"\n",
    );
    let event = only_event(&doc);
    assert_eq!(event.kind, EventKind::Range);
    assert_eq!((event.start, event.end), (8236719005, 8236928073));
    assert_eq!((event.pid, event.tid, event.category), (1844, 4880, 1));
    assert_eq!(event.color_argb, 0xFF00_00FF);
    assert_eq!(doc.color_written(event).as_deref(), Some("Blue"));
    assert_eq!(doc.message(event), "My Message");
    assert_eq!(event.time_base, TimeBase::Qpc);
}

#[test]
fn values_passed_by_a_call_persist() {
    let doc = clean(
        "TimeBase = Manual\n@Marker, Time, ThreadId, Message\nMarker, 10, 9, x\n\
         @Marker, Time, Message\nMarker, 11, y\nThreadId = 3\nMarker, 12, z\n",
    );
    let tids: Vec<u32> = doc.events.iter().map(|e| e.tid).collect();
    assert_eq!(tids, [9, 9, 3]);
}

#[test]
fn static_values_change_between_calls() {
    let doc = clean(
        "TimeBase = Manual\nColor = Red\n@Marker, Time\nMarker, 1\nColor = 0x80112233\n\
         Marker, 2\nMessage = later\nMarker, 3\n",
    );
    let colors: Vec<u32> = doc.events.iter().map(|e| e.color_argb).collect();
    assert_eq!(colors, [0xFFFF_0000, 0x8011_2233, 0x8011_2233]);
    assert_eq!(doc.message(&doc.events[1]), "");
    assert_eq!(doc.message(&doc.events[2]), "later");
}

#[test]
fn unset_parameters_take_their_defaults() {
    let doc = clean("TimeBase = Manual\n@Marker, Message\nMarker, a\n");
    let event = only_event(&doc);
    assert_eq!(
        (event.start, event.pid, event.tid, event.category),
        (0, 0, 0, 0)
    );
    assert_eq!(event.color, ColorSpec::Unset);
    assert_eq!(event.color_argb, 0xFF00_0000);
    assert_eq!(event.payload, None);
}

#[test]
fn a_repeated_parameter_in_a_format_keeps_the_later_value() {
    let doc = parse("TimeBase = Manual\n@Marker, Time, Time\nMarker, 10, 11\n");
    assert_eq!(only_event(&doc).start, 11);
    assert_eq!(doc.diagnostics.len(), 1);
    assert_eq!(doc.diagnostics[0].severity(), Severity::Warning);
}

#[test]
fn any_parameter_may_be_in_any_format() {
    let doc = clean(
        "TimeBase = Manual\n@Marker, Time, CategoryId, Payload, TimeBase, ParentCategoryId, \
         Name, Start, End\nMarker, 10, 1, 2, Relative, 3, abc, 4, 5\n",
    );
    let event = only_event(&doc);
    assert_eq!(
        (event.start, event.category, event.payload),
        (10, 1, Some(2))
    );
    assert_eq!(event.time_base, TimeBase::Relative);
}

#[test]
fn built_in_commands_are_positional() {
    let doc = clean(
        "SetFileDisplayName, \"first\"\nSetFileDisplayName, Second\nNameProcess, 5, \"proc\"\n\
         NameOsThread, 5, 6, 'thread'\nNameOsThread, 5, 6, renamed\nNameProcess, 16777215, x\n",
    );
    assert_eq!(doc.display_name.as_deref(), Some("Second"));
    assert_eq!(doc.title(), "Second");
    assert_eq!(doc.process_names.get(&5).map(String::as_str), Some("proc"));
    assert_eq!(
        doc.process_names.get(&16777215).map(String::as_str),
        Some("x")
    );
    assert_eq!(
        doc.thread_names.get(&(5, 6)).map(String::as_str),
        Some("renamed")
    );
    // Positional values are not assignments.
    assert!(
        parse("NameProcess, 5, p\nX = $ProcessId\n").diagnostics[0].class == ErrorClass::Lexing
    );
}

#[test]
fn display_name_defaults_to_the_file_name() {
    let doc = nvtxt::parse("/some/dir/run.nvtxt", b"# nothing\n");
    assert_eq!(doc.display_name, None);
    assert_eq!(doc.title(), "run.nvtxt");
}

#[test]
fn time_bases() {
    for base in TimeBase::ALL {
        let doc = clean(&format!(
            "TimeBase = {}\n@Marker, Time\nMarker, 1\n",
            base.name()
        ));
        assert_eq!(only_event(&doc).time_base, base);
    }
    let quoted = clean("TimeBase = \"Relative\"\n@Marker, Time\nMarker, 1\n");
    assert_eq!(only_event(&quoted).time_base, TimeBase::Relative);
    // TimeBase may change within a file.
    let doc = clean("TimeBase = Manual\n@Marker, Time\nMarker, 1\nTimeBase = CNTVCT\nMarker, 2\n");
    let bases: Vec<TimeBase> = doc.events.iter().map(|e| e.time_base).collect();
    assert_eq!(bases, [TimeBase::Manual, TimeBase::Cntvct]);
}

#[test]
fn all_142_colour_names_and_their_argb() {
    assert_eq!(nvtxt::COLOR_NAMES.len(), 142);
    for (name, argb) in nvtxt::COLOR_NAMES {
        let doc = clean(&format!(
            "TimeBase = Manual\nColor = {name}\n@Marker, Time\nMarker, 1\n"
        ));
        let event = only_event(&doc);
        assert_eq!(event.color_argb, argb, "{name}");
        assert_eq!(argb >> 24, 0xFF, "{name} is opaque");
        assert_eq!(doc.color_written(event).as_deref(), Some(name));
    }
    assert_eq!(nvtxt::color_by_name("Emerald"), Some(0xFF1A_B85D));
    assert_eq!(nvtxt::color_by_name("DarkEmerald"), Some(0xFF00_9823));
    assert_eq!(nvtxt::color_by_name("red"), None);
}

#[test]
fn colour_names_match_the_reference_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/nvtxt-colors.tsv");
    let Ok(table) = std::fs::read_to_string(&path) else {
        crate::common::skip_shared(format!("{} is absent", path.display()));
        return;
    };
    let mut known = 0;
    for line in table.lines().filter(|l| !l.trim().is_empty()) {
        let (name, value) = line.split_once('\t').unwrap();
        let value = u32::from_str_radix(value.trim_start_matches("0x"), 16).unwrap();
        match nvtxt::color_by_name(name) {
            Some(argb) => {
                assert_eq!(argb, value, "{name}");
                known += 1;
            }
            // The table's last names (Transparent, Grey, DarkGrey) get the default in the importer.
            None => assert_eq!(value, 0xFF00_0000, "{name}"),
        }
    }
    assert_eq!(known, 142);
}

#[test]
fn integer_colours_are_argb_as_is() {
    let doc = clean(
        "TimeBase = Manual\n@Marker, Time, Color\nMarker, 1, 0x80FF0000\nMarker, 2, 255\n\
         Marker, 3, 0x1FFFFFFFF\nMarker, 4, -1\n",
    );
    let colors: Vec<u32> = doc.events.iter().map(|e| e.color_argb).collect();
    assert_eq!(colors, [0x80FF_0000, 0x0000_00FF, 0xFFFF_FFFF, 0xFFFF_FFFF]);
    assert_eq!(
        doc.color_written(&doc.events[1]).as_deref(),
        Some("0x000000FF")
    );
}

#[test]
fn categories_and_payloads() {
    let doc = clean(
        "TimeBase = Manual\nCategoryId = 4294967295\nParentCategoryId = 0\n\
         @RangeStartEnd, Start, End, CategoryId, Payload\nRangeStartEnd, 1, 2, 7, 0x10\n\
         RangeStartEnd, 3, 4, 8, -3\n@Marker, Time\nMarker, 5\n",
    );
    let got: Vec<(u32, Option<i64>)> = doc.events.iter().map(|e| (e.category, e.payload)).collect();
    assert_eq!(got, [(7, Some(16)), (8, Some(-3)), (8, Some(-3))]);
}

#[test]
fn markers_push_pop_and_start_end_ranges() {
    let doc = clean(
        "TimeBase = Manual\n@Marker, Time, Message\n@RangePush, Time, Message\n\
         @RangePop, Time\n@RangeStartEnd, Start, End, Message\nRangePush, 10, outer\n\
         Marker, 15, m\nRangePush, 20, inner\nRangePop, 30\nRangePop, 40\n\
         RangeStartEnd, 12, 18, r\n",
    );
    let got: Vec<(EventKind, i64, i64, u32, &str)> = doc
        .events
        .iter()
        .map(|e| (e.kind, e.start, e.end, e.depth, doc.message(e)))
        .collect();
    assert_eq!(
        got,
        [
            (EventKind::PushPop, 10, 40, 0, "outer"),
            (EventKind::Marker, 15, 15, 0, "m"),
            (EventKind::PushPop, 20, 30, 1, "inner"),
            (EventKind::Range, 12, 18, 0, "r"),
        ]
    );
    assert_eq!(doc.last_timestamp, Some(40));
}

#[test]
fn push_pop_nests_per_process_and_thread() {
    let doc = parse(
        "TimeBase = Manual\n@RangePush, Time, ProcessId, ThreadId, Message\n\
         @RangePop, Time, ProcessId, ThreadId\nRangePush, 10, 1, 1, a\nRangePush, 11, 1, 2, b\n\
         RangePush, 12, 1, 1, c\nRangePush, 12, 2, 1, c2\nRangePop, 13, 1, 1\n\
         RangePop, 14, 1, 2\nRangePop, 15, 1, 2\nRangePush, 16, 1, 3, d\nRangePush, 17, 1, 3, e\n\
         RangePop, 40, 2, 1\nRangePop, 41, 1, 1\n",
    );
    let got: Vec<(&str, u32, u32, u32, i64, bool)> = doc
        .events
        .iter()
        .map(|e| (doc.message(e), e.pid, e.tid, e.depth, e.end, e.open))
        .collect();
    assert_eq!(
        got,
        [
            ("a", 1, 1, 0, 41, false),
            ("b", 1, 2, 0, 14, false),
            ("c", 1, 1, 1, 13, false),
            ("c2", 2, 1, 0, 40, false),
            ("d", 1, 3, 0, 41, true),
            ("e", 1, 3, 1, 41, true),
        ]
    );
    // The pop with nothing open on (1, 2) and the two pushes never popped are warnings.
    let diagnostics: Vec<(u32, Severity, ErrorClass)> = doc
        .diagnostics
        .iter()
        .map(|d| (d.line(), d.severity(), d.class))
        .collect();
    assert_eq!(
        diagnostics,
        [
            (10, Severity::Warning, ErrorClass::Loading),
            (11, Severity::Warning, ErrorClass::Loading),
            (12, Severity::Warning, ErrorClass::Loading),
        ]
    );
}

#[test]
fn start_not_before_end_skips_the_range_with_a_warning() {
    let doc = parse(
        "TimeBase = Manual\n@RangeStartEnd, Start, End\nRangeStartEnd, 20, 10\n\
         RangeStartEnd, 10, 10\nRangeStartEnd, 10, 30\n",
    );
    assert_eq!(only_event(&doc).start, 10);
    assert_eq!(doc.diagnostics.len(), 2);
    assert!(
        doc.diagnostics
            .iter()
            .all(|d| d.severity() == Severity::Warning && d.class == ErrorClass::Loading)
    );
}

#[test]
fn parameter_range_limits() {
    let ok = clean(
        "TimeBase = Manual\nProcessId = 16777215\nThreadId = 0\nCategoryId = 4294967295\n\
         ParentCategoryId = 4294967295\nTime = 0\nStart = 9223372036854775807\n",
    );
    assert!(ok.events.is_empty());
    for bad in [
        "ProcessId = 16777216",
        "ThreadId = -1",
        "CategoryId = 4294967296",
        "ParentCategoryId = -1",
        "Time = -1",
        "Start = -5",
        "End = -0x1",
        "Time = \"5\"",
        "Message = 5",
        "Name = 7",
        "Payload = x",
        "TimeBase = 1",
        "TimeBase = manual",
    ] {
        let doc = parse(bad);
        assert_eq!(doc.diagnostics.len(), 1, "{bad}");
        assert!(doc.diagnostics[0].is_error(), "{bad}");
    }
}

#[test]
fn expansion_reads_the_assigned_value_not_the_last_call() {
    // NVIDIA's importer: a value passed by a call changes the next events, but `$Name` still
    // expands to the value last assigned with `Name = value`.
    let doc = clean(
        "TimeBase = Manual\nThreadId = 12\nColor = Crimson\n@Marker, Time, ThreadId, Color\n\
         Marker, 1, 34, Red\nMarker, 2, $ThreadId, $Color\n@Marker, Time\nMarker, 3\n",
    );
    let got: Vec<(u32, u32)> = doc.events.iter().map(|e| (e.tid, e.color_argb)).collect();
    assert_eq!(
        got,
        [(34, 0xFFFF_0000), (12, 0xFFDC_143C), (12, 0xFFDC_143C)]
    );
}
