//! NVTX_EVENTS onto the timeline: push/pop ranges nested per thread and domain, start/end
//! ranges in lanes, marks; domain and thread names; ranges never closed end at the last NVTX
//! timestamp (flagged `open`).

use std::collections::HashMap;

use rusqlite::types::ValueRef;

use super::pipe::Cells;
use super::{EventRef, Loader, RowError, SERIES_NVTX, SERIES_NVTX_RANGES, integer, rowid};
use crate::core::num::low_u32_of_i64;
use crate::problem::Location;
use crate::timeline::builder::NewEvent;
use crate::timeline::model::{EventAttrs, EventKind, Payload, TrackId};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::split_global_id;
use crate::timeline::nsys::db::{ExportDb, float_of, int_of, text_of};
use crate::timeline::nsys::payload::store::NvtxPayloads;
use crate::timeline::nsys::schema;
use crate::timeline::strings::StrId;

/// The query [`Loader::nvtx`] reads `NVTX_EVENTS` with.
pub(super) fn nvtx_sql(db: &ExportDb) -> String {
    const T: &str = "NVTX_EVENTS";
    let optional = db.cols_or_null(
        T,
        &[
            "endGlobalTid",
            "text",
            "textId",
            "domainId",
            "color",
            "category",
            "uint64Value",
            "int64Value",
            "doubleValue",
            "jsonText",
            "uint32Value",
            "int32Value",
            "floatValue",
            "jsonTextId",
            "binaryData",
        ],
    );
    format!("SELECT rowid, start, end, eventType, globalTid, {optional} FROM {T}")
}

/// What one pass over `NVTX_EVENTS` leaves to settle once every row is read: the names of
/// domains (series labels) and of threads first seen here, and the end of ranges never closed
/// (the last NVTX timestamp).
struct NvtxPass {
    /// Domain names by (process, domain).
    domains: HashMap<(u64, i64), String>,
    /// The last NVTX timestamp.
    last: i64,
    /// Ranges without an end, with their start.
    open: Vec<(EventRef, i64)>,
    /// Series first asked for here: (track, its thread, domain, label).
    created: Vec<(TrackId, i64, i64, &'static str)>,
    /// The first track made by this pass.
    first_new: usize,
    /// The names of text ids, interned once.
    text_ids: HashMap<i64, StrId>,
    /// The rows' binary payloads (`binaryData`), with the export's schemas.
    payloads: NvtxPayloads,
}

impl Loader<'_, '_> {
    /// `NVTX_EVENTS`: rows are read once, straight onto their tracks; what only later rows can
    /// tell is settled after the pass ([`NvtxPass`]).
    pub(super) fn nvtx(&mut self) -> Result<(), NsysError> {
        const T: &str = "NVTX_EVENTS";
        if !self.db.has_table(T) {
            return Ok(());
        }
        let sql = nvtx_sql(self.db);
        let mut pass = NvtxPass {
            domains: HashMap::new(),
            last: i64::MIN,
            open: Vec::new(),
            created: Vec::new(),
            first_new: self.b.track_count(),
            text_ids: HashMap::new(),
            payloads: NvtxPayloads::new(self.payload_schemas()),
        };
        let before = self.b.event_count();
        self.scan(T, &sql, |l, row| l.nvtx_row(row, &mut pass))?;
        self.events_since(T, before);
        self.settle_nvtx(pass);
        Ok(())
    }

    /// One row of `NVTX_EVENTS` onto its track (a domain name is kept for later; a row not
    /// drawn is counted as skipped).
    fn nvtx_row(&mut self, row: &Cells<'_>, pass: &mut NvtxPass) -> Result<(), RowError> {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let start = integer(v(1), "start")?;
        let end = v(2);
        let event_type = integer(v(3), "eventType")?;
        let gtid = v(4).unwrap_or(0);
        let domain = v(8).unwrap_or(0);
        pass.last = pass.last.max(start).max(end.unwrap_or(i64::MIN));
        let Some((kind, thread_named)) = self.nvtx_kind(row, pass, event_type, gtid, domain) else {
            return Ok(());
        };
        let name = match thread_named {
            Some(named) => named,
            None => self.nvtx_text(row, &mut pass.text_ids),
        };
        let track = self.nvtx_track(pass, gtid, domain, kind);
        let end = match (kind, end) {
            (EventKind::NvtxMark, _) | (_, None) => start,
            (_, Some(e)) => e,
        };
        let e = self
            .b
            .push(track, NewEvent::new(kind, start, end, name, rowid(v(0))));
        if kind != EventKind::NvtxMark && v(2).is_none() {
            pass.open.push((e, start));
        }
        let payload = nvtx_payload(row, &self.names.strings);
        if let Some(ValueRef::Blob(b) | ValueRef::Text(b)) = row.get_ref(19).ok()
            && !b.is_empty()
        {
            pass.payloads.push(rowid(v(0)), b);
        }
        self.b.set_attrs(
            e,
            EventAttrs {
                // ARGB: its low 32 bits, however the export signs the integer.
                color: v(9).map(low_u32_of_i64),
                // NVTX categories are 32-bit: another value is no category.
                category: v(10).and_then(|c| u32::try_from(c).ok()),
                payload,
                queued_ns: None,
                open: v(2).is_none() && kind != EventKind::NvtxMark,
                stack: None,
            },
        );
        Ok(())
    }

    /// What a row of `event_type` is drawn as, with its name when it names a thread (a mark
    /// on its NVTX row, "Thread name: …"); `None` for a row not drawn: a domain's name (kept
    /// in `pass`), or a row skipped.
    fn nvtx_kind(
        &mut self,
        row: &Cells<'_>,
        pass: &mut NvtxPass,
        event_type: i64,
        gtid: i64,
        domain: i64,
    ) -> Option<(EventKind, Option<StrId>)> {
        const T: &str = "NVTX_EVENTS";
        match event_type {
            59 | 70 => Some((EventKind::NvtxPushPop, None)),
            60 | 71 => Some((EventKind::NvtxStartEnd, None)),
            34 | 65 => Some((EventKind::NvtxMark, None)),
            75 | 39 | 72 => {
                let text = row.get_ref(6).ok().and_then(text_of).or_else(|| {
                    let id = row.get_ref(7).ok().and_then(int_of)?;
                    self.names.strings.get(&id).cloned()
                });
                let Some(text) = text else {
                    let label = schema::nvtx_event_type_label(event_type).unwrap_or("unknown");
                    let reason = format!("eventType {event_type} ({label}) without a name");
                    self.b.session.imports.skipped(T, &reason, 1);
                    return None;
                };
                if event_type == 75 {
                    pass.domains.insert((process_of(gtid), domain), text);
                    self.b.session.imports.attached(T, 1);
                    return None;
                }
                let named = self.b.intern(&format!("Thread name: {text}"));
                self.names.thread_names.insert(gtid, text);
                Some((EventKind::NvtxMark, Some(named)))
            }
            other => {
                let label = schema::nvtx_event_type_label(other).unwrap_or("unknown");
                let reason = format!("eventType {other} ({label}): not drawn");
                self.b.session.imports.skipped(T, &reason, 1);
                None
            }
        }
    }

    /// The NVTX series of `kind` for `domain` under the thread of `gtid` (recorded in `pass`
    /// when first asked for here).
    fn nvtx_track(
        &mut self,
        pass: &mut NvtxPass,
        gtid: i64,
        domain: i64,
        kind: EventKind,
    ) -> TrackId {
        // Each kind's series keys span 2^32: the domain's low 32 bits pick its series.
        let domain_key = u64::from(low_u32_of_i64(domain));
        let (key, label) = match kind {
            EventKind::NvtxStartEnd => (SERIES_NVTX_RANGES + domain_key, "NVTX ranges"),
            _ => (SERIES_NVTX + domain_key, "NVTX"),
        };
        if let Some(&t) = self.tracks.series.get(&(gtid, key)) {
            return t;
        }
        let t = self
            .tracks
            .thread_series(&mut self.b, &self.names, gtid, key, label);
        pass.created.push((t, gtid, domain, label));
        t
    }

    /// After the pass: ranges never closed end at the last NVTX timestamp, series and threads
    /// first seen here are named by the domain and thread name rows, wherever they were.
    fn settle_nvtx(&mut self, pass: NvtxPass) {
        const T: &str = "NVTX_EVENTS";
        let last = pass.last;
        for &(e, start) in &pass.open {
            self.b.set_end(e, last.max(start));
        }
        for (track, gtid, domain, label) in pass.created {
            if let Some(d) = pass.domains.get(&(process_of(gtid), domain)) {
                self.b.rename(track, format!("{label} ({d})"));
            }
            // A thread first seen here is named by the NVTX name rows, wherever they are.
            if let Some(thread) = self.b.parent_of(track)
                && thread.0 as usize >= pass.first_new
                && let Some(n) = self.names.thread_names.get(&gtid)
            {
                let (_, _, tid) = split_global_id(gtid);
                self.b.rename(thread, format!("Thread {tid} ({n})"));
            }
        }
        self.settle_payloads(pass.payloads);
        let open_count = pass.open.len();
        if open_count > 0 {
            self.b.warn(
                Location::Row {
                    table: T.into(),
                    rowid: None,
                },
                format!(
                    "{open_count} NVTX ranges never ended; shown up to the last NVTX timestamp ({last} ns)"
                ),
            );
        }
    }
}

impl Loader<'_, '_> {
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
                            .intern(self.names.strings.get(&id).map_or("", String::as_str));
                        text_ids.insert(id, s);
                        s
                    }
                },
                None => self.b.intern(""),
            },
        }
    }
}

/// An NVTX row's payload: whichever member of the payload union is set (`uint64Value`,
/// `int64Value`, `doubleValue`, `jsonText`, `uint32Value`, `int32Value`, `floatValue` — kept
/// in its shortest decimal form —, or the string `jsonTextId` names).
fn nvtx_payload(row: &Cells<'_>, strings: &HashMap<i64, String>) -> Option<Payload> {
    let v = |i| row.get_ref(i).ok().and_then(int_of);
    let f = |i| row.get_ref(i).ok().and_then(float_of);
    v(11)
        .map(|u| Payload::U64(u as u64))
        .or_else(|| v(12).map(Payload::I64))
        .or_else(|| f(13).map(Payload::F64))
        .or_else(|| row.get_ref(14).ok().and_then(text_of).map(Payload::Text))
        .or_else(|| v(15).map(|u| Payload::U64(u64::from(crate::core::num::low_u32_of_i64(u)))))
        .or_else(|| {
            v(16).map(|i| {
                Payload::I64(i64::from(i32::from_le_bytes(
                    crate::core::num::low_u32_of_i64(i).to_le_bytes(),
                )))
            })
        })
        .or_else(|| {
            f(17).map(|x| {
                let short = crate::core::num::to_f32(x).to_string().parse().unwrap_or(x);
                Payload::F64(short)
            })
        })
        .or_else(|| v(18).and_then(|id| strings.get(&id).cloned().map(Payload::Text)))
}

fn process_of(gtid: i64) -> u64 {
    (gtid as u64) >> 24
}
