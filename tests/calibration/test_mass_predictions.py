"""The prediction methods derived from ``predict_mass`` (dstk._estimator.MassClassifierMixin).

References are brute force from the definitions: BetP (Smets and Kennes 1994, Eq. 3.1),
Bel({c}) = m({c}) and Pl({c}) = sum of m(A) over A containing c (Shafer 1976, ch. 2).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Frame, MassFunction
from dstk._estimator import BaseEstimator, MassClassifierMixin


class _Fixed(MassClassifierMixin, BaseEstimator):
    """Returns a given batch of mass functions whatever X is."""

    def __init__(self, mass=None, *, criterion="pignistic"):
        self.mass = mass
        self.criterion = criterion

    @property
    def classes_(self):
        return np.asarray(self.mass.frame.labels)

    def predict_mass(self, X):
        return self.mass


def _brute_force(m, n):
    """BetP, Bel({c}), Pl({c}) of dense masses ``m`` (n_samples, 2**n) from the definitions."""
    n_samples = m.shape[0]
    betp, bel, pl = np.zeros((n_samples, n)), np.zeros((n_samples, n)), np.zeros((n_samples, n))
    for i in range(n_samples):
        for a in range(1, 2**n):
            members = [c for c in range(n) if a >> c & 1]
            for c in members:
                betp[i, c] += m[i, a] / len(members) / (1.0 - m[i, 0])
                pl[i, c] += m[i, a]
        for c in range(n):
            bel[i, c] = m[i, 1 << c]
    return betp, bel, pl


def _random_masses(rng, n_samples, n, *, empty=True, sparse_zeros=False):
    m = rng.dirichlet(np.full(2**n, 0.5), size=n_samples)
    if sparse_zeros:
        m[:, rng.permutation(2**n)[: 2**n // 2]] = 0.0
        m[:, -1] += 1.0 - m.sum(axis=1)
    if not empty:
        m[:, -1] += m[:, 0]
        m[:, 0] = 0.0
    return m


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), sparse=st.booleans())
def test_probabilities_and_intervals_match_the_definitions(n, seed, sparse):
    rng = np.random.default_rng(seed)
    m = _random_masses(rng, 7, n, sparse_zeros=sparse)
    labels = [f"c{k}" for k in range(n)]
    frame = Frame(labels)
    if sparse:  # focal-set storage, as the evidential classifiers build it
        focal = np.flatnonzero(m.any(axis=0))
        mass = MassFunction.from_focal_sets(focal.tolist(), m[:, focal], frame, validate=False)
    else:
        mass = MassFunction.from_array(m, frame, validate=False)
    estimator = _Fixed(mass)
    betp, bel, pl = _brute_force(m, n)
    np.testing.assert_allclose(estimator.predict_proba(None), betp, rtol=1e-12, atol=1e-14)
    got_bel, got_pl = estimator.predict_interval(None)
    if n == 2:  # the positive class classes_[1] only
        bel, pl = bel[:, 1], pl[:, 1]
    np.testing.assert_allclose(got_bel, bel, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got_pl, pl, rtol=1e-12, atol=1e-14)
    assert np.all(got_bel <= got_pl) and np.all(got_pl <= 1.0)
    np.testing.assert_array_equal(estimator.predict(None), np.asarray(labels)[np.argmax(betp, axis=1)])


@pytest.mark.parametrize("criterion", ["plausibility", "belief"])
def test_predict_follows_the_criterion(criterion):
    rng = np.random.default_rng(3)
    m = _random_masses(rng, 40, 3, empty=False)
    mass = MassFunction.from_array(m, Frame(["x", "y", "z"]))
    _, bel, pl = _brute_force(m, 3)
    expected = np.array(["x", "y", "z"])[np.argmax(pl if criterion == "plausibility" else bel, axis=1)]
    np.testing.assert_array_equal(_Fixed(mass, criterion=criterion).predict(None), expected)


def test_nan_masses_give_nan_rows_and_a_clear_error_in_predict():
    m = _random_masses(np.random.default_rng(0), 4, 3)
    m[[1, 3]] = np.nan
    estimator = _Fixed(MassFunction.from_array(m, Frame(["x", "y", "z"]), validate=False))
    proba = estimator.predict_proba(None)
    assert np.isnan(proba[[1, 3]]).all() and np.isfinite(proba[[0, 2]]).all()
    _, pl = estimator.predict_interval(None)
    assert np.isnan(pl[[1, 3]]).all() and np.isfinite(pl[[0, 2]]).all()
    for criterion in ("pignistic", "plausibility"):
        with pytest.raises(ValueError, match=r"2 sample\(s\) have NaN masses .*indices \[1, 3\]"):
            _Fixed(estimator.mass, criterion=criterion).predict(None)


def test_total_conflict_without_nan_still_raises():
    m = np.zeros((2, 4))
    m[0, 3] = 1.0
    m[1, 0] = 1.0  # all mass on the empty set: BetP undefined
    with pytest.raises(ValueError, match="empty set"):
        _Fixed(MassFunction.from_array(m, Frame([0, 1]), validate=False)).predict_proba(None)


def test_plausibility_never_exceeds_one_after_rounding():
    m = np.array([[0.0, 0.0, 0.5, 0.5000000000000002]])  # m({1}) + m({0, 1}) = 1 + 2**-52
    assert m[0, 2] + m[0, 3] > 1.0
    bel, pl = _Fixed(MassFunction.from_array(m, Frame([0, 1]), validate=False)).predict_interval(None)
    assert pl[0] == 1.0 and bel[0] == m[0, 2]


def _fitted_estimators():
    from sklearn.linear_model import LogisticRegression

    from dstk.calibration import (
        ConformalBeliefClassifier,
        EvidentialCalibratedClassifier,
        EvidentialCombination,
        VennMulticlassClassifier,
    )
    from dstk.classifiers import EvidentialKNNClassifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 3))
    y = np.array(["a", "b", "c"])[np.digitize(X[:, 0] + rng.normal(scale=0.5, size=90), [-0.5, 0.5])]
    calibrated = EvidentialCalibratedClassifier(LogisticRegression()).fit(X, y)
    return X[:20], [
        ConformalBeliefClassifier(random_state=0).fit(X, y),
        VennMulticlassClassifier(random_state=0).fit(X, y),
        calibrated,
        EvidentialCombination([calibrated], criterion="plausibility"),
        EvidentialKNNClassifier(n_neighbors=5).fit(X, y),
    ]


def test_every_mass_classifier_derives_its_predictions_from_predict_mass():
    X, estimators = _fitted_estimators()
    for estimator in estimators:
        mass = estimator.predict_mass(X)
        m = mass.to_array("m")
        betp, bel, pl = _brute_force(m, m.shape[1].bit_length() - 1)
        if getattr(estimator, "_temperature", None) is not None:
            # evidential temperature scaling: the maximum-likelihood probabilities, inside [Bel, Pl]
            proba = estimator.predict_proba(X)
            assert np.all(bel <= proba + 1e-12) and np.all(proba <= pl + 1e-12)
            np.testing.assert_array_equal(np.argmax(proba, axis=1), np.argmax(betp, axis=1))
        else:
            np.testing.assert_allclose(estimator.predict_proba(X), betp, rtol=1e-12, atol=1e-14)
        got_bel, got_pl = estimator.predict_interval(X)
        np.testing.assert_allclose(got_bel, bel, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got_pl, pl, rtol=1e-12, atol=1e-14)
        criterion = getattr(estimator, "criterion", "pignistic")
        if type(estimator).__name__ == "ConformalBeliefClassifier":
            expected = estimator.classes_[np.argmax(estimator.predict_contour(X), axis=1)]
        elif criterion == "plausibility":
            expected = estimator.classes_[np.argmax(pl, axis=1)]
        else:
            expected = estimator.classes_[np.argmax(betp, axis=1)]
        np.testing.assert_array_equal(estimator.predict(X), expected)


def test_split_predictors_refuse_a_frozen_estimator_with_other_classes():
    from sklearn.frozen import FrozenEstimator
    from sklearn.linear_model import LogisticRegression

    from dstk.calibration import ConformalBeliefClassifier, VennMulticlassClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.repeat([0, 1, 2], 20)
    frozen = FrozenEstimator(LogisticRegression().fit(X, y))
    for owner in (ConformalBeliefClassifier(frozen), VennMulticlassClassifier(frozen)):
        with pytest.raises(ValueError, match="calibration label 3 is not a class"):
            owner.fit(X, np.where(y == 2, 3, y))
