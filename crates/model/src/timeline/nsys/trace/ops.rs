//! Bulk operations on rows of an [`EventTable`]: filter, sort, cut, gaps between busy
//! intervals and busy time per chunk, per group of rows. A selection is a list of row indices.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::{ColumnKind, EventTable, NULL, Trace};

/// A comparison of [`filter`].
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// Equal to the integer.
    Eq(i64),
    /// Not equal to the integer.
    Ne(i64),
    /// Less than.
    Lt(i64),
    /// Less than or equal.
    Le(i64),
    /// Greater than.
    Gt(i64),
    /// Greater than or equal.
    Ge(i64),
    /// Missing (NULL).
    Null,
    /// Present (not NULL).
    NotNull,
    /// Text equal to one of these.
    TextIn(Vec<String>),
    /// Text starting with one of these.
    Prefix(Vec<String>),
    /// Text containing this.
    Contains(String),
    /// Text present and equal to none of these.
    TextNotIn(Vec<String>),
    /// Text present and not containing this.
    NotContains(String),
}

/// Why an operation could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// No such column.
    #[error("table {table} has no column {column:?}; its columns: {known}")]
    NoColumn {
        /// The table.
        table: String,
        /// The column asked for.
        column: String,
        /// The columns it has.
        known: String,
    },
    /// A text test on an integer column or the reverse.
    #[error("column {column:?} holds {holds}; this test needs {needs}")]
    WrongKind {
        /// The column.
        column: String,
        /// What it holds.
        holds: &'static str,
        /// What the test needs.
        needs: &'static str,
    },
}

fn values<'a>(
    table: &'a EventTable,
    column: &str,
) -> Result<(ColumnKind, ColumnValues<'a>), OpError> {
    if column == "duration"
        && let (Some(s), Some(e)) = (table.column("start"), table.column("end"))
    {
        return Ok((
            ColumnKind::Int,
            ColumnValues::Duration(&s.values, &e.values),
        ));
    }
    match table.column(column) {
        Some(c) => Ok((c.kind, ColumnValues::Stored(&c.values))),
        None => Err(OpError::NoColumn {
            table: table.name.to_string(),
            column: column.to_string(),
            known: table.column_names().join(", "),
        }),
    }
}

/// A column's values, stored or computed.
#[derive(Clone, Copy)]
enum ColumnValues<'a> {
    Stored(&'a [i64]),
    Duration(&'a [i64], &'a [i64]),
}

impl ColumnValues<'_> {
    fn get(&self, row: u32) -> i64 {
        let i = row as usize;
        match self {
            ColumnValues::Stored(v) => v.get(i).copied().unwrap_or(NULL),
            ColumnValues::Duration(s, e) => match (s.get(i), e.get(i)) {
                (Some(s), Some(e)) => e.saturating_sub(*s),
                _ => NULL,
            },
        }
    }
}

/// The rows of `rows` whose `column` passes `test`.
pub fn filter(
    trace: &Trace,
    table: &EventTable,
    rows: &[u32],
    column: &str,
    test: &Test,
) -> Result<Vec<u32>, OpError> {
    let (kind, col) = values(table, column)?;
    let text_test = matches!(
        test,
        Test::TextIn(_)
            | Test::Prefix(_)
            | Test::Contains(_)
            | Test::TextNotIn(_)
            | Test::NotContains(_)
    );
    let ordered = !matches!(test, Test::Null | Test::NotNull | Test::Eq(_) | Test::Ne(_));
    if text_test && kind != ColumnKind::Text {
        return Err(OpError::WrongKind {
            column: column.to_string(),
            holds: "integers",
            needs: "text",
        });
    }
    if ordered && !text_test && kind == ColumnKind::Text {
        return Err(OpError::WrongKind {
            column: column.to_string(),
            holds: "text",
            needs: "integers",
        });
    }
    let pass = |v: i64| -> bool {
        match test {
            Test::Null => v == NULL,
            Test::NotNull => v != NULL,
            Test::Eq(x) => v == *x,
            Test::Ne(x) => v != *x,
            Test::Lt(x) => v != NULL && v < *x,
            Test::Le(x) => v != NULL && v <= *x,
            Test::Gt(x) => v != NULL && v > *x,
            Test::Ge(x) => v != NULL && v >= *x,
            Test::TextIn(list) => trace.text(v).is_some_and(|t| list.iter().any(|l| l == t)),
            Test::Prefix(list) => trace
                .text(v)
                .is_some_and(|t| list.iter().any(|l| t.starts_with(l.as_str()))),
            Test::Contains(s) => trace.text(v).is_some_and(|t| t.contains(s.as_str())),
            Test::TextNotIn(list) => trace.text(v).is_some_and(|t| list.iter().all(|l| l != t)),
            Test::NotContains(s) => trace.text(v).is_some_and(|t| !t.contains(s.as_str())),
        }
    };
    Ok(rows.iter().copied().filter(|&r| pass(col.get(r))).collect())
}

/// The rows of `rows` where columns `a` and `b` are both present and equal.
pub fn equal(table: &EventTable, rows: &[u32], a: &str, b: &str) -> Result<Vec<u32>, OpError> {
    let (_, x) = values(table, a)?;
    let (_, y) = values(table, b)?;
    Ok(rows
        .iter()
        .copied()
        .filter(|&r| {
            let (u, v) = (x.get(r), y.get(r));
            u != NULL && u == v
        })
        .collect())
}

/// `rows` sorted (stably) by the keys, each a column and whether it sorts descending. Text
/// sorts by its characters; missing values sort first.
pub fn sort(
    trace: &Trace,
    table: &EventTable,
    rows: &[u32],
    keys: &[(String, bool)],
) -> Result<Vec<u32>, OpError> {
    let cols = keys
        .iter()
        .map(|(c, desc)| values(table, c).map(|(k, v)| (k, v, *desc)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = rows.to_vec();
    out.sort_by(|&a, &b| {
        for (kind, col, desc) in &cols {
            let (x, y) = (col.get(a), col.get(b));
            let ord = match kind {
                ColumnKind::Int => x.cmp(&y),
                ColumnKind::Text => trace.text(x).cmp(&trace.text(y)),
            };
            let ord = if *desc { ord.reverse() } else { ord };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        Ordering::Equal
    });
    Ok(out)
}

/// The group key of a row: the values of the grouping columns.
fn keys<'a>(
    table: &'a EventTable,
    by: &[String],
) -> Result<Vec<(ColumnKind, ColumnValues<'a>)>, OpError> {
    by.iter().map(|c| values(table, c)).collect()
}

/// Intervals `(start, end)` by group key.
type Groups = BTreeMap<Vec<i64>, Vec<(i64, i64)>>;

/// The `(start, end)` of `rows` per group (equal values of the `by` columns), groups in key
/// order.
fn intervals_by(table: &EventTable, rows: &[u32], by: &[String]) -> Result<Groups, OpError> {
    let key_cols = keys(table, by)?;
    let (_, start) = values(table, "start")?;
    let (_, end) = values(table, "end")?;
    let mut groups = Groups::new();
    for &r in rows {
        let key = key_cols.iter().map(|(_, c)| c.get(r)).collect();
        groups
            .entry(key)
            .or_default()
            .push((start.get(r), end.get(r)));
    }
    Ok(groups)
}

/// An idle interval of a group of rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// The group's values of the grouping columns.
    pub key: Vec<i64>,
    /// Start (ns): the end of the busy time before.
    pub start: i64,
    /// End (ns): the start of the next row.
    pub end: i64,
}

/// Per group of rows (equal values of the `by` columns), the idle intervals of at least
/// `min` ns between the first row's start and the last row's end: where no row of the group
/// runs. Groups in key order, gaps in time order.
pub fn gaps(
    table: &EventTable,
    rows: &[u32],
    by: &[String],
    min: i64,
) -> Result<Vec<Gap>, OpError> {
    let groups = intervals_by(table, rows, by)?;
    let mut out = Vec::new();
    for (key, mut iv) in groups {
        iv.sort_unstable();
        let mut busy_until = i64::MIN;
        for (s, e) in iv {
            if busy_until != i64::MIN && s.saturating_sub(busy_until) >= min && s > busy_until {
                out.push(Gap {
                    key: key.clone(),
                    start: busy_until,
                    end: s,
                });
            }
            busy_until = busy_until.max(e);
        }
    }
    Ok(out)
}

/// One chunk of a group's time range and how much of it rows ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The group's values of the grouping columns.
    pub key: Vec<i64>,
    /// Start (ns).
    pub start: i64,
    /// Its length inside the range (ns): the chunk length, less for a last chunk that reaches
    /// past the range's end.
    pub active: i64,
    /// The time rows ran in it, each row counted on its own (overlapping rows add up).
    pub busy: i64,
}

/// Per group of rows, the range from the first row's start to the last row's end cut into
/// `chunks` chunks of equal length (rounded up to whole ns, so the last may reach past the end
/// and fewer may be needed), each with the time rows ran in it. Groups in key order.
pub fn utilization(
    table: &EventTable,
    rows: &[u32],
    by: &[String],
    chunks: i64,
) -> Result<Vec<Chunk>, OpError> {
    let groups = intervals_by(table, rows, by)?;
    let n = i128::from(chunks.max(1));
    let mut out = Vec::new();
    for (key, iv) in groups {
        // In i128: times from a damaged export may be anywhere in i64.
        let lo = i128::from(iv.iter().map(|v| v.0).min().unwrap_or(0));
        let hi = i128::from(iv.iter().map(|v| v.1).max().unwrap_or(0)).max(lo);
        let span = hi - lo;
        let len = ((span + n - 1) / n).max(1);
        let count = ((span + len - 1) / len).clamp(1, n) as usize;
        let mut busy = vec![0i128; count];
        for (s, e) in iv {
            let (s, e) = (i128::from(s).max(lo), i128::from(e).min(hi));
            if e <= s {
                continue;
            }
            let first = ((s - lo) / len) as usize;
            let last = (((e - lo - 1) / len) as usize).min(count - 1);
            for (i, b) in busy.iter_mut().enumerate().take(last + 1).skip(first) {
                let cs = lo + i as i128 * len;
                let ce = (cs + len).min(hi);
                *b += e.min(ce) - s.max(cs);
            }
        }
        for (i, b) in busy.into_iter().enumerate() {
            let cs = lo + i as i128 * len;
            let clamp =
                |v: i128| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX });
            out.push(Chunk {
                key: key.clone(),
                start: clamp(cs),
                active: clamp((cs + len).min(hi) - cs),
                busy: clamp(b),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{Column, ColumnKind, EventTable, Trace};
    use super::*;

    /// A trace with one table of `(start, end, pid, name)` rows (names "a", "b").
    fn trace(rows: &[(i64, i64, i64, i64)]) -> Trace {
        let col = |name: &'static str, kind, f: fn(&(i64, i64, i64, i64)) -> i64| Column {
            name,
            kind,
            values: rows.iter().map(f).collect(),
        };
        let mut t = EventTable::new("t", "test rows", &[]);
        t.columns = vec![
            col("start", ColumnKind::Int, |r| r.0),
            col("end", ColumnKind::Int, |r| r.1),
            col("pid", ColumnKind::Int, |r| r.2),
            col("name", ColumnKind::Text, |r| r.3),
        ];
        t.len = rows.len();
        let mut trace = Trace::empty();
        trace.strings = vec!["a".into(), "b".into()];
        trace.tables = vec![t];
        trace
    }

    #[test]
    fn gaps_per_group_between_busy_intervals() {
        let tr = trace(&[(0, 10, 1, 0), (5, 20, 1, 0), (50, 60, 1, 1), (0, 100, 2, 0)]);
        let t = &tr.tables[0];
        let all: Vec<u32> = (0..4).collect();
        let g = gaps(t, &all, &["pid".into()], 1).unwrap_or_default();
        assert_eq!(
            g,
            vec![Gap {
                key: vec![1],
                start: 20,
                end: 50
            }]
        );
        assert!(
            gaps(t, &all, &["pid".into()], 31)
                .unwrap_or_default()
                .is_empty()
        );
        assert!(gaps(t, &all, &["nope".into()], 1).is_err());
    }

    #[test]
    fn utilization_cuts_equal_chunks_and_counts_overlaps_twice() {
        // Range 0..10 in 3 chunks of 4 ns (the last one 2 ns long).
        let tr = trace(&[(0, 4, 1, 0), (0, 2, 1, 0), (9, 10, 1, 0)]);
        let t = &tr.tables[0];
        let c = utilization(t, &[0, 1, 2], &[], 3).unwrap_or_default();
        let shape: Vec<(i64, i64, i64)> = c.iter().map(|c| (c.start, c.active, c.busy)).collect();
        assert_eq!(shape, vec![(0, 4, 6), (4, 4, 0), (8, 2, 1)]);
        // Times at the ends of i64 do not overflow.
        let tr = trace(&[(i64::MIN + 1, 0, 1, 0), (i64::MAX - 1, i64::MAX, 1, 0)]);
        let c = utilization(&tr.tables[0], &[0, 1], &[], 30).unwrap_or_default();
        assert!(!c.is_empty() && c.len() <= 30);
    }

    #[test]
    fn filters_and_sorts() {
        let tr = trace(&[(0, 10, 1, 0), (5, 6, 1, 1), (7, 30, 2, 0)]);
        let t = &tr.tables[0];
        let all: Vec<u32> = (0..3).collect();
        let b = filter(&tr, t, &all, "name", &Test::TextIn(vec!["b".into()])).unwrap_or_default();
        assert_eq!(b, vec![1]);
        let long = filter(&tr, t, &all, "duration", &Test::Ge(10)).unwrap_or_default();
        assert_eq!(long, vec![0, 2]);
        assert!(filter(&tr, t, &all, "pid", &Test::Prefix(vec!["1".into()])).is_err());
        let by = sort(&tr, t, &all, &[("duration".into(), true)]).unwrap_or_default();
        assert_eq!(by, vec![2, 0, 1]);
        let same = equal(t, &all, "start", "start").unwrap_or_default();
        assert_eq!(same, all);
    }
}
