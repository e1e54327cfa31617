"""Benchmark of the calibration layer (issue 4).

1. ``LogisticCalibrator(model="likelihood")``: fit on 1,000 calibration scores,
   predict 10^5 test scores; compared with the straightforward reference (per
   score: profile by Brent's 1-D maximisation over theta_1 and
   ``scipy.integrate.quad`` on both sides of tau_hat,
   ``tests/calibration/reference.py``), timed on a subsample and extrapolated
   to 10^5 scores; masses must agree to 1e-6 on that subsample.
2. ``BinningCalibrator`` / ``IsotonicCalibrator`` predict versus scikit-learn's
   ``IsotonicRegression.predict`` on the same 10^5 (and 10^6) scores.

Run from the repository root:  python benchmarks/bench_calibration.py [--reference-scores 20]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dstk.calibration import BinningCalibrator, IsotonicCalibrator, LogisticCalibrator
from tests.calibration.reference import reference_masses


def best_of(function, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reference-scores",
        type=int,
        default=20,
        help="test scores given to the slow reference (its time is extrapolated)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    n_cal, n_test = 1000, 100_000
    y = rng.integers(0, 2, n_cal)
    scores = rng.normal(1.2 * y - 0.6, 1.0)
    test = rng.normal(0.0, 1.5, n_test)

    print("1. LogisticCalibrator(model='likelihood'): fit on 1,000, predict 10^5 scores")
    start = time.perf_counter()
    calibrator = LogisticCalibrator(model="likelihood").fit(scores, y)  # includes numba compilation
    first_fit = time.perf_counter() - start
    fit_time, calibrator = best_of(lambda: LogisticCalibrator(model="likelihood").fit(scores, y), repeat=1)
    calibrator._predict_mass_array(test[:10])  # compile the interpolation kernel
    predict_time, masses = best_of(lambda: calibrator._predict_mass_array(test))
    print(
        f"   fit: {fit_time:.2f} s (first call with compilation {first_fit:.2f} s); "
        f"Chebyshev nodes: {calibrator.interpolation_degree_}"
    )
    print(f"   predict 10^5 scores: {predict_time * 1e3:.1f} ms ({predict_time / n_test * 1e6:.2f} us/score)")
    subsample = test[: args.reference_scores]
    start = time.perf_counter()
    reference = np.array(
        [
            reference_masses(
                s,
                calibrator._scores,
                calibrator._targets,
                calibrator.theta_,
                calibrator.max_log_likelihood_,
                calibrator.covariance_,
            )
            for s in subsample
        ]
    )
    reference_per_score = (time.perf_counter() - start) / subsample.size
    reference_total = reference_per_score * n_test
    difference = np.abs(reference - masses[: subsample.size]).max()
    exact_time, exact = best_of(lambda: calibrator.predict_mass_exact(subsample), repeat=1)
    print(
        f"   reference: {reference_per_score:.3f} s/score -> {reference_total:.0f} s for 10^5 (extrapolated "
        f"from {subsample.size} scores)"
    )
    print(
        f"   speed-up of predict: {reference_total / predict_time:,.0f}x (target >= 1000x); "
        f"speed-up including fit: {reference_total / (predict_time + fit_time):,.0f}x"
    )
    print(
        f"   exact kernel (no interpolation): {exact_time / subsample.size * 1e3:.2f} ms/score "
        f"({reference_per_score / (exact_time / subsample.size):,.0f}x the reference)"
    )
    print(
        f"   max |masses - reference| on the subsample: {difference:.2e} (target <= 1e-6); "
        f"exact kernel vs reference: {np.abs(reference - exact).max():.2e}"
    )

    from sklearn.isotonic import IsotonicRegression

    print("2. predict speed versus scikit-learn IsotonicRegression.predict")
    for size in (100_000, 1_000_000):
        queries = rng.normal(0.0, 1.5, size)
        sk = IsotonicRegression(out_of_bounds="clip").fit(scores, y)
        sk_time, _ = best_of(lambda: sk.predict(queries))
        iso = IsotonicCalibrator(model="likelihood").fit(scores, y)
        iso_time, _ = best_of(lambda: iso._predict_mass_array(queries))
        iso_interval, _ = best_of(lambda: iso.predict_interval(queries))
        binning = BinningCalibrator(bins=10, model="likelihood").fit(scores, y)
        bin_time, _ = best_of(lambda: binning._predict_mass_array(queries))
        print(
            f"   {size:>9,} scores: sklearn {sk_time * 1e3:7.1f} ms | isotonic masses {iso_time * 1e3:7.1f} ms "
            f"({sk_time / iso_time:.1f}x), interval {iso_interval * 1e3:7.1f} ms | binning masses "
            f"{bin_time * 1e3:7.1f} ms ({sk_time / bin_time:.1f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
