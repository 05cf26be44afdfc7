//! The worker's side of timeline rules: loading rule files (cached while the files stay the
//! same, so an edited rule is reloaded on the next run) and running each on a trace within its
//! time budget.

use rustpython_vm::builtins::{PyFloat, PyInt, PyStr};

use super::*;
use crate::timeline::module::{PyTrace, is_sequence};
use crate::timeline::{
    BUNDLED_TIMELINE_RULES, TimelineFinding, TimelineOutcome, TimelineRule, TimelineRunOptions,
    TimelineRunOutput,
};
use sightline_model::timeline::nsys::stats::{Cell, ReportTable};
use sightline_model::timeline::nsys::trace::Trace;

/// A loaded timeline rule.
pub(super) struct LoadedTimelineRule {
    info: TimelineRule,
    defaults: PyObjectRef,
    analyze: PyObjectRef,
}

/// The timeline rules loaded, and the state of their files.
pub(super) struct TimelineSet {
    key: SetKey,
    rules: Vec<LoadedTimelineRule>,
    errors: Vec<RuleError>,
}

fn text(obj: &PyObjectRef, vm: &VirtualMachine) -> String {
    obj.str(vm)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Worker {
    pub(super) fn run_timeline(
        &mut self,
        trace: &Arc<Trace>,
        options: &TimelineRunOptions,
    ) -> Result<TimelineRunOutput, RulesError> {
        for folder in &options.folders {
            if let Err(source) = std::fs::read_dir(folder) {
                return Err(RulesError::Folder {
                    path: folder.clone(),
                    source,
                });
            }
        }
        let key = SetKey::scan(&options.folders, options.bundled);
        if self.timeline.as_ref().is_none_or(|s| s.key != key) {
            let set = self
                .interpreter
                .enter(|vm| self.load_timeline(vm, key, options.timeout));
            self.timeline = Some(set);
        }
        let Some(set) = &self.timeline else {
            return Err(RulesError::EngineGone);
        };
        let requests: Vec<String> = match &options.requests {
            Some(r) => r.clone(),
            None => set.rules.iter().map(|r| r.info.name.clone()).collect(),
        };
        let mut findings = Vec::new();
        let mut cancelled = false;
        for request in requests {
            if self.cancelled() {
                cancelled = true;
                break;
            }
            let started = Instant::now();
            let mut parts = request.split(':');
            let name = parts.next().unwrap_or_default().trim().to_string();
            let outcome = match set.rules.iter().find(|r| r.info.name == name) {
                None => TimelineOutcome::Error(format!(
                    "no timeline rule {name:?}; rules: {}",
                    set.rules
                        .iter()
                        .map(|r| r.info.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                Some(rule) => {
                    let given: Vec<&str> = parts.collect();
                    self.interpreter.enter(|vm| {
                        self.apply_timeline(vm, rule, &given, trace.clone(), options.timeout)
                    })
                }
            };
            findings.push(TimelineFinding {
                rule: name,
                request,
                outcome,
                elapsed: started.elapsed(),
            });
        }
        Ok(TimelineRunOutput {
            rules: set.rules.iter().map(|r| r.info.clone()).collect(),
            findings,
            load_errors: set.errors.clone(),
            cancelled: cancelled || self.cancelled(),
        })
    }

    fn load_timeline(&self, vm: &VirtualMachine, key: SetKey, budget: Duration) -> TimelineSet {
        let mut sources: Vec<(String, String, Option<&'static str>)> = Vec::new();
        let mut seen = HashSet::new();
        for (path, _, _) in &key.files {
            if let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned())
                && seen.insert(stem.clone())
            {
                sources.push((stem, path.to_string_lossy().into_owned(), None));
            }
        }
        if key.bundled {
            for (file, source) in BUNDLED_TIMELINE_RULES {
                let stem = file.trim_end_matches(".py").to_string();
                if seen.insert(stem.clone()) {
                    sources.push((stem, format!("bundled:rules/timeline/{file}"), Some(source)));
                }
            }
        }
        let mut set = TimelineSet {
            key,
            rules: Vec::new(),
            errors: Vec::new(),
        };
        for (stem, path, text_source) in sources {
            match self.load_timeline_file(vm, &stem, &path, text_source, budget) {
                Ok(Some(rule)) => {
                    if set.rules.iter().any(|r| r.info.name == rule.info.name) {
                        set.errors.push(RuleError {
                            rule: rule.info.name.clone(),
                            message: format!(
                                "{path}: a rule of this name is already loaded; ignored"
                            ),
                        });
                    } else {
                        set.rules.push(rule);
                    }
                }
                Ok(None) => {}
                Err(message) => set.errors.push(RuleError {
                    rule: stem,
                    message: format!("{path}: {message}"),
                }),
            }
        }
        set.rules.sort_by(|a, b| a.info.name.cmp(&b.info.name));
        set
    }

    /// Imports one rule file; `Ok(None)` for a file without `analyze` (a helper).
    fn load_timeline_file(
        &self,
        vm: &VirtualMachine,
        stem: &str,
        path: &str,
        source: Option<&'static str>,
        budget: Duration,
    ) -> Result<Option<LoadedTimelineRule>, String> {
        let source = match source {
            Some(s) => s.to_string(),
            None => std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?,
        };
        let module_name = format!("sightline_timeline_rule_{stem}");
        let module = self
            .guarded(vm, budget, || {
                rustpython_vm::import::import_file(vm, &module_name, path.to_string(), &source)
            })
            .map_err(|e| python_error(vm, &e).to_string())?;
        let Some(analyze) = module
            .get_attr("analyze", vm)
            .ok()
            .filter(|f| f.is_callable())
        else {
            return Ok(None);
        };
        let attr = |name: &'static str| module.get_attr(name, vm).ok().filter(|v| !vm.is_none(v));
        let name = attr("NAME").map_or_else(|| stem.to_string(), |v| text(&v, vm));
        let title = attr("TITLE").map_or_else(|| name.clone(), |v| text(&v, vm));
        let description = attr("DESCRIPTION").map_or_else(String::new, |v| text(&v, vm));
        let defaults = match attr("OPTIONS") {
            Some(d) => d,
            None => vm.ctx.new_dict().into(),
        };
        let items = vm
            .call_method(&defaults, "items", ())
            .and_then(|items| vm.extract_elements_with(&items, Ok))
            .map_err(|_| "OPTIONS must be a dict of option names and defaults".to_string())?;
        let mut options = Vec::new();
        for item in items {
            let pair: Vec<PyObjectRef> = vm
                .extract_elements_with(&item, Ok)
                .map_err(|e| python_error(vm, &e).to_string())?;
            if let [k, v] = pair.as_slice() {
                let shown = v
                    .repr(vm)
                    .map(|r| r.to_string_lossy().into_owned())
                    .unwrap_or_default();
                options.push((text(k, vm), shown));
            }
        }
        Ok(Some(LoadedTimelineRule {
            info: TimelineRule {
                name,
                title,
                description: paragraphs(&description),
                options,
                file: path.to_string(),
            },
            defaults,
            analyze,
        }))
    }

    fn apply_timeline(
        &self,
        vm: &VirtualMachine,
        rule: &LoadedTimelineRule,
        given: &[&str],
        trace: Arc<Trace>,
        budget: Duration,
    ) -> TimelineOutcome {
        let options = match vm.call_method(&rule.defaults, "copy", ()) {
            Ok(o) => o,
            Err(e) => return TimelineOutcome::Error(python_error(vm, &e).to_string()),
        };
        for option in given.iter().map(|o| o.trim()).filter(|o| !o.is_empty()) {
            let (k, v) = option.split_once('=').unwrap_or((option, ""));
            if !rule.info.options.iter().any(|(name, _)| name == k) {
                let known: Vec<&str> = rule.info.options.iter().map(|(n, _)| n.as_str()).collect();
                return TimelineOutcome::Error(format!(
                    "rule {}: unknown option {k:?}; options: {}",
                    rule.info.name,
                    known.join(", ")
                ));
            }
            let value: PyObjectRef = match v.parse::<i64>() {
                Ok(i) => vm.ctx.new_int(i).into(),
                Err(_) => match v.parse::<f64>() {
                    Ok(f) => vm.ctx.new_float(f).into(),
                    Err(_) => vm.ctx.new_str(v).into(),
                },
            };
            if let Err(e) = options.set_item(k, value, vm) {
                return TimelineOutcome::Error(python_error(vm, &e).to_string());
            }
        }
        let trace_obj = PyTrace { trace }.into_pyobject(vm);
        let result = self.guarded(vm, budget, || rule.analyze.call((trace_obj, options), vm));
        flush_stdio(vm);
        let value = match result {
            Ok(v) => v,
            Err(exc) => {
                let skipped = vm
                    .import("timeline", 0)
                    .and_then(|m| m.get_attr("Skipped", vm))
                    .ok();
                if let Some(skipped) = skipped
                    && exc.as_object().is_instance(&skipped, vm).unwrap_or(false)
                {
                    return TimelineOutcome::Skipped(exception_text(vm, &exc));
                }
                return TimelineOutcome::Error(python_error(vm, &exc).to_string());
            }
        };
        read_result(vm, &rule.info.name, &value)
            .unwrap_or_else(|e| TimelineOutcome::Error(python_error(vm, &e).to_string()))
    }
}

/// A docstring-like text as paragraphs: lines of a paragraph joined by spaces, paragraphs
/// separated by one blank line, the indentation gone.
fn paragraphs(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Reads a `timeline.Result` into a table with its event and range references.
fn read_result(vm: &VirtualMachine, rule: &str, value: &PyObjectRef) -> PyResult<TimelineOutcome> {
    let columns: Vec<String> = match value.get_attr("columns", vm) {
        Ok(c) => vm.extract_elements_with(&c, |c| Ok(text(&c, vm)))?,
        Err(_) => {
            return Ok(TimelineOutcome::Error(format!(
                "analyze() returned {}, not a timeline.Result",
                value.class().name()
            )));
        }
    };
    let rows: Vec<PyObjectRef> = vm.extract_elements_with(&*value.get_attr("rows", vm)?, Ok)?;
    let mut table = ReportTable::new(rule, columns, Vec::<Vec<Cell>>::with_capacity(rows.len()));
    for row in &rows {
        let cells: Vec<PyObjectRef> = vm.extract_elements_with(row, Ok)?;
        table.rows.push(
            cells
                .iter()
                .map(|c| {
                    if vm.is_none(c) {
                        Cell::Text(String::new().into())
                    } else if c.downcast_ref::<PyStr>().is_some() {
                        Cell::Text(text(c, vm).into())
                    } else if c.downcast_ref::<PyInt>().is_some()
                        || c.downcast_ref::<PyFloat>().is_some()
                    {
                        Cell::Number(text(c, vm).into())
                    } else {
                        Cell::Text(text(c, vm).into())
                    }
                })
                .collect(),
        );
    }
    let pairs = |name: &'static str| -> PyResult<Vec<Option<(PyObjectRef, PyObjectRef)>>> {
        let list = value.get_attr(name, vm)?;
        if vm.is_none(&list) {
            return Ok(vec![None; rows.len()]);
        }
        vm.extract_elements_with(&list, |p| {
            if !is_sequence(&p) {
                return Ok(None);
            }
            let pair: Vec<PyObjectRef> = vm.extract_elements_with(&p, Ok)?;
            Ok(match <[PyObjectRef; 2]>::try_from(pair) {
                Ok([a, b]) if !vm.is_none(&a) && !vm.is_none(&b) => Some((a, b)),
                _ => None,
            })
        })
    };
    let events = pairs("events")?
        .into_iter()
        .map(|p| p.and_then(|(t, r)| Some((text(&t, vm), r.try_into_value::<i64>(vm).ok()?))))
        .collect();
    let ranges = pairs("ranges")?
        .into_iter()
        .map(|p| {
            p.and_then(|(s, e)| {
                Some((
                    s.try_into_value::<i64>(vm).ok()?,
                    e.try_into_value::<i64>(vm).ok()?,
                ))
            })
        })
        .collect();
    Ok(TimelineOutcome::Table {
        table,
        events,
        ranges,
    })
}
