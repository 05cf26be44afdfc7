//! Page-level salvage of an SQLite file whose schema cannot be read (a damaged `sqlite_master`,
//! a file cut short before its schema ends): the table b-trees are walked from the pages
//! themselves, as SQLite's documented file format lays them out
//! (<https://www.sqlite.org/fileformat2.html>), and every record that decodes is copied into a
//! temporary database, which the loader then reads as the export (naming the original file).
//!
//! - The schema records (`type, name, tbl_name, rootpage, sql`) come from the `sqlite_master`
//!   b-tree at page 1 where it still walks, and from every table-leaf page of the file whose
//!   records have that shape (its leaves survive a damaged root).
//! - Each table's b-tree is walked from its root page; pages that are not b-tree pages, lie
//!   past the end of the file or were visited already are skipped and counted.
//! - A record: its payload (with overflow pages), the serial types of its header, the values.
//!   An `INTEGER PRIMARY KEY` column, stored as NULL, takes the rowid.
//!
//! Memory: the file is memory-mapped and rows go straight into the temporary database.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::Value;

use super::NsysError;
use crate::mapped::MappedFile;

/// The magic string at the start of every SQLite file.
const MAGIC: &[u8] = b"SQLite format 3\0";

/// What was salvaged.
#[derive(Debug)]
pub struct Salvaged {
    file: tempfile::NamedTempFile,
    /// Rows copied, per table.
    pub rows: BTreeMap<String, u64>,
    /// Pages that were needed but could not be read (not a b-tree page, past the end).
    pub bad_pages: u64,
    /// Tables of the schema whose b-tree did not walk at all.
    pub lost_tables: Vec<String>,
}

impl Salvaged {
    /// The temporary database holding what was salvaged (removed when dropped).
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// One line for the load warnings.
    pub fn summary(&self) -> String {
        let rows: u64 = self.rows.values().sum();
        let mut text = format!(
            "the file's schema could not be read by SQLite: salvaged page by page, {} tables, \
             {rows} rows",
            self.rows.len()
        );
        if self.bad_pages > 0 {
            text.push_str(&format!("; {} pages could not be read", self.bad_pages));
        }
        if !self.lost_tables.is_empty() {
            text.push_str(&format!("; tables lost: {}", self.lost_tables.join(", ")));
        }
        text
    }
}

/// Whether `path` starts as an SQLite file does.
pub fn looks_like_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok()
        && head == MAGIC
}

/// The pages of a mapped SQLite file.
struct Pages<'a> {
    bytes: &'a [u8],
    size: usize,
    usable: usize,
    count: u32,
}

impl<'a> Pages<'a> {
    fn new(bytes: &'a [u8]) -> Option<Pages<'a>> {
        if bytes.len() < 100 || &bytes[..16] != MAGIC {
            return None;
        }
        let raw = u16::from_be_bytes([bytes[16], bytes[17]]);
        let size = if raw == 1 { 65_536 } else { usize::from(raw) };
        // A damaged header: the usual page size of exports.
        let size = if size >= 512 && size.is_power_of_two() {
            size
        } else {
            4096
        };
        let reserved = usize::from(bytes[20]);
        let usable = size.saturating_sub(reserved).max(480);
        let count = u32::try_from(bytes.len() / size).unwrap_or(u32::MAX);
        Some(Pages {
            bytes,
            size,
            usable,
            count,
        })
    }

    /// Page `n` (1-based) when it is in the file.
    fn page(&self, n: u32) -> Option<&'a [u8]> {
        if n == 0 || n > self.count {
            return None;
        }
        let start = (n as usize - 1) * self.size;
        self.bytes.get(start..start + self.size)
    }

    /// The b-tree header's offset in page `n` (page 1 starts with the file header).
    fn header(n: u32) -> usize {
        if n == 1 { 100 } else { 0 }
    }

    /// The records of leaf page `n`: `(rowid, values)`; records that do not decode are skipped.
    fn leaf_records(&self, n: u32, out: &mut Vec<(i64, Vec<Value>)>) -> Option<()> {
        let data = self.page(n)?;
        let h = Pages::header(n);
        if *data.get(h)? != 0x0D {
            return None;
        }
        let cells = usize::from(be16(data, h + 3)?);
        for i in 0..cells {
            let Some(at) = be16(data, h + 8 + 2 * i) else {
                continue;
            };
            if let Some(record) = self.cell(data, usize::from(at)) {
                out.push(record);
            }
        }
        Some(())
    }

    /// Whether leaf page `n` starts with a schema record (the pages of `sqlite_master` hold
    /// nothing else): only its first cell is decoded.
    fn first_is_schema(&self, n: u32) -> bool {
        let Some(data) = self.page(n) else {
            return false;
        };
        let h = Pages::header(n);
        if data.get(h) != Some(&0x0D) || be16(data, h + 3).is_none_or(|c| c == 0) {
            return false;
        }
        be16(data, h + 8)
            .and_then(|at| self.cell(data, usize::from(at)))
            .is_some_and(|(_, values)| schema_shaped(&values))
    }

    /// A table-leaf cell at `at`: its rowid and values.
    fn cell(&self, data: &[u8], at: usize) -> Option<(i64, Vec<Value>)> {
        let (size, a) = varint(data, at)?;
        let (rowid, b) = varint(data, at + a)?;
        let size = usize::try_from(size).ok()?;
        if size > self.bytes.len() {
            return None;
        }
        let start = at + a + b;
        let u = self.usable;
        let max_local = u - 35;
        let payload: std::borrow::Cow<'_, [u8]> = if size <= max_local {
            std::borrow::Cow::Borrowed(data.get(start..start + size)?)
        } else {
            let min_local = (u - 12) * 32 / 255 - 23;
            let k = min_local + (size - min_local) % (u - 4);
            let local = if k <= max_local { k } else { min_local };
            let mut bytes = Vec::with_capacity(size);
            bytes.extend_from_slice(data.get(start..start + local)?);
            let mut next = be32(data, start + local)?;
            let mut hops = 0u32;
            while bytes.len() < size {
                let page = self.page(next)?;
                hops += 1;
                if hops > self.count {
                    return None;
                }
                let take = (size - bytes.len()).min(u - 4);
                bytes.extend_from_slice(page.get(4..4 + take)?);
                next = be32(page, 0)?;
            }
            std::borrow::Cow::Owned(bytes)
        };
        Some((rowid as i64, record(&payload)?))
    }

    /// Walks the table b-tree at `root`: every leaf's records into `out`; pages that do not
    /// read are counted in `bad`.
    fn walk(
        &self,
        root: u32,
        out: &mut Vec<(i64, Vec<Value>)>,
        seen: &mut HashSet<u32>,
        bad: &mut u64,
    ) {
        let mut stack = vec![(root, 0u32)];
        while let Some((n, depth)) = stack.pop() {
            if depth > 64 || !seen.insert(n) {
                *bad += 1;
                continue;
            }
            let Some(data) = self.page(n) else {
                *bad += 1;
                continue;
            };
            let h = Pages::header(n);
            match data[h] {
                0x0D => {
                    let _ = self.leaf_records(n, out);
                }
                0x05 => {
                    let cells = be16(data, h + 3).map_or(0, usize::from);
                    // Right-most child last in key order: pushed first, popped last.
                    if let Some(right) = be32(data, h + 8) {
                        stack.push((right, depth + 1));
                    }
                    for i in (0..cells).rev() {
                        if let Some(child) =
                            be16(data, h + 12 + 2 * i).and_then(|at| be32(data, usize::from(at)))
                        {
                            stack.push((child, depth + 1));
                        }
                    }
                }
                _ => *bad += 1,
            }
        }
    }
}

fn be16(data: &[u8], at: usize) -> Option<u16> {
    data.get(at..at + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
}

fn be32(data: &[u8], at: usize) -> Option<u32> {
    data.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// SQLite's varint: up to 8 bytes of 7 bits (high bit set = more), a 9th of 8 bits.
fn varint(data: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    for i in 0..9 {
        let byte = *data.get(at + i)?;
        if i == 8 {
            return Some(((value << 8) | u64::from(byte), 9));
        }
        value = (value << 7) | u64::from(byte & 0x7F);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// The values of a record (`None` when its header does not decode).
fn record(payload: &[u8]) -> Option<Vec<Value>> {
    let (header_len, mut at) = varint(payload, 0)?;
    let header_len = usize::try_from(header_len).ok()?;
    if header_len > payload.len() {
        return None;
    }
    let mut types = Vec::new();
    while at < header_len {
        let (t, n) = varint(payload, at)?;
        types.push(t);
        at += n;
    }
    let mut body = header_len;
    let mut values = Vec::with_capacity(types.len());
    for t in types {
        let int = |len: usize, body: usize| -> Option<i64> {
            let bytes = payload.get(body..body + len)?;
            let mut v: i64 = if bytes.first()? & 0x80 != 0 { -1 } else { 0 };
            for &b in bytes {
                v = (v << 8) | i64::from(b);
            }
            Some(v)
        };
        let (value, len) = match t {
            0 => (Value::Null, 0),
            1..=6 => {
                let len = [0, 1, 2, 3, 4, 6, 8][crate::core::num::saturating_usize(t)];
                (Value::Integer(int(len, body)?), len)
            }
            7 => {
                let bytes: [u8; 8] = payload.get(body..body + 8)?.try_into().ok()?;
                (Value::Real(f64::from_bits(u64::from_be_bytes(bytes))), 8)
            }
            8 => (Value::Integer(0), 0),
            9 => (Value::Integer(1), 0),
            10 | 11 => return None,
            t if t % 2 == 0 => {
                let len = usize::try_from((t - 12) / 2).ok()?;
                (Value::Blob(payload.get(body..body + len)?.to_vec()), len)
            }
            t => {
                let len = usize::try_from((t - 13) / 2).ok()?;
                let text = String::from_utf8_lossy(payload.get(body..body + len)?).into_owned();
                (Value::Text(text), len)
            }
        };
        values.push(value);
        body += len;
    }
    Some(values)
}

/// Whether `values` is a record of `sqlite_master` (an automatic index has no SQL).
fn schema_shaped(values: &[Value]) -> bool {
    matches!(
        values,
        [Value::Text(kind), Value::Text(_), Value::Text(_), Value::Integer(_), Value::Text(_) | Value::Null]
            if matches!(kind.as_str(), "table" | "index" | "view" | "trigger")
    )
}

/// A schema record: `(type, name, rootpage, sql)` when `values` has that shape.
fn schema_entry(values: &[Value]) -> Option<(String, String, u32, String)> {
    let [
        Value::Text(kind),
        Value::Text(name),
        _,
        Value::Integer(root),
        Value::Text(sql),
    ] = values
    else {
        return None;
    };
    if !matches!(kind.as_str(), "table" | "index" | "view" | "trigger")
        || !sql.trim_start().to_ascii_uppercase().starts_with("CREATE")
    {
        return None;
    }
    Some((
        kind.clone(),
        name.clone(),
        u32::try_from(*root).ok()?,
        sql.clone(),
    ))
}

/// Salvages the SQLite file at `path` into a temporary database.
pub fn salvage(path: &Path) -> Result<Salvaged, NsysError> {
    let io = |source| NsysError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mapped = MappedFile::open(&file).map_err(io)?;
    let failed = |detail: String| NsysError::NotSqlite {
        path: path.to_path_buf(),
        detail,
    };
    let pages = Pages::new(mapped.bytes())
        .ok_or_else(|| failed("not an SQLite file (no SQLite header)".into()))?;
    // The schema: from the b-tree at page 1, then from every leaf page with schema records.
    let mut schema: BTreeMap<String, (u32, String)> = BTreeMap::new();
    let mut records = Vec::new();
    pages.walk(1, &mut records, &mut HashSet::new(), &mut 0);
    for n in 1..=pages.count {
        if n > 1 && pages.first_is_schema(n) {
            let _ = pages.leaf_records(n, &mut records);
        }
        for (_, values) in records.drain(..) {
            if let Some((kind, name, root, sql)) = schema_entry(&values)
                && kind == "table"
                && !name.starts_with("sqlite_")
                && root > 0
            {
                schema.entry(name).or_insert((root, sql));
            }
        }
    }
    if schema.is_empty() {
        return Err(failed(
            "the schema is damaged and no table definition survives in the file's pages".into(),
        ));
    }
    let (temp, conn) = super::db::temp_database("sightline-salvaged-")?;
    let write = |e: rusqlite::Error| failed(format!("writing the salvaged copy: {e}"));
    let mut salvaged = Salvaged {
        file: temp,
        rows: BTreeMap::new(),
        bad_pages: 0,
        lost_tables: Vec::new(),
    };
    let mut seen = HashSet::new();
    for (name, (root, sql)) in &schema {
        // Without NOT NULL: a column of a damaged record may be missing.
        if conn.execute_batch(&sql.replace("NOT NULL", "")).is_err() {
            salvaged.lost_tables.push(name.clone());
            continue;
        }
        let columns = table_columns(&conn, name).map_err(write)?;
        let alias = columns.iter().position(|(_, integer_key)| *integer_key);
        let mut rows = Vec::new();
        let before = salvaged.bad_pages;
        pages.walk(*root, &mut rows, &mut seen, &mut salvaged.bad_pages);
        if rows.is_empty() && salvaged.bad_pages > before {
            salvaged.lost_tables.push(name.clone());
            continue;
        }
        let list = columns
            .iter()
            .map(|(c, _)| super::db::quote_ident(c))
            .collect::<Vec<_>>()
            .join(", ");
        let marks = vec!["?"; columns.len() + 1].join(", ");
        let sql = format!(
            "INSERT OR IGNORE INTO {} (rowid, {list}) VALUES ({marks})",
            super::db::quote_ident(name)
        );
        let tx = conn.unchecked_transaction().map_err(write)?;
        let mut n = 0u64;
        {
            let mut stmt = tx.prepare(&sql).map_err(write)?;
            for (rowid, mut values) in rows {
                values.resize(columns.len(), Value::Null);
                if let Some(a) = alias
                    && values[a] == Value::Null
                {
                    values[a] = Value::Integer(rowid);
                }
                let params = std::iter::once(Value::Integer(rowid)).chain(values);
                n += stmt
                    .execute(rusqlite::params_from_iter(params))
                    .map_err(write)? as u64;
            }
        }
        tx.commit().map_err(write)?;
        salvaged.rows.insert(name.clone(), n);
    }
    Ok(salvaged)
}

/// The columns of `table` in the salvage database, and whether each is its `INTEGER PRIMARY
/// KEY` (stored as NULL in the records: the rowid).
fn table_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare(&format!(
        "PRAGMA table_info({})",
        super::db::quote_ident(table)
    ))?;
    let rows: Vec<(String, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(1)?, r.get(2)?, r.get(5)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let keys = rows.iter().filter(|(_, _, pk)| *pk > 0).count();
    Ok(rows
        .into_iter()
        .map(|(name, kind, pk)| {
            let alias = keys == 1 && pk == 1 && kind.eq_ignore_ascii_case("INTEGER");
            (name, alias)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_decode_every_serial_type() {
        // Header: size 7, types NULL, i8, i16, f64, 0, 1, text "ab" (17), blob of 1 (14).
        let mut payload = vec![9u8, 0, 1, 2, 7, 8, 9, 17, 14];
        payload.push(0xFF); // i8 -1
        payload.extend_from_slice(&300i16.to_be_bytes());
        payload.extend_from_slice(&1.5f64.to_be_bytes());
        payload.extend_from_slice(b"ab");
        payload.push(7);
        assert_eq!(
            record(&payload),
            Some(vec![
                Value::Null,
                Value::Integer(-1),
                Value::Integer(300),
                Value::Real(1.5),
                Value::Integer(0),
                Value::Integer(1),
                Value::Text("ab".into()),
                Value::Blob(vec![7]),
            ])
        );
        assert_eq!(record(&[200]), None, "a header longer than the payload");
    }
}
