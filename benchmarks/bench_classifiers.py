"""Speed of EvidentialKNNClassifier.predict_proba against KNeighborsClassifier.predict_proba.

Both estimators search neighbours with scikit-learn (same algorithm, same k); the evidential rule adds the
closed-form Dempster combination per class and the pignistic transform.  The two are timed interleaved
(A, B, A, B, ...) in one process by ``_harness`` (BLAS / OpenMP / numba pinned to one thread, process CPU
time next to wall time), so that the load of the shared machine hits both alike; the tables report the
median CPU and wall times and the spread (IQR, range) of the per-round CPU-time ratio.

Usage::

    python benchmarks/bench_classifiers.py [--n-train 10000] [--n-test 100000] [--rounds 5]

Defaults: 10^4 x 20 training points, 10^5 x 20 queries, k = 10, 3 classes (gamma fixed: the prediction
is timed, not the training).  With 10^5 training points the brute-force search alone takes about two
minutes per call on the shared 2-core machine, for both estimators alike (the search is the same), so the
default training set is 10^4 points: the ratio then exposes the combination more, not less.  A second
table times the learning of gamma (leave-one-out, L-BFGS-B) against KNeighborsClassifier.fit plus a
leave-one-out kneighbors call on 10^4 points.  Results: benchmarks/results/classifiers.md.
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import _harness  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402

from dstk.classifiers import EvidentialKNNClassifier  # noqa: E402


def data(n, d=20, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.normal(size=(n, d)) + 0.5 * y[:, None]
    return X, y


def interleaved(functions, rounds):
    return _harness.interleaved(functions, rounds)


def report(title, times, anchor, candidate):
    _, cpu_text = _harness.ratio(times[candidate]["cpu"], times[anchor]["cpu"])
    wall, _ = _harness.ratio(times[candidate]["wall"], times[anchor]["wall"])
    print(f"\n## {title}")
    print("| estimator | median CPU | median wall |")
    print("|---|---|---|")
    for name, values in times.items():
        print(
            f"| {name} | {_harness.seconds(float(np.median(values['cpu'])))} | "
            f"{_harness.seconds(float(np.median(values['wall'])))} |"
        )
    print(
        f"\nratio {candidate} / {anchor}, CPU time: {cpu_text}; wall time: median {wall:.2f}× "
        f"({len(times[anchor]['cpu'])} interleaved rounds)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-train", type=int, default=10_000)
    parser.add_argument("--n-test", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n-neighbors", type=int, default=10)
    args = parser.parse_args()
    print("\n".join(_harness.environment()))
    with _harness.pinned_threads(1):
        run(args)
    print(f"- load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


def run(args):
    X, y = data(args.n_train)
    Xt, _ = data(args.n_test, seed=1)
    k = args.n_neighbors
    eknn = EvidentialKNNClassifier(n_neighbors=k, gamma=0.05).fit(X, y)
    knn = KNeighborsClassifier(n_neighbors=k).fit(X, y)
    assert eknn.nearest_neighbors_._fit_method == knn._fit_method
    eknn.predict_proba(Xt[:100])  # warm-up
    knn.predict_proba(Xt[:100])
    times = interleaved(
        {
            "KNeighborsClassifier.predict_proba": lambda: knn.predict_proba(Xt),
            "EvidentialKNNClassifier.predict_proba": lambda: eknn.predict_proba(Xt),
        },
        args.rounds,
    )
    report(
        f"predict_proba, {args.n_train} x 20 training points, {args.n_test} x 20 queries, k = {k}, "
        f"neighbour search '{knn._fit_method}'",
        times,
        "KNeighborsClassifier.predict_proba",
        "EvidentialKNNClassifier.predict_proba",
    )
    # the combination alone (neighbours given): the part the evidential rule adds
    squared, indices = eknn._neighbours(Xt)
    from dstk.classifiers._singleton_support import combine_singleton_supports

    labels = eknn._labels[indices]

    def combination():
        support = eknn.alpha * np.exp(-eknn.gamma_[labels] * squared)
        combine_singleton_supports(support, labels=labels, n_classes=3)

    cpu, wall = time.process_time(), time.perf_counter()
    combination()
    print(
        f"\nclosed-form combination alone ({args.n_test} x {k} neighbours): "
        f"{time.process_time() - cpu:.3f} s CPU ({time.perf_counter() - wall:.3f} s wall)"
    )

    Xs, ys = X[:10_000], y[:10_000]
    times = interleaved(
        {
            "KNeighborsClassifier fit + LOO kneighbors": lambda: (
                KNeighborsClassifier(n_neighbors=k).fit(Xs, ys).kneighbors()
            ),
            "EvidentialKNNClassifier fit (gamma learned)": lambda: EvidentialKNNClassifier(n_neighbors=k).fit(
                Xs, ys
            ),
        },
        max(3, args.rounds // 2),
    )
    report(
        "fit on 10^4 x 20 (gamma learned by L-BFGS-B on the leave-one-out error)",
        times,
        "KNeighborsClassifier fit + LOO kneighbors",
        "EvidentialKNNClassifier fit (gamma learned)",
    )


if __name__ == "__main__":
    main()
