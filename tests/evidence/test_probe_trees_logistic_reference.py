"""LogisticLikelihood's predictive masses against a brute-force profile likelihood with scipy.

Kanjanatarakul, Denoeux and Sriboonchitta (2016); Xu et al. (2016) Eqs. 22-23 and 40: the profile
contour pl_T(tau; s) = sup {exp(l(theta) - l(theta_hat)) : tau(s; theta) = tau}, and
m({1}) = tau_hat - int_0^tau_hat pl_T, m({0}) = 1 - tau_hat - int_tau_hat^1 pl_T.
"""

import numpy as np
import pytest
from scipy import integrate, optimize

from dstk.evidence import LogisticLikelihood


def _log_likelihood(theta, scores, labels):
    eta = theta[0] + theta[1] * scores
    return -np.sum(labels * np.logaddexp(0.0, eta) + (1 - labels) * np.logaddexp(0.0, -eta))


def _reference_masses(scores, labels, score):
    fit = optimize.minimize(
        lambda t: -_log_likelihood(t, scores, labels), x0=np.zeros(2), method="BFGS", options={"gtol": 1e-10}
    )
    maximum = -fit.fun
    tau_hat = 1.0 / (1.0 + np.exp(fit.x[0] + fit.x[1] * score))

    def profile(tau):
        if tau <= 0.0 or tau >= 1.0:
            return 0.0
        eta = np.log1p(-tau) - np.log(tau)
        # tau(s; theta) = tau fixes theta_0 = eta - theta_1 s; maximise over theta_1
        best = optimize.minimize_scalar(
            lambda slope: -_log_likelihood(np.array([eta - slope * score, slope]), scores, labels),
            bracket=(fit.x[1] - 1.0, fit.x[1] + 1.0),
            tol=1e-12,
        )
        return float(np.exp(min(-best.fun - maximum, 0.0)))

    left = integrate.quad(profile, 0.0, tau_hat, epsabs=1e-10, limit=200)[0]
    right = integrate.quad(profile, tau_hat, 1.0, epsabs=1e-10, limit=200)[0]
    return np.array([0.0, 1.0 - tau_hat - right, tau_hat - left, left + right])


@pytest.mark.parametrize("seed", range(4))
def test_logistic_predictive_mass_equals_the_brute_force_profile(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    scores = rng.normal(size=n)
    labels = (scores + rng.normal(scale=1.0, size=n) > 0).astype(int)
    model = LogisticLikelihood(scores, labels)
    for score in (float(rng.normal()), -1.5, 2.0):
        expected = _reference_masses(scores, labels.astype(np.float64), score)
        np.testing.assert_allclose(model.predictive_mass(score).to_array(), expected, atol=2e-6)
