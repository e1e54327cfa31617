"""Speed of dstk's random decision trees and leaf combiners.

1. ``fit`` + ``predict_proba`` of :class:`RandomDecisionTreesClassifier` versus
   scikit-learn's ``ExtraTreesClassifier(max_features=1, min_samples_leaf=k)``
   with the same number of trees, on the same data (target: within 2x; leaves
   per tree are reported because the RDTs grow many more of them).
2. Every combiner of :func:`dstk.ensemble.combine_leaves` on leaf counts of
   10^5 samples x 100 trees (target: well under a second each).
3. The whole Busch et al. protocol on breast-cancer (5 splits x 100 trees x 9
   methods per leaf size) versus the ~35 s per leaf size of the authors' code.

Usage::

    python benchmarks/bench_trees.py [DATA_FOLDER] [--quick]

DATA_FOLDER defaults to ``../shared/datasets`` (needs ``load.py``); data sets
missing from it are skipped.  Timings are the best of a few repeats after one
warm-up (numba compilation is excluded).
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


def load(folder, name):
    spec = importlib.util.spec_from_file_location("shared_load", os.path.join(folder, "load.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load(name)


def bench_fit_predict(datasets, leaves, n_trees, repeats, n_jobs):
    from sklearn.ensemble import ExtraTreesClassifier

    print(f"\n## fit + predict_proba, {n_trees} trees, n_jobs={n_jobs} (half split train/test)")
    print("| data | n_train | leaf | dstk RDT s | sklearn ET s | ratio | RDT leaves/tree | ET leaves/tree |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (X, y) in datasets.items():
        rng = np.random.default_rng(0)
        order = rng.permutation(y.size)
        half = y.size // 2
        train, test = order[:half], order[half:]
        for leaf in leaves:
            rdt = RandomDecisionTreesClassifier(
                n_trees, min_samples_leaf=leaf, min_samples_split=2 * leaf, random_state=0, n_jobs=n_jobs
            )
            et = ExtraTreesClassifier(
                n_trees,
                max_features=1,
                min_samples_leaf=leaf,
                min_samples_split=2 * leaf,
                random_state=0,
                n_jobs=n_jobs,
            )

            def run_rdt():
                rdt.fit(X[train], y[train]).predict_proba(X[test])

            def run_et():
                et.fit(X[train], y[train]).predict_proba(X[test])

            run_rdt()  # compile
            t_rdt = best_time(run_rdt, repeats)
            t_et = best_time(run_et, repeats)
            et_leaves = np.mean([e.tree_.n_leaves for e in et.estimators_])
            print(
                f"| {name} | {half} | {leaf} | {t_rdt:.3f} | {t_et:.3f} | {t_rdt / t_et:.2f} | "
                f"{rdt.n_leaves_.mean():.0f} | {et_leaves:.0f} |"
            )


def bench_combiners(n_samples, n_trees, repeats):
    print(f"\n## combiners on counts of {n_samples} samples x {n_trees} trees (leaf sizes 1-40)")
    rng = np.random.default_rng(0)
    totals = rng.integers(1, 40, size=(n_samples, n_trees))
    positives = rng.binomial(totals, rng.uniform(0, 1, size=(n_samples, 1)))
    counts = np.stack([totals - positives, positives], axis=2).astype(np.int64)
    prior = np.array([0.6, 0.4])
    runs = [
        ("probability average", {"method": "probability"}),
        ("probability vote", {"method": "probability", "aggregate": "vote"}),
        ("laplace average", {"method": "laplace"}),
        ("confidence_bounds average", {"method": "confidence_bounds"}),
        ("plausibility average", {"method": "plausibility"}),
        ("pooling", {"method": "pooling"}),
        ("dempster (exact)", {"method": "dempster"}),
        ("dempster (floor 1e-5, pairwise)", {"method": "dempster", "floor": 1e-5}),
        ("cautious (exact)", {"method": "cautious"}),
        ("cautious (floor 1e-5, pairwise)", {"method": "cautious", "floor": 1e-5}),
        ("eva", {"method": "eva", "class_prior": prior}),
    ]
    print("| combiner | seconds |")
    print("|---|---|")
    for label, options in runs:
        combine_leaves(counts[:10], **options)  # compile
        seconds = best_time(lambda: combine_leaves(counts, **options), repeats)
        print(f"| {label} | {seconds:.3f} |")
    counts3 = rng.integers(0, 15, size=(n_samples, n_trees, 3))
    for label, options in [
        ("3 classes: dempster", {"method": "dempster"}),
        ("3 classes: cautious", {"method": "cautious"}),
        ("3 classes: eva", {"method": "eva"}),
        ("3 classes: vote", {"method": "probability", "aggregate": "vote"}),
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
        "| leaf | with sklearn AUC/accuracy s | dstk part (fit + leaf_counts + combine) s | authors' code s | "
        "speed-up (whole) | speed-up (dstk part) |"
    )
    print("|---|---|---|---|---|---|")
    for leaf, s in seconds.items():
        d = dstk_seconds[leaf]
        print(f"| {leaf} | {s:.2f} | {d:.2f} | ~35 | {35 / s:.0f}x | {35 / d:.0f}x |")


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", default=os.path.join(REPO, "..", "shared", "datasets"))
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller combiner input")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else 3

    datasets = {}
    from sklearn.datasets import load_breast_cancer

    datasets["breast_cancer"] = load_breast_cancer(return_X_y=True)
    for name in ("spambase", "banknote"):
        try:
            X, y = load(args.data, name)
            datasets[name] = (np.asarray(X, dtype=float), np.asarray(y))
        except Exception as exc:  # pragma: no cover - data folder optional
            print(f"(skipping {name}: {exc})")
    bench_fit_predict(datasets, [1, 4, 32], 100, repeats, args.n_jobs)
    bench_combiners(10_000 if args.quick else 100_000, 100, repeats)
    if os.path.exists(os.path.join(args.data, "load.py")):
        bench_protocol(args.data)


if __name__ == "__main__":
    main()
