"""Single-leaf scores against the reference values of the authors' code and brute force."""

import numpy as np
import pytest
from scipy import stats

from dstk.ensemble._leaf_scores import (
    leaf_confidence_bound,
    leaf_confidence_height,
    leaf_laplace,
    leaf_plausibility_degrees,
    leaf_plausibility_mass,
    leaf_plausibility_score,
    leaf_probability,
    map_distinct_pairs,
)

# research note calib-ensemble-anchors.md section 1.4 (values produced by the authors' code)
# p, n-, pi+, pi-, u_e, u_a, m(+), m(-), Laplace, CB c, CB score
REFERENCE_LEAVES = [
    (0, 0, 1, 1, 1, 0, 0, 0, 0.5, None, 0.5),
    (1, 0, 1, 0.333333, 0.333333, 0, 0.666667, 0, 0.666667, 0.75, 0.625),
    (1, 1, 0.618034, 0.618034, 0.618034, 0.381966, 0, 0, 0.5, 1, 0.5),
    (2, 0, 1, 0.171573, 0.171573, 0, 0.828427, 0, 0.75, 0.5, 0.75),
    (2, 1, 0.712083, 0.411958, 0.411958, 0.287917, 0.300125, 0, 0.6, 0.875, 0.520833),
    (3, 1, 0.765236, 0.281592, 0.281592, 0.234764, 0.483645, 0, 0.666667, 0.75, 0.5625),
    (5, 0, 1, 0.027222, 0.027222, 0, 0.972778, 0, 0.857143, 0.152778, 0.923611),
    (5, 5, 0.406105, 0.406105, 0.406105, 0.593895, 0, 0, 0.5, 1, 0.5),
    (10, 2, 0.794805, 0.039349, 0.039349, 0.205195, 0.755456, 0, 0.785714, 0.202270, 0.765910),
    (20, 5, 0.718884, 0.007242, 0.007242, 0.281116, 0.711643, 0, 0.777778, 0.078897, 0.776331),
    (50, 50, 0.182801, 0.182801, 0.182801, 0.817199, 0, 0, 0.5, 1, 0.5),
]


@pytest.mark.parametrize("row", REFERENCE_LEAVES, ids=lambda r: f"p{r[0]}n{r[1]}")
def test_reference_leaf_table(row):
    p, q, pi_plus, pi_minus, u_e, u_a, m_plus, m_minus, laplace, c, cb = row
    got_plus, got_minus = leaf_plausibility_degrees([p], [q])
    assert got_plus[0] == pytest.approx(pi_plus, abs=1e-6)
    assert got_minus[0] == pytest.approx(pi_minus, abs=1e-6)
    mass = leaf_plausibility_mass([p], [q])[0]
    assert mass[2] == pytest.approx(m_plus, abs=1e-6)
    assert mass[1] == pytest.approx(m_minus, abs=1e-6)
    assert mass[3] == pytest.approx(u_e + u_a, abs=1e-6)
    assert mass.sum() == pytest.approx(1.0, abs=1e-12)
    assert leaf_laplace([p], [q])[0] == pytest.approx(laplace, abs=1e-6)
    score, height = leaf_confidence_bound([p], [q]), leaf_confidence_height([p], [q])
    assert score[0] == pytest.approx(cb, abs=1e-6)
    if c is None:
        assert np.isnan(height[0])
    else:
        assert height[0] == pytest.approx(c, abs=1e-6)


def test_reference_large_leaf_rescaled():
    # (600, 300) is rescaled to (537, 268) by the authors' code
    pi_plus, pi_minus = leaf_plausibility_degrees([600], [300], rescale_above=537)
    assert pi_plus[0] == pytest.approx(0.379823, abs=1e-6)
    assert pi_minus[0] < 1e-12
    assert leaf_laplace([600], [300])[0] == pytest.approx(0.666297, abs=1e-6)
    assert leaf_confidence_bound([600], [300])[0] == pytest.approx(0.666667, abs=1e-6)
    # without rescaling the exact (600, 300) value differs
    exact_plus, _ = leaf_plausibility_degrees([600], [300])
    assert abs(exact_plus[0] - 0.379823) > 1e-4


def _brute_force_degrees(p, q):
    theta = np.linspace(0.0, 1.0, 2_000_001)
    n = p + q
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pl = (p * np.log(theta) if p else 0) + (q * np.log1p(-theta) if q else 0)
        if n:
            log_pl = log_pl - ((p * np.log(p / n) if p else 0) + (q * np.log(q / n) if q else 0))
    pl = np.exp(log_pl) * np.ones_like(theta)
    return np.max(np.minimum(pl, 2 * theta - 1)), np.max(np.minimum(pl, 1 - 2 * theta))


@pytest.mark.parametrize("p,q", [(0, 3), (4, 1), (7, 7), (3, 9), (12, 0)])
def test_plausibility_degrees_brute_force(p, q):
    plus, minus = _brute_force_degrees(p, q)
    got_plus, got_minus = leaf_plausibility_degrees([p], [q])
    assert got_plus[0] == pytest.approx(plus, abs=2e-6)
    assert got_minus[0] == pytest.approx(minus, abs=2e-6)
    assert leaf_plausibility_score([p], [q])[0] == pytest.approx(plus - minus, abs=4e-6)


@pytest.mark.parametrize("p,q", [(1, 0), (2, 1), (3, 1), (10, 2), (20, 5), (7, 7), (0, 4), (4, 9)])
def test_confidence_bound_scipy_betabinom(p, q):
    n = p + q
    positive = stats.betabinom(n, p + 1, q + 1)
    negative = stats.betabinom(n, q + 1, p + 1)
    # the curves are mirror images and cross at n/2
    x = np.arange(n + 1)
    assert np.allclose(positive.pmf(x), negative.pmf(n - x))
    height = 0.5 * (positive.pmf(np.floor(n / 2)) + positive.pmf(np.ceil(n / 2)))
    c = height / positive.pmf(x).max()
    score, got_c = leaf_confidence_bound([p], [q]), leaf_confidence_height([p], [q])
    assert got_c[0] == pytest.approx(c, rel=1e-9)
    assert score[0] == pytest.approx(0.5 + (1 - c) * (p / n - 0.5), rel=1e-9)


def test_probability_and_laplace():
    assert np.allclose(leaf_probability([0, 3, 1], [0, 1, 3]), [0.5, 0.75, 0.25])
    assert np.allclose(leaf_laplace([0, 3], [0, 1]), [0.5, 4 / 6])


def test_mass_pure_large_leaf_not_dogmatic():
    # m(frame) = u_a + u_e is formed without cancellation: pi- of a pure leaf survives
    mass = leaf_plausibility_mass([80], [0])[0]
    _, pi_minus = leaf_plausibility_degrees([80], [0])
    assert 0 < mass[3] == pytest.approx(pi_minus[0], rel=1e-12)


def test_map_distinct_pairs_dense_and_unique_paths_agree():
    rng = np.random.default_rng(0)
    pos = rng.integers(0, 30, size=(50, 7))
    neg = rng.integers(0, 30, size=(50, 7))
    f = lambda a, b: a * 1000 + b  # noqa: E731
    dense = map_distinct_pairs(pos, neg, f)
    unique = map_distinct_pairs(pos.astype(float), neg.astype(float), f)
    assert np.array_equal(dense, pos * 1000 + neg)
    assert np.array_equal(unique, dense)


@pytest.mark.parametrize("bad", [[-1], [np.nan], ["a"]])
def test_bad_counts(bad):
    with pytest.raises(ValueError):
        leaf_plausibility_score(bad, [1])
    with pytest.raises(ValueError):
        leaf_probability([1], bad)


def test_shape_mismatch():
    with pytest.raises(ValueError, match="same shape"):
        leaf_laplace([1, 2], [1])
