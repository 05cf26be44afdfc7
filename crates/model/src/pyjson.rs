//! JSON output that is byte-for-byte what Python's `json.dump(obj, indent=1)` writes.
//!
//! Sightline's headless output is compared with NVIDIA's Python reader; printing floats as
//! Python's `repr`, escaping like `ensure_ascii=True` and indenting the same way makes the two
//! comparable with `diff` and `cmp`, not only after parsing. Callers emit object keys in sorted
//! order when they want `sort_keys=True` output.

use std::io::{self, Write};

/// A streaming JSON writer with Python's formatting.
pub struct PyJsonWriter<W: Write> {
    out: W,
    indent: usize,
    /// One entry per open container: whether it has items yet.
    stack: Vec<bool>,
    after_key: bool,
}

impl<W: Write> PyJsonWriter<W> {
    /// A writer that indents each level by `indent` spaces (Python's `indent=`).
    pub fn new(out: W, indent: usize) -> Self {
        PyJsonWriter {
            out,
            indent,
            stack: Vec::new(),
            after_key: false,
        }
    }

    /// A writer for one value nested `depth` containers deep in another writer's output: it
    /// indents as that writer would there and writes no separator before its value, which the
    /// other writer adds with [`PyJsonWriter::raw_value`]. Values rendered apart (on other
    /// threads) then join into the same bytes as when written in place.
    pub fn nested(out: W, indent: usize, depth: usize) -> Self {
        PyJsonWriter {
            out,
            indent,
            stack: vec![false; depth],
            after_key: true,
        }
    }

    /// Finishes and returns the underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn newline(&mut self) -> io::Result<()> {
        const SPACES: &[u8; 64] = &[b' '; 64];
        self.out.write_all(b"\n")?;
        let mut width = self.stack.len() * self.indent;
        while width > 0 {
            let take = width.min(SPACES.len());
            self.out.write_all(&SPACES[..take])?;
            width -= take;
        }
        Ok(())
    }

    fn prefix(&mut self) -> io::Result<()> {
        if self.after_key {
            self.after_key = false;
            return Ok(());
        }
        if let Some(has_items) = self.stack.last_mut() {
            let had = std::mem::replace(has_items, true);
            if had {
                self.out.write_all(b",")?;
            }
            self.newline()?;
        }
        Ok(())
    }

    fn open(&mut self, bracket: &[u8]) -> io::Result<()> {
        self.prefix()?;
        self.out.write_all(bracket)?;
        self.stack.push(false);
        Ok(())
    }

    fn close(&mut self, bracket: &[u8]) -> io::Result<()> {
        let had_items = self.stack.pop().unwrap_or(false);
        if had_items {
            self.newline()?;
        }
        self.out.write_all(bracket)
    }

    /// `{`
    pub fn begin_object(&mut self) -> io::Result<()> {
        self.open(b"{")
    }

    /// `}`
    pub fn end_object(&mut self) -> io::Result<()> {
        self.close(b"}")
    }

    /// `[`
    pub fn begin_array(&mut self) -> io::Result<()> {
        self.open(b"[")
    }

    /// `]`
    pub fn end_array(&mut self) -> io::Result<()> {
        self.close(b"]")
    }

    /// A value already rendered as JSON (by a [`PyJsonWriter::nested`] writer at this depth),
    /// written after the separator this position needs.
    pub fn raw_value(&mut self, json: &[u8]) -> io::Result<()> {
        self.prefix()?;
        self.out.write_all(json)
    }

    /// An object key; the next call writes its value.
    pub fn key(&mut self, key: &str) -> io::Result<()> {
        self.prefix()?;
        write_string(&mut self.out, key)?;
        self.out.write_all(b": ")?;
        self.after_key = true;
        Ok(())
    }

    /// A string value.
    pub fn string(&mut self, value: &str) -> io::Result<()> {
        self.prefix()?;
        write_string(&mut self.out, value)
    }

    /// A float value, as Python's `repr`.
    pub fn float(&mut self, value: f64) -> io::Result<()> {
        self.prefix()?;
        let mut buf = [0u8; 32];
        let len = float_repr_bytes(value, &mut buf);
        self.out.write_all(&buf[..len])
    }

    /// An unsigned integer value.
    pub fn uint(&mut self, value: u64) -> io::Result<()> {
        self.prefix()?;
        write!(self.out, "{value}")
    }

    /// A signed integer value.
    pub fn int(&mut self, value: i64) -> io::Result<()> {
        self.prefix()?;
        write!(self.out, "{value}")
    }

    /// `true` or `false`.
    pub fn bool(&mut self, value: bool) -> io::Result<()> {
        self.prefix()?;
        self.out.write_all(if value { b"true" } else { b"false" })
    }

    /// `null`
    pub fn null(&mut self) -> io::Result<()> {
        self.prefix()?;
        self.out.write_all(b"null")
    }

    /// `"key": "value"`
    pub fn key_string(&mut self, key: &str, value: &str) -> io::Result<()> {
        self.key(key)?;
        self.string(value)
    }

    /// `"key": <integer>`
    pub fn key_uint(&mut self, key: &str, value: u64) -> io::Result<()> {
        self.key(key)?;
        self.uint(value)
    }

    /// `"key": <integer>`
    pub fn key_int(&mut self, key: &str, value: i64) -> io::Result<()> {
        self.key(key)?;
        self.int(value)
    }

    /// `"key": <float>`
    pub fn key_float(&mut self, key: &str, value: f64) -> io::Result<()> {
        self.key(key)?;
        self.float(value)
    }
}

/// Writes `value` as a JSON string the way Python's `json` module does with `ensure_ascii`.
pub fn write_string(out: &mut impl Write, value: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let bytes = value.as_bytes();
    if bytes
        .iter()
        .all(|&b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    {
        out.write_all(bytes)?;
    } else {
        let mut plain_start = 0;
        for (i, ch) in value.char_indices() {
            let escaped: Option<&[u8]> = match ch {
                '"' => Some(b"\\\""),
                '\\' => Some(b"\\\\"),
                '\n' => Some(b"\\n"),
                '\r' => Some(b"\\r"),
                '\t' => Some(b"\\t"),
                '\u{8}' => Some(b"\\b"),
                '\u{c}' => Some(b"\\f"),
                ' '..='~' => continue,
                _ => None,
            };
            out.write_all(&bytes[plain_start..i])?;
            plain_start = i + ch.len_utf8();
            match escaped {
                Some(esc) => out.write_all(esc)?,
                None => {
                    let mut units = [0u16; 2];
                    for unit in ch.encode_utf16(&mut units) {
                        write!(out, "\\u{unit:04x}")?;
                    }
                }
            }
        }
        out.write_all(&bytes[plain_start..])?;
    }
    out.write_all(b"\"")
}

/// Appends Python's `repr(value)` of a float (`1e-05`, `0.0001`, `1e+16`, `NaN`) to `out`.
pub fn float_repr(value: f64, out: &mut String) {
    let mut buf = [0u8; 32];
    let len = float_repr_bytes(value, &mut buf);
    out.push_str(std::str::from_utf8(&buf[..len]).unwrap_or("NaN"));
}

/// Writes Python's `repr(value)` into `buf`, returning the length (at most 24 bytes).
pub fn float_repr_bytes(value: f64, buf: &mut [u8; 32]) -> usize {
    let special: &[u8] = if value.is_nan() {
        b"NaN"
    } else if value == f64::INFINITY {
        b"Infinity"
    } else if value == f64::NEG_INFINITY {
        b"-Infinity"
    } else {
        b""
    };
    if !special.is_empty() {
        buf[..special.len()].copy_from_slice(special);
        return special.len();
    }
    // `ryu` gives the shortest digits that round-trip, as Python's repr does; only the layout
    // differs, so split its output into digits and a decimal-point position and lay them out
    // Python's way.
    let mut ryu_buf = ryu::Buffer::new();
    let text = ryu_buf.format_finite(value.abs()).as_bytes();
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e') {
        Some(e) => (&text[..e], parse_exponent(&text[e + 1..])),
        None => (text, 0),
    };
    let mut digits = [0u8; 24];
    let mut n = 0;
    let mut point = None;
    for &b in mantissa {
        if b == b'.' {
            point = Some(n);
        } else if n < digits.len() {
            digits[n] = b;
            n += 1;
        }
    }
    let mut decimal_point = crate::core::num::saturating_i32(point.unwrap_or(n)) + exponent;
    // Drop leading zeros (moving the point) and trailing zeros.
    let mut start = 0;
    while start + 1 < n && digits[start] == b'0' {
        start += 1;
        decimal_point -= 1;
    }
    while n > start + 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let digits = &digits[start..n];
    if digits == b"0" {
        decimal_point = 1;
    }
    let mut len = 0;
    let mut push = |bytes: &[u8], len: &mut usize| {
        buf[*len..*len + bytes.len()].copy_from_slice(bytes);
        *len += bytes.len();
    };
    if value.is_sign_negative() {
        push(b"-", &mut len);
    }
    if -4 < decimal_point && decimal_point <= 16 {
        if decimal_point <= 0 {
            push(b"0.", &mut len);
            for _ in 0..-decimal_point {
                push(b"0", &mut len);
            }
            push(digits, &mut len);
        } else if decimal_point as usize >= digits.len() {
            push(digits, &mut len);
            for _ in 0..decimal_point as usize - digits.len() {
                push(b"0", &mut len);
            }
            push(b".0", &mut len);
        } else {
            let (int, frac) = digits.split_at(decimal_point as usize);
            push(int, &mut len);
            push(b".", &mut len);
            push(frac, &mut len);
        }
    } else {
        push(&digits[..1], &mut len);
        if digits.len() > 1 {
            push(b".", &mut len);
            push(&digits[1..], &mut len);
        }
        let exponent = decimal_point - 1;
        push(if exponent < 0 { b"e-" } else { b"e+" }, &mut len);
        let magnitude = exponent.unsigned_abs();
        if magnitude >= 100 {
            // An f64's decimal exponent is below 400: each digit is `% 10`.
            push(&[b'0' + (magnitude / 100 % 10) as u8], &mut len);
        }
        push(
            &[
                b'0' + (magnitude / 10 % 10) as u8,
                b'0' + (magnitude % 10) as u8,
            ],
            &mut len,
        );
    }
    len
}

fn parse_exponent(text: &[u8]) -> i32 {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits
        .iter()
        .fold(0i32, |acc, &d| acc * 10 + i32::from(d.wrapping_sub(b'0')));
    if negative { -magnitude } else { magnitude }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(v: f64) -> String {
        let mut s = String::new();
        float_repr(v, &mut s);
        s
    }

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (1.5e16, "1.5e+16"),
            (123.456, "123.456"),
            (8.323463083687056, "8.323463083687056"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.5e-7, "2.5e-07"),
            (1e100, "1e+100"),
            (1.25e-100, "1.25e-100"),
            (100.0, "100.0"),
            (0.001, "0.001"),
            (123456789.0, "123456789.0"),
            (9007199254740993.0, "9007199254740992.0"),
            (1e15, "1000000000000000.0"),
            (-2.5, "-2.5"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (value, expected) in cases {
            assert_eq!(repr(value), expected, "repr of {value:e}");
        }
    }

    #[test]
    fn strings_escape_like_ensure_ascii() {
        let mut out = Vec::new();
        write_string(&mut out, "a\"b\\c\n\u{1}é😀\u{7f}").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\"b\\c\n\u0001\u00e9\ud83d\ude00\u007f""#
        );
    }

    #[test]
    fn nested_values_join_as_if_written_in_place() {
        let value = |w: &mut PyJsonWriter<Vec<u8>>| {
            w.begin_object().unwrap();
            w.key("k").unwrap();
            w.begin_array().unwrap();
            w.uint(1).unwrap();
            w.end_array().unwrap();
            w.end_object().unwrap();
        };
        let mut direct = PyJsonWriter::new(Vec::new(), 1);
        direct.begin_array().unwrap();
        for _ in 0..2 {
            value(&mut direct);
        }
        direct.end_array().unwrap();
        let mut joined = PyJsonWriter::new(Vec::new(), 1);
        joined.begin_array().unwrap();
        for _ in 0..2 {
            let mut nested = PyJsonWriter::nested(Vec::new(), 1, 1);
            value(&mut nested);
            joined.raw_value(&nested.into_inner()).unwrap();
        }
        joined.end_array().unwrap();
        assert_eq!(joined.into_inner(), direct.into_inner());
    }

    #[test]
    fn layout_matches_python_indent_1() {
        let mut w = PyJsonWriter::new(Vec::new(), 1);
        w.begin_object().unwrap();
        w.key("a").unwrap();
        w.begin_array().unwrap();
        w.uint(1).unwrap();
        w.begin_object().unwrap();
        w.end_object().unwrap();
        w.end_array().unwrap();
        w.key("b").unwrap();
        w.begin_array().unwrap();
        w.end_array().unwrap();
        w.end_object().unwrap();
        let text = String::from_utf8(w.into_inner()).unwrap();
        assert_eq!(text, "{\n \"a\": [\n  1,\n  {}\n ],\n \"b\": []\n}");
    }
}
