//! Column tables: what Sightline hands to columnar tools — an export's SQLite tables, a
//! timeline's events and the `nsys stats` reports, each as typed columns laid out as Apache
//! Arrow lays them out (values, validity, string offsets), so that the Python module passes
//! them to pyarrow without copying through Python objects and `sightline export --format
//! parquet` writes them as Parquet files ([`parquet`]).
//!
//! The model holds no Arrow dependency: the layout is plain vectors, and the Python crate
//! builds its Arrow arrays from them.

pub mod from_sqlite;
pub mod from_timeline;
pub mod parquet;

/// A column's values, one per row (a null row holds a default value: 0, 0.0, or an empty
/// string).
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// 64-bit signed integers (SQLite's INTEGER).
    Int64(Vec<i64>),
    /// 64-bit floats (SQLite's REAL).
    Float64(Vec<f64>),
    /// UTF-8 strings: row `i` is `bytes[offsets[i]..offsets[i + 1]]`.
    Utf8(Strings),
    /// Byte strings (SQLite's BLOB), laid out as [`Values::Utf8`].
    Binary(Strings),
    /// Strings from a small dictionary: row `i` is `dictionary[keys[i]]` (a track path, an
    /// event kind: few distinct values over many rows).
    Dictionary {
        /// Each row's index into `dictionary`.
        keys: Vec<u32>,
        /// The distinct strings.
        dictionary: Vec<String>,
    },
}

/// Variable-length values: offsets into one byte buffer (`offsets.len()` = rows + 1).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Strings {
    /// Where each value starts, and where the last ends.
    pub offsets: Vec<i64>,
    /// Every value's bytes, one after the other.
    pub bytes: Vec<u8>,
}

impl Strings {
    /// An empty buffer of no rows.
    pub fn new() -> Strings {
        Strings {
            offsets: vec![0],
            bytes: Vec::new(),
        }
    }

    /// Appends one value.
    pub fn push(&mut self, value: &[u8]) {
        self.bytes.extend_from_slice(value);
        self.offsets.push(self.bytes.len() as i64);
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where value `i`'s bytes are in [`Strings::bytes`].
    pub fn span(&self, i: usize) -> Option<std::ops::Range<usize>> {
        let at = |o: &i64| usize::try_from(*o).ok();
        Some(at(self.offsets.get(i)?)?..at(self.offsets.get(i + 1)?)?)
    }

    /// Value `i`'s bytes.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.bytes.get(self.span(i)?)
    }
}

impl Values {
    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            Values::Int64(v) => v.len(),
            Values::Float64(v) => v.len(),
            Values::Utf8(s) | Values::Binary(s) => s.len(),
            Values::Dictionary { keys, .. } => keys.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type's name as Arrow spells it ("int64", "double", "string", "binary",
    /// "dictionary<values=string, indices=uint32>").
    pub fn type_name(&self) -> &'static str {
        match self {
            Values::Int64(_) => "int64",
            Values::Float64(_) => "double",
            Values::Utf8(_) => "string",
            Values::Binary(_) => "binary",
            Values::Dictionary { .. } => "dictionary<values=string, indices=uint32>",
        }
    }
}

/// One named column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Its name (the SQLite column's, the report's header).
    pub name: String,
    /// Its values.
    pub values: Values,
    /// Whether each row holds a value; `None` when every row does.
    pub validity: Option<Vec<bool>>,
}

impl Column {
    /// A column whose every row holds a value.
    pub fn full(name: impl Into<String>, values: Values) -> Column {
        Column {
            name: name.into(),
            values,
            validity: None,
        }
    }

    /// Whether row `i` holds a value.
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity
            .as_ref()
            .is_none_or(|v| v.get(i) == Some(&true))
    }

    /// The number of null rows.
    pub fn null_count(&self) -> usize {
        self.validity
            .as_ref()
            .map_or(0, |v| v.iter().filter(|&&b| !b).count())
    }
}

/// A named table of equally long columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnTable {
    /// The table's name (the SQLite table's, the report's).
    pub name: String,
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The number of rows (also when there are no columns).
    pub rows: usize,
    /// What could not be read (damaged pages, values of another type), one line each.
    pub warnings: Vec<String>,
}

impl ColumnTable {
    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// A column from cells of text (a report's, a CSV's): int64 when every non-empty cell is an
/// integer, else double when every one is a number, else string (`text` forces string). Empty
/// cells of a number column are null.
pub fn column_from_text(name: &str, cells: &[&str], text: bool) -> Column {
    let filled = || cells.iter().filter(|c| !c.is_empty());
    let kind = if text {
        Kind::Text
    } else if filled().all(|c| c.parse::<i64>().is_ok()) {
        Kind::Int
    } else if filled().all(|c| c.parse::<f64>().is_ok()) {
        Kind::Float
    } else {
        Kind::Text
    };
    let mut builder = ColumnBuilder::new(name, Some(kind));
    for cell in cells {
        builder.push(match kind {
            Kind::Text | Kind::Blob => Value::Text(cell.as_bytes()),
            _ if cell.is_empty() => Value::Null,
            Kind::Int => cell.parse().map_or(Value::Null, Value::Int),
            Kind::Float => cell.parse().map_or(Value::Null, Value::Float),
        });
    }
    builder.finish()
}

/// One value handed to a [`ColumnBuilder`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// No value.
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// Text (bytes that should be UTF-8; others are decoded leniently).
    Text(&'a [u8]),
    /// Bytes.
    Blob(&'a [u8]),
}

/// The type a [`ColumnBuilder`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// [`Values::Int64`].
    Int,
    /// [`Values::Float64`].
    Float,
    /// [`Values::Utf8`].
    Text,
    /// [`Values::Binary`].
    Blob,
}

/// Builds one column from values of a declared kind. A value of another kind widens the
/// column — integers to floats when only floats come, numbers to text, text to bytes — and
/// is counted, so that the reader can warn that the column's type changed; a column of no
/// declared kind takes the kind of its first value.
#[derive(Debug)]
pub struct ColumnBuilder {
    name: String,
    kind: Option<Kind>,
    ints: Vec<i64>,
    floats: Vec<f64>,
    strings: Strings,
    validity: Vec<bool>,
    /// Values that did not have the declared kind.
    pub mismatched: usize,
    /// Text values that were not UTF-8 (decoded with U+FFFD).
    pub not_utf8: usize,
}

impl ColumnBuilder {
    /// A builder for column `name` of kind `kind` (`None`: the first value's).
    pub fn new(name: impl Into<String>, kind: Option<Kind>) -> ColumnBuilder {
        ColumnBuilder {
            name: name.into(),
            kind,
            ints: Vec::new(),
            floats: Vec::new(),
            strings: Strings::new(),
            validity: Vec::new(),
            mismatched: 0,
            not_utf8: 0,
        }
    }

    /// The column's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Appends one row.
    pub fn push(&mut self, value: Value<'_>) {
        let kind = match (self.kind, value) {
            (_, Value::Null) => {
                self.push_null();
                return;
            }
            (Some(k), _) => k,
            (None, v) => {
                let k = kind_of(v);
                self.widen_to(k);
                k
            }
        };
        let value_kind = kind_of(value);
        if value_kind != kind {
            self.mismatched += 1;
            let wider = wider(kind, value_kind);
            if wider != kind {
                self.widen_to(wider);
            }
        }
        self.validity.push(true);
        self.push_value(value);
    }

    fn push_null(&mut self) {
        self.validity.push(false);
        match self.kind {
            Some(Kind::Int) => self.ints.push(0),
            Some(Kind::Float) => self.floats.push(0.0),
            Some(Kind::Text | Kind::Blob) => self.strings.push(b""),
            // No kind yet: the nulls are filled in when the first value decides it.
            None => {}
        }
    }

    /// Appends `value` to the current kind's vector (`value` converts to it).
    fn push_value(&mut self, value: Value<'_>) {
        match (self.kind, value) {
            (Some(Kind::Int), Value::Int(i)) => self.ints.push(i),
            (Some(Kind::Float), Value::Int(i)) => self.floats.push(i as f64),
            (Some(Kind::Float), Value::Float(f)) => self.floats.push(f),
            (Some(Kind::Text), v) => {
                let text = self.text_of(v);
                self.strings.push(text.as_bytes());
            }
            (Some(Kind::Blob), Value::Text(b) | Value::Blob(b)) => self.strings.push(b),
            (Some(Kind::Blob), v) => self.strings.push(number_text(v).as_bytes()),
            // The column was widened to hold the value's kind: unreachable combinations push
            // a default so that the rows stay aligned.
            (Some(Kind::Int), _) => self.ints.push(0),
            (Some(Kind::Float), _) => self.floats.push(0.0),
            (None, _) => {}
        }
    }

    fn text_of(&mut self, value: Value<'_>) -> String {
        match value {
            Value::Text(b) | Value::Blob(b) => match std::str::from_utf8(b) {
                Ok(s) => s.to_owned(),
                Err(_) => {
                    self.not_utf8 += 1;
                    String::from_utf8_lossy(b).into_owned()
                }
            },
            v => number_text(v),
        }
    }

    /// Converts the rows so far to `kind`.
    fn widen_to(&mut self, kind: Kind) {
        let rows = self.validity.len();
        match (self.kind, kind) {
            (Some(a), b) if a == b => {}
            (None, Kind::Int) => self.ints = vec![0; rows],
            (None, Kind::Float) => self.floats = vec![0.0; rows],
            (None, Kind::Text | Kind::Blob) => {
                for _ in 0..rows {
                    self.strings.push(b"");
                }
            }
            (Some(Kind::Int), Kind::Float) => {
                self.floats = self.ints.drain(..).map(|i| i as f64).collect();
            }
            (Some(Kind::Int | Kind::Float), Kind::Text | Kind::Blob) => {
                let ints = std::mem::take(&mut self.ints);
                let floats = std::mem::take(&mut self.floats);
                for i in 0..rows {
                    let text = match self.kind {
                        _ if !self.validity[i] => String::new(),
                        Some(Kind::Int) => ints[i].to_string(),
                        _ => number_text(Value::Float(floats[i])),
                    };
                    self.strings.push(text.as_bytes());
                }
            }
            // Text → bytes keeps the buffer; nothing narrows.
            _ => {}
        }
        self.kind = Some(kind);
    }

    /// The finished column (a column that met only nulls is text).
    pub fn finish(mut self) -> Column {
        if self.kind.is_none() {
            self.widen_to(Kind::Text);
        }
        let values = match self.kind {
            Some(Kind::Int) => Values::Int64(self.ints),
            Some(Kind::Float) => Values::Float64(self.floats),
            Some(Kind::Blob) => Values::Binary(self.strings),
            _ => Values::Utf8(self.strings),
        };
        let validity = (!self.validity.iter().all(|&v| v)).then_some(self.validity);
        Column {
            name: self.name,
            values,
            validity,
        }
    }
}

fn kind_of(value: Value<'_>) -> Kind {
    match value {
        Value::Int(_) | Value::Null => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Text(_) => Kind::Text,
        Value::Blob(_) => Kind::Blob,
    }
}

/// The kind that holds both: int < float < text < blob.
fn wider(a: Kind, b: Kind) -> Kind {
    let rank = |k| match k {
        Kind::Int => 0,
        Kind::Float => 1,
        Kind::Text => 2,
        Kind::Blob => 3,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// A number as SQLite's `CAST(x AS TEXT)` writes it (floats with at least one decimal, as
/// `15 significant digits`; Rust's shortest form is used, which reads back exactly).
fn number_text(value: Value<'_>) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 => {
            format!("{f:.1}")
        }
        Value::Float(f) => f.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests;
