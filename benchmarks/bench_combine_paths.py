"""``combine`` of two dstk checkouts side by side: CPU time per call, interleaved.

Usage: ``python benchmarks/bench_combine_paths.py OLD_ROOT NEW_ROOT [--rounds R]``.  Each round
runs every case once in a fresh subprocess per checkout (old and new alternating, order swapped
every round), BLAS pinned to one thread; the ratio new/old of the per-call CPU time (median over
repeats inside the subprocess) is reported as median and spread (min-max) over the rounds.  A first
run per checkout compiles every kernel the cases reach (no interpreted calls), so that both sides
time compiled kernels loaded from their caches, not a cold start.
Writes ``benchmarks/results/combine_paths.md``.

``--same-process [--processes P]``: both checkouts are imported into ONE process (as renamed copies, see
``_harness.renamed_copy``) and each round times every case once per checkout, call batches of ~20 ms
alternating old/new (order swapped every round), so that both sides share the process, its memory
layout and the machine's load at that moment; the ratio is reported with a bootstrap 95 % interval of
its median.  This resolves differences of a few percent that rounds of separate subprocesses do not.
"""

import sys
from pathlib import Path

from _harness import run_in_checkout

CHILD = r"""
import json, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from dstk import MassFunction, combine, Frame  # PACKAGE
rng = np.random.default_rng(0)

def masses(shape, n):
    v = rng.random(shape + (1 << n,)) ** 3
    v[..., 0] = 0
    return v / v.sum(-1, keepdims=True)

F3, F2, F5 = Frame("abc"), Frame("ab"), Frame("abcde")
a, b = (MassFunction.from_array(masses((1000,), 3), F3) for _ in range(2))
stack8 = MassFunction.from_array(masses((1000, 8), 3), F3, validate=True)
stack5 = MassFunction.from_array(masses((200, 6), 5), F5, validate=True)
p, q = MassFunction({"a": 0.6, "a,b": 0.4}), MassFunction({"b": 0.7, "a,b": 0.3})
conf = masses((1000, 2), 2)
conf[::50] = 0
conf[::50, 0, 1] = 1
conf[::50, 1, 2] = 1
cstack = MassFunction.from_array(conf, F2, validate=True)
cases = {
    "two unbatched, dempster": lambda: combine([p, q]),
    "two batched (1000, 3 labels), dempster": lambda: combine([a, b]),
    "axis fold (1000 x 8, 3 labels), dempster": lambda: combine(stack8, axis=1),
    "axis fold (200 x 6, 5 labels), cautious": lambda: combine(stack5, axis=1, rule="cautious"),
    "axis fold (200 x 6, 5 labels), average": lambda: combine(stack5, axis=1, rule="average"),
    "on_conflict='vacuous' (1000 x 2, 2 labels, 2 % conflicting)": lambda: combine(
        cstack, axis=1, on_conflict="vacuous"
    ),
}
warnings.simplefilter("ignore")
out = {}
for name, fn in cases.items():
    fn()
    n = 1
    while True:
        t = time.process_time()
        for _ in range(n):
            fn()
        if time.process_time() - t > 0.05:
            break
        n *= 2
    times = []
    for _ in range(7):
        t = time.process_time()
        for _ in range(n):
            fn()
        times.append((time.process_time() - t) / n)
    out[name] = float(np.median(times))
print(json.dumps(out))
"""


WARM = "import dstk._kernels._jit as _jit\n_jit.INTERPRETED_BUDGET = 0\n"


def run(root):
    return run_in_checkout(root, CHILD)


def warm(root):
    """Compile (and cache) every kernel of the cases in ``root``, none run interpreted."""
    return run_in_checkout(root, WARM + CHILD)


SAME_PROCESS = r"""
import importlib, json, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
warnings.simplefilter("ignore")
ROUNDS = {rounds}
sides = {{}}
for side in {order}:
    namespace = {{}}
    code = CHILD.replace("from dstk import", "from " + "dstk_" + side + " import")
    code = code.split("warnings.simplefilter")[0]
    importlib.import_module("dstk_" + side + "._kernels._jit").INTERPRETED_BUDGET = 0
    exec(code, namespace)
    sides[side] = namespace["cases"]
out = {{}}
for name in sides["old"]:
    functions = {{side: sides[side][name] for side in ("old", "new")}}
    for fn in functions.values():
        fn(); fn()
    start = time.process_time(); functions["old"](); once = max(time.process_time() - start, 1e-6)
    number = max(1, int(0.02 / once))
    times = {{"old": [], "new": []}}
    for r in range(ROUNDS):
        for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
            fn = functions[side]
            t = time.process_time()
            for _ in range(number):
                fn()
            times[side].append((time.process_time() - t) / number)
    out[name] = times
print(json.dumps(out))
"""


def same_process(old, new, rounds, processes):
    """Per-round CPU times of every case, both checkouts in one process, in each of ``processes``.

    The checkouts are imported in alternating order from one process to the next.
    """
    import json
    import os
    import subprocess
    import tempfile

    from _harness import renamed_copy

    directory = tempfile.mkdtemp(prefix="combine_paths_")
    renamed_copy(old, "dstk_old", directory)
    renamed_copy(new, "dstk_new", directory)
    env = dict(os.environ, PYTHONPATH=directory, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    runs = []
    for process in range(processes):
        order = ("old", "new") if process % 2 == 0 else ("new", "old")
        code = "CHILD = " + repr(CHILD) + "\n" + SAME_PROCESS.format(rounds=rounds, order=order)
        result = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=directory
        )
        runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
    return runs


def report_same_process(old, new, rounds, processes):
    import numpy as np
    from _harness import environment, finish

    runs = same_process(old, new, rounds, processes)
    lines = [
        "## combine paths, both checkouts in one process",
        "",
        *environment(),
        f"- old = `{old}`, new = `{new}`; {processes} processes (import order alternating) x {rounds} rounds,"
        " batches of ~20 ms alternating old/new",
        "- per process: the median over its rounds of the ratio new/old; the table gives the median over the",
        "  processes and their range (the process-to-process spread is the memory-layout noise of a build)",
        "",
        "| case | old (µs) | new (µs) | new/old median | range over processes |",
        "|---|---:|---:|---:|---|",
    ]
    for name in runs[0]:
        medians = np.array([np.median(np.array(r[name]["new"]) / np.array(r[name]["old"])) for r in runs])
        old_times = np.concatenate([r[name]["old"] for r in runs])
        new_times = np.concatenate([r[name]["new"] for r in runs])
        lines.append(
            f"| {name} | {np.median(old_times) * 1e6:.1f} | {np.median(new_times) * 1e6:.1f} | "
            f"{np.median(medians):.3f} | {medians.min():.3f}-{medians.max():.3f} |"
        )
    finish(lines, str(Path(__file__).parent / "results" / "combine_paths.md"))


def main():
    old, new = Path(sys.argv[1]), Path(sys.argv[2])
    if "--same-process" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 100
        processes = int(sys.argv[sys.argv.index("--processes") + 1]) if "--processes" in sys.argv else 6
        report_same_process(old, new, rounds, processes)
        return
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5
    ratios, olds, news = {}, {}, {}
    warm(old)
    warm(new)
    for r in range(rounds):
        pair = [(old, olds), (new, news)] if r % 2 == 0 else [(new, news), (old, olds)]
        for root, store in pair:
            for name, t in run(root).items():
                store.setdefault(name, []).append(t)
    import numpy as np

    lines = [
        "# combine paths: old vs new checkout, CPU time per call",
        "",
        f"`python benchmarks/bench_combine_paths.py OLD NEW --rounds {rounds}`; old = `{old}`, new = `{new}`.",
        "One thread (BLAS and numba), subprocesses alternating, median of 7 repeats each; ratio = new / old",
        "per round, median (min-max) over the rounds.  The machine is loaded: CPU times, not wall.",
        "",
        "| case | old (µs) | new (µs) | new/old median | spread |",
        "|---|---:|---:|---:|---|",
    ]
    for name in olds:
        rs = np.array(news[name]) / np.array(olds[name])
        ratios[name] = rs
        lines.append(
            f"| {name} | {np.median(olds[name]) * 1e6:.1f} | {np.median(news[name]) * 1e6:.1f} | "
            f"{np.median(rs):.3f} | {rs.min():.3f}-{rs.max():.3f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    (Path(__file__).parent / "results" / "combine_paths.md").write_text(text)


if __name__ == "__main__":
    main()
