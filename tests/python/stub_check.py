"""Checks that the type stub of ``sightline._native`` declares exactly what the module has:
every public module-level name, and per class every public attribute and method (plus
``_repr_html_``; inherited from a stub base class counts), enum members included. Prints the differences, one a line, or ``ok``.
Usage: stub_check.py PATH/TO/_native.pyi
"""

import ast
import enum
import sys

from sightline import _native


def stub_names(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    module, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    members.update(t.id for t in item.targets if isinstance(t, ast.Name))
            # What a stub base class declares is inherited.
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    members |= classes[base.id]
            classes[node.name] = {m for m in members if not m.startswith("__")}
            module.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            module.add(node.target.id)
    module.discard("MetricValue")
    return module, classes


def runtime_names(cls):
    if isinstance(cls, enum.EnumMeta):
        return {m.name for m in cls}
    return {n for n in dir(cls) if not n.startswith("_") or n == "_repr_html_"}


def main():
    module, classes = stub_names(sys.argv[1])
    problems = []
    public = {n for n in dir(_native) if not n.startswith("_")} | {"__version__"}
    for name in sorted(public - module):
        problems.append(f"the stub lacks {name}")
    for name in sorted(module - public):
        problems.append(f"the stub declares {name}, which the module lacks")
    for name, members in sorted(classes.items()):
        cls = getattr(_native, name, None)
        if cls is None:
            continue
        have = runtime_names(cls)
        for member in sorted(have - members):
            problems.append(f"the stub lacks {name}.{member}")
        for member in sorted(members - have):
            problems.append(f"the stub declares {name}.{member}, which the module lacks")
    print("\n".join(problems) if problems else "ok")


if __name__ == "__main__":
    main()
