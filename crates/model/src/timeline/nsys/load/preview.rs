//! Previews of what was read so far (`LoadOptions::preview`), made on the loading thread half
//! a second after the start or once [`PREVIEW_MAX_EVENTS`] events are read, whichever is first,
//! then whenever the time elapsed has doubled: table after table appears while a large file is
//! read. While the events read are at most [`PREVIEW_MAX_EVENTS`], a preview is the builder
//! cloned and packed; past that, its large tracks are sketched
//! ([`TimelineBuilder::sketch`](crate::timeline::builder::TimelineBuilder::sketch)), so a
//! preview never costs a second copy of the events.

use super::reading::Reading;
use crate::timeline::builder::TimelineBuilder;

/// When the first preview of what was read so far is due
/// ([`LoadOptions::preview`](super::LoadOptions::preview)).
pub const PREVIEW_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

/// About the most events a preview of what was read so far holds as they are (a copy of them
/// is packed); later previews sketch the large tracks.
pub const PREVIEW_MAX_EVENTS: usize = 1 << 20;

/// Spans per large track in a sketched preview (finer than a pixel of the whole session).
const SKETCH_BUCKETS: usize = 4096;

/// When the previews of what was read so far are due.
pub(super) struct PreviewClock {
    pub(super) started: std::time::Instant,
    /// When the next one is due; `None` once the load is finishing.
    pub(super) due: Option<std::time::Instant>,
    /// Whether one was made.
    pub(super) made: bool,
}

impl Reading<'_> {
    /// Hands what was read so far in `b` to the preview when one is due.
    pub(super) fn maybe_preview(&mut self, b: &mut TimelineBuilder) {
        if self.preview.is_none() {
            return;
        }
        let Some(due) = self.preview_clock.due else {
            return;
        };
        // Every event table read: the whole timeline is next, a preview would copy it for
        // nothing (and show it complete while flagged partial).
        if self.rows_total > 0 && self.rows_done >= self.rows_total {
            return;
        }
        let staged = b.event_count();
        // The first preview comes when due or when the events to show reach the most a
        // preview holds as they are, whichever is first: a fast load previews too.
        let first_full = !self.preview_clock.made && staged >= PREVIEW_MAX_EVENTS;
        if (std::time::Instant::now() < due && !first_full) || staged == 0 {
            // Not yet, or nothing to show yet: a later report tries again.
            return;
        }
        b.sort_children_by_key();
        // Packed here: on a thread of its own, the copy would be freed into that thread's
        // heap, which the load then no longer reuses.
        let snapshot = if staged <= PREVIEW_MAX_EVENTS || first_full {
            b.snapshot()
        } else {
            b.sketch(SKETCH_BUCKETS)
        };
        if let Some(preview) = self.preview.as_mut() {
            preview(snapshot);
        }
        let now = std::time::Instant::now();
        self.preview_clock.made = true;
        self.preview_clock.due = Some(now + now.duration_since(self.preview_clock.started));
    }
}
