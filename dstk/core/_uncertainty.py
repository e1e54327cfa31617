"""Uncertainty measures of (batched) mass functions, in bits.

* :func:`nonspecificity`: the generalised Hartley measure (Dubois & Prade 1985).
* :func:`aggregate_uncertainty`: the maximal Shannon entropy over the credal
  set (Harmanec & Klir 1994; algorithm of Meyerowitz et al. 1994).
* :func:`jirousek_shenoy_entropy`: Jiroušek & Shenoy (2018).
* :func:`discord` (Klir & Ramer 1990) and :func:`strife` (Klir & Parviz 1992).
* :func:`uncertainty_decomposition`: total = aleatoric + epistemic.

Every function takes a :class:`~dstk.core.MassFunction` with any batch shape
and returns one value per mass function (a float when unbatched).  The
measures are defined for normalised mass functions (``m(empty) = 0``);
normalise subnormal ones first with :func:`dstk.core.normalize`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._kernels.uncertainty import maximum_entropy_probabilities
from .._validation import as_float_array
from ..exceptions import InvalidMassError
from ._dense import DENSE_MAX_LABELS, MASS_TOLERANCE
from ._mass import MassFunction, as_mass_function
from ._sparse import popcount
from ._storage import membership as _membership

__all__ = [
    "nonspecificity",
    "aggregate_uncertainty",
    "jirousek_shenoy_entropy",
    "discord",
    "strife",
    "shannon_entropy",
    "maximum_entropy_probability",
    "uncertainty_decomposition",
    "UncertaintyDecomposition",
    "UNCERTAINTY_MEASURES",
]

UNCERTAINTY_MEASURES = ("aggregate", "jirousek_shenoy")

_TIE_TOLERANCE = 1e-12


def _check_mass(m, name="m"):
    """``m`` as a MassFunction (a dict {focal set: mass} is converted, as everywhere), checked normalised."""
    m = as_mass_function(m, name)  # raises the shared error for what is not a mass function
    empty = np.asarray(m.conflict, dtype=np.float64)
    if np.any(empty > MASS_TOLERANCE):
        index = np.unravel_index(int(np.argmax(empty)), empty.shape) if empty.ndim else ()
        raise InvalidMassError(
            f"Uncertainty measures are defined for normalised mass functions, but `{name}` puts mass "
            f"{float(empty.max()):.6g} on the empty set (batch index {tuple(int(i) for i in index)}). "
            "Normalise it first with dstk.core.normalize(m)."
        )
    return m


def _scalar(m, values):
    values = np.asarray(values, dtype=np.float64)
    return float(values) if m.batch_shape == () else values


def _focal_form(m):
    """(focal bitmasks (F,), masses batch_shape + (F,)) with the empty set dropped."""
    focal, masses = m._focal_form()
    keep = focal != 0
    return focal[keep], masses[..., keep]


def _xlog2x(p):
    p = as_float_array(p, "p")
    out = np.zeros_like(p)
    positive = p > 0
    out[positive] = p[positive] * np.log2(p[positive])
    return out


def shannon_entropy(p: ArrayLike) -> float | np.ndarray:
    """Shannon entropy in bits of probability vectors along the last axis.

    Parameters
    ----------
    p : array_like of shape (..., n)
        Probability vectors (non-negative, summing to one).

    Returns
    -------
    float or ndarray of shape p.shape[:-1]
        ``H(p) = -sum_x p(x) log2 p(x)`` with ``0 log 0 = 0``.

    Raises
    ------
    ValueError
        On negative, non-finite or non-normalised vectors.

    Notes
    -----
    Shannon (1948), in bits (base-2 logarithm); the measure that
    :func:`aggregate_uncertainty` maximises over a credal set.

    References
    ----------
    C. E. Shannon, A mathematical theory of communication, *Bell System
    Technical Journal* 27 (1948) 379-423.

    Examples
    --------
    >>> shannon_entropy([0.5, 0.25, 0.25])
    1.5
    """
    arr = as_float_array(p, "p")
    if arr.ndim == 0:
        raise ValueError(f"`p` must hold probability vectors along its last axis; got a scalar {p!r}.")
    if arr.shape[-1] == 0:
        raise ValueError(
            f"`p` must hold probability vectors along its last axis, each over at least one outcome; got shape "
            f"{arr.shape}."
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < -MASS_TOLERANCE):
        raise ValueError("`p` must hold finite, non-negative probabilities.")
    sums = arr.sum(axis=-1)
    if np.any(np.abs(sums - 1.0) > 1e-6):
        raise ValueError(
            f"`p` must sum to one along its last axis; got sums from {sums.min():.6g} to {sums.max():.6g}. "
            "Normalise with p / p.sum(axis=-1, keepdims=True)."
        )
    out = -_xlog2x(np.clip(arr, 0.0, None)).sum(axis=-1)
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


def nonspecificity(m: MassFunction) -> float | np.ndarray:
    """Generalised Hartley measure (nonspecificity) of a mass function, in bits.

    Parameters
    ----------
    m : MassFunction
        Normalised mass function(s), any batch shape.

    Returns
    -------
    float or ndarray of shape m.batch_shape
        ``N(m) = sum_{A != empty} m(A) log2 |A|``.

    Raises
    ------
    InvalidMassError
        If some mass function puts mass on the empty set.

    Notes
    -----
    Dubois & Prade (1985), the generalisation of Hartley's measure proved unique
    by Ramer (1987); ``0 <= N(m) <= log2 n``, zero exactly for Bayesian mass
    functions, ``log2 n`` for the vacuous one.

    References
    ----------
    D. Dubois, H. Prade, A note on measures of specificity for fuzzy sets,
    *Int. J. General Systems* 10 (1985) 279-283.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> nonspecificity(MassFunction({"a": 0.5, "a,b,c,d": 0.5}))
    1.0
    """
    m = _check_mass(m)
    return m._scalar(m._cardinality_weighted(np.log2))


def aggregate_uncertainty(m: MassFunction) -> float | np.ndarray:
    """Aggregate uncertainty: the maximal Shannon entropy over the credal set, in bits.

    Parameters
    ----------
    m : MassFunction
        Normalised mass function(s) on a frame of at most 16 labels, any batch
        shape.

    Returns
    -------
    float or ndarray of shape m.batch_shape
        ``AU(bel) = max { H(p) : sum_{x in A} p(x) >= bel(A) for every A }``.

    Raises
    ------
    InvalidMassError
        If some mass function puts mass on the empty set.
    FrameTooLargeError
        For frames of more than 16 labels.

    Notes
    -----
    Harmanec & Klir (1994) define AU and prove it the unique measure with the
    required axioms; the maximiser is found exactly by the algorithm of
    Meyerowitz, Richman & Walker (1994) (Harmanec et al. 1996, Algorithm 1):
    repeatedly give the set ``A`` maximising ``bel(A)/|A|`` (largest on ties)
    the uniform probability ``bel(A)/|A|`` on its elements and condition the
    belief function on the rest.  Cost ``O(n 2**n)`` per mass function.
    ``H(BetP) <= AU`` and ``N(m) <= AU <= log2 n``.

    References
    ----------
    D. Harmanec, G. J. Klir, Measuring total uncertainty in Dempster-Shafer
    theory: a novel approach, *Int. J. General Systems* 22 (1994) 405-419.
    A. Meyerowitz, F. Richman, E. A. Walker, Calculating maximum-entropy
    probability densities for belief functions, *Int. J. Uncertainty,
    Fuzziness and Knowledge-Based Systems* 2 (1994) 377-389.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> aggregate_uncertainty(MassFunction({"a": 0.7, "a,b": 0.3}))  # p = (0.7, 0.3)
    0.8812908992306927
    """
    return shannon_entropy(maximum_entropy_probability(m))


def maximum_entropy_probability(m: MassFunction) -> np.ndarray:
    """The probability vector of maximal entropy in the credal set of ``m``.

    Parameters
    ----------
    m : MassFunction
        Normalised mass function(s) on at most 16 labels.

    Returns
    -------
    ndarray of shape m.batch_shape + (n,)
        The maximiser of :func:`aggregate_uncertainty` (unique: entropy is
        strictly concave).

    Raises
    ------
    InvalidMassError
        If some mass function puts mass on the empty set.
    FrameTooLargeError
        For frames of more than 16 labels.

    Notes
    -----
    The algorithm of Meyerowitz, Richman & Walker (1994) (Harmanec et al.
    1996, Algorithm 1): the set ``A`` maximising ``bel(A)/|A|`` (largest on
    ties) gets ``bel(A)/|A|`` on each element, the belief function is
    conditioned on the rest, ``bel'(B) = bel(B | A) - bel(A)``, and the step
    repeats.

    References
    ----------
    A. Meyerowitz, F. Richman, E. A. Walker, Calculating maximum-entropy
    probability densities for belief functions, *IJUFKS* 2 (1994) 377-389.
    D. Harmanec, G. Resconi, G. J. Klir, Y. Pan, On the computation of
    uncertainty measure in Dempster-Shafer theory, *Int. J. General Systems*
    25 (1996) 153-163.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> maximum_entropy_probability(MassFunction({"a": 0.5, "b,c": 0.3, "a,b,c": 0.2}))
    array([0.5 , 0.25, 0.25])
    """
    m = _check_mass(m)
    n = m.frame.n
    if n > DENSE_MAX_LABELS:
        from ..exceptions import FrameTooLargeError

        raise FrameTooLargeError(
            f"The aggregate uncertainty (maximum_entropy_probability, aggregate_uncertainty, "
            f"uncertainty_decomposition(measure='aggregate')) needs the belief of all 2**n subsets; the "
            f"frame has n = {n} labels (at most {DENSE_MAX_LABELS} supported). Coarsen the frame first, or "
            "use jirousek_shenoy_entropy / uncertainty_decomposition(m, measure='jirousek_shenoy'), which "
            "work on frames of any size."
        )
    bel = np.ascontiguousarray(m.to_array("bel").reshape(-1, 1 << n))
    p = maximum_entropy_probabilities(bel, n, _TIE_TOLERANCE)
    return p.reshape(m.batch_shape + (n,))


def jirousek_shenoy_entropy(m: MassFunction) -> float | np.ndarray:
    """Jiroušek-Shenoy entropy: Shannon entropy of the plausibility transform plus nonspecificity.

    Parameters
    ----------
    m : MassFunction
        Normalised mass function(s), any batch shape.

    Returns
    -------
    float or ndarray of shape m.batch_shape
        ``H_JS(m) = sum_x Pl_P(x) log2 (1 / Pl_P(x)) + sum_{A != empty} m(A) log2 |A|``
        with ``Pl_P(x) = pl({x}) / sum_y pl({y})``.

    Raises
    ------
    InvalidMassError
        If some mass function puts mass on the empty set.

    Notes
    -----
    Jiroušek & Shenoy (2018), Eq. (8): the first term measures conflict
    (the entropy of the plausibility transform, which is consistent with
    Dempster's rule, Cobb & Shenoy 2006), the second nonspecificity.  The
    range is ``[0, 2 log2 n]``; it equals Shannon's entropy for Bayesian mass
    functions and ``2 log2 n`` for the vacuous one.

    References
    ----------
    R. Jiroušek, P. P. Shenoy, A new definition of entropy of belief functions
    in the Dempster-Shafer theory, *Int. J. Approximate Reasoning* 92 (2018)
    49-65.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> jirousek_shenoy_entropy(MassFunction({"a,b": 1.0}))
    2.0
    """
    m = _check_mass(m)
    return _scalar(m, shannon_entropy(m.plausibility_transform()) + np.asarray(m.nonspecificity()))


def discord(m: MassFunction) -> float | np.ndarray:
    """Klir & Ramer's discord, in bits.

    Parameters
    ----------
    m : MassFunction
        Normalised mass function(s), any batch shape.

    Returns
    -------
    float or ndarray of shape m.batch_shape
        ``D(m) = -sum_A m(A) log2 (1 - sum_B m(B) |B - A| / |B|)``.

    Raises
    ------
    InvalidMassError
        If some mass function puts mass on the empty set.

    Notes
    -----
    Klir & Ramer (1990).  For a normalised ``m``,
    ``1 - sum_B m(B) |B - A| / |B| = sum_B m(B) |A & B| / |B| = BetP(A)``,
    so ``D(m) = -sum_A m(A) log2 BetP(A)``, computed here in ``O(F n)`` per
    mass function for ``F`` focal sets instead of ``O(F**2)``.  For a
    Bayesian ``m`` it equals Shannon's entropy; it is zero for a single focal
    set and, unlike :func:`strife`, positive for most nested (consonant) ones,
    the flaw that led to strife (Klir 2006, Sec. 6.7).

    References
    ----------
    G. J. Klir, A. Ramer, Uncertainty in the Dempster-Shafer theory: a critical
    re-examination, *Int. J. General Systems* 18 (1990) 155-166.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> discord(MassFunction({"a": 0.5, "b": 0.5}))
    1.0
    """
    return _klir_conflict(m, normalized_by="other")


def strife(m: MassFunction) -> float | np.ndarray:
    """Klir & Parviz's strife, in bits.

    Parameters
    ----------
    m : MassFunction
        Normalised mass function(s), any batch shape.

    Returns
    -------
    float or ndarray of shape m.batch_shape
        ``S(m) = -sum_A m(A) log2 (1 - sum_B m(B) |A - B| / |A|)``.

    Raises
    ------
    InvalidMassError
        If some mass function puts mass on the empty set.

    Notes
    -----
    Klir & Parviz (1992).  For a normalised ``m``,
    ``1 - sum_B m(B) |A - B| / |A| = sum_{x in A} pl({x}) / |A|`` (the mean
    contour over ``A``), so ``S(m) = -sum_A m(A) log2 (sum_{x in A} pl({x}) / |A|)``,
    ``O(F n)`` per mass function.  Equals Shannon's entropy for a Bayesian
    ``m`` and is zero exactly when ``m`` has a single focal set (Klir 2006,
    Sec. 6.7).

    References
    ----------
    G. J. Klir, B. Parviz, A note on the measure of discord, in *Uncertainty in
    Artificial Intelligence* 8 (1992) 138-141.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> strife(MassFunction({"a": 0.5, "b": 0.5}))
    1.0
    """
    return _klir_conflict(m, normalized_by="focal")


def _klir_conflict(m, *, normalized_by):
    """``-sum_A m(A) log2 (sum_B m(B) |A & B| / |N|)`` with ``N = B`` (discord) or ``N = A`` (strife).

    The two measures differ only in the set whose cardinality normalises the
    inclusion ``|A & B|``.  With ``N = B`` the inner sum is ``BetP(A)``
    (``normalized_by="other"``, Klir & Ramer 1990); with ``N = A`` it is the
    mean contour ``sum_{x in A} pl({x}) / |A|`` (``normalized_by="focal"``,
    Klir & Parviz 1992).  Both are ``O(F n)`` per mass function for ``F``
    focal sets.
    """
    m = _check_mass(m)
    if m._storage.is_wide:  # frames of more than 64 labels: the membership rows of the focal sets
        member, masses = m._storage.nonempty_members(m.frame.n)
        membership = member.astype(np.float64)
        size = member.sum(axis=1)
    else:
        focal, masses = _focal_form(m)
        membership = _membership(focal, m.frame.n)
        size = popcount(focal)
    if normalized_by == "other":
        inner = m.pignistic() @ membership.T
    else:
        inner = (m.contour() @ membership.T) / size.astype(np.float64)
    masses = np.asarray(masses, dtype=np.float64)
    positive = masses > 0
    safe = np.where(positive, np.clip(inner, np.finfo(float).tiny, None), 1.0)
    return _scalar(m, np.maximum(-(masses * np.log2(safe) * positive).sum(axis=-1), 0.0))


class UncertaintyDecomposition(NamedTuple):
    """``total = aleatoric + epistemic`` (bits), one value per mass function.

    Attributes
    ----------
    total, aleatoric, epistemic : float or ndarray
        See :func:`uncertainty_decomposition`.

    Notes
    -----
    The additive split of total uncertainty into a conflict (Shannon-like)
    part and a nonspecificity part of Klir & Smith (2001) and Jiroušek &
    Shenoy (2018).

    References
    ----------
    G. J. Klir, R. M. Smith, On measuring uncertainty and uncertainty-based
    information, *Annals of Mathematics and Artificial Intelligence* 32
    (2001) 5-33.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> uncertainty_decomposition(MassFunction({"a": 0.5, "a,b": 0.5})).epistemic
    0.5
    """

    total: float | np.ndarray
    aleatoric: float | np.ndarray
    epistemic: float | np.ndarray


def uncertainty_decomposition(m: MassFunction, *, measure: str = "aggregate") -> UncertaintyDecomposition:
    """Split the total uncertainty of mass functions into aleatoric and epistemic parts (bits).

    Parameters
    ----------
    m : MassFunction
        Normalised mass function(s), e.g. the output of a calibrator's or
        classifier's ``predict_mass``; any batch shape.
    measure : {"aggregate", "jirousek_shenoy"}, default="aggregate"
        * ``"aggregate"``: total = :func:`aggregate_uncertainty` (the upper
          entropy of the credal set), epistemic = :func:`nonspecificity`,
          aleatoric = total - epistemic (Klir's generalised Shannon entropy,
          Klir & Smith 2001, Eq. 20).  Frames of at most 16 labels.
        * ``"jirousek_shenoy"``: total = :func:`jirousek_shenoy_entropy`,
          aleatoric = Shannon entropy of the plausibility transform,
          epistemic = :func:`nonspecificity` (the two terms of Jiroušek &
          Shenoy 2018, Eq. 8).

    Returns
    -------
    UncertaintyDecomposition
        Named tuple ``(total, aleatoric, epistemic)``; each a float
        (unbatched) or an array of shape ``m.batch_shape``.

    Raises
    ------
    ValueError
        On an unknown ``measure``.
    InvalidMassError
        If some mass function puts mass on the empty set.
    FrameTooLargeError
        ``measure="aggregate"`` on a frame of more than 16 labels.

    Notes
    -----
    Epistemic uncertainty is lack of evidence: nonspecificity is zero for a
    probability (only aleatoric uncertainty, its Shannon entropy) and
    ``log2 n`` for the vacuous mass function (total ignorance, no aleatoric
    part).  For a calibrated binary output with interval ``[Bel, Pl]`` of the
    positive class, the epistemic part is exactly the width ``Pl - Bel`` (in
    bits, since ``log2 2 = 1``) and ``AU`` is the binary entropy of the point
    of ``[Bel, Pl]`` closest to 1/2.  The aggregate split is non-negative
    (``AU >= N``, Harmanec & Klir 1994).

    References
    ----------
    G. J. Klir, R. M. Smith, On measuring uncertainty and uncertainty-based
    information: recent developments, *Annals of Mathematics and Artificial
    Intelligence* 32 (2001) 5-33.
    R. Jiroušek, P. P. Shenoy (2018), see :func:`jirousek_shenoy_entropy`.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> d = uncertainty_decomposition(MassFunction({0: 0.3, 1: 0.5, (0, 1): 0.2}))
    >>> round(d.total, 4), round(d.aleatoric, 4), round(d.epistemic, 4)
    (1.0, 0.8, 0.2)
    """
    if measure not in UNCERTAINTY_MEASURES:
        raise ValueError(f"`measure` must be one of {UNCERTAINTY_MEASURES}; got {measure!r}.")
    m = _check_mass(m)
    epistemic = nonspecificity(m)
    if measure == "aggregate":
        total = aggregate_uncertainty(m)
        aleatoric = np.maximum(np.asarray(total) - np.asarray(epistemic), 0.0)
    else:
        aleatoric = np.asarray(shannon_entropy(m.plausibility_transform()))
        total = aleatoric + np.asarray(epistemic)
    return UncertaintyDecomposition(_scalar(m, total), _scalar(m, aleatoric), _scalar(m, epistemic))
