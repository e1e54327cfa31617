"""``EvidentialCalibratedClassifier(model=...)`` with a method that has no mass model is refused."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

from dstk.calibration import BinningCalibrator, EvidentialCalibratedClassifier


@pytest.mark.parametrize("method", ["venn_abers", "venn_machine", BinningCalibrator(bins=5)])
@pytest.mark.parametrize("model", ["nope", "bayes"])
def test_a_model_the_method_does_not_use_is_refused(method, model):
    X, y = load_iris(return_X_y=True)
    classifier = EvidentialCalibratedClassifier(LogisticRegression(max_iter=500), method=method, model=model)
    with pytest.raises(ValueError, match="`model` is used by"):
        classifier.fit(X, y)


def test_the_default_model_still_fits_a_venn_method():
    X, y = load_iris(return_X_y=True)
    classifier = EvidentialCalibratedClassifier(LogisticRegression(max_iter=500), method="venn_abers").fit(
        X, y
    )
    np.testing.assert_allclose(classifier.predict_proba(X[:5]).sum(axis=1), 1.0)


def test_an_unknown_model_of_a_mass_model_method_is_refused():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="nope"):
        EvidentialCalibratedClassifier(LogisticRegression(max_iter=500), method="binning", model="nope").fit(
            X, y
        )
