//! The `network` export: NIC and InfiniBand switch metric samples for `network_congestion`.
//!
//! Send waits at, one above and far above the default threshold (10000), low values, NULL
//! values, a real value, NULL starts, ends and globalIds, gaps, rows inserted out of order,
//! equal starts across NICs and switches, other metrics, a metric named in other case, a metric
//! defined twice, NICs without NIC info or without a known device id, a map entry without NIC.

use std::path::Path;

use super::V::{self, I, N, R, T};
use super::Writer;

/// NIC globalIds: A and B are known NICs (B's globalId is below A's), C's NIC has an unknown
/// device id, D has no NIC info.
const NIC_A: i64 = 0x0100_0000_0002;
const NIC_B: i64 = 0x0100_0000_0001;
const NIC_C: i64 = 0x0100_0000_0003;
const NIC_D: i64 = 0x0100_0000_0004;
/// Switch globalIds (their GUIDs).
const SW_1: i64 = 0x248a_0703_00a0_b0c0;
const SW_2: i64 = 0x7cfe_9003_0011_2233;

/// Writes the export at `path`.
pub fn network(path: &Path) {
    let w = Writer::new(
        path,
        &[
            "TARGET_INFO_NETWORK_METRICS",
            "NET_NIC_METRIC",
            "NIC_ID_MAP",
            "TARGET_INFO_NIC_INFO",
            "ENUM_NET_DEVICE_ID",
            "NET_IB_SWITCH_METRIC",
        ],
        &[""],
    );
    metric_definitions(&w);
    nic_info(&w);
    samples(&w);
}

/// The metric lists: send waits in several lists, in other case and defined twice.
fn metric_definitions(w: &Writer) {
    let waits =
        "The number of ticks during which the port had data to transmit but no data was sent";
    w.rows(
        "TARGET_INFO_NETWORK_METRICS",
        &[
            &[
                I(1),
                I(0),
                T("IB: Bytes sent"),
                T("Bytes sent"),
                T("bytes/ms"),
            ],
            &[
                I(1),
                I(1),
                T("IB: Bytes received"),
                T("Bytes received"),
                T("bytes/ms"),
            ],
            &[I(1), I(2), T("IB: Send waits"), T(waits), T("ticks/ms")],
            &[I(2), I(0), T("IB: Send waits"), T(waits), T("ticks/ms")],
            &[
                I(2),
                I(1),
                T("IB: Packets sent"),
                T("Packets sent"),
                T("packets/ms"),
            ],
            &[I(3), I(0), T("ib: send waits"), T(waits), T("ticks/ms")],
            &[I(4), I(0), T("IB: Send waits"), T(waits), T("ticks/ms")],
            &[I(4), I(0), T("IB: Send waits"), T(waits), T("ticks/ms")],
        ],
    );
}

/// Device ids, NIC info (a GUID with the high bit set, an unknown device id) and the NIC map.
fn nic_info(w: &Writer) {
    w.rows(
        "ENUM_NET_DEVICE_ID",
        &[
            &[I(4123), T("CONNECTX6"), T("ConnectX-6")],
            &[I(4125), T("CONNECTX6DX"), T("ConnectX-6 Dx")],
            &[I(4129), T("CONNECTX7"), T("ConnectX-7")],
        ],
    );
    w.rows(
        "TARGET_INFO_NIC_INFO",
        &[
            &[
                I(0x0c42_a103_00b2_c3d4),
                T("Active"),
                I(0),
                T("mlx5_0"),
                I(4123),
                I(0x15b3),
                I(1),
            ],
            // A GUID with the high bit set (negative as an integer).
            &[
                I(0xb8ce_f603_00a1_b2c3_u64 as i64),
                T("Active"),
                I(1),
                T("mlx5_1"),
                I(4125),
                I(0x15b3),
                I(1),
            ],
            &[
                I(0x11),
                T("Down"),
                I(2),
                T("mlx5_2"),
                I(9999),
                I(0x15b3),
                I(1),
            ],
        ],
    );
    w.rows(
        "NIC_ID_MAP",
        &[
            &[I(0), I(NIC_A)],
            &[I(1), I(NIC_B)],
            &[I(2), I(NIC_C)],
            &[I(5), I(NIC_D)],
        ],
    );
}

/// NIC and switch samples.
fn samples(w: &Writer) {
    let nic = |start: V, end: V, g: i64, list: i64, idx: i64, value: V| -> Vec<V> {
        vec![start, end, I(g), I(1), I(list), I(idx), value]
    };
    let nics = [
        nic(I(5000), I(6000), NIC_A, 1, 2, I(25000)),
        nic(I(1000), I(2000), NIC_A, 1, 2, I(10000)),
        nic(I(2000), I(3000), NIC_A, 1, 2, I(10001)),
        nic(I(3000), I(4000), NIC_A, 1, 2, I(5)),
        nic(I(4000), I(5000), NIC_A, 1, 2, N),
        nic(I(2000), I(3000), NIC_A, 1, 0, I(999_999)),
        nic(I(2000), I(3000), NIC_B, 1, 2, I(20000)),
        nic(I(2000), I(2500), NIC_B, 1, 2, I(30000)),
        nic(I(6000), I(7000), NIC_B, 1, 2, R(15000.25)),
        nic(I(7000), N, NIC_B, 1, 2, I(40000)),
        nic(I(2000), I(3000), NIC_C, 1, 2, I(50000)),
        nic(I(2000), I(3000), NIC_D, 1, 2, I(50000)),
        nic(I(8000), I(9000), NIC_B, 4, 0, I(12000)),
        nic(I(8000), I(9000), NIC_A, 3, 0, I(60000)),
    ];
    let refs: Vec<&[V]> = nics.iter().map(|r| r.as_slice()).collect();
    w.rows("NET_NIC_METRIC", &refs);
    w.rows(
        "NET_IB_SWITCH_METRIC",
        &[
            &[I(2000), I(3000), I(SW_1), I(2), I(0), I(10001)],
            &[I(1500), I(2500), I(SW_2), I(2), I(0), I(20000)],
            &[I(2000), I(2400), I(SW_2), I(2), I(0), I(10002)],
            &[I(3000), I(4000), I(SW_1), I(2), I(0), I(10000)],
            &[N, I(3000), I(SW_1), I(2), I(0), I(12000)],
            &[I(4000), I(5000), I(SW_2), I(2), I(1), I(99999)],
            &[I(5000), I(6000), N, I(2), I(0), I(11000)],
            &[I(9000), I(10000), I(SW_1), I(2), I(0), I(10500)],
            &[I(9000), I(10000), I(SW_2), I(2), I(0), I(0)],
        ],
    );
}

/// Writes the `network_ib` export at `path`: InfiniBand switch samples only (no NIC tables),
/// two metric lists naming send waits, samples out of order with equal starts.
pub fn network_ib(path: &Path) {
    let w = Writer::new(
        path,
        &["TARGET_INFO_NETWORK_METRICS", "NET_IB_SWITCH_METRIC"],
        &[""],
    );
    w.rows(
        "TARGET_INFO_NETWORK_METRICS",
        &[
            &[
                I(7),
                I(0),
                T("IB: Packets sent"),
                T("Packets sent"),
                T("packets/ms"),
            ],
            &[
                I(7),
                I(1),
                T("IB: Send waits"),
                T("Send waits"),
                T("ticks/ms"),
            ],
            &[
                I(3),
                I(4),
                T("IB: Send waits"),
                T("Send waits"),
                T("ticks/ms"),
            ],
        ],
    );
    w.rows(
        "NET_IB_SWITCH_METRIC",
        &[
            &[I(300), I(400), I(SW_2), I(3), I(4), I(10001)],
            &[I(300), I(400), I(SW_1), I(7), I(1), I(10000)],
            &[I(300), I(400), I(SW_2), I(7), I(1), I(12000)],
            &[I(300), I(400), I(SW_1), I(7), I(1), I(11000)],
            &[I(100), I(200), I(SW_1), I(7), I(1), I(0)],
            &[I(100), I(300), I(-1), I(7), I(1), I(15000)],
            &[I(100), I(200), I(SW_1), I(7), I(0), I(80000)],
            &[I(200), I(300), I(SW_2), I(3), I(4), I(-3)],
        ],
    );
}
