"""Benchmark of dstk.evidence._counts: 10^6 count pairs per model in one call.

Usage: python benchmarks/bench_counts.py [--pairs 1000000] [--reference-sample 300] [--rounds 3]

Two count distributions:
  leaf  n uniform in 0..64  (tree leaves, calibration bins: many repeated pairs)
  wide  n uniform in 1..5000 (mostly distinct pairs)
with k uniform in 0..n.  The straightforward scipy references (the likelihood
model by scipy.integrate.quad of the contour per pair, Eqs. 22-23; the
plausibility degrees by scipy.optimize.bisect per pair, as in the RDT-Uncertainty
code, with its rescaling of counts above 537 so that the plain-domain contour does
not underflow) are timed on a random subsample and extrapolated to all pairs.

Timing by ``_harness``: BLAS / OpenMP / numba pinned to one thread, process CPU time (the figure to
quote on a shared machine) next to wall time, dstk and the references in turn round after round (the
speed-up per round, median and range), the run's environment (date, command, load) printed first.
"""

import argparse
import os
import sys
import time

import numpy as np
from scipy import integrate, optimize, special

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness

from dstk.evidence._counts import _BINARY_MODELS as BINARY_MODELS
from dstk.evidence._counts import _binary_mass_array as counts_to_mass_array


def reference_likelihood(k, n):
    if n == 0:
        return 0.0, 0.0
    tau = k / n
    log_max = special.xlogy(k, tau) + special.xlog1py(n - k, -tau)

    def pl(t):
        return np.exp(special.xlogy(k, t) + special.xlog1py(n - k, -t) - log_max)

    left = integrate.quad(pl, 0, tau)[0] if tau > 0 else 0.0
    right = integrate.quad(pl, tau, 1)[0] if tau < 1 else 0.0
    return tau - left, 1 - tau - right


def reference_plausibility(p, q):
    if p + q == 0:
        return 1.0, 1.0
    largest = max(p, q)
    if largest > 537:
        p, q = float(round(p / (largest / 537))), float(round(q / (largest / 537)))
    p_hat = p / (p + q)

    def pl(theta):
        return theta**p * (1 - theta) ** q / (p_hat**p * (1 - p_hat) ** q)

    pi_plus = 2 * optimize.bisect(lambda t: pl(t) - 2 * t + 1, p_hat, 1) - 1 if q > 0 else 1.0
    pi_minus = 1 - 2 * optimize.bisect(lambda t: pl(t) + 2 * t - 1, 0, p_hat) if p > 0 else 1.0
    return pi_plus, pi_minus


def time_call(function, *args, repeat=3, **kwargs):
    """Best of ``repeat`` calls: (CPU seconds, wall seconds)."""
    best_cpu = best_wall = np.inf
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        function(*args, **kwargs)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--reference-sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of dstk and the references")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    distributions = {
        "leaf": rng.integers(0, 65, args.pairs).astype(np.float64),
        "wide": rng.integers(1, 5001, args.pairs).astype(np.float64),
    }
    print("\n".join(_harness.environment()))
    with _harness.pinned_threads(1):
        # warm up (numba compilation / cache load)
        for model in BINARY_MODELS:
            counts_to_mass_array(np.array([1.0, 2.0]), np.array([3.0, 4.0]), model)
        print(
            f"\n{args.pairs:,} count pairs per call; dstk and the references timed in turn, {args.rounds} rounds: "
            "median process CPU time, median wall time in brackets; speed-up = reference / dstk CPU per round, "
            "median (min-max)\n"
        )
        print(f"{'distribution':<13}{'model':<22}{'dstk [s]':>18}{'reference [s]':>22}{'speed-up, CPU':>24}")
        for name, n in distributions.items():
            k = np.floor(rng.random(args.pairs) * (n + 1))
            sample = rng.choice(args.pairs, args.reference_sample, replace=False)
            scale = args.pairs / sample.size
            references = {
                "likelihood": lambda i: reference_likelihood(k[i], n[i]),
                "plausibility": lambda i: reference_plausibility(k[i], n[i] - k[i]),
            }
            for model in BINARY_MODELS:  # one untimed call on the whole input (as the former best of 3)
                counts_to_mass_array(k, n if model != "bayes" else np.maximum(n, 1), model)
            times = {}  # (side, model) -> [(cpu, wall) per round]
            for _ in range(args.rounds):
                for model in BINARY_MODELS:
                    kk, nn = (k, n) if model != "bayes" else (k, np.maximum(n, 1))
                    times.setdefault(("dstk", model), []).append(
                        time_call(counts_to_mass_array, kk, nn, model, repeat=1)
                    )
                    if model in references:
                        cpu, wall = time.process_time(), time.perf_counter()
                        for i in sample:
                            references[model](i)
                        times.setdefault(("reference", model), []).append(
                            ((time.process_time() - cpu) * scale, (time.perf_counter() - wall) * scale)
                        )
            for model in BINARY_MODELS:
                ours = np.array(times[("dstk", model)])
                mine = f"{np.median(ours[:, 0]):.3f} ({np.median(ours[:, 1]):.3f})"
                if model in references:
                    theirs = np.array(times[("reference", model)])
                    speed_up = theirs[:, 0] / ours[:, 0]
                    print(
                        f"{name:<13}{model:<22}{mine:>18}"
                        f"{f'{np.median(theirs[:, 0]):.1f} ({np.median(theirs[:, 1]):.1f})':>22}"
                        f"{f'{np.median(speed_up):.0f}x ({speed_up.min():.0f}-{speed_up.max():.0f})':>24}"
                    )
                else:
                    print(f"{name:<13}{model:<22}{mine:>18}{'-':>22}{'-':>24}")
    print("\nReference times are extrapolated from", args.reference_sample, "pairs per distribution.")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
