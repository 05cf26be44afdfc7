//! Counter samples held apart from the event columns: the GPU metrics of an export (1.75 M
//! samples in a training run) as one [`CounterSeries`] per metric track.
//!
//! A sample costs about 12 bytes resident: its time in the timeline's blocked start column
//! (about 4 bytes, [`super::blocked::Starts`]), its value as an `f64` (8 bytes), and a share of
//! the per-block minimum and maximum ([`SUMMARY`] samples a block, 16 bytes a block) that lets
//! a view draw the smallest and largest value of every pixel at any zoom without visiting
//! every sample. A track with a series has [`super::Layout::Counter`] and no events of its own;
//! [`super::Timeline::counter_buckets`], [`super::Timeline::counter_range`] and
//! [`super::Timeline::counter_stats`] read samples of either kind.

use super::blocked::Starts;
use super::model::{Timeline, TrackId};

/// Samples per block of the minimum/maximum summary.
const SUMMARY: usize = 64;

/// The samples of one counter track, sorted by time.
#[derive(Debug, Clone, Default)]
pub struct CounterSeries {
    /// The unit of the values ("%", "MHz", "B/s", "warps"...), when the name implies one.
    pub unit: Option<String>,
    times: Starts,
    values: Vec<f64>,
    /// `(min, max)` of each block of [`SUMMARY`] samples (the last one possibly partial).
    blocks: Vec<(f64, f64)>,
    /// Samples pushed by a loader and not yet sorted and packed.
    staged: Vec<(i64, f64)>,
}

/// The average, smallest and largest value of a counter over a time range: see
/// [`Timeline::counter_stats`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterStats {
    /// Samples taken in the range.
    pub samples: usize,
    /// The time-weighted average of the level over the range (each value holds until the
    /// next sample).
    pub average: f64,
    /// The smallest level seen in the range (the one holding at its start included).
    pub min: f64,
    /// The largest level seen in the range.
    pub max: f64,
}

impl CounterSeries {
    /// An empty series with values in `unit`.
    pub fn new(unit: Option<String>) -> CounterSeries {
        CounterSeries {
            unit,
            ..CounterSeries::default()
        }
    }

    /// Adds a sample (any order; sorted by [`CounterSeries::pack`]).
    pub fn push(&mut self, time: i64, value: f64) {
        self.staged.push((time, value));
    }

    /// Sorts the staged samples by time (equal times keep their order) and packs them with
    /// those packed before.
    pub fn pack(&mut self) {
        if self.staged.is_empty() {
            return;
        }
        let mut all: Vec<(i64, f64)> = self.iter().collect();
        all.append(&mut self.staged);
        all.sort_by_key(|&(t, _)| t);
        self.staged = Vec::new();
        self.times = all.iter().map(|&(t, _)| t).collect();
        self.values = all.iter().map(|&(_, v)| v).collect();
        self.values.shrink_to_fit();
        self.blocks = self
            .values
            .chunks(SUMMARY)
            .map(|c| {
                c.iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                        (lo.min(v), hi.max(v))
                    })
            })
            .collect();
        self.blocks.shrink_to_fit();
    }

    /// Number of samples pushed and not yet packed.
    pub fn staged_len(&self) -> usize {
        self.staged.len()
    }

    /// Number of packed samples.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is no packed sample.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Sample `i`: its time and value.
    pub fn get(&self, i: usize) -> Option<(i64, f64)> {
        Some((self.times.get(i)?, *self.values.get(i)?))
    }

    /// Time of sample `i` (callers pass indices below [`CounterSeries::len`]).
    pub fn time(&self, i: usize) -> i64 {
        self.times.at(i)
    }

    /// Value of sample `i` (0 past the end).
    pub fn value(&self, i: usize) -> f64 {
        self.values.get(i).copied().unwrap_or(0.0)
    }

    /// Every packed sample in time order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The first sample whose time is not before `t` ([`CounterSeries::len`] when none).
    pub fn first_at_least(&self, t: i64) -> usize {
        self.times.first_at_least(0, self.len(), t)
    }

    /// The smallest and largest value of samples `lo..hi`, whole summary blocks read from
    /// the summary.
    pub fn min_max(&self, lo: usize, hi: usize) -> Option<(f64, f64)> {
        let hi = hi.min(self.len());
        if lo >= hi {
            return None;
        }
        let mut acc = (f64::INFINITY, f64::NEG_INFINITY);
        let mut add = |(a, b): (f64, f64)| acc = (acc.0.min(a), acc.1.max(b));
        let mut i = lo;
        while i < hi {
            if i.is_multiple_of(SUMMARY) && i + SUMMARY <= hi {
                add(self.blocks[i / SUMMARY]);
                i += SUMMARY;
            } else {
                let v = self.values[i];
                add((v, v));
                i += 1;
            }
        }
        Some(acc)
    }

    /// The first and last time.
    pub fn extent(&self) -> Option<(i64, i64)> {
        Some((self.time(0), self.times.get(self.len().checked_sub(1)?)?))
    }

    /// Moves every sample by `delta_ns`.
    pub fn shift(&mut self, delta_ns: i64) {
        let n = self.len();
        self.times.map_range(0..n, |t| t.saturating_add(delta_ns));
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.times.heap_bytes()
            + self.values.capacity() * 8
            + self.blocks.capacity() * 16
            + self.staged.capacity() * 16
            + self.unit.as_ref().map_or(0, String::capacity)
    }
}

impl Timeline {
    /// The samples of counter track `track`, when they are held as a series (GPU metrics).
    pub fn counter_series(&self, track: TrackId) -> Option<&CounterSeries> {
        self.series
            .binary_search_by_key(&track, |(t, _)| *t)
            .ok()
            .map(|i| &self.series[i].1)
    }

    /// Every counter track held as a series, by track.
    pub fn all_counter_series(&self) -> &[(TrackId, CounterSeries)] {
        &self.series
    }

    /// Number of samples of all series.
    pub fn sample_count(&self) -> usize {
        self.series.iter().map(|(_, s)| s.len()).sum()
    }

    /// What the timeline holds, for headers and summaries: "`events` events" and, when it
    /// holds counter samples as series, ", N samples in K metric tracks" — so that an export of
    /// GPU metrics alone does not read "0 events". `events` is the count to say (the events
    /// read so far of a preview, [`Timeline::events_read`]).
    pub fn contents_text(&self, events: usize) -> String {
        let samples = self.sample_count();
        if samples == 0 {
            return format!("{events} events");
        }
        let tracks = self.series.len();
        let s = if tracks == 1 { "" } else { "s" };
        format!("{events} events, {samples} samples in {tracks} metric track{s}")
    }

    /// The average, smallest and largest level of counter track `track` over `[t0, t1]`:
    /// each value holds from its sample until the next, the one holding at `t0` included.
    /// `None` when no level holds anywhere in the range.
    pub fn counter_stats(&self, track: TrackId, t0: i64, t1: i64) -> Option<CounterStats> {
        let samples: Vec<(i64, f64)> = match self.counter_series(track) {
            Some(s) => {
                let first = s.first_at_least(t0);
                let last = s.first_at_least(t1.saturating_add(1));
                (first.saturating_sub(1)..last)
                    .filter_map(|i| s.get(i))
                    .collect()
            }
            None => {
                let t = self.track(track)?;
                let all: Vec<(i64, f64)> = t
                    .rows
                    .iter()
                    .flat_map(|r| r.clone())
                    .filter_map(|i| {
                        let e = super::EventId(i);
                        Some((self.event(e)?.start, self.counter_value(e)?))
                    })
                    .filter(|&(t, _)| t <= t1)
                    .collect();
                let first = all.partition_point(|&(t, _)| t < t0);
                all[first.saturating_sub(1)..].to_vec()
            }
        };
        level_stats(&samples, t0, t1)
    }
}

/// [`CounterStats`] of the level stepped by `samples` (sorted; the first may be before `t0`).
fn level_stats(samples: &[(i64, f64)], t0: i64, t1: i64) -> Option<CounterStats> {
    let mut weighted = 0.0;
    let mut covered = 0i64;
    let mut min = f64::INFINITY;
    let mut max = f64::NEG_INFINITY;
    let mut inside = 0usize;
    for (k, &(t, v)) in samples.iter().enumerate() {
        if t > t1 {
            break;
        }
        if t >= t0 {
            inside += 1;
        } else if samples.get(k + 1).is_some_and(|n| n.0 <= t0) {
            continue;
        }
        let from = t.max(t0);
        let to = samples.get(k + 1).map_or(t1, |n| n.0.min(t1));
        min = min.min(v);
        max = max.max(v);
        let held = to.saturating_sub(from).max(0);
        weighted += v * held as f64;
        covered = covered.saturating_add(held);
    }
    if min > max {
        return None;
    }
    let average = if covered > 0 {
        weighted / covered as f64
    } else {
        (min + max) / 2.0
    };
    Some(CounterStats {
        samples: inside,
        average,
        min,
        max,
    })
}

#[cfg(test)]
mod tests {
    use super::{CounterSeries, level_stats};

    #[test]
    fn packs_sorted_and_summarizes() {
        let mut s = CounterSeries::new(Some("%".into()));
        for i in (0..200).rev() {
            s.push(i * 10, f64::from(i32::try_from(i % 7).unwrap_or(0)));
        }
        s.pack();
        assert_eq!(s.len(), 200);
        assert_eq!(s.get(0), Some((0, 0.0)));
        assert_eq!(s.get(199), Some((1990, f64::from(199 % 7))));
        assert_eq!(s.min_max(0, 200), Some((0.0, 6.0)));
        assert_eq!(s.min_max(64, 66), Some((1.0, 2.0)));
        assert_eq!(s.first_at_least(15), 2);
        s.shift(5);
        assert_eq!(s.get(1), Some((15, 1.0)));
    }

    #[test]
    fn stats_weight_by_time_held() {
        // 10 holds over [0, 10), 30 over [10, 20].
        let samples = [(-5, 10.0), (10, 30.0)];
        let s = level_stats(&samples, 0, 20).unwrap();
        assert_eq!(s.samples, 1);
        assert_eq!((s.min, s.max), (10.0, 30.0));
        assert!((s.average - 20.0).abs() < 1e-9);
        assert_eq!(level_stats(&[(30, 1.0)], 0, 20), None);
    }
}
