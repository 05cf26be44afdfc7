//! One file's part of `mpi_sum`: the durations of its MPI calls (the tables `MPI_P2P_EVENTS`,
//! `MPI_START_WAIT_EVENTS`, `MPI_OTHER_EVENTS`, `MPI_COLLECTIVES_EVENTS`, in that order, each
//! by rowid) grouped by the call's name, as [`super::nvtx::nvtx_part`] groups NVTX ranges
//! (same window, durations floats when any call lacks an end).

use std::collections::BTreeMap;

use super::nvtx::{RankPart, Window};
use crate::timeline::nsys::db::int_of;
use crate::timeline::nsys::{ExportDb, NsysError};

/// The MPI tables, in the order the recipe reads them.
pub const MPI_TABLES: [&str; 4] = [
    "MPI_P2P_EVENTS",
    "MPI_START_WAIT_EVENTS",
    "MPI_OTHER_EVENTS",
    "MPI_COLLECTIVES_EVENTS",
];

/// One file's part of `mpi_sum`; `None` when it has no MPI call.
pub fn mpi_part(db: &ExportDb, window: Window) -> Result<Option<RankPart>, NsysError> {
    let tables: Vec<&str> = MPI_TABLES.into_iter().filter(|t| db.has_table(t)).collect();
    if tables.is_empty() {
        return Ok(None);
    }
    let strings = db.string_ids()?;
    let mut values: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let mut open = false;
    for table in tables {
        let text_id = db.col_or_null(table, "textId");
        let sql = format!("SELECT rowid, start, end, {text_id} FROM {table} ORDER BY rowid");
        db.scan_around_damage(table, &sql, |row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let Some(start) = v(1) else {
                let rowid = v(0).unwrap_or(-1);
                return Err(db.query_error(table, format!("rowid {rowid}: no start")));
            };
            let end = v(2);
            open |= end.is_none();
            let name = v(3).and_then(|id| strings.get(&id));
            if let (Some(name), Some(end)) = (name, end)
                && window.keeps(start, Some(end))
            {
                values
                    .entry(name.clone())
                    .or_default()
                    .push(end.saturating_sub(start));
            }
            Ok(())
        })?;
    }
    let part = RankPart::of(values, open);
    Ok((!part.groups.is_empty()).then_some(part))
}
