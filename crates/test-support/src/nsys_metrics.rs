//! Exports with GPU metrics, as Nsight Systems writes them: `TARGET_INFO_GPU_METRICS` names
//! the 22 metrics of an A100's metric set (the names real exports give them), `GPU_METRICS`
//! holds one row per metric and sampling time; or, as 2022.2 and 2023.1 captures do, the same
//! samples in `GENERIC_EVENTS` with a NULL `timestamp`, the time in `rawTimestamp` and a
//! source whose `"TimeSource"` is `"SessionNs"`, one row per sampling time holding every
//! metric as a string field. The event type's id carries the GPU in its low byte.
//! Deterministic: every value is a function of the metric and the sample.

use std::path::Path;

use rusqlite::{Connection, params};

/// The metrics of an A100 in the order its exports list them.
pub const A100_METRICS: [&str; 22] = [
    "PCIe TX Throughput",
    "PCIe RX Throughput",
    "NVLink TX Responses User Data",
    "NVLink TX Responses Protocol Data",
    "NVLink TX Requests User Data",
    "NVLink TX Requests Protocol Data",
    "NVLink RX Responses User Data",
    "NVLink RX Responses Protocol Data",
    "NVLink RX Requests User Data",
    "NVLink RX Requests Protocol Data",
    "GPC Clock Frequency",
    "SYS Clock Frequency",
    "GR Active",
    "SM Active",
    "SM Issue",
    "Tensor Active",
    "Vertex/Tess/Geometry Warps in Flight",
    "Pixel Warps in Flight",
    "Compute Warps in Flight",
    "Unallocated Warps in Active SMs",
    "DRAM Read Bandwidth",
    "DRAM Write Bandwidth",
];

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsOptions {
    /// Sampling times (each gives one sample of every metric).
    pub times: u64,
    /// Nanoseconds between sampling times (10 kHz: 100 µs).
    pub period_ns: i64,
    /// Write the samples as generic events with NULL timestamps instead of `GPU_METRICS`.
    pub generic: bool,
    /// The GPU the metrics are sampled on (the event type's low byte).
    pub gpu: u8,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        MetricsOptions {
            times: 100,
            period_ns: 100_000,
            generic: false,
            gpu: 0,
        }
    }
}

/// The event type id of the metrics of `gpu` (a serialized global id, the GPU in its low byte).
pub fn metric_type_id(gpu: u8) -> i64 {
    (1 << 40) | (0x4D << 8) | i64::from(gpu)
}

/// The value of metric `metric` at sampling time `k`: a clock in MHz (1005–1410), else a
/// percentage (0–100), an integer as `GPU_METRICS` stores them.
pub fn metric_value(metric: usize, k: u64) -> i64 {
    let wave = ((k * 7 + metric as u64 * 13) % 101) as i64;
    if A100_METRICS[metric].contains("Clock") {
        1005 + wave * 4
    } else {
        (wave + (k / 50) as i64 * metric as i64) % 101
    }
}

/// The time of sampling time `k`.
pub fn metric_time(options: &MetricsOptions, k: u64) -> i64 {
    1_000_000 + k as i64 * options.period_ns
}

const SCHEMA: &str = "
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT);
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL,
  typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);
CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER NOT NULL, metricId INTEGER NOT NULL,
  value INTEGER NOT NULL);
CREATE TABLE GENERIC_EVENTS (rawTimestamp INTEGER, timestamp INTEGER, typeId INTEGER, data TEXT);
CREATE TABLE GENERIC_EVENT_TYPES (typeId INTEGER PRIMARY KEY, sourceId INTEGER, data TEXT);
CREATE TABLE GENERIC_EVENT_SOURCES (sourceId INTEGER PRIMARY KEY, data TEXT);
";

/// The source id of the metrics' generic event source.
const SOURCE: i64 = 7;

/// Writes a new export at `path` (which must not exist); returns the samples written.
pub fn write_metrics(path: &Path, options: &MetricsOptions) -> rusqlite::Result<u64> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.transaction()?;
    let version = if options.generic { "2.9.1" } else { "3.13.2" };
    tx.execute(
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', ?1)",
        [version],
    )?;
    let gpu = options.gpu;
    tx.execute(
        "INSERT INTO TARGET_INFO_GPU VALUES (0, ?1, 'NVIDIA A100-SXM4-40GB', '0000:07:00.0')",
        [i64::from(gpu)],
    )?;
    let type_id = metric_type_id(gpu);
    for (id, name) in A100_METRICS.iter().enumerate() {
        tx.execute(
            "INSERT INTO TARGET_INFO_GPU_METRICS VALUES (?1, ?2, 'GA100', ?3, ?4)",
            params![type_id, SOURCE, id as i64, name],
        )?;
    }
    tx.execute(
        "INSERT INTO GENERIC_EVENT_SOURCES VALUES (?1, ?2)",
        params![
            SOURCE,
            r#"{"Name":"GPU Metrics","TimeSource":"SessionNs","DeviceId":0}"#
        ],
    )?;
    let fields: Vec<String> = A100_METRICS
        .iter()
        .map(|n| format!(r#"{{"Name":"{n}","Type":"Uint64"}}"#))
        .collect();
    tx.execute(
        "INSERT INTO GENERIC_EVENT_TYPES VALUES (?1, ?2, ?3)",
        params![
            type_id,
            SOURCE,
            format!(
                r#"{{"Name":"GPU Metrics (GA100)","Fields":[{}]}}"#,
                fields.join(",")
            )
        ],
    )?;
    let mut samples = 0;
    if options.generic {
        let mut insert = tx.prepare("INSERT INTO GENERIC_EVENTS VALUES (?1, NULL, ?2, ?3)")?;
        for k in 0..options.times {
            let data: Vec<String> = (0..A100_METRICS.len())
                .map(|m| format!(r#""{}":"{}""#, A100_METRICS[m], metric_value(m, k)))
                .collect();
            let data = format!("{{{}}}", data.join(","));
            insert.execute(params![metric_time(options, k), type_id, data])?;
            samples += A100_METRICS.len() as u64;
        }
    } else {
        let mut insert = tx.prepare("INSERT INTO GPU_METRICS VALUES (?1, ?2, ?3, ?4)")?;
        for k in 0..options.times {
            for m in 0..A100_METRICS.len() {
                insert.execute(params![
                    metric_time(options, k),
                    type_id,
                    m as i64,
                    metric_value(m, k)
                ])?;
                samples += 1;
            }
        }
    }
    tx.commit()?;
    Ok(samples)
}

/// Adds to an export written by [`write_metrics`] generic events of two more sources with
/// NULL timestamps: `marks` instants of a source on the session's time base (type 900,
/// "sched_wakeup", at `rawTimestamp` 2 000 000 + 1 000·k), and 3 of a source on another
/// time base (type 901), which cannot be placed.
pub fn add_generic_instants(path: &Path, marks: u64) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    let tx = conn.transaction()?;
    tx.execute(
        "INSERT INTO GENERIC_EVENT_SOURCES VALUES (8, '{\"Name\":\"ftrace\",\"TimeSource\":\"SessionNs\"}')",
        [],
    )?;
    tx.execute(
        "INSERT INTO GENERIC_EVENT_SOURCES VALUES (9, '{\"Name\":\"etw\",\"TimeSource\":\"QPC\"}')",
        [],
    )?;
    tx.execute(
        "INSERT INTO GENERIC_EVENT_TYPES VALUES (900, 8, '{\"Name\":\"sched_wakeup\",\"Fields\":[{\"Name\":\"pid\"}]}')",
        [],
    )?;
    tx.execute(
        "INSERT INTO GENERIC_EVENT_TYPES VALUES (901, 9, '{\"Name\":\"etw_event\"}')",
        [],
    )?;
    for k in 0..marks {
        tx.execute(
            "INSERT INTO GENERIC_EVENTS VALUES (?1, NULL, 900, '{\"pid\":\"12\"}')",
            [2_000_000 + 1_000 * k as i64],
        )?;
    }
    for k in 0..3i64 {
        tx.execute(
            "INSERT INTO GENERIC_EVENTS VALUES (?1, NULL, 901, '{}')",
            [5_000 + k],
        )?;
    }
    tx.commit()
}
