//! Performance counters (`SESSION.csv`) in every dialect: current RCP files (`#` header,
//! any `ListSeparator`, fixed-width right-aligned numbers, `{ x y z}` sizes, `NULL`), the old
//! sprofile files (no header, `{x; y; z}` sizes, data-transfer rows with empty kernel fields),
//! and HSA files whose kernel names escape space and comma.

use std::collections::HashMap;
use std::path::Path;

use super::table::{ProfileTable, parse_table};
use super::text::unescape;
use super::{CodexlError, read_file};
use crate::problem::Problem;

/// One field's value.
#[derive(Debug, Clone, PartialEq)]
pub enum CounterValue {
    /// An empty field.
    Empty,
    /// `NULL` (e.g. a local work size the application left NULL).
    Null,
    /// A number; `text` is how the file wrote it (trimmed, decimal point `.`).
    Number {
        /// The value.
        value: f64,
        /// The digits as written.
        text: String,
    },
    /// A work size `{x y z}` / `{x; y; z}`.
    Sizes(Vec<u64>),
    /// Anything else (names; escapes undone).
    Text(String),
}

impl CounterValue {
    /// Reads a trimmed field; `decimal_comma` accepts `1,5` (files whose separator is not `,`).
    pub fn parse(field: &str, decimal_comma: bool) -> CounterValue {
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
                return CounterValue::Sizes(sizes);
            }
            return CounterValue::Text(field.to_string());
        }
        if let Some(number) = parse_number(field, decimal_comma) {
            return number;
        }
        CounterValue::Text(unescape(field).into_owned())
    }

    /// The numeric value, if any.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            CounterValue::Number { value, .. } => Some(*value),
            _ => None,
        }
    }
}

/// A decimal number with optional sign, fraction and exponent (no `inf`/`nan` words).
fn parse_number(field: &str, decimal_comma: bool) -> Option<CounterValue> {
    let text = if decimal_comma && field.matches(',').count() == 1 && !field.contains('.') {
        field.replace(',', ".")
    } else {
        field.to_string()
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
    value
        .is_finite()
        .then_some(CounterValue::Number { value, text })
}

/// Which writer generation produced the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterDialect {
    /// RCP / CodeXL with a `#` header.
    Rcp,
    /// ATI Stream / AMD APP Profiler (sprofile) without a header.
    Sprofile,
}

/// One dispatch (or data transfer) row.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterRow {
    /// 1-based line in the file.
    pub line: u64,
    /// One value per column (missing fields are `Empty`; extra fields are dropped with the
    /// table's warning).
    pub values: Vec<CounterValue>,
    /// Kernel name from `Method` (escapes undone); the whole `Method` when it has no `__k`.
    pub kernel: String,
    /// Kernel id from `Method` (`__k<id>_`).
    pub kernel_id: Option<u32>,
    /// Device from `Method` (`_<device><n>`).
    pub device: Option<String>,
}

/// Dispatch count and time of one kernel (on one device).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelAggregate {
    /// Kernel name.
    pub kernel: String,
    /// Device, when `Method` names one.
    pub device: Option<String>,
    /// Rows with a time.
    pub dispatches: usize,
    /// Sum of the time column (ms).
    pub total_time_ms: f64,
    /// `total / dispatches` (ms).
    pub average_time_ms: f64,
}

/// A parsed counter file.
#[derive(Debug, Clone)]
pub struct CounterFile {
    /// The table as read (header entries, columns, raw fields, warnings).
    pub table: ProfileTable,
    /// Writer generation.
    pub dialect: CounterDialect,
    /// Typed rows.
    pub rows: Vec<CounterRow>,
    /// Device names of the header's `#Device <name> <property>=` lines.
    pub devices: Vec<String>,
}

impl CounterFile {
    /// Reads a file.
    pub fn open(path: &Path) -> Result<CounterFile, CodexlError> {
        Ok(Self::parse(&read_file(path)?))
    }

    /// Parses the bytes of a counter file.
    pub fn parse(data: &[u8]) -> CounterFile {
        let table = parse_table(data);
        let dialect = if table.header.is_empty() {
            CounterDialect::Sprofile
        } else {
            CounterDialect::Rcp
        };
        let mut devices: Vec<String> = Vec::new();
        for (key, _) in &table.header {
            if let Some(rest) = key.strip_prefix("Device ")
                && let Some(name) = rest.split_whitespace().next()
                && !devices.iter().any(|d| d == name)
            {
                devices.push(name.to_string());
            }
        }
        let method = table.column("Method");
        let decimal_comma = table.separator != ',';
        let rows = table
            .rows
            .iter()
            .map(|row| {
                let values: Vec<CounterValue> = (0..table.columns.len())
                    .map(|i| {
                        row.fields.get(i).map_or(CounterValue::Empty, |f| {
                            CounterValue::parse(f, decimal_comma)
                        })
                    })
                    .collect();
                let method_text = method
                    .and_then(|i| row.fields.get(i))
                    .map(String::as_str)
                    .unwrap_or("");
                let (kernel, kernel_id, device) = split_method(method_text, &devices);
                CounterRow {
                    line: row.line,
                    values,
                    kernel,
                    kernel_id,
                    device,
                }
            })
            .collect();
        CounterFile {
            table,
            dialect,
            rows,
            devices,
        }
    }

    /// Problems worked around.
    pub fn warnings(&self) -> &[Problem] {
        &self.table.warnings
    }

    /// The time column (`Time`, or `KernelTime` in sprofile files), in ms.
    pub fn time_column(&self) -> Option<usize> {
        self.table
            .column("Time")
            .or_else(|| self.table.column("KernelTime"))
    }

    /// The values of column `index` across rows (for a bar chart of one counter).
    pub fn column_values(&self, index: usize) -> Vec<Option<f64>> {
        self.rows
            .iter()
            .map(|r| r.values.get(index).and_then(CounterValue::as_f64))
            .collect()
    }

    /// Per kernel (and device): dispatches with a time, total and average time, in order of
    /// first appearance.
    pub fn aggregates(&self) -> Vec<KernelAggregate> {
        let Some(time) = self.time_column() else {
            return Vec::new();
        };
        let mut out: Vec<KernelAggregate> = Vec::new();
        let mut index: HashMap<(&str, Option<&str>), usize> = HashMap::new();
        for row in &self.rows {
            let Some(ms) = row.values.get(time).and_then(CounterValue::as_f64) else {
                continue;
            };
            let key = (row.kernel.as_str(), row.device.as_deref());
            match index.get(&key).and_then(|&i| out.get_mut(i)) {
                Some(a) => {
                    a.dispatches += 1;
                    a.total_time_ms += ms;
                }
                None => {
                    index.insert(key, out.len());
                    out.push(KernelAggregate {
                        kernel: row.kernel.clone(),
                        device: row.device.clone(),
                        dispatches: 1,
                        total_time_ms: ms,
                        average_time_ms: 0.0,
                    });
                }
            }
        }
        for a in &mut out {
            a.average_time_ms = a.total_time_ms / a.dispatches as f64;
        }
        out
    }

    /// The row of the dispatch made by call `call_index` of thread `thread_id` (the
    /// `ThreadID`/`CallIndex` columns), to join with a trace.
    pub fn row_for_call(&self, thread_id: u64, call_index: u64) -> Option<&CounterRow> {
        let thread = self.table.column("ThreadID")?;
        let call = self.table.column("CallIndex")?;
        let matches = |v: Option<&CounterValue>, want: u64| {
            v.and_then(CounterValue::as_f64) == Some(want as f64)
        };
        self.rows.iter().find(|r| {
            matches(r.values.get(thread), thread_id) && matches(r.values.get(call), call_index)
        })
    }
}

/// Splits `Method` = kernel name + `__k<id>_<device><n>`; the device is matched against the
/// header's devices first, else it is the suffix without its trailing digits.
pub fn split_method(method: &str, devices: &[String]) -> (String, Option<u32>, Option<String>) {
    let whole = || (unescape(method).into_owned(), None, None);
    let Some(at) = method.rfind("__k") else {
        return whole();
    };
    let after = &method[at + 3..];
    let digits = after.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || !after[digits..].starts_with('_') || at == 0 {
        return whole();
    }
    let Ok(id) = after[..digits].parse::<u32>() else {
        return whole();
    };
    let suffix = &after[digits + 1..];
    let device = devices
        .iter()
        .filter(|d| {
            suffix.starts_with(d.as_str()) && suffix[d.len()..].chars().all(|c| c.is_ascii_digit())
        })
        .max_by_key(|d| d.len())
        .cloned()
        .or_else(|| {
            let stripped = suffix.trim_end_matches(|c: char| c.is_ascii_digit());
            let name = if stripped.is_empty() {
                suffix
            } else {
                stripped
            };
            (!name.is_empty()).then(|| name.to_string())
        });
    (
        unescape(&method[..at]).into_owned(),
        Some(id),
        device.map(|d| unescape(&d).into_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_split() {
        let devices = vec!["Hawaii".to_string()];
        assert_eq!(
            split_method("multdensity__k2_Hawaii1", &devices),
            ("multdensity".into(), Some(2), Some("Hawaii".into()))
        );
        assert_eq!(
            split_method("k__k12_gfx9031", &["gfx903".to_string()]),
            ("k".into(), Some(12), Some("gfx903".into()))
        );
        assert_eq!(
            split_method("diagSpMV", &devices),
            ("diagSpMV".into(), None, None)
        );
        assert_eq!(
            split_method("a&nbsp;b__k3_Fiji1", &[]),
            ("a b".into(), Some(3), Some("Fiji".into()))
        );
    }

    #[test]
    fn values() {
        assert_eq!(CounterValue::parse("NULL", false), CounterValue::Null);
        assert_eq!(CounterValue::parse("", false), CounterValue::Empty);
        assert_eq!(
            CounterValue::parse("{ 397952       1       1}", false),
            CounterValue::Sizes(vec![397952, 1, 1])
        );
        assert_eq!(
            CounterValue::parse("{38656; 1; 1}", false),
            CounterValue::Sizes(vec![38656, 1, 1])
        );
        assert_eq!(CounterValue::parse("0.00", false).as_f64(), Some(0.0));
        assert_eq!(CounterValue::parse("1,5", true).as_f64(), Some(1.5));
        assert_eq!(
            CounterValue::parse("inf", false),
            CounterValue::Text("inf".into())
        );
    }
}
