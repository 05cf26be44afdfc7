//! An event's own fields beyond what the timeline draws: an NVTX event's scalar payload and
//! its binary payload decoded with the export's schemas (read from the compact side table of
//! the event's file, decoded when asked), for the details panel, tooltips, search and
//! `sightline timeline --events`; GPU work carries the fields of the NVTX range it was
//! launched in (`launch_range.rs`).

use super::model::{EventId, EventKind, Payload, SessionInfo, Timeline};
use super::nsys::payload::{Decoded, Field, Value, flatten};

impl Timeline {
    /// The session facts of the file `event` comes from (its part's in a merged timeline).
    pub(super) fn session_of(&self, event: EventId) -> &SessionInfo {
        match self.part_of(event).and_then(|i| self.parts.get(i)) {
            Some(part) => &part.session,
            None => &self.session,
        }
    }

    /// The decoded binary payload of an NVTX event, `None` when it has none.
    pub fn payload_fields(&self, event: EventId) -> Option<Decoded> {
        let e = self.event(event)?;
        if !matches!(
            e.kind,
            EventKind::NvtxPushPop | EventKind::NvtxStartEnd | EventKind::NvtxMark
        ) {
            return None;
        }
        self.session_of(event)
            .nvtx_payloads
            .as_ref()?
            .decode(e.source)
    }

    /// Every field of `event`: its scalar payload (`Payload`), its binary payload's fields, its
    /// source row's fields and an MPI call's fields ([`Timeline::mpi_fields`]); for GPU work
    /// launched in an NVTX range with a payload (an NCCL kernel), that range's fields as one
    /// field named after it ([`Timeline::launch_range`]: scans the flows; for every event use
    /// [`Timeline::event_fields_in`]).
    pub fn event_fields(&self, event: EventId) -> Vec<Field> {
        let mut out = self.own_fields(event);
        if let Some(range) = self.launch_range(event) {
            out.push(self.launch_field(range));
        }
        out
    }

    /// [`Timeline::event_fields`] with the launch ranges found once for every event
    /// ([`Timeline::launch_ranges`]).
    pub fn event_fields_in(
        &self,
        event: EventId,
        launch_ranges: &std::collections::HashMap<EventId, EventId>,
    ) -> Vec<Field> {
        let mut out = self.own_fields(event);
        if let Some(&range) = launch_ranges.get(&event) {
            out.push(self.launch_field(range));
        }
        out
    }

    /// The event's scalar payload, its binary payload's fields, its source row's fields and
    /// its MPI call's fields.
    fn own_fields(&self, event: EventId) -> Vec<Field> {
        let mut out = Vec::new();
        if let Some(p) = self.attrs(event).and_then(|a| a.payload.as_ref()) {
            let value = match p {
                Payload::U64(v) => Value::Unsigned(u128::from(*v)),
                Payload::I64(v) => Value::Signed(i128::from(*v)),
                Payload::F64(v) => Value::Float(*v),
                Payload::Text(t) => Value::Text(t.clone()),
            };
            out.push(Field {
                name: "Payload".into(),
                value,
            });
        }
        if let Some(d) = self.payload_fields(event) {
            out.extend(d.fields);
        }
        out.extend(self.row_fields(event));
        out.extend(self.mpi_fields(event));
        out
    }

    /// Whether any of the timeline's files keeps fields of its source rows or MPI calls (so
    /// that events other than NVTX ones may have fields: [`Timeline::row_fields`],
    /// [`Timeline::mpi_fields`]).
    pub fn has_row_or_mpi_fields(&self) -> bool {
        let some = |s: &SessionInfo| s.row_fields.is_some() || s.mpi.is_some();
        some(&self.session) || self.parts.iter().any(|p| some(&p.session))
    }

    /// Whether any of the timeline's files holds binary payloads.
    pub fn has_payloads(&self) -> bool {
        let some = |s: &SessionInfo| s.nvtx_payloads.as_ref().is_some_and(|p| !p.is_empty());
        some(&self.session) || self.parts.iter().any(|p| some(&p.session))
    }

    /// The events whose decoded payload fields contain `needle` (case-insensitive) in a
    /// field's name or value, in id order.
    pub fn search_fields(&self, needle: &str) -> Vec<EventId> {
        let needle = needle.trim().to_lowercase();
        if needle.is_empty() || !self.has_payloads() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for i in 0..crate::core::num::index_u32(self.event_count()) {
            let id = EventId(i);
            let Some(d) = self.payload_fields(id) else {
                continue;
            };
            let hit = flatten(&d.fields).iter().any(|(k, v)| {
                k.to_lowercase().contains(&needle) || v.to_lowercase().contains(&needle)
            });
            if hit {
                hits.push(id);
            }
        }
        hits
    }
}
