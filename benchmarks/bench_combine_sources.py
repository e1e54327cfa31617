"""Cost per source of Dempster's rule from 10 to 10,000 sources, two dstk checkouts side by side.

Usage: ``python benchmarks/bench_combine_sources.py OLD_ROOT NEW_ROOT [--rounds R]``.

Informative sources (random masses with about half of the mass on the frame, 64 combinations of
K sources each) make the commonality products of a long fold leave the normal float64 range after
a few hundred to a few thousand sources (earlier on larger frames).  Each round runs every case
once in a fresh subprocess per checkout (old and new alternating, order swapped every round),
BLAS and numba pinned to one thread; a case reports the CPU time per call (median of 5 repeats)
divided by rows x sources.  The table gives the median over the rounds, and the ratio of the cost
per source at K to the cost at K = 100 (flat = 1).  Writes
``benchmarks/results/combine_sources.md``.
"""

import sys
from pathlib import Path

import numpy as np
from _harness import run_in_checkout

SOURCES = (10, 100, 1000, 2000, 5000, 10000)
LABELS = (2, 3, 4)

CHILD = r"""
import json, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from dstk import MassFunction, combine, Frame
rows = 64
out = {}
for n in LABELS:
    frame = Frame("abcdefgh"[:n])
    for k in SOURCES:
        rng = np.random.default_rng(k + 100 * n)
        v = rng.random((rows, k, 1 << n))
        v[..., 0] = 0
        v[..., -1] += 1.0
        v /= v.sum(-1, keepdims=True)
        mf = MassFunction.from_array(v, frame, validate=True)
        combine(mf, axis=1)
        times = []
        for _ in range(5):
            t = time.process_time()
            combine(mf, axis=1)
            times.append(time.process_time() - t)
        out[f"{n} {k}"] = float(np.median(times)) / (rows * k)
print(json.dumps(out))
"""


def run(root):
    code = f"LABELS = {LABELS!r}\nSOURCES = {SOURCES!r}\n" + CHILD
    return run_in_checkout(root, code)


def main():
    old, new = Path(sys.argv[1]), Path(sys.argv[2])
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    olds, news = {}, {}
    for r in range(rounds):
        pair = [(old, olds), (new, news)] if r % 2 == 0 else [(new, news), (old, olds)]
        for root, store in pair:
            for name, t in run(root).items():
                store.setdefault(name, []).append(t)
    lines = [
        "# Cost per source of Dempster's rule, 10 to 10,000 sources: old vs new checkout",
        "",
        f"`python benchmarks/bench_combine_sources.py OLD NEW --rounds {rounds}`; old = `{old}`, new = `{new}`.",
        "64 combinations of K informative sources (random masses, about half on the frame), one thread,",
        "CPU time per call / (64 K), median over the rounds (subprocesses alternating); `/K=100` is the",
        "cost per source relative to the same checkout's at K = 100 (flat = 1.0).  The machine is loaded.",
        "",
        "| labels | sources K | old (ns / source) | old /K=100 | new (ns / source) | new /K=100 | new/old |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in olds:
        n, k = name.split()
        o, w = np.median(olds[name]), np.median(news[name])
        o100, w100 = np.median(olds[f"{n} 100"]), np.median(news[f"{n} 100"])
        lines.append(
            f"| {n} | {int(k):,} | {o * 1e9:.1f} | {o / o100:.2f} | {w * 1e9:.1f} | {w / w100:.2f} | {w / o:.3f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    (Path(__file__).parent / "results" / "combine_sources.md").write_text(text)


if __name__ == "__main__":
    main()
