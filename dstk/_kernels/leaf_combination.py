"""Numba kernels that combine the leaves of a tree ensemble, sample by sample.

Plain arrays in, plain arrays out; no validation (see
:mod:`dstk.ensemble._combiners`).  Nothing is compiled at import time.

Mass functions whose focal sets are only the empty set, the singletons and the
whole frame are stored in the *compact layout* ``[m(empty), m({0}), ...,
m({K-1}), m(frame)]`` (length K + 2).  For two classes this is exactly the
dense layout of :class:`dstk.core._mass.MassFunction` on ``Frame((0, 1))``.
Leaf masses of this form (the plausibility model of Busch et al. 2021, and the
imprecise Dirichlet model) stay in this family under the conjunctive and the
cautious rules, which is what makes the closed forms below possible.

Kernels
-------
dempster_closed_form(keys, table)
    Unnormalised conjunctive (Dempster) combination over the tree axis.
cautious_closed_form(keys, table)
    Denoeux's cautious rule over the tree axis (minimum of conjunctive weights).
dempster_pairwise_floor(keys, table, floor) / cautious_pairwise_floor(keys, table, floor)
    Binary frame: the balanced pairwise reduction of the authors' code with the
    singleton floor re-applied before every pairwise combination.
evidence_accumulation(counts, smoothing, prior_term)
    EVA scores.
"""

import math

import numpy as np

from dstk._kernels._jit import njit


@njit(cache=True, nogil=True)
def dempster_closed_form(keys, log_commonality):
    """Conjunctive combination of the leaf masses of each sample.

    Parameters
    ----------
    keys : int64 (n_samples, n_trees)
        Row of the table holding the leaf of sample i in tree t.
    log_commonality : float64 (n_rows, K + 1)
        Per leaf mass ``[log q({0}), ..., log q({K-1}), log m(frame)]`` with
        q({k}) = m({k}) + m(frame) (the leaf masses have no mass on the empty
        set; -inf for zero).

    Returns
    -------
    masses : float64 (n_samples, K + 2)
        Unnormalised result in the compact layout (float64, may underflow for
        long products).
    normalized : float64 (n_samples, K + 1)
        ``[m({0}), ..., m({K-1}), m(frame)] / (1 - m(empty))`` computed in the
        log domain (no underflow); NaN where the combination is in total
        conflict.

    Notes
    -----
    With commonalities q_t({k}) = m_t({k}) + m_t(frame) and q_t(A) = m_t(frame)
    for |A| >= 2, the conjunctive rule multiplies commonalities, so
    m(frame) = prod_t m_t(frame) and m({k}) = prod_t q_t({k}) - prod_t m_t(frame).
    """
    n_samples, n_trees = keys.shape
    n_classes = log_commonality.shape[1] - 1
    masses = np.zeros((n_samples, n_classes + 2))
    normalized = np.zeros((n_samples, n_classes + 1))
    log_q = np.empty(n_classes + 1)
    for i in range(n_samples):
        for k in range(n_classes + 1):
            log_q[k] = 0.0
        for t in range(n_trees):
            row = keys[i, t]
            for k in range(n_classes + 1):
                log_q[k] += log_commonality[row, k]
        log_vacuous = log_q[n_classes]
        top = log_vacuous
        for k in range(n_classes):
            if log_q[k] > top:
                top = log_q[k]
        total = 0.0
        for k in range(n_classes):
            # q_k - q_frame (q_k >= q_frame), relative to exp(top)
            if log_q[k] == -np.inf:
                scaled = 0.0
                masses[i, k + 1] = 0.0
            else:
                difference = -math.expm1(log_vacuous - log_q[k])
                scaled = math.exp(log_q[k] - top) * difference
                masses[i, k + 1] = math.exp(log_q[k]) * difference
            normalized[i, k] = scaled
            total += scaled
        scaled_vacuous = math.exp(log_vacuous - top) if top > -np.inf else 0.0
        normalized[i, n_classes] = scaled_vacuous
        total += scaled_vacuous
        masses[i, n_classes + 1] = math.exp(log_vacuous)
        s = 0.0
        for j in range(1, n_classes + 2):
            s += masses[i, j]
        masses[i, 0] = max(1.0 - s, 0.0)
        if total > 0.0:
            for j in range(n_classes + 1):
                normalized[i, j] /= total
        else:
            for j in range(n_classes + 1):
                normalized[i, j] = np.nan
    return masses, normalized


@njit(cache=True, nogil=True)
def cautious_closed_form(keys, weights_table):
    """Cautious combination (Denoeux 2008) of the leaf masses of each sample.

    Parameters
    ----------
    keys : int64 (n_samples, n_trees)
    weights_table : float64 (n_rows, K + 1)
        Conjunctive weights of each leaf mass ``[w({0}), ..., w({K-1}), w(empty)]``
        (see Notes; every m(frame) > 0, checked by the caller).

    Returns
    -------
    masses : float64 (n_samples, K + 2)
        Unnormalised result in the compact layout.
    normalized : float64 (n_samples, K + 1)
        Singletons and frame divided by ``1 - m(empty)``.

    Notes
    -----
    For a mass with focal sets among the singletons and the frame the
    conjunctive weights are w({k}) = m(frame) / q({k}),
    w(empty) = prod_k q({k}) / m(frame)^(K-1) (q(empty) = 1) and w(A) = 1
    otherwise.  The cautious rule takes the minimum of each weight over the
    trees, and the result is the conjunctive combination of the simple mass
    functions {k}^w({k}) and empty^w(empty):
    m(frame) = w(empty) prod_k w_k, m({k}) = w(empty) (1 - w_k) prod_{j != k} w_j.
    """
    n_samples, n_trees = keys.shape
    n_classes = weights_table.shape[1] - 1
    masses = np.zeros((n_samples, n_classes + 2))
    normalized = np.zeros((n_samples, n_classes + 1))
    weights = np.empty(n_classes + 1)
    for i in range(n_samples):
        for k in range(n_classes + 1):
            weights[k] = np.inf
        for t in range(n_trees):
            row = keys[i, t]
            for k in range(n_classes + 1):
                w = weights_table[row, k]
                if w < weights[k]:
                    weights[k] = w
        weight_empty = weights[n_classes]
        product = 1.0
        for k in range(n_classes):
            product *= weights[k]
        masses[i, n_classes + 1] = weight_empty * product
        total = product
        for k in range(n_classes):
            others = 1.0
            for j in range(n_classes):
                if j != k:
                    others *= weights[j]
            m = (1.0 - weights[k]) * others
            masses[i, k + 1] = weight_empty * m
            normalized[i, k] = m
            total += m
        normalized[i, n_classes] = product
        s = 0.0
        for j in range(1, n_classes + 2):
            s += masses[i, j]
        masses[i, 0] = 1.0 - s
        if total > 0.0:
            for j in range(n_classes + 1):
                normalized[i, j] /= total
        else:
            for j in range(n_classes + 1):
                normalized[i, j] = np.nan
    return masses, normalized


@njit(cache=True, nogil=True)
def clamp_binary(m, floor):
    """The authors' singleton floor on a binary mass ``[m(empty), m({0}), m({1}), m(frame)]`` (in place).

    If m({1}) > 1 - floor: m({1}) = 1 - floor and m(frame) = floor; then the
    same for m({0}).  m(empty) is left alone.
    """
    if m[2] > 1.0 - floor:
        m[2] = 1.0 - floor
        m[3] = floor
    if m[1] > 1.0 - floor:
        m[1] = 1.0 - floor
        m[3] = floor


@njit(cache=True, nogil=True)
def conjunctive_pair_binary(a, b, out):
    """Unnormalised conjunctive rule on the binary frame, in the authors' order of operations.

    Rows are ``[m(empty), m({0}), m({1}), m(frame)]``; see :func:`_conjunctive_scalars`.
    """
    out[0], out[1], out[2], out[3] = _conjunctive_scalars(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])


@njit(cache=True, nogil=True)
def _pairwise_reduce(work, count, floor, pair, cautious):
    """Balanced pairwise reduction of ``work[:count]`` (rows = binary masses), clamped at every level.

    Rows (0, 1), (2, 3), ... are combined (by :func:`_cautious_pair_binary`
    if ``cautious``, else :func:`conjunctive_pair_binary`) and an odd last row
    is carried over, level after level; every level, the single row left at
    the end included, is clamped first.  The result is left in ``work[0]``;
    ``pair`` is a scratch row.
    """
    while True:
        for j in range(count):
            clamp_binary(work[j], floor)
        if count <= 1:
            return
        half = 0
        j = 0
        while j + 1 < count:
            if cautious:
                _cautious_pair_binary(work[j], work[j + 1], floor, pair)
            else:
                conjunctive_pair_binary(work[j], work[j + 1], pair)
            for c in range(4):
                work[half, c] = pair[c]
            half += 1
            j += 2
        if j < count:
            for c in range(4):
                work[half, c] = work[j, c]
            half += 1
        count = half


@njit(cache=True, nogil=True)
def _weights_authors_order(m):
    """Conjunctive weights (w(empty), w({1}), w({0})) of a binary mass, in the authors' order of operations."""
    q_empty = ((m[0] + m[2]) + m[1]) + m[3]
    q1 = m[2] + m[3]
    q0 = m[1] + m[3]
    q_frame = m[3]
    return ((1.0 / q_empty) * q1 * q0) * (1.0 / q_frame), (1.0 / q1) * q_frame, (1.0 / q0) * q_frame


@njit(cache=True, nogil=True, inline="always")
def _conjunctive_scalars(a0, a1, a2, a3, b0, b1, b2, b3):
    """Unnormalised conjunctive rule on scalar binary masses ``(m(empty), m({0}), m({1}), m(frame))``.

    The authors order a mass as ``[empty, {1}, {0}, frame]``; every sum and
    product here is theirs, term by term (m(empty) collects the conflicting
    products instead of being 1 minus the rest).
    """
    conflict = a0 * (((b0 + b2) + b1) + b3)
    conflict += a2 * (b0 + b1)
    conflict += a1 * (b0 + b2)
    conflict += a3 * b0
    return conflict, a1 * (b1 + b3) + a3 * b1, a2 * (b2 + b3) + a3 * b2, a3 * b3


@njit(cache=True, nogil=True, inline="always")
def _clamp_scalars(m0, m1, m2, m3, floor):
    """:func:`clamp_binary` on scalars."""
    if m2 > 1.0 - floor:
        m2 = 1.0 - floor
        m3 = floor
    if m1 > 1.0 - floor:
        m1 = 1.0 - floor
        m3 = floor
    return m0, m1, m2, m3


@njit(cache=True, nogil=True)
def _cautious_rebuild(we, w1, w0, floor, out):
    """The mass with conjunctive weights (we, w1, w0), rebuilt as the authors' code rebuilds it.

    The simple mass functions empty^we, {1}^w1, {0}^w0 are combined by the
    clamped pairwise Dempster reduction of :func:`_pairwise_reduce`
    (clamp the three; combine the first two and carry the third; clamp both;
    combine; clamp the result), written out on scalars with every operation
    of the general case, zeros included.
    """
    z0, z1, z2, z3 = _clamp_scalars(1.0 - we, 0.0, 0.0, we, floor)
    p0, p1, p2, p3 = _clamp_scalars(0.0, 0.0, 1.0 - w1, w1, floor)
    n0, n1, n2, n3 = _clamp_scalars(0.0, 1.0 - w0, 0.0, w0, floor)
    r0, r1, r2, r3 = _conjunctive_scalars(z0, z1, z2, z3, p0, p1, p2, p3)
    r0, r1, r2, r3 = _clamp_scalars(r0, r1, r2, r3, floor)
    n0, n1, n2, n3 = _clamp_scalars(n0, n1, n2, n3, floor)
    f0, f1, f2, f3 = _conjunctive_scalars(r0, r1, r2, r3, n0, n1, n2, n3)
    out[0], out[1], out[2], out[3] = _clamp_scalars(f0, f1, f2, f3, floor)


@njit(cache=True, nogil=True)
def _cautious_pair_binary(a, b, floor, out):
    """Cautious combination of two (clamped) binary masses as the authors' code computes it."""
    we_a, w1_a, w0_a = _weights_authors_order(a)
    we_b, w1_b, w0_b = _weights_authors_order(b)
    _cautious_rebuild(min(we_a, we_b), min(w1_a, w1_b), min(w0_a, w0_b), floor, out)


@njit(cache=True, nogil=True)
def dempster_pairwise_floor(keys, table, floor):
    """Binary leaf masses ``table[keys]`` (rows ``[m(empty), m({0}), m({1}), m(frame)]``) -> (n_samples, 4).

    Trees are combined as (0, 1), (2, 3), ... with an odd one carried over,
    recursively; before each level (and on the final result) every mass gets
    :func:`clamp_binary`.  Same floating-point operations as the authors' code.
    """
    n_samples, n_trees = keys.shape
    out = np.empty((n_samples, 4))
    work = np.empty((n_trees, 4))
    pair = np.empty(4)
    for i in range(n_samples):
        for t in range(n_trees):
            for j in range(4):
                work[t, j] = table[keys[i, t], j]
        _pairwise_reduce(work, n_trees, floor, pair, False)
        for j in range(4):
            out[i, j] = work[0, j]
    return out


@njit(cache=True, nogil=True)
def cautious_pairwise_floor(keys, table, floor):
    """Binary leaf masses ``table[keys]`` -> cautious combination (n_samples, 4).

    Same balanced reduction and floor as :func:`dempster_pairwise_floor`; each
    pair is combined by :func:`_cautious_pair_binary`.  Same floating-point
    operations as the authors' code.  The first level works from the
    weights of the clamped table rows, computed once per row.
    """
    n_samples, n_trees = keys.shape
    clamped = table.copy()
    weights = np.empty((table.shape[0], 3))
    for r in range(table.shape[0]):
        clamp_binary(clamped[r], floor)
        weights[r, 0], weights[r, 1], weights[r, 2] = _weights_authors_order(clamped[r])
    out = np.empty((n_samples, 4))
    work = np.empty((n_trees, 4))
    pair = np.empty(4)
    for i in range(n_samples):
        # level 0: pairs of clamped leaves
        half = 0
        j = 0
        while j + 1 < n_trees:
            a = keys[i, j]
            b = keys[i, j + 1]
            _cautious_rebuild(
                min(weights[a, 0], weights[b, 0]),
                min(weights[a, 1], weights[b, 1]),
                min(weights[a, 2], weights[b, 2]),
                floor,
                pair,
            )
            for c in range(4):
                work[half, c] = pair[c]
            half += 1
            j += 2
        if j < n_trees:
            for c in range(4):
                work[half, c] = clamped[keys[i, j], c]
            half += 1
        _pairwise_reduce(work, half, floor, pair, True)
        for c in range(4):
            out[i, c] = work[0, c]
    return out


@njit(cache=True, nogil=True)
def evidence_accumulation(counts, smoothing, prior_term):
    """EVA scores (n_samples, K) from leaf counts (n_samples, n_trees, K).

    score_k = sum_t log((c_tk + s) / (N_t + K s)) - (T - 1) prior_term_k,
    with s = ``smoothing`` and N_t the leaf total.
    """
    n_samples, n_trees, n_classes = counts.shape
    out = np.zeros((n_samples, n_classes))
    denominator_extra = n_classes * smoothing
    for i in range(n_samples):
        for t in range(n_trees):
            total = 0.0
            for k in range(n_classes):
                total += counts[i, t, k]
            log_total = math.log(total + denominator_extra)
            for k in range(n_classes):
                out[i, k] += math.log(counts[i, t, k] + smoothing) - log_total
        for k in range(n_classes):
            out[i, k] -= (n_trees - 1) * prior_term[k]
    return out


@njit(cache=True, nogil=True)
def vote_fractions(scores):
    """Per-tree argmax votes (n_samples, n_trees, K) -> vote fractions (n_samples, K); ties split evenly."""
    n_samples, n_trees, n_classes = scores.shape
    out = np.zeros((n_samples, n_classes))
    for i in range(n_samples):
        for t in range(n_trees):
            best = scores[i, t, 0]
            for k in range(1, n_classes):
                if scores[i, t, k] > best:
                    best = scores[i, t, k]
            n_best = 0
            for k in range(n_classes):
                if scores[i, t, k] == best:
                    n_best += 1
            share = 1.0 / n_best
            for k in range(n_classes):
                if scores[i, t, k] == best:
                    out[i, k] += share
        for k in range(n_classes):
            out[i, k] /= n_trees
    return out
