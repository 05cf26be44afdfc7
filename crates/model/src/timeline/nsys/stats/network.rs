//! The `network_congestion` report: metric samples of NICs and InfiniBand switches whose send
//! waits are above a threshold.
//!
//! Found by running nsys 2023.4 on exports made for the purpose (small SQLite files changed one
//! thing at a time, then `fixtures/nsys/reports/apis/network.sqlite` and random exports of up to
//! 125,000 rows, all equal byte for byte):
//! - Tables read: `NET_NIC_METRIC` (start, end, globalId, metricsListId, metricsIdx, value),
//!   `NIC_ID_MAP` (globalId, nicId), `TARGET_INFO_NIC_INFO` (nicId, GUID, deviceId),
//!   `ENUM_NET_DEVICE_ID` (id, label), `NET_IB_SWITCH_METRIC` (start, end, globalId,
//!   metricsListId, metricsIdx, value) and `TARGET_INFO_NETWORK_METRICS` (metricsListId,
//!   metricsIdx, name). Other columns (portId, the NIC name, the metric's unit) are not read.
//! - A sample counts when its metric (same metricsListId and metricsIdx) is named exactly
//!   `IB: Send waits`, in any metric list, and its value is strictly above `ticks_threshold`
//!   (default 10000; any integer, negative included, read as Python's `int()` reads it: spaces
//!   around it, `+`, underscores between digits; `10.5`, `1e4` or `0x10` are refused). A metric
//!   defined twice gives its samples twice. NULL values never count.
//! - One row per counted sample, never merged: Start, End, Duration = End − Start (empty when
//!   either is NULL), the value as stored, the GUID in lowercase hex without `0x` (64-bit two's
//!   complement for negatives, `0` for NULL) and the device name.
//! - NIC samples join the id map on globalId, the NIC info on nicId and the device ids on
//!   `deviceId = id` (inner joins: a sample without all three is left out); the GUID is the NIC
//!   info's, the device name the device id's label. Switch samples show their globalId as GUID
//!   and no device name.
//! - Order: by start (NULL first). Rows with equal starts come NIC first, then switch, each in
//!   the order SQLite meets them: by metric definition (its rowid order), then by the sample's
//!   start, end, globalId and value in the order the table declares them, then rowid; a NIC
//!   sample's joined rows by nicId, then by the NIC info's GUID and deviceId (declared order),
//!   then by label, each then by rowid.

use std::cmp::Ordering;
use std::collections::HashMap;

use rusqlite::types::ValueRef;

use super::super::NsysError;
use super::super::db::{ExportDb, quote_ident};
use super::api_table::{empty_table, for_each_row, int_at};
use super::{Cell, ReportOutcome, ReportRequest, ReportTable, StatsOption, skipped};
use crate::core::num::{float_to_i64, saturating_i32};

/// The metric nsys counts.
const SEND_WAITS: &str = "IB: Send waits";
/// NIC samples.
const NIC: &str = "NET_NIC_METRIC";
/// InfiniBand switch samples.
const IB: &str = "NET_IB_SWITCH_METRIC";
/// Metric names by list and index.
const METRICS: &str = "TARGET_INFO_NETWORK_METRICS";
/// The report's columns.
const COLUMNS: &[&str] = &[
    "Start (ns)",
    "End (ns)",
    "Duration (ns)",
    "Send wait rate (ticks/ms)",
    "GUID",
    "Device name",
];

/// An SQLite value as SQLite orders them: NULL, then numbers (integers and reals compared by
/// value), then text, then blobs (bytes compared in order).
#[derive(Debug, Clone, PartialEq)]
enum SqlValue {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A real.
    Real(f64),
    /// Text, as its bytes.
    Text(Vec<u8>),
    /// A blob.
    Blob(Vec<u8>),
}

impl SqlValue {
    /// The value of a column.
    fn of(v: ValueRef<'_>) -> SqlValue {
        match v {
            ValueRef::Null => SqlValue::Null,
            ValueRef::Integer(i) => SqlValue::Int(i),
            ValueRef::Real(f) => SqlValue::Real(f),
            ValueRef::Text(t) => SqlValue::Text(t.to_vec()),
            ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
        }
    }

    /// SQLite's storage class rank: NULL, number, text, blob.
    fn class(&self) -> u8 {
        match self {
            SqlValue::Null => 0,
            SqlValue::Int(_) | SqlValue::Real(_) => 1,
            SqlValue::Text(_) => 2,
            SqlValue::Blob(_) => 3,
        }
    }

    /// SQLite's order of two values.
    fn sql_cmp(&self, other: &SqlValue) -> Ordering {
        use SqlValue::{Blob, Int, Real, Text};
        match (self, other) {
            (Int(a), Int(b)) => a.cmp(b),
            (Real(a), Real(b)) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
            (Int(a), Real(b)) => int_real_cmp(*a, *b),
            (Real(a), Int(b)) => int_real_cmp(*b, *a).reverse(),
            (Text(a), Text(b)) | (Blob(a), Blob(b)) => a.cmp(b),
            _ => self.class().cmp(&other.class()),
        }
    }
}

/// An integer against a real, exactly (not through a lossy conversion).
fn int_real_cmp(i: i64, r: f64) -> Ordering {
    if r.is_nan() {
        return Ordering::Greater;
    }
    // -2⁶³, exact as a float.
    let min = i64::MIN as f64;
    if r < min {
        return Ordering::Greater;
    }
    if r >= -min {
        return Ordering::Less;
    }
    let t = r.trunc();
    // In range: the truncation is exact as an i64.
    match i.cmp(&float_to_i64(t)) {
        Ordering::Equal => 0.0f64.partial_cmp(&(r - t)).unwrap_or(Ordering::Equal),
        o => o,
    }
}

/// Values compared in order, as a multi-column index compares its entries.
fn cmp_all(a: &[SqlValue], b: &[SqlValue]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.sql_cmp(y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.len().cmp(&b.len()))
}

/// A sample above the threshold.
struct Sample {
    /// The sample's rowid (the last tie-break).
    rowid: i64,
    /// Start (ns); `None` for NULL.
    start: Option<i64>,
    /// End (ns); `None` for NULL.
    end: Option<i64>,
    /// globalId (a switch's GUID; a NIC's key into the id map).
    global: Option<i64>,
    /// The value as printed.
    value: String,
    /// The columns SQLite orders equal starts by, in the table's declared order.
    order: Vec<SqlValue>,
}

/// The names of `table`'s `wanted` columns, in the order the table declares them.
fn declared_order<'a>(db: &ExportDb, table: &str, wanted: &[&'a str]) -> Vec<&'a str> {
    let cols = db.columns(table);
    let mut out: Vec<(usize, &'a str)> = wanted
        .iter()
        .map(|w| (cols.iter().position(|c| c == w).unwrap_or(usize::MAX), *w))
        .collect();
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, w)| w).collect()
}

/// An error naming the table, the rowid and the column.
fn bad(db: &ExportDb, table: &str, rowid: i64, column: &str, what: &str) -> NsysError {
    db.query_error(table, format!("rowid {rowid}: {column} is not {what}"))
}

/// A real that holds an i64 (|f| below 2⁶³ with margin), truncated.
fn real_as_int(f: f64) -> Option<i64> {
    (f.is_finite() && f.abs() < 9.2e18).then(|| float_to_i64(f.trunc()))
}

/// `v` as an integer key: NULL is `Ok(None)`, an integer or a whole real its value; anything
/// else `Err(())`.
fn int_key(v: &SqlValue) -> Result<Option<i64>, ()> {
    match v {
        SqlValue::Null => Ok(None),
        SqlValue::Int(i) => Ok(Some(*i)),
        SqlValue::Real(f) if f.fract() == 0.0 => real_as_int(*f).map(Some).ok_or(()),
        _ => Err(()),
    }
}

/// Column `i` as an integer or NULL; anything else is an error.
fn opt_int(
    db: &ExportDb,
    table: &str,
    row: &rusqlite::Row<'_>,
    i: usize,
    column: &str,
) -> Result<Option<i64>, NsysError> {
    let value = row
        .get_ref(i)
        .map(SqlValue::of)
        .map_err(|e| db.query_error(table, e))?;
    int_key(&value).map_err(|()| {
        let rowid = int_at(row, 0).unwrap_or(-1);
        bad(db, table, rowid, column, "an integer")
    })
}

/// A float as Python prints it (`repr`): shortest digits, `.0` on whole numbers, exponent
/// (`1e+16`, `1e-05`) below 10⁻⁴ and from 10¹⁶.
fn python_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let n = saturating_i32(digits.len());
        if exp < 0 {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        } else if exp + 1 >= n {
            let zeros = "0".repeat((exp + 1 - n) as usize);
            format!("{sign}{digits}{zeros}.0")
        } else {
            let (a, b) = digits.split_at((exp + 1) as usize);
            format!("{sign}{a}.{b}")
        }
    } else {
        let (a, b) = digits.split_at(1);
        let frac = if b.is_empty() {
            String::new()
        } else {
            format!(".{b}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{a}{frac}e{esign}{:02}", exp.abs())
    }
}

/// An integer as Python's `int()` reads the option (nsys's argument parser does): spaces
/// around it, an optional sign, decimal digits with single underscores between them.
fn python_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    if !well_formed {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// The metrics named [`SEND_WAITS`], as (metricsListId, metricsIdx), in rowid order.
fn send_wait_metrics(db: &ExportDb) -> Result<Vec<(i64, i64)>, NsysError> {
    let mut out = Vec::new();
    let sql = "SELECT rowid, metricsListId, metricsIdx, name FROM TARGET_INFO_NETWORK_METRICS \
               ORDER BY rowid";
    for_each_row(db, METRICS, sql, |row| {
        let named = matches!(row.get_ref(3), Ok(ValueRef::Text(t)) if t == SEND_WAITS.as_bytes());
        if !named {
            return Ok(());
        }
        let list = opt_int(db, METRICS, row, 1, "metricsListId")?;
        let idx = opt_int(db, METRICS, row, 2, "metricsIdx")?;
        if let (Some(list), Some(idx)) = (list, idx) {
            out.push((list, idx));
        }
        Ok(())
    })?;
    Ok(out)
}

/// The samples of `table` above `threshold` of the `metrics`, by (metricsListId, metricsIdx),
/// each list in the order SQLite meets them for one metric. Samples of other metrics are not
/// kept (nor their values read).
fn samples(
    db: &ExportDb,
    table: &str,
    metrics: &[(i64, i64)],
    threshold: i64,
) -> Result<HashMap<(i64, i64), Vec<Sample>>, NsysError> {
    let order = declared_order(db, table, &["start", "end", "globalId", "value"]);
    let order_cols = order
        .iter()
        .map(|c| quote_ident(c))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "SELECT rowid, start, \"end\", globalId, metricsListId, metricsIdx, value, {order_cols} \
         FROM {} WHERE value > {threshold}",
        quote_ident(table)
    );
    let mut out: HashMap<(i64, i64), Vec<Sample>> = HashMap::new();
    for_each_row(db, table, &sql, |row| {
        let rowid = int_at(row, 0).unwrap_or(-1);
        let list = opt_int(db, table, row, 4, "metricsListId")?;
        let idx = opt_int(db, table, row, 5, "metricsIdx")?;
        let (Some(list), Some(idx)) = (list, idx) else {
            return Ok(());
        };
        if !metrics.contains(&(list, idx)) {
            return Ok(());
        }
        let value = match row.get_ref(6) {
            Ok(ValueRef::Integer(v)) => v.to_string(),
            Ok(ValueRef::Real(f)) => python_float(f),
            Ok(_) => return Err(bad(db, table, rowid, "value", "a number")),
            Err(e) => return Err(db.query_error(table, e)),
        };
        let sample = Sample {
            rowid,
            start: opt_int(db, table, row, 1, "start")?,
            end: opt_int(db, table, row, 2, "end")?,
            global: opt_int(db, table, row, 3, "globalId")?,
            value,
            order: (0..order.len())
                .map(|i| row.get_ref(7 + i).map(SqlValue::of))
                .collect::<Result<_, _>>()
                .map_err(|e| db.query_error(table, e))?,
        };
        out.entry((list, idx)).or_default().push(sample);
        Ok(())
    })?;
    for list in out.values_mut() {
        list.sort_by(|a, b| cmp_all(&a.order, &b.order).then(a.rowid.cmp(&b.rowid)));
    }
    Ok(out)
}

/// A joined table's rows by integer key: each key's rows as (its other columns, rowid), in the
/// order SQLite's automatic index gives them (other columns in declared order, then rowid).
struct Lookup {
    /// The other columns' names, in declared order (the order of each row's values).
    names: Vec<&'static str>,
    /// Key → (other columns, rowid), in SQLite's order.
    rows: HashMap<i64, Vec<(Vec<SqlValue>, i64)>>,
}

impl Lookup {
    /// Reads `key` and `others` of `table`; NULL keys never join.
    fn read(
        db: &ExportDb,
        table: &str,
        key: &str,
        others: &[&'static str],
    ) -> Result<Lookup, NsysError> {
        let others = declared_order(db, table, others);
        let mut cols = vec![quote_ident(key)];
        cols.extend(others.iter().map(|c| quote_ident(c)));
        let sql = format!(
            "SELECT rowid, {} FROM {}",
            cols.join(", "),
            quote_ident(table)
        );
        let mut rows: HashMap<i64, Vec<(Vec<SqlValue>, i64)>> = HashMap::new();
        for_each_row(db, table, &sql, |row| {
            let rowid = int_at(row, 0).unwrap_or(-1);
            let Some(k) = opt_int(db, table, row, 1, key)? else {
                return Ok(());
            };
            let values = (0..others.len())
                .map(|i| row.get_ref(2 + i).map(SqlValue::of))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| db.query_error(table, e))?;
            rows.entry(k).or_default().push((values, rowid));
            Ok(())
        })?;
        for list in rows.values_mut() {
            list.sort_by(|a, b| cmp_all(&a.0, &b.0).then(a.1.cmp(&b.1)));
        }
        Ok(Lookup {
            names: others,
            rows,
        })
    }

    /// The rows of `key` (none for NULL).
    fn get(&self, key: Option<i64>) -> &[(Vec<SqlValue>, i64)] {
        key.and_then(|k| self.rows.get(&k))
            .map_or(&[], |v| v.as_slice())
    }

    /// Where column `name` is among a row's values.
    fn position(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|c| *c == name)
            .unwrap_or(usize::MAX)
    }
}

/// Value `i` of a joined row; NULL past the end.
fn nth(values: &[SqlValue], i: usize) -> &SqlValue {
    values.get(i).unwrap_or(&SqlValue::Null)
}

/// A GUID as nsys prints it: lowercase hex of the 64-bit value, `0` for NULL.
fn guid(
    db: &ExportDb,
    table: &str,
    rowid: i64,
    column: &str,
    v: &SqlValue,
) -> Result<String, NsysError> {
    match v {
        SqlValue::Null => Ok("0".into()),
        SqlValue::Int(i) => Ok(format!("{:x}", *i as u64)),
        SqlValue::Real(f) => real_as_int(*f)
            .map(|i| format!("{:x}", i as u64))
            .ok_or_else(|| bad(db, table, rowid, column, "an integer")),
        _ => Err(bad(db, table, rowid, column, "an integer")),
    }
}

/// One row of the report, with what orders it.
struct Out {
    /// The sample's start: the sort key.
    start: Option<i64>,
    /// The row's cells.
    cells: Vec<Cell>,
}

/// The report row of sample `s`, with its GUID and device name.
fn row(s: &Sample, guid: String, name: String) -> Out {
    let duration = s
        .start
        .zip(s.end)
        .map(|(a, b)| (i128::from(b) - i128::from(a)).to_string());
    let opt = |v: Option<i64>| Cell::Number(v.map(|v| v.to_string()).unwrap_or_default().into());
    Out {
        start: s.start,
        cells: vec![
            opt(s.start),
            opt(s.end),
            Cell::Number(duration.unwrap_or_default().into()),
            Cell::Number(s.value.as_str().into()),
            Cell::Text(guid.into()),
            Cell::Text(name.into()),
        ],
    }
}

/// The NIC rows, in the order SQLite meets them.
fn nic_rows(db: &ExportDb, metrics: &[(i64, i64)], threshold: i64) -> Result<Vec<Out>, NsysError> {
    const MAP: &str = "NIC_ID_MAP";
    const INFO: &str = "TARGET_INFO_NIC_INFO";
    const DEVICES: &str = "ENUM_NET_DEVICE_ID";
    const INFO_COLS: &[&str] = &["GUID", "deviceId"];
    let samples = samples(db, NIC, metrics, threshold)?;
    let map = Lookup::read(db, MAP, "globalId", &["nicId"])?;
    let info = Lookup::read(db, INFO, "nicId", INFO_COLS)?;
    let devices = Lookup::read(db, DEVICES, "id", &["label"])?;
    let (guid_at, device_at) = (info.position("GUID"), info.position("deviceId"));
    let key_of = |table: &str, rowid: i64, column: &str, v: &SqlValue| {
        int_key(v).map_err(|()| bad(db, table, rowid, column, "an integer"))
    };
    let mut out = Vec::new();
    for metric in metrics {
        for s in samples.get(metric).map_or(&[][..], |v| v.as_slice()) {
            for (m, m_rowid) in map.get(s.global) {
                let nic = key_of(MAP, *m_rowid, "nicId", nth(m, 0))?;
                for (i, i_rowid) in info.get(nic) {
                    let device = key_of(INFO, *i_rowid, "deviceId", nth(i, device_at))?;
                    let id = guid(db, INFO, *i_rowid, "GUID", nth(i, guid_at))?;
                    for (d, _) in devices.get(device) {
                        let label = match d.first() {
                            Some(SqlValue::Text(t) | SqlValue::Blob(t)) => {
                                String::from_utf8_lossy(t).into_owned()
                            }
                            Some(SqlValue::Int(v)) => v.to_string(),
                            Some(SqlValue::Real(f)) => python_float(*f),
                            Some(SqlValue::Null) | None => String::new(),
                        };
                        out.push(row(s, id.clone(), label));
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The switch rows, in the order SQLite meets them.
fn switch_rows(
    db: &ExportDb,
    metrics: &[(i64, i64)],
    threshold: i64,
) -> Result<Vec<Out>, NsysError> {
    let samples = samples(db, IB, metrics, threshold)?;
    let mut out = Vec::new();
    for metric in metrics {
        for s in samples.get(metric).map_or(&[][..], |v| v.as_slice()) {
            let global = s.global.map_or(SqlValue::Null, SqlValue::Int);
            out.push(row(
                s,
                guid(db, IB, s.rowid, "globalId", &global)?,
                String::new(),
            ));
        }
    }
    Ok(out)
}

/// `network_congestion`: the samples whose send waits are above `ticks_threshold`.
pub(super) fn network_congestion(
    db: &ExportDb,
    req: &ReportRequest,
) -> Result<ReportOutcome, NsysError> {
    let (nic, ib) = (db.has_table(NIC), db.has_table(IB));
    if !nic && !ib {
        return skipped(db, "NIC or IB switch metrics");
    }
    if nic {
        for (table, what) in [
            ("ENUM_NET_DEVICE_ID", "network device IDs"),
            ("NIC_ID_MAP", "NIC ID map"),
        ] {
            if !db.has_table(table) {
                return skipped(db, what);
            }
        }
    }
    if !db.has_table(METRICS) {
        return Ok(ReportOutcome::Skipped(format!(
            "{} file does not contain network metrics information table.",
            db.path.display()
        )));
    }
    if nic && !db.has_table("TARGET_INFO_NIC_INFO") {
        return skipped(db, "NIC info data");
    }
    let text = req.value(StatsOption::TicksThreshold)?.unwrap_or_default();
    let threshold = python_int(text).ok_or_else(|| {
        db.query_error(
            if ib { IB } else { NIC },
            format!("report network_congestion: option ticks_threshold={text:?} is not an integer"),
        )
    })?;
    let metrics = send_wait_metrics(db)?;
    if metrics.is_empty() {
        return Ok(ReportOutcome::Table(empty_table(req.report.name, COLUMNS)));
    }
    let mut rows = if nic {
        nic_rows(db, &metrics, threshold)?
    } else {
        Vec::new()
    };
    if ib {
        rows.extend(switch_rows(db, &metrics, threshold)?);
    }
    // Stable: equal starts keep NIC before switch and each in SQLite's order.
    rows.sort_by_key(|r| r.start);
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        COLUMNS,
        rows.into_iter().map(|r| r.cells).collect::<Vec<_>>(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_does() {
        for (f, s) in [
            (20000.5, "20000.5"),
            (20000.0, "20000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e300, "1e+300"),
        ] {
            assert_eq!(python_float(f), s, "{f}");
        }
    }

    #[test]
    fn thresholds_read_as_python_int_does() {
        for (t, v) in [
            ("10000", Some(10000)),
            (" 15000", Some(15000)),
            ("19999 ", Some(19999)),
            ("+19999", Some(19999)),
            ("-5", Some(-5)),
            ("1_9999", Some(19999)),
            ("1__9999", None),
            ("_1", None),
            ("1_", None),
            ("0x10", None),
            ("1e4", None),
            ("10.5", None),
            ("", None),
            ("-", None),
        ] {
            assert_eq!(python_int(t), v, "{t:?}");
        }
    }

    #[test]
    fn values_order_as_sqlite_does() {
        use SqlValue::*;
        let mut v = vec![
            Text(b"b".to_vec()),
            Real(2.5),
            Int(3),
            Null,
            Blob(vec![0]),
            Int(2),
            Text(b"a".to_vec()),
            Real(-1e30),
        ];
        v.sort_by(|a, b| a.sql_cmp(b));
        assert_eq!(
            v,
            vec![
                Null,
                Real(-1e30),
                Int(2),
                Real(2.5),
                Int(3),
                Text(b"a".to_vec()),
                Text(b"b".to_vec()),
                Blob(vec![0]),
            ]
        );
        assert_eq!(int_real_cmp(2, 2.0), Ordering::Equal);
        assert_eq!(int_real_cmp(-3, -2.5), Ordering::Less);
        assert_eq!(int_real_cmp(i64::MAX, 9.3e18), Ordering::Less);
    }
}
