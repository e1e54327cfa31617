"""LikelihoodBeliefFunction given an `mle` that is not the maximiser: refused, not silently wrong."""

import numpy as np
import pytest

from dstk.evidence import LikelihoodBeliefFunction


def _normal(mu):
    return -0.5 * 25 * (mu - 1.0) ** 2


def test_an_mle_that_is_not_the_maximiser_is_refused():
    # with mle=0.5 the contour was clipped at 1 and focal_set(0.5) was (0.447, 1.553) instead of (0.764, 1.236)
    with pytest.raises(ValueError, match=r"`mle`.*not a maximiser"):
        LikelihoodBeliefFunction(_normal, mle=0.5, concave=True)
    with pytest.raises(ValueError, match=r"`mle`.*not a maximiser"):
        LikelihoodBeliefFunction(lambda t: -np.sum((t - 1.0) ** 2), mle=[1.0, 0.0])


def test_an_mle_outside_the_bounds_is_refused():
    with pytest.raises(ValueError, match=r"`mle`.*outside `bounds`"):
        LikelihoodBeliefFunction(_normal, mle=1.0, bounds=(2.0, 3.0))


def test_the_true_maximiser_is_accepted():
    belief = LikelihoodBeliefFunction(_normal, mle=1.0, concave=True)
    lower, upper = belief.focal_set(0.5)
    half_width = np.sqrt(2 * np.log(2) / 25)
    np.testing.assert_allclose([lower, upper], [1 - half_width, 1 + half_width], rtol=1e-12)
    # a maximiser on the boundary of the parameter space
    LikelihoodBeliefFunction(lambda t: np.log(t) if t > 0 else -np.inf, mle=1.0, bounds=(0.0, 1.0))
