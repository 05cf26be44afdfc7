//! An export's events as columns, for rules: CUDA API calls and GPU operations (kernels, memory
//! copies and sets), each row with its process, thread or device, context and stream, its names
//! and labels decoded, and the table and rowid it came from (so a finding can name the event).
//!
//! Timeline rules (the `timeline` Python module of the rules crate) select rows of these tables
//! and hand them to the bulk operations of [`ops`] — filters, sorts, gaps, merged intervals,
//! utilization per chunk — so a rule over millions of events spends its time here, not in Python.
//! Times are the export's own timestamps (ns), as `nsys analyze` prints them.

pub mod ops;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::NsysError;
use super::db::{ExportDb, int_of, text_of};
use super::load::{MEM_KIND_LABELS, MEMCPY_LABELS};
use crate::core::intern::{StrId, StringTable};

/// The value of a missing cell (SQL `NULL`, or a column the export lacks).
pub const NULL: i64 = i64::MIN;

/// What a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// Integers ([`NULL`] when missing).
    Int,
    /// Text: the values index [`Trace::strings`] ([`NULL`] when missing).
    Text,
}

/// One column of an [`EventTable`].
#[derive(Debug, Clone)]
pub struct Column {
    /// Its name (`start`, `pid`, `name`, ...).
    pub name: &'static str,
    /// What it holds.
    pub kind: ColumnKind,
    /// One value per row.
    pub values: Vec<i64>,
}

/// Rows of one kind of event, as columns of equal length.
#[derive(Debug, Clone)]
pub struct EventTable {
    /// Its name (`cuda_api`, `gpu`).
    pub name: &'static str,
    /// What a row is.
    pub about: &'static str,
    /// The columns.
    pub columns: Vec<Column>,
    len: usize,
}

impl EventTable {
    fn new(
        name: &'static str,
        about: &'static str,
        columns: &[(&'static str, ColumnKind)],
    ) -> Self {
        EventTable {
            name,
            about,
            columns: columns
                .iter()
                .map(|&(name, kind)| Column {
                    name,
                    kind,
                    values: Vec::new(),
                })
                .collect(),
            len: 0,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The column named `name` (`duration` is computed: see [`EventTable::value`]).
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The names of the columns, and the computed `duration`.
    pub fn column_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self.columns.iter().map(|c| c.name).collect();
        names.push("duration");
        names
    }

    /// The value of `column` in row `row`: a stored column, or `duration` (`end − start`).
    pub fn value(&self, column: &str, row: usize) -> Option<(ColumnKind, i64)> {
        if column == "duration" {
            let start = *self.column("start")?.values.get(row)?;
            let end = *self.column("end")?.values.get(row)?;
            return Some((ColumnKind::Int, end.saturating_sub(start)));
        }
        let c = self.column(column)?;
        Some((c.kind, *c.values.get(row)?))
    }

    fn push(&mut self, values: &[i64]) {
        for (c, v) in self.columns.iter_mut().zip(values) {
            c.values.push(*v);
        }
        self.len += 1;
    }
}

/// An export's events for rules.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The export.
    pub path: PathBuf,
    /// Interned text of the text columns.
    pub strings: Vec<String>,
    /// The tables: `cuda_api`, `gpu`, `dx12_mem`, `profiler_overhead`.
    pub tables: Vec<EventTable>,
    /// The export's tables and their columns (what rules check before they run).
    schema: HashMap<String, HashSet<String>>,
    /// What could not be read (tables with damaged pages: the trace holds the rows that
    /// read), one line each naming the table; empty for an intact export.
    pub warnings: Vec<String>,
}

/// Interns text into [`Trace::strings`]: the model's one interner, its ids as cell values.
#[derive(Default)]
struct Interner(StringTable);

impl Interner {
    fn id(&mut self, text: &str) -> i64 {
        i64::from(self.0.intern(text).0)
    }

    /// The texts by id (the empty string first, as id 0).
    fn into_strings(self) -> Vec<String> {
        self.0.iter().map(|(_, text)| text.to_owned()).collect()
    }

    fn get(&self, id: i64) -> Option<&str> {
        let id = u32::try_from(id).ok()?;
        (usize::try_from(id).ok()? < self.0.len()).then(|| self.0.get(StrId(id)))
    }
}

const KERNEL: &str = "CUPTI_ACTIVITY_KIND_KERNEL";
const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const MEMSET: &str = "CUPTI_ACTIVITY_KIND_MEMSET";
const RUNTIME: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";

impl Trace {
    /// Reads the CUDA API calls and GPU operations of the export at `path`.
    pub fn open(path: &Path) -> Result<Trace, NsysError> {
        let db = ExportDb::open_salvaging(path)?;
        Trace::read(&db)
    }

    /// Reads the CUDA API calls and GPU operations of an open export.
    pub fn read(db: &ExportDb) -> Result<Trace, NsysError> {
        Trace::read_tables(db, &TRACE_TABLES)
    }

    /// Reads only the event tables named in `tables` (of [`TRACE_TABLES`]; `gpu` reads
    /// `cuda_api` too, for the API names); the others are empty.
    pub fn read_tables(db: &ExportDb, tables: &[&str]) -> Result<Trace, NsysError> {
        let want = |name: &str| tables.contains(&name);
        let mut schema = HashMap::new();
        for t in db.table_names() {
            schema.insert(
                t.to_string(),
                db.columns(t).iter().cloned().collect::<HashSet<_>>(),
            );
        }
        db.take_damage_met();
        let ids = db.string_ids()?;
        let mut strings = Interner::default();
        let mut string_of = |id: i64, strings: &mut Interner| match ids.get(&id) {
            Some(s) => strings.id(s),
            None => NULL,
        };
        let api = read_api(
            db,
            want("cuda_api") || want("gpu"),
            &mut strings,
            &mut string_of,
        )?;
        let gpu = read_gpu(db, want("gpu"), &api, &mut strings, &mut string_of)?;
        let dx12 = read_dx12(db, want("dx12_mem"), &mut strings, &mut string_of)?;
        let overhead = read_overhead(db, want("profiler_overhead"), &mut strings, &mut string_of)?;
        let warnings = db
            .take_damage_met()
            .iter()
            .flat_map(|(table, readable)| readable.describe_for_report(table))
            .collect();
        Ok(Trace {
            path: db.path.clone(),
            strings: strings.into_strings(),
            tables: vec![api, gpu, dx12, overhead],
            schema,
            warnings,
        })
    }

    /// A trace without events or tables (for listing rules without an export).
    pub fn empty() -> Trace {
        Trace {
            path: PathBuf::new(),
            strings: Vec::new(),
            tables: Vec::new(),
            schema: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    /// The table named `name`.
    pub fn table(&self, name: &str) -> Option<&EventTable> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// Whether the export has table `table` (and, if given, its column `column`).
    pub fn has(&self, table: &str, column: Option<&str>) -> bool {
        self.schema
            .get(table)
            .is_some_and(|cols| column.is_none_or(|c| cols.contains(c)))
    }

    /// The text of a text cell (`None` for [`NULL`]).
    pub fn text(&self, value: i64) -> Option<&str> {
        usize::try_from(value)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map(String::as_str)
    }

    /// Heap bytes held by the columns and strings.
    pub fn heap_bytes(&self) -> usize {
        let columns: usize = self
            .tables
            .iter()
            .flat_map(|t| &t.columns)
            .map(|c| c.values.capacity() * 8)
            .sum();
        columns
            + self
                .strings
                .iter()
                .map(|s| s.capacity() + 24)
                .sum::<usize>()
    }
}

/// The event tables of a [`Trace`], in order.
pub const TRACE_TABLES: [&str; 4] = ["cuda_api", "gpu", "dx12_mem", "profiler_overhead"];

/// The first columns of a table of host calls: where the row is, when, on which thread, what.
const HOST_CALL: [(&str, ColumnKind); 7] = [
    ("table", ColumnKind::Text),
    ("rowid", ColumnKind::Int),
    ("start", ColumnKind::Int),
    ("end", ColumnKind::Int),
    ("pid", ColumnKind::Int),
    ("tid", ColumnKind::Int),
    ("name", ColumnKind::Text),
];

type StringOf<'a> = dyn FnMut(i64, &mut Interner) -> i64 + 'a;

fn read_api(
    db: &ExportDb,
    read: bool,
    strings: &mut Interner,
    string_of: &mut StringOf<'_>,
) -> Result<EventTable, NsysError> {
    use ColumnKind::Int;
    let mut t = EventTable::new(
        "cuda_api",
        "CUDA runtime and driver API calls (CUPTI_ACTIVITY_KIND_RUNTIME)",
        &[
            HOST_CALL.as_slice(),
            &[("correlation", Int), ("event_class", Int)],
        ]
        .concat(),
    );
    if !read || !db.has_table(RUNTIME) {
        return Ok(t);
    }
    let table = strings.id(RUNTIME);
    let sql = format!(
        "SELECT rowid, start, end, {} FROM {RUNTIME}",
        db.cols_or_null(
            RUNTIME,
            &["globalTid", "nameId", "correlationId", "eventClass"]
        ),
    );
    each_row(db, &[RUNTIME], &sql, |v| {
        let gtid = v[3];
        let (pid, tid) = split_tid(gtid);
        let name = string_or_null(v[4], strings, string_of);
        t.push(&[table, v[0], v[1], v[2], pid, tid, name, v[5], v[6]]);
    })?;
    Ok(t)
}

/// CUDA kernels, memory copies and memsets (`gpu`), each with the name of the API call of its
/// correlation id.
fn read_gpu(
    db: &ExportDb,
    read: bool,
    api: &EventTable,
    strings: &mut Interner,
    string_of: &mut StringOf<'_>,
) -> Result<EventTable, NsysError> {
    let mut t = gpu_table();
    if !read {
        return Ok(t);
    }
    let api_of = api_names_by_correlation(api);
    let labels = MemoryLabels {
        mem_kinds: db.enum_labels("ENUM_CUDA_MEM_KIND"),
        copy_kinds: db.enum_labels("ENUM_CUDA_MEMCPY_OPER"),
    };
    for (table, op) in [(KERNEL, "kernel"), (MEMCPY, "memcpy"), (MEMSET, "memset")] {
        if !db.has_table(table) {
            continue;
        }
        let sql = gpu_query(db, table, op);
        let table_id = strings.id(table);
        let op_id = strings.id(op);
        each_row(db, &[table], &sql, |v| {
            let (pid, _) = split_tid(v[3]);
            let name = match op {
                "kernel" if v[9] != NULL => string_of(v[9], strings),
                "memcpy" => {
                    let label = labels.copy(v[11], strings);
                    match strings.get(label).map(str::to_owned) {
                        Some(l) => strings.id(&format!("[CUDA memcpy {l}]")),
                        None => strings.id("[CUDA memcpy]"),
                    }
                }
                "memset" => strings.id("[CUDA memset]"),
                _ => NULL,
            };
            let api_name = api_of.get(&v[8]).copied().unwrap_or(NULL);
            let copy = labels.copy(v[11], strings);
            let src = labels.memory(v[12], strings);
            let dst = labels.memory(v[13], strings);
            let mem = labels.memory(v[14], strings);
            t.push(&[
                table_id, v[0], op_id, v[1], v[2], pid, v[4], v[5], v[6], v[7], v[8], name,
                api_name, v[10], copy, src, dst, mem, v[15], v[16],
            ]);
        })?;
    }
    Ok(t)
}

/// The empty `gpu` table with its columns.
fn gpu_table() -> EventTable {
    use ColumnKind::{Int, Text};
    EventTable::new(
        "gpu",
        "GPU operations: kernels, memory copies and memory sets",
        &[
            ("table", Text),
            ("rowid", Int),
            ("op", Text),
            ("start", Int),
            ("end", Int),
            ("pid", Int),
            ("device", Int),
            ("context", Int),
            ("green_context", Int),
            ("stream", Int),
            ("correlation", Int),
            ("name", Text),
            ("api", Text),
            ("bytes", Int),
            ("copy_kind", Text),
            ("src_kind", Text),
            ("dst_kind", Text),
            ("mem_kind", Text),
            ("src_device", Int),
            ("dst_device", Int),
        ],
    )
}

/// The API call name of each correlation id (the versioned row where old exports store two).
fn api_names_by_correlation(api: &EventTable) -> HashMap<i64, i64> {
    let mut api_of: HashMap<i64, i64> = HashMap::new();
    if let (Some(corr), Some(name), Some(class)) = (
        api.column("correlation"),
        api.column("name"),
        api.column("event_class"),
    ) {
        for i in 0..api.len() {
            if corr.values[i] != NULL && class.values[i] != 67 {
                api_of.entry(corr.values[i]).or_insert(name.values[i]);
            }
        }
    }
    api_of
}

/// The query of one GPU operation table (`op` kernel, memcpy or memset), in the column order
/// `read_gpu` indexes; columns the export lacks read as NULL.
fn gpu_query(db: &ExportDb, table: &str, op: &str) -> String {
    let c = |col: &str| db.col_or_null(table, col);
    let name_col = if op == "kernel" {
        if db.has_column(table, "demangledName") {
            c("demangledName")
        } else {
            c("shortName")
        }
    } else {
        "NULL".into()
    };
    format!(
        "SELECT rowid, start, end, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {} FROM {table}",
        c("globalPid"),
        c("deviceId"),
        c("contextId"),
        c("greenContextId"),
        c("streamId"),
        c("correlationId"),
        name_col,
        c("bytes"),
        c("copyKind"),
        c("srcKind"),
        c("dstKind"),
        c("memKind"),
        c("srcDeviceId"),
        c("dstDeviceId"),
    )
}

/// The labels of memory kinds and copy kinds: the export's enum tables, else nsys's fixed
/// lists.
struct MemoryLabels {
    /// `ENUM_CUDA_MEM_KIND`, when the export has it.
    mem_kinds: Option<HashMap<i64, String>>,
    /// `ENUM_CUDA_MEMCPY_OPER`, when the export has it.
    copy_kinds: Option<HashMap<i64, String>>,
}

impl MemoryLabels {
    /// The string id of memory kind `k`'s label; [`NULL`] when missing or unknown.
    fn memory(&self, k: i64, strings: &mut Interner) -> i64 {
        if k == NULL {
            return NULL;
        }
        match &self.mem_kinds {
            Some(labels) => labels.get(&k).map_or(NULL, |l| strings.id(l)),
            None => usize::try_from(k)
                .ok()
                .and_then(|i| MEM_KIND_LABELS.get(i))
                .map_or(NULL, |l| strings.id(l)),
        }
    }

    /// The string id of copy kind `k`'s label; [`NULL`] when missing or unknown.
    fn copy(&self, k: i64, strings: &mut Interner) -> i64 {
        if k == NULL {
            return NULL;
        }
        let label = match &self.copy_kinds {
            Some(labels) => labels.get(&k).cloned(),
            None => usize::try_from(k)
                .ok()
                .and_then(|i| MEMCPY_LABELS.get(i))
                .map(|s| s.to_string()),
        };
        label.map_or(NULL, |l| strings.id(&l))
    }
}

const DX12_API: &str = "DX12_API";
const DX12_MEMORY: &str = "DX12_MEMORY_OPERATION";

/// DX12 memory operations (`DX12_MEMORY_OPERATION`) with the API call each belongs to.
fn read_dx12(
    db: &ExportDb,
    read: bool,
    strings: &mut Interner,
    string_of: &mut StringOf<'_>,
) -> Result<EventTable, NsysError> {
    use ColumnKind::Int;
    let mut t = EventTable::new(
        "dx12_mem",
        "DX12 memory operations (DX12_MEMORY_OPERATION) with their API calls (DX12_API)",
        &[
            HOST_CALL.as_slice(),
            &[
                ("device", Int),
                ("heap_type", Int),
                ("heap_flags", Int),
                ("page_property", Int),
                ("range_start", Int),
                ("range_end", Int),
            ],
        ]
        .concat(),
    );
    if !read || !db.has_table(DX12_MEMORY) || !db.has_table(DX12_API) {
        return Ok(t);
    }
    let m = |c: &str| match db.col_or_null(DX12_MEMORY, c).as_str() {
        "NULL" => "NULL".to_string(),
        q => format!("m.{q}"),
    };
    let a = |c: &str| match db.col_or_null(DX12_API, c).as_str() {
        "NULL" => "NULL".to_string(),
        q => format!("a.{q}"),
    };
    let sql = format!(
        "SELECT a.id, a.start, a.end, {}, {}, {}, {}, {}, {}, {}, {} FROM {DX12_MEMORY} m \
         JOIN {DX12_API} a ON a.id = m.traceEventId ORDER BY m.rowid",
        a("globalTid"),
        a("nameId"),
        m("gpu"),
        m("heapType"),
        m("heapFlags"),
        m("cpuPageProperty"),
        m("rangeStart"),
        m("rangeEnd"),
    );
    let table = strings.id(DX12_API);
    each_row(db, &[DX12_MEMORY, DX12_API], &sql, |v| {
        let (pid, tid) = split_tid(v[3]);
        let name = string_or_null(v[4], strings, string_of);
        t.push(&[
            table, v[0], v[1], v[2], pid, tid, name, v[5], v[6], v[7], v[8], v[9], v[10],
        ]);
    })?;
    Ok(t)
}

const OVERHEAD: &str = "PROFILER_OVERHEAD";

/// The profiler's own work (`PROFILER_OVERHEAD`): initialization, buffer flushes and, in
/// exports of old captures, "CUDA profiling overhead" that nsys counts as GPU time.
fn read_overhead(
    db: &ExportDb,
    read: bool,
    strings: &mut Interner,
    string_of: &mut StringOf<'_>,
) -> Result<EventTable, NsysError> {
    let mut t = EventTable::new(
        "profiler_overhead",
        "The profiler's own work (PROFILER_OVERHEAD)",
        HOST_CALL.as_slice(),
    );
    if !read || !db.has_table(OVERHEAD) {
        return Ok(t);
    }
    let sql = format!(
        "SELECT rowid, start, end, {} FROM {OVERHEAD}",
        db.cols_or_null(OVERHEAD, &["globalTid", "nameId"]),
    );
    let table = strings.id(OVERHEAD);
    each_row(db, &[OVERHEAD], &sql, |v| {
        let (pid, tid) = split_tid(v[3]);
        let name = string_or_null(v[4], strings, string_of);
        t.push(&[table, v[0], v[1], v[2], pid, tid, name]);
    })?;
    Ok(t)
}

/// The interned string of export string `id`, or `NULL` for a NULL id.
fn string_or_null(id: i64, strings: &mut Interner, string_of: &mut StringOf<'_>) -> i64 {
    if id == NULL {
        NULL
    } else {
        string_of(id, strings)
    }
}

/// Process and thread ids of a serialized global thread id.
fn split_tid(global: i64) -> (i64, i64) {
    if global == NULL {
        return (NULL, NULL);
    }
    ((global >> 24) & 0xff_ffff, global & 0xff_ffff)
}

/// Runs `sql` and calls `f` with each row's values as integers ([`NULL`] where a value is
/// missing or not an integer; text columns are string ids in the export). A table with
/// damaged pages gives the rows that read: [`ExportDb::scan_around_damage`] for a query of one
/// table, [`ExportDb::collect_around_damage`] for a join of `tables` (its rows are collected
/// first).
fn each_row(
    db: &ExportDb,
    tables: &[&str],
    sql: &str,
    mut f: impl FnMut(&[i64]),
) -> Result<(), NsysError> {
    let table = tables.first().copied().unwrap_or_default();
    let values_of = |row: &rusqlite::Row<'_>, values: &mut Vec<i64>| {
        values.resize(row.as_ref().column_count(), NULL);
        for (i, v) in values.iter_mut().enumerate() {
            *v = row.get_ref(i).ok().and_then(int_of).unwrap_or(NULL);
        }
        if values[1] == NULL || values[2] == NULL {
            let text = row.get_ref(0).ok().and_then(text_of).unwrap_or_default();
            return Err(db.query_error(
                table,
                format!("rowid {text}: start or end is not an integer"),
            ));
        }
        Ok(())
    };
    let mut values = Vec::new();
    if let [table] = tables {
        db.scan_around_damage(table, sql, |row| {
            values_of(row, &mut values)?;
            f(&values);
            Ok(())
        })?;
    } else {
        let rows = db.collect_around_damage(tables, sql, |row| {
            values_of(row, &mut values)?;
            Ok(values.clone())
        })?;
        rows.iter().for_each(|v| f(v));
    }
    Ok(())
}
