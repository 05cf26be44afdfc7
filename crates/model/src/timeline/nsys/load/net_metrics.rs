//! Network counters as counter tracks: `NET_NIC_METRIC` (a NIC's counters) and
//! `NET_IB_SWITCH_METRIC` (an InfiniBand switch's) hold samples (`start`, `end`, `globalId`,
//! `metricsListId`, `metricsIdx`, `value`) of the metrics `TARGET_INFO_NETWORK_METRICS` names
//! (`name`, `unit`). Each metric of each device is one counter track named as the export names
//! it, under the first machine → "Network metrics" → the device: a NIC by its name
//! (`NIC_ID_MAP` globalId → nicId, `TARGET_INFO_NIC_INFO` nicId → name), a switch by its
//! globalId (its GUID) in hex. A sample's value holds from its `start`.

use std::collections::HashMap;

use super::tracks::machine_track;
use super::{Loader, integer};
use crate::timeline::model::{TrackId, TrackKind};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, text_of};

/// The sample tables and how their devices are called.
pub(super) const NET_TABLES: &[(&str, &str)] = &[
    ("NET_NIC_METRIC", "NIC"),
    ("NET_IB_SWITCH_METRIC", "IB switch"),
];
/// The table naming the metrics.
const NAMES: &str = "TARGET_INFO_NETWORK_METRICS";
/// NIC ids by globalId, and NIC names by id.
const NIC_MAP: &str = "NIC_ID_MAP";
const NIC_INFO: &str = "TARGET_INFO_NIC_INFO";

/// Series key of the "Network metrics" track under a machine.
const NETWORK_KEY: u64 = super::SERIES_COUNTERS + (0xFE << 24);

/// A metric's name and unit, by `(metricsListId, metricsIdx)`.
type MetricNames = HashMap<(i64, i64), (String, String)>;

impl Loader<'_, '_> {
    /// Every network counter table of the export.
    pub(super) fn network_metrics(&mut self) -> Result<(), NsysError> {
        let tables: Vec<(&str, &str)> = NET_TABLES
            .iter()
            .copied()
            .filter(|(t, _)| {
                ["start", "globalId", "metricsListId", "metricsIdx", "value"]
                    .iter()
                    .all(|c| self.db.has_column(t, c))
                    && self.db.has_rows(t).unwrap_or(false)
            })
            .collect();
        if tables.is_empty() {
            return Ok(());
        }
        let names = self.network_metric_names()?;
        let nics = self.nic_names()?;
        for (table, device) in tables {
            self.network_table(table, device, &names, &nics)?;
        }
        Ok(())
    }

    /// The metrics' names and units (the table's rows attached: they name samples).
    fn network_metric_names(&mut self) -> Result<MetricNames, NsysError> {
        let mut out = MetricNames::new();
        if !self.db.has_column(NAMES, "name") {
            return Ok(out);
        }
        let unit = self.db.col_or_null(NAMES, "unit");
        let sql = format!("SELECT rowid, metricsListId, metricsIdx, name, {unit} FROM {NAMES}");
        self.scan(NAMES, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let t = |i| row.get_ref(i).ok().and_then(text_of);
            if let (Some(list), Some(idx), Some(name)) = (v(1), v(2), t(3)) {
                out.entry((list, idx))
                    .or_insert((name, t(4).unwrap_or_default()));
            }
            Ok(())
        })?;
        self.attach_rest(NAMES);
        Ok(out)
    }

    /// The NICs' names by globalId.
    fn nic_names(&mut self) -> Result<HashMap<i64, String>, NsysError> {
        let mut out = HashMap::new();
        if !self.db.has_column(NIC_MAP, "nicId") || !self.db.has_column(NIC_INFO, "name") {
            return Ok(out);
        }
        let by_id = self.db.pairs(
            &format!("SELECT nicId, name FROM {NIC_INFO}"),
            int_of,
            text_of,
        );
        let sql = format!("SELECT rowid, globalId, nicId FROM {NIC_MAP}");
        self.scan(NIC_MAP, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            if let (Some(global), Some(name)) = (v(1), v(2).and_then(|id| by_id.get(&id))) {
                out.entry(global).or_insert_with(|| name.clone());
            }
            Ok(())
        })?;
        self.attach_rest(NIC_MAP);
        Ok(out)
    }

    /// The samples of one table onto their metric's track.
    fn network_table(
        &mut self,
        table: &str,
        device: &str,
        names: &MetricNames,
        nics: &HashMap<i64, String>,
    ) -> Result<(), NsysError> {
        let sql =
            format!("SELECT rowid, start, globalId, metricsListId, metricsIdx, value FROM {table}");
        let mut tracks: HashMap<(i64, i64, i64), TrackId> = HashMap::new();
        let before = self.b.sample_count();
        self.scan(table, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let time = integer(v(1), "start")?;
            let global = integer(v(2), "globalId")?;
            let list = integer(v(3), "metricsListId")?;
            let idx = integer(v(4), "metricsIdx")?;
            let value = match row.get_ref(5).ok() {
                Some(rusqlite::types::ValueRef::Integer(i)) => i as f64,
                Some(rusqlite::types::ValueRef::Real(r)) => r,
                _ => return Err(super::RowError::NotInteger { column: "value" }),
            };
            let key = (global, list, idx);
            let track = match tracks.get(&key) {
                Some(&t) => t,
                None => {
                    let device = match nics.get(&global) {
                        Some(name) => format!("{device} {name}"),
                        None => format!("{device} 0x{global:x}"),
                    };
                    let t = l.network_track(table, &device, key, names.get(&(list, idx)));
                    tracks.insert(key, t);
                    t
                }
            };
            l.b.series(track, || None).push(time, value);
            Ok(())
        })?;
        let n = self.b.sample_count().saturating_sub(before) as u64;
        self.b.session.imports.events(table, n);
        Ok(())
    }

    /// The counter track of metric `(list, idx)` of device `device` (keyed by its globalId).
    fn network_track(
        &mut self,
        table: &str,
        device: &str,
        (global, list, idx): (i64, i64, i64),
        metric: Option<&(String, String)>,
    ) -> TrackId {
        let m = machine_track(&mut self.b, self.tracks.first_machine());
        let group = self.b.track(Some(m), TrackKind::Series, NETWORK_KEY, || {
            "Network metrics".to_owned()
        });
        let d = self.b.track(
            Some(group),
            TrackKind::Series,
            global.cast_unsigned(),
            || device.to_owned(),
        );
        let name = metric.map_or_else(
            || format!("Metric {idx} of list {list}"),
            |(name, _)| name.clone(),
        );
        let key = (list.cast_unsigned() << 32) | (idx.cast_unsigned() & 0xFFFF_FFFF);
        let track = self.b.track(Some(d), TrackKind::Series, key, || name);
        let unit = metric
            .map(|(_, unit)| unit.trim().to_owned())
            .filter(|u| !u.is_empty());
        self.b.series(track, || unit);
        self.b
            .session
            .series_sources
            .entry(track)
            .or_insert_with(|| table.to_owned());
        track
    }
}
