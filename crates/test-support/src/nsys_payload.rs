//! Nsight Systems-shaped exports with NVTX extended payloads: the payload schema and enum
//! tables of schema 3.25+ (`NVTX_PAYLOAD_SCHEMAS`, `NVTX_PAYLOAD_SCHEMA_ENTRIES`,
//! `NVTX_PAYLOAD_ENUMS`, `NVTX_PAYLOAD_ENUM_ENTRIES`, columns as the 2026 schema reference
//! gives them) and NVTX ranges whose `binaryData` is nsys's 32-byte header (u32 domain id, u32
//! reserved, u32 schema id, u32 reserved, u64 payload size, u64 total size) and the payload.
//! [`Bytes`] lays payloads out as a C compiler would (natural alignment), so a test writes the
//! values it then expects decoded. Layout facts: `notes/nvtx-payload.md` (unverified on a real
//! export).

use std::path::Path;

use rusqlite::{Connection, params};

/// The process of every row.
pub const PID: i64 = 5151;
/// The thread of every row.
pub const TID: i64 = 5152;

/// One entry of a schema (a row of `NVTX_PAYLOAD_SCHEMA_ENTRIES`).
#[derive(Debug, Clone, Default)]
pub struct EntrySpec {
    /// `NVTX_PAYLOAD_ENTRY_FLAG_*`.
    pub flags: u64,
    /// Entry type: predefined, or a schema or enum id.
    pub ty: u64,
    /// Its name (`None`: NULL).
    pub name: Option<String>,
    /// `arrayOrUnionDetail`.
    pub detail: u64,
    /// `offset` (`None`: NULL).
    pub offset: Option<u64>,
}

/// An entry of type `ty` named `name`, with no flags.
pub fn entry(ty: u64, name: &str) -> EntrySpec {
    EntrySpec {
        ty,
        name: Some(name.into()),
        ..EntrySpec::default()
    }
}

impl EntrySpec {
    /// The same entry with `flags`.
    pub fn flags(mut self, flags: u64) -> EntrySpec {
        self.flags = flags;
        self
    }

    /// The same entry with `arrayOrUnionDetail` = `detail`.
    pub fn detail(mut self, detail: u64) -> EntrySpec {
        self.detail = detail;
        self
    }

    /// The same entry at byte `offset`.
    pub fn offset(mut self, offset: u64) -> EntrySpec {
        self.offset = Some(offset);
        self
    }
}

/// A payload schema (a row of `NVTX_PAYLOAD_SCHEMAS` and its entries).
#[derive(Debug, Clone, Default)]
pub struct SchemaSpec {
    /// `domainId`.
    pub domain: u64,
    /// `schemaId`.
    pub id: u64,
    /// `name`.
    pub name: Option<String>,
    /// `type` (1 static, 2 dynamic, 3 union, 4 union with internal selector).
    pub kind: u64,
    /// `payloadSize`.
    pub size: Option<u64>,
    /// `alignTo`.
    pub align: Option<u64>,
    /// The entries, written with their index.
    pub entries: Vec<EntrySpec>,
}

/// A payload enum (a row of `NVTX_PAYLOAD_ENUMS` and its entries).
#[derive(Debug, Clone, Default)]
pub struct EnumSpec {
    /// `domainId`.
    pub domain: u64,
    /// `schemaId`.
    pub id: u64,
    /// `name`.
    pub name: Option<String>,
    /// `size` in bytes.
    pub size: u64,
    /// `(name, value, isFlag)`.
    pub entries: Vec<(String, u64, bool)>,
}

/// One NVTX push/pop range with a binary payload.
#[derive(Debug, Clone, Default)]
pub struct PayloadRow {
    /// Its text.
    pub name: String,
    /// Start (ns).
    pub start: i64,
    /// End (ns).
    pub end: i64,
    /// `domainId`.
    pub domain: u64,
    /// The whole `binaryData` value (see [`blob`]).
    pub binary: Vec<u8>,
    /// Store the bytes with TEXT storage class instead of BLOB (the column is declared TEXT).
    pub as_text: bool,
}

/// A kernel launched from the payload thread: the launch call (`CUPTI_ACTIVITY_KIND_RUNTIME`)
/// and the kernel it ran (`CUPTI_ACTIVITY_KIND_KERNEL`, device 0, stream 7), linked by their
/// correlation id.
#[derive(Debug, Clone, Default)]
pub struct KernelLaunch {
    /// The launch call's name (`cudaLaunchKernel_v7000`).
    pub call: String,
    /// The call's start and end (ns).
    pub call_span: (i64, i64),
    /// The kernel's demangled name.
    pub kernel: String,
    /// The kernel's start and end (ns).
    pub kernel_span: (i64, i64),
    /// The correlation id linking them.
    pub correlation: i64,
}

/// What [`write_payload_export`] writes.
#[derive(Debug, Clone, Default)]
pub struct PayloadExport {
    /// Payload schemas.
    pub schemas: Vec<SchemaSpec>,
    /// Payload enums.
    pub enums: Vec<EnumSpec>,
    /// NVTX domains created (`eventType` 75 rows): `(domain id, name)`.
    pub domains: Vec<(u64, String)>,
    /// NVTX ranges with payloads, on one thread.
    pub rows: Vec<PayloadRow>,
    /// Write every schema and enum row twice (as when several processes register them).
    pub twice: bool,
    /// Kernels launched on the same thread.
    pub launches: Vec<KernelLaunch>,
}

/// `payload` behind nsys's 32-byte header.
pub fn blob(domain: u32, schema: u64, payload: &[u8]) -> Vec<u8> {
    let size = payload.len() as u64;
    let mut out = Vec::with_capacity(32 + payload.len());
    out.extend_from_slice(&domain.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&schema.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&(32 + size).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// A payload being laid out: each value at its natural alignment, little-endian.
#[derive(Debug, Clone, Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// Pads with zeros to a multiple of `align`.
    pub fn align(mut self, align: usize) -> Bytes {
        while !self.0.len().is_multiple_of(align.max(1)) {
            self.0.push(0);
        }
        self
    }

    /// `bytes` at the next multiple of `align`.
    pub fn put(self, align: usize, bytes: &[u8]) -> Bytes {
        let mut b = self.align(align);
        b.0.extend_from_slice(bytes);
        b
    }

    /// A little-endian unsigned integer of `size` bytes (the low bytes of `v`).
    pub fn uint(self, size: usize, v: u128) -> Bytes {
        self.put(size, &v.to_le_bytes()[..size])
    }

    /// A little-endian signed integer of `size` bytes.
    pub fn int(self, size: usize, v: i128) -> Bytes {
        self.put(size, &v.to_le_bytes()[..size])
    }

    /// An f32.
    pub fn f32(self, v: f32) -> Bytes {
        self.put(4, &v.to_le_bytes())
    }

    /// An f64.
    pub fn f64(self, v: f64) -> Bytes {
        self.put(8, &v.to_le_bytes())
    }

    /// Raw bytes, unaligned.
    pub fn raw(mut self, bytes: &[u8]) -> Bytes {
        self.0.extend_from_slice(bytes);
        self
    }
}

const PAYLOAD_SCHEMA: &str = "
CREATE TABLE NVTX_PAYLOAD_SCHEMAS (domainId INTEGER, schemaId INTEGER, name TEXT, type INTEGER,
  flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER);
CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER NOT NULL,
  idx INTEGER NOT NULL, flags INTEGER, type INTEGER, name TEXT, description TEXT,
  arrayOrUnionDetail INTEGER, offset INTEGER);
CREATE TABLE NVTX_PAYLOAD_ENUMS (domainId INTEGER, schemaId INTEGER, name TEXT, numEntries INTEGER,
  size INTEGER);
CREATE TABLE NVTX_PAYLOAD_ENUM_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER NOT NULL,
  idx INTEGER NOT NULL, name TEXT, value INTEGER, isFlag INTEGER);
";

/// Writes a new export at `path` (which must not exist) holding `spec`.
pub fn write_payload_export(path: &Path, spec: &PayloadExport) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(crate::nsys::SCHEMA)?;
    conn.execute_batch(PAYLOAD_SCHEMA)?;
    let tx = conn.transaction()?;
    tx.execute(
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0')",
        [],
    )?;
    let gtid = (PID << 24) | TID;
    tx.execute(
        "INSERT INTO PROCESSES VALUES (?1, ?2, 'payloads')",
        params![PID << 24, PID],
    )?;
    for (id, name) in &spec.domains {
        tx.execute(
            "INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId) VALUES (0, 75, ?1, ?2, ?3)",
            params![name, gtid, *id as i64],
        )?;
    }
    for _ in 0..if spec.twice { 2 } else { 1 } {
        write_schemas(&tx, spec)?;
    }
    for row in &spec.rows {
        let sql = if row.as_text {
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, binaryData) \
             VALUES (?1, ?2, 59, ?3, ?4, ?5, CAST(?6 AS TEXT))"
        } else {
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, binaryData) \
             VALUES (?1, ?2, 59, ?3, ?4, ?5, ?6)"
        };
        tx.execute(
            sql,
            params![
                row.start,
                row.end,
                row.name,
                gtid,
                row.domain as i64,
                row.binary
            ],
        )?;
    }
    write_launches(&tx, &spec.launches)?;
    tx.commit()
}

/// The launch calls and kernels, their names in `StringIds`.
fn write_launches(
    tx: &rusqlite::Transaction<'_>,
    launches: &[KernelLaunch],
) -> rusqlite::Result<()> {
    let gtid = (PID << 24) | TID;
    let mut id: i64 = tx.query_row("SELECT coalesce(max(id), -1) + 1 FROM StringIds", [], |r| {
        r.get(0)
    })?;
    let mut string = |text: &str| -> rusqlite::Result<i64> {
        let existing: Option<i64> = tx
            .query_row("SELECT id FROM StringIds WHERE value = ?1", [text], |r| {
                r.get(0)
            })
            .ok();
        if let Some(e) = existing {
            return Ok(e);
        }
        tx.execute("INSERT INTO StringIds VALUES (?1, ?2)", params![id, text])?;
        id += 1;
        Ok(id - 1)
    };
    for l in launches {
        let call = string(&l.call)?;
        let kernel = string(&l.kernel)?;
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 0, ?3, ?4, ?5, 0, NULL)",
            params![l.call_span.0, l.call_span.1, gtid, l.correlation, call],
        )?;
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, 0, 1, NULL, 7, ?3, ?4, ?5, ?5,
             NULL, 0, 0, 32, 8, 1, 1, 512, 1, 1, 0, 0, 0, 0, ?3, 0, NULL, 0)",
            params![
                l.kernel_span.0,
                l.kernel_span.1,
                l.correlation,
                PID << 24,
                kernel
            ],
        )?;
    }
    Ok(())
}

fn write_schemas(tx: &rusqlite::Transaction<'_>, spec: &PayloadExport) -> rusqlite::Result<()> {
    for s in &spec.schemas {
        tx.execute(
            "INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7)",
            params![
                s.domain as i64,
                s.id as i64,
                s.name,
                s.kind as i64,
                s.entries.len() as i64,
                s.size.map(|v| v as i64),
                s.align.map(|v| v as i64)
            ],
        )?;
        for (i, e) in s.entries.iter().enumerate() {
            tx.execute(
                "INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8)",
                params![
                    s.domain as i64,
                    s.id as i64,
                    i as i64,
                    (e.flags != 0).then_some(e.flags as i64),
                    e.ty as i64,
                    e.name,
                    (e.detail != 0).then_some(e.detail as i64),
                    e.offset.map(|v| v as i64)
                ],
            )?;
        }
    }
    for en in &spec.enums {
        tx.execute(
            "INSERT INTO NVTX_PAYLOAD_ENUMS VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                en.domain as i64,
                en.id as i64,
                en.name,
                en.entries.len() as i64,
                en.size as i64
            ],
        )?;
        for (i, (name, value, flag)) in en.entries.iter().enumerate() {
            tx.execute(
                "INSERT INTO NVTX_PAYLOAD_ENUM_ENTRIES VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    en.domain as i64,
                    en.id as i64,
                    i as i64,
                    name,
                    *value as i64,
                    flag.then_some(1)
                ],
            )?;
        }
    }
    Ok(())
}

/// The NCCL domain of [`nccl_export`].
pub const NCCL_DOMAIN: u64 = 1;
/// First static schema id (`NVTX_PAYLOAD_SCHEMA_ID_STATIC_START`).
pub const STATIC_START: u64 = 1 << 24;
/// NCCL's `ncclCommInitRank` schema in [`nccl_export`].
pub const NCCL_COMM_INIT: u64 = STATIC_START + 10;
/// NCCL's `ncclAllReduce` schema in [`nccl_export`].
pub const NCCL_ALL_REDUCE: u64 = STATIC_START + 11;
/// NCCL's `ncclSend`/`ncclRecv` schema in [`nccl_export`].
pub const NCCL_SEND_RECV: u64 = STATIC_START + 12;
/// NCCL's reduction operation enum in [`nccl_export`].
pub const NCCL_REDOP: u64 = STATIC_START + 13;
/// The communicator id of [`nccl_export`]'s ranges.
pub const NCCL_COMM: u64 = 0x5EED_0000_CAFE_F00D;

/// An NCCL-like export: the payload schemas NCCL registers (names and types as NCCL's
/// `nvtx_payload_schemas.h` gives them), registered twice (two processes), and four ranges —
/// `ncclCommInitRank` (8 ranks, rank 3, CUDA device 3), `ncclAllReduce` (1 MiB, Sum),
/// `ncclAllReduce` (4096 bytes, Max) and `ncclSend` (64 bytes to peer 5) — with the kernels
/// the last three launch ([`nccl_launches`]).
pub fn nccl_export() -> PayloadExport {
    const INT: u64 = 5;
    const U64: u64 = 18;
    const SIZE: u64 = 22;
    let comm = || entry(U64, "NCCL communicator ID");
    let size = || entry(SIZE, "Message size [bytes]").offset(8);
    let schema = |id, name: &str, entries| SchemaSpec {
        domain: NCCL_DOMAIN,
        id,
        name: Some(name.into()),
        kind: 1,
        size: Some(24),
        align: None,
        entries,
    };
    let schemas = vec![
        schema(
            NCCL_COMM_INIT,
            "NcclNvtxParamsCommInitRank",
            vec![
                comm(),
                entry(INT, "No. of ranks").offset(8),
                entry(INT, "Rank").offset(12),
                entry(INT, "CUDA device").offset(16),
            ],
        ),
        schema(
            NCCL_ALL_REDUCE,
            "NcclNvtxParamsAllReduce",
            vec![
                comm(),
                size(),
                entry(NCCL_REDOP, "Reduction operation").offset(16),
            ],
        ),
        schema(
            NCCL_SEND_RECV,
            "NcclNvtxParamsSendRecv",
            vec![comm(), size(), entry(INT, "Peer rank").offset(16)],
        ),
    ];
    let ops = ["Sum", "Prod", "Max", "Min", "Avg"];
    let enums = vec![EnumSpec {
        domain: NCCL_DOMAIN,
        id: NCCL_REDOP,
        name: Some("ncclRedOp_t".into()),
        size: 4,
        entries: ops
            .iter()
            .enumerate()
            .map(|(i, n)| ((*n).to_string(), i as u64, false))
            .collect(),
    }];
    let comm_bytes = || Bytes::default().uint(8, u128::from(NCCL_COMM));
    let init = comm_bytes().int(4, 8).int(4, 3).int(4, 3).align(8);
    let reduce = |bytes: u128, op: u128| comm_bytes().uint(8, bytes).uint(4, op).align(8);
    let send = comm_bytes().uint(8, 64).int(4, 5).align(8);
    let row = |name: &str, start: i64, schema: u64, payload: Bytes| PayloadRow {
        name: name.into(),
        start,
        end: start + 1_000,
        domain: NCCL_DOMAIN,
        binary: blob(NCCL_DOMAIN as u32, schema, &payload.0),
        as_text: false,
    };
    PayloadExport {
        schemas,
        enums,
        domains: vec![(NCCL_DOMAIN, "NCCL".into())],
        rows: vec![
            row("ncclCommInitRank", 10_000, NCCL_COMM_INIT, init),
            row("ncclAllReduce", 20_000, NCCL_ALL_REDUCE, reduce(1 << 20, 0)),
            row("ncclAllReduce", 30_000, NCCL_ALL_REDUCE, reduce(4096, 2)),
            row("ncclSend", 40_000, NCCL_SEND_RECV, send),
        ],
        twice: true,
        launches: nccl_launches(),
    }
}

/// The kernels of [`nccl_export`]'s collectives, each launched inside its range (as NCCL does
/// outside a group): two `ncclDevKernel_AllReduce_…` and an `ncclDevKernel_SendRecv`, plus one
/// kernel launched outside every range.
pub fn nccl_launches() -> Vec<KernelLaunch> {
    let launch = |kernel: &str, range_start: i64, correlation| KernelLaunch {
        call: "cudaLaunchKernelExC_v11060".into(),
        call_span: (range_start + 200, range_start + 700),
        kernel: kernel.into(),
        kernel_span: (range_start + 800, range_start + 5_000),
        correlation,
    };
    vec![
        launch(NCCL_ALL_REDUCE_KERNEL, 20_000, 101),
        launch(NCCL_ALL_REDUCE_KERNEL, 30_000, 102),
        launch(NCCL_SEND_KERNEL, 40_000, 103),
        launch("vectorAdd(float const*, float*)", 50_000, 104),
    ]
}

/// The kernel of [`nccl_export`]'s `ncclAllReduce` ranges.
pub const NCCL_ALL_REDUCE_KERNEL: &str =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
/// The kernel of [`nccl_export`]'s `ncclSend` range.
pub const NCCL_SEND_KERNEL: &str = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
