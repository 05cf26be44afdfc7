"""Seeds fuzz/corpus/recipe_partial/ with real partials: every recipe's partial of a generated
export named rank0.sqlite (the file the target combines for), each as the target reads it (the
first byte picks the recipe: even, the partial as zstd frames; odd, its JSON, which the target
compresses). Needs Sightline's Python module (pip install ./python) and the release
make_nsys_export (cargo build --release -p sightline-test-support --bin make_nsys_export).

    python3 fuzz/seed_recipe_partials.py [MAKE_NSYS_EXPORT]
"""

import json
import os
import subprocess
import sys
import tempfile

from sightline import _native

here = os.path.dirname(os.path.abspath(__file__))
make = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    here, "..", "target", "release", "make_nsys_export")
out = os.path.join(here, "corpus", "recipe_partial")
os.makedirs(out, exist_ok=True)
names = [name for name, _ in _native.recipe_list()]
with tempfile.TemporaryDirectory() as tmp:
    os.chdir(tmp)
    subprocess.run([make, "rank0.sqlite", "5000", "--seed", "1"], check=True,
                   stdout=subprocess.DEVNULL)
    for index, name in enumerate(names):
        options = {"name": "kernel"} if name.endswith("_pace") else {}
        try:
            partial = _native.recipe_partial(name, json.dumps(options), "rank0.sqlite")
        except ValueError as e:
            print(f"{name}: {e}", file=sys.stderr)
            continue
        with open(os.path.join(out, f"{name}.zst"), "wb") as f:
            f.write(bytes([(2 * index) % 256]) + partial)
        try:
            import zstandard  # optional: the JSON form too
            raw = zstandard.ZstdDecompressor().decompressobj().decompress(partial)
            with open(os.path.join(out, f"{name}.json"), "wb") as f:
                f.write(bytes([(2 * index + 1) % 256]) + raw)
        except ImportError:
            pass
print(f"{len(os.listdir(out))} seeds in {out}")
