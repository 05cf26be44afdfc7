//! CPU PMU counters as counter tracks. Core events: a `PMU_EVENTS` row is one interval
//! (`start`, `end`) of one `cpu`, whose values are the `PMU_EVENT_COUNTERS` rows with
//! `id = counter_id` — one per requested event (`idx` → `PMU_EVENT_REQUESTS.id`, named by its
//! `event_name`, else by `TARGET_INFO_PERF_METRIC` for its `eventid`). Uncore events: an
//! `UNCORE_PMU_EVENTS` row is an interval of a cluster (`clusterId`), its values the
//! `UNCORE_PMU_EVENT_VALUES` rows with `id = counterId`, each named by its `rawId` through
//! `TARGET_INFO_PERF_METRIC`. Each event of each CPU (cluster) is one counter track under the
//! first machine → "CPU core PMU events" → "CPU N" ("Uncore PMU events" → "Cluster N"), named as
//! the export names the event, its unit from `TARGET_INFO_PERF_METRIC`; a sample is the
//! interval's value and holds from its `start`. No corpus export has rows in these tables (ten
//! declare them): the columns are the corpus schemas', the layout the schema comments'
//! ("REFERENCES PMU_EVENT_COUNTERS(id)", "REFERENCES PMU_EVENT_REQUESTS(id)").

use std::collections::HashMap;

use super::tracks::machine_track;
use super::{Loader, integer};
use crate::timeline::model::{TrackId, TrackKind};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, text_of};

/// Core events, their values, the requests naming them.
const CORE: &str = "PMU_EVENTS";
const CORE_VALUES: &str = "PMU_EVENT_COUNTERS";
const REQUESTS: &str = "PMU_EVENT_REQUESTS";
/// Uncore events and their values.
const UNCORE: &str = "UNCORE_PMU_EVENTS";
const UNCORE_VALUES: &str = "UNCORE_PMU_EVENT_VALUES";
/// Metric names and units by raw event id.
const PERF_METRICS: &str = "TARGET_INFO_PERF_METRIC";

/// Series keys of the two group tracks under a machine.
const CORE_KEY: u64 = super::SERIES_COUNTERS + (0xFD << 24);
const UNCORE_KEY: u64 = super::SERIES_COUNTERS + (0xFC << 24);

/// A metric's name and unit (empty: none).
type Named = (String, String);

/// The values of one sample: `(event key, value)` pairs by the sample's counter id.
type Values = HashMap<i64, Vec<(i64, f64)>>;

/// One of the two PMU families: its sample table, the column naming its device, how its group and
/// devices are called, and the series key of its group track.
struct Family {
    events: &'static str,
    device_column: &'static str,
    counter_column: &'static str,
    group: &'static str,
    device: &'static str,
    key: u64,
}

const FAMILIES: [Family; 2] = [
    Family {
        events: CORE,
        device_column: "cpu",
        counter_column: "counter_id",
        group: "CPU core PMU events",
        device: "CPU",
        key: CORE_KEY,
    },
    Family {
        events: UNCORE,
        device_column: "clusterId",
        counter_column: "counterId",
        group: "Uncore PMU events",
        device: "Cluster",
        key: UNCORE_KEY,
    },
];

impl Loader<'_, '_> {
    /// The core and uncore PMU counters of the export.
    pub(super) fn pmu_counters(&mut self) -> Result<(), NsysError> {
        let mut metrics: Option<HashMap<i64, Named>> = None;
        for family in &FAMILIES {
            let columns = ["start", family.device_column, family.counter_column];
            if !columns.iter().all(|c| self.db.has_column(family.events, c))
                || !self.db.has_rows(family.events).unwrap_or(false)
            {
                continue;
            }
            if metrics.is_none() {
                metrics = Some(self.perf_metrics()?);
            }
            let metrics = metrics.as_ref().map_or_else(HashMap::new, Clone::clone);
            let (values, names) = if family.events == CORE {
                (self.core_values()?, self.core_names(&metrics)?)
            } else {
                self.uncore_values(&metrics)?
            };
            self.pmu_samples(family, &values, &names)?;
        }
        Ok(())
    }

    /// `TARGET_INFO_PERF_METRIC`: names and units by raw event id (its rows attached).
    fn perf_metrics(&mut self) -> Result<HashMap<i64, Named>, NsysError> {
        let mut out = HashMap::new();
        if !self.db.has_column(PERF_METRICS, "name") {
            return Ok(out);
        }
        let unit = self.db.col_or_null(PERF_METRICS, "unit");
        let sql = format!("SELECT rowid, id, name, {unit} FROM {PERF_METRICS}");
        self.scan(PERF_METRICS, &sql, |_, row| {
            let t = |i| row.get_ref(i).ok().and_then(text_of);
            if let (Some(id), Some(name)) = (row.get_ref(1).ok().and_then(int_of), t(2)) {
                out.entry(id).or_insert((name, t(3).unwrap_or_default()));
            }
            Ok(())
        })?;
        self.attach_rest(PERF_METRICS);
        Ok(out)
    }

    /// The core requests' names by request id: `event_name`, else the raw event's metric
    /// name, else "PMU event 0x…" (the unit from the raw event's metric).
    fn core_names(
        &mut self,
        metrics: &HashMap<i64, Named>,
    ) -> Result<HashMap<i64, Named>, NsysError> {
        let mut out = HashMap::new();
        if !self.db.has_column(REQUESTS, "id") {
            return Ok(out);
        }
        let cols = self.db.cols_or_null(REQUESTS, &["eventid", "event_name"]);
        let sql = format!("SELECT rowid, id, {cols} FROM {REQUESTS}");
        self.scan(REQUESTS, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let Some(id) = v(1) else { return Ok(()) };
            let raw = v(2);
            let metric = raw.and_then(|r| metrics.get(&r));
            let name = row
                .get_ref(3)
                .ok()
                .and_then(text_of)
                .filter(|n| !n.trim().is_empty())
                .or_else(|| metric.map(|m| m.0.clone()))
                .unwrap_or_else(|| match raw {
                    Some(r) => format!("PMU event 0x{r:x}"),
                    None => format!("PMU request {id}"),
                });
            let unit = metric.map(|m| m.1.clone()).unwrap_or_default();
            out.entry(id).or_insert((name, unit));
            Ok(())
        })?;
        self.attach_rest(REQUESTS);
        Ok(out)
    }

    /// `PMU_EVENT_COUNTERS`: each counter id's `(request id, value)` pairs (rows attached).
    fn core_values(&mut self) -> Result<Values, NsysError> {
        let mut out = Values::new();
        if !["id", "idx", "value"]
            .iter()
            .all(|c| self.db.has_column(CORE_VALUES, c))
        {
            return Ok(out);
        }
        let sql = format!("SELECT rowid, id, idx, value FROM {CORE_VALUES}");
        self.scan(CORE_VALUES, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let id = integer(v(1), "id")?;
            let idx = integer(v(2), "idx")?;
            let value = number(row, 3)?;
            out.entry(id).or_default().push((idx, value));
            Ok(())
        })?;
        self.attach_rest(CORE_VALUES);
        Ok(out)
    }

    /// `UNCORE_PMU_EVENT_VALUES`: each counter id's `(raw id, value)` pairs, and the raw ids'
    /// names (a metric's, else "Uncore event 0x…"); rows attached.
    fn uncore_values(
        &mut self,
        metrics: &HashMap<i64, Named>,
    ) -> Result<(Values, HashMap<i64, Named>), NsysError> {
        let mut out = Values::new();
        let mut names = HashMap::new();
        if !["id", "value", "rawId"]
            .iter()
            .all(|c| self.db.has_column(UNCORE_VALUES, c))
        {
            return Ok((out, names));
        }
        let sql = format!("SELECT rowid, id, rawId, value FROM {UNCORE_VALUES}");
        self.scan(UNCORE_VALUES, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let id = integer(v(1), "id")?;
            let raw = integer(v(2), "rawId")?;
            let value = number(row, 3)?;
            out.entry(id).or_default().push((raw, value));
            names.entry(raw).or_insert_with(|| {
                metrics
                    .get(&raw)
                    .cloned()
                    .unwrap_or_else(|| (format!("Uncore event 0x{raw:x}"), String::new()))
            });
            Ok(())
        })?;
        self.attach_rest(UNCORE_VALUES);
        Ok((out, names))
    }

    /// The samples of `family`'s event table: each row's values onto their event's track.
    fn pmu_samples(
        &mut self,
        family: &Family,
        values: &Values,
        names: &HashMap<i64, Named>,
    ) -> Result<(), NsysError> {
        let table = family.events;
        let sql = format!(
            "SELECT rowid, start, {}, {} FROM {table} ORDER BY start",
            family.device_column, family.counter_column
        );
        let mut tracks: HashMap<(i64, i64), TrackId> = HashMap::new();
        let mut rows = 0u64;
        self.scan(table, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let time = integer(v(1), "start")?;
            let device = integer(v(2), family.device_column)?;
            let counter = integer(v(3), family.counter_column)?;
            for &(event, value) in values.get(&counter).map_or(&[][..], Vec::as_slice) {
                let track = match tracks.get(&(device, event)) {
                    Some(&t) => t,
                    None => {
                        let t = l.pmu_track(family, device, event, names.get(&event));
                        tracks.insert((device, event), t);
                        t
                    }
                };
                l.b.series(track, || None).push(time, value);
            }
            rows += 1;
            Ok(())
        })?;
        self.b.session.imports.events(table, rows);
        Ok(())
    }

    /// The counter track of `event` on `device` of `family`.
    fn pmu_track(
        &mut self,
        family: &Family,
        device: i64,
        event: i64,
        named: Option<&Named>,
    ) -> TrackId {
        let m = machine_track(&mut self.b, self.tracks.first_machine());
        let group = self.b.track(Some(m), TrackKind::Series, family.key, || {
            family.group.to_owned()
        });
        let d = self.b.track(
            Some(group),
            TrackKind::Series,
            device.cast_unsigned(),
            || format!("{} {device}", family.device),
        );
        let name = named.map_or_else(|| format!("Event {event}"), |(n, _)| n.clone());
        let track = self
            .b
            .track(Some(d), TrackKind::Series, event.cast_unsigned(), || name);
        let unit = named
            .map(|(_, u)| u.trim().to_owned())
            .filter(|u| !u.is_empty());
        self.b.series(track, || unit);
        self.b
            .session
            .series_sources
            .entry(track)
            .or_insert_with(|| family.events.to_owned());
        track
    }
}

/// Column `i` of `row` as a number (an integer or a real).
fn number(row: &super::Cells<'_>, i: usize) -> Result<f64, super::RowError> {
    match row.get_ref(i).ok() {
        Some(rusqlite::types::ValueRef::Integer(v)) => Ok(v as f64),
        Some(rusqlite::types::ValueRef::Real(v)) => Ok(v),
        _ => Err(super::RowError::NotInteger { column: "value" }),
    }
}
