//! Import statistics: what a loader did with every row of every table (or other source) of the
//! file — Perfetto's import stats are the model. Each source's rows are split into `events`
//! (drawn on tracks), `attached` (read into other things: names, labels, call-stack frames,
//! session facts) and `skipped` (left out, each with its reason), and the three always add up
//! to the source's `rows`.

use std::collections::BTreeMap;

/// What happened to the rows of one source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceStats {
    /// Rows the source holds.
    pub rows: u64,
    /// Rows that became events on tracks.
    pub events: u64,
    /// Rows that became part of other events or of the session (names, labels, frames).
    pub attached: u64,
    /// Rows left out, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Whether the file format's documentation describes the source (for an export: the
    /// schema reference); unknown sources are listed by name in the app.
    pub documented: bool,
}

impl SourceStats {
    /// Rows skipped for any reason.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    /// Rows not accounted for (0 when events, attached and skipped add up to the rows).
    pub fn unaccounted(&self) -> i128 {
        i128::from(self.rows)
            - i128::from(self.events)
            - i128::from(self.attached)
            - i128::from(self.skipped_total())
    }
}

/// The import statistics of a file: one entry per source that has rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportStats {
    /// Sources by name (an export's table names).
    pub sources: BTreeMap<String, SourceStats>,
}

impl ImportStats {
    /// Adds the statistics of another file (a merged timeline counts the rows of all its files).
    pub fn add(&mut self, other: &ImportStats) {
        for (name, theirs) in &other.sources {
            let ours = self.source(name);
            ours.rows += theirs.rows;
            ours.events += theirs.events;
            ours.attached += theirs.attached;
            ours.documented |= theirs.documented;
            for (reason, n) in &theirs.skipped {
                *ours.skipped.entry(reason.clone()).or_default() += n;
            }
        }
    }

    /// The entry of `source`, made when missing.
    pub fn source(&mut self, source: &str) -> &mut SourceStats {
        self.sources.entry(source.to_owned()).or_default()
    }

    /// Counts `n` rows of `source` as events.
    pub fn events(&mut self, source: &str, n: u64) {
        if n > 0 {
            self.source(source).events += n;
        }
    }

    /// Counts `n` rows of `source` as attached to other things.
    pub fn attached(&mut self, source: &str, n: u64) {
        if n > 0 {
            self.source(source).attached += n;
        }
    }

    /// Counts `n` rows of `source` as skipped for `reason`.
    pub fn skipped(&mut self, source: &str, reason: &str, n: u64) {
        if n > 0 {
            *self
                .source(source)
                .skipped
                .entry(reason.to_owned())
                .or_default() += n;
        }
    }

    /// Rows of every source, events of every source, and so on: `(rows, events, attached,
    /// skipped)`.
    pub fn totals(&self) -> (u64, u64, u64, u64) {
        self.sources.values().fold((0, 0, 0, 0), |t, s| {
            (
                t.0 + s.rows,
                t.1 + s.events,
                t.2 + s.attached,
                t.3 + s.skipped_total(),
            )
        })
    }

    /// Sources whose counts do not add up to their rows, with the difference.
    pub fn unbalanced(&self) -> Vec<(&str, i128)> {
        self.sources
            .iter()
            .filter(|(_, s)| s.unaccounted() != 0)
            .map(|(name, s)| (name.as_str(), s.unaccounted()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_source() {
        let mut stats = ImportStats::default();
        stats.source("A").rows = 10;
        stats.events("A", 6);
        stats.attached("A", 1);
        stats.skipped("A", "duplicate", 2);
        stats.skipped("A", "duplicate", 1);
        stats.skipped("A", "never", 0);
        stats.events("C", 0);
        assert_eq!(stats.sources["A"].skipped.len(), 1);
        assert_eq!(stats.sources["A"].unaccounted(), 0);
        stats.source("B").rows = 3;
        assert_eq!(stats.unbalanced(), vec![("B", 3)]);
        assert_eq!(stats.totals(), (13, 6, 1, 3));
    }
}
