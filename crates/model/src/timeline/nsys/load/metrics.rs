//! GPU metrics as counter tracks: `TARGET_INFO_GPU_METRICS` names the metrics of each event
//! type (`typeId`, `metricId` → `metricName`), `GPU_METRICS` holds their samples (`timestamp`,
//! `typeId`, `metricId`, `value`). Each metric is one counter track named exactly as the
//! export names it, under the GPU it was sampled on (the low byte of `typeId`, as NVIDIA's own
//! recipes read it, checked against the export's GPUs) → "GPU Metrics" → the group Nsight
//! Systems shows it in (clocks, GPU activity, warps, memory bandwidth, PCIe, NVLink). Samples
//! are held as a [`crate::timeline::CounterSeries`] (about 12 bytes a sample), with
//! the unit the metric's name implies ([`metric_unit`]). The same tracks take the samples
//! that 2022.2–2023.1 exports write as generic events ([`super::generic_events`]).

use std::collections::HashMap;

use super::tracks::{gpu_track, machine_track};
use super::{Loader, integer};
use crate::timeline::model::{TrackId, TrackKind};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, text_of};

/// The table naming the metrics.
pub(super) const METRIC_NAMES: &str = "TARGET_INFO_GPU_METRICS";
/// The table of samples.
pub(super) const METRICS: &str = "GPU_METRICS";

/// Series key of the "GPU Metrics" track under a GPU.
const METRICS_KEY: u64 = super::SERIES_COUNTERS + (0xFF << 24);

/// The metrics of the export: `(typeId, metricId)` → name, and each type's metrics in
/// `metricId` order (the order Nsight Systems lists them in).
#[derive(Default)]
pub(super) struct MetricNames {
    names: HashMap<(i64, i64), String>,
    /// The ordinal of each `(typeId, metricId)` in the table's order (the track keys).
    ordinal: HashMap<(i64, i64), u64>,
    /// `typeId` → its metrics' names in order.
    pub by_type: HashMap<i64, Vec<String>>,
}

impl MetricNames {
    /// The name of metric `metric` of type `type_id`.
    pub fn name(&self, type_id: i64, metric: i64) -> Option<&str> {
        self.names.get(&(type_id, metric)).map(String::as_str)
    }

    /// The ordinal of metric `metric` of type `type_id` in the table's order.
    pub fn ordinal(&self, type_id: i64, metric: i64) -> Option<u64> {
        self.ordinal.get(&(type_id, metric)).copied()
    }

    /// The `metricId` of the metric `name` of type `type_id`.
    pub fn id_of(&self, type_id: i64, name: &str) -> Option<i64> {
        self.names
            .iter()
            .find(|((t, _), n)| *t == type_id && n.as_str() == name)
            .map(|((_, m), _)| *m)
    }
}

/// The group Nsight Systems shows a metric in, and its order under the GPU.
pub fn metric_group(name: &str) -> (&'static str, u64) {
    let has = |w: &str| name.to_ascii_lowercase().contains(&w.to_ascii_lowercase());
    if has("clock") || has("frequency") {
        ("Clocks", 0)
    } else if has("pcie") {
        ("PCIe", 4)
    } else if has("nvlink") {
        ("NVLink", 5)
    } else if has("warp") {
        ("Warps", 2)
    } else if has("dram") || has("bandwidth") || has("memory") || has("throughput") {
        ("Memory Bandwidth", 3)
    } else {
        ("GPU Activity", 1)
    }
}

/// The unit a metric's name implies: its bracketed suffix ("[Throughput %]" → "%", "[MHz]",
/// "[Avg Warps per Cycle]" → "warps/cycle", "[Requests]" → "requests"), else its words (a
/// clock frequency in MHz, a rate of bytes in B/s, activity, throughput, bandwidth and warps
/// in flight as % of peak). `None` for a count without unit.
pub fn metric_unit(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if let Some(open) = name.rfind('[')
        && let Some(inner) = name[open + 1..].strip_suffix(']')
    {
        let inner = inner.trim();
        let l = inner.to_ascii_lowercase();
        return if l.contains('%') {
            Some("%".into())
        } else if l == "avg" && lower.contains("warp") {
            Some("warps".into())
        } else if l.contains("warps per cycle") {
            Some("warps/cycle".into())
        } else if l.is_empty() || l == "avg" {
            None
        } else if inner.ends_with("Hz") || inner.contains("/s") {
            Some(inner.to_owned())
        } else {
            Some(l)
        };
    }
    let has = |w: &str| lower.contains(w);
    if has("clock") || has("frequency") {
        Some("MHz".into())
    } else if has("bytes") {
        Some("B/s".into())
    } else if [
        "throughput",
        "bandwidth",
        "active",
        "issue",
        "in flight",
        "warps",
        "utilization",
    ]
    .iter()
    .any(|w| has(w))
    {
        Some("%".into())
    } else {
        None
    }
}

impl Loader<'_, '_> {
    /// The metric names of `TARGET_INFO_GPU_METRICS` (its rows are then attached: they name
    /// tracks).
    pub(super) fn metric_names(&mut self) -> Result<MetricNames, NsysError> {
        let mut out = MetricNames::default();
        let t = METRIC_NAMES;
        if !(self.db.has_column(t, "typeId")
            && self.db.has_column(t, "metricId")
            && self.db.has_column(t, "metricName"))
        {
            return Ok(out);
        }
        let sql = format!(
            "SELECT rowid, typeId, metricId, metricName FROM {t} ORDER BY typeId, metricId"
        );
        self.scan(t, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let (Some(type_id), Some(metric)) = (v(1), v(2)) else {
                return Ok(());
            };
            let name = row
                .get_ref(3)
                .ok()
                .and_then(text_of)
                .unwrap_or_else(|| format!("Metric {metric}"));
            let n = out.ordinal.len() as u64;
            out.ordinal.entry((type_id, metric)).or_insert(n);
            out.by_type.entry(type_id).or_default().push(name.clone());
            out.names.insert((type_id, metric), name);
            Ok(())
        })?;
        self.attach_rest(t);
        Ok(out)
    }

    /// The device a metric type samples: the low byte of `typeId` when the export knows that
    /// GPU (or knows none), else the export's only GPU.
    fn metric_device(&self, type_id: i64) -> i64 {
        let low = type_id & 0xFF;
        let gpus = &self.b.session.gpus;
        if gpus.is_empty() || gpus.iter().any(|g| i64::from(g.id) == low) || gpus.len() > 1 {
            low
        } else {
            gpus.first().map_or(low, |g| i64::from(g.id))
        }
    }

    /// The counter track of metric `name` (ordinal `ordinal` among the export's metrics) of
    /// type `type_id`: under its GPU (the GPU track the export's other tables made, else one
    /// on the first machine), "GPU Metrics", its group.
    pub(super) fn metric_track(&mut self, type_id: i64, ordinal: u64, name: &str) -> TrackId {
        let device = self.metric_device(type_id);
        let gpu = match self.b.find_track(TrackKind::Gpu, device as u64) {
            Some(g) => g,
            None => {
                let m = machine_track(&mut self.b, self.tracks.first_machine());
                gpu_track(&mut self.b, &self.names, m, device)
            }
        };
        let metrics = self.b.track(Some(gpu), TrackKind::Series, METRICS_KEY, || {
            "GPU Metrics".to_owned()
        });
        let (group, order) = metric_group(name);
        let group = self
            .b
            .track(Some(metrics), TrackKind::Series, order, || group.to_owned());
        let track = self
            .b
            .track(Some(group), TrackKind::Series, ordinal, || name.to_owned());
        self.b.series(track, || metric_unit(name));
        self.b
            .session
            .series_sources
            .entry(track)
            .or_insert_with(|| METRICS.to_owned());
        track
    }

    /// Every `GPU_METRICS` row as a sample of its metric's track.
    pub(super) fn gpu_metrics(&mut self, names: &MetricNames) -> Result<(), NsysError> {
        let t = METRICS;
        if !["timestamp", "typeId", "metricId", "value"]
            .iter()
            .all(|c| self.db.has_column(t, c))
        {
            return Ok(());
        }
        let sql = format!("SELECT rowid, timestamp, typeId, metricId, value FROM {t}");
        let mut tracks: HashMap<(i64, i64), TrackId> = HashMap::new();
        let before = self.b.sample_count();
        self.scan(t, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let time = integer(v(1), "timestamp")?;
            let type_id = integer(v(2), "typeId")?;
            let metric = integer(v(3), "metricId")?;
            let value = match row.get_ref(4).ok() {
                Some(rusqlite::types::ValueRef::Integer(i)) => i as f64,
                Some(rusqlite::types::ValueRef::Real(r)) => r,
                _ => return Err(super::RowError::NotInteger { column: "value" }),
            };
            let track = match tracks.get(&(type_id, metric)) {
                Some(&track) => track,
                None => {
                    let name = names.name(type_id, metric).map_or_else(
                        || format!("Metric {metric} of type {type_id}"),
                        str::to_owned,
                    );
                    let ordinal = names
                        .ordinal
                        .get(&(type_id, metric))
                        .copied()
                        .unwrap_or((1 << 20) + ((metric as u64) & 0xFFFF));
                    let track = l.metric_track(type_id, ordinal, &name);
                    tracks.insert((type_id, metric), track);
                    track
                }
            };
            l.b.series(track, || None).push(time, value);
            Ok(())
        })?;
        let n = self.b.sample_count().saturating_sub(before) as u64;
        self.b.session.imports.events(t, n);
        let unnamed = tracks
            .keys()
            .filter(|(ty, m)| names.name(*ty, *m).is_none())
            .count();
        if unnamed > 0 {
            self.b.warn(
                crate::problem::Location::Part(t.into()),
                format!("{unnamed} metrics are not named in {METRIC_NAMES}: shown by their ids"),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{metric_group, metric_unit};

    #[test]
    fn units_from_names() {
        assert_eq!(
            metric_unit("SMs Active [Throughput %]").as_deref(),
            Some("%")
        );
        assert_eq!(
            metric_unit("GPC Clock Frequency [MHz]").as_deref(),
            Some("MHz")
        );
        assert_eq!(metric_unit("GPC Clock Frequency").as_deref(), Some("MHz"));
        assert_eq!(metric_unit("SM Active").as_deref(), Some("%"));
        assert_eq!(metric_unit("DRAM Read Bandwidth").as_deref(), Some("%"));
        assert_eq!(
            metric_unit("Compute Warps in Flight [Avg Warps per Cycle]").as_deref(),
            Some("warps/cycle")
        );
        assert_eq!(
            metric_unit("Compute Warps in Flight [Avg]").as_deref(),
            Some("warps")
        );
        assert_eq!(
            metric_unit("PCIe Read Requests to BAR1 [Requests]").as_deref(),
            Some("requests")
        );
        assert_eq!(metric_unit("Draw Started"), None);
    }

    #[test]
    fn groups_from_names() {
        assert_eq!(metric_group("SYS Clock Frequency").0, "Clocks");
        assert_eq!(metric_group("Tensor Active").0, "GPU Activity");
        assert_eq!(metric_group("PCIe RX Throughput").0, "PCIe");
        assert_eq!(metric_group("NVLink TX Requests User Data").0, "NVLink");
        assert_eq!(metric_group("Unallocated Warps in Active SMs").0, "Warps");
        assert_eq!(metric_group("DRAM Write Bandwidth").0, "Memory Bandwidth");
    }
}
