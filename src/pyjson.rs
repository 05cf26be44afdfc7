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

    /// Finishes and returns the underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn newline(&mut self) -> io::Result<()> {
        self.out.write_all(b"\n")?;
        for _ in 0..self.stack.len() * self.indent {
            self.out.write_all(b" ")?;
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
        let mut buf = String::new();
        float_repr(value, &mut buf);
        self.out.write_all(buf.as_bytes())
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
    use std::fmt::Write as _;
    if value.is_nan() {
        out.push_str("NaN");
        return;
    }
    if value.is_infinite() {
        out.push_str(if value > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as Python's repr does.
    let mut sci = String::with_capacity(32);
    let _ = write!(sci, "{:e}", value.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decimal_point = exponent + 1;
    if -4 < decimal_point && decimal_point <= 16 {
        if decimal_point <= 0 {
            out.push_str("0.");
            for _ in 0..-decimal_point {
                out.push('0');
            }
            out.push_str(&digits);
        } else if decimal_point as usize >= digits.len() {
            out.push_str(&digits);
            for _ in 0..decimal_point as usize - digits.len() {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..decimal_point as usize]);
            out.push('.');
            out.push_str(&digits[decimal_point as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.abs()
        );
    }
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
