"""Probes of loading tampered evidential estimators: shapes, infinities and ranges no fit produces."""

import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.datasets import load_iris, make_regression

from dstk.classifiers import (
    EvidentialKNNClassifier,
    EvidentialNeuralNetworkClassifier,
    EvidentialRegressor,
)
from dstk.exceptions import InvalidStateError


@pytest.fixture(scope="module")
def fitted():
    X, y = load_iris(return_X_y=True)
    Xr, yr = make_regression(60, 3, noise=5.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "knn": (EvidentialKNNClassifier().fit(X, y), X[:3]),
            "network": (EvidentialNeuralNetworkClassifier(random_state=0, max_iter=30).fit(X, y), X[:3]),
            "regressor": (
                EvidentialRegressor(n_prototypes=4, fit_scales=False, max_iter=30).fit(Xr, yr),
                Xr[:3],
            ),
        }


def _predict(estimator, X):
    if isinstance(estimator, EvidentialRegressor):
        return np.concatenate(estimator.predict_interval(X, level=0.9))
    return estimator.predict_proba(X)


# each of these loaded before and then predicted NaN, or failed in predict with numpy's broadcast or
# matmul message, or (a zero or negative scale) predicted numbers on a wrong scale
TAMPERED = [
    ("regressor", "target_scale_", lambda v: np.nan),
    ("regressor", "target_scale_", lambda v: -v),
    ("regressor", "target_mean_", lambda v: np.inf),
    ("regressor", "feature_scale_", lambda v: np.zeros_like(v)),
    ("regressor", "feature_scale_", lambda v: -v),
    ("regressor", "feature_mean_", lambda v: np.full_like(v, np.inf)),
    ("regressor", "prototypes_", lambda v: v[:, :2]),
    ("regressor", "coef_", lambda v: v[:2]),
    ("regressor", "intercept_", lambda v: np.r_[v, 1.0]),
    ("knn", "gamma_", lambda v: np.full_like(v, np.inf)),
    ("knn", "classes_", lambda v: v[:2]),
    ("knn", "n_classes_", lambda v: 7),
    ("network", "alpha_", lambda v: v * 5),
    ("network", "prototypes_", lambda v: np.full_like(v, np.inf)),
    ("network", "prototypes_", lambda v: v[:, :2]),
    ("network", "membership_", lambda v: v[:, :2] / v[:, :2].sum(axis=1, keepdims=True)),
]


@pytest.mark.parametrize(("name", "attribute", "change"), TAMPERED)
def test_a_tampered_pickle_is_refused_at_load(fitted, name, attribute, change):
    estimator, _ = fitted[name]
    state = dict(estimator.__getstate__())  # a copy: the fixture is shared
    state[attribute] = change(state[attribute])
    restored = pickle.loads(pickle.dumps(estimator))
    with pytest.raises(InvalidStateError, match=f"`{attribute}`|not a fitted state"):
        restored.__setstate__(state)


@pytest.mark.parametrize("name", ["knn", "network", "regressor"])
def test_an_untampered_pickle_predicts_the_same(fitted, name):
    estimator, X = fitted[name]
    restored = pickle.loads(pickle.dumps(estimator))
    np.testing.assert_array_equal(_predict(restored, X), _predict(estimator, X))


@pytest.mark.parametrize("name", ["knn", "network", "regressor"])
def test_an_unfitted_estimator_pickles(fitted, name):
    estimator = type(fitted[name][0])()
    assert pickle.loads(pickle.dumps(estimator)).get_params() == estimator.get_params()
