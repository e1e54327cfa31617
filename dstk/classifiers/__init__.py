"""Evidential classifiers: estimators that build mass functions from features.

Public names
------------
EvidentialKNNClassifier, EvidentialNeuralNetworkClassifier, logistic_evidence,
ContextualDiscountingCombiner, EvidentialRegressor.

The estimators need scikit-learn (neighbour search, k-means, input checks); ``import dstk`` does not
import it.
"""

from ._combiner import ContextualDiscountingCombiner
from ._knn import EvidentialKNNClassifier
from ._logistic import logistic_evidence
from ._neural import EvidentialNeuralNetworkClassifier
from ._regression import EvidentialRegressor

__all__ = [
    "ContextualDiscountingCombiner",
    "EvidentialKNNClassifier",
    "EvidentialNeuralNetworkClassifier",
    "EvidentialRegressor",
    "logistic_evidence",
]
