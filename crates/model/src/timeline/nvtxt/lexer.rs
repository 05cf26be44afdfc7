//! The byte-level lexer: one line of an NVTXT file into tokens, without allocating.
//!
//! Tokens are spans of the line. A quoted string keeps its bytes as written (no escape
//! processing: a backslash only stops the next quote from closing the string and is kept).
//! `$Name` becomes a [`TokenKind::Var`] token; the parser expands it right after lexing, before
//! it reads the instruction, so an undefined variable is still a lexing error.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// `,`
    Comma,
    /// `=`
    Equals,
    /// `@` (starts a command format)
    At,
    /// A bare Name: ASCII letters, digits, `_`, `-`, not starting with a digit or `-`.
    Name,
    /// An integer literal (decimal, `0x` hex, `0` octal), already converted.
    Int(i64),
    /// A quoted string; the span is the text between the quotes.
    Str,
    /// `$Name`; the span is the name without the `$`.
    Var,
}

/// One token of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Byte offset in the line where the token starts (its quote or `$`): the diagnostic position.
    pub at: usize,
    /// Byte range of the token's text in the line (between the quotes for a string).
    pub start: usize,
    /// End of that range (exclusive).
    pub end: usize,
}

/// A lexing problem: where it is (byte offset in the line) and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LexError {
    /// Byte offset of the offending character or token.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

/// Whether `byte` may start a Name.
#[inline]
pub(crate) fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

/// The bytes that may continue a Name, as a table.
const NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte: u8 = 0;
    loop {
        table[byte as usize] = byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-';
        if byte == u8::MAX {
            break table;
        }
        byte += 1;
    }
};

/// Whether `byte` may continue a Name.
#[inline]
pub(crate) fn is_name_byte(byte: u8) -> bool {
    NAME_BYTES[byte as usize]
}

/// The bytes that end an unquoted word, as a table (the lexer's innermost test).
const ENDS_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let ends = b" \t,=#\"'\r";
    let mut i = 0;
    while i < ends.len() {
        table[ends[i] as usize] = true;
        i += 1;
    }
    table
};

/// Whether `byte` ends an unquoted word.
#[inline]
fn ends_word(byte: u8) -> bool {
    ENDS_WORD[byte as usize]
}

/// Splits `line` (without its line break) into `tokens` (cleared first). Stops at `#` outside a
/// string. On error, `tokens` holds the tokens before the offending one.
pub(crate) fn lex_line(line: &[u8], tokens: &mut Vec<Token>) -> Result<(), LexError> {
    tokens.clear();
    let mut i = 0;
    while i < line.len() {
        let byte = line[i];
        let simple = match byte {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'#' => return Ok(()),
            b',' => Some(TokenKind::Comma),
            b'=' => Some(TokenKind::Equals),
            b'@' => Some(TokenKind::At),
            _ => None,
        };
        if let Some(kind) = simple {
            tokens.push(Token {
                kind,
                at: i,
                start: i,
                end: i + 1,
            });
            i += 1;
            continue;
        }
        match byte {
            b'"' | b'\'' => i = lex_string(line, i, tokens)?,
            b'\r' => {
                return Err(LexError {
                    at: i,
                    message: "stray carriage return inside a line".to_string(),
                });
            }
            b'$' => {
                let start = i + 1;
                let mut end = start;
                if end < line.len() && is_name_start(line[end]) {
                    end += 1;
                    while end < line.len() && is_name_byte(line[end]) {
                        end += 1;
                    }
                }
                if end == start {
                    return Err(LexError {
                        at: i,
                        message: "`$` must be followed by a variable name (`$Name`; `${Name}` is not NVTXT)"
                            .to_string(),
                    });
                }
                if end < line.len() && !ends_word(line[end]) {
                    return Err(invalid_word(line, i));
                }
                tokens.push(Token {
                    kind: TokenKind::Var,
                    at: i,
                    start,
                    end,
                });
                i = end;
            }
            _ => i = lex_word(line, i, tokens)?,
        }
    }
    Ok(())
}

/// Lexes the quoted string opening at `open`; returns the offset after its closing quote.
fn lex_string(line: &[u8], open: usize, tokens: &mut Vec<Token>) -> Result<usize, LexError> {
    let quote = line[open];
    let mut j = open + 1;
    while let Some(offset) = memchr::memchr2(quote, b'\\', line.get(j..).unwrap_or_default()) {
        j += offset;
        if line[j] == quote {
            tokens.push(Token {
                kind: TokenKind::Str,
                at: open,
                start: open + 1,
                end: j,
            });
            return Ok(j + 1);
        }
        // A backslash keeps the next byte (and itself) in the string.
        j += 2;
    }
    Err(LexError {
        at: open,
        message: format!(
            "unterminated string: no closing {} on this line",
            if quote == b'"' { "`\"`" } else { "`'`" }
        ),
    })
}

/// Lexes the unquoted word starting at `start` (a Name or an integer); returns its end.
fn lex_word(line: &[u8], start: usize, tokens: &mut Vec<Token>) -> Result<usize, LexError> {
    let first = line[start];
    let word_ends_at = |end: usize| end == line.len() || ends_word(line[end]);
    let mut push = |kind, end| {
        tokens.push(Token {
            kind,
            at: start,
            start,
            end,
        });
        Ok(end)
    };
    // Fast paths, one pass each: a plain decimal (up to 19 digits fit a u64), a Name.
    if first.is_ascii_digit() && first != b'0' {
        let mut end = start;
        let mut value: u64 = 0;
        while end < line.len() && end - start < 19 && line[end].is_ascii_digit() {
            value = value * 10 + u64::from(line[end] - b'0');
            end += 1;
        }
        if let (true, Ok(value)) = (word_ends_at(end), i64::try_from(value)) {
            return push(TokenKind::Int(value), end);
        }
    } else if is_name_start(first) {
        let mut end = start + 1;
        while end < line.len() && is_name_byte(line[end]) {
            end += 1;
        }
        if word_ends_at(end) {
            return push(TokenKind::Name, end);
        }
        return Err(invalid_word(line, start));
    }
    let mut end = start;
    while !word_ends_at(end) {
        end += 1;
    }
    if first.is_ascii_digit() || first == b'-' {
        match parse_integer(&line[start..end]) {
            Ok(value) => push(TokenKind::Int(value), end),
            Err(error) => Err(LexError {
                at: start,
                message: error.to_string(),
            }),
        }
    } else {
        Err(invalid_word(line, start))
    }
}

/// The error for a word that is neither a Name nor an integer.
fn invalid_word(line: &[u8], start: usize) -> LexError {
    let mut end = start;
    while end < line.len() && !ends_word(line[end]) {
        end += 1;
    }
    let word = String::from_utf8_lossy(&line[start..end]);
    LexError {
        at: start,
        message: format!(
            "invalid value `{word}`: an unquoted value is a Name (ASCII letters, digits, `_`, `-`) \
             or an integer; quote other text"
        ),
    }
}

/// Why a word is not an integer literal (the word is kept, as written, for the message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum IntegerError {
    /// `-0x…`: hexadecimal literals take no sign.
    #[error("invalid integer `{0}`: a hexadecimal integer cannot be negative")]
    NegativeHex(String),
    /// Only a sign or a radix prefix.
    #[error("invalid integer `{0}`: no digits")]
    NoDigits(String),
    /// A digit 8 or 9 after the leading 0 of an octal literal.
    #[error("invalid octal integer `{0}`: a leading 0 makes an integer octal (digits 0-7)")]
    BadOctal(String),
    /// A character that is not a digit of the literal's radix.
    #[error("invalid integer `{0}`")]
    Invalid(String),
    /// The value does not fit in an `i64`.
    #[error("integer `{0}` is out of range (64-bit signed)")]
    OutOfRange(String),
}

/// Converts an integer literal: decimal, `0x`/`0X` hexadecimal, or octal with a leading `0`;
/// a leading `-` is allowed on decimal and octal. The value must fit in an `i64`.
pub(crate) fn parse_integer(word: &[u8]) -> Result<i64, IntegerError> {
    let show = || String::from_utf8_lossy(word).into_owned();
    let (negative, digits) = match word.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, word),
    };
    let (radix, digits) =
        if digits.len() > 1 && digits[0] == b'0' && matches!(digits[1], b'x' | b'X') {
            if negative {
                return Err(IntegerError::NegativeHex(show()));
            }
            (16, &digits[2..])
        } else if digits.len() > 1 && digits[0] == b'0' {
            (8, &digits[1..])
        } else {
            (10, digits)
        };
    if digits.is_empty() {
        return Err(IntegerError::NoDigits(show()));
    }
    let mut value: u64 = 0;
    for &b in digits {
        let digit = match b {
            b'0'..=b'9' => u64::from(b - b'0'),
            b'a'..=b'f' => u64::from(b - b'a' + 10),
            b'A'..=b'F' => u64::from(b - b'A' + 10),
            _ => u64::MAX,
        };
        if digit >= radix {
            return Err(if radix == 8 && b.is_ascii_digit() {
                IntegerError::BadOctal(show())
            } else {
                IntegerError::Invalid(show())
            });
        }
        value = match value.checked_mul(radix).and_then(|v| v.checked_add(digit)) {
            Some(v) => v,
            None => return Err(IntegerError::OutOfRange(show())),
        };
    }
    if negative {
        if value > i64::MAX as u64 + 1 {
            return Err(IntegerError::OutOfRange(show()));
        }
        Ok((value as i64).wrapping_neg())
    } else {
        i64::try_from(value).map_err(|_| IntegerError::OutOfRange(show()))
    }
}

/// The 1-based column, in characters, of byte offset `at` in `line`.
pub(crate) fn column_of(line: &[u8], at: usize) -> u32 {
    let at = at.min(line.len());
    let chars = line[..at].iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    u32::try_from(chars + 1).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<TokenKind> {
        let mut tokens = Vec::new();
        lex_line(line.as_bytes(), &mut tokens).unwrap();
        tokens.iter().map(|t| t.kind).collect()
    }

    #[test]
    fn integers_in_every_base() {
        assert_eq!(parse_integer(b"010"), Ok(8));
        assert_eq!(parse_integer(b"0x1F"), Ok(31));
        assert_eq!(parse_integer(b"0X1f"), Ok(31));
        assert_eq!(parse_integer(b"-0"), Ok(0));
        assert_eq!(parse_integer(b"0"), Ok(0));
        assert_eq!(parse_integer(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(parse_integer(b"9223372036854775807"), Ok(i64::MAX));
        for bad in [
            &b"0009"[..],
            b"08",
            b"0x",
            b"-0x10",
            b"12abc",
            b"1_000",
            b"9223372036854775808",
            b"-",
            b"0xFFFFFFFFFFFFFFFFF",
        ] {
            assert!(
                parse_integer(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn tokens_of_a_call() {
        use TokenKind::*;
        assert_eq!(
            kinds("Marker ,10, 'a\"b', $X # c"),
            vec![Name, Comma, Int(10), Comma, Str, Comma, Var]
        );
        assert_eq!(kinds("@Marker,Time"), vec![At, Name, Comma, Name]);
        assert_eq!(kinds("Payload=-5"), vec![Name, Equals, Int(-5)]);
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column_of("é, x".as_bytes(), 4), 4);
        assert_eq!(column_of(b"abc", 0), 1);
    }
}
