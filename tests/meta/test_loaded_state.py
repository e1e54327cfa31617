"""Every dstk estimator, fitted then pickled with a tampered fitted array, refuses to load.

pickle and skops rebuild a fitted estimator without running ``fit``: a state
that no fit produces (NaN in a fitted array, a mass table whose rows are not
mass functions, negative counts or scales, unsorted edges) must raise
InvalidStateError at load instead of giving silent nonsense.  The untampered
round trip must load and predict the same floats (no false alarm).  The
estimators and their data are those of the bad-input table.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from dstk.exceptions import InvalidStateError
from tests.meta.test_bad_inputs import ESTIMATORS

pytest.importorskip("sklearn")


def _fitted(name):
    _kind, make, X, y = ESTIMATORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(X, y), X


def _float_arrays(estimator):
    return [k for k, v in vars(estimator).items() if isinstance(v, np.ndarray) and v.dtype.kind == "f"]


def _outputs(estimator, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("predict_proba", "predict_mass", "predict", "decision_function", "transform"):
            if hasattr(estimator, method):
                out = getattr(estimator, method)(X)
                return out.to_array() if hasattr(out, "to_array") else np.asarray(out)
    raise AssertionError(f"{type(estimator).__name__} has no prediction method")


def _tampered_pickle(estimator, attribute, change):
    """Pickle ``estimator`` with ``attribute`` replaced by ``change(copy of it)``, without touching it."""
    original = getattr(estimator, attribute)
    tampered = np.array(original, copy=True)
    change(tampered)
    setattr(estimator, attribute, tampered)
    try:
        return pickle.dumps(estimator)
    finally:
        setattr(estimator, attribute, original)


def _set_nan(a):
    a.flat[0] = np.nan


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_round_trip_loads_and_predicts_the_same(name):
    estimator, X = _fitted(name)
    loaded = pickle.loads(pickle.dumps(estimator))
    np.testing.assert_array_equal(_outputs(loaded, X), _outputs(estimator, X))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_nan_in_any_fitted_array_is_refused_at_load(name):
    estimator, _X = _fitted(name)
    attributes = [a for a in _float_arrays(estimator) if getattr(estimator, a).size]
    for attribute in attributes:
        data = _tampered_pickle(estimator, attribute, _set_nan)
        with pytest.raises(InvalidStateError, match=rf"{type(estimator).__name__}.*`{attribute}` holds NaN"):
            pickle.loads(data)


@pytest.mark.parametrize(
    "name, attribute, change, message",
    [
        ("BinningCalibrator", "mass_table_", lambda a: a.__setitem__(0, [0.0, -1.0, 2.0, 0.0]), "negative"),
        ("IsotonicCalibrator", "mass_table_", lambda a: a.__setitem__(0, [0.0, 1.0, 1.0, 1.0]), "sum to one"),
        ("EvidentialNeuralNetworkClassifier", "membership_", lambda a: a.__imul__(3.0), "sum to one"),
        ("DirichletCalibrator", "class_prior_", lambda a: a.__setitem__(0, -0.5), "negative"),
        ("EvidentialKNNClassifier", "gamma_", lambda a: a.__setitem__(0, -1.0), "negative"),
        ("EvidentialNeuralNetworkClassifier", "alpha_", lambda a: a.__setitem__(0, -0.1), "negative"),
        ("BinningCalibrator", "bin_counts_", lambda a: a.__setitem__(0, -3.0), "negative"),
        ("BinningCalibrator", "edges_", lambda a: a.__setitem__(slice(None), a[::-1].copy()), "not sorted"),
        (
            "VennAbersCalibrator",
            "unique_scores_",
            lambda a: a.__setitem__(slice(None), a[::-1].copy()),
            "sorted",
        ),
        ("IsotonicCalibrator", "thresholds_", lambda a: a.__setitem__(slice(None), a[::-1].copy()), "sorted"),
    ],
)
def test_impossible_fitted_values_are_refused_at_load(name, attribute, change, message):
    estimator, _X = _fitted(name)
    with pytest.raises(InvalidStateError, match=message):
        pickle.loads(_tampered_pickle(estimator, attribute, change))


def test_skops_file_with_a_tampered_array_is_refused():
    sio = pytest.importorskip("skops.io")
    estimator, _X = _fitted("BinningCalibrator")
    original = estimator.mass_table_
    estimator.mass_table_ = original.copy()
    estimator.mass_table_[0] = [0.0, -1.0, 2.0, 0.0]
    try:
        data = sio.dumps(estimator)
    finally:
        estimator.mass_table_ = original
    with pytest.raises(InvalidStateError, match="mass_table_"):
        sio.loads(data, trusted=sio.get_untrusted_types(data=data))
    # the untampered file loads
    data = sio.dumps(estimator)
    loaded = sio.loads(data, trusted=sio.get_untrusted_types(data=data))
    np.testing.assert_array_equal(loaded.mass_table_, original)
