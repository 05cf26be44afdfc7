//! The payload schema and enum tables of an export, read by column name (any column may be
//! missing: it reads as NULL) into [`PayloadSchemas`].

use rusqlite::Row;

use super::{EnumDef, PayloadSchemas, Schema, SchemaEntry};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{ExportDb, int_of, text_of};

const SCHEMAS: &str = "NVTX_PAYLOAD_SCHEMAS";
const ENTRIES: &str = "NVTX_PAYLOAD_SCHEMA_ENTRIES";
const ENUMS: &str = "NVTX_PAYLOAD_ENUMS";
const ENUM_ENTRIES: &str = "NVTX_PAYLOAD_ENUM_ENTRIES";

/// Reads the schemas and enums of `db`, with what was odd about them (an entry listed twice,
/// a count that does not match): empty when the export has none of the tables.
pub fn read_schemas(db: &ExportDb) -> Result<(PayloadSchemas, Vec<String>), NsysError> {
    let mut out = PayloadSchemas::default();
    let mut odd = Vec::new();
    let mut counts = Vec::new();
    rows(
        db,
        SCHEMAS,
        &[
            "domainId",
            "schemaId",
            "name",
            "type",
            "flags",
            "numEntries",
            "payloadSize",
            "alignTo",
        ],
        |r| {
            let key = (uint(r, 0), uint(r, 1));
            let schema = out.schemas.entry(key).or_default();
            schema.name = text(r, 2).or(schema.name.take());
            schema.kind = int(r, 3).map_or(schema.kind, |v| v as u64);
            schema.flags = int(r, 4).map_or(schema.flags, |v| v as u64);
            schema.size = int(r, 6).map(|v| v as u64).or(schema.size);
            schema.align = int(r, 7).map(|v| v as u64).or(schema.align);
            if let Some(n) = int(r, 5) {
                counts.push((key, n as u64));
            }
        },
    )?;
    rows(
        db,
        ENTRIES,
        &[
            "domainId",
            "schemaId",
            "idx",
            "flags",
            "type",
            "name",
            "description",
            "arrayOrUnionDetail",
            "offset",
        ],
        |r| {
            let key = (uint(r, 0), uint(r, 1));
            let entry = SchemaEntry {
                idx: uint(r, 2),
                flags: uint(r, 3),
                ty: uint(r, 4),
                name: text(r, 5),
                description: text(r, 6),
                detail: uint(r, 7),
                offset: int(r, 8).map(|v| v as u64),
            };
            push_entry(out.schemas.entry(key).or_default(), entry);
        },
    )?;
    read_enums(db, &mut out)?;
    for s in out.schemas.values_mut() {
        s.entries.sort_by_key(|e| e.idx);
    }
    for ((domain, id), n) in counts {
        let have = out
            .schemas
            .get(&(domain, id))
            .map_or(0, |s| s.entries.len() as u64);
        if have != n {
            odd.push(format!(
                "payload schema {id} of domain {domain} says it has {n} entries; {have} are listed"
            ));
        }
    }
    Ok((out, odd))
}

/// Reads `NVTX_PAYLOAD_ENUMS` and their entries into `out` (an enum registered by several
/// processes lists its entries once).
fn read_enums(db: &ExportDb, out: &mut PayloadSchemas) -> Result<(), NsysError> {
    rows(
        db,
        ENUMS,
        &["domainId", "schemaId", "name", "numEntries", "size"],
        |r| {
            let def = out.enums.entry((uint(r, 0), uint(r, 1))).or_default();
            def.name = text(r, 2).or(def.name.take());
            def.size = int(r, 4).map_or(def.size, |v| v as u64);
        },
    )?;
    rows(
        db,
        ENUM_ENTRIES,
        &["domainId", "schemaId", "idx", "name", "value", "isFlag"],
        |r| {
            let def: &mut EnumDef = out.enums.entry((uint(r, 0), uint(r, 1))).or_default();
            let entry = (
                text(r, 3).unwrap_or_default(),
                uint(r, 4),
                int(r, 5).is_some_and(|f| f != 0),
            );
            // The same enum registered by several processes lists its entries again.
            if !def.entries.contains(&entry) {
                def.entries.push(entry);
            }
        },
    )?;
    Ok(())
}

/// An entry into its schema; a second row for the same index (the same schema registered by
/// several processes) is the same entry.
fn push_entry(schema: &mut Schema, entry: SchemaEntry) {
    if !schema.entries.iter().any(|e| e.idx == entry.idx) {
        schema.entries.push(entry);
    }
}

fn int(r: &Row<'_>, i: usize) -> Option<i64> {
    r.get_ref(i).ok().and_then(int_of)
}

fn uint(r: &Row<'_>, i: usize) -> u64 {
    int(r, i).map_or(0, |v| v as u64)
}

fn text(r: &Row<'_>, i: usize) -> Option<String> {
    r.get_ref(i)
        .ok()
        .and_then(text_of)
        .filter(|t| !t.is_empty())
}

/// Every row of `table` with `columns` (missing ones NULL), in rowid order.
fn rows(
    db: &ExportDb,
    table: &str,
    columns: &[&str],
    mut each: impl FnMut(&Row<'_>),
) -> Result<(), NsysError> {
    if !db.has_table(table) {
        return Ok(());
    }
    let sql = format!(
        "SELECT {} FROM {table} ORDER BY rowid",
        db.cols_or_null(table, columns)
    );
    let mut stmt = db
        .conn
        .prepare(&sql)
        .map_err(|e| db.query_error(table, e))?;
    let mut rows = stmt.query([]).map_err(|e| db.query_error(table, e))?;
    while let Some(r) = rows.next().map_err(|e| db.query_error(table, e))? {
        each(r);
    }
    Ok(())
}
