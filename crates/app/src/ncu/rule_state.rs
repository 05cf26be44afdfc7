//! What the rules of one report tab are showing: the results applied in this session per kernel
//! (which replace the stored ones rule by rule), and the state of every rule on a page.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::rule_runner::{ApplyError, RuleSelection};
use sightline_model::ncu::Action;
use sightline_model::section::{Item, resolve_chart};
use sightline_rules::RuleResult;
use sightline_rules::scan::RuleScan;

/// The state of one rule on one kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RuleStatus {
    /// The report holds results of this rule (from the profiler) and it was not applied here.
    Stored,
    /// Neither stored in the report nor applied here.
    NotApplied,
    /// Being applied now.
    Running,
    /// Applied in this session; its results replace any stored ones.
    Applied,
    /// Applied in this session and failed (the error, with the traceback).
    Failed(String),
}

impl RuleStatus {
    /// A short label: "stored", "not applied", "applying…", "applied", "failed".
    pub fn label(&self) -> &'static str {
        match self {
            RuleStatus::Stored => "stored",
            RuleStatus::NotApplied => "not applied",
            RuleStatus::Running => "applying…",
            RuleStatus::Applied => "applied",
            RuleStatus::Failed(_) => "failed",
        }
    }
}

/// A rule applied to a kernel: what it produced and, when it failed, why.
#[derive(Debug, Clone)]
pub struct AppliedRule {
    /// The output (what a failing rule produced before it failed is kept).
    pub result: Option<RuleResult>,
    /// The error, if it failed or did not run.
    pub error: Option<String>,
}

/// The applied rules of one tab.
#[derive(Debug, Default)]
pub struct TabRules {
    /// Kernel → rule identifier → applied rule.
    applied: HashMap<usize, BTreeMap<String, AppliedRule>>,
    /// Kernel → what was last asked for (re-applied on live reload).
    requested: HashMap<usize, HashSet<RuleRequestKey>>,
    /// A message about the whole request (engine could not start, cancelled), per kernel.
    request_error: HashMap<usize, String>,
    /// Bumped on every change (the page cache keys on it).
    pub version: u64,
}

/// What a kernel had applied: all rules or single ones.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RuleRequestKey {
    All,
    One(String),
}

impl TabRules {
    /// Records the answer to a request.
    pub fn record(
        &mut self,
        kernel: usize,
        selection: &RuleSelection,
        outcome: &Result<sightline_rules::RunOutput, ApplyError>,
    ) {
        self.version += 1;
        let output = match outcome {
            Ok(output) => output,
            Err(ApplyError::Cancelled) => {
                self.request_error
                    .insert(kernel, "Applying rules was cancelled".to_owned());
                return;
            }
            Err(error) => {
                self.request_error
                    .insert(kernel, format!("Applying rules failed: {error}"));
                return;
            }
        };
        self.request_error.remove(&kernel);
        if output.cancelled {
            self.request_error
                .insert(kernel, "Applying rules was cancelled".to_owned());
        }
        let requested = self.requested.entry(kernel).or_default();
        let applied = self.applied.entry(kernel).or_default();
        match selection {
            RuleSelection::All => {
                requested.clear();
                requested.insert(RuleRequestKey::All);
                if !output.cancelled {
                    applied.clear();
                }
            }
            RuleSelection::One(id) => {
                requested.insert(RuleRequestKey::One(id.clone()));
                applied.remove(id);
            }
        }
        for kernel_rules in output.kernels.iter().filter(|k| k.index == kernel) {
            for result in &kernel_rules.results {
                applied.insert(
                    result.identifier.clone(),
                    AppliedRule {
                        result: Some(result.clone()),
                        error: None,
                    },
                );
            }
            for error in &kernel_rules.errors {
                applied
                    .entry(error.rule.clone())
                    .or_insert(AppliedRule {
                        result: None,
                        error: None,
                    })
                    .error = Some(error.message.clone());
            }
        }
    }

    /// The requests to repeat on `kernel` after rule files changed (none when nothing was
    /// applied there).
    pub fn to_reapply(&self, kernel: usize) -> Vec<RuleSelection> {
        let Some(requested) = self.requested.get(&kernel) else {
            return Vec::new();
        };
        if requested.contains(&RuleRequestKey::All) {
            return vec![RuleSelection::All];
        }
        let mut ones: Vec<RuleSelection> = requested
            .iter()
            .filter_map(|r| match r {
                RuleRequestKey::One(id) => Some(RuleSelection::One(id.clone())),
                RuleRequestKey::All => None,
            })
            .collect();
        ones.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        ones
    }

    /// Kernels that have rules applied.
    pub fn applied_kernels(&self) -> Vec<usize> {
        let mut kernels: Vec<usize> = self.requested.keys().copied().collect();
        kernels.sort_unstable();
        kernels
    }

    /// The rules of `kernel`'s page: every rule known from the search path and every rule with
    /// stored results, with its state; and the applied results to show.
    pub fn page(&self, action: &Action, scan: &RuleScan, running: &[&RuleSelection]) -> PageRules {
        let kernel = action.index();
        let stored = action.rule_results();
        let applied = self.applied.get(&kernel);
        let mut rows: Vec<RuleRow> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for rule in &scan.rules {
            if seen.insert(&rule.identifier) {
                rows.push(RuleRow {
                    identifier: rule.identifier.clone(),
                    name: rule.name.clone().unwrap_or_else(|| rule.identifier.clone()),
                    section: rule.section.clone(),
                    status: RuleStatus::NotApplied,
                    can_apply: true,
                });
            }
        }
        for result in stored {
            if seen.insert(&result.identifier) {
                rows.push(RuleRow {
                    identifier: result.identifier.clone(),
                    name: result.display_name.clone(),
                    section: result.section_identifier.clone(),
                    status: RuleStatus::NotApplied,
                    can_apply: false,
                });
            }
        }
        for (identifier, rule) in applied.into_iter().flatten() {
            if seen.insert(identifier) {
                rows.push(RuleRow {
                    identifier: identifier.clone(),
                    name: rule
                        .result
                        .as_ref()
                        .map_or_else(|| identifier.clone(), |r| r.name.clone()),
                    section: rule
                        .result
                        .as_ref()
                        .and_then(|r| r.section_identifier.clone()),
                    status: RuleStatus::NotApplied,
                    can_apply: false,
                });
            }
        }
        let stored_ids: HashSet<&str> = stored.iter().map(|r| r.identifier.as_str()).collect();
        for row in &mut rows {
            let applied_rule = applied.and_then(|a| a.get(&row.identifier));
            row.status = if running.iter().any(|s| s.includes(&row.identifier)) {
                RuleStatus::Running
            } else if let Some(rule) = applied_rule {
                match &rule.error {
                    Some(error) => RuleStatus::Failed(error.clone()),
                    None => RuleStatus::Applied,
                }
            } else if stored_ids.contains(row.identifier.as_str()) {
                RuleStatus::Stored
            } else {
                RuleStatus::NotApplied
            };
        }
        let results: Vec<RuleResult> = applied
            .into_iter()
            .flatten()
            .filter_map(|(_, rule)| rule.result.clone())
            .collect();
        let charts = results
            .iter()
            .filter(|r| !r.charts.is_empty())
            .map(|r| {
                let items = r
                    .charts
                    .iter()
                    .filter_map(|chart| resolve_chart(action, &chart.item))
                    .collect();
                (r.identifier.clone(), items)
            })
            .collect();
        PageRules {
            rows,
            applied: results,
            charts,
            replaced: applied
                .map(|a| a.keys().cloned().collect())
                .unwrap_or_default(),
            running: !running.is_empty(),
            request_error: self.request_error.get(&kernel).cloned(),
            version: self.version,
        }
    }
}

/// One rule's line on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRow {
    /// `get_identifier()`.
    pub identifier: String,
    /// Display name.
    pub name: String,
    /// The section it belongs to (`None`: independent rule).
    pub section: Option<String>,
    /// Its state on this kernel.
    pub status: RuleStatus,
    /// Whether it can be applied (its file is on the search path).
    pub can_apply: bool,
}

/// The rules of one page.
#[derive(Debug, Clone, Default)]
pub struct PageRules {
    /// Every rule, with its state.
    pub rows: Vec<RuleRow>,
    /// Results applied in this session, by rule identifier.
    pub applied: Vec<RuleResult>,
    /// The charts of applied results (`IFrontend.load_chart_from_file`), resolved against the
    /// kernel, per rule identifier.
    pub charts: HashMap<String, Vec<Item>>,
    /// Rules whose stored results are replaced by applied ones (shown or not).
    pub replaced: HashSet<String>,
    /// Whether rules are being applied to this kernel.
    pub running: bool,
    /// Why the last request failed as a whole (engine start-up, cancel), if it did.
    pub request_error: Option<String>,
    /// [`TabRules::version`] when this was made.
    pub version: u64,
}

impl PageRules {
    /// The state of rule `identifier`, if it is known on this page.
    pub fn status(&self, identifier: &str) -> Option<&RuleStatus> {
        self.rows
            .iter()
            .find(|r| r.identifier == identifier)
            .map(|r| &r.status)
    }
}
