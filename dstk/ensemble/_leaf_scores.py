"""Scores and mass functions of single tree leaves from their class counts.

Every function takes positive and negative counts of any (matching) shape, so
a whole ``(n_samples, n_trees)`` grid of leaves is scored at once.  The
expensive models (plausibility, confidence bounds) are evaluated once per
distinct count pair and scattered back, which keeps 10^7 leaves well under a
second (leaf counts of an ensemble take few distinct values).

Binary only: ``positives`` counts class 1, ``negatives`` class 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from dstk._validation import check_counts

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "leaf_probability",
    "leaf_laplace",
    "leaf_confidence_bound",
    "leaf_confidence_height",
    "leaf_plausibility_degrees",
    "leaf_plausibility_score",
    "leaf_plausibility_mass",
]

_DENSE_TABLE_LIMIT = 1 << 22


def _check_pair(positives, negatives):
    pos = check_counts(positives, name="positives", keep_integers=True)
    neg = check_counts(negatives, name="negatives", keep_integers=True)
    if pos.shape != neg.shape:
        raise ValueError(
            f"`positives` and `negatives` must have the same shape; got {pos.shape} and {neg.shape}."
        )
    return pos, neg


def map_distinct_pairs(
    positives: ArrayLike, negatives: ArrayLike, function: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    """Evaluate ``function(pos_distinct, neg_distinct)`` once per distinct count pair.

    Parameters
    ----------
    positives, negatives : ndarray (same shape), non-negative counts
    function : callable
        Takes two 1-D float64 arrays and returns a 1-D float64 array (or a
        2-D array with one row per pair).

    Returns
    -------
    ndarray
        ``function`` evaluated at every pair, shape ``positives.shape`` (plus
        the trailing axis of a 2-D result).
    """
    pos = np.asarray(positives)
    neg = np.asarray(negatives)
    shape = pos.shape
    if pos.size == 0:
        probe = np.asarray(function(np.zeros(1), np.zeros(1)))
        return np.zeros(shape + probe.shape[1:])
    integer = pos.dtype.kind in "iub" and neg.dtype.kind in "iub"
    if integer:
        max_neg = int(neg.max())
        size = (int(pos.max()) + 1) * (max_neg + 1)
    if integer and size <= _DENSE_TABLE_LIMIT:
        keys = pos.astype(np.int64).ravel() * (max_neg + 1) + neg.astype(np.int64).ravel()
        used = np.zeros(size, dtype=bool)
        used[keys] = True
        distinct = np.flatnonzero(used)
        values = np.asarray(
            function(
                (distinct // (max_neg + 1)).astype(np.float64), (distinct % (max_neg + 1)).astype(np.float64)
            )
        )
        table = np.zeros((size,) + values.shape[1:])
        table[distinct] = values
        return table[keys].reshape(shape + values.shape[1:])
    pairs = np.stack([pos.astype(np.float64).ravel(), neg.astype(np.float64).ravel()], axis=1)
    distinct, inverse = np.unique(pairs, axis=0, return_inverse=True)
    values = np.asarray(function(distinct[:, 0].copy(), distinct[:, 1].copy()))
    return values[inverse.ravel()].reshape(shape + values.shape[1:])


def leaf_probability(positives: ArrayLike, negatives: ArrayLike) -> np.ndarray:
    """Relative frequency of the positive class in a leaf.

    Parameters
    ----------
    positives, negatives : array_like
        Class-1 and class-0 counts (same shape, >= 0).

    Returns
    -------
    ndarray of float64
        p / (p + q); 0.5 for an empty leaf.

    Raises
    ------
    ValueError
        Negative or non-finite counts, or mismatched shapes.

    Notes
    -----
    Busch et al. (2021), section 3.1.1, p_prob (shifted by +0.5 to [0, 1], as
    in the authors' code).

    References
    ----------
    Busch, J., Kulessa, M., Loza Mencia, E. and Blockeel, H. (2021).
    Combining predictions under uncertainty: the case of random decision
    trees. Discovery Science 2021.

    Examples
    --------
    >>> leaf_probability([1, 2, 0], [1, 0, 0])
    array([0.5, 1. , 0.5])
    """
    pos, neg = _check_pair(positives, negatives)
    total = pos.astype(np.float64) + neg
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, pos / np.where(total > 0, total, 1.0), 0.5)


def leaf_laplace(positives: ArrayLike, negatives: ArrayLike) -> np.ndarray:
    """Laplace estimate (p + 1) / (p + q + 2) of a leaf.

    Parameters
    ----------
    positives, negatives : array_like
        Class-1 and class-0 counts.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        Invalid counts.

    Notes
    -----
    Busch et al. (2021), section 3.1.1, p_lap (+0.5).

    References
    ----------
    Busch et al. (2021), see :func:`leaf_probability`.

    Examples
    --------
    >>> leaf_laplace([2, 0], [1, 0])
    array([0.6, 0.5])
    """
    pos, neg = _check_pair(positives, negatives)
    return (pos + 1.0) / (pos + neg + 2.0)


def _beta_binomial_logpmf(x, n, a, b):
    return (
        special.gammaln(n + 1)
        - special.gammaln(x + 1)
        - special.gammaln(n - x + 1)
        + special.betaln(x + a, n - x + b)
        - special.betaln(a, b)
    )


def _confidence_bound_pairs(pos, neg):
    n = pos + neg
    a = pos + 1.0
    b = neg + 1.0
    lower = np.floor(n / 2.0)
    upper = np.ceil(n / 2.0)
    height = 0.5 * (
        np.exp(_beta_binomial_logpmf(lower, n, a, b)) + np.exp(_beta_binomial_logpmf(upper, n, a, b))
    )
    mode = np.exp(_beta_binomial_logpmf(pos, n, a, b))
    c = height / mode
    p_hat = np.where(n > 0, pos / np.where(n > 0, n, 1.0), 0.5)
    score = np.where(n > 0, 0.5 + (1.0 - c) * (p_hat - 0.5), 0.5)
    return np.stack([c, score], axis=1)


def leaf_confidence_bound(positives: ArrayLike, negatives: ArrayLike) -> np.ndarray:
    """Confidence-bounds score of a leaf (beta-binomial intersection height).

    Parameters
    ----------
    positives, negatives : array_like
        Class-1 and class-0 counts (integers).

    Returns
    -------
    ndarray of float64
        0.5 + (1 - c)(p/n - 0.5), with c the normalised intersection height
        of :func:`leaf_confidence_height`; 0.5 for an empty leaf.

    Raises
    ------
    ValueError
        Invalid counts.

    Notes
    -----
    Busch et al. (2021), section 3.1.3: with n = p + q, the positive curve is
    the beta-binomial pmf BB(x; n, p + 1, q + 1) and the negative curve its
    mirror BB(x; n, q + 1, p + 1); they intersect at x = n / 2 (for odd n the
    mean of the pmf at floor(n/2) and ceil(n/2) is used).  c is that height
    divided by the pmf at its mode x = p, so c is in (0, 1]; the score shrinks
    p/n towards 1/2 by the factor 1 - c (the authors' ``fast_cb`` in
    ``prediction/prediction_methods.py`` of github.com/olfub/RDT-Uncertainty).

    References
    ----------
    Busch et al. (2021), see :func:`leaf_probability`.

    Examples
    --------
    >>> print(leaf_confidence_bound([1, 2], [0, 1]).round(6))
    [0.625    0.520833]
    """
    pos, neg = _check_pair(positives, negatives)
    return map_distinct_pairs(pos, neg, _confidence_bound_pairs)[..., 1]


def leaf_confidence_height(positives: ArrayLike, negatives: ArrayLike) -> np.ndarray:
    """Normalised intersection height c of the confidence-bounds score.

    Parameters
    ----------
    positives, negatives : array_like
        Class-1 and class-0 counts (integers).

    Returns
    -------
    ndarray of float64
        c in (0, 1] (Busch et al. 2021, section 3.1.3; see
        :func:`leaf_confidence_bound`); NaN for an empty leaf.

    Raises
    ------
    ValueError
        Invalid counts.

    References
    ----------
    Busch et al. (2021), see :func:`leaf_probability`.

    Examples
    --------
    >>> print(leaf_confidence_height([1, 2], [0, 1]).round(6))
    [0.75  0.875]
    """
    pos, neg = _check_pair(positives, negatives)
    values = map_distinct_pairs(pos, neg, _confidence_bound_pairs)
    return np.where(pos + neg > 0, values[..., 0], np.nan)


def _rescaled(pos, neg, rescale_above):
    if rescale_above is None:
        return pos, neg
    largest = np.maximum(pos, neg)
    factor = np.where(largest > rescale_above, largest / rescale_above, 1.0)
    return np.round(pos / factor), np.round(neg / factor)


def _degrees_pairs(rescale_above):
    from dstk.evidence._counts import _check_counts, _plausibility_degrees

    def degrees(pos, neg):
        pos, neg = _rescaled(pos, neg, rescale_above)
        pi_plus, pi_minus = _plausibility_degrees(*_check_counts(pos, pos + neg, allow_fractional=True))
        return np.stack([pi_plus, pi_minus], axis=1)

    return degrees


def _check_rescale(rescale_above):
    if rescale_above is None:
        return None
    try:
        value = float(rescale_above)
    except (TypeError, ValueError):
        raise ValueError(
            f"`rescale_above` must be None or a positive number; got {rescale_above!r}."
        ) from None
    if not value > 0:
        raise ValueError(f"`rescale_above` must be None or a positive number; got {rescale_above!r}.")
    return value


def leaf_plausibility_degrees(
    positives: ArrayLike, negatives: ArrayLike, rescale_above: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Shaker & Huellermeier's degrees of support (pi+, pi-) of leaves.

    Parameters
    ----------
    positives, negatives : array_like
        Class-1 and class-0 counts.
    rescale_above : float or None, default None
        If given, counts whose larger member exceeds it are scaled down to it
        and rounded half to even first (the authors' code uses 537 as an
        underflow guard; dstk's solver works in the log domain and needs none).

    Returns
    -------
    pi_plus, pi_minus : ndarray of float64

    Raises
    ------
    ValueError
        Invalid counts or ``rescale_above``.

    Notes
    -----
    Computed by :func:`dstk.evidence._counts.plausibility_degrees` once per
    distinct pair: pi+ = sup_theta min(pl(theta), 2 theta - 1),
    pi- = sup_theta min(pl(theta), 1 - 2 theta) with the normalised binomial
    likelihood pl (Busch et al. 2021, section 3.1.2).

    References
    ----------
    Shaker, M. H. and Huellermeier, E. (2020). Aleatoric and epistemic
    uncertainty with random forests. IDA 2020.

    Examples
    --------
    >>> pi_plus, pi_minus = leaf_plausibility_degrees([1], [1])
    >>> round(float(pi_plus[0]), 6), round(float(pi_minus[0]), 6)
    (0.618034, 0.618034)
    """
    pos, neg = _check_pair(positives, negatives)
    values = map_distinct_pairs(pos, neg, _degrees_pairs(_check_rescale(rescale_above)))
    return values[..., 0], values[..., 1]


def leaf_plausibility_score(
    positives: ArrayLike, negatives: ArrayLike, rescale_above: float | None = None
) -> np.ndarray:
    """Plausibility score s+ - s- = pi+ - pi- of leaves, in [-1, 1].

    Parameters
    ----------
    positives, negatives : array_like
        Class-1 and class-0 counts.
    rescale_above : float or None, default None
        See :func:`leaf_plausibility_degrees`.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        Invalid counts.

    Notes
    -----
    Busch et al. (2021), section 3.1.2: s+ = 1 - (u_a + u_e) if pi+ > pi-,
    half of it if equal, else 0, with u_e = min(pi+, pi-) and
    u_a = 1 - max(pi+, pi-); p_pls = s+ - s- = pi+ - pi-.

    References
    ----------
    Busch et al. (2021), see :func:`leaf_probability`.

    Examples
    --------
    >>> leaf_plausibility_score([1, 0], [0, 1]).round(6)
    array([ 0.666667, -0.666667])
    """
    pi_plus, pi_minus = leaf_plausibility_degrees(positives, negatives, rescale_above)
    return pi_plus - pi_minus


def leaf_plausibility_mass(
    positives: ArrayLike, negatives: ArrayLike, rescale_above: float | None = None
) -> np.ndarray:
    """Binary mass functions of leaves from the plausibility degrees.

    Parameters
    ----------
    positives, negatives : array_like
        Class-1 and class-0 counts.
    rescale_above : float or None, default None
        See :func:`leaf_plausibility_degrees`.

    Returns
    -------
    ndarray of float64, shape ``positives.shape + (4,)``
        ``[m(empty) = 0, m({0}), m({1}), m({0, 1})]`` (dense layout of
        ``Frame((0, 1))``).

    Raises
    ------
    ValueError
        Invalid counts.

    Notes
    -----
    Busch et al. (2021), section 4.0.2: m({1}) = s+ = max(pi+ - pi-, 0),
    m({0}) = s- = max(pi- - pi+, 0), m(frame) = u_e + u_a = 1 - abs(pi+ - pi-).

    References
    ----------
    Busch et al. (2021), see :func:`leaf_probability`.

    Examples
    --------
    >>> leaf_plausibility_mass([2], [1]).round(6)
    array([[0.      , 0.      , 0.300125, 0.699875]])
    """
    pi_plus, pi_minus = leaf_plausibility_degrees(positives, negatives, rescale_above)
    difference = pi_plus - pi_minus
    out = np.zeros(difference.shape + (4,))
    out[..., 1] = np.maximum(-difference, 0.0)
    out[..., 2] = np.maximum(difference, 0.0)
    # u_a + u_e = (1 - max) + min, computed without the cancellation of 1 - |pi+ - pi-|
    out[..., 3] = (1.0 - np.maximum(pi_plus, pi_minus)) + np.minimum(pi_plus, pi_minus)
    return out
