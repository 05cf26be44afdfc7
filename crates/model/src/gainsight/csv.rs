//! The frontend's CSV files, written byte for byte as pandas writes them and read back:
//! `NAME.sim_l1.csv` / `NAME.sim_l2.csv` (one row per lifetime, floats with 2 decimals) and
//! `NAME.sim.csv` (one row per kernel, floats as Python's `repr`, empty statistics as `0`).

use std::io::{self, BufRead, Write};

use super::GainsightError;
use super::kernel::Lifetime;
use super::stats::{KernelRow, LifetimeStats, lifetime_ns};
use crate::core::num::{exact_u64, float_to_u64};

/// Header of the lifetime CSVs.
pub const LIFETIME_HEADER: &str = "kernel_id,address,lifetime_cycles,lifetime_ns";

/// Header of the kernel CSV, column for column as the seed.
pub const KERNEL_HEADER: [&str; 23] = [
    "Kernel ID",
    "Mangled Names",
    "L1 Lifetime",
    "L1 Lifetime Median",
    "L1 Lifetime 90%-tile",
    "L1 Lifetime Max",
    "L2 Lifetime",
    "L2 Lifetime Median",
    "L2 Lifetime 90%-tile",
    "L2 Lifetime Max",
    "L1 Read Frequency",
    "L1 Write Frequency",
    "L2 Read Frequency",
    "L2 Write Frequency",
    "L1 Utilization",
    "L1 Size",
    "L1 Unique Addresses",
    "L2 Utilization",
    "L2 Size",
    "L2 Unique Addresses",
    "Total Read Frequency",
    "Total Write Frequency",
    "Total Cycles",
];

/// Writes the decimal digits of `n`, then `suffix` (without the formatting machinery).
fn write_u64(out: &mut impl Write, n: u64, suffix: &[u8]) -> io::Result<()> {
    let mut digits = [0u8; 20];
    let digits = crate::format::u64_digits(n, &mut digits);
    let mut buf = [0u8; 24];
    let (len, end) = (digits.len(), digits.len() + suffix.len().min(4));
    buf[..len].copy_from_slice(digits);
    buf[len..end].copy_from_slice(&suffix[..end - len]);
    out.write_all(&buf[..end])
}

/// Writes `%.2f` of an integer-valued float: `{n}.00` exactly below 2^53, else the float's value.
fn write_int_2dp(out: &mut impl Write, n: u64) -> io::Result<()> {
    if n < (1u64 << 53) {
        write_u64(out, n, b".00")
    } else {
        write!(out, "{:.2}", n as f64)
    }
}

/// Writes `%.2f` of a non-negative float: digits from `round(x × 100)` when `x × 100` is clearly
/// away from a rounding tie (its error is far below the margin), else Rust's exact formatting
/// (correctly rounded, as Python's).
fn write_2dp(out: &mut impl Write, x: f64) -> io::Result<()> {
    let scaled = x * 100.0;
    if x.is_finite() && (0.0..9.0e15).contains(&scaled) {
        let frac = scaled - scaled.floor();
        if (frac - 0.5).abs() > 1e-6 {
            // 0 ≤ scaled < 9e15: the rounded value is a whole number that fits.
            let n = float_to_u64(scaled.round());
            let cents = (n % 100) as u8;
            write_u64(out, n / 100, b".")?;
            return out.write_all(&[b'0' + cents / 10, b'0' + cents % 10]);
        }
    }
    write!(out, "{x:.2}")
}

/// Writes the lifetime CSV header.
pub fn write_lifetime_header(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{LIFETIME_HEADER}")
}

/// Writes one kernel's lifetime rows: `25,2479779712.00,17116.00,7658.17`.
pub fn write_lifetime_rows(
    out: &mut impl Write,
    kernel_id: u64,
    lifetimes: &[Lifetime],
    ns_per_cycle: f64,
) -> io::Result<()> {
    for l in lifetimes {
        write_u64(out, kernel_id, b",")?;
        write_int_2dp(out, l.address)?;
        out.write_all(b",")?;
        write_int_2dp(out, l.cycles)?;
        out.write_all(b",")?;
        write_2dp(out, lifetime_ns(l.cycles, ns_per_cycle))?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// One row of a lifetime CSV read back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LifetimeRow {
    /// kernel_id.
    pub kernel_id: u64,
    /// address.
    pub address: u64,
    /// lifetime_cycles.
    pub cycles: u64,
    /// lifetime_ns as written.
    pub ns: f64,
}

/// Reads a lifetime CSV (`name` for errors). Bad rows are errors with their line.
pub fn read_lifetime_csv(
    name: &str,
    input: impl BufRead,
) -> Result<Vec<LifetimeRow>, GainsightError> {
    let bad_header = format!("expected the header `{LIFETIME_HEADER}`");
    read_rows(name, input, LIFETIME_HEADER, &bad_header, |line, err| {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 4 {
            return Err(err(format!("expected 4 fields, found {}", fields.len())));
        }
        let whole = |text: &str, what: &str| -> Result<u64, GainsightError> {
            let value: f64 = text
                .parse()
                .map_err(|_| err(format!("{what} `{text}` is not a number")))?;
            exact_u64(value)
                .filter(|_| value < 1.9e19)
                .ok_or_else(|| err(format!("{what} `{text}` is not a whole number")))
        };
        Ok(LifetimeRow {
            kernel_id: fields[0]
                .parse()
                .map_err(|_| err(format!("kernel_id `{}` is not an integer", fields[0])))?,
            address: whole(fields[1], "address")?,
            cycles: whole(fields[2], "lifetime_cycles")?,
            ns: fields[3]
                .parse()
                .map_err(|_| err(format!("lifetime_ns `{}` is not a number", fields[3])))?,
        })
    })
}

/// Reads a CSV's lines: the first must be `header` (else the error `bad_header`), empty ones are
/// passed over and `row` reads each other one (`\r` trimmed), given what makes an error at its
/// line. I/O errors and `row`'s errors end the read.
fn read_rows<T>(
    name: &str,
    input: impl BufRead,
    header: &str,
    bad_header: &str,
    mut row: impl FnMut(&str, &dyn Fn(String) -> GainsightError) -> Result<T, GainsightError>,
) -> Result<Vec<T>, GainsightError> {
    let mut rows = Vec::new();
    for (index, line) in input.split(b'\n').enumerate() {
        let line_no = index as u64 + 1;
        let err = |message: String| GainsightError::Format {
            path: name.to_string(),
            line: line_no,
            message,
        };
        let line = line.map_err(|source| GainsightError::Io {
            path: name.to_string(),
            source,
        })?;
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        if index == 0 {
            if line != header {
                return Err(err(bad_header.to_string()));
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        rows.push(row(line, &err)?);
    }
    Ok(rows)
}

fn float_text(value: f64) -> String {
    let mut s = String::new();
    crate::pyjson::float_repr(value, &mut s);
    s
}

fn opt_text(value: Option<f64>) -> String {
    value.map_or_else(|| "0".to_string(), float_text)
}

/// A CSV field quoted as Python's `csv` module does (minimal quoting).
fn quoted(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

fn row_fields(row: &KernelRow) -> Vec<String> {
    let stats = |s: &LifetimeStats| {
        [
            opt_text(s.mean),
            opt_text(s.median),
            opt_text(s.p90),
            opt_text(s.max),
        ]
    };
    let mut fields = vec![row.kernel_id.to_string(), quoted(&row.name)];
    fields.extend(stats(&row.l1));
    fields.extend(stats(&row.l2));
    fields.extend([
        opt_text(row.l1_read_frequency),
        opt_text(row.l1_write_frequency),
        opt_text(row.l2_read_frequency),
        opt_text(row.l2_write_frequency),
        opt_text(row.l1_utilization),
        row.l1_size.to_string(),
        row.l1_unique.to_string(),
        opt_text(row.l2_utilization),
        row.l2_size.to_string(),
        row.l2_unique.to_string(),
        opt_text(row.total_read_frequency),
        opt_text(row.total_write_frequency),
        row.total_cycles.to_string(),
    ]);
    fields
}

/// Writes `NAME.sim.csv`: the header and one row per kernel.
pub fn write_kernel_csv(out: &mut impl Write, rows: &[KernelRow]) -> io::Result<()> {
    writeln!(out, "{}", KERNEL_HEADER.join(","))?;
    for row in rows {
        writeln!(out, "{}", row_fields(row).join(","))?;
    }
    Ok(())
}

/// Splits one CSV record (double-quote quoting).
fn split_record(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut in_quotes = false;
    while let Some(c) = chars.next() {
        match (c, in_quotes) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => in_quotes = false,
            ('"', false) if field.is_empty() => in_quotes = true,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    if in_quotes {
        return None;
    }
    fields.push(field);
    Some(fields)
}

/// Reads `NAME.sim.csv` (the seed's 23 columns; `0` reads back as an empty statistic).
pub fn read_kernel_csv(name: &str, input: impl BufRead) -> Result<Vec<KernelRow>, GainsightError> {
    let header = KERNEL_HEADER.join(",");
    let bad_header = "expected the Gainsight kernel CSV header (23 columns)";
    read_rows(name, input, &header, bad_header, |line, err| {
        let f = split_record(line).ok_or_else(|| err("unterminated quoted field".into()))?;
        if f.len() != KERNEL_HEADER.len() {
            return Err(err(format!("expected 23 fields, found {}", f.len())));
        }
        let opt = |i: usize| -> Result<Option<f64>, GainsightError> {
            if f[i] == "0" {
                return Ok(None);
            }
            f[i].parse::<f64>()
                .map(Some)
                .map_err(|_| err(format!("{} `{}` is not a number", KERNEL_HEADER[i], f[i])))
        };
        let int = |i: usize| -> Result<u64, GainsightError> {
            f[i].parse::<u64>()
                .map_err(|_| err(format!("{} `{}` is not an integer", KERNEL_HEADER[i], f[i])))
        };
        let stats = |i: usize| -> Result<LifetimeStats, GainsightError> {
            Ok(LifetimeStats {
                mean: opt(i)?,
                median: opt(i + 1)?,
                p90: opt(i + 2)?,
                max: opt(i + 3)?,
            })
        };
        Ok(KernelRow {
            kernel_id: int(0)?,
            name: f[1].clone(),
            l1: stats(2)?,
            l2: stats(6)?,
            l1_read_frequency: opt(10)?,
            l1_write_frequency: opt(11)?,
            l2_read_frequency: opt(12)?,
            l2_write_frequency: opt(13)?,
            l1_utilization: opt(14)?,
            l1_size: int(15)?,
            l1_unique: int(16)?,
            l2_utilization: opt(17)?,
            l2_size: int(18)?,
            l2_unique: int(19)?,
            total_read_frequency: opt(20)?,
            total_write_frequency: opt(21)?,
            total_cycles: int(22)?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_lifetime_row() {
        let mut out = Vec::new();
        let rows = [Lifetime {
            address: 2479779712,
            cycles: 17116,
        }];
        write_lifetime_rows(&mut out, 25, &rows, 1000.0 / 2235.0).unwrap();
        assert_eq!(out, b"25,2479779712.00,17116.00,7658.17\n");
    }

    #[test]
    fn fast_two_decimals_equal_exact_formatting() {
        let p = 1000.0 / 2235.0;
        for c in (0..200_000u64).chain([17116, 1 << 40, (1 << 53) + 1]) {
            for x in [c as f64 * p, c as f64 / 8.0, c as f64 * 0.005] {
                let mut fast = Vec::new();
                write_2dp(&mut fast, x).unwrap();
                assert_eq!(String::from_utf8(fast).unwrap(), format!("{x:.2}"), "{x}");
            }
        }
    }

    #[test]
    fn quoting_round_trips() {
        assert_eq!(
            split_record("1,\"a,\"\"b\"\"\",2").unwrap(),
            ["1", "a,\"b\"", "2"]
        );
        assert_eq!(quoted("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
