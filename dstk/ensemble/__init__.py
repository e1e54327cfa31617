"""Evidential tree ensembles: random decision trees and leaf combiners.

Public names
------------
RandomDecisionTreesClassifier
    Random decision trees (numba) with class counts in the leaves.
combine_leaves, combine_leaves_proba, combine_leaves_to_mass
    Combine leaf counts ``(n_samples, n_trees, n_classes)`` by a combiner of
    :data:`COMBINERS`: probability, Laplace, plausibility, confidence bounds
    (average or vote), pooling, Dempster, cautious or EVA (Busch et al. 2021).
COMBINERS
    The registered combiner names (``combiner=``).
sklearn_leaf_counts
    Leaf class counts of a fitted scikit-learn RandomForest / ExtraTrees.
"""

from dstk._lazy import lazy_exports

_LAZY = {
    "RandomDecisionTreesClassifier": "dstk.ensemble._random_trees",
    "combine_leaves": "dstk.ensemble._combiners",
    "combine_leaves_proba": "dstk.ensemble._combiners",
    "combine_leaves_to_mass": "dstk.ensemble._combiners",
    "COMBINERS": "dstk.ensemble._combiners",
    "sklearn_leaf_counts": "dstk.ensemble._sklearn_leaves",
}

__all__ = [
    "RandomDecisionTreesClassifier",
    "combine_leaves",
    "combine_leaves_proba",
    "combine_leaves_to_mass",
    "COMBINERS",
    "sklearn_leaf_counts",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
