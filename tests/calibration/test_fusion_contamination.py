"""EvidentialFusionClassifier(contamination=...): rates learned for classifiers that may fail on a sample."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dstk.calibration import EvidentialFusionClassifier


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[::2], y[::2]


def sources():
    return [("lr", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))), ("nb", GaussianNB())]


def test_rates_minimise_the_expected_log_loss_under_the_failure_model(data):
    """The criterion written out from the failure model: with probability 1 - c no classifier fails; with
    probability c / S classifier s fails and its output is that of another sample (a fixed shuffle)."""
    X, y = data
    contamination = 0.2
    model = EvidentialFusionClassifier(sources(), cv=5, contamination=contamination).fit(X, y)
    folds = StratifiedKFold(5)
    calibrated = []
    for (_name, estimator), temperature in zip(sources(), model.temperatures_):
        q = cross_val_predict(clone(estimator), X, y, cv=folds, method="predict_proba")
        z = np.log(np.clip(q, 1e-12, 1.0)) / temperature
        z = np.exp(z - z.max(axis=1, keepdims=True))
        calibrated.append(z / z.sum(axis=1, keepdims=True))
    shuffle = np.random.default_rng(0).permutation(y.size)
    rows = np.arange(y.size)

    def log_loss(contours, rates):
        product = np.ones_like(contours[0])
        for contour, rate in zip(contours, rates):
            product = product * (contour + rate * (1 - contour))
        return -np.mean(np.log(product[rows, y] / product.sum(axis=1)))

    def criterion(flat):
        rates = flat.reshape(2, 2)
        expected = (1 - contamination) * log_loss(calibrated, rates)
        expected += contamination / 2 * log_loss([calibrated[0][shuffle], calibrated[1]], rates)
        expected += contamination / 2 * log_loss([calibrated[0], calibrated[1][shuffle]], rates)
        return expected

    found = criterion(model.rates_.ravel())
    rng = np.random.default_rng(1)
    assert all(criterion(rng.uniform(0.01, 1.0, size=4)) >= found - 1e-9 for _ in range(300))
    for j in range(4):
        for step in (-1e-3, 1e-3):
            moved = model.rates_.ravel().copy()
            moved[j] = np.clip(moved[j] + step, 0.01, 1.0)
            assert criterion(moved) >= found - 1e-9
    # the temperatures do not depend on the failure model
    clean = EvidentialFusionClassifier(sources(), cv=5).fit(X, y)
    np.testing.assert_array_equal(clean.temperatures_, model.temperatures_)
    assert not np.allclose(clean.rates_, model.rates_)


def test_a_classifier_failing_at_prediction_time_costs_less_on_average(data):
    """Either classifier fed noise in place of the samples: the mean log-loss over which one fails is
    lower with the failure model, at a small cost when none fails (measured: 0.131 -> 0.135)."""
    X, y = data
    test_X, test_y = load_breast_cancer(return_X_y=True)
    test_X, test_y = test_X[1::2], test_y[1::2]
    noise = np.random.default_rng(2).normal(size=test_X.shape) * test_X.std(axis=0) + test_X.mean(axis=0)
    rows = np.arange(test_y.size)
    clean, failing = [], []
    for contamination in (0.0, 0.2):
        model = EvidentialFusionClassifier(sources(), contamination=contamination).fit(X, y)
        p = model.predict_proba(test_X)
        clean.append(-np.mean(np.log(np.clip(p[rows, test_y], 1e-15, 1.0))))
        losses = []
        for name in ("lr", "nb"):
            source = model.named_estimators_[name]
            original = source.predict_proba
            source.predict_proba = lambda _X, original=original: original(noise)  # the source fails
            p = model.predict_proba(test_X)
            del source.predict_proba
            losses.append(-np.mean(np.log(np.clip(p[rows, test_y], 1e-15, 1.0))))
        failing.append(np.mean(losses))
    assert failing[1] < 0.8 * failing[0]
    assert clean[1] < clean[0] + 0.01


@pytest.mark.parametrize("bad", [-0.1, 1.0, "0.1", True, np.nan])
def test_contamination_is_checked(data, bad):
    X, y = data
    with pytest.raises(ValueError, match="contamination"):
        EvidentialFusionClassifier(sources(), contamination=bad).fit(X, y)
