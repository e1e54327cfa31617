"""EvidentialFusionClassifier: whole-number sample weights are repetitions when no refit reshuffles folds."""

import numpy as np
import pytest

pytest.importorskip("sklearn")
frozen = pytest.importorskip("sklearn.frozen")

from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from dstk.calibration import EvidentialFusionClassifier  # noqa: E402


def test_sample_weight_is_repetition_for_frozen_sources():
    X, y = load_breast_cancer(return_X_y=True)
    lr = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:200], y[:200])
    nb = GaussianNB().fit(X[:200], y[:200])
    sources = [("lr", frozen.FrozenEstimator(lr)), ("nb", frozen.FrozenEstimator(nb))]
    rows = np.arange(200, 400)
    weight = np.where(rows % 3 == 0, 2.0, 1.0)
    weighted = EvidentialFusionClassifier(sources).fit(X[rows], y[rows], sample_weight=weight)
    repeated_rows = np.repeat(rows, weight.astype(int))
    repeated = EvidentialFusionClassifier(sources).fit(X[repeated_rows], y[repeated_rows])
    np.testing.assert_allclose(weighted.predict_proba(X[400:]), repeated.predict_proba(X[400:]), atol=1e-5)
