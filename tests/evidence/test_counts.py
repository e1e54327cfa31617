"""Tests of dstk.evidence._counts against published tables and independent references."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, special, stats

from dstk._kernels.counts import (
    likelihood_mass_kernel,
    plausibility_degrees_kernel,
    regularized_incomplete_beta,
    support_degree,
)
from dstk.evidence import COUNT_MODELS, clopper_pearson_interval, from_counts, plausibility_degrees
from dstk.evidence._counts import _BINARY_MODELS as BINARY_MODELS
from dstk.evidence._counts import _binary_mass_array as counts_to_mass_array
from dstk.evidence._counts import _check_counts, _clopper_pearson, _plausibility_degrees
from dstk.evidence._counts import _class_mass_array as class_counts_to_mass_array


def degrees(k, n, allow_fractional=False):
    """Plausibility degrees from (class-1 count, total): the private path the tree layer uses."""
    return _plausibility_degrees(*_check_counts(k, n, allow_fractional))


def clopper_pearson(k, n, level=0.95):
    return _clopper_pearson(*_check_counts(k, n), level)


# ---------------------------------------------------------------------------
# reference tables (research note calib-ensemble-anchors.md, sections 1.4 and 2.3)
# ---------------------------------------------------------------------------

# k/n -> (likelihood m1, m0, mframe), (Dempster m1, m0, mframe), (Clopper-Pearson 95% m1, m0, mframe
# WITHOUT the (1 - alpha) factor of Xu et al. Eqs. 26c/27c)
NOTE_TABLE = {
    (0, 1): ((0, 0.5, 0.5), (0, 0.5, 0.5), (0, 0.025, 0.975)),
    (1, 2): ((0.1667, 0.1667, 0.6667), (0.3333, 0.3333, 0.3333), (0.0126, 0.0126, 0.9748)),
    (3, 4): ((0.4500, 0.0759, 0.4741), (0.6, 0.2, 0.2), (0.1941, 0.0063, 0.7996)),
    (7, 10): ((0.5059, 0.1533, 0.3407), (0.6364, 0.2727, 0.0909), (0.3475, 0.0667, 0.5857)),
    (70, 100): ((0.6403, 0.2456, 0.1141), (0.6931, 0.2970, 0.0099), (0.6002, 0.2124, 0.1874)),
    (10, 10): ((0.9091, 0, 0.0909), (0.9091, 0, 0.0909), (0.6915, 0, 0.3085)),
}

# (p, n_minus) -> pi+, pi-, u_e, u_a, m(+), m(-) produced by the RDT-Uncertainty reference code
PLAUSIBILITY_TABLE = [
    (0, 0, 1, 1, 1, 0, 0, 0),
    (1, 0, 1, 0.333333, 0.333333, 0, 0.666667, 0),
    (1, 1, 0.618034, 0.618034, 0.618034, 0.381966, 0, 0),
    (2, 0, 1, 0.171573, 0.171573, 0, 0.828427, 0),
    (2, 1, 0.712083, 0.411958, 0.411958, 0.287917, 0.300125, 0),
    (3, 1, 0.765236, 0.281592, 0.281592, 0.234764, 0.483645, 0),
    (5, 0, 1, 0.027222, 0.027222, 0, 0.972778, 0),
    (5, 5, 0.406105, 0.406105, 0.406105, 0.593895, 0, 0),
    (10, 2, 0.794805, 0.039349, 0.039349, 0.205195, 0.755456, 0),
    (20, 5, 0.718884, 0.007242, 0.007242, 0.281116, 0.711643, 0),
    (50, 50, 0.182801, 0.182801, 0.182801, 0.817199, 0, 0),
]


def _m(arr):
    """(m1, m0, mframe) from a dense binary mass array."""
    return arr[..., 2], arr[..., 1], arr[..., 3]


# ---------------------------------------------------------------------------
# published values
# ---------------------------------------------------------------------------


def test_likelihood_k7_n10_reference_values():
    masses = counts_to_mass_array(7, 10, "likelihood")
    assert masses[3] == pytest.approx(0.340703, abs=1e-6)
    # int_0^0.7 pl = 0.194052, so m({1}) = 0.7 - 0.194052
    assert masses[2] == pytest.approx(0.7 - 0.194052, abs=1e-6)


@pytest.mark.parametrize("pair", sorted(NOTE_TABLE))
def test_note_table_likelihood_dempster_clopper_pearson(pair):
    k, n = pair
    likelihood, dempster, clopper = NOTE_TABLE[pair]
    np.testing.assert_allclose(_m(counts_to_mass_array(k, n, "likelihood")), likelihood, atol=6e-5)
    np.testing.assert_allclose(_m(counts_to_mass_array(k, n, "dempster")), dempster, atol=6e-5)
    m1, m0, _ = _m(counts_to_mass_array(k, n, "confidence_interval", level=0.95))
    # the paper's model multiplies the note's singleton masses by (1 - alpha)
    assert m1 == pytest.approx(0.95 * clopper[0], abs=6e-5)
    assert m0 == pytest.approx(0.95 * clopper[1], abs=6e-5)


@pytest.mark.parametrize("row", PLAUSIBILITY_TABLE)
def test_plausibility_reference_table(row):
    p, q, pi_plus, pi_minus, u_e, u_a, m_plus, m_minus = row
    got_plus, got_minus = degrees(p, p + q)
    assert got_plus == pytest.approx(pi_plus, abs=1e-6)
    assert got_minus == pytest.approx(pi_minus, abs=1e-6)
    assert min(got_plus, got_minus) == pytest.approx(u_e, abs=1e-6)
    assert 1 - max(got_plus, got_minus) == pytest.approx(u_a, abs=1e-6)
    masses = counts_to_mass_array(p, p + q, "plausibility")
    assert masses[2] == pytest.approx(m_plus, abs=1e-6)
    assert masses[1] == pytest.approx(m_minus, abs=1e-6)
    assert masses[3] == pytest.approx(u_a + u_e, abs=2e-6)


def test_golden_ratio_value():
    pi_plus, pi_minus = degrees(1, 2)
    golden = (math.sqrt(5) - 1) / 2
    assert pi_plus == pytest.approx(golden, abs=1e-14)
    assert pi_minus == pytest.approx(golden, abs=1e-14)


def test_plausibility_no_rescaling_but_rescaled_pair_matches_reference_code():
    # the reference code rescales (600, 300) to (537, 268) and reports pi+ = 0.379823;
    # dstk does not rescale, so the rescaled counts reproduce that value ...
    pi_plus, pi_minus = degrees(537, 805)
    assert pi_plus == pytest.approx(0.379823, abs=1e-6)
    assert pi_minus < 1e-15
    # ... and (600, 300) itself matches an independent log-domain root search
    pi_plus, _ = degrees(600, 900)
    assert pi_plus == pytest.approx(_support_reference_log(600, 300), rel=1e-10)
    assert abs(pi_plus - 0.379823) > 1e-3


# ---------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------


def _support_reference_plain(p, q):
    """pi(+) by brentq on pl(theta) - (2 theta - 1) in the plain domain (small counts only)."""
    n = p + q
    if n == 0 or q == 0:
        return 1.0
    p_hat = p / n

    def pl(theta):
        return theta**p * (1 - theta) ** q / (p_hat**p * (1 - p_hat) ** q)

    lower = max(p_hat, 0.5)
    theta = optimize.brentq(lambda t: pl(t) - (2 * t - 1), lower, 1.0, xtol=1e-15, rtol=1e-15)
    return 2 * theta - 1


def _support_reference_log(p, q):
    """pi(+) by brentq in u = 2 theta - 1 on log pl((1 + u)/2) - log u (relative accuracy for tiny pi)."""
    n = p + q
    p_hat = p / n

    def g(u):
        theta = (1 + u) / 2
        return special.xlogy(p, theta / p_hat) + special.xlogy(q, (1 - u) / 2 / (1 - p_hat)) - math.log(u)

    lower = max(2 * p_hat - 1, 1e-300)
    upper = np.nextafter(1.0, 0.0)
    if g(lower) < 0:
        return 0.0  # pi(+) < 1e-300: pl(1/2) underflows
    return optimize.brentq(g, lower, upper, xtol=1e-300, rtol=1e-15, maxiter=2000)


def _support_brute_force(p, q, grid_size=200001):
    """The definition sup_theta min(pl, 2 theta - 1) on a dense grid."""
    theta = np.linspace(0, 1, grid_size)
    n = p + q
    if n == 0:
        return 1.0
    p_hat = p / n
    log_pl = (
        special.xlogy(p, theta)
        + special.xlogy(q, 1 - theta)
        - special.xlogy(p, p_hat)
        - special.xlogy(q, 1 - p_hat)
    )
    return float(np.max(np.minimum(np.exp(log_pl), 2 * theta - 1)))


def test_plausibility_matches_plain_brentq_and_brute_force():
    pairs = [(p, q) for p in range(25) for q in range(25)]
    k = np.array([p for p, _ in pairs], float)
    n = np.array([p + q for p, q in pairs], float)
    pi_plus, pi_minus = degrees(k, n)
    for (p, q), got_plus, got_minus in zip(pairs, pi_plus, pi_minus):
        assert got_plus == pytest.approx(_support_reference_plain(p, q), abs=1e-12)
        assert got_minus == pytest.approx(_support_reference_plain(q, p), abs=1e-12)
    for p, q in [(0, 1), (1, 1), (3, 7), (12, 4), (2, 20)]:
        got_plus, got_minus = degrees(p, p + q)
        assert got_plus == pytest.approx(_support_brute_force(p, q), abs=2e-5)
        assert got_minus == pytest.approx(_support_brute_force(q, p), abs=2e-5)


@pytest.mark.parametrize("p,q", [(3000, 7000), (50_000, 50_001), (10**6, 2 * 10**5), (1, 10**5), (400, 401)])
def test_plausibility_large_counts_log_domain(p, q):
    got_plus, got_minus = degrees(p, p + q)
    ref_plus = _support_reference_log(p, q)
    ref_minus = _support_reference_log(q, p)
    assert got_plus == pytest.approx(ref_plus, rel=1e-9, abs=1e-300)
    assert got_minus == pytest.approx(ref_minus, rel=1e-9, abs=1e-300)


def test_plausibility_tiny_degrees_keep_relative_accuracy():
    # pi- for (700, 300) is about pl(1/2) ~ 1e-18: relative, not absolute, accuracy
    _, pi_minus = degrees(700, 1000)
    reference = _support_reference_log(300, 700)
    assert 0 < pi_minus < 1e-10
    assert pi_minus == pytest.approx(reference, rel=1e-9)


def _likelihood_reference_quad(k, n):
    """Eqs. 22-23 by numerical integration of the contour (Eq. 29)."""
    if n == 0:
        return 0.0, 0.0, 1.0
    tau = k / n

    log_max = special.xlogy(k, tau) + special.xlogy(n - k, 1 - tau)

    def pl(t):
        return math.exp(special.xlogy(k, t) + special.xlog1py(n - k, -t) - log_max)

    left = integrate.quad(pl, 0, tau, epsabs=1e-13, epsrel=1e-12, limit=200)[0] if tau > 0 else 0.0
    right = integrate.quad(pl, tau, 1, epsabs=1e-13, epsrel=1e-12, limit=200)[0] if tau < 1 else 0.0
    m1 = tau - left
    m0 = 1 - tau - right
    return m1, m0, 1 - m1 - m0


def _likelihood_reference_betainc(k, n):
    """Eqs. 29-31 with scipy.special.betainc."""
    tau = k / n
    a, b = k + 1, n - k + 1
    total = math.exp(special.betaln(a, b) - special.xlogy(k, tau) - special.xlogy(n - k, 1 - tau))
    m1 = tau - total * special.betainc(a, b, tau)
    m0 = 1 - tau - total * special.betaincc(a, b, tau)
    return m1, m0, total


def _eq32_lower_incomplete_beta(z, a, b):
    """Eq. 32: the finite sum for integer a, b."""
    return sum(
        math.factorial(a - 1)
        * math.factorial(b - 1)
        / (math.factorial(j) * math.factorial(a + b - 1 - j))
        * z**j
        * (1 - z) ** (a + b - 1 - j)
        for j in range(a, a + b)
    )


def test_likelihood_against_quad_betainc_and_eq32():
    pairs = [(k, n) for n in range(41) for k in range(n + 1)] + [(7, 1000), (500, 1000), (999, 1000)]
    k = np.array([p[0] for p in pairs], float)
    n = np.array([p[1] for p in pairs], float)
    masses = counts_to_mass_array(k, n, "likelihood")
    for (ki, ni), row in zip(pairs, masses):
        m1, m0, mf = _likelihood_reference_quad(ki, ni)
        np.testing.assert_allclose([row[2], row[1], row[3]], [m1, m0, mf], atol=1e-10)
        if 0 < ki < ni:
            np.testing.assert_allclose(
                [row[2], row[1], row[3]], _likelihood_reference_betainc(ki, ni), atol=1e-12
            )
        if 0 < ki < ni <= 30:
            tau = ki / ni
            lower = _eq32_lower_incomplete_beta(tau, ki + 1, ni - ki + 1)
            assert row[2] == pytest.approx(tau - lower / (tau**ki * (1 - tau) ** (ni - ki)), abs=1e-12)


def test_likelihood_end_cases_eq30():
    for n in [1, 2, 5, 50, 1000]:
        np.testing.assert_allclose(
            counts_to_mass_array(0, n, "likelihood"), [0, n / (n + 1), 0, 1 / (n + 1)], atol=1e-15
        )
        np.testing.assert_allclose(
            counts_to_mass_array(n, n, "likelihood"), [0, 0, n / (n + 1), 1 / (n + 1)], atol=1e-15
        )
    # Xu et al.: at tau_hat in {0, 1} the likelihood model equals Dempster's model
    np.testing.assert_allclose(
        counts_to_mass_array(10, 10, "likelihood"), counts_to_mass_array(10, 10, "dempster")
    )


def test_likelihood_large_counts_against_betainc():
    rng = np.random.default_rng(3)
    n = rng.integers(1000, 10**6, 200).astype(float)
    k = np.floor(rng.random(200) * (n + 1))
    masses = counts_to_mass_array(k, n, "likelihood")
    for ki, ni, row in zip(k, n, masses):
        if 0 < ki < ni:
            np.testing.assert_allclose(
                [row[2], row[1], row[3]], _likelihood_reference_betainc(ki, ni), atol=1e-9
            )


def test_regularized_incomplete_beta_against_scipy():
    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 500, 2000)
    b = rng.uniform(0.1, 500, 2000)
    x = rng.random(2000)
    got = np.array([regularized_incomplete_beta(ai, bi, xi) for ai, bi, xi in zip(a, b, x)])
    np.testing.assert_allclose(got, special.betainc(a, b, x), atol=1e-13)
    assert regularized_incomplete_beta(2.0, 3.0, 0.0) == 0.0
    assert regularized_incomplete_beta(2.0, 3.0, 1.0) == 1.0


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_clopper_pearson_against_scipy_binomtest(level):
    for n in [1, 2, 5, 13, 100]:
        for k in range(n + 1):
            lower, upper = clopper_pearson(k, n, level)
            ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
            assert lower == pytest.approx(ci.low, abs=1e-12)
            assert upper == pytest.approx(ci.high, abs=1e-12)
            masses = counts_to_mass_array(k, n, "confidence_interval", level=level)
            assert masses[2] == pytest.approx(level * ci.low, abs=1e-12)
            assert masses[1] == pytest.approx(level * (1 - ci.high), abs=1e-12)


def test_confidence_interval_model_is_eqs_22_23_of_the_step_contour():
    # contour 1 on [L, U], alpha outside (Eq. 25), integrated as in Eqs. 22c/23c
    k, n, level = 7, 10, 0.9
    lower, upper = clopper_pearson(k, n, level)
    alpha = 1 - level
    belief_one = lower - alpha * lower  # int_0^L alpha
    plausibility_one = upper + alpha * (1 - upper)
    masses = counts_to_mass_array(k, n, "confidence_interval", level=level)
    assert masses[2] == pytest.approx(belief_one, abs=1e-14)
    assert masses[1] == pytest.approx(1 - plausibility_one, abs=1e-14)


def test_dempster_bayes_inverse_pignistic_closed_forms():
    k = np.array([0, 1, 3, 5, 9])
    n = np.array([4, 2, 4, 5, 10])
    np.testing.assert_allclose(
        counts_to_mass_array(k, n, "dempster"),
        np.stack([0 * k, (n - k) / (n + 1), k / (n + 1), 1 / (n + 1)], -1),
    )
    np.testing.assert_allclose(
        counts_to_mass_array(k, n, "bayes"), np.stack([0 * k, 1 - k / n, k / n, 0 * k], -1)
    )
    masses = counts_to_mass_array(k, n, "inverse_pignistic")
    # pignistic probability of class 1 is k/n, and the mass is consonant
    np.testing.assert_allclose(masses[:, 2] + masses[:, 3] / 2, k / n)
    assert np.all(masses[:, 1] * masses[:, 2] == 0)
    np.testing.assert_allclose(counts_to_mass_array(1, 2, "inverse_pignistic"), [0, 0, 0, 1])


# ---------------------------------------------------------------------------
# structural properties
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("model", [m for m in BINARY_MODELS if m != "bayes"])
def test_n_zero_is_vacuous(model):
    np.testing.assert_array_equal(counts_to_mass_array([0, 0], [0, 0], model), [[0, 0, 0, 1]] * 2)


def test_bayes_n_zero_raises():
    with pytest.raises(ValueError, match="n = 0"):
        counts_to_mass_array([1, 0], [2, 0], "bayes")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 3000)), min_size=1, max_size=20))
def test_valid_masses_and_label_symmetry(pairs):
    k = np.array([min(a, b) for a, b in pairs], float)
    n = np.array([max(a, b) for a, b in pairs], float)
    for model in BINARY_MODELS:
        if model == "bayes" and (n == 0).any():
            continue
        masses = counts_to_mass_array(k, n, model)
        assert masses.shape == (len(pairs), 4)
        assert np.all(masses >= 0) and np.all(masses <= 1)
        assert np.all(masses[:, 0] == 0)
        np.testing.assert_allclose(masses.sum(-1), 1, atol=1e-12)
        mirrored = counts_to_mass_array(n - k, n, model)
        np.testing.assert_allclose(mirrored[:, [0, 2, 1, 3]], masses, atol=1e-12)
        nonempty = n > 0
        if model in ("dempster", "likelihood", "confidence_interval", "bayes"):
            # Bel({1}) <= k/n <= Pl({1})
            proportion = k[nonempty] / n[nonempty]
            assert np.all(masses[nonempty, 2] <= proportion + 1e-12)
            assert np.all(masses[nonempty, 2] + masses[nonempty, 3] >= proportion - 1e-12)


def test_likelihood_ignorance_between_dempster_and_clopper_pearson():
    # Xu et al. Fig. 4 discussion: the likelihood model is intermediate
    n = np.arange(3, 200, dtype=float)
    k = np.round(2 * n / 3)
    ignorance = {
        m: counts_to_mass_array(k, n, m)[:, 3] for m in ("dempster", "likelihood", "confidence_interval")
    }
    assert np.all(ignorance["dempster"] < ignorance["likelihood"])
    assert np.all(ignorance["likelihood"] < ignorance["confidence_interval"])


def test_shapes_and_broadcasting():
    assert counts_to_mass_array(3, 4).shape == (4,)
    assert counts_to_mass_array(np.zeros((2, 3)), 5).shape == (2, 3, 4)
    assert counts_to_mass_array([], []).shape == (0, 4)
    pi_plus, pi_minus = degrees(np.array([[1, 2]]), np.array([[2], [3]]))
    assert pi_plus.shape == (2, 2) and pi_minus.shape == (2, 2)


def test_memo_table_and_direct_paths_agree():
    rng = np.random.default_rng(1)
    n = rng.integers(0, 60, 300_000).astype(float)
    k = np.floor(rng.random(n.size) * (n + 1))
    with_table = plausibility_degrees_kernel(k, n)
    direct = [np.array([support_degree(a, b - a) for a, b in zip(k[:3000], n[:3000])])]
    np.testing.assert_array_equal(with_table[0][:3000], direct[0])
    masses_table = likelihood_mass_kernel(k, n)
    masses_direct = likelihood_mass_kernel(k[:3000].copy(), n[:3000].copy())  # small input: no table
    np.testing.assert_array_equal(masses_table[:3000], masses_direct)


def test_distinct_pairs_path_gives_the_row_by_row_masses_bit_for_bit():
    # the likelihood model computes each distinct integer pair once and copies it to its rows: the
    # same bits as the kernel run on every row (and on the rows' own order of first occurrences)
    rng = np.random.default_rng(2)
    n = rng.integers(0, 40, 50_000).astype(float)
    k = np.floor(rng.random(n.size) * (n + 1))
    got = counts_to_mass_array(k, n)
    row_by_row = np.array(
        [likelihood_mass_kernel.py_func(k[i : i + 1], n[i : i + 1])[0] for i in range(2_000)]
    )
    np.testing.assert_array_equal(got[:2_000], row_by_row)
    np.testing.assert_array_equal(got, likelihood_mass_kernel(k, n))
    one_pair = counts_to_mass_array(np.full(10, 3.0), np.full(10, 7.0))
    np.testing.assert_array_equal(
        one_pair, np.tile(likelihood_mass_kernel(np.array([3.0]), np.array([7.0])), (10, 1))
    )


def test_fractional_counts():
    with pytest.raises(ValueError, match="non-integer"):
        counts_to_mass_array(1.5, 3)
    masses = counts_to_mass_array(1.5, 3, "plausibility", allow_fractional=True)
    np.testing.assert_allclose(masses, [0, 0, 0, 1], atol=1e-14)  # p_hat = 1/2: symmetric
    pi_plus, _ = degrees(2.5, 3.7, allow_fractional=True)
    assert pi_plus == pytest.approx(_support_reference_plain(2.5, 1.2), abs=1e-12)
    masses = counts_to_mass_array(2.5, 3.7, "likelihood", allow_fractional=True)
    np.testing.assert_allclose(
        [masses[2], masses[1], masses[3]], _likelihood_reference_quad(2.5, 3.7), atol=1e-10
    )


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "k,n,match",
    [
        (5, 3, "exceeds"),
        (-1, 3, "negative"),
        (1, -3, "negative"),
        (1.2, 3, "non-integer"),
        (np.nan, 3, "NaN"),
        (1, np.inf, "infinite"),
        ("a", 3, "numeric"),
        (True, 3, "numeric"),
    ],
)
def test_bad_counts(k, n, match):
    with pytest.raises(ValueError, match=match):
        counts_to_mass_array(k, n, "dempster")
    with pytest.raises(ValueError, match=match):
        degrees(k, n)


def test_bad_shapes_model_and_level():
    with pytest.raises(ValueError, match="broadcastable"):
        counts_to_mass_array([1, 2], [3, 4, 5])
    with pytest.raises(ValueError, match="Unknown model"):
        counts_to_mass_array(1, 2, "laplace")
    for level in [0, 1, 1.5, -0.1, "x", np.nan]:
        with pytest.raises(ValueError, match="level"):
            counts_to_mass_array(1, 2, "confidence_interval", level=level)
        with pytest.raises(ValueError, match="level"):
            clopper_pearson_interval([1, 1], level=level)


# ---------------------------------------------------------------------------
# multi-class counts
# ---------------------------------------------------------------------------


def test_class_counts_dempster_matches_binary_model():
    counts = np.array([[3, 7], [0, 0], [5, 0]])
    np.testing.assert_allclose(
        class_counts_to_mass_array(counts), counts_to_mass_array(counts[:, 1], counts.sum(1), "dempster")
    )


def test_imprecise_dirichlet_lower_and_upper_probabilities():
    counts = np.array([2, 5, 0, 1])
    s = 2.0
    masses = class_counts_to_mass_array(counts, "imprecise_dirichlet", prior_strength=s)
    total = counts.sum()
    for c in range(4):
        belief = masses[2**c]
        plausibility = sum(masses[a] for a in range(16) if a & (1 << c))
        assert belief == pytest.approx(counts[c] / (total + s))
        assert plausibility == pytest.approx((counts[c] + s) / (total + s))
    assert masses.sum() == pytest.approx(1)
    np.testing.assert_array_equal(class_counts_to_mass_array([0, 0, 0], "imprecise_dirichlet")[-1], 1)


def test_class_counts_bad_input():
    with pytest.raises(ValueError, match="at least two classes"):
        class_counts_to_mass_array([3])
    with pytest.raises(ValueError, match="negative"):
        class_counts_to_mass_array([3, -1])
    with pytest.raises(ValueError, match="non-integer"):
        class_counts_to_mass_array([3, 0.5])
    with pytest.raises(ValueError, match="prior_strength"):
        class_counts_to_mass_array([3, 1], "imprecise_dirichlet", prior_strength=0)
    with pytest.raises(ValueError, match="Unknown model"):
        class_counts_to_mass_array([3, 1], "bayes")
    with pytest.raises(ValueError, match="scalar"):
        class_counts_to_mass_array(3)


# ---------------------------------------------------------------------------
# MassFunction wrapping
# ---------------------------------------------------------------------------


def test_from_counts_returns_batched_mass_function():
    from dstk.core import MassFunction

    m = from_counts([[3, 7], [1, 3]], model="dempster")
    assert isinstance(m, MassFunction)
    assert m.batch_shape == (2,)
    np.testing.assert_allclose(m.to_array("m"), counts_to_mass_array([7, 3], [10, 4], "dempster"))
    assert tuple(m.frame.labels) == (0, 1)


@pytest.mark.parametrize("model", COUNT_MODELS)
def test_from_counts_binary_layout_is_negative_then_positive(model):
    """counts[..., 0] counts class 0 (label classes[0]), counts[..., 1] class 1: mirrored counts swap {0} and {1}."""
    counts = np.array([[3, 7], [0, 4], [5, 5], [2, 0]])
    m = from_counts(counts, model=model, classes=("no", "yes")).to_array()
    mirrored = from_counts(counts[:, ::-1], model=model, classes=("no", "yes")).to_array()
    np.testing.assert_allclose(m[:, [0, 2, 1, 3]], mirrored, atol=1e-12)
    if model in BINARY_MODELS:
        np.testing.assert_allclose(m, counts_to_mass_array(counts[:, 1], counts.sum(1), model), atol=1e-15)
    assert from_counts(counts, model=model, classes=("no", "yes")).frame.labels == ("no", "yes")


def test_from_counts_multiclass_and_errors():
    m = from_counts(np.array([[1, 2, 3]]), model="dempster")
    assert m.batch_shape == (1,)
    assert tuple(m.frame.labels) == (0, 1, 2)
    np.testing.assert_allclose(m.to_array("m")[0, [1, 2, 4, 7]], np.array([1, 2, 3, 1]) / 7)
    with pytest.raises(ValueError, match="binary counts"):
        from_counts([1, 2, 3], model="likelihood")
    with pytest.raises(ValueError, match="classes"):
        from_counts([1, 2], model="dempster", classes=("a", "b", "c"))
    with pytest.raises(ValueError, match="Unknown model"):
        from_counts([1, 2], model="laplace")


def test_public_degrees_and_interval_take_binary_counts():
    pi_plus, pi_minus = plausibility_degrees([[1, 2], [3, 0]])
    ref_plus, ref_minus = degrees([2, 0], [3, 3])
    np.testing.assert_array_equal(pi_plus, ref_plus)
    np.testing.assert_array_equal(pi_minus, ref_minus)
    lower, upper = clopper_pearson_interval([3, 7])
    assert (float(lower), float(upper)) == pytest.approx((0.3475, 0.9333), abs=1e-4)
    with pytest.raises(ValueError, match=r"\(\.\.\., 2\)"):
        plausibility_degrees([1, 2, 3])


@pytest.mark.parametrize("model", ["likelihood", "bayes", "dempster", "plausibility", "imprecise_dirichlet"])
def test_level_given_to_a_model_that_does_not_use_it_raises(model):
    # as combine(weights=...) with a rule that does not weight: an ignored option is an error
    with pytest.raises(ValueError, match="`level` is used by model='confidence_interval' only"):
        from_counts([[1, 2]], model=model, level=0.5)
    from_counts([[1, 2]], model="confidence_interval", level=0.5)


@pytest.mark.parametrize("model", ["likelihood", "bayes", "dempster", "confidence_interval", "plausibility"])
def test_prior_strength_given_to_a_model_that_does_not_use_it_raises(model):
    with pytest.raises(ValueError, match="`prior_strength` is used by model='imprecise_dirichlet' only"):
        from_counts([[1, 2]], model=model, prior_strength=2.0)
    from_counts([[1, 2]], model="imprecise_dirichlet", prior_strength=2.0)


def _support_by_decimal_bisection(p, q, digits=60):
    """pi(+) = sup min(pl(theta), 2 theta - 1) by bisection on theta in 60-digit decimal arithmetic."""
    from decimal import Decimal, localcontext

    with localcontext() as context:
        context.prec = digits
        p, q = Decimal(p), Decimal(q)
        n = p + q
        p_hat = p / n

        def log_pl(theta):
            return p * (theta / p_hat).ln() + q * ((1 - theta) / (1 - p_hat)).ln()

        low, high = max(p_hat, Decimal("0.5")), Decimal(1)
        for _ in range(200):  # the crossing of the decreasing pl and the increasing 2 theta - 1
            mid = (low + high) / 2
            if log_pl(mid) > (2 * mid - 1).ln():
                low = mid
            else:
                high = mid
        return float(2 * low - 1)


@pytest.mark.parametrize(
    "positives, negatives",
    [
        (3, 1),
        (10, 2),
        (7, 5),
        (100, 40),
        (9562672, 7862004),
        (5e12, 1e12),
        (3e14, 1e14),
        (3e15, 1e15),
        (6e17, 2e17),
    ],
)
def test_support_degrees_stay_exact_at_any_count(positives, negatives):
    """The log-likelihood is computed in its Kullback-Leibler form: no loss of n eps at large counts (at
    n = 4e15 the sum of the two log-likelihoods gave pi(+) = 1 for p_hat = 3/4 instead of 0.5)."""
    pi_plus, _ = plausibility_degrees([negatives, positives], allow_fractional=True)
    expected = _support_by_decimal_bisection(positives, negatives)
    assert float(pi_plus) == pytest.approx(expected, rel=1e-13)
