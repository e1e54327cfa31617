"""EvidentialFusionClassifier with classifiers that only score the classes (``decision_function``)."""

import numpy as np
import pytest
from scipy import optimize
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from dstk.calibration import EvidentialFusionClassifier


def _temperature_by_hand(logits, y):
    """Temperature scaling (Guo et al. 2017, Eq. 9) written out: the T of least log-loss in [0.05, 20]."""

    def loss(t):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        return -np.mean(z[np.arange(y.size), y] - np.log(np.exp(z).sum(axis=1)))

    return optimize.minimize_scalar(loss, bounds=(0.05, 20.0), method="bounded", options={"xatol": 1e-9}).x


def _softmax(z):
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("data", ["iris", "breast_cancer"])
def test_scores_enter_as_logits_of_a_temperature_fit(data):
    """The temperature and calibrated outputs of a decision_function-only classifier equal the steps done
    by hand: out-of-fold scores, logits (0, s) for two classes or the scores themselves for more, the
    temperature of least log-loss, softmax(logits / T)."""
    X, y = (load_iris if data == "iris" else load_breast_cancer)(return_X_y=True)
    svm = make_pipeline(StandardScaler(), LinearSVC(C=0.5))
    nb = GaussianNB()
    model = EvidentialFusionClassifier([("svm", svm), ("nb", nb)], cv=5, contamination=0.0).fit(X, y)
    scores = cross_val_predict(clone(svm), X, y, cv=StratifiedKFold(5), method="decision_function")
    logits = np.stack([np.zeros_like(scores), scores], axis=1) if scores.ndim == 1 else scores
    temperature = _temperature_by_hand(logits - logits.max(axis=1, keepdims=True), y)
    assert abs(model.temperatures_[0] - temperature) < 1e-3 * max(1.0, temperature)
    # the calibrated output at prediction: the final classifier's scores through the fitted temperature
    final = clone(svm).fit(X, y).decision_function(X[:30])
    final = np.stack([np.zeros_like(final), final], axis=1) if final.ndim == 1 else final
    expected = _softmax(final / model.temperatures_[0])
    np.testing.assert_allclose(model._calibrated(X[:30])[0], expected, rtol=1e-9, atol=1e-12)
    assert model.score(X, y) > 0.9


def test_binary_scores_of_a_logistic_regression_are_its_probabilities():
    """LogisticRegression's decision_function is its log-odds: read as logits (0, s) at T = 1 (method
    None) they give back predict_proba, so a scores-only wrapper fuses exactly like the original."""
    X, y = load_breast_cancer(return_X_y=True)

    class ScoresOnly(LogisticRegression):  # the same model without predict_proba
        predict_proba = property(lambda self: (_ for _ in ()).throw(AttributeError("no predict_proba")))

    scores_only = make_pipeline(StandardScaler(), ScoresOnly(max_iter=2000))
    original = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    assert not hasattr(scores_only, "predict_proba")
    kwargs = {"cv": 5, "method": None, "contamination": 0.0}
    a = EvidentialFusionClassifier([("lr", scores_only), ("nb", GaussianNB())], **kwargs).fit(X, y)
    b = EvidentialFusionClassifier([("lr", original), ("nb", GaussianNB())], **kwargs).fit(X, y)
    np.testing.assert_allclose(a.rates_, b.rates_, atol=1e-7)
    np.testing.assert_allclose(a.predict_proba(X[:50]), b.predict_proba(X[:50]), atol=1e-7)


def test_svc_without_probability_and_a_frozen_scorer_on_fewer_classes():
    """SVC() (no predict_proba) is accepted; a frozen scorer trained on two of three classes (one score)
    enters with probability 0 (floored at 1e-12, like a probability) for the class it never saw, then
    temperature scaling as any classifier."""
    X, y = load_iris(return_X_y=True)
    two = y < 2
    scorer = make_pipeline(StandardScaler(), LinearSVC()).fit(X[two], y[two])
    model = EvidentialFusionClassifier(
        [("svc", SVC()), ("frozen", FrozenEstimator(scorer)), ("nb", GaussianNB())]
    ).fit(X, y)
    s = scorer.decision_function(X)
    by_hand = np.full((y.size, 3), 1e-12)
    by_hand[:, 1] = 1 / (1 + np.exp(-s))
    by_hand[:, 0] = 1 - by_hand[:, 1]
    expected = _softmax(np.log(np.clip(by_hand, 1e-12, 1.0)) / model.temperatures_[1])
    calibrated = model._calibrated(X)
    np.testing.assert_allclose(calibrated[1], expected, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(calibrated.sum(axis=2), 1.0, atol=1e-12)
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)) and model.score(X, y) > 0.9


def test_a_classifier_that_does_not_score_the_classes_is_refused():
    class LabelsOnly:
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.zeros(len(X), dtype=int)

        def get_params(self, deep=True):
            return {}

    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="none of predict_proba, predict_mass and decision_function"):
        EvidentialFusionClassifier([("labels", LabelsOnly())]).fit(X, y)


def test_nan_scores_are_refused_with_a_message():
    from dstk.calibration._fusion import _score_probabilities

    with pytest.raises(ValueError, match="NaN or \\+inf"):
        _score_probabilities(np.array([[0.0, np.nan]]))
    np.testing.assert_array_equal(_score_probabilities(np.array([[0.0, -np.inf]])), [[1.0, 0.0]])
    np.testing.assert_allclose(
        _score_probabilities(np.array([2.0])), [[1 / (1 + np.exp(2.0)), 1 / (1 + np.exp(-2.0))]]
    )
