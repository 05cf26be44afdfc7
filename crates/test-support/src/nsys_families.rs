//! A generator of one Nsight Systems-shaped export holding every table family of the schema
//! reference that the corpus lacks or has few of, with the columns the reference gives: CPU
//! samples with call stacks, scheduling, OS runtime and CUDA backtraces, profiler overhead,
//! OpenMP, OpenACC, OpenGL, Vulkan, DX12, FECS, SLI, ETW, generic events, CUDA graph node
//! creation, diagnostics and GPU memory counters. Each family gets a few rows with known
//! times, so a test can check the timeline event for event ([`FAMILY_ROWS`]).

use std::path::Path;

use rusqlite::{Connection, params};

use crate::nsys::insert_strings;
use crate::nsys_cpu::CPU_SCHEMA;

/// The process of every row.
pub const PID: i64 = 777;
/// The thread of every per-thread row.
pub const TID: i64 = 778;

/// The serialized globalTid of [`TID`] (machine 0).
pub fn global_tid() -> i64 {
    (PID << 24) | TID
}

/// The serialized globalPid of [`PID`].
pub fn global_pid() -> i64 {
    PID << 24
}

/// Strings of the export: `StringIds` id = index.
pub const STRINGS: &[&str] = &[
    "",                       // 0
    "main",                   // 1
    "compute",                // 2
    "libapp.so",              // 3
    "0x7f0000001234",         // 4
    "[kernel.kallsyms]",      // 5
    "read",                   // 6
    "cudaMalloc",             // 7
    "TLS allocation",         // 8
    "omp parallel",           // 9
    "glDrawArrays",           // 10
    "vkQueueSubmit",          // 11
    "ExecuteCommandLists",    // 12
    "cudaGraphAddKernelNode", // 13
    "acc_enqueue_launch",     // 14
    "libc.so.6",              // 15
    "__GI___libc_read",       // 16
    "worker",                 // 17
];

/// The timed tables written besides the CPU ones, each with its rows' `(start, end)` (end
/// equal to start for instants), in the order written: what the timeline must show.
pub const FAMILY_ROWS: &[(&str, &[(i64, i64)])] = &[
    ("PROFILER_OVERHEAD", &[(1_000, 1_500), (9_000, 9_200)]),
    ("OPENMP_EVENT_KIND_PARALLEL", &[(2_000, 6_000)]),
    ("OPENMP_EVENT_KIND_TASK", &[(2_100, 2_900), (3_000, 3_800)]),
    ("OPENMP_EVENT_KIND_SYNC_REGION_WAIT", &[(5_000, 5_900)]),
    ("OPENGL_API", &[(10_000, 10_400)]),
    ("VULKAN_API", &[(11_000, 11_300)]),
    ("DX12_API", &[(12_000, 12_250)]),
    ("CUDA_GRAPH_EVENTS", &[(13_000, 13_100)]),
    ("CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", &[(14_000, 14_700)]),
    ("ETW_EVENTS", &[(15_000, 15_050)]),
    ("SLI_QUERIES", &[(16_000, 16_400)]),
    ("FECS_EVENTS", &[(17_000, 17_000), (17_500, 17_500)]),
    // Type 1 (named by its JSON description, source 1), then type 2 (not described).
    ("GENERIC_EVENTS", &[(18_000, 18_000), (18_500, 18_500)]),
    ("DIAGNOSTIC_EVENT", &[(-500, -500), (19_000, 19_000)]),
];

/// The tables before the CPU ones ([`CPU_SCHEMA`]), then [`SCHEMA`]: the committed fixture has
/// its tables in this order.
const SCHEMA_HEAD: &str = "
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
";

const SCHEMA: &str = "
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER NOT NULL, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER,
  callchainId INTEGER NOT NULL);
CREATE TABLE OSRT_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
  kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER,
  unwindMethod INTEGER, stackDepth INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
  unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL);
CREATE TABLE PROFILER_OVERHEAD (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER NOT NULL,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE OPENMP_EVENT_KIND_PARALLEL (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, eventKind INTEGER, parallelId INTEGER,
  parentTaskId INTEGER);
CREATE TABLE OPENMP_EVENT_KIND_TASK (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, eventKind INTEGER, parallelId INTEGER,
  taskId INTEGER, kind INTEGER);
CREATE TABLE OPENMP_EVENT_KIND_SYNC_REGION_WAIT (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  eventKind INTEGER, parallelId INTEGER, taskId INTEGER, kind INTEGER);
CREATE TABLE OPENGL_API (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER NOT NULL,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE VULKAN_API (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER,
  nameId INTEGER NOT NULL, contextId INTEGER);
CREATE TABLE DX12_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
  correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER NOT NULL, shortContextId INTEGER,
  longContextId INTEGER, frameId INTEGER, color INTEGER, textId INTEGER, commandListType INTEGER, objectName INTEGER);
CREATE TABLE CUDA_GRAPH_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER,
  nameId INTEGER NOT NULL, graphNodeId INTEGER NOT NULL, originalGraphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH (start INTEGER NOT NULL, end INTEGER NOT NULL, nameId INTEGER,
  globalTid INTEGER, eventKind INTEGER, DeviceType INTEGER, lineNo INTEGER, cuDeviceId INTEGER,
  cuContextId INTEGER, cuStreamId INTEGER, srcFile INTEGER, funcName INTEGER, numGangs INTEGER,
  numWorkers INTEGER, vectorLength INTEGER, kernelName INTEGER);
CREATE TABLE ETW_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, providerName INTEGER,
  taskName INTEGER, description INTEGER);
CREATE TABLE SLI_QUERIES (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, gpu INTEGER, frameId INTEGER, occQueryIssued INTEGER, occQueryAsked INTEGER,
  eventQueryIssued INTEGER, eventQueryAsked INTEGER, numberOfTransferEvents INTEGER,
  amountOfTransferredData INTEGER);
CREATE TABLE FECS_EVENTS (tag INTEGER NOT NULL, vmId INTEGER NOT NULL, seqNo INTEGER NOT NULL,
  contextId INTEGER NOT NULL, timestamp INTEGER NOT NULL, globalPid INTEGER, gpuId INTEGER);
CREATE TABLE GENERIC_EVENTS (rawTimestamp INTEGER, timestamp INTEGER, typeId INTEGER, data TEXT);
CREATE TABLE GENERIC_EVENT_TYPES (typeId INTEGER PRIMARY KEY, sourceId INTEGER, data TEXT);
CREATE TABLE GENERIC_EVENT_SOURCES (sourceId INTEGER PRIMARY KEY, data TEXT);
CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, timestampType INTEGER, source INTEGER, severity INTEGER,
  text TEXT, globalPid INTEGER);
CREATE TABLE GPU_MEMORY_USAGE_EVENTS (timestamp INTEGER NOT NULL, globalTid INTEGER, gpu INTEGER,
  newUsage INTEGER, segmentGroup INTEGER);
";

/// Writes the export at `path` (which must not exist).
pub fn write_families(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    // Small pages keep the committed fixture small (about 30 tables of a few rows).
    conn.execute_batch("PRAGMA page_size=512; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")?;
    conn.execute_batch(SCHEMA_HEAD)?;
    conn.execute_batch(CPU_SCHEMA)?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.transaction()?;
    insert_strings(&tx, STRINGS)?;
    let (gtid, gpid) = (global_tid(), global_pid());
    tx.execute("INSERT INTO ThreadNames VALUES (17, 0, ?1)", params![gtid])?;
    tx.execute(
        "INSERT INTO PROCESSES VALUES (?1, ?2, 'families')",
        params![gpid, PID],
    )?;
    tx.execute(
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2')",
        [],
    )?;
    cpu(&tx, gtid)?;
    families(&tx, gtid, gpid)?;
    tx.commit()
}

/// Samples (one with main → compute, one unresolved in the kernel, one without a stack),
/// two scheduling spans on CPUs 2 and 3, an OS runtime call and a CUDA call with backtraces.
fn cpu(tx: &rusqlite::Transaction<'_>, gtid: i64) -> rusqlite::Result<()> {
    for (id, start) in [(1, 3_000), (2, 4_000), (3, 4_500)] {
        tx.execute(
            "INSERT INTO COMPOSITE_EVENTS VALUES (?1, ?2, 2, 1, ?3, 1)",
            params![id, start, gtid],
        )?;
    }
    // Sample 1: compute (depth 0) called by main; sample 2: an unresolved kernel address.
    for (id, symbol, module, unresolved, depth) in [
        (1, 2, 3, None, 0),
        (1, 1, 3, None, 1),
        (2, 4, 5, Some(1), 0),
    ] {
        tx.execute(
            "INSERT INTO SAMPLING_CALLCHAINS VALUES (?1, ?2, ?3, NULL, NULL, ?4, NULL, 0, 7, ?5)",
            params![id, symbol, module, unresolved, depth],
        )?;
    }
    for (start, cpu, sched_in) in [(2_500, 2, 1), (4_800, 2, 0), (7_000, 3, 1), (8_000, 3, 0)] {
        tx.execute(
            "INSERT INTO SCHED_EVENTS VALUES (?1, ?2, ?3, ?4, 0, NULL)",
            params![start, cpu, sched_in, gtid],
        )?;
    }
    tx.execute(
        "INSERT INTO OSRT_API VALUES (6000, 6400, 27, ?1, 6, 0, 0, 1)",
        params![gtid],
    )?;
    for (symbol, module, depth) in [(16, 15, 0), (1, 3, 1)] {
        tx.execute(
            "INSERT INTO OSRT_CALLCHAINS VALUES (1, ?1, ?2, NULL, NULL, NULL, NULL, 0, 7, ?3)",
            params![symbol, module, depth],
        )?;
    }
    tx.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (8200, 8600, 0, ?1, 1, 7, 0, 1)",
        params![gtid],
    )?;
    for (symbol, module, depth) in [(7, 3, 0), (1, 3, 1)] {
        tx.execute(
            "INSERT INTO CUDA_CALLCHAINS VALUES (1, ?1, ?2, NULL, 0, ?3)",
            params![symbol, module, depth],
        )?;
    }
    Ok(())
}

/// The rows of [`FAMILY_ROWS`].
fn families(tx: &rusqlite::Transaction<'_>, gtid: i64, gpid: i64) -> rusqlite::Result<()> {
    for &(table, rows) in FAMILY_ROWS {
        for (i, &(start, end)) in rows.iter().enumerate() {
            let i = i as i64;
            match table {
                "PROFILER_OVERHEAD" | "OPENGL_API" => tx.execute(
                    &format!("INSERT INTO {table} VALUES (?1, ?2, ?3, ?4, 0)"),
                    params![start, end, gtid, if table == "OPENGL_API" { 10 } else { 8 }],
                )?,
                "OPENMP_EVENT_KIND_PARALLEL" => tx.execute(
                    "INSERT INTO OPENMP_EVENT_KIND_PARALLEL VALUES (?1, ?2, 78, ?3, 0, 9, 1, 1, 0)",
                    params![start, end, gtid],
                )?,
                "OPENMP_EVENT_KIND_TASK" | "OPENMP_EVENT_KIND_SYNC_REGION_WAIT" => tx.execute(
                    &format!("INSERT INTO {table} VALUES (?1, ?2, 78, ?3, 0, 9, 1, 1, ?4, 0)"),
                    params![start, end, gtid, i + 2],
                )?,
                "VULKAN_API" => tx.execute(
                    "INSERT INTO VULKAN_API VALUES (?1, ?2, ?3, 0, ?4, 0, 0, 11, 0)",
                    params![i + 1, start, end, gtid],
                )?,
                "DX12_API" => tx.execute(
                    "INSERT INTO DX12_API VALUES (?1, ?2, 0, ?3, 0, 0, 12, 0, 0, 0, NULL, NULL, 0, NULL)",
                    params![start, end, gtid],
                )?,
                "CUDA_GRAPH_EVENTS" => tx.execute(
                    "INSERT INTO CUDA_GRAPH_EVENTS VALUES (?1, ?2, ?3, 13, 5, NULL)",
                    params![start, end, gtid],
                )?,
                "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH" => tx.execute(
                    "INSERT INTO CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH VALUES (?1, ?2, 14, ?3, 4, 4, 55, 0, 1, 17, 0, 2, 128, 1, 256, 2)",
                    params![start, end, gtid],
                )?,
                "ETW_EVENTS" => tx.execute(
                    "INSERT INTO ETW_EVENTS VALUES (?1, ?2, ?3, 1, 2, 0)",
                    params![start, end, gtid],
                )?,
                "SLI_QUERIES" => tx.execute(
                    "INSERT INTO SLI_QUERIES VALUES (?1, ?2, 0, ?3, 0, 1, 0, 0, 0, 0, 0, 0)",
                    params![start, end, gtid],
                )?,
                "FECS_EVENTS" => tx.execute(
                    "INSERT INTO FECS_EVENTS VALUES (?1, 0, ?2, 1, ?3, ?4, 0)",
                    params![8 - i, i, start, gpid],
                )?,
                "GENERIC_EVENTS" => tx.execute(
                    "INSERT INTO GENERIC_EVENTS VALUES (?1, ?1, ?2, '{\"x\":1}')",
                    params![start, i + 1],
                )?,
                "DIAGNOSTIC_EVENT" => tx.execute(
                    "INSERT INTO DIAGNOSTIC_EVENT VALUES (?1, 1, 3, 1, 'Profiling has started.', ?2)",
                    params![start, if i == 0 { -1 } else { gpid }],
                )?,
                other => unreachable_table(other)?,
            };
        }
    }
    // The seed documents both `data` columns only as JSON descriptions: a type with a name
    // and its source, and a source no type uses.
    tx.execute(
        "INSERT INTO GENERIC_EVENT_TYPES VALUES (1, 1, '{\"Name\":\"sched_wakeup\",\"Fields\":[]}')",
        [],
    )?;
    for (id, data) in [(1, "{\"Name\":\"ftrace\"}"), (2, "{}")] {
        tx.execute(
            "INSERT INTO GENERIC_EVENT_SOURCES VALUES (?1, ?2)",
            params![id, data],
        )?;
    }
    for (t, usage) in [(1_000, 0), (5_000, 1 << 20), (9_000, 1 << 19)] {
        tx.execute(
            "INSERT INTO GPU_MEMORY_USAGE_EVENTS VALUES (?1, ?2, 0, ?3, 0)",
            params![t, gtid, usage],
        )?;
    }
    Ok(())
}

/// A table [`FAMILY_ROWS`] names but [`families`] does not write: a mistake in this file.
fn unreachable_table(table: &str) -> rusqlite::Result<usize> {
    Err(rusqlite::Error::InvalidParameterName(format!(
        "no writer for {table}"
    )))
}
