"""Warm CPU time of the fusion's rate fit at realistic sizes, two source trees side by side.

Times :func:`dstk.evidence._contextual.log_loss_contextual_rates` as
:class:`dstk.calibration.EvidentialFusionClassifier` calls it (failure points of
``_failure_points``, contamination 0.1, least rate ``_MIN_LEARNED_RATE``) on synthetic out-of-fold
outputs of S classifiers, n samples and K classes, in child processes of the two trees in turn, each
tree with its own numba cache populated first (warm: the kernels are loaded from the cache).  Each
child also prints the SHA-256 of the fitted rates, so that the two trees' rates can be compared bit
for bit.  With ``--numpy`` this tree also runs a third column with the criterion forced to numpy.

Usage::

    python benchmarks/bench_fusion_rates_warm.py --baseline /path/to/main --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = ((3, 2000, 2), (5, 3000, 5), (10, 2000, 10), (8, 5000, 3))

CHILD = r"""
import hashlib, sys, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
import dstk.evidence._contextual as contextual
from dstk.calibration._fusion import _MIN_LEARNED_RATE, _failure_points
if sys.argv[1] == "numpy":
    contextual._criterion_in_numpy = lambda work: True

def problem(S, n, K, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, K, n)
    logits = rng.normal(size=(S, n, K)) * rng.uniform(0.5, 3.0, (S, 1, 1))
    logits += 2.0 * np.eye(K)[labels] * rng.uniform(0.0, 2.0, (S, 1, 1))
    return np.exp(logits) / np.exp(logits).max(axis=2, keepdims=True), labels

def fit(contours, labels):
    weights = np.ones(labels.size)
    return contextual.log_loss_contextual_rates(
        contours, labels, weights=weights, min_rate=_MIN_LEARNED_RATE,
        failure_points=_failure_points(contours, weights), contamination=0.1)

fit(*problem(2, 50, 2, 0))  # loads (or compiles) the kernels
for size in SIZES:
    contours, labels = problem(*size, 1)
    start = time.process_time()
    rates = fit(contours, labels)
    cpu = time.process_time() - start
    print(size, cpu, hashlib.sha256(rates.tobytes()).hexdigest()[:16])
"""


def child(root: str, cache: str, mode: str) -> list[tuple[str, float, str]]:
    env = dict(
        os.environ, PYTHONPATH=root, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"
    )
    code = f"SIZES = {SIZES!r}\n" + CHILD
    out = subprocess.run(
        [sys.executable, "-c", code, mode], env=env, cwd=cache, capture_output=True, text=True, check=True
    ).stdout
    rows = []
    for line in out.splitlines():
        size, cpu, digest = line.rsplit(" ", 2)
        rows.append((size, float(cpu), digest))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="root of the other source tree (e.g. main)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--numpy", action="store_true", help="also this tree with the numpy criterion")
    args = parser.parse_args()
    trees = {"baseline": str(Path(args.baseline).resolve()), "this tree": str(HERE.parent)}
    sides = [(name, root, "kernel") for name, root in trees.items()]
    if args.numpy:
        sides.append(("this tree, numpy", trees["this tree"], "numpy"))
    print("load average at start", os.getloadavg())
    caches = {name: tempfile.mkdtemp() for name in trees}
    for name, root in trees.items():  # populate the caches
        child(root, caches[name], "kernel")
    times: dict[tuple[str, str], list[float]] = {}
    digests: dict[tuple[str, str], set[str]] = {}
    for _ in range(args.rounds):
        for name, root, mode in sides:
            cache = caches["this tree" if name.startswith("this tree") else name]
            for size, cpu, digest in child(root, cache, mode):
                times.setdefault((size, name), []).append(cpu)
                digests.setdefault((size, name), set()).add(digest)
        print("round done, load", os.getloadavg()[0], flush=True)
    print("load average at end", os.getloadavg())
    names = [name for name, _, _ in sides]
    print(
        "| S, n, K | "
        + " | ".join(f"{n} CPU, median (range)" for n in names)
        + " | this tree / baseline | rates |"
    )
    print("|---" * (len(names) + 3) + "|")
    for size in dict.fromkeys(size for size, _ in times):
        cells = [
            f"{statistics.median(times[size, n]):.3f} s ({min(times[size, n]):.3f}-{max(times[size, n]):.3f})"
            for n in names
        ]
        # per-round ratios, then their median
        ratios = [t / b for t, b in zip(times[size, "this tree"], times[size, "baseline"])]
        same = "same bits" if digests[size, "this tree"] == digests[size, "baseline"] else "DIFFERENT"
        print(f"| {size} | " + " | ".join(cells) + f" | {statistics.median(ratios):.3f} | {same} |")


if __name__ == "__main__":
    main()
