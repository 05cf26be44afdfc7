//! A generated MPI run: one Nsight Systems-shaped export per rank, with the `MPI_*` tables
//! written with the columns of the corpus's exports (schema 3.7.2), and the answers a test
//! checks: which send matches which receive ([`MESSAGES`]), which rank is the straggler of each
//! collective ([`COLLECTIVES`]), and how each rank's number is recorded ([`RankSource`]).
//!
//! The run ([`RANKS`] = 4 ranks, one thread each, all on one clock):
//! - a ring of `MPI_Send`/`MPI_Recv` (tag 7, rank r to r + 1);
//! - two `MPI_Isend`s of rank 0 to rank 1 with the same tag, received by two `MPI_Irecv`s in
//!   order (MPI's non-overtaking rule), each completed by an `MPI_Wait` on its request;
//! - a send of rank 2 to rank 3 received with `MPI_ANY_SOURCE` (-2) and `MPI_ANY_TAG` (-1);
//! - a sub-communicator of ranks 3 and 1 (local ranks 0 and 1, each rank with its own handle,
//!   described in `MPI_COMMUNICATORS`), rank 3 sending to local rank 1;
//! - a send of rank 1 to rank 0 that no receive matches;
//! - `MPI_Barrier` and two `MPI_Allreduce`s over `MPI_COMM_WORLD` with a known last arrival.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};

/// Ranks of the run.
pub const RANKS: usize = 4;

/// The handle of `MPI_COMM_WORLD` in every rank (MPICH's value).
pub const WORLD: i64 = 0x4400_0000;

/// The handle each rank has for the sub-communicator of ranks 3 and 1 (none for 0 and 2).
pub const SUB_HANDLES: [i64; RANKS] = [0, 0x8400_0001, 0, 0x8400_0003];

/// How a rank's number is written in its export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankSource {
    /// `MPI_RANKS` maps its thread to the rank.
    MpiRanks,
    /// Only the environment (`OMPI_COMM_WORLD_RANK` in `TARGET_INFO_SYSTEM_ENV`).
    Environment,
    /// Only an NVTX mark "MPI Rank N".
    NvtxMark,
}

/// How each rank's number is recorded.
pub const RANK_SOURCES: [RankSource; RANKS] = [
    RankSource::MpiRanks,
    RankSource::MpiRanks,
    RankSource::Environment,
    RankSource::NvtxMark,
];

/// One point-to-point call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct P2p {
    /// The calling rank.
    pub rank: usize,
    /// Its name ("MPI_Send").
    pub name: &'static str,
    /// Start and end (ns from the session start).
    pub start: i64,
    /// End (ns).
    pub end: i64,
    /// The communicator handle as the calling rank knows it.
    pub comm: i64,
    /// The tag (-1: any).
    pub tag: i64,
    /// The peer, as a rank of the communicator (-2: any source).
    pub remote: i64,
    /// Bytes.
    pub size: i64,
    /// The request of a non-blocking call.
    pub request: Option<i64>,
}

const fn p2p(
    rank: usize,
    name: &'static str,
    (start, end): (i64, i64),
    (comm, tag, remote, size): (i64, i64, i64, i64),
    request: Option<i64>,
) -> P2p {
    P2p {
        rank,
        name,
        start,
        end,
        comm,
        tag,
        remote,
        size,
        request,
    }
}

/// Every point-to-point call of the run.
pub const P2P: &[P2p] = &[
    // 0–7: the ring (sends first, then the receives).
    p2p(0, "MPI_Send", (1_000, 1_400), (WORLD, 7, 1, 1024), None),
    p2p(1, "MPI_Send", (1_010, 1_410), (WORLD, 7, 2, 2048), None),
    p2p(2, "MPI_Send", (1_020, 1_420), (WORLD, 7, 3, 3072), None),
    p2p(3, "MPI_Send", (1_030, 1_430), (WORLD, 7, 0, 4096), None),
    p2p(0, "MPI_Recv", (1_500, 1_900), (WORLD, 7, 3, 4096), None),
    p2p(1, "MPI_Recv", (1_500, 1_900), (WORLD, 7, 0, 1024), None),
    p2p(2, "MPI_Recv", (1_500, 1_900), (WORLD, 7, 1, 2048), None),
    p2p(3, "MPI_Recv", (1_500, 1_900), (WORLD, 7, 2, 3072), None),
    // 8–11: two non-blocking messages of one (source, destination, tag), received in order.
    p2p(0, "MPI_Isend", (3_000, 3_050), (WORLD, 5, 1, 100), Some(11)),
    p2p(0, "MPI_Isend", (3_100, 3_150), (WORLD, 5, 1, 200), Some(12)),
    p2p(1, "MPI_Irecv", (2_900, 2_950), (WORLD, 5, 0, 100), Some(21)),
    p2p(1, "MPI_Irecv", (2_960, 3_010), (WORLD, 5, 0, 200), Some(22)),
    // 12–13: a receive from any source with any tag.
    p2p(2, "MPI_Send", (4_000, 4_100), (WORLD, 9, 3, 64), None),
    p2p(3, "MPI_Recv", (3_900, 4_200), (WORLD, -1, -2, 64), None),
    // 14–15: the sub-communicator {3, 1}: rank 3 (local 0) sends to local rank 1 (rank 1).
    p2p(
        3,
        "MPI_Send",
        (5_000, 5_100),
        (SUB_HANDLES[3], 11, 1, 512),
        None,
    ),
    p2p(
        1,
        "MPI_Recv",
        (4_950, 5_150),
        (SUB_HANDLES[1], 11, 0, 512),
        None,
    ),
    // 16: a send nothing receives.
    p2p(1, "MPI_Send", (6_000, 6_010), (WORLD, 99, 0, 8), None),
];

/// The messages: (index of the send, index of the receive) in [`P2P`].
pub const MESSAGES: &[(usize, usize)] = &[
    (0, 5),
    (1, 6),
    (2, 7),
    (3, 4),
    (8, 10),
    (9, 11),
    (12, 13),
    (14, 15),
];

/// The waits of the non-blocking calls: (rank, start, end, request).
pub const WAITS: &[(usize, i64, i64, i64)] = &[
    (0, 3_200, 3_300, 11),
    (0, 3_310, 3_320, 12),
    (1, 3_200, 3_400, 21),
    (1, 3_410, 3_420, 22),
];

/// One collective: its name, and each rank's (start, end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Collective {
    /// "MPI_Allreduce".
    pub name: &'static str,
    /// Each rank's call (start, end).
    pub calls: [(i64, i64); RANKS],
    /// Bytes sent and received per rank.
    pub size: i64,
    /// The rank that arrived last.
    pub straggler: usize,
}

/// The collectives over `MPI_COMM_WORLD`, in call order on every rank.
pub const COLLECTIVES: &[Collective] = &[
    Collective {
        name: "MPI_Barrier",
        calls: [
            (7_000, 7_500),
            (7_100, 7_500),
            (7_400, 7_510),
            (7_050, 7_500),
        ],
        size: 0,
        straggler: 2,
    },
    Collective {
        name: "MPI_Allreduce",
        calls: [
            (8_000, 9_000),
            (8_600, 9_000),
            (8_100, 9_010),
            (8_200, 9_000),
        ],
        size: 4096,
        straggler: 1,
    },
    Collective {
        name: "MPI_Allreduce",
        calls: [
            (10_000, 10_300),
            (10_050, 10_300),
            (10_010, 10_300),
            (10_250, 10_310),
        ],
        size: 8192,
        straggler: 3,
    },
];

/// The process id of `rank`.
pub fn pid(rank: usize) -> i64 {
    1000 + i64::try_from(rank).unwrap_or(0)
}

/// The serialized globalTid of `rank`'s one thread (machine 0, thread id = process id).
pub fn global_tid(rank: usize) -> i64 {
    (pid(rank) << 24) | pid(rank)
}

/// The columns of the corpus's `MPI_*` tables (exported by Nsight Systems 2023.4.4, schema 3.7.2).
const MPI_SCHEMA: &str = "
CREATE TABLE MPI_COMMUNICATORS (rank INTEGER, timestamp INTEGER, commHandle INTEGER,
  parentHandle INTEGER, localRank INTEGER, size INTEGER, groupRoot INTEGER,
  groupRootUid INTEGER, members TEXT);
CREATE TABLE MPI_RANKS (globalTid INTEGER NOT NULL, rank INTEGER NOT NULL);
CREATE TABLE MPI_P2P_EVENTS (start INTEGER NOT NULL, end INTEGER, globalTid INTEGER,
  textId INTEGER, commHandle INTEGER, tag INTEGER, remoteRank INTEGER, size INTEGER,
  requestHandle INTEGER);
CREATE TABLE MPI_COLLECTIVES_EVENTS (start INTEGER NOT NULL, end INTEGER, globalTid INTEGER,
  textId INTEGER, commHandle INTEGER, rootRank INTEGER, size INTEGER, recvSize INTEGER,
  requestHandle INTEGER);
CREATE TABLE MPI_START_WAIT_EVENTS (start INTEGER NOT NULL, end INTEGER, globalTid INTEGER,
  textId INTEGER, requestHandle INTEGER);
CREATE TABLE MPI_OTHER_EVENTS (start INTEGER NOT NULL, end INTEGER, globalTid INTEGER,
  textId INTEGER);
";

/// The other tables of a rank's export.
const BASE_SCHEMA: &str = "
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER NOT NULL, devStateName TEXT NOT NULL,
  name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
";

/// The file name of `rank`'s export.
pub fn file_name(rank: usize) -> String {
    format!("mpi_run.{rank}.sqlite")
}

/// Writes the run's exports into `dir` (one per rank, [`file_name`]); returns their paths in
/// rank order.
pub fn write_mpi_run(dir: &Path) -> rusqlite::Result<Vec<PathBuf>> {
    (0..RANKS)
        .map(|rank| {
            let path = dir.join(file_name(rank));
            write_rank(&path, rank)?;
            Ok(path)
        })
        .collect()
}

/// The string id of `name` in a rank's `StringIds`, added when new.
fn string_id(strings: &mut Vec<String>, name: &str) -> i64 {
    let at = strings.iter().position(|s| s == name).unwrap_or_else(|| {
        strings.push(name.to_owned());
        strings.len() - 1
    });
    i64::try_from(at).unwrap_or(0)
}

/// Writes `rank`'s export.
pub fn write_rank(path: &Path, rank: usize) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(BASE_SCHEMA)?;
    conn.execute_batch(MPI_SCHEMA)?;
    let tx = conn.transaction()?;
    let gtid = global_tid(rank);
    let pid = pid(rank);
    let mut strings: Vec<String> = vec![String::new(), "solver".into()];
    tx.execute(
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.0')",
        [],
    )?;
    tx.execute(
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '')",
        [],
    )?;
    tx.execute(
        "INSERT INTO PROCESSES VALUES (?1, ?2, 'solver')",
        params![pid << 24, pid],
    )?;
    tx.execute("INSERT INTO ThreadNames VALUES (1, 0, ?1)", params![gtid])?;
    tx.execute(
        "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'Local (CLI)', 'Hostname', 1, ?1)",
        params![format!("node{rank}")],
    )?;
    match RANK_SOURCES[rank] {
        RankSource::MpiRanks => {
            tx.execute(
                "INSERT INTO MPI_RANKS VALUES (?1, ?2)",
                params![gtid, i64::try_from(rank).unwrap_or(0)],
            )?;
        }
        RankSource::Environment => {
            tx.execute(
                "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'Local (CLI)', 'DeviceEnvironment', 610, ?1)",
                params![format!("SLURM_GPUS_PER_TASK=1;OMPI_COMM_WORLD_RANK={rank}")],
            )?;
        }
        RankSource::NvtxMark => {
            tx.execute(
                "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid) VALUES (500, 34, ?1, ?2)",
                params![format!("MPI Rank {rank}"), gtid],
            )?;
        }
    }
    write_communicators(&tx, rank)?;
    for call in P2P.iter().filter(|c| c.rank == rank) {
        let name = string_id(&mut strings, call.name);
        tx.execute(
            "INSERT INTO MPI_P2P_EVENTS VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                call.start,
                call.end,
                gtid,
                name,
                call.comm,
                call.tag,
                call.remote,
                call.size,
                call.request
            ],
        )?;
    }
    let wait = string_id(&mut strings, "MPI_Wait");
    for &(_, start, end, request) in WAITS.iter().filter(|w| w.0 == rank) {
        tx.execute(
            "INSERT INTO MPI_START_WAIT_EVENTS VALUES (?1, ?2, ?3, ?4, ?5)",
            params![start, end, gtid, wait, request],
        )?;
    }
    for c in COLLECTIVES {
        let name = string_id(&mut strings, c.name);
        let (start, end) = c.calls[rank];
        tx.execute(
            "INSERT INTO MPI_COLLECTIVES_EVENTS VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6, NULL)",
            params![start, end, gtid, name, WORLD, c.size],
        )?;
    }
    let init = string_id(&mut strings, "MPI_Init");
    let finalize = string_id(&mut strings, "MPI_Finalize");
    tx.execute(
        "INSERT INTO MPI_OTHER_EVENTS VALUES (100, 400, ?1, ?2), (11_000, 11_200, ?1, ?3)",
        params![gtid, init, finalize],
    )?;
    for (id, value) in strings.iter().enumerate() {
        tx.execute(
            "INSERT INTO StringIds VALUES (?1, ?2)",
            params![i64::try_from(id).unwrap_or(0), value],
        )?;
    }
    tx.commit()
}

/// `MPI_COMMUNICATORS` rows: `MPI_COMM_WORLD`, and the sub-communicator for ranks 3 and 1
/// (its root is rank 3, local rank 0).
fn write_communicators(tx: &rusqlite::Transaction<'_>, rank: usize) -> rusqlite::Result<()> {
    let r = i64::try_from(rank).unwrap_or(0);
    let n = i64::try_from(RANKS).unwrap_or(0);
    tx.execute(
        "INSERT INTO MPI_COMMUNICATORS VALUES (?1, 50, ?2, NULL, ?1, ?3, 0, ?2, '0,1,2,3')",
        params![r, WORLD, n],
    )?;
    let sub = SUB_HANDLES[rank];
    if sub != 0 {
        let local = if rank == 3 { 0 } else { 1 };
        tx.execute(
            "INSERT INTO MPI_COMMUNICATORS VALUES (?1, 60, ?2, ?3, ?4, 2, 3, ?5, '3,1')",
            params![r, sub, WORLD, local, SUB_HANDLES[3]],
        )?;
    }
    Ok(())
}
