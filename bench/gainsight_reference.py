#!/usr/bin/env python3
"""A reference Gainsight frontend in plain Python, written here for the benchmark.

It works the way the original frontend does (its code is not public; the seed and FORMATS.md
section 5 describe it): read the log line by line, parse each line with string operations,
keep per-address state in dicts, collect lifetimes in lists, then compute the statistics the
way numpy/pandas do (pairwise sums, linear percentiles) and write NAME.sim_l1.csv,
NAME.sim_l2.csv, NAME.sim.csv and NAME.json. pandas/numpy are not installed here, so the
statistics are written out in plain Python with numpy's exact operation order; the outputs are
meant to equal Sightline's byte for byte (bench/gainsight.sh compares them).

usage: gainsight_reference.py LOG OUTDIR [NAME]
"""

import json
import math
import os
import sys
import time

CLOCK_MHZ = 2235.0
P = 1000.0 / CLOCK_MHZ
BLOCK = 32
L1_DEFAULT = 131072
L2_SIZE = 52428800
RETENTION = [("5nm Silicon", 1.0), ("16nm Silicon", 100.0), ("Hybrid", 10.0), ("Oxide", 1000000.0)]
AREA = [("sram", 121.0, False), ("silicon", 62.92, True), ("hybrid", 62.5, False), ("oxide", 96.0, False)]
AREA_DIVISOR = 75.0
CAPACITY_BITS = [1048576.0, 524288.0]


def pairwise_sum(a, lo, n):
    """numpy's pairwise summation (pairwise.c), on a[lo:lo+n]."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r = a[lo:lo + 8]
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] += a[lo + i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return pairwise_sum(a, lo, n2) + pairwise_sum(a, lo + n2, n - n2)


def percentile(sorted_values, q):
    n = len(sorted_values)
    vi = (n - 1) * (q / 100.0)
    below = math.floor(vi)
    g = vi - below
    lo = min(int(below), n - 1)
    hi = min(lo + 1, n - 1)
    a, b = sorted_values[lo], sorted_values[hi]
    d = b - a
    return b - d * (1.0 - g) if g >= 0.5 else a + d * g


def median(sorted_values):
    n = len(sorted_values)
    if n % 2:
        return sorted_values[n // 2]
    return (sorted_values[n // 2 - 1] + sorted_values[n // 2]) / 2.0


def new_kernel():
    return {"id": None, "name": "", "path": None, "l1_size": None, "cycles": None, "last": 0,
            "reads": [0, 0], "writes": [0, 0], "l1": {}, "l1_unique": set(), "l2": {},
            "lifetimes": [[], []]}


def close_kernel(k, kernels):
    for (sm, addr), (start, last) in k["l1"].items():
        if start is not None and last is not None:
            k["lifetimes"][0].append((addr, last - start))
    for addr, (start, last) in k["l2"].items():
        if start is not None and last is not None:
            k["lifetimes"][1].append((addr, last - start))
    for lts in k["lifetimes"]:
        lts.sort(key=lambda t: (-t[1], t[0]))
    k["unique"] = [len(k["l1_unique"]), len(k["l2"])]
    del k["l1"], k["l2"], k["l1_unique"]
    kernels.append(k)


def parse(path):
    kernels = []
    k = new_kernel()
    content = False
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("GPGPU-Sim Cycle "):
                # GPGPU-Sim Cycle C: Load instr from L1D cache at SM s bank b addr HEX status N
                parts = line.split(" ")
                if len(parts) != 17:
                    continue
                cycle = int(parts[2][:-1])
                store = parts[3] == "Store"
                cache = parts[6]
                status = int(parts[16])
                if cache not in ("L1D", "L2") or status == 3 or status > 5:
                    continue
                content = True
                sm = int(parts[10])
                addr = int(parts[14], 16)
                lvl = 0 if cache == "L1D" else 1
                k["last"] = max(k["last"], cycle)
                if store:
                    k["writes"][lvl] += 1
                else:
                    k["reads"][lvl] += 1
                if lvl == 0:
                    k["l1_unique"].add(addr)
                    table, key = k["l1"], (sm, addr)
                else:
                    table, key = k["l2"], addr
                slot = table.get(key)
                if slot is None:
                    slot = [None, None]
                    table[key] = slot
                if store or status in (2, 4):
                    if slot[0] is not None and slot[1] is not None:
                        k["lifetimes"][lvl].append((addr, slot[1] - slot[0]))
                    slot[0] = cycle
                    slot[1] = None
                elif slot[0] is not None:
                    slot[1] = cycle
            elif line.startswith("Processing kernel"):
                if content:
                    close_kernel(k, kernels)
                k = new_kernel()
                k["path"] = line[len("Processing kernel"):].strip()
                content = True
            elif line.startswith("-kernel name = "):
                k["name"] = line[len("-kernel name = "):]
            elif line.startswith("-kernel id = "):
                k["id"] = int(line[len("-kernel id = "):])
            elif line.startswith("GPGPU-Sim: Reconfigure L1 cache to "):
                k["l1_size"] = int(line[len("GPGPU-Sim: Reconfigure L1 cache to "):-2]) * 1024
            elif line.startswith("gpu_sim_cycle"):
                k["cycles"] = int(line.split("=")[1])
    if content:
        close_kernel(k, kernels)
    return kernels


def r(x):
    return "0" if x is None else repr(x)


def main():
    started = time.time()
    log, outdir = sys.argv[1], sys.argv[2]
    kernels = parse(log)
    parsed = time.time()
    name = sys.argv[3] if len(sys.argv) > 3 else None
    if name is None:
        parent = os.path.dirname(kernels[0]["path"])
        name = os.path.basename(os.path.dirname(parent)) if os.path.basename(parent) == "traces" else os.path.basename(parent)
    os.makedirs(outdir, exist_ok=True)
    for lvl in (0, 1):
        with open(os.path.join(outdir, "%s.sim_l%d.csv" % (name, lvl + 1)), "w") as f:
            f.write("kernel_id,address,lifetime_cycles,lifetime_ns\n")
            for k in kernels:
                kid = k["id"]
                for addr, c in k["lifetimes"][lvl]:
                    f.write("%d,%.2f,%.2f,%.2f\n" % (kid, float(addr), float(c), c * P))
    rows = []
    for k in sorted(kernels, key=lambda k: k["id"]):
        t = k["cycles"] if k["cycles"] is not None else k["last"]
        stats = []
        for lvl in (0, 1):
            vals = [float(c) for _, c in k["lifetimes"][lvl]]
            if not vals:
                stats += [None] * 4
                continue
            s = sorted(vals)
            us = lambda c: c * P / 1000.0
            stats += [us(pairwise_sum(vals, 0, len(vals)) / len(vals)), us(median(s)), us(percentile(s, 90.0)), us(s[-1])]
        freq = lambda n: n / (t * P) * 1000.0 if t > 0 else None
        tot = lambda n: n / (t * P) if t > 0 else None
        l1_size = k["l1_size"] if k["l1_size"] is not None else L1_DEFAULT
        row = [str(k["id"]), k["name"]] + [r(x) for x in stats] + [
            r(freq(k["reads"][0])), r(freq(k["writes"][0])), r(freq(k["reads"][1])), r(freq(k["writes"][1])),
            r(k["unique"][0] * BLOCK / l1_size), str(l1_size), str(k["unique"][0]),
            r(k["unique"][1] * BLOCK / L2_SIZE), str(L2_SIZE), str(k["unique"][1]),
            r(tot(k["reads"][0] + k["reads"][1])), r(tot(k["writes"][0] + k["writes"][1])), str(t)]
        rows.append((k, t, row))
    header = ("Kernel ID,Mangled Names,L1 Lifetime,L1 Lifetime Median,L1 Lifetime 90%-tile,L1 Lifetime Max,"
              "L2 Lifetime,L2 Lifetime Median,L2 Lifetime 90%-tile,L2 Lifetime Max,L1 Read Frequency,"
              "L1 Write Frequency,L2 Read Frequency,L2 Write Frequency,L1 Utilization,L1 Size,"
              "L1 Unique Addresses,L2 Utilization,L2 Size,L2 Unique Addresses,Total Read Frequency,"
              "Total Write Frequency,Total Cycles")
    with open(os.path.join(outdir, name + ".sim.csv"), "w") as f:
        f.write(header + "\n")
        for _, _, row in rows:
            f.write(",".join(row) + "\n")
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    tm = time.gmtime(epoch)
    report = {"Name": name, "Date": time.strftime("%Y-%m-%d", tm), "Time": time.strftime("%H-%M-%S", tm)}
    for lvl in (0, 1):
        report["L%d Lifetime Count" % (lvl + 1)] = sum(len(k["lifetimes"][lvl]) for k, _, _ in rows)
    for lvl in (0, 1):
        wf = [(k["writes"][lvl] / (t * P) * 1000.0 if t > 0 else 0.0) for k, t, _ in rows]
        times = [t * P for _, t, _ in rows]
        total = pairwise_sum(times, 0, len(times))
        writes = sum(k["writes"][lvl] for k, _, _ in rows)
        mx = max(wf)
        report["L%d Write Frequency" % (lvl + 1)] = {
            "max": mx, "maxidx": wf.index(mx), "90%-tile": percentile(sorted(wf), 90.0),
            "weighted": writes / total * 1000.0 if total > 0 else 0.0}
    for lvl in (0, 1):
        report["L%d Refreshes" % (lvl + 1)] = {
            cell: float(sum(math.floor(c * P / 1000.0 / ret) for k, _, _ in rows for _, c in k["lifetimes"][lvl]))
            for cell, ret in RETENTION}
    for lvl in (0, 1):
        bits = CAPACITY_BITS[lvl]
        report["L%d Area" % (lvl + 1)] = {
            cell: (bits / AREA_DIVISOR * kf if first else bits * kf / AREA_DIVISOR) for cell, kf, first in AREA}
    with open(os.path.join(outdir, name + ".json"), "w") as f:
        json.dump(report, f, indent=4)
    done = time.time()
    sys.stderr.write("reference: parse %.2f s, outputs %.2f s, total %.2f s\n" % (parsed - started, done - parsed, done - started))


if __name__ == "__main__":
    main()
