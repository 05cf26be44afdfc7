//! The CPU side of an export beyond API calls: call stacks (`SAMPLING_CALLCHAINS`,
//! `OSRT_CALLCHAINS`, `CUDA_CALLCHAINS`), CPU samples (`COMPOSITE_EVENTS`: one instant per
//! sample on the thread's "CPU samples" row, named by its innermost frame) and thread states
//! (`SCHED_EVENTS`: each sched-in to the next sched-out of the thread is a "Running on CPU n"
//! range on the thread's "Thread state" row).

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::tracks::machine_track;
use super::{Loader, SERIES_SAMPLES, SERIES_SCHED, integer, rowid};
use crate::timeline::builder::{NewEvent, TimelineBuilder};
use crate::timeline::model::{EventAttrs, EventKind, NO_STACK, Timeline, TrackId, TrackKind};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::split_global_id;
use crate::timeline::nsys::db::{ExportDb, int_of};
use crate::timeline::stacks::{Frame, StackId, StacksBuilder};
use crate::timeline::strings::StrId;

/// The call stacks of a load and, when the CPU samples' call stacks are read after a preview
/// ([`super::LoadOptions::preview`]), what reading them later needs.
pub(super) struct Samples {
    /// Whether the samples' call stacks are read after the rest: until then a sample's
    /// correlation column holds its callchain id, or `NO_STACK` with the id in `wide_chains`
    /// (by rowid) when it does not fit.
    pub(super) deferred: bool,
    /// The callchain ids that do not fit a correlation column, by the sample's rowid.
    wide_chains: HashMap<u32, i64>,
    /// The call stacks read.
    pub(super) stacks: StacksBuilder,
}

impl Samples {
    /// No stacks yet; the samples' ones read after a preview when `deferred`.
    pub(super) fn new(deferred: bool) -> Self {
        Self {
            deferred,
            wide_chains: HashMap::new(),
            stacks: StacksBuilder::default(),
        }
    }
}

/// The stacks of one `*_CALLCHAINS` table by callchain id, with the rows each one took.
///
/// Ids are dense in exports (a sample's callchain id is its `COMPOSITE_EVENTS.id`, 1, 2, …), so
/// they index a vector of 8-byte entries; an id far beyond the ids seen so far (the vector would
/// become less than half full) goes to a map instead.
#[derive(Default)]
pub(super) struct Callchains {
    table: &'static str,
    /// By id: the stack's id + 1 (0: none) and its rows.
    dense: Vec<(u32, u32)>,
    /// Ids of `dense` holding a stack.
    dense_count: usize,
    /// The other ids.
    sparse: HashMap<i64, (StackId, u64)>,
    /// Rows of ids that events use.
    used_rows: u64,
    /// Rows of a run of an id that a later run of the same id replaced, or that made no stack.
    replaced_rows: u64,
}

impl Callchains {
    /// Records the stack of callchain `id` and the rows it took (a later one replaces it).
    fn insert(&mut self, id: i64, stack: StackId, rows: u64) {
        let dense_ok = usize::try_from(id)
            .ok()
            .filter(|&i| i < self.dense.len() || i < 2 * self.dense_count + 1024);
        match (dense_ok, stack.0.checked_add(1), u32::try_from(rows)) {
            (Some(i), Some(stack1), Ok(rows)) => {
                if i >= self.dense.len() {
                    self.dense.resize(i + 1, (0, 0));
                }
                if self.dense[i].0 == 0 {
                    self.dense_count += 1;
                }
                self.replaced_rows += u64::from(self.dense[i].1);
                if let Some((_, old)) = self.sparse.get(&id) {
                    self.replaced_rows += old;
                }
                self.dense[i] = (stack1, rows);
                self.sparse.remove(&id);
            }
            _ => {
                if let Some(entry) = usize::try_from(id).ok().and_then(|i| self.dense.get_mut(i))
                    && entry.0 != 0
                {
                    self.replaced_rows += u64::from(entry.1);
                    *entry = (0, 0);
                    self.dense_count -= 1;
                }
                if let Some((_, old)) = self.sparse.insert(id, (stack, rows)) {
                    self.replaced_rows += old;
                }
            }
        }
    }

    /// Whether no call stack was read.
    pub(super) fn is_empty(&self) -> bool {
        self.dense_count == 0 && self.sparse.is_empty()
    }

    /// The stack of callchain `id` (0 and unknown ids have none); counts it as used.
    pub(super) fn take(&mut self, id: Option<i64>) -> Option<StackId> {
        let id = id.filter(|&i| i != 0)?;
        if let Some(entry) = usize::try_from(id).ok().and_then(|i| self.dense.get_mut(i))
            && entry.0 != 0
        {
            self.used_rows += u64::from(std::mem::take(&mut entry.1));
            return Some(StackId(entry.0 - 1));
        }
        let entry = self.sparse.get_mut(&id)?;
        self.used_rows += std::mem::take(&mut entry.1);
        Some(entry.0)
    }

    /// Rows of stacks no event took.
    fn unused_rows(&self) -> u64 {
        let dense: u64 = self.dense.iter().map(|&(_, rows)| u64::from(rows)).sum();
        dense + self.sparse.values().map(|(_, rows)| rows).sum::<u64>()
    }
}

/// The query [`Loader::callchains`] reads `table` with.
pub(super) fn callchains_sql(db: &ExportDb, table: &str) -> String {
    let unresolved = db.col_or_null(table, "unresolved");
    format!("SELECT rowid, id, symbol, module, {unresolved}, stackDepth FROM {table}")
}

/// The query [`Loader::cpu_samples`] reads `COMPOSITE_EVENTS` with.
pub(super) fn samples_sql() -> String {
    "SELECT rowid, id, start, globalTid FROM COMPOSITE_EVENTS".to_owned()
}

/// The query [`Loader::thread_states`] reads `SCHED_EVENTS` with.
pub(super) fn sched_sql() -> String {
    "SELECT rowid, start, cpu, isSchedIn, globalTid FROM SCHED_EVENTS ORDER BY start".to_owned()
}

impl Loader<'_, '_> {
    /// Reads the call stacks of `table` (`id`, `symbol`, `module`, `unresolved`,
    /// `stackDepth`; depth 0 is the innermost frame). Rows of one id are consecutive in every
    /// export seen; a later run of an id already read replaces it.
    pub(super) fn callchains(&mut self, table: &'static str) -> Result<Callchains, NsysError> {
        let mut chains = Callchains {
            table,
            ..Callchains::default()
        };
        if !self.db.has_table(table) {
            return Ok(chains);
        }
        let sql = callchains_sql(self.db, table);
        // The frames of the id being read, innermost first as the rows come.
        let mut current: Option<i64> = None;
        let mut frames: Vec<(i64, Frame)> = Vec::new();
        let mut symbols: FxHashMap<i64, StrId> = FxHashMap::default();
        let mut finish = |l: &mut Self, id: Option<i64>, frames: &mut Vec<(i64, Frame)>| {
            if let Some(id) = id {
                frames.sort_by_key(|(depth, _)| std::cmp::Reverse(*depth));
                let rows = frames.len() as u64;
                match l.samples.stacks.stack(frames.drain(..).map(|(_, f)| f)) {
                    Some(stack) => chains.insert(id, stack, rows),
                    None => chains.replaced_rows += rows,
                }
            }
        };
        self.scan(table, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let id = integer(v(1), "id")?;
            if current != Some(id) {
                finish(l, current, &mut frames);
                current = Some(id);
            }
            let mut name = |l: &mut Self, sid: Option<i64>| match sid {
                Some(sid) => *symbols
                    .entry(sid)
                    .or_insert_with(|| l.names.raw_name(&mut l.b, sid)),
                None => StrId::default(),
            };
            let symbol = name(l, v(2));
            let module = name(l, v(3));
            frames.push((
                v(5).unwrap_or(0),
                Frame {
                    symbol,
                    module,
                    unresolved: v(4).is_some_and(|u| u != 0),
                },
            ));
            Ok(())
        })?;
        finish(self, current, &mut frames);
        Ok(chains)
    }

    /// Accounts the rows of `chains`: those of stacks events use are attached, the others
    /// skipped.
    pub(super) fn account_callchains(&mut self, chains: &Callchains) {
        if chains.table.is_empty() {
            return;
        }
        let imports = &mut self.b.session.imports;
        imports.attached(chains.table, chains.used_rows);
        let unused = chains.unused_rows();
        imports.skipped(
            chains.table,
            "the call stack of no event of the export",
            unused,
        );
        // Rows of an id are consecutive in every export seen; a damaged one may split them.
        imports.skipped(
            chains.table,
            "a later run of rows of the same call stack id replaced these",
            chains.replaced_rows,
        );
    }

    /// `COMPOSITE_EVENTS` with their `SAMPLING_CALLCHAINS`: one instant per sample.
    pub(super) fn cpu_samples(&mut self) -> Result<(), NsysError> {
        const T: &str = "COMPOSITE_EVENTS";
        if !self.db.has_table(T) {
            return Ok(());
        }
        let defer = self.samples.deferred;
        let mut chains = if defer {
            Callchains::default()
        } else {
            self.callchains("SAMPLING_CALLCHAINS")?
        };
        let no_stack = self.b.intern("[no call stack]");
        let pending = self.b.intern(super::STACKS_PENDING);
        let before = self.b.event_count();
        let sql = samples_sql();
        self.scan(T, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let start = integer(v(2), "start")?;
            let gtid = integer(v(3), "globalTid")?;
            let source = rowid(v(0));
            let (name, correlation) = if defer {
                // The callchain id, kept until the stacks are read (`sample_stacks`).
                match v(1).filter(|&id| id != 0) {
                    Some(id) => match u32::try_from(id).ok().filter(|&c| c != NO_STACK) {
                        Some(chain) => (pending, chain),
                        None => {
                            l.samples.wide_chains.insert(source, id);
                            (pending, NO_STACK)
                        }
                    },
                    None => (no_stack, NO_STACK),
                }
            } else {
                let stack = chains.take(v(1));
                let name = stack
                    .and_then(|s| l.samples.stacks.innermost_symbol(s))
                    .unwrap_or(no_stack);
                (name, stack.map_or(NO_STACK, |s| s.0))
            };
            let track =
                l.tracks
                    .thread_series(&mut l.b, &l.names, gtid, SERIES_SAMPLES, "CPU samples");
            l.b.push(
                track,
                NewEvent {
                    correlation,
                    ..NewEvent::new(EventKind::CpuSample, start, start, name, source)
                },
            );
            Ok(())
        })?;
        self.events_since(T, before);
        if !defer {
            self.account_callchains(&chains);
        }
        Ok(())
    }

    /// Reads the CPU samples' call stacks after the timeline was finished without them
    /// ([`super::LoadOptions::preview`]): names each sample by its innermost frame and gives
    /// it its stack, in the finished `timeline`.
    pub(super) fn sample_stacks(&mut self, timeline: &mut Timeline) -> Result<(), NsysError> {
        // Counted now rather than before the preview (`Loader::new`).
        let rows = self.db.row_count(super::SAMPLE_CHAINS)?;
        self.reading.rows_total += rows;
        // Interning and the import statistics go on into the finished timeline's own.
        self.b.swap_strings(&mut timeline.strings);
        std::mem::swap(&mut self.b.session, &mut timeline.session);
        let source = self.b.session.imports.source(super::SAMPLE_CHAINS);
        source.rows = rows;
        source.documented = crate::timeline::nsys::schema::is_documented(super::SAMPLE_CHAINS);
        let read = self.callchains(super::SAMPLE_CHAINS);
        let result = read.map(|mut chains| {
            let no_stack = self.b.intern("[no call stack]");
            let c = &mut timeline.columns;
            for i in 0..c.kind.len() {
                if c.kind[i] != EventKind::CpuSample || c.name[i] == no_stack {
                    continue;
                }
                let chain = match c.correlation.at(i) {
                    NO_STACK => self.samples.wide_chains.get(&c.source.at(i)).copied(),
                    chain => Some(i64::from(chain)),
                };
                let stack = chains.take(chain);
                c.name[i] = stack
                    .and_then(|s| self.samples.stacks.innermost_symbol(s))
                    .unwrap_or(no_stack);
                c.correlation.set(i, stack.map_or(NO_STACK, |s| s.0));
            }
            self.account_callchains(&chains);
        });
        self.b.swap_strings(&mut timeline.strings);
        std::mem::swap(&mut self.b.session, &mut timeline.session);
        timeline.warnings.extend(self.b.take_warnings());
        result?;
        timeline.stacks = std::mem::take(&mut self.samples.stacks).finish();
        timeline.stacks_pending = false;
        Ok(())
    }

    /// `SCHED_EVENTS`: each thread's sched-in to its next sched-out is a running range; a
    /// thread still running at the end runs to the last scheduling event of the export.
    pub(super) fn thread_states(&mut self) -> Result<(), NsysError> {
        const T: &str = "SCHED_EVENTS";
        if !self.db.has_table(T) {
            return Ok(());
        }
        let sql = sched_sql();
        let mut running: HashMap<i64, (i64, i64, u32)> = HashMap::new();
        let mut cpu_names: HashMap<i64, StrId> = HashMap::new();
        let mut thread_labels: HashMap<i64, StrId> = HashMap::new();
        let (mut outs, mut orphans, mut last) = (0u64, 0u64, i64::MIN);
        // Each range is drawn twice: on its thread's "Thread state" row, and on its CPU's row
        // (named by the thread) under the machine's "CPUs". The rows count once, as the
        // thread's events.
        let mut ins = 0u64;
        let mut push =
            |l: &mut Self, gtid: i64, (start, cpu, source): (i64, i64, u32), end: i64| {
                ins += 1;
                let name = *cpu_names
                    .entry(cpu)
                    .or_insert_with(|| l.b.intern(&format!("Running on CPU {cpu}")));
                let track =
                    l.tracks
                        .thread_series(&mut l.b, &l.names, gtid, SERIES_SCHED, "Thread state");
                let event = l.b.push(
                    track,
                    NewEvent::new(EventKind::ThreadRunning, start, end, name, source),
                );
                let label = *thread_labels.entry(gtid).or_insert_with(|| {
                    let text = l.names.thread_label(gtid);
                    l.b.intern(&text)
                });
                let cpu_row = cpu_track(&mut l.b, gtid, cpu);
                l.b.push(
                    cpu_row,
                    NewEvent::new(EventKind::ThreadRunning, start, end, label, source),
                );
                event
            };
        let mut pending: Vec<(i64, (i64, i64, u32), i64)> = Vec::new();
        self.scan(T, &sql, |_, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let start = integer(v(1), "start")?;
            let cpu = integer(v(2), "cpu")?;
            let sched_in = integer(v(3), "isSchedIn")? != 0;
            let gtid = integer(v(4), "globalTid")?;
            last = last.max(start);
            if sched_in {
                // A second sched-in without a sched-out between: the first ends here.
                if let Some(open) = running.insert(gtid, (start, cpu, rowid(v(0)))) {
                    pending.push((gtid, open, start));
                }
            } else if let Some(open) = running.remove(&gtid) {
                pending.push((gtid, open, start));
                outs += 1;
            } else {
                orphans += 1;
            }
            Ok(())
        })?;
        for (gtid, open, end) in pending {
            push(self, gtid, open, end);
        }
        // In the order the ranges began (a map's order would number the tracks it creates
        // differently from one load to the next).
        let mut running: Vec<(i64, (i64, i64, u32))> = running.into_iter().collect();
        running.sort_unstable_by_key(|&(gtid, (start, _, source))| (start, source, gtid));
        for (gtid, open) in running {
            let event = push(self, gtid, open, last.max(open.0));
            self.b.set_attrs(
                event,
                EventAttrs {
                    open: true,
                    ..EventAttrs::default()
                },
            );
        }
        let imports = &mut self.b.session.imports;
        imports.events(T, ins);
        imports.attached(T, outs);
        imports.skipped(
            T,
            "a sched-out without a sched-in before it (the thread ran when the capture began)",
            orphans,
        );
        Ok(())
    }
}

/// The row of `cpu` under the machine of `gtid`'s "CPUs" group (last among its children).
fn cpu_track(b: &mut TimelineBuilder, gtid: i64, cpu: i64) -> TrackId {
    let (machine, _, _) = split_global_id(gtid);
    let m = machine_track(b, machine);
    let group = b.track(Some(m), TrackKind::Series, u64::MAX, || "CPUs".to_owned());
    b.track(Some(group), TrackKind::Series, cpu as u64, || {
        format!("CPU {cpu}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callchains_dense_and_sparse_ids() {
        let mut c = Callchains::default();
        c.insert(1, StackId(0), 3);
        c.insert(2, StackId(5), 2);
        // Far beyond the ids seen: kept aside, the vector stays small.
        c.insert(1 << 40, StackId(7), 4);
        c.insert(-3, StackId(8), 1);
        assert!(c.dense.len() <= 3);
        // A later run of an id replaces it.
        c.insert(2, StackId(6), 5);
        assert_eq!(c.unused_rows(), 3 + 5 + 4 + 1);
        assert_eq!(c.take(Some(1)), Some(StackId(0)));
        assert_eq!(c.take(Some(2)), Some(StackId(6)));
        assert_eq!(c.take(Some(1 << 40)), Some(StackId(7)));
        assert_eq!(c.take(Some(-3)), Some(StackId(8)));
        assert_eq!(c.take(Some(0)), None);
        assert_eq!(c.take(Some(9)), None);
        assert_eq!(c.take(None), None);
        // Each stack's rows count once, however many events share it.
        assert_eq!(c.take(Some(1)), Some(StackId(0)));
        assert_eq!(c.used_rows, 3 + 5 + 4 + 1);
        assert_eq!(c.unused_rows(), 0);
    }
}
