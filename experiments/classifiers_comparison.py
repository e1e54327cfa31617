"""Evidential classifiers against scikit-learn on the shared binary data sets.

1. Accuracy and log-loss (5-fold stratified cross-validation, features standardised on each training fold)
   of EvidentialKNNClassifier (simple and contextual discounting, gamma learned), KNeighborsClassifier
   (same k), EvidentialNeuralNetworkClassifier, LogisticRegression and MLPClassifier.
2. The trained combiner in scenario (c) of the calibration reproductions: a logistic regression trained on
   much more data (65% of the non-test samples) and two classifiers trained on 25 samples (naive Bayes,
   evidential k-NN); discount rates learned on a validation set of the remaining samples.  Accuracy on the
   30% test split of: each classifier, Dempster's rule without discounting, contextual discounting learned
   separately (Mercier, Quost & Denoeux 2008) and jointly; mean over 5 seeds.

Usage::

    python experiments/classifiers_comparison.py [DATA_FOLDER] [--datasets a,b,...]

DATA_FOLDER defaults to ../shared/datasets (needs load.py).  Prints Markdown tables; the recorded run is in
experiments/results/classifiers.md.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import log_loss  # noqa: E402
from sklearn.model_selection import StratifiedKFold, train_test_split  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from dstk.classifiers import (  # noqa: E402
    ContextualDiscountingCombiner,
    EvidentialKNNClassifier,
    EvidentialNeuralNetworkClassifier,
)

DEFAULT_DATA = os.path.normpath(
    os.path.join(HERE, "..", "..", "shared", "datasets")
)  # /work/shared from /work/main
DEFAULT_SETS = (
    "australian,pima,heart,ionosphere,liver,sonar,banknote,breast_cancer,voting,tic_tac_toe,spambase"
)


def load_dataset(folder, name):
    sys.path.insert(0, folder)
    try:
        from load import load
    finally:
        sys.path.pop(0)
    X, y = load(name)
    return np.asarray(X, dtype=np.float64), np.asarray(y)


def models():
    return {
        "EkNN": lambda: EvidentialKNNClassifier(n_neighbors=10),
        "EkNN contextual": lambda: EvidentialKNNClassifier(n_neighbors=10, discounting="contextual"),
        "k-NN (sklearn)": lambda: KNeighborsClassifier(n_neighbors=10),
        "ENN (10 prototypes)": lambda: EvidentialNeuralNetworkClassifier(
            n_prototypes=10, max_iter=300, random_state=0
        ),
        "LogisticRegression": lambda: LogisticRegression(max_iter=5000),
        "MLP (16)": lambda: MLPClassifier(hidden_layer_sizes=(16,), max_iter=2000, random_state=0),
    }


def cross_validate(X, y):
    results = {name: ([], []) for name in models()}
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        scaler = StandardScaler().fit(X[train])
        Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
        for name, make in models().items():
            model = make().fit(Xtr, y[train])
            proba = np.clip(model.predict_proba(Xte), 1e-15, 1.0)
            results[name][0].append(np.mean(model.predict(Xte) == y[test]))
            results[name][1].append(log_loss(y[test], proba, labels=model.classes_))
    return {name: (np.mean(a), np.mean(b)) for name, (a, b) in results.items()}


def scenario_c(X, y, seeds=5):
    rows = {}
    for seed in range(seeds):
        X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
        X_big, X_small, y_big, y_small = train_test_split(
            X_rest, y_rest, test_size=0.35, stratify=y_rest, random_state=seed
        )
        X_few, X_val, y_few, y_val = train_test_split(
            X_small, y_small, train_size=25, stratify=y_small, random_state=seed
        )
        strong = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(X_big, y_big)
        weak = make_pipeline(StandardScaler(), GaussianNB()).fit(X_few, y_few)
        knn = make_pipeline(StandardScaler(), EvidentialKNNClassifier(n_neighbors=5)).fit(X_few, y_few)
        members = [strong, weak, _MassPipeline(knn)]
        fixed = ContextualDiscountingCombiner(members, prefit=True).fit(X_val, y_val)
        fixed.rates_ = np.zeros_like(fixed.rates_)
        separate = ContextualDiscountingCombiner(members, prefit=True).fit(X_val, y_val)
        joint = ContextualDiscountingCombiner(members, prefit=True, training="joint").fit(X_val, y_val)
        for name, model in (
            ("LogisticRegression (big)", strong),
            ("naive Bayes (25)", weak),
            ("EkNN (25)", knn),
            ("Dempster, no discounting", fixed),
            ("contextual, separate", separate),
            ("contextual, joint", joint),
        ):
            rows.setdefault(name, []).append(model.score(X_test, y_test))
    return {name: float(np.mean(values)) for name, values in rows.items()}


class _MassPipeline:
    """A Pipeline ending in a dstk classifier, exposing the classifier's predict_mass."""

    def __init__(self, pipeline):
        self.pipeline = pipeline
        self.classes_ = pipeline.classes_

    def predict_mass(self, X):
        return self.pipeline[-1].predict_mass(self.pipeline[:-1].transform(X))

    def predict_proba(self, X):
        return self.pipeline.predict_proba(X)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=DEFAULT_DATA)
    parser.add_argument("--datasets", default=DEFAULT_SETS)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    names = args.datasets.split(",")
    start = time.perf_counter()
    cv, combined = {}, {}
    for name in names:
        X, y = load_dataset(args.data, name)
        cv[name] = cross_validate(X, y)
        combined[name] = scenario_c(X, y)
        print(
            f"done {name} ({X.shape[0]} x {X.shape[1]}) at {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
        )
    model_names = list(models())
    print("## Accuracy (5-fold CV)\n")
    print("| data | " + " | ".join(model_names) + " |")
    print("|---|" + "---|" * len(model_names))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{cv[name][m][0]:.3f}" for m in model_names) + " |")
    print("\n## Log-loss (5-fold CV, probabilities clipped at 1e-15)\n")
    print("| data | " + " | ".join(model_names) + " |")
    print("|---|" + "---|" * len(model_names))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{cv[name][m][1]:.3f}" for m in model_names) + " |")
    combo_names = list(next(iter(combined.values())))
    print("\n## Scenario (c): test accuracy, mean of 5 seeds\n")
    print("| data | " + " | ".join(combo_names) + " |")
    print("|---|" + "---|" * len(combo_names))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{combined[name][m]:.3f}" for m in combo_names) + " |")
    print(f"\ntotal time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
