"""Benchmark of the calibration layer against its anchors, interleaved in one run.

Timing by ``_harness``: BLAS / OpenMP / numba pinned to one thread on both sides, dstk and the anchor
timed alternately round after round, process CPU time next to wall time; the table gives the median
CPU time of each side and the per-round ratio dstk / anchor (< 1: dstk faster) on CPU time, median with
IQR and range, with the median wall-time ratio beside it (under load the wall time measures the load).

1. ``LogisticCalibrator(model="likelihood")`` fit versus scikit-learn's Platt fit
   (``sklearn.calibration._SigmoidCalibration().fit``, the fit inside ``CalibratedClassifierCV(method=
   "sigmoid")``) on the same scores, 10^3 .. 10^6.
2. ``EvidentialCalibratedClassifier(LogisticRegression(), cv=5)`` versus
   ``CalibratedClassifierCV(LogisticRegression(), method="sigmoid", cv=5)`` on 20,000 x 20.
3. ``LogisticCalibrator`` predict (Clenshaw sum of the truncated Chebyshev series) versus the previous
   predict (barycentric formula on 64 Chebyshev points, the kernel of dstk 0.1, copied here) and
   scikit-learn's sigmoid ``predict``, at 10^5 and 10^6 scores.
4. ``VennAbersCalibrator.fit`` versus the ``venn-abers`` package (``VennAbers.fit``) at 10^4 .. 10^6
   calibration points (the same p0, p1 are checked).
5. ``IsotonicCalibrator`` and ``IsotonicRegressionCalibrator`` predictions versus scikit-learn's
   ``IsotonicRegression.predict`` at 10^6 scores.
6. ``from_counts`` with the ``confidence_interval`` model versus the ``likelihood`` model, 10^5 counts.

Accuracy: the likelihood masses of the fast path (compressed data, interpolant) against the exact
computation on the uncompressed data at 50k calibration scores.

Run from the repository root:  python benchmarks/bench_calibration.py [--quick] [--output FILE]
"""

import argparse
import os
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness

from dstk._kernels import calibration as _calibration_kernels
from dstk.calibration import (
    EvidentialCalibratedClassifier,
    IsotonicCalibrator,
    LogisticCalibrator,
    VennAbersCalibrator,
)
from dstk.calibration.probabilistic import IsotonicRegressionCalibrator
from dstk.evidence import from_counts

# the warm rows time the compiled kernels: a process with an empty numba cache runs the profile-table
# kernels of the likelihood fit interpreted for about 2 s (their decorators' interpreted_budget) first
for _kernel in (_calibration_kernels.logistic_profile_grid, _calibration_kernels.logistic_grid_masses):
    _kernel.interpreted_budget = 0.0

ROWS = []


def interleaved(dstk_call, anchor_call, repeat):
    """Per-round CPU and wall times of both sides, timed alternately (``_harness.interleaved``)."""
    times = _harness.interleaved({"dstk": dstk_call, "anchor": anchor_call}, repeat)
    return times["dstk"], times["anchor"]


def record(task, size, anchor, ours, theirs, note=""):
    """One row: median CPU times, the CPU ratio dstk / anchor (median, IQR, range), the wall ratio."""
    _, cpu_text = _harness.ratio(ours["cpu"], theirs["cpu"])
    wall, _ = _harness.ratio(ours["wall"], theirs["wall"])
    row = (
        task,
        size,
        _harness.seconds(float(np.median(ours["cpu"]))),
        anchor,
        _harness.seconds(float(np.median(theirs["cpu"]))),
        cpu_text,
        f"{wall:.2f}×",
        note,
    )
    ROWS.append(row)
    print(" | ".join(row), flush=True)


@njit(cache=False)
def _previous_barycentric(t, nodes, values):
    # the interpolation kernel of dstk 0.1 (first-kind Chebyshev points, barycentric formula)
    n = nodes.shape[0]
    k = values.shape[1]
    out = np.empty((t.shape[0], k))
    bary = np.empty(n)
    for j in range(n):
        sign = 1.0 if j % 2 == 0 else -1.0
        bary[j] = sign * np.sin((2.0 * j + 1.0) * np.pi / (2.0 * n))
    for i in range(t.shape[0]):
        x = t[i]
        denominator = 0.0
        for c in range(k):
            out[i, c] = 0.0
        for j in range(n):
            factor = bary[j] / (x - nodes[j])
            denominator += factor
            for c in range(k):
                out[i, c] += factor * values[j, c]
        for c in range(k):
            out[i, c] /= denominator
    return out


def _logistic_data(rng, n):
    y = rng.integers(0, 2, n)
    return rng.normal(1.2 * y - 0.6, 1.0), y


def _grid_note(calibrator):
    grid = calibrator._logistic.profile_grid()
    if grid is None:
        return "masses one by one (no profile grid)"
    rows, n_xi = grid[0].shape  # 2 P coefficient rows: P directions in [0, pi), a series over the circle
    return f"profile grid {rows // 2} x {n_xi} (directions x xi)"


def bench_logistic_fit(rng, sizes, repeat):
    from sklearn.calibration import _SigmoidCalibration

    for n in sizes:
        scores, y = _logistic_data(rng, n)
        holder = {}

        def ours(scores=scores, y=y):
            holder["calibrator"] = LogisticCalibrator(model="likelihood").fit(scores, y)

        def theirs(scores=scores, y=y):
            _SigmoidCalibration().fit(scores, y)

        a, b = interleaved(ours, theirs, repeat)
        calibrator = holder["calibrator"]
        record(
            'LogisticCalibrator(model="likelihood").fit',
            f"{n:,}",
            "sklearn `_SigmoidCalibration().fit`",
            a,
            b,
            f"degree {calibrator.interpolation_degree_}, {calibrator._logistic.n_nodes} Gauss nodes, "
            + _grid_note(calibrator),
        )


def bench_meta_estimator(repeat):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(20_000, 20, random_state=0)
    a, b = interleaved(
        lambda: EvidentialCalibratedClassifier(LogisticRegression(), cv=5).fit(X, y),
        lambda: CalibratedClassifierCV(LogisticRegression(), method="sigmoid", cv=5).fit(X, y),
        repeat,
    )
    record(
        "EvidentialCalibratedClassifier(LogisticRegression(), cv=5).fit",
        "20,000 x 20",
        "CalibratedClassifierCV(LogisticRegression(), cv=5)",
        a,
        b,
    )


def bench_logistic_predict(rng, sizes, repeat):
    from sklearn.calibration import _SigmoidCalibration

    scores, y = _logistic_data(rng, 5_000)
    calibrator = LogisticCalibrator(model="likelihood").fit(scores, y)
    sigmoid = _SigmoidCalibration().fit(scores, y)
    fit = calibrator._logistic
    nodes = np.cos((2.0 * np.arange(64) + 1.0) * np.pi / 128.0)
    values = np.ascontiguousarray(fit.predictive_masses(np.tan(0.5 * np.pi * nodes))[:, 1:3])
    for n in sizes:
        test = rng.normal(0.0, 1.5, n)

        def previous(test=test):
            # dstk 0.1: standardise, map to t, barycentric on 64 points, assemble the (n, 4) masses
            t = (2.0 / np.pi) * np.arctan(fit.standardize(test))
            interpolated = _previous_barycentric(t, nodes, values)
            out = np.zeros((n, 4))
            out[:, 1:3] = interpolated
            out[:, 3] = 1.0 - interpolated.sum(axis=1)
            return out

        a, b = interleaved(lambda test=test: calibrator._predict_mass_array(test), previous, repeat)
        record(
            "LogisticCalibrator(likelihood) predict masses",
            f"{n:,}",
            "dstk 0.1 interpolant (64 points)",
            a,
            b,
            f"{calibrator._chebyshev_coefficients.shape[0]} Chebyshev terms",
        )
        a, b = interleaved(
            lambda test=test: calibrator.predict_proba(test), lambda test=test: sigmoid.predict(test), repeat
        )
        record("LogisticCalibrator(likelihood).predict_proba", f"{n:,}", "sklearn sigmoid predict", a, b)


def bench_venn_abers(rng, sizes, repeat, million):
    from venn_abers import VennAbers

    for n in sizes:
        if n >= 1_000_000 and not million:
            continue
        p = rng.random(n)
        y = (rng.random(n) < p).astype(int)
        pair = np.column_stack([1.0 - p, p])
        holder = {}

        def ours(p=p, y=y):
            holder["ours"] = VennAbersCalibrator().fit(p, y)

        def theirs(pair=pair, y=y):
            holder["theirs"] = VennAbers()
            holder["theirs"].fit(pair, y)

        a, b = interleaved(ours, theirs, 1 if n >= 1_000_000 else repeat)
        test = rng.random(2_000)
        _, p0_p1 = holder["theirs"].predict_proba(np.column_stack([1.0 - test, test]))
        bel, pl = holder["ours"].predict_interval(test)
        difference = np.abs(np.column_stack([bel, pl]) - p0_p1).max()
        record(
            "VennAbersCalibrator.fit",
            f"{n:,}",
            "venn-abers VennAbers.fit",
            a,
            b,
            f"max |p - p_va| {difference:.1e}",
        )


def bench_isotonic_predict(rng, repeat):
    from sklearn.isotonic import IsotonicRegression

    scores, y = _logistic_data(rng, 1_000)
    queries = rng.normal(0.0, 1.5, 1_000_000)
    sk = IsotonicRegression(out_of_bounds="clip").fit(scores, y)
    evidential = IsotonicCalibrator(model="likelihood").fit(scores, y)
    probabilistic = IsotonicRegressionCalibrator().fit(scores, y)
    for name, call in [
        ("IsotonicRegressionCalibrator.predict", lambda: probabilistic.predict(queries)),
        ("IsotonicRegressionCalibrator.predict_proba", lambda: probabilistic.predict_proba(queries)),
        ("IsotonicCalibrator(likelihood).predict_proba", lambda: evidential.predict_proba(queries)),
        ("IsotonicCalibrator(likelihood) masses", lambda: evidential._predict_mass_array(queries)),
    ]:
        a, b = interleaved(call, lambda: sk.predict(queries), repeat)
        record(name, "1,000,000", "IsotonicRegression.predict", a, b)


def bench_counts(rng, repeat):
    n = rng.integers(1, 30, 100_000)
    k = rng.binomial(n, 0.3)
    counts = np.column_stack([n - k, k]).astype(np.float64)  # [n_negative, n_positive]
    from dstk.evidence import COUNT_MODELS

    for other in COUNT_MODELS:
        if other == "confidence_interval":
            continue
        a, b = interleaved(
            lambda: from_counts(counts, model="confidence_interval"),
            lambda other=other: from_counts(counts, model=other),
            repeat,
        )
        record('from_counts(model="confidence_interval")', "100,000", f'from_counts(model="{other}")', a, b)


def accuracy_check(rng):
    from dstk._kernels.calibration import logistic_profile_masses

    scores, y = _logistic_data(rng, 50_000)
    calibrator = LogisticCalibrator(model="likelihood").fit(scores, y)
    fit = calibrator._logistic
    test = np.concatenate([np.linspace(-4.0, 4.0, 9), [-30.0, 30.0]])
    z = fit.standardize(test)
    start = time.perf_counter()
    exact = logistic_profile_masses(
        z,
        fit._z,
        fit._targets,
        fit._weight,
        fit.alpha,
        fit.alpha_covariance,
        fit.max_log_likelihood,
        np.zeros((z.size, 4)),
        np.empty(fit._z.size),
    )
    exact_time = (time.perf_counter() - start) / test.size
    fast = calibrator._predict_mass_array(test)
    compressed = calibrator.predict_mass_exact(test)
    line = (
        f"Accuracy at 50,000 calibration scores, {test.size} test scores: max |compressed exact - uncompressed "
        f"exact| = {np.abs(compressed - exact).max():.1e}, max |interpolant - uncompressed exact| = "
        f"{np.abs(fast - exact).max():.1e} (uncompressed exact: {exact_time * 1e3:.0f} ms per test score)."
    )
    print(line)
    return line


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    parser.add_argument(
        "--venn-abers-million", action="store_true", help="also 10^6 points (venn-abers ~2 min)"
    )
    parser.add_argument("--output", default=None, help="write the markdown table to this file")
    parser.add_argument(
        "--only",
        default="logistic,meta,predict,venn_abers,isotonic,counts,accuracy",
        help="comma-separated parts among logistic,meta,predict,venn_abers,isotonic,counts,accuracy",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 7, --quick 3)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    repeat = args.rounds or (3 if args.quick else 7)
    only = set(args.only.split(","))
    import sklearn  # noqa: F401  (its version in the header)

    header = _harness.environment(["benchmarks/bench_calibration.py", *(argv or sys.argv[1:])])
    with _harness.pinned_threads(1):
        if "logistic" in only:
            sizes = (1_000, 10_000, 100_000) if args.quick else (1_000, 10_000, 100_000, 1_000_000)
            bench_logistic_fit(rng, sizes, repeat)
        if "meta" in only:
            bench_meta_estimator(3 if args.quick else 5)
        if "predict" in only:
            bench_logistic_predict(rng, (100_000, 1_000_000), repeat)
        if "venn_abers" in only:
            bench_venn_abers(rng, (10_000, 100_000, 1_000_000), 3, args.venn_abers_million)
        if "isotonic" in only:
            bench_isotonic_predict(rng, repeat)
        if "counts" in only:
            bench_counts(rng, repeat)
        accuracy = accuracy_check(rng) if "accuracy" in only else ""
    lines = [
        "# Calibration benchmark (`benchmarks/bench_calibration.py`)",
        "",
        *header,
        f"- load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        "",
        "Ratio = dstk / anchor per interleaved round (< 1: dstk faster), on process CPU time: median "
        "(IQR, range); the wall-time ratio (median) beside it.",
        "",
        "| task | size | dstk (CPU) | anchor | anchor (CPU) | dstk / anchor, CPU | wall ratio | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in ROWS]
    lines += ["", accuracy, ""]
    text = "\n".join(lines)
    if args.output:
        previous = ""
        if os.path.exists(args.output):  # newest run first, earlier runs kept below
            with open(args.output) as handle:
                previous = handle.read()
            previous = previous.replace("\n## Earlier runs\n", "\n", 1).replace("# ", "### ", 1)
            previous = "\n## Earlier runs\n\n" + previous
        with open(args.output, "w") as handle:
            handle.write(text + previous)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
