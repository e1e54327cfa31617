"""Distances and conflict between mass functions."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._validation import broadcast_batch_shapes
from . import _dense, _sparse, _wide
from ._mass import MassFunction, _check_same_frame, as_mass_function
from ._storage import WideStorage

__all__ = ["jousselme_distance", "conflict", "weight_of_conflict"]


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

    Raises
    ------
    FrameMismatchError
        ``m1`` and ``m2`` on different frames.
    ValueError
        Batch shapes that do not broadcast.

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
    broadcast_batch_shapes([m1.batch_shape, m2.batch_shape], "the two mass functions")
    s1, s2 = m1._storage, m2._storage
    if isinstance(s1, WideStorage) and isinstance(s2, WideStorage):  # frames of more than 64 labels
        rows, (a, b) = _wide.align([(s1.focal, s1.masses), (s2.focal, s2.masses)])
        d = a - b
        _dense.check_array_bytes((rows.shape[0], rows.shape[0], 3 * rows.shape[1]), "The Jaccard matrix")
        inter = _wide.cardinality(rows[:, None, :] & rows[None, :, :]).astype(np.float64)
        union = _wide.cardinality(rows[:, None, :] | rows[None, :, :]).astype(np.float64)
    else:
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


def weight_of_conflict(
    masses: MassFunction | Iterable[MassFunction], *, axis: int | None = None
) -> float | np.ndarray:
    """Shafer's weight of conflict ``-log(1 - K)`` among sources, without cancellation near K = 0 or 1.

    Parameters
    ----------
    masses : sequence of MassFunction, or MassFunction
        As in :func:`dstk.combine`: mass functions on one frame whose batch
        shapes broadcast, or one batched mass function whose sources lie on
        batch axis ``axis``.
    axis : int, optional
        The batch axis holding the sources when ``masses`` is one MassFunction.

    Returns
    -------
    float or ndarray
        ``-log(1 - K)`` in ``[0, inf]`` (natural log), one per sample, where
        ``K`` is the mass of the empty set in the unnormalised conjunctive
        combination of the sources (the ``conflict`` of
        :func:`dstk.combine_with_conflict`); ``inf`` at total conflict.

    Raises
    ------
    FrameMismatchError
        Sources on different frames.
    ValueError
        ``axis`` missing, out of range or an empty source axis (as in
        :func:`dstk.combine`); a frame too large for dense masses.

    Notes
    -----
    The weight of conflict is ``Con = log(1 / (1 - K))`` (Shafer 1976,
    Eq. 3.9 and Theorem 3.5); it is additive over Dempster's rule:
    ``Con(m_1, ..., m_k) = sum_j Con(m_{1..j-1}, m_j)``, where
    ``m_{1..j-1}`` is the Dempster combination of the first ``j - 1``
    sources.  Each term is computed from both sides of the normalisation:
    the conflict ``k_j = sum_B m_j(B) b(complement of B)`` of the step is a
    sum of non-negative products (``b``: the implicability of
    ``m_{1..j-1}``), accurate where ``k_j`` is small, and its complement
    ``s_j = 1 - k_j`` is the sum of the non-empty masses of the step's
    conjunctive combination, obtained from the product of commonalities
    rescaled in log space, accurate where ``s_j`` is small (even below
    float64's range).  A term is ``-log1p(-k_j)`` when ``k_j < 1/2``, else
    ``-log(s_j)``; the terms are non-negative and add without
    cancellation.  ``-log1p(-kappa)`` from the returned ``kappa`` of
    :func:`dstk.combine_with_conflict` is exact only where ``1 - K`` is
    well above ``2**-53``: ``kappa`` rounds to 1 beyond.

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton
    University Press, ch. 3.

    Examples
    --------
    >>> from dstk import MassFunction, weight_of_conflict
    >>> a = MassFunction({"a": 1 - 1e-20, "a,b": 1e-20}, frame="ab")
    >>> b = MassFunction({"b": 1 - 1e-20, "a,b": 1e-20}, frame="ab")
    >>> round(weight_of_conflict([a, b]), 6)  # 1 - K = 2e-20 - 1e-40
    45.358555
    >>> c = MassFunction({"b": 1e-20, "a,b": 1 - 1e-20}, frame="ab")
    >>> weight_of_conflict([a, c])  # K = 1e-20 - 1e-40, which 1 - K cannot hold
    1e-20
    """
    from .._kernels import transforms as _transforms
    from . import _dense
    from ._combination import _gather, _move_sources_last

    if not isinstance(masses, MassFunction):
        if isinstance(masses, (str, bytes, dict, np.ndarray)) or not isinstance(masses, Iterable):
            from ..exceptions import DataTypeError

            raise DataTypeError(
                f"`masses` must be a MassFunction or a list of MassFunctions; got {type(masses).__name__}."
            )
        masses = [as_mass_function(x, "masses") for x in masses]
    mf, ax = _gather(masses, axis)
    stack, batch = _move_sources_last(mf._dense_m("the weight of conflict"), ax, mf.ndim)
    rows, k, size = stack.shape
    first = stack[:, 0]
    nonempty = first[:, 1:].sum(axis=1)
    with np.errstate(divide="ignore"):
        weight = _minus_log_one_minus(first[:, 0], np.log(nonempty))
    acc = first.copy()
    acc[:, 0] = 0.0
    acc /= np.where(nonempty > 0, nonempty, 1.0)[:, None]
    for j in range(1, k):
        source = stack[:, j]
        alive = np.isfinite(weight)
        # k_j = sum_B m_j(B) b(complement of B): the complement of subset index B is size - 1 - B
        step_conflict = np.einsum("rb,rb->r", source, _dense.m_to(acc, "b")[:, ::-1])
        with np.errstate(divide="ignore"):
            log_q = np.log(_dense.m_to(acc, "q")[:, 1:]) + np.log(_dense.m_to(source, "q")[:, 1:])
        top = log_q.max(axis=1)
        alive &= np.isfinite(top)  # no non-empty set keeps a positive commonality: total conflict
        scaled = np.zeros((rows, size))
        scaled[alive, 1:] = np.exp(log_q[alive] - top[alive, None])
        # the step's non-empty masses over its largest commonality: they sum to s_j / exp(top) >= 1
        merged = _dense.transform(scaled, _transforms.superset_moebius)
        merged[:, 0] = 0.0
        np.maximum(merged, 0.0, out=merged)
        total = merged.sum(axis=1)
        with np.errstate(divide="ignore"):
            log_nonempty = top + np.log(np.where(alive, total, 1.0))
        weight = np.where(alive, weight + _minus_log_one_minus(step_conflict, log_nonempty), np.inf)
        acc = np.where(alive[:, None], merged / np.where(total > 0, total, 1.0)[:, None], acc)
    weight = weight.reshape(batch)
    return float(weight) if weight.ndim == 0 else weight


def _minus_log_one_minus(conflict, log_nonempty):
    """``-log(1 - K)``: ``-log1p(-K)`` for K < 1/2, else minus ``log_nonempty``, the log of ``1 - K`` summed directly."""
    with np.errstate(divide="ignore"):
        small = -np.log1p(-np.minimum(conflict, 0.5))
    return np.where(conflict < 0.5, small, -log_nonempty)
