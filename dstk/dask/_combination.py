"""Combination of mass functions stored as dask arrays: :func:`combine`."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import dask.array as da
import numpy as np

from .._kernels import _buffers
from .._kernels import combination as _c
from .._kernels import partial_combination as _k
from .._validation import check_option
from ..core._combination import (
    RULES,
    _apply_conflict_policy,
    _check_combine_options,
    _combine_raw,
    _common_batch_shape,
    _source_axis,
    check_idempotent_sources,
    check_on_conflict,
)
from ..core._mass import MassFunction
from ..exceptions import ConflictWarning, DataTypeError, TotalConflictError
from ._blocks import blockwise_whole, serial_kernels, split_last_slot
from ._mass import DaskMassFunction, _checked, _validate_block, as_dask_mass, checking_chunk

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..core._frame import Frame

__all__ = ["combine", "combine_with_conflict", "TREE_RULES", "TREE_TOLERANCE"]

#: Rules that :func:`combine` can reduce across chunks of the source axis by a
#: tree of partial states (partial state -> how two states merge).
TREE_RULES = {name: rule.tree_state for name, rule in RULES.items() if rule.tree_state is not None}

#: Largest absolute difference, per mass, between a tree-reduced combination
#: and the in-memory one for the product rules (the multiplications happen in
#: another order, each with a relative rounding error of 2**-53).  Cautious and
#: bold tree reductions give the same floats as in memory.
TREE_TOLERANCE = 1e-12

_REDUCTIONS = ("auto", "blockwise", "tree", "rechunk")

#: Fan-in of the tree reduction when ``split_every`` is None (see :func:`combine`).
_DEFAULT_SPLIT_EVERY = 16


@contextmanager
def _conflict_in_chunk():
    """An in-memory combination inside a task: its total-conflict error in dask's terms (no ``on_conflict`` here)."""
    try:
        yield
    except TotalConflictError as error:
        indices = getattr(error, "indices", None)
        if indices is None or not len(indices):
            raise
        flags = np.zeros(int(np.max(indices)) + 1, dtype=bool)
        flags[indices] = True
        _raise_total_conflict_in_chunk(flags)


def _raise_total_conflict_in_chunk(flags, merge=False):
    """The total-conflict error of a chunk; ``merge``: raised where a tree merges partial states."""
    bad = np.flatnonzero(np.asarray(flags).ravel())
    tree = (
        " In a tree reduction the conflict can also come from partial states: a chunk's combination keeps "
        "float64 masses, and a mass below float64's range (about 1e-308) is lost in it; if the combination "
        "in memory is defined, use reduction='rechunk' (all the sources of a sample in one task)."
        if merge
        else ""
    )
    raise TotalConflictError(
        f"Dempster's rule is undefined: total conflict (K = 1) in {bad.size} combination(s) of a "
        f"chunk (first at flat index {bad[0]} of the chunk). The sources have no plausible hypothesis "
        "in common; use rule='conjunctive' to keep the conflict on the empty set, or 'yager' / "
        "'dubois_prade' / 'pcr6' to redistribute it, or discount the sources." + tree
    )


# -- blockwise: all sources of a sample chunk in one block -----------------
def _combine_in_memory(masses, rule, axis, weights, normalize, on_conflict="raise"):
    """:func:`dstk.combine_with_conflict` inside a task: ``(combined, kappa)``.

    A total conflict raises the chunk's error (``on_conflict="raise"``) or
    gives those samples the policy's masses, with one
    :class:`~dstk.exceptions.ConflictWarning` per chunk (issued where the
    chunk is computed: on a distributed cluster, in the worker's log).
    """
    with _conflict_in_chunk():
        out, kappa, total = _combine_raw(masses, rule, axis, weights, normalize)
    if total is not None and np.any(total):
        if on_conflict == "raise":
            _raise_total_conflict_in_chunk(total)
        bad = np.flatnonzero(np.asarray(total).ravel())
        kappa = _apply_conflict_policy(out, kappa, bad, on_conflict, rule, warn=False)
        warnings.warn(
            f"Total conflict (K = 1) under the {rule} rule in {bad.size} of {np.asarray(total).size} "
            f"combination(s) of a chunk (first at flat index {bad[0]} of the chunk); they were given "
            + ("the vacuous mass function" if on_conflict == "vacuous" else "NaN masses")
            + f" (on_conflict={on_conflict!r}) and their conflict is 1.",
            ConflictWarning,
            stacklevel=2,
        )
    return out, kappa


def _combine_block(
    block, frame, ax, rule, weights, normalize, with_conflict, check=None, on_conflict="raise"
):
    """One chunk holding all the sources; ``check``: the argument name when the chunk is still unchecked.

    An unchecked chunk is checked by the in-memory combination itself (its fold checks each source row
    as it reads it), so that the chunk is read once.
    """
    with checking_chunk(check):
        mf = MassFunction.from_array(block, frame, validate=check is not None)
        out, kappa = _combine_in_memory(mf, rule, ax, weights, normalize, on_conflict)
    values = out._dense_m()  # the result's own masses: no copy (to_array copies)
    return _packed_with_conflict(values, kappa) if with_conflict else values


def _packed_with_conflict(values, conflict):
    """The masses ``values`` (..., size) then ``conflict`` (...) in one block of size + 1 on the last axis.

    On a reused buffer inside a task (a fresh array there is a new mapping whose pages fault).
    """
    size = values.shape[-1]
    packed = _buffers.empty(values.shape[:-1] + (size + 1,))
    packed[..., :size] = values
    packed[..., size] = conflict
    return packed


def _append_empty_mass(values):
    """The averaged masses then their m(empty), the conflict of the average rule (one packed block)."""
    return _packed_with_conflict(values, values[..., 0])


# -- tree reduction: partial states ---------------------------------------
def _rows(block, ax):
    """(..., K at ax, ..., size) -> (rows, K, size) and the batch shape without ax.

    A view whenever numpy can make one (e.g. a chunk of the source axis of a
    larger array): the kernels read strided input, so no chunk is copied.
    """
    a = np.moveaxis(np.asarray(block, dtype=np.float64), ax, -2)
    batch = a.shape[:-2]
    return a.reshape((-1,) + a.shape[-2:]), batch


def _check_sources(stack, rule):
    check_idempotent_sources(stack, rule)


def _merged_fold_states(stack, normalize):
    """Merge the fold states ``stack`` (rows, P, size) of :func:`_chunk_state` by the in-memory fold.

    The states are masses (the conjunctive rule is associative on subnormal
    mass functions, and so is Dempster's rule where the conflict stays below
    1), so they merge by the fold itself
    (:func:`dstk._kernels.combination.conjunctive`; within one fold,
    near-dogmatic rows in extended range, as in memory).  A state holds
    float64 masses, though: a mass of a partial combination below float64's
    range (e.g. m(frame) = 1e-600 after two sources with m(frame) = 1e-300)
    is lost, and a final mass that needed it comes out 0 or less accurate
    where the in-memory fold returns it (``test_tree_fold_states.py``).  For
    Dempster's rule their slot 0 holds 1 - K, read by
    the fold as m(empty), which the commonalities of non-empty sets, all
    that Dempster's rule uses, never read; the merged 1 - K is the product
    of the parts' and the merge's own.  (A product below the smallest
    float64 gives K = 1, as K = 1 - that product rounds in float64 anyway.)
    """
    out, kappa, total, _ = _c.conjunctive(
        np.ascontiguousarray(stack, dtype=np.float64), normalize, parallel=False
    )
    if normalize:
        _store_one_minus_conflict(out, kappa, total, [stack[:, part, 0] for part in range(stack.shape[1])])
    return out


def _store_one_minus_conflict(out, kappa, total, parts):
    """Slot 0 of a merged Dempster state: 1 - K of the merge times the parts' 1 - K (``parts``: columns).

    Raises the chunk's total-conflict error where the merge's conflict is total.
    """
    if np.any(total):
        _raise_total_conflict_in_chunk(total, merge=True)
    np.subtract(1.0, kappa, out=out[:, 0])
    for part in parts:  # a column at a time (np.prod over a strided axis is slow)
        out[:, 0] *= part


def _chunk_state_serial(*args, **kwargs):
    with serial_kernels():
        return _chunk_state(*args, **kwargs)


def _chunk_state(block, axis, keepdims, rule, frame, check=None):
    """Partial state of one chunk of sources; ``check``: the argument name when the chunk is still unchecked."""
    (ax,) = axis
    if rule in ("conjunctive", "yager", "dempster"):
        # the chunk's combination by the in-memory fold (which checks an unchecked chunk in its own pass);
        # for Dempster's rule slot 0 (m(empty) = 0) holds 1 - K (see _merged_fold_states)
        with checking_chunk(check):
            masses = MassFunction.from_array(block, frame, validate=check is not None)
            fused, kappa = _combine_in_memory(
                masses, "dempster" if rule == "dempster" else "conjunctive", ax, None, False
            )
        state = fused._dense_m()  # the result's own array
        if rule == "dempster":
            np.subtract(1.0, kappa, out=state[..., 0])
        return np.expand_dims(state, ax) if keepdims else state
    if check is not None:
        block = _validate_block(block, frame, check)
    stack, batch = _rows(block, ax)
    rows, k, size = stack.shape
    _check_sources(stack, rule)
    if rule == "disjunctive":
        state = _k.implicability_product(stack)
    elif rule == "cautious":
        logw = _c.log_conjunctive_weights(stack.reshape(rows * k, size)).reshape(rows, k, size)
        state = logw.min(axis=1) if k else np.zeros((rows, size))
    elif rule == "bold":
        logv = _c.log_disjunctive_weights(stack.reshape(rows * k, size)).reshape(rows, k, size)
        state = logv.min(axis=1) if k else np.zeros((rows, size))
    else:  # pragma: no cover - guarded by combine
        raise AssertionError(rule)
    state = state.reshape(batch + (size,))
    return np.expand_dims(state, ax) if keepdims else state


def _merge_states_serial(*args, **kwargs):
    with serial_kernels():
        return _merge_states(*args, **kwargs)


def _leaves(parts):
    """The partial states ``parts`` (dask's nested lists, one state per chunk along the reduced axis) in order."""
    leaves = []

    def flatten(item):
        if isinstance(item, (list, tuple)):
            for element in item:
                flatten(element)
        else:
            leaves.append(np.asarray(item, dtype=np.float64))

    flatten(parts)
    return leaves


def _concatenated(leaves, ax):
    """The states ``leaves`` in one array along ``ax`` (a reused buffer)."""
    if len(leaves) == 1:
        return leaves[0]
    shape = list(leaves[0].shape)
    shape[ax] = sum(leaf.shape[ax] for leaf in leaves)
    return np.concatenate(leaves, axis=ax, out=_buffers.empty(tuple(shape)))


def _binary_parts(leaves, ax):
    """The binary states ``leaves`` (one per chunk of sources, size 1 at ``ax``) as (rows, 4) views, and their batch shape."""
    batch = _rows(leaves[0], ax)[1]
    return [_rows(leaf, ax)[0][:, 0] for leaf in leaves], batch


def _merged_binary_fold_states(parts, normalize, finish=None, with_conflict=False):
    """:func:`_merged_fold_states` of binary states (rows, 4) given one by one, merged in one pass.

    No concatenation: each state is read where it lies
    (:func:`dstk._kernels.partial_combination.merge_binary_states`, which
    also finishes the masses of the last merge when ``finish`` names the
    rule).  Rows whose products leave the normal range under Dempster's rule
    are merged again in turn, (s1 s2) s3 ..., by the pair kernel, which
    normalises after each step and recomputes them in extended range.
    """
    out, total, lost = _k.merge_binary_states(parts, normalize, finish=finish, with_conflict=with_conflict)
    if np.any(lost):
        bad = np.flatnonzero(lost)
        merged = parts[0][bad]
        for part in parts[1:]:
            step, kappa, step_total, _ = _c.conjunctive((merged, part[bad]), normalize, parallel=False)
            _store_one_minus_conflict(step, kappa, step_total, [merged[:, 0], part[bad, 0]])
            merged = step
        out[bad] = merged if finish is None else _finish_state(merged, finish, normalize, with_conflict)
    if np.any(total):
        _raise_total_conflict_in_chunk(total, merge=True)
    return out


def _binary_fold_leaves(leaves, ax, rule):
    """Whether the states ``leaves`` are two or more binary fold states (merged by :func:`_merged_binary_fold_states`)."""
    return (
        rule in ("conjunctive", "yager", "dempster")
        and len(leaves) > 1
        and all(leaf.shape[ax] == 1 and leaf.shape[-1] == 4 for leaf in leaves)
    )


def _merge_states(parts, axis, keepdims, rule):
    (ax,) = axis
    leaves = _leaves(parts)
    if _binary_fold_leaves(leaves, ax, rule):  # one per chunk of sources: merged with no concatenation
        binary, batch = _binary_parts(leaves, ax)
        state = _merged_binary_fold_states(binary, rule == "dempster").reshape(batch + (4,))
        return np.expand_dims(state, ax) if keepdims else state
    stack, batch = _rows(_concatenated(leaves, ax), ax)
    size = stack.shape[-1]
    if rule in ("conjunctive", "yager", "dempster"):
        state = _merged_fold_states(stack, rule == "dempster")
    elif rule == "disjunctive":
        state = _k.merge_products(stack)
    else:  # cautious, bold: exact
        state = stack.min(axis=1)
    state = state.reshape(batch + (size,))
    return np.expand_dims(state, ax) if keepdims else state


def _merge_and_finish_serial(parts, axis, keepdims, rule, normalize, with_conflict):
    """The last step of the tree: merge the partial states and turn the product into masses, in one task."""
    with serial_kernels():
        (ax,) = axis
        leaves = _leaves(parts)
        if _binary_fold_leaves(leaves, ax, rule):  # merged and finished in one pass
            binary, batch = _binary_parts(leaves, ax)
            packed = _merged_binary_fold_states(
                binary, rule == "dempster", finish=rule, with_conflict=with_conflict
            )
            packed = packed.reshape(batch + (packed.shape[-1],))
            return np.expand_dims(packed, ax) if keepdims else packed
        return _finish_state(_merge_states(leaves, axis, keepdims, rule), rule, normalize, with_conflict)


def _finish_state(state, rule, normalize, with_conflict):
    shape = state.shape
    rows = np.ascontiguousarray(state, dtype=np.float64).reshape(-1, shape[-1])
    size = rows.shape[1]
    if rule in ("conjunctive", "dempster", "yager"):  # states are masses (_chunk_state)
        # written straight into the output block (masses, then the conflict)
        packed = _buffers.empty(shape[:-1] + (size + 1 if with_conflict else size,))
        flat = packed.reshape(-1, packed.shape[-1])
        np.maximum(rows, 0.0, out=flat[:, :size])
        if with_conflict:  # the conflict, with no temporary column
            if rule == "dempster":
                np.subtract(1.0, rows[:, 0], out=flat[:, size])
            else:
                flat[:, size] = flat[:, 0]
        if rule == "yager":
            flat[:, size - 1] += flat[:, 0]
        if rule in ("dempster", "yager"):
            flat[:, 0] = 0.0
        return packed
    if rule == "disjunctive":
        out = _k.finish_implicability_product(rows)
        kappa = np.maximum(out[:, 0], 0.0)
    elif rule in ("cautious", "bold"):
        if rule == "cautious":
            out = _c.mass_from_log_conjunctive_weights(rows)
        else:
            out = _c.mass_from_log_disjunctive_weights(rows)
        np.maximum(out, 0.0, out=out)
        out /= out.sum(axis=1)[:, None]
        kappa = out[:, 0].copy()
        if rule == "cautious" and normalize:
            s = out[:, 1:].sum(axis=1)
            if np.any(s <= 0):
                _raise_total_conflict_in_chunk(s <= 0)
            out /= s[:, None]
            out[:, 0] = 0.0
    else:  # pragma: no cover
        raise AssertionError(rule)
    # clip rounding below zero, written straight into the output block (masses, then the conflict)
    packed = _buffers.empty(shape[:-1] + (size + 1 if with_conflict else size,))
    np.maximum(out.reshape(shape), 0.0, out=packed[..., :size])
    if with_conflict:
        packed[..., size] = kappa.reshape(shape[:-1])
    return packed


# -- public ------------------------------------------------------------------
def _gather(
    masses: Any, axis: int | None, frame: Frame | Iterable[Any] | None
) -> tuple[da.Array, Frame, int, str | None]:
    """Return (dask array with the sources on batch axis ``ax``, frame, ax, check).

    ``check`` is the argument name for error messages when the array's chunks are still to be
    checked (one batched input: :func:`_combine` checks each chunk in its combination's own pass),
    else None.
    """
    if isinstance(masses, (DaskMassFunction, MassFunction, da.Array, np.ndarray)):
        dm = as_dask_mass(masses, frame=frame)
        ax = _source_axis(axis, dm.batch_shape, "DaskMassFunction")
        if isinstance(masses, (MassFunction, np.ndarray)) and len(dm.array.chunks[ax]) > 1:
            # in-memory masses: dstk chooses the chunks, all the sources of a sample in one chunk
            # (a blockwise combination, one task per chunk, instead of a tree of partial states)
            values = masses.to_array("m") if isinstance(masses, MassFunction) else masses
            chunks: list[Any] = ["auto"] * (values.ndim - 1) + [-1]
            chunks[ax] = -1
            dm = as_dask_mass(
                da.from_array(values, chunks=tuple(chunks)),
                frame=dm.frame,
                validate=not isinstance(masses, MassFunction),
            )
        if dm._unchecked is not None:
            unchecked, name = dm._unchecked
            return unchecked, dm.frame, ax, name
        return dm.array, dm.frame, ax, None
    if isinstance(masses, (str, bytes, Mapping)) or not isinstance(masses, Iterable):
        raise DataTypeError(
            "`masses` must be a DaskMassFunction, a MassFunction, a dask or numpy array of dense masses "
            f"(with `frame=`), or a list of them; got {type(masses).__name__} {masses!r:.60}."
        )
    masses = [as_dask_mass(x, frame=frame) for x in masses]
    if not masses:
        raise ValueError("`masses` is an empty list; pass at least one mass function.")
    if axis is not None:
        raise ValueError(
            f"`axis` (here {axis!r}) names the batch axis holding the sources of one batched mass function; "
            "with a list the sources are its items. Drop `axis`, or stack the list first."
        )
    shape = _common_batch_shape(masses)
    first = masses[0].frame
    arrays = [
        x.array if x.batch_shape == shape else da.broadcast_to(x.array, shape + (first.n_subsets,))
        for x in masses
    ]
    return da.stack(arrays, axis=len(shape)), first, len(shape), None


def combine(
    masses: Any,
    *,
    rule: str = "dempster",
    axis: int | None = None,
    weights: ArrayLike | None = None,
    normalize: bool = False,
    on_conflict: str = "raise",
    frame: Frame | Iterable[Any] | None = None,
    reduction: str = "auto",
    split_every: int | None = None,
) -> DaskMassFunction:
    """Combine mass functions stored as dask arrays, chunk by chunk, without gathering them.

    Parameters
    ----------
    masses : DaskMassFunction, or sequence of DaskMassFunction
        One batched DaskMassFunction reduced along the batch axis ``axis``
        (e.g. samples x sources), or several on the same frame whose batch
        shapes broadcast (each is one source; they are stacked lazily).  Dask
        or numpy arrays of dense masses are accepted with ``frame``.
    rule : str, default="dempster"
        Any rule of :func:`dstk.combine` (see ``dstk.RULES``).
    axis : int, optional
        The batch axis holding the sources, for one DaskMassFunction.
    weights, normalize
        As in :func:`dstk.combine` (``"average"`` weights; normalised
        ``"cautious"``).
    on_conflict : {"raise", "vacuous", "nan"}, default="raise"
        What a sample of total conflict (Dempster's rule or the normalised
        cautious rule, ``K = 1``) gets, as in :func:`dstk.combine`:
        ``"raise"`` makes ``compute`` raise
        :class:`~dstk.exceptions.TotalConflictError`; ``"vacuous"`` gives
        only that sample the vacuous mass function and ``"nan"`` NaN masses,
        with conflict 1, and every other sample of the chunk is combined as
        usual (the same floats as :func:`dstk.combine` with the same
        policy).  Each chunk with such samples issues one
        :class:`~dstk.exceptions.ConflictWarning` where it is computed (on a
        distributed cluster, in the worker's log).  A per-sample policy needs
        all the sources of a sample in one task: ``"auto"`` then never picks
        ``"tree"`` for these rules.
    frame : Frame or iterable of labels, optional
        Needed only when ``masses`` are plain arrays.
    reduction : {"auto", "blockwise", "tree", "rechunk"}, default="auto"
        How the source axis is handled.  In-memory masses (a numpy array or
        a MassFunction) are chunked with all the sources of a sample in one
        chunk (``"auto"`` chunks along the other batch axes).

        * ``"blockwise"``: every chunk must hold all the sources (one chunk
          along the source axis); each chunk is combined by
          :func:`dstk.combine`, so the result has the **same floats** as
          in memory, for every rule.
        * ``"rechunk"``: first merge the chunks of the source axis (only
          that axis: a chunk of samples then holds all their sources), then
          as ``"blockwise"``; same floats as in memory, every rule.
        * ``"tree"``: reduce across the chunks of the source axis with a
          tree of partial states (``dask.array.reduction``); only for the
          rules in ``TREE_RULES``.  Cautious and bold rules give the same
          floats as in memory (the minimum of log weights is exact); the
          product rules agree within ``TREE_TOLERANCE = 1e-12`` per mass
          (same algorithm, multiplications in another order).  Not with
          ``on_conflict="vacuous"`` or ``"nan"`` and a rule that can meet
          total conflict.
        * ``"auto"``: ``"blockwise"`` when the source axis is one chunk;
          ``"rechunk"`` for a sequence of sources (each is its own chunk of
          the stacked source axis; merging them costs what the in-memory
          combination does and keeps the same floats); for one array whose
          source axis is split: ``"tree"`` for the rules in ``TREE_RULES``,
          else ``"rechunk"`` (also for Dempster's rule and the normalised
          cautious rule with a per-sample ``on_conflict``).
    split_every : int, optional
        Fan-in of the tree reduction: how many partial states one task
        merges.  None: 16 (a partial state holds one mass function per sample,
        as much as one source of an input chunk, so a merge of 16 holds what
        a chunk of 16 sources does; dask's own default, 4, costs more merge
        tasks).

    Returns
    -------
    DaskMassFunction
        The combination, with the sources' axis removed; chunks of the other
        batch axes are kept.  :func:`combine_with_conflict` also returns the
        conflict.

    Raises
    ------
    FrameMismatchError
        Mass functions on different frames (raised immediately).
    DataTypeError
        ``masses`` None, a string, a scalar, a scipy sparse matrix, complex
        or not numeric (raised immediately).
    ValueError
        Unknown rule or reduction; ``weights`` with a rule other than
        ``"average"``, ``normalize`` with a rule other than ``"cautious"``;
        ``split_every`` not an integer >= 2; ``"tree"`` with a
        non-associative rule, or with a per-sample ``on_conflict`` and a
        rule that can meet total conflict; an unknown ``on_conflict``; ``axis`` given with a list of
        sources; ragged masses or a ``2**n`` axis of the wrong length or split across chunks (see
        :class:`DaskMassFunction`).
    TotalConflictError, DogmaticError, InvalidMassError
        As in :func:`dstk.combine`; raised by ``compute`` when a chunk meets
        them (no partial result is returned; ``on_conflict`` turns a total
        conflict into a per-sample result instead).

    Notes
    -----
    Tree states (``TREE_RULES``): conjunctive and Dempster's rules multiply
    commonality functions, ``q = prod_k q_k`` (Smets 2002); for Dempster's
    rule every state is rescaled to ``max_{A != empty} q(A) = 1`` and the log
    of the scale is carried in slot ``q(empty)``, which Dempster's rule
    ignores; the finished masses are divided by the sum of the non-empty
    masses, never by ``1 - K``, exactly as in memory.  The disjunctive rule
    multiplies implicability functions.  Cautious and bold rules take the
    minimum of the log conjunctive / disjunctive weights (Denoeux 2008,
    Definitions 5 and 8).  The average rule sums ``w_k m_k``.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk.dask import DaskMassFunction, combine_with_conflict
    >>> one = np.array([0.0, 0.6, 0.1, 0.3])            # m({0}) = 0.6, m({1}) = 0.1
    >>> values = np.broadcast_to(one, (4, 3, 4))        # 4 samples x 3 sources
    >>> masses = DaskMassFunction(da.from_array(values, chunks=(2, 1, 4)), frame=(0, 1))
    >>> fused, kappa = combine_with_conflict(masses, rule="dempster", axis=1)
    >>> fused.array.compute(scheduler="synchronous")[0].round(4).tolist()
    [0.0, 0.9164, 0.0483, 0.0352]
    >>> round(float(kappa[0].compute(scheduler="synchronous")), 3)
    0.234

    By hand: ``q({0}) = 0.9``, ``q({1}) = 0.4``, ``q(frame) = 0.3`` per source;
    the product ``0.729, 0.064, 0.027`` gives unnormalised masses ``0.702,
    0.037, 0.027`` whose sum ``0.766`` normalises them (``K = 0.234``).
    """
    return _combine(masses, rule, axis, weights, normalize, on_conflict, frame, reduction, split_every, False)


def combine_with_conflict(
    masses: Any,
    *,
    rule: str = "dempster",
    axis: int | None = None,
    weights: ArrayLike | None = None,
    normalize: bool = False,
    on_conflict: str = "raise",
    frame: Frame | Iterable[Any] | None = None,
    reduction: str = "auto",
    split_every: int | None = None,
) -> tuple[DaskMassFunction, da.Array]:
    """Combine like :func:`combine` and also return the conflict, chunk by chunk.

    Parameters
    ----------
    masses, rule, axis, weights, normalize, on_conflict, frame, reduction, split_every
        As in :func:`combine`.

    Returns
    -------
    combined : DaskMassFunction
        As :func:`combine`.
    conflict : dask.array.Array
        Of shape ``combined.batch_shape``: the conflict as
        :func:`dstk.combine_with_conflict` defines it (the mass of the empty
        set in the unnormalised conjunctive combination).

    Raises
    ------
    FrameMismatchError, ValueError, TotalConflictError, DogmaticError, InvalidMassError
        As :func:`combine`.

    Notes
    -----
    The conflict travels as one extra slot after the ``2**n`` masses of
    every partial state, so it costs no second pass.  It is Shafer's (1976)
    degree of conflict, the mass of the empty set under the conjunctive rule.

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton University Press.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from dstk.dask import DaskMassFunction, combine_with_conflict
    >>> values = np.broadcast_to([0.0, 0.6, 0.1, 0.3], (4, 3, 4))
    >>> masses = DaskMassFunction(da.from_array(values, chunks=(2, 1, 4)), frame=(0, 1))
    >>> fused, kappa = combine_with_conflict(masses, rule="dempster", axis=1)
    >>> round(float(kappa[0].compute(scheduler="synchronous")), 3)
    0.234
    """
    return _combine(masses, rule, axis, weights, normalize, on_conflict, frame, reduction, split_every, True)


def _combine(
    masses, rule, axis, weights, normalize, on_conflict, frame, reduction, split_every, return_conflict
):
    """The one implementation behind :func:`combine` and :func:`combine_with_conflict`."""
    check_on_conflict(on_conflict)
    _check_combine_options(rule, weights, normalize, axis)
    check_option(reduction, "reduction", _REDUCTIONS)
    # a per-sample policy for total conflict needs all the sources of a sample in one task
    per_sample = on_conflict != "raise" and (rule == "dempster" or (rule == "cautious" and normalize))
    if split_every is not None and (
        isinstance(split_every, bool) or not isinstance(split_every, (int, np.integer)) or split_every < 2
    ):
        raise ValueError(
            f"`split_every` must be an integer >= 2 (the fan-in of the tree reduction) or None; got "
            f"{split_every!r}."
        )
    separate_sources = not isinstance(masses, (DaskMassFunction, MassFunction, da.Array, np.ndarray))
    array, frame, ax, check = _gather(masses, axis, frame)
    n_source_chunks = len(array.chunks[ax])
    if reduction == "auto":
        if n_source_chunks == 1:
            reduction = "blockwise"
        elif separate_sources or rule not in TREE_RULES or per_sample:
            reduction = "rechunk"
        else:
            reduction = "tree"
    if reduction == "tree" and rule not in TREE_RULES:
        raise ValueError(
            f"The {rule!r} rule is not associative and cannot be tree-reduced across chunks of the "
            f"source axis; use reduction='rechunk' (or 'auto'). Tree rules: {sorted(TREE_RULES)}."
        )
    if reduction == "tree" and per_sample:
        raise ValueError(
            f"on_conflict={on_conflict!r} with the {rule!r} rule needs all the sources of a sample in one "
            "task; use reduction='rechunk' (or 'auto'), or on_conflict='raise' for a tree reduction."
        )
    if reduction == "blockwise" and n_source_chunks > 1:
        raise ValueError(
            f"reduction='blockwise' needs the sources (axis {ax}) in one chunk; they are in chunks "
            f"{array.chunks[ax]}. Use reduction='rechunk' or 'tree', or rechunk the array."
        )
    if check is not None and reduction != "blockwise" and rule == "average":
        array, check = _checked(array, frame, check), None  # a plain dask sum: checked chunks in
    if rule == "average" and weights is not None:
        from ..core._combination import _check_weights

        checked = _check_weights(weights, array.shape[ax])  # errors at once; normalised for the tree's sum
        # blockwise: the weights as given, normalised by the in-memory rule itself (the same floats)
        weights = np.asarray(weights, dtype=np.float64) if reduction in ("blockwise", "rechunk") else checked
    if reduction == "rechunk":
        array = array.rechunk({ax: -1})
        reduction = "blockwise"

    size = frame.n_subsets
    packed_size = size + 1 if return_conflict else size
    if reduction == "blockwise":
        in_ind = tuple(range(array.ndim))
        packed = blockwise_whole(
            _combine_block,
            in_ind[:ax] + in_ind[ax + 1 :],
            array,
            in_ind,
            frame,
            ax,
            rule,
            weights,
            normalize,
            return_conflict,
            check,
            on_conflict,
            dtype=np.float64,
            adjust_chunks={array.ndim - 1: packed_size},
        )
    elif rule == "average":
        k = array.shape[ax]
        w = np.full(k, 1.0 / k) if weights is None else np.asarray(weights)
        shape = [1] * array.ndim
        shape[ax] = k
        values = (array * w.reshape(shape)).sum(
            axis=ax, split_every=_DEFAULT_SPLIT_EVERY if split_every is None else split_every
        )
        packed = (
            values.map_blocks(_append_empty_mass, chunks=values.chunks[:-1] + ((packed_size,),))
            if return_conflict
            else values
        )
    else:
        # the last merge and the finish in one task per output chunk (one task fewer per chunk)
        state = da.reduction(
            array,
            functools.partial(_chunk_state_serial, rule=rule, frame=frame, check=check),
            functools.partial(
                _merge_and_finish_serial, rule=rule, normalize=normalize, with_conflict=return_conflict
            ),
            combine=functools.partial(_merge_states_serial, rule=rule),
            axis=ax,
            keepdims=False,
            dtype=np.float64,
            split_every=_DEFAULT_SPLIT_EVERY if split_every is None else split_every,
            concatenate=False,  # the merge concatenates into a reused buffer (_concatenated)
            meta=np.empty((0,) * (array.ndim - 1), dtype=np.float64),
            name=f"dstk-{rule}-state",
        )
        # the finished blocks hold packed_size entries (masses, then the conflict) on the last axis
        packed = da.Array(
            state.dask,
            state.name,
            chunks=state.chunks[:-1] + ((packed_size,),),
            meta=np.empty((0,) * state.ndim, dtype=np.float64),
        )
    if not return_conflict:
        return DaskMassFunction._trusted(packed, frame)
    values, conflict = split_last_slot(packed, size)
    return DaskMassFunction._trusted(values, frame), conflict
