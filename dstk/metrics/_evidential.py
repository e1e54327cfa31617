"""Measures for evidential outputs: Bel-Pl intervals and set-valued (cautious) decisions.

* Interval measures take the lower and upper probability of an event (for a
  binary mass function: ``Bel({1})`` and ``Pl({1})``, e.g. from an
  estimator's ``predict_interval``) and a reference value.
* Set-valued measures take prediction sets as a boolean ``(N, K)`` matrix
  (``sets[i, k]`` true when class ``k`` is in the set of sample ``i``), as
  integer bitmasks (bit ``k`` = class ``k``, dstk's ``Frame`` convention) with
  ``n_classes`` given, both against class indices ``y_true``, or as one
  Python set (or frozenset) of labels per sample, e.g. an estimator's
  ``predict_admissible`` output, against labels ``y_true`` of any type.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._metric_checks import check_class_indices
from .._validation import as_float_array, check_level
from ..exceptions import DataTypeError

__all__ = [
    "interval_coverage",
    "interval_width",
    "interval_score",
    "discounted_accuracy",
    "utility_discounted_accuracy",
    "u65_score",
    "u80_score",
]


def _check_interval(lower, upper, reference=..., reference_name="reference"):
    lo = as_float_array(lower, "lower")
    hi = as_float_array(upper, "upper")
    if lo.ndim != 1 or lo.shape != hi.shape or lo.size == 0:
        raise ValueError(
            f"`lower` and `upper` must be non-empty 1-D arrays of the same length; got shapes {lo.shape} "
            f"and {hi.shape}."
        )
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("`lower` and `upper` must be finite.")
    if np.any(lo > hi + 1e-12):
        i = int(np.flatnonzero(lo > hi + 1e-12)[0])
        raise ValueError(
            f"Each interval needs lower <= upper; sample {i} has lower={lo[i]:.6g} > upper={hi[i]:.6g}. "
            "Pass (Bel, Pl) in that order."
        )
    if reference is ...:
        return lo, hi
    ref = as_float_array(reference, reference_name)
    if ref.shape != lo.shape:
        raise ValueError(
            f"`{reference_name}` must have the same shape as the intervals {lo.shape}; got {ref.shape}."
        )
    if not np.all(np.isfinite(ref)):
        raise ValueError(f"`{reference_name}` must be finite.")
    return lo, hi, ref


def interval_coverage(lower: ArrayLike, upper: ArrayLike, reference: ArrayLike) -> float:
    """Fraction of intervals ``[lower_i, upper_i]`` that contain ``reference_i``.

    Parameters
    ----------
    lower, upper : array_like of shape (N,)
        Interval ends, e.g. ``Bel`` and ``Pl`` of the positive class.
    reference : array_like of shape (N,)
        The value to cover, e.g. the true class probability in a simulation.

    Returns
    -------
    float
        ``(1/N) sum_i I[lower_i <= reference_i <= upper_i]``.

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite values or ``lower > upper``.

    Notes
    -----
    The empirical coverage of interval forecasts (Gneiting & Raftery 2007,
    Sec. 6.2); for Bel-Pl intervals, the fraction of samples whose reference
    probability lies between belief and plausibility.

    Examples
    --------
    >>> interval_coverage([0.1, 0.5], [0.3, 0.6], [0.2, 0.7])
    0.5
    """
    lo, hi, ref = _check_interval(lower, upper, reference)
    return float(np.mean((lo <= ref) & (ref <= hi)))


def interval_width(lower: ArrayLike, upper: ArrayLike) -> float:
    """Mean width ``(1/N) sum_i (upper_i - lower_i)`` (for Bel-Pl intervals: the mean ``m(frame)``).

    Parameters
    ----------
    lower, upper : array_like of shape (N,)
        Interval ends, ``lower <= upper`` element-wise.

    Returns
    -------
    float
        The mean width; never negative (an interval whose ends are reversed
        by rounding, by at most 1e-12, counts as width 0).

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite values or ``lower > upper``.

    Notes
    -----
    For the interval ``[Bel(A), Pl(A)]`` of a mass function, the width is
    ``Pl(A) - Bel(A) = sum_{B: B ∩ A != ∅, B ⊄ A} m(B)``; on a binary frame
    it is ``m(frame)``, the mass left uncommitted (Shafer 1976, Ch. 2).  The
    mean width is the sharpness term of the interval score of Gneiting &
    Raftery (2007), Eq. (43), reported separately so that coverage and
    sharpness can be read apart.

    References
    ----------
    G. Shafer, *A Mathematical Theory of Evidence*, Princeton (1976).
    T. Gneiting, A. E. Raftery, Strictly proper scoring rules, prediction,
    and estimation, *JASA* 102 (2007) 359-378.

    Examples
    --------
    >>> round(interval_width([0.1, 0.5], [0.3, 0.6]), 12)
    0.15
    """
    lo, hi = _check_interval(lower, upper)
    # intervals reversed by rounding (within the 1e-12 accepted above) have width 0, never negative
    return float(np.mean(np.maximum(hi - lo, 0.0)))


def interval_score(lower: ArrayLike, upper: ArrayLike, observed: ArrayLike, *, alpha: float = 0.05) -> float:
    """Mean interval score of Gneiting & Raftery (2007), Eq. (43) (lower is better).

    Parameters
    ----------
    lower, upper : array_like of shape (N,)
        Interval ends (e.g. ``Bel`` and ``Pl`` of the positive class).
    observed : array_like of shape (N,)
        The realised value: a reference probability, or the 0/1 outcome.
    alpha : float, default=0.05
        Nominal non-coverage ``alpha`` of a central ``(1 - alpha)`` interval;
        it sets the penalty ``2/alpha`` per unit of miss.

    Returns
    -------
    float
        ``(1/N) sum_i [(u_i - l_i) + (2/alpha)(l_i - x_i) I[x_i < l_i] + (2/alpha)(x_i - u_i) I[x_i > u_i]]``.

    Raises
    ------
    ValueError
        On invalid intervals or ``alpha`` not a number in ``(0, 1)``.

    Notes
    -----
    T. Gneiting, A. E. Raftery, Strictly proper scoring rules, prediction,
    and estimation, *JASA* 102 (2007), Eq. (43).  It rewards narrow
    intervals and penalises misses in proportion to their distance.

    Examples
    --------
    >>> round(interval_score([0.2], [0.4], [0.5], alpha=0.5), 12)
    0.6
    """
    lo, hi, x = _check_interval(lower, upper, observed, "observed")
    a = check_level(alpha, "alpha", meaning="the nominal non-coverage of a central (1 - alpha) interval")
    score = (hi - lo) + (2.0 / a) * np.maximum(lo - x, 0.0) + (2.0 / a) * np.maximum(x - hi, 0.0)
    return float(np.mean(score))


def _check_sets(prediction_sets, n_classes):
    as_float_array(prediction_sets, "prediction_sets")  # None, complex, strings, ragged, sparse: clear errors
    sets = np.asarray(prediction_sets)
    if sets.ndim == 2 and sets.dtype != bool and not np.all(np.isfinite(sets.astype(np.float64))):
        raise ValueError("`prediction_sets` contains NaN or infinite values; it must be boolean (or 0/1).")
    if sets.ndim == 2:
        if sets.dtype != bool:
            if not np.all(np.isin(sets, (0, 1))):
                raise ValueError(
                    "A 2-D `prediction_sets` must be boolean (or 0/1): sets[i, k] = class k is in set i."
                )
            sets = sets.astype(bool)
        if n_classes is not None and sets.shape[1] != n_classes:
            raise ValueError(f"`prediction_sets` has {sets.shape[1]} columns but n_classes={n_classes}.")
    elif sets.ndim == 1:
        if n_classes is None:
            raise ValueError(
                "1-D `prediction_sets` are read as integer bitmasks (bit k = class k); pass `n_classes` too."
            )
        if not np.issubdtype(sets.dtype, np.integer):
            raise ValueError("1-D `prediction_sets` must be integer bitmasks.")
        if np.any(sets < 0) or np.any(sets >= 2**n_classes):
            raise ValueError(f"Bitmasks must lie in [0, 2**{n_classes}); got values outside.")
        sets = ((sets[:, None] >> np.arange(n_classes)) & 1).astype(bool)
    else:
        raise ValueError(
            f"`prediction_sets` must be 1-D bitmasks or a 2-D boolean matrix; got shape {sets.shape}."
        )
    if sets.shape[0] == 0:
        raise ValueError("`prediction_sets` is empty.")
    sizes = sets.sum(axis=1)
    if np.any(sizes == 0):
        i = int(np.flatnonzero(sizes == 0)[0])
        raise ValueError(f"Prediction set {i} is empty; every decision must contain at least one class.")
    return sets, sizes


def discounted_accuracy(
    y_true: ArrayLike, prediction_sets: ArrayLike, *, n_classes: int | None = None
) -> float:
    """Discounted accuracy ``(1/N) sum_i I[y_i in Y_i] / |Y_i|`` of set-valued predictions.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices ``0 .. K-1`` (labels with label sets).
    prediction_sets : array_like of shape (N, K) bool, (N,) int bitmasks, or sequence of sets
        The predicted sets; as sets of labels (``predict_admissible`` output),
        ``y_true`` holds labels.
    n_classes : int, optional
        Required for bitmask input.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On empty sets, labels outside the sets' classes or mismatched lengths.

    Notes
    -----
    Zaffalon, Corani & Maua (2012), Sec. 2: the utility of a set that
    contains the truth is ``1/|Y|`` (equivalent to a random pick inside it).

    Examples
    --------
    >>> discounted_accuracy([0, 1, 2], [[True, False, False], [True, True, False], [True, False, False]])
    0.5
    """
    return float(np.mean(_discounted(y_true, prediction_sets, n_classes)))


def _label_sets(prediction_sets):
    """The prediction sets as a list of label sets when they are given as Python sets, else None."""
    if isinstance(prediction_sets, np.ndarray) and prediction_sets.dtype != object:
        return None
    if isinstance(prediction_sets, (set, frozenset, str, bytes)) or not hasattr(prediction_sets, "__len__"):
        return None
    items = list(prediction_sets)
    if not items or not any(isinstance(item, (set, frozenset)) for item in items):
        return None
    if not all(isinstance(item, (set, frozenset)) for item in items):
        i = next(i for i, item in enumerate(items) if not isinstance(item, (set, frozenset)))
        raise ValueError(
            f"`prediction_sets` mixes label sets with other values: item {i} is {type(items[i]).__name__}; "
            "pass one set of labels per sample (or a boolean matrix, or bitmasks)."
        )
    for i, item in enumerate(items):
        if not item:
            raise ValueError(f"Prediction set {i} is empty; every decision must contain at least one class.")
    return items


def _discounted(y_true, prediction_sets, n_classes):
    label_sets = _label_sets(prediction_sets)
    if label_sets is not None:
        return _discounted_labels(y_true, label_sets)
    sets, sizes = _check_sets(prediction_sets, n_classes)
    y = check_class_indices(y_true, n_classes=sets.shape[1])
    if y.shape[0] != sets.shape[0]:
        raise ValueError(
            f"Inputs have inconsistent numbers of samples: `y_true` has {y.shape[0]}, "
            f"`prediction_sets` has {sets.shape[0]}."
        )
    hit = sets[np.arange(y.shape[0]), y]
    return np.where(hit, 1.0 / sizes, 0.0)


def _discounted_labels(y_true, label_sets):
    """Discounted accuracy per sample of label sets against labels (of any hashable type)."""
    if y_true is None:
        raise DataTypeError("`y_true` is None; pass one label per sample.")
    y = np.asarray(y_true, dtype=object) if not isinstance(y_true, np.ndarray) else y_true
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"`y_true` must be 1-D (one label per sample); got shape {y.shape}.")
    if y.shape[0] != len(label_sets):
        raise ValueError(
            f"Inputs have inconsistent numbers of samples: `y_true` has {y.shape[0]}, "
            f"`prediction_sets` has {len(label_sets)}."
        )
    labels = y.tolist()
    try:
        return np.array([(1.0 / len(s)) if label in s else 0.0 for label, s in zip(labels, label_sets)])
    except TypeError:
        raise DataTypeError("`y_true` must hold hashable labels (numbers or strings).") from None


def utility_discounted_accuracy(
    y_true: ArrayLike, prediction_sets: ArrayLike, *, utility: str = "u65", n_classes: int | None = None
) -> float:
    """Utility-discounted accuracy of Zaffalon, Corani & Maua (2012): ``u65`` or ``u80``.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices (labels with label sets).
    prediction_sets : array_like of shape (N, K) bool, (N,) int bitmasks, or sequence of sets
        The predicted sets; as sets of labels (``predict_admissible`` output),
        ``y_true`` holds labels.
    utility : {"u65", "u80"}, default="u65"
        ``u65(d) = 1.6 d - 0.6 d**2`` and ``u80(d) = 2.2 d - 1.2 d**2`` of the
        discounted accuracy ``d = I[y in Y] / |Y|`` of each sample.
    n_classes : int, optional
        Required for bitmask input.

    Returns
    -------
    float
        Mean utility; a correct singleton scores 1 under both, a correct
        pair 0.65 (u65) or 0.80 (u80).

    Raises
    ------
    ValueError
        As :func:`discounted_accuracy`, or on an unknown ``utility``.

    Notes
    -----
    M. Zaffalon, G. Corani, D. Maua, Evaluating credal classifiers by
    utility-discounted predictive accuracy, *IJAR* 53 (2012) 1282-1301,
    Eqs. (7)-(8).

    Examples
    --------
    >>> utility_discounted_accuracy([0], [[True, True, False]], utility="u65")
    0.65
    >>> utility_discounted_accuracy([0], [[True, True, False]], utility="u80")
    0.8
    """
    d = _discounted(y_true, prediction_sets, n_classes)
    if utility == "u65":
        u = 1.6 * d - 0.6 * d * d
    elif utility == "u80":
        u = 2.2 * d - 1.2 * d * d
    else:
        raise ValueError(f"`utility` must be 'u65' or 'u80'; got {utility!r}.")
    return float(np.round(np.mean(u), 15))


def u65_score(y_true: ArrayLike, prediction_sets: ArrayLike, *, n_classes: int | None = None) -> float:
    """``u65`` utility-discounted accuracy (see :func:`utility_discounted_accuracy`).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices (labels with label sets).
    prediction_sets : array_like of shape (N, K) bool, (N,) int bitmasks, or sequence of sets
        The predicted sets; as sets of labels (``predict_admissible`` output),
        ``y_true`` holds labels.
    n_classes : int, optional
        Required for bitmask input.

    Returns
    -------
    float
        Mean of ``1.6 d - 0.6 d**2`` over the samples, ``d = I[y in Y] / |Y|``.

    Raises
    ------
    ValueError
        As :func:`utility_discounted_accuracy`.

    Notes
    -----
    ``u65`` rewards a correct pair with 0.65: a decision maker who values
    the cautious answer "one of these two" a bit more than a coin flip
    between them (0.5) (Zaffalon, Corani & Maua 2012).

    References
    ----------
    M. Zaffalon, G. Corani, D. Maua, Evaluating credal classifiers by
    utility-discounted predictive accuracy, *IJAR* 53 (2012) 1282-1301.

    Examples
    --------
    >>> u65_score([1], [[False, True]])
    1.0
    """
    return utility_discounted_accuracy(y_true, prediction_sets, utility="u65", n_classes=n_classes)


def u80_score(y_true: ArrayLike, prediction_sets: ArrayLike, *, n_classes: int | None = None) -> float:
    """``u80`` utility-discounted accuracy (see :func:`utility_discounted_accuracy`).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices (labels with label sets).
    prediction_sets : array_like of shape (N, K) bool, (N,) int bitmasks, or sequence of sets
        The predicted sets; as sets of labels (``predict_admissible`` output),
        ``y_true`` holds labels.
    n_classes : int, optional
        Required for bitmask input.

    Returns
    -------
    float
        Mean of ``2.2 d - 1.2 d**2`` over the samples, ``d = I[y in Y] / |Y|``.

    Raises
    ------
    ValueError
        As :func:`utility_discounted_accuracy`.

    Notes
    -----
    ``u80`` rewards a correct pair with 0.80: it values cautious set-valued
    answers more than ``u65`` does (Zaffalon, Corani & Maua 2012).

    References
    ----------
    M. Zaffalon, G. Corani, D. Maua, Evaluating credal classifiers by
    utility-discounted predictive accuracy, *IJAR* 53 (2012) 1282-1301.

    Examples
    --------
    >>> u80_score([1], np.array([3]), n_classes=2)
    0.8
    """
    return utility_discounted_accuracy(y_true, prediction_sets, utility="u80", n_classes=n_classes)
