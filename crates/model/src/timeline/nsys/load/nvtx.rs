//! NVTX_EVENTS onto the timeline: push/pop ranges nested per thread and domain, start/end
//! ranges in lanes, marks; domain and thread names; ranges never closed end at the last NVTX
//! timestamp (flagged `open`).

use std::collections::HashMap;

use super::{Loader, SERIES_NVTX, SERIES_NVTX_RANGES, integer, rowid};
use crate::problem::Location;
use crate::timeline::builder::NewEvent;
use crate::timeline::model::{EventAttrs, EventKind, Payload};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{float_of, int_of, text_of};
use crate::timeline::nsys::schema;

impl Loader<'_, '_> {
    pub(super) fn nvtx(&mut self) -> Result<(), NsysError> {
        const T: &str = "NVTX_EVENTS";
        if !self.db.has_table(T) {
            return Ok(());
        }
        let c = |name| self.db.col_or_null(T, name);
        let sql = format!(
            "SELECT rowid, start, end, eventType, globalTid, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}",
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
        ) + &format!(" FROM {T}");
        let mut rows: Vec<NvtxRow> = Vec::new();
        self.scan(T, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let text = row
                .get_ref(6)
                .ok()
                .and_then(text_of)
                .or_else(|| v(7).and_then(|id| l.strings.get(&id).cloned()));
            let payload = v(11)
                .map(|u| Payload::U64(u as u64))
                .or_else(|| v(12).map(Payload::I64))
                .or_else(|| row.get_ref(13).ok().and_then(float_of).map(Payload::F64))
                .or_else(|| row.get_ref(14).ok().and_then(text_of).map(Payload::Text));
            rows.push(NvtxRow {
                rowid: rowid(v(0)),
                start: integer(v(1), "start")?,
                end: v(2),
                event_type: integer(v(3), "eventType")?,
                gtid: v(4).unwrap_or(0),
                text,
                domain: v(8).unwrap_or(0),
                color: v(9).map(|c| c as u32),
                category: v(10).map(|c| c as u32),
                payload,
            });
            Ok(())
        })?;
        // Domain names per process, thread names, and the last timestamp for open ranges.
        let mut domains: HashMap<(u64, i64), String> = HashMap::new();
        let mut last = i64::MIN;
        for r in &rows {
            last = last.max(r.start).max(r.end.unwrap_or(i64::MIN));
            if r.event_type == 75
                && let Some(t) = &r.text
            {
                domains.insert((process_of(r.gtid), r.domain), t.clone());
            }
            if (r.event_type == 39 || r.event_type == 72)
                && let Some(t) = &r.text
            {
                self.thread_names.insert(r.gtid, t.clone());
            }
        }
        let mut open_count = 0u64;
        let before = self.b.event_count();
        for r in rows {
            let kind = match r.event_type {
                59 | 70 => EventKind::NvtxPushPop,
                60 | 71 => EventKind::NvtxStartEnd,
                34 | 65 => EventKind::NvtxMark,
                // Domain and thread names, read above.
                75 | 39 | 72 if r.text.is_some() => {
                    self.b.session.imports.attached(T, 1);
                    continue;
                }
                other => {
                    let label = schema::nvtx_event_type_label(other).unwrap_or("unknown");
                    let reason = match other {
                        75 | 39 | 72 => format!("eventType {other} ({label}) without a name"),
                        _ => format!("eventType {other} ({label}): not drawn"),
                    };
                    self.b.session.imports.skipped(T, &reason, 1);
                    continue;
                }
            };
            let domain_name = domains.get(&(process_of(r.gtid), r.domain)).cloned();
            let (key, label) = match kind {
                EventKind::NvtxStartEnd => {
                    (SERIES_NVTX_RANGES + r.domain as u32 as u64, "NVTX ranges")
                }
                _ => (SERIES_NVTX + r.domain as u32 as u64, "NVTX"),
            };
            let series_name = match &domain_name {
                Some(d) => format!("{label} ({d})"),
                None => label.to_string(),
            };
            let track = self.thread_series(r.gtid, key, &series_name);
            let (end, open) = match (kind, r.end) {
                (EventKind::NvtxMark, _) => (r.start, false),
                (_, Some(e)) => (e, false),
                (_, None) => (last.max(r.start), true),
            };
            open_count += u64::from(open);
            let name = self.b.intern(r.text.as_deref().unwrap_or(""));
            let e = self
                .b
                .push(track, NewEvent::new(kind, r.start, end, name, r.rowid));
            self.b.set_attrs(
                e,
                EventAttrs {
                    color: r.color,
                    category: r.category,
                    payload: r.payload,
                    queued_ns: None,
                    open,
                    stack: None,
                },
            );
        }
        self.events_since(T, before);
        if open_count > 0 {
            self.b.warn(Location::Row { table: T.into(), rowid: None }, format!("{open_count} NVTX ranges never ended; shown up to the last NVTX timestamp ({last} ns)"));
        }
        Ok(())
    }
}

struct NvtxRow {
    rowid: u32,
    start: i64,
    end: Option<i64>,
    event_type: i64,
    gtid: i64,
    text: Option<String>,
    domain: i64,
    color: Option<u32>,
    category: Option<u32>,
    payload: Option<Payload>,
}

fn process_of(gtid: i64) -> u64 {
    (gtid as u64) >> 24
}
