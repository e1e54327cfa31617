"""Evidential temperature scaling of more than two classes (EvidentialCalibratedClassifier's default)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk.calibration import EvidentialCalibratedClassifier
from dstk.calibration._temperature import TemperatureCalibration


def _calibration_data(seed, n=60, n_classes=3, sharpness=1.5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    logits = rng.normal(size=(n, n_classes))
    logits[np.arange(n), y] += sharpness
    return logits, y


def _brute_force_masses(logits, y, z, a_max=20.0, n_grid=8001, n_levels=2000):
    """m({k}) = int_0^1 min {p_k(a) : pl(a) >= g} dg from the definition: the relative likelihood on a
    fine grid of a (no optimiser, no root finding, no endpoint argument), the minimum over the grid points
    of each level set, the integral by the midpoint rule over the levels."""
    grid = np.linspace(0.0, a_max, n_grid)
    log_l = np.empty(grid.size)
    for j, a in enumerate(grid):
        scaled = a * logits
        shifted = scaled - scaled.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        log_l[j] = log_p[np.arange(y.size), y].sum()
    pl = np.exp(log_l - log_l.max())
    scaled = grid[:, None] * z[None, :]
    p = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)  # (n_grid, n_classes)
    levels = (np.arange(n_levels) + 0.5) / n_levels
    masses = np.zeros(z.size)
    for g in levels:
        masses += p[pl >= g].min(axis=0)
    return masses / n_levels


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_predictive_masses_equal_the_integral_of_the_definition(seed):
    logits, y = _calibration_data(seed, n=40 + 20 * seed)
    calibration = TemperatureCalibration().fit(logits, y)
    assert calibration.inverse_temperature_ < 20.0  # inside the brute-force grid
    rng = np.random.default_rng(seed + 10)
    tests = np.vstack([rng.normal(scale=2.0, size=(3, 3)), [[0.0, 0.0, 0.0], [5.0, -1.0, 0.5]]])
    masses = calibration.singleton_masses(tests)
    for z, row in zip(tests, masses):
        expected = _brute_force_masses(logits, y, z)
        np.testing.assert_allclose(row, expected, atol=2e-3)
    assert np.all(masses.sum(axis=1) <= 1.0 + 1e-12) and np.all(masses >= 0)


def test_the_maximum_likelihood_temperature_matches_scikit_learn():
    from sklearn.calibration import _TemperatureScaling  # scikit-learn >= 1.8

    logits, y = _calibration_data(4, n=200, n_classes=4)
    ours = TemperatureCalibration().fit(logits, y)
    theirs = _TemperatureScaling().fit(logits, y)
    assert ours.inverse_temperature_ == pytest.approx(float(theirs.beta_), rel=1e-6)
    np.testing.assert_allclose(ours.proba(logits), theirs.predict(logits), rtol=1e-6, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n_classes=st.integers(3, 6),
    sharpness=st.floats(-1.0, 4.0),
    test=st.lists(st.floats(-30, 30), min_size=6, max_size=6),
)
def test_the_calibration_keeps_the_predicted_class(seed, n_classes, sharpness, test):
    logits, y = _calibration_data(seed, n=30, n_classes=n_classes, sharpness=sharpness)
    calibration = TemperatureCalibration().fit(logits, y)
    z = np.array(test[:n_classes])[None, :]
    masses = calibration.singleton_masses(z)[0]
    frame = 1.0 - masses.sum()
    assert -1e-12 <= frame <= 1.0 and np.all(masses >= 0)
    betp = masses + frame / n_classes
    proba = calibration.proba(z)[0]
    winners = np.flatnonzero(z[0] == z[0].max())
    # the class of largest logit keeps the largest mass, pignistic probability and probability
    assert masses[winners].max() >= masses.max() - 1e-12
    assert betp[winners].max() >= betp.max() - 1e-12
    assert proba[winners].max() >= proba.max() - 1e-12
    # the maximum-likelihood probabilities lie in [Bel, Pl] of the predictive mass
    assert np.all(masses <= proba + 1e-9) and np.all(proba <= masses + frame + 1e-9)


@pytest.fixture(scope="module")
def iris_split():
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split

    X, y = load_iris(return_X_y=True)
    return train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)


def test_default_of_three_classes_keeps_the_base_classifier_accuracy(iris_split):
    from sklearn.frozen import FrozenEstimator
    from sklearn.linear_model import LogisticRegression

    X_train, X_test, y_train, y_test = iris_split
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = LogisticRegression(max_iter=1000).fit(X_train[::2], y_train[::2])
    model = EvidentialCalibratedClassifier(FrozenEstimator(base)).fit(X_train[1::2], y_train[1::2])
    # a prefit classifier: the calibrated decision is the base classifier's, sample by sample
    np.testing.assert_array_equal(model.predict(X_test), base.predict(X_test))
    proba = model.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    bel, pl = model.predict_interval(X_test)
    assert np.all(bel <= proba + 1e-9) and np.all(proba <= pl + 1e-9)
    mass = model.predict_mass(X_test)
    assert tuple(mass.frame.labels) == tuple(model.classes_.tolist())
    dense = mass.to_array("m")
    focal = np.flatnonzero(dense.sum(axis=0) > 0)
    assert set(focal.tolist()) <= {1, 2, 4, 7}  # singletons and the frame
    assert np.mean(model.predict(X_test) == y_test) >= 0.9


def test_one_vs_rest_and_bayes_remain_available(iris_split):
    from sklearn.linear_model import LogisticRegression

    X_train, X_test, y_train, _ = iris_split
    base = LogisticRegression(max_iter=1000)
    bayes = EvidentialCalibratedClassifier(base, model="bayes", cv=3).fit(X_train, y_train)
    masses = bayes.predict_mass(X_test).to_array("m")
    np.testing.assert_allclose(masses[:, -1], 0.0)  # Bayesian: no mass on the frame
    np.testing.assert_allclose(masses[:, [1, 2, 4]], bayes.predict_proba(X_test), atol=1e-12)
    ovr = EvidentialCalibratedClassifier(base, multiclass="one_vs_rest", cv=3).fit(X_train, y_train)
    assert len(ovr.calibrated_classifiers_[0][1]) == 3  # one calibrator per class
    isotonic = EvidentialCalibratedClassifier(base, method="isotonic", cv=3).fit(X_train, y_train)
    assert len(isotonic.calibrated_classifiers_[0][1]) == 3  # "auto": one-vs-rest for the other methods


def test_bad_multiclass_values_are_named(iris_split):
    X_train, _, y_train, _ = iris_split
    with pytest.raises(ValueError, match="`multiclass`"):
        EvidentialCalibratedClassifier(multiclass="ovr").fit(X_train, y_train)
    with pytest.raises(ValueError, match="multiclass='one_vs_rest'"):
        EvidentialCalibratedClassifier(multiclass="temperature", model="confidence_interval").fit(
            X_train, y_train
        )
