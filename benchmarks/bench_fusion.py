"""Classifiers combined as evidence against scikit-learn's ways of combining them, on unseen data.

Three base classifiers (scaled logistic regression, Gaussian naive Bayes, a random forest); for each data
set, repeated stratified splits (train 70 % / test 30 %); on each split every method is fitted on the same
training part and scored on the same test part:

* ``fusion``: :class:`dstk.calibration.EvidentialFusionClassifier` with its defaults (``contamination=0.1``),
  ``fusion, contamination=0`` without the failure model, and ``fusion, failure_test_level=0.001`` with the
  test, on the whole test part, that one classifier fails there (a flagged classifier is left out);
* ``best single``: the base classifier with the best cross-validated log-loss on the training part,
  calibrated by ``CalibratedClassifierCV(method="sigmoid")``;
* ``soft voting``: ``VotingClassifier(voting="soft")``;
* ``calibrated voting``: soft voting of the three calibrated by ``CalibratedClassifierCV``;
* ``stacking``: ``StackingClassifier`` with a logistic regression on the probabilities.

Columns: accuracy, log-loss, Brier score and the selective error at 50 / 80 / 100 % coverage (each method
abstains on the test samples where it is least decisive: for the fusion, the widest [Bel, Pl] of the
predicted class, i.e. the smallest Bel of the predicted class; for the others, the smallest largest
probability), means over the splits and the paired difference "method minus fusion" with its standard
error.  Two scenarios follow, on binary sets: Xu et al. (2016), scenario (c) — the classifiers trained on
unequal parts of the training data (2/3, 1/5, the rest), so that only the fusion knows how reliable each
is — and a corrupted source: one classifier's test inputs are replaced by noise.

Usage::

    python benchmarks/bench_fusion.py [--data ../shared/datasets] [--splits 5] [--md benchmarks/results/fusion.md]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from _harness import environment, pinned_threads  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine  # noqa: E402
from sklearn.ensemble import RandomForestClassifier, StackingClassifier, VotingClassifier  # noqa: E402
from sklearn.frozen import FrozenEstimator  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedShuffleSplit, cross_val_predict  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from dstk.calibration import EvidentialFusionClassifier  # noqa: E402

COVERAGES = (0.5, 0.8, 1.0)
#: the fusion without the failure model (contamination=0): rates learned on the out-of-fold outputs as
#: they are
ROBUST = "fusion, contamination=0"
TESTED = "fusion, failure_test_level=0.001"


def base_estimators(seed):
    return [
        ("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))),
        ("nb", GaussianNB()),
        ("rf", RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)),
    ]


def data_sets(folder):
    sets = {}
    for name, loader in [
        ("breast_cancer", load_breast_cancer),
        ("wine", load_wine),
        ("iris", load_iris),
        ("digits", load_digits),
    ]:
        sets[name] = loader(return_X_y=True)
    if folder and os.path.isdir(folder):
        sys.path.insert(0, folder)
        from load import load

        for name in ("australian", "pima", "heart", "ionosphere", "sonar", "banknote", "spambase"):
            try:
                sets[name] = load(name)
            except Exception as error:
                print(f"[skip] {name}: {error}")
    return sets


def scores(y_true, probabilities, decisiveness, classes):
    """accuracy, log-loss, Brier, selective errors at the coverages."""
    index = np.searchsorted(classes, y_true)
    p = np.clip(probabilities, 1e-15, 1.0)
    p = p / p.sum(axis=1, keepdims=True)
    predicted = probabilities.argmax(axis=1)
    error = predicted != index
    onehot = np.zeros_like(p)
    onehot[np.arange(index.size), index] = 1.0
    out = [
        1.0 - error.mean(),
        -np.log(p[np.arange(index.size), index]).mean(),
        ((p - onehot) ** 2).sum(1).mean(),
    ]
    order = np.argsort(-decisiveness, kind="stable")
    for coverage in COVERAGES:
        kept = order[: max(1, round(coverage * index.size))]
        out.append(error[kept].mean())
    return np.array(out)


#: orderings of abstention of the fusion, measured side by side (rows "fusion, abstain by ..."):
#: the decided class's Bel, its probability (plausibility transform), its pignistic probability, and
#: minus the width Pl - Bel of its interval
ORDERINGS = ("bel", "probability", "pignistic", "width")


def fusion_decisiveness(model, X, probabilities):
    """Decisiveness of the fusion's decision on each sample under every ordering of :data:`ORDERINGS`."""
    mass = model.predict_mass(X)
    n_classes = len(model.classes_)
    masses = mass.to_array("m")
    rows = np.arange(masses.shape[0])
    decided = probabilities.argmax(axis=1)
    bel = masses[:, 1 << np.arange(n_classes)][rows, decided]
    pl = np.asarray(mass.contour(), dtype=np.float64)[rows, decided]
    betp = np.asarray(mass.pignistic(), dtype=np.float64)[rows, decided]
    return {
        "bel": bel,
        "probability": probabilities[rows, decided],
        "pignistic": betp,
        "width": -(pl - bel),
    }


def methods(seed):
    estimators = base_estimators(seed)
    return {
        "fusion": EvidentialFusionClassifier(estimators),
        ROBUST: EvidentialFusionClassifier(estimators, contamination=0.0),
        TESTED: EvidentialFusionClassifier(estimators, failure_test_level=0.001),
        "soft voting": VotingClassifier(estimators, voting="soft"),
        "calibrated voting": VotingClassifier(
            [(n, CalibratedClassifierCV(e, method="sigmoid", cv=5)) for n, e in estimators], voting="soft"
        ),
        "stacking": StackingClassifier(estimators, final_estimator=LogisticRegression(max_iter=2000), cv=5),
    }


def best_single(estimators, X, y):
    """The calibrated base classifier of best cross-validated log-loss, and its index."""
    best, best_loss, index = None, np.inf, -1
    classes = np.unique(y)
    for j, (_, estimator) in enumerate(estimators):
        p = cross_val_predict(clone(estimator), X, y, cv=5, method="predict_proba")
        loss = -np.log(np.clip(p[np.arange(y.size), np.searchsorted(classes, y)], 1e-15, 1)).mean()
        if loss < best_loss:
            best, best_loss, index = estimator, loss, j
    return CalibratedClassifierCV(clone(best), method="sigmoid", cv=5), index


def unequal_parts(estimators, X_train, y_train, seed):
    """Xu et al. (2016) scenario (c): each classifier sees its own, unequal part of the training data.

    Returns the frozen classifiers (each fitted on half of its part), the rest of the training data that
    every method uses to combine them, the anchors (soft voting, stacking, best single) and the index of
    the best single classifier.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(y_train.size)
    cuts = [0, int(y_train.size * 2 / 3), int(y_train.size * (2 / 3 + 1 / 5)), y_train.size]
    parts = [order[cuts[i] : cuts[i + 1]] for i in range(3)]
    frozen = []
    for (name, estimator), part in zip(estimators, parts):
        half = part[: part.size // 2]
        frozen.append((name, FrozenEstimator(clone(estimator).fit(X_train[half], y_train[half]))))
    # each method sees the classifiers as trained and the rest of the training data to combine them
    rest = np.concatenate([part[part.size // 2 :] for part in parts])
    X_fit, y_fit = X_train[rest], y_train[rest]
    anchors = {
        "soft voting": VotingClassifier(frozen, voting="soft"),
        "stacking": StackingClassifier(frozen, final_estimator=LogisticRegression(max_iter=2000), cv=5),
    }
    single_index = max(range(len(frozen)), key=lambda j: frozen[j][1].estimator.score(X_fit, y_fit))
    anchors["best single"] = CalibratedClassifierCV(frozen[single_index][1], method="sigmoid", cv=5)
    return frozen, X_fit, y_fit, anchors, single_index


def run_split(X, y, train, test, seed, scenario="standard", only=None):
    results = {}
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    classes = np.unique(y)
    estimators = base_estimators(seed)
    if scenario == "unequal":
        frozen, X_fit, y_fit, anchors, single_index = unequal_parts(estimators, X_train, y_train, seed)
        candidates = {
            "fusion": EvidentialFusionClassifier(frozen),
            ROBUST: EvidentialFusionClassifier(frozen, contamination=0.0),
            TESTED: EvidentialFusionClassifier(frozen, failure_test_level=0.001),
            **anchors,
        }
    else:
        X_fit, y_fit = X_train, y_train
        candidates = methods(seed)
        candidates["best single"], single_index = best_single(estimators, X_train, y_train)
    if only is not None:
        candidates = {name: model for name, model in candidates.items() if name == "fusion" or name in only}
    corrupted = noise = None
    if scenario == "corrupted":
        # one source sees noise at test time, in every method that uses it: the source turns with the
        # split (the logistic regression, naive Bayes, the forest, ...), so that the scenario does not
        # always hit the same source; the best-single anchor is corrupted too when it is that source
        corrupted = seed % len(estimators)
        rng = np.random.default_rng(seed + 1)
        noise = rng.normal(size=X_test.shape) * X_test.std(axis=0) + X_test.mean(axis=0)
    for name, model in candidates.items():
        model.fit(X_fit, y_fit)
        restore = corrupt(model, name, corrupted, single_index, noise) if corrupted is not None else None
        try:
            probabilities = model.predict_proba(X_test)
            if name.startswith("fusion"):
                orders = fusion_decisiveness(model, X_test, probabilities)
        finally:
            if restore is not None:
                restore()
        if name == "fusion":
            for order in ORDERINGS:
                label = name if order == "bel" else f"{name}, abstain by {order}"
                results[label] = scores(y_test, probabilities, orders[order], classes)
        elif name in (ROBUST, TESTED):
            results[name] = scores(y_test, probabilities, orders["bel"], classes)
        else:
            results[name] = scores(y_test, probabilities, probabilities.max(axis=1), classes)
    return results


def corrupt(model, name, source, single_index, noise):
    """Make the fitted ``source`` of ``model`` see ``noise`` in place of its samples; returns the undo."""
    if name == "best single":
        if single_index != source:
            return None  # the anchor does not use the corrupted source
        target = model
    else:
        target = model.estimators_[source]
    original = target.predict_proba

    def noisy(_X):
        return original(noise)

    target.predict_proba = noisy

    def restore():
        del target.predict_proba

    return restore


def summarise(name, per_split):
    methods_ = list(per_split[0])
    values = {m: np.array([split[m] for split in per_split]) for m in methods_}
    columns = ["accuracy", "log-loss", "Brier"] + [f"sel. error {int(c * 100)}%" for c in COVERAGES]
    lines = [
        f"\n### {name} ({len(per_split)} splits)\n",
        "| method | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for method in methods_:
        cells = []
        for j in range(len(columns)):
            mean = values[method][:, j].mean()
            if method == "fusion":
                cells.append(f"{mean:.4f}")
            else:
                diff = values[method][:, j] - values["fusion"][:, j]
                se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
                cells.append(f"{mean:.4f} ({diff.mean():+.4f} ± {se:.4f})")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines), values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--sets", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--scenarios", default="standard,unequal,corrupted")
    parser.add_argument(
        "--methods", default=None, help="semicolon-separated methods besides the fusion (default: all)"
    )
    parser.add_argument("--md", default=None)
    parser.add_argument(
        "--out",
        default=None,
        help="also save the per-split cells (.npz, key scenario|set|method), for pairings",
    )
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    sets = data_sets(args.data)
    if args.sets:
        sets = {k: v for k, v in sets.items() if k in args.sets.split(",")}
    lines = [
        "# Classifiers combined as evidence: EvidentialFusionClassifier against scikit-learn",
        "",
        *environment(argv),
        "- cells: mean over the splits (paired difference method minus fusion ± its standard error)",
    ]
    only = None if args.methods is None else set(args.methods.split(";"))
    saved = {}
    start = time.time()
    with pinned_threads(1):
        for scenario in args.scenarios.split(","):
            lines.append(f"\n## Scenario: {scenario}")
            print(f"\n## Scenario: {scenario}", flush=True)
            for name, (X, y) in sets.items():
                if scenario != "standard" and np.unique(y).size != 2:
                    continue
                X = np.asarray(X, dtype=float)
                y = np.asarray(y)
                splitter = StratifiedShuffleSplit(n_splits=args.splits, test_size=0.3, random_state=0)
                per_split = [
                    run_split(X, y, tr, te, seed, scenario, only)
                    for seed, (tr, te) in enumerate(splitter.split(X, y))
                ]
                text, values = summarise(name, per_split)
                print(text, flush=True)
                lines.append(text)
                saved.update({f"{scenario}|{name}|{method}": v for method, v in values.items()})
                if args.out:
                    np.savez(args.out, **saved)
    lines.append(f"\n- total time {time.time() - start:.0f} s; load at end {os.getloadavg()[0]:.2f}")
    if args.md:
        with open(args.md, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
