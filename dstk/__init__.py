"""dstk: belief-function (Dempster-Shafer) reasoning for machine learning.

Three layers, each usable on its own:

* **core** (:mod:`dstk.core`): frames, mass functions and every
  representation (m, bel, pl, q, b, conjunctive and disjunctive weights), the
  combination rules, transforms, discounting, conditioning, decisions and
  distances; batched and numba-compiled.
* **statistical evidence** (:mod:`dstk.evidence`): likelihood-based
  (consonant) belief functions, predictive belief functions and mass
  functions from counts.
* **evidential calibration** (:mod:`dstk.calibration`) and **evidential
  ensembles** (:mod:`dstk.ensemble`), which turn classifier scores and tree
  leaves into mass functions and combine them.

``import dstk`` is cheap: submodules (and numba) are imported on first use.
"""

from dstk._lazy import lazy_exports

#: the distribution name on the package index (the import name is ``dstk``)
DISTRIBUTION = "dstk-belief"

# public name -> module that defines it (imported lazily on first access)
_LAZY = {
    # core
    "Frame": "dstk.core._frame",
    "MassFunction": "dstk.core._mass",
    "combine": "dstk.core._combination",
    "combine_with_conflict": "dstk.core._combination",
    "RULES": "dstk.core._combination",
    "inverse_pignistic": "dstk.core._transforms",
    "consonant_from_contour": "dstk.core._transforms",
    "jousselme_distance": "dstk.core._distances",
    "conflict": "dstk.core._distances",
    "weight_of_conflict": "dstk.core._distances",
    "pignistic": "dstk.core._transforms",
    "plausibility_transform": "dstk.core._transforms",
    "discount": "dstk.core._transforms",
    "decide": "dstk.core._decisions",
    "admissible_actions": "dstk.core._decisions",
    "Opinion": "dstk.core._opinions",
    "fuse_opinions": "dstk.core._opinions",
    "trust_discount": "dstk.core._opinions",
    # statistical evidence
    "from_counts": "dstk.evidence._counts",
    "plausibility_degrees": "dstk.evidence._counts",
    "predictive_mass": "dstk.evidence._predictive",
    "LikelihoodBeliefFunction": "dstk.evidence._likelihood",
    # evidential calibration
    "BinningCalibrator": "dstk.calibration",
    "IsotonicCalibrator": "dstk.calibration",
    "LogisticCalibrator": "dstk.calibration",
    "VennAbersCalibrator": "dstk.calibration",
    "EvidentialCalibratedClassifier": "dstk.calibration",
    "combine_classifiers": "dstk.calibration",
    "EvidentialCombination": "dstk.calibration",
    "EvidentialFusionClassifier": "dstk.calibration",
    # multi-class calibration
    "MulticlassCalibrator": "dstk.multiclass",
    "DirichletCalibrator": "dstk.multiclass",
    "couple_probabilities": "dstk.multiclass",
    # evidential ensembles
    "RandomDecisionTreesClassifier": "dstk.ensemble",
    "combine_leaves": "dstk.ensemble",
    "sklearn_leaf_counts": "dstk.ensemble",
    # evidential classifiers
    "EvidentialKNNClassifier": "dstk.classifiers",
    "EvidentialNeuralNetworkClassifier": "dstk.classifiers",
    "logistic_evidence": "dstk.classifiers",
    "ContextualDiscountingCombiner": "dstk.classifiers",
    # the kernels' on-disk cache, written ahead of use
    "compile_kernels": "dstk._compile",
}

_SUBMODULES = {
    "core",
    "evidence",
    "calibration",
    "ensemble",
    "classifiers",
    "metrics",
    "multiclass",
    "plot",
    "exceptions",
    "dask",
}

__all__ = sorted(_LAZY)  # submodules are reachable as attributes, not star-imported


def _version():
    """The installed distribution's version: one source, ``pyproject.toml``, read from the metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, _SUBMODULES, {"__version__": _version})
