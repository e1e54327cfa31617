"""Fast zeta and Moebius transforms on dense mass vectors (numba kernels).

Every kernel works in place on a C-contiguous float64 array of shape
``(n_rows, 2**n)``: one row per mass function, the column index is the
subset's bitmask (bit i <-> the frame's i-th label).  Each transform is the
classic fast Moebius transform (Kennes 1992; Smets 2002): ``n`` sweeps of
``2**(n-1)`` additions, blocked for speed (three low bits in registers, the
other bits two at a time on contiguous, vectorised slices) with the same
additions in the same order, so results are identical to plain sweeps.

* ``subset_sum``     f(A) <- sum_{B subset of A} f(B)        (m -> b)
* ``subset_moebius`` inverse of ``subset_sum``                (b -> m)
* ``superset_sum``   f(A) <- sum_{B superset of A} f(B)      (m -> q)
* ``superset_moebius`` inverse of ``superset_sum``            (q -> m)
"""

import math

import numpy as np
from numba import njit

# The row passes below are also in :mod:`dstk._kernels.combination`.  They
# are repeated on purpose: numba's on-disk cache (cache=True) does not notice
# edits to a jitted function defined in another module, so sharing them across
# modules would let a stale cached caller run an old version after an edit.


@njit(cache=True)
def _superset_pass(x, sign):
    """x(A) <- sum_{B superset of A} sign**|B - A| x(B), in place on one row.

    ``sign = 1.0``: superset sums (m -> q); ``sign = -1.0``: the inverse
    Moebius transform (q -> m).  The three lowest bits are done in registers
    on blocks of 8 entries; higher bits two at a time (radix 4) on contiguous
    slices so that LLVM vectorises the inner loop.  Multiplying by +-1 is
    exact, so the result equals the plain ``n``-sweep transform bit for bit.
    """
    size = x.shape[0]
    step = 1
    if size >= 8:
        for b in range(0, size, 8):
            x0 = x[b]
            x1 = x[b + 1]
            x2 = x[b + 2]
            x3 = x[b + 3]
            x4 = x[b + 4]
            x5 = x[b + 5]
            x6 = x[b + 6]
            x7 = x[b + 7]
            x0 += sign * x1
            x2 += sign * x3
            x4 += sign * x5
            x6 += sign * x7
            x0 += sign * x2
            x1 += sign * x3
            x4 += sign * x6
            x5 += sign * x7
            x[b] = x0 + sign * x4
            x[b + 1] = x1 + sign * x5
            x[b + 2] = x2 + sign * x6
            x[b + 3] = x3 + sign * x7
            x[b + 4] = x4
            x[b + 5] = x5
            x[b + 6] = x6
        step = 8
    while step < size:
        if 4 * step <= size:
            for base in range(0, size, 4 * step):
                p0 = x[base : base + step]
                p1 = x[base + step : base + 2 * step]
                p2 = x[base + 2 * step : base + 3 * step]
                p3 = x[base + 3 * step : base + 4 * step]
                for j in range(step):
                    a = p0[j]
                    b1 = p1[j]
                    c = p2[j]
                    d = p3[j]
                    a += sign * b1
                    c += sign * d
                    p0[j] = a + sign * c
                    p1[j] = b1 + sign * d
                    p2[j] = c
            step *= 4
        else:
            for base in range(0, size, 2 * step):
                lo = x[base : base + step]
                hi = x[base + step : base + 2 * step]
                for j in range(step):
                    lo[j] += sign * hi[j]
            step *= 2


@njit(cache=True)
def _subset_pass(x, sign):
    """x(A) <- sum_{B subset of A} sign**|A - B| x(B), in place on one row.

    ``sign = 1.0``: subset sums (m -> b); ``sign = -1.0``: inverse (b -> m).
    Same blocking as :func:`_superset_pass`.
    """
    size = x.shape[0]
    step = 1
    if size >= 8:
        for b in range(0, size, 8):
            x0 = x[b]
            x1 = x[b + 1]
            x2 = x[b + 2]
            x3 = x[b + 3]
            x4 = x[b + 4]
            x5 = x[b + 5]
            x6 = x[b + 6]
            x7 = x[b + 7]
            x1 += sign * x0
            x3 += sign * x2
            x5 += sign * x4
            x7 += sign * x6
            x2 += sign * x0
            x3 += sign * x1
            x6 += sign * x4
            x7 += sign * x5
            x[b + 1] = x1
            x[b + 2] = x2
            x[b + 3] = x3
            x[b + 4] = x4 + sign * x0
            x[b + 5] = x5 + sign * x1
            x[b + 6] = x6 + sign * x2
            x[b + 7] = x7 + sign * x3
        step = 8
    while step < size:
        if 4 * step <= size:
            for base in range(0, size, 4 * step):
                p0 = x[base : base + step]
                p1 = x[base + step : base + 2 * step]
                p2 = x[base + 2 * step : base + 3 * step]
                p3 = x[base + 3 * step : base + 4 * step]
                for j in range(step):
                    a = p0[j]
                    b1 = p1[j]
                    c = p2[j]
                    d = p3[j]
                    b1 += sign * a
                    d += sign * c
                    p1[j] = b1
                    p2[j] = c + sign * a
                    p3[j] = d + sign * b1
            step *= 4
        else:
            for base in range(0, size, 2 * step):
                lo = x[base : base + step]
                hi = x[base + step : base + 2 * step]
                for j in range(step):
                    hi[j] += sign * lo[j]
            step *= 2


@njit(cache=True)
def subset_sum(x):
    for r in range(x.shape[0]):
        _subset_pass(x[r], 1.0)


@njit(cache=True)
def subset_moebius(x):
    for r in range(x.shape[0]):
        _subset_pass(x[r], -1.0)


@njit(cache=True)
def superset_sum(x):
    for r in range(x.shape[0]):
        _superset_pass(x[r], 1.0)


@njit(cache=True)
def superset_moebius(x):
    for r in range(x.shape[0]):
        _superset_pass(x[r], -1.0)


@njit(cache=True)
def popcounts(size):
    out = np.zeros(size, dtype=np.int64)
    for a in range(1, size):
        out[a] = out[a >> 1] + (a & 1)
    return out


@njit(cache=True)
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


@njit(cache=True, fastmath={"reassoc"})
def _sum_from(x, start):
    """sum(x[start:]); reassociation lets LLVM vectorise the reduction."""
    total = 0.0
    for a in range(start, x.shape[0]):
        total += x[a]
    return total


@njit(cache=True, error_model="numpy")
def pignistic(m, n, inv_card):
    """BetP over the ``n`` singletons, divided by 1 - m(empty) (rows of m).

    Rows whose non-empty masses sum to zero give NaN; the caller checks.

    With v(A) = m(A) / |A|, BetP(i) is the sum of v over the subsets that
    contain i.  For the highest element that is the sum of the top half of
    v; folding the top half onto the bottom half then leaves the same problem
    on n - 1 elements, so the whole row costs about 2 * 2**n additions
    instead of n * 2**(n-1).
    """
    rows, size = m.shape
    out = np.empty((rows, n))
    v = np.empty(size)
    for r in range(rows):
        src = m[r]
        for a in range(size):
            v[a] = src[a] * inv_card[a]
        length = size
        for i in range(n - 1, -1, -1):
            half = length >> 1
            out[r, i] = _fold_top_half(v, half)
            length = half
        denom = _sum_from(src, 1)
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
