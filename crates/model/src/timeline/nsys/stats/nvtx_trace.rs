//! NVTX ranges as nsys's trace and projection reports see them, and `nvtx_pushpop_trace`.
//!
//! Found against nsys 2023.4's output (the corpus and small exports made for the purpose):
//! - a range is a push/pop (eventType 59) or start/end (60) row, named `domain:text` (no prefix
//!   in the default domain or a domain without a name); its id is the NVTX_EVENTS rowid; a
//!   start/end range with an `endGlobalTid` is left out, even when that is its own thread;
//! - a range that never ends ends at the latest `end` of the ranges the report reads (push/pop
//!   for the trace; push/pop and start/end for the projections), not at the last timestamp;
//! - nesting is by time on each thread, whatever the domain: the parent of a range is the
//!   shortest other range of its thread that starts no later and ends no earlier (ties: the
//!   lowest id). Identical ranges are each other's parent: such a cycle, and everything under
//!   it, is reached from no root and has no level, parent id or stack — the trace leaves those
//!   ranges out;
//! - the trace lists ranges by start, end, level, then id.

use super::super::NsysError;
use super::super::db::{ExportDb, int_of, split_global_id};
use super::table::for_each_row;
use super::{Cell, Report, ReportOutcome, ReportRequest, ReportTable, Rows, skipped};
use crate::core::num::index_u32;
use rustc_hash::FxHashMap;

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[Report {
    name: "nvtx_pushpop_trace",
    about: "NVTX push/pop ranges one by one, with their nesting",
    options: &[],
    run: pushpop_trace,
}];

/// The table all NVTX reports read.
pub(super) const NVTX: &str = "NVTX_EVENTS";

/// nsys's message for an export without NVTX data.
pub(super) fn skipped_nvtx(db: &ExportDb) -> Result<ReportOutcome, NsysError> {
    skipped(db, "NV Tools Extension (NVTX) data")
}

/// One NVTX range.
#[derive(Debug, Clone)]
pub(super) struct Range {
    /// The NVTX_EVENTS rowid (nsys's RangeId).
    pub id: i64,
    /// Start (ns).
    pub start: i64,
    /// End (ns); a range that never ends has the latest end of the ranges read.
    pub end: Option<i64>,
    /// The thread that opened it.
    pub gtid: i64,
    /// Index into [`Ranges::names`].
    pub name: u32,
    /// Push/pop (true) or start/end.
    pub push_pop: bool,
}

impl Range {
    /// `end − start`, when the range has an end.
    pub fn duration(&self) -> Option<i64> {
        self.end.map(|e| e.saturating_sub(self.start))
    }
}

/// The ranges of an export with their names.
#[derive(Debug, Default)]
pub(super) struct Ranges {
    /// The ranges, in rowid order.
    pub ranges: Vec<Range>,
    /// Distinct full names (`domain:text`).
    pub names: Vec<String>,
    /// Each name's domain (empty for none) and text apart, as the recipes group them.
    pub parts: Vec<(String, String)>,
}

/// A range's text before its domain is known: a StringIds id, an interned inline text, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum TextKey {
    None,
    Id(i64),
    Inline(u32),
}

/// Reads the push/pop ranges (and, with `start_end`, the start/end ranges without an
/// `endGlobalTid`). Names are interned: one string per distinct name.
pub(super) fn load_ranges(db: &ExportDb, start_end: bool) -> Result<Ranges, NsysError> {
    let text = db.col_or_null(NVTX, "text");
    let text_id = db.col_or_null(NVTX, "textId");
    let domain = db.col_or_null(NVTX, "domainId");
    let end_tid = db.col_or_null(NVTX, "endGlobalTid");
    let types = if start_end { "59, 60, 75" } else { "59, 75" };
    let sql = format!(
        "SELECT rowid, start, end, eventType, globalTid, {end_tid}, {text}, {text_id}, {domain} \
         FROM {NVTX} WHERE eventType IN ({types}) ORDER BY rowid"
    );
    let mut inline: FxHashMap<String, u32> = FxHashMap::default();
    let mut inline_texts: Vec<String> = Vec::new();
    let mut domains: FxHashMap<(u64, i64), TextKey> = FxHashMap::default();
    // (range, process, domain, text) until the domains are known.
    let mut raw: Vec<(Range, u64, i64, TextKey)> = Vec::new();
    let mut latest_end: Option<i64> = None;
    for_each_row(db, NVTX, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let id = v(0).unwrap_or(-1);
        let (Some(start), Some(event_type)) = (v(1), v(3)) else {
            return Err(db.query_error(
                NVTX,
                format!("rowid {id}: start or eventType is not an integer"),
            ));
        };
        let gtid = v(4).unwrap_or(0);
        let key = match row.get_ref(6) {
            Ok(rusqlite::types::ValueRef::Text(t)) | Ok(rusqlite::types::ValueRef::Blob(t)) => {
                let s = String::from_utf8_lossy(t);
                let next = index_u32(inline_texts.len());
                let i = match inline.get(s.as_ref()) {
                    Some(&i) => i,
                    None => {
                        inline.insert(s.to_string(), next);
                        inline_texts.push(s.into_owned());
                        next
                    }
                };
                TextKey::Inline(i)
            }
            _ => v(7).map_or(TextKey::None, TextKey::Id),
        };
        let process = (gtid as u64) >> 24;
        let dom = v(8).unwrap_or(0);
        if event_type == 75 {
            domains.insert((process, dom), key);
            return Ok(());
        }
        let end = v(2);
        if let Some(e) = end {
            latest_end = Some(latest_end.map_or(e, |l| l.max(e)));
        }
        // nsys keeps a start/end range only when it has no end thread (even its own).
        if event_type == 60 && v(5).is_some() {
            return Ok(());
        }
        let range = Range {
            id,
            start,
            end,
            gtid,
            name: 0,
            push_pop: event_type == 59,
        };
        raw.push((range, process, dom, key));
        Ok(())
    })?;
    let strings = db.string_ids()?;
    Ok(named_ranges(
        raw,
        &domains,
        &strings,
        &inline_texts,
        latest_end,
    ))
}

/// The ranges read (with their process, domain id and text), named as nsys names them:
/// `DOMAIN:TEXT` for a range of a named domain, else its text; one name per distinct pair. A
/// range without an end ends at `latest_end`, the latest end read.
fn named_ranges(
    raw: Vec<(Range, u64, i64, TextKey)>,
    domains: &FxHashMap<(u64, i64), TextKey>,
    strings: &std::collections::HashMap<i64, String>,
    inline_texts: &[String],
    latest_end: Option<i64>,
) -> Ranges {
    let text_of_key = |k: TextKey| -> &str {
        match k {
            TextKey::None => "",
            TextKey::Id(id) => strings.get(&id).map_or("", |s| s.as_str()),
            TextKey::Inline(i) => inline_texts[i as usize].as_str(),
        }
    };
    let mut out = Ranges::default();
    let mut name_ids: FxHashMap<(Option<TextKey>, TextKey), u32> = FxHashMap::default();
    for (mut range, process, dom, key) in raw {
        let dom_key = if dom != 0 {
            domains.get(&(process, dom)).copied()
        } else {
            None
        };
        let next = index_u32(out.names.len());
        range.name = *name_ids.entry((dom_key, key)).or_insert_with(|| {
            let text = text_of_key(key);
            let domain = dom_key.map_or("", text_of_key);
            out.names.push(match dom_key {
                Some(_) => format!("{domain}:{text}"),
                None => text.to_string(),
            });
            out.parts.push((domain.to_owned(), text.to_owned()));
            next
        });
        if range.end.is_none() {
            range.end = latest_end;
        }
        out.ranges.push(range);
    }
    out
}

/// A range's place in the nesting: its parent (index into the ranges) and its level, `None`
/// when no root reaches it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Node {
    /// The shortest other range of the thread that contains it.
    pub parent: Option<usize>,
    /// Depth below a root; `None` for ranges in (or under) a cycle.
    pub lvl: Option<u32>,
}

/// The indices of `ranges` by thread, start and id (what [`nest`] walks).
pub(super) fn by_thread(ranges: &[Range]) -> Vec<usize> {
    // The keys beside the indices: a sort that does not look each key up.
    let mut keys: Vec<(i64, i64, i64, usize)> = ranges
        .iter()
        .enumerate()
        .map(|(i, r)| (r.gtid, r.start, r.id, i))
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|(.., i)| i).collect()
}

/// The nesting of `ranges` by time, per thread (see the module notes), given their
/// [`by_thread`] order.
pub(super) fn nest(ranges: &[Range], order: &[usize]) -> Vec<Node> {
    let mut nodes = vec![Node::default(); ranges.len()];
    let mut active: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < order.len() {
        if i == 0 || ranges[order[i]].gtid != ranges[order[i - 1]].gtid {
            active.clear();
        }
        let (gtid, start) = (ranges[order[i]].gtid, ranges[order[i]].start);
        let mut j = i;
        while j < order.len() && ranges[order[j]].gtid == gtid && ranges[order[j]].start == start {
            j += 1;
        }
        active.retain(|&a| ranges[a].end.is_some_and(|e| e >= start));
        active.extend(order[i..j].iter().filter(|&&k| ranges[k].end.is_some()));
        for &k in &order[i..j] {
            let Some(end) = ranges[k].end else { continue };
            nodes[k].parent = active
                .iter()
                .filter(|&&a| a != k && ranges[a].end.is_some_and(|e| e >= end))
                .min_by_key(|&&a| (ranges[a].duration(), ranges[a].id))
                .copied();
        }
        i = j;
    }
    levels(&mut nodes);
    nodes
}

/// Levels from the parent links: roots are 0; a cycle and what hangs under it get none.
fn levels(nodes: &mut [Node]) {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unknown,
        Walking,
        Done,
    }
    let mut state = vec![State::Unknown; nodes.len()];
    let mut path: Vec<usize> = Vec::new();
    for first in 0..nodes.len() {
        let mut k = first;
        // Walk up until a root, a known node or a node of the current walk (a cycle).
        let base: Option<u32> = loop {
            match state[k] {
                State::Done => break nodes[k].lvl,
                State::Walking => break None,
                State::Unknown => {}
            }
            state[k] = State::Walking;
            path.push(k);
            match nodes[k].parent {
                Some(p) => k = p,
                None => {
                    path.pop();
                    nodes[k].lvl = Some(0);
                    state[k] = State::Done;
                    break Some(0);
                }
            }
        };
        let mut lvl = base;
        while let Some(k) = path.pop() {
            lvl = lvl.map(|l| l + 1);
            nodes[k].lvl = lvl;
            state[k] = State::Done;
        }
    }
}

/// `:id:id...` from the root down to range `k` (a reached range).
pub(super) fn range_stack(ranges: &[Range], nodes: &[Node], k: usize) -> String {
    let mut ids = vec![ranges[k].id];
    let mut at = k;
    while let Some(p) = nodes[at].parent {
        if ids.len() > ranges.len() {
            break;
        }
        ids.push(ranges[p].id);
        at = p;
    }
    let mut s = String::new();
    for id in ids.iter().rev() {
        s.push(':');
        s.push_str(&id.to_string());
    }
    s
}

/// An integer cell, or an empty one.
pub(super) fn opt_cell(v: Option<i64>) -> Cell {
    match v {
        Some(v) => Cell::int(v),
        None => Cell::Text(String::new().into()),
    }
}

/// The PID and TID cells of a serialized globalTid.
pub(super) fn pid_tid(gtid: i64) -> [Cell; 2] {
    let (_, pid, tid) = split_global_id(gtid);
    [Cell::int(pid), Cell::int(tid)]
}

fn pushpop_trace(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(NVTX) {
        return skipped_nvtx(db);
    }
    let Ranges { ranges, names, .. } = load_ranges(db, false)?;
    let nodes = nest(&ranges, &by_thread(&ranges));
    let mut children = vec![(0u64, 0i64); ranges.len()];
    for (k, node) in nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            children[p].0 += 1;
            children[p].1 += ranges[k].duration().unwrap_or(0);
        }
    }
    let mut order: Vec<usize> = (0..ranges.len())
        .filter(|&k| nodes[k].lvl.is_some())
        .collect();
    order.sort_unstable_by_key(|&k| {
        let r = &ranges[k];
        (r.start, r.end, nodes[k].lvl, r.id)
    });
    let columns = [
        "Start (ns)",
        "End (ns)",
        "Duration (ns)",
        "DurChild (ns)",
        "DurNonChild (ns)",
        "Name",
        "PID",
        "TID",
        "Lvl",
        "NumChild",
        "RangeId",
        "ParentId",
        "RangeStack",
        "NameTree",
    ];
    let rows = Rows::lazy(order, move |&k: &usize, row: &mut Vec<Cell>| {
        let r = &ranges[k];
        let lvl = nodes[k].lvl.unwrap_or(0);
        let name = names.get(r.name as usize).map_or("", String::as_str);
        let (num_child, dur_child) = children[k];
        row.extend(
            [Cell::int(r.start), opt_cell(r.end), opt_cell(r.duration())]
                .into_iter()
                .chain([
                    Cell::int(dur_child),
                    opt_cell(r.duration().map(|d| d - dur_child)),
                    Cell::Text(name.into()),
                ])
                .chain(pid_tid(r.gtid))
                .chain([
                    Cell::int(lvl),
                    Cell::int(num_child),
                    Cell::int(r.id),
                    opt_cell(nodes[k].parent.map(|p| ranges[p].id)),
                    Cell::Text(range_stack(&ranges, &nodes, k).into()),
                    Cell::Text(format!("{}{name}", "--".repeat(lvl as usize)).into()),
                ]),
        );
    });
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        columns,
        rows,
    )))
}
