"""Quality of the random-tree combiners' probabilities on unseen data.

For each data set: repeated stratified splits (half trains, half tests); for
each split one :class:`RandomDecisionTreesClassifier` per combiner (same
seed, so the same trees), with ``stop_at_pure_nodes`` False and True.
Columns: accuracy of the argmax of ``predict_proba``, accuracy of the
combiner's own ``decision_function`` threshold, agreement of ``predict``
with the argmax of ``predict_proba``, log-loss, and the paired log-loss
difference to ``"average"`` (mean and standard error over the splits); CPU
time of fit + predict (``time.process_time``, BLAS threads pinned to one).

Usage::

    python benchmarks/bench_tree_calibration.py [DATA_FOLDER] [--splits 5] [--trees 100]
        [--sets banknote,sonar,...] [--output benchmarks/results/tree_calibration.md]

DATA_FOLDER defaults to ``../shared/datasets`` (needs ``load.py``);
``sklearn_breast_cancer`` in ``--sets`` is scikit-learn's bundled copy.
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

from dstk.ensemble import RandomDecisionTreesClassifier  # noqa: E402

_DATA_FOLDER = os.path.join(REPO, "..", "shared", "datasets")
COMBINERS = ("average", "vote", "laplace", "confidence_bounds", "plausibility", "eva", "dempster", "cautious")


def load(folder, name):
    if name == "sklearn_breast_cancer":
        from sklearn.datasets import load_breast_cancer

        return load_breast_cancer(return_X_y=True)
    spec = importlib.util.spec_from_file_location("shared_load", os.path.join(folder, "load.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load(name)


def log_loss(y, proba):
    p = np.clip(proba[np.arange(y.size), y], 1e-15, 1.0)
    return float(-np.mean(np.log(p)))


def oracle_log_loss(y, proba):
    """Log-loss of expit(s logit p) for the s >= 0 best on these samples (P(class 1) = expit(a z) scaled)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import expit, logit

    z = logit(np.clip(proba[:, 1], 1e-300, 1 - 1e-16))

    def loss(log_scale):
        p = expit(np.exp(log_scale) * z)
        return log_loss(y, np.stack([1 - p, p], axis=1))

    return float(minimize_scalar(loss, bounds=(-8.0, 8.0), method="bounded").fun)


def run(X, y, splits, n_trees, pure):
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedShuffleSplit

    keys = ("acc_proba", "acc_decision", "agree", "log_loss", "oracle", "auc", "cpu")
    rows = {c: {k: [] for k in keys} for c in COMBINERS}
    splitter = StratifiedShuffleSplit(n_splits=splits, test_size=0.5, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        for combiner in COMBINERS:
            start = time.process_time()
            model = RandomDecisionTreesClassifier(
                n_trees, combiner=combiner, stop_at_pure_nodes=pure, random_state=seed
            ).fit(X[train], y[train])
            proba = model.predict_proba(X[test])
            cpu = time.process_time() - start
            predicted = model.predict(X[test])
            decision = model.decision_function(X[test])
            argmax = proba.argmax(axis=1)
            # ties (p = 1/2) count as an argmax of either class
            chosen = np.searchsorted(model.classes_, predicted)
            agree = proba[np.arange(test.size), chosen] >= proba.max(axis=1)
            row = rows[combiner]
            row["acc_proba"].append(np.mean(np.where(proba[:, 1] == 0.5, chosen, argmax) == y[test]))
            row["acc_decision"].append(np.mean((decision >= 0).astype(int) == y[test]))
            row["agree"].append(np.mean(agree))
            row["log_loss"].append(log_loss(y[test], proba))
            calibrated = combiner in ("eva", "dempster", "cautious")
            row["oracle"].append(oracle_log_loss(y[test], proba) if calibrated else np.nan)
            row["auc"].append(roc_auc_score(y[test], decision))
            row["cpu"].append(cpu)
    return {c: {k: np.array(v) for k, v in r.items()} for c, r in rows.items()}


def table(name, results):
    base = results["average"]["log_loss"]
    lines = [
        f"| {name} | combiner | acc. predict_proba | acc. decision | predict = argmax | log-loss | "
        "log-loss − average (SE) | oracle log-loss | AUC | CPU s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for combiner, r in results.items():
        diff = r["log_loss"] - base
        se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
        oracle = "" if np.isnan(r["oracle"]).all() else f"{np.nanmean(r['oracle']):.3f}"
        lines.append(
            f"| | {combiner} | {r['acc_proba'].mean():.3f} | {r['acc_decision'].mean():.3f} | "
            f"{r['agree'].mean():.3f} | {r['log_loss'].mean():.3f} | {diff.mean():+.3f} ({se:.3f}) | "
            f"{oracle} | {r['auc'].mean():.3f} | {r['cpu'].mean():.2f} |"
        )
    return "\n".join(lines)


def pure_table(name, fully_grown, pure):
    """Paired differences pure stops minus fully grown trees (same splits, same seeds): mean (standard error)."""

    def paired(key, combiner):
        diff = pure[combiner][key] - fully_grown[combiner][key]
        se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
        return f"{diff.mean():+.3f} ({se:.3f})"

    lines = [
        f"| {name}: pure − fully grown | combiner | accuracy (SE) | log-loss (SE) | AUC (SE) | CPU ratio |",
        "|---|---|---|---|---|---|",
    ]
    for combiner in pure:
        ratio = np.median(pure[combiner]["cpu"] / fully_grown[combiner]["cpu"])
        lines.append(
            f"| | {combiner} | {paired('acc_proba', combiner)} | {paired('log_loss', combiner)} | "
            f"{paired('auc', combiner)} | {ratio:.2f} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", nargs="?", default=_DATA_FOLDER)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--sets", default="banknote,sonar,ionosphere,pima,spambase")
    parser.add_argument("--pure", choices=["both", "false", "true"], default="false")
    parser.add_argument("--output", default=None)
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    out = []
    with threadpool_limits(1):
        for name in args.sets.split(","):
            X, y = load(args.data, name)
            by_pure = {}
            for pure in {"both": (False, True), "false": (False,), "true": (True,)}[args.pure]:
                results = by_pure[pure] = run(X, y, args.splits, args.trees, pure)
                text = table(f"{name} (stop_at_pure_nodes={pure})", results)
                print(text + "\n", flush=True)
                out.append(text)
            if len(by_pure) == 2:
                text = pure_table(name, by_pure[False], by_pure[True])
                print(text + "\n", flush=True)
                out.append(text)
    if args.output:
        with open(args.output, "a") as handle:
            handle.write("\n\n".join(out) + "\n")


if __name__ == "__main__":
    main()
