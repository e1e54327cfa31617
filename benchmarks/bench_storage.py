"""MassFunction's per-call overhead and core paths: two checkouts of dstk side by side, interleaved.

Compares the ``MassFunction`` of two source trees (for instance before and
after a change to its storage classes) on the paths where the dispatch to
the storage form is a visible part of the time: construction from an array
(validated or not), queries, batch indexing, transforms, the two-source
combination, the fold over a batch axis, and the focal-set form.  Each tree
runs in its own worker process (``PYTHONPATH=<tree>``); the driver asks them
in turn (A, B, B, A, ...) so that both see the same machine load, and
reports the median ratio after/before with its IQR and range over the
rounds, in CPU time (the worker's thread time: the call runs in the worker's
main thread) and in wall time (on a loaded machine the wall time measures the
load).  Workers run BLAS / OpenMP and numba pinned to one thread
(``_harness.pinned_threads``); the run's date, command and load are recorded
(``--md`` prepends the run to a results file).

Usage::

    python benchmarks/bench_storage.py --before /path/to/old/tree --after /path/to/new/tree \
        [--rounds 15] [--only TEXT] [--md results.md]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _harness import environment, finish, pinned_threads, ratio, seconds  # noqa: E402


def workloads():
    """name -> callable, built in the worker with that worker's dstk."""
    from dstk import Frame, MassFunction, combine

    rng = np.random.default_rng(0)

    def masses(batch, n):
        values = rng.random(batch + (1 << n,))
        return values / values.sum(axis=-1, keepdims=True)

    frame4 = Frame(range(4))
    one = masses((), 4)
    rows = masses((10_000,), 4)
    pair = masses((2_000,), 4), masses((2_000,), 4)
    fold = masses((2_000, 10), 4)
    m_one = MassFunction.from_array(one, frame4)
    m_rows = MassFunction.from_array(rows, frame4)
    a, b = (MassFunction.from_array(x, frame4) for x in pair)
    m_fold = MassFunction.from_array(fold, frame4)
    big = Frame(range(30))
    focal = np.unique(rng.integers(1, 1 << 30, 40).astype(np.uint64))[:32]
    s1 = MassFunction.from_focal_sets(focal, rng.dirichlet(np.ones(focal.size)), big)
    s2 = MassFunction.from_focal_sets(focal[::-1].copy(), rng.dirichlet(np.ones(focal.size)), big)
    s_batch = MassFunction.from_focal_sets(focal, rng.dirichlet(np.ones(focal.size), size=(200, 3)), big)
    return {
        "from_array(validate=False), one": lambda: MassFunction.from_array(one, frame4, validate=False),
        "from_array, 10,000 rows": lambda: MassFunction.from_array(rows, frame4),
        "m[A], bel(A), pl(A), one": lambda: (m_one[{0}], m_one.bel({0, 1}), m_one.pl({2})),
        "m.batch[i] and reshape": lambda: (m_rows.batch[5], m_rows.reshape(100, 100)),
        "pignistic, 10,000 rows": lambda: m_rows.pignistic(),
        "discount + normalize, 10,000 rows": lambda: m_rows.discount(0.1).normalize(),
        "combine([a, b]) dempster, 2,000 rows": lambda: combine([a, b], rule="dempster"),
        "fold axis=1 dempster, 2,000 x 10": lambda: combine(m_fold, rule="dempster", axis=1),
        "fold axis=1 dempster validate=False path": lambda: combine(
            MassFunction.from_array(fold, frame4, validate=False), rule="dempster", axis=1
        ),
        "focal sets: combine two, n=30, F=32": lambda: combine([s1, s2], rule="dempster"),
        "focal sets: fold 200 x 3, n=30": lambda: combine(s_batch, rule="conjunctive", axis=1),
        "focal sets: bel, pignistic, to_dict": lambda: (s1.bel(set(range(10))), s1.pignistic(), s1.to_dict()),
    }


def worker():
    """Answer ``name`` lines with the seconds per call of that workload (calls batched to >= 2 ms).

    Kernels are compiled in the warm-up, never inside a timed batch: ``call_kernel`` would otherwise
    run small calls interpreted until the process has spent its interpretation budget, then compile
    the kernel in whichever timed batch crosses it (a row timing the interpreter, then a compile).
    """
    try:
        from dstk._kernels import _jit
    except ImportError:  # a tree without interpreted kernels
        _jit = None
    if _jit is not None and hasattr(_jit, "INTERPRETED_BUDGET"):
        _jit.INTERPRETED_BUDGET = 0
    with pinned_threads(1):
        _answer(workloads())


def _answer(fns):
    numbers = {}
    for name, fn in fns.items():  # warm-up (numba compilation, caches) and calls per timing
        fn()
        t0 = time.perf_counter()
        fn()
        numbers[name] = max(1, int(0.002 / max(time.perf_counter() - t0, 1e-7)))
    print(json.dumps(list(fns)), flush=True)
    for line in sys.stdin:
        name = line.strip()
        fn, number = fns[name], numbers[name]
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(number):
            fn()
        print(
            json.dumps([(time.perf_counter() - t0) / number, (time.thread_time() - c0) / number]), flush=True
        )


def start(tree):
    # one thread each: on a shared machine, threaded kernels make the spread much larger than the effect
    env = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tree,
    )
    names = json.loads(proc.stdout.readline())
    return proc, names


def ask(proc, name):
    proc.stdin.write(name + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="source tree of the reference dstk (required)")
    parser.add_argument("--after", help="source tree of the dstk to compare (required)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--md", help="write the table to this Markdown file")
    parser.add_argument("--only", help="run the workloads whose name contains this text")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return
    if not (args.before and args.after):
        parser.error("--before and --after (two source trees of dstk) are required.")
    before, names = start(args.before)
    after, _ = start(args.after)
    if args.only:
        names = [name for name in names if args.only in name]
    times = {name: ([], []) for name in names}
    for r in range(args.rounds):
        # the rows in a new order every round (rotated): no row always follows the same one, so that
        # what a row leaves behind (caches, allocator state) does not land on one row's time
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            order = [(0, before), (1, after)] if r % 2 == 0 else [(1, after), (0, before)]
            for i, proc in order:
                times[name][i].append(ask(proc, name))
    for proc in (before, after):
        proc.stdin.close()
        proc.wait()
    lines = [
        f"## {os.path.basename(os.path.normpath(args.after))} against {os.path.basename(os.path.normpath(args.before))}",
        "",
        *environment(),
        f"- before: `{args.before}`; after: `{args.after}`; interleaved (A, B, B, A, ...), {args.rounds} rounds, "
        "row order rotated every round; kernels compiled in the warm-up (no interpreted calls)",
        "",
        "| workload | CPU before (median) | CPU after (median) | CPU after / before: median (IQR, range) "
        "| wall after / before: median |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        old, new = (np.array(x) for x in times[name])  # (rounds, 2): wall, CPU
        _, cpu_text = ratio(new[:, 1], old[:, 1])
        wall, _ = ratio(new[:, 0], old[:, 0])
        lines.append(
            f"| {name} | {seconds(float(np.median(old[:, 1])))} | {seconds(float(np.median(new[:, 1])))} | "
            f"{cpu_text} | {wall:.3f}× |"
        )
    finish(lines, args.md)


if __name__ == "__main__":
    main()
