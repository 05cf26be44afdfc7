//! Skipping what the schema does not know: the value after an unknown field name and the rest
//! of a block or list after a mismatch, so that one bad field costs only itself.

use super::*;

impl Parser<'_> {
    /// Skips what follows an unknown field name: `: value`, `{...}`, `<...>` or `[...]`.
    pub(super) fn skip_field_value(&mut self, depth: usize) -> Result<(), Fatal> {
        let next = self.peek()?;
        match next.kind {
            TokKind::Punct(b':') => {
                self.peeked = None;
                self.skip_value(depth)
            }
            TokKind::Punct(b'{' | b'<' | b'[') => self.skip_value(depth),
            _ => {
                let found = self.describe(&next);
                Err(self.fatal(
                    next.pos,
                    format!("expected ':' or '{{' after field name, found {found}"),
                ))
            }
        }
    }

    /// Skips one value: a scalar, adjacent strings, a block or a list.
    pub(super) fn skip_value(&mut self, depth: usize) -> Result<(), Fatal> {
        let tok = self.next()?;
        match tok.kind {
            TokKind::Punct(c @ (b'{' | b'<')) => {
                self.skip_block_rest(closer_of(c), tok.pos, depth + 1)
            }
            TokKind::Punct(b'[') => self.skip_list_rest(tok.pos, depth + 1),
            TokKind::Punct(b'-') => {
                let t = self.next()?;
                match t.kind {
                    TokKind::Int | TokKind::Float | TokKind::Ident => Ok(()),
                    _ => {
                        let found = self.describe(&t);
                        Err(self
                            .fatal(t.pos, format!("expected a number after '-', found {found}")))
                    }
                }
            }
            TokKind::Ident | TokKind::Int | TokKind::Float => Ok(()),
            TokKind::Str => self.skip_strings(),
            _ => {
                let found = self.describe(&tok);
                Err(self.fatal(tok.pos, format!("expected a value, found {found}")))
            }
        }
    }

    /// Skips the fields of a block whose opening delimiter was consumed.
    pub(super) fn skip_block_rest(
        &mut self,
        close: u8,
        open_pos: Pos,
        depth: usize,
    ) -> Result<(), Fatal> {
        self.check_depth(depth, open_pos)?;
        loop {
            let tok = self.next()?;
            match tok.kind {
                TokKind::Eof => return Err(self.unexpected_eof(tok.pos, close, open_pos)),
                TokKind::Punct(c) if c == close => return Ok(()),
                TokKind::Ident => self.skip_field_value(depth)?,
                TokKind::Punct(b'[') => {
                    self.extension_name()?;
                    self.skip_field_value(depth)?;
                }
                _ => {
                    let found = self.describe(&tok);
                    return Err(self.fatal(
                        tok.pos,
                        format!(
                            "expected field name or '{}', found {found}",
                            char::from(close)
                        ),
                    ));
                }
            }
            self.separator()?;
        }
    }

    /// Skips the elements of a list whose `[` was consumed.
    pub(super) fn skip_list_rest(&mut self, open_pos: Pos, depth: usize) -> Result<(), Fatal> {
        self.check_depth(depth, open_pos)?;
        if self.peek()?.kind == TokKind::Punct(b']') {
            self.peeked = None;
            return Ok(());
        }
        loop {
            let next = self.peek()?;
            if next.kind == TokKind::Eof {
                return Err(self.unexpected_eof(next.pos, b']', open_pos));
            }
            self.skip_value(depth)?;
            let tok = self.next()?;
            match tok.kind {
                TokKind::Punct(b',') => {}
                TokKind::Punct(b']') => return Ok(()),
                TokKind::Eof => return Err(self.unexpected_eof(tok.pos, b']', open_pos)),
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
}
