//! A generator of one small Nsight Systems-shaped export (2024.5 layout, with
//! `ENUM_CUDA_MEM_KIND` and `greenContextId`) that gives every expert rule of `nsys analyze`
//! something to find, and its edge cases: synchronization calls (with equal durations),
//! asynchronous copies from and to pageable and pinned memory, synchronous copies of every
//! direction and of 64 KiB or less, memsets of pinned, managed and device memory, and GPU work
//! in bursts with short and long idle stretches, busy and idle chunks, overlapping kernels on
//! two streams, on two devices of two processes. Expected outputs of `nsys analyze` for it are
//! committed beside it (`fixtures/nsys/golden/analyze/`).

use std::path::Path;

use rusqlite::{Connection, params};

use crate::nsys::{MEMCPY_ENUM, SCHEMA, insert_enum, insert_strings};

/// Strings of the export: `StringIds` id = index.
const STRINGS: &[&str] = &[
    "cudaLaunchKernel_v7000",                  // 0
    "cudaDeviceSynchronize_v3020",             // 1
    "cudaStreamSynchronize_v3020",             // 2
    "cudaEventSynchronize_v3020",              // 3
    "cudaMemcpyAsync_v3020",                   // 4
    "cudaMemcpy_v3020",                        // 5
    "cudaMemset_v3020",                        // 6
    "cudaMemsetAsync_v3020",                   // 7
    "compute_kernel(float*, int)",             // 8
    "compute_kernel",                          // 9
    "reduce_kernel(float const*)",             // 10
    "reduce_kernel",                           // 11
    "main",                                    // 12
    "ID3D12Device::CreateHeap",                // 13
    "ID3D12Device::CreateCommittedResource",   // 14
    "ID3D12Resource::ReadFromSubresource",     // 15
    "ID3D12Resource::WriteToSubresource",      // 16
    "ID3D12Resource::Map",                     // 17
    "ID3D12Resource::Unmap",                   // 18
    "ID3D12Device4::CreateHeap1",              // 19
    "ID3D12Device8::CreateCommittedResource2", // 20
];

/// The DX12 tables (as 2023.4 exports them).
const DX12_SCHEMA: &str = "
CREATE TABLE DX12_API (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER,
  nameId INTEGER NOT NULL, shortContextId INTEGER, frameId INTEGER, color INTEGER, textId INTEGER,
  commandListType INTEGER, objectNameId INTEGER, longContextId INTEGER);
CREATE TABLE DX12_MEMORY_OPERATION (gpu INTEGER, rangeStart INTEGER, rangeEnd INTEGER,
  subresourceId INTEGER, heapType INTEGER, heapFlags INTEGER, cpuPageProperty INTEGER,
  nvApiFlags INTEGER, traceEventId INTEGER NOT NULL);
";

/// A DX12 call with a memory operation: string id of the call, heap type, heap flags, CPU page
/// property, mapped range.
type Dx12Op = (i64, i64, i64, i64, Option<(i64, i64)>);

/// DX12 memory operations: `(call, heap type, heap flags, CPU page property, range)`. Heap
/// types as exports number them (1 upload, 2 readback, 3 custom), page properties 2 write
/// combine and 3 write back, flag 0x1000 "create not zeroed".
const DX12_OPS: &[Dx12Op] = &[
    (13, 0, 0, 0, None),
    (13, 0, 0x1000, 0, None),
    (13, 0, 0x1004, 0, None),
    (13, 0, 4, 0, None),
    (14, 0, 0, 0, None),
    (14, 0, 0x1000, 0, None),
    (19, 0, 0, 0, None),
    (20, 0, 0, 0, None),
    (15, 1, 0, 0, None),
    (15, 3, 0, 2, None),
    (15, 2, 0, 0, None),
    (16, 2, 0, 0, None),
    (16, 3, 0, 3, None),
    (16, 1, 0, 0, None),
    (17, 1, 0, 0, Some((0, 100))),
    (17, 3, 0, 2, Some((0, 100))),
    (18, 2, 0, 0, Some((0, 100))),
    (18, 3, 0, 3, Some((0, 100))),
];

/// CUPTI's memory kinds as 2024.5 exports label them (`ENUM_CUDA_MEM_KIND`).
const MEM_KINDS: &[(&str, &str)] = &[
    ("CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"),
    ("CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"),
    ("CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"),
    ("CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"),
    ("CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"),
    ("CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"),
    ("CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"),
    ("CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"),
];
const PAGEABLE: i64 = 0;
const PINNED: i64 = 1;
const DEVICE: i64 = 2;
const MANAGED: i64 = 4;
const HTOD: i64 = 1;
const DTOH: i64 = 2;
const DTOD: i64 = 8;
const PTOP: i64 = 10;

/// Where GPU work runs: process, thread, device, context.
#[derive(Clone, Copy)]
struct Place {
    pid: i64,
    tid: i64,
    device: i64,
    context: i64,
}

const FIRST: Place = Place {
    pid: 4100,
    tid: 4101,
    device: 0,
    context: 1,
};
const SECOND: Place = Place {
    pid: 4200,
    tid: 4201,
    device: 1,
    context: 2,
};

/// The start of the GPU work (ns).
pub const T0: i64 = 1_000_000_000;
const MS: i64 = 1_000_000;

struct Writer<'a> {
    tx: &'a rusqlite::Transaction<'a>,
    correlation: i64,
}

impl Writer<'_> {
    /// An API call on the place's thread; returns its correlation id.
    fn call(&mut self, at: Place, name: i64, start: i64, end: i64) -> rusqlite::Result<i64> {
        self.correlation += 1;
        self.tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 0, ?3, ?4, ?5, 0, NULL)",
            params![start, end, (at.pid << 24) | at.tid, self.correlation, name],
        )?;
        Ok(self.correlation)
    }

    /// A kernel launched 5 µs before it starts.
    fn kernel(
        &mut self,
        at: Place,
        stream: i64,
        name: i64,
        start: i64,
        end: i64,
    ) -> rusqlite::Result<()> {
        let c = self.call(at, 0, start - 5_000, start - 2_000)?;
        self.tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, greenContextId, streamId,
               correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ,
               blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread,
               localMemoryTotal, gridId)
             VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7, ?8, ?9, 32, 128, 1, 1, 256, 1, 1, 0, 0, 0, 0, ?6)",
            params![start, end, at.device, at.context, stream, c, at.pid << 24, name, name + 1],
        )?;
        Ok(())
    }

    /// A copy and the call that issued it (the call spans the copy for synchronous APIs).
    #[allow(clippy::too_many_arguments)]
    fn copy(
        &mut self,
        at: Place,
        api: i64,
        (src, dst, kind): (i64, i64, i64),
        bytes: i64,
        start: i64,
        end: i64,
    ) -> rusqlite::Result<()> {
        // Real exports name the source and destination devices (and contexts) only for
        // peer-to-peer copies (here to the next device); other copies leave them NULL.
        let (src_device, dst_device) = if kind == PTOP {
            (
                Some((at.device, at.context)),
                Some((at.device + 1, at.context + 1)),
            )
        } else {
            (None, None)
        };
        let c = self.call(at, api, start - 3_000, end + 1_000)?;
        self.tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, greenContextId, streamId,
               correlationId, globalPid, bytes, copyKind, srcKind, dstKind, srcDeviceId, srcContextId,
               dstDeviceId, dstContextId)
             VALUES (?1, ?2, ?3, ?4, NULL, 7, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                start,
                end,
                at.device,
                at.context,
                c,
                at.pid << 24,
                bytes,
                kind,
                src,
                dst,
                src_device.map(|d| d.0),
                src_device.map(|d| d.1),
                dst_device.map(|d| d.0),
                dst_device.map(|d| d.1),
            ],
        )?;
        Ok(())
    }

    /// A memset and the call that issued it.
    fn memset(
        &mut self,
        at: Place,
        api: i64,
        mem: i64,
        bytes: i64,
        start: i64,
        end: i64,
    ) -> rusqlite::Result<()> {
        let c = self.call(at, api, start - 3_000, end + 1_000)?;
        self.tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, greenContextId, streamId,
               correlationId, globalPid, value, bytes, memKind)
             VALUES (?1, ?2, ?3, ?4, NULL, 13, ?5, ?6, 0, ?7, ?8)",
            params![start, end, at.device, at.context, c, at.pid << 24, bytes, mem],
        )?;
        Ok(())
    }
}

/// Writes the export at `path` (which must not exist).
pub fn write_expert(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA page_size=512; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;")?;
    conn.execute_batch(SCHEMA)?;
    conn.execute_batch(DX12_SCHEMA)?;
    conn.execute_batch(
        "CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);",
    )?;
    let tx = conn.transaction()?;
    insert_strings(&tx, STRINGS)?;
    insert_enum(&tx, "ENUM_CUDA_MEMCPY_OPER", MEMCPY_ENUM)?;
    insert_enum(&tx, "ENUM_CUDA_MEM_KIND", MEM_KINDS)?;
    tx.execute(
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2')",
        [],
    )?;
    for p in [FIRST, SECOND] {
        tx.execute(
            "INSERT INTO PROCESSES VALUES (?1, ?2, 'expert')",
            params![p.pid << 24, p.pid],
        )?;
        tx.execute(
            "INSERT INTO ThreadNames VALUES (12, 0, ?1)",
            params![(p.pid << 24) | p.tid],
        )?;
    }
    {
        let mut w = Writer {
            tx: &tx,
            correlation: 0,
        };
        gpu_work(&mut w)?;
        memory(&mut w)?;
        synchronization(&mut w)?;
    }
    dx12(&tx)?;
    tx.commit()
}

/// Bursts of kernels: 20 × 0.8 ms in 1 ms slots (busy), a 600 ms gap, 10 × 0.1 ms in 1 ms
/// slots (idle chunks), a 2 s gap, 5 ms kernels on two streams at once (over 100 %), short
/// gaps of 1.5 and 3 ms; on the second device, two kernels 700 ms apart.
fn gpu_work(w: &mut Writer<'_>) -> rusqlite::Result<()> {
    for i in 0..20 {
        let s = T0 + i * MS;
        w.kernel(FIRST, 7, 8, s, s + 800_000)?;
    }
    let burst2 = T0 + 620 * MS;
    for i in 0..10 {
        let s = burst2 + i * MS;
        w.kernel(FIRST, 7, 10, s, s + 100_000)?;
    }
    let burst3 = burst2 + 10 * MS + 2_000 * MS;
    for i in 0..5 {
        let s = burst3 + i * 5 * MS;
        w.kernel(FIRST, 7, 8, s, s + 5 * MS)?;
        w.kernel(FIRST, 13, 10, s + MS, s + 4 * MS)?;
    }
    let tail = burst3 + 25 * MS;
    w.kernel(FIRST, 7, 8, tail + 1_500_000, tail + 2_500_000)?;
    w.kernel(FIRST, 7, 8, tail + 5_500_000, tail + 6_000_000)?;
    w.kernel(SECOND, 20, 10, T0 + 100 * MS, T0 + 101 * MS)?;
    w.kernel(SECOND, 20, 10, T0 + 801 * MS, T0 + 802 * MS)?;
    Ok(())
}

/// The API of asynchronous copies (`cudaMemcpyAsync`).
const COPY_ASYNC: i64 = 4;
/// The API of synchronous copies (`cudaMemcpy`).
const COPY_SYNC: i64 = 5;
/// The API of synchronous memsets.
const SET_SYNC: i64 = 6;
/// The API of asynchronous memsets.
const SET_ASYNC: i64 = 7;

/// A row of [`COPIES`].
type CopyRow = (i64, (i64, i64, i64), i64, i64, i64);

/// The copies of [`memory`], in insertion order: API, (source, destination, kind), bytes,
/// start (ms after the section's start) and duration (ns).
///
/// Asynchronous: pageable on one side (found), pinned (not found). Synchronous: small
/// host-to-device copies (64 KiB and less: not found), a larger one, device-to-host (two of
/// equal length), device-to-device within the device (not found) and to the other device.
/// Then around the 64 KB limit (10^3 or 2^10?), and two more of equal length in time order.
const COPIES: &[CopyRow] = &[
    (COPY_ASYNC, (PAGEABLE, DEVICE, HTOD), 4_194_304, 0, 300_000),
    (COPY_ASYNC, (DEVICE, PAGEABLE, DTOH), 1_000_000, 1, 120_000),
    (COPY_ASYNC, (PINNED, DEVICE, HTOD), 4_194_304, 2, 250_000),
    (COPY_SYNC, (PAGEABLE, DEVICE, HTOD), 32_768, 3, 20_000),
    (COPY_SYNC, (PAGEABLE, DEVICE, HTOD), 65_536, 4, 21_000),
    (COPY_SYNC, (PAGEABLE, DEVICE, HTOD), 65_537, 5, 22_000),
    (COPY_SYNC, (DEVICE, PAGEABLE, DTOH), 2_000_000, 7, 180_000),
    (COPY_SYNC, (DEVICE, PINNED, DTOH), 2_000_000, 6, 180_000),
    (COPY_SYNC, (DEVICE, DEVICE, DTOD), 8_000_000, 8, 90_000),
    (COPY_SYNC, (DEVICE, DEVICE, PTOP), 8_000_000, 9, 95_000),
    (COPY_SYNC, (PAGEABLE, DEVICE, HTOD), 64_000, 14, 20_500),
    (COPY_SYNC, (PAGEABLE, DEVICE, HTOD), 64_001, 15, 20_600),
    (COPY_SYNC, (PAGEABLE, DEVICE, HTOD), 65_535, 18, 20_700),
    (COPY_SYNC, (DEVICE, PAGEABLE, DTOH), 500_000, 16, 60_000),
    (COPY_SYNC, (DEVICE, PAGEABLE, DTOH), 500_000, 17, 60_000),
];

/// The memsets of [`memory`], in insertion order: API, memory kind, bytes, start (ms after
/// the section's start) and duration (ns). Synchronous of pinned and managed memory (found),
/// of device memory and an asynchronous one of managed memory (not found).
const MEMSETS: &[(i64, i64, i64, i64, i64)] = &[
    (SET_SYNC, PINNED, 1_000_000, 10, 40_000),
    (SET_SYNC, MANAGED, 2_000_000, 11, 70_000),
    (SET_SYNC, DEVICE, 2_000_000, 12, 30_000),
    (SET_ASYNC, MANAGED, 2_000_000, 13, 50_000),
];

/// Copies and memsets between the first and second bursts.
fn memory(w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let t = T0 + 30 * MS;
    for &(api, kinds, bytes, at_ms, duration) in COPIES {
        let start = t + at_ms * MS;
        w.copy(FIRST, api, kinds, bytes, start, start + duration)?;
    }
    for &(api, mem, bytes, at_ms, duration) in MEMSETS {
        let start = t + at_ms * MS;
        w.memset(FIRST, api, mem, bytes, start, start + duration)?;
    }
    Ok(())
}

/// Synchronization calls on both threads: device and stream synchronizations (two of equal
/// length) and an event synchronization (not one the rule lists).
fn synchronization(w: &mut Writer<'_>) -> rusqlite::Result<()> {
    let t = T0 + 50 * MS;
    w.call(FIRST, 1, t, t + 5 * MS)?;
    w.call(FIRST, 2, t + 6 * MS, t + 7 * MS)?;
    w.call(FIRST, 2, t + 8 * MS, t + 9 * MS)?;
    w.call(FIRST, 3, t + 10 * MS, t + 13 * MS)?;
    w.call(SECOND, 1, t + 20 * MS, t + 22 * MS)?;
    Ok(())
}

/// DX12 calls with memory operations on the first thread, 10 µs apart (the call lasting
/// 100 ns more per row, so their order by duration is known).
fn dx12(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let t = T0 + 3_000 * MS;
    for (i, &(name, heap, flags, page, range)) in DX12_OPS.iter().enumerate() {
        let id = 1000 + i as i64;
        let start = t + i as i64 * 10_000;
        tx.execute(
            "INSERT INTO DX12_API (id, start, end, eventClass, globalTid, nameId) VALUES (?1, ?2, ?3, 41, ?4, ?5)",
            params![id, start, start + 1_000 + 100 * i as i64, (FIRST.pid << 24) | FIRST.tid, name],
        )?;
        tx.execute(
            "INSERT INTO DX12_MEMORY_OPERATION (gpu, rangeStart, rangeEnd, subresourceId, heapType,
               heapFlags, cpuPageProperty, nvApiFlags, traceEventId) VALUES (0, ?1, ?2, 0, ?3, ?4, ?5, 0, ?6)",
            params![range.map(|r| r.0), range.map(|r| r.1), heap, flags, page, id],
        )?;
    }
    Ok(())
}
