"""Numba kernels that turn count pairs (k successes among n trials) into numbers.

Plain float64 arrays in, plain float64 arrays out; no validation here (the
public layer :mod:`dstk.evidence.counts` validates).  Nothing is compiled at
import time.

Kernels
-------
support_degree(positives, negatives)
    Shaker & Huellermeier's degree of support of the positive class,
    ``sup_theta min(pl(theta), 2 theta - 1)`` with the normalised binomial
    likelihood ``pl``; solved exactly (to rounding) in the log domain.
plausibility_degrees_kernel(k, n)
    ``(pi_plus, pi_minus)`` for 1-D arrays of counts.
plausibility_mass_kernel(k, n, out)
    The binary mass ``[0, m(-), m(+), m(frame)]`` built from the two degrees.
"""

import math

import numpy as np
from numba import njit

_LOG2 = math.log(2.0)


@njit(cache=True)
def _xlogy(x, y):
    # x * log(y) with the convention 0 * log(0) = 0
    if x == 0.0:
        return 0.0
    return x * math.log(y)


@njit(cache=True)
def _support_objective(v, positives, negatives, log_mle_likelihood):
    """h(v) = log pl(theta) - v with u = exp(v) = 2 theta - 1; and dh/dv.

    theta = (1 + u) / 2, so log theta = log1p(u) - log 2 and
    log(1 - theta) = log(-expm1(v)) - log 2 (accurate when u is near 1).
    """
    u = math.exp(v)
    log_pl = -log_mle_likelihood
    derivative = -1.0
    if positives > 0.0:
        log_pl += positives * (math.log1p(u) - _LOG2)
        derivative += positives * u / (1.0 + u)
    if negatives > 0.0:
        one_minus_u = -math.expm1(v)
        if one_minus_u <= 0.0:
            return -np.inf, -np.inf
        log_pl += negatives * (math.log(one_minus_u) - _LOG2)
        derivative -= negatives * u / one_minus_u
    return log_pl - v, derivative


@njit(cache=True)
def support_degree(positives, negatives):
    """Degree of support of the positive class (Shaker & Huellermeier).

    pi(+) = sup_{theta in [0, 1]} min(pl(theta), 2 theta - 1) with
    pl(theta) = theta^p (1 - theta)^q / (p_hat^p (1 - p_hat)^q), p_hat = p / (p + q),
    where p = ``positives`` and q = ``negatives`` (non-negative reals, no
    rescaling).  On [max(p_hat, 1/2), 1] pl decreases and 2 theta - 1 increases,
    so the sup is 2 theta* - 1 at their unique crossing theta*.  We solve for
    v = log(2 theta* - 1) the equation h(v) = log pl((1 + e^v) / 2) - v = 0;
    h is strictly decreasing in v, and we use Newton steps safeguarded by a
    bracket (bisection whenever Newton leaves it), so the result has relative
    accuracy close to machine precision even when pi is tiny (e.g. 1e-200).

    Special cases: p + q = 0 gives 1 (pl is identically 1); q = 0 (pure
    positive) gives 1, attained at theta = 1.
    """
    n = positives + negatives
    if n == 0.0 or negatives == 0.0:
        return 1.0
    p_hat = positives / n
    log_mle_likelihood = _xlogy(positives, p_hat) + _xlogy(negatives, 1.0 - p_hat)
    # upper end of the bracket: u = 1 (theta = 1), where h = -inf because q > 0
    v_high = 0.0
    # lower end: u = 2 p_hat - 1 if positive (there pl = 1 >= u, so h >= 0)
    if 2.0 * p_hat - 1.0 > 0.0:
        v_low = math.log(2.0 * p_hat - 1.0)
        h_low, _ = _support_objective(v_low, positives, negatives, log_mle_likelihood)
        if h_low == 0.0:
            return 2.0 * p_hat - 1.0
    else:
        # theta -> 1/2: h -> log pl(1/2) - v -> +inf; step down until h > 0
        # the root is close to log pl(1/2) when pi is small; start just below it
        log_pl_half = -n * _LOG2 - log_mle_likelihood
        v_low = min(log_pl_half, 0.0) - 1.0
        step = 1.0
        while True:
            h_low, _ = _support_objective(v_low, positives, negatives, log_mle_likelihood)
            if h_low > 0.0:
                break
            v_high = v_low
            v_low -= step
            step *= 2.0
            if v_low < -745.0:
                # pi below the smallest subnormal: report 0
                return 0.0
    # initial point: the lower end (h > 0 there)
    v = v_low
    h, dh = _support_objective(v, positives, negatives, log_mle_likelihood)
    for _ in range(200):
        if h > 0.0:
            v_low = v
        else:
            v_high = v
        if dh < 0.0 and np.isfinite(dh) and np.isfinite(h):
            v_new = v - h / dh
        else:
            v_new = 0.5 * (v_low + v_high)
        if not (v_low < v_new < v_high):
            v_new = 0.5 * (v_low + v_high)
        if abs(v_new - v) <= 1e-15 * (1.0 + abs(v)) or v_high - v_low <= 1e-15 * (1.0 + abs(v)):
            v = v_new
            break
        v = v_new
        h, dh = _support_objective(v, positives, negatives, log_mle_likelihood)
        if h == 0.0:
            break
    return math.exp(v)


@njit(cache=True)
def plausibility_degrees_kernel(k, n):
    """Return ``(pi_plus, pi_minus)`` for 1-D float64 arrays ``k`` (class-1 counts) and ``n`` (totals).

    pi_plus = support_degree(k, n - k), pi_minus = support_degree(n - k, k).
    """
    size = k.shape[0]
    pi_plus = np.empty(size)
    pi_minus = np.empty(size)
    for i in range(size):
        positives = k[i]
        negatives = n[i] - k[i]
        pi_plus[i] = support_degree(positives, negatives)
        pi_minus[i] = support_degree(negatives, positives)
    return pi_plus, pi_minus


@njit(cache=True)
def plausibility_mass_kernel(k, n):
    """Binary masses (size, 4) = [m(empty), m({0}), m({1}), m(frame)] from the degrees.

    m({1}) = max(pi+ - pi-, 0), m({0}) = max(pi- - pi+, 0),
    m(frame) = u_a + u_e = 1 - |pi+ - pi-| (Busch et al. 2021, section 3.1.2).
    """
    size = k.shape[0]
    out = np.zeros((size, 4))
    for i in range(size):
        positives = k[i]
        negatives = n[i] - k[i]
        pi_plus = support_degree(positives, negatives)
        pi_minus = support_degree(negatives, positives)
        difference = pi_plus - pi_minus
        if difference > 0.0:
            out[i, 2] = difference
            out[i, 3] = 1.0 - difference
        elif difference < 0.0:
            out[i, 1] = -difference
            out[i, 3] = 1.0 + difference
        else:
            out[i, 3] = 1.0
    return out
