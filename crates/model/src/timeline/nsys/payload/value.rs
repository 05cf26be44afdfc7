//! Decoded payload values: what a field holds, as text and as JSON.

use std::fmt::{self, Write as _};

/// One decoded field: its name in the schema and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The entry's name (`"entry N"` when the schema gives none).
    pub name: String,
    /// Its value.
    pub value: Value,
}

/// The value of a payload field.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An unsigned integer (up to 128 bits).
    Unsigned(u128),
    /// A signed integer (up to 128 bits).
    Signed(i128),
    /// A floating-point number.
    Float(f64),
    /// A string (or a character).
    Text(String),
    /// An address or pointer (shown in hex).
    Address(u64),
    /// Raw bytes (shown in hex).
    Bytes(Vec<u8>),
    /// An ARGB colour.
    Color(u32),
    /// An enum value with the name of its entry (or of its flags).
    Enum {
        /// The stored number.
        value: u64,
        /// The enum entry's name (`A | B` for flags), `None` when no entry matches.
        name: Option<String>,
    },
    /// An array.
    Array(Vec<Value>),
    /// A nested schema's fields.
    Struct(Vec<Field>),
    /// Bytes that could not be decoded, with why.
    Raw {
        /// The bytes.
        bytes: Vec<u8>,
        /// Why they were not decoded.
        why: String,
    },
}

impl Value {
    /// The value as an unsigned integer, when it is one (array lengths, union selectors).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Unsigned(v) => u64::try_from(*v).ok(),
            Value::Signed(v) => u64::try_from(*v).ok(),
            Value::Enum { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// Writes the value as JSON: numbers as numbers (integers past 2^53 as well, as the
    /// export holds them), text as strings, enums as their name, arrays and nested schemas as
    /// arrays and objects, bytes and addresses as hex strings.
    pub fn write_json(&self, out: &mut String) {
        match self {
            Value::Unsigned(v) => {
                let _ = write!(out, "{v}");
            }
            Value::Signed(v) => {
                let _ = write!(out, "{v}");
            }
            Value::Float(v) if v.is_finite() => {
                let _ = write!(out, "{v:?}");
            }
            Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_json(out);
                }
                out.push(']');
            }
            Value::Struct(fields) => write_fields_json(fields, out),
            Value::Enum { value, name: None } => {
                let _ = write!(out, "{value}");
            }
            Value::Enum {
                name: Some(name), ..
            } => json_string(name, out),
            other => json_string(&other.to_string(), out),
        }
    }
}

/// Writes `fields` as one JSON object (`{"name": value, ...}`).
pub fn write_fields_json(fields: &[Field], out: &mut String) {
    out.push('{');
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_string(&f.name, out);
        out.push_str(": ");
        f.value.write_json(out);
    }
    out.push('}');
}

/// `text` as a JSON string.
pub fn json_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `bytes` as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unsigned(v) => write!(f, "{v}"),
            Value::Signed(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Text(t) => f.write_str(t),
            Value::Address(a) => write!(f, "0x{a:x}"),
            Value::Bytes(b) => write!(f, "0x{}", hex(b)),
            Value::Color(c) => write!(f, "#{c:08X}"),
            Value::Enum { value, name } => match name {
                Some(n) => write!(f, "{n} ({value})"),
                None => write!(f, "{value}"),
            },
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Struct(fields) => {
                f.write_str("{")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {}", field.name, field.value)?;
                }
                f.write_str("}")
            }
            Value::Raw { bytes, why } => write!(f, "0x{} ({why})", hex(bytes)),
        }
    }
}
