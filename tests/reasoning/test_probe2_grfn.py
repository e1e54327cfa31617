"""Second review of Gaussian random fuzzy numbers: inputs at the edges of float64.

The combination is covariant under a change of unit (Denoeux 2023a, Prop. 9):
for ``x -> c x`` a number ``GRFN(mu, sigma^2, h)`` becomes
``GRFN(c mu, c^2 sigma^2, h / c^2)``, and the combination of the rescaled
numbers is the rescaled combination with the same conflict.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dstk.reasoning import GaussianRandomFuzzyNumber, combine_grfn


@pytest.mark.parametrize("normalization", ["soft", "hard"])
@pytest.mark.parametrize("precision", [1e155, 1e200, 1e300])
def test_large_precisions_combine_like_the_rescaled_numbers(precision, normalization):
    # h1 * h2 overflowed although h1 h2 / (h1 + h2) and every h sigma^2 are finite
    c = np.sqrt(precision)
    means, std = np.array([0.0, 3.0]), 2.0
    numbers = [GaussianRandomFuzzyNumber(m / c, std / c, precision) for m in means]
    unit = [GaussianRandomFuzzyNumber(m, std, 1.0) for m in means]
    got, conflict = combine_grfn(numbers, normalization=normalization)
    want, want_conflict = combine_grfn(unit, normalization=normalization)
    assert float(got.mean) * c == pytest.approx(float(want.mean), rel=1e-12)
    assert float(got.std) * c == pytest.approx(float(want.std), rel=1e-12)
    assert float(got.precision) / c**2 == pytest.approx(float(want.precision), rel=1e-12)
    assert float(conflict) == pytest.approx(float(want_conflict), rel=1e-12)


def _sup_inside(mode, h, a, b):
    return np.exp(-0.5 * h * (np.clip(mode, a, b) - mode) ** 2)


def _sup_outside(mode, h, a, b):
    if mode < a or mode > b:
        return 1.0
    return np.exp(-0.5 * h * min(mode - a, b - mode) ** 2)


def _integrated(mu, sigma, h, a, b):
    """Bel and Pl of [a, b] from the definition, E over the mode M ~ N(mu, sigma^2) (Denoeux 2023a, Sec. 4.2)."""
    from scipy import integrate, stats

    if sigma == 0:
        return 1.0 - _sup_outside(mu, h, a, b), _sup_inside(mu, h, a, b)
    ends = [mu - 14 * sigma, mu + 14 * sigma]
    cuts = sorted(ends + [p for p in (a, b, 0.5 * (a + b)) if np.isfinite(p) and ends[0] < p < ends[1]])
    density = stats.norm(mu, sigma).pdf
    bel = pl = 0.0
    for lo, hi in itertools.pairwise(cuts):
        bel += integrate.quad(lambda m: (1 - _sup_outside(m, h, a, b)) * density(m), lo, hi, limit=200)[0]
        pl += integrate.quad(lambda m: _sup_inside(m, h, a, b) * density(m), lo, hi, limit=200)[0]
    return bel, pl


def test_bel_and_pl_of_intervals_and_half_lines_equal_the_integrated_definition():
    rng = np.random.default_rng(20261129)
    for i in range(90):
        mu = 3 * rng.normal()
        sigma = [0.0, rng.exponential(), 5 * rng.exponential()][i % 3]
        h = [0.0, rng.exponential(), 20 * rng.exponential()][(i // 3) % 3]
        a, b = np.sort(4 * rng.normal(size=2))
        a, b = [(a, b), (-np.inf, b), (a, np.inf), (a, a), (a, b)][i % 5]
        number = GaussianRandomFuzzyNumber(mu, sigma, h)
        bel, pl = _integrated(mu, sigma, h, a, b)
        assert float(number.bel(a, b)) == pytest.approx(bel, abs=1e-9)
        assert float(number.pl(a, b)) == pytest.approx(pl, abs=1e-9)


def _expect(f, mu1, s1, mu2, s2):
    """E[f(M1, M2)] for independent normal modes: Simpson's rule on a 1201 x 1201 grid over +-10 sd."""
    from scipy import integrate, stats

    m1 = np.linspace(mu1 - 10 * s1, mu1 + 10 * s1, 1201)
    m2 = np.linspace(mu2 - 10 * s2, mu2 + 10 * s2, 1201)
    values = f(m1[:, None], m2[None, :]) * stats.norm.pdf(m1, mu1, s1)[:, None]
    return integrate.simpson(integrate.simpson(values * stats.norm.pdf(m2, mu2, s2), x=m2), x=m1)


def test_soft_combination_equals_the_integrated_product_intersection():
    # Pl of the combination: E[sup_A phi_1 phi_2] / E[hgt(phi_1 phi_2)], conflict 1 - E[hgt]
    # (Denoeux 2023a, Prop. 9)
    rng = np.random.default_rng(7)
    for _ in range(3):
        mu1, mu2 = 2 * rng.normal(size=2)
        s1, s2 = rng.exponential(size=2) + 0.1
        h1, h2 = 2 * rng.exponential(size=2) + 0.05
        a, b = np.sort(2 * rng.normal(size=2))
        total = h1 + h2
        hbar = h1 * h2 / total

        def height(m1, m2, hbar=hbar):
            return np.exp(-0.5 * hbar * (m1 - m2) ** 2)

        def sup_inside(m1, m2, h1=h1, h2=h2, a=a, b=b):
            mode = (h1 * m1 + h2 * m2) / (h1 + h2)
            return height(m1, m2) * _sup_inside(mode, h1 + h2, a, b)

        agreement = _expect(height, mu1, s1, mu2, s2)
        combined, conflict = combine_grfn(
            [GaussianRandomFuzzyNumber(mu1, s1, h1), GaussianRandomFuzzyNumber(mu2, s2, h2)]
        )
        assert float(conflict) == pytest.approx(1 - agreement, abs=1e-6)
        pl = _expect(sup_inside, mu1, s1, mu2, s2) / agreement
        assert float(combined.pl(a, b)) == pytest.approx(pl, abs=1e-6)


def test_belief_interval_is_the_smallest_central_interval_at_the_level():
    rng = np.random.default_rng(3)
    for _ in range(10):
        mu, sigma, h = rng.normal(), rng.exponential(), rng.exponential() + 0.1
        level = rng.uniform(0.05, 0.95)
        number = GaussianRandomFuzzyNumber(mu, sigma, h)
        _, upper = number.interval(level)
        r = float(upper) - mu
        assert _integrated(mu, sigma, h, mu - r, mu + r)[0] == pytest.approx(level, abs=1e-9)
        assert _integrated(mu, sigma, h, mu - r * (1 - 1e-6), mu + r * (1 - 1e-6))[0] < level


def test_points_that_do_not_broadcast_against_the_batch_are_named():
    # numpy's "mismatch between arg 0 and arg 2" named internal arguments; a grid for every number
    # is x[:, None]
    numbers = GaussianRandomFuzzyNumber([0.0, 1.0, 2.0], 1.0, 1.0)
    grid = np.linspace(-3.0, 3.0, 5)
    for call, name in [
        (lambda: numbers.contour(grid), "x"),
        (lambda: numbers.pl(grid, 4.0), "lower"),
        (lambda: numbers.bel(-4.0, grid), "upper"),
        (lambda: numbers.cumulative(grid), "x"),
    ]:
        with pytest.raises(ValueError, match=rf"`{name}` of shape \(5,\).*batch shape \(3,\).*\[:, None\]"):
            call()
    assert numbers.contour(grid[:, None]).shape == (5, 3)
    assert numbers.cumulative(grid[:, None])[0].shape == (5, 3)
