//! The metric heat maps (`gpu_metric_util_map`, `nic_metric_map`): sampled metrics per bin of
//! the files' common time axis (the time maps' axis: [`super::heatmap`]), per GPU or NIC, as
//! one `analysis.parquet`. Learnt from NVIDIA's outputs (Nsight Systems 2023.4) on generated
//! exports (`fixtures/nsys/recipes/maps/`, notes/nsys-recipes.md):
//!
//! - `gpu_metric_util_map`: the mean of the `SM Active`, `SM Issue` and `Tensor Active` samples
//!   of each GPU (the low byte of the metrics' `typeId`) per bin, rounded to one decimal. A
//!   sample at time t on the axis belongs to the bin `(start, end]` holding it (one at 0 or
//!   after the axis's end to none); only bins holding samples have a row. NVIDIA's recipe reads
//!   the samples from `GENERIC_EVENTS` (`rawTimestamp`, the metrics by name in `data`) and stops
//!   when a row lacks one of the three; Sightline also reads `GPU_METRICS` (named by
//!   `TARGET_INFO_GPU_METRICS`), takes a name with a unit (`SM Active [Throughput %]`) as the
//!   metric, and leaves other rows out.
//! - `nic_metric_map`: per NIC (`NET_NIC_METRIC.globalId`, its `NIC ID` from `NIC_ID_MAP`), each
//!   sample `[start, end)` adds value × its time in the bin; a bin's value is that sum over the
//!   part of the bin inside the file × 100 (the time maps' share, with the same loss of a
//!   sample starting on a bin's first nanosecond), one decimal; bins outside the file are
//!   null. NVIDIA's columns are fed crosswise: `Bytes Recv` from `IB: Bytes sent`, `Bytes Sent`
//!   from `IB: Bytes received`, `Congestion` from `IB: Send waits` (metrics matched by
//!   `metricsIdx` only). Samples of a globalId without a NIC are left out, and make `NIC ID` a
//!   float column, as NVIDIA writes it.
//! - `--start`/`--end` keep the samples overlapping the window on the file's own clock
//!   (NVIDIA's `gpu_metric_util_map` stops on any `--start`).

use std::collections::{BTreeMap, HashMap};

use super::heatmap::{Axis, MapOf, Span, analysis_duration, axes, map, round1, session_start};
use super::nvtx::Window;
use super::table::{Cells, PandasIndex, Table, TableColumn};
use super::{Recipe, RecipeOptions};
use crate::timeline::nsys::db::{int_of, text_of};
use crate::timeline::nsys::{ExportDb, NsysError};

/// The GPU metrics `gpu_metric_util_map` shows, as its columns.
pub const GPU_COLUMNS: [&str; 3] = ["SM Active", "SM Issue", "Tensor Active"];
/// The columns of `nic_metric_map`.
pub const NIC_COLUMNS: [&str; 3] = ["Bytes Recv", "Bytes Sent", "Congestion"];
/// The NIC metrics feeding [`NIC_COLUMNS`], in order (as NVIDIA's recipe pairs them).
pub const NIC_METRICS: [&str; 3] = ["IB: Bytes sent", "IB: Bytes received", "IB: Send waits"];

/// `gpu_metric_util_map`.
pub const GPU_METRIC_UTIL_MAP: Recipe = map(
    "gpu_metric_util_map",
    "Heat map: the mean SM Active, SM Issue and Tensor Active GPU metrics per bin of time, per GPU",
    MapOf::GpuMetric,
    false,
);

/// `nic_metric_map`.
pub const NIC_METRIC_MAP: Recipe = map(
    "nic_metric_map",
    "Heat map: the NIC metrics (bytes received and sent, congestion) per bin of time, per NIC",
    MapOf::Nic,
    false,
);

/// The tables holding the GPU metrics.
const GPU_METRICS: &str = "GPU_METRICS";
const GPU_METRIC_NAMES: &str = "TARGET_INFO_GPU_METRICS";
const GENERIC_EVENTS: &str = "GENERIC_EVENTS";
/// The tables holding the NIC metrics.
const NIC_SAMPLES: &str = "NET_NIC_METRIC";
const NIC_METRIC_NAMES: &str = "TARGET_INFO_NETWORK_METRICS";
const NIC_IDS: &str = "NIC_ID_MAP";

/// One GPU's or NIC's samples.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Device {
    /// The GPU, or the NIC's globalId.
    pub id: i64,
    /// The NIC's id (`NIC_ID_MAP.nicId`).
    pub nic: Option<i64>,
    /// Per metric (column), its samples `([start, end), value)` on the file's clock (a GPU
    /// metric's sample is an instant: `start == end`).
    pub samples: Vec<Vec<(Span, f64)>>,
}

/// What one file gives a metric map.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct MetricPart {
    /// Its session start (UTC ns), when the export has one.
    pub session: Option<i64>,
    /// Its length (ns): `ANALYSIS_DETAILS.duration`, else the latest sample.
    pub duration: i64,
    /// Its devices, by GPU or globalId.
    pub devices: Vec<Device>,
    /// Per metric (column), whether the export names it (NIC metrics; else null values).
    pub named: Vec<bool>,
    /// Whether samples of a globalId without a NIC were left out.
    pub unmapped: bool,
}

/// Why a file gives nothing to map `of`.
pub(super) fn nothing(of: MapOf) -> &'static str {
    match of {
        MapOf::Nic => "no NIC metrics (NET_NIC_METRIC with NIC_ID_MAP)",
        _ => "no SM Active, SM Issue or Tensor Active GPU metrics",
    }
}

/// One file's part of map `of`; `None` when it has no samples to show.
pub(super) fn part(
    of: MapOf,
    db: &ExportDb,
    options: &RecipeOptions,
) -> Result<Option<MetricPart>, NsysError> {
    let window = Window {
        start: options.start,
        end: options.end,
    };
    let (devices, named, unmapped) = if of == MapOf::Nic {
        read_nics(db, window)?
    } else {
        let mut devices = read_gpu_metrics(db, window)?;
        if devices.is_empty() {
            devices = read_generic_metrics(db, window)?;
        }
        (devices, vec![true; GPU_COLUMNS.len()], false)
    };
    if devices.is_empty() {
        return Ok(None);
    }
    let latest = devices
        .iter()
        .flat_map(|d| d.samples.iter().flatten())
        .map(|((_, e), _)| *e)
        .max()
        .unwrap_or(0);
    Ok(Some(MetricPart {
        session: session_start(db)?,
        duration: analysis_duration(db)?.unwrap_or(latest),
        devices,
        named,
        unmapped,
    }))
}

/// The column of GPU metric `name` (`SM Active`, or with a unit: `SM Active [Throughput %]`).
fn gpu_column(name: &str) -> Option<usize> {
    let name = name.trim();
    GPU_COLUMNS.iter().position(|m| {
        name == *m
            || name
                .strip_prefix(m)
                .is_some_and(|rest| rest.trim_start().starts_with('['))
    })
}

/// Devices from `(device, column, time, value)` samples kept by `window`, by device.
fn devices_of(samples: Vec<(i64, usize, i64, f64)>, window: Window, width: usize) -> Vec<Device> {
    let mut by_id: BTreeMap<i64, Vec<Vec<(Span, f64)>>> = BTreeMap::new();
    for (id, column, t, v) in samples {
        if window.keeps(t, Some(t)) {
            by_id.entry(id).or_insert_with(|| vec![Vec::new(); width])[column].push(((t, t), v));
        }
    }
    by_id
        .into_iter()
        .map(|(id, samples)| Device {
            id,
            nic: None,
            samples,
        })
        .collect()
}

/// The samples of `GPU_METRICS` (the metrics named by `TARGET_INFO_GPU_METRICS`), by GPU.
fn read_gpu_metrics(db: &ExportDb, window: Window) -> Result<Vec<Device>, NsysError> {
    let ok = |t: &str, cols: &[&str]| cols.iter().all(|c| db.has_column(t, c));
    if !ok(GPU_METRICS, &["timestamp", "typeId", "metricId", "value"])
        || !ok(GPU_METRIC_NAMES, &["typeId", "metricId", "metricName"])
    {
        return Ok(Vec::new());
    }
    let mut columns: HashMap<(i64, i64), usize> = HashMap::new();
    let sql = format!("SELECT rowid, typeId, metricId, metricName FROM {GPU_METRIC_NAMES}");
    db.scan_around_damage(GPU_METRIC_NAMES, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let name = row.get_ref(3).ok().and_then(text_of);
        if let (Some(ty), Some(id), Some(c)) = (v(1), v(2), name.as_deref().and_then(gpu_column)) {
            columns.insert((ty, id), c);
        }
        Ok(())
    })?;
    let mut samples = Vec::new();
    if columns.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT rowid, timestamp, typeId, metricId, value FROM {GPU_METRICS}");
    db.scan_around_damage(GPU_METRICS, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let value = row
            .get_ref(4)
            .ok()
            .and_then(crate::timeline::nsys::db::float_of);
        if let (Some(t), Some(ty), Some(id), Some(value)) = (v(1), v(2), v(3), value)
            && let Some(&c) = columns.get(&(ty, id))
        {
            samples.push((ty & 0xFF, c, t, value));
        }
        Ok(())
    })?;
    Ok(devices_of(samples, window, GPU_COLUMNS.len()))
}

/// The samples of `GENERIC_EVENTS` rows naming the metrics in `data` (older exports), by GPU;
/// a row's time is `timestamp`, else `rawTimestamp`.
fn read_generic_metrics(db: &ExportDb, window: Window) -> Result<Vec<Device>, NsysError> {
    if !db.has_column(GENERIC_EVENTS, "typeId") || !db.has_column(GENERIC_EVENTS, "data") {
        return Ok(Vec::new());
    }
    let time = match (
        db.has_column(GENERIC_EVENTS, "timestamp"),
        db.has_column(GENERIC_EVENTS, "rawTimestamp"),
    ) {
        (true, true) => "COALESCE(timestamp, rawTimestamp)",
        (true, false) => "timestamp",
        (false, true) => "rawTimestamp",
        (false, false) => return Ok(Vec::new()),
    };
    let sql = format!(
        "SELECT rowid, {time}, typeId, data FROM {GENERIC_EVENTS} \
         WHERE instr(data, 'Active') > 0 OR instr(data, 'SM Issue') > 0"
    );
    let mut samples = Vec::new();
    db.scan_around_damage(GENERIC_EVENTS, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let data = row.get_ref(3).ok().and_then(text_of);
        let (Some(t), Some(ty), Some(data)) = (v(1), v(2), data) else {
            return Ok(());
        };
        let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(&data) else {
            return Ok(());
        };
        for (name, value) in &fields {
            let value = match value {
                serde_json::Value::String(s) => s.trim().parse::<f64>().ok(),
                serde_json::Value::Number(n) => n.as_f64(),
                _ => None,
            };
            if let (Some(c), Some(value)) = (gpu_column(name), value) {
                samples.push((ty & 0xFF, c, t, value));
            }
        }
        Ok(())
    })?;
    Ok(devices_of(samples, window, GPU_COLUMNS.len()))
}

/// The NICs' samples of [`NIC_METRICS`] kept by `window`, by globalId; whether each metric is
/// named; whether samples of a globalId without a NIC were left out.
fn read_nics(db: &ExportDb, window: Window) -> Result<(Vec<Device>, Vec<bool>, bool), NsysError> {
    let sample_cols = ["start", "end", "globalId", "metricsIdx", "value"];
    if !sample_cols.iter().all(|c| db.has_column(NIC_SAMPLES, c))
        || !db.has_column(NIC_METRIC_NAMES, "name")
        || !db.has_column(NIC_METRIC_NAMES, "metricsIdx")
        || !db.has_column(NIC_IDS, "nicId")
        || !db.has_column(NIC_IDS, "globalId")
    {
        return Ok((Vec::new(), vec![false; NIC_COLUMNS.len()], false));
    }
    // Each metric's index: the first row naming it.
    let mut index: Vec<Option<i64>> = vec![None; NIC_METRICS.len()];
    let sql = format!("SELECT rowid, metricsIdx, name FROM {NIC_METRIC_NAMES} ORDER BY rowid");
    db.scan_around_damage(NIC_METRIC_NAMES, &sql, |row| {
        let idx = row.get_ref(1).ok().and_then(int_of);
        let name = row.get_ref(2).ok().and_then(text_of);
        if let (Some(idx), Some(name)) = (idx, name)
            && let Some(c) = NIC_METRICS.iter().position(|m| *m == name.trim())
        {
            index[c].get_or_insert(idx);
        }
        Ok(())
    })?;
    let mut nics: HashMap<i64, i64> = HashMap::new();
    let sql = format!("SELECT rowid, globalId, nicId FROM {NIC_IDS} ORDER BY rowid");
    db.scan_around_damage(NIC_IDS, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        if let (Some(global), Some(nic)) = (v(1), v(2)) {
            nics.entry(global).or_insert(nic);
        }
        Ok(())
    })?;
    let mut by_id: BTreeMap<i64, Vec<Vec<(Span, f64)>>> = BTreeMap::new();
    let mut unmapped = false;
    let sql = format!("SELECT rowid, start, end, globalId, metricsIdx, value FROM {NIC_SAMPLES}");
    db.scan_around_damage(NIC_SAMPLES, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let value = row
            .get_ref(5)
            .ok()
            .and_then(crate::timeline::nsys::db::float_of);
        let (Some(s), Some(e), Some(global), Some(idx)) = (v(1), v(2), v(3), v(4)) else {
            return Ok(());
        };
        if !window.keeps(s, Some(e)) {
            return Ok(());
        }
        if !nics.contains_key(&global) {
            unmapped = true;
            return Ok(());
        }
        let series = by_id
            .entry(global)
            .or_insert_with(|| vec![Vec::new(); NIC_COLUMNS.len()]);
        for (c, _) in index.iter().enumerate().filter(|(_, i)| **i == Some(idx)) {
            series[c].push(((s, e), value.unwrap_or(0.0)));
        }
        Ok(())
    })?;
    let devices = by_id
        .into_iter()
        .map(|(id, samples)| Device {
            id,
            nic: nics.get(&id).copied(),
            samples,
        })
        .collect();
    Ok((
        devices,
        index.iter().map(Option::is_some).collect(),
        unmapped,
    ))
}

/// The rows of one device: `(bin, values)`.
type DeviceRows = Vec<(i64, Vec<Option<f64>>)>;

/// A GPU's rows: the mean of each metric's samples per bin `(start, end]`, bins without
/// samples left out.
fn gpu_rows(device: &Device, axis: &Axis) -> DeviceRows {
    let mut bins: BTreeMap<i64, Vec<(f64, u32)>> = BTreeMap::new();
    let width = device.samples.len();
    for (c, samples) in device.samples.iter().enumerate() {
        for &((t, _), v) in samples {
            let t = t.saturating_add(axis.offset);
            if t <= 0 || t > axis.size.saturating_mul(axis.bins) {
                continue;
            }
            let sums = bins
                .entry((t - 1).div_euclid(axis.size))
                .or_insert_with(|| vec![(0.0, 0); width]);
            sums[c].0 += v;
            sums[c].1 += 1;
        }
    }
    bins.into_iter()
        .map(|(bin, sums)| {
            let means = sums
                .iter()
                .map(|&(sum, n)| (n > 0).then(|| round1(sum / f64::from(n))))
                .collect();
            (bin, means)
        })
        .collect()
}

/// A NIC's rows: every bin, each metric's value × time in the bin over the bin's part inside
/// the file × 100 (`None` outside the file, or for a metric the export does not name).
fn nic_rows(device: &Device, axis: &Axis, named: &[bool]) -> DeviceRows {
    let n = usize::try_from(axis.bins).unwrap_or(0);
    let weighted: Vec<Vec<f64>> = device
        .samples
        .iter()
        .map(|samples| {
            let mut sums = vec![0.0; n];
            for &(span, v) in samples {
                axis.split(span, |b, t| sums[b] += v * t as f64);
            }
            sums
        })
        .collect();
    (0..axis.bins)
        .map(|bin| {
            let values = weighted
                .iter()
                .zip(named)
                .map(|(sums, &named)| {
                    let sum = usize::try_from(bin).ok().and_then(|b| sums.get(b));
                    named
                        .then(|| axis.share(bin, sum.copied().unwrap_or(0.0)))
                        .flatten()
                })
                .collect();
            (bin, values)
        })
        .collect()
}

/// The `analysis` table of map `of` over the files' parts (files in order).
pub(super) fn tables(
    of: MapOf,
    parts: &[(&String, &MetricPart)],
    options: &RecipeOptions,
) -> Vec<Table> {
    let clocks: Vec<(Option<i64>, i64)> =
        parts.iter().map(|(_, p)| (p.session, p.duration)).collect();
    let axes = axes(&clocks, options.bins);
    let columns: &[&str] = if of == MapOf::Nic {
        &NIC_COLUMNS
    } else {
        &GPU_COLUMNS
    };
    let mut duration = Vec::new();
    let mut values: Vec<Vec<Option<f64>>> = vec![Vec::new(); columns.len()];
    let (mut ids, mut nics, mut files, mut lengths) = (Vec::new(), Vec::new(), Vec::new(), vec![]);
    for ((stem, part), axis) in parts.iter().zip(&axes) {
        let before = duration.len();
        for device in &part.devices {
            let rows = if of == MapOf::Nic {
                nic_rows(device, axis, &part.named)
            } else {
                gpu_rows(device, axis)
            };
            for (bin, row) in rows {
                duration.push(bin * axis.size);
                for (column, v) in values.iter_mut().zip(row) {
                    column.push(v);
                }
                ids.push(device.id);
                nics.push(device.nic.unwrap_or(0));
                files.push((*stem).clone());
            }
        }
        lengths.push(duration.len() - before);
    }
    let mut out = vec![TableColumn::ints("Duration", duration)];
    for (name, cells) in columns.iter().zip(values) {
        out.push(TableColumn {
            name: (*name).to_owned(),
            cells: Cells::Float(cells),
        });
    }
    if of == MapOf::Nic {
        out.push(TableColumn::ints("GlobalId", ids));
        out.push(if parts.iter().any(|(_, p)| p.unmapped) {
            TableColumn {
                name: "NIC ID".to_owned(),
                cells: Cells::Float(nics.into_iter().map(|n| Some(n as f64)).collect()),
            }
        } else {
            TableColumn::ints("NIC ID", nics)
        });
    } else {
        out.push(TableColumn::ints("GPU", ids));
    }
    out.push(TableColumn::texts("File", files));
    vec![Table {
        stem: "analysis",
        columns: out,
        index: PandasIndex::of_frames(&lengths),
        csv: false,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(size: i64, bins: i64, offset: i64, end: i64) -> Axis {
        Axis {
            size,
            bins,
            offset,
            end,
        }
    }

    fn gpu(samples: &[(i64, f64)]) -> Device {
        Device {
            id: 0,
            nic: None,
            samples: vec![samples.iter().map(|&(t, v)| ((t, t), v)).collect()],
        }
    }

    #[test]
    fn gpu_samples_fall_in_bins_closed_on_the_right_and_are_averaged() {
        let a = axis(100, 10, 0, 1000);
        let d = gpu(&[
            (0, 99.0),
            (30, 20.0),
            (100, 41.0),
            (250, 1.0),
            (260, 2.0),
            (1001, 5.0),
        ]);
        assert_eq!(
            gpu_rows(&d, &a),
            [(0, vec![Some(30.5)]), (2, vec![Some(1.5)])]
        );
        // A file starting 250 ns later: its sample at 0 is at 250 on the axis.
        let late = axis(100, 10, 250, 770);
        assert_eq!(gpu_rows(&gpu(&[(0, 3.0)]), &late), [(2, vec![Some(3.0)])]);
    }

    #[test]
    fn nic_samples_weigh_their_value_by_their_time_in_each_bin() {
        let a = axis(100, 4, 0, 400);
        let d = Device {
            id: 1,
            nic: Some(1),
            samples: vec![vec![((150, 350), 1000.0), ((10, 13), 1.0)]],
        };
        let rows = nic_rows(&d, &a, &[true]);
        let got: Vec<Option<f64>> = rows.iter().map(|r| r.1[0]).collect();
        assert_eq!(
            got,
            [Some(3.0), Some(50_000.0), Some(100_000.0), Some(50_000.0)]
        );
        let unnamed = nic_rows(&d, &a, &[false]);
        assert!(unnamed.iter().all(|r| r.1[0].is_none()));
    }

    #[test]
    fn gpu_metric_names_may_carry_a_unit() {
        assert_eq!(gpu_column("SM Active"), Some(0));
        assert_eq!(gpu_column("Tensor Active [Throughput %]"), Some(2));
        assert_eq!(gpu_column("SM Active Cycles"), None);
        assert_eq!(gpu_column("GR Active"), None);
    }
}
