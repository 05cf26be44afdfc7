//! The CUDA Unified Memory reports: `um_total_sum`, `um_sum` (`rows=N`) and
//! `um_cpu_page_faults_sum`.
//!
//! Found against nsys 2023.4's output on small exports made for the purpose
//! (`fixtures/nsys/reports/um/`): migrations are the memcpy rows of copyKind 11 (HtoD) and 12
//! (DtoH), by `virtualAddress` (device-to-device 13 and ordinary copies are left out); sizes
//! are MB (10⁶ bytes) printed with three decimals of the binary value. A migration throughput
//! is `bytes × (10⁹ div ns) / 10⁶` MB/s with an *integer* division (nsys's own arithmetic), so
//! 4096 bytes in 7 ns give 585142.854, not .857; no throughput without time. `um_sum` lists the
//! addresses with CPU faults, then the other ones with GPU faults, then DtoH, then HtoD
//! addresses (each ascending; a NULL address never merges, so its DtoH and HtoD rows stay
//! apart), sorted by throughput, descending, ties in that order and rows without throughput
//! last. The lowest and highest address of `um_total_sum` are empty unless HtoD, DtoH, CPU and
//! GPU faults all have one.

use std::collections::HashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, int_of};
use super::{
    Cell, Report, ReportOption, ReportOutcome, ReportRequest, ReportTable, StatsOption, skipped,
};

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "um_total_sum",
        about: "CUDA Unified Memory totals: migrations, page faults, address range",
        options: &[],
        run: total_sum,
    },
    Report {
        name: "um_sum",
        about: "CUDA Unified Memory by virtual address: migrations, page faults, throughput",
        options: &[ReportOption {
            option: StatsOption::Rows,
            default: Some("10"),
            about: "Maximum number of rows (-1: all)",
        }],
        run: um_sum,
    },
    Report {
        name: "um_cpu_page_faults_sum",
        about: "CUDA Unified Memory CPU page faults by CPU instruction",
        options: &[],
        run: cpu_page_faults_sum,
    },
];

const MEMCPY: &str = "CUPTI_ACTIVITY_KIND_MEMCPY";
const CPU: &str = "CUDA_UM_CPU_PAGE_FAULT_EVENTS";
const GPU: &str = "CUDA_UM_GPU_PAGE_FAULT_EVENTS";
const HTOD: i64 = 11;
const DTOH: i64 = 12;

/// nsys's messages for the tables `um_total_sum` and `um_sum` need, in its order.
fn check_tables(db: &ExportDb) -> Option<&'static str> {
    [
        (MEMCPY, "CUDA memory transfers data"),
        (CPU, "CUDA Unified Memory CPU page faults data"),
        (GPU, "CUDA Unified Memory GPU page faults data"),
    ]
    .into_iter()
    .find(|(t, _)| !db.has_table(t))
    .map(|(_, what)| what)
}

/// A grouping query's row: the key, then its values.
type Grouped<const N: usize> = (Option<i64>, [Option<i64>; N]);

/// Rows of `sql` (a grouping query whose columns are a key, then integer values), in order.
/// Values that are not integers (nor NULL) are an error naming `table`. Over a table with
/// damaged pages, the query covers the rows that read.
fn grouped_rows<const N: usize>(
    db: &ExportDb,
    table: &str,
    sql: &str,
) -> Result<Vec<Grouped<N>>, NsysError> {
    db.collect_around_damage(&[table], sql, |row| {
        let mut values = [None; N];
        for (i, v) in values.iter_mut().enumerate() {
            let raw = row.get_ref(i + 1).map_err(|e| db.query_error(table, e))?;
            *v = int_of(raw);
            if v.is_none() && raw != rusqlite::types::ValueRef::Null {
                return Err(db.query_error(table, format!("{sql}: a value is not an integer")));
            }
        }
        Ok((row.get_ref(0).ok().and_then(int_of), values))
    })
}

/// The virtual-address column of the memcpy table (`NULL` where the export lacks it).
fn address_column(db: &ExportDb) -> String {
    db.col_or_null(MEMCPY, "virtualAddress")
}

/// Bytes as MB with three decimals, as nsys prints them.
fn mb(bytes: i64) -> String {
    format!("{:.3}", bytes as f64 / 1e6)
}

/// An address as nsys prints it (`0x7F0000200000`).
fn hex(address: i64) -> String {
    if address < 0 {
        format!("-0x{:X}", address.unsigned_abs())
    } else {
        format!("0x{address:X}")
    }
}

fn opt(value: Option<String>) -> Cell {
    match value {
        Some(v) => Cell::Number(v.into()),
        None => Cell::Text(String::new().into()),
    }
}

fn table(report: &str, columns: &[&str], rows: Vec<Vec<Cell>>) -> ReportOutcome {
    ReportOutcome::Table(ReportTable::new(report, columns, rows))
}

fn total_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if let Some(what) = check_tables(db) {
        return skipped(db, what);
    }
    let va = address_column(db);
    // One row: sum of bytes, min and max address, per migration direction.
    let migrations = |kind: i64| {
        grouped_rows::<3>(
            db,
            MEMCPY,
            &format!(
                "SELECT NULL, sum(bytes), min({va}), max({va}) FROM {MEMCPY} WHERE copyKind = {kind}"
            ),
        )
    };
    let htod = migrations(HTOD)?;
    let dtoh = migrations(DTOH)?;
    let cpu = grouped_rows::<3>(
        db,
        CPU,
        &format!("SELECT NULL, count(*), min(address), max(address) FROM {CPU}"),
    )?;
    let gpu = grouped_rows::<3>(
        db,
        GPU,
        &format!("SELECT NULL, sum(numberOfPageFaults), min(address), max(address) FROM {GPU}"),
    )?;
    let one = |rows: &[Grouped<3>]| rows.first().map_or([None; 3], |r| r.1);
    let parts = [one(&htod), one(&dtoh), one(&cpu), one(&gpu)];
    // nsys takes the smallest of the four minimums: one missing makes it empty.
    let lowest: Option<Vec<i64>> = parts.iter().map(|p| p[1]).collect();
    let highest: Option<Vec<i64>> = parts.iter().map(|p| p[2]).collect();
    let row = vec![
        opt(parts[0][0].map(mb)),
        opt(parts[1][0].map(mb)),
        Cell::int(parts[2][0].unwrap_or(0)),
        opt(parts[3][0].map(|n| n.to_string())),
        opt(lowest.and_then(|v| v.into_iter().min()).map(hex)),
        opt(highest.and_then(|v| v.into_iter().max()).map(hex)),
    ];
    Ok(table(
        req.report.name,
        &[
            "Total HtoD Migration Size (MB)",
            "Total DtoH Migration Size (MB)",
            "Total CPU Page Faults",
            "Total GPU PageFaults",
            "Minimum Virtual Address",
            "Maximum Virtual Address",
        ],
        vec![row],
    ))
}

/// One address of `um_sum`.
#[derive(Default)]
struct Address {
    address: Option<i64>,
    /// Bytes and ns of the HtoD, then the DtoH migrations.
    htod: Option<(i64, i64)>,
    dtoh: Option<(i64, i64)>,
    cpu_faults: Option<i64>,
    gpu_faults: Option<i64>,
}

impl Address {
    /// MB/s as nsys computes it (see the module notes); `None` without migration time.
    fn throughput(&self) -> Option<f64> {
        let (bytes, ns) = [self.htod, self.dtoh].into_iter().flatten().fold(
            None,
            |acc: Option<(i64, i64)>, (b, t)| {
                let (ab, at) = acc.unwrap_or((0, 0));
                Some((ab.wrapping_add(b), at.wrapping_add(t)))
            },
        )?;
        if ns == 0 {
            return None;
        }
        let per_second = 1_000_000_000i64.checked_div(ns)?;
        // SQLite's product: exact while it fits in 64 bits, else a product of doubles.
        let product = match bytes.checked_mul(per_second) {
            Some(p) => p as f64,
            None => bytes as f64 * per_second as f64,
        };
        Some(product / 1e6)
    }
}

fn um_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    let limit = req
        .int(StatsOption::Rows)
        .map_err(|e| db.query_error("", e))?;
    if let Some(what) = check_tables(db) {
        return skipped(db, what);
    }
    let va = address_column(db);
    let migrations = |kind: i64| {
        grouped_rows::<2>(
            db,
            MEMCPY,
            &format!(
                "SELECT {va}, sum(bytes), sum(end - start) FROM {MEMCPY} WHERE copyKind = {kind} \
                 GROUP BY 1 ORDER BY 1"
            ),
        )
    };
    let htod = migrations(HTOD)?;
    let dtoh = migrations(DTOH)?;
    let cpu = grouped_rows::<1>(
        db,
        CPU,
        &format!("SELECT address, count(*) FROM {CPU} GROUP BY 1 ORDER BY 1"),
    )?;
    let gpu = grouped_rows::<1>(
        db,
        GPU,
        &format!("SELECT address, sum(numberOfPageFaults) FROM {GPU} GROUP BY 1 ORDER BY 1"),
    )?;
    let mut rows: Vec<Address> = Vec::new();
    let mut at: HashMap<i64, usize> = HashMap::new();
    // Each source in nsys's order; a known address merges, a NULL one never does.
    let mut merge = |address: Option<i64>, set: &dyn Fn(&mut Address)| {
        let i = match address.and_then(|a| at.get(&a).copied()) {
            Some(i) => i,
            None => {
                rows.push(Address {
                    address,
                    ..Address::default()
                });
                if let Some(a) = address {
                    at.insert(a, rows.len() - 1);
                }
                rows.len() - 1
            }
        };
        set(&mut rows[i]);
    };
    for (a, [n]) in cpu {
        merge(a, &|r| r.cpu_faults = n);
    }
    for (a, [n]) in gpu {
        merge(a, &|r| r.gpu_faults = n);
    }
    for (a, [bytes, ns]) in dtoh {
        merge(a, &|r| r.dtoh = Some((bytes.unwrap_or(0), ns.unwrap_or(0))));
    }
    for (a, [bytes, ns]) in htod {
        merge(a, &|r| r.htod = Some((bytes.unwrap_or(0), ns.unwrap_or(0))));
    }
    let mut rows: Vec<(Option<f64>, Address)> =
        rows.into_iter().map(|r| (r.throughput(), r)).collect();
    // Stable: equal throughputs keep the order above; rows without one come last.
    rows.sort_by(|(a, _), (b, _)| match (a, b) {
        (Some(a), Some(b)) => b.total_cmp(a),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    if let Ok(limit) = usize::try_from(limit) {
        rows.truncate(limit);
    }
    let rows = rows
        .into_iter()
        .map(|(throughput, r)| {
            vec![
                opt(r.address.map(hex)),
                opt(r.htod.map(|(b, _)| mb(b))),
                opt(r.dtoh.map(|(b, _)| mb(b))),
                opt(r.cpu_faults.map(|n| n.to_string())),
                opt(r.gpu_faults.map(|n| n.to_string())),
                opt(throughput.map(|t| format!("{t:.3}"))),
            ]
        })
        .collect();
    Ok(table(
        req.report.name,
        &[
            "Virtual Address",
            "HtoD Migration size (MB)",
            "DtoH Migration size (MB)",
            "CPU Page Faults",
            " GPU Page Faults",
            "Migration Throughput (MB/s)",
        ],
        rows,
    ))
}

fn cpu_page_faults_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(CPU) {
        return skipped(db, "CUDA Unified Memory CPU page faults data");
    }
    let instruction = db.col_or_null(CPU, "CpuInstruction");
    let mut groups = grouped_rows::<1>(
        db,
        CPU,
        &format!("SELECT {instruction}, count(*) FROM {CPU} GROUP BY 1 ORDER BY 1"),
    )?;
    // By count, descending; equal counts keep the instruction's string id order.
    groups.sort_by_key(|(_, [n])| std::cmp::Reverse(n.unwrap_or(0)));
    let strings = db.string_ids()?;
    let rows = groups
        .into_iter()
        .map(|(id, [n])| {
            vec![
                Cell::int(n.unwrap_or(0)),
                Cell::Text(
                    id.and_then(|id| strings.get(&id).cloned())
                        .unwrap_or_default()
                        .into(),
                ),
            ]
        })
        .collect();
    Ok(table(
        req.report.name,
        &["CPU Page Faults", "CPU Instruction Address"],
        rows,
    ))
}
