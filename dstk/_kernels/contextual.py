"""Numba kernel of the log-loss criterion of contextual discount rates under a failure model.

Plain float64 arrays in, plain float64 arrays out; no validation here (the
caller, :func:`dstk.evidence._contextual.log_loss_contextual_rates`, checks
and prepares them).  Nothing is compiled at import time.

Kernels
-------
failure_log_loss(contours, labels, rates, main_weights, point_weights, stand_in, stand_in_log,
                 stand_in_ratio, gradient, curvature)
    The weighted log-loss of the plausibility transform of the discounted
    sources' product, plus the failure terms in closed form, its gradient and
    (optionally) the S x S diagonal blocks of its Hessian, one class per block,
    one sample at a time (no (S, n, K) temporaries).
failure_hessian_product(contours, labels, rates, main_weights, point_weights, stand_in_ratio,
                        probabilities, failure_probabilities, vector, product)
    The product of the criterion's Hessian with a vector, from the
    probabilities kept by ``failure_log_loss`` (no logarithm or exponential).
"""

import math

import numpy as np

from dstk._kernels._jit import njit

_TINY = 1e-300


@njit(cache=True)
def _no_failure_term(
    contours, i, y, rates, w, log_discounted, ratio, total, spread, gradient, curvature, probabilities
):
    """Sample ``i``'s no-failure term of :func:`failure_log_loss` (weight ``w``, label ``y``); returns its loss.

    Fills ``log_discounted`` and ``ratio`` (S, K) with log pl'_sik and (1 - pl_sik) / pl'_sik and
    ``total`` (K,) with sum_s log pl'_sik (for the failure terms), uses ``spread`` (K,) as scratch, and adds
    to ``gradient``, ``curvature`` and ``probabilities`` as :func:`failure_log_loss` describes.
    """
    n_sources, _, n_classes = contours.shape
    for k in range(n_classes):
        total[k] = 0.0
    for s in range(n_sources):
        for k in range(n_classes):
            q = contours[s, i, k]
            d = q + rates[s, k] * (1.0 - q)
            if d < _TINY:
                d = _TINY
            log_discounted[s, k] = math.log(d)
            ratio[s, k] = (1.0 - q) / d
            total[k] += log_discounted[s, k]
    top = total[0]
    for k in range(1, n_classes):
        if total[k] > top:
            top = total[k]
    normaliser = 0.0
    for k in range(n_classes):
        spread[k] = math.exp(total[k] - top)
        normaliser += spread[k]
    loss = -w * (total[y] - top - math.log(normaliser))
    if probabilities.shape[0] > 0:
        for k in range(n_classes):
            probabilities[i, k] = spread[k] / normaliser
    for s in range(n_sources):
        for k in range(n_classes):
            gradient[s, k] += w * spread[k] / normaliser * ratio[s, k]
        gradient[s, y] -= w * ratio[s, y]
    if curvature.shape[0] > 0:
        for k in range(n_classes):
            p = spread[k] / normaliser
            for s in range(n_sources):
                a = w * p * ratio[s, k]
                for t in range(n_sources):
                    curvature[k, s, t] += a * (1.0 - p) * ratio[t, k]
                curvature[k, s, s] -= a * ratio[s, k]
        for s in range(n_sources):
            curvature[y, s, s] += w * ratio[s, y] * ratio[s, y]
    return loss


# cold_alternative_work: work S n K (M + 1) a process runs in numpy (dstk.evidence._contextual) per
# unit of the default budget while the kernel is neither compiled nor cached: 50 x 2**22, about
# 2-3 s at 10-15 ns a unit, about half the 5 s of CPU the two kernels take to compile.
@njit(cache=True, cold_alternative_work=1 << 22)
def failure_log_loss(
    contours,
    labels,
    rates,
    main_weights,
    point_weights,
    stand_in,
    stand_in_log,
    stand_in_ratio,
    gradient,
    curvature,
    probabilities,
    failure_probabilities,
):
    """Weighted log-loss, its gradient (added to ``gradient`` (S, K)) and Hessian blocks; returns the loss.

    Parameters
    ----------
    contours : float64 (S, n, K)
        The sources' contours pl_sik.
    labels : int64 (n,)
    rates : float64 (S, K)
        The discount rates alpha_sk: pl'_sik = max(pl_sik + alpha_sk (1 - pl_sik), 1e-300).
    main_weights, point_weights : float64 (n,)
        Each sample's weight in the no-failure term and in one failure term.
    stand_in, stand_in_log, stand_in_ratio : float64 (S, M, K)
        The discounted failure points c'_smk, their logs and (1 - c_smk) / c'_smk (M = 0: no
        failure terms).
    gradient : float64 (S, K)
        d loss / d alpha_sk is added to it.
    curvature : float64 (K, S, S) or (0, S, S)
        d2 loss / d alpha_sk d alpha_tk (the Hessian's diagonal blocks, one per class) is added to it;
        not computed when it has no rows.
    probabilities : float64 (n, K) or (0, K)
        Receives P_ik of the no-failure term (when it has rows), for :func:`failure_hessian_product`.
    failure_probabilities : float64 (S, M, n, K) or (0, 0, 0, K)
        Receives P_ik of the failure of source s with point m (when it has rows).

    Notes
    -----
    No-failure term: P_ik = prod_s pl'_sik / sum_l prod_s pl'_sil (log-sum-exp per sample).
    Failure of source s with point m: P_ik = R_sik c'_smk / sum_l R_sil c'_sml, R_s the product of
    the other sources' pl' rescaled to a largest value of 1 per sample.
    A term -log(prod_s f_sy / sum_l prod_s f_sl) with factors f_sk linear in alpha_sk, of log-derivative
    g_sk, has d2 / d alpha_sk d alpha_tk = g_sk g_tk P_k (1 - P_k) for s != t and
    g_sk^2 (delta_ky - P_k^2) for s = t (the blocks of different classes are coupled by
    -P_k P_l g_sk g_tl, not computed).
    """
    n_sources, n, n_classes = contours.shape
    n_points = stand_in.shape[1]
    log_discounted = np.empty((n_sources, n_classes))
    ratio = np.empty((n_sources, n_classes))
    total = np.empty(n_classes)
    others = np.empty(n_classes)
    spread = np.empty(n_classes)
    hessian = curvature.shape[0] > 0
    keep = probabilities.shape[0] > 0
    mixed = np.zeros(n_classes)  # sum_m v P_mk (1 - P_mk) g_fmk (failed source with the others)
    squared = np.zeros(n_classes)  # sum_m v P_mk^2
    own = np.zeros(n_classes)
    loss = 0.0
    for i in range(n):
        y = labels[i]
        loss += _no_failure_term(
            contours,
            i,
            y,
            rates,
            main_weights[i],
            log_discounted,
            ratio,
            total,
            spread,
            gradient,
            curvature,
            probabilities,
        )
        if n_points == 0:
            continue
        v = point_weights[i]
        for failed in range(n_sources):
            top = -math.inf
            for k in range(n_classes):
                others[k] = total[k] - log_discounted[failed, k]
                if others[k] > top:
                    top = others[k]
            log_others_y = others[y] - top
            for k in range(n_classes):
                others[k] = math.exp(others[k] - top)  # R, at most 1
                spread[k] = 0.0  # sum_m v / Z_m c'_mk
                mixed[k] = 0.0
                squared[k] = 0.0
                own[k] = 0.0  # sum_m v P_mk^2 g_fmk^2
            for m in range(n_points):
                z = 0.0
                for k in range(n_classes):
                    z += others[k] * stand_in[failed, m, k]
                if z < _TINY:
                    z = _TINY
                loss -= v * (log_others_y + stand_in_log[failed, m, y] - math.log(z))
                scale = v / z
                for k in range(n_classes):
                    share = scale * others[k] * stand_in[failed, m, k]  # v P_ik
                    spread[k] += scale * stand_in[failed, m, k]
                    gradient[failed, k] += share * stand_in_ratio[failed, m, k]
                gradient[failed, y] -= v * stand_in_ratio[failed, m, y]
                if hessian or keep:
                    inverse = 1.0 / z
                    for k in range(n_classes):
                        p = others[k] * stand_in[failed, m, k] * inverse
                        if keep:
                            failure_probabilities[failed, m, i, k] = p
                        if hessian:
                            g = stand_in_ratio[failed, m, k]
                            vp = v * p
                            own[k] += vp * p * g * g
                            mixed[k] += vp * (1.0 - p) * g
                            squared[k] += vp * p
                    if hessian:
                        g = stand_in_ratio[failed, m, y]
                        curvature[y, failed, failed] += v * g * g
            for s in range(n_sources):
                if s == failed:
                    continue
                for k in range(n_classes):
                    gradient[s, k] += others[k] * spread[k] * ratio[s, k]
                gradient[s, y] -= n_points * v * ratio[s, y]
            if not hessian:
                continue
            for k in range(n_classes):
                share = others[k] * spread[k]  # sum_m v P_mk
                curvature[k, failed, failed] -= own[k]
                for s in range(n_sources):
                    if s == failed:
                        continue
                    curvature[k, s, failed] += mixed[k] * ratio[s, k]
                    curvature[k, failed, s] += mixed[k] * ratio[s, k]
                    for t in range(n_sources):
                        if t == failed:
                            continue
                        if s == t:
                            curvature[k, s, s] -= squared[k] * ratio[s, k] * ratio[s, k]
                        else:
                            curvature[k, s, t] += (share - squared[k]) * ratio[s, k] * ratio[t, k]
            for s in range(n_sources):
                if s != failed:
                    curvature[y, s, s] += n_points * v * ratio[s, y] * ratio[s, y]
    return loss


@njit(cache=True, budget_of=failure_log_loss)
def failure_hessian_product(
    contours,
    labels,
    rates,
    main_weights,
    point_weights,
    stand_in_ratio,
    probabilities,
    failure_probabilities,
    vector,
    product,
):
    """Adds the Hessian of :func:`failure_log_loss` (at ``rates``) times ``vector`` (S, K) to ``product``.

    ``probabilities`` and ``failure_probabilities`` are those kept by :func:`failure_log_loss` at the
    same rates; the other arguments are as there.
    """
    n_sources, n, n_classes = contours.shape
    n_points = stand_in_ratio.shape[1]
    ratio = np.empty((n_sources, n_classes))
    projection = np.empty(n_classes)  # sum_s g_sk v_sk (over the sources that did not fail)
    share = np.empty(n_classes)  # sum_m P_mk
    share_ratio = np.empty(n_classes)  # sum_m P_mk g_fmk
    share_dot = np.empty(n_classes)  # sum_m P_mk (u_m . v)
    share_ratio_dot = np.empty(n_classes)  # sum_m P_mk g_fmk (u_m . v)
    for i in range(n):
        y = labels[i]
        for k in range(n_classes):
            projection[k] = 0.0
        for s in range(n_sources):
            for k in range(n_classes):
                q = contours[s, i, k]
                d = q + rates[s, k] * (1.0 - q)
                if d < _TINY:
                    d = _TINY
                ratio[s, k] = (1.0 - q) / d
                projection[k] += ratio[s, k] * vector[s, k]
        # no-failure term: H = D - u u^T, u_sk = P_k g_sk, D block diagonal
        w = main_weights[i]
        dot = 0.0
        for k in range(n_classes):
            dot += probabilities[i, k] * projection[k]
        for s in range(n_sources):
            for k in range(n_classes):
                g = ratio[s, k]
                product[s, k] += w * probabilities[i, k] * g * (projection[k] - g * vector[s, k] - dot)
            product[s, y] += w * ratio[s, y] * ratio[s, y] * vector[s, y]
        if n_points == 0:
            continue
        v = point_weights[i]
        for failed in range(n_sources):
            for k in range(n_classes):
                projection[k] -= ratio[failed, k] * vector[failed, k]  # the other sources only
                share[k] = 0.0
                share_ratio[k] = 0.0
                share_dot[k] = 0.0
                share_ratio_dot[k] = 0.0
            own = 0.0  # sum_m g_fmy^2
            for m in range(n_points):
                p_m = failure_probabilities[failed, m, i]
                g_m = stand_in_ratio[failed, m]
                dot = 0.0
                for k in range(n_classes):
                    dot += p_m[k] * (projection[k] + g_m[k] * vector[failed, k])
                for k in range(n_classes):
                    share[k] += p_m[k]
                    share_ratio[k] += p_m[k] * g_m[k]
                    share_dot[k] += p_m[k] * dot
                    share_ratio_dot[k] += p_m[k] * g_m[k] * dot
                own += g_m[y] * g_m[y]
            for s in range(n_sources):
                if s == failed:
                    for k in range(n_classes):
                        product[s, k] += v * (projection[k] * share_ratio[k] - share_ratio_dot[k])
                    product[s, y] += v * own * vector[s, y]
                else:
                    for k in range(n_classes):
                        g = ratio[s, k]
                        product[s, k] += (
                            v
                            * g
                            * (
                                share[k] * (projection[k] - g * vector[s, k])
                                + share_ratio[k] * vector[failed, k]
                                - share_dot[k]
                            )
                        )
                    product[s, y] += n_points * v * ratio[s, y] * ratio[s, y] * vector[s, y]
            for k in range(n_classes):
                projection[k] += ratio[failed, k] * vector[failed, k]
