//! The text-format parser: fields by the schema, nested messages and lists, tolerant of
//! unknown fields and enum values, with a diagnostic at each problem's token.

use super::*;

// ---------------------------------------------------------------------------------------------
// Parser

/// A syntax error was reported; parsing stops.
pub(super) struct Fatal;

/// Which fields of one message (by index in [`MessageInfo::fields`]) were seen.
#[derive(Default)]
pub(super) struct FieldSet {
    pub(super) bits: u64,
    pub(super) extra: Vec<usize>,
}

impl FieldSet {
    pub(super) fn insert(&mut self, i: usize) {
        if i < 64 {
            self.bits |= 1 << i;
        } else if !self.extra.contains(&i) {
            self.extra.push(i);
        }
    }

    pub(super) fn contains(&self, i: usize) -> bool {
        if i < 64 {
            self.bits & (1 << i) != 0
        } else {
            self.extra.contains(&i)
        }
    }
}

/// Per-message parse state.
#[derive(Default)]
pub(super) struct MessageState {
    /// Fields with a value written.
    pub(super) present: FieldSet,
    /// Fields written in the text whose value was diagnosed and dropped.
    pub(super) attempted: FieldSet,
}

pub(super) struct Parser<'a> {
    pub(super) schema: &'static Schema,
    pub(super) lexer: Lexer<'a>,
    pub(super) peeked: Option<Token>,
    pub(super) diagnostics: Vec<RawDiagnostic>,
    pub(super) has_error: bool,
}

pub(super) fn closer_of(open: u8) -> u8 {
    match open {
        b'{' => b'}',
        b'<' => b'>',
        _ => b']',
    }
}

pub(super) fn opener_of(close: u8) -> u8 {
    match close {
        b'}' => b'{',
        b'>' => b'<',
        _ => b'[',
    }
}

/// Parses an unsigned integer literal (decimal, `0x` hex, `0` octal).
pub(super) fn parse_u64(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(oct) = text.strip_prefix('0').filter(|s| !s.is_empty()) {
        u64::from_str_radix(oct, 8).ok()
    } else {
        text.parse().ok()
    }
}

/// Range-checks an integer for a field kind.
pub(super) fn int_scalar(kind: FieldKind, negative: bool, magnitude: u64) -> Option<Scalar> {
    let signed = if negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    match kind {
        FieldKind::Int32 | FieldKind::Sint32 | FieldKind::Sfixed32 | FieldKind::Enum(_) => {
            i32::try_from(signed)
                .ok()
                .map(|v| Scalar::Signed(i64::from(v)))
        }
        FieldKind::Int64 | FieldKind::Sint64 | FieldKind::Sfixed64 => {
            i64::try_from(signed).ok().map(Scalar::Signed)
        }
        FieldKind::Uint32 | FieldKind::Fixed32 if !negative => u32::try_from(magnitude)
            .ok()
            .map(|v| Scalar::Unsigned(u64::from(v))),
        FieldKind::Uint64 | FieldKind::Fixed64 if !negative => Some(Scalar::Unsigned(magnitude)),
        _ => None,
    }
}

pub(super) fn float_keyword(name: &str) -> Option<f64> {
    if name.eq_ignore_ascii_case("inf") || name.eq_ignore_ascii_case("infinity") {
        Some(f64::INFINITY)
    } else if name.eq_ignore_ascii_case("nan") {
        Some(f64::NAN)
    } else {
        None
    }
}

impl<'a> Parser<'a> {
    pub(super) fn column(&self, pos: Pos) -> usize {
        self.lexer
            .text
            .get(pos.line_start as usize..pos.at as usize)
            .map_or(1, |s| s.chars().count() + 1)
    }

    pub(super) fn push(&mut self, pos: Pos, severity: Severity, message: String) {
        if severity == Severity::Error {
            self.has_error = true;
        }
        self.diagnostics.push(RawDiagnostic {
            pos,
            severity,
            message,
        });
    }

    pub(super) fn error(&mut self, pos: Pos, message: String) {
        self.push(pos, Severity::Error, message);
    }

    pub(super) fn warn(&mut self, pos: Pos, message: String) {
        self.push(pos, Severity::Warning, message);
    }

    pub(super) fn fatal(&mut self, pos: Pos, message: String) -> Fatal {
        self.error(pos, message);
        Fatal
    }

    pub(super) fn next(&mut self) -> Result<Token, Fatal> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self
                .lexer
                .next_token()
                .map_err(|e| self.fatal(e.pos, e.message)),
        }
    }

    pub(super) fn peek(&mut self) -> Result<Token, Fatal> {
        match self.peeked {
            Some(t) => Ok(t),
            None => {
                let t = self.next()?;
                self.peeked = Some(t);
                Ok(t)
            }
        }
    }

    pub(super) fn describe(&self, t: &Token) -> String {
        self.lexer.describe(t)
    }

    pub(super) fn unexpected_eof(&mut self, pos: Pos, close: u8, open_pos: Pos) -> Fatal {
        let open_col = self.column(open_pos);
        self.fatal(
            pos,
            format!(
                "unexpected end of input: expected '{}' to close '{}' at {}:{open_col}",
                char::from(close),
                char::from(opener_of(close)),
                open_pos.line,
            ),
        )
    }

    pub(super) fn check_depth(&mut self, depth: usize, pos: Pos) -> Result<(), Fatal> {
        if depth > MAX_DEPTH {
            Err(self.fatal(pos, format!("nesting deeper than {MAX_DEPTH} levels")))
        } else {
            Ok(())
        }
    }

    /// Consumes an optional `,` or `;` after a field.
    pub(super) fn separator(&mut self) -> Result<(), Fatal> {
        if matches!(self.peek()?.kind, TokKind::Punct(b',' | b';')) {
            self.peeked = None;
        }
        Ok(())
    }

    /// Parses the fields of message `msg` into `buf` up to the closing delimiter `close` (or
    /// the end of input for the top level), then checks required fields, reporting them at
    /// `start`.
    pub(super) fn parse_fields(
        &mut self,
        msg: usize,
        buf: &mut Vec<u8>,
        close: Option<(u8, Pos)>,
        start: Pos,
        depth: usize,
    ) -> Result<(), Fatal> {
        let schema = self.schema;
        let Some(info) = schema.messages.get(msg) else {
            return Err(self.fatal(start, "internal error: bad message index".to_owned()));
        };
        let mut state = MessageState::default();
        loop {
            let tok = self.next()?;
            match tok.kind {
                TokKind::Eof => match close {
                    Some((c, open_pos)) => return Err(self.unexpected_eof(tok.pos, c, open_pos)),
                    None => break,
                },
                TokKind::Punct(c) if close.is_some_and(|(cl, _)| cl == c) => break,
                TokKind::Ident => {
                    let name = self.lexer.text_of(&tok);
                    match info.field(name) {
                        Some(index) => self.parse_field(info, index, buf, &mut state, depth)?,
                        None => {
                            self.warn(
                                tok.pos,
                                format!("unknown field `{name}` in `{}` (skipped)", info.full_name),
                            );
                            self.skip_field_value(depth)?;
                        }
                    }
                }
                TokKind::Punct(b'[') => {
                    let name = self.extension_name()?;
                    self.warn(
                        tok.pos,
                        format!(
                            "unsupported extension field `[{name}]` in `{}` (skipped)",
                            info.full_name
                        ),
                    );
                    self.skip_field_value(depth)?;
                }
                _ => {
                    let expected = match close {
                        Some((c, _)) => format!("field name or '{}'", char::from(c)),
                        None => "field name".to_owned(),
                    };
                    let found = self.describe(&tok);
                    return Err(self.fatal(tok.pos, format!("expected {expected}, found {found}")));
                }
            }
            self.separator()?;
        }
        for (i, f) in info.fields.iter().enumerate() {
            if f.required && !state.present.contains(i) && !state.attempted.contains(i) {
                self.error(
                    start,
                    format!(
                        "missing required field `{}` in `{}`",
                        f.name, info.full_name
                    ),
                );
            }
        }
        Ok(())
    }

    /// After `[`: an extension or `Any` type name, through the closing `]`.
    pub(super) fn extension_name(&mut self) -> Result<String, Fatal> {
        let mut name = String::new();
        loop {
            let tok = self.next()?;
            match tok.kind {
                TokKind::Ident => name.push_str(self.lexer.text_of(&tok)),
                TokKind::Punct(c @ (b'.' | b'/')) if !name.is_empty() => name.push(char::from(c)),
                TokKind::Punct(b']') if !name.is_empty() => return Ok(name),
                _ => {
                    let found = self.describe(&tok);
                    return Err(self.fatal(
                        tok.pos,
                        format!("expected extension name or ']', found {found}"),
                    ));
                }
            }
        }
    }

    /// Parses the value(s) of a known field (its name was consumed).
    pub(super) fn parse_field(
        &mut self,
        info: &'static MessageInfo,
        index: usize,
        buf: &mut Vec<u8>,
        state: &mut MessageState,
        depth: usize,
    ) -> Result<(), Fatal> {
        let Some(field) = info.fields.get(index) else {
            return Ok(());
        };
        let mut next = self.peek()?;
        if next.kind == TokKind::Punct(b':') {
            self.peeked = None;
            next = self.peek()?;
        } else if !matches!(next.kind, TokKind::Punct(b'{' | b'<' | b'[')) {
            let found = self.describe(&next);
            let expected = if matches!(field.kind, FieldKind::Message(_)) {
                "'{' or ':'"
            } else {
                "':'"
            };
            return Err(self.fatal(
                next.pos,
                format!(
                    "expected {expected} after field name `{}`, found {found}",
                    field.name
                ),
            ));
        }
        let stored = if next.kind == TokKind::Punct(b'[') {
            self.parse_list(info, field, buf, depth)?
        } else {
            if !field.repeated {
                self.check_singular(info, field, index, state, next.pos);
            }
            self.parse_value(field, buf, depth)?
        };
        if stored {
            state.present.insert(index);
        } else {
            state.attempted.insert(index);
        }
        Ok(())
    }

    /// Warns when a singular field, or another member of its oneof, already has a value.
    pub(super) fn check_singular(
        &mut self,
        info: &MessageInfo,
        field: &FieldInfo,
        index: usize,
        state: &MessageState,
        pos: Pos,
    ) {
        if state.present.contains(index) {
            let outcome = if matches!(field.kind, FieldKind::Message(_)) {
                "the blocks are merged"
            } else {
                "the last value is used"
            };
            self.warn(
                pos,
                format!("field `{}` is given more than once; {outcome}", field.name),
            );
            return;
        }
        let Some(oneof) = field.oneof else {
            return;
        };
        let other = info
            .fields
            .iter()
            .enumerate()
            .find(|(i, f)| *i != index && f.oneof == Some(oneof) && state.present.contains(*i));
        if let Some((_, other)) = other {
            let oneof_name = info.oneofs.get(oneof).map_or("", String::as_str);
            self.warn(
                pos,
                format!(
                    "field `{}` replaces `{}` (both are in oneof `{oneof_name}`)",
                    field.name, other.name
                ),
            );
        }
    }

    /// Parses one value of `field` (a message block or a scalar) and encodes it into `buf`.
    /// Returns whether a value was written (`false` when it was diagnosed and dropped).
    pub(super) fn parse_value(
        &mut self,
        field: &FieldInfo,
        buf: &mut Vec<u8>,
        depth: usize,
    ) -> Result<bool, Fatal> {
        let FieldKind::Message(m) = field.kind else {
            return self.parse_scalar(field, buf, depth);
        };
        let open = self.peek()?;
        let TokKind::Punct(open_char @ (b'{' | b'<')) = open.kind else {
            self.mismatch(field, &open);
            return self.skip_value(depth).map(|()| false);
        };
        self.peeked = None;
        self.check_depth(depth + 1, open.pos)?;
        let close = Some((closer_of(open_char), open.pos));
        if field.group {
            put_tag(buf, field.number, WT_START_GROUP);
            self.parse_fields(m, buf, close, open.pos, depth + 1)?;
            put_tag(buf, field.number, WT_END_GROUP);
        } else {
            put_tag(buf, field.number, WT_LEN);
            let start = begin_len(buf);
            self.parse_fields(m, buf, close, open.pos, depth + 1)?;
            end_len(buf, start);
        }
        Ok(true)
    }

    pub(super) fn mismatch(&mut self, field: &FieldInfo, found: &Token) {
        let found_text = self.describe(found);
        self.mismatch_found(field, found.pos, &found_text);
    }

    pub(super) fn mismatch_found(&mut self, field: &FieldInfo, pos: Pos, found: &str) {
        let expected = kind_name(self.schema, field.kind);
        self.error(
            pos,
            format!("field `{}` expects {expected}, found {found}", field.name),
        );
    }

    /// Parses `[ v, v, ... ]` for `field`; the `[` is the next token. Returns whether the list
    /// was accepted.
    pub(super) fn parse_list(
        &mut self,
        info: &MessageInfo,
        field: &FieldInfo,
        buf: &mut Vec<u8>,
        depth: usize,
    ) -> Result<bool, Fatal> {
        let open = self.next()?;
        if !field.repeated {
            self.error(
                open.pos,
                format!(
                    "field `{}` of `{}` is not repeated: list syntax is not allowed",
                    field.name, info.full_name
                ),
            );
            self.skip_list_rest(open.pos, depth + 1)?;
            return Ok(false);
        }
        self.check_depth(depth + 1, open.pos)?;
        if self.peek()?.kind == TokKind::Punct(b']') {
            self.peeked = None;
            return Ok(true);
        }
        loop {
            let next = self.peek()?;
            if next.kind == TokKind::Eof {
                return Err(self.unexpected_eof(next.pos, b']', open.pos));
            }
            self.parse_value(field, buf, depth + 1)?;
            let tok = self.next()?;
            match tok.kind {
                TokKind::Punct(b',') => {}
                TokKind::Punct(b']') => return Ok(true),
                TokKind::Eof => return Err(self.unexpected_eof(tok.pos, b']', open.pos)),
                _ => {
                    let found = self.describe(&tok);
                    return Err(self.fatal(
                        tok.pos,
                        format!("expected ',' or ']' in list, found {found}"),
                    ));
                }
            }
        }
    }

    /// Consumes the string literals that follow (adjacent literals concatenate).
    pub(super) fn skip_strings(&mut self) -> Result<(), Fatal> {
        while self.peek()?.kind == TokKind::Str {
            self.peeked = None;
        }
        Ok(())
    }

    /// Parses and writes a string value; `first` (a string token) was consumed.
    pub(super) fn parse_string(
        &mut self,
        field: &FieldInfo,
        first: &Token,
        buf: &mut Vec<u8>,
    ) -> Result<bool, Fatal> {
        let check_utf8 = field.kind == FieldKind::String;
        if self.peek()?.kind != TokKind::Str {
            // The common case: one literal, written straight from the text.
            let bytes = self.lexer.str_bytes(first);
            if check_utf8 && first.unescaped.is_some() && std::str::from_utf8(bytes).is_err() {
                self.error(
                    first.pos,
                    format!("field `{}`: string is not valid UTF-8", field.name),
                );
                return Ok(false);
            }
            if field.expression {
                // Written all the same (the file fails on the error; no second "missing
                // required field" error).
                let expression = bytes.to_vec();
                self.check_expression(first, &expression, true);
            }
            let bytes = self.lexer.str_bytes(first);
            put_tag(buf, field.number, WT_LEN);
            put_varint(buf, bytes.len() as u64);
            buf.extend_from_slice(bytes);
            return Ok(true);
        }
        let mut joined = self.lexer.str_bytes(first).to_vec();
        let mut escaped = first.unescaped.is_some();
        while self.peek()?.kind == TokKind::Str {
            let t = self.next()?;
            escaped |= t.unescaped.is_some();
            joined.extend_from_slice(self.lexer.str_bytes(&t));
        }
        if check_utf8 && escaped && std::str::from_utf8(&joined).is_err() {
            self.error(
                first.pos,
                format!("field `{}`: string is not valid UTF-8", field.name),
            );
            return Ok(false);
        }
        if field.expression {
            self.check_expression(first, &joined, false);
        }
        put_tag(buf, field.number, WT_LEN);
        put_varint(buf, joined.len() as u64);
        buf.extend_from_slice(&joined);
        Ok(true)
    }

    /// Checks a derived-metric expression (`MetricDefinitions { Expression: "..." }`) with
    /// the evaluator's own parser; a malformed one is an error at the offending character
    /// when the literal maps one to one onto the text (`single`, no escapes), else at the
    /// literal.
    pub(super) fn check_expression(&mut self, literal: &Token, bytes: &[u8], single: bool) {
        let text = String::from_utf8_lossy(bytes);
        let Err(error) = crate::section::derived::parse_expression(&text) else {
            return;
        };
        let (position, message) = match &error {
            crate::section::derived::DerivedError::Parse { position, message } => {
                (*position, message.clone())
            }
            other => (1, other.to_string()),
        };
        let mut pos = literal.pos;
        if single && literal.unescaped.is_none() {
            // 1-based character position → byte offset after the opening quote.
            let offset: usize = text
                .chars()
                .take(position.saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            pos.at += 1 + crate::core::num::index_u32(offset);
        }
        self.error(
            pos,
            format!("invalid derived-metric expression `{text}`: {message}"),
        );
    }
}
