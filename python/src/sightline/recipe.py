"""NVIDIA's multi-report recipes (``nsys recipe``) over Nsight Systems exports, here or on a
Dask cluster.

``sightline.recipe.run("cuda_gpu_kern_sum", "ranks/", "out/")`` computes a recipe on every core
of this machine, as ``sightline recipe`` does. With ``mode="dask"`` each file is read by a Dask
task (one per file, ``client.map``) on the workers of the cluster at ``scheduler`` (or of
``client``, or of a local cluster of worker processes when neither is given); each task sends
back the file's small partial result and this process combines them and writes the tables:
the files written are byte for byte those of the local mode. The workers read the files at the
paths given here (a file system they share with this machine), and need the same Sightline
version installed (``pip install ./python``): a partial of another version is refused.

Inputs and output are taken as ``sightline recipe`` (and NVIDIA's recipes) take them: ``DIR:n``
the first n exports of a folder, output patterns (``%n``, ``%h``, ``%p``, ``%q{VAR}``, ``%%``;
default ``NAME-%n``), an existing folder kept unless ``force_overwrite``; the ``.nsys-analysis``
file written beside the tables.

``python -m sightline.recipe NAME --input FILE|DIR... [--output DIR]`` does the same from a
shell; ``sightline recipe NAME ... --mode dask`` runs it.
"""

import argparse
import json
import os
import sys
import time

from sightline import _native

__all__ = ["MODES", "RecipeError", "list_recipes", "main", "run"]

#: The modes: here one file at a time (``none``) or on every core (``local``, NVIDIA's
#: ``concurrent``), or on a Dask cluster (``dask``, NVIDIA's ``dask-futures``).
MODES = ("none", "local", "concurrent", "dask", "dask-futures")

#: The recipes' options (``sightline recipe --help``) and their types.
OPTIONS = {
    "start": int,
    "end": int,
    "nvtx": str,
    "rows": int,
    "gap": float,
    "threshold": int,
    "chunks": int,
    "name": str,
    "bins": int,
    "cumulative": bool,
}


#: What the ``.nsys-analysis`` file records of each mode (NVIDIA's names).
_MODE_RECORDED = {"none": "none", "local": "concurrent", "concurrent": "concurrent",
                  "dask": "dask-futures", "dask-futures": "dask-futures"}


class RecipeError(Exception):
    """A recipe could not run: no file could be read, a worker failed, Dask is missing..."""


def list_recipes():
    """The recipes, as ``(name, what it gives)`` pairs."""
    return _native.recipe_list()


def run(recipe, inputs, output=None, mode="local", scheduler=None, client=None, workers=None,
        progress=False, force_overwrite=False, **options):
    """Runs ``recipe`` over ``inputs`` (exports, folders of them, ``DIR:n``) and writes its
    tables and ``.nsys-analysis`` file into the folder ``output`` (a pattern; default
    ``NAME-%n``; an existing folder is removed first with ``force_overwrite``, else left alone
    and the default used, with a warning); returns the files written (none when no input holds
    data for it).

    ``mode``: ``"local"`` (this process, on ``workers`` threads, every core by default),
    ``"none"`` (this process, one file at a time) or ``"dask"`` (one Dask task per file on the cluster at ``scheduler``, on ``client``'s cluster,
    or on a new local cluster of ``workers`` processes). ``progress`` prints the files done on
    standard error. ``options``: the recipe's options (``start``, ``end``, ``nvtx``, ``rows``,
    ``gap``, ``threshold``, ``chunks``, ``name``, ``bins``, ``cumulative``), as the command's
    flags.
    """
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: the modes are {', '.join(MODES)}")
    options_json = json.dumps({k: v for k, v in options.items() if v is not None})
    _native.recipe_check(recipe, options_json)
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    files = _native.recipe_inputs([os.fspath(p) for p in inputs])
    if not files:
        raise RecipeError("no input files")
    started = time.time()
    if mode == "none":
        if workers not in (None, 1):
            raise ValueError("mode 'none' reads one file at a time: workers does not apply")
        workers = 1
    if mode in ("dask", "dask-futures"):
        partials = _dask_partials(recipe, options_json, files, scheduler, client, workers, progress)
        workers = None
    elif scheduler is not None or client is not None:
        raise ValueError("scheduler and client need mode='dask'")
    else:
        partials = None
    output = None if output is None else os.fspath(output)
    folder, remove_first, said = _native.recipe_output_dir(recipe, output, force_overwrite)
    for warning in said:
        print(f"warning: {warning}", file=sys.stderr)
    outcome = _native.recipe_write(recipe, options_json, files, folder, partials, workers,
                                   progress, remove_first, _MODE_RECORDED[mode], started)
    written, warnings, readable = outcome
    for warning in warnings:
        print(warning, file=sys.stderr)
    if readable == 0:
        raise RecipeError(f"{recipe}: none of the {len(files)} input files could be read")
    if not written:
        print(f"{recipe}: no input holds data for the recipe: no output written", file=sys.stderr)
    return written


def _partial(recipe, options_json, path):
    """One file's partial: what a Dask task computes on a worker."""
    return _native.recipe_partial(recipe, options_json, path)


def _dask_partials(recipe, options_json, files, scheduler, client, workers, progress):
    """Every file's partial, computed by Dask tasks, in the order of ``files``."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as e:
        raise RecipeError(
            f"the dask mode needs Dask's distributed scheduler in this Python "
            f"({sys.executable}): pip install 'dask[distributed]' ({e})"
        ) from None
    owned = []
    futures = []
    try:
        if client is None:
            if scheduler is None:
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)
                owned.append(cluster)
                client = Client(cluster)
            else:
                client = Client(scheduler)
            owned.append(client)
        n = len(files)
        futures = client.map(_partial, [recipe] * n, [options_json] * n, files, pure=False)
        for done, _ in enumerate(as_completed(futures), 1):
            if progress:
                print(f"\r{recipe}: {done}/{n} files", end="", file=sys.stderr, flush=True)
        if progress:
            print(file=sys.stderr)
        return _gather(client, futures, files)
    except BaseException:
        if futures and client is not None:
            client.cancel(futures)
        raise
    finally:
        for thing in reversed(owned):
            thing.close()


def _gather(client, futures, files):
    """The futures' results; a ``RecipeError`` naming the file of the first that failed."""
    for future, path in zip(futures, files):
        if future.status == "error":
            error = future.exception()
            hint = ""
            if isinstance(error, ImportError):
                hint = " (install Sightline's Python module in every worker's Python)"
            raise RecipeError(f"{path}: a Dask worker failed: {error!r}{hint}")
    return client.gather(futures)


def _parser():
    """The command line of ``python -m sightline.recipe``."""
    parser = argparse.ArgumentParser(
        prog="python -m sightline.recipe",
        description="NVIDIA's multi-report recipes (nsys recipe) over Nsight Systems exports, "
        "here or on a Dask cluster (one task per file; the workers read the files at the "
        "paths given).",
    )
    parser.add_argument("recipe", help="the recipe (--list lists them)", nargs="?")
    parser.add_argument("--list", action="store_true", help="list the recipes")
    parser.add_argument("--input", nargs="+", metavar="FILE|DIR[:n]",
                        help="exports or folders (DIR:n: its first n exports by name)")
    parser.add_argument("--output", metavar="DIR",
                        help="the folder to write into (a pattern; default NAME-%%n)")
    parser.add_argument("--force-overwrite", action="store_true",
                        help="remove the output folder first when it exists")
    parser.add_argument("--mode", choices=MODES, default="dask")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="the Dask scheduler (default: a local cluster)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="worker processes of the local cluster (threads in local mode)")
    for option, kind in OPTIONS.items():
        if kind is bool:
            parser.add_argument(f"--{option}", action="store_true", dest=f"option_{option}")
        else:
            parser.add_argument(f"--{option}", type=kind, dest=f"option_{option}")
    return parser


def main(argv=None):
    """``python -m sightline.recipe``: runs a recipe and prints the files written; exit status
    1 on an error, 130 when interrupted."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        for name, about in list_recipes():
            print(f"{name:<24}{about}")
        return 0
    if args.recipe is None or not args.input:
        parser.error("a recipe and --input are required")
    options = {o: getattr(args, f"option_{o}") for o in OPTIONS}
    try:
        written = run(args.recipe, args.input, args.output, mode=args.mode,
                      scheduler=args.scheduler, workers=args.workers, progress=True,
                      force_overwrite=args.force_overwrite, **options)
    except KeyboardInterrupt:
        print("\nsightline: cancelled: no output written", file=sys.stderr)
        return 130
    except (RecipeError, ValueError, OSError) as e:
        print(f"sightline: error: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    # Through the package's module, so that the Dask tasks name ``sightline.recipe._partial``
    # (which every worker imports) rather than this ``__main__``.
    from sightline.recipe import main as _main

    sys.exit(_main())
