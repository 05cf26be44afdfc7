//! Rule-message markup: `@section:`/`@url:`/`@source:` links and styled spans, parsed once
//! ([`parse_markup`]) and drawn ([`span_ui`]).

use super::*;

/// One piece of a rule message after its link markup is parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    /// Plain text.
    Text(String),
    /// `@url:TEXT:LINK@`: a hyperlink.
    Url {
        /// The text shown.
        text: String,
        /// The link target (may contain `:`).
        link: String,
    },
    /// `@section:ID:TEXT@`: a link to another section of the page.
    Section {
        /// The section identifier.
        id: String,
        /// The text shown.
        text: String,
    },
    /// `@sass:ADDRESS:TEXT@`: a reference to a SASS instruction.
    Sass {
        /// The instruction address.
        address: String,
        /// The text shown.
        text: String,
    },
    /// `@source:FILE:LINE:TEXT@`: a reference to a source line.
    Source {
        /// The source file.
        file: String,
        /// The line number.
        line: u32,
        /// The text shown.
        text: String,
    },
}

/// Parses the link markup of a rule message into spans.
///
/// Recognized markup: `@url:TEXT:LINK@` (TEXT ends at the first `:`, LINK may contain `:`; a
/// bare `@url:https://…@` is a link showing itself), `@section:ID:TEXT@`, `@sass:ADDRESS:TEXT@`
/// and `@source:FILE:LINE:TEXT@` (the text may be left out: `@section:ID@` shows ID). Anything
/// else — a literal `@`, an unknown tag, an unclosed `@…` — stays plain text. Adjacent text is
/// merged into one [`Span::Text`].
pub fn parse_markup(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        literal.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match parse_tag(after) {
            Some((span, consumed)) => {
                if !literal.is_empty() {
                    out.push(Span::Text(std::mem::take(&mut literal)));
                }
                out.push(span);
                rest = &after[consumed..];
            }
            None => {
                literal.push('@');
                rest = after;
            }
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        out.push(Span::Text(literal));
    }
    out
}

/// Parses one markup element starting right after its opening `@`; returns the span and the
/// number of bytes consumed (including the closing `@`).
pub(super) fn parse_tag(s: &str) -> Option<(Span, usize)> {
    let (tag, body_start) = ["url", "section", "sass", "source"]
        .into_iter()
        .find_map(|tag| {
            s.strip_prefix(tag)
                .and_then(|r| r.strip_prefix(':'))
                .map(|_| (tag, tag.len() + 1))
        })?;
    let body_len = s[body_start..].find('@')?;
    let body = &s[body_start..body_start + body_len];
    let consumed = body_start + body_len + 1;
    let or_default = |text: &str, default: &str| {
        if text.is_empty() {
            default.to_owned()
        } else {
            text.to_owned()
        }
    };
    let span = match tag {
        "url" => {
            let (text, link) = match body.split_once(':') {
                // `https://…` with no text: the whole body is the link.
                Some((_, link)) if link.starts_with("//") => (body, body),
                Some((text, link)) => (text, link),
                None => (body, body),
            };
            if link.is_empty() {
                return None;
            }
            Span::Url {
                text: or_default(text, link),
                link: link.to_owned(),
            }
        }
        "section" => {
            let (id, text) = body.split_once(':').unwrap_or((body, ""));
            if id.is_empty() || id.contains(char::is_whitespace) {
                return None;
            }
            Span::Section {
                id: id.to_owned(),
                text: or_default(text, id),
            }
        }
        "sass" => {
            let (address, text) = body.split_once(':').unwrap_or((body, ""));
            if address.is_empty() {
                return None;
            }
            Span::Sass {
                address: address.to_owned(),
                text: or_default(text, address),
            }
        }
        _ => {
            let (file, line, text) = split_source(body)?;
            Span::Source {
                file: file.to_owned(),
                line,
                text: if text.is_empty() {
                    format!("{file}:{line}")
                } else {
                    text.to_owned()
                },
            }
        }
    };
    Some((span, consumed))
}

/// Splits `FILE:LINE:TEXT` (or `FILE:LINE`) at the first `:<digits>:` (or a final `:<digits>`),
/// so that a file name may itself contain `:` (`C:\src\a.cu`).
pub(super) fn split_source(body: &str) -> Option<(&str, u32, &str)> {
    for (colon, _) in body.match_indices(':') {
        if colon == 0 {
            continue;
        }
        let after = &body[colon + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            continue;
        }
        let rest = &after[digits..];
        let text = if rest.is_empty() {
            ""
        } else if let Some(text) = rest.strip_prefix(':') {
            text
        } else {
            continue;
        };
        let line = after[..digits].parse().ok()?;
        return Some((&body[..colon], line, text));
    }
    None
}

pub(super) fn span_ui(ui: &mut Ui, span: &Span, render: &mut Render<'_>) {
    match span {
        Span::Text(text) => {
            ui.label(text.as_str());
        }
        Span::Url { text, link } => {
            ui.hyperlink_to(text.as_str(), link.as_str())
                .on_hover_text(link.as_str());
        }
        Span::Section { id, text } => {
            if render.known.contains(id) {
                let response = ui.link(text.as_str());
                if response.clicked() {
                    render.clicked_section = Some(id.clone());
                }
                response.on_hover_ui(|ui| {
                    ui.label("Go to section");
                    ui.monospace(id.as_str());
                });
            } else {
                ui.label(RichText::new(text.as_str()).italics())
                    .on_hover_ui(|ui| {
                        ui.label("This section is not on the page");
                        ui.monospace(id.as_str());
                    });
            }
        }
        Span::Sass { address, text } => {
            ui.label(RichText::new(text.as_str()).italics().strong())
                .on_hover_ui(|ui| {
                    ui.label("SASS instruction");
                    ui.monospace(address.as_str());
                });
        }
        Span::Source { file, line, text } => {
            ui.label(RichText::new(text.as_str()).italics().strong())
                .on_hover_ui(|ui| {
                    ui.label("Source line");
                    ui.monospace(format!("{file}:{line}"));
                });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The cache: everything derived from one page.
