//! GPU work linked to the NVTX range it was launched in: an NCCL collective is an NVTX range
//! (domain NCCL, with a binary payload: communicator, message size, reduction...) on the CPU
//! thread around the launch call whose correlation id links it to its kernel
//! (`ncclDevKernel_AllReduce_…`). The kernel's fields then carry the range's payload fields
//! ([`Timeline::event_fields`]) and the app links back to the range.
//!
//! The range is the innermost NVTX push/pop or start/end range with a binary payload open on
//! the launching thread at the launch call's start (kernel → flow partner → its thread → the
//! thread's series, one binary search per row).

use std::collections::HashMap;

use super::model::{EventId, EventKind, Timeline, TrackId};
use super::nsys::payload::{Field, Value};
use crate::core::num::index_u32;

impl Timeline {
    /// The NVTX range with a binary payload that was open on the launching thread when the
    /// GPU work `event` was launched (the innermost one); `None` for other events, or when the
    /// timeline has no payloads. Scans the flows once (for a selected event; see
    /// [`Timeline::launch_ranges`] for all of them).
    pub fn launch_range(&self, event: EventId) -> Option<EventId> {
        if !self.has_payloads() || !self.event(event)?.kind.is_gpu_work() {
            return None;
        }
        let call = self
            .flow_partners(event)
            .into_iter()
            .find(|&p| self.event(p).is_some_and(|e| !e.kind.is_gpu_work()))?;
        let (track, _) = self.locate(call)?;
        self.payload_range_open_at(call, track)
    }

    /// [`Timeline::launch_range`] of every GPU work launched in such a range, by the work's id
    /// (empty without payloads): one pass over the flows.
    pub fn launch_ranges(&self) -> HashMap<EventId, EventId> {
        let mut out = HashMap::new();
        if !self.has_payloads() {
            return out;
        }
        // Tracks hold consecutive id ranges: (first id, end, track) sorted, for the call's track.
        let mut spans: Vec<(u32, u32, TrackId)> = self
            .tracks
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                Some((
                    t.rows.first()?.start,
                    t.rows.last()?.end,
                    TrackId(index_u32(i)),
                ))
            })
            .collect();
        spans.sort_unstable();
        let mut found: HashMap<EventId, Option<EventId>> = HashMap::new();
        for f in self.flows() {
            let (Some(call), Some(work)) = (self.event(f.from), self.event(f.to)) else {
                continue;
            };
            if call.kind.is_gpu_work() || !work.kind.is_gpu_work() {
                continue;
            }
            let range = *found.entry(f.from).or_insert_with(|| {
                let k = spans.partition_point(|s| s.0 <= f.from.0).checked_sub(1)?;
                let (_, end, track) = spans[k];
                (f.from.0 < end)
                    .then(|| self.payload_range_open_at(f.from, track))
                    .flatten()
            });
            if let Some(range) = range {
                out.insert(f.to, range);
            }
        }
        out
    }

    /// The innermost NVTX range with a binary payload open, at `call`'s start, on the thread
    /// holding `call` (in its series `call_track`).
    fn payload_range_open_at(&self, call: EventId, call_track: TrackId) -> Option<EventId> {
        let at = self.event(call)?.start;
        let thread = self.track(call_track)?.parent?;
        let mut best: Option<(i64, EventId)> = None;
        for &series in &self.track(thread)?.children {
            let Some(track) = self.track(series).filter(|_| series != call_track) else {
                continue;
            };
            for row in &track.rows {
                // The last span of the row starting at or before the call.
                let (lo, hi) = (row.start as usize, row.end as usize);
                let n = (lo..hi).len();
                let k = partition(n, |m| self.start_of(lo + m) <= at);
                if k == 0 || self.end_of(lo + k - 1) <= at {
                    continue;
                }
                let id = EventId(index_u32(lo + k - 1));
                let start = self.start_of(lo + k - 1);
                if best.is_none_or(|(s, _)| start > s) && self.has_binary_payload(id) {
                    best = Some((start, id));
                }
            }
        }
        best.map(|(_, id)| id)
    }

    /// Whether `event` is an NVTX range with a binary payload.
    fn has_binary_payload(&self, event: EventId) -> bool {
        let Some(e) = self.event(event) else {
            return false;
        };
        matches!(e.kind, EventKind::NvtxPushPop | EventKind::NvtxStartEnd)
            && self
                .session_of(event)
                .nvtx_payloads
                .as_ref()
                .is_some_and(|p| p.binary(e.source).is_some())
    }

    /// How the range `range` is named where GPU work launched in it shows its fields: its
    /// domain (from its series, "NVTX (NCCL)" → "NCCL") and its name: "NCCL: ncclAllReduce".
    pub fn launch_range_label(&self, range: EventId) -> String {
        let name = self.event(range).map_or("", |e| self.name(e.name));
        let series = self.locate(range).and_then(|(t, _)| self.track(t));
        let domain = series
            .map(|t| t.name.as_str())
            .and_then(|n| n.strip_suffix(')'))
            .and_then(|n| n.rsplit_once(" (").map(|(_, d)| d))
            .unwrap_or("NVTX");
        format!("{domain}: {name}")
    }

    /// The field GPU work launched in `range` carries: the range's label
    /// ([`Timeline::launch_range_label`]) holding its payload fields.
    pub(super) fn launch_field(&self, range: EventId) -> Field {
        Field {
            name: self.launch_range_label(range),
            value: Value::Struct(
                self.payload_fields(range)
                    .map(|d| d.fields)
                    .unwrap_or_default(),
            ),
        }
    }
}

/// The number of leading `m` in `0..n` for which `pred(m)` holds (`pred` true then false).
fn partition(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut a, mut b) = (0, n);
    while a < b {
        let m = a + (b - a) / 2;
        if pred(m) {
            a = m + 1;
        } else {
            b = m;
        }
    }
    a
}
