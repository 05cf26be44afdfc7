//! A report tab's links with the timelines open beside it: the matches a timeline tab
//! publishes under [`links::TIMELINE_NCU_LINKS`] for this report, and the Details page's "Show
//! on timeline" (a certain match) or its candidates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use sightline_model::link::{Certainty, LinkSet};

use crate::document::{Navigate, Peer};
use crate::links::{self, TimelineNcuLinks};

/// The timelines that linked this report: `(timeline path, tab title, matches)`.
#[derive(Default)]
pub struct TimelineLinks {
    timelines: Vec<(PathBuf, String, Arc<LinkSet>)>,
}

impl TimelineLinks {
    /// Takes the matches of the report at `own` from the timelines among `peers`.
    pub fn see_peers(&mut self, own: &Path, peers: &[Peer]) {
        self.timelines = peers
            .iter()
            .filter_map(|p| {
                let set = p
                    .published
                    .iter()
                    .filter(|x| x.key == links::TIMELINE_NCU_LINKS)
                    .find_map(|x| x.get::<TimelineNcuLinks>())?
                    .of_report(own)?;
                Some((p.path.clone(), p.title.clone(), set.clone()))
            })
            .collect();
    }

    /// Whether a timeline linked this report.
    pub fn any(&self) -> bool {
        !self.timelines.is_empty()
    }

    /// The line above result `result`'s Details page: "Show on timeline" for a certain match,
    /// the candidate kernels otherwise.
    pub fn ui(&self, ui: &mut egui::Ui, result: usize, navigate: &mut Vec<Navigate>) {
        for (path, title, set) in &self.timelines {
            let Some(link) = set.links.result(result) else {
                continue;
            };
            let go = |navigate: &mut Vec<Navigate>, event: u32| {
                navigate.push(Navigate {
                    document: path.clone(),
                    item: u64::from(event),
                });
            };
            ui.horizontal_wrapped(|ui| match link.certainty {
                Certainty::Certain => {
                    let c = &link.candidates[..1];
                    let held: Vec<String> = c[0].held.iter().map(ToString::to_string).collect();
                    if ui
                        .button("Show on timeline")
                        .on_hover_text(format!("{title}: matched by {}", held.join(", ")))
                        .clicked()
                    {
                        go(navigate, c[0].event.0);
                    }
                }
                Certainty::Candidates => {
                    ui.label(format!(
                        "On timeline {title}: {} candidate kernels (not certain):",
                        link.candidates.len() + link.more
                    ));
                    for (n, c) in link.candidates.iter().enumerate().take(20) {
                        let start = set.kernels.get(c.kernel).map_or(0, |k| k.start);
                        let held: Vec<String> = c.held.iter().map(ToString::to_string).collect();
                        if ui
                            .button(format!("candidate {}", n + 1))
                            .on_hover_text(format!(
                                "kernel starting at {} ns — {}",
                                sightline_model::format::group_thousands(&start.to_string()),
                                held.join(", ")
                            ))
                            .clicked()
                        {
                            go(navigate, c.event.0);
                        }
                    }
                }
                Certainty::Unmatched => {
                    ui.weak(format!("Not found on timeline {title}"));
                }
            });
        }
    }
}
