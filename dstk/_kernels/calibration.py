"""Numba kernels of the calibration layer (plain float64 / int64 arrays in and out).

* :func:`pool_adjacent_violators`: PAV on aggregated (sum of targets, weight) pairs.
* :func:`isotonic_envelope`: monotone envelopes of per-bin Bel and Pl (Xu et al. 2016, Section 4.2).
* :func:`venn_abers_table`: IVAP values p0 / p1 for every insertion slot of a test score.
* :func:`logistic_profile_masses`: predictive masses of the logistic profile-likelihood
  contour (Xu et al. 2016, Eqs. 22-23 and 40), Gauss-Legendre panels on each side of tau_hat.
* :func:`logistic_profile_log_contour`: the log profile contour log pl(eta; s) itself (Eq. 40).
* :func:`logistic_profile_grid`: the profile log-likelihood in whitened parameters on a grid of
  directions and distances (one table for every test score).
* :func:`logistic_grid_masses`: the predictive masses from the Chebyshev series of that table.
* :func:`chebyshev_clenshaw`: evaluation of Chebyshev series (Clenshaw's recurrence).
* :func:`gauss_compress`: Gauss rules of runs of weighted points (compressed likelihoods), by the
  Lanczos recurrence in numpy (not a numba kernel: nothing to compile on a cold start).

Sign convention of Xu et al. (Eq. 2): tau(s) = 1 / (1 + exp(theta_0 + theta_1 s)); the
linear predictor is eta = theta_0 + theta_1 s and tau = expit(-eta).
"""

import math

import numpy as np

from dstk._kernels import _buffers
from dstk._kernels._jit import call_kernel, njit

__all__ = [
    "pool_adjacent_violators",
    "isotonic_envelope",
    "venn_abers_table",
    "logistic_profile_masses",
    "logistic_profile_log_contour",
    "logistic_profile_grid",
    "logistic_grid_masses",
    "chebyshev_clenshaw",
    "gauss_compress",
    "lookup_masses",
    "table_lookup",
    "GAUSS_LEGENDRE_NODES",
    "GAUSS_LEGENDRE_WEIGHTS",
]

_ORDER = 12

# Interpretation budgets (``interpreted_max_work`` on the decorators, see dstk._kernels._jit): the
# largest work (the caller's count of inner-loop steps, stated above each kernel) of a call that
# call_kernel runs interpreted rather than compiled: milliseconds for a small input where compiling
# the kernel takes tenths of seconds to seconds of a cold start (measured 2026-11-24).

_PANEL_DROP = 12.0
# Newton decrement below which the profile grid takes the quadratic prediction (against 1e-8: Q
# moved by at most 4e-11 where Q > -30 on 8 sets of 10^3 to 10^5 scores, the rounding of l at 10^5)
_GRID_DECREMENT = 1e-6
_LOG_PL_FLOOR = -30.0
_MAX_WIDTH = 4.0
_ETA_LIMIT = 40.0
GAUSS_LEGENDRE_NODES, GAUSS_LEGENDRE_WEIGHTS = np.polynomial.legendre.leggauss(_ORDER)
# map from [-1, 1] to [0, 1]
_NODES01 = np.ascontiguousarray(0.5 * (GAUSS_LEGENDRE_NODES + 1.0))
_WEIGHTS01 = np.ascontiguousarray(0.5 * GAUSS_LEGENDRE_WEIGHTS)


# ---------------------------------------------------------------------------
# isotonic regression and envelopes
# ---------------------------------------------------------------------------


# unique scores; ~25 ms interpreted at the limit, 0.35 s to compile
@njit(cache=True, interpreted_max_work=20_000)
def pool_adjacent_violators(sums, weights):
    """Pool-adjacent-violators algorithm (Ayer et al. 1955) for a non-decreasing fit.

    ``sums[i]`` is the sum of the targets and ``weights[i]`` the total weight of the
    i-th (sorted, unique) score.  Adjacent blocks are merged while the mean of the
    left block is >= the mean of the right one, so the returned blocks are the
    maximal constant pieces (level sets) of the isotonic fit.

    Returns ``(starts, block_sums, block_weights)``: ``starts[j]`` is the index of
    the first score of block j (length = number of blocks).

    The one PAV of dstk (evidential and probabilistic isotonic calibration).
    ``scipy.optimize.isotonic_regression`` finds the same blocks (checked on
    3,000 random tied data sets) but is about 4x slower at 10^6 points, needs
    scipy >= 1.12 and decides ties on floating-point means, where this kernel
    compares cross-multiplied sums, exact for integer counts below 2^53.
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


# bins; ~20 ms interpreted at the limit, 0.1 s to compile
@njit(cache=True, interpreted_max_work=100_000)
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
def _merge_into_block(
    block_sum,
    block_weight,
    left,
    right,
    left_sum,
    left_weight,
    left_prev,
    right_sum,
    right_weight,
    right_next,
):
    """Merge a middle block with the blocks of a prefix PAV (left) and a suffix PAV (right) until isotonic."""
    while True:
        # left neighbour's mean >= the block's mean (cross-multiplied, weights > 0): a violation
        if left >= 0 and left_sum[left] * block_weight >= block_sum * left_weight[left]:
            block_sum += left_sum[left]
            block_weight += left_weight[left]
            left = left_prev[left]
        elif right >= 0 and block_sum * right_weight[right] >= right_sum[right] * block_weight:
            block_sum += right_sum[right]
            block_weight += right_weight[right]
            right = right_next[right]
        else:
            return block_sum / block_weight


# unique scores; ~35 ms interpreted at the limit, 0.75 s to compile
@njit(cache=True, interpreted_max_work=1_000)
def venn_abers_table(sums, weights):
    """Inductive Venn-ABERS values for every position of a new score, in O(K + merges).

    ``sums``/``weights`` aggregate the calibration labels by sorted unique score
    u_0 < ... < u_{K-1}.  A test score either falls strictly between two unique
    scores (slot g = number of unique scores below it, 0..K) or equals u_j.

    Returns ``(gap_p0, gap_p1, tie_p0, tie_p1)`` of lengths K+1, K+1, K, K: the
    isotonic fit at the test point after adding it with label 0 (p0) or 1 (p1)
    (Vovk & Petej 2014, Algorithm 1).

    Notes
    -----
    PAV blocks never split when data are appended, so the isotonic fit of
    (prefix, new point, suffix) is found by merging the new point's block with
    the last blocks of the prefix's PAV and the first blocks of the suffix's
    PAV while they violate the order.  One left-to-right and one
    right-to-left PAV sweep store every prefix and suffix solution as
    persistent linked lists of blocks (one node per unique score, the merged
    node keeps a pointer to the block below), so each query costs the number
    of blocks it absorbs -- one or two in practice, since a single point
    barely moves the mean of its neighbours.
    """
    k = sums.shape[0]
    left_sum = np.empty(k)
    left_weight = np.empty(k)
    left_prev = np.empty(k, dtype=np.int64)
    left_top = np.empty(k + 1, dtype=np.int64)  # top block of the PAV of the first g unique scores
    left_top[0] = -1
    for i in range(k):
        block_sum = sums[i]
        block_weight = weights[i]
        below = left_top[i]
        while below >= 0 and left_sum[below] * block_weight >= block_sum * left_weight[below]:
            block_sum += left_sum[below]
            block_weight += left_weight[below]
            below = left_prev[below]
        left_sum[i] = block_sum
        left_weight[i] = block_weight
        left_prev[i] = below
        left_top[i + 1] = i
    right_sum = np.empty(k)
    right_weight = np.empty(k)
    right_next = np.empty(k, dtype=np.int64)
    right_first = np.empty(k + 1, dtype=np.int64)  # first block of the PAV of the unique scores g..K-1
    right_first[k] = -1
    for i in range(k - 1, -1, -1):
        block_sum = sums[i]
        block_weight = weights[i]
        above = right_first[i + 1]
        while above >= 0 and block_sum * right_weight[above] >= right_sum[above] * block_weight:
            block_sum += right_sum[above]
            block_weight += right_weight[above]
            above = right_next[above]
        right_sum[i] = block_sum
        right_weight[i] = block_weight
        right_next[i] = above
        right_first[i] = i
    gap_p0 = np.empty(k + 1)
    gap_p1 = np.empty(k + 1)
    tie_p0 = np.empty(k)
    tie_p1 = np.empty(k)
    for g in range(k + 1):
        left = left_top[g]
        right = right_first[g]
        gap_p0[g] = _merge_into_block(
            0.0, 1.0, left, right, left_sum, left_weight, left_prev, right_sum, right_weight, right_next
        )
        gap_p1[g] = _merge_into_block(
            1.0, 1.0, left, right, left_sum, left_weight, left_prev, right_sum, right_weight, right_next
        )
    for j in range(k):
        left = left_top[j]
        right = right_first[j + 1]
        tie_p0[j] = _merge_into_block(
            sums[j],
            weights[j] + 1.0,
            left,
            right,
            left_sum,
            left_weight,
            left_prev,
            right_sum,
            right_weight,
            right_next,
        )
        tie_p1[j] = _merge_into_block(
            sums[j] + 1.0,
            weights[j] + 1.0,
            left,
            right,
            left_sum,
            left_weight,
            left_prev,
            right_sum,
            right_weight,
            right_next,
        )
    return gap_p0, gap_p1, tie_p0, tie_p1


# ---------------------------------------------------------------------------
# logistic profile likelihood (weighted calibration points)
# ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _logistic_weight(eta):
    """tau (1 - tau) = expit(eta) expit(-eta), accurate for every eta (no 1 - tau cancellation)."""
    e = math.exp(-abs(eta))
    return e / ((1.0 + e) * (1.0 + e))


@njit(cache=True, inline="always", error_model="numpy")
def _point_terms(eta, t, v):
    """One weighted point's log-likelihood term, residual v (tau - t) and weight v tau (1 - tau) at eta."""
    e = math.exp(-abs(eta))
    inverse = 1.0 / (1.0 + e)
    softplus = math.log1p(e)  # log(1 + e^eta) = max(eta, 0) + log1p(e^-|eta|)
    if eta > 0.0:
        softplus += eta
        tau = e * inverse
    else:
        tau = inverse
    # log tau = -softplus(eta); log(1 - tau) = -softplus(-eta) = eta - softplus(eta)
    return -v * (t * softplus + (1.0 - t) * (softplus - eta)), v * (tau - t), v * e * inverse * inverse


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _direction_pass(shift, offset, nodes, targets, weights, d0, d1, f0, f1):
    """Log-likelihood and derivatives at the linear predictors eta_i = shift + offset z_i.

    Point i (score ``nodes[i]``, target ``targets[i]``) carries the weight ``weights[i]``.
    ``d = (d0, d1)`` and ``f = (f0, f1)`` are the moves of (shift, offset) per unit of the
    line's variable t and of the line's position xi: d eta_i / d t = d0 + d1 z_i and
    d eta_i / d xi = f0 + f1 z_i.  Returns (loglik, d/dt, d2/dt2, d2/dt dxi, d/dxi).
    """
    loglik = 0.0
    gradient = 0.0
    curvature = 0.0
    cross = 0.0
    d_xi = 0.0
    slope_line = d0 == 0.0 and d1 == 1.0 and f0 == 1.0 and f1 == 0.0
    for i in range(nodes.shape[0]):
        z = nodes[i]
        term, residual, w = _point_terms(shift + offset * z, targets[i], weights[i])
        loglik += term
        if slope_line:  # the same sums with along = z, across = 1, without the idle products
            gradient += residual * z
            d_xi += residual
            curvature -= w * z * z
            cross -= w * z
        else:
            along = d0 + d1 * z
            across = f0 + f1 * z
            gradient += residual * along
            d_xi += residual * across
            curvature -= w * along * along
            cross -= w * along * across
    return loglik, gradient, curvature, cross, d_xi


@njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
def _maximise_on_line(base0, base1, t, nodes, targets, weights, d0, d1, f0, f1, tolerance):
    """Maximise the log-likelihood over t at (base0 + t d0, base1 + t d1) (Newton, step halving).

    The predictors are those of :func:`_direction_pass` with shift = base0 + t d0 and
    offset = base1 + t d1, starting at ``t``.  Once the Newton decrement
    d = gradient^2 / |curvature| (twice the predicted remaining gain) is below ``tolerance``,
    the maximum is taken as loglik + d / 2 at t + gradient / |curvature| without another pass:
    the error of that quadratic prediction is third order, about |l3| (d / |l2|)^1.5 / 6 with
    l2, l3 the second and third derivatives along the line, l3 = O(1 / sqrt(n)) in units where
    l2 = O(1) (whitened parameters): below 1e-12 for d < 1e-8, about 1e-11 for d < 1e-6.
    Returns (profile loglik, argmax t, d loglik / d xi, d t* / d xi).
    """
    loglik, gradient, curvature, cross, d_xi = _direction_pass(
        base0 + t * d0, base1 + t * d1, nodes, targets, weights, d0, d1, f0, f1
    )
    for _ in range(100):
        if curvature >= 0.0:  # all calibration scores equal the test score: flat along the line
            break
        step = -gradient / curvature
        decrement = gradient * step
        if decrement < tolerance:
            loglik += 0.5 * decrement
            t += step
            break
        scale = 1.0
        accepted = False
        for _ in range(60):
            candidate = t + scale * step
            new = _direction_pass(
                base0 + candidate * d0, base1 + candidate * d1, nodes, targets, weights, d0, d1, f0, f1
            )
            if new[0] >= loglik - 1e-13 * (1.0 + abs(loglik)):
                t = candidate
                loglik, gradient, curvature, cross, d_xi = new
                accepted = True
                break
            scale *= 0.5
        if not accepted:
            break
    tangent = -cross / curvature if curvature < 0.0 else 0.0
    return loglik, t, d_xi, tangent


@njit(cache=True, inline="always")
def _profile_at(eta_test, slope, centred, targets, weights):
    """The profile on the line theta_0 + theta_1 s = eta_test (c_i = x_i - s: eta_i = eta_test + slope c_i).

    Returns (profile loglik, argmax slope, d profile / d eta, d slope* / d eta).
    """
    return _maximise_on_line(eta_test, 0.0, slope, centred, targets, weights, 0.0, 1.0, 1.0, 0.0, 1e-8)


@njit(cache=True, inline="always")
def _expit(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(cache=True, inline="always")
def _next_panel_width(width, gradient, sigma):
    """The next panel's width: at most twice this one, 12 / |d log pl / d eta|, 4; at least sigma / 4."""
    new_width = 2.0 * width
    if gradient > 0.0 and _PANEL_DROP / gradient < new_width:
        new_width = _PANEL_DROP / gradient
    if new_width < 0.25 * sigma:
        new_width = 0.25 * sigma
    if new_width > _MAX_WIDTH:  # resolve tau (1 - tau), which varies on a unit scale
        new_width = _MAX_WIDTH
    return new_width


@njit(cache=True, inline="always")
def _write_masses(out, j, plausible_one, mass_one, plausible_zero, mass_zero):
    """Row j of ``out``: the masses of {0}, {1} and {0, 1}, normalised by their sum."""
    mass_frame = plausible_one + plausible_zero
    total = mass_zero + mass_one + mass_frame
    out[j, 1] = mass_zero / total
    out[j, 2] = mass_one / total
    out[j, 3] = mass_frame / total


@njit(cache=True, error_model="numpy")
def logistic_profile_masses(
    test_scores, calibration_scores, targets, weights, theta, covariance, max_loglik, out, centred
):
    """Predictive masses (N, 4) of the profile-likelihood contour at each test score.

    The calibration points ``calibration_scores[i]`` with targets ``targets[i]``
    carry the weights ``weights[i]``.  For a test score s: eta_hat = theta_0 +
    theta_1 s, tau_hat = expit(-eta_hat), sigma = sqrt(a' C a) with a = (1, s)
    (the normal-approximation standard error, used only to size the first
    panel).  With pl(eta) the profile contour (Eq. 40 written in
    eta = ln(1/tau - 1)) and w = tau (1 - tau) = d tau / d eta,

        m({1}) = int_0^tau_hat (1 - pl) d tau = int_eta_hat^inf (1 - pl) w d eta        (Eq. 22c)
        m({0}) = int_tau_hat^1 (1 - pl) d tau = int_-inf^eta_hat (1 - pl) w d eta       (Eq. 23c)
        m({0, 1}) = int_0^1 pl d tau = int pl w d eta

    (Xu et al. 2016, after the change of variable tau = 1 / (1 + e^eta)); the
    three integrals are normalised by their sum (int w = 1 up to 1e-14).

    Each side, from eta_hat toward direction * infinity (direction = +1 for
    m({1}), -1 for m({0})), integrates pl w and (1 - pl) w over adaptive panels
    of Gauss-Legendre nodes: the first panel is sigma wide, each next one at
    most twice as wide and at most 12 / |d log pl / d eta| wide (log pl is
    concave in eta, so it drops by at least that much; the 12-point rule
    integrates such a panel to about 1e-15), at most 4 wide (w varies on a
    unit scale).  The panels stop once log pl < -30 at a panel end,
    or once the end is beyond |eta| = 40 and 40 beyond eta_hat (w there is below
    exp(-40) times its value at eta_hat); the rest of int (1 - pl) w is the
    closed form int w = expit(-direction * end).  A start beyond -40 on the
    other side of eta = 0 is moved to -40 (the skipped part integrates to less
    than exp(-40) in absolute terms).  Integrating 1 - pl itself (not tau_hat
    minus int pl) keeps tiny masses accurate in relative terms.

    ``out`` (zeros, shape (N, 4)) receives the masses and is returned;
    ``centred`` (length of ``calibration_scores``) is a work buffer.  Both are
    allocated by the caller: allocating them here would compile numba's array
    constructors with the kernel, about 0.2 s more of a cold start.  The two
    sides run in one loop of this function (not a function called twice):
    one function less to compile on a cold start.
    """
    n_test = test_scores.shape[0]
    nodes = _NODES01
    qweights = _WEIGHTS01
    order = nodes.shape[0]
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
        slope_hat = theta[1]
        plausible_one = 0.0
        mass_one = 0.0
        plausible_zero = 0.0
        mass_zero = 0.0
        # side 0: tau in [0, tau_hat] <-> eta in [eta_hat, +inf); side 1: the other
        for side in range(2):
            direction = 1.0 if side == 0 else -1.0
            plausible = 0.0
            implausible = 0.0
            start = eta_hat
            slope_start = slope_hat
            if direction * start < -_ETA_LIMIT:
                start = -direction * _ETA_LIMIT
                # start Newton at the maximiser of the quadratic (normal) approximation on the line
                guess = slope_hat + slope_per_eta * (start - eta_hat)
                loglik, slope_start, d_eta, derivative_slope = _profile_at(
                    start, guess, centred, targets, weights
                )
            width = sigma
            if width > _MAX_WIDTH:
                width = _MAX_WIDTH
            end = start
            for _ in range(400):
                end = start + direction * width
                slope = slope_start
                previous = start
                derivative_slope = 0.0
                log_pl = 0.0
                d_eta = 0.0
                for q in range(order + 1):  # the panel's Gauss nodes, then its end
                    eta = start + direction * width * nodes[q] if q < order else end
                    slope = slope + derivative_slope * (eta - previous)
                    loglik, slope, d_eta, derivative_slope = _profile_at(
                        eta, slope, centred, targets, weights
                    )
                    previous = eta
                    log_pl = loglik - max_loglik
                    if q < order:
                        if log_pl > 0.0:
                            log_pl = 0.0
                        factor = width * qweights[q] * _logistic_weight(eta)
                        plausible += factor * math.exp(log_pl)
                        implausible -= factor * math.expm1(log_pl)
                if log_pl < _LOG_PL_FLOOR:
                    break
                if direction * end > _ETA_LIMIT and direction * (end - eta_hat) > _ETA_LIMIT:
                    break
                width = _next_panel_width(width, abs(d_eta), sigma)
                start = end
                slope_start = slope
            implausible += _expit(-direction * end)
            if side == 0:
                plausible_one = plausible
                mass_one = implausible
            else:
                plausible_zero = plausible
                mass_zero = implausible
        _write_masses(out, j, plausible_one, mass_one, plausible_zero, mass_zero)
    return out


@njit(cache=True)
def logistic_profile_log_contour(
    score, etas, calibration_scores, targets, weights, theta, covariance, max_loglik
):
    """log pl(eta; s) of Eq. 40 at each eta = ln(1/tau - 1): the profile maximum minus the maximum."""
    out = np.zeros(etas.shape[0])
    centred = calibration_scores - score
    eta_hat = theta[0] + theta[1] * score
    variance = covariance[0, 0] + 2.0 * score * covariance[0, 1] + score * score * covariance[1, 1]
    slope_per_eta = (covariance[1, 0] + score * covariance[1, 1]) / variance if variance > 1e-30 else 0.0
    for j in range(etas.shape[0]):
        eta = etas[j]
        guess = theta[1] + slope_per_eta * (eta - eta_hat)
        loglik, _slope, _d_eta, _derivative_slope = _profile_at(eta, guess, centred, targets, weights)
        log_pl = loglik - max_loglik
        out[j] = log_pl if log_pl < 0.0 else 0.0
    return out


# lines x points of the likelihood: ~3.5 us each interpreted (0.25 s for the 33 x 17 table of 142
# points of a fit on 10^5 scores), ~2 s to compile with its line maximiser.  Budget factor 1.5 (and
# 4.0 for logistic_grid_masses): their interpreted calls take tenths of a second, so a process runs
# them interpreted for about 1 s and 0.8 s in all (the first fits of 10^3 to 10^6 scores), then
# compiles them (~2 s each): 15 fits of 4,000 scores in a cold process took 8-9 s CPU with budgets
# of about one compile time each, against 4-5 s compiling at once.
@njit(cache=True, error_model="numpy", interpreted_max_work=200_000, interpreted_budget=1.5)
def logistic_profile_grid(nodes, targets, weights, alpha, frames, xi, max_loglik, out):
    """Profile log-likelihood Q(e, xi) = max_tau l(alpha + B (xi e + tau e_perp)) - l_max on a grid.

    Whitened parameters u, alpha_hat + B u with B B' the covariance of alpha_hat: for each
    direction ``frames[j] = (B e, B e_perp)`` (four numbers, e a unit vector) and each
    ``xi[k]`` (ascending, ``xi[(K - 1) // 2] = 0``), the log-likelihood is maximised on the
    line {u : e . u = xi} by Newton's method over tau (step halving; the quadratic prediction
    once the Newton decrement is below 1e-6, :data:`_GRID_DECREMENT`), starting at the
    maximiser of the previous xi moved along its tangent d tau / d xi, outward from xi = 0
    (where tau = 0 is the maximum).  The profile contour of Xu et al. (2016, Eq. 40) at a test
    score with (1, z) B parallel to e is exp Q(e, (eta - eta_hat) / sigma).  ``out`` (M, K)
    receives Q and is returned.
    """
    n_directions = frames.shape[0]
    k_size = xi.shape[0]
    middle = (k_size - 1) // 2
    for j in range(n_directions):
        f0 = frames[j, 0]
        f1 = frames[j, 1]
        d0 = frames[j, 2]
        d1 = frames[j, 3]
        out[j, middle] = 0.0
        for side in range(2):
            tau = 0.0
            tangent = 0.0
            bend = 0.0  # d2 tau / d xi2, from the change of the tangent over the last step
            previous = 0.0
            step_k = 1 if side == 0 else -1
            k = middle + step_k
            while 0 <= k < k_size:
                x = xi[k]
                h = x - previous
                tau_start = tau
                tau = tau + h * (tangent + 0.5 * bend * h)
                previous = x
                base0 = alpha[0] + x * f0
                base1 = alpha[1] + x * f1
                loglik, tau, _d_xi, new_tangent = _maximise_on_line(
                    base0, base1, tau, nodes, targets, weights, d0, d1, f0, f1, _GRID_DECREMENT
                )
                # the tangents at both ends of the step and the move between them fit a cubic
                # tau(xi); its second derivative at the new end extrapolates the next start
                if k != middle + step_k:
                    bend = (2.0 * tangent + 4.0 * new_tangent - 6.0 * (tau - tau_start) / h) / h
                else:
                    bend = (new_tangent - tangent) / h
                tangent = new_tangent
                value = loglik - max_loglik
                out[j, k] = value if value < 0.0 else 0.0
                k += step_k
    return out


# test scores x coefficients: ~2 us each interpreted (0.13 s for the masses of the 127
# interpolation points of that fit), 1.5-2.5 s to compile; budget factor: see logistic_profile_grid
@njit(cache=True, error_model="numpy", interpreted_max_work=100_000, interpreted_budget=4.0)
def logistic_grid_masses(test_scores, coefficients, alpha, cholesky, frame, half_width, out, series):
    """Predictive masses (N, 4) of the profile contour from a series of Q(phi, xi).

    ``coefficients`` (M, K), M even: the coefficients of the profile log-likelihood Q of
    :func:`logistic_profile_grid`, a trigonometric series in phi (row 0: the constant; rows
    2 m - 1 and 2 m: cos(m phi) and sin(m phi), m < M / 2; row M - 1: cos(M phi / 2)) of
    Chebyshev series in y = xi / ``half_width``, where phi is the angle of the whitened
    direction e from ``frame[0:2]`` (the direction of z -> -inf) toward ``frame[2:4]``.  For a test score z: b = B' (1, z)
    (``cholesky`` = B), sigma = |b|, e = b / sigma, eta_hat = alpha_0 + alpha_1 z and
    log pl(eta) = Q(phi(e), (eta - eta_hat) / sigma) (taken as -inf for |xi| > half_width,
    where the caller checked Q < -25: Q is concave in xi).  The masses are then integrated
    exactly as in :func:`logistic_profile_masses` (the same panels, Gauss rule, stopping rules
    and closed-form tail), with each profile maximisation replaced by the sum of the series.
    ``out`` (zeros, (N, 4)) is returned; ``series`` (5, max(K, 13)) is a work buffer (the
    direction's series and its derivative, then the Clenshaw recurrence at a panel's 13 points).
    """
    m_size = coefficients.shape[0]
    k_size = coefficients.shape[1]
    nodes = _NODES01
    qweights = _WEIGHTS01
    order = nodes.shape[0]
    y_nodes = series[2]
    previous_1 = series[3]
    previous_2 = series[4]
    for j in range(test_scores.shape[0]):
        z = test_scores[j]
        b0 = cholesky[0, 0] + cholesky[1, 0] * z
        b1 = cholesky[0, 1] + cholesky[1, 1] * z
        sigma = math.sqrt(b0 * b0 + b1 * b1)
        e0 = b0 / sigma
        e1 = b1 / sigma
        phi = math.atan2(e0 * frame[2] + e1 * frame[3], e0 * frame[0] + e1 * frame[1])
        # the series in y of this direction: c_k = sum_r C[r, k] f_r(phi), f_0 = 1,
        # f_{2m-1} = cos(m phi), f_{2m} = sin(m phi), f_{M-1} = cos(M phi / 2)
        # (cos, sin) of m phi by rotations of (cos phi, sin phi): rounding grows like m eps
        for k in range(k_size):
            series[0, k] = coefficients[0, k]
        cosine_one = math.cos(phi)
        sine_one = math.sin(phi)
        cosine = 1.0
        sine = 0.0
        for r in range(1, m_size, 2):
            cosine, sine = cosine * cosine_one - sine * sine_one, sine * cosine_one + cosine * sine_one
            if r + 1 < m_size:
                for k in range(k_size):
                    series[0, k] += coefficients[r, k] * cosine + coefficients[r + 1, k] * sine
            else:
                for k in range(k_size):
                    series[0, k] += coefficients[r, k] * cosine
        # derivative series in y: c'_{k-1} = c'_{k+1} + 2 k c_k
        for k in range(k_size):
            series[1, k] = 0.0
        for k in range(k_size - 1, 0, -1):
            upper = series[1, k + 1] if k + 1 < k_size else 0.0
            series[1, k - 1] = upper + 2.0 * k * series[0, k]
        series[1, 0] *= 0.5
        eta_hat = alpha[0] + alpha[1] * z
        plausible_one = 0.0
        mass_one = 0.0
        plausible_zero = 0.0
        mass_zero = 0.0
        for side in range(2):
            direction = 1.0 if side == 0 else -1.0
            plausible = 0.0
            implausible = 0.0
            start = eta_hat
            if direction * start < -_ETA_LIMIT:
                start = -direction * _ETA_LIMIT
            width = sigma
            if width > _MAX_WIDTH:
                width = _MAX_WIDTH
            end = start
            for _ in range(400):
                end = start + direction * width
                log_pl = 0.0
                # Clenshaw's recurrence at the panel's Gauss nodes and its end side by side (independent
                # chains the compiler vectorises; each node's arithmetic is the same as one at a time)
                for q in range(order + 1):
                    eta = start + direction * width * nodes[q] if q < order else end
                    y_nodes[q] = (eta - eta_hat) / (sigma * half_width)
                    previous_1[q] = 0.0
                    previous_2[q] = 0.0
                for k in range(k_size - 1, 0, -1):
                    c = series[0, k]
                    for q in range(order + 1):
                        b_0 = c + 2.0 * y_nodes[q] * previous_1[q] - previous_2[q]
                        previous_2[q] = previous_1[q]
                        previous_1[q] = b_0
                for q in range(order + 1):
                    eta = start + direction * width * nodes[q] if q < order else end
                    y = y_nodes[q]
                    if y > 1.0 or y < -1.0:
                        log_pl = -math.inf
                    else:
                        log_pl = series[0, 0] + y * previous_1[q] - previous_2[q]
                        if log_pl > 0.0:
                            log_pl = 0.0
                    if q < order:
                        factor = width * qweights[q] * _logistic_weight(eta)
                        plausible += factor * math.exp(log_pl)
                        implausible -= factor * math.expm1(log_pl)
                if log_pl < _LOG_PL_FLOOR:
                    break
                if direction * end > _ETA_LIMIT and direction * (end - eta_hat) > _ETA_LIMIT:
                    break
                y = (end - eta_hat) / (sigma * half_width)
                b_1 = 0.0
                b_2 = 0.0
                for k in range(k_size - 1, 0, -1):
                    b_0 = series[1, k] + 2.0 * y * b_1 - b_2
                    b_2 = b_1
                    b_1 = b_0
                width = _next_panel_width(
                    width, abs(series[1, 0] + y * b_1 - b_2) / (sigma * half_width), sigma
                )
                start = end
            implausible += _expit(-direction * end)
            if side == 0:
                plausible_one = plausible
                mass_one = implausible
            else:
                plausible_zero = plausible
                mass_zero = implausible
        _write_masses(out, j, plausible_one, mass_one, plausible_zero, mass_zero)
    return out


def gauss_compress(sorted_points, point_weights, starts, order):
    """Replace each run of sorted points by the Gauss rule of its weighted empirical measure.

    ``starts`` gives the first index of each run (bin) of ``sorted_points``.  A
    run of at most ``2 order`` points is kept as it is; a longer one becomes
    the ``order``-point Gauss rule of the discrete measure sum_i w_i delta(x_i)
    (fewer nodes when the run has fewer distinct points), which integrates
    every polynomial of degree ``2 order - 1`` exactly.  With u = (x - centre)
    / half mapping the run onto [-1, 1], the Lanczos (discrete Stieltjes)
    recurrence with one full reorthogonalisation per step gives the Jacobi
    matrix of the measure, and its eigen-decomposition the rule (nodes: the
    eigenvalues; weights: the total weight times the squared first components
    of the eigenvectors; Golub & Welsch 1969).  The recurrence stops for a
    run once its next orthonormal polynomial has a norm below 1e-10 (the run
    has only that many distinct points, whose rule is exact); a run of one
    distinct point or of zero weight becomes one node at its centre with its
    total weight.

    Plain numpy: every run advances together (sums per run by
    :func:`numpy.add.reduceat`), the Jacobi matrices of one size in one
    batched :func:`numpy.linalg.eigh`; nothing is compiled (the loops run
    ``order`` times, each over all the points at once).

    Returns ``(nodes, node_weights, counts)``: the nodes and their weights run after run,
    each run's nodes ascending, and the number of nodes of each run.
    """
    n = sorted_points.shape[0]
    stops = np.append(starts[1:], n)
    lengths = stops - starts
    long_runs = np.flatnonzero(lengths > 2 * order)
    run_count = long_runs.size
    # Lanczos on the points of the long runs, all runs at once
    sizes = np.zeros(run_count, dtype=np.int64)
    diagonal = np.zeros((run_count, order))
    off = np.zeros((run_count, order))
    centre = np.empty(run_count)
    total = np.empty(run_count)
    half = np.empty(run_count)
    if run_count:
        run_lengths = lengths[long_runs]
        first = np.concatenate(([0], np.cumsum(run_lengths)[:-1]))
        owner = np.repeat(np.arange(run_count), run_lengths)
        index = np.arange(owner.size) - first[owner] + starts[long_runs][owner]
        x = sorted_points[index]
        w = point_weights[index]
        low = sorted_points[starts[long_runs]]
        high = sorted_points[stops[long_runs] - 1]
        centre = 0.5 * (low + high)
        half = 0.5 * (high - low)
        total = np.add.reduceat(w, first)
        active = (half > 0.0) & (total > 0.0)  # else one node at the centre (size 0)
        u = (x - centre[owner]) / np.where(active, half, 1.0)[owner]
        basis = np.empty((order, owner.size))
        basis[0] = np.repeat(np.where(active, 1.0 / np.sqrt(np.where(active, total, 1.0)), 0.0), run_lengths)
        sizes[active] = order
        weighted_u = w * u
        scratch = np.empty(owner.size)
        for k in range(order):
            np.multiply(weighted_u, basis[k], out=scratch)
            scratch *= basis[k]
            diagonal[:, k] = np.add.reduceat(scratch, first)
            if k + 1 == order:
                break
            # three-term recurrence (discrete Stieltjes procedure); no reorthogonalisation: over
            # these few steps the moments of degree <= 2 order - 1 stay exact to ~1e-13 (tested)
            following = basis[k + 1]
            np.subtract(u, diagonal[:, k][owner], out=following)
            following *= basis[k]
            if k > 0:
                following -= off[:, k][owner] * basis[k - 1]
            np.multiply(following, following, out=scratch)
            scratch *= w
            norm = np.sqrt(np.add.reduceat(scratch, first))
            ended = active & (norm <= 1e-10)  # only k + 1 distinct points: their rule is exact
            sizes[ended] = k + 1
            active &= ~ended
            off[:, k + 1] = np.where(active, norm, 0.0)
            following *= np.where(active, 1.0 / np.where(active, norm, 1.0), 0.0)[owner]
    run_sizes = np.full(starts.shape[0], -1, dtype=np.int64)  # -1: the run is kept as it is
    run_sizes[long_runs] = sizes
    counts = np.where(run_sizes < 0, lengths, np.maximum(run_sizes, 1))
    offsets = np.concatenate(([0], np.cumsum(counts)))
    nodes = np.empty(offsets[-1])
    node_weights = np.empty(offsets[-1])
    raw = np.repeat(run_sizes < 0, lengths)  # points of the runs kept as they are
    position = np.arange(n) - np.repeat(starts - offsets[:-1], lengths)
    nodes[position[raw]] = sorted_points[raw]
    node_weights[position[raw]] = point_weights[raw]
    for size in np.unique(sizes):
        chosen = np.flatnonzero(sizes == size)
        where = offsets[long_runs[chosen]]
        if size == 0:
            nodes[where] = centre[chosen]
            node_weights[where] = total[chosen]
            continue
        jacobi = np.zeros((chosen.size, size, size))
        node = np.arange(size)
        jacobi[:, node, node] = diagonal[chosen, :size]
        jacobi[:, node[:-1], node[1:]] = off[chosen, 1:size]
        jacobi[:, node[1:], node[:-1]] = off[chosen, 1:size]
        values, vectors = np.linalg.eigh(jacobi)
        where = where[:, None] + node
        nodes[where] = centre[chosen, None] + half[chosen, None] * values
        node_weights[where] = total[chosen, None] * vectors[:, 0, :] ** 2
    return nodes, node_weights, counts


# points x terms x series; ~25 ms interpreted at the limit, 0.3 s to compile
@njit(cache=True, interpreted_max_work=50_000)
def chebyshev_clenshaw(t, coefficients, out, work):
    """Sum of Chebyshev series sum_k c_k T_k(t) at each t by Clenshaw's recurrence.

    ``coefficients`` has shape (K, C) (C series at once); the sums are written
    to ``out``, shape (len(t), C), and returned.  The recurrence runs on blocks
    of B points at a time (innermost loop over the points, which vectorises;
    the block stays in the L1 cache), B = ``work.shape[1]``; ``work`` (4, B) is
    a work buffer.  Both arrays are allocated by the caller: ``np.empty`` here
    would compile numba's array constructors with the kernel (0.3 s more of a
    cold start).
    """
    degree = coefficients.shape[0]
    columns = coefficients.shape[1]
    n = t.shape[0]
    block = work.shape[1]
    b0 = work[0]
    b1 = work[1]
    b2 = work[2]
    twice = work[3]
    for first in range(0, n, block):
        size = n - first if n - first < block else block  # (min() would compile a tuple helper)
        for i in range(size):
            twice[i] = 2.0 * t[first + i]
        for c in range(columns):
            for i in range(size):
                b1[i] = 0.0
                b2[i] = 0.0
            for k in range(degree - 1, 0, -1):
                coefficient = coefficients[k, c]
                for i in range(size):
                    b0[i] = coefficient + twice[i] * b1[i] - b2[i]
                for i in range(size):
                    b2[i] = b1[i]
                    b1[i] = b0[i]
            coefficient = coefficients[0, c]
            for i in range(size):
                out[first + i, c] = coefficient + 0.5 * twice[i] * b1[i] - b2[i]
    return out


# scores x (min(thresholds, 256) + columns); ~20 ms interpreted at the limit, 0.25 s to compile
@njit(cache=True, interpreted_max_work=100_000)
def lookup_masses(scores, thresholds, table, out):
    """Write into ``out`` (n, columns) the row of ``table`` of each score's bin: bin j holds
    thresholds[j-1] < s <= thresholds[j]; returns ``out``.

    Same result as ``table[np.searchsorted(thresholds, scores, side="left")]``,
    fused into one pass: the bin index is the number of thresholds below the
    score, counted without branches (vectorised) for up to 256 thresholds, by
    binary search beyond.  The caller allocates ``out`` with numpy, which asks
    the kernel for huge pages on large arrays (numba's own allocation does not:
    a fresh 16 MB result faulted ~3,900 times instead of ~330 in a process
    whose malloc maps every large array afresh, as dask's workers do).
    """
    n = scores.shape[0]
    k = table.shape[1]
    m = thresholds.shape[0]
    if m <= 256:
        for i in range(n):
            s = scores[i]
            low = 0
            for j in range(m):
                low += thresholds[j] < s
            for c in range(k):
                out[i, c] = table[low, c]
        return out
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


def table_lookup(scores, thresholds, table):
    """:func:`lookup_masses`, run interpreted for small inputs (no compilation on a cold start).

    Bit-identical to ``lookup_masses(scores, thresholds, table, out)``; see
    :func:`dstk._kernels._jit.call_kernel` and the decorator of :func:`lookup_masses`.
    """
    work = scores.shape[0] * (min(thresholds.shape[0], 256) + table.shape[1])
    return call_kernel(
        lookup_masses,
        scores,
        thresholds,
        table,
        _buffers.empty((scores.shape[0], table.shape[1])),
        work=work,
    )
