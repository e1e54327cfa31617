"""Combination rules on dense mass vectors (numba kernels).

Inputs are C-contiguous float64 arrays ``m`` of shape ``(rows, K, size)``:
``rows`` independent combinations of ``K`` sources each, ``size = 2**n``.
Outputs have shape ``(rows, size)``.  The transforms are the row passes of
:mod:`dstk._kernels.moebius`, so that the ``K`` sources of one row are folded
with a single scratch buffer.
"""

import math

import numpy as np

from dstk._kernels._jit import njit
from dstk._kernels.moebius import subset_pass, sum_from, superset_pass

# Source hashes of the kernel modules called here (see dstk._kernels._jit).
CALLED_KERNEL_SOURCES = {
    "dstk._kernels.moebius": "c3edeec8b803e5d9",
}


@njit(cache=True)
def _multiply_commonality(src, acc, tmp, first):
    """acc <- q_src (first source) or acc * q_src, with q the superset sums."""
    size = acc.shape[0]
    if first:
        for a in range(size):
            acc[a] = src[a]
        superset_pass(acc, 1.0)
    else:
        for a in range(size):
            tmp[a] = src[a]
        superset_pass(tmp, 1.0)
        for a in range(size):
            acc[a] *= tmp[a]


@njit(cache=True)
def _rescale_nonempty(acc):
    """Divide acc[1:] by its maximum (when positive); return the log of the factor."""
    size = acc.shape[0]
    scale = 0.0
    for a in range(1, size):
        if acc[a] > scale:
            scale = acc[a]
    if scale > 0.0:
        for a in range(1, size):
            acc[a] /= scale
        return math.log(scale)
    return 0.0


@njit(cache=True)
def _finish_conjunctive(acc, normalize, log_scale):
    """Commonality product -> masses in place; return (kappa, total conflict flag)."""
    size = acc.shape[0]
    if normalize:
        acc[0] = 0.0
        superset_pass(acc, -1.0)
        total = sum_from(acc, 1)
        if total > 0.0:
            acc[0] = 0.0
            for a in range(1, size):
                acc[a] /= total
            k_val = 1.0 - total * math.exp(log_scale)
            return (k_val if k_val > 0.0 else 0.0), False
        for a in range(size):
            acc[a] = 0.0
        return 1.0, True
    superset_pass(acc, -1.0)
    total = sum_from(acc, 1)
    # m(empty) is recomputed from the others so that the row sums to 1
    acc[0] = 1.0 - total if total < 1.0 else 0.0
    return acc[0], False


@njit(cache=True)
def _conjunctive_binary(m, normalize, out, kappa, total_conflict):
    """:func:`conjunctive` on a binary frame (size 4), commonalities in scalars.

    q({0}) = m({0}) + m(frame), q({1}) = m({1}) + m(frame), q(frame) =
    m(frame); q(empty) plays no role since m(empty) is recomputed.  Same
    arithmetic and rescaling schedule as the general path.
    """
    rows, k_sources, _ = m.shape
    for r in range(rows):
        q1 = 1.0
        q2 = 1.0
        q3 = 1.0
        log_scale = 0.0
        for k in range(k_sources):
            t3 = m[r, k, 3]
            q1 *= m[r, k, 1] + t3
            q2 *= m[r, k, 2] + t3
            q3 *= t3
            if normalize and (k % 16 == 15):
                scale = q1
                if q2 > scale:
                    scale = q2
                if q3 > scale:
                    scale = q3
                if scale > 0.0:
                    q1 /= scale
                    q2 /= scale
                    q3 /= scale
                    log_scale += math.log(scale)
        a1 = q1 - q3
        a2 = q2 - q3
        total = a1 + a2 + q3
        if normalize:
            if total > 0.0:
                out[r, 0] = 0.0
                out[r, 1] = a1 / total
                out[r, 2] = a2 / total
                out[r, 3] = q3 / total
                k_val = 1.0 - total * math.exp(log_scale)
                kappa[r] = k_val if k_val > 0.0 else 0.0
            else:
                out[r, 0] = 0.0
                out[r, 1] = 0.0
                out[r, 2] = 0.0
                out[r, 3] = 0.0
                kappa[r] = 1.0
                total_conflict[r] = True
        else:
            out[r, 0] = 1.0 - total if total < 1.0 else 0.0
            out[r, 1] = a1
            out[r, 2] = a2
            out[r, 3] = q3
            kappa[r] = out[r, 0]


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
    if size == 4:
        _conjunctive_binary(m, normalize, out, kappa, total_conflict)
        return out, kappa, total_conflict
    # the output row is the accumulator: one scratch row only (fresh large
    # allocations cost a page fault per 4 KiB on every call)
    tmp = np.empty(size)
    for r in range(rows):
        acc = out[r]
        log_scale = 0.0
        for k in range(k_sources):
            _multiply_commonality(m[r, k], acc, tmp, k == 0)
            if normalize and (k % 16 == 15):
                log_scale += _rescale_nonempty(acc)
        kappa[r], total_conflict[r] = _finish_conjunctive(acc, normalize, log_scale)
    return out, kappa, total_conflict


@njit(cache=True)
def conjunctive_pair(m1, m2, normalize):
    """:func:`conjunctive` of two sources given as separate (rows, size) arrays.

    Same result as ``conjunctive(np.stack([m1, m2], axis=1), normalize)``
    without building the stacked copy (for the common two-source call).
    """
    rows, size = m1.shape
    out = np.empty((rows, size))
    kappa = np.empty(rows)
    total_conflict = np.zeros(rows, dtype=np.bool_)
    tmp = np.empty(size)
    for r in range(rows):
        acc = out[r]
        _multiply_commonality(m1[r], acc, tmp, True)
        _multiply_commonality(m2[r], acc, tmp, False)
        kappa[r], total_conflict[r] = _finish_conjunctive(acc, normalize, 0.0)
    return out, kappa, total_conflict


@njit(cache=True)
def disjunctive(m):
    """Disjunctive combination (product of implicabilities) of every row."""
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        acc = out[r]
        for k in range(k_sources):
            src = m[r, k]
            if k == 0:
                for a in range(size):
                    acc[a] = src[a]
                subset_pass(acc, 1.0)
            else:
                for a in range(size):
                    tmp[a] = src[a]
                subset_pass(tmp, 1.0)
                for a in range(size):
                    acc[a] *= tmp[a]
        subset_pass(acc, -1.0)
    return out


@njit(cache=True)
def log_conjunctive_weights(m):
    """ln w(A) = -sum_{B >= A} (-1)^{|B|-|A|} ln q(B) for A != frame (Denoeux 2008, Eq. 13).

    ``m`` has shape (rows, size) with m(frame) > 0 (checked by the caller).
    ln w(frame) is set to 0.
    """
    rows, size = m.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = m[r]
        for a in range(size):
            tmp[a] = src[a]
        superset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = -math.log(tmp[a])
        superset_pass(tmp, -1.0)
        tmp[size - 1] = 0.0
    return out


@njit(cache=True)
def mass_from_log_conjunctive_weights(lw):
    """Inverse of :func:`log_conjunctive_weights` (ln w(frame) ignored).

    ln q(C) = sum_{B != frame} ln w(B) - sum_{B >= C, B != frame} ln w(B).
    """
    rows, size = lw.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = lw[r]
        for a in range(size - 1):
            tmp[a] = src[a]
        total = sum_from(tmp[: size - 1], 0)
        tmp[size - 1] = 0.0
        superset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = math.exp(total - tmp[a])
        superset_pass(tmp, -1.0)
    return out


@njit(cache=True)
def log_disjunctive_weights(m):
    """ln v(A) = -sum_{B <= A} (-1)^{|A|-|B|} ln b(B) for A != empty (Denoeux 2008, Eq. 29).

    ``m`` has shape (rows, size) with m(empty) > 0 (checked by the caller).
    ln v(empty) is set to 0.
    """
    rows, size = m.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = m[r]
        for a in range(size):
            tmp[a] = src[a]
        subset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = -math.log(tmp[a])
        subset_pass(tmp, -1.0)
        tmp[0] = 0.0
    return out


@njit(cache=True)
def mass_from_log_disjunctive_weights(lv):
    """Inverse of :func:`log_disjunctive_weights` (ln v(empty) ignored)."""
    rows, size = lv.shape
    out = np.empty((rows, size))
    for r in range(rows):
        tmp = out[r]
        src = lv[r]
        tmp[0] = 0.0
        for a in range(1, size):
            tmp[a] = src[a]
        total = sum_from(tmp, 1)
        subset_pass(tmp, 1.0)
        for a in range(size):
            tmp[a] = math.exp(total - tmp[a])
        subset_pass(tmp, -1.0)
    return out


@njit(cache=True)
def cautious(m):
    """Cautious rule (Denoeux 2008): minimum of the conjunctive weights, log domain.

    ``m``: (rows, K, size), every source with m(frame) > 0.  Unnormalised.
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        acc = out[r]
        for a in range(size):
            acc[a] = np.inf
        for k in range(k_sources):
            src = m[r, k]
            for a in range(size):
                tmp[a] = src[a]
            superset_pass(tmp, 1.0)
            for a in range(size):
                tmp[a] = math.log(tmp[a])
            superset_pass(tmp, -1.0)
            for a in range(size):
                v = -tmp[a]
                if v < acc[a]:
                    acc[a] = v
        acc[size - 1] = 0.0
        total = sum_from(acc[: size - 1], 0)
        superset_pass(acc, 1.0)
        for a in range(size):
            acc[a] = math.exp(total - acc[a])
        superset_pass(acc, -1.0)
    return out


@njit(cache=True)
def bold(m):
    """Bold rule (Denoeux 2008): minimum of the disjunctive weights, log domain.

    ``m``: (rows, K, size), every source with m(empty) > 0 (subnormal).
    """
    rows, k_sources, size = m.shape
    out = np.empty((rows, size))
    tmp = np.empty(size)
    for r in range(rows):
        acc = out[r]
        for a in range(size):
            acc[a] = np.inf
        for k in range(k_sources):
            src = m[r, k]
            for a in range(size):
                tmp[a] = src[a]
            subset_pass(tmp, 1.0)
            for a in range(size):
                tmp[a] = math.log(tmp[a])
            subset_pass(tmp, -1.0)
            for a in range(size):
                v = -tmp[a]
                if v < acc[a]:
                    acc[a] = v
        acc[0] = 0.0
        total = sum_from(acc, 1)
        subset_pass(acc, 1.0)
        for a in range(size):
            acc[a] = math.exp(total - acc[a])
        subset_pass(acc, -1.0)
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
        s1 = m1[r]
        s2 = m2[r]
        for a in range(size):
            q1[a] = s1[a]
            q2[a] = s2[a]
        superset_pass(q1, 1.0)
        superset_pass(q2, 1.0)
        for a in range(size):
            q1[a] *= q2[a]
        superset_pass(q1, -1.0)
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


@njit(cache=True)
def focal_set_pairs(f1, f2, intersect):
    """Merge the set operation over all pairs of focal sets (focal-set form).

    ``f1`` (F1,), ``f2`` (F2,): uint64 focal bitmasks.  The pair (i, j) gives
    ``f1[i] & f2[j]`` (``intersect``) or ``f1[i] | f2[j]``.  Returns
    ``(unique, inverse)``: the sorted distinct results and, for the pair at
    flat index ``i * F2 + j``, the position of its result in ``unique`` —
    the same as ``np.unique(np.bitwise_and.outer(f1, f2).ravel(),
    return_inverse=True)``, by an LSD radix sort (8 bits a pass, stopping at
    the highest bit in use), O(F1 F2).
    """
    n1 = f1.shape[0]
    n2 = f2.shape[0]
    n_pairs = n1 * n2
    keys = np.empty(n_pairs, dtype=np.uint64)
    idx = np.empty(n_pairs, dtype=np.int64)
    used_bits = np.uint64(0)
    p = 0
    for i in range(n1):
        a = f1[i]
        for j in range(n2):
            c = (a & f2[j]) if intersect else (a | f2[j])
            keys[p] = c
            idx[p] = p
            used_bits |= c
            p += 1
    keys2 = np.empty(n_pairs, dtype=np.uint64)
    idx2 = np.empty(n_pairs, dtype=np.int64)
    count = np.empty(256, dtype=np.int64)
    digit_mask = np.uint64(255)
    for shift in range(0, 64, 8):
        sh = np.uint64(shift)
        if (used_bits >> sh) == np.uint64(0):
            break
        for b in range(256):
            count[b] = 0
        for q in range(n_pairs):
            count[np.int64((keys[q] >> sh) & digit_mask)] += 1
        total = 0
        for b in range(256):
            c = count[b]
            count[b] = total
            total += c
        for q in range(n_pairs):
            d = np.int64((keys[q] >> sh) & digit_mask)
            pos = count[d]
            keys2[pos] = keys[q]
            idx2[pos] = idx[q]
            count[d] = pos + 1
        keys, keys2 = keys2, keys
        idx, idx2 = idx2, idx
    unique = np.empty(n_pairs, dtype=np.uint64)
    inverse = np.empty(n_pairs, dtype=np.int64)
    u = -1
    for q in range(n_pairs):
        if u < 0 or keys[q] != unique[u]:
            u += 1
            unique[u] = keys[q]
        inverse[idx[q]] = u
    return unique[: u + 1].copy(), inverse


@njit(cache=True)
def pair_products(m1, m2, inverse, n_out):
    """out[r, inverse[i * F2 + j]] += m1[r, i] * m2[r, j] (rows of equal count).

    With ``inverse`` from :func:`focal_set_pairs` this is the conjunctive
    (or disjunctive) combination of two batches in focal-set form.
    """
    rows, n1 = m1.shape
    n2 = m2.shape[1]
    out = np.zeros((rows, n_out))
    for r in range(rows):
        o = out[r]
        a = m1[r]
        b = m2[r]
        p = 0
        for i in range(n1):
            x = a[i]
            for j in range(n2):
                o[inverse[p]] += x * b[j]
                p += 1
    return out
