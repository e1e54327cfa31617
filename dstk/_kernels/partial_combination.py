"""Partial states of the disjunctive rule reduced over chunks of the source axis (numba kernels).

A *partial state* summarises the sources of one chunk of the source axis so
that two states can be merged and the merged state finished into masses (the
tree reductions of :mod:`dstk.dask`).  For the disjunctive rule it is the
product of the sources' implicability functions; the conjunctive, Yager and
Dempster states are the chunk's combination by the in-memory fold
(:func:`dstk._kernels.combination.conjunctive`, see
``dstk.dask._combination``).  All arrays are C-contiguous float64,
``(rows, K, size)`` in and ``(rows, size)`` out.
"""

import ctypes

import numpy as np
from numba import carray
from numba.core import types
from numba.extending import intrinsic, overload

from dstk._kernels import _buffers
from dstk._kernels._jit import call_kernel, njit
from dstk._kernels.combination import _NORMAL_MIN, _binary_masses, _checked_binary_factors, _spaced_rows
from dstk._kernels.moebius import subset_pass

# Source hashes of the kernel modules called here (see dstk._kernels._jit).
CALLED_KERNEL_SOURCES = {
    "dstk._kernels.combination": "49eb56e0cd576f94",
    "dstk._kernels.moebius": "c6be9c7a6d9ad709",
}


@njit(cache=True, nogil=True)
def implicability_product(m):
    """Product over the K sources of each row of their implicability functions."""
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    if k_sources == 0:
        out[:] = 1.0  # the empty product
        return out
    for r in range(rows):
        acc = out[r]
        for a in range(size):
            acc[a] = m[r, 0, a]
        subset_pass(acc, 1.0)
        for k in range(1, k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            subset_pass(tmp, 1.0)
            for a in range(size):
                acc[a] *= tmp[a]
    return out


@njit(cache=True, nogil=True)
def merge_products(parts):
    """Entrywise product of P partial products ``(rows, P, size)`` in order."""
    rows, n_parts, size = parts.shape
    out = np.empty((rows, size))
    for r in range(rows):
        for a in range(size):
            out[r, a] = parts[r, 0, a]
        for p in range(1, n_parts):
            for a in range(size):
                out[r, a] *= parts[r, p, a]
    return out


@njit(cache=True, nogil=True)
def finish_implicability_product(state):
    """Masses from a product of implicability functions (subset Moebius)."""
    rows, size = state.shape
    out = np.empty((rows, size))
    for r in range(rows):
        acc = out[r]
        for a in range(size):
            acc[a] = state[r, a]
        subset_pass(acc, -1.0)
    return out


# -- binary frames: the fold states of the conjunctive, Dempster and Yager rules ----------------
#: How :func:`merge_binary_states` writes a merged row: a state, or masses finished for a rule.
FINISH = {None: 0, "conjunctive": 1, "dempster": 2, "yager": 3}


@intrinsic
def _float64_pointer(typingctx, address):
    """The integer ``address`` as a pointer to float64 (the data of an array the caller keeps alive)."""
    if not isinstance(address, types.Integer):
        return None
    signature = types.CPointer(types.float64)(address)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return signature, codegen


def _state_at(address, length):
    """The float64 array of ``length`` values at ``address`` (an array the caller keeps alive).

    This Python version runs when the kernels run interpreted; compiled, it
    is a view through a pointer (:func:`_state_at_compiled`).
    """
    return np.ctypeslib.as_array((ctypes.c_double * int(length)).from_address(int(address)))


@overload(_state_at)
def _state_at_compiled(address, length):
    def view(address, length):
        return carray(_float64_pointer(address), (length,))  # type: ignore[call-arg]

    return view


@njit(cache=True, nogil=True)
def _lost_in_products(addresses, steps, lengths, r):
    """Whether some product of :func:`_merge_binary_rows` for row ``r`` of non-zero factors left the normal range."""
    q1 = 1.0
    q2 = 1.0
    q3 = 1.0
    flag = False
    for p in range(addresses.shape[0]):
        s = _state_at(addresses[p], lengths[p])
        j = r * steps[p]
        q1, q2, q3, lost_now = _checked_binary_factors(q1, q2, q3, s[j + 1], s[j + 2], s[j + 3])
        flag |= lost_now
    return flag


# interpreted_max_work: values read (rows x states x 4) of a merge run interpreted: about 20 ms
# (0.3 us per value, measured 2026-11-24) where compiling the kernel takes about 1 s of a cold start.
@njit(cache=True, nogil=True, interpreted_max_work=65_536)
def _merge_binary_rows(addresses, steps, lengths, normalize, finish, out, total_conflict, lost):
    """Rows of :func:`merge_binary_states`: state ``p`` is the flat float64 array of ``lengths[p]``
    values at ``addresses[p]``, its row ``r`` at ``r * steps[p] : r * steps[p] + 4``.

    The products run with no test; the factors are at most 1 (up to
    rounding), so a product that left the normal range ends below it, and
    only such rows are multiplied again with every product checked
    (:func:`_lost_in_products`; a product with a zero factor is exact).
    """
    rows = out.shape[0]
    n_parts = addresses.shape[0]
    with_conflict = out.shape[1] == 5
    block = 256  # rows merged together: their products stay in the cache while the states are read
    q1 = np.empty(block)
    q2 = np.empty(block)
    q3 = np.empty(block)
    carried = np.empty(block)
    for r0 in range(0, rows, block):
        n = min(block, rows - r0)
        q1[:] = 1.0
        q2[:] = 1.0
        q3[:] = 1.0
        carried[:] = 1.0
        for p in range(n_parts):
            step = steps[p]
            # this block's rows of state p, indexed from 0 (no wraparound test)
            s = _state_at(addresses[p], lengths[p])[r0 * step : (r0 + n - 1) * step + 4]
            for i in range(n):
                j = i * step
                t3 = s[j + 3]
                q1[i] *= s[j + 1] + t3
                q2[i] *= s[j + 2] + t3
                q3[i] *= t3
                carried[i] *= s[j]  # Dempster's states: the product of the parts' 1 - K
        for i in range(n):
            r = r0 + i
            low = (q1[i] < _NORMAL_MIN) | (q2[i] < _NORMAL_MIN) | (q3[i] < _NORMAL_MIN)
            if normalize and low and _lost_in_products(addresses, steps, lengths, r):
                lost[r] = True
                continue
            empty, a1, a2, a3, kappa, total = _binary_masses(q1[i], q2[i], q3[i], 1.0, 0.0, normalize)
            if total:
                total_conflict[r] = True
            one_minus_conflict = (1.0 - kappa) * carried[i]
            if finish == 0:  # a state: slot 0 holds m(empty), or 1 - K for Dempster's rule
                out[r, 0] = one_minus_conflict if normalize else empty
                out[r, 1] = a1
                out[r, 2] = a2
                out[r, 3] = a3
                continue
            conflict = 1.0 - one_minus_conflict if finish == 2 else empty
            out[r, 0] = empty if finish == 1 else 0.0
            out[r, 1] = a1
            out[r, 2] = a2
            out[r, 3] = a3 + empty if finish == 3 else a3
            if with_conflict:
                out[r, 4] = conflict


def merge_binary_states(parts, normalize, *, finish=None, with_conflict=False):
    """Merge the binary fold states ``parts`` by the conjunctive rule, all in one pass.

    ``parts``: (rows, 4) float64 arrays, the conjunctive combinations of
    chunks of sources (with ``normalize``, Dempster's: normalised masses with
    1 - K in slot 0).  Their commonalities q({0}), q({1}), q(frame) multiply
    (Shafer 1976, Theorem 3.3) and, with ``normalize``, so do their 1 - K
    and the merge's own.  The rows of a part are read where they lie when
    evenly spaced in memory (e.g. one source of a stack).

    ``finish``: None returns the merged state (rows, 4); ``"conjunctive"``,
    ``"dempster"`` or ``"yager"`` returns the rule's masses, followed by the
    conflict when ``with_conflict`` (rows, 5).

    Returns ``(out, total, lost)``: ``total`` flags an exactly total
    conflict under Dempster's rule (zero masses), ``lost`` the rows where a
    product of non-zero factors left the normal float64 range under
    Dempster's rule: their ``out`` is not written, for the caller to merge
    them in steps that normalise in between.
    """
    # (flat, step) of every part: the part itself, or its contiguous copy, kept alive here while the
    # kernel reads it through its address
    views = [_spaced_rows(part) for part in parts]
    rows = parts[0].shape[0]
    addresses = np.array([flat.ctypes.data for flat, _ in views], dtype=np.int64)
    steps = np.array([step for _, step in views], dtype=np.int64)
    lengths = np.array([flat.shape[0] for flat, _ in views], dtype=np.int64)
    out = _buffers.empty((rows, 5 if finish is not None and with_conflict else 4))
    total = _buffers.zeros(rows, dtype=np.bool_)
    lost = _buffers.zeros(rows, dtype=np.bool_)
    call_kernel(
        _merge_binary_rows,
        addresses,
        steps,
        lengths,
        bool(normalize),
        FINISH[finish],
        out,
        total,
        lost,
        work=4 * rows * len(parts),
    )
    return out, total, lost
