"""Evidential temperature scaling of multi-class scores (a likelihood-based belief function on the temperature)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from scipy import optimize, special

__all__: list[str] = []

#: The probability scores are turned into logits as scikit-learn's temperature scaling does: ln(p + 1e-12).
_PROBABILITY_FLOOR = 1e-12
#: Upper end of the inverse temperature, in units of 1 / (standard deviation of the logits).
_MAX_INVERSE_TEMPERATURE = 1e4
#: Gauss-Legendre nodes per panel of the integral over the contour's levels.
_NODES = 48


def logits_of(scores: np.ndarray, probabilities: bool) -> np.ndarray:
    """The logits z of the calibration: ln(p + 1e-12) of probability scores, the decision values otherwise."""
    return np.log(scores + _PROBABILITY_FLOOR) if probabilities else scores


def softmax_log_likelihood(
    logits: np.ndarray, labels: np.ndarray, weights: np.ndarray
) -> Callable[[float], float]:
    """The weighted log-likelihood ``a -> sum_i w_i ln softmax(a z_i)[y_i]`` of temperature scaling."""
    rows = np.arange(labels.size)

    def log_likelihood(a: float) -> float:
        scaled = a * logits
        return float(np.sum(weights * (scaled[rows, labels] - special.logsumexp(scaled, axis=1))))

    return log_likelihood


def fit_inverse_temperature(
    logits: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray,
    *,
    log_bounds: tuple[float, float],
    xatol: float = 1e-10,
) -> float:
    """The inverse temperature ``a`` in ``exp(log_bounds)`` maximising the likelihood of softmax(a z).

    Temperature scaling (Guo et al. 2017, Eq. 9, with ``a = 1 / T``): a bounded search on ``ln a``; the
    search stops within its tolerance of an end where the maximum is at the end, so the ends are tried too.
    """
    log_likelihood = softmax_log_likelihood(logits, labels, weights)
    result = optimize.minimize_scalar(
        lambda log_a: -log_likelihood(np.exp(log_a)),
        bounds=log_bounds,
        method="bounded",
        options={"xatol": xatol},
    )
    candidates = (float(np.exp(result.x)), float(np.exp(log_bounds[0])), float(np.exp(log_bounds[1])))
    return max(candidates, key=log_likelihood)


class TemperatureCalibration:
    """Temperature scaling p(a) = softmax(a z) with a likelihood-based belief function on the inverse temperature.

    ``fit(z, y)`` finds the maximum-likelihood inverse temperature a_hat >= 0
    of the multinomial likelihood L(a) = prod_i softmax(a z_i)[y_i] (Guo et
    al. 2017, Eq. 9, with a = 1 / T) and the levels of its relative
    likelihood pl(a) = L(a) / L(a_hat) (Denoeux 2014, Eq. 11).
    ``mass(z)`` is the predictive mass on the classes (Xu et al. 2016,
    Eqs. 22-23, generalised to K classes): m({k}) = int_0^1 min_{a in
    Gamma(g)} p_k(a) dg over the focal intervals Gamma(g) = {a : pl(a) >= g},
    and m(frame) = 1 - sum_k m({k}).  For two classes this is Xu et al.'s
    predictive mass of the random set {y : U <= tau(theta), theta in Gamma}.
    Since ln p_k(a) = a z_k - logsumexp(a z) is concave in a, the minimum over
    an interval is at one of its ends; the ends come from the concave
    log-likelihood by root finding, once in ``fit``.  The class of largest
    logit has p_k increasing in a and p_k(a) >= p_j(a) for every a > 0, so it
    keeps the largest m({k}) and the largest pignistic probability: the
    calibration never changes the predicted class.
    """

    def fit(
        self, logits: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None
    ) -> TemperatureCalibration:
        logits = np.asarray(logits, dtype=np.float64)
        weights = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        spread = float(np.std(logits))
        self.scale_ = spread if spread > 0 else 1.0
        z = logits / self.scale_
        log_likelihood = softmax_log_likelihood(z, y, weights)
        upper = _MAX_INVERSE_TEMPERATURE
        a_hat = fit_inverse_temperature(z, y, weights, log_bounds=(-20.0, float(np.log(upper))))
        a_hat = max((a_hat, 0.0), key=log_likelihood)
        peak = log_likelihood(a_hat)
        self.inverse_temperature_ = a_hat / self.scale_
        self.max_log_likelihood_ = peak
        self._fit_levels(log_likelihood, peak, a_hat, upper)
        return self

    def _fit_levels(self, log_likelihood, peak, a_hat, upper):
        """Weights of the levels g of the contour and the ends of their intervals {a : pl(a) >= g}."""

        def level_end(log_level, low, high):
            """The a in [low, high] with ln pl(a) = log_level (pl is monotone there)."""
            return optimize.brentq(lambda a: log_likelihood(a) - peak - log_level, low, high, xtol=1e-13)

        log_pl_zero = log_likelihood(0.0) - peak
        log_pl_upper = log_likelihood(upper) - peak
        # levels g = 1 - u^2 (the ends move as sqrt(1 - g) near the mode); panels split where an end
        # reaches the boundary of [0, upper]
        ends = (log_pl_zero, log_pl_upper)
        breaks = sorted({0.0, 1.0} | {float(np.sqrt(-np.expm1(min(v, 0.0)))) for v in ends if v > -700})
        nodes, node_weights = np.polynomial.legendre.leggauss(_NODES)
        u_all, w_all = [], []
        for lo, hi in itertools.pairwise(breaks):
            u_all.append(lo + (hi - lo) * (nodes + 1) / 2)
            w_all.append(node_weights * (hi - lo) / 2)
        u = np.concatenate(u_all)
        self.level_weights_ = np.concatenate(w_all) * 2 * u  # dg = 2u du
        levels = 1.0 - u**2
        lows, highs = np.empty(u.size), np.empty(u.size)
        for j, g in enumerate(levels):
            log_level = np.log(max(g, 1e-300))
            lows[j] = 0.0 if log_pl_zero >= log_level else level_end(log_level, 0.0, a_hat)
            # (a_hat = upper: every level's interval reaches the upper end)
            highs[j] = upper if log_pl_upper >= log_level else level_end(log_level, a_hat, upper)
        self.interval_ends_ = np.stack([lows, highs]) / self.scale_

    def proba(self, logits: np.ndarray) -> np.ndarray:
        """softmax(a_hat z): the maximum-likelihood calibrated probabilities."""
        return special.softmax(self.inverse_temperature_ * np.asarray(logits, dtype=np.float64), axis=1)

    def singleton_masses(self, logits: np.ndarray) -> np.ndarray:
        """m({k}) of the predictive mass, shape (n_samples, n_classes); m(frame) is one minus their sum."""
        z = np.asarray(logits, dtype=np.float64)
        out = np.zeros(z.shape)
        lows, highs = self.interval_ends_
        for weight, low, high in zip(self.level_weights_, lows, highs):
            at_low = special.softmax(low * z, axis=1)
            at_high = special.softmax(high * z, axis=1)
            out += weight * np.minimum(at_low, at_high)
        return out
