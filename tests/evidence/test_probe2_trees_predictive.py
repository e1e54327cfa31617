"""Second review of the predictive belief functions: options given carelessly.

Reference: the binomial contour's predictive mass equals ``from_counts``'s
likelihood model (Xu et al. 2016, Eqs. 29-32).
"""

import numpy as np
import pytest
from scipy.special import xlog1py, xlogy

from dstk.evidence import (
    from_counts,
    predictive_mass,
    predictive_mass_monte_carlo,
    predictive_mass_quadrature,
)


def _binomial_contour(tau, k=3, n=10):
    tau_hat = k / n
    return np.exp(xlogy(k, tau) + xlog1py(n - k, -tau) - xlogy(k, tau_hat) - xlog1py(n - k, -tau_hat))


def _bimodal(tau):
    return np.maximum(
        np.exp(-200 * (np.asarray(tau) - 0.2) ** 2), np.exp(-200 * (np.asarray(tau) - 0.8) ** 2)
    )


@pytest.mark.parametrize(
    "function", [predictive_mass, predictive_mass_quadrature, predictive_mass_monte_carlo]
)
@pytest.mark.parametrize("flag", ["no", "False", 0.5, None])
def test_check_that_is_not_a_bool_is_refused(function, flag):
    # check="False" is truthy: the check ran, and refused a contour the user meant to pass unchecked
    with pytest.raises(ValueError, match=r"`check` must be True or False"):
        function(_bimodal, 0.2, check=flag)


@pytest.mark.parametrize("function", [predictive_mass, predictive_mass_quadrature])
@pytest.mark.parametrize("tolerance", ["1e-3", None, np.inf, -1.0])
def test_tolerance_must_be_a_positive_finite_number(function, tolerance):
    with pytest.raises(ValueError, match=r"`tolerance` must be a positive finite number"):
        function(_binomial_contour, 0.3, tolerance=tolerance)


@pytest.mark.parametrize("function", [predictive_mass, predictive_mass_quadrature])
@pytest.mark.parametrize("points", ["ab", [np.nan], [0.2, 1.5], [[0.2]]])
def test_points_must_be_breakpoints_in_the_unit_interval(function, points):
    with pytest.raises(ValueError, match=r"`points` must be a sequence of numbers in \[0, 1\]"):
        function(_binomial_contour, 0.3, points=points)


def test_monte_carlo_names_a_non_numeric_tau_hat():
    with pytest.raises(ValueError, match=r"`tau_hat` must be a number in \[0, 1\]"):
        predictive_mass_monte_carlo(_binomial_contour, "mode", random_state=0)


def test_good_options_still_give_the_binomial_predictive_mass():
    expected = from_counts([7, 3], model="likelihood").to_array()
    got = predictive_mass(_binomial_contour, 0.3, points=[0.0, 0.3, 1.0], check=np.True_).to_array()
    np.testing.assert_allclose(got, expected, atol=1e-9)
