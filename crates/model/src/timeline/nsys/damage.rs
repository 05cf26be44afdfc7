//! Reading around damaged pages: when SQLite reports a table's pages as damaged part way
//! through a query, the rows before the damage are kept, the rowid ranges that still read are
//! found by seeking (`rowid >= x` descends the b-tree's interior pages, so a seek past a damaged
//! leaf lands on the next one), and the query is run again over those ranges only.
//!
//! Rowids of Nsight Systems exports are dense (rows are only ever appended), so the rowids
//! between two readable ranges are the rows lost. A table whose root page is damaged reads no
//! range at all and is skipped; the other tables load.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rusqlite::{ErrorCode, Row};

use super::NsysError;
use super::db::{ExportDb, int_of, quote_ident};

/// Passes in a row that read nothing before the walk around damage gives up on the rest.
const MAX_FRUITLESS_PASSES: u32 = 64;

/// The import statistics' reason for rows on damaged pages.
pub const DAMAGED: &str = "damaged pages: the rows could not be read";

/// What could be read of a damaged table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Readable {
    /// Runs of rows that read: `(seek, last, rows)` — a scan from the first rowid ≥ `seek`
    /// reads `rows` rows, the last with rowid `last` (rows are taken as the scan meets them,
    /// so a row whose rowid a bit flip moved out of order is kept). In order.
    pub ranges: Vec<(i64, i64, u64)>,
    /// Rows in them.
    pub rows: u64,
    /// Rowid ranges that could not be read, inclusive, in order.
    pub lost: Vec<(i64, i64)>,
    /// Rows lost: the rowids of `lost` (dense rowids), those before the first readable row
    /// counted from rowid 1, none for an unreadable end of the table.
    pub lost_rows: u64,
    /// The table could not be read from `lost`'s last range on: how many rows it held is unknown.
    pub unreadable_end: bool,
}

impl Readable {
    /// One line per lost range, for the user: which rowids, how many rows (the table is named
    /// by the warning's location).
    pub fn describe(&self) -> Vec<String> {
        self.lines(
            "it is skipped",
            "the rows before them are loaded",
            "the rows before and after them are loaded",
        )
    }

    /// [`Readable::describe`] for a report computed from the rows that read: one line per lost
    /// range, naming `table` and saying what the report covers.
    pub fn describe_for_report(&self, table: &str) -> Vec<String> {
        self.lines(
            "the report leaves its rows out",
            "the report covers the rows before them",
            "the report covers the rows before and after them",
        )
        .into_iter()
        .map(|line| format!("table {table}: {line}"))
        .collect()
    }

    /// Whether no row of the table could be read.
    pub fn nothing_read(&self) -> bool {
        self.ranges.is_empty() && !self.lost.is_empty()
    }

    /// The lines of [`Readable::describe`], each ending with what is kept of the table: `none`
    /// (nothing read), `before` (an unreadable end) or `around` (a lost run of rowids).
    fn lines(&self, none: &str, before: &str, around: &str) -> Vec<String> {
        self.lost
            .iter()
            .map(|&(a, b)| {
                if b == i64::MAX && self.ranges.is_empty() {
                    format!("damaged pages: the table could not be read; {none}")
                } else if b == i64::MAX {
                    format!("damaged pages: the rows from rowid {a} on could not be read; {before}")
                } else {
                    let n = lost_between(a, b);
                    let a = a.max(1);
                    format!(
                        "damaged pages: rowids {a}–{b} could not be read ({n} rows \
                         lost); {around}"
                    )
                }
            })
            .collect()
    }
}

/// The tables whose damage reads met, with what could be read of each, by table name: kept by
/// an [`ExportDb`] and its siblings together ([`ExportDb::take_damage_met`]).
#[derive(Debug, Clone, Default)]
pub struct DamageMet(Arc<Mutex<BTreeMap<String, Arc<Readable>>>>);

impl DamageMet {
    /// Notes what could be read of `table` (the latest note of a table wins).
    fn note(&self, table: &str, readable: &Arc<Readable>) {
        if let Ok(mut met) = self.0.lock() {
            met.insert(table.to_owned(), Arc::clone(readable));
        }
    }
}

/// Whether `e` says the file is damaged (rather than the query being wrong).
pub fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase | ErrorCode::SystemIoFailure)
    )
}

/// Rows lost between two rowids (inclusive), counting from rowid 1 at the latest.
fn lost_between(a: i64, b: i64) -> u64 {
    let a = a.max(1);
    if b < a { 0 } else { (b - a) as u64 + 1 }
}

impl ExportDb {
    /// What can be read of `table`, found by reading its rowids and seeking past damaged
    /// pages. Computed once per table and kept; every call notes the table as damaged for
    /// [`ExportDb::take_damage_met`].
    pub fn readable(&self, table: &str) -> Arc<Readable> {
        let cached = self
            .damaged
            .lock()
            .ok()
            .and_then(|cache| cache.get(table).cloned());
        let readable = cached.unwrap_or_else(|| {
            let readable = Arc::new(self.find_readable(table));
            if let Ok(mut cache) = self.damaged.lock() {
                cache.insert(table.to_owned(), Arc::clone(&readable));
            }
            readable
        });
        self.met.note(table, &readable);
        readable
    }

    /// The tables whose damage reads on this connection or its siblings met since the last
    /// call, in name order, with what could be read of each; empties the list. A report
    /// computed between two calls read only what these say.
    pub fn take_damage_met(&self) -> Vec<(String, Arc<Readable>)> {
        self.met
            .0
            .lock()
            .map(|mut met| std::mem::take(&mut *met).into_iter().collect())
            .unwrap_or_default()
    }

    /// The first rowid ≥ `from`: `Ok(None)` past the last row, `Err` where the seek meets
    /// damage.
    fn seek(&self, table: &str, from: i64) -> Result<Option<i64>, ()> {
        let sql = format!(
            "SELECT rowid, * FROM {} NOT INDEXED WHERE rowid >= ?1 ORDER BY rowid LIMIT 1",
            quote_ident(table)
        );
        match self
            .conn
            .query_row(&sql, [from], |r| Ok(r.get_ref(0).ok().and_then(int_of)))
        {
            Ok(id) => Ok(id),
            Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
            Err(_) => Err(()),
        }
    }

    /// The smallest `x > bad` at which a seek succeeds (`bad` itself failed), by doubling the
    /// step and then bisecting, with the rowid that seek found (`None`: no row from `x` on);
    /// `None` when no seek up to `i64::MAX` succeeds.
    fn next_readable(&self, table: &str, bad: i64) -> Option<(i64, Option<i64>)> {
        let mut lo = bad;
        let mut step: i64 = 1;
        let (mut hi, mut found) = loop {
            let x = lo.checked_add(step).unwrap_or(i64::MAX);
            if let Ok(found) = self.seek(table, x) {
                break (x, found);
            }
            if x == i64::MAX {
                return None;
            }
            lo = x;
            step = step.saturating_mul(2);
        };
        // Seeks fail at `lo` and succeed at `hi`: bisect.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            match self.seek(table, mid) {
                Ok(at) => (hi, found) = (mid, at),
                Err(()) => lo = mid,
            }
        }
        Some((hi, found))
    }

    /// Where rows below `last` read again after a damaged page, looking from `lo` (rows
    /// `lo..last` are missing from a pass that ended at `last`): the smallest `x` in
    /// `lo..last` whose seek finds a row before `last`, with that row's rowid. `None` when no
    /// seek below `last` finds one (the usual case: `last` follows its predecessor).
    fn readable_below(&self, table: &str, lo: i64, last: i64) -> Option<(i64, i64)> {
        let below = |x: i64| match self.seek(table, x) {
            Ok(Some(at)) if at < last => Some(at),
            _ => None,
        };
        if lo >= last {
            return None;
        }
        if let Some(at) = below(lo) {
            return Some((lo, at));
        }
        // Seeks from `lo` land on the damaged page (they fail or find `last`); a seek from
        // `last - 1` is routed past it if any page holds rows before `last`. Bisect between.
        let (mut bad, mut good) = (lo, last - 1);
        let mut found = below(good)?;
        while good - bad > 1 {
            let mid = bad + (good - bad) / 2;
            match below(mid) {
                Some(at) => (good, found) = (mid, at),
                None => bad = mid,
            }
        }
        Some((good, found))
    }

    /// Where a pass that failed goes on: `(lost_from, x, found)`, rowids `lost_from..x` lost
    /// and the next pass starting at `found` (`None`: no row after), or `None` when nothing
    /// after `bad` (where the damage begins) reads. `before_last` and `last` are the pass's
    /// last two rowids.
    fn go_on(
        &self,
        table: &str,
        bad: i64,
        before_last: Option<i64>,
        last: Option<i64>,
    ) -> Option<(i64, i64, Option<i64>)> {
        let next = match (before_last, last) {
            // The pass's last row may carry a rowid a bit flip moved forward: it sits on
            // the damaged page among the rows before it (it is row `p + 1`, read under
            // another rowid), and the rows between those and it read from the next pages.
            (Some(p), Some(l)) => self
                .readable_below(table, p.saturating_add(1), l)
                .map(|(x, at)| (p.saturating_add(2), x, Some(at))),
            _ => None,
        };
        // A scan can fail stepping onto a row that a seek still reads (damage in how the
        // rows are linked rather than in the row): go on from there, nothing lost.
        let next = next.or_else(|| match (last, self.seek(table, bad)) {
            (Some(_), Ok(Some(at))) => Some((bad, bad, Some(at))),
            _ => None,
        });
        let (lost_from, x, found) = next.or_else(|| {
            self.next_readable(table, bad)
                .map(|(x, found)| (bad, x, found))
        })?;
        // A seek that lands on the damaged page may find a row whose rowid a flip moved
        // forward, past rows that seeks routed to the next pages still read: go on from the
        // first of those.
        let (x, found) = match found {
            Some(at) if at > x => match self.readable_below(table, x, at) {
                Some((y, below)) => (y, Some(below)),
                None => (x, Some(at)),
            },
            other => (x, other),
        };
        Some((lost_from, x, found))
    }

    fn find_readable(&self, table: &str) -> Readable {
        let mut out = Readable::default();
        let sql = format!(
            "SELECT rowid, * FROM {} NOT INDEXED WHERE rowid >= ?1 ORDER BY rowid",
            quote_ident(table)
        );
        let mut from = i64::MIN;
        let mut fruitless = 0u32;
        // Each pass reads from `from` to the end or to the next damage, and `from` only moves
        // forward, so this ends; a table holds at most one row per 16 bytes of the file, which
        // bounds the passes where garbage pages answer seek after seek.
        let file_len = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        let max_passes = (file_len / 16).clamp(1024, 1 << 24);
        for pass in 0..=max_passes {
            if pass == max_passes {
                out.lost.push((from, i64::MAX));
                out.unreadable_end = true;
                break;
            }
            let mut first = None;
            let mut last = None;
            let mut before_last = None;
            let mut count = 0u64;
            let failed = match self.conn.prepare(&sql) {
                Ok(mut stmt) => match stmt.query([from]) {
                    Ok(mut rows) => loop {
                        match rows.next() {
                            Ok(Some(row)) => {
                                let id = row.get_ref(0).ok().and_then(int_of);
                                first = first.or(id);
                                before_last = last;
                                last = id.or(last);
                                count += 1;
                            }
                            Ok(None) => break false,
                            Err(_) => break true,
                        }
                    },
                    Err(_) => true,
                },
                Err(_) => true,
            };
            if let (Some(_), Some(b)) = (first, last) {
                out.ranges.push((from, b, count));
                out.rows += count;
            }
            if !failed {
                break;
            }
            // Seeks that find rows the scan then cannot read, or rows whose rowid lies before
            // where the seek asked (a page of garbage can answer every seek): after a few such
            // passes in a row the rest is given up, so a damaged table costs a bounded number
            // of queries.
            let moved_on = last.is_some_and(|l| l >= from);
            fruitless = if moved_on { 0 } else { fruitless + 1 };
            if fruitless > MAX_FRUITLESS_PASSES {
                out.lost.push((from, i64::MAX));
                out.unreadable_end = true;
                break;
            }
            // Where the damage begins: after the last row read, and past this pass's start
            // when it read any (a damaged row may carry a rowid out of order): every pass
            // moves on.
            let bad = last.map_or(from, |l| l.max(from).saturating_add(1));
            let Some((lost_from, x, found)) = self.go_on(table, bad, before_last, last) else {
                out.lost.push((bad, i64::MAX));
                out.unreadable_end = true;
                break;
            };
            if x > lost_from {
                out.lost_rows += lost_between(lost_from, x - 1);
                out.lost.push((lost_from, x - 1));
            }
            match found {
                Some(at) => from = at,
                None => break,
            }
        }
        out
    }

    /// Runs `sql`, calling `each` per row, until its end (`None`) or until SQLite meets
    /// damaged pages (the error, with the rows before it handed out). Other errors name
    /// `table`; errors of `each` end the query.
    fn query_until_damage(
        &self,
        table: &str,
        sql: &str,
        mut each: impl FnMut(&Row<'_>) -> Result<(), NsysError>,
    ) -> Result<Option<rusqlite::Error>, NsysError> {
        let mut stmt = match self.conn.prepare(sql) {
            Ok(s) => s,
            Err(e) if is_damage(&e) => return Ok(Some(e)),
            Err(e) => return Err(self.query_error(table, e)),
        };
        let mut rows = match stmt.query([]) {
            Ok(r) => r,
            Err(e) if is_damage(&e) => return Ok(Some(e)),
            Err(e) => return Err(self.query_error(table, e)),
        };
        loop {
            match rows.next() {
                Ok(Some(row)) => each(row)?,
                Ok(None) => return Ok(None),
                Err(e) if is_damage(&e) => return Ok(Some(e)),
                Err(e) => return Err(self.query_error(table, e)),
            }
        }
    }

    /// Runs `sql` — `SELECT rowid, … FROM table [WHERE …] [ORDER BY …]` — calling `each` per
    /// row. Where the table's pages are damaged, the rows read before the damage are kept and
    /// the query is run again over the rowid ranges that still read ([`ExportDb::readable`]);
    /// returns what was lost (`None` when nothing was). An `sql` of another shape stops at the
    /// damage. Errors of `each` end the scan.
    pub fn scan_around_damage(
        &self,
        table: &str,
        sql: &str,
        mut each: impl FnMut(&Row<'_>) -> Result<(), NsysError>,
    ) -> Result<Option<Arc<Readable>>, NsysError> {
        let mut last_rowid = None;
        let mut consumed = 0u64;
        let by_rowid = sql.trim_start().starts_with("SELECT rowid");
        let damage = self.query_until_damage(table, sql, |row| {
            if by_rowid {
                last_rowid = row.get_ref(0).ok().and_then(int_of);
            }
            consumed += 1;
            each(row)
        })?;
        let Some(first_error) = damage else {
            return Ok(None);
        };
        let readable = self.readable(table);
        // Rows in rowid order come as a scan meets them: read on after the last one, as for
        // an unordered query.
        let ordered = sql.contains(" ORDER BY ") && !(by_rowid && sql.ends_with(" ORDER BY rowid"));
        let after = match (consumed, last_rowid, ordered) {
            (0, _, _) => None,
            (_, Some(last), false) => Some(last),
            // Rows already handed out in another order than rowid: the rest cannot be read
            // again without repeating them.
            _ => {
                return Err(self.query_error(
                    table,
                    format!("damaged pages after {consumed} rows: {first_error}"),
                ));
            }
        };
        // A scan that ended on the row the first readable run ends on handed out exactly that
        // run: the other runs are read whole. (Filtering them by rowid after the last row
        // would drop rows when that row's rowid a bit flip moved forward.)
        let (ranges, after_filter) = match (after, readable.ranges.first()) {
            (Some(last), Some(&(i64::MIN, end, _))) if last == end => (&readable.ranges[1..], None),
            _ => (&readable.ranges[..], after),
        };
        let Some(queries) = restrict(sql, table, ranges, after_filter) else {
            return Err(self.query_error(table, first_error));
        };
        let mut seen = after;
        for query in queries {
            let mut stmt = self
                .conn
                .prepare(&query)
                .map_err(|e| self.query_error(table, e))?;
            let mut rows = stmt.query([]).map_err(|e| self.query_error(table, e))?;
            loop {
                match rows.next() {
                    Ok(Some(row)) => {
                        if by_rowid && !ordered {
                            seen = row.get_ref(0).ok().and_then(int_of).or(seen);
                        }
                        each(row)?;
                    }
                    Ok(None) => break,
                    // Damage the rowid walk did not meet (a row that reads alone but not in
                    // this query): the rest of the table is given up, and said so.
                    Err(e) if is_damage(&e) => {
                        let mut worse = Readable::clone(&readable);
                        let from = seen.map_or(i64::MIN, |r| r.saturating_add(1));
                        worse.lost.retain(|&(a, _)| a < from);
                        worse.lost.push((from, i64::MAX));
                        worse.unreadable_end = true;
                        let worse = Arc::new(worse);
                        self.met.note(table, &worse);
                        return Ok(Some(worse));
                    }
                    Err(e) => return Err(self.query_error(table, e)),
                }
            }
        }
        Ok(Some(readable))
    }
}

impl ExportDb {
    /// Runs `sql` — any query reading `tables` as `FROM table` or `JOIN table`, each with an
    /// optional alias (aggregates, `GROUP BY`, joins) — and returns `each`'s value for every
    /// row. Where pages are damaged, the rows read so far are dropped and `sql` is run again
    /// with each damaged table replaced by its readable rows ([`ExportDb::readable`]'s runs,
    /// each a rowid seek limited to its row count, as one derived table), so that the result
    /// covers exactly the rows that read. Errors name `tables[0]`.
    pub fn collect_around_damage<T>(
        &self,
        tables: &[&str],
        sql: &str,
        mut each: impl FnMut(&Row<'_>) -> Result<T, NsysError>,
    ) -> Result<Vec<T>, NsysError> {
        let named = tables.first().copied().unwrap_or_default();
        let mut out = Vec::new();
        let mut run = |sql: &str, out: &mut Vec<T>| {
            self.query_until_damage(named, sql, |row| {
                out.push(each(row)?);
                Ok(())
            })
        };
        let Some(first_error) = run(sql, &mut out)? else {
            return Ok(out);
        };
        out.clear();
        let mut again = sql.to_owned();
        let mut replaced = false;
        for &table in tables {
            let readable = self.readable(table);
            if readable.lost.is_empty() && !readable.unreadable_end {
                continue;
            }
            let columns = self.columns(table);
            match over_readable(&again, table, &readable.ranges, columns) {
                Some(sql) => (again, replaced) = (sql, true),
                None => return Err(self.query_error(table, first_error)),
            }
        }
        if !replaced {
            return Err(self.query_error(named, first_error));
        }
        match run(&again, &mut out)? {
            None => Ok(out),
            Some(e) => Err(self.query_error(named, format!("damaged pages: {e}"))),
        }
    }
}

/// SQL words that may follow a table where an alias could stand.
const NOT_ALIASES: &[&str] = &[
    "WHERE", "JOIN", "INNER", "LEFT", "CROSS", "NATURAL", "ON", "USING", "GROUP", "ORDER", "LIMIT",
    "UNION", "HAVING", "WINDOW", "AS",
];

/// `sql` with every `FROM table` and `JOIN table` (with or without an alias) reading only the
/// runs of readable rows ([`Readable::ranges`]) as one derived table under the same name or
/// alias (no row at all without runs: `columns` give its shape). `None` when `sql` names the
/// table after neither.
fn over_readable(
    sql: &str,
    table: &str,
    ranges: &[(i64, i64, u64)],
    columns: &[String],
) -> Option<String> {
    let quoted = quote_ident(table);
    let source = if ranges.is_empty() {
        let mut list = vec!["NULL AS rowid".to_owned()];
        list.extend(
            columns
                .iter()
                .map(|c| format!("NULL AS {}", quote_ident(c))),
        );
        format!("(SELECT {} WHERE 0)", list.join(", "))
    } else {
        let runs: Vec<String> = ranges
            .iter()
            .map(|&(a, _, n)| {
                format!(
                    "SELECT * FROM (SELECT rowid AS rowid, * FROM {quoted} \
                     WHERE rowid >= {a} ORDER BY rowid LIMIT {n})"
                )
            })
            .collect();
        format!("({})", runs.join(" UNION ALL "))
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(sql.len() + source.len());
    let mut rest = sql;
    let mut found = false;
    'scan: while !rest.is_empty() {
        let at_word = !out.ends_with(ident);
        for keyword in ["FROM ", "JOIN "] {
            for name in [quoted.as_str(), table] {
                let Some(after) = rest
                    .strip_prefix(keyword)
                    .and_then(|r| r.strip_prefix(name))
                else {
                    continue;
                };
                if !at_word || after.starts_with(ident) {
                    continue;
                }
                // An alias (`FROM T m`) names the derived table; else the table's own name.
                let word: String = after
                    .trim_start()
                    .chars()
                    .take_while(|&c| ident(c))
                    .collect();
                let alias = !word.is_empty()
                    && after.starts_with(' ')
                    && !NOT_ALIASES.iter().any(|k| k.eq_ignore_ascii_case(&word));
                out.push_str(keyword);
                out.push_str(&source);
                out.push_str(" AS ");
                if alias {
                    out.push_str(&word);
                    rest = &after.trim_start()[word.len()..];
                } else {
                    out.push_str(&quoted);
                    rest = after;
                }
                found = true;
                continue 'scan;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    found.then_some(out)
}

/// `sql` (`SELECT list FROM table [WHERE c] [ORDER BY o]`) over the runs of readable rows
/// only ([`Readable::ranges`]), after rowid `after`. Each run is read by a rowid seek limited to
/// its number of rows: a scan that stepped past a run's last row would read the damaged page
/// after it. One query per run, or for an ordered `sql` one query of the runs' `UNION ALL` in
/// that order. `None` for another shape.
fn restrict(
    sql: &str,
    table: &str,
    ranges: &[(i64, i64, u64)],
    after: Option<i64>,
) -> Option<Vec<String>> {
    // The table as the query names it: bare or quoted.
    let quoted = quote_ident(table);
    let (from, at) = [format!("FROM {table}"), format!("FROM {quoted}")]
        .into_iter()
        .find_map(|from| Some((sql.rfind(&from)?, from)).map(|(at, from)| (from, at)))?;
    let list = &sql[..at];
    let tail = &sql[at + from.len()..];
    let (filter, order) = match tail.find(" ORDER BY ") {
        Some(i) => tail.split_at(i),
        None => (tail, ""),
    };
    let filter = filter.trim();
    let mut outer = Vec::new();
    if let Some(after) = after {
        outer.push(format!("rowid > {after}"));
    }
    if !filter.is_empty() {
        outer.push(format!("({})", filter.strip_prefix("WHERE ")?));
    }
    let outer = if outer.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", outer.join(" AND "))
    };
    let queries: Vec<String> = ranges
        .iter()
        .filter(|&&(_, last, _)| after.is_none_or(|l| last > l))
        .map(|&(a, _, n)| {
            format!(
                "{list}FROM (SELECT rowid AS rowid, * FROM {quoted} \
                 WHERE rowid >= {a} ORDER BY rowid LIMIT {n}) AS {quoted}{outer}"
            )
        })
        .collect();
    if order.is_empty() || queries.len() < 2 {
        return Some(queries.into_iter().map(|q| q + order).collect());
    }
    Some(vec![format!(
        "SELECT * FROM ({}){order}",
        queries.join(" UNION ALL ")
    )])
}

#[cfg(test)]
mod tests {
    use super::{over_readable, restrict};

    #[test]
    fn queries_are_restricted_to_the_readable_ranges() {
        let q = |sql, ranges: &[(i64, i64, u64)], after| restrict(sql, "T", ranges, after);
        let range = |a, _last: i64, n| {
            format!(
                "(SELECT rowid AS rowid, * FROM \"T\" WHERE rowid >= {a} ORDER BY rowid LIMIT {n}) AS \"T\""
            )
        };
        assert_eq!(
            q("SELECT rowid, a FROM T", &[(1, 9, 9), (20, 30, 11)], None),
            Some(vec![
                format!("SELECT rowid, a FROM {}", range(1, 9, 9)),
                format!("SELECT rowid, a FROM {}", range(20, 30, 11)),
            ])
        );
        assert_eq!(
            q(
                "SELECT rowid FROM T WHERE k = 1",
                &[(1, 9, 9), (20, 30, 11)],
                Some(9)
            ),
            Some(vec![format!(
                "SELECT rowid FROM {} WHERE rowid > 9 AND (k = 1)",
                range(20, 30, 11)
            )])
        );
        assert_eq!(
            q(
                "SELECT rowid, s FROM T ORDER BY s",
                &[(1, 9, 9), (20, 30, 11)],
                None
            ),
            Some(vec![format!(
                "SELECT * FROM (SELECT rowid, s FROM {} UNION ALL SELECT rowid, s FROM {}) ORDER BY s",
                range(1, 9, 9),
                range(20, 30, 11)
            )])
        );
        assert_eq!(q("SELECT rowid FROM T GROUP BY 1", &[], None), None);
    }

    #[test]
    fn aggregates_read_the_readable_runs_as_one_table() {
        let columns = ["a".to_owned()];
        assert_eq!(
            over_readable(
                "SELECT a, count(*) FROM T GROUP BY 1",
                "T",
                &[(1, 9, 9), (20, 30, 11)],
                &columns
            ),
            Some(
                "SELECT a, count(*) FROM (SELECT * FROM (SELECT rowid AS rowid, * FROM \"T\" \
                 WHERE rowid >= 1 ORDER BY rowid LIMIT 9) UNION ALL SELECT * FROM (SELECT \
                 rowid AS rowid, * FROM \"T\" WHERE rowid >= 20 ORDER BY rowid LIMIT 11)) \
                 AS \"T\" GROUP BY 1"
                    .to_owned()
            )
        );
        assert_eq!(
            over_readable("SELECT max(a) FROM \"T\"", "T", &[], &columns),
            Some(
                "SELECT max(a) FROM (SELECT NULL AS rowid, NULL AS \"a\" WHERE 0) AS \"T\""
                    .to_owned()
            )
        );
        assert_eq!(over_readable("SELECT 1 FROM TT", "T", &[], &columns), None);
        // Joined, with aliases: the derived table takes the alias.
        assert_eq!(
            over_readable(
                "SELECT a.x FROM M m JOIN T a ON a.id = m.t ORDER BY m.rowid",
                "T",
                &[(5, 9, 4)],
                &columns
            ),
            Some(
                "SELECT a.x FROM M m JOIN (SELECT * FROM (SELECT rowid AS rowid, * FROM \"T\" \
                 WHERE rowid >= 5 ORDER BY rowid LIMIT 4)) AS a ON a.id = m.t ORDER BY m.rowid"
                    .to_owned()
            )
        );
        assert_eq!(
            over_readable("SELECT * FROM M m JOIN T ON T.id = m.t", "M", &[], &columns),
            Some(
                "SELECT * FROM (SELECT NULL AS rowid, NULL AS \"a\" WHERE 0) AS m JOIN T ON \
                 T.id = m.t"
                    .to_owned()
            )
        );
    }
}
