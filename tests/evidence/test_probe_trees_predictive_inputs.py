"""Bad inputs of the predictive belief functions, as a careless user gives them."""

import pytest

from dstk.evidence import (
    BinomialLikelihood,
    predictive_mass,
    predictive_mass_monte_carlo,
    predictive_mass_quadrature,
)


@pytest.mark.parametrize(
    "function", [predictive_mass, predictive_mass_quadrature, predictive_mass_monte_carlo]
)
@pytest.mark.parametrize("contour", [0.5, BinomialLikelihood(3, 10)])
def test_a_contour_that_is_not_callable_says_what_to_pass(function, contour):
    with pytest.raises(TypeError, match=r"`contour` must be a function"):
        function(contour)


def test_a_likelihood_object_is_pointed_to_its_contour():
    with pytest.raises(TypeError, match=r"\.contour"):
        predictive_mass(BinomialLikelihood(3, 10))
