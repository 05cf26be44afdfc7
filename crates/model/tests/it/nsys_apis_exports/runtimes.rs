//! The `runtimes` export: OpenACC, OpenMP and MPI rows.

use std::path::Path;

use super::V::{self, I, N};
use super::{G, G2, G3, Writer};

/// OpenACC, OpenMP and MPI.
pub(super) fn runtimes(path: &Path) {
    let strings = [
        "",                // 0
        "Wait",            // 1
        "Enter Data",      // 2
        "/home/u/src/a.c", // 3
        "b.f90",           // 4
        "main",            // 5
        "Enqueue Launch",  // 6
        "omp parallel",    // 7
        "omp task",        // 8
        "MPI_Send",        // 9
        "MPI_Allreduce",   // 10
        "MPI_Wait",        // 11
        "MPI_Barrier",     // 12
        "MPI_Isend",       // 13
        "worker",          // 14
        "Alloc",           // 15
        "Create",          // 16
    ];
    let w = Writer::new(
        path,
        &[
            "CUPTI_ACTIVITY_KIND_OPENACC_DATA",
            "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
            "CUPTI_ACTIVITY_KIND_OPENACC_OTHER",
            "OPENMP_EVENT_KIND_PARALLEL",
            "OPENMP_EVENT_KIND_TASK",
            "OPENMP_EVENT_KIND_THREAD",
            "MPI_RANKS",
            "MPI_P2P_EVENTS",
            "MPI_COLLECTIVES_EVENTS",
            "MPI_START_WAIT_EVENTS",
            "MPI_OTHER_EVENTS",
        ],
        &strings,
    );
    w.rows("ThreadNames", &[&[I(14), I(1), I(G)]]);
    openacc(&w);
    openmp(&w);
    mpi(&w);
}

/// OpenACC data, other and launch events.
fn openacc(w: &Writer) {
    // OpenACC: start, end, nameId, globalTid, eventKind, DeviceType, lineNo, device, context,
    // stream, srcFile, funcName, then the table's own columns.
    let acc = |start, end, name, kind, line, file: V, extra: usize| -> Vec<V> {
        let mut r = vec![
            I(start),
            I(end),
            I(name),
            I(G),
            I(kind),
            I(4),
            I(line),
            I(0),
            I(1),
            I(2),
            file,
            I(5),
        ];
        r.extend(std::iter::repeat_n(N, extra));
        r
    };
    let data = [
        acc(0, 100, 1, 11, 10, I(3), 2),
        acc(0, 40, 2, 11, 10, I(3), 2),
        acc(0, 0, 2, 11, 7, I(4), 2),
        acc(5, 5, 1, 11, 7, I(4), 2),
        acc(0, 13, 2, 11, 3, N, 2),
        acc(0, 0, 16, 13, 57, I(4), 2),
        acc(0, 0, 15, 15, 57, I(4), 2),
        acc(0, 0, 16, 13, 57, I(4), 2),
    ];
    let refs: Vec<&[V]> = data.iter().map(|r| r.as_slice()).collect();
    w.rows("CUPTI_ACTIVITY_KIND_OPENACC_DATA", &refs);
    let other = [acc(0, 50, 1, 7, 10, I(3), 0), acc(0, 60, 1, 8, 10, I(3), 0)];
    let refs: Vec<&[V]> = other.iter().map(|r| r.as_slice()).collect();
    w.rows("CUPTI_ACTIVITY_KIND_OPENACC_OTHER", &refs);
    let launch = [acc(0, 0, 6, 4, 10, I(3), 4), acc(0, 23, 6, 4, 12, I(3), 4)];
    let refs: Vec<&[V]> = launch.iter().map(|r| r.as_slice()).collect();
    w.rows("CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", &refs);
}

/// OpenMP parallel regions, tasks and threads.
fn openmp(w: &Writer) {
    // OpenMP: the same name in two tables gives two rows (no equal totals: nsys orders those
    // differently from run to run).
    let omp = |start, end, name, kind| [I(start), I(end), I(78), I(G), I(0), I(name), I(kind)];
    let row = |base: [V; 7], extra: &[V]| -> Vec<V> { base.iter().chain(extra).copied().collect() };
    w.rows(
        "OPENMP_EVENT_KIND_PARALLEL",
        &[
            &row(omp(0, 100, 7, 1), &[I(1), I(0)]),
            &row(omp(0, 200, 7, 2), &[I(2), I(0)]),
            &row(omp(0, 50, 8, 1), &[I(3), I(0)]),
        ],
    );
    w.rows(
        "OPENMP_EVENT_KIND_TASK",
        &[
            &row(omp(0, 10, 7, 1), &[I(1), I(1), I(0)]),
            &row(omp(0, 21, 7, 1), &[I(1), I(2), I(1)]),
            &row(omp(0, 33, 8, 5), &[I(1), I(3), I(1)]),
        ],
    );
    w.rows(
        "OPENMP_EVENT_KIND_THREAD",
        &[&row(omp(0, 7, 7, 1), &[I(1), I(1)])],
    );
}

/// MPI ranks, point-to-point, collective, start/wait and other events.
fn mpi(w: &Writer) {
    w.rows("MPI_RANKS", &[&[I(G), I(0)], &[I(G3), I(1)]]);
    w.rows(
        "MPI_P2P_EVENTS",
        &[
            &[
                I(100),
                I(200),
                I(G3),
                I(9),
                I(5),
                I(7),
                I(1),
                I(1_500_000),
                N,
            ],
            &[
                I(100),
                I(160),
                I(G),
                I(13),
                I(5),
                I(8),
                I(0),
                I(2500),
                I(99),
            ],
            &[I(100), I(160), I(G), I(9), I(5), I(8), I(0), I(1500), N],
            &[I(150), I(160), I(G2), I(13), I(5), I(8), I(1), I(16), I(98)],
            &[I(600), I(700), I(G), I(9), I(5), I(7), I(1), N, N],
        ],
    );
    w.rows(
        "MPI_COLLECTIVES_EVENTS",
        &[
            &[
                I(100),
                I(400),
                I(G),
                I(10),
                I(5),
                N,
                I(3500),
                I(1_048_576),
                N,
            ],
            &[I(300), I(450), I(G3), I(10), I(5), I(0), I(8), I(16), N],
        ],
    );
    w.rows(
        "MPI_START_WAIT_EVENTS",
        &[
            &[I(100), I(180), I(G), I(11), I(99)],
            &[I(170), I(180), I(G3), I(11), I(98)],
        ],
    );
    w.rows(
        "MPI_OTHER_EVENTS",
        &[
            &[I(100), I(101), I(G), I(12)],
            &[I(500), N, I(G), I(12)],
            &[I(50), I(60), I((1 << 24) | 1), N],
        ],
    );
}
