"""CPU time of each rule's focal-set combination by one route forced: the constants of ``dstk.core._sparse``.

Two mass functions of F random focal sets (the sources of
``bench_wide_limits.py``) are combined by the conjunctive, Dempster's,
Yager's and the disjunctive rule with the route forced and the limit
lifted; prints the CPU time (``time.process_time``), the wall time and the
cost a pair (``pairs``) or a subset, label, row and transform (``dense``).

Usage::

    NUMBA_NUM_THREADS=1 python benchmarks/bench_wide_rule_costs.py pairs 4096 1 24,26,27,28,32,48,64
    NUMBA_NUM_THREADS=1 python benchmarks/bench_wide_rule_costs.py dense 4096 1 22,24
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np
from bench_wide_limits import sources
from threadpoolctl import threadpool_limits

from dstk import combine
from dstk.core import _sparse

RULES = ("conjunctive", "dempster", "yager", "disjunctive")


def forced(masses, rule, route):
    """CPU and wall seconds of the combination by ``route`` with the limit lifted."""
    limit, choose = _sparse.MAX_PAIRWISE_SECONDS, _sparse.choose_route
    _sparse.MAX_PAIRWISE_SECONDS = float("inf")
    _sparse.choose_route = lambda *args, **kwargs: route
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        combine(masses, rule=rule)
        return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        _sparse.MAX_PAIRWISE_SECONDS, _sparse.choose_route = limit, choose


def main():
    route, count, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    labels = [int(x) for x in sys.argv[4].split(",")]
    threadpool_limits(1)
    rng = np.random.default_rng(0)
    warm = sources(rng, 17, 16, 1)
    for rule in RULES:  # compile before timing
        forced(warm, rule, "pairs")
        forced(warm, rule, "dense")
    print("load", os.getloadavg(), flush=True)
    for n in labels:
        masses = sources(rng, n, count, rows)
        for rule in RULES:
            cpu, wall = forced(masses, rule, route)
            unit = count**2 if route == "pairs" else rows * 3 * n * 2.0**n
            print(
                f"{route} n={n} F={count} rows={rows} {rule}: cpu {cpu:.3f} wall {wall:.3f} "
                f"ns/{'pair' if route == 'pairs' else 'unit'} {cpu / unit * 1e9:.2f}",
                flush=True,
            )
    print("load", os.getloadavg(), flush=True)


if __name__ == "__main__":
    main()
