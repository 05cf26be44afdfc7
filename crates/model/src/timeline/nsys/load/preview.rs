//! Previews of what was read so far (`LoadOptions::preview`): the builder cloned and packed on
//! the loading thread half a second after the start or once [`PREVIEW_MAX_EVENTS`] events are
//! read, whichever is first, then at three times the time elapsed while it holds fewer.

use super::Loader;

/// When the first preview of what was read so far is due
/// ([`LoadOptions::preview`](super::LoadOptions::preview)).
pub const PREVIEW_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

/// About the most events a preview of what was read so far holds (a copy of them is packed).
pub const PREVIEW_MAX_EVENTS: usize = 1 << 20;

/// When the previews of what was read so far are due.
pub(super) struct PreviewClock {
    pub(super) started: std::time::Instant,
    /// `None` once previews are over (too many events read).
    pub(super) due: Option<std::time::Instant>,
    /// Whether one was made.
    pub(super) made: bool,
}

impl Loader<'_, '_> {
    /// Hands what was read so far to the preview when one is due.
    pub(super) fn maybe_preview(&mut self) {
        if self.preview.is_none() {
            return;
        }
        let Some(due) = self.preview_clock.due else {
            return;
        };
        let staged = self.b.event_count();
        // The first preview comes when due or when the events to show reach the most a
        // preview holds, whichever is first: a fast load previews too.
        let full = staged >= PREVIEW_MAX_EVENTS;
        if full && self.preview_clock.made {
            self.preview_clock.due = None;
            return;
        }
        if (std::time::Instant::now() < due && !full) || staged == 0 {
            // Not yet, or nothing to show yet: a later report tries again.
            return;
        }
        self.b.sort_children_by_key();
        // Packed here: on a thread of its own, the copy would be freed into that thread's
        // heap, which the load then no longer reuses.
        let snapshot = self.b.snapshot();
        if let Some(preview) = self.preview.as_mut() {
            preview(snapshot);
        }
        let now = std::time::Instant::now();
        self.preview_clock.made = true;
        self.preview_clock.due =
            (!full).then(|| now + now.duration_since(self.preview_clock.started) * 2);
    }
}
