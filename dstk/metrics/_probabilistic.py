"""Performance measures for probabilistic classifiers (Gebel 2009, Section 2.4; Nalbantov & Ivanov).

Conventions used by every function here:

* ``y_true`` holds class *indices* ``0 .. K-1`` (the column of the true class
  in the probability matrix).
* ``probabilities`` is an ``(N, K)`` matrix whose rows sum to one, or a 1-D
  array read as the probability of class 1 of a binary problem.
* The assigned class is ``argmax_k P[i, k]`` (the first maximum on ties),
  Gebel's classification rule (2.1).

All measures except the Brier score and the isotonic calibration score are "higher is better".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import rankdata

from .._metric_checks import check_binary_targets
from .._probability_measures import (
    ability_to_separate,
    brier_score,
    calibration_measure,
    correctness_rate,
    desirability,
    dirichlet_selection_criterion,
    garczarek_accuracy,
    one_minus_rmse,
    well_calibration_ratio,
)
from .._validation import check_scores
from ._calibration_diagnostics import _bin_edges, _bin_statistics

__all__ = [
    "correctness_rate",
    "brier_score",
    "one_minus_rmse",
    "well_calibration_ratio",
    "calibration_measure",
    "ability_to_separate",
    "garczarek_accuracy",
    "desirability",
    "dirichlet_selection_criterion",
    "roc_auc",
    "reliability_bins",
    "isotonic_calibration_score",
]


def roc_auc(y_true: ArrayLike, scores: ArrayLike) -> float:
    """Area under the ROC curve of a binary scoring (Mann-Whitney form, ties count one half).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Binary labels in ``{0, 1}`` (1 = positive); both must occur.
    scores : array_like of shape (N,)
        Scores that increase with the positive class (probabilities or
        decision values).

    Returns
    -------
    float
        ``P(score of a random positive > score of a random negative)`` plus
        half the probability of a tie.

    Raises
    ------
    ValueError
        When only one class is present, on non-finite scores or on mismatched
        lengths.

    Notes
    -----
    Computed from mid-ranks: ``(R_+ - n_+ (n_+ + 1)/2) / (n_+ n_-)`` with
    ``R_+`` the rank sum of the positives (Hanley & McNeil 1982).

    Examples
    --------
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    y = check_binary_targets(y_true)
    s = check_scores(scores)
    if y.shape[0] != s.shape[0]:
        raise ValueError(
            f"Inputs have inconsistent numbers of samples: `y_true` has {y.shape[0]}, `scores` has {s.shape[0]}."
        )
    n_pos = int(y.sum())
    n_neg = y.shape[0] - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("ROC AUC is undefined when `y_true` holds a single class; both 0 and 1 must occur.")
    ranks = rankdata(s)
    return float((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def reliability_bins(
    y_true: ArrayLike, probabilities: ArrayLike, *, bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Equal-width reliability-diagram bins for the probability of class 1.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Binary labels in ``{0, 1}``.
    probabilities : array_like of shape (N,)
        Predicted probabilities of class 1.
    bins : int, default=10
        Number of equal-width bins on ``[0, 1]`` (the name of the same option of
        :func:`expected_calibration_error`).

    Returns
    -------
    counts : ndarray of shape (bins,)
        Samples per bin.
    mean_predicted : ndarray of shape (bins,)
        Mean predicted probability per bin (NaN for an empty bin).
    fraction_positive : ndarray of shape (bins,)
        Observed fraction of class 1 per bin (NaN for an empty bin).

    Raises
    ------
    ValueError
        On probabilities outside ``[0, 1]``, labels other than 0/1 or a bad
        ``bins``.

    Notes
    -----
    The 10-bin reliability diagram of Nalbantov & Ivanov (Sec. 5): bin
    ``j`` holds the probabilities in ``(j/bins, (j+1)/bins]`` (bin 0 also
    holds 0), the bins of :func:`expected_calibration_error`; a
    calibrated predictor has ``fraction_positive ≈ mean_predicted`` in every
    non-empty bin (DeGroot & Fienberg 1983).

    References
    ----------
    M. H. DeGroot, S. E. Fienberg, The comparison and evaluation of
    forecasters, *The Statistician* 32 (1983) 12-22.
    G. Nalbantov, S. Ivanov, Tutorial on implied posterior probability for
    SVMs (technical note; the method of Nalbantov & Ivanov 2019).

    Examples
    --------
    >>> counts, mean_p, frac = reliability_bins([0, 1, 1], [0.05, 0.95, 1.0], bins=2)
    >>> counts.tolist(), frac.tolist()
    ([1, 2], [0.0, 1.0])
    """
    y = check_binary_targets(y_true)
    p = check_scores(probabilities, name="probabilities")
    if y.shape[0] != p.shape[0]:
        raise ValueError(
            f"Inputs have inconsistent numbers of samples: `y_true` has {y.shape[0]}, "
            f"`probabilities` has {p.shape[0]}."
        )
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError("`probabilities` must lie in [0, 1]; calibrate or normalise the scores first.")
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"`bins` must be a positive integer (the number of equal-width bins); got {bins!r}.")
    counts, sum_p, sum_y = _bin_statistics(p, y.astype(np.float64), _bin_edges(p, int(bins), "uniform"))
    counts = counts.astype(np.intp)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_predicted = sum_p / counts
        fraction_positive = sum_y / counts
    return counts, mean_predicted, fraction_positive


def isotonic_calibration_score(y_true: ArrayLike, scores: ArrayLike) -> float:
    """Nalbantov & Ivanov's calibration score: mean ``|s_i - IR(s_i)|`` (lower is better).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Binary labels in ``{0, 1}`` of the evaluation set.
    scores : array_like of shape (N,)
        Probabilities (or scores normalised into ``[0, 1]``) to assess.

    Returns
    -------
    float
        ``(1/N) sum_i |s_i - g(s_i)|`` with ``g`` the isotonic (PAV) regression
        of the labels on the scores, fitted on the same evaluation data;
        tied scores are pooled before fitting.

    Raises
    ------
    ValueError
        On labels other than 0/1, non-finite scores or mismatched lengths.

    Notes
    -----
    Nalbantov & Ivanov, *Tutorial on implied posterior probability for SVMs*,
    Sec. 5: the isotonic fit on the test set is the calibration reference.
    ``g`` is the pool-adjacent-violators fit (Zadrozny & Elkan 2002; Gebel
    2009, Algorithm 1).

    References
    ----------
    G. Nalbantov, S. Ivanov, Tutorial on implied posterior probability for
    SVMs (technical note; the method of Nalbantov & Ivanov 2019).
    B. Zadrozny, C. Elkan, Transforming classifier scores into accurate
    multiclass probability estimates, KDD 2002.

    Examples
    --------
    >>> isotonic_calibration_score([0, 1], [0.0, 1.0])
    0.0
    >>> round(isotonic_calibration_score([1, 0], [0.2, 0.6]), 12)
    0.2
    """
    from ..calibration.probabilistic._isotonic import isotonic_fit, isotonic_predict

    y = check_binary_targets(y_true)
    s = check_scores(scores)
    if y.shape[0] != s.shape[0]:
        raise ValueError(
            f"Inputs have inconsistent numbers of samples: `y_true` has {y.shape[0]}, `scores` has {s.shape[0]}."
        )
    thresholds, values = isotonic_fit(s, y.astype(np.float64))
    fitted = isotonic_predict(thresholds, values, s)
    return float(np.mean(np.abs(s - fitted)))
