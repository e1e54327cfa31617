"""Cold start of two source trees side by side: first calls with an empty numba cache.

Each round runs, for each tree in turn (interleaved), a fresh Python process with
an empty ``NUMBA_CACHE_DIR`` and that tree first on ``PYTHONPATH``; it times one
first call (the call's wall and CPU time, the modules it needs imported before
it, e.g. ``dstk.calibration`` and scikit-learn's ``LogisticRegression``, and the
process CPU time since the script started, imports included), then the same call in a second process with the cache the
first one wrote (warm), or for ``demo`` the whole ``python -m dstk demo`` cold and
then warm (wall and CPU time of the child process, from ``os.wait4``) and their
ratios per run.  Prints one line per run and a table of medians (range).

The calls are those of ``benchmarks/bench_core.py``'s ``COLD_CALL`` script
(``combine``, ``from_counts``, the calibrators with their default options but
``LogisticCalibrator(model="likelihood")``, the trees) and those of
:data:`EXTRA_CALL` below: ``<Calibrator>:<model>`` (a binary calibrator with that
model; or a binary calibrator not in ``COLD_CALL``, e.g. ``VennMachineCalibrator``), ``EvidentialCalibratedClassifier`` (one-vs-rest calibration of a logistic
regression on three classes, the default calibrator), ``EvidentialKNNClassifier``,
``EvidentialNeuralNetworkClassifier``.

``--realistic`` times instead, for this tree only, the first calls at realistic sizes
(:data:`REALISTIC_CALL`, ``--rows`` rows, 10^5 by default): in a fresh process with an empty
numba cache (the first process after an install: compiles) and in a second process with the
cache the first one wrote (every later process), each with the CPU time of the same call
repeated in the same process (warm) beside it; the imports the call needs (including
scikit-learn's for the calibrators) are made before the timed call and timed apart.
``--imports`` times ``import dstk`` with the core names in fresh processes, with and without
Python's bytecode cache, against ``import numpy, numba`` alone.

Usage::

    python benchmarks/bench_cold_start.py --baseline /path/to/other/checkout \\
        --calls LogisticCalibrator,IsotonicCalibrator,BinningCalibrator,from_counts,demo --runs 3
    python benchmarks/bench_cold_start.py --realistic --rows 100000 --runs 2
    python benchmarks/bench_cold_start.py --realistic --calls combine_ternary --runs 5 --baseline /path/to/main
    python benchmarks/bench_cold_start.py --imports --runs 5
    python benchmarks/bench_cold_start.py --ahead --calls RandomDecisionTreesClassifier --runs 3

``--ahead`` compares, for this tree, the first calls at realistic sizes with an empty cache
and after ``python -m dstk compile <part>`` wrote the cache (the part the call needs), each
run with fresh cache directories, with numba's compile events of the first call counted.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cold_call_script() -> tuple[str, tuple[str, ...]]:
    """``COLD_CALL`` of ``bench_core.py`` and the names it knows."""
    spec = importlib.util.spec_from_file_location("bench_core", HERE / "bench_core.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.COLD_CALL, tuple(module.COLD_CALLS_ALL)


EXTRA_CALL = r"""
import sys, time, warnings
t0 = time.perf_counter(); c0 = time.process_time()
import numpy as np
import dstk
what = sys.argv[1]
if what.split(":")[0].endswith("Calibrator") or what == "EvidentialCalibratedClassifier":
    import dstk.calibration
if what == "EvidentialCalibratedClassifier":
    from sklearn.linear_model import LogisticRegression
elif not what.split(":")[0].endswith("Calibrator"):
    import dstk.classifiers
t1 = time.perf_counter(); c1 = time.process_time()
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
if what.split(":")[0].endswith("Calibrator"):  # binary: 400 calibration scores, 50 test scores
    name, _, model = what.partition(":")
    scores = rng.normal(size=400)
    y = (rng.random(400) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    options = {"model": model} if model else {}
    calibrator = getattr(dstk.calibration, name)(**options).fit(scores, y)
    calibrator.predict_proba(scores[:50])
    calibrator.predict_mass(scores[:50])
else:  # three classes, 300 x 4 features
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 0.5)
    if what == "EvidentialCalibratedClassifier":
        estimator = dstk.calibration.EvidentialCalibratedClassifier(LogisticRegression())
    else:
        estimator = getattr(dstk.classifiers, what)()
    estimator.fit(X, y)
    estimator.predict_proba(X[:50])
    estimator.predict_mass(X[:50])
t2 = time.perf_counter(); c2 = time.process_time()
print(t1 - t0, t2 - t1, c2 - c0, c2 - c1)
"""
"""First calls not in ``COLD_CALL``; prints (imports wall, first call wall, process CPU)."""

WARM_PATH = r"""
import json, time
import numpy as np
import dstk.calibration
from dstk.evidence import from_counts
from dstk._kernels.calibration import logistic_profile_masses
rng = np.random.default_rng(0)
scores = rng.normal(size=2_000)
y = (rng.random(2_000) < 1 / (1 + np.exp(-2 * scores))).astype(int)
n = rng.integers(1, 30, 100_000)
k = rng.binomial(n, 0.3)
counts = np.column_stack([n - k, k]).astype(np.float64)
likelihood = dstk.calibration.LogisticCalibrator(model="likelihood").fit(scores, y)
many = rng.normal(size=1_000_000)
from dstk._kernels import transforms
frames = {n: rng.dirichlet(np.ones(2**n), size=rows) for n, rows in ((3, 1_000_000), (4, 500_000), (5, 250_000))}
def betp(n):
    return lambda: transforms.pignistic(frames[n], n, transforms.inverse_cardinalities(2**n))
def exact():
    fit = dstk.calibration.LogisticCalibrator(model="bayes").fit(scores, y)._logistic
    z = fit.standardize(np.linspace(-4.0, 4.0, 40))
    logistic_profile_masses(z, fit._z, fit._targets, fit._weight, fit.alpha, fit.alpha_covariance,
                            fit.max_log_likelihood, np.zeros((z.size, 4)), np.empty(fit._z.size))
parts = {
    "logistic_profile_masses, 2,000 points x 40 test scores": exact,
    "LogisticCalibrator(model='likelihood').fit, 2,000 scores": lambda: dstk.calibration.LogisticCalibrator(
        model="likelihood").fit(scores, y),
    "LogisticCalibrator(model='likelihood').predict_mass, 10^6 scores": lambda: likelihood.predict_mass(many),
    "from_counts(model='likelihood'), 100,000 rows": lambda: from_counts(counts, model="likelihood"),
    "from_counts(model='plausibility'), 100,000 rows": lambda: from_counts(counts, model="plausibility"),
    "BinningCalibrator().fit + predict_mass, 2,000 scores": lambda: dstk.calibration.BinningCalibrator().fit(
        scores, y).predict_mass(scores),
    "pignistic kernel, 3 labels, 10^6 rows": betp(3),
    "pignistic kernel, 4 labels, 500,000 rows": betp(4),
    "pignistic kernel, 5 labels, 250,000 rows": betp(5),
}
out = {}
for name, run in parts.items():
    run()  # compile or load from the cache
    times = []
    for _ in range(5):
        start = time.process_time(); run(); times.append(time.process_time() - start)
    out[name] = sorted(times)[2]
print(json.dumps(out))
"""
"""Warm-path timings (process CPU time; kernels compiled or cached; medians of 5 calls) of the kernels this
benchmark's changes touch, at sizes where the compiled kernels run."""


REALISTIC_CALL = r"""
import json, sys, time
c0 = time.process_time()
import numpy as np
from dstk import Frame, MassFunction, combine
what, rows = sys.argv[1], int(sys.argv[2])
ENTRY_POINTS = ("combine_cautious", "combine_yager", "combine_disjunctive", "belief", "plausibility", "pignistic", "decide")
if what == "from_counts":
    from dstk.evidence import from_counts
elif what == "LogisticCalibrator":
    import dstk.calibration
    dstk.calibration.LogisticCalibrator  # the lazy import of the module (and of scikit-learn's base)
elif what == "RandomDecisionTreesClassifier":
    import dstk.ensemble
rng = np.random.default_rng(0)
if what == "combine":  # Dempster's rule of two binary sources per row, one stacked batch (axis=1)
    data = np.zeros((rows, 2, 4))
    data[..., 1:] = rng.dirichlet(np.ones(3), size=(rows, 2))
    m = MassFunction.from_array(data, Frame((0, 1)))
    run = lambda: combine(m, axis=1)
elif what.startswith("combine_binary_"):  # Dempster's rule of K binary sources per row (combine_binary_<K>)
    data = np.zeros((rows, int(what.rpartition("_")[2]), 4))
    data[..., 1:] = rng.dirichlet(np.ones(3), size=data.shape[:2])
    m = MassFunction.from_array(data, Frame((0, 1)))
    run = lambda: combine(m, axis=1)
elif what == "combine_pair":  # the same, as a list of two batches
    data = np.zeros((2, rows, 4))
    data[..., 1:] = rng.dirichlet(np.ones(3), size=(2, rows))
    a, b = (MassFunction.from_array(d, Frame((0, 1))) for d in data)
    run = lambda: combine([a, b])
elif what.startswith("combine_ternary") or what in ENTRY_POINTS:  # three labels, two sources per row
    data = np.zeros((rows, 2, 8))
    data[..., 1:] = rng.dirichlet(np.ones(7), size=(rows, 2))
    m = MassFunction.from_array(data, Frame("abc"))
    a, b = (MassFunction.from_array(np.ascontiguousarray(data[:, i]), Frame("abc")) for i in range(2))
    run = {
        "combine_ternary": lambda: combine(m, axis=1),
        "combine_ternary_pair": lambda: combine([a, b]),
        "combine_cautious": lambda: combine(m, axis=1, rule="cautious"),
        "combine_yager": lambda: combine(m, axis=1, rule="yager"),
        "combine_disjunctive": lambda: combine(m, axis=1, rule="disjunctive"),
        "belief": lambda: a.to_array("bel"),
        "plausibility": lambda: a.to_array("pl"),
        "pignistic": lambda: a.pignistic(),
        "decide": lambda: a.decide(),
    }[what]
elif what == "from_counts":  # binary counts, the default (likelihood) model
    n = rng.integers(1, 30, rows)
    k = rng.binomial(n, 0.3)
    counts = np.column_stack([n - k, k])
    run = lambda: from_counts(counts)
elif what == "LogisticCalibrator":  # fit on `rows` scores, masses of `rows` scores
    scores = rng.normal(size=rows)
    y = (rng.random(rows) < 1 / (1 + np.exp(-2 * scores))).astype(int)
    run = lambda: dstk.calibration.LogisticCalibrator(model="likelihood").fit(scores, y).predict_mass(scores)
elif what == "RandomDecisionTreesClassifier":  # default forest, fit and predict_proba on `rows` x 20, three classes
    X = rng.normal(size=(rows, 20))
    y = (X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=rows) > 0).astype(int) + (X[:, 2] > 0.5)
    run = lambda: dstk.ensemble.RandomDecisionTreesClassifier(random_state=0).fit(X, y).predict_proba(X)
from numba.core import event
c1 = time.process_time()
with event.install_recorder("numba:compile") as recorder:
    run()
c2 = time.process_time()
run()
c3 = time.process_time()
compiled = sum(1 for _, e in recorder.buffer if e.is_start)
print(json.dumps({"imports": c1 - c0, "first": c2 - c1, "warm": c3 - c2, "compiled": compiled}))
"""
"""First call and the same call again (warm) of a main entry point on ``rows`` rows; process CPU times."""

REALISTIC_CALLS = (
    "combine",
    "combine_pair",
    "combine_binary_3",
    "combine_binary_10",
    "combine_ternary",
    "combine_ternary_pair",
    "combine_cautious",
    "combine_yager",
    "combine_disjunctive",
    "belief",
    "plausibility",
    "pignistic",
    "decide",
    "from_counts",
    "LogisticCalibrator",
    "RandomDecisionTreesClassifier",
)

IMPORT_CALL = r"""
import time
c0 = time.process_time()
if WHAT == "dstk":
    import dstk
    from dstk import Frame, MassFunction, combine
else:
    import numpy, numba
print(time.process_time() - c0)
"""


def child(args: list[str], env: dict[str, str]) -> tuple[str, float, float]:
    """Run ``python *args``; return (stdout, wall time, CPU time of the child).

    The CPU time is the child's own resource usage (``os.wait4``), user plus system.
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # run from an empty directory: ``python -m`` and ``-c`` put the working directory
        # first on sys.path, which would import the dstk of the directory the benchmark
        # was started from instead of the tree on PYTHONPATH
        process = subprocess.Popen(
            [sys.executable, *args], env=env, stdout=out, stderr=err, cwd=env["NUMBA_CACHE_DIR"]
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode:
        raise RuntimeError(stderr[-2000:])
    return stdout, wall, usage.ru_utime + usage.ru_stime


def warm_path(trees: dict[str, str], runs: int) -> None:
    """Time WARM_PATH in alternating processes of the two trees; table of medians and ratios."""
    import json

    print("load average at start", os.getloadavg())
    caches = {name: tempfile.mkdtemp() for name in trees}
    timings: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
    ratios: dict[str, list[float]] = {}
    try:
        for _ in range(runs):
            round_times = {}
            for name, root in trees.items():
                env = dict(os.environ, NUMBA_CACHE_DIR=caches[name], PYTHONPATH=root)
                out, _, _ = child(["-c", WARM_PATH], env)
                round_times[name] = json.loads(out)
                for part, value in round_times[name].items():
                    timings[name].setdefault(part, []).append(value)
            for part in round_times["this tree"]:
                ratios.setdefault(part, []).append(
                    round_times["this tree"][part] / round_times["baseline"][part]
                )
            print(round_times, f"load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)
    print("load average at end", os.getloadavg())
    print("| warm call | baseline | this tree | this tree / baseline |")
    print("|---|---|---|---|")
    for part, values in ratios.items():
        base, this = timings["baseline"][part], timings["this tree"][part]
        print(
            f"| {part} | {statistics.median(base) * 1e3:.1f} ms | {statistics.median(this) * 1e3:.1f} ms "
            f"| {statistics.median(values):.3f}x ({min(values):.3f}-{max(values):.3f}) |"
        )


def realistic(rows: int, runs: int, calls: tuple[str, ...], baseline: str | None = None) -> None:
    """First calls on ``rows`` rows: empty cache, then populated cache, warm beside each.

    With ``baseline``, each run times the baseline tree and this tree in turn (interleaved).
    """
    import json

    trees = {"": str(HERE.parent)}
    if baseline is not None:
        trees = {" (baseline)": str(Path(baseline).resolve()), " (this tree)": str(HERE.parent)}
    print("load average at start", os.getloadavg())
    results: dict[str, list[tuple[float, ...]]] = {}
    for what in calls:
        for _run, (label, root) in itertools.product(range(runs), trees.items()):
            with tempfile.TemporaryDirectory() as cache:
                env = dict(
                    os.environ,
                    NUMBA_CACHE_DIR=cache,
                    PYTHONPATH=root,
                    OMP_NUM_THREADS="1",
                    NUMBA_NUM_THREADS="1",
                )
                empty = json.loads(child(["-c", REALISTIC_CALL, what, str(rows)], env)[0])
                populated = json.loads(child(["-c", REALISTIC_CALL, what, str(rows)], env)[0])
            row = (
                empty["first"],
                empty["first"] - empty["warm"],
                populated["first"],
                populated["first"] - populated["warm"],
                populated["warm"],
                populated["imports"],
            )
            results.setdefault(what + label, []).append(row)
            print(
                what + label, " ".join(f"{v:.3f}" for v in row), f"load {os.getloadavg()[0]:.1f}", flush=True
            )
    print("load average at end", os.getloadavg())
    print(
        f"| first call, {rows:,} rows | empty cache: first call CPU | empty cache: over warm | populated cache: "
        "first call CPU | populated cache: over warm | warm call CPU | imports CPU |"
    )
    print("|---|---|---|---|---|---|---|")
    for what, rows_ in results.items():
        cells = [
            f"{statistics.median(c):.2f} s ({min(c):.2f}-{max(c):.2f})"
            if i != 4
            else f"{statistics.median(c):.3f} s"
            for i, c in enumerate(zip(*rows_))
        ]
        print(f"| {what} | " + " | ".join(cells) + " |")


AHEAD_PARTS = {
    "RandomDecisionTreesClassifier": "trees",
    "LogisticCalibrator": "calibration",
    "belief": "decisions",
    "plausibility": "decisions",
    "pignistic": "decisions",
    "decide": "decisions",
}
"""The part of ``python -m dstk compile`` a call of :data:`REALISTIC_CALL` needs (else ``combination``)."""


def ahead(rows: int, runs: int, calls: tuple[str, ...]) -> None:
    """First calls on ``rows`` rows with an empty cache against after ``python -m dstk compile <part>``.

    Each run uses two fresh ``NUMBA_CACHE_DIR``: one process with the empty cache, then (in turn,
    interleaved) the compile command and one process with the cache it wrote; each process times the
    first call (and counts numba's compile events in it) and the same call again (warm).
    """
    import json

    env_base = dict(os.environ, PYTHONPATH=str(HERE.parent), OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    print("load average at start", os.getloadavg())
    results: dict[str, list[tuple[float, ...]]] = {}
    for what, _run in itertools.product(calls, range(runs)):
        part = AHEAD_PARTS.get(what, "combination")
        with tempfile.TemporaryDirectory() as empty_cache, tempfile.TemporaryDirectory() as ahead_cache:
            empty = json.loads(
                child(["-c", REALISTIC_CALL, what, str(rows)], dict(env_base, NUMBA_CACHE_DIR=empty_cache))[0]
            )
            env = dict(env_base, NUMBA_CACHE_DIR=ahead_cache)
            _, _compile_wall, compile_cpu = child(["-m", "dstk", "compile", part], env)
            after = json.loads(child(["-c", REALISTIC_CALL, what, str(rows)], env)[0])
        row = (
            empty["first"],
            empty["first"] - empty["warm"],
            empty["compiled"],
            after["first"],
            after["first"] - after["warm"],
            after["compiled"],
            after["warm"],
            compile_cpu,
        )
        results.setdefault(what, []).append(row)
        print(what, " ".join(f"{v:.3f}" for v in row), f"load {os.getloadavg()[0]:.1f}", flush=True)
    print("load average at end", os.getloadavg())
    print(
        f"| first call, {rows:,} rows | empty cache: first call CPU | empty cache: over warm | empty cache: "
        "compile events | after `python -m dstk compile <part>`: first call CPU | after: over warm | after: "
        "compile events | warm call CPU | `python -m dstk compile <part>` CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for what, rows_ in results.items():
        cells = []
        for i, c in enumerate(zip(*rows_)):
            if i in (2, 5):
                cells.append(f"{statistics.median(c):.0f} ({min(c):.0f}-{max(c):.0f})")
            else:
                cells.append(f"{statistics.median(c):.2f} s ({min(c):.2f}-{max(c):.2f})")
        print(f"| {what} ({AHEAD_PARTS.get(what, 'combination')}) | " + " | ".join(cells) + " |")


def imports(runs: int) -> None:
    """CPU time of ``import dstk`` + the core names in fresh processes, with and without bytecode."""
    root = str(HERE.parent)
    print("load average at start", os.getloadavg())
    with tempfile.TemporaryDirectory() as pycache, tempfile.TemporaryDirectory() as cache:
        base = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        settings = {
            "numpy + numba only (bytecode cached)": ("numba", dict(base, PYTHONPYCACHEPREFIX=pycache)),
            "dstk core names, bytecode cached (an installed package)": (
                "dstk",
                dict(base, PYTHONPYCACHEPREFIX=pycache),
            ),
            "dstk core names, PYTHONDONTWRITEBYTECODE=1 (dstk's sources compiled each time)": (
                "dstk",
                dict(base, PYTHONDONTWRITEBYTECODE="1"),
            ),
        }
        for what, env in settings.values():  # write the bytecode caches first
            child(["-c", f"WHAT = {what!r}" + IMPORT_CALL], env)
        times: dict[str, list[float]] = {name: [] for name in settings}
        for _ in range(runs):
            for name, (what, env) in settings.items():
                times[name].append(float(child(["-c", f"WHAT = {what!r}" + IMPORT_CALL], env)[0]))
    print("load average at end", os.getloadavg())
    print("| import (fresh process) | CPU time, median (range) |")
    print("|---|---|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f}) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="root of the other source tree (e.g. a main checkout)")
    parser.add_argument("--realistic", action="store_true", help="first calls of this tree at --rows rows")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--imports", action="store_true", help="CPU time of importing the core names")
    parser.add_argument("--calls", default="LogisticCalibrator,IsotonicCalibrator,BinningCalibrator,demo")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--warm-path",
        action="store_true",
        help="instead of first calls: time the warm path (WARM_PATH) of both trees, alternating processes",
    )
    parser.add_argument(
        "--ahead",
        action="store_true",
        help="first calls of this tree at --rows rows: empty cache against after `python -m dstk compile`",
    )
    args = parser.parse_args()
    if args.ahead:
        ahead(
            args.rows,
            args.runs,
            tuple(args.calls.split(",")) if "--calls" in sys.argv else ("RandomDecisionTreesClassifier",),
        )
        return
    if args.realistic:
        calls = tuple(args.calls.split(",")) if "--calls" in sys.argv else REALISTIC_CALLS
        realistic(args.rows, args.runs, calls, args.baseline)
        return
    if args.imports:
        imports(args.runs)
        return
    if args.baseline is None:
        parser.error("--baseline is required unless --realistic or --imports")
    script, known = cold_call_script()
    trees = {"baseline": str(Path(args.baseline).resolve()), "this tree": str(HERE.parent)}
    if args.warm_path:
        warm_path(trees, args.runs)
        return
    results: dict[tuple[str, str], list[tuple[float, ...]]] = {}
    print("load average at start", os.getloadavg())
    for what in args.calls.split(","):
        for _ in range(args.runs):
            for name, root in trees.items():
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
                    if what == "demo":
                        _, wall, cpu = child(["-m", "dstk", "demo"], env)
                        _, warm_wall, warm_cpu = child(["-m", "dstk", "demo"], env)
                    else:
                        code = script if what in known else EXTRA_CALL
                        out, _, _ = child(["-c", code, what], env)
                        _imports, wall, cpu, call_cpu = (float(v) for v in out.split())
                        out, _, _ = child(["-c", code, what], env)
                        _imports, warm_wall, warm_cpu, warm_call_cpu = (float(v) for v in out.split())
                    if what == "demo":
                        call_cpu, warm_call_cpu = cpu, warm_cpu
                    row = (
                        wall,
                        call_cpu,
                        cpu,
                        warm_wall,
                        warm_call_cpu,
                        warm_cpu,
                        wall / warm_wall,
                        cpu / warm_cpu,
                    )
                results.setdefault((what, name), []).append(row)
                print(
                    what,
                    name,
                    " ".join(f"{v:.2f}" for v in row),
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    print("load average at end", os.getloadavg())
    print(
        "For a call: call wall / call CPU = the call's own wall and CPU time (the modules it "
        "needs imported before it), process CPU = the whole process's CPU time (imports "
        "included); for demo: the whole process."
    )
    print(
        "| call | tree | cold call wall | cold call CPU | cold process CPU | warm call wall | warm call CPU "
        "| warm process CPU | cold / warm, wall | cold / warm, process CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (what, name), rows in results.items():
        units = ["s", "s", "s", "s", "s", "s", "x", "x"]
        cells = [
            f"{statistics.median(c):.2f} {unit} ({min(c):.2f}-{max(c):.2f})"
            for c, unit in zip(zip(*rows), units)
        ]
        print(f"| {what} | {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
