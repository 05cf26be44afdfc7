"""Prints, as JSON, how the names ``dir(ncu_report)`` shows beyond the report classes behave:
every public module-level name and each class's public attributes (SWIG's ``this`` and
``thisown`` and private helpers left out), NVIDIA's containers used as Python sequences, sets
and maps with their C++ methods, the rule system's value types at their defaults, and what
making a rule-system interface raises.

Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: compat_dump.py
"""

import json
import sys

import ncu_report

SWIG_ONLY = {"this", "thisown"}
MODULES = {"enum", "platform", "weakref"}


def public(names):
    return sorted(n for n in names if not n.startswith("_") and n not in SWIG_ONLY)


def names_view():
    out = {}
    for name in public(dir(ncu_report)):
        if name in MODULES:
            continue
        obj = getattr(ncu_report, name)
        if isinstance(obj, type):
            out[name] = public(dir(obj))
        else:
            out[name] = "callable" if callable(obj) else type(obj).__name__
    return out


def raises(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the exception's type is what is compared
        return type(e).__name__
    return None


def vectors_view():
    m = ncu_report
    v = m.vector_ull([3, 1, 2])
    v.push_back(7)
    v.insert(v.begin(), 9)
    v.append(8)
    popped = v.pop()
    out = {
        "ull": list(v),
        "popped": popped,
        "size": v.size(),
        "len": len(v),
        "front_back": [v.front(), v.back()],
        "index": [v[0], v[-1]],
        "slice": [type(v[1:3]).__name__, list(v[1:3])],
        "empty": [v.empty(), m.vector_ull().empty()],
        "sized": [list(m.vector_string(2)), list(m.vector_double(2)), list(m.vector_ull(2, 5))],
        "insert_at_int": raises(lambda: v.insert(0, 1)),
        "bad_types": [
            raises(lambda: m.vector_ull([-1])),
            raises(lambda: m.vector_string([1])),
            raises(lambda: m.vector_double(["x"])),
        ],
        "iter": [x for x in m.vector_string(["a", "b"])],
        "begin_next": raises(lambda: m.vector_ull([4, 5]).begin().next()),
        "is_list": isinstance(v, list),
        "same_contents_equal": m.vector_ull([1]) == m.vector_ull([1]),
    }
    v.resize(2)
    out["resized"] = list(v)
    v.clear()
    out["cleared"] = [len(v), v.size()]
    return out


def sets_and_maps_view():
    m = ncu_report
    s = m.set_string(["b", "a", "b"])
    s.add("c")
    d = m.map_string_string({"b": "2", "a": "1"})
    d["c"] = "3"
    return {
        "set": list(s),
        "set_len": len(s),
        "set_contains": ["a" in s, "z" in s],
        "set_ull": list(m.set_ull([5, 1, 5])),
        "map_keys": list(d.keys()),
        "map_items": [list(i) for i in d.items()],
        "map_get": d["a"],
        "map_has": [d.has_key("a"), "z" in d],
        "map_dict": d.asdict(),
        "map_len": len(d),
    }


def values_view():
    out = {}
    for name in [
        "RuleResultFocusMetric",
        "RuleResultMessage",
        "RuleResultSpeedup",
        "RuleResultTable",
        "RuleResultTableColumn",
        "SourceMarker",
        "TableColumn",
        "TableColumnConfig",
        "TableConfig",
        "TableData",
        "TableSortInfo",
        "TableStyle",
        "TimedWarpSample",
    ]:
        value = getattr(ncu_report, name)()
        fields = {}
        for field in public(dir(value)):
            if (name, field) == ("TableData", "columns"):
                # NVIDIA's module leaves this one an unwrapped C++ vector (a SwigPyObject).
                continue
            attr = getattr(value, field)
            if callable(attr):
                fields[field] = attr()
            elif isinstance(attr, (int, float, str, bool)) or attr is None:
                fields[field] = attr
            else:
                fields[field] = type(attr).__name__
        out[name] = fields
    return out


def interfaces_view():
    names = ["IBackend", "IController", "IEvaluator", "IFrontend", "IMessageVault",
             "SwigPyIterator"]
    out = {name: raises(getattr(ncu_report, name)) for name in names}
    f = ncu_report.IFrontend
    out["IFrontend_constants"] = {k: getattr(f, k) for k in public(dir(f)) if k[0].isupper()}
    out["Path"] = ncu_report.Path.__module__
    return out


def main():
    json.dump(
        {
            "names": names_view(),
            "vectors": vectors_view(),
            "sets_and_maps": sets_and_maps_view(),
            "values": values_view(),
            "interfaces": interfaces_view(),
        },
        sys.stdout,
        indent=1,
        sort_keys=True,
    )
    print()


if __name__ == "__main__":
    main()
