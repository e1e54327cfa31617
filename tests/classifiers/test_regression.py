"""EvidentialRegressor (ENNreg, Denoeux 2023, IEEE TFS 31): loss, gradient, prediction and conventions.

Independent references: the loss's Bel/Pl against :class:`GaussianRandomFuzzyNumber` (itself checked
against quadrature of the definition in tests/reasoning), the analytic gradient against finite differences
(:func:`scipy.optimize.check_grad`), and the prediction against the hard-normalized combination of the
prototypes' numbers (:func:`dstk.reasoning.combine_grfn`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize

pytest.importorskip("sklearn")

from dstk.classifiers import EvidentialRegressor
from dstk.classifiers._regression import _ennreg_loss, _interval_bel_pl, _LossSettings
from dstk.reasoning import GaussianRandomFuzzyNumber, combine_grfn


def _sine(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    return X, y


def test_loss_bel_and_pl_are_the_numbers_bel_and_pl():
    rng = np.random.default_rng(1)
    mean, variance, precision = rng.normal(size=50), rng.uniform(0.01, 3, 50), rng.uniform(0.01, 10, 50)
    lower = rng.normal(size=50)
    upper = lower + rng.uniform(0, 1, 50)
    bel, pl, _, _ = _interval_bel_pl(lower, upper, mean, variance, precision)
    number = GaussianRandomFuzzyNumber(mean, np.sqrt(variance), precision)
    np.testing.assert_allclose(bel, number.bel(lower, upper), atol=1e-14)
    np.testing.assert_allclose(pl, number.pl(lower, upper), atol=1e-14)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    n, p, k = 60, 3, 4
    # targets near the predictions and a wide interval: Bel([t - eps, t + eps]) far from 0, where the
    # closed form (a difference of O(eps) terms) keeps enough digits for finite differences of its log
    Z, t = rng.normal(size=(n, p)), 0.3 * rng.normal(size=n)
    weights = rng.uniform(0.5, 1.5, n)
    weights /= weights.sum()
    shapes = [(k,), (k, p), (k,), (k,), (k,), (k, p)]
    theta = np.concatenate(
        [
            0.2 * rng.normal(size=k),
            0.1 * rng.normal(size=k * p),
            rng.uniform(0.3, 1.0, k),
            rng.uniform(0.8, 2.0, k),
            rng.uniform(0.3, 1.0, k),
            rng.normal(size=k * p),
        ]
    )
    settings = _LossSettings(epsilon=0.3, belief_weight=0.8, precision_penalty=0.1, scale_penalty=0.2)
    value = lambda th: _ennreg_loss(th, shapes, Z, t, weights, settings)[0]  # noqa: E731
    gradient = lambda th: _ennreg_loss(th, shapes, Z, t, weights, settings)[1]  # noqa: E731
    error = optimize.check_grad(value, gradient, theta, epsilon=1e-7)
    assert error < 1e-5 * np.linalg.norm(gradient(theta))


def test_prediction_is_the_hard_combination_of_the_prototypes_numbers():
    X, y = _sine()
    model = EvidentialRegressor(n_prototypes=5, random_state=0).fit(X, y)
    X_new = np.array([[-2.5], [0.0], [1.3]])
    Z = (X_new - model.feature_mean_) / model.feature_scale_
    activation = np.exp(-(model.gamma_**2) * ((Z[:, None, :] - model.prototypes_[None]) ** 2).sum(axis=2))
    numbers = [
        GaussianRandomFuzzyNumber(
            model.intercept_[k] + Z @ model.coef_[k], model.std_[k], activation[:, k] * model.precision_[k]
        )
        for k in range(model.prototypes_.shape[0])
    ]
    combined, conflict = combine_grfn(numbers, normalization="hard")
    predicted = model.predict_grfn(X_new)
    scale = model.target_scale_
    np.testing.assert_allclose(predicted.mean, model.target_mean_ + scale * combined.mean, rtol=1e-12)
    np.testing.assert_allclose(predicted.std, scale * combined.std, rtol=1e-12)
    np.testing.assert_allclose(predicted.precision, combined.precision / scale**2, rtol=1e-12)
    np.testing.assert_allclose(conflict, 0.0)
    np.testing.assert_allclose(model.predict(X_new), predicted.mean)


def test_fits_a_nonlinear_curve_and_its_intervals_cover():
    X, y = _sine(400)
    model = EvidentialRegressor(n_prototypes=10, random_state=0).fit(X[:300], y[:300])
    assert model.score(X[300:], y[300:]) > 0.9
    lower, upper = model.predict_interval(X[300:], level=0.9)
    assert np.mean((lower <= y[300:]) & (y[300:] <= upper)) >= 0.85
    p_lower, p_upper = model.predict_interval(X[300:], level=0.9, kind="probabilistic")
    assert (lower <= p_lower + 1e-9).all() and (p_upper <= upper + 1e-9).all()


def test_data_frames_weights_and_refit():
    pd = pytest.importorskip("pandas")
    X, y = _sine(100)
    frame = pd.DataFrame(X, columns=["x"])
    model = EvidentialRegressor(n_prototypes=4, random_state=0).fit(frame, pd.Series(y))
    assert list(model.feature_names_in_) == ["x"] and model.n_features_in_ == 1
    # weights are normalised: a constant weight is no weight
    weighted = EvidentialRegressor(n_prototypes=4, random_state=0).fit(
        frame, y, sample_weight=np.full(100, 3.0)
    )
    np.testing.assert_allclose(weighted.predict(frame), model.predict(frame), rtol=1e-10)


def test_constant_target_is_predicted():
    X, _ = _sine(50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = EvidentialRegressor(n_prototypes=3, random_state=0).fit(X, np.full(50, 2.5))
    np.testing.assert_allclose(model.predict(X[:5]), 2.5, atol=1e-6)


@pytest.mark.parametrize(
    "parameter, value",
    [
        ("n_prototypes", 0),
        ("belief_weight", 1.5),
        ("epsilon", 0.0),
        ("precision_penalty", -1.0),
        ("scale_penalty", np.nan),
        ("fit_scales", "yes"),
        ("validation_fraction", 1.0),
        ("max_iter", 0),
        ("tol", -1.0),
    ],
)
def test_bad_parameters_are_named(parameter, value):
    X, y = _sine(20)
    with pytest.raises(ValueError, match=parameter):
        EvidentialRegressor(**{parameter: value}).fit(X, y)


def test_bad_prediction_options_are_named():
    X, y = _sine(40)
    model = EvidentialRegressor(n_prototypes=2, max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    with pytest.raises(ValueError, match="level"):
        model.predict_interval(X, level=95)
    with pytest.raises(ValueError, match="kind"):
        model.predict_interval(X, kind="credal")
    with pytest.raises(ValueError, match="samples"):
        EvidentialRegressor().fit(X[:1], y[:1])


def test_held_scales_leave_the_linear_basin_on_friedman1():
    """Independent reference: scikit-learn's LinearRegression on the same split.

    Trained with the scales (the default, as the paper), ENNreg ends as one global linear model on
    make_friedman1 (its test RMSE equals LinearRegression's); with the scales held at their k-means
    values (``fit_scales=False``) it fits the interaction and the sine well below the linear model.
    """
    from sklearn.datasets import make_friedman1
    from sklearn.linear_model import LinearRegression

    X, y = make_friedman1(n_samples=600, noise=1.0, random_state=0)
    train, test = slice(0, 400), slice(400, None)

    def rmse(model):
        return float(np.sqrt(np.mean((model.predict(X[test]) - y[test]) ** 2)))

    linear = rmse(LinearRegression().fit(X[train], y[train]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        held = EvidentialRegressor(random_state=0, fit_scales=False).fit(X[train], y[train])
        trained = EvidentialRegressor(random_state=0, fit_scales=True).fit(X[train], y[train])
    np.testing.assert_array_equal(held.gamma_ > 0, True)
    assert rmse(held) < 0.7 * linear
    assert rmse(trained) > 0.9 * linear  # the collapse that fit_scales=False avoids


def test_auto_scales_choose_by_validation_rmse_and_refit_the_choice():
    """``fit_scales="auto"``: the choice is the setting of lower RMSE on a held-out part, refitted on all rows.

    Independent references: scikit-learn's LinearRegression on the same splits (friedman1's interaction
    and sine are out of reach of a linear model, diabetes is nearly linear), and the held-out RMSE of the
    two settings recomputed here from fits of the fixed settings on the same rows.
    """
    from sklearn.datasets import load_diabetes, make_friedman1
    from sklearn.linear_model import LinearRegression

    def rmse(model, X, y):
        return float(np.sqrt(np.mean((model.predict(X) - y) ** 2)))

    cases = [make_friedman1(n_samples=600, noise=1.0, random_state=0), load_diabetes(return_X_y=True)]
    chosen = []
    for X, y in cases:
        train, test = slice(0, 400), slice(400, None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = EvidentialRegressor(random_state=0).fit(X[train], y[train])
            # the refit is the fixed setting fitted on all the training rows
            fixed = EvidentialRegressor(random_state=0, fit_scales=model.fit_scales_).fit(X[train], y[train])
        np.testing.assert_allclose(model.predict(X[test]), fixed.predict(X[test]), rtol=1e-10)
        # the held-out RMSE of both settings, recomputed from the same 80/20 split of the rows
        order = np.random.RandomState(0).permutation(400)
        held, kept = np.sort(order[:80]), order[80:]
        rows = np.lexsort(np.column_stack([X[train], y[train]]).T[::-1])  # fit sees the rows sorted
        Xs, ys = X[train][rows], y[train][rows]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for j, setting in enumerate((True, False)):
                part = EvidentialRegressor(random_state=0, fit_scales=setting).fit(Xs[kept], ys[kept])
                np.testing.assert_allclose(
                    rmse(part, Xs[held], ys[held]), model.validation_rmse_[j], rtol=1e-10
                )
        assert model.fit_scales_ == bool(model.validation_rmse_[0] <= model.validation_rmse_[1])
        linear = rmse(LinearRegression().fit(X[train], y[train]), X[test], y[test])
        chosen.append((model.fit_scales_, rmse(model, X[test], y[test]) / linear))
    (friedman_scales, friedman_ratio), (diabetes_scales, diabetes_ratio) = chosen
    assert friedman_scales is False and friedman_ratio < 0.6
    assert diabetes_scales is True and diabetes_ratio < 1.05


def test_auto_scales_without_validation_on_few_rows():
    X, y = _sine(15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = EvidentialRegressor(n_prototypes=3, random_state=0).fit(X, y)
    assert model.fit_scales_ is True and model.validation_rmse_ is None
