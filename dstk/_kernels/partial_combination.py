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

import numpy as np

from dstk._kernels._jit import njit
from dstk._kernels.moebius import subset_pass

# Source hashes of the kernel modules called here (see dstk._kernels._jit).
CALLED_KERNEL_SOURCES = {
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
