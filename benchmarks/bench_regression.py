"""EvidentialRegressor (ENNreg) against tuned MLPRegressor / GradientBoostingRegressor: RMSE and intervals.

For each data set (scikit-learn's diabetes; ``make_friedman1`` with 1,000 samples and unit noise) and
each of ``--repeats`` random 70/30 train/test splits:

* accuracy: test RMSE of ENNreg with its defaults (``fit_scales="auto"``: the setting of the scales
  chosen on an internal 80/20 split, its validation RMSE with trained / held scales shown), ENNreg tuned by 3-fold grid search on the training
  part, and the tuned baselines (``StandardScaler + MLPRegressor`` and ``GradientBoostingRegressor``,
  3-fold grid search on the training part); the paired differences ENNreg - baseline over the splits
  with their standard errors;
* intervals at ``--level``: the coverage on the test part and the mean width of ENNreg's belief and
  probabilistic prediction intervals, and of split-conformal intervals of each tuned baseline (refitted
  on 75 % of the training part, the absolute residuals of the other 25 % giving the half-width, the
  ``ceil((n + 1) level)``-th smallest); the interval score (Gneiting & Raftery 2007, Eq. (43)).

CPU time (process time of this single-threaded process; BLAS pinned to one thread) of each fit is
reported next to the results, with its wall time beside it.  Results: ``benchmarks/results/regression.md``.

Usage::

    python benchmarks/bench_regression.py [--repeats 4] [--level 0.9] [--out benchmarks/results/regression.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from sklearn.datasets import load_diabetes, make_friedman1  # noqa: E402
from sklearn.ensemble import GradientBoostingRegressor  # noqa: E402
from sklearn.model_selection import GridSearchCV, train_test_split  # noqa: E402
from sklearn.neural_network import MLPRegressor  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from dstk.classifiers import EvidentialRegressor  # noqa: E402
from dstk.metrics import interval_coverage, interval_score, interval_width  # noqa: E402


def datasets():
    X, y = load_diabetes(return_X_y=True)
    yield "diabetes (442 x 10)", X, y
    X, y = make_friedman1(n_samples=1000, n_features=10, noise=1.0, random_state=0)
    yield "friedman1 (1000 x 10, noise 1)", X, y


def ennreg_default(seed):
    return EvidentialRegressor(random_state=seed)


def ennreg_tuned(seed):
    grid = {
        "n_prototypes": [10, 30],
        "precision_penalty": [1e-2, 1e-1],
        "fit_scales": [False, True],
    }
    return GridSearchCV(
        EvidentialRegressor(random_state=seed), grid, cv=3, scoring="neg_root_mean_squared_error"
    )


def mlp_tuned(seed):
    grid = {
        "mlpregressor__hidden_layer_sizes": [(50,), (100,), (50, 50)],
        "mlpregressor__alpha": [1e-4, 1e-2, 1.0],
    }
    model = make_pipeline(
        StandardScaler(),
        MLPRegressor(max_iter=3000, early_stopping=False, learning_rate_init=1e-3, random_state=seed),
    )
    return GridSearchCV(model, grid, cv=3, scoring="neg_root_mean_squared_error")


def gbr_tuned(seed):
    grid = {"n_estimators": [100, 300], "max_depth": [2, 3], "learning_rate": [0.05, 0.1]}
    return GridSearchCV(
        GradientBoostingRegressor(subsample=1.0, random_state=seed),
        grid,
        cv=3,
        scoring="neg_root_mean_squared_error",
    )


def conformal_interval(factory, params, X_train, y_train, X_test, level, seed):
    """Split-conformal interval: fit on 75 % of the training part, calibrate on the rest."""
    X_fit, X_cal, y_fit, y_cal = train_test_split(X_train, y_train, test_size=0.25, random_state=seed)
    model = factory(seed).estimator.set_params(**params).fit(X_fit, y_fit)
    residuals = np.sort(np.abs(y_cal - model.predict(X_cal)))
    rank = int(np.ceil((residuals.size + 1) * level))
    half = residuals[min(rank, residuals.size) - 1] if rank <= residuals.size else np.inf
    centre = model.predict(X_test)
    return centre - half, centre + half


def timed(function):
    """``function()`` and the (CPU, wall) seconds it took."""
    start, wall = time.process_time(), time.perf_counter()
    out = function()
    return out, (time.process_time() - start, time.perf_counter() - wall)


def rmse(y, prediction):
    return float(np.sqrt(np.mean((y - prediction) ** 2)))


def run(repeats, level, only=None):
    alpha = 1.0 - level
    results = {}
    for name, X, y in datasets():
        if only and name.split()[0] not in only:
            continue
        rows = {}
        for split in range(repeats):
            X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=split)

            def record(model_name, key, value, split=split):
                rows.setdefault(model_name, {}).setdefault(key, [None] * repeats)[split] = value

            default, seconds = timed(lambda: ennreg_default(split).fit(X_train, y_train))
            record("ENNreg (defaults)", "rmse", rmse(y_test, default.predict(X_test)))
            record("ENNreg (defaults)", "cpu", seconds[0])
            record("ENNreg (defaults)", "wall", seconds[1])
            record(
                "ENNreg (defaults)",
                "params",
                f"fit_scales_={default.fit_scales_} (validation RMSE "
                + "/".join(f"{v:.3g}" for v in default.validation_rmse_)
                + ")",
            )
            for kind in ("belief", "probabilistic"):
                lower, upper = default.predict_interval(X_test, level=level, kind=kind)
                label = f"ENNreg (defaults), {kind}"
                record(label, "coverage", interval_coverage(lower, upper, y_test))
                record(label, "width", interval_width(lower, upper))
                record(label, "score", interval_score(lower, upper, y_test, alpha=alpha))
            tuned, seconds = timed(lambda: ennreg_tuned(split).fit(X_train, y_train))
            record("ENNreg (tuned)", "rmse", rmse(y_test, tuned.predict(X_test)))
            record("ENNreg (tuned)", "cpu", seconds[0])
            record("ENNreg (tuned)", "wall", seconds[1])
            record("ENNreg (tuned)", "params", str(tuned.best_params_))
            for kind in ("belief", "probabilistic"):
                lower, upper = tuned.best_estimator_.predict_interval(X_test, level=level, kind=kind)
                label = f"ENNreg (tuned), {kind}"
                record(label, "coverage", interval_coverage(lower, upper, y_test))
                record(label, "width", interval_width(lower, upper))
                record(label, "score", interval_score(lower, upper, y_test, alpha=alpha))
            for baseline, factory in (
                ("MLPRegressor (tuned)", mlp_tuned),
                ("GradientBoosting (tuned)", gbr_tuned),
            ):
                model, seconds = timed(lambda factory=factory: factory(split).fit(X_train, y_train))
                record(baseline, "rmse", rmse(y_test, model.predict(X_test)))
                record(baseline, "cpu", seconds[0])
                record(baseline, "wall", seconds[1])
                record(baseline, "params", str(model.best_params_))
                lower, upper = conformal_interval(
                    factory, model.best_params_, X_train, y_train, X_test, level, split
                )
                label = f"{baseline}, split conformal"
                record(label, "coverage", interval_coverage(lower, upper, y_test))
                record(label, "width", interval_width(lower, upper))
                record(label, "score", interval_score(lower, upper, y_test, alpha=alpha))
            print(
                name,
                split,
                {k: v.get("rmse", [None])[split] for k, v in rows.items() if "rmse" in v},
                flush=True,
            )
        results[name] = rows
    return results


def mean_se(values):
    values = np.asarray(values, dtype=float)
    return values.mean(), values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else np.nan


def report(results, repeats, level):
    lines = []
    for name, rows in results.items():
        lines.append(f"## {name}: {repeats} random 70/30 splits\n")
        lines.append("| model | test RMSE (mean ± SE) | fit CPU s (mean) | fit wall s (mean) |")
        lines.append("|---|---|---|---|")
        for model, row in rows.items():
            if "rmse" in row:
                m, se = mean_se(row["rmse"])
                lines.append(
                    f"| {model} | {m:.3f} ± {se:.3f} | {np.mean(row['cpu']):.1f} | {np.mean(row['wall']):.1f} |"
                )
        lines.append("")
        lines.append(
            "Paired differences of test RMSE over the splits (ENNreg - baseline; ratio = mean ENNreg / mean baseline):\n"
        )
        lines.append("| ENNreg | baseline | difference (mean ± SE) | ratio |")
        lines.append("|---|---|---|---|")
        for enn in ("ENNreg (defaults)", "ENNreg (tuned)"):
            for baseline in ("MLPRegressor (tuned)", "GradientBoosting (tuned)"):
                difference = np.asarray(rows[enn]["rmse"]) - np.asarray(rows[baseline]["rmse"])
                m, se = mean_se(difference)
                ratio = np.mean(rows[enn]["rmse"]) / np.mean(rows[baseline]["rmse"])
                lines.append(f"| {enn} | {baseline} | {m:+.3f} ± {se:.3f} | {ratio:.3f} |")
        lines.append("")
        lines.append(f"Prediction intervals at level {level} on the test parts:\n")
        lines.append(
            "| interval | coverage (mean ± SE) | mean width (mean ± SE) | interval score (mean ± SE) |"
        )
        lines.append("|---|---|---|---|")
        for model, row in rows.items():
            if "coverage" in row:
                c, cse = mean_se(row["coverage"])
                w, wse = mean_se(row["width"])
                s, sse = mean_se(row["score"])
                lines.append(f"| {model} | {c:.3f} ± {cse:.3f} | {w:.2f} ± {wse:.2f} | {s:.2f} ± {sse:.2f} |")
        lines.append("")
        lines.append(
            'Selected hyperparameters per split (for the defaults: the choice of `fit_scales="auto"`):\n'
        )
        for model, row in rows.items():
            if "params" in row:
                lines.append(f"* {model}: " + "; ".join(row["params"]))
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--datasets", nargs="*", default=None, help="names to run (diabetes, friedman1); default all"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()
    with threadpool_limits(limits=1):
        results = run(args.repeats, args.level, args.datasets)
    load_end = os.getloadavg()
    header = (
        f"`python benchmarks/bench_regression.py --repeats {args.repeats} --level {args.level}"
        + (f" --datasets {' '.join(args.datasets)}" if args.datasets else "")
        + f"`, started {started} "
        f"on {platform.machine()} ({os.cpu_count()} cores shared with other jobs; load average at start "
        f"{load[0]:.1f}, at end {load_end[0]:.1f}); BLAS pinned to one thread.\n"
    )
    text = (
        "# EvidentialRegressor (ENNreg): accuracy and prediction intervals\n\n"
        + header
        + "\n"
        + report(results, args.repeats, args.level)
    )
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
