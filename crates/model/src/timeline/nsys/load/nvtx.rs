//! NVTX_EVENTS onto the timeline: push/pop ranges nested per thread and domain, start/end
//! ranges in lanes, marks; domain and thread names; ranges never closed end at the last NVTX
//! timestamp (flagged `open`).

use std::collections::HashMap;

use rusqlite::types::ValueRef;

use super::pipe::Cells;
use super::{EventRef, Loader, SERIES_NVTX, SERIES_NVTX_RANGES, integer, rowid, split_global_id};
use crate::problem::Location;
use crate::timeline::builder::NewEvent;
use crate::timeline::model::{EventAttrs, EventKind, Payload, TrackId};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{ExportDb, float_of, int_of, text_of};
use crate::timeline::nsys::schema;
use crate::timeline::strings::StrId;

/// The query [`Loader::nvtx`] reads `NVTX_EVENTS` with.
pub(super) fn nvtx_sql(db: &ExportDb) -> String {
    const T: &str = "NVTX_EVENTS";
    let c = |name| db.col_or_null(T, name);
    format!(
        "SELECT rowid, start, end, eventType, globalTid, {}, {}, {}, {}, {}, {}, {}, {}, {}, {} \
         FROM {T}",
        c("endGlobalTid"),
        c("text"),
        c("textId"),
        c("domainId"),
        c("color"),
        c("category"),
        c("uint64Value"),
        c("int64Value"),
        c("doubleValue"),
        c("jsonText")
    )
}

impl Loader<'_, '_> {
    pub(super) fn nvtx(&mut self) -> Result<(), NsysError> {
        const T: &str = "NVTX_EVENTS";
        if !self.db.has_table(T) {
            return Ok(());
        }
        let sql = nvtx_sql(self.db);
        // Rows are read once, straight onto their tracks. What only later rows can tell is
        // settled after the pass: the names of domains (series labels) and of threads first
        // seen here, and the end of ranges never closed (the last NVTX timestamp).
        let mut domains: HashMap<(u64, i64), String> = HashMap::new();
        let mut last = i64::MIN;
        let mut open: Vec<(EventRef, i64)> = Vec::new();
        // Series first asked for here: (track, its thread, domain, label).
        let mut created: Vec<(TrackId, i64, i64, &'static str)> = Vec::new();
        let first_new = self.b.track_count();
        let mut text_ids: HashMap<i64, StrId> = HashMap::new();
        let before = self.b.event_count();
        self.scan(T, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let start = integer(v(1), "start")?;
            let end = v(2);
            let event_type = integer(v(3), "eventType")?;
            let gtid = v(4).unwrap_or(0);
            let domain = v(8).unwrap_or(0);
            last = last.max(start).max(end.unwrap_or(i64::MIN));
            // A thread's naming call is a mark on its NVTX row, "Thread name: …".
            let mut thread_named = None;
            let kind = match event_type {
                59 | 70 => EventKind::NvtxPushPop,
                60 | 71 => EventKind::NvtxStartEnd,
                34 | 65 => EventKind::NvtxMark,
                75 | 39 | 72 => {
                    let text = row
                        .get_ref(6)
                        .ok()
                        .and_then(text_of)
                        .or_else(|| v(7).and_then(|id| l.strings.get(&id).cloned()));
                    let Some(text) = text else {
                        let label = schema::nvtx_event_type_label(event_type).unwrap_or("unknown");
                        let reason = format!("eventType {event_type} ({label}) without a name");
                        l.b.session.imports.skipped(T, &reason, 1);
                        return Ok(());
                    };
                    if event_type == 75 {
                        domains.insert((process_of(gtid), domain), text);
                        l.b.session.imports.attached(T, 1);
                        return Ok(());
                    }
                    thread_named = Some(l.b.intern(&format!("Thread name: {text}")));
                    l.thread_names.insert(gtid, text);
                    EventKind::NvtxMark
                }
                other => {
                    let label = schema::nvtx_event_type_label(other).unwrap_or("unknown");
                    let reason = format!("eventType {other} ({label}): not drawn");
                    l.b.session.imports.skipped(T, &reason, 1);
                    return Ok(());
                }
            };
            let name = match thread_named {
                Some(named) => named,
                None => l.nvtx_text(row, &mut text_ids),
            };
            let (key, label) = match kind {
                EventKind::NvtxStartEnd => {
                    (SERIES_NVTX_RANGES + domain as u32 as u64, "NVTX ranges")
                }
                _ => (SERIES_NVTX + domain as u32 as u64, "NVTX"),
            };
            let track = match l.series.get(&(gtid, key)) {
                Some(&t) => t,
                None => {
                    let t = l.thread_series(gtid, key, label);
                    created.push((t, gtid, domain, label));
                    t
                }
            };
            let end = match (kind, end) {
                (EventKind::NvtxMark, _) => start,
                (_, Some(e)) => e,
                (_, None) => start,
            };
            let e =
                l.b.push(track, NewEvent::new(kind, start, end, name, rowid(v(0))));
            if kind != EventKind::NvtxMark && v(2).is_none() {
                open.push((e, start));
            }
            let payload = nvtx_payload(row);
            l.b.set_attrs(
                e,
                EventAttrs {
                    color: v(9).map(|c| c as u32),
                    category: v(10).map(|c| c as u32),
                    payload,
                    queued_ns: None,
                    open: v(2).is_none() && kind != EventKind::NvtxMark,
                    stack: None,
                },
            );
            Ok(())
        })?;
        for &(e, start) in &open {
            self.b.set_end(e, last.max(start));
        }
        for (track, gtid, domain, label) in created {
            if let Some(d) = domains.get(&(process_of(gtid), domain)) {
                self.b.rename(track, format!("{label} ({d})"));
            }
            // A thread first seen here is named by the NVTX name rows, wherever they are.
            if let Some(thread) = self.b.parent_of(track)
                && thread.0 as usize >= first_new
                && let Some(n) = self.thread_names.get(&gtid)
            {
                let (_, _, tid) = split_global_id(gtid);
                self.b.rename(thread, format!("Thread {tid} ({n})"));
            }
        }
        self.events_since(T, before);
        let open_count = open.len();
        if open_count > 0 {
            self.b.warn(Location::Row { table: T.into(), rowid: None }, format!("{open_count} NVTX ranges never ended; shown up to the last NVTX timestamp ({last} ns)"));
        }
        Ok(())
    }

    /// The name of an NVTX row: its `text`, else the string its `textId` names (interned once
    /// per id).
    fn nvtx_text(&mut self, row: &Cells<'_>, text_ids: &mut HashMap<i64, StrId>) -> StrId {
        match row.get_ref(6).ok() {
            Some(ValueRef::Text(t)) => match std::str::from_utf8(t) {
                Ok(text) => self.b.intern(text),
                Err(_) => self.b.intern(&String::from_utf8_lossy(t)),
            },
            Some(other) if other != ValueRef::Null => {
                self.b.intern(text_of(other).as_deref().unwrap_or(""))
            }
            _ => match row.get_ref(7).ok().and_then(int_of) {
                Some(id) => match text_ids.get(&id) {
                    Some(&s) => s,
                    None => {
                        let s = self
                            .b
                            .intern(self.strings.get(&id).map_or("", String::as_str));
                        text_ids.insert(id, s);
                        s
                    }
                },
                None => self.b.intern(""),
            },
        }
    }
}

/// An NVTX row's payload: its integer, floating-point or JSON value, whichever is set.
fn nvtx_payload(row: &Cells<'_>) -> Option<Payload> {
    let v = |i| row.get_ref(i).ok().and_then(int_of);
    v(11)
        .map(|u| Payload::U64(u as u64))
        .or_else(|| v(12).map(Payload::I64))
        .or_else(|| row.get_ref(13).ok().and_then(float_of).map(Payload::F64))
        .or_else(|| row.get_ref(14).ok().and_then(text_of).map(Payload::Text))
}

fn process_of(gtid: i64) -> u64 {
    (gtid as u64) >> 24
}
