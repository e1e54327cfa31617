"""dstk.dask: an estimator without the requested method is a clear TypeError, not a bare AttributeError."""

import numpy as np
import pytest

pytest.importorskip("dask")

from dstk.calibration import BinningCalibrator
from dstk.dask import fit_random_trees, map_samples, predict_proba

X = np.random.default_rng(0).normal(size=(8, 2))
y = np.tile([0, 1], 4)


def test_predict_proba_of_something_that_is_not_an_estimator():
    with pytest.raises(
        TypeError, match="`estimator` must be a fitted estimator with a `predict_proba` method"
    ):
        predict_proba(3, X)


def test_map_samples_with_an_unknown_method():
    with pytest.raises(TypeError, match="`zz` method"):
        map_samples(BinningCalibrator().fit(X[:, 0], y), "zz", X[:, 0])
    with pytest.raises(TypeError, match="`method` must be the name of a method"):
        map_samples(BinningCalibrator(), 3, X[:, 0])


def test_fit_random_trees_needs_random_decision_trees():
    with pytest.raises(TypeError, match="RandomDecisionTreesClassifier"):
        fit_random_trees(BinningCalibrator(), X, y)
