"""Regression tests for defects found by probing the classifiers combined as evidence (second review)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from dstk.calibration import EvidentialFusionClassifier


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.mark.parametrize("names", [(0, 1, 2), (-1, 0, 1), (10, 20, 30), ("a", "b", "c")])
def test_frozen_source_on_fewer_classes_enters_with_its_columns_in_place(iris, names):
    """A frozen classifier trained without one class: its out-of-fold probabilities are those it gives,
    each in the column of its class (they were put at the columns numbered by its labels: a crash for
    labels that are not 0..K-1, the probabilities of -1 in the column of 1 for labels -1, 0, 1)."""
    X, y = iris
    labels = np.array(names)[y]
    trained = labels != names[1]
    frozen = LogisticRegression(max_iter=1000).fit(X[trained], labels[trained])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = EvidentialFusionClassifier(
            [("f", FrozenEstimator(frozen)), ("nb", GaussianNB())], method=None, contamination=0.0
        ).fit(X, labels)
    expected = np.zeros((y.size, 3))
    expected[:, [0, 2]] = frozen.predict_proba(X)
    expected = np.clip(expected, 1e-12, 1.0)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model._calibrated(X)[0], expected, rtol=1e-12, atol=1e-300)
    # learned on the same outputs as it predicts with: the frozen source is trusted on classes 0 and 2
    assert model.rates_[0, 0] < 0.1 and model.rates_[0, 2] < 0.1
