"""Fast zeta and Moebius transforms on dense mass vectors (numba kernels).

Every kernel works in place on a C-contiguous float64 array of shape
``(n_rows, 2**n)``: one row per mass function, the column index is the
subset's bitmask (bit i <-> the frame's i-th label).  Each transform applies
the fast Moebius transform pass of :mod:`dstk._kernels.moebius` to every row.

* ``subset_sum``     f(A) <- sum_{B subset of A} f(B)        (m -> b)
* ``subset_moebius`` inverse of ``subset_sum``                (b -> m)
* ``superset_sum``   f(A) <- sum_{B superset of A} f(B)      (m -> q)
* ``superset_moebius`` inverse of ``superset_sum``            (q -> m)
"""

import math

import numpy as np

from dstk._kernels._jit import njit
from dstk._kernels.moebius import subset_pass, sum_from, superset_pass

#: Largest frame (labels) whose :func:`pignistic` sums run in plain order (no fast-math
#: reassociation, the same bits interpreted and compiled, so small batches need no
#: compilation); larger frames use the vectorised fast-math folds.  On frames this
#: small the plain loops are as fast compiled (their halves have at most 8 terms).
PIGNISTIC_PLAIN_MAX_LABELS = 4

# Source hashes of the kernel modules called here (see dstk._kernels._jit).
CALLED_KERNEL_SOURCES = {
    "dstk._kernels.moebius": "c6be9c7a6d9ad709",
}


@njit(cache=True)
def subset_sum(x):
    for r in range(x.shape[0]):
        subset_pass(x[r], 1.0)


@njit(cache=True)
def subset_moebius(x):
    for r in range(x.shape[0]):
        subset_pass(x[r], -1.0)


@njit(cache=True)
def superset_sum(x):
    for r in range(x.shape[0]):
        superset_pass(x[r], 1.0)


@njit(cache=True)
def superset_moebius(x):
    for r in range(x.shape[0]):
        superset_pass(x[r], -1.0)


# The cardinality tables' interpreted_max_work: subsets computed interpreted (about 5 ms for 2**14,
# where compiling the two table kernels takes about 0.2 s of a cold start; each table is computed
# once per size and cached).
@njit(cache=True, interpreted_max_work=1 << 14)
def popcounts(size):
    out = np.zeros(size, dtype=np.int64)
    for a in range(1, size):
        out[a] = out[a >> 1] + (a & 1)
    return out


@njit(cache=True, interpreted_max_work=1 << 14)
def inverse_cardinalities(size):
    """1/|A| for every subset bitmask A (0 for the empty set)."""
    pc = popcounts(size)
    inv = np.zeros(size)
    for a in range(1, size):
        inv[a] = 1.0 / pc[a]
    return inv


@njit(cache=True)
def singleton_sums(v, n):
    """out[r, i] = sum of v[r, A] over the subsets A that contain element i."""
    rows, size = v.shape
    out = np.zeros((rows, n))
    for r in range(rows):
        for i in range(n):
            step = 1 << i
            s = 0.0
            for base in range(step, size, 2 * step):
                for j in range(base, base + step):
                    s += v[r, j]
            out[r, i] = s
    return out


@njit(cache=True, fastmath={"reassoc"})
def _fold_top_half(v, half):
    """Return sum(v[half:2*half]) and add the top half onto the bottom half."""
    lo = v[:half]
    hi = v[half : 2 * half]
    total = 0.0
    for j in range(half):
        x = hi[j]
        total += x
        lo[j] += x
    return total


# interpreted_max_work: input values of a call on a frame of at most PIGNISTIC_PLAIN_MAX_LABELS labels
# run interpreted: about 20 ms (0.85 us per value) against 0.45-0.5 s to compile the kernel with its
# callees on a cold start (measured 2026-11-24); larger frames need the compiled fast-math folds.
@njit(cache=True, error_model="numpy", interpreted_max_work=24_000)
def pignistic(m, n, inv_card):
    """BetP over the ``n`` singletons, divided by 1 - m(empty) (rows of m).

    Rows whose non-empty masses sum to zero give NaN; the caller checks.

    With v(A) = m(A) / |A|, BetP(i) is the sum of v over the subsets that
    contain i.  For the highest element that is the sum of the top half of
    v; folding the top half onto the bottom half then leaves the same problem
    on n - 1 elements, so the whole row costs about 2 * 2**n additions
    instead of n * 2**(n-1).  Frames of at most ``PIGNISTIC_PLAIN_MAX_LABELS``
    labels sum in index order without fast-math, so the kernel interpreted
    (:func:`dstk._kernels._jit.call_kernel`) gives the compiled bits.
    """
    rows, size = m.shape
    out = np.empty((rows, n))
    v = np.empty(size)
    plain = n <= PIGNISTIC_PLAIN_MAX_LABELS
    for r in range(rows):
        src = m[r]
        for a in range(size):
            v[a] = src[a] * inv_card[a]
        length = size
        for i in range(n - 1, -1, -1):
            half = length >> 1
            if plain:  # the sums in index order: the interpreter's bits
                total = 0.0
                for j in range(half):
                    x = v[half + j]
                    total += x
                    v[j] += x
                out[r, i] = total
            else:
                out[r, i] = _fold_top_half(v, half)
            length = half
        if plain:
            denom = 0.0
            for a in range(1, size):
                denom += src[a]
        else:
            denom = sum_from(src, 1)
        for i in range(n):
            out[r, i] /= denom
    return out


@njit(cache=True)
def mass_rows_status(m, tolerance):
    """One-pass check of mass rows ``m`` (rows, size), for the validating layer.

    Returns ``(status, has_small_negative)``: ``status`` is 0 when every
    entry is finite and >= -tolerance and every row sums to 1 within
    ``tolerance``; 1 for a NaN or infinite entry, 2 for an entry below
    -tolerance, 3 for a row sum off by more than ``tolerance`` (the first
    problem met, scanning row by row).  ``has_small_negative`` says whether
    some entry lies in [-tolerance, 0) (rounding noise the caller sets to 0).
    A non-zero status only says that the detailed (numpy) check must run to
    build the error message.
    """
    rows, size = m.shape
    small_negative = False
    for r in range(rows):
        row = m[r]
        total = 0.0
        for a in range(size):
            x = row[a]
            if not math.isfinite(x):
                return 1, small_negative
            if x < 0.0:
                if x < -tolerance:
                    return 2, small_negative
                small_negative = True
            total += x
        if abs(total - 1.0) > tolerance:
            return 3, small_negative
    return 0, small_negative


@njit(cache=True)
def contextual_discount(m, rates):
    """Contextual discounting of the rows of ``m`` (rows, 2**n) in place, ``rates`` (rows, n).

    For each label k: m(C) <- (1 - a_k) m(C) when bit k of C is 0, and
    m(C) <- m(C) + a_k m(C - {k}) when it is 1 (the disjunctive combination
    with m_k(empty) = 1 - a_k, m_k({k}) = a_k; Mercier, Quost and Denoeux
    2008, Proposition 8).  Non-negative products and sums only; a zero rate
    leaves every mass unchanged bit for bit.
    """
    rows, size = m.shape
    n = rates.shape[1]
    for r in range(rows):
        row = m[r]
        for k in range(n):
            a = rates[r, k]
            keep = 1.0 - a
            bit = 1 << k
            for base in range(0, size, 2 * bit):
                for j in range(base, base + bit):
                    low = row[j]
                    row[j + bit] += a * low
                    row[j] = keep * low
