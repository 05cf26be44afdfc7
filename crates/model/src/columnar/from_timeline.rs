//! A timeline's events and counter samples, and the `nsys stats` reports, as column tables.

use std::collections::HashMap;

use super::{Column, ColumnBuilder, ColumnTable, Kind, Value, Values, column_from_text};
use crate::timeline::nsys::stats::{Cell, ReportTable};
use crate::timeline::{EventId, Payload, Timeline, TrackId};

/// Interns strings into a dictionary column's keys.
#[derive(Default)]
struct Dictionary {
    keys: Vec<u32>,
    dictionary: Vec<String>,
    index: HashMap<String, u32>,
}

impl Dictionary {
    fn push(&mut self, value: &str) {
        let key = match self.index.get(value) {
            Some(&k) => k,
            None => {
                let k = u32::try_from(self.dictionary.len()).unwrap_or(u32::MAX);
                self.dictionary.push(value.to_owned());
                self.index.insert(value.to_owned(), k);
                k
            }
        };
        self.keys.push(key);
    }

    fn finish(self, name: &str) -> Column {
        Column::full(
            name,
            Values::Dictionary {
                keys: self.keys,
                dictionary: self.dictionary,
            },
        )
    }
}

/// The columns of [`events_table`], in order.
pub const EVENT_COLUMNS: &[&str] = &[
    "id",
    "track",
    "row",
    "kind",
    "name",
    "start",
    "end",
    "duration",
    "correlation_id",
    "source_row",
    "color",
    "category",
    "payload_int",
    "payload_double",
    "payload_text",
    "queued",
];

/// Every event of the timeline, track by track in the tree's order, row by row: its id, track
/// path ("Machine 0/Process 12/Thread 12/CUDA API"), row (nesting depth or lane), kind, name,
/// start, end and duration (ns, the timeline's clock), correlation id (null for none), the
/// row of its record in the source (SQLite rowid or line), its colour (ARGB), category,
/// payload (by type) and, for device commands, when it was queued. Counter samples are in
/// [`counters_table`].
pub fn events_table(timeline: &Timeline) -> ColumnTable {
    let mut ids = Vec::new();
    let mut tracks = Dictionary::default();
    let mut rows = Vec::new();
    let mut kinds = Dictionary::default();
    let mut names = Dictionary::default();
    let (mut starts, mut ends, mut durations) = (Vec::new(), Vec::new(), Vec::new());
    let mut optional: Vec<ColumnBuilder> = EVENT_COLUMNS[8..]
        .iter()
        .zip([
            Kind::Int,
            Kind::Int,
            Kind::Int,
            Kind::Int,
            Kind::Int,
            Kind::Float,
            Kind::Text,
            Kind::Int,
        ])
        .map(|(name, kind)| ColumnBuilder::new(*name, Some(kind)))
        .collect();
    for (t, track) in timeline.tracks.iter().enumerate() {
        if track.rows.iter().all(|r| r.is_empty()) {
            continue;
        }
        let path = timeline.track_path(TrackId(u32::try_from(t).unwrap_or(u32::MAX)));
        for (depth, range) in track.rows.iter().enumerate() {
            for id in range.clone() {
                let Some(event) = timeline.event(EventId(id)) else {
                    continue;
                };
                ids.push(i64::from(id));
                tracks.push(&path);
                rows.push(depth as i64);
                kinds.push(event.kind.as_str());
                names.push(timeline.name(event.name));
                starts.push(event.start);
                ends.push(event.end);
                durations.push(event.end - event.start);
                let attrs = timeline.attrs(event.id);
                let payload = attrs.and_then(|a| a.payload.as_ref());
                let values = [
                    (event.correlation != 0).then(|| Value::Int(i64::from(event.correlation))),
                    Some(Value::Int(i64::from(event.source))),
                    attrs
                        .and_then(|a| a.color)
                        .map(|c| Value::Int(i64::from(c))),
                    attrs
                        .and_then(|a| a.category)
                        .map(|c| Value::Int(i64::from(c))),
                    match payload {
                        Some(Payload::I64(v)) => Some(Value::Int(*v)),
                        Some(Payload::U64(v)) => i64::try_from(*v).ok().map(Value::Int),
                        _ => None,
                    },
                    match payload {
                        Some(Payload::F64(v)) => Some(Value::Float(*v)),
                        Some(Payload::U64(v)) if i64::try_from(*v).is_err() => {
                            Some(Value::Float(*v as f64))
                        }
                        _ => None,
                    },
                    match payload {
                        Some(Payload::Text(s)) => Some(Value::Text(s.as_bytes())),
                        _ => None,
                    },
                    timeline.queued_ns(event.id).map(Value::Int),
                ];
                for (builder, value) in optional.iter_mut().zip(values) {
                    builder.push(value.unwrap_or(Value::Null));
                }
            }
        }
    }
    let count = ids.len();
    let mut columns = vec![
        Column::full("id", Values::Int64(ids)),
        tracks.finish("track"),
        Column::full("row", Values::Int64(rows)),
        kinds.finish("kind"),
        names.finish("name"),
        Column::full("start", Values::Int64(starts)),
        Column::full("end", Values::Int64(ends)),
        Column::full("duration", Values::Int64(durations)),
    ];
    columns.extend(optional.into_iter().map(ColumnBuilder::finish));
    ColumnTable {
        name: "events".into(),
        columns,
        rows: count,
        warnings: Vec::new(),
    }
}

/// Every counter sample of the timeline (GPU metrics, CPU frequencies, PMU counters...): the
/// counter track's path, the sample's time (ns) and value, track by track in time order.
pub fn counters_table(timeline: &Timeline) -> ColumnTable {
    let mut tracks = Dictionary::default();
    let (mut times, mut values) = (Vec::new(), Vec::new());
    for (track, series) in timeline.all_counter_series() {
        let path = timeline.track_path(*track);
        for (time, value) in series.iter() {
            tracks.push(&path);
            times.push(time);
            values.push(value);
        }
    }
    let rows = times.len();
    ColumnTable {
        name: "counters".into(),
        columns: vec![
            tracks.finish("track"),
            Column::full("time", Values::Int64(times)),
            Column::full("value", Values::Float64(values)),
        ],
        rows,
        warnings: Vec::new(),
    }
}

/// An `nsys stats` report as a column table: a column of numbers is int64 when every value is
/// an integer, else double (empty cells null); a column with text, or with a number that does
/// not parse, is string. The rows are formatted once.
pub fn report_table(report: &ReportTable) -> ColumnTable {
    let width = report.columns.len();
    let mut cells: Vec<Vec<Cell>> = vec![Vec::with_capacity(report.rows.len()); width];
    let _ = report.rows.for_each(|row| {
        for (c, column) in cells.iter_mut().enumerate() {
            column.push(
                row.get(c)
                    .cloned()
                    .unwrap_or(Cell::Text(Default::default())),
            );
        }
        Ok::<(), ()>(())
    });
    let columns = report
        .columns
        .iter()
        .zip(&cells)
        .map(|(header, cells)| report_column(header, cells))
        .collect();
    ColumnTable {
        name: report.report.clone(),
        columns,
        rows: report.rows.len(),
        warnings: report.warnings.clone(),
    }
}

fn report_column(header: &str, cells: &[Cell]) -> Column {
    let text = cells.iter().any(|c| matches!(c, Cell::Text(_)));
    let texts: Vec<&str> = cells.iter().map(Cell::as_str).collect();
    column_from_text(header, &texts, text)
}
