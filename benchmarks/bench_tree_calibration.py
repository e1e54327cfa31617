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
        [--sets banknote,sonar,...] [--output benchmarks/results/tree_calibration.md] [--ranking]

``--ranking``: instead, the AUC of the scores of "dempster" and "cautious" under several leaf models
(default trees), paired with "average"'s.  ``--forests``: instead, the default trees against
scikit-learn's ``ExtraTreesClassifier`` and ``RandomForestClassifier`` (same number of trees; their
defaults, and tuned by a 3-fold grid search of ``max_features`` and ``min_samples_leaf`` on log-loss):
accuracy, log-loss, Brier, paired differences with standard errors.

DATA_FOLDER defaults to ``../shared/datasets`` (needs ``load.py``);
``sklearn_<name>`` in ``--sets`` (``sklearn_breast_cancer``, ``sklearn_iris``, ``sklearn_wine``,
``sklearn_digits``) is scikit-learn's bundled copy.  The Brier column is half the multi-class Brier
score (for two classes the usual mean squared error of P(class 1)).
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
    if name.startswith("sklearn_"):
        from sklearn import datasets

        return getattr(datasets, "load_" + name[len("sklearn_") :])(return_X_y=True)
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


RANKING_VARIANTS = (
    ("dempster", {}),
    ("cautious", {}),
    ("cautious", {"model": "imprecise_dirichlet", "prior_strength": 1.0}),
    ("cautious", {"model": "imprecise_dirichlet", "prior_strength": 4.0}),
    ("cautious", {"model": "imprecise_dirichlet", "prior_strength": 16.0}),
)


def ranking(name, X, y, splits, n_trees):
    """AUC of the combiners' scores under several leaf models, paired with "average"'s (same trees per split).

    The AUC is the ranking of the score, which no calibration map (a monotone function of it) changes.
    """
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedShuffleSplit

    from dstk.ensemble import combine_leaves

    labels = ["average"] + [
        combiner + (f" ({options['model']}, s = {options['prior_strength']:g})" if options else "")
        for combiner, options in RANKING_VARIANTS
    ]
    auc = {label: [] for label in labels}
    ties = []
    splitter = StratifiedShuffleSplit(n_splits=splits, test_size=0.5, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        model = RandomDecisionTreesClassifier(n_trees, random_state=seed).fit(X[train], y[train])
        counts = model.leaf_counts(X[test])
        scores = [combine_leaves(counts, combiner="average")]
        scores += [combine_leaves(counts, combiner=c, **o) for c, o in RANKING_VARIANTS]
        for label, score in zip(labels, scores):
            auc[label].append(roc_auc_score(y[test], score))
        ties.append(np.mean(scores[2] == 0.0))
    base = np.array(auc["average"])
    lines = [
        f"| {name} (cautious score 0 on {np.mean(ties):.3f} of the test samples) | AUC | AUC − average (SE) |",
        "|---|---|---|",
    ]
    for label in labels:
        diff = np.array(auc[label]) - base
        se = diff.std(ddof=1) / np.sqrt(diff.size)
        lines.append(f"| {label} | {np.mean(auc[label]):.3f} | {diff.mean():+.3f} ({se:.3f}) |")
    return "\n".join(lines)


def brier(y, proba):
    """Half the multi-class Brier score, mean of sum_k (p_k - [y = k])^2 / 2: for two classes mean (p_1 - y)^2."""
    onehot = np.eye(proba.shape[1])[y]
    return float(np.mean(np.sum((proba - onehot) ** 2, axis=1)) / 2)


def _anchors(n_trees, seed, tuned=True):
    """scikit-learn's forests with the same number of trees: defaults, and tuned by 3-fold CV on the training half."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.model_selection import GridSearchCV

    grid = {"max_features": ["sqrt", 0.5, None], "min_samples_leaf": [1, 3]}
    defaults = {
        "ExtraTrees": ExtraTreesClassifier(n_trees, random_state=seed),
        "RandomForest": RandomForestClassifier(n_trees, random_state=seed),
    }
    if not tuned:
        return defaults
    return {
        **defaults,
        "ExtraTrees tuned": GridSearchCV(
            ExtraTreesClassifier(n_trees, random_state=seed), grid, cv=3, scoring="neg_log_loss"
        ),
        "RandomForest tuned": GridSearchCV(
            RandomForestClassifier(n_trees, random_state=seed), grid, cv=3, scoring="neg_log_loss"
        ),
    }


DSTK_VARIANTS = {"dstk average": {"combiner": "average"}, "dstk eva": {"combiner": "eva"}}


def against_forests(name, X, y, splits, n_trees, tuned=True):
    """dstk's trees (``combiner="average"`` and ``"eva"``, other parameters default) against scikit-learn's forests, over the same splits.

    First table: accuracy, log-loss and Brier score of each model (means over the splits) and its CPU time of
    fit + predict_proba.  Second table: paired differences dstk minus the forest (mean and standard error over
    the splits; negative log-loss / Brier differences favour dstk).
    """
    from sklearn.model_selection import StratifiedShuffleSplit

    metrics = {}
    splitter = StratifiedShuffleSplit(n_splits=splits, test_size=0.5, random_state=0)
    for seed, (train, test) in enumerate(splitter.split(X, y)):
        models = {
            label: RandomDecisionTreesClassifier(n_trees, random_state=seed, **options)
            for label, options in DSTK_VARIANTS.items()
        }
        models.update(_anchors(n_trees, seed, tuned))
        for label, model in models.items():
            start = time.process_time()
            proba = model.fit(X[train], y[train]).predict_proba(X[test])
            cpu = time.process_time() - start
            row = metrics.setdefault(label, {"accuracy": [], "log_loss": [], "brier": [], "cpu": []})
            row["accuracy"].append(np.mean(proba.argmax(axis=1) == y[test]))
            row["log_loss"].append(log_loss(y[test], proba))
            row["brier"].append(brier(y[test], proba))
            row["cpu"].append(cpu)
    metrics = {label: {k: np.array(v) for k, v in row.items()} for label, row in metrics.items()}

    def paired(own, label, key):
        diff = metrics[own][key] - metrics[label][key]
        return f"{diff.mean():+.4f} ({diff.std(ddof=1) / np.sqrt(diff.size):.4f})"

    lines = [
        f"| {name} | model | accuracy | log-loss | Brier | CPU s |",
        "|---|---|---|---|---|---|",
    ]
    for label, row in metrics.items():
        lines.append(
            f"| | {label} | {row['accuracy'].mean():.4f} | {row['log_loss'].mean():.4f} | "
            f"{row['brier'].mean():.4f} | {row['cpu'].mean():.2f} |"
        )
    lines += [
        "",
        f"| {name}: paired difference | accuracy (SE) | log-loss (SE) | Brier (SE) |",
        "|---|---|---|---|",
    ]
    for own in DSTK_VARIANTS:
        for label in metrics:
            if label not in DSTK_VARIANTS:
                lines.append(
                    f"| {own} − {label} | {paired(own, label, 'accuracy')} | {paired(own, label, 'log_loss')} | "
                    f"{paired(own, label, 'brier')} |"
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
    parser.add_argument(
        "--ranking",
        action="store_true",
        help="AUC of the default trees' combiner scores under several leaf models",
    )
    parser.add_argument(
        "--forests",
        action="store_true",
        help="the default trees against scikit-learn's ExtraTrees and RandomForest (defaults and tuned)",
    )
    parser.add_argument("--untuned", action="store_true", help="--forests: scikit-learn's defaults only")
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    out = []
    with threadpool_limits(1):
        for name in args.sets.split(","):
            X, y = load(args.data, name)
            if args.forests:
                text = against_forests(name, X, y, args.splits, args.trees, not args.untuned)
                print(text + "\n", flush=True)
                out.append(text)
                continue
            if args.ranking:
                text = ranking(name, X, y, args.splits, args.trees)
                print(text + "\n", flush=True)
                out.append(text)
                continue
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
