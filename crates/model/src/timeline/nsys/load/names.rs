//! The loader's names: the export's string table (`StringIds`), the timeline strings each
//! string id became (raw, or as the CUDA API names it without its `_vNNNN` suffix), and the
//! names of threads, processes and GPUs the tracks are labelled with. `Loader::names` reads
//! `ThreadNames` and `PROCESSES` into them.

use std::collections::HashMap;

use super::Loader;
use crate::timeline::builder::TimelineBuilder;
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{int_of, split_global_id, strip_version_suffix, text_of};
use crate::timeline::strings::StrId;

/// The id → name caches of a load and their lookups.
#[derive(Default)]
pub(super) struct Names {
    /// `StringIds`: the export's strings by id.
    pub(super) strings: HashMap<i64, String>,
    /// The timeline string each string id became as it is written.
    raw_names: HashMap<i64, StrId>,
    /// The timeline string each string id became as an API name (no version suffix).
    api_names: HashMap<i64, StrId>,
    /// Thread names by global thread id (`ThreadNames`, then NVTX thread names).
    pub(super) thread_names: HashMap<i64, String>,
    /// Process names by (machine, pid).
    pub(super) process_names: HashMap<(u64, u64), String>,
    /// GPU names by device id.
    pub(super) gpu_names: HashMap<i64, String>,
}

impl Names {
    /// The timeline's string for string id `id` as written.
    pub(super) fn raw_name(&mut self, b: &mut TimelineBuilder, id: i64) -> StrId {
        intern_string(&mut self.raw_names, &self.strings, b, id, |t| t)
    }

    /// The timeline's string for string id `id` as an API name (`_vNNNN` suffix cut).
    pub(super) fn api_name(&mut self, b: &mut TimelineBuilder, id: i64) -> StrId {
        intern_string(
            &mut self.api_names,
            &self.strings,
            b,
            id,
            strip_version_suffix,
        )
    }

    /// How the timeline names the thread of `gtid` ("Thread 1234 (name)").
    pub(super) fn thread_label(&self, gtid: i64) -> String {
        let (_, pid, tid) = split_global_id(gtid);
        match self.thread_names.get(&gtid) {
            Some(n) => format!("Thread {tid} ({n}) of process {pid}"),
            None => format!("Thread {tid} of process {pid}"),
        }
    }

    /// Frees the names used while reading events; the string ids and what they became as
    /// written stay when `keep_strings` (the samples' call stacks are still to be read).
    pub(super) fn free(&mut self, keep_strings: bool) {
        self.api_names = HashMap::new();
        self.thread_names = HashMap::new();
        self.process_names = HashMap::new();
        self.gpu_names = HashMap::new();
        if !keep_strings {
            self.strings = HashMap::new();
            self.raw_names = HashMap::new();
        }
    }
}

impl Loader<'_, '_> {
    /// Reads the string table, the thread names and the process names.
    pub(super) fn names(&mut self) -> Result<(), NsysError> {
        self.names.strings = self.db.string_ids()?;
        self.attach_rest("StringIds");
        if self.db.has_table("ThreadNames") {
            let sql = "SELECT rowid, nameId, globalTid FROM ThreadNames";
            self.scan("ThreadNames", sql, |l, row| {
                let name = row
                    .get_ref(1)
                    .ok()
                    .and_then(int_of)
                    .and_then(|id| l.names.strings.get(&id).cloned());
                let gtid = row.get_ref(2).ok().and_then(int_of);
                if let (Some(name), Some(gtid)) = (name, gtid) {
                    l.names.thread_names.insert(gtid, name);
                }
                Ok(())
            })?;
            self.attach_rest("ThreadNames");
        }
        if self.db.has_column("PROCESSES", "globalPid") {
            let name = self.db.col_or_null("PROCESSES", "name");
            let sql = format!("SELECT rowid, globalPid, {name} FROM PROCESSES");
            self.scan("PROCESSES", &sql, |l, row| {
                let gpid = row.get_ref(1).ok().and_then(int_of);
                let name = row.get_ref(2).ok().and_then(text_of);
                if let (Some(gpid), Some(name)) = (gpid, name) {
                    let (m, pid, _) = split_global_id(gpid);
                    l.names.process_names.insert((m, pid), name);
                }
                Ok(())
            })?;
            self.attach_rest("PROCESSES");
        }
        Ok(())
    }
}

/// The timeline's string for string-table entry `id` as `shown` writes it (`<string ID>` when
/// the table lacks it), interned once: `cache` keeps what each id became.
fn intern_string(
    cache: &mut HashMap<i64, StrId>,
    strings: &HashMap<i64, String>,
    b: &mut TimelineBuilder,
    id: i64,
    shown: fn(&str) -> &str,
) -> StrId {
    if let Some(&s) = cache.get(&id) {
        return s;
    }
    let text = strings
        .get(&id)
        .cloned()
        .unwrap_or_else(|| format!("<string {id}>"));
    let s = b.intern(shown(&text));
    cache.insert(id, s);
    s
}
