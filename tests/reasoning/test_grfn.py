"""Gaussian random fuzzy numbers: every formula against the definition, and evreg's values.

The independent reference is the random fuzzy set's definition (Denoeux 2023, Fuzzy Sets and
Systems 453, Sec. 4.2): the focal set is ``phi_M(x) = exp(-h (x - M)^2 / 2)`` with ``M ~ N(mu, sigma^2)``,
``Pl(A) = E[sup_{x in A} phi_M(x)]`` and ``Bel(A) = E[1 - sup_{x not in A} phi_M(x)]``, integrated over
``M`` with scipy's adaptive quadrature.  evreg's values (R package evreg 1.1.1, CRAN, functions
``pl_contour``, ``Pl``, ``Bel``, ``Belint``, ``combination_GRFN``, on the examples of its manual pages)
were computed from evreg's closed forms with mpmath at 30 digits (R cannot run here).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dstk.reasoning import GaussianRandomFuzzyNumber, combine_grfn

# ----------------------------------------------------------------------------- the definition


def _expect(function, mu, sigma, points=()):
    """``E[function(M)]`` for ``M ~ N(mu, sigma^2)`` (a point mass when sigma = 0)."""
    if sigma == 0:
        return function(mu)
    lo, hi = mu - 14 * sigma, mu + 14 * sigma
    inner = sorted(p for p in points if lo < p < hi)
    edges = [lo, *inner, hi]
    return sum(
        integrate.quad(
            lambda m: stats.norm.pdf(m, mu, sigma) * function(m), left, right, epsabs=1e-13, epsrel=1e-11
        )[0]
        for left, right in itertools.pairwise(edges)
    )


def _phi(x, m, h):
    return np.exp(-0.5 * h * (x - m) ** 2) if np.isfinite(x) else 0.0 if h > 0 else 1.0


def definition_pl(a, b, mu, sigma, h):
    def sup_inside(m):
        if a <= m <= b:
            return 1.0
        return _phi(a, m, h) if m < a else _phi(b, m, h)

    return _expect(sup_inside, mu, sigma, [a, b])


def definition_bel(a, b, mu, sigma, h):
    def necessity(m):
        if not a <= m <= b:
            return 0.0
        # the complement (-inf, a) U (b, inf): an infinite end contributes an empty part (sup 0)
        outside = [_phi(end, m, h) for end in (a, b) if np.isfinite(end)]
        return 1.0 - max(outside, default=0.0)

    middle = 0.5 * (a + b) if np.isfinite(a) and np.isfinite(b) else 0.0
    return _expect(necessity, mu, sigma, [a, b, middle])


PARAMETERS = [
    (2.0, 1.0, 2.0),
    (0.0, 1.0, 0.5),
    (-1.0, 0.3, 10.0),
    (1.5, 2.0, 0.05),
    (0.0, 1.0, 0.0),  # vacuous
    (0.5, 0.0, 3.0),  # consonant (std = 0)
    (0.0, 0.5, 1.0),  # h sigma^2 = 1 (evreg's special case in Bel)
]
INTERVALS = [
    (1.0, 2.0),
    (-0.5, 0.5),
    (-3.0, 4.0),
    (2.0, 2.0),
    (-np.inf, 1.0),
    (0.2, np.inf),
    (-np.inf, np.inf),
]


@pytest.mark.parametrize("mu, sigma, h", PARAMETERS)
@pytest.mark.parametrize("a, b", INTERVALS)
def test_pl_and_bel_of_intervals_match_the_definition(mu, sigma, h, a, b):
    number = GaussianRandomFuzzyNumber(mu, sigma, h)
    np.testing.assert_allclose(number.pl(a, b), definition_pl(a, b, mu, sigma, h), atol=1e-9)
    np.testing.assert_allclose(number.bel(a, b), definition_bel(a, b, mu, sigma, h), atol=1e-9)


@pytest.mark.parametrize("mu, sigma, h", PARAMETERS)
def test_contour_is_the_plausibility_of_a_point(mu, sigma, h):
    number = GaussianRandomFuzzyNumber(mu, sigma, h)
    for x in [-2.0, 0.0, 0.7, 3.0]:
        expected = _expect(lambda m, x=x: _phi(x, m, h), mu, sigma, [x])
        np.testing.assert_allclose(number.contour(x), expected, atol=1e-10)
        np.testing.assert_allclose(number.pl(x, x), expected, atol=1e-10)


@pytest.mark.parametrize("mu, sigma, h", [p for p in PARAMETERS if p[2] > 0])
def test_lower_and_upper_expectations_match_the_definition(mu, sigma, h):
    # lower expectation of a consonant belief function = mean over alpha of the alpha-cut's lower end
    def lower_end(m):
        return m - integrate.quad(lambda alpha: np.sqrt(-2.0 * np.log(alpha) / h), 0.0, 1.0)[0]

    number = GaussianRandomFuzzyNumber(mu, sigma, h)
    lower = _expect(lower_end, mu, sigma)
    np.testing.assert_allclose(number.lower_expectation(), lower, rtol=1e-8)
    np.testing.assert_allclose(number.upper_expectation(), 2 * mu - lower, rtol=1e-8)


def test_vacuous_expectations_are_infinite():
    number = GaussianRandomFuzzyNumber(0.0, 1.0, 0.0)
    assert number.lower_expectation() == -np.inf and number.upper_expectation() == np.inf


# ----------------------------------------------------------------------------- evreg's values

#: evreg 1.1.1, examples of man/pl_contour.Rd, man/Pl.Rd, man/Bel.Rd, man/Belint.Rd: GRFN(mu=2, sig=1, h=2)
EVREG_PL_CONTOUR_1 = 0.413689545042572565644827997804  # pl_contour(1, GRFN)
EVREG_PL_1_2 = 0.746618870851108090957718062237  # Pl(1, 2, GRFN)
EVREG_BEL_1_2 = 0.0270009785889331989410250283811  # Bel(1, 2, GRFN), evreg >= 1.1.0
EVREG_1_0_BEL_1_2 = 0.232509559784131578156262494438  # Bel(1, 2, GRFN) of evreg 1.0.x (midpoint error)
EVREG_BELINT_90 = (-0.713323807155769342292155732867, 4.71332380715576934229215573287)  # Belint(0.9, GRFN)


def test_evreg_manual_examples():
    number = GaussianRandomFuzzyNumber(2.0, 1.0, 2.0)
    np.testing.assert_allclose(number.contour(1.0), EVREG_PL_CONTOUR_1, rtol=1e-14)
    np.testing.assert_allclose(number.pl(1.0, 2.0), EVREG_PL_1_2, rtol=1e-14)
    np.testing.assert_allclose(number.bel(1.0, 2.0), EVREG_BEL_1_2, rtol=1e-12)
    np.testing.assert_allclose(number.interval(0.9), EVREG_BELINT_90, rtol=1e-12)


def test_bel_follows_the_definition_not_evreg_1_0():
    number = GaussianRandomFuzzyNumber(2.0, 1.0, 2.0)
    reference = definition_bel(1.0, 2.0, 2.0, 1.0, 2.0)
    np.testing.assert_allclose(reference, 0.0270010, atol=5e-8)
    np.testing.assert_allclose(number.bel(1.0, 2.0), reference, atol=1e-10)
    assert abs(float(number.bel(1.0, 2.0)) - EVREG_1_0_BEL_1_2) > 0.2


# ----------------------------------------------------------------------------- intervals


@pytest.mark.parametrize(
    "mu, sigma, h", [(2.0, 1.0, 2.0), (0.0, 0.2, 0.5), (1.0, 3.0, 40.0), (0.0, 0.0, 1.0)]
)
@pytest.mark.parametrize("level", [0.5, 0.9, 0.99])
def test_intervals_reach_their_level_and_no_narrower_one_does(mu, sigma, h, level):
    number = GaussianRandomFuzzyNumber(mu, sigma, h)
    for kind, measure in [("belief", definition_bel), ("plausibility", definition_pl)]:
        lower, upper = number.interval(level, kind=kind)
        np.testing.assert_allclose(lower + upper, 2 * mu, atol=1e-9)
        reached = measure(lower, upper, mu, sigma, h)
        if upper - lower > 1e-9:  # the smallest half-width: the measure equals the level there
            np.testing.assert_allclose(reached, level, atol=1e-8)
        else:  # Pl({mean}) = (1 + h sigma^2)^(-1/2) already reaches the level
            assert kind == "plausibility" and reached >= level
    lower, upper = number.interval(level, kind="probabilistic")
    if sigma > 0:
        np.testing.assert_allclose(stats.norm.cdf(upper, mu, sigma) - stats.norm.cdf(lower, mu, sigma), level)
    # belief interval contains the probabilistic one contains the plausibility one
    bel_interval = number.interval(level)
    pl_interval = number.interval(level, kind="plausibility")
    assert bel_interval[1] >= upper - 1e-9 >= pl_interval[1] - 2e-9


def test_belief_interval_of_a_vacuous_number_is_the_real_line():
    lower, upper = GaussianRandomFuzzyNumber([0.0, 1.0], 1.0, [0.0, 1.0]).interval(0.9)
    assert lower[0] == -np.inf and upper[0] == np.inf and np.isfinite([lower[1], upper[1]]).all()


def test_batches_broadcast_and_agree_with_single_numbers():
    mean = np.array([0.0, 1.0, -2.0])
    std = np.array([[1.0], [0.5]])
    number = GaussianRandomFuzzyNumber(mean, std, 2.0)
    assert number.shape == (2, 3) and len(number) == 2
    bel, pl = number.bel(-1.0, 1.0), number.pl(-1.0, 1.0)
    lower, _ = number.interval(0.8)
    for i in range(2):
        for j in range(3):
            single = GaussianRandomFuzzyNumber(mean[j], std[i, 0], 2.0)
            np.testing.assert_allclose(bel[i, j], single.bel(-1.0, 1.0), rtol=1e-14)
            np.testing.assert_allclose(pl[i, j], single.pl(-1.0, 1.0), rtol=1e-14)
            np.testing.assert_allclose(lower[i, j], single.interval(0.8)[0], rtol=1e-12)
    np.testing.assert_allclose(number[1].mean, mean)


def test_cumulative_bounds_bracket_the_normal_cdf():
    number = GaussianRandomFuzzyNumber(1.0, 2.0, 0.7)
    x = np.linspace(-6, 8, 41)
    bel, pl = number.cumulative(x)
    cdf = stats.norm.cdf(x, 1.0, 2.0)
    assert (bel <= cdf + 1e-12).all() and (cdf <= pl + 1e-12).all()
    assert (np.diff(bel) >= -1e-12).all() and (np.diff(pl) >= -1e-12).all()
    np.testing.assert_allclose(bel[5], definition_bel(-np.inf, x[5], 1.0, 2.0, 0.7), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    mu=st.floats(-5, 5),
    sigma=st.floats(0, 3),
    h=st.floats(0, 20),
    a=st.floats(-8, 8),
    width=st.floats(0, 8),
)
def test_bel_below_probability_below_pl(mu, sigma, h, a, width):
    number = GaussianRandomFuzzyNumber(mu, sigma, h)
    b = a + width
    bel, pl = float(number.bel(a, b)), float(number.pl(a, b))
    with np.errstate(over="ignore"):
        probability = (
            (stats.norm.cdf(b, mu, sigma) - stats.norm.cdf(a, mu, sigma))
            if sigma > 0
            else float(a <= mu <= b)
        )
    assert 0.0 <= bel <= probability + 1e-12 and probability <= pl + 1e-12 <= 1.0 + 1e-12


# ----------------------------------------------------------------------------- combination


def definition_combination(first, second, *, soft=True):
    """Mean and std of the combined mode and the conflict, from the definition.

    The expectations over the independent modes ``(M_1, M_2)`` use a 150 x 150 Gauss-Hermite product
    rule (exact for polynomials of degree < 300 times the normal weight; the height is entire).
    """
    (m1, s1, h1), (m2, s2, h2) = first, second
    hbar = h1 * h2 / (h1 + h2)
    nodes, weights = np.polynomial.hermite_e.hermegauss(150)
    weights = weights / weights.sum()
    a = m1 + s1 * nodes[:, None]
    b = m2 + s2 * nodes[None, :]
    weight = weights[:, None] * weights[None, :] * (np.exp(-0.5 * hbar * (a - b) ** 2) if soft else 1.0)
    u1, u2 = h1 / (h1 + h2), h2 / (h1 + h2)
    total = weight.sum()
    mode = u1 * a + u2 * b
    first_moment = (weight * mode).sum() / total
    second_moment = (weight * mode**2).sum() / total
    return first_moment, np.sqrt(second_moment - first_moment**2), (1.0 - total) if soft else 0.0


#: evreg 1.1.1, man/combination_GRFN.Rd: GRFN1 = (mu=1, sig=1, h=2), GRFN2 = (mu=2, sig=2, h=3)
EVREG_COMBINATION_SOFT = (
    1.25714285714285714285714285714,
    0.956182887467514911975053743754,
    5.0,
    0.653082874940514403643803538381,
)
EVREG_COMBINATION_HARD = (1.6, 1.26491106406735173279955741777, 5.0, 0.0)


@pytest.mark.parametrize(
    "normalization, expected", [("soft", EVREG_COMBINATION_SOFT), ("hard", EVREG_COMBINATION_HARD)]
)
def test_combination_matches_evreg_manual_example(normalization, expected):
    combined, conflict = combine_grfn(
        [GaussianRandomFuzzyNumber(1.0, 1.0, 2.0), GaussianRandomFuzzyNumber(2.0, 2.0, 3.0)],
        normalization=normalization,
    )
    np.testing.assert_allclose(
        [combined.mean, combined.std, combined.precision, conflict], expected, rtol=1e-13, atol=1e-15
    )


@pytest.mark.parametrize(
    "first, second",
    [
        ((1.0, 1.0, 2.0), (2.0, 2.0, 3.0)),
        ((0.0, 1.0, 1.0), (3.0, 0.5, 4.0)),
        ((2.0, 0.3, 0.5), (-1.0, 1.5, 2.0)),
    ],
)
@pytest.mark.parametrize("soft", [True, False])
def test_combination_matches_the_definition(first, second, soft):
    combined, conflict = combine_grfn(
        [GaussianRandomFuzzyNumber(*first), GaussianRandomFuzzyNumber(*second)],
        normalization="soft" if soft else "hard",
    )
    mean, std, kappa = definition_combination(first, second, soft=soft)
    np.testing.assert_allclose(
        [combined.mean, combined.std, conflict], [mean, std, kappa], rtol=1e-7, atol=1e-9
    )
    np.testing.assert_allclose(combined.precision, first[2] + second[2])


def test_conflict_with_a_consonant_number_follows_the_definition_not_evreg():
    # GRFN(0, 1, 1) and the consonant GRFN(1.5, 0, 1): kappa = 1 - E[exp(-hbar (M - 1.5)^2 / 2)], hbar = 1/2
    _, conflict = combine_grfn(
        [GaussianRandomFuzzyNumber(0.0, 1.0, 1.0), GaussianRandomFuzzyNumber(1.5, 0.0, 1.0)]
    )
    reference = 1.0 - _expect(lambda m: np.exp(-0.25 * (m - 1.5) ** 2), 0.0, 1.0)
    np.testing.assert_allclose(conflict, reference, rtol=1e-10)
    np.testing.assert_allclose(conflict, 0.438830653758888509060480990499, rtol=1e-12)
    # evreg 1.1.1's branch for sig2 = 0 gives 0.282039723178761686646247412273 (mpmath from its closed form)
    assert abs(float(conflict) - 0.282039723178761686646247412273) > 0.1


@settings(max_examples=40, deadline=None)
@given(
    parameters=st.lists(
        st.tuples(st.floats(-3, 3), st.floats(0.01, 2), st.floats(0.01, 5)), min_size=3, max_size=3
    ),
    soft=st.booleans(),
)
def test_combination_is_associative_and_commutative(parameters, soft):
    numbers = [GaussianRandomFuzzyNumber(*p) for p in parameters]
    normalization = "soft" if soft else "hard"
    all_at_once, kappa = combine_grfn(numbers, normalization=normalization)
    first_two, kappa12 = combine_grfn(numbers[:2], normalization=normalization)
    nested, kappa_rest = combine_grfn([numbers[2], first_two], normalization=normalization)
    np.testing.assert_allclose(
        [nested.mean, nested.std, nested.precision],
        [all_at_once.mean, all_at_once.std, all_at_once.precision],
        rtol=1e-9,
        atol=1e-12,
    )
    np.testing.assert_allclose(1 - kappa, (1 - kappa12) * (1 - kappa_rest), rtol=1e-9, atol=1e-15)


def test_combining_vacuous_numbers():
    combined, conflict = combine_grfn(
        [GaussianRandomFuzzyNumber(1.0, 1.0, 0.0), GaussianRandomFuzzyNumber(0.0, 2.0, 3.0)]
    )
    np.testing.assert_allclose(
        [combined.mean, combined.std, combined.precision, conflict], [0.0, 2.0, 3.0, 0.0]
    )
    combined, conflict = combine_grfn([GaussianRandomFuzzyNumber(1.0, 1.0, 0.0)] * 2)
    assert combined.precision == 0 and conflict == 0


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "arguments, name",
    [
        ((np.nan, 1.0, 1.0), "mean"),
        ((0.0, -1.0, 1.0), "std"),
        ((0.0, 1.0, -1.0), "precision"),
        ((0.0, 1.0, np.inf), "precision"),
        (("a", 1.0, 1.0), "mean"),
        ((None, 1.0, 1.0), "mean"),
        (([0.0, 1.0], [1.0, 1.0, 1.0], 1.0), "broadcast"),
    ],
)
def test_bad_parameters_are_refused(arguments, name):
    with pytest.raises((ValueError, TypeError), match=name):
        GaussianRandomFuzzyNumber(*arguments)


def test_bad_calls_are_refused():
    number = GaussianRandomFuzzyNumber(0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="lower"):
        number.bel(2.0, 1.0)
    with pytest.raises(ValueError, match="lower"):
        number.pl(np.nan, 1.0)
    with pytest.raises(ValueError, match="x"):
        number.contour([np.nan])
    with pytest.raises(ValueError, match="level"):
        number.interval(90)
    with pytest.raises(ValueError, match="kind"):
        number.interval(0.9, kind="credal")
    with pytest.raises(ValueError, match="normalization"):
        combine_grfn([number, number], normalization="dempster")
    with pytest.raises(TypeError, match="numbers"):
        combine_grfn([number, (0.0, 1.0, 1.0)])
    with pytest.raises(ValueError, match="numbers"):
        combine_grfn([])


def test_normal_cdf_at_a_subnormal_scale_is_its_limit_without_warning():
    import warnings

    from dstk.reasoning._grfn import _normal_cdf

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _normal_cdf(np.array([1.0, -1.0, 0.0]), np.array([5e-324, 5e-324, 5e-324]))
    np.testing.assert_array_equal(got, [1.0, 0.0, 0.5])
