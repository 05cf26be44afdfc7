//! The `NvRules` module against NVIDIA's: every class, method, constant and module-level name
//! of NvRules.py 2022.3, 2024.1 and 2025.3 exists (needs `../shared`, skipped without it), and
//! the names that are plain Python in NVIDIA's module behave as there (always run).

use std::path::{Path, PathBuf};

use crate::common::rules::apply_rule;

fn nvrules_reference() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/ncu/nvrules");
    if dir.join("NvRules-2025.3.1.py").is_file() {
        Some(dir)
    } else {
        crate::common::skip_shared(
            "../shared/reference/ncu/nvrules (NVIDIA's NvRules.py) not found",
        );
        None
    }
}

/// Runs `body` (defining `apply`) as a rule on the sample's kernel 0 and returns the text of
/// its messages; a rule error fails the test with the traceback.
fn messages_of(body: &str) -> Vec<String> {
    match apply_rule("Probe", body) {
        Ok(messages) => messages.into_iter().map(|m| m.message).collect(),
        Err(error) => panic!("rule failed:\n{error}"),
    }
}

/// Every name of `api-surface-NvRules-*.txt` (classes with their methods and constants,
/// module functions), and every public top-level name of `NvRules-*.py` (read with `ast`), is
/// an attribute of Sightline's module. Not required: `SwigPyIterator`, the iterator type SWIG
/// gives its C++ container proxies (Sightline's containers are Python's own).
#[test]
fn every_name_of_nvidias_modules_exists() {
    let Some(reference) = nvrules_reference() else {
        return;
    };
    let body = format!(
        r#"
import ast, re
REFERENCE = {reference:?}
VERSIONS = ["2022.3.0", "2024.1.1", "2025.3.1"]

def listed_names(version):
    names, cls = [], None
    for line in open("%s/api-surface-NvRules-%s.txt" % (REFERENCE, version)):
        m = re.match(r"class (\w+):(.*)", line)
        if m:
            cls = m.group(1)
            names.append(cls)
            names += ["%s.%s" % (cls, f) for f in re.findall(r"(\w+)\(", m.group(2))]
            continue
        m = re.match(r"def (\w+)\(", line)
        if m:
            cls = None
            names.append(m.group(1))
            continue
        m = re.match(r"\s+consts: (.*)", line)
        if m and cls:
            names += ["%s.%s" % (cls, c.strip()) for c in m.group(1).split(",") if c.strip()]
    return names

def top_level_names(version):
    tree = ast.parse(open("%s/NvRules-%s.py" % (REFERENCE, version)).read())
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [n for n in names if not n.startswith("_") and n != "SwigPyIterator"]

def apply(handle):
    fe = NvRules.get_context(handle).frontend()
    checked, missing = 0, []
    for version in VERSIONS:
        for name in listed_names(version) + top_level_names(version):
            obj = NvRules
            for part in name.split("."):
                obj = getattr(obj, part, None)
            checked += 1
            if obj is None:
                missing.append("%s: %s" % (version, name))
    fe.message("checked %d" % checked)
    fe.message("missing: %s" % ", ".join(missing))
"#,
        reference = reference.display().to_string()
    );
    let messages = messages_of(&body);
    let checked: usize = messages[0]
        .strip_prefix("checked ")
        .and_then(|n| n.parse().ok())
        .expect("count");
    assert!(checked > 500, "only {checked} names checked");
    assert_eq!(messages[1], "missing: ");
}

/// The 2025.3 names that are plain Python in NVIDIA's module: module-level enum integers,
/// `IBaseContext`, the table data classes with their defaults, the std-container names, the
/// deprecated-constant map, and the module-level helpers of 2024.1.
#[test]
fn python_level_names_behave_like_nvidias() {
    let body = r#"
def apply(handle):
    ctx = NvRules.get_context(handle)
    fe = ctx.frontend()
    action = ctx.range_by_idx(0).action_by_idx(0)
    metric = action["launch__block_size"]
    checks = [
        (NvRules.MsgType_NONE, NvRules.MsgType_OK, NvRules.MsgType_OPTIMIZATION,
         NvRules.MsgType_WARNING, NvRules.MsgType_ERR) == (0, 1, 2, 3, 4),
        (NvRules.MarkerKind_SASS, NvRules.MarkerKind_SOURCE, NvRules.MarkerKind_NONE) == (0, 1, 2),
        (NvRules.RuleKind_DEFAULT, NvRules.RuleKind_GUIDED) == (0, 1),
        (NvRules.TableElementKind_INVALID, NvRules.TableElementKind_DOUBLE,
         NvRules.TableElementKind_INT, NvRules.TableElementKind_STRING,
         NvRules.TableElementKind_CUSTOM) == (0, 1, 2, 3, 4),
        isinstance(ctx, NvRules.IBaseContext),
        issubclass(NvRules.IEvaluator, NvRules.IBaseContext),
        not isinstance(fe, NvRules.IBaseContext),
        NvRules.IBaseContext.get_version(ctx) == ctx.get_version() == NvRules.get_version(handle),
        NvRules.TableSortInfo().column == 0 and NvRules.TableSortInfo().is_ascending,
        NvRules.TableStyle() == NvRules.TableStyle(),
        NvRules.TableColumnConfig().relative_width == 0.0,
        NvRules.TableColumnConfig().header_style == NvRules.TableStyle(),
        NvRules.TableConfig().use_sorting is False and NvRules.TableConfig().title == "",
        NvRules.TableColumn().kind == NvRules.TableElementKind_INVALID,
        NvRules.TableColumn().size() == 0,
        NvRules.TableData().has_config is False and len(NvRules.TableData().columns) == 0,
        NvRules.RuleResultMessage().type == NvRules.MsgType.NONE,
        NvRules.vector_string(["a", "b"]).size() == 2,
        NvRules.map_string_double({"a": 1.0}).has_key("a"),
        NvRules.set_ull([1, 1, 2]).size() == 2,
        NvRules.IFrontend.deprecated_attributes["MsgType_MSG_WARNING"] == "MsgType.WARNING",
        NvRules.IContext__len(ctx) == len(ctx) == 1,
        NvRules.IRange__getitem(ctx[0], 0).name() == action.name(),
        NvRules.IAction__str(action) == action.name(),
        NvRules.IAction__getitem(action, "launch__block_size").name() == "launch__block_size",
        NvRules.IMetric__str(metric) == "launch__block_size",
        NvRules.IMetric__value(metric) == metric.value(),
        NvRules.IMetric_kind_to_value_func[metric.kind()](metric) == metric.value(),
        NvRules.IMetric__metric_subtype_using_None(lambda m: 0)(metric) is None,
        NvRules.IMetric__rollup_operation_using_None(lambda m: 4)(metric) == 4,
    ]

    class Local:
        pass

    @NvRules.ncu_report_add_method(Local, "added")
    def _added(self):
        return "added to %s" % type(self).__name__

    checks.append(Local().added() == "added to Local")
    failed = [i for i, ok in enumerate(checks) if not ok]
    fe.message("failed checks: %s" % failed)
"#;
    assert_eq!(messages_of(body), vec!["failed checks: []".to_owned()]);
}
