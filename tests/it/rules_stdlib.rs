//! The standard library bundled with the rule engine (`crates/rules/build.rs`): what rules use
//! imports; what was left out fails with a message that says so, and a rule folder may still
//! bring its own module of a left-out name.

use std::time::Duration;

use crate::common::rules::{rule, rules_dir, run};
use sightline::rules::RuleEngine;

/// Imports `name` in the engine: "ok", or the exception's type and message.
fn import(engine: &RuleEngine, name: &str) -> String {
    let code = format!(
        "try:\n    __import__('importlib').import_module({name:?}); r = 'ok'\n\
         except BaseException as e:\n    r = type(e).__name__ + ': ' + str(e)\n"
    );
    let result = engine
        .eval(&format!("(lambda g: exec({code:?}, g) or g['r'])({{}})"))
        .expect("engine alive")
        .expect("the probe itself runs");
    // The repr of a str: one quote at each end.
    result[1..result.len() - 1].to_owned()
}

#[test]
fn the_modules_rules_use_are_bundled() {
    let engine = RuleEngine::start().expect("engine");
    let used = [
        "math",
        "cmath",
        "statistics",
        "fractions",
        "decimal",
        "numbers",
        "random",
        "json",
        "csv",
        "re",
        "string",
        "textwrap",
        "difflib",
        "pprint",
        "reprlib",
        "collections",
        "collections.abc",
        "itertools",
        "functools",
        "operator",
        "heapq",
        "bisect",
        "copy",
        "dataclasses",
        "enum",
        "typing",
        "abc",
        "types",
        "weakref",
        "warnings",
        "contextlib",
        "datetime",
        "time",
        "calendar",
        "pathlib",
        "os",
        "os.path",
        "glob",
        "fnmatch",
        "io",
        "codecs",
        "struct",
        "base64",
        "hashlib",
        "zlib",
        "gzip",
        "logging",
        "traceback",
        "inspect",
        "ast",
        "dis",
        "tokenize",
        "platform",
        "uuid",
        "graphlib",
        "ipaddress",
        "tomllib",
        "configparser",
        "shlex",
        "html",
        "urllib.parse",
        "pickle",
        "array",
        "queue",
        "sched",
        "locale",
        "gettext",
        "unicodedata",
        "linecache",
        "importlib",
        "colorsys",
    ];
    let failed: Vec<String> = used
        .iter()
        .map(|name| (name, import(&engine, name)))
        .filter(|(_, result)| result != "ok")
        .map(|(name, result)| format!("{name}: {result}"))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    // The codecs a rule may meet in a text file.
    let decoded = engine
        .eval("[b'caf\\xe9'.decode(c) for c in ('latin-1', 'cp1252', 'iso8859-15')] + [b'\\xef\\xbb\\xbfa'.decode('utf-8-sig'), 'ä'.encode('utf-16-le').decode('utf-16-le')]")
        .expect("engine alive")
        .expect("codecs");
    assert_eq!(decoded, "['café', 'café', 'café', 'a', 'ä']");
}

#[test]
fn a_left_out_module_says_it_was_left_out() {
    let engine = RuleEngine::start().expect("engine");
    for name in [
        "tkinter",
        "unittest.mock",
        "email.message",
        "xml.dom.minidom",
        "argparse",
    ] {
        let result = import(&engine, name);
        assert!(
            result.starts_with("ModuleNotFoundError: ")
                && result.contains("not in the standard library bundled with Sightline"),
            "{name}: {result}"
        );
    }
    // What the sandbox blocks keeps the sandbox's message.
    assert_eq!(
        import(&engine, "subprocess"),
        "ImportError: module 'subprocess' is not available to rules"
    );
    // An unknown module is an ordinary missing module.
    assert_eq!(
        import(&engine, "no_such_module_anywhere"),
        "ModuleNotFoundError: No module named 'no_such_module_anywhere'"
    );
}

#[test]
fn a_rule_folder_may_bring_a_module_with_a_left_out_name() {
    let helper = "def parse():\n    return 'from the rule folder'\n";
    let body = "def apply(handle):\n    import argparse\n    NvRules.get_context(handle).frontend().message(argparse.parse())\n";
    let dir = rules_dir(&[("argparse.py", helper), ("own.py", &rule("Own", body))]);
    let engine = RuleEngine::start().expect("engine");
    let out = run(&engine, dir.path(), Some(vec![0]), Duration::from_secs(20));
    assert!(out.load_errors.is_empty(), "{:?}", out.load_errors);
    let kernel = &out.kernels[0];
    assert!(kernel.errors.is_empty(), "{:?}", kernel.errors);
    let own = kernel
        .results
        .iter()
        .find(|result| result.identifier == "Own")
        .expect("the rule ran");
    assert_eq!(own.messages[0].message, "from the rule folder");
}
