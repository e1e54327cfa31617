"""Distances and conflict between mass functions."""

from __future__ import annotations

import numpy as np

from . import _sparse
from ._mass import MassFunction, _check_same_frame, as_mass_function

__all__ = ["jousselme_distance", "conflict"]


def jousselme_distance(m1: MassFunction, m2: MassFunction) -> float | np.ndarray:
    """Jousselme distance between two (batched) mass functions.

    Parameters
    ----------
    m1, m2 : MassFunction
        On the same frame; batch shapes broadcast.

    Returns
    -------
    float or ndarray
        ``d = sqrt(0.5 (m1 - m2)^T D (m1 - m2))`` with the Jaccard matrix
        ``D(A, B) = |A & B| / |A | B|`` (``D(empty, empty) = 1``).

    Notes
    -----
    Jousselme, Grenier & Bosse (2001), "A new distance between two bodies of
    evidence", Inf. Fusion 2, Eq. (5).  Computed over the focal sets of the
    difference only, ``O(F**2)``.

    Examples
    --------
    >>> from dstk import MassFunction, jousselme_distance
    >>> a = MassFunction({"a": 1.0}, frame="ab"); b = MassFunction({"b": 1.0}, frame="ab")
    >>> jousselme_distance(a, b)
    1.0
    """
    m1 = as_mass_function(m1, "m1")
    m2 = as_mass_function(m2, "m2")
    _check_same_frame(m1, m2)
    focal, (a, b) = _sparse.align([m1._focal_form(), m2._focal_form()])
    d = a - b
    inter = _sparse.popcount(np.bitwise_and.outer(focal, focal)).astype(np.float64)
    union = _sparse.popcount(np.bitwise_or.outer(focal, focal)).astype(np.float64)
    jac = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 1.0)
    val = 0.5 * np.einsum("...i,ij,...j->...", d, jac, d)
    out = np.sqrt(np.maximum(val, 0.0))
    return float(out) if np.ndim(out) == 0 else out


def conflict(m1: MassFunction, m2: MassFunction) -> float | np.ndarray:
    """Degree of conflict ``kappa`` between two mass functions.

    Parameters
    ----------
    m1, m2 : MassFunction
        On the same frame; batch shapes broadcast.

    Returns
    -------
    float or ndarray
        kappa in [0, 1], one per broadcast batch element.

    Notes
    -----
    ``kappa = sum_{A & B = empty} m1(A) m2(B)``: the mass of the empty set
    after the unnormalised conjunctive rule; Dempster's rule divides by
    ``1 - kappa`` (Shafer 1976, Eq. 3.4).

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton, ch. 3.

    Examples
    --------
    >>> from dstk import MassFunction, conflict
    >>> round(conflict(MassFunction({"a": .6, "a,b": .4}), MassFunction({"b": .7, "a,b": .3})), 6)
    0.42
    """
    m1 = as_mass_function(m1, "m1")
    m2 = as_mass_function(m2, "m2")
    from ._combination import combine_with_conflict

    _, k = combine_with_conflict([m1, m2], rule="conjunctive")
    return k
