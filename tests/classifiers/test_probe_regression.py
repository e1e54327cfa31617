"""Probes of EvidentialRegressor at extreme feature and target scales."""

import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore::dstk.exceptions.ConvergenceWarning")

pytest.importorskip("sklearn")
from sklearn.datasets import make_regression  # noqa: E402

from dstk.classifiers import EvidentialRegressor  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return make_regression(60, 3, noise=5.0, random_state=0)


@pytest.fixture(scope="module")
def fitted(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a convergence warning: 200 iterations suffice here
        return EvidentialRegressor(n_prototypes=4, fit_scales=False, max_iter=200).fit(X, y)


@pytest.mark.parametrize("factor", [1e154, 1e-200])
def test_fit_does_not_depend_on_the_scale_of_the_features(data, fitted, factor):
    # the features are standardised inside: the squares of deviations of 1e154 must not overflow (the
    # scale became inf and every prediction the mean), nor those of 1e-200 underflow (the scale became 1)
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        scaled = EvidentialRegressor(n_prototypes=4, fit_scales=False, max_iter=200).fit(X * factor, y)
    np.testing.assert_allclose(scaled.feature_scale_ / factor, fitted.feature_scale_, rtol=1e-12)
    assert scaled.score(X * factor, y) == pytest.approx(fitted.score(X, y), abs=0.01)


def test_fit_does_not_depend_on_the_scale_of_the_target(data, fitted):
    X, y = data
    scaled = EvidentialRegressor(n_prototypes=4, fit_scales=False, max_iter=200).fit(X, y * 1e100)
    assert scaled.target_scale_ / 1e100 == pytest.approx(fitted.target_scale_, rel=1e-12)
    assert scaled.score(X, y * 1e100) == pytest.approx(fitted.score(X, y), abs=0.01)


@pytest.mark.parametrize("factor", [1e200, 1e-200])
def test_targets_beyond_the_range_of_the_precisions_are_refused(data, factor):
    # the precision h / scale**2 leaves float64 (Python's OverflowError in predict_grfn before)
    X, y = data
    with pytest.raises(ValueError, match="Rescale y"):
        EvidentialRegressor(n_prototypes=4, max_iter=5).fit(X, y * factor)


def test_far_samples_get_the_limit_of_the_nearest_prototype(fitted):
    # squared distances beyond float64: precision 0 (ignorance), mean of the prototype of least
    # gamma_k^2 ||z - w_k||^2 (the limit of Denoeux 2023b, Eqs. (17)-(19) as the distance grows)
    direction = np.array([[1.0, -0.5, 0.25]])
    far = direction * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        grfn = fitted.predict_grfn(far)
    assert np.all(np.isfinite(grfn.mean)) and np.all(grfn.precision == 0)
    # the same limit reached at a large but representable distance
    Z = (direction * 1e100 - fitted.feature_mean_) / fitted.feature_scale_
    nearest = np.argmin(fitted.gamma_**2 * ((Z / 1e100 - fitted.prototypes_ / 1e100) ** 2).sum(axis=1))
    Zfar = (far - fitted.feature_mean_) / fitted.feature_scale_
    expected = fitted.intercept_[nearest] + Zfar[0] @ fitted.coef_[nearest]
    np.testing.assert_allclose(grfn.mean, fitted.target_mean_ + fitted.target_scale_ * expected, rtol=1e-12)
    lower, upper = fitted.predict_interval(far, level=0.9)
    assert np.all(lower <= grfn.mean) and np.all(grfn.mean <= upper)
