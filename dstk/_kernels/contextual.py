"""Numba kernel of the log-loss criterion of contextual discount rates under a failure model.

Plain float64 arrays in, plain float64 arrays out; no validation here (the
caller, :func:`dstk.evidence._contextual.log_loss_contextual_rates`, checks
and prepares them).  Nothing is compiled at import time.

Kernels
-------
failure_log_loss(contours, labels, rates, main_weights, point_weights, stand_in, stand_in_log,
                 stand_in_ratio, gradient)
    The weighted log-loss of the plausibility transform of the discounted
    sources' product, plus the failure terms in closed form, and its gradient,
    one sample at a time (no (S, n, K) temporaries).
"""

import math

import numpy as np

from dstk._kernels._jit import njit

_TINY = 1e-300


@njit(cache=True)
def failure_log_loss(
    contours, labels, rates, main_weights, point_weights, stand_in, stand_in_log, stand_in_ratio, gradient
):
    """Weighted log-loss and its gradient (added to ``gradient`` (S, K)); returns the loss.

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

    Notes
    -----
    No-failure term: P_ik = prod_s pl'_sik / sum_l prod_s pl'_sil (log-sum-exp per sample).
    Failure of source s with point m: P_ik = R_sik c'_smk / sum_l R_sil c'_sml, R_s the product of
    the other sources' pl' rescaled to a largest value of 1 per sample.
    """
    n_sources, n, n_classes = contours.shape
    n_points = stand_in.shape[1]
    log_discounted = np.empty((n_sources, n_classes))
    ratio = np.empty((n_sources, n_classes))
    total = np.empty(n_classes)
    others = np.empty(n_classes)
    spread = np.empty(n_classes)
    loss = 0.0
    for i in range(n):
        y = labels[i]
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
        w = main_weights[i]
        loss -= w * (total[y] - top - math.log(normaliser))
        for s in range(n_sources):
            for k in range(n_classes):
                gradient[s, k] += w * spread[k] / normaliser * ratio[s, k]
            gradient[s, y] -= w * ratio[s, y]
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
            for s in range(n_sources):
                if s == failed:
                    continue
                for k in range(n_classes):
                    gradient[s, k] += others[k] * spread[k] * ratio[s, k]
                gradient[s, y] -= n_points * v * ratio[s, y]
    return loss
