"""Second review of the likelihood-based belief functions: boxes of the wrong size.

Denoeux (2014), Eq. 12: Pl(A) = sup_{theta in A} pl(theta) for a box A of the
parameter space, so a box needs one end per coordinate.
"""

import numpy as np
import pytest

from dstk.evidence import BinomialLikelihood, MultinomialLikelihood


@pytest.mark.parametrize("method", ["pl", "bel"])
@pytest.mark.parametrize(("lower", "upper"), [([0.0, 0.0], [1.0, 1.0]), ([0.0] * 4, None), (None, [1.0] * 2)])
def test_a_box_of_the_wrong_dimension_names_the_dimension(method, lower, upper):
    belief = MultinomialLikelihood([1, 2, 3])
    with pytest.raises(ValueError, match=r"one end per coordinate of the 3-dimensional parameter"):
        getattr(belief, method)(lower, upper)


def test_a_box_of_the_right_dimension_still_works():
    belief = MultinomialLikelihood([1, 2, 3])
    assert belief.pl([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]) == 1.0
    # the sup of p0^1 p1^2 p2^3 over p0 >= 0.5, relative to the MLE: p0 = 0.5, the rest in 2:3
    expected = (0.5**1 * (0.5 * 2 / 5) ** 2 * (0.5 * 3 / 5) ** 3) / ((1 / 6) * (2 / 6) ** 2 * (3 / 6) ** 3)
    assert belief.pl([0.5, 0.0, 0.0], [1.0, 1.0, 1.0]) == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("method", ["pl", "bel"])
def test_non_numeric_interval_ends_name_the_argument(method):
    with pytest.raises(ValueError, match=r"`lower` and `upper` must be numbers"):
        getattr(BinomialLikelihood(1, 2), method)("a", 0.5)
    with pytest.raises(ValueError, match=r"`lower` and `upper` must be numbers"):
        getattr(MultinomialLikelihood([1, 2]), method)([0.0, "x"], None)


def test_binomial_interval_arrays_still_broadcast():
    values = BinomialLikelihood(3, 10).bel(0.0, np.array([0.1, 0.3, 1.0]))
    assert values.shape == (3,)


def _normal_mean(mu):
    return -0.5 * 25.0 * (mu - 1.0) ** 2


@pytest.mark.parametrize("flag", ["no", "False", 0.5, None])
def test_concave_that_is_not_a_bool_is_refused(flag):
    from dstk.evidence import LikelihoodBeliefFunction

    # concave="no" was taken as True: a non-concave likelihood then got one local optimisation only
    with pytest.raises(ValueError, match=r"`concave` must be True or False"):
        LikelihoodBeliefFunction(_normal_mean, mle=1.0, concave=flag)


@pytest.mark.parametrize("argument", ["mle", "initial"])
def test_a_non_numeric_start_names_the_argument(argument):
    from dstk.evidence import LikelihoodBeliefFunction

    with pytest.raises(ValueError, match=rf"`{argument}` must be a number or an array of numbers"):
        LikelihoodBeliefFunction(_normal_mean, **{argument: "a"})
