//! The exports of `nsys_stats_fixtures_apis`: a few rows in each table of the API, marker, MPI
//! and WDDM reports, in the tables and columns of an nsys 2023.4 export.

use std::path::Path;

use rusqlite::{Connection, params_from_iter};

mod network;
mod runtimes;
mod wddm;

/// Tables and their columns, as nsys 2023.4 exports them.
const SCHEMA: &[(&str, &str)] = &[
    ("StringIds", "id INTEGER PRIMARY KEY, value TEXT NOT NULL"),
    (
        "ThreadNames",
        "nameId INTEGER, priority INTEGER, globalTid INTEGER",
    ),
    (
        "VULKAN_API",
        "id INTEGER PRIMARY KEY, start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER, contextId INTEGER",
    ),
    (
        "VULKAN_WORKLOAD",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER, gpu INTEGER, contextId INTEGER, color INTEGER, textId INTEGER",
    ),
    (
        "VULKAN_DEBUG_API",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER, contextId INTEGER, color INTEGER, textId INTEGER",
    ),
    (
        "DX12_WORKLOAD",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER, shortContextId INTEGER, frameId INTEGER, gpu INTEGER, color INTEGER, textId INTEGER, commandListType INTEGER, objectNameId INTEGER, longContextId INTEGER",
    ),
    (
        "D3D11_PIX_DEBUG_API",
        "start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER, shortContextId INTEGER, frameId INTEGER, color INTEGER, textId INTEGER",
    ),
    (
        "D3D12_PIX_DEBUG_API",
        "start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, endCorrelationId INTEGER, nameId INTEGER, shortContextId INTEGER, frameId INTEGER, color INTEGER, textId INTEGER, commandListType INTEGER, objectNameId INTEGER, longContextId INTEGER",
    ),
    (
        "KHR_DEBUG_EVENTS",
        "eventClass INTEGER, start INTEGER, end INTEGER, textId INTEGER, globalTid INTEGER, source INTEGER, khrdType INTEGER, id INTEGER, severity INTEGER, correlationId INTEGER, context INTEGER",
    ),
    (
        "NVVIDEO_ENCODER_API",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER",
    ),
    (
        "NVVIDEO_DECODER_API",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER",
    ),
    (
        "NVVIDEO_JPEG_API",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER",
    ),
    (
        "CUPTI_ACTIVITY_KIND_OPENACC_DATA",
        "start INTEGER, end INTEGER, nameId INTEGER, globalTid INTEGER, eventKind INTEGER, DeviceType INTEGER, lineNo INTEGER, cuDeviceId INTEGER, cuContextId INTEGER, cuStreamId INTEGER, srcFile INTEGER, funcName INTEGER, bytes INTEGER, varName INTEGER",
    ),
    (
        "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
        "start INTEGER, end INTEGER, nameId INTEGER, globalTid INTEGER, eventKind INTEGER, DeviceType INTEGER, lineNo INTEGER, cuDeviceId INTEGER, cuContextId INTEGER, cuStreamId INTEGER, srcFile INTEGER, funcName INTEGER, numGangs INTEGER, numWorkers INTEGER, vectorLength INTEGER, kernelName INTEGER",
    ),
    (
        "CUPTI_ACTIVITY_KIND_OPENACC_OTHER",
        "start INTEGER, end INTEGER, nameId INTEGER, globalTid INTEGER, eventKind INTEGER, DeviceType INTEGER, lineNo INTEGER, cuDeviceId INTEGER, cuContextId INTEGER, cuStreamId INTEGER, srcFile INTEGER, funcName INTEGER",
    ),
    (
        "OPENMP_EVENT_KIND_PARALLEL",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER, eventKind INTEGER, parallelId INTEGER, parentTaskId INTEGER",
    ),
    (
        "OPENMP_EVENT_KIND_TASK",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER, eventKind INTEGER, parallelId INTEGER, taskId INTEGER, kind INTEGER",
    ),
    (
        "OPENMP_EVENT_KIND_THREAD",
        "start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER, eventKind INTEGER, threadId INTEGER, threadType INTEGER",
    ),
    ("MPI_RANKS", "globalTid INTEGER, rank INTEGER"),
    (
        "MPI_P2P_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, textId INTEGER, commHandle INTEGER, tag INTEGER, remoteRank INTEGER, size INTEGER, requestHandle INTEGER",
    ),
    (
        "MPI_COLLECTIVES_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, textId INTEGER, commHandle INTEGER, rootRank INTEGER, size INTEGER, recvSize INTEGER, requestHandle INTEGER",
    ),
    (
        "MPI_START_WAIT_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, textId INTEGER, requestHandle INTEGER",
    ),
    (
        "MPI_OTHER_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, textId INTEGER",
    ),
    (
        "TARGET_INFO_WDDM_CONTEXTS",
        "context INTEGER, engineType INTEGER, nodeOrdinal INTEGER, friendlyName TEXT",
    ),
    (
        "WDDM_QUEUE_PACKET_START_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, gpu INTEGER, context INTEGER, dmaBufferSize INTEGER, dmaBuffer INTEGER, queuePacket INTEGER, progressFenceValue INTEGER, packetType INTEGER, submitSequence INTEGER, allocationListSize INTEGER, patchLocationListSize INTEGER, present INTEGER, engineType INTEGER, syncObject INTEGER",
    ),
    (
        "WDDM_QUEUE_PACKET_STOP_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, gpu INTEGER, context INTEGER, queuePacket INTEGER, packetType INTEGER, submitSequence INTEGER, preempted INTEGER, timeouted INTEGER, engineType INTEGER",
    ),
    (
        "WDDM_DMA_PACKET_START_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, gpu INTEGER, context INTEGER, queuePacketContext INTEGER, uliSubmissionId INTEGER, dmaBuffer INTEGER, packetType INTEGER, ulQueueSubmitSequence INTEGER, quantumStatus INTEGER, engineType INTEGER",
    ),
    (
        "WDDM_DMA_PACKET_STOP_EVENTS",
        "start INTEGER, end INTEGER, globalTid INTEGER, gpu INTEGER, context INTEGER, uliCompletionId INTEGER, packetType INTEGER, ulQueueSubmitSequence INTEGER, preempted INTEGER, engineType INTEGER",
    ),
    (
        "NET_IB_SWITCH_METRIC",
        "start INTEGER, end INTEGER, globalId INTEGER, metricsListId INTEGER, metricsIdx INTEGER, value INTEGER",
    ),
    (
        "TARGET_INFO_NETWORK_METRICS",
        "metricsListId INTEGER, metricsIdx INTEGER, name TEXT, description TEXT, unit TEXT",
    ),
    (
        "NET_NIC_METRIC",
        "start INTEGER, end INTEGER, globalId INTEGER, portId INTEGER, metricsListId INTEGER, metricsIdx INTEGER, value INTEGER",
    ),
    ("NIC_ID_MAP", "nicId INTEGER, globalId INTEGER"),
    (
        "TARGET_INFO_NIC_INFO",
        "GUID INTEGER, stateName TEXT, nicId INTEGER, name TEXT, deviceId INTEGER, vendorId INTEGER, linkLayer INTEGER",
    ),
    ("ENUM_NET_DEVICE_ID", "id INTEGER, name TEXT, label TEXT"),
];

/// A cell to insert: NULL, an integer, a real or text.
#[derive(Clone, Copy)]
pub(crate) enum V {
    N,
    I(i64),
    R(f64),
    T(&'static str),
}

impl rusqlite::ToSql for V {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value};
        Ok(ToSqlOutput::Owned(match *self {
            V::N => Value::Null,
            V::I(i) => Value::Integer(i),
            V::R(f) => Value::Real(f),
            V::T(t) => Value::Text(t.to_string()),
        }))
    }
}

use V::{I, N, T};

/// Thread 778 and 779 of process 777, thread 901 of process 900.
const G: i64 = (777 << 24) | 778;
const G2: i64 = (777 << 24) | 779;
const G3: i64 = (900 << 24) | 901;

pub(crate) struct Writer {
    conn: Connection,
}

impl Writer {
    pub(crate) fn new(path: &Path, tables: &[&str], strings: &[&'static str]) -> Writer {
        let conn = Connection::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        conn.execute_batch("PRAGMA page_size=512; PRAGMA journal_mode=OFF;")
            .unwrap_or_else(|e| panic!("pragmas: {e}"));
        let w = Writer { conn };
        for name in ["StringIds", "ThreadNames"].iter().chain(tables) {
            let (_, cols) = SCHEMA
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("no schema for {name}"));
            w.conn
                .execute_batch(&format!("CREATE TABLE {name} ({cols});"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        for (i, s) in strings.iter().enumerate() {
            w.rows("StringIds", &[&[I(i as i64), T(s)]]);
        }
        w
    }

    /// Inserts rows of all columns of `table`, in order.
    pub(crate) fn rows(&self, table: &str, rows: &[&[V]]) {
        for row in rows {
            let marks = vec!["?"; row.len()].join(", ");
            self.conn
                .execute(
                    &format!("INSERT INTO {table} VALUES ({marks})"),
                    params_from_iter(row.iter()),
                )
                .unwrap_or_else(|e| panic!("{table}: {e}"));
        }
    }
}

/// Writes export `name` at `path` (which must not exist).
pub fn write_export(name: &str, path: &Path) {
    match name {
        "graphics" => graphics(path),
        "runtimes" => runtimes::runtimes(path),
        "wddm" => wddm::wddm(path),
        "network" => network::network(path),
        "network_ib" => network::network_ib(path),
        _ => empty(path),
    }
}

/// Vulkan calls, markers and GPU workloads, PIX markers, KHR debug ranges, NvVideo calls.
fn graphics(path: &Path) {
    let strings = [
        "",                    // 0
        "vkQueueSubmit_v1000", // 1
        "vkCreateDevice",      // 2
        "vkCmdDraw_v2",        // 3
        "worker",              // 4
        "zz",                  // 5
        "aa",                  // 6
        "mm",                  // 7
        "aa",                  // 8 (the same text, another id)
        "frame",               // 9
        "shadow",              // 10
        "BeginEvent",          // 11
        "EndEvent",            // 12
        "render",              // 13
        "nvEncEncodePicture",  // 14
        "cuvidDecodePicture",  // 15
        "nvjpegDecode",        // 16
        "nvEncLock_v1234",     // 17
    ];
    let w = Writer::new(
        path,
        &[
            "VULKAN_API",
            "VULKAN_WORKLOAD",
            "VULKAN_DEBUG_API",
            "DX12_WORKLOAD",
            "D3D11_PIX_DEBUG_API",
            "D3D12_PIX_DEBUG_API",
            "KHR_DEBUG_EVENTS",
            "NVVIDEO_ENCODER_API",
            "NVVIDEO_DECODER_API",
            "NVVIDEO_JPEG_API",
        ],
        &strings,
    );
    w.rows("ThreadNames", &[&[I(4), I(5), I(G)], &[I(13), I(7), I(G3)]]);
    vulkan_calls(&w);
    cpu_markers(&w);
    gpu_workloads(&w);
    khr_debug(&w);
    nvvideo(&w);
}

/// Vulkan API calls: several classes, threads and contexts.
fn vulkan_calls(w: &Writer) {
    // id, start, end, eventClass, globalTid, correlationId, endCorrelationId, nameId, contextId
    w.rows(
        "VULKAN_API",
        &[
            &[I(5), I(100), I(400), I(53), I(G), I(1), I(1), I(1), I(5)],
            &[I(3), I(100), I(130), I(53), I(G2), I(2), I(2), I(2), I(5)],
            &[I(4), I(100), I(117), I(53), I(G3), I(3), I(3), I(3), I(7)],
            &[I(1), I(500), I(900), I(60), I(G), N, N, I(2), N],
            &[I(2), I(10), I(20), I(66), I(G), I(4), I(4), I(3), I(7)],
            &[I(6), I(30), I(31), I(0), I(G), I(0), I(0), I(1), I(0)],
            &[I(7), I(40), I(49), I(54), I(G2), I(0), I(0), I(2), I(0)],
            &[I(8), I(1000), I(1017), I(53), I(G), I(5), I(5), I(3), I(0)],
            &[I(9), I(2000), I(2010), I(53), I(G), I(6), I(6), I(2), I(0)],
        ],
    );
}

/// CPU markers of D3D11 and D3D12 PIX and Vulkan debug labels: the same begin/end rows in
/// each table's columns.
fn cpu_markers(w: &Writer) {
    // CPU markers: begin (text) and end (no text) on a thread with one correlationId.
    let pix = |start, end, corr, gtid, name, text: V| -> Vec<V> {
        vec![
            I(start),
            I(end),
            I(gtid),
            I(corr),
            I(corr),
            I(name),
            I(9),
            I(1),
            I(0xff00ff00),
            text,
        ]
    };
    let mut d11: Vec<Vec<V>> = vec![
        pix(0, 10, 1, G, 11, I(9)),
        pix(100, 110, 1, G, 12, N),
        pix(200, 203, 2, G, 11, I(10)),
        pix(250, 260, 2, G, 12, N),
        pix(300, 301, 3, G, 11, I(10)),
        pix(400, 405, 3, G, 12, N),
        pix(500, 505, 4, G, 11, I(9)),
        pix(600, 601, 5, G2, 11, I(9)),
        pix(700, 702, 5, G, 12, N),
        pix(800, 805, 6, G, 11, I(13)),
        pix(900, 905, 6, G, 12, N),
        pix(950, 955, 6, G, 12, N),
    ];
    for (c, text) in [5, 6, 7, 8].into_iter().enumerate() {
        let c = 10 + c as i64;
        d11.push(pix(1000, 1005, c, G2, 11, I(text)));
        d11.push(pix(1015, 1020, c, G2, 12, N));
    }
    let refs: Vec<&[V]> = d11.iter().map(|r| r.as_slice()).collect();
    w.rows("D3D11_PIX_DEBUG_API", &refs);
    let d12: Vec<Vec<V>> = d11
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.extend([I(0), N, I(0)]);
            r
        })
        .collect();
    let refs: Vec<&[V]> = d12.iter().map(|r| r.as_slice()).collect();
    w.rows("D3D12_PIX_DEBUG_API", &refs);
    // Vulkan debug labels: start, end, eventClass, globalTid, corr, endCorr, nameId,
    // contextId, color, textId.
    let vk: Vec<Vec<V>> = d11
        .iter()
        .map(|r| vec![r[0], r[1], I(66), r[2], r[3], r[4], r[5], I(9), r[8], r[9]])
        .collect();
    let refs: Vec<&[V]> = vk.iter().map(|r| r.as_slice()).collect();
    w.rows("VULKAN_DEBUG_API", &refs);
}

/// Vulkan and DX12 GPU workloads.
fn gpu_workloads(w: &Writer) {
    // GPU workloads: rows with a text are ranges.
    let gpu = [
        (0, 77, 54, I(9)),
        (0, 33, 53, I(10)),
        (0, 11, 54, I(13)),
        (100, 105, 54, I(13)),
        (0, 40, 54, N),
        (0, 10, 54, I(5)),
        (0, 10, 54, I(6)),
        (0, 10, 54, I(7)),
        (0, 10, 54, I(8)),
    ];
    for (s, e, class, text) in gpu {
        w.rows(
            "VULKAN_WORKLOAD",
            &[&[
                I(s),
                I(e),
                I(class),
                I(G),
                I(1),
                I(1),
                I(1),
                I(0),
                I(9),
                I(1),
                text,
            ]],
        );
        w.rows(
            "DX12_WORKLOAD",
            &[&[
                I(s),
                I(e),
                I(class - 12),
                I(G),
                I(1),
                I(1),
                I(1),
                I(9),
                I(1),
                I(0),
                I(1),
                text,
                I(0),
                N,
                I(0),
            ]],
        );
    }
}

/// KHR debug events: ranges, open ranges and markers.
fn khr_debug(w: &Writer) {
    // KHR: eventClass, start, end, textId, globalTid, source, type, id, severity, corr, context.
    let khr = |class, start, end: V, text: V| -> Vec<V> {
        vec![
            I(class),
            I(start),
            end,
            text,
            I(G),
            I(1),
            I(1),
            I(0),
            I(1),
            I(0),
            I(1),
        ]
    };
    let khr_rows = [
        khr(62, 0, I(10), I(5)),
        khr(62, 0, I(10), I(6)),
        khr(62, 0, I(10), I(7)),
        khr(62, 0, I(10), I(8)),
        khr(62, 5, N, I(7)),
        khr(62, 0, I(10), N),
        khr(62, 0, I(100), I(9)),
        khr(63, 0, I(1000), I(10)),
        khr(63, 7, N, I(9)),
        khr(63, 0, I(10), I(5)),
        khr(52, 0, I(3000), I(13)),
        khr(57, 5000, N, I(13)),
    ];
    let refs: Vec<&[V]> = khr_rows.iter().map(|r| r.as_slice()).collect();
    w.rows("KHR_DEBUG_EVENTS", &refs);
}

/// NvVideo encoder, decoder and JPEG calls.
fn nvvideo(w: &Writer) {
    let nv = |start, end, class, name| [I(start), I(end), I(class), I(G), I(name)];
    w.rows(
        "NVVIDEO_ENCODER_API",
        &[
            &nv(0, 100, 83, 14),
            &nv(0, 300, 83, 14),
            &nv(0, 7, 83, 17),
            &nv(0, 3, 83, 6),
            &nv(0, 3, 83, 5),
        ],
    );
    w.rows(
        "NVVIDEO_DECODER_API",
        &[&nv(0, 50, 86, 15), &nv(0, 3, 86, 7), &nv(0, 3, 86, 6)],
    );
    w.rows(
        "NVVIDEO_JPEG_API",
        &[&nv(0, 20, 89, 16), &nv(0, 3, 89, 5), &nv(0, 3, 89, 6)],
    );
}

/// Every table the reports read, without rows: no rows, or nsys's message.
fn empty(path: &Path) {
    let tables: Vec<&str> = SCHEMA
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| *n != "StringIds" && *n != "ThreadNames")
        .collect();
    Writer::new(path, &tables, &[""]);
}
