//! Serving the Compare tab's "run B beside run A" ([`crate::recipes::beside`]) on a timeline:
//! run B's files join the timeline (read again with A's, the Compare tab kept), their groups
//! are named `A · file` and `B · file`, and once read the files are lined up on the first
//! iteration of the NVTX range they share most — then on whatever range and iteration the user
//! picks. On one timeline the runs scroll and zoom together.

use std::path::{Path, PathBuf};

use sightline_model::timeline::Timeline;

use super::TimelineDoc;
use super::files::FileChange;
use super::stats_panel::Pane;
use crate::recipes::beside::Beside;

impl TimelineDoc {
    /// Serves what the Compare tab asked of the timeline (call every frame, before drawing).
    pub(super) fn serve_beside(&mut self) {
        let beside = self
            .stats
            .compare
            .beside
            .get_or_insert_with(Beside::default);
        if let Some(run_b) = beside.show_request.take() {
            self.show_beside(run_b);
            return;
        }
        let request = beside.align_request.take();
        let waiting = beside.shown.is_some() && beside.ranges.is_none();
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        let timeline = loaded.timeline.clone();
        if waiting && !timeline.partial {
            self.label_runs(&timeline);
            let ranges = timeline.common_ranges();
            let first = ranges.first().map(|(name, _)| (name.clone(), 0));
            if let Some(beside) = &mut self.stats.compare.beside {
                beside.ranges = Some(ranges);
                beside.range = 0;
                beside.iteration = 0;
            }
            self.line_up(first);
        } else if request.is_some() {
            self.line_up(request);
        }
    }

    /// Adds run B's files (an export, a report or a folder) to the timeline and reads them all
    /// again, the Compare tab kept and shown.
    fn show_beside(&mut self, run_b: PathBuf) {
        let compare = std::mem::take(&mut self.stats.compare);
        self.add_more_files(vec![run_b.clone()]);
        self.stats.compare = compare;
        self.stats.pane = Pane::Compare;
        if let Some(beside) = &mut self.stats.compare.beside {
            beside.shown = Some(run_b);
            beside.ranges = None;
            beside.message = None;
        }
    }

    /// Names every file's group after its run: `B · rank1` for run B's, `A · rank1` for the
    /// others (unless the user named it).
    fn label_runs(&mut self, timeline: &Timeline) {
        let Some(beside) = &self.stats.compare.beside else {
            return;
        };
        let changes: Vec<FileChange> = timeline
            .parts()
            .iter()
            .enumerate()
            .filter(|(_, part)| !self.edits.labels.contains_key(&part.source))
            .map(|(k, part)| {
                let run = if beside.is_run_b(&part.source) {
                    'B'
                } else {
                    'A'
                };
                FileChange::Rename(k, format!("{run} · {}", stem(&part.source)))
            })
            .collect();
        self.apply_changes(changes);
    }

    /// Lines the files up on `on` (an NVTX range and its 0-based iteration) and says what
    /// moved in the Compare tab.
    fn line_up(&mut self, on: Option<(String, usize)>) {
        let Some((name, nth)) = on else {
            return;
        };
        self.apply_changes(vec![FileChange::AlignOn(name, nth)]);
        let said = self.files_panel.align_message.clone();
        if let Some(beside) = &mut self.stats.compare.beside {
            beside.message = said;
        }
    }

    /// Applies Files-panel changes to the loaded timeline.
    fn apply_changes(&mut self, changes: Vec<FileChange>) {
        let Some(loaded) = self.load.loaded() else {
            return;
        };
        let (details, merged) = (loaded.details.clone(), loaded.merged.clone());
        for change in changes {
            self.apply_file_change(change, &details, merged.as_deref());
        }
    }
}

/// A file's name without its extension.
fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}
