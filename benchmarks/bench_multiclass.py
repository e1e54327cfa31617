"""Benchmark: coupling and Dirichlet calibration on 10^5 samples x 10 classes.

Target (issue 7): under one second each for 10^5 samples and K = 10.

Usage::

    python benchmarks/bench_multiclass.py [--samples 100000] [--classes 10] [--repeat 3]

Prints the best wall time and the best process CPU time (all threads) of ``--repeat`` runs (after one warm-up run that
compiles the numba kernels) for

* coupling of one-against-rest rates (exact KL minimiser),
* coupling of all-pairs rates (Hastie-Tibshirani / Bradley-Terry, SQUAREM),
* coupling with Zadrozny's update on all-pairs rates,
* Dirichlet calibration ``predict_proba`` (geometric mean, one-against-rest),
* Dirichlet calibration ``fit`` on 2,000 samples (grid search over m),

and, as a reference point, scikit-learn-free plain numpy softmax on the same
array.  The machine's load is printed too: timings on a shared 2-core box
vary with what else runs.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dstk.calibration.probabilistic._normalization import softmax
from dstk.multiclass import DirichletCalibrator, all_pairs_code, couple_probabilities, one_vs_rest_code


def best_time(fn, repeat):
    """Best wall time and best process CPU time (all threads) of ``repeat`` runs after a warm-up."""
    fn()  # warm-up (numba compilation, caches)
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


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
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    N, K = args.samples, args.classes
    rng = np.random.RandomState(0)
    p = rng.dirichlet(np.ones(K), size=N)
    print(f"N = {N}, K = {K}, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")

    rows = []
    ovr = one_vs_rest_code(K)
    r_ovr = consistent_rates(p, ovr, 0.05, rng)
    rows.append(
        ("coupling one-vs-rest (exact KL)", best_time(lambda: couple_probabilities(r_ovr, ovr), args.repeat))
    )
    pairs = all_pairs_code(K)
    r_pairs = consistent_rates(p, pairs, 0.05, rng)
    rows.append(
        (
            f"coupling all-pairs B={pairs.shape[1]} (Bradley-Terry)",
            best_time(lambda: couple_probabilities(r_pairs, pairs), args.repeat),
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows.append(
            (
                f"coupling all-pairs B={pairs.shape[1]} (Zadrozny)",
                best_time(lambda: couple_probabilities(r_pairs, pairs, method="zadrozny"), args.repeat),
            )
        )
    res = couple_probabilities(r_pairs, pairs)
    print(
        f"all-pairs coupling: converged {res.converged.mean():.4f}, mean iterations {res.n_iter.mean():.1f}"
    )

    y = np.array([rng.choice(K, p=row) for row in p[:2000]])
    scores = 2 * r_ovr - 1
    cal = DirichletCalibrator().fit(scores[:2000], y)
    rows.append(
        ("Dirichlet predict_proba (g-mean, OvR)", best_time(lambda: cal.predict_proba(scores), args.repeat))
    )
    rows.append(
        (
            "Dirichlet fit on 2,000 samples (200-point m grid)",
            best_time(lambda: DirichletCalibrator().fit(scores[:2000], y), 1),
        )
    )
    rows.append(("numpy softmax (reference)", best_time(lambda: softmax(scores), args.repeat)))

    width = max(len(name) for name, _ in rows)
    print(f"{'operation':<{width}}  wall s  CPU s (all threads)")
    for name, (wall, cpu) in rows:
        flag = "" if wall < 1.0 else "  (wall over 1 s)"
        print(f"{name:<{width}}  {wall:6.3f}  {cpu:6.3f}{flag}")
    print(f"load average after the runs {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
