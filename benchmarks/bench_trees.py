"""Speed of dstk's random decision trees and leaf combiners.

1. ``fit`` + ``predict_proba`` of :class:`RandomDecisionTreesClassifier` versus
   scikit-learn's ``ExtraTreesClassifier(max_features=1, min_samples_leaf=k)``
   with the same number of trees and ``n_jobs``, on the same data, interleaved
   (target: at least as fast; leaves per tree are reported because the RDTs
   grow many more of them: no purity stop), and the peak memory of both in
   fresh processes (target: at most 1.5x).
   ``--part thousand``: 1,000 trees on 10^5 synthetic rows x 20 features.
   ``--part pure``: ``stop_at_pure_nodes`` True against False, CPU time.
   ``--part checkout --old ROOT``: this checkout against another one: the
   same node arrays and outputs (digests of many cases), the CPU time of warm
   fits (fresh one-thread processes, old and new interleaved) and of the
   cold first fit (empty numba cache).
   ``--part predict``: ``predict_proba`` alone on synthetic 10^6 x 20 (half
   trains), 5 and 20 trees, ``n_jobs`` 1 and 2.
2. Every combiner of :func:`dstk.ensemble.combine_leaves` on leaf counts of
   10^5 samples x 100 trees (target: well under a second each).
3. The whole Busch et al. protocol on breast-cancer (5 splits x 100 trees x 9
   methods per leaf size) versus the ~35 s per leaf size of the authors' code
   as quoted in the research note (their code is not available here to run).

Usage::

    python benchmarks/bench_trees.py [DATA_FOLDER] [--quick]

DATA_FOLDER defaults to ``../shared/datasets`` (needs ``load.py``); data sets
missing from it are skipped.  Parts 1 time dstk and ExtraTrees in turn after one
warm-up (numba compilation is excluded) and quote the median process CPU time (both
``n_jobs`` workers included) and the per-run CPU ratio, the wall-time ratio beside
it; BLAS is pinned to one thread (threadpoolctl), the trees' own threads are the
rows' ``n_jobs``; the run's date, command and load head the output.  Part 2 is
the best of a few repeats.
"""

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

from dstk.ensemble import RandomDecisionTreesClassifier, combine_leaves  # noqa: E402


def best_time(function, repeats):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def _interleaved_pair(ours, anchor, repeats):
    """``ours`` and ``anchor`` called in turn ``repeats`` times: ``({"cpu": ..., "wall": ...}, {...})``.

    CPU time is ``time.process_time`` (every thread of the process: with ``n_jobs=2`` both workers),
    the measure to quote on a shared machine; the wall time is kept beside it.
    """
    times = ({"cpu": [], "wall": []}, {"cpu": [], "wall": []})
    for _ in range(repeats):
        for side, call in zip(times, (ours, anchor)):
            cpu, wall = time.process_time(), time.perf_counter()
            call()
            side["cpu"].append(time.process_time() - cpu)
            side["wall"].append(time.perf_counter() - wall)
    return tuple({kind: np.array(values) for kind, values in side.items()} for side in times)


def load(folder, name):
    spec = importlib.util.spec_from_file_location("shared_load", os.path.join(folder, "load.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load(name)


def _peak_rss_child(code):
    """Peak resident memory (MB) of a fresh Python process running ``code`` (ru_maxrss)."""
    import subprocess

    wrapper = code + "\nimport resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    out = subprocess.run(
        [sys.executable, "-c", wrapper],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": REPO},
    )
    return int(out.stdout.strip().splitlines()[-1]) / 1024.0


def extra_trees(n_trees, leaf, n_jobs):
    """The anchor: scikit-learn's ExtraTreesClassifier with one feature per split and the same leaf sizes."""
    from sklearn.ensemble import ExtraTreesClassifier

    return ExtraTreesClassifier(
        n_trees,
        max_features=1,
        min_samples_leaf=leaf,
        min_samples_split=2 * leaf,
        random_state=0,
        n_jobs=n_jobs,
    )


def bench_fit_predict(datasets, leaves, n_trees, repeats, n_jobs, memory=False, pure=False):
    """fit + predict_proba of dstk and ExtraTrees interleaved (A, B, A, B, ...): medians and ratio spread.

    ``pure``: dstk's trees with ``stop_at_pure_nodes=True`` (the "leaf" column says "1 pure").
    """

    print(
        f"\n## fit + predict_proba, {n_trees} trees, n_jobs={n_jobs} (half split train/test), {repeats} interleaved runs"
    )
    header = (
        "| data | n_train x features | leaf | dstk CPU s (median) | ExtraTrees CPU s (median) | "
        "CPU ratio dstk / ET, median (min-max) | wall ratio |"
    )
    header += " dstk leaves/tree | ET leaves/tree |"
    if memory:
        header += " dstk peak MB | ET peak MB | memory ratio |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name, (X, y) in datasets.items():
        rng = np.random.default_rng(0)
        order = rng.permutation(y.size)
        half = y.size // 2
        train, test = order[:half], order[half:]
        X_train, y_train, X_test = X[train], y[train], X[test]
        for leaf in leaves:
            rdt = RandomDecisionTreesClassifier(
                n_trees,
                min_samples_leaf=leaf,
                min_samples_split=2 * leaf,
                stop_at_pure_nodes=pure,
                random_state=0,
                n_jobs=n_jobs,
            )
            et = extra_trees(n_trees, leaf, n_jobs)
            rdt.fit(X_train[:500], y_train[:500]).predict_proba(X_test[:10])  # compile
            times_rdt, times_et = _interleaved_pair(
                lambda: rdt.fit(X_train, y_train).predict_proba(X_test),
                lambda: et.fit(X_train, y_train).predict_proba(X_test),
                repeats,
            )
            ratios = times_rdt["cpu"] / times_et["cpu"]
            wall_ratio = np.median(times_rdt["wall"] / times_et["wall"])
            et_leaves = np.mean([e.tree_.n_leaves for e in et.estimators_])
            row = (
                f"| {name} | {half} x {X.shape[1]} | {leaf}{' pure' if pure else ''} | {np.median(times_rdt['cpu']):.3f} | "
                f"{np.median(times_et['cpu']):.3f} | {np.median(ratios):.2f} ({ratios.min():.2f}-{ratios.max():.2f}) | "
                f"{wall_ratio:.2f} | {rdt.n_leaves_.mean():.0f} | {et_leaves:.0f} |"
            )
            if memory:
                setup = (
                    "import numpy as np, sys; sys.path.insert(0, 'benchmarks'); import bench_trees as b; "
                    f"X, y = b.dataset({name!r}, {_DATA_FOLDER!r}); o = np.random.default_rng(0).permutation(y.size); h = y.size // 2; "
                    "tr, te = o[:h], o[h:]; "
                )
                fit_rdt = (
                    "from dstk.ensemble import RandomDecisionTreesClassifier as C; "
                    f"C({n_trees}, min_samples_leaf={leaf}, min_samples_split={2 * leaf}, "
                    f"stop_at_pure_nodes={pure}, random_state=0, n_jobs={n_jobs})"
                    ".fit(X[tr], y[tr]).predict_proba(X[te])"
                )
                fit_et = (
                    "from sklearn.ensemble import ExtraTreesClassifier as C; "
                    f"C({n_trees}, max_features=1, min_samples_leaf={leaf}, min_samples_split={2 * leaf}, random_state=0, "
                    f"n_jobs={n_jobs}).fit(X[tr], y[tr]).predict_proba(X[te])"
                )
                try:
                    base = _peak_rss_child(setup)
                    mem_rdt = _peak_rss_child(setup + fit_rdt) - base
                    mem_et = _peak_rss_child(setup + fit_et) - base
                    row += f" {mem_rdt:.0f} | {mem_et:.0f} | {mem_rdt / mem_et:.2f} |"
                except (
                    Exception
                ) as error:  # a child that fails (e.g. out of memory) leaves the row without it
                    row += f" n/a ({type(error).__name__}) | | |"
            print(row, flush=True)


def bench_pure_stop(datasets, n_trees, repeats, n_jobs):
    """fit + predict_proba with ``stop_at_pure_nodes`` False and True, interleaved: CPU and wall time.

    CPU time is ``time.process_time`` (every thread of the process), the
    measure of a loaded machine; ratio = pure / not pure (below 1: pure stops
    are cheaper), median and min-max over the interleaved pairs.
    """
    print(
        f"\n## stop_at_pure_nodes True vs False: fit + predict_proba, {n_trees} trees, n_jobs={n_jobs}, leaf 1"
    )
    print(
        "| data | n_train x features | CPU s not pure | CPU s pure | CPU ratio pure / not (min-max) | "
        "wall s not pure | wall s pure | leaves/tree not pure | leaves/tree pure |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (X, y) in datasets.items():
        order = np.random.default_rng(0).permutation(y.size)
        half = y.size // 2
        X_train, y_train, X_test = X[order[:half]], y[order[:half]], X[order[half:]]
        models = {
            pure: RandomDecisionTreesClassifier(
                n_trees, stop_at_pure_nodes=pure, random_state=0, n_jobs=n_jobs
            )
            for pure in (False, True)
        }
        for model in models.values():
            model.fit(X_train[:500], y_train[:500]).predict_proba(X_test[:10])  # compile
        cpu = {False: [], True: []}
        wall = {False: [], True: []}
        for _ in range(repeats):
            for pure, model in models.items():
                start_cpu, start_wall = time.process_time(), time.perf_counter()
                model.fit(X_train, y_train).predict_proba(X_test)
                cpu[pure].append(time.process_time() - start_cpu)
                wall[pure].append(time.perf_counter() - start_wall)
        ratios = np.array(cpu[True]) / np.array(cpu[False])
        print(
            f"| {name} | {half} x {X.shape[1]} | {np.median(cpu[False]):.2f} | {np.median(cpu[True]):.2f} | "
            f"{np.median(ratios):.2f} ({ratios.min():.2f}-{ratios.max():.2f}) | {np.median(wall[False]):.2f} | "
            f"{np.median(wall[True]):.2f} | {models[False].n_leaves_.mean():.0f} | {models[True].n_leaves_.mean():.0f} |",
            flush=True,
        )


_DATA_FOLDER = os.path.join(REPO, "..", "shared", "datasets")


def dataset(name, folder=None):
    """A benchmark data set by name: breast_cancer (scikit-learn), synthetic_<rows> (20 Gaussian features),
    or a file of the data folder (``load.py``)."""
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        return load_breast_cancer(return_X_y=True)
    if name.startswith("synthetic_"):
        n = int(float(name.split("_", 1)[1]))
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, 20))
        y = (X[:, :3].sum(axis=1) + rng.normal(size=n) > 0).astype(int)
        return X, y
    X, y = load(folder or _DATA_FOLDER, name)
    return np.asarray(X, dtype=float), np.asarray(y)


def bench_memory(names, leaves, n_trees, n_jobs, folder, runs=3):
    """Peak resident memory added by fit + predict_proba, each in a fresh process.

    In each process: load the data, warm up with a small fit + predict of the same estimator (so that
    code loading and numba's cache reads are not counted), delete that model, reset the peak
    (``/proc/self/clear_refs``), then fit on the training half and predict the other half; the
    figure is the peak resident size during that minus the resident size before it.  Median of
    ``runs`` processes per cell, dstk and ExtraTrees alternating.
    """
    import subprocess
    import tempfile

    print(
        f"\n## peak memory of fit + predict_proba, {n_trees} trees, n_jobs={n_jobs} "
        f"(fresh process each, median of {runs})"
    )
    print("| data | leaf | dstk MB (min-max) | ExtraTrees MB (min-max) | ratio dstk / ET (min-max) |")
    print("|---|---|---|---|---|")
    for name in names:
        X, y = dataset(name, folder)
        path = os.path.join(tempfile.gettempdir(), f"bench_trees_{name}.npz")
        np.savez(path, X=X, y=y)
        for leaf in leaves:
            results = {"dstk": [], "et": []}
            for _ in range(runs):
                for estimator in ("dstk", "et"):
                    if estimator == "dstk":
                        make = (
                            "from dstk.ensemble import RandomDecisionTreesClassifier as C\n"
                            f"make = lambda: C({n_trees}, min_samples_leaf={leaf}, min_samples_split={2 * leaf}, "
                            f"random_state=0, n_jobs={n_jobs})"
                        )
                    else:
                        make = (
                            "from sklearn.ensemble import ExtraTreesClassifier as C\n"
                            f"make = lambda: C({n_trees}, max_features=1, min_samples_leaf={leaf}, "
                            f"min_samples_split={2 * leaf}, random_state=0, n_jobs={n_jobs})"
                        )
                    code = (
                        "import gc\nimport numpy as np\n"
                        f"d = np.load({path!r}); X, y = d['X'], d['y']\n"
                        "o = np.random.default_rng(0).permutation(y.size); h = y.size // 2\n"
                        "Xtr, ytr, Xte = X[o[:h]], y[o[:h]], X[o[h:]]\n"
                        f"{make}\n"
                        "m = make().fit(Xtr[:200], ytr[:200]); m.predict_proba(Xte[:10]); del m; gc.collect()\n"
                        "status = lambda: dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)\n"
                        "open('/proc/self/clear_refs', 'w').write('5')  # reset the peak to the current size\n"
                        "base = int(status()['VmRSS'].split()[0])\n"
                        "m = make().fit(Xtr, ytr); p = m.predict_proba(Xte)\n"
                        "print((int(status()['VmHWM'].split()[0]) - base) / 1024)\n"
                    )
                    out = subprocess.run(
                        [sys.executable, "-c", code],
                        capture_output=True,
                        text=True,
                        cwd=REPO,
                        env={**os.environ, "PYTHONPATH": REPO},
                    )
                    results[estimator].append(
                        float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else float("nan")
                    )
            mine, theirs = np.array(results["dstk"]), np.array(results["et"])
            ratios = mine / theirs
            print(
                f"| {name} | {leaf} | {np.median(mine):.1f} ({mine.min():.1f}-{mine.max():.1f}) "
                f"| {np.median(theirs):.1f} ({theirs.min():.1f}-{theirs.max():.1f}) "
                f"| {np.median(ratios):.2f} ({ratios.min():.2f}-{ratios.max():.2f}) |",
                flush=True,
            )


def bench_predict(n_trees_list, n_jobs_list, repeats, n_rows=1_000_000, leaf=32):
    """predict_proba alone (fitted once), dstk and ExtraTrees interleaved: medians and the ratio's spread."""

    X, y = dataset(f"synthetic_{n_rows:.0e}".replace("+0", "").replace("+", ""))
    half = y.size // 2
    X_train, y_train, X_test = X[:half], y[:half], X[half:]
    print(
        f"\n## predict_proba of {y.size - half} rows, synthetic {n_rows} x 20, leaf {leaf}, {repeats} interleaved runs"
    )
    print(
        "| trees | n_jobs | dstk CPU s (median) | ExtraTrees CPU s (median) | CPU ratio dstk / ET, median (min-max) | "
        "wall ratio | dstk nodes/tree | ET nodes/tree |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n_trees in n_trees_list:
        rdt = RandomDecisionTreesClassifier(
            n_trees, min_samples_leaf=leaf, min_samples_split=2 * leaf, random_state=0, n_jobs=2
        ).fit(X_train, y_train)
        et = extra_trees(n_trees, leaf, 2).fit(X_train, y_train)
        for n_jobs in n_jobs_list:
            rdt.set_params(n_jobs=n_jobs)
            et.set_params(n_jobs=n_jobs)
            rdt.predict_proba(X_test[:10])  # compile
            times_rdt, times_et = _interleaved_pair(
                lambda: rdt.predict_proba(X_test), lambda: et.predict_proba(X_test), repeats
            )
            ratios = times_rdt["cpu"] / times_et["cpu"]
            wall_ratio = np.median(times_rdt["wall"] / times_et["wall"])
            et_nodes = np.mean([e.tree_.node_count for e in et.estimators_])
            print(
                f"| {n_trees} | {n_jobs} | {np.median(times_rdt['cpu']):.3f} | {np.median(times_et['cpu']):.3f} | "
                f"{np.median(ratios):.2f} ({ratios.min():.2f}-{ratios.max():.2f}) | {wall_ratio:.2f} | "
                f"{rdt.node_count_.mean():.0f} | {et_nodes:.0f} |",
                flush=True,
            )


def bench_combiners(n_samples, n_trees, repeats):
    print(f"\n## combiners on counts of {n_samples} samples x {n_trees} trees (leaf sizes 1-40)")
    rng = np.random.default_rng(0)
    totals = rng.integers(1, 40, size=(n_samples, n_trees))
    positives = rng.binomial(totals, rng.uniform(0, 1, size=(n_samples, 1)))
    counts = np.stack([totals - positives, positives], axis=2).astype(np.int64)
    prior = np.array([0.6, 0.4])
    runs = [
        ("probability average", {"combiner": "average"}),
        ("probability vote", {"combiner": "vote"}),
        ("laplace average", {"combiner": "laplace"}),
        ("confidence_bounds average", {"combiner": "confidence_bounds"}),
        ("plausibility average", {"combiner": "plausibility"}),
        ("pooling", {"combiner": "pooling"}),
        ("dempster (exact)", {"combiner": "dempster"}),
        (
            "dempster (busch2021: floor 1e-5, pairwise)",
            {"combiner": "dempster", "compatibility": "busch2021"},
        ),
        ("cautious (exact)", {"combiner": "cautious"}),
        (
            "cautious (busch2021: floor 1e-5, pairwise)",
            {"combiner": "cautious", "compatibility": "busch2021"},
        ),
        ("eva", {"combiner": "eva", "class_prior": prior}),
    ]
    print("| combiner | seconds |")
    print("|---|---|")
    for label, options in runs:
        combine_leaves(counts[:10], **options)  # compile
        seconds = best_time(lambda: combine_leaves(counts, **options), repeats)
        print(f"| {label} | {seconds:.3f} |")
    counts3 = rng.integers(0, 15, size=(n_samples, n_trees, 3))
    for label, options in [
        ("3 classes: dempster", {"combiner": "dempster"}),
        ("3 classes: cautious", {"combiner": "cautious"}),
        ("3 classes: eva", {"combiner": "eva"}),
        ("3 classes: vote", {"combiner": "vote"}),
    ]:
        combine_leaves(counts3[:10], **options)
        seconds = best_time(lambda: combine_leaves(counts3, **options), repeats)
        print(f"| {label} | {seconds:.3f} |")


def bench_protocol(folder):
    sys.path.insert(0, os.path.join(REPO, "experiments"))
    import busch2021_reproduce as protocol

    X, y = protocol.load_dataset(folder, "breast_cancer")
    protocol.run_dataset(X, y, [4], 1, with_references=False)  # compile
    _, (seconds, dstk_seconds) = protocol.run_dataset(X, y, [1, 2, 3, 4, 8, 32], 5, with_references=False)
    print("\n## whole protocol on breast-cancer (5 splits x 100 trees x 9 methods)")
    print(
        "| leaf | with sklearn AUC/accuracy s | dstk part (fit + leaf_counts + combine) s | authors' code s (quoted) | "
        "speed-up (whole) | speed-up (dstk part) |"
    )
    print("|---|---|---|---|---|---|")
    for leaf, s in seconds.items():
        d = dstk_seconds[leaf]
        print(f"| {leaf} | {s:.2f} | {d:.2f} | ~35 | {35 / s:.0f}x | {35 / d:.0f}x |")


# Child of --part checkout: the forests' node arrays and outputs as SHA-256 digests, for cases that cover
# every branch of the tree builder (both streams, pure stops, depth limit, leaf sizes, binary, sparse and
# nominal features, three classes, two threads) and every combiner's predict_proba.
_DIGEST_CHILD = r"""
import hashlib, json, sys
import numpy as np
from dstk.ensemble import RandomDecisionTreesClassifier, _random_trees

_random_trees._PARALLEL_MIN_SAMPLE_TREES = 0  # the threaded paths too

def data(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "gaussian":
        X = rng.normal(size=(300, 6))
        return X, (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=300) > 1).astype(int), None
    if kind == "ties3":
        return rng.integers(0, 4, size=(250, 5)).astype(float), rng.integers(0, 3, size=250), None
    if kind == "sparse":
        X = (rng.random((250, 70)) < 0.05).astype(float)
        X[:, :3] = rng.random((250, 3)) < 0.5
        return X, (X[:, 0] + X[:, 5] + rng.random(250) > 1.2).astype(int), None
    X = np.column_stack([rng.normal(size=250), rng.integers(0, 5, size=250), rng.normal(size=250),
                         rng.integers(0, 3, size=250), rng.random(250) < 0.3]).astype(float)
    return X, (X[:, 0] + (X[:, 1] == 2) > 0.5).astype(int), [1, 3]

PARAMETERS = [
    {},
    {"stop_at_pure_nodes": False},
    {"min_samples_leaf": 3, "min_samples_split": 5},
    {"max_depth": 4, "stop_at_pure_nodes": False},
    {"compatibility": "busch2021"},
    {"n_jobs": 2, "min_samples_leaf": 2},
]
COMBINERS = ["average", "vote", "laplace", "pooling", "eva", "dempster", "cautious", "plausibility",
             "confidence_bounds"]
digests = {}
for kind in ("gaussian", "ties3", "sparse", "nominal"):
    for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        X, y, nominal = data(kind, 100 + seed)
        for j, parameters in enumerate(PARAMETERS):
            for combiner in COMBINERS:
                if y.max() > 1 and combiner in ("plausibility", "confidence_bounds"):
                    continue
                model = RandomDecisionTreesClassifier(
                    12, nominal_features=nominal, combiner=combiner, random_state=seed, **parameters
                ).fit(X[::2], y[::2])
                h = hashlib.sha256()
                if combiner == "average":
                    for name, array in sorted(model._node_arrays().items()):
                        h.update(name.encode())
                        h.update(np.ascontiguousarray(array).tobytes())
                    h.update(model.leaf_counts(X[1::2]).tobytes())
                h.update(np.ascontiguousarray(model.predict_proba(X[1::2])).tobytes())
                h.update(np.ascontiguousarray(model.decision_function(X[1::2])).tobytes())
                if combiner in ("dempster", "cautious"):
                    h.update(np.ascontiguousarray(model.predict_mass(X[1::2]).to_array()).tobytes())
                digests[f"{kind}/{seed}/{j}/{combiner}"] = h.hexdigest()
print(json.dumps(digests))
"""

# Child of --part checkout: CPU time of warm fits (one thread); cold: the first fit in a fresh numba cache.
_TIMING_CHILD = r"""
import json, os, sys, time
import numpy as np
sys.path.insert(0, {benchmarks!r})
from bench_trees import dataset
from dstk.ensemble import RandomDecisionTreesClassifier
name, leaf, n_trees, cold = {name!r}, {leaf}, {n_trees}, {cold}
X, y = dataset(name, {folder!r})
half = X.shape[0] // 2
X, y = X[:half], y[:half]
def fit():
    return RandomDecisionTreesClassifier(n_trees, min_samples_leaf=leaf, random_state=0, n_jobs=1).fit(X, y)
start = time.process_time()
fit().predict_proba(X[:1000])
first = time.process_time() - start
start = time.process_time()
fit().predict_proba(X[:1000])
second = time.process_time() - start
print(json.dumps({{"first": first, "second": second}}))
"""


def bench_checkout(old_root, rounds, folder, seeds=3, digests=True):
    """This checkout against another (``old_root``): identical outputs, and the CPU time of warm and cold fits.

    Digests: :data:`_DIGEST_CHILD` run in both checkouts must agree case by case.  Timing: each round runs a
    fresh single-threaded child per checkout in turn (old, new, old, new, ...), each timing two fits +
    predictions of one workload (the second is the warm time); the cold rows give each child an empty numba
    cache, so that its first fit includes every compilation.
    """
    import json
    import shutil
    import subprocess
    import tempfile

    from _harness import run_in_checkout

    roots = {"old": os.path.abspath(old_root), "new": REPO}
    outputs = {}
    for label, root in roots.items() if digests else ():
        env = dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1")
        result = subprocess.run(
            [sys.executable, "-c", _DIGEST_CHILD, str(seeds)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=tempfile.gettempdir(),
        )
        outputs[label] = json.loads(result.stdout.strip().splitlines()[-1])
    if digests:
        differing = [key for key in outputs["new"] if outputs["old"].get(key) != outputs["new"][key]]
        print(
            f"digests: {len(outputs['new'])} cases, {len(differing)} differ"
            + (f": {differing[:10]}" if differing else " (bit-identical)"),
            flush=True,
        )
    workloads = [("adult", 1, 20), ("synthetic_2e5", 1, 20), ("synthetic_2e5", 32, 100), ("spambase", 1, 100)]
    print("\n| workload | rows x features, leaf, trees | old CPU s | new CPU s | new / old (min-max) |")
    print("|---|---|---|---|---|")
    benchmarks = os.path.join(REPO, "benchmarks")
    for name, leaf, n_trees in workloads:
        code = _TIMING_CHILD.format(
            benchmarks=benchmarks, name=name, leaf=leaf, n_trees=n_trees, cold=False, folder=folder
        )
        times = {"old": [], "new": []}
        for _ in range(rounds):
            for label, root in roots.items():
                times[label].append(run_in_checkout(root, code)["second"])
        ratios = np.array(times["new"]) / np.array(times["old"])
        print(
            f"| {name} | leaf {leaf}, {n_trees} trees | {np.median(times['old']):.3f} | "
            f"{np.median(times['new']):.3f} | {np.median(ratios):.3f} ({ratios.min():.3f}-{ratios.max():.3f}) |",
            flush=True,
        )
    print(
        "\n| cold first fit, synthetic 10^5 rows (half trains) | first fit CPU s | warm fit CPU s | first - warm |"
    )
    print("|---|---|---|---|")
    code = _TIMING_CHILD.format(
        benchmarks=benchmarks, name="synthetic_2e5", leaf=1, n_trees=100, cold=True, folder=folder
    )
    for _ in range(max(1, rounds // 2)):
        for label, root in roots.items():
            cache = tempfile.mkdtemp(prefix="numba-cold-")
            os.environ["NUMBA_CACHE_DIR"] = cache
            try:
                result = run_in_checkout(root, code)
            finally:
                del os.environ["NUMBA_CACHE_DIR"]
                shutil.rmtree(cache, ignore_errors=True)
            print(
                f"| {label} | {result['first']:.2f} | {result['second']:.2f} | "
                f"{result['first'] - result['second']:.2f} |",
                flush=True,
            )


def main(argv=None):
    global _DATA_FOLDER
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", default=_DATA_FOLDER)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller combiner input")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument(
        "--part",
        choices=[
            "small",
            "large",
            "synthetic",
            "thousand",
            "memory",
            "predict",
            "combiners",
            "protocol",
            "pure",
            "checkout",
            "all",
        ],
        default="all",
    )
    parser.add_argument("--memory", action="store_true", help="also peak memory (fresh processes)")
    parser.add_argument(
        "--pure", action="store_true", help="dstk's trees with stop_at_pure_nodes=True (fit + predict parts)"
    )
    parser.add_argument(
        "--repeats", type=int, default=None, help="interleaved runs per row (default 3, --quick 1)"
    )
    parser.add_argument(
        "--old", default=None, help="--part checkout: root of the checkout to compare with (holds dstk/)"
    )
    parser.add_argument("--no-digests", action="store_true", help="--part checkout: timing only")
    args = parser.parse_args(argv)
    if args.part == "checkout":
        if args.old is None:
            parser.error("--part checkout needs --old ROOT")
        bench_checkout(args.old, args.repeats or 5, args.data, digests=not args.no_digests)
        return
    repeats = args.repeats or (1 if args.quick else 3)
    _DATA_FOLDER = args.data
    from _harness import environment, load_at_end
    from threadpoolctl import threadpool_limits

    # BLAS pinned to one thread on both sides; the trees' own threads are the rows' n_jobs
    with threadpool_limits(limits=1, user_api="blas"):
        print("\n".join(environment(["benchmarks/bench_trees.py", *(argv or sys.argv[1:])])))
        _main_parts(args, repeats)
    print(load_at_end())


def _main_parts(args, repeats):

    if args.part in ("small", "all"):
        datasets = {}
        for name in ("breast_cancer", "spambase", "banknote"):
            try:
                datasets[name] = dataset(name, args.data)
            except Exception as exc:  # pragma: no cover - data folder optional
                print(f"(skipping {name}: {exc})")
        bench_fit_predict(datasets, [1, 4, 32], 100, repeats, args.n_jobs, memory=args.memory, pure=args.pure)
    if args.part in ("large", "all"):
        datasets = {}
        for name in ("adult", "w8a"):
            try:
                datasets[name] = dataset(name, args.data)
            except Exception as exc:  # pragma: no cover
                print(f"(skipping {name}: {exc})")
        bench_fit_predict(datasets, [1, 32], 100, repeats, args.n_jobs, memory=args.memory, pure=args.pure)
    if args.part in ("synthetic", "all"):
        synthetic = {name: dataset(name) for name in ("synthetic_5e5", "synthetic_1e6")}
        bench_fit_predict(
            synthetic, [32], 100, max(2, repeats - 1), args.n_jobs, memory=args.memory, pure=args.pure
        )
    if args.part in ("thousand", "all"):
        # leaf 32: at leaf 1 the 1,000 trees alone take ~7 GB (dstk) and ~11 GB (ExtraTrees)
        bench_fit_predict(
            {"synthetic_2e5": dataset("synthetic_2e5")}, [32], 1000, 1, args.n_jobs, pure=args.pure
        )
    if args.part in ("memory", "all"):
        bench_memory(["breast_cancer", "spambase", "banknote"], [1], 100, args.n_jobs, args.data)
        bench_memory(["adult", "w8a"], [1, 32], 100, args.n_jobs, args.data)
        bench_memory(["synthetic_5e5", "synthetic_1e6"], [32], 100, args.n_jobs, args.data)
    if args.part in ("predict", "all"):
        bench_predict([5, 20], [1, 2], max(5, repeats))
    if args.part in ("combiners", "all"):
        bench_combiners(10_000 if args.quick else 100_000, 100, repeats)
    if args.part in ("pure", "all"):
        datasets = {}
        for name in ("breast_cancer", "banknote", "spambase", "adult", "w8a", "synthetic_1e5"):
            try:
                datasets[name] = dataset(name, args.data)
            except Exception as exc:  # pragma: no cover - data folder optional
                print(f"(skipping {name}: {exc})")
        bench_pure_stop(datasets, 100, max(2, repeats), args.n_jobs)
    if args.part in ("protocol", "all") and os.path.exists(os.path.join(args.data, "load.py")):
        bench_protocol(args.data)


if __name__ == "__main__":
    main()
