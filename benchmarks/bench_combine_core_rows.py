"""The combine rows of ``bench_core.py`` (workloads a, b, d, s) for two checkouts in one process.

Usage: ``python benchmarks/bench_combine_core_rows.py OLD_ROOT NEW_ROOT ROUNDS PROCESSES`` (from
``benchmarks/``).  The cases of ``bench_core.py``'s Dempster (a) and cautious (d) rules on two masses
with every focal set (n = 3 .. 15), its binary fold (b: 100 sources x 10,000, ``from_array`` and
``combine(..., axis=1)``) and its focal-set Dempster (s), timed as ``bench_combine_paths.py
--same-process`` times its own (its ``same_process``: CPU time, batches of ~20 ms alternating old/new,
BLAS and numba on one thread).  Prints a markdown table of the ratio new/old.
"""

import sys

import bench_combine_paths as B
import numpy as np

B.CHILD = r"""
import json, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from dstk import MassFunction, combine, Frame  # PACKAGE
rng = np.random.default_rng(0)

def masses(shape, n):
    v = rng.random(shape + (1 << n,)) + 0.01
    v[..., 0] = 0
    return v / v.sum(-1, keepdims=True)

cases = {}
for n in (3, 5, 8, 10, 12, 15):
    f = Frame([f"l{i}" for i in range(n)])
    x, y = (MassFunction.from_array(masses((), n), f) for _ in range(2))
    cases[f"a dempster two masses n={n}"] = (lambda x=x, y=y: combine([x, y]))
    cases[f"d cautious two masses n={n}"] = (lambda x=x, y=y: combine([x, y], rule="cautious"))
M = masses((10000, 100), 2)
F2 = Frame([0, 1])
cases["b 100 binary x 10,000, from_array + combine axis=1"] = lambda: combine(MassFunction.from_array(M, F2), axis=1)
for n, F in ((30, 32), (30, 256), (60, 256)):
    f = Frame([f"l{i}" for i in range(n)])
    ms = []
    for _ in range(2):
        focal = sorted(set(int(v) for v in rng.integers(1, 2**min(n, 62), size=F)))
        w = rng.random(len(focal)); w /= w.sum()
        ms.append(MassFunction.from_focal_sets(focal, w, f))
    cases[f"s focal sets n={n} F={F}"] = (lambda ms=ms: combine(ms))
"""
runs = B.same_process(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
print("| case | old (µs) | new (µs) | new/old median | range over processes |")
print("|---|---:|---:|---:|---|")
for name in runs[0]:
    ratios = [float(np.median(np.array(r[name]["new"]) / np.array(r[name]["old"]))) for r in runs]
    old = np.median([np.median(r[name]["old"]) for r in runs]) * 1e6
    new = np.median([np.median(r[name]["new"]) for r in runs]) * 1e6
    print(
        f"| {name} | {old:.1f} | {new:.1f} | {np.median(ratios):.3f} | {min(ratios):.3f}-{max(ratios):.3f} |"
    )
