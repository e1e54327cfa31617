"""Combination rules on dense mass vectors (numba kernels).

Inputs are C-contiguous float64 arrays ``m`` of shape ``(rows, K, size)``:
``rows`` independent combinations of ``K`` sources each, ``size = 2**n``.
Outputs have shape ``(rows, size)``.  The transforms follow
:mod:`dstk._kernels.transforms`; they are re-implemented here on 1-D rows so
that the ``K`` sources of one row are folded with a single scratch buffer.
"""

import math

import numpy as np
from numba import njit


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
def conjunctive(m, normalize):
    """Conjunctive combination of the K sources of every row.

    With ``normalize`` (Dempster's rule) the commonality product is rescaled
    every 16 sources (q(empty) plays no role, so rescaling is exact) and the
    result is divided by the sum of its non-empty masses, never by 1 - K.

    Returns ``(out, kappa, total)``: combined masses, the conflict K = mass
    of the empty set in the unnormalised combination (it may round to 1 for
    nearly total conflicts), and a flag per row that is True only for an
    exactly total conflict (all non-empty masses zero; zero output row).
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    kappa = np.empty(rows)
    total_conflict = np.zeros(rows, dtype=np.bool_)
    acc = np.empty(size)
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            acc[a] = 1.0
        log_scale = 0.0
        for k in range(k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            _superset_sum_row(tmp)
            for a in range(size):
                acc[a] *= tmp[a]
            if normalize and (k % 16 == 15):
                scale = 0.0
                for a in range(1, size):
                    if acc[a] > scale:
                        scale = acc[a]
                if scale > 0.0:
                    for a in range(1, size):
                        acc[a] /= scale
                    log_scale += math.log(scale)
        if normalize:
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
            # m(empty) is recomputed from the others so that the row sums to 1
            out[r, 0] = 1.0 - total if total < 1.0 else 0.0
            kappa[r] = out[r, 0]
    return out, kappa, total_conflict


@njit(cache=True)
def disjunctive(m):
    """Disjunctive combination (product of implicabilities) of every row."""
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    acc = np.empty(size)
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            acc[a] = 1.0
        for k in range(k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            _subset_sum_row(tmp)
            for a in range(size):
                acc[a] *= tmp[a]
        _subset_moebius_row(acc)
        for a in range(size):
            out[r, a] = acc[a]
    return out


@njit(cache=True)
def log_conjunctive_weights(m):
    """ln w(A) = -sum_{B >= A} (-1)^{|B|-|A|} ln q(B) for A != frame (Denoeux 2008, Eq. 13).

    ``m`` has shape (rows, size) with m(frame) > 0 (checked by the caller).
    ln w(frame) is set to 0.
    """
    rows, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            tmp[a] = m[r, a]
        _superset_sum_row(tmp)
        for a in range(size):
            tmp[a] = math.log(tmp[a])
        _superset_moebius_row(tmp)
        for a in range(size):
            out[r, a] = -tmp[a]
        out[r, size - 1] = 0.0
    return out


@njit(cache=True)
def mass_from_log_conjunctive_weights(lw):
    """Inverse of :func:`log_conjunctive_weights` (ln w(frame) ignored).

    ln q(C) = sum_{B != frame} ln w(B) - sum_{B >= C, B != frame} ln w(B).
    """
    rows, size = lw.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        total = 0.0
        for a in range(size - 1):
            tmp[a] = lw[r, a]
            total += lw[r, a]
        tmp[size - 1] = 0.0
        _superset_sum_row(tmp)
        for a in range(size):
            tmp[a] = math.exp(total - tmp[a])
        _superset_moebius_row(tmp)
        for a in range(size):
            out[r, a] = tmp[a]
    return out


@njit(cache=True)
def log_disjunctive_weights(m):
    """ln v(A) = -sum_{B <= A} (-1)^{|A|-|B|} ln b(B) for A != empty (Denoeux 2008, Eq. 29).

    ``m`` has shape (rows, size) with m(empty) > 0 (checked by the caller).
    ln v(empty) is set to 0.
    """
    rows, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            tmp[a] = m[r, a]
        _subset_sum_row(tmp)
        for a in range(size):
            tmp[a] = math.log(tmp[a])
        _subset_moebius_row(tmp)
        for a in range(size):
            out[r, a] = -tmp[a]
        out[r, 0] = 0.0
    return out


@njit(cache=True)
def mass_from_log_disjunctive_weights(lv):
    """Inverse of :func:`log_disjunctive_weights` (ln v(empty) ignored)."""
    rows, size = lv.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        total = 0.0
        tmp[0] = 0.0
        for a in range(1, size):
            tmp[a] = lv[r, a]
            total += lv[r, a]
        _subset_sum_row(tmp)
        for a in range(size):
            tmp[a] = math.exp(total - tmp[a])
        _subset_moebius_row(tmp)
        for a in range(size):
            out[r, a] = tmp[a]
    return out


@njit(cache=True)
def cautious(m):
    """Cautious rule (Denoeux 2008): minimum of the conjunctive weights, log domain.

    ``m``: (rows, K, size), every source with m(frame) > 0.  Unnormalised.
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    acc = np.empty(size)
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            acc[a] = np.inf
        for k in range(k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            _superset_sum_row(tmp)
            for a in range(size):
                tmp[a] = math.log(tmp[a])
            _superset_moebius_row(tmp)
            for a in range(size):
                v = -tmp[a]
                if v < acc[a]:
                    acc[a] = v
        acc[size - 1] = 0.0
        total = 0.0
        for a in range(size - 1):
            total += acc[a]
        _superset_sum_row(acc)
        for a in range(size):
            acc[a] = math.exp(total - acc[a])
        _superset_moebius_row(acc)
        for a in range(size):
            out[r, a] = acc[a]
    return out


@njit(cache=True)
def bold(m):
    """Bold rule (Denoeux 2008): minimum of the disjunctive weights, log domain.

    ``m``: (rows, K, size), every source with m(empty) > 0 (subnormal).
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    acc = np.empty(size)
    tmp = np.empty(size)
    for r in range(rows):
        for a in range(size):
            acc[a] = np.inf
        for k in range(k_sources):
            for a in range(size):
                tmp[a] = m[r, k, a]
            _subset_sum_row(tmp)
            for a in range(size):
                tmp[a] = math.log(tmp[a])
            _subset_moebius_row(tmp)
            for a in range(size):
                v = -tmp[a]
                if v < acc[a]:
                    acc[a] = v
        acc[0] = 0.0
        total = 0.0
        for a in range(1, size):
            total += acc[a]
        _subset_sum_row(acc)
        for a in range(size):
            acc[a] = math.exp(total - acc[a])
        _subset_moebius_row(acc)
        for a in range(size):
            out[r, a] = acc[a]
    return out


@njit(cache=True)
def dubois_prade_pair(m1, m2):
    """Dubois-Prade rule of two sources, rows of (rows, size) arrays.

    m(C) = sum_{A & B = C} m1(A) m2(B) for C != empty, plus
    sum_{A & B = empty, A | B = C} m1(A) m2(B).  Pairs with an empty
    intersection are enumerated as B over the subsets of the complement of A
    (O(3**n)).
    """
    rows, size = m1.shape
    full = size - 1
    out = np.empty((rows, size))
    q1 = np.empty(size)
    q2 = np.empty(size)
    for r in range(rows):
        for a in range(size):
            q1[a] = m1[r, a]
            q2[a] = m2[r, a]
        _superset_sum_row(q1)
        _superset_sum_row(q2)
        for a in range(size):
            q1[a] *= q2[a]
        _superset_moebius_row(q1)
        q1[0] = 0.0
        for a in range(size):
            va = m1[r, a]
            if va == 0.0:
                continue
            comp = full ^ a
            b = comp
            while True:
                vb = m2[r, b]
                if vb != 0.0:
                    q1[a | b] += va * vb
                if b == 0:
                    break
                b = (b - 1) & comp
        for a in range(size):
            out[r, a] = q1[a]
    return out


@njit(cache=True)
def pcr6(m, max_tuples):
    """PCR6 rule of K sources (Martin & Osswald 2006) by enumeration of focal tuples.

    For each tuple (X_1..X_K) of focal sets with an empty intersection the
    product of masses is shared among the X_i in proportion to m_i(X_i);
    tuples with a non-empty intersection go to the intersection.  Inputs must
    be normal (m(empty) = 0).  Returns (out, kappa, ok); ``ok[r]`` is False
    when a row would need more than ``max_tuples`` tuples.
    """
    rows, k_sources, size = m.shape
    out = np.zeros((rows, size))
    kappa = np.zeros(rows)
    ok = np.ones(rows, dtype=np.bool_)
    focal = np.empty((k_sources, size), dtype=np.int64)
    n_focal = np.empty(k_sources, dtype=np.int64)
    pos = np.empty(k_sources, dtype=np.int64)
    for r in range(rows):
        count = 1.0
        for k in range(k_sources):
            c = 0
            for a in range(1, size):
                if m[r, k, a] != 0.0:
                    focal[k, c] = a
                    c += 1
            n_focal[k] = c
            count *= c
        if count > max_tuples:
            ok[r] = False
            continue
        if count == 0:
            continue
        for k in range(k_sources):
            pos[k] = 0
        while True:
            inter = size - 1
            prod = 1.0
            ssum = 0.0
            for k in range(k_sources):
                a = focal[k, pos[k]]
                v = m[r, k, a]
                inter &= a
                prod *= v
                ssum += v
            if inter != 0:
                out[r, inter] += prod
            else:
                kappa[r] += prod
                for k in range(k_sources):
                    a = focal[k, pos[k]]
                    out[r, a] += m[r, k, a] * prod / ssum
            # odometer
            k = k_sources - 1
            while k >= 0:
                pos[k] += 1
                if pos[k] < n_focal[k]:
                    break
                pos[k] = 0
                k -= 1
            if k < 0:
                break
    return out, kappa, ok
