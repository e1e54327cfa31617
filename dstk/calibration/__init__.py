"""Evidential calibration of classifier scores (Xu et al. 2016) and combination of calibrated classifiers.

Binary calibrators (1-D scores in, mass functions on ``Frame(classes_)`` out, the two labels seen in fit):

* :class:`BinningCalibrator` and :class:`IsotonicCalibrator` with ``model="bayes" |
  "inverse_pignistic" | "dempster" | "confidence_interval" | "likelihood" | "plausibility"``,
  :class:`LogisticCalibrator` with ``model="bayes" | "inverse_pignistic" | "confidence_interval" |
  "likelihood"``;
* :class:`VennAbersCalibrator` (inductive Venn-ABERS, interval -> mass) and
  :class:`VennMachineCalibrator` (Venn machine with a score-interval taxonomy).

Classifiers:

* :class:`EvidentialCalibratedClassifier`: meta-estimator in the spirit of
  scikit-learn's ``CalibratedClassifierCV`` (one-vs-rest + Dempster for more than two classes);
* :func:`combine_classifiers` / :class:`EvidentialCombination`: several calibrated
  classifiers -> one mass function per sample (Dempster, cautious, ...) -> decision;
* :class:`ConformalBeliefClassifier`: split-conformal p-values as the contour of a
  consonant plausibility (Cella & Martin 2022), prediction sets with coverage;
* :class:`VennMulticlassClassifier`: one-vs-rest or pairwise Venn-ABERS / Venn-machine
  intervals combined as mass functions.

Submodules are imported lazily so that ``import dstk.calibration`` stays cheap.
"""

from dstk._lazy import lazy_exports

_LAZY = {
    # --- evidential calibration -----------------------------------------------
    "BinningCalibrator": "dstk.calibration._binning",
    "IsotonicCalibrator": "dstk.calibration._isotonic",
    "LogisticCalibrator": "dstk.calibration._logistic",
    "VennAbersCalibrator": "dstk.calibration._venn_abers",
    "VennMachineCalibrator": "dstk.calibration._venn_machine",
    "venn_machine_transductive": "dstk.calibration._venn_machine",
    "svm_taxonomy_edges": "dstk.calibration._venn_machine",
    "EvidentialCalibratedClassifier": "dstk.calibration._classifier",
    "one_vs_rest_masses": "dstk.calibration._one_vs_rest",
    "refine_one_vs_rest": "dstk.calibration._one_vs_rest",
    "combine_classifiers": "dstk.calibration._combination",
    "EvidentialCombination": "dstk.calibration._combination",
    "EvidentialFusionClassifier": "dstk.calibration._fusion",
    # --- probabilistic calibrators and implied posterior probability ---
    **dict.fromkeys(
        (
            "SimpleNormalization",
            "SoftmaxCalibrator",
            "PlattCalibrator",
            "PiecewiseLogisticCalibrator",
            "IsotonicRegressionCalibrator",
            "GaussianBayesCalibrator",
            "AsymmetricLaplaceBayesCalibrator",
            "AssignmentValueCalibrator",
        ),
        "dstk.calibration.probabilistic",
    ),
    # --- conformal prediction as belief functions, multi-class Venn predictors ---
    "ConformalBeliefClassifier": "dstk.calibration._conformal",
    "conformal_p_values": "dstk.calibration._conformal",
    "VennMulticlassClassifier": "dstk.calibration._venn_multiclass",
    "pairwise_masses": "dstk.calibration._venn_multiclass",
    **dict.fromkeys(
        ("ImpliedPosteriorClassifier", "implied_weights", "vote_fraction"), "dstk.calibration._implied"
    ),
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
