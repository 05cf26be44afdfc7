//! `GENERIC_EVENTS`: events whose schema is known only at run time, described by
//! `GENERIC_EVENT_TYPES` and `GENERIC_EVENT_SOURCES` (JSON). Each row is an instant named by
//! its type on a row per source ("Generic events: ftrace"). Its time is `timestamp`; where that
//! is NULL (2022.2 and 2023.1 captures) the raw time `rawTimestamp` is used when the source's
//! time base (`"TimeSource"`) is the session's (`"SessionNs"`: ns from session start), and the
//! row is skipped with its time base named otherwise.
//!
//! A type whose samples are GPU metrics — its `typeId` named in `TARGET_INFO_GPU_METRICS`, or
//! a type or source called a metrics one whose description lists its fields — has its rows'
//! numeric fields (the event's `data` JSON: field name → value, a number or a numeric string)
//! drawn as samples of the metric counter tracks ([`super::metrics`]), one track per field.

use std::collections::HashMap;

use super::generic::{GenericType, Place, family};
use super::metrics::MetricNames;
use super::{Loader, RowError, rowid};
use crate::timeline::builder::NewEvent;
use crate::timeline::model::{EventKind, TrackId};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, text_of};
use crate::timeline::strings::StrId;

const TABLE: &str = "GENERIC_EVENTS";

/// Whether a source's time base is the session's (ns from its start).
fn session_time(time_source: Option<&str>) -> bool {
    time_source.is_some_and(|t| {
        let t = t.to_ascii_lowercase();
        t.contains("session")
    })
}

/// The metric fields of type `type_id`, when its samples are GPU metrics: its fields named
/// in `TARGET_INFO_GPU_METRICS` and those its description lists.
fn metric_fields(type_id: i64, t: Option<&GenericType>, metrics: &MetricNames) -> Vec<String> {
    let mut fields: Vec<String> = metrics.by_type.get(&type_id).cloned().unwrap_or_default();
    if let Some(t) = t {
        let called_metrics = [t.type_name.as_deref(), t.source.as_deref()]
            .iter()
            .flatten()
            .any(|n| n.to_ascii_lowercase().contains("metric"));
        if !fields.is_empty() || called_metrics {
            for f in &t.fields {
                if !fields.contains(f) {
                    fields.push(f.clone());
                }
            }
        }
    }
    fields
}

/// A JSON value as a number: a number, or a string holding one.
fn number(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// What the loader knows of one type while reading its rows.
struct TypeRead {
    name: StrId,
    track_label: String,
    track_key: u64,
    time_source: Option<String>,
    /// Metric field → ordinal (its track's key); empty when the type is not a metric one.
    metric_fields: HashMap<String, u64>,
}

impl Loader<'_, '_> {
    /// Every row of `GENERIC_EVENTS`: an instant on its source's row, or samples of its type's
    /// metric tracks.
    pub(super) fn generic_events(
        &mut self,
        types: &HashMap<i64, GenericType>,
        metrics: &MetricNames,
    ) -> Result<(), NsysError> {
        let has = |c: &str| self.db.has_column(TABLE, c);
        if !has("timestamp") && !has("rawTimestamp") {
            return Ok(());
        }
        let c = |name| self.db.col_or_null(TABLE, name);
        let sql = format!(
            "SELECT rowid, {}, {}, {}, {}, {}, {}, {} FROM {TABLE}",
            c("timestamp"),
            c("rawTimestamp"),
            c("typeId"),
            c("data"),
            c("globalTid"),
            c("globalPid"),
            c("deviceId"),
        );
        let label = family(TABLE);
        let mut read: HashMap<Option<i64>, TypeRead> = HashMap::new();
        let mut metric_tracks: HashMap<(i64, String), TrackId> = HashMap::new();
        let before = self.b.event_count();
        let mut sample_rows = 0u64;
        self.scan(TABLE, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let type_id = v(3);
            let t = read
                .entry(type_id)
                .or_insert_with(|| l.type_read(type_id, types, metrics, &label));
            let time = match (v(1), v(2)) {
                (Some(time), _) => time,
                (None, Some(raw)) if session_time(t.time_source.as_deref()) => raw,
                (None, Some(_)) => {
                    return Err(RowError::ForeignTime {
                        time_source: t.time_source.clone().unwrap_or_else(|| "unknown".into()),
                    });
                }
                (None, None) => {
                    return Err(RowError::NotInteger {
                        column: "timestamp",
                    });
                }
            };
            if let (Some(type_id), false) = (type_id, t.metric_fields.is_empty()) {
                let data = row.get_ref(4).ok().and_then(text_of).unwrap_or_default();
                let value: serde_json::Value =
                    serde_json::from_str(&data).unwrap_or(serde_json::Value::Null);
                let mut pushed = false;
                for (field, v) in value.as_object().into_iter().flatten() {
                    let (Some(&ordinal), Some(x)) = (t.metric_fields.get(field), number(v)) else {
                        continue;
                    };
                    let track = *metric_tracks
                        .entry((type_id, field.clone()))
                        .or_insert_with(|| l.metric_track(type_id, ordinal, field));
                    l.b.series(track, || None).push(time, x);
                    pushed = true;
                }
                if pushed {
                    sample_rows += 1;
                    return Ok(());
                }
            }
            let place = Place::of(v(5), v(6), v(7));
            let track = l
                .tracks
                .generic(&mut l.b, &l.names, place, t.track_key, &t.track_label);
            l.b.session
                .series_sources
                .entry(track)
                .or_insert_with(|| TABLE.to_owned());
            l.b.push(
                track,
                NewEvent::new(EventKind::Marker, time, time, t.name, rowid(v(0))),
            );
            Ok(())
        })?;
        self.events_since(TABLE, before);
        self.b.session.imports.events(TABLE, sample_rows);
        Ok(())
    }

    /// How rows of type `type_id` are read: their name, row and time base, and the metric
    /// fields (with their tracks' ordinals) when the type's samples are GPU metrics.
    fn type_read(
        &mut self,
        type_id: Option<i64>,
        types: &HashMap<i64, GenericType>,
        metrics: &MetricNames,
        label: &str,
    ) -> TypeRead {
        let known = type_id.and_then(|id| types.get(&id));
        let name = match (known.and_then(|t| t.name), type_id) {
            (Some(name), _) => name,
            (None, Some(id)) => self.b.intern(&format!("Generic event type {id}")),
            (None, None) => self.b.intern(label),
        };
        let (track_label, track_key) = match known.and_then(|t| t.source.as_deref()) {
            Some(source) => (
                format!("{label}: {source}"),
                self.tracks.generic_key(&format!("{TABLE}\0{source}")),
            ),
            None => (label.to_owned(), self.tracks.generic_key(TABLE)),
        };
        let metric_fields = match type_id {
            Some(id) => metric_fields(id, known, metrics)
                .into_iter()
                .enumerate()
                .map(|(i, f)| {
                    let ordinal = metrics
                        .id_of(id, &f)
                        .and_then(|m| metrics.ordinal(id, m))
                        .unwrap_or((1 << 20) + i as u64);
                    (f, ordinal)
                })
                .collect(),
            None => HashMap::new(),
        };
        TypeRead {
            name,
            track_label,
            track_key,
            time_source: known.and_then(|t| t.time_source.clone()),
            metric_fields,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{number, session_time};

    #[test]
    fn time_bases_and_numbers() {
        assert!(session_time(Some("SessionNs")));
        assert!(!session_time(Some("CLOCK_MONOTONIC_RAW")));
        assert!(!session_time(None));
        assert_eq!(number(&serde_json::json!("42")), Some(42.0));
        assert_eq!(number(&serde_json::json!(1.5)), Some(1.5));
        assert_eq!(number(&serde_json::json!("n/a")), None);
    }
}
