"""Numba kernels: coupling binary probabilities into class probabilities (Zadrozny 2001).

Minimises ``sum_b n_b KL(r_b || mu_b)`` with
``mu_b = sum_{k in K_b+} p_k / sum_{k in K_b+ or K_b-} p_k`` one sample at a
time (the samples are independent):

* :func:`couple`: multiplicative fixed-point updates for any code matrix,
  either Zadrozny's (2001) generalisation of Hastie & Tibshirani (1998) or
  the generalised Bradley-Terry minorise-maximise update of Huang, Weng &
  Lin (2006, JMLR 7, Algorithm 2), whose fixed points are exactly the
  stationary points of the KL objective; accelerated by SQUAREM
  (Varadhan & Roland 2008, scheme S3) with a monotonicity safeguard: an
  extrapolated step is kept only if it does not increase the objective,
  otherwise the plain double update is used, so every accepted iterate is at
  least as good as the plain algorithm's.
* :func:`couple_one_vs_rest`: the exact solution when every class is alone
  against all others (``mu_b = p_b``): the Lagrange conditions
  ``n_b (p_b - r_b) + lambda p_b (1 - p_b) = 0`` give ``p_b(lambda)`` in closed
  form and ``lambda`` is the root of ``sum_b p_b(lambda) = 1`` (safeguarded
  Newton on a monotone function).
"""

import numpy as np
from numba import prange

from dstk._kernels._jit import njit

__all__ = ["couple", "couple_one_vs_rest"]


@njit(cache=True)
def _structure(code):
    K, B = code.shape
    start = np.zeros(B + 1, dtype=np.int64)
    for b in range(B):
        count = 0
        for k in range(K):
            if code[k, b] != 0:
                count += 1
        start[b + 1] = start[b] + count
    members = np.empty(start[B], dtype=np.int64)
    signs = np.empty(start[B], dtype=np.int8)
    for b in range(B):
        j = start[b]
        for k in range(K):
            if code[k, b] != 0:
                members[j] = k
                signs[j] = code[k, b]
                j += 1
    return start, members, signs


@njit(cache=True)
def _update(p, out, numerator, denominator, mu, start, members, signs, weights, rates_row, method):
    """One multiplicative update p -> out (normalised); returns max |out - p|.

    method 0 (Zadrozny 2001): p_k * [sum_{b: k+} n_b r_b + sum_{b: k-} n_b (1 - r_b)]
                                  / [sum_{b: k+} n_b mu_b + sum_{b: k-} n_b (1 - mu_b)]
    (the numerator is precomputed in ``numerator``).
    method 2 (a pairwise code, every task opposing two classes, its positive class first in
    ``members``): ``W_k / sum_{b: k in b} n_b / (p_i + p_j)`` with ``W_k`` = that precomputed
    numerator; methods 0 and 1 both reduce to it on such codes (``n_b r_b / p_i * p_i``: Hastie &
    Tibshirani's update), with one division per task instead of three.
    method 1 (Huang, Weng & Lin 2006, generalised Bradley-Terry):
        p_k * [sum_{b: k+} n_b r_b / S+_b + sum_{b: k-} n_b (1 - r_b) / S-_b] / [sum_{b: k in b} n_b / S_b].
    """
    B = start.shape[0] - 1
    K = p.shape[0]
    for k in range(K):
        denominator[k] = 0.0
        if method == 1:
            numerator[k] = 0.0
    if method == 2:
        for b in range(B):
            i = members[2 * b]
            j = members[2 * b + 1]
            d = weights[b] / (p[i] + p[j])
            denominator[i] += d
            denominator[j] += d
    else:
        for b in range(B):
            sp = 0.0
            st = 0.0
            for j in range(start[b], start[b + 1]):
                v = p[members[j]]
                st += v
                if signs[j] > 0:
                    sp += v
            w = weights[b]
            if method == 0:
                m = sp / st
                mu[b] = m
                for j in range(start[b], start[b + 1]):
                    if signs[j] > 0:
                        denominator[members[j]] += w * m
                    else:
                        denominator[members[j]] += w * (1.0 - m)
            else:
                r = rates_row[b]
                sn = st - sp
                a_pos = w * r / sp if sp > 0.0 else 0.0
                a_neg = w * (1.0 - r) / sn if sn > 0.0 else 0.0
                d = w / st
                for j in range(start[b], start[b + 1]):
                    k = members[j]
                    denominator[k] += d
                    if signs[j] > 0:
                        numerator[k] += a_pos
                    else:
                        numerator[k] += a_neg
    total = 0.0
    for k in range(K):
        if method == 2:
            out[k] = numerator[k] / denominator[k]
        elif denominator[k] > 0.0:
            out[k] = p[k] * numerator[k] / denominator[k]
        else:
            out[k] = p[k]
        total += out[k]
    change = 0.0
    for k in range(K):
        out[k] /= total
        d = abs(out[k] - p[k])
        if d > change:
            change = d
    return change


@njit(cache=True)
def _squarem(
    p,
    numerator,
    denominator,
    mu,
    p1,
    p2,
    cand,
    tmp,
    start,
    members,
    signs,
    weights,
    rates_row,
    method,
    K,
    max_iter,
    tol,
):
    """SQUAREM cycles from ``p`` (updated in place); returns (cycles, converged)."""
    it = 0
    while it < max_iter:
        it += 1
        residual = _update(
            p, p1, numerator, denominator, mu, start, members, signs, weights, rates_row, method
        )
        if residual <= tol:
            for k in range(K):
                p[k] = p1[k]
            return it, True
        _update(p1, p2, numerator, denominator, mu, start, members, signs, weights, rates_row, method)
        # SQUAREM S3 step length
        rr = 0.0
        vv = 0.0
        for k in range(K):
            r_k = p1[k] - p[k]
            v_k = p2[k] - 2.0 * p1[k] + p[k]
            rr += r_k * r_k
            vv += v_k * v_k
        use_plain = True
        if vv > 0.0:
            alpha = -np.sqrt(rr / vv)
            if alpha > -1.0:
                alpha = -1.0
            positive = True
            total = 0.0
            for k in range(K):
                r_k = p1[k] - p[k]
                v_k = p2[k] - 2.0 * p1[k] + p[k]
                cand[k] = p[k] - 2.0 * alpha * r_k + alpha * alpha * v_k
                if not cand[k] > 0.0:
                    positive = False
                total += cand[k]
            if positive:
                for k in range(K):
                    cand[k] /= total
                # stabilising update; keep the extrapolation only if its fixed-point residual is
                # below the residual at the start of the cycle
                cand_residual = _update(
                    cand, tmp, numerator, denominator, mu, start, members, signs, weights, rates_row, method
                )
                if cand_residual <= residual:
                    for k in range(K):
                        p[k] = tmp[k]
                    use_plain = False
        if use_plain:
            for k in range(K):
                p[k] = p2[k]
    # final check of the residual
    residual = _update(p, p1, numerator, denominator, mu, start, members, signs, weights, rates_row, method)
    for k in range(K):
        p[k] = p1[k]
    return it, residual <= tol


@njit(cache=True)
def _couple_row(rates_row, start, members, signs, weights, K, max_iter, tol, p, buffers, method, pairwise):
    B = start.shape[0] - 1
    numerator = buffers[0]
    denominator = buffers[1]
    p1 = buffers[2]
    p2 = buffers[3]
    cand = buffers[4]
    tmp = buffers[5]
    win_rate_start = buffers[6]
    inverse_sum = cand  # scratch for the pairwise start, overwritten by the iterations
    pair_count = tmp
    mu = np.empty(B)
    for k in range(K):
        numerator[k] = 0.0
        denominator[k] = 0.0
    for b in range(B):
        w = weights[b]
        r = rates_row[b]
        for j in range(start[b], start[b + 1]):
            denominator[members[j]] += w
            if signs[j] > 0:
                numerator[members[j]] += w * r
            else:
                numerator[members[j]] += w * (1.0 - r)
    # start from the normalised mean "win rate" of each class (a voting-type estimate), usually
    # much closer to the solution than the uniform vector
    total = 0.0
    for k in range(K):
        win_rate_start[k] = numerator[k] / denominator[k] if denominator[k] > 0.0 else 1.0
        if not win_rate_start[k] > 1e-12:
            win_rate_start[k] = 1e-12
        total += win_rate_start[k]
    for k in range(K):
        win_rate_start[k] /= total
    it = 0
    pairwise_budget = min(50, max_iter // 2)
    if pairwise and pairwise_budget > 0:
        # every task opposes two single classes: start from the non-iterative estimate of Price,
        # Knerr, Personnaz & Dreyfus (1995), p_k ∝ 1 / (sum_{j} 1 / r_kj - (c_k - 1)) over the c_k
        # pairs (k, j) involving k (Hastie & Tibshirani 1998, Sec. 4; Wu, Lin & Weng 2004, Eq. 5);
        # exact when the r_kj are consistent, so the fixed-point iteration starts close to the solution
        for k in range(K):
            inverse_sum[k] = 0.0
            pair_count[k] = 0.0
        for b in range(B):
            r = rates_row[b]
            for j in range(start[b], start[b + 1]):
                k = members[j]
                inverse_sum[k] += 1.0 / r if signs[j] > 0 else 1.0 / (1.0 - r)
                pair_count[k] += 1.0
        total = 0.0
        for k in range(K):
            p[k] = 1.0 / (inverse_sum[k] - (pair_count[k] - 1.0))
            total += p[k]
        for k in range(K):
            p[k] /= total
        # a few rows with near-zero probabilities converge slowly from this start: give it a short
        # budget (at most half of max_iter), then fall back to the win-rate start below
        it, ok = _squarem(
            p,
            numerator,
            denominator,
            mu,
            p1,
            p2,
            cand,
            tmp,
            start,
            members,
            signs,
            weights,
            rates_row,
            method,
            K,
            pairwise_budget,
            tol,
        )
        if ok:
            return it, ok
    for k in range(K):
        p[k] = win_rate_start[k]
    more, ok = _squarem(
        p,
        numerator,
        denominator,
        mu,
        p1,
        p2,
        cand,
        tmp,
        start,
        members,
        signs,
        weights,
        rates_row,
        method,
        K,
        max_iter - it,
        tol,
    )
    return it + more, ok


@njit(cache=True, parallel=True)
def couple(rates, code, task_weights, max_iter, tol, method):
    """Couple binary probabilities row by row (any code matrix).

    Parameters
    ----------
    rates : ndarray of shape (N, B)
        ``r_b`` already clipped into ``(0, 1)``.
    code : ndarray of shape (K, B), int8
    task_weights : ndarray of shape (B,)
        ``n_b``.
    max_iter : int
        Cap on accelerated cycles (each costs three or four plain updates).
    tol : float
        Converged when one plain update changes no probability by more
        than ``tol`` (the fixed-point residual).
    method : int
        0: Zadrozny's update; 1: Huang-Weng-Lin generalised Bradley-Terry
        update (a minorise-maximise step for the KL objective).  For a
        pairwise code (every task opposes two single classes, e.g. all
        pairs) both are Hastie & Tibshirani's update, computed in its
        one-division form whichever is asked.

    Returns
    -------
    probabilities : ndarray of shape (N, K)
    n_iter : ndarray of shape (N,), int64
    converged : ndarray of shape (N,), bool
    """
    N = rates.shape[0]
    K = code.shape[0]
    start, members, signs = _structure(code)
    # pairwise code: every task has exactly one positive and one negative class (_structure keeps
    # only the non-zero entries, so two members per task)
    pairwise = True
    for b in range(start.shape[0] - 1):
        if start[b + 1] - start[b] != 2:
            pairwise = False
    if pairwise:
        # the update of both methods for pairwise codes (method 2), with each task's positive class first
        method = 2
        for b in range(start.shape[0] - 1):
            if signs[start[b]] < 0:
                k = members[start[b]]
                members[start[b]] = members[start[b] + 1]
                members[start[b] + 1] = k
                signs[start[b]] = 1
                signs[start[b] + 1] = -1
    out = np.empty((N, K))
    n_iter = np.zeros(N, dtype=np.int64)
    converged = np.zeros(N, dtype=np.bool_)
    n_chunks = 64 if N >= 64 else N
    for c in prange(n_chunks):
        lo = c * N // n_chunks
        hi = (c + 1) * N // n_chunks
        buffers = np.empty((7, K))
        p = np.empty(K)
        for i in range(lo, hi):
            it, ok = _couple_row(
                rates[i], start, members, signs, task_weights, K, max_iter, tol, p, buffers, method, pairwise
            )
            for k in range(K):
                out[i, k] = p[k]
            n_iter[i] = it
            converged[i] = ok
    return out, n_iter, converged


@njit(cache=True)
def _ovr_probability(lam, n, r):
    # root in (0, 1) of n (p - r) + lam p (1 - p) = 0, i.e. (a - sqrt(D)) / (2 lam) with a = lam + n and
    # D = a^2 - 4 lam n r, in the form with no cancellation: 2 n r / (a + sqrt(D)) for a >= 0, the
    # quotient itself for a < 0 (then lam < -n < 0 and a - sqrt(D) is a sum of two negative terms)
    a = lam + n
    root = np.sqrt(a * a - 4.0 * lam * n * r)
    if a >= 0.0:
        return 2.0 * n * r / (a + root)
    return (a - root) / (2.0 * lam)


@njit(cache=True)
def _ovr_sum(lam, weights, rates_row):
    s = 0.0
    ds = 0.0
    for b in range(rates_row.shape[0]):
        n = weights[b]
        p = _ovr_probability(lam, n, rates_row[b])
        s += p
        ds += -p * (1.0 - p) / (n + lam * (1.0 - 2.0 * p))
    return s, ds


@njit(cache=True, parallel=True)
def couple_one_vs_rest(rates, task_weights, max_iter, tol):
    """Exact coupling for one-against-rest codes (column ``b`` = class ``b`` against the rest).

    Parameters
    ----------
    rates : ndarray of shape (N, K)
        ``r_b`` already clipped into ``(0, 1)``; column ``b`` is class ``b``.
    task_weights : ndarray of shape (K,)
    max_iter : int
        Cap on root-finding iterations.
    tol : float
        Tolerance on ``|sum_b p_b - 1|``.

    Returns
    -------
    probabilities : ndarray of shape (N, K)
    n_iter : ndarray of shape (N,), int64
    converged : ndarray of shape (N,), bool
    """
    N, K = rates.shape
    out = np.empty((N, K))
    n_iter = np.zeros(N, dtype=np.int64)
    converged = np.zeros(N, dtype=np.bool_)
    for i in prange(N):
        row = rates[i]
        s0, _ = _ovr_sum(0.0, task_weights, row)
        # bracket: g(lam) = sum p_b(lam) - 1 is decreasing in lam
        lo = 0.0
        hi = 0.0
        step = 1.0
        for b in range(K):
            step = max(step, task_weights[b])
        if s0 > 1.0:
            hi = step
            while _ovr_sum(hi, task_weights, row)[0] > 1.0:
                lo = hi
                hi *= 2.0
        else:
            lo = -step
            while _ovr_sum(lo, task_weights, row)[0] < 1.0:
                hi = lo
                lo *= 2.0
        lam = 0.5 * (lo + hi)
        ok = False
        it = 0
        while it < max_iter:
            it += 1
            s, ds = _ovr_sum(lam, task_weights, row)
            g = s - 1.0
            if abs(g) <= tol:
                ok = True
                break
            if g > 0.0:
                lo = lam
            else:
                hi = lam
            new = lam - g / ds if ds < 0.0 else 0.5 * (lo + hi)
            if not (lo < new < hi):
                new = 0.5 * (lo + hi)
            lam = new
        total = 0.0
        for b in range(K):
            out[i, b] = _ovr_probability(lam, task_weights[b], row[b])
            total += out[i, b]
        for b in range(K):
            out[i, b] /= total
        n_iter[i] = it
        converged[i] = ok
    return out, n_iter, converged
