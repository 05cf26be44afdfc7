//! The table layout shared by `.csv` (performance counters) and `.occupancy` files: `#` comment
//! header lines (`#Key=Value` or `# Key=Value`), one column-header line, one row per dispatch.
//! The separator is the header's `ListSeparator` (any character), else guessed from the column
//! line; fields are trimmed; `{...}` groups are never split. Rows whose field count differs from
//! the columns' are kept with a warning (a known CodeXL bug wrote such files).

use super::text::decode;
use crate::core::problems::CappedProblems;
use crate::core::{Cancelled, Lines, Progress};
use crate::problem::Problem;

/// A parsed table file.
#[derive(Debug, Clone, Default)]
pub struct ProfileTable {
    /// Comment header entries in file order (`Device Hawaii CLDriver Version` = `2482.3`);
    /// a comment without `=` has an empty value.
    pub header: Vec<(String, String)>,
    /// The separator used for rows.
    pub separator: char,
    /// Column names, trimmed.
    pub columns: Vec<String>,
    /// 1-based line of the column line (0 when the file has none).
    pub column_line: u64,
    /// Data rows.
    pub rows: Vec<TableRow>,
    /// Problems worked around.
    pub warnings: Vec<Problem>,
}

/// One data row: its trimmed fields as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// 1-based line number.
    pub line: u64,
    /// Fields, trimmed (there may be more or fewer than columns).
    pub fields: Vec<String>,
}

impl ProfileTable {
    /// The first header value of `key`.
    pub fn header_value(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Index of a column by name (exact first, then ignoring case and spaces).
    pub fn column(&self, name: &str) -> Option<usize> {
        let squash = |s: &str| {
            s.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase()
        };
        self.columns.iter().position(|c| c == name).or_else(|| {
            let wanted = squash(name);
            self.columns.iter().position(|c| squash(c) == wanted)
        })
    }
}

const MAX_WARNINGS: usize = 500;

/// Parses a table file (LF or CRLF, any bytes).
pub fn parse_table(data: &[u8]) -> ProfileTable {
    // Lines without progress are never cancelled: always a table.
    parse_table_with(data, Progress::none()).unwrap_or_default()
}

/// Parses a table file as [`parse_table`] does, reporting the bytes read to `progress` as
/// [`super::STAGE`]; `Err(Cancelled)` when it was cancelled.
pub fn parse_table_with(data: &[u8], progress: Progress<'_>) -> Result<ProfileTable, Cancelled> {
    let mut reader = TableReader::new();
    let mut lines = Lines::with_progress(data, progress, super::STAGE);
    for line in lines.by_ref() {
        if let Some(row) = reader.line(line.raw) {
            reader.table.rows.push(row);
        }
    }
    lines.finish()?;
    Ok(reader.finish())
}

/// Reads a table file a line at a time: the header and column line go into its
/// [`ProfileTable`], each data row is handed back (so a caller can type it and drop the text).
#[derive(Debug)]
pub struct TableReader {
    table: ProfileTable,
    declared: Option<char>,
    warnings: CappedProblems,
    number: u64,
}

impl Default for TableReader {
    fn default() -> Self {
        Self::new()
    }
}

impl TableReader {
    /// A reader before the first line.
    pub fn new() -> TableReader {
        TableReader {
            table: ProfileTable {
                separator: ',',
                ..ProfileTable::default()
            },
            declared: None,
            warnings: CappedProblems::new(MAX_WARNINGS),
            number: 0,
        }
    }

    /// The table so far (header, separator, columns; no rows, and its warnings only once
    /// [`TableReader::finish`]ed).
    pub fn table(&self) -> &ProfileTable {
        &self.table
    }

    fn warn(&mut self, line: u64, message: String) {
        self.warnings.push(super::warning(line, message));
    }

    /// Reads the next line (without its `\n`; a `\r` before it is dropped); returns it when it
    /// is a data row.
    pub fn line(&mut self, raw: &[u8]) -> Option<TableRow> {
        self.number += 1;
        let number = self.number;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = decode(raw);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return None;
        }
        let table = &mut self.table;
        if table.columns.is_empty() && table.column_line == 0 && trimmed.starts_with('#') {
            let body = trimmed[1..].trim_start();
            let (key, value) = body.split_once('=').unwrap_or((body, ""));
            let (key, value) = (key.trim().to_string(), value.trim().to_string());
            if key == "ListSeparator" {
                // The value is the separator itself; a lone space is trimmed away above.
                let raw_value = text.split_once('=').map_or("", |(_, v)| v);
                self.declared = Some(raw_value.chars().next().unwrap_or(' '));
            }
            table.header.push((key, value));
            return None;
        }
        if table.column_line == 0 {
            table.column_line = number;
            let separator = match self.declared {
                Some(sep) if trimmed.contains(sep) => sep,
                // A CodeXL release wrote the column line with ',' and the rows with ';'.
                Some(sep) if trimmed.contains(',') => {
                    table.separator = sep;
                    table.columns = split_fields(trimmed, ',');
                    return None;
                }
                Some(sep) => sep,
                None => guess_separator(trimmed),
            };
            table.separator = separator;
            table.columns = split_fields(trimmed, separator);
            return None;
        }
        let fields = split_fields(&text, table.separator);
        if fields.len() != table.columns.len() {
            let message = format!(
                "row has {} fields, the column line {}: kept",
                fields.len(),
                table.columns.len()
            );
            self.warn(number, message);
        }
        Some(TableRow {
            line: number,
            fields,
        })
    }

    /// The table read (with the rows the caller pushed, if any) and its final warnings.
    pub fn finish(mut self) -> ProfileTable {
        let (mut warnings, dropped) = self.warnings.into_parts();
        if self.table.column_line == 0 {
            warnings.push(super::warning(0, "no column line: the file has no table"));
        }
        if dropped > 0 {
            warnings.push(super::warning(0, format!("{dropped} more warnings")));
        }
        self.table.warnings.extend(warnings);
        self.table
    }
}

/// The most frequent candidate separator outside braces (`,` when none occurs).
fn guess_separator(line: &str) -> char {
    let candidates = [',', ';', '\t', '|'];
    let mut counts = [0usize; 4];
    let mut depth = 0u32;
    for c in line.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => {
                if let Some(i) = candidates.iter().position(|&x| x == c) {
                    counts[i] += 1;
                }
            }
            _ => {}
        }
    }
    let (best, &count) = counts
        .iter()
        .enumerate()
        .max_by_key(|&(i, &n)| (n, std::cmp::Reverse(i)))
        .unwrap_or((0, &0));
    if count == 0 { ',' } else { candidates[best] }
}

/// Splits on `separator` outside `{...}` (and not inside an `&nbsp;`/`&comma;` escape),
/// trimming each field.
pub fn split_fields(line: &str, separator: char) -> Vec<String> {
    let mut fields = Vec::new();
    let mut depth = 0u32;
    let mut current = String::new();
    for c in line.chars() {
        match c {
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            // `&nbsp;` and `&comma;` (HSA name escapes) end with `;`: not a separator.
            _ if c == separator
                && depth == 0
                && !(c == ';' && (current.ends_with("&nbsp") || current.ends_with("&comma"))) =>
            {
                fields.push(current.trim().to_string());
                current.clear();
            }
            _ => current.push(c),
        }
    }
    fields.push(current.trim().to_string());
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcp_header_and_semicolons() {
        let t = parse_table(b"#ProfilerVersion=5.2\r\n#Device Hawaii Platform Vendor=Advanced Micro Devices, Inc.\r\n#ListSeparator=;\r\nMethod; Time; GlobalWorkSize\r\nk__k1_Hawaii1; 1.5; {   1471       1       1}\r\n");
        assert_eq!(t.separator, ';');
        assert_eq!(
            t.header_value("Device Hawaii Platform Vendor"),
            Some("Advanced Micro Devices, Inc.")
        );
        assert_eq!(t.columns, vec!["Method", "Time", "GlobalWorkSize"]);
        assert_eq!(t.rows[0].fields[2], "{   1471       1       1}");
        assert!(t.warnings.is_empty());
    }

    #[test]
    fn columns_with_commas_rows_with_semicolons() {
        let t = parse_table(
            b"# ListSeparator=;\nThread ID,Kernel Name,Kernel occupancy\n1;k;50\n2;k;x;extra\n",
        );
        assert_eq!(t.columns.len(), 3);
        assert_eq!(t.rows[0].fields, vec!["1", "k", "50"]);
        assert_eq!(t.warnings.len(), 1);
        assert_eq!(t.warnings[0].location, crate::problem::Location::line(4));
    }

    #[test]
    fn escapes_are_not_separators() {
        assert_eq!(
            split_fields("a&nbsp;b&comma;c; 1", ';'),
            vec!["a&nbsp;b&comma;c", "1"]
        );
    }

    #[test]
    fn sprofile_without_header() {
        let t = parse_table(b"Method, ExecutionOrder, GlobalWorkSize\ndiag, 4, {38656; 1; 1}\n");
        assert_eq!(t.separator, ',');
        assert_eq!(t.rows[0].fields, vec!["diag", "4", "{38656; 1; 1}"]);
    }
}
