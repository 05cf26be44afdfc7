//! The track tree as lines on screen: one line per event row, the track's name (and collapse
//! arrow) on the line of its first row, so a track is as tall as its nesting depth; tracks
//! without events of their own (machine, process, thread, GPU, context) get a header line.
//! Collapsed tracks hide their children and show their rows squeezed into one line; hidden
//! tracks are left out with everything below them.

use std::collections::HashSet;

use sightline_model::timeline::{Layout, Timeline, Track, TrackId};

/// Height of a track's header line (points).
pub const HEADER_HEIGHT: f32 = 20.0;
/// Height of one event row (points).
pub const ROW_HEIGHT: f32 = 18.0;
/// Height of a counter track's graph (points).
pub const COUNTER_HEIGHT: f32 = 36.0;
/// Indentation per tree level in the label gutter (points).
pub const INDENT: f32 = 12.0;

/// What a line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Only the track's name (a track without events of its own).
    Header,
    /// Event row `row` of the track.
    Events {
        /// Row index in [`sightline_model::timeline::Track::rows`].
        row: usize,
    },
    /// A collapsed track's rows, all drawn into one line.
    Collapsed,
}

/// One line of the canvas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// The track it belongs to.
    pub track: TrackId,
    /// Depth of the track in the tree (for indentation).
    pub level: usize,
    /// What the line shows.
    pub kind: LineKind,
    /// Whether the track's name is written at the left of this line (its first line).
    pub label: bool,
    /// Top of the line from the top of the track area (points, before scrolling).
    pub y: f32,
    /// Height (points).
    pub height: f32,
}

/// Which tracks are collapsed or hidden.
#[derive(Debug, Clone, Default)]
pub struct TreeState {
    /// Collapsed tracks.
    pub collapsed: HashSet<TrackId>,
    /// Hidden tracks (with everything below them).
    pub hidden: HashSet<TrackId>,
}

impl TreeState {
    /// Flips a track between collapsed and expanded.
    pub fn toggle(&mut self, track: TrackId) {
        if !self.collapsed.remove(&track) {
            self.collapsed.insert(track);
        }
    }
}

/// Whether `track` can be collapsed and expanded (its label draws an arrow): it has children
/// to hide, or several event rows to squeeze into one line. A leaf with one row (a GPU
/// metric's graph, a stream whose work never overlaps) has nothing to fold.
pub fn expandable(track: &Track) -> bool {
    !track.children.is_empty() || (track.rows.len() > 1 && track.layout != Layout::Counter)
}

/// The lines of `timeline` under `state`, top to bottom. Tracks with no events anywhere below
/// them are left out.
pub fn layout(timeline: &Timeline, state: &TreeState) -> Vec<Line> {
    let has_events = subtree_has_events(timeline);
    let mut lines = Vec::new();
    let mut y = 0.0;
    let mut stack: Vec<(TrackId, usize)> = timeline.roots.iter().rev().map(|&t| (t, 0)).collect();
    while let Some((id, level)) = stack.pop() {
        let Some(track) = timeline.track(id) else {
            continue;
        };
        if state.hidden.contains(&id) || !has_events.get(id.0 as usize).copied().unwrap_or(false) {
            continue;
        }
        let mut push = |kind, label, height| {
            lines.push(Line {
                track: id,
                level,
                kind,
                label,
                y,
                height,
            });
            y += height;
        };
        // A leaf marked collapsed (from the menu) has nothing to fold: drawn as it is.
        let collapsed = state.collapsed.contains(&id) && expandable(track);
        if track.rows.is_empty() {
            push(LineKind::Header, true, HEADER_HEIGHT);
        } else if collapsed {
            push(LineKind::Collapsed, true, HEADER_HEIGHT);
        } else {
            let counter = track.layout == Layout::Counter;
            for row in 0..track.rows.len() {
                let height = match (counter, row) {
                    (true, _) => COUNTER_HEIGHT,
                    (false, 0) => HEADER_HEIGHT,
                    (false, _) => ROW_HEIGHT,
                };
                push(LineKind::Events { row }, row == 0, height);
            }
        }
        if !collapsed {
            stack.extend(track.children.iter().rev().map(|&c| (c, level + 1)));
        }
    }
    lines
}

/// For every track, whether it or a track below it holds events.
fn subtree_has_events(timeline: &Timeline) -> Vec<bool> {
    let mut has = vec![false; timeline.tracks.len()];
    // Parents come before children: walk backwards so children are settled first.
    for (i, track) in timeline.tracks.iter().enumerate().rev() {
        let own = track.event_count() > 0
            || timeline
                .counter_series(TrackId(i as u32))
                .is_some_and(|s| !s.is_empty());
        let below = track
            .children
            .iter()
            .any(|c| has.get(c.0 as usize).copied().unwrap_or(false));
        has[i] = own || below;
    }
    has
}

/// Every track at or below `track` (for a collapsed line's summary).
pub fn subtree(timeline: &Timeline, track: TrackId) -> Vec<TrackId> {
    let mut out = Vec::new();
    timeline.for_each_descendant(track, &mut |t| out.push(t));
    out
}

/// The line holding row `row` of `track`, or the nearest shown line standing for it (its
/// collapsed line, or the header of the closest shown ancestor).
pub fn line_of(lines: &[Line], timeline: &Timeline, track: TrackId, row: usize) -> Option<Line> {
    if let Some(l) = lines
        .iter()
        .find(|l| l.track == track && l.kind == LineKind::Events { row })
    {
        return Some(*l);
    }
    let mut cur = Some(track);
    while let Some(t) = cur {
        if let Some(l) = lines
            .iter()
            .find(|l| l.track == t && l.kind == LineKind::Collapsed)
        {
            return Some(*l);
        }
        if t != track
            && let Some(l) = lines.iter().find(|l| l.track == t && l.label)
        {
            return Some(*l);
        }
        cur = timeline.track(t).and_then(|tr| tr.parent);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use sightline_model::timeline::{EventKind, NewEvent, TimelineBuilder, TrackKind};

    /// A GPU with a "GPU Metrics" group holding two metric graphs, and a stream with two
    /// overlapping kernels (two rows) beside one with a single kernel.
    fn timeline() -> Timeline {
        let mut b = TimelineBuilder::new("t.sqlite");
        let gpu = b.track(None, TrackKind::Gpu, 0, || "GPU 0".into());
        let group = b.track(Some(gpu), TrackKind::Series, 1, || "GPU Metrics".into());
        for (k, name) in ["SM Active", "Tensor Active"].into_iter().enumerate() {
            let metric = b.track(Some(group), TrackKind::Series, 10 + k as u64, || {
                name.into()
            });
            let series = b.series(metric, || Some("%".into()));
            series.push(100, 1.0);
            series.push(200, 2.0);
        }
        let name = b.intern("k");
        let lanes = b.track(Some(gpu), TrackKind::Stream, 2, || "Stream 7".into());
        b.set_layout(lanes, Layout::Lanes);
        let one = b.track(Some(gpu), TrackKind::Stream, 3, || "Stream 8".into());
        for (track, start) in [(lanes, 0), (lanes, 50), (one, 0)] {
            b.push(
                track,
                NewEvent::new(EventKind::Kernel, start, start + 100, name, 0),
            );
        }
        b.finish()
    }

    #[test]
    fn only_tracks_with_something_to_fold_are_expandable() {
        let tl = timeline();
        let named = |n: &str| {
            let i = tl.tracks.iter().position(|t| t.name == n).unwrap();
            (TrackId(i as u32), &tl.tracks[i])
        };
        // The metric graphs are leaves with one row: no arrow, and collapsing them changes
        // nothing.
        for leaf in ["SM Active", "Tensor Active", "Stream 8"] {
            assert!(!expandable(named(leaf).1), "{leaf}");
        }
        for parent in ["GPU 0", "GPU Metrics", "Stream 7"] {
            assert!(expandable(named(parent).1), "{parent}");
        }
        let mut state = TreeState::default();
        let before = layout(&tl, &state);
        state.toggle(named("SM Active").0);
        assert_eq!(layout(&tl, &state), before);
        // Collapsing the group hides both graphs; collapsing the two-row stream folds it.
        state.toggle(named("GPU Metrics").0);
        state.toggle(named("Stream 7").0);
        let lines = layout(&tl, &state);
        assert!(!lines.iter().any(|l| l.track == named("SM Active").0));
        let stream: Vec<_> = lines
            .iter()
            .filter(|l| l.track == named("Stream 7").0)
            .collect();
        assert_eq!(stream.len(), 1);
        assert_eq!(stream[0].kind, LineKind::Collapsed);
    }
}
