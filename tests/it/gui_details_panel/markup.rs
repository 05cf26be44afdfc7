//! Link markup of rule messages, parsed into spans.

use super::*;

fn text(s: &str) -> Span {
    Span::Text(s.to_owned())
}

#[test]
fn markup_plain_text_is_one_span() {
    assert_eq!(parse_markup("No issues."), vec![text("No issues.")]);
    assert_eq!(parse_markup(""), Vec::<Span>::new());
}

#[test]
fn markup_url_link_may_contain_colons() {
    assert_eq!(
        parse_markup(
            "See the @url:CUDA Best Practices Guide:https://docs.nvidia.com/cuda/index.html#occupancy@."
        ),
        vec![
            text("See the "),
            Span::Url {
                text: "CUDA Best Practices Guide".to_owned(),
                link: "https://docs.nvidia.com/cuda/index.html#occupancy".to_owned(),
            },
            text("."),
        ]
    );
    // A bare URL shows itself.
    assert_eq!(
        parse_markup("@url:https://example.com:8080/x@"),
        vec![Span::Url {
            text: "https://example.com:8080/x".to_owned(),
            link: "https://example.com:8080/x".to_owned(),
        }]
    );
}

#[test]
fn markup_section_sass_and_source() {
    assert_eq!(
        parse_markup("Look at @section:MemoryWorkloadAnalysis:Memory Workload Analysis@ now"),
        vec![
            text("Look at "),
            Span::Section {
                id: "MemoryWorkloadAnalysis".to_owned(),
                text: "Memory Workload Analysis".to_owned(),
            },
            text(" now"),
        ]
    );
    assert_eq!(
        parse_markup("@section:Occupancy@"),
        vec![Span::Section {
            id: "Occupancy".to_owned(),
            text: "Occupancy".to_owned(),
        }]
    );
    assert_eq!(
        parse_markup("at @sass:0x7f12a0:LDG.E.64@"),
        vec![
            text("at "),
            Span::Sass {
                address: "0x7f12a0".to_owned(),
                text: "LDG.E.64".to_owned(),
            },
        ]
    );
    assert_eq!(
        parse_markup("@source:C:\\src\\kernel.cu:42:this load: slow@"),
        vec![Span::Source {
            file: "C:\\src\\kernel.cu".to_owned(),
            line: 42,
            text: "this load: slow".to_owned(),
        }]
    );
    assert_eq!(
        parse_markup("@source:/a/b.cu:7@"),
        vec![Span::Source {
            file: "/a/b.cu".to_owned(),
            line: 7,
            text: "/a/b.cu:7".to_owned(),
        }]
    );
}

#[test]
fn markup_adjacent_elements() {
    assert_eq!(
        parse_markup("@section:A:a@@section:B:b@"),
        vec![
            Span::Section {
                id: "A".to_owned(),
                text: "a".to_owned(),
            },
            Span::Section {
                id: "B".to_owned(),
                text: "b".to_owned(),
            },
        ]
    );
}

#[test]
fn markup_literal_and_unclosed_at_signs_stay_text() {
    assert_eq!(
        parse_markup("50 @ 3 GHz, mail me@example.com"),
        vec![text("50 @ 3 GHz, mail me@example.com")]
    );
    assert_eq!(
        parse_markup("broken @url:x:https://y.com"),
        vec![text("broken @url:x:https://y.com")]
    );
    assert_eq!(parse_markup("trailing @"), vec![text("trailing @")]);
    // Unknown tags and malformed elements are text; what follows still parses.
    assert_eq!(
        parse_markup("@unknown:x@ then @section:Has Space:t@ and @section:Ok:fine@"),
        vec![
            text("@unknown:x@ then @section:Has Space:t@ and "),
            Span::Section {
                id: "Ok".to_owned(),
                text: "fine".to_owned(),
            },
        ]
    );
    assert_eq!(
        parse_markup("@source:file.cu:notaline:text@"),
        vec![text("@source:file.cu:notaline:text@")]
    );
    assert_eq!(parse_markup("@url:@"), vec![text("@url:@")]);
    // Non-ASCII text around markup.
    assert_eq!(
        parse_markup("→ @section:S:Größe@ ✓"),
        vec![
            text("→ "),
            Span::Section {
                id: "S".to_owned(),
                text: "Größe".to_owned(),
            },
            text(" ✓"),
        ]
    );
}
