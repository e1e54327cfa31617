"""Shared pieces of the Xu et al. (2016) reproductions: data loading, one SVM + calibration, combination."""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from dstk.calibration import BinningCalibrator, IsotonicCalibrator, LogisticCalibrator  # noqa: E402

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "datasets"))

#: (calibration method, model) pairs of Figures 8-10.
BINNING_EDGES = np.arange(-3.0, 3.5, 1.0)  # (-3, -2], ..., (2, 3] as in Fig. 1
MODELS = {
    "binning": ("bayes", "inverse_pignistic", "dempster", "confidence_interval", "likelihood"),
    "isotonic": ("bayes", "inverse_pignistic", "dempster", "confidence_interval", "likelihood"),
    "logistic": ("bayes", "inverse_pignistic", "confidence_interval", "likelihood"),
}


def load_dataset(folder, name):
    sys.path.insert(0, folder)
    try:
        from load import load
    finally:
        sys.path.pop(0)
    X, y = load(name)
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


def make_calibrator(method, model):
    if method == "binning":
        return BinningCalibrator(bins=BINNING_EDGES, model=model)
    if method == "isotonic":
        return IsotonicCalibrator(model=model)
    return LogisticCalibrator(model=model)


def train_part(X, y, indices, X_test, rng, wanted):
    """Train an RBF SVC on half of ``indices``, calibrate on the other half.

    Returns {(method, model): (n_test, 4) masses}.  A part whose training or
    calibration half holds a single class (possible for tiny parts) carries no
    usable evidence: it gets the vacuous mass (probability 1/2 for "bayes").
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    order = rng.permutation(indices)
    half = len(order) // 2
    train, calibration = order[:half], order[half:]
    out = {}
    vacuous = np.tile([0.0, 0.0, 0.0, 1.0], (len(X_test), 1))
    uniform = np.tile([0.0, 0.5, 0.5, 0.0], (len(X_test), 1))
    usable = len(np.unique(y[train])) == 2 and len(np.unique(y[calibration])) == 2
    if usable:
        svm = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale")).fit(X[train], y[train])
        cal_scores = svm.decision_function(X[calibration])
        test_scores = svm.decision_function(X_test)
        usable = float(np.ptp(cal_scores)) > 1e-9 * (1.0 + float(np.max(np.abs(cal_scores))))
    for method, model in wanted:
        if not usable:
            out[(method, model)] = uniform if model == "bayes" else vacuous
            continue
        calibrator = make_calibrator(method, model).fit(cal_scores, y[calibration])
        out[(method, model)] = calibrator.predict_mass(test_scores).to_array()
    return out


def combined_predictions(mass_list):
    """Dempster combination (vacuous on total conflict) -> predicted labels (pignistic, ties -> 0)."""
    import warnings

    from dstk import Frame, MassFunction, combine_with_conflict
    from dstk.exceptions import ConflictWarning

    frame = Frame((0, 1))
    sources = [MassFunction.from_array(np.asarray(m, dtype=float), frame) for m in mass_list]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConflictWarning)  # the count is returned
        combined, conflict = combine_with_conflict(sources, rule="dempster", on_conflict="vacuous")
    combined = combined.to_array()
    total = int(np.count_nonzero(np.asarray(conflict) >= 1.0))
    positive = combined[:, 2] + 0.5 * combined[:, 3]
    return (positive > 0.5).astype(int), total


def mcnemar_p_value(correct_a, correct_b):
    """Two-sided McNemar test with continuity correction (Dietterich 1998)."""
    from scipy.stats import chi2

    b = int(np.sum(~correct_a & correct_b))
    c = int(np.sum(correct_a & ~correct_b))
    if b + c == 0:
        return 1.0
    statistic = (abs(b - c) - 1.0) ** 2 / (b + c)
    return float(chi2.sf(statistic, 1))
