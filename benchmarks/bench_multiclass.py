"""Benchmark: coupling and Dirichlet calibration on 10^5 samples x 10 classes.

Target (issue 7): under one second each for 10^5 samples and K = 10.

Usage::

    python benchmarks/bench_multiclass.py [--samples 100000] [--classes 10] [--repeat 3] [--threads 1]
        [--md benchmarks/results/multiclass.md]

Times with ``_harness``, in ``--repeat`` rounds after a warm-up call that compiles the numba kernels,
every operation once per round in turn (so that all see the same load), BLAS / OpenMP / numba pinned to
``--threads`` threads (1 by default; the coupling kernel runs rows in parallel over numba's threads and
Dirichlet's special functions over two Python threads, so ``--threads 2`` is the row about threads), and
prints the median process CPU time (all threads) and wall time with their IQR for

* coupling of one-against-rest rates (exact KL minimiser),
* coupling of all-pairs rates (Hastie-Tibshirani / Bradley-Terry, SQUAREM),
* coupling with Zadrozny's update on all-pairs rates,
* Dirichlet calibration ``predict_proba`` (geometric mean, one-against-rest),
* Dirichlet calibration ``fit`` on 2,000 samples (grid search over m),

and, as a reference point, scikit-learn-free plain numpy softmax on the same
array.  The run's date, command and load are printed (and prepended to ``--md``): on a shared
2-core box the wall time measures the load, the CPU time the work.
"""

import argparse
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _harness import environment, finish, interleaved, pinned_threads, spread  # noqa: E402

from dstk.calibration.probabilistic._normalization import softmax  # noqa: E402
from dstk.multiclass import (  # noqa: E402
    DirichletCalibrator,
    all_pairs_code,
    couple_probabilities,
    one_vs_rest_code,
)


def consistent_rates(p, code, noise, rng):
    pos = (code == 1).astype(float)
    both = (code != 0).astype(float)
    r = (p @ pos) / (p @ both)
    return np.clip(r + rng.normal(0, noise, r.shape), 0.01, 0.99)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds")
    parser.add_argument("--threads", type=int, default=1, help="BLAS / OpenMP / numba threads")
    parser.add_argument("--md", default=None, help="prepend the run to this Markdown file")
    args = parser.parse_args(argv)
    N, K = args.samples, args.classes
    rng = np.random.RandomState(0)
    p = rng.dirichlet(np.ones(K), size=N)
    ovr = one_vs_rest_code(K)
    r_ovr = consistent_rates(p, ovr, 0.05, rng)
    pairs = all_pairs_code(K)
    r_pairs = consistent_rates(p, pairs, 0.05, rng)
    y = np.array([rng.choice(K, p=row) for row in p[:2000]])
    scores = 2 * r_ovr - 1
    cal = DirichletCalibrator().fit(scores[:2000], y)

    def zadrozny():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            couple_probabilities(r_pairs, pairs, method="zadrozny")

    rows = {
        "coupling one-vs-rest (exact KL)": lambda: couple_probabilities(r_ovr, ovr),
        f"coupling all-pairs, {pairs.shape[1]} tasks (Bradley-Terry)": lambda: couple_probabilities(
            r_pairs, pairs
        ),
        f"coupling all-pairs, {pairs.shape[1]} tasks (Zadrozny)": zadrozny,
        "Dirichlet predict_proba (g-mean, OvR)": lambda: cal.predict_proba(scores),
        "Dirichlet fit on 2,000 samples (200-point m grid)": lambda: DirichletCalibrator().fit(
            scores[:2000], y
        ),
        "numpy softmax (reference)": lambda: softmax(scores),
    }
    lines = [f"## {N:,} samples x {K} classes, {args.threads} thread(s)", "", *environment()]
    with pinned_threads(args.threads):
        res = couple_probabilities(r_pairs, pairs)
        times = interleaved(rows, args.repeat)
    lines += [
        f"- all-pairs coupling: converged {res.converged.mean():.4f}, mean iterations {res.n_iter.mean():.1f}",
        f"- {args.repeat} rounds, every operation once per round in turn; medians (IQR); target: under 1 s",
        "",
        "| operation | CPU, all threads | wall |",
        "|---|---|---|",
    ]
    for name, measured in times.items():
        lines.append(f"| {name} | {spread(measured['cpu'])} | {spread(measured['wall'])} |")
    finish(lines, args.md)


if __name__ == "__main__":
    main()
