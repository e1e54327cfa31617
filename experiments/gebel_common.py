"""Shared pieces of the Gebel (2009) reproductions: data, classifiers (L2-SVM, ANN, NB, tree), CV loop.

Protocol (research notes A.5.1; the [U] points are fixed as follows):

* m-fold cross-validation (default 10), stratified, one seed; the measures are
  computed on the pooled out-of-fold predictions.
* Features are standardised with the training fold's mean and deviation.
* Hyper-parameters are chosen once per data set by 3-fold CV accuracy on the
  whole data over a small grid (not nested; the thesis does not say whether
  its grid search was nested).
* Calibrators are fitted on the training fold's own (in-sample) scores and
  applied to the held-out fold.
"""

import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from dstk.calibration.probabilistic import (  # noqa: E402
    AssignmentValueCalibrator,
    AsymmetricLaplaceBayesCalibrator,
    IsotonicRegressionCalibrator,
    PiecewiseLogisticCalibrator,
    PlattCalibrator,
    SimpleNormalization,
)

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "datasets"))


def load_dataset(folder, name):
    """(X, y) of a data set of the shared folder; constant columns are dropped."""
    sys.path.insert(0, folder)
    try:
        from load import load
    finally:
        sys.path.pop(0)
    X, y = load(name)
    X = np.asarray(X, dtype=np.float64)
    keep = X.std(axis=0) > 0
    return X[:, keep], np.asarray(y, dtype=np.int64)


def rbf_kernel(A, B, g):
    sq = (A**2).sum(1)[:, None] + (B**2).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-g * np.maximum(sq, 0.0))


class L2SVM:
    """Kernel L2-SVM (squared hinge) as a hard-margin SVM on ``K + I / gamma`` (research notes A.2.1 [X])."""

    def __init__(self, gamma=1.0, g=0.1):
        self.gamma = gamma
        self.g = g

    def fit(self, X, y):
        from sklearn.svm import SVC

        self.X_ = X
        K = rbf_kernel(X, X, self.g) + np.eye(len(X)) / self.gamma
        self.svc_ = SVC(kernel="precomputed", C=1e8, tol=1e-6).fit(K, y)
        return self

    def decision_function(self, X):
        return self.svc_.decision_function(rbf_kernel(X, self.X_, self.g))


def make_classifier(name, params):
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neural_network import MLPClassifier
    from sklearn.tree import DecisionTreeClassifier

    if name == "svm":
        return L2SVM(**params)
    if name == "ann":
        return MLPClassifier(
            hidden_layer_sizes=(params["hidden"],),
            activation="logistic",
            alpha=params["alpha"],
            max_iter=2000,
            random_state=0,
        )
    if name == "nb":
        return GaussianNB()
    if name == "tree":
        return DecisionTreeClassifier(ccp_alpha=params["ccp_alpha"], random_state=0)
    raise ValueError(name)


GRIDS = {
    "svm": [{"gamma": c, "g": g} for c in (2.0**-1, 2.0**3, 2.0**7) for g in (2.0**-9, 2.0**-5, 2.0**-1)],
    "ann": [{"hidden": h, "alpha": a} for h in (5, 20) for a in (0.001, 0.01, 0.1)],
    "nb": [{}],
    "tree": [{"ccp_alpha": a} for a in (0.0, 0.005, 0.01, 0.02)],
}

#: what the classifier outputs: decision values ("score") or probabilities
OUTPUT_KIND = {"svm": "score", "ann": "score", "nb": "probability", "tree": "probability"}


def classifier_output(model, name, X):
    """Membership value m+ of the positive class: SVM decision value, ANN 2p - 1 (Tab. 3.1), NB/tree probability."""
    if name == "svm":
        return model.decision_function(X)
    p = model.predict_proba(X)[:, 1]
    return 2 * p - 1 if name == "ann" else p


def standardise(train, test):
    mu, sd = train.mean(0), train.std(0)
    sd[sd == 0] = 1.0
    return (train - mu) / sd, (test - mu) / sd


def choose_params(name, X, y, seed=0):
    """Grid point with the best 3-fold CV accuracy on the whole data (documented shortcut)."""
    from sklearn.model_selection import StratifiedKFold

    grid = GRIDS[name]
    if len(grid) == 1:
        return grid[0]
    folds = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(X, y))
    best = None
    for params in grid:
        acc = []
        for tr, te in folds:
            Xtr, Xte = standardise(X[tr], X[te])
            model = make_classifier(name, params).fit(Xtr, y[tr])
            m = classifier_output(model, name, Xte)
            threshold = 0.0 if OUTPUT_KIND[name] == "score" else 0.5
            acc.append(np.mean((m > threshold) == y[te]))
        if best is None or np.mean(acc) > best[0]:
            best = (np.mean(acc), params)
    return best[1]


def binary_calibrators(kind):
    """Gebel's two-class calibrators for scores or probabilities (abbreviations of Sec. 6)."""
    if kind == "score":
        return {
            "raw": SimpleNormalization(),
            "av": AssignmentValueCalibrator(input_kind="score"),
            "bay-alap": AsymmetricLaplaceBayesCalibrator(),
            "ir": IsotonicRegressionCalibrator(),
            "lr": PlattCalibrator(),
            "plr": PiecewiseLogisticCalibrator(),
        }
    return {
        "raw": None,  # the original probabilities
        "av": AssignmentValueCalibrator(input_kind="probability"),
        "bay-alap": AsymmetricLaplaceBayesCalibrator(input_kind="probability", clip=1e-6),
        "ir": IsotonicRegressionCalibrator(),
        "lr": PlattCalibrator(),
        "plr": PiecewiseLogisticCalibrator(),
    }


def fit_predict_calibrator(cal, m_train, y_train, m_test):
    """Positive-class probabilities of the test fold, or None when the calibrator cannot be fitted."""
    from dstk.multiclass._tasks import clone_estimator

    if cal is None:
        return np.clip(m_test, 0.0, 1.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return clone_estimator(cal).fit(m_train, y_train).predict_proba(m_test)[:, 1]
    except ValueError as exc:
        return exc


def format_cell(cr, cal):
    return f"{cr:.3f} / {cal:.3f}"
