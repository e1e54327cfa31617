"""Partial states of combinations reduced over chunks of the source axis (numba kernels).

A *partial state* summarises the sources of one chunk of the source axis so
that two states can be merged and the merged state finished into masses (the
tree reductions of :mod:`dstk.dask`):

* conjunctive / yager: the product of the commonality functions;
* dempster: the same product, rescaled so that ``max_{A != empty} = 1``,
  with the accumulated ``log`` of the scale factors stored in slot 0
  (``q(empty)`` plays no role in Dempster's rule, see
  :func:`dstk._kernels.combination.conjunctive`);
* disjunctive: the product of the implicability functions.

The commonality products, their rescaling and the final Moebius step are
those of :func:`dstk._kernels.combination.conjunctive` (the same helpers), so
a state of one chunk finishes to the same floats as the in-memory kernel.
All arrays are C-contiguous float64, ``(rows, K, size)`` in and
``(rows, size)`` out, like :mod:`dstk._kernels.combination`.
"""

import math

import numpy as np

from dstk._kernels._jit import njit
from dstk._kernels.combination import _finish_conjunctive, _multiply_commonality, _rescale_nonempty
from dstk._kernels.moebius import subset_pass

# Source hashes of the kernel modules called here (see dstk._kernels._jit).
CALLED_KERNEL_SOURCES = {
    "dstk._kernels.combination": "1ce970d2f24bfb30",
    "dstk._kernels.moebius": "c6be9c7a6d9ad709",
}


@njit(cache=True, nogil=True)
def commonality_product(m, normalize):
    """Product over the K sources of each row of their commonality functions.

    With ``normalize`` (Dempster's rule) the product is rescaled every 16
    sources exactly as in :func:`dstk._kernels.combination.conjunctive`, and
    slot 0 of the output holds the accumulated log of the scale factors.
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    if k_sources == 0:
        out[:] = 1.0  # the empty product
        return out
    for r in range(rows):
        acc = out[r]
        log_scale = 0.0
        for k in range(k_sources):
            _multiply_commonality(m[r, k], acc, tmp, k == 0)
            if normalize and (k % 16 == 15):
                log_scale += _rescale_nonempty(acc)
        if normalize:
            acc[0] = log_scale
    return out


@njit(cache=True, nogil=True)
def _binary_commonality_rows(m, normalize, out, r0, r1):
    """Rows ``r0:r1`` of :func:`binary_commonality_product`, one row at a time."""
    for r in range(r0, r1):
        q0 = 1.0
        q1 = 1.0
        q2 = 1.0
        q3 = 1.0
        log_scale = 0.0
        for k in range(m.shape[1]):
            s3 = m[r, k, 3]
            q0 *= (m[r, k, 0] + m[r, k, 1]) + (m[r, k, 2] + s3)
            q1 *= m[r, k, 1] + s3
            q2 *= m[r, k, 2] + s3
            q3 *= s3
            if normalize and (k % 16 == 15):
                scale = max(q1, max(q2, q3))
                if scale > 0.0:
                    q1 /= scale
                    q2 /= scale
                    q3 /= scale
                    log_scale += math.log(scale)
        out[r, 0] = log_scale if normalize else q0
        out[r, 1] = q1
        out[r, 2] = q2
        out[r, 3] = q3


@njit(cache=True, nogil=True)
def binary_commonality_product(m, normalize):
    """:func:`commonality_product` on a binary frame (``size = 4``), the commonalities in scalars.

    q({0}) = m({0}) + m(frame), q({1}) = m({1}) + m(frame), q(frame) =
    m(frame), and (conjunctive rule) q(empty) = the sum of the masses, summed
    in the order of the superset pass; the same products and the same
    rescaling points as :func:`commonality_product`, so the same floats.
    Two rows are folded together (independent products overlap instead of
    waiting on each other); ``m`` may be strided (a chunk of a larger array).
    """
    rows, k_sources, _ = m.shape
    out = np.empty((rows, 4))
    r = 0
    while r + 2 <= rows:
        a1 = a2 = a3 = b1 = b2 = b3 = 1.0
        a0 = b0 = 1.0
        la = lb = 0.0
        for k in range(k_sources):
            x3 = m[r, k, 3]
            y3 = m[r + 1, k, 3]
            x1 = m[r, k, 1]
            y1 = m[r + 1, k, 1]
            x2 = m[r, k, 2]
            y2 = m[r + 1, k, 2]
            if not normalize:
                a0 *= (m[r, k, 0] + x1) + (x2 + x3)
                b0 *= (m[r + 1, k, 0] + y1) + (y2 + y3)
            a1 *= x1 + x3
            b1 *= y1 + y3
            a2 *= x2 + x3
            b2 *= y2 + y3
            a3 *= x3
            b3 *= y3
            if normalize and (k % 16 == 15):
                sa = max(a1, max(a2, a3))
                if sa > 0.0:
                    a1 /= sa
                    a2 /= sa
                    a3 /= sa
                    la += math.log(sa)
                sb = max(b1, max(b2, b3))
                if sb > 0.0:
                    b1 /= sb
                    b2 /= sb
                    b3 /= sb
                    lb += math.log(sb)
        out[r, 0] = la if normalize else a0
        out[r, 1] = a1
        out[r, 2] = a2
        out[r, 3] = a3
        out[r + 1, 0] = lb if normalize else b0
        out[r + 1, 1] = b1
        out[r + 1, 2] = b2
        out[r + 1, 3] = b3
        r += 2
    _binary_commonality_rows(m, normalize, out, r, rows)
    return out


@njit(cache=True, nogil=True)
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
        acc = out[r]
        for a in range(size):
            acc[a] = parts[r, 0, a]
        for p in range(1, n_parts):
            if normalize:
                acc[0] += parts[r, p, 0]
                for a in range(1, size):
                    acc[a] *= parts[r, p, a]
            else:
                for a in range(size):
                    acc[a] *= parts[r, p, a]
        if normalize and n_parts > 1:
            acc[0] += _rescale_nonempty(acc)
    return out


@njit(cache=True, nogil=True)
def finish_commonality_product(state, normalize):
    """Masses from a (rescaled) commonality product, as in the in-memory kernel.

    Returns ``(out, kappa, total_conflict)`` with the conventions of
    :func:`dstk._kernels.combination.conjunctive`.
    """
    rows, size = state.shape
    out = np.empty((rows, size))
    kappa = np.empty(rows)
    total_conflict = np.zeros(rows, dtype=np.bool_)
    for r in range(rows):
        acc = out[r]
        for a in range(size):
            acc[a] = state[r, a]
        log_scale = acc[0] if normalize else 0.0
        kappa[r], total_conflict[r] = _finish_conjunctive(acc, normalize, log_scale)
    return out, kappa, total_conflict


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
