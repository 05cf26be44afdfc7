//! Scalar values: the first token decides between a string, a nested value (a mismatch) and a
//! number or identifier, which is then read for the field's type (bool, real, integer, enum)
//! and written, or diagnosed and dropped.

use super::*;

/// What a scalar's token means for its field.
enum Checked {
    /// The value to write.
    Value(Scalar),
    /// The token does not fit the field's type: reported as a mismatch.
    Mismatch,
    /// The token fits the type but not its range or its enum: already diagnosed.
    Dropped,
}

impl From<Option<Scalar>> for Checked {
    fn from(value: Option<Scalar>) -> Self {
        value.map_or(Checked::Mismatch, Checked::Value)
    }
}

impl Parser<'_> {
    /// Parses a scalar value of `field` and writes it. Returns whether it was written
    /// (`false` when it was diagnosed and dropped).
    pub(super) fn parse_scalar(
        &mut self,
        field: &FieldInfo,
        buf: &mut Vec<u8>,
        depth: usize,
    ) -> Result<bool, Fatal> {
        let first = self.peek()?;
        let pos = first.pos;
        if let Some(written) = self.non_numeric_scalar(field, &first, buf, depth)? {
            return Ok(written);
        }
        self.peeked = None;
        let (negative, tok) = self.signed_token(first)?;
        let text = self.lexer.text_of(&tok);
        let checked = match (field.kind, tok.kind) {
            (FieldKind::Bool, _) if !negative => bool_scalar(tok.kind, text).into(),
            (FieldKind::Double | FieldKind::Float, kind) => {
                real_scalar(kind, negative, text).into()
            }
            (FieldKind::Enum(e), TokKind::Ident) if !negative => {
                self.enum_name(field, e, pos, text)
            }
            (FieldKind::Enum(e), TokKind::Int) => self.enum_number(field, e, pos, negative, text),
            (kind, TokKind::Int) if is_integer(kind) => self.integer(field, pos, negative, text),
            _ => Checked::Mismatch,
        };
        match checked {
            Checked::Value(v) => {
                put_scalar(buf, field.number, field.kind, &v);
                Ok(true)
            }
            Checked::Mismatch => {
                let found = match (negative, tok.kind) {
                    (true, TokKind::Int | TokKind::Float) => format!("number `-{text}`"),
                    (true, _) => format!("'-' followed by {}", self.lexer.describe(&tok)),
                    (false, _) => self.lexer.describe(&tok),
                };
                self.mismatch_found(field, pos, &found);
                Ok(false)
            }
            Checked::Dropped => Ok(false),
        }
    }

    /// Handles a first token that is not a number or identifier: a string (parsed for string
    /// and bytes fields, a mismatch otherwise), a nested value (a mismatch, skipped) or
    /// anything else (fatal). `None` when the token starts a number or identifier.
    fn non_numeric_scalar(
        &mut self,
        field: &FieldInfo,
        first: &Token,
        buf: &mut Vec<u8>,
        depth: usize,
    ) -> Result<Option<bool>, Fatal> {
        match first.kind {
            TokKind::Punct(b'{' | b'<' | b'[') => {
                self.mismatch(field, first);
                self.skip_value(depth).map(|()| Some(false))
            }
            TokKind::Punct(b'-') | TokKind::Ident | TokKind::Int | TokKind::Float => Ok(None),
            TokKind::Str => {
                self.peeked = None;
                if matches!(field.kind, FieldKind::String | FieldKind::Bytes) {
                    return self.parse_string(field, first, buf).map(Some);
                }
                self.mismatch(field, first);
                self.skip_strings()?;
                Ok(Some(false))
            }
            _ => {
                let found = self.describe(first);
                Err(self.fatal(first.pos, format!("expected a value, found {found}")))
            }
        }
    }

    /// The number or identifier token of a scalar and whether a `-` preceded it (`first` is
    /// the token already taken).
    fn signed_token(&mut self, first: Token) -> Result<(bool, Token), Fatal> {
        if first.kind != TokKind::Punct(b'-') {
            return Ok((false, first));
        }
        let tok = self.next()?;
        if !matches!(tok.kind, TokKind::Int | TokKind::Float | TokKind::Ident) {
            let found = self.describe(&tok);
            return Err(self.fatal(
                tok.pos,
                format!("expected a number after '-', found {found}"),
            ));
        }
        Ok((true, tok))
    }

    /// An integer value, or an error when it is out of the field's range.
    fn integer(&mut self, field: &FieldInfo, pos: Pos, negative: bool, text: &str) -> Checked {
        if let Some(v) = parse_u64(text).and_then(|m| int_scalar(field.kind, negative, m)) {
            return Checked::Value(v);
        }
        let sign = if negative { "-" } else { "" };
        let kind = kind_name(self.schema, field.kind);
        self.error(
            pos,
            format!(
                "value {sign}{text} is out of range for field `{}` ({})",
                field.name,
                kind.trim_start_matches("an ")
            ),
        );
        Checked::Dropped
    }

    /// An enum value given by name; an unknown name is warned about and left unset.
    fn enum_name(&mut self, field: &FieldInfo, e: usize, pos: Pos, text: &str) -> Checked {
        let info = self.schema.enums.get(e);
        if let Some(n) = info.and_then(|info| info.lookup(text)) {
            return Checked::Value(Scalar::Signed(i64::from(n)));
        }
        let enum_name = info.map_or("", |i| i.full_name.as_str());
        self.warn(
            pos,
            format!(
                "unknown value `{text}` for enum `{enum_name}` of field `{}` (left unset)",
                field.name
            ),
        );
        Checked::Dropped
    }

    /// An enum value given by number: an error when out of range, a warning (left unset) when
    /// the enum does not name it.
    fn enum_number(
        &mut self,
        field: &FieldInfo,
        e: usize,
        pos: Pos,
        negative: bool,
        text: &str,
    ) -> Checked {
        let info = self.schema.enums.get(e);
        let sign = if negative { "-" } else { "" };
        let Some(Scalar::Signed(n)) =
            parse_u64(text).and_then(|m| int_scalar(field.kind, negative, m))
        else {
            self.error(
                pos,
                format!(
                    "value {sign}{text} is out of range for enum field `{}`",
                    field.name
                ),
            );
            return Checked::Dropped;
        };
        let known = info
            .is_some_and(|i| i32::try_from(n).is_ok_and(|n| i.numbers.binary_search(&n).is_ok()));
        if known {
            return Checked::Value(Scalar::Signed(n));
        }
        let enum_name = info.map_or("", |i| i.full_name.as_str());
        self.warn(
            pos,
            format!(
                "unknown value {sign}{text} for enum `{enum_name}` of field `{}` (left unset)",
                field.name
            ),
        );
        Checked::Dropped
    }
}

/// Whether `kind` is one of the integer field types.
fn is_integer(kind: FieldKind) -> bool {
    matches!(
        kind,
        FieldKind::Int32
            | FieldKind::Sint32
            | FieldKind::Sfixed32
            | FieldKind::Int64
            | FieldKind::Sint64
            | FieldKind::Sfixed64
            | FieldKind::Uint32
            | FieldKind::Fixed32
            | FieldKind::Uint64
            | FieldKind::Fixed64
    )
}

/// A bool value (not negated): `true`/`True`/`t`, `false`/`False`/`f`, `1` or `0`.
fn bool_scalar(kind: TokKind, text: &str) -> Option<Scalar> {
    match kind {
        TokKind::Ident => match text {
            "true" | "True" | "t" => Some(Scalar::Bool(true)),
            "false" | "False" | "f" => Some(Scalar::Bool(false)),
            _ => None,
        },
        TokKind::Int => match parse_u64(text) {
            Some(0) => Some(Scalar::Bool(false)),
            Some(1) => Some(Scalar::Bool(true)),
            _ => None,
        },
        _ => None,
    }
}

/// A double or float value: a decimal, octal or hex integer, a float (with an optional `f`
/// suffix) or a keyword such as `inf` and `nan`.
fn real_scalar(kind: TokKind, negative: bool, text: &str) -> Option<Scalar> {
    let v = match kind {
        TokKind::Int if text.len() > 1 && text.starts_with('0') => {
            parse_u64(text).map(|v| v as f64)
        }
        TokKind::Int => text.parse::<f64>().ok(),
        TokKind::Float => text.trim_end_matches(['f', 'F']).parse::<f64>().ok(),
        TokKind::Ident => float_keyword(text),
        _ => None,
    };
    v.map(|v| Scalar::Real(if negative { -v } else { v }))
}
