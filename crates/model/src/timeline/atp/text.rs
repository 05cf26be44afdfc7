//! Byte-level helpers of the `.atp` reader: lines (the shared [`Lines`]), whitespace tokens, numbers,
//! escapes, and text that stays readable when it is not UTF-8.

use std::borrow::Cow;

pub use crate::core::lines::{Line, Lines};

/// The line that starts at `offset` (without its ending), or an empty slice past the end.
pub fn line_at(data: &[u8], offset: u64) -> &[u8] {
    let Ok(start) = usize::try_from(offset) else {
        return &[];
    };
    let Some(rest) = data.get(start..) else {
        return &[];
    };
    let mut line = match memchr::memchr(b'\n', rest) {
        Some(i) => &rest[..i],
        None => rest,
    };
    if let [head @ .., b'\r'] = line {
        line = head;
    }
    line
}

/// Removes ASCII whitespace at both ends.
pub fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    &bytes[start..end.max(start)]
}

/// Splits a line into whitespace-separated tokens; a token that starts with `{` runs to the
/// matching `}` even across spaces (`{1024, 1024}` is one token).
pub fn tokens(line: &[u8]) -> Tokens<'_> {
    Tokens { line, pos: 0 }
}

/// Iterator of [`tokens`].
pub struct Tokens<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> Tokens<'a> {
    /// The unread rest of the line, trimmed.
    pub fn rest(&self) -> &'a [u8] {
        trim(&self.line[self.pos.min(self.line.len())..])
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let line = self.line;
        let mut i = self.pos;
        while i < line.len() && line[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= line.len() {
            self.pos = i;
            return None;
        }
        let start = i;
        if line[i] == b'{' {
            match memchr::memchr(b'}', &line[i..]) {
                Some(close) => i += close + 1,
                None => i = line.len(),
            }
            // A token glued to the closing brace keeps going to the next space.
            while i < line.len() && !line[i].is_ascii_whitespace() {
                i += 1;
            }
        } else {
            while i < line.len() && !line[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        self.pos = i;
        Some(&line[start..i])
    }
}

/// Parses an unsigned decimal integer (no sign, no spaces); `None` on anything else or overflow.
pub fn parse_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > 20 {
        return None;
    }
    let mut value: u64 = 0;
    for &b in bytes {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    Some(value)
}

/// Parses a handle: `0x`-prefixed hexadecimal, bare hexadecimal, or `NULL`/`(nil)` (0).
pub fn parse_handle(bytes: &[u8]) -> Option<u64> {
    if bytes == b"NULL" || bytes == b"(nil)" {
        return Some(0);
    }
    let digits = bytes
        .strip_prefix(b"0x")
        .or_else(|| bytes.strip_prefix(b"0X"))
        .unwrap_or(bytes);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut value: u64 = 0;
    for &b in digits {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        value = (value << 4) | u64::from(digit);
    }
    Some(value)
}

/// Parses a work size `{g0,g1,g2}` (commas, semicolons or spaces between values; `{NULL}` or
/// `NULL` is `None`). Returns `Err(NotAWorkSize)` for text that is not a work size.
pub fn parse_work_size(bytes: &[u8]) -> Result<Option<WorkSize>, NotAWorkSize> {
    let inner = trim(bytes);
    if inner == b"NULL" {
        return Ok(None);
    }
    let inner = inner.strip_prefix(b"{").ok_or(NotAWorkSize)?;
    let inner = inner.strip_suffix(b"}").ok_or(NotAWorkSize)?;
    let inner = trim(inner);
    if inner == b"NULL" {
        return Ok(None);
    }
    let mut size = WorkSize {
        dims: 0,
        sizes: [1; 3],
    };
    for part in inner.split(|b| matches!(b, b',' | b';' | b' ' | b'\t')) {
        if part.is_empty() {
            continue;
        }
        let value = parse_u64(part).ok_or(NotAWorkSize)?;
        if usize::from(size.dims) >= 3 {
            return Err(NotAWorkSize);
        }
        size.sizes[usize::from(size.dims)] = value;
        size.dims += 1;
    }
    if size.dims == 0 {
        return Err(NotAWorkSize);
    }
    Ok(Some(size))
}

/// The text given to [`parse_work_size`] is not a work size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAWorkSize;

/// A global or local work size of 1 to 3 dimensions (unused dimensions are 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WorkSize {
    /// Number of dimensions given (1–3).
    pub dims: u8,
    /// The sizes; `sizes[dims..]` are 1.
    pub sizes: [u64; 3],
}

impl WorkSize {
    /// The given dimensions only.
    pub fn as_slice(&self) -> &[u64] {
        &self.sizes[..usize::from(self.dims.min(3))]
    }
}

/// Text of bytes that may not be UTF-8: valid UTF-8 stays as is, every byte of an invalid
/// sequence becomes the Latin-1 character of that byte (so `0xE9` reads `é`), never `U+FFFD`.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 8);
            let mut rest = bytes;
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(text) => {
                        out.push_str(text);
                        break;
                    }
                    Err(error) => {
                        let valid = error.valid_up_to();
                        // Safe split: `valid` bytes were checked by from_utf8.
                        out.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default());
                        let bad = error.error_len().unwrap_or(rest.len() - valid).max(1);
                        for &b in &rest[valid..valid + bad] {
                            out.push(char::from(b));
                        }
                        rest = &rest[valid + bad..];
                    }
                }
            }
            Cow::Owned(out)
        }
    }
}

/// Undoes the profiler's escapes in names: `&nbsp;` → space, `&comma;` → `,`.
pub fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("&nbsp;", " ").replace("&comma;", ","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_accept_crlf_and_lf() {
        let lines: Vec<_> = Lines::new(b"a\r\nbb\ncc")
            .map(|l| (l.bytes, l.number, l.offset))
            .collect();
        assert_eq!(
            lines,
            vec![(&b"a"[..], 1, 0), (&b"bb"[..], 2, 3), (&b"cc"[..], 3, 6)]
        );
        assert_eq!(line_at(b"a\r\nbb\ncc", 3), b"bb");
    }

    #[test]
    fn tokens_keep_braces_together() {
        let t: Vec<_> = tokens(b"  k {1024, 2}  {NULL}x  end ").collect();
        assert_eq!(t, vec![&b"k"[..], b"{1024, 2}", b"{NULL}x", b"end"]);
    }

    #[test]
    fn numbers_and_handles() {
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_handle(b"0x00000000060E9800"), Some(0x60E9800));
        assert_eq!(parse_handle(b"0xZZ"), None);
    }

    #[test]
    fn work_sizes() {
        let w = parse_work_size(b"{1024,768}").unwrap().unwrap();
        assert_eq!(w.as_slice(), &[1024, 768]);
        assert_eq!(parse_work_size(b"{NULL}"), Ok(None));
        assert_eq!(
            parse_work_size(b"{ 397952       1       1}")
                .unwrap()
                .unwrap()
                .as_slice(),
            &[397952, 1, 1]
        );
        assert!(parse_work_size(b"{1,2,3,4}").is_err());
        assert!(parse_work_size(b"1024").is_err());
    }

    #[test]
    fn decode_keeps_latin1_readable() {
        assert_eq!(decode(b"caf\xe9 ok"), "café ok");
        assert_eq!(decode("naïve".as_bytes()), "naïve");
        assert_eq!(unescape("a&nbsp;b&comma;c"), "a b,c");
    }
}
