"""Count models against independent references: numerical integration and maximisation with scipy."""

from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, optimize

from dstk.evidence import from_counts, plausibility_degrees


def _relative_likelihood(k, n):
    tau_hat = k / n

    def contour(tau):
        if tau <= 0.0 or tau >= 1.0:
            return float((k == 0 and tau <= 0.0) or (k == n and tau >= 1.0))
        log_hat = (k * np.log(tau_hat) if k else 0.0) + ((n - k) * np.log1p(-tau_hat) if n > k else 0.0)
        return float(np.exp(k * np.log(tau) + (n - k) * np.log1p(-tau) - log_hat))

    return contour


def _pairs(seed, count, largest):
    rng = np.random.default_rng(seed)
    n = rng.integers(1, largest, size=count)
    k = rng.integers(0, n + 1)
    return list(zip(k.tolist(), n.tolist()))


@pytest.mark.parametrize(("k", "n"), _pairs(0, 40, 60))
def test_likelihood_model_equals_numerical_integration(k, n):
    # Xu et al. (2016) Eqs. 29-32: m({1}) = tau_hat - int_0^tau_hat pl, m({0}) = 1 - tau_hat - int_tau_hat^1 pl
    contour = _relative_likelihood(k, n)
    tau_hat = k / n
    left = integrate.quad(contour, 0.0, tau_hat, epsabs=1e-13, epsrel=1e-12)[0] if k else 0.0
    right = integrate.quad(contour, tau_hat, 1.0, epsabs=1e-13, epsrel=1e-12)[0] if k < n else 0.0
    masses = from_counts([n - k, k], model="likelihood").to_array()
    np.testing.assert_allclose(masses[2], tau_hat - left, atol=1e-9)
    np.testing.assert_allclose(masses[1], 1.0 - tau_hat - right, atol=1e-9)
    np.testing.assert_allclose(masses[3], left + right, atol=1e-9)


@pytest.mark.parametrize(("k", "n"), _pairs(1, 40, 200))
def test_plausibility_degrees_equal_numerical_maximisation(k, n):
    # Busch et al. (2021) section 3.1.2: pi_plus = sup min(pl(theta), 2 theta - 1), pi_minus likewise
    contour = _relative_likelihood(k, n)
    grid = np.linspace(0.0, 1.0, 20001)
    values = np.array([contour(t) for t in grid])
    plus_start = grid[np.argmax(np.minimum(values, 2 * grid - 1))]
    minus_start = grid[np.argmax(np.minimum(values, 1 - 2 * grid))]

    def refine(objective, start):
        lower, upper = max(start - 1e-4, 0.0), min(start + 1e-4, 1.0)
        result = optimize.minimize_scalar(
            lambda t: -objective(t), bounds=(lower, upper), method="bounded", options={"xatol": 1e-13}
        )
        return max(-result.fun, objective(start))

    pi_plus_reference = refine(lambda t: min(contour(t), 2 * t - 1), plus_start)
    pi_minus_reference = refine(lambda t: min(contour(t), 1 - 2 * t), minus_start)
    pi_plus, pi_minus = plausibility_degrees([n - k, k])
    np.testing.assert_allclose(pi_plus, pi_plus_reference, atol=1e-7)
    np.testing.assert_allclose(pi_minus, pi_minus_reference, atol=1e-7)


@pytest.mark.parametrize("seed", range(10))
def test_class_count_models_equal_exact_rationals(seed):
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(2, 6))
    counts = rng.integers(0, 30, size=(4, n_classes))
    strength = int(rng.integers(1, 4))
    for model, s in (("dempster", 1), ("imprecise_dirichlet", strength)):
        options = {"prior_strength": float(s)} if model == "imprecise_dirichlet" else {}
        masses = from_counts(counts, model=model, **options).to_array()
        for row, values in zip(counts.tolist(), masses):
            total = sum(row) + s
            expected = np.zeros(2**n_classes)
            for c, count in enumerate(row):
                expected[2**c] = float(Fraction(count, total))
            expected[-1] = float(Fraction(s, total))
            np.testing.assert_allclose(values, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("model", ["likelihood", "dempster", "confidence_interval", "plausibility"])
def test_binary_models_monotone_in_the_class_counts(model):
    # one more positive example never lowers Bel({1}) nor raises Bel({0}) (n fixed above the count)
    rng = np.random.default_rng(7)
    for _ in range(30):
        negative, positive = (int(v) for v in rng.integers(0, 40, size=2))
        before = from_counts([negative, positive], model=model).to_array()
        after = from_counts([negative, positive + 1], model=model).to_array()
        assert after[2] >= before[2] - 1e-12
        assert after[1] <= before[1] + 1e-12


def test_batch_equals_row_by_row():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 50, size=(200, 2))
    counts[:5] = [[0, 0], [10**12, 10**12], [0, 10**12], [3, 7], [3, 7]]
    for model in ("likelihood", "plausibility", "confidence_interval", "inverse_pignistic", "dempster"):
        batch = from_counts(counts, model=model).to_array()
        rows = np.array([from_counts(row, model=model).to_array() for row in counts])
        np.testing.assert_array_equal(batch, rows)
