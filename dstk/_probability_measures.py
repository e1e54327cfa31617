"""Gebel's probabilistic performance measures (2009, Section 2.4), shared below the application layers.

:func:`dstk.metrics.dirichlet_selection_criterion` and the measures it
combines live here so that the multi-class Dirichlet calibrator (calibration
layer) can use them without importing :mod:`dstk.metrics` (the layer above);
:mod:`dstk.metrics` exports them.  Conventions: see :mod:`dstk.metrics`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._metric_checks import check_labels_and_probabilities, check_probability_matrix
from ._validation import as_float_array

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
    y, P, _ = _checked(y_true, probabilities)
    return _correctness_rate(y, P)


def _indicator(y, n_classes):
    out = np.zeros((y.shape[0], n_classes))
    out[np.arange(y.shape[0]), y] = 1.0
    return out


def _checked(y_true, probabilities):
    """The validation every measure starts with: ``(y, P, indicator)``, indicator[i, k] = I[y_i = k]."""
    y, P = check_labels_and_probabilities(y_true, probabilities)
    return y, P, _indicator(y, P.shape[1])


def _correctness_rate(y, P):
    return float(np.mean(np.argmax(P, axis=1) == y))


def _one_minus_rmse(indicator, P):
    per_sample = np.sqrt(np.mean((indicator - P) ** 2, axis=1))
    return float(1.0 - np.mean(per_sample))


def _well_calibration_ratio(indicator, P):
    K = P.shape[1]
    assigned = np.argmax(P, axis=1)
    total = 0.0
    for k in range(K):
        members = assigned == k
        if not members.any():
            continue
        confidence = P[members].mean(axis=0)
        correctness = indicator[members].mean(axis=0)
        total += np.abs(confidence - correctness).sum()
    return float(1.0 - total / K**2)


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
    probabilities = as_float_array(probabilities, "probabilities")
    one_dimensional = np.ndim(probabilities) == 1
    _, P, indicator = _checked(y_true, probabilities)
    total = np.sum((indicator - P) ** 2, axis=1)
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
    _, P, indicator = _checked(y_true, probabilities)
    return _one_minus_rmse(indicator, P)


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
    contributes no terms while the ``1/K**2`` normaliser is kept (dstk's
    choice).

    Examples
    --------
    >>> well_calibration_ratio([0, 0, 1, 1], [[0.9, 0.1], [0.7, 0.3], [0.2, 0.8], [0.4, 0.6]])
    0.75
    """
    _, P, indicator = _checked(y_true, probabilities)
    return _well_calibration_ratio(indicator, P)


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
    _, P, indicator = _checked(y_true, probabilities)
    return desirability(_one_minus_rmse(indicator, P), _well_calibration_ratio(indicator, P))


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
    P = check_probability_matrix(probabilities)
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
    _, P, indicator = _checked(y_true, probabilities)
    return _garczarek_form(indicator, P)


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
    arr = as_float_array(list(values), "values", finite=True)  # strings, complex, None: clear errors
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
    y, P, indicator = _checked(y_true, probabilities)
    return desirability(
        _correctness_rate(y, P), _one_minus_rmse(indicator, P), _well_calibration_ratio(indicator, P)
    )
