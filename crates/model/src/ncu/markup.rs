//! Rule-message markup (`@url:`, `@section:`, `@sass:`, `@source:`), parsed into spans.
//!
//! The GUI draws the spans as links; the CLI's CSV pages print them as text ([`plain`]).

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
/// and `@source:FILE:LINE:TEXT@` (the text may be left out: `@section:ID@` shows ID); the old
/// `@source:ADDRESS:TEXT@` (hex address, 2020.2 reports) is read as a [`Span::Sass`]. Anything
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
fn parse_tag(s: &str) -> Option<(Span, usize)> {
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
            let Some((file, line, text)) = split_source(body) else {
                // Old reports (2020.2) write `@source:ADDRESS:TEXT@` with a hex address
                // (`@source:b00bbca40:0xb00bbca40@`): a reference to an instruction.
                let (address, text) = body.split_once(':')?;
                if address.is_empty() || !address.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                return Some((
                    Span::Sass {
                        address: address.to_owned(),
                        text: or_default(text, address),
                    },
                    consumed,
                ));
            };
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
fn split_source(body: &str) -> Option<(&str, u32, &str)> {
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

/// A rule message as `ncu --import` prints it: `@url:TEXT:LINK@` becomes `TEXT (LINK)`, the
/// other links their text (`@source:ADDRESS:TEXT@` of old reports included).
pub fn plain(text: &str) -> String {
    let mut out = String::new();
    for span in parse_markup(text) {
        match span {
            Span::Text(t) => out.push_str(&t),
            Span::Url { text, link } if text == link => out.push_str(&link),
            Span::Url { text, link } => {
                out.push_str(&text);
                out.push_str(" (");
                out.push_str(&link);
                out.push(')');
            }
            Span::Section { text, .. } | Span::Sass { text, .. } | Span::Source { text, .. } => {
                out.push_str(&text)
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn plain_text_as_the_cli_prints_it() {
        assert_eq!(
            plain(
                "See the @url:Guide:https://x.org/a#b@ and @section:SchedulerStats:Scheduler Statistics@."
            ),
            "See the Guide (https://x.org/a#b) and Scheduler Statistics."
        );
        assert_eq!(
            plain("at PC @source:b00bbca40:0xb00bbca40@ at f.h:634"),
            "at PC 0xb00bbca40 at f.h:634"
        );
        assert_eq!(
            plain("a @sass:0x10:LDG@ b @source:C:/a.cu:12:line 12@"),
            "a LDG b line 12"
        );
        assert_eq!(
            plain("literal @ and @unknown:x@"),
            "literal @ and @unknown:x@"
        );
    }
}
