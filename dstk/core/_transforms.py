"""Transforms of mass functions: probabilities, discounting, conditioning, consonant constructions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import transforms as _t
from .._validation import as_float_array
from ..exceptions import FrameError, FrameTooLargeError, InvalidMassError, TotalConflictError
from . import _dense, _sparse, _storage, _wide
from ._frame import MAX_FRAME_SIZE, Frame
from ._mass import MassFunction, as_mass_function
from ._structured import StructuredStorage

__all__ = [
    "pignistic",
    "plausibility_transform",
    "contour",
    "discount",
    "contextual_discount",
    "condition",
    "normalize",
    "inverse_pignistic",
    "consonant_from_contour",
]


def pignistic(m: MassFunction) -> np.ndarray:
    """Pignistic transform BetP of a (batched) mass function.

    Parameters
    ----------
    m : MassFunction

    Returns
    -------
    ndarray of shape m.batch_shape + (n,)
        ``BetP(w) = sum_{A contains w} m(A) / (|A| (1 - m(empty)))``.

    Raises
    ------
    InvalidMassError
        If a mass function puts all its mass on the empty set (BetP undefined).
    FrameTooLargeError
        If the result, ``batch_shape + (n,)`` floats, would exceed 4 GiB.

    Notes
    -----
    Smets & Kennes (1994), "The transferable belief model", Artif. Intell. 66,
    Eq. (3.1); the division by ``1 - m(empty)`` makes BetP sum to one for
    subnormal mass functions too.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> MassFunction({(): 0.2, "a": 0.3, "b": 0.1, ("a", "b"): 0.4}).pignistic()
    array([0.625, 0.375])
    """
    m = as_mass_function(m, "m")
    frame = m.frame
    _dense.check_array_bytes(m.batch_shape + (frame.n,), "The pignistic transform of this batch")
    out, denom_ok = m._storage.pignistic(frame.n)
    if out is None or not np.all(denom_ok):
        undefined = ~np.asarray(denom_ok, dtype=bool).ravel()
        where = ""
        if m.batch_shape and undefined.size == m.size:
            first = tuple(int(i) for i in np.unravel_index(int(np.argmax(undefined)), m.batch_shape))
            where = f" at batch index {first} ({int(undefined.sum())} of the {m.size} mass functions)"
        raise InvalidMassError(
            "The pignistic transform is undefined when all the mass is on the empty set (total conflict), "
            f"as it is{where or ' here'}. Select the rows with m.conflict < 1 (m.batch[m.conflict < 1]) "
            "or combine with a rule that keeps no mass on the empty set."
        )
    return out


def contour(m: MassFunction) -> np.ndarray:
    """Contour function ``pl({w})`` of every singleton.

    Parameters
    ----------
    m : MassFunction
        A (batched) mass function on a frame of n labels.

    Returns
    -------
    ndarray of shape ``m.batch_shape + (n,)``
        ``pl({w}) = sum_{A contains w} m(A)``.

    Notes
    -----
    The contour (or one-point coverage) function of Shafer (1976), ch. 2:
    ``pl({w}) = sum_{A : w in A} m(A)``.  For a consonant mass function it
    determines the whole belief function, ``Pl(A) = max_{w in A} pl({w})``
    (Shafer 1976, Theorem 10.1).

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> MassFunction({"a": 0.5, "a,b": 0.5}).contour()
    array([1. , 0.5])
    """
    m = as_mass_function(m, "m")
    return m._storage.contour(m.frame.n)


def plausibility_transform(m: MassFunction) -> np.ndarray:
    """Plausibility transform: the contour normalised to sum to one.

    Parameters
    ----------
    m : MassFunction
        A (batched) mass function on a frame of n labels.

    Returns
    -------
    ndarray of shape ``m.batch_shape + (n,)``
        ``Pl_P(w) = pl({w}) / sum_v pl({v})``.

    Raises
    ------
    InvalidMassError
        If every singleton has zero plausibility.

    Notes
    -----
    Cobb & Shenoy (2006), "On the plausibility transformation method for
    translating belief function models to probabilities", IJAR 41, Eq. (3.2).
    It commutes with Dempster's rule.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> MassFunction({"a": 0.5, "a,b": 0.5}).plausibility_transform().round(6)
    array([0.666667, 0.333333])
    """
    m = as_mass_function(m, "m")
    c = contour(m)
    s = c.sum(axis=-1, keepdims=True)
    if np.any(s <= 0):
        raise InvalidMassError(
            "The plausibility transform is undefined when every singleton has plausibility 0."
        )
    return c / s


def discount(m: MassFunction, rate: ArrayLike) -> MassFunction:
    """Classical (Shafer) discounting.

    Parameters
    ----------
    m : MassFunction
    rate : float or array_like
        Discount rate ``alpha`` in [0, 1] (one minus the reliability of the
        source), broadcasting against ``m.batch_shape``.

    Returns
    -------
    MassFunction
        ``m'(A) = (1 - alpha) m(A)`` for ``A != frame``;
        ``m'(frame) = (1 - alpha) m(frame) + alpha``.

    Notes
    -----
    Shafer (1976), *A Mathematical Theory of Evidence*, p. 252.  Convention:
    ``rate=0`` leaves ``m`` unchanged, ``rate=1`` gives the vacuous mass
    function (other libraries use the reliability ``1 - alpha`` instead).

    Raises
    ------
    ValueError
        A rate outside [0, 1] or not finite.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> MassFunction({"a": 1.0}, frame="ab").discount(0.1)
    MassFunction({{a}: 0.9, Ω: 0.1}, frame=Frame(['a', 'b']))
    """
    m = as_mass_function(m, "m")
    rate = as_float_array(rate, "rate")
    if not np.all(np.isfinite(rate)) or np.any((rate < 0) | (rate > 1)):
        raise ValueError(f"The discount rate must lie in [0, 1]; got {rate!r}.")
    try:
        np.broadcast_shapes(rate.shape, m.batch_shape)
    except ValueError:
        raise ValueError(
            f"`rate` of shape {rate.shape} does not broadcast against the batch shape {m.batch_shape}; give one "
            f"rate, or one per mass function (shape {m.batch_shape})."
        ) from None
    return MassFunction._from_storage(m._storage.discount(rate, m.frame.full), m.frame)


def contextual_discount(m: MassFunction, rates: ArrayLike) -> MassFunction:
    """Contextual discounting with one discount rate per label.

    Parameters
    ----------
    m : MassFunction
    rates : array_like of shape (..., n)
        ``alpha_k`` in [0, 1]: the discount rate of the source when the truth
        is ``labels[k]`` (broadcasting against the batch).

    Returns
    -------
    MassFunction
        ``m`` combined by the disjunctive rule with the mass functions
        ``m_k(empty) = 1 - alpha_k``, ``m_k({w_k}) = alpha_k``.

    Notes
    -----
    Mercier, Quost & Denoeux (2008), "Refined modeling of sensor reliability
    in the belief function framework using contextual discounting", Inf.
    Fusion 9, Proposition 8 (contextual discounting on the coarsening into
    singletons).  With all rates equal to 1 the result is vacuous; with all
    rates 0 it is ``m`` exactly.  Computed on the masses, one label at a time
    (the disjunctive combination with ``m_k``): m'(C) = (1 - alpha_k) m(C)
    when w_k is not in C, m'(C) = m(C) + alpha_k m(C - {w_k}) when it is; only
    products and sums of non-negative numbers, so no mass is lost to
    cancellation, however small.  A mass function in focal-set form (more
    than 16 labels) stays in that form: it is combined with the ``m_k`` of
    the labels whose rate is above 0, each focal set giving its unions with
    the subsets of those labels.

    Raises
    ------
    ValueError
        ``rates`` without a last axis of length n, or rates outside [0, 1].

    Examples
    --------
    >>> from dstk import MassFunction
    >>> m = MassFunction({"a": 1.0}, frame="ab")
    >>> print(m.contextual_discount([0.0, 0.2]).to_array("m").round(6))
    [0.  0.8 0.  0.2]
    """
    m = as_mass_function(m, "m")
    frame = m.frame
    rates = as_float_array(rates, "rates")
    if rates.shape[-1:] != (frame.n,):
        raise ValueError(f"`rates` must end with an axis of length n = {frame.n}; got shape {rates.shape}.")
    if not np.all(np.isfinite(rates)) or np.any((rates < 0) | (rates > 1)):
        raise ValueError("Contextual discount rates must lie in [0, 1].")
    try:
        batch = np.broadcast_shapes(m.batch_shape, rates.shape[:-1])
    except ValueError:
        raise ValueError(
            f"`rates` of shape {rates.shape} does not broadcast against the batch shape {m.batch_shape}; "
            f"give n = {frame.n} rates, or n rates per mass function (shape {m.batch_shape + (frame.n,)})."
        ) from None
    if isinstance(m._storage, StructuredStorage):  # closed form where one exists, else refused
        return MassFunction._from_storage(m._storage.contextual(rates), frame)
    if not m.is_dense:
        return _contextual_discount_focal_sets(m, rates)
    dense = m._dense_m("contextual discounting")
    size = dense.shape[-1]
    _dense.check_array_bytes(batch + (size,), "Contextual discounting of this batch")
    # fresh C-contiguous copies: the kernel works in place
    out = np.array(np.broadcast_to(dense, batch + (size,)), dtype=np.float64, order="C")
    rows = np.array(np.broadcast_to(rates, batch + (frame.n,)), dtype=np.float64, order="C")
    _t.contextual_discount(out.reshape(-1, size), rows.reshape(-1, frame.n))
    return MassFunction._dense(out, frame)


def _contextual_discount_focal_sets(m, rates):
    """:func:`contextual_discount` of a mass function in focal-set form (``rates`` checked), kept in that form.

    The disjunctive combination of ``m`` with ``m_k(empty) = 1 - alpha_k``, ``m_k({w_k}) = alpha_k`` for
    the labels with a rate above 0 somewhere in the batch (the others leave ``m`` unchanged): each focal
    set A gives A united with every subset of those labels, so the result stays as small as ``m`` and
    the number of such labels allow.
    """
    from ._combination import combine

    frame = m.frame
    active = np.flatnonzero(np.any(rates > 0, axis=tuple(range(rates.ndim - 1))))
    _check_unions(m, active)
    sources = [m]
    for k in active if active.size else [0]:  # no rate above 0: one source that changes nothing (the batch)
        alpha = rates[..., k]
        masses = np.stack([1.0 - alpha, alpha], axis=-1)
        sources.append(MassFunction.from_focal_sets([0, 1 << int(k)], masses, frame))
    return combine(sources, rule="disjunctive")


def _check_unions(m, active):
    """Refuse at once a contextual discounting whose focal sets cannot fit in memory.

    Each focal set A gives its unions with every subset of the ``active`` labels outside A: at least
    ``max_A 2**|active - A|`` distinct focal sets, each a row of bitset words and a mass per sample.
    """
    storage = m._storage
    if isinstance(storage, _storage.WideStorage):
        words = _wide.pack([active.tolist()], m.frame.n)[0]
        outside = _wide.cardinality(~storage.focal & words)
        width = words.size
    else:
        mask = np.uint64(sum(1 << int(k) for k in active))
        outside = _sparse.popcount(~np.asarray(storage.columns, dtype=np.uint64) & mask)
        width = 1
    if outside.size == 0:
        return
    least = int(outside.max())
    row_bytes = 8 * (width + _dense.batch_size(m.batch_shape))
    if least >= 62 or (1 << least) * row_bytes > _dense.MAX_DENSE_BYTES:
        raise FrameTooLargeError(
            f"Contextual discounting of this mass function gives at least 2**{least} focal sets (each focal "
            f"set united with every subset of the {active.size} labels of rate above 0 outside it), above "
            f"the limit of {_dense.MAX_DENSE_BYTES / 2**30:.0f} GiB. Give a rate of 0 to all but a few "
            "labels, discount it classically (one rate), or coarsen the frame first."
        )


def normalize(m: MassFunction) -> MassFunction:
    """Dempster normalisation: ``m(A) / (1 - m(empty))`` for ``A != empty``, ``m(empty) = 0``.

    Parameters
    ----------
    m : MassFunction
        A (batched) mass function, possibly subnormal (``m(empty) > 0``).

    Returns
    -------
    MassFunction
        The normalised mass function, same frame and batch shape.

    Raises
    ------
    TotalConflictError
        If some mass function has all its mass on the empty set.

    Notes
    -----
    m*(A) = m(A) / (1 - m(empty)) for A != empty, the normalisation step of
    Dempster's rule (Shafer 1976, Eq. 3.4).  Divides by the sum of the
    non-empty masses (not by ``1 - m(empty)`` computed by subtraction), which
    keeps near-conflicting results exact.

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton, ch. 3.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> m = MassFunction.from_array([0.5, 0.25, 0.25, 0.0], frame="ab")
    >>> print(m.normalize().to_array("m"))
    [0.  0.5 0.5 0. ]
    """
    m = as_mass_function(m, "m")
    return MassFunction._from_storage(m._storage.normalize(), m.frame)


def condition(m: MassFunction, subset: Any, *, normalize: bool = True) -> MassFunction:
    """Dempster's conditioning of ``m`` on the event ``subset``.

    Parameters
    ----------
    m : MassFunction
    subset : label, iterable of labels, int bitmask or str
        The conditioning event ``A``, in any form
        :meth:`Frame.subset <dstk.core.Frame.subset>` accepts.
    normalize : bool, default=True
        Dempster conditioning (normalised).  With False the unnormalised
        (TBM) conditioning is returned: mass of sets disjoint from ``A`` goes
        to the empty set.

    Returns
    -------
    MassFunction
        ``m(B | A) = sum_{C & A = B} m(C) / pl(A)`` for ``B != empty``.

    Raises
    ------
    TotalConflictError
        If ``pl(A) = 0`` and ``normalize`` is true.

    Notes
    -----
    Shafer (1976), Ch. 3; equal to Dempster's combination with the
    categorical mass function on ``A``.

    Examples
    --------
    >>> from dstk import MassFunction
    >>> m = MassFunction({"a": 0.5, "b": 0.2, "a,b,c": 0.3})
    >>> print(m.condition("bc").to_array("m").round(6))
    [0.  0.  0.4 0.  0.  0.  0.6 0. ]
    """
    m = as_mass_function(m, "m")
    frame = m.frame
    a = frame.subset(subset)
    res = MassFunction._from_storage(m._storage.condition(a), frame)
    if normalize:
        try:
            return res.normalize()
        except TotalConflictError:
            raise TotalConflictError(
                f"Cannot condition on {frame.format_subset(a)}: its plausibility is 0."
            ) from None
    return res


def inverse_pignistic(p: ArrayLike, *, frame: Frame | Iterable[Any] | None = None) -> MassFunction:
    """Least-committed consonant mass function with a given pignistic probability.

    Parameters
    ----------
    p : array_like of shape (..., n)
        Probabilities (non-negative, summing to one) over the frame's labels.
    frame : Frame or iterable of labels, optional
        Defaults to ``Frame(range(n))``.

    Returns
    -------
    MassFunction
        With ``p_(1) >= ... >= p_(n)`` the sorted probabilities and
        ``A_i = {w_(1), ..., w_(i)}``: ``m(A_i) = i (p_(i) - p_(i+1))``
        (``p_(n+1) = 0``).  Its pignistic transform is ``p``.

    Notes
    -----
    Dubois, Prade & Smets (2008), "A definition of subjective possibility",
    IJAR 48, Eq. (9); the q-least committed among the mass functions whose
    BetP is ``p``.

    Raises
    ------
    ValueError
        A scalar ``p`` (no label axis).
    FrameError
        The length of the last axis differs from the frame size.
    InvalidMassError
        Negative, non-finite, or not summing to one probabilities.

    Examples
    --------
    >>> from dstk import inverse_pignistic
    >>> m = inverse_pignistic([0.7, 0.3], frame=(0, 1))
    >>> round(m[{0}], 12), round(m[{0, 1}], 12)
    (0.4, 0.6)
    """
    p = as_float_array(p, "p")
    if p.ndim == 0 or p.shape[-1] == 0:
        raise ValueError(f"`p` must have a non-empty last axis over the frame's labels; got shape {p.shape}.")
    n = p.shape[-1]
    frame = Frame(range(n)) if frame is None else (frame if isinstance(frame, Frame) else Frame(frame))
    if frame.n != n:
        raise FrameError(f"`p` has {n} entries but the frame has {frame.n} labels.")
    probabilities: np.ndarray = _dense.validate_masses(p, what="probabilities `p`")
    order = np.argsort(-probabilities, axis=-1, kind="stable")
    ps = np.take_along_axis(probabilities, order, axis=-1)
    nxt = np.concatenate([ps[..., 1:], np.zeros(ps.shape[:-1] + (1,))], axis=-1)
    masses = (ps - nxt) * np.arange(1, n + 1)
    return _nested(order, masses, frame)


def _nested(order, masses, frame, empty_mass=None):
    """Mass function with focal sets A_i = {order[0..i]} (batched orders)."""
    if frame.n > MAX_FRAME_SIZE:
        return MassFunction._from_storage(
            _storage.WideStorage.nested(order, masses, frame.n, empty_mass), frame
        )
    bits = np.uint64(1) << order.astype(np.uint64)
    sets = np.cumsum(bits, axis=-1, dtype=np.uint64)
    batch = masses.shape[:-1]
    if frame.n <= _dense.DENSE_MAX_LABELS:
        out = np.zeros(batch + (frame.n_subsets,))
        np.put_along_axis(out, sets.astype(np.int64), masses, axis=-1)
        if empty_mass is not None:
            out[..., 0] = empty_mass
        return MassFunction._dense(out, frame)
    if batch and sets.size and np.any(sets != sets.reshape(-1, frame.n)[0]):
        # different orders per sample: use the union of focal sets
        uniq = np.unique(sets)
        arr = np.zeros(batch + (uniq.size,))
        pos = np.searchsorted(uniq, sets)
        np.put_along_axis(arr, pos, masses, axis=-1)
        focal = uniq
    else:
        # one order for every sample (an empty batch: the chain of the labels in frame order, no mass)
        focal = (
            sets.reshape(-1, frame.n)[0]
            if sets.size
            else np.cumsum(np.uint64(1) << np.arange(frame.n, dtype=np.uint64), dtype=np.uint64)
        )
        arr = masses
    if empty_mass is not None:
        focal = np.concatenate([[np.uint64(0)], focal]).astype(np.uint64)
        arr = np.concatenate([np.asarray(empty_mass)[..., None] * np.ones(batch + (1,)), arr], axis=-1)
    focal, arr = _sparse.merge_duplicates(focal, arr)
    return MassFunction._sparse(focal, arr, frame)


def consonant_from_contour(contour: ArrayLike, *, frame: Frame | Iterable[Any] | None = None) -> MassFunction:
    """Consonant mass function whose contour function is ``contour``.

    Parameters
    ----------
    contour : array_like of shape (..., n)
        Plausibilities of the singletons, in [0, 1].  When ``max < 1`` the
        remaining ``1 - max`` goes to the empty set (a subnormal consonant
        mass function).
    frame : Frame or iterable of labels, optional
        Defaults to ``Frame(range(n))``.

    Returns
    -------
    MassFunction
        With ``pi_(1) >= ... >= pi_(n)``: ``m({w_(1..i)}) = pi_(i) - pi_(i+1)``
        and ``m(empty) = 1 - pi_(1)``; ``pl(A) = max_{w in A} pi(w)``.

    Notes
    -----
    Shafer (1976), Theorem 10.1; Dubois & Prade (1988) (possibility measures).

    Raises
    ------
    ValueError
        A scalar ``contour`` (no label axis).
    FrameError
        The length of the last axis differs from the frame size.
    InvalidMassError
        Contour values that are not finite or outside [0, 1].

    Examples
    --------
    >>> from dstk import consonant_from_contour
    >>> m = consonant_from_contour([1.0, 0.4, 0.1], frame="abc")
    >>> m.pl("bc")
    0.4
    """
    c = as_float_array(contour, "contour")
    if c.ndim == 0 or c.shape[-1] == 0:
        raise ValueError(
            f"`contour` must have a non-empty last axis over the frame's labels; got shape {c.shape}."
        )
    n = c.shape[-1]
    frame = Frame(range(n)) if frame is None else (frame if isinstance(frame, Frame) else Frame(frame))
    if frame.n != n:
        raise FrameError(f"`contour` has {n} entries but the frame has {frame.n} labels.")
    if not np.all(np.isfinite(c)) or np.any((c < 0) | (c > 1 + 1e-12)):
        raise InvalidMassError("`contour` values must be finite and lie in [0, 1].")
    c = np.minimum(c, 1.0)
    order = np.argsort(-c, axis=-1, kind="stable")
    cs = np.take_along_axis(c, order, axis=-1)
    nxt = np.concatenate([cs[..., 1:], np.zeros(cs.shape[:-1] + (1,))], axis=-1)
    return _nested(order, cs - nxt, frame, empty_mass=1.0 - cs[..., 0])
