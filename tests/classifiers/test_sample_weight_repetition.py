"""Integer sample weights equal repeated rows, zero weights removed rows: ENN and ENNreg, bit for bit.

Reference: the definition of a frequency weight (scikit-learn's
``check_sample_weight_equivalence_on_dense_data``, and the same by hand
with shuffled rows and other seeds).
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import check_sample_weight_equivalence_on_dense_data

from dstk.classifiers import EvidentialNeuralNetworkClassifier, EvidentialRegressor


def _estimators():
    return [
        EvidentialNeuralNetworkClassifier(random_state=0),
        EvidentialNeuralNetworkClassifier(n_prototypes=3, loss="plausibility", random_state=1),
        EvidentialRegressor(n_prototypes=4, random_state=0),
    ]


@pytest.mark.parametrize("estimator", _estimators(), ids=lambda e: type(e).__name__)
def test_scikit_learn_sample_weight_equivalence(estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_sample_weight_equivalence_on_dense_data(type(estimator).__name__, estimator)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("estimator", _estimators(), ids=lambda e: type(e).__name__)
def test_weights_are_repetition_in_any_row_order(estimator, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, size=40) if hasattr(estimator, "predict_proba") else X @ [1.0, -2.0, 0.5]
    weights = rng.integers(0, 4, size=40)
    order = rng.permutation(40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = estimator.__class__(**estimator.get_params()).fit(
            X[order], y[order], sample_weight=weights[order]
        )
        repeated = estimator.__class__(**estimator.get_params()).fit(
            np.repeat(X, weights, 0), np.repeat(y, weights)
        )
    method = "predict_proba" if hasattr(estimator, "predict_proba") else "predict"
    np.testing.assert_array_equal(getattr(weighted, method)(X), getattr(repeated, method)(X))
