//! `wddm_queue_sum`: how busy each WDDM queue was.
//!
//! Found on exports made for the purpose (`fixtures/nsys/reports/apis/`): a packet is a start
//! event matched with the stop event of the same GPU, context and submit sequence (queue
//! packets: `WDDM_QUEUE_PACKET_*`, Q Type 0 "queue"; DMA packets: `WDDM_DMA_PACKET_*`, Q Type 1
//! "dma"); it lasts from the start's to the stop's timestamp. Packets group by queue type,
//! process, GPU, context and engine type. Utilization is the time covered by the group's
//! packets (overlaps counted once) over the span of all packets of the process. The name is
//! the engine type's (3D, Copy, ...), the context's friendly name for type 0; Node Ord is the
//! context's. Rows by utilization, descending.

use std::collections::HashMap;

use super::super::NsysError;
use super::super::db::{ExportDb, quote_ident};
use super::api_table::{Key3, empty_table, for_each_row, int_at, pid_tid, required_int, text_at};
use super::table::time_cells;
use super::{Cell, Report, ReportOutcome, ReportRequest, ReportTable, skipped};
use crate::timeline::summary::{Summary, fmt_ratio};

/// The reports of this module.
pub(super) const REPORTS: &[Report] = &[Report {
    name: "wddm_queue_sum",
    about: "WDDM queue utilization: packets per queue and how busy it was",
    options: &[],
    run: wddm_queue_sum,
}];

const CONTEXTS: &str = "TARGET_INFO_WDDM_CONTEXTS";

/// Queue kinds: start table, stop table, submit sequence column, Q Type, Q Name.
const QUEUES: &[(&str, &str, &str, i64, &str)] = &[
    (
        "WDDM_QUEUE_PACKET_START_EVENTS",
        "WDDM_QUEUE_PACKET_STOP_EVENTS",
        "submitSequence",
        0,
        "queue",
    ),
    (
        "WDDM_DMA_PACKET_START_EVENTS",
        "WDDM_DMA_PACKET_STOP_EVENTS",
        "ulQueueSubmitSequence",
        1,
        "dma",
    ),
];

/// DXGK engine type names; type 0 (other) is named by its context.
const ENGINES: &[&str] = &[
    "",
    "3D",
    "Video Decode",
    "Video Encode",
    "Video Processing",
    "Scene Assembly",
    "Copy",
    "Overlay",
    "Crypto",
];

const COLUMNS: &[&str] = &[
    "Utilization (%)",
    "Instances",
    "Avg (ns)",
    "Med (ns)",
    "Min (ns)",
    "Max (ns)",
    "StdDev (ns)",
    "Name",
    "Q Type",
    "Q Name",
    "PID",
    "GPU ID",
    "Context",
    "Engine",
    "Node Ord",
];

/// A queue: Q Type, pid, GPU, context, engine type.
type QueueKey = (i64, i64, i64, i64, i64);

fn wddm_queue_sum(db: &ExportDb, req: &ReportRequest) -> Result<ReportOutcome, NsysError> {
    if !db.has_table(CONTEXTS) {
        return skipped(db, "WDDM context data");
    }
    let queues: Vec<_> = QUEUES
        .iter()
        .filter(|(start, stop, ..)| db.has_table(start) && db.has_table(stop))
        .collect();
    if queues.is_empty() {
        return skipped(db, "WDDM event data");
    }
    let mut packets = Packets::default();
    for &&queue in &queues {
        packets.read(db, queue)?;
    }
    if packets.by_queue.is_empty() {
        return Ok(ReportOutcome::Table(empty_table(req.report.name, COLUMNS)));
    }
    let contexts = contexts(db)?;
    let mut rows: Vec<(i128, i128, QueueKey, Vec<Cell>)> = packets
        .by_queue
        .into_iter()
        .filter_map(|(key, list)| queue_row(key, list, &packets.spans, &contexts))
        .collect();
    // By utilization (busy / span), descending; then by queue.
    rows.sort_by(|a, b| (b.0 * a.1).cmp(&(a.0 * b.1)).then(a.2.cmp(&b.2)));
    Ok(ReportOutcome::Table(ReportTable::new(
        req.report.name,
        COLUMNS,
        rows.into_iter().map(|r| r.3).collect::<Vec<_>>(),
    )))
}

/// Packets per queue as (start, stop), and the span of each process.
#[derive(Default)]
struct Packets {
    /// The packets of each queue.
    by_queue: HashMap<QueueKey, Vec<(i64, i64)>>,
    /// The first start and last stop of each process's packets.
    spans: HashMap<i64, (i64, i64)>,
}

impl Packets {
    /// Reads one queue kind's packets: each start event matched with the first stop event of
    /// the same GPU, context and submit sequence (a start without a stop is no packet).
    fn read(
        &mut self,
        db: &ExportDb,
        (start_table, stop_table, seq, qtype, _): (&str, &str, &str, i64, &str),
    ) -> Result<(), NsysError> {
        let key_sql = |t: &str| db.cols_or_null(t, &["gpu", "context", seq]);
        let mut stops: HashMap<Key3, i64> = HashMap::new();
        let sql = format!(
            "SELECT rowid, start, {} FROM {}",
            key_sql(stop_table),
            quote_ident(stop_table)
        );
        for_each_row(db, stop_table, &sql, |row| {
            let at = required_int(db, stop_table, row, 1, "start")?;
            stops
                .entry((int_at(row, 2), int_at(row, 3), int_at(row, 4)))
                .or_insert(at);
            Ok(())
        })?;
        let sql = format!(
            "SELECT rowid, start, {}, {} FROM {}",
            key_sql(start_table),
            db.cols_or_null(start_table, &["globalTid", "engineType"]),
            quote_ident(start_table)
        );
        for_each_row(db, start_table, &sql, |row| {
            let at = required_int(db, start_table, row, 1, "start")?;
            let (gpu, context) = (int_at(row, 2), int_at(row, 3));
            let Some(&stop) = stops.get(&(gpu, context, int_at(row, 4))) else {
                return Ok(());
            };
            let pid = int_at(row, 5).map_or(0, |g| pid_tid(g).0);
            let key = (
                qtype,
                pid,
                gpu.unwrap_or(0),
                context.unwrap_or(0),
                int_at(row, 6).unwrap_or(0),
            );
            self.by_queue.entry(key).or_default().push((at, stop));
            let span = self.spans.entry(pid).or_insert((at, stop));
            span.0 = span.0.min(at);
            span.1 = span.1.max(stop);
            Ok(())
        })
    }
}

/// One queue's row with its busy time and its process's span (the utilization it sorts by);
/// `None` for a queue without packets.
fn queue_row(
    key: QueueKey,
    mut list: Vec<(i64, i64)>,
    spans: &HashMap<i64, (i64, i64)>,
    contexts: &HashMap<i64, (String, Option<i64>)>,
) -> Option<(i128, i128, QueueKey, Vec<Cell>)> {
    let (qtype, pid, gpu, context, engine) = key;
    list.sort_unstable();
    let busy = covered(&list);
    let span = spans.get(&pid).map_or(0, |(a, b)| b.saturating_sub(*a));
    let mut durations: Vec<i64> = list.iter().map(|(a, b)| b.saturating_sub(*a)).collect();
    let s = Summary::of(&mut durations)?;
    let (friendly, node) = contexts
        .get(&context)
        .map_or(("", None), |(n, o)| (n.as_str(), *o));
    let name = usize::try_from(engine)
        .ok()
        .and_then(|e| ENGINES.get(e))
        .filter(|n| !n.is_empty())
        .copied()
        .unwrap_or(friendly);
    let mut cells = vec![Cell::Number(
        fmt_ratio(100 * i128::from(busy), i128::from(span), 1).into(),
    )];
    cells.extend(time_cells(&s, 0).into_iter().skip(2));
    cells.extend([
        Cell::Text(name.into()),
        Cell::int(qtype),
        Cell::Text(queue_name(qtype).into()),
        Cell::int(pid),
        Cell::int(gpu),
        Cell::Text(format!("0x{context:X}").into()),
        Cell::int(engine),
        Cell::Number(node.map(|n| n.to_string()).unwrap_or_default().into()),
    ]);
    Some((i128::from(busy), i128::from(span), key, cells))
}

/// Time covered by sorted intervals, overlaps counted once.
fn covered(sorted: &[(i64, i64)]) -> i64 {
    let mut total = 0i64;
    let mut current: Option<(i64, i64)> = None;
    for &(a, b) in sorted {
        match current {
            Some((s, e)) if a <= e => current = Some((s, e.max(b))),
            Some((s, e)) => {
                total = total.saturating_add(e.saturating_sub(s));
                current = Some((a, b));
            }
            None => current = Some((a, b)),
        }
    }
    if let Some((s, e)) = current {
        total = total.saturating_add(e.saturating_sub(s));
    }
    total
}

/// Friendly name and node ordinal of each WDDM context.
fn contexts(db: &ExportDb) -> Result<HashMap<i64, (String, Option<i64>)>, NsysError> {
    let sql = format!(
        "SELECT rowid, {} FROM {CONTEXTS}",
        db.cols_or_null(CONTEXTS, &["context", "friendlyName", "nodeOrdinal"])
    );
    let mut out = HashMap::new();
    for_each_row(db, CONTEXTS, &sql, |row| {
        if let Some(context) = int_at(row, 1) {
            out.entry(context)
                .or_insert_with(|| (text_at(row, 2).unwrap_or_default(), int_at(row, 3)));
        }
        Ok(())
    })?;
    Ok(out)
}

/// The Q Name of queue kind `qtype` (one of [`QUEUES`]' Q Types).
fn queue_name(qtype: i64) -> &'static str {
    QUEUES.iter().find(|q| q.3 == qtype).map_or("", |q| q.4)
}

#[cfg(test)]
mod tests {
    use super::covered;

    #[test]
    fn overlaps_count_once() {
        assert_eq!(covered(&[(0, 300), (100, 200), (1000, 1100)]), 400);
        assert_eq!(covered(&[(100, 300), (150, 350)]), 250);
        assert_eq!(covered(&[]), 0);
    }
}
