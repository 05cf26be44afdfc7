//! A generator of an Nsight Systems-shaped export holding CPU core and uncore PMU counters, in
//! the tables ten corpus exports declare (2023.4 → 2025.x) and none fills: `PMU_EVENTS` (a
//! sample per CPU and interval, `counter_id` → its values), `PMU_EVENT_COUNTERS` (`id`, `idx` →
//! the request, `value`), `PMU_EVENT_REQUESTS` (`id`, `eventid`, `source`, `unit_type`,
//! `event_name`), `UNCORE_PMU_EVENTS` (a sample per cluster, `counterId` → its values) and
//! `UNCORE_PMU_EVENT_VALUES` (`id`, `type`, `value`, `rawId`, `clusterId`), with the metric names
//! of `TARGET_INFO_PERF_METRIC` (`id` = raw event id). The columns are the corpus exports'
//! (`sqlite3 RaphaelHao_brainstorm_report2.sqlite .schema PMU_EVENTS`); every sample is known
//! ([`CORE`], [`UNCORE`]) so a test can check each counter track sample for sample.

use std::path::Path;

use rusqlite::{Connection, params};

use crate::nsys::insert_enum;

/// A counter written: `(group track, device track, metric track, unit, samples as
/// (time, value))`.
pub type PmuCounter = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [(i64, f64)],
);

/// The core counters: two events requested on two CPUs (an interval per sample, both events'
/// values in each), the second event named only by its raw id and `TARGET_INFO_PERF_METRIC`.
pub const CORE: &[PmuCounter] = &[
    (
        "CPU core PMU events",
        "CPU 0",
        "Instructions retired",
        "",
        &[(1_000, 5_000.0), (2_000, 7_500.0), (3_000, 0.0)],
    ),
    (
        "CPU core PMU events",
        "CPU 0",
        "L2 cache misses",
        "misses",
        &[(1_000, 12.0), (2_000, 340.0), (3_000, 9.0)],
    ),
    (
        "CPU core PMU events",
        "CPU 3",
        "Instructions retired",
        "",
        &[(1_500, 100.0), (2_500, 200_000.0)],
    ),
    (
        "CPU core PMU events",
        "CPU 3",
        "L2 cache misses",
        "misses",
        &[(1_500, 1.0), (2_500, 2.0)],
    ),
];

/// The uncore counters: one named by `TARGET_INFO_PERF_METRIC`, one by its raw id alone.
pub const UNCORE: &[PmuCounter] = &[
    (
        "Uncore PMU events",
        "Cluster 1",
        "SCF bus cycles",
        "cycles",
        &[(1_200, 1_000.0), (2_200, 1_100.0)],
    ),
    (
        "Uncore PMU events",
        "Cluster 1",
        "Uncore event 0x2f",
        "",
        &[(1_200, 3.0), (2_200, 4.0)],
    ),
];

/// The raw id of the core event named only through `TARGET_INFO_PERF_METRIC`.
const MISSES_ID: i64 = 0x17;
/// The raw ids of the uncore events.
const SCF_CYCLES_ID: i64 = 0x1d;
const UNNAMED_ID: i64 = 0x2f;

const SCHEMA: &str = "
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_PMU_EVENT_SOURCE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_PMU_UNIT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE TARGET_INFO_PERF_METRIC (id INTEGER NOT NULL, name TEXT NOT NULL,
  description TEXT NOT NULL, unit TEXT NOT NULL);
CREATE TABLE PMU_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalVm INTEGER NOT NULL,
  cpu INTEGER NOT NULL, counter_id INTEGER);
CREATE TABLE PMU_EVENT_COUNTERS (id INTEGER NOT NULL, idx INTEGER NOT NULL, value INTEGER NOT NULL);
CREATE TABLE PMU_EVENT_REQUESTS (id INTEGER NOT NULL, eventid INTEGER, source INTEGER NOT NULL,
  unit_type INTEGER NOT NULL, event_name TEXT, PRIMARY KEY (id));
CREATE TABLE UNCORE_PMU_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalVm INTEGER NOT NULL,
  clusterId INTEGER, counterId INTEGER);
CREATE TABLE UNCORE_PMU_EVENT_VALUES (id INTEGER NOT NULL, type INTEGER NOT NULL,
  value INTEGER NOT NULL, rawId INTEGER NOT NULL, clusterId INTEGER);
";

/// Writes the export at `path` (which must not exist).
pub fn write_pmu(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA page_size=512; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.transaction()?;
    tx.execute(
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2')",
        [],
    )?;
    insert_enum(
        &tx,
        "ENUM_PMU_EVENT_SOURCE",
        &[("ArmPmu", "Arm PMU"), ("CarmelPmu", "Carmel PMU")],
    )?;
    insert_enum(
        &tx,
        "ENUM_PMU_UNIT_TYPE",
        &[
            ("PmuUnitCore", "Pmu Unit Core"),
            ("PmuUnitCpuCluster", "Pmu Unit Cpu Cluster"),
        ],
    )?;
    for (id, name, unit) in [
        (MISSES_ID, "L2 cache misses", "misses"),
        (SCF_CYCLES_ID, "SCF bus cycles", "cycles"),
    ] {
        tx.execute(
            "INSERT INTO TARGET_INFO_PERF_METRIC VALUES (?1, ?2, '', ?3)",
            params![id, name, unit],
        )?;
    }
    // Request 1 names its event; request 2 only gives the raw id.
    tx.execute(
        "INSERT INTO PMU_EVENT_REQUESTS VALUES (1, 8, 1, 1, 'Instructions retired')",
        [],
    )?;
    tx.execute(
        "INSERT INTO PMU_EVENT_REQUESTS VALUES (2, ?1, 1, 1, NULL)",
        params![MISSES_ID],
    )?;
    core_samples(&tx)?;
    uncore_samples(&tx)?;
    tx.commit()
}

/// [`CORE`]'s samples: one `PMU_EVENTS` row per CPU and time, its two values under one
/// `counter_id`.
fn core_samples(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let mut counter = 100;
    for cpu in ["CPU 0", "CPU 3"] {
        let of = |metric: &str| {
            CORE.iter()
                .find(|c| c.1 == cpu && c.2 == metric)
                .map_or(&[][..], |c| c.4)
        };
        let (first, second) = (of("Instructions retired"), of("L2 cache misses"));
        let n: i64 = cpu[4..].parse().unwrap_or(0);
        for (a, b) in first.iter().zip(second) {
            counter += 1;
            tx.execute(
                "INSERT INTO PMU_EVENTS VALUES (?1, ?2, 0, ?3, ?4)",
                params![a.0, a.0 + 900, n, counter],
            )?;
            for (idx, value) in [(1, a.1), (2, b.1)] {
                tx.execute(
                    "INSERT INTO PMU_EVENT_COUNTERS VALUES (?1, ?2, ?3)",
                    params![counter, idx, value as i64],
                )?;
            }
        }
    }
    Ok(())
}

/// [`UNCORE`]'s samples: one `UNCORE_PMU_EVENTS` row per time on cluster 1, its two values
/// under one `counterId`.
fn uncore_samples(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let (named, unnamed) = (UNCORE[0].4, UNCORE[1].4);
    for (i, (a, b)) in named.iter().zip(unnamed).enumerate() {
        let counter = 500 + i as i64;
        tx.execute(
            "INSERT INTO UNCORE_PMU_EVENTS VALUES (?1, ?2, 0, 1, ?3)",
            params![a.0, a.0 + 900, counter],
        )?;
        for (raw, value) in [(SCF_CYCLES_ID, a.1), (UNNAMED_ID, b.1)] {
            tx.execute(
                "INSERT INTO UNCORE_PMU_EVENT_VALUES VALUES (?1, 115, ?2, ?3, 1)",
                params![counter, value as i64, raw],
            )?;
        }
    }
    Ok(())
}
