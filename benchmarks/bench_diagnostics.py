"""Benchmark of the diagnostics: scaling to 10^6 predictions, side by side with an anchor.

Every operation is timed at n = 10^4, 10^5 and 10^6 predictions with ``_harness``: BLAS / OpenMP /
numba pinned to one thread on both sides, process CPU time next to wall time.  When an established
implementation exists it is timed INTERLEAVED with dstk in the same run (dstk, anchor, dstk, anchor,
...); the table gives the median CPU times, the CPU ratio anchor / dstk per round (median, IQR, range),
the wall ratio, and dstk's CPU time per prediction, whose constancy across n shows linear scaling (the
last column is the slope of log CPU time against log n between 10^5 and 10^6).  The run's date, command
and load head the table (``--md`` prepends it to a results file).

Anchors: expected_calibration_error vs Kumar et al.'s ``uncertainty-calibration``
(same numbers); corp_decomposition vs scikit-learn's IsotonicRegression plus
the scores; reliability_bands(bins=15) vs scikit-learn's calibration_curve
(no bands); conformal p-values vs crepes (unsmoothed, same numbers).  The
uncertainty measures and the multi-class Venn predictor have no established
counterpart and are timed alone.

Run from the repository root:
python benchmarks/bench_diagnostics.py [--rounds 3] [--max-size 1000000] [--only TEXT] [--md FILE]
"""

import argparse
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _harness import (  # noqa: E402
    comparison,
    environment,
    finish,
    interleaved,
    pinned_threads,
    seconds,
    spread,
)

from dstk import Frame, MassFunction  # noqa: E402
from dstk.calibration import VennMulticlassClassifier, conformal_p_values  # noqa: E402
from dstk.core import (  # noqa: E402
    aggregate_uncertainty,
    discord,
    jirousek_shenoy_entropy,
    nonspecificity,
    strife,
    uncertainty_decomposition,
)
from dstk.metrics import corp_decomposition, expected_calibration_error, reliability_bands  # noqa: E402


def binary_data(n, rng):
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.3).astype(int)
    return y, p


def multiclass_data(n, k, rng):
    P = rng.dirichlet(np.full(k, 0.7), size=n)
    cumulative = np.cumsum(P**1.2 / (P**1.2).sum(axis=1, keepdims=True), axis=1)
    y = np.minimum((rng.uniform(size=(n, 1)) > cumulative).sum(axis=1), k - 1)
    return y, P


def random_masses(n, labels, rng):
    raw = rng.dirichlet(np.full(2**labels - 1, 0.3), size=n)
    return MassFunction.from_array(np.column_stack([np.zeros(n), raw]), Frame(range(labels)), validate=False)


def anchors():
    out = {}
    try:
        from calibration import utils as kumar

        out["kumar"] = kumar
    except ImportError:
        print("uncertainty-calibration not installed: ECE anchors skipped")
    try:
        import crepes

        out["crepes"] = crepes
    except ImportError:
        print("crepes not installed: conformal anchor skipped")
    return out


def cases(rng, extra):
    """(name, builder(n) -> (dstk callable, anchor callable or None))."""
    kumar = extra.get("kumar")
    crepes = extra.get("crepes")

    def ece_binary(n):
        y, p = binary_data(n, rng)
        ours = lambda: expected_calibration_error(y, p, bins=15)  # noqa: E731
        theirs = None
        if kumar is not None:
            theirs = lambda: kumar.lower_bound_scaling_ce(  # noqa: E731
                p, y, p=1, debias=False, num_bins=15, binning_scheme=kumar.get_equal_prob_bins
            )
        return ours, theirs

    def ece_top_label_debiased(n):
        y, P = multiclass_data(n, 10, rng)
        ours = lambda: expected_calibration_error(  # noqa: E731
            y, P, bins=15, strategy="quantile", norm="l2", debias=True
        )
        theirs = None
        if kumar is not None:
            theirs = lambda: kumar.lower_bound_scaling_ce(  # noqa: E731
                P, y, p=2, debias=True, num_bins=15, binning_scheme=kumar.get_equal_bins, mode="top-label"
            )
        return ours, theirs

    def corp(n):
        from sklearn.isotonic import IsotonicRegression

        y, p = binary_data(n, rng)
        p = np.round(p, 4)

        def sklearn_corp():
            fitted = IsotonicRegression().fit(p, y).predict(p)
            s_x, s_c = np.mean((p - y) ** 2), np.mean((fitted - y) ** 2)
            s_r = np.mean((y.mean() - y) ** 2)
            return s_x - s_c, s_r - s_c, s_r

        return (lambda: corp_decomposition(y, p)), sklearn_corp

    def bands_uniform(n):
        from sklearn.calibration import calibration_curve

        y, p = binary_data(n, rng)
        return (lambda: reliability_bands(y, p, bins=15)), (lambda: calibration_curve(y, p, n_bins=15))

    def bands_corp(n):
        y, p = binary_data(n, rng)
        p = np.round(p, 4)
        return (lambda: reliability_bands(y, p)), None

    def conformal(n):
        cal = rng.uniform(size=1000)
        test = rng.uniform(size=(n // 10, 10))  # n candidate predictions
        ours = lambda: conformal_p_values(cal, test)  # noqa: E731
        theirs = None
        if crepes is not None:
            model = crepes.ConformalClassifier().fit(cal)
            theirs = lambda: model.predict_p(test, smoothing=False)  # noqa: E731
        return ours, theirs

    def measure(function, labels):
        def build(n):
            m = random_masses(n, labels, rng)
            return (lambda: function(m)), None

        return build

    def venn(n):
        from sklearn.linear_model import LogisticRegression

        X = rng.normal(size=(3000, 2))
        y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
        clf = VennMulticlassClassifier(LogisticRegression(), random_state=0).fit(X, y)
        X_test = rng.normal(size=(n, 2))

        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return clf.predict_mass(X_test)

        return run, None

    return [
        ("ECE binary L1, 15 uniform bins (Kumar et al.)", ece_binary),
        ("ECE top-label L2 debiased, 10 classes, quantile (Kumar)", ece_top_label_debiased),
        ("CORP decomposition, Brier (sklearn isotonic)", corp),
        ("reliability_bands 15 bins (sklearn calibration_curve)", bands_uniform),
        ("reliability_bands CORP bins, likelihood model", bands_corp),
        ("conformal p-values, 10 classes (crepes)", conformal),
        ("nonspecificity, 3 labels", measure(nonspecificity, 3)),
        ("aggregate uncertainty, 3 labels", measure(aggregate_uncertainty, 3)),
        ("aggregate uncertainty, 6 labels", measure(aggregate_uncertainty, 6)),
        ("Jirousek-Shenoy entropy, 3 labels", measure(jirousek_shenoy_entropy, 3)),
        ("discord, 3 labels", measure(discord, 3)),
        ("strife, 3 labels", measure(strife, 3)),
        ("total = aleatoric + epistemic, 3 labels", measure(uncertainty_decomposition, 3)),
        ("VennMulticlassClassifier.predict_mass, 3 classes", venn),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-size", type=int, default=1_000_000)
    parser.add_argument("--only", default=None, help="run the cases whose name contains this text")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--md", default=None, help="prepend the run to this Markdown file")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    sizes = [n for n in (10_000, 100_000, 1_000_000) if n <= args.max_size]
    extra = anchors()
    lines = ["## Diagnostics: CPU time, interleaved with the anchors", "", *environment(), ""]
    lines += [
        "| operation | n | dstk (CPU) | anchor (CPU) | anchor / dstk, CPU | wall ratio | dstk CPU / prediction |",
        "|---|---:|---:|---:|---|---:|---:|",
    ]
    print("\n".join(lines), flush=True)
    with pinned_threads(1):
        for name, build in cases(rng, extra):
            if args.only and args.only not in name:
                continue
            times_at = {}
            for n in sizes:
                ours, theirs = build(n)
                functions = {"dstk": ours} if theirs is None else {"dstk": ours, "anchor": theirs}
                times = interleaved(functions, args.rounds)  # one untimed call each first (compiles)
                median = float(np.median(times["dstk"]["cpu"]))
                times_at[n] = median
                if theirs is None:
                    ours_text, anchor, cpu_ratio, wall_ratio = spread(times["dstk"]["cpu"]), "-", "-", "-"
                else:
                    cells = comparison(times)
                    ours_text, anchor = cells["ours_cpu"], cells["anchor_cpu"]
                    cpu_ratio, wall_ratio = cells["cpu_ratio"], cells["wall_ratio"]
                lines.append(
                    f"| {name} | {n:.0e} | {ours_text} | {anchor} | {cpu_ratio} | {wall_ratio} "
                    f"| {seconds(median / n)} |"
                )
                print(lines[-1], flush=True)
            if len(sizes) >= 2:
                a, b = sizes[-2], sizes[-1]
                slope = np.log(times_at[b] / times_at[a]) / np.log(b / a)
                lines.append(
                    f"| {name}: slope of log CPU time vs log n ({a:.0e} -> {b:.0e}) | | | | | | {slope:.2f} |"
                )
                print(lines[-1], flush=True)
    finish(lines, args.md, printed=len(lines))


if __name__ == "__main__":
    main()
