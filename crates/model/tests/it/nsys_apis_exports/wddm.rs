//! The `wddm` export: WDDM queue and DMA packets on two processes.

use std::path::Path;

use super::V::{self, I, N, T};
use super::{G, G3, Writer};

/// WDDM queue and DMA packets on two processes, with packets that never stop.
pub(super) fn wddm(path: &Path) {
    let w = Writer::new(
        path,
        &[
            "TARGET_INFO_WDDM_CONTEXTS",
            "WDDM_QUEUE_PACKET_START_EVENTS",
            "WDDM_QUEUE_PACKET_STOP_EVENTS",
            "WDDM_DMA_PACKET_START_EVENTS",
            "WDDM_DMA_PACKET_STOP_EVENTS",
        ],
        &[""],
    );
    contexts(&w);
    queue_packets(&w);
    dma_packets(&w);
}

/// The WDDM contexts: one per engine type of process 777, and two more.
fn contexts(w: &Writer) {
    let names = [
        "FN0", "FN1", "FN2", "FN3", "FN4", "FN5", "FN6", "FN7", "FN8",
    ];
    for (i, name) in names.into_iter().enumerate() {
        let i = i as i64;
        w.rows(
            "TARGET_INFO_WDDM_CONTEXTS",
            &[&[I(0x20 + i), I(i), I(i), T(name)]],
        );
    }
    w.rows(
        "TARGET_INFO_WDDM_CONTEXTS",
        &[
            &[I(0xabc), I(1), I(0), T("A")],
            &[I(0xdef), I(6), I(2), T("B")],
        ],
    );
}

/// Queue packets: one per context and engine type, then overlapping packets on one queue, a
/// start without stop and a stop without start.
fn queue_packets(w: &Writer) {
    let qs = |at, ctx, seq, packet, et, gpu, g| -> Vec<V> {
        vec![
            I(at),
            I(at),
            I(g),
            I(gpu),
            I(ctx),
            I(100),
            I(1),
            I(packet),
            I(seq),
            I(seq % 3),
            I(seq),
            I(0),
            I(0),
            I(0),
            I(et),
            N,
        ]
    };
    let qe = |at, ctx, seq, packet, et, gpu, g| -> Vec<V> {
        vec![
            I(at),
            I(at),
            I(g),
            I(gpu),
            I(ctx),
            I(packet),
            I(seq % 3),
            I(seq),
            I(0),
            I(0),
            I(et),
        ]
    };
    let mut starts = Vec::new();
    let mut stops = Vec::new();
    // One packet per context of process 777, each engine type (the packet's, not the
    // context's, names the row).
    for i in 0..9i64 {
        let seq = 100 + i;
        starts.push(qs(1000 * i, 0x20 + i, seq, seq, (i + 1) % 9, i % 2, G));
        stops.push(qe(
            1000 * i + 100 * (i + 1),
            0x20 + i,
            seq,
            seq,
            (i + 1) % 9,
            i % 2,
            G,
        ));
    }
    // Overlapping packets on one queue, a start without stop, a stop without start.
    starts.extend([
        qs(0, 0xabc, 1, 500, 1, 0, G),
        qs(100, 0xabc, 2, 501, 1, 0, G),
        qs(1000, 0xabc, 3, 502, 1, 0, G),
        qs(60, 0xabc, 4, 503, 1, 0, G),
        qs(50, 0xdef, 1, 600, 6, 0, G3),
    ]);
    stops.extend([
        qe(200, 0xabc, 2, 501, 1, 0, G),
        qe(300, 0xabc, 1, 500, 1, 0, G),
        qe(1100, 0xabc, 3, 502, 1, 0, G),
        qe(90, 0xdef, 1, 600, 6, 0, G3),
        qe(20000, 0xabc, 9, 999, 1, 0, G),
    ]);
    let refs: Vec<&[V]> = starts.iter().map(|r| r.as_slice()).collect();
    w.rows("WDDM_QUEUE_PACKET_START_EVENTS", &refs);
    let refs: Vec<&[V]> = stops.iter().map(|r| r.as_slice()).collect();
    w.rows("WDDM_QUEUE_PACKET_STOP_EVENTS", &refs);
}

/// DMA packets on two contexts.
fn dma_packets(w: &Writer) {
    let ds = |at, ctx, seq, et| {
        [
            I(at),
            I(at),
            I(G),
            I(0),
            I(ctx),
            I(ctx),
            I(seq),
            I(1),
            I(0),
            I(seq),
            I(0),
            I(et),
        ]
    };
    let de = |at, ctx, seq, et| {
        [
            I(at),
            I(at),
            I(G),
            I(0),
            I(ctx),
            I(seq),
            I(0),
            I(seq),
            I(0),
            I(et),
        ]
    };
    w.rows(
        "WDDM_DMA_PACKET_START_EVENTS",
        &[&ds(10, 0xabc, 1, 1), &ds(400, 0xdef, 2, 6)],
    );
    w.rows(
        "WDDM_DMA_PACKET_STOP_EVENTS",
        &[&de(20, 0xabc, 1, 1), &de(700, 0xdef, 2, 6)],
    );
}
