"""The per-sample total-conflict policy ``on_conflict`` of dstk.combine and the estimators built on it.

Reference: the samples without total conflict must equal their combination
alone (the "raise" path on the subset), and the conflicting samples get the
policy's value; the indices are reported in the error and in the warning.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import MassFunction, combine, combine_with_conflict
from dstk.exceptions import ConflictWarning, TotalConflictError


def _sources(n_samples, n_sources, frame_size, conflicting, seed):
    """Random dense sources; at the ``conflicting`` rows two sources are certain of different labels."""
    rng = np.random.RandomState(seed)
    arrays = [rng.dirichlet(np.ones(2**frame_size) * 0.5, n_samples) for _ in range(n_sources)]
    for a in arrays:
        a[:, 0] = 0.0
        a /= a.sum(axis=1, keepdims=True)
    for row in conflicting:
        arrays[0][row] = 0.0
        arrays[0][row, 1] = 1.0  # {label 0}
        arrays[1][row] = 0.0
        arrays[1][row, 2] = 1.0  # {label 1}
    frame = tuple(range(frame_size))
    return [MassFunction.from_array(a, frame) for a in arrays]


def _check_policy(sources, bad, rule="dempster", **options):
    n = sources[0].batch_shape[0]
    good = np.setdiff1d(np.arange(n), bad)
    with pytest.raises(TotalConflictError) as caught:
        combine(sources, rule=rule, **options)
    np.testing.assert_array_equal(caught.value.indices, bad)
    assert f"[{', '.join(map(str, bad[:20]))}" in str(caught.value)
    reference = combine([s.batch[good] for s in sources], rule=rule, **options).to_array()
    for policy in ("vacuous", "nan"):
        with pytest.warns(ConflictWarning, match=r"indices \[" + ", ".join(map(str, bad[:20]))):
            result, kappa = combine_with_conflict(sources, rule=rule, on_conflict=policy, **options)
        values = result.to_array()
        np.testing.assert_allclose(values[good], reference, rtol=0, atol=1e-14)
        np.testing.assert_array_equal(kappa[bad], 1.0)
        if policy == "vacuous":
            expected = np.zeros(values.shape[-1])
            expected[-1] = 1.0
            np.testing.assert_array_equal(values[bad], np.broadcast_to(expected, values[bad].shape))
        else:
            assert np.isnan(values[bad]).all()


@pytest.mark.parametrize("n_sources", [2, 3, 17])
def test_dempster_policy_dense(n_sources):
    bad = np.array([0, 4, 5])
    _check_policy(_sources(9, n_sources, 3, bad, seed=n_sources), bad)


def test_normalised_cautious_policy():
    bad = np.array([2])
    sources = [s.discount(0.0) for s in _sources(5, 2, 2, bad, seed=1)]
    sources = [
        MassFunction.from_array(np.where(np.arange(4) == 3, 1e-3, 0) + 0.999 * s.to_array(), (0, 1))
        for s in sources
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConflictWarning)
        out = combine(sources, rule="cautious", normalize=True, on_conflict="vacuous").to_array()
    assert np.all(np.isfinite(out)) and np.allclose(out.sum(axis=1), 1.0)


def test_policy_on_one_batched_mass_function_along_an_axis():
    bad = np.array([1, 3])
    sources = _sources(4, 3, 2, bad, seed=4)
    stacked = MassFunction.stack(sources, axis=1)  # (samples, sources)
    with pytest.warns(ConflictWarning):
        out = combine(stacked, axis=1, on_conflict="vacuous").to_array()
    with pytest.warns(ConflictWarning):
        listed = combine(sources, on_conflict="vacuous").to_array()
    np.testing.assert_array_equal(out, listed)


def test_policy_in_focal_set_form():
    """Frames of more than 16 labels are stored as focal sets; the policy works there too."""
    labels = [f"c{i}" for i in range(18)]
    rng = np.random.RandomState(0)
    a_masses = rng.dirichlet(np.ones(3), 4)
    b_masses = rng.dirichlet(np.ones(3), 4)
    a_masses[2] = [1.0, 0.0, 0.0]
    b_masses[2] = [1.0, 0.0, 0.0]
    a = MassFunction.from_focal_sets([1, 3, (1 << 18) - 1], a_masses, labels)
    b = MassFunction.from_focal_sets([2, 6, (1 << 18) - 1], b_masses, labels)
    assert not a.is_dense
    with pytest.raises(TotalConflictError) as caught:
        combine([a, b])
    np.testing.assert_array_equal(caught.value.indices, [2])
    with pytest.warns(ConflictWarning):
        out = combine([a, b, a], on_conflict="vacuous")
    assert out.focal_sets() if out.batch_shape == () else True
    reference = combine([x.batch[[0, 1, 3]] for x in (a, b, a)])
    np.testing.assert_allclose(out.batch[[0, 1, 3]].to_array(), reference.to_array(), atol=1e-14)
    assert out.batch[2].focal_sets() == {frozenset(labels): 1.0}


@settings(max_examples=25, deadline=None)
@given(
    n_samples=st.integers(1, 12),
    n_sources=st.integers(2, 5),
    frame_size=st.integers(2, 4),
    seed=st.integers(0, 10_000),
    data=st.data(),
)
def test_policy_law(n_samples, n_sources, frame_size, seed, data):
    bad = np.array(sorted(data.draw(st.sets(st.integers(0, n_samples - 1), min_size=1))))
    sources = _sources(n_samples, n_sources, frame_size, bad, seed)
    if bad.size == n_samples:
        with pytest.warns(ConflictWarning):
            out = combine(sources, on_conflict="vacuous").to_array()
        assert np.all(out[:, -1] == 1.0)
        return
    _check_policy(sources, bad)


def test_policy_argument_is_checked():
    sources = _sources(2, 2, 2, [], seed=0)
    with pytest.raises(ValueError, match="on_conflict"):
        combine(sources, on_conflict="ignore")


def test_combine_classifiers_and_evidential_combination():
    from dstk.calibration import BinningCalibrator, EvidentialCombination, combine_classifiers

    scores = np.array([-2.0, -1.0, 1.0, 2.0])
    y = np.array([0, 0, 1, 1])
    sure = BinningCalibrator(bins=[-3, 0, 3], model="bayes").fit(scores, y)  # probabilities 0 and 1
    flipped = BinningCalibrator(bins=[-3, 0, 3], model="bayes").fit(scores, 1 - y)
    X = [-1.5, 1.5]
    with pytest.raises(TotalConflictError, match=r"indices \[0, 1\]"):
        combine_classifiers([sure, flipped], X)
    with pytest.warns(ConflictWarning, match=r"\[0, 1\]"):
        m = combine_classifiers([sure, flipped], X, on_conflict="nan")
    assert np.isnan(m.to_array()).all()
    ensemble = EvidentialCombination([sure, flipped])  # estimator default: every sample gets a prediction
    with pytest.warns(ConflictWarning):
        predicted = ensemble.predict(X)
    assert predicted.shape == (2,)
    with pytest.warns(ConflictWarning):
        np.testing.assert_allclose(ensemble.predict_proba(X), 0.5)
    with pytest.raises(ValueError, match="on_conflict"):
        EvidentialCombination([sure], on_conflict="drop")


def test_evidential_calibrated_classifier_default_predicts_every_sample():
    """The case of the issue: the multi-class meta-estimator raised for a whole batch (wine data)."""
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_wine
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from dstk.calibration import EvidentialCalibratedClassifier

    X, y = load_wine(return_X_y=True)
    order = np.random.RandomState(0).permutation(len(y))
    train, test = order[:90], order[90:]
    base = make_pipeline(StandardScaler(), LogisticRegression())
    options = {"method": "isotonic", "model": "bayes", "cv": 3}
    strict = EvidentialCalibratedClassifier(base, on_conflict="raise", **options).fit(X[train], y[train])
    with pytest.raises(TotalConflictError) as caught:
        strict.predict(X[test])
    bad = caught.value.indices
    assert bad.size > 0
    default = EvidentialCalibratedClassifier(base, **options).fit(X[train], y[train])
    with pytest.warns(ConflictWarning, match="indices"):
        proba = default.predict_proba(X[test])
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    with pytest.warns(ConflictWarning):
        assert default.predict(X[test]).shape == (len(test),)
    nan = EvidentialCalibratedClassifier(base, on_conflict="nan", **options).fit(X[train], y[train])
    with pytest.warns(ConflictWarning):
        nan_rows = np.isnan(nan.predict_proba(X[test])).any(axis=1)
    assert nan_rows[bad].all() and not nan_rows.all()  # a fold that conflicts makes the averaged row NaN
    with pytest.warns(ConflictWarning), pytest.raises(ValueError, match="NaN has no label"):
        nan.predict(X[test])
