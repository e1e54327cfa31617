"""Second probe of EvidentialRegressor: interval coverage on data of known noise, nesting, constant X."""

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from dstk.classifiers import EvidentialRegressor
from dstk.exceptions import ConvergenceWarning


@pytest.fixture(scope="module")
def _model_and_test_data():
    rng = np.random.default_rng(1)
    sigma = 0.5
    X = rng.uniform(-3, 3, size=(400, 1))
    y = np.sin(X[:, 0]) + sigma * rng.normal(size=400)
    X_test = rng.uniform(-3, 3, size=(4000, 1))
    y_test = np.sin(X_test[:, 0]) + sigma * rng.normal(size=4000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = EvidentialRegressor(n_prototypes=10, random_state=0).fit(X, y)
    return model, X_test, y_test


def test_interval_coverage_on_gaussian_noise(_model_and_test_data):
    """Inside the training range the epistemic part is small: the 90% intervals cover about 90% of new
    targets of noise N(0, 0.5^2), belief at least as much as the probabilistic one, plausibility less."""
    model, X_test, y_test = _model_and_test_data
    coverage = {}
    for kind in ("belief", "probabilistic", "plausibility"):
        lower, upper = model.predict_interval(X_test, level=0.9, kind=kind)
        coverage[kind] = np.mean((y_test >= lower) & (y_test <= upper))
    assert 0.87 <= coverage["probabilistic"] <= 0.94
    assert coverage["plausibility"] <= coverage["probabilistic"] <= coverage["belief"] <= 0.97


def test_intervals_nest_by_level_and_kind(_model_and_test_data):
    model, _, _ = _model_and_test_data
    X = np.linspace(-6, 6, 121)[:, None]  # outside the training range too
    centre = model.predict(X)
    for kind in ("belief", "plausibility", "probabilistic"):
        previous = (centre, centre)
        for level in (0.5, 0.8, 0.9, 0.99):
            lower, upper = model.predict_interval(X, level=level, kind=kind)
            assert np.all(lower <= previous[0] + 1e-9) and np.all(upper >= previous[1] - 1e-9)
            previous = (lower, upper)
    b_lower, b_upper = model.predict_interval(X, level=0.9, kind="belief")
    p_lower, p_upper = model.predict_interval(X, level=0.9, kind="plausibility")
    assert np.all(b_lower <= p_lower + 1e-9) and np.all(p_upper <= b_upper + 1e-9)


def test_constant_features_predict_the_mean_and_spread_of_y():
    rng = np.random.default_rng(0)
    y = rng.normal(3.0, 2.0, size=300)
    model = EvidentialRegressor(n_prototypes=3, random_state=0).fit(np.zeros((300, 2)), y)
    np.testing.assert_allclose(model.predict(np.zeros((1, 2))), y.mean(), atol=0.01)
    lower, upper = model.predict_interval(np.zeros((1, 2)), level=0.9, kind="probabilistic")
    np.testing.assert_allclose(upper - lower, 2 * 1.6449 * y.std(), rtol=0.05)
