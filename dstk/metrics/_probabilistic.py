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

from .._validation import check_scores
from ._calibration_diagnostics import _bin_edges, _bin_statistics
from ._checks import check_binary_targets, check_labels_and_probabilities

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


def correctness_rate(y_true: ArrayLike, probabilities: ArrayLike) -> float:
    """Fraction of samples whose assigned class is the true class (Gebel 2009, Eq. 2.3).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices ``0 .. K-1``.
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities (rows sum to 1), or the probability of class 1.

    Returns
    -------
    float
        ``CR = 1 - r01 = (1/N) sum_i I[argmax_k P[i, k] = y_i]``.

    Raises
    ------
    ValueError
        On labels outside ``0 .. K-1``, rows that do not sum to one, or
        mismatched lengths.

    Notes
    -----
    Gebel (2009), Eq. (2.3): the complement of the empirical 0-1 risk.

    References
    ----------
    M. Gebel, *Multivariate calibration of classifier scores into the
    probability space*, PhD thesis, TU Dortmund, 2009.

    Examples
    --------
    >>> correctness_rate([0, 1, 1], [[0.8, 0.2], [0.4, 0.6], [0.6, 0.4]])
    0.6666666666666666
    """
    y, P = check_labels_and_probabilities(y_true, probabilities)
    return float(np.mean(np.argmax(P, axis=1) == y))


def _indicator(y, n_classes):
    out = np.zeros((y.shape[0], n_classes))
    out[np.arange(y.shape[0]), y] = 1.0
    return out


def brier_score(y_true: ArrayLike, probabilities: ArrayLike) -> float:
    """Brier score (mean squared difference from the class indicator; lower is better).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices.
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities, or (1-D) the probability of class 1.

    Returns
    -------
    float
        For a 1-D input (binary): ``(1/N) sum_i (y_i - p_i)**2``, the usual
        binary Brier score (as :func:`sklearn.metrics.brier_score_loss`).
        For a 2-D input: Brier's (1950) multi-category score
        ``(1/N) sum_i sum_k (I[y_i = k] - P[i, k])**2``, which for ``K = 2`` is
        twice the binary form.

    Raises
    ------
    ValueError
        As :func:`correctness_rate`.

    Notes
    -----
    Gebel (2009, Sec. 2.4) only names the score; the definition is Brier's.

    References
    ----------
    G. W. Brier, Verification of forecasts expressed in terms of probability,
    *Monthly Weather Review* 78 (1950) 1-3.

    Examples
    --------
    >>> brier_score([0, 1], [0.0, 0.5])
    0.125
    >>> brier_score([0, 1], [[1.0, 0.0], [0.5, 0.5]])
    0.25
    """
    one_dimensional = np.ndim(probabilities) == 1
    y, P = check_labels_and_probabilities(y_true, probabilities)
    total = np.sum((_indicator(y, P.shape[1]) - P) ** 2, axis=1)
    if one_dimensional:
        total = total / 2.0
    return float(np.mean(total))


def one_minus_rmse(y_true: ArrayLike, probabilities: ArrayLike) -> float:
    """Gebel's effectiveness measure ``1 - RMSE`` (Eq. 2.4): per-sample root, then the mean.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices.
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities.

    Returns
    -------
    float
        ``1 - (1/N) sum_i sqrt((1/K) sum_k (I[y_i = k] - P[i, k])**2)``.

    Raises
    ------
    ValueError
        As :func:`correctness_rate`.

    Notes
    -----
    Gebel (2009), Eq. (2.4).  The root is taken for each observation before
    averaging, so this is *not* one minus the root of the Brier score.

    Examples
    --------
    >>> one_minus_rmse([0, 1], [[1.0, 0.0], [0.5, 0.5]])
    0.75
    """
    y, P = check_labels_and_probabilities(y_true, probabilities)
    per_sample = np.sqrt(np.mean((_indicator(y, P.shape[1]) - P) ** 2, axis=1))
    return float(1.0 - np.mean(per_sample))


def well_calibration_ratio(y_true: ArrayLike, probabilities: ArrayLike) -> float:
    """Gebel's well-calibration ratio WCR (Eq. 2.5).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices.
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities.

    Returns
    -------
    float
        ``WCR = 1 - (1/K**2) sum_k sum_j |Cf[k, j] - CR[k, j]|`` where, over the
        partition ``T_k`` of samples assigned to class ``k``, ``Cf[k, j]`` is the
        mean predicted probability of class ``j`` and ``CR[k, j]`` the fraction
        of samples whose true class is ``j``.

    Raises
    ------
    ValueError
        As :func:`correctness_rate`.

    Notes
    -----
    Gebel (2009), Eq. (2.5), built on DeGroot & Fienberg's well-calibration.
    The ``K**2`` terms are weighted equally (not by partition size).  The
    thesis does not treat empty partitions; here an empty partition
    contributes no terms while the ``1/K**2`` normaliser is kept (the choice
    suggested by the research notes, Part A.1.3).

    Examples
    --------
    >>> well_calibration_ratio([0, 0, 1, 1], [[0.9, 0.1], [0.7, 0.3], [0.2, 0.8], [0.4, 0.6]])
    0.75
    """
    y, P = check_labels_and_probabilities(y_true, probabilities)
    K = P.shape[1]
    assigned = np.argmax(P, axis=1)
    indicator = _indicator(y, K)
    total = 0.0
    for k in range(K):
        members = assigned == k
        if not members.any():
            continue
        confidence = P[members].mean(axis=0)
        correctness = indicator[members].mean(axis=0)
        total += np.abs(confidence - correctness).sum()
    return float(1.0 - total / K**2)


def calibration_measure(y_true: ArrayLike, probabilities: ArrayLike) -> float:
    """Gebel's calibration measure ``Cal = sqrt((1 - RMSE) * WCR)`` (Eq. 2.6).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices.
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities.

    Returns
    -------
    float
        The geometric mean of :func:`one_minus_rmse` and
        :func:`well_calibration_ratio` (0 when either is non-positive).

    Raises
    ------
    ValueError
        As :func:`correctness_rate`.

    Notes
    -----
    Gebel (2009), Eq. (2.6), a Harrington desirability index; the headline
    number of every results table of the thesis.

    Examples
    --------
    >>> round(calibration_measure([0, 1], [[1.0, 0.0], [0.0, 1.0]]), 6)
    1.0
    """
    return desirability(one_minus_rmse(y_true, probabilities), well_calibration_ratio(y_true, probabilities))


def _garczarek_form(target, P):
    K = P.shape[1]
    distances = np.sqrt(np.sum((target - P) ** 2, axis=1))
    return float(1.0 - K / (K - 1) * np.mean(distances))


def ability_to_separate(probabilities: ArrayLike) -> float:
    """Garczarek's ability to separate AS (Gebel 2009, Eq. 2.7).

    Parameters
    ----------
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities.

    Returns
    -------
    float
        ``AS = 1 - K/(K-1) * (1/N) sum_i sqrt(sum_k (I[c_hat_i = k] - P[i, k])**2)``
        with ``c_hat_i`` the assigned class.

    Raises
    ------
    ValueError
        On an invalid probability matrix.

    Notes
    -----
    Gebel (2009), Eq. (2.7), after Garczarek (2002).  It compares the
    probabilities with the *assigned* class, not the true one.

    Examples
    --------
    >>> ability_to_separate([[1.0, 0.0], [0.0, 1.0]])
    1.0
    """
    P = check_labels_and_probabilities(np.zeros(np.shape(probabilities)[0], dtype=int), probabilities)[1]
    return _garczarek_form(_indicator(np.argmax(P, axis=1), P.shape[1]), P)


def garczarek_accuracy(y_true: ArrayLike, probabilities: ArrayLike) -> float:
    """Garczarek's accuracy Ac (Gebel 2009, Sec. 2.4 and 4.4.3).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices.
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities.

    Returns
    -------
    float
        ``Ac = 1 - K/(K-1) * (1/N) sum_i sqrt(sum_k (I[y_i = k] - P[i, k])**2)``.

    Raises
    ------
    ValueError
        As :func:`correctness_rate`.

    Notes
    -----
    The same form as :func:`ability_to_separate` but against the true class;
    used in the objective of the assignment-value calibrator (Eq. 4.12).

    References
    ----------
    U. Garczarek, Classification rules in standardized partition spaces,
    PhD thesis, Universität Dortmund (2002).
    M. Gebel, Multivariate calibration of classifier scores into the
    probability space, PhD thesis, TU Dortmund (2009), Sec. 2.4.

    Examples
    --------
    >>> garczarek_accuracy([0, 1], [[0.5, 0.5], [0.0, 1.0]])
    0.2928932188134524
    """
    y, P = check_labels_and_probabilities(y_true, probabilities)
    return _garczarek_form(_indicator(y, P.shape[1]), P)


def desirability(*values: float) -> float:
    """Geometric mean of "higher is better" measures (Harrington desirability index).

    Parameters
    ----------
    *values : float
        Measures in ``[0, 1]``; a non-positive value makes the index 0.

    Returns
    -------
    float
        ``(prod_j v_j)**(1/J)``.

    Raises
    ------
    ValueError
        When no value, or a NaN, is given.

    Notes
    -----
    Gebel (2009) aggregates 1-RMSE and WCR this way into Cal (Eq. 2.6) and
    CR, 1-RMSE and WCR into the Dirichlet selection criterion (Sec. 5.4.2).

    Examples
    --------
    >>> desirability(0.25, 1.0)
    0.5
    """
    if len(values) == 0:
        raise ValueError("desirability() needs at least one value.")
    arr = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"desirability() got non-finite values {values!r}.")
    if np.any(arr <= 0):
        return 0.0
    return float(np.exp(np.mean(np.log(arr))))


def dirichlet_selection_criterion(y_true: ArrayLike, probabilities: ArrayLike) -> float:
    """``(CR * (1 - RMSE) * WCR)**(1/3)``, Gebel's criterion for choosing Dirichlet's ``m`` (Sec. 5.4.2).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices.
    probabilities : array_like of shape (N, K) or (N,)
        Class probabilities.

    Returns
    -------
    float
        The geometric mean of :func:`correctness_rate`, :func:`one_minus_rmse`
        and :func:`well_calibration_ratio`.

    Raises
    ------
    ValueError
        As :func:`correctness_rate`.

    Notes
    -----
    Gebel (2009), Sec. 5.4.2 ("geometric mean of the three performance measures").

    Examples
    --------
    >>> round(dirichlet_selection_criterion([0, 1], [[1.0, 0.0], [0.0, 1.0]]), 6)
    1.0
    """
    return desirability(
        correctness_rate(y_true, probabilities),
        one_minus_rmse(y_true, probabilities),
        well_calibration_ratio(y_true, probabilities),
    )


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
    y_true: ArrayLike, probabilities: ArrayLike, n_bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Equal-width reliability-diagram bins for the probability of class 1.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Binary labels in ``{0, 1}``.
    probabilities : array_like of shape (N,)
        Predicted probabilities of class 1.
    n_bins : int, default=10
        Number of equal-width bins on ``[0, 1]``.

    Returns
    -------
    counts : ndarray of shape (n_bins,)
        Samples per bin.
    mean_predicted : ndarray of shape (n_bins,)
        Mean predicted probability per bin (NaN for an empty bin).
    fraction_positive : ndarray of shape (n_bins,)
        Observed fraction of class 1 per bin (NaN for an empty bin).

    Raises
    ------
    ValueError
        On probabilities outside ``[0, 1]``, labels other than 0/1 or a bad
        ``n_bins``.

    Notes
    -----
    The 10-bin reliability diagram of Nalbantov & Ivanov (Sec. 5): bin
    ``j`` holds the probabilities in ``(j/n_bins, (j+1)/n_bins]`` (bin 0 also
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
    >>> counts, mean_p, frac = reliability_bins([0, 1, 1], [0.05, 0.95, 1.0], n_bins=2)
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
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"`n_bins` must be a positive integer; got {n_bins!r}.")
    counts, sum_p, sum_y = _bin_statistics(p, y.astype(np.float64), _bin_edges(p, int(n_bins), "uniform"))
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
