//! The Events view: one track's events (or a counter's samples), optionally only those of a
//! time range, as a table — name, kind, start, duration, end, correlation id, category and the
//! event's own fields (an NVTX payload and its decoded binary payload, flattened as the
//! details panel shows them), and, once [`EventsTable::read_sources`] read them, the columns
//! of the events' source rows (a kernel's grid and block, a copy's bytes and kinds:
//! `events_source`) — with the sort keys, the text filter and the CSV/TSV lines that
//! the app's Events view and `sightline events` share, so that what one exports equals what
//! the other prints.
//!
//! Only the row list is built (event ids in time order, or a range of sample indices); a cell
//! is read from the timeline when it is shown, sorted or written, so a track of millions of
//! events costs 4 bytes an event here.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::ops::Range;

use super::events_source::{SourceCell, SourceColumns, SourceColumnsError, read_source_columns};
use super::model::{EventId, EventKind, Timeline, TrackId};
use super::nsys::payload::flatten;
use super::open::DetailSource;
use crate::timeline::StrId;

/// A column of an [`EventsTable`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventColumn {
    /// The event's name.
    Name,
    /// Its kind (`kernel`, `cuda_api`, `nvtx_pushpop`...).
    Kind,
    /// Its start (ns, the timeline's clock).
    Start,
    /// Its duration (ns).
    Duration,
    /// Its end (ns).
    End,
    /// Its correlation id (empty when it has none).
    Correlation,
    /// Its NVTX category.
    Category,
    /// One of its own fields, by its flattened name (`Payload`, `Message size [bytes]`,
    /// `outer.inner`).
    Field(String),
    /// A counter sample's time (ns).
    Time,
    /// A counter sample's value.
    Value,
    /// A column read from the events' source (an export's kernel grid, a copy's bytes), by
    /// its index in the table's [`SourceColumns`].
    Source(usize),
}

/// The rows: a track's events in time order, or a counter series' samples.
#[derive(Debug, Clone)]
enum Rows {
    Events(Vec<EventId>),
    Samples(Range<usize>),
}

/// One track's events (or samples) as a table; see the module documentation.
#[derive(Debug, Clone)]
pub struct EventsTable {
    track: TrackId,
    range: Option<(i64, i64)>,
    columns: Vec<EventColumn>,
    labels: Vec<String>,
    rows: Rows,
    source: SourceColumns,
    source_problem: Option<String>,
}

/// What a cell sorts by: numbers numerically (before text), text by its bytes; a missing
/// value is the smallest of all.
#[derive(Debug, Clone, PartialEq)]
pub enum SortKey {
    /// No value (a field the event does not have).
    Missing,
    /// An integer.
    Int(i128),
    /// A floating-point number.
    Float(f64),
    /// Text.
    Text(String),
}

/// Orders two sort keys ascending (see [`SortKey`]).
pub fn compare_keys(a: &SortKey, b: &SortKey) -> std::cmp::Ordering {
    use SortKey::{Float, Int, Missing, Text};
    let class = |k: &SortKey| match k {
        Missing => 0,
        Int(_) | Float(_) => 1,
        Text(_) => 2,
    };
    match (a, b) {
        (Int(x), Int(y)) => x.cmp(y),
        (Float(x), Float(y)) => x.total_cmp(y),
        (Int(x), Float(y)) => (*x as f64).total_cmp(y),
        (Float(x), Int(y)) => x.total_cmp(&(*y as f64)),
        (Text(x), Text(y)) => x.cmp(y),
        _ => class(a).cmp(&class(b)),
    }
}

/// A cell's text as a sort key: an integer or a number when it reads as one, else text.
fn text_key(text: String) -> SortKey {
    if text.is_empty() {
        SortKey::Missing
    } else if let Ok(v) = text.parse::<i128>() {
        SortKey::Int(v)
    } else if let Ok(v) = text.parse::<f64>() {
        SortKey::Float(v)
    } else {
        SortKey::Text(text)
    }
}

/// How often (in rows) the long loops call their `tick`.
const TICK_ROWS: usize = 16_384;

/// Whether an event of this kind may carry a decoded binary payload.
fn nvtx_kind(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::NvtxPushPop | EventKind::NvtxStartEnd | EventKind::NvtxMark
    )
}

impl EventsTable {
    /// The table of `track`'s events (every one, or those overlapping `range`).
    pub fn new(timeline: &Timeline, track: TrackId, range: Option<(i64, i64)>) -> EventsTable {
        Self::build(timeline, track, range, &mut |_| true).unwrap_or_else(|| EventsTable {
            track,
            range,
            columns: Vec::new(),
            labels: Vec::new(),
            rows: Rows::Events(Vec::new()),
            source: SourceColumns::default(),
            source_problem: None,
        })
    }

    /// [`EventsTable::new`], calling `tick(fraction done)` every few thousand events; `None`
    /// when `tick` returned `false` (cancelled).
    pub fn build(
        timeline: &Timeline,
        track: TrackId,
        range: Option<(i64, i64)>,
        tick: &mut dyn FnMut(f32) -> bool,
    ) -> Option<EventsTable> {
        if let Some(series) = timeline.counter_series(track) {
            let rows = match range {
                Some((t0, t1)) => {
                    series.first_at_least(t0)..series.first_at_least(t1.saturating_add(1))
                }
                None => 0..series.len(),
            };
            let value = match &series.unit {
                Some(unit) => format!("Value ({unit})"),
                None => "Value".to_owned(),
            };
            return Some(EventsTable {
                track,
                range,
                columns: vec![EventColumn::Time, EventColumn::Value],
                labels: vec!["Time (ns)".to_owned(), value],
                rows: Rows::Samples(rows),
                source: SourceColumns::default(),
                source_problem: None,
            });
        }
        let ids = events_of(timeline, track, range, tick)?;
        let columns = columns_of(timeline, &ids, tick)?;
        let labels = columns.iter().map(label_of).collect();
        Some(EventsTable {
            track,
            range,
            columns,
            labels,
            rows: Rows::Events(ids),
            source: SourceColumns::default(),
            source_problem: None,
        })
    }

    /// Adds the columns the events' source rows give (a kernel's grid and block sizes, a
    /// copy's bytes and memory kinds, a CodeXL trace's work sizes: [`read_source_columns`]),
    /// read from `source`, after the table's own; a column whose header the table already has
    /// is left out. `tick(fraction)` now and then; `false` when it cancelled. An export that
    /// cannot be read leaves the table as it was, saying why in [`EventsTable::source_problem`].
    pub fn read_sources(
        &mut self,
        timeline: &Timeline,
        source: &DetailSource,
        tick: &mut dyn FnMut(f32) -> bool,
    ) -> bool {
        let Rows::Events(ids) = &self.rows else {
            return true;
        };
        let read = match read_source_columns(timeline, ids, source, tick) {
            Ok(read) => read,
            Err(SourceColumnsError::Cancelled) => return false,
            Err(SourceColumnsError::Nsys(e)) => {
                self.source_problem = Some(format!("the export's columns were not read: {e}"));
                return true;
            }
        };
        for (i, label) in read.labels().enumerate() {
            if !self.labels.iter().any(|l| l == label) {
                self.columns.push(EventColumn::Source(i));
                self.labels.push(label.to_owned());
            }
        }
        self.source = read;
        true
    }

    /// Why the columns of the events' sources are missing, when reading them failed.
    pub fn source_problem(&self) -> Option<&str> {
        self.source_problem.as_deref()
    }

    /// The track listed.
    pub fn track(&self) -> TrackId {
        self.track
    }

    /// The time range listed (`None`: the whole track).
    pub fn range(&self) -> Option<(i64, i64)> {
        self.range
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[EventColumn] {
        &self.columns
    }

    /// The columns' header labels ("Name", "Start (ns)", a field's name, "Value (%)").
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        match &self.rows {
            Rows::Events(ids) => ids.len(),
            Rows::Samples(r) => r.len(),
        }
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the rows are a counter's samples (no events to select).
    pub fn is_samples(&self) -> bool {
        matches!(self.rows, Rows::Samples(_))
    }

    /// The column whose label is `name` (case-insensitive; a label's unit may be left out:
    /// `duration` is "Duration (ns)").
    pub fn column_index(&self, name: &str) -> Option<usize> {
        let want = name.trim().to_lowercase();
        let bare = |l: &str| match l.rfind(" (") {
            Some(at) if l.ends_with(')') => l[..at].to_lowercase(),
            _ => l.to_lowercase(),
        };
        self.labels
            .iter()
            .position(|l| l.to_lowercase() == want)
            .or_else(|| self.labels.iter().position(|l| bare(l) == want))
    }

    /// The event of row `row` (`None` for a sample or a row out of range).
    pub fn event(&self, row: usize) -> Option<EventId> {
        match &self.rows {
            Rows::Events(ids) => ids.get(row).copied(),
            Rows::Samples(_) => None,
        }
    }

    /// The time of row `row`: an event's start, a sample's time.
    pub fn time(&self, timeline: &Timeline, row: usize) -> Option<i64> {
        match &self.rows {
            Rows::Events(ids) => timeline.event(*ids.get(row)?).map(|e| e.start),
            Rows::Samples(r) => {
                let i = r.start.checked_add(row).filter(|i| r.contains(i))?;
                Some(timeline.counter_series(self.track)?.time(i))
            }
        }
    }

    /// The row of event `event`, when the table lists it.
    pub fn row_of(&self, timeline: &Timeline, event: EventId) -> Option<usize> {
        let Rows::Events(ids) = &self.rows else {
            return None;
        };
        let start = timeline.event(event)?.start;
        let key = |id: &EventId| (timeline.event(*id).map_or(i64::MAX, |e| e.start), id.0);
        ids.binary_search_by_key(&(start, event.0), key).ok()
    }

    /// The texts of row `row`, one per column: times and durations in ns, a field as the
    /// details panel writes it, nothing for a value the event does not have.
    pub fn row_texts(&self, timeline: &Timeline, row: usize) -> Vec<String> {
        match &self.rows {
            Rows::Events(ids) => ids
                .get(row)
                .map(|&id| self.event_texts(timeline, id, row))
                .unwrap_or_default(),
            Rows::Samples(r) => {
                let sample = r
                    .start
                    .checked_add(row)
                    .filter(|i| r.contains(i))
                    .and_then(|i| timeline.counter_series(self.track)?.get(i));
                match sample {
                    Some((t, v)) => vec![t.to_string(), v.to_string()],
                    None => Vec::new(),
                }
            }
        }
    }

    /// The texts of event `id`'s row (row `row` of the table).
    fn event_texts(&self, timeline: &Timeline, id: EventId, row: usize) -> Vec<String> {
        let Some(e) = timeline.event(id) else {
            return vec![String::new(); self.columns.len()];
        };
        let has_fields = self
            .columns
            .iter()
            .any(|c| matches!(c, EventColumn::Field(_)));
        let fields = if has_fields {
            flatten(&timeline.event_fields(id))
        } else {
            Vec::new()
        };
        let attrs = timeline.attrs(id);
        self.columns
            .iter()
            .map(|c| match c {
                EventColumn::Name => timeline.name(e.name).to_owned(),
                EventColumn::Kind => e.kind.as_str().to_owned(),
                EventColumn::Start | EventColumn::Time => e.start.to_string(),
                EventColumn::Duration => (e.end - e.start).to_string(),
                EventColumn::End => e.end.to_string(),
                EventColumn::Correlation if has_correlation(e.kind, e.correlation) => {
                    e.correlation.to_string()
                }
                EventColumn::Category => attrs
                    .and_then(|a| a.category)
                    .map(|c| c.to_string())
                    .unwrap_or_default(),
                EventColumn::Field(name) => fields
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default(),
                EventColumn::Source(i) => self.source.text(*i, row),
                EventColumn::Correlation | EventColumn::Value => String::new(),
            })
            .collect()
    }

    /// The sort keys of column `col` for `rows` (indices of this table's rows), in that
    /// order; `tick(rows done)` every few thousand rows, `None` when it returned `false`.
    pub fn sort_keys(
        &self,
        timeline: &Timeline,
        col: usize,
        rows: &[usize],
        tick: &mut dyn FnMut(usize) -> bool,
    ) -> Option<Vec<SortKey>> {
        let column = self.columns.get(col)?;
        let ranks = match column {
            EventColumn::Name => Some(self.name_ranks(timeline, rows)),
            _ => None,
        };
        // GPU work's fields include its launch range's: found once for all rows.
        let launch_ranges = match column {
            EventColumn::Field(_) => timeline.launch_ranges(),
            _ => HashMap::new(),
        };
        let mut keys = Vec::with_capacity(rows.len());
        for (done, &row) in rows.iter().enumerate() {
            if done.is_multiple_of(TICK_ROWS) && !tick(done) {
                return None;
            }
            keys.push(self.key(timeline, column, row, ranks.as_ref(), &launch_ranges));
        }
        Some(keys)
    }

    /// Row `row`'s key in `column` (`ranks`: the names' places in name order;
    /// `launch_ranges`: [`Timeline::launch_ranges`] for a field column).
    fn key(
        &self,
        timeline: &Timeline,
        column: &EventColumn,
        row: usize,
        ranks: Option<&HashMap<StrId, u32>>,
        launch_ranges: &HashMap<EventId, EventId>,
    ) -> SortKey {
        let event = match &self.rows {
            Rows::Events(ids) => ids.get(row).and_then(|&id| timeline.event(id)),
            Rows::Samples(_) => {
                let texts = self.row_texts(timeline, row);
                let at = usize::from(*column == EventColumn::Value);
                return texts.into_iter().nth(at).map_or(SortKey::Missing, text_key);
            }
        };
        let Some(e) = event else {
            return SortKey::Missing;
        };
        match column {
            EventColumn::Name => ranks
                .and_then(|r| r.get(&e.name))
                .map_or(SortKey::Missing, |&r| SortKey::Int(i128::from(r))),
            EventColumn::Kind => SortKey::Text(e.kind.as_str().to_owned()),
            EventColumn::Start | EventColumn::Time => SortKey::Int(i128::from(e.start)),
            EventColumn::Duration => SortKey::Int(i128::from(e.end) - i128::from(e.start)),
            EventColumn::End => SortKey::Int(i128::from(e.end)),
            EventColumn::Correlation if has_correlation(e.kind, e.correlation) => {
                SortKey::Int(i128::from(e.correlation))
            }
            EventColumn::Category => timeline
                .attrs(e.id)
                .and_then(|a| a.category)
                .map_or(SortKey::Missing, |c| SortKey::Int(i128::from(c))),
            EventColumn::Field(name) => flatten(&timeline.event_fields_in(e.id, launch_ranges))
                .into_iter()
                .find(|(k, _)| k == name)
                .map_or(SortKey::Missing, |(_, v)| text_key(v)),
            EventColumn::Source(i) => match self.source.cell(*i, row) {
                Some(SourceCell::Number(v)) => SortKey::Int(i128::from(v)),
                Some(SourceCell::Text(t)) => text_key(t.to_owned()),
                None => SortKey::Missing,
            },
            EventColumn::Correlation | EventColumn::Value => SortKey::Missing,
        }
    }

    /// Each name of `rows`' events with its place in name order (so a sort by name compares
    /// two integers).
    fn name_ranks(&self, timeline: &Timeline, rows: &[usize]) -> HashMap<StrId, u32> {
        let mut names: Vec<StrId> = rows
            .iter()
            .filter_map(|&r| timeline.event(self.event(r)?).map(|e| e.name))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        names.sort_by(|a, b| timeline.name(*a).cmp(timeline.name(*b)));
        names
            .into_iter()
            .zip(0u32..)
            .collect::<HashMap<StrId, u32>>()
    }

    /// The rows whose name, kind or fields contain `text` (case-insensitive; a sample's value),
    /// in table order; every row for an empty text.
    pub fn filter(&self, timeline: &Timeline, text: &str) -> Vec<usize> {
        let needle = text.trim().to_lowercase();
        if needle.is_empty() {
            return (0..self.len()).collect();
        }
        let Rows::Events(ids) = &self.rows else {
            return (0..self.len())
                .filter(|&r| {
                    self.row_texts(timeline, r)
                        .iter()
                        .any(|t| t.to_lowercase().contains(&needle))
                })
                .collect();
        };
        let fields = self
            .columns
            .iter()
            .any(|c| matches!(c, EventColumn::Field(_)));
        let launch_ranges = if fields {
            timeline.launch_ranges()
        } else {
            HashMap::new()
        };
        let mut names: HashMap<StrId, bool> = HashMap::new();
        let in_source = |row: usize| {
            (0..self.source.len())
                .any(|c| self.source.text(c, row).to_lowercase().contains(&needle))
        };
        let mut hit = |id: EventId| {
            let Some(e) = timeline.event(id) else {
                return false;
            };
            let name = *names
                .entry(e.name)
                .or_insert_with(|| timeline.name(e.name).to_lowercase().contains(&needle));
            name || e.kind.as_str().contains(&needle)
                || (fields
                    && flatten(&timeline.event_fields_in(id, &launch_ranges))
                        .iter()
                        .any(|(k, v)| {
                            k.to_lowercase().contains(&needle) || v.to_lowercase().contains(&needle)
                        }))
        };
        ids.iter()
            .enumerate()
            .filter(|(r, id)| hit(**id) || in_source(*r))
            .map(|(r, _)| r)
            .collect()
    }

    /// The rows `filter` keeps, sorted by `sort` (column, descending) as the app's table
    /// sorts them: stable, so equal rows keep the table's order in both directions.
    pub fn order(
        &self,
        timeline: &Timeline,
        filter: &str,
        sort: Option<(usize, bool)>,
    ) -> Vec<usize> {
        let rows = self.filter(timeline, filter);
        let Some((col, descending)) = sort else {
            return rows;
        };
        let Some(keys) = self.sort_keys(timeline, col, &rows, &mut |_| true) else {
            return rows;
        };
        let mut at: Vec<usize> = (0..rows.len()).collect();
        at.sort_by(|&a, &b| {
            let o = compare_keys(&keys[a], &keys[b]);
            if descending { o.reverse() } else { o }
        });
        at.into_iter().map(|i| rows[i]).collect()
    }

    /// Writes `rows` (in that order) as CSV: the header line, then a line per row; a cell
    /// holding a comma, quote or line break quoted with doubled quotes.
    pub fn write_csv(
        &self,
        timeline: &Timeline,
        rows: &[usize],
        out: &mut dyn Write,
    ) -> io::Result<()> {
        use crate::timeline::nsys::stats::csv_line;
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        csv_line(&mut out, self.labels.iter().map(String::as_str))?;
        for &r in rows {
            let texts = self.row_texts(timeline, r);
            csv_line(&mut out, texts.iter().map(String::as_str))?;
        }
        out.flush()
    }

    /// Writes `rows` as tab-separated lines after the header (what the app copies to the
    /// clipboard: spreadsheets paste them as cells); tabs and line breaks inside a cell become
    /// spaces.
    pub fn write_tsv(
        &self,
        timeline: &Timeline,
        rows: &[usize],
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        let mut line = |cells: &[String]| -> io::Result<()> {
            for (i, c) in cells.iter().enumerate() {
                if i > 0 {
                    out.write_all(b"\t")?;
                }
                out.write_all(c.replace(['\t', '\n', '\r'], " ").as_bytes())?;
            }
            out.write_all(b"\n")
        };
        line(&self.labels)?;
        for &r in rows {
            line(&self.row_texts(timeline, r))?;
        }
        out.flush()
    }

    /// [`EventsTable::write_tsv`] into a string.
    pub fn to_tsv(&self, timeline: &Timeline, rows: &[usize]) -> String {
        let mut out = Vec::new();
        // Writing into a Vec cannot fail, and every cell is UTF-8.
        let _ = self.write_tsv(timeline, rows, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Whether an event's correlation column is a correlation id (a CPU sample's holds its call
/// stack; 0 is none).
fn has_correlation(kind: EventKind, correlation: u32) -> bool {
    correlation != 0 && kind != EventKind::CpuSample
}

/// A column's header label.
fn label_of(column: &EventColumn) -> String {
    match column {
        EventColumn::Name => "Name".to_owned(),
        EventColumn::Kind => "Kind".to_owned(),
        EventColumn::Start => "Start (ns)".to_owned(),
        EventColumn::Duration => "Duration (ns)".to_owned(),
        EventColumn::End => "End (ns)".to_owned(),
        EventColumn::Correlation => "Correlation id".to_owned(),
        EventColumn::Category => "Category".to_owned(),
        EventColumn::Field(name) => name.clone(),
        EventColumn::Time => "Time (ns)".to_owned(),
        EventColumn::Value => "Value".to_owned(),
        EventColumn::Source(i) => format!("Source column {i}"),
    }
}

/// `track`'s own events (not its children's) overlapping `range`, by start time (then id).
fn events_of(
    timeline: &Timeline,
    track: TrackId,
    range: Option<(i64, i64)>,
    tick: &mut dyn FnMut(f32) -> bool,
) -> Option<Vec<EventId>> {
    let Some(t) = timeline.track(track) else {
        return Some(Vec::new());
    };
    let total = t.event_count().max(1);
    let mut keyed: Vec<(i64, u32)> = Vec::new();
    let mut done = 0usize;
    for row in &t.rows {
        for i in row.clone() {
            done += 1;
            if done.is_multiple_of(TICK_ROWS) && !tick(done as f32 / total as f32 / 2.0) {
                return None;
            }
            let Some(e) = timeline.event(EventId(i)) else {
                continue;
            };
            if range.is_none_or(|(t0, t1)| e.start <= t1 && e.end >= t0) {
                keyed.push((e.start, i));
            }
        }
    }
    keyed.sort_unstable();
    Some(keyed.into_iter().map(|(_, i)| EventId(i)).collect())
}

/// The columns of a table of `ids`: name, kind, start, duration, end; the correlation id and
/// the category when an event has one; then every field name of the events, in the order
/// first met.
fn columns_of(
    timeline: &Timeline,
    ids: &[EventId],
    tick: &mut dyn FnMut(f32) -> bool,
) -> Option<Vec<EventColumn>> {
    let mut columns = vec![
        EventColumn::Name,
        EventColumn::Kind,
        EventColumn::Start,
        EventColumn::Duration,
        EventColumn::End,
    ];
    let payloads = timeline.has_payloads();
    // Fields beyond payloads (source rows, MPI calls), and GPU work launched in a payload range.
    let other_fields = timeline.has_row_or_mpi_fields();
    let launch_ranges = timeline.launch_ranges();
    let (mut correlation, mut category) = (false, false);
    let mut seen: HashSet<String> = HashSet::new();
    let mut fields: Vec<String> = Vec::new();
    let total = ids.len().max(1);
    for (done, &id) in ids.iter().enumerate() {
        if done.is_multiple_of(TICK_ROWS) && !tick(0.5 + done as f32 / total as f32 / 2.0) {
            return None;
        }
        let Some(e) = timeline.event(id) else {
            continue;
        };
        correlation |= has_correlation(e.kind, e.correlation);
        let attrs = timeline.attrs(id);
        category |= attrs.is_some_and(|a| a.category.is_some());
        let scalar = attrs.is_some_and(|a| a.payload.is_some());
        let launched = launch_ranges.contains_key(&id);
        if !(scalar || payloads && nvtx_kind(e.kind) || other_fields || launched) {
            continue;
        }
        for (name, _) in flatten(&timeline.event_fields_in(id, &launch_ranges)) {
            if seen.insert(name.clone()) {
                fields.push(name);
            }
        }
    }
    if correlation {
        columns.push(EventColumn::Correlation);
    }
    if category {
        columns.push(EventColumn::Category);
    }
    columns.extend(fields.into_iter().map(EventColumn::Field));
    Some(columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::{Equal, Greater, Less};

    #[test]
    fn keys_order_missing_then_numbers_then_text() {
        let k = |t: &str| text_key(t.to_owned());
        assert_eq!(k(""), SortKey::Missing);
        assert_eq!(k("65536"), SortKey::Int(65_536));
        assert_eq!(k("-3"), SortKey::Int(-3));
        assert_eq!(k("2.5"), SortKey::Float(2.5));
        assert_eq!(k("Max (2)"), SortKey::Text("Max (2)".into()));
        // Numbers as numbers: 8192 < 65536 although "65536" < "8192" as text.
        assert_eq!(compare_keys(&k("8192"), &k("65536")), Less);
        assert_eq!(compare_keys(&k("2.5"), &k("3")), Less);
        assert_eq!(compare_keys(&k("3"), &k("2.5")), Greater);
        assert_eq!(compare_keys(&k("3"), &k("3.0")), Equal);
        assert_eq!(compare_keys(&k(""), &k("-1")), Less);
        assert_eq!(compare_keys(&k("1e9"), &k("Avg (4)")), Less);
        assert_eq!(compare_keys(&k("Avg (4)"), &k("Max (2)")), Less);
        assert_eq!(compare_keys(&k(""), &k("")), Equal);
    }
}
