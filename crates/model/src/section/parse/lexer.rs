//! The text-format lexer: tokens with their positions (names, numbers, strings with every C
//! escape, punctuation), comments skipped.

use crate::core::num::index_u32;

// ---------------------------------------------------------------------------------------------
// Lexer

/// A position: line, byte offset of the line start, byte offset. The column is computed only
/// when a diagnostic needs it. Offsets fit in `u32`: longer texts are rejected up front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pos {
    pub(super) line: u32,
    pub(super) line_start: u32,
    pub(super) at: u32,
}

/// The kind of a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TokKind {
    Ident,
    /// Integer literal: decimal, `0x` hex or `0` octal (validated by the lexer).
    Int,
    /// Float literal, possibly with an `f`/`F` suffix.
    Float,
    /// String literal (quotes included in the span).
    Str,
    Punct(u8),
    Eof,
}

/// A token: small and `Copy`; its text is a span of the input.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token {
    pub(super) kind: TokKind,
    pub(super) pos: Pos,
    /// Byte offset just past the token.
    pub(super) end: u32,
    /// For a string with escapes: its unescaped bytes, an index into `Lexer::unescaped`.
    pub(super) unescaped: Option<u32>,
}

pub(super) struct LexError {
    pub(super) pos: Pos,
    pub(super) message: String,
}

pub(super) struct Lexer<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) i: usize,
    pub(super) line: u32,
    pub(super) line_start: usize,
    /// Unescaped contents of string literals that have escapes (rare).
    pub(super) unescaped: Vec<Vec<u8>>,
}

pub(super) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub(super) fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Lexer<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        // A byte-order mark is not a character of the first line.
        let i = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            text,
            bytes: text.as_bytes(),
            i,
            line: 1,
            line_start: i,
            unescaped: Vec::new(),
        }
    }

    pub(super) fn pos_at(&self, at: usize) -> Pos {
        Pos {
            line: self.line,
            line_start: index_u32(self.line_start),
            at: index_u32(at),
        }
    }

    pub(super) fn at(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.i + k).copied()
    }

    pub(super) fn bump_while(&mut self, f: impl Fn(u8) -> bool) -> usize {
        let start = self.i;
        while self.bytes.get(self.i).is_some_and(|&b| f(b)) {
            self.i += 1;
        }
        self.i - start
    }

    /// The character at byte offset `at` (for messages).
    pub(super) fn char_at(&self, at: usize) -> char {
        self.text
            .get(at..)
            .and_then(|s| s.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER)
    }

    /// The source text of a token.
    pub(super) fn text_of(&self, t: &Token) -> &'a str {
        self.text
            .get(t.pos.at as usize..t.end as usize)
            .unwrap_or("")
    }

    /// The value of a string token (unescaped).
    pub(super) fn str_bytes(&self, t: &Token) -> &[u8] {
        match t.unescaped {
            Some(i) => self.unescaped.get(i as usize).map_or(&[], Vec::as_slice),
            None => self
                .bytes
                .get(t.pos.at as usize + 1..(t.end as usize).saturating_sub(1))
                .unwrap_or_default(),
        }
    }

    /// A description for messages: "identifier `foo`", "'{'", "end of input"...
    pub(super) fn describe(&self, t: &Token) -> String {
        match t.kind {
            TokKind::Ident => format!("identifier `{}`", self.text_of(t)),
            TokKind::Int | TokKind::Float => format!("number `{}`", self.text_of(t)),
            TokKind::Str => {
                let s = String::from_utf8_lossy(self.str_bytes(t));
                let short: String = s.chars().take(40).collect();
                let dots = if short.len() < s.len() { "..." } else { "" };
                format!("string \"{}{dots}\"", short.escape_default())
            }
            TokKind::Punct(c) => format!("'{}'", char::from(c)),
            TokKind::Eof => "end of input".to_owned(),
        }
    }

    pub(super) fn skip_trivia(&mut self) {
        while let Some(&b) = self.bytes.get(self.i) {
            match b {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.i += 1,
                b'#' => {
                    self.bump_while(|c| c != b'\n');
                }
                _ => break,
            }
        }
    }

    pub(super) fn next_token(&mut self) -> Result<Token, LexError> {
        self.skip_trivia();
        let pos = self.pos_at(self.i);
        let mut unescaped = None;
        let kind = match self.at(0) {
            None => TokKind::Eof,
            Some(b) if is_ident_start(b) => {
                self.bump_while(is_ident_char);
                TokKind::Ident
            }
            Some(b'0'..=b'9') => self.number(pos)?,
            Some(b'.') if self.at(1).is_some_and(|c| c.is_ascii_digit()) => self.number(pos)?,
            Some(q @ (b'"' | b'\'')) => {
                unescaped = self.string(pos, q)?;
                TokKind::Str
            }
            Some(
                b @ (b'{' | b'}' | b'<' | b'>' | b'[' | b']' | b':' | b',' | b';' | b'-' | b'/'
                | b'.'),
            ) => {
                self.i += 1;
                TokKind::Punct(b)
            }
            Some(_) => {
                return Err(LexError {
                    pos,
                    message: format!("unexpected character {:?}", self.char_at(self.i)),
                });
            }
        };
        Ok(Token {
            kind,
            pos,
            end: index_u32(self.i),
            unescaped,
        })
    }

    pub(super) fn number(&mut self, pos: Pos) -> Result<TokKind, LexError> {
        let start = self.i;
        let mut is_float = false;
        let mut valid = true;
        if self.at(0) == Some(b'0') && matches!(self.at(1), Some(b'x' | b'X')) {
            self.i += 2;
            valid = self.bump_while(|c| c.is_ascii_hexdigit()) > 0;
        } else {
            self.bump_while(|c| c.is_ascii_digit());
            if self.at(0) == Some(b'.') {
                is_float = true;
                self.i += 1;
                self.bump_while(|c| c.is_ascii_digit());
            }
            if matches!(self.at(0), Some(b'e' | b'E')) {
                is_float = true;
                self.i += 1;
                if matches!(self.at(0), Some(b'+' | b'-')) {
                    self.i += 1;
                }
                valid = self.bump_while(|c| c.is_ascii_digit()) > 0;
            }
            if valid && matches!(self.at(0), Some(b'f' | b'F')) {
                is_float = true;
                self.i += 1;
            }
        }
        if self.at(0).is_some_and(|c| is_ident_char(c) || c == b'.') {
            valid = false;
            self.bump_while(|c| is_ident_char(c) || c == b'.');
        }
        let text = self.text.get(start..self.i).unwrap_or("");
        if !valid {
            return Err(LexError {
                pos,
                message: format!("invalid number `{text}`"),
            });
        }
        if !is_float
            && text.len() > 1
            && text.starts_with('0')
            && !text.starts_with("0x")
            && !text.starts_with("0X")
            && !text.bytes().all(|c| (b'0'..=b'7').contains(&c))
        {
            return Err(LexError {
                pos,
                message: format!("invalid octal number `{text}`"),
            });
        }
        Ok(if is_float {
            TokKind::Float
        } else {
            TokKind::Int
        })
    }

    /// Scans a string literal; returns the index of its unescaped bytes if it has escapes.
    pub(super) fn string(&mut self, pos: Pos, quote: u8) -> Result<Option<u32>, LexError> {
        let unterminated = |pos| LexError {
            pos,
            message: "unterminated string".to_owned(),
        };
        self.i += 1;
        let start = self.i;
        // Fast path: no escapes, the value is a span of the text.
        self.bump_while(|c| c != quote && c != b'\\' && c != b'\n');
        let mut buf = match self.at(0) {
            Some(b) if b == quote => {
                self.i += 1;
                return Ok(None);
            }
            Some(b'\\') => self.bytes.get(start..self.i).unwrap_or_default().to_vec(),
            _ => return Err(unterminated(pos)),
        };
        loop {
            match self.at(0) {
                None | Some(b'\n') => return Err(unterminated(pos)),
                Some(b) if b == quote => {
                    self.i += 1;
                    let index = index_u32(self.unescaped.len());
                    self.unescaped.push(buf);
                    return Ok(Some(index));
                }
                Some(b'\\') => {
                    let esc = self.pos_at(self.i);
                    self.i += 1;
                    self.escape(&mut buf, pos, esc)?;
                }
                Some(_) => {
                    let from = self.i;
                    self.bump_while(|c| c != quote && c != b'\\' && c != b'\n');
                    buf.extend_from_slice(self.bytes.get(from..self.i).unwrap_or_default());
                }
            }
        }
    }

    pub(super) fn hex_digits(&mut self, max: usize) -> (u32, usize) {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            let Some(d) = self.at(0).and_then(|c| char::from(c).to_digit(16)) else {
                break;
            };
            value = value * 16 + d;
            n += 1;
            self.i += 1;
        }
        (value, n)
    }

    /// Reads one escape sequence (the backslash is consumed) and appends its bytes.
    pub(super) fn escape(
        &mut self,
        buf: &mut Vec<u8>,
        string_pos: Pos,
        esc: Pos,
    ) -> Result<(), LexError> {
        let err = |message: String| LexError { pos: esc, message };
        let Some(c) = self.at(0) else {
            return Err(LexError {
                pos: string_pos,
                message: "unterminated string".to_owned(),
            });
        };
        let simple = match c {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'v' => Some(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => Some(c),
            _ => None,
        };
        if let Some(b) = simple {
            self.i += 1;
            buf.push(b);
            return Ok(());
        }
        match c {
            b'0'..=b'7' => {
                let mut value = 0u32;
                let mut n = 0;
                while n < 3 {
                    match self.at(0) {
                        Some(d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            n += 1;
                            self.i += 1;
                        }
                        _ => break,
                    }
                }
                let b = u8::try_from(value)
                    .map_err(|_| err(format!("octal escape out of range (\\{value:o})")))?;
                buf.push(b);
            }
            b'x' | b'X' => {
                self.i += 1;
                let (value, n) = self.hex_digits(2);
                if n == 0 {
                    return Err(err("`\\x` escape without hex digits".to_owned()));
                }
                // At most two hex digits: 0xFF at most.
                buf.push(u8::try_from(value).unwrap_or(u8::MAX));
            }
            b'u' | b'U' => {
                self.i += 1;
                let want = if c == b'u' { 4 } else { 8 };
                let (mut value, n) = self.hex_digits(want);
                if n != want {
                    return Err(err(format!(
                        "`\\{}` escape needs {want} hex digits",
                        char::from(c)
                    )));
                }
                if (0xD800..0xDC00).contains(&value)
                    && self.at(0) == Some(b'\\')
                    && self.at(1) == Some(b'u')
                {
                    // A UTF-16 surrogate pair written as two escapes.
                    self.i += 2;
                    let (low, n) = self.hex_digits(4);
                    if n != 4 || !(0xDC00..0xE000).contains(&low) {
                        return Err(err("invalid unicode surrogate pair".to_owned()));
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00);
                }
                let ch = char::from_u32(value)
                    .ok_or_else(|| err(format!("invalid unicode escape (U+{value:04X})")))?;
                let mut tmp = [0u8; 4];
                buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
            }
            _ => {
                let ch = self.char_at(self.i);
                return Err(err(format!(
                    "invalid escape sequence `\\{}`",
                    ch.escape_default()
                )));
            }
        }
        Ok(())
    }
}
