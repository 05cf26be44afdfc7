//! A generator of Nsight Systems-shaped exports (the tables and columns of a 2024.5 export):
//! kernels on several streams with the API calls that launched them, nested NVTX ranges,
//! memcpy and memset, OS runtime calls. Deterministic for a given seed. Used for fixtures,
//! benchmarks (1 M, 10 M events) and fuzzing seeds.

use std::path::Path;

use rusqlite::{Connection, params};

use crate::nsys_cpu::{CpuCounts, CpuOptions, write_cpu};
use crate::rng::Rng;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthOptions {
    /// Approximate number of events (all kinds; the generator stops at the first iteration
    /// boundary past it).
    pub events: u64,
    /// CPU threads issuing work (one process).
    pub threads: u32,
    /// CUDA streams.
    pub streams: u32,
    /// Random seed.
    pub seed: u64,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            events: 1000,
            threads: 2,
            streams: 4,
            seed: 1,
        }
    }
}

/// Rows written per table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SynthCounts {
    /// CUPTI_ACTIVITY_KIND_RUNTIME rows.
    pub runtime: u64,
    /// CUPTI_ACTIVITY_KIND_KERNEL rows.
    pub kernels: u64,
    /// CUPTI_ACTIVITY_KIND_MEMCPY rows.
    pub memcpy: u64,
    /// CUPTI_ACTIVITY_KIND_MEMSET rows.
    pub memset: u64,
    /// NVTX_EVENTS rows (push/pop, start/end and the domain's creation).
    pub nvtx: u64,
    /// OSRT_API rows.
    pub osrt: u64,
}

impl SynthCounts {
    /// All event rows.
    pub fn total(&self) -> u64 {
        self.runtime + self.kernels + self.memcpy + self.memset + self.nvtx + self.osrt
    }
}

pub(crate) const SCHEMA: &str = "
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER,
  ctxswDevPath TEXT, ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER,
  maxIPC INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER,
  maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER,
  maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER,
  maxBlockDimY INTEGER, maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER,
  computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL,
  mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER,
  graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,
  dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,
  graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER,
  callchainId INTEGER NOT NULL);
";

pub(crate) const MEMCPY_ENUM: &[(&str, &str)] = &[
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
];

/// Strings the generator uses, by StringIds id.
const STRINGS: &[&str] = &[
    "cudaLaunchKernel_v7000",      // 0
    "cudaMemcpyAsync_v3020",       // 1
    "cudaMemsetAsync_v3020",       // 2
    "cudaStreamSynchronize_v3020", // 3
    "ioctl",                       // 4
    "poll",                        // 5
    "pthread_mutex_lock",          // 6
    "sightline-synth",             // 7
    "void gemm_kernel<float, 128>(const float *, const float *, float *, int)", // 8
    "gemm_kernel",                 // 9
    "void reduce_kernel<256>(float *, int)", // 10
    "reduce_kernel",               // 11
    "elementwise_add(float *, const float *, int)", // 12
    "elementwise_add",             // 13
    "softmax_kernel(float *, int, int)", // 14
    "softmax_kernel",              // 15
    "iteration",                   // 16
    "forward",                     // 17
    "backward",                    // 18
];

const PID: i64 = 4242;

/// Writes a new export at `path` (which must not exist) and returns the rows written.
pub fn write_export(path: &Path, options: &SynthOptions) -> rusqlite::Result<SynthCounts> {
    write_export_with_cpu(path, options, &CpuOptions::default()).map(|(c, _)| c)
}

/// [`write_export`] with CPU samples and scheduling events on the generated threads
/// ([`crate::nsys_cpu`]; none when `cpu` is the default, which writes the same bytes as
/// [`write_export`]).
pub fn write_export_with_cpu(
    path: &Path,
    options: &SynthOptions,
    cpu: &CpuOptions,
) -> rusqlite::Result<(SynthCounts, CpuCounts)> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.transaction()?;
    let (counts, end) = fill(&tx, options)?;
    let threads: Vec<i64> = (0..i64::from(options.threads.max(1)))
        .map(|t| global_tid(PID + t))
        .collect();
    let cpu_counts = write_cpu(
        &tx,
        cpu,
        options.seed,
        STRINGS.len() as i64,
        &threads,
        (START, end),
    )?;
    tx.commit()?;
    Ok((counts, cpu_counts))
}

/// The first thread's first event starts about here.
const START: i64 = 1_000_000;

fn global_tid(tid: i64) -> i64 {
    (PID << 24) | tid
}

/// Inserts `strings` into `StringIds`, each with its index as id.
pub(crate) fn insert_strings(
    tx: &rusqlite::Transaction<'_>,
    strings: &[&str],
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare("INSERT INTO StringIds VALUES (?1, ?2)")?;
    for (i, s) in strings.iter().enumerate() {
        insert.execute(params![i as i64, s])?;
    }
    Ok(())
}

/// Inserts `(name, label)` rows into the `ENUM_*` table `table`, each with its index as id.
pub(crate) fn insert_enum(
    tx: &rusqlite::Transaction<'_>,
    table: &str,
    rows: &[(&str, &str)],
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare(&format!("INSERT INTO {table} VALUES (?1, ?2, ?3)"))?;
    for (i, (name, label)) in rows.iter().enumerate() {
        insert.execute(params![i as i64, name, label])?;
    }
    Ok(())
}

/// Writes the rows; returns their counts and the time the last thread's work ends.
fn fill(tx: &rusqlite::Transaction<'_>, o: &SynthOptions) -> rusqlite::Result<(SynthCounts, i64)> {
    write_metadata(tx, o)?;
    let mut inserts = Inserts::prepare(tx)?;
    let threads = o.threads.max(1) as usize;
    let mut state = FillState {
        rng: Rng(o.seed.max(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        streams: o.streams.max(1) as i64,
        stream_free: vec![0; o.streams.max(1) as usize],
        c: SynthCounts::default(),
        correlation: 1,
        grid_id: 1,
    };
    let mut thread_time: Vec<i64> = (0..threads as i64).map(|t| START + t * 1_000).collect();
    let mut iteration: u64 = 0;
    // A second NVTX domain with start/end ranges.
    tx.execute(
        "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId) VALUES (500000, 75, 'synth.io', ?1, 1)",
        params![global_tid(PID)],
    )?;
    state.c.nvtx += 1;
    while state.c.total() < o.events {
        let t = (iteration % threads as u64) as usize;
        iteration += 1;
        let iter_end = state.iteration(&mut inserts, t, iteration, thread_time[t])?;
        thread_time[t] = iter_end + state.rng.range(1_000, 10_000);
    }
    let end = thread_time.iter().copied().max().unwrap_or(START);
    Ok((state.c, end))
}

/// The strings, enums, export metadata, session, GPU, process and thread names.
fn write_metadata(tx: &rusqlite::Transaction<'_>, o: &SynthOptions) -> rusqlite::Result<()> {
    insert_strings(tx, STRINGS)?;
    insert_enum(tx, "ENUM_CUDA_MEMCPY_OPER", MEMCPY_ENUM)?;
    for (id, name, label) in [
        (0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"),
        (27, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OSRT runtime"),
    ] {
        tx.execute(
            "INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (?1, ?2, ?3)",
            params![id, name, label],
        )?;
    }
    for (k, v) in [
        ("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"),
        ("EXPORT_PRODUCT_VERSION", "2024.5.1.113"),
        ("EXPORT_SCHEMA_VERSION", "3.13.2"),
        ("EXPORT_SCHEMA_VERSION_MAJOR", "3"),
        ("EXPORT_SCHEMA_VERSION_MINOR", "13"),
        ("EXPORT_SCHEMA_VERSION_MICRO", "2"),
        ("EXPORT_PLATFORM", "linux-desktop"),
        ("EXPORT_ARCH", "x64"),
    ] {
        tx.execute(
            "INSERT INTO META_DATA_EXPORT VALUES (?1, ?2)",
            params![k, v],
        )?;
    }
    tx.execute(
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '2023-11-14 22:13:20', '2023-11-14 22:13:20')",
        [],
    )?;
    tx.execute(
        "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, smCount, computeMajor, computeMinor, totalMemory, clockRate, threadsPerWarp)
         VALUES (0, 0, 'Synthetic GPU 80GB', '0000:01:00.0', 1, 108, 8, 0, 85899345920, 1410000000, 32)",
        [],
    )?;
    tx.execute(
        "INSERT INTO PROCESSES VALUES (?1, ?2, 'synth_app')",
        params![PID << 24, PID],
    )?;
    for t in 0..o.threads.max(1) {
        let tid = PID + i64::from(t);
        tx.execute(
            "INSERT INTO ThreadNames VALUES (7, 0, ?1)",
            params![global_tid(tid)],
        )?;
    }
    Ok(())
}

/// The prepared inserts of the generated events.
struct Inserts<'c> {
    runtime: rusqlite::Statement<'c>,
    kernel: rusqlite::Statement<'c>,
    memcpy: rusqlite::Statement<'c>,
    memset: rusqlite::Statement<'c>,
    nvtx: rusqlite::Statement<'c>,
    osrt: rusqlite::Statement<'c>,
    nvtx_range: rusqlite::Statement<'c>,
}

impl<'c> Inserts<'c> {
    /// Prepares every insert.
    fn prepare(tx: &'c rusqlite::Transaction<'_>) -> rusqlite::Result<Inserts<'c>> {
        Ok(Inserts {
            runtime: tx.prepare(
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 0, ?3, ?4, ?5, 0, NULL)",
            )?,
            kernel: tx.prepare(
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, 0, 1, NULL, ?3, ?4, ?5, ?6, ?7, NULL, 0, 0, ?8,
         ?9, 1, 1, ?10, 1, 1, 0, 0, 0, 0, ?11, 0, NULL, 0)",
            )?,
            memcpy: tx.prepare(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?1, ?2, 0, 1, NULL, ?3, ?4, ?5, ?6, ?7, NULL, 0, 0, 0, 1, 0, 1, NULL, NULL, NULL)",
            )?,
            memset: tx.prepare(
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?1, ?2, 0, 1, NULL, ?3, ?4, ?5, 0, ?6, NULL, 0)",
            )?,
            nvtx: tx.prepare(
                "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, color) VALUES (?1, ?2, 59, ?3, ?4, 0, ?5)",
            )?,
            osrt: tx.prepare("INSERT INTO OSRT_API VALUES (?1, ?2, 27, ?3, ?4, 0, 0, 0)")?,
            nvtx_range: tx.prepare(
                "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, endGlobalTid, domainId, uint64Value)
         VALUES (?1, ?2, 60, ?3, ?4, ?5, ?5, 1, ?3)",
            )?,
        })
    }
}

/// The generator's state between events.
struct FillState {
    rng: Rng,
    streams: i64,
    /// When each stream's last GPU work ends.
    stream_free: Vec<i64>,
    c: SynthCounts,
    correlation: i64,
    grid_id: i64,
}

impl FillState {
    /// One iteration of thread `t` starting at `now`: a forward and a backward phase of
    /// launches inside an `iteration` range, and every eighth iteration a start/end range.
    /// Returns when the iteration ends.
    fn iteration(
        &mut self,
        ins: &mut Inserts<'_>,
        t: usize,
        iteration: u64,
        mut now: i64,
    ) -> rusqlite::Result<i64> {
        let gtid = global_tid(PID + t as i64);
        let iter_start = now;
        // Nested phases inside the iteration range.
        let mut phase_rows = Vec::new();
        for phase in ["forward", "backward"] {
            let phase_start = now + self.rng.range(100, 500);
            now = phase_start;
            let launches = self.rng.range(2, 6);
            for _ in 0..launches {
                now = self.launch(ins, gtid, now)?;
            }
            now += self.rng.range(100, 500);
            phase_rows.push((phase_start, now, phase));
        }
        let iter_end = now + self.rng.range(100, 1_000);
        let color: i64 = 0xFF00_80FF;
        ins.nvtx
            .execute(params![iter_start, iter_end, "iteration", gtid, color])?;
        for (s, e, name) in phase_rows {
            ins.nvtx.execute(params![s, e, name, gtid, color])?;
        }
        self.c.nvtx += 3;
        if iteration % 8 == 1 {
            let s = iter_start + self.rng.range(0, 1_000);
            let e = iter_end + self.rng.range(10_000, 200_000);
            let text = if iteration % 16 == 1 {
                "prefetch"
            } else {
                "checkpoint"
            };
            ins.nvtx_range
                .execute(params![s, e, iteration as i64, text, gtid])?;
            self.c.nvtx += 1;
        }
        Ok(iter_end)
    }

    /// One runtime call after `now` and the GPU work it launches (a kernel, or one in ten a
    /// memcpy or a memset), sometimes followed by an OS runtime call. Returns when the CPU
    /// side ends.
    fn launch(&mut self, ins: &mut Inserts<'_>, gtid: i64, now: i64) -> rusqlite::Result<i64> {
        let rng = &mut self.rng;
        let start = now + rng.range(200, 2_000);
        let end = start + rng.range(2_000, 8_000);
        let stream = rng.range(0, self.streams);
        let which = rng.range(0, 4);
        let kernel_names = (8 + 2 * which, 9 + 2 * which);
        let launch_kind = rng.range(0, 10);
        let (api_name, gpu_kind) = match launch_kind {
            0 => (1, 1),
            1 => (2, 2),
            _ => (0, 0),
        };
        ins.runtime
            .execute(params![start, end, gtid, self.correlation, api_name])?;
        self.c.runtime += 1;
        let gpu_start = (end + rng.range(1_000, 5_000)).max(self.stream_free[stream as usize]);
        let gpu_end = gpu_start + rng.range(1_000, 60_000);
        self.stream_free[stream as usize] = gpu_end;
        self.gpu_work(
            ins,
            gpu_kind,
            (gpu_start, gpu_end),
            7 + stream,
            kernel_names,
        )?;
        self.correlation += 1;
        let mut now = end;
        if self.rng.range(0, 4) == 0 {
            let s = now + self.rng.range(100, 1_000);
            let e = s + self.rng.range(500, 20_000);
            ins.osrt
                .execute(params![s, e, gtid, 4 + self.rng.range(0, 3)])?;
            self.c.osrt += 1;
            now = e;
        }
        Ok(now)
    }

    /// The GPU side of a launch: a memcpy (`gpu_kind` 1), a memset (2) or a kernel named
    /// `(demangled, short)`.
    fn gpu_work(
        &mut self,
        ins: &mut Inserts<'_>,
        gpu_kind: i64,
        (gpu_start, gpu_end): (i64, i64),
        stream_id: i64,
        (demangled, short): (i64, i64),
    ) -> rusqlite::Result<()> {
        let pid_global = PID << 24;
        let correlation = self.correlation;
        match gpu_kind {
            1 => {
                let bytes = self.rng.range(1, 64) * 65_536;
                let kind = 1 + self.rng.range(0, 2);
                ins.memcpy.execute(params![
                    gpu_start,
                    gpu_end,
                    stream_id,
                    correlation,
                    pid_global,
                    bytes,
                    kind
                ])?;
                self.c.memcpy += 1;
            }
            2 => {
                let bytes = self.rng.range(1, 64) * 4_096;
                ins.memset.execute(params![
                    gpu_start,
                    gpu_end,
                    stream_id,
                    correlation,
                    pid_global,
                    bytes
                ])?;
                self.c.memset += 1;
            }
            _ => {
                let grid = self.rng.range(1, 1_024);
                let block = 32 * self.rng.range(1, 33);
                let regs = self.rng.range(16, 255);
                ins.kernel.execute(params![
                    gpu_start,
                    gpu_end,
                    stream_id,
                    correlation,
                    pid_global,
                    demangled,
                    short,
                    regs,
                    grid,
                    block,
                    self.grid_id
                ])?;
                self.grid_id += 1;
                self.c.kernels += 1;
            }
        }
        Ok(())
    }
}
