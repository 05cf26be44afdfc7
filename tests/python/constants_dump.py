"""Prints the enums and integer constants of the ``ncu_report`` module as JSON: each
``IntEnum`` class with its members, each module-level integer, and each integer attribute of
the module's classes (``IMetric.ValueKind_DOUBLE``...), for the classes in ``CLASSES`` only
when given (so a module that lacks a class of the other can still be compared on the rest).

Run with Sightline's module or NVIDIA's on ``sys.path``: both must print the same.
Usage: constants_dump.py [CLASS...]
"""

import enum
import json
import sys

import ncu_report


def main():
    only = set(sys.argv[1:])
    out = {"enums": {}, "module": {}, "classes": {}}
    for name in dir(ncu_report):
        if name.startswith("_"):
            continue
        value = getattr(ncu_report, name)
        if isinstance(value, enum.EnumMeta):
            out["enums"][name] = {
                "base": [b.__name__ for b in value.__mro__[1:3]],
                "members": [[m.name, int(m.value)] for m in value],
            }
        elif isinstance(value, int) and not isinstance(value, bool):
            out["module"][name] = value
        elif isinstance(value, type) and (not only or name in only):
            attributes = {}
            for attribute in dir(value):
                v = getattr(value, attribute)
                if not attribute.startswith("_") and isinstance(v, int) and not isinstance(v, bool):
                    attributes[attribute] = v
            if attributes:
                out["classes"][name] = attributes
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
