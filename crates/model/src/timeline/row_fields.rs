//! The fields of events drawn from tables whose rows say more than the timeline draws (a CUDA
//! graph node's ids, a unified-memory fault's address and access type, a migration's cause):
//! kept per source table as one list of field names and, per rowid, the row's values, for the
//! details panel, tooltips and `sightline timeline --events` ([`Timeline::event_fields`]).

use std::collections::{BTreeMap, HashMap};

use super::model::{EventId, Timeline};
use super::nsys::payload::{Field, Value};

/// The fields of one file's rows, by source table and rowid.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowFields {
    tables: BTreeMap<String, TableFields>,
}

/// One table's field names and each row's values (`None`: NULL, left out).
#[derive(Debug, Clone, Default, PartialEq)]
struct TableFields {
    names: Vec<String>,
    rows: HashMap<u32, Vec<Option<Value>>>,
}

impl RowFields {
    /// Declares the field names of `table`'s rows (in display order); a table declared again
    /// keeps its rows when the names are the same, and starts over otherwise.
    pub fn declare(&mut self, table: &str, names: &[&str]) {
        let entry = self.tables.entry(table.to_owned()).or_default();
        if entry
            .names
            .iter()
            .map(String::as_str)
            .ne(names.iter().copied())
        {
            entry.names = names.iter().map(|n| (*n).to_owned()).collect();
            entry.rows.clear();
        }
    }

    /// Sets the values of row `rowid` of `table` (one per declared name; missing ones NULL).
    pub fn insert(&mut self, table: &str, rowid: u32, values: Vec<Option<Value>>) {
        if let Some(t) = self.tables.get_mut(table) {
            t.rows.insert(rowid, values);
        }
    }

    /// The fields of row `rowid` of `table`, NULL values left out; empty when unknown.
    pub fn fields(&self, table: &str, rowid: u32) -> Vec<Field> {
        let Some(t) = self.tables.get(table) else {
            return Vec::new();
        };
        let Some(values) = t.rows.get(&rowid) else {
            return Vec::new();
        };
        t.names
            .iter()
            .zip(values)
            .filter_map(|(name, value)| {
                value.as_ref().map(|v| Field {
                    name: name.clone(),
                    value: v.clone(),
                })
            })
            .collect()
    }

    /// Whether no row has fields.
    pub fn is_empty(&self) -> bool {
        self.tables.values().all(|t| t.rows.is_empty())
    }

    /// How many rows of `table` have fields.
    pub fn rows_of(&self, table: &str) -> usize {
        self.tables.get(table).map_or(0, |t| t.rows.len())
    }
}

impl Timeline {
    /// The fields read from the source row of `event` (see [`RowFields`]): empty for events
    /// whose table keeps none.
    pub fn row_fields(&self, event: EventId) -> Vec<Field> {
        let Some(e) = self.event(event) else {
            return Vec::new();
        };
        let Some((track, _)) = self.locate(event) else {
            return Vec::new();
        };
        // A merged timeline keeps every part's source tables, by merged track, on its own
        // session; the rows' fields stay with the part's.
        let Some(table) = self.session.series_sources.get(&track) else {
            return Vec::new();
        };
        let session = match self.part_of(event).and_then(|i| self.parts.get(i)) {
            Some(part) => &part.session,
            None => &self.session,
        };
        session
            .row_fields
            .as_ref()
            .map(|f| f.fields(table, e.source))
            .unwrap_or_default()
    }
}
