"""Fast Moebius transform passes on one row of a dense set function (numba kernels).

The single implementation of the zeta and Moebius transforms over the subset
lattice used by every dstk kernel (:mod:`dstk._kernels.transforms`,
:mod:`dstk._kernels.combination`, :mod:`dstk._kernels.partial_combination`).
A row is a C-contiguous float64 vector of length ``2**n`` indexed by subset
bitmask (bit i <-> the frame's i-th label).  Each pass is the fast Moebius
transform (Kennes 1992, section 3; Smets 2002, section 4): ``n`` sweeps of
``2**(n-1)`` additions, blocked for speed (three low bits in registers, the
other bits two at a time on contiguous, vectorised slices) with the same
additions in the same order as plain sweeps, so the results are identical to
them bit for bit (tested against the plain sweeps and the definition in
``tests/kernels/test_moebius.py``).

References
----------
Kennes, R. (1992). Computational aspects of the Moebius transformation of
graphs. IEEE Transactions on Systems, Man, and Cybernetics 22(2), 201-223.

Smets, P. (2002). The application of the matrix calculus to belief functions.
International Journal of Approximate Reasoning 31(1-2), 1-30.
"""

from dstk._kernels._jit import njit


@njit(cache=True, inline="always")
def _block_of_eight(x, b):
    """The eight entries ``x[b] .. x[b + 7]`` of a block (read into registers)."""
    return x[b], x[b + 1], x[b + 2], x[b + 3], x[b + 4], x[b + 5], x[b + 6], x[b + 7]


@njit(cache=True)
def superset_pass(x, sign):
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
            x0, x1, x2, x3, x4, x5, x6, x7 = _block_of_eight(x, b)
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
def subset_pass(x, sign):
    """x(A) <- sum_{B subset of A} sign**|A - B| x(B), in place on one row.

    ``sign = 1.0``: subset sums (m -> b); ``sign = -1.0``: inverse (b -> m).
    Same blocking as :func:`superset_pass`.
    """
    size = x.shape[0]
    step = 1
    if size >= 8:
        for b in range(0, size, 8):
            x0, x1, x2, x3, x4, x5, x6, x7 = _block_of_eight(x, b)
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


@njit(cache=True, fastmath={"reassoc"})
def sum_from(x, start):
    """sum(x[start:]); reassociation lets LLVM vectorise the reduction."""
    total = 0.0
    for a in range(start, x.shape[0]):
        total += x[a]
    return total
