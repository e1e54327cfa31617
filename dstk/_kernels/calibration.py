"""Numba kernels of the calibration layer (plain float64 / int64 arrays in and out).

* :func:`pool_adjacent_violators`: PAV on aggregated (sum of targets, weight) pairs.
* :func:`isotonic_envelope`: monotone envelopes of per-bin Bel and Pl (Xu et al. 2016, Section 4.2).
* :func:`venn_abers_table`: IVAP values p0 / p1 for every insertion slot of a test score.
* :func:`logistic_profile_masses`: predictive masses of the logistic profile-likelihood
  contour (Xu et al. 2016, Eqs. 22-23 and 40), Gauss-Legendre panels on each side of tau_hat.
* :func:`logistic_profile_contour`: the profile contour pl(tau; s) itself (Eq. 40).
* :func:`chebyshev_barycentric`: evaluation of a first-kind Chebyshev interpolant.

Sign convention of Xu et al. (Eq. 2): tau(s) = 1 / (1 + exp(theta_0 + theta_1 s)); the
linear predictor is eta = theta_0 + theta_1 s and tau = expit(-eta).
"""

import math

import numpy as np

from dstk._kernels._jit import njit

__all__ = [
    "pool_adjacent_violators",
    "isotonic_envelope",
    "venn_abers_table",
    "logistic_profile_masses",
    "logistic_profile_contour",
    "chebyshev_barycentric",
    "lookup_masses",
    "GAUSS_LEGENDRE_NODES",
    "GAUSS_LEGENDRE_WEIGHTS",
]

_ORDER = 16
_PANEL_DROP = 6.0
_MAX_WIDTH = 4.0
_ETA_LIMIT = 40.0
GAUSS_LEGENDRE_NODES, GAUSS_LEGENDRE_WEIGHTS = np.polynomial.legendre.leggauss(_ORDER)
# map from [-1, 1] to [0, 1]
_NODES01 = np.ascontiguousarray(0.5 * (GAUSS_LEGENDRE_NODES + 1.0))
_WEIGHTS01 = np.ascontiguousarray(0.5 * GAUSS_LEGENDRE_WEIGHTS)


# ---------------------------------------------------------------------------
# isotonic regression and envelopes
# ---------------------------------------------------------------------------


@njit(cache=True)
def pool_adjacent_violators(sums, weights):
    """Pool-adjacent-violators algorithm (Ayer et al. 1955) for a non-decreasing fit.

    ``sums[i]`` is the sum of the targets and ``weights[i]`` the total weight of the
    i-th (sorted, unique) score.  Adjacent blocks are merged while the mean of the
    left block is >= the mean of the right one, so the returned blocks are the
    maximal constant pieces (level sets) of the isotonic fit.

    Returns ``(starts, block_sums, block_weights)``: ``starts[j]`` is the index of
    the first score of block j (length = number of blocks).
    """
    n = sums.shape[0]
    block_sum = np.empty(n)
    block_weight = np.empty(n)
    block_start = np.empty(n, dtype=np.int64)
    top = 0
    for i in range(n):
        block_sum[top] = sums[i]
        block_weight[top] = weights[i]
        block_start[top] = i
        top += 1
        # merge while mean(top-2) >= mean(top-1): cross-multiplied (weights > 0)
        while (
            top > 1
            and block_sum[top - 2] * block_weight[top - 1] >= block_sum[top - 1] * block_weight[top - 2]
        ):
            block_sum[top - 2] += block_sum[top - 1]
            block_weight[top - 2] += block_weight[top - 1]
            top -= 1
    return block_start[:top].copy(), block_sum[:top].copy(), block_weight[:top].copy()


@njit(cache=True)
def isotonic_envelope(belief, plausibility):
    """Monotone envelopes of per-bin (Bel, Pl) ordered by increasing score.

    Upper envelope: scan upward keeping the highest plausibility so far; lower
    envelope: scan downward keeping the lowest belief so far (Xu et al. 2016,
    Section 4.2).  Returns ``(lower, upper)``; both are non-decreasing and
    ``lower <= belief <= plausibility <= upper``.
    """
    n = belief.shape[0]
    lower = np.empty(n)
    upper = np.empty(n)
    best = -1.0
    for j in range(n):
        if plausibility[j] > best:
            best = plausibility[j]
        upper[j] = best
    best = 2.0
    for j in range(n - 1, -1, -1):
        if belief[j] < best:
            best = belief[j]
        lower[j] = best
    return lower, upper


@njit(cache=True)
def _pav_value_at(sums, weights, position):
    """Isotonic (PAV) fit of (sums, weights) evaluated at index ``position``."""
    starts, block_sums, block_weights = pool_adjacent_violators(sums, weights)
    j = np.searchsorted(starts, position, side="right") - 1
    return block_sums[j] / block_weights[j]


@njit(cache=True)
def venn_abers_table(sums, weights):
    """Inductive Venn-ABERS values for every position of a new score.

    ``sums``/``weights`` aggregate the calibration labels by sorted unique score
    u_0 < ... < u_{K-1}.  A test score either falls strictly between two unique
    scores (slot g = number of unique scores below it, 0..K) or equals u_j.

    Returns ``(gap_p0, gap_p1, tie_p0, tie_p1)`` of lengths K+1, K+1, K, K: the
    isotonic fit at the test point after adding it with label 0 (p0) or 1 (p1)
    (Vovk & Petej 2014, Algorithm 1).
    """
    k = sums.shape[0]
    gap_p0 = np.empty(k + 1)
    gap_p1 = np.empty(k + 1)
    tie_p0 = np.empty(k)
    tie_p1 = np.empty(k)
    extended_sums = np.empty(k + 1)
    extended_weights = np.empty(k + 1)
    for g in range(k + 1):
        for i in range(g):
            extended_sums[i] = sums[i]
            extended_weights[i] = weights[i]
        for i in range(g, k):
            extended_sums[i + 1] = sums[i]
            extended_weights[i + 1] = weights[i]
        extended_weights[g] = 1.0
        extended_sums[g] = 0.0
        gap_p0[g] = _pav_value_at(extended_sums, extended_weights, g)
        extended_sums[g] = 1.0
        gap_p1[g] = _pav_value_at(extended_sums, extended_weights, g)
    tied_sums = sums.copy()
    tied_weights = weights.copy()
    for j in range(k):
        tied_weights[j] = weights[j] + 1.0
        tied_sums[j] = sums[j]
        tie_p0[j] = _pav_value_at(tied_sums, tied_weights, j)
        tied_sums[j] = sums[j] + 1.0
        tie_p1[j] = _pav_value_at(tied_sums, tied_weights, j)
        tied_sums[j] = sums[j]
        tied_weights[j] = weights[j]
    return gap_p0, gap_p1, tie_p0, tie_p1


# ---------------------------------------------------------------------------
# logistic profile likelihood
# ---------------------------------------------------------------------------


@njit(cache=True)
def _line_pass(eta_test, slope, centred, targets):
    """Log-likelihood and derivatives along theta_0 = eta_test - slope * s.

    The linear predictor of calibration point i is eta_i = eta_test + slope * c_i
    with c_i = x_i - s.  Returns (loglik, d/dslope, d2/dslope2, d2/dslope deta, d/deta).
    """
    loglik = 0.0
    gradient = 0.0
    curvature = 0.0
    cross = 0.0
    d_eta = 0.0
    for i in range(centred.shape[0]):
        c = centred[i]
        eta = eta_test + slope * c
        t = targets[i]
        if eta > 0.0:
            e = math.exp(-eta)
            softplus = eta + math.log1p(e)  # log(1 + e^eta)
            tau = e / (1.0 + e)
        else:
            e = math.exp(eta)
            softplus = math.log1p(e)
            tau = 1.0 / (1.0 + e)
        # log tau = -softplus(eta); log(1 - tau) = -softplus(-eta) = eta - softplus(eta)
        loglik -= t * softplus + (1.0 - t) * (softplus - eta)
        residual = tau - t
        w = tau * (1.0 - tau)
        gradient += residual * c
        d_eta += residual
        curvature -= w * c * c
        cross -= w * c
    return loglik, gradient, curvature, cross, d_eta


@njit(cache=True)
def _profile_at(eta_test, slope, centred, targets):
    """Maximise the log-likelihood over the slope on the line (Newton, step halving).

    Stops once the Newton decrement gradient^2 / |curvature| (twice the
    predicted remaining gain in log-likelihood) is below 1e-15 (1 + |loglik|).
    Returns (profile loglik, argmax slope, d profile / d eta, d slope*/d eta).
    """
    loglik, gradient, curvature, cross, d_eta = _line_pass(eta_test, slope, centred, targets)
    for _ in range(100):
        if curvature >= 0.0:  # all calibration scores equal the test score: flat in slope
            break
        step = -gradient / curvature
        if gradient * step < 1e-15 * (1.0 + abs(loglik)):
            break
        scale = 1.0
        accepted = False
        for _ in range(60):
            candidate = slope + scale * step
            new = _line_pass(eta_test, candidate, centred, targets)
            if new[0] >= loglik - 1e-13 * (1.0 + abs(loglik)):
                slope = candidate
                loglik, gradient, curvature, cross, d_eta = new
                accepted = True
                break
            scale *= 0.5
        if not accepted:
            break
    derivative_slope = -cross / curvature if curvature < 0.0 else 0.0
    return loglik, slope, d_eta, derivative_slope


@njit(cache=True)
def _expit(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(cache=True)
def _side_integral(
    eta_hat, sigma, direction, slope_hat, slope_per_eta, centred, targets, max_loglik, nodes, weights
):
    """int pl(eta) tau(eta) (1 - tau(eta)) d eta from eta_hat toward direction * infinity.

    Adaptive panels of Gauss-Legendre nodes: the first panel is sigma wide, each
    next one at most twice as wide and at most _PANEL_DROP / |d log pl / d eta|
    wide (log pl is concave in eta, so it drops by at least that much); stops
    once log pl < -32 or eta is beyond 40 (in the direction of integration) at
    a panel end; panels are at most 4 wide (tau (1 - tau) varies on a unit
    scale) and a start beyond -40 on the other side is moved to -40.  The neglected tail is below
    1.3e-14: pl is below its value at the panel end (unimodal) and
    tau (1 - tau) integrates to at most 1 (to at most exp(-40) beyond |eta| = 40).
    """
    total = 0.0
    start = eta_hat
    slope_start = slope_hat
    if direction * start > _ETA_LIMIT:
        # heading away from eta = 0 beyond the limit: tau (1 - tau) integrates to < exp(-40)
        return 0.0
    if direction * start < -_ETA_LIMIT:
        # far on the other side: skip to -direction * limit (the skipped part is < exp(-40))
        start = -direction * _ETA_LIMIT
        # start Newton at the maximiser of the quadratic (normal) approximation on the line
        guess = slope_hat + slope_per_eta * (start - eta_hat)
        loglik, slope_start, d_eta, derivative_slope = _profile_at(start, guess, centred, targets)
    width = sigma
    if width > _MAX_WIDTH:
        width = _MAX_WIDTH
    order = nodes.shape[0]
    for _ in range(400):
        end = start + direction * width
        slope = slope_start
        previous = start
        derivative_slope = 0.0
        for q in range(order):
            eta = start + direction * width * nodes[q]
            slope = slope + derivative_slope * (eta - previous)
            loglik, slope, d_eta, derivative_slope = _profile_at(eta, slope, centred, targets)
            previous = eta
            log_pl = loglik - max_loglik
            if log_pl > 0.0:
                log_pl = 0.0
            tau = _expit(-eta)
            total += width * weights[q] * math.exp(log_pl) * tau * (1.0 - tau)
        slope = slope + derivative_slope * (end - previous)
        loglik, slope, d_eta, derivative_slope = _profile_at(end, slope, centred, targets)
        log_pl = loglik - max_loglik
        if log_pl < -32.0 or direction * end > _ETA_LIMIT:
            break
        gradient = abs(d_eta)
        new_width = 2.0 * width
        if gradient > 0.0 and _PANEL_DROP / gradient < new_width:
            new_width = _PANEL_DROP / gradient
        if new_width < 0.25 * sigma:
            new_width = 0.25 * sigma
        if new_width > _MAX_WIDTH:  # resolve tau (1 - tau), which varies on a unit scale
            new_width = _MAX_WIDTH
        width = new_width
        start = end
        slope_start = slope
    return total


@njit(cache=True)
def logistic_profile_masses(test_scores, calibration_scores, targets, theta, covariance, max_loglik):
    """Predictive masses (N, 4) of the profile-likelihood contour at each test score.

    For a test score s: eta_hat = theta_0 + theta_1 s, tau_hat = expit(-eta_hat),
    sigma = sqrt(a' C a) with a = (1, s) (the normal-approximation standard error,
    used only to size the first panel).  With pl(eta) the profile contour
    (Eq. 40 written in eta = ln(1/tau - 1)),

        m({1}) = tau_hat - int_0^tau_hat pl = tau_hat - int_eta_hat^inf pl tau (1 - tau) d eta
        m({0}) = 1 - tau_hat - int_tau_hat^1 pl = 1 - tau_hat - int_-inf^eta_hat pl tau (1 - tau) d eta

    (Eqs. 22c, 23c after the change of variable tau = 1 / (1 + e^eta)).
    """
    n_test = test_scores.shape[0]
    out = np.zeros((n_test, 4))
    nodes = _NODES01
    weights = _WEIGHTS01
    centred = np.empty(calibration_scores.shape[0])
    for j in range(n_test):
        s = test_scores[j]
        for i in range(calibration_scores.shape[0]):
            centred[i] = calibration_scores[i] - s
        eta_hat = theta[0] + theta[1] * s
        variance = covariance[0, 0] + 2.0 * s * covariance[0, 1] + s * s * covariance[1, 1]
        sigma = math.sqrt(variance) if variance > 1e-30 else 1e-15
        # on the line theta_0 + theta_1 s = eta the normal approximation is maximal at
        # theta_1 = theta_1_hat + (C a)_1 (eta - eta_hat) / (a' C a), a = (1, s)
        slope_per_eta = (covariance[1, 0] + s * covariance[1, 1]) / variance if variance > 1e-30 else 0.0
        if sigma < 1e-6:
            sigma = 1e-6
        tau_hat = _expit(-eta_hat)
        # integral over tau in [0, tau_hat] <-> eta in [eta_hat, +inf)
        left = _side_integral(
            eta_hat, sigma, 1.0, theta[1], slope_per_eta, centred, targets, max_loglik, nodes, weights
        )
        right = _side_integral(
            eta_hat, sigma, -1.0, theta[1], slope_per_eta, centred, targets, max_loglik, nodes, weights
        )
        mass_one = tau_hat - left
        mass_zero = (1.0 - tau_hat) - right
        if mass_one < 0.0:
            mass_one = 0.0
        if mass_zero < 0.0:
            mass_zero = 0.0
        out[j, 1] = mass_zero
        out[j, 2] = mass_one
        out[j, 3] = 1.0 - mass_zero - mass_one
    return out


@njit(cache=True)
def logistic_profile_contour(score, taus, calibration_scores, targets, theta, covariance, max_loglik):
    """Profile contour pl(tau; s) of Eq. 40 at each tau (0 at tau in {0, 1}, Eq. 35)."""
    out = np.zeros(taus.shape[0])
    centred = calibration_scores - score
    eta_hat = theta[0] + theta[1] * score
    variance = covariance[0, 0] + 2.0 * score * covariance[0, 1] + score * score * covariance[1, 1]
    slope_per_eta = (covariance[1, 0] + score * covariance[1, 1]) / variance if variance > 1e-30 else 0.0
    for j in range(taus.shape[0]):
        tau = taus[j]
        if tau <= 0.0 or tau >= 1.0:
            out[j] = 0.0
            continue
        eta = math.log1p(-tau) - math.log(tau)  # ln(1/tau - 1)
        guess = theta[1] + slope_per_eta * (eta - eta_hat)
        loglik, _slope, _d_eta, _derivative_slope = _profile_at(eta, guess, centred, targets)
        log_pl = loglik - max_loglik
        out[j] = math.exp(log_pl) if log_pl < 0.0 else 1.0
    return out


@njit(cache=True)
def chebyshev_barycentric(t, nodes, values):
    """Barycentric evaluation of the interpolant through first-kind Chebyshev nodes.

    ``nodes[j] = cos((2j + 1) pi / (2N))``, barycentric weights
    ``(-1)^j sin((2j + 1) pi / (2N))`` (Berrut & Trefethen 2004).  ``values`` has
    shape (N, K); returns (len(t), K).
    """
    n = nodes.shape[0]
    k = values.shape[1]
    out = np.empty((t.shape[0], k))
    bary = np.empty(n)
    for j in range(n):
        sign = 1.0 if j % 2 == 0 else -1.0
        bary[j] = sign * math.sin((2.0 * j + 1.0) * math.pi / (2.0 * n))
    for i in range(t.shape[0]):
        x = t[i]
        exact = -1
        for j in range(n):
            if x == nodes[j]:
                exact = j
                break
        if exact >= 0:
            for c in range(k):
                out[i, c] = values[exact, c]
            continue
        denominator = 0.0
        for c in range(k):
            out[i, c] = 0.0
        for j in range(n):
            factor = bary[j] / (x - nodes[j])
            denominator += factor
            for c in range(k):
                out[i, c] += factor * values[j, c]
        for c in range(k):
            out[i, c] /= denominator
    return out


@njit(cache=True)
def lookup_masses(scores, thresholds, table):
    """Row of ``table`` of each score's bin: bin j holds thresholds[j-1] < s <= thresholds[j].

    Same result as ``table[np.searchsorted(thresholds, scores, side="left")]``,
    fused into one pass (binary search per score).
    """
    n = scores.shape[0]
    k = table.shape[1]
    m = thresholds.shape[0]
    out = np.empty((n, k))
    for i in range(n):
        s = scores[i]
        low = 0
        high = m
        while low < high:  # first index with thresholds[index] >= s
            middle = (low + high) >> 1
            if thresholds[middle] < s:
                low = middle + 1
            else:
                high = middle
        for c in range(k):
            out[i, c] = table[low, c]
    return out
