//! The worker thread's side of the engine: the RustPython interpreter, rule sets loaded and
//! cached per search path, and one run (load, select, apply in dependency order, collect).

use super::*;

/// A loaded rule.
pub(super) struct LoadedRule {
    pub(super) identifier: String,
    pub(super) name: String,
    pub(super) section: Option<String>,
    pub(super) parents: Vec<String>,
    pub(super) requirements: Requirements,
    pub(super) apply: PyObjectRef,
    /// The rule's folder (`None` for bundled rules run from memory).
    pub(super) folder: Option<PathBuf>,
}

/// Where a loaded rule set came from, and the state of its files when it was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SetKey {
    pub(super) folders: Vec<PathBuf>,
    pub(super) bundled: bool,
    /// `(file, modification time, length)` of every `.py` file in the folders.
    pub(super) files: Vec<(PathBuf, Option<std::time::SystemTime>, u64)>,
}

impl SetKey {
    pub(super) fn of(options: &RunOptions) -> SetKey {
        SetKey::scan(&options.rule_folders, options.bundled_from_memory)
    }

    /// The `.py` files of `folders` with their modification times and lengths.
    pub(super) fn scan(folders: &[PathBuf], bundled: bool) -> SetKey {
        let mut files = Vec::new();
        for folder in folders {
            let Ok(entries) = std::fs::read_dir(folder) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "py")
                    && let Ok(meta) = entry.metadata()
                {
                    files.push((path, meta.modified().ok(), meta.len()));
                }
            }
        }
        files.sort();
        SetKey {
            folders: folders.to_vec(),
            bundled,
            files,
        }
    }
}

/// A Python module to load: a file of a rule folder or a bundled rule in memory.
pub(super) struct ModuleSource {
    pub(super) stem: String,
    /// The file (its `__file__`; `bundled:rules/NAME.py` for bundled rules).
    pub(super) path: String,
    /// The folder searched first for the rule's charts (`None` for bundled rules).
    pub(super) folder: Option<PathBuf>,
    /// The source text for bundled rules (files are read when loaded).
    pub(super) text: Option<&'static str>,
}

pub(super) struct LoadedSet {
    pub(super) key: SetKey,
    pub(super) rules: Vec<LoadedRule>,
    pub(super) order: Vec<usize>,
    pub(super) errors: Vec<RuleError>,
    pub(super) module_names: Vec<String>,
}

pub(super) struct Worker {
    pub(super) interpreter: Interpreter,
    pub(super) timeout_type: PyTypeRef,
    pub(super) watchdog: Arc<Watchdog>,
    pub(super) loaded: Option<LoadedSet>,
    /// The timeline rules loaded.
    pub(super) timeline: Option<super::timeline::TimelineSet>,
    /// The cancel flag of the run being served.
    pub(super) cancel: Option<CancelFlag>,
}

/// Formats a Python exception with its traceback (long tracebacks, e.g. of a `RecursionError`,
/// keep their head and tail).
pub(crate) fn format_exception(vm: &VirtualMachine, exc: &PyBaseExceptionRef) -> String {
    let mut text = String::new();
    if vm.write_exception(&mut text, exc).is_err() {
        text = exc.as_object().repr(vm).map_or_else(
            |_| "<unprintable exception>".to_owned(),
            |r| r.to_string_lossy().into_owned(),
        );
    }
    let lines: Vec<&str> = text.trim_end().lines().collect();
    const HEAD: usize = 5;
    const TAIL: usize = 30;
    if lines.len() > HEAD + TAIL + 1 {
        let omitted = lines.len() - HEAD - TAIL;
        let mut out = lines[..HEAD].join("\n");
        out.push_str(&format!("\n  ... ({omitted} lines omitted) ...\n"));
        out.push_str(&lines[lines.len() - TAIL..].join("\n"));
        out
    } else {
        lines.join("\n")
    }
}

/// [`format_exception`] as an error.
pub(crate) fn python_error(vm: &VirtualMachine, exc: &PyBaseExceptionRef) -> PythonError {
    PythonError {
        traceback: format_exception(vm, exc),
    }
}

/// Why a rule file could not be loaded (recorded as that file's [`RuleError`], after its path).
#[derive(Debug, thiserror::Error)]
pub(super) enum RuleLoadError {
    /// The file could not be read.
    #[error("cannot read: {0}")]
    Read(#[source] std::io::Error),
    /// Importing it, or calling one of its `get_*` functions, raised an exception.
    #[error(transparent)]
    Python(#[from] PythonError),
    /// `get_identifier`, `get_name` or `get_section_identifier` returned something whose
    /// `str()` failed.
    #[error("{function}() did not return a string")]
    NotAString {
        /// The function called.
        function: &'static str,
    },
    /// Its `evaluate` function raised an exception.
    #[error("evaluate() failed:\n{0}")]
    Evaluate(#[source] PythonError),
}

impl Worker {
    pub(super) fn serve(&mut self, rx: &Receiver<Request>) {
        while let Ok(request) = rx.recv() {
            match request {
                Request::Run {
                    report,
                    options,
                    reply,
                } => {
                    self.cancel = options.cancel.clone();
                    let result = self.run(&report, &options);
                    let _ = reply.send(result);
                }
                Request::Timeline {
                    trace,
                    options,
                    reply,
                } => {
                    self.cancel = options.cancel.clone();
                    let result = self.run_timeline(&trace, &options);
                    let _ = reply.send(result);
                }
                Request::Eval { source, reply } => {
                    let result = self.interpreter.enter(|vm| {
                        let scope = vm.new_scope_with_builtins();
                        let code = format!("__result__ = repr({source})\n");
                        vm.run_string(scope.clone(), &code, "<eval>".into())
                            .map_err(|e| python_error(vm, &e))?;
                        let value = scope
                            .globals
                            .get_item("__result__", vm)
                            .map_err(|e| python_error(vm, &e))?;
                        value
                            .str(vm)
                            .map(|r| r.to_string_lossy().into_owned())
                            .map_err(|e| python_error(vm, &e))
                    });
                    let _ = reply.send(result);
                }
            }
        }
    }

    /// Whether the run being served was cancelled.
    pub(super) fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(ProgressSink::is_cancelled)
    }

    pub(super) fn guarded<R>(
        &self,
        vm: &VirtualMachine,
        budget: Duration,
        f: impl FnOnce() -> PyResult<R>,
    ) -> PyResult<R> {
        TIMEOUT_TYPE.with(|t| *t.borrow_mut() = Some((self.timeout_type.clone(), budget)));
        self.watchdog.begin(budget, self.cancel.clone());
        let result = f();
        self.watchdog.end();
        // A signal that arrived just as the call ended must not hit the next call.
        let _ = vm.check_signals();
        result
    }

    pub(super) fn run(
        &mut self,
        report: &Arc<Report>,
        options: &RunOptions,
    ) -> Result<RunOutput, RulesError> {
        let count = report.num_actions();
        let kernels: Vec<usize> = match &options.kernels {
            Some(list) => {
                if let Some(&index) = list.iter().find(|&&i| i >= count) {
                    return Err(RulesError::NoSuchKernel { index, count });
                }
                list.clone()
            }
            None => (0..count).collect(),
        };
        for folder in &options.rule_folders {
            if let Err(source) = std::fs::read_dir(folder) {
                return Err(RulesError::Folder {
                    path: folder.clone(),
                    source,
                });
            }
        }
        let load_started = Instant::now();
        let key = SetKey::of(options);
        let mut load_time = Duration::ZERO;
        if self.loaded.as_ref().is_none_or(|l| l.key != key) {
            let previous = self.loaded.take();
            let set = self.interpreter.enter(|vm| {
                if let Some(previous) = &previous {
                    unload(vm, previous);
                }
                self.load(vm, key, options.timeout)
            });
            self.loaded = Some(set);
            load_time = load_started.elapsed();
        }
        let Some(set) = &self.loaded else {
            return Err(RulesError::EngineGone);
        };
        let started = Instant::now();
        let mut out = Vec::with_capacity(kernels.len());
        let mut cancelled = false;
        for index in kernels {
            if self.cancelled() {
                cancelled = true;
                break;
            }
            let action = report.action(index)?;
            out.push(
                self.interpreter
                    .enter(|vm| self.run_kernel(vm, set, action, report.clone(), options)),
            );
        }
        Ok(RunOutput {
            kernels: out,
            load_errors: set.errors.clone(),
            rules_loaded: set.rules.len(),
            apply_time: started.elapsed(),
            load_time,
            cancelled: cancelled || self.cancelled(),
        })
    }

    /// The modules of a rule set: the `.py` files of each folder (sorted by name), then the
    /// bundled rules when asked for, helper modules (no `get_identifier`) first so the rules
    /// find them in `sys.modules`. A name seen earlier hides later ones, as on `sys.path`.
    pub(super) fn module_sources(key: &SetKey) -> Vec<ModuleSource> {
        let mut seen: HashSet<String> = HashSet::new();
        let mut sources = Vec::new();
        for folder in &key.folders {
            let mut files: Vec<PathBuf> = match std::fs::read_dir(folder) {
                Ok(entries) => entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "py") && p.is_file())
                    .collect(),
                Err(_) => Vec::new(),
            };
            files.sort();
            for file in files {
                let Some(stem) = file.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                    continue;
                };
                if seen.insert(stem.clone()) {
                    sources.push(ModuleSource {
                        stem,
                        path: file.to_string_lossy().into_owned(),
                        folder: Some(folder.clone()),
                        text: None,
                    });
                }
            }
        }
        if key.bundled {
            let mut bundled: Vec<&(&str, &str)> = crate::bundled::BUNDLED_RULES.iter().collect();
            bundled.sort_by_key(|(name, text)| {
                (
                    crate::scan::returned_string(text, "get_identifier").is_some(),
                    *name,
                )
            });
            for (name, text) in bundled {
                let stem = name.trim_end_matches(".py").to_owned();
                if seen.insert(stem.clone()) {
                    sources.push(ModuleSource {
                        stem,
                        path: format!("bundled:rules/{name}"),
                        folder: None,
                        text: Some(text),
                    });
                }
            }
        }
        sources
    }

    pub(super) fn load(&self, vm: &VirtualMachine, key: SetKey, budget: Duration) -> LoadedSet {
        let folders = key.folders.clone();
        let mut set = LoadedSet {
            key,
            rules: Vec::new(),
            order: Vec::new(),
            errors: Vec::new(),
            module_names: Vec::new(),
        };
        // The rule folders are the only import path besides the frozen standard library.
        if let Ok(path) = vm.sys_module.get_attr("path", vm) {
            let entries: Vec<PyObjectRef> = folders
                .iter()
                .map(|f| vm.ctx.new_str(f.to_string_lossy().into_owned()).into())
                .collect();
            let _ = vm.call_method(&path, "clear", ());
            let _ = vm.call_method(&path, "extend", (vm.ctx.new_list(entries),));
        }
        // Forget the path finders' directory listings, so files added since the last load are
        // found (`importlib.invalidate_caches()` would also import `importlib.metadata`, which
        // costs tens of milliseconds).
        let _ = vm.run_string(
            vm.new_scope_with_builtins(),
            "import sys\nsys.path_importer_cache.clear()\n",
            "<sightline>".into(),
        );
        let mut seen_ids: HashMap<String, String> = HashMap::new();
        for source in Self::module_sources(&set.key) {
            let stem = source.stem.clone();
            let file = source.path.clone();
            match self.load_file(vm, source, budget) {
                Ok(Some(rule)) => {
                    set.module_names.push(stem);
                    if let Some(first) = seen_ids.get(&rule.identifier) {
                        set.errors.push(RuleError {
                            rule: rule.identifier.clone(),
                            message: format!(
                                "{file}: duplicate rule identifier (already loaded from {first}); ignored"
                            ),
                        });
                        continue;
                    }
                    seen_ids.insert(rule.identifier.clone(), file);
                    set.rules.push(rule);
                }
                Ok(None) => set.module_names.push(stem),
                Err(message) => {
                    set.module_names.push(stem.clone());
                    set.errors.push(RuleError {
                        rule: stem,
                        message: format!("{file}: {message}"),
                    });
                }
            }
        }
        // NVIDIA's engine walks the rules sorted by identifier, running each rule's parents
        // before it (depth first): the order its results are listed in.
        set.rules.sort_by(|a, b| a.identifier.cmp(&b.identifier));
        let nodes: Vec<RuleNode> = set
            .rules
            .iter()
            .map(|r| RuleNode {
                identifier: r.identifier.clone(),
                depends_on: r
                    .parents
                    .iter()
                    .chain(&r.requirements.rules)
                    .cloned()
                    .collect(),
            })
            .collect();
        let (order, problems) = run_order(&nodes);
        set.order = order;
        set.errors.extend(problems.into_iter().map(|p| RuleError {
            rule: p.rule,
            message: p.message,
        }));
        for rule in &set.rules {
            for required in &rule.requirements.rules {
                if !set.rules.iter().any(|r| &r.identifier == required) {
                    set.errors.push(RuleError {
                        rule: rule.identifier.clone(),
                        message: format!("requires rule {required:?}, which is not loaded"),
                    });
                }
            }
        }
        set
    }

    /// Imports one file; `Ok(None)` for helper modules (no `get_identifier`/`apply`).
    pub(super) fn load_file(
        &self,
        vm: &VirtualMachine,
        source: ModuleSource,
        budget: Duration,
    ) -> Result<Option<LoadedRule>, RuleLoadError> {
        let ModuleSource {
            stem,
            path,
            folder,
            text,
        } = source;
        let stem = stem.as_str();
        // A helper already imported by an earlier rule (through `sys.path`) is not run twice.
        let existing = vm
            .sys_module
            .get_attr("modules", vm)
            .ok()
            .and_then(|modules| modules.get_item(stem, vm).ok())
            .filter(|module| {
                module
                    .get_attr("__file__", vm)
                    .ok()
                    .and_then(|f| f.str(vm).ok())
                    .is_some_and(|f| f.to_string_lossy() == path)
            });
        let module = match existing {
            Some(module) => module,
            None => {
                let source = match text {
                    Some(text) => text.to_owned(),
                    None => std::fs::read_to_string(&path).map_err(RuleLoadError::Read)?,
                };
                self.guarded(vm, budget, || {
                    rustpython_vm::import::import_file(vm, stem, path.clone(), &source)
                })
                .map_err(|e| python_error(vm, &e))?
            }
        };
        let get = |name: &'static str| -> Option<PyObjectRef> {
            module.get_attr(name, vm).ok().filter(|f| f.is_callable())
        };
        let (Some(get_identifier), Some(apply)) = (get("get_identifier"), get("apply")) else {
            return Ok(None);
        };
        let call_str = |f: &PyObjectRef, function: &'static str| -> Result<String, RuleLoadError> {
            let value = self
                .guarded(vm, budget, || f.call((), vm))
                .map_err(|e| python_error(vm, &e))?;
            value
                .str(vm)
                .map(|s| s.to_string_lossy().into_owned())
                .map_err(|_| RuleLoadError::NotAString { function })
        };
        let identifier = call_str(&get_identifier, "get_identifier")?;
        let name = match get("get_name") {
            Some(f) => call_str(&f, "get_name")?,
            None => identifier.clone(),
        };
        let section = match get("get_section_identifier") {
            Some(f) => Some(call_str(&f, "get_section_identifier")?),
            None => None,
        };
        let parents = match get("get_parent_rules_identifiers") {
            Some(f) => {
                let value = self
                    .guarded(vm, budget, || f.call((), vm))
                    .map_err(|e| python_error(vm, &e))?;
                vm.extract_elements_with(&value, |p| Ok(p.str(vm)?.to_string_lossy().into_owned()))
                    .map_err(|e| python_error(vm, &e))?
            }
            None => Vec::new(),
        };
        let requirements = Rc::new(RefCell::new(Requirements::default()));
        if let Some(evaluate) = get("evaluate") {
            let evaluator = IEvaluator {
                requirements: requirements.clone(),
            }
            .into_pyobject(vm);
            let handle = register_handle(HandleTarget::Evaluator(evaluator));
            let result = self.guarded(vm, budget, || evaluate.call((handle,), vm));
            release_handle(handle);
            result.map_err(|e| RuleLoadError::Evaluate(python_error(vm, &e)))?;
        }
        let requirements = requirements.borrow().clone();
        Ok(Some(LoadedRule {
            identifier,
            name,
            section,
            parents,
            requirements,
            apply,
            folder,
        }))
    }
}

/// For a run of only some rules: the indices of the rules asked for, and of those plus every
/// rule they depend on (parents and required rules, transitively).
pub(super) fn selection(set: &LoadedSet, only: &[String]) -> (HashSet<usize>, HashSet<usize>) {
    let index_of: HashMap<&str, usize> = set
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.identifier.as_str(), i))
        .collect();
    let wanted: HashSet<usize> = only
        .iter()
        .filter_map(|id| index_of.get(id.as_str()).copied())
        .collect();
    let mut needed = wanted.clone();
    let mut stack: Vec<usize> = wanted.iter().copied().collect();
    while let Some(i) = stack.pop() {
        let rule = &set.rules[i];
        for dependency in rule.parents.iter().chain(&rule.requirements.rules) {
            if let Some(&j) = index_of.get(dependency.as_str())
                && needed.insert(j)
            {
                stack.push(j);
            }
        }
    }
    (wanted, needed)
}

pub(super) fn exception_text(vm: &VirtualMachine, exc: &PyBaseExceptionRef) -> String {
    exc.as_object()
        .str(vm)
        .map_or_else(|_| String::new(), |s| s.to_string_lossy().into_owned())
}

pub(super) fn flush_stdio(vm: &VirtualMachine) {
    for name in ["stdout", "stderr"] {
        if let Ok(stream) = vm.sys_module.get_attr(name, vm) {
            let _ = vm.call_method(&stream, "flush", ());
        }
    }
}

/// Forgets the modules of a previous rule set so a new set with same-named helpers (e.g. two
/// versions' `RequestedMetrics`) loads its own.
pub(super) fn unload(vm: &VirtualMachine, set: &LoadedSet) {
    let Ok(modules) = vm.sys_module.get_attr("modules", vm) else {
        return;
    };
    let folders: Vec<String> = set
        .key
        .folders
        .iter()
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    let Ok(keys) = vm.call_method(&modules, "keys", ()) else {
        return;
    };
    let Ok(names) = vm.extract_elements_with(&keys, Ok) else {
        return;
    };
    for name in names {
        let Ok(module) = modules.get_item(&*name, vm) else {
            continue;
        };
        let file = module
            .get_attr("__file__", vm)
            .ok()
            .and_then(|f| f.str(vm).ok().map(|s| s.to_string_lossy().into_owned()));
        let from_set = file
            .is_some_and(|f| folders.iter().any(|folder| f.starts_with(folder.as_str())))
            || name
                .str(vm)
                .is_ok_and(|n| set.module_names.iter().any(|m| *m == n.to_string_lossy()));
        if from_set {
            let _ = modules.del_item(&*name, vm);
        }
    }
}
