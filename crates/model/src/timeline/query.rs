//! Questions a timeline view asks: what is visible (with level of detail), name search, what a
//! time range holds, and how busy each GPU was.

use std::collections::HashMap;

use super::model::{EventId, EventKind, Payload, Timeline, TrackId, TrackKind};
use super::strings::StrId;
use crate::core::num::{float_to_i64, index_u32};

/// One shape to draw: a single event, or several sub-pixel events merged into one bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VisibleItem {
    /// The first event of the shape.
    pub first: EventId,
    /// How many consecutive events of the row it stands for (1 = just `first`).
    pub count: u32,
    /// Start of the first event (ns).
    pub start: i64,
    /// End of the last event (ns).
    pub end: i64,
}

/// One bucket of a counter row: see [`Timeline::counter_buckets`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterBucket {
    /// Time of the bucket's first sample (ns).
    pub start: i64,
    /// Its first value.
    pub first: f64,
    /// The smallest value in the bucket.
    pub min: f64,
    /// The largest value in the bucket.
    pub max: f64,
    /// Its last value (what holds until the next bucket).
    pub last: f64,
    /// The sample that gave the last value.
    pub sample: CounterSample,
}

/// A sample of a counter track: an event whose payload is the value, or a sample of the
/// track's [`super::series::CounterSeries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterSample {
    /// An event of the track.
    Event(EventId),
    /// Sample `index` of the track's series.
    Series(u32),
}

/// How busy the CPUs were: see [`Timeline::thread_utilization`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadUtilization {
    /// The threads' running time, summed (ns).
    pub running_ns: i64,
    /// The range's length (ns).
    pub range_ns: i64,
    /// CPUs any thread ran on.
    pub cpus: usize,
    /// Threads with thread states.
    pub threads: usize,
}

impl ThreadUtilization {
    /// Threads running at once, on average.
    pub fn average_running(&self) -> f64 {
        if self.range_ns > 0 {
            self.running_ns as f64 / self.range_ns as f64
        } else {
            0.0
        }
    }
}

/// Per-name totals of a time range or a search.
#[derive(Debug, Clone, PartialEq)]
pub struct NameStats {
    /// The name.
    pub name: StrId,
    /// Number of events.
    pub count: u64,
    /// Sum of their durations (ns), clipped to the range asked about.
    pub total_ns: i64,
    /// `total_ns / count`.
    pub average_ns: f64,
}

/// How busy one GPU was: the union of its kernels' intervals (overlaps counted once).
#[derive(Debug, Clone, PartialEq)]
pub struct GpuUtilization {
    /// The GPU's track.
    pub gpu: TrackId,
    /// Its device id (the track key).
    pub device: u64,
    /// Time covered by at least one kernel, within the range (ns).
    pub busy_ns: i64,
    /// Length of the range (ns).
    pub range_ns: i64,
    /// `busy_ns / range_ns` (0 when the range is empty).
    pub fraction: f64,
}

impl Timeline {
    /// Appends to `out` what row `row` of `track` shows in `[t0, t1]` when one pixel is
    /// `ns_per_pixel` wide: events wider than a pixel one by one, runs of narrower ones merged
    /// into one item per pixel. At most about two items per pixel column; the cost is
    /// O(log n) per item, whatever the number of events.
    pub fn visible(
        &self,
        track: TrackId,
        row: usize,
        t0: i64,
        t1: i64,
        ns_per_pixel: f64,
        out: &mut Vec<VisibleItem>,
    ) {
        let Some(range) = self.track(track).and_then(|t| t.rows.get(row)) else {
            return;
        };
        let (lo, hi) = (range.start as usize, range.end as usize);
        let pixel = float_to_i64(ns_per_pixel.max(0.0).ceil()).max(1);
        // Spans of a row never overlap, so ends are sorted like starts.
        let mut i = partition(lo, hi, |k| self.end_of(k) < t0);
        while i < hi {
            let start = self.start_of(i);
            if start > t1 {
                break;
            }
            // Every event starting within one pixel of `start`.
            let limit = start.saturating_add(pixel);
            // Galloping from `i` over the start column's block bases: the probes stay near it
            // (a plain binary search over the rest of a 10⁷-event row would touch cold
            // memory at every item).
            let mut j = self.columns.start.first_at_least(i, hi, limit).max(i + 1);
            if j - i > 1 && self.end_of(j - 1) > limit {
                // The last one reaches past the pixel: it gets its own item.
                j -= 1;
            }
            let end = self.end_of(j - 1);
            out.push(VisibleItem {
                first: EventId(index_u32(i)),
                count: index_u32(j - i),
                start,
                end,
            });
            i = j;
        }
    }

    /// Events whose name contains `needle` (ASCII case-insensitive), in column order.
    pub fn search(&self, needle: &str) -> Vec<EventId> {
        let matching = self.matching_names(needle);
        if matching.is_empty() {
            return Vec::new();
        }
        self.columns
            .name
            .iter()
            .enumerate()
            .filter(|(_, n)| matching.get(n.0 as usize).copied().unwrap_or(false))
            .map(|(i, _)| EventId(index_u32(i)))
            .collect()
    }

    /// A table, indexed by string id, of the names containing `needle` (case-insensitive).
    fn matching_names(&self, needle: &str) -> Vec<bool> {
        let needle = needle.to_ascii_lowercase();
        let mut any = false;
        let table: Vec<bool> = self
            .strings
            .iter()
            .map(|(_, s)| {
                let hit = !needle.is_empty() && s.to_ascii_lowercase().contains(&needle);
                any |= hit;
                hit
            })
            .collect();
        if any { table } else { Vec::new() }
    }

    /// Per-name count, total and average of the events of `tracks` (all tracks when empty) that
    /// overlap `[t0, t1]`, durations clipped to the range; sorted by total, descending.
    pub fn range_stats(&self, t0: i64, t1: i64, tracks: &[TrackId]) -> Vec<NameStats> {
        let all: Vec<TrackId>;
        let tracks = if tracks.is_empty() {
            all = (0..index_u32(self.tracks.len())).map(TrackId).collect();
            &all
        } else {
            tracks
        };
        let mut acc: HashMap<StrId, (u64, i64)> = HashMap::new();
        for &t in tracks {
            let Some(track) = self.track(t) else { continue };
            for row in &track.rows {
                let (lo, hi) = (row.start as usize, row.end as usize);
                let mut i = partition(lo, hi, |k| self.end_of(k) < t0);
                while i < hi && self.start_of(i) <= t1 {
                    let s = self.start_of(i).max(t0);
                    let e = self.end_of(i).min(t1);
                    let entry = acc.entry(self.columns.name[i]).or_default();
                    entry.0 += 1;
                    entry.1 = entry.1.saturating_add(e.saturating_sub(s).max(0));
                    i += 1;
                }
            }
        }
        let mut stats: Vec<NameStats> = acc
            .into_iter()
            .map(|(name, (count, total_ns))| NameStats {
                name,
                count,
                total_ns,
                average_ns: total_ns as f64 / count as f64,
            })
            .collect();
        stats.sort_by(|a, b| {
            b.total_ns
                .cmp(&a.total_ns)
                .then(b.count.cmp(&a.count))
                .then_with(|| self.name(a.name).cmp(self.name(b.name)))
        });
        stats
    }

    /// Utilization of every GPU over `range` (default: the whole timeline), from the union of
    /// its kernels' intervals across all its streams.
    pub fn gpu_utilization(&self, range: Option<(i64, i64)>) -> Vec<GpuUtilization> {
        let Some((t0, t1)) = range.or_else(|| self.time_range()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (g, track) in self.tracks.iter().enumerate() {
            if track.kind != TrackKind::Gpu {
                continue;
            }
            let mut intervals: Vec<(i64, i64)> = Vec::new();
            self.for_each_descendant(TrackId(index_u32(g)), &mut |t| {
                let Some(track) = self.track(t) else { return };
                for row in &track.rows {
                    for i in row.start as usize..row.end as usize {
                        if self.columns.kind[i] == EventKind::Kernel {
                            let (s, e) = (self.start_of(i).max(t0), self.end_of(i).min(t1));
                            if e > s {
                                intervals.push((s, e));
                            }
                        }
                    }
                }
            });
            let busy_ns = union_length(&mut intervals);
            let range_ns = t1.saturating_sub(t0).max(0);
            out.push(GpuUtilization {
                gpu: TrackId(index_u32(g)),
                device: track.key,
                busy_ns,
                range_ns,
                fraction: if range_ns > 0 {
                    busy_ns as f64 / range_ns as f64
                } else {
                    0.0
                },
            });
        }
        out
    }

    /// How busy the CPUs were over `range` (default: the whole timeline), from the threads'
    /// running ranges: `None` when the timeline has no thread states.
    pub fn thread_utilization(&self, range: Option<(i64, i64)>) -> Option<ThreadUtilization> {
        let (t0, t1) = range.or_else(|| self.time_range())?;
        let mut running_ns: i64 = 0;
        let mut cpus: Vec<StrId> = Vec::new();
        let mut threads = 0;
        for track in &self.tracks {
            // A thread's own row (the CPU rows hold the same ranges again).
            let of_thread = track
                .parent
                .and_then(|p| self.track(p))
                .is_some_and(|p| p.kind == TrackKind::Thread);
            if !of_thread {
                continue;
            }
            let mut any = false;
            for row in &track.rows {
                for i in row.start as usize..row.end as usize {
                    if self.columns.kind[i] != EventKind::ThreadRunning {
                        continue;
                    }
                    any = true;
                    let (s, e) = (self.start_of(i).max(t0), self.end_of(i).min(t1));
                    running_ns = running_ns.saturating_add((e - s).max(0));
                    let cpu = self.columns.name[i];
                    if !cpus.contains(&cpu) {
                        cpus.push(cpu);
                    }
                }
            }
            threads += usize::from(any);
        }
        (threads > 0).then(|| ThreadUtilization {
            running_ns,
            range_ns: t1.saturating_sub(t0).max(0),
            cpus: cpus.len(),
            threads,
        })
    }

    /// The value of a counter sample: its payload as a number.
    pub fn counter_value(&self, event: EventId) -> Option<f64> {
        match self.attrs(event)?.payload.as_ref()? {
            Payload::I64(v) => Some(*v as f64),
            Payload::U64(v) => Some(*v as f64),
            Payload::F64(v) => Some(*v),
            Payload::Text(_) => None,
        }
    }

    /// The smallest and largest value of a counter track's samples.
    pub fn counter_range(&self, track: TrackId) -> Option<(f64, f64)> {
        if let Some(s) = self.counter_series(track) {
            return s.min_max(0, s.len());
        }
        let t = self.track(track)?;
        let mut range: Option<(f64, f64)> = None;
        for row in &t.rows {
            for i in row.start..row.end {
                if let Some(v) = self.counter_value(EventId(i)) {
                    range = Some(range.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
                }
            }
        }
        range
    }

    /// A counter row over `[t0, t1]` in buckets of `bucket_ns`: per bucket the first sample's
    /// time and the first, smallest, largest and last value — and first the last sample before
    /// `t0`, so the step line starts at the left edge.
    pub fn counter_buckets(
        &self,
        track: TrackId,
        row: usize,
        t0: i64,
        t1: i64,
        bucket_ns: f64,
        out: &mut Vec<CounterBucket>,
    ) {
        out.clear();
        if let Some(series) = self.counter_series(track) {
            series_buckets(series, t0, t1, bucket_ns, out);
            return;
        }
        let Some(range) = self.track(track).and_then(|t| t.rows.get(row)) else {
            return;
        };
        let (lo, hi) = (range.start as usize, range.end as usize);
        let first = partition(lo, hi, |k| self.start_of(k) < t0);
        let from = first.saturating_sub(1).max(lo);
        let bucket_ns = bucket_ns.max(1.0);
        let mut i = from;
        while i < hi && self.start_of(i) <= t1 {
            let Some(v) = self.counter_value(EventId(index_u32(i))) else {
                i += 1;
                continue;
            };
            let t = self.start_of(i);
            let bucket = ((t - t0) as f64 / bucket_ns).floor();
            match out.last_mut() {
                Some(b) if i >= first && ((b.start - t0) as f64 / bucket_ns).floor() == bucket => {
                    b.min = b.min.min(v);
                    b.max = b.max.max(v);
                    b.last = v;
                    b.sample = CounterSample::Event(EventId(index_u32(i)));
                }
                _ => out.push(CounterBucket {
                    start: t,
                    first: v,
                    min: v,
                    max: v,
                    last: v,
                    sample: CounterSample::Event(EventId(index_u32(i))),
                }),
            }
            i += 1;
        }
    }

    /// Calls `f` on `track` and every track below it.
    pub fn for_each_descendant(&self, track: TrackId, f: &mut dyn FnMut(TrackId)) {
        let mut stack = vec![track];
        while let Some(t) = stack.pop() {
            f(t);
            if let Some(tr) = self.track(t) {
                stack.extend(tr.children.iter().rev().copied());
            }
        }
    }
}

/// [`Timeline::counter_buckets`] of a series: per bucket of `bucket_ns` from `t0`, the
/// samples in it found by binary search and their extremes read from the series' summary —
/// O(buckets × log samples) at any zoom. First the last sample before `t0`.
fn series_buckets(
    series: &super::series::CounterSeries,
    t0: i64,
    t1: i64,
    bucket_ns: f64,
    out: &mut Vec<CounterBucket>,
) {
    let bucket_ns = bucket_ns.max(1.0);
    let first = series.first_at_least(t0);
    let mut i = first.saturating_sub(1);
    let n = series.len();
    while i < n && series.time(i) <= t1 {
        let t = series.time(i);
        let end = if i < first {
            first
        } else {
            let k = ((t - t0) as f64 / bucket_ns).floor() + 1.0;
            let edge = t0.saturating_add(float_to_i64((k * bucket_ns).ceil()));
            series.first_at_least(edge).max(i + 1)
        };
        let (min, max) = series.min_max(i, end).unwrap_or((0.0, 0.0));
        let last = end - 1;
        out.push(CounterBucket {
            start: t,
            first: series.value(i),
            min,
            max,
            last: series.value(last),
            sample: CounterSample::Series(index_u32(last)),
        });
        i = end;
    }
}

/// The first index in `lo..hi` for which `pred` is false (`pred` true on a prefix).
pub(crate) fn partition(lo: usize, hi: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let mid = a + (b - a) / 2;
        if pred(mid) {
            a = mid + 1;
        } else {
            b = mid;
        }
    }
    a
}

/// [`partition`] by galloping from `lo`: probes `lo`, `lo + 1`, `lo + 3`, `lo + 7`… until
/// `pred` fails, then a binary search in the last gap — O(log d) probes, all within about `2d`
/// of `lo`, for an answer `d` past `lo`.
pub(crate) fn gallop(lo: usize, hi: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut a, mut step) = (lo, 1usize);
    while a < hi {
        let probe = a.saturating_add(step - 1).min(hi - 1);
        if !pred(probe) {
            return partition(a, probe, pred);
        }
        a = probe + 1;
        step = step.saturating_mul(2);
    }
    a
}

/// Total length covered by the union of `intervals` (sorted in place).
pub fn union_length(intervals: &mut [(i64, i64)]) -> i64 {
    intervals.sort_unstable();
    let mut total = 0i64;
    let mut current: Option<(i64, i64)> = None;
    for &(s, e) in intervals.iter() {
        current = match current {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total = total.saturating_add(ce.saturating_sub(cs));
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    if let Some((cs, ce)) = current {
        total = total.saturating_add(ce.saturating_sub(cs));
    }
    total
}

#[cfg(test)]
mod tests {
    use super::super::builder::{NewEvent, TimelineBuilder};
    use super::super::model::Layout;
    use super::*;

    #[test]
    fn gallop_finds_what_partition_finds() {
        let values: Vec<i64> = (0..300).map(|i| i / 3).collect();
        for lo in [0usize, 1, 7, 150, 299, 300] {
            for hi in [lo, lo + 1, 200, 300] {
                if hi < lo || hi > values.len() {
                    continue;
                }
                for t in -1..=101 {
                    let pred = |k: usize| values[k] < t;
                    assert_eq!(
                        gallop(lo, hi, pred),
                        partition(lo, hi, pred),
                        "{lo} {hi} {t}"
                    );
                }
            }
        }
    }

    fn timeline(spans: &[(i64, i64)]) -> Timeline {
        let mut b = TimelineBuilder::new("t");
        let gpu = b.track(None, TrackKind::Gpu, 0, || "GPU 0".into());
        let s = b.track(Some(gpu), TrackKind::Stream, 7, || "Stream 7".into());
        b.set_layout(s, Layout::Lanes);
        let n = b.intern("kern");
        for &(start, end) in spans {
            b.push(s, NewEvent::new(EventKind::Kernel, start, end, n, 0));
        }
        b.finish()
    }

    #[test]
    fn visible_merges_sub_pixel_events_and_keeps_wide_ones() {
        // 1000 events of 1 ns every 10 ns, then one wide event.
        let mut spans: Vec<(i64, i64)> = (0..1000).map(|i| (i * 10, i * 10 + 1)).collect();
        spans.push((20_000, 30_000));
        let tl = timeline(&spans);
        let s = TrackId(1);
        let mut out = Vec::new();
        tl.visible(s, 0, 0, 40_000, 1000.0, &mut out);
        let total: u32 = out.iter().map(|v| v.count).sum();
        assert_eq!(total, 1001, "every event is covered once");
        assert!(
            out.len() <= 12,
            "merged to about one item per pixel: {}",
            out.len()
        );
        assert_eq!(
            out.last().map(|v| (v.count, v.start, v.end)),
            Some((1, 20_000, 30_000))
        );
        out.clear();
        tl.visible(s, 0, 95, 125, 1.0, &mut out);
        let starts: Vec<i64> = out.iter().map(|v| v.start).collect();
        assert_eq!(starts, vec![100, 110, 120]);
        assert!(out.iter().all(|v| v.count == 1));
    }

    #[test]
    fn utilization_merges_overlapping_kernels() {
        let tl = timeline(&[(0, 10), (5, 15), (20, 30)]);
        let u = tl.gpu_utilization(Some((0, 40)));
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].busy_ns, 25);
        assert!((u[0].fraction - 0.625).abs() < 1e-12);
    }

    #[test]
    fn range_stats_and_search() {
        let tl = timeline(&[(0, 10), (20, 30), (40, 50)]);
        let st = tl.range_stats(5, 25, &[]);
        assert_eq!(st.len(), 1);
        assert_eq!((st[0].count, st[0].total_ns), (2, 10));
        assert_eq!(tl.search("KER").len(), 3);
        assert!(tl.search("nothing").is_empty());
    }
}
