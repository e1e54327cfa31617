"""Numba kernels for the partial states of tree-reduced combinations.

A *partial state* summarises the sources of one chunk of the source axis so
that two states can be merged and the merged state finished into masses:

* conjunctive / yager: the product of the commonality functions;
* dempster: the same product, rescaled so that ``max_{A != empty} = 1``,
  with the accumulated ``log`` of the scale factors stored in slot 0
  (``q(empty)`` plays no role in Dempster's rule, see
  :func:`dstk._kernels.combination.conjunctive`);
* disjunctive: the product of the implicability functions.

All arrays are C-contiguous float64, ``(rows, K, size)`` in and
``(rows, size)`` out, like :mod:`dstk._kernels.combination`.
"""

import math

import numpy as np
from numba import njit


# Plain n-sweep fast Moebius transforms of one row (Smets 2002).  They give
# the same floats as the blocked transforms of dstk._kernels (which add the
# same pairs in the same order), but are kept here so that this module does
# not depend on private helpers of another module.
@njit(cache=True)
def _superset_sum_row(x):
    size = x.shape[0]
    step = 1
    while step < size:
        for base in range(0, size, 2 * step):
            for j in range(base, base + step):
                x[j] += x[j + step]
        step *= 2


@njit(cache=True)
def _superset_moebius_row(x):
    size = x.shape[0]
    step = 1
    while step < size:
        for base in range(0, size, 2 * step):
            for j in range(base, base + step):
                x[j] -= x[j + step]
        step *= 2


@njit(cache=True)
def _subset_sum_row(x):
    size = x.shape[0]
    step = 1
    while step < size:
        for base in range(0, size, 2 * step):
            for j in range(base, base + step):
                x[j + step] += x[j]
        step *= 2


@njit(cache=True)
def _subset_moebius_row(x):
    size = x.shape[0]
    step = 1
    while step < size:
        for base in range(0, size, 2 * step):
            for j in range(base, base + step):
                x[j + step] -= x[j]
        step *= 2


@njit(cache=True)
def commonality_product(m, normalize):
    """Product over the K sources of each row of their commonality functions.

    With ``normalize`` (Dempster's rule) the product is rescaled every 16
    sources exactly as in :func:`dstk._kernels.combination.conjunctive`, and
    slot 0 of the output holds the accumulated log of the scale factors.
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            out[r, a] = 1.0
        log_scale = 0.0
        for k in range(k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            _superset_sum_row(tmp)
            for a in range(size):
                out[r, a] *= tmp[a]
            if normalize and (k % 16 == 15):
                scale = 0.0
                for a in range(1, size):
                    if out[r, a] > scale:
                        scale = out[r, a]
                if scale > 0.0:
                    for a in range(1, size):
                        out[r, a] /= scale
                    log_scale += math.log(scale)
        if normalize:
            out[r, 0] = log_scale
    return out


@njit(cache=True)
def merge_commonality_products(parts, normalize):
    """Merge P partial products ``(rows, P, size)`` into ``(rows, size)``.

    Plain products for the conjunctive rule; for Dempster's rule the
    non-empty entries are multiplied, the log scales (slot 0) added, and the
    product rescaled to a maximum of one (an exact operation for Dempster's
    rule, which normalises at the end).
    """
    rows, n_parts, size = parts.shape
    out = np.empty((rows, size))
    for r in range(rows):
        for a in range(size):
            out[r, a] = parts[r, 0, a]
        for p in range(1, n_parts):
            if normalize:
                out[r, 0] += parts[r, p, 0]
                for a in range(1, size):
                    out[r, a] *= parts[r, p, a]
            else:
                for a in range(size):
                    out[r, a] *= parts[r, p, a]
        if normalize and n_parts > 1:
            scale = 0.0
            for a in range(1, size):
                if out[r, a] > scale:
                    scale = out[r, a]
            if scale > 0.0:
                for a in range(1, size):
                    out[r, a] /= scale
                out[r, 0] += math.log(scale)
    return out


@njit(cache=True)
def finish_commonality_product(state, normalize):
    """Masses from a (rescaled) commonality product, as in the in-memory kernel.

    Returns ``(out, kappa, total_conflict)`` with the conventions of
    :func:`dstk._kernels.combination.conjunctive`.
    """
    rows, size = state.shape
    out = np.empty((rows, size))
    kappa = np.empty(rows)
    total_conflict = np.zeros(rows, dtype=np.bool_)
    acc = np.empty(size)
    for r in range(rows):
        for a in range(size):
            acc[a] = state[r, a]
        if normalize:
            log_scale = acc[0]
            acc[0] = 0.0
            _superset_moebius_row(acc)
            total = 0.0
            for a in range(1, size):
                total += acc[a]
            if total > 0.0:
                out[r, 0] = 0.0
                for a in range(1, size):
                    out[r, a] = acc[a] / total
                k_val = 1.0 - total * math.exp(log_scale)
                kappa[r] = k_val if k_val > 0.0 else 0.0
            else:
                for a in range(size):
                    out[r, a] = 0.0
                kappa[r] = 1.0
                total_conflict[r] = True
        else:
            _superset_moebius_row(acc)
            total = 0.0
            for a in range(1, size):
                total += acc[a]
            for a in range(size):
                out[r, a] = acc[a]
            out[r, 0] = 1.0 - total if total < 1.0 else 0.0
            kappa[r] = out[r, 0]
    return out, kappa, total_conflict


@njit(cache=True)
def implicability_product(m):
    """Product over the K sources of each row of their implicability functions."""
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            out[r, a] = 1.0
        for k in range(k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            _subset_sum_row(tmp)
            for a in range(size):
                out[r, a] *= tmp[a]
    return out


@njit(cache=True)
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


@njit(cache=True)
def finish_implicability_product(state):
    """Masses from a product of implicability functions (subset Moebius)."""
    rows, size = state.shape
    out = np.empty((rows, size))
    acc = np.empty(size)
    for r in range(rows):
        for a in range(size):
            acc[a] = state[r, a]
        _subset_moebius_row(acc)
        for a in range(size):
            out[r, a] = acc[a]
    return out
