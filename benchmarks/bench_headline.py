"""The README's headline rows, re-measured as ``_harness`` prescribes: CPU time, interleaved, threads pinned.

Each row times dstk's public call and its anchor in turn (dstk, anchor, dstk, anchor, ...) in one
process with BLAS, OpenMP, numba and torch on one thread, after one call of dstk's with every kernel
compiled (the steady state of a process, whether or not the numba cache was populated), and reports
the median CPU time of each side with the per-round ratio anchor / dstk (median, IQR, range); the
wall-time ratio is given beside it (on a loaded machine it measures the load).  Rows whose anchor is not importable are skipped with a
message: torch and torchbelief live outside the development environment (``--anchors DIR``, a
``pip install --target DIR torch==2.13.0 torchbelief==0.3.0 py-dempster-shafer``).

Usage::

    python benchmarks/bench_headline.py [--rounds 9] [--anchors DIR] [--md benchmarks/results/headline.md]
        [--only "random trees"]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _harness import environment, interleaved, pinned_threads, ratio, seconds  # noqa: E402

from dstk import Frame, MassFunction, combine  # noqa: E402
from dstk._kernels._jit import every_kernel_compiled  # noqa: E402


def random_full_mass(rng, n):
    m = np.zeros(1 << n)
    m[1:] = rng.dirichlet(np.ones((1 << n) - 1))
    return m


def binary_forest(rng, n_samples, n_sources):
    truth = rng.beta(2, 2, size=(n_samples, 1))
    p = np.clip(rng.normal(truth, 0.25, size=(n_samples, n_sources)), 0.01, 0.99)
    e = rng.uniform(0.05, 0.5, size=(n_samples, n_sources))
    out = np.zeros((n_samples, n_sources, 4))
    out[..., 1], out[..., 2], out[..., 3] = (1 - e) * p, (1 - e) * (1 - p), e
    return out


def core_rows(rng, anchors):
    try:
        import torch
        import torchbelief as tbl
    except Exception as error:
        print(f"[skip] torchbelief rows ({type(error).__name__}: {error}); pass --anchors DIR")
        return []
    torch.set_num_threads(1)
    n = 15
    frame, tframe = Frame(range(n)), tbl.Frame(n, [chr(97 + i) for i in range(n)])
    m1, m2 = random_full_mass(rng, n), random_full_mass(rng, n)
    A, B = MassFunction.from_array(m1, frame), MassFunction.from_array(m2, frame)
    ta, tb = torch.tensor(m1), torch.tensor(m2)
    forest = binary_forest(rng, 10_000, 100)
    tforest = torch.from_numpy(forest)
    two = Frame((0, 1))
    return [
        (
            "Dempster, two masses with all focal sets, 15 labels",
            lambda: combine([A, B], rule="dempster"),
            "torchbelief",
            lambda: tbl.dempster(ta, tb, tframe)[0],
        ),
        (
            "Dempster, 100 binary masses × 10,000 samples, one call",
            lambda: combine(MassFunction.from_array(forest, two), rule="dempster", axis=1),
            "torchbelief",
            lambda: tbl.combine(tforest, tbl.Frame(2, ["a", "b"]), rule="dempster")[0],
        ),
        (
            "cautious rule, 15 labels",
            lambda: combine([A, B], rule="cautious"),
            "torchbelief",
            lambda: tbl.cautious(ta, tb, tframe, normalise=False)[0],
        ),
    ]


def estimator_rows(rng):
    from sklearn.calibration import CalibratedClassifierCV, _SigmoidCalibration
    from sklearn.datasets import load_breast_cancer, make_classification
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    from dstk.calibration import EvidentialCalibratedClassifier, LogisticCalibrator, VennAbersCalibrator
    from dstk.classifiers import EvidentialKNNClassifier
    from dstk.ensemble import RandomDecisionTreesClassifier

    rows = []
    scores = rng.normal(size=100_000)
    labels = (scores + rng.normal(size=scores.size) > 0).astype(int)
    try:
        from venn_abers import VennAbers

        def venn_abers_package():
            VennAbers().fit(np.column_stack([1 - scores, scores]), labels)

        rows.append(
            (
                "`VennAbersCalibrator.fit`, 10^5 scores",
                lambda: VennAbersCalibrator().fit(scores, labels),
                "venn-abers",
                venn_abers_package,
            )
        )
    except ImportError:
        print("[skip] venn-abers row (pip install venn-abers)")
    for size in (1_000, 100_000):
        s, y = scores[:size], labels[:size]
        rows.append(
            (
                f'`LogisticCalibrator(model="likelihood").fit`, {size:,} scores',
                lambda s=s, y=y: LogisticCalibrator(model="likelihood").fit(s, y),
                "sklearn sigmoid",
                lambda s=s, y=y: _SigmoidCalibration().fit(s, y),
            )
        )
    X, y = make_classification(n_samples=20_000, n_features=20, random_state=0)
    rows.append(
        (
            "`EvidentialCalibratedClassifier(LogisticRegression(), cv=5).fit`, 20,000 × 20",
            lambda: EvidentialCalibratedClassifier(LogisticRegression(), cv=5).fit(X, y),
            "`CalibratedClassifierCV`",
            lambda: CalibratedClassifierCV(LogisticRegression(), cv=5).fit(X, y),
        )
    )
    X_train, y_train = X[:10_000], y[:10_000]
    knn = EvidentialKNNClassifier(n_neighbors=10, gamma=0.5).fit(X_train, y_train)
    reference = KNeighborsClassifier(n_neighbors=10).fit(X_train, y_train)
    queries = X[10_000:20_000]
    rows.append(
        (
            "`EvidentialKNNClassifier.predict_proba`, 10^4 × 20 queries, k = 10",
            lambda: knn.predict_proba(queries),
            "`KNeighborsClassifier`",
            lambda: reference.predict_proba(queries),
        )
    )
    Xc, yc = load_breast_cancer(return_X_y=True)

    def trees():
        RandomDecisionTreesClassifier(100, random_state=0).fit(Xc, yc).predict_proba(Xc)

    def fully_grown_trees():
        RandomDecisionTreesClassifier(100, stop_at_pure_nodes=False, random_state=0).fit(
            Xc, yc
        ).predict_proba(Xc)

    def extra_trees():
        ExtraTreesClassifier(100, max_features=1, random_state=0).fit(Xc, yc).predict_proba(Xc)

    rows.append(
        ("random trees fit + predict, 100 trees, breast cancer", trees, "`ExtraTreesClassifier`", extra_trees)
    )
    rows.append(
        (
            "random trees fit + predict, 100 trees, breast cancer, `stop_at_pure_nodes=False`",
            fully_grown_trees,
            "`ExtraTreesClassifier`",
            extra_trees,
        )
    )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--anchors", default=None, help="a directory with torch and torchbelief (pip --target)"
    )
    parser.add_argument("--md", default=None, help="write the table to this Markdown file")
    parser.add_argument("--only", default=None, help="run only the rows whose workload contains this text")
    args = parser.parse_args(argv)
    if args.anchors:
        sys.path.append(args.anchors)
    rng = np.random.default_rng(0)
    warnings.simplefilter("ignore")
    # the rows import torch and scikit-learn: build them before pinning, so that the limits reach
    # their thread pools (threadpoolctl limits the libraries loaded when the block starts; an
    # OpenMP pool loaded later would run with every core and its spinning would count as CPU time)
    rows = core_rows(rng, args.anchors) + estimator_rows(rng)
    lines = ["# Headline rows: CPU time, interleaved, threads pinned", "", *environment(argv)]
    table = [
        "",
        "| workload | dstk (CPU) | anchor (CPU) | anchor / dstk, CPU | wall ratio |",
        "|---|---|---|---|---|",
    ]
    with pinned_threads(1):
        for what, ours, anchor_name, theirs in rows:
            if args.only and args.only not in what:
                continue
            rounds = args.rounds if "20,000 × 20" not in what else max(3, args.rounds // 3)
            # the rows time the steady state of a process: one call with every kernel compiled first, so
            # that no round runs a kernel interpreted or a numpy cold-start path (a process with an empty
            # numba cache does so for about a second of CPU per kernel, longer than the warm-up calls)
            with every_kernel_compiled():
                ours()
            times = interleaved({"dstk": ours, "anchor": theirs}, rounds)
            _, cpu_text = ratio(times["anchor"]["cpu"], times["dstk"]["cpu"])
            _, wall_text = ratio(times["anchor"]["wall"], times["dstk"]["wall"])
            row = (
                f"| {what} | {seconds(float(np.median(times['dstk']['cpu'])))} | {anchor_name} "
                f"{seconds(float(np.median(times['anchor']['cpu'])))} | {cpu_text} | {wall_text.split(' (')[0]} |"
            )
            table.append(row)
            print(row, flush=True)
    lines += table
    lines.append(f"- load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    text = "\n".join(lines) + "\n"
    if args.md:
        previous = open(args.md, encoding="utf-8").read() if os.path.exists(args.md) else ""
        with open(args.md, "w", encoding="utf-8") as handle:  # newest run first; the history below
            handle.write(text + ("\n" + previous if previous else ""))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
