//! The NVTX range summaries: `nvtx_sum` (push/pop and start/end, with a Style column),
//! `nvtx_pushpop_sum`, `nvtx_startend_sum`.

use std::collections::HashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, int_of, text_of};
use super::table::{for_each_row, time_cells, time_columns};
use super::{Cell, Report, ReportOutcome, ReportRequest, ReportTable};
use crate::timeline::summary::Summary;

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[
    Report {
        name: "nvtx_sum",
        about: "NVTX range summary: push/pop and start/end ranges by name",
        options: &[],
        run: nvtx_report,
    },
    Report {
        name: "nvtx_pushpop_sum",
        about: "NVTX push/pop range summary",
        options: &[],
        run: nvtx_report,
    },
    Report {
        name: "nvtx_startend_sum",
        about: "NVTX start/end range summary",
        options: &[],
        run: nvtx_report,
    },
];

/// Names are `domain:text` (no prefix in the default domain); a range that never ends runs to
/// the last NVTX timestamp.
fn nvtx_report(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    let report = req.report.name;
    if !db.has_table(EVENTS) {
        return Ok(ReportOutcome::Skipped(format!(
            "{} does not contain NV Tools Extension (NVTX) data.",
            db.path.display()
        )));
    }
    let events = read_events(db)?;
    let want = |pp: bool| match report {
        "nvtx_pushpop_sum" => pp,
        "nvtx_startend_sum" => !pp,
        _ => true,
    };
    let groups = events.durations_by_name(want);
    let mut sums: Vec<((bool, String), Summary)> = groups
        .into_iter()
        .filter_map(|(k, mut v)| Some((k, Summary::of(&mut v)?)))
        .collect();
    sums.sort_by(|(ak, a), (bk, b)| b.total.cmp(&a.total).then_with(|| ak.1.cmp(&bk.1)));
    let grand: i128 = sums.iter().map(|(_, s)| s.total).sum();
    let with_style = report == "nvtx_sum";
    let mut columns: Vec<String> = time_columns("Instances", &[]);
    if with_style {
        columns.push("Style".into());
    }
    columns.push("Range".into());
    let rows: Vec<_> = sums
        .into_iter()
        .map(|((push_pop, name), s)| {
            let mut row = time_cells(&s, grand);
            if with_style {
                row.push(Cell::Text(
                    if push_pop { "PushPop" } else { "StartEnd" }.into(),
                ));
            }
            row.push(Cell::Text(name.into()));
            row
        })
        .collect();
    Ok(ReportOutcome::Table(ReportTable::new(
        report, columns, rows,
    )))
}

/// The NVTX events table.
const EVENTS: &str = "NVTX_EVENTS";

/// A push/pop or start/end range as read.
struct Range {
    start: i64,
    end: Option<i64>,
    push_pop: bool,
    process: u64,
    domain: i64,
    text: String,
}

/// The ranges, the domain names by (process, domain id), and the last NVTX timestamp.
struct Events {
    ranges: Vec<Range>,
    domains: HashMap<(u64, i64), String>,
    last: i64,
}

impl Events {
    /// The durations of the ranges `want` keeps, by style and `domain:text` name; a range
    /// without an end runs to the last timestamp.
    fn durations_by_name(self, want: impl Fn(bool) -> bool) -> HashMap<(bool, String), Vec<i64>> {
        let mut groups: HashMap<(bool, String), Vec<i64>> = HashMap::new();
        for r in self.ranges.into_iter().filter(|r| want(r.push_pop)) {
            let name = match self.domains.get(&(r.process, r.domain)) {
                Some(d) if r.domain != 0 => format!("{d}:{}", r.text),
                _ => r.text,
            };
            let end = r.end.unwrap_or(self.last);
            groups
                .entry((r.push_pop, name))
                .or_default()
                .push(end.saturating_sub(r.start));
        }
        groups
    }
}

/// Reads the ranges (event types 59 and 60) and domain names (75) of `NVTX_EVENTS`.
fn read_events(db: &ExportDb) -> Result<Events, NsysError> {
    const T: &str = EVENTS;
    let strings = db.string_ids()?;
    let text = db.col_or_null(T, "text");
    let text_id = db.col_or_null(T, "textId");
    let domain = db.col_or_null(T, "domainId");
    let sql = format!(
        "SELECT rowid, start, end, eventType, globalTid, {text}, {text_id}, {domain} FROM {T}"
    );
    let mut ranges = Vec::new();
    let mut domains: HashMap<(u64, i64), String> = HashMap::new();
    let mut last = i64::MIN;
    for_each_row(db, T, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let (Some(start), Some(event_type)) = (v(1), v(3)) else {
            let rowid = v(0).unwrap_or(-1);
            return Err(db.query_error(
                T,
                format!("rowid {rowid}: start or eventType is not an integer"),
            ));
        };
        let end = v(2);
        last = last.max(start).max(end.unwrap_or(i64::MIN));
        let process = (v(4).unwrap_or(0) as u64) >> 24;
        let dom = v(7).unwrap_or(0);
        let message = row
            .get_ref(5)
            .ok()
            .and_then(text_of)
            .or_else(|| v(6).and_then(|id| strings.get(&id).cloned()))
            .unwrap_or_default();
        match event_type {
            75 => {
                domains.insert((process, dom), message);
            }
            59 | 60 => ranges.push(Range {
                start,
                end,
                push_pop: event_type == 59,
                process,
                domain: dom,
                text: message,
            }),
            _ => {}
        }
        Ok(())
    })?;
    Ok(Events {
        ranges,
        domains,
        last,
    })
}
