//! Opening an export read-only and reading it leniently: which tables and columns exist,
//! StringIds, values that may be text where integers belong.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::NsysError;

/// A new SQLite database in the system's temporary folder (`PREFIX….sqlite`, removed when the
/// file handle drops), opened for writing without journal, sync or foreign keys: for the copies
/// Sightline writes itself (several exports put together, a damaged file salvaged).
pub fn temp_database(prefix: &str) -> Result<(tempfile::NamedTempFile, Connection), NsysError> {
    let file = tempfile::Builder::new()
        .prefix(prefix)
        .suffix(".sqlite")
        .tempfile()
        .map_err(|source| NsysError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let failed = |e: rusqlite::Error| NsysError::Query {
        path: file.path().to_path_buf(),
        table: "(temporary database)".into(),
        detail: e.to_string(),
    };
    let conn = Connection::open_with_flags(
        file.path(),
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(failed)?;
    conn.execute_batch("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=OFF;")
        .map_err(failed)?;
    Ok((file, conn))
}

/// Tables whose presence marks a file as an Nsight Systems export.
const EXPORT_TABLES: &[&str] = &[
    "StringIds",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "NVTX_EVENTS",
    "OSRT_API",
    "ThreadNames",
    "EXPORT_META_DATA",
    "META_DATA_EXPORT",
    "TARGET_INFO_GPU",
];

/// An open export: the connection and what its schema holds.
pub struct ExportDb {
    /// The file.
    pub path: PathBuf,
    /// Read-only connection.
    pub conn: Connection,
    tables: HashMap<String, Vec<String>>,
    /// Tables that `sqlite_master` lists but whose definition SQLite cannot parse (a damaged
    /// schema): left out of the tables, named in the load warnings.
    pub undefined: Vec<String>,
    /// The export's views (`sqlite_master` type `view`): those named like a table of Nsight
    /// Systems that read are among the tables, copied into temporary tables of their names so
    /// that they read as the table would (see [`View`]).
    pub views: Vec<View>,
    /// Set when the file's schema did not read and this connection reads a copy salvaged page
    /// by page ([`super::salvage`]): what was salvaged, for the load warnings.
    pub salvage: Option<String>,
    /// What could be read of each table found damaged ([`ExportDb::readable`]).
    pub(super) damaged: std::sync::Mutex<HashMap<String, std::sync::Arc<super::damage::Readable>>>,
    /// Tables whose damage a read met since [`ExportDb::take_damage_met`] last emptied it, with
    /// what could be read of them: shared with the [`ExportDb::sibling`]s, so that a report
    /// reading on two connections hears of both.
    pub(super) met: super::damage::DamageMet,
    /// The salvaged copy this connection reads ([`ExportDb::open_salvaging`]), shared with the
    /// [`ExportDb::sibling`]s. Declared last: removed only after the connection is closed.
    salvaged: Option<std::sync::Arc<super::salvage::Salvaged>>,
}

impl std::fmt::Debug for ExportDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportDb")
            .field("path", &self.path)
            .finish()
    }
}

impl ExportDb {
    /// Opens `path` read-only and checks that it is an Nsight Systems export.
    pub fn open(path: &Path) -> Result<ExportDb, NsysError> {
        let meta = std::fs::metadata(path).map_err(|source| NsysError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if meta.is_dir() {
            return Err(NsysError::Directory {
                path: path.to_path_buf(),
            });
        }
        let not_sqlite = |e: rusqlite::Error| NsysError::NotSqlite {
            path: path.to_path_buf(),
            detail: e.to_string(),
        };
        if meta.len() == 0 {
            return Err(NsysError::NotSqlite {
                path: path.to_path_buf(),
                detail: "the file is empty".into(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(not_sqlite)?;
        // Views written by third-party tools may not parse: ignore schema errors, and never
        // let a damaged file make SQLite wait or write.
        let _ = conn.execute_batch("PRAGMA writable_schema=ON; PRAGMA query_only=ON;");
        let mut names: Vec<String> = Vec::new();
        let mut view_names: Vec<String> = Vec::new();
        {
            let mut stmt = conn
                .prepare("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
                .map_err(not_sqlite)?;
            let mut rows = stmt.query([]).map_err(not_sqlite)?;
            while let Some(row) = rows.next().map_err(not_sqlite)? {
                let name = text_of(row.get_ref(0).map_err(not_sqlite)?);
                let view = text_of(row.get_ref(1).map_err(not_sqlite)?).as_deref() == Some("view");
                match name {
                    Some(name) if view => view_names.push(name),
                    Some(name) => names.push(name),
                    None => {}
                }
            }
        }
        let views = read_views(&conn, view_names);
        names.extend(views.iter().filter(|v| v.read()).map(|v| v.name.clone()));
        if !names.iter().any(|n| EXPORT_TABLES.contains(&n.as_str())) {
            let mut found = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
            if names.len() > 8 {
                found.push_str(", ...");
            }
            if found.is_empty() {
                found = "no tables".into();
            }
            return Err(NsysError::NotExport {
                path: path.to_path_buf(),
                found,
            });
        }
        let mut tables = HashMap::new();
        let mut undefined = Vec::new();
        for name in names {
            let mut columns = Vec::new();
            let sql = format!("PRAGMA table_info({})", quote_ident(&name));
            if let Ok(mut stmt) = conn.prepare(&sql)
                && let Ok(mut rows) = stmt.query([])
            {
                while let Ok(Some(row)) = rows.next() {
                    if let Some(c) = row.get_ref(1).ok().and_then(text_of) {
                        columns.push(c);
                    }
                }
            }
            if columns.is_empty() {
                // Listed in sqlite_master, but SQLite cannot parse its definition (a damaged
                // schema): every query would say "no such table".
                undefined.push(name);
            } else {
                tables.insert(name, columns);
            }
        }
        Ok(ExportDb {
            path: path.to_path_buf(),
            conn,
            tables,
            undefined,
            views,
            salvage: None,
            damaged: std::sync::Mutex::default(),
            met: super::damage::DamageMet::default(),
            salvaged: None,
        })
    }

    /// Opens `path` as [`ExportDb::open`] does, and when its schema does not read (a damaged
    /// or truncated file that still starts as SQLite) salvages it page by page into a
    /// temporary database and reads that: `path` stays the file's, [`ExportDb::salvage`]
    /// says what was salvaged (to be shown once, as the caller shows warnings). The one way
    /// the timeline loader and every report path open an export.
    pub fn open_salvaging(path: &Path) -> Result<ExportDb, NsysError> {
        match ExportDb::open(path) {
            Err(NsysError::NotSqlite { .. }) if super::salvage::looks_like_sqlite(path) => {
                let salvaged = super::salvage::salvage(path)?;
                let mut db = ExportDb::open(salvaged.path())?;
                db.path = path.to_path_buf();
                db.salvage = Some(salvaged.summary());
                db.salvaged = Some(std::sync::Arc::new(salvaged));
                Ok(db)
            }
            opened => opened,
        }
    }

    /// A second read-only connection to the same database (the salvaged copy, when this reads
    /// one), so that two tables can be read at once; `None` when it cannot be opened.
    pub fn sibling(&self) -> Option<ExportDb> {
        let file = self.conn.path().filter(|p| !p.is_empty())?;
        let conn = Connection::open_with_flags(
            file,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .ok()?;
        let _ = conn.execute_batch("PRAGMA writable_schema=ON; PRAGMA query_only=ON;");
        let mut views = self.views.clone();
        copy_views(&conn, &mut views);
        Some(ExportDb {
            path: self.path.clone(),
            conn,
            tables: self.tables.clone(),
            undefined: self.undefined.clone(),
            views,
            salvage: self.salvage.clone(),
            damaged: std::sync::Mutex::default(),
            met: self.met.clone(),
            salvaged: self.salvaged.clone(),
        })
    }

    /// Whether the table exists.
    pub fn has_table(&self, table: &str) -> bool {
        self.tables.contains_key(table)
    }

    /// Whether the table exists and has the column.
    pub fn has_column(&self, table: &str, column: &str) -> bool {
        self.tables
            .get(table)
            .is_some_and(|cols| cols.iter().any(|c| c == column))
    }

    /// The table's columns in declaration order (the order of `SELECT *`), names decoded
    /// leniently. Use these instead of rusqlite's `column_names()`, which panics on a column
    /// name that is not UTF-8.
    pub fn columns(&self, table: &str) -> &[String] {
        self.tables.get(table).map_or(&[], |c| c.as_slice())
    }

    /// `column` if the table has it, else `NULL` (for building SELECT lists).
    pub fn col_or_null(&self, table: &str, column: &str) -> String {
        if self.has_column(table, column) {
            quote_ident(column)
        } else {
            "NULL".into()
        }
    }

    /// `columns` of `table` as a SELECT list (`a, NULL, c`), each as [`ExportDb::col_or_null`]
    /// gives it: the one way the readers splice optional columns into their queries.
    pub fn cols_or_null(&self, table: &str, columns: &[&str]) -> String {
        let list: Vec<String> = columns.iter().map(|c| self.col_or_null(table, c)).collect();
        list.join(", ")
    }

    /// A query error on `table`, naming the file.
    pub fn query_error(&self, table: &str, e: impl std::fmt::Display) -> NsysError {
        NsysError::Query {
            path: self.path.clone(),
            table: table.to_string(),
            detail: e.to_string(),
        }
    }

    /// Number of rows of a table (0 when it is missing).
    pub fn row_count(&self, table: &str) -> Result<u64, NsysError> {
        if !self.has_table(table) {
            return Ok(0);
        }
        let sql = format!("SELECT count(*) FROM {}", quote_ident(table));
        match self.conn.query_row(&sql, [], |r| r.get::<_, i64>(0)) {
            Ok(n) => Ok(n.max(0) as u64),
            // Damaged pages: the rows that read and those lost.
            Err(e) if super::damage::is_damage(&e) => {
                let readable = self.readable(table);
                Ok(readable.rows + readable.lost_rows)
            }
            Err(e) => Err(self.query_error(table, e)),
        }
    }

    /// Whether `table` exists and has a row (without counting them: counting a 132 M-row
    /// table reads all of it).
    pub fn has_rows(&self, table: &str) -> Result<bool, NsysError> {
        if !self.has_table(table) {
            return Ok(false);
        }
        let sql = format!("SELECT EXISTS (SELECT 1 FROM {})", quote_ident(table));
        match self.conn.query_row(&sql, [], |r| r.get::<_, i64>(0)) {
            Ok(n) => Ok(n != 0),
            Err(e) if super::damage::is_damage(&e) => Ok(self.readable(table).rows > 0),
            Err(e) => Err(self.query_error(table, e)),
        }
    }

    /// Number of rows of a table matching an SQL condition (0 when it is missing).
    pub fn row_count_where(&self, table: &str, condition: &str) -> Result<u64, NsysError> {
        if !self.has_table(table) {
            return Ok(0);
        }
        let sql = format!(
            "SELECT count(*) FROM {} WHERE {condition}",
            quote_ident(table)
        );
        match self.conn.query_row(&sql, [], |r| r.get::<_, i64>(0)) {
            Ok(n) => Ok(n.max(0) as u64),
            // Damaged pages: an upper bound (the rows that read), for progress totals.
            Err(e) if super::damage::is_damage(&e) => Ok(self.readable(table).rows),
            Err(e) => Err(self.query_error(table, e)),
        }
    }

    /// All of StringIds as id → text (lenient UTF-8).
    pub fn string_ids(&self) -> Result<HashMap<i64, String>, NsysError> {
        let mut out = HashMap::new();
        if !self.has_table("StringIds") {
            return Ok(out);
        }
        // Strings on damaged pages are lost; the events naming them show their id.
        self.scan_around_damage(
            "StringIds",
            "SELECT rowid, id, value FROM StringIds",
            |row| {
                let id = row.get_ref(1).ok().and_then(int_of);
                let text = row.get_ref(2).ok().and_then(text_of);
                if let (Some(id), Some(text)) = (id, text) {
                    out.insert(id, text);
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// Rows of a two-column key/value table (`META_DATA_EXPORT`, `EXPORT_META_DATA`).
    pub fn key_values(&self, table: &str) -> HashMap<String, String> {
        if !self.has_table(table) {
            return HashMap::new();
        }
        let sql = format!("SELECT name, value FROM {}", quote_ident(table));
        self.pairs(&sql, text_of, text_of)
    }

    /// The `id → label` map of an `ENUM_*` table, if present.
    pub fn enum_labels(&self, table: &str) -> Option<HashMap<i64, String>> {
        if !self.has_table(table) {
            return None;
        }
        let sql = format!("SELECT id, label FROM {}", quote_ident(table));
        Some(self.pairs(&sql, int_of, text_of))
    }

    /// The rows of the two-column query `sql` as `key → value`, each column read by its
    /// function; rows either cannot read are passed over, and a query that fails gives what it
    /// read so far.
    pub(crate) fn pairs<K: Eq + Hash, V>(
        &self,
        sql: &str,
        key: fn(ValueRef<'_>) -> Option<K>,
        value: fn(ValueRef<'_>) -> Option<V>,
    ) -> HashMap<K, V> {
        let mut out = HashMap::new();
        if let Ok(mut stmt) = self.conn.prepare(sql)
            && let Ok(mut rows) = stmt.query([])
        {
            while let Ok(Some(row)) = rows.next() {
                let k = row.get_ref(0).ok().and_then(key);
                let v = row.get_ref(1).ok().and_then(value);
                if let (Some(k), Some(v)) = (k, v) {
                    out.insert(k, v);
                }
            }
        }
        out
    }

    /// Names of all tables (for messages).
    pub fn table_names(&self) -> HashSet<&str> {
        self.tables.keys().map(|s| s.as_str()).collect()
    }
}

/// A view of an export. Nsight Systems writes tables only: a view named like one of its tables
/// is an odd or hostile export (reported when loading), any other view a tool's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// Its name.
    pub name: String,
    /// Named like a table of Nsight Systems ([`super::schema::named_like_nsys_table`]).
    pub like_table: bool,
    /// Why it cannot be read (its definition does not read: SQLite's message), if so.
    pub unreadable: Option<String>,
}

impl View {
    /// Whether it is read as the table of its name would be: named like one, and readable.
    pub fn read(&self) -> bool {
        self.like_table && self.unreadable.is_none()
    }
}

/// The views `names`, each tried: its definition must read (`SELECT * … LIMIT 0`); one named
/// like a table of Nsight Systems is then copied into a temporary table of its name
/// ([`copy_views`]).
fn read_views(conn: &Connection, names: Vec<String>) -> Vec<View> {
    let mut views: Vec<View> = names
        .into_iter()
        .map(|name| {
            let sql = format!("SELECT * FROM {} LIMIT 0", quote_ident(&name));
            let unreadable = conn.prepare(&sql).err().map(|e| e.to_string());
            View {
                like_table: super::schema::named_like_nsys_table(&name),
                name,
                unreadable,
            }
        })
        .collect();
    copy_views(conn, &mut views);
    views
}

/// Copies each view [`View::read`] into a temporary table of the same name, which SQLite
/// finds before the view (temporary names first): the readers read it as the table would be,
/// rowids included (a view has none). A copy that fails makes the view unreadable, with
/// SQLite's message. The connection is read-only for the file: the copy is in its own
/// temporary database.
fn copy_views(conn: &Connection, views: &mut [View]) {
    for view in views.iter_mut().filter(|v| v.read()) {
        let name = quote_ident(&view.name);
        let sql = format!(
            "PRAGMA query_only=OFF; CREATE TEMP TABLE {name} AS SELECT * FROM main.{name}; \
             PRAGMA query_only=ON;"
        );
        if let Err(e) = conn.execute_batch(&sql) {
            let _ = conn.execute_batch("PRAGMA query_only=ON;");
            view.unreadable = Some(e.to_string());
        }
    }
}

impl ExportDb {
    /// The views not read because they are not named like a table of Nsight Systems (a tool's
    /// own views), sorted.
    pub fn views_not_read(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .views
            .iter()
            .filter(|v| !v.like_table)
            .map(|v| v.name.clone())
            .collect();
        names.sort();
        names
    }
}

/// `name` quoted as an SQL identifier.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// An integer from a value that may be stored as integer, real or decimal text.
pub fn int_of(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) => crate::core::num::exact_i64(f),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Text from a value, decoding invalid UTF-8 leniently (numbers are printed).
pub fn text_of(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
        ValueRef::Null => None,
    }
}

/// A float from an integer or real value.
pub fn float_of(v: ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(f) => Some(f),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// The display form of a CUDA API name: the `_vNNNN` version suffix cut
/// (`cudaLaunchKernel_v7000` → `cudaLaunchKernel`).
pub fn strip_version_suffix(name: &str) -> &str {
    if let Some(pos) = name.rfind("_v") {
        let digits = &name[pos + 2..];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return &name[..pos];
        }
    }
    name
}

/// Splits a serialized globalTid/globalPid into (machine, pid, tid).
pub fn split_global_id(global: i64) -> (u64, u64, u64) {
    let g = global as u64;
    (g >> 48, (g >> 24) & 0xFF_FFFF, g & 0xFF_FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_suffixes() {
        assert_eq!(
            strip_version_suffix("cudaLaunchKernel_v7000"),
            "cudaLaunchKernel"
        );
        assert_eq!(strip_version_suffix("cudaMalloc"), "cudaMalloc");
        assert_eq!(strip_version_suffix("my_var"), "my_var");
        assert_eq!(strip_version_suffix("x_v"), "x_v");
    }

    #[test]
    fn global_ids() {
        let g: i64 = (3 << 48) | (1234 << 24) | 99;
        assert_eq!(split_global_id(g), (3, 1234, 99));
    }
}
