"""Straightforward (slow) references for the calibration tests and benchmark.

Independent of dstk's kernels: the logistic profile likelihood is maximised by
scipy's Brent method over theta_1 and the predictive integrals (Xu et al. 2016,
Eqs. 22-23) are computed by ``scipy.integrate.quad`` on both sides of tau_hat.
"""

import numpy as np
from scipy import integrate, optimize, special


def logistic_log_likelihood(theta_0, theta_1, scores, targets):
    eta = theta_0 + theta_1 * scores
    return -np.sum(targets * np.logaddexp(0.0, eta) + (1.0 - targets) * np.logaddexp(0.0, -eta))


def reference_mle(scores, targets):
    """MLE of tau = 1/(1 + exp(theta_0 + theta_1 s)) by Nelder-Mead then BFGS (no Newton)."""

    def objective(t):
        return -logistic_log_likelihood(t[0], t[1], scores, targets)

    start = optimize.minimize(
        objective,
        np.zeros(2),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000},
    )
    result = optimize.minimize(objective, start.x, method="BFGS", options={"gtol": 1e-10})
    return result.x, -result.fun


def reference_profile(score, tau, scores, targets, theta_hat, max_loglik, guess_slope=None):
    """pl(tau; s) of Eq. 40 by Brent's method over theta_1 along theta_0 = ln(1/tau - 1) - theta_1 s."""
    if tau <= 0.0 or tau >= 1.0:
        return 0.0
    offset = np.log1p(-tau) - np.log(tau)
    centre = theta_hat[1] if guess_slope is None else guess_slope
    result = optimize.minimize_scalar(
        lambda t1: -logistic_log_likelihood(offset - t1 * score, t1, scores, targets),
        bracket=(centre - 0.5, centre + 0.5),
        tol=1e-12,
    )
    return float(np.exp(min(-result.fun - max_loglik, 0.0)))


def reference_masses(score, scores, targets, theta_hat, max_loglik, covariance=None):
    """[0, m({0}), m({1}), m({0,1})] at one score: Brent profile + quad on [0, tau_hat] and [tau_hat, 1]."""
    tau_hat = float(special.expit(-(theta_hat[0] + theta_hat[1] * score)))
    if covariance is not None:  # start Brent near the normal-approximation maximiser on the line
        a = np.array([1.0, score])
        slope_per_eta = (covariance @ a)[1] / (a @ covariance @ a)
        eta_hat = theta_hat[0] + theta_hat[1] * score

        def contour(tau):
            eta = np.log1p(-tau) - np.log(tau) if 0 < tau < 1 else 0.0
            guess = theta_hat[1] + slope_per_eta * (eta - eta_hat)
            return reference_profile(score, tau, scores, targets, theta_hat, max_loglik, guess)
    else:

        def contour(tau):
            return reference_profile(score, tau, scores, targets, theta_hat, max_loglik)

    left = integrate.quad(contour, 0.0, tau_hat, epsabs=1e-11, epsrel=1e-11, limit=200)[0]
    right = integrate.quad(contour, tau_hat, 1.0, epsabs=1e-11, epsrel=1e-11, limit=200)[0]
    mass_one = tau_hat - left
    mass_zero = 1.0 - tau_hat - right
    return np.array([0.0, mass_zero, mass_one, 1.0 - mass_one - mass_zero])


def brute_force_dempster(masses):
    """Dempster's rule by enumeration of focal-set tuples; masses: list of dicts {frozenset: mass}."""
    result = {frozenset(): 0.0}
    current = masses[0]
    for other in masses[1:]:
        combined = {}
        for a, ma in current.items():
            for b, mb in other.items():
                c = a & b
                combined[c] = combined.get(c, 0.0) + ma * mb
        conflict = combined.pop(frozenset(), 0.0)
        current = {k: v / (1.0 - conflict) for k, v in combined.items()}
    del result
    return current
