//! The timeline's links with the Nsight Compute reports open beside it: for each report tab
//! that publishes [`links::NCU_REPORT`], the matches of its results with this timeline's
//! kernels (`sightline_model::link`), computed on a background job, never on the UI thread.
//! The profiled kernels get a mark on the canvas, the selection details an "Open in Nsight
//! Compute result N" button (or the candidates), and the matches are published under
//! [`links::TIMELINE_NCU_LINKS`] for the report tabs' "Show on timeline".

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use eframe::egui;
use sightline_model::link::{LinkSet, link_sources};
use sightline_model::ncu::Report;
use sightline_model::timeline::{EventId, Timeline};

use crate::document::{Navigate, Peer, Published};
use crate::job::{Job, JobEvent};
use crate::links::{self, TimelineNcuLinks};

/// One report linked (or being linked) with the timeline.
struct Linked {
    path: PathBuf,
    title: String,
    job: Option<Job<LinkSet, String>>,
    set: Option<Arc<LinkSet>>,
    error: Option<String>,
}

/// The timeline's links with the open reports.
#[derive(Default)]
pub struct NcuLinks {
    reports: Vec<Linked>,
    /// The timeline the links were computed for (a rebuilt timeline changes event ids).
    timeline: Option<Arc<Timeline>>,
    /// Per linked event: `(report index, result, certain)`.
    by_event: HashMap<EventId, Vec<(usize, usize, bool)>>,
    /// The linked events, sorted: what the canvas marks.
    pub marked: Vec<EventId>,
}

impl NcuLinks {
    /// Starts linking with reports that appeared among `peers` and forgets closed ones; links
    /// again when the timeline was rebuilt. `export` is the timeline's SQLite export (no
    /// links without one).
    pub fn see_peers(
        &mut self,
        peers: &[Peer],
        timeline: Option<&Arc<Timeline>>,
        sources: &[(PathBuf, std::ops::Range<u32>)],
        wake: &Arc<dyn Fn() + Send + Sync>,
    ) {
        let Some(timeline) = timeline.filter(|_| !sources.is_empty()) else {
            return;
        };
        if !self
            .timeline
            .as_ref()
            .is_some_and(|t| Arc::ptr_eq(t, timeline))
        {
            self.reports.clear();
            self.timeline = Some(timeline.clone());
            self.reindex();
        }
        let reports: Vec<(&Peer, Arc<Report>)> = peers
            .iter()
            .filter_map(|p| {
                p.published
                    .iter()
                    .filter(|x| x.key == links::NCU_REPORT)
                    .find_map(|x| x.get::<Arc<Report>>())
                    .map(|r| (p, r.clone()))
            })
            .collect();
        let before = self.reports.len();
        self.reports
            .retain(|l| reports.iter().any(|(p, _)| p.path == l.path));
        if self.reports.len() != before {
            self.reindex();
        }
        for (peer, report) in reports {
            if self.reports.iter().any(|l| l.path == peer.path) {
                continue;
            }
            let (timeline, sources, waker) = (timeline.clone(), sources.to_vec(), wake.clone());
            let job = Job::start(
                move || waker(),
                |e| format!("cannot start linking: {e}"),
                move |_| link_sources(&sources, &timeline, &report).map_err(|e| e.to_string()),
            );
            self.reports.push(Linked {
                path: peer.path.clone(),
                title: peer.title.clone(),
                job: Some(job),
                set: None,
                error: None,
            });
        }
    }

    /// Applies finished links; returns a status message when one finished.
    pub fn poll(&mut self) -> Option<(String, bool)> {
        let mut status = None;
        let mut changed = false;
        for l in &mut self.reports {
            while let Some(event) = l.job.as_ref().and_then(Job::poll) {
                match event {
                    JobEvent::Done(set) => {
                        let certain = set.links.certain_count();
                        status = Some((
                            format!(
                                "Linked with {}: {certain} of {} result(s) matched with certainty",
                                l.title,
                                set.links.results.len()
                            ),
                            false,
                        ));
                        l.set = Some(Arc::new(set));
                        l.job = None;
                        changed = true;
                    }
                    JobEvent::Failed(e) => {
                        status = Some((format!("cannot link with {}: {e}", l.title), true));
                        l.error = Some(e);
                        l.job = None;
                    }
                    JobEvent::Progress(..) | JobEvent::Sent(_) => {}
                }
            }
        }
        if changed {
            self.reindex();
        }
        status
    }

    fn reindex(&mut self) {
        self.by_event.clear();
        for (r, l) in self.reports.iter().enumerate() {
            let Some(set) = &l.set else { continue };
            for (event, results) in set.links.by_event() {
                let entry = self.by_event.entry(event).or_default();
                entry.extend(results.into_iter().map(|(n, certain)| (r, n, certain)));
            }
        }
        for v in self.by_event.values_mut() {
            v.sort_unstable();
        }
        self.marked = self.by_event.keys().copied().collect();
        self.marked.sort_unstable_by_key(|e| e.0);
    }

    /// Whether a link is being computed.
    pub fn busy(&self) -> bool {
        self.reports.iter().any(|l| l.job.is_some())
    }

    /// What the timeline publishes: its matches with each linked report.
    pub fn published(&self) -> Option<Published> {
        let reports: Vec<(PathBuf, Arc<LinkSet>)> = self
            .reports
            .iter()
            .filter_map(|l| l.set.clone().map(|s| (l.path.clone(), s)))
            .collect();
        (!reports.is_empty()).then(|| Published {
            key: links::TIMELINE_NCU_LINKS,
            value: Arc::new(TimelineNcuLinks { reports }),
        })
    }

    /// The selected event's results in the linked reports: "Open in Nsight Compute result N"
    /// for a certain match, the results it may be otherwise.
    pub fn details_ui(&self, ui: &mut egui::Ui, event: EventId, navigate: &mut Vec<Navigate>) {
        let Some(results) = self.by_event.get(&event) else {
            return;
        };
        ui.separator();
        ui.strong("Nsight Compute");
        for &(r, result, certain) in results {
            let Some(l) = self.reports.get(r) else {
                continue;
            };
            let open = |navigate: &mut Vec<Navigate>| {
                navigate.push(Navigate {
                    document: l.path.clone(),
                    item: result as u64,
                });
            };
            if certain {
                if ui
                    .button(format!("Open in Nsight Compute result {result}"))
                    .on_hover_text(format!("{}: {}", l.title, self.explain(r, result)))
                    .clicked()
                {
                    open(navigate);
                }
            } else {
                ui.horizontal(|ui| {
                    ui.weak("may be");
                    if ui
                        .button(format!("result {result}"))
                        .on_hover_text(format!(
                            "{}: a candidate, not certain ({})",
                            l.title,
                            self.explain(r, result)
                        ))
                        .clicked()
                    {
                        open(navigate);
                    }
                });
            }
        }
    }

    /// The criteria that held for `result`'s best match, as text.
    fn explain(&self, report: usize, result: usize) -> String {
        self.reports
            .get(report)
            .and_then(|l| l.set.as_ref())
            .and_then(|s| s.links.result(result))
            .and_then(|r| r.candidates.first())
            .map(|c| {
                c.held
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    }
}
