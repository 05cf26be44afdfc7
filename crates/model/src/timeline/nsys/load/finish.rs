//! The end of a load: the import statistics checked, flows linked (API calls to their GPU work,
//! OpenMP task creations to their parts), the call stacks and events packed into a
//! [`Timeline`], and the loader's indexes freed first (or kept when the CPU samples' call
//! stacks are still to be read after a preview).

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
        self.reading.take_counts(self.db, &mut self.b, true)?;
        // No preview of a part after this: the whole is next.
        self.reading.preview_clock.due = None;
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
        if self.b.event_count() == 0 && self.b.sample_count() == 0 {
            return Err(NsysError::Empty {
                path: self.db.path.clone(),
            });
        }
        // An OpenMP task's parts come from the creation of their correlation id.
        self.flows.link_tasks(&mut self.b);
        self.b.sort_children_by_key();
        self.flows.warn_unmatched(&mut self.b);
        self.b.stacks = if self.samples.deferred {
            self.samples.stacks.clone().finish()
        } else {
            std::mem::take(&mut self.samples.stacks).finish()
        };
        // Free the loader's indexes before packing, so the packed columns reuse their memory;
        // what reading the samples' call stacks needs stays.
        let builder = std::mem::take(&mut self.b);
        self.free_indexes();
        crate::timeline::release_free_memory();
        let mut timeline = builder.finish();
        crate::timeline::release_free_memory();
        // MPI messages (send → receive, call → its wait) and collectives across ranks.
        timeline.link_mpi();
        timeline.name_rank_processes();
        Ok(timeline)
    }
    /// Frees the indexes used while reading events; the string ids and names stay when the
    /// samples' call stacks are still to be read.
    fn free_indexes(&mut self) {
        self.names.free(self.samples.deferred);
        self.tracks.free();
        self.flows.free();
    }
}
