"""Numba kernels that turn count pairs (k successes among n trials) into numbers.

Plain float64 arrays in, plain float64 arrays out; no validation here (the
public layer :mod:`dstk.evidence._counts` validates: finite, 0 <= k <= n).
Nothing is compiled at import time.

Kernels
-------
support_degree(positives, negatives)
    Shaker & Huellermeier's degree of support of the positive class,
    ``sup_theta min(pl(theta), 2 theta - 1)`` with the normalised binomial
    likelihood ``pl``; solved in the log domain (no count rescaling).
plausibility_degrees_kernel(k, n) -> (pi_plus, pi_minus)
plausibility_mass_kernel(k, n) -> (size, 4) masses
regularized_incomplete_beta(a, b, x)
    I_x(a, b) by Lentz's continued fraction (real a, b > 0).
likelihood_masses(k, n) -> (m({0}), m({1}), m(frame))
    Xu et al. (2016) Eqs. 29-32 for one count pair.
likelihood_mass_kernel(k, n) -> (size, 4) masses

Repeated integer count pairs (tree leaves, bins) are computed once: when all
counts are integers and the largest n is small enough for a table of all
pairs (k, n) (``_use_table``), results are memoised in a table indexed by
``n (n + 1) / 2 + k``.
"""

import math

import numpy as np

from dstk._kernels._jit import njit

_LOG2 = math.log(2.0)
_EPSILON = 2.220446049250313e-16
_TINY = 1e-300


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------


@njit(cache=True)
def _xlogy(x, y):
    # x * log(y) with the convention 0 * log(0) = 0
    if x == 0.0:
        return 0.0
    return x * math.log(y)


@njit(cache=True)
def _table_size(k, n):
    """Number of entries of a memo table over all integer pairs, or -1 if not worth it.

    A table is used when every count is an integer and the table of all pairs
    0 <= k <= n <= max(n) has at most max(size / 2, 2**16) entries (so that
    filling it never costs more than the direct computation).
    """
    size = k.shape[0]
    largest = 0.0
    for i in range(size):
        if n[i] != math.floor(n[i]) or k[i] != math.floor(k[i]):
            return -1
        if n[i] > largest:
            largest = n[i]
    if largest > 1e6:
        return -1
    entries = (largest + 1.0) * (largest + 2.0) / 2.0
    if entries > max(size / 2.0, 65536.0):
        return -1
    return int(entries)


@njit(cache=True)
def _table_index(k, n):
    return int(n) * (int(n) + 1) // 2 + int(k)


# ---------------------------------------------------------------------------
# Shaker & Huellermeier degrees of support
# ---------------------------------------------------------------------------


#: Coefficients (-1)^(k + 1) / k of x^k, k = 2, 3, ..., in log(1 + x) - x = sum_k c_k x^k.
_LOG1P_MINUS_SERIES = np.array([(-1.0) ** (k + 1) / k for k in range(2, 20)])


@njit(cache=True)
def _log1p_minus(x):
    """log(1 + x) - x for x > -1, to a few ulps also where the two terms nearly cancel (small |x|).

    For |x| < 0.1 the series x^2 (c_2 + c_3 x + ...), by Horner's rule, with as many terms as leave the
    truncation below 1e-17 of the sum (5 for |x| < 1e-4, 9 below 1e-2, 17 below 0.1).
    """
    magnitude = abs(x)
    if magnitude >= 0.1:
        return math.log1p(x) - x
    terms = 5 if magnitude < 1e-4 else (9 if magnitude < 1e-2 else 17)
    total = 0.0
    for j in range(terms - 1, -1, -1):
        total = total * x + _LOG1P_MINUS_SERIES[j]
    return total * x * x


@njit(cache=True)
def _support_objective(v, positives, negatives, log_mle_likelihood):
    """h(v) = log pl(theta) - v with u = exp(v) = 2 theta - 1, its first two derivatives, and a scale.

    theta = (1 + u) / 2.  With both counts positive, log pl(theta) =
    -n KL(p_hat || theta) is computed from d = theta - p_hat (as (u - (p - q) / n) / 2) as
    p g(d / p_hat) + q g(-d / q_hat), g(x) = log(1 + x) - x (the first-order
    terms cancel exactly), so that its error stays a few ulps of its own size
    at any n (the sum of the two log-likelihoods lost n eps of it); the first
    derivative likewise as -n d (u / 2) / (theta (1 - theta)) - 1.  ``scale``
    bounds the magnitude of the summands, so that 8 eps * scale bounds the
    rounding error of h.
    """
    u = math.exp(v)
    if positives > 0.0:  # (negatives > 0: see support_degree)
        one_minus_u = 1.0 - u
        if one_minus_u <= 0.0:
            return -np.inf, -np.inf, 0.0, abs(v) + 1.0
        n = positives + negatives
        p_hat = positives / n
        q_hat = negatives / n
        theta = 0.5 * (1.0 + u)
        # d = theta - p_hat = (u - (p - q) / n) / 2: (p - q) / n carries one rounding of its own size,
        # where p_hat = p / n would carry eps of p_hat, large next to d when theta is close to p_hat
        d = 0.5 * (u - (positives - negatives) / n)
        log_pl = positives * _log1p_minus(d / p_hat) + negatives * _log1p_minus(-d / q_hat)
        first = -n * d * (0.5 * u) / (theta * (0.5 * one_minus_u)) - 1.0
        second = positives * (u / (1.0 + u)) / (1.0 + u) - negatives * (u / one_minus_u) / one_minus_u
        return log_pl - v, first, second, abs(log_pl) + abs(v) + 1.0
    # no positives (support_degree returns before any call without negatives): p_hat = 0, so
    # log pl(theta) = q log(1 - theta) = q (log(1 - u) - log 2) less log_mle_likelihood (0)
    log_pl = -log_mle_likelihood
    scale = abs(log_mle_likelihood) + abs(v) + 1.0
    one_minus_u = 1.0 - u
    if one_minus_u <= 0.0:
        return -np.inf, -np.inf, 0.0, scale
    term = negatives * (math.log(one_minus_u) - _LOG2)
    log_pl += term
    scale += abs(term)
    ratio = u / one_minus_u
    first = -1.0 - negatives * ratio
    second = 0.0 - negatives * ratio / one_minus_u
    return log_pl - v, first, second, scale


@njit(cache=True)
def support_degree(positives, negatives):
    """Degree of support of the positive class (Shaker & Huellermeier).

    pi(+) = sup_{theta in [0, 1]} min(pl(theta), 2 theta - 1) with
    pl(theta) = theta^p (1 - theta)^q / (p_hat^p (1 - p_hat)^q), p_hat = p / (p + q),
    where p = ``positives`` and q = ``negatives`` (non-negative reals, no
    rescaling).  On [max(p_hat, 1/2), 1] pl decreases and 2 theta - 1 increases,
    so the sup is 2 theta* - 1 at their unique crossing theta*; below p_hat the
    minimum is at most 2 p_hat - 1 <= pi(+).  We solve for v = log(2 theta* - 1)
    the equation h(v) = log pl((1 + e^v) / 2) - v = 0.  On the bracket h is
    strictly decreasing with h' <= -1, so |v - v*| <= |h(v)|: iterations
    (Halley steps, bisection whenever a step leaves the bracket) stop when
    |h| is within the rounding error of its evaluation (about 8 eps times the
    size of the log-likelihood terms), which bounds the relative error of pi.

    Special cases: p + q = 0 gives 1 (pl is identically 1); q = 0 (pure
    positive) gives 1, attained at theta = 1.
    """
    n = positives + negatives
    if n == 0.0 or negatives == 0.0:
        return 1.0
    p_hat = positives / n
    log_mle_likelihood = _xlogy(positives, p_hat) + _xlogy(negatives, 1.0 - p_hat)
    # bracket [v_low, v_high] with h(v_low) > 0 >= h(v_high); h(0) = -inf as q > 0
    v_high = 0.0
    if 2.0 * p_hat - 1.0 > 0.0:
        # at u = 2 p_hat - 1 (theta = p_hat) pl = 1 >= u, so h >= 0
        v_low = math.log(2.0 * p_hat - 1.0)
    else:
        # theta -> 1/2: h -> log pl(1/2) - v -> +inf; start just below log pl(1/2),
        # which is close to the root when pi is small, and step down until h > 0
        log_pl_half = -n * _LOG2 - log_mle_likelihood
        v_low = min(log_pl_half, 0.0) - 1.0
        step = 1.0
        while True:
            h_low, _, _, _ = _support_objective(v_low, positives, negatives, log_mle_likelihood)
            if h_low > 0.0:
                break
            v_high = v_low
            v_low -= step
            step *= 2.0
            if v_low < -746.0:
                return 0.0  # below the smallest subnormal
    v = v_low
    for _ in range(200):
        h, first, second, scale = _support_objective(v, positives, negatives, log_mle_likelihood)
        tolerance = 8.0 * _EPSILON * scale
        if abs(h) <= tolerance:
            if math.isfinite(first) and first < 0.0:
                v -= h / first  # final Newton polish, |correction| <= tolerance
            break
        if h > 0.0:
            v_low = v
        else:
            v_high = v
        v_new = 0.5 * (v_low + v_high)
        if math.isfinite(h) and math.isfinite(first) and first < 0.0:
            denominator = 2.0 * first * first - h * second
            if denominator > 0.0:
                v_new = v - 2.0 * h * first / denominator
            else:
                v_new = v - h / first
            if not (v_low < v_new < v_high):
                v_new = 0.5 * (v_low + v_high)
        if v_high - v_low <= 4.0 * _EPSILON * (1.0 + abs(v)):
            v = 0.5 * (v_low + v_high)
            break
        v = v_new
    return math.exp(v)


# interpreted_max_work (also of plausibility_mass_kernel): rows, Halley iterations of two degrees
# of support each: ~0.1 ms per row interpreted, ~50 ms at the limit, against ~1.4 s to compile on a
# cold start (measured 2026-11-24)
@njit(cache=True, interpreted_max_work=500)
def plausibility_degrees_kernel(k, n):
    """Return ``(pi_plus, pi_minus)`` for 1-D float64 arrays ``k`` (class-1 counts) and ``n`` (totals).

    pi_plus = support_degree(k, n - k), pi_minus = support_degree(n - k, k);
    integer pairs are memoised (pi_minus(k, n) = pi_plus(n - k, n)).
    """
    size = k.shape[0]
    pi_plus = np.empty(size)
    pi_minus = np.empty(size)
    entries = _table_size(k, n)
    if entries > 0:
        table = np.full(entries, -1.0)
        for i in range(size):
            positives = k[i]
            negatives = n[i] - k[i]
            index_plus = _table_index(positives, n[i])
            index_minus = _table_index(negatives, n[i])
            if table[index_plus] < 0.0:
                table[index_plus] = support_degree(positives, negatives)
            if table[index_minus] < 0.0:
                table[index_minus] = support_degree(negatives, positives)
            pi_plus[i] = table[index_plus]
            pi_minus[i] = table[index_minus]
        return pi_plus, pi_minus
    for i in range(size):
        positives = k[i]
        negatives = n[i] - k[i]
        pi_plus[i] = support_degree(positives, negatives)
        pi_minus[i] = support_degree(negatives, positives)
    return pi_plus, pi_minus


@njit(cache=True, interpreted_max_work=500)
def plausibility_mass_kernel(k, n):
    """Binary masses (size, 4) = [m(empty), m({0}), m({1}), m(frame)] from the degrees.

    m({1}) = max(pi+ - pi-, 0), m({0}) = max(pi- - pi+, 0),
    m(frame) = u_a + u_e = (1 - max) + min (Busch et al. 2021, section 3.1.2).
    """
    pi_plus, pi_minus = plausibility_degrees_kernel(k, n)
    size = k.shape[0]
    out = np.zeros((size, 4))
    for i in range(size):
        hi = max(pi_plus[i], pi_minus[i])
        lo = min(pi_plus[i], pi_minus[i])
        difference = pi_plus[i] - pi_minus[i]
        # m(frame) = u_a + u_e = (1 - max) + min: no cancellation when the
        # degrees are 1 and tiny (pure leaves), unlike 1 - |difference|
        frame_mass = (1.0 - hi) + lo
        if difference > 0.0:
            out[i, 2] = difference
        elif difference < 0.0:
            out[i, 1] = -difference
        out[i, 3] = frame_mass
    return out


# ---------------------------------------------------------------------------
# regularised incomplete beta and the likelihood model
# ---------------------------------------------------------------------------


@njit(cache=True)
def _beta_continued_fraction(a, b, x):
    """Continued fraction of I_x(a, b) (modified Lentz), converging fast for x < (a + 1) / (a + b + 2).

    I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) * cf(a, b, x).
    """
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    result = d
    for m in range(1, 100000):
        m2 = 2.0 * m
        coefficient = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + coefficient * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + coefficient / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        result *= d * c
        coefficient = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + coefficient * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + coefficient / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        result *= delta
        if abs(delta - 1.0) <= _EPSILON:
            break
    return result


@njit(cache=True)
def _log_beta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


@njit(cache=True)
def regularized_incomplete_beta(a, b, x):
    """I_x(a, b) = B(x; a, b) / B(a, b) for a, b > 0 and 0 <= x <= 1 (Lentz continued fraction)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log1p(-x) - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


@njit(cache=True)
def _stirling_error(x):
    """log Gamma(x + 1) - [(x + 1/2) log x - x + log(2 pi) / 2] for x > 0 (Loader 2000, Eq. 4).

    The asymptotic series from x = 15 (error below 1e-17), the definition below.
    """
    if x < 15.0:
        return math.lgamma(x + 1.0) - (x + 0.5) * math.log(x) + x - _HALF_LOG_TWO_PI
    r = 1.0 / (x * x)
    return (
        1.0 / 12.0
        - r
        * (1.0 / 360.0 - r * (1.0 / 1260.0 - r * (1.0 / 1680.0 - r * (1.0 / 1188.0 - r * 691.0 / 360360.0))))
    ) / x


@njit(cache=True)
def likelihood_masses(k, n):
    """(m({0}), m({1}), m(frame)) of the likelihood-based predictive mass (Xu et al. 2016, Eqs. 29-32).

    With tau = k / n, a = k + 1, b = n - k + 1 and pl(t) = t^k (1-t)^(n-k) / L(tau):
    m(frame) = int_0^1 pl = B(a, b) / L(tau),
    int_0^tau pl = B(a, b) I_tau(a, b) / L(tau) = tau (1 - tau) cf(a, b, tau) / a,
    int_tau^1 pl = tau (1 - tau) cf(b, a, 1 - tau) / b
    (the continued-fraction prefactor tau^a (1-tau)^b / B(a, b) equals
    tau (1 - tau) / m(frame)); only the rapidly converging side is evaluated
    and the other is m(frame) minus it.  m({1}) = tau - int_0^tau pl,
    m({0}) = 1 - tau - int_tau^1 pl.  m(frame) is evaluated directly, by
    Stirling's formula with its exact error terms (Loader 2000):
    B(a, b) / L(tau) = sqrt(2 pi k (n - k) / n) exp(d(k) + d(n - k) - d(n)) / (n + 1)
    with d the Stirling error of :func:`_stirling_error`; no large logarithms
    cancel, so it keeps full relative accuracy at any n, and swapping k and
    n - k gives the same value bit for bit.  The masses are computed for the
    smaller count and swapped back (tau is then the smaller proportion, with no
    cancellation in 1 - tau), so swapping the classes swaps m({0}) and m({1})
    bit for bit.  Eq. 30: k = 0 gives (n/(n+1), 0, 1/(n+1)),
    k = n gives (0, n/(n+1), 1/(n+1)); n = 0 gives the vacuous (0, 0, 1).
    """
    if k > n - k:
        mass_one, mass_zero, frame = _likelihood_masses_minority(n - k, n)
        return mass_zero, mass_one, frame
    return _likelihood_masses_minority(k, n)


@njit(cache=True)
def _likelihood_masses_minority(k, n):
    """:func:`likelihood_masses` for ``k <= n - k``."""
    if n == 0.0:
        return 0.0, 0.0, 1.0
    if k == 0.0:
        return n / (n + 1.0), 0.0, 1.0 / (n + 1.0)
    if k == n:
        return 0.0, n / (n + 1.0), 1.0 / (n + 1.0)
    tau = k / n
    a = k + 1.0
    b = n - k + 1.0
    rest = n - k
    frame = (
        math.sqrt(2.0 * math.pi * (k * rest / n))
        * math.exp(_stirling_error(k) + _stirling_error(rest) - _stirling_error(n))
        / (n + 1.0)
    )
    if k == rest:  # tau = 1/2: the two singletons share 1 - m(frame) equally
        half = 0.5 * (1.0 - frame)
        return half, half, frame
    spread = tau * (1.0 - tau)
    if tau < (a + 1.0) / (a + b + 2.0):
        # the continued fraction cf(a, b, x) converges fast for x < (a + 1) / (a + b + 2)
        lower = spread * _beta_continued_fraction(a, b, tau) / a
        upper = frame - lower
    else:
        upper = spread * _beta_continued_fraction(b, a, 1.0 - tau) / b
        lower = frame - upper
    mass_one = tau - lower
    mass_zero = 1.0 - tau - upper
    if mass_one < 0.0:
        mass_one = 0.0
    if mass_zero < 0.0:
        mass_zero = 0.0
    return mass_zero, mass_one, frame


# interpreted_max_work: 10 per row + sqrt(n) per row (the continued fraction's terms), 1-4 us per
# unit interpreted, so ~30 ms at the limit, against ~1 s of a cold start to compile the kernel with
# its per-pair functions (numba's start-up included); with compiled per-pair functions
# (compiled_callees), rows: ~20 ms for 10,000 rows against ~0.5 s to compile the loop
@njit(cache=True, interpreted_max_work=10_000)
def likelihood_mass_kernel(k, n):
    """Binary masses (size, 4) = [0, m({0}), m({1}), m(frame)] of the likelihood model; integer pairs memoised."""
    size = k.shape[0]
    out = np.zeros((size, 4))
    entries = _table_size(k, n)
    if entries > 0:
        table = np.full((entries, 3), -1.0)
        for i in range(size):
            index = _table_index(k[i], n[i])
            if table[index, 0] < 0.0:
                table[index, 0], table[index, 1], table[index, 2] = likelihood_masses(k[i], n[i])
            out[i, 1] = table[index, 0]
            out[i, 2] = table[index, 1]
            out[i, 3] = table[index, 2]
        return out
    for i in range(size):
        out[i, 1], out[i, 2], out[i, 3] = likelihood_masses(k[i], n[i])
    return out
