"""Evidential tree ensembles: random decision trees and leaf combiners.

Public names
------------
RandomDecisionTreesClassifier
    Random decision trees (numba) with class counts in the leaves.
combine_leaves, combine_leaves_proba, combine_leaves_to_mass
    Combine leaf counts ``(n_samples, n_trees, n_classes)`` by probability,
    Laplace, plausibility, confidence bounds (average or vote), pooling,
    Dempster, cautious or EVA (Busch et al. 2021).
decision_threshold, parse_combiner, COMBINERS, SCORE_METHODS, INTEGRATED_METHODS
    Decision threshold of a combiner's scores; parse a combiner name; the
    registered combiner names.
sklearn_leaf_counts
    Leaf class counts of a fitted scikit-learn RandomForest / ExtraTrees.
leaf_probability, leaf_laplace, leaf_confidence_bound, leaf_plausibility_degrees, leaf_plausibility_score, leaf_plausibility_mass
    Scores and masses of single leaves.
"""

from dstk.ensemble._combiners import (
    COMBINERS,
    INTEGRATED_METHODS,
    SCORE_METHODS,
    combine_leaves,
    combine_leaves_proba,
    combine_leaves_to_mass,
    decision_threshold,
    parse_combiner,
)
from dstk.ensemble._leaf_scores import (
    leaf_confidence_bound,
    leaf_laplace,
    leaf_plausibility_degrees,
    leaf_plausibility_mass,
    leaf_plausibility_score,
    leaf_probability,
)
from dstk.ensemble._random_trees import RandomDecisionTreesClassifier
from dstk.ensemble._sklearn_leaves import sklearn_leaf_counts

__all__ = [
    "RandomDecisionTreesClassifier",
    "combine_leaves",
    "combine_leaves_proba",
    "combine_leaves_to_mass",
    "decision_threshold",
    "parse_combiner",
    "COMBINERS",
    "SCORE_METHODS",
    "INTEGRATED_METHODS",
    "sklearn_leaf_counts",
    "leaf_probability",
    "leaf_laplace",
    "leaf_confidence_bound",
    "leaf_plausibility_degrees",
    "leaf_plausibility_score",
    "leaf_plausibility_mass",
]
