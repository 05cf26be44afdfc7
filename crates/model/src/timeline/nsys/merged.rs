//! One export made of several (the ranks of a job), for `nsys stats` reports over the whole set.
//!
//! [`MergedExport::build`] copies every table of every export into a temporary SQLite file, so
//! that every report runs on it unchanged and groups rows of all files together (a kernel name
//! of two ranks is one row, its instances and times those of both):
//!
//! - `StringIds` holds each distinct string once; every string-id column (a column whose schema
//!   comment names `StringId`, or of a known name where the export has no comments) is renumbered
//!   to the merged ids.
//! - `correlationId`, `callchainId` and the ids of the call-stack tables (`*_CALLCHAINS`,
//!   `COMPOSITE_EVENTS`) are made unique per file (file `k`'s ids plus `k × 2⁴⁰`), so that API
//!   calls pair with their own file's GPU work and samples with their own stacks; the other
//!   files' correlation ids show with that offset. Rows whose key an earlier file's row already
//!   has are left out with a warning ([`MergedExport::warnings`]).
//! - Times (`start`, `end`, `timestamp`) move onto the common clock: each file's session start
//!   (`TARGET_INFO_SESSION_START_TIME`) minus the earliest; files without one stay as written.
//! - Tables that describe rather than record (`ENUM_*`, the export's metadata and session
//!   start) are taken from the first file that has them (so a set where any export has
//!   `ENUM_CUDA_MEMCPY_OPER` gets the newer memory-operation labels for all). Columns a later file lacks are NULL;
//!   columns only a later file has are left out.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::NsysError;
use super::db::quote_ident;

/// Offset between the correlation ids of consecutive files.
pub const CORRELATION_STRIDE: i64 = 1 << 40;

/// Columns that hold string ids in exports whose schema has no comments (the oldest layout).
const STRING_ID_COLUMNS: &[&str] = &[
    "nameId",
    "textId",
    "shortName",
    "mangledName",
    "demangledName",
    "endNameId",
    "objectNameId",
    "filenameId",
    "taskNameId",
    "providerNameId",
    "symbol",
    "module",
];

/// Time columns moved onto the common clock.
const TIME_COLUMNS: &[&str] = &["start", "end", "timestamp"];

/// Whether `column` of `table` is an id that only means something within its file (correlation
/// ids; call stacks and the samples that own them), made unique per file when merged.
fn per_file_id(table: &str, column: &str) -> bool {
    match column {
        "correlationId" | "callchainId" => true,
        "id" => table.ends_with("CALLCHAINS") || table == "COMPOSITE_EVENTS",
        _ => false,
    }
}

/// Whether a table describes the session rather than records events: taken from one file.
fn descriptive(table: &str) -> bool {
    table.starts_with("ENUM_")
        || matches!(
            table,
            "META_DATA_EXPORT"
                | "EXPORT_META_DATA"
                | "TARGET_INFO_SESSION_START_TIME"
                | "StringIds"
                | "ANALYSIS_FILE"
                | "UnwindMethodType"
        )
}

/// A temporary export holding the rows of several exports; the file is removed when dropped.
#[derive(Debug)]
pub struct MergedExport {
    file: tempfile::NamedTempFile,
    /// The exports merged, in order.
    pub sources: Vec<PathBuf>,
    /// How far each file's times were moved (ns).
    pub offsets_ns: Vec<i64>,
    /// Rows left out (a table's key already used by an earlier file), naming file and table.
    pub warnings: Vec<String>,
}

impl MergedExport {
    /// The merged export's path (open it with [`super::db::ExportDb::open`]).
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Copies `exports` into one temporary export (in the system's temporary folder).
    pub fn build(exports: &[PathBuf]) -> Result<MergedExport, NsysError> {
        let (file, conn) = super::db::temp_database("sightline-merged-")?;
        let out = file.path().to_path_buf();
        let failed = |path: &Path, detail: String| NsysError::Query {
            path: path.to_path_buf(),
            table: "(merging)".into(),
            detail,
        };
        conn.execute_batch(
            "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL); \
             CREATE UNIQUE INDEX sightline_string_value ON StringIds(value);",
        )
        .map_err(|e| failed(&out, e.to_string()))?;
        // Each opened as the loader opens it (with the usual errors naming the file): one
        // whose schema does not read is salvaged, and the salvaged copy is merged.
        let dbs = exports
            .iter()
            .map(|p| super::db::ExportDb::open_salvaging(p))
            .collect::<Result<Vec<_>, _>>()?;
        let starts: Vec<Option<i64>> = dbs.iter().map(session_start).collect();
        let earliest = starts.iter().flatten().copied().min();
        let offsets_ns: Vec<i64> = starts
            .iter()
            .map(|s| match (s, earliest) {
                (Some(s), Some(e)) => s - e,
                _ => 0,
            })
            .collect();
        let mut taken: HashSet<String> = HashSet::new();
        let mut warnings = Vec::new();
        for (index, (export, db)) in exports.iter().zip(&dbs).enumerate() {
            if let Some(summary) = &db.salvage {
                warnings.push(format!("{}: {summary}", export.display()));
            }
            // The salvaged copy when there is one, else the file itself.
            let source = db
                .conn
                .path()
                .filter(|p| !p.is_empty())
                .map_or_else(|| export.clone(), PathBuf::from);
            let mut found = Vec::new();
            copy_export(
                &conn,
                &source,
                index,
                offsets_ns[index],
                &mut taken,
                &mut found,
            )
            .map_err(|e| failed(export, e.to_string()))?;
            warnings.extend(
                found
                    .into_iter()
                    .map(|w| format!("{}: {w}", export.display())),
            );
        }
        if let Some(start) = earliest {
            conn.execute("DELETE FROM TARGET_INFO_SESSION_START_TIME", [])
                .and_then(|_| {
                    conn.execute(
                        "INSERT INTO TARGET_INFO_SESSION_START_TIME (utcEpochNs) VALUES (?1)",
                        [start],
                    )
                })
                .map_err(|e| failed(&out, e.to_string()))?;
        }
        drop(conn);
        Ok(MergedExport {
            file,
            sources: exports.to_vec(),
            offsets_ns,
            warnings,
        })
    }
}

/// The wall-clock session start of an export, when it gives one.
fn session_start(db: &super::db::ExportDb) -> Option<i64> {
    if !db.has_table("TARGET_INFO_SESSION_START_TIME") {
        return None;
    }
    db.conn
        .query_row(
            "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
            [],
            |r| r.get::<_, i64>(0),
        )
        .ok()
}

/// A URI opening `path` read-only and immutable (special characters escaped).
fn read_only_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'%' | b'?' | b'#' => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(b as char),
        }
    }
    uri.push_str("?mode=ro&immutable=1");
    uri
}

/// Copies the tables of `export` (file `index`) into `conn`.
fn copy_export(
    conn: &Connection,
    export: &Path,
    index: usize,
    offset_ns: i64,
    taken: &mut HashSet<String>,
    warnings: &mut Vec<String>,
) -> rusqlite::Result<()> {
    conn.execute("ATTACH DATABASE ?1 AS src", [read_only_uri(export)])?;
    let result = copy_tables(conn, index, offset_ns, taken, warnings);
    conn.execute_batch("DETACH DATABASE src")?;
    result
}

fn copy_tables(
    conn: &Connection,
    index: usize,
    offset_ns: i64,
    taken: &mut HashSet<String>,
    warnings: &mut Vec<String>,
) -> rusqlite::Result<()> {
    // Strings first: the merged id of each of this file's ids (the first file keeps its own).
    conn.execute_batch(
        "DROP TABLE IF EXISTS temp.string_map; \
         CREATE TEMP TABLE string_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);",
    )?;
    if has_table(conn, "src", "StringIds")? {
        let ids = if index == 0 { "id, " } else { "" };
        conn.execute_batch(&format!(
            "INSERT OR IGNORE INTO main.StringIds ({ids}value) \
                 SELECT {ids}value FROM src.StringIds WHERE value IS NOT NULL ORDER BY id; \
             INSERT OR IGNORE INTO temp.string_map \
                 SELECT s.id, m.id FROM src.StringIds s JOIN main.StringIds m ON m.value = s.value;"
        ))?;
    }
    let tables: Vec<(String, String)> = {
        let mut stmt = conn.prepare(
            "SELECT name, sql FROM src.sqlite_master \
             WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql IS NOT NULL",
        )?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    for (table, sql) in tables {
        if descriptive(&table) && (table == "StringIds" || taken.contains(&table)) {
            continue;
        }
        if !has_table(conn, "main", &table)? {
            // Without NOT NULL: a later file of an older schema lacks some columns (they stay
            // NULL). A table a third-party tool wrote may not parse here: leave it out.
            if conn.execute_batch(&sql.replace("NOT NULL", "")).is_err() {
                continue;
            }
        }
        taken.insert(table.clone());
        let ours = columns(conn, "main", &table)?;
        let theirs = columns(conn, "src", &table)?;
        let string_ids = string_id_columns(&sql);
        let mut targets = Vec::new();
        let mut values = Vec::new();
        for column in ours.iter().filter(|c| theirs.contains(c)) {
            let q = quote_ident(column);
            targets.push(q.clone());
            values.push(if string_ids.contains(column) {
                // An id the file's StringIds lacks stays dangling (-1), the row kept.
                format!("coalesce((SELECT new FROM temp.string_map WHERE old = {q}), -1)")
            } else if index > 0 && per_file_id(&table, column) {
                format!("{q} + {}", CORRELATION_STRIDE * index as i64)
            } else if TIME_COLUMNS.contains(&column.as_str())
                && offset_ns != 0
                && !table.starts_with("TARGET_INFO")
            {
                format!("{q} + {offset_ns}")
            } else {
                q
            });
        }
        if targets.is_empty() {
            continue;
        }
        let t = quote_ident(&table);
        let inserted = conn.execute(
            &format!(
                "INSERT OR IGNORE INTO main.{t} ({}) SELECT {} FROM src.{t}",
                targets.join(", "),
                values.join(", ")
            ),
            [],
        )?;
        let rows: i64 =
            conn.query_row(&format!("SELECT count(*) FROM src.{t}"), [], |r| r.get(0))?;
        let left_out = (rows as u64).saturating_sub(inserted as u64);
        if left_out > 0 {
            warnings.push(format!(
                "{table}: {left_out} rows have the key of an earlier file's row and were left out"
            ));
        }
    }
    Ok(())
}

fn has_table(conn: &Connection, schema: &str, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        &format!("SELECT count(*) FROM {schema}.sqlite_master WHERE type = 'table' AND name = ?1"),
        [table],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

fn columns(conn: &Connection, schema: &str, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!(
        "PRAGMA {schema}.table_info({})",
        quote_ident(table)
    ))?;
    stmt.query_map([], |r| r.get::<_, String>(1))?.collect()
}

/// The string-id columns of a table, from its `CREATE TABLE` statement: those whose comment
/// names a `StringId` (or that reference `StringIds`); in a statement without comments, those of
/// the known names.
fn string_id_columns(sql: &str) -> Vec<String> {
    let commented = sql.contains("--");
    let mut out = Vec::new();
    let body = sql.split_once('(').map_or("", |(_, b)| b);
    if commented {
        for line in body.lines() {
            let line = line.trim();
            let Some(name) = line.split_whitespace().next() else {
                continue;
            };
            if line.contains("StringId") {
                out.push(name.trim_matches(|c| c == '"' || c == ',').to_owned());
            }
        }
    } else {
        for part in body.split(',') {
            if let Some(name) = part.split_whitespace().next() {
                let name = name.trim_matches(|c| c == '"' || c == '(' || c == ')');
                if STRING_ID_COLUMNS.contains(&name) {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_id_columns_from_comments_or_names() {
        let commented = "CREATE TABLE T (\n    start INTEGER, -- Start (ns).\n    nameId \
                         INTEGER NOT NULL REFERENCES StringIds(id), -- StringId of the name.\n    \
                         demangledName INTEGER NOT NULL, -- StringId of the kernel name\n    \
                         text TEXT -- the text\n)";
        assert_eq!(
            string_id_columns(commented),
            vec!["nameId".to_owned(), "demangledName".to_owned()]
        );
        let bare = "CREATE TABLE T (start INTEGER NOT NULL, demangledName INTEGER NOT NULL, \
                    shortName INTEGER, gridX INTEGER)";
        assert_eq!(
            string_id_columns(bare),
            vec!["demangledName".to_owned(), "shortName".to_owned()]
        );
    }

    #[test]
    fn uri_escapes_what_sqlite_would_parse() {
        assert_eq!(
            read_only_uri(Path::new("/a b/x?#%.sqlite")),
            "file:/a b/x%3F%23%25.sqlite?mode=ro&immutable=1"
        );
    }
}
