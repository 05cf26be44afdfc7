//! The end of a load: the import statistics checked, flows linked (API calls to their GPU work,
//! OpenMP task creations to their parts), the call stacks and events packed into a
//! [`Timeline`], and the loader's indexes freed first (or kept when the CPU samples' call
//! stacks are still to be read after a preview).

use std::collections::HashMap;

use super::Loader;
use crate::problem::Location;
use crate::timeline::model::Timeline;
use crate::timeline::nsys::NsysError;

impl Loader<'_, '_> {
    pub(super) fn finish(mut self) -> Result<Timeline, NsysError> {
        self.finish_timeline()
    }

    /// Links the flows and packs the timeline, leaving the loader able to read the samples'
    /// call stacks afterwards when they were deferred (else its indexes are freed first).
    pub(super) fn finish_timeline(&mut self) -> Result<Timeline, NsysError> {
        self.take_counts(true)?;
        // No preview of a part after this: the whole is next.
        self.preview_clock.due = None;
        self.report("finish")?;
        for source in self.b.session.imports.sources.values_mut() {
            if source.events == 0 && source.attached == 0 && source.skipped.is_empty() {
                source.skipped.insert(
                    crate::timeline::nsys::schema::NOT_READ.to_owned(),
                    source.rows,
                );
            }
        }
        let unbalanced: Vec<String> = self
            .b
            .session
            .imports
            .unbalanced()
            .into_iter()
            .map(|(t, n)| format!("{t} ({n})"))
            .collect();
        if !unbalanced.is_empty() {
            self.b.warn(
                Location::Part("import statistics".into()),
                format!(
                    "rows not accounted for in the import statistics: {}",
                    unbalanced.join(", ")
                ),
            );
        }
        if self.b.event_count() == 0 {
            return Err(NsysError::Empty {
                path: self.db.path.clone(),
            });
        }
        let unmatched = self.unmatched_work;
        // An OpenMP task's parts come from the creation of their correlation id (implicit
        // tasks have none: no warning).
        let creates = std::mem::take(&mut self.task_creates);
        let tasks = std::mem::take(&mut self.tasks);
        self.b.link_by_key(creates, &tasks);
        self.b.sort_children_by_key();
        if unmatched > 0 {
            self.b.warn(
                Location::Part("flows".into()),
                format!("{unmatched} GPU activities have no API call with their correlation id"),
            );
        }
        self.b.stacks = if self.defer_sample_stacks {
            self.stacks.clone().finish()
        } else {
            std::mem::take(&mut self.stacks).finish()
        };
        // Free the loader's indexes before packing, so the packed columns reuse their memory;
        // what reading the samples' call stacks needs stays.
        let builder = std::mem::take(&mut self.b);
        self.free_indexes();
        crate::timeline::release_free_memory();
        let timeline = builder.finish();
        crate::timeline::release_free_memory();
        Ok(timeline)
    }
    /// Frees the indexes used while reading events; the string ids and names stay when the
    /// samples' call stacks are still to be read.
    fn free_indexes(&mut self) {
        self.api_names = HashMap::new();
        self.thread_names = HashMap::new();
        self.process_names = HashMap::new();
        self.gpu_names = HashMap::new();
        self.series = HashMap::new();
        self.streams = HashMap::new();
        self.generic_keys = HashMap::new();
        self.scopes = HashMap::new();
        if !self.defer_sample_stacks {
            self.strings = HashMap::new();
            self.raw_names = HashMap::new();
        }
    }
}
