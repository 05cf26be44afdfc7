"""Runs recipes on one local Dask cluster of two worker processes (tests/it/recipes_dask.rs).

Usage: python recipes_dask.py SIGHTLINE PLAN.json

PLAN.json lists runs: ``{"recipe", "inputs", "args", "options", "cli", "api"}``. Each run goes
through ``SIGHTLINE recipe RECIPE ... --mode dask --scheduler ADDRESS`` into ``cli`` (with this
Python as ``SIGHTLINE_PYTHON``) and through ``sightline.recipe.run(..., client=client)`` into
``api``. Prints ``ok`` at the end.
"""

import json
import os
import subprocess
import sys

from dask.distributed import Client, LocalCluster

import sightline.recipe


def main():
    sightline_bin, plan_path = sys.argv[1:3]
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    env = dict(os.environ, SIGHTLINE_PYTHON=sys.executable)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster:
        with Client(cluster) as client:
            workers = client.scheduler_info()["workers"]
            assert len(workers) == 2, workers
            pids = set(client.run(os.getpid).values())
            assert os.getpid() not in pids and len(pids) == 2, pids
            for run in plan:
                command = [sightline_bin, "recipe", run["recipe"], "--input", *run["inputs"],
                           "--output", run["cli"], "--mode", "dask",
                           "--scheduler", cluster.scheduler_address, *run["args"]]
                done = subprocess.run(command, env=env, capture_output=True, text=True)
                assert done.returncode == 0, (command, done.stderr)
                assert f"{run['recipe']}: {len(run['inputs'])}/{len(run['inputs'])} files" \
                    in done.stderr, done.stderr
                written = sightline.recipe.run(run["recipe"], run["inputs"], run["api"],
                                               mode="dask", client=client, **run["options"])
                assert written, run
                # The same files, the .nsys-analysis file named after its folder.
                api, cli = (os.path.basename(run[k]) + ".nsys-analysis" for k in ("api", "cli"))
                assert done.stdout.splitlines() == [
                    w.replace(run["api"], run["cli"]).replace(api, cli) for w in written
                ], (done.stdout, written)
    print("ok")


if __name__ == "__main__":
    main()
