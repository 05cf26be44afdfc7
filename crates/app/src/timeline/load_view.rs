//! The timeline's side of the document lifecycle ([`crate::lifecycle`]): which load to start
//! (one file, or several on one timeline), what to make of the timelines the loader sends (a
//! preview, the whole timeline, again with the CPU samples' call stacks) and of the summary
//! tables it ends with, and the view's own background work (links, exports, NVTXT rebuilds,
//! reports) polled beside the load.

use std::sync::Arc;

use eframe::egui;

use super::files::start_merged_load;
use super::loader::{self, Finished, start_load};
use super::nsys_state::NsysState;
use super::nvtxt_files::{NvtxtFiles, Rebuilt};
use super::{LoadedTimeline, TimelineDoc};
use crate::document::{Services, Wake};
use crate::lifecycle::{DocumentView, Load, LoadJob, Opened, Status};
use sightline_model::timeline::Timeline;
use sightline_model::timeline::nsys::stats::ReportOutcome;

impl DocumentView for TimelineDoc {
    type Loaded = LoadedTimeline;
    type Sent = Box<loader::Loaded>;
    type Done = Finished;
    type Error = loader::LoadError;

    fn load(&self) -> &Load<TimelineDoc> {
        &self.load
    }

    fn load_mut(&mut self) -> &mut Load<TimelineDoc> {
        &mut self.load
    }

    fn start(&mut self, wake: Wake) -> LoadJob<Self> {
        let waker = move || wake();
        if self.files.is_empty() {
            start_load(self.load.path(), self.nsys.clone(), waker)
        } else {
            start_merged_load(self.files.clone(), self.nsys.clone(), waker)
        }
    }

    fn sent(&mut self, loaded: Box<loader::Loaded>) -> Option<Opened> {
        let loader::Loaded {
            mut timeline,
            base,
            details,
            nvtxt,
            elapsed,
            session,
        } = *loaded;
        if !nvtxt.is_empty() || base.is_some() {
            self.nvtxt = Some(NvtxtFiles::new(base, nvtxt));
        }
        // What follows (the summary tables) runs without progress.
        self.load.clear_progress();
        let so_far = if timeline.partial { " so far" } else { "" };
        let mut opened = Opened::new(format!(
            "{} on {} tracks{so_far}",
            timeline.contents_text(timeline.events_read()),
            timeline.tracks.len()
        ))
        .partial(timeline.partial)
        .elapsed(elapsed)
        .then(
            timeline
                .stacks_pending
                .then(|| "reading the CPU samples' call stacks".to_owned()),
        );
        if self.files.len() > 1 {
            opened = opened.subject(format!("{} files", timeline.parts().len()));
        }
        // What was read so far is replaced by more: the view stays unless the user has not
        // moved it, and the rest is set up again below.
        let was_partial = self.load.loaded().is_some_and(|l| l.timeline.partial);
        if was_partial {
            self.show_rebuilt(Rebuilt {
                timeline: timeline.clone(),
                docs: Vec::new(),
                reports: None,
            });
            self.canvas.refit_if_untouched();
        } else if self.load.loaded().is_some() {
            // The same events again, now with their call stacks: keep the view.
            self.show_rebuilt(Rebuilt {
                timeline,
                docs: Vec::new(),
                reports: None,
            });
            self.stats.profile.reset();
            if let Some(loaded) = self.load.loaded_mut() {
                loaded.elapsed = elapsed;
            }
            return Some(opened);
        }
        let utilization = utilization(&timeline);
        if !timeline.parts().is_empty() {
            self.edits.apply(Arc::make_mut(&mut timeline));
        }
        self.load.set_loaded(Some(LoadedTimeline {
            timeline,
            details,
            elapsed,
            utilization,
            session: session.map(Arc::new),
            merged: None,
        }));
        Some(opened)
    }

    fn done(&mut self, Finished { reports, merged }: Finished) -> Option<Opened> {
        if let Some(loaded) = self.load.loaded_mut() {
            loaded.merged = merged;
        }
        // Show the kernels first when there are any, else the first table.
        let table = |name: &str| {
            reports.iter().position(|(n, r)| {
                n == name && matches!(r, Ok(ReportOutcome::Table(t)) if !t.rows.is_empty())
            })
        };
        self.stats.shown = table("cuda_gpu_kern_sum")
            .or_else(|| reports.iter().map(|(n, _)| n.as_str()).find_map(table))
            .unwrap_or(0);
        self.stats.reports = Some(reports);
        None
    }

    fn loaded_ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        self.timeline_ui(ui, &mut services.open_files, &mut services.navigate);
    }

    fn opening_ui(&mut self, ui: &mut egui::Ui, services: &mut Services<'_>) {
        let report = sightline_model::timeline::nsys::is_report_file(self.load.path());
        if self.load.error().is_none() || !report {
            return;
        }
        let mut set_nsys = None;
        self.nsys_prompt_ui(ui, &mut set_nsys);
        if let Some(nsys) = set_nsys
            && let Some(state) = services.state::<NsysState>()
        {
            state.nsys = Some(nsys);
        }
    }

    fn poll_view(&mut self) -> Option<Status> {
        let mut status = self.ncu_links.poll().or(self.export.poll());
        self.stats.expert.poll();
        if let Some(picked) = crate::widgets::dialog::take_answer(&mut self.add_dialog) {
            self.add_more_files(picked.value);
        }
        match self.files_panel.poll() {
            Some(Ok(reports)) => {
                self.stats.reports = Some(reports);
                self.stats.shown = 0;
                self.stats.table = crate::widgets::table::SortableTable::default();
                self.stats.instances = None;
            }
            Some(Err(error)) => status = Some((error.to_string(), true)),
            None => {}
        }
        if let Some(result) = self.stats.runner.poll() {
            self.stats.add_report(result);
        }
        let wake = self.waker();
        if let Some(rebuilt) = self.nvtxt.as_mut().and_then(|f| f.poll(wake)) {
            let problems: usize = rebuilt.docs.iter().map(|d| d.diagnostics.len()).sum();
            status = Some((
                format!(
                    "NVTXT read again: {} file(s), {} problem(s); {} events on the timeline",
                    rebuilt.docs.len(),
                    problems,
                    rebuilt.timeline.event_count()
                ),
                false,
            ));
            self.show_rebuilt(rebuilt);
        }
        status
    }

    fn view_progress(&self) -> Option<(f32, String)> {
        self.export.progress.clone()
    }

    fn cancel_view(&mut self) -> bool {
        if self.export.running() {
            self.export.cancel();
            return true;
        }
        false
    }

    fn load_cancelled(&mut self) -> Option<&'static str> {
        if self.stats.reports.is_none() {
            // Cancelled while the summary tables were computed: there will be none.
            self.stats.reports = Some(Vec::new());
        }
        None
    }
}

/// GPU utilization per device and the threads' average over the whole timeline (" · GPU 0
/// 42.0% busy, ..."), empty when there is neither.
fn utilization(timeline: &Timeline) -> String {
    let mut util: Vec<String> = timeline
        .gpu_utilization(None)
        .iter()
        .map(|u| format!("GPU {} {:.1}% busy", u.device, u.fraction * 100.0))
        .collect();
    if let Some(cpu) = timeline.thread_utilization(None) {
        util.push(format!(
            "threads running {:.2} on average on {} CPUs",
            cpu.average_running(),
            cpu.cpus
        ));
    }
    if util.is_empty() {
        String::new()
    } else {
        format!(" · {}", util.join(", "))
    }
}
