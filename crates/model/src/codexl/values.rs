//! Typed values of a counter file in 16 bytes each: a number keeps its value and how many
//! digits the file wrote after the point (its text is then the plain rendering, every digit as
//! written); texts, work sizes and numbers written otherwise (an exponent, a sign, more digits
//! than a double keeps) are kept once per file in a [`Values`] store and referred to by index.
//! A counter file of millions of fields then takes about as much memory as its text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use super::text::unescape;

/// One field's value (16 bytes; see [`Values`] for what its indices refer to).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CounterValue {
    /// An empty field.
    Empty,
    /// `NULL` (e.g. a local work size the application left NULL).
    Null,
    /// A number written in plain notation with `decimals` digits after the point: its text is
    /// `format!("{value:.decimals$}")` (the file's digits; a decimal comma read as a point).
    Number {
        /// The value.
        value: f64,
        /// Digits after the point as written.
        decimals: u8,
    },
    /// A number written otherwise (`1e3`, `+5`, `007`, more digits than a double keeps): its
    /// text as written is [`Values::text`] of `text`.
    Written {
        /// The value.
        value: f64,
        /// Index of its text in the store.
        text: u32,
    },
    /// A work size `{x y z}` / `{x; y; z}`: [`Values::sizes`] of the index.
    Sizes(u32),
    /// Anything else (names; escapes undone): [`Values::text`] of the index.
    Text(u32),
}

impl CounterValue {
    /// The numeric value, if any.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            CounterValue::Number { value, .. } | CounterValue::Written { value, .. } => {
                Some(*value)
            }
            _ => None,
        }
    }

    /// Whether it is a number.
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            CounterValue::Number { .. } | CounterValue::Written { .. }
        )
    }
}

/// A decimal number with optional sign, fraction and exponent (no `inf`/`nan` words), with
/// its text (a decimal comma read as a point when `decimal_comma`).
pub fn number_of(field: &str, decimal_comma: bool) -> Option<(f64, Cow<'_, str>)> {
    let text: Cow<str> = if decimal_comma && field.matches(',').count() == 1 && !field.contains('.')
    {
        Cow::Owned(field.replace(',', "."))
    } else {
        Cow::Borrowed(field)
    };
    let body = text.strip_prefix(['-', '+']).unwrap_or(&text);
    let starts_numeric =
        body.starts_with(|c: char| c.is_ascii_digit()) || (body.starts_with('.') && body.len() > 1);
    if !starts_numeric
        || !body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
    {
        return None;
    }
    let value: f64 = text.parse().ok()?;
    value.is_finite().then_some((value, text))
}

/// The texts and work sizes of a file's values, each distinct one kept once.
#[derive(Debug, Clone, Default)]
pub struct Values {
    texts: Vec<Arc<str>>,
    sizes: Vec<Box<[u64]>>,
    text_ids: HashMap<Arc<str>, u32>,
    size_ids: HashMap<Box<[u64]>, u32>,
    scratch: String,
}

impl PartialEq for Values {
    fn eq(&self, other: &Self) -> bool {
        self.texts == other.texts && self.sizes == other.sizes
    }
}

impl Values {
    /// Reads a trimmed field; `decimal_comma` accepts `1,5` (files whose separator is not `,`).
    pub fn parse(&mut self, field: &str, decimal_comma: bool) -> CounterValue {
        let field = field.trim();
        if field.is_empty() {
            return CounterValue::Empty;
        }
        if field == "NULL" || field == "{NULL}" {
            return CounterValue::Null;
        }
        if let Some(inner) = field.strip_prefix('{').and_then(|f| f.strip_suffix('}')) {
            let sizes: Option<Vec<u64>> = inner
                .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
                .filter(|p| !p.is_empty())
                .map(|p| p.parse::<u64>().ok())
                .collect();
            if let Some(sizes) = sizes.filter(|s| !s.is_empty()) {
                return CounterValue::Sizes(self.intern_sizes(sizes));
            }
            return CounterValue::Text(self.intern_text(field));
        }
        if let Some(number) = self.parse_number(field, decimal_comma) {
            return number;
        }
        let text = unescape(field);
        CounterValue::Text(self.intern_text(&text))
    }

    /// A text to refer to by index (kept once).
    pub fn intern_text(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.text_ids.get(text) {
            return id;
        }
        let id = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        let shared: Arc<str> = Arc::from(text);
        self.texts.push(Arc::clone(&shared));
        self.text_ids.insert(shared, id);
        id
    }

    /// The shared text `text` (kernel and device names are kept once per file this way).
    pub fn shared_text(&mut self, text: &str) -> Arc<str> {
        let id = self.intern_text(text);
        self.texts
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from(text))
    }

    fn intern_sizes(&mut self, sizes: Vec<u64>) -> u32 {
        if let Some(&id) = self.size_ids.get(sizes.as_slice()) {
            return id;
        }
        let id = u32::try_from(self.sizes.len()).unwrap_or(u32::MAX);
        let sizes = sizes.into_boxed_slice();
        self.sizes.push(sizes.clone());
        self.size_ids.insert(sizes, id);
        id
    }

    /// A number field as a value (see [`number_of`]), its text kept only when its plain
    /// rendering would not give it back.
    fn parse_number(&mut self, field: &str, decimal_comma: bool) -> Option<CounterValue> {
        let (value, text) = number_of(field, decimal_comma)?;
        // Plain notation whose rendering gives the digits back: no text to keep.
        let decimals = text.split_once('.').map_or(0, |(_, f)| f.len());
        if let Ok(decimals) = u8::try_from(decimals) {
            self.scratch.clear();
            let _ = write!(self.scratch, "{value:.*}", usize::from(decimals));
            if self.scratch == *text {
                return Some(CounterValue::Number { value, decimals });
            }
        }
        Some(CounterValue::Written {
            value,
            text: self.intern_text(&text),
        })
    }

    /// The text of a `Text` value, or of a `Written` number.
    pub fn text(&self, index: u32) -> &str {
        self.texts.get(index as usize).map_or("", |t| t)
    }

    /// The sizes of a `Sizes` value.
    pub fn sizes(&self, index: u32) -> &[u64] {
        self.sizes.get(index as usize).map_or(&[], |s| s)
    }

    /// A number's text as the file wrote it (`None` for other values).
    pub fn number_text(&self, value: &CounterValue) -> Option<Cow<'_, str>> {
        match *value {
            CounterValue::Number { value, decimals } => {
                Some(Cow::Owned(format!("{value:.*}", usize::from(decimals))))
            }
            CounterValue::Written { text, .. } => Some(Cow::Borrowed(self.text(text))),
            _ => None,
        }
    }

    /// A value as the file wrote it: numbers with their digits, work sizes `{x y z}`, `NULL`,
    /// empty fields as nothing.
    pub fn written(&self, value: &CounterValue) -> Cow<'_, str> {
        match value {
            CounterValue::Empty => Cow::Borrowed(""),
            CounterValue::Null => Cow::Borrowed("NULL"),
            CounterValue::Number { .. } | CounterValue::Written { .. } => {
                self.number_text(value).unwrap_or_default()
            }
            CounterValue::Sizes(i) => {
                let parts: Vec<String> = self.sizes(*i).iter().map(u64::to_string).collect();
                Cow::Owned(format!("{{{}}}", parts.join(" ")))
            }
            CounterValue::Text(i) => Cow::Borrowed(self.text(*i)),
        }
    }

    /// The text of a `Text` value (`None` for other values).
    pub fn str_of(&self, value: &CounterValue) -> Option<&str> {
        match *value {
            CounterValue::Text(i) => Some(self.text(i)),
            _ => None,
        }
    }

    /// The sizes of a `Sizes` value (`None` for other values).
    pub fn sizes_of(&self, value: &CounterValue) -> Option<&[u64]> {
        match *value {
            CounterValue::Sizes(i) => Some(self.sizes(i)),
            _ => None,
        }
    }

    /// Bytes held on the heap (texts, sizes, their indexes).
    pub fn heap_bytes(&self) -> usize {
        let texts: usize = self.texts.iter().map(|t| t.len() + 16).sum();
        let sizes: usize = self.sizes.iter().map(|s| 8 * s.len()).sum();
        texts + 2 * sizes + 48 * (self.text_ids.capacity() + self.size_ids.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_text() {
        let mut v = Values::default();
        assert_eq!(v.parse("NULL", false), CounterValue::Null);
        assert_eq!(v.parse("", false), CounterValue::Empty);
        let sizes = v.parse("{ 397952       1       1}", false);
        assert_eq!(v.sizes_of(&sizes), Some(&[397952, 1, 1][..]));
        assert_eq!(
            v.parse("{38656; 1; 1}", false),
            v.parse("{38656 1 1}", false)
        );
        assert_eq!(v.parse("0.00", false).as_f64(), Some(0.0));
        assert_eq!(v.parse("1,5", true).as_f64(), Some(1.5));
        let inf = v.parse("inf", false);
        assert_eq!(v.str_of(&inf), Some("inf"));
        for (written, text) in [
            ("593.28887", "593.28887"),
            ("43.10", "43.10"),
            ("-0.0", "-0.0"),
            ("1e3", "1e3"),
            ("+5", "+5"),
            ("007", "007"),
            ("12345678901234567890", "12345678901234567890"),
            ("1,50", "1.50"),
        ] {
            let value = v.parse(written, true);
            assert!(value.is_number(), "{written}");
            assert_eq!(v.number_text(&value).as_deref(), Some(text), "{written}");
        }
        assert!(matches!(
            v.parse("593.28887", false),
            CounterValue::Number { decimals: 5, .. }
        ));
        assert_eq!(std::mem::size_of::<CounterValue>(), 16);
    }
}
