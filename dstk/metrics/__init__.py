"""Performance measures for probabilistic and evidential classifiers.

Probabilistic (Gebel 2009, Sec. 2.4; Nalbantov & Ivanov, Sec. 5):
:func:`correctness_rate`, :func:`brier_score`, :func:`one_minus_rmse`,
:func:`well_calibration_ratio`, :func:`calibration_measure` (Cal),
:func:`ability_to_separate` (AS), :func:`garczarek_accuracy` (Ac),
:func:`desirability`, :func:`dirichlet_selection_criterion`, :func:`roc_auc`,
:func:`reliability_bins`, :func:`isotonic_calibration_score`.

Calibration diagnostics (Kumar et al. 2019; Dimitriadis, Gneiting & Jordan 2021):
:func:`expected_calibration_error` (binary, top-label, class-wise; L1/L2/max; debiased),
:func:`corp_decomposition` (MCB, DSC, UNC), :func:`reliability_bands` ([Bel, Pl] per bin).

Evidential (Bel-Pl intervals and set-valued decisions):
:func:`interval_coverage`, :func:`interval_score`, :func:`interval_width`,
:func:`discounted_accuracy`, :func:`u65_score`, :func:`u80_score`,
:func:`utility_discounted_accuracy`.
"""

from ._calibration_diagnostics import (
    CorpDecomposition,
    ReliabilityBands,
    corp_decomposition,
    expected_calibration_error,
    reliability_bands,
)
from ._evidential import (
    discounted_accuracy,
    interval_coverage,
    interval_score,
    interval_width,
    u65_score,
    u80_score,
    utility_discounted_accuracy,
)
from ._probabilistic import (
    ability_to_separate,
    brier_score,
    calibration_measure,
    correctness_rate,
    desirability,
    dirichlet_selection_criterion,
    garczarek_accuracy,
    isotonic_calibration_score,
    one_minus_rmse,
    reliability_bins,
    roc_auc,
    well_calibration_ratio,
)

__all__ = [
    "ability_to_separate",
    "brier_score",
    "corp_decomposition",
    "CorpDecomposition",
    "reliability_bands",
    "ReliabilityBands",
    "calibration_measure",
    "correctness_rate",
    "desirability",
    "dirichlet_selection_criterion",
    "discounted_accuracy",
    "expected_calibration_error",
    "garczarek_accuracy",
    "interval_coverage",
    "interval_score",
    "interval_width",
    "isotonic_calibration_score",
    "one_minus_rmse",
    "reliability_bins",
    "roc_auc",
    "u65_score",
    "u80_score",
    "utility_discounted_accuracy",
    "well_calibration_ratio",
]
