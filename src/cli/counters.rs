//! `sightline counters S.csv [--json|--csv]`: a CodeXL / RCP performance-counter file as a table
//! with the session header above it and per-kernel aggregates below, as JSON
//! (`{"header": {...}, "columns": [...], "rows": [{COLUMN: value, ..., "kernel", "kernel_id",
//! "device"}]}`: numbers as numbers, work sizes as arrays, `NULL` and empty fields as null), or
//! as CSV (comma-separated, the three split `Method` columns appended).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::codexl::{CounterFile, CounterValue, Values};
use crate::problem::Problem;

use super::common::csv_field;

/// Output format of `counters` and `occupancy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Aligned text.
    Text,
    /// JSON.
    Json,
    /// CSV.
    Csv,
}

impl TableFormat {
    /// From the `--json` / `--csv` flags (text when neither).
    pub fn from_flags(json: bool, csv: bool) -> TableFormat {
        if json {
            TableFormat::Json
        } else if csv {
            TableFormat::Csv
        } else {
            TableFormat::Text
        }
    }
}

/// Arguments of `sightline counters`.
#[derive(clap::Args, Debug, Clone)]
pub struct CountersArgs {
    /// The counter file (.csv).
    pub file: PathBuf,
    /// Print JSON {"header", "columns", "rows": [{COLUMN: value, ..., "kernel", "kernel_id", "device"}]}.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV (with kernel, kernel_id and device columns).
    #[arg(long)]
    pub csv: bool,
}

/// Reads the file, prints warnings on stderr (`sightline: warning: FILE:LINE: message`) and
/// renders the table.
pub fn run(args: &CountersArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let file = CounterFile::open(&args.file)?;
    print_warnings(&args.file, file.warnings());
    let extra = |r: usize| {
        let row = &file.rows[r];
        (&*row.kernel, row.kernel_id, row.device.as_deref())
    };
    let values: Vec<&[CounterValue]> = file.rows.iter().map(|r| &*r.values).collect();
    let table = TableView {
        store: &file.values,
        header: &file.table.header,
        columns: &file.table.columns,
        values: &values,
        extra: &extra,
    };
    match TableFormat::from_flags(args.json, args.csv) {
        TableFormat::Json => table.write_json(out)?,
        TableFormat::Csv => table.write_csv(out)?,
        TableFormat::Text => {
            table.write_text(out)?;
            let aggregates = file.aggregates();
            if !aggregates.is_empty() {
                writeln!(out)?;
                writeln!(
                    out,
                    "Kernels (time column: {})",
                    file.time_column()
                        .map_or("", |i| file.table.columns[i].as_str())
                )?;
                let mut rows = vec![
                    [
                        "Kernel",
                        "Device",
                        "Dispatches",
                        "Total (ms)",
                        "Average (ms)",
                    ]
                    .map(String::from)
                    .to_vec(),
                ];
                for a in &aggregates {
                    rows.push(vec![
                        a.kernel.clone(),
                        a.device.clone().unwrap_or_default(),
                        a.dispatches.to_string(),
                        format!("{:.5}", a.total_time_ms),
                        format!("{:.5}", a.average_time_ms),
                    ]);
                }
                write_aligned(out, &rows)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints reader warnings on stderr.
pub fn print_warnings(path: &std::path::Path, warnings: &[Problem]) {
    for warning in warnings {
        eprintln!("sightline: warning: {}", warning.plain_in(path));
    }
}

/// Kernel, kernel id and device of row `i`.
pub type ExtraColumns<'a> = dyn Fn(usize) -> (&'a str, Option<u32>, Option<&'a str>) + 'a;

/// A table to render: header entries, columns, typed values per row, and the split kernel.
pub struct TableView<'a> {
    /// The texts and work sizes the values refer to.
    pub store: &'a Values,
    /// Header entries in file order.
    pub header: &'a [(String, String)],
    /// Column names.
    pub columns: &'a [String],
    /// Values per row.
    pub values: &'a [&'a [CounterValue]],
    /// Kernel, kernel id, device of a row.
    pub extra: &'a ExtraColumns<'a>,
}

impl TableView<'_> {
    /// The JSON document.
    pub fn write_json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        write!(out, "{{\"header\": {{")?;
        let mut keys: Vec<&str> = Vec::new();
        for (key, _) in self.header {
            if !keys.contains(&key.as_str()) {
                keys.push(key);
            }
        }
        for (i, key) in keys.iter().enumerate() {
            let values: Vec<&str> = self
                .header
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
                .collect();
            write!(
                out,
                "{}{}: ",
                if i > 0 { ", " } else { "" },
                json_string(key)
            )?;
            if let [one] = values.as_slice() {
                write!(out, "{}", json_string(one))?;
            } else {
                let items: Vec<String> = values.iter().map(|v| json_string(v)).collect();
                write!(out, "[{}]", items.join(", "))?;
            }
        }
        write!(out, "}}, \"columns\": [")?;
        let columns: Vec<String> = self.columns.iter().map(|c| json_string(c)).collect();
        write!(out, "{}], \"rows\": [", columns.join(", "))?;
        for (r, values) in self.values.iter().enumerate() {
            write!(out, "{}\n  {{", if r > 0 { "," } else { "" })?;
            for (c, column) in self.columns.iter().enumerate() {
                let value = values.get(c).unwrap_or(&CounterValue::Empty);
                write!(
                    out,
                    "{}: {}, ",
                    json_string(column),
                    json_value(self.store, value)
                )?;
            }
            let (kernel, id, device) = (self.extra)(r);
            write!(
                out,
                "\"kernel\": {}, \"kernel_id\": {}, \"device\": {}}}",
                json_string(kernel),
                id.map_or("null".to_string(), |i| i.to_string()),
                device.map_or("null".to_string(), json_string)
            )?;
        }
        writeln!(out, "{}]}}", if self.values.is_empty() { "" } else { "\n" })
    }

    /// CSV: the columns then `kernel,kernel_id,device`.
    pub fn write_csv(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut header: Vec<String> = self.columns.iter().map(|c| csv_field(c)).collect();
        header.extend(["kernel", "kernel_id", "device"].map(String::from));
        writeln!(out, "{}", header.join(","))?;
        for (r, values) in self.values.iter().enumerate() {
            let mut fields: Vec<String> = (0..self.columns.len())
                .map(|c| {
                    csv_field(&plain_value(
                        self.store,
                        values.get(c).unwrap_or(&CounterValue::Empty),
                    ))
                })
                .collect();
            let (kernel, id, device) = (self.extra)(r);
            fields.push(csv_field(kernel));
            fields.push(id.map_or(String::new(), |i| i.to_string()));
            fields.push(csv_field(device.unwrap_or("")));
            writeln!(out, "{}", fields.join(","))?;
        }
        Ok(())
    }

    /// The header as `Key: value` lines, then the aligned table.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for (key, value) in self.header {
            writeln!(out, "{key}: {value}")?;
        }
        if !self.header.is_empty() {
            writeln!(out)?;
        }
        let mut rows: Vec<Vec<String>> = Vec::with_capacity(self.values.len() + 1);
        let mut head: Vec<String> = self.columns.to_vec();
        head.extend(["Kernel", "Kernel id", "Device"].map(String::from));
        rows.push(head);
        for (r, values) in self.values.iter().enumerate() {
            let mut row: Vec<String> = (0..self.columns.len())
                .map(|c| plain_value(self.store, values.get(c).unwrap_or(&CounterValue::Empty)))
                .collect();
            let (kernel, id, device) = (self.extra)(r);
            row.push(kernel.to_string());
            row.push(id.map_or(String::new(), |i| i.to_string()));
            row.push(device.unwrap_or("").to_string());
            rows.push(row);
        }
        write_aligned(out, &rows)
    }
}

/// Left-aligned columns separated by two spaces.
pub fn write_aligned(out: &mut dyn Write, rows: &[Vec<String>]) -> std::io::Result<()> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if c + 1 < row.len() {
                line.extend(std::iter::repeat_n(
                    ' ',
                    widths[c].saturating_sub(cell.chars().count()),
                ));
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Sizes written with `separator` between them.
fn joined(sizes: &[u64], separator: &str) -> String {
    sizes
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(separator)
}

/// A value as text: numbers as written, sizes `{x y z}`, `NULL`, empty.
pub fn plain_value(store: &Values, value: &CounterValue) -> String {
    store.written(value).into_owned()
}

/// A value as JSON: numbers as numbers (the file's digits when they are valid JSON), sizes as
/// arrays, `NULL` and empty as null, text as a string.
pub fn json_value(store: &Values, value: &CounterValue) -> String {
    match value {
        CounterValue::Empty | CounterValue::Null => "null".into(),
        CounterValue::Number { .. } | CounterValue::Written { .. } => {
            let text = store.written(value);
            let trimmed = text.strip_prefix('+').unwrap_or(&text);
            if is_json_number(trimmed) {
                trimmed.to_string()
            } else {
                format!("{}", value.as_f64().unwrap_or_default())
            }
        }
        CounterValue::Sizes(i) => format!("[{}]", joined(store.sizes(*i), ", ")),
        CounterValue::Text(i) => json_string(store.text(*i)),
    }
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let int_start = i;
    let n = digits(&mut i);
    if n == 0 || (n > 1 && b[int_start] == b'0') {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A JSON string literal.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers() {
        for ok in ["0", "0.00", "-1.5", "434.40237", "1e5", "2E-3"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["", "00", "012", "1.", ".5", "1e", "-"] {
            assert!(!is_json_number(bad), "{bad}");
        }
        let mut store = Values::default();
        let written = store.parse("012", false);
        assert_eq!(json_value(&store, &written), "12");
        assert_eq!(json_string("a\"b\\\u{1}"), "\"a\\\"b\\\\\\u0001\"");
    }
}
