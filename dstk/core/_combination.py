"""Combination rules: :func:`combine` and its rule registry."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import combination as _c
from .._validation import as_float_array, broadcast_batch_shapes, first_indices, stacklevel_outside_dstk
from ..exceptions import (
    DataTypeError,
    DogmaticError,
    FrameMismatchError,
    InvalidMassError,
    TotalConflictError,
)
from . import _dense, _sparse, _storage
from ._frame import Frame, frame_mismatch_fix
from ._mass import MassFunction, as_mass_function

__all__ = ["combine", "combine_with_conflict", "RULES", "ON_CONFLICT"]

_PCR6_MAX_TUPLES = 2e7


def _source_axis(axis, batch_shape, kind="MassFunction"):
    """The batch axis (non-negative) that holds the sources of one batched mass function."""
    if axis is None:
        raise ValueError(
            f"Combining one batched {kind} needs `axis`: the batch axis holding the sources "
            f"(batch shape {batch_shape})."
        )
    nd = len(batch_shape)
    if nd == 0:
        raise ValueError("A single unbatched mass function has no axis to combine along.")
    ax = axis + nd if axis < 0 else axis
    if not 0 <= ax < nd:
        raise ValueError(f"axis {axis} is out of bounds for batch shape {batch_shape}.")
    if batch_shape[ax] == 0:
        raise ValueError(
            f"combine needs at least one mass function; the source axis {axis} of batch shape {batch_shape} "
            "has length 0."
        )
    return ax


def _common_batch_shape(masses):
    """Check a list of sources (one frame, broadcastable batch shapes); return the broadcast shape.

    Shared by the in-memory and the dask :func:`combine`; the items need only
    ``frame`` and ``batch_shape``.
    """
    if not masses:
        raise ValueError("combine needs at least one mass function.")
    first = masses[0].frame
    for x in masses[1:]:
        if x.frame is not first and x.frame._labels != first._labels:  # (Frame.__eq__, without its call)
            raise FrameMismatchError(
                f"Cannot combine mass functions on different frames: {first!r} and {x.frame!r}. "
                + frame_mismatch_fix(first, x.frame)
            )
    return broadcast_batch_shapes([x.batch_shape for x in masses], "the mass functions")


def _gather(masses, axis):
    """Return (mass functions with the sources on batch axis ``ax``, ax)."""
    if isinstance(masses, MassFunction):
        return masses, _source_axis(axis, masses.batch_shape)
    masses = list(masses)
    for x in masses:
        if not isinstance(x, MassFunction):
            raise TypeError(f"combine takes MassFunction objects; got {type(x).__name__}.")
    shape = _common_batch_shape(masses)  # (the checks of MassFunction.stack, made once)
    ax = len(shape)
    stacked = _storage.stack([x._storage for x in masses], shape, ax)
    return MassFunction._from_storage(stacked, masses[0]._frame), ax


def _move_sources_last(arr, ax, nd):
    """(batch..., last) with sources at batch axis ``ax`` -> (rows, K, last)."""
    a = np.moveaxis(arr, ax, nd - 1)
    batch = a.shape[: nd - 1]
    k = a.shape[nd - 1]
    return np.ascontiguousarray(a.reshape((-1, k, a.shape[-1]))), batch


#: Per-sample policies for a total conflict, see :func:`combine`.
ON_CONFLICT = ("raise", "vacuous", "nan")


def check_on_conflict(on_conflict: str) -> str:
    """Raise a clear ValueError unless ``on_conflict`` is one of :data:`ON_CONFLICT`."""
    if on_conflict not in ON_CONFLICT:
        raise ValueError(
            f"`on_conflict` must be one of {', '.join(map(repr, ON_CONFLICT))}; got {on_conflict!r}."
        )
    return on_conflict


def combine(
    masses: MassFunction | Iterable[MassFunction],
    *,
    rule: str = "dempster",
    axis: int | None = None,
    weights: ArrayLike | None = None,
    normalize: bool = False,
    on_conflict: str = "raise",
) -> MassFunction:
    """Combine mass functions on one frame by a combination rule.

    Parameters
    ----------
    masses : sequence of MassFunction, or MassFunction
        Either mass functions on the same frame whose batch shapes
        broadcast, or one batched mass function reduced along ``axis``.
    rule : str, default="dempster"
        One of ``"conjunctive"`` (unnormalised, TBM), ``"dempster"``,
        ``"disjunctive"``, ``"cautious"``, ``"bold"``, ``"yager"``,
        ``"dubois_prade"``, ``"average"``, ``"pcr6"``.  See ``RULES`` for
        associativity and n-ary evaluation.
    axis : int, optional
        Batch axis holding the sources when ``masses`` is one MassFunction
        (refused with a list of them: the sources are then its items).
    weights : array_like, optional
        Source weights for ``"average"`` (non-negative; normalised to sum 1).
    normalize : bool, default=False
        For ``"cautious"`` only: normalise the result by Dempster's rule (the
        "normalised cautious rule" of Denoeux 2008, Section 4.3).
    on_conflict : {"raise", "vacuous", "nan"}, default="raise"
        What a combination with total conflict (K = 1, where Dempster's rule
        and the normalised cautious rule are undefined) gives, per sample:
        ``"raise"`` raises :class:`~dstk.exceptions.TotalConflictError`
        naming the affected batch indices; ``"vacuous"`` gives those samples
        the vacuous mass function (m(frame) = 1: the sources together say
        nothing usable) and ``"nan"`` gives them NaN masses; both issue one
        :class:`~dstk.exceptions.ConflictWarning` listing the indices, and
        every other sample is combined as usual.  ``kappa`` is 1 for the
        affected samples.

    Returns
    -------
    MassFunction
        The combination, with the sources' axis removed.  Use
        :func:`combine_with_conflict` to get the conflict as well.

    Raises
    ------
    TotalConflictError
        Dempster's rule with total conflict (K = 1) in some combination and
        ``on_conflict="raise"``; its ``indices`` attribute holds the flat
        batch indices of the affected combinations.
    DogmaticError
        Cautious rule (or its weights) with m(frame) = 0; bold rule with
        m(empty) = 0.
    FrameMismatchError
        Mass functions on different frames.

    Notes
    -----
    Dense inputs use commonality (conjunctive rules) and implicability
    (disjunctive) products after fast Moebius transforms (Smets 2002),
    ``O(K n 2**n)``; binary and three-label frames keep the commonalities in
    scalars, and large batches are spread over numba's threads.  Dempster's
    rule divides by the sum of the non-empty masses, never by ``1 - K``, so
    long folds stay exact; a combination whose commonality products leave
    the normal float64 range (near-dogmatic sources: m(frame) = 1e-300, or
    long folds of small masses) is recomputed with a separate power-of-two
    exponent per product, so every normalised mass that float64 can
    represent is returned with ordinary rounding error (in the focal-set
    form too; a user's own pairwise fold stores each intermediate result in
    float64).  Cautious and bold rules: Denoeux (2008), "Conjunctive and
    disjunctive combination of belief functions induced by nondistinct
    bodies of evidence", Artif. Intell. 172, Definitions 5 and 8, computed
    on log-weights.  Yager (1987); Dubois & Prade (1988), Eq. (3); PCR6:
    Martin & Osswald (2006).

    Focal-set inputs (frames of more than 16 labels) are combined densely
    when that is cheaper (frames of up to 26 labels, within the memory limit: ``K n 2**(n-1)``
    butterflies against at least ``(K - 1) F**2`` pair products for ``F``
    focal sets), and otherwise by enumerating pairs of focal sets for the
    conjunctive, Dempster, disjunctive, Yager and average rules, the
    distinct results being collected in a hash table (memory proportional to
    their number); a combination whose result would exceed the memory limit
    raises :class:`~dstk.exceptions.FrameTooLargeError` before allocating.
    The other rules use dense transforms when they fit in memory.

    The deferred check of a large array given to
    :meth:`MassFunction.from_array` is run by the conjunctive, Dempster and
    Yager rules' kernel as it reads each source row, so the array is read
    once (User Guide, conventions: "Tolerances").

    Examples
    --------
    >>> from dstk import MassFunction, combine
    >>> m1 = MassFunction({"a": 0.6, "a,b": 0.4})
    >>> m2 = MassFunction({"b": 0.7, "a,b": 0.3})
    >>> m = combine([m1, m2], rule="dempster")
    >>> round(m["a"], 4)
    0.3103
    """
    return _combine(masses, rule, axis, weights, normalize, on_conflict)[0]


def combine_with_conflict(
    masses: MassFunction | Iterable[MassFunction],
    *,
    rule: str = "dempster",
    axis: int | None = None,
    weights: ArrayLike | None = None,
    normalize: bool = False,
    on_conflict: str = "raise",
) -> tuple[MassFunction, float | np.ndarray]:
    """Combine mass functions like :func:`combine` and return the conflict as well.

    Parameters
    ----------
    masses : sequence of MassFunction, or MassFunction
        As in :func:`combine`.
    rule : str, default="dempster"
        A name in ``RULES``, as in :func:`combine`.
    axis : int, optional
        Batch axis holding the sources when ``masses`` is one MassFunction.
    weights : array_like, optional
        Source weights for ``"average"``.
    normalize : bool, default=False
        For ``"cautious"`` only: the normalised cautious rule.
    on_conflict : {"raise", "vacuous", "nan"}, default="raise"
        Per-sample total-conflict policy, as in :func:`combine`; the conflict
        is 1 at the affected samples.

    Returns
    -------
    combined : MassFunction
        The combination, with the sources' axis removed (as :func:`combine`).
    conflict : float or ndarray of float64
        The conflict :math:`\\kappa`: the mass of the empty set in the
        unnormalised conjunctive combination of the sources (for
        ``"disjunctive"``, ``"cautious"``, ``"bold"`` and ``"average"``: the
        mass on the empty set of the rule's own result).  A float for an
        unbatched result, otherwise an array of the result's batch shape.

    Raises
    ------
    TotalConflictError, DogmaticError, FrameMismatchError
        As :func:`combine`.

    Notes
    -----
    Dempster's degree of conflict (Shafer 1976, Eq. 3.5) is
    :math:`\\kappa = m_{\\cap}(\\emptyset)`; the weight of conflict is
    :math:`-\\log(1 - \\kappa)`.

    Examples
    --------
    >>> from dstk import MassFunction, combine_with_conflict
    >>> m1 = MassFunction({"a": 0.6, "a,b": 0.4})
    >>> m2 = MassFunction({"b": 0.7, "a,b": 0.3})
    >>> m, kappa = combine_with_conflict([m1, m2], rule="dempster")
    >>> round(kappa, 2), round(m["a"], 4)
    (0.42, 0.3103)
    >>> certain_a, certain_b = MassFunction({"a": 1.0}, frame="ab"), MassFunction({"b": 1.0}, frame="ab")
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     combine([certain_a, certain_b], on_conflict="vacuous").to_array()
    array([0., 0., 0., 1.])
    """
    return _combine(masses, rule, axis, weights, normalize, on_conflict)


def _check_combine_options(rule, weights, normalize, axis):
    """Raise unless ``rule``, ``weights``, ``normalize`` and ``axis`` fit together (the options of :func:`combine`)."""
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(f"Unknown rule {rule!r}: `rule` must be one of {sorted(RULES)}.")
    record = RULES[rule]
    if weights is not None and "weights" not in record.options:
        raise ValueError(
            f"`weights` are used by rule='average' only; the {rule} rule does not weight sources."
        )
    if normalize and "normalize" not in record.options:
        raise ValueError(
            f"`normalize=True` is used by rule='cautious' only; the {rule} rule is "
            + ("normalised already." if record.normalized else "not normalised (use rule='dempster').")
        )
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, np.integer))):
        raise TypeError(
            f"`axis` must be an integer (the batch axis holding the sources) or None; got {axis!r}."
        )


def _combine(masses, rule, axis, weights, normalize, on_conflict):
    """Return ``(combined, conflict)``: the single implementation behind both public functions."""
    check_on_conflict(on_conflict)
    _check_combine_options(rule, weights, normalize, axis)
    if not isinstance(masses, MassFunction):
        if isinstance(masses, (Mapping, str, bytes, np.ndarray)) or not isinstance(masses, Iterable):
            raise DataTypeError(
                f"`masses` must be a MassFunction or a list of MassFunctions; got {type(masses).__name__}."
            )
        if axis is not None:
            raise ValueError(
                f"`axis` (here {axis!r}) names the batch axis holding the sources of one batched MassFunction; "
                "with a list the sources are its items. Drop `axis`, or stack the list first: "
                "combine(MassFunction.stack(masses, axis=a), axis=a)."
            )
        masses = [as_mass_function(x, "masses") for x in masses]
    result, kappa, total = _combine_raw(masses, rule, axis, weights, normalize)
    if total is not None and np.any(total):
        if on_conflict == "raise":
            _raise_total_conflict(total)
        kappa = _apply_conflict_policy(
            result, kappa, np.flatnonzero(np.asarray(total).ravel()), on_conflict, rule
        )
    return result, (float(kappa) if np.ndim(kappa) == 0 else kappa)


def _apply_conflict_policy(result, kappa, bad, on_conflict, rule, *, warn=True):
    """Give the totally conflicting samples ``bad`` (flat batch indices) the policy's masses, in place.

    ``"vacuous"``: m(frame) = 1; ``"nan"``: NaN masses.  Returns ``kappa``
    with 1 at those samples; issues one :class:`~dstk.exceptions.ConflictWarning`
    unless ``warn`` is False (the caller warns in its own terms).
    """
    import warnings

    from ..exceptions import ConflictWarning

    batch = result.batch_shape
    kappa = np.array(kappa, dtype=np.float64)
    kappa.reshape(-1)[bad] = 1.0
    if result.is_dense:
        column = result.frame.n_subsets - 1
    elif result._storage.is_wide:
        result._storage, column = result._storage.with_column(result.frame.full)
    else:  # the frame gets a focal column, as if the samples had been combined from vacuous sources
        focal, values = result._storage.focal_form()
        added, values, column = _with_frame_column(focal, values, result.frame.full)
        if added.size > focal.size:
            result._storage = MassFunction._sparse(added, values, result.frame)._storage
    values = result._storage.masses
    rows = values.reshape((-1, values.shape[-1]))
    if on_conflict == "nan":
        rows[bad] = np.nan
    else:
        rows[bad] = 0.0
        rows[bad, column] = 1.0
    if not warn:
        return kappa
    shown = first_indices(bad)
    warnings.warn(
        f"Total conflict (K = 1) under the {rule} rule in {bad.size} of {max(math.prod(batch), 1)} "
        f"combination(s), at flat batch indices [{shown}]; they were given "
        + ("the vacuous mass function" if on_conflict == "vacuous" else "NaN masses")
        + f" (on_conflict={on_conflict!r}). Pass on_conflict='raise' to make this an error.",
        ConflictWarning,
        stacklevel=stacklevel_outside_dstk(),
    )
    return kappa


class _Sources(NamedTuple):
    """The sources of one call of :func:`combine`, gathered once.

    ``rows`` is what the conjunctive kernel reads when a conjunctive rule
    meets dense sources it can read where they lie: a pair ``(rows_a,
    rows_b)`` of two binary or three-label sources given apart (batch shape
    ``batch``), or a stack (rows, K, 2**n).  ``deferred`` holds
    the mass functions among them whose check was deferred (the kernel
    checks each row as it reads it, so that the input is read once; pairs on
    three labels and stacks).  Otherwise ``rows`` is None and ``mf`` holds
    the sources on its batch axis ``ax``.
    """

    frame: Frame
    batch: tuple[int, ...] = ()
    rows: tuple[np.ndarray, np.ndarray] | np.ndarray | None = None
    deferred: tuple[MassFunction, ...] = ()
    mf: MassFunction | None = None
    ax: int = 0


def _gather_sources(masses, axis):
    """The :class:`_Sources` of ``masses`` (a MassFunction or a list of them) for a conjunctive rule."""
    if isinstance(masses, MassFunction):
        values = masses._storage.pending()  # masses awaiting their deferred check, or None
        if values is not None:
            nd = values.ndim - 1
            stack, batch = _move_sources_last(values, _source_axis(axis, values.shape[:-1]), nd)
            return _Sources(masses.frame, batch, stack, (masses,))
    elif isinstance(masses, (list, tuple)) and len(masses) == 2:
        a, b = masses
        if isinstance(a, MassFunction) and isinstance(b, MassFunction):
            sa, sb = a._storage, b._storage
            if sa.is_dense and sb.is_dense:
                pending_a, pending_b = sa.pending(), sb.pending()
                if pending_a is None and pending_b is None:  # (the common case: both checked)
                    values_a, values_b, deferred = sa.masses, sb.masses, ()
                else:  # three-label rows awaiting their deferred check are checked by the fold as it reads them
                    values_a, values_b, deferred = _pair_values(a, b, pending_a, pending_b)
                if values_a.shape == values_b.shape and (
                    a._frame is b._frame or a._frame._labels == b._frame._labels
                ):
                    size = values_a.shape[-1]
                    pair = values_a.reshape(-1, size), values_b.reshape(-1, size)
                    # binary and three-label rows are read where they are; others stacked
                    rows = pair if size in (4, 8) else np.stack(pair, axis=1)
                    return _Sources(a._frame, values_a.shape[:-1], rows, deferred)
    mf, ax = _gather(masses, axis)
    return _Sources(mf.frame, (), None, (), mf, ax)  # (positional: half the cost of keywords)


def _pair_values(a, b, pending_a, pending_b):
    """``(values_a, values_b, deferred)`` of two dense sources, some awaiting their deferred check.

    Three-label masses stay unchecked (``deferred``: the fold checks them);
    others are checked now (as any use of their ``masses`` does).
    """
    deferred = []
    values = []
    for source, pending in ((a, pending_a), (b, pending_b)):
        if pending is not None and pending.shape[-1] == 8:
            deferred.append(source)
            values.append(pending)
        else:
            values.append(source._storage.masses)
    return values[0], values[1], tuple(deferred)


def _combine_raw(masses, rule, axis, weights, normalize):
    """``(combined, conflict, total)``: ``total`` flags the samples of total conflict (or is None)."""
    record = RULES[rule]
    if not record.conjunctive:  # the other rules read their sources as one batched mass function
        mf, ax = _gather(masses, axis)
        return _combine_gathered(mf, ax, record, rule, weights, normalize)
    sources = _gather_sources(masses, axis)
    frame = sources.frame
    if sources.rows is not None:
        deferred = sources.deferred
        tolerance = _dense.MASS_TOLERANCE if deferred else None
        out, kappa, total, status = _c.conjunctive(sources.rows, rule == "dempster", tolerance=tolerance)
        if status:  # some row failed the deferred check or holds rounding noise below zero
            for source in deferred:
                source._check_deferred()  # raises the usual error for invalid masses, or cleans the noise
            return _combine_raw(masses, rule, axis, weights, normalize)  # checked now: the fold without check
        for source in deferred:
            source._storage.mark_checked()  # passed, no rounding noise to clean
        # checked binary sources (no entry below 0) give no negative mass: m({a}) =
        # q({a}) - q(frame), each commonality factor m({a}) + m(frame) being at
        # least m(frame), and rounding is monotonic; no clipping pass needed
        size = out.shape[1]
        out, kappa, total = _conjunctive_result(out, kappa, total, rule, clip=not deferred or size != 4)
        batch = sources.batch
        return MassFunction._dense(out.reshape(batch + (size,)), frame), kappa.reshape(batch), total
    return _combine_gathered(sources.mf, sources.ax, record, rule, weights, normalize)


def _combine_gathered(mf, ax, record, rule, weights, normalize):
    """:func:`_combine_raw` of the sources on batch axis ``ax`` of one mass function ``mf``."""
    storage = mf._storage
    if storage.is_wide:  # frames of more than 64 labels
        checked = _check_weights(weights, mf.batch_shape[ax]) if rule == "average" else None
        storage, kappa, total = storage.combine_along(ax, rule, checked)
        return MassFunction._from_storage(storage, mf._frame), kappa, total
    if storage.is_dense or _dense_is_cheaper(mf, ax, rule, record.focal is not None):
        arr = storage.masses if storage.is_dense else mf._dense_m(f"the {rule} rule")
        stack, batch = _move_sources_last(arr, ax, arr.ndim - 1)
        out, kappa, total = record.dense(stack, rule, weights, normalize)
        out = out.reshape(batch + out.shape[-1:])
        return MassFunction._from_storage(storage.like_dense(out), mf._frame), kappa.reshape(batch), total
    return record.focal(mf, ax, rule, weights)


def _conjunctive_result(out, kappa, total, rule, *, clip=True):
    """Finish the conjunctive-kernel output of the conjunctive, Dempster or Yager rule (in place).

    ``clip`` sets the rounding noise below 0 of the inverse transforms to 0.
    """
    if rule == "yager":
        out[:, -1] += out[:, 0]
        out[:, 0] = 0.0
    if clip:
        np.maximum(out, 0.0, out=out)
    return out, kappa, (total if rule == "dempster" else None)


def _check_weights(weights, k):
    if weights is None:
        return np.full(k, 1.0 / k)
    w = as_float_array(weights, "weights")
    if w.shape != (k,):
        raise ValueError(f"`weights` must have one entry per source ({k}); got shape {w.shape}.")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("`weights` must be finite, non-negative and not all zero.")
    return w / w.sum()


def _raise_total_conflict(flags):
    bad = np.flatnonzero(np.asarray(flags).ravel())
    shown = first_indices(bad)
    error = TotalConflictError(
        f"Dempster's rule is undefined: total conflict (K = 1) in {bad.size} combination(s), "
        f"at flat batch indices [{shown}]. The sources have no plausible hypothesis in "
        "common; pass on_conflict='vacuous' or 'nan' to give only those samples a fallback, "
        "use rule='conjunctive' to keep the conflict on the empty set, or 'yager' / "
        "'dubois_prade' / 'pcr6' to redistribute it, or discount the sources."
    )
    error.indices = bad
    raise error


def _dense_conjunctive(stack, rule, weights, normalize):
    """Conjunctive, Dempster or Yager rule of ``stack`` (rows, K, 2**n): ``(out, kappa)``."""
    out, kappa, total, _ = _c.conjunctive(stack, rule == "dempster")
    return _conjunctive_result(out, kappa, total, rule)


def _dense_disjunctive(stack, rule, weights, normalize):
    """Disjunctive rule of ``stack`` (rows, K, 2**n): ``(out, kappa)``."""
    out = np.maximum(_c.disjunctive(stack), 0.0)
    return out, out[:, 0].copy(), None


def check_idempotent_sources(stack, rule):
    """Refuse sources the cautious or bold rule (Denoeux 2008) is not defined on, saying what to use.

    ``stack`` (rows, K, 2**n): the cautious rule needs m(frame) > 0 in every source (its conjunctive
    weights), the bold rule m(empty) > 0 (its disjunctive weights).
    """
    if rule == "cautious" and np.any(stack[:, :, stack.shape[2] - 1] <= 0):
        raise DogmaticError(
            "The cautious rule needs non-dogmatic mass functions (m(frame) > 0); some source has m(frame) = 0 "
            "(e.g. a Bayesian mass function: calibrated probabilities). Discount it slightly first, e.g. "
            "m.discount(1e-6), or combine Bayesian sources by rule='dempster' (Bayes' rule on them)."
        )
    if rule == "bold" and np.any(stack[:, :, 0] <= 0):
        raise DogmaticError(
            "The bold rule needs subnormal mass functions (m(empty) > 0) in every source; some source has "
            "m(empty) = 0 (every normal mass function, e.g. calibrated classifier outputs). For normal sources "
            "use rule='cautious' (idempotent, for sources that may not be distinct) or rule='disjunctive' "
            "(when one of them need be reliable)."
        )


def _dense_cautious(stack, rule, weights, normalize):
    """Cautious rule (``normalize``: normalised cautious) of ``stack`` (rows, K, 2**n): ``(out, kappa)``."""
    check_idempotent_sources(stack, rule)
    out = np.empty((stack.shape[0], stack.shape[2]))
    _c.cautious(stack, out, np.empty(stack.shape[2]))
    out = np.maximum(out, 0.0, out=out)
    _renormalize_rounding(out)
    kappa = out[:, 0].copy()
    if not normalize:
        return out, kappa, None
    s = out[:, 1:].sum(axis=1)
    total = s <= 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out = out / s[:, None]
    out[:, 0] = 0.0
    return out, kappa, total


def _dense_bold(stack, rule, weights, normalize):
    """Bold rule of ``stack`` (rows, K, 2**n): ``(out, kappa)``."""
    check_idempotent_sources(stack, rule)
    out = np.maximum(_c.bold(stack), 0.0)
    _renormalize_rounding(out)
    return out, out[:, 0].copy(), None


def _dense_dubois_prade(stack, rule, weights, normalize):
    """Dubois-Prade rule of ``stack`` (rows, K, 2**n), folded left: ``(out, kappa)``."""
    _, kappa, _, _ = _c.conjunctive(stack, False)
    acc = np.ascontiguousarray(stack[:, 0, :])
    for j in range(1, stack.shape[1]):
        acc = _c.dubois_prade_pair(acc, np.ascontiguousarray(stack[:, j, :]))
    return np.maximum(acc, 0.0), kappa, None


def _dense_pcr6(stack, rule, weights, normalize):
    """PCR6 of ``stack`` (rows, K, 2**n): ``(out, kappa)``."""
    empty = stack[:, :, 0]
    if np.any(empty > _dense.MASS_TOLERANCE):
        raise InvalidMassError(
            f"PCR6 is defined for normal mass functions (m(empty) = 0); a source has m(empty) = "
            f"{float(empty.max()):.6g}. Normalise the sources first (dstk.core.normalize)."
        )
    if np.any(
        empty > 0
    ):  # rounding residue of an earlier operation (at most MASS_TOLERANCE): the 0 it stands for
        stack = stack.copy()
        stack[:, :, 0] = 0.0
    out, kappa, ok = _c.pcr6(stack, _PCR6_MAX_TUPLES)
    if not np.all(ok):
        raise ValueError(
            f"PCR6 needs more than {_PCR6_MAX_TUPLES:.0e} tuples of focal sets for some combination "
            "(it is exponential in the number of sources); combine fewer sources or sparser masses."
        )
    return out, kappa, None


def _dense_average(stack, rule, weights, normalize):
    """(Weighted) average of ``stack`` (rows, K, 2**n): ``(out, kappa)``."""
    w = _check_weights(weights, stack.shape[1])
    out = np.einsum("rks,k->rs", stack, w)
    return out, out[:, 0].copy(), None


def _renormalize_rounding(out):
    """Absorb floating rounding so that each row sums to one exactly (changes < 1e-12)."""
    s = out.sum(axis=1)
    out /= s[:, None]


def _dense_is_cheaper(mf, ax, rule, pairs):
    """Whether combining the focal-set batch ``mf`` along ``ax`` densely costs less.

    The estimates of both routes are compared by
    :func:`dstk.core._sparse.choose_route` (``pairs``: the rule has a route
    by pairs of focal sets), which refuses a combination whose cheaper route
    exceeds :data:`dstk.core._sparse.MAX_PAIRWISE_SECONDS`.
    """
    if rule == "average":  # one pass over the focal sets
        return False
    masses = mf._storage.masses
    k = masses.shape[ax]
    rows = max(1, math.prod(masses.shape[:-1]) // max(k, 1))
    # the focal sets of each source with mass somewhere in the batch (kept by _sparse.prune)
    nonzero = np.moveaxis(masses > 0, ax, -2).reshape(-1, k, masses.shape[-1])
    sizes = [max(int(size), 1) for size in nonzero.any(axis=0).sum(axis=-1)]
    return _sparse.choose_route(len(mf._frame._labels), sizes, rows, rule, pairs=pairs) == "dense"


def _combine_sparse(mf, ax, rule, weights):
    frame = mf.frame
    focal, fm = mf._storage.focal_form()
    fm = np.moveaxis(fm, ax, -2)  # (batch..., K, F)
    k = fm.shape[-2]
    if rule == "average":
        w = _check_weights(weights, k)
        out = np.einsum("...kf,k->...f", fm, w)
        kappa = out[..., focal == np.uint64(0)].sum(axis=-1)
        f2, out = _sparse.prune(focal, out)
        return MassFunction._sparse(f2, out, frame), kappa, None
    op = "or" if rule == "disjunctive" else "and"
    normalize = rule == "dempster"
    acc_f, acc_m = _sparse.prune(focal, np.ascontiguousarray(fm[..., 0, :]))
    log_nonempty = None
    total = False
    exponents = None  # Dempster: masses acc_m * 2**exponents once a row needed extended range
    if k > 2:  # a budget for the fold (two sources: one step, estimated by pairwise itself)
        # the focal sets of each source with mass somewhere in the batch, as _dense_is_cheaper counts them
        sizes = np.count_nonzero((fm > 0).reshape(-1, k, focal.size).any(axis=0), axis=-1)
        remaining = np.append(np.cumsum(sizes[::-1])[::-1], 0)  # focal sets of the sources from j on
        rows, labels, spent = math.prod(fm.shape[:-2]), len(frame._labels), 0.0
    for j in range(1, k):
        if k > 2:
            spent += _sparse.check_fold_budget(spent, acc_f.size, remaining, rows, labels, rule, j)
        f2, m2 = _sparse.prune(focal, np.ascontiguousarray(fm[..., j, :]))
        if j == 1 < k - 1 and acc_f.size * f2.size <= 1 << 22:
            # the first step's focal sets without their masses: a fold whose focal sets multiply is refused
            # before any work
            held = np.unique((np.bitwise_or if op == "or" else np.bitwise_and).outer(acc_f, f2)).size
            _sparse.check_fold_budget(spent, held, remaining, rows, labels, rule, 2)
        acc_f, acc_m, logs, flags, exponents = _sparse.pairwise(
            acc_f, acc_m, f2, m2, op, normalize=normalize, exponents=exponents
        )
        log_nonempty = logs if log_nonempty is None else log_nonempty + logs
        total = total | flags
        if exponents is None:
            acc_f, acc_m = _sparse.prune(acc_f, acc_m)
        else:
            acc_f, acc_m, exponents = _sparse.prune(acc_f, acc_m, exponents=exponents)
    if exponents is not None:
        acc_m = np.ldexp(acc_m, exponents)
    return _finish_sparse(acc_f, acc_m, rule, frame, log_nonempty, total)


def _finish_sparse(acc_f, acc_m, rule, frame, log_nonempty=None, total=False):
    """Normalise / redistribute the conjunctive (or disjunctive) focal-set result of a rule.

    For Dempster's rule, ``log_nonempty`` (when given) is the natural log of
    the non-empty mass of the unnormalised combination, ``acc_m`` being
    already normalised by the pairwise kernel; ``total`` flags total conflict.
    """
    empty = acc_f == np.uint64(0)
    kappa = acc_m[..., empty].sum(axis=-1)
    if rule in ("disjunctive", "conjunctive"):
        return MassFunction._sparse(acc_f, acc_m, frame), kappa, None
    if rule == "dempster":
        if log_nonempty is None:
            nonempty_sum = acc_m[..., ~empty].sum(axis=-1)
            total = nonempty_sum <= 0
            with np.errstate(invalid="ignore", divide="ignore"):
                out = acc_m / nonempty_sum[..., None]
            kappa = np.clip(kappa, 0.0, 1.0)
        else:
            out = acc_m.copy()
            kappa = np.clip(-np.expm1(log_nonempty), 0.0, 1.0)
        out[..., empty] = 0.0
        f2, out = _sparse.prune(acc_f, out)
        return MassFunction._sparse(f2, out, frame), kappa, total
    if rule == "yager":
        acc_f, acc_m, column = _with_frame_column(acc_f, acc_m, frame.full)
        out = acc_m.copy()
        out[..., column] += kappa
        out[..., acc_f == np.uint64(0)] = 0.0
        f2, out = _sparse.prune(acc_f, out)
        return MassFunction._sparse(f2, out, frame), kappa, None
    raise AssertionError(rule)


def _with_frame_column(focal, masses, full):
    """``(focal, masses, column)``: focal sets (sorted) with the frame ``full`` among them, mass 0 where it is
    added, and the frame's column."""
    focal, masses = _storage.FocalSetStorage(focal, masses)._with_subset(full)
    return focal, masses, int(np.flatnonzero(focal == np.uint64(full))[0])


@dataclass(frozen=True)
class Rule:
    """One combination rule of :func:`combine`: its algebraic laws, options and implementations.

    Attributes
    ----------
    name : str
        The value of ``rule`` that selects it.
    associative, commutative, idempotent : bool
        The laws the rule obeys on the masses it accepts (the table of the
        User Guide, checked by ``tests/meta/test_rule_table.py``);
        ``commutative`` defaults to True.
    neutral : str or None
        Its neutral element: ``"vacuous"`` (m(frame) = 1), ``"empty"``
        (m(empty) = 1), ``"vacuous on separable"``, ``"empty on
        u-separable"``, or None.
    evaluation : str
        How an n-ary call is evaluated.
    options : frozenset of str, default=frozenset()
        The options of :func:`combine` besides ``axis`` and ``on_conflict``
        that the rule takes (``"weights"``, ``"normalize"``).
    normalized : bool, default=False
        Whether the rule divides by the mass of the non-empty sets
        (Dempster's normalisation).
    conjunctive : bool, default=False
        Whether the rule is the conjunctive kernel's output finished by
        :func:`_conjunctive_result` (its fold checks deferred inputs as it
        reads them).
    tree_state : str or None
        The partial state by which a chunked source axis is reduced as a tree
        (see :mod:`dstk.dask`), or None when the rule has none.
    dense : callable
        ``dense(stack, rule, weights, normalize) -> (out, kappa)`` on a dense
        stack (rows, K, 2**n).
    focal : callable or None, default=None
        ``focal(mf, ax, rule, weights) -> (result, kappa)`` on focal sets;
        None: combined densely.
    """

    name: str
    _: KW_ONLY
    associative: bool
    commutative: bool = True
    idempotent: bool
    neutral: str | None
    evaluation: str
    options: frozenset[str] = frozenset()
    normalized: bool = False
    conjunctive: bool = False
    tree_state: str | None
    dense: Callable
    focal: Callable | None = None

    def __str__(self) -> str:
        return self.evaluation


def _registry(*rules: Rule) -> dict[str, Rule]:
    return {r.name: r for r in rules}


#: The rules accepted by :func:`combine`, by name: each a :class:`Rule`
#: record with its algebraic laws, options and implementations.
RULES = _registry(
    Rule(
        "conjunctive",
        associative=True,
        idempotent=False,
        neutral="vacuous",
        evaluation="product of the K commonality functions, one inverse transform",
        conjunctive=True,
        tree_state="the chunk's combination (the in-memory fold), merged by the same rule",
        dense=_dense_conjunctive,
        focal=_combine_sparse,
    ),
    Rule(
        "dempster",
        associative=True,
        idempotent=False,
        neutral="vacuous",
        evaluation="product of the K commonalities (rescaled every 16 sources), "
        "normalised once by the sum of the non-empty masses",
        normalized=True,
        conjunctive=True,
        tree_state="the chunk's combination (the in-memory fold) with 1 - K carried along, merged by the same rule",
        dense=_dense_conjunctive,
        focal=_combine_sparse,
    ),
    Rule(
        "disjunctive",
        associative=True,
        idempotent=False,
        neutral="empty",
        evaluation="product of the K implicability functions, one inverse transform",
        tree_state="product of implicability functions",
        dense=_dense_disjunctive,
        focal=_combine_sparse,
    ),
    Rule(
        "cautious",
        associative=True,
        idempotent=True,
        neutral="vacuous on separable",
        evaluation="minimum of the K conjunctive weight functions (log domain); unnormalised",
        options=frozenset({"normalize"}),
        tree_state="minimum of the log conjunctive weights (exact: min is associative)",
        dense=_dense_cautious,
    ),
    Rule(
        "bold",
        associative=True,
        idempotent=True,
        neutral="empty on u-separable",
        evaluation="minimum of the K disjunctive weight functions (log domain); needs subnormal inputs",
        tree_state="minimum of the log disjunctive weights (exact: min is associative)",
        dense=_dense_bold,
    ),
    Rule(
        "yager",
        associative=False,
        idempotent=False,
        neutral="vacuous",
        evaluation="conjunctive combination of all K sources, then m(empty) moved to the frame",
        conjunctive=True,
        tree_state="the chunk's conjunctive combination, m(empty) moved to the frame at the end",
        dense=_dense_conjunctive,
        focal=_combine_sparse,
    ),
    Rule(
        "dubois_prade",
        associative=False,
        idempotent=False,
        neutral="vacuous",
        evaluation="left fold of the two-source rule in the order of the sources",
        tree_state=None,
        dense=_dense_dubois_prade,
    ),
    Rule(
        "pcr6",
        associative=False,
        idempotent=False,
        neutral="vacuous",
        evaluation="Martin & Osswald's K-source PCR6 by enumeration of focal-set tuples",
        tree_state=None,
        dense=_dense_pcr6,
    ),
    Rule(
        "average",
        associative=False,
        idempotent=True,
        neutral=None,
        evaluation="(weighted) arithmetic mean of the K mass functions (quasi-associative)",
        options=frozenset({"weights"}),
        tree_state="weighted sum of the masses",
        dense=_dense_average,
        focal=_combine_sparse,
    ),
)
