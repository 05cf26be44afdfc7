//! The rule engine on the project's fixtures with small rule files written by the tests:
//! the NvRules API surface, ordering and dict passing, section binding, containment.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::rules::{rule, rules_dir, run, sample};
use sightline::rules::model::{
    KernelRules, MarkerLocation, MsgType, RuleMessage, RuleResult, TableCell,
};
use sightline::rules::{RuleEngine, RunOptions, SectionBinding};

#[test]
fn interpreter_starts_fast_enough_and_has_the_stdlib() {
    let engine = RuleEngine::start().expect("engine");
    eprintln!("interpreter ready in {:?}", engine.ready_time());
    let result = engine
        .eval(
            "(__import__('math').sqrt(16), __import__('re').sub('a', 'b', 'aa'), \
              __import__('collections').Counter('aab')['a'], __import__('abc').ABC.__name__, \
              list(__import__('itertools').product([1], [2])), \
              __import__('dataclasses').dataclass.__name__, \
              __import__('enum').StrEnum.__name__, __import__('typing').Any is not None, \
              __import__('pathlib').Path('/a/b.txt').name, __import__('json').dumps({'k': 1}))",
        )
        .expect("engine alive");
    assert_eq!(
        result.unwrap(),
        "(4.0, 'bb', 2, 'ABC', [(1, 2)], 'dataclass', 'StrEnum', True, 'b.txt', '{\"k\": 1}')"
    );
    // No host path leaks in: only the frozen standard library is importable besides rules.
    let path = engine.eval("__import__('sys').path").unwrap().unwrap();
    assert_eq!(path, "[]");
}

/// A rule exercising the whole API: context, ranges, actions, metrics (reading, adding),
/// NVTX, messages of every arity, speedups, focus metrics, markers, tables and the vault.
const API_RULE: &str = r#"
def apply(handle):
    ctx = NvRules.get_context(handle)
    fe = ctx.frontend()
    assert len(ctx) == 1 and ctx.num_ranges() == 1
    rng = ctx.range_by_idx(0)
    assert ctx[0].num_actions() == 1 and ctx[-1].num_actions() == 1
    assert len(list(ctx)) == 1 and len(ctx[0:1]) == 1
    try:
        ctx[1]
        raise AssertionError("no IndexError")
    except IndexError:
        pass
    action = rng.action_by_idx(0)
    assert len(rng) == 1 and len(list(rng)) == 1
    assert action.name() == "matmul_tiled", action.name()
    assert action.name(NvRules.IAction.NameBase_FUNCTION) == "matmul_tiled"
    assert str(action) == "matmul_tiled"
    assert action.workload_type() == NvRules.IAction.WorkloadType_KERNEL
    names = action.metric_names()
    assert len(action) == len(names) and "launch__block_size" in names
    assert list(action) == list(names)
    assert "launch__block_size" in action
    m = action["launch__block_size"]
    assert m.name() == "launch__block_size" and str(m) == "launch__block_size"
    assert m.kind() == NvRules.IMetric.ValueKind_UINT64
    assert m.value() == m.as_uint64() and isinstance(m.value(), int)
    assert m.as_double() == float(m.as_uint64())
    assert action.metric_by_name("no__such_metric") is None
    try:
        action["no__such_metric"]
        raise AssertionError("no KeyError")
    except KeyError:
        pass
    try:
        action[3]
        raise AssertionError("no TypeError")
    except TypeError:
        pass
    waves = action["launch__waves_per_multiprocessor"]
    assert waves.kind() == NvRules.IMetric.ValueKind_DOUBLE and isinstance(waves.value(), float)
    bd = action["breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed"]
    assert bd.kind() == NvRules.IMetric.ValueKind_STRING
    assert bd.value().split(",")[0] == "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"
    assert bd.as_string() == bd.value() and waves.as_string() is None
    per_sm = action["sm__cycles_elapsed.max"]
    n = per_sm.num_instances()
    assert n == 46 and per_sm.has_correlation_ids()
    ids = per_sm.correlation_ids()
    assert ids.num_instances() == n and ids.as_uint64(5) == 5 and ids.value(7) == 7
    assert per_sm.value(0) == per_sm.as_uint64(0) or per_sm.value(0) == per_sm.as_double(0)
    assert NvRules.metric_instances(per_sm)[3] == per_sm.value(3)
    try:
        per_sm.value(n)
        raise AssertionError("no IndexError")
    except IndexError:
        pass
    added = action.add_metric("sightline__added")
    added.set_double(NvRules.IMetric.ValueKind_DOUBLE, 2.5)
    assert action["sightline__added"].value() == 2.5
    assert "sightline__added" in action.metric_names()
    s = action.add_metric("sightline__text")
    s.set_string(NvRules.IMetric.ValueKind_STRING, "hi")
    assert action.metric_by_name("sightline__text").as_string() == "hi"
    u = action.add_metric("sightline__count")
    u.set_uint64(NvRules.IMetric.ValueKind_UINT64, 7)
    assert action["sightline__count"].value() == 7
    nvtx = action.nvtx_state()
    assert sorted(nvtx.domains()) == [0, 7] and len(nvtx) == 2
    assert nvtx[7].name() == "app" and nvtx.domain_by_id(7).push_pop_ranges() == ["solver"]
    assert nvtx[0].push_pop_ranges() == ["run", "compute"]
    assert nvtx[0].start_end_ranges() == ["epoch 1"]
    assert nvtx[0].push_pop_range(1).name() == "compute"
    assert rng.actions_by_nvtx(["run/compute"], []) == [0]
    assert rng.actions_by_nvtx(["compute/"], ["app@solver/"]) == []
    assert rng.actions_by_nvtx(["epoch 1"], []) == [0]
    assert rng.actions_by_nvtx([], []) == []
    # message arities and both constant spellings
    a = fe.message("plain")
    b = fe.message("titled", "Title B")
    c = fe.message(NvRules.IFrontend.MsgType_MSG_WARNING, "warned")
    d = fe.message(NvRules.MsgType.OPTIMIZATION, "optimize", "Title D")
    assert (a, b, c, d) == (0, 1, 2, 3)
    assert NvRules.MsgType.WARNING == NvRules.IFrontend.MsgType_MSG_WARNING == 3
    assert NvRules.MarkerKind.SOURCE == NvRules.IFrontend.MarkerKind_SOURCE
    assert fe.speedup(d, NvRules.IFrontend.SpeedupType_GLOBAL, 12.5)
    assert not fe.speedup(99, NvRules.IFrontend.SpeedupType_LOCAL, 1.0)
    assert fe.focus_metric(d, "launch__block_size", m.value(), NvRules.IFrontend.Severity_SEVERITY_HIGH, "why")
    fe.source_marker("hot", 0x40, NvRules.IFrontend.MarkerKind_SASS, NvRules.MsgType.WARNING)
    fe.source_marker("line", 12, NvRules.MarkerKind.SOURCE, "k.cu", NvRules.MsgType.OK)
    fe.generate_table(d, ["name", "count"], [["a", 1], ["b", 2]], {"title": "T"})
    assert NvRules.get_version(handle) == ctx.get_version()
    vault = ctx.controller().get_message_vault()
    vault.Put("X", "stored")
    assert vault.Get("X") == "stored"
"#;

#[test]
fn the_api_surface_behaves_like_nvidias() {
    let body = API_RULE;
    let dir = rules_dir(&[("Api.py", &rule("Api", body))]);
    let engine = RuleEngine::start().unwrap();
    let out = run(&engine, dir.path(), Some(vec![1]), Duration::from_secs(10));
    assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
    let kernel = &out.kernels[0];
    assert!(kernel.errors.is_empty(), "{}", kernel.errors[0].message);
    let result = &kernel.results[0];
    assert_eq!(result.identifier, "Api");
    assert_eq!(result.name, "Api rule");
    check_api_messages(&result.messages);
    check_api_markers(result);
}

/// The four messages: types, titles, speedup, focus metric and table.
fn check_api_messages(m: &[RuleMessage]) {
    assert_eq!(m.len(), 4);
    assert_eq!((m[0].msg_type, m[0].title.as_str()), (MsgType::Ok, ""));
    assert_eq!(
        (m[1].msg_type, m[1].title.as_str()),
        (MsgType::Ok, "Title B")
    );
    assert_eq!(m[2].msg_type, MsgType::Warning);
    assert_eq!(
        (m[3].msg_type, m[3].title.as_str()),
        (MsgType::Optimization, "Title D")
    );
    let speedup = m[3].speedup.unwrap();
    assert_eq!((speedup.kind, speedup.value), (2, 12.5));
    assert_eq!(m[3].focus_metrics[0].name, "launch__block_size");
    assert_eq!(m[3].focus_metrics[0].severity, 2);
    assert_eq!(m[3].tables[0].title.as_deref(), Some("T"));
    assert_eq!(
        m[3].tables[0].rows[1],
        vec![TableCell::Text("b".into()), TableCell::Int(2)]
    );
}

/// A SASS and a source marker.
fn check_api_markers(result: &RuleResult) {
    assert_eq!(result.source_markers.len(), 2);
    assert_eq!(
        result.source_markers[0].location,
        MarkerLocation::Sass(0x40)
    );
    assert_eq!(
        result.source_markers[1].location,
        MarkerLocation::Source {
            file: "k.cu".into(),
            line: 12
        }
    );
}

#[test]
fn parents_run_first_and_pass_dicts_to_children() {
    let parent = rule(
        "Parent",
        "def apply(handle):\n    fe = NvRules.get_context(handle).frontend()\n    fe.send_dict_to_children({'x': 1.5})\n    fe.send_dict_to_children({'y': 2.0})\n    fe.message('parent ran')\n",
    );
    let child = rule(
        "Child",
        "def get_parent_rules_identifiers():\n    return ['Parent']\n\ndef apply(handle):\n    fe = NvRules.get_context(handle).frontend()\n    d = fe.receive_dict_from_parent('Parent')\n    other = fe.receive_dict_from_parent('Free')\n    fe.message('child got %s %s' % (sorted(d.items()), other))\n",
    );
    let needs = rule(
        "Needs",
        "def evaluate(handle):\n    NvRules.require_rules(handle, ['Child'])\n    NvRules.get_evaluator(handle).require_metric('launch__block_size')\n\ndef apply(handle):\n    NvRules.get_context(handle).frontend().message('needs ran')\n",
    );
    let missing_metric = rule(
        "WantsMissing",
        "def evaluate(handle):\n    NvRules.require_metrics(handle, ['no__such_metric'])\n\ndef apply(handle):\n    NvRules.get_context(handle).frontend().message('should not run')\n",
    );
    let free = rule(
        "Free",
        "def apply(handle):\n    NvRules.get_context(handle).frontend().send_dict_to_children({'z': 1})\n",
    );
    let cyc_a = rule(
        "CycA",
        "def get_parent_rules_identifiers():\n    return ['CycB']\n\ndef apply(handle):\n    pass\n",
    );
    let cyc_b = rule(
        "CycB",
        "def get_parent_rules_identifiers():\n    return ['CycA']\n\ndef apply(handle):\n    pass\n",
    );
    // File names sort children before parents: the order must come from the declarations.
    let dir = rules_dir(&[
        ("A_Needs.py", &needs),
        ("B_Child.py", &child),
        ("C_Parent.py", &parent),
        ("D_Free.py", &free),
        ("E_CycA.py", &cyc_a),
        ("F_CycB.py", &cyc_b),
        ("G_Missing.py", &missing_metric),
    ]);
    let engine = RuleEngine::start().unwrap();
    let out = run(
        &engine,
        dir.path(),
        Some(vec![0, 2]),
        Duration::from_secs(5),
    );
    let cycle_errors: Vec<&str> = out.load_errors.iter().map(|e| e.rule.as_str()).collect();
    assert!(
        cycle_errors.contains(&"CycA") && cycle_errors.contains(&"CycB"),
        "{:?}",
        out.load_errors
    );
    assert!(out.load_errors.iter().all(|e| e.message.contains("cycle")));
    for kernel in &out.kernels {
        let ran: Vec<&str> = kernel
            .results
            .iter()
            .map(|r| r.identifier.as_str())
            .collect();
        assert_eq!(ran, ["Parent", "Child", "Free", "Needs"]);
        let child = &kernel.results[1].messages[0].message;
        assert_eq!(child, "child got [('x', 1.5), ('y', 2.0)] {}");
        assert_eq!(kernel.errors.len(), 1, "{:?}", kernel.errors);
        assert_eq!(kernel.errors[0].rule, "WantsMissing");
        assert!(kernel.errors[0].message.contains("no__such_metric"));
    }
}

#[test]
fn rules_bind_to_sections_and_import_sibling_helpers() {
    let helper = "def describe(action):\n    return 'helper saw ' + action.name()\n";
    let bound = rule(
        "Bound",
        "from Helper import describe\n\ndef get_section_identifier():\n    return 'SpeedOfLight'\n\ndef apply(handle):\n    ctx = NvRules.get_context(handle)\n    ctx.frontend().message(describe(ctx.range_by_idx(0).action_by_idx(0)))\n",
    );
    let unbound = rule(
        "Elsewhere",
        "def get_section_identifier():\n    return 'NoSuchSection'\n\ndef apply(handle):\n    NvRules.get_context(handle).frontend().message('ran')\n",
    );
    let dir = rules_dir(&[
        ("Helper.py", helper),
        ("Bound.py", &bound),
        ("Elsewhere.py", &unbound),
    ]);
    let engine = RuleEngine::start().unwrap();
    let out = run(&engine, dir.path(), Some(vec![3]), Duration::from_secs(5));
    assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
    assert_eq!(out.rules_loaded, 2);
    let kernel = &out.kernels[0];
    assert!(kernel.errors.is_empty(), "{:?}", kernel.errors);
    assert_eq!(kernel.results.len(), 1);
    assert_eq!(
        kernel.results[0].section_identifier.as_deref(),
        Some("SpeedOfLight")
    );
    assert_eq!(
        kernel.results[0].messages[0].message,
        "helper saw transpose_naive"
    );

    // With an explicit section set, binding follows it instead of the embedded sections.
    let mut options = RunOptions::new(vec![dir.path().to_path_buf()]);
    options.kernels = Some(vec![0]);
    options.sections = SectionBinding::Identifiers(["NoSuchSection".to_owned()].into());
    let out = engine.run(sample(), options).unwrap();
    let ran: Vec<&str> = out.kernels[0]
        .results
        .iter()
        .map(|r| r.identifier.as_str())
        .collect();
    assert_eq!(ran, ["Elsewhere"]);
}

#[test]
fn runaway_and_failing_rules_become_errors() {
    let dir = failing_rules();
    let engine = RuleEngine::start().unwrap();
    let started = Instant::now();
    let out = run(
        &engine,
        dir.path(),
        Some(vec![0]),
        Duration::from_millis(300),
    );
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
    let load: Vec<&str> = out.load_errors.iter().map(|e| e.rule.as_str()).collect();
    assert_eq!(
        load,
        ["G_BrokenImport", "H_Syntax"],
        "{:?}",
        out.load_errors
    );
    assert!(out.load_errors[0].message.contains("does_not_exist"));
    assert!(out.load_errors[1].message.contains("SyntaxError"));
    let kernel = &out.kernels[0];
    check_rule_errors(kernel);
    check_messages_kept(kernel);
}

/// Rules that loop (one catching the timeout), raise, recurse, abort, one that runs after
/// them, and two that do not load (a missing import, a syntax error).
fn failing_rules() -> tempfile::TempDir {
    let endless = rule(
        "Endless",
        "def apply(handle):\n    while True:\n        pass\n",
    );
    let stubborn = rule(
        "Stubborn",
        "def apply(handle):\n    while True:\n        try:\n            while True:\n                pass\n        except Exception:\n            pass\n",
    );
    let raises = rule(
        "Raises",
        "def helper(x):\n    return x['missing']\n\ndef apply(handle):\n    NvRules.get_context(handle).frontend().message('before')\n    helper({})\n",
    );
    let recursive = rule(
        "Recursive",
        "def f(n):\n    return f(n + 1) + 1\n\ndef apply(handle):\n    f(0)\n",
    );
    let aborts = rule(
        "Aborts",
        "def apply(handle):\n    NvRules.raise_exception(handle, 'metrics missing; aborted')\n",
    );
    let after = rule(
        "After",
        "def apply(handle):\n    NvRules.get_context(handle).frontend().message('still running')\n",
    );
    let broken_import = "import NvRules\nimport does_not_exist\n\ndef get_identifier():\n    return 'BrokenImport'\n\ndef apply(handle):\n    pass\n";
    let syntax = "def get_identifier(:\n";
    rules_dir(&[
        ("A_Endless.py", &endless),
        ("B_Stubborn.py", &stubborn),
        ("C_Raises.py", &raises),
        ("D_Recursive.py", &recursive),
        ("E_Aborts.py", &aborts),
        ("F_After.py", &after),
        ("G_BrokenImport.py", broken_import),
        ("H_Syntax.py", syntax),
    ])
}

/// The error of each failing rule: timed out, the traceback, the recursion, the abort.
fn check_rule_errors(kernel: &KernelRules) {
    let error = |id: &str| -> &str {
        &kernel
            .errors
            .iter()
            .find(|e| e.rule == id)
            .unwrap_or_else(|| panic!("no error for {id}: {:?}", kernel.errors))
            .message
    };
    assert!(
        error("Endless").contains("timed out"),
        "{}",
        error("Endless")
    );
    assert!(error("Endless").contains("0.3 s"));
    assert!(
        error("Stubborn").contains("timed out"),
        "{}",
        error("Stubborn")
    );
    let raised = error("Raises");
    assert!(raised.contains("Traceback"), "{raised}");
    assert!(raised.contains("in helper"), "{raised}");
    assert!(
        raised.contains("KeyError") && raised.contains("missing"),
        "{raised}"
    );
    assert!(
        error("Recursive").contains("RecursionError"),
        "{}",
        error("Recursive")
    );
    assert!(error("Aborts").contains("metrics missing; aborted"));
}

/// Messages issued before a failure are kept; later rules still run.
fn check_messages_kept(kernel: &KernelRules) {
    let raises = kernel
        .results
        .iter()
        .find(|r| r.identifier == "Raises")
        .unwrap();
    assert_eq!(raises.messages[0].message, "before");
    let after = kernel
        .results
        .iter()
        .find(|r| r.identifier == "After")
        .unwrap();
    assert_eq!(after.messages[0].message, "still running");
}

#[test]
fn rules_cannot_write_files_or_start_processes() {
    let target: PathBuf = tempfile::tempdir().unwrap().keep();
    let victim = target.join("written.txt");
    let readable = target.join("readable.txt");
    std::fs::write(&readable, "content").unwrap();
    let checks = [
        (
            "WriteOpen",
            format!("open({:?}, 'w').write('x')", victim.display().to_string()),
        ),
        (
            "AppendOpen",
            format!("open({:?}, 'a')", victim.display().to_string()),
        ),
        (
            "PathWrite",
            format!(
                "__import__('pathlib').Path({:?}).write_text('x')",
                victim.display().to_string()
            ),
        ),
        (
            "OsOpen",
            format!(
                "import os; os.open({:?}, os.O_WRONLY | os.O_CREAT)",
                victim.display().to_string()
            ),
        ),
        (
            "FileIO",
            format!(
                "import io; io.FileIO({:?}, 'w')",
                victim.display().to_string()
            ),
        ),
        ("Subprocess", "import subprocess".to_owned()),
        ("Socket", "import socket".to_owned()),
        ("UrlRequest", "import urllib.request".to_owned()),
        ("Http", "import http.client".to_owned()),
        ("System", "import os; os.system('true')".to_owned()),
        ("Posix", "import posix; posix.fork()".to_owned()),
        (
            "Remove",
            format!("import os; os.remove({:?})", readable.display().to_string()),
        ),
    ];
    let mut files = Vec::new();
    for (id, code) in &checks {
        files.push((
            format!("{id}.py"),
            rule(id, &format!("def apply(handle):\n    {code}\n")),
        ));
    }
    files.push((
        "Reads.py".to_owned(),
        rule(
            "Reads",
            &format!(
                "def apply(handle):\n    NvRules.get_context(handle).frontend().message(open({:?}).read())\n",
                readable.display().to_string()
            ),
        ),
    ));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let dir = rules_dir(&refs);
    let engine = RuleEngine::start().unwrap();
    let out = run(&engine, dir.path(), Some(vec![0]), Duration::from_secs(5));
    assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
    let kernel = &out.kernels[0];
    for (id, _) in &checks {
        let error = kernel.errors.iter().find(|e| e.rule == *id);
        assert!(error.is_some(), "{id} was allowed");
        let message = &error.unwrap().message;
        assert!(
            [
                "PermissionError",
                "ImportError",
                "ModuleNotFoundError",
                "AttributeError"
            ]
            .iter()
            .any(|kind| message.contains(kind)),
            "{id}: {message}"
        );
    }
    assert!(!victim.exists(), "a rule wrote a file");
    assert!(readable.exists(), "a rule removed a file");
    let reads = kernel
        .results
        .iter()
        .find(|r| r.identifier == "Reads")
        .unwrap();
    assert_eq!(reads.messages[0].message, "content");
    std::fs::remove_dir_all(&target).ok();
}

#[test]
fn bad_requests_are_errors_not_panics() {
    let engine = RuleEngine::start().unwrap();
    let dir = rules_dir(&[]);
    let mut options = RunOptions::new(vec![dir.path().to_path_buf()]);
    options.kernels = Some(vec![99]);
    let error = engine.run(sample(), options).unwrap_err();
    assert!(error.to_string().contains("kernel 99"), "{error}");
    let options = RunOptions::new(vec![dir.path().join("missing")]);
    let error = engine.run(sample(), options).unwrap_err();
    assert!(
        error.to_string().contains("cannot read rules folder"),
        "{error}"
    );
    // The engine still works afterwards.
    let out = engine
        .run(sample(), RunOptions::new(vec![dir.path().to_path_buf()]))
        .unwrap();
    assert_eq!(out.kernels.len(), 4);
}

#[test]
fn stored_rule_results_are_readable_as_nvidias_reader_lists_them() {
    // A rule reads the stored results through IAction.rule_results() and returns them as
    // rule_results_as_dicts() would; they must equal the golden made by NVIDIA's reader.
    let body = r#"
import json

def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    out = []
    for r in action.rule_results():
        entry = {
            "rule_identifier": r.rule_identifier(),
            "name": r.name(),
            "section_identifier": r.section_identifier(),
            "rule_message": r.rule_message(),
        }
        if r.focus_metrics():
            entry["focus_metrics"] = r.focus_metrics()
        if r.has_speedup_estimation():
            entry["speedup_estimation"] = r.speedup_estimation()
        out.append(entry)
    markers = [(m.rule_identifier, m.kind, m.message) for m in action.source_markers()]
    ctx.frontend().message(json.dumps({"results": out, "markers": markers}))
"#;
    let dir = rules_dir(&[("stored.py", &rule("Stored", body))]);
    let engine = RuleEngine::start().expect("engine");
    let output = run(&engine, dir.path(), Some(vec![0]), Duration::from_secs(10));
    let kernel = &output.kernels[0];
    assert!(kernel.errors.is_empty(), "{:?}", kernel.errors);
    let text = &kernel.results[0].messages[0].message;
    let ours: serde_json::Value = serde_json::from_str(text).expect("JSON from the rule");
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden/sample.ncu-rep.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let expected = golden["ranges"][0]["actions"][0]["rule_results"].clone();
    assert!(expected.as_array().is_some_and(|a| !a.is_empty()));
    assert_eq!(ours["results"], expected);
    assert!(ours["markers"].is_array());
}
