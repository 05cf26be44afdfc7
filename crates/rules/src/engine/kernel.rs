//! One kernel's run of a loaded rule set: which rules run (all, or those asked for and what
//! they depend on), why one does not (cancelled, its section or metrics missing), applying a
//! rule with its frontend and context, and collecting results and errors.

use rustpython_vm::PyRef;

use super::*;

/// What the rules of one kernel share: the kernel's state, the controller and the chart
/// folders of each rule folder.
struct RuleShared {
    kernel: Rc<KernelShared>,
    controller: PyRef<IController>,
    /// The chart folders of each rule folder: the rule's own folder, then the section folders.
    chart_folders: HashMap<Option<PathBuf>, Rc<Vec<PathBuf>>>,
}

impl Worker {
    /// Runs the rules of `set` on one kernel in dependency order. With `options.only`, runs
    /// those rules and what they depend on, reporting only those asked for (and naming the
    /// identifiers no loaded rule has); a rule that does not run or fails is an error.
    pub(super) fn run_kernel(
        &self,
        vm: &VirtualMachine,
        set: &LoadedSet,
        action: sightline_model::ncu::Action,
        report: Arc<Report>,
        options: &RunOptions,
    ) -> KernelRules {
        let index = action.index();
        let name = action
            .name(sightline_model::ncu::NameBase::Function)
            .to_owned();
        let embedded = embedded_sections(&action, options);
        let present = |section: &str| match &options.sections {
            SectionBinding::Embedded => embedded.contains(section),
            SectionBinding::Identifiers(ids) => ids.contains(section),
        };
        let data = ActionData::new(action, report, options.nvdisasm.clone());
        let mut shared = RuleShared {
            kernel: Rc::new(KernelShared::default()),
            controller: IController {
                state: Rc::new(ControllerState::default()),
            }
            .into_ref(&vm.ctx),
            chart_folders: HashMap::new(),
        };
        let mut results = Vec::new();
        let selected = options.only.as_ref().map(|only| selection(set, only));
        let mut errors = unknown_rules(set, options);
        for &i in &set.order {
            let rule = &set.rules[i];
            let reported = match &selected {
                Some((wanted, needed)) => {
                    if !needed.contains(&i) {
                        continue;
                    }
                    wanted.contains(&i)
                }
                None => true,
            };
            if let Some(reason) = self.not_run(rule, &present, &data, options) {
                if let Some(message) = reason.filter(|_| reported) {
                    errors.push(RuleError {
                        rule: rule.identifier.clone(),
                        message,
                    });
                }
                continue;
            }
            let (result, output) = self.apply_rule(vm, rule, &data, &mut shared, options);
            if let Err(exc) = result
                && reported
            {
                errors.push(RuleError {
                    rule: rule.identifier.clone(),
                    message: self.failure_message(vm, &exc),
                });
            }
            let output = std::mem::take(&mut *output.borrow_mut());
            if !reported {
                continue;
            }
            results.push(RuleResult {
                identifier: rule.identifier.clone(),
                name: rule.name.clone(),
                section_identifier: rule.section.clone(),
                messages: output.messages,
                source_markers: output.markers,
                charts: output.charts,
            });
        }
        KernelRules {
            index,
            name,
            results,
            errors,
        }
    }

    /// Why `rule` does not run on this kernel, if it does not: `Some(None)` to skip it
    /// silently (its section is missing in a run of all rules), `Some(Some(message))` to
    /// skip it with an error when it is reported.
    fn not_run(
        &self,
        rule: &LoadedRule,
        present: &dyn Fn(&str) -> bool,
        data: &Rc<ActionData>,
        options: &RunOptions,
    ) -> Option<Option<String>> {
        if self.cancelled() {
            return Some(Some("not run: cancelled".to_owned()));
        }
        if let Some(section) = &rule.section
            && !present(section)
        {
            // A rule asked for by name says why it did not run.
            return Some(
                options
                    .only
                    .is_some()
                    .then(|| format!("not run: its section {section} is not present")),
            );
        }
        let missing: Vec<&str> = rule
            .requirements
            .metrics
            .iter()
            .filter(|m| data.action.metric(m).is_none())
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Some(Some(format!(
                "not run: required metrics missing: {}",
                missing.join(", ")
            )));
        }
        None
    }

    /// Applies `rule` to the kernel under the run's timeout: its outcome and what it wrote.
    fn apply_rule(
        &self,
        vm: &VirtualMachine,
        rule: &LoadedRule,
        data: &Rc<ActionData>,
        shared: &mut RuleShared,
        options: &RunOptions,
    ) -> (PyResult<PyObjectRef>, Rc<RefCell<RuleOutput>>) {
        let chart_folders = shared
            .chart_folders
            .entry(rule.folder.clone())
            .or_insert_with(|| {
                let mut folders: Vec<PathBuf> = rule.folder.iter().cloned().collect();
                folders.extend(options.chart_folders.iter().cloned());
                Rc::new(folders)
            })
            .clone();
        let output = Rc::new(RefCell::new(RuleOutput::default()));
        let frontend = IFrontend {
            output: output.clone(),
            rule_id: rule.identifier.clone(),
            parents: rule.parents.clone(),
            kernel: shared.kernel.clone(),
            chart_folders,
        };
        let context = IContext::new(data.clone(), frontend, shared.controller.clone(), vm);
        let handle = register_handle(HandleTarget::Context(context.into_pyobject(vm)));
        let result = self.guarded(vm, options.timeout, || rule.apply.call((handle,), vm));
        release_handle(handle);
        flush_stdio(vm);
        (result, output)
    }

    /// The error of a rule that raised: cancelled, timed out, or the Python traceback.
    fn failure_message(&self, vm: &VirtualMachine, exc: &PyBaseExceptionRef) -> String {
        if exc.class().is(&self.timeout_type) && self.cancelled() {
            "cancelled".to_owned()
        } else if exc.class().is(&self.timeout_type) {
            format!("timed out: {}", exception_text(vm, exc))
        } else {
            format_exception(vm, exc)
        }
    }
}

/// The sections embedded in the kernel's result, when the run binds rules to them (empty
/// when it names the sections).
fn embedded_sections(
    action: &sightline_model::ncu::Action,
    options: &RunOptions,
) -> HashSet<String> {
    match &options.sections {
        SectionBinding::Embedded => action
            .section_identifiers()
            .map(|ids| ids.into_iter().map(str::to_owned).collect())
            .unwrap_or_default(),
        SectionBinding::Identifiers(_) => HashSet::new(),
    }
}

/// An error for each identifier `options.only` names that no loaded rule has.
fn unknown_rules(set: &LoadedSet, options: &RunOptions) -> Vec<RuleError> {
    options
        .only
        .iter()
        .flatten()
        .filter(|id| !set.rules.iter().any(|r| &r.identifier == *id))
        .map(|id| RuleError {
            rule: id.clone(),
            message: "not run: no rule with this identifier is loaded".to_owned(),
        })
        .collect()
}
