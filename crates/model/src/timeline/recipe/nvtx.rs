//! One file's part of `nvtx_sum` and `nccl_sum`: the durations of its NVTX push/pop and
//! start/end ranges grouped by their text alone (the domain left out: NCCL's
//! `NCCL:ncclCommInitRank` is `ncclCommInitRank`), `nccl_sum` keeping the ranges of the domain
//! named `NCCL`; reduced to each group's statistics ([`Described`]).
//!
//! Learnt from the recipes' outputs: a range is kept when it overlaps `--start`/`--end` (it
//! ends at or after the start and starts at or before the end, both inclusive); ranges
//! without a text are left out; the file's durations are floats (`61125442.0`) when any row of
//! its `NVTX_EVENTS` has no end (a mark, a domain's creation), integers otherwise.

use std::collections::{BTreeMap, HashMap};

use super::describe::Described;
use crate::timeline::nsys::db::{int_of, text_of};
use crate::timeline::nsys::stats::projected_ranges;
use crate::timeline::nsys::{ExportDb, NsysError};

/// The NVTX events table.
pub(crate) const NVTX: &str = "NVTX_EVENTS";

/// The `--start`/`--end` window of a recipe (ns, inclusive).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    /// `--start`.
    pub start: Option<i64>,
    /// `--end`.
    pub end: Option<i64>,
}

impl Window {
    /// Whether a range is kept: it overlaps the window (a range without an end only when
    /// there is no `--start`).
    pub fn keeps(&self, start: i64, end: Option<i64>) -> bool {
        self.end.is_none_or(|e| start <= e)
            && self.start.is_none_or(|s| end.is_some_and(|end| end >= s))
    }

    /// The window as `lo..=hi` (`None`: the whole timeline).
    pub fn bounds(&self) -> Option<(i64, i64)> {
        (!self.is_all()).then(|| (self.start.unwrap_or(i64::MIN), self.end.unwrap_or(i64::MAX)))
    }

    /// Whether the window is the whole timeline.
    pub fn is_all(&self) -> bool {
        self.start.is_none() && self.end.is_none()
    }
}

/// One file's groups, by text (byte order, as pandas sorts them).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankPart {
    /// Each group's text and statistics.
    pub groups: Vec<(String, Described)>,
    /// Whether the file's durations are floats (see the module's comment).
    pub floats: bool,
}

impl RankPart {
    /// The groups of `values` (text → durations in table order).
    pub fn of(values: BTreeMap<String, Vec<i64>>, floats: bool) -> RankPart {
        let groups = values
            .into_iter()
            .filter_map(|(text, v)| Some((text, Described::of(&v)?)))
            .collect();
        RankPart { groups, floats }
    }
}

/// One range as the summaries need it.
#[derive(Debug, Clone)]
pub(crate) struct RawRange {
    /// Its text (`None`: none).
    pub text: Option<String>,
    /// Its domain's name (`None`: the default domain or one never named).
    pub domain: Option<String>,
    /// Start (ns).
    pub start: i64,
    /// End (ns), when it ended.
    pub end: Option<i64>,
    /// The thread that opened it (`globalTid`), when the export names it.
    pub tid: Option<i64>,
}

/// The push/pop and start/end ranges of `NVTX_EVENTS` in rowid order, and whether any row of
/// the table lacks an end; `None` when the export has no NVTX table.
pub(crate) fn read_ranges(db: &ExportDb) -> Result<Option<(Vec<RawRange>, bool)>, NsysError> {
    if !db.has_table(NVTX) {
        return Ok(None);
    }
    let strings = db.string_ids()?;
    let cols = db.cols_or_null(NVTX, &["text", "textId", "domainId", "globalTid"]);
    let sql = format!("SELECT rowid, start, end, eventType, {cols} FROM {NVTX} ORDER BY rowid");
    let mut ranges = Vec::new();
    let mut domains: HashMap<(i64, i64), String> = HashMap::new();
    // (range, process, domain id) until every domain is named.
    let mut raw: Vec<(RawRange, i64, i64)> = Vec::new();
    let mut open = false;
    db.scan_around_damage(NVTX, &sql, |row| {
        let v = |i| row.get_ref(i).ok().and_then(int_of);
        let (Some(start), Some(event_type)) = (v(1), v(3)) else {
            let rowid = v(0).unwrap_or(-1);
            return Err(db.query_error(NVTX, format!("rowid {rowid}: no start or eventType")));
        };
        let end = v(2);
        open |= end.is_none();
        let text = row
            .get_ref(4)
            .ok()
            .and_then(text_of)
            .or_else(|| v(5).and_then(|id| strings.get(&id).cloned()));
        let (domain, process) = (v(6).unwrap_or(0), v(7).unwrap_or(0) >> 24);
        match event_type {
            75 => {
                domains.insert((process, domain), text.unwrap_or_default());
            }
            59 | 60 => raw.push((
                RawRange {
                    text,
                    domain: None,
                    start,
                    end,
                    tid: v(7),
                },
                process,
                domain,
            )),
            _ => {}
        }
        Ok(())
    })?;
    for (mut r, process, domain) in raw {
        if domain != 0 {
            r.domain = domains.get(&(process, domain)).cloned();
        }
        ranges.push(r);
    }
    Ok(Some((ranges, open)))
}

/// One file's part of `nvtx_sum` (`domain` `None`) or `nccl_sum` (`Some("NCCL")`); `None`
/// when the file has no such range.
pub fn nvtx_part(
    db: &ExportDb,
    domain: Option<&str>,
    window: Window,
) -> Result<Option<RankPart>, NsysError> {
    let Some((ranges, open)) = read_ranges(db)? else {
        return Ok(None);
    };
    let mut values: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for r in ranges {
        if domain.is_some_and(|d| r.domain.as_deref() != Some(d)) || !window.keeps(r.start, r.end) {
            continue;
        }
        if let (Some(text), Some(end)) = (r.text, r.end) {
            values
                .entry(text)
                .or_default()
                .push(end.saturating_sub(r.start));
        }
    }
    let part = RankPart::of(values, open);
    Ok((!part.groups.is_empty()).then_some(part))
}

/// One file's part of `nvtx_gpu_proj_sum` (`domain` `None`) or `nccl_gpu_proj_sum`
/// (`Some("NCCL")`): the projected durations of its ranges (as `nsys stats`'
/// `nvtx_gpu_proj_trace` projects them) by text; `None` when the file has none.
pub fn projection_part(
    db: &ExportDb,
    domain: Option<&str>,
    window: Window,
) -> Result<Option<RankPart>, NsysError> {
    let Some(ranges) = projected_ranges(db, window.bounds())? else {
        return Ok(None);
    };
    let mut values: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for r in ranges {
        if domain.is_some_and(|d| r.domain != d) || !window.keeps(r.start, r.end) {
            continue;
        }
        values
            .entry(r.text)
            .or_default()
            .push(r.proj_end.saturating_sub(r.proj_start));
    }
    let part = RankPart::of(values, false);
    Ok((!part.groups.is_empty()).then_some(part))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_kept_when_it_overlaps_the_window() {
        let w = Window {
            start: Some(100),
            end: Some(200),
        };
        assert!(w.keeps(50, Some(100)));
        assert!(w.keeps(200, Some(300)));
        assert!(w.keeps(50, Some(300)), "spanning the window");
        assert!(!w.keeps(201, Some(300)));
        assert!(!w.keeps(50, Some(99)));
        assert!(!w.keeps(50, None));
        assert!(Window::default().keeps(i64::MIN, None));
        let from = Window {
            start: Some(100),
            end: None,
        };
        assert!(from.keeps(0, Some(100)) && !from.keeps(0, Some(99)));
    }

    #[test]
    fn groups_are_sorted_by_text_in_byte_order() {
        let values = BTreeMap::from([
            ("ncclCommInitRank".to_owned(), vec![5]),
            ("Model".to_owned(), vec![1, 3]),
            ("A-Task 0".to_owned(), vec![2]),
        ]);
        let part = RankPart::of(values, true);
        let texts: Vec<&str> = part.groups.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["A-Task 0", "Model", "ncclCommInitRank"]);
        assert!(part.floats);
    }
}
