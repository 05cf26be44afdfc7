//! NVTXT errors a person can fix: every problem has its line, column, severity and class
//! (lexing, parsing, loading); a bad line is skipped and every good line still loads.

use sightline::timeline::nvtxt::{self, ErrorClass, NvtxtDocument, Severity};

fn parse(text: &str) -> NvtxtDocument {
    nvtxt::parse("errors.nvtxt", text.as_bytes())
}

/// (line, column, severity, class) of each diagnostic.
fn positions(doc: &NvtxtDocument) -> Vec<(u32, u32, Severity, ErrorClass)> {
    doc.diagnostics
        .iter()
        .map(|d| (d.line(), d.column(), d.severity(), d.class))
        .collect()
}

/// The single diagnostic of `text`, as (line, column, severity, class, message).
fn single(text: &str) -> (u32, u32, Severity, ErrorClass, String) {
    let doc = parse(text);
    assert_eq!(doc.diagnostics.len(), 1, "{:#?}", doc.diagnostics);
    let d = &doc.diagnostics[0];
    (
        d.line(),
        d.column(),
        d.severity(),
        d.class,
        d.message().to_string(),
    )
}

const HEAD: &str = "TimeBase = Manual\n@Marker, Time, Message\n";

use ErrorClass::{Lexing, Loading, Parsing};
use Severity::{Error, Warning};

#[test]
fn lexing_errors_at_the_offending_token() {
    let cases: &[(&str, u32, &str)] = &[
        ("Marker, 12abc, a", 9, "invalid integer `12abc`"),
        ("Marker, 0009, a", 9, "octal"),
        ("Marker, 08, a", 9, "octal"),
        ("Marker, 0x, a", 9, "no digits"),
        ("Payload = -0x10", 11, "cannot be negative"),
        ("Marker, 9223372036854775808, a", 9, "out of range"),
        ("Marker, 1_000, a", 9, "invalid integer"),
        ("Marker, 1.5, a", 9, "invalid integer"),
        ("Marker, 1e3, a", 9, "invalid integer"),
        ("Marker, 0b101, a", 9, "invalid integer"),
        ("Marker, +5, a", 9, "invalid value `+5`"),
        ("Marker, 10, \"abc", 13, "unterminated string"),
        ("Marker, 10, 'abc\"", 13, "unterminated string"),
        (
            "Marker, 10, $Undefined",
            13,
            "undefined variable `$Undefined`",
        ),
        ("Marker, 10, ${Message}", 13, "`${Name}` is not NVTXT"),
        ("Marker, 10, héllo", 13, "invalid value `héllo`"),
        ("Marker, 10, a.b", 13, "invalid value `a.b`"),
        ("@ Marker, Time", 2, "followed directly by a command name"),
        ("Marker, 10,\ra", 12, "carriage return"),
    ];
    for &(line, column, message) in cases {
        let (l, c, severity, class, text) = single(&format!("{HEAD}{line}\n"));
        assert_eq!(
            (l, c, severity, class),
            (3, column, Error, Lexing),
            "{line}: {text}"
        );
        assert!(text.contains(message), "{line}: {text}");
    }
}

#[test]
fn parsing_errors_at_the_offending_token() {
    let cases: &[(&str, u32, &str)] = &[
        ("= 5", 1, "a line holds an assignment"),
        ("42, a", 1, "a line holds an assignment"),
        ("\"Marker\", 1, a", 1, "a line holds an assignment"),
        ("Message =", 9, "expected a value after `=`"),
        ("Message = \"a\" b", 15, "an assignment takes one value"),
        ("Message = a b", 13, "an assignment takes one value"),
        ("Marker, 10 a", 12, "separated by commas"),
        ("Marker 10, a", 8, "expected `,` or `=` after the name"),
        ("Marker, , a", 9, "missing value"),
        ("Marker, 10, a,,", 15, "missing value"),
        ("Marker, 10, =", 13, "expected a value"),
        (
            "Marker, 10",
            1,
            "Marker takes 2 value(s) (Time, Message: its format at line 2), got 1",
        ),
        ("Marker, 10, a, b", 16, "got 3"),
        (
            "Marker, \"10\", a",
            9,
            "Time takes an integer, not a string",
        ),
        (
            "Marker, 10, 5",
            13,
            "Message takes a string, not an integer",
        ),
        ("Marker, -1, a", 9, "Time cannot be negative"),
        (
            "ProcessId = 16777216",
            13,
            "ProcessId must be between 0 and 16777215",
        ),
        (
            "ThreadId = 16777216",
            12,
            "ThreadId must be between 0 and 16777215",
        ),
        (
            "CategoryId = 4294967296",
            14,
            "CategoryId must be between 0 and 4294967295",
        ),
        ("TimeBase = Fast", 12, "TimeBase must be one of"),
        ("RangePush, 1, a", 1, "RangePush has no format"),
        ("@Marker, Time, Foo", 16, "`Foo` is not a parameter"),
        ("@Marker, Time Message", 15, "separated by commas"),
        ("@Marker", 1, "a format needs at least one parameter"),
        ("NameProcess, 1", 1, "NameProcess takes 2 value(s)"),
        (
            "NameOsThread, 1, 16777216, t",
            18,
            "ThreadId must be between",
        ),
        ("SetFileDisplayName, 5", 21, "Name takes a string"),
    ];
    for &(line, column, message) in cases {
        let (l, c, severity, class, text) = single(&format!("{HEAD}{line}\n"));
        assert_eq!(
            (l, c, severity, class),
            (3, column, Error, Parsing),
            "{line}: {text}"
        );
        assert!(text.contains(message), "{line}: {text}");
    }
}

#[test]
fn time_base_must_be_set_before_the_first_event() {
    let (l, c, severity, class, text) = single("@Marker, Time\n  Marker, 10\n");
    assert_eq!((l, c, severity, class), (2, 3, Error, Parsing));
    assert!(text.contains("TimeBase is not set"), "{text}");
    // A call that passes TimeBase itself is fine.
    assert!(
        parse("@Marker, Time, TimeBase\nMarker, 10, Manual\n")
            .diagnostics
            .is_empty()
    );
}

#[test]
fn calls_of_a_broken_format_are_errors_until_it_is_redefined() {
    let doc = parse(&format!(
        "{HEAD}Marker, 1, ok\n@Marker, Time, Colour\nMarker, 2, Red\n@Marker, Time\nMarker, 3\n"
    ));
    assert_eq!(
        positions(&doc),
        [(4, 16, Error, Parsing), (5, 1, Error, Parsing)]
    );
    assert!(
        doc.diagnostics[1]
            .message()
            .contains("format of Marker at line 4 has errors")
    );
    let times: Vec<i64> = doc.events.iter().map(|e| e.start).collect();
    assert_eq!(times, [1, 3]);
}

#[test]
fn importer_warnings_are_warnings() {
    let doc = parse(
        "TimeBase = Manual\n@Marker, Time, Color\nMarker, 1, blue\nFoo, 1, 2\n@Bar, Time\n\
         Bar, 5\n@RangePop, Time\nRangePop, 3\n@RangeStartEnd, Start, End\n\
         RangeStartEnd, 5, 5\n@Marker, Time, Time\n@NameProcess, ProcessId, Name\n",
    );
    assert_eq!(
        positions(&doc),
        [
            (3, 12, Warning, Parsing),  // unknown colour (case-sensitive)
            (4, 1, Warning, Parsing),   // unknown command
            (5, 2, Warning, Parsing),   // a format for an unknown command
            (6, 1, Warning, Parsing),   // its call
            (8, 1, Warning, Loading),   // a pop with nothing open
            (10, 1, Warning, Loading),  // Start >= End
            (11, 16, Warning, Parsing), // a parameter twice in a format
            (12, 2, Warning, Parsing),  // a format for a built-in command
        ]
    );
    assert!(doc.diagnostics[0].message().contains("`Blue`?"));
    assert!(!doc.has_errors());
    // The marker with the unknown colour still loads, with the default colour.
    assert_eq!(doc.events.len(), 1);
    assert_eq!(doc.events[0].color_argb, 0xFF00_0000);
}

#[test]
fn loading_problems_have_their_lines() {
    let doc = parse(
        "TimeBase = Manual\n@RangePush, Time, ThreadId, Message\n@RangePop, Time, ThreadId\n\
         @Marker, Time\nRangePush, 100, 1, a\nRangePop, 50, 1\n  RangePush, 200, 2, open\n\
         Marker, 300\nRangePop, 1, 3\n",
    );
    assert_eq!(
        positions(&doc),
        [
            (6, 1, Error, Loading),   // the pop is before its push
            (7, 3, Warning, Loading), // never popped: open to the last timestamp
            (9, 1, Warning, Loading), // nothing open on thread 3
        ]
    );
    let open = &doc.events[1];
    assert!(open.open);
    assert_eq!((open.start, open.end), (200, 300));
    assert!(doc.diagnostics[1].message().contains("last timestamp 300"));
}

#[test]
fn a_bad_line_is_skipped_and_every_good_line_loads() {
    let doc = parse(
        "TimeBase = Manual\n@Marker, Time, ThreadId, Message\nMarker, 1, 1, one\n\
         Marker, 2, 16777216, bad-tid\nMarker, 3, $Nope, bad-var\nMarker, 4, 2, \"unterminated\n\
         Marker, 5, 3, five\nThreadId = -4\nMarker, 6, 4, six\n",
    );
    let got: Vec<(i64, u32, &str)> = doc
        .events
        .iter()
        .map(|e| (e.start, e.tid, doc.message(e)))
        .collect();
    assert_eq!(got, [(1, 1, "one"), (5, 3, "five"), (6, 4, "six")]);
    assert_eq!(
        positions(&doc),
        [
            (4, 12, Error, Parsing),
            (5, 12, Error, Lexing),
            (6, 15, Error, Lexing),
            (8, 12, Error, Parsing),
        ]
    );
    // The skipped line assigned nothing: ThreadId 16777216 and Time 2 never took effect.
    assert!(doc.has_errors());
}

#[test]
fn a_skipped_call_assigns_nothing() {
    let doc = parse(
        "TimeBase = Manual\n@Marker, Time, ThreadId, Message\nMarker, 1, 1, a\n\
         Marker, 2, 5, 7\n@Marker, Time\nMarker, 3\n",
    );
    let got: Vec<(i64, u32)> = doc.events.iter().map(|e| (e.start, e.tid)).collect();
    assert_eq!(got, [(1, 1), (3, 1)]);
}

#[test]
fn diagnostics_display_with_path_line_column_severity_class() {
    let doc = parse(&format!("{HEAD}Marker, 0009, a\nMarker, 1, blue\n"));
    let lines: Vec<String> = doc.diagnostic_lines().collect();
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with("errors.nvtxt:3:9: error: lexing: invalid octal integer `0009`"),
        "{}",
        lines[0]
    );
    let doc = parse("TimeBase = Manual\n@Marker, Time, Color\nMarker, 1, blue\n");
    let line = doc.diagnostic_lines().next().unwrap();
    assert!(
        line.starts_with("errors.nvtxt:3:12: warning: parsing: unknown colour `blue`"),
        "{line}"
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let (l, c, ..) = single(&format!("{HEAD}Marker, 1, \"é✓\"  , 0009\n"));
    assert_eq!((l, c), (3, 20));
}

#[test]
fn diagnostics_are_sorted_by_position() {
    let doc = parse(
        "TimeBase = Manual\n@RangePush, Time\nRangePush, 1\nX = $Y\n@RangePop, Time\nRangePop, 2\n\
         RangePop, 3\n",
    );
    let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line()).collect();
    assert_eq!(lines, [4, 7]);
}

#[test]
fn garbage_never_panics_and_keeps_good_lines() {
    let mut text = String::from(HEAD);
    for junk in [
        "\u{0}\u{1}\u{7f}",
        "@@@@",
        "$",
        "$$X",
        "\"",
        "'",
        ",,,,",
        "====",
        "@Foo,",
        "Marker,",
        "-",
        "--5",
        "0x-1",
        "\u{feff}Marker, 1, a",
    ] {
        text.push_str(junk);
        text.push('\n');
    }
    text.push_str("Marker, 99, survivor\n");
    let doc = parse(&text);
    assert_eq!(doc.events.len(), 1);
    assert_eq!(doc.message(&doc.events[0]), "survivor");
    assert_eq!(doc.diagnostics.len(), 14, "{:#?}", doc.diagnostics);
    // Invalid UTF-8 in a message is replaced, never fatal.
    let doc = nvtxt::parse(
        "x.nvtxt",
        b"TimeBase = Manual\n@Marker, Time, Message\nMarker, 1, \"\xff\xfe\"\n",
    );
    assert_eq!(doc.message(&doc.events[0]), "\u{fffd}\u{fffd}");
}

#[test]
fn many_problems_on_one_line_have_their_own_columns() {
    let n = 300;
    let format = format!("@Marker, Time{}", ", Color".repeat(n));
    let call = format!("Marker, 1{}", ", nope".repeat(n));
    let doc = parse(&format!("TimeBase = Manual\n{format}\n{call}\n"));
    let on = |line: u32| -> Vec<u32> {
        doc.diagnostics
            .iter()
            .filter(|d| d.line() == line && d.severity() == Warning)
            .map(|d| d.column())
            .collect()
    };
    // The format: every `Color` after the first is a repeat (columns 23, 30, ...).
    let expected: Vec<u32> = (1..n as u32).map(|i| 16 + 7 * i).collect();
    assert_eq!(on(2), expected);
    // The call: every value is an unknown colour (columns 12, 18, ...).
    let expected: Vec<u32> = (0..n as u32).map(|i| 12 + 6 * i).collect();
    assert_eq!(on(3), expected);
    assert_eq!(doc.events.len(), 1);
}
