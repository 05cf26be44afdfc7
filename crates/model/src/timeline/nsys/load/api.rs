//! Host API calls onto the timeline: the CUDA runtime and driver (with the call stacks of
//! `CUDA_CALLCHAINS`, and those of the backtrace records of 2022.2-and-older exports), and the
//! per-thread series of OS runtime (with `OSRT_CALLCHAINS`), cuBLAS and cuDNN calls.

use std::collections::HashMap;

use super::cpu::Callchains;
use super::{Loader, SERIES_CUDA_API, id32, integer, rowid, times};
use crate::timeline::builder::NewEvent;
use crate::timeline::model::{EventAttrs, EventKind};
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{ExportDb, int_of, split_global_id};
use crate::timeline::stacks::StackId;

/// The query [`Loader::runtime`] reads `CUPTI_ACTIVITY_KIND_RUNTIME` with.
pub(super) fn runtime_sql(db: &ExportDb) -> String {
    const T: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
    let class = db.col_or_null(T, "eventClass");
    let corr = db.col_or_null(T, "correlationId");
    let chain = db.col_or_null(T, "callchainId");
    format!("SELECT rowid, start, end, {class}, globalTid, {corr}, nameId, {chain} FROM {T}")
}

/// The query [`Loader::host_series`] reads `table` (of events of `kind`) with.
pub(super) fn host_series_sql(db: &ExportDb, table: &str, kind: EventKind) -> String {
    let filter = if filters_classes(db, table, kind) {
        " WHERE eventClass = 27"
    } else {
        ""
    };
    let chain = db.col_or_null(table, "callchainId");
    format!("SELECT rowid, start, end, globalTid, nameId, {chain} FROM {table}{filter}")
}

/// Whether only some event classes of `table` are events: OS runtime keeps the calls
/// themselves (eventClass 27), not the start/finish markers.
fn filters_classes(db: &ExportDb, table: &str, kind: EventKind) -> bool {
    kind == EventKind::OsRuntime && db.has_column(table, "eventClass")
}

impl Loader<'_, '_> {
    pub(super) fn runtime(&mut self) -> Result<(), NsysError> {
        const T: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
        if !self.db.has_table(T) {
            return Ok(());
        }
        let mut chains = self.callchains("CUDA_CALLCHAINS")?;
        let mut backtrace_stacks = self.backtraces(&mut chains)?;
        let sql = runtime_sql(self.db);
        let before = self.b.event_count();
        let (mut backtraces, mut attached) = (0u64, 0u64);
        self.scan(T, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            if v(3) == Some(67) {
                backtraces += 1;
                return Ok(());
            }
            let (start, end) = times(v(1), v(2))?;
            let gtid = integer(v(4), "globalTid")?;
            let name = l.names.api_name(&mut l.b, integer(v(6), "nameId")?);
            let correlation = id32(v(5), "correlationId")?;
            let track =
                l.tracks
                    .thread_series(&mut l.b, &l.names, gtid, SERIES_CUDA_API, "CUDA API");
            let r = l.b.push(
                track,
                NewEvent {
                    correlation,
                    ..NewEvent::new(EventKind::CudaApi, start, end, name, rowid(v(0)))
                },
            );
            if correlation != 0 {
                let (m, pid, _) = split_global_id(gtid);
                let key = l.flows.flow_key(Some((m << 24) | pid), correlation);
                l.flows.calls.push((key, r));
            }
            let backtrace = (correlation != 0 && !backtrace_stacks.is_empty())
                .then(|| backtrace_stacks.remove(&(gtid, i64::from(correlation))))
                .flatten();
            attached += u64::from(backtrace.is_some());
            if let Some(stack) = chains.take(v(7)).or(backtrace) {
                l.b.set_attrs(r, EventAttrs::with_stack(stack));
            }
            Ok(())
        })?;
        self.events_since(T, before);
        self.account_callchains(&chains);
        // A backtrace record gives its call stack to the call with its thread and correlation id.
        self.b.session.imports.attached(T, attached);
        self.b.session.imports.skipped(
            T,
            "eventClass 67: a CUDA backtrace record without a call stack or without its call \
             (2022.2 and older)",
            backtraces.saturating_sub(attached),
        );
        Ok(())
    }

    /// The records of `cudaEventRecord` calls (`CUPTI_ACTIVITY_KIND_CUDA_EVENT`: event id,
    /// stream, sync id; no time of their own): attached to the call of their process and
    /// correlation id, whose details show them ([`crate::timeline::nsys::details`]).
    pub(super) fn cuda_events(&mut self) -> Result<(), NsysError> {
        const T: &str = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
        if !self.db.has_table(T) {
            return Ok(());
        }
        let columns = self.db.cols_or_null(T, &["correlationId", "globalPid"]);
        let sql = format!("SELECT {columns} FROM {T}");
        let (mut attached, mut orphans) = (0u64, 0u64);
        self.scan(T, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let key = v(0).and_then(|c| u32::try_from(c).ok()).map(|c| {
                let scope = v(1).map(|g| {
                    let (m, pid, _) = split_global_id(g);
                    (m << 24) | pid
                });
                l.flows.flow_key(scope, c)
            });
            if key.is_some_and(|k| l.flows.has_call(k)) {
                attached += 1;
            } else {
                orphans += 1;
            }
            Ok(())
        })?;
        self.b.session.imports.attached(T, attached);
        self.b.session.imports.skipped(
            T,
            "no CUDA API call of its process and correlation id",
            orphans,
        );
        Ok(())
    }

    /// The call stacks of the backtrace records (eventClass 67) of 2022.2-and-older exports,
    /// by the thread and correlation id of the call they belong to. Their `callchainId` counts
    /// from 0 while `CUDA_CALLCHAINS.id` counts from 1: record `n` has the stack of id `n + 1`
    /// (in both exports of the corpus that have them, every record's call is the innermost
    /// resolved frame of that stack).
    fn backtraces(
        &mut self,
        chains: &mut Callchains,
    ) -> Result<HashMap<(i64, i64), StackId>, NsysError> {
        const T: &str = "CUPTI_ACTIVITY_KIND_RUNTIME";
        let mut out = HashMap::new();
        let columns = ["eventClass", "correlationId", "callchainId"];
        // Without call stacks there is nothing to give (and the scan reads the whole table).
        if chains.is_empty() || !columns.iter().all(|c| self.db.has_column(T, c)) {
            return Ok(out);
        }
        let sql = format!(
            "SELECT rowid, globalTid, correlationId, callchainId FROM {T} \
             WHERE eventClass = 67 AND callchainId IS NOT NULL"
        );
        // Damaged pages are reported by the scan of the calls themselves.
        self.db.scan_around_damage(T, &sql, |row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            if let (Some(gtid), Some(corr)) = (v(1), v(2))
                && let Some(stack) = chains.take(v(3).map(|id| id + 1))
            {
                out.insert((gtid, corr), stack);
            }
            Ok(())
        })?;
        Ok(out)
    }

    pub(super) fn host_series(
        &mut self,
        table: &'static str,
        series_name: &'static str,
        key: u64,
        kind: EventKind,
    ) -> Result<(), NsysError> {
        if !self.db.has_table(table) {
            return Ok(());
        }
        let mut chains = match kind {
            EventKind::OsRuntime => self.callchains("OSRT_CALLCHAINS")?,
            _ => Callchains::default(),
        };
        let sql = host_series_sql(self.db, table, kind);
        let before = self.b.event_count();
        self.scan(table, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let (start, end) = times(v(1), v(2))?;
            let gtid = integer(v(3), "globalTid")?;
            let name = l.names.raw_name(&mut l.b, integer(v(4), "nameId")?);
            let track = l
                .tracks
                .thread_series(&mut l.b, &l.names, gtid, key, series_name);
            let r =
                l.b.push(track, NewEvent::new(kind, start, end, name, rowid(v(0))));
            if let Some(stack) = chains.take(v(5)) {
                l.b.set_attrs(r, EventAttrs::with_stack(stack));
            }
            Ok(())
        })?;
        self.events_since(table, before);
        self.account_callchains(&chains);
        if filters_classes(self.db, table, kind) {
            self.skip_event_classes(table)?;
        }
        Ok(())
    }

    /// Accounts the `OSRT_API` rows that are not calls (eventClass ≠ 27: the start and finish
    /// markers of the OS runtime trace), by class.
    fn skip_event_classes(&mut self, table: &'static str) -> Result<(), NsysError> {
        let labels = self.db.enum_labels("ENUM_NSYS_EVENT_CLASS");
        // Counted here rather than by SQL's GROUP BY, so that damaged pages are read around.
        let sql = format!("SELECT rowid, eventClass FROM {table} WHERE eventClass IS NOT 27");
        let mut counts: std::collections::BTreeMap<Option<i64>, u64> = Default::default();
        self.db.scan_around_damage(table, &sql, |row| {
            *counts
                .entry(row.get_ref(1).ok().and_then(int_of))
                .or_default() += 1;
            Ok(())
        })?;
        for (class, n) in counts {
            let label = class.and_then(|c| {
                labels
                    .as_ref()
                    .and_then(|l| l.get(&c).cloned())
                    .or_else(|| {
                        crate::timeline::nsys::schema::event_class_label(c).map(str::to_owned)
                    })
            });
            let reason = match (class, label) {
                (Some(c), Some(label)) => format!("eventClass {c} ({label}): a marker, not a call"),
                (Some(c), None) => format!("eventClass {c}: not an OS runtime call"),
                (None, _) => "eventClass is NULL: not an OS runtime call".to_owned(),
            };
            self.b.session.imports.skipped(table, &reason, n);
        }
        Ok(())
    }
}
