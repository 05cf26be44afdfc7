//! A generator of an Nsight Systems-shaped export holding the tables no corpus export has rows
//! in, with the corpus exports' own column names and types (schema 3.7 and later): CUDA graph
//! node creations inside the API calls that made them (one cloned node), unified-memory CPU
//! and GPU page faults, unified-memory migrations among ordinary copies, NVENC, NVDEC and
//! nvJPEG API calls, and NIC and InfiniBand switch counters. Every row has known times and
//! fields ([`EXPECTED`], [`NETWORK`]), so a test can check the timeline row for row.

use std::path::Path;

use rusqlite::{Connection, params};

use crate::nsys::{insert_enum, insert_strings};

/// The process of every row.
pub const PID: i64 = 4242;
/// The thread of every per-thread row.
pub const TID: i64 = 4243;

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
    "cudaGraphAddKernelNode", // 1
    "cudaGraphInstantiate",   // 2
    "cuGraphAddMemcpyNode",   // 3
    "mov %rax, (%rdx)",       // 4
    "libapp.so",              // 5
    "nvEncEncodePicture",     // 6
    "cuvidDecodePicture",     // 7
    "nvjpegDecode",           // 8
    "main",                   // 9
    "cudaMemPrefetchAsync",   // 10
];

/// One expected event: source table, the track's name, the name of its parent track,
/// `(start, end)`, the event's name, and its fields as `(name, value as the details show it)`
/// (an enum value as `Label (n)`; JSON gives the label alone).
pub type Expected = (
    &'static str,
    &'static str,
    &'static str,
    (i64, i64),
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// What the timeline must show: every row written, in time order per table.
pub const EXPECTED: &[Expected] = &[
    (
        "CUDA_GRAPH_EVENTS",
        "CUDA graph node creation",
        "Thread 4243 (main)",
        (1_200, 1_300),
        "cudaGraphAddKernelNode",
        &[("Graph node ID", "5")],
    ),
    (
        "CUDA_GRAPH_EVENTS",
        "CUDA graph node creation",
        "Thread 4243 (main)",
        (3_100, 3_200),
        "cudaGraphInstantiate",
        &[("Graph node ID", "9"), ("Original graph node ID", "5")],
    ),
    (
        "CUDA_GRAPH_EVENTS",
        "CUDA graph node creation",
        "Thread 4243 (main)",
        (5_000, 5_100),
        "cuGraphAddMemcpyNode",
        &[("Graph node ID", "11")],
    ),
    (
        "CUDA_UM_CPU_PAGE_FAULT_EVENTS",
        "Unified memory CPU page faults",
        "Process 4242 (um)",
        (6_000, 6_000),
        "Unified memory CPU page faults",
        &[
            ("Address", "0x7f0000001000"),
            ("CPU instruction", "mov %rax, (%rdx)"),
            ("Module", "libapp.so"),
            ("Original fault PC", "0x401234"),
            ("Unresolved fault PC", "0"),
        ],
    ),
    (
        "CUDA_UM_CPU_PAGE_FAULT_EVENTS",
        "Unified memory CPU page faults",
        "Process 4242 (um)",
        (6_100, 6_100),
        "Unified memory CPU page faults",
        &[
            ("Address", "0x7f0000002000"),
            ("CPU instruction", "mov %rax, (%rdx)"),
            ("Module", "libapp.so"),
        ],
    ),
    (
        "CUDA_UM_GPU_PAGE_FAULT_EVENTS",
        "Unified memory GPU page faults",
        "GPU 0",
        (7_000, 7_500),
        "Unified memory GPU page faults",
        &[
            ("Address", "0x7f0000001000"),
            ("Number of page faults", "3"),
            ("Access type", "Write (2)"),
        ],
    ),
    (
        "CUDA_UM_GPU_PAGE_FAULT_EVENTS",
        "Unified memory GPU page faults",
        "GPU 1",
        (7_200, 7_300),
        "Unified memory GPU page faults",
        &[
            ("Address", "0x7f0000003000"),
            ("Number of page faults", "1"),
            ("Access type", "Read (1)"),
        ],
    ),
    (
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        "Unified memory",
        "GPU 0",
        (8_000, 8_400),
        "[CUDA memcpy Unified Host-to-Device]",
        &[
            ("Migration cause", "Page fault (2)"),
            ("Virtual address", "0x7f0000001000"),
            ("Bytes", "4096"),
        ],
    ),
    (
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        "Unified memory",
        "GPU 0",
        (8_500, 9_500),
        "[CUDA memcpy Unified Device-to-Host]",
        &[
            ("Migration cause", "User prefetch (1)"),
            ("Virtual address", "0x7f0000200000"),
            ("Bytes", "2097152"),
        ],
    ),
    (
        "NVVIDEO_ENCODER_API",
        "NVENC API",
        "Thread 4243 (main)",
        (10_000, 10_300),
        "nvEncEncodePicture",
        &[],
    ),
    (
        "NVVIDEO_DECODER_API",
        "NVDEC API",
        "Thread 4243 (main)",
        (11_000, 11_200),
        "cuvidDecodePicture",
        &[],
    ),
    (
        "NVVIDEO_JPEG_API",
        "nvJPEG API",
        "Thread 4243 (main)",
        (12_000, 12_050),
        "nvjpegDecode",
        &[],
    ),
];

/// A network counter written: `(table, device track, metric track, unit, samples as
/// (time, value))`.
pub type Counter = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [(i64, f64)],
);

/// The network counters written.
pub const NETWORK: &[Counter] = &[
    (
        "NET_NIC_METRIC",
        "NIC mlx5_0",
        "IB: Send waits",
        "ticks/ms",
        &[(1_000, 5.0), (2_000, 12_000.0), (3_000, 7.0)],
    ),
    (
        "NET_NIC_METRIC",
        "NIC mlx5_0",
        "IB: Bytes received",
        "B/s",
        &[(1_000, 1_048_576.0), (2_000, 0.0)],
    ),
    (
        "NET_IB_SWITCH_METRIC",
        "IB switch 0x1234abcd",
        "IB: Send waits",
        "ticks/ms",
        &[(1_500, 40.0), (2_500, 41.0)],
    ),
];

/// The globalId of the NIC.
const NIC_GLOBAL: i64 = 0x0100_0000_0000;
/// The globalId (GUID) of the switch.
const SWITCH_GLOBAL: i64 = 0x1234_abcd;

/// The graph node whose work the ordinary copy is (created at 3,100 as a clone of node 5).
pub const GRAPH_WORK_NODE: i64 = 9;

/// The ordinary copy written beside the migrations: it stays on its stream.
pub const ORDINARY_COPY: (i64, i64) = (8_100, 8_200);

/// The corpus exports' columns (3.7.2 and later) of the tables written.
const SCHEMA: &str = "
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_UNIF_MEM_MIGRATION (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUDA_UNIF_MEM_ACCESS_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUDA_GRAPH_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL, graphNodeId INTEGER NOT NULL, originalGraphNodeId INTEGER);
CREATE TABLE CUDA_UM_CPU_PAGE_FAULT_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  address INTEGER NOT NULL, originalFaultPc INTEGER, CpuInstruction INTEGER NOT NULL,
  module INTEGER NOT NULL, unresolvedFaultPc INTEGER);
CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL,
  globalPid INTEGER NOT NULL, deviceId INTEGER NOT NULL, address INTEGER NOT NULL,
  numberOfPageFaults INTEGER NOT NULL, faultAccessType INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,
  dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER,
  virtualAddress INTEGER);
CREATE TABLE NVVIDEO_ENCODER_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL);
CREATE TABLE NVVIDEO_DECODER_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_NETWORK_METRICS (metricsListId INTEGER NOT NULL, metricsIdx INTEGER NOT NULL,
  name TEXT NOT NULL, description TEXT NOT NULL, unit TEXT NOT NULL);
CREATE TABLE NIC_ID_MAP (nicId INTEGER NOT NULL, globalId INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_NIC_INFO (GUID INTEGER NOT NULL, stateName TEXT NOT NULL, nicId INTEGER NOT NULL,
  name TEXT NOT NULL, deviceId INTEGER NOT NULL, vendorId INTEGER NOT NULL, linkLayer INTEGER NOT NULL);
CREATE TABLE NET_NIC_METRIC (start INTEGER NOT NULL, end INTEGER NOT NULL, globalId INTEGER NOT NULL,
  metricsListId INTEGER NOT NULL, metricsIdx INTEGER NOT NULL, value INTEGER NOT NULL);
CREATE TABLE NET_IB_SWITCH_METRIC (start INTEGER NOT NULL, end INTEGER NOT NULL, globalId INTEGER NOT NULL,
  metricsListId INTEGER NOT NULL, metricsIdx INTEGER NOT NULL, value INTEGER NOT NULL);
CREATE TABLE NVVIDEO_JPEG_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL);
";

/// `ENUM_CUDA_MEMCPY_OPER` as the corpus exports write it (the unified kinds included).
const MEMCPY_OPER: &[(&str, &str)] = &[
    ("CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"),
    ("CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"),
    ("CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"),
    ("CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"),
    ("CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"),
    ("CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"),
    ("CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"),
    ("CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"),
    ("CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"),
    ("CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"),
    ("CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"),
    ("CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"),
    ("CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"),
    ("CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"),
];

const MIGRATION: &[(&str, &str)] = &[
    ("CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_UNKNOWN", "Unknown"),
    ("CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_USER", "User prefetch"),
    (
        "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE",
        "Page fault",
    ),
    (
        "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH",
        "Speculative prefecth",
    ),
    ("CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION", "Eviction"),
    (
        "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS",
        "Access counters",
    ),
];

const ACCESS_TYPE: &[(&str, &str)] = &[
    ("CUDA_UNIFIED_MEMORY_ACCESS_TYPE_UNKNOWN", "Unknown"),
    ("CUDA_UNIFIED_MEMORY_ACCESS_TYPE_READ", "Read"),
    ("CUDA_UNIFIED_MEMORY_ACCESS_TYPE_WRITE", "Write"),
    ("CUDA_UNIFIED_MEMORY_ACCESS_TYPE_ATOMIC", "Atomic"),
    ("CUDA_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH", "Prefetch"),
];

/// The CUDA API calls of the thread `(start, end, nameId)`: the first two hold a graph node
/// creation each; the third creation ([`EXPECTED`]) happens outside any call.
pub const CALLS: &[(i64, i64, i64)] = &[(1_000, 2_000, 1), (3_000, 4_000, 2), (8_000, 8_050, 10)];

/// Writes the export at `path` (which must not exist).
pub fn write_rare(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA page_size=512; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.transaction()?;
    insert_strings(&tx, STRINGS)?;
    insert_enum(&tx, "ENUM_CUDA_MEMCPY_OPER", MEMCPY_OPER)?;
    insert_enum(&tx, "ENUM_CUDA_UNIF_MEM_MIGRATION", MIGRATION)?;
    insert_enum(&tx, "ENUM_CUDA_UNIF_MEM_ACCESS_TYPE", ACCESS_TYPE)?;
    let (gtid, gpid) = (global_tid(), global_pid());
    tx.execute("INSERT INTO ThreadNames VALUES (9, 0, ?1)", params![gtid])?;
    tx.execute(
        "INSERT INTO PROCESSES VALUES (?1, ?2, 'um')",
        params![gpid, PID],
    )?;
    tx.execute(
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.7.2')",
        [],
    )?;
    for (i, &(start, end, name)) in CALLS.iter().enumerate() {
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 0, ?3, ?4, ?5, 0, NULL)",
            params![start, end, gtid, i as i64 + 1, name],
        )?;
    }
    for (start, end, name, node, original) in [
        (1_200, 1_300, 1, 5, None),
        (3_100, 3_200, 2, 9, Some(5)),
        (5_000, 5_100, 3, 11, None),
    ] {
        tx.execute(
            "INSERT INTO CUDA_GRAPH_EVENTS VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6)",
            params![start, end, gtid, name, node, original],
        )?;
    }
    faults(&tx, gpid)?;
    copies(&tx, gpid)?;
    for (table, start, end, name) in [
        ("NVVIDEO_ENCODER_API", 10_000, 10_300, 6),
        ("NVVIDEO_DECODER_API", 11_000, 11_200, 7),
        ("NVVIDEO_JPEG_API", 12_000, 12_050, 8),
    ] {
        tx.execute(
            &format!("INSERT INTO {table} VALUES (?1, ?2, 0, ?3, ?4)"),
            params![start, end, gtid, name],
        )?;
    }
    network(&tx)?;
    tx.commit()
}

/// The metric names, the NIC's name and the samples of [`NETWORK`].
fn network(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    for (idx, name, unit) in [
        (0, "IB: Send waits", "ticks/ms"),
        (1, "IB: Bytes received", "B/s"),
    ] {
        tx.execute(
            "INSERT INTO TARGET_INFO_NETWORK_METRICS VALUES (0, ?1, ?2, '', ?3)",
            params![idx, name, unit],
        )?;
    }
    tx.execute("INSERT INTO NIC_ID_MAP VALUES (1, ?1)", params![NIC_GLOBAL])?;
    tx.execute(
        "INSERT INTO TARGET_INFO_NIC_INFO VALUES (77, 'Active', 1, 'mlx5_0', 4115, 5555, 1)",
        [],
    )?;
    for &(table, device, metric, _, samples) in NETWORK {
        let global = if device.starts_with("NIC") {
            NIC_GLOBAL
        } else {
            SWITCH_GLOBAL
        };
        let idx = i64::from(metric != "IB: Send waits");
        for &(t, value) in samples {
            tx.execute(
                &format!("INSERT INTO {table} VALUES (?1, ?2, ?3, 0, ?4, ?5)"),
                params![t, t + 100, global, idx, value as i64],
            )?;
        }
    }
    Ok(())
}

/// Two CPU page faults (the second without a fault PC) and two GPU page faults on GPUs 0, 1.
fn faults(tx: &rusqlite::Transaction<'_>, gpid: i64) -> rusqlite::Result<()> {
    for (start, address, pc, unresolved) in [
        (6_000, 0x7f00_0000_1000_i64, Some(0x40_1234_i64), Some(0)),
        (6_100, 0x7f00_0000_2000, None, None),
    ] {
        tx.execute(
            "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS VALUES (?1, ?2, ?3, ?4, 4, 5, ?5)",
            params![start, gpid, address, pc, unresolved],
        )?;
    }
    for (start, end, device, address, faults, access) in [
        (7_000, 7_500, 0, 0x7f00_0000_1000_i64, 3, 2),
        (7_200, 7_300, 1, 0x7f00_0000_3000, 1, 1),
    ] {
        tx.execute(
            "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![start, end, gpid, device, address, faults, access],
        )?;
    }
    Ok(())
}

/// Two migrations (a page-faulted HtoD and a prefetched DtoH, the second made by the
/// prefetch call) and an ordinary copy between them on stream 7, the work of graph node 9.
fn copies(tx: &rusqlite::Transaction<'_>, gpid: i64) -> rusqlite::Result<()> {
    type Copy = (
        i64,
        i64,
        i64,
        i64,
        i64,
        Option<i64>,
        Option<i64>,
        Option<i64>,
    );
    let rows: [Copy; 3] = [
        (
            8_000,
            8_400,
            4096,
            11,
            0,
            Some(2),
            None,
            Some(0x7f00_0000_1000),
        ),
        (
            ORDINARY_COPY.0,
            ORDINARY_COPY.1,
            64,
            1,
            0,
            None,
            Some(GRAPH_WORK_NODE),
            None,
        ),
        (
            8_500,
            9_500,
            2 << 20,
            12,
            3,
            Some(1),
            None,
            Some(0x7f00_0020_0000),
        ),
    ];
    for (start, end, bytes, kind, correlation, cause, node, address) in rows {
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?1, ?2, 0, 1, NULL, 7, ?3, ?4, ?5, ?6,
               NULL, 0, 2, 0, 1, 0, 1, ?7, ?8, ?9)",
            params![
                start,
                end,
                correlation,
                gpid,
                bytes,
                kind,
                cause,
                node,
                address
            ],
        )?;
    }
    Ok(())
}
