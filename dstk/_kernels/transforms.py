"""Fast zeta and Moebius transforms on dense mass vectors (numba kernels).

Every kernel works in place on a C-contiguous float64 array of shape
``(n_rows, 2**n)``: one row per mass function, the column index is the
subset's bitmask (bit i <-> the frame's i-th label).  Each transform is the
classic fast Moebius transform (Kennes 1992; Smets 2002): ``n`` sweeps of
``2**(n-1)`` additions.

* ``subset_sum``     f(A) <- sum_{B subset of A} f(B)        (m -> b)
* ``subset_moebius`` inverse of ``subset_sum``                (b -> m)
* ``superset_sum``   f(A) <- sum_{B superset of A} f(B)      (m -> q)
* ``superset_moebius`` inverse of ``superset_sum``            (q -> m)
"""

import numpy as np
from numba import njit


@njit(cache=True)
def subset_sum(x):
    rows, size = x.shape
    step = 1
    while step < size:
        for r in range(rows):
            for base in range(0, size, 2 * step):
                for j in range(base, base + step):
                    x[r, j + step] += x[r, j]
        step *= 2


@njit(cache=True)
def subset_moebius(x):
    rows, size = x.shape
    step = 1
    while step < size:
        for r in range(rows):
            for base in range(0, size, 2 * step):
                for j in range(base, base + step):
                    x[r, j + step] -= x[r, j]
        step *= 2


@njit(cache=True)
def superset_sum(x):
    rows, size = x.shape
    step = 1
    while step < size:
        for r in range(rows):
            for base in range(0, size, 2 * step):
                for j in range(base, base + step):
                    x[r, j] += x[r, j + step]
        step *= 2


@njit(cache=True)
def superset_moebius(x):
    rows, size = x.shape
    step = 1
    while step < size:
        for r in range(rows):
            for base in range(0, size, 2 * step):
                for j in range(base, base + step):
                    x[r, j] -= x[r, j + step]
        step *= 2


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


@njit(cache=True)
def pignistic(m, n, inv_card):
    """BetP over the ``n`` singletons, divided by 1 - m(empty) (rows of m).

    Rows whose non-empty masses sum to zero give NaN; the caller checks.
    """
    rows, size = m.shape
    v = np.empty((rows, size))
    for r in range(rows):
        for a in range(size):
            v[r, a] = m[r, a] * inv_card[a]
    out = singleton_sums(v, n)
    for r in range(rows):
        denom = 0.0
        for a in range(1, size):
            denom += m[r, a]
        for i in range(n):
            out[r, i] /= denom
    return out
