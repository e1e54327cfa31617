"""Focal-set combinations on 17-64 labels: each finishes within 2 s of CPU or is refused within 1 s.

Two mass functions of F random focal sets each (Dirichlet masses, a batch
of 1 or 10 rows) on ``Frame(range(n))`` are combined by Dempster's and the
disjunctive rule through :func:`dstk.combine`; each cell is the CPU time of
the call (``time.process_time``: numba and BLAS on one thread), the route
:func:`dstk.core._sparse.choose_route` took, or the time to refuse with
:class:`~dstk.exceptions.FrameTooLargeError`.  With ``--verify`` a refused
cell whose cheaper estimate is at most ``--verify-max`` seconds is run again
by that route with the limit raised, to show what the refusal saved.

Usage::

    NUMBA_NUM_THREADS=1 python benchmarks/bench_wide_limits.py [--verify] [--md FILE]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
from threadpoolctl import threadpool_limits

from dstk import Frame, MassFunction, combine
from dstk.core import _sparse
from dstk.exceptions import FrameTooLargeError

LABELS = (17, 18, 20, 22, 24, 25, 26, 27, 28, 32, 48, 64)
COUNTS = (16, 64, 256, 1024, 4096, 16384)
RULES = ("dempster", "disjunctive")
BATCHES = (1, 10)


def random_focal(rng, n, count):
    """``count`` distinct random non-empty subsets of ``n`` labels (uint64 bitmasks)."""
    if n <= 20:
        return np.sort(rng.choice(np.arange(1, 2**n, dtype=np.uint64), size=count, replace=False))
    focal = np.unique(rng.integers(1, 2**n - 1, size=count, dtype=np.uint64, endpoint=True))
    while focal.size < count:
        more = rng.integers(1, 2**n - 1, size=count - focal.size, dtype=np.uint64, endpoint=True)
        focal = np.unique(np.concatenate([focal, more]))
    return focal


def sources(rng, n, count, rows):
    frame = Frame(range(n))
    out = []
    for _ in range(2):
        focal = random_focal(rng, n, count)
        masses = rng.dirichlet(np.ones(count), size=None if rows == 1 else rows)
        out.append(MassFunction.from_focal_sets(focal, masses, frame))
    return out


class Routes:
    """Records the route and the estimates of each :func:`choose_route` call."""

    def __init__(self):
        self.original = _sparse.choose_route
        self.last = None

    def __call__(self, n, sizes, rows, rule, *, pairs=True):
        possible = _sparse.dense_fits(n, len(sizes), rows) and n <= _sparse.DENSE_SWITCH_MAX_LABELS
        dense = _sparse.dense_seconds(n, len(sizes), rows, rule) if possible else float("inf")
        by_pairs = _sparse.pairs_seconds(sizes, rows, n, rule)
        self.last = (None, dense, by_pairs)
        route = self.original(n, sizes, rows, rule, pairs=pairs)
        self.last = (route, dense, by_pairs)
        return route


def cell(a, b, rule, routes):
    routes.last = None
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        combine([a, b], rule=rule)
        error = None
    except FrameTooLargeError as caught:
        error = caught
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu, wall, error, routes.last


def forced(a, b, rule, route):
    """CPU seconds of the combination by ``route`` with the limit lifted."""
    limit, choose = _sparse.MAX_PAIRWISE_SECONDS, _sparse.choose_route
    _sparse.MAX_PAIRWISE_SECONDS = float("inf")
    _sparse.choose_route = lambda *args, **kwargs: route
    try:
        cpu = time.process_time()
        combine([a, b], rule=rule)
        return time.process_time() - cpu
    finally:
        _sparse.MAX_PAIRWISE_SECONDS, _sparse.choose_route = limit, choose


def fmt(seconds):
    return f"{seconds * 1e3:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verify", action="store_true", help="time refused cells by their cheaper route")
    parser.add_argument("--verify-max", type=float, default=6.0)
    parser.add_argument("--md", help="write the tables as Markdown to this file")
    parser.add_argument("--labels", type=int, nargs="*", default=LABELS)
    args = parser.parse_args()
    threadpool_limits(1)
    routes = Routes()
    _sparse.choose_route = routes
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        f"- commit {commit}; command: `NUMBA_NUM_THREADS=1 python {' '.join(sys.argv)}`",
        f"- load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
    ]
    print("\n".join(lines), flush=True)
    rng = np.random.default_rng(0)
    warm = sources(rng, 17, 16, 1)
    for rule in RULES:  # compile before timing
        combine(warm, rule=rule)
        forced(*warm, rule, "dense")
        forced(*warm, rule, "pairs")
    violations = []
    for rule in RULES:
        for rows in BATCHES:
            title = f"### {rule}, batch of {rows}: CPU time (route) or time to refuse"
            table = [title, "", "| n | " + " | ".join(f"F={c:,}" for c in COUNTS) + " |"]
            table.append("|---" * (len(COUNTS) + 1) + "|")
            for n in args.labels:
                row = [str(n)]
                for count in COUNTS:
                    if count > 2**n:
                        row.append("-")
                        continue
                    a, b = sources(rng, n, count, rows)
                    cpu, wall, error, last = cell(a, b, rule, routes)
                    if error is None:
                        text = f"{fmt(cpu)} ({last[0] if last else 'pairs'})"
                        if cpu > 2.0:
                            violations.append((rule, rows, n, count, text))
                    else:
                        text = f"refused {fmt(cpu)}"
                        if last is not None:
                            _, dense, by_pairs = last
                            text += f" (est. pairs {by_pairs:.3g} s, dense {dense:.3g} s)".replace(
                                "inf s", "n/a"
                            )
                            cheaper = min((by_pairs, "pairs"), (dense, "dense"))
                            if args.verify and cheaper[0] <= args.verify_max:
                                text += f"; ran {fmt(forced(a, b, rule, cheaper[1]))} by {cheaper[1]}"
                        if cpu > 1.0:
                            violations.append((rule, rows, n, count, text))
                    row.append(text)
                    print(f"  {rule} rows={rows} n={n} F={count}: {text} (wall {fmt(wall)})", flush=True)
                    del a, b
                table.append("| " + " | ".join(row) + " |")
            print("\n".join(table), flush=True)
            lines += ["", *table]
    lines.append("")
    lines.append(f"- load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    lines.append(f"- cells over 2 s of CPU or refused after more than 1 s: {len(violations)} {violations}")
    print("\n".join(lines[-2:]))
    if args.md:
        with open(args.md, "w") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
