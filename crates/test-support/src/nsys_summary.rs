//! The Analysis Summary's tables with known values, added to an export of [`crate::nsys`]:
//! `META_DATA_CAPTURE` (settings, a launched process with its arguments written out of order,
//! its environment), `TARGET_INFO_SYSTEM_ENV` (CPU, host, a `DeviceEnvironment` whose
//! `LS_COLORS` holds `;`), `TARGET_INFO_NIC_INFO` with the `ENUM_NET_*` labels, CUDA contexts
//! and streams (a priority written as unsigned 32 bits, a stream named by NVTX, a null stream
//! listed only in `TARGET_INFO_CUDA_NULL_STREAM`), `TARGET_INFO_CUDA_DEVICE`, `ANALYSIS_DETAILS`,
//! `ProcessStreams` and `ANALYSIS_FILE`.
//! Shapes as the 2024–2025 exports of the corpus write them. Also: odd values in those tables
//! ([`write_odd_values`]) and a table replaced by a view of the same name ([`table_as_view`],
//! [`broken_view`]), as an odd or hostile export may hold.

use std::path::Path;

use rusqlite::{Connection, params};

/// The launched program.
pub const COMMAND: &str = "mpirun";
/// Its arguments, in order (written to the table in reverse order).
pub const ARGUMENTS: &[&str] = &[
    "-n",
    "2",
    "python",
    "train step.py",
    "--epochs",
    "10",
    "--lr",
    "0.1",
    "--seed",
    "7",
    "--tag",
    "it's",
];
/// The command line as [`COMMAND`] and [`ARGUMENTS`] give it, quoted for a shell.
pub const COMMAND_LINE: &str =
    "mpirun -n 2 python 'train step.py' --epochs 10 --lr 0.1 --seed 7 --tag 'it'\\''s'";
/// The working folder.
pub const WORKING_DIR: &str = "/work/run 1";
/// The launched process's environment (`PROCESS_0:ENVIRONMENT_VARIABLE`, written `NAME="value"`).
pub const PROCESS_ENV: &[(&str, &str)] = &[
    ("CUDA_VISIBLE_DEVICES", "0,1"),
    ("OMPI_COMM_WORLD_RANK", "3"),
    ("EMPTY", ""),
];
/// The target system's `DeviceEnvironment` and the variables it holds.
pub const DEVICE_ENVIRONMENT: &str = "SLURM_PROCID=3;LS_COLORS=di=01;34:ln=01;PMI_RANK=3";
/// The variables of [`DEVICE_ENVIRONMENT`].
pub const DEVICE_VARIABLES: &[(&str, &str)] = &[
    ("SLURM_PROCID", "3"),
    ("LS_COLORS", "di=01;34:ln=01"),
    ("PMI_RANK", "3"),
];
/// The capture settings that are not about a process, in order.
pub const CAPTURE: &[(&str, &str)] = &[
    ("DEVICE_ID", "Local (CLI)"),
    ("CAPTURE_EVENT_TYPE", "Cuda"),
    ("CAPTURE_EVENT_TYPE", "NvtxEvents"),
    ("START_TRIGGER", "Immediate"),
    ("SAMPLE_ALL_TASKS", "false"),
];
/// `TARGET_INFO_SYSTEM_ENV`'s rows (name, value), in order.
pub const SYSTEM: &[(&str, &str)] = &[
    ("CpuCores", "4"),
    ("CpuSpeedMhz", "2450"),
    ("CpuArchitecture", "x86_64"),
    ("CpuDescription", "Synthetic EPYC 7763"),
    (
        "CpuInfo",
        r#"{"items":[{"cpuid":0,"socket":0,"maxfreqhz":2450000000},{"cpuid":1,"socket":0,"maxfreqhz":2450000000},{"cpuid":2,"socket":1,"maxfreqhz":3500000000},{"cpuid":3,"socket":1,"maxfreqhz":2450000000}]}"#,
    ),
    ("Hostname", "synth-node-07"),
    ("DeviceEnvironment", DEVICE_ENVIRONMENT),
    ("NvDriverVersion", "550.54"),
    ("CudaDriverVersion", "12040"),
];
/// The NICs: (nicId, name, GUID, deviceId, vendorId, linkLayer).
pub const NICS: &[(i64, &str, i64, i64, i64, i64)] = &[
    (0, "mlx5_0", 0x0c42_a103_00ab_cdef, 4115, 5555, 2),
    (1, "eth0", -6_431_419_543_862_918_343, 14290, 32902, 1),
];
/// The streams: (processId, contextId, streamId, priority as written, flag).
pub const STREAMS: &[(i64, i64, i64, i64, i64)] =
    &[(4242, 1, 13, 0, 2), (4242, 1, 14, 4_294_967_291, 1)];
/// The stream NVTX names: (streamId, name).
pub const STREAM_NAME: (i64, &str) = (14, "copy stream");
/// The null stream of context 1 (only in `TARGET_INFO_CUDA_NULL_STREAM`).
pub const NULL_STREAM: i64 = 7;
/// `ANALYSIS_DETAILS`: (start, stop).
pub const ANALYSIS: (i64, i64) = (1_000, 2_501_000);
/// `ProcessStreams`: (file, content).
pub const OUTPUT: (&str, &str) = ("/tmp/nsys/pid_4242_stdout.log", "epoch 1: loss 0.25\n");
/// `TARGET_INFO_CUDA_DEVICE`: (gpuId, cudaId, pid, uuid, numMultiprocessors); the second
/// device with no UUID (written empty, as some exports do) and a green context's share of SMs.
pub const CUDA_DEVICES: &[(i64, i64, i64, &str, i64)] = &[
    (0, 0, 4242, "GPU-5eed0000-cafe-f00d-0000-000000000001", 108),
    (1, 1, 4242, "", 54),
];
/// `ANALYSIS_FILE`: (filename, content), the content in `StringIds` (`contentId`).
pub const ANALYSIS_FILES: &[(&str, &str)] = &[
    ("/tmp/nsys/pid_4242_stdout.log", "epoch 1: loss 0.25\n"),
    ("/tmp/nsys/pid_4242_stderr.log", ""),
];

const SCHEMA: &str = "
CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL,
  name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_NIC_INFO (globalId INTEGER, stateName TEXT NOT NULL, nicId INTEGER NOT NULL,
  name TEXT NOT NULL, deviceId INTEGER NOT NULL, vendorId INTEGER NOT NULL, linkLayer INTEGER NOT NULL,
  GUID INTEGER NOT NULL);
CREATE TABLE ENUM_NET_LINK_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NET_VENDOR_ID (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NET_DEVICE_ID (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_CUPTI_STREAM_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, parentContextId INTEGER, isGreenContext INTEGER);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  priority INTEGER NOT NULL, flag INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_NVTX_CUDA_STREAM (name TEXT NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL);
CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL,
  startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL);
CREATE TABLE ProcessStreams (globalPid INTEGER NOT NULL, filenameId INTEGER NOT NULL,
  contentId INTEGER NOT NULL);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL,
  uuid TEXT, numMultiprocessors INTEGER);
CREATE TABLE ANALYSIS_FILE (id INTEGER NOT NULL PRIMARY KEY, filename TEXT, contentId INTEGER,
  globalPid INTEGER NOT NULL);
";

/// Adds the Analysis Summary's tables to the export at `path` (written by [`crate::nsys`]).
pub fn write_summary_tables(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    let tx = conn.transaction()?;
    tx.execute_batch(SCHEMA)?;
    {
        let mut capture = tx.prepare("INSERT INTO META_DATA_CAPTURE VALUES (?1, ?2)")?;
        for (name, value) in CAPTURE {
            capture.execute(params![name, value])?;
        }
        capture.execute(params!["PROCESS_0:COMMAND", COMMAND])?;
        for (k, arg) in ARGUMENTS.iter().enumerate().rev() {
            capture.execute(params![format!("PROCESS_0:ARGUMENT_{k}"), arg])?;
        }
        capture.execute(params!["PROCESS_0:WORKING_DIR", WORKING_DIR])?;
        capture.execute(params!["PROCESS_0:PID", "0"])?;
        capture.execute(params!["PROCESS_0:COLLECT_CUDA_TRACE", "true"])?;
        for (name, value) in PROCESS_ENV {
            let var = format!("{name}=\"{value}\"");
            capture.execute(params!["PROCESS_0:ENVIRONMENT_VARIABLE", var])?;
        }
        let mut system = tx.prepare(
            "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (281474976710656, 'Local (CLI)', ?1, ?2, ?3)",
        )?;
        for (k, (name, value)) in SYSTEM.iter().enumerate() {
            system.execute(params![name, k as i64 + 1, value])?;
        }
    }
    write_devices(&tx)?;
    tx.commit()
}

/// The NICs, CUDA contexts and streams, the analysed span, the process output, the CUDA
/// devices and the analysis files.
fn write_devices(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "INSERT INTO ENUM_NET_LINK_TYPE VALUES (0, 'Unknown', 'Unknown NIC'),
           (1, 'Ethernet', 'Ethernet NIC'), (2, 'InfiniBand', 'InfiniBand NIC');
         INSERT INTO ENUM_NET_VENDOR_ID VALUES (5555, 'NVIDIA', 'NVIDIA / Mellanox');
         INSERT INTO ENUM_NET_DEVICE_ID VALUES (4115, 'CntX4', 'ConnectX-4');
         INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES
           (0, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN', 'Unknown stream type'),
           (1, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT', 'Default stream'),
           (2, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING', 'Non-blocking stream'),
           (3, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL', 'Null stream');
         INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7, 0, 1, 4242, 0, 1, 0, 0);
         INSERT INTO TARGET_INFO_CUDA_NULL_STREAM VALUES (7, 0, 1, 4242, 0, 1);",
    )?;
    for (id, name, guid, device, vendor, link) in NICS {
        tx.execute(
            "INSERT INTO TARGET_INFO_NIC_INFO VALUES (0, 'Local (CLI)', ?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, name, device, vendor, link, guid],
        )?;
    }
    for (pid, context, stream, priority, flag) in STREAMS {
        tx.execute(
            "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (?1, 0, 1, ?2, ?3, ?4, ?5)",
            params![stream, pid, context, priority, flag],
        )?;
    }
    tx.execute(
        "INSERT INTO TARGET_INFO_NVTX_CUDA_STREAM VALUES (?1, 0, 1, 4242, 0, 1, ?2)",
        params![STREAM_NAME.1, STREAM_NAME.0],
    )?;
    let (start, stop) = ANALYSIS;
    tx.execute(
        "INSERT INTO ANALYSIS_DETAILS VALUES (281474976710656, ?1, ?2, ?3)",
        params![stop - start, start, stop],
    )?;
    let next: i64 = tx.query_row("SELECT coalesce(max(id), 0) + 1 FROM StringIds", [], |r| {
        r.get(0)
    })?;
    tx.execute(
        "INSERT INTO StringIds VALUES (?1, ?2), (?3, ?4)",
        params![next, OUTPUT.0, next + 1, OUTPUT.1],
    )?;
    tx.execute(
        "INSERT INTO ProcessStreams VALUES (?1, ?2, ?3)",
        params![4242_i64 << 24, next, next + 1],
    )?;
    write_cuda_devices_and_files(tx, next + 2)
}

/// `TARGET_INFO_CUDA_DEVICE`, and `ANALYSIS_FILE` with its texts in `StringIds` from id `next`.
fn write_cuda_devices_and_files(tx: &rusqlite::Transaction<'_>, next: i64) -> rusqlite::Result<()> {
    for (gpu, cuda, pid, uuid, sms) in CUDA_DEVICES {
        tx.execute(
            "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (?1, ?2, ?3, ?4, ?5)",
            params![gpu, cuda, pid, uuid, sms],
        )?;
    }
    for (i, (file, content)) in ANALYSIS_FILES.iter().enumerate() {
        let id = next + i as i64;
        tx.execute(
            "INSERT INTO StringIds VALUES (?1, ?2)",
            params![id, content],
        )?;
        tx.execute(
            "INSERT INTO ANALYSIS_FILE VALUES (?1, ?2, ?3, ?4)",
            params![i as i64, file, id, 4242_i64 << 24],
        )?;
    }
    Ok(())
}

/// Writes values of the wrong type into the summary's tables (after [`write_summary_tables`]):
/// an `ANALYSIS_DETAILS` duration and two `TARGET_INFO_CUDA_STREAM` stream ids that are text,
/// a `CpuCores` that is not a number and a `CpuInfo` that is not JSON.
pub fn write_odd_values(path: &Path) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    conn.execute_batch(
        "UPDATE ANALYSIS_DETAILS SET duration = 'long';
         UPDATE TARGET_INFO_CUDA_STREAM SET streamId = 'stream ' || streamId;
         UPDATE TARGET_INFO_SYSTEM_ENV SET value = 'many' WHERE name = 'CpuCores';
         UPDATE TARGET_INFO_SYSTEM_ENV SET value = '{\"items\": [' WHERE name = 'CpuInfo';",
    )
}

/// Replaces `table` by a view of the same name over its rows, moved to `{table}_rows` with the
/// time columns renamed (`start` → `t0`, `end` → `t1`, so that the moved table is no event
/// table of its own): the view reads exactly as the table did.
pub fn table_as_view(path: &Path, table: &str) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    let columns: Vec<String> = {
        let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
        stmt.query_map([], |r| r.get::<_, String>(1))?
            .collect::<rusqlite::Result<_>>()?
    };
    let moved = format!("{table}_rows");
    conn.execute_batch(&format!(
        "ALTER TABLE \"{table}\" RENAME TO \"{moved}\";
         ALTER TABLE \"{moved}\" RENAME COLUMN start TO t0;
         ALTER TABLE \"{moved}\" RENAME COLUMN end TO t1;"
    ))?;
    let select: Vec<String> = columns
        .iter()
        .map(|c| match c.as_str() {
            "start" => "t0 AS start".to_owned(),
            "end" => "t1 AS \"end\"".to_owned(),
            other => format!("\"{other}\""),
        })
        .collect();
    conn.execute_batch(&format!(
        "CREATE VIEW \"{table}\" AS SELECT {} FROM \"{moved}\";",
        select.join(", ")
    ))
}

/// Replaces `table` by a view of the same name whose definition does not read (it selects
/// from a table that does not exist).
pub fn broken_view(path: &Path, table: &str) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    conn.execute_batch(&format!(
        "DROP TABLE \"{table}\";
         CREATE VIEW \"{table}\" AS SELECT * FROM no_such_table;"
    ))
}

/// Adds a view named like no table of Nsight Systems (a tool's own, as Extra-P writes).
pub fn tool_view(path: &Path, name: &str) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    conn.execute_batch(&format!(
        "CREATE VIEW \"{name}\" AS SELECT count(*) AS kernels FROM CUPTI_ACTIVITY_KIND_KERNEL;"
    ))
}
