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


def test_the_contour_at_nan_is_nan_for_every_likelihood():
    # BinomialLikelihood already propagated NaN; the others answered pl(NaN) = 0, a silent wrong value
    from dstk.evidence import LikelihoodBeliefFunction, LogisticLikelihood

    rng = np.random.default_rng(0)
    labels = (rng.random(40) < 0.5).astype(int)
    scores = rng.normal(2.0 * labels - 1.0, 1.0)
    values = [
        BinomialLikelihood(3, 10).contour(np.nan),
        LikelihoodBeliefFunction(_normal_mean, mle=1.0).contour(np.nan),
        MultinomialLikelihood([1, 2]).contour([np.nan, 0.5]),
        LogisticLikelihood(scores, labels).profile_contour_tau(0.0, np.nan),
    ]
    assert all(np.isnan(value) for value in values)
    mixed = LikelihoodBeliefFunction(_normal_mean, mle=1.0).contour([np.nan, 1.2])
    assert np.isnan(mixed[0]) and mixed[1] == pytest.approx(np.exp(-0.5))
    profile = LogisticLikelihood(scores, labels).profile_contour_tau(0.0, [np.nan, 0.0, 1.0])
    assert np.isnan(profile[0]) and profile[1:].tolist() == [0.0, 0.0]


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
